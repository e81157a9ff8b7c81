# https://www.tensorflow.org/guide/tf_numpy, section "Example Model": a relu layer and a linear
# projection written with tnp (tnp.sqrt of an int is float64 until astype, tnp.random.randn).
# Outputs: the page's rendered outputs were not in the stored copies and the notebook source
# (tensorflow/docs site/en/guide/tf_numpy.ipynb) carries none, so they follow TensorFlow's source:
# tensorflow/python/ops/numpy_ops (np_array_ops, np_math_ops) and tf.Tensor's printing.
# The page prints the model's prediction, drawn from random weights: this prints its shape and
# dtype, and checks the relu against the same computation by hand.
import tensorflow as tf
import tensorflow.experimental.numpy as tnp

tnp.experimental_enable_numpy_behavior()
tnp.random.seed(1)


class Model(object):
  """Model with a dense and a linear layer."""

  def __init__(self):
    self.weights = None

  def predict(self, inputs):
    if self.weights is None:
      size = inputs.shape[1]
      # Note that type `tnp.float32` is used for performance.
      stddev = tnp.sqrt(size).astype(tnp.float32)
      w1 = tnp.random.randn(size, 64).astype(tnp.float32) / stddev
      bias = tnp.random.randn(64).astype(tnp.float32)
      w2 = tnp.random.randn(64, 2).astype(tnp.float32) / 8
      self.weights = (w1, bias, w2)
    else:
      w1, bias, w2 = self.weights
    y = tnp.matmul(inputs, w1) + bias
    y = tnp.maximum(y, 0)  # Relu
    return tnp.matmul(y, w2)  # Linear projection

model = Model()
# Create input data and compute predictions.
prediction = model.predict(tnp.ones([2, 32], dtype=tnp.float32))
print(prediction.shape, prediction.dtype)
print(tnp.sqrt(32).dtype, tnp.random.randn(3).dtype, [w.shape for w in model.weights])
w1, bias, w2 = model.weights
by_hand = tf.matmul(tf.nn.relu(tf.matmul(tf.ones([2, 32]), w1) + bias), w2)
print(bool(tnp.allclose(prediction, by_hand)))

# expect-output:
# (2, 2) <dtype: 'float32'>
# <dtype: 'float64'> <dtype: 'float64'> [TensorShape([32, 64]), TensorShape([64]), TensorShape([64, 2])]
# True
