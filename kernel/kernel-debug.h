/* kernel-debug.h — the kernel's debug protocol: trace events for debuggers (kernel side; the
 * client side is gui/td-client.c).
 *
 * The kernel folds every event of its bus into a TrState (core/trace/tr-state.h, keeping
 * 100000 events) and publishes them on an extra PUB socket; an extra ROUTER socket answers
 * state snapshots, the eager switch and gap fills. Several debuggers may attach at once, at any
 * time (ZeroMQ guide's "clone" pattern: snapshot, then live updates, sequence numbers to find
 * gaps).
 *
 * Discovery file: in the directory of the connection file. Connection file `kernel-<id>.json`
 * -> `trellis-debug-<id>.json`; any other name `<stem>.json` -> `trellis-debug-<stem>.json`
 * (never a `kernel-` prefix: Jupyter's tools take kernel-*.json for connection files). Written
 * atomically (g_file_set_contents, mode 0600) once both sockets are bound; removed at shutdown
 * (shutdown_request, SIGTERM, SIGHUP, end of main). Content:
 *   {"version": 1, "pid": 1234, "connection_file": "/abs/kernel-<id>.json",
 *    "events": "tcp://127.0.0.1:PORT", "requests": "tcp://127.0.0.1:PORT",
 *    "session": "<uuid of this kernel process>", "started": "2026-11-25T22:40:00Z"}
 * The key is NOT in it: a client reads `key` and `signature_scheme` from the connection file.
 * Endpoints use the connection file's transport and ip (tcp: bind "tcp://IP:*" and read
 * ZMQ_LAST_ENDPOINT; ipc: "<ip>-trellis-events" / "<ip>-trellis-requests" sockets next to the
 * others).
 *
 * Signatures: HMAC (the connection's signature_scheme, normally hmac-sha256) with the
 * connection's key, hex digest, over the frames listed below in order (the HMAC updated with
 * each frame). An empty key disables signing (empty signature frame), as in Jupyter.
 *
 * Events (PUB, kernel -> debuggers): every message is 3 frames:
 *   [b"trellis.events", signature over (frame 0, frame 2), body]
 *   body = {"session": "<uuid>", "events": [tr_event_to_json(ev), ...]}  (consecutive seq,
 *   ascending)
 * The publisher sends whatever events are pending as one message (at most 1024 events a
 * message). While no debugger is subscribed nothing is serialised (the socket is an XPUB that
 * sees subscriptions; for a SUB it is an ordinary PUB).
 *
 * Requests (ROUTER in the kernel, DEALER in a client): request frames after the routing id(s):
 *   [signature over (body), body]   body = {"id": "<unique per request>", "type": T, ...}
 * Reply: [routing id(s), signature over (body), body],
 *   body = {"id": same id, "type": "<T>_reply", "status": "ok" | "error", "session": "<uuid>",
 *   ...}; status "error" carries "error": "<text>".
 *   T = "snapshot"      -> "snapshot": tr_state_to_json(state, 20000) (its "seq" is the last
 *                          event it holds)
 *   T = "events_since"  with "seq": N -> "events": [every kept event numbered > N], or status
 *                          error with "error": "truncated" when some are no longer kept (the
 *                          client then takes a new snapshot)
 *   T = "set_eager"     with "enabled": bool -> flips tf.config.run_functions_eagerly in the
 *                          running session at once (even while a cell runs); the eager_mode
 *                          event that follows goes to every debugger. Reply "enabled": the new
 *                          value.
 *   T = "ping"          -> nothing more.
 * A request whose signature is missing or wrong, or that replays an earlier signature (bounded
 * digest history, like the kernel's shell channel), or whose body is not a JSON object with a
 * string "id" and "type", is refused: it is logged to stderr and answered with status "error"
 * and "error": "invalid signature" / "replayed message" / "malformed request" / "unknown
 * request type" (the reply itself is signed; its "id" is the request's when it could be read,
 * else null, and its "type" is "error_reply" when the request named none). It is never acted
 * on.
 *
 * Consistency: the kernel folds every event into the TrState inside the bus subscriber, under
 * the debug module's lock, and queues it for the publisher. A snapshot is taken under the same
 * lock, so every event numbered above its seq is still to be published (or was published
 * after). A client subscribes first, then asks for the snapshot, drops live events <= snapshot
 * seq, applies the rest, and fills any gap with events_since.
 *
 * Threads: the sockets are made and bound on the main thread, then owned by the "tk-debug"
 * thread. The subscriber runs on whichever thread emits (main; the debug thread itself for
 * set_eager): it only applies, queues and wakes the debug thread through an eventfd, so the
 * JSON is made off the cell's thread.
 *
 * `trellis-kernel --events FILE.jsonl` also writes every event as a JSON line to FILE, flushed
 * after every cell_end and eager_mode event and at exit.
 */
#pragma once

#include "kernel-private.h"
#include "tr-events.h"

G_BEGIN_DECLS

/* How many events the kernel's state keeps for events_since and snapshots, and about how many
 * bytes of them at most (a trace's event carries its graph's JSON); a client further behind
 * takes a snapshot. */
#define TK_DEBUG_KEEP_EVENTS      20000
#define TK_DEBUG_KEEP_EVENT_BYTES (32u << 20)
/* How many cells the kernel's state keeps (their sources and spans); older ones are dropped and
 * counted (the snapshot's "cells_dropped"). Per-Function counts are exact whatever is dropped. */
#define TK_DEBUG_KEEP_CELLS 10000
/* How many events a snapshot carries. */
#define TK_DEBUG_SNAPSHOT_EVENTS 20000
/* The most events in one published message. */
#define TK_DEBUG_MAX_BATCH 1024

typedef struct TkDebug TkDebug;

/* Flip run_functions_eagerly in the running session; called on the debug thread. */
typedef void (*TkDebugEagerFunc)(bool enabled, gpointer data);

/* Subscribe to `bus`, open `events_file` (may be NULL), bind the two sockets in `zctx` on the
 * connection's transport and ip, and write the discovery file. `session` is the kernel's
 * session id (copied); `signer` is copied. Call on the main thread. NULL with `error` when a
 * socket cannot be bound or a file cannot be written. Transfer full. */
TkDebug *tk_debug_new(void *zctx, const TkConnection *conn, const TkSigner *signer,
                      const char *session, TrEventBus *bus, const char *events_file,
                      TkDebugEagerFunc eager, gpointer eager_data, GError **error);
/* Start the debug thread: it owns the sockets from now on. */
void tk_debug_start(TkDebug *debug);
/* Stop the thread, close the sockets and remove the discovery file. The subscriber stays: the
 * state and the events file still see what is emitted until tk_debug_free. */
void tk_debug_stop(TkDebug *debug);
/* Unsubscribe, flush and close the events file, free. */
void tk_debug_free(TkDebug *debug);

/* The discovery file's path for a connection file (see above). Transfer full. */
char *tk_debug_discovery_path(const char *connection_file);

G_END_DECLS
