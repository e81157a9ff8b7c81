/* kernel-main.c — `trellis-kernel -f CONNECTION_FILE [--events FILE.jsonl]`: the Jupyter kernel
 * program, the protocol engine in front of embedded CPython (kernel-py-interp.c, over core/py). */
#include "kernel-private.h"
#include "tp-asan.h"

#include <fcntl.h>
#include <locale.h>
#include <stdlib.h>
#include <unistd.h>

/* A kernel takes input only through its stdin channel. The process's fd 0 is often its
 * client's terminal or pipe (jupyter console's): nothing here may read from it, so it reads
 * /dev/null from now on. */
static void
detach_stdin(void)
{
  int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  if (fd != STDIN_FILENO) {
    dup2(fd, STDIN_FILENO);
    close(fd);
  }
}

int
main(int argc, char **argv)
{
  setlocale(LC_ALL, "");
  g_autofree char *connection_file = NULL;
  g_autofree char *events_file = NULL;
  gboolean version = FALSE;
  const GOptionEntry entries[] = {
      {"connection-file", 'f', 0, G_OPTION_ARG_FILENAME, &connection_file,
       "The connection file written by the Jupyter client", "FILE"},
      {"events", 0, 0, G_OPTION_ARG_FILENAME, &events_file,
       "Also write every trace event to FILE as a JSON line", "FILE.jsonl"},
      {"version", 0, 0, G_OPTION_ARG_NONE, &version, "Print the version and exit", NULL},
      {NULL},
  };
  g_autoptr(GOptionContext) options = g_option_context_new("- the Trellis Jupyter kernel");
  g_option_context_add_main_entries(options, entries, NULL);
  g_autoptr(GError) error = NULL;
  if (!g_option_context_parse(options, &argc, &argv, &error)) {
    g_printerr("trellis-kernel: %s\n", error->message);
    return 2;
  }
  if (version) {
    g_print("trellis-kernel %s (Jupyter protocol %s)\n", TK_VERSION, TK_PROTOCOL_VERSION);
    return 0;
  }
  if (!connection_file) {
    g_printerr("trellis-kernel: -f CONNECTION_FILE is required (see --help)\n");
    return 2;
  }
  detach_stdin();
  TkInterp interp;
  if (!tk_py_interp_init(&interp, &error) ||
      !tk_kernel_run(connection_file, events_file, &interp, &error)) {
    g_printerr("trellis-kernel: %s\n", error->message);
    return 1;
  }
  return 0;
}
