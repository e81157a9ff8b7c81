# https://www.tensorflow.org/api_docs/python/tf/strings/upper, tf/strings/lower and
# tf/strings/strip, the docstrings' examples (outputs from the pages), eagerly and in a
# tf.function.
import tensorflow as tf

print(repr(tf.strings.upper("CamelCase string and ALL CAPS")))
print(repr(tf.strings.lower("CamelCase string and ALL CAPS")))
print(repr(tf.strings.strip([b'\nTensorFlow', b'     The python library    '])))

@tf.function
def shout(s):
    return tf.strings.upper(tf.strings.strip(s))

print(shout(tf.constant(["  quiet  ", "calm\t"])))

# expect-output:
# <tf.Tensor: shape=(), dtype=string, numpy=b'CAMELCASE STRING AND ALL CAPS'>
# <tf.Tensor: shape=(), dtype=string, numpy=b'camelcase string and all caps'>
# <tf.Tensor: shape=(2,), dtype=string, numpy=array([b'TensorFlow', b'The python library'], dtype=object)>
# tf.Tensor([b'QUIET' b'CALM'], shape=(2,), dtype=string)
