# A Variable converts like the tensor it holds: float(), int(), indexing with it, abs().
import tensorflow as tf

v = tf.Variable(2.5)
print(float(v), int(v), abs(tf.Variable(-4)))
n = tf.Variable(2)
print([10, 20, 30][n], list(range(5))[n:])
try:
    float(tf.Variable([1.0, 2.0]))
except TypeError as e:
    print("TypeError:", e)
# expect-output:
# 2.5 2 tf.Tensor(4, shape=(), dtype=int32)
# 30 [2, 3, 4]
# TypeError: only size-1 arrays can be converted to Python scalars
