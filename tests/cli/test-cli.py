#!/usr/bin/python3
"""The trellis command line: a script with sys.argv, -c, a notebook's code cells, the prompt
with continuation lines, and exit statuses. Usage: test-cli.py PATH/TO/trellis"""
import json
import os
import subprocess
import sys
import tempfile

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

    check("help-signature-and-doc", ["-c", "def f(a, b=2):\n    'Adds.'\nhelp(f)"],
          "Help on function f in module __main__:\n\nf(a, b=2)\n    Adds.\n\n")

    prompt = "def f(n):\n    return n * 2\n\nf(21)\nfor i in range(2):\n    print(i)\n\n"
    check("prompt-continuation", [], "42\n0\n1\n", stdin=prompt)

sys.exit(1 if failures else 0)
