# Element counts that do not fit in int64: tf.range's length, tf.constant's broadcast shape.
import tensorflow as tf


def show(f):
  try:
    print(f())
  except Exception as e:
    print(type(e).__name__ + ":", e)


show(lambda: tf.range(-2**63, 2**63 - 1))
show(lambda: tf.range(2**63 - 1, -2**63, -1))
show(lambda: tf.range(0, 2**63 - 1, 2**62))
show(lambda: tf.range(-2**31, 2**31 - 1, 2**30))
show(lambda: tf.constant(1.0, shape=[2**40, 2**40, 2**40]))
show(lambda: tf.constant(1.0, shape=[2**40, 2**40, 0]))

# expect-output:
# InvalidArgumentError: Requires ((limit - start) / delta) <= 9223372036854775807 [Op:Range]
# InvalidArgumentError: Requires ((limit - start) / delta) <= 9223372036854775807 [Op:Range]
# tf.Tensor([                  0 4611686018427387904], shape=(2,), dtype=int64)
# tf.Tensor([-2147483648 -1073741824           0  1073741824], shape=(4,), dtype=int32)
# InvalidArgumentError: Shape [1099511627776,1099511627776,1099511627776] would have more than 2**63 - 1 elements [Op:Fill]
# InvalidArgumentError: Encountered overflow when multiplying 1099511627776 with 1099511627776, result: -1
