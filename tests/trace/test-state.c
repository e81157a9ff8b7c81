/* test-state.c — TrState: the model folded from events, and its snapshot (a late subscriber's
 * starting point). */
#include "test-trace.h"
#include "tr-state.h"

#include <string.h>

#define FX(path, fn) g_test_add(path, TtFixture, NULL, tt_fixture_setup, fn, tt_fixture_teardown)

static void
emit_cell(TtFixture *fx, TrEventKind kind, gint64 cell, const char *text)
{
  TrEvent *ev = tr_event_new(kind);
  ev->cell = cell;
  ev->text = g_strdup(text);
  if (kind == TR_EVENT_CELL_END)
    ev->dur_ns = 1000;
  tr_event_bus_emit(fx->bus, ev);
}

static void
emit_stop(TtFixture *fx, const char *file, int line, bool tracing)
{
  TrEvent *ev = tr_event_new(TR_EVENT_DEBUGGER_STOPPED);
  tr_event_set_site(ev, file, line, 2);
  ev->name = g_strdup("g");
  ev->fn_id = 2;
  ev->fn_name = g_strdup("g");
  ev->reason = g_strdup(tracing ? "breakpoint" : "step");
  ev->tracing = tracing;
  tr_event_bus_emit(fx->bus, ev);
}

/* Two cells; `double` traces for shapes (1,), (2,), (3,) and hits; `g` traces per Python value,
 * a debugger stopping twice while cell 2 runs, then continuing; an eager call; a Variable. */
static void
run_session(TtFixture *fx)
{
  emit_cell(fx, TR_EVENT_CELL_START, 1, "double(x)");
  g_autoptr(TrFn) fn = tt_fn_new(fx, "double", 1);
  for (int i = 0; i < 7; i++) {
    g_autoptr(TrTraceSig) s = tt_sig("a", tt_tensor(TR_INT32, 1, i % 3 + 1), NULL);
    tt_call(fx, fn, s, "<cell 1>", 2, 3, NULL);
  }
  emit_cell(fx, TR_EVENT_CELL_END, 1, NULL);
  emit_cell(fx, TR_EVENT_CELL_START, 2, "g(n)");
  g_autoptr(TrFn) g = tt_fn_new(fx, "g", 2);
  for (int i = 0; i < 4; i++) {
    g_autoptr(TrTraceSig) s = tt_sig("n", tr_trace_type_new_int(i % 2), NULL);
    tt_call(fx, g, s, "<cell 2>", 5, 2, NULL);
    if (i == 1)
      emit_stop(fx, "<cell 2>", 3, true);
    if (i == 2)
      emit_stop(fx, "<cell 2>", 4, false); /* a step: stopped again, no continue between */
  }
  tr_event_bus_emit(fx->bus, tr_event_new(TR_EVENT_DEBUGGER_CONTINUED));
  TrEvent *ev = tr_event_new(TR_EVENT_VARIABLE_CREATED);
  ev->cell = 2;
  ev->var_id = 7;
  ev->name = g_strdup("v:0");
  ev->dtype = g_strdup("float32");
  ev->shape = g_strdup("()");
  tr_event_bus_emit(fx->bus, ev);
  tr_fn_registry_set_run_eagerly(fx->reg, true);
  g_autoptr(TrTraceSig) s = tt_sig("n", tr_trace_type_new_int(9), NULL);
  tt_call(fx, g, s, "<cell 2>", 6, 0, NULL);
  emit_cell(fx, TR_EVENT_CELL_END, 2, NULL);
}

static TrState *
state_of(GPtrArray *events, guint from, guint to, TrState *into)
{
  TrState *s = into ? into : tr_state_new(G_MAXUINT);
  for (guint i = from; i < to; i++)
    tr_state_apply(s, events->pdata[i]);
  return s;
}

static void
test_counts(TtFixture *fx, gconstpointer data)
{
  run_session(fx);
  g_autoptr(TrState) s = state_of(fx->events, 0, fx->events->len, NULL);
  g_assert_cmpuint(tr_state_last_seq(s), ==, fx->events->len);
  GPtrArray *fns = tr_state_functions(s);
  g_assert_cmpuint(fns->len, ==, 2);
  const TrStateFn *d = fns->pdata[0];
  g_assert_cmpstr(d->name, ==, "double");
  g_assert_cmpuint(d->calls, ==, 7);
  g_assert_cmpuint(d->misses, ==, 3);
  g_assert_cmpuint(d->hits, ==, 4);
  g_assert_cmpuint(d->traces->len, ==, 3);
  g_assert_cmpuint(d->retraces->len, ==, 3);
  g_assert_cmpint(d->trace_ns, ==, 9 * G_TIME_SPAN_MILLISECOND * 1000);
  /* Each trace knows the miss that made it and how many calls it served. */
  guint64 served = 0;
  for (guint i = 0; i < d->traces->len; i++) {
    const TrStateTrace *t = d->traces->pdata[i];
    g_assert_nonnull(t->retrace);
    g_assert_cmpint(t->retrace->cf_id, ==, t->id);
    g_assert_cmpint(t->trace_ns, ==, 3 * G_TIME_SPAN_MILLISECOND * 1000);
    g_assert_true(tr_state_trace(s, t->id) == t);
    served += t->served;
  }
  g_assert_cmpuint(served, ==, 7);
  const TrStateTrace *first = d->traces->pdata[0];
  g_assert_cmpint(((TrRetraceCause *)first->retrace->causes->pdata[0])->kind, ==,
                  TR_CAUSE_FIRST_CALL);
  g_autofree char *last = tr_state_fn_last_cause(d);
  g_assert_cmpstr(last, ==, "arg 'a': shape (3,) does not match (1,)");
  g_assert_cmpfloat_with_epsilon(tr_state_fn_hit_rate(d), 4.0 / 7.0, 1e-9);

  const TrStateFn *gf = fns->pdata[1];
  g_assert_cmpuint(gf->calls, ==, 5);
  g_assert_cmpuint(gf->eager, ==, 1);
  g_assert_cmpuint(gf->misses, ==, 2);
  g_assert_true(tr_state_eager(s));
  g_assert_cmpuint(tr_state_cells(s)->len, ==, 2);
  const TrStateCell *c2 = tr_state_cells(s)->pdata[1];
  g_assert_cmpint(c2->number, ==, 2);
  g_assert_false(c2->running);
  g_assert_cmpstr(c2->source, ==, "g(n)");
  g_assert_cmpuint(tr_state_variables(s)->len, ==, 1);
  /* Old events are ignored. */
  g_assert_false(tr_state_apply(s, fx->events->pdata[3]));
  g_assert_cmpuint(d->calls, ==, 7);
}

static char *
snapshot_text(TrState *s)
{
  json_t *j = tr_state_to_json(s, G_MAXUINT);
  char *text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
  json_decref(j);
  char *copy = g_strdup(text);
  free(text);
  return copy;
}

/* A subscriber that loads a snapshot taken after any prefix of the stream, then applies the
 * whole live stream (events it already has included), ends in the publisher's state. */
static void
test_snapshot_then_live(TtFixture *fx, gconstpointer data)
{
  run_session(fx);
  GPtrArray *evs = fx->events;
  g_autoptr(TrState) full = state_of(evs, 0, evs->len, NULL);
  g_autofree char *want = snapshot_text(full);
  for (guint cut = 0; cut <= evs->len; cut++) {
    g_autoptr(TrState) pub = state_of(evs, 0, cut, NULL);
    json_t *j = tr_state_to_json(pub, G_MAXUINT);
    char *wire = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    json_t *back = json_loads(wire, 0, NULL);
    free(wire);
    g_autoptr(GError) error = NULL;
    g_autoptr(TrState) sub = tr_state_from_json(back, G_MAXUINT, &error);
    json_decref(back);
    g_assert_no_error(error);
    state_of(evs, cut > 5 ? cut - 5 : 0, evs->len, sub);
    g_autofree char *got = snapshot_text(sub);
    if (g_strcmp0(got, want) != 0)
      g_error("snapshot at %u then live differs:\n%s\n%s", cut, got, want);
  }
}

static void
test_window(TtFixture *fx, gconstpointer data)
{
  run_session(fx);
  GPtrArray *evs = fx->events;
  g_autoptr(TrState) s = state_of(evs, 0, evs->len, tr_state_new(8));
  const TrEventLog *kept = tr_state_event_log(s);
  guint64 n_kept = tr_event_log_length(kept);
  g_assert_cmpuint(n_kept, >=, 8);
  g_assert_cmpuint(n_kept, <=, 8 + 16);
  g_assert_cmpuint(n_kept + tr_state_events_dropped(s), ==, evs->len);
  g_assert_cmpuint(tr_event_log_seq(kept, n_kept - 1), ==, evs->len);
  /* What the window lacks: the events numbered before its oldest. */
  g_assert_cmpuint(tr_state_events_missing(s), ==, tr_state_events_dropped(s));
  /* Counters cover every event, kept or not. */
  g_assert_cmpuint(((TrStateFn *)tr_state_functions(s)->pdata[0])->calls, ==, 7);

  guint64 last = evs->len;
  g_autoptr(GPtrArray) tail = tr_state_events_since(s, last - 3);
  g_assert_cmpuint(tail->len, ==, 3);
  g_assert_cmpuint(((TrEvent *)tail->pdata[0])->seq, ==, last - 2);
  g_autoptr(GPtrArray) none = tr_state_events_since(s, last);
  g_assert_cmpuint(none->len, ==, 0);
  g_assert_null(tr_state_events_since(s, 1)); /* dropped: a snapshot is needed */

  /* A snapshot carries the last few events: a state made from it lacks the earlier ones. */
  g_autoptr(TrState) full = state_of(evs, 0, evs->len, tr_state_new(G_MAXUINT));
  g_assert_cmpuint(tr_state_events_missing(full), ==, 0);
  json_t *j = tr_state_to_json(full, 5);
  g_autoptr(TrState) late = tr_state_from_json(j, G_MAXUINT, NULL);
  json_decref(j);
  g_assert_nonnull(late);
  g_assert_cmpuint(tr_event_log_length(tr_state_event_log(late)), ==, 5);
  g_assert_cmpuint(tr_state_events_missing(late), ==, evs->len - 5);
  g_assert_cmpuint(tr_state_events_dropped(late), ==, 0);

  g_autoptr(TrState) none_kept = state_of(evs, 0, evs->len, tr_state_new(0));
  g_assert_cmpuint(tr_event_log_length(tr_state_event_log(none_kept)), ==, 0);
  g_assert_cmpuint(tr_state_events_missing(none_kept), ==, evs->len);
}

static void
test_limits(TtFixture *fx, gconstpointer data)
{
  /* 1000 cells, each with a 1 KB source, into a state keeping 100 cells and ~64 KB of events. */
  g_autoptr(TrState) s = tr_state_new(G_MAXUINT);
  tr_state_set_limits(s, 100, 64 << 10);
  g_autofree char *source = g_strnfill(1000, 'x');
  run_session(fx);
  for (gint64 cell = 3; cell < 1003; cell++) {
    emit_cell(fx, TR_EVENT_CELL_START, cell, source);
    emit_cell(fx, TR_EVENT_CELL_END, cell, NULL);
  }
  state_of(fx->events, 0, fx->events->len, s);

  GPtrArray *cells = tr_state_cells(s);
  g_assert_cmpuint(cells->len, >=, 100);
  g_assert_cmpuint(cells->len, <=, 100 + 16);
  g_assert_cmpuint(cells->len + tr_state_cells_dropped(s), ==, 1002);
  g_assert_cmpint(((TrStateCell *)cells->pdata[cells->len - 1])->number, ==, 1002);
  g_assert_false(((TrStateCell *)cells->pdata[cells->len - 1])->running);

  const TrEventLog *kept = tr_state_event_log(s);
  gsize bytes = tr_event_log_event_bytes(kept);
  g_assert_cmpuint(bytes, <=, (64 << 10) + (64 << 10) / 16);
  g_assert_cmpuint(bytes, >=, (64 << 10) - 2048);
  g_assert_cmpuint(tr_event_log_length(kept) + tr_state_events_dropped(s), ==, fx->events->len);
  /* The Functions' counters are exact whatever was dropped. */
  g_assert_cmpuint(((TrStateFn *)tr_state_functions(s)->pdata[0])->calls, ==, 7);

  /* The snapshot says how many cells were dropped, and carries it on. */
  json_t *j = tr_state_to_json(s, G_MAXUINT);
  g_assert_cmpint(json_integer_value(json_object_get(j, "cells_dropped")), ==,
                  (json_int_t)tr_state_cells_dropped(s));
  g_autoptr(TrState) back = tr_state_from_json(j, G_MAXUINT, NULL);
  json_decref(j);
  g_assert_cmpuint(tr_state_cells_dropped(back), ==, tr_state_cells_dropped(s));
  g_assert_cmpuint(tr_state_cells(back)->len, ==, cells->len);
}

static void
test_graph_carried(TtFixture *fx, gconstpointer data)
{
  TrEvent *ev = tr_event_new(TR_EVENT_CONCRETE_ADDED);
  ev->fn_id = 4;
  ev->fn_name = g_strdup("f");
  ev->cf_id = 9;
  ev->graph = g_strdup("{\"nodes\":[]}");
  tr_event_bus_emit(fx->bus, ev);
  g_autoptr(TrState) s = state_of(fx->events, 0, fx->events->len, NULL);
  g_assert_cmpstr(tr_state_trace(s, 9)->graph_json, ==, "{\"nodes\":[]}");
  /* The graph survives the JSON line of the event too. */
  g_autofree char *line = tr_event_to_json_line(fx->events->pdata[0]);
  g_assert_nonnull(strstr(line, "\"graph\":\"{\\\"nodes\\\":[]}\""));
}

/* The kernel is paused from debugger_stopped to debugger_continued; a step replaces the stop;
 * a snapshot taken while paused says where. */
static void
test_debugger_paused(TtFixture *fx, gconstpointer data)
{
  run_session(fx);
  g_autoptr(TrState) s = tr_state_new(G_MAXUINT);
  const TrEvent *paused = NULL;
  guint n_stops = 0;
  for (guint i = 0; i < fx->events->len; i++) {
    const TrEvent *ev = fx->events->pdata[i];
    tr_state_apply(s, ev);
    if (ev->kind == TR_EVENT_DEBUGGER_STOPPED) {
      n_stops++;
      paused = tr_state_paused(s);
      g_assert_true(paused == ev);
      json_t *j = tr_state_to_json(s, 0);
      g_autoptr(TrState) back = tr_state_from_json(j, 0, NULL);
      json_decref(j);
      const TrEvent *p = tr_state_paused(back);
      g_assert_nonnull(p);
      g_assert_cmpstr(p->file, ==, "<cell 2>");
      g_assert_cmpint(p->line, ==, n_stops == 1 ? 3 : 4);
      g_assert_cmpstr(p->reason, ==, n_stops == 1 ? "breakpoint" : "step");
      g_assert_cmpint(p->tracing, ==, n_stops == 1);
      g_assert_cmpstr(p->fn_name, ==, "g");
    } else if (ev->kind == TR_EVENT_DEBUGGER_CONTINUED) {
      g_assert_null(tr_state_paused(s));
    } else if (n_stops > 0 && tr_state_paused(s)) {
      g_assert_true(tr_state_paused(s) == paused); /* other events leave the stop in force */
    }
  }
  g_assert_cmpuint(n_stops, ==, 2);
  g_assert_null(tr_state_paused(s));
  json_t *j = tr_state_to_json(s, 0);
  g_assert_true(json_is_null(json_object_get(j, "paused")));
  json_decref(j);
}

static void
test_malformed(void)
{
  const char *bad[] = {
      "[]",
      "{\"version\":2}",
      "{\"version\":1,\"seq\":-1}",
      "{\"version\":1,\"seq\":1,\"functions\":{}}",
      "{\"version\":1,\"seq\":1,\"functions\":[1]}",
      "{\"version\":1,\"seq\":1,\"functions\":[{\"id\":1}]}",
      "{\"version\":1,\"seq\":1,\"functions\":[{\"id\":1,\"traces\":[],\"retraces\":[]},"
      "{\"id\":1,\"traces\":[],\"retraces\":[]}],\"cells\":[],\"variables\":[],\"events\":[]}",
      "{\"version\":1,\"seq\":1,\"functions\":[],\"cells\":[],\"variables\":[],"
      "\"events\":[{\"seq\":5,\"kind\":\"call\"}]}",
      "{\"version\":1,\"seq\":9,\"functions\":[],\"cells\":[],\"variables\":[],"
      "\"events\":[{\"seq\":5,\"kind\":\"nope\"}]}",
      "{\"version\":1,\"seq\":9,\"functions\":[],\"cells\":[],\"variables\":[],"
      "\"events\":[],\"paused\":{\"seq\":5,\"kind\":\"call\"}}",
      "{\"version\":1,\"seq\":9,\"functions\":[],\"cells\":[],\"variables\":[],"
      "\"events\":[],\"paused\":{\"kind\":\"debugger_stopped\",\"line\":\"x\"}}",
  };
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    json_t *j = json_loads(bad[i], 0, NULL);
    g_assert_nonnull(j);
    g_autoptr(GError) error = NULL;
    g_assert_null(tr_state_from_json(j, G_MAXUINT, &error));
    g_assert_error(error, TR_EVENTS_ERROR, TR_EVENTS_ERROR_INVALID);
    json_decref(j);
  }
  json_t *ok = json_loads("{\"version\":1,\"seq\":0,\"functions\":[],\"cells\":[],"
                          "\"variables\":[],\"events\":[]}",
                          0, NULL);
  g_autoptr(TrState) s = tr_state_from_json(ok, 4, NULL);
  json_decref(ok);
  g_assert_nonnull(s);
  g_assert_cmpuint(tr_state_last_seq(s), ==, 0);
}

void
tt_add_state_tests(void)
{
  FX("/trace/state/counts-traces-and-causes", test_counts);
  FX("/trace/state/snapshot-then-live-equals-publisher", test_snapshot_then_live);
  FX("/trace/state/window-and-events-since", test_window);
  FX("/trace/state/cell-and-byte-limits", test_limits);
  FX("/trace/state/graph-json-carried", test_graph_carried);
  FX("/trace/state/debugger-paused-until-continued", test_debugger_paused);
  g_test_add_func("/trace/state/malformed-snapshot", test_malformed);
}
