# https://www.tensorflow.org/guide/advanced_autodiff — "Jacobians", "Tensor source": the jacobian
# of a Dense layer's (7, 10) output with respect to its (5, 10) kernel has both shapes together;
# summed over the target's axes it is the gradient. Outputs: the page's shapes; its delta is
# random (on the page too), so the program prints that it is below the page's 1e-3.
import tensorflow as tf

x = tf.random.normal([7, 5])
layer = tf.keras.layers.Dense(10, activation=tf.nn.relu)

with tf.GradientTape(persistent=True) as tape:
  y = layer(x)

print(y.shape)
print(layer.kernel.shape)

j = tape.jacobian(y, layer.kernel)
print(j.shape)

g = tape.gradient(y, layer.kernel)
print('g.shape:', g.shape)

j_sum = tf.reduce_sum(j, axis=[0, 1])
delta = tf.reduce_max(abs(g - j_sum)).numpy()
assert delta < 1e-3
print('delta < 1e-3:', delta < 1e-3)

# expect-output:
# (7, 10)
# (5, 10)
# (7, 10, 5, 10)
# g.shape: (5, 10)
# delta < 1e-3: True
