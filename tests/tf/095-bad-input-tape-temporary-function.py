# A tape keeps what it needs of a tf.function it recorded a call of: the Function may be gone
# when the gradient is computed.
import gc

import tensorflow as tf

x = tf.constant(3.0)
with tf.GradientTape(persistent=True) as tape:
  tape.watch(x)
  y = tf.function(lambda a: a * a)(x)
  z = tf.function(lambda a: a * a * a)(x)
gc.collect()
print(tape.gradient(y, x))
print(tape.gradient(z, x))

# expect-output:
# tf.Tensor(6.0, shape=(), dtype=float32)
# tf.Tensor(27.0, shape=(), dtype=float32)
