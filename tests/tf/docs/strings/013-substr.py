# https://www.tensorflow.org/api_docs/python/tf/strings/substr, the docstring's examples
# (scalar pos and len; pos and len shaped as the input; broadcast onto the input and the
# input onto them) with their outputs
# from the page; a position past the end is Substr's InvalidArgumentError (TF's
# core/kernels/substr_op.cc text, which has no space before b'), and the UTF8_CHAR unit.
import tensorflow as tf

input = [b'Hello', b'World']
position = 1
length = 3
print(tf.strings.substr(input, position, length).numpy().tolist())

input = [[b'ten', b'eleven', b'twelve'],
         [b'thirteen', b'fourteen', b'fifteen'],
         [b'sixteen', b'seventeen', b'eighteen']]
position = [[1, 2, 3],
            [1, 2, 3],
            [1, 2, 3]]
length =   [[2, 3, 4],
            [4, 3, 2],
            [5, 5, 5]]
print(tf.strings.substr(input, position, length).numpy().tolist())

input = [[b'ten', b'eleven', b'twelve'],
         [b'thirteen', b'fourteen', b'fifteen'],
         [b'sixteen', b'seventeen', b'eighteen'],
         [b'nineteen', b'twenty', b'twentyone']]
position = [1, 2, 3]
length =   [1, 2, 3]
print(tf.strings.substr(input, position, length).numpy().tolist())

input = b'thirteen'
position = [1, 5, 7]
length =   [3, 2, 1]
print(tf.strings.substr(input, position, length).numpy().tolist())

print(tf.strings.substr("Hello", -3, 2).numpy())
print(tf.strings.substr('G\u00f6\u00f6dnight', 1, 3, unit="UTF8_CHAR").numpy().decode())

@tf.function
def first_two(s):
    return tf.strings.substr(s, 0, 2)

print(first_two(tf.constant(["So", "long", "thanks"])))

try:
    tf.strings.substr([b'Hello'], 10, 1)
except tf.errors.InvalidArgumentError as e:
    print(type(e).__name__ + ":", e)

# expect-output:
# [b'ell', b'orl']
# [[b'en', b'eve', b'lve'], [b'hirt', b'urt', b'te'], [b'ixtee', b'vente', b'hteen']]
# [[b'e', b'ev', b'lve'], [b'h', b'ur', b'tee'], [b'i', b've', b'hte'], [b'i', b'en', b'nty']]
# [b'hir', b'ee', b'n']
# b'll'
# ööd
# tf.Tensor([b'So' b'lo' b'th'], shape=(3,), dtype=string)
# InvalidArgumentError: pos 10 out of range for stringb'Hello' at index 0 [Op:Substr]
