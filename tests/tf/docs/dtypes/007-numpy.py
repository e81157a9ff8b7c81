# https://www.tensorflow.org/guide/tensor, section "Basics" ("You can convert a tensor to a
# NumPy array either using np.array or the tensor.numpy method"), with NumPy arrays of every
# numeric dtype: a tensor keeps the array's dtype and .numpy() gives it back. bfloat16 has no
# NumPy type without TensorFlow's ml_dtypes, so its values come out as float32 here. An array
# given another dtype is cast (TensorFlow's EagerTensor conversion asks NumPy to force-cast).
import numpy as np
import tensorflow as tf

for dt in [np.int8, np.int16, np.uint8, np.uint16, np.uint32, np.uint64, np.float16,
           np.complex64, np.complex128]:
    a = np.array([1, 2, 3], dtype=dt)
    t = tf.constant(a)
    back = t.numpy()
    print(t.dtype.name, back.dtype, back.dtype == a.dtype, np.array(t).dtype)

print(repr(tf.constant(np.array([[1, -2]], dtype=np.int8)).numpy()))
print(tf.convert_to_tensor(np.array([0.5, 0.25], dtype=np.float16), dtype=tf.float32))
print(tf.constant([1, 2], dtype=tf.bfloat16).numpy().dtype)
print(tf.constant(np.float16(1.5)).numpy(), type(tf.constant(np.uint8(7)).numpy()).__name__)
print(tf.constant(2 + 3j), tf.constant([1, 2j]).dtype.name)

print(tf.constant(np.array([1.5, -2.5], dtype=np.float16), dtype=tf.int8))

# expect-output:
# int8 int8 True int8
# int16 int16 True int16
# uint8 uint8 True uint8
# uint16 uint16 True uint16
# uint32 uint32 True uint32
# uint64 uint64 True uint64
# float16 float16 True float16
# complex64 complex64 True complex64
# complex128 complex128 True complex128
# array([[ 1, -2]], dtype=int8)
# tf.Tensor([0.5  0.25], shape=(2,), dtype=float32)
# float32
# 1.5 uint8
# tf.Tensor((2+3j), shape=(), dtype=complex128) complex128
# tf.Tensor([ 1 -2], shape=(2,), dtype=int8)
