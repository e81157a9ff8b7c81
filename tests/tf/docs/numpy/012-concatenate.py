# https://www.tensorflow.org/api_docs/python/tf/experimental/numpy/concatenate: np_math_ops.py's
# concatenate promotes the arrays to their NumPy result type (np_utils.result_type) before
# tf.concat, so mixed dtypes are no error: int32 with float32 gives NumPy's float64, int8 with
# int16 int16, int64 with bool int64. An empty list is its ValueError ("Need at least one array
# to concatenate. Received empty input: arys=[]").
import tensorflow as tf
import tensorflow.experimental.numpy as tnp

print(tnp.concatenate([tnp.asarray([1, 2], tnp.int32), tnp.asarray([0.5], tnp.float32)]))
print(tnp.concatenate([tnp.asarray([1, 2], tnp.int8), tnp.asarray([3], tnp.int16)]))
print(tnp.concatenate([tnp.ones([1, 2], tnp.int64), tnp.zeros([1, 2], tnp.bool_)], axis=1))
try:
  tnp.concatenate([])
except ValueError as e:
  print("ValueError:", e)

# expect-output:
# tf.Tensor([1.  2.  0.5], shape=(3,), dtype=float64)
# tf.Tensor([1 2 3], shape=(3,), dtype=int16)
# tf.Tensor([[1 1 0 0]], shape=(1, 4), dtype=int64)
# ValueError: Need at least one array to concatenate. Received empty input: arys=[]
