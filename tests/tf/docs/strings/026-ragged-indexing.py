# https://www.tensorflow.org/guide/ragged_tensor, "Indexing": a 2-D ragged tensor of words
# (a row, a word, a slice of rows, the first and last words of each row) and a 3-D one (a row,
# an element of a row, a slice of each row), outputs from the page (version of 2024-08-27, checked line by line).
import tensorflow as tf

queries = tf.ragged.constant([['Who', 'is', 'George', 'Washington'],
                              ['What', 'is', 'the', 'weather', 'tomorrow'],
                              ['Goodnight']])

print(queries[1])                   # A single query
print(queries[1, 2])                # A single word
print(queries[1:])                  # Everything but the first row
print(queries[:, :3])               # The first 3 words of each query
print(queries[:, -2:])              # The last 2 words of each query

rt = tf.ragged.constant([[[1, 2, 3], [4]],
                         [[5], [], [6]],
                         [[7]],
                         [[8, 9], [10]]])

print(rt[1])                        # Second row (2D RaggedTensor)
print(rt[3, 0])                     # First element of fourth row (1D Tensor)
print(rt[:, 1:3])                   # Items 1-3 of each row (3D RaggedTensor)

# expect-output:
# tf.Tensor([b'What' b'is' b'the' b'weather' b'tomorrow'], shape=(5,), dtype=string)
# tf.Tensor(b'the', shape=(), dtype=string)
# <tf.RaggedTensor [[b'What', b'is', b'the', b'weather', b'tomorrow'], [b'Goodnight']]>
# <tf.RaggedTensor [[b'Who', b'is', b'George'], [b'What', b'is', b'the'], [b'Goodnight']]>
# <tf.RaggedTensor [[b'George', b'Washington'], [b'weather', b'tomorrow'], [b'Goodnight']]>
# <tf.RaggedTensor [[5], [], [6]]>
# tf.Tensor([8 9], shape=(2,), dtype=int32)
# <tf.RaggedTensor [[[4]], [[], [6]], [], [[10]]]>
