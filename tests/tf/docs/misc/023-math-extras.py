# Docstring examples, outputs from the pages: https://www.tensorflow.org/api_docs/python/tf/math/reduce_std,
# https://www.tensorflow.org/api_docs/python/tf/math/reduce_variance,
# https://www.tensorflow.org/api_docs/python/tf/nn/elu, https://www.tensorflow.org/api_docs/python/tf/clip_by_norm,
# https://www.tensorflow.org/api_docs/python/tf/gather_nd ("Gathering scalars", "Gathering
# slices"); reduce_variance's TypeError for integers is math_ops.py's text.
import tensorflow as tf

x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
print(tf.math.reduce_std(x))
print(tf.math.reduce_std(x, 0))
print(tf.math.reduce_std(x, 1))
print(tf.math.reduce_variance(x))
print(tf.math.reduce_variance(x, 0))
print(tf.math.reduce_variance(x, 1))
try:
    tf.math.reduce_variance(tf.constant([1, 2]))
except TypeError as e:
    print(e)
print(tf.nn.elu(tf.constant([-1.0, 0.0, 1.0])))
some_nums = tf.constant([[1, 2, 3, 4, 5]], dtype=tf.float32)
print(tf.clip_by_norm(some_nums, 2.0).numpy())
print(tf.gather_nd(indices=[[0, 0], [1, 1]], params=[["a", "b"], ["c", "d"]]).numpy())
print(tf.gather_nd(indices=[[1], [0]], params=[["a", "b"], ["c", "d"]]).numpy())

# expect-output:
# tf.Tensor(1.118034, shape=(), dtype=float32)
# tf.Tensor([1. 1.], shape=(2,), dtype=float32)
# tf.Tensor([0.5 0.5], shape=(2,), dtype=float32)
# tf.Tensor(1.25, shape=(), dtype=float32)
# tf.Tensor([1. 1.], shape=(2,), dtype=float32)
# tf.Tensor([0.25 0.25], shape=(2,), dtype=float32)
# Input must be either real or complex. Received integer type <dtype: 'int32'>.
# tf.Tensor([-0.63212055  0.          1.        ], shape=(3,), dtype=float32)
# [[0.26967996 0.5393599  0.80903983 1.0787199  1.3483998 ]]
# [b'a' b'd']
# [[b'c' b'd']
#  [b'a' b'b']]
