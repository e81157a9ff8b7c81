/* td-log-row.h — one row of the event log, drawn as a single widget. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* A row of `n_columns` one-line texts, drawn from PangoLayouts in columns: column k is
 * `width_chars[k]` average characters wide (plus 8 px each side), right-aligned when
 * `numeric[k]`, and the `expand` column takes the spare width. Like TdCellLabel its size never
 * follows its texts, so new texts only redraw it; being one widget where a row of labels is
 * eight, a list keeps hundreds of them cheaply. A text ellipsized in its column shows whole as
 * the tooltip over it. The header is a row with bold texts (CSS class "log-header"). One column
 * may be coloured by a named colour of the style sheet (td_log_row_set_column_color). */
#define TD_TYPE_LOG_ROW (td_log_row_get_type())
G_DECLARE_FINAL_TYPE(TdLogRow, td_log_row, TD, LOG_ROW, GtkWidget)

/* Transfer floating. The arrays are copied. */
GtkWidget *td_log_row_new(guint n_columns, const int *width_chars, const gboolean *numeric,
                          int expand);
/* NULL is "". Redraws only when the text changed. */
void td_log_row_set_text(TdLogRow *self, guint column, const char *text);
const char *td_log_row_get_text(TdLogRow *self, guint column);
/* Whether `column`'s text is cut short (ellipsized) at the row's allocated width. */
gboolean td_log_row_is_ellipsized(TdLogRow *self, guint column);
/* Tell assistive technologies the row's texts (joined by ", "), after a round of
 * td_log_row_set_text. */
void td_log_row_update_accessible(TdLogRow *self);
/* Draw `column` in the style sheet's colour `color_name` (an @define-color), or in the
 * row's own colour (NULL). */
void td_log_row_set_column_color(TdLogRow *self, guint column, const char *color_name);

G_END_DECLS
