/* td-label.c — labels of the debugger's live tables (see td-label.h). */
#include "td-label.h"

#include <string.h>

struct _TdCellLabel {
  GtkWidget parent_instance;
  char *text;           /* never NULL */
  gboolean numeric;     /* right-aligned, tabular digits */
  int width_chars;      /* natural width, in average characters */
  PangoLayout *layout;  /* the text shaped at `layout_width`, or NULL until drawn */
  int layout_width;     /* pixels */
  guint context_serial; /* the Pango context's serial the layout and metrics were made for */
  int line_height;      /* pixels, or -1 until measured */
  int char_width;       /* pixels */
};

G_DEFINE_FINAL_TYPE(TdCellLabel, td_cell_label, GTK_TYPE_WIDGET)

/* One line's height and an average character's width, in pixels. */
typedef struct {
  int line_height;
  int char_width;
} CellMetrics;

/* Metrics per font, shared by every cell: measuring a font shapes sample text, too dear to do
 * for each of a table's hundreds of cells. Main thread only, as GTK is. */
static CellMetrics
metrics_for(PangoContext *context)
{
  static GHashTable *cache; /* font description string -> CellMetrics */
  if (!cache)
    cache = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  char *key = pango_font_description_to_string(pango_context_get_font_description(context));
  CellMetrics *m = g_hash_table_lookup(cache, key);
  if (m) {
    g_free(key);
    return *m;
  }
  PangoFontMetrics *metrics = pango_context_get_metrics(context, NULL, NULL);
  m = g_new(CellMetrics, 1);
  m->line_height = PANGO_PIXELS_CEIL(pango_font_metrics_get_height(metrics));
  if (m->line_height <= 0)
    m->line_height = PANGO_PIXELS_CEIL(pango_font_metrics_get_ascent(metrics) +
                                       pango_font_metrics_get_descent(metrics));
  m->char_width = PANGO_PIXELS_CEIL(MAX(pango_font_metrics_get_approximate_char_width(metrics),
                                        pango_font_metrics_get_approximate_digit_width(metrics)));
  pango_font_metrics_unref(metrics);
  g_hash_table_insert(cache, key, m);
  return *m;
}

/* The horizontal padding the style sheet gives a table cell (style.css: 8 px a side). */
#define CELL_PADDING 16

int
td_cell_label_column_width(GtkWidget *widget, int width_chars)
{
  g_return_val_if_fail(GTK_IS_WIDGET(widget), 0);
  CellMetrics m = metrics_for(gtk_widget_get_pango_context(widget));
  return m.char_width * width_chars + CELL_PADDING;
}

/* Metrics and the layout follow the widget's Pango context (font, scale, direction). */
static void
sync_context(TdCellLabel *self)
{
  PangoContext *context = gtk_widget_get_pango_context(GTK_WIDGET(self));
  guint serial = pango_context_get_serial(context);
  if (self->line_height >= 0 && serial == self->context_serial)
    return;
  self->context_serial = serial;
  CellMetrics m = metrics_for(context);
  self->line_height = m.line_height;
  self->char_width = m.char_width;
  if (self->layout)
    pango_layout_context_changed(self->layout);
}

static void
td_cell_label_measure(GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum,
                      int *natural, int *minimum_baseline, int *natural_baseline)
{
  TdCellLabel *self = TD_CELL_LABEL(widget);
  sync_context(self);
  if (orientation == GTK_ORIENTATION_HORIZONTAL) {
    *minimum = self->char_width * 2;
    *natural = MAX(*minimum, self->char_width * self->width_chars);
  } else {
    *minimum = *natural = self->line_height;
  }
}

static PangoLayout *
ensure_layout(TdCellLabel *self, int width)
{
  sync_context(self);
  if (!self->layout) {
    self->layout = gtk_widget_create_pango_layout(GTK_WIDGET(self), self->text);
    pango_layout_set_ellipsize(self->layout, PANGO_ELLIPSIZE_END);
    pango_layout_set_single_paragraph_mode(self->layout, TRUE);
    if (self->numeric) {
      PangoAttrList *attrs = pango_attr_list_new();
      pango_attr_list_insert(attrs, pango_attr_font_features_new("tnum=1"));
      pango_layout_set_attributes(self->layout, attrs);
      pango_attr_list_unref(attrs);
    }
    self->layout_width = -1;
  }
  if (width != self->layout_width) {
    self->layout_width = width;
    pango_layout_set_width(self->layout, width * PANGO_SCALE);
    gboolean rtl = gtk_widget_get_direction(GTK_WIDGET(self)) == GTK_TEXT_DIR_RTL;
    pango_layout_set_alignment(self->layout,
                               self->numeric != rtl ? PANGO_ALIGN_RIGHT : PANGO_ALIGN_LEFT);
  }
  return self->layout;
}

static void
td_cell_label_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
  TdCellLabel *self = TD_CELL_LABEL(widget);
  if (!*self->text)
    return;
  int width = gtk_widget_get_width(widget), height = gtk_widget_get_height(widget);
  PangoLayout *layout = ensure_layout(self, width);
  GdkRGBA color;
#if GTK_CHECK_VERSION(4, 10, 0)
  gtk_widget_get_color(widget, &color);
#else
  gtk_style_context_get_color(gtk_widget_get_style_context(widget), &color);
#endif
  gtk_snapshot_save(snapshot);
  gtk_snapshot_translate(snapshot, &GRAPHENE_POINT_INIT(0, (height - self->line_height) / 2));
  gtk_snapshot_append_layout(snapshot, layout, &color);
  gtk_snapshot_restore(snapshot);
}

static gboolean
on_query_tooltip(GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip,
                 gpointer user_data)
{
  TdCellLabel *self = TD_CELL_LABEL(widget);
  if (!*self->text)
    return FALSE;
  PangoLayout *layout = ensure_layout(self, gtk_widget_get_width(widget));
  if (!pango_layout_is_ellipsized(layout))
    return FALSE;
  gtk_tooltip_set_text(tooltip, self->text);
  return TRUE;
}

static void
td_cell_label_direction_changed(GtkWidget *widget, GtkTextDirection previous)
{
  TdCellLabel *self = TD_CELL_LABEL(widget);
  self->layout_width = -1; /* the alignment follows the direction */
  GTK_WIDGET_CLASS(td_cell_label_parent_class)->direction_changed(widget, previous);
}

static void
td_cell_label_finalize(GObject *object)
{
  TdCellLabel *self = TD_CELL_LABEL(object);
  g_clear_object(&self->layout);
  g_free(self->text);
  G_OBJECT_CLASS(td_cell_label_parent_class)->finalize(object);
}

static void
td_cell_label_class_init(TdCellLabelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS(klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
  object_class->finalize = td_cell_label_finalize;
  widget_class->measure = td_cell_label_measure;
  widget_class->snapshot = td_cell_label_snapshot;
  widget_class->direction_changed = td_cell_label_direction_changed;
  gtk_widget_class_set_css_name(widget_class, "label");
  gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_LABEL);
}

static void
td_cell_label_init(TdCellLabel *self)
{
  self->text = g_strdup("");
  self->line_height = -1;
  self->layout_width = -1;
  gtk_widget_set_has_tooltip(GTK_WIDGET(self), TRUE);
  g_signal_connect(self, "query-tooltip", G_CALLBACK(on_query_tooltip), NULL);
}

GtkWidget *
td_cell_label_new(gboolean numeric, int width_chars)
{
  TdCellLabel *self = g_object_new(TD_TYPE_CELL_LABEL, NULL);
  self->numeric = numeric;
  self->width_chars = MAX(width_chars, 2);
  if (numeric)
    gtk_widget_add_css_class(GTK_WIDGET(self), "numeric");
  return GTK_WIDGET(self);
}

void
td_cell_label_set_text(TdCellLabel *self, const char *text)
{
  g_return_if_fail(TD_IS_CELL_LABEL(self));
  if (!text)
    text = "";
  if (strcmp(self->text, text) == 0)
    return;
  g_free(self->text);
  self->text = g_strdup(text);
  if (self->layout)
    pango_layout_set_text(self->layout, self->text, -1);
  gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_LABEL, self->text,
                                 -1);
  gtk_widget_queue_draw(GTK_WIDGET(self));
}

const char *
td_cell_label_get_text(TdCellLabel *self)
{
  g_return_val_if_fail(TD_IS_CELL_LABEL(self), NULL);
  return self->text;
}
