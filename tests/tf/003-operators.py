# Operators with tensors and Python scalars (a scalar takes the tensor's dtype).
import tensorflow as tf

x = tf.constant([[1, 2], [3, 4]])
f = tf.constant([1.0, 2.0])
print(x + 1)
print(1 - x)
print(x * x)
print(x / 2)
print(7 // x, x % 3, x ** 2)
print(f + 1, 2 * f, f / 4, 1.5 ** f)
print(-x)
print(abs(tf.constant([-1.5, 2.0])))
print(x @ x)
print(x < 3, x >= 2)
print(x == 2)
print(x != [1, 4])
print(x == None, x != None)
print(tf.constant("ab") + "cd", tf.constant(["a", "b"]) + tf.constant("!"))
print(tf.constant([True, False]) & tf.constant([True, True]))

# expect-output:
# tf.Tensor(
# [[2 3]
#  [4 5]], shape=(2, 2), dtype=int32)
# tf.Tensor(
# [[ 0 -1]
#  [-2 -3]], shape=(2, 2), dtype=int32)
# tf.Tensor(
# [[ 1  4]
#  [ 9 16]], shape=(2, 2), dtype=int32)
# tf.Tensor(
# [[0.5 1. ]
#  [1.5 2. ]], shape=(2, 2), dtype=float64)
# tf.Tensor(
# [[7 3]
#  [2 1]], shape=(2, 2), dtype=int32) tf.Tensor(
# [[1 2]
#  [0 1]], shape=(2, 2), dtype=int32) tf.Tensor(
# [[ 1  4]
#  [ 9 16]], shape=(2, 2), dtype=int32)
# tf.Tensor([2. 3.], shape=(2,), dtype=float32) tf.Tensor([2. 4.], shape=(2,), dtype=float32) tf.Tensor([0.25 0.5 ], shape=(2,), dtype=float32) tf.Tensor([1.5  2.25], shape=(2,), dtype=float32)
# tf.Tensor(
# [[-1 -2]
#  [-3 -4]], shape=(2, 2), dtype=int32)
# tf.Tensor([1.5 2. ], shape=(2,), dtype=float32)
# tf.Tensor(
# [[ 7 10]
#  [15 22]], shape=(2, 2), dtype=int32)
# tf.Tensor(
# [[ True  True]
#  [False False]], shape=(2, 2), dtype=bool) tf.Tensor(
# [[False  True]
#  [ True  True]], shape=(2, 2), dtype=bool)
# tf.Tensor(
# [[False  True]
#  [False False]], shape=(2, 2), dtype=bool)
# tf.Tensor(
# [[False  True]
#  [ True False]], shape=(2, 2), dtype=bool)
# False True
# tf.Tensor(b'abcd', shape=(), dtype=string) tf.Tensor([b'a!' b'b!'], shape=(2,), dtype=string)
# tf.Tensor([ True False], shape=(2,), dtype=bool)
