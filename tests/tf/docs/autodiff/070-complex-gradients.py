# Gradients through complex numbers: TensorFlow registers them for Complex, Real, Imag, Conj,
# Angle and ComplexAbs (math_grad.py: _ComplexGrad, _RealGrad, _ImagGrad, _ConjGrad, _AngleGrad,
# _ComplexAbsGrad), and _MulGrad multiplies by the conjugate of the other operand, so a real
# loss of a complex intermediate has the ordinary derivative. Values by hand: |x + 2xj|^2 = 5x^2
# (30 at x = 3), |x + 4j| = sqrt(x^2 + 16) (3/5), imag(x + x^2 j) = x^2 (6), angle(x + 3j) =
# atan2(3, x) (-3/18). https://www.tensorflow.org/api_docs/python/tf/GradientTape (complex
# dtypes are trainable, as backprop_util.IsTrainable lists them).
import tensorflow as tf
x = tf.Variable(3.0)
with tf.GradientTape() as t:
    z = tf.complex(x, 2.0 * x)
    y = tf.math.real(z * tf.math.conj(z))
print(t.gradient(y, x))
with tf.GradientTape() as t:
    y = tf.abs(tf.complex(x, 4.0))
print(t.gradient(y, x))
with tf.GradientTape() as t:
    y = tf.math.imag(tf.complex(x, x * x))
print(t.gradient(y, x))
with tf.GradientTape() as t:
    y = tf.math.angle(tf.complex(x, 3.0))
print(t.gradient(y, x))

# expect-output:
# tf.Tensor(30.0, shape=(), dtype=float32)
# tf.Tensor(0.6, shape=(), dtype=float32)
# tf.Tensor(6.0, shape=(), dtype=float32)
# tf.Tensor(-0.16666667, shape=(), dtype=float32)
