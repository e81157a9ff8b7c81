"""trellis-kernel driven by real Jupyter clients: nbclient, jupyter nbconvert --execute,
jupyter console, and jupyter_client's KernelManager interrupting in both interrupt modes."""
import os, subprocess, sys, tempfile, time, unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tkclient import KernelSpecDir  # noqa: E402

import nbformat  # noqa: E402
from jupyter_client.manager import start_new_kernel  # noqa: E402
from nbclient import NotebookClient  # noqa: E402

HTML_CLASS = '''class HTML:
    def __init__(self, html):
        self.html = html
    def __repr__(self):
        return '<HTML object>'
    def _repr_html_(self):
        return self.html'''

CELLS = [
    (HTML_CLASS, []),
    ("print('hello, world')", [dict(output_type="stream", name="stdout", text="hello, world\n")]),
    ("1+2+3", [dict(output_type="execute_result", data={"text/plain": "6"})]),
    ("display(HTML('<b>x</b>'))",
     [dict(output_type="display_data", data={"text/html": "<b>x</b>",
                                             "text/plain": "<HTML object>"})]),
    ("import sys; print('warn', file=sys.stderr)",
     [dict(output_type="stream", name="stderr", text="warn\n")]),
]


def notebook():
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = dict(name="trellis-test", display_name="Trellis test",
                                     language="python")
    nb.cells = [nbformat.v4.new_code_cell(code) for code, _ in CELLS]
    return nb


def comparable(output):
    out = {k: v for k, v in output.items() if k not in ("metadata", "execution_count")}
    return out


class Clients(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.spec = KernelSpecDir()

    @classmethod
    def tearDownClass(cls):
        cls.spec.check_logs()
        cls.spec.cleanup()

    def check_outputs(self, nb):
        for cell, (code, expected) in zip(nb.cells, CELLS):
            self.assertEqual([comparable(o) for o in cell.outputs], expected, code)

    def test_nbclient_runs_a_notebook(self):
        nb = notebook()
        NotebookClient(nb, kernel_name="trellis-test", timeout=30).execute()
        self.check_outputs(nb)
        self.assertEqual([c.execution_count for c in nb.cells], [1, 2, 3, 4, 5])

    def test_nbclient_stops_at_an_error(self):
        nb = notebook()
        nb.cells.insert(2, nbformat.v4.new_code_cell("raise ValueError('stop here')"))
        client = NotebookClient(nb, kernel_name="trellis-test", timeout=30)
        with self.assertRaises(Exception) as caught:
            client.execute()
        self.assertIn("ValueError", str(caught.exception))

    def test_nbconvert_execute(self):
        tmp = tempfile.mkdtemp()
        src = os.path.join(tmp, "in.ipynb")
        nbformat.write(notebook(), src)
        subprocess.run(["jupyter-nbconvert", "--to", "notebook", "--execute",
                        "--ExecutePreprocessor.kernel_name=trellis-test", "--output", "out.ipynb",
                        src], check=True, capture_output=True, timeout=120)
        self.check_outputs(nbformat.read(os.path.join(tmp, "out.ipynb"), as_version=4))

    def test_jupyter_console(self):
        # Output to a file, not a pipe: a kernel left behind must not keep the test waiting.
        with tempfile.TemporaryFile("w+") as out:
            proc = subprocess.Popen(["jupyter-console", "--kernel", "trellis-test",
                                     "--simple-prompt"], stdin=subprocess.PIPE, stdout=out,
                                    stderr=subprocess.STDOUT, text=True)
            timed_out = False
            try:
                proc.communicate("print('hi there')\n1+2+3\n", timeout=120)
            except subprocess.TimeoutExpired:
                timed_out = True
            finally:
                proc.kill()
                proc.wait()
                out.seek(0)
                text = out.read()
            self.assertFalse(timed_out, "jupyter console still running after 120 s; it printed:\n"
                             + text + "\nkernel logs:\n" + self.spec.read_logs())
            self.assertEqual(self.spec.kill_leftovers(), [], text)
        self.assertIn("hi there", text)
        self.assertIn("Out[2]: 6", text)
        self.assertIn("Shutting down kernel", text)

    def interrupt_with_manager(self, mode):
        spec = KernelSpecDir("trellis-%s" % mode, interrupt_mode=mode)
        try:
            km, kc = start_new_kernel(kernel_name=spec.name)
            try:
                msg_id = kc.execute("while True: pass")
                time.sleep(0.3)
                km.interrupt_kernel()
                # start_new_kernel's kernel_info requests may still have replies queued when
                # the kernel starts slowly (the sanitizer build): skip to the execute's reply.
                reply = kc.get_shell_msg(timeout=10)
                while reply["msg_type"] == "kernel_info_reply":
                    reply = kc.get_shell_msg(timeout=10)
                self.assertEqual(reply["parent_header"]["msg_id"], msg_id)
                self.assertEqual(reply["content"]["ename"], "KeyboardInterrupt")
                reply = kc.execute_interactive("1+2+3", timeout=10, output_hook=lambda m: None)
                self.assertEqual(reply["content"]["status"], "ok")
                km.restart_kernel(now=False)
                kc.wait_for_ready(timeout=10)
                self.assertEqual(kc.execute_interactive("1", timeout=10, output_hook=lambda m: None)
                                 ["content"]["status"], "ok")
            finally:
                kc.stop_channels()
                km.shutdown_kernel(now=False)
            spec.check_logs()
        finally:
            spec.cleanup()
            os.environ["JUPYTER_PATH"] = self.spec.dir

    def test_kernel_manager_interrupts_in_signal_mode(self):
        self.interrupt_with_manager("signal")

    def test_kernel_manager_interrupts_in_message_mode(self):
        self.interrupt_with_manager("message")


if __name__ == "__main__":
    unittest.main(verbosity=2)
