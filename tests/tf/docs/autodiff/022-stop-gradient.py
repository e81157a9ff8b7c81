# https://www.tensorflow.org/guide/advanced_autodiff — "Stop gradient flow with precision":
# tf.stop_gradient blocks one path only. Output: the page's. Then what tf.stop_gradient's API
# page says: the value passes unchanged, its op is "StopGradient", and inside a tf.function the
# gradient stops there too.
import tensorflow as tf

x = tf.Variable(2.0)
y = tf.Variable(3.0)

with tf.GradientTape() as t:
  y_sq = y**2
  z = x**2 + tf.stop_gradient(y_sq)

grad = t.gradient(z, {'x': x, 'y': y})

print('dz/dx:', grad['x'])  # 2*x => 4
print('dz/dy:', grad['y'])

print(tf.stop_gradient([1.0, 2.0]))

@tf.function
def f(a):
  with tf.GradientTape() as tape:
    tape.watch(a)
    b = a * a + tf.stop_gradient(a * a * a)
  return b, tape.gradient(b, a)

print(f(tf.constant(2.0)))
print([n.op for n in f.get_concrete_function(tf.constant(2.0)).graph.as_graph_def().node
       if n.op == "StopGradient"])

# An eager tape over a call of that function: the stopped path gives nothing either.
@tf.function
def g(a):
  return a * a + tf.stop_gradient(a * a * a)

c = tf.constant(2.0)
with tf.GradientTape() as tape:
  tape.watch(c)
  out = g(c)
print(tape.gradient(out, c))

# expect-output:
# dz/dx: tf.Tensor(4.0, shape=(), dtype=float32)
# dz/dy: None
# tf.Tensor([1. 2.], shape=(2,), dtype=float32)
# (<tf.Tensor: shape=(), dtype=float32, numpy=12.0>, <tf.Tensor: shape=(), dtype=float32, numpy=4.0>)
# ['StopGradient']
# tf.Tensor(4.0, shape=(), dtype=float32)
