# Dataset.enumerate, from its docstring. TensorFlow 2.15 builds it as
# Dataset.zip((Dataset.range(start, int64 max), self)), hence the _ZipDataset repr.
# https://www.tensorflow.org/api_docs/python/tf/data/Dataset#enumerate
import tensorflow as tf

dataset = tf.data.Dataset.from_tensor_slices([1, 2, 3])
dataset = dataset.enumerate(start=5)
for element in dataset.as_numpy_iterator():
  print(element)

# The (nested) structure of the input dataset determines the
# structure of elements in the resulting dataset.
dataset = tf.data.Dataset.from_tensor_slices([(7, 8), (9, 10)])
dataset = dataset.enumerate()
for element in dataset.as_numpy_iterator():
  print(element)
print(dataset)

# expect-output:
# (5, 1)
# (6, 2)
# (7, 3)
# (0, array([7, 8], dtype=int32))
# (1, array([ 9, 10], dtype=int32))
# <_ZipDataset element_spec=(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorSpec(shape=(2,), dtype=tf.int32, name=None))>
