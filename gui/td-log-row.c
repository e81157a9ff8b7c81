/* td-log-row.c — one row of the event log, drawn as a single widget (see td-log-row.h). */
#include "td-log-row.h"

#include "td-label.h"

#include <string.h>

/* Space each side of a column's text. */
#define COLUMN_PAD 8
/* Space above and below the texts. */
#define ROW_PAD 4

typedef struct {
  char *text;          /* never NULL */
  PangoLayout *layout; /* shaped at `layout_width`, or NULL until drawn */
  int layout_width;    /* pixels */
  int width_chars;     /* natural width */
  gboolean numeric;    /* right-aligned, tabular digits */
  const char *color;   /* @define-color name (static), or NULL */
  int x, width;        /* the text's place in the last allocation */
} Column;

struct _TdLogRow {
  GtkWidget parent_instance;
  Column *columns;
  guint n_columns;
  int expand;      /* the column taking the spare width, or -1 */
  TdTextSync font; /* font metrics */
};

G_DEFINE_FINAL_TYPE(TdLogRow, td_log_row, GTK_TYPE_WIDGET)

static void
sync_context(TdLogRow *self)
{
  if (!td_text_sync(&self->font, GTK_WIDGET(self)))
    return;
  for (guint i = 0; i < self->n_columns; i++)
    if (self->columns[i].layout)
      pango_layout_context_changed(self->columns[i].layout);
}

static int
natural_width(TdLogRow *self, guint i)
{
  return self->font.char_width * self->columns[i].width_chars + 2 * COLUMN_PAD;
}

static void
td_log_row_measure(GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum,
                   int *natural, int *minimum_baseline, int *natural_baseline)
{
  TdLogRow *self = TD_LOG_ROW(widget);
  sync_context(self);
  if (orientation == GTK_ORIENTATION_HORIZONTAL) {
    int sum = 0;
    for (guint i = 0; i < self->n_columns; i++)
      sum += natural_width(self, i);
    *minimum = 0;
    *natural = sum;
  } else {
    *minimum = *natural = self->font.line_height + 2 * ROW_PAD;
  }
}

/* Columns at their natural widths, the expanding one taking what is left (at least nothing);
 * when even that does not fit, the text columns shrink alike. Numeric columns keep their
 * width while they fit: a number cut short ("123…") reads as another number. */
static void
place_columns(TdLogRow *self, int width)
{
  int numbers = 0, texts = 0;
  for (guint i = 0; i < self->n_columns; i++)
    if ((int)i != self->expand)
      *(self->columns[i].numeric ? &numbers : &texts) += natural_width(self, i);
  double text_scale = 1.0, number_scale = 1.0;
  if (numbers > width) {
    number_scale = (double)width / numbers;
    text_scale = 0;
  } else if (numbers + texts > width) {
    text_scale = texts > 0 ? (double)(width - numbers) / texts : 1.0;
  }
  int fixed = 0;
  for (guint i = 0; i < self->n_columns; i++)
    if ((int)i != self->expand)
      fixed +=
          (int)(natural_width(self, i) * (self->columns[i].numeric ? number_scale : text_scale));
  int x = 0;
  for (guint i = 0; i < self->n_columns; i++) {
    double scale = self->columns[i].numeric ? number_scale : text_scale;
    int w = (int)i == self->expand ? MAX(width - fixed, 0) : (int)(natural_width(self, i) * scale);
    self->columns[i].x = x + COLUMN_PAD;
    self->columns[i].width = MAX(w - 2 * COLUMN_PAD, 0);
    x += w;
  }
}

static void
td_log_row_size_allocate(GtkWidget *widget, int width, int height, int baseline)
{
  TdLogRow *self = TD_LOG_ROW(widget);
  sync_context(self);
  place_columns(self, width);
}

static PangoLayout *
column_layout(TdLogRow *self, guint i)
{
  Column *c = &self->columns[i];
  if (!c->layout) {
    c->layout = td_text_line_layout_new(GTK_WIDGET(self), c->text, c->numeric);
    c->layout_width = -1;
  }
  if (c->layout_width != c->width) {
    c->layout_width = c->width;
    pango_layout_set_width(c->layout, c->width * PANGO_SCALE);
    pango_layout_set_alignment(c->layout, c->numeric ? PANGO_ALIGN_RIGHT : PANGO_ALIGN_LEFT);
  }
  return c->layout;
}

static void
column_color(TdLogRow *self, const Column *c, GdkRGBA *color)
{
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  GtkStyleContext *style = gtk_widget_get_style_context(GTK_WIDGET(self));
  if (!c->color || !gtk_style_context_lookup_color(style, c->color, color))
    gtk_style_context_get_color(style, color);
  G_GNUC_END_IGNORE_DEPRECATIONS
}

static void
td_log_row_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
  TdLogRow *self = TD_LOG_ROW(widget);
  sync_context(self);
  int y = (gtk_widget_get_height(widget) - self->font.line_height) / 2;
  for (guint i = 0; i < self->n_columns; i++) {
    Column *c = &self->columns[i];
    if (!*c->text || c->width <= 0)
      continue;
    GdkRGBA color;
    column_color(self, c, &color);
    gtk_snapshot_save(snapshot);
    gtk_snapshot_translate(snapshot, &GRAPHENE_POINT_INIT(c->x, y));
    gtk_snapshot_append_layout(snapshot, column_layout(self, i), &color);
    gtk_snapshot_restore(snapshot);
  }
}

static gboolean
on_query_tooltip(GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip,
                 gpointer user_data)
{
  TdLogRow *self = TD_LOG_ROW(widget);
  for (guint i = 0; i < self->n_columns; i++) {
    Column *c = &self->columns[i];
    if (x < c->x - COLUMN_PAD || x >= c->x + c->width + COLUMN_PAD || !*c->text)
      continue;
    if (!pango_layout_is_ellipsized(column_layout(self, i)))
      return FALSE;
    gtk_tooltip_set_text(tooltip, c->text);
    return TRUE;
  }
  return FALSE;
}

gboolean
td_log_row_is_ellipsized(TdLogRow *self, guint column)
{
  g_return_val_if_fail(TD_IS_LOG_ROW(self) && column < self->n_columns, FALSE);
  sync_context(self);
  return *self->columns[column].text && pango_layout_is_ellipsized(column_layout(self, column));
}

static void
td_log_row_finalize(GObject *object)
{
  TdLogRow *self = TD_LOG_ROW(object);
  for (guint i = 0; i < self->n_columns; i++) {
    g_clear_object(&self->columns[i].layout);
    g_free(self->columns[i].text);
  }
  g_free(self->columns);
  G_OBJECT_CLASS(td_log_row_parent_class)->finalize(object);
}

static void
td_log_row_class_init(TdLogRowClass *klass)
{
  G_OBJECT_CLASS(klass)->finalize = td_log_row_finalize;
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
  widget_class->measure = td_log_row_measure;
  widget_class->size_allocate = td_log_row_size_allocate;
  widget_class->snapshot = td_log_row_snapshot;
  gtk_widget_class_set_css_name(widget_class, "tdlogrow");
  gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_LABEL);
}

static void
td_log_row_init(TdLogRow *self)
{
  self->font = (TdTextSync)TD_TEXT_SYNC_INIT;
  self->expand = -1;
  gtk_widget_set_has_tooltip(GTK_WIDGET(self), TRUE);
  g_signal_connect(self, "query-tooltip", G_CALLBACK(on_query_tooltip), NULL);
}

GtkWidget *
td_log_row_new(guint n_columns, const int *width_chars, const gboolean *numeric, int expand)
{
  TdLogRow *self = g_object_new(TD_TYPE_LOG_ROW, NULL);
  self->n_columns = n_columns;
  self->expand = expand;
  self->columns = g_new0(Column, n_columns);
  for (guint i = 0; i < n_columns; i++) {
    self->columns[i].text = g_strdup("");
    self->columns[i].width_chars = MAX(width_chars[i], 1);
    self->columns[i].numeric = numeric[i];
    self->columns[i].layout_width = -1;
  }
  return GTK_WIDGET(self);
}

void
td_log_row_set_text(TdLogRow *self, guint column, const char *text)
{
  g_return_if_fail(TD_IS_LOG_ROW(self) && column < self->n_columns);
  Column *c = &self->columns[column];
  if (!text)
    text = "";
  if (strcmp(c->text, text) == 0)
    return;
  g_free(c->text);
  c->text = g_strdup(text);
  if (c->layout)
    pango_layout_set_text(c->layout, c->text, -1);
  gtk_widget_queue_draw(GTK_WIDGET(self));
}

const char *
td_log_row_get_text(TdLogRow *self, guint column)
{
  g_return_val_if_fail(TD_IS_LOG_ROW(self) && column < self->n_columns, NULL);
  return self->columns[column].text;
}

void
td_log_row_update_accessible(TdLogRow *self)
{
  g_return_if_fail(TD_IS_LOG_ROW(self));
  GString *label = g_string_new(NULL);
  for (guint i = 0; i < self->n_columns; i++)
    if (*self->columns[i].text)
      g_string_append_printf(label, "%s%s", label->len ? ", " : "", self->columns[i].text);
  gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_LABEL, label->str,
                                 -1);
  g_string_free(label, TRUE);
}

void
td_log_row_set_column_color(TdLogRow *self, guint column, const char *color_name)
{
  g_return_if_fail(TD_IS_LOG_ROW(self) && column < self->n_columns);
  if (self->columns[column].color == color_name)
    return;
  self->columns[column].color = color_name;
  gtk_widget_queue_draw(GTK_WIDGET(self));
}
