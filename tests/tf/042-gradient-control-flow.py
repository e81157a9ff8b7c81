# Tapes inside a traced function through AutoGraph's loops and conditionals on tensors: the
# While and If nodes get SymbolicGradient nodes that replay them when the function runs. Each
# gradient is checked against central finite differences (float64) and against an eager tape.
import tensorflow as tf

EPS = 1e-6

def numeric(f, x, *rest):
    # d sum(f(x, ...)) / dx elementwise, by central differences.
    out = []
    n = x.shape[0]
    for k in range(n):
        step = tf.one_hot(k, n, dtype=tf.float64) * EPS
        hi = tf.reduce_sum(f(x + step, *rest))
        lo = tf.reduce_sum(f(x - step, *rest))
        out.append(float((hi - lo) / (2 * EPS)))
    return tf.constant(out, dtype=tf.float64)

def close(a, b):
    return bool(tf.reduce_max(tf.abs(a - b)) < 1e-5)

def eager_grad(f, x, *rest):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(f(x, *rest))
    g = tape.gradient(y, x)
    # A loop that never runs leaves y unconnected: None eagerly, zeros from the While's gradient.
    return g if g is not None else tf.zeros_like(x)

def check(name, traced, plain, x, *rest):
    y, g = traced(x, *rest)
    print(name, g, close(g, numeric(plain, x, *rest)), close(g, eager_grad(plain, x, *rest)))

# for over tf.range: a While node.
def power(x, n):
    r = tf.ones_like(x)
    for i in tf.range(n):
        r = r * x + tf.sin(r)
    return r

@tf.function
def power_grad(x, n):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(power(x, n))
    return y, tape.gradient(y, x)

x = tf.constant([0.5, -1.25, 2.0], dtype=tf.float64)
check("for", power_grad, power, x, tf.constant(3))
check("for", power_grad, power, x, tf.constant(0))
print(power_grad.experimental_get_tracing_count())

# while on a tensor condition, the trip count depending on the data.
def halve(x):
    s = x
    while tf.reduce_sum(tf.abs(s)) > 1.0:
        s = s * 0.5 + tf.square(s) * 0.01
    return s

@tf.function
def halve_grad(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(halve(x))
    return y, tape.gradient(y, x)

check("while", halve_grad, halve, tf.constant([3.0, -1.5], dtype=tf.float64))
check("while", halve_grad, halve, tf.constant([0.25, 0.5], dtype=tf.float64))

# if on a tensor: an If node; both branches are taken by calls of one trace.
def branch(x):
    if tf.reduce_sum(x) > 0:
        y = x * x * 3.0
    else:
        y = tf.exp(x)
    return y

@tf.function
def branch_grad(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(branch(x))
    return y, tape.gradient(y, x)

check("if", branch_grad, branch, tf.constant([1.0, 2.0], dtype=tf.float64))
check("if", branch_grad, branch, tf.constant([-1.0, 0.5], dtype=tf.float64))
print(branch_grad.experimental_get_tracing_count())

# A loop inside a conditional.
def repeat_tanh(x, n):
    r = x
    for i in tf.range(n):
        r = tf.tanh(r) * x
    return r

def loop_in_cond(x, n):
    if tf.reduce_max(x) > 1.0:
        r = repeat_tanh(x, n)
    else:
        r = x * 2.0
    return r

@tf.function
def loop_in_cond_grad(x, n):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(loop_in_cond(x, n))
    return y, tape.gradient(y, x)

check("loop-in-cond", loop_in_cond_grad, loop_in_cond, tf.constant([1.5, -0.5], dtype=tf.float64),
      tf.constant(4))
check("loop-in-cond", loop_in_cond_grad, loop_in_cond, tf.constant([0.5, -0.5], dtype=tf.float64),
      tf.constant(4))

# A trainable variable read inside the loop body gets its gradient.
v = tf.Variable(1.5, dtype=tf.float64)

@tf.function
def scaled(x, n):
    with tf.GradientTape() as tape:
        r = x
        for i in tf.range(n):
            r = r * v
        y = tf.reduce_sum(r)
    return tape.gradient(y, v)

xs = tf.constant([1.0, 2.0], dtype=tf.float64)
gv = scaled(xs, tf.constant(3))
print(gv, bool(tf.abs(gv - 3.0 * 1.5 ** 2 * 3.0) < 1e-9))

# The gradient nodes are part of the graph.
g = branch_grad.get_concrete_function(tf.constant([1.0, 2.0], dtype=tf.float64)).graph
print(sorted(set(n.op for n in g.as_graph_def().node if n.op in ("SymbolicGradient", "StatelessIf"))))

# Second-order gradients through a SymbolicGradient are not supported: an error, not a crash or a
# wrong answer; the first-order result is still computed.
@tf.function
def inner(x):
    with tf.GradientTape() as t:
        t.watch(x)
        r = x
        for i in tf.range(3):
            r = r * x
    return t.gradient(r, x)

c = tf.constant(2.0)
with tf.GradientTape() as outer:
    outer.watch(c)
    d = inner(c)
print(d)
try:
    outer.gradient(d, c)
except tf.errors.UnimplementedError as e:
    print("UnimplementedError:", e)

# expect-output:
# for tf.Tensor([ 2.52649728  0.3033655  17.45818963], shape=(3,), dtype=float64) True True
# for tf.Tensor([0. 0. 0.], shape=(3,), dtype=float64) True True
# 1
# while tf.Tensor([0.15378972 0.11244503], shape=(2,), dtype=float64) True True
# while tf.Tensor([1. 1.], shape=(2,), dtype=float64) True True
# if tf.Tensor([ 6. 12.], shape=(2,), dtype=float64) True True
# if tf.Tensor([0.36787944 1.64872127], shape=(2,), dtype=float64) True True
# 1
# loop-in-cond tf.Tensor([1.38455975 0.26843744], shape=(2,), dtype=float64) True True
# loop-in-cond tf.Tensor([2. 2.], shape=(2,), dtype=float64) True True
# tf.Tensor(20.25, shape=(), dtype=float64) True
# ['StatelessIf', 'SymbolicGradient']
# tf.Tensor(32.0, shape=(), dtype=float32)
# UnimplementedError: Second-order gradients through a while loop or conditional inside a traced function are not supported yet
