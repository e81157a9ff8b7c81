# Name scopes in traced graphs as TensorFlow 2 enters them: a scope ending in "/" is absolute
# and re-entered as it is (name_scope_v2: "dense/" twice is one scope, ops "dense/mul",
# "dense/mul_1", and "dense/" inside "blk" is still "dense/"); a Keras layer called while tracing
# puts its ops in its scope (Layer.__call__'s name_scope of Layer._name_scope(): "dense/MatMul"),
# its captured weights keeping their own names at the top. (TensorFlow reads a variable inside
# the op's own scope, "dense/MatMul/ReadVariableOp"; Trellis reads it in the layer's.)
import tensorflow as tf
@tf.function
def f(x):
  with tf.name_scope("dense/"):
    y = x * 2.0
  with tf.name_scope("dense/"):
    z = y * 3.0
  with tf.name_scope("blk"):
    with tf.name_scope("dense/"):
      w = z + 1.0
  return w
print([op.name for op in f.get_concrete_function(tf.TensorSpec([2])).graph.get_operations()])
@tf.function
def f(x):
  with tf.name_scope("outer"):
    y = x * 2.0
  return y
print([op.name for op in f.get_concrete_function(tf.TensorSpec([2])).graph.get_operations()])
d = tf.keras.layers.Dense(2)
@tf.function
def g(x):
  return d(x)
print([op.name for op in g.get_concrete_function(tf.TensorSpec([1, 2])).graph.get_operations()])
# expect-output:
# ['x', 'dense/Const', 'dense/mul', 'dense/Const_1', 'dense/mul_1', 'dense/Const_2', 'dense/add', 'Identity']
# ['x', 'outer/Const', 'outer/mul', 'Identity']
# ['x', 'dense/kernel', 'dense/ReadVariableOp', 'dense/MatMul', 'dense/bias', 'dense/ReadVariableOp_1', 'dense/add', 'Identity']
