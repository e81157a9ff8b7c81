# https://www.tensorflow.org/guide/keras/functional (tf.keras, Keras 2.x), "Models with multiple
# inputs and outputs" and "A toy ResNet model" (shapes only): several Inputs merged by
# layers.concatenate / layers.add, a model with two outputs, and the summary with its
# "Connected to" column (Keras 2.15's layout for non-sequential graphs, 98 columns). Dense
# layers stand in for the guide's Embedding/LSTM/Conv layers.
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

title_input = keras.Input(shape=(4,), name="title")
body_input = keras.Input(shape=(6,), name="body")
tags_input = keras.Input(shape=(3,), name="tags")
title_features = layers.Dense(2, kernel_initializer="ones")(title_input)
body_features = layers.Dense(2, kernel_initializer="ones")(body_input)
x = layers.concatenate([title_features, body_features, tags_input])
priority_pred = layers.Dense(1, name="priority", kernel_initializer="ones")(x)
department_pred = layers.Dense(2, name="department", kernel_initializer="ones")(x)
model = keras.Model(inputs=[title_input, body_input, tags_input],
                    outputs=[priority_pred, department_pred])
model.summary()
priority, department = model([tf.ones([1, 4]), tf.ones([1, 6]), tf.ones([1, 3])])
print(priority, department)
print([l.name for l in model.layers])

a = keras.Input(shape=(3,), name="a")
b = layers.Dense(3, kernel_initializer="ones", name="b")(a)
c = layers.add([a, b])
residual = keras.Model(a, c, name="residual")
print(residual(tf.constant([[1.0, 2.0, 3.0]])))

# expect-output:
# Model: "model"
# __________________________________________________________________________________________________
#  Layer (type)                Output Shape                 Param #   Connected to                  
# ==================================================================================================
#  title (InputLayer)          [(None, 4)]                  0         []                            
#                                                                                                   
#  body (InputLayer)           [(None, 6)]                  0         []                            
#                                                                                                   
#  dense (Dense)               (None, 2)                    10        ['title[0][0]']               
#                                                                                                   
#  dense_1 (Dense)             (None, 2)                    14        ['body[0][0]']                
#                                                                                                   
#  tags (InputLayer)           [(None, 3)]                  0         []                            
#                                                                                                   
#  concatenate (Concatenate)   (None, 7)                    0         ['dense[0][0]',               
#                                                                      'dense_1[0][0]',             
#                                                                      'tags[0][0]']                
#                                                                                                   
#  priority (Dense)            (None, 1)                    8         ['concatenate[0][0]']         
#                                                                                                   
#  department (Dense)          (None, 2)                    16        ['concatenate[0][0]']         
#                                                                                                   
# ==================================================================================================
# Total params: 48 (192.00 Byte)
# Trainable params: 48 (192.00 Byte)
# Non-trainable params: 0 (0.00 Byte)
# __________________________________________________________________________________________________
# tf.Tensor([[23.]], shape=(1, 1), dtype=float32) tf.Tensor([[23. 23.]], shape=(1, 2), dtype=float32)
# ['title', 'body', 'dense', 'dense_1', 'tags', 'concatenate', 'priority', 'department']
# tf.Tensor([[7. 8. 9.]], shape=(1, 3), dtype=float32)
