# Dataset.repeat, from its docstring, and repeat's cardinality.
# https://www.tensorflow.org/api_docs/python/tf/data/Dataset#repeat
# https://www.tensorflow.org/api_docs/python/tf/data/Dataset#cardinality (INFINITE_CARDINALITY)
import tensorflow as tf

dataset = tf.data.Dataset.from_tensor_slices([1, 2, 3])
dataset = dataset.repeat(3)
print(list(dataset.as_numpy_iterator()))
print(dataset)

# From the cardinality docstring.
dataset = tf.data.Dataset.range(42)
print(dataset.cardinality().numpy())
dataset = dataset.repeat()
cardinality = dataset.cardinality()
print((cardinality == tf.data.INFINITE_CARDINALITY).numpy())
dataset = dataset.filter(lambda x: True)
cardinality = dataset.cardinality()
print((cardinality == tf.data.UNKNOWN_CARDINALITY).numpy())

# An endless repeat, cut by take.
print(list(tf.data.Dataset.range(2).repeat().take(5).as_numpy_iterator()))
print(tf.data.INFINITE_CARDINALITY, tf.data.UNKNOWN_CARDINALITY)
try:
  len(tf.data.Dataset.range(2).repeat())
except TypeError as e:
  print("TypeError:", e)

# expect-output:
# [1, 2, 3, 1, 2, 3, 1, 2, 3]
# <_RepeatDataset element_spec=TensorSpec(shape=(), dtype=tf.int32, name=None)>
# 42
# True
# True
# [0, 1, 0, 1, 0]
# -1 -2
# TypeError: The dataset is infinite.
