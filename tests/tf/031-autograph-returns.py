# AutoGraph's lowered `return`: a return in one branch of an `if` on a tensor, or inside a loop on
# a tensor, works for values of unknown shape too (the other path carries zeros with the unknown
# dims 0, and the If or While output relaxes them to None); errors raised inside converted code
# point at the user's own line (the converted code keeps the original file and line numbers).
import os
import traceback

import tensorflow as tf

@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
def positive_or_double(x):
  if tf.reduce_sum(x) > 0:
    return x
  return x * 2

print(positive_or_double(tf.constant([1.0, -3.0])), positive_or_double(tf.constant([2.0])))
print(positive_or_double.get_concrete_function().structured_outputs.shape)

@tf.function(input_signature=[tf.TensorSpec([None], tf.int32), tf.TensorSpec([], tf.int32)])
def tail_from_big(x, n):
  for i in tf.range(n):
    if x[i] > 5:
      return x + i
  return x * 0

print(tail_from_big(tf.constant([1, 7, 2, 9]), 4), tail_from_big(tf.constant([1, 2]), 2))
print(tail_from_big.get_concrete_function().structured_outputs.shape)

@tf.function
def first_negative(x):
  i = 0
  while i < 10:
    if x[i] < 0:
      return i
    i += 1
  return -1

print(first_negative(tf.constant([3, 1, -4, 1, -5, 9, 2, 6, 5, 3])))

def helper(x):
  # A user function called from a traced one is converted at its call.
  if x > 2:
    return x - 2
  return x + 2

@tf.function
def calls_helper(x):
  return helper(x) * 10

print(calls_helper(tf.constant(5)), calls_helper(tf.constant(1)))

@tf.function
def recursive_fn(n):
  # The converted function calls itself through its global name, as the original does.
  if n > 0:
    print('tracing')
    return recursive_fn(n - 1)
  else:
    return 1

print(repr(recursive_fn(3)))

@tf.function
def loop_else(n):
  s = 0
  for i in range(3):
    s += i
  else:
    s += 100
  while n > 0:
    n -= 1
  else:
    s += 1000
  return s + n

print(loop_else(tf.constant(4)))

@tf.function
def sum_until_big(items):
  # `break` in a loop over a dataset or an iterator of one: a flag in the While.
  s = tf.constant(0)
  for x in items:
    if x > 2:
      break
    s += x
  return s

ds = tf.data.Dataset.from_tensor_slices([1, 2, 3, 4])
print(sum_until_big(ds), sum_until_big(iter(ds)))

@tf.function
def fails(x):
  if x > 0:
    y = x + undefined_name  # the failing line
  else:
    y = x
  return y

try:
  fails(tf.constant(1))
except NameError as e:
  last = traceback.extract_tb(e.__traceback__)[-1]
  here = open(__file__).read().splitlines()
  expected = next(i + 1 for i, l in enumerate(here) if l.endswith("# the failing line"))
  print(type(e).__name__ + ":", e)
  print(os.path.basename(last.filename), last.lineno == expected, last.line)

@tf.function
def bad_shapes(x):
  while x < 10:
    x = tf.constant([1.0, 2.0]) + x  # the second failing line
  return x

try:
  bad_shapes(tf.constant(1))
except Exception as e:
  frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
  print(type(e).__name__, frames[-1].line)
# expect-output:
# tf.Tensor([ 2. -6.], shape=(2,), dtype=float32) tf.Tensor([2.], shape=(1,), dtype=float32)
# (None,)
# tf.Tensor([ 2  8  3 10], shape=(4,), dtype=int32) tf.Tensor([0 0], shape=(2,), dtype=int32)
# (None,)
# tf.Tensor(2, shape=(), dtype=int32)
# tf.Tensor(30, shape=(), dtype=int32) tf.Tensor(30, shape=(), dtype=int32)
# tracing
# tracing
# tracing
# <tf.Tensor: shape=(), dtype=int32, numpy=1>
# tf.Tensor(1103, shape=(), dtype=int32)
# tf.Tensor(3, shape=(), dtype=int32) tf.Tensor(3, shape=(), dtype=int32)
# NameError: name 'undefined_name' is not defined
# 031-autograph-returns.py True y = x + undefined_name  # the failing line
# TypeError x = tf.constant([1.0, 2.0]) + x  # the second failing line
