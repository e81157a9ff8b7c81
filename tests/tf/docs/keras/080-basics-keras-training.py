# https://www.tensorflow.org/guide/basics, "Training loops": the quadratic model in Keras, a
# Lambda layer stacking x and x**2 and a Dense layer with kernel_initializer=tf.random.normal,
# compiled with tf.keras.losses.MSE and SGD, fit for 100 epochs with verbose=0. The data are
# random (as in the guide), so the program prints what does not depend on them: the history's
# length and keys, and that training lowered the loss. (Saving the model is not supported.)
# `import keras` after `import tensorflow` gives the same Keras (intro_to_modules's setup).
# The guide writes tf.linspace(-2, 2, 201) (TensorFlow computes integer ends in float64);
# here float ends.
import tensorflow as tf
import keras

x = tf.linspace(-2.0, 2.0, 201)
x = tf.cast(x, tf.float32)

def f(x):
  y = x**2 + 2*x - 5
  return y

y = f(x) + tf.random.normal(shape=[201])

new_model = tf.keras.Sequential([
    tf.keras.layers.Lambda(lambda x: tf.stack([x, x**2], axis=1)),
    tf.keras.layers.Dense(units=1, kernel_initializer=tf.random.normal)])

new_model.compile(
    loss=tf.keras.losses.MSE,
    optimizer=tf.keras.optimizers.SGD(learning_rate=0.01))

history = new_model.fit(x, y,
                        epochs=100,
                        batch_size=32,
                        verbose=0)
print(len(history.history['loss']), list(history.history))
print(history.history['loss'][-1] < history.history['loss'][0])
print(history.params)
print(new_model.predict(x, verbose=0).shape)
print(keras is tf.keras, keras.layers is tf.keras.layers, keras.Sequential is tf.keras.Sequential)

# expect-output:
# 100 ['loss']
# True
# {'verbose': 0, 'epochs': 100, 'steps': 7}
# (201, 1)
# True True True
