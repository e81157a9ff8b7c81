/* test-events.c — the event bus, its JSON and Perfetto forms, and the per-call-site report. */
#include "test-trace.h"

#include <glib/gstdio.h>
#include <string.h>

#define FX(path, fn) g_test_add(path, TtFixture, NULL, tt_fixture_setup, fn, tt_fixture_teardown)

/* A session touching every event kind: cells, two Functions, hits, misses, a warning, eager
 * mode, a graph run, tf.print, a Variable and an error. */
static void
run_session(TtFixture *fx)
{
  TrEvent *ev = tr_event_new(TR_EVENT_CELL_START);
  ev->cell = 1;
  ev->text = g_strdup("double(tf.constant(1))");
  tr_event_bus_emit(fx->bus, ev);

  g_autoptr(TrFn) fn = tt_fn_new(fx, "double", 1);
  for (int i = 0; i < 6; i++) {
    g_autoptr(TrTraceSig) s = tt_sig("a", tt_tensor(TR_INT32, 1, i % 3 + 1), NULL);
    tt_call(fx, fn, s, "<cell 1>", 2 + i % 2, 3, NULL);
  }
  g_autoptr(TrFn) g = tt_fn_new(fx, "g", 2);
  for (int i = 0; i < 6; i++) {
    g_autoptr(TrTraceSig) s = tt_sig("n", tr_trace_type_new_int(i), NULL);
    tt_call(fx, g, s, "<cell 1>", 9, 2, NULL);
  }
  ev = tr_event_new(TR_EVENT_GRAPH_EXEC_START);
  ev->fn_id = 1;
  ev->fn_name = g_strdup("double");
  ev->cf_id = 1;
  ev->graph_id = 101;
  tr_event_bus_emit(fx->bus, ev);
  fx->now_ns += 5000;
  ev = tr_event_new(TR_EVENT_GRAPH_EXEC_END);
  ev->fn_id = 1;
  ev->fn_name = g_strdup("double");
  ev->cf_id = 1;
  ev->graph_id = 101;
  ev->dur_ns = 5000;
  tr_event_bus_emit(fx->bus, ev);
  ev = tr_event_new(TR_EVENT_TF_PRINT);
  ev->text = g_strdup("Executing with num_steps =  10\n");
  tr_event_bus_emit(fx->bus, ev);
  ev = tr_event_new(TR_EVENT_VARIABLE_CREATED);
  ev->var_id = 3;
  ev->name = g_strdup("Variable:0");
  ev->dtype = g_strdup("float32");
  ev->shape = g_strdup("()");
  tr_event_bus_emit(fx->bus, ev);
  tr_fn_registry_set_run_eagerly(fx->reg, true);
  g_autoptr(TrTraceSig) s = tt_sig("a", tt_tensor(TR_INT32, 1, 1), NULL);
  tt_call(fx, fn, s, "<cell 1>", 20, 0, NULL);
  tr_fn_registry_set_run_eagerly(fx->reg, false);
  /* A debugger stops in the body of `g` while it traces, then lets it run; a later cached call
   * of `double` runs its graph past a breakpoint in its body. */
  ev = tr_event_new(TR_EVENT_DEBUGGER_STOPPED);
  tr_event_set_site(ev, "<cell 1>", 8, 1);
  ev->name = g_strdup("g");
  ev->fn_id = 2;
  ev->fn_name = g_strdup("g");
  ev->reason = g_strdup("breakpoint");
  ev->tracing = true;
  tr_event_bus_emit(fx->bus, ev);
  fx->now_ns += 2000000;
  ev = tr_event_new(TR_EVENT_DEBUGGER_CONTINUED);
  ev->dur_ns = 2000000;
  tr_event_bus_emit(fx->bus, ev);
  ev = tr_event_new(TR_EVENT_BREAKPOINT_BYPASSED);
  tr_event_set_site(ev, "<cell 1>", 22, 1);
  ev->fn_id = 1;
  ev->fn_name = g_strdup("double");
  ev->cf_id = 1;
  ev->bp_file = g_strdup("<cell 1>");
  ev->bp_line = 3;
  ev->text = g_strdup("double ran its cached graph");
  tr_event_bus_emit(fx->bus, ev);
  ev = tr_event_new(TR_EVENT_ERROR);
  tr_event_set_site(ev, "<cell 1>", 21, 1);
  ev->name = g_strdup("ValueError");
  ev->text = g_strdup("Python inputs incompatible with input_signature: \"quoted\" \u2192");
  tr_event_bus_emit(fx->bus, ev);
  ev = tr_event_new(TR_EVENT_CELL_END);
  ev->cell = 1;
  ev->dur_ns = fx->now_ns - 1000000;
  tr_event_bus_emit(fx->bus, ev);
}

static void
test_sequence_monotonic(TtFixture *fx, gconstpointer data)
{
  run_session(fx);
  g_assert_cmpuint(fx->events->len, >, 40);
  bool seen[TR_EVENT_N_KINDS] = {false};
  for (guint i = 0; i < fx->events->len; i++) {
    const TrEvent *ev = g_ptr_array_index(fx->events, i);
    g_assert_cmpuint(ev->seq, ==, i + 1);
    if (i > 0)
      g_assert_cmpint(ev->ts_ns, >=, ((TrEvent *)g_ptr_array_index(fx->events, i - 1))->ts_ns);
    seen[ev->kind] = true;
  }
  for (int k = 0; k < TR_EVENT_N_KINDS; k++)
    if (!seen[k])
      g_error("no %s event in the session", tr_event_kind_name(k));
}

static void
test_json_roundtrip(TtFixture *fx, gconstpointer data)
{
  run_session(fx);
  for (guint i = 0; i < fx->events->len; i++) {
    const TrEvent *ev = g_ptr_array_index(fx->events, i);
    g_autofree char *line = tr_event_to_json_line(ev);
    g_assert_null(strchr(line, '\n'));
    json_error_t jerr;
    json_t *obj = json_loads(line, 0, &jerr);
    g_assert_nonnull(obj);
    g_assert_cmpstr(json_string_value(json_object_get(obj, "kind")), ==,
                    tr_event_kind_name(ev->kind));
    g_autoptr(GError) error = NULL;
    g_autoptr(TrEvent) back = tr_event_from_json(obj, &error);
    g_assert_no_error(error);
    json_decref(obj);
    g_assert_cmpuint(back->seq, ==, ev->seq);
    g_assert_cmpint(back->kind, ==, ev->kind);
    g_autofree char *again = tr_event_to_json_line(back);
    g_assert_cmpstr(again, ==, line);
  }
  /* The retrace causes survive as structured values. */
  g_autoptr(GPtrArray) causes = tt_events_of(fx, TR_EVENT_RETRACE_CAUSE);
  g_autofree char *line = tr_event_to_json_line(g_ptr_array_index(causes, 1));
  json_t *obj = json_loads(line, 0, NULL);
  g_autoptr(TrEvent) back = tr_event_from_json(obj, NULL);
  json_decref(obj);
  TrRetraceCause *c = g_ptr_array_index(back->causes, 0);
  g_assert_cmpstr(c->arg, ==, "a");
  g_assert_cmpint(c->kind, ==, TR_CAUSE_SHAPE);
  g_assert_cmpstr(c->text, ==, "arg 'a': shape (2,) does not match (1,)");

  /* Malformed input from outside is an error, not a crash. */
  const char *bad[] = {"[]", "{\"kind\":\"nope\"}", "{\"kind\":\"call\",\"line\":\"x\"}",
                       "{\"kind\":\"retrace_cause\",\"causes\":[{}]}"};
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    json_t *o = json_loads(bad[i], 0, NULL);
    g_autoptr(GError) error = NULL;
    g_assert_null(tr_event_from_json(o, &error));
    g_assert_error(error, TR_EVENTS_ERROR, TR_EVENTS_ERROR_INVALID);
    json_decref(o);
  }
}

static void
count_event(const TrEvent *ev, gpointer data)
{
  (*(guint *)data)++;
}

static void
test_replay_late_subscriber(TtFixture *fx, gconstpointer data)
{
  run_session(fx);
  guint late = 0, live = 0;
  tr_event_bus_subscribe(fx->bus, count_event, &late, NULL, true);
  guint id = tr_event_bus_subscribe(fx->bus, count_event, &live, NULL, false);
  g_assert_cmpuint(late, ==, fx->events->len);
  g_assert_cmpuint(live, ==, 0);
  tr_event_bus_emit(fx->bus, tr_event_new(TR_EVENT_CELL_START));
  g_assert_cmpuint(late, ==, fx->events->len);
  g_assert_cmpuint(live, ==, 1);
  tr_event_bus_unsubscribe(fx->bus, id);
  tr_event_bus_set_history_limit(fx->bus, 3);
  g_autoptr(GPtrArray) hist = tr_event_bus_get_history(fx->bus);
  g_assert_cmpuint(hist->len, ==, 3);
  g_assert_cmpuint(((TrEvent *)g_ptr_array_index(hist, 2))->seq, ==, fx->events->len);
}

static void
test_perfetto(TtFixture *fx, gconstpointer data)
{
  run_session(fx);
  json_t *doc = tr_events_to_perfetto(fx->events);
  /* Through text and back, as a trace viewer reads it. */
  char *text = json_dumps(doc, 0);
  json_decref(doc);
  json_error_t jerr;
  doc = json_loads(text, 0, &jerr);
  free(text);
  g_assert_nonnull(doc);
  json_t *list = json_object_get(doc, "traceEvents");
  g_assert_true(json_is_array(list));
  guint n_x = 0, n_call = 0, n_trace = 0, n_instant = 0, n_lanes = 0;
  size_t i;
  json_t *e;
  json_array_foreach(list, i, e)
  {
    const char *ph = json_string_value(json_object_get(e, "ph"));
    g_assert_nonnull(ph);
    g_assert_nonnull(json_string_value(json_object_get(e, "name")));
    g_assert_true(json_is_number(json_object_get(e, "ts")));
    g_assert_true(json_is_integer(json_object_get(e, "pid")));
    g_assert_true(json_is_integer(json_object_get(e, "tid")));
    if (strcmp(ph, "X") == 0) {
      n_x++;
      g_assert_true(json_is_number(json_object_get(e, "dur")));
      g_assert_cmpfloat(json_number_value(json_object_get(e, "dur")), >=, 0);
      g_assert_cmpfloat(json_number_value(json_object_get(e, "ts")), >=, 0);
      const char *cat = json_string_value(json_object_get(e, "cat"));
      n_call += strcmp(cat, "call") == 0;
      n_trace += strcmp(cat, "trace") == 0;
      if (strcmp(cat, "call") == 0 || strcmp(cat, "trace") == 0)
        g_assert_cmpint(json_integer_value(json_object_get(e, "tid")), >=, 1);
    } else if (strcmp(ph, "i") == 0) {
      n_instant++;
    } else if (strcmp(ph, "M") == 0) {
      n_lanes += strcmp(json_string_value(json_object_get(e, "name")), "thread_name") == 0;
    }
  }
  json_decref(doc);
  g_assert_cmpuint(n_call, ==, 13);
  g_assert_cmpuint(n_trace, ==, 9);
  /* calls, traces, one graph run, one cell, one debugger pause */
  g_assert_cmpuint(n_x, ==, 13 + 9 + 1 + 1 + 1);
  g_assert_cmpuint(n_lanes, ==, 3); /* cells and two Functions */
  g_assert_cmpuint(n_instant, >, 0);

  /* The file form parses too. */
  g_autofree char *path = g_build_filename(g_get_tmp_dir(), "trellis-test-perfetto.json", NULL);
  g_autoptr(GError) error = NULL;
  g_assert_true(tr_events_write_perfetto(fx->events, path, &error));
  g_assert_no_error(error);
  json_t *file_doc = json_load_file(path, 0, &jerr);
  g_assert_nonnull(file_doc);
  json_decref(file_doc);
  g_unlink(path);
}

static void
test_report_per_call_site(TtFixture *fx, gconstpointer data)
{
  g_autoptr(TrFn) fn = tt_fn_new(fx, "f", 1);
  /* Line 2 retraces on every new kind of tensor; line 5 always hits. */
  TrDType dtypes[] = {TR_FLOAT32, TR_FLOAT32, TR_FLOAT64};
  int sizes[] = {1, 2, 2};
  for (int i = 0; i < 3; i++) {
    g_autoptr(TrTraceSig) s = tt_sig("x", tt_tensor(dtypes[i], 1, sizes[i]), NULL);
    tt_call(fx, fn, s, "<cell 3>", 2, 4, NULL);
    g_autoptr(TrTraceSig) again = tt_sig("x", tt_tensor(TR_FLOAT32, 1, 1), NULL);
    tt_call(fx, fn, again, "<cell 3>", 5, 4, NULL);
  }
  g_autoptr(TrTraceSig) s = tt_sig("x", tt_tensor(TR_FLOAT32, 1, 4), NULL);
  tt_call(fx, fn, s, "<cell 4>", 1, 10, NULL);
  g_autoptr(TrTraceSig) s3 = tt_sig("x", tt_tensor(TR_FLOAT32, 1, 5), NULL);
  tt_call(fx, fn, s3, "<cell 3>", 2, 4, NULL);

  g_autofree char *report = tr_report_from_events(fx->events);
  g_assert_cmpstr(report, ==,
                  "Function f (<function f at 0x7f000001>)\n"
                  "  8 calls: 3 hits, 5 misses, 0 eager; 5 traces, 26.000 ms tracing\n"
                  "  <cell 3>, line 2: 4 calls: 0 hits, 4 misses, 0 eager; 4 traces, 16.000 ms "
                  "tracing\n"
                  "    first call\n"
                  "    arg 'x': shape (2,) does not match (1,)  (x2)\n"
                  "    arg 'x': dtype float64, traces have float32\n"
                  "    arg 'x': shape (5,) does not match (1,)\n"
                  "  <cell 4>, line 1: 1 call: 0 hits, 1 miss, 0 eager; 1 trace, 10.000 ms "
                  "tracing\n"
                  "    arg 'x': shape (4,) does not match (1,)\n"
                  "  <cell 3>, line 5: 3 calls: 3 hits, 0 misses, 0 eager; 0 traces, 0.000 ms "
                  "tracing\n");

  /* The same report, built live as a subscriber that attached late. */
  g_autoptr(TrReport) live = tr_report_new();
  tr_event_bus_subscribe(fx->bus, tr_report_event_func, live, NULL, true);
  g_autofree char *live_text = tr_report_to_string(live);
  g_assert_cmpstr(live_text, ==, report);
}

void
tt_add_event_tests(void)
{
  FX("/trace/events/sequence-monotonic", test_sequence_monotonic);
  FX("/trace/events/json-roundtrip", test_json_roundtrip);
  FX("/trace/events/replay-late-subscriber", test_replay_late_subscriber);
  FX("/trace/events/perfetto", test_perfetto);
  FX("/trace/report/per-call-site", test_report_per_call_site);
}
