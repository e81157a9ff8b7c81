# Dataset.padded_batch, from its docstring.
# https://www.tensorflow.org/api_docs/python/tf/data/Dataset#padded_batch
# The docstring makes its elements with tf.fill([x], x); tf.fill with a size known only when the
# map function runs is not supported yet, so this program uses tf.zeros_like(tf.range(x)) + x,
# the same vectors; and the chain is on one line, as AutoGraph here cannot yet find the source of
# a lambda in a multi-line expression.
import tensorflow as tf

A = tf.data.Dataset.range(1, 5, output_type=tf.int32).map(lambda x: tf.zeros_like(tf.range(x)) + x)
# Pad to the smallest per-batch size that fits all elements.
B = A.padded_batch(2)
for element in B.as_numpy_iterator():
  print(element)
# Pad to a fixed size.
C = A.padded_batch(2, padded_shapes=5)
for element in C.as_numpy_iterator():
  print(element)
# Pad with a custom value.
D = A.padded_batch(2, padded_shapes=5, padding_values=-1)
for element in D.as_numpy_iterator():
  print(element)
# Components of nested elements can be padded independently.
elements = [([1, 2, 3], [10]),
            ([4, 5], [11, 12])]
dataset = tf.data.Dataset.from_generator(
    lambda: iter(elements), (tf.int32, tf.int32))
# Pad the first component of the tuple to length 4, and the second
# component to the smallest size that fits.
dataset = dataset.padded_batch(2,
    padded_shapes=([4], [None]),
    padding_values=(-1, 100))
print(list(dataset.as_numpy_iterator()))
# Pad with a single value and multiple components.
E = tf.data.Dataset.zip((A, A)).padded_batch(2, padding_values=-1)
for element in E.as_numpy_iterator():
  print(element)
print(B)
print(C.element_spec)

# expect-output:
# [[1 0]
#  [2 2]]
# [[3 3 3 0]
#  [4 4 4 4]]
# [[1 0 0 0 0]
#  [2 2 0 0 0]]
# [[3 3 3 0 0]
#  [4 4 4 4 0]]
# [[ 1 -1 -1 -1 -1]
#  [ 2  2 -1 -1 -1]]
# [[ 3  3  3 -1 -1]
#  [ 4  4  4  4 -1]]
# [(array([[ 1,  2,  3, -1],
#        [ 4,  5, -1, -1]], dtype=int32), array([[ 10, 100],
#        [ 11,  12]], dtype=int32))]
# (array([[ 1, -1],
#        [ 2,  2]], dtype=int32), array([[ 1, -1],
#        [ 2,  2]], dtype=int32))
# (array([[ 3,  3,  3, -1],
#        [ 4,  4,  4,  4]], dtype=int32), array([[ 3,  3,  3, -1],
#        [ 4,  4,  4,  4]], dtype=int32))
# <_PaddedBatchDataset element_spec=TensorSpec(shape=(None, None), dtype=tf.int32, name=None)>
# TensorSpec(shape=(None, 5), dtype=tf.int32, name=None)
