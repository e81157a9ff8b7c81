/* td-traces-view.c — the selected Function's traces (see td-traces-view.h).
 *
 * The list is rebuilt from the TrState when the Function changes, at most a few times a second
 * (a hot Function changes with every call; its rows change only with its counts). */
#include "td-traces-view.h"

#include "td-format.h"
#include "td-trace-diff.h"

#define REFRESH_MS 300 /* least time between two rebuilds of a live Function */
#define MAX_ROWS   200 /* traces shown: the newest */

struct _TdTracesView {
  GtkWidget parent_instance;
  GtkWidget *stack;         /* "empty" placeholder or "list" */
  GtkLabel *title;          /* the Function's name */
  GtkLabel *summary;        /* its counters */
  GtkListBox *list;         /* one row per trace */
  GtkWidget *compare;       /* the selected trace against the others, below the list */
  TdStore *store;           /* the data, or NULL */
  gulong store_handlers[2]; /* "function-changed", "reset" */
  gint64 fn_id;             /* Function shown (0: none) */
  gint64 selected_cf;       /* trace selected (0: none) */
  guint refresh_id;         /* pending rebuild, or 0 */
  gint64 last_refresh_us;   /* monotonic time of the last rebuild */
  gboolean rebuilding;      /* rows are being replaced: ignore selection changes */
};

G_DEFINE_FINAL_TYPE(TdTracesView, td_traces_view, GTK_TYPE_WIDGET)

enum { SIGNAL_TRACE_SELECTED, SIGNAL_TRACE_ACTIVATED, N_SIGNALS };
static guint signals[N_SIGNALS];

static gint64
row_cf_id(GtkListBoxRow *row)
{
  return row ? (gint64)GPOINTER_TO_SIZE(g_object_get_data(G_OBJECT(row), "td-cf-id")) : 0;
}

static GtkWidget *
add_label(GtkBox *box, const char *text, const char *css_class, gboolean wrap)
{
  GtkWidget *label = gtk_label_new(text);
  gtk_label_set_xalign(GTK_LABEL(label), 0);
  gtk_label_set_selectable(GTK_LABEL(label), FALSE);
  if (wrap) {
    gtk_label_set_wrap(GTK_LABEL(label), TRUE);
    gtk_label_set_wrap_mode(GTK_LABEL(label), PANGO_WRAP_WORD_CHAR);
  }
  if (css_class)
    gtk_widget_add_css_class(label, css_class);
  gtk_box_append(box, label);
  return label;
}

/* The block saying why a trace was made: where, and each cause on its own line. */
static void
add_retrace(GtkBox *box, const TrStateRetrace *rt, const char *verb)
{
  g_autofree char *site = td_format_site(rt->file, rt->line);
  g_autofree char *head = g_strdup_printf("%s at %s", verb, *site ? site : "an unknown site");
  add_label(box, head, "trace-cause-head", TRUE);
  guint advised = 0; /* the kinds given advice already: once each */
  for (guint i = 0; rt->causes && i < rt->causes->len; i++) {
    const TrRetraceCause *c = g_ptr_array_index(rt->causes, i);
    g_autofree char *line =
        g_strdup_printf("• %s", c->text ? c->text : tr_cause_kind_name(c->kind));
    add_label(box, line, "trace-cause", TRUE);
    const char *advice = td_cause_advice(c->kind);
    if (advice && !(advised & (1u << c->kind))) {
      advised |= 1u << c->kind;
      add_label(box, advice, "trace-advice", TRUE);
    }
  }
}

/* ---- comparing traces ------------------------------------------------------------------------ */

static void
clear_box(GtkWidget *box)
{
  GtkWidget *child;
  while ((child = gtk_widget_get_first_child(box)))
    gtk_box_remove(GTK_BOX(box), child);
}

/* "x: float32 Tensor, shape=(2,) here, shape=(3,) in #1" lines: the selected trace against every
 * other trace of its Function (a call that matched the selected one would have missed each other
 * trace for these reasons). */
static void
show_comparison(TdTracesView *self, const TrStateFn *fn, const TrStateTrace *selected)
{
  clear_box(self->compare);
  if (!fn || !selected || fn->traces->len < 2) {
    gtk_widget_set_visible(self->compare, FALSE);
    return;
  }
  gtk_widget_set_visible(self->compare, TRUE);
  g_autofree char *head =
      g_strdup_printf("#%" G_GINT64_FORMAT " against the other traces", selected->id);
  add_label(GTK_BOX(self->compare), head, "heading", FALSE);
  guint first = fn->traces->len > MAX_ROWS ? fn->traces->len - MAX_ROWS : 0;
  for (guint i = first; i < fn->traces->len; i++) {
    const TrStateTrace *other = g_ptr_array_index(fn->traces, i);
    if (other == selected)
      continue;
    g_autoptr(GPtrArray) diffs = td_trace_diff(selected->signature, other->signature);
    GString *s = g_string_new(NULL);
    g_string_printf(s, "#%" G_GINT64_FORMAT ": ", other->id);
    if (diffs->len == 0)
      g_string_append(s, "the same argument types (it differs in what they hold)");
    for (guint k = 0; k < diffs->len; k++) {
      const TdArgDiff *d = diffs->pdata[k];
      g_string_append_printf(s, "%s%s: %s here, %s there", k ? "; " : "", d->name,
                             d->a ? d->a : "no such argument", d->b ? d->b : "no such argument");
    }
    GtkWidget *label = add_label(GTK_BOX(self->compare), s->str, "trace-diff", TRUE);
    gtk_label_set_selectable(GTK_LABEL(label), TRUE);
    g_string_free(s, TRUE);
  }
}

static void
update_comparison(TdTracesView *self)
{
  TrState *state = self->store ? td_store_get_state(self->store) : NULL;
  const TrStateFn *fn = state && self->fn_id ? tr_state_function(state, self->fn_id) : NULL;
  const TrStateTrace *selected = NULL;
  for (guint i = 0; fn && i < fn->traces->len && !selected; i++)
    if (((const TrStateTrace *)g_ptr_array_index(fn->traces, i))->id == self->selected_cf)
      selected = g_ptr_array_index(fn->traces, i);
  show_comparison(self, fn, selected);
}

static GtkWidget *
trace_row(const TrStateTrace *tr)
{
  GtkBox *box = GTK_BOX(gtk_box_new(GTK_ORIENTATION_VERTICAL, 4));
  gtk_widget_add_css_class(GTK_WIDGET(box), "trace-row");
  g_autofree char *title =
      g_strdup_printf("#%" G_GINT64_FORMAT "  %s", tr->id, tr->signature ? tr->signature : "");
  add_label(box, title, "trace-signature", TRUE);

  g_autofree char *cost = td_format_duration_ns(tr->trace_ns);
  g_autofree char *served = td_format_count(tr->served);
  g_autofree char *nodes =
      tr->nodes_optimized > 0 && tr->nodes_optimized != tr->nodes
          ? g_strdup_printf("%" G_GINT64_FORMAT " nodes (%" G_GINT64_FORMAT " optimized)",
                            tr->nodes, tr->nodes_optimized)
          : g_strdup_printf("%" G_GINT64_FORMAT " nodes", tr->nodes);
  g_autofree char *facts = g_strdup_printf("%s · traced in %s · served %s call%s", nodes, cost,
                                           served, tr->served == 1 ? "" : "s");
  add_label(box, facts, "dim-label", TRUE);
  if (tr->retrace)
    add_retrace(box, tr->retrace, "Traced");

  GtkWidget *row = gtk_list_box_row_new();
  gtk_list_box_row_set_child(GTK_LIST_BOX_ROW(row), GTK_WIDGET(box));
  g_object_set_data(G_OBJECT(row), "td-cf-id", GSIZE_TO_POINTER((gsize)tr->id));
  return row;
}

/* A miss whose tracing failed or has not finished: no trace to show, only its causes. */
static GtkWidget *
failed_retrace_row(const TrStateRetrace *rt)
{
  GtkBox *box = GTK_BOX(gtk_box_new(GTK_ORIENTATION_VERTICAL, 4));
  gtk_widget_add_css_class(GTK_WIDGET(box), "trace-row");
  add_retrace(box, rt, "Tracing did not finish");
  GtkWidget *row = gtk_list_box_row_new();
  gtk_list_box_row_set_child(GTK_LIST_BOX_ROW(row), GTK_WIDGET(box));
  gtk_list_box_row_set_selectable(GTK_LIST_BOX_ROW(row), FALSE);
  gtk_list_box_row_set_activatable(GTK_LIST_BOX_ROW(row), FALSE);
  return row;
}

static void
clear_rows(TdTracesView *self)
{
  GtkWidget *child;
  while ((child = gtk_widget_get_first_child(GTK_WIDGET(self->list))))
    gtk_list_box_remove(self->list, child);
}

static void
set_summary(TdTracesView *self, const TrStateFn *fn)
{
  g_autofree char *calls = td_format_count(fn->calls);
  g_autofree char *rate = td_format_hit_rate(tr_state_fn_hit_rate(fn), fn->hits, fn->misses);
  g_autofree char *cost = td_format_duration_ns(fn->trace_ns);
  g_autofree char *rejected =
      fn->rejected ? g_strdup_printf(" · %" G_GUINT64_FORMAT " rejected by input_signature or "
                                     "binding",
                                     fn->rejected)
                   : g_strdup("");
  g_autofree char *text =
      g_strdup_printf("%s call%s · %" G_GUINT64_FORMAT " hit%s · %" G_GUINT64_FORMAT
                      " miss%s · %" G_GUINT64_FORMAT " eager%s · hit rate %s · tracing %s",
                      calls, fn->calls == 1 ? "" : "s", fn->hits, fn->hits == 1 ? "" : "s",
                      fn->misses, fn->misses == 1 ? "" : "es", fn->eager, rejected, rate, cost);
  gtk_label_set_text(self->title, fn->name ? fn->name : "?");
  gtk_label_set_text(self->summary, text);
}

static void
rebuild(TdTracesView *self)
{
  self->last_refresh_us = g_get_monotonic_time();
  TrState *state = self->store ? td_store_get_state(self->store) : NULL;
  const TrStateFn *fn = state && self->fn_id ? tr_state_function(state, self->fn_id) : NULL;
  self->rebuilding = TRUE;
  clear_rows(self);
  gtk_stack_set_visible_child_name(GTK_STACK(self->stack), fn ? "list" : "empty");
  if (fn) {
    set_summary(self, fn);
    guint first = fn->traces->len > MAX_ROWS ? fn->traces->len - MAX_ROWS : 0;
    for (guint i = first; i < fn->traces->len; i++) {
      const TrStateTrace *tr = g_ptr_array_index(fn->traces, i);
      GtkWidget *row = trace_row(tr);
      gtk_list_box_append(self->list, row);
      if (tr->id == self->selected_cf)
        gtk_list_box_select_row(self->list, GTK_LIST_BOX_ROW(row));
    }
    for (guint i = 0; i < fn->retraces->len; i++) {
      const TrStateRetrace *rt = g_ptr_array_index(fn->retraces, i);
      if (rt->cf_id == 0)
        gtk_list_box_append(self->list, failed_retrace_row(rt));
    }
  }
  self->rebuilding = FALSE;
  update_comparison(self);
  /* Nothing chosen yet: the newest trace, the one the last retrace made. */
  GtkWidget *last = gtk_widget_get_last_child(GTK_WIDGET(self->list));
  while (last && row_cf_id(GTK_LIST_BOX_ROW(last)) == 0)
    last = gtk_widget_get_prev_sibling(last);
  if (fn && self->selected_cf == 0 && last)
    gtk_list_box_select_row(self->list, GTK_LIST_BOX_ROW(last));
}

static gboolean
refresh_timeout(gpointer user_data)
{
  TdTracesView *self = TD_TRACES_VIEW(user_data);
  self->refresh_id = 0;
  rebuild(self);
  return G_SOURCE_REMOVE;
}

static void
schedule_refresh(TdTracesView *self)
{
  if (self->refresh_id != 0)
    return;
  gint64 since_ms = (g_get_monotonic_time() - self->last_refresh_us) / 1000;
  guint wait = since_ms >= REFRESH_MS ? 0 : (guint)(REFRESH_MS - since_ms);
  self->refresh_id = g_timeout_add(wait, refresh_timeout, self);
}

static void
on_function_changed(TdStore *store, gint64 fn_id, gpointer user_data)
{
  TdTracesView *self = TD_TRACES_VIEW(user_data);
  if (fn_id == self->fn_id)
    schedule_refresh(self);
}

static void
on_reset(TdStore *store, gpointer user_data)
{
  schedule_refresh(TD_TRACES_VIEW(user_data));
}

static void
on_row_selected(GtkListBox *list, GtkListBoxRow *row, gpointer user_data)
{
  TdTracesView *self = TD_TRACES_VIEW(user_data);
  if (self->rebuilding || row == NULL)
    return;
  gint64 cf = row_cf_id(row);
  if (cf == self->selected_cf)
    return;
  self->selected_cf = cf;
  update_comparison(self);
  g_signal_emit(self, signals[SIGNAL_TRACE_SELECTED], 0, cf);
}

static void
on_row_activated(GtkListBox *list, GtkListBoxRow *row, gpointer user_data)
{
  g_signal_emit(user_data, signals[SIGNAL_TRACE_ACTIVATED], 0, row_cf_id(row));
}

static void
disconnect_store(TdTracesView *self)
{
  if (self->store == NULL)
    return;
  for (guint i = 0; i < G_N_ELEMENTS(self->store_handlers); i++)
    g_clear_signal_handler(&self->store_handlers[i], self->store);
  g_clear_object(&self->store);
}

void
td_traces_view_set_store(TdTracesView *self, TdStore *store)
{
  g_return_if_fail(TD_IS_TRACES_VIEW(self));
  disconnect_store(self);
  if (store) {
    self->store = g_object_ref(store);
    self->store_handlers[0] =
        g_signal_connect(store, "function-changed", G_CALLBACK(on_function_changed), self);
    self->store_handlers[1] = g_signal_connect(store, "reset", G_CALLBACK(on_reset), self);
  }
  rebuild(self);
}

void
td_traces_view_set_function(TdTracesView *self, gint64 fn_id)
{
  g_return_if_fail(TD_IS_TRACES_VIEW(self));
  if (fn_id == self->fn_id)
    return;
  self->fn_id = fn_id;
  self->selected_cf = 0;
  g_clear_handle_id(&self->refresh_id, g_source_remove);
  rebuild(self);
}

void
td_traces_view_select_trace(TdTracesView *self, gint64 cf_id)
{
  g_return_if_fail(TD_IS_TRACES_VIEW(self));
  for (GtkWidget *row = gtk_widget_get_first_child(GTK_WIDGET(self->list)); row;
       row = gtk_widget_get_next_sibling(row)) {
    if (GTK_IS_LIST_BOX_ROW(row) && row_cf_id(GTK_LIST_BOX_ROW(row)) == cf_id) {
      gtk_list_box_select_row(self->list, GTK_LIST_BOX_ROW(row));
      return;
    }
  }
}

gint64
td_traces_view_get_selected_trace(TdTracesView *self)
{
  g_return_val_if_fail(TD_IS_TRACES_VIEW(self), 0);
  return self->selected_cf;
}

static void
td_traces_view_dispose(GObject *object)
{
  TdTracesView *self = TD_TRACES_VIEW(object);
  g_clear_handle_id(&self->refresh_id, g_source_remove);
  disconnect_store(self);
  g_clear_pointer(&self->stack, gtk_widget_unparent);
  G_OBJECT_CLASS(td_traces_view_parent_class)->dispose(object);
}

static void
td_traces_view_class_init(TdTracesViewClass *klass)
{
  G_OBJECT_CLASS(klass)->dispose = td_traces_view_dispose;
  gtk_widget_class_set_layout_manager_type(GTK_WIDGET_CLASS(klass), GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name(GTK_WIDGET_CLASS(klass), "tdtracesview");
  signals[SIGNAL_TRACE_SELECTED] =
      g_signal_new("trace-selected", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                   NULL, G_TYPE_NONE, 1, G_TYPE_INT64);
  signals[SIGNAL_TRACE_ACTIVATED] =
      g_signal_new("trace-activated", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                   NULL, G_TYPE_NONE, 1, G_TYPE_INT64);
}

static GtkWidget *
empty_page(void)
{
  GtkWidget *label = gtk_label_new("Select a Function to see its traces and why they were made");
  gtk_label_set_wrap(GTK_LABEL(label), TRUE);
  gtk_label_set_justify(GTK_LABEL(label), GTK_JUSTIFY_CENTER);
  gtk_widget_add_css_class(label, "dim-label");
  return label;
}

static void
td_traces_view_init(TdTracesView *self)
{
  GtkBox *box = GTK_BOX(gtk_box_new(GTK_ORIENTATION_VERTICAL, 6));
  gtk_widget_add_css_class(GTK_WIDGET(box), "traces-page");
  self->title = GTK_LABEL(add_label(box, "", "title-3", FALSE));
  self->summary = GTK_LABEL(add_label(box, "", "dim-label", TRUE));
  self->list = GTK_LIST_BOX(gtk_list_box_new());
  gtk_list_box_set_selection_mode(self->list, GTK_SELECTION_SINGLE);
  gtk_list_box_set_activate_on_single_click(self->list, FALSE);
  gtk_widget_add_css_class(GTK_WIDGET(self->list), "boxed-list");
  g_signal_connect(self->list, "row-selected", G_CALLBACK(on_row_selected), self);
  g_signal_connect(self->list, "row-activated", G_CALLBACK(on_row_activated), self);
  gtk_box_append(box, GTK_WIDGET(self->list));
  self->compare = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4);
  gtk_widget_add_css_class(self->compare, "trace-compare");
  gtk_widget_set_visible(self->compare, FALSE);
  gtk_box_append(box, self->compare);

  GtkWidget *scrolled = gtk_scrolled_window_new();
  gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scrolled), GTK_POLICY_NEVER,
                                 GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scrolled), GTK_WIDGET(box));

  self->stack = gtk_stack_new();
  gtk_stack_add_named(GTK_STACK(self->stack), empty_page(), "empty");
  gtk_stack_add_named(GTK_STACK(self->stack), scrolled, "list");
  gtk_widget_set_parent(self->stack, GTK_WIDGET(self));
}

GtkWidget *
td_traces_view_new(void)
{
  return g_object_new(TD_TYPE_TRACES_VIEW, NULL);
}
