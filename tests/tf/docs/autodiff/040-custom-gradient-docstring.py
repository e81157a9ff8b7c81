# tf.custom_gradient's docstring (https://www.tensorflow.org/api_docs/python/tf/custom_gradient):
# log1pexp, whose plain gradient at x = 100 is NaN and whose custom one is 1.0 (the docstring's
# text); bar(x, y) with one gradient per argument; linear_poly reading a Variable, whose grad_fn
# takes `variables=` and returns their gradients too. Outputs: the docstring's.
import tensorflow as tf

def log1pexp_plain(x):
  return tf.math.log(1 + tf.exp(x))

@tf.custom_gradient
def log1pexp(x):
  e = tf.exp(x)
  def grad(upstream):
    return upstream * (1 - 1 / (1 + e))
  return tf.math.log(1 + e), grad

x = tf.constant(100.)
with tf.GradientTape(persistent=True) as tape:
  tape.watch(x)
  y_plain = log1pexp_plain(x)
  y = log1pexp(x)
print(tape.gradient(y_plain, x).numpy(), tape.gradient(y, x).numpy())

@tf.custom_gradient
def bar(x, y):
  def grad(upstream):
    dz_dx = y
    dz_dy = x
    return upstream * dz_dx, upstream * dz_dy
  z = x * y
  return z, grad

x = tf.constant(2.0, dtype=tf.float32)
y = tf.constant(3.0, dtype=tf.float32)
with tf.GradientTape(persistent=True) as tape:
  tape.watch(x)
  tape.watch(y)
  z = bar(x, y)
print(repr(z))
print(repr(tape.gradient(z, x)))
print(repr(tape.gradient(z, y)))

weights = tf.Variable(tf.ones([2]))  # Trainable variable weights
@tf.custom_gradient
def linear_poly(x):
  # Creating polynomial
  poly = weights[1] * x + weights[0]

  def grad_fn(dpoly, variables):
    # dy/dx = weights[1] and we need to left multiply dpoly
    grad_xs = dpoly * weights[1]  # Scalar gradient

    grad_vars = []  # To store gradients of passed variables
    assert variables is not None
    assert len(variables) == 1
    assert variables[0] is weights
    # Manually computing dy/dweights
    dy_dw = dpoly * tf.stack([x ** 1, x ** 0])
    grad_vars.append(
        tf.reduce_sum(tf.reshape(dy_dw, [2, -1]), axis=1)
    )
    return grad_xs, grad_vars
  return poly, grad_fn

x = tf.constant([1., 2., 3.])
with tf.GradientTape(persistent=True) as tape:
  tape.watch(x)
  poly = linear_poly(x)
print(repr(poly)) # poly = x + 1
print(repr(tape.gradient(poly, x)))  # conventional scalar gradient dy/dx
print(repr(tape.gradient(poly, weights)))

# expect-output:
# nan 1.0
# <tf.Tensor: shape=(), dtype=float32, numpy=6.0>
# <tf.Tensor: shape=(), dtype=float32, numpy=3.0>
# <tf.Tensor: shape=(), dtype=float32, numpy=2.0>
# <tf.Tensor: shape=(3,), dtype=float32, numpy=array([2., 3., 4.], dtype=float32)>
# <tf.Tensor: shape=(3,), dtype=float32, numpy=array([1., 1., 1.], dtype=float32)>
# <tf.Tensor: shape=(2,), dtype=float32, numpy=array([6., 3.], dtype=float32)>
