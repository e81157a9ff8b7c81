# https://www.tensorflow.org/api_docs/python/tf/dtypes/DType, "Examples" (output from the page)
# and its "Attributes" table: name, size, is_floating, is_integer, is_complex, is_unsigned,
# real_dtype and as_datatype_enum of every numeric dtype. The page shows no output for the
# attributes; the values are those TensorFlow's tensorflow/python/framework/dtypes.py computes
# (sizes are NumPy's itemsize, the enum numbers tensorflow/core/framework/types.proto's).
import tensorflow as tf

print(repr(tf.constant(1, dtype=tf.int64)))
print(repr(tf.constant(1.0).dtype))

for d in [tf.float16, tf.bfloat16, tf.float32, tf.float64, tf.int8, tf.int16, tf.int32,
          tf.int64, tf.uint8, tf.uint16, tf.uint32, tf.uint64, tf.complex64, tf.complex128,
          tf.bool, tf.string]:
    print(d.name, d.size, d.is_floating, d.is_integer, d.is_complex, d.is_unsigned, d.is_bool,
          repr(d.real_dtype), d.as_datatype_enum)

print(tf.half is tf.float16, tf.double is tf.float64, tf.dtypes.uint8 is tf.uint8)
print(tf.int8 == "int8", tf.float16 == "half", tf.complex64 != tf.complex128)

# expect-output:
# <tf.Tensor: shape=(), dtype=int64, numpy=1>
# tf.float32
# float16 2 True False False False False tf.float16 19
# bfloat16 2 True False False False False tf.bfloat16 14
# float32 4 True False False False False tf.float32 1
# float64 8 True False False False False tf.float64 2
# int8 1 False True False False False tf.int8 6
# int16 2 False True False False False tf.int16 5
# int32 4 False True False False False tf.int32 3
# int64 8 False True False False False tf.int64 9
# uint8 1 False True False True False tf.uint8 4
# uint16 2 False True False True False tf.uint16 17
# uint32 4 False True False True False tf.uint32 22
# uint64 8 False True False True False tf.uint64 23
# complex64 8 False False True False False tf.float32 8
# complex128 16 False False True False False tf.float64 18
# bool 1 False False False False True tf.bool 10
# string 8 False False False False False tf.string 7
# True True True
# True True True
