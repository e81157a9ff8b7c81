# tf.data.Dataset eagerly: making datasets, their element_spec and repr, iterating them, and the
# transformations (batch, map), as TensorFlow documents them.
import tensorflow as tf

ds = tf.data.Dataset.from_tensor_slices([1, 2, 3])
print(ds)
print(isinstance(ds, tf.data.Dataset), len(ds))
for x in ds:
  print(x)

it = iter(ds)
print(next(it).numpy(), next(it).numpy(), next(it).numpy())
try:
  next(it)
except StopIteration:
  print("StopIteration")
# A new iterator starts again from the first element.
print([int(x) for x in ds])

# Tuples and dicts are structure; dict keys come out sorted, as tf.nest sorts them.
pairs = tf.data.Dataset.from_tensor_slices(({"b": [1., 2.], "a": [3, 4]}, [[1, 2], [3, 4]]))
print(pairs.element_spec)
for features, label in pairs:
  print(sorted(features), features["a"].numpy(), features["b"].numpy(), label.numpy())

print(tf.data.Dataset.from_tensors([1, 2]))
print(list(tf.data.Dataset.from_tensors(([1, 2], 3)).as_numpy_iterator()))

r = tf.data.Dataset.range(5)
print(r, r.cardinality())
print(list(tf.data.Dataset.range(2, 8, 2).as_numpy_iterator()))
print(list(tf.data.Dataset.range(5, 0, -2).as_numpy_iterator()))

b = tf.data.Dataset.range(7).batch(3)
print(b, len(b))
for x in b:
  print(x)
d = tf.data.Dataset.range(7).batch(3, drop_remainder=True)
print(d.element_spec, len(d))
print(list(d.as_numpy_iterator()))

# map traces its function once: the Python print runs once, not per element.
def double(x):
  print("tracing double with", x)
  return x * 2

m = tf.data.Dataset.from_tensor_slices([1, 2, 3]).map(double)
print(m)
print(list(m.as_numpy_iterator()))
print(list(m.as_numpy_iterator()))

# A tuple element is spread over the function's parameters.
swapped = tf.data.Dataset.from_tensor_slices(([1, 2], [10., 20.])).map(lambda a, b: (b, a))
print(swapped.element_spec)
print(list(swapped.as_numpy_iterator()))

# from_generator: output_types (unknown shapes) or output_signature.
g = tf.data.Dataset.from_generator(lambda: [(1, 1)] * 3, (tf.int32, tf.int32))
print(g)
print(g.cardinality())
for x, y in g:
  print(x.numpy() + y.numpy())

def ragged():
  for i in range(3):
    yield i, [i] * i

g2 = tf.data.Dataset.from_generator(
    ragged, output_signature=(tf.TensorSpec(shape=(), dtype=tf.int32),
                              tf.TensorSpec(shape=(None,), dtype=tf.int32)))
print(g2.element_spec)
for i, v in g2:
  print(i.numpy(), v)

# Errors.
try:
  len(g)
except TypeError as e:
  print("TypeError:", e)
try:
  tf.data.Dataset.from_tensor_slices(([1, 2, 3], [1, 2]))
except ValueError as e:
  print("ValueError:", e)
try:
  tf.data.Dataset.from_generator(ragged)
except TypeError as e:
  print("TypeError:", e)
uneven = tf.data.Dataset.from_generator(ragged, output_types=tf.int32, output_shapes=(None,))
print(uneven.element_spec)
try:
  list(tf.data.Dataset.from_generator(lambda: [[1], [2, 3]], tf.int32).batch(2))
except tf.errors.InvalidArgumentError as e:
  print("InvalidArgumentError:", e)

# expect-output:
# <_TensorSliceDataset element_spec=TensorSpec(shape=(), dtype=tf.int32, name=None)>
# True 3
# tf.Tensor(1, shape=(), dtype=int32)
# tf.Tensor(2, shape=(), dtype=int32)
# tf.Tensor(3, shape=(), dtype=int32)
# 1 2 3
# StopIteration
# [1, 2, 3]
# ({'a': TensorSpec(shape=(), dtype=tf.int32, name=None), 'b': TensorSpec(shape=(), dtype=tf.float32, name=None)}, TensorSpec(shape=(2,), dtype=tf.int32, name=None))
# ['a', 'b'] 3 1.0 [1 2]
# ['a', 'b'] 4 2.0 [3 4]
# <_TensorDataset element_spec=TensorSpec(shape=(2,), dtype=tf.int32, name=None)>
# [(array([1, 2], dtype=int32), 3)]
# <_RangeDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)> tf.Tensor(5, shape=(), dtype=int64)
# [2, 4, 6]
# [5, 3, 1]
# <_BatchDataset element_spec=TensorSpec(shape=(None,), dtype=tf.int64, name=None)> 3
# tf.Tensor([0 1 2], shape=(3,), dtype=int64)
# tf.Tensor([3 4 5], shape=(3,), dtype=int64)
# tf.Tensor([6], shape=(1,), dtype=int64)
# TensorSpec(shape=(3,), dtype=tf.int64, name=None) 2
# [array([0, 1, 2]), array([3, 4, 5])]
# tracing double with Tensor("args_0:0", shape=(), dtype=int32)
# <_MapDataset element_spec=TensorSpec(shape=(), dtype=tf.int32, name=None)>
# [2, 4, 6]
# [2, 4, 6]
# (TensorSpec(shape=(), dtype=tf.float32, name=None), TensorSpec(shape=(), dtype=tf.int32, name=None))
# [(10.0, 1), (20.0, 2)]
# <_FlatMapDataset element_spec=(TensorSpec(shape=<unknown>, dtype=tf.int32, name=None), TensorSpec(shape=<unknown>, dtype=tf.int32, name=None))>
# tf.Tensor(-2, shape=(), dtype=int64)
# 2
# 2
# 2
# (TensorSpec(shape=(), dtype=tf.int32, name=None), TensorSpec(shape=(None,), dtype=tf.int32, name=None))
# 0 tf.Tensor([], shape=(0,), dtype=int32)
# 1 tf.Tensor([1], shape=(1,), dtype=int32)
# 2 tf.Tensor([2 2], shape=(2,), dtype=int32)
# TypeError: The dataset length is unknown.
# ValueError: Dimensions 3 and 2 are not compatible
# TypeError: Missing required argument `output_signature` or `output_types`.
# TensorSpec(shape=(None,), dtype=tf.int32, name=None)
# InvalidArgumentError: Cannot batch tensors with different shapes in component 0. First element had shape [1] and element 1 had shape [2].
