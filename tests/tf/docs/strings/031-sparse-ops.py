# https://www.tensorflow.org/api_docs/python/tf/sparse/add, tf/sparse/reorder,
# tf/sparse/to_dense and tf/sparse/SparseTensor: a sparse tensor added to a dense one (a dense
# result), indices put in row-major order, to_dense's default_value, the dense shape, and
# indices and values of different lengths (sparse_tensor.py's shape check, TensorShape's
# "Dimensions 2 and 1 are not compatible"). Printing as the Sparse tensors section of
# https://www.tensorflow.org/guide/tensor shows it.
import tensorflow as tf

sp = tf.sparse.SparseTensor(indices=[[1, 1], [0, 2]], values=[5.0, 7.0], dense_shape=[2, 3])
ordered = tf.sparse.reorder(sp)
print(ordered.indices.numpy().tolist(), ordered.values.numpy().tolist())
print(tf.sparse.add(ordered, tf.ones([2, 3])))
print(tf.sparse.to_dense(ordered, default_value=-1.0))
print(ordered.shape, ordered.dtype)

try:
    tf.sparse.SparseTensor(indices=[[0, 0], [1, 1]], values=[1], dense_shape=[2, 2])
except ValueError as e:
    print(type(e).__name__ + ":", e)

# expect-output:
# [[0, 2], [1, 1]] [7.0, 5.0]
# tf.Tensor(
# [[1. 1. 8.]
#  [1. 6. 1.]], shape=(2, 3), dtype=float32)
# tf.Tensor(
# [[-1. -1.  7.]
#  [-1.  5. -1.]], shape=(2, 3), dtype=float32)
# (2, 3) <dtype: 'float32'>
# ValueError: Dimensions 2 and 1 are not compatible
