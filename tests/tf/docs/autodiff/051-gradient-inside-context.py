# tf.GradientTape.gradient called inside the tape's `with` (tensorflow/python/eager/backprop.py,
# and https://www.tensorflow.org/guide/advanced_autodiff "Higher-order gradients"): a
# non-persistent tape stops recording there, so what follows is not on it, and a second
# gradient() is TensorFlow's RuntimeError; a persistent tape keeps recording (its gradient ops
# too, which is how higher orders work) and TensorFlow's logger warns once that this is slower.
# Texts: TensorFlow's source.
import tensorflow as tf

x = tf.constant(3.0)
with tf.GradientTape() as tape:
  tape.watch(x)
  y = x * x
  print(tape.gradient(y, x))
  z = y * x
try:
  tape.gradient(z, x)
except RuntimeError as e:
  print('RuntimeError:', e)

with tf.GradientTape(persistent=True) as tape:
  tape.watch(x)
  y = x * x
  dy = tape.gradient(y, x)
  dy2 = tape.gradient(dy, x)
  print(dy, dy2)

with tf.GradientTape(persistent=True) as tape:
  tape.watch(x)
  y = x * x * x
  print(tape.gradient(y, x))

# expect-output:
# tf.Tensor(6.0, shape=(), dtype=float32)
# RuntimeError: A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)
# tf.Tensor(6.0, shape=(), dtype=float32) tf.Tensor(2.0, shape=(), dtype=float32)
# tf.Tensor(27.0, shape=(), dtype=float32)
# expect-stderr:
# WARNING:tensorflow:Calling GradientTape.gradient on a persistent tape inside its context is significantly less efficient than calling it outside the context (it causes the gradient ops to be recorded on the tape, leading to increased CPU and memory usage). Only call GradientTape.gradient inside the context if you actually want to trace the gradient in order to compute higher order derivatives.
