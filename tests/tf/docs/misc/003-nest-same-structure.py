# https://www.tensorflow.org/api_docs/python/tf/nest/assert_same_structure: the docstring's
# examples pass silently; the errors are TensorFlow's (python/util/util.cc
# AssertSameStructureHelper and nest_util.py's "Entire first structure" suffix); a list and a
# tuple differ only with check_types, and "Could not pack sequence" is nest_util.py's text.
import tensorflow as tf

tf.nest.assert_same_structure([(0, 1)], [(2, 3)])
tf.nest.assert_same_structure({"a": 1, "b": 2}, {"b": 3, "a": 4})
tf.nest.assert_same_structure((0, 1), [0, 1], check_types=False)
print("same")
try:
    tf.nest.assert_same_structure(0, [0, 1])
except ValueError as e:
    print(str(e).split("\n\n")[-1].split("\n")[0])
try:
    tf.nest.assert_same_structure((0, 1), [0, 1])
except TypeError as e:
    print(type(e).__name__)
try:
    tf.nest.pack_sequence_as([1, [2]], [1, 2, 3])
except ValueError as e:
    print(e)

# expect-output:
# same
# More specifically: Substructure "type=list str=[0, 1]" is a sequence, while substructure "type=int str=0" is not
# TypeError
# Could not pack sequence. Structure had 2 atoms, but flat_sequence had 3 items.  Structure: [1, [2]], flat_sequence: [1, 2, 3].
