# https://www.tensorflow.org/api_docs/python/tf/debugging/assert_less (and assert_greater,
# assert_less_equal, assert_greater_equal, assert_none_equal): same checks, each with its
# symbol in the message (check_ops.py _binary_assert); summarize limits the entries shown.
import tensorflow as tf

x = tf.constant([1.0, 2.0, 3.0, 4.0])
tf.debugging.assert_less(x, 5.0)
tf.debugging.assert_greater_equal(x, 1.0)
tf.debugging.assert_none_equal(x, 0.0)
print("passed")
for check, y in [(tf.debugging.assert_less, 3.0), (tf.debugging.assert_greater, 2.5),
                 (tf.debugging.assert_none_equal, tf.constant([0.0, 2.0, 0.0, 4.0]))]:
    try:
        check(x, y, summarize=2)
    except tf.errors.InvalidArgumentError as e:
        print(str(e).split("\n")[0], "|", str(e).split("\n")[-1])

# expect-output:
# passed
# Condition x < y did not hold. | [3.]
# Condition x > y did not hold. | [2.5]
# Condition x != y did not hold. | [0. 2.]
