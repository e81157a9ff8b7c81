# tf.shape, tf.size and tf.rank, eagerly and inside tf.function where a dimension (or the rank)
# is known only when the graph runs.
# Sources: https://www.tensorflow.org/api_docs/python/tf/shape (the docstring's examples: the
# static shape printed while tracing, tf.print of tf.shape at run time),
# https://www.tensorflow.org/api_docs/python/tf/size and
# https://www.tensorflow.org/api_docs/python/tf/rank (their examples); AutoGraph's len() of a
# tensor (py_builtins.len_: the static first dimension, else tf.shape(x)[0]).
import tensorflow as tf

print(tf.shape(tf.constant([[1, 2, 3], [4, 5, 6]])))
print(tf.shape(tf.constant([[1, 2, 3], [4, 5, 6]]), out_type=tf.int64))
t = tf.constant([[[1, 1, 1], [2, 2, 2]], [[3, 3, 3], [4, 4, 4]]])
print(tf.size(t))
print(tf.rank(t))


@tf.function
def my_matmul(a, b):
  result = a @ b
  # the `print` executes during tracing.
  print("Result shape: ", a.shape, b.shape, result.shape)
  return result


cf = my_matmul.get_concrete_function(tf.TensorSpec([None, 3]), tf.TensorSpec([3, 5]))


@tf.function
def my_matmul(a, b):
  result = a @ b
  # the `tf.print` executes at run time.
  tf.print("Result shape: ", tf.shape(a), tf.shape(b), tf.shape(result))
  return result


cf = my_matmul.get_concrete_function(tf.TensorSpec([None, 3]), tf.TensorSpec([3, 5]))
result = cf(tf.ones([2, 3]), tf.ones([3, 5]))


@tf.function(input_signature=[tf.TensorSpec(None, tf.float32)])
def describe(x):
  n = len(x)
  return n, tf.shape(x), tf.size(x), tf.rank(x)


for value in (tf.ones([4]), tf.ones([2, 5, 1])):
  n, shape, size, rank = describe(value)
  print(n.numpy(), shape.numpy(), size.numpy(), rank.numpy())
# expect-output:
# tf.Tensor([2 3], shape=(2,), dtype=int32)
# tf.Tensor([2 3], shape=(2,), dtype=int64)
# tf.Tensor(12, shape=(), dtype=int32)
# tf.Tensor(3, shape=(), dtype=int32)
# Result shape:  (None, 3) (3, 5) (None, 5)
# Result shape:  [2 3] [3 5] [2 5]
# 4 [4] 4 1
# 2 [2 5 1] 10 3
