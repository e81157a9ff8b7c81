"""The Jupyter debug protocol's Python side (kernel-dap.c calls handle() through the
interpreter's `debug` operation, on the control thread)."""

import json


def handle(command, arguments):
    """Runs `command` with its JSON `arguments`; returns the result as JSON text."""
    raise NotImplementedError("the debugger has no command %r" % command)
