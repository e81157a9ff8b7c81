# Docstring of tf.keras.optimizers.SGD (Keras 2.15, keras/optimizers/sgd.py): one step of plain
# gradient descent, then momentum making later steps longer. The docstring's values are
# approximate (0.18 for 0.19 - 0.01), printed here rounded to the digits it shows.
import tensorflow as tf

opt = tf.keras.optimizers.SGD(learning_rate=0.1)
var = tf.Variable(1.0)
loss = lambda: (var ** 2)/2.0         # d(loss)/d(var1) = var1
opt.minimize(loss, [var])
# Step is `- learning_rate * grad`
print(round(float(var.numpy()), 6))

opt = tf.keras.optimizers.SGD(0.1, momentum=0.9)
var = tf.Variable(1.0)
val0 = var.value()
loss = lambda: (var ** 2)/2.0         # d(loss)/d(var1) = var1
# First step is `- learning_rate * grad`
opt.minimize(loss, [var])
val1 = var.value()
print(round(float((val0 - val1).numpy()), 6))
# On later steps, step-size increases because of momentum
opt.minimize(loss, [var])
val2 = var.value()
print(round(float((val1 - val2).numpy()), 2))
print(opt.iterations.numpy(), [v.name for v in opt.variables])

# expect-output:
# 0.9
# 0.1
# 0.18
# 2 ['iteration:0', 'm/Variable:0']
