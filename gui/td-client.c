/* td-client.c — the debugger's event source: a kernel's debug sockets (attach) or a notebook or
 * script run in-process (standalone). See td-client.h for the contract and
 * kernel/kernel-debug.h for the wire protocol.
 *
 * Both modes have a worker thread that produces items (a snapshot, events, a status change,
 * cell output) into an outbox. The outbox hands them to the GMainContext given at creation with
 * one idle source at a time: items pushed while a source is pending join it, consecutive events
 * coalesce into one batch, so a burst of 100,000 events costs a handful of callbacks. Freeing
 * the client cancels the outbox; a source already queued then delivers nothing.
 *
 * Attach. The worker owns a SUB (live events) and a DEALER (requests). It follows the ZeroMQ
 * guide's clone pattern: subscribe, request a snapshot, keep the live events that arrive
 * meanwhile, then apply those above the snapshot's sequence number. A live event beyond the next
 * expected number is a gap: the events from there on wait while an events_since request fills
 * it ("truncated": a new snapshot). Every request is retried each second until answered; a
 * kernel that answers nothing for 5 s is LOST (retries go on quietly, and the discovery file is
 * read again in case the kernel came back on other ports). When idle, the worker asks for
 * events_since its last number once a second: that is its liveness check, and it also catches
 * events published before its subscription reached the kernel.
 *
 * Standalone. The worker runs the cells in the process's one embedded Python (core/py), made by
 * the first standalone run on the calling thread, which then lets the GIL go: a worker takes it
 * for its run (PyGILState_Ensure) and the GUI's thread never holds it. Runs take turns (they
 * share __main__, which each run empties first) and subscribe to the tensorflow module's event
 * bus (graphs carried) from their start, so their events are numbered on from the previous
 * run's. An empty snapshot comes first, so that both modes look alike to the GUI.
 */
#include "td-client.h"
#include "tr-wire.h"

#include "tf.h"
#include "tp.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/types.h>
#include <unistd.h>
#include <zmq.h>

G_DEFINE_QUARK(td-client-error-quark, td_client_error);

/* How often the attach worker wakes up to retry and check liveness. */
#define TICK_MS 100
/* A request unanswered this long is sent again (with a new id). */
#define RETRY_US (1 * G_USEC_PER_SEC)
/* No reply for this long: the kernel is LOST. */
#define LOST_SECONDS 5
#define LOST_US      (LOST_SECONDS * G_USEC_PER_SEC)
/* With nothing outstanding, ask events_since after this much silence. */
#define KEEPALIVE_US (1 * G_USEC_PER_SEC)
/* While LOST, re-read the discovery file this often. */
#define REDISCOVER_US (2 * G_USEC_PER_SEC)
/* The most live events held back while a snapshot or gap fill is awaited. */
#define MAX_WAITING 1000000
/* The events topic of the kernel's publisher. */
#define EVENTS_TOPIC "trellis.events"

/* ---- outbox: worker -> GMainContext ------------------------------------------------------ */

typedef enum {
  ITEM_SNAPSHOT,
  ITEM_EVENTS,
  ITEM_STATUS,
  ITEM_OUTPUT,
} ItemKind;

typedef struct {
  ItemKind kind;
  TrState *state;        /* SNAPSHOT: owned */
  GPtrArray *events;     /* EVENTS: TrEvent*, owned */
  TdClientStatus status; /* STATUS */
  char *message;         /* STATUS: owned, may be NULL */
  GString *text;         /* OUTPUT: owned */
  bool is_stderr;        /* OUTPUT: which stream */
} Item;

typedef struct {
  gatomicrefcount ref;         /* the client and each pending idle source */
  GMutex lock;                 /* guards everything below */
  GQueue items;                /* Item*, in order */
  bool scheduled;              /* an idle source is attached and has not run yet */
  atomic_bool cancelled;       /* the client was freed: deliver nothing more */
  TdClientCallbacks callbacks; /* copied at creation */
  gpointer data;               /* callbacks' user data */
  GMainContext *context;       /* where callbacks run (owned ref) */
} Outbox;

static void
item_free(Item *item)
{
  if (item->state)
    tr_state_free(item->state);
  if (item->events)
    g_ptr_array_unref(item->events);
  g_free(item->message);
  if (item->text)
    g_string_free(item->text, TRUE);
  g_free(item);
}

static Outbox *
outbox_new(const TdClientCallbacks *callbacks, gpointer data, GMainContext *context)
{
  Outbox *box = g_new0(Outbox, 1);
  g_atomic_ref_count_init(&box->ref);
  g_mutex_init(&box->lock);
  g_queue_init(&box->items);
  if (callbacks)
    box->callbacks = *callbacks;
  box->data = data;
  box->context = context ? g_main_context_ref(context) : g_main_context_ref_thread_default();
  return box;
}

static Outbox *
outbox_ref(Outbox *box)
{
  g_atomic_ref_count_inc(&box->ref);
  return box;
}

static void
outbox_unref(Outbox *box)
{
  if (!g_atomic_ref_count_dec(&box->ref))
    return;
  g_queue_clear_full(&box->items, (GDestroyNotify)item_free);
  g_main_context_unref(box->context);
  g_mutex_clear(&box->lock);
  g_free(box);
}

static void
deliver(Outbox *box, Item *item)
{
  const TdClientCallbacks *cb = &box->callbacks;
  switch (item->kind) {
    case ITEM_SNAPSHOT:
      if (cb->snapshot)
        cb->snapshot(g_steal_pointer(&item->state), box->data);
      break;
    case ITEM_EVENTS:
      if (cb->events)
        cb->events(g_steal_pointer(&item->events), box->data);
      break;
    case ITEM_STATUS:
      if (cb->status)
        cb->status(item->status, item->message, box->data);
      break;
    case ITEM_OUTPUT:
      if (cb->output)
        cb->output(item->text->str, item->text->len, item->is_stderr, box->data);
      break;
  }
}

static gboolean
outbox_dispatch(gpointer data)
{
  Outbox *box = data;
  g_mutex_lock(&box->lock);
  GQueue items = box->items;
  g_queue_init(&box->items);
  box->scheduled = false;
  g_mutex_unlock(&box->lock);
  Item *item;
  while ((item = g_queue_pop_head(&items))) {
    /* A callback may free the client: nothing after that is delivered. */
    if (!atomic_load(&box->cancelled))
      deliver(box, item);
    item_free(item);
  }
  return G_SOURCE_REMOVE;
}

/* Whether `item` can be merged into `tail` (and then is, consuming it). */
static bool
coalesce(Item *tail, Item *item)
{
  if (!tail || tail->kind != item->kind)
    return false;
  if (item->kind == ITEM_EVENTS) {
    for (guint i = 0; i < item->events->len; i++)
      g_ptr_array_add(tail->events, tr_event_ref(item->events->pdata[i]));
    return true;
  }
  if (item->kind == ITEM_OUTPUT && tail->is_stderr == item->is_stderr) {
    g_string_append_len(tail->text, item->text->str, item->text->len);
    return true;
  }
  return false;
}

/* Queue `item` (taken over) for the main context; thread-safe. */
static void
outbox_push(Outbox *box, Item *item)
{
  g_mutex_lock(&box->lock);
  if (atomic_load(&box->cancelled) || coalesce(g_queue_peek_tail(&box->items), item)) {
    g_mutex_unlock(&box->lock);
    item_free(item);
    return;
  }
  g_queue_push_tail(&box->items, item);
  if (!box->scheduled) {
    box->scheduled = true;
    GSource *source = g_idle_source_new();
    g_source_set_priority(source, G_PRIORITY_DEFAULT);
    g_source_set_callback(source, outbox_dispatch, outbox_ref(box), (GDestroyNotify)outbox_unref);
    g_source_set_static_name(source, "td-client delivery");
    g_source_attach(source, box->context);
    g_source_unref(source);
  }
  g_mutex_unlock(&box->lock);
}

static void
push_status(Outbox *box, TdClientStatus status, const char *message)
{
  Item *item = g_new0(Item, 1);
  item->kind = ITEM_STATUS;
  item->status = status;
  item->message = g_strdup(message);
  outbox_push(box, item);
}

static void
push_snapshot(Outbox *box, TrState *state)
{
  Item *item = g_new0(Item, 1);
  item->kind = ITEM_SNAPSHOT;
  item->state = state;
  outbox_push(box, item);
}

/* Deliver the events of `events` (taken over; may be empty). */
static void
push_events(Outbox *box, GPtrArray *events)
{
  if (events->len == 0) {
    g_ptr_array_unref(events);
    return;
  }
  Item *item = g_new0(Item, 1);
  item->kind = ITEM_EVENTS;
  item->events = events;
  outbox_push(box, item);
}

static void
push_output(Outbox *box, const char *text, gsize len, bool is_stderr)
{
  Item *item = g_new0(Item, 1);
  item->kind = ITEM_OUTPUT;
  item->text = g_string_new_len(text, (gssize)len);
  item->is_stderr = is_stderr;
  outbox_push(box, item);
}

static GPtrArray *
new_event_array(void)
{
  return g_ptr_array_new_with_free_func((GDestroyNotify)tr_event_unref);
}

/* ---- the client ---------------------------------------------------------------------------- */

/* Where to attach: read from the connection file and its discovery file. */
typedef struct {
  char *connection_file; /* as given */
  char *discovery_file;  /* trellis-debug-*.json beside it */
  TrWireSigner *signer;  /* the connection file's key and scheme (core/wire) */
  char *events;          /* PUB endpoint */
  char *requests;        /* ROUTER endpoint */
} AttachConfig;

struct _TdClient {
  Outbox *outbox;         /* shared with the idle sources */
  GThread *worker;        /* attach or standalone worker */
  atomic_bool stop;       /* asks the worker to finish */
  atomic_bool done;       /* the worker returned */
  int wake_fd;            /* eventfd: wakes the attach worker (stop, eager requests) */
  GMutex lock;            /* guards eager_request and registry */
  int eager_request;      /* -1: none; 0/1: a set_eager to send or apply */
  bool attached;          /* attach mode (else standalone) */
  AttachConfig *conf;     /* attach: owned */
  char *path;             /* standalone: the .py or .ipynb */
  GPtrArray *cells;       /* standalone: cells to run (TpNotebookCell *, owned); a script is one */
  bool notebook;          /* standalone: cells are a notebook's, results are printed */
  TrFnRegistry *registry; /* standalone: Python's tf registry (owned) once running (under lock) */
  atomic_bool running;    /* standalone: its cells run (an interrupt goes to its worker) */
  GCond stopped;          /* standalone: signalled with `lock` when `stop` is set */
};

/* The process's Python: made once (tp_interp_new allows one), never freed, the GIL released. */
static TpInterp *python;
static GMutex python_turn;      /* held by the worker whose cells run: one run at a time */
static TdClient *python_client; /* that worker's client (read and written with the GIL held) */

static void
attach_config_free(AttachConfig *conf)
{
  if (!conf)
    return;
  g_free(conf->connection_file);
  g_free(conf->discovery_file);
  tr_wire_signer_free(conf->signer);
  g_free(conf->events);
  g_free(conf->requests);
  g_free(conf);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(AttachConfig, attach_config_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(json_t, json_decref)

static TdClient *
client_new(const TdClientCallbacks *callbacks, gpointer data, GMainContext *context)
{
  TdClient *client = g_new0(TdClient, 1);
  client->outbox = outbox_new(callbacks, data, context);
  client->wake_fd = -1;
  client->eager_request = -1;
  g_mutex_init(&client->lock);
  g_cond_init(&client->stopped);
  return client;
}

static void
wake(TdClient *client)
{
  if (client->wake_fd < 0)
    return;
  uint64_t one = 1;
  ssize_t n = write(client->wake_fd, &one, sizeof one);
  (void)n; /* a full counter already wakes the worker */
}

void
td_client_set_eager(TdClient *client, bool enabled)
{
  g_return_if_fail(client != NULL);
  g_mutex_lock(&client->lock);
  if (!client->attached && client->registry)
    tr_fn_registry_set_run_eagerly(client->registry, enabled);
  else
    client->eager_request = enabled ? 1 : 0;
  g_mutex_unlock(&client->lock);
  wake(client);
}

void
td_client_free(TdClient *client)
{
  if (!client)
    return;
  atomic_store(&client->outbox->cancelled, true);
  atomic_store(&client->stop, true);
  wake(client);
  /* A standalone run is interrupted; one that starts a cell just after is interrupted again. */
  while (client->worker && !atomic_load(&client->done)) {
    /* Outside `lock`: it takes the GIL, which the worker holds while it takes `lock`. */
    if (atomic_load(&client->running))
      tp_interrupt_thread(python);
    g_mutex_lock(&client->lock);
    g_cond_broadcast(&client->stopped);
    g_mutex_unlock(&client->lock);
    g_usleep(10000);
  }
  if (client->worker)
    g_thread_join(client->worker);
  if (client->wake_fd >= 0)
    close(client->wake_fd);
  attach_config_free(client->conf);
  g_free(client->path);
  if (client->cells)
    g_ptr_array_unref(client->cells);
  g_mutex_clear(&client->lock);
  g_cond_clear(&client->stopped);
  outbox_unref(client->outbox);
  g_free(client);
}

/* ---- signatures (core/wire's, over ZeroMQ frames) ------------------------------------------ */

/* Hex HMAC of the frames, or "" when signing is off. Transfer full. */
static char *
sign_frames(const AttachConfig *conf, const zmq_msg_t *const *frames, guint n)
{
  const void *data[4];
  size_t sizes[4];
  g_assert(n <= G_N_ELEMENTS(data));
  for (guint i = 0; i < n; i++) {
    data[i] = zmq_msg_data((zmq_msg_t *)frames[i]);
    sizes[i] = zmq_msg_size((zmq_msg_t *)frames[i]);
  }
  return tr_wire_signer_sign(conf->signer, data, sizes, n);
}

/* Constant-time check of `signature` against the frames. */
static bool
verify_frames(const AttachConfig *conf, const zmq_msg_t *signature, const zmq_msg_t *const *frames,
              guint n)
{
  const void *data[4];
  size_t sizes[4];
  g_assert(n <= G_N_ELEMENTS(data));
  for (guint i = 0; i < n; i++) {
    data[i] = zmq_msg_data((zmq_msg_t *)frames[i]);
    sizes[i] = zmq_msg_size((zmq_msg_t *)frames[i]);
  }
  return tr_wire_signer_verify(conf->signer, zmq_msg_data((zmq_msg_t *)signature),
                               zmq_msg_size((zmq_msg_t *)signature), data, sizes, n);
}

/* ---- connection and discovery files ------------------------------------------------------- */

char *
td_discovery_path(const char *connection_file)
{
  g_autofree char *dir = g_path_get_dirname(connection_file);
  g_autofree char *base = g_path_get_basename(connection_file);
  const char *stem = base;
  if (g_str_has_prefix(stem, "kernel-"))
    stem += strlen("kernel-");
  g_autofree char *name = g_str_has_suffix(stem, ".json")
                              ? g_strdup_printf("trellis-debug-%s", stem)
                              : g_strdup_printf("trellis-debug-%s.json", stem);
  return g_build_filename(dir, name, NULL);
}

static json_t *
load_object(const char *path, const char *what, GError **error)
{
  json_error_t jerr;
  json_t *json = json_load_file(path, 0, &jerr);
  if (!json) {
    g_set_error(error, TD_CLIENT_ERROR, TD_CLIENT_ERROR_FILE, "cannot read %s %s: %s", what, path,
                jerr.text);
    return NULL;
  }
  if (!json_is_object(json)) {
    json_decref(json);
    g_set_error(error, TD_CLIENT_ERROR, TD_CLIENT_ERROR_FILE, "%s %s is not a JSON object", what,
                path);
    return NULL;
  }
  return json;
}

static const char *
string_member(json_t *obj, const char *key)
{
  return json_string_value(json_object_get(obj, key));
}

/* The endpoints of a discovery file. */
static gboolean
read_discovery(AttachConfig *conf, GError **error)
{
  g_autoptr(json_t) disc = load_object(conf->discovery_file, "discovery file", error);
  if (!disc)
    return FALSE;
  const char *events = string_member(disc, "events");
  const char *requests = string_member(disc, "requests");
  if (!events || !requests) {
    g_set_error(error, TD_CLIENT_ERROR, TD_CLIENT_ERROR_FILE,
                "discovery file %s names no events or requests endpoint", conf->discovery_file);
    return FALSE;
  }
  g_free(conf->events);
  g_free(conf->requests);
  conf->events = g_strdup(events);
  conf->requests = g_strdup(requests);
  return TRUE;
}

static AttachConfig *
attach_config_load(const char *connection_file, GError **error)
{
  g_autoptr(json_t) conn = load_object(connection_file, "connection file", error);
  if (!conn)
    return NULL;
  g_autoptr(AttachConfig) conf = g_new0(AttachConfig, 1);
  conf->connection_file = g_strdup(connection_file);
  conf->discovery_file = td_discovery_path(connection_file);
  const char *key = string_member(conn, "key");
  const char *scheme = string_member(conn, "signature_scheme");
  if (!scheme)
    scheme = "hmac-sha256";
  conf->signer = tr_wire_signer_new(scheme, key);
  if (!conf->signer) {
    g_set_error(error, TD_CLIENT_ERROR, TD_CLIENT_ERROR_FILE, "unsupported signature scheme '%s'",
                scheme);
    return NULL;
  }
  if (!g_file_test(conf->discovery_file, G_FILE_TEST_EXISTS)) {
    /* Any Jupyter kernel writes a connection file; only a Trellis kernel publishes its trace
     * events, in a discovery file beside it. */
    const char *kernel = string_member(conn, "kernel_name");
    g_autofree char *name = g_path_get_basename(conf->discovery_file);
    g_autofree char *which =
        kernel && *kernel ? g_strdup_printf(" (kernel_name \"%s\")", kernel) : g_strdup("");
    g_set_error(error, TD_CLIENT_ERROR, TD_CLIENT_ERROR_NOT_TRELLIS,
                "This is not a Trellis kernel%s: it publishes no trace events (no %s beside its "
                "connection file)",
                which, name);
    return NULL;
  }
  if (!read_discovery(conf, error))
    return NULL;
  return g_steal_pointer(&conf);
}

/* ---- attach: the worker ------------------------------------------------------------------ */

/* A live event waiting for the snapshot or a gap fill. */
typedef struct {
  const char *session; /* interned */
  TrEvent *ev;         /* owned */
} Pending;

/* A request sent and not answered yet. */
typedef struct {
  char *type;     /* request type */
  json_t *body;   /* the body without "id" (re-sent with a new id on retry), owned */
  gint64 sent;    /* when this id was sent */
  gint64 first;   /* when the first try was sent */
  bool essential; /* retried forever (snapshot, events_since); others give up when LOST */
} Request;

typedef struct {
  TdClient *client;
  AttachConfig *conf;  /* borrowed from the client */
  void *zctx;          /* ZeroMQ context */
  void *sub;           /* SUB on the events endpoint */
  void *dealer;        /* DEALER on the requests endpoint */
  char *prefix;        /* unique prefix of this client's request ids */
  guint counter;       /* numbers the requests */
  GHashTable *pending; /* id -> Request*: sent, unanswered */
  const char *session; /* the kernel session of the state we follow (interned), or NULL */
  bool synced;         /* a snapshot was delivered and the stream since is complete */
  guint64 last_seq;    /* the last event delivered (or the snapshot's seq) */
  char *snapshot_id;   /* outstanding snapshot request */
  char *since_id;      /* outstanding events_since request */
  GArray *waiting;     /* Pending: live events held back, in arrival order */
  GPtrArray *batch;    /* TrEvent* to deliver at the end of this round */
  gint64 last_heard;   /* when the kernel last sent anything valid */
  gint64 last_lookup;  /* when the discovery file was last read while LOST */
  TdClientStatus status;
} Worker;

static void
request_free(Request *req)
{
  g_free(req->type);
  json_decref(req->body);
  g_free(req);
}

static void
pending_clear(gpointer p)
{
  tr_event_unref(((Pending *)p)->ev);
}

static void
set_status(Worker *w, TdClientStatus status, const char *message)
{
  if (w->status == status)
    return;
  w->status = status;
  push_status(w->client->outbox, status, message);
}

static void
flush_batch(Worker *w)
{
  if (w->batch->len == 0)
    return;
  push_events(w->client->outbox, g_steal_pointer(&w->batch));
  w->batch = new_event_array();
}

/* Sign and send one request body (the "id" is added). Returns the id (transfer full); `*sent`
 * is false when the socket had no connection yet (the next tick sends it again). */
static char *
send_body(Worker *w, json_t *body, bool *sent)
{
  char *id = g_strdup_printf("%s-%u", w->prefix, ++w->counter);
  g_autoptr(json_t) full = json_deep_copy(body);
  json_object_set_new(full, "id", json_string(id));
  g_autofree char *text = json_dumps(full, JSON_COMPACT);
  zmq_msg_t body_msg;
  zmq_msg_init_data(&body_msg, text, strlen(text), NULL, NULL);
  const zmq_msg_t *parts[] = {&body_msg};
  g_autofree char *sig = sign_frames(w->conf, parts, 1);
  zmq_msg_close(&body_msg);
  *sent = zmq_send(w->dealer, sig, strlen(sig), ZMQ_SNDMORE | ZMQ_DONTWAIT) >= 0 &&
          zmq_send(w->dealer, text, strlen(text), ZMQ_DONTWAIT) >= 0;
  return id;
}

/* When a request was last sent: now, or long ago when it could not go out (retry next tick). */
static gint64
sent_time(bool sent, gint64 now)
{
  return sent ? now : now - RETRY_US;
}

/* Send a request of `type` with the members of `extra` (stolen, may be NULL). Returns its id
 * (borrowed from the pending table). */
static const char *
request(Worker *w, const char *type, json_t *extra, bool essential)
{
  json_t *body = extra ? extra : json_object();
  json_object_set_new(body, "type", json_string(type));
  Request *req = g_new0(Request, 1);
  req->type = g_strdup(type);
  req->body = body;
  req->first = g_get_monotonic_time();
  req->essential = essential;
  bool sent;
  char *id = send_body(w, body, &sent);
  req->sent = sent_time(sent, req->first);
  g_hash_table_insert(w->pending, id, req);
  return id;
}

static void
forget_request(Worker *w, char **id)
{
  if (*id)
    g_hash_table_remove(w->pending, *id);
  g_clear_pointer(id, g_free);
}

static void
request_snapshot(Worker *w)
{
  if (w->snapshot_id)
    return;
  forget_request(w, &w->since_id);
  w->synced = false;
  w->snapshot_id = g_strdup(request(w, "snapshot", NULL, true));
}

static void
request_since(Worker *w)
{
  if (w->since_id || w->snapshot_id)
    return;
  w->since_id = g_strdup(
      request(w, "events_since", json_pack("{s:I}", "seq", (json_int_t)w->last_seq), true));
}

static void
hold_back(Worker *w, const char *session, TrEvent *ev)
{
  /* A kernel that publishes but does not answer must not grow this without bound: what is
   * dropped here is fetched again with events_since or comes with the next snapshot. */
  if (w->waiting->len >= MAX_WAITING)
    g_array_set_size(w->waiting, 0);
  Pending p = {session, ev};
  g_array_append_val(w->waiting, p);
}

/* One event of `session` (taken over), in the order received. */
static void
feed(Worker *w, const char *session, TrEvent *ev)
{
  if (!w->synced || w->since_id) {
    hold_back(w, session, ev);
    return;
  }
  if (session != w->session) {
    hold_back(w, session, ev);
    request_snapshot(w); /* the kernel restarted */
    return;
  }
  if (ev->seq <= w->last_seq) {
    tr_event_unref(ev);
    return;
  }
  if (ev->seq == w->last_seq + 1) {
    w->last_seq = ev->seq;
    g_ptr_array_add(w->batch, ev);
    return;
  }
  hold_back(w, session, ev);
  request_since(w);
}

static gint
pending_compare(gconstpointer a, gconstpointer b)
{
  guint64 x = ((const Pending *)a)->ev->seq, y = ((const Pending *)b)->ev->seq;
  return x < y ? -1 : x > y;
}

/* After a snapshot or a gap fill: the held-back events of the current session, in order. */
static void
drain_waiting(Worker *w)
{
  GArray *held = w->waiting;
  w->waiting = g_array_new(FALSE, FALSE, sizeof(Pending));
  g_array_set_clear_func(w->waiting, pending_clear);
  g_array_sort(held, pending_compare);
  for (guint i = 0; i < held->len; i++) {
    Pending *p = &g_array_index(held, Pending, i);
    if (p->session == w->session)
      feed(w, p->session, g_steal_pointer(&p->ev));
    else
      g_clear_pointer(&p->ev, tr_event_unref); /* an earlier kernel process's */
  }
  g_array_set_clear_func(held, NULL);
  g_array_unref(held);
}

/* TrEvent* of a JSON array; malformed events are dropped with a warning. Transfer full. */
static GPtrArray *
parse_events(json_t *array)
{
  GPtrArray *events = new_event_array();
  size_t i;
  json_t *obj;
  json_array_foreach(array, i, obj)
  {
    g_autoptr(GError) error = NULL;
    TrEvent *ev = tr_event_from_json(obj, &error);
    if (ev)
      g_ptr_array_add(events, ev);
    else
      g_warning("td-client: dropped a malformed event: %s", error->message);
  }
  return events;
}

/* Received frames of one message (at most `max`; the rest are discarded). */
static guint
recv_frames(void *socket, zmq_msg_t *frames, guint max, bool *too_many)
{
  guint n = 0;
  *too_many = false;
  for (;;) {
    zmq_msg_t part;
    zmq_msg_init(&part);
    if (zmq_msg_recv(&part, socket, n == 0 ? ZMQ_DONTWAIT : 0) < 0) {
      zmq_msg_close(&part);
      return n;
    }
    bool more = zmq_msg_more(&part);
    if (n < max)
      frames[n++] = part;
    else {
      *too_many = true;
      zmq_msg_close(&part);
    }
    if (!more)
      return n;
  }
}

static void
close_frames(zmq_msg_t *frames, guint n)
{
  for (guint i = 0; i < n; i++)
    zmq_msg_close(&frames[i]);
}

/* The JSON object of a frame, or NULL. Transfer full. */
static json_t *
frame_object(zmq_msg_t *frame)
{
  json_t *json = json_loadb(zmq_msg_data(frame), zmq_msg_size(frame), 0, NULL);
  if (json && !json_is_object(json))
    g_clear_pointer(&json, json_decref);
  return json;
}

/* One live message: [topic, signature over (topic, body), body]. */
static void
handle_live(Worker *w, zmq_msg_t *frames, guint n)
{
  if (n != 3) {
    g_warning("td-client: dropped an event message of %u frames", n);
    return;
  }
  const zmq_msg_t *signed_parts[] = {&frames[0], &frames[2]};
  if (!verify_frames(w->conf, &frames[1], signed_parts, 2)) {
    g_warning("td-client: dropped an event message with a bad signature");
    return;
  }
  g_autoptr(json_t) body = frame_object(&frames[2]);
  const char *session = body ? string_member(body, "session") : NULL;
  json_t *array = body ? json_object_get(body, "events") : NULL;
  if (!session || !json_is_array(array)) {
    g_warning("td-client: dropped a malformed event message");
    return;
  }
  w->last_heard = g_get_monotonic_time();
  const char *interned = g_intern_string(session);
  g_autoptr(GPtrArray) events = parse_events(array);
  for (guint i = 0; i < events->len; i++)
    feed(w, interned, tr_event_ref(events->pdata[i]));
}

static void
on_snapshot(Worker *w, json_t *reply, const char *session)
{
  forget_request(w, &w->snapshot_id);
  g_autoptr(GError) error = NULL;
  json_t *snap = json_object_get(reply, "snapshot");
  TrState *state = snap ? tr_state_from_json(snap, TD_CLIENT_KEEP_EVENTS, &error) : NULL;
  if (!state) {
    g_warning("td-client: unusable snapshot: %s", error ? error->message : "none in the reply");
    return; /* the keepalive asks again */
  }
  json_t *seq = json_object_get(snap, "seq");
  w->last_seq = json_is_integer(seq) ? (guint64)json_integer_value(seq) : tr_state_last_seq(state);
  w->session = session;
  w->synced = true;
  flush_batch(w);
  push_snapshot(w->client->outbox, state);
  set_status(w, TD_CLIENT_LIVE, NULL);
  drain_waiting(w);
}

static void
on_events_since(Worker *w, json_t *reply, const char *session)
{
  forget_request(w, &w->since_id);
  const char *status = string_member(reply, "status");
  if (g_strcmp0(status, "ok") != 0) {
    if (g_strcmp0(string_member(reply, "error"), "truncated") == 0)
      request_snapshot(w);
    else
      request_since(w);
    return;
  }
  if (session != w->session) {
    request_snapshot(w);
    return;
  }
  g_autoptr(GPtrArray) events = parse_events(json_object_get(reply, "events"));
  for (guint i = 0; i < events->len; i++)
    feed(w, session, tr_event_ref(events->pdata[i]));
  drain_waiting(w);
}

/* One reply: [signature over (body), body]. */
static void
handle_reply(Worker *w, zmq_msg_t *frames, guint n)
{
  if (n != 2) {
    g_warning("td-client: dropped a reply of %u frames", n);
    return;
  }
  const zmq_msg_t *signed_parts[] = {&frames[1]};
  if (!verify_frames(w->conf, &frames[0], signed_parts, 1)) {
    g_warning("td-client: dropped a reply with a bad signature");
    return;
  }
  g_autoptr(json_t) body = frame_object(&frames[1]);
  const char *id = body ? string_member(body, "id") : NULL;
  const char *session = body ? string_member(body, "session") : NULL;
  if (!id || !session) {
    g_warning("td-client: dropped a malformed reply");
    return;
  }
  w->last_heard = g_get_monotonic_time();
  Request *req = g_hash_table_lookup(w->pending, id);
  if (!req)
    return; /* the answer to a try that was retried since */
  const char *interned = g_intern_string(session);
  if (w->status == TD_CLIENT_LOST && w->synced)
    set_status(w, TD_CLIENT_LIVE, NULL);
  if (g_strcmp0(string_member(body, "status"), "ok") != 0 &&
      g_strcmp0(string_member(body, "error"), "truncated") != 0)
    g_warning("td-client: the kernel refused a %s request: %s", req->type,
              string_member(body, "error"));
  if (w->snapshot_id && strcmp(id, w->snapshot_id) == 0)
    on_snapshot(w, body, interned);
  else if (w->since_id && strcmp(id, w->since_id) == 0)
    on_events_since(w, body, interned);
  else {
    g_hash_table_remove(w->pending, id);
    if (w->synced && interned != w->session)
      request_snapshot(w);
  }
}

/* Retry what is unanswered; declare the kernel lost; keep the stream checked. */
static void
tick(Worker *w)
{
  gint64 now = g_get_monotonic_time();
  bool overdue = false;
  g_autoptr(GPtrArray) retry = g_ptr_array_new_with_free_func(g_free);
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, w->pending);
  while (g_hash_table_iter_next(&it, &key, &value)) {
    Request *req = value;
    overdue |= now - req->first > LOST_US;
    if (now - req->sent >= RETRY_US)
      g_ptr_array_add(retry, g_strdup(key));
  }
  for (guint i = 0; i < retry->len; i++) {
    char *old = retry->pdata[i];
    Request *req = NULL;
    g_autofree char *stolen_key = NULL;
    g_hash_table_steal_extended(w->pending, old, (gpointer *)&stolen_key, (gpointer *)&req);
    if (!req->essential && now - req->first > LOST_US) {
      request_free(req);
      continue;
    }
    bool sent;
    char *id = send_body(w, req->body, &sent);
    req->sent = sent_time(sent, now);
    g_hash_table_insert(w->pending, id, req);
    char **slot = w->snapshot_id && !strcmp(old, w->snapshot_id) ? &w->snapshot_id
                  : w->since_id && !strcmp(old, w->since_id)     ? &w->since_id
                                                                 : NULL;
    if (slot) {
      g_free(*slot);
      *slot = g_strdup(id);
    }
  }
  if (overdue && now - w->last_heard > LOST_US)
    set_status(w, TD_CLIENT_LOST, "no reply for " G_STRINGIFY(LOST_SECONDS) " s");
  if (g_hash_table_size(w->pending) == 0 && now - w->last_heard > KEEPALIVE_US) {
    if (w->synced)
      request_since(w);
    else
      request_snapshot(w);
  }
}

static void
close_sockets(Worker *w)
{
  g_clear_pointer(&w->sub, zmq_close);
  g_clear_pointer(&w->dealer, zmq_close);
}

/* Connect to the endpoints of the discovery file; NULL, or why not (transfer full). */
static char *
open_sockets(Worker *w)
{
  int zero = 0, one = 1;
  w->sub = zmq_socket(w->zctx, ZMQ_SUB);
  w->dealer = zmq_socket(w->zctx, ZMQ_DEALER);
  zmq_setsockopt(w->sub, ZMQ_LINGER, &zero, sizeof zero);
  zmq_setsockopt(w->dealer, ZMQ_LINGER, &zero, sizeof zero);
  zmq_setsockopt(w->dealer, ZMQ_IMMEDIATE, &one, sizeof one);
  int hwm = 0; /* never drop live events on our side */
  zmq_setsockopt(w->sub, ZMQ_RCVHWM, &hwm, sizeof hwm);
  zmq_setsockopt(w->sub, ZMQ_SUBSCRIBE, EVENTS_TOPIC, strlen(EVENTS_TOPIC));
  if (zmq_connect(w->sub, w->conf->events) < 0 || zmq_connect(w->dealer, w->conf->requests) < 0) {
    char *message = g_strdup_printf("cannot connect to %s / %s: %s", w->conf->events,
                                    w->conf->requests, zmq_strerror(errno));
    close_sockets(w);
    return message;
  }
  return NULL;
}

/* LOST: the kernel may have come back elsewhere (a new discovery file): follow it. */
static void
rediscover(Worker *w)
{
  gint64 now = g_get_monotonic_time();
  if (w->status != TD_CLIENT_LOST || now - w->last_lookup < REDISCOVER_US)
    return;
  w->last_lookup = now;
  g_autofree char *events = g_strdup(w->conf->events);
  g_autofree char *requests = g_strdup(w->conf->requests);
  if (!read_discovery(w->conf, NULL) ||
      (!strcmp(events, w->conf->events) && !strcmp(requests, w->conf->requests)))
    return;
  close_sockets(w);
  g_hash_table_remove_all(w->pending);
  g_clear_pointer(&w->snapshot_id, g_free);
  g_clear_pointer(&w->since_id, g_free);
  g_array_set_size(w->waiting, 0);
  w->synced = false;
  g_autofree char *failure = open_sockets(w);
  if (!failure)
    request_snapshot(w);
}

static void
send_eager_request(Worker *w)
{
  TdClient *client = w->client;
  g_mutex_lock(&client->lock);
  int eager = client->eager_request;
  client->eager_request = -1;
  g_mutex_unlock(&client->lock);
  if (eager >= 0)
    request(w, "set_eager", json_pack("{s:b}", "enabled", eager), false);
}

static void
drain_socket(Worker *w, void *socket, void (*handle)(Worker *, zmq_msg_t *, guint))
{
  zmq_msg_t frames[4];
  for (int budget = 1000; budget > 0; budget--) {
    bool too_many;
    guint n = recv_frames(socket, frames, G_N_ELEMENTS(frames), &too_many);
    if (n == 0)
      return;
    if (too_many)
      g_warning("td-client: dropped a message with too many frames");
    else
      handle(w, frames, n);
    close_frames(frames, n);
  }
}

static void
worker_free(Worker *w)
{
  close_sockets(w);
  zmq_ctx_term(w->zctx);
  g_hash_table_unref(w->pending);
  g_free(w->snapshot_id);
  g_free(w->since_id);
  g_free(w->prefix);
  g_array_unref(w->waiting);
  g_ptr_array_unref(w->batch);
}

static gpointer
attach_main(gpointer data)
{
  TdClient *client = data;
  Worker w = {.client = client, .conf = client->conf, .status = TD_CLIENT_CONNECTING};
  w.zctx = zmq_ctx_new();
  w.prefix = g_uuid_string_random();
  w.pending = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)request_free);
  w.waiting = g_array_new(FALSE, FALSE, sizeof(Pending));
  g_array_set_clear_func(w.waiting, pending_clear);
  w.batch = new_event_array();
  w.last_heard = g_get_monotonic_time();
  push_status(client->outbox, TD_CLIENT_CONNECTING, NULL);
  g_autofree char *failure = open_sockets(&w);
  if (failure)
    set_status(&w, TD_CLIENT_FAILED, failure);
  else
    request_snapshot(&w);
  while (!failure && !atomic_load(&client->stop)) {
    zmq_pollitem_t items[] = {
        {w.sub, 0, ZMQ_POLLIN, 0},
        {w.dealer, 0, ZMQ_POLLIN, 0},
        {NULL, client->wake_fd, ZMQ_POLLIN, 0},
    };
    bool connected = w.sub && w.dealer;
    zmq_pollitem_t *first = connected ? items : &items[2];
    if (zmq_poll(first, connected ? 3 : 1, TICK_MS) < 0 && errno != EINTR)
      break;
    if (items[2].revents & ZMQ_POLLIN) {
      uint64_t count;
      ssize_t n = read(client->wake_fd, &count, sizeof count);
      (void)n;
    }
    if (connected) {
      send_eager_request(&w);
      drain_socket(&w, w.sub, handle_live);
      drain_socket(&w, w.dealer, handle_reply);
      tick(&w);
    }
    flush_batch(&w);
    rediscover(&w);
  }
  worker_free(&w);
  atomic_store(&client->done, true);
  return NULL;
}

TdClient *
td_client_new_attach(const char *connection_file, const TdClientCallbacks *callbacks, gpointer data,
                     GMainContext *context, GError **error)
{
  g_return_val_if_fail(connection_file != NULL, NULL);
  g_autoptr(AttachConfig) conf = attach_config_load(connection_file, error);
  if (!conf)
    return NULL;
  int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (fd < 0) {
    g_set_error(error, TD_CLIENT_ERROR, TD_CLIENT_ERROR_FILE, "eventfd: %s", g_strerror(errno));
    return NULL;
  }
  TdClient *client = client_new(callbacks, data, context);
  client->attached = true;
  client->wake_fd = fd;
  client->conf = g_steal_pointer(&conf);
  client->worker = g_thread_new("td-attach", attach_main, client);
  return client;
}

/* ---- standalone: the worker --------------------------------------------------------------- */

/* core/py's writer for sys.stdout and sys.stderr, on the worker holding the GIL. */
static void
python_write(void *data, TpStream stream, const char *text, gsize len)
{
  if (python_client && len > 0)
    push_output(python_client->outbox, text, len, stream == TP_STDERR);
}

/* Starts Python on the calling thread (the GUI's) and releases the GIL. */
static bool
python_start(GError **error)
{
  static GMutex start_lock;
  g_mutex_lock(&start_lock);
  if (!python) {
    /* No SIGINT handler: interrupts go to the worker (tp_interrupt_thread). The result of a
     * notebook cell is printed by sys.displayhook, on python_write's stdout. */
    const TpConfig config = {.path0 = "", .write = python_write};
    g_autoptr(GError) inner = NULL;
    python = tp_interp_new(&config, &inner);
    if (python)
      PyEval_SaveThread(); /* the thread state stays with this thread, unused */
    else
      g_set_error(error, TD_CLIENT_ERROR, TD_CLIENT_ERROR_FILE, "cannot start Python: %s",
                  inner->message);
  }
  g_mutex_unlock(&start_lock);
  return python != NULL;
}

/* On the emitting thread (the worker, or the GUI's for set_eager). */
static void
local_event(const TrEvent *ev, gpointer data)
{
  TdClient *client = data;
  GPtrArray *events = new_event_array();
  g_ptr_array_add(events, tr_event_ref((TrEvent *)ev));
  push_events(client->outbox, events);
}

/* A fresh session for the run: __main__ emptied but for its module attributes, sys.argv the
 * script, its directory first on sys.path (as `python3 script.py`). GIL held. */
static void
prepare_session(TdClient *client)
{
  PyObject *globals = tp_interp_globals(python); /* borrowed */
  PyObject *keep = PyDict_New();                 /* owned */
  static const char *const kept[] = {"__name__",   "__doc__",  "__builtins__",
                                     "__loader__", "__spec__", "__package__"};
  for (size_t i = 0; keep && i < G_N_ELEMENTS(kept); i++) {
    PyObject *v = PyDict_GetItemString(globals, kept[i]); /* borrowed */
    if (v)
      PyDict_SetItemString(keep, kept[i], v);
  }
  PyDict_Clear(globals);
  if (keep)
    PyDict_Update(globals, keep);
  Py_XDECREF(keep);
  PyObject *argv = Py_BuildValue("[s]", client->path); /* owned */
  if (argv)
    PySys_SetObject("argv", argv);
  Py_XDECREF(argv);
  g_autofree char *dir = g_path_get_dirname(client->path);
  PyObject *sys_path = PySys_GetObject("path");     /* borrowed */
  PyObject *entry = PyUnicode_DecodeFSDefault(dir); /* owned */
  if (sys_path && entry && PyList_Check(sys_path) && !PySequence_Contains(sys_path, entry))
    PyList_Insert(sys_path, 0, entry);
  Py_XDECREF(entry);
  PyErr_Clear();
}

/* The exception that ended the run: its traceback on the run's stderr (as CPython prints an
 * uncaught one), its last line returned. Transfer full. */
static char *
report_exception(void)
{
  g_autoptr(TpException) exc = tp_exception_fetch();
  if (!exc)
    return g_strdup("error");
  if (exc->system_exit) /* exit() in a script ends it as CPython would; not an error unless non-zero
                         */
    return exc->exit_status == 0
               ? NULL
               : g_strdup_printf("SystemExit: %s",
                                 exc->exit_message ? exc->exit_message : exc->message);
  g_autoptr(GString) text = g_string_new(NULL);
  for (char **line = exc->lines; *line; line++)
    g_string_append_printf(text, "%s\n", *line);
  python_write(NULL, TP_STDERR, text->str, text->len);
  guint n = g_strv_length(exc->lines);
  return g_strdup(n > 0 ? exc->lines[n - 1] : exc->name);
}

/* Run the cells (GIL held); NULL when all ran, else the error (transfer full). */
static char *
run_cells(TdClient *client)
{
  for (guint i = 0; i < client->cells->len && !atomic_load(&client->stop); i++) {
    const TpNotebookCell *cell = client->cells->pdata[i];
    g_autofree char *name =
        client->notebook ? g_strdup_printf("<cell %u>", i + 1) : g_strdup(client->path);
    TpRunFlags flags = client->notebook ? TP_RUN_DISPLAY : TP_RUN_SET_FILE;
    bool ok = tp_run_cell(python, cell->source, -1, name, i + 1, flags);
    g_autofree char *error = ok ? NULL : report_exception(); /* before the flush clears it */
    tp_flush_std_streams();
    /* A cell tagged raises-exception fails as its notebook expects: the run goes on, as
     * nbclient's (the error is in the events and the output all the same). */
    if (!ok && !cell->raises_exception)
      return g_steal_pointer(&error);
  }
  return atomic_load(&client->stop) ? g_strdup("stopped") : NULL;
}

static gpointer
local_main(gpointer data)
{
  TdClient *client = data;
  g_mutex_lock(&python_turn);
  PyGILState_STATE gil = PyGILState_Ensure();
  python_client = client;
  prepare_session(client);
  PyObject *tf = tp_interp_tf(python); /* borrowed */
  TrEventBus *bus = tp_interp_event_bus(python);
  tr_event_bus_set_carry_graphs(bus, true);
  push_snapshot(client->outbox, tr_state_new(TD_CLIENT_KEEP_EVENTS));
  /* No replay: earlier runs' events are not this run's. */
  guint subscription = tr_event_bus_subscribe(bus, local_event, client, NULL, false);
  push_status(client->outbox, TD_CLIENT_RUNNING, NULL);

  g_mutex_lock(&client->lock);
  client->registry = tr_fn_registry_ref(tf_module_get_registry(tf));
  /* A run starts in graph mode, as a fresh session, unless the GUI asked otherwise. */
  tr_fn_registry_set_run_eagerly(client->registry, client->eager_request == 1);
  client->eager_request = -1;
  g_mutex_unlock(&client->lock);

  atomic_store(&client->running, true);
  g_autofree char *error = run_cells(client);
  atomic_store(&client->running, false);
  python_client = NULL;
  PyGILState_Release(gil);
  g_mutex_unlock(&python_turn);
  push_status(client->outbox, TD_CLIENT_FINISHED, error ? error : "ok");

  /* The registry stays until the client is freed: the eager switch still acts on it (and its
   * eager_mode event still arrives) after the last cell. */
  g_mutex_lock(&client->lock);
  while (!atomic_load(&client->stop))
    g_cond_wait(&client->stopped, &client->lock);
  g_clear_pointer(&client->registry, tr_fn_registry_unref);
  g_mutex_unlock(&client->lock);
  tr_event_bus_unsubscribe(bus, subscription);
  atomic_store(&client->done, true);
  return NULL;
}

/* The code cells of a notebook (TpNotebookCell *, transfer full), or NULL with `error`. */
static GPtrArray *
notebook_cells(const char *path, GError **error)
{
  g_autoptr(GError) inner = NULL;
  GPtrArray *cells = tp_notebook_code_cells(path, &inner);
  if (!cells)
    g_set_error(error, TD_CLIENT_ERROR, TD_CLIENT_ERROR_FILE, "cannot read notebook %s: %s", path,
                inner->message);
  return cells;
}

static void
free_script_cell(gpointer data)
{
  TpNotebookCell *cell = data;
  g_free(cell->source);
  g_free(cell);
}

TdClient *
td_client_new_local(const char *path, const TdClientCallbacks *callbacks, gpointer data,
                    GMainContext *context, GError **error)
{
  g_return_val_if_fail(path != NULL, NULL);
  bool notebook = g_str_has_suffix(path, ".ipynb");
  g_autoptr(GPtrArray) cells = NULL;
  g_autofree char *absolute = g_canonicalize_filename(path, NULL);
  if (notebook) {
    if (!(cells = notebook_cells(path, error)))
      return NULL;
  } else {
    char *text = NULL;
    if (!g_file_get_contents(path, &text, NULL, error))
      return NULL;
    cells = g_ptr_array_new_with_free_func(free_script_cell);
    TpNotebookCell *script = g_new(TpNotebookCell, 1); /* a script is one cell */
    *script = (TpNotebookCell){text, false};
    g_ptr_array_add(cells, script);
  }
  if (!python_start(error))
    return NULL;
  TdClient *client = client_new(callbacks, data, context);
  client->path = g_steal_pointer(&absolute);
  client->cells = g_steal_pointer(&cells);
  client->notebook = notebook;
  client->worker = g_thread_new("td-local", local_main, client);
  return client;
}

/* ---- running kernels -------------------------------------------------------------------- */

void
td_kernel_info_free(TdKernelInfo *info)
{
  if (!info)
    return;
  g_free(info->connection_file);
  g_free(info->discovery_file);
  g_free(info->started);
  g_free(info);
}

/* Jupyter's runtime directory, as jupyter_core computes it. Transfer full. */
static char *
default_runtime_dir(void)
{
  const char *env = g_getenv("JUPYTER_RUNTIME_DIR");
  if (env && *env)
    return g_strdup(env);
  env = g_getenv("XDG_RUNTIME_DIR");
  if (env && *env)
    return g_build_filename(env, "jupyter", NULL);
  env = g_getenv("JUPYTER_DATA_DIR");
  if (env && *env)
    return g_build_filename(env, "runtime", NULL);
  return g_build_filename(g_get_user_data_dir(), "jupyter", "runtime", NULL);
}

static bool
process_alive(gint64 pid)
{
  if (pid <= 0 || pid > G_MAXINT)
    return false;
  return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

/* A discovery file's entry, or NULL when it is unreadable or its process is gone. */
static TdKernelInfo *
kernel_info_load(const char *path)
{
  g_autoptr(json_t) disc = load_object(path, "discovery file", NULL);
  if (!disc)
    return NULL;
  json_t *pid = json_object_get(disc, "pid");
  const char *conn = string_member(disc, "connection_file");
  if (!json_is_integer(pid) || !conn || !process_alive(json_integer_value(pid)))
    return NULL;
  TdKernelInfo *info = g_new0(TdKernelInfo, 1);
  info->connection_file = g_strdup(conn);
  info->discovery_file = g_strdup(path);
  info->pid = json_integer_value(pid);
  const char *started = string_member(disc, "started");
  info->started = g_strdup(started ? started : "");
  return info;
}

static gint
newest_first(gconstpointer a, gconstpointer b)
{
  const TdKernelInfo *x = *(TdKernelInfo *const *)a, *y = *(TdKernelInfo *const *)b;
  int order = strcmp(y->started, x->started);
  return order ? order : (y->pid > x->pid) - (y->pid < x->pid);
}

GPtrArray *
td_kernel_list(const char *runtime_dir)
{
  g_autofree char *dir_path = runtime_dir ? g_strdup(runtime_dir) : default_runtime_dir();
  GPtrArray *kernels = g_ptr_array_new_with_free_func((GDestroyNotify)td_kernel_info_free);
  g_autoptr(GDir) dir = g_dir_open(dir_path, 0, NULL);
  if (!dir)
    return kernels;
  const char *name;
  while ((name = g_dir_read_name(dir))) {
    if (!g_str_has_prefix(name, "trellis-debug-") || !g_str_has_suffix(name, ".json"))
      continue;
    g_autofree char *path = g_build_filename(dir_path, name, NULL);
    TdKernelInfo *info = kernel_info_load(path);
    if (info)
      g_ptr_array_add(kernels, info);
  }
  g_ptr_array_sort(kernels, newest_first);
  return kernels;
}
