/* td-screenshot.h — `trellis-debugger --screenshot FILE.png`: render a realized widget (the
 * window) to a PNG file the way GTK draws it on screen, through the window's own renderer.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Render `widget` at its current size and write it to `path` as PNG. FALSE + error when the
 * widget has no size or renderer yet, or the file cannot be written. */
gboolean td_screenshot_save(GtkWidget *widget, const char *path, GError **error);

G_END_DECLS
