# https://www.tensorflow.org/guide/basics, section "Modules, layers, and models": the guide's
# x = tf.linspace(-2, 2, 201) from integer bounds, then cast to float32. TF's linspace returns
# float64 for integer bounds (linspace_nd recasts to the dtype of its step, an integer truediv),
# which is why the guide casts.
import tensorflow as tf

x = tf.linspace(-2, 2, 201)
print(x.dtype, x.shape)
x = tf.cast(x, tf.float32)
print(x[:3], x[-1])

# expect-output:
# <dtype: 'float64'> (201,)
# tf.Tensor([-2.   -1.98 -1.96], shape=(3,), dtype=float32) tf.Tensor(2.0, shape=(), dtype=float32)
