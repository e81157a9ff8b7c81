/* td-label.c — labels of the debugger's live tables (see td-label.h). */
#include "td-label.h"

#include <string.h>

struct _TdCellLabel {
  GtkWidget parent_instance;
  char *text;          /* never NULL */
  gboolean numeric;    /* right-aligned, tabular digits */
  int width_chars;     /* natural width, in average characters */
  PangoLayout *layout; /* the text shaped at `layout_width`, or NULL until drawn */
  int layout_width;    /* pixels */
  TdTextSync font;     /* font metrics */
};

G_DEFINE_FINAL_TYPE(TdCellLabel, td_cell_label, GTK_TYPE_WIDGET)

/* One line's height and an average character's width, in pixels. */
typedef struct {
  int line_height;
  int char_width;
} TextMetrics;

void
td_text_metrics(PangoContext *context, int *line_height, int *char_width)
{
  static GHashTable *cache; /* font description string -> TextMetrics */
  if (!cache)
    cache = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  char *key = pango_font_description_to_string(pango_context_get_font_description(context));
  TextMetrics *m = g_hash_table_lookup(cache, key);
  if (m) {
    g_free(key);
  } else {
    PangoFontMetrics *metrics = pango_context_get_metrics(context, NULL, NULL);
    m = g_new(TextMetrics, 1);
    m->line_height = PANGO_PIXELS_CEIL(pango_font_metrics_get_height(metrics));
    if (m->line_height <= 0)
      m->line_height = PANGO_PIXELS_CEIL(pango_font_metrics_get_ascent(metrics) +
                                         pango_font_metrics_get_descent(metrics));
    m->char_width = PANGO_PIXELS_CEIL(MAX(pango_font_metrics_get_approximate_char_width(metrics),
                                          pango_font_metrics_get_approximate_digit_width(metrics)));
    pango_font_metrics_unref(metrics);
    g_hash_table_insert(cache, key, m);
  }
  *line_height = m->line_height;
  *char_width = m->char_width;
}

gboolean
td_text_sync(TdTextSync *sync, GtkWidget *widget)
{
  PangoContext *context = gtk_widget_get_pango_context(widget);
  guint serial = pango_context_get_serial(context);
  if (sync->line_height >= 0 && serial == sync->context_serial)
    return FALSE;
  sync->context_serial = serial;
  td_text_metrics(context, &sync->line_height, &sync->char_width);
  return TRUE;
}

PangoLayout *
td_text_line_layout_new(GtkWidget *widget, const char *text, gboolean numeric)
{
  PangoLayout *layout = gtk_widget_create_pango_layout(widget, text);
  pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END);
  pango_layout_set_single_paragraph_mode(layout, TRUE);
  if (numeric) {
    PangoAttrList *attrs = pango_attr_list_new();
    pango_attr_list_insert(attrs, pango_attr_font_features_new("tnum=1"));
    pango_layout_set_attributes(layout, attrs);
    pango_attr_list_unref(attrs);
  }
  return layout;
}

/* The horizontal padding the style sheet gives a table cell (style.css: 8 px a side). */
#define CELL_PADDING 16

int
td_cell_label_column_width(GtkWidget *widget, int width_chars)
{
  g_return_val_if_fail(GTK_IS_WIDGET(widget), 0);
  int line_height, char_width;
  td_text_metrics(gtk_widget_get_pango_context(widget), &line_height, &char_width);
  return char_width * width_chars + CELL_PADDING;
}

/* Metrics and the layout follow the widget's Pango context (font, scale, direction). */
static void
sync_context(TdCellLabel *self)
{
  if (td_text_sync(&self->font, GTK_WIDGET(self)) && self->layout)
    pango_layout_context_changed(self->layout);
}

static void
td_cell_label_measure(GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum,
                      int *natural, int *minimum_baseline, int *natural_baseline)
{
  TdCellLabel *self = TD_CELL_LABEL(widget);
  sync_context(self);
  if (orientation == GTK_ORIENTATION_HORIZONTAL) {
    *minimum = self->font.char_width * 2;
    *natural = MAX(*minimum, self->font.char_width * self->width_chars);
  } else {
    *minimum = *natural = self->font.line_height;
  }
}

static PangoLayout *
ensure_layout(TdCellLabel *self, int width)
{
  sync_context(self);
  if (!self->layout) {
    self->layout = td_text_line_layout_new(GTK_WIDGET(self), self->text, self->numeric);
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
  gtk_snapshot_translate(snapshot, &GRAPHENE_POINT_INIT(0, (height - self->font.line_height) / 2));
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
  self->font = (TdTextSync)TD_TEXT_SYNC_INIT;
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
