# Dataset.concatenate, from its docstring; the error for incompatible elements is the text of
# TensorFlow 2.15's concatenate_op.py ("Incompatible dataset elements:\n  {a} vs.   {b}").
# https://www.tensorflow.org/api_docs/python/tf/data/Dataset#concatenate
import tensorflow as tf

a = tf.data.Dataset.range(1, 4)  # ==> [ 1, 2, 3 ]
b = tf.data.Dataset.range(4, 8)  # ==> [ 4, 5, 6, 7 ]
ds = a.concatenate(b)
print(list(ds.as_numpy_iterator()))
print(ds, ds.cardinality().numpy())

# The input dataset and dataset to be concatenated should have
# compatible element specs.
c = tf.data.Dataset.zip((a, b))
try:
  a.concatenate(c)
except TypeError as e:
  print("TypeError:", e)
d = tf.data.Dataset.from_tensor_slices(["a", "b", "c"])
try:
  a.concatenate(d)
except TypeError as e:
  print("TypeError:", e)

# Shapes that differ become the most specific shape both fit.
e = tf.data.Dataset.from_tensors([1, 2]).concatenate(tf.data.Dataset.from_tensors([3, 4, 5]))
print(e.element_spec)
print(list(e.as_numpy_iterator()))

# expect-output:
# [1, 2, 3, 4, 5, 6, 7]
# <_ConcatenateDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)> 7
# TypeError: Incompatible dataset elements:
#   TensorSpec(shape=(), dtype=tf.int64, name=None) vs.   (TensorSpec(shape=(), dtype=tf.int64, name=None), TensorSpec(shape=(), dtype=tf.int64, name=None))
# TypeError: Incompatible dataset elements:
#   TensorSpec(shape=(), dtype=tf.int64, name=None) vs.   TensorSpec(shape=(), dtype=tf.string, name=None)
# TensorSpec(shape=(None,), dtype=tf.int32, name=None)
# [array([1, 2], dtype=int32), array([3, 4, 5], dtype=int32)]
