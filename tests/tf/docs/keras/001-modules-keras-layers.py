# https://www.tensorflow.org/guide/intro_to_modules, "Keras models and layers" > "Keras layers"
# and "The build step": a tf.Module turned into a Keras layer (call instead of __call__), and a
# layer that makes its variables in build() from the first input's shape. The guide initialises
# with tf.random.normal; here tf.ones, so that the results can be compared. The guide shows no
# outputs; the error text is Keras 2.15's (keras/utils/traceback_utils.py): the layer call that
# failed re-raises the op's error with the layer's name and the arguments it received.
import tensorflow as tf


class MyDense(tf.keras.layers.Layer):
  # Adding **kwargs to support base Keras layer arguments
  def __init__(self, in_features, out_features, **kwargs):
    super().__init__(**kwargs)

    # This will soon move to the build step; see below
    self.w = tf.Variable(tf.ones([in_features, out_features]), name='w')
    self.b = tf.Variable(tf.zeros([out_features]), name='b')
  def call(self, x):
    y = tf.matmul(x, self.w) + self.b
    return tf.nn.relu(y)

simple_layer = MyDense(name="simple", in_features=3, out_features=3)
print(simple_layer([[2.0, 2.0, 2.0]]))
print(simple_layer.name, [v.name for v in simple_layer.variables])
print(type(simple_layer.variables).__name__, isinstance(simple_layer, tf.Module))


class FlexibleDense(tf.keras.layers.Layer):
  # Note the added `**kwargs`, as Keras supports many arguments
  def __init__(self, out_features, **kwargs):
    super().__init__(**kwargs)
    self.out_features = out_features

  def build(self, input_shape):  # Create the state of the layer (weights)
    self.w = tf.Variable(
      tf.ones([input_shape[-1], self.out_features]), name='w')
    self.b = tf.Variable(tf.zeros([self.out_features]), name='b')

  def call(self, inputs):  # Defines the computation from inputs to outputs
    return tf.matmul(inputs, self.w) + self.b

# Create the instance of the layer
flexible_dense = FlexibleDense(out_features=3)
print(flexible_dense.variables)
print("Model results:", flexible_dense(tf.constant([[2.0, 2.0, 2.0], [3.0, 3.0, 3.0]])))
print([v.shape for v in flexible_dense.variables])

try:
  print("Model results:", flexible_dense(tf.constant([[2.0, 2.0, 2.0, 2.0]])))
except tf.errors.InvalidArgumentError as e:
  lines = str(e).split("\n")
  print("Failed:", lines[0])
  print("Matrix size-incompatible" in e.message)
  print("\n".join(lines[-2:]))

# expect-output:
# tf.Tensor([[6. 6. 6.]], shape=(1, 3), dtype=float32)
# simple ['w:0', 'b:0']
# list True
# []
# Model results: tf.Tensor(
# [[6. 6. 6.]
#  [9. 9. 9.]], shape=(2, 3), dtype=float32)
# [TensorShape([3, 3]), TensorShape([3])]
# Failed: Exception encountered when calling layer 'flexible_dense' (type FlexibleDense).
# True
# Call arguments received by layer 'flexible_dense' (type FlexibleDense):
#   • inputs=tf.Tensor(shape=(1, 4), dtype=float32)
