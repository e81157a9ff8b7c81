# https://www.tensorflow.org/guide/keras/custom_layers_and_models (tf.keras, Keras 2.x: "Making
# new layers and models via subclassing"), "The Layer class", "Layers can have non-trainable
# weights", "Best practice: deferring weight creation", "Layers are recursively composable":
# weights assigned as attributes are tracked, in order; non-trainable weights; sublayers'
# weights are collected. The guide's random initial values are replaced by ones where printed.
import tensorflow as tf
from tensorflow import keras


class Linear(keras.layers.Layer):
    def __init__(self, units=32, input_dim=32):
        super().__init__()
        self.w = tf.Variable(
            initial_value=tf.ones(shape=(input_dim, units), dtype="float32"),
            trainable=True,
        )
        b_init = tf.keras.initializers.Zeros()
        self.b = tf.Variable(
            initial_value=b_init(shape=(units,), dtype="float32"), trainable=True
        )

    def call(self, inputs):
        return tf.matmul(inputs, self.w) + self.b


x = tf.ones((2, 2))
linear_layer = Linear(4, 2)
y = linear_layer(x)
print(y)
assert linear_layer.weights == [linear_layer.w, linear_layer.b]


class Linear(keras.layers.Layer):
    def __init__(self, units=32, input_dim=32):
        super().__init__()
        self.w = self.add_weight(
            shape=(input_dim, units), initializer="ones", trainable=True
        )
        self.b = self.add_weight(shape=(units,), initializer="zeros", trainable=True)

    def call(self, inputs):
        return tf.matmul(inputs, self.w) + self.b


linear_layer = Linear(4, 2)
print(linear_layer(x))
print(linear_layer.weights == [linear_layer.w, linear_layer.b], linear_layer.name)


class ComputeSum(keras.layers.Layer):
    def __init__(self, input_dim):
        super().__init__()
        self.total = tf.Variable(initial_value=tf.zeros((input_dim,)), trainable=False)

    def call(self, inputs):
        self.total.assign_add(tf.reduce_sum(inputs, axis=0))
        return self.total


x = tf.ones((2, 2))
my_sum = ComputeSum(2)
y = my_sum(x)
print(y.numpy())
y = my_sum(x)
print(y.numpy())
print("weights:", len(my_sum.weights))
print("non-trainable weights:", len(my_sum.non_trainable_weights))

# It's not included in the trainable weights:
print("trainable_weights:", my_sum.trainable_weights)


class Linear(keras.layers.Layer):
    def __init__(self, units=32):
        super().__init__()
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


# At instantiation, we don't know on what inputs this is going to get called
linear_layer = Linear(32)

# The layer's weights are created dynamically the first time the layer is called
y = linear_layer(x)
print(y.shape, [w.shape for w in linear_layer.weights])


class MLPBlock(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.linear_1 = Linear(32)
        self.linear_2 = Linear(32)
        self.linear_3 = Linear(1)

    def call(self, inputs):
        x = self.linear_1(inputs)
        x = tf.nn.relu(x)
        x = self.linear_2(x)
        x = tf.nn.relu(x)
        return self.linear_3(x)


mlp = MLPBlock()
y = mlp(tf.ones(shape=(3, 64)))  # The first call to the `mlp` will create the weights
print("weights:", len(mlp.weights))
print("trainable weights:", len(mlp.trainable_weights))
print([w.shape for w in mlp.weights][:2], y.shape)

# Freezing a layer moves its weights (and its sublayers') to the non-trainable ones.
mlp.linear_1.trainable = False
print(len(mlp.trainable_weights), len(mlp.non_trainable_weights), len(mlp.weights))
mlp.trainable = False
print(len(mlp.trainable_weights), mlp.linear_3.trainable)

# expect-output:
# tf.Tensor(
# [[2. 2. 2. 2.]
#  [2. 2. 2. 2.]], shape=(2, 4), dtype=float32)
# tf.Tensor(
# [[2. 2. 2. 2.]
#  [2. 2. 2. 2.]], shape=(2, 4), dtype=float32)
# True linear_1
# [2. 2.]
# [4. 4.]
# weights: 1
# non-trainable weights: 1
# trainable_weights: []
# (2, 32) [TensorShape([2, 32]), TensorShape([32])]
# weights: 6
# trainable weights: 6
# [TensorShape([64, 32]), TensorShape([32])] (3, 1)
# 4 2 6
# 0 False
