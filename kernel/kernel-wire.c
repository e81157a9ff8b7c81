/* kernel-wire.c — Jupyter messages on the wire: frames to messages and back.
 *
 * A message is [routing ids…, "<IDS|MSG>", signature, header, parent_header, metadata,
 * content, buffers…]. The signature is the hex HMAC of the four JSON frames. Every incoming
 * message is checked before its JSON is even parsed: missing frames, a missing or wrong
 * signature (compared in constant time) or a signature seen before (a replay) drop it. What
 * passes is parsed; a frame that is not a JSON object or a header without msg_id/msg_type
 * drops it too. Nothing here aborts on bad input: every refusal is a GError for the log.
 */
#include "kernel-private.h"

#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

static const char delimiter[] = "<IDS|MSG>";

/* ---- signing (core/wire's signer over GBytes frames) -------------------------------------- */

TkSigner *
tk_signer_new(const char *scheme, const char *key, GError **error)
{
  TkSigner *signer = tr_wire_signer_new(scheme, key);
  if (!signer)
    g_set_error(error, TK_ERROR, TK_ERROR_CONNECTION, "unsupported signature scheme '%s'", scheme);
  return signer;
}

char *
tk_signer_sign_frames(TkSigner *signer, GBytes *const *parts, guint n)
{
  g_autofree const void **data = g_new(const void *, MAX(n, 1));
  g_autofree size_t *sizes = g_new(size_t, MAX(n, 1));
  for (guint i = 0; i < n; i++)
    data[i] = g_bytes_get_data(parts[i], &sizes[i]);
  return tr_wire_signer_sign(signer, data, sizes, n);
}

bool
tk_signer_verify_frames(TkSigner *signer, GBytes *signature, GBytes *const *parts, guint n)
{
  g_autofree const void **data = g_new(const void *, MAX(n, 1));
  g_autofree size_t *sizes = g_new(size_t, MAX(n, 1));
  for (guint i = 0; i < n; i++)
    data[i] = g_bytes_get_data(parts[i], &sizes[i]);
  gsize len;
  const void *got = g_bytes_get_data(signature, &len);
  return tr_wire_signer_verify(signer, got ? got : "", len, data, sizes, n);
}

char *
tk_signer_sign(TkSigner *signer, GBytes *const parts[4])
{
  return tk_signer_sign_frames(signer, parts, 4);
}

bool
tk_signer_verify(TkSigner *signer, GBytes *signature, GBytes *const parts[4])
{
  return tk_signer_verify_frames(signer, signature, parts, 4);
}

/* ---- replay guard ------------------------------------------------------------------------- */

/* Each digest is remembered by its first TK_REPLAY_KEY bytes: a verified signature is the hex
 * text of an HMAC, so that is 128 bits of it, and 64 K of them take 2 MB. */
#define TK_REPLAY_KEY 32

struct TkReplayGuard {
  GMutex lock;                   /* shell (main thread) and control share the guard */
  GHashTable *seen;              /* key (a slot of `ring`) -> itself; owns nothing */
  guint8 (*ring)[TK_REPLAY_KEY]; /* the remembered keys, `capacity` slots, reused in turn */
  guint next;                    /* the slot the next digest takes */
  guint used;                    /* slots holding a key */
  guint capacity;                /* digests remembered */
};

static guint
replay_key_hash(gconstpointer key)
{
  guint h;
  memcpy(&h, key, sizeof h); /* hex HMAC text: any 4 bytes are as good as a hash */
  return g_int_hash(&h);
}

static gboolean
replay_key_equal(gconstpointer a, gconstpointer b)
{
  return memcmp(a, b, TK_REPLAY_KEY) == 0;
}

TkReplayGuard *
tk_replay_guard_new(guint capacity)
{
  TkReplayGuard *guard = g_new0(TkReplayGuard, 1);
  g_mutex_init(&guard->lock);
  guard->capacity = MAX(capacity, 1);
  guard->seen = g_hash_table_new(replay_key_hash, replay_key_equal);
  guard->ring = g_malloc0_n(guard->capacity, TK_REPLAY_KEY);
  return guard;
}

void
tk_replay_guard_free(TkReplayGuard *guard)
{
  if (!guard)
    return;
  g_hash_table_destroy(guard->seen);
  g_free(guard->ring);
  g_mutex_clear(&guard->lock);
  g_free(guard);
}

bool
tk_replay_guard_check(TkReplayGuard *guard, GBytes *digest)
{
  guint8 key[TK_REPLAY_KEY] = {0};
  gsize size;
  const void *data = g_bytes_get_data(digest, &size);
  memcpy(key, data, MIN(size, sizeof key));

  g_mutex_lock(&guard->lock);
  bool fresh = !g_hash_table_contains(guard->seen, key);
  if (fresh) {
    guint8 *slot = guard->ring[guard->next];
    if (guard->used == guard->capacity)
      g_hash_table_remove(guard->seen, slot); /* forget the oldest */
    else
      guard->used++;
    memcpy(slot, key, sizeof key);
    g_hash_table_add(guard->seen, slot);
    guard->next = (guard->next + 1) % guard->capacity;
  }
  g_mutex_unlock(&guard->lock);
  return fresh;
}

/* ---- parsing ------------------------------------------------------------------------------ */

void
tk_message_free(TkMessage *msg)
{
  if (!msg)
    return;
  g_clear_pointer(&msg->identities, g_ptr_array_unref);
  g_clear_pointer(&msg->buffers, g_ptr_array_unref);
  g_clear_pointer(&msg->header_raw, g_bytes_unref);
  json_decref(msg->header);
  json_decref(msg->parent_header);
  json_decref(msg->metadata);
  json_decref(msg->content);
  g_free(msg);
}

static bool
is_delimiter(GBytes *frame)
{
  gsize size;
  const char *data = g_bytes_get_data(frame, &size);
  return size == sizeof delimiter - 1 && memcmp(data, delimiter, size) == 0;
}

/* The frame's JSON value; an object unless `any` (then any JSON value). */
static json_t *
parse_json(GBytes *frame, const char *what, bool any, GError **error)
{
  gsize size;
  const char *data = g_bytes_get_data(frame, &size);
  json_error_t jerr;
  json_t *json = json_loadb(data ? data : "", size, any ? JSON_DECODE_ANY : 0, &jerr);
  if (!json) {
    g_set_error(error, TK_ERROR, TK_ERROR_MESSAGE, "%s is not JSON: %s", what, jerr.text);
    return NULL;
  }
  if (!any && !json_is_object(json)) {
    json_decref(json);
    g_set_error(error, TK_ERROR, TK_ERROR_MESSAGE, "%s is not a JSON object", what);
    return NULL;
  }
  return json;
}

TkMessage *
tk_message_parse(GPtrArray *frames, TkSigner *signer, TkReplayGuard *guard, GError **error)
{
  guint n = frames->len, d = 0;
  while (d < n && d <= TK_MAX_IDENTITIES && !is_delimiter(frames->pdata[d]))
    d++;
  if (d == n || d > TK_MAX_IDENTITIES) {
    g_set_error(error, TK_ERROR, TK_ERROR_MESSAGE, "no <IDS|MSG> delimiter in %u frames", n);
    return NULL;
  }
  if (n - d - 1 < 5) {
    g_set_error(error, TK_ERROR, TK_ERROR_MESSAGE,
                "%u frames after the delimiter, need signature and 4 JSON parts", n - d - 1);
    return NULL;
  }
  if (n - d - 6 > TK_MAX_BUFFERS) {
    g_set_error(error, TK_ERROR, TK_ERROR_MESSAGE, "%u buffers, at most %d accepted", n - d - 6,
                TK_MAX_BUFFERS);
    return NULL;
  }
  GBytes *signature = frames->pdata[d + 1];
  GBytes *const *parts = (GBytes *const *)&frames->pdata[d + 2];
  if (tr_wire_signer_enabled(signer)) {
    if (g_bytes_get_size(signature) == 0) {
      g_set_error(error, TK_ERROR, TK_ERROR_MESSAGE, "unsigned message");
      return NULL;
    }
    if (!tk_signer_verify(signer, signature, parts)) {
      g_set_error(error, TK_ERROR, TK_ERROR_MESSAGE, "wrong signature");
      return NULL;
    }
    if (!tk_replay_guard_check(guard, signature)) {
      g_set_error(error, TK_ERROR, TK_ERROR_MESSAGE, "replayed message (signature seen before)");
      return NULL;
    }
  }

  g_autoptr(TkMessage) msg = g_new0(TkMessage, 1);
  if (!(msg->header = parse_json(parts[0], "header", false, error)))
    return NULL;
  msg->msg_type = json_string_value(json_object_get(msg->header, "msg_type"));
  msg->msg_id = json_string_value(json_object_get(msg->header, "msg_id"));
  if (!msg->msg_type || !*msg->msg_type || !msg->msg_id) {
    g_set_error(error, TK_ERROR, TK_ERROR_MESSAGE, "header without msg_type or msg_id");
    return NULL;
  }
  /* A debug_request's content is a DAP message: one that is not an object is answered with a
   * failed DAP response (kernel-dap.c), as debuggers expect an answer to every request. */
  bool any_content = strcmp(msg->msg_type, "debug_request") == 0;
  if (!(msg->parent_header = parse_json(parts[1], "parent_header", false, error)) ||
      !(msg->metadata = parse_json(parts[2], "metadata", false, error)) ||
      !(msg->content = parse_json(parts[3], "content", any_content, error)))
    return NULL;
  msg->header_raw = g_bytes_ref(parts[0]);
  msg->identities = g_ptr_array_new_with_free_func((GDestroyNotify)g_bytes_unref);
  for (guint i = 0; i < d; i++)
    g_ptr_array_add(msg->identities, g_bytes_ref(frames->pdata[i]));
  msg->buffers = g_ptr_array_new_with_free_func((GDestroyNotify)g_bytes_unref);
  for (guint i = d + 6; i < n; i++)
    g_ptr_array_add(msg->buffers, g_bytes_ref(frames->pdata[i]));
  return g_steal_pointer(&msg);
}

void
tk_log_dropped(const char *channel, const GError *error)
{
  g_printerr("trellis-kernel: dropped a message on %s: %s\n", channel, error->message);
}

/* ---- receiving ---------------------------------------------------------------------------- */

static void
free_zmq_msg(gpointer data)
{
  zmq_msg_close(data);
  g_free(data);
}

GPtrArray *
tk_recv_frames(void *socket, int flags)
{
  return tk_recv_frames_fd(socket, flags, NULL);
}

GPtrArray *
tk_recv_frames_fd(void *socket, int flags, int *fd)
{
  if (fd)
    *fd = -1;
  /* Enough for the most ids and buffers accepted, plus one so that parsing sees "too many". */
  const guint cap = TK_MAX_IDENTITIES + 6 + TK_MAX_BUFFERS + 1;
  GPtrArray *frames = g_ptr_array_new_with_free_func((GDestroyNotify)g_bytes_unref);
  for (;;) {
    zmq_msg_t *part = g_new(zmq_msg_t, 1);
    zmq_msg_init(part);
    int rc;
    while ((rc = zmq_msg_recv(part, socket, frames->len ? 0 : flags)) < 0 && errno == EINTR &&
           frames->len > 0)
      ;
    if (rc < 0) {
      free_zmq_msg(part);
      g_ptr_array_unref(frames);
      return NULL;
    }
    bool more = zmq_msg_more(part);
    /* A ROUTER's routing-id frame is made by the socket and has no fd; the frames after it
     * came over the connection. */
    if (fd && *fd < 0)
      *fd = zmq_msg_get(part, ZMQ_SRCFD);
    if (frames->len < cap)
      g_ptr_array_add(frames, g_bytes_new_with_free_func(zmq_msg_data(part), zmq_msg_size(part),
                                                         free_zmq_msg, part));
    else
      free_zmq_msg(part);
    if (!more)
      return frames;
  }
}

/* ---- sending ------------------------------------------------------------------------------ */

json_t *
tk_json_string(const char *text, gssize len)
{
  if (len < 0)
    len = strlen(text);
  if (g_utf8_validate_len(text, len, NULL) && !memchr(text, '\0', len))
    return json_stringn(text, len);
  /* Text from a cell may be any bytes; the wire wants valid UTF-8. */
  g_autofree char *valid = g_utf8_make_valid(text, len);
  return json_string(valid);
}

/* "2026-01-01T00:00:00.000000Z": the header's date, UTC with microseconds. */
static void
format_date(char out[64])
{
  gint64 now = g_get_real_time();
  time_t secs = now / G_USEC_PER_SEC;
  struct tm tm;
  gmtime_r(&secs, &tm);
  snprintf(out, 64, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", tm.tm_year + 1900, tm.tm_mon + 1,
           tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(now % G_USEC_PER_SEC));
}

/* The user name as a JSON string, and the process id: the same in every header. */
typedef struct {
  char *username_json;
  int pid;
} HeaderConstants;

static const HeaderConstants *
header_constants(void)
{
  static HeaderConstants constants;
  static gsize done;
  if (g_once_init_enter(&done)) {
    json_t *name = tk_json_string(g_get_user_name(), -1);
    constants.username_json = json_dumps(name, JSON_ENCODE_ANY);
    json_decref(name);
    constants.pid = (int)getpid();
    g_once_init_leave(&done, 1);
  }
  return &constants;
}

/* A header is printed rather than built with jansson: it is on every message's path, and its
 * only free text, the user name, is escaped once. msg_type and session are the kernel's own
 * (identifiers and a UUID) and need no escaping. */
static GBytes *
header_bytes(TkSender *sender, const char *msg_type)
{
  const HeaderConstants *hc = header_constants();
  char date[64];
  format_date(date);
  char *text =
      g_strdup_printf("{\"msg_id\":\"%s_%d_%u\",\"msg_type\":\"%s\",\"username\":%s,"
                      "\"session\":\"%s\",\"date\":\"%s\",\"version\":\"%s\"}",
                      sender->session, hc->pid, atomic_fetch_add(sender->counter, 1), msg_type,
                      hc->username_json, sender->session, date, TK_PROTOCOL_VERSION);
  return g_bytes_new_take(text, strlen(text));
}

/* One frame; retried when a signal interrupts it. */
static bool
send_frame(void *socket, const void *data, size_t size, bool more)
{
  while (zmq_send(socket, data, size, more ? ZMQ_SNDMORE : 0) < 0) {
    if (errno != EINTR) {
      g_printerr("trellis-kernel: cannot send: %s\n", zmq_strerror(errno));
      return false;
    }
  }
  return true;
}

static bool
send_bytes(void *socket, GBytes *bytes, bool more)
{
  gsize size;
  const void *data = g_bytes_get_data(bytes, &size);
  return send_frame(socket, data ? data : "", size, more);
}

static bool
send_message(TkSender *sender, void *socket, GPtrArray *identities, const char *topic,
             const char *msg_type, const TkMessage *parent, json_t *content)
{
  char *content_text = json_dumps(content, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(content);
  if (!content_text) {
    g_printerr("trellis-kernel: cannot serialise a %s\n", msg_type);
    return false;
  }
  GBytes *parts[4] = {
      header_bytes(sender, msg_type),
      parent && parent->header_raw ? g_bytes_ref(parent->header_raw) : g_bytes_new_static("{}", 2),
      g_bytes_new_static("{}", 2),
      g_bytes_new_take(content_text, strlen(content_text)),
  };
  g_autofree char *signature = tk_signer_sign(sender->signer, parts);
  bool ok = true;
  if (identities)
    for (guint i = 0; ok && i < identities->len; i++)
      ok = send_bytes(socket, identities->pdata[i], true);
  if (topic)
    ok = ok && send_frame(socket, topic, strlen(topic), true);
  ok = ok && send_frame(socket, delimiter, sizeof delimiter - 1, true) &&
       send_frame(socket, signature, strlen(signature), true);
  for (int i = 0; i < 4; i++) {
    ok = ok && send_bytes(socket, parts[i], i < 3);
    g_bytes_unref(parts[i]);
  }
  return ok;
}

bool
tk_send(TkSender *sender, void *socket, GPtrArray *identities, const char *msg_type,
        const TkMessage *parent, json_t *content)
{
  return send_message(sender, socket, identities, NULL, msg_type, parent, content);
}

/* Reads the subscription messages waiting on the XPUB socket; true once one subscribed. */
static bool
drain_subscriptions(TkSender *sender, int timeout_ms)
{
  zmq_pollitem_t item = {.socket = sender->iopub, .events = ZMQ_POLLIN};
  while (zmq_poll(&item, 1, sender->iopub_state->subscribed ? 0 : timeout_ms) > 0) {
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    if (zmq_msg_recv(&msg, sender->iopub, ZMQ_DONTWAIT) >= 0 && zmq_msg_size(&msg) > 0 &&
        ((const unsigned char *)zmq_msg_data(&msg))[0] == 1)
      sender->iopub_state->subscribed = true;
    zmq_msg_close(&msg);
    if (sender->iopub_state->subscribed)
      timeout_ms = 0;
  }
  return sender->iopub_state->subscribed;
}

bool
tk_iopub_wait_subscriber(TkSender *sender, int timeout_ms)
{
  g_mutex_lock(sender->iopub_lock);
  TkIopubState *state = sender->iopub_state;
  bool subscribed =
      state->subscribed || drain_subscriptions(sender, state->waited ? 0 : timeout_ms);
  if (!subscribed)
    state->waited = true;
  g_mutex_unlock(sender->iopub_lock);
  return subscribed;
}

bool
tk_publish(TkSender *sender, const char *msg_type, const TkMessage *parent, json_t *content)
{
  /* The threads take turns on the one PUB socket; the lock's memory barriers are what
   * ZeroMQ asks of a socket that moves between threads. */
  g_mutex_lock(sender->iopub_lock);
  bool ok = send_message(sender, sender->iopub, NULL, msg_type, msg_type, parent, content);
  g_mutex_unlock(sender->iopub_lock);
  return ok;
}
