/* kernel-debug.c — the debug protocol's kernel side (see kernel-debug.h): the events
 * publisher, the request socket, the discovery file and the --events file.
 *
 * The bus subscriber runs on the emitting thread under the module's lock: it folds the event
 * into the state, queues a compact copy for the publisher (a TrEventLog: a cached call's events
 * are views the subscriber does not keep, so they cost no allocation), appends the event's JSON
 * line to the
 * --events file when there is one, and wakes the debug thread through an eventfd when the queue
 * was empty and a debugger listens. While none does, the thread sleeps through cells (a wake-up
 * per cell would cost every execute a thread switch) and the queue is cut back now and then: the
 * state has every event, and a debugger that subscribes gets what is queued and asks for the
 * rest with events_since. Everything else — JSON for the wire, signing, sending, answering requests
 * — is the debug thread's, so a cell pays only for the fold and the queue.
 *
 * The publisher is an XPUB socket: it learns which topics debuggers subscribe to and skips the
 * JSON while nobody listens (the events are in the state anyway: a debugger that attaches
 * takes a snapshot).
 *
 * The discovery file is removed by tk_debug_stop and, should the kernel be terminated by
 * SIGTERM or SIGHUP, by a signal handler that unlinks it (its path is kept in a static buffer
 * for that) and then lets the signal take its default course.
 */
#include "kernel-debug.h"

#include "tr-event-log.h"
#include "tr-state.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

/* The events topic, frame 0 of every published message. */
#define EVENTS_TOPIC "trellis.events"
/* How long closing the sockets may wait to deliver the last messages. */
#define LINGER_MS 500
/* Most routing ids accepted before the signature and body of a request. */
#define MAX_REQUEST_FRAMES (TK_MAX_IDENTITIES + 2)
/* Digests remembered against replayed requests. */
#define REPLAY_HISTORY 4096
/* How long the publisher lets events gather after a wake-up. */
#define PUBLISH_DELAY_MS 2
/* Most events queued while no debugger listens. */
#define QUIET_QUEUE_LIMIT 1024
/* The largest request accepted. */
#define MAX_REQUEST_SIZE ((int64_t)1 << 20)

struct TkDebug {
  /* set up on the main thread, then the debug thread's */
  void *pub;              /* XPUB: events out, subscriptions in */
  void *router;           /* ROUTER: requests */
  TkSigner *signer;       /* the debug thread's copy */
  TkReplayGuard *replay;  /* signatures of requests seen */
  char *session;          /* the kernel's session id */
  char *discovery_path;   /* the discovery file, or NULL once removed */
  GHashTable *topics;     /* subscribed topics (GBytes) the XPUB reported */
  TkDebugEagerFunc eager; /* flips run_functions_eagerly */
  gpointer eager_data;    /* its data */
  int wake_fd;            /* eventfd: events queued, or stop */
  GThread *thread;        /* "tk-debug" */
  atomic_bool stopping;   /* the thread is asked to finish */
  TrEventBus *bus;        /* owned reference */
  guint subscription;     /* our subscriber on `bus` */

  /* shared with the subscriber: under `lock` */
  GMutex lock;
  TrState *state;    /* every event so far, folded */
  TrEventLog *queue; /* to publish */
  bool listening;    /* a debugger subscribed: set by the debug thread */
  FILE *events_out;  /* --events, or NULL */
  GString *line;     /* the --events line being written */
};

/* ---- the discovery file and signals ------------------------------------------------------ */

/* The discovery file a fatal SIGTERM/SIGHUP removes ("" when none). */
static char signal_discovery_path[PATH_MAX];

static void
on_fatal_signal(int signo)
{
  if (signal_discovery_path[0])
    unlink(signal_discovery_path);
  signal(signo, SIG_DFL);
  raise(signo);
}

static void
install_signal_cleanup(const char *path)
{
  if (strlen(path) >= sizeof signal_discovery_path)
    return;
  memcpy(signal_discovery_path, path, strlen(path) + 1);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_fatal_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
}

static void
remove_discovery_file(TkDebug *d)
{
  if (!d->discovery_path)
    return;
  signal_discovery_path[0] = '\0';
  signal(SIGTERM, SIG_DFL);
  signal(SIGHUP, SIG_DFL);
  if (unlink(d->discovery_path) < 0 && errno != ENOENT)
    g_printerr("trellis-kernel: cannot remove %s: %s\n", d->discovery_path, g_strerror(errno));
  g_clear_pointer(&d->discovery_path, g_free);
}

char *
tk_debug_discovery_path(const char *connection_file)
{
  g_autofree char *dir = g_path_get_dirname(connection_file);
  g_autofree char *base = g_path_get_basename(connection_file);
  const char *stem = g_str_has_prefix(base, "kernel-") ? base + strlen("kernel-") : base;
  g_autofree char *name = g_str_has_suffix(stem, ".json")
                              ? g_strconcat("trellis-debug-", stem, NULL)
                              : g_strconcat("trellis-debug-", stem, ".json", NULL);
  return g_build_filename(dir, name, NULL);
}

static char *
last_endpoint(void *socket)
{
  char bound[1024];
  size_t len = sizeof bound;
  if (zmq_getsockopt(socket, ZMQ_LAST_ENDPOINT, bound, &len) < 0)
    return NULL;
  return g_strndup(bound, len);
}

/* Removes the discovery files in `dir` whose kernel process is gone (killed with SIGKILL, or
 * its machine restarted): a debugger listing running kernels must not offer them. */
static void
remove_stale_discoveries(const char *dir)
{
  g_autoptr(GDir) listing = g_dir_open(dir, 0, NULL);
  const char *name;
  while (listing && (name = g_dir_read_name(listing))) {
    if (!g_str_has_prefix(name, "trellis-debug-") || !g_str_has_suffix(name, ".json"))
      continue;
    g_autofree char *path = g_build_filename(dir, name, NULL);
    g_autoptr(json_t) disc = json_load_file(path, 0, NULL);
    json_int_t pid = json_integer_value(json_object_get(disc, "pid"));
    if (pid <= 1 || pid > G_MAXINT || pid == getpid())
      continue; /* not one of ours, or being written */
    if (kill((pid_t)pid, 0) < 0 && errno == ESRCH && g_unlink(path) == 0)
      g_printerr("trellis-kernel: removed %s: its kernel (pid %" JSON_INTEGER_FORMAT ") is gone\n",
                 path, pid);
  }
}

static gboolean
write_discovery(TkDebug *d, const TkConnection *conn, GError **error)
{
  g_autofree char *connection = g_canonicalize_filename(conn->path, NULL);
  g_autofree char *events = last_endpoint(d->pub);
  g_autofree char *requests = last_endpoint(d->router);
  g_autoptr(GDateTime) now = g_date_time_new_now_utc();
  g_autofree char *started = g_date_time_format(now, "%Y-%m-%dT%H:%M:%SZ");
  g_autoptr(json_t) disc =
      json_pack("{s:i, s:I, s:s, s:s?, s:s?, s:s, s:s}", "version", 1, "pid", (json_int_t)getpid(),
                "connection_file", connection, "events", events, "requests", requests, "session",
                d->session, "started", started);
  g_autofree char *text = disc ? json_dumps(disc, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;
  if (!text || !events || !requests) {
    g_set_error(error, TK_ERROR, TK_ERROR_SOCKET, "cannot describe the debug sockets");
    return FALSE;
  }
  g_autofree char *dir = g_path_get_dirname(connection);
  remove_stale_discoveries(dir);
  char *path = tk_debug_discovery_path(connection);
  /* The handler first: a SIGTERM right after the file appears still removes it. */
  install_signal_cleanup(path);
  if (!g_file_set_contents_full(path, text, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0600, error)) {
    signal_discovery_path[0] = '\0';
    g_free(path);
    return FALSE;
  }
  d->discovery_path = path;
  return TRUE;
}

/* ---- sockets -------------------------------------------------------------------------------- */

static void *
bind_socket(void *zctx, const TkConnection *conn, int type, const char *what, GError **error)
{
  void *socket = zmq_socket(zctx, type);
  if (!socket) {
    g_set_error(error, TK_ERROR, TK_ERROR_SOCKET, "zmq_socket: %s", zmq_strerror(errno));
    return NULL;
  }
  int linger = LINGER_MS;
  zmq_setsockopt(socket, ZMQ_LINGER, &linger, sizeof linger);
  if (type == ZMQ_XPUB) {
    int hwm = 100000; /* messages of up to TK_DEBUG_MAX_BATCH events: a slow debugger keeps up */
    zmq_setsockopt(socket, ZMQ_SNDHWM, &hwm, sizeof hwm);
    int64_t max_size = TK_MAX_SUBSCRIPTION_SIZE; /* only subscriptions come in */
    zmq_setsockopt(socket, ZMQ_MAXMSGSIZE, &max_size, sizeof max_size);
  } else {
    int64_t max_size = MAX_REQUEST_SIZE;
    zmq_setsockopt(socket, ZMQ_MAXMSGSIZE, &max_size, sizeof max_size);
    int on = 1;
    zmq_setsockopt(socket, ZMQ_ROUTER_HANDOVER, &on, sizeof on);
  }
  g_autofree char *endpoint = strcmp(conn->transport, "ipc") == 0
                                  ? g_strdup_printf("ipc://%s-trellis-%s", conn->ip, what)
                                  : g_strdup_printf("tcp://%s:*", conn->ip);
  if (zmq_bind(socket, endpoint) < 0) {
    g_set_error(error, TK_ERROR, TK_ERROR_SOCKET, "cannot bind the debug %s socket to %s: %s", what,
                endpoint, zmq_strerror(errno));
    zmq_close(socket);
    return NULL;
  }
  return socket;
}

/* ---- the subscriber (emitting thread) ------------------------------------------------------ */

static void
write_event_line(TkDebug *d, const TrEvent *ev)
{
  g_string_truncate(d->line, 0);
  tr_event_append_json(d->line, ev);
  g_string_append_c(d->line, '\n');
  fwrite(d->line->str, 1, d->line->len, d->events_out);
  if (ev->kind == TR_EVENT_CELL_END || ev->kind == TR_EVENT_EAGER_TOGGLED)
    fflush(d->events_out);
}

static void
wake(TkDebug *d)
{
  uint64_t one = 1;
  ssize_t n = write(d->wake_fd, &one, sizeof one);
  (void)n; /* a counter that is already non-zero wakes the thread as well */
}

static void
on_event(const TrEvent *ev, gpointer data)
{
  TkDebug *d = data;
  g_mutex_lock(&d->lock);
  tr_state_apply(d->state, ev);
  guint64 queued = tr_event_log_length(d->queue);
  bool wake_thread = d->listening && queued == 0;
  if (!d->listening && queued >= QUIET_QUEUE_LIMIT)
    tr_event_log_drop_front(d->queue, queued);
  tr_event_log_append(d->queue, ev);
  if (d->events_out)
    write_event_line(d, ev);
  g_mutex_unlock(&d->lock);
  if (wake_thread)
    wake(d);
}

/* ---- publishing (debug thread) ------------------------------------------------------------- */

static bool
send_part(void *socket, const void *data, size_t size, bool more)
{
  while (zmq_send(socket, data, size, more ? ZMQ_SNDMORE : 0) < 0) {
    if (errno != EINTR) {
      g_printerr("trellis-kernel: debug socket cannot send: %s\n", zmq_strerror(errno));
      return false;
    }
  }
  return true;
}

static json_t *
events_json(GPtrArray *events, guint from, guint to)
{
  json_t *array = json_array();
  for (guint i = from; i < to; i++)
    json_array_append_new(array, tr_event_to_json(events->pdata[i]));
  return array;
}

/* [topic, signature over (topic, body), body]: the body {"session":…,"events":[…]} is the
 * events' JSON written straight from the queue (tr_event_append_json), not a jansson tree. */
static void
publish_range(TkDebug *d, const TrEventLog *events, guint64 from, guint64 to)
{
  g_autoptr(GString) body = g_string_sized_new(256 * (gsize)(to - from) + 64);
  g_string_append(body, "{\"session\":");
  tr_json_append_string(body, d->session);
  g_string_append(body, ",\"events\":[");
  TrEvent scratch;
  for (guint64 i = from; i < to; i++) {
    if (i > from)
      g_string_append_c(body, ',');
    tr_event_append_json(body, tr_event_log_peek(events, i, &scratch));
  }
  g_string_append(body, "]}");
  g_autoptr(GBytes) topic = g_bytes_new_static(EVENTS_TOPIC, strlen(EVENTS_TOPIC));
  g_autoptr(GBytes) payload = g_bytes_new_static(body->str, body->len);
  GBytes *parts[] = {topic, payload};
  g_autofree char *signature = tk_signer_sign_frames(d->signer, parts, 2);
  if (send_part(d->pub, EVENTS_TOPIC, strlen(EVENTS_TOPIC), true) &&
      send_part(d->pub, signature, strlen(signature), true))
    send_part(d->pub, body->str, body->len, false);
}

static void
publish_pending(TkDebug *d)
{
  g_mutex_lock(&d->lock);
  TrEventLog *events = d->queue;
  d->queue = tr_event_log_new();
  g_mutex_unlock(&d->lock);
  guint64 n = tr_event_log_length(events);
  if (g_hash_table_size(d->topics) > 0)
    for (guint64 from = 0; from < n; from += TK_DEBUG_MAX_BATCH)
      publish_range(d, events, from, MIN(n, from + TK_DEBUG_MAX_BATCH));
  tr_event_log_free(events);
}

/* Subscription messages on the XPUB: 1 or 0, then the topic. */
static void
read_subscriptions(TkDebug *d)
{
  for (;;) {
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    if (zmq_msg_recv(&msg, d->pub, ZMQ_DONTWAIT) < 0) {
      zmq_msg_close(&msg);
      break;
    }
    const guint8 *data = zmq_msg_data(&msg);
    size_t size = zmq_msg_size(&msg);
    if (size >= 1 && (data[0] == 0 || data[0] == 1)) {
      GBytes *topic = g_bytes_new(data + 1, size - 1);
      if (data[0] == 1)
        g_hash_table_add(d->topics, topic);
      else {
        g_hash_table_remove(d->topics, topic);
        g_bytes_unref(topic);
      }
    }
    zmq_msg_close(&msg);
  }
  /* Under the lock: an event queued after this sees it and wakes the thread. */
  g_mutex_lock(&d->lock);
  d->listening = g_hash_table_size(d->topics) > 0;
  g_mutex_unlock(&d->lock);
}

/* ---- requests (debug thread) --------------------------------------------------------------- */

/* One request's handler: fills `reply`; returns NULL for "ok" or the error text. */
typedef const char *(*RequestHandler)(TkDebug *d, json_t *request, json_t *reply);

static const char *
handle_snapshot(TkDebug *d, json_t *request, json_t *reply)
{
  g_mutex_lock(&d->lock);
  json_t *snapshot = tr_state_to_json(d->state, TK_DEBUG_SNAPSHOT_EVENTS);
  g_mutex_unlock(&d->lock);
  json_object_set_new(reply, "snapshot", snapshot);
  return NULL;
}

static const char *
handle_events_since(TkDebug *d, json_t *request, json_t *reply)
{
  json_t *seq = json_object_get(request, "seq");
  if (!json_is_integer(seq) || json_integer_value(seq) < 0)
    return "malformed request";
  g_mutex_lock(&d->lock);
  g_autoptr(GPtrArray) events = tr_state_events_since(d->state, (guint64)json_integer_value(seq));
  g_mutex_unlock(&d->lock);
  if (!events)
    return "truncated";
  json_object_set_new(reply, "events", events_json(events, 0, events->len));
  return NULL;
}

static const char *
handle_set_eager(TkDebug *d, json_t *request, json_t *reply)
{
  json_t *enabled = json_object_get(request, "enabled");
  if (!json_is_boolean(enabled))
    return "malformed request";
  /* Emits eager_mode on this thread: the subscriber takes the lock, so it is not held here. */
  d->eager(json_is_true(enabled), d->eager_data);
  json_object_set(reply, "enabled", enabled);
  return NULL;
}

static const char *
handle_ping(TkDebug *d, json_t *request, json_t *reply)
{
  return NULL;
}

static const struct {
  const char *type;       /* the request's "type" */
  RequestHandler handler; /* answers it */
} request_table[] = {
    {"snapshot", handle_snapshot},
    {"events_since", handle_events_since},
    {"set_eager", handle_set_eager},
    {"ping", handle_ping},
};

static RequestHandler
find_handler(const char *type)
{
  for (size_t i = 0; i < G_N_ELEMENTS(request_table); i++)
    if (strcmp(type, request_table[i].type) == 0)
      return request_table[i].handler;
  return NULL;
}

/* [routing ids..., signature over (body), body] */
static void
send_reply(TkDebug *d, GPtrArray *frames, guint n_ids, json_t *reply)
{
  char *text = json_dumps(reply, JSON_COMPACT);
  if (!text) {
    g_printerr("trellis-kernel: cannot serialise a debug reply\n");
    return;
  }
  g_autoptr(GBytes) body = g_bytes_new_take(text, strlen(text));
  GBytes *parts[] = {body};
  g_autofree char *signature = tk_signer_sign_frames(d->signer, parts, 1);
  bool ok = true;
  for (guint i = 0; ok && i < n_ids; i++) {
    gsize size;
    const void *data = g_bytes_get_data(frames->pdata[i], &size);
    ok = send_part(d->router, data ? data : "", size, true);
  }
  ok = ok && send_part(d->router, signature, strlen(signature), true);
  if (ok)
    send_part(d->router, text, strlen(text), false);
}

/* Why a request is refused before it is read (NULL: it may be acted on). */
static const char *
check_request(TkDebug *d, GBytes *signature, GBytes *body_bytes)
{
  if (!tr_wire_signer_enabled(d->signer))
    return NULL;
  GBytes *parts[] = {body_bytes};
  if (g_bytes_get_size(signature) == 0 || !tk_signer_verify_frames(d->signer, signature, parts, 1))
    return "invalid signature";
  if (!tk_replay_guard_check(d->replay, signature))
    return "replayed message";
  return NULL;
}

static json_t *
parse_body(GBytes *body_bytes)
{
  gsize size;
  const char *data = g_bytes_get_data(body_bytes, &size);
  json_t *body = json_loadb(data ? data : "", size, 0, NULL);
  if (body && !json_is_object(body))
    g_clear_pointer(&body, json_decref);
  return body;
}

static void
serve_request(TkDebug *d, GPtrArray *frames)
{
  /* A ROUTER always prepends the peer's id; the last two frames are signature and body. */
  guint n = frames->len;
  guint n_ids = n >= 3 ? n - 2 : MIN(n, 1);
  GBytes *body_bytes = n >= 3 ? frames->pdata[n - 1] : NULL;
  g_autoptr(json_t) body = body_bytes ? parse_body(body_bytes) : NULL;
  const char *id = body ? json_string_value(json_object_get(body, "id")) : NULL;
  const char *type = body ? json_string_value(json_object_get(body, "type")) : NULL;

  const char *error = n < 3 || n > MAX_REQUEST_FRAMES
                          ? "malformed request"
                          : check_request(d, frames->pdata[n - 2], body_bytes);
  RequestHandler handler = NULL;
  if (!error && (!id || !type))
    error = "malformed request";
  if (!error && !(handler = find_handler(type)))
    error = "unknown request type";

  g_autofree char *reply_type = type ? g_strconcat(type, "_reply", NULL) : g_strdup("error_reply");
  g_autoptr(json_t) reply =
      json_pack("{s:o, s:s, s:s, s:s}", "id", id ? json_string(id) : json_null(), "type",
                reply_type, "status", "ok", "session", d->session);
  if (!reply) /* an id or type that is not valid UTF-8 */
    reply = json_pack("{s:n, s:s, s:s, s:s}", "id", "type", "error_reply", "status", "ok",
                      "session", d->session);
  if (!error)
    error = handler(d, body, reply);
  if (error) {
    if (strcmp(error, "truncated") != 0)
      g_printerr("trellis-kernel: refused a debug request: %s\n", error);
    json_object_set_new(reply, "status", json_string("error"));
    json_object_set_new(reply, "error", json_string(error));
  }
  send_reply(d, frames, n_ids, reply);
}

static void
serve_requests(TkDebug *d)
{
  GPtrArray *frames;
  while ((frames = tk_recv_frames(d->router, ZMQ_DONTWAIT))) {
    serve_request(d, frames);
    g_ptr_array_unref(frames);
  }
}

/* ---- the thread ----------------------------------------------------------------------------- */

static gpointer
debug_main(gpointer data)
{
  TkDebug *d = data;
  while (!atomic_load(&d->stopping)) {
    zmq_pollitem_t items[] = {
        {d->pub, 0, ZMQ_POLLIN, 0},
        {d->router, 0, ZMQ_POLLIN, 0},
        {NULL, d->wake_fd, ZMQ_POLLIN, 0},
    };
    if (zmq_poll(items, 3, -1) < 0) {
      if (errno == EINTR)
        continue;
      g_printerr("trellis-kernel: debug thread: zmq_poll: %s\n", zmq_strerror(errno));
      break;
    }
    if (items[2].revents & ZMQ_POLLIN) {
      /* Let a burst gather: one wake-up per PUBLISH_DELAY_MS at most, not one per event (each
       * costs the emitting thread a syscall). A request ends the wait at once. */
      zmq_pollitem_t requests = {d->router, 0, ZMQ_POLLIN, 0};
      if (!(items[1].revents & ZMQ_POLLIN) && !atomic_load(&d->stopping) &&
          zmq_poll(&requests, 1, PUBLISH_DELAY_MS) > 0)
        items[1].revents |= ZMQ_POLLIN;
      uint64_t count;
      ssize_t n = read(d->wake_fd, &count, sizeof count);
      (void)n;
    }
    /* Subscriptions first: a debugger that just subscribed gets this round's events. */
    if (items[0].revents & ZMQ_POLLIN)
      read_subscriptions(d);
    publish_pending(d);
    if (items[1].revents & ZMQ_POLLIN)
      serve_requests(d);
  }
  publish_pending(d);
  return NULL;
}

/* ---- life ----------------------------------------------------------------------------------- */

TkDebug *
tk_debug_new(void *zctx, const TkConnection *conn, const TkSigner *signer, const char *session,
             TrEventBus *bus, const char *events_file, TkDebugEagerFunc eager, gpointer eager_data,
             GError **error)
{
  g_return_val_if_fail(zctx && conn && signer && session && bus && eager, NULL);
  TkDebug *d = g_new0(TkDebug, 1);
  d->signer = tr_wire_signer_copy(signer);
  d->replay = tk_replay_guard_new(REPLAY_HISTORY);
  d->session = g_strdup(session);
  d->topics =
      g_hash_table_new_full(g_bytes_hash, g_bytes_equal, (GDestroyNotify)g_bytes_unref, NULL);
  d->eager = eager;
  d->eager_data = eager_data;
  g_mutex_init(&d->lock);
  d->state = tr_state_new(TK_DEBUG_KEEP_EVENTS);
  tr_state_set_limits(d->state, TK_DEBUG_KEEP_CELLS, TK_DEBUG_KEEP_EVENT_BYTES);
  d->queue = tr_event_log_new();
  d->line = g_string_new(NULL);
  d->bus = tr_event_bus_ref(bus);
  d->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (d->wake_fd < 0) {
    g_set_error(error, TK_ERROR, TK_ERROR_SOCKET, "eventfd: %s", g_strerror(errno));
    tk_debug_free(d);
    return NULL;
  }
  if (events_file && !(d->events_out = fopen(events_file, "w"))) {
    g_set_error(error, TK_ERROR, TK_ERROR_CONNECTION, "--events: cannot write %s: %s", events_file,
                g_strerror(errno));
    tk_debug_free(d);
    return NULL;
  }
  if (!(d->pub = bind_socket(zctx, conn, ZMQ_XPUB, "events", error)) ||
      !(d->router = bind_socket(zctx, conn, ZMQ_ROUTER, "requests", error)) ||
      !write_discovery(d, conn, error)) {
    tk_debug_free(d);
    return NULL;
  }
  /* Everything from the first event on, so that a snapshot is the whole story. */
  /* It keeps copies of what it is given, except the debugger_stopped in force, which the
   * state holds (tr_state_paused): cached calls' events come as views. */
  d->subscription = tr_event_bus_subscribe_full(bus, G_MAXUINT64,
                                                G_GUINT64_CONSTANT(1) << TR_EVENT_DEBUGGER_STOPPED,
                                                on_event, d, NULL, true);
  return d;
}

void
tk_debug_start(TkDebug *debug)
{
  g_return_if_fail(debug != NULL && debug->thread == NULL);
  debug->thread = g_thread_new("tk-debug", debug_main, debug);
}

void
tk_debug_stop(TkDebug *debug)
{
  if (!debug)
    return;
  remove_discovery_file(debug);
  if (debug->thread) {
    atomic_store(&debug->stopping, true);
    wake(debug);
    g_thread_join(g_steal_pointer(&debug->thread));
  }
  g_clear_pointer(&debug->pub, zmq_close);
  g_clear_pointer(&debug->router, zmq_close);
}

void
tk_debug_free(TkDebug *debug)
{
  if (!debug)
    return;
  tk_debug_stop(debug);
  if (debug->subscription)
    tr_event_bus_unsubscribe(debug->bus, debug->subscription);
  if (debug->events_out)
    fclose(debug->events_out);
  tr_event_bus_unref(debug->bus);
  if (debug->wake_fd >= 0)
    close(debug->wake_fd);
  tr_state_free(debug->state);
  tr_event_log_free(debug->queue);
  g_string_free(debug->line, TRUE);
  g_hash_table_unref(debug->topics);
  tk_replay_guard_free(debug->replay);
  tr_wire_signer_free(debug->signer);
  g_mutex_clear(&debug->lock);
  g_free(debug->session);
  g_free(debug);
}
