/* test-models.c — the debugger's logic that needs no display (GTK is not initialised): the
 * text of its tables and log, the event log's filter and how it tells its model to refilter,
 * and the Functions table's sorters over a real TdStore. */
#include <gtk/gtk.h>

#include "td-event-filter.h"
#include "td-format.h"
#include "td-functions-view.h"
#include "td-paced-list.h"
#include "td-store.h"
#include "td-trace-diff.h"

/* ---- events through a real bus (sequence numbers and times as in a session) ---- */

static void
collect(const TrEvent *ev, gpointer user_data)
{
  g_ptr_array_add(user_data, tr_event_ref((TrEvent *)ev));
}

typedef struct {
  TrEventBus *bus;   /* numbers the events */
  GPtrArray *events; /* what it emitted */
} Session;

static void
session_init(Session *s)
{
  s->bus = tr_event_bus_new();
  s->events = g_ptr_array_new_with_free_func((GDestroyNotify)tr_event_unref);
  tr_event_bus_subscribe(s->bus, collect, s->events, NULL, false);
}

static void
session_clear(Session *s)
{
  tr_event_bus_unref(s->bus);
  g_ptr_array_unref(s->events);
}

static void
emit_created(Session *s, gint64 fn_id, const char *name)
{
  TrEvent *ev = tr_event_new(TR_EVENT_FUNCTION_CREATED);
  ev->fn_id = fn_id;
  ev->fn_name = g_strdup(name);
  tr_event_bus_emit(s->bus, ev);
}

static void
emit_call(Session *s, gint64 fn_id, const char *name, TrOutcome outcome, int line)
{
  TrEvent *ev = tr_event_new(TR_EVENT_CALL);
  ev->fn_id = fn_id;
  ev->fn_name = g_strdup(name);
  ev->outcome = outcome;
  tr_event_set_site(ev, "<cell 2>", line, 2);
  tr_event_bus_emit(s->bus, ev);
}

static void
emit_retrace(Session *s, gint64 fn_id, const char *name, const char *cause)
{
  TrEvent *ev = tr_event_new(TR_EVENT_RETRACE_CAUSE);
  ev->fn_id = fn_id;
  ev->fn_name = g_strdup(name);
  ev->causes = tr_retrace_causes_new();
  g_ptr_array_add(ev->causes, tr_retrace_cause_new("x", TR_CAUSE_SHAPE, cause));
  tr_event_set_site(ev, "<cell 3>", 7, 3);
  tr_event_bus_emit(s->bus, ev);
}

/* ---- formats ---- */

static void
test_format_duration(void)
{
  static const struct {
    gint64 ns;
    const char *text;
  } cases[] = {
      {850, "850 ns"},        {12500, "12.5 µs"}, {3400000, "3.40 ms"},
      {1250000000, "1.25 s"}, {0, "0 ns"},        {-1, "—"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *text = td_format_duration_ns(cases[i].ns);
    g_assert_cmpstr(text, ==, cases[i].text);
  }
}

static void
test_format_count(void)
{
  g_autofree char *small = td_format_count(999);
  g_autofree char *big = td_format_count(1234567);
  g_autofree char *zero = td_format_count(0);
  g_assert_cmpstr(small, ==, "999");
  g_assert_cmpstr(big, ==, "1\u202f234\u202f567");
  g_assert_cmpstr(zero, ==, "0");
}

static void
test_format_hit_rate(void)
{
  g_autofree char *none = td_format_hit_rate(0, 0, 0);
  g_autofree char *two_thirds = td_format_hit_rate(2.0 / 3.0, 2, 1);
  g_autofree char *all = td_format_hit_rate(1, 5, 0);
  g_assert_cmpstr(none, ==, "—");
  g_assert_cmpstr(two_thirds, ==, "66.7 %");
  g_assert_cmpstr(all, ==, "100.0 %");
}

static void
test_format_site(void)
{
  g_autofree char *cell = td_format_site("<cell 3>", 5);
  g_autofree char *none = td_format_site(NULL, 5);
  g_autofree char *no_line = td_format_site("a.py", 0);
  g_assert_cmpstr(cell, ==, "<cell 3>:5");
  g_assert_cmpstr(none, ==, "");
  g_assert_cmpstr(no_line, ==, "a.py");
}

static void
test_format_details(void)
{
  g_autoptr(TrEvent) retrace = tr_event_new(TR_EVENT_RETRACE_CAUSE);
  retrace->causes = tr_retrace_causes_new();
  g_ptr_array_add(retrace->causes, tr_retrace_cause_new("x", TR_CAUSE_SHAPE,
                                                        "arg 'x': shape (3,) does not match (2,)"));
  g_ptr_array_add(
      retrace->causes,
      tr_retrace_cause_new("n", TR_CAUSE_PYTHON_VALUE, "arg 'n': Python value 20, traces have 10"));
  g_autofree char *causes = td_format_event_details(retrace);
  g_assert_cmpstr(
      causes, ==,
      "arg 'x': shape (3,) does not match (2,); arg 'n': Python value 20, traces have 10");

  g_autoptr(TrEvent) call = tr_event_new(TR_EVENT_CALL);
  call->outcome = TR_OUTCOME_HIT;
  call->cf_id = 4;
  call->candidates = 2;
  call->reason = g_strdup("most specific");
  g_autofree char *hit = td_format_event_details(call);
  g_assert_cmpstr(hit, ==, "hit → concrete #4 (2 candidates: most specific)");

  g_autoptr(TrEvent) end = tr_event_new(TR_EVENT_TRACE_END);
  end->cf_id = 4;
  end->nodes = 12;
  end->dur_ns = 3400000;
  g_autofree char *traced = td_format_event_details(end);
  g_assert_cmpstr(traced, ==, "concrete #4, 12 nodes, 3.40 ms");

  g_autoptr(TrEvent) cell = tr_event_new(TR_EVENT_CELL_START);
  cell->cell = 3;
  cell->text = g_strdup("f(1)\nf(2)");
  g_autofree char *source = td_format_event_details(cell);
  g_assert_cmpstr(source, ==, "In [3]  f(1) …");

  /* an error's class once, whether or not its text starts with it */
  g_autoptr(TrEvent) error = tr_event_new(TR_EVENT_ERROR);
  error->name = g_strdup("ValueError");
  error->text = g_strdup("ValueError: x must be positive\nmore");
  g_autofree char *raised = td_format_event_details(error);
  g_assert_cmpstr(raised, ==, "ValueError: x must be positive …");
  g_free(error->text);
  error->text = g_strdup("x must be positive");
  g_autofree char *bare = td_format_event_details(error);
  g_assert_cmpstr(bare, ==, "ValueError: x must be positive");
  g_free(error->text);
  error->text = g_strdup("ValueErrorX: other");
  g_autofree char *other = td_format_event_details(error);
  g_assert_cmpstr(other, ==, "ValueError: ValueErrorX: other");

  /* a graph run names its trace, not the graph's address */
  g_autoptr(TrEvent) run = tr_event_new(TR_EVENT_GRAPH_EXEC_END);
  run->graph_id = 94558012345678;
  run->cf_id = 2;
  run->dur_ns = 1500;
  g_autofree char *ran = td_format_event_details(run);
  g_assert_cmpstr(ran, ==, "concrete #2, 1.5 µs");
  run->kind = TR_EVENT_GRAPH_EXEC_START;
  g_autofree char *runs = td_format_event_details(run);
  g_assert_cmpstr(runs, ==, "concrete #2");

  for (int k = 0; k < TR_EVENT_N_KINDS; k++) {
    g_autoptr(TrEvent) blank = tr_event_new((TrEventKind)k);
    g_autofree char *text = td_format_event_details(blank); /* never NULL, never a crash */
    g_assert_nonnull(text);
    g_assert_cmpstr(td_format_kind_label((TrEventKind)k), !=, "event");
  }
}

/* ---- the event filter ---- */

static void
test_filter_matches(void)
{
  g_autoptr(TrEvent) ev = tr_event_new(TR_EVENT_RETRACE_CAUSE);
  ev->fn_name = g_strdup("Train_Step");
  ev->causes = tr_retrace_causes_new();
  g_ptr_array_add(ev->causes, tr_retrace_cause_new("x", TR_CAUSE_DTYPE, "arg 'x': dtype float32"));
  tr_event_set_site(ev, "<cell 4>", 2, 4);
  g_assert_true(td_event_matches(ev, TR_EVENT_N_KINDS, ""));
  g_assert_true(td_event_matches(ev, TR_EVENT_RETRACE_CAUSE, NULL));
  g_assert_false(td_event_matches(ev, TR_EVENT_CALL, ""));
  g_assert_true(td_event_matches(ev, TR_EVENT_N_KINDS, "train_step")); /* Function, any case */
  g_assert_true(td_event_matches(ev, TR_EVENT_N_KINDS, "float32"));    /* details */
  g_assert_true(td_event_matches(ev, TR_EVENT_N_KINDS, "cell 4>:2"));  /* site */
  g_assert_true(td_event_matches(ev, TR_EVENT_N_KINDS, "retrace"));    /* kind */
  g_assert_false(td_event_matches(ev, TR_EVENT_N_KINDS, "int64"));
  g_assert_false(td_event_matches(ev, TR_EVENT_CALL, "train_step"));
}

static void
test_filter_text_change(void)
{
  g_assert_cmpint(td_event_filter_text_change("", "f"), ==, GTK_FILTER_CHANGE_MORE_STRICT);
  g_assert_cmpint(td_event_filter_text_change("tra", "trace"), ==, GTK_FILTER_CHANGE_MORE_STRICT);
  g_assert_cmpint(td_event_filter_text_change("trace", "ace"), ==, GTK_FILTER_CHANGE_LESS_STRICT);
  g_assert_cmpint(td_event_filter_text_change("trace", ""), ==, GTK_FILTER_CHANGE_LESS_STRICT);
  g_assert_cmpint(td_event_filter_text_change("hit", "miss"), ==, GTK_FILTER_CHANGE_DIFFERENT);
}

static void
record_change(GtkFilter *filter, GtkFilterChange change, gpointer user_data)
{
  g_array_append_val((GArray *)user_data, change);
}

static void
test_filter_signals(void)
{
  g_autoptr(TdEventFilter) filter = td_event_filter_new();
  g_autoptr(GArray) changes = g_array_new(FALSE, FALSE, sizeof(GtkFilterChange));
  g_signal_connect(filter, "changed", G_CALLBACK(record_change), changes);
  g_assert_cmpint(gtk_filter_get_strictness(GTK_FILTER(filter)), ==, GTK_FILTER_MATCH_ALL);
  td_event_filter_set_text(filter, "Tr");
  td_event_filter_set_text(filter, "tr"); /* same once case-folded: no change */
  td_event_filter_set_text(filter, "tra");
  td_event_filter_set_text(filter, "");
  td_event_filter_set_kind(filter, TR_EVENT_CALL);
  td_event_filter_set_kind(filter, TR_EVENT_ERROR);
  td_event_filter_set_kind(filter, TR_EVENT_N_KINDS);
  static const GtkFilterChange expected[] = {
      GTK_FILTER_CHANGE_MORE_STRICT, GTK_FILTER_CHANGE_MORE_STRICT, GTK_FILTER_CHANGE_LESS_STRICT,
      GTK_FILTER_CHANGE_MORE_STRICT, GTK_FILTER_CHANGE_DIFFERENT,   GTK_FILTER_CHANGE_LESS_STRICT,
  };
  g_assert_cmpuint(changes->len, ==, G_N_ELEMENTS(expected));
  for (guint i = 0; i < changes->len; i++)
    g_assert_cmpint(g_array_index(changes, GtkFilterChange, i), ==, expected[i]);
  g_assert_cmpstr(td_event_filter_get_text(filter), ==, "");
  g_assert_cmpint(gtk_filter_get_strictness(GTK_FILTER(filter)), ==, GTK_FILTER_MATCH_ALL);
}

/* Errors: error events and the spans that raised; warnings: retracing warnings and bypassed
 * breakpoints. The filter's group narrows as its kind does. */
static void
test_filter_groups(void)
{
  static const struct {
    TrEventKind kind; /* event kind */
    bool ok;          /* its ok field */
    bool error;       /* in the errors group */
    bool warning;     /* in the warnings group */
  } cases[] = {
      {TR_EVENT_ERROR, true, true, false},
      {TR_EVENT_CALL_END, false, true, false},
      {TR_EVENT_CALL_END, true, false, false},
      {TR_EVENT_TRACE_END, false, true, false},
      {TR_EVENT_CELL_END, false, true, false},
      {TR_EVENT_GRAPH_EXEC_END, false, true, false},
      {TR_EVENT_CALL, true, false, false},
      {TR_EVENT_RETRACING_WARNING, true, false, true},
      {TR_EVENT_BREAKPOINT_BYPASSED, true, false, true},
      {TR_EVENT_RETRACE_CAUSE, true, false, false},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autoptr(TrEvent) ev = tr_event_new(cases[i].kind);
    ev->ok = cases[i].ok;
    g_assert_true(td_event_in_group(ev, TD_EVENT_GROUP_ALL));
    g_assert_cmpint(td_event_in_group(ev, TD_EVENT_GROUP_ERRORS), ==, cases[i].error);
    g_assert_cmpint(td_event_in_group(ev, TD_EVENT_GROUP_WARNINGS), ==, cases[i].warning);
  }

  g_autoptr(TdEventFilter) filter = td_event_filter_new();
  g_autoptr(GArray) changes = g_array_new(FALSE, FALSE, sizeof(GtkFilterChange));
  g_signal_connect(filter, "changed", G_CALLBACK(record_change), changes);
  td_event_filter_set_group(filter, TD_EVENT_GROUP_ERRORS);
  g_assert_cmpint(gtk_filter_get_strictness(GTK_FILTER(filter)), ==, GTK_FILTER_MATCH_SOME);
  g_autoptr(TrEvent) warning = tr_event_new(TR_EVENT_RETRACING_WARNING);
  g_autoptr(TdEventItem) item = td_event_item_new(warning);
  g_assert_false(gtk_filter_match(GTK_FILTER(filter), item));
  td_event_filter_set_group(filter, TD_EVENT_GROUP_WARNINGS);
  g_assert_true(gtk_filter_match(GTK_FILTER(filter), item));
  td_event_filter_set_group(filter, TD_EVENT_GROUP_ALL);
  g_assert_cmpint(gtk_filter_get_strictness(GTK_FILTER(filter)), ==, GTK_FILTER_MATCH_ALL);
  static const GtkFilterChange expected[] = {
      GTK_FILTER_CHANGE_MORE_STRICT, GTK_FILTER_CHANGE_DIFFERENT, GTK_FILTER_CHANGE_LESS_STRICT};
  g_assert_cmpuint(changes->len, ==, G_N_ELEMENTS(expected));
  for (guint i = 0; i < changes->len; i++)
    g_assert_cmpint(g_array_index(changes, GtkFilterChange, i), ==, expected[i]);
}

/* The filter over a store's events model, as the log uses it. */
static void
test_filter_store_events(void)
{
  Session s;
  session_init(&s);
  emit_created(&s, 1, "f");
  emit_call(&s, 1, "f", TR_OUTCOME_MISS, 3);
  emit_retrace(&s, 1, "f", "arg 'x': shape (3,) does not match (2,)");
  emit_call(&s, 1, "f", TR_OUTCOME_HIT, 4);
  g_autoptr(TdStore) store = td_store_new(G_MAXUINT);
  td_store_apply_events(store, s.events);

  TdEventFilter *filter = td_event_filter_new();
  g_autoptr(GtkFilterListModel) model =
      gtk_filter_list_model_new(g_object_ref(td_store_get_events(store)), GTK_FILTER(filter));
  g_assert_cmpuint(g_list_model_get_n_items(G_LIST_MODEL(model)), ==, 4);
  td_event_filter_set_kind(filter, TR_EVENT_CALL);
  g_assert_cmpuint(g_list_model_get_n_items(G_LIST_MODEL(model)), ==, 2);
  td_event_filter_set_text(filter, "hit");
  g_assert_cmpuint(g_list_model_get_n_items(G_LIST_MODEL(model)), ==, 1);
  td_event_filter_set_kind(filter, TR_EVENT_N_KINDS);
  td_event_filter_set_text(filter, "does not match");
  g_assert_cmpuint(g_list_model_get_n_items(G_LIST_MODEL(model)), ==, 1);
  g_autoptr(TdEventItem) item = g_list_model_get_item(G_LIST_MODEL(model), 0);
  g_assert_cmpint(td_event_item_get_event(item)->kind, ==, TR_EVENT_RETRACE_CAUSE);

  /* New events are filtered as they arrive. */
  g_ptr_array_set_size(s.events, 0);
  emit_retrace(&s, 1, "f", "arg 'x': shape (4,) does not match (2,)");
  td_store_apply_events(store, s.events);
  g_assert_cmpuint(g_list_model_get_n_items(G_LIST_MODEL(model)), ==, 2);
  session_clear(&s);
}

/* ---- a debugger's pause ---- */

static void
emit_stopped(Session *s, const char *reason, int line, const char *fn, bool tracing)
{
  TrEvent *ev = tr_event_new(TR_EVENT_DEBUGGER_STOPPED);
  tr_event_set_site(ev, "<cell 3>", line, 3);
  ev->name = g_strdup(fn ? fn : "<module>");
  ev->fn_id = fn ? 1 : 0;
  ev->fn_name = g_strdup(fn);
  ev->reason = g_strdup(reason);
  ev->tracing = tracing;
  tr_event_bus_emit(s->bus, ev);
}

static void
emit_continued(Session *s, gint64 dur_ns)
{
  TrEvent *ev = tr_event_new(TR_EVENT_DEBUGGER_CONTINUED);
  ev->dur_ns = dur_ns;
  tr_event_bus_emit(s->bus, ev);
}

static void
count_paused_changed(TdStore *store, gboolean paused, gpointer data)
{
  GString *log = data;
  g_string_append_c(log, paused ? 'P' : 'R');
}

/* Applies the session's events since the last call, one batch. */
static void
apply_new(TdStore *store, Session *s)
{
  td_store_apply_events(store, s->events);
  g_ptr_array_set_size(s->events, 0);
}

static void
test_store_paused(void)
{
  Session s;
  session_init(&s);
  g_autoptr(TdStore) store = td_store_new(G_MAXUINT);
  g_autoptr(GString) log = g_string_new(NULL);
  g_signal_connect(store, "paused-changed", G_CALLBACK(count_paused_changed), log);
  emit_created(&s, 1, "f");
  emit_call(&s, 1, "f", TR_OUTCOME_MISS, 5);
  apply_new(store, &s);
  g_assert_null(td_store_get_paused(store));

  emit_stopped(&s, "breakpoint", 2, "f", true);
  apply_new(store, &s);
  const TrEvent *p = td_store_get_paused(store);
  g_assert_nonnull(p);
  g_autofree char *text = td_format_pause(p);
  g_assert_cmpstr(text, ==,
                  "Paused at <cell 3>, line 2, in f (breakpoint) — while tracing f: its tensors "
                  "are symbolic");
  /* A step stops elsewhere: announced again; a batch without stops is not. */
  emit_stopped(&s, "step", 3, "f", true);
  apply_new(store, &s);
  g_assert_cmpint(td_store_get_paused(store)->line, ==, 3);
  emit_call(&s, 1, "f", TR_OUTCOME_HIT, 6);
  apply_new(store, &s);
  g_assert_cmpstr(log->str, ==, "PP");
  emit_continued(&s, 2500000000);
  apply_new(store, &s);
  g_assert_null(td_store_get_paused(store));
  g_assert_cmpstr(log->str, ==, "PPR");
  /* Stopped and continued in one batch: the window never saw it paused. */
  emit_stopped(&s, "breakpoint", 2, "f", true);
  emit_continued(&s, 100);
  apply_new(store, &s);
  g_assert_cmpstr(log->str, ==, "PPR");

  /* A snapshot taken while paused shows it; one taken while running does not. */
  emit_stopped(&s, "exception", 4, NULL, false);
  apply_new(store, &s);
  g_assert_cmpstr(log->str, ==, "PPRP");
  json_t *snap = tr_state_to_json(td_store_get_state(store), 0);
  td_store_load(store, tr_state_from_json(snap, G_MAXUINT, NULL));
  json_decref(snap);
  g_assert_nonnull(td_store_get_paused(store));
  g_assert_cmpint(td_store_get_paused(store)->line, ==, 4);
  g_assert_cmpstr(log->str, ==, "PPRP"); /* the same stop: nothing new to announce */
  td_store_load(store, tr_state_new(G_MAXUINT));
  g_assert_null(td_store_get_paused(store));
  g_assert_cmpstr(log->str, ==, "PPRPR");
  session_clear(&s);
}

static void
test_format_debugger_events(void)
{
  g_autoptr(TrEvent) stop = tr_event_new(TR_EVENT_DEBUGGER_STOPPED);
  tr_event_set_site(stop, "<cell 3>", 2, 3);
  stop->name = g_strdup("helper");
  stop->fn_id = 1;
  stop->fn_name = g_strdup("f");
  stop->reason = g_strdup("breakpoint");
  g_autofree char *eager = td_format_pause(stop);
  g_assert_cmpstr(eager, ==,
                  "Paused at <cell 3>, line 2, in helper (breakpoint) — in f, run eagerly");
  g_autofree char *details = td_format_event_details(stop);
  g_assert_cmpstr(details, ==, eager);

  g_autoptr(TrEvent) exc = tr_event_new(TR_EVENT_DEBUGGER_STOPPED);
  tr_event_set_site(exc, "<cell 4>", 7, 4);
  exc->name = g_strdup("<module>");
  exc->reason = g_strdup("exception");
  exc->text = g_strdup("division by zero\nmore");
  g_autofree char *top = td_format_pause(exc);
  g_assert_cmpstr(top, ==,
                  "Paused at <cell 4>, line 7, in <module> (exception: division by zero …)");

  g_autoptr(TrEvent) cont = tr_event_new(TR_EVENT_DEBUGGER_CONTINUED);
  cont->dur_ns = 2500000000;
  g_autofree char *ran = td_format_event_details(cont);
  g_assert_cmpstr(ran, ==, "running again after 2.50 s paused");
  g_assert_cmpstr(td_format_kind_label(TR_EVENT_DEBUGGER_STOPPED), ==, "debugger stopped");
  g_assert_cmpstr(td_format_kind_label(TR_EVENT_DEBUGGER_CONTINUED), ==, "debugger continued");

  g_autoptr(TrEvent) bypass = tr_event_new(TR_EVENT_BREAKPOINT_BYPASSED);
  tr_event_set_site(bypass, "<cell 5>", 1, 5);
  bypass->fn_id = 1;
  bypass->fn_name = g_strdup("f");
  bypass->bp_file = g_strdup("<cell 3>");
  bypass->bp_line = 2;
  bypass->text = g_strdup("The call of f at <cell 5>, line 1 ran its cached graph (concrete "
                          "function #1): no Python ran, so the breakpoint at <cell 3>, line 2 "
                          "in f could not stop it.");
  g_autofree char *said = td_format_event_details(bypass);
  g_assert_cmpstr(said, ==, bypass->text);
  g_assert_cmpstr(td_format_kind_label(TR_EVENT_BREAKPOINT_BYPASSED), ==, "breakpoint bypassed");
  /* The log's search finds it by kind and by its words. */
  g_assert_true(td_event_matches(bypass, TR_EVENT_N_KINDS, "breakpoint"));
  g_assert_true(td_event_matches(bypass, TR_EVENT_BREAKPOINT_BYPASSED, "cached graph"));
  g_assert_false(td_event_matches(bypass, TR_EVENT_DEBUGGER_STOPPED, ""));
}

/* ---- the Functions table's sorters and cells ---- */

/* Names of a model's Functions, in order, joined by spaces. */
static char *
names_of(GListModel *model)
{
  GString *out = g_string_new(NULL);
  for (guint i = 0; i < g_list_model_get_n_items(model); i++) {
    g_autoptr(GObject) item = g_list_model_get_item(model, i);
    g_autofree char *name = td_functions_format_cell("name", item);
    g_string_append_printf(out, "%s%s", i ? " " : "", name);
  }
  return g_string_free(out, FALSE);
}

static void
emit_created_as(Session *s, gint64 fn_id, const char *name, const char *repr)
{
  TrEvent *ev = tr_event_new(TR_EVENT_FUNCTION_CREATED);
  ev->fn_id = fn_id;
  ev->fn_name = g_strdup(name);
  ev->text = g_strdup(repr);
  tr_event_bus_emit(s->bus, ev);
}

/* Functions of one name (two models' __call__, two instances of one) are told apart: by the
 * qualified name, then by id; a name used once stays as it is, until another Function takes
 * it too. */
static void
test_functions_same_name(void)
{
  Session s;
  session_init(&s);
  emit_created_as(&s, 1, "__call__", "<function Dense.__call__ at 0x10>");
  emit_created_as(&s, 2, "step", "<function step at 0x20>");
  g_autoptr(TdStore) store = td_store_new(G_MAXUINT);
  td_store_apply_events(store, s.events);
  GListModel *fns = td_store_get_functions(store);
  g_autofree char *before = names_of(fns);
  g_assert_cmpstr(before, ==, "__call__ step");

  g_ptr_array_set_size(s.events, 0);
  emit_created_as(&s, 3, "__call__", "<function Dense.__call__ at 0x10>");
  emit_created_as(&s, 4, "__call__", "<function Conv.__call__ at 0x30>");
  emit_call(&s, 5, "step", TR_OUTCOME_HIT, 1); /* another "step", seen first in a call */
  td_store_apply_events(store, s.events);
  g_autofree char *after = names_of(fns);
  g_assert_cmpstr(after, ==, "Dense.__call__ #1 step #2 Dense.__call__ #3 Conv.__call__ step #5");

  /* TensorFlow's retracing warnings: a badge on the name, counted */
  g_ptr_array_set_size(s.events, 0);
  for (int k = 0; k < 2; k++) {
    TrEvent *warning = tr_event_new(TR_EVENT_RETRACING_WARNING);
    warning->fn_id = 5;
    warning->fn_name = g_strdup("step");
    warning->text = g_strdup("5 out of the last 5 calls to <function step> triggered "
                             "tf.function retracing.");
    tr_event_bus_emit(s.bus, warning);
  }
  td_store_apply_events(store, s.events);
  g_autofree char *warned = names_of(fns);
  g_assert_cmpstr(warned, ==,
                  "Dense.__call__ #1 step #2 Dense.__call__ #3 Conv.__call__ step #5  \u26a0 2");
  session_clear(&s);
}

static void
test_functions_sorters(void)
{
  Session s;
  session_init(&s);
  /* b: 3 calls (1 miss, 2 hits); a: 1 call (miss); c: 2 calls (eager). */
  emit_created(&s, 1, "b");
  emit_created(&s, 2, "a");
  emit_created(&s, 3, "c");
  emit_call(&s, 1, "b", TR_OUTCOME_MISS, 1);
  emit_call(&s, 1, "b", TR_OUTCOME_HIT, 2);
  emit_call(&s, 1, "b", TR_OUTCOME_HIT, 3);
  emit_call(&s, 2, "a", TR_OUTCOME_MISS, 4);
  emit_call(&s, 3, "c", TR_OUTCOME_EAGER, 5);
  emit_call(&s, 3, "c", TR_OUTCOME_EAGER, 6);
  emit_retrace(&s, 2, "a", "first call");
  g_autoptr(TdStore) store = td_store_new(G_MAXUINT);
  td_store_apply_events(store, s.events);

  GListModel *fns = td_store_get_functions(store);
  g_autoptr(GtkSortListModel) sorted =
      gtk_sort_list_model_new(g_object_ref(fns), td_functions_sorter_new("calls"));
  g_autofree char *by_calls = names_of(G_LIST_MODEL(sorted));
  g_assert_cmpstr(by_calls, ==, "a c b"); /* ascending */

  gtk_sort_list_model_set_sorter(sorted, NULL);
  g_autoptr(GtkSorter) by_name_sorter = td_functions_sorter_new("name");
  gtk_sort_list_model_set_sorter(sorted, by_name_sorter);
  g_autofree char *by_name = names_of(G_LIST_MODEL(sorted));
  g_assert_cmpstr(by_name, ==, "a b c");

  g_autoptr(GtkSorter) rate_sorter = td_functions_sorter_new("hit-rate");
  gtk_sort_list_model_set_sorter(sorted, rate_sorter);
  g_autofree char *by_rate = names_of(G_LIST_MODEL(sorted));
  g_assert_true(g_str_has_suffix(by_rate, "b")); /* b hits 2 of 3: the highest */

  g_assert_null(td_functions_sorter_new("no such column"));

  /* Cells: b is the last by hit rate. */
  g_autoptr(GObject) b = g_list_model_get_item(G_LIST_MODEL(sorted), 2);
  static const struct {
    const char *column;
    const char *text;
  } cells[] = {{"name", "b"},   {"calls", "3"},         {"hits", "2"},
               {"misses", "1"}, {"hit-rate", "66.7 %"}, {"last-cause", ""}};
  for (guint i = 0; i < G_N_ELEMENTS(cells); i++) {
    g_autofree char *text = td_functions_format_cell(cells[i].column, b);
    g_assert_cmpstr(text, ==, cells[i].text);
  }
  g_autoptr(GObject) c = g_list_model_get_item(fns, 2); /* creation order: b a c */
  g_autofree char *c_name = td_functions_format_cell("name", c);
  g_autofree char *c_rate = td_functions_format_cell("hit-rate", c);
  g_assert_cmpstr(c_name, ==, "c");
  g_assert_cmpstr(c_rate, ==, "—");                                /* eager only: no graph call */
  g_autofree char *c_eager = td_functions_format_cell("eager", c); /* the Eager column */
  g_assert_cmpstr(c_eager, ==, "2");
  g_autoptr(GtkSorter) eager_sorter = td_functions_sorter_new("eager");
  gtk_sort_list_model_set_sorter(sorted, eager_sorter);
  g_autofree char *by_eager = names_of(G_LIST_MODEL(sorted));
  g_assert_true(g_str_has_suffix(by_eager, "c"));

  /* Live: more calls of a, then the sorter re-sorts when told (as the view does per batch). */
  g_ptr_array_set_size(s.events, 0);
  for (int i = 0; i < 5; i++)
    emit_call(&s, 2, "a", TR_OUTCOME_HIT, 10);
  td_store_apply_events(store, s.events);
  g_autoptr(GtkSorter) calls_sorter = td_functions_sorter_new("calls");
  gtk_sort_list_model_set_sorter(sorted, calls_sorter);
  g_autofree char *live = names_of(G_LIST_MODEL(sorted));
  g_assert_cmpstr(live, ==, "c b a");
  g_autoptr(GObject) a = g_list_model_get_item(G_LIST_MODEL(sorted), 2);
  g_autofree char *a_cause = td_functions_format_cell("last-cause", a);
  g_assert_cmpstr(a_cause, ==, "first call");
  session_clear(&s);
}

/* ---- the event log's rows ---- */

typedef struct {
  guint changes; /* items-changed emissions */
  guint removed; /* their removed counts, summed */
  guint added;   /* their added counts, summed */
} Changes;

static void
count_changes(GListModel *m, guint pos, guint removed, guint added, Changes *c)
{
  c->changes++;
  c->removed += removed;
  c->added += added;
}

static guint64 row_seq;

static void
append_events(GListStore *store, guint n)
{
  for (guint i = 0; i < n; i++) {
    g_autoptr(TrEvent) ev = tr_event_new(TR_EVENT_CALL);
    ev->seq = ++row_seq;
    g_autoptr(TdEventItem) item = td_event_item_new(ev);
    g_list_store_append(store, item);
  }
}

static guint64
row_event_seq(GListModel *m, guint i)
{
  g_autoptr(TdEventItem) item = g_list_model_get_item(m, i);
  return td_event_item_get_event(item)->seq;
}

static void
count_row_changed(TdEventItem *item, guint *n)
{
  (*n)++;
}

static void
test_paced_rows(void)
{
  row_seq = 0;
  g_autoptr(GListStore) source = g_list_store_new(TD_TYPE_EVENT_ITEM);
  append_events(source, 30);
  g_autoptr(TdPacedList) paced = td_paced_list_new(G_LIST_MODEL(source), 60000, 100);
  GListModel *m = G_LIST_MODEL(paced);
  Changes c = {0};
  g_signal_connect(m, "items-changed", G_CALLBACK(count_changes), &c);
  g_assert_cmpuint(g_list_model_get_n_items(m), ==, 30);
  g_assert_cmpuint(row_event_seq(m, 29), ==, 30);

  /* Batches wait for the beat; then the rows grow in one change. */
  for (int i = 0; i < 5; i++)
    append_events(source, 10);
  g_assert_cmpuint(c.changes, ==, 0);
  td_paced_list_flush(paced);
  g_assert_cmpuint(c.changes, ==, 1);
  g_assert_cmpuint(g_list_model_get_n_items(m), ==, 80);

  /* Past max_items the rows stay (the same objects; new ones came in at the top) and show
   * the newest 100. */
  g_autoptr(TdEventItem) last = g_list_model_get_item(m, 79);
  guint last_changed = 0;
  g_signal_connect(last, "changed", G_CALLBACK(count_row_changed), &last_changed);
  append_events(source, 70);
  td_paced_list_flush(paced);
  g_assert_cmpuint(g_list_model_get_n_items(m), ==, 100);
  g_assert_cmpuint(c.changes, ==, 2); /* grew by 20 at the top, nothing replaced */
  g_assert_cmpuint(c.removed, ==, 0);
  g_autoptr(TdEventItem) last_again = g_list_model_get_item(m, 99);
  g_assert_true(last_again == last);
  g_assert_cmpuint(last_changed, ==, 1);
  g_assert_cmpuint(row_event_seq(m, 0), ==, 51);
  g_assert_cmpuint(row_event_seq(m, 99), ==, 150);
  g_assert_null(g_list_model_get_item(m, 100));

  /* Paused, the rows hold still; resumed, they catch up. */
  td_paced_list_set_paused(paced, TRUE);
  append_events(source, 5);
  g_assert_cmpuint(row_event_seq(m, 99), ==, 150);
  td_paced_list_set_paused(paced, FALSE);
  g_assert_cmpuint(row_event_seq(m, 99), ==, 155);

  /* A source that shrank below max_items: fewer rows. */
  g_list_store_splice(source, 0, 100, NULL, 0);
  td_paced_list_flush(paced);
  g_assert_cmpuint(g_list_model_get_n_items(m), ==, 55);
  g_assert_cmpuint(row_event_seq(m, 0), ==, 101);
  td_paced_list_set_source(paced, NULL);
  g_assert_cmpuint(g_list_model_get_n_items(m), ==, 0);
}

/* On its beat, a short list grows a few rows at a time (a view makes a row of widgets for each
 * new row in sight), and soon has them all; a flush has them all at once. */
static void
test_paced_ramp(void)
{
  row_seq = 0;
  g_autoptr(GListStore) source = g_list_store_new(TD_TYPE_EVENT_ITEM);
  g_autoptr(TdPacedList) paced = td_paced_list_new(G_LIST_MODEL(source), 5, 1000);
  GListModel *m = G_LIST_MODEL(paced);
  append_events(source, 120);
  g_assert_cmpuint(g_list_model_get_n_items(m), ==, 0);
  guint first_step = 0;
  gint64 deadline = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
  while (g_list_model_get_n_items(m) < 120 && g_get_monotonic_time() < deadline) {
    g_main_context_iteration(NULL, TRUE);
    if (!first_step)
      first_step = g_list_model_get_n_items(m);
  }
  g_assert_cmpuint(first_step, >, 0);
  g_assert_cmpuint(first_step, <=, 12);
  g_assert_cmpuint(g_list_model_get_n_items(m), ==, 120);
  g_assert_cmpuint(row_event_seq(m, 0), ==, 1);
  g_assert_cmpuint(row_event_seq(m, 119), ==, 120);

  g_autoptr(GListStore) other = g_list_store_new(TD_TYPE_EVENT_ITEM);
  append_events(other, 300);
  td_paced_list_set_source(paced, G_LIST_MODEL(other));
  g_assert_cmpuint(g_list_model_get_n_items(m), ==, 300);
}

/* Two traces' signatures compared argument by argument; advice for the causes a change avoids. */
static void
test_trace_diff(void)
{
  const char *a = "f(x, n)\n  Args:\n    x: float32 Tensor, shape=(2,)\n    n: int32 Tensor, "
                  "shape=()\n  Returns:\n    float32 Tensor, shape=(2,)";
  const char *b = "f(x, n, flag)\n  Args:\n    x: float32 Tensor, shape=(3,)\n    n: int32 "
                  "Tensor, shape=()\n    flag: Python bool True\n  Returns:\n    float32 Tensor, "
                  "shape=(3,)";
  g_autoptr(GPtrArray) args = td_trace_args(b);
  g_assert_cmpuint(args->len, ==, 3);
  g_assert_cmpstr(args->pdata[2], ==, "flag: Python bool True");
  g_autoptr(GPtrArray) diffs = td_trace_diff(a, b);
  g_assert_cmpuint(diffs->len, ==, 2);
  const TdArgDiff *x = diffs->pdata[0], *flag = diffs->pdata[1];
  g_assert_cmpstr(x->name, ==, "x");
  g_assert_cmpstr(x->a, ==, "float32 Tensor, shape=(2,)");
  g_assert_cmpstr(x->b, ==, "float32 Tensor, shape=(3,)");
  g_assert_cmpstr(flag->name, ==, "flag");
  g_assert_null(flag->a);
  g_assert_cmpstr(flag->b, ==, "Python bool True");
  g_autoptr(GPtrArray) same = td_trace_diff(a, a);
  g_assert_cmpuint(same->len, ==, 0);
  g_autoptr(GPtrArray) none = td_trace_diff(NULL, a);
  g_assert_cmpuint(none->len, ==, 2);

  g_assert_null(td_cause_advice(TR_CAUSE_FIRST_CALL));
  g_assert_null(td_cause_advice(TR_CAUSE_OTHER));
  g_assert_nonnull(strstr(td_cause_advice(TR_CAUSE_SHAPE), "reduce_retracing"));
  g_assert_nonnull(strstr(td_cause_advice(TR_CAUSE_PYTHON_VALUE), "tf.constant"));
  for (int k = 0; k < TR_CAUSE_N_KINDS; k++) /* every kind a change avoids has advice */
    if (k != TR_CAUSE_FIRST_CALL && k != TR_CAUSE_OTHER)
      g_assert_nonnull(td_cause_advice((TrCauseKind)k));
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/gui/format/duration", test_format_duration);
  g_test_add_func("/gui/trace-diff/arguments-and-advice", test_trace_diff);
  g_test_add_func("/gui/format/count", test_format_count);
  g_test_add_func("/gui/format/hit-rate", test_format_hit_rate);
  g_test_add_func("/gui/format/site", test_format_site);
  g_test_add_func("/gui/format/event-details", test_format_details);
  g_test_add_func("/gui/format/debugger-events", test_format_debugger_events);
  g_test_add_func("/gui/store/paused-until-continued", test_store_paused);
  g_test_add_func("/gui/event-filter/matches", test_filter_matches);
  g_test_add_func("/gui/event-filter/text-change", test_filter_text_change);
  g_test_add_func("/gui/event-filter/signals", test_filter_signals);
  g_test_add_func("/gui/event-filter/errors-and-warnings", test_filter_groups);
  g_test_add_func("/gui/event-filter/store-events", test_filter_store_events);
  g_test_add_func("/gui/functions/sorters-and-cells", test_functions_sorters);
  g_test_add_func("/gui/functions/same-name-told-apart", test_functions_same_name);
  g_test_add_func("/gui/event-log/rows-keep-their-places", test_paced_rows);
  g_test_add_func("/gui/event-log/short-list-grows-in-steps", test_paced_ramp);
  return g_test_run();
}
