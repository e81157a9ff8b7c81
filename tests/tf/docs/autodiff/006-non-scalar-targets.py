# https://www.tensorflow.org/guide/autodiff — "Gradients of non-scalar targets": several targets
# (a dict) and a vector target give the gradient of their sum; the elementwise sigmoid's
# gradient of the sum is its derivative at each point.
# Outputs: the page's (4.0, -0.25, 3.75, 7.0); the page plots the sigmoid curve, here its
# derivative is checked at x = 0 (0.25) and at the ends.
import tensorflow as tf

x = tf.Variable(2.0)
with tf.GradientTape(persistent=True) as tape:
  y0 = x**2
  y1 = 1 / x

print(tape.gradient(y0, x).numpy())
print(tape.gradient(y1, x).numpy())

x = tf.Variable(2.0)
with tf.GradientTape() as tape:
  y0 = x**2
  y1 = 1 / x

print(tape.gradient({'y0': y0, 'y1': y1}, x).numpy())

x = tf.Variable(2.)

with tf.GradientTape() as tape:
  y = x * [3., 4.]

print(tape.gradient(y, x).numpy())

x = tf.linspace(-10.0, 10.0, 200+1)

with tf.GradientTape() as tape:
  tape.watch(x)
  y = tf.nn.sigmoid(x)

dy_dx = tape.gradient(y, x)
print(dy_dx.shape, dy_dx[100].numpy(), bool(dy_dx[0] < 1e-4), bool(dy_dx[200] < 1e-4))

# expect-output:
# 4.0
# -0.25
# 3.75
# 7.0
# (201,) 0.25 True True
