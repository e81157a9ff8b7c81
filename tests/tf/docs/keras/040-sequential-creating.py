# https://www.tensorflow.org/guide/keras/sequential_model (the tf.keras version of Keras 2.x),
# "When to use a Sequential model", "Creating a Sequential model" and "Specifying the input
# shape in advance": a Sequential is its layers called in turn; layers, add, pop; weights appear
# on the first call. Printed layer objects carry addresses, so their classes and names are
# printed instead.
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

# Define Sequential model with 3 layers
model = keras.Sequential(
    [
        layers.Dense(2, activation="relu", name="layer1", kernel_initializer="ones"),
        layers.Dense(3, activation="relu", name="layer2", kernel_initializer="ones"),
        layers.Dense(4, name="layer3", kernel_initializer="ones"),
    ]
)
# Call model on a test input
x = tf.ones((3, 3))
y = model(x)

# is equivalent to this function:
layer1 = layers.Dense(2, activation="relu", name="layer1", kernel_initializer="ones")
layer2 = layers.Dense(3, activation="relu", name="layer2", kernel_initializer="ones")
layer3 = layers.Dense(4, name="layer3", kernel_initializer="ones")
y2 = layer3(layer2(layer1(x)))
print(y)
print(bool(tf.reduce_all(y == y2)))

model = keras.Sequential(
    [
        layers.Dense(2, activation="relu"),
        layers.Dense(3, activation="relu"),
        layers.Dense(4),
    ]
)
print([type(l).__name__ for l in model.layers], [l.name for l in model.layers])

model = keras.Sequential()
model.add(layers.Dense(2, activation="relu"))
model.add(layers.Dense(3, activation="relu"))
model.add(layers.Dense(4))
model.pop()
print(len(model.layers))  # 2

model = keras.Sequential(name="my_sequential")
model.add(layers.Dense(2, activation="relu", name="layer1"))
model.add(layers.Dense(3, activation="relu", name="layer2"))
model.add(layers.Dense(4, name="layer3"))
print(model.name, [l.name for l in model.layers])

layer = layers.Dense(3)
print(layer.weights)  # Empty
# Call layer on a test input
x = tf.ones((1, 4))
y = layer(x)
print([(w.name, w.shape) for w in layer.weights])  # Now it has weights, of shape (4, 3) and (3,)

model = keras.Sequential(
    [
        layers.Dense(2, activation="relu"),
        layers.Dense(3, activation="relu"),
        layers.Dense(4),
    ]
)  # No weights at this stage!

# Call the model on a test input
x = tf.ones((1, 4))
y = model(x)
print("Number of weights after calling the model:", len(model.weights))  # 6

# expect-output:
# tf.Tensor(
# [[18. 18. 18. 18.]
#  [18. 18. 18. 18.]
#  [18. 18. 18. 18.]], shape=(3, 4), dtype=float32)
# True
# ['Dense', 'Dense', 'Dense'] ['dense', 'dense_1', 'dense_2']
# 2
# my_sequential ['layer1', 'layer2', 'layer3']
# []
# [('dense_6/kernel:0', TensorShape([4, 3])), ('dense_6/bias:0', TensorShape([3]))]
# Number of weights after calling the model: 6
