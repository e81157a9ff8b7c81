# tf.GradientTape's docstring (https://www.tensorflow.org/api_docs/python/tf/GradientTape): y = x*x
# at 3.0, a persistent tape asked twice, and watch_accessed_variables=False with a persistent
# tape: only the watched Variable gets a gradient. Outputs: the docstring's. Also: watch() takes
# a structure (tf.nest), watched_variables() lists the watched Variables in order, and watch()
# of something that is no tensor is a ValueError (the text of TensorFlow's current source).
import tensorflow as tf

x = tf.constant(3.0)
with tf.GradientTape() as g:
  g.watch(x)
  y = x * x
dy_dx = g.gradient(y, x)
print(dy_dx)

x = tf.constant(3.0)
with tf.GradientTape(persistent=True) as g:
  g.watch(x)
  y = x * x
  z = y * y
dz_dx = g.gradient(z, x)  # (4*x^3 at x = 3)
print(dz_dx)
dy_dx = g.gradient(y, x)
print(dy_dx)

x = tf.Variable(2.0)
w = tf.Variable(5.0)
with tf.GradientTape(
    watch_accessed_variables=False, persistent=True) as tape:
  tape.watch(x)
  y = x ** 2  # Gradients will be available for `x`.
  z = w ** 3  # No gradients will be available as `w` isn't being watched.
dy_dx = tape.gradient(y, x)
print(dy_dx)
# No gradients will be available as `w` isn't being watched.
dz_dy = tape.gradient(z, w)
print(dz_dy)
print([v.numpy() for v in tape.watched_variables()])

a = tf.constant(1.0)
b = tf.constant(2.0)
with tf.GradientTape() as tape:
  tape.watch({'a': a, 'pair': (b, x)})
  s = a * b * x
print(tape.gradient(s, {'a': a, 'b': b}))

with tf.GradientTape() as tape:
  try:
    tape.watch([a, 3.0])
  except ValueError as e:
    print('ValueError:', e)

# expect-output:
# tf.Tensor(6.0, shape=(), dtype=float32)
# tf.Tensor(108.0, shape=(), dtype=float32)
# tf.Tensor(6.0, shape=(), dtype=float32)
# tf.Tensor(4.0, shape=(), dtype=float32)
# None
# [2.0]
# {'a': <tf.Tensor: shape=(), dtype=float32, numpy=4.0>, 'b': <tf.Tensor: shape=(), dtype=float32, numpy=2.0>}
# ValueError: Passed in object 3.0 of type 'float', not tf.Tensor or tf.Variable or ExtensionType.
