/* kernel-main.c — `trellis-kernel -f CONNECTION_FILE [--events FILE.jsonl] [--eager]`: the
 * Jupyter kernel program, the protocol engine in front of embedded CPython (kernel-py-interp.c,
 * over core/py). */
#include "kernel-private.h"

#include <fcntl.h>
#include <locale.h>
#include <stdlib.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
/* Leak checking of the kernel under AddressSanitizer. Every kernel imports IPython (and
 * notebooks NumPy and Matplotlib): millions of allocations, which ASan's whole-stack unwinding
 * (what the command line uses, tp-asan.h, so that its suppressions can name the import that
 * leaked) would make twenty times slower. The kernel keeps ASan's fast stacks, which stop at
 * libpython (built without frame pointers), so a leak whose stack reaches CPython cannot be
 * told apart from the objects CPython and NumPy keep on purpose: those are not reported here.
 * The kernel's own memory (sockets, messages, history, the debug protocol) is checked; Python
 * objects that core/tf and core/py leak are caught by the command line's tests, which run the
 * same code with whole stacks. */
const char *__lsan_default_suppressions(void);
__attribute__((used, visibility("default"))) const char *
__lsan_default_suppressions(void)
{
  return "leak:libpython3.11.so\n"
         "leak:/numpy/\n"
         "leak:/matplotlib/\n";
}
#endif

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
  gboolean eager = FALSE;
  gint64 max_message_size = 0;
  const GOptionEntry entries[] = {
      {"connection-file", 'f', 0, G_OPTION_ARG_FILENAME, &connection_file,
       "The connection file written by the Jupyter client", "FILE"},
      {"events", 0, 0, G_OPTION_ARG_FILENAME, &events_file,
       "Also write every trace event to FILE as a JSON line", "FILE.jsonl"},
      {"eager", 0, 0, G_OPTION_ARG_NONE, &eager,
       "Run functions eagerly from the start (tf.config.run_functions_eagerly(True))", NULL},
      {"max-message-size", 0, 0, G_OPTION_ARG_INT64, &max_message_size,
       "The largest message frame the channels accept (default 128 MiB)", "BYTES"},
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
      !tk_kernel_run(connection_file, &(TkKernelOptions){events_file, eager, max_message_size},
                     &interp, &error)) {
    g_printerr("trellis-kernel: %s\n", error->message);
    return 1;
  }
  return 0;
}
