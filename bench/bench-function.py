#!/usr/bin/python3
"""tf.function's cache hit against torch.jit.trace: `a + b` on 2x2 float32 tensors, one run.

Trellis times itself: a trellis process runs SCRIPT below, which traces `add` once, then times
loops of cached calls `add(a, b)`, of the eager op `a + b` alone and of a plain Python call with
time.perf_counter() (so process start-up is not counted), and prints the best seconds per call
of each. PyTorch runs in this process (Debian's /usr/bin/python3 has torch): the same function,
torch.jit.trace'd on torch.ones(2, 2), warmed up, called from the same kind of loop. Rounds of
the two sides alternate (swapping which goes first) and each side keeps its best round, so that
background load hits both alike. Every per-call time includes its `for` loop's step, on both
sides alike.

Prints
    traced add(a, b), 2x2 float32, cache hit: T ns/call (torch.jit.trace, 1 thread: P ns/call, speed-up S)
    eager a + b (the op alone): E ns/call
    plain Python call f(a, b): C ns/call
    cache-hit overhead, op excluded (traced call - eager a + b): T - E ns
    target: torch.jit.trace / Trellis >= 5.00: met|NOT MET (S)
where S is PyTorch's time over Trellis's (above 1: Trellis is faster; the target is >= 5) and
the overhead is what a cache hit adds to running the op: the traced call's time minus the
eager op's, both of which allocate the 2x2 result and run the same add kernel.
Usage: bench-function.py --trellis BUILD/cli/trellis [--rounds N] [--calls N] [--repeat N]
       [--check]
With --check, exits 1 when the target is missed.
"""
import argparse
import subprocess
import sys
import time

TARGET = 5.0  # torch.jit.trace's time over Trellis's, at least

# The Trellis side, one fresh process per round (so its figures are for a process's first
# REPEAT * CALLS cached calls); %(calls)d and %(repeat)d are filled in. Loops live in functions so
# that both sides' loops use fast locals.
SCRIPT = """
import time
import tensorflow as tf

@tf.function
def add(a, b):
    return a + b

def f(a, b):
    return a

def time_traced(a, b, n):
    t0 = time.perf_counter()
    for _ in range(n):
        add(a, b)
    return (time.perf_counter() - t0) / n

def time_eager(a, b, n):
    t0 = time.perf_counter()
    for _ in range(n):
        a + b
    return (time.perf_counter() - t0) / n

def time_plain(a, b, n):
    t0 = time.perf_counter()
    for _ in range(n):
        f(a, b)
    return (time.perf_counter() - t0) / n

a = tf.ones([2, 2])
b = tf.ones([2, 2])
total = float(tf.reduce_sum(add(a, b)))  # the one call that traces
time_traced(a, b, 100)
time_eager(a, b, 100)
traced = eager = call = 1e9
for _ in range(%(repeat)d):
    traced = min(traced, time_traced(a, b, %(calls)d))
    eager = min(eager, time_eager(a, b, %(calls)d))
    call = min(call, time_plain(a, b, %(calls)d))
traces = add.experimental_get_tracing_count()
print("%%.9g %%.9g %%.9g %%d %%r" %% (traced, eager, call, traces, total))
"""


def trellis_round(trellis, calls, repeat):
    """Best seconds per call: (traced, eager, plain) from one trellis process."""
    code = SCRIPT % {"calls": calls, "repeat": repeat}
    out = subprocess.run([trellis, "-c", code], capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise RuntimeError("trellis failed:\n%s%s" % (out.stdout, out.stderr))
    traced, eager, call, traces, total = out.stdout.split()
    if int(traces) != 1 or float(total) != 8.0:
        raise RuntimeError("trellis: add traced %s times (want 1), sum %s (want 8.0)" %
                           (traces, total))
    return float(traced), float(eager), float(call)


class TorchPeer:
    """torch.jit.trace of the same function, one intra-op thread: a 2x2 add runs inline on the
    calling thread whatever the setting, and Trellis runs it on one thread too."""

    def __init__(self):
        import torch
        torch.set_num_threads(1)

        def add(a, b):
            return a + b

        self.a = torch.ones(2, 2)
        self.b = torch.ones(2, 2)
        self.add = torch.jit.trace(add, (self.a, self.b))
        if float(self.add(self.a, self.b).sum()) != 8.0:
            raise RuntimeError("torch: wrong sum")
        self.time(100)  # the profiling executor optimises after its first calls

    def time(self, n):
        add, a, b = self.add, self.a, self.b
        t0 = time.perf_counter()
        for _ in range(n):
            add(a, b)
        return (time.perf_counter() - t0) / n

    def round(self, calls, repeat):
        return min(self.time(calls) for _ in range(repeat))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trellis", required=True)
    ap.add_argument("--rounds", type=int, default=7, help="alternating rounds per side")
    ap.add_argument("--calls", type=int, default=2000, help="calls per timed loop")
    ap.add_argument("--repeat", type=int, default=5, help="timed loops per round")
    ap.add_argument("--check", action="store_true", help="exit 1 when the target is missed")
    args = ap.parse_args()

    try:
        peer, why = TorchPeer(), None
    except Exception as e:  # report, never die: Trellis's own figures are still worth having
        peer, why = None, "%s: %s" % (type(e).__name__, e)
    traced = eager = call = theirs = float("inf")
    for r in range(args.rounds):
        sides = ["trellis", "torch"] if r % 2 == 0 else ["torch", "trellis"]
        for side in sides:
            if side == "trellis":
                t, e, c = trellis_round(args.trellis, args.calls, args.repeat)
                traced, eager, call = min(traced, t), min(eager, e), min(call, c)
            elif peer:
                theirs = min(theirs, peer.round(args.calls, args.repeat))

    ns = 1e9
    peer_text = ("unavailable: " + why if why else
                 "%.1f ns/call, speed-up %.2f" % (theirs * ns, theirs / traced))
    print("traced add(a, b), 2x2 float32, cache hit: %.1f ns/call (torch.jit.trace, 1 thread: %s)"
          % (traced * ns, peer_text))
    print("eager a + b (the op alone): %.1f ns/call" % (eager * ns))
    print("plain Python call f(a, b): %.1f ns/call" % (call * ns))
    print("cache-hit overhead, op excluded (traced call - eager a + b): %.1f ns" %
          ((traced - eager) * ns))
    if why:
        print("target: torch.jit.trace / Trellis >= %.2f: not measured" % TARGET)
        return 0
    met = theirs / traced >= TARGET
    print("target: torch.jit.trace / Trellis >= %.2f: %s (%.2f)" %
          (TARGET, "met" if met else "NOT MET", theirs / traced))
    return 1 if args.check and not met else 0


if __name__ == "__main__":
    sys.exit(main())
