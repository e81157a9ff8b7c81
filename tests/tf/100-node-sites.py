# Graph nodes keep the line that made them, as TensorFlow keeps each op's creation stack (the
# debugger shows it for a node): the user's line, also for a function called from another (its
# nodes are inlined with their own lines), inside AutoGraph's branches (the converted code keeps
# the user's lines) and for a Keras layer's ops (made at the layer's call). Arguments and a graph's
# results carry none. The graph's JSON (ConcreteFunction.graph.to_json, what
# the debugger receives) has "file" and "line" per node.
import json
import os

import tensorflow as tf


@tf.function
def inner(v):
  return tf.square(v)


layer = tf.keras.layers.Dense(1, kernel_initializer="ones", use_bias=False)


@tf.function
def outer(x):
  y = inner(x) + 1.0
  if tf.reduce_sum(y) > 0:
    y = y * 2.0
  else:
    y = y - 2.0
  return layer(tf.reshape(y, [1, -1]))


def show(graph, depth=0):
  for node in graph["nodes"]:
    site = "%s:%d" % (os.path.basename(node["file"]), node["line"]) if "file" in node else "-"
    print("  " * depth + node["op"], site)
    for child in node.get("children", []):
      show(child, depth + 1)


cf = outer.get_concrete_function(tf.TensorSpec([3], tf.float32))
show(json.loads(cf.graph.to_json()))
# expect-output:
# Placeholder -
# Square 100-node-sites.py:15
# Identity 100-node-sites.py:23
# Const 100-node-sites.py:23
# AddV2 100-node-sites.py:23
# Sum 100-node-sites.py:24
# Const 100-node-sites.py:24
# Greater 100-node-sites.py:24
# StatelessIf 100-node-sites.py:24
#   Placeholder 100-node-sites.py:25
#   Const 100-node-sites.py:25
#   Mul 100-node-sites.py:25
#   Identity -
#   Placeholder 100-node-sites.py:27
#   Const 100-node-sites.py:27
#   Sub 100-node-sites.py:27
#   Identity -
# Reshape 100-node-sites.py:28
# Placeholder 100-node-sites.py:28
# ReadVariableOp 100-node-sites.py:28
# MatMul 100-node-sites.py:28
# Identity -
