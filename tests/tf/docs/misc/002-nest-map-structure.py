# https://www.tensorflow.org/api_docs/python/tf/nest/map_structure: the docstring's examples;
# outputs from the page. https://www.tensorflow.org/api_docs/python/tf/nest/flatten_with_joined_string_paths
# (paths join keys and indices with "/"); the output follows nest.py's definition.
import tensorflow as tf

a = {"hello": 24, "world": 76}
print(tf.nest.map_structure(lambda p: p * 2, a))
print(tf.nest.map_structure(lambda x, y: x + y, ([1, 2], 3), ([4, 5], 6)))
print(tf.nest.map_structure(lambda x: x * 2, [[1, 2], 3]))
print(tf.nest.flatten_with_joined_string_paths({"a": [1, (2, 3)], "b": 4}))

try:
    tf.nest.map_structure(lambda x, y: None, [1, 2], [1, 2, 3])
except ValueError as e:
    print(type(e).__name__, e, sep=": ")

# expect-output:
# {'hello': 48, 'world': 152}
# ([5, 7], 9)
# [[2, 4], 6]
# [('a/0', 1), ('a/1/0', 2), ('a/1/1', 3), ('b', 4)]
# ValueError: The two structures don't have the same nested structure.
#
# First structure: type=list str=[1, 2]
#
# Second structure: type=list str=[1, 2, 3]
#
# More specifically: The two structures don't have the same number of elements. First structure: type=list str=[1, 2]. Second structure: type=list str=[1, 2, 3]
# Entire first structure:
# [., .]
# Entire second structure:
# [., ., .]
