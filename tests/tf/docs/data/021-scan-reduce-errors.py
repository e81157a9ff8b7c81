# https://www.tensorflow.org/api_docs/python/tf/data/Dataset#scan and #reduce: a function whose
# new state does not keep the initial state's dtypes, and a scan function that does not return
# a pair. The texts are scan_op.py's ("Invalid `scan_func`. ...", the dtypes str()-formatted:
# a lone dtype prints as <dtype: 'int32'>, a tuple of them as (tf.int64, tf.float32)) and
# dataset_ops.py's reduce ("... Expected <dtype: 'int32'> but got <dtype: 'int64'>.").
import tensorflow as tf

ds = tf.data.Dataset.range(10)

def int64_state(state, _):
  return tf.constant(1, dtype=tf.int64), state

def not_a_pair(state, x):
  return state + x

def pair_of_int64(state, x):
  return (state[0], state[0]), x

def element_as_state(state, x):
  return x

for initial, fn in [(tf.constant(1, dtype=tf.int32), int64_state),
                    (tf.constant(1, dtype=tf.int64), not_a_pair),
                    ((tf.constant(1, tf.int64), tf.constant(1.0)), pair_of_int64)]:
  try:
    ds.scan(initial, fn)
  except TypeError as e:
    print("TypeError:", e)

try:
  ds.reduce(tf.constant(0, dtype=tf.int32), element_as_state)
except TypeError as e:
  print("TypeError:", e)
print(ds.reduce(tf.constant(0, dtype=tf.int64), element_as_state).numpy())

# expect-output:
# TypeError: Invalid `scan_func`. The element types for the new state must match the initial state. Expected <dtype: 'int32'>, got <dtype: 'int64'>.
# TypeError: Invalid `scan_func`. `scan_func` should return a pair consisting of new state and the output value but its return type is TensorSpec(shape=(), dtype=tf.int64, name=None).
# TypeError: Invalid `scan_func`. The element types for the new state must match the initial state. Expected (tf.int64, tf.float32), got (tf.int64, tf.int64).
# TypeError: The element types for the new state must match the initial state. Expected <dtype: 'int32'> but got <dtype: 'int64'>.
# 9
