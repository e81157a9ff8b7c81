"""Long sessions of trellis-kernel stay within bounded memory.

A notebook left running for days sends the kernel hundreds of thousands of cells; whatever the
kernel keeps per cell must be small, and what it keeps for debuggers (events, cells) bounded.
The figures are printed so that a run can be quoted.
"""
import collections, os, sys, time, unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tkclient import Kernel  # noqa: E402
from test_debug import Debugger  # noqa: E402

SANITIZED = os.environ.get("TRELLIS_SANITIZED") == "1"
# What the kernel keeps for debuggers (kernel-debug.h: TK_DEBUG_KEEP_CELLS).
KEEP_CELLS = 10000


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS for %d" % pid)


def run_many(k, codes, window=64):
    """Runs every cell with up to `window` requests in flight; each must succeed. The iopub
    stream is read as it comes, as a frontend does."""
    pending = collections.deque()

    def settle(n):
        while len(pending) > n:
            m = k.recv(k.shell, timeout=60)
            if m["parent_header"].get("msg_id") != pending[0]:
                continue
            pending.popleft()
            if m["content"]["status"] != "ok":
                raise AssertionError("cell failed: %r" % (m["content"],))
            while k.iopub.poll(0):
                k.iopub.recv_multipart()

    for code in codes:
        pending.append(k.send(k.shell, "execute_request", dict(code=code)))
        settle(window)
    settle(0)


class LongSession(unittest.TestCase):
    def test_100k_small_cells_stay_under_100_mb_and_the_debug_state_is_bounded(self):
        # Under AddressSanitizer RSS is mostly its quarantine and shadow memory, and cells are
        # slower: that build runs enough cells to pass the debug state's window, and checks it.
        n = 12000 if SANITIZED else 100000
        k = Kernel()
        try:
            reply, _ = k.execute("import tensorflow as tf\n"
                                 "f = tf.function(lambda t: t * 2)\n"
                                 "t = tf.constant(1)\n"
                                 "x = f(t)")
            self.assertEqual(reply["content"]["status"], "ok")
            before = rss_kib(k.proc.pid)
            # Small cells; one in a hundred calls the Function (a cached call: its events).
            codes = ("x = f(t)" if i % 100 == 0 else "x = %d" % i for i in range(n))
            t0 = time.monotonic()
            run_many(k, codes)
            took = time.monotonic() - t0
            grown = (rss_kib(k.proc.pid) - before) / 1024
            print("%d cells in %.1f s: RSS +%.1f MB (%.0f bytes per cell)" %
                  (n, took, grown, grown * 1024 * 1024 / n))
            if SANITIZED:
                print("RSS not checked: under AddressSanitizer it measures the sanitizer's "
                      "quarantine and shadow memory, not what the kernel keeps")
            else:
                self.assertLess(grown, 100)

            # The debugger's state keeps the last cells and says how many it dropped; the
            # Function's counts cover every call.
            d = Debugger(k, subscribe=False)
            try:
                snap = d.request("snapshot")["snapshot"]
            finally:
                d.close()
            cells = snap["cells"]
            self.assertGreaterEqual(len(cells), KEEP_CELLS)
            self.assertLessEqual(len(cells), KEEP_CELLS + KEEP_CELLS // 16)
            self.assertEqual(len(cells) + snap["cells_dropped"], n + 1)
            self.assertEqual(cells[-1]["number"], n + 1)
            fn = [f for f in snap["functions"] if f["name"] == "<lambda>"][0]
            self.assertEqual(fn["calls"], 1 + n // 100)
            self.assertLessEqual(len(snap["events"]), 20000)
        finally:
            k.stop(shutdown=k.alive())


if __name__ == "__main__":
    unittest.main(verbosity=2)
