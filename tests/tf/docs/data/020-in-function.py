# The new transformations inside tf.function: datasets made eagerly and passed to a Function,
# or captured by it, iterated by a `for` loop (one While whatever the length), as the
# tf.function guide's "Looping over Python data" and the tf.data guide's "Consuming sets of
# files"/"Iterating" use them; window datasets iterated inside the function.
# https://www.tensorflow.org/guide/function#looping_over_python_data
# https://www.tensorflow.org/guide/data#basic_mechanics
import tensorflow as tf

@tf.function
def total(ds):
  s = tf.constant(0, tf.int64)
  for x in ds:
    s += x
  return s

print(total(tf.data.Dataset.range(10).take(4)).numpy())
print(total(tf.data.Dataset.range(10).skip(7)).numpy())
print(total(tf.data.Dataset.range(10).filter(lambda x: x % 2 == 0)).numpy())
print(total(tf.data.Dataset.range(3).repeat(3)).numpy())
print(total(tf.data.Dataset.range(5).shuffle(5).cache().prefetch(1)).numpy())
print(total(tf.data.Dataset.range(4).concatenate(tf.data.Dataset.range(2))).numpy())
print(total(tf.data.Dataset.range(7).scan(tf.constant(0, tf.int64), lambda s, i: (s + i, s + i))).numpy())
print(total(tf.data.Dataset.range(3).window(2).flat_map(lambda w: w)).numpy())
print(total(tf.data.Dataset.range(4).interleave(lambda x: tf.data.Dataset.range(x), cycle_length=2)).numpy())
print(total.experimental_get_tracing_count())

@tf.function
def pairs(ds):
  for i, (a, b) in ds:
    tf.print(i, a, b)

pairs(tf.data.Dataset.zip((tf.data.Dataset.range(3), tf.data.Dataset.range(5, 8))).enumerate())

@tf.function
def padded(ds):
  for b in ds:
    tf.print(b)

padded(tf.data.Dataset.range(1, 4).map(lambda x: tf.zeros_like(tf.range(x)) + x).padded_batch(2))

captured = tf.data.Dataset.range(3).window(2)

@tf.function
def windows():
  for w in captured:
    tf.print("window")
    for x in w:
      tf.print(x)

windows()

@tf.function
def first(ds):
  return next(iter(ds.take(1)))

try:
  first(tf.data.Dataset.range(3))
except NotImplementedError as e:
  print("NotImplementedError")

# expect-output:
# 6
# 24
# 20
# 9
# 10
# 7
# 56
# 3
# 4
# 1
# 0 0 5
# 1 1 6
# 2 2 7
# [[1 0]
#  [2 2]]
# [[3 3 3]]
# window
# 0
# 1
# window
# 2
# NotImplementedError
