# The eager parts of the tf.function guide's cells (functions called without tracing).
import tensorflow as tf

def add(a, b):
  return a + b

print(repr(add(tf.ones([2, 2]), tf.ones([2, 2]))))

def dense_layer(x, w, b):
  return add(tf.matmul(x, w), b)

print(repr(dense_layer(tf.ones([3, 2]), tf.ones([2, 2]), tf.ones([2]))))

def double(a):
  return a + a

print(double(tf.constant(1)))
print(double(tf.constant(1.1)))
print(double(tf.constant("a")))
print(double(tf.constant("b")))

def next_collatz(x):
  return tf.where(x % 2 == 0, x // 2, 3 * x + 1)

print(next_collatz(tf.constant([1, 2])))
print(tf.constant([1, 2, 3]))
print(tf.constant([[1, 2], [3, 4]]))
print(tf.constant([1.0, 2.0]))

def rnn_step(inp, state):
  return inp + state

input_data = tf.transpose(tf.ones([2, 3, 4]), [1, 0, 2])
state = tf.zeros([2, 4])
states = []
for i in tf.range(input_data.shape[0]):
  state = rnn_step(input_data[i], state)
  states.append(state)
print(repr(tf.transpose(tf.stack(states), [1, 0, 2])[0]))

x = tf.constant(10.)
print(2. * x + 0.)
print(repr(tf.constant(1)), repr(tf.constant(2.5) ** 2))

# expect-output:
# <tf.Tensor: shape=(2, 2), dtype=float32, numpy=
# array([[2., 2.],
#        [2., 2.]], dtype=float32)>
# <tf.Tensor: shape=(3, 2), dtype=float32, numpy=
# array([[3., 3.],
#        [3., 3.],
#        [3., 3.]], dtype=float32)>
# tf.Tensor(2, shape=(), dtype=int32)
# tf.Tensor(2.2, shape=(), dtype=float32)
# tf.Tensor(b'aa', shape=(), dtype=string)
# tf.Tensor(b'bb', shape=(), dtype=string)
# tf.Tensor([4 1], shape=(2,), dtype=int32)
# tf.Tensor([1 2 3], shape=(3,), dtype=int32)
# tf.Tensor(
# [[1 2]
#  [3 4]], shape=(2, 2), dtype=int32)
# tf.Tensor([1. 2.], shape=(2,), dtype=float32)
# <tf.Tensor: shape=(3, 4), dtype=float32, numpy=
# array([[1., 1., 1., 1.],
#        [2., 2., 2., 2.],
#        [3., 3., 3., 3.]], dtype=float32)>
# tf.Tensor(20.0, shape=(), dtype=float32)
# <tf.Tensor: shape=(), dtype=int32, numpy=1> <tf.Tensor: shape=(), dtype=float32, numpy=6.25>
