# https://www.tensorflow.org/guide/tf_numpy, section "Indexing": basic indexing with newaxis,
# slices and an ellipsis; a boolean tuple; integer tuples and ND arrays as indices; no mutation.
# Outputs: the page's rendered outputs were not in the stored copies and the notebook source
# (tensorflow/docs site/en/guide/tf_numpy.ipynb) carries none, so they follow TensorFlow's source:
# tensorflow/python/ops/numpy_ops (np_dtypes._result_type: NumPy's promotion; np_array_ops,
# np_math_ops) and tf.Tensor's printing.
# The values are NumPy's indexing of np.arange(24).reshape(2, 3, 4).
import tensorflow as tf
import tensorflow.experimental.numpy as tnp

tnp.experimental_enable_numpy_behavior()

x = tnp.arange(24).reshape(2, 3, 4)

print("Basic indexing")
print(x[1, tnp.newaxis, 1:3, ...], "\n")

print("Boolean indexing")
print(x[:, (True, False, True)], "\n")

print("Advanced indexing")
print(x[1, (0, 0, 1), tnp.asarray([0, 1, 1])])

# Mutation is currently not supported
try:
  tnp.arange(6)[1] = -1
except TypeError:
  print("Currently, TensorFlow NumPy does not support mutation.")

# the same indexing inside a tf.function
f = tf.function(lambda t: t[:, (2, 0)][..., 1:3])
print(f(x).shape, f(x)[1, 0].numpy().tolist())

# expect-output:
# Basic indexing
# tf.Tensor(
# [[[16 17 18 19]
#   [20 21 22 23]]], shape=(1, 2, 4), dtype=int64) 
#
# Boolean indexing
# tf.Tensor(
# [[[ 0  1  2  3]
#   [ 8  9 10 11]]
#
#  [[12 13 14 15]
#   [20 21 22 23]]], shape=(2, 2, 4), dtype=int64) 
#
# Advanced indexing
# tf.Tensor([12 13 17], shape=(3,), dtype=int64)
# Currently, TensorFlow NumPy does not support mutation.
# (2, 2, 2) [21, 22]
