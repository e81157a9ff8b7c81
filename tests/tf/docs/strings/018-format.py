# https://www.tensorflow.org/api_docs/python/tf/strings/format, the docstring's examples
# (outputs from the page), `summarize` abbreviating a long tensor, and the ValueError for a
# template whose placeholders do not match the inputs (string_ops.py's text).
import tensorflow as tf

tensor = tf.range(5)
print(repr(tf.strings.format("tensor: {}, suffix", tensor)))

tensor_a = tf.range(2)
tensor_b = tf.range(1, 4, 2)
print(repr(tf.strings.format("a: {}, b: {}, suffix", (tensor_a, tensor_b))))

print(tf.strings.format("{}", tf.range(10)).numpy())
print(tf.strings.format("{}", tf.reshape(tf.range(4), [2, 2]), summarize=-1).numpy().decode())

try:
    tf.strings.format("{} {}", tf.range(10))
except ValueError as e:
    print(type(e).__name__ + ":", e)

# expect-output:
# <tf.Tensor: shape=(), dtype=string, numpy=b'tensor: [0 1 2 3 4], suffix'>
# <tf.Tensor: shape=(), dtype=string, numpy=b'a: [0 1], b: [1 3], suffix'>
# b'[0 1 2 ... 7 8 9]'
# [[0 1]
#  [2 3]]
# ValueError: The template expects 2 tensors, but the inputs only has 1. Please ensure the number of placeholders in template matches inputs length.
