"""The Jupyter debug protocol's Python side, the module `_trellis_debugger`.

kernel-dap.c serves the protocol and talks to debugpy; it calls handle(command, arguments)
through the interpreter's `debug` operation, on the kernel's control thread, for what needs the
interpreter itself: starting and stopping debugpy ("listen", "shutdown") and looking at the user's namespace when no
thread is stopped (inspectVariables, variables, richInspectVariables), the source of code that
has no file, the loaded modules. handle() returns a JSON text; a failure is an exception, whose
text becomes the response's message.

The control thread must never be traced or suspended by pydevd: it serves the requests that
resume a stopped cell. It is marked, first thing on every call, as pydevd marks its own threads.
"""

import threading


def _not_traced():
    thread = threading.current_thread()
    if thread is threading.main_thread():
        raise RuntimeError("the debugger runs on the thread that runs cells, or threading was "
                           "first imported on the control thread")
    thread.pydev_do_not_trace = True
    thread.is_pydev_daemon_thread = True


_not_traced()

import ast  # noqa: E402
import json  # noqa: E402
import linecache  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import types  # noqa: E402

# Longest value text in a variable list; the rest is in its children or richInspectVariables.
_MAX_VALUE = 1000
# Most children listed for one variable.
_MAX_CHILDREN = 1000

_address = None  # (host, port) of debugpy's adapter once listening
_cell_thread_traced = False


def _kernel_module():
    return sys.modules.get("_trellis_kernel")


def _trace_cell_thread():
    """A pre-cell hook, on the thread that runs cells: debugpy.listen() ran on the control
    thread, and breakpoints in cells only work on a thread pydevd traces."""
    global _cell_thread_traced
    if _cell_thread_traced:
        return
    _cell_thread_traced = True
    import pydevd
    # This thread only: pydevd's way to every thread is a native helper (attach.so) whose
    # objects are never freed.
    pydevd.settrace(suspend=False, trace_only_current_thread=True, notify_stdin=False)


def _listen(arguments):
    global _address
    if _address is None:
        # Debian's CPython has frozen stdlib modules; pydevd warns about them on every start.
        os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
        # IPython is still being imported on its loader thread if the kernel just started:
        # the debugger starts once it is done, so that pydevd does not trace that import.
        loader = getattr(_kernel_module(), "_loader", None)
        if loader is not None:
            loader.join()
        import debugpy
        # pydevd starts by tracing every thread but its own and those marked so, through its
        # native helper; the thread that runs cells traces itself instead, from its next cell.
        main = threading.main_thread()
        main.pydev_do_not_trace = True
        try:
            host, port = debugpy.listen(("127.0.0.1", 0))
        finally:
            del main.pydev_do_not_trace
        _address = (host, port)
        hooks = getattr(_kernel_module(), "pre_cell_hooks", None)
        if hooks is not None:
            hooks.append(_trace_cell_thread)
    return {"host": _address[0], "port": _address[1]}


def _shutdown(arguments):
    """The kernel exits: pydevd stops tracing and its threads end (and with them debugpy's
    adapter), rather than being abandoned, still holding what they read, at finalisation."""
    if _address is not None:
        import pydevd
        pydevd.stoptrace()
    return {}


# ---- the user's namespace, when no thread is stopped ------------------------------------

def _user_namespace():
    import builtins
    get_ipython = getattr(builtins, "get_ipython", None)
    shell = get_ipython() if get_ipython is not None else None
    if shell is not None:
        return shell.user_ns
    return sys.modules["__main__"].__dict__


class _Registry:
    """variablesReference numbers of the values listed since the last inspectVariables (they
    hold references to the user's objects until the next one)."""

    def __init__(self):
        self.values = {}

    def add(self, value, evaluate_name):
        ref = len(self.values) + 1
        self.values[ref] = (value, evaluate_name)
        return ref

    def get(self, ref):
        try:
            return self.values[ref]
        except (KeyError, TypeError):
            raise KeyError("no variable has the reference %r" % (ref,)) from None


_registry = _Registry()

_ATOMS = (type(None), bool, int, float, complex, str, bytes, bytearray, range, type)
_ROUTINES = (types.FunctionType, types.BuiltinFunctionType, types.MethodType)


def _children(value):
    """(name, value, evaluate suffix) of the parts of `value` worth opening, up to the limit."""
    if isinstance(value, _ATOMS) or isinstance(value, _ROUTINES):
        return []
    out = []
    if isinstance(value, dict):
        for key in list(value)[:_MAX_CHILDREN]:
            out.append((repr(key), value[key], "[%r]" % (key,)))
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value[:_MAX_CHILDREN]):
            out.append((str(i), item, "[%d]" % i))
    elif isinstance(value, (set, frozenset)):
        for i, item in enumerate(list(value)[:_MAX_CHILDREN]):
            out.append((str(i), item, None))
    else:
        attrs = getattr(value, "__dict__", None)
        if isinstance(attrs, dict):
            names = [n for n in attrs if not (n.startswith("__") and n.endswith("__"))]
            for name in names[:_MAX_CHILDREN]:
                out.append((name, attrs[name], "." + name))
    return out


def _text(value):
    try:
        text = repr(value)
    except Exception as e:  # a broken __repr__ is the user's, not the debugger's
        text = "<repr raised %s>" % type(e).__name__
    return text if len(text) <= _MAX_VALUE else text[:_MAX_VALUE] + "…"


def _variable(name, value, evaluate_name):
    try:
        has_children = bool(_children(value))
    except Exception:
        has_children = False
    var = {"name": name, "value": _text(value), "type": type(value).__name__,
           "variablesReference": _registry.add(value, evaluate_name) if has_children else 0}
    if evaluate_name:
        var["evaluateName"] = evaluate_name
    return var


def _inspect_variables(arguments):
    global _registry
    _registry = _Registry()
    namespace = _user_namespace()
    return {"variables": [_variable(name, value, name)
                          for name, value in list(namespace.items())]}


def _page(items, arguments):
    start = arguments.get("start", 0)
    count = arguments.get("count", 0)
    if not isinstance(start, int) or not isinstance(count, int) or start < 0 or count < 0:
        raise ValueError("start and count must be integers >= 0")
    return items[start:start + count] if count else items[start:]


def _variables(arguments):
    value, evaluate_name = _registry.get(arguments.get("variablesReference"))
    variables = []
    for name, child, suffix in _page(_children(value), arguments):
        path = evaluate_name + suffix if evaluate_name and suffix else None
        variables.append(_variable(name, child, path))
    return {"variables": variables}


def rich_format(value):
    """(data, metadata): the MIME bundle of `value`, as the notebook would display it. Also
    evaluated in a stopped frame (kernel-dap.c), its repr read back by _rich_from_text."""
    fmt = getattr(_kernel_module(), "format", None)
    if fmt is not None:
        data, metadata = fmt(value)
    else:
        data, metadata = {"text/plain": repr(value)}, {}
    return data, {k: v for k, v in (metadata or {}).items() if k in data}


def _rich_inspect_variables(arguments):
    name = arguments.get("variableName")
    namespace = _user_namespace()
    if name not in namespace:
        raise NameError("name %r is not defined" % (name,))
    data, metadata = rich_format(namespace[name])
    return {"data": data, "metadata": metadata}


def _rich_from_text(arguments):
    """The repr of rich_format()'s result, evaluated in a stopped frame, read back: a literal
    (never eval: the text is the frame's)."""
    value = ast.literal_eval(arguments["text"])
    if not (isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], dict)
            and isinstance(value[1], dict)):
        raise ValueError("the frame's rich representation is not a (data, metadata) pair")
    data, metadata = value
    return {"data": data, "metadata": {k: v for k, v in metadata.items() if k in data}}


def _source(arguments):
    path = (arguments.get("source") or {}).get("path")
    lines = linecache.getlines(path) if isinstance(path, str) else []
    if not lines:
        raise LookupError("source unavailable")
    return {"content": "".join(lines)}


def _modules(arguments):
    modules = list(sys.modules.values())
    start = arguments.get("startModule", 0)
    count = arguments.get("moduleCount", 0)
    if not isinstance(start, int) or not isinstance(count, int) or start < 0 or count < 0:
        raise ValueError("startModule and moduleCount must be integers >= 0")
    stop = start + count if count else len(modules)
    listed = []
    for i, module in enumerate(modules[start:stop], start):
        origin = getattr(getattr(module, "__spec__", None), "origin", None)
        if isinstance(origin, str) and origin.endswith(".py"):
            listed.append({"id": i, "name": module.__name__, "path": origin})
    return {"modules": listed, "totalModules": len(modules)}


_COMMANDS = {
    "listen": _listen,
    "shutdown": _shutdown,
    "inspectVariables": _inspect_variables,
    "variables": _variables,
    "richInspectVariables": _rich_inspect_variables,
    "richFromText": _rich_from_text,
    "source": _source,
    "modules": _modules,
}


def handle(command, arguments):
    """Runs `command` with `arguments` (a JSON text of an object); returns the JSON text of the
    response's body."""
    _not_traced()
    run = _COMMANDS.get(command)
    if run is None:
        raise ValueError("the debugger has no command %r" % (command,))
    args = json.loads(arguments)
    if not isinstance(args, dict):
        raise TypeError("the arguments are not an object")
    return json.dumps(run(args), default=repr)
