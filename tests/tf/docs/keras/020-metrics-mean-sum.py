# Docstrings of tf.keras.metrics.Mean and Sum (Keras 2.15, keras/metrics/base_metric.py):
# update_state accumulates, result reads, reset_state starts over; calling a metric updates it
# and returns the result. A metric's state lives in non-trainable variables.
import tensorflow as tf

m = tf.keras.metrics.Mean()
m.update_state([1, 3, 5, 7])
print(m.result().numpy())
m.reset_state()
m.update_state([1, 3, 5, 7], sample_weight=[1, 1, 0, 0])
print(m.result().numpy())

m = tf.keras.metrics.Sum()
m.update_state([1, 3, 5, 7])
print(m.result().numpy())

m = tf.keras.metrics.Mean(name="loss")
print(m.name, m.result().numpy(), [v.name for v in m.variables], m.trainable_weights)
print(m(2.0).numpy(), m(4.0).numpy(), m([6.0, 8.0]).numpy())

# Inside a tf.function the same metric object keeps its state across calls.
mean = tf.keras.metrics.Mean()
@tf.function
def track(x):
    mean.update_state(x)
    return mean.result()
print(track(tf.constant(1.0)).numpy(), track(tf.constant(3.0)).numpy())

# expect-output:
# 4.0
# 2.0
# 16.0
# loss 0.0 ['total:0', 'count:0'] []
# 2.0 3.0 5.0
# 1.0 2.0
