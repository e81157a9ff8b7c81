#!/usr/bin/python3
"""The trellis command line: a script with sys.argv, -c, a notebook's code cells, the prompt
with continuation lines, and exit statuses. Usage: test-cli.py PATH/TO/trellis"""
import json
import os
import subprocess
import signal
import sys
import tempfile
import time

TRELLIS = sys.argv[1]
failures = 0


def check(name, args, expect_out, expect_status=0, stdin=None, expect_err=None):
    global failures
    r = subprocess.run([TRELLIS] + args, input=stdin, capture_output=True, text=True, timeout=30)
    ok = r.stdout == expect_out and r.returncode == expect_status
    if expect_err is not None:
        ok = ok and expect_err in r.stderr
    print("%s %s" % ("ok" if ok else "FAIL", name))
    if not ok:
        failures += 1
        print("  stdout %r (expected %r)\n  status %d (expected %d)\n  stderr %r" %
              (r.stdout, expect_out, r.returncode, expect_status, r.stderr))


with tempfile.TemporaryDirectory() as tmp:
    script = os.path.join(tmp, "args.py")
    with open(script, "w") as f:
        f.write("import sys\nprint(sys.argv[1:], len(sys.argv))\n")
    check("script-argv", [script, "a", "b"], "['a', 'b'] 3\n")

    check("dash-c", ["-c", "import sys; print(sys.argv, 6 * 7)", "x"], "['-c', 'x'] 42\n")
    check("dash-c-error-status", ["-c", "1 / 0"], "", 1, expect_err="ZeroDivisionError: division by zero")
    check("sys-exit-status", ["-c", "import sys; sys.exit(3)"], "", 3)

    nb = os.path.join(tmp, "nb.ipynb")
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# title"]},
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
         "source": ["x = 20\n", "print('cell one')"]},
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
         "source": "x + 22"},
    ]
    with open(nb, "w") as f:
        json.dump({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, f)
    check("notebook-cells", [nb], "cell one\n42\n")

    nb_display = os.path.join(tmp, "display.ipynb")
    cells = [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
              "source": "display('a', [1])\nclear_output(wait=True)\ndisplay(2)"}]
    with open(nb_display, "w") as f:
        json.dump({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, f)
    check("notebook-display-prints-reprs", [nb_display], "'a'\n[1]\n2\n")

    # A cell tagged raises-exception fails as the notebook expects: its traceback, then the
    # next cells (as nbclient); an untagged failing cell ends the run with status 1.
    nb_tagged = os.path.join(tmp, "tagged.ipynb")
    cells = [{"cell_type": "code", "metadata": {"tags": tags}, "execution_count": None,
              "outputs": [], "source": source}
             for source, tags in [("print('one')", []), ("1 / 0", ["raises-exception"]),
                                  ("print('three')", []), ("[][1]", []), ("print('five')", [])]]
    with open(nb_tagged, "w") as f:
        json.dump({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, f)
    check("notebook-goes-on-past-raises-exception", [nb_tagged], "one\nthree\n", 1,
          expect_err="IndexError: list index out of range")

    check("help-signature-and-doc", ["-c", "def f(a, b=2):\n    'Adds.'\nhelp(f)"],
          "Help on function f in module __main__:\n\nf(a, b=2)\n    Adds.\n\n")

    prompt = "def f(n):\n    return n * 2\n\nf(21)\nfor i in range(2):\n    print(i)\n\n"
    check("prompt-continuation", [], "42\n0\n1\n", stdin=prompt)


def check_interrupt(name, program, expect_out, limit=1.0):
    """SIGINT while `program` runs, once it printed its first line: the rest of its output, and
    how long it took to end after the signal (at most `limit` seconds)."""
    global failures
    p = subprocess.Popen([TRELLIS, "-c", program], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    first = p.stdout.readline()
    time.sleep(0.2)
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    took = time.monotonic() - t0
    ok = first + out == expect_out and p.returncode == 0 and took <= limit
    print("%s %s (%.3f s after SIGINT)" % ("ok" if ok else "FAIL", name, took))
    if not ok:
        failures += 1
        print("  stdout %r (expected %r)\n  status %d\n  stderr %r" %
              (first + out, expect_out, p.returncode, err))


# A graph's while_loop polls the interrupt flag every round: KeyboardInterrupt, state kept.
SPIN = """import tensorflow as tf
@tf.function
def spin(n):
    i = tf.constant(0)
    while i < n:
        i = i + 1
    return i
print(spin(tf.constant(10)), flush=True)
try:
    spin(tf.constant(2**31 - 1))
except KeyboardInterrupt:
    print('KeyboardInterrupt')
print(spin(tf.constant(3)))
"""
check_interrupt("interrupt-graph-while-loop", SPIN,
                "tf.Tensor(10, shape=(), dtype=int32)\nKeyboardInterrupt\n"
                "tf.Tensor(3, shape=(), dtype=int32)\n")
# Ctrl+C in an 8000x8000 float32 matmul (oneDNN's GEMM where the CPU has AVX-512, in tiles): a
# signal handled inside oneDNN's kernel once corrupted the heap and aborted the process.
check_interrupt("interrupt-large-matmul",
                "import tensorflow as tf\na = tf.ones([8000, 8000])\nprint('go', flush=True)\n"
                "try:\n    tf.matmul(a, a)\nexcept KeyboardInterrupt:\n    print('stopped')\n"
                "print(float(tf.matmul(a[:2], a[:, :2])[0, 0]))\n", "go\nstopped\n8000.0\n")
check_interrupt("interrupt-python-loop",
                "print('go', flush=True)\nn = 0\ntry:\n    while True:\n        n += 1\n"
                "except KeyboardInterrupt:\n    print('stopped')\n", "go\nstopped\n")

sys.exit(1 if failures else 0)
