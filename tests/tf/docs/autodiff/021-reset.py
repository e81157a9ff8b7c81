# https://www.tensorflow.org/guide/advanced_autodiff — "Reset/start recording from scratch":
# reset() throws away what the tape recorded so far. Output: the page's.
import tensorflow as tf

x = tf.Variable(2.0)
y = tf.Variable(3.0)
reset = True

with tf.GradientTape() as t:
  y_sq = y * y
  if reset:
    # Throw out all the tape recorded so far.
    t.reset()
  z = x * x + y_sq

grad = t.gradient(z, {'x': x, 'y': y})

print('dz/dx:', grad['x'])  # 2*x => 4
print('dz/dy:', grad['y'])

# expect-output:
# dz/dx: tf.Tensor(4.0, shape=(), dtype=float32)
# dz/dy: None
