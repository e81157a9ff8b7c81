# https://www.tensorflow.org/guide/tensor, "Ragged Tensors": a nested list with rows of
# different lengths is no tf.Tensor (tf.constant's ValueError, constant_op.py's text) but a
# tf.RaggedTensor made by tf.ragged.constant, printed by RaggedTensor.__repr__ and shaped
# (4, None). The notebook stores no outputs: they follow from those sources.
import tensorflow as tf

ragged_list = [
    [0, 1, 2, 3],
    [4, 5],
    [6, 7, 8],
    [9]]

try:
  tensor = tf.constant(ragged_list)
except Exception as e:
  print(f"{type(e).__name__}: {e}")

ragged_tensor = tf.ragged.constant(ragged_list)
print(ragged_tensor)

print(ragged_tensor.shape)
print(repr(ragged_tensor.shape))
print(type(ragged_tensor).__name__, isinstance(ragged_tensor, tf.RaggedTensor),
      tf.RaggedTensor is tf.ragged.RaggedTensor)
print(ragged_tensor.dtype, ragged_tensor.ragged_rank)

# expect-output:
# ValueError: Can't convert non-rectangular Python sequence to Tensor.
# <tf.RaggedTensor [[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]]>
# (4, None)
# TensorShape([4, None])
# RaggedTensor True True
# <dtype: 'int32'> 1
