/* trellis.c — the command line: run a script, a string, a notebook's code cells, or a prompt.
 *
 *   trellis [OPTION...] FILE.py [ARGS...]   sys.argv = [FILE.py, ARGS...]; exit status 1 on an
 *                                           uncaught error
 *   trellis [OPTION...] FILE.ipynb          each code cell as "<cell N>", printing a trailing
 *                                           expression
 *   trellis [OPTION...] -c CODE [ARGS...]   sys.argv = ["-c", ARGS...]
 *   trellis [OPTION...]                     an interactive prompt with continuation lines
 *
 * As in CPython, trellis's own options come first: the first argument that is not an option
 * (FILE), "--", or -c CODE ends them and everything after belongs to the program. Each unit run
 * for the user is a cell of the session's event stream (SPEC §4): a script or -c is cell 1, a
 * notebook's code cells and the prompt's units are numbered from 1. --report, --events and
 * --perfetto collect that stream from its first event and write it when the program ends, also
 * when it raised (its exit status is kept).
 *
 * Python is Debian's CPython embedded through core/py, on the real file descriptors (no
 * capture): sys.path[0], tracebacks, SystemExit and Ctrl-C behave as under python3, and a
 * notebook cell's or prompt unit's value is shown by sys.displayhook (its repr).
 */
#include "tf.h"
#include "tp-asan.h"
#include "tp.h"
#include "tr-event-log.h"
#include "tr-report.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A script or -c: the session's one cell. */
static int
run_source(TpInterp *tp, const char *source, gssize len, const char *filename, TpRunFlags flags)
{
  if (tp_run_cell(tp, source, len, filename, 1, flags))
    return 0;
  return tp_report_uncaught();
}

static int
run_file(TpInterp *tp, const char *path)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  g_autoptr(GError) error = NULL;
  if (!g_file_get_contents(path, &text, &len, &error)) {
    fprintf(stderr, "trellis: can't open file '%s': %s\n", path, error->message);
    return 2;
  }
  g_autofree char *absolute = g_canonicalize_filename(path, NULL);
  return run_source(tp, text, (gssize)len, absolute, TP_RUN_SET_FILE);
}

/* What a notebook's cells may call that only a notebook front end defines (IPython makes them
 * builtins): here display() prints each object's repr, as a terminal front end shows text/plain,
 * and clear_output() has nothing to clear. */
static const char notebook_builtins[] = "import builtins\n"
                                        "def display(*objs, **kwargs):\n"
                                        "    for obj in objs:\n"
                                        "        print(repr(obj))\n"
                                        "def clear_output(wait=False):\n"
                                        "    pass\n"
                                        "builtins.display = display\n"
                                        "builtins.clear_output = clear_output\n"
                                        "del builtins, display, clear_output\n";

static int
run_notebook(TpInterp *tp, GPtrArray *cells)
{
  if (!tp_run(tp, notebook_builtins, -1, "<trellis notebook>", 0))
    return tp_report_uncaught();
  int status = 0;
  for (guint i = 0; i < cells->len; i++) {
    const TpNotebookCell *cell = cells->pdata[i];
    int n = (int)i + 1;
    g_autofree char *name = g_strdup_printf("<cell %d>", n);
    if (tp_run_cell(tp, cell->source, -1, name, n, TP_RUN_DISPLAY))
      continue;
    int cell_status = tp_report_uncaught();
    if (cell->raises_exception)
      continue; /* an error the notebook expects there (as nbclient): its traceback, then on */
    status = cell_status;
    if (status != 0)
      break;
  }
  return status;
}

/* ---- the prompt ------------------------------------------------------------------------------ */

/* One line from input(prompt) (new reference), or NULL with EOFError / KeyboardInterrupt or
 * another exception pending. */
static PyObject *
read_line(const char *prompt)
{
  PyObject *input = PyDict_GetItemString(PyEval_GetBuiltins(), "input"); /* borrowed */
  if (!input) {
    PyErr_SetString(PyExc_RuntimeError, "lost builtins.input");
    return NULL;
  }
  return PyObject_CallFunction(input, "s", prompt);
}

/* What codeop says of the unit so far: 1 complete, 0 it needs more lines, -1 it can't compile
 * (the error is pending). */
static int
unit_complete(PyObject *compile_command, PyObject *source, const char *filename)
{
  PyObject *code = PyObject_CallFunction(compile_command, "Oss", source, filename, "single");
  if (!code)
    return -1;
  int complete = code != Py_None;
  Py_DECREF(code);
  return complete;
}

/* Prints a KeyboardInterrupt at the prompt as CPython's does, and forgets it. */
static void
report_prompt_interrupt(void)
{
  PyErr_Clear();
  PyObject *err = PySys_GetObject("stderr"); /* borrowed */
  if (err && PyFile_WriteString("\nKeyboardInterrupt\n", err) < 0)
    PyErr_Clear();
}

/* Line editing and history as python3's prompt has them (site's sys.__interactivehook__). */
static void
enable_line_editing(void)
{
  PyObject *hook = PySys_GetObject("__interactivehook__"); /* borrowed */
  PyObject *r = hook ? PyObject_CallNoArgs(hook) : NULL;   /* owned */
  if (!r)
    PyErr_Clear();
  Py_XDECREF(r);
}

/* The prompt, as code.InteractiveConsole: lines accumulate until codeop says the unit is
 * complete; each unit is a cell, its last expression shown. Returns the exit status. */
static int
run_prompt(TpInterp *tp)
{
  bool tty = isatty(STDIN_FILENO);
  if (tty)
    enable_line_editing();
  PyObject *codeop = PyImport_ImportModule("codeop"); /* owned */
  PyObject *compile_command =                         /* owned */
      codeop ? PyObject_GetAttrString(codeop, "compile_command") : NULL;
  Py_XDECREF(codeop);
  if (!compile_command)
    return tp_report_uncaught();
  PyObject *lines = PyList_New(0);                /* owned: the unit's lines so far */
  PyObject *newline = PyUnicode_FromString("\n"); /* owned */
  int n = 0, status = 0;
  for (;;) {
    PyObject *line = read_line(!tty ? "" : PyList_GET_SIZE(lines) ? "... " : ">>> ");
    if (!line && PyErr_ExceptionMatches(PyExc_EOFError)) {
      PyErr_Clear();
      break;
    }
    if (!line && PyErr_ExceptionMatches(PyExc_KeyboardInterrupt)) {
      report_prompt_interrupt();
      PyList_SetSlice(lines, 0, PyList_GET_SIZE(lines), NULL);
      continue;
    }
    if (!line || PyList_Append(lines, line) < 0) {
      Py_XDECREF(line);
      status = tp_report_uncaught();
      break;
    }
    Py_DECREF(line);
    PyObject *source = PyUnicode_Join(newline, lines); /* owned */
    g_autofree char *name = g_strdup_printf("<stdin-%d>", n + 1);
    int complete = source ? unit_complete(compile_command, source, name) : -1;
    if (complete == 0) {
      Py_DECREF(source);
      continue;
    }
    PyList_SetSlice(lines, 0, PyList_GET_SIZE(lines), NULL);
    if (complete < 0) {
      Py_XDECREF(source);
      tp_report_uncaught(); /* a SyntaxError: the prompt goes on */
      continue;
    }
    g_autofree char *text = g_strconcat(PyUnicode_AsUTF8(source), "\n", NULL);
    Py_DECREF(source);
    n++;
    if (tp_run_cell(tp, text, -1, name, n, TP_RUN_DISPLAY))
      continue;
    if (PyErr_ExceptionMatches(PyExc_SystemExit)) {
      status = tp_report_uncaught();
      break;
    }
    tp_report_uncaught();
  }
  if (tty && status == 0 && !PyErr_Occurred())
    fputc('\n', stdout);
  Py_DECREF(newline);
  Py_DECREF(lines);
  Py_DECREF(compile_command);
  return status;
}

/* ---- options and the event stream --------------------------------------------------------- */

typedef struct {
  char *code;      /* -c CODE */
  gboolean eager;  /* --eager */
  gboolean report; /* --report */
  char *events;    /* --events FILE.jsonl */
  char *perfetto;  /* --perfetto FILE.json */
} Options;

static Options options;

/* Every value is taken as ARG_FILENAME, i.e. as the bytes given: CODE is UTF-8 whatever the
 * locale says (ARG_STRING would convert from the locale's charset and reject UTF-8 in "C"). */
static const GOptionEntry option_entries[] = {
    {"command", 'c', G_OPTION_FLAG_NONE, G_OPTION_ARG_FILENAME, &options.code,
     "Run CODE; the arguments after it are sys.argv[1:]", "CODE"},
    {"eager", 0, G_OPTION_FLAG_NONE, G_OPTION_ARG_NONE, &options.eager,
     "Run every tf.function's Python body on each call (tf.config.run_functions_eagerly(True))",
     NULL},
    {"report", 0, G_OPTION_FLAG_NONE, G_OPTION_ARG_NONE, &options.report,
     "At exit, print each Function's calls, hits, misses, tracing time and retrace causes per "
     "call site on stdout, after the program's output",
     NULL},
    {"events", 0, G_OPTION_FLAG_NONE, G_OPTION_ARG_FILENAME, &options.events,
     "At exit, write every trace event to FILE as JSON lines", "FILE.jsonl"},
    {"perfetto", 0, G_OPTION_FLAG_NONE, G_OPTION_ARG_FILENAME, &options.perfetto,
     "At exit, write the events as a Chrome/Perfetto trace (ui.perfetto.dev, chrome://tracing)",
     "FILE.json"},
    G_OPTION_ENTRY_NULL,
};

/* The entry an option argument ("-c", "--events", "--events=x") names, or NULL. */
static const GOptionEntry *
find_entry(const char *arg)
{
  for (const GOptionEntry *e = option_entries; e->long_name; e++) {
    if (arg[1] != '-') {
      if (e->short_name && arg[1] == e->short_name && arg[2] == '\0')
        return e;
      continue;
    }
    size_t n = strlen(e->long_name);
    if (strncmp(arg + 2, e->long_name, n) == 0 && (arg[2 + n] == '\0' || arg[2 + n] == '='))
      return e;
  }
  return NULL;
}

/* Splits argv: argv[1, *options_end) are trellis's options, argv[*program, argc) the program's
 * FILE and arguments (or -c's arguments). Options end after -c CODE, at "--" (dropped) or at
 * the first argument that is not an option; an option's value may be the next argument. */
static void
split_arguments(int argc, char **argv, int *options_end, int *program)
{
  int i = 1;
  while (i < argc) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) {
      *options_end = i;
      *program = i + 1;
      return;
    }
    if (a[0] != '-' || a[1] == '\0')
      break;
    const GOptionEntry *e = find_entry(a);
    bool takes_next = e && e->arg != G_OPTION_ARG_NONE && !strchr(a, '=');
    i = MIN(i + (takes_next ? 2 : 1), argc);
    if (e && e->short_name == 'c')
      break;
  }
  *options_end = *program = i;
}

/* A path we will write at exit must be in a writable directory: say so now, not after the run. */
static bool
check_writable(const char *option, const char *path)
{
  g_autofree char *dir = g_path_get_dirname(path);
  if (g_file_test(dir, G_FILE_TEST_IS_DIR) && g_access(dir, W_OK) == 0 &&
      !g_file_test(path, G_FILE_TEST_IS_DIR))
    return true;
  fprintf(stderr, "trellis: %s: can't write '%s'\n", option, path);
  return false;
}

/* --events and --perfetto: each file is written while the program runs, by a thread of its
 * writer's own (tr_event_writer_new), and finished here. */
typedef struct {
  TrEventWriter *events;
  TrEventWriter *perfetto;
} Outputs;

static bool
finish_output(TrEventWriter *writer, const char *option)
{
  g_autoptr(GError) error = NULL;
  if (!writer || tr_event_writer_finish(writer, &error))
    return true;
  fprintf(stderr, "trellis: %s: %s\n", option, error->message);
  return false;
}

/* --report, --events, --perfetto. Returns false when a file could not be written. */
static bool
write_outputs(Outputs *out, TrReport *report)
{
  bool ok = finish_output(g_steal_pointer(&out->events), "--events");
  ok = finish_output(g_steal_pointer(&out->perfetto), "--perfetto") && ok;
  if (options.report) {
    g_autofree char *text = tr_report_to_string(report);
    printf("\n== trellis --report: traced Functions ==\n%s",
           *text ? text : "no Function was called\n");
  }
  return ok;
}

/* The program to run, decided before Python starts (sys.argv and sys.path[0] depend on it). */
typedef struct {
  const char *script;  /* FILE.py, or NULL */
  GPtrArray *notebook; /* FILE.ipynb's code cells, or NULL */
} Program;

static int
run(TpInterp *tp, const Program *prog)
{
  if (options.code)
    return run_source(tp, options.code, -1, "<string>", TP_RUN_EXEC);
  if (prog->notebook)
    return run_notebook(tp, prog->notebook);
  if (prog->script)
    return run_file(tp, prog->script);
  return run_prompt(tp);
}

/* sys.path[0] as CPython sets it: the script's directory, symbolic links resolved; the current
 * directory ("") for -c and the prompt. Transfer full. */
static char *
first_path(const char *file)
{
  if (!file)
    return g_strdup("");
  g_autofree char *real = realpath(file, NULL);
  if (!real)
    real = g_canonicalize_filename(file, NULL);
  return g_path_get_dirname(real);
}

int
main(int argc, char **argv)
{
  int options_end, program;
  split_arguments(argc, argv, &options_end, &program);
  g_autoptr(GOptionContext) context = g_option_context_new("[FILE.py | FILE.ipynb] [ARG...]");
  g_option_context_set_summary(
      context, "Run a script, a notebook's code cells (printing each cell's last expression), "
               "CODE, or without any of them an interactive prompt.\nOptions come first: FILE, "
               "-c CODE or \"--\" ends them, and the arguments after belong to the program.");
  g_option_context_set_description(
      context, "Exit status: 0, SystemExit's code, 1 after an uncaught exception, 2 for a bad "
               "command line or an unreadable FILE.\n--report, --events and --perfetto also "
               "cover a program that raised; events of a script or -c carry cell 1, a "
               "notebook's the number of its code cell.");
  g_option_context_add_main_entries(context, option_entries, NULL);
  g_autoptr(GError) error = NULL;
  /* GOption sees only the options; it reorders this copy of their pointers. */
  int opt_argc = options_end;
  g_autofree char **opt_argv = g_new0(char *, options_end + 1);
  memcpy(opt_argv, argv, sizeof(char *) * (gsize)options_end);
  if (!g_option_context_parse(context, &opt_argc, &opt_argv, &error)) {
    fprintf(stderr, "trellis: %s\n(see trellis --help)\n", error->message);
    return 2;
  }
  if ((options.events && !check_writable("--events", options.events)) ||
      (options.perfetto && !check_writable("--perfetto", options.perfetto)))
    return 2;

  Program prog = {0};
  g_autoptr(GPtrArray) notebook = NULL;
  if (!options.code && program < argc) {
    prog.script = argv[program];
    if (g_str_has_suffix(prog.script, ".ipynb")) {
      notebook = tp_notebook_code_cells(prog.script, &error);
      if (!notebook) {
        fprintf(stderr, "trellis: can't read notebook '%s': %s\n", prog.script, error->message);
        return 2;
      }
      prog.notebook = notebook;
    }
  }

  g_autoptr(GPtrArray) args = g_ptr_array_new();
  if (options.code)
    g_ptr_array_add(args, "-c");
  for (int i = program; i < argc; i++)
    g_ptr_array_add(args, argv[i]);
  if (args->len == 0)
    g_ptr_array_add(args, "");
  g_ptr_array_add(args, NULL);

  g_autofree char *path0 = first_path(prog.script);
  TpConfig config = {
      .argv = (const char *const *)args->pdata,
      .path0 = path0,
      .handle_sigint = true,
  };
  TpInterp *tp = tp_interp_new(&config, &error);
  if (!tp) {
    fprintf(stderr, "trellis: %s\n", error->message);
    return 1;
  }
  /* The files are written as events come, the report folded live. */
  Outputs outputs = {
      .events = options.events ? tr_event_writer_new(options.events, NULL) : NULL,
      .perfetto = options.perfetto ? tr_event_writer_new(NULL, options.perfetto) : NULL,
  };
  g_autoptr(TrReport) report = tr_report_new();
  TrEventBus *bus = tp_interp_event_bus(tp);
  /* None keeps the events it is given: the bus may pass views (tr_event_bus_emit_view). */
  const guint64 all = G_MAXUINT64, none = 0;
  TrEventWriter *writers[] = {outputs.events, outputs.perfetto};
  guint subscriptions[G_N_ELEMENTS(writers)] = {0};
  for (guint i = 0; i < G_N_ELEMENTS(writers); i++)
    if (writers[i])
      subscriptions[i] = tr_event_bus_subscribe_full(bus, all, none, tr_event_writer_event_func,
                                                     writers[i], NULL, true);
  if (options.report)
    tr_event_bus_subscribe_full(bus, all, none, tr_report_event_func, report, NULL, true);
  if (options.eager)
    tr_fn_registry_set_run_eagerly(tf_module_get_registry(tp_interp_tf(tp)), true);
  int status = run(tp, &prog);
  /* Python's buffered streams first, so that the report comes after the program's output. */
  tp_flush_std_streams();
  /* The writers are finished (and freed) now: no event may reach them after this. */
  for (guint i = 0; i < G_N_ELEMENTS(writers); i++)
    if (subscriptions[i])
      tr_event_bus_unsubscribe(bus, subscriptions[i]);
  if (!write_outputs(&outputs, report) && status == 0)
    status = 1;
  fflush(stdout);
  int end = tp_interp_free(tp);
  return status == 0 ? end : status;
}
