# https://www.tensorflow.org/guide/intro_to_graphs, sections "Taking advantage of graphs" and
# "Using tf.function": a Function's concrete function has a graph (a tf.Graph) whose GraphDef
# lists its nodes; tf.executing_eagerly() is False while the Python body traces and True
# again outside it (tf.inside_function() says the opposite). Outputs from the page where it
# shows them (the values), the rest from those functions' documented behaviour.
import tensorflow as tf


def a_regular_function(x, y, b):
    x = tf.matmul(x, y)
    x = x + b
    return x


a_function_that_uses_a_graph = tf.function(a_regular_function)
x1 = tf.constant([[1.0, 2.0]])
y1 = tf.constant([[2.0], [3.0]])
b1 = tf.constant(4.0)
orig_value = a_regular_function(x1, y1, b1).numpy()
tf_function_value = a_function_that_uses_a_graph(x1, y1, b1).numpy()
assert orig_value == tf_function_value
print(orig_value, tf_function_value)

cf = a_function_that_uses_a_graph.get_concrete_function(x1, y1, b1)
print(isinstance(cf.graph, tf.Graph))
print([node.op for node in cf.graph.as_graph_def().node])


@tf.function
def modes():
    print("tracing:", tf.executing_eagerly(), tf.inside_function())
    return tf.constant(0)


modes()
print("eager:", tf.executing_eagerly(), tf.inside_function())
g = tf.Graph()
with g.as_default():
    print("in a tf.Graph:", tf.executing_eagerly(), tf.compat.v1.get_default_graph() is g)
print(tf.executing_eagerly())

# expect-output:
# [[12.]] [[12.]]
# True
# ['Placeholder', 'Placeholder', 'Placeholder', 'MatMul', 'AddV2', 'Identity']
# tracing: False True
# eager: True False
# in a tf.Graph: False True
# True
