/* lang-interp.h — one interpreter session: what the command line and the kernel drive.
 *
 * A LangInterp owns a LangState with the VM installed, the `__main__` namespace that every cell
 * shares, and the modules written for the cell language on top of the VM (contextlib, traceback,
 * timeit). Sources run under a filename ("<cell 3>", a script path) that tracebacks name, and
 * inside a cell whose start and end the session's trace events record.
 */
#pragma once

#include "lang-vm.h"

G_BEGIN_DECLS

typedef struct LangInterp LangInterp;

/* Front-end hooks for notebook helpers; every member may be NULL (then display() prints the
 * repr to stdout and clear_output() does nothing). */
typedef struct {
  /* display(obj): publish one object (borrowed). Return false with an exception raised. */
  bool (*display)(void *data, LangState *L, LangValue obj);
  /* clear_output(wait=...) */
  void (*clear_output)(void *data, bool wait);
  void *data; /* passed to the hooks */
} LangFrontend;

/* A new session with sys.argv set to `argv` (may be NULL: [""]). Transfer full. */
LangInterp *lang_interp_new(const char *const *argv);
void lang_interp_free(LangInterp *interp);
LangState *lang_interp_state(LangInterp *interp);
/* The __main__ namespace (a dict). Borrowed. */
LangObject *lang_interp_globals(LangInterp *interp);
void lang_interp_set_frontend(LangInterp *interp, const LangFrontend *frontend);

/* Compiles and runs `source` as the unit `filename`. Returns true when it ran to the end; false
 * when an exception escaped: it is then pending in the state (print it with lang_exc_print(), or
 * take it with lang_exc_fetch()). With LANG_COMPILE_RESULT in `flags` and `result` not NULL,
 * *result receives the value of a trailing expression statement (new reference), or UNSET.
 *
 * Interrupts: lang_state_interrupt() from another thread (or a signal handler) while this runs
 * raises KeyboardInterrupt in the running code within milliseconds: at loop back-edges, calls
 * and inside time.sleep(). A request made while nothing runs is dropped when the next run
 * starts, so a late interrupt never kills the following cell. */
bool lang_interp_run(LangInterp *interp, const char *source, gssize len, const char *filename,
                     unsigned flags, LangValue *result);

/* Cells. A front end brackets each unit it runs for the user (a notebook cell, a script, a
 * prompt line) so that the session's event bus (lang_tf_event_bus) sees it: begin emits
 * cell_start with `cell` (the execution count: 1, 2, ...; 0 when the cell has none, e.g. a
 * silent execution before the first counted one) and the source, and makes `cell` the number
 * that call events carry; end emits cell_end with the span's duration and `ok`, and resets the
 * number to 0 (no cell). The bracket may hold several runs and whatever else the
 * front end does for the cell (the repr of its result, a pager request); cells do not nest. */
void lang_interp_cell_begin(LangInterp *interp, gint64 cell, const char *source, gssize len);
void lang_interp_cell_end(LangInterp *interp, bool ok);

/* The sources of a notebook's code cells, in order (char*, transfer full), or NULL with `error`
 * (LANG_NOTEBOOK_ERROR) when the file is not a readable notebook (lang-notebook.c). */
#define LANG_NOTEBOOK_ERROR (lang_notebook_error_quark())
GQuark lang_notebook_error_quark(void);
GPtrArray *lang_notebook_code_cells(const char *path, GError **error);
/* lang_interp_run inside cell_begin(cell, source) and cell_end. */
bool lang_interp_run_cell(LangInterp *interp, const char *source, gssize len, const char *filename,
                          gint64 cell, unsigned flags, LangValue *result);

G_END_DECLS
