/* td-functions-view.c — the Functions table (see td-functions-view.h).
 *
 * Columns are listed once (`columns` below): the TdFunctionItem property each one shows, how
 * it sorts and how it reads. Cells follow their item's notifications; the sort order is
 * refreshed once per batch of events, since a GtkSortListModel does not watch its items. */
#include "td-functions-view.h"
#include "td-label.h"

#include "td-format.h"

typedef char *(*CellFormatFunc)(GObject *item, const char *property);

/* One column of the table. */
typedef struct {
  const char *id;        /* column id, also the sorted property unless `sort_by` says */
  const char *title;     /* header text */
  const char *property;  /* TdFunctionItem property shown */
  gboolean numeric;      /* sorts as a number (else as text) and aligns right */
  CellFormatFunc format; /* the cell's text */
  gboolean expand;       /* takes the spare width */
  int width_chars;       /* natural width, in characters */
} TdColumn;

struct _TdFunctionsView {
  GtkWidget parent_instance;
  GtkWidget *scrolled;           /* the scrolled window holding the column view */
  GtkColumnView *column_view;    /* the table */
  GtkSortListModel *sort_model;  /* the store's Functions, sorted by the column view */
  GtkSingleSelection *selection; /* over sort_model */
  TdStore *store;                /* the data, or NULL */
  gulong store_handlers[2];      /* "function-changed", "reset" on store */
  guint resort_id;               /* timeout that re-sorts after changes, or 0 */
  gint64 selected_id;            /* Function selected (0: none) */
};

G_DEFINE_FINAL_TYPE(TdFunctionsView, td_functions_view, GTK_TYPE_WIDGET)

/* The longest a changed Function waits before the table is re-sorted. */
#define RESORT_MS 500

enum { SIGNAL_FUNCTION_SELECTED, N_SIGNALS };
static guint signals[N_SIGNALS];

/* ---- values and formats (no widgets) ---- */

/* A numeric property of any integer or floating type, as a double. */
static double
numeric_property(GObject *item, const char *property)
{
  GParamSpec *pspec = g_object_class_find_property(G_OBJECT_GET_CLASS(item), property);
  if (pspec == NULL)
    return 0;
  g_auto(GValue) value = G_VALUE_INIT;
  g_auto(GValue) as_double = G_VALUE_INIT;
  g_value_init(&value, pspec->value_type);
  g_object_get_property(item, property, &value);
  g_value_init(&as_double, G_TYPE_DOUBLE);
  if (!g_value_transform(&value, &as_double))
    return 0;
  return g_value_get_double(&as_double);
}

static char *
format_text(GObject *item, const char *property)
{
  char *text = NULL;
  g_object_get(item, property, &text, NULL);
  return text ? text : g_strdup("");
}

static char *
format_count(GObject *item, const char *property)
{
  return td_format_count((guint64)numeric_property(item, property));
}

static char *
format_rate(GObject *item, const char *property)
{
  return td_format_hit_rate(numeric_property(item, property),
                            (guint64)numeric_property(item, "hits"),
                            (guint64)numeric_property(item, "misses"));
}

static char *
format_ms(GObject *item, const char *property)
{
  return td_format_duration_ns((gint64)(numeric_property(item, property) * 1e6));
}

/* The name with a badge for TensorFlow's retracing warnings ("f  ⚠ 2"). */
static char *
format_name(GObject *item, const char *property)
{
  g_autofree char *name = format_text(item, property);
  guint64 warnings = (guint64)numeric_property(item, "warnings");
  if (warnings == 0)
    return g_steal_pointer(&name);
  g_autofree char *count = td_format_count(warnings);
  return g_strdup_printf("%s  \u26a0 %s", name, count);
}

static const TdColumn columns[] = {
    /* Functions of one name (methods, __call__) apart: the qualified name, then the id */
    {"name", "Function", "label", FALSE, format_name, FALSE, 16},
    {"calls", "Calls", "calls", TRUE, format_count, FALSE, 8},
    {"hits", "Hits", "hits", TRUE, format_count, FALSE, 8},
    {"misses", "Misses", "misses", TRUE, format_count, FALSE, 7},
    {"eager", "Eager", "eager", TRUE, format_count, FALSE, 7},
    {"hit-rate", "Hit rate", "hit-rate", TRUE, format_rate, FALSE, 7},
    {"trace-ms", "Tracing", "trace-ms", TRUE, format_ms, FALSE, 8},
    {"last-cause", "Last retrace cause", "last-cause", FALSE, format_text, TRUE, 30},
};

static const TdColumn *
find_column(const char *column_id)
{
  for (guint i = 0; i < G_N_ELEMENTS(columns); i++)
    if (g_strcmp0(columns[i].id, column_id) == 0)
      return &columns[i];
  return NULL;
}

GtkSorter *
td_functions_sorter_new(const char *column_id)
{
  const TdColumn *col = find_column(column_id);
  if (col == NULL)
    return NULL;
  GtkExpression *expr = gtk_property_expression_new(TD_TYPE_FUNCTION_ITEM, NULL, col->property);
  if (!col->numeric)
    return GTK_SORTER(gtk_string_sorter_new(expr));
  return GTK_SORTER(gtk_numeric_sorter_new(expr));
}

char *
td_functions_format_cell(const char *column_id, GObject *item)
{
  const TdColumn *col = find_column(column_id);
  g_return_val_if_fail(col != NULL && G_IS_OBJECT(item), g_strdup(""));
  return col->format(item, col->property);
}

/* ---- cells ---- */

static void
cell_update(TdCellLabel *label, GObject *item, const TdColumn *col)
{
  g_autofree char *text = col->format(item, col->property);
  td_cell_label_set_text(label, text); /* redraws only a changed text */
}

static void
on_item_notify(GObject *item, GParamSpec *pspec, gpointer user_data)
{
  TdCellLabel *label = TD_CELL_LABEL(user_data);
  const TdColumn *col = g_object_get_data(G_OBJECT(label), "td-column");
  cell_update(label, item, col);
}

static void
cell_setup(GtkSignalListItemFactory *factory, GtkListItem *list_item, gpointer user_data)
{
  const TdColumn *col = user_data;
  GtkWidget *label = td_cell_label_new(col->numeric, col->width_chars);
  g_object_set_data(G_OBJECT(label), "td-column", (gpointer)col);
  gtk_list_item_set_child(list_item, label);
}

static void
cell_bind(GtkSignalListItemFactory *factory, GtkListItem *list_item, gpointer user_data)
{
  const TdColumn *col = user_data;
  GtkWidget *label = gtk_list_item_get_child(list_item);
  GObject *item = gtk_list_item_get_item(list_item);
  cell_update(TD_CELL_LABEL(label), item, col);
  /* Only the cell's own property (an item notifies "hit-rate" when hits or misses move). */
  g_autofree char *signal = g_strconcat("notify::", col->property, NULL);
  gulong id = g_signal_connect_object(item, signal, G_CALLBACK(on_item_notify), label, 0);
  g_object_set_data(G_OBJECT(label), "td-notify", GSIZE_TO_POINTER(id));
}

static void
cell_unbind(GtkSignalListItemFactory *factory, GtkListItem *list_item, gpointer user_data)
{
  GtkWidget *label = gtk_list_item_get_child(list_item);
  GObject *item = gtk_list_item_get_item(list_item);
  gulong id = GPOINTER_TO_SIZE(g_object_get_data(G_OBJECT(label), "td-notify"));
  if (id != 0 && item != NULL)
    g_signal_handler_disconnect(item, id);
  g_object_set_data(G_OBJECT(label), "td-notify", NULL);
}

static void
add_columns(TdFunctionsView *self)
{
  for (guint i = 0; i < G_N_ELEMENTS(columns); i++) {
    const TdColumn *col = &columns[i];
    GtkListItemFactory *factory = gtk_signal_list_item_factory_new();
    g_signal_connect(factory, "setup", G_CALLBACK(cell_setup), (gpointer)col);
    g_signal_connect(factory, "bind", G_CALLBACK(cell_bind), (gpointer)col);
    g_signal_connect(factory, "unbind", G_CALLBACK(cell_unbind), (gpointer)col);
    g_autoptr(GtkColumnViewColumn) column = gtk_column_view_column_new(col->title, factory);
    g_autoptr(GtkSorter) sorter = td_functions_sorter_new(col->id);
    gtk_column_view_column_set_sorter(column, sorter);
    gtk_column_view_column_set_expand(column, col->expand);
    gtk_column_view_column_set_resizable(column, TRUE);
    if (!col->expand)
      gtk_column_view_column_set_fixed_width(
          column, td_cell_label_column_width(GTK_WIDGET(self->column_view), col->width_chars));
    gtk_column_view_append_column(self->column_view, column);
  }
}

/* The column view's column for the table entry `column_id` (columns are appended in table
 * order). Borrowed. */
static GtkColumnViewColumn *
column_of(TdFunctionsView *self, const char *column_id)
{
  const TdColumn *col = find_column(column_id);
  g_return_val_if_fail(col != NULL, NULL);
  g_autoptr(GtkColumnViewColumn) column =
      g_list_model_get_item(gtk_column_view_get_columns(self->column_view), col - columns);
  return column; /* still owned by the column view */
}

/* ---- selection and live updates ---- */

static gint64
item_id(gpointer item)
{
  return item ? (gint64)numeric_property(G_OBJECT(item), "id") : 0;
}

static void
on_selection_changed(GObject *selection, GParamSpec *pspec, gpointer user_data)
{
  TdFunctionsView *self = TD_FUNCTIONS_VIEW(user_data);
  gint64 id = item_id(gtk_single_selection_get_selected_item(self->selection));
  if (id == self->selected_id)
    return;
  self->selected_id = id;
  g_signal_emit(self, signals[SIGNAL_FUNCTION_SELECTED], 0, id);
}

static gboolean
resort_idle(gpointer user_data)
{
  TdFunctionsView *self = TD_FUNCTIONS_VIEW(user_data);
  self->resort_id = 0;
  GtkSorter *sorter = gtk_column_view_get_sorter(self->column_view);
  if (sorter && gtk_sort_list_model_get_sorter(self->sort_model))
    gtk_sorter_changed(sorter, GTK_SORTER_CHANGE_DIFFERENT);
  return G_SOURCE_REMOVE;
}

static void
on_function_changed(TdStore *store, gint64 fn_id, gpointer user_data)
{
  TdFunctionsView *self = TD_FUNCTIONS_VIEW(user_data);
  /* At most twice a second: a re-sort rebinds every row, and a live table that reorders
   * faster cannot be read anyway. */
  if (self->resort_id == 0)
    self->resort_id = g_timeout_add_full(G_PRIORITY_LOW, RESORT_MS, resort_idle, self, NULL);
}

static void
on_reset(TdStore *store, gpointer user_data)
{
  on_function_changed(store, 0, user_data);
}

static void
disconnect_store(TdFunctionsView *self)
{
  if (self->store == NULL)
    return;
  for (guint i = 0; i < G_N_ELEMENTS(self->store_handlers); i++)
    g_clear_signal_handler(&self->store_handlers[i], self->store);
  g_clear_object(&self->store);
}

void
td_functions_view_set_store(TdFunctionsView *self, TdStore *store)
{
  g_return_if_fail(TD_IS_FUNCTIONS_VIEW(self));
  g_return_if_fail(store == NULL || TD_IS_STORE(store));
  disconnect_store(self);
  if (store == NULL) {
    gtk_sort_list_model_set_model(self->sort_model, NULL);
    return;
  }
  self->store = g_object_ref(store);
  self->store_handlers[0] =
      g_signal_connect(store, "function-changed", G_CALLBACK(on_function_changed), self);
  self->store_handlers[1] = g_signal_connect(store, "reset", G_CALLBACK(on_reset), self);
  gtk_sort_list_model_set_model(self->sort_model, td_store_get_functions(store));
}

gint64
td_functions_view_get_selected(TdFunctionsView *self)
{
  g_return_val_if_fail(TD_IS_FUNCTIONS_VIEW(self), 0);
  return self->selected_id;
}

gboolean
td_functions_view_select(TdFunctionsView *self, gint64 fn_id)
{
  g_return_val_if_fail(TD_IS_FUNCTIONS_VIEW(self), FALSE);
  GListModel *model = G_LIST_MODEL(self->selection);
  guint n = g_list_model_get_n_items(model);
  for (guint i = 0; i < n; i++) {
    g_autoptr(GObject) item = g_list_model_get_item(model, i);
    if (item_id(item) == fn_id) {
      gtk_single_selection_set_selected(self->selection, i);
      return TRUE;
    }
  }
  return FALSE;
}

/* ---- the widget ---- */

static void
td_functions_view_dispose(GObject *object)
{
  TdFunctionsView *self = TD_FUNCTIONS_VIEW(object);
  g_clear_handle_id(&self->resort_id, g_source_remove);
  disconnect_store(self);
  g_clear_pointer(&self->scrolled, gtk_widget_unparent);
  g_clear_object(&self->selection);
  G_OBJECT_CLASS(td_functions_view_parent_class)->dispose(object);
}

static void
td_functions_view_class_init(TdFunctionsViewClass *klass)
{
  G_OBJECT_CLASS(klass)->dispose = td_functions_view_dispose;
  gtk_widget_class_set_layout_manager_type(GTK_WIDGET_CLASS(klass), GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name(GTK_WIDGET_CLASS(klass), "tdfunctionsview");
  signals[SIGNAL_FUNCTION_SELECTED] =
      g_signal_new("function-selected", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                   NULL, G_TYPE_NONE, 1, G_TYPE_INT64);
}

static void
td_functions_view_init(TdFunctionsView *self)
{
  self->sort_model = gtk_sort_list_model_new(NULL, NULL);
  self->selection = gtk_single_selection_new(G_LIST_MODEL(self->sort_model));
  gtk_single_selection_set_autoselect(self->selection, TRUE);
  g_signal_connect(self->selection, "notify::selected-item", G_CALLBACK(on_selection_changed),
                   self);

  self->column_view = GTK_COLUMN_VIEW(gtk_column_view_new(NULL));
  gtk_column_view_set_model(self->column_view, GTK_SELECTION_MODEL(self->selection));
  gtk_column_view_set_show_column_separators(self->column_view, FALSE);
  gtk_widget_add_css_class(GTK_WIDGET(self->column_view), "data-table");
  add_columns(self);
  gtk_sort_list_model_set_sorter(self->sort_model, gtk_column_view_get_sorter(self->column_view));
  /* The busiest Functions first. */
  gtk_column_view_sort_by_column(self->column_view, column_of(self, "calls"), GTK_SORT_DESCENDING);

  self->scrolled = gtk_scrolled_window_new();
  gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(self->scrolled), GTK_WIDGET(self->column_view));
  gtk_widget_set_parent(self->scrolled, GTK_WIDGET(self));
}

GtkWidget *
td_functions_view_new(void)
{
  return g_object_new(TD_TYPE_FUNCTIONS_VIEW, NULL);
}
