# Dataset.prefetch (with tf.data.AUTOTUNE) and Dataset.cache, from their docstrings.
# https://www.tensorflow.org/api_docs/python/tf/data/Dataset#prefetch
# https://www.tensorflow.org/api_docs/python/tf/data/Dataset#cache
import tensorflow as tf

dataset = tf.data.Dataset.range(3)
dataset = dataset.prefetch(2)
print(list(dataset.as_numpy_iterator()))
print(dataset)
print(list(tf.data.Dataset.range(3).prefetch(tf.data.AUTOTUNE).as_numpy_iterator()))

dataset = tf.data.Dataset.range(5)
dataset = dataset.map(lambda x: x**2)
dataset = dataset.cache()
# The first time reading through the data will generate the data using
# `range` and `map`.
print(list(dataset.as_numpy_iterator()))
# Subsequent iterations read from the cache.
print(list(dataset.as_numpy_iterator()))
print(dataset)

# The cache is filled by the first complete pass: later passes do not run the input again.
calls = []
def gen():
  calls.append(1)
  yield from [1, 2]
cached = tf.data.Dataset.from_generator(gen, output_types=tf.int32).cache()
print(list(cached.as_numpy_iterator()), list(cached.as_numpy_iterator()), len(calls))

# expect-output:
# [0, 1, 2]
# <_PrefetchDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>
# [0, 1, 2]
# [0, 1, 4, 9, 16]
# [0, 1, 4, 9, 16]
# <_CacheDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>
# [1, 2] [1, 2] 1
