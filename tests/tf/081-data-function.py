# Datasets and their iterators inside traced functions: a dataset argument is one variant
# placeholder keyed by its element spec, `for` over it is one While loop whatever its length
# (the guide's "Looping over Python data"), and next() on an iterator argument is an
# IteratorGetNext op that advances the iterator at every call (the guide's "Iterators").
import tensorflow as tf

def measure_graph_size(f, *args):
  g = f.get_concrete_function(*args).graph
  print("{}({}) contains {} nodes in its graph".format(
      f.__name__, ', '.join(map(str, args)), len(g.as_graph_def().node)))

@tf.function
def train(dataset):
  loss = tf.constant(0)
  for x, y in dataset:
    loss += tf.abs(y - x)
  return loss

small_data = [(1, 1)] * 3
big_data = [(1, 1)] * 10
measure_graph_size(train, small_data)
measure_graph_size(train, big_data)
measure_graph_size(train, tf.data.Dataset.from_generator(lambda: small_data, (tf.int32, tf.int32)))
measure_graph_size(train, tf.data.Dataset.from_generator(lambda: big_data, (tf.int32, tf.int32)))
print(train.experimental_get_tracing_count())

# The generator runs when the graph runs, once per call.
calls = []
def pairs():
  calls.append(1)
  return [(1, 3), (5, 2)]
gen = tf.data.Dataset.from_generator(pairs, (tf.int32, tf.int32))
print(train(gen).numpy(), train(gen).numpy(), len(calls))
# A dataset of the same element spec reuses the trace.
print(train(tf.data.Dataset.from_tensor_slices(([1, 2, 3], [4, 4, 4]))).numpy())
print(train.experimental_get_tracing_count())

cf = train.get_concrete_function(gen)
print([(n.name, n.op) for n in cf.graph.as_graph_def().node])

# Dict elements, batches and a dataset made eagerly outside the function.
features = tf.data.Dataset.from_tensor_slices({"x": [1., 2., 3., 4.], "w": [1., 0., 1., 0.]})

@tf.function
def weighted(ds):
  total = tf.constant(0.)
  for e in ds:
    tf.print("x =", e["x"])
    total += tf.reduce_sum(e["x"] * e["w"])
  return total

print(weighted(features).numpy())
print(weighted(features.batch(3)).numpy())
print(weighted.experimental_get_tracing_count())

captured = tf.data.Dataset.range(4)

@tf.function
def count():
  n = tf.constant(0, dtype=tf.int64)
  for v in captured:
    n += v
  return n

print(count().numpy(), count().numpy())

# Iterators: Python's iterator is read once at trace time; a dataset iterator is a graph op.
@tf.function
def buggy_consume_next(iterator):
  tf.print("Value:", next(iterator))

iterator = iter([1, 2, 3])
buggy_consume_next(iterator)
buggy_consume_next(iterator)
buggy_consume_next(iterator)

@tf.function
def good_consume_next(iterator):
  tf.print("Value:", next(iterator))

iterator = iter(tf.data.Dataset.from_tensor_slices([1, 2, 3]))
good_consume_next(iterator)
good_consume_next(iterator)
good_consume_next(iterator)
print(good_consume_next.experimental_get_tracing_count())
try:
  good_consume_next(iterator)
except tf.errors.OutOfRangeError as e:
  print("OutOfRangeError:", str(e).splitlines()[0])
# The eager side shares the iterator's position with the graph.
it2 = iter(tf.data.Dataset.range(10, 13))
good_consume_next(it2)
print(next(it2).numpy())

# iter() inside the function makes a fresh iterator at every call.
@tf.function
def first_two(ds):
  it = iter(ds)
  return next(it) + next(it)

print(first_two(tf.data.Dataset.from_tensor_slices([5, 6, 7])).numpy())
print(first_two(tf.data.Dataset.from_tensor_slices([5, 6, 7])).numpy())

# expect-output:
# train([(1, 1), (1, 1), (1, 1)]) contains 11 nodes in its graph
# train([(1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1)]) contains 32 nodes in its graph
# train(<_FlatMapDataset element_spec=(TensorSpec(shape=<unknown>, dtype=tf.int32, name=None), TensorSpec(shape=<unknown>, dtype=tf.int32, name=None))>) contains 6 nodes in its graph
# train(<_FlatMapDataset element_spec=(TensorSpec(shape=<unknown>, dtype=tf.int32, name=None), TensorSpec(shape=<unknown>, dtype=tf.int32, name=None))>) contains 6 nodes in its graph
# 3
# 5 5 2
# 6
# 3
# [('dataset', 'Placeholder'), ('Const', 'Const'), ('MakeIterator', 'MakeIterator'), ('IteratorGetNextAsOptional', 'IteratorGetNextAsOptional'), ('while', 'While'), ('Identity', 'Identity')]
# x = 1
# x = 2
# x = 3
# x = 4
# 4.0
# x = [1 2 3]
# x = [4]
# 4.0
# 2
# 6 6
# Value: 1
# Value: 1
# Value: 1
# Value: 1
# Value: 2
# Value: 3
# 1
# OutOfRangeError: End of sequence
# Value: 10
# 11
# 11
# 11
