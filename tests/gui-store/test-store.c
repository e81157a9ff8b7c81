/* test-store.c — TdStore: batches of events become one round of signals and list-model
 * changes; a snapshot replaces everything. No display needed (GIO only). */
#include "td-client.h"
#include "td-store.h"

#include <glib/gstdio.h>

static guint64 next_seq;

static TrEvent *
event(TrEventKind kind, gint64 fn_id, TrOutcome outcome)
{
  TrEvent *ev = tr_event_new(kind);
  ev->seq = ++next_seq;
  ev->ts_ns = (gint64)next_seq * 1000;
  ev->fn_id = fn_id;
  ev->fn_name = fn_id ? g_strdup_printf("f%" G_GINT64_FORMAT, fn_id) : NULL;
  ev->outcome = outcome;
  return ev;
}

/* `n` calls of Function `fn_id`, the first a miss. */
static GPtrArray *
calls(gint64 fn_id, guint n, bool first_misses)
{
  GPtrArray *batch = g_ptr_array_new_with_free_func((GDestroyNotify)tr_event_unref);
  for (guint i = 0; i < n; i++) {
    TrOutcome o = i == 0 && first_misses ? TR_OUTCOME_MISS : TR_OUTCOME_HIT;
    g_ptr_array_add(batch, event(TR_EVENT_CALL, fn_id, o));
    TrEvent *end = event(TR_EVENT_CALL_END, fn_id, o);
    end->dur_ns = 500;
    g_ptr_array_add(batch, end);
  }
  return batch;
}

typedef struct {
  guint events_changed; /* "events-changed" emissions */
  guint last_removed;   /* its arguments, last time */
  guint last_added;
  guint fn_changed;     /* "function-changed" emissions */
  guint eager_changed;  /* "eager-changed" emissions */
  gboolean eager;       /* its last value */
  guint resets;         /* "reset" emissions */
  guint model_changes;  /* items-changed on the events model */
  guint calls_notified; /* notify::calls on the first Function's item */
} Seen;

static void
on_events_changed(TdStore *s, guint removed, guint added, Seen *seen)
{
  seen->events_changed++;
  seen->last_removed = removed;
  seen->last_added = added;
}

static void
on_fn_changed(TdStore *s, gint64 id, Seen *seen)
{
  seen->fn_changed++;
}

static void
on_eager(TdStore *s, gboolean on, Seen *seen)
{
  seen->eager_changed++;
  seen->eager = on;
}

static void
on_reset(TdStore *s, Seen *seen)
{
  seen->resets++;
}

static void
on_items_changed(GListModel *m, guint pos, guint removed, guint added, Seen *seen)
{
  seen->model_changes++;
  /* The model already shows the change when it is announced. */
  g_assert_cmpuint(g_list_model_get_n_items(m), >=, pos + added);
}

static void
on_calls(GObject *item, GParamSpec *pspec, Seen *seen)
{
  seen->calls_notified++;
}

static TdStore *
watched_store(guint keep, Seen *seen)
{
  TdStore *store = td_store_new(keep);
  g_signal_connect(store, "events-changed", G_CALLBACK(on_events_changed), seen);
  g_signal_connect(store, "function-changed", G_CALLBACK(on_fn_changed), seen);
  g_signal_connect(store, "eager-changed", G_CALLBACK(on_eager), seen);
  g_signal_connect(store, "reset", G_CALLBACK(on_reset), seen);
  g_signal_connect(td_store_get_events(store), "items-changed", G_CALLBACK(on_items_changed), seen);
  return store;
}

static void
test_batch_signals(void)
{
  next_seq = 0;
  Seen seen = {0};
  g_autoptr(TdStore) store = watched_store(G_MAXUINT, &seen);
  g_autoptr(GPtrArray) b1 = calls(1, 100, true);
  td_store_apply_events(store, b1);
  g_assert_cmpuint(seen.events_changed, ==, 1);
  g_assert_cmpuint(seen.last_added, ==, 200);
  g_assert_cmpuint(seen.model_changes, ==, 1);
  GListModel *fns = td_store_get_functions(store);
  g_assert_cmpuint(g_list_model_get_n_items(fns), ==, 1);
  g_autoptr(TdFunctionItem) item = g_list_model_get_item(fns, 0);
  guint64 n_calls, hits;
  double rate;
  g_object_get(item, "calls", &n_calls, "hits", &hits, "hit-rate", &rate, NULL);
  g_assert_cmpuint(n_calls, ==, 100);
  g_assert_cmpuint(hits, ==, 99);
  g_assert_cmpfloat_with_epsilon(rate, 0.99, 1e-9);
  g_signal_connect(item, "notify::calls", G_CALLBACK(on_calls), &seen);

  /* A second batch touching two Functions: one notify per changed property, one signal per
   * Function, one model change. */
  g_autoptr(GPtrArray) b2 = calls(1, 50, false);
  g_autoptr(GPtrArray) b3 = calls(2, 3, true);
  g_ptr_array_extend_and_steal(b2, g_steal_pointer(&b3));
  guint fn_before = seen.fn_changed;
  td_store_apply_events(store, b2);
  g_assert_cmpuint(seen.events_changed, ==, 2);
  g_assert_cmpuint(seen.calls_notified, ==, 1);
  g_assert_cmpuint(seen.fn_changed - fn_before, ==, 2);
  g_assert_cmpuint(g_list_model_get_n_items(fns), ==, 2);
  g_assert_cmpuint(g_list_model_get_n_items(td_store_get_events(store)), ==, 306);
  g_autoptr(TdEventItem) ev = g_list_model_get_item(td_store_get_events(store), 305);
  g_assert_cmpuint(td_event_item_get_event(ev)->seq, ==, 306);

  /* Replayed events change nothing and say nothing. */
  td_store_apply_events(store, b1);
  g_assert_cmpuint(seen.events_changed, ==, 2);

  g_autoptr(GPtrArray) b4 = g_ptr_array_new_with_free_func((GDestroyNotify)tr_event_unref);
  TrEvent *e = event(TR_EVENT_EAGER_TOGGLED, 0, TR_OUTCOME_NONE);
  e->enabled = true;
  g_ptr_array_add(b4, e);
  td_store_apply_events(store, b4);
  g_assert_cmpuint(seen.eager_changed, ==, 1);
  g_assert_true(seen.eager);
}

static void
test_window_drops(void)
{
  next_seq = 0;
  Seen seen = {0};
  g_autoptr(TdStore) store = watched_store(100, &seen);
  for (int i = 0; i < 10; i++) {
    g_autoptr(GPtrArray) b = calls(1, 20, i == 0);
    td_store_apply_events(store, b);
  }
  GListModel *evs = td_store_get_events(store);
  guint n = g_list_model_get_n_items(evs);
  g_assert_cmpuint(n, >=, 100);
  g_assert_cmpuint(n, <=, 125);
  g_autoptr(TdEventItem) last = g_list_model_get_item(evs, n - 1);
  g_assert_cmpuint(td_event_item_get_event(last)->seq, ==, 400);
  g_assert_null(g_list_model_get_item(evs, n));
}

static void
test_load_and_export(void)
{
  next_seq = 0;
  Seen seen = {0};
  g_autoptr(TdStore) store = watched_store(G_MAXUINT, &seen);
  g_autoptr(GPtrArray) b = calls(3, 10, true);
  TrState *st = tr_state_new(G_MAXUINT);
  for (guint i = 0; i < b->len; i++)
    tr_state_apply(st, b->pdata[i]);
  td_store_load(store, st);
  g_assert_cmpuint(seen.resets, ==, 1);
  g_assert_cmpuint(g_list_model_get_n_items(td_store_get_functions(store)), ==, 1);
  g_assert_cmpuint(g_list_model_get_n_items(td_store_get_events(store)), ==, 20);

  g_autofree char *dir = g_dir_make_tmp("td-store-XXXXXX", NULL);
  g_autofree char *path = g_build_filename(dir, "trace.json", NULL);
  g_autoptr(GError) error = NULL;
  g_assert_true(td_store_export_perfetto(store, path, &error));
  g_assert_no_error(error);
  json_t *doc = json_load_file(path, 0, NULL);
  g_assert_nonnull(doc);
  g_assert_true(json_is_array(json_object_get(doc, "traceEvents")));
  json_decref(doc);
  g_unlink(path);

  /* A session saved as JSON lines and reopened into another store: the same Function, calls
   * and events; a line that is not an event is an error naming it, the events before it kept. */
  g_autofree char *saved = g_build_filename(dir, "session.jsonl", NULL);
  g_assert_true(td_store_save_events(store, saved, &error));
  g_assert_no_error(error);
  g_autoptr(TdStore) reopened = td_store_new(G_MAXUINT);
  g_assert_true(td_store_load_events_file(reopened, saved, &error));
  g_assert_no_error(error);
  g_assert_cmpuint(g_list_model_get_n_items(td_store_get_events(reopened)), ==, 20);
  const TrStateFn *a = g_ptr_array_index(tr_state_functions(td_store_get_state(store)), 0);
  const TrStateFn *b2 = g_ptr_array_index(tr_state_functions(td_store_get_state(reopened)), 0);
  g_assert_cmpuint(a->calls, ==, b2->calls);
  g_assert_cmpuint(a->hits, ==, b2->hits);
  g_assert_cmpuint(a->misses, ==, b2->misses);
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(saved, &text, NULL, NULL));
  g_autofree char *broken = g_strconcat(text, "{\"kind\": \"no such kind\"}\n", NULL);
  g_assert_true(g_file_set_contents(saved, broken, -1, NULL));
  g_autoptr(TdStore) partial = td_store_new(G_MAXUINT);
  g_assert_false(td_store_load_events_file(partial, saved, &error));
  g_assert_nonnull(strstr(error->message, "line 21"));
  g_clear_error(&error);
  g_assert_cmpuint(g_list_model_get_n_items(td_store_get_events(partial)), ==, 20);
  g_unlink(saved);

  g_rmdir(dir);
  g_assert_false(td_store_export_perfetto(store, "/nonexistent/dir/x.json", &error));
  g_assert_nonnull(error);
}

static gboolean
quit_loop(gpointer loop)
{
  g_main_loop_quit(loop);
  return G_SOURCE_REMOVE;
}

static void
test_function_interval(void)
{
  next_seq = 0;
  Seen seen = {0};
  g_autoptr(TdStore) store = watched_store(G_MAXUINT, &seen);
  td_store_set_function_interval(store, 20);
  for (int i = 0; i < 5; i++) {
    g_autoptr(GPtrArray) b = calls(1, 10, i == 0);
    td_store_apply_events(store, b);
  }
  /* Events are announced per batch; the Function waits for the beat. */
  g_assert_cmpuint(seen.events_changed, ==, 5);
  g_assert_cmpuint(seen.fn_changed, ==, 0);
  g_autoptr(GMainLoop) loop = g_main_loop_new(NULL, FALSE);
  g_timeout_add(100, quit_loop, loop);
  g_main_loop_run(loop);
  g_assert_cmpuint(seen.fn_changed, ==, 1);
  g_autoptr(TdFunctionItem) item = g_list_model_get_item(td_store_get_functions(store), 0);
  guint64 n_calls;
  g_object_get(item, "calls", &n_calls, NULL);
  g_assert_cmpuint(n_calls, ==, 50);
}

/* Paced, many new Functions join the list a few at a time (a table makes widgets for each
 * visible row), and all of them soon. */
static void
test_functions_join_in_groups(void)
{
  next_seq = 0;
  Seen seen = {0};
  g_autoptr(TdStore) store = watched_store(G_MAXUINT, &seen);
  td_store_set_function_interval(store, 10);
  g_autoptr(GPtrArray) batch = g_ptr_array_new_with_free_func((GDestroyNotify)tr_event_unref);
  for (gint64 fn = 1; fn <= 30; fn++) {
    g_autoptr(GPtrArray) b = calls(fn, 1, TRUE);
    for (guint i = 0; i < b->len; i++)
      g_ptr_array_add(batch, tr_event_ref(b->pdata[i]));
  }
  td_store_apply_events(store, batch);
  GListModel *fns = td_store_get_functions(store);
  g_assert_cmpuint(g_list_model_get_n_items(fns), ==, 0);
  guint first_group = 0;
  gint64 deadline = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
  while (g_list_model_get_n_items(fns) < 30 && g_get_monotonic_time() < deadline) {
    g_main_context_iteration(NULL, TRUE);
    if (!first_group)
      first_group = g_list_model_get_n_items(fns);
  }
  g_assert_cmpuint(first_group, >, 0);
  g_assert_cmpuint(first_group, <, 30);
  g_assert_cmpuint(g_list_model_get_n_items(fns), ==, 30);
  g_assert_cmpuint(seen.fn_changed, >=, 30);

  /* Without pacing, a batch lists them all at once. */
  g_autoptr(TdStore) at_once = td_store_new(G_MAXUINT);
  td_store_apply_events(at_once, batch);
  g_assert_cmpuint(g_list_model_get_n_items(td_store_get_functions(at_once)), ==, 30);
}

/* A window keeps a long session whole (it kept 250,000 events), as 32-byte records, and its
 * events model hands out each of them. */
static void
test_keeps_long_session(void)
{
  g_autoptr(TdStore) store = td_store_new(TD_CLIENT_KEEP_EVENTS);
  guint64 first = next_seq + 1;
  const guint n_calls = 150000;
  for (guint done = 0; done < n_calls; done += 10000) {
    g_autoptr(GPtrArray) batch = calls(1, 10000, done == 0);
    td_store_apply_events(store, batch);
  }
  TrState *state = td_store_get_state(store);
  const TrEventLog *log = tr_state_event_log(state);
  g_assert_cmpuint(tr_event_log_length(log), ==, 2 * n_calls);
  g_assert_cmpuint(tr_state_events_dropped(state), ==, 0);
  g_assert_cmpuint(tr_state_events_missing(state), ==, first - 1);
  g_assert_cmpuint(tr_event_log_event_bytes(log) / tr_event_log_length(log), <=, 32);
  GListModel *model = td_store_get_events(store);
  g_assert_cmpuint(g_list_model_get_n_items(model), ==, 2 * n_calls);
  g_autoptr(TdEventItem) oldest = g_list_model_get_item(model, 0);
  g_assert_cmpuint(td_event_item_get_event(oldest)->seq, ==, first);
  g_autoptr(TdEventItem) newest = g_list_model_get_item(model, 2 * n_calls - 1);
  const TrEvent *ev = td_event_item_get_event(newest);
  g_assert_cmpuint(ev->seq, ==, next_seq);
  g_assert_cmpint(ev->kind, ==, TR_EVENT_CALL_END);
  g_assert_cmpstr(ev->fn_name, ==, "f1");
  g_assert_cmpint(ev->dur_ns, ==, 500);
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/gui/store/functions-join-in-groups", test_functions_join_in_groups);
  g_test_add_func("/gui/store/batch-signals", test_batch_signals);
  g_test_add_func("/gui/store/window-drops-oldest", test_window_drops);
  g_test_add_func("/gui/store/load-snapshot-and-export", test_load_and_export);
  g_test_add_func("/gui/store/function-interval", test_function_interval);
  g_test_add_func("/gui/store/keeps-long-session", test_keeps_long_session);
  return g_test_run();
}
