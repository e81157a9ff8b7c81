# A training step of a 60-layer Keras model, traced once: the graph the debugger shows with its
# name scopes as boxes (dense/, dense_1/, ..., gradient_tape/, SGD/), docs/debugger-big-graph.png:
#   build/gui/trellis-debugger --screenshot docs/debugger-big-graph.png docs/big-graph.py
import tensorflow as tf

layers = [tf.keras.layers.Dense(16, activation="relu") for _ in range(60)]
optimizer = tf.keras.optimizers.SGD(0.1)


@tf.function
def step(x, y):
    with tf.GradientTape() as tape:
        h = x
        for layer in layers:
            h = layer(h)
        loss = tf.reduce_mean(tf.square(h - y))
    variables = [v for layer in layers for v in layer.trainable_variables]
    optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
    return loss


print(step(tf.ones([8, 16]), tf.zeros([8, 16])))
