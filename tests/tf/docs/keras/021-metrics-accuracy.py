# Docstrings of tf.keras.metrics.Accuracy, BinaryAccuracy, CategoricalAccuracy and
# SparseCategoricalAccuracy (Keras 2.15, keras/metrics/accuracy_metrics.py).
import tensorflow as tf

m = tf.keras.metrics.Accuracy()
m.update_state([[1], [2], [3], [4]], [[0], [2], [3], [4]])
print(m.result().numpy())
m.reset_state()
m.update_state([[1], [2], [3], [4]], [[0], [2], [3], [4]],
               sample_weight=[1, 1, 0, 0])
print(m.result().numpy())

m = tf.keras.metrics.BinaryAccuracy()
m.update_state([[1], [1], [0], [0]], [[0.98], [1], [0], [0.6]])
print(m.result().numpy())
m.reset_state()
m.update_state([[1], [1], [0], [0]], [[0.98], [1], [0], [0.6]],
               sample_weight=[1, 0, 0, 1])
print(m.result().numpy())

m = tf.keras.metrics.CategoricalAccuracy()
m.update_state([[0, 0, 1], [0, 1, 0]], [[0.1, 0.9, 0.8],
                [0.05, 0.95, 0]])
print(m.result().numpy())
m.reset_state()
m.update_state([[0, 0, 1], [0, 1, 0]], [[0.1, 0.9, 0.8],
                [0.05, 0.95, 0]],
               sample_weight=[0.7, 0.3])
print(round(float(m.result().numpy()), 6))

m = tf.keras.metrics.SparseCategoricalAccuracy()
m.update_state([[2], [1]], [[0.1, 0.6, 0.3], [0.05, 0.95, 0]])
print(m.result().numpy())
m.reset_state()
m.update_state([[2], [1]], [[0.1, 0.6, 0.3], [0.05, 0.95, 0]],
               sample_weight=[0.7, 0.3])
print(round(float(m.result().numpy()), 6))
print(m.name, tf.keras.metrics.Accuracy().name, tf.keras.metrics.BinaryAccuracy().name)

# expect-output:
# 0.75
# 0.5
# 0.75
# 0.5
# 0.5
# 0.3
# 0.5
# 0.3
# sparse_categorical_accuracy accuracy binary_accuracy
