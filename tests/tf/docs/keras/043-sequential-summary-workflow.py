# https://www.tensorflow.org/guide/keras/sequential_model (tf.keras, Keras 2.x), "A common
# debugging workflow: add() + summary()": a stack of Conv2D and MaxPooling2D layers after an
# Input of 250 x 250 x 3, summarized twice, then GlobalMaxPooling2D and a Dense layer. The output
# shapes and parameter counts are the page's ((None, 40, 40, 32) and 11,680; (None, 4, 4, 32) and
# 48,672); the layout is Keras 2.15's (layer_utils.print_summary: names wrapped at the column's
# width, memory sizes, no thousands separators), as tests/tf/docs/keras/041 explains.
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

model = keras.Sequential()
model.add(keras.Input(shape=(250, 250, 3)))  # 250x250 RGB images
model.add(layers.Conv2D(32, 5, strides=2, activation="relu"))
model.add(layers.Conv2D(32, 3, activation="relu"))
model.add(layers.MaxPooling2D(3))

# Can you guess what the current output shape is at this point? Probably not.
# Let's just print it:
model.summary()

# The answer was: (40, 40, 32), so we can keep downsampling...

model.add(layers.Conv2D(32, 3, activation="relu"))
model.add(layers.Conv2D(32, 3, activation="relu"))
model.add(layers.MaxPooling2D(3))
model.add(layers.Conv2D(32, 3, activation="relu"))
model.add(layers.Conv2D(32, 3, activation="relu"))
model.add(layers.MaxPooling2D(2))

# And now?
model.summary()

# Now that we have 4x4 feature maps, time to apply global max pooling.
model.add(layers.GlobalMaxPooling2D())

# Finally, we add a classification layer.
model.add(layers.Dense(10))
print(model.output_shape, model.count_params())

# expect-output:
# Model: "sequential"
# _________________________________________________________________
#  Layer (type)                Output Shape              Param #   
# =================================================================
#  conv2d (Conv2D)             (None, 123, 123, 32)      2432      
#                                                                  
#  conv2d_1 (Conv2D)           (None, 121, 121, 32)      9248      
#                                                                  
#  max_pooling2d (MaxPooling2  (None, 40, 40, 32)        0         
#  D)                                                              
#                                                                  
# =================================================================
# Total params: 11680 (45.62 KB)
# Trainable params: 11680 (45.62 KB)
# Non-trainable params: 0 (0.00 Byte)
# _________________________________________________________________
# Model: "sequential"
# _________________________________________________________________
#  Layer (type)                Output Shape              Param #   
# =================================================================
#  conv2d (Conv2D)             (None, 123, 123, 32)      2432      
#                                                                  
#  conv2d_1 (Conv2D)           (None, 121, 121, 32)      9248      
#                                                                  
#  max_pooling2d (MaxPooling2  (None, 40, 40, 32)        0         
#  D)                                                              
#                                                                  
#  conv2d_2 (Conv2D)           (None, 38, 38, 32)        9248      
#                                                                  
#  conv2d_3 (Conv2D)           (None, 36, 36, 32)        9248      
#                                                                  
#  max_pooling2d_1 (MaxPoolin  (None, 12, 12, 32)        0         
#  g2D)                                                            
#                                                                  
#  conv2d_4 (Conv2D)           (None, 10, 10, 32)        9248      
#                                                                  
#  conv2d_5 (Conv2D)           (None, 8, 8, 32)          9248      
#                                                                  
#  max_pooling2d_2 (MaxPoolin  (None, 4, 4, 32)          0         
#  g2D)                                                            
#                                                                  
# =================================================================
# Total params: 48672 (190.12 KB)
# Trainable params: 48672 (190.12 KB)
# Non-trainable params: 0 (0.00 Byte)
# _________________________________________________________________
# (None, 10) 49002
