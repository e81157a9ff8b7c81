# https://www.tensorflow.org/api_docs/python/tf/tensordot (contraction over the last axis of a
# and the first of b, an explicit axes pair, a full contraction to a scalar; values by hand: row
# [0 1 2] against the columns of range(12) as 3 x 4) and tf/nn/l2_loss (sum(t ** 2) / 2 = 7).
# The ValueError is math_ops._tensordot_axes's text.
import tensorflow as tf
a = tf.reshape(tf.range(6.0), [2, 3]); b = tf.reshape(tf.range(12.0), [3, 4])
print(tf.tensordot(a, b, 1))
print(tf.tensordot(a, b, [[1], [0]]).shape, tf.tensordot(a, a, [[0, 1], [0, 1]]))
print(tf.nn.l2_loss(tf.constant([1.0, 2.0, 3.0])))
try:
  tf.tensordot(a, b, -1)
except ValueError as e:
  print(e)

# expect-output:
# tf.Tensor(
# [[20. 23. 26. 29.]
#  [56. 68. 80. 92.]], shape=(2, 4), dtype=float32)
# (2, 4) tf.Tensor(55.0, shape=(), dtype=float32)
# tf.Tensor(7.0, shape=(), dtype=float32)
# `axes` must be at least 0. Received: -1.
