# Docstring of tf.keras.callbacks.History (Keras 2.15, keras/callbacks.py): fit returns the
# History callback; its params and the keys of its history. (verbose=0 here: the docstring's
# verbose=1 prints a progress bar with timings, and then params says 'verbose': 1.)
import numpy as np
import tensorflow as tf

model = tf.keras.models.Sequential([tf.keras.layers.Dense(10)])
model.compile(tf.keras.optimizers.SGD(), loss='mse')
history = model.fit(np.arange(100).reshape(5, 20), np.zeros(5),
                    epochs=10, verbose=0)
print(history.params)
# check the keys of history object
print(history.history.keys())
print(type(history).__name__, isinstance(history, tf.keras.callbacks.Callback))
print(history.epoch, len(history.history['loss']), type(history.history['loss'][0]).__name__)
print(model.history is history, history.model is model)

# expect-output:
# {'verbose': 0, 'epochs': 10, 'steps': 1}
# dict_keys(['loss'])
# History True
# [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] 10 float
# True True
