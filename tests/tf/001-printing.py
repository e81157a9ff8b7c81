# SPEC §2's printing examples: str() and repr() of eager tensors.
import tensorflow as tf

print(tf.constant(2))
print(tf.constant(2.2))
print(tf.constant("aa"))
print(tf.constant([4, 1]))
print(tf.ones([2, 2]) + tf.ones([2, 2]))
print(repr(tf.constant(1.0)))
print(repr(tf.ones([2, 2]) * 2))
print(repr(tf.constant([True, False])))
print(tf.constant([[1.5, 2], [3, 4]]))
print(tf.float32, tf.float64, tf.int32, tf.int64, tf.bool, tf.string)
print(tf.float32.name, tf.string.name)

# expect-output:
# tf.Tensor(2, shape=(), dtype=int32)
# tf.Tensor(2.2, shape=(), dtype=float32)
# tf.Tensor(b'aa', shape=(), dtype=string)
# tf.Tensor([4 1], shape=(2,), dtype=int32)
# tf.Tensor(
# [[2. 2.]
#  [2. 2.]], shape=(2, 2), dtype=float32)
# <tf.Tensor: shape=(), dtype=float32, numpy=1.0>
# <tf.Tensor: shape=(2, 2), dtype=float32, numpy=
# array([[2., 2.],
#        [2., 2.]], dtype=float32)>
# <tf.Tensor: shape=(2,), dtype=bool, numpy=array([ True, False])>
# tf.Tensor(
# [[1.5 2. ]
#  [3.  4. ]], shape=(2, 2), dtype=float32)
# <dtype: 'float32'> <dtype: 'float64'> <dtype: 'int32'> <dtype: 'int64'> <dtype: 'bool'> <dtype: 'string'>
# float32 string
