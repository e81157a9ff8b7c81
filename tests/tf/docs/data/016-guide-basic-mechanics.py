# The tf.data guide, "Basic mechanics" and "Dataset structure".
# https://www.tensorflow.org/guide/data#basic_mechanics
# https://www.tensorflow.org/guide/data#dataset_structure
# Outputs as the guide's page shows them (the random values of dataset1/dataset2 are not
# printed, only their specs and shapes).
import tensorflow as tf

dataset = tf.data.Dataset.from_tensor_slices([8, 3, 0, 8, 2, 1])
print(dataset)
for elem in dataset:
  print(elem.numpy())
it = iter(dataset)
print(next(it).numpy())
print(dataset.reduce(0, lambda state, value: state + value).numpy())

dataset1 = tf.data.Dataset.from_tensor_slices(tf.random.uniform([4, 10]))
print(dataset1.element_spec)
dataset2 = tf.data.Dataset.from_tensor_slices(
   (tf.random.uniform([4]),
    tf.random.uniform([4, 100], maxval=100, dtype=tf.int32)))
print(dataset2.element_spec)
dataset3 = tf.data.Dataset.zip((dataset1, dataset2))
print(dataset3.element_spec)
for a, (b,c) in dataset3:
  print('shapes: {a.shape}, {b.shape}, {c.shape}'.format(a=a, b=b, c=c))

# expect-output:
# <_TensorSliceDataset element_spec=TensorSpec(shape=(), dtype=tf.int32, name=None)>
# 8
# 3
# 0
# 8
# 2
# 1
# 8
# 22
# TensorSpec(shape=(10,), dtype=tf.float32, name=None)
# (TensorSpec(shape=(), dtype=tf.float32, name=None), TensorSpec(shape=(100,), dtype=tf.int32, name=None))
# (TensorSpec(shape=(10,), dtype=tf.float32, name=None), (TensorSpec(shape=(), dtype=tf.float32, name=None), TensorSpec(shape=(100,), dtype=tf.int32, name=None)))
# shapes: (10,), (), (100,)
# shapes: (10,), (), (100,)
# shapes: (10,), (), (100,)
# shapes: (10,), (), (100,)
