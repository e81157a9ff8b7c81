# Tracing that fails leaves nothing behind (issue 16: an error path leaked its symbolic tensor;
# the sanitizer build checks leaks at exit): a Python exception, holding a symbolic tensor or
# not, op errors (dtypes, shapes), errors in AutoGraph's branches and loops, in a nested
# Function and in get_concrete_function, a tensor that escaped before the error. Each Function
# still traces and runs afterwards.
import tensorflow as tf


def attempt(name, f, *args):
  try:
    f(*args)
    print(name, "no error")
  except Exception as e:  # the exception types are TensorFlow's
    print(name, type(e).__name__)


@tf.function
def raises(x):
  y = x * 2
  if isinstance(x, int):
    return y
  raise ValueError(y)


@tf.function
def dtype_error(x):
  return x + 1 + tf.constant(1.5)


@tf.function
def shape_error(x):
  return tf.matmul(x * 3, tf.ones([5, 7]))


@tf.function
def reshape_error(x):
  return tf.reshape(x + 1, [7])


@tf.function
def branch_dtypes(x):
  if tf.reduce_sum(x) > 0:
    z = x + 1
  else:
    z = tf.constant(1.5)
  return z


@tf.function
def loop_dtype(x):
  i = tf.constant(0)
  while i < 3:
    i = i + 1.5
  return i


@tf.function
def inner(x):
  raise KeyError("inner")


@tf.function
def outer(x):
  return inner(x + 1)


escaped = []


@tf.function
def escapes(x):
  escaped.append(x + 1)
  raise RuntimeError("after the escape")


x = tf.constant([1, 2])
for _ in range(2):
  attempt("raises", raises, x)
  attempt("dtype_error", dtype_error, x)
  attempt("shape_error", shape_error, tf.ones([2, 3]))
  attempt("reshape_error", reshape_error, x)
  attempt("branch_dtypes", branch_dtypes, x)
  attempt("loop_dtype", loop_dtype, x)
  attempt("outer", outer, x)
  attempt("escapes", escapes, x)
  attempt("get_concrete_function", raises.get_concrete_function, tf.TensorSpec([None], tf.int32))
print(raises(3))
print(reshape_error(tf.constant([1, 2, 3, 4, 5, 6, 7])))
print(len(escaped))

# expect-output:
# raises ValueError
# dtype_error TypeError
# shape_error ValueError
# reshape_error ValueError
# branch_dtypes TypeError
# loop_dtype TypeError
# outer KeyError
# escapes RuntimeError
# get_concrete_function ValueError
# raises ValueError
# dtype_error TypeError
# shape_error ValueError
# reshape_error ValueError
# branch_dtypes TypeError
# loop_dtype TypeError
# outer KeyError
# escapes RuntimeError
# get_concrete_function ValueError
# tf.Tensor(6, shape=(), dtype=int32)
# tf.Tensor([2 3 4 5 6 7 8], shape=(7,), dtype=int32)
# 2
