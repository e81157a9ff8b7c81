# Dataset.unbatch, from its docstring, and its element_spec.
# https://www.tensorflow.org/api_docs/python/tf/data/Dataset#unbatch
import tensorflow as tf

elements = [ [1, 2, 3], [1, 2], [1, 2, 3, 4] ]
dataset = tf.data.Dataset.from_generator(lambda: elements, tf.int64)
dataset = dataset.unbatch()
print(list(dataset.as_numpy_iterator()))
print(dataset)

# unbatch undoes batch.
b = tf.data.Dataset.range(5).batch(2)
print(list(b.unbatch().as_numpy_iterator()), b.unbatch().element_spec)
pairs = tf.data.Dataset.from_tensors(([1, 2], [[3, 4], [5, 6]])).unbatch()
print(pairs.element_spec)
print(list(pairs.as_numpy_iterator()))

# expect-output:
# [1, 2, 3, 1, 2, 1, 2, 3, 4]
# <_UnbatchDataset element_spec=TensorSpec(shape=<unknown>, dtype=tf.int64, name=None)>
# [0, 1, 2, 3, 4] TensorSpec(shape=(), dtype=tf.int64, name=None)
# (TensorSpec(shape=(), dtype=tf.int32, name=None), TensorSpec(shape=(2,), dtype=tf.int32, name=None))
# [(1, array([3, 4], dtype=int32)), (2, array([5, 6], dtype=int32))]
