/* test-breakpoints.c — what the `tensorflow` module tells a host's debugger (tf.h, issue 15):
 * breakpoint_bypassed when a cached call runs the graph past a breakpoint in a Function's Python
 * body, and debugger_stopped / debugger_continued with the Function that was tracing or running
 * eagerly at the stop. Python is embedded as the kernel embeds it (core/py); the cell is
 * compiled under a path, as the kernel compiles cells, and named "<cell 1>" in events. One
 * Python per process: every test shares it and starts by defining a new Function. */
#include "tf.h"
#include "tp.h"

#include <string.h>

#define CELL_PATH "/tmp/trellis_test/cell1.py"

/* The cell; the line numbers matter. */
static const char cell_source[] = "import tensorflow as tf\n" /* 1 */
                                  "\n"                        /* 2 */
                                  "@tf.function\n"            /* 3 */
                                  "def f(x):\n"               /* 4 */
                                  "    hook()\n"              /* 5 */
                                  "    y = x * 2\n"           /* 6 */
                                  "    return y + 1\n"        /* 7 */
                                  "\n"                        /* 8 */
                                  "def other():\n"            /* 9 */
                                  "    return 0\n";           /* 10 */

static TpInterp *tp;
static PyObject *tf;
static GPtrArray *events; /* every event since the test's setup */
static guint subscription;

static void
collect(const TrEvent *ev, gpointer data)
{
  g_ptr_array_add(events, tr_event_ref((TrEvent *)ev));
}

static void
run_ok(const char *source)
{
  if (tp_run(tp, source, -1, "<driver>", TP_RUN_EXEC))
    return;
  g_autoptr(TpException) exc = tp_exception_fetch();
  g_autofree char *text = g_strjoinv("\n", exc->lines);
  g_error("%s raised:\n%s", source, text);
}

/* The body's hook: what the kernel does when debugpy stops in it (a stop at line 5 of the cell,
 * in f), then lets it go on. The body runs while tracing, or on every call when eager. */
static PyObject *
hook(PyObject *self, PyObject *unused)
{
  tf_module_emit_debugger_stopped(tf, "breakpoint", CELL_PATH, 5, "f", NULL);
  tf_module_emit_debugger_continued(tf);
  Py_RETURN_NONE;
}

static PyMethodDef hook_def = {"hook", hook, METH_NOARGS, NULL};

/* A fresh f (a new Function), no breakpoints, graphs on, an empty event list. */
static void
setup(void)
{
  g_assert_true(tf_module_set_breakpoints(tf, NULL, NULL, 0));
  run_ok("import tensorflow as tf\ntf.config.run_functions_eagerly(False)");
  g_assert_true(tp_run(tp, cell_source, -1, CELL_PATH, TP_RUN_EXEC));
  g_ptr_array_set_size(events, 0);
}

static GPtrArray *
events_of(TrEventKind kind)
{
  GPtrArray *out = g_ptr_array_new();
  for (guint i = 0; i < events->len; i++)
    if (((TrEvent *)events->pdata[i])->kind == kind)
      g_ptr_array_add(out, events->pdata[i]);
  return out;
}

static guint
count_of(TrEventKind kind)
{
  g_autoptr(GPtrArray) evs = events_of(kind);
  return evs->len;
}

/* Calls f once from the driver (line 1 of "<driver>"); returns the call's outcome. */
static TrOutcome
call_f(const char *arg)
{
  g_autofree char *src = g_strdup_printf("r = f(tf.constant(%s))", arg);
  guint before = events->len;
  run_ok(src);
  for (guint i = before; i < events->len; i++) {
    const TrEvent *ev = events->pdata[i];
    if (ev->kind == TR_EVENT_CALL)
      return ev->outcome;
  }
  g_error("no call event for %s", src);
}

static void
set_lines(const int *lines, size_t n)
{
  g_assert_true(tf_module_set_breakpoints(tf, CELL_PATH, lines, n));
}

static void
test_no_breakpoints_no_event(void)
{
  setup();
  g_assert_cmpint(call_f("1"), ==, TR_OUTCOME_MISS);
  g_assert_cmpint(call_f("2"), ==, TR_OUTCOME_HIT);
  g_assert_cmpint(call_f("3"), ==, TR_OUTCOME_HIT);
  g_assert_cmpuint(count_of(TR_EVENT_BREAKPOINT_BYPASSED), ==, 0);
}

static void
test_cached_call_bypasses(void)
{
  setup();
  const int line6[] = {6};
  set_lines(line6, 1);
  g_assert_cmpint(call_f("1"), ==, TR_OUTCOME_MISS); /* the body runs: a debugger stops */
  g_assert_cmpuint(count_of(TR_EVENT_BREAKPOINT_BYPASSED), ==, 0);
  g_assert_cmpint(call_f("2"), ==, TR_OUTCOME_HIT);
  g_autoptr(GPtrArray) bypassed = events_of(TR_EVENT_BREAKPOINT_BYPASSED);
  g_assert_cmpuint(bypassed->len, ==, 1);
  const TrEvent *ev = bypassed->pdata[0];
  g_autoptr(GPtrArray) calls = events_of(TR_EVENT_CALL);
  const TrEvent *hit = calls->pdata[1];
  g_assert_cmpint(ev->fn_id, ==, hit->fn_id);
  g_assert_cmpstr(ev->fn_name, ==, "f");
  g_assert_cmpint(ev->cf_id, ==, hit->cf_id);
  g_assert_cmpstr(ev->file, ==, "<driver>");
  g_assert_cmpint(ev->line, ==, 1);
  g_assert_cmpstr(ev->bp_file, ==, "<cell 1>");
  g_assert_cmpint(ev->bp_line, ==, 6);
  g_autofree char *want = g_strdup_printf(
      "The call of f at <driver>, line 1 ran its cached graph (concrete function #%" G_GINT64_FORMAT
      "): no Python ran, so the breakpoint at <cell 1>, line 6 in f could not stop it. To stop "
      "there, run functions eagerly (tf.config.run_functions_eagerly(True), or the debugger's "
      "\"Run functions eagerly\" switch), or make a call that traces f anew.",
      hit->cf_id);
  g_assert_cmpstr(ev->text, ==, want);

  /* Once per change of the breakpoints, not per call. */
  g_assert_cmpint(call_f("3"), ==, TR_OUTCOME_HIT);
  g_assert_cmpuint(count_of(TR_EVENT_BREAKPOINT_BYPASSED), ==, 1);
  const int lines67[] = {7, 6, 7};
  set_lines(lines67, 3);
  g_assert_cmpint(call_f("4"), ==, TR_OUTCOME_HIT);
  g_clear_pointer(&bypassed, g_ptr_array_unref);
  bypassed = events_of(TR_EVENT_BREAKPOINT_BYPASSED);
  g_assert_cmpuint(bypassed->len, ==, 2);
  ev = bypassed->pdata[1];
  g_assert_cmpint(ev->bp_line, ==, 6);
  g_assert_nonnull(strstr(ev->text, "<cell 1>, lines 6, 7 in f"));
  /* The same breakpoints again are no change. */
  const int lines76[] = {7, 6};
  set_lines(lines76, 2);
  g_assert_cmpint(call_f("5"), ==, TR_OUTCOME_HIT);
  g_assert_cmpuint(count_of(TR_EVENT_BREAKPOINT_BYPASSED), ==, 2);
  /* Cleared, they say nothing. */
  set_lines(NULL, 0);
  g_assert_cmpint(call_f("6"), ==, TR_OUTCOME_HIT);
  g_assert_cmpuint(count_of(TR_EVENT_BREAKPOINT_BYPASSED), ==, 2);
}

/* Breakpoints outside f's body (the import, the decorator, another function, another file) are
 * not f's. */
static void
test_outside_body_no_event(void)
{
  setup();
  const int outside[] = {1, 2, 3, 8, 10};
  set_lines(outside, G_N_ELEMENTS(outside));
  const int line6[] = {6};
  g_assert_true(tf_module_set_breakpoints(tf, "/tmp/trellis_test/cell2.py", line6, 1));
  g_assert_cmpint(call_f("1"), ==, TR_OUTCOME_MISS);
  g_assert_cmpint(call_f("2"), ==, TR_OUTCOME_HIT);
  g_assert_cmpuint(count_of(TR_EVENT_BREAKPOINT_BYPASSED), ==, 0);
}

/* A hit found by the cache lookup (not the previous call's key) and a ConcreteFunction called
 * directly run the graph too. */
static void
test_lookup_hit_and_concrete_call(void)
{
  setup();
  g_assert_cmpint(call_f("1"), ==, TR_OUTCOME_MISS);
  g_assert_cmpint(call_f("1.5"), ==, TR_OUTCOME_MISS); /* float32: a second trace */
  const int line7[] = {7};
  set_lines(line7, 1);
  g_assert_cmpint(call_f("2"), ==, TR_OUTCOME_HIT); /* int32 again: the lookup finds it */
  g_assert_cmpuint(count_of(TR_EVENT_BREAKPOINT_BYPASSED), ==, 1);

  setup();
  run_ok("cf = f.get_concrete_function(tf.constant(1))");
  const int line6[] = {6};
  set_lines(line6, 1);
  run_ok("cf(tf.constant(2))");
  g_autoptr(GPtrArray) bypassed = events_of(TR_EVENT_BREAKPOINT_BYPASSED);
  g_assert_cmpuint(bypassed->len, ==, 1);
  g_assert_cmpstr(((TrEvent *)bypassed->pdata[0])->fn_name, ==, "f");
}

/* Run eagerly, every call runs the body, so a debugger stops and nothing is bypassed. */
static void
test_eager_runs_body(void)
{
  setup();
  const int line6[] = {6};
  set_lines(line6, 1);
  run_ok("tf.config.run_functions_eagerly(True)");
  g_assert_cmpint(call_f("1"), ==, TR_OUTCOME_EAGER);
  g_assert_cmpint(call_f("2"), ==, TR_OUTCOME_EAGER);
  g_assert_cmpuint(count_of(TR_EVENT_BREAKPOINT_BYPASSED), ==, 0);
  /* Back to graphs, a cached call says it once. */
  run_ok("tf.config.run_functions_eagerly(False)");
  g_assert_cmpint(call_f("3"), ==, TR_OUTCOME_MISS);
  g_assert_cmpint(call_f("4"), ==, TR_OUTCOME_HIT);
  g_assert_cmpuint(count_of(TR_EVENT_BREAKPOINT_BYPASSED), ==, 1);
}

/* A stop names the cell, and the Function whose body ran: traced or eager. */
static void
test_stopped_names_function(void)
{
  setup();
  PyObject *names = Py_BuildValue("{s:i}", CELL_PATH, 1); /* owned */
  g_assert_nonnull(names);
  tf_module_name_files(tf, names); /* as the kernel passes IPython's map: "<cell 1>" */
  Py_DECREF(names);
  call_f("1"); /* traces: the body's hook stops */
  call_f("2"); /* cached: no stop */
  run_ok("tf.config.run_functions_eagerly(True)");
  call_f("3"); /* eager: stops */
  run_ok("tf.config.run_functions_eagerly(False)");
  tf_module_emit_debugger_stopped(tf, "pause", "<driver>", 1, "<module>", "paused");
  tf_module_emit_debugger_continued(tf);
  tf_module_emit_debugger_continued(tf); /* not paused: nothing */

  g_autoptr(GPtrArray) stops = events_of(TR_EVENT_DEBUGGER_STOPPED);
  g_assert_cmpuint(stops->len, ==, 3);
  g_assert_cmpuint(count_of(TR_EVENT_DEBUGGER_CONTINUED), ==, 3);
  g_autoptr(GPtrArray) calls = events_of(TR_EVENT_CALL);
  const TrEvent *traced = stops->pdata[0], *eager = stops->pdata[1], *top = stops->pdata[2];
  g_assert_cmpstr(traced->file, ==, "<cell 1>");
  g_assert_cmpint(traced->line, ==, 5);
  g_assert_cmpstr(traced->name, ==, "f");
  g_assert_cmpstr(traced->reason, ==, "breakpoint");
  g_assert_true(traced->tracing);
  g_assert_cmpint(traced->fn_id, ==, ((TrEvent *)calls->pdata[0])->fn_id);
  g_assert_cmpstr(traced->fn_name, ==, "f");
  g_assert_false(eager->tracing);
  g_assert_cmpstr(eager->fn_name, ==, "f");
  g_assert_cmpint(eager->fn_id, ==, traced->fn_id);
  g_assert_false(top->tracing);
  g_assert_cmpint(top->fn_id, ==, 0);
  g_assert_null(top->fn_name);
  g_assert_cmpstr(top->file, ==, "<driver>");
  g_assert_cmpstr(top->text, ==, "paused");
  /* Each continue follows its stop. */
  for (guint i = 1; i < events->len; i++)
    if (((TrEvent *)events->pdata[i])->kind == TR_EVENT_DEBUGGER_CONTINUED)
      g_assert_cmpint(((TrEvent *)events->pdata[i - 1])->kind, ==, TR_EVENT_DEBUGGER_STOPPED);
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  static const char *const py_argv[] = {"test-breakpoints", NULL};
  TpConfig config = {.argv = py_argv};
  g_autoptr(GError) error = NULL;
  tp = tp_interp_new(&config, &error);
  g_assert_no_error(error);
  tf = tp_interp_tf(tp);
  PyObject *names = Py_BuildValue("{s:i}", CELL_PATH, 1); /* owned */
  g_assert_nonnull(names);
  tf_module_name_files(tf, names); /* as the kernel passes IPython's map: "<cell 1>" */
  Py_DECREF(names);
  PyObject *h = PyCFunction_New(&hook_def, NULL); /* owned */
  g_assert_nonnull(h);
  g_assert_cmpint(PyDict_SetItemString(tp_interp_globals(tp), "hook", h), ==, 0);
  Py_DECREF(h);
  events = g_ptr_array_new_with_free_func((GDestroyNotify)tr_event_unref);
  subscription = tr_event_bus_subscribe(tp_interp_event_bus(tp), collect, NULL, NULL, false);

  g_test_add_func("/tf/breakpoints/none-set-no-event", test_no_breakpoints_no_event);
  g_test_add_func("/tf/breakpoints/cached-call-bypasses-once-per-change",
                  test_cached_call_bypasses);
  g_test_add_func("/tf/breakpoints/outside-body-no-event", test_outside_body_no_event);
  g_test_add_func("/tf/breakpoints/lookup-hit-and-concrete-call",
                  test_lookup_hit_and_concrete_call);
  g_test_add_func("/tf/breakpoints/eager-runs-body", test_eager_runs_body);
  g_test_add_func("/tf/debugger/stopped-names-tracing-function", test_stopped_names_function);
  int status = g_test_run();
  tr_event_bus_unsubscribe(tp_interp_event_bus(tp), subscription);
  g_ptr_array_unref(events);
  g_assert_cmpint(tp_interp_free(tp), ==, 0);
  return status;
}
