# Tensor attributes: shape (TensorShape), dtype, ndim, numpy(), len, iteration, conversions.
import tensorflow as tf

x = tf.constant([[1, 2, 3], [4, 5, 6]])
print(x.shape, repr(x.shape), x.shape.as_list(), x.shape.rank, x.shape[0], x.shape[-1], len(x.shape))
print(x.shape == (2, 3), x.shape == [2, 3], x.shape != (3, 2), x.shape[1:])
print(x.dtype, x.ndim, len(x))
n = x.numpy()
print(n)
print(repr(n))
print(n.tolist(), n.shape, n.ndim)
print(repr(tf.constant([1.5, 2.0]).numpy()))
print(repr(tf.constant(3).numpy()), repr(tf.constant(True).numpy()), repr(tf.constant("s").numpy()))
print(tf.constant(0.5, dtype=tf.float64).numpy())
for row in x:
  print(row)
print(int(x[1, 2]), float(x[0, 0]), bool(tf.constant(0)), bool(tf.constant([7])))
if tf.constant(3) > 2:
  print("branch taken")

# expect-output:
# (2, 3) TensorShape([2, 3]) [2, 3] 2 2 3 2
# True True True (3,)
# <dtype: 'int32'> 2 2
# [[1 2 3]
#  [4 5 6]]
# array([[1, 2, 3],
#        [4, 5, 6]], dtype=int32)
# [[1, 2, 3], [4, 5, 6]] (2, 3) 2
# array([1.5, 2. ], dtype=float32)
# 3 True b's'
# 0.5
# tf.Tensor([1 2 3], shape=(3,), dtype=int32)
# tf.Tensor([4 5 6], shape=(3,), dtype=int32)
# 6 1.0 False True
# branch taken
