# https://www.tensorflow.org/guide/tensor, section "Basics" (tf.cast between dtypes): a float64
# tensor cast to float16, then to uint8, losing the decimals (output from the page).
import tensorflow as tf

the_f64_tensor = tf.constant([2.2, 3.3, 4.4], dtype=tf.float64)
the_f16_tensor = tf.cast(the_f64_tensor, dtype=tf.float16)
# Now, cast to an uint8 and lose the decimal precision
the_u8_tensor = tf.cast(the_f16_tensor, dtype=tf.uint8)
print(the_u8_tensor)

# the intermediate float16 tensor prints as NumPy prints float16 arrays
print(the_f16_tensor)
print(repr(the_f16_tensor))

# expect-output:
# tf.Tensor([2 3 4], shape=(3,), dtype=uint8)
# tf.Tensor([2.2 3.3 4.4], shape=(3,), dtype=float16)
# <tf.Tensor: shape=(3,), dtype=float16, numpy=array([2.2, 3.3, 4.4], dtype=float16)>
