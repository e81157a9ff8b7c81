/* kernel-private.h — the protocol engine's parts, shared by the files of kernel/ only.
 *
 *   kernel-connection.c  the connection file
 *   kernel-wire.c        frames <-> messages: HMAC signing and checking, replay guard, headers
 *   kernel-history.c     the on-disk input history (JSON lines), shared by every kernel
 *   kernel-engine.c      sockets, threads, the dispatcher, iopub publishing, stdin, interrupts
 *   kernel-handlers.c    the message table: one row per msg_type, and its handlers
 *   kernel-debug.c       trace events for debuggers: publisher, requests (kernel-debug.h)
 *   kernel-dap.c         Jupyter's debug protocol, debugpy behind it (kernel-dap.h)
 *
 * Threads: the main thread owns shell, stdin and runs cells; the control thread owns control;
 * the iopub thread owns the PUB socket and forwards what the other two push to it over
 * inproc; the heartbeat thread echoes; the debug thread owns the debug protocol's sockets. No
 * ZeroMQ socket is used from two threads: sockets are created and bound on the main thread
 * before the others start, then handed over.
 */
#pragma once

#include "kernel-interp.h"
#include "tr-wire.h"

#include <glib.h>
#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>

G_BEGIN_DECLS

/* The protocol version this kernel speaks. */
#define TK_PROTOCOL_VERSION "5.3"
/* How many message digests the replay guard remembers (jupyter_client's Session uses 2^16). */
#define TK_REPLAY_HISTORY 65536
/* The most routing-id frames and buffer frames accepted in one message. */
#define TK_MAX_IDENTITIES 64
#define TK_MAX_BUFFERS    256
/* The largest frame a channel accepts by default (ZMQ_MAXMSGSIZE; `--max-message-size`):
 * ZeroMQ reads a frame's size before its bytes and disconnects a peer that announces more, so
 * no peer, signed or not, makes the kernel hold a larger one. A 64 MiB cell fits. */
#define TK_MAX_FRAME_SIZE ((int64_t)128 << 20)
/* The largest frame an XPUB (only subscriptions come in) or the heartbeat (only pings) accepts. */
#define TK_MAX_SUBSCRIPTION_SIZE ((int64_t)64 << 10)

#define TK_ERROR (tk_error_quark())
GQuark tk_error_quark(void);
typedef enum {
  TK_ERROR_CONNECTION, /* unusable connection file */
  TK_ERROR_SOCKET,     /* ZeroMQ refused */
  TK_ERROR_MESSAGE,    /* a malformed or unsigned message */
} TkErrorCode;

/* ---- connection file (kernel-connection.c) -------------------------------------------- */

typedef enum {
  TK_CHANNEL_SHELL,
  TK_CHANNEL_CONTROL,
  TK_CHANNEL_STDIN,
  TK_CHANNEL_IOPUB,
  TK_CHANNEL_HB,
  TK_N_CHANNELS
} TkChannel;

typedef struct {
  char *path;               /* where it was read from (rewritten when ports were 0) */
  char *transport;          /* "tcp" or "ipc" */
  char *ip;                 /* address (tcp) or path prefix (ipc) */
  int ports[TK_N_CHANNELS]; /* 0: let the kernel pick, then write the file back */
  char *key;                /* HMAC key; empty disables signing */
  char *signature_scheme;   /* "hmac-sha256" and friends */
  json_t *json;             /* the whole file, to write back unknown fields unchanged */
} TkConnection;

TkConnection *tk_connection_load(const char *path, GError **error);
void tk_connection_free(TkConnection *conn);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TkConnection, tk_connection_free)
const char *tk_channel_name(TkChannel channel); /* "shell", "iopub", … */
/* "tcp://127.0.0.1:5555", or with port 0 "tcp://127.0.0.1:*". Transfer full. */
char *tk_connection_endpoint(const TkConnection *conn, TkChannel channel);
/* Write the file back with the ports actually bound. */
gboolean tk_connection_save(TkConnection *conn, GError **error);

/* ---- wire format (kernel-wire.c) --------------------------------------------------------- */

/* Signs and checks messages with one key: core/wire's signer (tr-wire.h), shared with the
 * debugger, here over GBytes frames. */
typedef TrWireSigner TkSigner;
/* NULL with `error` for an unknown scheme. An empty key disables signing. Transfer full. */
TkSigner *tk_signer_new(const char *scheme, const char *key, GError **error);
/* Copied, freed and asked whether it signs with tr_wire_signer_copy, _free and _enabled. */
/* Hex digest of the four parts. Transfer full. */
char *tk_signer_sign(TkSigner *signer, GBytes *const parts[4]);
/* Constant-time check of `signature` against the four parts. */
bool tk_signer_verify(TkSigner *signer, GBytes *signature, GBytes *const parts[4]);
/* The same over any list of frames (the debug protocol signs other frame lists). */
char *tk_signer_sign_frames(TkSigner *signer, GBytes *const *parts, guint n);
bool tk_signer_verify_frames(TkSigner *signer, GBytes *signature, GBytes *const *parts, guint n);

/* Remembers recent signatures so that a replayed message is refused. Thread-safe (shell and
 * control share one). Bounded: the oldest digest is forgotten first. */
typedef struct TkReplayGuard TkReplayGuard;
TkReplayGuard *tk_replay_guard_new(guint capacity);
void tk_replay_guard_free(TkReplayGuard *guard);
/* FALSE when `digest` was seen before; otherwise remembers it (its first 32 bytes: 128 bits of
 * a verified hex HMAC). */
bool tk_replay_guard_check(TkReplayGuard *guard, GBytes *digest);

/* A received message. */
typedef struct {
  GPtrArray *identities; /* GBytes*: routing ids before <IDS|MSG>, owned */
  GBytes *header_raw;    /* the header frame as received: our replies' parent_header */
  json_t *header;        /* owned */
  json_t *parent_header; /* owned */
  json_t *metadata;      /* owned */
  json_t *content;       /* owned */
  GPtrArray *buffers;    /* GBytes*, owned */
  const char *msg_type;  /* borrowed from header */
  const char *msg_id;    /* borrowed from header */
} TkMessage;

/* Parse received frames (GBytes*). NULL with `error` saying why the message is dropped:
 * no delimiter, missing frames, bad or missing signature, replay, malformed JSON, a header
 * without msg_id/msg_type. Transfer full. */
TkMessage *tk_message_parse(GPtrArray *frames, TkSigner *signer, TkReplayGuard *guard,
                            GError **error);
void tk_message_free(TkMessage *msg);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TkMessage, tk_message_free)

typedef struct TkIopubState TkIopubState;

/* Everything one thread needs to build and send messages. One per thread. */
typedef struct {
  TkSigner *signer;          /* owned */
  const char *session;       /* the kernel's session id, borrowed */
  atomic_uint *counter;      /* shared msg_id counter, borrowed */
  void *iopub;               /* the XPUB socket, shared by every sender, borrowed */
  GMutex *iopub_lock;        /* held while one whole message goes out on `iopub`, borrowed */
  TkIopubState *iopub_state; /* what the XPUB socket has told of subscribers, shared, borrowed */
} TkSender;

/* Whether a client subscribed to iopub yet (guarded by the iopub lock). */
struct TkIopubState {
  bool subscribed; /* a subscription arrived */
  bool waited;     /* a wait for one ran out once: later requests do not wait */
};

/* Waits, at most `timeout_ms` and only until the first subscription, for a client's iopub
 * subscription to reach the kernel (ZeroMQ's slow joiner: what is published before it is lost,
 * and a client that asked kernel_info and then executes would wait forever for the idle it
 * missed). Returns whether a client is subscribed. */
bool tk_iopub_wait_subscriber(TkSender *sender, int timeout_ms);

/* Build, sign and send one message on `socket` (ROUTER: `identities` route it; PUSH to
 * iopub: identities NULL, the topic is the msg_type). `content` is stolen. FALSE (logged) if
 * ZeroMQ refused. */
bool tk_send(TkSender *sender, void *socket, GPtrArray *identities, const char *msg_type,
             const TkMessage *parent, json_t *content);
/* Publish on iopub with `parent` as parent header (may be NULL). `content` is stolen. */
bool tk_publish(TkSender *sender, const char *msg_type, const TkMessage *parent, json_t *content);
/* Receive one multipart message: GBytes* frames, NULL on EAGAIN/EINTR/ETERM. */
GPtrArray *tk_recv_frames(void *socket, int flags);
/* The same, with `*fd` the file descriptor of the connection it came over (-1 if unknown). */
GPtrArray *tk_recv_frames_fd(void *socket, int flags, int *fd);
/* A JSON string of `len` bytes (-1: NUL-terminated), made valid UTF-8 if it is not. */
json_t *tk_json_string(const char *text, gssize len);
/* Log a dropped message to stderr with its reason. */
void tk_log_dropped(const char *channel, const GError *error);

/* ---- history (kernel-history.c) ---------------------------------------------------------- */

typedef struct TkHistory TkHistory;
/* $TRELLIS_HISTORY_FILE or $XDG_DATA_HOME/trellis/history.jsonl. Opens lazily. */
TkHistory *tk_history_new(void);
void tk_history_free(TkHistory *history);
/* This kernel's session number (allocated on first use). */
int tk_history_session(TkHistory *history);
/* Queue In[line] (and its text/plain Out, or NULL) for the file. */
void tk_history_add(TkHistory *history, int line, const char *source, const char *output);
/* Append what is queued to the file. Failures are logged, not fatal. */
void tk_history_flush(TkHistory *history);
/* The last `n` entries over all sessions, oldest first. Each entry is the protocol's
 * [session, line, input] or, with `output`, [session, line, [input, output]]. Transfer full. */
json_t *tk_history_tail(TkHistory *history, int n, bool output);
/* Lines [start, stop) of `session` (0: this one, negative: counted back; stop 0: to the end). */
json_t *tk_history_range(TkHistory *history, int session, int start, int stop, bool output);
/* Entries whose input matches the glob `pattern`: the last `n` (n <= 0: all), with `unique`
 * only the latest of equal inputs. */
json_t *tk_history_search(TkHistory *history, const char *pattern, int n, bool unique, bool output);

/* ---- engine (kernel-engine.c) ------------------------------------------------------------ */

typedef struct TkKernel TkKernel;

typedef struct TkHandlerRow TkHandlerRow;

/* Per-thread context a handler runs in. */
typedef struct {
  TkKernel *kernel;        /* borrowed */
  TkChannel channel;       /* where the request came from: SHELL or CONTROL */
  void *socket;            /* that channel's ROUTER socket */
  TkSender *sender;        /* this thread's sender */
  const TkHandlerRow *row; /* the table row of the request being handled */
  int peer_fd;             /* the connection the request came over (ZMQ_SRCFD), or -1 */
} TkContext;

/* An execute_request's content, checked. Borrowed from the request. */
typedef struct {
  TkCell cell;              /* what the interpreter sees */
  json_t *code;             /* the code as a JSON string, echoed in execute_input */
  json_t *user_expressions; /* object: name -> expression string */
  bool stop_on_error;       /* abort the queued executes if this one fails */
} TkExecRequest;

/* Reply on the request's own channel, with msg_type from the table. `content` is stolen. */
void tk_reply(TkContext *ctx, const TkMessage *request, json_t *content);
/* Error reply content: {"status":"error", ename, evalue, traceback: []}. Transfer full. */
json_t *tk_error_content(const char *ename, const char *evalue);

/* Accessors that the handlers use. */
TkInterp *tk_kernel_interp(TkKernel *kernel);
TkHistory *tk_kernel_history(TkKernel *kernel);
const TkConnection *tk_kernel_connection(TkKernel *kernel);
/* The debug protocol's server (kernel-dap.h), used on the control thread. */
struct TkDap *tk_kernel_dap(TkKernel *kernel);
/* Run one execute_request on the main thread and reply (kernel-engine.c owns the cell IO). */
void tk_kernel_execute(TkContext *ctx, const TkMessage *request, const TkExecRequest *exec);
/* Interrupt the running cell, if any. Async-signal-safe. */
void tk_kernel_interrupt(TkKernel *kernel);
/* interrupt_request: interrupt, and wake the main thread if it waits for input. */
void tk_kernel_interrupt_from(TkContext *ctx);
/* Stop the kernel after the current request (shutdown_request). */
void tk_kernel_request_stop(TkContext *ctx);

/* How a kernel runs (trellis-kernel's options). */
typedef struct {
  const char *events_file;  /* NULL, or every trace event as a JSON line to this file */
  bool eager;               /* functions run eagerly from the start */
  int64_t max_message_size; /* the largest frame the channels accept; 0: TK_MAX_FRAME_SIZE */
} TkKernelOptions;

/* Serve the connection file's sockets with `interp` (taken over: freed at the end) until a
 * shutdown_request arrives. Both interrupt modes are always on: SIGINT and interrupt_request.
 * The trace events of every session also go to debuggers (kernel-debug.h). */
gboolean tk_kernel_run(const char *connection_file, const TkKernelOptions *options,
                       TkInterp *interp, GError **error);

/* ---- message table (kernel-handlers.c) --------------------------------------------------- */

typedef void (*TkHandler)(TkContext *ctx, const TkMessage *request);

struct TkHandlerRow {
  const char *msg_type;   /* the request's type */
  const char *reply_type; /* the reply's type, or NULL for none */
  TkHandler handler;      /* runs on the thread owning `channels` */
  unsigned channels;      /* bit set of TkChannel the request is accepted on */
  bool busy_idle;         /* publish status busy/idle around it */
};

/* The row for `msg_type`, or NULL. */
const TkHandlerRow *tk_handler_find(const char *msg_type);
/* Answer a queued execute_request with an "aborted" reply (stop_on_error). */
void tk_handler_abort_execute(TkContext *ctx, const TkMessage *request);
/* Convert between Jupyter's code-point cursors and byte offsets into UTF-8 `code`. */
size_t tk_cursor_to_byte(const char *code, gint64 cursor);
gint64 tk_byte_to_cursor(const char *code, size_t byte);

G_END_DECLS
