# The tf.data guide, "Time series windowing", "Using batch".
# https://www.tensorflow.org/guide/data#using_batch
import tensorflow as tf

range_ds = tf.data.Dataset.range(100000)
batches = range_ds.batch(10, drop_remainder=True)

for batch in batches.take(5):
  print(batch.numpy())

def dense_1_step(batch):
  # Shift features and labels one step relative to each other.
  return batch[:-1], batch[1:]

predict_dense_1_step = batches.map(dense_1_step)

for features, label in predict_dense_1_step.take(3):
  print(features.numpy(), " => ", label.numpy())

batches = range_ds.batch(15, drop_remainder=True)

def label_next_5_steps(batch):
  return (batch[:-5],   # Inputs: All except the last 5 steps
          batch[-5:])   # Labels: The last 5 steps

predict_5_steps = batches.map(label_next_5_steps)
for features, label in predict_5_steps.take(3):
  print(features.numpy(), " => ", label.numpy())

feature_length = 10
label_length = 3

features = range_ds.batch(feature_length, drop_remainder=True)
labels = range_ds.batch(feature_length).skip(1).map(lambda labels: labels[:label_length])

predicted_steps = tf.data.Dataset.zip((features, labels))

for features, label in predicted_steps.take(5):
  print(features.numpy(), " => ", label.numpy())

# expect-output:
# [0 1 2 3 4 5 6 7 8 9]
# [10 11 12 13 14 15 16 17 18 19]
# [20 21 22 23 24 25 26 27 28 29]
# [30 31 32 33 34 35 36 37 38 39]
# [40 41 42 43 44 45 46 47 48 49]
# [0 1 2 3 4 5 6 7 8]  =>  [1 2 3 4 5 6 7 8 9]
# [10 11 12 13 14 15 16 17 18]  =>  [11 12 13 14 15 16 17 18 19]
# [20 21 22 23 24 25 26 27 28]  =>  [21 22 23 24 25 26 27 28 29]
# [0 1 2 3 4 5 6 7 8 9]  =>  [10 11 12 13 14]
# [15 16 17 18 19 20 21 22 23 24]  =>  [25 26 27 28 29]
# [30 31 32 33 34 35 36 37 38 39]  =>  [40 41 42 43 44]
# [0 1 2 3 4 5 6 7 8 9]  =>  [10 11 12]
# [10 11 12 13 14 15 16 17 18 19]  =>  [20 21 22]
# [20 21 22 23 24 25 26 27 28 29]  =>  [30 31 32]
# [30 31 32 33 34 35 36 37 38 39]  =>  [40 41 42]
# [40 41 42 43 44 45 46 47 48 49]  =>  [50 51 52]
