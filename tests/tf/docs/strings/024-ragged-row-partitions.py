# https://www.tensorflow.org/guide/ragged_tensor: "Row-partitioning methods" (values,
# row_splits, row_lengths, row_starts, row_limits, value_rowids; outputs from the guide's
# version at tensorflow.org/guide/ragged_tensors, the section the current page folded into
# "RaggedTensor encoding") and "Static shape" (TensorShape([3, 2]), TensorShape([4, None]) from
# the version of 2024-08-27); nrows from the RaggedTensor.nrows docstring (ragged_tensor.py:
# "tf.Tensor(5, shape=(), dtype=int64)", the row_splits dtype), flat_values of a ragged rank 1
# tensor is its values (int32 as tf.ragged.constant infers them).
import tensorflow as tf

rt = tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
print("      values: {}".format(rt.values))
print("  row_splits: {}".format(rt.row_splits))
print(" row_lengths: {}".format(rt.row_lengths()))
print("  row_starts: {}".format(rt.row_starts()))
print("  row_limits: {}".format(rt.row_limits()))
print("value_rowids: {}".format(rt.value_rowids()))

x = tf.constant([[1, 2], [3, 4], [5, 6]])
print(repr(x.shape))  # shape of a tf.tensor
rt = tf.ragged.constant([[1], [2, 3], [], [4]])
print(repr(rt.shape))  # shape of a tf.RaggedTensor
print(rt.nrows(), rt.flat_values)

# expect-output:
#       values: [3 1 4 1 5 9 2 6]
#   row_splits: [0 4 4 7 8 8]
#  row_lengths: [4 0 3 1 0]
#   row_starts: [0 4 4 7 8]
#   row_limits: [4 4 7 8 8]
# value_rowids: [0 0 0 0 2 2 2 3]
# TensorShape([3, 2])
# TensorShape([4, None])
# tf.Tensor(4, shape=(), dtype=int64) tf.Tensor([1 2 3 4], shape=(4,), dtype=int32)
