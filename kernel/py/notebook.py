"""The kernel's Python side: IPython's shell behind kernel-py-interp.c.

kernel-py-interp.c creates the module `_trellis_kernel` with the C functions that reach the
running cell's outputs (_display, _result, _clear_output, _payload, _error, _input) and the
cells' file names (_cell_path, _name_cells), and runs this source in it. Cells run through an
IPython InteractiveShell (Debian's python3-ipython), as in any Jupyter kernel for Python:
magics, `!cmd`, `obj?`, the display formatter (every `_repr_*_`, `_repr_mimebundle_`),
`display(..., display_id=True)` and its updates, coloured tracebacks with context, top-level
`await`, `exit`, completion (jedi) and inspection. Its output ends in the C functions: the
shell's display hook (Out[N]) in _result, its display publisher in _display / _clear_output,
its tracebacks in _error, its payloads (pager, set_next_input, ask_exit) in _payload.

IPython takes longer to import than the whole kernel takes to start, so start_loading() only
starts a thread that imports it: the kernel answers kernel_info at once, and the first request
that needs the shell waits for the import (shell()). stdout and stderr are core/py's writers into
the cell's stream messages; the user's namespace is __main__, which core/tf's events and
AutoGraph also see.

Every cursor and offset exchanged with C is a byte offset into the UTF-8 code (kernel-interp.h);
the conversions happen at the edges of complete() and inspect_at().
"""

import builtins
import os
import sys
import threading

import __main__

# Callables run on the main thread at the start of every cell, before its code (the debugger
# uses it to trace the main thread once debugpy listens).
pre_cell_hooks = []

_shell = None
_loader = None
_loaded = {}


def _load():
    """Imports what the shell needs (on the loader thread)."""
    try:
        from IPython.core import interactiveshell  # noqa: F401
        from IPython.core import completer, displayhook, displaypub, oinspect  # noqa: F401
        from IPython.utils import tokenutil  # noqa: F401
        import json  # noqa: F401
        import base64  # noqa: F401
    except BaseException as e:  # reported by shell() on the main thread
        _loaded["error"] = e


def _make_shell():
    import base64
    import json

    from IPython.core import page
    from IPython.core.compilerop import CachingCompiler
    from IPython.core.displayhook import DisplayHook
    from IPython.core.displaypub import DisplayPublisher
    from IPython.core.error import StdinNotImplementedError
    from IPython.core.inputtransformer2 import TransformerManager
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.core.oinspect import Inspector, InspectColors
    from IPython.utils import PyColorize
    from traitlets import Type
    from traitlets.config import Config

    def encode(value):
        """What json cannot encode: images' bytes in base64, anything else as its str."""
        if isinstance(value, (bytes, bytearray)):
            return base64.b64encode(value).decode("ascii")
        return str(value)

    def dumps(value):
        return json.dumps(value, ensure_ascii=False, default=encode)

    class CellCompiler(CachingCompiler):
        """Cells are compiled under the path a debugger computes from their code (see
        kernel-cellfile.h); tracebacks still name them "Cell In[N]" and trace events
        "<cell N>"."""

        last_name = None  # the file name of the cell compiled last

        def get_code_name(self, raw_code, transformed_code, number):
            self.last_name = _cell_path(raw_code)
            return self.last_name

    class CellDisplayHook(DisplayHook):
        """Out[N]: the cell's execute_result."""

        def write_output_prompt(self):
            pass

        def write_format_data(self, format_dict, md_dict=None):
            _result(dumps(format_dict), dumps(md_dict or {}))

        def finish_displayhook(self):
            pass

    class CellDisplayPublisher(DisplayPublisher):
        """display() and its updates: display_data / update_display_data messages."""

        def publish(self, data, metadata=None, source=None, *, transient=None, update=False,
                    **kwargs):
            _display(dumps(data), dumps(metadata or {}), dumps(transient or {}), bool(update))

        def clear_output(self, wait=False):
            _clear_output(bool(wait))

    class CellInspector(Inspector):
        """`f?` of a tf.function also lists its traces (its concrete functions)."""

        def _get_info(self, obj, oname="", formatter=None, info=None, detail_level=0,
                      omit_sections=()):
            bundle = super()._get_info(obj, oname, formatter, info, detail_level, omit_sections)
            traces = _traces(obj)
            if traces is not None and "Traces" not in omit_sections:
                head = "Traces:"
                if self.color_table.active_colors is not None:
                    colors = self.color_table.active_colors
                    head = "%s%s%s" % (colors.header, head, colors.normal)
                bundle["text/plain"] += "%s\n%s\n" % (head, traces)
                if "text/html" in bundle:
                    import html
                    bundle["text/html"] += "<h1>Traces</h1>\n<pre>%s</pre>\n" % html.escape(traces)
            return bundle

    class Shell(InteractiveShell):
        """The kernel's IPython shell."""

        displayhook_class = Type(CellDisplayHook)
        display_pub_class = Type(CellDisplayPublisher)
        compiler_class = Type(CellCompiler)

        def init_inspector(self, changes=None):
            self.inspector = CellInspector(InspectColors, PyColorize.ANSICodeColors,
                                           self.colors, self.object_info_string_level)

        def init_hooks(self):
            super().init_hooks()
            self.set_hook("show_in_pager", page.as_hook(self._page), 99)

        def _page(self, data, start=0, screen_lines=0, pager_cmd=None):
            """`obj?` and %page: the pager payload of execute_reply."""
            if not isinstance(data, dict):
                data = {"text/plain": str(data)}
            self.payload_manager.write_payload({"source": "page", "data": data, "start": start})

        def init_virtualenv(self):
            pass  # the kernel's Python is the one it was built with

        def should_run_async(self, raw_cell, *, transformed_cell=None,
                             preprocessing_exc_tuple=None):
            # Top-level asynchronous code holds `await`, `async for` or `async with`: a cell
            # without either word runs as it is, without one more compilation to find out.
            cell = raw_cell if transformed_cell is None else transformed_cell
            if "await" not in cell and "async" not in cell:
                return False
            return super().should_run_async(raw_cell, transformed_cell=transformed_cell,
                                            preprocessing_exc_tuple=preprocessing_exc_tuple)

        def _showtraceback(self, etype, evalue, stb):
            sys.stdout.flush()
            sys.stderr.flush()
            _reported.append(evalue)
            _error(etype.__name__, str(evalue), list(stb))

        def set_next_input(self, text, replace=False):
            self.payload_manager.write_payload(
                {"source": "set_next_input", "text": text, "replace": bool(replace)})

        def ask_exit(self):
            self.exit_now = True
            self.payload_manager.write_payload({"source": "ask_exit", "keepkernel": False})

        def enable_gui(self, gui=None):
            if gui not in (None, "inline"):
                from IPython.core.error import UsageError
                raise UsageError("the Trellis kernel has no GUI event loop (%s); use %%matplotlib "
                                 "inline" % gui)

    class Transformer(TransformerManager):
        """IPython's static input transformations (prompts, indentation, %magics, !commands,
        `?` help, autocall escapes), which leave a cell without any of that syntax as it is.
        Such a cell, most cells, is returned without the tokenizing that finding out costs
        (a third of an empty cell's run, more for long cells). While any transformation was
        added or removed, every cell goes through IPython's own path."""

        def __init__(self):
            super().__init__()
            self._defaults = (list(self.cleanup_transforms), list(self.line_transforms),
                              list(self.token_transformers))

        def transform_cell(self, cell):
            if self._unchanged(cell):
                return cell if cell.endswith("\n") else cell + "\n"
            return super().transform_cell(cell)

        def _unchanged(self, cell):
            if (self.cleanup_transforms, self.line_transforms,
                    self.token_transformers) != self._defaults:
                return False
            # %, ! and ? start every magic, command and help request (also `a = %x`, `a?`).
            if "%" in cell or "!" in cell or "?" in cell:
                return False
            lines = cell.splitlines()
            # Leading empty lines and a first line's indentation are removed.
            if not lines or not lines[0] or lines[0].isspace() or lines[0][0] in " \t":
                return False
            for i, line in enumerate(lines):
                stripped = line.lstrip()
                if stripped[:1] in ("/", ",", ";"):  # autocall: /f x, ,f a b, ;f a b
                    return False
                # A Python (>>>, ...) or IPython (In [1]:, ...:) prompt on one of the first
                # two lines makes IPython strip prompts from every line.
                if i < 2 and stripped.startswith((">>>", "...", "In [", "[nav]", "[ins]")):
                    return False
            return True

    config = Config()
    config.HistoryManager.enabled = False  # the kernel keeps the history (kernel-history.c)
    shell = Shell.instance(config=config, user_module=__main__, user_ns=__main__.__dict__)
    shell.exit_now = False
    shell.input_transformer_manager = Transformer()
    _name_cells(shell.compile._filename_map)  # cell file -> execution count: "<cell N>"
    # clear_output() without an import, as display() (and as the command line's notebooks).
    from IPython.display import clear_output
    builtins.clear_output = clear_output
    shell._dumps = dumps
    shell._stdin_error = StdinNotImplementedError
    return shell


def shell():
    """The IPython shell, made on first use (waits for the loader thread)."""
    global _shell
    if _shell is None:
        if _loader is not None:
            _loader.join()
        if "error" in _loaded:
            raise _loaded.pop("error")
        _shell = _make_shell()
    return _shell


def _traces(obj):
    """A tf.function's traces as text, or None for any other object."""
    tf = sys.modules.get("tensorflow")
    if tf is None or isinstance(obj, type) or not type(obj).__module__.startswith("tensorflow.") or \
            not hasattr(obj, "pretty_printed_concrete_signatures"):
        return None
    try:
        text = obj.pretty_printed_concrete_signatures()
    except Exception:
        return None
    return text or "(not traced yet: the first call traces it)"


def format(obj):
    """(data, metadata): IPython's MIME bundle of `obj`."""
    return shell().display_formatter.format(obj)


# ---- running cells -------------------------------------------------------------------------


def run(code, silent, store_history, execution_count):
    """Runs one cell; True when it succeeded (its error went to _error otherwise). Payloads
    go to _payload after the cell."""
    sh = shell()
    for hook in pre_cell_hooks:
        hook()
    sh.execution_count = execution_count
    del _reported[:]
    result = sh.run_cell(code, store_history=store_history, silent=silent)
    # IPython queues every input for its SQLite writer, which the kernel does without
    # (kernel-history.c keeps the history): the queue would only grow.
    hm = sh.history_manager
    with hm.db_input_cache_lock:
        del hm.db_input_cache[:]
    # In[] keeps the cell twice, as run and as typed; most cells are the same text both ways.
    if hm.input_hist_parsed and hm.input_hist_parsed[-1] == hm.input_hist_raw[-1]:
        hm.input_hist_parsed[-1] = hm.input_hist_raw[-1]
    _forget_source(sh, code, result)
    payloads = sh.payload_manager.read_payload()
    sh.payload_manager.clear_payload()
    for payload in payloads:
        _payload(sh._dumps(payload))
    if not result.success and not silent:
        error = result.error_before_exec or result.error_in_exec
        if error is not None and not any(e is error for e in _reported):
            _error(type(error).__name__, str(error), [])
    del _reported[:]
    return result.success


# The exceptions whose tracebacks the cell running now reported.
_reported = []

# Words of the code that may leave behind code objects compiled from a cell (functions, classes,
# lambdas, generators and comprehensions, coroutines): their tracebacks and inspect.getsource
# read the cell's lines later.
_MAKES_CODE = ("def", "class", "lambda", "yield", "async", "await", "for")


def _forget_source(sh, code, result):
    """IPython keeps every cell's lines in linecache (for later tracebacks) and its file name in
    the compiler's map, about half a kilobyte a cell for as long as the kernel lives. A cell
    that ran without error and can leave no code object behind (no def, class, lambda,
    comprehension or generator: the words in _MAKES_CODE, looked for conservatively) is in no
    later traceback: its entries go."""
    name = sh.compile.last_name
    sh.compile.last_name = None
    if not name or not result.success or any(word in code for word in _MAKES_CODE):
        return
    import linecache
    linecache.cache.pop(name, None)
    getattr(linecache, "_ipython_cache", {}).pop(name, None)  # IPython's copy of the entry
    sh.compile._filename_map.pop(name, None)


def evaluate(expression):
    """One user_expressions entry: (data, metadata) JSON. Raises what the expression raises."""
    sh = shell()
    value = eval(compile(expression, "<string>", "eval"), sh.user_global_ns, sh.user_ns)
    data, metadata = sh.display_formatter.format(value)
    return sh._dumps(data), sh._dumps(metadata)


# ---- builtins ------------------------------------------------------------------------------


def input(prompt=""):
    """Read a line from the frontend (input_request)."""
    return _read(str(prompt), False, "raw_input")


def getpass(prompt="Password: ", stream=None):
    """Read a password from the frontend (input_request with password=True)."""
    return _read(str(prompt), True, "getpass")


def _read(prompt, password, name):
    line = _input(prompt, password)
    if line is None:
        raise shell()._stdin_error(
            "%s was called, but this frontend does not support input requests." % name)
    return line


def help(*args):
    """Show the signature and documentation of an object in the pager (as `object?`)."""
    if not args:
        print("Type help(object) or object? for help about object.")
        return
    if len(args) > 1:
        raise TypeError("help() takes at most 1 argument (%d given)" % len(args))
    obj = args[0]
    sh = shell()
    if isinstance(obj, str):
        sh.run_line_magic("pinfo", obj)
        return
    name = getattr(obj, "__qualname__", None)
    sh.inspector.pinfo(obj, name if isinstance(name, str) else "", detail_level=0,
                       enable_html_pager=False)


# ---- completion, inspection, is_complete ---------------------------------------------------


def _byte(code, index):
    return len(code[:index].encode("utf-8", "surrogatepass"))


def _index(code, byte):
    return len(code.encode("utf-8", "surrogatepass")[:byte].decode("utf-8", "ignore"))


def complete(code, cursor):
    """(matches, start, end, types_json): completions (jedi's, through IPython) that replace
    code[start:end] (byte offsets), and their types for the reply's metadata."""
    sh = shell()  # first: the loader thread may still be importing IPython
    from IPython.core.completer import provisionalcompleter, rectify_completions

    cursor = _index(code, cursor)
    with provisionalcompleter():
        found = list(rectify_completions(code, sh.Completer.completions(code, cursor)))
    if not found:
        return [], _byte(code, cursor), _byte(code, cursor), "[]"
    start, end = found[0].start, found[0].end
    types = [{"start": c.start, "end": c.end, "text": c.text, "type": c.type,
              "signature": c.signature} for c in found]
    return ([c.text for c in found], _byte(code, start), _byte(code, end), sh._dumps(types))


def inspect_at(code, cursor, detail_level):
    """The MIME bundle (JSON) describing the object at byte `cursor`, or None."""
    sh = shell()  # first: the loader thread may still be importing IPython
    from IPython.utils.tokenutil import token_at_cursor

    name = token_at_cursor(code, _index(code, cursor))
    try:
        bundle = sh.object_inspect_mime(name, detail_level=detail_level)
    except KeyError:
        return None
    if not sh.enable_html_pager:
        bundle.pop("text/html", None)
    return sh._dumps(bundle)


def is_complete(code):
    """("complete" | "incomplete" | "invalid" | "unknown", the next line's indentation)."""
    status, indent = shell().input_transformer_manager.check_complete(code)
    return status, " " * indent if status == "incomplete" and indent is not None else None


# ---- start-up ------------------------------------------------------------------------------


def start_loading():
    """Starts importing IPython on the loader thread (once the kernel's start-up no longer needs
    the GIL: the thread holds it most of the time)."""
    global _loader
    if _loader is None and _shell is None:
        _loader = threading.Thread(target=_load, name="trellis-ipython-loader", daemon=True)
        _loader.start()


def install():
    """Puts the notebook's builtins in place (at start)."""
    builtins.input = input
    builtins.help = help
    import getpass as getpass_module
    getpass_module.getpass = getpass
    # Matplotlib's figures come out inline (as image/png) unless the user chose a backend.
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")


def reset():
    """Forgets every name of the user's namespace (a restart without a new process)."""
    sh = shell()
    sh.reset(new_session=True)
    install()
