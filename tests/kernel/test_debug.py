"""The kernel's debug protocol (kernel/kernel-debug.h) over real sockets.

A raw debugger here is a SUB on the kernel's events publisher and a DEALER on its request
socket, both found through the discovery file beside the connection file. The kernel runs with
--events FILE.jsonl, the reference every debugger's view is compared with: a snapshot plus the
live events after it must be exactly the file's events, with no gap and no duplicate.
"""
import hashlib, hmac, json, os, sys, time, unittest, uuid

import zmq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tkclient import Kernel  # noqa: E402

TOPIC = b"trellis.events"

FUNCTION_CELL = (
    "import tensorflow as tf\n"
    "@tf.function\n"
    "def f(x):\n"
    "    return x * 2 + 1\n")
CALLS_CELL = (
    "f(tf.constant([1, 2]))\n"
    "f(tf.constant([3, 4]))\n"
    "f(tf.constant([1.0, 2.0]))\n"
    "f(3)\n"
    "f(4)\n")


def discovery_path(connection_file):
    d, base = os.path.split(connection_file)
    stem = base[len("kernel-"):] if base.startswith("kernel-") else base
    if not stem.endswith(".json"):
        stem += ".json"
    return os.path.join(d, "trellis-debug-" + stem)


class Debugger:
    """A raw debug client of one kernel."""

    def __init__(self, kernel, subscribe=True):
        self.key = kernel.key
        with open(discovery_path(kernel.cf)) as f:
            self.disc = json.load(f)
        self.ctx = zmq.Context()
        self.sub = self.ctx.socket(zmq.SUB)
        self.sub.setsockopt(zmq.LINGER, 0)
        if subscribe:
            self.sub.setsockopt(zmq.SUBSCRIBE, TOPIC)
        self.sub.connect(self.disc["events"])
        self.dealer = self.ctx.socket(zmq.DEALER)
        self.dealer.setsockopt(zmq.LINGER, 0)
        self.dealer.connect(self.disc["requests"])

    def close(self):
        self.ctx.destroy(0)

    def sign(self, *frames):
        h = hmac.new(self.key, digestmod=hashlib.sha256)
        for x in frames:
            h.update(x)
        return h.hexdigest().encode()

    def send(self, body, signature=None):
        raw = json.dumps(body).encode()
        self.dealer.send_multipart([self.sign(raw) if signature is None else signature, raw])
        return raw

    def reply(self, timeout=10):
        assert self.dealer.poll(int(timeout * 1000)), "no reply from the debug socket"
        frames = self.dealer.recv_multipart()
        assert len(frames) == 2, frames
        assert hmac.compare_digest(frames[0], self.sign(frames[1])), "reply with a bad signature"
        return json.loads(frames[1])

    def request(self, type_, **fields):
        body = dict(id=uuid.uuid4().hex, type=type_, **fields)
        self.send(body)
        reply = self.reply()
        assert reply["id"] == body["id"] and reply["type"] == type_ + "_reply", reply
        assert reply["session"] == self.disc["session"]
        return reply

    def live(self, wait=0.2, until=None):
        """Every live event received until `wait` s of silence, in order; with `until`, also
        stops after the batch holding the first event for which until(event) is true."""
        out = []
        while self.sub.poll(int(wait * 1000)):
            topic, sig, body = self.sub.recv_multipart()
            assert topic == TOPIC
            assert hmac.compare_digest(sig, self.sign(topic, body)), "event with a bad signature"
            msg = json.loads(body)
            assert msg["session"] == self.disc["session"]
            seqs = [e["seq"] for e in msg["events"]]
            assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), "not consecutive"
            assert len(seqs) <= 1024
            out.extend(msg["events"])
            if until and any(until(e) for e in msg["events"]):
                break
        return out

    def wait_subscribed(self, kernel):
        """Run tiny cells until one's events come through: our subscription is live."""
        for _ in range(50):
            kernel.execute("pass")
            if self.live(0.1):
                return
        raise AssertionError("the events publisher never delivered")

    def attach(self):
        """Snapshot: (its seq, its events)."""
        snap = self.request("snapshot")["snapshot"]
        return snap["seq"], snap["events"], snap

    def follow(self, since, events):
        """The stream after `since`: drop what the snapshot had, fill gaps with events_since."""
        out, last = [], since
        for ev in events:
            if ev["seq"] <= last:
                continue
            if ev["seq"] != last + 1:
                fill = self.request("events_since", seq=last)
                assert fill["status"] == "ok", fill
                for e in fill["events"]:
                    if e["seq"] > last:
                        out.append(e)
                        last = e["seq"]
                if ev["seq"] <= last:
                    continue
            assert ev["seq"] == last + 1
            out.append(ev)
            last = ev["seq"]
        return out


def read_events_file(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


class DebugTestCase(unittest.TestCase):
    def setUp(self):
        self.events_file = None
        self.k = self.start()

    def start(self):
        import tempfile
        fd, self.events_file = tempfile.mkstemp(prefix="trellis-events-", suffix=".jsonl")
        os.close(fd)
        return Kernel(extra_args=("--events", self.events_file))

    def tearDown(self):
        if self.k.alive():
            self.k.stop()
        if self.events_file and os.path.exists(self.events_file):
            os.unlink(self.events_file)

    def run_ok(self, code, timeout=10):
        reply, out = self.k.execute(code, timeout=timeout)
        self.assertEqual(reply["content"]["status"], "ok", reply["content"])
        return out


class Discovery(DebugTestCase):
    def test_discovery_file_names_the_sockets_and_is_removed_at_shutdown(self):
        path = discovery_path(self.k.cf)
        self.assertTrue(os.path.basename(path).startswith("trellis-debug-"))
        self.assertEqual(os.stat(path).st_mode & 0o777, 0o600)
        with open(path) as f:
            disc = json.load(f)
        self.assertEqual(disc["version"], 1)
        self.assertEqual(disc["pid"], self.k.proc.pid)
        self.assertEqual(disc["connection_file"], os.path.realpath(self.k.cf))
        self.assertTrue(disc["events"].startswith("tcp://127.0.0.1:"))
        self.assertTrue(disc["requests"].startswith("tcp://127.0.0.1:"))
        self.assertNotEqual(disc["events"], disc["requests"])
        self.assertNotIn("key", disc)
        uuid.UUID(disc["session"])
        time.strptime(disc["started"], "%Y-%m-%dT%H:%M:%SZ")
        d = Debugger(self.k)
        self.assertEqual(d.request("ping")["status"], "ok")
        d.close()
        self.k.stop()
        self.assertFalse(os.path.exists(path))

    def test_discovery_file_is_removed_on_sigterm(self):
        import signal
        path = discovery_path(self.k.cf)
        self.assertTrue(os.path.exists(path))
        self.k.proc.send_signal(signal.SIGTERM)
        self.assertEqual(self.k.proc.wait(10), -signal.SIGTERM)
        self.k.ctx.destroy(0)
        self.k.stderr.close()
        self.assertFalse(os.path.exists(path))
        import shutil
        shutil.rmtree(self.k.tmp, ignore_errors=True)



class JupyterRuntime(unittest.TestCase):
    def test_kernel_started_by_jupyter_client_is_found_in_the_runtime_dir(self):
        """kernel-<id>.json in Jupyter's runtime directory -> trellis-debug-<id>.json beside it;
        a restart makes a new process and a new file; shutdown removes it."""
        import shutil, tempfile
        from jupyter_client.multikernelmanager import MultiKernelManager
        from tkclient import KernelSpecDir
        runtime = tempfile.mkdtemp(prefix="trellis-runtime-")
        old = os.environ.get("JUPYTER_RUNTIME_DIR")
        os.environ["JUPYTER_RUNTIME_DIR"] = runtime
        spec = KernelSpecDir("trellis-debug-test")
        try:
            # names files kernel-<id>.json in the runtime directory, as Jupyter's servers do
            mkm = MultiKernelManager(connection_dir=runtime)
            km = mkm.get_kernel(mkm.start_kernel(kernel_name=spec.name))
            try:
                cf = km.connection_file
                self.assertEqual(os.path.dirname(cf), runtime)
                self.assertTrue(os.path.basename(cf).startswith("kernel-"))
                path = os.path.join(runtime, "trellis-debug-" + os.path.basename(cf)[7:])
                deadline = time.time() + 10
                while not os.path.exists(path) and time.time() < deadline:
                    time.sleep(0.02)
                with open(path) as f:
                    first = json.load(f)
                self.assertEqual(first["connection_file"], os.path.realpath(cf))
                self.assertEqual(first["pid"], km.provisioner.pid)
                km.restart_kernel(now=False)
                deadline = time.time() + 10
                while time.time() < deadline:
                    try:
                        with open(path) as f:
                            second = json.load(f)
                        if second["pid"] != first["pid"]:
                            break
                    except (OSError, ValueError):
                        pass
                    time.sleep(0.02)
                self.assertNotEqual(second["pid"], first["pid"])
                self.assertNotEqual(second["session"], first["session"])
            finally:
                km.shutdown_kernel(now=False)
            self.assertEqual([n for n in os.listdir(runtime) if n.startswith("trellis-debug-")],
                             [])
            spec.check_logs()
        finally:
            spec.cleanup()
            shutil.rmtree(runtime, ignore_errors=True)
            if old is None:
                os.environ.pop("JUPYTER_RUNTIME_DIR", None)
            else:
                os.environ["JUPYTER_RUNTIME_DIR"] = old


class Stream(DebugTestCase):
    def test_late_attach_gets_snapshot_then_live_events_with_no_gap(self):
        self.run_ok(FUNCTION_CELL)
        self.run_ok(CALLS_CELL)
        d = Debugger(self.k)
        d.wait_subscribed(self.k)
        seq, snap_events, snap = d.attach()
        self.assertGreater(seq, 0)
        fns = {fn["name"]: fn for fn in snap["functions"]}
        self.assertIn("f", fns)
        self.run_ok("f(tf.constant([5, 6]))\nf(tf.constant([1, 2, 3]))\nf(5)\n")
        self.run_ok("tf.config.run_functions_eagerly(True)\nf(1)\n"
                    "tf.config.run_functions_eagerly(False)\n")
        live = d.follow(seq, d.live(0.5))
        d.close()
        self.k.stop()
        ref = read_events_file(self.events_file)
        self.assertEqual([e["seq"] for e in ref], list(range(1, len(ref) + 1)))
        self.assertEqual(snap_events, ref[:seq])
        self.assertEqual(live, ref[seq:])
        kinds = [e["kind"] for e in live]
        outcomes = [e.get("outcome") for e in live if e["kind"] == "call"]
        self.assertEqual(outcomes, ["hit", "miss", "miss", "eager"])
        causes = [c["text"] for e in live if e["kind"] == "retrace_cause" for c in e["causes"]]
        self.assertTrue(any("shape" in c for c in causes), causes)
        self.assertTrue(any("Python value 5" in c for c in causes), causes)
        self.assertEqual(kinds.count("eager_mode"), 2)
        added = [e for e in ref if e["kind"] == "concrete_function_added"]
        self.assertTrue(added and all(json.loads(e["graph"]) for e in added))

    def test_two_debuggers_both_get_everything(self):
        self.run_ok(FUNCTION_CELL)
        a, b = Debugger(self.k), Debugger(self.k)
        a.wait_subscribed(self.k)
        b.wait_subscribed(self.k)
        seq_a, _, _ = a.attach()
        seq_b, _, _ = b.attach()
        self.run_ok(CALLS_CELL)
        self.run_ok("for i in range(300):\n    f(i % 3)\n")
        live_a = a.follow(seq_a, a.live(0.5))
        live_b = b.follow(seq_b, b.live(0.5))
        a.close()
        b.close()
        self.k.stop()
        ref = read_events_file(self.events_file)
        self.assertEqual(live_a, ref[seq_a:])
        self.assertEqual(live_b, ref[seq_b:])
        self.assertGreater(len(live_a), 600)

    def test_events_since_fills_a_gap_and_old_events_are_kept(self):
        self.run_ok(FUNCTION_CELL)
        self.run_ok(CALLS_CELL)
        d = Debugger(self.k)
        ref_now = d.attach()[0]
        since = d.request("events_since", seq=3)
        self.assertEqual(since["status"], "ok")
        self.assertEqual([e["seq"] for e in since["events"]], list(range(4, ref_now + 1)))
        self.assertEqual(d.request("events_since", seq=ref_now)["events"], [])
        d.close()

    def test_no_subscriber_costs_no_message_but_snapshot_has_everything(self):
        d = Debugger(self.k, subscribe=False)
        self.run_ok(FUNCTION_CELL + CALLS_CELL)
        seq, events, snap = d.attach()
        self.assertEqual([e["seq"] for e in events], list(range(1, seq + 1)))
        self.assertFalse(d.sub.poll(200))
        d.close()


class Requests(DebugTestCase):
    def refused(self, d, body, signature, error):
        d.send(body, signature=signature)
        reply = d.reply()
        self.assertEqual(reply["status"], "error")
        self.assertEqual(reply["error"], error)
        return reply

    def test_bad_missing_and_replayed_signatures_are_refused(self):
        d = Debugger(self.k)
        body = dict(id="1", type="set_eager", enabled=True)
        self.refused(d, body, b"", "invalid signature")
        self.refused(d, body, b"0" * 64, "invalid signature")
        d.send(dict(id="2", type="ping"))
        self.assertEqual(d.reply()["status"], "ok")
        ping = dict(id="3", type="ping")
        raw_sig = d.sign(json.dumps(ping).encode())
        d.send(ping, signature=raw_sig)
        self.assertEqual(d.reply()["status"], "ok")
        self.refused(d, ping, raw_sig, "replayed message")
        stderr = self.k.stderr_text()
        self.assertIn("invalid signature", stderr)
        self.assertIn("replayed message", stderr)
        # the refused set_eager was never acted on
        snap = d.attach()[2]
        self.assertFalse(snap["eager"])
        d.close()
        self.run_ok("1+1")

    def test_malformed_and_unknown_requests_are_refused(self):
        d = Debugger(self.k)
        for raw in (b"not json", b"[1, 2]", json.dumps(dict(type="ping")).encode(),
                    json.dumps(dict(id=5, type="ping")).encode()):
            d.dealer.send_multipart([d.sign(raw), raw])
            reply = d.reply()
            self.assertEqual((reply["status"], reply["error"]), ("error", "malformed request"))
        d.dealer.send_multipart([d.sign(b"x")])
        self.assertEqual(d.reply()["error"], "malformed request")
        self.refused(d, dict(id="u", type="explode"), None, "unknown request type")
        self.refused(d, dict(id="s", type="events_since", seq="x"), None, "malformed request")
        d.close()
        self.run_ok("1+1")

    def test_events_since_too_old_is_truncated(self):
        # a kernel keeps 100000 events: make more, then ask for the first ones
        self.run_ok(FUNCTION_CELL)
        self.run_ok("for i in range(40000):\n    f(1)\n", timeout=120)  # slow under sanitizers
        d = Debugger(self.k)
        reply = d.request("events_since", seq=1)
        self.assertEqual((reply["status"], reply["error"]), ("error", "truncated"))
        d.close()


class Eager(DebugTestCase):
    def test_set_eager_over_the_socket_and_from_a_cell(self):
        self.run_ok(FUNCTION_CELL + "f(1)\n")
        d = Debugger(self.k)
        d.wait_subscribed(self.k)
        reply = d.request("set_eager", enabled=True)
        self.assertEqual((reply["status"], reply["enabled"]), ("ok", True))
        live = d.live(0.3)
        self.assertEqual([(e["kind"], e["enabled"]) for e in live], [("eager_mode", True)])
        self.run_ok("f(1)\n")
        self.run_ok("tf.config.run_functions_eagerly(False)\nf(1)\n")
        live = d.live(0.3)
        calls = [e["outcome"] for e in live if e["kind"] == "call"]
        self.assertEqual(calls, ["eager", "hit"])
        toggles = [e["enabled"] for e in live if e["kind"] == "eager_mode"]
        self.assertEqual(toggles, [False])
        d.close()

    def test_set_eager_during_a_running_cell_takes_effect(self):
        self.run_ok(FUNCTION_CELL)
        d = Debugger(self.k)
        code = ("import time\n"
                "outcomes = []\n"
                "t0 = time.time()\n"
                "while time.time() - t0 < 5 and not tf.config.functions_run_eagerly():\n"
                "    f(1)\n"
                "    time.sleep(0.01)\n"
                "f(1)\n"
                "print(tf.config.functions_run_eagerly())\n")
        d.wait_subscribed(self.k)
        msg_id = self.k.send(self.k.shell, "execute_request",
                             dict(code=code, silent=False, store_history=True,
                                  user_expressions={}, allow_stdin=False, stop_on_error=True))
        # Switch once the cell's loop is running on cache hits (tracing may take a while under
        # the sanitizers).
        d.live(20, until=lambda e: e.get("kind") == "call" and e.get("outcome") == "hit")
        t = time.time()
        self.assertEqual(d.request("set_eager", enabled=True)["status"], "ok")
        self.assertLess(time.time() - t, 1.0, "set_eager waited for the cell")
        reply = self.k.reply(self.k.shell, msg_id, timeout=20)
        self.assertEqual(reply["content"]["status"], "ok")
        out = self.k.iopub_until_idle(msg_id)
        text = "".join(m["content"]["text"] for m in out if m["msg_type"] == "stream")
        self.assertEqual(text, "True\n")
        d.close()
        self.k.stop()
        ref = read_events_file(self.events_file)
        calls = [e["outcome"] for e in ref if e["kind"] == "call"]
        self.assertEqual(calls[-1], "eager")
        self.assertIn("hit", calls)


if __name__ == "__main__":
    unittest.main(verbosity=2)
