# https://www.tensorflow.org/api_docs/python/tf/strings/split and tf/strings/bytes_split, the
# docstrings' examples (outputs from the pages; a scalar gives a tensor, a vector a
# RaggedTensor), the separator rule the docstring states ("1<>2<><>3" split at "<>" gives
# ["1", "2", "", "3"]), maxsplit as Python's str.split, a matrix of strings (a RaggedTensor of
# ragged_rank 2, whose rows of one length NumPy prints as a matrix, as in the ragged tensor
# guide's from_uniform_row_length example), and the split's row lengths and words inside a tf.function.
import tensorflow as tf

print(repr(tf.strings.split('hello world').numpy()))
print(tf.strings.split(['hello world', 'a b c']))
print(tf.strings.split("1<>2<><>3", sep="<>").numpy().tolist())
print(tf.strings.split("  leading and trailing  ").numpy().tolist())
print(tf.strings.split(["a b c d"], maxsplit=2))
print(tf.strings.split([["a b", "c"], ["d e f", ""]]))

print(repr(tf.strings.bytes_split('hello').numpy()))
print(tf.strings.bytes_split(['hello', '123']))

@tf.function
def words(lines):
    parts = tf.strings.split(lines)
    return parts.row_lengths(), parts.values

print(words(tf.constant(["hello world", "a b c", ""])))

# expect-output:
# array([b'hello', b'world'], dtype=object)
# <tf.RaggedTensor [[b'hello', b'world'], [b'a', b'b', b'c']]>
# [b'1', b'2', b'', b'3']
# [b'leading', b'and', b'trailing']
# <tf.RaggedTensor [[b'a', b'b', b'c d']]>
# <tf.RaggedTensor [[[b'a', b'b'], [b'c']],
#  [[b'd', b'e', b'f'], []]]>
# array([b'h', b'e', b'l', b'l', b'o'], dtype=object)
# <tf.RaggedTensor [[b'h', b'e', b'l', b'l', b'o'], [b'1', b'2', b'3']]>
# (<tf.Tensor: shape=(3,), dtype=int64, numpy=array([2, 3, 0])>, <tf.Tensor: shape=(5,), dtype=string, numpy=array([b'hello', b'world', b'a', b'b', b'c'], dtype=object)>)
