# Docstrings of tf.keras.losses.CategoricalCrossentropy and SparseCategoricalCrossentropy
# (Keras 2.15, keras/losses.py), printed to the digits the docstrings show; from_logits=True
# gives the same losses for log-probabilities.
import tensorflow as tf

def show(x, digits=3):
    fmt = "." + str(digits) + "f"
    print(format(float(x), fmt) if x.shape.rank == 0 else [format(float(v), fmt) for v in x])

y_true = [[0, 1, 0], [0, 0, 1]]
y_pred = [[0.05, 0.95, 0], [0.1, 0.8, 0.1]]
# Using 'auto'/'sum_over_batch_size' reduction type.
cce = tf.keras.losses.CategoricalCrossentropy()
show(cce(y_true, y_pred))
# Calling with 'sample_weight'.
show(cce(y_true, y_pred, sample_weight=tf.constant([0.3, 0.7])))
# Using 'sum' reduction type.
cce = tf.keras.losses.CategoricalCrossentropy(
    reduction=tf.keras.losses.Reduction.SUM)
show(cce(y_true, y_pred))
# Using 'none' reduction type.
cce = tf.keras.losses.CategoricalCrossentropy(
    reduction=tf.keras.losses.Reduction.NONE)
r = cce(y_true, y_pred)
print(format(float(r[0]), ".4f"), format(float(r[1]), ".3f"))

y_true = [1, 2]
y_pred = [[0.05, 0.95, 0], [0.1, 0.8, 0.1]]
# Using 'auto'/'sum_over_batch_size' reduction type.
scce = tf.keras.losses.SparseCategoricalCrossentropy()
show(scce(y_true, y_pred))
# Calling with 'sample_weight'.
show(scce(y_true, y_pred, sample_weight=tf.constant([0.3, 0.7])))
# Using 'sum' reduction type.
scce = tf.keras.losses.SparseCategoricalCrossentropy(
    reduction=tf.keras.losses.Reduction.SUM)
show(scce(y_true, y_pred))
# Using 'none' reduction type.
scce = tf.keras.losses.SparseCategoricalCrossentropy(
    reduction=tf.keras.losses.Reduction.NONE)
r = scce(y_true, y_pred)
print(format(float(r[0]), ".4f"), format(float(r[1]), ".3f"))

# Logits: softmax(logits) = y_pred, so the losses are the same.
logits = tf.math.log(tf.constant([[0.05, 0.95, 1e-9], [0.1, 0.8, 0.1]]))
show(tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)(y_true, logits))
show(tf.keras.losses.CategoricalCrossentropy(from_logits=True)([[0, 1, 0], [0, 0, 1]], logits))
print(scce.name, tf.keras.losses.CategoricalCrossentropy().name)

# expect-output:
# 1.177
# 0.814
# 2.354
# 0.0513 2.303
# 1.177
# 0.814
# 2.354
# 0.0513 2.303
# 1.177
# 1.177
# sparse_categorical_crossentropy categorical_crossentropy
