/* td-label.h — the labels of the debugger's live tables. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* A table cell's label: one line, ellipsized; a numeric one right-aligned (CSS class
 * "numeric"); an expanding one with its whole text as tooltip. Transfer floating. */
GtkWidget *td_label_new_cell(gboolean numeric, gboolean expand);

/* Give `label` a tooltip showing its whole text (an ellipsized cell's), made only when the
 * pointer rests on it. A live table must not set tooltip text on each update: every new tooltip
 * makes GTK ask the display server where the pointer is, a round trip per cell. */
void td_label_tooltip_shows_text(GtkLabel *label);

G_END_DECLS
