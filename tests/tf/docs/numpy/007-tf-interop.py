# https://www.tensorflow.org/guide/tf_numpy, sections "tf.Tensor and ND array" and "TensorFlow
# interoperability"; the module page (tf.experimental.numpy, "TF Interoperability").
# Outputs: the page's rendered outputs were not in the stored copies and the notebook source
# (tensorflow/docs site/en/guide/tf_numpy.ipynb) carries none, so they follow TensorFlow's source:
# tensorflow/python/ops/numpy_ops (np_array_ops, np_math_ops) and tf.Tensor's printing.
import tensorflow as tf
import tensorflow.experimental.numpy as tnp

tnp.experimental_enable_numpy_behavior()

x = tf.constant([1, 2])
print(x)

# `asarray` and `convert_to_tensor` here are no-ops.
tnp_x = tnp.asarray(x)
print(tnp_x)
print(tf.convert_to_tensor(tnp_x))
print(tnp_x is x)

# Note that tf.Tensor.numpy() will continue to return `np.ndarray`.
print(x.numpy(), x.numpy().__class__)

# ND array passed into TensorFlow function.
tf_sum = tf.reduce_sum(tnp.ones([2, 3], tnp.float32))
print("Output = %s" % tf_sum)

# `tf.Tensor` passed into TensorFlow NumPy function.
tnp_sum = tnp.sum(tf.ones([2, 3]))
print("Output = %s" % tnp_sum)

# tnp.ones is float64, tf.ones float32: NumPy's promotion gives float64
print(tnp.sum(tnp.ones([1, 2]) + tf.ones([2, 1])))

# expect-output:
# tf.Tensor([1 2], shape=(2,), dtype=int32)
# tf.Tensor([1 2], shape=(2,), dtype=int32)
# tf.Tensor([1 2], shape=(2,), dtype=int32)
# True
# [1 2] <class 'numpy.ndarray'>
# Output = tf.Tensor(6.0, shape=(), dtype=float32)
# Output = tf.Tensor(6.0, shape=(), dtype=float32)
# tf.Tensor(8.0, shape=(), dtype=float64)
