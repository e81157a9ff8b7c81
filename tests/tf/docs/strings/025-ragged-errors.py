# https://www.tensorflow.org/guide/ragged_tensor and the tf.RaggedTensor API page: what is no
# ragged tensor. Scalars at different depths (ragged_factory_ops.py's ValueError), the private
# constructor (ragged_tensor.py's ValueError), and an elementwise
# op on ragged tensors whose rows differ (InvalidArgumentError); texts from TensorFlow's source.
import tensorflow as tf

try:
    tf.ragged.constant([[1, 2], [3, [4]]])
except ValueError as e:
    print(type(e).__name__ + ":", e)

try:
    tf.RaggedTensor(values=[1, 2], row_splits=[0, 2])
except ValueError as e:
    print(type(e).__name__ + ":", e)

rt = tf.ragged.constant([[1, 2], [3]])
print(rt.shape, rt.ragged_rank, len(rt))
print(rt * 2)
try:
    rt + tf.ragged.constant([[1], [2, 3]])
except tf.errors.InvalidArgumentError as e:
    print(type(e).__name__)

# expect-output:
# ValueError: all scalar values must have the same nesting depth
# ValueError: RaggedTensor constructor is private; please use one of the factory methods instead (e.g., RaggedTensor.from_row_lengths())
# (2, None) 1 2
# <tf.RaggedTensor [[2, 4], [6]]>
# InvalidArgumentError
