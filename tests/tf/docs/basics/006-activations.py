# https://www.tensorflow.org/api_docs/python/tf/math/softplus, tf/math/sigmoid and
# tf/nn/relu6: the docstrings' examples (outputs from the pages). tf.nn.softplus and
# tf.math.softplus are one function, as tf.nn.sigmoid and tf.math.sigmoid are. Softplus has the
# gradient sigmoid(x); Softplus only takes floating-point types (its OpDef's allowed list).
import tensorflow as tf

print(repr(tf.math.softplus(tf.range(0, 2, dtype=tf.float32)).numpy()))
print(tf.nn.softplus is tf.math.softplus, tf.nn.sigmoid is tf.math.sigmoid)

x = tf.constant([-float("inf"), 0.0, float("inf")])
print(repr(tf.sigmoid(x)))

x = tf.constant([-3.0, -1.0, 0.0, 6.0, 10.0], dtype=tf.float32)
y = tf.nn.relu6(x)
print(repr(y.numpy()))

x = tf.constant([0.0, 1.0])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.nn.softplus(x)
print(bool(tf.reduce_all(tf.abs(tape.gradient(y, x) - tf.sigmoid(x)) < 1e-6)))

try:
    tf.nn.softplus(tf.constant([1, 2]))
except tf.errors.InvalidArgumentError as e:
    print(type(e).__name__ + ":", str(e).splitlines()[0])

# expect-output:
# array([0.6931472, 1.3132616], dtype=float32)
# True True
# <tf.Tensor: shape=(3,), dtype=float32, numpy=array([0. , 0.5, 1. ], dtype=float32)>
# array([0., 0., 0., 6., 6.], dtype=float32)
# True
# InvalidArgumentError: Value for attr 'T' of int32 is not in the list of allowed values: half, bfloat16, float, double
