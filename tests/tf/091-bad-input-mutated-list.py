# Python code run while a list argument is converted (a dim's __index__, an item's __array__)
# may change the list: the conversion reads the items the list held when it was passed.
import numpy as np
import tensorflow as tf


class ClearingDim:
  def __init__(self, owner):
    self.owner = owner

  def __index__(self):
    self.owner.clear()
    return 2


class ClearingArray:
  def __init__(self, owner):
    self.owner = owner

  def __array__(self, dtype=None, copy=None):
    self.owner.clear()
    return np.array([5.0, 6.0], dtype=np.float32)


def shape_list():
  l = [1, None, 3]
  l[1] = ClearingDim(l)
  return l


def tensor_list():
  l = [tf.constant([1.0, 2.0]), None, tf.constant([3.0, 4.0])]
  l[1] = ClearingArray(l)
  return l


print(tf.zeros(shape_list()).shape)
print(tf.reshape(tf.range(6), shape_list()).shape)
print(tf.constant(0, shape=shape_list()).shape)
print(tf.constant(tensor_list()).numpy().tolist())
print(tf.stack(tensor_list()).numpy().tolist())
print(tf.concat(tensor_list(), 0).numpy().tolist())


@tf.function
def pack(x):
  l = [x, None, x]
  l[1] = ClearingArray(l)
  return tf.convert_to_tensor(l)


print(pack(tf.constant([1.0, 2.0])).numpy().tolist())

# expect-output:
# (1, 2, 3)
# (1, 2, 3)
# (1, 2, 3)
# [[1.0, 2.0], [5.0, 6.0], [3.0, 4.0]]
# [[1.0, 2.0], [5.0, 6.0], [3.0, 4.0]]
# [1.0, 2.0, 5.0, 6.0, 3.0, 4.0]
# [[1.0, 2.0], [5.0, 6.0], [1.0, 2.0]]
