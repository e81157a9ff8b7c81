# https://www.tensorflow.org/guide/ragged_tensor, "Overview: What you can do with a ragged
# tensor": tf.add, tf.reduce_mean, tf.concat, tf.tile and tf.strings.substr on ragged tensors
# (outputs from the page; the guide's tf.map_fn line is left out), and its indexing examples
# (first row, first and last two values of each row).
import tensorflow as tf

digits = tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
words = tf.ragged.constant([["So", "long"], ["thanks", "for", "all", "the", "fish"]])
print(tf.add(digits, 3))
print(tf.reduce_mean(digits, axis=1))
print(tf.concat([digits, [[5, 3]]], axis=0))
print(tf.tile(digits, [1, 2]))
print(tf.strings.substr(words, 0, 2))

print(digits[0])       # First row
print(digits[:, :2])   # First two values in each row.
print(digits[:, -2:])  # Last two values in each row.

# expect-output:
# <tf.RaggedTensor [[6, 4, 7, 4], [], [8, 12, 5], [9], []]>
# tf.Tensor([2.25              nan 5.33333333 6.                nan], shape=(5,), dtype=float64)
# <tf.RaggedTensor [[3, 1, 4, 1], [], [5, 9, 2], [6], [], [5, 3]]>
# <tf.RaggedTensor [[3, 1, 4, 1, 3, 1, 4, 1], [], [5, 9, 2, 5, 9, 2], [6, 6], []]>
# <tf.RaggedTensor [[b'So', b'lo'], [b'th', b'fo', b'al', b'th', b'fi']]>
# tf.Tensor([3 1 4 1], shape=(4,), dtype=int32)
# <tf.RaggedTensor [[3, 1], [], [5, 9], [6], []]>
# <tf.RaggedTensor [[4, 1], [], [9, 2], [6], []]>
