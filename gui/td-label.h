/* td-label.h — the labels of the debugger's live tables. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* A table cell's text: one line, ellipsized at the end, drawn straight from a PangoLayout.
 * Unlike a GtkLabel, its size does not depend on its text — it is one line of its font high
 * and `width_chars` average characters wide by nature — so a new text only redraws the cell:
 * a live table's rows are never measured again as values change, and nothing is shaped until
 * the cell is drawn. Its CSS name is "label", so label style rules apply; a numeric cell is
 * right-aligned with tabular digits (CSS class "numeric"). The whole text is its tooltip when
 * it does not fit. */
#define TD_TYPE_CELL_LABEL (td_cell_label_get_type())
G_DECLARE_FINAL_TYPE(TdCellLabel, td_cell_label, TD, CELL_LABEL, GtkWidget)

/* Transfer floating. */
GtkWidget *td_cell_label_new(gboolean numeric, int width_chars);
/* NULL is "". Redraws only when the text changed. */
void td_cell_label_set_text(TdCellLabel *self, const char *text);
const char *td_cell_label_get_text(TdCellLabel *self);

/* One line's height and an average character's width of `context`'s font, in pixels, cached
 * per font: measuring a font shapes sample text, too dear to do for each of a table's hundreds
 * of cells. Main thread only, as GTK is. */
void td_text_metrics(PangoContext *context, int *line_height, int *char_width);
/* A widget's font metrics, kept in step with its Pango context (font, scale). */
typedef struct {
  guint context_serial; /* the context's serial they are for */
  int line_height;      /* pixels, -1 until first synced */
  int char_width;       /* pixels */
} TdTextSync;
#define TD_TEXT_SYNC_INIT                                                                          \
  {                                                                                                \
    0, -1, 0                                                                                       \
  }
/* Bring `sync` up to date with `widget`'s Pango context; TRUE when it changed (layouts of the
 * widget then need pango_layout_context_changed). */
gboolean td_text_sync(TdTextSync *sync, GtkWidget *widget);

/* A layout of `widget` for one line of `text`, ellipsized at the end, with tabular digits when
 * `numeric`. Transfer full. */
PangoLayout *td_text_line_layout_new(GtkWidget *widget, const char *text, gboolean numeric);

/* The pixel width of a table column `width_chars` cells of `widget`'s font wide, cell padding
 * included: a fixed width spares the table measuring every cell of the column. */
int td_cell_label_column_width(GtkWidget *widget, int width_chars);

G_END_DECLS
