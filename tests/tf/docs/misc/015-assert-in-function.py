# https://www.tensorflow.org/api_docs/python/tf/debugging/assert_equal ("When using inside
# tf.function, this API takes effects during execution"): traced, the check is an Assert node
# that fails the call with the Assert kernel's text ("assertion failed: [..] [..]", each entry
# a tensor's SummarizeValue; nodes named as TensorFlow names them, its assert_equal entering
# its name scope twice); constant inputs are checked while tracing (_assert_static).
import tensorflow as tf


@tf.function(input_signature=[tf.TensorSpec(None, tf.float32)])
def check_size(x):
    tf.debugging.assert_equal(tf.size(x), 3, message="Bad tensor size")
    return x


print(check_size(tf.ones([3])))
try:
    check_size(tf.ones([2, 3]))
except tf.errors.InvalidArgumentError as e:
    print(str(e).split("\n")[0])


@tf.function
def static_check():
    tf.debugging.assert_equal(tf.constant(1), tf.constant(2))


try:
    static_check()
except tf.errors.InvalidArgumentError as e:
    print(repr(str(e)))

# expect-output:
# tf.Tensor([1. 1. 1.], shape=(3,), dtype=float32)
# assertion failed: [Bad tensor size] [Condition x == y did not hold element-wise:] [x (Size:0) = ] [6] [y (assert_equal_1/y:0) = ] [3]
# 'Condition x == y did not hold element-wise:\nx (Const:0) = \n1\ny (Const_1:0) = \n2'
