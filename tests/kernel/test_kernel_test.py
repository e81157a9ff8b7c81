"""jupyter_kernel_test (Debian's python3-jupyter-kernel-test) against trellis-kernel.

The samples are Python cells, run by the real kernel (embedded CPython); every test of
jupyter_kernel_test runs (none is skipped), and test_stdin_input adds the stdin round trip this
version of jupyter_kernel_test has no sample for. The kernel runs from a temporary kernelspec;
its stderr is checked for sanitizer reports at the end.
"""
import os, sys, unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tkclient import KernelSpecDir  # noqa: E402

import jupyter_kernel_test as jkt  # noqa: E402

HTML_DISPLAY = """class Bold:
    def __init__(self, text):
        self.text = text
    def _repr_html_(self):
        return '<b>' + self.text + '</b>'
display(Bold('test'))"""


class TrellisKernelTests(jkt.KernelTests):
    kernel_name = "trellis-test"
    language_name = "python"
    file_extension = ".py"

    code_hello_world = "print('hello, world')"
    code_stderr = "import sys; print('test', file=sys.stderr)"
    completion_samples = [
        {"text": "zi", "matches": {"zip"}},
        {"text": "import sys; sys.std", "matches": {"stderr", "stdin", "stdout"}},
        {"text": "import math; math.fl", "matches": {"floor"}},
        {"text": "whi", "matches": {"while"}},
        {"text": "from math import sq", "matches": {"sqrt"}},
    ]
    complete_code_samples = ["1", "print('hello, world')", "def f(x):\n  return x*2\n\n\n",
                             "zip?", "x = [1,\n 2]"]
    incomplete_code_samples = ["print('\'\'\'hello", "def f(x):\n  x*2", "while True:",
                               "x = [1,", "if x:\n    pass"]
    invalid_code_samples = ["import = 7q", "(1 + ]"]
    code_page_something = "zip?"
    code_generate_error = "raise Exception('boom')"
    code_execute_result = [
        {"code": "1+2+3", "result": "6"},
        {"code": "6*7", "result": "42"},
        {"code": "'a' + 'b'", "result": "'ab'"},
        {"code": "[i * i for i in range(4)]", "result": "[0, 1, 4, 9]"},
        {"code": "{'x': (1, 2.5), 'y': None}", "result": "{'x': (1, 2.5), 'y': None}"},
        {"code": "def double(x):\n    return 2 * x\ndouble(21)", "result": "42"},
    ]
    code_display_data = [
        {"code": "display(42)", "mime": "text/plain"},
        {"code": HTML_DISPLAY, "mime": "text/html"},
    ]
    code_history_pattern = "1?2*"
    supported_history_operations = ("tail", "range", "search")
    code_inspect_sample = "zip"
    code_clear_output = "clear_output()"

    @classmethod
    def setUpClass(cls):
        cls.spec = KernelSpecDir(cls.kernel_name)
        super().setUpClass()

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        cls.spec.check_logs()
        cls.spec.cleanup()

    def test_stdin_input(self):
        """input() asks the frontend over stdin and returns the line it answers."""
        self.flush_channels()
        msg_id = self.kc.execute("name = input('who? ')\nprint('hi ' + name)", allow_stdin=True)
        request = self.kc.get_stdin_msg(timeout=jkt.TIMEOUT)
        self.assertEqual(request["msg_type"], "input_request")
        self.assertEqual(request["content"]["prompt"], "who? ")
        self.assertFalse(request["content"]["password"])
        self.kc.input("bob")
        reply = self.get_non_kernel_info_reply(timeout=jkt.TIMEOUT)
        self.assertEqual(reply["parent_header"]["msg_id"], msg_id)
        self.assertEqual(reply["content"]["status"], "ok")
        texts = []
        while True:
            msg = self.kc.get_iopub_msg(timeout=jkt.TIMEOUT)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "stream":
                texts.append(msg["content"]["text"])
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                break
        self.assertEqual("".join(texts), "hi bob\n")


if __name__ == "__main__":
    result = unittest.main(verbosity=2, exit=False).result
    if result.skipped:
        print("skipped: %s" % [str(t) for t, _ in result.skipped])
        sys.exit(1)  # every jupyter_kernel_test test must run
    sys.exit(not result.wasSuccessful())
