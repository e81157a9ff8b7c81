# tf.data.Dataset.range with bounds at the ends of int64: its length and its last step do not
# overflow.
import tensorflow as tf

d = tf.data.Dataset.range(-2**63, 2**63 - 1, 2**62)
print(len(d))
print([int(x) for x in d])
d = tf.data.Dataset.range(2**63 - 1, -2**63, -2**62)
print(len(d))
print([int(x) for x in d])
print([int(x) for x in tf.data.Dataset.range(2**63 - 2, 2**63 - 1)])
print(int(tf.data.Dataset.range(-2**63, 2**63 - 1).cardinality()))

# expect-output:
# 4
# [-9223372036854775808, -4611686018427387904, 0, 4611686018427387904]
# 4
# [9223372036854775807, 4611686018427387903, -1, -4611686018427387905]
# [9223372036854775806]
# 9223372036854775807
