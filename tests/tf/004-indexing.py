# NumPy-style indexing through StridedSlice.
import tensorflow as tf

x = tf.reshape(tf.range(24), [2, 3, 4])
print(x[0])
print(x[1, 2])
print(x[-1, -1, -1])
print(x[:, 1])
print(x[0, 1:3, ::2])
print(x[..., 0])
print(x[0, None, :, 0])
print(x[0, ::-1, 3])
print(x[tf.constant(1), 0, 1:])

# expect-output:
# tf.Tensor(
# [[ 0  1  2  3]
#  [ 4  5  6  7]
#  [ 8  9 10 11]], shape=(3, 4), dtype=int32)
# tf.Tensor([20 21 22 23], shape=(4,), dtype=int32)
# tf.Tensor(23, shape=(), dtype=int32)
# tf.Tensor(
# [[ 4  5  6  7]
#  [16 17 18 19]], shape=(2, 4), dtype=int32)
# tf.Tensor(
# [[ 4  6]
#  [ 8 10]], shape=(2, 2), dtype=int32)
# tf.Tensor(
# [[ 0  4  8]
#  [12 16 20]], shape=(2, 3), dtype=int32)
# tf.Tensor([[0 4 8]], shape=(1, 3), dtype=int32)
# tf.Tensor([11  7  3], shape=(3,), dtype=int32)
# tf.Tensor([13 14 15], shape=(3,), dtype=int32)
