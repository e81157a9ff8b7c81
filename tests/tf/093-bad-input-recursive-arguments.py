# A recursive or very deep structure passed to a tf.function is a RecursionError.
import tensorflow as tf


@tf.function
def f(x):
  return 1


def show(g):
  try:
    print(g())
  except Exception as e:
    print(type(e).__name__ + ":", e)


r = []
r.append(r)
show(lambda: f(r))
d = {}
d["d"] = d
show(lambda: f(d))
deep = 1
for i in range(100000):
  deep = (deep,)
show(lambda: f(deep))
show(lambda: tf.constant(r))
print(f([[1, 2], (3, {"a": 4})]))

# expect-output:
# RecursionError: maximum recursion depth exceeded while computing a tf.function's trace key
# RecursionError: maximum recursion depth exceeded while computing a tf.function's trace key
# RecursionError: maximum recursion depth exceeded while computing a tf.function's trace key
# ValueError: Can't convert Python sequence deeper than 32 to Tensor.
# tf.Tensor(1, shape=(), dtype=int32)
