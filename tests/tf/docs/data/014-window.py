# Dataset.window, from its docstring: each window is a dataset per component.
# https://www.tensorflow.org/api_docs/python/tf/data/Dataset#window
# The window's repr and element_spec follow TensorFlow 2.15's window_op.py (_WindowDataset, a
# DatasetSpec per component) and the elements' class, _VariantDataset. The docstring's
# tf.nest.map_structure(to_numpy, windows) is written as a dict comprehension (tf.nest is not
# part of Trellis's tensorflow module yet).
import tensorflow as tf

dataset = tf.data.Dataset.range(7).window(3)
for window in dataset:
  print(window)

for window in dataset:
  print(list(window.as_numpy_iterator()))

dataset = tf.data.Dataset.range(7).window(3, shift=1, drop_remainder=True)
for window in dataset:
  print(list(window.as_numpy_iterator()))

dataset = tf.data.Dataset.range(7).window(3, shift=2, drop_remainder=True)
for window in dataset:
  print(list(window.as_numpy_iterator()))

dataset = tf.data.Dataset.range(7).window(3, shift=1, stride=2, drop_remainder=True)
for window in dataset:
  print(list(window.as_numpy_iterator()))

# Nested elements: a tuple of datasets per window.
dataset = tf.data.Dataset.from_tensor_slices(([1, 2, 3, 4, 5],
                                              [6, 7, 8, 9, 10]))
dataset = dataset.window(2)
windows = next(iter(dataset))
print(windows)
def to_numpy(ds):
  return list(ds.as_numpy_iterator())
for windows in dataset:
  print(to_numpy(windows[0]), to_numpy(windows[1]))

dataset = tf.data.Dataset.from_tensor_slices({'a': [1, 2, 3],
                                              'b': [4, 5, 6],
                                              'c': [7, 8, 9]})
dataset = dataset.window(2)
def to_numpy(ds):
  return list(ds.as_numpy_iterator())
for windows in dataset:
  print({key: to_numpy(w) for key, w in windows.items()})
print(dataset)
print(tf.data.Dataset.range(7).window(3).cardinality().numpy(),
      tf.data.Dataset.range(7).window(3, 1, drop_remainder=True).cardinality().numpy())

# expect-output:
# <_VariantDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>
# <_VariantDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>
# <_VariantDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>
# [0, 1, 2]
# [3, 4, 5]
# [6]
# [0, 1, 2]
# [1, 2, 3]
# [2, 3, 4]
# [3, 4, 5]
# [4, 5, 6]
# [0, 1, 2]
# [2, 3, 4]
# [4, 5, 6]
# [0, 2, 4]
# [1, 3, 5]
# [2, 4, 6]
# (<_VariantDataset element_spec=TensorSpec(shape=(), dtype=tf.int32, name=None)>, <_VariantDataset element_spec=TensorSpec(shape=(), dtype=tf.int32, name=None)>)
# [1, 2] [6, 7]
# [3, 4] [8, 9]
# [5] [10]
# {'a': [1, 2], 'b': [4, 5], 'c': [7, 8]}
# {'a': [3], 'b': [6], 'c': [9]}
# <_WindowDataset element_spec={'a': DatasetSpec(TensorSpec(shape=(), dtype=tf.int32, name=None), TensorShape([])), 'b': DatasetSpec(TensorSpec(shape=(), dtype=tf.int32, name=None), TensorShape([])), 'c': DatasetSpec(TensorSpec(shape=(), dtype=tf.int32, name=None), TensorShape([]))}>
# 3 5
