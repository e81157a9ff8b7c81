# The tf.data guide, "Time series windowing", "Using window".
# https://www.tensorflow.org/guide/data#using_window
# `windows.flat_map(lambda x: x)` is taken out of the `for` header onto a line of its own:
# AutoGraph here cannot yet find the source of a lambda written inside a `for` statement.
import tensorflow as tf

range_ds = tf.data.Dataset.range(100000)
window_size = 5

windows = range_ds.window(window_size, shift=1)
for sub_ds in windows.take(5):
  print(sub_ds)

flat = windows.flat_map(lambda x: x)
for x in flat.take(30):
  print(x.numpy(), end=' ')
print()

def sub_to_batch(sub):
  return sub.batch(window_size, drop_remainder=True)

for example in windows.flat_map(sub_to_batch).take(5):
  print(example.numpy())

def make_window_dataset(ds, window_size=5, shift=1, stride=1):
  windows = ds.window(window_size, shift=shift, stride=stride)

  def sub_to_batch(sub):
    return sub.batch(window_size, drop_remainder=True)

  windows = windows.flat_map(sub_to_batch)
  return windows

ds = make_window_dataset(range_ds, window_size=10, shift = 5, stride=3)

for example in ds.take(10):
  print(example.numpy())

def dense_1_step(batch):
  # Shift features and labels one step relative to each other.
  return batch[:-1], batch[1:]

dense_labels_ds = ds.map(dense_1_step)

for inputs,labels in dense_labels_ds.take(3):
  print(inputs.numpy(), "=>", labels.numpy())

# expect-output:
# <_VariantDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>
# <_VariantDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>
# <_VariantDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>
# <_VariantDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>
# <_VariantDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>
# 0 1 2 3 4 1 2 3 4 5 2 3 4 5 6 3 4 5 6 7 4 5 6 7 8 5 6 7 8 9 
# [0 1 2 3 4]
# [1 2 3 4 5]
# [2 3 4 5 6]
# [3 4 5 6 7]
# [4 5 6 7 8]
# [ 0  3  6  9 12 15 18 21 24 27]
# [ 5  8 11 14 17 20 23 26 29 32]
# [10 13 16 19 22 25 28 31 34 37]
# [15 18 21 24 27 30 33 36 39 42]
# [20 23 26 29 32 35 38 41 44 47]
# [25 28 31 34 37 40 43 46 49 52]
# [30 33 36 39 42 45 48 51 54 57]
# [35 38 41 44 47 50 53 56 59 62]
# [40 43 46 49 52 55 58 61 64 67]
# [45 48 51 54 57 60 63 66 69 72]
# [ 0  3  6  9 12 15 18 21 24] => [ 3  6  9 12 15 18 21 24 27]
# [ 5  8 11 14 17 20 23 26 29] => [ 8 11 14 17 20 23 26 29 32]
# [10 13 16 19 22 25 28 31 34] => [13 16 19 22 25 28 31 34 37]
