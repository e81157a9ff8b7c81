# The tf.data guide, "Batching dataset elements": simple batching, batch(drop_remainder=True)
# shapes in element_spec, and padded batching.
# https://www.tensorflow.org/guide/data#batching_dataset_elements
# The guide's padded example makes its vectors with tf.fill([tf.cast(x, tf.int32)], x); a fill
# whose size is known only when the map function runs is not supported yet, so the same
# vectors are made with tf.zeros_like(tf.range(x)) + x.
import tensorflow as tf

inc_dataset = tf.data.Dataset.range(100)
dec_dataset = tf.data.Dataset.range(0, -100, -1)
dataset = tf.data.Dataset.zip((inc_dataset, dec_dataset))
batched_dataset = dataset.batch(4)

for batch in batched_dataset.take(4):
  print([arr.numpy() for arr in batch])
print(batched_dataset)
batched_dataset = dataset.batch(7, drop_remainder=True)
print(batched_dataset)

dataset = tf.data.Dataset.range(100)
dataset = dataset.map(lambda x: tf.zeros_like(tf.range(x)) + x)
dataset = dataset.padded_batch(4, padded_shapes=(None,))

for batch in dataset.take(2):
  print(batch.numpy())
  print()

# expect-output:
# [array([0, 1, 2, 3]), array([ 0, -1, -2, -3])]
# [array([4, 5, 6, 7]), array([-4, -5, -6, -7])]
# [array([ 8,  9, 10, 11]), array([ -8,  -9, -10, -11])]
# [array([12, 13, 14, 15]), array([-12, -13, -14, -15])]
# <_BatchDataset element_spec=(TensorSpec(shape=(None,), dtype=tf.int64, name=None), TensorSpec(shape=(None,), dtype=tf.int64, name=None))>
# <_BatchDataset element_spec=(TensorSpec(shape=(7,), dtype=tf.int64, name=None), TensorSpec(shape=(7,), dtype=tf.int64, name=None))>
# [[0 0 0]
#  [1 0 0]
#  [2 2 0]
#  [3 3 3]]
#
# [[4 4 4 4 0 0 0]
#  [5 5 5 5 5 0 0]
#  [6 6 6 6 6 6 0]
#  [7 7 7 7 7 7 7]]
#
