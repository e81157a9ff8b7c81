# https://www.tensorflow.org/api_docs/python/tf/py_function (the docstring's log_huber example:
# its gradient through the eagerly run function, 2.0 as the page asserts) and
# https://www.tensorflow.org/api_docs/python/tf/numpy_function (the docstring's np.sinh example in
# a tf.function with an input_signature; its repr from the page). In a tf.function the Python
# function runs each time the graph runs (an EagerPyFunc node), with a list Tout giving a list
# of results; a ValueError inside it fails the run with InvalidArgumentError, as py_func.cc maps
# it (its message starts with "ValueError: no good").
import numpy as np
import tensorflow as tf

def log_huber(x, m):
  if tf.abs(x) <= m:
    return x**2
  else:
    return m**2 * (1 - 2 * tf.math.log(m) + tf.math.log(x**2))

x = tf.constant(1.0)
m = tf.constant(2.0)

with tf.GradientTape() as t:
  t.watch([x, m])
  y = tf.py_function(func=log_huber, inp=[x, m], Tout=tf.float32)

dy_dx = t.gradient(y, x)
assert dy_dx.numpy() == 2.0
print(y, dy_dx)

def my_numpy_func(x):
  # x will be a numpy array with the contents of the input to the
  # tf.function
  return np.sinh(x)
@tf.function(input_signature=[tf.TensorSpec(None, tf.float32)])
def tf_function(input):
  y = tf.numpy_function(my_numpy_func, [input], tf.float32)
  return y * y
print(repr(tf_function(tf.constant(1.))))

# Inside a tf.function the Python function runs each time the graph runs, not once at tracing.
calls = []
def record(v):
  calls.append(float(v))
  return v + 1, tf.cast(v, tf.int32)

@tf.function
def twice(v):
  a, b = tf.py_function(record, [v], [tf.float32, tf.int32])
  return a * 2.0, b

print(twice(tf.constant(1.5)), twice(tf.constant(2.5)), calls)

def fails(v):
  raise ValueError("no good")

@tf.function
def g(v):
  return tf.py_function(fails, [v], tf.float32)

try:
  g(tf.constant(1.0))
except tf.errors.InvalidArgumentError as e:
  print(type(e).__name__, "ValueError: no good" in str(e))

# expect-output:
# tf.Tensor(1.0, shape=(), dtype=float32) tf.Tensor(2.0, shape=(), dtype=float32)
# <tf.Tensor: shape=(), dtype=float32, numpy=1.3810978>
# (<tf.Tensor: shape=(), dtype=float32, numpy=5.0>, <tf.Tensor: shape=(), dtype=int32, numpy=1>) (<tf.Tensor: shape=(), dtype=float32, numpy=7.0>, <tf.Tensor: shape=(), dtype=int32, numpy=2>) [1.5, 2.5]
# InvalidArgumentError True
