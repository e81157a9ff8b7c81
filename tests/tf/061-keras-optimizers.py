# tf.keras.optimizers: SGD and Adam follow Keras's update rules (checked against the formulas
# computed here in plain Python), make their slot variables on the first apply_gradients, and a
# second optimizer given to the same traced function breaks the singleton-variable rule.
import math
import tensorflow as tf

def close(got, want, tol=1e-5):
    return all(abs(a - b) <= tol * max(1.0, abs(b)) for a, b in zip(got, want))

def values(v):
    return [float(x) for x in v.numpy()]

def text(v):
    return " ".join("%.6f" % x for x in values(v))

GRADS = [[0.5, -1.0], [0.25, 2.0], [-1.0, 0.125]]

# Reference updates, written from Keras's documented rules.
def ref_sgd(w, lr, momentum=0.0, nesterov=False):
    w, vel = list(w), [0.0] * len(w)
    for g in GRADS:
        for i in range(len(w)):
            vel[i] = momentum * vel[i] - lr * g[i]
            w[i] += momentum * vel[i] - lr * g[i] if nesterov else vel[i]
    return w

def ref_adam(w, lr, b1=0.9, b2=0.999, eps=1e-7, amsgrad=False):
    w, m, v, vmax = list(w), [0.0] * len(w), [0.0] * len(w), [0.0] * len(w)
    for t, g in enumerate(GRADS, 1):
        alpha = lr * math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        for i in range(len(w)):
            m[i] = b1 * m[i] + (1 - b1) * g[i]
            v[i] = b2 * v[i] + (1 - b2) * g[i] ** 2
            vmax[i] = max(vmax[i], v[i])
            w[i] -= alpha * m[i] / (math.sqrt(vmax[i] if amsgrad else v[i]) + eps)
    return w

def run(opt, w0=(1.0, 2.0)):
    w = tf.Variable(list(w0), name="w")
    for g in GRADS:
        opt.apply_gradients(zip([tf.constant(g)], [w]))
    return w

# Defaults, and no variables before the first step.
sgd = tf.keras.optimizers.SGD()
adam = tf.keras.optimizers.Adam()
print(sgd.name, round(float(sgd.learning_rate.numpy()), 6), sgd.momentum, sgd.nesterov, sgd.variables)
print(adam.name, round(float(adam.learning_rate.numpy()), 6), adam.beta_1, adam.beta_2, adam.epsilon, adam.variables)
print(sgd.learning_rate.name, sgd.learning_rate.trainable)

# SGD: plain, momentum, Nesterov.
for kwargs in ({"learning_rate": 0.1}, {"learning_rate": 0.1, "momentum": 0.9},
               {"learning_rate": 0.1, "momentum": 0.5, "nesterov": True}):
    opt = tf.keras.optimizers.SGD(**kwargs)
    w = run(opt)
    want = ref_sgd([1.0, 2.0], kwargs["learning_rate"], kwargs.get("momentum", 0.0),
                   kwargs.get("nesterov", False))
    print("SGD", kwargs, text(w), close(values(w), want), int(opt.iterations.numpy()),
          [v.name for v in opt.variables])

# Adam, with and without amsgrad.
for kwargs in ({"learning_rate": 0.1}, {"learning_rate": 0.01, "beta_1": 0.5, "epsilon": 0.1},
               {"learning_rate": 0.1, "beta_2": 0.5},
               {"learning_rate": 0.1, "beta_2": 0.5, "amsgrad": True}):
    opt = tf.keras.optimizers.Adam(**kwargs)
    w = run(opt)
    want = ref_adam([1.0, 2.0], kwargs["learning_rate"], kwargs.get("beta_1", 0.9),
                    kwargs.get("beta_2", 0.999),
                    kwargs.get("epsilon", 1e-7), kwargs.get("amsgrad", False))
    print("Adam", kwargs, text(w), close(values(w), want), int(opt.iterations.numpy()),
          [v.name for v in opt.variables])

# Slots are per variable, made when a variable is first seen; the step counts calls.
opt = tf.keras.optimizers.Adam(learning_rate=0.5)
a = tf.Variable(1.0, name="a")
b = tf.Variable([1.0, 1.0, 1.0], name="b")
print(opt.apply_gradients(zip([tf.constant(1.0)], [a])))
opt.apply_gradients([(tf.constant(-1.0), a), (tf.constant([1.0, 0.0, -1.0]), b)])
print([v.name for v in opt.variables], opt.variables() == opt.variables)
print(round(float(a.numpy()), 5), text(b))

# The learning rate is a variable: assigning it changes the next step without a new optimizer.
opt = tf.keras.optimizers.SGD(learning_rate=1.0)
w = tf.Variable(0.0)
opt.apply_gradients([(1.0, w)])
opt.learning_rate = 0.25
opt.apply_gradients([(1.0, w)])
opt.learning_rate.assign(2.0)
opt.apply_gradients([(1.0, w)])
print(float(w.numpy()))
sched = tf.keras.optimizers.SGD(learning_rate=lambda step: 1.0 / tf.cast(step + 1, tf.float32))
w = tf.Variable(0.0)
for i in range(3):
    sched.apply_gradients([(1.0, w)])
print(round(float(w.numpy()), 5))

# Missing gradients: skipped with a warning, or an error when all are missing.
opt = tf.keras.optimizers.SGD(learning_rate=1.0)
a = tf.Variable(1.0, name="a")
b = tf.Variable(1.0, name="b")
opt.apply_gradients([(tf.constant(0.5), a), (None, b)])
print(float(a.numpy()), float(b.numpy()))
def show(f):
    try:
        f()
    except Exception as e:
        print(type(e).__name__ + ":", e)
show(lambda: opt.apply_gradients([(None, b)]))
print(opt.apply_gradients([]))
show(lambda: tf.keras.optimizers.SGD(momentum=1.5))
show(lambda: tf.keras.optimizers.Adam(lr_decay=0.1))
show(lambda: tf.keras.optimizers.Adam(decay=0.1))
show(lambda: opt.apply_gradients([(1.0, tf.constant(1.0))]))
show(lambda: opt.apply_gradients([1.0]))
try:
    opt.apply_gradients([(tf.constant([1.0, 2.0, 3.0]), tf.Variable([1.0, 2.0]))])
except tf.errors.InvalidArgumentError as e:
    print("InvalidArgumentError for a gradient of the wrong shape")
show(lambda: opt.minimize(tf.constant(1.0), [a]))

# Inside a traced function: the first optimizer's slots are made while tracing...
opt1 = tf.keras.optimizers.Adam(learning_rate=0.1)
opt2 = tf.keras.optimizers.Adam(learning_rate=0.1)

@tf.function
def train_step(w, g, optimizer):
    optimizer.apply_gradients(zip([g], [w]))

w = tf.Variable([1.0, 2.0])
for g in GRADS:
    train_step(w, tf.constant(g), opt1)
print(text(w), close(values(w), ref_adam([1.0, 2.0], 0.1)), int(opt1.iterations.numpy()))
# ... so a second optimizer, which would make new ones in a new trace, is refused.
show(lambda: train_step(w, tf.constant(GRADS[0]), opt2))
print(opt2.variables)

# The workaround: one Function (and ConcreteFunction) per optimizer.
def plain_step(w, g, optimizer):
    optimizer.apply_gradients(zip([g], [w]))

w = tf.Variable([1.0, 2.0])
opt1 = tf.keras.optimizers.SGD(learning_rate=0.1)
opt2 = tf.keras.optimizers.SGD(learning_rate=0.01)
step1 = tf.function(plain_step).get_concrete_function(w, tf.constant(GRADS[0]), opt1)
step2 = tf.function(plain_step).get_concrete_function(w, tf.constant(GRADS[0]), opt2)
for i in range(4):
    if i % 2 == 0:
        step1(w=w, g=tf.constant([1.0, 1.0]))
    else:
        step2(w=w, g=tf.constant([1.0, 1.0]))
print(text(w), int(opt1.iterations.numpy()), int(opt2.iterations.numpy()))

# A Dense layer trained on hand-computed gradients of 0.5 * sum((x @ k + b - y) ** 2).
layer = tf.keras.layers.Dense(1, kernel_initializer="zeros")
x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
y = tf.constant([[1.0], [2.0]])
opt = tf.keras.optimizers.SGD(learning_rate=0.02)
for i in range(200):
    err = layer(x) - y
    grads = [tf.matmul(x, err, transpose_a=True), tf.reduce_sum(err, axis=0)]
    opt.apply_gradients(zip(grads, layer.trainable_variables))
print(float(tf.reduce_max(tf.abs(layer(x) - y))) < 0.05, int(opt.iterations.numpy()))

# expect-output:
# SGD 0.01 0.0 False []
# Adam 0.001 0.9 0.999 1e-07 []
# learning_rate:0 False
# SGD {'learning_rate': 0.1} 1.025000 1.887500 True 3 ['iteration:0']
# SGD {'learning_rate': 0.1, 'momentum': 0.9} 0.917000 1.878500 True 3 ['iteration:0', 'm/w:0']
# SGD {'learning_rate': 0.1, 'momentum': 0.5, 'nesterov': True} 1.012500 1.818750 True 3 ['iteration:0', 'm/w:0']
# Adam {'learning_rate': 0.1} 0.827420 2.031566 True 3 ['iteration:0', 'm/w:0', 'v/w:0']
# Adam {'learning_rate': 0.01, 'beta_1': 0.5, 'epsilon': 0.1} 0.999091 1.998181 True 3 ['iteration:0', 'm/w:0', 'v/w:0']
# Adam {'learning_rate': 0.1, 'beta_2': 0.5} 0.813065 2.030414 True 3 ['iteration:0', 'm/w:0', 'v/w:0']
# Adam {'learning_rate': 0.1, 'beta_2': 0.5, 'amsgrad': True} 0.827026 2.040917 True 3 ['iteration:0', 'm/w:0', 'v/w:0', 'vhat/w:0']
# <tf.Variable 'iteration:0' shape=() dtype=int64, numpy=1>
# ['iteration:0', 'm/a:0', 'v/a:0', 'm/b:0', 'v/b:0'] True
# 0.52632 0.627937 1.000000 1.372063
# -3.25
# -1.83333
# 0.5 1.0
# ValueError: No gradients provided for any variable: (['b:0'],). Provided `grads_and_vars` is ((None, <tf.Variable 'b:0' shape=() dtype=float32, numpy=1.0>),).
# <tf.Variable 'iteration:0' shape=() dtype=int64, numpy=1>
# ValueError: `momentum` must be between [0, 1].
# TypeError: lr_decay is not a valid argument, kwargs should be empty  for `optimizer_experimental.Optimizer`.
# ValueError: decay is deprecated in the new Keras optimizer, please check the docstring for valid arguments, or use the legacy optimizer, e.g., tf.keras.optimizers.legacy.Adam.
# TypeError: An optimizer updates tf.Variables only. Received: <tf.Tensor: shape=(), dtype=float32, numpy=1.0>
# ValueError: apply_gradients expects (gradient, variable) pairs. Received: 1.0
# InvalidArgumentError for a gradient of the wrong shape
# ValueError: `tape` is required when a `Tensor` loss is passed. Received: loss=tf.Tensor(1.0, shape=(), dtype=float32), tape=None.
# 0.827420 2.031566 True 3
# ValueError: tf.function only supports singleton tf.Variables created on the first call. Make sure the tf.Variable is only created once or created outside tf.function. See https://www.tensorflow.org/guide/function#creating_tfvariables for more information.
# []
# 0.780000 1.780000 2 2
# True 200
# expect-stderr:
# WARNING:tensorflow:Gradients do not exist for variables ['b:0'] when minimizing the loss. If you're using `model.compile()`, did you forget to provide a `loss` argument?
