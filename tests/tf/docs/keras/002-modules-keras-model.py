# https://www.tensorflow.org/guide/intro_to_modules, "Keras models": a tf.keras.Model subclass
# made of two FlexibleDense layers; "All the same features are available, including tracking
# variables and submodules." The guide initialises with tf.random.normal and shows no outputs;
# here the weights are ones. Variables are listed trainable first, each layer's in creation
# order, the layers in the order they were assigned (Keras 2.15 base_layer.py).
import tensorflow as tf


class FlexibleDense(tf.keras.layers.Layer):
  def __init__(self, out_features, **kwargs):
    super().__init__(**kwargs)
    self.out_features = out_features

  def build(self, input_shape):
    self.w = tf.Variable(tf.ones([input_shape[-1], self.out_features]), name='w')
    self.b = tf.Variable(tf.zeros([self.out_features]), name='b')

  def call(self, inputs):
    return tf.matmul(inputs, self.w) + self.b


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
print(my_sequential_model.variables, my_sequential_model.built)

# Call it on a tensor
print("Model results:", my_sequential_model(tf.constant([[2.0, 2.0, 2.0]])))

print(type(my_sequential_model.variables).__name__, len(my_sequential_model.variables))
print([v.shape for v in my_sequential_model.variables])
print([type(m).__name__ for m in my_sequential_model.submodules])
print(my_sequential_model.submodules[0] is my_sequential_model.dense_1)
print([l.name for l in my_sequential_model.layers])
print(len(my_sequential_model.trainable_variables), my_sequential_model.non_trainable_variables)
print(isinstance(my_sequential_model, tf.keras.layers.Layer), isinstance(my_sequential_model, tf.Module))

# expect-output:
# [] False
# Model results: tf.Tensor([[18. 18.]], shape=(1, 2), dtype=float32)
# list 4
# [TensorShape([3, 3]), TensorShape([3]), TensorShape([3, 2]), TensorShape([2])]
# ['FlexibleDense', 'FlexibleDense']
# True
# ['flexible_dense', 'flexible_dense_1']
# 4 []
# True True
