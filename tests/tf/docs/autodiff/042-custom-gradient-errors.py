# tf.custom_gradient's errors, with the texts of tensorflow/python/ops/custom_gradient.py: a
# function reading a Variable whose grad_fn has no `variables` parameter; a grad_fn returning
# the wrong number of gradients, or no gradient for a variable. Also a gradient of None for an
# argument (that argument gets none), and a second-order gradient through a grad_fn that
# computes with ops the outer tape records.
import tensorflow as tf

w = tf.Variable(2.0)

@tf.custom_gradient
def scaled(x):
  def grad(dy):
    return dy * w
  return x * w, grad

x = tf.constant(3.0)
with tf.GradientTape() as tape:
  tape.watch(x)
  try:
    scaled(x)
  except TypeError as e:
    print('TypeError:', str(e).split(':')[0])

@tf.custom_gradient
def two_grads(x):
  def grad(dy):
    return dy, dy
  return x * 2.0, grad

with tf.GradientTape() as tape:
  tape.watch(x)
  y = two_grads(x)
try:
  tape.gradient(y, x)
except ValueError as e:
  print('ValueError:', e)

@tf.custom_gradient
def no_var_grads(x):
  def grad(dy, variables):
    return dy * w, []
  return x * w, grad

with tf.GradientTape() as tape:
  tape.watch(x)
  y = no_var_grads(x)
try:
  tape.gradient(y, x)
except ValueError as e:
  print('ValueError:', e)

@tf.custom_gradient
def only_first(a, b):
  def grad(dy):
    return dy * b, None
  return a * b, grad

a = tf.constant(2.0)
b = tf.constant(5.0)
with tf.GradientTape() as tape:
  tape.watch([a, b])
  y = only_first(a, b)
print(tape.gradient(y, [a, b]))

@tf.custom_gradient
def cube(x):
  def grad(dy):
    return dy * 3.0 * x * x
  return x * x * x, grad

with tf.GradientTape() as outer:
  outer.watch(x)
  with tf.GradientTape() as inner:
    inner.watch(x)
    y = cube(x)
  dy = inner.gradient(y, x)
print(dy, outer.gradient(dy, x))

# expect-output:
# TypeError: @tf.custom_gradient grad_fn must accept keyword argument 'variables', since function uses variables
# ValueError: custom_gradient function expected to return 1 gradients, but returned 2 instead.
# ValueError: Must return gradient for each variable from @custom_gradient grad_fn.
# [<tf.Tensor: shape=(), dtype=float32, numpy=5.0>, None]
# tf.Tensor(27.0, shape=(), dtype=float32) tf.Tensor(18.0, shape=(), dtype=float32)
