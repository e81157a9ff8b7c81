#!/usr/bin/python3
"""What a retrace costs (issue 16): a one-op Function called with a new Python int each time
traces thousands of ConcreteFunctions. Each must cost memory proportional to its graph (a one-op
trace well under 10 KB) and time independent of the number of earlier traces. The program
prints its figures; the limits compare them within one run, so that the test holds in the
sanitizer build too (where everything is slower and every allocation larger).
Usage: test-cli-retrace.py PATH/TO/trellis"""
import os
import re
import subprocess
import sys

TRELLIS = sys.argv[1]

# CPU time of the process (not wall time: the machine is shared) per block of 50 traces, the
# median block of an early window (traces 100-600: the first trace converts the body with
# AutoGraph) against that of the last 500 traces, so that a stray slow block does not decide;
# RSS from /proc over the last 3000 traces.
PROGRAM = r"""
import statistics
import time
import tensorflow as tf

N = 4000

@tf.function
def f(x):
    return x + 1

def rss_kb():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS"):
                return int(line.split()[1])

blocks = {}
for i in range(N):
    if i % 50 == 0:
        blocks[i] = time.process_time()
    if i == 1000:
        rss_start = rss_kb()
    f(i)
blocks[N] = time.process_time()
rss_end = rss_kb()
def median_block(start, end):
    return statistics.median(blocks[b + 50] - blocks[b] for b in range(start, end, 50))
asan = any("libasan" in line for line in open("/proc/self/maps"))
print("traces", f.experimental_get_tracing_count())
print("early %.5f" % median_block(100, 600))
print("late %.5f" % median_block(N - 500, N))
print("rss_per_trace_kb %.2f" % ((rss_end - rss_start) / (N - 1000)))
print("asan", int(asan))
"""

env = dict(os.environ)
# AddressSanitizer keeps freed memory in quarantine (256 MB by default), which would count every
# temporary of every trace as held: measure what the traces keep.
env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":quarantine_size_mb=0").lstrip(":")
r = subprocess.run([TRELLIS, "-c", PROGRAM], capture_output=True, text=True, timeout=120, env=env)
print(r.stdout, end="")
if r.returncode != 0:
    print("FAIL trellis exited with %d\n%s" % (r.returncode, r.stderr[-3000:]))
    sys.exit(1)
fig = dict(re.findall(r"^(\w+) (\S+)$", r.stdout, re.M))
failures = 0


def check(name, ok, detail):
    global failures
    print("%s %s: %s" % ("ok" if ok else "FAIL", name, detail))
    failures += not ok


check("every call traced", fig.get("traces") == "4000", "traces %s" % fig.get("traces"))
early, late = float(fig["early"]), float(fig["late"])
ratio = late / max(early, 1e-6)
check("time per trace independent of earlier traces", ratio < 2.0,
      "50 traces took %.4f s among traces 100-600, %.4f s among traces 3500-4000 (medians): "
      "ratio %.2f (limit 2)" %
      (early, late, ratio))
per_trace = float(fig["rss_per_trace_kb"])
# Under AddressSanitizer every allocation carries redzones and a larger size class: a one-op
# trace's ~6 KB becomes ~10 KB. The old cost (three 64 KiB arenas) stays far above either limit.
limit = 20.0 if fig.get("asan") == "1" else 10.0
check("memory per trace", per_trace < limit,
      "RSS grew %.2f KB per trace over the last 3000 (limit %g KB%s)" %
      (per_trace, limit, ", AddressSanitizer build" if limit > 10 else ""))
sys.exit(1 if failures else 0)
