# https://www.tensorflow.org/guide/ragged_tensor, "Conversion": RaggedTensor to and from
# tf.Tensor (to_tensor with a default value and shape; from_tensor with padding) and
# tf.SparseTensor (to_sparse; from_sparse), outputs from the page (section "Tensor type
# conversion" of the version of 2024-08-27, checked line by line).
import tensorflow as tf

ragged_sentences = tf.ragged.constant([
    ['Hi'], ['Welcome', 'to', 'the', 'fair'], ['Have', 'fun']])

# RaggedTensor -> Tensor
print(ragged_sentences.to_tensor(default_value='', shape=[None, 10]))

# Tensor -> RaggedTensor
x = [[1, 3, -1, -1], [2, -1, -1, -1], [4, 5, 8, 9]]
print(tf.RaggedTensor.from_tensor(x, padding=-1))

#RaggedTensor -> SparseTensor
print(ragged_sentences.to_sparse())

# SparseTensor -> RaggedTensor
st = tf.SparseTensor(indices=[[0, 0], [2, 0], [2, 1]],
                     values=['a', 'b', 'c'],
                     dense_shape=[3, 3])
print(tf.RaggedTensor.from_sparse(st))

# expect-output:
# tf.Tensor(
# [[b'Hi' b'' b'' b'' b'' b'' b'' b'' b'' b'']
#  [b'Welcome' b'to' b'the' b'fair' b'' b'' b'' b'' b'' b'']
#  [b'Have' b'fun' b'' b'' b'' b'' b'' b'' b'' b'']], shape=(3, 10), dtype=string)
# <tf.RaggedTensor [[1, 3], [2], [4, 5, 8, 9]]>
# SparseTensor(indices=tf.Tensor(
# [[0 0]
#  [1 0]
#  [1 1]
#  [1 2]
#  [1 3]
#  [2 0]
#  [2 1]], shape=(7, 2), dtype=int64), values=tf.Tensor([b'Hi' b'Welcome' b'to' b'the' b'fair' b'Have' b'fun'], shape=(7,), dtype=string), dense_shape=tf.Tensor([3 4], shape=(2,), dtype=int64))
# <tf.RaggedTensor [[b'a'], [], [b'b', b'c']]>
