# https://www.tensorflow.org/guide/sparse_tensor: "Creating a tf.sparse.SparseTensor" (print of a
# SparseTensor shows its three component tensors) and "Manipulating sparse tensors"
# (tf.sparse.sparse_dense_matmul, tf.sparse.concat along axis 1, tf.sparse.slice, including a
# slice that starts past the end); outputs from the page (version of 2024-10-25).
import tensorflow as tf
st1 = tf.sparse.SparseTensor(indices=[[0, 3], [2, 4]],
                      values=[10, 20],
                      dense_shape=[3, 10])
print(st1)
st_c = tf.sparse.SparseTensor(indices=([0, 1], [1, 0], [1, 1]),
                       values=[13, 15, 17],
                       dense_shape=(2,2))

mb = tf.constant([[4], [6]])
product = tf.sparse.sparse_dense_matmul(st_c, mb)

print(product)
sparse_pattern_A = tf.sparse.SparseTensor(indices = [[2,4], [3,3], [3,4], [4,3], [4,4], [5,4]],
                         values = [1,1,1,1,1,1],
                         dense_shape = [8,5])
sparse_pattern_B = tf.sparse.SparseTensor(indices = [[0,2], [1,1], [1,3], [2,0], [2,4], [2,5], [3,5], 
                                              [4,5], [5,0], [5,4], [5,5], [6,1], [6,3], [7,2]],
                         values = [1,1,1,1,1,1,1,1,1,1,1,1,1,1],
                         dense_shape = [8,6])
sparse_pattern_C = tf.sparse.SparseTensor(indices = [[3,0], [4,0]],
                         values = [1,1],
                         dense_shape = [8,6])

sparse_patterns_list = [sparse_pattern_A, sparse_pattern_B, sparse_pattern_C]
sparse_pattern = tf.sparse.concat(axis=1, sp_inputs=sparse_patterns_list)
print(tf.sparse.to_dense(sparse_pattern))
sparse_slice_A = tf.sparse.slice(sparse_pattern_A, start = [0,0], size = [8,5])
sparse_slice_B = tf.sparse.slice(sparse_pattern_B, start = [0,5], size = [8,6])
sparse_slice_C = tf.sparse.slice(sparse_pattern_C, start = [0,10], size = [8,6])
print(tf.sparse.to_dense(sparse_slice_A))
print(tf.sparse.to_dense(sparse_slice_B))
print(tf.sparse.to_dense(sparse_slice_C))

# expect-output:
# SparseTensor(indices=tf.Tensor(
# [[0 3]
#  [2 4]], shape=(2, 2), dtype=int64), values=tf.Tensor([10 20], shape=(2,), dtype=int32), dense_shape=tf.Tensor([ 3 10], shape=(2,), dtype=int64))
# tf.Tensor(
# [[ 78]
#  [162]], shape=(2, 1), dtype=int32)
# tf.Tensor(
# [[0 0 0 0 0 0 0 1 0 0 0 0 0 0 0 0 0]
#  [0 0 0 0 0 0 1 0 1 0 0 0 0 0 0 0 0]
#  [0 0 0 0 1 1 0 0 0 1 1 0 0 0 0 0 0]
#  [0 0 0 1 1 0 0 0 0 0 1 1 0 0 0 0 0]
#  [0 0 0 1 1 0 0 0 0 0 1 1 0 0 0 0 0]
#  [0 0 0 0 1 1 0 0 0 1 1 0 0 0 0 0 0]
#  [0 0 0 0 0 0 1 0 1 0 0 0 0 0 0 0 0]
#  [0 0 0 0 0 0 0 1 0 0 0 0 0 0 0 0 0]], shape=(8, 17), dtype=int32)
# tf.Tensor(
# [[0 0 0 0 0]
#  [0 0 0 0 0]
#  [0 0 0 0 1]
#  [0 0 0 1 1]
#  [0 0 0 1 1]
#  [0 0 0 0 1]
#  [0 0 0 0 0]
#  [0 0 0 0 0]], shape=(8, 5), dtype=int32)
# tf.Tensor(
# [[0]
#  [0]
#  [1]
#  [1]
#  [1]
#  [1]
#  [0]
#  [0]], shape=(8, 1), dtype=int32)
# tf.Tensor([], shape=(8, 0), dtype=int32)
