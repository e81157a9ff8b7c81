# https://www.tensorflow.org/guide/tensor, "Sparse tensors": a tf.sparse.SparseTensor printed
# (SparseTensor.__repr__ in sparse_tensor.py: its three tensors' str) and made dense with
# tf.sparse.to_dense. The notebook stores no outputs: they follow from that source.
import tensorflow as tf

# Sparse tensors store values by index in a memory-efficient manner
sparse_tensor = tf.sparse.SparseTensor(indices=[[0, 0], [1, 2]],
                                       values=[1, 2],
                                       dense_shape=[3, 4])
print(sparse_tensor, "\n")

# You can convert sparse tensors to dense
print(tf.sparse.to_dense(sparse_tensor))

print(tf.SparseTensor is tf.sparse.SparseTensor, sparse_tensor.shape, sparse_tensor.dtype)

# expect-output:
# SparseTensor(indices=tf.Tensor(
# [[0 0]
#  [1 2]], shape=(2, 2), dtype=int64), values=tf.Tensor([1 2], shape=(2,), dtype=int32), dense_shape=tf.Tensor([3 4], shape=(2,), dtype=int64)) 
#
# tf.Tensor(
# [[1 0 0 0]
#  [0 0 2 0]
#  [0 0 0 0]], shape=(3, 4), dtype=int32)
# True (3, 4) <dtype: 'int32'>
