# tf.random.stateless_uniform and stateless_normal (the tf.random guide's "Stateless RNGs"):
# the values depend only on the seed pair, the same at every call, inside and outside
# tf.function and at every run of a graph (tf.random.uniform in the same graph draws anew each
# run); float and integer dtypes; a seed that is not shape [2] is the InvalidArgumentError of
# TensorFlow's StatelessRandomGetKeyCounter kernel. Trellis's streams are its own Philox
# streams: the values themselves are not TensorFlow's, only their properties are checked.
import tensorflow as tf
a = tf.random.stateless_uniform([3], seed=[1, 2])
b = tf.random.stateless_uniform([3], seed=[1, 2])
c = tf.random.stateless_uniform([3], seed=[1, 3])
print(bool(tf.reduce_all(a == b)), bool(tf.reduce_all(a == c)), a.dtype.name, a.shape)
print(bool(tf.reduce_all((a >= 0) & (a < 1))))
n = tf.random.stateless_normal([2, 2], seed=tf.constant([7, 8]), dtype=tf.float64)
print(n.dtype.name, n.shape)
i = tf.random.stateless_uniform([4], seed=[1, 2], minval=0, maxval=10, dtype=tf.int32)
print(i.dtype.name, bool(tf.reduce_all((i >= 0) & (i < 10))))
@tf.function
def draw(s):
  return tf.random.stateless_uniform([3], seed=[5, 6]), tf.random.uniform([3])
x1, y1 = draw(1); x2, y2 = draw(1)
print(bool(tf.reduce_all(x1 == x2)), bool(tf.reduce_all(y1 == y2)))
print(bool(tf.reduce_all(x1 == tf.random.stateless_uniform([3], seed=[5, 6]))))
for bad in ([1, 2, 3], 5):
  try:
    tf.random.stateless_uniform([2], seed=bad)
  except tf.errors.InvalidArgumentError as e:
    print(type(e).__name__, e)
# expect-output:
# True False float32 (3,)
# True
# float64 (2, 2)
# int32 True
# True False
# True
# InvalidArgumentError seed must have shape [2], not [3] [Op:StatelessRandomGetKeyCounter]
# InvalidArgumentError seed must have shape [2], not [] [Op:StatelessRandomGetKeyCounter]
