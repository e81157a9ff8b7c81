# Docstring of tf.keras.losses.BinaryCrossentropy (Keras 2.15, keras/losses.py), "Recommended
# Usage" (from_logits=True) and the probabilities form. The docstring shows approximate values
# (TensorFlow's doctest checker compares floats with a tolerance: 0.243 for 0.24365, 1.730 for
# 1.73094), so each value is printed as the docstring's number when within 1e-3 of it.
import tensorflow as tf

def show(x, *doc):
    values = [float(x)] if x.shape.rank == 0 else [float(v) for v in x]
    out = [("%.3f" % d) if abs(v - d) <= 1e-3 else repr(v) for v, d in zip(values, doc)]
    print(out[0] if x.shape.rank == 0 else out)

# Example 1: (batch_size = 1, number of samples = 4)
y_true = [0, 1, 0, 0]
y_pred = [-18.6, 0.51, 2.94, -12.8]
bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)
show(bce(y_true, y_pred), 0.865)

# Example 2: (batch_size = 2, number of samples = 4)
y_true = [[0, 1], [0, 0]]
y_pred = [[-18.6, 0.51], [2.94, -12.8]]
# Using default 'auto'/'sum_over_batch_size' reduction type.
bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)
show(bce(y_true, y_pred), 0.865)
# Using 'sample_weight' attribute
show(bce(y_true, y_pred, sample_weight=[0.8, 0.2]), 0.243)
# Using 'sum' reduction` type.
bce = tf.keras.losses.BinaryCrossentropy(from_logits=True,
    reduction=tf.keras.losses.Reduction.SUM)
show(bce(y_true, y_pred), 1.730)
# Using 'none' reduction type.
bce = tf.keras.losses.BinaryCrossentropy(from_logits=True,
    reduction=tf.keras.losses.Reduction.NONE)
show(bce(y_true, y_pred), 0.235, 1.496)

# Probabilities (from_logits=False): the same labels and sigmoid(logits) give the same losses.
probs = tf.sigmoid(tf.constant([[-18.6, 0.51], [2.94, -12.8]]))
show(tf.keras.losses.BinaryCrossentropy()(y_true, probs), 0.865)
print(tf.keras.losses.BinaryCrossentropy().name)

# expect-output:
# 0.865
# 0.865
# 0.243
# 1.730
# ['0.235', '1.496']
# 0.865
# binary_crossentropy
