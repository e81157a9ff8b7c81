# tf.keras as CPython modules: `import tensorflow` does not load Keras; the submodules are in
# sys.modules from the start, so every import form works, and the first name looked up loads it.
# Keras's layers answer lists of variables. GradientTape takes tf.nest's structures (dicts by
# sorted key, namedtuples), unconnected_gradients="zero", and can be subclassed.
import collections
import sys

import tensorflow as tf

layers_module = sys.modules["tensorflow.keras.layers"]
print("Dense" in vars(layers_module), tf.keras.layers is layers_module)
from tensorflow.keras.layers import Dense
import tensorflow.keras.optimizers as optimizers
from tensorflow.keras import models
print(Dense, optimizers.Adam, models.Sequential is tf.keras.Sequential)
print([name for name in dir(tf.keras.layers) if not name.startswith("_")])
try:
    tf.keras.layers.Dense2
except AttributeError as e:
    print("AttributeError:", e)

d = Dense(2)
d(tf.ones([1, 3]))
print(type(d.variables).__name__, type(d.trainable_variables).__name__, len(d.weights))

x = tf.constant(2.0)
y = tf.constant([1.0, 2.0])
Pair = collections.namedtuple("Pair", "a b")
with tf.GradientTape(persistent=True) as tape:
    tape.watch({"k": [x, y]})
    z = x * x * tf.reduce_sum(y)
print(tape.gradient(z, {"b": x, "a": [y]}))
print(tape.gradient(z, Pair(x, y)))
print(tape.gradient(z, [tf.constant(5.0), x], unconnected_gradients="zero"))


class Tape(tf.GradientTape):
    def __init__(self):
        super().__init__(persistent=True)


v = tf.Variable(3.0)
with Tape() as tape:
    w = v * v
print(tape.gradient(w, v), tape.gradient(w, v), tape.gradient(v, v))

# expect-output:
# False True
# <class 'tensorflow.keras.layers.Dense'> <class 'tensorflow.keras.optimizers.Adam'> True
# ['Activation', 'Add', 'AveragePooling1D', 'AveragePooling2D', 'AvgPool1D', 'AvgPool2D', 'Concatenate', 'Conv2D', 'Convolution2D', 'Dense', 'Dropout', 'Embedding', 'Flatten', 'GlobalAveragePooling1D', 'GlobalAveragePooling2D', 'GlobalAvgPool1D', 'GlobalAvgPool2D', 'GlobalMaxPool1D', 'GlobalMaxPool2D', 'GlobalMaxPooling1D', 'GlobalMaxPooling2D', 'Input', 'InputLayer', 'InputSpec', 'Lambda', 'Layer', 'MaxPool1D', 'MaxPool2D', 'MaxPooling1D', 'MaxPooling2D', 'add', 'concatenate']
# AttributeError: module 'tensorflow.keras.layers' has no attribute 'Dense2'
# list list 2
# {'a': [<tf.Tensor: shape=(2,), dtype=float32, numpy=array([4., 4.], dtype=float32)>], 'b': <tf.Tensor: shape=(), dtype=float32, numpy=12.0>}
# Pair(a=<tf.Tensor: shape=(), dtype=float32, numpy=12.0>, b=<tf.Tensor: shape=(2,), dtype=float32, numpy=array([4., 4.], dtype=float32)>)
# [<tf.Tensor: shape=(), dtype=float32, numpy=0.0>, <tf.Tensor: shape=(), dtype=float32, numpy=12.0>]
# tf.Tensor(6.0, shape=(), dtype=float32) tf.Tensor(6.0, shape=(), dtype=float32) tf.Tensor(1.0, shape=(), dtype=float32)
