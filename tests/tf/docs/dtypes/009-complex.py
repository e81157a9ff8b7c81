# Complex numbers, from the docstrings (outputs from the pages where they show one):
# https://www.tensorflow.org/api_docs/python/tf/math/abs (ComplexAbs: |a+bj| in the real dtype,
# the repr from the page), tf/math/conj (both reprs from the page; doctest wraps the first, the
# repr itself is one line), tf/math/real and tf/math/imag ([-2.25, 3.25] and [4.75, 5.75]: a
# complex128 gives float64; a real input's imag is zeros), tf/math/angle (array([2.0131705,
# 1.056345 ], dtype=float32); a real input: pi where negative, else 0), tf/dtypes/complex
# ([2.25+4.75j, 3.25+5.75j] as complex64). In a tf.function the same ops run as graph nodes.
# The TypeErrors are math_ops.py's texts (complex, conj, real).
import tensorflow as tf

x = tf.constant([[-2.25 + 4.75j], [-3.25 + 5.75j]])
print(repr(tf.abs(x)))
x = tf.constant([-2.25 + 4.75j, 3.25 + 5.75j])
print(repr(tf.math.conj(x)))
print(repr(tf.math.conj(tf.constant([-2.25, 3.25]))))
print(tf.math.real(x), tf.math.imag(x))
input = tf.constant([-2.25 + 4.75j, 3.25 + 5.75j], dtype=tf.complex64)
print(repr(tf.math.angle(input).numpy()))
print(tf.math.angle(tf.constant([-1.0, 2.0])))
real = tf.constant([2.25, 3.25])
imag = tf.constant([4.75, 5.75])
print(tf.complex(real, imag))
print(tf.math.imag(tf.constant([1.0, 2.0])))

@tf.function
def parts(z):
    return tf.math.real(z), tf.math.imag(z), tf.math.conj(z), tf.abs(z)

print(parts(tf.constant([3 + 4j], tf.complex64)))
for f in [lambda: tf.complex(tf.constant(1.0, tf.float16), tf.constant(1.0, tf.float16)),
          lambda: tf.complex(tf.constant(1.0), tf.constant(1.0, tf.float64)),
          lambda: tf.math.conj(tf.constant("a")),
          lambda: tf.math.real(tf.constant("a"))]:
    try:
        f()
    except TypeError as e:
        print("TypeError:", e)

# expect-output:
# <tf.Tensor: shape=(2, 1), dtype=float64, numpy=
# array([[5.25594901],
#        [6.60492241]])>
# <tf.Tensor: shape=(2,), dtype=complex128, numpy=array([-2.25-4.75j,  3.25-5.75j])>
# <tf.Tensor: shape=(2,), dtype=float32, numpy=array([-2.25,  3.25], dtype=float32)>
# tf.Tensor([-2.25  3.25], shape=(2,), dtype=float64) tf.Tensor([4.75 5.75], shape=(2,), dtype=float64)
# array([2.0131705, 1.056345 ], dtype=float32)
# tf.Tensor([3.1415927 0.       ], shape=(2,), dtype=float32)
# tf.Tensor([2.25+4.75j 3.25+5.75j], shape=(2,), dtype=complex64)
# tf.Tensor([0. 0.], shape=(2,), dtype=float32)
# (<tf.Tensor: shape=(1,), dtype=float32, numpy=array([3.], dtype=float32)>, <tf.Tensor: shape=(1,), dtype=float32, numpy=array([4.], dtype=float32)>, <tf.Tensor: shape=(1,), dtype=complex64, numpy=array([3.-4.j], dtype=complex64)>, <tf.Tensor: shape=(1,), dtype=float32, numpy=array([5.], dtype=float32)>)
# TypeError: The `real` and `imag` components have incorrect types: float16 float16. They must be consistent, and one of [tf.float32, tf.float64]
# TypeError: The `real` and `imag` components have incorrect types: float32 float64. They must be consistent, and one of [tf.float32, tf.float64]
# TypeError: Expected numeric or variant tensor, got dtype tf.string.
# TypeError: input must be a numeric tensor, but got tensor with dtype <dtype: 'string'>
