"""Runs the shared guide cases (../shared/tools/guide-check) through the real kernel.

All 22 sections run, each in a fresh kernel. The shared tool lives beside the repository (CI
checks it out there); without it the test is skipped with a printed reason. In a sanitizer
build (TRELLIS_SANITIZED=1) G02 is left out, saying so: it compares eager and traced timings of
a large convolution, which instrumented code distorts; in the normal build it gets three
tries, since a burst of other work on the machine can land in either timing.
"""
import os
import subprocess
import sys

SECTIONS = ["G%02d" % i for i in range(1, 23)]
if os.environ.get("TRELLIS_SANITIZED") == "1":
    print("note: G02 (eager vs traced convolution timing) is not run in a sanitizer build")
    SECTIONS.remove("G02")

tool = os.path.join(sys.argv[1], "..", "shared", "tools", "guide-check")
if not os.path.exists(tool):
    print("SKIP: %s not found (the shared tools are not beside the repository)" % tool)
    sys.exit(77)
kernel = os.environ["TRELLIS_KERNEL"]


def check(sections):
    return subprocess.run(["/usr/bin/python3", tool, "--kernel-cmd",
                           kernel + " -f {connection_file}", "--only", ",".join(sections),
                           "-v"]).returncode


# G02 compares two timings taken one after the other; on a machine shared with other work a
# burst elsewhere can land in either. It gets three tries, each printed; the others run once.
timed = [s for s in SECTIONS if s == "G02"]
status = check([s for s in SECTIONS if s not in timed])
for section in timed:
    for attempt in range(1, 4):
        if check([section]) == 0:
            break
        print("note: %s failed on try %d of 3" % (section, attempt))
    else:
        status = 1
sys.exit(status)
