# Docstrings of tf.keras.losses.MeanSquaredError and MeanAbsoluteError (Keras 2.15,
# keras/losses.py): the default 'auto' ('sum_over_batch_size') reduction, sample_weight, and
# the 'sum' and 'none' reductions; the function forms tf.keras.losses.MSE / mae.
import tensorflow as tf

y_true = [[0., 1.], [0., 0.]]
y_pred = [[1., 1.], [1., 0.]]
# Using 'auto'/'sum_over_batch_size' reduction type.
mse = tf.keras.losses.MeanSquaredError()
print(mse(y_true, y_pred).numpy())
# Calling with 'sample_weight'.
print(mse(y_true, y_pred, sample_weight=[0.7, 0.3]).numpy())
# Using 'sum' reduction type.
mse = tf.keras.losses.MeanSquaredError(
    reduction=tf.keras.losses.Reduction.SUM)
print(mse(y_true, y_pred).numpy())
# Using 'none' reduction type.
mse = tf.keras.losses.MeanSquaredError(
    reduction=tf.keras.losses.Reduction.NONE)
print(repr(mse(y_true, y_pred).numpy()))
print(mse.name, mse.reduction)

mae = tf.keras.losses.MeanAbsoluteError()
print(mae(y_true, y_pred).numpy())
print(mae(y_true, y_pred, sample_weight=[0.7, 0.3]).numpy())
mae = tf.keras.losses.MeanAbsoluteError(reduction=tf.keras.losses.Reduction.SUM)
print(mae(y_true, y_pred).numpy())
mae = tf.keras.losses.MeanAbsoluteError(reduction=tf.keras.losses.Reduction.NONE)
print(repr(mae(y_true, y_pred).numpy()))

# The functions give the per-example losses (mean over the last axis).
print(tf.keras.losses.MSE(y_true, y_pred))
print(tf.keras.losses.mean_absolute_error(y_true, y_pred))
print(tf.keras.losses.get("mse") is tf.keras.losses.mean_squared_error)
try:
    tf.keras.losses.MeanSquaredError(reduction="mean")
except ValueError as e:
    print("ValueError:", e)

# expect-output:
# 0.5
# 0.25
# 1.0
# array([0.5, 0.5], dtype=float32)
# mean_squared_error none
# 0.5
# 0.25
# 1.0
# array([0.5, 0.5], dtype=float32)
# tf.Tensor([0.5 0.5], shape=(2,), dtype=float32)
# tf.Tensor([0.5 0.5], shape=(2,), dtype=float32)
# True
# ValueError: Invalid Reduction Key: mean. Expected keys are "('auto', 'none', 'sum', 'sum_over_batch_size')"
