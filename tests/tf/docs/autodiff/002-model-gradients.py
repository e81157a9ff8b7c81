# https://www.tensorflow.org/guide/autodiff — "Gradients with respect to a model": the gradient
# of a loss with respect to every trainable variable of a Keras layer.
# Output: the page's (its names are Keras 2's, "dense/kernel:0").
import tensorflow as tf

layer = tf.keras.layers.Dense(2, activation='relu')
x = tf.constant([[1., 2., 3.]])

with tf.GradientTape() as tape:
  # Forward pass
  y = layer(x)
  loss = tf.reduce_mean(y**2)

# Calculate gradients with respect to every trainable variable
grad = tape.gradient(loss, layer.trainable_variables)

for var, g in zip(layer.trainable_variables, grad):
  print(f'{var.name}, shape: {g.shape}')

# expect-output:
# dense/kernel:0, shape: (3, 2)
# dense/bias:0, shape: (2,)
