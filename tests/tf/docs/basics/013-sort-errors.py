# https://www.tensorflow.org/api_docs/python/tf/sort and tf/argsort: the arguments sort_ops.py
# checks. The direction's ValueError is _sort_or_argsort's text; the axis is not range-checked
# there: sorting reads the axis' length as tf.shape(values)[axis], so an axis out of range fails
# as that StridedSlice (strided_slice_op.cc: "slice index 2 of dimension 0 out of bounds.",
# with " [Op:StridedSlice]" as eager errors end). Negative axes in range count from the end.
import tensorflow as tf

mat = [[3, 2, 1],
       [2, 1, 3],
       [1, 3, 2]]
print(tf.sort(mat, axis=-2).numpy().tolist())
print(tf.argsort(mat, axis=-2, direction='DESCENDING').numpy().tolist())
for axis in (2, -3):
  try:
    tf.sort(mat, axis=axis)
  except tf.errors.InvalidArgumentError as e:
    print("InvalidArgumentError:", e)
try:
  tf.argsort(mat, direction='descending')
except ValueError as e:
  print("ValueError:", e)

# expect-output:
# [[1, 1, 1], [2, 2, 2], [3, 3, 3]]
# [[0, 2, 1], [1, 0, 2], [2, 1, 0]]
# InvalidArgumentError: slice index 2 of dimension 0 out of bounds. [Op:StridedSlice]
# InvalidArgumentError: slice index -3 of dimension 0 out of bounds. [Op:StridedSlice]
# ValueError: Argument `direction` should be one of ASCENDING, DESCENDING. Received: direction=descending
