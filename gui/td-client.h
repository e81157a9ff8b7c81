/* td-client.h — where the debugger's events come from: a running kernel (attach) or a
 * notebook or script run in-process (standalone). No GTK here: the GUI, the tests and the
 * benchmarks use it alike.
 *
 * Attach: a worker thread owns a SUB socket on the kernel's event publisher and a DEALER on
 * its request socket (both found in the discovery file beside the connection file; see
 * kernel/kernel-debug.h for the protocol). It subscribes, asks for a snapshot, then delivers
 * the live events numbered above the snapshot; a gap in the sequence numbers is filled with an
 * events_since request, or with a new snapshot when the kernel no longer keeps them. A kernel
 * that restarted (new session id) is met with a new snapshot.
 *
 * Standalone: a worker thread runs the notebook's code cells (or the script) with its own
 * Python session (core/py, one CPython per process, shared by turns), whose events are delivered
 * the same way; cell output goes to the
 * client's `output` callback.
 *
 * Delivery: callbacks run on the GMainContext given at creation (the GTK main loop), never on
 * the worker, in order. Events are delivered in batches.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>

#include "tr-state.h"

G_BEGIN_DECLS

typedef enum {
  TD_CLIENT_CONNECTING, /* looking for the kernel, waiting for the snapshot */
  TD_CLIENT_LIVE,       /* snapshot loaded, live events flowing */
  TD_CLIENT_RUNNING,    /* standalone: cells are running */
  TD_CLIENT_FINISHED,   /* standalone: every cell ran (message: "ok" or the error) */
  TD_CLIENT_LOST,       /* the kernel stopped answering or went away */
  TD_CLIENT_FAILED,     /* could not start (message says why) */
} TdClientStatus;

typedef struct {
  /* A new state to show (the first snapshot, or a re-sync). Transfer full. */
  void (*snapshot)(TrState *state, gpointer data);
  /* Live events above the last snapshot, in sequence order: TrEvent*. Transfer full. */
  void (*events)(GPtrArray *events, gpointer data);
  /* The connection's state changed. `message` is borrowed, may be NULL. */
  void (*status)(TdClientStatus status, const char *message, gpointer data);
  /* Standalone: text a cell printed (stdout and stderr). Borrowed. May be NULL. */
  void (*output)(const char *text, gsize len, bool is_stderr, gpointer data);
} TdClientCallbacks;

typedef struct _TdClient TdClient;

/* How many events the states of snapshots keep (tr_state_new's keep_events): every event of a
 * session of 16 million (4 million cached calls), in 32-byte records (tr-event-log.h); past
 * that the oldest are dropped, and the window says how many (tr_state_events_missing). */
#define TD_CLIENT_KEEP_EVENTS (16u << 20)

/* Failures to start a client: unreadable connection, discovery, notebook or script file; or
 * a connection file of a kernel that is not Trellis (no discovery file beside it). */
#define TD_CLIENT_ERROR (td_client_error_quark())
GQuark td_client_error_quark(void);
typedef enum { TD_CLIENT_ERROR_FILE, TD_CLIENT_ERROR_NOT_TRELLIS } TdClientError;

/* Attach to the kernel of `connection_file`. FALSE-y (NULL + error) when the connection file or
 * its discovery file cannot be read. Transfer full. */
TdClient *td_client_new_attach(const char *connection_file, const TdClientCallbacks *callbacks,
                               gpointer data, GMainContext *context, GError **error);
/* Run `path` (.ipynb or .py) in-process. Transfer full. */
TdClient *td_client_new_local(const char *path, const TdClientCallbacks *callbacks, gpointer data,
                              GMainContext *context, GError **error);
/* Flip run_functions_eagerly in the kernel (or the local session); the eager_mode event that
 * follows reaches every attached debugger. */
void td_client_set_eager(TdClient *client, bool enabled);
/* Stop the worker (a standalone run is interrupted) and free. No callback runs after. */
void td_client_free(TdClient *client);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TdClient, td_client_free)

/* A running kernel found in a Jupyter runtime directory. */
typedef struct {
  char *connection_file; /* path of its connection file */
  char *discovery_file;  /* path of its trellis-debug-*.json */
  gint64 pid;            /* kernel process id */
  char *started;         /* ISO 8601 start time */
} TdKernelInfo;

void td_kernel_info_free(TdKernelInfo *info);
/* The discovery file of a connection file, in its directory: kernel-<id>.json ->
 * trellis-debug-<id>.json, any other <stem>.json -> trellis-debug-<stem>.json. Transfer full. */
char *td_discovery_path(const char *connection_file);
/* Running Trellis kernels in `runtime_dir` (NULL: Jupyter's runtime directory, i.e.
 * $JUPYTER_RUNTIME_DIR or $XDG_RUNTIME_DIR/jupyter or ~/.local/share/jupyter/runtime), newest
 * first; discovery files of dead processes are skipped. TdKernelInfo*, transfer full. */
GPtrArray *td_kernel_list(const char *runtime_dir);

G_END_DECLS
