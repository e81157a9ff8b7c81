#!/usr/bin/python3
"""The debugger attached to a real kernel (SPEC §4: events are never lost between the kernel
and an attached debugger; SPEC §6: export to Perfetto).

A trellis-kernel started by jupyter_client writes every event it emits to KERNEL.jsonl
(--events). `trellis-debugger --attach CONN --perfetto DBG.json` attaches to it under Xvfb and
says so on stderr; nbclient then runs a notebook through the same kernel (with a cell that turns
run_functions_eagerly on and off). Once the debugger has applied the kernel's last event, it
gets SIGTERM, quits cleanly and writes DBG.json. A cell making 300 calls in a burst checks that
batches lose nothing. Every Function's calls (hit, miss, eager), every
retrace cause with its text, and the eager switches must be the same in both.
Usage: test-attach.py NOTEBOOK (TRELLIS_DEBUGGER and TRELLIS_KERNEL in the environment)"""
import collections
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

import nbformat
from jupyter_client import KernelManager
from nbclient import NotebookClient

DEBUGGER = os.environ["TRELLIS_DEBUGGER"]
KERNEL = os.environ["TRELLIS_KERNEL"]
XVFB = ["xvfb-run", "-a", "-s", "-screen 0 1920x1200x24"]
EXTRA_CELLS = [
    "@tf.function\ndef many(x):\n  return x + 1\n"
    "for i in range(300):\n  many(tf.constant([1.0] * (i % 3 + 1)))",
    "@tf.function\ndef eager_probe(x):\n  return x * 2",
    "tf.config.run_functions_eagerly(True)\neager_probe(tf.constant(1.0))",
    "tf.config.run_functions_eagerly(False)\neager_probe(tf.constant(2.0))",
]
failures = 0


def check(name, ok, detail=""):
    global failures
    print("%s %s" % ("ok" if ok else "FAIL", name))
    if not ok:
        failures += 1
        print("  " + str(detail)[-4000:].replace("\n", "\n  "))


class Debugger:
    """trellis-debugger under xvfb-run; its stderr read line by line on a thread."""

    def __init__(self, args):
        env = dict(os.environ, G_MESSAGES_DEBUG="trellis-debugger", GDK_BACKEND="x11",
                   NO_AT_BRIDGE="1")
        # The shell prints its pid and execs the debugger: SIGTERM must reach the debugger
        # itself, not xvfb-run.
        cmd = XVFB + ["sh", "-c", 'echo "pid $$" >&2; exec "$@"', "sh", DEBUGGER] + args
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True, env=env)
        self.lines = []
        self.cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stderr:
            with self.cond:
                self.lines.append(line)
                self.cond.notify_all()

    def wait_for(self, pattern, timeout):
        """The first match of `pattern` in a stderr line, waiting up to `timeout` seconds."""
        regex = re.compile(pattern)
        deadline = time.time() + timeout
        with self.cond:
            while True:
                for line in self.lines:
                    m = regex.search(line)
                    if m:
                        return m
                left = deadline - time.time()
                if left <= 0 or self.proc.poll() is not None:
                    return None
                self.cond.wait(min(left, 0.5))

    def applied_seq(self):
        with self.cond:
            seqs = [int(m.group(1)) for m in
                    (re.search(r"applied events up to seq (\d+)", l) for l in self.lines) if m]
        return max(seqs, default=0)

    def stderr(self):
        with self.cond:
            return "".join(self.lines)


def kernel_counts(path):
    """Calls per (Function, outcome), retrace causes and eager switches in the kernel's file."""
    calls, causes, eager = collections.Counter(), collections.Counter(), []
    last = 0
    with open(path) as f:
        for line in f:
            ev = json.loads(line)
            last = max(last, ev["seq"])
            if ev["kind"] == "call_end":
                calls[(ev["function"], ev["outcome"])] += 1
            elif ev["kind"] == "retrace_cause":
                texts = tuple(c["text"] for c in ev.get("causes", []))
                causes[(ev["function"], texts)] += 1
            elif ev["kind"] == "eager_mode":
                eager.append(ev["enabled"])
    return calls, causes, eager, last


def perfetto_counts(path):
    """The same from the debugger's Perfetto export (core/trace/perfetto.c's slice names)."""
    with open(path) as f:
        doc = json.load(f)
    lanes = {}
    for e in doc["traceEvents"]:
        if e["ph"] == "M" and e["name"] == "thread_name" and e["tid"] != 0:
            lanes[e["tid"]] = e["args"]["name"].rsplit(" #", 1)[0]
    calls, causes, eager = collections.Counter(), collections.Counter(), []
    for e in sorted(doc["traceEvents"], key=lambda e: e.get("ts", 0)):
        if e["ph"] == "X" and e["cat"] == "call":
            outcome = e["args"]["outcome"]
            name = e["name"][:-len(" (%s)" % outcome)]
            calls[(name, outcome)] += 1
        elif e["ph"] == "i" and e["cat"] == "cause":
            causes[(lanes.get(e["tid"], "?"), tuple(e["args"]["causes"]))] += 1
        elif e["ph"] == "i" and e["cat"] == "eager":
            eager.append(e["name"] == "eager on")
    return calls, causes, eager


def start_kernel(tmp, events):
    spec_dir = os.path.join(tmp, "kernels", "trellis-gui-test")
    os.makedirs(spec_dir)
    with open(os.path.join(spec_dir, "kernel.json"), "w") as f:
        json.dump({"argv": [KERNEL, "-f", "{connection_file}", "--events", events],
                   "display_name": "Trellis (gui test)", "language": "python"}, f)
    os.environ["JUPYTER_PATH"] = tmp
    os.environ["JUPYTER_RUNTIME_DIR"] = os.path.join(tmp, "runtime")
    km = KernelManager(kernel_name="trellis-gui-test",
                       connection_file=os.path.join(tmp, "runtime", "kernel-guitest.json"))
    os.makedirs(os.path.join(tmp, "runtime"))
    km.start_kernel()
    return km


def main():
    with tempfile.TemporaryDirectory() as tmp:
        events = os.path.join(tmp, "kernel.jsonl")
        exported = os.path.join(tmp, "debugger.json")
        km = start_kernel(tmp, events)
        debugger = None
        try:
            discovery = os.path.join(tmp, "runtime", "trellis-debug-guitest.json")
            deadline = time.time() + 30
            while not os.path.exists(discovery) and time.time() < deadline:
                time.sleep(0.1)
            check("the kernel writes its discovery file", os.path.exists(discovery))

            debugger = Debugger(["--attach", km.connection_file, "--perfetto", exported])
            pid = debugger.wait_for(r"^pid (\d+)", 30)
            attached = debugger.wait_for(r"attached", 60)
            check("the debugger attaches", attached is not None, debugger.stderr())
            if attached is None:
                return

            nb = nbformat.read(sys.argv[1], as_version=4)
            nb.cells = [c for c in nb.cells if c.cell_type == "code"]
            nb.cells += [nbformat.v4.new_code_cell(src) for src in EXTRA_CELLS]
            NotebookClient(nb, km=km, timeout=120, allow_errors=True).execute()
            _, _, _, last = kernel_counts(events)
            deadline = time.time() + 60
            while debugger.applied_seq() < last and time.time() < deadline:
                time.sleep(0.2)
            check("the debugger applied every event", debugger.applied_seq() >= last,
                  "%d of %d\n%s" % (debugger.applied_seq(), last, debugger.stderr()))

            os.kill(int(pid.group(1)), signal.SIGTERM)
            code = debugger.proc.wait(timeout=60)
            check("SIGTERM quits cleanly", code == 0, debugger.stderr())
            check("no sanitizer report", "Sanitizer" not in debugger.stderr(), debugger.stderr())
            check("the export is written", os.path.exists(exported), debugger.stderr())
            if not os.path.exists(exported):
                return

            k_calls, k_causes, k_eager, _ = kernel_counts(events)
            d_calls, d_causes, d_eager = perfetto_counts(exported)
            check("the notebook made calls and retraces",
                  sum(k_calls.values()) > 10 and sum(k_causes.values()) > 3, k_calls)
            check("same calls per Function and outcome", k_calls == d_calls,
                  "kernel %s\ndebugger %s" % (sorted(k_calls.items()), sorted(d_calls.items())))
            check("same retrace causes", k_causes == d_causes,
                  "kernel %s\ndebugger %s" % (sorted(k_causes.items()), sorted(d_causes.items())))
            check("eager calls seen", k_calls[("eager_probe", "eager")] == 1, k_calls)
            check("the burst is all there", d_calls[("many", "hit")] + d_calls[("many", "miss")]
                  == 300, d_calls)
            check("same eager switches", k_eager == d_eager and k_eager[-2:] == [True, False],
                  "kernel %s debugger %s" % (k_eager, d_eager))
        finally:
            if debugger and debugger.proc.poll() is None:
                pid = debugger.wait_for(r"^pid (\d+)", 0)
                if pid:
                    os.kill(int(pid.group(1)), signal.SIGKILL)
                debugger.proc.wait(timeout=30)
            km.shutdown_kernel(now=True)


main()
sys.exit(1 if failures else 0)
