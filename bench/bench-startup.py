#!/usr/bin/python3
"""Start-up of the trellis command line against CPython's own, in one run.

Runs `trellis -c pass` (CPython embedded, the tensorflow module imported) and
`/usr/bin/python3 -c pass` alternately, ROUNDS times each, and prints the median wall time of
each and their ratio:
    trellis -c pass: T ms (python3 -c pass: P ms, ratio T/P R)
Also `python3 -c "import numpy"`, the cost a NumPy program pays before its first line, as a
second peer. Usage: bench-startup.py --trellis BUILD/cli/trellis [--rounds N]
"""
import argparse
import statistics
import subprocess
import time


def once(cmd):
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trellis", required=True)
    ap.add_argument("--rounds", type=int, default=30)
    args = ap.parse_args()
    sides = {
        "trellis -c pass": [args.trellis, "-c", "pass"],
        "python3 -c pass": ["/usr/bin/python3", "-c", "pass"],
        "python3 -c 'import numpy'": ["/usr/bin/python3", "-c", "import numpy"],
    }
    times = {name: [] for name in sides}
    for name, cmd in sides.items():  # warm the page cache
        once(cmd)
    for r in range(args.rounds):
        order = list(sides.items())
        if r % 2:
            order.reverse()
        for name, cmd in order:
            times[name].append(once(cmd))
    med = {name: statistics.median(t) * 1e3 for name, t in times.items()}
    t = med["trellis -c pass"]
    for peer in ("python3 -c pass", "python3 -c 'import numpy'"):
        print("trellis -c pass: %.1f ms (%s: %.1f ms, ratio trellis/peer %.2f)"
              % (t, peer, med[peer], t / med[peer]))


if __name__ == "__main__":
    main()
