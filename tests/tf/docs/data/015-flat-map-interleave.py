# Dataset.flat_map and Dataset.interleave, from their docstrings.
# https://www.tensorflow.org/api_docs/python/tf/data/Dataset#flat_map
# https://www.tensorflow.org/api_docs/python/tf/data/Dataset#interleave
# The error for a function that returns no dataset is flat_map_op.py's; its "Got <type>" part
# names TensorFlow's own tensor class and is not compared.
import tensorflow as tf

dataset = tf.data.Dataset.from_tensor_slices(
    [[1, 2, 3], [4, 5, 6], [7, 8, 9]])
dataset = dataset.flat_map(tf.data.Dataset.from_tensor_slices)
print(list(dataset.as_numpy_iterator()))
print(dataset)

dataset = tf.data.Dataset.range(1, 6)  # ==> [ 1, 2, 3, 4, 5 ]
# NOTE: New lines indicate "block" boundaries.
dataset = dataset.interleave(
    lambda x: tf.data.Dataset.from_tensors(x).repeat(6),
    cycle_length=2, block_length=4)
print(list(dataset.as_numpy_iterator()))
print(dataset)

# The function is traced once: its Python print runs once.
def counts(x):
  print("tracing with", x)
  return tf.data.Dataset.range(x)
print(list(tf.data.Dataset.range(4).flat_map(counts).as_numpy_iterator()))
print(list(tf.data.Dataset.range(1, 4).interleave(counts, cycle_length=3).as_numpy_iterator()))

try:
  tf.data.Dataset.range(3).flat_map(lambda x: x)
except TypeError as e:
  print("TypeError:", str(e).split(" Got ")[0])

# expect-output:
# [1, 2, 3, 4, 5, 6, 7, 8, 9]
# <_FlatMapDataset element_spec=TensorSpec(shape=(), dtype=tf.int32, name=None)>
# [1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 3, 3, 4, 4, 5, 5, 5, 5, 5, 5]
# <_InterleaveDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>
# tracing with Tensor("args_0:0", shape=(), dtype=int64)
# [0, 0, 1, 0, 1, 2]
# tracing with Tensor("args_0:0", shape=(), dtype=int64)
# [0, 0, 0, 1, 1, 2]
# TypeError: The `map_func` argument must return a `Dataset` object.
