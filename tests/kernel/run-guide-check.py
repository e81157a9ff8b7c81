"""Runs the shared guide cases (../shared/tools/guide-check) through the real kernel.

The sections are the guide's examples that the traced-function layers implement so far; each
runs in a fresh kernel. The shared tool lives beside the repository (CI checks it out there);
without it the test is skipped with a printed reason.
"""
import os
import subprocess
import sys

SECTIONS = "G03,G04,G05,G06,G07,G08,G09,G14,G15,G17,G18,G19,G20,G21"

tool = os.path.join(sys.argv[1], "..", "shared", "tools", "guide-check")
if not os.path.exists(tool):
    print("SKIP: %s not found (the shared tools are not beside the repository)" % tool)
    sys.exit(77)
kernel = os.environ["TRELLIS_KERNEL"]
r = subprocess.run(["/usr/bin/python3", tool, "--kernel-cmd", kernel + " -f {connection_file}",
                    "--only", SECTIONS, "-v"])
sys.exit(r.returncode)
