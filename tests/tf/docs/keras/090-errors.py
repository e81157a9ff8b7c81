# Keras 2.15's errors for misuse (keras/engine/training.py, sequential.py, functional.py,
# input_layer.py): fit before compile, adding a non-layer to a Sequential, two layers with one
# name, get_layer without arguments, Input with both shape and batch_shape, an unknown loss
# name; and a layer's error inside a functional construction, wrapped as Keras wraps it
# (keras/utils/traceback_utils.py, 'layer "name"' in that path).
import numpy as np
import tensorflow as tf

def show(f):
    try:
        f()
    except Exception as e:
        print(type(e).__name__ + ":", e)

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
show(lambda: model.fit(np.ones((2, 2)), np.ones((2, 1)), verbose=0))
show(lambda: model.add(3))
seq = tf.keras.Sequential([tf.keras.layers.Dense(1, name="d")])
show(lambda: seq.add(tf.keras.layers.Dense(1, name="d")))
show(lambda: seq.get_layer())
show(lambda: tf.keras.Sequential().pop())
show(lambda: tf.keras.Input(shape=(2,), batch_shape=(None, 2)))
show(lambda: tf.keras.losses.get("nope"))


class Fails(tf.keras.layers.Layer):
    def call(self, inputs):
        raise ValueError("bad input")


inp = tf.keras.Input(shape=(2,))
show(lambda: Fails(name="fails")(inp))
show(lambda: Fails(name="fails_2")(tf.ones([1, 2])))

# expect-output:
# RuntimeError: You must compile your model before training/testing. Use `model.compile(optimizer, loss)`.
# TypeError: The added layer must be an instance of class Layer. Received: layer=3 of type <class 'int'>.
# ValueError: All layers added to a Sequential model should have unique names. Name "d" is already the name of a layer in this model. Update the `name` argument to pass a unique name.
# ValueError: Provide either a layer name or layer index at `get_layer`.
# TypeError: There are no layers in the model.
# ValueError: Only provide the `shape` OR `batch_shape` argument to Input, not both at the same time.
# ValueError: Unknown loss function: 'nope'. Please ensure you are using a `keras.utils.custom_object_scope` and that this object is included in the scope. See https://www.tensorflow.org/guide/keras/save_and_serialize#registering_the_custom_object for details.
# ValueError: Exception encountered when calling layer "fails" (type Fails).
#
# bad input
#
# Call arguments received by layer "fails" (type Fails):
#   • inputs=tf.Tensor(shape=(None, 2), dtype=float32)
# ValueError: Exception encountered when calling layer 'fails_2' (type Fails).
#
# bad input
#
# Call arguments received by layer 'fails_2' (type Fails):
#   • inputs=tf.Tensor(shape=(1, 2), dtype=float32)
