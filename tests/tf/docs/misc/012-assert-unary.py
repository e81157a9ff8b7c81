# https://www.tensorflow.org/api_docs/python/tf/debugging/assert_positive (and assert_negative,
# assert_non_negative): eagerly the message is check_ops.py's data list joined by newlines: the
# message prefix ("" without one, so the text starts with a newline), the condition, the
# tensor's shape and dtype, and its first entries as a list of strings (_pretty_print).
import tensorflow as tf

tf.debugging.assert_positive(tf.constant([1, 2]))
tf.debugging.assert_non_negative(tf.constant([0.0, 2.0]))
try:
    tf.debugging.assert_positive(tf.constant([-1, 2]))
except tf.errors.InvalidArgumentError as e:
    print(repr(str(e)))
try:
    tf.debugging.assert_negative(tf.constant([-1, 2, 3, 4]), message="need negatives")
except tf.errors.InvalidArgumentError as e:
    print(repr(str(e)))

# expect-output:
# "\nCondition x > 0 did not hold element-wise:\nx (shape=(2,) dtype=int32) = \n['-1', '2']"
# "need negatives.  \nCondition x < 0 did not hold element-wise:\nx (shape=(4,) dtype=int32) = \n['-1', '2', '3', '...']"
