# Keras's progress output (Keras 2.15, keras/callbacks.py ProgbarLogger and
# keras/utils/generic_utils.py Progbar): "Epoch i/n" lines when epochs > 1; with verbose=2 one
# line per epoch "steps/steps - Ns - loss: ... - Tms/epoch - Tms/step"; with verbose=1 a bar of
# 30 characters redrawn in place (backspaces over the last line, then "\r"): the first step's
# line with its ETA, then the final one with the step time. Times vary,
# so this program captures the output and replaces each time by "T" before printing it.
import contextlib
import io
import re

import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1, kernel_initializer="zeros",
                                                   use_bias=False)])
model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.1), loss="mse",
              metrics=["mae"])
x = np.array([[1.0], [2.0], [3.0], [4.0]])
y = 2 * x


def run(fn):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = fn()
    text = re.sub(r"\d+(ms|us|s)(/(epoch|step))?", r"T\2", out.getvalue())
    text = re.sub("\b+", lambda m: "<%d BS>" % len(m.group()), text).replace("\r", "<CR>")
    print(text, end="")
    return result


run(lambda: model.fit(x, y, epochs=2, batch_size=2, shuffle=False, verbose=2))
run(lambda: model.fit(x, y, epochs=1, batch_size=4, shuffle=False, verbose=2))
run(lambda: model.evaluate(x, y, batch_size=4, verbose=1))
run(lambda: model.predict(x, batch_size=4, verbose=1))

# expect-output:
# Epoch 1/2
# 2/2 - T - loss: 11.2500 - mae: 3.2500 - T/epoch - T/step
# Epoch 2/2
# 2/2 - T - loss: 6.3281 - mae: 2.4375 - T/epoch - T/step
# 1/1 - T - loss: 9.4922 - mae: 2.8125 - T/epoch - T/step
# <CR>1/1 [==============================] - ETA: T - loss: 2.3730 - mae: 1.4062<75 BS><CR>1/1 [==============================] - T T/step - loss: 2.3730 - mae: 1.4062
# <CR>1/1 [==============================] - ETA: T<46 BS><CR>1/1 [==============================] - T T/step
