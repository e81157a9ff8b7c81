# https://www.tensorflow.org/guide/intro_to_modules, "Keras layers" and "Keras models": variable
# names as the page prints them, each made in its layer's name scope ('flexible_dense/w:0'),
# nested in the model's for layers first built inside the model's call
# ('my_sequential_model/flexible_dense_1/w:0'; the model is 'my_sequential_model' because its
# __init__ keeps `name` from super().__init__), while the functional model's layers are built at
# construction, outside any model scope (flexible_dense_3 and _4, as the page's summary names
# them). Keras 2's Layer._name_scope is absolute (a trailing '/'), so a second call reuses the
# scope; it starts from the current tf.name_scope ('outer/dense/kernel:0').
import tensorflow as tf


class FlexibleDense(tf.keras.layers.Layer):
  # Note the added `**kwargs`, as Keras supports many arguments
  def __init__(self, out_features, **kwargs):
    super().__init__(**kwargs)
    self.out_features = out_features

  def build(self, input_shape):  # Create the state of the layer (weights)
    self.w = tf.Variable(
      tf.random.normal([input_shape[-1], self.out_features]), name='w')
    self.b = tf.Variable(tf.zeros([self.out_features]), name='b')

  def call(self, inputs):  # Defines the computation from inputs to outputs
    return tf.matmul(inputs, self.w) + self.b

# Create the instance of the layer
flexible_dense = FlexibleDense(out_features=3)
print(flexible_dense.variables)
flexible_dense(tf.constant([[2.0, 2.0, 2.0], [3.0, 3.0, 3.0]]))
print([(v.name, v.shape) for v in flexible_dense.variables])


class MySequentialModel(tf.keras.Model):
  def __init__(self, name=None, **kwargs):
    super().__init__(**kwargs)

    self.dense_1 = FlexibleDense(out_features=3)
    self.dense_2 = FlexibleDense(out_features=2)
  def call(self, x):
    x = self.dense_1(x)
    return self.dense_2(x)

# You have made a Keras model!
my_sequential_model = MySequentialModel(name="the_model")
my_sequential_model(tf.constant([[2.0, 2.0, 2.0]]))
print([(v.name, v.shape) for v in my_sequential_model.variables])

inputs = tf.keras.Input(shape=[3,])
x = FlexibleDense(3)(inputs)
x = FlexibleDense(2)(x)
my_functional_model = tf.keras.Model(inputs=inputs, outputs=x)
print([v.name for v in my_functional_model.variables])

# Calling the model again makes no new scope ("_1"): its variables keep their names.
my_sequential_model(tf.constant([[1.0, 1.0, 1.0]]))
print(my_sequential_model.variables[0].name)
with tf.name_scope("outer"):
  d = tf.keras.layers.Dense(1)
  d(tf.ones([1, 2]))
print([v.name for v in d.variables])

# expect-output:
# []
# [('flexible_dense/w:0', TensorShape([3, 3])), ('flexible_dense/b:0', TensorShape([3]))]
# [('my_sequential_model/flexible_dense_1/w:0', TensorShape([3, 3])), ('my_sequential_model/flexible_dense_1/b:0', TensorShape([3])), ('my_sequential_model/flexible_dense_2/w:0', TensorShape([3, 2])), ('my_sequential_model/flexible_dense_2/b:0', TensorShape([2]))]
# ['flexible_dense_3/w:0', 'flexible_dense_3/b:0', 'flexible_dense_4/w:0', 'flexible_dense_4/b:0']
# my_sequential_model/flexible_dense_1/w:0
# ['outer/dense/kernel:0', 'outer/dense/bias:0']
