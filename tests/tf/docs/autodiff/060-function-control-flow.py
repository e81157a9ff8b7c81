# https://www.tensorflow.org/guide/autodiff — "Control flow", inside a tf.function: AutoGraph
# turns `if` and `while` on tensors into graph conditionals and loops, and the gradient flows
# through the branch and the iterations that ran (https://www.tensorflow.org/guide/function,
# "AutoGraph transformations"). The values are the guide's (dv0 = 1.0 when x > 0, the branch's
# v1**2 gives 2*v1 = 4.0 otherwise) and the loop's derivative, 3*x**2 for x*x*x.
import tensorflow as tf

v0 = tf.Variable(2.0)
v1 = tf.Variable(2.0)

@tf.function
def branch_grads(x):
  with tf.GradientTape() as tape:
    if x > 0.0:
      result = v0 * 1.0
    else:
      result = v1**2
  return tape.gradient(result, [v0, v1], unconnected_gradients='zero')

print(branch_grads(tf.constant(1.0)))
print(branch_grads(tf.constant(-1.0)))

@tf.function
def power_grad(x, n):
  with tf.GradientTape() as tape:
    tape.watch(x)
    r = tf.ones_like(x)
    i = tf.constant(0)
    while i < n:
      r = r * x
      i += 1
  return tape.gradient(r, x)

print(power_grad(tf.constant(2.0), tf.constant(3)))
print(power_grad.experimental_get_tracing_count())

# An eager tape over a call: the same gradients.
x = tf.constant(2.0)

@tf.function
def cube(x):
  r = x
  for _ in tf.range(2):
    r = r * x
  return r

with tf.GradientTape() as tape:
  tape.watch(x)
  y = cube(x)
print(tape.gradient(y, x))

# expect-output:
# [<tf.Tensor: shape=(), dtype=float32, numpy=1.0>, <tf.Tensor: shape=(), dtype=float32, numpy=0.0>]
# [<tf.Tensor: shape=(), dtype=float32, numpy=0.0>, <tf.Tensor: shape=(), dtype=float32, numpy=4.0>]
# tf.Tensor(12.0, shape=(), dtype=float32)
# 1
# tf.Tensor(12.0, shape=(), dtype=float32)
