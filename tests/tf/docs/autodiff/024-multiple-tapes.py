# https://www.tensorflow.org/guide/advanced_autodiff — "Multiple tapes": each tape watches a
# different tensor. Outputs: the page's (its comments: cos(0) = 1.0, sigmoid'(0) = 0.25).
import tensorflow as tf

x0 = tf.constant(0.0)
x1 = tf.constant(0.0)

with tf.GradientTape() as tape0, tf.GradientTape() as tape1:
  tape0.watch(x0)
  tape1.watch(x1)

  y0 = tf.math.sin(x0)
  y1 = tf.nn.sigmoid(x1)

  y = y0 + y1

  ys = tf.reduce_sum(y)

print(tape0.gradient(ys, x0).numpy())   # cos(x) => 1.0
print(tape1.gradient(ys, x1).numpy())   # sigmoid(x1)*(1-sigmoid(x1)) => 0.25

# expect-output:
# 1.0
# 0.25
