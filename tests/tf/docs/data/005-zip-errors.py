# Dataset.zip's errors, with the texts of TensorFlow 2.15's dataset_ops.py (zip) and zip_op.py
# (_ZipDataset): a list, a non-dataset, no dataset, both forms at once.
# https://www.tensorflow.org/api_docs/python/tf/data/Dataset#zip
import tensorflow as tf

a = tf.data.Dataset.range(3)
for call in (lambda: tf.data.Dataset.zip([a, a]),
             lambda: tf.data.Dataset.zip((a, 1)),
             lambda: tf.data.Dataset.zip(),
             lambda: tf.data.Dataset.zip(a, datasets=(a, a))):
  try:
    call()
  except TypeError as e:
    print("TypeError:", e)

# expect-output:
# TypeError: Invalid `datasets`. `datasets` is expected to be a (nested) structure of `tf.data.Dataset` objects. Python `list` is not supported and you should use `tuple` instead.
# TypeError: Invalid `datasets`. `datasets` is expected to be a (nested) structure of `tf.data.Dataset` objects but encountered object of type <class 'int'>.
# TypeError: Must pass at least one dataset to `zip`.
# TypeError: Both `*args` and `datasets` cannot be set.
