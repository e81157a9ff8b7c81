"""Jupyter's debug protocol (debug_request / debug_reply on control, debug_event on iopub) of
trellis-kernel, over real sockets, with debugpy behind it as in ipykernel.

Each test names the behaviour it checks, starts its own kernel (tkclient.Kernel) and ends by
shutting it down and checking that it exited cleanly, with nothing reported by the sanitizers.
Cells are stopped at breakpoints set by their dumped paths (dumpCell), as JupyterLab and VS Code
set them.
"""
import json, os, sys, time, unittest

import zmq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tkclient import SLOW, Kernel  # noqa: E402

# debugpy's requests are answered in milliseconds; the first initialize starts its adapter (a
# Python process) and the kernel's sanitizer build runs pydevd several times slower.
TIMEOUT = 30

CELL = """def f(a, b):
    c = a + b
    return c

def h(x):
    return x * 10

r = f(2, 3)
s = h(r)
"""


def murmur2(data, seed):
    """32-bit MurmurHash2, as JupyterLab hashes a cell's code into its file name."""
    m, mask = 0x5BD1E995, 0xFFFFFFFF
    h = (seed ^ len(data)) & mask
    i = 0
    while len(data) - i >= 4:
        k = int.from_bytes(data[i:i + 4], "little")
        k = (k * m) & mask
        k ^= k >> 24
        k = (k * m) & mask
        h = ((h * m) & mask) ^ k
        i += 4
    rest = data[i:]
    if len(rest) >= 3:
        h ^= rest[2] << 16
    if len(rest) >= 2:
        h ^= rest[1] << 8
    if rest:
        h ^= rest[0]
        h = (h * m) & mask
    h ^= h >> 13
    h = (h * m) & mask
    h ^= h >> 15
    return h


class Client:
    """A second client of a running kernel: its own control DEALER and iopub SUB."""

    def __init__(self, kernel):
        self.k = kernel
        self.ctx = zmq.Context()
        self.control = self.ctx.socket(zmq.DEALER)
        self.control.setsockopt(zmq.LINGER, 0)
        self.control.setsockopt(zmq.IDENTITY, b"other-client")
        self.control.connect("tcp://127.0.0.1:%d" % kernel.cfg["control_port"])
        self.iopub = self.ctx.socket(zmq.SUB)
        self.iopub.setsockopt(zmq.LINGER, 0)
        self.iopub.setsockopt(zmq.SUBSCRIBE, b"")
        self.iopub.connect("tcp://127.0.0.1:%d" % kernel.cfg["iopub_port"])

    def vanish(self):
        """Close the sockets without a word, as a browser tab that was closed."""
        self.ctx.destroy(0)


class DapTestCase(unittest.TestCase):
    def setUp(self):
        self.k = Kernel()
        self.seq = 0

    def tearDown(self):
        self.k.stop(shutdown=self.k.alive())

    def request(self, command, arguments=None, control=None, content=None):
        """A debug_request's reply content (a DAP response)."""
        self.seq += 1
        if content is None:
            content = dict(type="request", seq=self.seq, command=command,
                           arguments=arguments or {})
        sock = control or self.k.control
        msg_id = self.k.send(sock, "debug_request", content)
        reply = self.k.reply(sock, msg_id, TIMEOUT)
        self.assertEqual(reply["msg_type"], "debug_reply")
        return reply["content"]

    def ok(self, command, arguments=None, **kw):
        r = self.request(command, arguments, **kw)
        self.assertTrue(r["success"], "%s failed: %s" % (command, r))
        self.assertEqual(r["command"], command)
        self.assertEqual(r["type"], "response")
        return r

    def refused(self, command, arguments=None, **kw):
        r = self.request(command, arguments, **kw)
        self.assertFalse(r["success"], "%s should have failed: %s" % (command, r))
        self.assertTrue(r.get("message"), r)
        return r

    def start(self, control=None):
        r = self.ok("initialize", dict(clientID="test", clientName="test", adapterID="",
                                       pathFormat="path", linesStartAt1=True,
                                       columnsStartAt1=True, supportsVariableType=True,
                                       supportsVariablePaging=True, locale="en"),
                    control=control)
        self.assertTrue(r["body"]["supportsConfigurationDoneRequest"])
        self.ok("attach", control=control)

    def event(self, name, iopub=None, timeout=TIMEOUT):
        """The next debug_event `name` on iopub (others skipped)."""
        sock = iopub or self.k.iopub
        deadline = time.time() + timeout * SLOW
        while True:
            m = self.k.recv(sock, max(0.01, deadline - time.time()))
            if m["msg_type"] == "debug_event" and m["content"].get("event") == name:
                return m["content"]

    def break_in(self, code, line, control=None):
        """Dumps `code`, sets a breakpoint at `line` in it; returns its path."""
        path = self.ok("dumpCell", dict(code=code), control=control)["body"]["sourcePath"]
        r = self.ok("setBreakpoints", dict(source=dict(path=path), breakpoints=[dict(line=line)],
                                           sourceModified=False), control=control)
        self.assertEqual(len(r["body"]["breakpoints"]), 1)
        self.assertTrue(r["body"]["breakpoints"][0]["verified"])
        self.ok("configurationDone", control=control)
        return path

    def execute_async(self, code):
        return self.k.send(self.k.shell, "execute_request",
                           dict(code=code, silent=False, store_history=True, user_expressions={},
                                allow_stdin=False, stop_on_error=True))

    def frames(self, thread):
        return self.ok("stackTrace", dict(threadId=thread))["body"]["stackFrames"]

    def step(self, command, thread):
        self.ok(command, dict(threadId=thread))
        stopped = self.event("stopped")
        self.assertEqual(stopped["body"]["reason"], "step")
        return self.frames(thread)[0]

    def value(self, expression):
        reply, out = self.k.execute(expression, timeout=TIMEOUT)
        self.assertEqual(reply["content"]["status"], "ok", reply["content"])
        return [m["content"]["data"]["text/plain"] for m in out
                if m["msg_type"] == "execute_result"][0]


class Session(DapTestCase):
    def test_kernel_info_says_debugger(self):
        msg_id = self.k.send(self.k.control, "kernel_info_request")
        self.assertIs(self.k.reply(self.k.control, msg_id)["content"]["debugger"], True)

    def test_initialize_attach_and_evaluate_without_a_stop(self):
        self.start()
        self.ok("configurationDone")
        r = self.ok("evaluate", dict(expression="'a' + 'b'", context="repl"))
        self.assertEqual(r["body"]["result"], "")  # printed, as in ipykernel: no frame to show it
        self.assertTrue(self.ok("debugInfo")["body"]["isStarted"])

    def test_busy_and_idle_around_a_debug_request(self):
        msg_id = self.k.send(self.k.control, "debug_request",
                             dict(type="request", seq=1, command="debugInfo", arguments={}))
        self.k.reply(self.k.control, msg_id)
        states = [m["content"]["execution_state"] for m in self.k.iopub_until_idle(msg_id)
                  if m["msg_type"] == "status"]
        self.assertEqual(states, ["busy", "idle"])

    def test_debug_info_announces_how_cells_are_named(self):
        info = self.ok("debugInfo")["body"]
        self.assertEqual(info["hashMethod"], "Murmur2")
        self.assertEqual(info["tmpFileSuffix"], ".py")
        self.assertTrue(info["copyToGlobals"])
        self.assertTrue(info["richRendering"])
        self.assertFalse(info["isStarted"])
        self.start()
        code = "x = 'é'\nprint(x)\n"
        path = self.ok("dumpCell", dict(code=code))["body"]["sourcePath"]
        expected = "%s%d%s" % (info["tmpFilePrefix"], murmur2(code.encode(), info["hashSeed"]),
                               info["tmpFileSuffix"])
        self.assertEqual(path, expected)
        with open(path, encoding="utf-8") as f:
            self.assertEqual(f.read(), code)
        self.assertEqual(self.ok("source", dict(source=dict(path=path)))["body"]["content"], code)

    def test_breakpoints_are_remembered_per_source(self):
        self.start()
        path = self.break_in(CELL, 2)
        info = self.ok("debugInfo")["body"]
        self.assertEqual(info["breakpoints"], [dict(source=path, breakpoints=[dict(line=2)])])
        self.ok("setBreakpoints", dict(source=dict(path=path), breakpoints=[]))
        self.assertEqual(self.ok("debugInfo")["body"]["breakpoints"], [])

    def test_disconnect_forgets_the_session_and_initialize_starts_again(self):
        self.start()
        self.break_in(CELL, 2)
        self.ok("disconnect", dict(restart=False, terminateDebuggee=True))
        info = self.ok("debugInfo")["body"]
        self.assertFalse(info["isStarted"])
        self.assertEqual(info["breakpoints"], [])
        # The kernel was not terminated, and the forgotten breakpoint stops nothing.
        self.assertEqual(self.value(CELL + "s"), "50")
        self.start()
        self.ok("configurationDone")
        self.assertTrue(self.ok("debugInfo")["body"]["isStarted"])
        self.ok("disconnect", dict(restart=False, terminateDebuggee=False))


class Variables(DapTestCase):
    def test_inspect_variables_lists_the_users_globals(self):
        self.k.execute("text = 'Hello the world'\nconfig = {'depth': 3, 'name': 'net'}\n")
        self.k.execute("text")  # makes Out, _ and _1 in IPython
        names = {v["name"]: v for v in self.ok("inspectVariables")["body"]["variables"]}
        self.assertEqual(names["text"]["value"], "'Hello the world'")
        self.assertEqual(names["text"]["type"], "str")
        for hidden in ("In", "Out", "_", "_1", "_i1", "__name__", "__builtins__", "get_ipython"):
            self.assertNotIn(hidden, names)
        ref = names["config"]["variablesReference"]
        self.assertGreater(ref, 0)
        children = self.ok("variables", dict(variablesReference=ref))["body"]["variables"]
        self.assertEqual({c["name"]: c["value"] for c in children},
                         {"'depth'": "3", "'name'": "'net'"})

    def test_rich_inspect_variables_not_at_a_stop(self):
        self.k.execute("text = 'Hello the world'\n")
        r = self.ok("richInspectVariables", dict(variableName="text"))
        self.assertEqual(r["body"]["data"], {"text/plain": "'Hello the world'"})
        r = self.ok("richInspectVariables", dict(variableName="special variables"))
        self.assertEqual(r["body"], dict(data={}, metadata={}))

    def test_modules_lists_python_modules(self):
        r = self.ok("modules", dict(startModule=0, moduleCount=0))["body"]
        self.assertGreater(r["totalModules"], 10)
        self.assertIn("json", [m["name"] for m in r["modules"]])


class Stops(DapTestCase):
    def stop_in_f(self):
        """Runs CELL with a breakpoint at f's first line; returns (thread, frames, path, id)."""
        self.start()
        path = self.break_in(CELL, 2)
        msg_id = self.execute_async(CELL)
        stopped = self.event("stopped")
        self.assertEqual(stopped["body"]["reason"], "breakpoint")
        thread = stopped["body"]["threadId"]
        self.assertIn(thread, self.ok("debugInfo")["body"]["stoppedThreads"])
        return thread, self.frames(thread), path, msg_id

    def finish(self, thread, msg_id):
        self.ok("continue", dict(threadId=thread))
        reply = self.k.reply(self.k.shell, msg_id, TIMEOUT)
        self.assertEqual(reply["content"]["status"], "ok")
        self.assertEqual(self.ok("debugInfo")["body"]["stoppedThreads"], [])

    def test_stack_scopes_variables_and_evaluate_at_a_breakpoint(self):
        thread, frames, path, msg_id = self.stop_in_f()
        self.assertEqual((frames[0]["name"], frames[0]["line"]), ("f", 2))
        # The cell's frames only: f, then the cell's top level; none of the kernel's.
        self.assertEqual([(f["name"], f["source"]["path"]) for f in frames],
                         [("f", path), ("<module>", path)])
        scopes = self.ok("scopes", dict(frameId=frames[0]["id"]))["body"]["scopes"]
        local = [s for s in scopes if s["name"] == "Locals"][0]
        variables = self.ok("variables",
                            dict(variablesReference=local["variablesReference"]))["body"]
        self.assertEqual({v["name"]: v["value"] for v in variables["variables"]},
                         {"a": "2", "b": "3"})
        r = self.ok("evaluate", dict(expression="a * 10 + b", frameId=frames[0]["id"],
                                     context="repl"))
        self.assertEqual(r["body"]["result"], "23")
        r = self.ok("richInspectVariables", dict(variableName="a", frameId=frames[0]["id"]))
        self.assertEqual(r["body"]["data"], {"text/plain": "2"})
        self.finish(thread, msg_id)
        self.assertEqual(self.value("s"), "50")

    def test_copy_to_globals_from_a_frame(self):
        thread, frames, path, msg_id = self.stop_in_f()
        self.ok("copyToGlobals", dict(srcVariableName="b", dstVariableName="b_seen",
                                      srcFrameId=frames[0]["id"]))
        self.finish(thread, msg_id)
        self.assertEqual(self.value("b_seen"), "3")

    def test_next_step_out_step_in_and_continue(self):
        thread, frames, path, msg_id = self.stop_in_f()
        top = self.step("next", thread)
        self.assertEqual((top["name"], top["line"]), ("f", 3))
        top = self.step("stepOut", thread)
        self.assertEqual(top["name"], "<module>")
        for _ in range(3):  # from `r = f(2, 3)` to `s = h(r)`, then into h
            if top["name"] == "h":
                break
            top = self.step("stepIn", thread)
        self.assertEqual((top["name"], top["line"]), ("h", 6))
        self.finish(thread, msg_id)
        self.assertEqual(self.value("(r, s)"), "(5, 50)")

    def test_interrupt_while_stopped_ends_the_cell(self):
        thread, frames, path, msg_id = self.stop_in_f()
        interrupt = self.k.send(self.k.control, "interrupt_request")
        self.k.reply(self.k.control, interrupt, TIMEOUT)
        reply = self.k.reply(self.k.shell, msg_id, TIMEOUT)
        self.assertEqual((reply["content"]["status"], reply["content"]["ename"]),
                         ("error", "KeyboardInterrupt"))
        self.assertEqual(self.ok("debugInfo")["body"]["stoppedThreads"], [])
        self.assertEqual(self.value("2 + 2"), "4")

    def test_shutdown_while_stopped_ends_cleanly(self):
        self.stop_in_f()
        msg_id = self.k.send(self.k.control, "shutdown_request", dict(restart=False))
        self.k.reply(self.k.control, msg_id, TIMEOUT)
        self.assertEqual(self.k.proc.wait(TIMEOUT * SLOW), 0)


TF_CELL = """import tensorflow as tf

@tf.function
def scaled(x):
    y = x * 2.0
    return y + 1.0

out = scaled(tf.constant([1.0, 2.0]))
"""


class TracedFunctions(DapTestCase):
    """A breakpoint in a tf.function's body stops while it traces (symbolic tensors), not on
    its cached calls (the trace events say why), and on every call when run eagerly."""

    def setUp(self):
        self.events_path = os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                        "trellis-dap-events-%d.jsonl" % os.getpid())
        self.k = Kernel(extra_args=("--events", self.events_path))
        self.seq = 0

    def tearDown(self):
        super().tearDown()
        if os.path.exists(self.events_path):
            os.unlink(self.events_path)

    def events(self, kind):
        with open(self.events_path) as f:
            return [e for e in map(json.loads, f) if e["kind"] == kind]

    def run_to_stop(self, code):
        """Runs `code`; at its stop returns (thread, locals by name, msg_id)."""
        msg_id = self.execute_async(code)
        stopped = self.event("stopped")
        self.assertEqual(stopped["body"]["reason"], "breakpoint")
        thread = stopped["body"]["threadId"]
        frames = self.frames(thread)
        self.assertEqual((frames[0]["name"], frames[0]["line"]), ("scaled", 6))
        scopes = self.ok("scopes", dict(frameId=frames[0]["id"]))["body"]["scopes"]
        local = [s for s in scopes if s["name"] == "Locals"][0]
        variables = self.ok("variables", dict(variablesReference=local["variablesReference"]))
        return thread, {v["name"]: v for v in variables["body"]["variables"]}, msg_id

    def resume(self, thread, msg_id):
        self.ok("continue", dict(threadId=thread))
        reply = self.k.reply(self.k.shell, msg_id, TIMEOUT)
        self.assertEqual(reply["content"]["status"], "ok", reply["content"])

    def test_stops_while_tracing_not_on_cached_calls_and_again_when_eager(self):
        self.start()
        self.break_in(TF_CELL, 6)
        # The first call traces: the body runs on symbolic tensors.
        thread, local, msg_id = self.run_to_stop(TF_CELL)
        self.assertEqual(local["x"]["value"], "<tf.Tensor 'x:0' shape=(2,) dtype=float32>")
        self.assertRegex(local["y"]["value"], r"^<tf\.Tensor '[\w/]+:0' shape=\(2,\) "
                                              r"dtype=float32>$")
        self.assertEqual(local["y"]["type"], "SymbolicTensor")  # TensorFlow's class of a traced value
        self.resume(thread, msg_id)
        self.assertEqual(self.value("out.numpy().tolist()"), "[3.0, 5.0]")
        # A cached call runs the graph: nothing stops, and the trace events say why.
        reply, out = self.k.execute("scaled(tf.constant([5.0, 6.0])).numpy().tolist()",
                                    timeout=TIMEOUT)
        self.assertEqual(reply["content"]["status"], "ok")
        self.assertFalse([m for m in out if m["msg_type"] == "debug_event"
                          and m["content"].get("event") == "stopped"])
        # Eagerly, every call runs the body and stops.
        self.k.execute("tf.config.run_functions_eagerly(True)", timeout=TIMEOUT)
        thread, local, msg_id = self.run_to_stop("eager_out = scaled(tf.constant([7.0]))")
        self.assertEqual(local["x"]["value"],
                         "<tf.Tensor: shape=(1,), dtype=float32, numpy=array([7.], "
                         "dtype=float32)>")
        self.resume(thread, msg_id)
        self.k.execute("tf.config.run_functions_eagerly(False)", timeout=TIMEOUT)

        stops = self.events("debugger_stopped")
        self.assertEqual(len(stops), 2, stops)
        self.assertEqual([(e.get("reason"), e.get("tracing"), e.get("line"), e.get("name"))
                          for e in stops],
                         [("breakpoint", True, 6, "scaled"), ("breakpoint", False, 6, "scaled")])
        self.assertEqual(len(self.events("debugger_continued")), 2)
        bypassed = self.events("breakpoint_bypassed")
        self.assertEqual(len(bypassed), 1, bypassed)
        self.assertIn("no Python ran", bypassed[0]["text"])


    def test_a_kernel_started_eager_stops_on_every_call(self):
        self.k.stop()
        self.k = Kernel(extra_args=("--events", self.events_path, "--eager"))
        self.start()
        self.break_in(TF_CELL, 6)
        for code in (TF_CELL, "again = scaled(tf.constant([3.0, 4.0]))"):
            thread, local, msg_id = self.run_to_stop(code)
            self.assertTrue(local["x"]["value"].startswith("<tf.Tensor: shape=(2,)"), local)
            self.resume(thread, msg_id)
        self.assertEqual([e.get("tracing") for e in self.events("debugger_stopped")],
                         [False, False])
        self.assertEqual(self.events("breakpoint_bypassed"), [])


class Vanishing(DapTestCase):
    def test_a_client_that_vanishes_at_a_stop_leaves_the_kernel_running(self):
        other = Client(self.k)
        self.start(control=other.control)
        self.break_in(CELL, 2, control=other.control)
        msg_id = self.execute_async(CELL)
        self.assertEqual(self.event("stopped")["body"]["reason"], "breakpoint")
        other.vanish()
        # debugpy resumed the cell: it finishes, and the kernel runs the next one.
        reply = self.k.reply(self.k.shell, msg_id, TIMEOUT)
        self.assertEqual(reply["content"]["status"], "ok")
        self.assertEqual(self.value("s"), "50")
        self.assertFalse(self.ok("debugInfo")["body"]["isStarted"])
        self.assertIn("the debugger's client went away", self.k.stderr_text())
        self.start()  # a new client debugs again
        self.ok("configurationDone")

    def test_another_client_leaving_does_not_end_the_session(self):
        self.start()
        other = Client(self.k)
        self.request("debugInfo", control=other.control)
        other.vanish()
        time.sleep(0.3)
        self.assertTrue(self.ok("debugInfo")["body"]["isStarted"])


class BadInput(DapTestCase):
    def assert_alive(self):
        self.assertEqual(self.value("1 + 2"), "3")

    def test_malformed_requests_get_a_failed_response(self):
        for content in ([1, 2], "initialize", 7):
            r = self.request(None, content=content)
            self.assertFalse(r["success"])
            self.assertIn("message", r)
        r = self.request(None, content=dict(type="request", seq=5, arguments={}))
        self.assertFalse(r["success"])
        self.assertEqual(r["request_seq"], 5)
        r = self.request(None, content=dict(type="request", seq=6, command="initialize",
                                            arguments=[1]))
        self.assertFalse(r["success"])
        self.assertIn("arguments", r["message"])
        self.assert_alive()

    def test_requests_before_initialize_are_refused(self):
        for command in ("attach", "stackTrace", "dumpCell", "setBreakpoints", "continue",
                        "disconnect", "noSuchCommand"):
            r = self.refused(command, dict(threadId=1, code="x = 1\n"))
            self.assertEqual(r["command"], command)
        self.assertFalse(self.ok("debugInfo")["body"]["isStarted"])
        self.assert_alive()

    def test_bad_arguments_in_a_session_are_refused(self):
        self.start()
        self.refused("dumpCell", {})
        self.refused("dumpCell", dict(code=12))
        self.refused("setBreakpoints", dict(breakpoints=[dict(line=1)]))
        self.refused("variables", dict(variablesReference=987654))
        self.refused("variables", dict(variablesReference="x"))
        self.refused("richInspectVariables", {})
        self.refused("richInspectVariables", dict(variableName="not_defined_anywhere"))
        self.refused("richInspectVariables", dict(variableName="a]; import os"))
        self.refused("copyToGlobals", dict(srcVariableName="a", dstVariableName="x']=1;#",
                                           srcFrameId=1))
        self.refused("copyToGlobals", dict(srcVariableName="a"))
        self.refused("source", dict(source=dict(path="/nonexistent/file.py")))
        self.refused("modules", dict(startModule=-1))
        self.refused("stackTrace", dict(threadId=424242))
        self.assertTrue(self.ok("debugInfo")["body"]["isStarted"])
        self.assert_alive()


if __name__ == "__main__":
    unittest.main(verbosity=2)
