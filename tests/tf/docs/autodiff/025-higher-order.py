# https://www.tensorflow.org/guide/advanced_autodiff — "Higher-order gradients": a gradient
# computed inside an outer tape is recorded by it. Outputs: the page's (3.0 and 6.0). Then the
# nested-tape example of tf.GradientTape's docstring (10.0 and 2.0).
import tensorflow as tf

x = tf.Variable(1.0)  # Create a Tensorflow variable initialized to 1.0

with tf.GradientTape() as t2:
  with tf.GradientTape() as t1:
    y = x * x * x

  # Compute the gradient inside the outer `t2` context manager
  # which means the gradient computation is differentiable as well.
  dy_dx = t1.gradient(y, x)
d2y_dx2 = t2.gradient(dy_dx, x)

print('dy_dx:', dy_dx.numpy())  # 3 * x**2 => 3.0
print('d2y_dx2:', d2y_dx2.numpy())  # 6 * x => 6.0

x = tf.constant(5.0)
with tf.GradientTape() as g:
  g.watch(x)
  with tf.GradientTape() as gg:
    gg.watch(x)
    y = x * x
  dy_dx = gg.gradient(y, x)  # dy_dx = 2 * x
d2y_dx2 = g.gradient(dy_dx, x)  # d2y_dx2 = 2
print(dy_dx)
print(d2y_dx2)

# expect-output:
# dy_dx: 3.0
# d2y_dx2: 6.0
# tf.Tensor(10.0, shape=(), dtype=float32)
# tf.Tensor(2.0, shape=(), dtype=float32)
