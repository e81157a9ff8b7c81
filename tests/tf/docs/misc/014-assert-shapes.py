# https://www.tensorflow.org/api_docs/python/tf/debugging/assert_shapes: the docstring's
# example passes; the mismatched one raises ValueError ("..." on the page); the text is
# check_ops.py's for a size specified by another tensor.
import tensorflow as tf

n, q, d = 10, 3, 7
x = tf.zeros([n, q])
y = tf.ones([n, d])
param = tf.Variable([1.0, 2.0, 3.0])
scalar = 1.0
tf.debugging.assert_shapes([
    (x, ("N", "Q")),
    (y, ("N", "D")),
    (param, ("Q",)),
    (scalar, ()),
])
print("shapes hold")
try:
    tf.debugging.assert_shapes([
        (x, ("N", "D")),
        (y, ("N", "D")),
    ])
except ValueError as e:
    print(e)

# expect-output:
# shapes hold
# Specified by tensor shape=(10, 3) dtype=float32 dimension 1.  Tensor shape=(10, 7) dtype=float32 dimension 1 must have size 3.  Received size 7, shape (10, 7)
