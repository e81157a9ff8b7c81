# tf.autograph's API on the converter (SPEC §3.3): to_code gives the converted source as valid
# Python, to_graph the converted function (it runs eagerly on Python values too, and sees later
# rebinding of globals and closure variables); do_not_convert and tf.function(autograph=False)
# keep a function as it is; a function without source runs as-is after TensorFlow's warning.
import contextlib
import io
import re

import tensorflow as tf

def collatz(n):
  steps = 0
  while n != 1:
    if n % 2 == 0:
      n = n // 2
    else:
      n = 3 * n + 1
    steps += 1
  return steps

code = tf.autograph.to_code(collatz)
print(code)
compile(code, "<to_code>", "exec")
print(tf.autograph.to_graph(collatz)(6), tf.autograph.to_graph(collatz)(27))

@tf.function
def traced_collatz(n):
  return collatz(n)
print(traced_collatz(tf.constant(27)))
print(tf.autograph.to_code(traced_collatz).splitlines()[1])

def find(xs, target):
  for i, x in enumerate(xs):
    if x == target:
      return i
  return -1
print(tf.autograph.to_code(find))
print(tf.autograph.to_graph(find)([4, 7, 9], 7), tf.autograph.to_graph(find)([4, 7, 9], 5))

scale = 2
def scaled(x):
  if x > 0:
    y = x * scale
  else:
    y = -x
  return y
converted = tf.autograph.to_graph(scaled)
scale = 5
print(converted(3), converted(-3))

def make_counter():
  k = 1
  def add(x):
    return x + k if x > 0 else x
  def set_k(v):
    nonlocal k
    k = v
  return add, set_k
add, set_k = make_counter()
converted = tf.autograph.to_graph(add)
set_k(10)
print(converted(1), converted(-1))

@tf.autograph.experimental.do_not_convert
def plain_sign(x):
  if x > 0:
    return 1
  return -1

@tf.function
def uses_plain(x):
  return plain_sign(x)
print(uses_plain(4), uses_plain(-4))
try:
  uses_plain(tf.constant(4))
except Exception as e:
  print(type(e).__name__)

@tf.autograph.experimental.do_not_convert()
def also_plain(x):
  return x
print(tf.autograph.to_graph(also_plain) is also_plain)

@tf.function(autograph=False)
def no_autograph(x, flag):
  if flag:
    return x + 1
  return x - 1
print(no_autograph(tf.constant(1), True), no_autograph(tf.constant(1), False))

@tf.function(autograph=False)
def no_autograph_tensor(x):
  if x > 0:
    return x
  return -x
try:
  no_autograph_tensor(tf.constant(1))
except Exception as e:
  print(type(e).__name__)

namespace = {}
exec("def made(x):\n  if x > 0:\n    return x + 1\n  return x\n", namespace)
made = tf.function(namespace["made"])
err = io.StringIO()
with contextlib.redirect_stderr(err):
  print(made(1), made(2))
print(re.sub(r" at 0x[0-9a-f]+", " at 0x...", err.getvalue()), end="")
# expect-output:
# def collatz(n):
#     steps = 0
#
#     def get_state_1():
#         return (n, steps)
#
#     def set_state_1(vars__1):
#         nonlocal n, steps
#         n, steps = vars__1
#
#     def loop_test():
#         return n != 1
#
#     def loop_body():
#         nonlocal n, steps
#
#         def get_state():
#             return (n,)
#
#         def set_state(vars_):
#             nonlocal n
#             n, = vars_
#
#         def if_body():
#             nonlocal n
#             n = n // 2
#
#         def else_body():
#             nonlocal n
#             n = 3 * n + 1
#         ag__.if_stmt(n % 2 == 0, if_body, else_body, get_state, set_state, ('n',), 1)
#         steps += 1
#     ag__.while_stmt(loop_test, loop_body, get_state_1, set_state_1, ('n', 'steps'), {})
#     return steps
#
# 8 111
# tf.Tensor(111, shape=(), dtype=int32)
#     return ag__.converted_call(collatz, (n,), None)
# def find(xs, target):
#     do_return = False
#     retval_ = ag__.UndefinedReturnValue()
#     try:
#         i
#     except NameError:
#         i = ag__.Undefined('i')
#     try:
#         x
#     except NameError:
#         x = ag__.Undefined('x')
#
#     def get_state_1():
#         return (i, x, do_return, retval_)
#
#     def set_state_1(vars__1):
#         nonlocal i, x, do_return, retval_
#         i, x, do_return, retval_ = vars__1
#
#     def extra_test():
#         return ag__.not_(do_return)
#
#     def loop_body(itr):
#         nonlocal i, x, do_return, retval_
#         i, x = itr
#
#         def get_state():
#             return (do_return, retval_)
#
#         def set_state(vars_):
#             nonlocal do_return, retval_
#             do_return, retval_ = vars_
#
#         def if_body():
#             nonlocal do_return, retval_
#             do_return = True
#             retval_ = i
#
#         def else_body():
#             nonlocal do_return, retval_
#             pass
#         ag__.if_stmt(x == target, if_body, else_body, get_state, set_state, ('do_return', 'retval_'), 2)
#     ag__.for_stmt(ag__.converted_call(enumerate, (xs,), None), extra_test, loop_body, get_state_1, set_state_1, ('i', 'x', 'do_return', 'retval_'), {})
#
#     def get_state_2():
#         return (do_return, retval_)
#
#     def set_state_2(vars__2):
#         nonlocal do_return, retval_
#         do_return, retval_ = vars__2
#
#     def if_body_1():
#         nonlocal do_return, retval_
#         do_return = True
#         retval_ = -1
#
#     def else_body_1():
#         nonlocal do_return, retval_
#         pass
#     ag__.if_stmt(ag__.not_(do_return), if_body_1, else_body_1, get_state_2, set_state_2, ('do_return', 'retval_'), 2, True)
#     return ag__.retval(retval_)
#
# 1 -1
# 15 3
# 11 -1
# tf.Tensor(1, shape=(), dtype=int32) tf.Tensor(-1, shape=(), dtype=int32)
# OperatorNotAllowedInGraphError
# True
# tf.Tensor(2, shape=(), dtype=int32) tf.Tensor(0, shape=(), dtype=int32)
# OperatorNotAllowedInGraphError
# tf.Tensor(2, shape=(), dtype=int32) tf.Tensor(3, shape=(), dtype=int32)
# WARNING:tensorflow:AutoGraph could not transform <function made at 0x...> and will run it as-is.
# Cause: could not get source code
# To silence this warning, decorate the function with @tf.autograph.experimental.do_not_convert
