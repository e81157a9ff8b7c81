# tf.keras.layers: Dense and Conv2D build their weights on the first call, compute what their
# formulas say, and reject bad arguments and inputs with Keras's errors.
import math
import tensorflow as tf

# Weights appear on the first call, named after the layer; names are unique per session.
d = tf.keras.layers.Dense(3)
print(d.name, d.built, d.weights, hasattr(d, "kernel"))
y = d(tf.ones([2, 4]))
print(y.shape, y.dtype, d.built, [w.name for w in d.weights], d.kernel.shape, d.bias.shape)
print(isinstance(d, tf.Module), isinstance(d, tf.keras.layers.Layer), d.count_params())
print(tf.keras.layers.Dense(1).name, tf.keras.layers.Conv2D(1, 1).name, tf.keras.layers.Conv2D(1, 1).name)
print(len(d.trainable_variables), len(d.variables), d.non_trainable_weights)
print(d.trainable_variables[0] is d.kernel, d.variables[1] is d.bias)

# glorot_uniform: every value within sqrt(6 / (fan_in + fan_out)), not all equal; bias zeros.
limit = math.sqrt(6 / (4 + 3))
k = d.kernel.numpy()
values = [v for row in k for v in row]
print(all(abs(v) <= limit for v in values), len(set(values)) > 1, d.bias.numpy())
c = tf.keras.layers.Conv2D(8, 3)
c(tf.zeros([1, 5, 5, 2]))
climit = math.sqrt(6 / (3 * 3 * 2 + 3 * 3 * 8))
print(float(tf.reduce_max(tf.abs(c.kernel))) <= climit, float(tf.reduce_max(tf.abs(c.kernel))) > climit / 2)

# Dense computes activation(x @ kernel + bias).
d = tf.keras.layers.Dense(2, activation="relu", kernel_initializer="ones", bias_initializer="zeros")
x = tf.constant([[1.0, -2.0], [3.0, 4.0]])
print(d(x))
d.kernel.assign([[1.0, 2.0], [3.0, -1.0]])
d.bias.assign([0.5, -10.0])
print(d(x))
print(tf.keras.layers.Dense(1, use_bias=False, kernel_initializer="ones")(x), )
print(tf.keras.layers.Dense(2, activation=lambda t: t * 10, kernel_initializer="ones")([[1.0, 2.0]]))
print(tf.keras.layers.Dense(2, activation="softmax", kernel_initializer="zeros")(x))
print(tf.keras.layers.Dense(1, activation="sigmoid", kernel_initializer="zeros")(x))
print(tf.keras.layers.Dense(1, activation="tanh", kernel_initializer="zeros")(x))
t = tf.keras.layers.Dense(2, kernel_initializer="ones")(tf.ones([2, 3, 4]))
print(t.shape)
print(tf.keras.layers.Dense(1, kernel_initializer="ones")(tf.constant([[1.0, 2.0]], dtype=tf.float64)).dtype)

# Conv2D computes activation(conv2d(x, kernel) + bias), VALID or SAME, with strides.
img = tf.reshape(tf.range(16.0), [1, 4, 4, 1])
c = tf.keras.layers.Conv2D(1, 2, kernel_initializer="ones", bias_initializer="ones")
print(tf.reshape(c(img), [3, 3]))
c = tf.keras.layers.Conv2D(2, (2, 2), strides=2, padding="same", kernel_initializer="ones")
print(c(img).shape, c.kernel.shape, c.strides, c.padding)
c = tf.keras.layers.Conv2D(1, 3, padding="SAME", activation="relu", kernel_initializer="ones",
                           bias_initializer=tf.keras.initializers.Constant(-40.0))
print(tf.reshape(c(img), [4, 4]))
print(tf.keras.layers.Conv2D(4, 1, use_bias=False)(tf.zeros([2, 3, 3, 5])).shape)

# A layer first called inside a tf.function: its variables are made on the first trace only.
layer = tf.keras.layers.Dense(2, kernel_initializer="ones")
@tf.function
def apply(x):
    return layer(x)
first = apply(tf.constant([[1.0, 2.0]]))
traces = apply.experimental_get_tracing_count()
print(first, apply(tf.constant([[3.0, 4.0]])))
print(apply.experimental_get_tracing_count() == traces, len(layer.variables))
layer.kernel.assign([[1.0, 0.0], [0.0, 1.0]])
print(apply(tf.constant([[5.0, 6.0]])))

@tf.function
def make_and_apply(x):
    return tf.keras.layers.Dense(1)(x)
try:
    make_and_apply(tf.ones([1, 2]))
except ValueError as e:
    print("ValueError:", str(e)[:80])

# Sequential and tf.Module composition collect the layers' weights in order.
model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu"), tf.keras.layers.Dense(1)])
print(model(tf.ones([3, 2])).shape, len(model.layers), [v.shape for v in model.trainable_variables])

class Net(tf.Module):
    def __init__(self):
        super().__init__()
        self.hidden = tf.keras.layers.Dense(5)
        self.out = tf.keras.layers.Dense(1)
    def __call__(self, x):
        return self.out(self.hidden(x))
net = Net()
print(net(tf.ones([1, 3])).shape, len(net.trainable_variables))

# Bad arguments and inputs.
def show(f):
    try:
        f()
    except Exception as e:
        print(type(e).__name__ + ":", e)
show(lambda: tf.keras.layers.Dense(2)(tf.constant([1.0, 2.0])))
d = tf.keras.layers.Dense(2)
d(tf.ones([1, 3]))
show(lambda: d(tf.ones([1, 4])))
show(lambda: tf.keras.layers.Dense(-1))
show(lambda: tf.keras.layers.Dense(2, activation="swish"))
show(lambda: tf.keras.layers.Dense(2, activation=3))
show(lambda: tf.keras.layers.Dense(2, kernel_initializer="nope"))
show(lambda: tf.keras.layers.Dense(2, foo=1))
show(lambda: tf.keras.layers.Conv2D(2, 3)(tf.zeros([4, 4, 1])))
show(lambda: tf.keras.layers.Conv2D(0, 3))
show(lambda: tf.keras.layers.Conv2D(2, (3, 3, 3)))
show(lambda: tf.keras.layers.Conv2D(2, 3, padding="full"))
show(lambda: tf.keras.layers.Conv2D(2, 3, strides=0))
show(lambda: tf.keras.layers.Conv2D(2, 5)(tf.zeros([1, 3, 3, 1])))
c = tf.keras.layers.Conv2D(2, 1)
c(tf.zeros([1, 2, 2, 3]))
show(lambda: c(tf.zeros([1, 2, 2, 4])))
show(lambda: tf.keras.layers.Dense(2).count_params())
show(lambda: tf.keras.Sequential([3]))

# Subclassing Layer: add_weight in build, sublayers in attributes and lists are tracked, and an
# untrainable layer's weights all become non-trainable. Sublayers first built inside the
# layer's call are named in its scope (Keras 2: "block/dense_24/kernel:0").
class Linear(tf.keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
    def build(self, input_shape):
        self.w = self.add_weight("w", shape=(input_shape[-1], self.units), initializer="random_normal")
        self.b = self.add_weight("b", shape=(self.units,), initializer="zeros", trainable=False)
    def call(self, inputs):
        return tf.matmul(inputs, self.w) + self.b
lin = Linear(3)
print(lin(tf.ones([2, 4])).shape, lin.name, [w.name for w in lin.trainable_weights], [w.name for w in lin.non_trainable_weights])
print(float(tf.reduce_max(tf.abs(lin.w))) < 0.5, Linear(1, name="custom").name)

class Block(tf.keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.first = tf.keras.layers.Dense(2)
        self.rest = [tf.keras.layers.Dense(1)]
    def call(self, x):
        return self.rest[0](self.first(x))
block = Block()
print(block(tf.ones([1, 3])).shape, [w.name for w in block.weights])
block.trainable = False
print(len(block.trainable_weights), len(block.non_trainable_weights), block.count_params())

# expect-output:
# dense False [] False
# (2, 3) <dtype: 'float32'> True ['dense/kernel:0', 'dense/bias:0'] (4, 3) (3,)
# True True 15
# dense_1 conv2d conv2d_1
# 2 2 []
# True True
# True True [0. 0. 0.]
# True True
# tf.Tensor(
# [[0. 0.]
#  [7. 7.]], shape=(2, 2), dtype=float32)
# tf.Tensor(
# [[ 0.   0. ]
#  [15.5  0. ]], shape=(2, 2), dtype=float32)
# tf.Tensor(
# [[-1.]
#  [ 7.]], shape=(2, 1), dtype=float32)
# tf.Tensor([[30. 30.]], shape=(1, 2), dtype=float32)
# tf.Tensor(
# [[0.5 0.5]
#  [0.5 0.5]], shape=(2, 2), dtype=float32)
# tf.Tensor(
# [[0.5]
#  [0.5]], shape=(2, 1), dtype=float32)
# tf.Tensor(
# [[0.]
#  [0.]], shape=(2, 1), dtype=float32)
# (2, 3, 2)
# <dtype: 'float32'>
# tf.Tensor(
# [[11. 15. 19.]
#  [27. 31. 35.]
#  [43. 47. 51.]], shape=(3, 3), dtype=float32)
# (1, 2, 2, 2) (2, 2, 1, 2) (2, 2) same
# tf.Tensor(
# [[ 0.  0.  0.  0.]
#  [ 0.  5. 14.  0.]
#  [11. 41. 50. 23.]
#  [ 2. 26. 32. 10.]], shape=(4, 4), dtype=float32)
# (2, 3, 3, 4)
# tf.Tensor([[3. 3.]], shape=(1, 2), dtype=float32) tf.Tensor([[7. 7.]], shape=(1, 2), dtype=float32)
# True 2
# tf.Tensor([[5. 6.]], shape=(1, 2), dtype=float32)
# ValueError: tf.function only supports singleton tf.Variables created on the first call. Make
# (3, 1) 2 [TensorShape([2, 4]), TensorShape([4]), TensorShape([4, 1]), TensorShape([1])]
# (1, 1) 4
# ValueError: Input 0 of layer "dense_17" is incompatible with the layer: expected min_ndim=2, found ndim=1. Full shape received: (2,)
# ValueError: Input 0 of layer "dense_18" is incompatible with the layer: expected axis -1 of input shape to have value 3, but received input with shape (1, 4)
# ValueError: Received an invalid value for `units`, expected a positive integer. Received: units=-1
# ValueError: Unknown activation function: 'swish'. Please ensure you are using a `keras.utils.custom_object_scope` and that this object is included in the scope. See https://www.tensorflow.org/guide/keras/save_and_serialize#registering_the_custom_object for details.
# TypeError: Could not interpret activation function identifier: 3
# ValueError: Unknown initializer: 'nope'. Please ensure you are using a `keras.utils.custom_object_scope` and that this object is included in the scope. See https://www.tensorflow.org/guide/keras/save_and_serialize#registering_the_custom_object for details.
# TypeError: ('Keyword argument not understood:', 'foo')
# ValueError: Input 0 of layer "conv2d_7" is incompatible with the layer: expected min_ndim=4, found ndim=3. Full shape received: (4, 4, 1)
# ValueError: Invalid value for argument `filters`. Expected a strictly positive value. Received filters=0.
# ValueError: The `kernel_size` argument must be a tuple of 2 integers. Received kernel_size=(3, 3, 3)
# ValueError: The `padding` argument must be a list/tuple or one of "valid", "same" (or "causal", only for `Conv1D). Received: full
# ValueError: The `strides` argument must be a tuple of 2 integers. Received strides=0 including {0} that does not satisfy the requirement `> 0`.
# ValueError: One of the dimensions in the output is <= 0 due to downsampling in conv2d_12. Consider increasing the input size. Received input shape (1, 3, 3, 1) which would produce output shape with a zero or negative value in a dimension.
# ValueError: Input 0 of layer "conv2d_13" is incompatible with the layer: expected axis -1 of input shape to have value 3, but received input with shape (1, 2, 2, 4)
# ValueError: You tried to call `count_params` on layer dense_23, but the layer isn't built. You can build it manually via: `dense_23.build(batch_input_shape)`.
# TypeError: The added layer must be an instance of class Layer. Received: layer=3 of type <class 'int'>.
# (2, 3) linear ['linear/w:0'] ['linear/b:0']
# True custom
# (1, 1) ['block/dense_24/kernel:0', 'block/dense_24/bias:0', 'block/dense_25/kernel:0', 'block/dense_25/bias:0']
# 0 4 11
