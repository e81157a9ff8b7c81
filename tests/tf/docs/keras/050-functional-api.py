# https://www.tensorflow.org/guide/keras/functional (tf.keras, Keras 2.x), "Introduction": an
# Input's shape and dtype, layers called on it, a named Model and its summary. The layout of the
# summary is Keras 2.15's (keras/utils/layer_utils.py), the names those this program makes.
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

inputs = keras.Input(shape=(784,))
img_inputs = keras.Input(shape=(32, 32, 3))
print(inputs.shape)
print(inputs.dtype)
print(img_inputs.shape)

dense = layers.Dense(64, activation="relu")
x = dense(inputs)
x = layers.Dense(64, activation="relu")(x)
outputs = layers.Dense(10)(x)
model = keras.Model(inputs=inputs, outputs=outputs, name="mnist_model")
model.summary()
print(model.input_shape, model.output_shape, len(model.weights))
print(model(tf.zeros([2, 784])).shape)

# expect-output:
# (None, 784)
# <dtype: 'float32'>
# (None, 32, 32, 3)
# Model: "mnist_model"
# _________________________________________________________________
#  Layer (type)                Output Shape              Param #   
# =================================================================
#  input_1 (InputLayer)        [(None, 784)]             0         
#                                                                  
#  dense (Dense)               (None, 64)                50240     
#                                                                  
#  dense_1 (Dense)             (None, 64)                4160      
#                                                                  
#  dense_2 (Dense)             (None, 10)                650       
#                                                                  
# =================================================================
# Total params: 55050 (215.04 KB)
# Trainable params: 55050 (215.04 KB)
# Non-trainable params: 0 (0.00 Byte)
# _________________________________________________________________
# (None, 784) (None, 10) 6
# (2, 10)
