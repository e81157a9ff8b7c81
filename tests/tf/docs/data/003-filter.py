# Dataset.filter, from its docstring.
# https://www.tensorflow.org/api_docs/python/tf/data/Dataset#filter
# The error for a predicate that is not a scalar bool is filter_op.py's (TensorFlow 2.15):
# "Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but its return type
# is {spec}."
import tensorflow as tf

dataset = tf.data.Dataset.from_tensor_slices([1, 2, 3])
dataset = dataset.filter(lambda x: x < 3)
print(list(dataset.as_numpy_iterator()))
# `tf.math.equal(x, y)` is required for equality comparison
def filter_fn(x):
  return tf.math.equal(x, 1)

dataset = dataset.filter(filter_fn)
print(list(dataset.as_numpy_iterator()))
print(dataset)

try:
  tf.data.Dataset.range(3).filter(lambda x: x + 1)
except ValueError as e:
  print("ValueError:", e)

# expect-output:
# [1, 2]
# [1]
# <_FilterDataset element_spec=TensorSpec(shape=(), dtype=tf.int32, name=None)>
# ValueError: Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but its return type is TensorSpec(shape=(), dtype=tf.int64, name=None).
