# https://www.tensorflow.org/api_docs/python/tf/cond: the docstring's example (r is 34), eagerly
# and inside a tf.function (an If node whose branches return nested structures); a branch
# that returns a different structure is TF's TypeError (cond_v2.py's text, first line).
import tensorflow as tf

x = tf.constant(2)
y = tf.constant(5)
def f1(): return tf.multiply(x, 17)
def f2(): return tf.add(y, 23)
r = tf.cond(tf.less(x, y), f1, f2)
print(r)

@tf.function
def pick(a, b):
    return tf.cond(a < b, lambda: {'low': a, 'pair': (a, b)}, lambda: {'low': b, 'pair': (b, a)})

print(pick(tf.constant(1.0), tf.constant(4.0)))
print(pick(tf.constant(7.0), tf.constant(4.0)))

@tf.function
def mismatch(a):
    return tf.cond(a > 0, lambda: (a, a), lambda: a)

try:
    mismatch(tf.constant(1))
except TypeError as e:
    print("TypeError:", str(e).splitlines()[0])

try:
    tf.cond(True, 1, f2)
except TypeError as e:
    print("TypeError:", e)

# expect-output:
# tf.Tensor(34, shape=(), dtype=int32)
# {'low': <tf.Tensor: shape=(), dtype=float32, numpy=1.0>, 'pair': (<tf.Tensor: shape=(), dtype=float32, numpy=1.0>, <tf.Tensor: shape=(), dtype=float32, numpy=4.0>)}
# {'low': <tf.Tensor: shape=(), dtype=float32, numpy=4.0>, 'pair': (<tf.Tensor: shape=(), dtype=float32, numpy=4.0>, <tf.Tensor: shape=(), dtype=float32, numpy=7.0>)}
# TypeError: true_fn and false_fn arguments to tf.cond must have the same number, type, and overall structure of return values.
# TypeError: 'true_fn' must be callable.
