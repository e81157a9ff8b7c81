# Keras with tf.GradientTape: training loops, eager and traced, and the guide's "several Keras
# optimizers" case (G22). Gradients from the tape are checked against hand-derived ones.
import tensorflow as tf

if not hasattr(tf, "GradientTape"):
    print("MISSING: tf.GradientTape is not in the tensorflow module; this test needs it")
    raise SystemExit(1)

x = tf.constant([[-1.0], [0.0], [1.0], [2.0]])
y = 3.0 * x - 1.0

# The tape's gradients of a Dense layer's mean squared error are the hand-derived ones.
layer = tf.keras.layers.Dense(1)
with tf.GradientTape() as tape:
    err = layer(x) - y
    loss = tf.reduce_mean(tf.square(err))
grads = tape.gradient(loss, layer.trainable_variables)
want = [tf.matmul(x, err, transpose_a=True) * 0.5, tf.reduce_sum(err, axis=0) * 0.5]
print([g.shape for g in grads], all(float(tf.reduce_max(tf.abs(g - h))) < 1e-5 for g, h in zip(grads, want)))

# An eager loop with Adam fits y = 3x - 1.
w = tf.Variable(0.0)
b = tf.Variable(0.0)
opt = tf.keras.optimizers.Adam(learning_rate=0.1)
for step in range(300):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(w * x + b - y))
    opt.apply_gradients(zip(tape.gradient(loss, [w, b]), [w, b]))
print(abs(float(w.numpy()) - 3.0) < 0.05, abs(float(b.numpy()) + 1.0) < 0.05, int(opt.iterations.numpy()))

# A traced training step with a Dense layer and SGD: one trace, the loss goes down.
model = tf.keras.layers.Dense(1)
sgd = tf.keras.optimizers.SGD(learning_rate=0.1)

@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    sgd.apply_gradients(zip(grads, model.trainable_variables))
    return loss

first = float(train_step(x, y).numpy())
traces = train_step.experimental_get_tracing_count()
for step in range(200):
    last = float(train_step(x, y).numpy())
print(last < first, last < 1e-3, train_step.experimental_get_tracing_count() == traces,
      int(sgd.iterations.numpy()))
print(abs(float(tf.reduce_sum(model.kernel)) - 3.0) < 0.05, abs(float(tf.reduce_sum(model.bias)) + 1.0) < 0.05)

# minimize with a callable loss.
v = tf.Variable(0.0)
opt = tf.keras.optimizers.SGD(learning_rate=0.1)
for step in range(50):
    opt.minimize(lambda: (v - 3.0) ** 2, [v])
print(abs(float(v.numpy()) - 3.0) < 1e-3)

# G22: a second optimizer in the same traced function is refused...
opt1 = tf.keras.optimizers.Adam(learning_rate=1e-2)
opt2 = tf.keras.optimizers.Adam(learning_rate=1e-3)

@tf.function
def train_step(w, x, y, optimizer):
    with tf.GradientTape() as tape:
        L = tf.reduce_sum(tf.square(w * x - y))
    gradients = tape.gradient(L, [w])
    optimizer.apply_gradients(zip(gradients, [w]))

w = tf.Variable(2.0)
x = tf.constant([-1.0])
y = tf.constant([2.0])
train_step(w, x, y, opt1)
print("Calling `train_step` with different optimizer...")
try:
    train_step(w, x, y, opt2)
except ValueError as e:
    print("ValueError:", str(e).split(". ")[0])

# ... and one ConcreteFunction per optimizer works, matching the same steps taken eagerly with
# the hand-derived gradient 2 * (w * x - y) * x.
def plain_step(w, x, y, optimizer):
    with tf.GradientTape() as tape:
        L = tf.reduce_sum(tf.square(w * x - y))
    gradients = tape.gradient(L, [w])
    optimizer.apply_gradients(zip(gradients, [w]))

opt1 = tf.keras.optimizers.Adam(learning_rate=1e-2)
opt2 = tf.keras.optimizers.Adam(learning_rate=1e-3)
w = tf.Variable(2.0)
train_step_1 = tf.function(plain_step).get_concrete_function(w, x, y, opt1)
train_step_2 = tf.function(plain_step).get_concrete_function(w, x, y, opt2)
ref1 = tf.keras.optimizers.Adam(learning_rate=1e-2)
ref2 = tf.keras.optimizers.Adam(learning_rate=1e-3)
ref_w = tf.Variable(2.0)
for i in range(10):
    if i % 2 == 0:
        train_step_1(w, x, y)
    else:
        train_step_2(w, x, y)
    grad = tf.reduce_sum(2.0 * (ref_w * x - y) * x)
    (ref1 if i % 2 == 0 else ref2).apply_gradients([(grad, ref_w)])
print(float(w.numpy()) < 2.0, abs(float(w.numpy()) - float(ref_w.numpy())) < 1e-5)

# expect-output:
# [TensorShape([1, 1]), TensorShape([1])] True
# True True 300
# True True True 201
# True True
# True
# Calling `train_step` with different optimizer...
# ValueError: tf.function only supports singleton tf.Variables created on the first call
# True True
