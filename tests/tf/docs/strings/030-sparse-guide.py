# https://www.tensorflow.org/guide/sparse_tensor: "Creating a tf.sparse.SparseTensor" (the
# guide's pprint_sparse_tensor helper), tf.sparse.from_dense and to_dense, "Manipulating sparse
# tensors" (tf.sparse.add of two sparse tensors, map_values, and a SparseTensor made from
# modified values), outputs from the page (version of 2024-10-25; st_b as the page has it).
import tensorflow as tf

st1 = tf.sparse.SparseTensor(indices=[[0, 3], [2, 4]],
                      values=[10, 20],
                      dense_shape=[3, 10])

def pprint_sparse_tensor(st):
  s = "<SparseTensor shape=%s \n values={" % (st.dense_shape.numpy().tolist(),)
  for (index, value) in zip(st.indices, st.values):
    s += f"\n  %s: %s" % (index.numpy().tolist(), value.numpy().tolist())
  return s + "}>"

print(pprint_sparse_tensor(st1))

st2 = tf.sparse.from_dense([[1, 0, 0, 8], [0, 0, 0, 0], [0, 0, 3, 0]])
print(pprint_sparse_tensor(st2))

st3 = tf.sparse.to_dense(st2)
print(st3)

st_a = tf.sparse.SparseTensor(indices=[[0, 2], [3, 4]],
                       values=[31, 2],
                       dense_shape=[4, 10])

st_b = tf.sparse.SparseTensor(indices=[[0, 2], [3, 0]],
                       values=[56, 38],
                       dense_shape=[4, 10])

st_sum = tf.sparse.add(st_a, st_b)

print(pprint_sparse_tensor(st_sum))

st2_plus_5 = tf.sparse.map_values(tf.add, st2, 5)
print(tf.sparse.to_dense(st2_plus_5))

st2_plus_5 = tf.sparse.SparseTensor(
    st2.indices,
    st2.values + 5,
    st2.dense_shape)
print(tf.sparse.to_dense(st2_plus_5))

# expect-output:
# <SparseTensor shape=[3, 10] 
#  values={
#   [0, 3]: 10
#   [2, 4]: 20}>
# <SparseTensor shape=[3, 4] 
#  values={
#   [0, 0]: 1
#   [0, 3]: 8
#   [2, 2]: 3}>
# tf.Tensor(
# [[1 0 0 8]
#  [0 0 0 0]
#  [0 0 3 0]], shape=(3, 4), dtype=int32)
# <SparseTensor shape=[4, 10] 
#  values={
#   [0, 2]: 87
#   [3, 0]: 38
#   [3, 4]: 2}>
# tf.Tensor(
# [[ 6  0  0 13]
#  [ 0  0  0  0]
#  [ 0  0  8  0]], shape=(3, 4), dtype=int32)
# tf.Tensor(
# [[ 6  0  0 13]
#  [ 0  0  0  0]
#  [ 0  0  8  0]], shape=(3, 4), dtype=int32)
