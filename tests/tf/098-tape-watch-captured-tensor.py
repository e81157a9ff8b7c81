# A GradientTape inside a tf.function watching an eager tensor captured from outside: the ops
# read the graph's capture of it, and the tape differentiates with respect to that capture (as
# TensorFlow's tape does in a FuncGraph; the tf_numpy guide's compiled_compute_gradients relies
# on it). Before, the gradient was None. Unwatched, it stays None, as TensorFlow's.
import tensorflow as tf

w = tf.constant([1., 2.])


@tf.function
def watched(x):
  with tf.GradientTape() as tape:
    tape.watch(w)
    y = tf.reduce_sum(w * w * x)
  return tape.gradient(y, w)


@tf.function
def unwatched(x):
  with tf.GradientTape() as tape:
    y = tf.reduce_sum(w * x)
  return tape.gradient(y, w)


print(watched(tf.constant([3., 4.])))
print(unwatched(tf.constant([3., 4.])))
# expect-output:
# tf.Tensor([ 6. 16.], shape=(2,), dtype=float32)
# None
