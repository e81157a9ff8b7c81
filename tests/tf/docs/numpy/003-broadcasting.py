# https://www.tensorflow.org/guide/tf_numpy, section "Broadcasting".
# Outputs: the page's rendered outputs were not in the stored copies and the notebook source
# (tensorflow/docs site/en/guide/tf_numpy.ipynb) carries none, so they follow TensorFlow's source:
# tensorflow/python/ops/numpy_ops (np_dtypes._result_type: NumPy's promotion; np_array_ops,
# np_math_ops) and tf.Tensor's printing.
import tensorflow.experimental.numpy as tnp

tnp.experimental_enable_numpy_behavior()

x = tnp.ones([2, 3])
y = tnp.ones([3])
z = tnp.ones([1, 2, 1])
print("Broadcasting shapes %s, %s and %s gives shape %s" % (
    x.shape, y.shape, z.shape, (x + y + z).shape))
print((x + y + z).dtype)

# expect-output:
# Broadcasting shapes (2, 3), (3,) and (1, 2, 1) gives shape (1, 2, 3)
# <dtype: 'float64'>
