# https://www.tensorflow.org/api_docs/python/tf/split and tf/unstack, the docstrings' examples
# (outputs from the pages); the split error is Split's (TF's core/kernels/split_op.cc text).
import tensorflow as tf

x = tf.Variable(tf.random.uniform([5, 30], -1, 1))
s0, s1, s2 = tf.split(x, num_or_size_splits=3, axis=1)
print(repr(tf.shape(s0).numpy()))
split0, split1, split2 = tf.split(x, [4, 15, 11], 1)
print(repr(tf.shape(split0).numpy()))
print(repr(tf.shape(split1).numpy()))
print(repr(tf.shape(split2).numpy()))

x = tf.reshape(tf.range(12), (3, 4))
p, q, r = tf.unstack(x)
print(p.shape.as_list())
i, j, k, l = tf.unstack(x, axis=1)
print(i.shape.as_list())
print(j)

@tf.function
def halves(v):
    return tf.split(v, 2, axis=-1)

print(halves(x))

try:
    tf.split(tf.range(5), 2)
except tf.errors.InvalidArgumentError as e:
    print(type(e).__name__ + ":", e)

# expect-output:
# array([ 5, 10], dtype=int32)
# array([5, 4], dtype=int32)
# array([ 5, 15], dtype=int32)
# array([ 5, 11], dtype=int32)
# [4]
# [3]
# tf.Tensor([1 5 9], shape=(3,), dtype=int32)
# [<tf.Tensor: shape=(3, 2), dtype=int32, numpy=
# array([[0, 1],
#        [4, 5],
#        [8, 9]], dtype=int32)>, <tf.Tensor: shape=(3, 2), dtype=int32, numpy=
# array([[ 2,  3],
#        [ 6,  7],
#        [10, 11]], dtype=int32)>]
# InvalidArgumentError: Number of ways to split should evenly divide the split dimension, but got split_dim 0 (size = 5) and num_split 2 [Op:Split]
