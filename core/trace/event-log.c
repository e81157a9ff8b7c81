/* event-log.c — events kept as fixed-size records with interned names (see tr-event-log.h).
 *
 * Which events fit a record is decided from the event kinds' field lists: a kind whose fields
 * are all among COMPACT_FIELDS is a candidate, and one whose values fit the record's widths is
 * kept as a record; anything else is kept whole. So a new field or kind is kept correctly
 * (whole) without a change here. */
#include "tr-event-log.h"
#include "trace-private.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The fields a record holds (besides kind, seq and ts_ns). */
#define COMPACT_FIELDS                                                                             \
  (TR_EF_FN | TR_EF_SITE | TR_EF(outcome) | TR_EF(cf_id) | TR_EF(candidates) | TR_EF(reason) |     \
   TR_EF(dur_ns) | TR_EF(graph_id) | TR_EF(ok))

enum {
  REC_WHOLE = 1 << 0, /* the event is kept whole: `whole` points to it */
  REC_OK = 1 << 1,    /* its ok field */
};

/* One event in 32 bytes. */
typedef struct {
  guint32 seq_off; /* seq minus the chunk's base_seq */
  guint32 ts_off;  /* ts_ns minus the chunk's base_ts */
  guint8 kind;     /* TrEventKind */
  guint8 flags;    /* REC_* */
  guint8 outcome;  /* TrOutcome */
  guint8 candidates;
  guint32 dur_ns;
  union {
    struct {
      guint32 fn;    /* index in the log's Functions */
      guint32 site;  /* index in the log's sites + 1 (0: no file, line 0, cell 0) */
      guint32 cf_id; /* ConcreteFunction id */
      guint32 aux;   /* reason (string index + 1, 0: NULL), or graph_id (index + 1, 0: 0) */
    } c;
    TrEvent *whole; /* owned reference */
  } u;
} Rec;
G_STATIC_ASSERT(sizeof(Rec) == 32);

/* Records of consecutive events sharing a base; sealed (shrunk to fit) when a record does not
 * fit its base and a new chunk starts. */
typedef struct {
  guint64 first;    /* log index (counting dropped events) of recs[0] */
  guint64 base_seq; /* seq of the first record */
  gint64 base_ts;   /* ts_ns of the first record */
  guint32 n;        /* records used */
  guint32 cap;      /* records allocated */
  Rec recs[];
} Chunk;

#define CHUNK_RECS     4096 /* records of a full-grown chunk */
#define CHUNK_MIN_RECS 64   /* of the first */

typedef struct {
  gint64 id;    /* fn_id */
  guint32 name; /* string index + 1 (0: NULL) */
} FnKey;

typedef struct {
  guint32 file; /* string index + 1 (0: NULL) */
  gint64 line;
  gint64 cell;
} SiteKey;

struct _TrEventLog {
  GPtrArray *chunks;     /* Chunk*, owned, oldest first */
  guint32 front;         /* records of chunks[0] already dropped */
  guint64 dropped;       /* events dropped so far */
  guint64 end;           /* log index after the newest event (dropped ones counted) */
  gsize whole_bytes;     /* tr_event_size() of the events kept whole */
  gsize chunk_bytes;     /* bytes of the chunks */
  GPtrArray *strings;    /* char*, owned: interned strings */
  GHashTable *str_ids;   /* string (borrowed from `strings`) -> index + 1 */
  gsize string_bytes;    /* their sizes */
  GArray *fns;           /* FnKey */
  GHashTable *fn_ids;    /* FnKey* (owned) -> index + 1 */
  GArray *sites;         /* SiteKey */
  GHashTable *site_ids;  /* SiteKey* (owned) -> index + 1 */
  GArray *graphs;        /* gint64: graph ids (Graph addresses: too wide for a record) */
  GHashTable *graph_ids; /* gint64* (owned) -> index + 1 */
  /* The last interned Function, site and graph (index + 1; 0: none): calls repeat them. */
  guint32 last_fn;
  guint32 last_site;
  guint32 last_graph;
};

/* ---- interning ---- */

static guint
fn_key_hash(gconstpointer p)
{
  const FnKey *k = p;
  return (guint)k->id * 31u + k->name;
}

static gboolean
fn_key_equal(gconstpointer a, gconstpointer b)
{
  const FnKey *x = a, *y = b;
  return x->id == y->id && x->name == y->name;
}

static guint
site_key_hash(gconstpointer p)
{
  const SiteKey *k = p;
  return (k->file * 31u + (guint)k->line) * 31u + (guint)k->cell;
}

static gboolean
site_key_equal(gconstpointer a, gconstpointer b)
{
  const SiteKey *x = a, *y = b;
  return x->file == y->file && x->line == y->line && x->cell == y->cell;
}

/* The string's index + 1 (0 for NULL), interning it when new. */
static guint32
intern_string(TrEventLog *log, const char *s)
{
  if (s == NULL)
    return 0;
  guint32 id = GPOINTER_TO_UINT(g_hash_table_lookup(log->str_ids, s));
  if (id)
    return id;
  char *copy = g_strdup(s);
  g_ptr_array_add(log->strings, copy);
  id = log->strings->len;
  g_hash_table_insert(log->str_ids, copy, GUINT_TO_POINTER(id));
  log->string_bytes += strlen(s) + 1 + sizeof(char *);
  return id;
}

static const char *
string_of(const TrEventLog *log, guint32 id)
{
  return id ? log->strings->pdata[id - 1] : NULL;
}

static guint32
intern_fn(TrEventLog *log, gint64 fn_id, const char *name)
{
  if (log->last_fn) {
    const FnKey *last = &g_array_index(log->fns, FnKey, log->last_fn - 1);
    if (last->id == fn_id && g_strcmp0(string_of(log, last->name), name) == 0)
      return log->last_fn;
  }
  FnKey key = {fn_id, intern_string(log, name)};
  guint32 id = GPOINTER_TO_UINT(g_hash_table_lookup(log->fn_ids, &key));
  if (!id) {
    g_array_append_val(log->fns, key);
    id = log->fns->len;
    g_hash_table_insert(log->fn_ids, g_memdup2(&key, sizeof key), GUINT_TO_POINTER(id));
  }
  return log->last_fn = id;
}

/* The site's index + 1; 0 for the empty site (no file, line 0, cell 0). */
static guint32
intern_site(TrEventLog *log, const char *file, gint64 line, gint64 cell)
{
  if (file == NULL && line == 0 && cell == 0)
    return 0;
  if (log->last_site) {
    const SiteKey *last = &g_array_index(log->sites, SiteKey, log->last_site - 1);
    if (last->line == line && last->cell == cell &&
        g_strcmp0(string_of(log, last->file), file) == 0)
      return log->last_site;
  }
  SiteKey key = {intern_string(log, file), line, cell};
  guint32 id = GPOINTER_TO_UINT(g_hash_table_lookup(log->site_ids, &key));
  if (!id) {
    g_array_append_val(log->sites, key);
    id = log->sites->len;
    g_hash_table_insert(log->site_ids, g_memdup2(&key, sizeof key), GUINT_TO_POINTER(id));
  }
  return log->last_site = id;
}

/* The graph id's index + 1; 0 for 0. */
static guint32
intern_graph(TrEventLog *log, gint64 graph_id)
{
  if (graph_id == 0)
    return 0;
  if (log->last_graph && g_array_index(log->graphs, gint64, log->last_graph - 1) == graph_id)
    return log->last_graph;
  guint32 id = GPOINTER_TO_UINT(g_hash_table_lookup(log->graph_ids, &graph_id));
  if (!id) {
    g_array_append_val(log->graphs, graph_id);
    id = log->graphs->len;
    g_hash_table_insert(log->graph_ids, g_memdup2(&graph_id, sizeof graph_id),
                        GUINT_TO_POINTER(id));
  }
  return log->last_graph = id;
}

/* ---- the log ---- */

TrEventLog *
tr_event_log_new(void)
{
  TrEventLog *log = g_new0(TrEventLog, 1);
  log->chunks = g_ptr_array_new();
  log->strings = g_ptr_array_new_with_free_func(g_free);
  log->str_ids = g_hash_table_new(g_str_hash, g_str_equal);
  log->fns = g_array_new(FALSE, FALSE, sizeof(FnKey));
  log->fn_ids = g_hash_table_new_full(fn_key_hash, fn_key_equal, g_free, NULL);
  log->sites = g_array_new(FALSE, FALSE, sizeof(SiteKey));
  log->site_ids = g_hash_table_new_full(site_key_hash, site_key_equal, g_free, NULL);
  log->graphs = g_array_new(FALSE, FALSE, sizeof(gint64));
  log->graph_ids = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  return log;
}

static void
chunk_free(Chunk *c, guint32 from)
{
  for (guint32 i = from; i < c->n; i++)
    if (c->recs[i].flags & REC_WHOLE)
      tr_event_unref(c->recs[i].u.whole);
  g_free(c);
}

void
tr_event_log_free(TrEventLog *log)
{
  if (log == NULL)
    return;
  for (guint i = 0; i < log->chunks->len; i++)
    chunk_free(log->chunks->pdata[i], i == 0 ? log->front : 0);
  g_ptr_array_unref(log->chunks);
  g_hash_table_unref(log->str_ids);
  g_ptr_array_unref(log->strings);
  g_hash_table_unref(log->fn_ids);
  g_array_unref(log->fns);
  g_hash_table_unref(log->site_ids);
  g_array_unref(log->sites);
  g_hash_table_unref(log->graph_ids);
  g_array_unref(log->graphs);
  g_free(log);
}

static gsize
chunk_size(guint32 cap)
{
  return sizeof(Chunk) + (gsize)cap * sizeof(Rec);
}

/* A chunk with room for one more record whose seq and ts fit its base, starting a new one
 * (and sealing the last) when needed. */
static Chunk *
chunk_for(TrEventLog *log, guint64 seq, gint64 ts, bool whole)
{
  Chunk *c = log->chunks->len ? log->chunks->pdata[log->chunks->len - 1] : NULL;
  if (c && c->n < c->cap &&
      (whole || (seq >= c->base_seq && seq - c->base_seq <= G_MAXUINT32 && ts >= c->base_ts &&
                 (guint64)(ts - c->base_ts) <= G_MAXUINT32)))
    return c;
  if (c && c->n < c->cap) {
    /* Sealed: what it holds stays, the rest of its room goes back. */
    log->chunk_bytes -= chunk_size(c->cap) - chunk_size(c->n);
    c->cap = c->n;
    c = g_realloc(c, chunk_size(c->n));
    log->chunks->pdata[log->chunks->len - 1] = c;
  }
  /* Small logs (a kernel's window, a test) get small chunks; long ones, the largest. */
  guint32 cap = c ? MIN(c->cap * 2, CHUNK_RECS) : CHUNK_MIN_RECS;
  cap = MAX(cap, CHUNK_MIN_RECS);
  c = g_malloc(chunk_size(cap));
  c->first = log->end;
  c->base_seq = seq;
  c->base_ts = ts;
  c->n = 0;
  c->cap = cap;
  log->chunk_bytes += chunk_size(cap);
  g_ptr_array_add(log->chunks, c);
  return c;
}

/* Whether `ev` fits a record (its fields among COMPACT_FIELDS, their values in range). */
static bool
fits_record(const TrEvent *ev)
{
  guint fields = tr_event_kind_fields(ev->kind);
  if (fields & ~COMPACT_FIELDS)
    return false;
  return ev->cf_id >= 0 && ev->cf_id <= G_MAXUINT32 && ev->dur_ns >= 0 &&
         ev->dur_ns <= G_MAXUINT32 && ev->candidates >= 0 && ev->candidates <= G_MAXUINT8 &&
         !((fields & TR_EF(reason)) && (fields & TR_EF(graph_id)));
}

void
tr_event_log_append(TrEventLog *log, const TrEvent *ev)
{
  g_return_if_fail(log != NULL && ev != NULL);
  bool whole = !fits_record(ev);
  Chunk *c = chunk_for(log, ev->seq, ev->ts_ns, whole);
  Rec *r = &c->recs[c->n];
  memset(r, 0, sizeof *r);
  r->kind = (guint8)ev->kind;
  if (whole) {
    r->flags = REC_WHOLE;
    /* A view (tr_event_bus_emit_view: refcount 0, its strings borrowed) is copied. */
    r->u.whole = ev->refcount > 0 ? tr_event_ref((TrEvent *)ev) : tr_event_copy(ev);
    log->whole_bytes += tr_event_size(ev);
  } else {
    guint fields = tr_event_kind_fields(ev->kind);
    r->seq_off = (guint32)(ev->seq - c->base_seq);
    r->ts_off = (guint32)(ev->ts_ns - c->base_ts);
    r->flags = ev->ok ? REC_OK : 0;
    r->outcome = (guint8)ev->outcome;
    r->candidates = (guint8)ev->candidates;
    r->dur_ns = (guint32)ev->dur_ns;
    r->u.c.fn = (fields & TR_EF_FN) ? intern_fn(log, ev->fn_id, ev->fn_name) : 0;
    r->u.c.site = (fields & TR_EF_SITE) ? intern_site(log, ev->file, ev->line, ev->cell) : 0;
    r->u.c.cf_id = (guint32)ev->cf_id;
    r->u.c.aux = (fields & TR_EF(reason))     ? intern_string(log, ev->reason)
                 : (fields & TR_EF(graph_id)) ? intern_graph(log, ev->graph_id)
                                              : 0;
  }
  c->n++;
  log->end++;
}

void
tr_event_log_event_func(const TrEvent *ev, gpointer user_data)
{
  tr_event_log_append(user_data, ev);
}

/* The chunk holding log index `at` (counting dropped events) and the record's place in it. */
static const Rec *
rec_at(const TrEventLog *log, guint64 at, const Chunk **chunk)
{
  /* The newest events are the ones most asked for (a viewer indexing a batch). */
  const Chunk *last = log->chunks->pdata[log->chunks->len - 1];
  if (at >= last->first) {
    *chunk = last;
    return &last->recs[at - last->first];
  }
  guint lo = 0, hi = log->chunks->len;
  while (hi - lo > 1) {
    guint mid = (lo + hi) / 2;
    if (((const Chunk *)log->chunks->pdata[mid])->first <= at)
      lo = mid;
    else
      hi = mid;
  }
  const Chunk *c = log->chunks->pdata[lo];
  *chunk = c;
  return &c->recs[at - c->first];
}

void
tr_event_log_drop_front(TrEventLog *log, guint64 n)
{
  g_return_if_fail(log != NULL);
  n = MIN(n, tr_event_log_length(log));
  guint64 to = log->dropped + n; /* log index of the first event kept */
  while (log->chunks->len > 0) {
    Chunk *c = log->chunks->pdata[0];
    guint32 upto = (guint32)MIN((guint64)c->n, to - c->first);
    for (guint32 i = log->front; i < upto; i++)
      if (c->recs[i].flags & REC_WHOLE) {
        log->whole_bytes -= tr_event_size(c->recs[i].u.whole);
        tr_event_unref(c->recs[i].u.whole);
        c->recs[i].flags &= (guint8)~REC_WHOLE;
      }
    log->front = upto;
    if (upto < c->n || (c->n < c->cap && log->chunks->len == 1))
      break;
    /* Wholly dropped (a full or sealed chunk; the last one is kept for its room). */
    log->chunk_bytes -= chunk_size(c->cap);
    g_free(c);
    g_ptr_array_remove_index(log->chunks, 0);
    log->front = 0;
  }
  log->dropped = to;
}

guint64
tr_event_log_length(const TrEventLog *log)
{
  g_return_val_if_fail(log != NULL, 0);
  return log->end - log->dropped;
}

guint64
tr_event_log_dropped(const TrEventLog *log)
{
  g_return_val_if_fail(log != NULL, 0);
  return log->dropped;
}

gsize
tr_event_log_event_bytes(const TrEventLog *log)
{
  g_return_val_if_fail(log != NULL, 0);
  return (gsize)tr_event_log_length(log) * sizeof(Rec) + log->whole_bytes;
}

gsize
tr_event_log_bytes(const TrEventLog *log)
{
  g_return_val_if_fail(log != NULL, 0);
  return sizeof *log + log->chunk_bytes + log->whole_bytes + log->string_bytes +
         log->chunks->len * sizeof(gpointer) +
         log->fns->len * (sizeof(FnKey) * 2 + 3 * sizeof(gpointer)) +
         log->sites->len * (sizeof(SiteKey) * 2 + 3 * sizeof(gpointer)) +
         log->graphs->len * (sizeof(gint64) * 2 + 3 * sizeof(gpointer));
}

guint64
tr_event_log_front_for_bytes(const TrEventLog *log, gsize bytes)
{
  g_return_val_if_fail(log != NULL, 0);
  guint64 n = tr_event_log_length(log), k = 0;
  gsize held = 0;
  for (guint64 at = log->dropped; k < n && held < bytes;) {
    const Chunk *c;
    const Rec *r = rec_at(log, at, &c);
    for (guint64 stop = c->first + c->n; at < stop && held < bytes; at++, r++, k++)
      held += sizeof(Rec) + ((r->flags & REC_WHOLE) ? tr_event_size(r->u.whole) : 0);
  }
  return k;
}

static void
fill(const TrEventLog *log, const Chunk *c, const Rec *r, TrEvent *ev)
{
  memset(ev, 0, sizeof *ev);
  ev->kind = (TrEventKind)r->kind;
  ev->seq = c->base_seq + r->seq_off;
  ev->ts_ns = c->base_ts + r->ts_off;
  ev->ok = (r->flags & REC_OK) != 0;
  ev->outcome = (TrOutcome)r->outcome;
  ev->candidates = r->candidates;
  ev->dur_ns = r->dur_ns;
  if (r->u.c.fn) {
    const FnKey *fn = &g_array_index(log->fns, FnKey, r->u.c.fn - 1);
    ev->fn_id = fn->id;
    ev->fn_name = (char *)string_of(log, fn->name);
  }
  if (r->u.c.site) {
    const SiteKey *site = &g_array_index(log->sites, SiteKey, r->u.c.site - 1);
    ev->file = (char *)string_of(log, site->file);
    ev->line = site->line;
    ev->cell = site->cell;
  }
  ev->cf_id = r->u.c.cf_id;
  guint fields = tr_event_kind_fields(ev->kind);
  if (fields & TR_EF(reason))
    ev->reason = (char *)string_of(log, r->u.c.aux);
  else if (fields & TR_EF(graph_id) && r->u.c.aux)
    ev->graph_id = g_array_index(log->graphs, gint64, r->u.c.aux - 1);
}

const TrEvent *
tr_event_log_peek(const TrEventLog *log, guint64 i, TrEvent *scratch)
{
  g_return_val_if_fail(log != NULL && scratch != NULL, NULL);
  g_return_val_if_fail(i < tr_event_log_length(log), NULL);
  const Chunk *c;
  const Rec *r = rec_at(log, log->dropped + i, &c);
  if (r->flags & REC_WHOLE)
    return r->u.whole;
  fill(log, c, r, scratch);
  return scratch;
}

TrEvent *
tr_event_log_get(const TrEventLog *log, guint64 i)
{
  TrEvent scratch;
  const TrEvent *view = tr_event_log_peek(log, i, &scratch);
  g_return_val_if_fail(view != NULL, NULL);
  if (view != &scratch)
    return tr_event_ref((TrEvent *)view);
  /* The view's strings are the log's: the new event gets copies. */
  TrEvent *ev = g_memdup2(&scratch, sizeof scratch);
  ev->refcount = 1;
  ev->file = g_strdup(scratch.file);
  ev->fn_name = g_strdup(scratch.fn_name);
  ev->reason = g_strdup(scratch.reason);
  return ev;
}

guint64
tr_event_log_seq(const TrEventLog *log, guint64 i)
{
  g_return_val_if_fail(log != NULL && i < tr_event_log_length(log), 0);
  const Chunk *c;
  const Rec *r = rec_at(log, log->dropped + i, &c);
  return (r->flags & REC_WHOLE) ? r->u.whole->seq : c->base_seq + r->seq_off;
}

guint64
tr_event_log_index_after(const TrEventLog *log, guint64 seq)
{
  g_return_val_if_fail(log != NULL, 0);
  guint64 lo = 0, hi = tr_event_log_length(log);
  while (lo < hi) {
    guint64 mid = lo + (hi - lo) / 2;
    if (tr_event_log_seq(log, mid) <= seq)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* A walk over the kept events in order, without a search per event. */
typedef struct {
  const TrEventLog *log;
  guint chunk;    /* index in log->chunks */
  guint32 rec;    /* index in that chunk */
  const Rec *now; /* the record of the event last returned */
} Cursor;

static void
cursor_init(Cursor *cur, const TrEventLog *log)
{
  cur->log = log;
  cur->chunk = 0;
  cur->rec = log->front;
}

/* The next event as tr_event_log_peek gives it, or NULL after the last. */
static const TrEvent *
cursor_next(Cursor *cur, TrEvent *scratch)
{
  const GPtrArray *chunks = cur->log->chunks;
  while (cur->chunk < chunks->len) {
    const Chunk *c = chunks->pdata[cur->chunk];
    if (cur->rec < c->n) {
      const Rec *r = cur->now = &c->recs[cur->rec++];
      if (r->flags & REC_WHOLE)
        return r->u.whole;
      fill(cur->log, c, r, scratch);
      return scratch;
    }
    cur->chunk++;
    cur->rec = 0;
  }
  return NULL;
}

/* ---- files ---- */

/* Text is gathered in a buffer and written in pieces of about this size. */
#define WRITE_CHUNK (1 << 20)

typedef struct {
  FILE *f;
  GString *buf;
  const char *path;
  int error; /* errno of the first failure, 0 */
} Writer;

static void
writer_flush(Writer *w)
{
  if (w->buf->len && !w->error && fwrite(w->buf->str, 1, w->buf->len, w->f) != w->buf->len)
    w->error = errno ? errno : EIO;
  g_string_truncate(w->buf, 0);
}

static gboolean
writer_open(Writer *w, const char *path, GError **error)
{
  w->path = path;
  w->error = 0;
  w->f = fopen(path, "w");
  if (!w->f) {
    int e = errno;
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e), "%s: %s", path, g_strerror(e));
    return FALSE;
  }
  w->buf = g_string_sized_new(WRITE_CHUNK + 4096);
  return TRUE;
}

static gboolean
writer_close(Writer *w, GError **error)
{
  writer_flush(w);
  if (fclose(w->f) != 0 && !w->error)
    w->error = errno ? errno : EIO;
  g_string_free(w->buf, TRUE);
  if (w->error) {
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(w->error), "%s: %s", w->path,
                g_strerror(w->error));
    return FALSE;
  }
  return TRUE;
}

static void
string_free(gpointer s)
{
  g_string_free(s, TRUE);
}

/* The JSON of interned item `id` (index + 1) in `cache`, written from `ev` the first time. */
static const GString *
cached_json(GPtrArray *cache, guint32 id, const TrEvent *ev, guint fields)
{
  if (id == 0)
    return NULL;
  if (cache->len < id)
    g_ptr_array_set_size(cache, (guint)id);
  GString *s = cache->pdata[id - 1];
  if (s)
    return s;
  s = g_string_new(NULL);
  /* The text tr_event_append_json writes for these fields (a test holds the two alike). */
  if (fields == TR_EF_SITE) {
    TR_PUT_LITERAL(s, ",\"cell\":");
    tr_json_append_int(s, ev->cell);
    TR_PUT_LITERAL(s, ",\"file\":");
    tr_json_append_string(s, ev->file);
    TR_PUT_LITERAL(s, ",\"line\":");
    tr_json_append_int(s, ev->line);
  } else {
    TR_PUT_LITERAL(s, ",\"function_id\":");
    tr_json_append_int(s, ev->fn_id);
    TR_PUT_LITERAL(s, ",\"function\":");
    tr_json_append_string(s, ev->fn_name);
  }
  cache->pdata[id - 1] = s;
  return s;
}

#define site_json(cache, id, ev) cached_json(cache, id, ev, TR_EF_SITE)
#define fn_json(cache, id, ev)   cached_json(cache, id, ev, TR_EF_FN)

/* The kept events as JSON lines into `w`. */
static void
write_jsonl_events(const TrEventLog *log, Writer *w)
{
  /* Each site's and Function's fields are written out once, then copied into every line. */
  g_autoptr(GPtrArray) sites = g_ptr_array_new_with_free_func(string_free);
  g_autoptr(GPtrArray) fns = g_ptr_array_new_with_free_func(string_free);
  TrEvent scratch;
  Cursor cur;
  cursor_init(&cur, log);
  for (const TrEvent *ev; (ev = cursor_next(&cur, &scratch));) {
    if (ev == &scratch)
      tr_event_append_json_parts(w->buf, ev, site_json(sites, cur.now->u.c.site, ev),
                                 fn_json(fns, cur.now->u.c.fn, ev));
    else
      tr_event_append_json(w->buf, ev);
    tr_put_c(w->buf, '\n');
    if (w->buf->len >= WRITE_CHUNK)
      writer_flush(w);
  }
}

/* The kept events' trace events into `w`, through `p` (writing into w->buf). */
static void
write_perfetto_events(const TrEventLog *log, TrPerfetto *p, Writer *w)
{
  TrEvent scratch;
  Cursor cur;
  cursor_init(&cur, log);
  for (const TrEvent *ev; (ev = cursor_next(&cur, &scratch));) {
    tr_perfetto_add(p, ev);
    if (w->buf->len >= WRITE_CHUNK)
      writer_flush(w);
  }
}

gboolean
tr_event_log_write_jsonl(const TrEventLog *log, guint64 dropped, const char *path, GError **error)
{
  g_return_val_if_fail(log != NULL && path != NULL, FALSE);
  Writer w = {0};
  if (!writer_open(&w, path, error))
    return FALSE;
  if (dropped > 0) {
    g_string_append(w.buf, "{\"kind\":\"dropped\",\"count\":");
    tr_json_append_int(w.buf, (gint64)dropped);
    g_string_append(w.buf, "}\n");
  }
  write_jsonl_events(log, &w);
  return writer_close(&w, error);
}

void
tr_event_log_append_perfetto(const TrEventLog *log, guint64 dropped, GString *out)
{
  g_return_if_fail(log != NULL && out != NULL);
  TrEvent scratch;
  guint64 n = tr_event_log_length(log);
  TrPerfetto *p =
      tr_perfetto_begin(out, dropped, n ? tr_event_log_peek(log, 0, &scratch)->ts_ns : 0);
  Cursor cur;
  cursor_init(&cur, log);
  for (const TrEvent *ev; (ev = cursor_next(&cur, &scratch));)
    tr_perfetto_add(p, ev);
  tr_perfetto_end(p);
}

gboolean
tr_event_log_write_perfetto(const TrEventLog *log, guint64 dropped, const char *path,
                            GError **error)
{
  g_return_val_if_fail(log != NULL && path != NULL, FALSE);
  Writer w = {0};
  if (!writer_open(&w, path, error))
    return FALSE;
  guint64 n = tr_event_log_length(log);
  TrEvent scratch;
  TrPerfetto *p =
      tr_perfetto_begin(w.buf, dropped, n ? tr_event_log_peek(log, 0, &scratch)->ts_ns : 0);
  write_perfetto_events(log, p, &w);
  tr_perfetto_end(p);
  return writer_close(&w, error);
}

/* ---- writing while events come ---- */

/* Events a log gathers before the writer's thread is given it. */
#define STREAM_BATCH 16384

struct _TrEventWriter {
  TrEventLog *filling;  /* the emitting thread's: events not handed over yet */
  GAsyncQueue *batches; /* TrEventLog* (owned) for the thread; the writer itself ends it */
  GThread *thread;      /* writes the batches */
  Writer jsonl;         /* its files (f NULL: not written, or could not be opened) */
  Writer perfetto;
  TrPerfetto *trace;  /* the Perfetto document being written, or NULL */
  GError *open_error; /* the first file that could not be opened */
};

static gpointer
writer_thread(gpointer data)
{
  TrEventWriter *w = data;
  for (;;) {
    gpointer item = g_async_queue_pop(w->batches);
    if (item == w)
      return NULL;
    TrEventLog *log = item;
    if (w->jsonl.f)
      write_jsonl_events(log, &w->jsonl);
    if (w->trace)
      write_perfetto_events(log, w->trace, &w->perfetto);
    tr_event_log_free(log);
  }
}

static void
writer_open_or_note(TrEventWriter *w, Writer *file, const char *path)
{
  GError *error = NULL;
  if (path && !writer_open(file, path, &error)) {
    if (w->open_error)
      g_error_free(error);
    else
      w->open_error = error;
  }
}

TrEventWriter *
tr_event_writer_new(const char *jsonl_path, const char *perfetto_path)
{
  TrEventWriter *w = g_new0(TrEventWriter, 1);
  writer_open_or_note(w, &w->jsonl, jsonl_path);
  writer_open_or_note(w, &w->perfetto, perfetto_path);
  if (w->perfetto.f)
    w->trace = tr_perfetto_begin(w->perfetto.buf, 0, 0);
  w->filling = tr_event_log_new();
  w->batches = g_async_queue_new();
  w->thread = g_thread_new("tr-event-writer", writer_thread, w);
  return w;
}

void
tr_event_writer_event_func(const TrEvent *ev, gpointer user_data)
{
  TrEventWriter *w = user_data;
  tr_event_log_append(w->filling, ev);
  if (tr_event_log_length(w->filling) >= STREAM_BATCH) {
    g_async_queue_push(w->batches, w->filling);
    w->filling = tr_event_log_new();
  }
}

gboolean
tr_event_writer_finish(TrEventWriter *w, GError **error)
{
  g_return_val_if_fail(w != NULL, FALSE);
  g_async_queue_push(w->batches, w->filling);
  g_async_queue_push(w->batches, w);
  g_thread_join(w->thread);
  g_async_queue_unref(w->batches);
  gboolean ok = w->open_error == NULL;
  if (w->open_error)
    g_propagate_error(error, w->open_error);
  if (w->trace)
    tr_perfetto_end(w->trace);
  if (w->jsonl.f && !writer_close(&w->jsonl, ok ? error : NULL))
    ok = FALSE;
  if (w->perfetto.f && !writer_close(&w->perfetto, ok ? error : NULL))
    ok = FALSE;
  g_free(w);
  return ok;
}
