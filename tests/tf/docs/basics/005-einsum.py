# https://www.tensorflow.org/api_docs/python/tf/einsum, the docstring's examples: matrix
# multiplication, dot product, outer product, transpose, batch matrix multiplication (with and
# without an ellipsis), trace, diagonal and reduce sums. Shapes and the trace's value from the
# page.
import tensorflow as tf

m0 = tf.random.normal(shape=[2, 3])
m1 = tf.random.normal(shape=[3, 5])
e = tf.einsum('ij,jk->ik', m0, m1)
print(e.shape)
e = tf.einsum('ij,jk', m0, m1)  # the output subscripts may be left out
print(e.shape)

u = tf.random.normal(shape=[5])
v = tf.random.normal(shape=[5])
e = tf.einsum('i,i->', u, v)
print(e.shape)

u = tf.random.normal(shape=[3])
v = tf.random.normal(shape=[5])
e = tf.einsum('i,j->ij', u, v)
print(e.shape)

m = tf.ones([2, 3])
e = tf.einsum('ij->ji', m0)
print(e.shape)

s = tf.random.normal(shape=[7, 5, 3])
t = tf.random.normal(shape=[7, 3, 2])
e = tf.einsum('bij,bjk->bik', s, t)
print(e.shape)
e = tf.einsum('...ij,...jk->...ik', s, t)
print(e.shape)

m = tf.reshape(tf.range(9), [3, 3])
trace = tf.einsum('ii', m)
print(trace)
diag = tf.einsum('ii->i', m)
print(diag.shape)

m = tf.reshape(tf.range(6), [2, 3])
print(tf.einsum('ij->', m))
print(tf.einsum('ij->j', m))

# the same equations inside a tf.function agree with tf.matmul
a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
b = tf.constant([[5.0, 6.0], [7.0, 8.0]])
f = tf.function(lambda x, y: tf.einsum('ij,jk->ik', x, y))
print(bool(tf.reduce_all(f(a, b) == tf.matmul(a, b))))

# expect-output:
# (2, 5)
# (2, 5)
# ()
# (3, 5)
# (3, 2)
# (7, 5, 2)
# (7, 5, 2)
# tf.Tensor(12, shape=(), dtype=int32)
# (3,)
# tf.Tensor(15, shape=(), dtype=int32)
# tf.Tensor([3 5 7], shape=(3,), dtype=int32)
# True
