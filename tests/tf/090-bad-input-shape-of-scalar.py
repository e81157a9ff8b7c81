# tf.shape of a scalar (a tensor or a Python value) is an empty shape vector.
import tensorflow as tf

print(tf.shape(tf.constant(1)))
print(tf.shape("s"))
print(tf.shape(2.5, out_type=tf.int64))
print(tf.size(tf.constant(1)))
print(tf.rank(3))


@tf.function
def f(x):
  return tf.shape(x)


print(f(tf.constant(1.0)))

# expect-output:
# tf.Tensor([], shape=(0,), dtype=int32)
# tf.Tensor([], shape=(0,), dtype=int32)
# tf.Tensor([], shape=(0,), dtype=int64)
# tf.Tensor(1, shape=(), dtype=int32)
# tf.Tensor(0, shape=(), dtype=int32)
# tf.Tensor([], shape=(0,), dtype=int32)
