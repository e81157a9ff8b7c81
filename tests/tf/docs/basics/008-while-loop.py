# https://www.tensorflow.org/api_docs/python/tf/while_loop: the docstring's examples (a counter,
# a nested structure with a namedtuple, shape invariants, maximum_iterations), eagerly and in a
# tf.function; values follow from the examples' arithmetic. A shape that changes without a
# shape invariant is while_v2.py's ValueError.
import collections
import tensorflow as tf

i = tf.constant(0)
c = lambda i: tf.less(i, 10)
b = lambda i: (tf.add(i, 1), )
r = tf.while_loop(c, b, [i])
print(r)

Pair = collections.namedtuple('Pair', 'j, k')
ijk_0 = (tf.constant(0), Pair(tf.constant(1), tf.constant(2)))
c = lambda i, p: i < 10
b = lambda i, p: (i + 1, Pair((p.j + p.k), (p.j - p.k)))
ijk_final = tf.while_loop(c, b, ijk_0)
print(ijk_final[0].numpy(), type(ijk_final[1]).__name__)

@tf.function
def grow():
    i0 = tf.constant(0)
    m0 = tf.ones([2, 2])
    c = lambda i, m: i < 10
    b = lambda i, m: [i + 1, tf.concat([m, m], axis=0)]
    return tf.while_loop(c, b, loop_vars=[i0, m0],
                         shape_invariants=[i0.get_shape(), tf.TensorShape([None, 2])])

i, m = grow()
print(i.numpy(), m.shape)

@tf.function
def capped():
    return tf.while_loop(lambda k: True, lambda k: k + 1, tf.constant(0), maximum_iterations=7)

print(capped())

@tf.function
def no_invariant():
    m0 = tf.ones([2, 2])
    return tf.while_loop(lambda m: True, lambda m: tf.concat([m, m], axis=0), [m0],
                         maximum_iterations=3)

try:
    no_invariant()
except ValueError as e:
    print("ValueError:", e)

# expect-output:
# [<tf.Tensor: shape=(), dtype=int32, numpy=10>]
# 10 Pair
# 10 (2048, 2)
# tf.Tensor(7, shape=(), dtype=int32)
# ValueError: Input tensor 'ones:0' enters the loop with shape (2, 2), but has shape (4, 2) after one iteration. To allow the shape to vary across iterations, use the `shape_invariants` argument of tf.while_loop to specify a less-specific shape.
