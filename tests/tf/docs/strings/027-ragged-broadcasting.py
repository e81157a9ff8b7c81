# https://www.tensorflow.org/guide/ragged_tensor, "Broadcasting": a ragged tensor plus a scalar,
# a column of a dense matrix (one value per row), a 1x1 matrix against uniform inner
# dimensions, and a vector against a 4-D ragged tensor; outputs from the page (NumPy prints
# uniform inner rows as matrices), checked against the version of 2024-08-27.
import tensorflow as tf

# x       (2D ragged):  2 x (num_rows)
# y       (scalar)
# result  (2D ragged):  2 x (num_rows)
x = tf.ragged.constant([[1, 2], [3]])
y = 3
print(x + y)

# x         (2d ragged):  3 x (num_rows)
# y         (2d tensor):  3 x          1
# Result    (2d ragged):  3 x (num_rows)
x = tf.ragged.constant(
   [[10, 87, 12],
    [19, 53],
    [12, 32]])
y = [[1000], [2000], [3000]]
print(x + y)

# x      (3d ragged):  2 x (r1) x 2
# y      (2d ragged):         1 x 1
# Result (3d ragged):  2 x (r1) x 2
x = tf.ragged.constant(
    [[[1, 2], [3, 4], [5, 6]],
     [[7, 8]]],
    ragged_rank=1)
y = tf.constant([[10]])
print(x + y)

# x      (3d ragged):  2 x (r1) x (r2) x 1
# y      (1d tensor):                    3
# Result (3d ragged):  2 x (r1) x (r2) x 3
x = tf.ragged.constant(
    [
        [
            [[1], [2]],
            [],
            [[3]],
            [[4]],
        ],
        [
            [[5], [6]],
            [[7]]
        ]
    ],
    ragged_rank=2)
y = tf.constant([10, 20, 30])
print(x + y)

# expect-output:
# <tf.RaggedTensor [[4, 5], [6]]>
# <tf.RaggedTensor [[1010, 1087, 1012], [2019, 2053], [3012, 3032]]>
# <tf.RaggedTensor [[[11, 12],
#   [13, 14],
#   [15, 16]], [[17, 18]]]>
# <tf.RaggedTensor [[[[11, 21, 31],
#    [12, 22, 32]], [], [[13, 23, 33]], [[14, 24, 34]]],
#  [[[15, 25, 35],
#    [16, 26, 36]], [[17, 27, 37]]]]>
