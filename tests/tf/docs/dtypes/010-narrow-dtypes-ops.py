# The narrower dtypes in the ops that take them. tf.range: its docstring examples
# (https://www.tensorflow.org/api_docs/python/tf/range, reprs from the page), then dtype= with
# each type Range's Tidx allows (https://www.tensorflow.org/versions/r2.13/api_docs/python/tf/raw_ops/Range:
# bfloat16, half, float32, float64, int8, int16, int32, int64, uint16, uint32; others get the
# attr error with that list). MatMul of float16, bfloat16 and complex64 (matmul_op_real.cc
# registers TF_CALL_FLOAT_TYPES, matmul_op_complex.cc the complex types); int8 is in no version's
# MatMul list (the list itself differs between versions, so only its start is printed).
# tf.sort is TopKV2 underneath, whose CPU kernel covers every real number type
# (TF_CALL_REAL_NUMBER_TYPES); Sum, Mean and Prod have kernels for every number type, complex
# included (TF_CALL_NUMBER_TYPES); float16 sums in float, int8 sums wrap.
import tensorflow as tf

# tf.range's docstring examples, then dtype= with the narrower types Range allows
print(repr(tf.range(3, 18, 3)))
print(repr(tf.range(3, 1, -0.5)))
print(repr(tf.range(5)))
for dt in (tf.int8, tf.int16, tf.uint16, tf.uint32, tf.float16, tf.bfloat16):
  print(tf.range(1, 10, 4, dtype=dt))
print(tf.range(0, 1, 0.25, dtype=tf.float16))
for dt in (tf.uint8, tf.uint64):
  try:
    tf.range(3, dtype=dt)
  except tf.errors.InvalidArgumentError as e:
    print(type(e).__name__ + ":", e)

# MatMul of the float types and complex numbers; an integer type MatMul does not allow
a = tf.constant([[1, 2], [3, 4]])
for dt in (tf.float16, tf.bfloat16, tf.complex64):
  print(tf.matmul(tf.cast(a, dt), tf.cast(a, dt)))
try:
  tf.matmul(tf.cast(a, tf.int8), tf.cast(a, tf.int8))
except tf.errors.InvalidArgumentError as e:
  print(type(e).__name__ + ":", str(e).split(" is not")[0])

# sort (TopKV2) of every real number type; reductions of the narrow and complex types
for dt in (tf.int8, tf.uint8, tf.uint16, tf.float16, tf.bfloat16):
  print(tf.sort(tf.constant([3, 1, 2], dt), direction='DESCENDING'))
z = tf.constant([1 + 2j, 3 - 1j], tf.complex64)
print(tf.reduce_sum(z), tf.reduce_mean(z), tf.reduce_prod(z))
h = tf.constant([[1.5, 2.5], [3.5, 4.5]], tf.float16)
print(tf.reduce_sum(h, 0), tf.reduce_max(h), tf.reduce_mean(h, 1))
print(tf.reduce_sum(tf.constant([100, 100], tf.int8)))

# expect-output:
# <tf.Tensor: shape=(5,), dtype=int32, numpy=array([ 3,  6,  9, 12, 15], dtype=int32)>
# <tf.Tensor: shape=(4,), dtype=float32, numpy=array([3. , 2.5, 2. , 1.5], dtype=float32)>
# <tf.Tensor: shape=(5,), dtype=int32, numpy=array([0, 1, 2, 3, 4], dtype=int32)>
# tf.Tensor([1 5 9], shape=(3,), dtype=int8)
# tf.Tensor([1 5 9], shape=(3,), dtype=int16)
# tf.Tensor([1 5 9], shape=(3,), dtype=uint16)
# tf.Tensor([1 5 9], shape=(3,), dtype=uint32)
# tf.Tensor([1. 5. 9.], shape=(3,), dtype=float16)
# tf.Tensor([1. 5. 9.], shape=(3,), dtype=bfloat16)
# tf.Tensor([0.   0.25 0.5  0.75], shape=(4,), dtype=float16)
# InvalidArgumentError: Value for attr 'Tidx' of uint8 is not in the list of allowed values: bfloat16, half, float, double, int8, int16, int32, int64, uint16, uint32 [Op:Range]
# InvalidArgumentError: Value for attr 'Tidx' of uint64 is not in the list of allowed values: bfloat16, half, float, double, int8, int16, int32, int64, uint16, uint32 [Op:Range]
# tf.Tensor(
# [[ 7. 10.]
#  [15. 22.]], shape=(2, 2), dtype=float16)
# tf.Tensor(
# [[ 7. 10.]
#  [15. 22.]], shape=(2, 2), dtype=bfloat16)
# tf.Tensor(
# [[ 7.+0.j 10.+0.j]
#  [15.+0.j 22.+0.j]], shape=(2, 2), dtype=complex64)
# InvalidArgumentError: Value for attr 'T' of int8
# tf.Tensor([3 2 1], shape=(3,), dtype=int8)
# tf.Tensor([3 2 1], shape=(3,), dtype=uint8)
# tf.Tensor([3 2 1], shape=(3,), dtype=uint16)
# tf.Tensor([3. 2. 1.], shape=(3,), dtype=float16)
# tf.Tensor([3. 2. 1.], shape=(3,), dtype=bfloat16)
# tf.Tensor((4+1j), shape=(), dtype=complex64) tf.Tensor((2+0.5j), shape=(), dtype=complex64) tf.Tensor((5+5j), shape=(), dtype=complex64)
# tf.Tensor([5. 7.], shape=(2,), dtype=float16) tf.Tensor(4.5, shape=(), dtype=float16) tf.Tensor([2. 4.], shape=(2,), dtype=float16)
# tf.Tensor(-56, shape=(), dtype=int8)
