#!/usr/bin/python3
"""Ordinary Python programs run under trellis as under CPython (SPEC §1): the standard library,
NumPy with tensorflow ops, Matplotlib writing a PNG, and what running a unit adds (sys.path[0],
__file__, tracebacks with source lines, inspect.getsource of code in -c and notebook cells, a
cell's displayed result). Programs that do not use tensorflow are checked against
/usr/bin/python3 running the same file: same stdout, stderr and exit status.
Usage: test-cli-programs.py PATH/TO/trellis"""
import json
import os
import subprocess
import sys
import tempfile

TRELLIS = os.path.abspath(sys.argv[1])  # the programs run in other directories
PYTHON = "/usr/bin/python3"
failures = 0


def run(cmd, cwd=None, stdin=None, timeout=60):
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=timeout,
                          cwd=cwd)


def check(name, ok, detail=""):
    global failures
    print("%s %s" % ("ok" if ok else "FAIL", name))
    if not ok:
        failures += 1
        print("  " + str(detail).replace("\n", "\n  "))


def same_as_python(name, path, args=(), cwd=None):
    """The script's stdout, stderr and status under trellis are CPython's."""
    t = run([TRELLIS, path] + list(args), cwd=cwd)
    p = run([PYTHON, path] + list(args), cwd=cwd)
    check(name, (t.stdout, t.stderr, t.returncode) == (p.stdout, p.stderr, p.returncode) and
          p.returncode in (0, 1) and p.stdout,
          "trellis %d:\n%s%s\npython3 %d:\n%s%s" % (t.returncode, t.stdout, t.stderr,
                                                     p.returncode, p.stdout, p.stderr))


STDLIB = {
    "functools": """
import functools
@functools.lru_cache(maxsize=None)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
print(fib(80), fib.cache_info().hits)
print(functools.reduce(lambda a, b: a * b, range(1, 11)))
add3 = functools.partial(lambda a, b, c: a + b + c, 1, 2)
print(add3(3), add3.args)
@functools.singledispatch
def kind(x): return "thing"
@kind.register
def _(x: int): return "int"
print(kind(1), kind("a"), functools.cmp_to_key(lambda a, b: b - a)(1) < functools.cmp_to_key(lambda a, b: b - a)(2))
""",
    "itertools": """
import itertools
print(list(itertools.permutations("abc", 2)))
print([(k, len(list(g))) for k, g in itertools.groupby("aaabccdd")])
print(list(itertools.accumulate([1, 2, 3, 4])), list(itertools.islice(itertools.count(10, 5), 4)))
print(list(itertools.product([0, 1], repeat=2)), list(itertools.chain.from_iterable([[1], [2, 3]])))
print(list(itertools.zip_longest("ab", "xyz", fillvalue="-")), list(itertools.pairwise(range(4))))
""",
    "collections": """
from collections import Counter, defaultdict, deque, namedtuple, OrderedDict, ChainMap
c = Counter("mississippi")
print(c.most_common(2), c["s"])
d = defaultdict(list)
for w in "one two three four".split():
    d[len(w)].append(w)
print(dict(d))
q = deque(range(5), maxlen=4); q.rotate(1); q.appendleft(-1)
print(q)
P = namedtuple("P", "x y")
print(P(1, 2), P(1, 2)._replace(y=5), P._fields)
o = OrderedDict(a=1, b=2); o.move_to_end("a"); print(o)
print(ChainMap({"a": 1}, {"a": 2, "b": 3})["b"])
""",
    "random": """
import random
random.seed(1234)
print(random.random(), random.randint(1, 100), random.choice("abcdef"))
xs = list(range(10)); random.shuffle(xs); print(xs)
print(random.sample(range(100), 5), round(random.gauss(0, 1), 12))
""",
    "json-re": """
import json, re
doc = json.loads('{"a": [1, 2.5, null, true], "b": {"c": "\\u00e9"}}')
print(doc, json.dumps(doc, sort_keys=True), json.dumps(doc, indent=2, ensure_ascii=False))
m = re.match(r"(?P<user>\\w+)@(?P<host>[\\w.]+)", "alice@example.org")
print(m.group("user"), m.groupdict(), re.findall(r"\\d+", "a1b22c333"))
print(re.sub(r"(\\w)(\\w*)", lambda m: m.group(1).upper() + m.group(2), "hello big world"))
print(re.split(r"\\s*,\\s*", "a , b,c"), bool(re.fullmatch(r"[a-z]+", "abc")))
""",
    "dataclasses-enum": """
import dataclasses, enum
@dataclasses.dataclass(order=True, frozen=True)
class Point:
    x: int
    y: int = 0
    tags: tuple = dataclasses.field(default=(), compare=False)
p = Point(1, 2)
print(p, p < Point(1, 3), dataclasses.asdict(p), dataclasses.replace(p, y=9))
try:
    p.x = 5
except dataclasses.FrozenInstanceError as e:
    print("frozen:", e)
class Color(enum.Enum):
    RED = 1
    GREEN = 2
class Perm(enum.IntFlag):
    R = 4
    W = 2
    X = 1
print(Color.RED, Color(2), list(Color), Color["GREEN"].value)
print(Perm.R | Perm.W, (Perm.R | Perm.X).value, Perm(6))
class Shape(enum.StrEnum):
    SQUARE = enum.auto()
print(Shape.SQUARE, repr(Shape.SQUARE))
""",
    "pathlib-logging": """
import logging, pathlib, sys, tempfile
logging.basicConfig(level=logging.INFO, format="%(levelname)s:%(name)s:%(message)s",
                    stream=sys.stdout)
log = logging.getLogger("demo")
with tempfile.TemporaryDirectory() as tmp:
    root = pathlib.Path(tmp)
    (root / "sub").mkdir()
    (root / "sub" / "a.txt").write_text("hello\\n")
    (root / "b.py").write_text("x = 1\\n")
    print(sorted(p.relative_to(root).as_posix() for p in root.rglob("*")))
    print((root / "sub" / "a.txt").read_text().strip(), (root / "b.py").suffix, (root / "b.py").stem)
    log.info("wrote %d files", 2)
log.warning("done")
log.debug("not shown")
print(pathlib.PurePosixPath("/a/b/c.tar.gz").suffixes)
""",
    "match-bigint": """
import math, fractions, decimal
def describe(v):
    match v:
        case {"kind": "circle", "r": r}:
            return f"circle {math.pi * r * r:.3f}"
        case [x, y, *rest]:
            return f"seq {x} {y} +{len(rest)}"
        case int(n) if n < 0:
            return "negative"
        case str() | bytes():
            return "text"
        case _:
            return "other"
print([describe(v) for v in [{"kind": "circle", "r": 2}, [1, 2, 3, 4], -5, "s", 3.0]])
print(2 ** 200, math.factorial(30), pow(3, 10**6, 10**9 + 7), (-7) // 2, -7 % 3)
print(int("9" * 50) * int("9" * 50) % 1000007, (10**40).bit_length(), hex(2**70))
print(fractions.Fraction(3, 4) + fractions.Fraction(1, 6), decimal.Decimal("1.1") + decimal.Decimal("2.2"))
""",
    "classes-generators": """
import abc, asyncio, contextlib, threading
class Base(abc.ABC):
    @abc.abstractmethod
    def area(self): ...
    def __repr__(self): return f"{type(self).__name__}({self.area()})"
class Sq(Base):
    __slots__ = ("s",)
    def __init__(self, s): self.s = s
    def area(self): return self.s ** 2
print([Sq(i) for i in range(3)], isinstance(Sq(1), Base))
def gen():
    total = 0
    while True:
        x = yield total
        if x is None:
            return total
        total += x
g = gen(); next(g); g.send(3); g.send(4)
try:
    next(g)
except StopIteration as e:
    print("returned", e.value)
@contextlib.contextmanager
def tag(name):
    print("<" + name + ">"); yield; print("</" + name + ">")
with tag("b"):
    print("bold")
async def work(i):
    await asyncio.sleep(0.01)
    return i * i
async def main():
    return await asyncio.gather(*(work(i) for i in range(4)))
print(asyncio.run(main()))
out = []
ts = [threading.Thread(target=out.append, args=(i,)) for i in range(4)]
[t.start() for t in ts]; [t.join() for t in ts]
print(sorted(out), {k: v for k, v in zip("ab", (1, 2))}, {x % 3 for x in range(10)})
""",
    "uncaught-traceback": """
def inner(d):
    return d["missing"]
def outer():
    return inner({})
print("before")
outer()
""",
}

NUMPY_TF = """
import numpy as np
import tensorflow as tf
a = np.arange(6, dtype=np.float32).reshape(2, 3)
t = tf.constant(a)
print(t.dtype, t.shape)
out = tf.matmul(t, tf.transpose(t)).numpy()
print(type(out).__name__, out.dtype, out.tolist())
print((tf.constant(np.array([1, 2, 3])) * 2).numpy())
print(tf.reduce_sum(a).numpy(), np.asarray(tf.ones([2])).tolist())
"""
NUMPY_TF_OUT = """\
<dtype: 'float32'> (2, 3)
ndarray float32 [[5.0, 14.0], [14.0, 50.0]]
[2 4 6]
15.0 [1.0, 1.0]
"""

MATPLOTLIB = """
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import sys
x = np.linspace(0, 2 * np.pi, 50)
fig, ax = plt.subplots(figsize=(3, 2))
ax.plot(x, np.sin(x), label="sin")
ax.legend()
fig.savefig(sys.argv[1])
print(matplotlib.get_backend())
"""

with tempfile.TemporaryDirectory() as tmp:
    # ---- the standard library, CPython as the oracle ---------------------------------------
    for name, source in STDLIB.items():
        # prog_*: a script named like the module it tests would shadow it (sys.path[0])
        path = os.path.join(tmp, "prog_" + name.replace("-", "_") + ".py")
        with open(path, "w") as f:
            f.write(source.lstrip("\n"))
        same_as_python("stdlib-" + name, path, cwd=tmp)

    # ---- what a unit is: sys.path[0], __file__, __name__ ----------------------------------
    pkg = os.path.join(tmp, "proj")
    os.mkdir(pkg)
    with open(os.path.join(pkg, "helper.py"), "w") as f:
        f.write("VALUE = 41\n")
    main = os.path.join(pkg, "main.py")
    with open(main, "w") as f:
        f.write("import sys, helper\nprint(helper.VALUE + 1, __name__, __file__ == %r,"
                " sys.path[0] == %r)\n" % (main, pkg))
    r = run([TRELLIS, main], cwd=tmp)
    check("script-dir-on-path-and-file", r.stdout == "42 __main__ True True\n", r)

    r = run([TRELLIS, "-c", "def f(x):\n    return x + 1\nimport inspect\n"
             "print(inspect.getsource(f), end='')\nf(None)"])
    check("dash-c-getsource-and-traceback-lines",
          r.stdout == "def f(x):\n    return x + 1\n" and r.returncode == 1 and
          '  File "<string>", line 2, in f\n    return x + 1\n' in r.stderr, r)

    # ---- a notebook: results displayed as IPython's Out, tracebacks name cells ------------
    sources = ["def f(x):\n    return x * 2\n",
               "import inspect\nprint(inspect.getsource(f), end='')\nf(21)",
               "y = f(1);",
               "None",
               "z = [f(i) for i in range(3)]\nz\n",
               "f(None)\n",
               "print('not reached')"]
    nb = os.path.join(tmp, "cells.ipynb")
    with open(nb, "w") as f:
        json.dump({"cells": [{"cell_type": "code", "metadata": {}, "execution_count": None,
                              "outputs": [], "source": s} for s in sources],
                   "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, f)
    r = run([TRELLIS, nb])
    check("notebook-results", r.stdout == "def f(x):\n    return x * 2\n42\n[0, 2, 4]\n", r)
    check("notebook-traceback-names-cells", r.returncode == 1 and
          '  File "<cell 6>", line 1, in <module>\n    f(None)\n' in r.stderr and
          '  File "<cell 1>", line 2, in f\n    return x * 2\n' in r.stderr and
          r.stderr.rstrip().endswith("TypeError: unsupported operand type(s) for *: "
                                     "'NoneType' and 'int'"), r.stderr)

    r = run([TRELLIS], stdin="x = 6\nx * 7\n_ + 1\nimport sys; sys.exit(4)\nprint('no')\n")
    check("prompt-results-and-exit", r.stdout == "42\n43\n" and r.returncode == 4, r)
    r = run([TRELLIS], stdin="x = (1,\n2)\nx\ny = )\nx[0]\n")
    check("prompt-syntax-error-goes-on", r.stdout == "(1, 2)\n1\n" and
          "SyntaxError" in r.stderr and r.returncode == 0, r)
    r = run([TRELLIS, "-c", "raise SystemExit('bye')"])
    check("system-exit-message", (r.stdout, r.stderr, r.returncode) == ("", "bye\n", 1), r)

    # ---- NumPy in and out of tensorflow -------------------------------------------------------
    path = os.path.join(tmp, "prog_np_tf.py")
    with open(path, "w") as f:
        f.write(NUMPY_TF)
    r = run([TRELLIS, path])
    check("numpy-tensorflow", r.stdout == NUMPY_TF_OUT and r.returncode == 0, r)

    # ---- Matplotlib: a PNG file -----------------------------------------------------------------
    path = os.path.join(tmp, "prog_plot.py")
    png = os.path.join(tmp, "plot.png")
    with open(path, "w") as f:
        f.write(MATPLOTLIB)
    r = run([TRELLIS, path, png], cwd=tmp, timeout=120)
    with open(png, "rb") if os.path.exists(png) else open(os.devnull, "rb") as f:
        head = f.read(8)
    check("matplotlib-agg-png", r.returncode == 0 and r.stdout == "agg\n" and
          head == b"\x89PNG\r\n\x1a\n", (r, head))

sys.exit(1 if failures else 0)
