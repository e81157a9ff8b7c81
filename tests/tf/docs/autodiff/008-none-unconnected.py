# https://www.tensorflow.org/guide/autodiff — "Cases where gradient returns None": a target not
# connected to the source, and "1. Replaced a variable with a tensor".
# Outputs: the page's, except that the page prints type(x).__name__ ("ResourceVariable",
# "EagerTensor": TensorFlow's class names, which Trellis's classes do not have); here the
# program prints whether x is a tf.Variable.
import tensorflow as tf

x = tf.Variable(2.)
y = tf.Variable(3.)

with tf.GradientTape() as tape:
  z = y * y
print(tape.gradient(z, x))

x = tf.Variable(2.0)

for epoch in range(2):
  with tf.GradientTape() as tape:
    y = x+1

  print(isinstance(x, tf.Variable), ":", tape.gradient(y, x))
  x = x + 1   # This should be `x.assign_add(1)`

# expect-output:
# None
# True : tf.Tensor(1.0, shape=(), dtype=float32)
# False : None
