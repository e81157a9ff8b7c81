# Keras 2.15 (keras/engine/training.py make_train_function): fit runs train_step inside a
# tf.function (reduce_retracing=True), so Python code in a model's call runs when the step is
# traced, not at every batch (4 batches here), and tf.print runs at every batch; compile(run_eagerly=True) runs
# the step as plain Python. Overriding train_step customizes what fit does
# (https://www.tensorflow.org/guide/keras/customizing_what_happens_in_fit).
import sys

import numpy as np
import tensorflow as tf


class Traced(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(1, kernel_initializer="ones", use_bias=False)

    python_calls = 0

    def call(self, x):
        Traced.python_calls += 1
        tf.print("batch of", tf.shape(x)[0], output_stream=sys.stdout)
        return self.dense(x)


model = Traced()
model.compile(optimizer="sgd", loss="mse")
model.fit(np.ones((6, 2)), np.ones((6, 1)), batch_size=3, epochs=2, shuffle=False, verbose=0)
print(type(model.train_function).__name__, Traced.python_calls < 4)
Traced.python_calls = 0

model.compile(optimizer="sgd", loss="mse", run_eagerly=True)
model.fit(np.ones((3, 2)), np.ones((3, 1)), batch_size=3, epochs=2, verbose=0)
print(Traced.python_calls)


class CustomStep(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(1, kernel_initializer="zeros", use_bias=False)
        self.loss_tracker = tf.keras.metrics.Mean(name="loss")

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = tf.reduce_mean(tf.square(y - y_pred))
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        self.loss_tracker.update_state(loss)
        return {"loss": self.loss_tracker.result()}

    @property
    def metrics(self):
        return [self.loss_tracker]


model = CustomStep()
model.compile(optimizer=tf.keras.optimizers.SGD(0.1))
history = model.fit(np.ones((4, 1), dtype="float32"), np.ones((4, 1), dtype="float32"),
                    batch_size=4, epochs=3, verbose=0)
print([round(v, 4) for v in history.history["loss"]])

# expect-output:
# batch of 3
# batch of 3
# batch of 3
# batch of 3
# Function True
# batch of 3
# batch of 3
# 2
# [1.0, 0.64, 0.4096]
