# Keras 2's pooling and Embedding layers, from their docstrings
# (https://www.tensorflow.org/api_docs/python/tf/keras/layers/MaxPool2D: the four examples and
# their reprs, predict with verbose=0 where the page shows no progress bar;
# tf/keras/layers/GlobalAveragePooling2D, GlobalAveragePooling1D: the output shapes;
# tf/keras/layers/Embedding: the (32, 10, 64) output, 'embeddings' uniform in [-0.05, 0.05)).
# AveragePooling2D's values by hand: the 2 x 2 windows' means, and with 'same' padding the
# edge windows average only the elements inside the input (avg_pool's SAME never counts the
# padding); MaxPooling1D and GlobalMaxPooling1D over range(12) as (1, 6, 2).
import numpy as np
import tensorflow as tf

# MaxPooling2D's docstring
x = tf.constant([[1., 2., 3.],
                 [4., 5., 6.],
                 [7., 8., 9.]])
x = tf.reshape(x, [1, 3, 3, 1])
max_pool_2d = tf.keras.layers.MaxPooling2D(pool_size=(2, 2),
   strides=(1, 1), padding='valid')
print(repr(max_pool_2d(x)))
x = tf.constant([[1., 2., 3., 4.],
                 [5., 6., 7., 8.],
                 [9., 10., 11., 12.]])
x = tf.reshape(x, [1, 3, 4, 1])
max_pool_2d = tf.keras.layers.MaxPooling2D(pool_size=(2, 2),
   strides=(2, 2), padding='valid')
print(repr(max_pool_2d(x)))
input_image = tf.constant([[[[1.], [1.], [2.], [4.]],
                           [[2.], [2.], [3.], [2.]],
                           [[4.], [1.], [1.], [1.]],
                           [[2.], [2.], [1.], [4.]]]])
output = tf.constant([[[[1], [0]],
                      [[0], [1]]]])
model = tf.keras.models.Sequential()
model.add(tf.keras.layers.MaxPooling2D(pool_size=(2, 2),
   input_shape=(4, 4, 1)))
model.compile('adam', 'mean_squared_error')
print(repr(model.predict(input_image, steps=1, verbose=0)))
x = tf.constant([[1., 2., 3.],
                 [4., 5., 6.],
                 [7., 8., 9.]])
x = tf.reshape(x, [1, 3, 3, 1])
max_pool_2d = tf.keras.layers.MaxPooling2D(pool_size=(2, 2),
   strides=(1, 1), padding='same')
print(repr(max_pool_2d(x)))

# AveragePooling2D: the same windows averaged; with 'same' padding the padding is not counted
avg_pool_2d = tf.keras.layers.AveragePooling2D(pool_size=(2, 2),
   strides=(1, 1), padding='valid')
print(avg_pool_2d(x)[0, :, :, 0])
print(tf.keras.layers.AveragePooling2D(pool_size=(2, 2), strides=(1, 1),
                                       padding='same')(x)[0, :, :, 0])

# The global poolings' docstrings: shapes
input_shape = (2, 4, 5, 3)
x = tf.random.normal(input_shape)
y = tf.keras.layers.GlobalAveragePooling2D()(x)
print(y.shape)
y = tf.keras.layers.GlobalMaxPooling2D(keepdims=True)(x)
print(y.shape)
input_shape = (2, 3, 4)
x = tf.random.normal(input_shape)
y = tf.keras.layers.GlobalAveragePooling1D()(x)
print(y.shape)
x = tf.reshape(tf.range(12.), [1, 6, 2])
print(tf.keras.layers.MaxPooling1D(pool_size=2)(x)[0], tf.keras.layers.GlobalMaxPooling1D()(x))

# Embedding's docstring
model = tf.keras.Sequential()
model.add(tf.keras.layers.Embedding(1000, 64, input_length=10))
# The model will take as input an integer matrix of size (batch,
# input_length), and the largest integer (i.e. word index) in the input
# should be no larger than 999 (vocabulary size).
# Now model.output_shape is (None, 10, 64), where `None` is the batch
# dimension.
input_array = np.random.randint(1000, size=(32, 10))
model.compile('rmsprop', 'mse')
output_array = model.predict(input_array, verbose=0)
print(output_array.shape)
print(model.output_shape, [v.name for v in model.variables])
e = model.layers[0]
print(bool(tf.reduce_all(tf.abs(e.embeddings) <= 0.05)),
      bool(tf.reduce_all(output_array[0, 3] == e.embeddings[input_array[0, 3]])))

# expect-output:
# <tf.Tensor: shape=(1, 2, 2, 1), dtype=float32, numpy=
# array([[[[5.],
#          [6.]],
#
#         [[8.],
#          [9.]]]], dtype=float32)>
# <tf.Tensor: shape=(1, 1, 2, 1), dtype=float32, numpy=
# array([[[[6.],
#          [8.]]]], dtype=float32)>
# array([[[[2.],
#          [4.]],
#
#         [[4.],
#          [4.]]]], dtype=float32)
# <tf.Tensor: shape=(1, 3, 3, 1), dtype=float32, numpy=
# array([[[[5.],
#          [6.],
#          [6.]],
#
#         [[8.],
#          [9.],
#          [9.]],
#
#         [[8.],
#          [9.],
#          [9.]]]], dtype=float32)>
# tf.Tensor(
# [[3. 4.]
#  [6. 7.]], shape=(2, 2), dtype=float32)
# tf.Tensor(
# [[3.  4.  4.5]
#  [6.  7.  7.5]
#  [7.5 8.5 9. ]], shape=(3, 3), dtype=float32)
# (2, 3)
# (2, 1, 1, 3)
# (2, 4)
# tf.Tensor(
# [[ 2.  3.]
#  [ 6.  7.]
#  [10. 11.]], shape=(3, 2), dtype=float32) tf.Tensor([[10. 11.]], shape=(1, 2), dtype=float32)
# (32, 10, 64)
# (None, 10, 64) ['embedding/embeddings:0']
# True True
