# A Reshape whose target is fully known but whose input is not ([None] here) checks the element
# count when the graph runs, as TensorFlow's kernel does; before, the traced output shape being
# known skipped the check and the result held whatever the buffer had.
# (The graph's number after __inference_ is Trellis's: Function id x 1000 + its trace count.)
import tensorflow as tf


@tf.function(input_signature=[tf.TensorSpec([None], tf.int32)])
def square(x):
  return tf.reshape(x, [2, 2])


print(square(tf.constant([0, 1, 2, 3])).numpy().tolist())
try:
  square(tf.constant([0, 1, 2]))
except tf.errors.InvalidArgumentError as e:
  print(type(e).__name__)
  print(e.message)
# expect-output:
# [[0, 1], [2, 3]]
# InvalidArgumentError
# Input to reshape is a tensor with 3 values, but the requested shape has 4
# 	 [[{{node Reshape}}]] [Op:__inference_square_1000]
