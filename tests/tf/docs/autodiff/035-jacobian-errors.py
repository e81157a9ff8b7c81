# tf.GradientTape.jacobian and batch_jacobian's errors, with the texts of their source
# (tensorflow/python/eager/backprop.py; TensorShape.with_rank_at_least for the rank): a
# non-persistent tape with experimental_use_pfor=False, ranks below 2, batch sizes that differ,
# and a second use of a non-persistent tape.
import tensorflow as tf

x = tf.constant([[1., 2.], [3., 4.]])

with tf.GradientTape() as g:
  g.watch(x)
  y = x * x
try:
  g.jacobian(y, x, experimental_use_pfor=False)
except RuntimeError as e:
  print('RuntimeError:', e)
try:
  g.batch_jacobian(y, x, experimental_use_pfor=False)
except RuntimeError as e:
  print('RuntimeError:', e)

v = tf.constant([1., 2.])
with tf.GradientTape(persistent=True) as g:
  g.watch([x, v])
  y = x * x
  w = v * v
  z = tf.concat([x, x], axis=0)
for target, source in [(w, x), (y, v), (z, x)]:
  try:
    g.batch_jacobian(target, source)
  except ValueError as e:
    print('ValueError:', e)

with tf.GradientTape() as g:
  g.watch(v)
  w = v * v
print(g.jacobian(w, v))
try:
  g.jacobian(w, v)
except RuntimeError as e:
  print('RuntimeError:', e)
try:
  g.gradient(w, v)
except RuntimeError as e:
  print('RuntimeError:', e)

# expect-output:
# RuntimeError: GradientTape must be created with persistent=True to compute the jacobian with eager execution enabled and with  experimental_use_pfor set to False.
# RuntimeError: GradientTape must be created with persistent=True to compute the batch_jacobian with eager execution enabled and  with experimental_use_pfor set to False.
# ValueError: Shape (2,) must have rank at least 2
# ValueError: Shape (2,) must have rank at least 2
# ValueError: Need first dimension of target shape ((4, 2)) and source shape ((2, 2)) to match.
# tf.Tensor(
# [[2. 0.]
#  [0. 4.]], shape=(2, 2), dtype=float32)
# RuntimeError: A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)
# RuntimeError: A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)
