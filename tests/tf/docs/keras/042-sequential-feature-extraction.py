# https://www.tensorflow.org/guide/keras/sequential_model (tf.keras, Keras 2.x), "Feature
# extraction with a Sequential model": once built, a Sequential's layers have `input` and
# `output`, and a functional Model over them extracts intermediate features. The guide uses
# 250x250 images with Conv2D; here 8x8 images keep the program fast (shapes computed as Keras
# does: valid padding, (8 - 3) // 2 + 1 = 3, then 3 - 3 + 1 = 1).
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

initial_model = keras.Sequential(
    [
        keras.Input(shape=(8, 8, 3)),
        layers.Conv2D(4, 3, strides=2, activation="relu"),
        layers.Conv2D(4, 3, activation="relu", name="my_intermediate_layer"),
        layers.Conv2D(4, 1, activation="relu"),
    ]
)
feature_extractor = keras.Model(
    inputs=initial_model.inputs,
    outputs=[layer.output for layer in initial_model.layers],
)

# Call feature extractor on test input.
x = tf.ones((1, 8, 8, 3))
features = feature_extractor(x)
print(type(features).__name__, [f.shape for f in features])

feature_extractor = keras.Model(
    inputs=initial_model.inputs,
    outputs=initial_model.get_layer(name="my_intermediate_layer").output,
)
# Call feature extractor on test input.
features = feature_extractor(x)
print(features.shape)
print([repr(l.output) for l in initial_model.layers][1])
try:
    initial_model.get_layer(name="nope")
except ValueError as e:
    print("ValueError:", e)

# expect-output:
# list [TensorShape([1, 3, 3, 4]), TensorShape([1, 1, 1, 4]), TensorShape([1, 1, 1, 4])]
# (1, 1, 1, 4)
# <KerasTensor: shape=(None, 1, 1, 4) dtype=float32 (created by layer 'my_intermediate_layer')>
# ValueError: No such layer: nope. Existing layers are: ['conv2d', 'my_intermediate_layer', 'conv2d_1'].
