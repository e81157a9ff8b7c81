# https://www.tensorflow.org/guide/tf_numpy, section "Trace compilation: tf.function": tnp code
# inside a tf.function gives the eager results (the page times it; this compares values), and the
# "Performance comparisons" section's sigmoid.
# Outputs follow TensorFlow's source (numpy_ops) and tf.Tensor's printing; the page prints timings.
import tensorflow as tf
import tensorflow.experimental.numpy as tnp

tnp.experimental_enable_numpy_behavior()

def tnp_sigmoid(y):
  return 1. / (1. + tnp.exp(-y))

@tf.function
def compiled_tnp_sigmoid(y):
  return tnp_sigmoid(y)

x = tnp.asarray([-1.0, 0.0, 1.0], tnp.float32)
print(compiled_tnp_sigmoid(x).dtype, bool(tnp.allclose(compiled_tnp_sigmoid(x), tnp_sigmoid(x))))
print(compiled_tnp_sigmoid(tnp.zeros([2])))


@tf.function
def loss_and_grad(w, inputs, labels):
  with tf.GradientTape() as tape:
    tape.watch(w)
    prediction = tnp.matmul(inputs, w)
    loss = tnp.sum(tnp.square(prediction - labels))
  return loss, tape.gradient(loss, w)

w = tnp.ones([3, 1], tnp.float32)
inputs = tnp.arange(6).reshape(2, 3).astype(tnp.float32)
labels = tnp.asarray([[1.0], [2.0]], tnp.float32)
loss, grad = loss_and_grad(w, inputs, labels)
print(loss)
print(grad.T)

# expect-output:
# <dtype: 'float32'> True
# tf.Tensor([0.5 0.5], shape=(2,), dtype=float64)
# tf.Tensor(104.0, shape=(), dtype=float32)
# tf.Tensor([[ 60.  84. 108.]], shape=(1, 3), dtype=float32)
