# https://www.tensorflow.org/api_docs/python/tf/cast (tf.dtypes.cast): the page's examples
# (output from the page), and its rules: complex to real keeps the real part, real to complex
# sets the imaginary part to 0. Outputs beyond the page's first two follow those rules, printed
# as NumPy prints the values.
import tensorflow as tf

x = tf.constant([1.8, 2.2], dtype=tf.float32)
print(repr(tf.cast(x, tf.int32)))
x = tf.constant([1.8, 2.2], dtype=tf.float32)
print(repr(tf.dtypes.cast(x, tf.int32)))

z = tf.constant([1.5 + 2j, -3 - 1j], dtype=tf.complex64)
print(tf.cast(z, tf.float32))
print(tf.cast(z, tf.int16))
print(tf.cast(tf.constant([1, 2], dtype=tf.uint8), tf.complex128))
print(tf.cast(tf.constant([-1.7, 0.5, 2.9], dtype=tf.float64), tf.int64))
print(tf.cast(tf.constant([0, 3], dtype=tf.int8), tf.bool))
print(tf.cast(tf.constant([True, False]), tf.float16))
print(tf.cast(tf.constant(3.14, dtype=tf.float32), tf.bfloat16))

# strings do not cast to numbers (TensorFlow's Cast kernel's text)
try:
    tf.cast(tf.constant("1"), tf.int32)
except tf.errors.UnimplementedError as e:
    print(type(e).__name__ + ":", e)

# expect-output:
# <tf.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], dtype=int32)>
# <tf.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], dtype=int32)>
# tf.Tensor([ 1.5 -3. ], shape=(2,), dtype=float32)
# tf.Tensor([ 1 -3], shape=(2,), dtype=int16)
# tf.Tensor([1.+0.j 2.+0.j], shape=(2,), dtype=complex128)
# tf.Tensor([-1  0  2], shape=(3,), dtype=int64)
# tf.Tensor([False  True], shape=(2,), dtype=bool)
# tf.Tensor([1. 0.], shape=(2,), dtype=float16)
# tf.Tensor(3.14, shape=(), dtype=bfloat16)
# UnimplementedError: Cast string to int32 is not supported [Op:Cast]
