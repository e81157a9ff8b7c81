# https://www.tensorflow.org/api_docs/python/tf/debugging/assert_rank and
# https://www.tensorflow.org/api_docs/python/tf/debugging/assert_type (its example: a float
# Variable passes, tf.constant(21) is no tf.bool). Texts from check_ops.py: a static rank
# mismatch is a ValueError ("Tensor %s must have rank %d.  Received rank %d, shape %s", the
# name empty eagerly); assert_type's TypeError names an eager tensor "tensor".
import tensorflow as tf

tf.debugging.assert_rank(tf.zeros([2, 3]), 2)
a = tf.Variable(1.0)
tf.debugging.assert_type(a, tf_type=tf.float32)
print("ok")
try:
    tf.debugging.assert_rank(tf.constant([1, 2, 3]), 2)
except ValueError as e:
    print(e)
try:
    tf.debugging.assert_rank(tf.constant(1), 1, message="scalar given")
except ValueError as e:
    print(e)
b = tf.constant(21)
try:
    tf.debugging.assert_type(b, tf_type=tf.bool)
except TypeError as e:
    print(e)

# expect-output:
# ok
# Tensor  must have rank 2.  Received rank 1, shape (3,)
# scalar given.  Tensor  must have rank 1.  Received rank 0, shape ()
# tensor must be of type tf.bool; got tf.int32
