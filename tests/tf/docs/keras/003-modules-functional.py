# https://www.tensorflow.org/guide/intro_to_modules, "Keras models": "Here is the same model
# with the functional API" — tf.keras.Input, layers called on it, tf.keras.Model(inputs=...,
# outputs=...) and summary(). The guide shows no output; the summary's layout is Keras 2.15's
# keras/utils/layer_utils.py print_summary (65 columns; the first Input is "input_1", an
# unnamed functional model "model"; memory sizes in parentheses).
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


inputs = tf.keras.Input(shape=[3,])
print(inputs.shape, inputs.dtype)
print(repr(inputs))

x = FlexibleDense(3)(inputs)
x = FlexibleDense(2)(x)
print(repr(x))

my_functional_model = tf.keras.Model(inputs=inputs, outputs=x)

my_functional_model.summary()
print(my_functional_model(tf.constant([[2.0, 2.0, 2.0]])))
print(type(my_functional_model).__name__, isinstance(my_functional_model, tf.keras.Model))
print([l.name for l in my_functional_model.layers])

# expect-output:
# (None, 3) <dtype: 'float32'>
# <KerasTensor: shape=(None, 3) dtype=float32 (created by layer 'input_1')>
# <KerasTensor: shape=(None, 2) dtype=float32 (created by layer 'flexible_dense_1')>
# Model: "model"
# _________________________________________________________________
#  Layer (type)                Output Shape              Param #   
# =================================================================
#  input_1 (InputLayer)        [(None, 3)]               0         
#                                                                  
#  flexible_dense (FlexibleDe  (None, 3)                 12        
#  nse)                                                            
#                                                                  
#  flexible_dense_1 (Flexible  (None, 2)                 8         
#  Dense)                                                          
#                                                                  
# =================================================================
# Total params: 20 (80.00 Byte)
# Trainable params: 20 (80.00 Byte)
# Non-trainable params: 0 (0.00 Byte)
# _________________________________________________________________
# tf.Tensor([[18. 18.]], shape=(1, 2), dtype=float32)
# Functional True
# ['input_1', 'flexible_dense', 'flexible_dense_1']
