# tf.where with only a condition: the coordinates of the true elements, [count, rank] int64; the
# count known only when the graph runs inside tf.function.
# Source: https://www.tensorflow.org/api_docs/python/tf/where (its examples: a 1-D, 2-D and 3-D
# condition; the two-argument error "x and y must both be non-None or both be None." from
# array_ops.where_v2).
import tensorflow as tf

print(repr(tf.where([True, False, False, True]).numpy()))
print(repr(tf.where([[True, False], [False, True]]).numpy()))
print(repr(tf.where([[[True, False], [False, True], [True, True]]]).numpy()))
print(tf.where([True, False, False, True], [1, 2, 3, 4], [100, 200, 300, 400]))


@tf.function(input_signature=[tf.TensorSpec([None], tf.bool)])
def true_indices(c):
  r = tf.where(c)
  print("traced:", r.shape)
  return r


print(true_indices(tf.constant([False, True, True])).numpy().tolist())
print(true_indices(tf.constant([True, False, False, False])).numpy().tolist())
try:
  tf.where([True], [1])
except ValueError as e:
  print("ValueError:", e)
# expect-output:
# array([[0],
#        [3]])
# array([[0, 0],
#        [1, 1]])
# array([[0, 0, 0],
#        [0, 1, 1],
#        [0, 2, 0],
#        [0, 2, 1]])
# tf.Tensor([  1 200 300   4], shape=(4,), dtype=int32)
# traced: (None, 1)
# [[1], [2]]
# [[0]]
# ValueError: x and y must both be non-None or both be None.
