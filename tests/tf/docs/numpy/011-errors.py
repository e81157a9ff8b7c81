# https://www.tensorflow.org/guide/tf_numpy, section "Type promotion": "By default, TensorFlow
# raises errors instead of promoting types for mixed type operations" (before
# experimental_enable_numpy_behavior(), operators keep TensorFlow's rule, while tnp's functions
# always promote). tnp.clip's error is np_math_ops.clip's text; the operator's is the AddV2
# kernel's (as tests/tf's operator programs print it).
import tensorflow as tf
import tensorflow.experimental.numpy as tnp

print(tnp.add(tf.ones([], tf.int32), tf.ones([], tf.float32)))
try:
  tf.ones([], tf.int32) + tf.ones([], tf.float32)
except tf.errors.InvalidArgumentError as e:
  print(type(e).__name__)
try:
  tnp.clip(tnp.arange(3), None, None)
except ValueError as e:
  print("ValueError:", e)
tnp.experimental_enable_numpy_behavior()
print(tf.ones([], tf.int32) + tf.ones([], tf.float32))

# expect-output:
# tf.Tensor(2.0, shape=(), dtype=float64)
# InvalidArgumentError
# ValueError: Not more than one of `a_min` and `a_max` may be `None`.
# tf.Tensor(2.0, shape=(), dtype=float64)
