# https://www.tensorflow.org/guide/ragged_tensor, "Constructing a ragged tensor":
# tf.ragged.constant of nested lists (printed across lines as NumPy wraps them), and the
# factory classmethods from_value_rowids, from_row_lengths and from_row_splits (outputs from
# the page, checked against its
# executed version of 2024-08-27).
import tensorflow as tf

sentences = tf.ragged.constant([
    ["Let's", "build", "some", "ragged", "tensors", "!"],
    ["We", "can", "use", "tf.ragged.constant", "."]])
print(sentences)

paragraphs = tf.ragged.constant([
    [['I', 'have', 'a', 'cat'], ['His', 'name', 'is', 'Mat']],
    [['Do', 'you', 'want', 'to', 'come', 'visit'], ["I'm", 'free', 'tomorrow']],
])
print(paragraphs)

print(tf.RaggedTensor.from_value_rowids(
    values=[3, 1, 4, 1, 5, 9, 2],
    value_rowids=[0, 0, 0, 0, 2, 2, 3]))

print(tf.RaggedTensor.from_row_lengths(
    values=[3, 1, 4, 1, 5, 9, 2],
    row_lengths=[4, 0, 2, 1]))

print(tf.RaggedTensor.from_row_splits(
    values=[3, 1, 4, 1, 5, 9, 2],
    row_splits=[0, 4, 4, 6, 7]))

# expect-output:
# <tf.RaggedTensor [[b"Let's", b'build', b'some', b'ragged', b'tensors', b'!'],
#  [b'We', b'can', b'use', b'tf.ragged.constant', b'.']]>
# <tf.RaggedTensor [[[b'I', b'have', b'a', b'cat'], [b'His', b'name', b'is', b'Mat']],
#  [[b'Do', b'you', b'want', b'to', b'come', b'visit'],
#   [b"I'm", b'free', b'tomorrow']]]>
# <tf.RaggedTensor [[3, 1, 4, 1], [], [5, 9], [2]]>
# <tf.RaggedTensor [[3, 1, 4, 1], [], [5, 9], [2]]>
# <tf.RaggedTensor [[3, 1, 4, 1], [], [5, 9], [2]]>
