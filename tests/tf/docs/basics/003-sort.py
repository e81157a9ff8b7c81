# https://www.tensorflow.org/api_docs/python/tf/sort and tf/argsort, the docstrings' examples
# (outputs from the pages); the direction error is the text of TF's sort_ops.py.
import tensorflow as tf

a = [1, 10, 26.9, 2.8, 166.32, 62.3]
print(repr(tf.sort(a).numpy()))
print(repr(tf.sort(a, direction='DESCENDING').numpy()))

mat = [[3, 2, 1],
       [2, 1, 3],
       [1, 3, 2]]
print(repr(tf.sort(mat, axis=-1).numpy()))
print(repr(tf.sort(mat, axis=0).numpy()))

values = [1, 10, 26.9, 2.8, 166.32, 62.3]
sort_order = tf.argsort(values)
print(repr(sort_order.numpy()))
print(repr(tf.argsort(values, direction='DESCENDING').numpy()))
print(repr(tf.gather(values, sort_order).numpy()))

@tf.function
def top_first(x):
    return tf.sort(x, direction='DESCENDING'), tf.argsort(x, axis=0)

print(top_first(tf.constant(mat)))

try:
    tf.sort(a, direction='UP')
except ValueError as e:
    print("ValueError:", e)

# expect-output:
# array([  1.  ,   2.8 ,  10.  ,  26.9 ,  62.3 , 166.32], dtype=float32)
# array([166.32,  62.3 ,  26.9 ,  10.  ,   2.8 ,   1.  ], dtype=float32)
# array([[1, 2, 3],
#        [1, 2, 3],
#        [1, 2, 3]], dtype=int32)
# array([[1, 1, 1],
#        [2, 2, 2],
#        [3, 3, 3]], dtype=int32)
# array([0, 3, 1, 2, 5, 4], dtype=int32)
# array([4, 5, 2, 1, 3, 0], dtype=int32)
# array([  1.  ,   2.8 ,  10.  ,  26.9 ,  62.3 , 166.32], dtype=float32)
# (<tf.Tensor: shape=(3, 3), dtype=int32, numpy=
# array([[3, 2, 1],
#        [3, 2, 1],
#        [3, 2, 1]], dtype=int32)>, <tf.Tensor: shape=(3, 3), dtype=int32, numpy=
# array([[2, 1, 0],
#        [1, 0, 2],
#        [0, 2, 1]], dtype=int32)>)
# ValueError: Argument `direction` should be one of ASCENDING, DESCENDING. Received: direction=UP
