/* td-event-log.c — the event log (see td-event-log.h).
 *
 * The store's events model goes through a GtkFilterListModel with a TdEventFilter; the model
 * filters incrementally, so a million kept events never block the main loop. Columns are
 * listed once (`columns`), each a function from an event to its cell's text; a row is one
 * TdLogRow under a GtkListView, with a header TdLogRow of the titles above it. */
#include "td-event-log.h"

#include "td-event-filter.h"
#include "td-format.h"
#include "td-label.h"
#include "td-log-row.h"
#include "td-paced-list.h"

typedef char *(*EventCellFunc)(const TrEvent *ev);

/* One column of the log. */
typedef struct {
  const char *title;  /* header text */
  EventCellFunc text; /* the cell's text */
  gboolean numeric;   /* right-aligned, tabular digits */
  gboolean expand;    /* takes the spare width */
  int width_chars;    /* natural width, in characters */
} TdLogColumn;

struct _TdEventLog {
  GtkWidget parent_instance;
  GtkWidget *box;               /* the toolbar, the header and the table, top to bottom */
  GtkDropDown *kind_dropdown;   /* "All events" then each kind */
  GtkSearchEntry *search;       /* text filter */
  TdCellLabel *count;           /* "N of M events" */
  guint count_id;               /* pending update of `count`, or 0 */
  GtkScrolledWindow *scrolled;  /* around the table */
  GtkListView *list_view;       /* the table's rows */
  GtkFilterListModel *filtered; /* the store's events through `filter` */
  TdPacedList *paced;           /* the newest of `filtered`, new ones shown 4 times a second */
  TdEventFilter *filter;        /* kind and text */
  TdStore *store;               /* the data, or NULL */
  gboolean follow;              /* scrolled to the bottom: stay there as events arrive */
  GPtrArray *dirty_rows;        /* TdLogRows (owned refs) to refresh, oldest first */
  GPtrArray *stale_rows;        /* TdLogRows (owned refs) out of date, out of view */
  guint dirty_tick;             /* the tick callback redrawing them, or 0 */
  guint follow_id;              /* pending scroll to the bottom, or 0 */
};

G_DEFINE_FINAL_TYPE(TdEventLog, td_event_log, GTK_TYPE_WIDGET)

enum { SIG_EVENT_ACTIVATED, N_SIGNALS };
static guint signals[N_SIGNALS];

/* The most events the log lists: the newest. */
#define LOG_EVENTS 2000
/* How often the count follows arriving events. */
#define COUNT_MS 250

static char *
cell_seq(const TrEvent *ev)
{
  return g_strdup_printf("%" G_GUINT64_FORMAT, ev->seq);
}

static char *
cell_time(const TrEvent *ev)
{
  return td_format_event_time(ev->ts_ns);
}

static char *
cell_kind(const TrEvent *ev)
{
  return g_strdup(td_format_kind_label(ev->kind));
}

static char *
cell_function(const TrEvent *ev)
{
  return g_strdup(ev->fn_name ? ev->fn_name : "");
}

static char *
cell_site(const TrEvent *ev)
{
  return td_format_site(ev->file, ev->line);
}

static const TdLogColumn columns[] = {
    /* wide enough for 10,000,000 events and a day-long session ("86400.123456"): digits are
     * wider than the average character the widths count in */
    {"#", cell_seq, TRUE, FALSE, 10},
    {"Time (s)", cell_time, TRUE, FALSE, 14},
    {"Event", cell_kind, FALSE, FALSE, 13},
    {"Function", cell_function, FALSE, FALSE, 12},
    {"Call site", cell_site, FALSE, FALSE, 13},
    {"Details", td_format_event_details, FALSE, TRUE, 30},
};

/* ---- rows ---- */

/* A row is one TdLogRow drawing every column, under a GtkListView (GTK 4.8 keeps up to 200 rows
 * of widgets around the view: a column view's row is thirteen widgets, each cell with its own
 * event controllers, where this one is two). The header is a TdLogRow of the titles above the
 * list, so the columns line up: equal widths get equal columns. */
static GtkWidget *
row_new(gboolean header)
{
  int widths[G_N_ELEMENTS(columns)];
  gboolean numeric[G_N_ELEMENTS(columns)];
  int expand = -1;
  for (guint i = 0; i < G_N_ELEMENTS(columns); i++) {
    widths[i] = columns[i].width_chars;
    numeric[i] = columns[i].numeric;
    if (columns[i].expand)
      expand = (int)i;
  }
  GtkWidget *row = td_log_row_new(G_N_ELEMENTS(columns), widths, numeric, expand);
  gtk_widget_add_css_class(row, header ? "log-header" : "log-row");
  if (header) {
    for (guint i = 0; i < G_N_ELEMENTS(columns); i++)
      td_log_row_set_text(TD_LOG_ROW(row), i, columns[i].title);
    td_log_row_update_accessible(TD_LOG_ROW(row));
  }
  return row;
}

/* The style sheet's colour for an event's kind (calls by outcome), or NULL. */
static const char *
kind_color(const TrEvent *ev)
{
  if (!ev)
    return NULL;
  if (ev->kind == TR_EVENT_CALL || ev->kind == TR_EVENT_CALL_END)
    return ev->outcome == TR_OUTCOME_HIT     ? "td_hit_color"
           : ev->outcome == TR_OUTCOME_MISS  ? "td_miss_color"
           : ev->outcome == TR_OUTCOME_EAGER ? "td_eager_color"
                                             : NULL;
  switch (ev->kind) {
    case TR_EVENT_RETRACE_CAUSE:
    case TR_EVENT_TRACE_START:
    case TR_EVENT_TRACE_END:
      return "td_miss_color";
    case TR_EVENT_EAGER_TOGGLED:
      return "td_eager_color";
    case TR_EVENT_ERROR:
    case TR_EVENT_RETRACING_WARNING:
    case TR_EVENT_BREAKPOINT_BYPASSED: /* the user expected a stop that did not come */
      return "td_error_color";
    case TR_EVENT_DEBUGGER_STOPPED:
    case TR_EVENT_DEBUGGER_CONTINUED:
      return "td_paused_color";
    default:
      return NULL;
  }
}

/* Shows the row's current event in its columns. */
static void
row_update(GtkWidget *widget, TdEventItem *item)
{
  TdLogRow *row = TD_LOG_ROW(widget);
  const TrEvent *ev = item ? td_event_item_get_event(item) : NULL;
  for (guint i = 0; i < G_N_ELEMENTS(columns); i++) {
    g_autofree char *text = ev ? columns[i].text(ev) : NULL;
    td_log_row_set_text(row, i, text);
    if (columns[i].text == cell_kind)
      td_log_row_set_column_color(row, i, kind_color(ev));
  }
  td_log_row_update_accessible(row);
}

/* Rows whose event moved are refreshed a few at a time, one batch a frame: a refresh of every
 * visible row at once would re-shape all their text in one frame. Only rows in view are: GTK
 * keeps up to 200 rows of widgets around the view, and a beat moves every row; a row out of
 * view waits, stale, until a scroll or a taller view may bring it in. */
#define ROWS_PER_FRAME 10

/* `row` lies (partly) within the log's scrolled window. */
static gboolean
row_in_view(TdEventLog *self, GtkWidget *row)
{
  graphene_rect_t bounds;
  GtkWidget *view = GTK_WIDGET(self->scrolled);
  if (!gtk_widget_get_mapped(row) || !gtk_widget_compute_bounds(row, view, &bounds))
    return FALSE;
  return bounds.origin.y + bounds.size.height > 0 && bounds.origin.y < gtk_widget_get_height(view);
}

static gboolean
update_dirty_rows(GtkWidget *widget, GdkFrameClock *clock, gpointer user_data)
{
  TdEventLog *self = TD_EVENT_LOG(widget);
  guint updated = 0, i = 0;
  for (; i < self->dirty_rows->len && updated < ROWS_PER_FRAME; i++) {
    GtkWidget *row = self->dirty_rows->pdata[i];
    TdEventItem *item = g_object_get_data(G_OBJECT(row), "td-item");
    g_object_set_data(G_OBJECT(row), "td-dirty", NULL);
    if (!item)
      continue;
    if (!row_in_view(self, row)) {
      if (!g_object_get_data(G_OBJECT(row), "td-stale")) {
        g_object_set_data(G_OBJECT(row), "td-stale", GINT_TO_POINTER(1));
        g_ptr_array_add(self->stale_rows, g_object_ref(row));
      }
      continue;
    }
    row_update(row, item);
    updated++;
  }
  g_ptr_array_remove_range(self->dirty_rows, 0, i);
  if (self->dirty_rows->len > 0)
    return G_SOURCE_CONTINUE;
  self->dirty_tick = 0;
  return G_SOURCE_REMOVE;
}

/* Queue `row` for a refresh (see update_dirty_rows). */
static void
mark_dirty(TdEventLog *self, GtkWidget *row)
{
  if (g_object_get_data(G_OBJECT(row), "td-dirty"))
    return;
  g_object_set_data(G_OBJECT(row), "td-dirty", GINT_TO_POINTER(1));
  g_ptr_array_add(self->dirty_rows, g_object_ref(row));
  if (self->dirty_tick == 0)
    self->dirty_tick =
        gtk_widget_add_tick_callback(GTK_WIDGET(self), update_dirty_rows, NULL, NULL);
}

/* The view moved or grew: stale rows get another look. */
static void
recheck_stale_rows(TdEventLog *self)
{
  g_autoptr(GPtrArray) stale = g_steal_pointer(&self->stale_rows);
  self->stale_rows = g_ptr_array_new_with_free_func(g_object_unref);
  for (guint i = 0; i < stale->len; i++) {
    g_object_set_data(G_OBJECT(stale->pdata[i]), "td-stale", NULL);
    mark_dirty(self, stale->pdata[i]);
  }
}

static void
on_row_changed(TdEventItem *item, gpointer user_data)
{
  GtkWidget *row = GTK_WIDGET(user_data);
  mark_dirty(g_object_get_data(G_OBJECT(row), "td-log"), row);
}

static void
row_setup(GtkSignalListItemFactory *factory, GtkListItem *list_item, gpointer user_data)
{
  GtkWidget *row = row_new(FALSE);
  g_object_set_data(G_OBJECT(row), "td-log", user_data);
  gtk_list_item_set_child(list_item, row);
}

static void
row_bind(GtkSignalListItemFactory *factory, GtkListItem *list_item, gpointer user_data)
{
  GtkWidget *row = gtk_list_item_get_child(list_item);
  gpointer item = gtk_list_item_get_item(list_item);
  if (!TD_IS_EVENT_ITEM(item))
    return;
  row_update(row, item);
  /* The row keeps its place while its event moves (td-paced-list.h). */
  g_object_set_data(G_OBJECT(row), "td-item", item);
  g_object_set_data(G_OBJECT(row), "td-dirty", NULL);
  gulong id = g_signal_connect_object(item, "changed", G_CALLBACK(on_row_changed), row, 0);
  g_object_set_data(G_OBJECT(row), "td-changed", GSIZE_TO_POINTER(id));
}

static void
row_unbind(GtkSignalListItemFactory *factory, GtkListItem *list_item, gpointer user_data)
{
  GtkWidget *row = gtk_list_item_get_child(list_item);
  gpointer item = gtk_list_item_get_item(list_item);
  gulong id = GPOINTER_TO_SIZE(g_object_get_data(G_OBJECT(row), "td-changed"));
  if (id && item)
    g_signal_handler_disconnect(item, id);
  g_object_set_data(G_OBJECT(row), "td-changed", NULL);
  g_object_set_data(G_OBJECT(row), "td-item", NULL);
}

/* ---- filter, count, follow ---- */

static void
update_count(TdEventLog *self)
{
  guint matching = g_list_model_get_n_items(G_LIST_MODEL(self->filtered));
  guint listed = g_list_model_get_n_items(G_LIST_MODEL(self->paced));
  GListModel *all = gtk_filter_list_model_get_model(self->filtered);
  guint total = all ? g_list_model_get_n_items(all) : 0;
  g_autofree char *n_matching = td_format_count(matching);
  g_autofree char *n_total = td_format_count(total);
  g_autofree char *text = matching == total
                              ? g_strdup_printf("%s events", n_total)
                              : g_strdup_printf("%s of %s events", n_matching, n_total);
  if (listed < matching || !self->follow) {
    g_autofree char *n_listed = td_format_count(listed);
    g_autofree char *more = !self->follow
                                ? g_strdup_printf("%s; scrolled up, the list waits", text)
                                : g_strdup_printf("%s, the newest %s listed", text, n_listed);
    g_free(text);
    text = g_steal_pointer(&more);
  }
  td_cell_label_set_text(self->count, text);
}

static gboolean
count_timeout(gpointer user_data)
{
  TdEventLog *self = TD_EVENT_LOG(user_data);
  self->count_id = 0;
  update_count(self);
  return G_SOURCE_REMOVE;
}

/* Events arrive a hundred batches a second: the count follows a few times a second. */
static void
queue_update_count(TdEventLog *self)
{
  if (self->count_id == 0)
    self->count_id = g_timeout_add(COUNT_MS, count_timeout, self);
}

static gboolean
follow_idle(gpointer user_data)
{
  TdEventLog *self = TD_EVENT_LOG(user_data);
  self->follow_id = 0;
  GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment(self->scrolled);
  gtk_adjustment_set_value(adj, gtk_adjustment_get_upper(adj) - gtk_adjustment_get_page_size(adj));
  return G_SOURCE_REMOVE;
}

static void
on_filtered_changed(GListModel *model, guint position, guint removed, guint added,
                    gpointer user_data)
{
  TdEventLog *self = TD_EVENT_LOG(user_data);
  queue_update_count(self);
  if (self->follow && added > 0 && self->follow_id == 0)
    self->follow_id = g_idle_add_full(G_PRIORITY_LOW, follow_idle, self, NULL);
}

/* The rows hold still while a reader scrolled up (until they come back down), and while the
 * log is not on screen: a hidden log makes no row widgets. */
static void
update_paused(TdEventLog *self)
{
  td_paced_list_set_paused(self->paced, !self->follow || !gtk_widget_get_mapped(GTK_WIDGET(self)));
}

static void
on_scrolled(GtkAdjustment *adj, gpointer user_data)
{
  TdEventLog *self = TD_EVENT_LOG(user_data);
  double bottom = gtk_adjustment_get_upper(adj) - gtk_adjustment_get_page_size(adj);
  self->follow = gtk_adjustment_get_value(adj) >= bottom - 4;
  recheck_stale_rows(self);
  update_paused(self);
  update_count(self);
}

static void
on_kind_selected(GtkDropDown *dropdown, GParamSpec *pspec, gpointer user_data)
{
  TdEventLog *self = TD_EVENT_LOG(user_data);
  guint pos = gtk_drop_down_get_selected(dropdown);
  /* Rows 0 … TD_EVENT_N_GROUPS - 1 are the groups ("All events" first); then each kind. */
  TdEventGroup group = pos < TD_EVENT_N_GROUPS ? (TdEventGroup)pos : TD_EVENT_GROUP_ALL;
  TrEventKind kind = pos == GTK_INVALID_LIST_POSITION || pos < TD_EVENT_N_GROUPS ||
                             pos >= TD_EVENT_N_GROUPS + TR_EVENT_N_KINDS
                         ? TR_EVENT_N_KINDS
                         : (TrEventKind)(pos - TD_EVENT_N_GROUPS);
  td_event_filter_set_group(self->filter, group);
  td_event_filter_set_kind(self->filter, kind);
  td_paced_list_flush(self->paced);
}

void
td_event_log_show_group(TdEventLog *self, TdEventGroup group)
{
  g_return_if_fail(TD_IS_EVENT_LOG(self) && group < TD_EVENT_N_GROUPS);
  gtk_drop_down_set_selected(self->kind_dropdown, group);
}

void
td_event_log_show_kind(TdEventLog *self, TrEventKind kind)
{
  g_return_if_fail(TD_IS_EVENT_LOG(self) && kind <= TR_EVENT_N_KINDS);
  gtk_drop_down_set_selected(self->kind_dropdown,
                             kind == TR_EVENT_N_KINDS ? 0 : TD_EVENT_N_GROUPS + kind);
}

/* A click on a row: the Function and trace it refers to get selected (by the window). */
static void
on_row_activated(GtkListView *view, guint position, gpointer user_data)
{
  TdEventLog *self = TD_EVENT_LOG(user_data);
  g_autoptr(GObject) item = g_list_model_get_item(G_LIST_MODEL(self->paced), position);
  const TrEvent *ev = TD_IS_EVENT_ITEM(item) ? td_event_item_get_event(TD_EVENT_ITEM(item)) : NULL;
  if (ev && (ev->fn_id || ev->cf_id))
    g_signal_emit(self, signals[SIG_EVENT_ACTIVATED], 0, ev->fn_id, ev->cf_id);
}

static void
on_search_changed(GtkSearchEntry *entry, gpointer user_data)
{
  TdEventLog *self = TD_EVENT_LOG(user_data);
  td_event_filter_set_text(self->filter, gtk_editable_get_text(GTK_EDITABLE(entry)));
  td_paced_list_flush(self->paced);
}

void
td_event_log_set_store(TdEventLog *self, TdStore *store)
{
  g_return_if_fail(TD_IS_EVENT_LOG(self));
  g_set_object(&self->store, store);
  gtk_filter_list_model_set_model(self->filtered, store ? td_store_get_events(store) : NULL);
  if (gtk_widget_get_mapped(GTK_WIDGET(self)))
    td_paced_list_flush(self->paced); /* else when mapped */
  update_count(self);
}

void
td_event_log_focus_search(TdEventLog *self)
{
  g_return_if_fail(TD_IS_EVENT_LOG(self));
  gtk_widget_grab_focus(GTK_WIDGET(self->search));
}

/* ---- the widget ---- */

static GtkWidget *
kind_dropdown_new(void)
{
  g_autoptr(GtkStringList) kinds = gtk_string_list_new(NULL);
  for (int g = 0; g < TD_EVENT_N_GROUPS; g++)
    gtk_string_list_append(kinds, td_format_group_label((TdEventGroup)g));
  for (int k = 0; k < TR_EVENT_N_KINDS; k++)
    gtk_string_list_append(kinds, td_format_kind_label((TrEventKind)k));
  return gtk_drop_down_new(G_LIST_MODEL(g_steal_pointer(&kinds)), NULL);
}

static GtkWidget *
toolbar_new(TdEventLog *self)
{
  GtkWidget *bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_add_css_class(bar, "log-toolbar");
  self->kind_dropdown = GTK_DROP_DOWN(kind_dropdown_new());
  gtk_widget_set_tooltip_text(GTK_WIDGET(self->kind_dropdown),
                              "Show errors, retracing warnings, or one kind of event");
  g_signal_connect(self->kind_dropdown, "notify::selected", G_CALLBACK(on_kind_selected), self);
  self->search = GTK_SEARCH_ENTRY(gtk_search_entry_new());
  g_object_set(self->search, "placeholder-text", "Search events", NULL);
  gtk_widget_set_hexpand(GTK_WIDGET(self->search), TRUE);
  g_signal_connect(self->search, "search-changed", G_CALLBACK(on_search_changed), self);
  /* Sized for "1,000,000 of 1,000,000 events, the newest 2,000 listed": a new count only
   * redraws it, where a GtkLabel would make the whole window lay itself out again. */
  self->count = TD_CELL_LABEL(td_cell_label_new(TRUE, 56));
  gtk_widget_add_css_class(GTK_WIDGET(self->count), "dim-label");
  gtk_box_append(GTK_BOX(bar), GTK_WIDGET(self->kind_dropdown));
  gtk_box_append(GTK_BOX(bar), GTK_WIDGET(self->search));
  gtk_box_append(GTK_BOX(bar), GTK_WIDGET(self->count));
  return bar;
}

static void
td_event_log_dispose(GObject *object)
{
  TdEventLog *self = TD_EVENT_LOG(object);
  g_clear_handle_id(&self->follow_id, g_source_remove);
  g_clear_handle_id(&self->count_id, g_source_remove);
  if (self->dirty_tick)
    gtk_widget_remove_tick_callback(GTK_WIDGET(self), self->dirty_tick);
  self->dirty_tick = 0;
  g_clear_pointer(&self->dirty_rows, g_ptr_array_unref);
  g_clear_pointer(&self->stale_rows, g_ptr_array_unref);
  g_clear_pointer(&self->box, gtk_widget_unparent);
  if (self->filtered)
    g_signal_handlers_disconnect_by_data(self->filtered, self);
  if (self->paced)
    g_signal_handlers_disconnect_by_data(self->paced, self);
  g_clear_object(&self->paced);
  g_clear_object(&self->filtered);
  g_clear_object(&self->store);
  G_OBJECT_CLASS(td_event_log_parent_class)->dispose(object);
}

static void
td_event_log_map(GtkWidget *widget)
{
  GTK_WIDGET_CLASS(td_event_log_parent_class)->map(widget);
  recheck_stale_rows(TD_EVENT_LOG(widget));
  update_paused(TD_EVENT_LOG(widget));
}

static void
td_event_log_unmap(GtkWidget *widget)
{
  GTK_WIDGET_CLASS(td_event_log_parent_class)->unmap(widget);
  update_paused(TD_EVENT_LOG(widget));
}

static void
td_event_log_class_init(TdEventLogClass *klass)
{
  G_OBJECT_CLASS(klass)->dispose = td_event_log_dispose;
  GTK_WIDGET_CLASS(klass)->map = td_event_log_map;
  GTK_WIDGET_CLASS(klass)->unmap = td_event_log_unmap;
  gtk_widget_class_set_layout_manager_type(GTK_WIDGET_CLASS(klass), GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name(GTK_WIDGET_CLASS(klass), "tdeventlog");
  signals[SIG_EVENT_ACTIVATED] =
      g_signal_new("event-activated", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                   NULL, G_TYPE_NONE, 2, G_TYPE_INT64, G_TYPE_INT64);
}

static void
td_event_log_init(TdEventLog *self)
{
  self->filter = td_event_filter_new();
  /* The model owns the filter; `filter` stays a borrowed pointer. */
  self->dirty_rows = g_ptr_array_new_with_free_func(g_object_unref);
  self->stale_rows = g_ptr_array_new_with_free_func(g_object_unref);
  self->filtered = gtk_filter_list_model_new(NULL, GTK_FILTER(self->filter));
  gtk_filter_list_model_set_incremental(self->filtered, TRUE);
  /* 100,000 events a second arrive in a hundred batches: four times a second the table's rows
   * move to the newest LOG_EVENTS matching ones, keeping their widgets (the timeline shows
   * every event kept). */
  self->paced = td_paced_list_new(G_LIST_MODEL(self->filtered), 250, LOG_EVENTS);
  td_paced_list_set_paused(self->paced, TRUE); /* until mapped */
  g_signal_connect(self->paced, "items-changed", G_CALLBACK(on_filtered_changed), self);
  g_signal_connect_swapped(self->filtered, "items-changed", G_CALLBACK(queue_update_count), self);
  self->follow = TRUE;

  g_autoptr(GtkSelectionModel) selection =
      GTK_SELECTION_MODEL(gtk_no_selection_new(g_object_ref(G_LIST_MODEL(self->paced))));
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new();
  g_signal_connect(factory, "setup", G_CALLBACK(row_setup), self);
  g_signal_connect(factory, "bind", G_CALLBACK(row_bind), NULL);
  g_signal_connect(factory, "unbind", G_CALLBACK(row_unbind), NULL);
  self->list_view = GTK_LIST_VIEW(gtk_list_view_new(g_steal_pointer(&selection), factory));
  gtk_widget_add_css_class(GTK_WIDGET(self->list_view), "event-log");
  gtk_list_view_set_single_click_activate(self->list_view, TRUE);
  g_signal_connect(self->list_view, "activate", G_CALLBACK(on_row_activated), self);

  self->scrolled = GTK_SCROLLED_WINDOW(gtk_scrolled_window_new());
  /* Rows are as wide as the view: their cells ellipsize rather than scroll sideways, and the
   * header above stays in line with them. */
  gtk_scrolled_window_set_policy(self->scrolled, GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child(self->scrolled, GTK_WIDGET(self->list_view));
  gtk_widget_set_vexpand(GTK_WIDGET(self->scrolled), TRUE);
  GtkAdjustment *vadj = gtk_scrolled_window_get_vadjustment(self->scrolled);
  g_signal_connect(vadj, "value-changed", G_CALLBACK(on_scrolled), self);
  /* A taller view may show stale cells. */
  g_signal_connect_swapped(vadj, "notify::page-size", G_CALLBACK(recheck_stale_rows), self);

  self->box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_append(GTK_BOX(self->box), toolbar_new(self));
  GtkWidget *header = row_new(TRUE);
  gtk_box_append(GTK_BOX(self->box), header);
  gtk_box_append(GTK_BOX(self->box), gtk_separator_new(GTK_ORIENTATION_HORIZONTAL));
  gtk_box_append(GTK_BOX(self->box), GTK_WIDGET(self->scrolled));
  gtk_widget_set_parent(self->box, GTK_WIDGET(self));
  update_count(self);
}

GtkWidget *
td_event_log_new(void)
{
  return g_object_new(TD_TYPE_EVENT_LOG, NULL);
}
