# https://www.tensorflow.org/api_docs/python/tf/experimental/numpy: creation and math functions,
# each "TensorFlow variant of NumPy's" function of the same name (np_utils.np_doc), so the values
# are NumPy's for the same call (NumPy 1.24's results), printed as tf.Tensor prints.
import tensorflow as tf
import tensorflow.experimental.numpy as tnp

tnp.experimental_enable_numpy_behavior()

print(tnp.zeros([2], dtype=tnp.int32), tnp.full([2], 7), tnp.array([1, 2], ndmin=2).shape)
print(tnp.arange(1, 7, 2), tnp.arange(0., 1., 0.25))
print(tnp.linspace(0, 1, 5))
print(tnp.eye(3, k=1, dtype=tnp.int64))
a = tnp.asarray([[1., -2.], [3., 4.]])
print(tnp.dot(a, a), tnp.dot([1, 2], [3, 4]))
print(tnp.mean(a, axis=0), tnp.max(a), tnp.min(a, axis=1), tnp.argmax(a), tnp.argmax(a, axis=1))
print(tnp.where(a > 0, a, 0.0))
print(tnp.concatenate([[1, 2], [3.5]]), tnp.stack([tnp.arange(2), tnp.arange(2)], axis=1).shape)
print(tnp.clip(tnp.arange(5), 1, 3), tnp.sign(a), tnp.abs(a))
print(tnp.exp(0), tnp.log(1.0), tnp.tanh(0), tnp.square(3))
print(tnp.sort([3, 1, 2]), tnp.sort(tnp.asarray([[3, 1], [0, 2]]), axis=0))
print(tnp.allclose([1.0, 2.0], [1.0, 2.0 + 1e-9]), tnp.isclose([1.0, 2.0], [1.1, 2.0]))
print(tnp.expand_dims(tnp.arange(3), 0).shape, tnp.squeeze(tnp.ones([1, 3, 1])).shape,
      tnp.transpose(tnp.ones([2, 3, 4])).shape, tnp.reshape(tnp.arange(6), (3, 2)).shape)
print(tnp.sum(tnp.asarray([[1, 2], [3, 4]], tnp.int32), axis=1), tnp.multiply(2, 3.5))
t = tnp.arange(6).reshape(2, 3)
print(t.ravel(), t.astype(tnp.float32).dtype, t.clip(1, 4).tolist(), t.transpose().shape, t.size)

# expect-output:
# tf.Tensor([0 0], shape=(2,), dtype=int32) tf.Tensor([7 7], shape=(2,), dtype=int64) (1, 2)
# tf.Tensor([1 3 5], shape=(3,), dtype=int64) tf.Tensor([0.   0.25 0.5  0.75], shape=(4,), dtype=float64)
# tf.Tensor([0.   0.25 0.5  0.75 1.  ], shape=(5,), dtype=float64)
# tf.Tensor(
# [[0 1 0]
#  [0 0 1]
#  [0 0 0]], shape=(3, 3), dtype=int64)
# tf.Tensor(
# [[ -5. -10.]
#  [ 15.  10.]], shape=(2, 2), dtype=float64) tf.Tensor(11, shape=(), dtype=int64)
# tf.Tensor([2. 1.], shape=(2,), dtype=float64) tf.Tensor(4.0, shape=(), dtype=float64) tf.Tensor([-2.  3.], shape=(2,), dtype=float64) tf.Tensor(3, shape=(), dtype=int64) tf.Tensor([0 1], shape=(2,), dtype=int64)
# tf.Tensor(
# [[1. 0.]
#  [3. 4.]], shape=(2, 2), dtype=float64)
# tf.Tensor([1.  2.  3.5], shape=(3,), dtype=float64) (2, 2)
# tf.Tensor([1 1 2 3 3], shape=(5,), dtype=int64) tf.Tensor(
# [[ 1. -1.]
#  [ 1.  1.]], shape=(2, 2), dtype=float64) tf.Tensor(
# [[1. 2.]
#  [3. 4.]], shape=(2, 2), dtype=float64)
# tf.Tensor(1.0, shape=(), dtype=float64) tf.Tensor(0.0, shape=(), dtype=float64) tf.Tensor(0.0, shape=(), dtype=float64) tf.Tensor(9, shape=(), dtype=int64)
# tf.Tensor([1 2 3], shape=(3,), dtype=int64) tf.Tensor(
# [[0 1]
#  [3 2]], shape=(2, 2), dtype=int64)
# tf.Tensor(True, shape=(), dtype=bool) tf.Tensor([False  True], shape=(2,), dtype=bool)
# (1, 3) (3,) (4, 3, 2) (3, 2)
# tf.Tensor([3 7], shape=(2,), dtype=int64) tf.Tensor(7.0, shape=(), dtype=float64)
# tf.Tensor([0 1 2 3 4 5], shape=(6,), dtype=int64) <dtype: 'float32'> [[1, 1, 2], [3, 4, 4]] (3, 2) 6
