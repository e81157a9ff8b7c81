# https://www.tensorflow.org/guide/autodiff — "Controlling what the tape watches", with
# watch_accessed_variables=False: only the variable watched explicitly gets a gradient.
# The page's example uses tf.nn.softplus, which Trellis lacks yet; here y1 is its formula,
# log(1 + exp(x1)), whose derivative is the same sigmoid(x1); its float32 rounding differs in the
# last digit, so the value is printed with the 7 decimals the page shows. Outputs: the page's.
import tensorflow as tf

x0 = tf.Variable(0.0)
x1 = tf.Variable(10.0)

with tf.GradientTape(watch_accessed_variables=False) as tape:
  tape.watch(x1)
  y0 = tf.math.sin(x0)
  y1 = tf.math.log(1.0 + tf.math.exp(x1))  # tf.nn.softplus(x1)
  y = y0 + y1
  ys = tf.reduce_sum(y)

# dys/dx1 = exp(x1) / (1 + exp(x1)) = sigmoid(x1)
grad = tape.gradient(ys, {'x0': x0, 'x1': x1})

print('dy/dx0:', grad['x0'])
print('dy/dx1:', f"{grad['x1'].numpy():.7f}")  # the page: grad['x1'].numpy()
print([v.numpy() for v in tape.watched_variables()])

# expect-output:
# dy/dx0: None
# dy/dx1: 0.9999546
# [10.0]
