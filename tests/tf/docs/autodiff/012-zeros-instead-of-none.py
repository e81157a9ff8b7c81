# https://www.tensorflow.org/guide/autodiff — "Zeros instead of None": unconnected_gradients
# asks for zeros shaped like the source. Output: the page's. Also the enum itself, as
# tf.UnconnectedGradients documents it (NONE = "none", ZERO = "zero"), and its string form,
# which gradient() accepts as well.
import tensorflow as tf

x = tf.Variable([2., 2.])
y = tf.Variable(3.)

with tf.GradientTape() as tape:
  z = y**2
print(tape.gradient(z, x, unconnected_gradients=tf.UnconnectedGradients.ZERO))

print(list(tf.UnconnectedGradients))
print(tf.UnconnectedGradients('zero') is tf.UnconnectedGradients.ZERO)

with tf.GradientTape() as tape:
  z = y**2
print(tape.gradient(z, [x, y], unconnected_gradients='zero'))

with tf.GradientTape() as tape:
  z = y**2
try:
  tape.gradient(z, x, unconnected_gradients='nothing')
except ValueError as e:
  print('ValueError:', e)

# expect-output:
# tf.Tensor([0. 0.], shape=(2,), dtype=float32)
# [<UnconnectedGradients.NONE: 'none'>, <UnconnectedGradients.ZERO: 'zero'>]
# True
# [<tf.Tensor: shape=(2,), dtype=float32, numpy=array([0., 0.], dtype=float32)>, <tf.Tensor: shape=(), dtype=float32, numpy=6.0>]
# ValueError: Unknown value for unconnected_gradients: 'nothing'
