/* td-window.h — one debugger window: one session (a kernel attached to, or a notebook or script
 * run in-process) with its TdClient and TdStore, shown in the timeline, the Functions table, the
 * selected Function's traces, the graph view, the event log and the output. Without a session
 * it shows the running kernels and a button to open a file.
 */
#pragma once

#include <gtk/gtk.h>

#include "td-client.h"
#include "td-store.h"

G_BEGIN_DECLS

#define TD_TYPE_WINDOW (td_window_get_type())
G_DECLARE_FINAL_TYPE(TdWindow, td_window, TD, WINDOW, GtkApplicationWindow)

TdWindow *td_window_new(GtkApplication *app);
/* Whether the window already shows a session (then open files in a new window). */
gboolean td_window_has_session(TdWindow *self);
/* Run a notebook (.ipynb) or script (.py) in-process. FALSE + error when it cannot start. */
gboolean td_window_open_file(TdWindow *self, const char *path, GError **error);
/* Attach to the kernel of a connection file. FALSE + error when it cannot start. */
gboolean td_window_attach(TdWindow *self, const char *connection_file, GError **error);
/* Show an error in the window's info bar. */
void td_window_show_error(TdWindow *self, const char *text);
/* The session's store, or NULL before a session. Borrowed. */
TdStore *td_window_get_store(TdWindow *self);
/* The session's state (-1: no session yet); `message` (borrowed, may be NULL) says more. */
int td_window_get_status(TdWindow *self, const char **message);
/* Select the Function with the most calls and its newest trace, and show its graph. FALSE when
 * there is no Function. */
gboolean td_window_show_busiest(TdWindow *self);
/* Whether nothing is pending: no graph layout running, no list waiting to be rebuilt. */
gboolean td_window_is_idle(TdWindow *self);

/* Signals:
 *   "status-changed" (int status, const char *message)   the session's TdClientStatus moved
 */

G_END_DECLS
