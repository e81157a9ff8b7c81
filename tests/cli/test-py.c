/* test-py.c — core/py's API as the kernel and the debugger use it (tp.h): captured streams,
 * a unit's displayed result, exceptions as text, cells on the event bus, linecache, interrupts
 * on the main thread and on a worker thread, notebooks. One Python per process: every test
 * shares the interpreter that main() starts. */
#include "function-py.h"
#include "tf-pycode.h"
#include "tf.h"
#include "tp.h"

#include <marshal.h>

#include <glib/gstdio.h>

static TpInterp *tp;
static GString *out, *err;   /* what sys.stdout / sys.stderr were given */
static GPtrArray *displayed; /* repr of each displayed value */

static void
on_write(void *data, TpStream stream, const char *text, gsize len)
{
  g_string_append_len(stream == TP_STDOUT ? out : err, text, (gssize)len);
}

static bool
on_display(void *data, PyObject *value)
{
  PyObject *r = PyObject_Repr(value); /* owned */
  if (!r)
    return false;
  g_ptr_array_add(displayed, g_strdup(PyUnicode_AsUTF8(r)));
  Py_DECREF(r);
  return true;
}

static void
reset(void)
{
  g_string_truncate(out, 0);
  g_string_truncate(err, 0);
  g_ptr_array_set_size(displayed, 0);
}

/* Runs `source` as `name`, asserting it ran to the end. */
static void
run_ok(const char *source, const char *name, TpRunFlags flags)
{
  if (tp_run(tp, source, -1, name, flags))
    return;
  g_autoptr(TpException) exc = tp_exception_fetch();
  g_autofree char *text = g_strjoinv("\n", exc->lines);
  g_error("%s raised:\n%s", name, text);
}

static void
test_capture_streams(void)
{
  reset();
  run_ok("import sys\nprint('out', 1)\nprint('é', file=sys.stderr)\nsys.stdout.write('x')\n"
         "print(sys.stdout.isatty(), sys.stdout.encoding, sys.stderr.name)",
         "<capture>", TP_RUN_EXEC);
  g_assert_cmpstr(out->str, ==, "out 1\nxFalse utf-8 <stderr>\n");
  g_assert_cmpstr(err->str, ==, "é\n");
  g_assert_false(tp_run(tp, "import sys; sys.stdout.write(b'no')", -1, "<bytes>", 0));
  g_autoptr(TpException) exc = tp_exception_fetch();
  g_assert_cmpstr(exc->message, ==, "write() argument must be str, not bytes");
}

static void
test_display_last_expression(void)
{
  reset();
  run_ok("x = 20\nx + 22", "<cell 1>", TP_RUN_DISPLAY);
  run_ok("x;", "<cell 2>", TP_RUN_DISPLAY);
  run_ok("None", "<cell 3>", TP_RUN_DISPLAY);
  run_ok("if x:\n    x", "<cell 4>", TP_RUN_DISPLAY);
  run_ok("'s'  # comment\n", "<cell 5>", TP_RUN_DISPLAY);
  run_ok("x", "<script>", TP_RUN_EXEC);
  g_assert_cmpuint(displayed->len, ==, 2);
  g_assert_cmpstr(displayed->pdata[0], ==, "42");
  g_assert_cmpstr(displayed->pdata[1], ==, "'s'");
  g_assert_cmpstr(out->str, ==, "");
}

static void
test_exception_traceback(void)
{
  g_assert_false(tp_run(tp, "def f():\n    return 1 / 0\nf()\n", -1, "<cell 7>", TP_RUN_DISPLAY));
  g_autoptr(TpException) exc = tp_exception_fetch();
  g_assert_false(PyErr_Occurred());
  g_assert_cmpstr(exc->name, ==, "ZeroDivisionError");
  g_assert_cmpstr(exc->message, ==, "division by zero");
  g_assert_false(exc->system_exit);
  g_assert_cmpint(exc->exit_status, ==, 1);
  g_autofree char *text = g_strjoinv("\n", exc->lines);
  g_assert_cmpstr(text, ==,
                  "Traceback (most recent call last):\n"
                  "  File \"<cell 7>\", line 3, in <module>\n"
                  "    f()\n"
                  "  File \"<cell 7>\", line 2, in f\n"
                  "    return 1 / 0\n"
                  "           ~~^~~\n"
                  "ZeroDivisionError: division by zero");
  g_assert_null(tp_exception_fetch());
}

static void
test_exception_syntax_error(void)
{
  g_assert_false(tp_run(tp, "x = (1,\n", -1, "<cell 8>", TP_RUN_DISPLAY));
  g_autoptr(TpException) exc = tp_exception_fetch();
  g_assert_cmpstr(exc->name, ==, "SyntaxError");
  g_assert_cmpstr(exc->lines[0], ==, "  File \"<cell 8>\", line 1");
}

static void
test_exception_system_exit(void)
{
  static const struct {
    const char *source;
    int status;
    const char *message;
  } cases[] = {
      {"raise SystemExit", 0, NULL},
      {"import sys; sys.exit(3)", 3, NULL},
      {"raise SystemExit('bye')", 1, "bye"},
  };
  for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_assert_false(tp_run(tp, cases[i].source, -1, "<exit>", 0));
    g_autoptr(TpException) exc = tp_exception_fetch();
    g_assert_true(exc->system_exit);
    g_assert_cmpint(exc->exit_status, ==, cases[i].status);
    g_assert_cmpstr(exc->exit_message, ==, cases[i].message);
    g_assert_null(exc->lines[0]);
  }
}

static void
test_getsource_of_cell_function(void)
{
  reset();
  run_ok("def g(a):\n    return a * 3\n", "<cell 9>", TP_RUN_DISPLAY);
  run_ok("import inspect\ninspect.getsource(g)", "<cell 10>", TP_RUN_DISPLAY);
  g_assert_cmpuint(displayed->len, ==, 1);
  g_assert_cmpstr(displayed->pdata[0], ==, "'def g(a):\\n    return a * 3\\n'");
}

static void
collect(const TrEvent *ev, gpointer data)
{
  g_ptr_array_add(data, tr_event_ref((TrEvent *)ev));
}

static void
test_cells_on_event_bus(void)
{
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func((GDestroyNotify)tr_event_unref);
  TrEventBus *bus = tp_interp_event_bus(tp);
  guint id = tr_event_bus_subscribe(bus, collect, events, NULL, false);
  g_assert_true(tp_run_cell(tp, "y = 1", -1, "<cell 11>", 11, TP_RUN_DISPLAY));
  g_assert_false(tp_run_cell(tp, "1 / 0", -1, "<cell 12>", 12, TP_RUN_DISPLAY));
  PyErr_Clear();
  tr_event_bus_unsubscribe(bus, id);
  g_assert_cmpuint(events->len, ==, 4);
  const TrEvent *const *ev = (const TrEvent *const *)events->pdata;
  g_assert_cmpint(ev[0]->kind, ==, TR_EVENT_CELL_START);
  g_assert_cmpint(ev[0]->cell, ==, 11);
  g_assert_cmpstr(ev[0]->text, ==, "y = 1");
  g_assert_cmpint(ev[1]->kind, ==, TR_EVENT_CELL_END);
  g_assert_true(ev[1]->ok);
  g_assert_cmpint(ev[3]->cell, ==, 12);
  g_assert_false(ev[3]->ok);
  g_assert_cmpint(tf_module_get_cell(tp_interp_tf(tp)), ==, 0);
}

static gpointer
interrupt_soon(gpointer data)
{
  g_usleep(200 * 1000);
  tp_interrupt();
  return NULL;
}

static void
test_interrupt_main_thread(void)
{
  /* A request made while nothing runs is dropped. */
  tp_interrupt();
  run_ok("z = 1", "<after-stale>", 0);
  g_assert_false(tf_interrupt_pending());

  static const char *const loops[] = {"while True: pass", "import time; time.sleep(30)"};
  for (gsize i = 0; i < G_N_ELEMENTS(loops); i++) {
    GThread *t = g_thread_new("interrupter", interrupt_soon, NULL);
    gint64 start = g_get_monotonic_time();
    g_assert_false(tp_run(tp, loops[i], -1, "<loop>", 0));
    g_assert_cmpint(g_get_monotonic_time() - start, <, G_USEC_PER_SEC * 5);
    g_assert_true(PyErr_ExceptionMatches(PyExc_KeyboardInterrupt));
    PyErr_Clear();
    g_thread_join(t);
  }
}

typedef struct {
  bool ran_to_end;
  char *exception; /* the name of what the unit raised */
  gint started;    /* the unit has begun */
} WorkerResult;

/* The worker side of tp.h's protocol: the GIL around each use. */
static gpointer
worker(gpointer data)
{
  WorkerResult *res = data;
  PyGILState_STATE gil = PyGILState_Ensure();
  g_atomic_int_set(&res->started, 1);
  res->ran_to_end = tp_run(tp, "n = 0\nwhile True:\n    n += 1\n", -1, "<worker>", 0);
  TpException *exc = tp_exception_fetch(); /* freed with the GIL held */
  res->exception = exc ? g_strdup(exc->name) : NULL;
  tp_exception_free(exc);
  PyGILState_Release(gil);
  return NULL;
}

/* Whether the worker's loop runs: its counter `n` is in __main__ and above zero. */
static bool
worker_counting(void)
{
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject *n = PyDict_GetItemString(tp_interp_globals(tp), "n"); /* borrowed */
  bool counting = n && PyLong_Check(n) && PyLong_AsLong(n) > 0;
  PyGILState_Release(gil);
  return counting;
}

static void
test_interrupt_worker_thread(void)
{
  PyThreadState *saved = PyEval_SaveThread();
  WorkerResult res = {0};
  GThread *t = g_thread_new("worker", worker, &res);
  while (!g_atomic_int_get(&res.started))
    g_usleep(1000);
  /* Interrupt the loop itself, not the compilation before it (slow under the sanitizers). */
  while (!worker_counting())
    g_usleep(1000);
  tp_interrupt_thread(tp);
  g_thread_join(t);
  PyEval_RestoreThread(saved);
  g_assert_false(res.ran_to_end);
  g_assert_cmpstr(res.exception, ==, "KeyboardInterrupt");
  g_free(res.exception);
  run_ok("n > 0 or error", "<after-worker>", 0);
}

static void
test_notebook_code_cells(void)
{
  g_autofree char *dir = g_dir_make_tmp("test-py-XXXXXX", NULL);
  g_autofree char *path = g_build_filename(dir, "nb.ipynb", NULL);
  const char *json = "{\"cells\": [{\"cell_type\": \"markdown\", \"source\": \"# t\"},"
                     " {\"cell_type\": \"code\", \"source\": [\"a = 1\\n\", \"a\"]},"
                     " {\"cell_type\": \"code\", \"source\": \"b\", \"metadata\":"
                     " {\"tags\": [\"x\", \"raises-exception\"]}}], \"nbformat\": 4}";
  g_assert_true(g_file_set_contents(path, json, -1, NULL));
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) cells = tp_notebook_code_cells(path, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(cells->len, ==, 2);
  const TpNotebookCell *first = cells->pdata[0], *second = cells->pdata[1];
  g_assert_cmpstr(first->source, ==, "a = 1\na");
  g_assert_false(first->raises_exception);
  g_assert_cmpstr(second->source, ==, "b");
  g_assert_true(second->raises_exception);
  g_assert_true(g_file_set_contents(path, "{\"nbformat\": 4}", -1, NULL));
  g_assert_null(tp_notebook_code_cells(path, &error));
  g_assert_error(error, TP_NOTEBOOK_ERROR, 0);
  g_unlink(path);
  g_rmdir(dir);
}

/* The modules written in Python load as the build compiled them when this Python's bytecode is
 * the build's, and are compiled from their text otherwise (or when the code does not load). */
static void
test_embedded_code(void)
{
  /* The build compiled for the Python it runs on: start-up loads code, compiles nothing. */
  g_assert_cmpint(tf_function_py.magic, ==, PyImport_GetMagicNumber());
  PyObject *code = tf_py_code(&tf_function_py); /* owned */
  g_assert_nonnull(code);
  g_assert_true(PyCode_Check(code));
  g_assert_cmpstr(PyUnicode_AsUTF8(((PyCodeObject *)code)->co_filename), ==,
                  "<tensorflow/function.py>");
  Py_DECREF(code);

  PyObject *compiled = Py_CompileString("x = 41 + 1\n", "<marshalled>", Py_file_input);
  PyObject *bytes = PyMarshal_WriteObjectToString(compiled, Py_MARSHAL_VERSION);
  g_assert_nonnull(bytes);
  /* Another Python's bytecode, and code that does not load: the text (y) is what runs. */
  const TfPyCode cases[] = {
      {"<other-python>", "y = 7\n", PyBytes_AS_STRING(bytes), (size_t)PyBytes_GET_SIZE(bytes),
       PyImport_GetMagicNumber() + 1},
      {"<torn>", "y = 7\n", PyBytes_AS_STRING(bytes), 5, PyImport_GetMagicNumber()},
      {"<same-python>", "y = 7\n", PyBytes_AS_STRING(bytes), (size_t)PyBytes_GET_SIZE(bytes),
       PyImport_GetMagicNumber()},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    PyObject *c = tf_py_code(&cases[i]); /* owned */
    PyObject *ns = PyDict_New();         /* owned */
    PyDict_SetItemString(ns, "__builtins__", PyEval_GetBuiltins());
    PyObject *r = c ? PyEval_EvalCode(c, ns, ns) : NULL; /* owned */
    g_assert_nonnull(r);
    const char *ran = i < 2 ? "y" : "x";
    g_assert_nonnull(PyDict_GetItemString(ns, ran));
    g_assert_cmpint(PyLong_AsLong(PyDict_GetItemString(ns, ran)), ==, i < 2 ? 7 : 42);
    Py_DECREF(r);
    Py_DECREF(ns);
    Py_DECREF(c);
  }
  Py_DECREF(bytes);
  Py_DECREF(compiled);
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  out = g_string_new(NULL);
  err = g_string_new(NULL);
  displayed = g_ptr_array_new_with_free_func(g_free);
  static const char *const py_argv[] = {"test-py", NULL};
  TpConfig config = {.argv = py_argv, .write = on_write, .display = on_display};
  g_autoptr(GError) error = NULL;
  tp = tp_interp_new(&config, &error);
  g_assert_no_error(error);
  g_assert_null(tp_interp_new(&config, &error));
  g_assert_error(error, TP_INTERP_ERROR, 0);

  g_test_add_func("/py/capture/print-and-stderr", test_capture_streams);
  g_test_add_func("/py/display/last-expression-only", test_display_last_expression);
  g_test_add_func("/py/exception/cpython-traceback-with-lines", test_exception_traceback);
  g_test_add_func("/py/exception/syntax-error", test_exception_syntax_error);
  g_test_add_func("/py/exception/system-exit-status", test_exception_system_exit);
  g_test_add_func("/py/linecache/getsource-of-cell-function", test_getsource_of_cell_function);
  g_test_add_func("/py/cells/start-and-end-events", test_cells_on_event_bus);
  g_test_add_func("/py/interrupt/main-thread", test_interrupt_main_thread);
  g_test_add_func("/py/interrupt/worker-thread", test_interrupt_worker_thread);
  g_test_add_func("/py/notebook/code-cells", test_notebook_code_cells);
  g_test_add_func("/py/embedded/code-or-text", test_embedded_code);
  int status = g_test_run();
  g_assert_cmpint(tp_interp_free(tp), ==, 0);
  g_string_free(out, TRUE);
  g_string_free(err, TRUE);
  g_ptr_array_unref(displayed);
  return status;
}
