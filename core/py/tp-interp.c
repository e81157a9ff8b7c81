/* tp-interp.c — starting CPython for Trellis's programs and running units of source in it.
 *
 * Start-up is `python3 -E` done by hand: Debian's libpython3.11 configured as Debian's
 * /usr/bin/python3 (its sys.path, site and dist-packages, sys.executable) but deaf to the
 * environment's PYTHON* variables (another Python on PATH must not leak in), with the
 * `tensorflow` module of core/tf registered as a built-in and imported. Nothing else is
 * imported: `trellis -c pass` should cost what `python3 -c pass` does.
 *
 * A unit is compiled under its file name and run in __main__, as CPython runs a script; in
 * display mode its last expression statement is compiled apart in 'eval' mode, and its value
 * goes to the host (IPython's "last_expr"). Cells bracket units with cell_start / cell_end on
 * tf's event bus.
 */
#include "tp-private.h"

#include "tf.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

G_DEFINE_QUARK(tp-interp-error-quark, tp_interp_error);

struct TpInterp {
  TpWriteFunc write;           /* the host's output callback, or NULL (Python's own streams) */
  TpDisplayFunc display;       /* the host's display callback, or NULL (sys.displayhook) */
  void *data;                  /* their argument */
  PyObject *tf;                /* the `tensorflow` module (strong) */
  PyObject *globals;           /* __main__.__dict__ (strong) */
  PyObject *writer_type;       /* the stream writer type when capturing (strong), else NULL */
  unsigned long main_thread;   /* the thread that started Python */
  atomic_ulong running_thread; /* the thread inside tp_run, 0 when none */
  bool in_cell;                /* between tp_cell_begin and tp_cell_end */
  gint64 cell;                 /* the open cell's execution count */
  gint64 cell_start_ns;        /* bus time of its cell_start */
};

/* CPython has one main interpreter per process; a second start-up is refused. */
static TpInterp *the_interp;

/* ---- interrupts ---------------------------------------------------------------------------- */

/* The thread that started Python, which runs its signal handlers, and whether it may be
 * woken (set once at start-up, before any tp_interrupt). */
static pthread_t main_pthread;
static volatile sig_atomic_t wake_installed;

/* A request from another thread sends the main thread this signal. Its handler, on the main
 * thread, trips SIGINT again: CPython 3.11 sets its eval breaker for a tripped signal only
 * when the thread tripping it may handle signals, so a loop of the main thread would not see
 * a request tripped elsewhere; and a blocking call (time.sleep, a read) fails with EINTR (no
 * SA_RESTART), so that Python checks its signals. */
#define TP_WAKE_SIGNAL (SIGRTMIN + 3)

static void
on_wake(int signum)
{
  int saved = errno;
  PyErr_SetInterruptEx(SIGINT); /* async-signal-safe */
  errno = saved;
}

void
tp_interrupt(void)
{
  tf_interrupt_request();
  PyErr_SetInterruptEx(SIGINT);
  if (wake_installed && !pthread_equal(pthread_self(), main_pthread))
    pthread_kill(main_pthread, TP_WAKE_SIGNAL);
}

/* Whether tp_interrupt_thread may have left an asynchronous KeyboardInterrupt pending. */
static atomic_bool async_sent;
/* A Python function that does nothing (`lambda: None`), made at start-up. */
static PyObject *noop;

void
tp_interrupt_thread(TpInterp *interp)
{
  g_return_if_fail(interp != NULL);
  tf_interrupt_request();
  PyGILState_STATE gil = PyGILState_Ensure();
  unsigned long thread = atomic_load(&interp->running_thread);
  if (thread == interp->main_thread)
    tp_interrupt(); /* also cuts a time.sleep short */
  else if (thread != 0 && PyThreadState_SetAsyncExc(thread, PyExc_KeyboardInterrupt) > 0)
    atomic_store(&async_sent, true);
  PyGILState_Release(gil);
}

static void
on_sigint(int signum)
{
  int saved = errno;
  tp_interrupt();
  errno = saved;
}

/* Requests made while no unit ran belong to no unit: a late Ctrl-C must not stop the next. */
static void
drop_stale_interrupts(void)
{
  tf_interrupt_clear();
  (void)PyOS_InterruptOccurred(); /* clears a tripped SIGINT (main thread only) */
  if (!atomic_exchange(&async_sent, false) || !noop)
    return;
  /* An asynchronous exception may still wait for this thread. PyThreadState_SetAsyncExc(id,
   * NULL) would drop it but leave the interpreter's eval breaker set for good (CPython 3.11
   * clears it only when it raises one): every call and loop would take the slow path, and a
   * profiler or tracer would spin on it. So one is made pending for sure, raised by a Python
   * function that does nothing, and dropped. */
  PyThreadState_SetAsyncExc(PyThread_get_thread_ident(), PyExc_KeyboardInterrupt);
  PyObject *r = PyObject_CallNoArgs(noop); /* owned */
  if (r)
    Py_DECREF(r);
  else
    PyErr_Clear();
}

/* ---- start-up ------------------------------------------------------------------------------ */

static bool
status_ok(PyStatus status, GError **error)
{
  if (!PyStatus_Exception(status))
    return true;
  g_set_error(error, TP_INTERP_ERROR, 0, "Python could not start: %s%s%s",
              status.func ? status.func : "", status.func ? ": " : "",
              status.err_msg ? status.err_msg : "unknown error");
  return false;
}

/* Initialises the runtime as /usr/bin/python3 -E with `argv` as sys.argv. */
static bool
start_python(const TpConfig *config, GError **error)
{
  PyPreConfig preconfig;
  PyPreConfig_InitPythonConfig(&preconfig);
  preconfig.use_environment = 0;
#if defined(__SANITIZE_ADDRESS__)
  /* Every object from malloc, where AddressSanitizer checks it and LeakSanitizer sees the
   * pointers it holds (pymalloc's arenas are mmap'd memory that LeakSanitizer does not scan). */
  preconfig.allocator = PYMEM_ALLOCATOR_MALLOC;
#endif
  if (!status_ok(Py_PreInitialize(&preconfig), error))
    return false;

  if (PyImport_AppendInittab("tensorflow", PyInit_tensorflow) < 0) {
    g_set_error_literal(error, TP_INTERP_ERROR, 0, "can't register the tensorflow module");
    return false;
  }

  PyConfig pyconfig;
  PyConfig_InitPythonConfig(&pyconfig);
  pyconfig.use_environment = 0;
  pyconfig.parse_argv = 0;
  /* Always: SIGPIPE ignored as Python programs expect, and default_int_handler as SIGINT's
   * Python handler, which tp_interrupt's PyErr_SetInterruptEx raises through. */
  pyconfig.install_signal_handlers = 1;
  /* Debian's interpreter: its prefix, sys.path and sys.executable (subprocesses that run
   * sys.executable get a Python, not Trellis). */
  static const char *const empty_argv[] = {"", NULL};
  const char *const *argv = config->argv && config->argv[0] ? config->argv : empty_argv;
  Py_ssize_t argc = (Py_ssize_t)g_strv_length((char **)argv);
  bool ok =
      status_ok(PyConfig_SetBytesString(&pyconfig, &pyconfig.program_name, TP_PYTHON_EXECUTABLE),
                error) &&
      status_ok(PyConfig_SetBytesArgv(&pyconfig, argc, (char *const *)argv), error) &&
      status_ok(Py_InitializeFromConfig(&pyconfig), error);
  PyConfig_Clear(&pyconfig);
  return ok;
}

/* sys.path[0] = path0. */
static bool
insert_path0(const char *path0)
{
  PyObject *path = PySys_GetObject("path");          /* borrowed */
  PyObject *item = PyUnicode_DecodeFSDefault(path0); /* owned */
  bool ok = path && item && PyList_Insert(path, 0, item) == 0;
  Py_XDECREF(item);
  return ok;
}

static bool
capture_streams(TpInterp *interp)
{
  interp->writer_type = tp_writer_type_new();
  if (!interp->writer_type)
    return false;
  static const struct {
    const char *name;
    TpStream stream;
  } streams[] = {{"stdout", TP_STDOUT}, {"stderr", TP_STDERR}};
  for (gsize i = 0; i < G_N_ELEMENTS(streams); i++) {
    PyObject *w = tp_writer_new(interp->writer_type, streams[i].stream, interp->write,
                                interp->data); /* owned */
    bool ok = w && PySys_SetObject(streams[i].name, w) == 0;
    Py_XDECREF(w);
    if (!ok)
      return false;
  }
  return true;
}

/* What start-up does once the runtime is up. Returns false with an exception set. */
static bool
set_up(TpInterp *interp, const TpConfig *config)
{
  if (config->path0 && !insert_path0(config->path0))
    return false;
  if (interp->write && !capture_streams(interp))
    return false;
  if (!tp_source_init())
    return false;
  PyObject *main = PyImport_AddModule("__main__"); /* borrowed */
  if (!main)
    return false;
  interp->globals = Py_NewRef(PyModule_GetDict(main));
  if (!noop) {
    PyObject *builtins = PyEval_GetBuiltins();                          /* borrowed */
    PyObject *scope = Py_BuildValue("{s:O}", "__builtins__", builtins); /* owned */
    noop = scope ? PyRun_String("lambda: None", Py_eval_input, scope, scope) : NULL;
    Py_XDECREF(scope);
    if (!noop)
      return false;
  }
  interp->tf = PyImport_ImportModule("tensorflow");
  if (!interp->tf)
    return false;
  tf_module_print_warnings(interp->tf);
  return true;
}

/* Makes Python's own SIGINT handler default_int_handler, through which tp_interrupt raises
 * KeyboardInterrupt, also when SIGINT was ignored as Python started (it then keeps the
 * disposition) and the host, not a user at a terminal, interrupts. */
static void
use_default_int_handler(void)
{
  PyObject *signal = PyImport_ImportModule("_signal"); /* owned; built in */
  PyObject *handler = signal ? PyObject_GetAttrString(signal, "default_int_handler") : NULL;
  PyObject *current = handler ? PyObject_CallMethod(signal, "getsignal", "i", SIGINT) : NULL;
  PyObject *r = NULL; /* owned */
  if (current && current != handler)
    r = PyObject_CallMethod(signal, "signal", "iO", SIGINT, handler);
  if (!r)
    PyErr_Clear();
  Py_XDECREF(r);
  Py_XDECREF(current);
  Py_XDECREF(handler);
  Py_XDECREF(signal);
}

/* The C handlers once Python has set its own. SIGINT: ours (tp_interrupt) for a host that
 * asked, unless SIGINT was ignored when the process started (a job started with `&`), which
 * CPython honours too; otherwise the host's handler from before Python started. */
static void
install_signals(bool handle, const struct sigaction *before)
{
  struct sigaction sa = {.sa_handler = on_sigint, .sa_flags = SA_ONSTACK};
  sigemptyset(&sa.sa_mask);
  bool ignored = !(before->sa_flags & SA_SIGINFO) && before->sa_handler == SIG_IGN;
  if (!handle)
    use_default_int_handler();
  sigaction(SIGINT, handle && !ignored ? &sa : before, NULL);

  struct sigaction wake = {.sa_handler = on_wake}; /* no SA_RESTART: calls fail with EINTR */
  sigemptyset(&wake.sa_mask);
  main_pthread = pthread_self();
  wake_installed = sigaction(TP_WAKE_SIGNAL, &wake, NULL) == 0;
}

/* Eager ops make and drop tensors of many megabytes each (a conv's output, then the sum with its
 * bias). glibc hands such blocks back to the system when freed and faults fresh pages in for
 * the next, which made an eager Keras Conv2D half again as slow as the same graph. Freed memory
 * now stays in the heap for reuse (up to 256 MB at its top), as TensorFlow's own allocator keeps
 * it; only blocks above 32 MB (glibc's largest fixed threshold) are mapped apart. */
static void
keep_freed_memory(void)
{
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
}

TpInterp *
tp_interp_new(const TpConfig *config, GError **error)
{
  static const TpConfig defaults = {0};
  if (!config)
    config = &defaults;
  if (the_interp || Py_IsInitialized()) {
    g_set_error_literal(error, TP_INTERP_ERROR, 0, "Python is already running in this process");
    return NULL;
  }
  keep_freed_memory();
  struct sigaction before;
  sigaction(SIGINT, NULL, &before);
  if (!start_python(config, error))
    return NULL;
  install_signals(config->handle_sigint, &before);

  TpInterp *interp = g_new0(TpInterp, 1);
  interp->write = config->write;
  interp->display = config->display;
  interp->data = config->data;
  interp->main_thread = PyThread_get_thread_ident();
  the_interp = interp;
  if (set_up(interp, config))
    return interp;

  g_autoptr(TpException) exc = tp_exception_fetch();
  g_set_error(error, TP_INTERP_ERROR, 0, "Python could not start: %s: %s",
              exc ? exc->name : "error", exc ? exc->message : "unknown");
  tp_interp_free(interp);
  return NULL;
}

/* The sanitizer build checks leaks here, while Python is still alive, instead of at exit. What
 * Py_FinalizeEx leaves behind is CPython's teardown, which by design does not free everything
 * (single-phase modules, interned strings, type caches), and Trellis's memory owned by those
 * objects would be reported with it. Now, everything a live object owns is reachable, and what
 * is not was lost by someone. The check at exit is then off. */
static void
check_leaks_before_teardown(void)
{
#if defined(__SANITIZE_ADDRESS__)
  PyGC_Collect();
  __lsan_do_leak_check();
#endif
}

int
tp_interp_free(TpInterp *interp)
{
  g_return_val_if_fail(interp == the_interp, 0);
  g_return_val_if_fail(!interp->in_cell, 0);
  Py_CLEAR(interp->tf);
  Py_CLEAR(noop);
  Py_CLEAR(interp->globals);
  /* The writers in sys keep their type alive until Python ends; their callbacks must work
   * until then (atexit handlers print). */
  Py_CLEAR(interp->writer_type);
  tp_source_clear();
  check_leaks_before_teardown();
  int status = Py_FinalizeEx() < 0 ? 120 : 0;
  the_interp = NULL;
  g_free(interp);
  return status;
}

PyObject *
tp_interp_tf(TpInterp *interp)
{
  return interp->tf;
}

TrEventBus *
tp_interp_event_bus(TpInterp *interp)
{
  return tf_module_get_event_bus(interp->tf);
}

PyObject *
tp_interp_globals(TpInterp *interp)
{
  return interp->globals;
}

void
tp_flush_std_streams(void)
{
  static const char *const names[] = {"stdout", "stderr"};
  for (gsize i = 0; i < G_N_ELEMENTS(names); i++) {
    PyObject *stream = PySys_GetObject(names[i]); /* borrowed */
    if (!stream || stream == Py_None)
      continue;
    PyObject *r = PyObject_CallMethod(stream, "flush", NULL); /* owned */
    if (!r)
      PyErr_Clear();
    Py_XDECREF(r);
  }
}

/* ---- running units ------------------------------------------------------------------------- */

static bool
eval_code(TpInterp *interp, PyObject *code, PyObject **value)
{
  PyObject *r = PyEval_EvalCode(code, interp->globals, interp->globals); /* owned */
  if (!r)
    return false;
  if (value)
    *value = r;
  else
    Py_DECREF(r);
  return true;
}

/* compile(tree, filename, mode, 0, True). New reference. */
static PyObject *
compile_tree(PyObject *tree, PyObject *filename, const char *mode)
{
  PyObject *compile = PyDict_GetItemString(PyEval_GetBuiltins(), "compile"); /* borrowed */
  if (!compile) {
    PyErr_SetString(PyExc_RuntimeError, "builtins.compile is missing");
    return NULL;
  }
  return PyObject_CallFunction(compile, "OOsiO", tree, filename, mode, 0, Py_True);
}

/* Whether a ';' follows the expression ending at (line, col) (1-based line, UTF-8 byte
 * column): IPython's sign that a cell's value is not to be shown. */
static bool
ends_with_semicolon(const char *text, long line, long col)
{
  const char *p = text;
  for (long l = 1; l < line && p; l++) {
    p = strchr(p, '\n');
    if (p)
      p++;
  }
  if (!p || (long)strlen(p) < col)
    return false;
  p += col;
  while (*p == ' ' || *p == '\t')
    p++;
  return *p == ';';
}

static bool
display_value(TpInterp *interp, PyObject *value)
{
  if (value == Py_None)
    return true;
  if (interp->display)
    return interp->display(interp->data, value);
  PyObject *hook = PySys_GetObject("displayhook"); /* borrowed */
  if (!hook) {
    PyErr_SetString(PyExc_RuntimeError, "lost sys.displayhook");
    return false;
  }
  PyObject *r = PyObject_CallOneArg(hook, value); /* owned */
  Py_XDECREF(r);
  return r != NULL;
}

/* Runs the statements of `tree` (a Module) but the last, then the last, an expression, in
 * 'eval' mode, showing its value. */
static bool
run_with_result(TpInterp *interp, const char *text, PyObject *tree, PyObject *filename)
{
  PyObject *body = PyObject_GetAttrString(tree, "body"); /* owned */
  if (!body)
    return false;
  Py_ssize_t n = PyList_Check(body) ? PyList_GET_SIZE(body) : 0;
  PyObject *last = n > 0 ? PyList_GET_ITEM(body, n - 1) : NULL; /* borrowed from body */
  bool ok = false;
  PyObject *ast = NULL, *expr_type = NULL, *expression = NULL, *code = NULL, *value = NULL;
  if (!(ast = PyImport_ImportModule("_ast")) || !(expr_type = PyObject_GetAttrString(ast, "Expr")))
    goto done;
  if (!last || !PyObject_TypeCheck(last, (PyTypeObject *)expr_type)) {
    ok = (code = compile_tree(tree, filename, "exec")) && eval_code(interp, code, NULL);
    goto done;
  }
  Py_INCREF(last);
  if (PyList_SetSlice(body, n - 1, n, NULL) < 0) { /* the tree keeps the others */
    Py_DECREF(last);
    goto done;
  }
  PyObject *end_line = PyObject_GetAttrString(last, "end_lineno");    /* owned */
  PyObject *end_col = PyObject_GetAttrString(last, "end_col_offset"); /* owned */
  bool quiet = end_line && end_col &&
               ends_with_semicolon(text, PyLong_AsLong(end_line), PyLong_AsLong(end_col));
  Py_XDECREF(end_line);
  Py_XDECREF(end_col);
  PyErr_Clear();
  PyObject *expr_value = PyObject_GetAttrString(last, "value"); /* owned */
  Py_DECREF(last);
  if (!expr_value)
    goto done;
  if (n > 1 && (!(code = compile_tree(tree, filename, "exec")) || !eval_code(interp, code, NULL))) {
    Py_DECREF(expr_value);
    goto done;
  }
  Py_CLEAR(code);
  expression = PyObject_CallMethod(ast, "Expression", "O", expr_value);
  Py_DECREF(expr_value);
  if (!expression || !(code = compile_tree(expression, filename, "eval")) ||
      !eval_code(interp, code, &value))
    goto done;
  ok = quiet || display_value(interp, value);
done:
  Py_XDECREF(value);
  Py_XDECREF(code);
  Py_XDECREF(expression);
  Py_XDECREF(expr_type);
  Py_XDECREF(ast);
  Py_DECREF(body);
  return ok;
}

static bool
set_file(TpInterp *interp, PyObject *filename)
{
  return PyDict_SetItemString(interp->globals, "__file__", filename) == 0 &&
         PyDict_SetItemString(interp->globals, "__cached__", Py_None) == 0;
}

static bool
run_unit(TpInterp *interp, const char *text, gsize len, const char *filename, TpRunFlags flags)
{
  if (memchr(text, '\0', len)) {
    PyErr_SetString(PyExc_SyntaxError, "source code string cannot contain null bytes");
    return false;
  }
  if (!tp_register_source(filename, text, (gssize)len))
    return false;
  PyObject *name = PyUnicode_DecodeFSDefault(filename); /* owned */
  if (!name)
    return false;
  bool ok = false;
  PyObject *tree = NULL, *code = NULL;
  if ((flags & TP_RUN_SET_FILE) && !set_file(interp, name))
    goto done;
  if (!(flags & TP_RUN_DISPLAY)) {
    ok = (code = Py_CompileStringObject(text, name, Py_file_input, NULL, -1)) &&
         eval_code(interp, code, NULL);
    goto done;
  }
  PyCompilerFlags cf = {.cf_flags = PyCF_ONLY_AST, .cf_feature_version = PY_MINOR_VERSION};
  tree = Py_CompileStringObject(text, name, Py_file_input, &cf, -1);
  ok = tree && run_with_result(interp, text, tree, name);
done:
  Py_XDECREF(code);
  Py_XDECREF(tree);
  Py_DECREF(name);
  return ok;
}

bool
tp_run(TpInterp *interp, const char *source, gssize len, const char *filename, TpRunFlags flags)
{
  g_return_val_if_fail(interp != NULL && source != NULL && filename != NULL, false);
  /* Py_CompileString wants a NUL-terminated text; a NUL inside is refused by run_unit. */
  gsize size = len < 0 ? strlen(source) : (gsize)len;
  g_autofree char *text = g_malloc(size + 1);
  memcpy(text, source, size);
  text[size] = '\0';
  drop_stale_interrupts();
  unsigned long outer = atomic_exchange(&interp->running_thread, PyThread_get_thread_ident());
  bool ok = run_unit(interp, text, size, filename, flags);
  atomic_store(&interp->running_thread, outer);
  return ok;
}

PyObject *
tp_call(TpInterp *interp, PyObject *callable, PyObject *args)
{
  g_return_val_if_fail(interp != NULL && callable != NULL && args != NULL, NULL);
  drop_stale_interrupts();
  unsigned long outer = atomic_exchange(&interp->running_thread, PyThread_get_thread_ident());
  PyObject *result = PyObject_Call(callable, args, NULL);
  atomic_store(&interp->running_thread, outer);
  return result;
}

/* ---- cells --------------------------------------------------------------------------------- */

void
tp_cell_begin(TpInterp *interp, gint64 cell, const char *source, gssize len)
{
  g_return_if_fail(interp != NULL && !interp->in_cell);
  TrEventBus *bus = tp_interp_event_bus(interp);
  interp->in_cell = true;
  interp->cell = cell;
  tf_module_set_cell(interp->tf, cell);
  TrEvent *ev = tr_event_new(TR_EVENT_CELL_START);
  ev->cell = cell;
  ev->text = len < 0 ? g_strdup(source) : g_strndup(source, (gsize)len);
  interp->cell_start_ns = tr_event_bus_now(bus);
  tr_event_bus_emit(bus, ev);
}

void
tp_cell_end(TpInterp *interp, bool ok)
{
  g_return_if_fail(interp != NULL && interp->in_cell);
  TrEventBus *bus = tp_interp_event_bus(interp);
  TrEvent *ev = tr_event_new(TR_EVENT_CELL_END);
  ev->cell = interp->cell;
  ev->dur_ns = tr_event_bus_now(bus) - interp->cell_start_ns;
  ev->ok = ok;
  tr_event_bus_emit(bus, ev);
  interp->in_cell = false;
  tf_module_set_cell(interp->tf, 0);
}

bool
tp_run_cell(TpInterp *interp, const char *source, gssize len, const char *filename, gint64 cell,
            TpRunFlags flags)
{
  tp_cell_begin(interp, cell, source, len);
  bool ok = tp_run(interp, source, len, filename, flags);
  tp_cell_end(interp, ok);
  return ok;
}
