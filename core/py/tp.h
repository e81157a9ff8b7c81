/* tp.h — CPython embedded: what the command line, the kernel and the debugger's in-process runs
 * share to run Python cells (SPEC §1, DESIGN "Layers").
 *
 * A TpInterp is the process's one Python interpreter (CPython's main interpreter, Debian's
 * libpython3.11) with the `tensorflow` module of core/tf registered as a built-in and imported
 * at start-up. Hosts run units of source through it (a script, a -c string, a notebook cell, a
 * prompt line): each is compiled under a file name that tracebacks show ("<cell 3>", a script's
 * path), its source is put in `linecache` (tracebacks show lines, `inspect.getsource` works on
 * functions defined in cells), and its last expression statement's value goes to the host's
 * display callback, as IPython does. A cell brackets units with tf's cell events.
 *
 * Ownership. tp_interp_new returns the interpreter (transfer full: tp_interp_free ends Python).
 * Every PyObject * returned is borrowed unless said otherwise; callbacks receive borrowed
 * objects. A TpException is owned by the caller (tp_exception_free).
 *
 * Threading. Python has one lock, the GIL. tp_interp_new holds it on return, on the calling
 * thread, which must be the one that later calls tp_interp_free. Every function here needs the
 * GIL held by the calling thread, except tp_interrupt() (any thread, also a signal handler)
 * and tp_interrupt_thread() (any thread that does NOT hold the GIL). A host that runs units on
 * a worker thread (the debugger) does, on the creating thread,
 *
 *   TpInterp *tp = tp_interp_new(&config, &error);     // GIL held here
 *   PyThreadState *saved = PyEval_SaveThread();         // release it for the worker
 *
 * on the worker, around each use,
 *
 *   PyGILState_STATE g = PyGILState_Ensure();
 *   ok = tp_run_cell(tp, source, -1, "<cell 3>", 3, TP_RUN_DISPLAY);
 *   ... tp_exception_fetch() if !ok ...
 *   PyGILState_Release(g);
 *
 * and at the end, on the creating thread, PyEval_RestoreThread(saved); tp_interp_free(tp).
 * CPython runs signal handlers, and so PyErr_SetInterrupt's KeyboardInterrupt, only on the main
 * thread: a unit running on a worker is interrupted with tp_interrupt_thread() instead (which
 * also stops tf's executor; it does not cut short a time.sleep in that thread).
 * Callbacks (write, display) run on the thread running the unit, with the GIL held.
 */
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <glib.h>
#include <stdbool.h>

#include "tr-events.h"

G_BEGIN_DECLS

typedef struct TpInterp TpInterp;

typedef enum {
  TP_STDOUT = 1,
  TP_STDERR = 2,
} TpStream;

/* Text written to sys.stdout / sys.stderr (print, tf.print, tracebacks), UTF-8, not
 * NUL-terminated. */
typedef void (*TpWriteFunc)(void *data, TpStream stream, const char *text, gsize len);
/* A unit's result: the value of its last expression statement when it is not None (borrowed).
 * Return false with a Python exception set to fail the unit. */
typedef bool (*TpDisplayFunc)(void *data, PyObject *value);

typedef struct {
  /* sys.argv (NULL-terminated, UTF-8); NULL or empty: [""]. */
  const char *const *argv;
  /* Put first on sys.path, as CPython does for a script's directory ("" for the current
   * directory, as with -c or the prompt); NULL: nothing. */
  const char *path0;
  /* Python's signal handling is always set up as python3's (SIGPIPE and SIGXFSZ ignored,
   * default_int_handler as SIGINT's Python handler). True: SIGINT's C handler calls
   * tp_interrupt() (the command line; unless SIGINT was ignored at start, as CPython does).
   * False: SIGINT's C handler stays the host's (the kernel calls tp_interrupt itself). */
  bool handle_sigint;
  /* Non-NULL: sys.stdout and sys.stderr become writers whose write() calls this (flush() does
   * nothing, isatty() is False, encoding utf-8). NULL: Python's own streams over fds 1 and 2. */
  TpWriteFunc write;
  /* NULL: sys.displayhook(value), i.e. its repr on sys.stdout, and builtins._ set. */
  TpDisplayFunc display;
  void *data; /* passed to write and display */
} TpConfig;

#define TP_INTERP_ERROR (tp_interp_error_quark())
GQuark tp_interp_error_quark(void);

/* Starts Python (once per process) with `config` (copied; may be NULL for the defaults):
 * Debian's sys.path with its site-packages (numpy, matplotlib, ...) but no PYTHON* variables
 * of the environment (as `python3 -E`), `tensorflow` imported and its retracing warnings on
 * sys.stderr. Returns NULL with `error` (TP_INTERP_ERROR) when Python could not start or a
 * second interpreter is asked for. Transfer full. */
TpInterp *tp_interp_new(const TpConfig *config, GError **error);
/* Ends Python (atexit handlers run, streams flushed). Returns 0, or 120 when flushing
 * sys.stdout or sys.stderr failed, as CPython's exit status. */
int tp_interp_free(TpInterp *interp);

/* The `tensorflow` module, for tf.h's functions (registry, cell number, ...). Borrowed. */
PyObject *tp_interp_tf(TpInterp *interp);
/* The module's event bus (tf_module_get_event_bus). Borrowed. */
TrEventBus *tp_interp_event_bus(TpInterp *interp);
/* The `__main__` namespace every unit runs in (a dict). Borrowed. */
PyObject *tp_interp_globals(TpInterp *interp);

/* ---- running units ------------------------------------------------------------------------- */

typedef enum {
  TP_RUN_EXEC = 0,
  /* The unit's last statement, when an expression, is evaluated apart and its value (when not
   * None) handed to the display callback; a trailing ';' on it suppresses that (IPython). */
  TP_RUN_DISPLAY = 1 << 0,
  /* Set __main__.__file__ to `filename` (a script). */
  TP_RUN_SET_FILE = 1 << 1,
} TpRunFlags;

/* Compiles `source` (UTF-8, `len` bytes or NUL-terminated when -1) as the unit `filename`,
 * registers it in linecache and runs it in __main__. Returns true when it ran to the end;
 * false with the exception pending (SyntaxError included): take it with tp_exception_fetch()
 * or tp_report_uncaught(). Clears a tf interrupt request left from before it started. */
bool tp_run(TpInterp *interp, const char *source, gssize len, const char *filename,
            TpRunFlags flags);

/* Calls `callable(*args)` (`args` a tuple) as a unit: like tp_run, interrupts requested before
 * it started are dropped and tp_interrupt_thread reaches it (a host that runs units through
 * code of its own, as the kernel runs cells through IPython). New reference, or NULL with the
 * exception pending. */
PyObject *tp_call(TpInterp *interp, PyObject *callable, PyObject *args);

/* Cells. A host brackets each unit it runs for the user (a notebook cell, a script, a prompt
 * unit) so that the event bus sees it: begin emits cell_start with `cell` (the execution count:
 * 1, 2, ...; 0 for none, e.g. a silent execution) and the source, and makes `cell` the number
 * that call events carry (tf_module_set_cell); end emits cell_end with the duration and `ok`
 * and sets the number back to 0. A bracket may hold several runs and what else the host does
 * for the cell; cells do not nest. */
void tp_cell_begin(TpInterp *interp, gint64 cell, const char *source, gssize len);
void tp_cell_end(TpInterp *interp, bool ok);
/* tp_run inside tp_cell_begin(cell, source) and tp_cell_end. */
bool tp_run_cell(TpInterp *interp, const char *source, gssize len, const char *filename,
                 gint64 cell, TpRunFlags flags);

/* Puts `source` in linecache.cache under `filename` (for hosts that compile on their own, e.g.
 * through IPython). Returns false with an exception set. */
bool tp_register_source(const char *filename, const char *source, gssize len);

/* Flushes sys.stdout and sys.stderr (before the host writes to the fds itself). Errors are
 * cleared. */
void tp_flush_std_streams(void);

/* ---- exceptions ---------------------------------------------------------------------------- */

typedef struct {
  PyObject *value;    /* the exception (strong reference) */
  char *name;         /* its type's name: "ZeroDivisionError" */
  char *message;      /* str(value): "division by zero" */
  char **lines;       /* traceback.format_exception(value) split into lines without their
                       * newlines: CPython's traceback as printed (NULL-terminated) */
  bool system_exit;   /* a SystemExit: `lines` is empty and exit_status / exit_message apply */
  int exit_status;    /* SystemExit: its code (None: 0; not an int: 1); otherwise 1 */
  char *exit_message; /* SystemExit with a code that is not an int or None: str(code), which
                       * CPython prints on stderr; otherwise NULL */
} TpException;

/* Takes the pending exception (it is cleared), or returns NULL when none is pending. Never
 * fails: a traceback that cannot be formatted becomes "NAME: MESSAGE". Transfer full. */
TpException *tp_exception_fetch(void);
void tp_exception_free(TpException *exc);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TpException, tp_exception_free)

/* What CPython does with an exception that escaped the program: a SystemExit's status (its
 * message on sys.stderr), otherwise its traceback is printed on sys.stderr (by
 * traceback.print_exception, which shows the units' lines, or by the program's own
 * sys.excepthook) and the status is 1. The pending exception is cleared; 0 when none was pending.
 */
int tp_report_uncaught(void);

/* ---- interrupts ---------------------------------------------------------------------------- */

/* Raises KeyboardInterrupt in the unit running on the main thread (PyErr_SetInterruptEx) and
 * stops tf's graph executor and kernels (tf_interrupt_request). Async-signal-safe, any thread,
 * GIL not needed. Called from another thread, it also sends the main thread SIGRTMIN+3 (a
 * handler that does nothing is installed for it) so that a blocking call there (time.sleep,
 * input) returns early. A request made while no unit runs is dropped when the next unit
 * starts. */
void tp_interrupt(void);
/* For a host running units on another thread than the main one: raises KeyboardInterrupt in
 * the thread running a unit of `interp` (PyThreadState_SetAsyncExc) and requests tf's
 * interrupt. Call it from a thread that does not hold the GIL (it takes it); not from a signal
 * handler. Does nothing when no unit runs. */
void tp_interrupt_thread(TpInterp *interp);

/* ---- notebooks ----------------------------------------------------------------------------- */

/* One code cell of a notebook. */
typedef struct {
  char *source;          /* the cell's code */
  bool raises_exception; /* tagged "raises-exception" (nbformat's metadata.tags): its error is
                          * expected, and a run of the notebook goes on after it, as nbclient's */
} TpNotebookCell;

/* A Jupyter notebook's code cells, in order (TpNotebookCell *, transfer full: the array frees
 * them), or NULL with `error` (TP_NOTEBOOK_ERROR) when the file is not a readable notebook. No
 * Python needed. */
#define TP_NOTEBOOK_ERROR (tp_notebook_error_quark())
GQuark tp_notebook_error_quark(void);
GPtrArray *tp_notebook_code_cells(const char *path, GError **error);

G_END_DECLS
