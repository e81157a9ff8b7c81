# padded_batch's errors, with the texts of TensorFlow 2.15's padded_batch_op.py: a component of
# unknown rank needs padded_shapes; a padded shape smaller than the component's; a padding
# value that is not a scalar, or of another dtype; an element longer than its padded shape
# (the PaddedBatchDatasetV2 kernel's InvalidArgumentError, at iteration).
# https://www.tensorflow.org/api_docs/python/tf/data/Dataset#padded_batch
import tensorflow as tf

unknown = tf.data.Dataset.from_generator(lambda: [[1], [2, 3]], tf.int32)
try:
  unknown.padded_batch(2)
except ValueError as e:
  print("ValueError:", e)
print(list(unknown.padded_batch(2, padded_shapes=[None]).as_numpy_iterator()))

fixed = tf.data.Dataset.from_tensors([1, 2, 3])
try:
  fixed.padded_batch(2, padded_shapes=[2])
except ValueError as e:
  print("ValueError:", e)
try:
  fixed.padded_batch(2, padding_values=[0, 0])
except ValueError as e:
  print("ValueError:", e)
try:
  fixed.padded_batch(2, padding_values=1.5)
except TypeError as e:
  print("TypeError:", e)

long = tf.data.Dataset.from_generator(lambda: [[1], [2, 3, 4]], tf.int32, output_shapes=[None])
try:
  list(long.padded_batch(2, padded_shapes=[2]))
except tf.errors.InvalidArgumentError as e:
  print("InvalidArgumentError:", e)

# expect-output:
# ValueError: You must provide `padded_shapes` argument because component 0 has unknown rank.
# [array([[1, 0],
#        [2, 3]], dtype=int32)]
# ValueError: The padded shape (2,) is not compatible with the shape (3,) of the corresponding input component.
# ValueError: Invalid `padding_values`. `padding_values` values should be scalars, but got (2,).
# TypeError: Invalid `padding_values`. `padding_values` values type <dtype: 'float32'> does not match type <dtype: 'int32'> of the corresponding input component.
# InvalidArgumentError: Attempted to pad to a smaller size than the input element.
