# https://www.tensorflow.org/api_docs/python/tf/map_fn: the docstring's examples (outputs from
# the page), eagerly and inside a tf.function, where the loop is a While node over
# TensorArrays.
import tensorflow as tf

print(repr(tf.map_fn(fn=lambda t: tf.range(t, t + 3), elems=tf.constant([3, 5, 2]))))

elems = (tf.constant([1, 2, 3]), tf.constant([-1, 1, -1]))
print(repr(tf.map_fn(fn=lambda t: t[0] * t[1], elems=elems, fn_output_signature=tf.int32)))

print(repr(tf.map_fn(fn=lambda x: tf.cast(x, tf.float32) * 0.5, elems=tf.constant([2, 4]),
                     fn_output_signature=tf.float32)))

@tf.function
def squares(v):
    return tf.map_fn(lambda t: t * t, v)

print(squares(tf.constant([1.0, 2.0, 3.0])))

try:
    tf.map_fn(3, tf.constant([1]))
except TypeError as e:
    print("TypeError:", e)

# expect-output:
# <tf.Tensor: shape=(3, 3), dtype=int32, numpy=
# array([[3, 4, 5],
#        [5, 6, 7],
#        [2, 3, 4]], dtype=int32)>
# <tf.Tensor: shape=(3,), dtype=int32, numpy=array([-1,  2, -3], dtype=int32)>
# <tf.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>
# tf.Tensor([1. 4. 9.], shape=(3,), dtype=float32)
# TypeError: The provided function 3 is not callable. fn must be callable.
