# Shapes known only when the function runs: a list of dims holding tensors (tf.shape(x)[0]) is
# packed into a tensor, as TensorFlow does, for tf.zeros/ones/fill, tf.random.*, tf.reshape,
# tf.broadcast_to and tf.tile; the traced shapes keep every dim known while tracing (TF's shape
# inference reads the packed list: [n, 2] gives (None, 2)). Before, each raised a TypeError
# TensorFlow never raises ("`shape` must be known when the function is traced"), also for a
# `return` in a branch whose value's shape is unknown.
# (The graph's number after __inference_ is Trellis's: Function id x 1000 + its trace count.)
import tensorflow as tf


@tf.function
def make(x):
  n = tf.shape(x)[0]
  return (tf.zeros([n, 2]), tf.ones((n * 2,), tf.int32), tf.fill([n, 1], 7.0),
          tf.reshape(x, [n, -1]), tf.random.uniform([n, 3], seed=1), tf.broadcast_to(1.0, [n, 2]),
          tf.tile(x, [n, 1]))


spec = tf.TensorSpec([None, 2], tf.float32)
for t in make.get_concrete_function(spec).structured_outputs:
  print(t.shape)
for t in make(tf.ones([3, 2])):
  print(t.shape, t.dtype.name)


@tf.function
def branch(x):
  if tf.reduce_sum(x) > 0:
    return tf.reshape(x, [-1])
  return tf.zeros([tf.shape(x)[0] * 2])


print(branch(tf.ones([2, 1])).numpy(), branch(-tf.ones([2, 1])).numpy())


@tf.function(input_signature=[tf.TensorSpec(None, tf.float32)])
def flat_grad(x):
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.reduce_sum(tf.reshape(x, [tf.size(x)]) * tf.range(tf.cast(tf.size(x), tf.float32)))
  return tape.gradient(y, x)


print(flat_grad(tf.ones([2, 3])).numpy())


@tf.function(input_signature=[tf.TensorSpec([None], tf.int32)])
def pairs(x):
  return tf.reshape(x, [tf.shape(x)[0] // 2, 2])


print(pairs(tf.constant([1, 2, 3, 4])).numpy().tolist())
try:
  pairs(tf.constant([1, 2, 3]))
except tf.errors.InvalidArgumentError as e:
  print(type(e).__name__)
  print(e.message)
# expect-output:
# (None, 2)
# (None,)
# (None, 1)
# (None, None)
# (None, 3)
# (None, 2)
# (None, None)
# (3, 2) float32
# (6,) int32
# (3, 1) float32
# (3, 2) float32
# (3, 3) float32
# (3, 2) float32
# (9, 2) float32
# [1. 1.] [0. 0. 0. 0.]
# [[0. 1. 2.]
#  [3. 4. 5.]]
# [[1, 2], [3, 4]]
# InvalidArgumentError
# Input to reshape is a tensor with 3 values, but the requested shape has 2
# 	 [[{{node Reshape}}]] [Op:__inference_pairs_4000]
