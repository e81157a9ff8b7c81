# https://www.tensorflow.org/guide/advanced_autodiff — "Batch Jacobian": the full jacobian of a
# (batch, outs) target with respect to a (batch, ins) source is (batch, outs, batch, ins), every
# (batch, batch) slice diagonal; batch_jacobian gives the (batch, outs, ins) diagonal directly.
# Outputs: the page's shapes; its error value is random, printed here as below 1e-3.
# The page's layers use tf.nn.elu, and it takes the diagonal with tf.einsum; Trellis lacks both
# yet: the layers use tf.math.tanh (as smooth, and independent per example, which is what the
# example needs), and the diagonal is gathered per example with Python indexing.
import tensorflow as tf

x = tf.random.normal([7, 5])

layer1 = tf.keras.layers.Dense(8, activation=tf.math.tanh)
layer2 = tf.keras.layers.Dense(6, activation=tf.math.tanh)

with tf.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
  tape.watch(x)
  y = layer1(x)
  y = layer2(y)

print(y.shape)

j = tape.jacobian(y, x)
print(j.shape)

j_sum = tf.reduce_sum(j, axis=2)
print(j_sum.shape)
j_select = tf.stack([j[b, :, b, :] for b in range(7)])  # tf.einsum('bxby->bxy', j)
print(j_select.shape)

# Off the diagonal every (batch, batch) slice is zero.
print(bool(tf.reduce_max(abs(j_sum - j_select)) < 1e-6))

jb = tape.batch_jacobian(y, x)
print(jb.shape)

error = tf.reduce_max(abs(jb - j_sum))
assert error < 1e-3
print(bool(error < 1e-3))

# expect-output:
# (7, 6)
# (7, 6, 7, 5)
# (7, 6, 5)
# (7, 6, 5)
# True
# (7, 6, 5)
# True
