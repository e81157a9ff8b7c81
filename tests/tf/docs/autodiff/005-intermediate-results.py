# https://www.tensorflow.org/guide/autodiff — "Intermediate results": gradients with respect to
# a value computed inside the tape, and a persistent tape asked twice.
# Outputs: the page's (its comments give the values: 18, [4, 108], [2, 6]).
import tensorflow as tf

x = tf.constant(3.0)

with tf.GradientTape() as tape:
  tape.watch(x)
  y = x * x
  z = y * y

# Use the tape to compute the gradient of z with respect to the
# intermediate value y.
# dz_dy = 2 * y and y = x ** 2 = 9
print(tape.gradient(z, y).numpy())

x = tf.constant([1, 3.0])
with tf.GradientTape(persistent=True) as tape:
  tape.watch(x)
  y = x * x
  z = y * y

print(tape.gradient(z, x).numpy())  # [4.0, 108.0] (4 * x**3 at x = [1.0, 3.0])
print(tape.gradient(y, x).numpy())  # [2.0, 6.0] (2 * x at x = [1.0, 3.0])

del tape   # Drop the reference to the tape

# expect-output:
# 18.0
# [  4. 108.]
# [2. 6.]
