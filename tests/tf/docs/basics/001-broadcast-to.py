# https://www.tensorflow.org/guide/tensor, section "Broadcasting": tf.broadcast_to shows what
# broadcasting does; output from the page. The errors are BroadcastTo's (TF's
# core/kernels/broadcast_to_op.cc texts).
import tensorflow as tf

print(tf.broadcast_to(tf.constant([1, 2, 3]), [3, 3]))

# the same inside a tf.function, and the gradient: each input element was used three times
f = tf.function(lambda x: tf.broadcast_to(x, [3, 3]))
print(f(tf.constant([1, 2, 3])))
x = tf.constant([1.0, 2.0, 3.0])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.broadcast_to(x, [2, 3])
print(tape.gradient(y, x))

for value, shape in [([0, 1], [2, 1]), ([1, 2, 3], [2, 2]), ([[1, 2]], [2])]:
    try:
        tf.broadcast_to(tf.constant(value), shape)
    except tf.errors.InvalidArgumentError as e:
        print(type(e).__name__ + ":", e)

# expect-output:
# tf.Tensor(
# [[1 2 3]
#  [1 2 3]
#  [1 2 3]], shape=(3, 3), dtype=int32)
# tf.Tensor(
# [[1 2 3]
#  [1 2 3]
#  [1 2 3]], shape=(3, 3), dtype=int32)
# tf.Tensor([2. 2. 2.], shape=(3,), dtype=float32)
# InvalidArgumentError: Unable to broadcast tensor of shape [2] to tensor of shape [2,1] [Op:BroadcastTo]
# InvalidArgumentError: Incompatible shapes: [3] vs. [2,2] [Op:BroadcastTo]
# InvalidArgumentError: Rank of input (2) must be no greater than rank of output shape (1). [Op:BroadcastTo]
