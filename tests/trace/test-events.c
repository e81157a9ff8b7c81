/* test-events.c — the event bus, its JSON and Perfetto forms, and the per-call-site report. */
#include "test-trace.h"
#include "tr-event-log.h"

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

/* A log gives back every event as it was: the same JSON line, from a view and from a copy,
 * and its JSON-lines file is those lines. */
static void
test_log_same_events(TtFixture *fx, gconstpointer data)
{
  run_session(fx);
  g_autoptr(TrEventLog) log = tr_event_log_new();
  for (guint i = 0; i < fx->events->len; i++)
    tr_event_log_append(log, fx->events->pdata[i]);
  g_assert_cmpuint(tr_event_log_length(log), ==, fx->events->len);
  g_autoptr(GString) expected = g_string_new(NULL);
  for (guint i = 0; i < fx->events->len; i++) {
    g_autofree char *line = tr_event_to_json_line(fx->events->pdata[i]);
    TrEvent scratch;
    g_autofree char *viewed = tr_event_to_json_line(tr_event_log_peek(log, i, &scratch));
    g_autoptr(TrEvent) got = tr_event_log_get(log, i);
    g_autofree char *copied = tr_event_to_json_line(got);
    g_assert_cmpstr(viewed, ==, line);
    g_assert_cmpstr(copied, ==, line);
    g_assert_cmpuint(tr_event_log_seq(log, i), ==, ((TrEvent *)fx->events->pdata[i])->seq);
    g_string_append_printf(expected, "%s\n", line);
  }
  g_autofree char *path = g_build_filename(g_get_tmp_dir(), "trellis-test-log.jsonl", NULL);
  g_autoptr(GError) error = NULL;
  g_assert_true(tr_event_log_write_jsonl(log, 0, path, &error));
  g_assert_no_error(error);
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  g_assert_cmpstr(text, ==, expected->str);
  g_unlink(path);
  g_assert_false(tr_event_log_write_jsonl(log, 0, "/nonexistent/dir/x.jsonl", &error));
  g_assert_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
}

/* A cached call's events take a record each (32 bytes), not a struct with copied strings. */
static void
test_log_compact(TtFixture *fx, gconstpointer data)
{
  g_autoptr(TrEventLog) log = tr_event_log_new();
  g_autoptr(TrEvent) call = tr_event_new(TR_EVENT_CALL_END);
  call->fn_id = 7;
  call->fn_name = g_strdup("step");
  tr_event_set_site(call, "<cell 12>", 40, 12);
  call->outcome = TR_OUTCOME_HIT;
  call->cf_id = 3;
  call->dur_ns = 900;
  g_autoptr(TrEvent) run = tr_event_new(TR_EVENT_GRAPH_EXEC_END);
  run->fn_id = 7;
  run->fn_name = g_strdup("step");
  run->cf_id = 3;
  run->graph_id = G_GINT64_CONSTANT(0x55d1c0ffee00); /* a Graph's address */
  run->dur_ns = 700;
  const guint n = 100000;
  for (guint i = 0; i < n; i++) {
    TrEvent *ev = i % 2 ? run : call;
    ev->seq = i + 1;
    ev->ts_ns = (gint64)i * 1000;
    tr_event_log_append(log, ev);
  }
  gsize bytes = tr_event_log_bytes(log);
  g_assert_cmpuint(bytes / n, <=, 40);
  g_autoptr(TrEvent) back = tr_event_log_get(log, n - 1);
  g_assert_cmpint(back->graph_id, ==, run->graph_id);
  g_assert_cmpint(back->ts_ns, ==, (gint64)(n - 1) * 1000);
  g_assert_cmpstr(back->fn_name, ==, "step");
  /* A duration too long for a record and idle time between events still come back. */
  call->seq = n + 1;
  call->ts_ns = G_GINT64_CONSTANT(90) * 1000000000;
  call->dur_ns = G_GINT64_CONSTANT(6) * 1000000000;
  tr_event_log_append(log, call);
  run->seq = n + 2;
  run->ts_ns = G_GINT64_CONSTANT(9000) * 1000000000;
  tr_event_log_append(log, run);
  g_autoptr(TrEvent) long_call = tr_event_log_get(log, n);
  g_assert_cmpint(long_call->dur_ns, ==, call->dur_ns);
  g_assert_cmpint(long_call->ts_ns, ==, call->ts_ns);
  g_autoptr(TrEvent) late = tr_event_log_get(log, n + 1);
  g_assert_cmpint(late->ts_ns, ==, run->ts_ns);
  g_assert_cmpuint(late->seq, ==, n + 2);
}

/* Dropping the oldest events keeps the rest readable and says how many went. */
static void
test_log_drop_front(TtFixture *fx, gconstpointer data)
{
  run_session(fx);
  g_autoptr(TrEventLog) log = tr_event_log_new();
  for (guint i = 0; i < fx->events->len; i++)
    tr_event_log_append(log, fx->events->pdata[i]);
  gsize before = tr_event_log_bytes(log);
  g_assert_cmpuint(tr_event_log_front_for_bytes(log, 1), ==, 1);
  g_assert_cmpuint(tr_event_log_front_for_bytes(log, G_MAXSIZE), ==, fx->events->len);
  tr_event_log_drop_front(log, 5);
  g_assert_cmpuint(tr_event_log_dropped(log), ==, 5);
  g_assert_cmpuint(tr_event_log_length(log), ==, fx->events->len - 5);
  g_assert_cmpuint(tr_event_log_bytes(log), <, before);
  g_assert_cmpuint(tr_event_log_seq(log, 0), ==, 6);
  g_assert_cmpuint(tr_event_log_index_after(log, 0), ==, 0);
  g_assert_cmpuint(tr_event_log_index_after(log, 7), ==, 2);
  g_assert_cmpuint(tr_event_log_index_after(log, fx->events->len), ==, fx->events->len - 5);
  g_autoptr(TrEvent) first = tr_event_log_get(log, 0);
  g_autofree char *a = tr_event_to_json_line(first);
  g_autofree char *b = tr_event_to_json_line(fx->events->pdata[5]);
  g_assert_cmpstr(a, ==, b);

  /* The Perfetto form says how many were dropped, and names the lanes of the Functions whose
   * function_created went with them. */
  g_autoptr(GString) text = g_string_new(NULL);
  tr_event_log_append_perfetto(log, tr_event_log_dropped(log), text);
  json_error_t jerr;
  json_t *doc = json_loads(text->str, 0, &jerr);
  g_assert_nonnull(doc);
  json_t *list = json_object_get(doc, "traceEvents");
  gint64 dropped = -1;
  guint lanes = 0;
  size_t i;
  json_t *e;
  json_array_foreach(list, i, e)
  {
    if (g_strcmp0(json_string_value(json_object_get(e, "cat")), "dropped") == 0) {
      dropped = json_integer_value(json_object_get(json_object_get(e, "args"), "dropped_events"));
      g_assert_cmpstr(json_string_value(json_object_get(e, "name")), ==,
                      "5 earlier events dropped");
    }
    lanes += g_strcmp0(json_string_value(json_object_get(e, "name")), "thread_name") == 0;
  }
  json_decref(doc);
  g_assert_cmpint(dropped, ==, 5);
  g_assert_cmpuint(lanes, ==, 3);

  tr_event_log_drop_front(log, G_MAXUINT64);
  g_assert_cmpuint(tr_event_log_length(log), ==, 0);
  g_assert_cmpuint(tr_event_log_dropped(log), ==, fx->events->len);
  tr_event_log_append(log, fx->events->pdata[0]);
  g_assert_cmpuint(tr_event_log_length(log), ==, 1);
}

/* The direct JSON writer writes what jansson writes, escapes included. */
static void
test_json_escapes(TtFixture *fx, gconstpointer data)
{
  const char *texts[] = {"plain",
                         "quote \" backslash \\ slash /",
                         "tab\tnew\nline\r\b\f",
                         "control \x01\x1f del \x7f",
                         "caf\xc3\xa9 \xe2\x82\xac",
                         "emoji \xf0\x9f\x98\x80",
                         ""};
  for (guint i = 0; i < G_N_ELEMENTS(texts); i++) {
    g_autoptr(TrEvent) ev = tr_event_new(TR_EVENT_TF_PRINT);
    ev->seq = 12345678901;
    ev->ts_ns = -5;
    ev->cell = G_MININT64;
    ev->fn_id = G_MAXINT64;
    ev->text = g_strdup(texts[i]);
    json_t *o = tr_event_to_json(ev);
    char *want = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
    json_decref(o);
    g_autofree char *got = tr_event_to_json_line(ev);
    g_assert_cmpstr(got, ==, want);
    free(want);
  }
}

static void
keep_event(const TrEvent *ev, gpointer data)
{
  g_ptr_array_add(data, tr_event_ref((TrEvent *)ev));
}

static void
note_pointer(const TrEvent *ev, gpointer data)
{
  *(const TrEvent **)data = ev;
}

/* A view goes as it is to a subscriber that keeps nothing, and as a copy to one that keeps. */
static void
test_emit_view(TtFixture *fx, gconstpointer data)
{
  const TrEvent *seen = NULL;
  guint64 all = G_MAXUINT64;
  tr_event_bus_subscribe_full(fx->bus, all, 0, note_pointer, &seen, NULL, false);
  char name[] = "f";
  TrEvent view;
  memset(&view, 0, sizeof view);
  view.kind = TR_EVENT_CALL;
  view.fn_id = 1;
  view.fn_name = name;
  guint64 seq = tr_event_bus_emit_view(fx->bus, &view);
  g_assert_cmpuint(view.seq, ==, seq);
  /* The fixture's subscriber keeps events: it got a copy, the other the view. */
  g_assert_cmpuint(fx->events->len, ==, 1);
  const TrEvent *kept = fx->events->pdata[0];
  g_assert_true(seen == kept);
  g_assert_true(kept != &view);
  g_assert_true(kept->fn_name != name);
  g_assert_cmpstr(kept->fn_name, ==, "f");
  g_assert_cmpuint(kept->seq, ==, seq);

  /* With no keeper left, the view itself is delivered; a span's end keeps its time. */
  g_autoptr(TrEventBus) bus = tr_event_bus_new();
  tr_event_bus_set_history_limit(bus, 0);
  tr_event_bus_subscribe_full(bus, all, 0, note_pointer, &seen, NULL, false);
  g_autoptr(GPtrArray) prints = g_ptr_array_new_with_free_func((GDestroyNotify)tr_event_unref);
  tr_event_bus_subscribe_full(bus, G_GUINT64_CONSTANT(1) << TR_EVENT_TF_PRINT, all, keep_event,
                              prints, NULL, false);
  view.ts_ns = tr_event_bus_now(bus) + 1000000000;
  tr_event_bus_emit_view(bus, &view);
  g_assert_true(seen == &view);
  g_assert_cmpint(view.ts_ns, >, 1000000000 - 1);
  g_assert_cmpuint(prints->len, ==, 0);

  /* A view too big for a log's record (a call of 10 s) is kept as a copy, not the view. */
  g_autoptr(TrEventBus) logging = tr_event_bus_new();
  g_autoptr(TrEventLog) log = tr_event_log_new();
  tr_event_bus_subscribe_full(logging, all, 0, tr_event_log_event_func, log, NULL, false);
  {
    char site[] = "<cell 4>";
    TrEvent end;
    memset(&end, 0, sizeof end);
    end.kind = TR_EVENT_CALL_END;
    end.fn_id = 1;
    end.fn_name = name;
    end.file = site;
    end.dur_ns = G_GINT64_CONSTANT(10000000000);
    tr_event_bus_emit_view(logging, &end);
    memset(&end, 0x5a, sizeof end); /* the view's memory is reused */
    strcpy(site, "garbage");
  }
  g_autoptr(GPtrArray) history = tr_event_bus_get_history(logging);
  g_assert_cmpuint(history->len, ==, 1);
  const TrEvent *from_history = history->pdata[0];
  g_assert_cmpint(from_history->dur_ns, ==, G_GINT64_CONSTANT(10000000000));
  g_assert_cmpstr(from_history->file, ==, "<cell 4>");
  g_autoptr(TrEvent) from_log = tr_event_log_get(log, 0);
  g_assert_cmpstr(from_log->file, ==, "<cell 4>");
}

/* Files written while events come say what files written at the end say, across batches. */
static void
test_writer_streams(TtFixture *fx, gconstpointer data)
{
  run_session(fx);
  /* Past a batch of the writer's: the session's calls again, numbered on. */
  guint n_session = fx->events->len;
  for (guint64 i = 0; fx->events->len < 40000; i++) {
    TrEvent *ev = tr_event_copy(fx->events->pdata[i % n_session]);
    ev->seq = fx->events->len + 1;
    ev->ts_ns += (gint64)(i / n_session + 1) * 1000000000;
    g_ptr_array_add(fx->events, ev);
  }
  g_autoptr(TrEventLog) log = tr_event_log_new();
  g_autofree char *dir = g_dir_make_tmp("trellis-test-writer-XXXXXX", NULL);
  g_autofree char *jsonl = g_build_filename(dir, "a.jsonl", NULL);
  g_autofree char *trace = g_build_filename(dir, "a.json", NULL);
  g_autofree char *jsonl_end = g_build_filename(dir, "b.jsonl", NULL);
  g_autofree char *trace_end = g_build_filename(dir, "b.json", NULL);
  TrEventWriter *w = tr_event_writer_new(jsonl, trace);
  for (guint i = 0; i < fx->events->len; i++) {
    tr_event_writer_event_func(fx->events->pdata[i], w);
    tr_event_log_append(log, fx->events->pdata[i]);
  }
  g_autoptr(GError) error = NULL;
  g_assert_true(tr_event_writer_finish(w, &error));
  g_assert_no_error(error);
  g_assert_true(tr_event_log_write_jsonl(log, 0, jsonl_end, NULL));
  g_assert_true(tr_event_log_write_perfetto(log, 0, trace_end, NULL));
  const char *pairs[][2] = {{jsonl, jsonl_end}, {trace, trace_end}};
  for (guint i = 0; i < G_N_ELEMENTS(pairs); i++) {
    g_autofree char *a = NULL, *b = NULL;
    g_assert_true(g_file_get_contents(pairs[i][0], &a, NULL, NULL));
    g_assert_true(g_file_get_contents(pairs[i][1], &b, NULL, NULL));
    g_assert_cmpuint(strlen(a), >, 40000 * 50);
    g_assert_true(strcmp(a, b) == 0);
    g_unlink(pairs[i][0]);
    g_unlink(pairs[i][1]);
  }
  g_rmdir(dir);

  /* A file that cannot be written is an error at the end, the events dropped meanwhile. */
  w = tr_event_writer_new("/nonexistent/dir/x.jsonl", NULL);
  tr_event_writer_event_func(fx->events->pdata[0], w);
  g_assert_false(tr_event_writer_finish(w, &error));
  g_assert_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
}

void
tt_add_event_tests(void)
{
  FX("/trace/event-log/writer-streams", test_writer_streams);
  FX("/trace/event-log/same-events", test_log_same_events);
  FX("/trace/event-log/compact-records", test_log_compact);
  FX("/trace/event-log/drop-front", test_log_drop_front);
  FX("/trace/events/json-like-jansson", test_json_escapes);
  FX("/trace/events/emit-view", test_emit_view);
  FX("/trace/events/sequence-monotonic", test_sequence_monotonic);
  FX("/trace/events/json-roundtrip", test_json_roundtrip);
  FX("/trace/events/replay-late-subscriber", test_replay_late_subscriber);
  FX("/trace/events/perfetto", test_perfetto);
  FX("/trace/report/per-call-site", test_report_per_call_site);
}
