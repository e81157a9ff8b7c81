# https://www.tensorflow.org/guide/tf_numpy, section "Type promotion" ("NumPy Type Promotion"):
# mixed dtypes promote by NumPy's rules, literals become int64 and float64 (float32 with
# prefer_float32=True).
# Outputs: the page's rendered outputs were not in the stored copies and the notebook source
# (tensorflow/docs site/en/guide/tf_numpy.ipynb) carries none, so they follow TensorFlow's source:
# tensorflow/python/ops/numpy_ops (np_dtypes._result_type: NumPy's promotion; np_array_ops,
# np_math_ops) and tf.Tensor's printing.
import tensorflow as tf
import tensorflow.experimental.numpy as tnp

tnp.experimental_enable_numpy_behavior()

print("Type promotion for operations")
values = [tnp.asarray(1, dtype=d) for d in
          (tnp.int32, tnp.int64, tnp.float32, tnp.float64)]
for i, v1 in enumerate(values):
  for v2 in values[i + 1:]:
    print("%s + %s => %s" %
          (v1.dtype.name, v2.dtype.name, (v1 + v2).dtype.name))

print("Type inference during array creation")
print("tnp.asarray(1).dtype == tnp.%s" % tnp.asarray(1).dtype.name)
print("tnp.asarray(1.).dtype == tnp.%s\n" % tnp.asarray(1.).dtype.name)

tnp.experimental_enable_numpy_behavior(prefer_float32=True)
print("When prefer_float32 is True:")
print("tnp.asarray(1.).dtype == tnp.%s" % tnp.asarray(1.).dtype.name)
print("tnp.add(1., 2.).dtype == tnp.%s" % tnp.add(1., 2.).dtype.name)

tnp.experimental_enable_numpy_behavior(prefer_float32=False)
print("When prefer_float32 is False:")
print("tnp.asarray(1.).dtype == tnp.%s" % tnp.asarray(1.).dtype.name)
print("tnp.add(1., 2.).dtype == tnp.%s" % tnp.add(1., 2.).dtype.name)

# experimental_enable_numpy_behavior's docstring: int32 + float32 operators give float64 now.
print(tf.ones([], tf.int32) + tf.ones([], tf.float32))
# a Python number takes part by value (NumPy 1.x): float32 stays float32, int32 + 1.5 is float64
print((tnp.ones([2], tnp.float32) * 2).dtype, (tf.constant([1, 2]) + 1.5).dtype)

# expect-output:
# Type promotion for operations
# int32 + int64 => int64
# int32 + float32 => float64
# int32 + float64 => float64
# int64 + float32 => float64
# int64 + float64 => float64
# float32 + float64 => float64
# Type inference during array creation
# tnp.asarray(1).dtype == tnp.int64
# tnp.asarray(1.).dtype == tnp.float64
#
# When prefer_float32 is True:
# tnp.asarray(1.).dtype == tnp.float32
# tnp.add(1., 2.).dtype == tnp.float32
# When prefer_float32 is False:
# tnp.asarray(1.).dtype == tnp.float64
# tnp.add(1., 2.).dtype == tnp.float64
# tf.Tensor(2.0, shape=(), dtype=float64)
# <dtype: 'float32'> <dtype: 'float64'>
