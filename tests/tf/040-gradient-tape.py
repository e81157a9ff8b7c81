# tf.GradientTape eagerly: watching, Variables, persistence, structures, higher order, errors.
import tensorflow as tf

x = tf.constant(3.0)
with tf.GradientTape() as tape:
    tape.watch(x)
    y = x * x
print(tape.gradient(y, x))

# Constants are not watched unless asked: their gradient is None.
with tf.GradientTape() as tape:
    y = x * x
print(tape.gradient(y, x))

# Trainable variables read inside the tape are watched automatically.
v = tf.Variable(2.0)
frozen = tf.Variable(5.0, trainable=False)
with tf.GradientTape() as tape:
    y = v * v * frozen
print(tape.gradient(y, [v, frozen]))
print([w.name for w in tape.watched_variables()])

with tf.GradientTape(watch_accessed_variables=False) as tape:
    y = v * 3.0
print(tape.gradient(y, v))
with tf.GradientTape(watch_accessed_variables=False) as tape:
    tape.watch(v)
    y = v * 3.0
print(tape.gradient(y, v))

# Broadcasting: gradients come back in the shape of each input.
a = tf.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
b = tf.Variable([10.0, 20.0, 30.0])
with tf.GradientTape(persistent=True) as tape:
    s = tf.reduce_sum(a * b + b)
ga, gb = tape.gradient(s, [a, b])
print(ga)
print(gb)
print(tape.gradient(s, {"not": "used"}.get("x", (a, [b]))))
del tape

# A tape records once per gradient() unless persistent.
with tf.GradientTape() as tape:
    tape.watch(x)
    y = x ** 3
print(tape.gradient(y, x))
try:
    tape.gradient(y, x)
except RuntimeError as e:
    print("RuntimeError:", e)

with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    y = x * x
    z = y * y
print(tape.gradient(z, x), tape.gradient(y, x), tape.gradient(z, y))

# output_gradients weight each target's gradient.
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.stack([x, 2.0 * x])
print(tape.gradient(y, x, output_gradients=tf.constant([1.0, 10.0])))

# Several targets are summed.
with tf.GradientTape() as tape:
    tape.watch(x)
    y1 = x * 2.0
    y2 = x * x
print(tape.gradient([y1, y2], x))

# Integer tensors carry no gradient; nor do ops without one (comparisons, argmax).
i = tf.constant(4)
with tf.GradientTape() as tape:
    tape.watch(i)
    j = i * i
print(tape.gradient(j, i))
with tf.GradientTape() as tape:
    tape.watch(x)
    k = tf.cast(x > 1.0, tf.float32)
print(tape.gradient(k, x))

# stop_recording pauses the tape; reset forgets.
with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    y = x * x
    with tape.stop_recording():
        z = y * 10.0
    w = z + y
print(tape.gradient(w, x))
tape.reset()
with tape:
    tape.watch(x)
    y = x * 4.0
print(tape.gradient(y, x))

# Second derivatives with nested tapes.
with tf.GradientTape() as outer:
    outer.watch(x)
    with tf.GradientTape() as inner:
        inner.watch(x)
        y = x * x * x
    dy = inner.gradient(y, x)
print(dy, outer.gradient(dy, x))

# A composite function against central finite differences.
def f(t):
    return tf.reduce_sum(tf.tanh(t) * tf.exp(-t) + tf.sqrt(t * t + 1.0)) / tf.reduce_max(t)

p = tf.constant([0.3, -1.2, 2.0], dtype=tf.float64)
with tf.GradientTape() as tape:
    tape.watch(p)
    fp = f(p)
g = tape.gradient(fp, p)
eps = 1e-6
ok = True
for n in range(3):
    d = tf.one_hot(n, 3, dtype=tf.float64) * eps
    num = (f(p + d) - f(p - d)) / (2 * eps)
    ok = ok and abs(float(num) - float(g[n])) < 1e-6
print(g.dtype, g.shape, ok)

tape3 = tf.GradientTape()
with tape3:
    try:
        with tape3:
            pass
    except ValueError as e:
        print("ValueError:", e)

try:
    tape2 = tf.GradientTape()
    with tape2:
        tape2.watch("x")
except ValueError as e:
    print("ValueError:", e)

# expect-output:
# tf.Tensor(6.0, shape=(), dtype=float32)
# None
# [<tf.Tensor: shape=(), dtype=float32, numpy=20.0>, None]
# ['Variable:0']
# None
# tf.Tensor(3.0, shape=(), dtype=float32)
# tf.Tensor(
# [[10. 20. 30.]
#  [10. 20. 30.]], shape=(2, 3), dtype=float32)
# tf.Tensor([ 7.  9. 11.], shape=(3,), dtype=float32)
# (<tf.Tensor: shape=(2, 3), dtype=float32, numpy=
# array([[10., 20., 30.],
#        [10., 20., 30.]], dtype=float32)>, [<tf.Tensor: shape=(3,), dtype=float32, numpy=array([ 7.,  9., 11.], dtype=float32)>])
# tf.Tensor(27.0, shape=(), dtype=float32)
# RuntimeError: A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)
# tf.Tensor(108.0, shape=(), dtype=float32) tf.Tensor(6.0, shape=(), dtype=float32) tf.Tensor(18.0, shape=(), dtype=float32)
# tf.Tensor(21.0, shape=(), dtype=float32)
# tf.Tensor(8.0, shape=(), dtype=float32)
# None
# None
# tf.Tensor(6.0, shape=(), dtype=float32)
# tf.Tensor(4.0, shape=(), dtype=float32)
# tf.Tensor(27.0, shape=(), dtype=float32) tf.Tensor(18.0, shape=(), dtype=float32)
# <dtype: 'float64'> (3,) True
# ValueError: Tape is still recording, This can happen if you try to re-enter an already-active tape.
# ValueError: Passed in object x of type 'str', not tf.Tensor or tf.Variable or ExtensionType.
# expect-stderr:
# WARNING:tensorflow:The dtype of the watched tensor must be floating (e.g. tf.float32), got tf.int32
# WARNING:tensorflow:The dtype of the target tensor must be floating (e.g. tf.float32) when calling GradientTape.gradient, got tf.int32
# WARNING:tensorflow:The dtype of the source tensor must be floating (e.g. tf.float32) when calling GradientTape.gradient, got tf.int32
