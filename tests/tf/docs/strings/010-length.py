# https://www.tensorflow.org/api_docs/python/tf/strings/length, the docstring's examples (the
# arrays as NumPy's repr prints them: the doctest ignores their spacing), inside a tf.function
# as well; a non-string input is StringLength's dtype error (the eager text every op gives:
# "cannot compute OP as input #0(zero-based) was expected to be a string tensor ...").
import tensorflow as tf

strings = tf.constant(['Hello','TensorFlow', '\U0001F642'])
print(repr(tf.strings.length(strings).numpy())) # default counts bytes
print(repr(tf.strings.length(strings, unit="UTF8_CHAR").numpy()))

@tf.function
def char_lengths(s):
    return tf.strings.length(s, unit="UTF8_CHAR")

print(char_lengths(strings))
print([n.op for n in char_lengths.get_concrete_function(strings).graph.as_graph_def().node])

try:
    tf.strings.length(tf.constant([1, 2]))
except tf.errors.InvalidArgumentError as e:
    print(type(e).__name__ + ":", e)

# expect-output:
# array([ 5, 10,  4], dtype=int32)
# array([ 5, 10,  1], dtype=int32)
# tf.Tensor([ 5 10  1], shape=(3,), dtype=int32)
# ['Placeholder', 'StringLength', 'Identity']
# InvalidArgumentError: cannot compute StringLength as input #0(zero-based) was expected to be a string tensor but is a int32 tensor [Op:StringLength]
