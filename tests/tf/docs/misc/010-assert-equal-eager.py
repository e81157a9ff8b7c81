# https://www.tensorflow.org/api_docs/python/tf/debugging/assert_equal: eagerly a failed check
# raises InvalidArgumentError at once; equal tensors return None. The message is check_ops.py's
# (_make_assert_msg_data and _pretty_print: NumPy's str of the differing indices and values).
import tensorflow as tf

print(tf.debugging.assert_equal(tf.constant([1, 2]), tf.constant([1, 2])))
try:
    tf.debugging.assert_equal(tf.constant([1, 2, 3]), tf.constant([1, 5, 4]))
except tf.errors.InvalidArgumentError as e:
    print(type(e).__name__)
    print(e)
try:
    tf.debugging.assert_equal(3, 4, message="Bad tensor size")
except tf.errors.InvalidArgumentError as e:
    print(e)

# expect-output:
# None
# InvalidArgumentError
# Condition x == y did not hold.
# Indices of first 2 different values:
# [[1]
#  [2]]
# Corresponding x values:
# [2 3]
# Corresponding y values:
# [5 4]
# First 3 elements of x:
# [1 2 3]
# First 3 elements of y:
# [1 5 4]
# Bad tensor size
# Condition x == y did not hold.
# First 1 elements of x:
# [3]
# First 1 elements of y:
# [4]
