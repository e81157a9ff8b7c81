# https://www.tensorflow.org/guide/tf_numpy, sections "NumPy interoperability" and "Operator
# precedence": NumPy functions take ND arrays through __array__, tnp functions take np.ndarray,
# and ND array + np.ndarray is a tf.Tensor.
# Outputs: the page's rendered outputs were not in the stored copies and the notebook source
# (tensorflow/docs site/en/guide/tf_numpy.ipynb) carries none, so they follow TensorFlow's source:
# tensorflow/python/ops/numpy_ops (np_array_ops, np_math_ops) and tf.Tensor's printing.
import numpy as np
import tensorflow.experimental.numpy as tnp

tnp.experimental_enable_numpy_behavior()

# ND array passed into NumPy function.
np_sum = np.sum(tnp.ones([2, 3]))
print("sum = %s. Class: %s" % (float(np_sum), np_sum.__class__))

# `np.ndarray` passed into TensorFlow NumPy function.
tnp_sum = tnp.sum(np.ones([2, 3]))
print("sum = %s. Class: %s" % (float(tnp_sum), tnp_sum.__class__))

x = tnp.ones([2]) + np.ones([2])
print("x = %s\nclass = %s" % (x, x.__class__))

# the module page (tf.experimental.numpy, "Array Interface"): np.sum over a broadcast sum
print(np.sum(tnp.ones([1, 2]) + np.ones([2, 1])))
# np.mean calls the tensor's mean method (NumPy behavior adds it), so it returns a tf.Tensor
print(np.asarray(tnp.arange(3)), np.mean(tnp.arange(4)))

# expect-output:
# sum = 6.0. Class: <class 'numpy.float64'>
# sum = 6.0. Class: <class 'tensorflow.python.framework.ops.EagerTensor'>
# x = tf.Tensor([2. 2.], shape=(2,), dtype=float64)
# class = <class 'tensorflow.python.framework.ops.EagerTensor'>
# 8.0
# [0 1 2] tf.Tensor(1.5, shape=(), dtype=float64)
