# Tensor.set_shape: an eager tensor's shape is only checked (ValueError "Tensor's shape ... is not
# compatible with supplied shape ...", the supplied shape as given: ops.py's EagerTensor); a traced
# tensor's static shape is merged with the one given (what later ops infer grows), and a conflict
# is shape inference's InvalidArgument text raised as ValueError (tensor.py's Tensor.set_shape,
# shape_inference.cc's Merge texts).
import tensorflow as tf
t = tf.constant([1, 2])
t.set_shape([2]); t.set_shape([None]); t.set_shape(None)
try:
  t.set_shape([3])
except ValueError as e:
  print(e)
try:
  t.set_shape([2, 1])
except ValueError as e:
  print(e)
@tf.function(input_signature=[tf.TensorSpec(None, tf.float32)])
def f(x):
  print(x.shape)
  x.set_shape([None, 3])
  print(x.shape)
  x.set_shape([4, None])
  print(x.shape)
  try:
    x.set_shape([4, 2])
  except ValueError as e:
    print(e)
  try:
    x.set_shape([4])
  except ValueError as e:
    print(e)
  return x
f.get_concrete_function()
# expect-output:
# Tensor's shape (2,) is not compatible with supplied shape [3].
# Tensor's shape (2,) is not compatible with supplied shape [2, 1].
# <unknown>
# (None, 3)
# (4, 3)
# Dimension 1 in both shapes must be equal, but are 3 and 2. Shapes are [4,3] and [4,2].
# Shapes must be equal rank, but are 2 and 1
