# https://www.tensorflow.org/guide/keras/custom_layers_and_models (tf.keras, Keras 2.x), "The
# add_loss() method" (layer.losses holds the losses of the last call, reset at each top-level
# call) and "You can optionally enable serialization on your layers" (get_config and
# from_config; the base config's keys are Keras 2.15's name, trainable, dtype).
# The guide writes tf.zeros(1, 1) (dtype 1 is float32 as a DataType enum); here tf.zeros((1, 1)).
import tensorflow as tf
from tensorflow import keras


# A layer that creates an activity regularization loss
class ActivityRegularizationLayer(keras.layers.Layer):
    def __init__(self, rate=1e-2):
        super().__init__()
        self.rate = rate

    def call(self, inputs):
        self.add_loss(self.rate * tf.reduce_sum(inputs))
        return inputs


class OuterLayer(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.activity_reg = ActivityRegularizationLayer(1e-2)

    def call(self, inputs):
        return self.activity_reg(inputs)


layer = OuterLayer()
assert len(layer.losses) == 0  # No losses yet since the layer has never been called

_ = layer(tf.zeros((1, 1)))
assert len(layer.losses) == 1  # We created one loss value

# `layer.losses` gets reset at the start of each __call__
_ = layer(tf.zeros((1, 1)))
assert len(layer.losses) == 1  # This is the loss created during the call above
_ = layer(tf.ones((2, 2)))
print(layer.losses)


class Linear(keras.layers.Layer):
    def __init__(self, units=32, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(
            shape=(input_shape[-1], self.units),
            initializer="random_normal",
            trainable=True,
        )
        self.b = self.add_weight(
            shape=(self.units,), initializer="random_normal", trainable=True
        )

    def call(self, inputs):
        return tf.matmul(inputs, self.w) + self.b

    def get_config(self):
        config = super().get_config()
        config.update({"units": self.units})
        return config


layer = Linear(64)
config = layer.get_config()
print(config)
new_layer = Linear.from_config(config)
print(new_layer.units, new_layer.name)

# expect-output:
# [<tf.Tensor: shape=(), dtype=float32, numpy=0.04>]
# {'name': 'linear', 'trainable': True, 'dtype': 'float32', 'units': 64}
# 64 linear
