#!/usr/bin/python3
"""A long elementwise chain, traced and fused, against NumPy, torch.jit.trace and eager Trellis.

The work (issue 6): `for _ in range(1000): x = tf.tanh(x * 0.5 + 0.1)` on a 2x2 float32 tensor.
Tracing unrolls the Python loop into 3000 ops (plus a Const per Python number); the optimiser
merges the Consts, fuses the 3000 ops into one _FusedElementwise node, and the plan runs that
node as one loop over the four elements.

Trellis times itself: a trellis process runs SCRIPT below and prints, each the best of REPEAT:
  - first call: a new tf.function's first call (trace, optimise, plan and one run);
  - traced call: a cached call of the traced function;
  - eager: the same Python function called without tf.function (3000 eager ops).
The peers run in this process under Debian's /usr/bin/python3, each the best of REPEAT too:
  - NumPy: the same loop on a float32 np.ndarray (np.tanh(x * 0.5 + 0.1));
  - torch.jit.trace of the same loop on torch.ones(2, 2) with one intra-op thread, as torch
    defaults it (check_trace=True: the function runs again and the graphs are compared), and,
    for information, with check_trace=False.
Rounds of Trellis and of the peers alternate (swapping which goes first) and each figure keeps
its best, so that background load hits both alike. Results are checked: the traced call must
equal eager Trellis exactly, and NumPy's and torch's values to 1e-6.

A second, wide chain measures the fused kernel's arithmetic rather than the per-call overhead:
`for _ in range(100): x = tf.maximum(x * 0.5 + 0.1, x - 1.0)` on 1,000,000 float32 elements,
a traced call (400 ops fused into one loop over blocks; its arithmetic block functions are
compiled for SSE2, AVX2 and AVX-512 and the CPU's widest is used) against the same loop in
NumPy, each the best of REPEAT, alternating as above.

Prints
    wide chain: ... on 1000000 float32 (CPU: avx512f): T ms (NumPy: N ms, ratio N/T)
    trellis traced call: T us/call (NumPy eager: N us/call, ratio N/T)
    trellis first call (trace+optimise+plan+run): F ms (torch.jit.trace: J ms, ratio J/F; ...)
    trellis eager: E us/call (ratio E/T)
    target (a) NumPy / traced call >= 10: met|NOT MET (R)
    target (b) torch.jit.trace / first call >= 20: met|NOT MET (R)
    target (c) Trellis eager / traced call >= 5: met|NOT MET (R)
Usage: bench-chain.py --trellis BUILD/cli/trellis [--rounds N] [--repeat N] [--check]
With --check, exits 1 when a target is missed.
"""
import argparse
import subprocess
import sys
import time

STEPS = 1000
TARGETS = {"a": 10.0, "b": 20.0, "c": 5.0}

# The Trellis side, one fresh process per round; %(steps)d and %(repeat)d are filled in. Each
# first call uses a new Python function (from make()), so that TensorFlow's frequent-retracing
# warning, keyed by the Python function, does not fire.
SCRIPT = """
import time
import tensorflow as tf

def make():
    def chain(x):
        for _ in range(%(steps)d):
            x = tf.tanh(x * 0.5 + 0.1)
        return x
    return chain

def time_first_call(x):
    f = tf.function(make())
    t0 = time.perf_counter()
    f(x)
    return time.perf_counter() - t0

def time_calls(f, x, n):
    t0 = time.perf_counter()
    for _ in range(n):
        f(x)
    return (time.perf_counter() - t0) / n

x = tf.ones([2, 2])
chain = make()
traced = tf.function(chain)
y = traced(x)
same = bool(tf.reduce_all(tf.equal(y, chain(x))))
first = call = eager = 1e9
for _ in range(%(repeat)d):
    first = min(first, time_first_call(x))
    call = min(call, time_calls(traced, x, 200))
    eager = min(eager, time_calls(chain, x, 3))
print("%%.9g %%.9g %%.9g %%r %%d %%r" %% (first, call, eager, same,
      traced.experimental_get_tracing_count(), float(y[0, 0])))
"""

WIDE_STEPS = 100
WIDE_SIZE = 1000000

WIDE_SCRIPT = """
import time
import tensorflow as tf

@tf.function
def wide(x):
    for _ in range(%(steps)d):
        x = tf.maximum(x * 0.5 + 0.1, x - 1.0)
    return x

x = tf.ones([%(size)d])
y = wide(x)
best = 1e9
for _ in range(%(repeat)d):
    t0 = time.perf_counter()
    wide(x)
    best = min(best, time.perf_counter() - t0)
print("%%.9g %%r" %% (best, float(y[0])))
"""


def wide_round(trellis, repeat):
    """Best seconds of a traced call of the wide chain, and its first element."""
    code = WIDE_SCRIPT % {"steps": WIDE_STEPS, "size": WIDE_SIZE, "repeat": repeat}
    out = subprocess.run([trellis, "-c", code], capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        raise RuntimeError("trellis failed:\n%s%s" % (out.stdout, out.stderr))
    best, value = out.stdout.split()
    return float(best), float(value)


def widest_vector_isa():
    """The widest of the fused kernel's instruction sets this CPU has, from /proc/cpuinfo."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line.split(":", 1)[1].split() for line in f
                          if line.startswith("flags")), [])
    except OSError:
        return "unknown"
    return next((isa for isa in ("avx512f", "avx2") if isa in flags), "sse2")


class NumpyWidePeer:
    def __init__(self):
        import numpy as np
        self.np = np
        self.x = np.ones(WIDE_SIZE, np.float32)
        self.value = float(self.chain(self.x)[0])

    def chain(self, x):
        np = self.np
        for _ in range(WIDE_STEPS):
            x = np.maximum(x * np.float32(0.5) + np.float32(0.1), x - np.float32(1.0))
        return x

    def round(self, repeat):
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            self.chain(self.x)
            best = min(best, time.perf_counter() - t0)
        return best


def trellis_round(trellis, repeat):
    """Best seconds: (first call, traced call, eager call) and the result's first element."""
    code = SCRIPT % {"steps": STEPS, "repeat": repeat}
    out = subprocess.run([trellis, "-c", code], capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        raise RuntimeError("trellis failed:\n%s%s" % (out.stdout, out.stderr))
    first, call, eager, same, traces, value = out.stdout.split()
    if same != "True" or int(traces) != 1:
        raise RuntimeError("trellis: traced result equals eager: %s, traces: %s (want 1)" %
                           (same, traces))
    return float(first), float(call), float(eager), float(value)


class NumpyPeer:
    def __init__(self):
        import numpy as np
        self.np = np
        self.x = np.ones((2, 2), np.float32)
        self.value = float(self.chain(self.x)[0, 0])

    def chain(self, x):
        tanh = self.np.tanh
        for _ in range(STEPS):
            x = tanh(x * 0.5 + 0.1)
        return x

    def round(self, repeat):
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            self.chain(self.x)
            best = min(best, time.perf_counter() - t0)
        return best


class TorchPeer:
    """torch.jit.trace of the same loop, one intra-op thread (2x2 ops run inline anyway)."""

    def __init__(self):
        import torch
        torch.set_num_threads(1)
        self.torch = torch
        self.x = torch.ones(2, 2)
        traced = torch.jit.trace(self.chain, (self.x,))
        self.value = float(traced(self.x)[0, 0])

    @staticmethod
    def chain(x):
        import torch
        for _ in range(STEPS):
            x = torch.tanh(x * 0.5 + 0.1)
        return x

    def round(self, repeat):
        """Best seconds of torch.jit.trace with its defaults, and with check_trace=False."""
        best = best_nocheck = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            self.torch.jit.trace(self.chain, (self.x,))
            best = min(best, time.perf_counter() - t0)
            t0 = time.perf_counter()
            self.torch.jit.trace(self.chain, (self.x,), check_trace=False)
            best_nocheck = min(best_nocheck, time.perf_counter() - t0)
        return best, best_nocheck


def make_peer(cls):
    try:
        return cls(), None
    except Exception as e:  # report, never die: Trellis's own figures are still worth having
        return None, "%s: %s" % (type(e).__name__, e)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trellis", required=True)
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds per side")
    ap.add_argument("--repeat", type=int, default=5, help="timings per round")
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = ap.parse_args()

    numpy_peer, numpy_why = make_peer(NumpyPeer)
    torch_peer, torch_why = make_peer(TorchPeer)
    wide_peer, wide_why = make_peer(NumpyWidePeer)
    first = call = eager = np_time = jit = jit_nocheck = float("inf")
    wide = np_wide = float("inf")
    value = wide_value = None
    for r in range(args.rounds):
        sides = ["trellis", "peers"] if r % 2 == 0 else ["peers", "trellis"]
        for side in sides:
            if side == "trellis":
                f, c, e, value = trellis_round(args.trellis, args.repeat)
                first, call, eager = min(first, f), min(call, c), min(eager, e)
                w, wide_value = wide_round(args.trellis, args.repeat)
                wide = min(wide, w)
                continue
            if wide_peer:
                np_wide = min(np_wide, wide_peer.round(args.repeat))
            if numpy_peer:
                np_time = min(np_time, numpy_peer.round(args.repeat))
            if torch_peer:
                j, jn = torch_peer.round(max(1, args.repeat // 2))
                jit, jit_nocheck = min(jit, j), min(jit_nocheck, jn)

    for peer, name in ((numpy_peer, "NumPy"), (torch_peer, "torch")):
        if peer and abs(peer.value - value) > 1e-6:
            print("warning: %s computes %r, Trellis %r" % (name, peer.value, value))

    if wide_peer and abs(wide_peer.value - wide_value) > 1e-6:
        print("warning: NumPy's wide chain computes %r, Trellis %r" % (wide_peer.value, wide_value))

    us, ms = 1e6, 1e3
    wide_text = ("unavailable: " + wide_why if wide_why else
                 "%.1f ms, ratio %.1f" % (np_wide * ms, np_wide / wide))
    print("wide chain: %d x max(x * 0.5 + 0.1, x - 1) on %d float32 (CPU: %s): "
          "%.1f ms (NumPy: %s)" % (WIDE_STEPS, WIDE_SIZE, widest_vector_isa(), wide * ms,
                                   wide_text))
    ratio_a, ratio_b, ratio_c = np_time / call, jit / first, eager / call
    print("chain: %d x (tanh(x * 0.5 + 0.1)) on 2x2 float32 = %d ops; result[0, 0] = %r" %
          (STEPS, 3 * STEPS, value))
    np_text = ("unavailable: " + numpy_why if numpy_why else
               "%.1f us/call, ratio %.1f" % (np_time * us, ratio_a))
    print("trellis traced call: %.1f us/call (NumPy eager: %s)" % (call * us, np_text))
    jit_text = ("unavailable: " + torch_why if torch_why else
                "%.1f ms, ratio %.1f; with check_trace=False: %.1f ms, ratio %.1f" %
                (jit * ms, ratio_b, jit_nocheck * ms, jit_nocheck / first))
    print("trellis first call (trace+optimise+plan+run): %.2f ms (torch.jit.trace: %s)" %
          (first * ms, jit_text))
    print("trellis eager: %.1f us/call (ratio %.1f)" % (eager * us, ratio_c))
    met = True
    for name, ratio, what, why in (
            ("a", ratio_a, "NumPy / traced call", numpy_why),
            ("b", ratio_b, "torch.jit.trace / first call", torch_why),
            ("c", ratio_c, "Trellis eager / traced call", None)):
        if why:
            print("target (%s) %s >= %.0f: not measured" % (name, what, TARGETS[name]))
            continue
        ok = ratio >= TARGETS[name]
        met = met and ok
        print("target (%s) %s >= %.0f: %s (%.1f)" %
              (name, what, TARGETS[name], "met" if ok else "NOT MET", ratio))
    return 1 if args.check and not met else 0


if __name__ == "__main__":
    sys.exit(main())
