"""Protocol tests of trellis-kernel over real sockets.

Each test names the behaviour it checks. The kernel runs as its own process (tkclient.Kernel)
and every test ends by shutting it down and checking it exited cleanly with nothing reported by
the sanitizers.
"""
import json, os, re, signal, subprocess, sys, tempfile, time, unittest

import zmq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tkclient import DELIM, SLOW, Kernel, _is_zombie, free_ports, kernel_binary  # noqa: E402


def plain(text):
    """Text without its ANSI colours (IPython colours tracebacks and the pager's headings)."""
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


class KernelTestCase(unittest.TestCase):
    def setUp(self):
        self.k = Kernel()

    def tearDown(self):
        self.k.stop(shutdown=self.k.alive())

    def assert_alive(self):
        """The kernel still answers and runs a cell."""
        reply, out = self.k.execute("1+2+3")
        self.assertEqual(reply["content"]["status"], "ok")
        results = [m for m in out if m["msg_type"] == "execute_result"]
        self.assertEqual(results[0]["content"]["data"]["text/plain"], "6")


class KernelInfo(KernelTestCase):
    def test_kernel_info_on_shell_and_control(self):
        for sock in (self.k.shell, self.k.control):
            msg_id = self.k.send(sock, "kernel_info_request")
            reply = self.k.reply(sock, msg_id)
            c = reply["content"]
            self.assertEqual(reply["msg_type"], "kernel_info_reply")
            self.assertEqual(c["status"], "ok")
            self.assertEqual(c["implementation"], "trellis")
            self.assertEqual(c["protocol_version"], "5.3")
            li = c["language_info"]
            self.assertEqual((li["name"], li["file_extension"], li["mimetype"], li["pygments_lexer"],
                              li["codemirror_mode"]),
                             ("python", ".py", "text/x-python", "ipython3",
                              {"name": "ipython", "version": 3}))
            self.assertEqual(li["version"], "%d.%d.%d" % sys.version_info[:3])
            states = [m["content"]["execution_state"] for m in self.k.iopub_until_idle(msg_id)]
            self.assertEqual(states, ["busy", "idle"])

    def test_connect_request_names_the_ports(self):
        msg_id = self.k.send(self.k.shell, "connect_request")
        c = self.k.reply(self.k.shell, msg_id)["content"]
        self.assertEqual(c["shell_port"], self.k.cfg["shell_port"])
        self.assertEqual(c["hb_port"], self.k.cfg["hb_port"])

    def test_heartbeat_echoes(self):
        hb = self.k.ctx.socket(zmq.REQ)
        hb.setsockopt(zmq.LINGER, 0)
        hb.connect("tcp://127.0.0.1:%d" % self.k.cfg["hb_port"])
        hb.send(b"ping")
        self.assertTrue(hb.poll(5000))
        self.assertEqual(hb.recv(), b"ping")
        hb.close()

    def test_heartbeat_takes_no_large_frame(self):
        # Pings are a few bytes and never signed: the heartbeat refuses frames over 64 KiB.
        big = self.k.ctx.socket(zmq.REQ)
        big.setsockopt(zmq.LINGER, 0)
        big.connect("tcp://127.0.0.1:%d" % self.k.cfg["hb_port"])
        big.send(b"x" * (1 << 20))
        self.assertFalse(big.poll(1000))
        big.close()
        self.test_heartbeat_echoes()


class Signatures(KernelTestCase):
    def test_unsigned_message_is_dropped_and_logged(self):
        self.k.send(self.k.shell, "execute_request", dict(code="print('x')"), signature=b"")
        self.assertTrue(self.k.no_message(self.k.shell))
        self.assertTrue(self.k.no_message(self.k.iopub, 0.1))
        self.assertIn("unsigned message", self.k.stderr_text())
        self.assert_alive()

    def test_wrong_signature_is_dropped_and_logged(self):
        self.k.send(self.k.shell, "execute_request", dict(code="print('x')"),
                    signature=b"0" * 64)
        self.k.send(self.k.control, "shutdown_request", dict(restart=False),
                    signature=b"deadbeef")
        self.assertTrue(self.k.no_message(self.k.shell))
        self.assertTrue(self.k.no_message(self.k.control, 0.1))
        self.assertIn("wrong signature", self.k.stderr_text())
        self.assert_alive()

    def test_replayed_message_is_dropped(self):
        _, frames = self.k.frames("execute_request", dict(code="x = 1"))
        self.k.shell.send_multipart(frames)
        self.k.recv(self.k.shell)
        self.k.shell.send_multipart(frames)  # the very same signed message again
        self.assertTrue(self.k.no_message(self.k.shell))
        # … also on another channel
        self.k.control.send_multipart(frames)
        self.assertTrue(self.k.no_message(self.k.control))
        self.assertIn("replayed message", self.k.stderr_text())
        self.assert_alive()


class Malformed(KernelTestCase):
    def signed(self, parts):
        return [DELIM, self.k.sign(parts)] + parts

    def test_bad_frames_are_dropped_and_the_kernel_keeps_running(self):
        hdr = json.dumps(dict(msg_id="a", msg_type="execute_request", session="s",
                              username="u", version="5.3", date="")).encode()
        bad = [
            [b"no delimiter at all"],
            [DELIM],
            [DELIM, b"sig", b"{}"],
            self.signed([b"{not json", b"{}", b"{}", b"{}"]),
            self.signed([b"[1, 2]", b"{}", b"{}", b"{}"]),
            self.signed([b"{}", b"{}", b"{}", b"{}"]),  # no msg_type
            self.signed([hdr, b"{}", b"{}", b"\xff\xfe"]),
            self.signed([hdr, b"null", b"{}", b"{}"]),
            self.signed([json.dumps(dict(msg_id=1, msg_type=2)).encode(), b"{}", b"{}", b"{}"]),
            [b"id"] * 100 + [DELIM] + self.signed([hdr, b"{}", b"{}", b"{}"])[1:],
            self.signed([hdr, b"{}", b"{}", b"{}"]) + [b"buffer"] * 300,
            self.signed([hdr, b"{}", b"{}", b"[" * 100000 + b"]" * 100000]),
        ]
        for frames in bad:
            self.k.shell.send_multipart(frames)
            self.k.control.send_multipart(frames)
        self.assertTrue(self.k.no_message(self.k.shell, 0.5))
        self.assertTrue(self.k.no_message(self.k.control, 0.1))
        log = self.k.stderr_text()
        for reason in ("no <IDS|MSG> delimiter", "frames after the delimiter", "is not JSON",
                       "is not a JSON object", "header without msg_type", "buffers"):
            self.assertIn(reason, log)
        self.assert_alive()

    def test_wrong_types_in_content_get_an_error_reply(self):
        for msg_type, content in [("execute_request", dict(code=5)),
                                  ("execute_request", dict(code="1", silent="yes")),
                                  ("execute_request", dict(code="1", user_expressions=[])),
                                  ("execute_request", {}),
                                  ("complete_request", dict(code=None)),
                                  ("complete_request", dict(code="x", cursor_pos="end")),
                                  ("inspect_request", dict(code=[1])),
                                  ("is_complete_request", dict(code={})),
                                  ("history_request", dict(hist_access_type=3)),
                                  ("history_request", dict(hist_access_type="tail", n="all"))]:
            msg_id = self.k.send(self.k.shell, msg_type, content)
            reply = self.k.reply(self.k.shell, msg_id)
            self.assertEqual(reply["content"]["status"], "error", (msg_type, content))
            self.assertEqual(reply["content"]["ename"], "BadRequest")
            states = [m["content"]["execution_state"] for m in self.k.iopub_until_idle(msg_id)]
            self.assertEqual(states, ["busy", "idle"])
        self.assert_alive()

    def test_unknown_message_type_gets_busy_idle_and_no_reply(self):
        msg_id = self.k.send(self.k.shell, "frobnicate_request", dict(x=1))
        states = [m["content"]["execution_state"] for m in self.k.iopub_until_idle(msg_id)]
        self.assertEqual(states, ["busy", "idle"])
        self.assertTrue(self.k.no_message(self.k.shell))
        # execute on control is misrouted: ignored too
        self.k.send(self.k.control, "execute_request", dict(code="print(1)"))
        self.assertTrue(self.k.no_message(self.k.control))
        self.assertIn("unknown message 'frobnicate_request'", self.k.stderr_text())
        self.assert_alive()

    def test_very_large_message_is_handled(self):
        code = "#" + "x" * (64 << 20) + "\n1+2+3"
        reply, out = self.k.execute(code, timeout=60)
        self.assertEqual(reply["content"]["status"], "ok")
        self.assert_alive()


def peak_rss_kib(pid):
    """The most memory the process ever held (VmHWM)."""
    with open("/proc/%d/status" % pid) as f:
        return int([l for l in f if l.startswith("VmHWM:")][0].split()[1])


class Limits(unittest.TestCase):
    def test_a_frame_over_the_limit_is_never_held(self):
        limit = 1 << 20
        k = Kernel(extra_args=("--max-message-size", str(limit)))
        try:
            k.execute("1")  # IPython is loaded: what the kernel holds now is its own
            before = peak_rss_kib(k.proc.pid)
            # A frame announcing 64 MiB, unsigned: ZeroMQ reads its size first and drops the
            # connection, so the kernel never allocates it. Then a signed one over the limit.
            k.shell.send_multipart([b"x" * (64 << 20)])
            msg_id = k.send(k.shell, "execute_request", dict(code="#" + "x" * (2 << 20)))
            self.assertTrue(k.no_message(k.shell, wait=1.0))
            self.assertLess(peak_rss_kib(k.proc.pid) - before, 16 << 10)
            # The client's socket connects again; a request under the limit is answered.
            deadline = time.time() + 10
            while True:
                msg_id = k.send(k.shell, "kernel_info_request")
                if not k.no_message(k.shell, wait=0.5) or time.time() > deadline:
                    break
            self.assertEqual(k.reply(k.shell, msg_id)["msg_type"], "kernel_info_reply")
            reply, _ = k.execute("1 + 1")
            self.assertEqual(reply["content"]["status"], "ok")
            # ZeroMQ says only that the connection closed: the log says so, and why it may have.
            self.assertIn("trellis-kernel: shell: a client's connection closed (by the client, or "
                          "by the kernel for a frame over the 1048576-byte limit", k.stderr_text())
        finally:
            k.stop(shutdown=k.alive())


class Execute(KernelTestCase):
    def test_busy_input_output_idle_in_order_with_parent_headers(self):
        msg_id = self.k.send(self.k.shell, "execute_request",
                             dict(code="print('hello, world')\n1+2+3", silent=False,
                                  store_history=True, user_expressions={}, allow_stdin=False))
        reply = self.k.reply(self.k.shell, msg_id)
        self.assertEqual(reply["parent_header"]["msg_id"], msg_id)
        self.assertEqual(reply["content"]["status"], "ok")
        out = self.k.iopub_until_idle(msg_id)
        kinds = [m["msg_type"] for m in out]
        self.assertEqual(kinds, ["status", "execute_input", "stream", "execute_result", "status"])
        self.assertEqual(out[0]["content"]["execution_state"], "busy")
        self.assertEqual(out[1]["content"]["code"], "print('hello, world')\n1+2+3")
        self.assertEqual(out[2]["content"], dict(name="stdout", text="hello, world\n"))
        self.assertEqual(out[3]["content"]["execution_count"], reply["content"]["execution_count"])
        for m in out:
            self.assertEqual(m["parent_header"]["msg_id"], msg_id)
            self.assertEqual(m["header"]["version"], "5.3")

    def test_every_stream_reaches_iopub_before_idle(self):
        code = "\n".join("print(%d)" % i for i in range(2000))
        reply, out = self.k.execute(code)
        text = "".join(m["content"]["text"] for m in out if m["msg_type"] == "stream")
        self.assertEqual(text, "".join("%d\n" % i for i in range(2000)))
        self.assertEqual(out[-1]["content"]["execution_state"], "idle")

    def test_stderr_display_and_clear_output(self):
        reply, out = self.k.execute(
            "import sys; print('oops', file=sys.stderr)\n"
            "class HTML:\n"
            "    def __init__(self, html): self.html = html\n"
            "    def __repr__(self): return '<HTML object>'\n"
            "    def _repr_html_(self): return self.html\n"
            "display(HTML('<b>x</b>'))\n"
            "clear_output(wait=True)")
        by_type = {m["msg_type"]: m["content"] for m in out}
        self.assertEqual(by_type["stream"], dict(name="stderr", text="oops\n"))
        self.assertEqual(by_type["display_data"]["data"],
                         {"text/html": "<b>x</b>", "text/plain": "<HTML object>"})
        self.assertEqual(by_type["clear_output"], dict(wait=True))

    def test_error_has_a_traceback_and_reply_says_error(self):
        reply, out = self.k.execute("raise ValueError('bad value')")
        c = reply["content"]
        self.assertEqual((c["status"], c["ename"], c["evalue"]), ("error", "ValueError", "bad value"))
        errors = [m["content"] for m in out if m["msg_type"] == "error"]
        self.assertEqual(len(errors), 1)
        self.assertEqual(errors[0]["ename"], "ValueError")
        self.assertIn("ValueError: bad value", [plain(line) for line in errors[0]["traceback"]])

    def test_execution_count_counts_stored_cells_only(self):
        r1, _ = self.k.execute("1")
        r2, out = self.k.execute("2", store_history=False)
        r3, _ = self.k.execute("3")
        self.assertEqual(r3["content"]["execution_count"], r1["content"]["execution_count"] + 1)

    def test_silent_cell_publishes_nothing_but_status(self):
        before, _ = self.k.execute("1")
        reply, out = self.k.execute("print('hidden')\n42", silent=True)
        self.assertEqual([m["msg_type"] for m in out], ["status", "status"])
        after, _ = self.k.execute("1")
        self.assertEqual(after["content"]["execution_count"],
                         before["content"]["execution_count"] + 1)

    def test_user_expressions(self):
        reply, _ = self.k.execute("a = 20", user_expressions=dict(x="a+22", y="nope", z=5))
        ue = reply["content"]["user_expressions"]
        self.assertEqual(ue["x"], dict(status="ok", data={"text/plain": "42"}, metadata={}))
        self.assertEqual((ue["y"]["status"], ue["y"]["ename"]), ("error", "NameError"))
        self.assertEqual(ue["z"]["status"], "error")

    def test_pager_payload_for_question_mark_and_help(self):
        for code in ("print?", "help(print)"):
            reply, _ = self.k.execute(code)
            payload = reply["content"]["payload"]
            self.assertEqual(len(payload), 1, code)
            self.assertEqual(payload[0]["source"], "page")
            self.assertIn("print(", plain(payload[0]["data"]["text/plain"]))

    def test_stop_on_error_aborts_queued_executes(self):
        first = self.k.send(self.k.shell, "execute_request",
                            dict(code="import time\ntime.sleep(0.3)\nraise ValueError('x')",
                                 stop_on_error=True))
        queued = [self.k.send(self.k.shell, "execute_request", dict(code="print('never')"))
                  for _ in range(3)]
        info = self.k.send(self.k.shell, "kernel_info_request")
        self.assertEqual(self.k.reply(self.k.shell, first)["content"]["status"], "error")
        for msg_id in queued:
            self.assertEqual(self.k.reply(self.k.shell, msg_id)["content"]["status"], "aborted")
            states = [m["content"]["execution_state"] for m in self.k.iopub_until_idle(msg_id)]
            self.assertEqual(states, ["busy", "idle"])
        self.assertEqual(self.k.reply(self.k.shell, info)["content"]["status"], "ok")
        self.assert_alive()

    def test_no_abort_without_stop_on_error(self):
        first = self.k.send(self.k.shell, "execute_request",
                            dict(code="import time\ntime.sleep(0.2)\nraise ValueError('x')",
                                 stop_on_error=False))
        second = self.k.send(self.k.shell, "execute_request", dict(code="1+1"))
        self.assertEqual(self.k.reply(self.k.shell, first)["content"]["status"], "error")
        self.assertEqual(self.k.reply(self.k.shell, second)["content"]["status"], "ok")


def cpu_seconds(pid):
    """User + system CPU time of process `pid` so far, from /proc."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Bursts(KernelTestCase):
    def test_back_to_back_executes_then_an_idle_kernel_sleeps(self):
        # Back to back, the shell loop polls briefly between requests; once they stop, the
        # kernel must go to sleep rather than keep polling.
        for i in range(200):
            reply, _ = self.k.execute("x = %d" % i)
            self.assertEqual(reply["content"]["status"], "ok")
        time.sleep(0.2)
        before = cpu_seconds(self.k.proc.pid)
        time.sleep(1.0)
        self.assertLess(cpu_seconds(self.k.proc.pid) - before, 0.1)
        reply, _ = self.k.execute("x")
        self.assertEqual(reply["content"]["status"], "ok")


class Interrupts(KernelTestCase):
    def run_interrupted(self, interrupt):
        msg_id = self.k.send(self.k.shell, "execute_request", dict(code="while True: pass"))
        time.sleep(0.3)
        self.assertTrue(self.k.no_message(self.k.shell, 0.1))
        interrupt()
        reply = self.k.reply(self.k.shell, msg_id, timeout=5)
        self.assertEqual(reply["content"]["status"], "error")
        self.assertEqual(reply["content"]["ename"], "KeyboardInterrupt")
        errors = [m for m in self.k.iopub_until_idle(msg_id) if m["msg_type"] == "error"]
        self.assertEqual(errors[0]["content"]["ename"], "KeyboardInterrupt")
        self.assert_alive()

    def interrupt_message(self):
        msg_id = self.k.send(self.k.control, "interrupt_request")
        self.assertEqual(self.k.reply(self.k.control, msg_id)["content"]["status"], "ok")

    def test_interrupt_request_stops_a_running_cell(self):
        self.run_interrupted(self.interrupt_message)
        self.run_interrupted(self.interrupt_message)

    def test_sigint_stops_a_running_cell(self):
        self.run_interrupted(lambda: os.kill(self.k.proc.pid, signal.SIGINT))
        self.run_interrupted(lambda: os.kill(self.k.proc.pid, signal.SIGINT))

    def interrupt_latency(self, code):
        """Seconds from an interrupt_request sent while `code` runs to its KeyboardInterrupt
        reply; the kernel answers the next cell after."""
        msg_id = self.k.send(self.k.shell, "execute_request", dict(code=code))
        self.assertTrue(self.k.no_message(self.k.shell, 1.0))
        t0 = time.monotonic()
        self.interrupt_message()
        reply = self.k.reply(self.k.shell, msg_id, timeout=60)
        took = time.monotonic() - t0
        self.assertEqual(reply["content"]["ename"], "KeyboardInterrupt")
        self.k.iopub_until_idle(msg_id)
        return took

    def test_interrupt_stops_graph_loops_and_long_kernels_within_a_second(self):
        reply, _ = self.k.execute(
            "import tensorflow as tf\n"
            "@tf.function\n"
            "def spin(n):\n"
            "    i = tf.constant(0)\n"
            "    while i < n:\n"
            "        i = i + 1\n"
            "    return i\n"
            "@tf.function\n"
            "def powers(a, n):\n"
            "    for _ in tf.range(n):\n"
            "        a = tf.matmul(a, a) * 1e-4\n"
            "    return a\n"
            "a = tf.ones([8000, 8000])\n"
            "kept = spin(tf.constant(5))")
        self.assertEqual(reply["content"]["status"], "ok")
        cases = {
            "graph while_loop": "spin(tf.constant(2**31 - 1))",
            # one GEMM of 5e11 multiply-adds: seconds of work, cut into tiles
            "8000x8000 matmul": "tf.matmul(a, a)",
            "graph loop of matmuls": "powers(a, 10**6)",
        }
        for name, code in cases.items():
            took = self.interrupt_latency(code)
            print("interrupt latency, %s: %.3f s" % (name, took))
            self.assertLess(took, 1.0 * SLOW, name)  # instrumented code: SLOW times more
        reply, out = self.k.execute("print(kept.numpy(), spin(tf.constant(3)).numpy())")
        self.assertEqual([m["content"]["text"] for m in out if m["msg_type"] == "stream"],
                         ["5 3\n"])

    def test_interrupt_between_cells_does_not_poison_the_next(self):
        self.interrupt_message()
        os.kill(self.k.proc.pid, signal.SIGINT)
        time.sleep(0.1)
        reply, _ = self.k.execute("import time\ntime.sleep(0.2)\n1+1")
        self.assertEqual(reply["content"]["status"], "ok")

    def test_control_answers_while_a_cell_runs(self):
        msg_id = self.k.send(self.k.shell, "execute_request", dict(code="while True: pass"))
        time.sleep(0.1)
        t0 = time.time()
        info = self.k.send(self.k.control, "kernel_info_request")
        self.assertEqual(self.k.reply(self.k.control, info)["content"]["status"], "ok")
        self.assertLess(time.time() - t0, 1.0)
        self.interrupt_message()
        self.assertEqual(self.k.reply(self.k.shell, msg_id)["content"]["ename"], "KeyboardInterrupt")


class Stdin(KernelTestCase):
    def test_input_round_trip(self):
        msg_id = self.k.send(self.k.shell, "execute_request",
                             dict(code="name = input('who? ')\nprint('hi ' + name)",
                                  allow_stdin=True))
        req = self.k.recv(self.k.stdin)
        self.assertEqual(req["msg_type"], "input_request")
        self.assertEqual(req["content"], dict(prompt="who? ", password=False))
        self.assertEqual(req["parent_header"]["msg_id"], msg_id)
        self.k.send(self.k.stdin, "input_reply", dict(value="bob"))
        self.assertEqual(self.k.reply(self.k.shell, msg_id)["content"]["status"], "ok")
        streams = [m["content"]["text"] for m in self.k.iopub_until_idle(msg_id)
                   if m["msg_type"] == "stream"]
        self.assertEqual(streams, ["hi bob\n"])

    def test_input_without_allow_stdin_raises(self):
        # A frontend without stdin: IPython's StdinNotImplementedError, as ipykernel raises.
        reply, _ = self.k.execute("input('x')", allow_stdin=False)
        self.assertEqual((reply["content"]["ename"], reply["content"]["evalue"]),
                         ("StdinNotImplementedError", "raw_input was called, but this frontend "
                          "does not support input requests."))
        reply, _ = self.k.execute("import getpass\ngetpass.getpass()", allow_stdin=False)
        self.assertEqual(reply["content"]["evalue"], "getpass was called, but this frontend does "
                         "not support input requests.")
        reply, out = self.k.execute("from IPython.core.error import StdinNotImplementedError\n"
                                    "try:\n    input()\nexcept StdinNotImplementedError:\n"
                                    "    print('no stdin')", allow_stdin=False)
        self.assertEqual([m["content"]["text"] for m in out if m["msg_type"] == "stream"],
                         ["no stdin\n"])

    def test_interrupt_while_waiting_for_input(self):
        for interrupt in (lambda: self.k.send(self.k.control, "interrupt_request"),
                          lambda: os.kill(self.k.proc.pid, signal.SIGINT)):
            msg_id = self.k.send(self.k.shell, "execute_request",
                                 dict(code="input('x')", allow_stdin=True))
            self.assertEqual(self.k.recv(self.k.stdin)["msg_type"], "input_request")
            interrupt()
            reply = self.k.reply(self.k.shell, msg_id, timeout=5)
            self.assertEqual(reply["content"]["ename"], "KeyboardInterrupt")
            self.k.iopub_until_idle(msg_id)
        self.assert_alive()

    def test_unsigned_input_reply_is_not_taken(self):
        msg_id = self.k.send(self.k.shell, "execute_request",
                             dict(code="print(input('x'))", allow_stdin=True))
        self.k.recv(self.k.stdin)
        self.k.send(self.k.stdin, "input_reply", dict(value="forged"), signature=b"bad")
        self.k.send(self.k.stdin, "input_reply", dict(value="real"))
        self.k.reply(self.k.shell, msg_id)
        streams = [m["content"]["text"] for m in self.k.iopub_until_idle(msg_id)
                   if m["msg_type"] == "stream"]
        self.assertEqual(streams, ["real\n"])


class Introspection(KernelTestCase):
    def request(self, msg_type, **content):
        msg_id = self.k.send(self.k.shell, msg_type, content)
        return self.k.reply(self.k.shell, msg_id)["content"]

    def test_complete_names_modules_and_keywords(self):
        self.k.execute("import sys\nzeta = 1")
        self.assertEqual(self.request("complete_request", code="zi", cursor_pos=2)["matches"],
                         ["zip"])
        self.assertIn("zeta", self.request("complete_request", code="ze", cursor_pos=2)["matches"])
        self.assertIn("while", self.request("complete_request", code="whi", cursor_pos=3)["matches"])
        c = self.request("complete_request", code="x = sys.std", cursor_pos=11)
        self.assertEqual(c["matches"], ["stderr", "stdin", "stdlib_module_names", "stdout"])
        self.assertEqual((c["cursor_start"], c["cursor_end"]), (8, 11))

    def test_complete_cursor_counts_code_points(self):
        code = "é = 'ü'; zi"
        c = self.request("complete_request", code=code, cursor_pos=len(code))
        self.assertEqual(c["matches"], ["zip"])
        self.assertEqual((c["cursor_start"], c["cursor_end"]), (len(code) - 2, len(code)))

    def test_inspect(self):
        c = self.request("inspect_request", code="print", cursor_pos=5, detail_level=0)
        self.assertTrue(c["found"])
        self.assertIn("Signature: print(", plain(c["data"]["text/plain"]))
        c = self.request("inspect_request", code="nothing_here", cursor_pos=3)
        self.assertEqual((c["status"], c["found"], c["data"]), ("ok", False, {}))

    def test_is_complete(self):
        cases = {"1+2": "complete", "print('''hello": "incomplete", "while True:": "incomplete",
                 "def f(x):\n  x*2": "incomplete", "def f(x):\n  return x*2\n\n\n": "complete",
                 "import = 7q": "invalid", "(1 + ]": "invalid"}
        for code, status in cases.items():
            c = self.request("is_complete_request", code=code)
            self.assertEqual(c["status"], status, code)
        self.assertEqual(self.request("is_complete_request", code="while True:")["indent"], "    ")


class Language(KernelTestCase):
    """What the kernel adds around Python: tracebacks naming the cell, results,
    `obj?` / help(), inspection and completion from the session's live objects."""

    def request(self, msg_type, **content):
        msg_id = self.k.send(self.k.shell, msg_type, content)
        return self.k.reply(self.k.shell, msg_id)["content"]

    def page(self, code):
        reply, out = self.k.execute(code)
        self.assertEqual(reply["content"]["status"], "ok", reply["content"])
        payload = reply["content"]["payload"]
        self.assertEqual(len(payload), 1, code)
        return plain(payload[0]["data"]["text/plain"])

    def test_traceback_names_cell_line_and_function(self):
        reply, out = self.k.execute("def double(x):\n    return x * missing\n\ndouble(2)")
        c = reply["content"]
        self.assertEqual((c["ename"], c["evalue"]), ("NameError", "name 'missing' is not defined"))
        tb = [m["content"] for m in out if m["msg_type"] == "error"][0]["traceback"]
        self.assertEqual(tb, c["traceback"])
        n = c["execution_count"]
        # IPython's form: each frame with its cell, line and the lines around it.
        text = plain("\n".join(tb))
        for part in ("NameError                                 Traceback (most recent call last)",
                     "Cell In [%d], line 4\n      1 def double(x):\n      2     return x * missing"
                     "\n----> 4 double(2)" % n,
                     "Cell In [%d], line 2, in double(x)\n      1 def double(x):\n"
                     "----> 2     return x * missing" % n):
            self.assertIn(part, text)
        self.assertEqual(plain(tb[-1]), "NameError: name 'missing' is not defined")
        self.assertIn("\x1b[", "".join(tb))  # coloured

    def test_syntax_error_form(self):
        reply, out = self.k.execute("x = = 1")
        c = reply["content"]
        self.assertEqual(c["ename"], "SyntaxError")
        tb = [m["content"] for m in out if m["msg_type"] == "error"][0]["traceback"]
        self.assertEqual(plain("\n".join(tb)).strip("\n").split("\n"),
                         ["  Cell In [%d], line 1" % c["execution_count"], "    x = = 1",
                          "        ^", "SyntaxError: invalid syntax"])

    def test_state_survives_errors_and_none_has_no_result(self):
        self.k.execute("kept = [1, 2]")
        self.k.execute("kept.append(3)\nraise ValueError('x')")
        reply, out = self.k.execute("kept")
        results = [m["content"]["data"] for m in out if m["msg_type"] == "execute_result"]
        self.assertEqual(results, [{"text/plain": "[1, 2, 3]"}])
        reply, out = self.k.execute("kept = None\nkept")
        self.assertEqual([m["msg_type"] for m in out],
                         ["status", "execute_input", "status"])

    def test_tuple_and_empty_tuple_results(self):
        reply, out = self.k.execute("7 // 2, 2 ** 10")
        results = [m["content"]["data"] for m in out if m["msg_type"] == "execute_result"]
        self.assertEqual(results, [{"text/plain": "(3, 1024)"}])
        reply, out = self.k.execute("()")
        results = [m["content"]["data"] for m in out if m["msg_type"] == "execute_result"]
        self.assertEqual(results, [{"text/plain": "()"}])

    def test_rich_repr_of_results(self):
        reply, out = self.k.execute("class Svg:\n    def _repr_svg_(self):\n"
                                    "        return '<svg/>'\n    def __repr__(self):\n"
                                    "        return 'Svg()'\nSvg()")
        results = [m["content"]["data"] for m in out if m["msg_type"] == "execute_result"]
        self.assertEqual(results, [{"text/plain": "Svg()", "image/svg+xml": "<svg/>"}])

    def test_question_mark_help_and_source(self):
        self.k.execute("def add(a, b=2):\n    \"Add a and b.\"\n    return a + b")
        text = self.page("add?")
        self.assertIn("Signature: add(a, b=2)", text)
        self.assertIn("Docstring: Add a and b.", text)
        self.assertNotIn("return a + b", text)
        self.assertIn("    return a + b", self.page("add??"))
        self.assertIn("Signature: add(a, b=2)", self.page("help(add)"))
        self.assertIn("Signature: len(obj, /)", self.page("?len"))
        # Earlier lines of a cell run first; the last line is the one shown.
        text = self.page("value = [1, 2, 3]\nvalue?")
        self.assertIn("Type:        list", text)
        self.assertIn("String form: [1, 2, 3]", text)
        reply, out = self.k.execute("no_such_name?")
        streams = [m["content"]["text"] for m in out if m["msg_type"] == "stream"]
        self.assertEqual(streams, ["Object `no_such_name` not found.\n"])

    def test_inspect_live_objects(self):
        self.k.execute("class Model:\n    'A model.'\n    def __init__(self, units):\n"
                       "        self.units = units\n    def call(self, x, training=False):\n"
                       "        'Run it.'\n        return x\nm = Model(3)\nitems = []")
        def inspect(code, cursor=None):
            c = self.request("inspect_request", code=code,
                             cursor_pos=len(code) if cursor is None else cursor, detail_level=0)
            self.assertTrue(c["found"], code)
            return plain(c["data"]["text/plain"])
        self.assertIn("Init signature: Model(units)", inspect("Model"))
        self.assertIn("Signature: m.call(x, training=False)", inspect("m.call"))
        self.assertIn("Signature: items.append(object, /)", inspect("items.append"))
        # Inside a call's parentheses the callable is inspected.
        self.assertIn("Signature: m.call(x, training=False)", inspect("m.call(1, tr"))

    def test_complete_attributes_modules_and_imports(self):
        self.k.execute("class Model:\n    def __init__(self):\n        self.units = 3\n"
                       "        self._hidden = 1\n    def summary(self):\n        pass\n"
                       "m = Model()\nimport math")
        def complete(code):
            c = self.request("complete_request", code=code, cursor_pos=len(code))
            self.assertEqual(c["cursor_end"], len(code))
            return c["matches"]
        self.assertEqual(complete("m.u"), ["units"])
        self.assertEqual(complete("m.s"), ["summary"])
        self.assertIn("_hidden", complete("m._"))
        self.assertIn("__init__", complete("m._"))
        self.assertNotIn("_hidden", complete("m."))
        self.assertEqual(complete("math.sq"), ["sqrt"])
        self.assertEqual(complete("from math import fl"), ["floor"])
        self.assertIn("math", complete("import ma"))
        self.assertEqual(complete("x = Mode"), ["Model"])

    def test_user_expressions_do_not_print(self):
        reply, out = self.k.execute("n = 2", user_expressions=dict(
            a="print('side effect') or n * 21", b="n = 3"))
        ue = reply["content"]["user_expressions"]
        self.assertEqual(ue["a"]["data"], {"text/plain": "42"})
        self.assertEqual((ue["b"]["status"], ue["b"]["ename"]), ("error", "SyntaxError"))
        self.assertEqual([m for m in out if m["msg_type"] == "stream"], [])


class Comms(KernelTestCase):
    def test_comm_info_lists_no_comms(self):
        msg_id = self.k.send(self.k.shell, "comm_info_request", dict(target_name="x"))
        self.assertEqual(self.k.reply(self.k.shell, msg_id)["content"],
                         dict(status="ok", comms={}))

    def test_comm_open_to_an_unknown_target_is_closed(self):
        msg_id = self.k.send(self.k.shell, "comm_open",
                             dict(comm_id="c1", target_name="jupyter.widget", data={}))
        out = self.k.iopub_until_idle(msg_id)
        closes = [m["content"] for m in out if m["msg_type"] == "comm_close"]
        self.assertEqual(closes, [dict(comm_id="c1", data={})])
        msg_id = self.k.send(self.k.shell, "comm_msg", dict(comm_id="c1", data={}))
        self.assertEqual(len(self.k.iopub_until_idle(msg_id)), 2)
        self.assertTrue(self.k.no_message(self.k.shell))


class Lifecycle(unittest.TestCase):
    def test_shutdown_on_control_replies_and_exits(self):
        for restart in (False, True):
            k = Kernel()
            msg_id = k.send(k.control, "shutdown_request", dict(restart=restart))
            reply = k.reply(k.control, msg_id)
            self.assertEqual(reply["content"], dict(status="ok", restart=restart))
            broadcast = [m for m in k.iopub_until_idle(msg_id) if m["msg_type"] == "shutdown_reply"]
            self.assertEqual(broadcast[0]["content"]["restart"], restart)
            k.stop(shutdown=False)

    def test_shutdown_on_shell_while_idle(self):
        k = Kernel()
        msg_id = k.send(k.shell, "shutdown_request", dict(restart=False))
        self.assertEqual(k.reply(k.shell, msg_id)["content"]["status"], "ok")
        k.stop(shutdown=False)

    def test_shutdown_while_a_cell_runs(self):
        k = Kernel()
        run = k.send(k.shell, "execute_request", dict(code="while True: pass"))
        time.sleep(0.2)
        msg_id = k.send(k.control, "shutdown_request", dict(restart=False))
        self.assertEqual(k.reply(k.control, msg_id)["content"]["status"], "ok")
        self.assertEqual(k.reply(k.shell, run)["content"]["status"], "error")
        k.stop(shutdown=False)

    def test_history_across_restarts(self):
        hist = os.path.join(tempfile.mkdtemp(), "sub", "history.jsonl")
        first = Kernel(history_file=hist)
        first.execute("1+2+3")
        first.execute("a = 5")
        first.execute("1+2+4")
        first.stop()
        second = Kernel(history_file=hist)
        second.execute("2+2")

        def history(**content):
            content.setdefault("output", False)
            content.setdefault("raw", True)
            msg_id = second.send(second.shell, "history_request", content)
            return second.reply(second.shell, msg_id)["content"]["history"]

        tail = history(hist_access_type="tail", n=4)
        self.assertEqual([h[2] for h in tail], ["1+2+3", "a = 5", "1+2+4", "2+2"])
        old_session, new_session = tail[0][0], tail[-1][0]
        self.assertEqual(new_session, old_session + 1)
        self.assertEqual(history(hist_access_type="tail", n=1, output=True)[0][2], ["2+2", "4"])
        self.assertEqual(history(hist_access_type="range", session=old_session, start=2, stop=3),
                         [[old_session, 2, "a = 5"]])
        self.assertEqual(len(history(hist_access_type="range", session=-1, start=1)), 3)
        self.assertEqual([h[2] for h in history(hist_access_type="range", session=0, start=1)],
                         ["2+2"])
        self.assertEqual([h[2] for h in history(hist_access_type="search", pattern="1+2*")],
                         ["1+2+3", "1+2+4"])
        self.assertEqual([h[2] for h in history(hist_access_type="search", pattern="1+2*", n=1)],
                         ["1+2+4"])
        second.execute("1+2+4")
        self.assertEqual(len(history(hist_access_type="search", pattern="1+2+4", unique=True)), 1)
        second.stop()

    def test_a_record_torn_by_a_killed_kernel_stays_apart(self):
        hist = os.path.join(tempfile.mkdtemp(), "history.jsonl")
        first = Kernel(history_file=hist)
        first.execute("kept = 1")
        first.stop()
        # A kernel killed in the middle of its append leaves half a record.
        with open(hist, "a") as f:
            f.write('{"session":1,"line":2,"source":"torn by kill -')
        second = Kernel(history_file=hist)
        second.execute("after = 2")
        second.stop()
        with open(hist) as f:
            lines = f.read().split("\n")
        self.assertIn('{"session":1,"line":2,"source":"torn by kill -', lines)
        third = Kernel(history_file=hist)
        msg_id = third.send(third.shell, "history_request", dict(
            hist_access_type="tail", n=10, output=False, raw=True))
        history = third.reply(third.shell, msg_id)["content"]["history"]
        self.assertEqual([h[2] for h in history], ["kept = 1", "after = 2"])
        self.assertEqual(history[1][0], history[0][0] + 1)
        third.stop()

    def test_two_kernels_writing_at_once_keep_separate_sessions(self):
        hist = os.path.join(tempfile.mkdtemp(), "history.jsonl")
        kernels = [Kernel(history_file=hist), Kernel(history_file=hist)]
        try:
            # Both kernels run cells at the same time, each flushing its history as it goes.
            pending = [[k.send(k.shell, "execute_request", dict(code="x_%d = %d" % (i, n)))
                        for n in range(150)] for i, k in enumerate(kernels)]
            for k, ids in zip(kernels, pending):
                for msg_id in ids:
                    self.assertEqual(k.reply(k.shell, msg_id)["content"]["status"], "ok")
        finally:
            for k in kernels:
                k.stop()
        sessions = {}
        with open(hist) as f:
            for line in f:
                rec = json.loads(line)  # no record is torn or glued to another
                if rec["line"] > 0:
                    sessions.setdefault(rec["session"], []).append((rec["line"], rec["source"]))
        self.assertEqual(len(sessions), 2)
        for records in sessions.values():
            self.assertEqual([n for n, _ in records], list(range(1, 151)))
            prefix = records[0][1].split("=")[0]
            self.assertTrue(all(src.startswith(prefix) for _, src in records))

    def test_history_survives_kill_9_at_any_moment(self):
        hist = os.path.join(tempfile.mkdtemp(), "history.jsonl")
        big = "#" + "x" * 200000  # a large record: a kill may land inside its write
        for round_ in range(4):
            k = Kernel(history_file=hist)
            ids = [k.send(k.shell, "execute_request", dict(code="r%d = %d %s" % (round_, n, big)))
                   for n in range(30)]
            # Once a few cells ran (their records are being appended), at a different moment
            # in each round.
            k.reply(k.shell, ids[2 + 3 * round_], timeout=30)
            time.sleep(0.003 * round_)
            os.kill(k.proc.pid, signal.SIGKILL)
            k.proc.wait()
            k.ctx.destroy(0)
            k.stderr.close()
        last = Kernel(history_file=hist)
        try:
            last.execute("after = 1")
            msg_id = last.send(last.shell, "history_request", dict(
                hist_access_type="tail", n=1000, output=False, raw=True))
            history = last.reply(last.shell, msg_id)["content"]["history"]
        finally:
            last.stop()
        # Every record read back is whole: a torn one is skipped, never glued to the next.
        for session, line, source in history:
            self.assertTrue(source == "after = 1" or source.endswith(big), source[:80])
        self.assertEqual(history[-1][2], "after = 1")
        self.assertGreater(len(history), 1, "no killed kernel wrote a record: the test is void")
        with open(hist) as f:
            torn = sum(1 for line in f if not line.endswith("}\n"))
        print("history after four kill -9: %d whole records, %d torn" % (len(history) - 1, torn))

    def test_an_orphaned_kernel_exits_and_removes_its_discovery_file(self):
        # The client (here a Python process) starts the kernel with JPY_PARENT_PID, as
        # jupyter_client does, and dies without a word.
        tmp = tempfile.mkdtemp(prefix="trellis-orphan-")
        p = free_ports(5)
        cf = os.path.join(tmp, "orphan.json")
        with open(cf, "w") as f:
            json.dump(dict(shell_port=p[0], iopub_port=p[1], stdin_port=p[2], control_port=p[3],
                           hb_port=p[4], ip="127.0.0.1", key="k", transport="tcp",
                           signature_scheme="hmac-sha256"), f)
        discovery = os.path.join(tmp, "trellis-debug-orphan.json")
        log = open(os.path.join(tmp, "stderr.txt"), "w")
        launcher = ("import os, subprocess, sys, time\n"
                    "k = subprocess.Popen([sys.argv[1], '-f', sys.argv[2]], stderr=sys.stderr,"
                    " env=dict(os.environ, JPY_PARENT_PID=str(os.getpid())))\n"
                    "print(k.pid, flush=True)\ntime.sleep(600)\n")
        client = subprocess.Popen([sys.executable, "-c", launcher, kernel_binary(), cf],
                                  stdout=subprocess.PIPE, stderr=log, text=True)
        pid = int(client.stdout.readline())
        try:
            deadline = time.time() + 30 * SLOW
            while not os.path.exists(discovery) and time.time() < deadline:
                time.sleep(0.02)
            self.assertTrue(os.path.exists(discovery), "the kernel did not start")
            client.kill()
            client.wait()
            died = time.time()
            while not _is_zombie(pid) and time.time() - died < 10 * SLOW:
                time.sleep(0.01)
            self.assertTrue(_is_zombie(pid), "the orphaned kernel still runs")
            print("orphan exited %.2f s after its client" % (time.time() - died), file=sys.stderr)
            self.assertFalse(os.path.exists(discovery))
        finally:
            if not _is_zombie(pid):
                os.kill(pid, signal.SIGKILL)
            log.close()
        with open(os.path.join(tmp, "stderr.txt")) as f:
            self.assertIn("the process that started it is gone", f.read())

    def test_discovery_files_of_dead_kernels_are_removed_at_start(self):
        tmp = tempfile.mkdtemp(prefix="trellis-stale-")
        dead = subprocess.Popen(["true"])
        dead.wait()
        for name, pid in (("dead", dead.pid), ("alive", os.getpid())):
            with open(os.path.join(tmp, "trellis-debug-%s.json" % name), "w") as f:
                json.dump(dict(version=1, pid=pid), f)
        p = free_ports(5)
        cf = os.path.join(tmp, "fresh.json")
        with open(cf, "w") as f:
            json.dump(dict(shell_port=p[0], iopub_port=p[1], stdin_port=p[2], control_port=p[3],
                           hb_port=p[4], ip="127.0.0.1", key="k", transport="tcp",
                           signature_scheme="hmac-sha256"), f)
        kernel = subprocess.Popen([kernel_binary(), "-f", cf], stderr=subprocess.PIPE, text=True)
        own = os.path.join(tmp, "trellis-debug-fresh.json")
        deadline = time.time() + 30 * SLOW
        while not os.path.exists(own) and time.time() < deadline:
            time.sleep(0.02)
        self.assertTrue(os.path.exists(own))
        self.assertFalse(os.path.exists(os.path.join(tmp, "trellis-debug-dead.json")))
        self.assertTrue(os.path.exists(os.path.join(tmp, "trellis-debug-alive.json")))
        kernel.terminate()
        _, err = kernel.communicate(timeout=30 * SLOW)
        self.assertIn("trellis-debug-dead.json: its kernel (pid %d) is gone" % dead.pid, err)
        self.assertFalse(os.path.exists(own))

    def test_ports_0_are_chosen_and_written_back(self):
        old = os.umask(0o022)  # a file of the client's readable by all: the kernel's is not
        try:
            k = Kernel(ports=[0, 0, 0, 0, 0])
        finally:
            os.umask(old)
        self.assertTrue(all(k.cfg[p] > 0 for p in ("shell_port", "iopub_port", "hb_port")))
        # The key is in the file: rewritten, it is the owner's alone.
        self.assertEqual(os.stat(k.cf).st_mode & 0o777, 0o600)
        reply, _ = k.execute("1")
        self.assertEqual(reply["content"]["status"], "ok")
        k.stop()


if __name__ == "__main__":
    unittest.main(verbosity=2)
