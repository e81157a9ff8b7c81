# https://www.tensorflow.org/api_docs/python/tf/norm (ord 'euclidean', 1, np.inf over vectors
# and, with a 2-tuple axis, matrices; keepdims) and tf/reverse. Values follow the norms'
# definitions on the tf.norm page for a 3-4-5 triangle; the `ord` and `axis` errors are
# linalg_ops.py's texts, the reverse error reverse_op.cc's.
import numpy as np
import tensorflow as tf

v = tf.constant([3.0, -4.0])
print(tf.norm(v), tf.norm(v, ord=1), tf.norm(v, ord=np.inf))
m = tf.constant([[1.0, -2.0], [3.0, 4.0]])
print(tf.norm(m, ord=1, axis=[0, 1]), tf.norm(m, ord=np.inf, axis=(0, 1)))
print(tf.linalg.norm(tf.constant([[3.0, 4.0], [6.0, 8.0]]), axis=1, keepdims=True))
print(tf.function(lambda x: tf.norm(x, axis=-1))(tf.constant([[3.0, 4.0]])))

try:
    tf.norm(v, ord='fro')
except ValueError as e:
    print("ValueError:", e)
try:
    tf.norm(m, axis=[0, 0])
except ValueError as e:
    print("ValueError:", e)

t = tf.constant([[1, 2, 3], [4, 5, 6]])
print(tf.reverse(t, [1]))
print(tf.reverse(t, [-2, 1]))
try:
    tf.reverse(t, [2])
except tf.errors.InvalidArgumentError as e:
    print(type(e).__name__ + ":", e)

# expect-output:
# tf.Tensor(5.0, shape=(), dtype=float32) tf.Tensor(7.0, shape=(), dtype=float32) tf.Tensor(4.0, shape=(), dtype=float32)
# tf.Tensor(6.0, shape=(), dtype=float32) tf.Tensor(7.0, shape=(), dtype=float32)
# tf.Tensor(
# [[ 5.]
#  [10.]], shape=(2, 1), dtype=float32)
# tf.Tensor([5.], shape=(1,), dtype=float32)
# ValueError: 'ord' must be a supported vector norm, got fro
# ValueError: 'axis' must be None, an integer, or a tuple of 2 unique integers, got [0, 0]
# tf.Tensor(
# [[3 2 1]
#  [6 5 4]], shape=(2, 3), dtype=int32)
# tf.Tensor(
# [[6 5 4]
#  [3 2 1]], shape=(2, 3), dtype=int32)
# InvalidArgumentError: 'axis'[0] = 2 is out of valid range [0, 1 [Op:ReverseV2]
