# https://www.tensorflow.org/guide/advanced_autodiff — "Example: Hessian": the jacobian (outer
# tape) of a gradient (inner tape) with respect to a kernel. Outputs: the page's shapes; the
# Hessian's symmetry, which the page shows as an image, is printed as a check.
# The page's Newton step uses tf.linalg.solve, which Trellis lacks yet: it is left out; and
# Trellis cannot convert a TensorShape to a tensor yet: n_params takes its as_list().
import tensorflow as tf

x = tf.random.normal([7, 5])
layer1 = tf.keras.layers.Dense(8, activation=tf.nn.relu)
layer2 = tf.keras.layers.Dense(6, activation=tf.nn.relu)

with tf.GradientTape() as t2:
  with tf.GradientTape() as t1:
    x = layer1(x)
    x = layer2(x)
    loss = tf.reduce_mean(x**2)

  g = t1.gradient(loss, layer1.kernel)

h = t2.jacobian(g, layer1.kernel)

print(f'layer.kernel.shape: {layer1.kernel.shape}')
print(f'h.shape: {h.shape}')

n_params = tf.reduce_prod(layer1.kernel.shape.as_list())  # the page: tf.reduce_prod(layer1.kernel.shape)

g_vec = tf.reshape(g, [n_params, 1])
h_mat = tf.reshape(h, [n_params, n_params])
print(g_vec.shape, h_mat.shape)
print(bool(tf.reduce_max(abs(h_mat - tf.transpose(h_mat))) < 1e-5))

eps = 1e-3
eye_eps = tf.eye(h_mat.shape[0])*eps
print(eye_eps.shape)

# expect-output:
# layer.kernel.shape: (5, 8)
# h.shape: (5, 8, 5, 8)
# (40, 1) (40, 40)
# True
# (40, 40)
