# https://www.tensorflow.org/guide/gpu ("Overview", "Manual device placement"): on a machine
# without a GPU list_physical_devices('GPU') is empty, the CPU is
# PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU'), and tf.device('/GPU:0')
# falls back to the CPU (soft placement): tensors live on
# /job:localhost/replica:0/task:0/device:CPU:0, as the page's log lines show for the CPU.
import tensorflow as tf

print("Num GPUs Available: ", len(tf.config.list_physical_devices("GPU")))
print(tf.config.list_physical_devices("CPU"))
print(tf.config.list_logical_devices())
print(tf.config.experimental.list_physical_devices("GPU"))
with tf.device("/CPU:0"):
    a = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
with tf.device("/device:GPU:0"):
    b = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    c = tf.matmul(a, b)
print(c)
print(c.device)
try:
    tf.device(lambda op: "/cpu:0")
except RuntimeError as e:
    print(e)

# expect-output:
# Num GPUs Available:  0
# [PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]
# [LogicalDevice(name='/device:CPU:0', device_type='CPU')]
# []
# tf.Tensor(
# [[22. 28.]
#  [49. 64.]], shape=(2, 2), dtype=float32)
# /job:localhost/replica:0/task:0/device:CPU:0
# tf.device does not support functions.
