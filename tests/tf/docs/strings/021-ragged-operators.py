# https://www.tensorflow.org/guide/ragged_tensor, "Overview": Python operators on ragged
# tensors (a scalar, and a ragged tensor of the same row partitions), tf.ragged.map_flat_values,
# to_list and numpy (outputs from the page).
import tensorflow as tf

digits = tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
print(digits + 3)
print(digits + tf.ragged.constant([[1, 2, 3, 4], [], [5, 6, 7], [8], []]))

times_two_plus_one = lambda x: x * 2 + 1
print(tf.ragged.map_flat_values(times_two_plus_one, digits))

print(digits.to_list())
print(digits.numpy())

# expect-output:
# <tf.RaggedTensor [[6, 4, 7, 4], [], [8, 12, 5], [9], []]>
# <tf.RaggedTensor [[4, 3, 7, 5], [], [10, 15, 9], [14], []]>
# <tf.RaggedTensor [[7, 3, 9, 3], [], [11, 19, 5], [13], []]>
# [[3, 1, 4, 1], [], [5, 9, 2], [6], []]
# [array([3, 1, 4, 1], dtype=int32) array([], dtype=int32)
#  array([5, 9, 2], dtype=int32) array([6], dtype=int32)
#  array([], dtype=int32)]
