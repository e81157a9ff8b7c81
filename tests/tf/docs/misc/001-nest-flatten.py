# https://www.tensorflow.org/api_docs/python/tf/nest/flatten and
# https://www.tensorflow.org/api_docs/python/tf/nest/pack_sequence_as: the docstrings' examples
# (dicts flatten by sorted key, namedtuples stay namedtuples); outputs from those pages.
# https://www.tensorflow.org/api_docs/python/tf/nest/is_nested: its examples.
import collections
import tensorflow as tf

print(tf.nest.flatten(None))
print(tf.nest.flatten(1))
print(tf.nest.flatten([[1, 2], [3, 4]]))
print(tf.nest.flatten({"key_a": [1, 2], "key_b": 3}))
print(tf.nest.flatten({"b": 1, "a": 2}))

structure = {"key3": "", "key1": "", "key2": ""}
flat_sequence = ["value1", "value2", "value3"]
print(tf.nest.pack_sequence_as(structure, flat_sequence))

structure = (("a", "b"), ("c", "d", "e"), "f")
flat_sequence = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
print(tf.nest.pack_sequence_as(structure, flat_sequence))

Foo = collections.namedtuple("Foo", ["a", "b"])
print(tf.nest.pack_sequence_as(Foo(a="x", b="y"), [1, 2]))

print(tf.nest.is_nested("1234"))
print(tf.nest.is_nested([1, 3, [4, 5]]))
print(tf.nest.is_nested(((7, 8), (5, 6))))
print(tf.nest.is_nested([]))
print(tf.nest.is_nested({"a": 1, "b": 2}))
print(tf.nest.is_nested(tf.constant([1, 2])))

# expect-output:
# [None]
# [1]
# [1, 2, 3, 4]
# [1, 2, 3]
# [2, 1]
# {'key3': 'value3', 'key1': 'value1', 'key2': 'value2'}
# ((1.0, 2.0), (3.0, 4.0, 5.0), 6.0)
# Foo(a=1, b=2)
# False
# True
# True
# True
# True
# False
