# https://www.tensorflow.org/api_docs/python/tf/debugging/check_numerics: a tensor with NaN or
# Inf fails with the CheckNumerics kernel's text ("MESSAGE : Tensor had NaN values"), eagerly
# with " [Op:CheckNumerics]"; a clean tensor passes through. tf.math.is_nan/is_inf/is_finite
# (https://www.tensorflow.org/api_docs/python/tf/math/is_nan): elementwise tests.
import tensorflow as tf

x = tf.constant([1.0, 0.0, float("nan"), float("inf")])
print(tf.debugging.check_numerics(tf.constant([1.0, 2.0]), "clean"))
try:
    tf.debugging.check_numerics(x, "checking x")
except tf.errors.InvalidArgumentError as e:
    print(e)
f = tf.function(lambda t: tf.debugging.check_numerics(t, "in graph") * 2)
print(f(tf.constant([1.0])))
try:
    f(tf.constant([float("nan")]))
except tf.errors.InvalidArgumentError as e:
    print(str(e).split("\n")[0])
print(tf.math.is_nan(x))
print(tf.math.is_inf(x))
print(tf.math.is_finite(x))

# expect-output:
# tf.Tensor([1. 2.], shape=(2,), dtype=float32)
# checking x : Tensor had Inf and NaN values [Op:CheckNumerics]
# tf.Tensor([2.], shape=(1,), dtype=float32)
# in graph : Tensor had NaN values
# tf.Tensor([False False  True False], shape=(4,), dtype=bool)
# tf.Tensor([False False False  True], shape=(4,), dtype=bool)
# tf.Tensor([ True  True False False], shape=(4,), dtype=bool)
