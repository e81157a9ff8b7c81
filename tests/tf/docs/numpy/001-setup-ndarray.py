# https://www.tensorflow.org/guide/tf_numpy, sections "Setup", "Enabling NumPy behavior" and
# "TensorFlow NumPy ND array": both import forms name one module, tnp.ndarray is tf.Tensor, and
# after experimental_enable_numpy_behavior() a tensor has NumPy's T and reshape.
# Outputs: the page's rendered outputs were not in the stored copies and the notebook source
# (tensorflow/docs site/en/guide/tf_numpy.ipynb) carries none, so they follow TensorFlow's source:
# tensorflow/python/ops/numpy_ops (np_dtypes._result_type: NumPy's promotion; np_array_ops,
# np_math_ops) and tf.Tensor's printing.
import numpy as np
import tensorflow as tf
import tensorflow.experimental.numpy as tnp

print(tnp is tf.experimental.numpy, tnp.ndarray is tf.Tensor)
tnp.experimental_enable_numpy_behavior()

# Create an ND array and check out different attributes.
ones = tnp.ones([5, 3], dtype=tnp.float32)
print("Created ND array with shape = %s, rank = %s, "
      "dtype = %s on device = %s\n" % (
          ones.shape, ones.ndim, ones.dtype, ones.device))

# `ndarray` is just an alias to `tf.Tensor`.
print("Is `ones` an instance of tf.Tensor: %s\n" % isinstance(ones, tf.Tensor))

# Try commonly used member functions.
print("ndarray.T has shape %s" % str(ones.T.shape))
print("narray.reshape(-1) has shape %s" % ones.reshape(-1).shape)

# tnp's dtypes are NumPy's type objects
print(tnp.float32 is np.float32, tnp.int64 is np.int64)

# expect-output:
# True True
# Created ND array with shape = (5, 3), rank = 2, dtype = <dtype: 'float32'> on device = /job:localhost/replica:0/task:0/device:CPU:0
#
# Is `ones` an instance of tf.Tensor: True
#
# ndarray.T has shape (3, 5)
# narray.reshape(-1) has shape (15,)
# True True
