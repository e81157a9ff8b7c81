"""The kernel's notebook conveniences, on the Python side of kernel-py-interp.c.

kernel-py-interp.c creates the module `_trellis_kernel` with the C functions that reach the
running cell's outputs (_display, _result, _clear_output, _page, _input) and runs this source in
it; cells themselves run through core/py (tp_run), whose stdout/stderr writer and result
callback end in the same C file. What is easiest said in Python lives here: IPython's MIME
bundles of an object (its _repr_*_ methods), the `display`, `clear_output` and `help` builtins,
`input` and `getpass` through the frontend, `obj?` / `obj??` and inspect_request's description
in IPython's layout, completion over dir(), and is_complete over the compiler's "incomplete
input".

Every cursor and offset exchanged with C is a byte offset into the UTF-8 code (kernel-interp.h);
the conversions happen at the edges of complete() and inspect_at().
"""

import builtins
import getpass as _getpass
import io
import sys

import __main__


class _Lazy:
    """A module imported when first used: the kernel answers kernel_info before it pays for
    modules that only some requests need (inspect, json, re... cost more than Python's start)."""

    def __init__(self, name):
        self._name = name

    def __getattr__(self, attr):
        module = __import__(self._name)
        globals()[self._name] = module
        return getattr(module, attr)


base64 = _Lazy("base64")
inspect = _Lazy("inspect")
json = _Lazy("json")
keyword = _Lazy("keyword")
pkgutil = _Lazy("pkgutil")
re = _Lazy("re")
tokenize = _Lazy("tokenize")
traceback = _Lazy("traceback")

_INCOMPLETE_INPUT = 0x4000  # PyCF_ALLOW_INCOMPLETE_INPUT: "incomplete input" at EOF


# ---- output --------------------------------------------------------------------------------


class _Stdin(io.TextIOBase):
    """sys.stdin: a line comes from the frontend (input_request); close() does nothing, so
    that exit() cannot close the process's descriptor 0."""

    @property
    def name(self):
        return "<stdin>"

    @property
    def encoding(self):
        return "utf-8"

    def readable(self):
        return True

    def readline(self, size=-1):
        return input() + "\n"

    def close(self):
        pass


# ---- MIME bundles --------------------------------------------------------------------------

_RICH = (
    ("_repr_html_", "text/html"),
    ("_repr_markdown_", "text/markdown"),
    ("_repr_svg_", "image/svg+xml"),
    ("_repr_png_", "image/png"),
    ("_repr_jpeg_", "image/jpeg"),
    ("_repr_latex_", "text/latex"),
    ("_repr_json_", "application/json"),
    ("_repr_javascript_", "application/javascript"),
)


def _jsonable(mime, value):
    """A representation as JSON carries it, or None when it is not one (IPython drops those)."""
    if mime in ("image/png", "image/jpeg"):
        if isinstance(value, (bytes, bytearray)):
            return base64.b64encode(value).decode("ascii")
        return value if isinstance(value, str) else None
    if mime == "application/json":
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            return None
        return value
    return value if isinstance(value, str) else None


def _report_formatter_error(method):
    """A broken _repr_*_ does not fail the cell: its traceback goes to stderr (as IPython)."""
    print("Error in %s:" % method, file=sys.stderr)
    traceback.print_exc(file=sys.stderr)


def bundle(obj):
    """(data, metadata) of `obj`: text/plain its repr, plus what its _repr_mimebundle_ and
    _repr_*_ methods give. A class is shown by its repr only (its methods are unbound)."""
    data, metadata = {}, {}
    if not isinstance(obj, type):
        method = getattr(obj, "_repr_mimebundle_", None)
        if callable(method):
            try:
                got = method(include=None, exclude=None)
            except Exception:
                _report_formatter_error("_repr_mimebundle_")
                got = None
            if isinstance(got, tuple) and len(got) == 2:
                got, md = got
                if isinstance(md, dict):
                    metadata.update(md)
            if isinstance(got, dict):
                for mime, value in got.items():
                    value = _jsonable(mime, value) if isinstance(mime, str) else None
                    if value is not None:
                        data[mime] = value
        for name, mime in _RICH:
            if mime in data:
                continue
            method = getattr(obj, name, None)
            if not callable(method):
                continue
            try:
                value = method()
            except Exception:
                _report_formatter_error(name)
                continue
            if isinstance(value, tuple) and len(value) == 2:
                value, md = value
                if isinstance(md, dict):
                    metadata[mime] = md
            value = _jsonable(mime, value)
            if value is not None:
                data[mime] = value
    data["text/plain"] = repr(obj)
    return data, metadata


def _bundle_json(obj):
    data, metadata = bundle(obj)
    return json.dumps(data, ensure_ascii=False), json.dumps(metadata, ensure_ascii=False)


def result(value):
    """The cell's last expression: Out[N] (None shows nothing, as in IPython)."""
    if value is None:
        return
    data, metadata = _bundle_json(value)
    _result(data, metadata)


def evaluate(expression):
    """One user_expressions entry: its bundle's JSON. Raises what the expression raises."""
    code = compile(expression, "<string>", "eval")
    return _bundle_json(eval(code, __main__.__dict__))[0]


# ---- builtins ------------------------------------------------------------------------------


def display(*objs, include=None, exclude=None, metadata=None, transient=None, display_id=None,
            raw=False, clear=False, **kwargs):
    """Display each object in the cell's output (IPython's display, without display ids)."""
    for obj in objs:
        if clear:
            clear_output(wait=True)
        if raw:
            data, md = dict(obj), dict(metadata or {})
        else:
            data, md = bundle(obj)
            if metadata:
                md.update(metadata)
        if include:
            data = {k: v for k, v in data.items() if k in include}
        if exclude:
            data = {k: v for k, v in data.items() if k not in exclude}
        _display(json.dumps(data, ensure_ascii=False), json.dumps(md, ensure_ascii=False))


def clear_output(wait=False):
    """Clear the cell's output, now or (wait=True) when the next output arrives."""
    _clear_output(bool(wait))


def input(prompt=""):
    """Read a line from the frontend (input_request)."""
    return _input(str(prompt), False)


def getpass(prompt="Password: ", stream=None):
    """Read a password from the frontend (input_request with password=True)."""
    return _input(str(prompt), True)


def help(*args):
    """Show the signature and documentation of an object in the pager (as `object?`)."""
    if not args:
        print("Type help(object) or object? for help about object.")
        return
    if len(args) > 1:
        raise TypeError("help() takes at most 1 argument (%d given)" % len(args))
    obj = args[0]
    if isinstance(obj, str):
        found, value = resolve(obj, import_it=True)
        if not found:
            print("No Python documentation found for %r." % obj)
            return
        page(obj, value, 0)
        return
    name = getattr(obj, "__name__" if inspect.ismethod(obj) else "__qualname__", None)
    page(name if isinstance(name, str) else type(obj).__name__, obj, 0)


# ---- names and descriptions ----------------------------------------------------------------

_DOTTED = r"^[^\d\W]\w*(\.[^\d\W]\w*)*$"  # compiled (and cached) by re on first use


def resolve(text, import_it=False, code=None):
    """(found, value) of a dotted name: __main__'s then builtins' names, then attributes. With
    import_it, a module name is imported; with `code`, a module the code imports is too."""
    if not re.match(_DOTTED, text):
        return False, None
    parts = text.split(".")
    namespace = __main__.__dict__
    if parts[0] in namespace:
        value = namespace[parts[0]]
    elif hasattr(builtins, parts[0]):
        value = getattr(builtins, parts[0])
    elif import_it or (code is not None and _imports(code, parts[0])):
        try:
            value = __import__(parts[0])
        except Exception:
            return False, None
    else:
        return False, None
    for part in parts[1:]:
        try:
            value = getattr(value, part)
        except Exception:
            return False, None
    return True, value


def _imports(code, module):
    pattern = r"(^|[\s;])import\s+%s\s*($|[\s;,])" % re.escape(module)
    return re.search(pattern, code, re.MULTILINE) is not None


def _signature(obj):
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return None


def _string_form(obj):
    try:
        text = str(obj)
    except Exception:
        return "<str() failed>"
    return text[:100] + " <...> " + text[-100:] if len(text) > 200 else text


def _source(obj):
    try:
        return inspect.getsource(obj).rstrip("\n")
    except (OSError, TypeError):
        return None


def _file(obj):
    try:
        return inspect.getsourcefile(obj) or inspect.getfile(obj)
    except (OSError, TypeError):
        return None


def describe(name, obj, detail_level):
    """IPython's description of `obj`, named `name` in the code: labels aligned after the
    longest, a multi-line value on the lines after its label."""
    doc = inspect.getdoc(obj) or "<no docstring>"
    type_name = type(obj).__name__
    fields = []
    if isinstance(obj, type):
        sig = _signature(obj)
        if sig:
            fields.append(("Init signature", name + sig))
        fields.append(("Docstring", doc))
        if detail_level > 0:
            fields.append(("Source", _source(obj)))
        fields.append(("File", _file(obj)))
        fields.append(("Type", type_name))
    elif inspect.isroutine(obj) or (inspect.ismethod(obj)):
        sig = _signature(obj)
        if sig:
            fields.append(("Signature", name + sig))
        fields.append(("Docstring", doc))
        if detail_level > 0:
            fields.append(("Source", _source(obj)))
        fields.append(("File", _file(obj)))
        fields.append(("Type", type_name))
    elif callable(obj) and not inspect.ismodule(obj):
        call = getattr(type(obj), "__call__", None)
        sig = _signature(obj) if call is not None else None
        if sig:
            fields.append(("Call signature", name + sig))
        fields.append(("Type", type_name))
        fields.append(("String form", _string_form(obj)))
        fields.append(("Docstring", doc))
    else:
        fields.append(("Type", type_name))
        fields.append(("String form", _string_form(obj)))
        if inspect.ismodule(obj):
            fields.append(("File", _file(obj)))
        elif isinstance(obj, (str, bytes, list, tuple, dict, set, frozenset)):
            fields.append(("Length", str(len(obj))))
        fields.append(("Docstring", doc))
    fields = [(label, value) for label, value in fields if value]
    width = max(len(label) for label, _ in fields) + 1
    lines = []
    for label, value in fields:
        if "\n" in value:
            lines.append("%s:\n%s" % (label, value))
        else:
            lines.append("%s:%s%s" % (label, " " * (width - len(label)), value))
    return "\n".join(lines)


def page(name, obj, detail_level):
    """Sends the description of `obj` to the pager."""
    _page(json.dumps({"text/plain": describe(name, obj, detail_level)}, ensure_ascii=False))


def _is_expression(text):
    try:
        compile(text, "<string>", "eval")
    except (SyntaxError, ValueError):
        return False
    return True


def find_pinfo(code):
    """A cell whose last line is `expr?`, `expr??` or `?expr`: (the line's start as a byte
    offset, the expression, the detail level); None for any other cell."""
    end = len(code.rstrip())
    start = code.rfind("\n", 0, end) + 1
    if start > 0 and code[start:start + 1] in (" ", "\t"):
        return None  # inside a block: an ordinary (invalid) line
    line = code[start:end]
    body = line.rstrip("?")
    marks = len(line) - len(body)
    if marks == 0:
        body = line.lstrip("?")
        marks = len(line) - len(body)
    body = body.strip()
    if marks == 0 or marks > 2 or not body or not _is_expression(body):
        return None
    return _byte(code, start), body, marks - 1


def page_expression(text, detail_level):
    """`expr?`: a dotted name is looked up, any other expression evaluated."""
    found, value = resolve(text)
    if not found and not re.match(_DOTTED, text):
        value, found = eval(compile(text, "<string>", "eval"), __main__.__dict__), True
    if not found:
        print("Object `%s` not found." % text)
        return
    page(text, value, detail_level)


# ---- running cells -------------------------------------------------------------------------


# ---- completion ----------------------------------------------------------------------------

_FROM_IMPORT = r"^\s*from\s+([\w.]+)\s+import\s+(\w+\s*,\s*)*$"
_IMPORT = r"^\s*(import\s+([\w.]+(\s+as\s+\w+)?\s*,\s*)*|from\s+)$"
_module_names = None


def _modules():
    global _module_names
    if _module_names is None:
        names = set(sys.builtin_module_names)
        names.update(name for _, name, _ in pkgutil.iter_modules())
        _module_names = names
    return _module_names | {name.partition(".")[0] for name in sys.modules}


def _attributes(obj):
    try:
        return set(dir(obj))
    except Exception:
        return set()


def _is_name_char(ch):
    return ch == "_" or ch.isalnum()


def _byte(code, index):
    return len(code[:index].encode("utf-8", "surrogatepass"))


def _index(code, byte):
    return len(code.encode("utf-8", "surrogatepass")[:byte].decode("utf-8", "ignore"))


def complete(code, cursor):
    """(matches, start, end): names that replace code[start:end] (byte offsets)."""
    cursor = _index(code, cursor)
    start = cursor
    while start > 0 and _is_name_char(code[start - 1]):
        start -= 1
    if code[start:start + 1].isdigit():
        return [], _byte(code, start), _byte(code, cursor)
    prefix = code[start:cursor]
    before = code[code.rfind("\n", 0, start) + 1:start]
    names = set()
    match = re.match(_FROM_IMPORT, before)
    if match:
        try:
            names = _attributes(__import__(match.group(1), fromlist=["*"]))
        except Exception:
            pass
    elif re.match(_IMPORT, before):
        names = _modules()
    elif start > 0 and code[start - 1] == ".":
        base = start - 1
        while base > 0 and (_is_name_char(code[base - 1]) or code[base - 1] == "."):
            base -= 1
        found, obj = resolve(code[base:start - 1], code=code)
        if found:
            names = _attributes(obj)
    else:
        names = set(__main__.__dict__) | set(dir(builtins)) | set(keyword.kwlist)
    matches = sorted(name for name in names
                     if isinstance(name, str) and name.startswith(prefix)
                     and (prefix.startswith("_") or not name.startswith("_")))
    return matches, _byte(code, start), _byte(code, cursor)


# ---- inspection ----------------------------------------------------------------------------


def _name_at(code, cursor):
    """The dotted name around `cursor`, or the callable of the innermost call the cursor is in
    (IPython's token_at_cursor gives calls the priority); None if none."""
    depth = 0
    for i in range(cursor, 0, -1):
        ch = code[i - 1]
        if ch in ")]}":
            depth += 1
        elif ch in "[{":
            depth -= 1
        elif ch == "(":
            if depth == 0:
                end = i - 1
                while end > 0 and code[end - 1] in " \t":
                    end -= 1
                begin = end
                while begin > 0 and (_is_name_char(code[begin - 1]) or code[begin - 1] == "."):
                    begin -= 1
                if begin < end and not code[begin].isdigit():
                    return code[begin:end]
                break
            depth -= 1
        if depth < 0:
            break
    begin = end = cursor
    while begin > 0 and (_is_name_char(code[begin - 1]) or code[begin - 1] == "."):
        begin -= 1
    while end < len(code) and _is_name_char(code[end]):
        end += 1
    while begin < end and code[begin] == ".":
        begin += 1
    return code[begin:end] if begin < end else None


def inspect_at(code, cursor, detail_level):
    """The description of the object at byte `cursor`, or None."""
    name = _name_at(code, _index(code, cursor))
    if not name:
        return None
    found, value = resolve(name)
    if not found:
        return None
    return describe(name, value, detail_level)


# ---- is_complete ---------------------------------------------------------------------------


def _last_block_indent(code):
    """The indentation of the last logical line when it is inside a block, else None."""
    depth, indents, last = 0, [""], None
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type == tokenize.INDENT:
                indents.append(tok.string)
            elif tok.type == tokenize.DEDENT:
                indents.pop()
            elif tok.type == tokenize.NEWLINE:
                last = indents[-1]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    return last or None


def is_complete(code):
    """("complete" | "incomplete" | "invalid", the next line's indentation)."""
    try:
        compile(code, "<input>", "exec", _INCOMPLETE_INPUT)
    except SyntaxError as e:
        if e.msg == "incomplete input":
            last = code.rstrip("\n").rsplit("\n", 1)[-1]
            indent = last[:len(last) - len(last.lstrip(" \t"))]
            if last.rstrip().endswith(":"):
                indent += "    "
            return "incomplete", indent
        if find_pinfo(code) is not None:
            return "complete", None
        return "invalid", None
    except (ValueError, OverflowError):
        return "invalid", None
    stripped = code.rstrip(" \t")
    if not stripped.endswith("\n\n"):
        indent = _last_block_indent(code)
        if indent:
            return "incomplete", indent
    return "complete", None


# ---- start-up ------------------------------------------------------------------------------


def install():
    """Puts the notebook's builtins and streams in place (at start and after a reset)."""
    builtins.display = display
    builtins.clear_output = clear_output
    builtins.input = input
    builtins.help = help
    _getpass.getpass = getpass
    sys.stdin = _Stdin()


def reset():
    """Forgets every name of __main__ but the module's own dunders."""
    namespace = __main__.__dict__
    keep = {k: namespace[k] for k in ("__name__", "__doc__", "__builtins__", "__loader__",
                                      "__spec__", "__package__") if k in namespace}
    namespace.clear()
    namespace.update(keep)
    install()
