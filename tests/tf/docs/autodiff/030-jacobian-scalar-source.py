# https://www.tensorflow.org/guide/advanced_autodiff — "Jacobians", "Scalar source": with respect
# to a scalar the jacobian has the target's shape. Outputs: the page's (it plots dy/dx; here its
# value at x = 0 is printed, sigmoid'(0) = 0.25, and the sum matches gradient()).
import tensorflow as tf

x = tf.linspace(-10.0, 10.0, 200+1)
delta = tf.Variable(0.0)

with tf.GradientTape(persistent=True) as tape:
  y = tf.nn.sigmoid(x+delta)

dy_dx = tape.jacobian(y, delta)

print(y.shape)
print(dy_dx.shape)
print(dy_dx[100].numpy())
print(bool(abs(tf.reduce_sum(dy_dx) - tape.gradient(y, delta)) < 1e-5))

# expect-output:
# (201,)
# (201,)
# 0.25
# True
