# Creation functions and ops of the tf module, tf.math and tf.nn.
import tensorflow as tf

print(tf.zeros([2, 3]))
print(tf.ones([2], dtype=tf.int32))
print(tf.fill([2, 2], 7))
print(tf.zeros_like(tf.constant([1, 2])), tf.ones_like(tf.constant([1.5])))
print(tf.range(5), tf.range(1, 10, 3), tf.range(0.0, 1.0, 0.25))
print(tf.eye(2))
print(tf.linspace(0.0, 1.0, 5))
print(tf.constant(0, shape=[2, 2]))
print(tf.constant([1, 2, 3, 4], shape=[2, 2]))
print(tf.constant([1, 2.5]), tf.constant([[True]]), tf.constant(5, dtype=tf.float64))
print(tf.convert_to_tensor([1, 2]), tf.cast(tf.constant([1.7, -1.7]), tf.int32))
a = tf.constant([[1., 2.], [3., 4.]])
print(tf.add(a, 1), tf.subtract(a, a), tf.multiply(a, 2), tf.divide(a, 4))
print(tf.math.maximum(a, 2.5), tf.minimum(a, 2.5), tf.math.pow(a, 2), tf.square(a))
print(tf.sqrt(tf.constant([4.0, 9.0])), tf.exp(tf.constant(0.0)), tf.math.log(tf.constant(1.0)))
print(tf.tanh(tf.constant(0.0)), tf.sigmoid(tf.constant(0.0)), tf.sin(tf.constant(0.0)), tf.cos(tf.constant(0.0)))
print(tf.matmul(a, a, transpose_b=True))
print(tf.reduce_sum(a), tf.reduce_sum(a, axis=0), tf.reduce_mean(a, axis=1, keepdims=True))
print(tf.reduce_max(a), tf.reduce_min(a, 1), tf.reduce_prod(a, [0, 1]))
print(tf.argmax(a), tf.argmin(a, axis=1))
print(tf.transpose(a), tf.transpose(tf.zeros([1, 2, 3]), perm=[2, 0, 1]).shape)
print(tf.concat([a, a], 0).shape, tf.concat([a, a], axis=1).shape, tf.stack([a, a]).shape, tf.stack([1, 2]))
print(tf.squeeze(tf.zeros([1, 2, 1])).shape, tf.expand_dims(a, 0).shape, tf.expand_dims(a, -1).shape)
print(tf.where(a > 2, a, -a))
print(tf.equal(a, 1.0), tf.greater(a, 2.0), tf.less_equal(a, 2.0))
print(tf.logical_and(a > 1, a < 4), tf.logical_or(a < 2, a > 3), tf.logical_not(a > 1))
print(tf.clip_by_value(a, 1.5, 3.5))
print(tf.one_hot([0, 2], 3))
print(tf.gather(tf.constant([10, 20, 30]), [2, 0]))
print(tf.nn.relu(tf.constant([-1.0, 2.0])), tf.nn.softmax(tf.constant([0.0, 0.0])))
img = tf.ones([1, 3, 3, 1])
k = tf.ones([2, 2, 1, 1])
print(tf.nn.conv2d(img, k, strides=1, padding="VALID"))
print(tf.nn.conv2d(img, k, 1, "SAME").shape)
print(tf.random.uniform([2, 3]).shape, tf.random.normal([4]).dtype)
u = tf.random.uniform([1000], minval=2, maxval=3)
print(bool(tf.reduce_min(u) >= 2), bool(tf.reduce_max(u) < 3))
print(bool(tf.reduce_all(tf.random.uniform([5]) == tf.random.uniform([5]))))
tf.random.set_seed(1)
r1 = tf.random.normal([3])
tf.random.set_seed(1)
r2 = tf.random.normal([3])
print(bool(tf.reduce_all(r1 == r2)))
print(tf.random.uniform([3], maxval=10, dtype=tf.int32).dtype)

# expect-output:
# tf.Tensor(
# [[0. 0. 0.]
#  [0. 0. 0.]], shape=(2, 3), dtype=float32)
# tf.Tensor([1 1], shape=(2,), dtype=int32)
# tf.Tensor(
# [[7 7]
#  [7 7]], shape=(2, 2), dtype=int32)
# tf.Tensor([0 0], shape=(2,), dtype=int32) tf.Tensor([1.], shape=(1,), dtype=float32)
# tf.Tensor([0 1 2 3 4], shape=(5,), dtype=int32) tf.Tensor([1 4 7], shape=(3,), dtype=int32) tf.Tensor([0.   0.25 0.5  0.75], shape=(4,), dtype=float32)
# tf.Tensor(
# [[1. 0.]
#  [0. 1.]], shape=(2, 2), dtype=float32)
# tf.Tensor([0.   0.25 0.5  0.75 1.  ], shape=(5,), dtype=float32)
# tf.Tensor(
# [[0 0]
#  [0 0]], shape=(2, 2), dtype=int32)
# tf.Tensor(
# [[1 2]
#  [3 4]], shape=(2, 2), dtype=int32)
# tf.Tensor([1.  2.5], shape=(2,), dtype=float32) tf.Tensor([[ True]], shape=(1, 1), dtype=bool) tf.Tensor(5.0, shape=(), dtype=float64)
# tf.Tensor([1 2], shape=(2,), dtype=int32) tf.Tensor([ 1 -1], shape=(2,), dtype=int32)
# tf.Tensor(
# [[2. 3.]
#  [4. 5.]], shape=(2, 2), dtype=float32) tf.Tensor(
# [[0. 0.]
#  [0. 0.]], shape=(2, 2), dtype=float32) tf.Tensor(
# [[2. 4.]
#  [6. 8.]], shape=(2, 2), dtype=float32) tf.Tensor(
# [[0.25 0.5 ]
#  [0.75 1.  ]], shape=(2, 2), dtype=float32)
# tf.Tensor(
# [[2.5 2.5]
#  [3.  4. ]], shape=(2, 2), dtype=float32) tf.Tensor(
# [[1.  2. ]
#  [2.5 2.5]], shape=(2, 2), dtype=float32) tf.Tensor(
# [[ 1.  4.]
#  [ 9. 16.]], shape=(2, 2), dtype=float32) tf.Tensor(
# [[ 1.  4.]
#  [ 9. 16.]], shape=(2, 2), dtype=float32)
# tf.Tensor([2. 3.], shape=(2,), dtype=float32) tf.Tensor(1.0, shape=(), dtype=float32) tf.Tensor(0.0, shape=(), dtype=float32)
# tf.Tensor(0.0, shape=(), dtype=float32) tf.Tensor(0.5, shape=(), dtype=float32) tf.Tensor(0.0, shape=(), dtype=float32) tf.Tensor(1.0, shape=(), dtype=float32)
# tf.Tensor(
# [[ 5. 11.]
#  [11. 25.]], shape=(2, 2), dtype=float32)
# tf.Tensor(10.0, shape=(), dtype=float32) tf.Tensor([4. 6.], shape=(2,), dtype=float32) tf.Tensor(
# [[1.5]
#  [3.5]], shape=(2, 1), dtype=float32)
# tf.Tensor(4.0, shape=(), dtype=float32) tf.Tensor([1. 3.], shape=(2,), dtype=float32) tf.Tensor(24.0, shape=(), dtype=float32)
# tf.Tensor([1 1], shape=(2,), dtype=int64) tf.Tensor([0 0], shape=(2,), dtype=int64)
# tf.Tensor(
# [[1. 3.]
#  [2. 4.]], shape=(2, 2), dtype=float32) (3, 1, 2)
# (4, 2) (2, 4) (2, 2, 2) tf.Tensor([1 2], shape=(2,), dtype=int32)
# (2,) (1, 2, 2) (2, 2, 1)
# tf.Tensor(
# [[-1. -2.]
#  [ 3.  4.]], shape=(2, 2), dtype=float32)
# tf.Tensor(
# [[ True False]
#  [False False]], shape=(2, 2), dtype=bool) tf.Tensor(
# [[False False]
#  [ True  True]], shape=(2, 2), dtype=bool) tf.Tensor(
# [[ True  True]
#  [False False]], shape=(2, 2), dtype=bool)
# tf.Tensor(
# [[False  True]
#  [ True False]], shape=(2, 2), dtype=bool) tf.Tensor(
# [[ True False]
#  [False  True]], shape=(2, 2), dtype=bool) tf.Tensor(
# [[ True False]
#  [False False]], shape=(2, 2), dtype=bool)
# tf.Tensor(
# [[1.5 2. ]
#  [3.  3.5]], shape=(2, 2), dtype=float32)
# tf.Tensor(
# [[1. 0. 0.]
#  [0. 0. 1.]], shape=(2, 3), dtype=float32)
# tf.Tensor([30 10], shape=(2,), dtype=int32)
# tf.Tensor([0. 2.], shape=(2,), dtype=float32) tf.Tensor([0.5 0.5], shape=(2,), dtype=float32)
# tf.Tensor(
# [[[[4.]
#    [4.]]
#
#   [[4.]
#    [4.]]]], shape=(1, 2, 2, 1), dtype=float32)
# (1, 3, 3, 1)
# (2, 3) <dtype: 'float32'>
# True True
# False
# True
# <dtype: 'int32'>
