# Dataset.scan and Dataset.reduce, from their docstrings.
# https://www.tensorflow.org/api_docs/python/tf/data/Dataset#scan
# https://www.tensorflow.org/api_docs/python/tf/data/Dataset#reduce
import numpy as np
import tensorflow as tf

dataset = tf.data.Dataset.range(10)
initial_state = tf.constant(0, dtype=tf.int64)
scan_func = lambda state, i: (state + i, state + i)
dataset = dataset.scan(initial_state=initial_state, scan_func=scan_func)
print(list(dataset.as_numpy_iterator()))
print(dataset)

print(tf.data.Dataset.range(5).reduce(np.int64(0), lambda x, _: x + 1).numpy())
print(tf.data.Dataset.range(5).reduce(np.int64(0), lambda x, y: x + y).numpy())

# From the guide's "Basic mechanics": a Python int as the initial state.
dataset = tf.data.Dataset.from_tensor_slices([8, 3, 0, 8, 2, 1])
print(dataset.reduce(0, lambda state, value: state + value).numpy())

# A structured state.
add_and_count = lambda s, x: (s[0] + x, s[1] + 1)
total, count = tf.data.Dataset.range(1, 5).reduce((np.int64(0), np.int64(0)), add_and_count)
print(total.numpy(), count.numpy())

# expect-output:
# [0, 1, 3, 6, 10, 15, 21, 28, 36, 45]
# <_ScanDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>
# 5
# 10
# 22
# 10 4
