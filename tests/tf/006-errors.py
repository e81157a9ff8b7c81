# TensorFlow's error classes and texts.
import tensorflow as tf

def show(f):
  try:
    f()
  except Exception as e:
    print(type(e).__name__ + ":", e)

print(issubclass(tf.errors.InvalidArgumentError, tf.errors.OpError), issubclass(tf.errors.OpError, Exception))
print(tf.errors.InvalidArgumentError)
show(lambda: tf.constant([[1, 2, 3], [4, 5, 6]]) + tf.constant([1, 2, 3, 4]))
show(lambda: tf.constant(1) + tf.constant(1.0))
show(lambda: tf.constant(1) + 1.5)
show(lambda: tf.constant([[1], [2, 3]]))
show(lambda: len(tf.constant(1)))
show(lambda: iter(tf.constant(1)))
show(lambda: {tf.constant(1): 1})
show(lambda: bool(tf.constant([1, 2])))
show(lambda: int(tf.constant([1, 2])))
show(lambda: tf.constant([1, 2])["a"])
show(lambda: tf.constant([1, 2]) + None)
show(lambda: tf.constant([1, 2])[5])
show(lambda: tf.reshape(tf.range(6), [4, 2]))
show(lambda: tf.matmul(tf.ones([2, 3]), tf.ones([2, 3])))
try:
  tf.constant([1]) - tf.constant([1, 2, 3])
except tf.errors.InvalidArgumentError as e:
  print("caught", e)

# expect-output:
# True True
# <class 'tensorflow.python.framework.errors_impl.InvalidArgumentError'>
# InvalidArgumentError: Incompatible shapes: [2,3] vs. [4] [Op:AddV2]
# InvalidArgumentError: cannot compute AddV2 as input #1(zero-based) was expected to be a int32 tensor but is a float tensor [Op:AddV2]
# TypeError: Cannot convert 1.5 to EagerTensor of dtype int32
# ValueError: Can't convert non-rectangular Python sequence to Tensor.
# TypeError: Scalar tensor has no `len()`
# TypeError: Cannot iterate over a scalar tensor.
# TypeError: Tensor is unhashable. Instead, use tensor.ref() as the key.
# ValueError: The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()
# TypeError: only size-1 arrays can be converted to Python scalars
# TypeError: Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar tf.int32/tf.int64 tensors are valid indices, got 'a'
# ValueError: Attempt to convert a value (None) with an unsupported type (<class 'NoneType'>) to a Tensor.
# InvalidArgumentError: slice index 5 of dimension 0 out of bounds. [Op:StridedSlice]
# InvalidArgumentError: Input to reshape is a tensor with 6 values, but the requested shape has 8 [Op:Reshape]
# InvalidArgumentError: Matrix size-incompatible: In[0]: [2,3], In[1]: [2,3] [Op:MatMul]
