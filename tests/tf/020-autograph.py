# AutoGraph inside a trace: `if` and `while` on symbolic tensors become If and While nodes;
# conditions that are Python values stay Python (SPEC §3.3).
import tensorflow as tf

@tf.function
def sign(x):
  if x > 0:
    print("tracing positive")
    s = 1.0
  else:
    print("tracing other")
    s = -1.0
  return s * x

print(sign(tf.constant(3.0)))
print(sign(tf.constant(-2.0)))
print(sign.experimental_get_tracing_count())
ops = [n.op for n in sign.get_concrete_function(tf.constant(1.0)).graph.as_graph_def().node]
print("StatelessIf" in ops, "If" in ops)

@tf.function
def fizz(n):
  for i in tf.range(1, n + 1):
    if i % 15 == 0:
      tf.print('fizzbuzz')
    elif i % 3 == 0:
      tf.print('fizz')
    elif i % 5 == 0:
      tf.print('buzz')
    else:
      tf.print(i)
fizz(tf.constant(6))
ops = [n.op for n in fizz.get_concrete_function(tf.constant(1)).graph.as_graph_def().node]
print("While" in ops)

@tf.function
def shrink(x):
  while tf.reduce_sum(x) > 1:
    x = x / 2
  return x
print(shrink(tf.constant([4.0, 4.0])))
print(shrink(tf.constant([0.25])))

@tf.function
def count(n):
  i = 0
  total = tf.constant(0)
  while i < n:
    i += 1
    if i % 2 == 0:
      total += i
  return i, total
print(count(tf.constant(7)))

@tf.function
def pick(x):
  if x > 0:
    return x * 10
  else:
    return -x
print(pick(tf.constant(2)), pick(tf.constant(-5)))

@tf.function
def py_cond(x, flag):
  if flag:
    print("only this branch")
    return x + 1
  return x - 1
print(py_cond(tf.constant(1), True))

@tf.function
def nested(x, n):
  if n > 0:
    while x < n:
      x = x * 2
  else:
    x = -x
  return x
print(nested(tf.constant(1), tf.constant(20)), nested(tf.constant(3), tf.constant(-1)))

@tf.function
def negated(x):
  if not x > 0:
    x = -x
  return x
print(negated(tf.constant(-2)), negated(tf.constant(3)))

@tf.function
def until_done(x):
  done = False
  while not done:
    x = x * 2
    done = x > 50
  return x
print(until_done(tf.constant(3)))

@tf.function
def undefined(x):
  if x > 0:
    y = x
  return x
try:
  undefined(tf.constant(1))
except ValueError as e:
  print("ValueError:", e)

@tf.function
def dtypes(x):
  if x > 0:
    y = tf.constant(1)
  else:
    y = tf.constant(1.0)
  return y
try:
  dtypes(tf.constant(1))
except TypeError as e:
  print("TypeError:", e)

@tf.function
def not_bool(x):
  if x:
    x = x + 1
  return x
try:
  not_bool(tf.constant(1))
except TypeError as e:
  print("TypeError:", e)

@tf.function
def one_return(x):
  if x > 0:
    return x
  return -x
print(one_return(tf.constant(1)), one_return(tf.constant(-7)))

@tf.function
def clamp(x):
  if x > 10:
    print("tracing the early return")
    return tf.constant(10.0)
  y = x * 2
  if y > 10:
    return y - 1
  return y
print(clamp(tf.constant(20.0)), clamp(tf.constant(6.0)), clamp(tf.constant(2.0)))

@tf.function
def else_returns(x):
  if x > 0:
    x = x + 100
  else:
    return x
  return x * 2
print(else_returns(tf.constant(1)), else_returns(tf.constant(-1)))

@tf.function
def unknown_shape(x):
  if tf.reduce_sum(x) > 0:
    return x
  return x * 2
# A return in one branch only works for values of unknown shape too, as in TensorFlow.
print(unknown_shape.get_concrete_function(tf.TensorSpec([None], tf.float32)).structured_outputs.shape)

@tf.function
def breaks(x):
  while x > 0:
    if x > 5:
      break
    x -= 1
  return x
print(breaks(tf.constant(3)), breaks(tf.constant(8)))

@tf.function
def first_over(x, limit):
  i = 0
  found = -1
  while i < tf.constant(x.shape[0]):
    if x[i] > limit:
      found = i
      break
    i += 1
  return found
print(first_over(tf.constant([1, 5, 9, 12]), tf.constant(6)))
print(first_over(tf.constant([1, 5, 9, 12]), tf.constant(20)))

@tf.function
def sum_odd(n):
  s = 0
  for i in tf.range(n):
    if i % 2 == 0:
      continue
    s += i
  return s
print(sum_odd(tf.constant(10)))

@tf.function
def until(n):
  s = tf.constant(0)
  for i in tf.range(100):
    s += i
    if s > n:
      break
    tf.print("i", i)
  return s
print(until(tf.constant(6)))

@tf.function
def top_break(x):
  while x > 0:
    x -= 1
    break
  return x
print(top_break(tf.constant(5)))

@tf.function
def python_loop_break(x):
  for i in range(3):
    if x > i:
      break
  return x
try:
  python_loop_break(tf.constant(1))
except Exception as e:
  print(type(e).__name__ + ":", e)

@tf.function
def loop_return(x):
  while x > 0:
    x -= 1
    if x == 2:
      return x * 100
  return x
print(loop_return(tf.constant(5)), loop_return(tf.constant(2)))

@tf.function
def find(x, target):
  for i in tf.range(tf.constant(x.shape[0])):
    if x[i] == target:
      return i
  return -1
print(find(tf.constant([4, 7, 9]), tf.constant(7)), find(tf.constant([4, 7, 9]), tf.constant(5)))

@tf.function
def collatz_steps(n):
  steps = 0
  while n != 1:
    if steps > 100:
      return -steps
    if n % 2 == 0:
      n = n // 2
    else:
      n = 3 * n + 1
    steps += 1
  return steps
print(collatz_steps(tf.constant(6)), collatz_steps(tf.constant(27)))

@tf.function
def grows(x):
  while tf.reduce_sum(x) < 10:
    print("tracing while body")
    x = tf.concat([x, x], 0)
  return x
print(grows(tf.constant([1])))
print(grows.get_concrete_function(tf.constant([1])).structured_outputs.shape)

@tf.function
def appends(x):
  for i in tf.range(3):
    print("tracing for body")
    x = tf.concat([x, tf.expand_dims(i, 0)], 0)
  return x
print(appends(tf.constant([7])))
# expect-output:
# tracing positive
# tracing other
# tf.Tensor(3.0, shape=(), dtype=float32)
# tf.Tensor(2.0, shape=(), dtype=float32)
# 1
# True False
# 1
# 2
# fizz
# 4
# buzz
# fizz
# True
# tf.Tensor([0.5 0.5], shape=(2,), dtype=float32)
# tf.Tensor([0.25], shape=(1,), dtype=float32)
# (<tf.Tensor: shape=(), dtype=int32, numpy=7>, <tf.Tensor: shape=(), dtype=int32, numpy=12>)
# tf.Tensor(20, shape=(), dtype=int32) tf.Tensor(5, shape=(), dtype=int32)
# only this branch
# tf.Tensor(2, shape=(), dtype=int32)
# tf.Tensor(32, shape=(), dtype=int32) tf.Tensor(-3, shape=(), dtype=int32)
# tf.Tensor(2, shape=(), dtype=int32) tf.Tensor(3, shape=(), dtype=int32)
# tf.Tensor(96, shape=(), dtype=int32)
# ValueError: 'y' must also be initialized in the else branch: an `if` on a symbolic tensor runs both branches, and each must leave 'y' defined
# TypeError: 'y' has dtype int32 in the main branch, but dtype float32 in the else branch
# TypeError: The condition of an `if` on a tensor must be a bool tensor, but is a int32 tensor; compare it (`x != 0`) or cast it with tf.cast
# tf.Tensor(1, shape=(), dtype=int32) tf.Tensor(7, shape=(), dtype=int32)
# tracing the early return
# tf.Tensor(10.0, shape=(), dtype=float32) tf.Tensor(11.0, shape=(), dtype=float32) tf.Tensor(4.0, shape=(), dtype=float32)
# tf.Tensor(202, shape=(), dtype=int32) tf.Tensor(-1, shape=(), dtype=int32)
# (None,)
# tf.Tensor(0, shape=(), dtype=int32) tf.Tensor(8, shape=(), dtype=int32)
# tf.Tensor(2, shape=(), dtype=int32)
# tf.Tensor(-1, shape=(), dtype=int32)
# tf.Tensor(25, shape=(), dtype=int32)
# i 0
# i 1
# i 2
# i 3
# tf.Tensor(10, shape=(), dtype=int32)
# tf.Tensor(4, shape=(), dtype=int32)
# OperatorNotAllowedInGraphError: `break` and `continue` out of an `if` on a symbolic tensor are not supported yet; carry a flag in a loop variable instead
# tf.Tensor(200, shape=(), dtype=int32) tf.Tensor(0, shape=(), dtype=int32)
# tf.Tensor(1, shape=(), dtype=int32) tf.Tensor(-1, shape=(), dtype=int32)
# tf.Tensor(8, shape=(), dtype=int32) tf.Tensor(-101, shape=(), dtype=int32)
# tracing while body
# tracing while body
# tf.Tensor([1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1], shape=(16,), dtype=int32)
# (None,)
# tracing for body
# tracing for body
# tf.Tensor([7 0 1 2], shape=(4,), dtype=int32)
