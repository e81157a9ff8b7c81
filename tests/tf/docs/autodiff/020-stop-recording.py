# https://www.tensorflow.org/guide/advanced_autodiff — "Controlling gradient recording", "Stop
# recording": ops inside stop_recording() are not recorded. Output: the page's (its comment
# gives dz/dx = 4; dz/dy is None). Then the example of GradientTape.stop_recording's docstring.
import tensorflow as tf

x = tf.Variable(2.0)
y = tf.Variable(3.0)

with tf.GradientTape() as t:
  x_sq = x * x
  with t.stop_recording():
    y_sq = y * y
  z = x_sq + y_sq

grad = t.gradient(z, {'x': x, 'y': y})

print('dz/dx:', grad['x'])  # 2*x => 4
print('dz/dy:', grad['y'])

x = tf.constant(4.0)
with tf.GradientTape() as tape:
  with tape.stop_recording():
    y = x ** 2
dy_dx = tape.gradient(y, x)
print(dy_dx)

# expect-output:
# dz/dx: tf.Tensor(4.0, shape=(), dtype=float32)
# dz/dy: None
# None
