# https://www.tensorflow.org/guide/advanced_autodiff — "Example: Input gradient regularization":
# the magnitude of an input gradient (inner tape, watch_accessed_variables=False), differentiated
# with respect to the layer's variables by the outer tape. Output: the page's.
# tf.norm is not in Trellis yet: the magnitude is its formula, sqrt(sum(g1**2)).
import tensorflow as tf

x = tf.random.normal([7, 5])

layer = tf.keras.layers.Dense(10, activation=tf.nn.relu)

with tf.GradientTape() as t2:
  # The inner tape only takes the gradient with respect to the input,
  # not the variables.
  with tf.GradientTape(watch_accessed_variables=False) as t1:
    t1.watch(x)
    y = layer(x)
    out = tf.reduce_sum(layer(x)**2)
  # 1. Calculate the input gradient.
  g1 = t1.gradient(out, x)
  # 2. Calculate the magnitude of the input gradient.
  g1_mag = tf.sqrt(tf.reduce_sum(g1 * g1))  # tf.norm(g1)

# 3. Calculate the gradient of the magnitude with respect to the model.
dg1_mag = t2.gradient(g1_mag, layer.trainable_variables)

print([var.shape for var in dg1_mag])

# expect-output:
# [TensorShape([5, 10]), TensorShape([10])]
