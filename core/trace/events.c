/* events.c — events, their JSON form, and the bus that numbers and delivers them
 * (see tr-events.h). Everything per field or per kind is generated from the X-macro lists. */
#include "tr-events.h"
#include "tr-event-log.h"
#include "trace-private.h"

#include <string.h>
#include <time.h>

/* ---- causes and outcomes ---- */

static const char *const cause_names[] = {
#define TR_CAUSE_NAME(id, name) name,
    TR_CAUSE_KIND_LIST(TR_CAUSE_NAME)
#undef TR_CAUSE_NAME
};
G_STATIC_ASSERT(G_N_ELEMENTS(cause_names) == TR_CAUSE_N_KINDS);

const char *
tr_cause_kind_name(TrCauseKind kind)
{
  g_return_val_if_fail(kind >= 0 && kind < TR_CAUSE_N_KINDS, "other");
  return cause_names[kind];
}

TrCauseKind
tr_cause_kind_from_name(const char *name)
{
  for (int i = 0; i < TR_CAUSE_N_KINDS; i++)
    if (g_strcmp0(cause_names[i], name) == 0)
      return (TrCauseKind)i;
  return TR_CAUSE_OTHER;
}

TrRetraceCause *
tr_retrace_cause_new(const char *arg, TrCauseKind kind, const char *text)
{
  TrRetraceCause *c = g_new0(TrRetraceCause, 1);
  c->arg = g_strdup(arg);
  c->kind = kind;
  c->text = g_strdup(text);
  return c;
}

void
tr_retrace_cause_free(TrRetraceCause *cause)
{
  if (cause == NULL)
    return;
  g_free(cause->arg);
  g_free(cause->text);
  g_free(cause);
}

GPtrArray *
tr_retrace_causes_new(void)
{
  return g_ptr_array_new_with_free_func((GDestroyNotify)tr_retrace_cause_free);
}

static const char *const outcome_names[] = {
#define TR_OUTCOME_NAME(id, name) name,
    TR_OUTCOME_LIST(TR_OUTCOME_NAME)
#undef TR_OUTCOME_NAME
};
G_STATIC_ASSERT(G_N_ELEMENTS(outcome_names) == TR_OUTCOME_N);

const char *
tr_outcome_name(TrOutcome outcome)
{
  g_return_val_if_fail(outcome >= 0 && outcome < TR_OUTCOME_N, "none");
  return outcome_names[outcome];
}

static TrOutcome
outcome_from_name(const char *name)
{
  for (int i = 0; i < TR_OUTCOME_N; i++)
    if (g_strcmp0(outcome_names[i], name) == 0)
      return (TrOutcome)i;
  return TR_OUTCOME_NONE;
}

/* ---- events ---- */

static const struct {
  const char *name; /* JSON "kind" */
  gsize len;        /* its length */
  guint fields;     /* TR_EF() bits */
} event_kinds[] = {
#define TR_EVENT_KIND_ROW(id, name, fields) {name, sizeof name - 1, fields},
    TR_EVENT_KIND_LIST(TR_EVENT_KIND_ROW)
#undef TR_EVENT_KIND_ROW
};
G_STATIC_ASSERT(G_N_ELEMENTS(event_kinds) == TR_EVENT_N_KINDS);
G_STATIC_ASSERT(TR_EVENT_N_FIELDS <= 32);

const char *
tr_event_kind_name(TrEventKind kind)
{
  g_return_val_if_fail(kind >= 0 && kind < TR_EVENT_N_KINDS, "?");
  return event_kinds[kind].name;
}

TrEventKind
tr_event_kind_from_name(const char *name)
{
  for (int i = 0; i < TR_EVENT_N_KINDS; i++)
    if (g_strcmp0(event_kinds[i].name, name) == 0)
      return (TrEventKind)i;
  return TR_EVENT_N_KINDS;
}

guint
tr_event_kind_fields(TrEventKind kind)
{
  g_return_val_if_fail(kind >= 0 && kind < TR_EVENT_N_KINDS, 0);
  return event_kinds[kind].fields;
}

TrEvent *
tr_event_new(TrEventKind kind)
{
  g_return_val_if_fail(kind >= 0 && kind < TR_EVENT_N_KINDS, NULL);
  TrEvent *ev = g_new0(TrEvent, 1);
  ev->refcount = 1;
  ev->kind = kind;
  ev->ok = true;
  return ev;
}

TrEvent *
tr_event_ref(TrEvent *ev)
{
  g_return_val_if_fail(ev != NULL, NULL);
  g_atomic_int_inc(&ev->refcount);
  return ev;
}

#define FREE_INT(member)
#define FREE_BOOL(member)
#define FREE_OUTCOME(member)
#define FREE_STR(member)    g_free(ev->member);
#define FREE_CAUSES(member) g_clear_pointer(&ev->member, g_ptr_array_unref);

void
tr_event_unref(TrEvent *ev)
{
  if (ev == NULL || !g_atomic_int_dec_and_test(&ev->refcount))
    return;
#define TR_EVENT_FREE(type, member, key) FREE_##type(member)
  TR_EVENT_FIELD_LIST(TR_EVENT_FREE)
#undef TR_EVENT_FREE
  g_free(ev);
}

#define SIZE_INT(member)
#define SIZE_BOOL(member)
#define SIZE_OUTCOME(member)
#define SIZE_STR(member)                                                                           \
  if (ev->member)                                                                                  \
    size += strlen(ev->member) + 1;
#define SIZE_CAUSES(member)                                                                        \
  for (guint i = 0; ev->member && i < ev->member->len; i++) {                                      \
    const TrRetraceCause *c = ev->member->pdata[i];                                                \
    size += sizeof *c + (c->arg ? strlen(c->arg) + 1 : 0) + (c->text ? strlen(c->text) + 1 : 0);   \
  }

gsize
tr_event_size(const TrEvent *ev)
{
  g_return_val_if_fail(ev != NULL, 0);
  gsize size = sizeof *ev;
#define TR_EVENT_SIZE(type, member, key) SIZE_##type(member)
  TR_EVENT_FIELD_LIST(TR_EVENT_SIZE)
#undef TR_EVENT_SIZE
  return size;
}

void
tr_event_set_site(TrEvent *ev, const char *file, int line, gint64 cell)
{
  g_return_if_fail(ev != NULL);
  g_free(ev->file);
  ev->file = g_strdup(file);
  ev->line = line;
  ev->cell = cell;
}

#define COPY_INT(member)
#define COPY_BOOL(member)
#define COPY_OUTCOME(member)
#define COPY_STR(member) ev->member = g_strdup(src->member);
#define COPY_CAUSES(member)                                                                        \
  if (src->member) {                                                                               \
    ev->member = tr_retrace_causes_new();                                                          \
    for (guint i = 0; i < src->member->len; i++) {                                                 \
      const TrRetraceCause *c = src->member->pdata[i];                                             \
      g_ptr_array_add(ev->member, tr_retrace_cause_new(c->arg, c->kind, c->text));                 \
    }                                                                                              \
  }

TrEvent *
tr_event_copy(const TrEvent *src)
{
  g_return_val_if_fail(src != NULL, NULL);
  TrEvent *ev = g_memdup2(src, sizeof *src);
  ev->refcount = 1;
#define TR_EVENT_COPY(type, member, key) COPY_##type(member)
  TR_EVENT_FIELD_LIST(TR_EVENT_COPY)
#undef TR_EVENT_COPY
  return ev;
}

/* ---- JSON ---- */

static json_t *
causes_to_json(const GPtrArray *causes)
{
  json_t *arr = json_array();
  for (guint i = 0; causes && i < causes->len; i++) {
    const TrRetraceCause *c = g_ptr_array_index(causes, i);
    json_t *o = json_object();
    json_object_set_new(o, "arg", c->arg ? json_string(c->arg) : json_null());
    json_object_set_new(o, "kind", json_string(tr_cause_kind_name(c->kind)));
    json_object_set_new(o, "text", json_string(c->text));
    json_array_append_new(arr, o);
  }
  return arr;
}

#define TO_JSON_INT(v)     json_integer(v)
#define TO_JSON_BOOL(v)    json_boolean(v)
#define TO_JSON_STR(v)     ((v) ? json_string(v) : json_null())
#define TO_JSON_OUTCOME(v) json_string(tr_outcome_name(v))
#define TO_JSON_CAUSES(v)  causes_to_json(v)

json_t *
tr_event_to_json(const TrEvent *ev)
{
  g_return_val_if_fail(ev != NULL, NULL);
  json_t *o = json_object();
  json_object_set_new(o, "seq", json_integer((json_int_t)ev->seq));
  json_object_set_new(o, "ts_ns", json_integer(ev->ts_ns));
  json_object_set_new(o, "kind", json_string(tr_event_kind_name(ev->kind)));
  guint fields = tr_event_kind_fields(ev->kind);
#define TR_EVENT_TO_JSON(type, member, key)                                                        \
  if (fields & TR_EF(member))                                                                      \
    json_object_set_new(o, key, TO_JSON_##type(ev->member));
  TR_EVENT_FIELD_LIST(TR_EVENT_TO_JSON)
#undef TR_EVENT_TO_JSON
  return o;
}

/* JSON text written directly, not through jansson's tree: a call's line is written a
 * million times a second when a program's events are saved. The text is what jansson writes
 * with JSON_COMPACT | JSON_ENSURE_ASCII | JSON_PRESERVE_ORDER, so that both forms agree. */

/* "00" to "99": numbers are written two digits at a time (a line has a dozen of them). */
static const char digit_pairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

void
tr_json_append_int(GString *out, gint64 v)
{
  char buf[24];
  char *p = buf + sizeof buf;
  guint64 u = v < 0 ? (guint64)0 - (guint64)v : (guint64)v;
  while (u >= 100) {
    guint64 q = u / 100;
    p -= 2;
    memcpy(p, digit_pairs + 2 * (u - q * 100), 2);
    u = q;
  }
  if (u >= 10) {
    p -= 2;
    memcpy(p, digit_pairs + 2 * u, 2);
  } else {
    *--p = (char)('0' + u);
  }
  if (v < 0)
    *--p = '-';
  tr_put(out, p, (gsize)(buf + sizeof buf - p));
}

static void
append_escape(GString *out, gunichar c)
{
  static const char hex[] = "0123456789ABCDEF";
  char esc[6] = {'\\',       'u', hex[(c >> 12) & 15], hex[(c >> 8) & 15], hex[(c >> 4) & 15],
                 hex[c & 15]};
  tr_put(out, esc, 6);
}

void
tr_json_append_string(GString *out, const char *s)
{
  if (s == NULL) {
    TR_PUT_LITERAL(out, "null");
    return;
  }
  tr_put_c(out, '"');
  const char *run = s; /* start of the bytes not yet copied, which need no escape */
  for (const char *p = s; *p;) {
    guchar c = (guchar)*p;
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      p++;
      continue;
    }
    tr_put(out, run, (gsize)(p - run));
    if (c < 0x80) {
      const char *named = c == '"'    ? "\\\""
                          : c == '\\' ? "\\\\"
                          : c == '\n' ? "\\n"
                          : c == '\t' ? "\\t"
                          : c == '\r' ? "\\r"
                          : c == '\b' ? "\\b"
                          : c == '\f' ? "\\f"
                                      : NULL;
      if (named)
        tr_put(out, named, 2);
      else
        append_escape(out, c);
      run = ++p;
      continue;
    }
    /* Non-ASCII as \uXXXX (a surrogate pair above the BMP); a malformed byte as U+FFFD. */
    gunichar u = g_utf8_get_char_validated(p, -1);
    if (u == (gunichar)-1 || u == (gunichar)-2) {
      append_escape(out, 0xfffd);
      run = ++p;
      continue;
    }
    if (u >= 0x10000) {
      append_escape(out, 0xd800 + ((u - 0x10000) >> 10));
      append_escape(out, 0xdc00 + ((u - 0x10000) & 0x3ff));
    } else {
      append_escape(out, u);
    }
    run = p = g_utf8_next_char(p);
  }
  tr_put(out, run, strlen(run));
  tr_put_c(out, '"');
}

static void
append_causes(GString *out, const GPtrArray *causes)
{
  tr_put_c(out, '[');
  for (guint i = 0; causes && i < causes->len; i++) {
    const TrRetraceCause *c = g_ptr_array_index(causes, i);
    if (i)
      tr_put_c(out, ',');
    TR_PUT_LITERAL(out, "{\"arg\":");
    tr_json_append_string(out, c->arg);
    TR_PUT_LITERAL(out, ",\"kind\":");
    tr_json_append_string(out, tr_cause_kind_name(c->kind));
    TR_PUT_LITERAL(out, ",\"text\":");
    tr_json_append_string(out, c->text);
    tr_put_c(out, '}');
  }
  tr_put_c(out, ']');
}

#define APPEND_INT(v)     tr_json_append_int(out, v)
#define APPEND_BOOL(v)    ((v) ? TR_PUT_LITERAL(out, "true") : TR_PUT_LITERAL(out, "false"))
#define APPEND_STR(v)     tr_json_append_string(out, v)
#define APPEND_OUTCOME(v) tr_json_append_string(out, tr_outcome_name(v))
#define APPEND_CAUSES(v)  append_causes(out, v)

void
tr_event_append_json_parts(GString *out, const TrEvent *ev, const GString *site, const GString *fn)
{
  TR_PUT_LITERAL(out, "{\"seq\":");
  tr_json_append_int(out, (gint64)ev->seq);
  TR_PUT_LITERAL(out, ",\"ts_ns\":");
  tr_json_append_int(out, ev->ts_ns);
  TR_PUT_LITERAL(out, ",\"kind\":\"");
  tr_put(out, event_kinds[ev->kind].name, event_kinds[ev->kind].len);
  tr_put_c(out, '"');
  guint fields = tr_event_kind_fields(ev->kind);
  /* The site's and the Function's fields come first and together, in this order. */
  if (site && (fields & TR_EF_SITE) == TR_EF_SITE) {
    tr_put(out, site->str, site->len);
    fields &= ~TR_EF_SITE;
  }
  if (fn && (fields & TR_EF_FN) == TR_EF_FN) {
    tr_put(out, fn->str, fn->len);
    fields &= ~TR_EF_FN;
  }
#define TR_EVENT_APPEND(type, member, key)                                                         \
  if (fields & TR_EF(member)) {                                                                    \
    TR_PUT_LITERAL(out, ",\"" key "\":");                                                          \
    APPEND_##type(ev->member);                                                                     \
  }
  TR_EVENT_FIELD_LIST(TR_EVENT_APPEND)
#undef TR_EVENT_APPEND
  tr_put_c(out, '}');
}

void
tr_event_append_json(GString *out, const TrEvent *ev)
{
  g_return_if_fail(out != NULL && ev != NULL);
  tr_event_append_json_parts(out, ev, NULL, NULL);
}

char *
tr_event_to_json_line(const TrEvent *ev)
{
  g_return_val_if_fail(ev != NULL, NULL);
  GString *out = g_string_sized_new(256);
  tr_event_append_json(out, ev);
  return g_string_free(out, FALSE);
}

static gboolean
causes_from_json(json_t *v, GPtrArray **out, GError **error)
{
  if (json_is_null(v))
    return TRUE;
  if (!json_is_array(v)) {
    g_set_error(error, TR_EVENTS_ERROR, TR_EVENTS_ERROR_INVALID, "\"causes\" is not an array");
    return FALSE;
  }
  GPtrArray *causes = tr_retrace_causes_new();
  size_t i;
  json_t *c;
  json_array_foreach(v, i, c)
  {
    const char *text = json_string_value(json_object_get(c, "text"));
    if (text == NULL) {
      g_set_error(error, TR_EVENTS_ERROR, TR_EVENTS_ERROR_INVALID, "a cause has no \"text\"");
      g_ptr_array_unref(causes);
      return FALSE;
    }
    g_ptr_array_add(
        causes, tr_retrace_cause_new(
                    json_string_value(json_object_get(c, "arg")),
                    tr_cause_kind_from_name(json_string_value(json_object_get(c, "kind"))), text));
  }
  *out = causes;
  return TRUE;
}

/* Each reader checks the JSON type, then stores; a wrong type is malformed input. */
#define FROM_JSON_CHECK(ok, key)                                                                   \
  if (!(ok)) {                                                                                     \
    g_set_error(error, TR_EVENTS_ERROR, TR_EVENTS_ERROR_INVALID,                                   \
                "field \"%s\" has the wrong type", key);                                           \
    tr_event_unref(ev);                                                                            \
    return NULL;                                                                                   \
  }
#define FROM_JSON_INT(member, key, v)                                                              \
  FROM_JSON_CHECK(json_is_integer(v), key) ev->member = json_integer_value(v);
#define FROM_JSON_BOOL(member, key, v)                                                             \
  FROM_JSON_CHECK(json_is_boolean(v), key) ev->member = json_is_true(v);
#define FROM_JSON_STR(member, key, v)                                                              \
  FROM_JSON_CHECK(json_is_string(v) || json_is_null(v), key)                                       \
  ev->member = g_strdup(json_string_value(v));
#define FROM_JSON_OUTCOME(member, key, v)                                                          \
  FROM_JSON_CHECK(json_is_string(v), key) ev->member = outcome_from_name(json_string_value(v));
#define FROM_JSON_CAUSES(member, key, v)                                                           \
  if (!causes_from_json(v, &ev->member, error)) {                                                  \
    tr_event_unref(ev);                                                                            \
    return NULL;                                                                                   \
  }

TrEvent *
tr_event_from_json(json_t *obj, GError **error)
{
  g_return_val_if_fail(error == NULL || *error == NULL, NULL);
  if (!json_is_object(obj)) {
    g_set_error(error, TR_EVENTS_ERROR, TR_EVENTS_ERROR_INVALID, "an event is not a JSON object");
    return NULL;
  }
  const char *kind_name = json_string_value(json_object_get(obj, "kind"));
  TrEventKind kind = tr_event_kind_from_name(kind_name);
  if (kind == TR_EVENT_N_KINDS) {
    g_set_error(error, TR_EVENTS_ERROR, TR_EVENTS_ERROR_INVALID, "unknown event kind \"%s\"",
                kind_name ? kind_name : "(none)");
    return NULL;
  }
  TrEvent *ev = tr_event_new(kind);
  ev->seq = (guint64)json_integer_value(json_object_get(obj, "seq"));
  ev->ts_ns = json_integer_value(json_object_get(obj, "ts_ns"));
  guint fields = tr_event_kind_fields(kind);
  json_t *v;
#define TR_EVENT_FROM_JSON(type, member, key)                                                      \
  if ((fields & TR_EF(member)) && (v = json_object_get(obj, key)) != NULL) {                       \
    FROM_JSON_##type(member, key, v)                                                               \
  }
  TR_EVENT_FIELD_LIST(TR_EVENT_FROM_JSON)
#undef TR_EVENT_FROM_JSON
  return ev;
}

G_DEFINE_QUARK(tr-events-error-quark, tr_events_error);

/* ---- the bus ---- */

typedef struct {
  guint id;               /* for unsubscribe */
  guint64 kinds;          /* bit per TrEventKind it receives */
  guint64 keeps;          /* bit per TrEventKind whose events it may keep (ref) */
  TrEventFunc func;       /* the callback */
  gpointer user_data;     /* its data */
  GDestroyNotify destroy; /* frees user_data */
} Subscriber;

struct _TrEventBus {
  int refcount;        /* owners */
  GRecMutex lock;      /* serialises emission, so delivery follows sequence order */
  guint64 last_seq;    /* last number given */
  gint64 last_ts;      /* time given with it */
  gint64 origin_ns;    /* clock value at creation: ts_ns counts from here */
  TrClockFunc clock;   /* time source */
  gpointer clock_data; /* its data */
  TrEventLog *history; /* the events kept, oldest first */
  guint history_limit; /* most events kept */
  /* Subscriber, never changed once made: (un)subscribing replaces the array, so emission walks
   * it (holding a reference) without copying it for each event, even when a callback
   * subscribes or unsubscribes. */
  GArray *subscribers;
  guint next_sub_id; /* ids start at 1 */
  guint64 wanted;    /* kinds someone keeps or receives (atomic): others need not be made */
  guint64 kept;      /* kinds some subscriber may ref: a view of those is copied first */
  int carry_graphs;  /* concrete_function_added carries the graph's JSON (atomic) */
};

#define ALL_KINDS ((G_GUINT64_CONSTANT(1) << TR_EVENT_N_KINDS) - 1)

/* Recomputes `wanted`; the lock is held. */
static void
update_wanted(TrEventBus *bus)
{
  guint64 w = bus->history_limit > 0 ? ALL_KINDS : 0;
  guint64 kept = 0;
  for (guint i = 0; i < bus->subscribers->len; i++) {
    const Subscriber *s = &g_array_index(bus->subscribers, Subscriber, i);
    w |= s->kinds;
    kept |= s->kinds & s->keeps;
  }
  bus->kept = kept;
  __atomic_store_n(&bus->wanted, w, __ATOMIC_RELEASE);
}

bool
tr_event_bus_wants(TrEventBus *bus, TrEventKind kind)
{
  return (__atomic_load_n(&bus->wanted, __ATOMIC_ACQUIRE) >> kind) & 1;
}

void
tr_event_bus_set_carry_graphs(TrEventBus *bus, bool carry)
{
  g_return_if_fail(bus != NULL);
  g_atomic_int_set(&bus->carry_graphs, carry ? 1 : 0);
}

bool
tr_event_bus_carries_graphs(TrEventBus *bus)
{
  g_return_val_if_fail(bus != NULL, false);
  return g_atomic_int_get(&bus->carry_graphs) != 0;
}

static gint64
monotonic_ns(gpointer user_data)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (gint64)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

TrEventBus *
tr_event_bus_new(void)
{
  TrEventBus *bus = g_new0(TrEventBus, 1);
  bus->refcount = 1;
  g_rec_mutex_init(&bus->lock);
  bus->clock = monotonic_ns;
  bus->origin_ns = monotonic_ns(NULL);
  bus->history = tr_event_log_new();
  bus->history_limit = G_MAXUINT;
  bus->subscribers = g_array_new(FALSE, FALSE, sizeof(Subscriber));
  bus->wanted = ALL_KINDS;
  return bus;
}

TrEventBus *
tr_event_bus_ref(TrEventBus *bus)
{
  g_return_val_if_fail(bus != NULL, NULL);
  g_atomic_int_inc(&bus->refcount);
  return bus;
}

void
tr_event_bus_unref(TrEventBus *bus)
{
  if (bus == NULL || !g_atomic_int_dec_and_test(&bus->refcount))
    return;
  for (guint i = 0; i < bus->subscribers->len; i++) {
    Subscriber *s = &g_array_index(bus->subscribers, Subscriber, i);
    if (s->destroy)
      s->destroy(s->user_data);
  }
  g_array_unref(bus->subscribers);
  tr_event_log_free(bus->history);
  g_rec_mutex_clear(&bus->lock);
  g_free(bus);
}

void
tr_event_bus_set_clock(TrEventBus *bus, TrClockFunc clock, gpointer user_data)
{
  g_return_if_fail(bus != NULL);
  g_rec_mutex_lock(&bus->lock);
  bus->clock = clock ? clock : monotonic_ns;
  bus->clock_data = clock ? user_data : NULL;
  bus->origin_ns = bus->clock(bus->clock_data);
  g_rec_mutex_unlock(&bus->lock);
}

gint64
tr_event_bus_now(TrEventBus *bus)
{
  g_return_val_if_fail(bus != NULL, 0);
  return bus->clock(bus->clock_data) - bus->origin_ns;
}

static void
trim_history(TrEventBus *bus)
{
  guint64 n = tr_event_log_length(bus->history);
  if (n > bus->history_limit)
    tr_event_log_drop_front(bus->history, n - bus->history_limit);
}

void
tr_event_bus_set_history_limit(TrEventBus *bus, guint limit)
{
  g_return_if_fail(bus != NULL);
  g_rec_mutex_lock(&bus->lock);
  bus->history_limit = limit;
  trim_history(bus);
  update_wanted(bus);
  g_rec_mutex_unlock(&bus->lock);
}

GPtrArray *
tr_event_bus_get_history(TrEventBus *bus)
{
  g_return_val_if_fail(bus != NULL, NULL);
  g_rec_mutex_lock(&bus->lock);
  guint64 n = tr_event_log_length(bus->history);
  GPtrArray *out = g_ptr_array_new_full((guint)n, (GDestroyNotify)tr_event_unref);
  for (guint64 i = 0; i < n; i++)
    g_ptr_array_add(out, tr_event_log_get(bus->history, i));
  g_rec_mutex_unlock(&bus->lock);
  return out;
}

guint
tr_event_bus_subscribe(TrEventBus *bus, TrEventFunc func, gpointer user_data,
                       GDestroyNotify destroy, bool replay)
{
  return tr_event_bus_subscribe_kinds(bus, ALL_KINDS, func, user_data, destroy, replay);
}

guint
tr_event_bus_subscribe_kinds(TrEventBus *bus, guint64 kinds, TrEventFunc func, gpointer user_data,
                             GDestroyNotify destroy, bool replay)
{
  return tr_event_bus_subscribe_full(bus, kinds, ALL_KINDS, func, user_data, destroy, replay);
}

guint
tr_event_bus_subscribe_full(TrEventBus *bus, guint64 kinds, guint64 keeps, TrEventFunc func,
                            gpointer user_data, GDestroyNotify destroy, bool replay)
{
  g_return_val_if_fail(bus != NULL && func != NULL, 0);
  g_rec_mutex_lock(&bus->lock);
  Subscriber s = {++bus->next_sub_id, kinds & ALL_KINDS, keeps, func, user_data, destroy};
  if (replay) {
    TrEvent scratch;
    for (guint64 i = 0, n = tr_event_log_length(bus->history); i < n; i++) {
      const TrEvent *ev = tr_event_log_peek(bus->history, i, &scratch);
      if (!((s.kinds >> ev->kind) & 1))
        continue;
      /* A view may not be kept: a subscriber that may keep it gets an event of its own. */
      if (ev == &scratch && ((s.keeps >> ev->kind) & 1)) {
        g_autoptr(TrEvent) own = tr_event_log_get(bus->history, i);
        func(own, user_data);
      } else {
        func(ev, user_data);
      }
    }
  }
  GArray *subs = g_array_copy(bus->subscribers);
  g_array_append_val(subs, s);
  g_array_unref(bus->subscribers);
  bus->subscribers = subs;
  update_wanted(bus);
  g_rec_mutex_unlock(&bus->lock);
  return s.id;
}

void
tr_event_bus_unsubscribe(TrEventBus *bus, guint id)
{
  g_return_if_fail(bus != NULL);
  g_rec_mutex_lock(&bus->lock);
  for (guint i = 0; i < bus->subscribers->len; i++) {
    Subscriber s = g_array_index(bus->subscribers, Subscriber, i);
    if (s.id != id)
      continue;
    GArray *subs = g_array_copy(bus->subscribers);
    g_array_remove_index(subs, i);
    g_array_unref(bus->subscribers);
    bus->subscribers = subs;
    update_wanted(bus);
    if (s.destroy)
      s.destroy(s.user_data);
    break;
  }
  g_rec_mutex_unlock(&bus->lock);
}

/* Deliver `ev` (stamped) to the subscribers and the history; the lock is held. */
static void
deliver(TrEventBus *bus, const TrEvent *ev)
{
  /* Subscribers may (un)subscribe from a callback: that replaces the array walked here. */
  if (bus->subscribers->len > 0) {
    GArray *subs = g_array_ref(bus->subscribers);
    for (guint i = 0; i < subs->len; i++) {
      Subscriber *s = &g_array_index(subs, Subscriber, i);
      if ((s->kinds >> ev->kind) & 1)
        s->func(ev, s->user_data);
    }
    g_array_unref(subs);
  }
  if (bus->history_limit > 0) {
    tr_event_log_append(bus->history, ev);
    trim_history(bus);
  }
}

guint64
tr_event_bus_emit(TrEventBus *bus, TrEvent *ev)
{
  g_return_val_if_fail(bus != NULL && ev != NULL, 0);
  g_rec_mutex_lock(&bus->lock);
  ev->seq = ++bus->last_seq;
  ev->ts_ns = bus->last_ts = MAX(tr_event_bus_now(bus), bus->last_ts);
  guint64 seq = ev->seq;
  deliver(bus, ev);
  tr_event_unref(ev);
  g_rec_mutex_unlock(&bus->lock);
  return seq;
}

guint64
tr_event_bus_emit_view(TrEventBus *bus, TrEvent *view)
{
  g_return_val_if_fail(bus != NULL && view != NULL, 0);
  g_rec_mutex_lock(&bus->lock);
  view->seq = ++bus->last_seq;
  /* A time the emitter took just before (a span's end) saves reading the clock again; it may
   * not go back before an event another thread emitted meanwhile. */
  view->ts_ns = view->ts_ns ? MAX(view->ts_ns, bus->last_ts) : tr_event_bus_now(bus);
  bus->last_ts = view->ts_ns;
  guint64 seq = view->seq;
  if ((bus->kept >> view->kind) & 1) {
    TrEvent *own = tr_event_copy(view);
    deliver(bus, own);
    tr_event_unref(own);
  } else {
    deliver(bus, view);
  }
  g_rec_mutex_unlock(&bus->lock);
  return seq;
}

/* ---- files ---- */

gboolean
tr_events_write_jsonl(GPtrArray *events, const char *path, GError **error)
{
  g_return_val_if_fail(events != NULL && path != NULL, FALSE);
  g_autoptr(TrEventLog) log = tr_event_log_new();
  for (guint i = 0; i < events->len; i++)
    tr_event_log_append(log, g_ptr_array_index(events, i));
  return tr_event_log_write_jsonl(log, 0, path, error);
}

gboolean
tr_events_write_perfetto(GPtrArray *events, const char *path, GError **error)
{
  g_return_val_if_fail(events != NULL && path != NULL, FALSE);
  g_autoptr(TrEventLog) log = tr_event_log_new();
  for (guint i = 0; i < events->len; i++)
    tr_event_log_append(log, g_ptr_array_index(events, i));
  return tr_event_log_write_perfetto(log, 0, path, error);
}
