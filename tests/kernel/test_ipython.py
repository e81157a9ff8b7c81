"""IPython's conveniences in trellis-kernel, over real sockets: magics, shell commands, display
ids and their updates, rich representations, inline figures, payloads, top-level await,
completion with types, inspection of a tf.function, exit.

One kernel serves the tests of a class (each starts it on first use), except where the test
ends the kernel.
"""
import base64, json, os, re, sys, time, unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tkclient import Kernel  # noqa: E402


def plain(text):
    """Text without its ANSI colours."""
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


class IPythonTestCase(unittest.TestCase):
    k = None

    @classmethod
    def setUpClass(cls):
        cls.k = Kernel()
        cls.k.wait_ready()

    @classmethod
    def tearDownClass(cls):
        cls.k.stop(shutdown=cls.k.alive())

    def run_cell(self, code, **options):
        """(reply content, {msg_type: [contents]}) of one execute."""
        reply, out = self.k.execute(code, timeout=60, **options)
        by_type = {}
        for m in out:
            by_type.setdefault(m["msg_type"], []).append(m["content"])
        return reply["content"], by_type

    def stdout(self, by_type):
        return "".join(c["text"] for c in by_type.get("stream", []) if c["name"] == "stdout")

    def request(self, msg_type, **content):
        msg_id = self.k.send(self.k.shell, msg_type, content)
        return self.k.reply(self.k.shell, msg_id, timeout=60)["content"]


class Magics(IPythonTestCase):
    def test_time_and_timeit(self):
        reply, out = self.run_cell("%time total = sum(range(1000))\ntotal")
        self.assertEqual(reply["status"], "ok")
        self.assertRegex(self.stdout(out), r"CPU times: user .*\nWall time: ")
        self.assertEqual(out["execute_result"][0]["data"]["text/plain"], "499500")
        reply, out = self.run_cell("%timeit -n 3 -r 2 sum(range(100))")
        self.assertRegex(self.stdout(out), r"per loop \(mean ± std\. dev\. of 2 runs, 3 loops each\)")

    def test_cell_magic_and_who(self):
        reply, out = self.run_cell("%%capture captured\nprint('hidden')")
        self.assertEqual(reply["status"], "ok")
        self.assertNotIn("stream", out)
        reply, out = self.run_cell("captured.stdout")
        self.assertEqual(out["execute_result"][0]["data"]["text/plain"], "'hidden\\n'")
        self.run_cell("alpha_value = 1")
        reply, out = self.run_cell("%who")
        self.assertIn("alpha_value", self.stdout(out))

    def test_shell_command_and_unknown_magic(self):
        reply, out = self.run_cell("!echo from-the-shell")
        self.assertEqual(self.stdout(out).strip(), "from-the-shell")
        reply, out = self.run_cell("files = !printf 'a\\nb\\n'\nlen(files)")
        self.assertEqual(out["execute_result"][0]["data"]["text/plain"], "2")
        reply, out = self.run_cell("%no_such_magic")
        self.assertEqual(reply["status"], "error")
        self.assertEqual(reply["ename"], "UsageError")

    def test_debug_post_mortem_over_stdin(self):
        self.run_cell("def failing(x):\n    y = x * 2\n    return 1 / 0\nfailing(21)")
        k = self.k
        msg_id = k.send(k.shell, "execute_request", dict(
            code="%debug", silent=False, store_history=True, user_expressions={},
            allow_stdin=True, stop_on_error=True))
        for answer in ("p y", "q"):
            request = k.recv(k.stdin, 30)
            self.assertEqual(request["msg_type"], "input_request")
            self.assertEqual(request["content"]["prompt"], "ipdb> ")
            k.send(k.stdin, "input_reply", dict(value=answer))
        self.assertEqual(k.reply(k.shell, msg_id, 30)["content"]["status"], "ok")
        text = "".join(m["content"]["text"] for m in k.iopub_until_idle(msg_id, 30)
                       if m["msg_type"] == "stream")
        self.assertIn("----> 3     return 1 / 0", plain(text))
        self.assertIn("42\n", text)

    def test_top_level_await(self):
        reply, out = self.run_cell("import asyncio\nawait asyncio.sleep(0.01)\n'after await'")
        self.assertEqual(reply["status"], "ok", reply)
        self.assertEqual(out["execute_result"][0]["data"]["text/plain"], "'after await'")

    def test_history_names(self):
        self.run_cell("40 + 2")
        reply, out = self.run_cell("_ + 1")
        self.assertEqual(out["execute_result"][0]["data"]["text/plain"], "43")
        reply, out = self.run_cell("type(get_ipython()).__name__")
        self.assertEqual(out["execute_result"][0]["data"]["text/plain"], "'Shell'")


class InputTransformations(IPythonTestCase):
    # Cells with and without IPython syntax; each must come out of the kernel's transformer
    # exactly as out of IPython's own TransformerManager.
    SPECIAL = [
        "pass", "x = 1\ny = 2", "%time 1", "%%capture\nprint(1)", "a = %pwd", "b = !ls", "!ls",
        "x?", "x??", "?x", "len?", "/len [1]", ",print a b", ";print a b", "  x = 1\n  y = 2",
        "\n\nx = 1", "   \nx = 1", ">>> x = 1\n... y = 2", "x = 1\n>>> y = 2",
        "In [1]: x = 1\n   ...: y = 2", "[ins] In [2]: x = 3", "x = 1\n   ...: y", "f(1,\n/2)",
        "d = {'a': 1}\nd['a'] != 2", "s = '%d' % 3", "print('?')", "x = (1\n, 2)", "\tx = 1",
        "...", "x = ...", "y = [...]\n", "def f():\n    return 1\n", "x = 1\r\ny = 2",
        "x = 1\x0cy = 2", "In [x]", "@decorator\ndef f(): pass",
    ]

    def test_same_text_as_ipython(self):
        cells = self.SPECIAL + self.corpus()
        code = (
            "import json\n"
            "from IPython.core.inputtransformer2 import TransformerManager\n"
            "_cells = json.loads(%r)\n"
            "_mine = get_ipython().input_transformer_manager\n"
            "_ref = TransformerManager()\n"
            "_diff = []\n"
            "for _c in _cells:\n"
            "    try:\n"
            "        _want = _ref.transform_cell(_c)\n"
            "    except Exception as e:\n"
            "        _want = type(e).__name__\n"
            "    try:\n"
            "        _got = _mine.transform_cell(_c)\n"
            "    except Exception as e:\n"
            "        _got = type(e).__name__\n"
            "    if _got != _want:\n"
            "        _diff.append((_c, _got, _want))\n"
            "print(len(_cells), 'cells', len(_diff), 'differ', _diff[:3])\n" % json.dumps(cells))
        reply, by_type = self.run_cell(code)
        self.assertEqual(reply["status"], "ok", reply)
        self.assertEqual(self.stdout(by_type), "%d cells 0 differ []\n" % len(cells))

    def corpus(self):
        """Chunks of CPython's own library, a few lines each, starting anywhere (indented
        lines, decorators, comments, strings with % and ?)."""
        cells = []
        for name in ("argparse.py", "textwrap.py", "string.py", "difflib.py"):
            with open(os.path.join(os.path.dirname(os.__file__), name), encoding="utf-8") as f:
                lines = f.read().splitlines(keepends=True)
            for start in range(0, len(lines), 7):
                cells.append("".join(lines[start:start + (start % 5) + 1]))
        return cells

    def test_added_transformation_applies(self):
        reply, by_type = self.run_cell(
            "_ip = get_ipython()\n"
            "_upper = lambda lines: [l.replace('zzz', '41') for l in lines]\n"
            "_ip.input_transformers_cleanup.append(_upper)\n")
        self.assertEqual(reply["status"], "ok", reply)
        try:
            reply, by_type = self.run_cell("print(zzz + 1)")
            self.assertEqual(reply["status"], "ok", reply)
            self.assertEqual(self.stdout(by_type), "42\n")
        finally:
            self.run_cell("get_ipython().input_transformers_cleanup.remove(_upper)")
        reply, by_type = self.run_cell("zzz = 1\nprint(zzz)")
        self.assertEqual(self.stdout(by_type), "1\n")


class CellSources(IPythonTestCase):
    def test_sources_kept_where_a_later_traceback_needs_them(self):
        # A cell that defines a function keeps its lines (a later call's traceback shows them);
        # cells that can leave no code behind are forgotten after they ran; a failed cell is kept.
        self.run_cell("def boom(n):\n    return n / 0  # the line shown\n")
        self.run_cell("plain = 41 + 1")
        reply, _ = self.run_cell("[][1]")
        self.assertEqual(reply["status"], "error")
        reply, by_type = self.run_cell(
            "import linecache\n"
            "texts = [''.join(e[2]) for e in linecache.cache.values()]\n"
            "texts = [t for t in texts if 'import linecache' not in t]  # not this cell\n"
            "print(sum('the line shown' in t for t in texts), sum(t == '[][1]\\n' for t in texts),"
            " sum('plain = 41' in t for t in texts))")
        self.assertEqual(self.stdout(by_type), "1 1 0\n")
        reply, by_type = self.run_cell("boom(1)")
        self.assertEqual(reply["status"], "error")
        self.assertIn("return n / 0", plain("\n".join(reply["traceback"])))


class Display(IPythonTestCase):
    def test_display_id_and_update(self):
        reply, out = self.run_cell(
            "from IPython.display import display, HTML\n"
            "handle = display(HTML('<b>first</b>'), display_id=True)\n"
            "handle.update(HTML('<i>second</i>'))")
        shown, updated = out["display_data"][0], out["update_display_data"][0]
        self.assertEqual(shown["data"]["text/html"], "<b>first</b>")
        self.assertEqual(updated["data"]["text/html"], "<i>second</i>")
        display_id = shown["transient"]["display_id"]
        self.assertTrue(display_id)
        self.assertEqual(updated["transient"]["display_id"], display_id)
        # A later cell updates the same output by its id.
        reply, out = self.run_cell("handle.update(HTML('<u>third</u>'))")
        self.assertEqual(out["update_display_data"][0]["transient"]["display_id"], display_id)

    def test_every_repr_and_mimebundle(self):
        reply, out = self.run_cell(
            "class Rich:\n"
            "    def _repr_png_(self): return b'\\x89PNG fake'\n"
            "    def _repr_json_(self): return {'answer': 42}\n"
            "    def _repr_markdown_(self): return '**md**'\n"
            "    def _repr_latex_(self): return r'$x^2$'\n"
            "    def __repr__(self): return 'Rich()'\n"
            "class Bundle:\n"
            "    def _repr_mimebundle_(self, include=None, exclude=None):\n"
            "        return {'text/plain': 'bundle', 'application/x-trellis': 'custom'}\n"
            "display(Bundle())\n"
            "Rich()")
        data = out["execute_result"][0]["data"]
        self.assertEqual(base64.b64decode(data["image/png"]), b"\x89PNG fake")
        self.assertEqual(data["application/json"], {"answer": 42})
        self.assertEqual(data["text/markdown"], "**md**")
        self.assertEqual(data["text/latex"], "$x^2$")
        self.assertEqual(data["text/plain"], "Rich()")
        self.assertEqual(out["display_data"][0]["data"],
                         {"text/plain": "bundle", "application/x-trellis": "custom"})

    def test_matplotlib_figure_is_an_inline_png(self):
        reply, out = self.run_cell("import matplotlib.pyplot as plt\nplt.plot([1, 3, 2]);")
        self.assertEqual(reply["status"], "ok", reply)
        self.assertNotIn("execute_result", out)  # the trailing ';' hides the lines
        png = base64.b64decode(out["display_data"][0]["data"]["image/png"])
        self.assertTrue(png.startswith(b"\x89PNG\r\n\x1a\n"))
        reply, out = self.run_cell("%matplotlib inline\nfig = plt.figure()\nplt.bar([1], [2])\n"
                                   "plt.show()")
        self.assertIn("image/png", out["display_data"][0]["data"])

    def test_graph_svg_has_no_xml_declaration(self):
        reply, out = self.run_cell(
            "import tensorflow as tf\n@tf.function\ndef twice(x):\n    return x * 2\n"
            "twice.get_concrete_function(tf.constant(1.0))")
        svg = out["execute_result"][0]["data"]["image/svg+xml"]
        self.assertTrue(svg.startswith("<svg"), svg[:80])
        self.assertNotIn("<?xml", svg)


class Payloads(IPythonTestCase):
    def test_set_next_input(self):
        reply, out = self.run_cell("get_ipython().set_next_input('print(1)')")
        self.assertEqual(reply["payload"],
                         [{"source": "set_next_input", "text": "print(1)", "replace": False}])

    def test_question_mark_of_a_tf_function_shows_signature_and_traces(self):
        self.run_cell("import tensorflow as tf\n@tf.function\ndef scale(x, factor=2):\n"
                      "    return x * factor\n")
        reply, out = self.run_cell("scale?")
        text = plain(reply["payload"][0]["data"]["text/plain"])
        self.assertIn("Signature:", text)
        self.assertIn("scale(x, factor=2)", text)
        self.assertIn("Traces:\n(not traced yet", text)
        self.run_cell("scale(tf.constant([1.0, 2.0]))")
        reply, out = self.run_cell("scale?")
        text = plain(reply["payload"][0]["data"]["text/plain"])
        self.assertIn("Traces:\nscale(x, factor=2)\n  Args:\n    x: float32 Tensor, shape=(2,)", text)

    def test_input_without_stdin(self):
        reply, out = self.run_cell("input('name? ')", allow_stdin=False)
        self.assertEqual((reply["ename"], reply["evalue"]),
                         ("StdinNotImplementedError",
                          "raw_input was called, but this frontend does not support input requests."))


class Introspection(IPythonTestCase):
    def test_completion_has_types(self):
        self.run_cell("import os\nsettings = {'learning_rate': 0.1, 'layers': 3}")
        c = self.request("complete_request", code="os.pat", cursor_pos=6)
        self.assertIn("path", c["matches"])
        types = {t["text"]: t["type"] for t in c["metadata"]["_jupyter_types_experimental"]}
        self.assertEqual(types["path"], "module")
        c = self.request("complete_request", code="settings['l", cursor_pos=11)
        self.assertIn("learning_rate", c["matches"])
        self.assertIn("layers", c["matches"])

    def test_completion_of_paths(self):
        here = os.path.dirname(os.path.abspath(__file__))
        code = "open('%s/test_ipy" % here
        c = self.request("complete_request", code=code, cursor_pos=len(code))
        self.assertTrue(any(m.endswith("test_ipython.py") for m in c["matches"]), c["matches"])

    def test_is_complete_uses_ipython_rules(self):
        self.assertEqual(self.request("is_complete_request", code="%time")["status"], "complete")
        c = self.request("is_complete_request", code="for i in range(3):")
        self.assertEqual((c["status"], c["indent"]), ("incomplete", "    "))
        self.assertEqual(self.request("is_complete_request", code="x = (1,")["status"],
                         "incomplete")


class Exit(unittest.TestCase):
    def test_exit_asks_the_frontend_and_ends_the_kernel(self):
        k = Kernel()
        try:
            k.wait_ready()
            reply, out = k.execute("exit")
            self.assertEqual(reply["content"]["status"], "ok")
            self.assertEqual(reply["content"]["payload"], [{"source": "ask_exit",
                                                            "keepkernel": False}])
            deadline = time.time() + 20
            while k.alive() and time.time() < deadline:
                time.sleep(0.05)
            self.assertFalse(k.alive(), "the kernel still runs after exit")
        finally:
            k.stop(shutdown=k.alive())


if __name__ == "__main__":
    unittest.main(verbosity=2)
