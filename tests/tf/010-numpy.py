# NumPy interop (SPEC §1): arrays and NumPy scalars into tf ops, real ndarrays out, the buffer
# protocol and __array__. Expected values follow TensorFlow's documented rules: NumPy arrays keep
# their dtype (float64 stays float64, int64 stays int64) while Python floats become float32; a
# scalar tensor's .numpy() is a NumPy scalar; string tensors give bytes and object arrays.
import sys

had_numpy = "numpy" in sys.modules
import tensorflow as tf
print("import tensorflow leaves NumPy alone:", ("numpy" in sys.modules) == had_numpy)
import numpy as np

# NumPy values in
a = np.arange(6).reshape(2, 3)
print(tf.constant(a))
print(tf.constant(np.array([1.5, 2.5])).dtype, tf.constant(np.array([1.5], dtype=np.float32)).dtype,
      tf.constant([1.5, 2.5]).dtype, tf.constant(np.array([1, 2], dtype=np.int32)).dtype)
print(tf.constant(np.float64(2.0)), tf.constant(np.int32(7)))
print(tf.constant(np.array([True, False])))
print(tf.constant(np.array(["x", "yz"])), tf.constant(np.array([b"a", b"bc"], dtype=object)))
print(tf.constant(a, dtype=tf.float32))
print(tf.constant(a.T))
print(tf.convert_to_tensor(np.ones((2, 2))) + 1)
print(tf.reduce_sum(np.array([[1, 2], [3, 4]])))
print(tf.matmul(np.eye(2), np.full((2, 2), 3.0)))
print(tf.constant([1.0, 2.0]) + np.array([1.0, 2.0]))
print(np.array([1.0, 2.0]) + tf.constant([1.0, 2.0]))
print(np.float64(2.0) * tf.constant([1.0, 2.0]))
print(tf.constant([[1, 2], [3, 4]])[np.int64(1)])
print(tf.constant([1, 2], dtype=np.float32), tf.zeros([2], dtype=np.int64).dtype)
print(tf.float32 == np.float32, tf.as_dtype(np.float64), tf.as_dtype(np.dtype("int32")),
      tf.float32.as_numpy_dtype)

# NumPy values out
x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
n = x.numpy()
print(type(n).__name__, n.dtype, n.shape, n.flags.writeable)
n[0, 0] = 9.0
print(n.tolist(), x[0, 0].numpy())
for t in (tf.constant(2.5), tf.constant(3), tf.constant(4, dtype=tf.int64), tf.constant(True)):
    s = t.numpy()
    print(type(s).__name__, repr(s))
print(repr(tf.constant("ab").numpy()), repr(tf.constant(["a", "bc"]).numpy()))
print(repr(tf.constant([[b"a"], [b"b"]]).numpy()))

# the buffer protocol and __array__
m = memoryview(tf.constant([[1, 2], [3, 4]]))
print(m.format, m.itemsize, m.shape, m.strides, m.readonly, m.tolist())
v = np.asarray(x)
print(type(v).__name__, v.dtype, v.flags.writeable, v.tolist())
print(repr(np.array(tf.constant([1, 2]))), repr(np.array(tf.constant([1, 2]), dtype=np.float64)))
print(repr(np.asarray(tf.constant(["s", "t"]))))
print(repr(tf.constant([1, 2]).__array__()), repr(tf.constant([1, 2]).__array__(np.float32)))
t = tf.transpose(tf.reshape(tf.range(6), [2, 3]))
print(np.asarray(t).tolist(), bytes(memoryview(t)) == np.asarray(t).tobytes())
print(np.asarray(tf.reshape(tf.range(12), [3, 4])[:, ::2]).tolist())
print(np.sum(tf.constant([1, 2, 3])), np.mean(x), np.sqrt(tf.constant([4.0, 9.0])))
print(repr(np.asarray(tf.zeros([0, 3]))))
try:
    memoryview(tf.constant(["s"]))
except BufferError as e:
    print("BufferError:", e)

# A NumPy array passed to a Function is a tensor argument: keyed by dtype and shape, not by
# identity, and the result is a tensor.
@tf.function
def double(x):
    return x * 2
print(double(np.array([1, 2], dtype=np.int32)))
print(double(np.array([3, 4], dtype=np.int32)), double.experimental_get_tracing_count())
print(double(np.array([1.5])), double.experimental_get_tracing_count())

# expect-output:
# import tensorflow leaves NumPy alone: True
# tf.Tensor(
# [[0 1 2]
#  [3 4 5]], shape=(2, 3), dtype=int64)
# <dtype: 'float64'> <dtype: 'float32'> <dtype: 'float32'> <dtype: 'int32'>
# tf.Tensor(2.0, shape=(), dtype=float64) tf.Tensor(7, shape=(), dtype=int32)
# tf.Tensor([ True False], shape=(2,), dtype=bool)
# tf.Tensor([b'x' b'yz'], shape=(2,), dtype=string) tf.Tensor([b'a' b'bc'], shape=(2,), dtype=string)
# tf.Tensor(
# [[0. 1. 2.]
#  [3. 4. 5.]], shape=(2, 3), dtype=float32)
# tf.Tensor(
# [[0 3]
#  [1 4]
#  [2 5]], shape=(3, 2), dtype=int64)
# tf.Tensor(
# [[2. 2.]
#  [2. 2.]], shape=(2, 2), dtype=float64)
# tf.Tensor(10, shape=(), dtype=int64)
# tf.Tensor(
# [[3. 3.]
#  [3. 3.]], shape=(2, 2), dtype=float64)
# tf.Tensor([2. 4.], shape=(2,), dtype=float32)
# tf.Tensor([2. 4.], shape=(2,), dtype=float32)
# tf.Tensor([2. 4.], shape=(2,), dtype=float32)
# tf.Tensor([3 4], shape=(2,), dtype=int32)
# tf.Tensor([1. 2.], shape=(2,), dtype=float32) <dtype: 'int64'>
# True <dtype: 'float64'> <dtype: 'int32'> <class 'numpy.float32'>
# ndarray float32 (2, 2) True
# [[9.0, 2.0], [3.0, 4.0]] 1.0
# float32 2.5
# int32 3
# int64 4
# bool_ True
# b'ab' array([b'a', b'bc'], dtype=object)
# array([[b'a'],
#        [b'b']], dtype=object)
# i 4 (2, 2) (8, 4) True [[1, 2], [3, 4]]
# ndarray float32 False [[1.0, 2.0], [3.0, 4.0]]
# array([1, 2], dtype=int32) array([1., 2.])
# array([b's', b't'], dtype=object)
# array([1, 2], dtype=int32) array([1., 2.], dtype=float32)
# [[0, 3], [1, 4], [2, 5]] True
# [[0, 2], [4, 6], [8, 10]]
# 6 2.5 [2. 3.]
# array([], shape=(0, 3), dtype=float32)
# BufferError: A string tensor has no buffer; use .numpy().
# tf.Tensor([2 4], shape=(2,), dtype=int32)
# tf.Tensor([6 8], shape=(2,), dtype=int32) 1
# tf.Tensor([3.], shape=(1,), dtype=float64) 2
