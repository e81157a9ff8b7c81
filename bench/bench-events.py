#!/usr/bin/python3
"""What recording events costs: `trellis --events` and `trellis --perfetto` on a program making
CALLS cached calls of a tf.function, against the same program run without them.

Each round runs the three variants in a fresh trellis process each, in rotating order (so that
background load hits them alike); every variant keeps its best round. Measured per process:
the wall time of the whole run (start-up, the loop, and writing the file at exit), its CPU time
(user + system), its peak resident memory, and the loop alone (the program times itself with
time.perf_counter(): the cost of recording without the writing). The events recorded are
counted from the --events file.

Prints, for --events and --perfetto each:
    --events: run T s (without: T0 s) = R x (target <= 2.00: met|NOT MET); CPU C s (C0 s) = Rc x;
      loop L s (L0 s) = Rl x
    --events: N events: E events/s recorded (N over the time they added to the run),
      B bytes/event of memory (peak RSS over the run without), F bytes/event in the file
where R is the whole run's time over the run without events (the issue-18 goal: at most 2).
Usage: bench-events.py --trellis BUILD/cli/trellis [--calls N] [--rounds N] [--check]
With --check, exits 1 when a target is missed.
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

TARGET = 2.0  # run with events over run without, at most

# The program: one trace, then CALLS cached calls from one line; it prints its loop's seconds.
SCRIPT = """
import time
import tensorflow as tf

@tf.function
def add(a, b):
    return a + b

a = tf.ones([2, 2])
b = tf.ones([2, 2])
add(a, b)
t0 = time.perf_counter()
for _ in range(%(calls)d):
    add(a, b)
print("loop %%.6f" %% (time.perf_counter() - t0))
"""

VARIANTS = ["without", "--events", "--perfetto"]


def run_once(trellis, script, variant, out_path):
    """(wall s, cpu s, peak rss bytes, loop s) of one trellis process."""
    argv = [trellis]
    if variant != "without":
        argv += [variant, out_path]
    argv.append(script)
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    out, err = proc.stdout.read(), proc.stderr.read()
    proc.stdout.close()
    proc.stderr.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError("trellis %s failed (%d):\n%s%s" % (variant, proc.returncode, out, err))
    loop = float(out.split()[-1])
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, loop


def count_lines(path):
    with open(path, "rb") as f:
        return sum(1 for _ in f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trellis", required=True)
    ap.add_argument("--calls", type=int, default=200000, help="cached calls the program makes")
    ap.add_argument("--rounds", type=int, default=5, help="rounds of the three variants")
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-events-") as tmp:
        script = os.path.join(tmp, "calls.py")
        with open(script, "w") as f:
            f.write(SCRIPT % {"calls": args.calls})
        outs = {"--events": os.path.join(tmp, "events.jsonl"),
                "--perfetto": os.path.join(tmp, "trace.json")}
        best = {v: [float("inf"), float("inf"), float("inf"), float("inf")] for v in VARIANTS}
        for r in range(args.rounds):
            order = VARIANTS[r % 3:] + VARIANTS[:r % 3]
            for v in order:
                got = run_once(args.trellis, script, v, outs.get(v))
                best[v] = [min(a, b) for a, b in zip(best[v], got)]
        n_events = count_lines(outs["--events"])
        file_bytes = {v: os.path.getsize(p) for v, p in outs.items()}

    wall0, cpu0, rss0, loop0 = best["without"]
    print("%d cached calls of add(a, b), best of %d rounds; without events: run %.3f s, CPU "
          "%.3f s, loop %.3f s, peak memory %.1f MB" %
          (args.calls, args.rounds, wall0, cpu0, loop0, rss0 / 2**20))
    missed = False
    for v in ["--events", "--perfetto"]:
        wall, cpu, rss, loop = best[v]
        ratio = wall / wall0
        met = ratio <= TARGET
        missed |= not met
        print("%s: run %.3f s (without: %.3f s) = %.2fx (target <= %.2f: %s); CPU %.3f s "
              "(%.3f s) = %.2fx; loop %.3f s (%.3f s) = %.2fx" %
              (v, wall, wall0, ratio, TARGET, "met" if met else "NOT MET", cpu, cpu0, cpu / cpu0,
               loop, loop0, loop / loop0))
        added = max(wall - wall0, 1e-9)
        print("%s: %d events: %.0f events/s recorded (over the %.3f s they added), %.1f "
              "bytes/event of memory (peak %.1f MB, %.1f MB more), %.1f bytes/event in the file" %
              (v, n_events, n_events / added, added, (rss - rss0) / n_events, rss / 2**20,
               (rss - rss0) / 2**20, file_bytes[v] / n_events))
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
