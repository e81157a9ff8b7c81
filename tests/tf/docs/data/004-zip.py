# Dataset.zip, from its docstring (TensorFlow 2.15: datasets as positional arguments or one
# nested structure).
# https://www.tensorflow.org/api_docs/python/tf/data/Dataset#zip
import tensorflow as tf

# The datasets to be zipped may have arbitrary nested structure.
a = tf.data.Dataset.range(1, 4)  # ==> [ 1, 2, 3 ]
b = tf.data.Dataset.range(4, 7)  # ==> [ 4, 5, 6 ]
ds = tf.data.Dataset.zip(a, b)
print(list(ds.as_numpy_iterator()))
ds = tf.data.Dataset.zip(b, a)
print(list(ds.as_numpy_iterator()))

# The `datasets` argument may contain an arbitrary number of datasets.
c = tf.data.Dataset.range(7, 13).batch(2)  # ==> [ [7, 8],
                                           #       [9, 10],
                                           #       [11, 12] ]
ds = tf.data.Dataset.zip(a, b, c)
for element in ds.as_numpy_iterator():
  print(element)

# The number of elements in the resulting dataset is the same as
# the size of the smallest dataset in `datasets`.
d = tf.data.Dataset.range(13, 15)  # ==> [ 13, 14 ]
ds = tf.data.Dataset.zip(a, d)
print(list(ds.as_numpy_iterator()))

# A nested structure, given as `datasets`.
ds = tf.data.Dataset.zip(datasets=(a, {"x": b, "y": d}))
print(ds)
print(list(ds.as_numpy_iterator()))
print(ds.cardinality().numpy())

# expect-output:
# [(1, 4), (2, 5), (3, 6)]
# [(4, 1), (5, 2), (6, 3)]
# (1, 4, array([7, 8]))
# (2, 5, array([ 9, 10]))
# (3, 6, array([11, 12]))
# [(1, 13), (2, 14)]
# <_ZipDataset element_spec=(TensorSpec(shape=(), dtype=tf.int64, name=None), {'x': TensorSpec(shape=(), dtype=tf.int64, name=None), 'y': TensorSpec(shape=(), dtype=tf.int64, name=None)})>
# [(1, {'x': 4, 'y': 13}), (2, {'x': 5, 'y': 14})]
# 2
