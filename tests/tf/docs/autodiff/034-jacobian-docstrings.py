# tf.GradientTape.jacobian and batch_jacobian, their docstrings' examples
# (https://www.tensorflow.org/api_docs/python/tf/GradientTape#jacobian, #batch_jacobian): the
# values are the docstrings' comments ("jacobian value is [[2., 0.], [0., 4.]]", "batch_jacobian
# is [[[2, 0], [0, 4]], [[6, 0], [0, 8]]]"), printed as TensorFlow prints tensors. Also sources
# in a structure, unconnected sources (None, or zeros with UnconnectedGradients.ZERO; with no
# connected row batch_jacobian returns float32 zeros, as its source does), and
# experimental_use_pfor=False on a persistent tape.
import tensorflow as tf

with tf.GradientTape() as g:
  x  = tf.constant([1.0, 2.0])
  g.watch(x)
  y = x * x
jacobian = g.jacobian(y, x)
print(jacobian)

with tf.GradientTape() as g:
  x = tf.constant([[1., 2.], [3., 4.]], dtype=tf.float32)
  g.watch(x)
  y = x * x
batch_jacobian = g.batch_jacobian(y, x)
print(batch_jacobian)

a = tf.Variable([1.0, 2.0])
b = tf.Variable(3.0)
unused = tf.Variable([5.0, 6.0, 7.0])
with tf.GradientTape(persistent=True) as g:
  y = a * b
print(g.jacobian(y, {'a': a, 'b': b, 'unused': unused}))
print(g.jacobian(y, [unused], unconnected_gradients=tf.UnconnectedGradients.ZERO))
print(g.jacobian(y, b, experimental_use_pfor=False))

x = tf.constant([[1., 2.], [3., 4.]])
other = tf.constant([[5., 6.], [7., 8.]])
with tf.GradientTape(persistent=True) as g:
  g.watch(x)
  g.watch(other)
  y = x * 2.0
print(g.batch_jacobian(y, other))

# expect-output:
# tf.Tensor(
# [[2. 0.]
#  [0. 4.]], shape=(2, 2), dtype=float32)
# tf.Tensor(
# [[[2. 0.]
#   [0. 4.]]
#
#  [[6. 0.]
#   [0. 8.]]], shape=(2, 2, 2), dtype=float32)
# {'a': <tf.Tensor: shape=(2, 2), dtype=float32, numpy=
# array([[3., 0.],
#        [0., 3.]], dtype=float32)>, 'b': <tf.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>, 'unused': None}
# [<tf.Tensor: shape=(2, 3), dtype=float32, numpy=
# array([[0., 0., 0.],
#        [0., 0., 0.]], dtype=float32)>]
# tf.Tensor([1. 2.], shape=(2,), dtype=float32)
# tf.Tensor(
# [[[0. 0.]
#   [0. 0.]]
#
#  [[0. 0.]
#   [0. 0.]]], shape=(2, 2, 2), dtype=float32)
