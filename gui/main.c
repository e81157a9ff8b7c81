/* main.c — trellis-debugger: the GTK 4 debugger of Trellis's traced functions (SPEC §6). */
#include "td-application.h"

int
main(int argc, char **argv)
{
  /* Diagnostics (G_MESSAGES_DEBUG=trellis-debugger) go to stderr, as a GUI's should. */
  g_log_writer_default_set_use_stderr(TRUE);
  g_autoptr(TdApplication) app = td_application_new();
  int status = g_application_run(G_APPLICATION(app), argc, argv);
  return status != 0 ? status : td_application_get_exit_status(app);
}
