# https://www.tensorflow.org/api_docs/python/tf/dtypes/DType and the ops' OpDefs: the integer
# and half-precision dtypes in arithmetic, reductions and comparisons, wrapping as TensorFlow's
# integer kernels do. Where an op's "T" list leaves a dtype out, TensorFlow's attr error (Neg
# has no unsigned types, Exp no integers); texts from TensorFlow's op registry errors
# (core/framework/op_def_util.cc). Sum of complex numbers has a CPU kernel
# (reduction_ops_sum.cc registers TF_CALL_NUMBER_TYPES, complex64 and complex128 among them).
import tensorflow as tf

a = tf.constant([100, 100, 50, 7], dtype=tf.int8)
print(a + a)
print(tf.reduce_sum(a), tf.reduce_max(a), tf.reduce_mean(a))
u = tf.constant([250, 3, 0], dtype=tf.uint8)
print(u - tf.constant([251, 1, 1], dtype=tf.uint8))
print(u // tf.constant([7, 2, 1], dtype=tf.uint8), u % tf.constant([7, 2, 1], dtype=tf.uint8))
print(u > tf.constant(2, dtype=tf.uint8), tf.argmax(u).numpy())
print(tf.constant([7, 2], dtype=tf.int16) / tf.constant([2, 4], dtype=tf.int16))
h = tf.constant([0.1, 0.2, 2048], dtype=tf.float16)
print(tf.reduce_sum(h), tf.sqrt(h), tf.maximum(h, tf.constant(1, tf.float16)))
z = tf.constant([1 + 1j, 2 - 1j], dtype=tf.complex64)
print(z * z, z - 1, tf.abs(tf.constant(3 + 4j)))

def show(f):
    try:
        f()
    except (tf.errors.InvalidArgumentError, tf.errors.NotFoundError) as e:
        print(type(e).__name__ + ":", str(e).splitlines()[0])

show(lambda: -u)
show(lambda: tf.exp(a))
print(tf.reduce_sum(z))

# expect-output:
# tf.Tensor([-56 -56 100  14], shape=(4,), dtype=int8)
# tf.Tensor(1, shape=(), dtype=int8) tf.Tensor(100, shape=(), dtype=int8) tf.Tensor(64, shape=(), dtype=int8)
# tf.Tensor([255   2 255], shape=(3,), dtype=uint8)
# tf.Tensor([35  1  0], shape=(3,), dtype=uint8) tf.Tensor([5 1 0], shape=(3,), dtype=uint8)
# tf.Tensor([ True  True False], shape=(3,), dtype=bool) 0
# tf.Tensor([3.5 0.5], shape=(2,), dtype=float32)
# tf.Tensor(2048.0, shape=(), dtype=float16) tf.Tensor([ 0.3162  0.4473 45.25  ], shape=(3,), dtype=float16) tf.Tensor([1.000e+00 1.000e+00 2.048e+03], shape=(3,), dtype=float16)
# tf.Tensor([0.+2.j 3.-4.j], shape=(2,), dtype=complex64) tf.Tensor([0.+1.j 1.-1.j], shape=(2,), dtype=complex64) tf.Tensor(5.0, shape=(), dtype=float64)
# InvalidArgumentError: Value for attr 'T' of uint8 is not in the list of allowed values: bfloat16, half, float, double, int8, int16, int32, int64, complex64, complex128
# InvalidArgumentError: Value for attr 'T' of int8 is not in the list of allowed values: bfloat16, half, float, double, complex64, complex128
# tf.Tensor((3+0j), shape=(), dtype=complex64)
