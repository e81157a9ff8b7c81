# https://www.tensorflow.org/api_docs/python/tf/strings/unicode_split, tf/strings/unicode_decode
# and tf/strings/unicode_encode: the docstrings' examples (outputs from the pages), and
# https://www.tensorflow.org/text/guide/unicode's "Unicode strings": one string decoded into a
# tensor of code points.
import tensorflow as tf

input = [s.encode('utf8') for s in (u'G\xf6\xf6dnight', u'\U0001f60a')]
print(tf.strings.unicode_split(input, 'UTF-8').to_list())
print(tf.strings.unicode_decode(input, 'UTF-8').to_list())

input = tf.ragged.constant(
    [[71, 246, 246, 100, 110, 105, 103, 104, 116], [128522]])
print(tf.strings.unicode_encode(input, 'UTF-8'))

text_utf8 = tf.constant(u"语言处理")
print(repr(tf.strings.unicode_decode(text_utf8, input_encoding='UTF-8')))
print(tf.strings.length(text_utf8, unit="UTF8_CHAR").numpy())

# expect-output:
# [[b'G', b'\xc3\xb6', b'\xc3\xb6', b'd', b'n', b'i', b'g', b'h', b't'], [b'\xf0\x9f\x98\x8a']]
# [[71, 246, 246, 100, 110, 105, 103, 104, 116], [128522]]
# tf.Tensor([b'G\xc3\xb6\xc3\xb6dnight' b'\xf0\x9f\x98\x8a'], shape=(2,), dtype=string)
# <tf.Tensor: shape=(4,), dtype=int32, numpy=array([35821, 35328, 22788, 29702], dtype=int32)>
# 4
