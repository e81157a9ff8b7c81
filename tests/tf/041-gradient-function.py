# Gradients through tf.function: calls recorded on an eager tape (loops included), and tapes
# inside a traced function adding gradient nodes to its graph.
import tensorflow as tf

@tf.function
def add(a, b):
    return a + b

v = tf.Variable(1.0)
with tf.GradientTape() as tape:
    result = add(v, 1.0)
print(tape.gradient(result, v))

# Variables the function reads count as watched; tf.print runs once, not again for gradient().
w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
b = tf.Variable([1.0, -1.0])

@tf.function
def dense(x):
    tf.print("dense runs")
    return tf.nn.relu(tf.matmul(x, w) + b)

x = tf.constant([[1.0, -1.0], [0.5, 2.0]])
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(dense(x) ** 2)
gw, gb = tape.gradient(loss, [w, b])
print(gw)
print(gb)

# A for loop over tf.range becomes a While node; its gradient replays the loop.
@tf.function
def power(a, n):
    r = tf.ones_like(a)
    for i in tf.range(n):
        r = r * a
    return r

a = tf.constant([2.0, -3.0])
with tf.GradientTape() as tape:
    tape.watch(a)
    p = power(a, 3)
print(p, tape.gradient(p, a))

# A function that returns its argument, and one called twice on the same tensor.
@tf.function
def ident(t):
    return t

@tf.function
def mul(s, t):
    return s * t

c = tf.constant(4.0)
with tf.GradientTape() as tape:
    tape.watch(c)
    y = mul(ident(c), c)
print(tape.gradient(y, c))

# The tape inside the traced function: gradient nodes join the graph and run on every call.
@tf.function
def step(w, x, y):
    with tf.GradientTape() as tape:
        L = tf.reduce_sum(tf.square(w * x - y))
    return tape.gradient(L, [w])[0]

wv = tf.Variable(2.0)
print(step(wv, tf.constant([-1.0]), tf.constant([2.0])))
print(step(wv, tf.constant([3.0]), tf.constant([1.0])))
g = step.get_concrete_function(wv, tf.constant([3.0]), tf.constant([1.0])).graph
names = [n.name for n in g.as_graph_def().node]
print(any(n.startswith("gradient_tape/") for n in names), step.experimental_get_tracing_count())

@tf.function
def inner_grad(t):
    with tf.GradientTape() as tape:
        tape.watch(t)
        u = add(t * t, t)
    return tape.gradient(u, t)

print(inner_grad(tf.constant([1.0, 2.0])))

@tf.function
def second(t):
    with tf.GradientTape() as outer:
        outer.watch(t)
        with tf.GradientTape() as tape:
            tape.watch(t)
            u = t * t * t
        du = tape.gradient(u, t)
    return du, outer.gradient(du, t)

print(second(tf.constant(2.0)))

# expect-output:
# tf.Tensor(1.0, shape=(), dtype=float32)
# dense runs
# tf.Tensor(
# [[ 7.5  8. ]
#  [30.  32. ]], shape=(2, 2), dtype=float32)
# tf.Tensor([15. 16.], shape=(2,), dtype=float32)
# tf.Tensor([  8. -27.], shape=(2,), dtype=float32) tf.Tensor([12. 27.], shape=(2,), dtype=float32)
# tf.Tensor(8.0, shape=(), dtype=float32)
# tf.Tensor(8.0, shape=(), dtype=float32)
# tf.Tensor(30.0, shape=(), dtype=float32)
# True 1
# tf.Tensor([3. 5.], shape=(2,), dtype=float32)
# (<tf.Tensor: shape=(), dtype=float32, numpy=12.0>, <tf.Tensor: shape=(), dtype=float32, numpy=12.0>)
