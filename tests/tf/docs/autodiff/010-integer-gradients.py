# https://www.tensorflow.org/guide/autodiff — "3. Took gradients through an integer or string":
# an int32 tensor gets no gradient; TensorFlow's logger warns when it is watched, and when it is
# the target and the source of gradient().
# Output and warnings: the page's (the warnings are TensorFlow's logger lines on stderr; their
# texts are also in tensorflow/python/eager/backprop.py). The watched-tensor warning is logged at
# most five times (logging.log_first_n(..., 5)): the sixth watch below prints nothing more.
import tensorflow as tf

x = tf.constant(10)

with tf.GradientTape() as g:
  g.watch(x)
  y = x * x

print(g.gradient(y, x))

s = tf.constant("text")
with tf.GradientTape() as g:
  for _ in range(5):
    g.watch(s)
print(g.gradient(s, s))

# expect-output:
# None
# None
# expect-stderr:
# WARNING:tensorflow:The dtype of the watched tensor must be floating (e.g. tf.float32), got tf.int32
# WARNING:tensorflow:The dtype of the target tensor must be floating (e.g. tf.float32) when calling GradientTape.gradient, got tf.int32
# WARNING:tensorflow:The dtype of the source tensor must be floating (e.g. tf.float32) when calling GradientTape.gradient, got tf.int32
# WARNING:tensorflow:The dtype of the watched tensor must be floating (e.g. tf.float32), got tf.string
# WARNING:tensorflow:The dtype of the watched tensor must be floating (e.g. tf.float32), got tf.string
# WARNING:tensorflow:The dtype of the watched tensor must be floating (e.g. tf.float32), got tf.string
# WARNING:tensorflow:The dtype of the watched tensor must be floating (e.g. tf.float32), got tf.string
# WARNING:tensorflow:The dtype of the target tensor must be floating (e.g. tf.float32) when calling GradientTape.gradient, got tf.string
# WARNING:tensorflow:The dtype of the source tensor must be floating (e.g. tf.float32) when calling GradientTape.gradient, got tf.string
