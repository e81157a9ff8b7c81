# tf.custom_gradient inside a tf.function (https://www.tensorflow.org/api_docs/python/tf/custom_gradient
# and https://www.tensorflow.org/guide/advanced_autodiff "Custom gradients"): a tape inside the
# traced function uses grad_fn, whose ops join the graph and run on every call; the function
# is traced once. Values: the docstring's and the guide's (clip 4 to 2 here as an identity
# whose gradient is halved); the gradient of log1pexp at 100 is 1.0.
import tensorflow as tf

@tf.custom_gradient
def log1pexp(x):
  e = tf.exp(x)
  def grad(upstream):
    return upstream * (1 - 1 / (1 + e))
  return tf.math.log(1 + e), grad

@tf.function
def grad_log1pexp(x):
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = log1pexp(x)
  return tape.gradient(y, x)

print(grad_log1pexp(tf.constant(100.)))
print(grad_log1pexp(tf.constant(0.)))
print(grad_log1pexp.experimental_get_tracing_count())

@tf.custom_gradient
def halve_gradient(y):
  def backward(dy):
    return dy * 0.5
  return y, backward

v = tf.Variable(2.0)

@tf.function
def step():
  with tf.GradientTape() as t:
    output = halve_gradient(v * v)
  return t.gradient(output, v)

print(step())
v.assign(3.0)
print(step())

# Keyword arguments are for eager execution only (the source's ValueError).
@tf.function
def with_keywords(x):
  return log1pexp(x=x)

try:
  with_keywords(tf.constant(1.0))
except ValueError as e:
  print('ValueError:', e)

# expect-output:
# tf.Tensor(1.0, shape=(), dtype=float32)
# tf.Tensor(0.5, shape=(), dtype=float32)
# 1
# tf.Tensor(2.0, shape=(), dtype=float32)
# tf.Tensor(3.0, shape=(), dtype=float32)
# ValueError: The custom_gradient decorator currently supports keywords arguments only when eager execution is enabled.
