# https://www.tensorflow.org/guide/advanced_autodiff — "Custom gradients": an identity whose
# gradient is clipped by tf.clip_by_norm. Output: the page's (its comment: "calls backward,
# which clips 4 to 2").
# tf.clip_by_norm is not in Trellis yet: this program defines it by its documented formula,
# t * clip_norm / max(l2norm(t), clip_norm).
import tensorflow as tf

def clip_by_norm(t, clip_norm):
  l2 = tf.sqrt(tf.reduce_sum(t * t))
  return t * clip_norm / tf.maximum(l2, clip_norm)

# Establish an identity operation, but clip during the gradient pass.
@tf.custom_gradient
def clip_gradients(y):
  def backward(dy):
    return clip_by_norm(dy, 0.5)
  return y, backward

v = tf.Variable(2.0)
with tf.GradientTape() as t:
  output = clip_gradients(v * v)
print(t.gradient(output, v))  # calls "backward", which clips 4 to 2

# The decorated function keeps the function's name and docstring (tf_decorator).
print(clip_gradients.__name__)

# expect-output:
# tf.Tensor(2.0, shape=(), dtype=float32)
# clip_gradients
