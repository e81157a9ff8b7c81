# https://www.tensorflow.org/guide/tensor, section "Basics" ("You can do basic math on
# tensors"): TensorFlow does not promote dtypes: mixing them is an error (AddV2's text from
# TensorFlow's op-input check), while Python numbers take the tensor's dtype.
import tensorflow as tf

a = tf.constant([1, 2, 3], dtype=tf.int8)
print(a + 1)
print(a * 2, a - 5)
h = tf.constant([0.5, 1.5], dtype=tf.float16)
print(h + 1, h * 2.5)
u = tf.constant([250, 10], dtype=tf.uint8)
print(u + 10)

for x, y in [(a, tf.constant([1, 2, 3])), (h, tf.constant([1.0, 2.0])),
             (u, tf.constant([1, 2], dtype=tf.uint16))]:
    try:
        x + y
    except tf.errors.InvalidArgumentError as e:
        print(type(e).__name__ + ":", e)

# expect-output:
# tf.Tensor([2 3 4], shape=(3,), dtype=int8)
# tf.Tensor([2 4 6], shape=(3,), dtype=int8) tf.Tensor([-4 -3 -2], shape=(3,), dtype=int8)
# tf.Tensor([1.5 2.5], shape=(2,), dtype=float16) tf.Tensor([1.25 3.75], shape=(2,), dtype=float16)
# tf.Tensor([ 4 20], shape=(2,), dtype=uint8)
# InvalidArgumentError: cannot compute AddV2 as input #1(zero-based) was expected to be a int8 tensor but is a int32 tensor [Op:AddV2]
# InvalidArgumentError: cannot compute AddV2 as input #1(zero-based) was expected to be a half tensor but is a float tensor [Op:AddV2]
# InvalidArgumentError: cannot compute AddV2 as input #1(zero-based) was expected to be a uint8 tensor but is a uint16 tensor [Op:AddV2]
