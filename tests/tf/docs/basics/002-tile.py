# https://www.tensorflow.org/api_docs/python/tf/tile, the docstring's examples (outputs from the
# page); the error is Tile's (TF's core/kernels/tile_ops.cc text). The gradient sums the copies.
import tensorflow as tf

a = tf.constant([[1, 2, 3], [4, 5, 6]], tf.int32)
b = tf.constant([1, 2], tf.int32)
print(repr(tf.tile(a, b)))
c = tf.constant([2, 1], tf.int32)
print(repr(tf.tile(a, c)))
d = tf.constant([2, 2], tf.int32)
print(repr(tf.tile(a, d)))

print(tf.function(lambda t: tf.tile(t, [1, 2]))(a).shape)

x = tf.constant([[1.0, 2.0]])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.tile(x, [3, 2])
print(tape.gradient(y, x))

try:
    tf.tile(a, [1, 2, 3])
except tf.errors.InvalidArgumentError as e:
    print(type(e).__name__ + ":", e)

# expect-output:
# <tf.Tensor: shape=(2, 6), dtype=int32, numpy=
# array([[1, 2, 3, 1, 2, 3],
#        [4, 5, 6, 4, 5, 6]], dtype=int32)>
# <tf.Tensor: shape=(4, 3), dtype=int32, numpy=
# array([[1, 2, 3],
#        [4, 5, 6],
#        [1, 2, 3],
#        [4, 5, 6]], dtype=int32)>
# <tf.Tensor: shape=(4, 6), dtype=int32, numpy=
# array([[1, 2, 3, 1, 2, 3],
#        [4, 5, 6, 4, 5, 6],
#        [1, 2, 3, 1, 2, 3],
#        [4, 5, 6, 4, 5, 6]], dtype=int32)>
# (2, 6)
# tf.Tensor([[6. 6.]], shape=(1, 2), dtype=float32)
# InvalidArgumentError: Expected multiples argument to be a vector of length 2 but got length 3 [Op:Tile]
