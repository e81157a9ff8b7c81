/* td-application.h — trellis-debugger's GtkApplication: the command line
 * (`[--attach CONNECTION_FILE | FILE.ipynb | FILE.py] [--screenshot FILE.png]
 * [--perfetto FILE.json]`), windows, keyboard shortcuts, light and dark styles, and the jobs
 * done at exit (the Perfetto export, also on SIGTERM and SIGINT).
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define TD_APPLICATION_ID "org.trellis.Debugger"

#define TD_TYPE_APPLICATION (td_application_get_type())
G_DECLARE_FINAL_TYPE(TdApplication, td_application, TD, APPLICATION, GtkApplication)

TdApplication *td_application_new(void);
/* The status the process exits with once g_application_run returned: non-zero when a
 * --screenshot or --perfetto job failed. */
int td_application_get_exit_status(TdApplication *self);

G_END_DECLS
