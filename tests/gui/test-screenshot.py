#!/usr/bin/python3
"""`trellis-debugger --screenshot OUT.png NOTEBOOK` under Xvfb (DESIGN "Programs"): it runs the
notebook standalone, waits until it finished and the window is idle, and writes a PNG of the
whole window: 1400x900, not one flat colour. A missing notebook makes it fail with a message.
Usage: test-screenshot.py NOTEBOOK (TRELLIS_DEBUGGER in the environment)"""
import os
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pngcheck import distinct_colours, read_png  # noqa: E402

DEBUGGER = os.environ["TRELLIS_DEBUGGER"]
XVFB = ["xvfb-run", "-a", "-s", "-screen 0 1920x1200x24"]
failures = 0


def check(name, ok, detail=""):
    global failures
    print("%s %s" % ("ok" if ok else "FAIL", name))
    if not ok:
        failures += 1
        print("  " + str(detail).replace("\n", "\n  "))


def screenshot(out, target, scale=1):
    env = dict(os.environ, GDK_BACKEND="x11", NO_AT_BRIDGE="1")
    xvfb = XVFB
    if scale != 1:
        env["GDK_SCALE"] = str(scale)
        xvfb = ["xvfb-run", "-a", "-s", "-screen 0 %dx%dx24" % (1920 * scale, 1200 * scale)]
    # Its own process group: a timeout kills xvfb-run, Xvfb and the debugger together.
    proc = subprocess.Popen(xvfb + [DEBUGGER, "--screenshot", out, target], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=240)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "window.png")
    run = screenshot(out, sys.argv[1])
    check("exits 0", run.returncode == 0, run.stderr)
    check("writes the PNG", os.path.exists(out), run.stderr)
    check("no sanitizer report or critical warning",
          "Sanitizer" not in run.stderr and "CRITICAL" not in run.stderr, run.stderr)
    if os.path.exists(out):
        width, height, channels, bps, rows = read_png(out)
        check("has the window's size", (width, height) == (1400, 900), (width, height))
        colours = distinct_colours(rows, channels, bps)
        check("is not one flat colour", colours > 20, "%d colours" % colours)

    # GDK_SCALE=2 (a HiDPI screen): the whole window at twice the pixels each way, on a screen
    # big enough to hold it (it was 1400x900: the device pixels' detail lost).
    out2 = os.path.join(tmp, "window-2x.png")
    run = screenshot(out2, sys.argv[1], scale=2)
    check("GDK_SCALE=2: exits 0", run.returncode == 0, run.stderr)
    if os.path.exists(out2):
        width, height, channels, bps, rows = read_png(out2)
        check("GDK_SCALE=2: twice the window's size", (width, height) == (2800, 1800),
              (width, height))
        # drawn all over, not in a corner of the texture: near the bottom-right, inside the
        # window's frame, a pixel is opaque
        px = channels * bps  # bytes per pixel (bps: bytes per sample)
        row = rows[int(height * 0.95)]
        pixel = row[int(width * 0.95) * px:(int(width * 0.95) + 1) * px]
        check("GDK_SCALE=2: drawn to the bottom-right", channels < 4 or pixel[3 * bps] != 0,
              list(pixel))
        check("GDK_SCALE=2: is not one flat colour", distinct_colours(rows, channels, bps) > 20)

    broken = os.path.join(tmp, "broken.ipynb")
    with open(broken, "w") as f:
        f.write('{"cells": [')
    bad = screenshot(os.path.join(tmp, "broken.png"), broken)
    check("a malformed notebook fails with a message",
          bad.returncode == 1 and "broken.ipynb" in bad.stderr, bad.stderr)

    script = os.path.join(tmp, "raises.py")
    with open(script, "w") as f:
        f.write("import tensorflow as tf\nf = tf.function(lambda x: x + 1)\nf(1)\nraise ValueError('stop')\n")
    run = screenshot(os.path.join(tmp, "raises.png"), script)
    check("a script that raises is still shown", run.returncode == 0 and
          os.path.exists(os.path.join(tmp, "raises.png")), run.stderr)

    missing = os.path.join(tmp, "missing.ipynb")
    bad = screenshot(os.path.join(tmp, "bad.png"), missing)
    check("a missing notebook fails", bad.returncode != 0, bad.stderr)
    check("and says why", "missing.ipynb" in bad.stderr or "No such file" in bad.stderr, bad.stderr)
    check("without a PNG", not os.path.exists(os.path.join(tmp, "bad.png")))
    check("without a crash", "AddressSanitizer" not in bad.stderr and bad.returncode in (1, 2),
          bad.returncode)

sys.exit(1 if failures else 0)
