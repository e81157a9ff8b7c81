# https://www.tensorflow.org/guide/autodiff — "4. Took gradients through a stateful object":
# a Variable's assign_add stops the gradient; the tape only sees the state read afterwards.
# Output: the page's.
import tensorflow as tf

x0 = tf.Variable(3.0)
x1 = tf.Variable(0.0)

with tf.GradientTape() as tape:
  # Update x1 = x1 + x0.
  x1.assign_add(x0)
  # The tape starts recording from x1.
  y = x1**2   # y = (x1 + x0)**2

# This doesn't work.
print(tape.gradient(y, x0))   #dy/dx0 = 2*(x1 + x0)

# The value assigned is what y depends on: its gradient reaches x1.
print(tape.gradient is not None and x1.numpy())

# expect-output:
# None
# 3.0
