/* kernel-interp.h — the narrow interface between the Jupyter protocol engine and an interpreter.
 *
 * The engine (kernel-engine.c and friends) speaks the Jupyter messaging protocol: sockets,
 * signatures, the message table, busy/idle, history, stdin, interrupts. It knows nothing of
 * Python. An interpreter knows nothing of Jupyter: it runs a cell and reports what the
 * cell does through the TkCellIO callbacks below, which the engine turns into iopub messages.
 * A TkInterp is a struct of function pointers plus the interpreter's own state (`self`);
 * kernel-py-interp.c puts embedded CPython (core/py) behind it.
 *
 * Threading. Every function except `interrupt`, `set_eager` and `debug` is called on the
 * kernel's main thread, one at a time. `interrupt` may be called at any moment from the control
 * thread (message-mode interrupts) or from a SIGINT handler on the main thread (signal-mode
 * interrupts), so it must be async-signal-safe: set an atomic flag and nothing else. The engine
 * forwards an interrupt only while `execute` or `evaluate` is running, so an interrupt that arrives
 * between cells is dropped. `execute` and `evaluate` clear the flag when they start: one that raced
 * with the end of the previous cell is stale and must not interrupt the next. A running cell checks
 * the flag at loop back-edges, calls and blocking waits and raises KeyboardInterrupt.
 *
 * Positions. Code is UTF-8; every cursor and offset in this interface is a byte offset into
 * that code. The engine converts Jupyter's code-point cursors both ways.
 *
 * Ownership. Strings passed to the interpreter are borrowed for the call. json_t values passed
 * to a TkCellIO callback are borrowed (the engine takes its own references); json_t and
 * strings returned through out-parameters are transfer full and freed by the engine.
 */
#pragma once

#include <glib.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "tr-events.h"

G_BEGIN_DECLS

G_DEFINE_AUTOPTR_CLEANUP_FUNC(json_t, json_decref)

/* How a cell ended. */
typedef enum {
  TK_EXEC_OK,      /* ran to the end */
  TK_EXEC_ERROR,   /* raised; the error was reported through TkCellIO.error first */
  TK_EXEC_ABORTED, /* not run at all (the interpreter refused it); reported as "aborted" */
} TkExecStatus;

typedef enum {
  TK_STREAM_STDOUT,
  TK_STREAM_STDERR,
} TkStream;

/* One execute_request, as the interpreter needs it. Borrowed for the call. */
typedef struct {
  const char *code;    /* the cell's source, UTF-8 */
  bool silent;         /* run quietly: the engine drops every output of a silent cell */
  bool store_history;  /* the cell counts: In[execution_count] */
  bool allow_stdin;    /* input() may ask the frontend; otherwise TkCellIO.input fails */
  int execution_count; /* the number shown as In[n] and in tracebacks ("Cell In[n]") */
} TkCell;

/* What a running cell reports through. The engine owns these callbacks; `ctx` is its state
 * and must be passed back unchanged. Every callback is synchronous: when it returns, the output
 * has been handed to iopub (no batching), so output always precedes the cell's idle. */
typedef struct {
  void *ctx;
  /* print() and friends: `len` bytes of UTF-8 text (need not end in a newline). */
  void (*stream)(void *ctx, TkStream stream, const char *text, size_t len);
  /* display(obj): a MIME bundle {"text/plain": "...", ...}, its metadata and transient data
   * ({"display_id": ...}; both may be NULL). `update`: an update_display_data of the output
   * shown earlier with the same display_id. */
  void (*display)(void *ctx, json_t *data, json_t *metadata, json_t *transient, bool update);
  /* The value of the cell's last expression (Out[n]). */
  void (*result)(void *ctx, json_t *data, json_t *metadata);
  /* clear_output(wait): clear the cell's output, now or when the next output arrives. */
  void (*clear_output)(void *ctx, bool wait);
  /* An exception's traceback: class name, str(exception) and traceback lines (each may
   * contain newlines and ANSI colours). The last one reported before execute returns ERROR is
   * the cell's error (a broken _repr_html_ reports one and the cell still succeeds). */
  void (*error)(void *ctx, const char *ename, const char *evalue, const char *const *traceback,
                size_t n_traceback);
  /* An execute_reply payload: {"source": "page" | "set_next_input" | "ask_exit", ...}. An
   * ask_exit payload without keepkernel also stops the kernel once the reply is sent. */
  void (*payload)(void *ctx, json_t *payload);
  /* input(prompt) / getpass(prompt): asks the frontend over stdin and blocks until the answer.
   * Returns the line (transfer full, without its newline), or NULL with `error` set to a
   * Python exception name and message: "KeyboardInterrupt" when interrupted while waiting,
   * "StdinNotImplementedError" when the request did not allow stdin. Transfer full. */
  char *(*input)(void *ctx, const char *prompt, bool password, char **ename, char **evalue);
} TkCellIO;

/* is_complete: would the frontend run this code on Enter, or ask for another line? */
typedef enum {
  TK_COMPLETE,   /* a whole cell */
  TK_INCOMPLETE, /* needs more lines; `indent` says what the next line starts with */
  TK_INVALID,    /* a syntax error that more lines cannot fix */
  TK_UNKNOWN,    /* the interpreter cannot tell */
} TkCompleteness;

/* A completion: candidates that replace code[start, end). */
typedef struct {
  GPtrArray *matches; /* char*, owned (g_free); in display order, no duplicates */
  size_t start;       /* byte offset of the replaced text */
  size_t end;         /* byte offset just after it (usually the cursor) */
  json_t *types;      /* NULL, or each match's {start, end, text, type, signature} with
                       * code-point offsets: the reply's metadata._jupyter_types_experimental
                       * (owned by the engine once set) */
} TkCompletion;

/* An interpreter: its state and its operations. The engine owns it and calls `free` last. */
typedef struct {
  void *self; /* the interpreter's state, passed to every function below */

  /* Language facts for kernel_info_reply. Borrowed, static. */
  const char *language_version;       /* e.g. "3.11.2" */
  const char *implementation_version; /* the interpreter's version */
  const char *banner;                 /* shown by jupyter console */

  /* Run one cell on the main thread, reporting through `io`. */
  TkExecStatus (*execute)(void *self, const TkCell *cell, const TkCellIO *io);
  /* One user_expressions entry, evaluated after a successful cell: a MIME bundle (transfer
   * full), or NULL with `ename`/`evalue` set (transfer full). Must not print. */
  json_t *(*evaluate)(void *self, const char *expression, char **ename, char **evalue);
  /* Completions at byte `cursor`: names in scope, attributes after `.`, module members,
   * keywords. Fills `out` (matches already allocated by the engine). */
  void (*complete)(void *self, const char *code, size_t cursor, TkCompletion *out);
  /* The object at byte `cursor`: a MIME bundle with its signature and docstring (transfer
   * full), or NULL when nothing is found. detail_level 1 asks for more (e.g. source). */
  json_t *(*inspect)(void *self, const char *code, size_t cursor, int detail_level);
  /* Whether `code` is a whole cell. For TK_INCOMPLETE, `*indent` is the next line's
   * indentation (transfer full); otherwise leave it NULL. */
  TkCompleteness (*is_complete)(void *self, const char *code, char **indent);
  /* Async-signal-safe: ask the running cell to raise KeyboardInterrupt. See the top. */
  void (*interrupt)(void *self);
  /* Forget every name and value (a fresh session) without re-creating the interpreter. */
  void (*reset)(void *self);
  /* Emit trace events on `bus` (a reference is taken), in this session and every session that
   * `reset` makes, so that the kernel keeps one numbered stream. Called once, after init and
   * before the first cell. May be NULL for an interpreter without trace events. */
  void (*use_events)(void *self, TrEventBus *bus);
  /* tf.config.run_functions_eagerly(on) in the running session. Thread-safe: called from the
   * debug thread, also while a cell runs or a reset happens. May be NULL. */
  void (*set_eager)(void *self, bool on);
  /* The debug protocol's requests that need the interpreter (kernel-dap.c): `command` with
   * its `arguments` (a JSON object, borrowed). Returns the result (a JSON value, transfer full),
   * or NULL with `*message` (transfer full) saying why it failed. Called on the control thread,
   * also while a cell runs or is stopped at a breakpoint. May be NULL. */
  json_t *(*debug)(void *self, const char *command, json_t *arguments, char **message);
  /* Free `self`. */
  void (*free)(void *self);
} TkInterp;

/* Embedded CPython (kernel-py-interp.c); returns FALSE with `error` set when it cannot start. */
gboolean tk_py_interp_init(TkInterp *interp, GError **error);

G_END_DECLS
