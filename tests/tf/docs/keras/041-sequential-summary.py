# https://www.tensorflow.org/guide/keras/sequential_model (tf.keras, Keras 2.x), "Specifying the
# input shape in advance": summary() once the model is built (by a call: the output shapes keep
# the batch size of that input), with an Input first, or with input_shape= on the first layer
# (the model is built at once); the Input is not one of model.layers. The guide's outputs come
# from an older Keras; the layout here is Keras 2.15's (layer_utils.print_summary: memory sizes,
# no thousands separators), the names those this program's layers get.
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

model = keras.Sequential(
    [
        layers.Dense(2, activation="relu"),
        layers.Dense(3, activation="relu"),
        layers.Dense(4),
    ]
)  # No weights at this stage!
try:
    model.summary()
except ValueError as e:
    print("ValueError:", e)
x = tf.ones((1, 4))
y = model(x)
model.summary()

model = keras.Sequential()
model.add(keras.Input(shape=(4,)))
model.add(layers.Dense(2, activation="relu"))

model.summary()
print([type(l).__name__ for l in model.layers])

model = keras.Sequential()
model.add(layers.Dense(2, activation="relu", input_shape=(4,)))

model.summary()
print(model.built, len(model.weights), model.output_shape)

# expect-output:
# ValueError: This model has not yet been built. Build the model first by calling `build()` or by calling the model on a batch of data.
# Model: "sequential"
# _________________________________________________________________
#  Layer (type)                Output Shape              Param #   
# =================================================================
#  dense (Dense)               (1, 2)                    10        
#                                                                  
#  dense_1 (Dense)             (1, 3)                    9         
#                                                                  
#  dense_2 (Dense)             (1, 4)                    16        
#                                                                  
# =================================================================
# Total params: 35 (140.00 Byte)
# Trainable params: 35 (140.00 Byte)
# Non-trainable params: 0 (0.00 Byte)
# _________________________________________________________________
# Model: "sequential_1"
# _________________________________________________________________
#  Layer (type)                Output Shape              Param #   
# =================================================================
#  dense_3 (Dense)             (None, 2)                 10        
#                                                                  
# =================================================================
# Total params: 10 (40.00 Byte)
# Trainable params: 10 (40.00 Byte)
# Non-trainable params: 0 (0.00 Byte)
# _________________________________________________________________
# ['Dense']
# Model: "sequential_2"
# _________________________________________________________________
#  Layer (type)                Output Shape              Param #   
# =================================================================
#  dense_4 (Dense)             (None, 2)                 10        
#                                                                  
# =================================================================
# Total params: 10 (40.00 Byte)
# Trainable params: 10 (40.00 Byte)
# Non-trainable params: 0 (0.00 Byte)
# _________________________________________________________________
# True 2 (None, 2)
