#!/usr/bin/python3
"""Runs the `tensorflow` module's programs (tests/tf/NNN-topic.py) and compares what they print
with their expectation.

usage: run-tf.py (--python /usr/bin/python3 --pythonpath DIR | --trellis PATH) [--dir DIR] [-v]
                 [FILES...]

Without FILES it runs the programs in DIR (default: this directory); tests/tf/docs/AREA/ hold
the programs taken from TensorFlow's guides and docstrings, one meson test per area.

With --python the programs run under a stand-alone CPython that imports the extension module
from DIR (build/core/tf); with --trellis they run under Trellis's command line, which has the
module built in. TensorFlow is not the oracle (it is not installed): every program ends with a
block written from TensorFlow's documented behaviour and NumPy's printing:

    # expect-output:
    # a stdout line
    #
    # (a lone "#" is an empty line)
    # expect-stderr:
    # ...
    # expect-status: 1
"""

import argparse
import difflib
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DIRS = [HERE]


def parse_expectation(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    starts = [i for i, l in enumerate(lines) if l.rstrip() == "# expect-output:"]
    if not starts:
        raise ValueError("no # expect-output: block")
    sections = {"stdout": [], "stderr": []}
    current, status = "stdout", 0
    for line in lines[starts[-1] + 1:]:
        if line.rstrip() == "# expect-stderr:":
            current = "stderr"
        elif line.startswith("# expect-status:"):
            status = int(line[len("# expect-status:"):])
        elif line == "#":
            sections[current].append("")
        elif line.startswith("# "):
            sections[current].append(line[2:])
        else:
            raise ValueError("line in expectation block does not start with '# ': %r" % line)
    text = lambda ls: "".join(l + "\n" for l in ls)
    return text(sections["stdout"]), text(sections["stderr"]), status


def programs(files, dirs):
    if files:
        return [os.path.abspath(f) for f in files]
    found = []
    for d in dirs:
        if os.path.isdir(d):
            found += sorted(os.path.join(d, n) for n in os.listdir(d)
                            if n[:3].isdigit() and n.endswith(".py"))
    return found


def command(args, path):
    if args.trellis:
        return [os.path.abspath(args.trellis), os.path.basename(path)], None
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.abspath(args.pythonpath)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return [args.python, os.path.basename(path)], env


def main():
    ap = argparse.ArgumentParser()
    how = ap.add_mutually_exclusive_group(required=True)
    how.add_argument("--trellis", help="the trellis command line")
    how.add_argument("--python", help="a CPython 3.11 that imports the extension module")
    ap.add_argument("--pythonpath", help="where tensorflow.cpython-*.so is (with --python)")
    ap.add_argument("--dir", action="append", help="run the programs in DIR (repeatable)")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    if args.python and not args.pythonpath:
        ap.error("--python needs --pythonpath")
    paths = programs(args.files, args.dir or DEFAULT_DIRS)
    if not paths:
        print("FAIL: no programs found in %s" % ", ".join(args.dir or DEFAULT_DIRS))
        return 1
    failed = 0
    for path in paths:
        name = os.path.relpath(path)
        try:
            out, err, status = parse_expectation(path)
        except ValueError as e:
            failed += 1
            print("FAIL %s: %s" % (name, e))
            continue
        argv, env = command(args, path)
        try:
            p = subprocess.run(argv, cwd=os.path.dirname(path), env=env, stdin=subprocess.DEVNULL,
                               capture_output=True, timeout=60)
        except subprocess.TimeoutExpired:
            failed += 1
            print("FAIL %s: timed out" % name)
            continue
        got_out = p.stdout.decode("utf-8", "replace")
        got_err = p.stderr.decode("utf-8", "replace")
        problems = []
        for label, want, got in (("stdout", out, got_out), ("stderr", err, got_err)):
            if want != got:
                problems.extend(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                                     "expected " + label, "actual " + label))
        if status != p.returncode:
            problems.append("exit status: expected %s, actual %s\n" % (status, p.returncode))
        if problems:
            failed += 1
            print("FAIL %s" % name)
            print("".join(problems), end="")
        else:
            print("ok %s" % name)
            if args.verbose and got_err:
                print(got_err, end="")
    print("%d passed, %d failed" % (len(paths) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
