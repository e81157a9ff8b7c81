/* test-window.c — a real debugger window (under Xvfb) running a script in-process: the "Run
 * functions eagerly" switch follows the session (a cell's tf.config.run_functions_eagerly), and
 * the user's switch and its shortcut's action change the session's mode; the event log's rows;
 * the bar that says where a debugger holds the kernel paused; attaching to a kernel that is
 * not Trellis, and to one that never answers. */
#include <gtk/gtk.h>

#include <glib/gstdio.h>
#include <string.h>

#include "td-client.h"
#include "td-event-log.h"
#include "td-format.h"
#include "td-functions-view.h"
#include "td-graph-view.h"
#include "td-traces-view.h"
#include "td-label.h"
#include "td-log-row.h"
#include "td-timeline.h"
#include "td-window.h"

static const char script[] = "import tensorflow as tf\n"
                             "@tf.function\n"
                             "def f(x):\n"
                             "    return x + 1\n"
                             "f(tf.constant(1))\n"
                             "f(tf.constant(2))\n"
                             "tf.config.run_functions_eagerly(True)\n"
                             "f(tf.constant(3))\n";

/* The first GtkSwitch under `w`, depth first. */
static GtkSwitch *
find_switch(GtkWidget *w)
{
  if (GTK_IS_SWITCH(w))
    return GTK_SWITCH(w);
  for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c)) {
    GtkSwitch *s = find_switch(c);
    if (s)
      return s;
  }
  return NULL;
}

/* The first widget under `w` with CSS class `cls`, depth first. */
static GtkWidget *
find_by_class(GtkWidget *w, const char *cls)
{
  if (gtk_widget_has_css_class(w, cls))
    return w;
  for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c)) {
    GtkWidget *found = find_by_class(c, cls);
    if (found)
      return found;
  }
  return NULL;
}

/* The first GtkLabel under `w` whose text starts with `prefix`, depth first. */
static GtkLabel *
find_label(GtkWidget *w, const char *prefix)
{
  if (GTK_IS_LABEL(w) && g_str_has_prefix(gtk_label_get_text(GTK_LABEL(w)), prefix))
    return GTK_LABEL(w);
  for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c)) {
    GtkLabel *found = find_label(c, prefix);
    if (found)
      return found;
  }
  return NULL;
}

typedef gboolean (*Predicate)(TdWindow *win, GtkSwitch *sw);

/* Runs the main loop until `done` holds (or 20 s pass: a failure). */
static void
wait_for(TdWindow *win, GtkSwitch *sw, Predicate done, const char *what)
{
  gint64 deadline = g_get_monotonic_time() + 20 * G_USEC_PER_SEC;
  while (!done(win, sw)) {
    if (g_get_monotonic_time() > deadline)
      g_error("timed out waiting until %s", what);
    g_main_context_iteration(NULL, FALSE);
    g_usleep(1000);
  }
}

static gboolean
session_eager(TdWindow *win)
{
  TdStore *store = td_window_get_store(win);
  return store && tr_state_eager(td_store_get_state(store));
}

static gboolean
finished_eager_on(TdWindow *win, GtkSwitch *sw)
{
  return td_window_get_status(win, NULL) == TD_CLIENT_FINISHED && session_eager(win) &&
         gtk_switch_get_state(sw) && gtk_switch_get_active(sw);
}

static gboolean
eager_off(TdWindow *win, GtkSwitch *sw)
{
  return !session_eager(win) && !gtk_switch_get_state(sw) && !gtk_switch_get_active(sw);
}

static gboolean
eager_on(TdWindow *win, GtkSwitch *sw)
{
  return session_eager(win) && gtk_switch_get_state(sw);
}

/* The events a store keeps, as TrEvents of their own (its window holds compact records).
 * Transfer full. */
static GPtrArray *
kept_events(TdStore *store)
{
  const TrEventLog *log = tr_state_event_log(td_store_get_state(store));
  GPtrArray *out = g_ptr_array_new_with_free_func((GDestroyNotify)tr_event_unref);
  for (guint64 i = 0, n = tr_event_log_length(log); i < n; i++)
    g_ptr_array_add(out, tr_event_log_get(log, i));
  return out;
}

/* Counts eager_mode events that reached the window's store. */
static guint
eager_events(TdWindow *win)
{
  g_autoptr(GPtrArray) events = kept_events(td_window_get_store(win));
  guint n = 0;
  for (guint i = 0; i < events->len; i++)
    n += ((TrEvent *)events->pdata[i])->kind == TR_EVENT_EAGER_TOGGLED;
  return n;
}

static void
test_eager_switch_both_ways(void)
{
  g_autoptr(GtkApplication) app =
      gtk_application_new("org.trellis.Debugger.Test", G_APPLICATION_NON_UNIQUE);
  g_autoptr(GError) error = NULL;
  g_assert_true(g_application_register(G_APPLICATION(app), NULL, &error));

  g_autofree char *dir = g_dir_make_tmp("td-window-XXXXXX", &error);
  g_assert_no_error(error);
  g_autofree char *path = g_build_filename(dir, "eager.py", NULL);
  g_assert_true(g_file_set_contents(path, script, -1, &error));

  TdWindow *win = td_window_new(app);
  gtk_window_present(GTK_WINDOW(win));
  GtkSwitch *sw = find_switch(GTK_WIDGET(win));
  g_assert_nonnull(sw);
  g_assert_true(td_window_open_file(win, path, &error));
  g_assert_no_error(error);

  /* The session turned eager mode on: the switch shows it. */
  wait_for(win, sw, finished_eager_on, "the script finished with eager mode on");
  g_assert_cmpuint(eager_events(win), ==, 1);

  /* The user turns it off: the switch shows it at once (not half-way until the session
   * reports it), with a note that it is pending; the session's mode follows, and its event
   * comes back. */
  GtkWidget *note = find_by_class(GTK_WIDGET(win), "eager-note");
  g_assert_nonnull(note);
  g_assert_false(gtk_widget_get_visible(note));
  gtk_switch_set_active(sw, FALSE);
  g_assert_false(gtk_switch_get_state(sw));
  g_assert_false(gtk_switch_get_active(sw));
  g_assert_true(gtk_widget_get_visible(note));
  g_assert_cmpuint(eager_events(win), ==, 1);
  wait_for(win, sw, eager_off, "the switch turned eager mode off");
  g_assert_cmpuint(eager_events(win), ==, 2);
  g_assert_false(gtk_widget_get_visible(note));

  /* Ctrl+Shift+E's action turns it on again. */
  g_assert_true(gtk_widget_activate_action(GTK_WIDGET(win), "win.toggle-eager", NULL));
  wait_for(win, sw, eager_on, "the action turned eager mode on");
  g_assert_cmpuint(eager_events(win), ==, 3);

  gtk_window_destroy(GTK_WINDOW(win));
  while (g_main_context_iteration(NULL, FALSE))
    ;
  g_unlink(path);
  g_rmdir(dir);
}

/* The first GtkListView under `w` with CSS class `cls`, depth first. */
static GtkListView *
find_list_view(GtkWidget *w, const char *cls)
{
  if (GTK_IS_LIST_VIEW(w) && gtk_widget_has_css_class(w, cls))
    return GTK_LIST_VIEW(w);
  for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c)) {
    GtkListView *v = find_list_view(c, cls);
    if (v)
      return v;
  }
  return NULL;
}

static guint
n_rows(GtkListView *view)
{
  return g_list_model_get_n_items(G_LIST_MODEL(gtk_list_view_get_model(view)));
}

/* The texts of the log row showing event `seq`, joined by "|", or NULL. */
static char *
row_text(GtkWidget *w, guint64 seq)
{
  if (TD_IS_LOG_ROW(w) && gtk_widget_has_css_class(w, "log-row")) {
    g_autofree char *want = g_strdup_printf("%" G_GUINT64_FORMAT, seq);
    if (g_strcmp0(td_log_row_get_text(TD_LOG_ROW(w), 0), want) != 0)
      return NULL;
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < 6; i++)
      g_string_append_printf(s, "%s%s", i ? "|" : "", td_log_row_get_text(TD_LOG_ROW(w), i));
    return g_string_free(s, FALSE);
  }
  for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c)) {
    char *text = row_text(c, seq);
    if (text)
      return text;
  }
  return NULL;
}

static void
iterate_for(guint ms)
{
  gint64 end = g_get_monotonic_time() + ms * 1000;
  while (g_get_monotonic_time() < end) {
    g_main_context_iteration(NULL, FALSE);
    g_usleep(1000);
  }
}

/* The event log makes no rows while its page is hidden, and lists the session's events once
 * shown. */
static void
test_hidden_log_waits(void)
{
  g_autoptr(GtkApplication) app =
      gtk_application_new("org.trellis.Debugger.Test", G_APPLICATION_NON_UNIQUE);
  g_autoptr(GError) error = NULL;
  g_assert_true(g_application_register(G_APPLICATION(app), NULL, &error));
  g_autofree char *dir = g_dir_make_tmp("td-window-XXXXXX", &error);
  g_autofree char *path = g_build_filename(dir, "log.py", NULL);
  g_assert_true(g_file_set_contents(path, script, -1, &error));

  TdWindow *win = td_window_new(app);
  gtk_window_present(GTK_WINDOW(win));
  g_assert_true(td_window_open_file(win, path, &error));
  g_assert_no_error(error);
  gint64 deadline = g_get_monotonic_time() + 20 * G_USEC_PER_SEC;
  while (td_window_get_status(win, NULL) != TD_CLIENT_FINISHED) {
    g_assert_cmpint(g_get_monotonic_time(), <, deadline);
    g_main_context_iteration(NULL, TRUE);
  }
  iterate_for(500); /* beats of the store and the log */
  GtkListView *log = find_list_view(GTK_WIDGET(win), "event-log");
  g_assert_nonnull(log);
  g_assert_false(gtk_widget_get_mapped(GTK_WIDGET(log)));
  g_assert_cmpuint(n_rows(log), ==, 0);

  guint n_events =
      (guint)tr_event_log_length(tr_state_event_log(td_store_get_state(td_window_get_store(win))));
  g_assert_cmpuint(n_events, >, 0);
  g_assert_true(gtk_widget_activate_action(GTK_WIDGET(win), "win.search", NULL));
  while (n_rows(log) < n_events) {
    g_assert_cmpint(g_get_monotonic_time(), <, deadline);
    g_main_context_iteration(NULL, FALSE);
    g_usleep(1000);
  }
  g_assert_true(gtk_widget_get_mapped(GTK_WIDGET(log)));
  g_assert_cmpuint(n_rows(log), ==, n_events);

  /* The newest event's row, in view at the bottom, shows its number, kind and Function. */
  g_autoptr(GPtrArray) events = kept_events(td_window_get_store(win));
  const TrEvent *newest = events->pdata[events->len - 1];
  g_autofree char *text = NULL;
  while (!(text = row_text(GTK_WIDGET(log), newest->seq))) {
    g_assert_cmpint(g_get_monotonic_time(), <, deadline);
    g_main_context_iteration(NULL, FALSE);
    g_usleep(1000);
  }
  g_autofree char *kind = g_strdup_printf("|%s|", td_format_kind_label(newest->kind));
  g_assert_nonnull(strstr(text, kind));

  gtk_window_destroy(GTK_WINDOW(win));
  while (g_main_context_iteration(NULL, FALSE))
    ;
  g_unlink(path);
  g_rmdir(dir);
}

/* The first widget under `w` of `type` with CSS class `cls` (NULL: any), depth first. */
static GtkWidget *
find_widget(GtkWidget *w, GType type, const char *cls)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE(w, type) && (!cls || gtk_widget_has_css_class(w, cls)))
    return w;
  for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c)) {
    GtkWidget *found = find_widget(c, type, cls);
    if (found)
      return found;
  }
  return NULL;
}

/* Hands the window's store one event of a debugger, numbered after what it has, as the client
 * delivers a batch. */
static void
deliver(TdWindow *win, TrEvent *ev)
{
  TdStore *store = td_window_get_store(win);
  ev->seq = tr_state_last_seq(td_store_get_state(store)) + 1;
  ev->ts_ns = tr_state_last_ts(td_store_get_state(store)) + 1000;
  g_autoptr(GPtrArray) batch = g_ptr_array_new_with_free_func((GDestroyNotify)tr_event_unref);
  g_ptr_array_add(batch, ev);
  td_store_apply_events(store, batch);
}

static void
deliver_stop(TdWindow *win, int line)
{
  TrEvent *ev = tr_event_new(TR_EVENT_DEBUGGER_STOPPED);
  tr_event_set_site(ev, "<cell 3>", line, 3);
  ev->name = g_strdup("f");
  ev->fn_id = 1;
  ev->fn_name = g_strdup("f");
  ev->reason = g_strdup("breakpoint");
  ev->tracing = TRUE;
  deliver(win, ev);
}

/* Runs the main loop until the pause bar's label is on screen with `text`, or (NULL) until it
 * is gone. */
static void
wait_pause_bar(GtkInfoBar *bar, GtkLabel *label, const char *text)
{
  gint64 deadline = g_get_monotonic_time() + 20 * G_USEC_PER_SEC;
  for (;;) {
    gboolean shown = gtk_info_bar_get_revealed(bar) && gtk_widget_get_mapped(GTK_WIDGET(label));
    if (text ? shown && g_strcmp0(gtk_label_get_text(label), text) == 0
             : !gtk_info_bar_get_revealed(bar) && !gtk_widget_get_mapped(GTK_WIDGET(label)))
      return;
    if (g_get_monotonic_time() > deadline)
      g_error("timed out waiting for the pause bar to %s%s (it says \"%s\")", text ? "say " : "go",
              text ? text : "", gtk_label_get_text(label));
    g_main_context_iteration(NULL, FALSE);
    g_usleep(1000);
  }
}

/* The window says where a debugger holds the kernel paused, and stops saying it when the
 * kernel runs again or a snapshot shows it running. */
static void
test_pause_bar(void)
{
  g_autoptr(GtkApplication) app =
      gtk_application_new("org.trellis.Debugger.Test", G_APPLICATION_NON_UNIQUE);
  g_autoptr(GError) error = NULL;
  g_assert_true(g_application_register(G_APPLICATION(app), NULL, &error));
  g_autofree char *dir = g_dir_make_tmp("td-window-XXXXXX", &error);
  g_autofree char *path = g_build_filename(dir, "pause.py", NULL);
  g_assert_true(g_file_set_contents(path, script, -1, &error));

  TdWindow *win = td_window_new(app);
  gtk_window_present(GTK_WINDOW(win));
  GtkInfoBar *bar = GTK_INFO_BAR(find_widget(GTK_WIDGET(win), GTK_TYPE_INFO_BAR, "paused-bar"));
  g_assert_nonnull(bar);
  GtkLabel *label = GTK_LABEL(find_widget(GTK_WIDGET(bar), GTK_TYPE_LABEL, NULL));
  g_assert_nonnull(label);
  g_assert_true(td_window_open_file(win, path, &error));
  g_assert_no_error(error);
  gint64 deadline = g_get_monotonic_time() + 20 * G_USEC_PER_SEC;
  while (td_window_get_status(win, NULL) != TD_CLIENT_FINISHED) {
    g_assert_cmpint(g_get_monotonic_time(), <, deadline);
    g_main_context_iteration(NULL, TRUE);
  }
  iterate_for(100);
  g_assert_false(gtk_info_bar_get_revealed(bar));

  const char *at2 =
      "Paused at <cell 3>, line 2, in f (breakpoint) — while tracing f: its tensors are symbolic";
  deliver_stop(win, 2);
  wait_pause_bar(bar, label, at2);
  /* A step stops on the next line: the bar follows. */
  deliver_stop(win, 3);
  wait_pause_bar(bar, label,
                 "Paused at <cell 3>, line 3, in f (breakpoint) — while tracing f: "
                 "its tensors are symbolic");
  TrEvent *cont = tr_event_new(TR_EVENT_DEBUGGER_CONTINUED);
  cont->dur_ns = 5000;
  deliver(win, cont);
  wait_pause_bar(bar, label, NULL);

  /* Paused again, then a snapshot (a re-attach) taken while the kernel ran. */
  deliver_stop(win, 2);
  wait_pause_bar(bar, label, at2);
  TdStore *store = td_window_get_store(win);
  json_t *snap = tr_state_to_json(td_store_get_state(store), 0);
  json_object_set_new(snap, "paused", json_null());
  json_object_set_new(snap, "seq",
                      json_integer((json_int_t)tr_state_last_seq(td_store_get_state(store)) + 1));
  TrState *running = tr_state_from_json(snap, G_MAXUINT, &error);
  json_decref(snap);
  g_assert_no_error(error);
  td_store_load(store, running);
  wait_pause_bar(bar, label, NULL);

  gtk_window_destroy(GTK_WINDOW(win));
  while (g_main_context_iteration(NULL, FALSE))
    ;
  g_unlink(path);
  g_rmdir(dir);
}

/* A table cell's size follows its font and width in characters, never its text; its text is
 * kept whole (the tooltip of an ellipsized cell shows it). */
static void
test_cell_label_size(void)
{
  GtkWidget *window = gtk_window_new();
  GtkWidget *label = td_cell_label_new(TRUE, 10);
  GtkWidget *wide = td_cell_label_new(FALSE, 20);
  GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_append(GTK_BOX(box), label);
  gtk_box_append(GTK_BOX(box), wide);
  gtk_window_set_child(GTK_WINDOW(window), box);
  gtk_window_present(GTK_WINDOW(window));
  iterate_for(100);

  TdCellLabel *cell = TD_CELL_LABEL(label);
  g_assert_cmpstr(td_cell_label_get_text(cell), ==, "");
  int min_empty, nat_empty, h_min, h_nat;
  gtk_widget_measure(label, GTK_ORIENTATION_HORIZONTAL, -1, &min_empty, &nat_empty, NULL, NULL);
  gtk_widget_measure(label, GTK_ORIENTATION_VERTICAL, -1, &h_min, &h_nat, NULL, NULL);
  g_assert_cmpint(nat_empty, >, 0);
  g_assert_cmpint(h_nat, >, 0);

  g_autofree char *long_text = g_strnfill(500, '8');
  td_cell_label_set_text(cell, long_text);
  g_assert_cmpstr(td_cell_label_get_text(cell), ==, long_text);
  int min_long, nat_long, h_min_long, h_nat_long;
  gtk_widget_measure(label, GTK_ORIENTATION_HORIZONTAL, -1, &min_long, &nat_long, NULL, NULL);
  gtk_widget_measure(label, GTK_ORIENTATION_VERTICAL, -1, &h_min_long, &h_nat_long, NULL, NULL);
  g_assert_cmpint(nat_long, ==, nat_empty);
  g_assert_cmpint(min_long, ==, min_empty);
  g_assert_cmpint(h_nat_long, ==, h_nat);

  /* Twice the characters, about twice the width. */
  int nat_wide;
  gtk_widget_measure(wide, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &nat_wide, NULL, NULL);
  g_assert_cmpint(nat_wide, ==, 2 * nat_empty);
  g_assert_cmpint(td_cell_label_column_width(wide, 20), >, nat_wide);

  td_cell_label_set_text(cell, NULL);
  g_assert_cmpstr(td_cell_label_get_text(cell), ==, "");
  iterate_for(50); /* draws */
  gtk_window_destroy(GTK_WINDOW(window));
  while (g_main_context_iteration(NULL, FALSE))
    ;
}

/* The TdLogRow showing event `seq`, or NULL. */
static TdLogRow *
find_row(GtkWidget *w, guint64 seq)
{
  if (TD_IS_LOG_ROW(w) && gtk_widget_has_css_class(w, "log-row")) {
    g_autofree char *want = g_strdup_printf("%" G_GUINT64_FORMAT, seq);
    return g_strcmp0(td_log_row_get_text(TD_LOG_ROW(w), 0), want) == 0 ? TD_LOG_ROW(w) : NULL;
  }
  for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c)) {
    TdLogRow *row = find_row(c, seq);
    if (row)
      return row;
  }
  return NULL;
}

/* The position of event `seq` among the list's rows, or -1. */
static int
row_position(GtkListView *view, guint64 seq)
{
  GListModel *model = G_LIST_MODEL(gtk_list_view_get_model(view));
  for (guint i = 0; i < g_list_model_get_n_items(model); i++) {
    g_autoptr(TdEventItem) item = g_list_model_get_item(model, i);
    if (td_event_item_get_event(item)->seq == seq)
      return (int)i;
  }
  return -1;
}

/* The log of a session 3 hours in with millions of events: numbers and times whole in their
 * columns; an error's class once; a click on a graph run's row selects its Function and
 * trace; the errors filter lists the error alone. */
static void
test_log_rows(void)
{
  g_autoptr(GtkApplication) app =
      gtk_application_new("org.trellis.Debugger.Test", G_APPLICATION_NON_UNIQUE);
  g_autoptr(GError) error = NULL;
  g_assert_true(g_application_register(G_APPLICATION(app), NULL, &error));
  g_autofree char *dir = g_dir_make_tmp("td-window-XXXXXX", &error);
  g_autofree char *path = g_build_filename(dir, "log.py", NULL);
  g_assert_true(g_file_set_contents(path, script, -1, &error));
  TdWindow *win = td_window_new(app);
  gtk_window_present(GTK_WINDOW(win));
  g_assert_true(td_window_open_file(win, path, &error));
  g_assert_no_error(error);
  gint64 deadline = g_get_monotonic_time() + 20 * G_USEC_PER_SEC;
  while (td_window_get_status(win, NULL) != TD_CLIENT_FINISHED) {
    g_assert_cmpint(g_get_monotonic_time(), <, deadline);
    g_main_context_iteration(NULL, TRUE);
  }
  TdStore *store = td_window_get_store(win);
  g_autoptr(GPtrArray) events = kept_events(store);
  gint64 fn_id = 0, cf_id = 0;
  for (guint i = 0; i < events->len; i++) {
    const TrEvent *ev = events->pdata[i];
    if (ev->kind == TR_EVENT_CALL_END && ev->cf_id > 0) {
      fn_id = ev->fn_id;
      cf_id = ev->cf_id;
    }
  }
  g_assert_cmpint(cf_id, >, 0);

  g_autoptr(GPtrArray) batch = g_ptr_array_new_with_free_func((GDestroyNotify)tr_event_unref);
  TrEvent *run = tr_event_new(TR_EVENT_GRAPH_EXEC_END);
  run->seq = 1234567;
  run->ts_ns = G_GINT64_CONSTANT(10800123456789); /* 3 h */
  run->fn_id = fn_id;
  run->fn_name = g_strdup("f");
  run->cf_id = cf_id;
  run->graph_id = 94558012345678;
  run->dur_ns = 2000;
  g_ptr_array_add(batch, run);
  TrEvent *raised = tr_event_new(TR_EVENT_ERROR);
  raised->seq = 1234568;
  raised->ts_ns = run->ts_ns + 1000;
  raised->name = g_strdup("ValueError");
  raised->text = g_strdup("ValueError: bad input");
  g_ptr_array_add(batch, raised);
  td_store_apply_events(store, batch);

  g_assert_true(gtk_widget_activate_action(GTK_WIDGET(win), "win.search", NULL));
  GtkListView *log = find_list_view(GTK_WIDGET(win), "event-log");
  TdLogRow *row = NULL, *error_row = NULL;
  while (!(row = find_row(GTK_WIDGET(log), 1234567)) ||
         !(error_row = find_row(GTK_WIDGET(log), 1234568)) ||
         gtk_widget_get_width(GTK_WIDGET(row)) == 0) {
    g_assert_cmpint(g_get_monotonic_time(), <, deadline);
    g_main_context_iteration(NULL, FALSE);
    g_usleep(1000);
  }
  iterate_for(100);
  g_assert_cmpstr(td_log_row_get_text(row, 1), ==, "10800.123457");
  g_assert_false(td_log_row_is_ellipsized(row, 0));
  g_assert_false(td_log_row_is_ellipsized(row, 1));
  g_autofree char *run_text = g_strdup_printf("concrete #%" G_GINT64_FORMAT ", 2.0 µs", cf_id);
  g_assert_cmpstr(td_log_row_get_text(row, 5), ==, run_text);
  g_assert_cmpstr(td_log_row_get_text(error_row, 5), ==, "ValueError: bad input");

  /* a click on the graph run's row: its Function and trace are selected */
  TdFunctionsView *functions =
      TD_FUNCTIONS_VIEW(find_widget(GTK_WIDGET(win), TD_TYPE_FUNCTIONS_VIEW, NULL));
  TdTracesView *traces = TD_TRACES_VIEW(find_widget(GTK_WIDGET(win), TD_TYPE_TRACES_VIEW, NULL));
  td_traces_view_set_function(traces, 0);
  g_assert_cmpint(td_traces_view_get_selected_trace(traces), !=, cf_id);
  /* a node search typed with no graph shown */
  td_graph_view_set_trace(TD_GRAPH_VIEW(find_widget(GTK_WIDGET(win), TD_TYPE_GRAPH_VIEW, NULL)), 0,
                          NULL);
  GtkWidget *graph_search = find_by_class(GTK_WIDGET(win), "graph-search");
  GtkLabel *graph_matches = GTK_LABEL(find_by_class(GTK_WIDGET(win), "graph-matches"));
  gtk_editable_set_text(GTK_EDITABLE(graph_search), "addv2");
  while (g_strcmp0(gtk_label_get_text(graph_matches), "0 nodes") != 0) {
    if (g_get_monotonic_time() > deadline)
      g_error("the node count says \"%s\"", gtk_label_get_text(graph_matches));
    g_main_context_iteration(NULL, FALSE);
    g_usleep(1000);
  }
  int pos = row_position(log, 1234567);
  g_assert_cmpint(pos, >=, 0);
  g_signal_emit_by_name(log, "activate", (guint)pos);
  g_assert_cmpint(td_functions_view_get_selected(functions), ==, fn_id);
  g_assert_cmpint(td_traces_view_get_selected_trace(traces), ==, cf_id);
  /* the trace's graph shown: the count follows it (it stayed "0 nodes") */
  while (g_strcmp0(gtk_label_get_text(graph_matches), "1 node") != 0) {
    if (g_get_monotonic_time() > deadline)
      g_error("the node count says \"%s\"", gtk_label_get_text(graph_matches));
    g_main_context_iteration(NULL, FALSE);
    g_usleep(1000);
  }
  /* "e": every graph's Placeholder and Identity at least; Enter goes to the next match, Ctrl+G
   * (next-match) on, Shift+Enter's previous-match back */
  TdGraphView *graph_view = TD_GRAPH_VIEW(find_widget(GTK_WIDGET(win), TD_TYPE_GRAPH_VIEW, NULL));
  gtk_editable_set_text(GTK_EDITABLE(graph_search), "e");
  while (td_graph_view_get_n_matches(graph_view) < 2) {
    g_assert_cmpint(g_get_monotonic_time(), <, deadline);
    g_main_context_iteration(NULL, FALSE);
    g_usleep(1000);
  }
  guint n_e = td_graph_view_get_n_matches(graph_view);
  g_autofree char *first = g_strdup_printf("1 of %u nodes", n_e);
  g_autofree char *second = g_strdup_printf("2 of %u nodes", n_e);
  g_assert_cmpstr(gtk_label_get_text(graph_matches), ==, first);
  g_signal_emit_by_name(graph_search, "activate");
  g_assert_cmpstr(gtk_label_get_text(graph_matches), ==, second);
  g_signal_emit_by_name(graph_search, "previous-match");
  g_assert_cmpstr(gtk_label_get_text(graph_matches), ==, first);
  g_signal_emit_by_name(graph_search, "next-match");
  g_assert_cmpstr(gtk_label_get_text(graph_matches), ==, second);

  /* errors only */
  TdEventLog *event_log = TD_EVENT_LOG(find_widget(GTK_WIDGET(win), TD_TYPE_EVENT_LOG, NULL));
  td_event_log_show_group(event_log, TD_EVENT_GROUP_ERRORS);
  while (n_rows(log) != 1) {
    g_assert_cmpint(g_get_monotonic_time(), <, deadline);
    g_main_context_iteration(NULL, FALSE);
    g_usleep(1000);
  }
  g_assert_cmpint(row_position(log, 1234568), ==, 0);
  td_event_log_show_group(event_log, TD_EVENT_GROUP_ALL);

  gtk_window_destroy(GTK_WINDOW(win));
  while (g_main_context_iteration(NULL, FALSE))
    ;
  g_unlink(path);
  g_rmdir(dir);
}

/* The Functions table in the window has an Eager column (runs of the Python body under
 * run_functions_eagerly, apart from hits and misses). */
static void
test_functions_header(void)
{
  g_autoptr(GtkApplication) app =
      gtk_application_new("org.trellis.Debugger.Test", G_APPLICATION_NON_UNIQUE);
  g_autoptr(GError) error = NULL;
  g_assert_true(g_application_register(G_APPLICATION(app), NULL, &error));
  g_autofree char *dir = g_dir_make_tmp("td-window-XXXXXX", &error);
  g_autofree char *path = g_build_filename(dir, "header.py", NULL);
  g_assert_true(g_file_set_contents(path, script, -1, &error));
  TdWindow *win = td_window_new(app);
  gtk_window_present(GTK_WINDOW(win));
  g_assert_true(td_window_open_file(win, path, &error));
  GtkWidget *table = find_widget(GTK_WIDGET(win), GTK_TYPE_COLUMN_VIEW, NULL);
  g_assert_nonnull(table);
  gint64 deadline = g_get_monotonic_time() + 20 * G_USEC_PER_SEC;
  while (!gtk_widget_get_mapped(table) || gtk_widget_get_height(table) == 0) {
    g_assert_cmpint(g_get_monotonic_time(), <, deadline);
    g_main_context_iteration(NULL, FALSE);
    g_usleep(1000);
  }
  iterate_for(200);
  GListModel *columns = gtk_column_view_get_columns(GTK_COLUMN_VIEW(table));
  gboolean eager = FALSE;
  for (guint i = 0; i < g_list_model_get_n_items(columns); i++) {
    g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item(columns, i);
    eager |= g_strcmp0(gtk_column_view_column_get_title(column), "Eager") == 0;
  }
  g_assert_true(eager);

  while (td_window_get_status(win, NULL) != TD_CLIENT_FINISHED) {
    g_assert_cmpint(g_get_monotonic_time(), <, deadline);
    g_main_context_iteration(NULL, TRUE);
  }
  gtk_window_destroy(GTK_WINDOW(win));
  while (g_main_context_iteration(NULL, FALSE))
    ;
  g_unlink(path);
  g_rmdir(dir);
}

static gboolean
is_lost(TdWindow *win, GtkSwitch *sw)
{
  return td_window_get_status(win, NULL) == TD_CLIENT_LOST;
}

/* A connection file with no trellis-debug file beside it is another kernel's: attaching says
 * so (it reported a missing file). A Trellis kernel that never answers is lost, and the
 * message says that once, with how long it waited. */
static void
test_attach_failures(void)
{
  g_autoptr(GtkApplication) app =
      gtk_application_new("org.trellis.Debugger.Test", G_APPLICATION_NON_UNIQUE);
  g_autoptr(GError) error = NULL;
  g_assert_true(g_application_register(G_APPLICATION(app), NULL, &error));
  g_autofree char *dir = g_dir_make_tmp("td-attach-XXXXXX", &error);
  g_assert_no_error(error);
  g_autofree char *conn = g_build_filename(dir, "kernel-77.json", NULL);
  g_assert_true(g_file_set_contents(
      conn,
      "{\"shell_port\": 1, \"iopub_port\": 2, \"ip\": \"127.0.0.1\", \"key\": \"k\", "
      "\"signature_scheme\": \"hmac-sha256\", \"kernel_name\": \"python3\"}",
      -1, &error));

  TdWindow *win = td_window_new(app);
  gtk_window_present(GTK_WINDOW(win));
  g_assert_false(td_window_attach(win, conn, &error));
  g_assert_error(error, TD_CLIENT_ERROR, TD_CLIENT_ERROR_NOT_TRELLIS);
  g_assert_cmpstr(error->message, ==,
                  "This is not a Trellis kernel (kernel_name \"python3\"): it publishes no trace "
                  "events (no trellis-debug-77.json beside its connection file)");
  g_clear_error(&error);
  g_assert_false(td_window_has_session(win));
  /* the session that could not start let go of every view: the timeline kept the store,
   * connected to it */
  TdTimeline *timeline = TD_TIMELINE(find_widget(GTK_WIDGET(win), TD_TYPE_TIMELINE, NULL));
  g_assert_nonnull(timeline);
  TdStore *left = td_timeline_get_store(timeline);
  if (left)
    g_error("the timeline still reads a store after end_session (its reset handler %s)",
            g_signal_has_handler_pending(left, g_signal_lookup("reset", TD_TYPE_STORE), 0, FALSE)
                ? "connected"
                : "gone");
  g_assert_null(td_window_get_store(win));

  /* a discovery file whose endpoints nobody serves */
  g_autofree char *disc = g_build_filename(dir, "trellis-debug-77.json", NULL);
  g_assert_true(g_file_set_contents(
      disc, "{\"events\": \"tcp://127.0.0.1:9\", \"requests\": \"tcp://127.0.0.1:9\"}", -1,
      &error));
  g_assert_true(td_window_attach(win, conn, &error));
  g_assert_no_error(error);
  wait_for(win, NULL, is_lost, "the kernel was lost");
  GtkLabel *text = find_label(GTK_WIDGET(win), "The kernel stopped answering");
  g_assert_nonnull(text);
  g_assert_cmpstr(gtk_label_get_text(text), ==, "The kernel stopped answering (no reply for 5 s).");

  gtk_window_destroy(GTK_WINDOW(win));
  while (g_main_context_iteration(NULL, FALSE))
    ;
  g_unlink(disc);
  g_unlink(conn);
  g_rmdir(dir);
}

/* The traces view compares the selected trace with every other one, argument by argument, and
 * says under each cause what TensorFlow's guide advises. */
static TrEvent *
fn_event(TrEventKind kind, guint64 seq)
{
  TrEvent *ev = tr_event_new(kind);
  ev->seq = seq;
  ev->ts_ns = (gint64)seq * 1000;
  ev->fn_id = 7;
  ev->fn_name = g_strdup("f");
  return ev;
}

static const char *
label_with_class(GtkWidget *w, const char *cls, const char *containing)
{
  if (GTK_IS_LABEL(w) && gtk_widget_has_css_class(w, cls) &&
      strstr(gtk_label_get_text(GTK_LABEL(w)), containing))
    return gtk_label_get_text(GTK_LABEL(w));
  for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c)) {
    const char *found = label_with_class(c, cls, containing);
    if (found)
      return found;
  }
  return NULL;
}

static void
test_traces_compared(void)
{
  g_autoptr(TdStore) store = td_store_new(1000);
  g_autoptr(GPtrArray) batch = g_ptr_array_new_with_free_func((GDestroyNotify)tr_event_unref);
  g_ptr_array_add(batch, fn_event(TR_EVENT_FUNCTION_CREATED, 1));
  const char *signatures[] = {
      "f(x)\n  Args:\n    x: float32 Tensor, shape=(2,)\n  Returns:\n    float32 Tensor, "
      "shape=(2,)",
      "f(x)\n  Args:\n    x: float32 Tensor, shape=(3,)\n  Returns:\n    float32 Tensor, "
      "shape=(3,)",
  };
  for (int k = 0; k < 2; k++) {
    TrEvent *cause = fn_event(TR_EVENT_RETRACE_CAUSE, 2 + 2 * (guint64)k);
    cause->file = g_strdup("<cell 1>");
    cause->line = 3 + k;
    cause->causes = tr_retrace_causes_new();
    g_ptr_array_add(cause->causes,
                    k ? tr_retrace_cause_new("x", TR_CAUSE_SHAPE, "x: shape (3,) is not (2,)")
                      : tr_retrace_cause_new(NULL, TR_CAUSE_FIRST_CALL, "first call"));
    g_ptr_array_add(batch, cause);
    TrEvent *added = fn_event(TR_EVENT_CONCRETE_ADDED, 3 + 2 * (guint64)k);
    added->cf_id = k + 1;
    added->signature = g_strdup(signatures[k]);
    g_ptr_array_add(batch, added);
  }
  td_store_apply_events(store, batch);

  GtkWidget *view = td_traces_view_new();
  td_traces_view_set_store(TD_TRACES_VIEW(view), store);
  GtkWidget *window = gtk_window_new();
  gtk_window_set_child(GTK_WINDOW(window), view);
  gtk_window_present(GTK_WINDOW(window));
  td_traces_view_set_function(TD_TRACES_VIEW(view), 7);
  gint64 deadline = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;
  while (!label_with_class(view, "trace-diff", "#1")) {
    g_assert_cmpint(g_get_monotonic_time(), <, deadline);
    g_main_context_iteration(NULL, FALSE);
    g_usleep(1000);
  }
  /* the newest trace selected first: #2 against #1 */
  g_assert_cmpstr(label_with_class(view, "trace-diff", "#1"), ==,
                  "#1: x: float32 Tensor, shape=(3,) here, float32 Tensor, shape=(2,) there");
  g_assert_nonnull(label_with_class(view, "trace-advice", "reduce_retracing=True"));
  g_assert_null(label_with_class(view, "trace-advice", "first")); /* a first call: no advice */
  td_traces_view_select_trace(TD_TRACES_VIEW(view), 1);
  iterate_for(50);
  g_assert_nonnull(label_with_class(view, "trace-diff", "#2: x: float32 Tensor, shape=(2,) here"));
  gtk_window_destroy(GTK_WINDOW(window));
  while (g_main_context_iteration(NULL, FALSE))
    ;
}

/* A saved session (an events file) opens as a finished session: its Functions and counts,
 * nothing run; a file that is not one is an error, and the window stays as it was. */
static void
test_open_saved_session(void)
{
  g_autoptr(GtkApplication) app =
      gtk_application_new("org.trellis.Debugger.Test", G_APPLICATION_NON_UNIQUE);
  g_autoptr(GError) error = NULL;
  g_assert_true(g_application_register(G_APPLICATION(app), NULL, &error));
  g_autofree char *dir = g_dir_make_tmp("td-window-XXXXXX", &error);
  g_autofree char *path = g_build_filename(dir, "session.jsonl", NULL);
  const char *events =
      "{\"seq\":1,\"ts_ns\":1000,\"kind\":\"function_created\",\"function_id\":4,"
      "\"function\":\"saved_fn\",\"signature\":null,\"text\":\"<function saved_fn>\","
      "\"enabled\":false}\n"
      "{\"seq\":2,\"ts_ns\":2000,\"kind\":\"call\",\"cell\":1,\"file\":\"<cell 1>\","
      "\"line\":3,\"function_id\":4,\"function\":\"saved_fn\",\"outcome\":\"hit\","
      "\"concrete_id\":0,\"candidates\":1,\"reason\":null}\n";
  g_assert_true(g_file_set_contents(path, events, -1, &error));
  TdWindow *win = td_window_new(app);
  gtk_window_present(GTK_WINDOW(win));
  g_assert_true(td_window_open_file(win, path, &error));
  g_assert_no_error(error);
  g_assert_cmpint(td_window_get_status(win, NULL), ==, TD_CLIENT_FINISHED);
  TrState *state = td_store_get_state(td_window_get_store(win));
  const TrStateFn *fn = tr_state_function(state, 4);
  g_assert_nonnull(fn);
  g_assert_cmpstr(fn->name, ==, "saved_fn");
  g_assert_cmpuint(fn->calls, ==, 1);
  gtk_window_destroy(GTK_WINDOW(win));

  g_autofree char *bad = g_build_filename(dir, "bad.jsonl", NULL);
  g_assert_true(g_file_set_contents(bad, "not json\n", -1, &error));
  TdWindow *other = td_window_new(app);
  g_assert_false(td_window_open_file(other, bad, &error));
  g_assert_nonnull(strstr(error->message, "line 1"));
  g_assert_null(td_window_get_store(other));
  gtk_window_destroy(GTK_WINDOW(other));
  while (g_main_context_iteration(NULL, FALSE))
    ;
  g_unlink(path);
  g_unlink(bad);
  g_rmdir(dir);
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  /* Without a session bus under Xvfb, GTK warns that it cannot reach one: only criticals fail. */
  g_log_set_always_fatal(G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_ERROR);
  gtk_init();
  g_test_add_func("/gui/window/eager-switch-both-ways", test_eager_switch_both_ways);
  g_test_add_func("/gui/window/hidden-log-waits", test_hidden_log_waits);
  g_test_add_func("/gui/window/functions-eager-column", test_functions_header);
  g_test_add_func("/gui/window/log-rows-whole-and-clickable", test_log_rows);
  g_test_add_func("/gui/window/attach-not-trellis-and-lost", test_attach_failures);
  g_test_add_func("/gui/window/pause-bar-shows-and-hides", test_pause_bar);
  g_test_add_func("/gui/traces/compared-with-every-trace-and-advised", test_traces_compared);
  g_test_add_func("/gui/window/open-saved-session", test_open_saved_session);
  g_test_add_func("/gui/cell-label/size-does-not-follow-text", test_cell_label_size);
  return g_test_run();
}
