# https://www.tensorflow.org/api_docs/python/tf/dtypes/as_dtype: "Converts the given type_value
# to a DType": a DType, a string name, a NumPy type, or a DataType enum value. The page shows no
# output; the results and the TypeError's text are tensorflow/python/framework/dtypes.py's.
import numpy as np
import tensorflow as tf

print(repr(tf.as_dtype("float32")), repr(tf.as_dtype("half")), repr(tf.as_dtype("double")))
print(repr(tf.as_dtype("bfloat16")), repr(tf.as_dtype("complex128")))
print(repr(tf.as_dtype(np.uint16)), repr(tf.as_dtype(np.dtype("int8"))),
      repr(tf.as_dtype(np.complex64)), repr(tf.as_dtype(np.float16)))
print(repr(tf.as_dtype(1)), repr(tf.as_dtype(14)), repr(tf.as_dtype(19)), repr(tf.as_dtype(23)))
print(repr(tf.as_dtype(tf.int16)), repr(tf.dtypes.as_dtype(4)))
print(tf.uint32.as_numpy_dtype, tf.complex128.as_numpy_dtype)

for bad in ["float8", 100]:
    try:
        tf.as_dtype(bad)
    except TypeError as e:
        print(type(e).__name__ + ":", e)

# expect-output:
# tf.float32 tf.float16 tf.float64
# tf.bfloat16 tf.complex128
# tf.uint16 tf.int8 tf.complex64 tf.float16
# tf.float32 tf.bfloat16 tf.float16 tf.uint64
# tf.int16 tf.uint8
# <class 'numpy.uint32'> <class 'numpy.complex128'>
# TypeError: Cannot convert the argument `type_value`: 'float8' to a TensorFlow DType.
# TypeError: Cannot convert the argument `type_value`: 100 to a TensorFlow DType.
