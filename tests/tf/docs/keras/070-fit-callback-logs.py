# https://www.tensorflow.org/guide/basics, "Training loops": Model.compile and Model.fit run the
# training loop; here on data whose results are fixed (zero initial kernel, no shuffling, one
# batch: plain gradient descent on y = 2x). A custom callback prints the logs Keras passes at
# each epoch end (Python floats), as tf.keras.callbacks.Callback documents; the loss is the
# compiled MeanSquaredError, "mae" a compiled metric. evaluate returns [loss, metric], predict a
# NumPy array. The values follow from the update rule: loss = 7.5 (w - 2)^2, its gradient
# 15 (w - 2), so w goes 0, 3, 1.5, 2.25 and the epochs' losses are 30, 7.5, 1.875.
import numpy as np
import tensorflow as tf


class PrintLogs(tf.keras.callbacks.Callback):
    def on_train_begin(self, logs=None):
        print("train begins", self.params)

    def on_epoch_end(self, epoch, logs=None):
        print(epoch, {k: round(v, 4) for k, v in logs.items()})

    def on_train_end(self, logs=None):
        print("train ends", sorted(logs))


model = tf.keras.Sequential([tf.keras.layers.Dense(1, kernel_initializer="zeros",
                                                   use_bias=False)])
model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.1),
              loss=tf.keras.losses.MeanSquaredError(), metrics=["mae"])
x = np.array([[1.0], [2.0], [3.0], [4.0]])
y = 2 * x
history = model.fit(x, y, epochs=3, batch_size=4, shuffle=False, verbose=0,
                    callbacks=[PrintLogs()])
print({k: [round(v, 4) for v in vs] for k, vs in history.history.items()})
print(round(float(model.layers[0].kernel.numpy()[0, 0]), 4))
print([round(v, 4) for v in model.evaluate(x, y, verbose=0)])
print(model.evaluate(x, y, verbose=0, return_dict=True).keys())
print(repr(model.predict(np.array([[1.0], [10.0]]), verbose=0).round(3)))
print(model.metrics_names)

# expect-output:
# train begins {'verbose': 0, 'epochs': 3, 'steps': 1}
# 0 {'loss': 30.0, 'mae': 5.0}
# 1 {'loss': 7.5, 'mae': 2.5}
# 2 {'loss': 1.875, 'mae': 1.25}
# train ends ['loss', 'mae']
# {'loss': [30.0, 7.5, 1.875], 'mae': [5.0, 2.5, 1.25]}
# 2.25
# [0.4688, 0.625]
# dict_keys(['loss', 'mae'])
# array([[ 2.25],
#        [22.5 ]], dtype=float32)
# ['loss', 'mae']
