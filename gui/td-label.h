/* td-label.h — labels of the debugger's live tables. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Give `label` a tooltip showing its whole text (an ellipsized cell's), made only when the
 * pointer rests on it. A live table must not set tooltip text on each update: every new tooltip
 * makes GTK ask the display server where the pointer is, a round trip per cell. */
void td_label_tooltip_shows_text(GtkLabel *label);

G_END_DECLS
