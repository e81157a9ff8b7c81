# https://www.tensorflow.org/text/guide/unicode: "Converting between representations / Batch
# dimensions" (a batch decoded into a RaggedTensor, padded with to_tensor, made sparse, and
# encoded back from each form), "Unicode operations" (character length, character substrings,
# splitting into characters). Outputs are the page's notebook outputs, checked line by line
# against a transcription of the page with its outputs (the page's own text is not searchable
# past its first section); the three re-encodings print their repr as the page does.
import tensorflow as tf

batch_utf8 = [s.encode('UTF-8') for s in
              [u'hÃllo', u'What is the weather tomorrow', u'Göödnight', u'😊']]
batch_chars_ragged = tf.strings.unicode_decode(batch_utf8,
                                               input_encoding='UTF-8')
for sentence_chars in batch_chars_ragged.to_list():
  print(sentence_chars)

batch_chars_padded = batch_chars_ragged.to_tensor(default_value=-1)
print(batch_chars_padded.numpy())

batch_chars_sparse = batch_chars_ragged.to_sparse()

print(repr(tf.strings.unicode_encode([[99, 97, 116], [100, 111, 103], [99, 111, 119]],
                                     output_encoding='UTF-8')))
print(repr(tf.strings.unicode_encode(batch_chars_ragged, output_encoding='UTF-8')))
print(repr(tf.strings.unicode_encode(
    tf.RaggedTensor.from_sparse(batch_chars_sparse),
    output_encoding='UTF-8')))
print(repr(tf.strings.unicode_encode(
    tf.RaggedTensor.from_tensor(batch_chars_padded, padding=-1),
    output_encoding='UTF-8')))

# Note that the final character takes up 4 bytes in UTF8.
thanks = u'Thanks 😊'.encode('UTF-8')
num_bytes = tf.strings.length(thanks).numpy()
num_chars = tf.strings.length(thanks, unit='UTF8_CHAR').numpy()
print('{} bytes; {} UTF-8 characters'.format(num_bytes, num_chars))

# Here, unit='BYTE' (default). Returns a single byte with len=1
print(tf.strings.substr(thanks, pos=7, len=1).numpy())
# Specifying unit='UTF8_CHAR', returns a single 4 byte character in this case
print(tf.strings.substr(thanks, pos=7, len=1, unit='UTF8_CHAR').numpy())

print(repr(tf.strings.unicode_split(thanks, 'UTF-8').numpy()))

# expect-output:
# [104, 195, 108, 108, 111]
# [87, 104, 97, 116, 32, 105, 115, 32, 116, 104, 101, 32, 119, 101, 97, 116, 104, 101, 114, 32, 116, 111, 109, 111, 114, 114, 111, 119]
# [71, 246, 246, 100, 110, 105, 103, 104, 116]
# [128522]
# [[   104    195    108    108    111     -1     -1     -1     -1     -1
#       -1     -1     -1     -1     -1     -1     -1     -1     -1     -1
#       -1     -1     -1     -1     -1     -1     -1     -1]
#  [    87    104     97    116     32    105    115     32    116    104
#      101     32    119    101     97    116    104    101    114     32
#      116    111    109    111    114    114    111    119]
#  [    71    246    246    100    110    105    103    104    116     -1
#       -1     -1     -1     -1     -1     -1     -1     -1     -1     -1
#       -1     -1     -1     -1     -1     -1     -1     -1]
#  [128522     -1     -1     -1     -1     -1     -1     -1     -1     -1
#       -1     -1     -1     -1     -1     -1     -1     -1     -1     -1
#       -1     -1     -1     -1     -1     -1     -1     -1]]
# <tf.Tensor: shape=(3,), dtype=string, numpy=array([b'cat', b'dog', b'cow'], dtype=object)>
# <tf.Tensor: shape=(4,), dtype=string, numpy=
# array([b'h\xc3\x83llo', b'What is the weather tomorrow',
#        b'G\xc3\xb6\xc3\xb6dnight', b'\xf0\x9f\x98\x8a'], dtype=object)>
# <tf.Tensor: shape=(4,), dtype=string, numpy=
# array([b'h\xc3\x83llo', b'What is the weather tomorrow',
#        b'G\xc3\xb6\xc3\xb6dnight', b'\xf0\x9f\x98\x8a'], dtype=object)>
# <tf.Tensor: shape=(4,), dtype=string, numpy=
# array([b'h\xc3\x83llo', b'What is the weather tomorrow',
#        b'G\xc3\xb6\xc3\xb6dnight', b'\xf0\x9f\x98\x8a'], dtype=object)>
# 11 bytes; 8 UTF-8 characters
# b'\xf0'
# b'\xf0\x9f\x98\x8a'
# array([b'T', b'h', b'a', b'n', b'k', b's', b' ', b'\xf0\x9f\x98\x8a'],
#       dtype=object)
