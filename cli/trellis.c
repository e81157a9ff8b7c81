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
 */
#include "lang-compile.h"
#include "lang-interp.h"
#include "lang-parser.h"
#include "lang-runtime.h"
#include "lang-tf.h"
#include "tr-report.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The exit status for an exception that escaped: SystemExit's code, else 1 with a traceback. */
static int
report_uncaught(LangState *L)
{
  if (lang_exc_matches(L, &lang_exc_SystemExit)) {
    LangValue exc = lang_exc_fetch(L);
    LangValue code = lang_getattr_cstr(L, exc, "code");
    int status = 0;
    if (code.tag == LANG_TAG_INT)
      status = (int)code.i;
    else if (code.tag != LANG_TAG_NONE && !lang_is_exc(code)) {
      LangValue text = lang_str(L, code);
      if (lang_is_str(text)) {
        lang_write_err(L, lang_str_data(text.o), (size_t)lang_str_size(text.o));
        lang_write_err(L, "\n", 1);
      }
      lang_decref(text);
      status = 1;
    }
    lang_exc_clear(L);
    lang_decref(code);
    lang_decref(exc);
    return status;
  }
  lang_exc_print(L);
  return 1;
}

static void
print_result(LangState *L, LangValue result)
{
  if (result.tag == LANG_TAG_UNSET || result.tag == LANG_TAG_NONE)
    return;
  LangValue text = lang_repr(L, result);
  if (lang_is_exc(text)) {
    lang_exc_print(L);
    return;
  }
  lang_write_out(L, lang_str_data(text.o), (size_t)lang_str_size(text.o));
  lang_write_out(L, "\n", 1);
  lang_decref(text);
}

/* A script or -c: the session's one cell. */
static int
run_source(LangInterp *interp, const char *source, gssize len, const char *filename)
{
  if (lang_interp_run_cell(interp, source, len, filename, 1, 0, NULL))
    return 0;
  return report_uncaught(lang_interp_state(interp));
}

static int
run_file(LangInterp *interp, const char *path)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  g_autoptr(GError) error = NULL;
  if (!g_file_get_contents(path, &text, &len, &error)) {
    fprintf(stderr, "trellis: can't open file '%s': %s\n", path, error->message);
    return 2;
  }
  g_autofree char *absolute = g_canonicalize_filename(path, NULL);
  return run_source(interp, text, (gssize)len, absolute);
}

static int
run_notebook(LangInterp *interp, const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) cells = lang_notebook_code_cells(path, &error);
  if (!cells) {
    fprintf(stderr, "trellis: can't read notebook '%s': %s\n", path, error->message);
    return 2;
  }
  LangState *L = lang_interp_state(interp);
  int status = 0;
  for (guint i = 0; i < cells->len; i++) {
    const char *source = cells->pdata[i];
    int n = (int)i + 1;
    g_autofree char *name = g_strdup_printf("<cell %d>", n);
    LangValue result = LANG_UNSET;
    lang_interp_cell_begin(interp, n, source, -1);
    bool ok = lang_interp_run(interp, source, -1, name, LANG_COMPILE_RESULT, &result);
    if (ok)
      print_result(L, result);
    lang_decref(result);
    lang_interp_cell_end(interp, ok);
    if (ok)
      continue;
    status = report_uncaught(L);
    if (status != 0)
      break;
  }
  return status;
}

/* The prompt: lines accumulate until the parser says the unit is complete. */
static int
run_prompt(LangInterp *interp)
{
  LangState *L = lang_interp_state(interp);
  bool tty = isatty(STDIN_FILENO);
  GString *unit = g_string_new(NULL);
  int n = 0;
  char line[8192];
  for (;;) {
    if (tty) {
      fputs(unit->len ? "... " : ">>> ", stdout);
      fflush(stdout);
    }
    if (!fgets(line, sizeof line, stdin))
      break;
    g_string_append(unit, line);
    int indent = 0;
    LangCompleteness done = lang_parse_is_complete(unit->str, (gssize)unit->len, &indent);
    if (done == LANG_INCOMPLETE)
      continue;
    g_autofree char *name = g_strdup_printf("<stdin-%d>", ++n);
    LangValue result = LANG_UNSET;
    lang_interp_cell_begin(interp, n, unit->str, (gssize)unit->len);
    bool ok =
        lang_interp_run(interp, unit->str, (gssize)unit->len, name, LANG_COMPILE_RESULT, &result);
    if (ok)
      print_result(L, result);
    lang_decref(result);
    lang_interp_cell_end(interp, ok);
    if (!ok && lang_exc_matches(L, &lang_exc_SystemExit)) {
      g_string_free(unit, TRUE);
      return report_uncaught(L);
    }
    if (!ok)
      lang_exc_print(L);
    g_string_truncate(unit, 0);
  }
  if (tty)
    fputc('\n', stdout);
  g_string_free(unit, TRUE);
  return 0;
}

/* --dis FILE: the bytecode of every code object, for debugging the compiler. */
static void
disassemble(LangCode *code)
{
  g_autofree char *text = lang_code_disassemble(code);
  printf("== %s (stack %d, locals %d, cells %d, free %d)\n%s", lang_str_data(code->qualname),
         code->stacksize, code->n_locals, code->n_cells, code->n_free, text);
  for (int i = 0; i < code->n_consts; i++)
    if (lang_is_type(code->consts[i], &lang_code_type))
      disassemble((LangCode *)code->consts[i].o);
}

static int
run_disassembler(LangInterp *interp, const char *path)
{
  g_autofree char *text = NULL;
  if (!g_file_get_contents(path, &text, NULL, NULL))
    return 2;
  LangState *L = lang_interp_state(interp);
  LangValue code = lang_compile_source(L, text, -1, path, 0);
  if (lang_is_exc(code))
    return report_uncaught(L);
  disassemble((LangCode *)code.o);
  lang_decref(code);
  return 0;
}

/* ---- options and the event stream --------------------------------------------------------- */

typedef struct {
  char *code;      /* -c CODE */
  char *dis;       /* --dis FILE */
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
    {"dis", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, &options.dis,
     "Print the bytecode of FILE.py and exit", "FILE.py"},
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

static void
collect_event(const TrEvent *ev, gpointer user_data)
{
  g_ptr_array_add(user_data, tr_event_ref((TrEvent *)ev));
}

/* --report, --events, --perfetto. Returns false when a file could not be written. */
static bool
write_outputs(GPtrArray *events)
{
  bool ok = true;
  g_autoptr(GError) error = NULL;
  if (options.events && !tr_events_write_jsonl(events, options.events, &error)) {
    fprintf(stderr, "trellis: --events: %s\n", error->message);
    g_clear_error(&error);
    ok = false;
  }
  if (options.perfetto && !tr_events_write_perfetto(events, options.perfetto, &error)) {
    fprintf(stderr, "trellis: --perfetto: %s\n", error->message);
    ok = false;
  }
  if (options.report) {
    g_autofree char *text = tr_report_from_events(events);
    printf("\n== trellis --report: traced Functions ==\n%s",
           *text ? text : "no Function was called\n");
  }
  return ok;
}

static int
run(LangInterp *interp, int argc, char **argv, int program)
{
  if (options.code)
    return run_source(interp, options.code, -1, "<string>");
  if (program < argc && g_str_has_suffix(argv[program], ".ipynb"))
    return run_notebook(interp, argv[program]);
  if (program < argc)
    return run_file(interp, argv[program]);
  return run_prompt(interp);
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
  if (options.dis) {
    LangInterp *interp = lang_interp_new(NULL);
    int status = run_disassembler(interp, options.dis);
    lang_interp_free(interp);
    return status;
  }
  if ((options.events && !check_writable("--events", options.events)) ||
      (options.perfetto && !check_writable("--perfetto", options.perfetto)))
    return 2;

  g_autoptr(GPtrArray) args = g_ptr_array_new();
  if (options.code)
    g_ptr_array_add(args, "-c");
  for (int i = program; i < argc; i++)
    g_ptr_array_add(args, argv[i]);
  if (args->len == 0)
    g_ptr_array_add(args, "");
  g_ptr_array_add(args, NULL);

  LangInterp *interp = lang_interp_new((const char *const *)args->pdata);
  LangState *L = lang_interp_state(interp);
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func((GDestroyNotify)tr_event_unref);
  if (options.report || options.events || options.perfetto)
    tr_event_bus_subscribe(lang_tf_event_bus(L), collect_event, events, NULL, true);
  if (options.eager)
    tr_fn_registry_set_run_eagerly(lang_tf_registry(L), true);
  int status = run(interp, argc, argv, program);
  fflush(stdout);
  if (!write_outputs(events) && status == 0)
    status = 1;
  fflush(stdout);
  lang_interp_free(interp);
  return status;
}
