# Dataset.shuffle, from its docstring. The docstring's orders are random ("[1, 0, 2]" for one
# run); what is printed here does not depend on the draw: the sorted elements, that a seeded
# shuffle without reshuffle_each_iteration repeats its order, and that every epoch holds every
# element once.
# https://www.tensorflow.org/api_docs/python/tf/data/Dataset#shuffle
import tensorflow as tf

dataset = tf.data.Dataset.range(3)
dataset = dataset.shuffle(3, reshuffle_each_iteration=True)
dataset = dataset.repeat(2)
epochs = list(dataset.as_numpy_iterator())
print(sorted(epochs[:3]), sorted(epochs[3:]))
print(dataset)

dataset = tf.data.Dataset.range(3)
dataset = dataset.shuffle(3, reshuffle_each_iteration=False)
dataset = dataset.repeat(2)
order = list(dataset.as_numpy_iterator())
# [1, 0, 2, 1, 0, 2] in the docstring: the same order both times.
print(order[:3] == order[3:], sorted(order[:3]))

# A fixed seed and no reshuffling: every pass over the dataset has the same order.
ds = tf.data.Dataset.range(100).shuffle(10, seed=42, reshuffle_each_iteration=False)
first, second = list(ds.as_numpy_iterator()), list(ds.as_numpy_iterator())
print(first == second, sorted(first) == list(range(100)), len(ds))

try:
  tf.data.Dataset.range(3).shuffle(0)
except tf.errors.InvalidArgumentError as e:
  print("InvalidArgumentError:", e)

# expect-output:
# [0, 1, 2] [0, 1, 2]
# <_RepeatDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>
# True [0, 1, 2]
# True True 100
# InvalidArgumentError: buffer_size must be greater than zero. [Op:ShuffleDatasetV3]
