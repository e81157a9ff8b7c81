# AutoGraph: `and`, `or` and `not` in the test of an if or while on tensors become
# tf.logical_and / tf.logical_or / tf.logical_not; Python operands still short-circuit.
import tensorflow as tf

@tf.function
def both_positive(x, y):
    if x > 0 and y > 0:
        r = x + y
    else:
        r = x - y
    return r

print(both_positive(tf.constant(1), tf.constant(2)).numpy(),
      both_positive(tf.constant(1), tf.constant(-2)).numpy(),
      both_positive(tf.constant(-1), tf.constant(2)).numpy())
print([n.op for n in both_positive.get_concrete_function(tf.constant(1), tf.constant(1)).graph.as_graph_def().node if n.op.startswith("Logical")])

@tf.function
def countdown(x):
    n = 0
    while x > 0 or n < 3:
        x = x - 1
        n += 1
    return x, n

x, n = countdown(tf.constant(5))
print(x.numpy(), n.numpy())
x, n = countdown(tf.constant(1))
print(x.numpy(), n.numpy())

@tf.function
def mixed(x, flag):
    # `flag` is a Python value: it decides first, without touching the tensor.
    if flag and x > 0:
        return 1
    if not (x > 10 or flag):
        return 2
    return 3

print(mixed(tf.constant(5), True).numpy(), mixed(tf.constant(5), False).numpy(),
      mixed(tf.constant(50), False).numpy(), mixed(tf.constant(-5), True).numpy())

@tf.function
def both(x, y):
    # An `and` as a value: tf.logical_and of the two tensors.
    return x > 0 and y > 0, not x > 0

r, n = both(tf.constant(1), tf.constant(0))
print(r.numpy(), n.numpy(), both(tf.constant(1), tf.constant(2))[0].numpy())

class Loud:
    def __init__(self, name, value):
        self.name, self.value = name, value
    def __bool__(self):
        print("bool", self.name)
        return self.value

def plain(a, b, c):
    if a and b or c:
        return "yes"
    return "no"

print(plain(Loud("a", True), Loud("b", False), Loud("c", True)))
print(plain(Loud("a", False), Loud("b", True), Loud("c", False)))
# expect-output:
# 3 3 -3
# ['LogicalAnd']
# 0 5
# -2 3
# 1 2 3 3
# False False True
# bool a
# bool b
# bool c
# yes
# bool a
# bool c
# no
