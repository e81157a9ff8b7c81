/* state.c — folding the event stream into one model of the session, and its snapshot JSON
 * (see tr-state.h). Each event kind that changes the model has one applier in a table indexed
 * by kind; the others only advance the sequence number and the kept window. */
#include "tr-state.h"
#include "tr-event-log.h"

#include <string.h>

struct _TrState {
  GPtrArray *functions;  /* TrStateFn*, owned, creation order */
  GHashTable *fn_by_id;  /* gint64* → TrStateFn* (borrowed) */
  GHashTable *cf_by_id;  /* gint64* → TrStateTrace* (borrowed) */
  GPtrArray *cells;      /* TrStateCell*, owned, oldest first */
  guint keep_cells;      /* cells kept (G_MAXUINT: all) */
  guint64 cells_dropped; /* cells dropped from the front of `cells` so far */
  GPtrArray *variables;  /* TrStateVariable*, owned */
  TrEventLog *events;    /* the kept events, oldest first */
  guint keep;            /* events kept (at least the last `keep`) */
  gsize max_event_bytes; /* the most event bytes kept (tr_event_log_event_bytes; G_MAXSIZE: none) */
  guint64 last_seq;      /* last sequence number applied */
  gint64 last_ts;        /* its time */
  guint64 n_applied;     /* events applied in all */
  bool eager;            /* run_functions_eagerly */
  TrEvent *paused;       /* the debugger_stopped in force (owned), or NULL: running */
};

/* What a Function's next trace inherits from the events before concrete_function_added. */
typedef struct {
  TrStateRetrace *retrace; /* the miss being traced (borrowed from the Function) */
  gint64 trace_ns;         /* trace_end's duration */
} Pending;

/* TrStateFn with what is still being traced. */
typedef struct {
  TrStateFn pub;   /* what readers see */
  Pending pending; /* the trace in progress */
} FnEntry;

/* ---- construction ---------------------------------------------------------------------- */

static void
retrace_free(TrStateRetrace *r)
{
  g_free(r->file);
  g_ptr_array_unref(r->causes);
  g_free(r);
}

static void
trace_free(TrStateTrace *t)
{
  g_free(t->signature);
  g_free(t->graph_json);
  g_free(t);
}

static void
fn_free(FnEntry *f)
{
  g_free(f->pub.name);
  g_free(f->pub.text);
  g_ptr_array_unref(f->pub.traces);
  g_ptr_array_unref(f->pub.retraces);
  g_free(f);
}

static void
cell_free(TrStateCell *c)
{
  g_free(c->source);
  g_free(c);
}

static void
variable_free(TrStateVariable *v)
{
  g_free(v->name);
  g_free(v->dtype);
  g_free(v->shape);
  g_free(v);
}

TrState *
tr_state_new(guint keep_events)
{
  TrState *s = g_new0(TrState, 1);
  s->functions = g_ptr_array_new_with_free_func((GDestroyNotify)fn_free);
  s->fn_by_id = g_hash_table_new(g_int64_hash, g_int64_equal);
  s->cf_by_id = g_hash_table_new(g_int64_hash, g_int64_equal);
  s->cells = g_ptr_array_new_with_free_func((GDestroyNotify)cell_free);
  s->variables = g_ptr_array_new_with_free_func((GDestroyNotify)variable_free);
  s->events = tr_event_log_new();
  s->keep = keep_events;
  s->keep_cells = G_MAXUINT;
  s->max_event_bytes = G_MAXSIZE;
  return s;
}

void
tr_state_set_limits(TrState *state, guint keep_cells, gsize event_bytes)
{
  g_return_if_fail(state != NULL);
  state->keep_cells = MAX(keep_cells, 1);
  state->max_event_bytes = event_bytes;
}

void
tr_state_free(TrState *state)
{
  if (state == NULL)
    return;
  g_hash_table_unref(state->fn_by_id);
  g_hash_table_unref(state->cf_by_id);
  g_ptr_array_unref(state->functions);
  g_ptr_array_unref(state->cells);
  g_ptr_array_unref(state->variables);
  tr_event_log_free(state->events);
  g_clear_pointer(&state->paused, tr_event_unref);
  g_free(state);
}

static FnEntry *
fn_add(TrState *s, gint64 id, const char *name)
{
  FnEntry *f = g_new0(FnEntry, 1);
  f->pub.id = id;
  f->pub.name = g_strdup(name ? name : "?");
  f->pub.traces = g_ptr_array_new_with_free_func((GDestroyNotify)trace_free);
  f->pub.retraces = g_ptr_array_new_with_free_func((GDestroyNotify)retrace_free);
  g_ptr_array_add(s->functions, f);
  g_hash_table_insert(s->fn_by_id, &f->pub.id, f);
  return f;
}

/* The event's Function, made on first sight (a debugger may attach after function_created
 * fell out of every window). */
static FnEntry *
fn_of(TrState *s, const TrEvent *ev)
{
  FnEntry *f = g_hash_table_lookup(s->fn_by_id, &ev->fn_id);
  if (f == NULL) {
    f = fn_add(s, ev->fn_id, ev->fn_name);
    f->pub.first_ts_ns = ev->ts_ns;
  }
  f->pub.changed_seq = ev->seq;
  return f;
}

static TrStateTrace *
trace_add(TrState *s, FnEntry *f, gint64 id)
{
  TrStateTrace *t = g_new0(TrStateTrace, 1);
  t->id = id;
  t->fn_id = f->pub.id;
  g_ptr_array_add(f->pub.traces, t);
  g_hash_table_insert(s->cf_by_id, &t->id, t);
  return t;
}

static GPtrArray *
causes_copy(const GPtrArray *causes)
{
  GPtrArray *copy = tr_retrace_causes_new();
  for (guint i = 0; causes && i < causes->len; i++) {
    const TrRetraceCause *c = causes->pdata[i];
    g_ptr_array_add(copy, tr_retrace_cause_new(c->arg, c->kind, c->text));
  }
  return copy;
}

/* ---- appliers, one per kind that changes the model -------------------------------------- */

typedef void (*Applier)(TrState *s, const TrEvent *ev);

static void
apply_cell_start(TrState *s, const TrEvent *ev)
{
  TrStateCell *c = g_new0(TrStateCell, 1);
  c->number = ev->cell;
  c->source = g_strdup(ev->text);
  c->start_ns = ev->ts_ns;
  c->running = true;
  c->ok = true;
  g_ptr_array_add(s->cells, c);
  /* Dropped in batches, as events are: a drop moves the whole array. */
  guint slack = MAX(s->keep_cells / 16, 16);
  if (s->keep_cells != G_MAXUINT && s->cells->len > s->keep_cells + slack) {
    guint n = s->cells->len - s->keep_cells;
    g_ptr_array_remove_range(s->cells, 0, n);
    s->cells_dropped += n;
  }
}

static void
apply_cell_end(TrState *s, const TrEvent *ev)
{
  for (guint i = s->cells->len; i-- > 0;) {
    TrStateCell *c = s->cells->pdata[i];
    if (c->number == ev->cell && c->running) {
      c->running = false;
      c->dur_ns = ev->dur_ns;
      c->ok = ev->ok;
      return;
    }
  }
}

static void
apply_function_created(TrState *s, const TrEvent *ev)
{
  FnEntry *f = fn_of(s, ev);
  if (ev->text && !f->pub.text)
    f->pub.text = g_strdup(ev->text);
  f->pub.created_seq = ev->seq;
}

static void
apply_call(TrState *s, const TrEvent *ev)
{
  FnEntry *f = fn_of(s, ev);
  f->pub.calls++;
  if (ev->outcome == TR_OUTCOME_HIT)
    f->pub.hits++;
  else if (ev->outcome == TR_OUTCOME_MISS)
    f->pub.misses++;
  else if (ev->outcome == TR_OUTCOME_EAGER)
    f->pub.eager++;
}

static void
apply_call_end(TrState *s, const TrEvent *ev)
{
  FnEntry *f = fn_of(s, ev);
  f->pub.call_ns += ev->dur_ns;
  if (!ev->ok)
    f->pub.errors++;
  TrStateTrace *t = ev->cf_id ? g_hash_table_lookup(s->cf_by_id, &ev->cf_id) : NULL;
  if (t && (ev->outcome == TR_OUTCOME_HIT || ev->outcome == TR_OUTCOME_MISS))
    t->served++;
}

static void
apply_trace_end(TrState *s, const TrEvent *ev)
{
  FnEntry *f = fn_of(s, ev);
  f->pub.trace_ns += ev->dur_ns;
  f->pending.trace_ns = ev->dur_ns;
  if (!ev->ok)
    f->pending = (Pending){0};
}

static void
apply_retrace_cause(TrState *s, const TrEvent *ev)
{
  FnEntry *f = fn_of(s, ev);
  TrStateRetrace *r = g_new0(TrStateRetrace, 1);
  r->seq = ev->seq;
  r->ts_ns = ev->ts_ns;
  r->file = g_strdup(ev->file);
  r->line = ev->line;
  r->cell = ev->cell;
  r->causes = causes_copy(ev->causes);
  g_ptr_array_add(f->pub.retraces, r);
  f->pending.retrace = r;
}

static void
apply_concrete_added(TrState *s, const TrEvent *ev)
{
  FnEntry *f = fn_of(s, ev);
  if (g_hash_table_contains(s->cf_by_id, &ev->cf_id))
    return;
  TrStateTrace *t = trace_add(s, f, ev->cf_id);
  t->signature = g_strdup(ev->signature);
  t->graph_id = ev->graph_id;
  t->nodes = ev->nodes;
  t->nodes_optimized = ev->nodes_optimized;
  t->graph_json = g_strdup(ev->graph);
  t->trace_ns = f->pending.trace_ns;
  t->retrace = f->pending.retrace;
  if (t->retrace)
    t->retrace->cf_id = t->id;
  f->pending = (Pending){0};
}

static void
apply_variable_created(TrState *s, const TrEvent *ev)
{
  TrStateVariable *v = g_new0(TrStateVariable, 1);
  v->id = ev->var_id;
  v->name = g_strdup(ev->name);
  v->dtype = g_strdup(ev->dtype);
  v->shape = g_strdup(ev->shape);
  v->cell = ev->cell;
  g_ptr_array_add(s->variables, v);
}

static void
apply_eager(TrState *s, const TrEvent *ev)
{
  s->eager = ev->enabled;
}

static void
apply_warning(TrState *s, const TrEvent *ev)
{
  fn_of(s, ev)->pub.warnings++;
}

/* A call refused before it ran (core/tf marks its error "rejected": no call event came) is a
 * call that raised all the same. Other errors are counted by their call_end. */
static void
apply_error(TrState *s, const TrEvent *ev)
{
  if (!ev->fn_id || g_strcmp0(ev->reason, "rejected") != 0)
    return;
  FnEntry *f = fn_of(s, ev);
  f->pub.calls++;
  f->pub.errors++;
  f->pub.rejected++;
}

/* A debugger's stop replaces the previous one (a step stops again without a continue). */
static void
apply_debugger_stopped(TrState *s, const TrEvent *ev)
{
  g_clear_pointer(&s->paused, tr_event_unref);
  s->paused = tr_event_ref((TrEvent *)ev);
}

static void
apply_debugger_continued(TrState *s, const TrEvent *ev)
{
  g_clear_pointer(&s->paused, tr_event_unref);
}

static const Applier appliers[TR_EVENT_N_KINDS] = {
    [TR_EVENT_CELL_START] = apply_cell_start,
    [TR_EVENT_CELL_END] = apply_cell_end,
    [TR_EVENT_FUNCTION_CREATED] = apply_function_created,
    [TR_EVENT_CALL] = apply_call,
    [TR_EVENT_CALL_END] = apply_call_end,
    [TR_EVENT_TRACE_END] = apply_trace_end,
    [TR_EVENT_RETRACE_CAUSE] = apply_retrace_cause,
    [TR_EVENT_CONCRETE_ADDED] = apply_concrete_added,
    [TR_EVENT_VARIABLE_CREATED] = apply_variable_created,
    [TR_EVENT_EAGER_TOGGLED] = apply_eager,
    [TR_EVENT_RETRACING_WARNING] = apply_warning,
    [TR_EVENT_ERROR] = apply_error,
    [TR_EVENT_DEBUGGER_STOPPED] = apply_debugger_stopped,
    [TR_EVENT_DEBUGGER_CONTINUED] = apply_debugger_continued,
};

/* Keeps `ev` (a compact copy), dropping the oldest in one go once the window is a sixteenth
 * over its size (in count or bytes): a drop is paid for at once by whoever applies the event (a
 * viewer's main loop), so drops are kept small. */
static void
keep_event(TrState *s, const TrEvent *ev)
{
  if (s->keep == 0)
    return;
  tr_event_log_append(s->events, ev);
  guint64 n = tr_event_log_length(s->events);
  if (s->keep != G_MAXUINT) {
    guint slack = MAX(s->keep / 16, 16);
    if (n > (guint64)s->keep + slack)
      tr_event_log_drop_front(s->events, n - s->keep);
  }
  if (s->max_event_bytes == G_MAXSIZE)
    return;
  gsize bytes = tr_event_log_event_bytes(s->events);
  if (bytes <= s->max_event_bytes + s->max_event_bytes / 16)
    return;
  n = tr_event_log_length(s->events);
  guint64 drop = tr_event_log_front_for_bytes(s->events, bytes - s->max_event_bytes);
  tr_event_log_drop_front(s->events, MIN(drop, n - 1));
}

bool
tr_state_apply(TrState *state, const TrEvent *ev)
{
  g_return_val_if_fail(state != NULL && ev != NULL, false);
  if (ev->seq <= state->last_seq || ev->kind < 0 || ev->kind >= TR_EVENT_N_KINDS)
    return false;
  if (appliers[ev->kind])
    appliers[ev->kind](state, ev);
  state->last_seq = ev->seq;
  state->last_ts = ev->ts_ns;
  state->n_applied++;
  keep_event(state, ev);
  return true;
}

void
tr_state_event_func(const TrEvent *ev, gpointer user_data)
{
  tr_state_apply(user_data, ev);
}

/* ---- reading --------------------------------------------------------------------------- */

guint64
tr_state_last_seq(const TrState *state)
{
  return state->last_seq;
}

gint64
tr_state_last_ts(const TrState *state)
{
  return state->last_ts;
}

bool
tr_state_eager(const TrState *state)
{
  return state->eager;
}

const TrEvent *
tr_state_paused(const TrState *state)
{
  return state->paused;
}

GPtrArray *
tr_state_functions(const TrState *state)
{
  return state->functions;
}

TrStateFn *
tr_state_function(const TrState *state, gint64 fn_id)
{
  FnEntry *f = g_hash_table_lookup(state->fn_by_id, &fn_id);
  return f ? &f->pub : NULL;
}

TrStateTrace *
tr_state_trace(const TrState *state, gint64 cf_id)
{
  return g_hash_table_lookup(state->cf_by_id, &cf_id);
}

GPtrArray *
tr_state_cells(const TrState *state)
{
  return state->cells;
}

GPtrArray *
tr_state_variables(const TrState *state)
{
  return state->variables;
}

const TrEventLog *
tr_state_event_log(const TrState *state)
{
  return state->events;
}

guint64
tr_state_n_applied(const TrState *state)
{
  return state->n_applied;
}

guint64
tr_state_events_dropped(const TrState *state)
{
  return tr_event_log_dropped(state->events);
}

guint64
tr_state_events_missing(const TrState *state)
{
  if (tr_event_log_length(state->events) == 0)
    return state->last_seq;
  return tr_event_log_seq(state->events, 0) - 1;
}

guint64
tr_state_cells_dropped(const TrState *state)
{
  return state->cells_dropped;
}

GPtrArray *
tr_state_events_since(const TrState *state, guint64 seq)
{
  g_return_val_if_fail(state != NULL, NULL);
  GPtrArray *out = g_ptr_array_new_with_free_func((GDestroyNotify)tr_event_unref);
  if (seq >= state->last_seq)
    return out;
  guint64 n = tr_event_log_length(state->events);
  guint64 i = tr_event_log_index_after(state->events, seq);
  /* Every event from seq + 1 on must still be here. */
  if (i >= n || tr_event_log_seq(state->events, i) != seq + 1) {
    g_ptr_array_unref(out);
    return NULL;
  }
  for (; i < n; i++)
    g_ptr_array_add(out, tr_event_log_get(state->events, i));
  return out;
}

char *
tr_state_fn_last_cause(const TrStateFn *fn)
{
  if (fn->retraces->len == 0)
    return NULL;
  const TrStateRetrace *r = fn->retraces->pdata[fn->retraces->len - 1];
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < r->causes->len; i++) {
    const TrRetraceCause *c = r->causes->pdata[i];
    if (i > 0)
      g_string_append(s, "; ");
    g_string_append(s, c->text ? c->text : tr_cause_kind_name(c->kind));
  }
  return g_string_free(s, FALSE);
}

double
tr_state_fn_hit_rate(const TrStateFn *fn)
{
  guint64 graph_calls = fn->hits + fn->misses;
  return graph_calls ? (double)fn->hits / (double)graph_calls : 0.0;
}

/* ---- snapshot JSON ---------------------------------------------------------------------- */

static json_t *
str_or_null(const char *s)
{
  return s ? json_string(s) : json_null();
}

static json_t *
causes_json(const GPtrArray *causes)
{
  json_t *arr = json_array();
  for (guint i = 0; i < causes->len; i++) {
    const TrRetraceCause *c = causes->pdata[i];
    json_array_append_new(arr,
                          json_pack("{s:o, s:s, s:o}", "arg", str_or_null(c->arg), "kind",
                                    tr_cause_kind_name(c->kind), "text", str_or_null(c->text)));
  }
  return arr;
}

static json_t *
retrace_json(const TrStateRetrace *r)
{
  return json_pack("{s:I, s:I, s:o, s:I, s:I, s:I, s:o}", "seq", (json_int_t)r->seq, "ts_ns",
                   (json_int_t)r->ts_ns, "file", str_or_null(r->file), "line", (json_int_t)r->line,
                   "cell", (json_int_t)r->cell, "concrete_id", (json_int_t)r->cf_id, "causes",
                   causes_json(r->causes));
}

/* Index of `r` in its Function's retraces, or -1. */
static json_int_t
retrace_index(const TrStateFn *fn, const TrStateRetrace *r)
{
  guint i;
  return r && g_ptr_array_find(fn->retraces, r, &i) ? (json_int_t)i : -1;
}

static json_t *
trace_json(const TrStateFn *fn, const TrStateTrace *t)
{
  return json_pack("{s:I, s:o, s:I, s:I, s:I, s:I, s:I, s:o, s:I}", "id", (json_int_t)t->id,
                   "signature", str_or_null(t->signature), "graph_id", (json_int_t)t->graph_id,
                   "nodes", (json_int_t)t->nodes, "nodes_optimized", (json_int_t)t->nodes_optimized,
                   "trace_ns", (json_int_t)t->trace_ns, "served", (json_int_t)t->served, "graph",
                   str_or_null(t->graph_json), "retrace", retrace_index(fn, t->retrace));
}

static json_t *
fn_json(const FnEntry *f)
{
  const TrStateFn *fn = &f->pub;
  json_t *traces = json_array();
  for (guint i = 0; i < fn->traces->len; i++)
    json_array_append_new(traces, trace_json(fn, fn->traces->pdata[i]));
  json_t *retraces = json_array();
  for (guint i = 0; i < fn->retraces->len; i++)
    json_array_append_new(retraces, retrace_json(fn->retraces->pdata[i]));
  json_t *obj =
      json_pack("{s:I, s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "id",
                (json_int_t)fn->id, "name", str_or_null(fn->name), "text", str_or_null(fn->text),
                "calls", (json_int_t)fn->calls, "hits", (json_int_t)fn->hits, "misses",
                (json_int_t)fn->misses, "eager", (json_int_t)fn->eager, "errors",
                (json_int_t)fn->errors, "rejected", (json_int_t)fn->rejected, "warnings",
                (json_int_t)fn->warnings, "trace_ns", (json_int_t)fn->trace_ns, "call_ns",
                (json_int_t)fn->call_ns, "created_seq", (json_int_t)fn->created_seq, "changed_seq",
                (json_int_t)fn->changed_seq, "first_ts_ns", (json_int_t)fn->first_ts_ns);
  json_object_set_new(obj, "traces", traces);
  json_object_set_new(obj, "retraces", retraces);
  json_object_set_new(obj, "pending_retrace", json_integer(retrace_index(fn, f->pending.retrace)));
  json_object_set_new(obj, "pending_trace_ns", json_integer(f->pending.trace_ns));
  return obj;
}

json_t *
tr_state_to_json(const TrState *state, guint max_events)
{
  g_return_val_if_fail(state != NULL, NULL);
  json_t *fns = json_array();
  for (guint i = 0; i < state->functions->len; i++)
    json_array_append_new(fns, fn_json(state->functions->pdata[i]));
  json_t *cells = json_array();
  for (guint i = 0; i < state->cells->len; i++) {
    const TrStateCell *c = state->cells->pdata[i];
    json_array_append_new(
        cells, json_pack("{s:I, s:o, s:I, s:I, s:b, s:b}", "number", (json_int_t)c->number,
                         "source", str_or_null(c->source), "start_ns", (json_int_t)c->start_ns,
                         "dur_ns", (json_int_t)c->dur_ns, "running", c->running, "ok", c->ok));
  }
  json_t *vars = json_array();
  for (guint i = 0; i < state->variables->len; i++) {
    const TrStateVariable *v = state->variables->pdata[i];
    json_array_append_new(vars,
                          json_pack("{s:I, s:o, s:o, s:o, s:I}", "id", (json_int_t)v->id, "name",
                                    str_or_null(v->name), "dtype", str_or_null(v->dtype), "shape",
                                    str_or_null(v->shape), "cell", (json_int_t)v->cell));
  }
  json_t *events = json_array();
  guint64 n = tr_event_log_length(state->events);
  TrEvent scratch;
  for (guint64 i = n > max_events ? n - max_events : 0; i < n; i++)
    json_array_append_new(events, tr_event_to_json(tr_event_log_peek(state->events, i, &scratch)));
  json_t *root =
      json_pack("{s:i, s:I, s:I, s:I, s:b, s:I}", "version", 1, "seq", (json_int_t)state->last_seq,
                "ts_ns", (json_int_t)state->last_ts, "n_applied", (json_int_t)state->n_applied,
                "eager", state->eager, "cells_dropped", (json_int_t)state->cells_dropped);
  json_object_set_new(root, "functions", fns);
  json_object_set_new(root, "cells", cells);
  json_object_set_new(root, "variables", vars);
  json_object_set_new(root, "paused",
                      state->paused ? tr_event_to_json(state->paused) : json_null());
  json_object_set_new(root, "events", events);
  return root;
}

/* ---- reading a snapshot: anything may be wrong in it ------------------------------------- */

static gint64
int_of(json_t *obj, const char *key)
{
  json_t *v = json_object_get(obj, key);
  return json_is_integer(v) ? (gint64)json_integer_value(v) : 0;
}

static char *
str_of(json_t *obj, const char *key)
{
  json_t *v = json_object_get(obj, key);
  return json_is_string(v) ? g_strdup(json_string_value(v)) : NULL;
}

static bool
invalid(GError **error, const char *what)
{
  g_set_error(error, TR_EVENTS_ERROR, TR_EVENTS_ERROR_INVALID, "malformed snapshot: %s", what);
  return false;
}

/* The array at `key` of `obj`, each element an object. */
static json_t *
object_array(json_t *obj, const char *key, GError **error)
{
  json_t *arr = json_object_get(obj, key);
  if (!json_is_array(arr)) {
    g_autofree char *what = g_strdup_printf("\"%s\" is not an array", key);
    invalid(error, what);
    return NULL;
  }
  size_t i;
  json_t *el;
  json_array_foreach(arr, i, el)
  {
    if (!json_is_object(el)) {
      g_autofree char *what = g_strdup_printf("an element of \"%s\" is not an object", key);
      invalid(error, what);
      return NULL;
    }
  }
  return arr;
}

static GPtrArray *
causes_from_json(json_t *arr)
{
  GPtrArray *causes = tr_retrace_causes_new();
  size_t i;
  json_t *c;
  json_array_foreach(arr, i, c)
  {
    if (!json_is_object(c))
      continue;
    json_t *kind = json_object_get(c, "kind");
    g_ptr_array_add(
        causes, tr_retrace_cause_new(json_string_value(json_object_get(c, "arg")),
                                     tr_cause_kind_from_name(
                                         json_is_string(kind) ? json_string_value(kind) : "other"),
                                     json_string_value(json_object_get(c, "text"))));
  }
  return causes;
}

static bool
fn_from_json(TrState *s, json_t *obj, GError **error)
{
  gint64 id = int_of(obj, "id");
  if (g_hash_table_contains(s->fn_by_id, &id))
    return invalid(error, "a Function appears twice");
  json_t *traces = object_array(obj, "traces", error);
  json_t *retraces = traces ? object_array(obj, "retraces", error) : NULL;
  if (!retraces)
    return false;
  g_autofree char *name = str_of(obj, "name");
  FnEntry *f = fn_add(s, id, name);
  TrStateFn *fn = &f->pub;
  fn->text = str_of(obj, "text");
  fn->calls = int_of(obj, "calls");
  fn->hits = int_of(obj, "hits");
  fn->misses = int_of(obj, "misses");
  fn->eager = int_of(obj, "eager");
  fn->errors = int_of(obj, "errors");
  fn->rejected = int_of(obj, "rejected");
  fn->warnings = int_of(obj, "warnings");
  fn->trace_ns = int_of(obj, "trace_ns");
  fn->call_ns = int_of(obj, "call_ns");
  fn->created_seq = int_of(obj, "created_seq");
  fn->changed_seq = int_of(obj, "changed_seq");
  fn->first_ts_ns = int_of(obj, "first_ts_ns");
  size_t i;
  json_t *el;
  json_array_foreach(retraces, i, el)
  {
    TrStateRetrace *r = g_new0(TrStateRetrace, 1);
    r->seq = int_of(el, "seq");
    r->ts_ns = int_of(el, "ts_ns");
    r->file = str_of(el, "file");
    r->line = int_of(el, "line");
    r->cell = int_of(el, "cell");
    r->cf_id = int_of(el, "concrete_id");
    r->causes = causes_from_json(json_object_get(el, "causes"));
    g_ptr_array_add(fn->retraces, r);
  }
  json_array_foreach(traces, i, el)
  {
    gint64 cf_id = int_of(el, "id");
    if (g_hash_table_contains(s->cf_by_id, &cf_id))
      return invalid(error, "a ConcreteFunction appears twice");
    TrStateTrace *t = trace_add(s, f, cf_id);
    t->signature = str_of(el, "signature");
    t->graph_id = int_of(el, "graph_id");
    t->nodes = int_of(el, "nodes");
    t->nodes_optimized = int_of(el, "nodes_optimized");
    t->trace_ns = int_of(el, "trace_ns");
    t->served = int_of(el, "served");
    t->graph_json = str_of(el, "graph");
    gint64 r = int_of(el, "retrace");
    t->retrace = r >= 0 && r < (gint64)fn->retraces->len ? fn->retraces->pdata[r] : NULL;
  }
  gint64 pr = int_of(obj, "pending_retrace");
  f->pending.retrace = pr >= 0 && pr < (gint64)fn->retraces->len ? fn->retraces->pdata[pr] : NULL;
  f->pending.trace_ns = int_of(obj, "pending_trace_ns");
  return true;
}

static bool
cells_and_variables_from_json(TrState *s, json_t *root, GError **error)
{
  json_t *cells = object_array(root, "cells", error);
  json_t *vars = cells ? object_array(root, "variables", error) : NULL;
  if (!vars)
    return false;
  size_t i;
  json_t *el;
  json_array_foreach(cells, i, el)
  {
    TrStateCell *c = g_new0(TrStateCell, 1);
    c->number = int_of(el, "number");
    c->source = str_of(el, "source");
    c->start_ns = int_of(el, "start_ns");
    c->dur_ns = int_of(el, "dur_ns");
    c->running = json_is_true(json_object_get(el, "running"));
    c->ok = json_is_true(json_object_get(el, "ok"));
    g_ptr_array_add(s->cells, c);
  }
  json_array_foreach(vars, i, el)
  {
    TrStateVariable *v = g_new0(TrStateVariable, 1);
    v->id = int_of(el, "id");
    v->name = str_of(el, "name");
    v->dtype = str_of(el, "dtype");
    v->shape = str_of(el, "shape");
    v->cell = int_of(el, "cell");
    g_ptr_array_add(s->variables, v);
  }
  return true;
}

static bool
events_from_json(TrState *s, json_t *root, GError **error)
{
  json_t *events = object_array(root, "events", error);
  if (!events)
    return false;
  guint64 prev = 0;
  size_t i;
  json_t *el;
  json_array_foreach(events, i, el)
  {
    TrEvent *ev = tr_event_from_json(el, error);
    if (!ev)
      return false;
    if (ev->seq <= prev || ev->seq > s->last_seq) {
      tr_event_unref(ev);
      return invalid(error, "events out of order");
    }
    prev = ev->seq;
    keep_event(s, ev);
    tr_event_unref(ev);
  }
  return true;
}

/* "paused": absent or null (running; snapshots of older kernels have no such key), or a
 * debugger_stopped event. */
static bool
paused_from_json(TrState *s, json_t *paused, GError **error)
{
  if (paused == NULL || json_is_null(paused))
    return true;
  TrEvent *ev = tr_event_from_json(paused, error);
  if (!ev)
    return false;
  if (ev->kind != TR_EVENT_DEBUGGER_STOPPED) {
    tr_event_unref(ev);
    return invalid(error, "\"paused\" is not a debugger_stopped event");
  }
  s->paused = ev;
  return true;
}

TrState *
tr_state_from_json(json_t *snapshot, guint keep_events, GError **error)
{
  g_return_val_if_fail(error == NULL || *error == NULL, NULL);
  if (!json_is_object(snapshot)) {
    invalid(error, "not an object");
    return NULL;
  }
  if (int_of(snapshot, "version") != 1) {
    invalid(error, "unknown version");
    return NULL;
  }
  g_autoptr(TrState) s = tr_state_new(keep_events);
  json_int_t seq = int_of(snapshot, "seq");
  if (seq < 0) {
    invalid(error, "negative sequence number");
    return NULL;
  }
  s->last_seq = (guint64)seq;
  s->last_ts = int_of(snapshot, "ts_ns");
  s->n_applied = int_of(snapshot, "n_applied");
  s->eager = json_is_true(json_object_get(snapshot, "eager"));
  s->cells_dropped = (guint64)MAX(int_of(snapshot, "cells_dropped"), 0);
  json_t *fns = object_array(snapshot, "functions", error);
  if (!fns)
    return NULL;
  size_t i;
  json_t *el;
  json_array_foreach(fns, i, el)
  {
    if (!fn_from_json(s, el, error))
      return NULL;
  }
  if (!cells_and_variables_from_json(s, snapshot, error) || !events_from_json(s, snapshot, error))
    return NULL;
  if (!paused_from_json(s, json_object_get(snapshot, "paused"), error))
    return NULL;
  return g_steal_pointer(&s);
}
