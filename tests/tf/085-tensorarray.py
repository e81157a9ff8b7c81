# tf.TensorArray: eagerly a list of tensors changed in place, with TensorFlow's checks; inside a
# traced function a tensor list carried by TensorList* ops, each write a new value.
import tensorflow as tf

ta = tf.TensorArray(tf.float32, size=3)
w = ta.write(0, 1.)
print(w is ta)
ta = ta.write(1, 2)
print(ta.size(), ta.dtype.name, ta.element_shape, ta.dynamic_size)
# An unset element reads as zeros of the element shape.
print(ta.stack())
print(ta.read(1))
try:
  ta.read(1)
except tf.errors.InvalidArgumentError as e:
  print("InvalidArgumentError:", e)
try:
  ta.write(3, 4.)
except tf.errors.OutOfRangeError as e:
  print("OutOfRangeError:", e)
try:
  ta.write(-1, 4.)
except tf.errors.OutOfRangeError as e:
  print("OutOfRangeError:", e)
try:
  ta.read(7)
except tf.errors.OutOfRangeError as e:
  print("OutOfRangeError:", e)
try:
  ta.write(2, tf.constant(1))
except tf.errors.InvalidArgumentError as e:
  print("InvalidArgumentError:", e)

d = tf.TensorArray(tf.int32, size=0, dynamic_size=True, clear_after_read=False)
for i in range(4):
  d = d.write(i, [i, i * i])
print(d.size().numpy(), d.element_shape)
print(d.stack())
print(d.read(3), d.read(3))
print(d.gather([3, 0]))
print(d.concat())
try:
  d.write(4, [1, 2, 3])
except ValueError as e:
  print("ValueError:", e)

u = tf.TensorArray(tf.float32, size=2).unstack([[1., 2.], [3., 4.]])
print(u.size().numpy(), u.read(1))
try:
  tf.TensorArray(tf.float32, size=1).unstack([1., 2.])
except ValueError as e:
  print("ValueError:", e)
print(tf.TensorArray(tf.float32, size=0, element_shape=[2]).stack())
print(repr(ta).startswith("<tensorflow.python.ops.tensor_array_ops.TensorArray object at 0x"))

@tf.function
def pairs(x):
  ta = tf.TensorArray(tf.float32, size=2)
  ta = ta.write(0, x)
  ta = ta.write(1, x * 2)
  return ta.stack(), ta.read(1), ta.size()

print(pairs(tf.constant([1., 2.])))
print([n.op for n in pairs.get_concrete_function(tf.constant([1., 2.])).graph.as_graph_def().node])

@tf.function
def grow(x):
  ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
  ta = ta.unstack(x)
  ta = ta.write(3, 10)
  return ta.stack(), ta.size(), ta.gather([0, 3]), ta.concat() if False else ta.read(2)

print(grow(tf.constant([1, 2, 3])))

@tf.function
def overflow():
  ta = tf.TensorArray(tf.float32, size=2)
  ta = ta.write(2, 1.)
  return ta.stack()

try:
  overflow()
except tf.errors.InvalidArgumentError as e:
  print("InvalidArgumentError:", str(e).splitlines()[0])

# expect-output:
# True
# tf.Tensor(3, shape=(), dtype=int32) float32 () False
# tf.Tensor([1. 2. 0.], shape=(3,), dtype=float32)
# tf.Tensor(2.0, shape=(), dtype=float32)
# InvalidArgumentError: Could not read index 1 twice because it was cleared after a previous read (perhaps try setting clear_after_read = false?)
# OutOfRangeError: Tried to write to index 3 but array is not resizeable and size is: 3 
# OutOfRangeError: Writing to negative indices (index -1) is not allowed.
# OutOfRangeError: Tried to read from index 7 but array size is: 3 
# InvalidArgumentError: TensorArray dtype is float32 but Op is trying to write dtype int32 
# 4 (2,)
# tf.Tensor(
# [[0 0]
#  [1 1]
#  [2 4]
#  [3 9]], shape=(4, 2), dtype=int32)
# tf.Tensor([3 9], shape=(2,), dtype=int32) tf.Tensor([3 9], shape=(2,), dtype=int32)
# tf.Tensor(
# [[3 9]
#  [0 0]], shape=(2, 2), dtype=int32)
# tf.Tensor([0 0 1 1 2 4 3 9], shape=(8,), dtype=int32)
# ValueError: Incompatible shape for value ((3,)), expected ((2,))
# 2 tf.Tensor([3. 4.], shape=(2,), dtype=float32)
# ValueError: Cannot unstack 2 tensors into a TensorArray of static size 1 
# tf.Tensor([], shape=(0, 2), dtype=float32)
# True
# (<tf.Tensor: shape=(2, 2), dtype=float32, numpy=
# array([[1., 2.],
#        [2., 4.]], dtype=float32)>, <tf.Tensor: shape=(2,), dtype=float32, numpy=array([2., 4.], dtype=float32)>, <tf.Tensor: shape=(), dtype=int32, numpy=2>)
# ['Placeholder', 'Const', 'TensorListReserve', 'Const', 'TensorListSetItem', 'Const', 'Mul', 'Const', 'TensorListSetItem', 'TensorListStack', 'Const', 'TensorListGetItem', 'Const', 'Identity', 'Identity', 'Identity']
# (<tf.Tensor: shape=(4,), dtype=int32, numpy=array([ 1,  2,  3, 10], dtype=int32)>, <tf.Tensor: shape=(), dtype=int32, numpy=4>, <tf.Tensor: shape=(2,), dtype=int32, numpy=array([ 1, 10], dtype=int32)>, <tf.Tensor: shape=(), dtype=int32, numpy=3>)
# InvalidArgumentError: Trying to modify element 2 in a list with 2 elements.
