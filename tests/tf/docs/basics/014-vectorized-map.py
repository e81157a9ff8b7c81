# https://www.tensorflow.org/api_docs/python/tf/vectorized_map: the docstring's two examples
# (an outer product per example, with a smaller batch and matrices than the page's 100 x 32 x 32
# to keep the program quick; per-example gradients of a Dense layer), whose asserts give the
# shapes; a function returning a dict inside a tf.function (the output keeps fn's structure), and
# an element whose first dimension is 1, broadcast to the batch as pfor's gather broadcasts it.
import tensorflow as tf

print(tf.vectorized_map(lambda x: x * 2, tf.constant([1, 2, 3])))

def outer_product(a):
  return tf.tensordot(a, a, 0)

batch_size = 10
a = tf.ones((batch_size, 4, 4))
c = tf.vectorized_map(outer_product, a)
assert c.shape == (batch_size, 4, 4, 4, 4)
print(c.shape)

batch_size = 10
num_features = 32
layer = tf.keras.layers.Dense(1)

def model_fn(arg):
  with tf.GradientTape() as g:
    inp, label = arg
    inp = tf.expand_dims(inp, 0)
    label = tf.expand_dims(label, 0)
    prediction = layer(inp)
    loss = tf.nn.l2_loss(label - prediction)
  return g.gradient(loss, (layer.kernel, layer.bias))

inputs = tf.random.uniform([batch_size, num_features])
labels = tf.random.uniform([batch_size, 1])
per_example_gradients = tf.vectorized_map(model_fn, (inputs, labels))
assert per_example_gradients[0].shape == (batch_size, num_features, 1)
assert per_example_gradients[1].shape == (batch_size, 1)
print([g.shape for g in per_example_gradients])

@tf.function
def traced(x, y):
  return tf.vectorized_map(lambda e: {'sum': e[0] + e[1], 'prod': e[0] * e[1]}, (x, y))
print(traced(tf.constant([1., 2., 3.]), tf.constant([4., 5., 6.])))
print(tf.vectorized_map(lambda e: e[0] * e[1], (tf.constant([1, 2, 3]), tf.constant([10]))))

# expect-output:
# tf.Tensor([2 4 6], shape=(3,), dtype=int32)
# (10, 4, 4, 4, 4)
# [TensorShape([10, 32, 1]), TensorShape([10, 1])]
# {'sum': <tf.Tensor: shape=(3,), dtype=float32, numpy=array([5., 7., 9.], dtype=float32)>, 'prod': <tf.Tensor: shape=(3,), dtype=float32, numpy=array([ 4., 10., 18.], dtype=float32)>}
# tf.Tensor([10 20 30], shape=(3,), dtype=int32)
