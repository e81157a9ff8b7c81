# tf.Operation: Graph.get_operations(), get_operation_by_name and get_tensor_by_name on a
# ConcreteFunction's graph, Tensor.op and value_index, Operation.name/type/inputs/outputs/node_def,
# Graph.inputs/outputs; the errors of Graph._as_graph_element_locked (ops.py), an eager tensor's
# Tensor.op AttributeError (ops.py's _EagerTensorBase.op). Operations print as TensorFlow's
# <tf.Operation 'name' type=Type>. (Trellis's NodeDef lists name, op and inputs, no attrs.)
import tensorflow as tf
@tf.function
def f(x, y):
  z = tf.matmul(x, y, name="product")
  return tf.nn.relu(z) + 1.0
cf = f.get_concrete_function(tf.TensorSpec([1, 2], tf.float32), tf.TensorSpec([2, 1], tf.float32))
g = cf.graph
ops = g.get_operations()
print(ops)
print([op.type for op in ops])
mm = g.get_operation_by_name("product")
print(mm.name, mm.type, mm.inputs, mm.outputs)
print(mm.outputs[0].op == mm, mm.outputs[0].op is mm, mm.outputs[0].value_index)
print(g.get_tensor_by_name("product:0"))
print(g.inputs, g.outputs)
print(mm.node_def)
for bad in ["nothing", "product:3", "nothing:0", "product", "missing"]:
  try:
    print(g.get_tensor_by_name(bad) if ":" in bad or bad in ("product", "missing") else g.get_operation_by_name(bad))
  except (KeyError, ValueError) as e:
    print(type(e).__name__, e)
try:
  tf.constant(1).op
except AttributeError as e:
  print(e)
print(isinstance(mm, tf.Operation))
try:
  g.get_operation_by_name("product:0")
except ValueError as e:
  print(e)
# expect-output:
# [<tf.Operation 'x' type=Placeholder>, <tf.Operation 'y' type=Placeholder>, <tf.Operation 'product' type=MatMul>, <tf.Operation 'Relu' type=Relu>, <tf.Operation 'Const' type=Const>, <tf.Operation 'add' type=AddV2>, <tf.Operation 'Identity' type=Identity>]
# ['Placeholder', 'Placeholder', 'MatMul', 'Relu', 'Const', 'AddV2', 'Identity']
# product MatMul (<tf.Tensor 'x:0' shape=(1, 2) dtype=float32>, <tf.Tensor 'y:0' shape=(2, 1) dtype=float32>) [<tf.Tensor 'product:0' shape=(1, 1) dtype=float32>]
# True False 0
# Tensor("product:0", shape=(1, 1), dtype=float32)
# [<tf.Tensor 'x:0' shape=(1, 2) dtype=float32>, <tf.Tensor 'y:0' shape=(2, 1) dtype=float32>] [<tf.Tensor 'Identity:0' shape=(1, 1) dtype=float32>]
# name: "product"
# op: "MatMul"
# input: "x"
# input: "y"
#
# KeyError "The name 'nothing' refers to an Operation not in the graph."
# KeyError "The name 'product:3' refers to a Tensor which does not exist. The operation, 'product', exists but only has 1 outputs."
# KeyError "The name 'nothing:0' refers to a Tensor which does not exist. The operation, 'nothing', does not exist in the graph."
# ValueError The name 'product' refers to an Operation, not a Tensor. Tensor names must be of the form "<op_name>:<output_index>".
# ValueError The name 'missing' looks like an (invalid) Operation name, not a Tensor. Tensor names must be of the form "<op_name>:<output_index>".
# Tensor.op is undefined when eager execution is enabled.
# True
# Name 'product:0' appears to refer to a Tensor, not a Operation.
