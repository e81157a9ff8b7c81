# https://www.tensorflow.org/guide/autodiff — "Gradient tapes": a Variable squared, then a
# (3, 2) kernel and a bias given to gradient() as a list and as a dict (the tape returns the
# gradients in the sources' structure, see tf.nest).
# Outputs: the page's. The kernel comes from tf.random.normal, so of grad['b'] (random on the
# page too) only the shape and dtype are printed here.
import tensorflow as tf

x = tf.Variable(3.0)

with tf.GradientTape() as tape:
  y = x**2

# dy = 2x * dx
dy_dx = tape.gradient(y, x)
print(dy_dx.numpy())

w = tf.Variable(tf.random.normal((3, 2)), name='w')
b = tf.Variable(tf.zeros(2, dtype=tf.float32), name='b')
x = [[1., 2., 3.]]

with tf.GradientTape(persistent=True) as tape:
  y = x @ w + b
  loss = tf.reduce_mean(y**2)

[dl_dw, dl_db] = tape.gradient(loss, [w, b])

print(w.shape)
print(dl_dw.shape)

my_vars = {
    'w': w,
    'b': b
}

grad = tape.gradient(loss, my_vars)
print(sorted(grad), grad['b'].shape, grad['b'].dtype)

# expect-output:
# 6.0
# (3, 2)
# (3, 2)
# ['b', 'w'] (2,) <dtype: 'float32'>
