# Docstring of tf.keras.callbacks.EarlyStopping (Keras 2.15, keras/callbacks.py): training stops
# when the monitored loss has not improved for `patience` epochs. (With inputs up to 99 and
# SGD's default learning rate the loss grows from the first epoch on, whatever the initial
# weights, so only 4 epochs run.) Then restore_best_weights with verbose=1, on a model whose
# loss is fixed by its data (zero inputs): its messages are Keras's.
import numpy as np
import tensorflow as tf

callback = tf.keras.callbacks.EarlyStopping(monitor='loss', patience=3)
# This callback will stop the training when there is no improvement in
# the loss for three consecutive epochs.
model = tf.keras.models.Sequential([tf.keras.layers.Dense(10)])
model.compile(tf.keras.optimizers.SGD(), loss='mse')
history = model.fit(np.arange(100).reshape(5, 20), np.zeros(5),
                    epochs=10, batch_size=1, callbacks=[callback],
                    verbose=0)
print(len(history.history['loss']))  # Only 4 epochs are run.
print(callback.stopped_epoch, callback.wait, model.stop_training)


class Flat(tf.keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        print("epoch", epoch, "loss", logs["loss"])


# Zero inputs and a zero bias: the loss stays 1.0 (the targets are ones), no epoch improves on
# the first, so training stops after patience + 1 epochs and the first epoch's weights return.
model = tf.keras.Sequential([tf.keras.layers.Dense(1, kernel_initializer="ones",
                                                   use_bias=False)])
model.compile(optimizer="sgd", loss="mse")
stop = tf.keras.callbacks.EarlyStopping(monitor="loss", patience=2, verbose=1,
                                        restore_best_weights=True)
history = model.fit(np.zeros((4, 3)), np.ones((4, 1)), epochs=10, callbacks=[Flat(), stop],
                    verbose=0)
print(history.epoch, stop.best, stop.best_epoch)
print(model.get_weights()[0].tolist())

# expect-output:
# 4
# 3 3 True
# epoch 0 loss 1.0
# epoch 1 loss 1.0
# epoch 2 loss 1.0
# Restoring model weights from the end of the best epoch: 1.
# Epoch 3: early stopping
# [0, 1, 2] 1.0 0
# [[1.0], [1.0], [1.0]]
