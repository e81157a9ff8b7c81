# https://www.tensorflow.org/api_docs/python/tf/dtypes/DType, attributes "min", "max" and
# "limits": the extremes of each type. The page shows no output; TensorFlow's dtypes.py takes
# them from NumPy's finfo (NumPy scalars) and iinfo (Python ints), bfloat16's from its format
# (0x1.FEp127), and refuses bool's, string's and complex types' min and max with a TypeError.
import tensorflow as tf

for d in [tf.int8, tf.uint8, tf.int16, tf.uint16, tf.int32, tf.uint32, tf.int64, tf.uint64]:
    print(d.name, d.min, d.max)
for d in [tf.float16, tf.float32, tf.float64]:
    print(d.name, d.min, d.max)
print(tf.bfloat16.max == 3.3895313892515355e38, tf.bfloat16.min == -tf.bfloat16.max)
print(tf.uint8.limits, tf.bool.limits)
try:
    tf.complex64.max
except TypeError as e:
    print(type(e).__name__ + ":", e)

# expect-output:
# int8 -128 127
# uint8 0 255
# int16 -32768 32767
# uint16 0 65535
# int32 -2147483648 2147483647
# uint32 0 4294967295
# int64 -9223372036854775808 9223372036854775807
# uint64 0 18446744073709551615
# float16 -65500.0 65500.0
# float32 -3.4028235e+38 3.4028235e+38
# float64 -1.7976931348623157e+308 1.7976931348623157e+308
# True True
# (0, 255) (0, 1)
# TypeError: Cannot find maximum value of <dtype: 'complex64'> with type <dtype: 'complex64'>.
