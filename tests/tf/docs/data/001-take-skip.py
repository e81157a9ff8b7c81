# Dataset.take and Dataset.skip, from their docstrings.
# https://www.tensorflow.org/api_docs/python/tf/data/Dataset#take
# https://www.tensorflow.org/api_docs/python/tf/data/Dataset#skip
# The reprs and cardinalities follow TensorFlow 2.15's take_op.py / skip_op.py (_TakeDataset,
# _SkipDataset keep their input's element_spec) and the TakeDataset/SkipDataset kernels'
# Cardinality(); the count is converted with convert_to_tensor(count, dtype=tf.int64).
import tensorflow as tf

dataset = tf.data.Dataset.range(10)
dataset = dataset.take(3)
print(list(dataset.as_numpy_iterator()))
print(dataset)

dataset = tf.data.Dataset.range(10)
dataset = dataset.skip(7)
print(list(dataset.as_numpy_iterator()))
print(dataset)

# -1 takes (or skips) everything; counts past the end are fine.
r = tf.data.Dataset.range(4)
print(list(r.take(-1).as_numpy_iterator()), list(r.skip(-1).as_numpy_iterator()))
print(list(r.take(10).as_numpy_iterator()), list(r.skip(10).as_numpy_iterator()))
print(r.take(2).cardinality().numpy(), r.skip(3).cardinality().numpy(),
      r.take(-1).cardinality().numpy(), r.skip(10).cardinality().numpy())
print(r.take(tf.constant(2, tf.int64)).cardinality().numpy())

# expect-output:
# [0, 1, 2]
# <_TakeDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>
# [7, 8, 9]
# <_SkipDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>
# [0, 1, 2, 3] []
# [0, 1, 2, 3] []
# 2 1 4 0
# 2
