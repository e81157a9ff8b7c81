# https://www.tensorflow.org/api_docs/python/tf/name_scope: the docstring's example ("the name
# of the op is MyOp/..."): inside a tf.function nodes get the scope as a prefix; the value of
# the `with` is the scope name with a trailing "/" (a reused name becomes "MyOp_1/", as
# Graph.unique_name makes it). Eagerly it is the nested scope's name, never made unique.
import tensorflow as tf


@tf.function
def my_op(a, b, c):
    with tf.name_scope("MyOp") as scope:
        a = tf.convert_to_tensor(a, name="a")
        c = tf.add(a, b, name="add")
        print(scope)
    with tf.name_scope("MyOp") as scope:
        print(scope)
        with tf.name_scope("inner") as inner:
            print(inner)
            d = tf.multiply(c, 2, name="mul")
    return d


cf = my_op.get_concrete_function(tf.constant(1), tf.constant(2), 3)
print([n.name for n in cf.graph.as_graph_def().node if n.op in ("AddV2", "Mul")])
with tf.name_scope("outer") as s1:
    with tf.name_scope("inner") as s2:
        print(s1, s2)
with tf.name_scope("outer") as s3:
    print(s3)
print(tf.name_scope("x").name)

# expect-output:
# MyOp/
# MyOp_1/
# MyOp_1/inner/
# ['MyOp/add', 'MyOp_1/inner/mul']
# outer/ outer/inner/
# outer/
# x
