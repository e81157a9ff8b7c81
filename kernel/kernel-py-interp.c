/* kernel-py-interp.c — embedded CPython (core/py) behind the kernel's interface.
 *
 * The kernel process has one Python interpreter (tp_interp_new, with the `tensorflow` module).
 * Cells run through IPython's InteractiveShell, made by py/notebook.py in the built-in module
 * `_trellis_kernel`: magics, the display formatter, coloured tracebacks, completion and
 * inspection are IPython's, as in any Jupyter kernel for Python. The shell's outputs come back
 * through the C functions of `_trellis_kernel` below, which reach the engine's TkCellIO while a
 * cell runs (`io`); outside a cell (user_expressions, completion, inspection) `io` is NULL and
 * every output is dropped. Each execute is one cell of the tf event stream (tp_cell_begin/_end).
 * Cells are compiled under their debugger path (kernel-cellfile.h), which tf's events call
 * "<cell N>" (tf_module_name_files).
 *
 * Stream text is gathered here, per stream, and handed to io->stream at each newline and before
 * any other output (display, result, error, payload, input prompt), so that print('x') is one
 * stream message and the outputs keep their order.
 *
 * Threading. Cells run on the main thread, where CPython delivers KeyboardInterrupt
 * (tp_interrupt, async-signal-safe). Every entry point the engine calls takes the GIL for its
 * own duration (PyGILState_Ensure) and gives it back: between requests no thread holds it, so
 * Python threads (the IPython loader, debugpy's) run while the kernel waits, and the control
 * thread reaches Python (the debug protocol's `debug`) while a cell runs or stops at a
 * breakpoint. The engine's SIGINT handler and control thread call `interrupt`; the debug thread
 * calls `set_eager`, which touches only the tf registry (thread-safe) under `lock`, never
 * Python.
 */
#include "kernel-cellfile.h"
#include "kernel-interp.h"
#include "debugger-py.h"
#include "notebook-py.h"
#include "tf.h"
#include "tp.h"

#include <string.h>

typedef struct {
  TpInterp *tp;
  PyObject *helpers;      /* the _trellis_kernel module (owned) */
  PyObject *debugger;     /* the _trellis_debugger module (owned), made on first use */
  const TkCellIO *io;     /* the running cell's outputs, or NULL: outputs are dropped */
  GString *pending[2];    /* stdout, stderr text not yet handed to io->stream */
  char *language_version; /* "3.11.2", from Py_GetVersion */
  char *banner;
  GMutex lock;            /* guards `registry` (set_eager runs on the debug thread) */
  TrFnRegistry *registry; /* the tf module's Functions and eager switch (owned reference) */
  PyThreadState *main;    /* the main thread's state while no entry point runs */
} TkPy;

/* ---- streams -------------------------------------------------------------------------- */

static void
flush_stream(TkPy *tk, TkStream stream)
{
  GString *text = tk->pending[stream];
  if (text->len > 0 && tk->io)
    tk->io->stream(tk->io->ctx, stream, text->str, text->len);
  g_string_truncate(text, 0);
}

/* Before any output that is not stream text, and at the end of a cell. */
static void
flush_streams(TkPy *tk)
{
  flush_stream(tk, TK_STREAM_STDOUT);
  flush_stream(tk, TK_STREAM_STDERR);
}

/* core/py's writer for sys.stdout and sys.stderr. */
static void
on_write(void *data, TpStream stream, const char *text, gsize len)
{
  TkPy *tk = data;
  if (!tk->io)
    return;
  TkStream s = stream == TP_STDERR ? TK_STREAM_STDERR : TK_STREAM_STDOUT;
  flush_stream(tk, s == TK_STREAM_STDOUT ? TK_STREAM_STDERR : TK_STREAM_STDOUT);
  g_string_append_len(tk->pending[s], text, (gssize)len);
  if (memchr(text, '\n', len))
    flush_stream(tk, s);
}

/* ---- _trellis_kernel: what notebook.py calls ------------------------------------------- */

static TkPy *
module_tk(PyObject *module)
{
  return *(TkPy **)PyModule_GetState(module);
}

/* A JSON text made by notebook.py, as jansson's value; NULL with ValueError set. */
static json_t *
parse_json(PyObject *text)
{
  if (!PyUnicode_Check(text)) {
    PyErr_SetString(PyExc_TypeError, "expected a JSON text");
    return NULL;
  }
  PyObject *utf8 = PyUnicode_AsEncodedString(text, "utf-8", "replace"); /* owned */
  if (!utf8)
    return NULL;
  json_error_t error;
  json_t *j = json_loadb(PyBytes_AS_STRING(utf8), (size_t)PyBytes_GET_SIZE(utf8), 0, &error);
  Py_DECREF(utf8);
  if (!j)
    PyErr_Format(PyExc_ValueError, "bad JSON from the shell: %s", error.text);
  return j;
}

/* An object as the engine wants it (an empty one is NULL: "no metadata"). */
static json_t *
nonempty(json_t *object)
{
  return json_object_size(object) ? object : NULL;
}

/* _display(data_json, metadata_json, transient_json, update): display_data or
 * update_display_data. */
static PyObject *
helpers_display(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
  if (nargs != 4) {
    PyErr_SetString(PyExc_TypeError, "expected (data, metadata, transient, update)");
    return NULL;
  }
  g_autoptr(json_t) data = parse_json(args[0]);
  g_autoptr(json_t) metadata = data ? parse_json(args[1]) : NULL;
  g_autoptr(json_t) transient = metadata ? parse_json(args[2]) : NULL;
  int update = transient ? PyObject_IsTrue(args[3]) : -1;
  if (update < 0)
    return NULL;
  TkPy *tk = module_tk(module);
  flush_streams(tk);
  if (tk->io && json_is_object(data))
    tk->io->display(tk->io->ctx, data, nonempty(metadata), nonempty(transient), update);
  Py_RETURN_NONE;
}

/* _result(data_json, metadata_json): the cell's execute_result. */
static PyObject *
helpers_result(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
  if (nargs != 2) {
    PyErr_SetString(PyExc_TypeError, "expected (data, metadata)");
    return NULL;
  }
  g_autoptr(json_t) data = parse_json(args[0]);
  g_autoptr(json_t) metadata = data ? parse_json(args[1]) : NULL;
  if (!metadata)
    return NULL;
  TkPy *tk = module_tk(module);
  flush_streams(tk);
  if (tk->io && json_is_object(data))
    tk->io->result(tk->io->ctx, data, nonempty(metadata));
  Py_RETURN_NONE;
}

static PyObject *
helpers_clear_output(PyObject *module, PyObject *wait)
{
  TkPy *tk = module_tk(module);
  int w = PyObject_IsTrue(wait);
  if (w < 0)
    return NULL;
  flush_streams(tk);
  if (tk->io)
    tk->io->clear_output(tk->io->ctx, w);
  Py_RETURN_NONE;
}

static PyObject *
helpers_payload(PyObject *module, PyObject *text)
{
  g_autoptr(json_t) payload = parse_json(text);
  if (!payload)
    return NULL;
  TkPy *tk = module_tk(module);
  flush_streams(tk);
  if (tk->io && json_is_object(payload))
    tk->io->payload(tk->io->ctx, payload);
  Py_RETURN_NONE;
}

/* _error(ename, evalue, traceback_lines): an error message with IPython's traceback. */
static PyObject *
helpers_error(PyObject *module, PyObject *args)
{
  const char *ename, *evalue;
  PyObject *lines;
  if (!PyArg_ParseTuple(args, "ssO!:_error", &ename, &evalue, &PyList_Type, &lines))
    return NULL;
  Py_ssize_t n = PyList_GET_SIZE(lines);
  g_autofree const char **traceback = g_new0(const char *, n + 1);
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *line = PyList_GET_ITEM(lines, i); /* borrowed */
    if (!PyUnicode_Check(line) || !(traceback[i] = PyUnicode_AsUTF8(line)))
      return PyErr_Occurred() ? NULL : PyErr_Format(PyExc_TypeError, "traceback lines are str");
  }
  TkPy *tk = module_tk(module);
  flush_streams(tk);
  if (tk->io)
    tk->io->error(tk->io->ctx, ename, evalue, traceback, (size_t)n);
  Py_RETURN_NONE;
}

/* _input(prompt, password): a line from the frontend; None when the request did not allow
 * stdin (notebook.py raises StdinNotImplementedError). Outside a cell there is no frontend to
 * ask: the end of the input (EOFError, as CPython's input() at the end of its stdin). An
 * interrupt while waiting is a KeyboardInterrupt. The GIL is released while waiting. */
static PyObject *
helpers_input(PyObject *module, PyObject *args)
{
  const char *prompt;
  int password;
  if (!PyArg_ParseTuple(args, "sp:_input", &prompt, &password))
    return NULL;
  TkPy *tk = module_tk(module);
  flush_streams(tk);
  if (!tk->io || !tk->io->input) {
    PyErr_SetString(PyExc_EOFError, "EOF when reading a line");
    return NULL;
  }
  g_autofree char *ename = NULL;
  g_autofree char *evalue = NULL;
  g_autofree char *line = NULL;
  const TkCellIO *io = tk->io;
  Py_BEGIN_ALLOW_THREADS;
  line = io->input(io->ctx, prompt, password, &ename, &evalue);
  Py_END_ALLOW_THREADS;
  if (line)
    return PyUnicode_DecodeUTF8(line, (Py_ssize_t)strlen(line), "replace");
  if (g_strcmp0(ename, "StdinNotImplementedError") == 0)
    Py_RETURN_NONE;
  if (g_strcmp0(ename, "KeyboardInterrupt") == 0)
    PyErr_SetNone(PyExc_KeyboardInterrupt);
  else
    PyErr_SetString(PyExc_EOFError, "EOF when reading a line");
  return NULL;
}

/* _cell_path(code): the file a cell with this code is compiled under. */
static PyObject *
helpers_cell_path(PyObject *module, PyObject *code)
{
  const char *text = PyUnicode_Check(code) ? PyUnicode_AsUTF8(code) : NULL;
  if (!text)
    return PyErr_Occurred() ? NULL : PyErr_Format(PyExc_TypeError, "expected the cell's code");
  g_autofree char *path = tk_cell_path(text);
  return PyUnicode_FromString(path);
}

/* _name_cells(names): call sites in files that `names` (IPython's map of cell files to
 * execution counts) maps to N are named "<cell N>" in events. */
static PyObject *
helpers_name_cells(PyObject *module, PyObject *names)
{
  if (!PyDict_Check(names))
    return PyErr_Format(PyExc_TypeError, "expected a dict");
  tf_module_name_files(tp_interp_tf(module_tk(module)->tp), names);
  Py_RETURN_NONE;
}

static PyMethodDef helpers_methods[] = {
    {"_display", (PyCFunction)(void (*)(void))helpers_display, METH_FASTCALL,
     "_display(data_json, metadata_json, transient_json, update): display_data."},
    {"_result", (PyCFunction)(void (*)(void))helpers_result, METH_FASTCALL,
     "_result(data_json, metadata_json): the cell's execute_result."},
    {"_clear_output", helpers_clear_output, METH_O, "_clear_output(wait)"},
    {"_payload", helpers_payload, METH_O, "_payload(json): an execute_reply payload."},
    {"_error", helpers_error, METH_VARARGS, "_error(ename, evalue, lines): an error message."},
    {"_input", helpers_input, METH_VARARGS, "_input(prompt, password): a line from the frontend."},
    {"_cell_path", helpers_cell_path, METH_O, "_cell_path(code): the cell's file name."},
    {"_name_cells", helpers_name_cells, METH_O, "_name_cells(names): events' names of cell files."},
    {NULL},
};

static struct PyModuleDef helpers_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_trellis_kernel",
    .m_doc = "The Trellis kernel's IPython shell and what it reaches of the kernel.",
    .m_size = sizeof(TkPy *),
    .m_methods = helpers_methods,
};

/* The _trellis_kernel module with notebook.py run in it, registered in sys.modules. New
 * reference, or NULL with an exception set. */
static PyObject *
helpers_new(TkPy *tk)
{
  PyObject *module = PyModule_Create(&helpers_def); /* owned */
  if (!module)
    return NULL;
  *(TkPy **)PyModule_GetState(module) = tk;
  PyObject *dict = PyModule_GetDict(module);    /* borrowed */
  PyObject *code = tf_py_code(&tk_notebook_py); /* owned */
  PyObject *ran = NULL;
  if (code && PyDict_SetItemString(dict, "__builtins__", PyEval_GetBuiltins()) == 0)
    ran = PyEval_EvalCode(code, dict, dict);
  Py_XDECREF(code);
  if (!ran || PyDict_SetItemString(PyImport_GetModuleDict(), "_trellis_kernel", module) < 0) {
    Py_XDECREF(ran);
    Py_DECREF(module);
    return NULL;
  }
  Py_DECREF(ran);
  return module;
}

/* Logs the pending exception (the kernel's log, not the cell's stderr) under `what`; a
 * KeyboardInterrupt at a bad time is not logged. */
static void
log_exception(const char *what)
{
  g_autoptr(TpException) exc = tp_exception_fetch();
  if (exc && g_strcmp0(exc->name, "KeyboardInterrupt") != 0)
    for (char **line = exc->lines; *line; line++)
      g_printerr("trellis-kernel: %s: %s\n", what, *line);
}

/* helpers.NAME(args...) for its result; NULL with the exception cleared and logged: a bug in
 * notebook.py, or an object whose dir() or repr raised. */
static PyObject *
call_helper(TkPy *tk, const char *name, const char *format, ...)
{
  va_list ap;
  va_start(ap, format);
  PyObject *args = Py_VaBuildValue(format, ap); /* owned: a tuple (format is "(...)") */
  va_end(ap);
  PyObject *fn = args ? PyObject_GetAttrString(tk->helpers, name) : NULL; /* owned */
  PyObject *r = fn ? PyObject_CallObject(fn, args) : NULL;                /* owned */
  Py_XDECREF(args);
  Py_XDECREF(fn);
  if (!r)
    log_exception(name);
  return r;
}

/* A module named `name` made of embedded `source` and registered in sys.modules. New
 * reference, or NULL with an exception set. */
static PyObject *
embedded_module(const char *name, const TfPyCode *source)
{
  PyObject *module = PyModule_New(name); /* owned */
  if (!module)
    return NULL;
  PyObject *dict = PyModule_GetDict(module); /* borrowed */
  PyObject *code = tf_py_code(source);       /* owned */
  PyObject *ran = NULL;
  if (code && PyDict_SetItemString(dict, "__builtins__", PyEval_GetBuiltins()) == 0 &&
      PyDict_SetItemString(PyImport_GetModuleDict(), name, module) == 0)
    ran = PyEval_EvalCode(code, dict, dict);
  Py_XDECREF(code);
  if (!ran) {
    PyObject *type, *value, *traceback; /* owned */
    PyErr_Fetch(&type, &value, &traceback);
    if (PyDict_DelItemString(PyImport_GetModuleDict(), name) < 0)
      PyErr_Clear();
    PyErr_Restore(type, value, traceback);
    Py_DECREF(module);
    return NULL;
  }
  Py_DECREF(ran);
  return module;
}

/* ---- the interface -------------------------------------------------------------------- */

/* Reports the pending exception through io->error: one that escaped the shell itself (IPython
 * failed to load, an interrupt before the cell's code started). */
static void
report_exception(TkPy *tk, const TkCellIO *io)
{
  g_autoptr(TpException) exc = tp_exception_fetch();
  flush_streams(tk);
  if (!exc) {
    const char *lines[] = {"RuntimeError: the cell failed without an exception"};
    io->error(io->ctx, "RuntimeError", "the cell failed without an exception", lines, 1);
    return;
  }
  io->error(io->ctx, exc->name, exc->message, (const char *const *)exc->lines,
            g_strv_length(exc->lines));
}

static TkExecStatus
py_execute(void *self, const TkCell *cell, const TkCellIO *io)
{
  TkPy *tk = self;
  PyGILState_STATE gil = PyGILState_Ensure();
  tk->io = io;
  tp_cell_begin(tk->tp, cell->silent ? 0 : cell->execution_count, cell->code, -1);
  PyObject *run = PyObject_GetAttrString(tk->helpers, "run"); /* owned */
  PyObject *args =
      Py_BuildValue("(sNNi)", cell->code, PyBool_FromLong(cell->silent),
                    PyBool_FromLong(cell->store_history), cell->execution_count); /* owned */
  PyObject *r = run && args ? tp_call(tk->tp, run, args) : NULL;                  /* owned */
  Py_XDECREF(run);
  Py_XDECREF(args);
  int ok = r ? PyObject_IsTrue(r) : -1;
  Py_XDECREF(r);
  if (ok < 0)
    report_exception(tk, io);
  flush_streams(tk);
  tp_cell_end(tk->tp, ok > 0);
  tk->io = NULL;
  PyGILState_Release(gil);
  return ok > 0 ? TK_EXEC_OK : TK_EXEC_ERROR;
}

static json_t *
py_evaluate(void *self, const char *expression, char **ename, char **evalue)
{
  TkPy *tk = self;
  PyGILState_STATE gil = PyGILState_Ensure();
  const TkCellIO *saved = tk->io;
  tk->io = NULL; /* must not print */
  json_t *bundle = NULL;
  PyObject *r = PyObject_CallMethod(tk->helpers, "evaluate", "s", expression); /* owned */
  if (r && PyTuple_Check(r) && PyTuple_GET_SIZE(r) == 2)
    bundle = parse_json(PyTuple_GET_ITEM(r, 0));
  Py_XDECREF(r);
  if (!bundle) {
    g_autoptr(TpException) exc = tp_exception_fetch();
    *ename = g_strdup(exc ? exc->name : "RuntimeError");
    *evalue = g_strdup(exc ? exc->message : "");
  }
  g_string_truncate(tk->pending[TK_STREAM_STDOUT], 0);
  g_string_truncate(tk->pending[TK_STREAM_STDERR], 0);
  tk->io = saved;
  PyGILState_Release(gil);
  return bundle;
}

static void
py_complete(void *self, const char *code, size_t cursor, TkCompletion *out)
{
  TkPy *tk = self;
  PyGILState_STATE gil = PyGILState_Ensure();
  out->start = out->end = cursor;
  PyObject *r = call_helper(tk, "complete", "(sn)", code, (Py_ssize_t)cursor); /* owned */
  PyObject *matches, *types;
  Py_ssize_t start, end;
  if (r && PyArg_ParseTuple(r, "O!nnU", &PyList_Type, &matches, &start, &end, &types)) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(matches); i++) {
      const char *name = PyUnicode_AsUTF8(PyList_GET_ITEM(matches, i));
      if (name)
        g_ptr_array_add(out->matches, g_strdup(name));
      else
        PyErr_Clear(); /* a name with a lone surrogate: not something to type */
    }
    out->start = (size_t)start;
    out->end = (size_t)end;
    out->types = parse_json(types);
  }
  PyErr_Clear();
  Py_XDECREF(r);
  PyGILState_Release(gil);
}

static json_t *
py_inspect(void *self, const char *code, size_t cursor, int detail_level)
{
  TkPy *tk = self;
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject *r = call_helper(tk, "inspect_at", "(sni)", code, (Py_ssize_t)cursor, detail_level);
  json_t *bundle = r && r != Py_None ? parse_json(r) : NULL;
  PyErr_Clear();
  Py_XDECREF(r);
  PyGILState_Release(gil);
  return bundle;
}

static TkCompleteness
py_is_complete(void *self, const char *code, char **indent)
{
  TkPy *tk = self;
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject *r = call_helper(tk, "is_complete", "(s)", code); /* owned */
  const char *status, *next_indent;
  TkCompleteness c = TK_UNKNOWN;
  if (r && PyArg_ParseTuple(r, "sz", &status, &next_indent)) {
    if (strcmp(status, "complete") == 0) {
      c = TK_COMPLETE;
    } else if (strcmp(status, "invalid") == 0) {
      c = TK_INVALID;
    } else if (strcmp(status, "incomplete") == 0) {
      c = TK_INCOMPLETE;
      *indent = g_strdup(next_indent ? next_indent : "");
    }
  }
  PyErr_Clear();
  Py_XDECREF(r);
  PyGILState_Release(gil);
  return c;
}

static void
py_interrupt(void *self)
{
  tp_interrupt(); /* async-signal-safe: CPython's interrupt flag and tf's */
}

static void
py_reset(void *self)
{
  TkPy *tk = self;
  PyGILState_STATE gil = PyGILState_Ensure();
  /* run_functions_eagerly is the process's setting in TensorFlow: the registry keeps it. */
  Py_XDECREF(call_helper(tk, "reset", "()"));
  PyGILState_Release(gil);
}

static void
py_use_events(void *self, TrEventBus *bus)
{
  TkPy *tk = self;
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject *tf = tp_interp_tf(tk->tp);
  if (!tf_module_use_event_bus(tf, bus))
    g_warning("trellis-kernel: the session used tf before the kernel's event bus was set");
  /* The module made a new registry on the new bus: the eager switch is that one now. */
  g_mutex_lock(&tk->lock);
  g_clear_pointer(&tk->registry, tr_fn_registry_unref);
  tk->registry = tr_fn_registry_ref(tf_module_get_registry(tf));
  g_mutex_unlock(&tk->lock);
  /* The engine's last use of Python before it serves requests: IPython may load now. */
  Py_XDECREF(call_helper(tk, "start_loading", "()"));
  PyGILState_Release(gil);
}

static void
py_set_eager(void *self, bool on)
{
  TkPy *tk = self;
  g_mutex_lock(&tk->lock);
  if (tk->registry)
    tr_fn_registry_set_run_eagerly(tk->registry, on);
  g_mutex_unlock(&tk->lock);
}

/* Whether a frame's file is the debugger's own (pydevd's, debugpy's) or the thread machinery
 * under it: not where the user's program stopped. */
static bool
debugger_file(const char *file)
{
  static const char *const parts[] = {"/debugpy/", "/_pydevd", "/pydevd", "/pydev_",
                                      "threading.py"};
  for (size_t i = 0; i < G_N_ELEMENTS(parts); i++)
    if (strstr(file, parts[i]))
      return true;
  return false;
}

/* "tf_stopped" {reason, description}: the main thread stopped in the debugger; emits
 * debugger_stopped at its innermost frame of the user's code (the stopped thread's stack,
 * read here rather than asked of debugpy). Returns true, or false with an exception set. */
static bool
debug_stopped(TkPy *tk, json_t *arguments)
{
  const char *reason = json_string_value(json_object_get(arguments, "reason"));
  const char *description = json_string_value(json_object_get(arguments, "description"));
  PyObject *frames = _PyThread_CurrentFrames(); /* owned: thread id -> innermost frame */
  if (!frames)
    return false;
  PyObject *key = PyLong_FromUnsignedLong(tk->main->thread_id); /* owned */
  PyFrameObject *frame = key ? (PyFrameObject *)PyDict_GetItemWithError(frames, key) : NULL;
  Py_XDECREF(key);
  const char *file = NULL, *function = NULL;
  int line = 0;
  PyCodeObject *code = NULL; /* owned, keeps `file` and `function` alive */
  for (Py_XINCREF(frame); frame;) {
    code = PyFrame_GetCode(frame);
    const char *f = PyUnicode_AsUTF8(code->co_filename);
    if (f && !debugger_file(f)) {
      file = f;
      function = PyUnicode_AsUTF8(code->co_name);
      line = PyFrame_GetLineNumber(frame);
      Py_DECREF(frame);
      break;
    }
    Py_CLEAR(code);
    PyFrameObject *back = PyFrame_GetBack(frame); /* owned */
    Py_DECREF(frame);
    frame = back;
  }
  PyErr_Clear(); /* a name that is not UTF-8 is left out */
  tf_module_emit_debugger_stopped(tp_interp_tf(tk->tp), reason, file, line, function, description);
  Py_XDECREF(code);
  Py_DECREF(frames);
  return true;
}

/* "tf_breakpoints" {path, lines: [int]}: the breakpoints of one file, for tf's cached calls
 * (tf_module_set_breakpoints); no path: every file's are gone. */
static bool
debug_breakpoints(TkPy *tk, json_t *arguments)
{
  const char *path = json_string_value(json_object_get(arguments, "path"));
  json_t *lines = json_object_get(arguments, "lines");
  size_t n = path && json_is_array(lines) ? json_array_size(lines) : 0;
  g_autofree int *values = g_new0(int, n + 1);
  for (size_t i = 0; i < n; i++)
    values[i] = (int)json_integer_value(json_array_get(lines, i));
  tf_module_set_breakpoints(tp_interp_tf(tk->tp), path, values, n);
  return true;
}

/* The debug protocol's Python side: py/debugger.py's handle(command, arguments_json), and the
 * commands that reach core/tf (tf_stopped, tf_continued, tf_breakpoints: see tf.h). */
static json_t *
py_debug(void *self, const char *command, json_t *arguments, char **message)
{
  TkPy *tk = self;
  g_autofree char *text = json_dumps(arguments, JSON_COMPACT | JSON_ENCODE_ANY);
  PyGILState_STATE gil = PyGILState_Ensure();
  if (g_str_has_prefix(command, "tf_")) {
    bool ok = false;
    if (strcmp(command, "tf_stopped") == 0)
      ok = debug_stopped(tk, arguments);
    else if (strcmp(command, "tf_continued") == 0)
      ok = (tf_module_emit_debugger_continued(tp_interp_tf(tk->tp)), true);
    else if (strcmp(command, "tf_breakpoints") == 0)
      ok = debug_breakpoints(tk, arguments);
    else
      *message = g_strdup_printf("no such command: %s", command);
    if (!ok && !*message) {
      g_autoptr(TpException) exc = tp_exception_fetch();
      *message = g_strdup_printf("%s: %s", exc ? exc->name : "?", exc ? exc->message : "?");
    }
    PyGILState_Release(gil);
    return ok ? json_null() : NULL;
  }
  if (!tk->debugger)
    tk->debugger = embedded_module("_trellis_debugger", &tk_debugger_py);
  PyObject *r = tk->debugger
                    ? PyObject_CallMethod(tk->debugger, "handle", "ss", command, text ? text : "{}")
                    : NULL; /* owned */
  json_t *result = r ? parse_json(r) : NULL;
  Py_XDECREF(r);
  if (!result) {
    g_autoptr(TpException) exc = tp_exception_fetch();
    *message =
        exc ? g_strdup_printf("%s: %s", exc->name, exc->message) : g_strdup("the debugger failed");
  }
  PyGILState_Release(gil);
  return result;
}

static void
py_free(void *self)
{
  TkPy *tk = self;
  PyEval_RestoreThread(tk->main);
  Py_CLEAR(tk->debugger);
  Py_CLEAR(tk->helpers);
  tp_interp_free(tk->tp);
  tk_cell_dir_remove();
  g_mutex_lock(&tk->lock);
  g_clear_pointer(&tk->registry, tr_fn_registry_unref);
  g_mutex_unlock(&tk->lock);
  g_mutex_clear(&tk->lock);
  g_string_free(tk->pending[0], TRUE);
  g_string_free(tk->pending[1], TRUE);
  g_free(tk->language_version);
  g_free(tk->banner);
  g_free(tk);
}

gboolean
tk_py_interp_init(TkInterp *interp, GError **error)
{
  g_autofree TkPy *tk = g_new0(TkPy, 1);
  /* The engine owns SIGINT (signal-mode interrupts call py_interrupt). */
  const TpConfig config = {.path0 = "", .write = on_write, .data = tk};
  tk->tp = tp_interp_new(&config, error);
  if (!tk->tp)
    return FALSE;
  tk->helpers = helpers_new(tk);
  PyObject *installed = tk->helpers ? call_helper(tk, "install", "()") : NULL;
  if (!installed) {
    g_set_error(error, TP_INTERP_ERROR, 0, "the kernel's Python helpers failed (logged above)");
    Py_CLEAR(tk->helpers);
    tp_interp_free(tk->tp);
    return FALSE;
  }
  Py_DECREF(installed);
  g_mutex_init(&tk->lock);
  tk->registry = tr_fn_registry_ref(tf_module_get_registry(tp_interp_tf(tk->tp)));
  tk->pending[0] = g_string_new(NULL);
  tk->pending[1] = g_string_new(NULL);
  const char *version = Py_GetVersion(); /* "3.11.2 (main, ...) [GCC ...]" */
  tk->language_version = g_strndup(version, strcspn(version, " "));
  tk->banner = g_strdup_printf("Trellis %s — traced functions, shown (Python %s)", TK_VERSION,
                               tk->language_version);
  *interp = (TkInterp){
      .self = tk,
      .language_version = tk->language_version,
      .implementation_version = TK_VERSION,
      .banner = tk->banner,
      .execute = py_execute,
      .evaluate = py_evaluate,
      .complete = py_complete,
      .inspect = py_inspect,
      .is_complete = py_is_complete,
      .interrupt = py_interrupt,
      .reset = py_reset,
      .use_events = py_use_events,
      .set_eager = py_set_eager,
      .debug = py_debug,
      .free = py_free,
  };
  /* From here on no thread holds the GIL between the engine's calls (see the top). */
  tk->main = PyEval_SaveThread();
  g_steal_pointer(&tk);
  return TRUE;
}
