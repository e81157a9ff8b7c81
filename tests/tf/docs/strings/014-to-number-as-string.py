# https://www.tensorflow.org/api_docs/python/tf/strings/to_number and tf/strings/as_string:
# the docstrings' examples (outputs from the pages; NumPy's repr spacing), out_type, and a
# string that is no number (StringToNumber's text, core/kernels/string_to_number_op.cc).
import tensorflow as tf

print(tf.strings.to_number("1.55"))
print(tf.strings.to_number("3", tf.int32))
print(repr(tf.strings.to_number(["1.5", " 2", "-7e2"]).numpy()))
print(tf.strings.to_number(["12", "-3"], out_type=tf.int64))

print(repr(tf.strings.as_string([3, 2]).numpy()))
print(repr(tf.strings.as_string(3.1415926, precision=3).numpy()))
print(repr(tf.strings.as_string([1.5, 2.0]).numpy()))
print(repr(tf.strings.as_string([True, False]).numpy()))

@tf.function
def parse(s):
    return tf.strings.to_number(s) * 2

print(parse(tf.constant(["0.5", "4"])))

try:
    tf.strings.to_number("ten")
except tf.errors.InvalidArgumentError as e:
    print(type(e).__name__ + ":", e)

# expect-output:
# tf.Tensor(1.55, shape=(), dtype=float32)
# tf.Tensor(3, shape=(), dtype=int32)
# array([   1.5,    2. , -700. ], dtype=float32)
# tf.Tensor([12 -3], shape=(2,), dtype=int64)
# array([b'3', b'2'], dtype=object)
# b'3.142'
# array([b'1.500000', b'2.000000'], dtype=object)
# array([b'true', b'false'], dtype=object)
# tf.Tensor([1. 8.], shape=(2,), dtype=float32)
# InvalidArgumentError: StringToNumberOp could not correctly convert string: ten [Op:StringToNumber]
