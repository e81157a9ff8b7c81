# https://www.tensorflow.org/api_docs/python/tf/strings/regex_full_match and
# tf/strings/regex_replace: the docstrings' examples (outputs from the pages), replace_global,
# and both in a tf.function.
import tensorflow as tf

print(repr(tf.strings.regex_full_match(["TF lib", "lib TF"], ".*lib$")))
print(repr(tf.strings.regex_full_match(["TF lib", "lib TF"], ".*TF$")))

print(tf.strings.regex_replace("Text with tags.<br /><b>contains html</b>",
                               "<[^>]+>", " ").numpy())
print(tf.strings.regex_replace("aaa", "a", "b", replace_global=False).numpy())
print(tf.strings.regex_replace(["2024-01-31"], r"(\d+)-(\d+)-(\d+)", r"\3/\2/\1").numpy())

@tf.function
def clean(s):
    s = tf.strings.regex_replace(s, "[^a-z ]", "")
    return s, tf.strings.regex_full_match(s, "[a-z ]*")

print(clean(tf.constant(["hello, world!", "tf 2.x"])))

# expect-output:
# <tf.Tensor: shape=(2,), dtype=bool, numpy=array([ True, False])>
# <tf.Tensor: shape=(2,), dtype=bool, numpy=array([False,  True])>
# b'Text with tags.  contains html '
# b'baa'
# [b'31/01/2024']
# (<tf.Tensor: shape=(2,), dtype=string, numpy=array([b'hello world', b'tf x'], dtype=object)>, <tf.Tensor: shape=(2,), dtype=bool, numpy=array([ True,  True])>)
