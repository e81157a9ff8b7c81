# https://www.tensorflow.org/api_docs/python/tf/strings/join and tf/strings/reduce_join, the
# docstrings' examples (outputs from the pages; NumPy's repr spacing), and reduce_join in a
# tf.function.
import tensorflow as tf

print(repr(tf.strings.join(['abc','def']).numpy()))
print(repr(tf.strings.join([['abc','123'],
                            ['def','456'],
                            ['ghi','789']], separator='.').numpy()))

print(repr(tf.strings.reduce_join([['abc','123'],
                                   ['def','456']]).numpy()))
print(repr(tf.strings.reduce_join([['abc','123'],
                                   ['def','456']], axis=-1).numpy()))
print(repr(tf.strings.reduce_join([['abc','123'],
                                   ['def','456']],
                                  axis=-1,
                                  separator=" ").numpy()))

@tf.function
def columns(x):
    return tf.strings.reduce_join(x, axis=0, separator="+", keepdims=True)

print(columns(tf.constant([['abc', '123'], ['def', '456']])))

# expect-output:
# b'abcdef'
# array([b'abc.def.ghi', b'123.456.789'], dtype=object)
# b'abc123def456'
# array([b'abc123', b'def456'], dtype=object)
# array([b'abc 123', b'def 456'], dtype=object)
# tf.Tensor([[b'abc+def' b'123+456']], shape=(1, 2), dtype=string)
