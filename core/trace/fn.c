/* fn.c — the registry, Functions and ConcreteFunctions: dispatch to the most specific trace,
 * the call/trace life cycle with its events, counters and the retracing warning
 * (see tr-fn.h). */
#include "trace-private.h"

#include <string.h>

/* TensorFlow's _FrequentTracingDetector for one Python function: the calls of the recent
 * history grouped by the trace that started each group. */
typedef struct {
  GArray *calls_per_tracing; /* guint: calls since each recent trace, oldest first */
  guint call_count;          /* calls in that history */
  guint warnings;            /* warnings emitted (at most one) */
  guint64 traces;            /* traces made by every Function of this Python function */
} Detector;

struct _TrFnRegistry {
  int refcount;          /* owners: the interpreter and every Function */
  TrEventBus *bus;       /* where events go (owned ref) */
  gint eager;            /* run functions eagerly; atomic */
  GMutex lock;           /* guards the counters and detectors */
  guint64 last_fn_id;    /* ids handed out */
  guint64 last_cf_id;    /* ids handed out */
  GHashTable *detectors; /* guint64* Python function key → Detector* */
};

struct _TrFn {
  int refcount;                /* owners */
  TrFnRegistry *reg;           /* owned ref */
  guint64 id;                  /* unique per registry */
  char *name;                  /* Python name */
  char *display;               /* repr of the Python function */
  guint64 py_key;              /* Python function identity, 0 if unknown */
  bool reduce_retracing;       /* generalise shapes on misses */
  TrTraceSig *input_signature; /* owned, or NULL */
  GPtrArray *concretes;        /* TrConcreteFn*, owned, in trace order */
  TrFnStats stats;             /* counters */
  Detector own_detector;       /* used when py_key is 0 */
};

/* ---- detectors ---- */

static void
detector_init(Detector *d)
{
  d->calls_per_tracing = g_array_new(FALSE, TRUE, sizeof(guint));
}

static void
detector_clear(Detector *d)
{
  g_clear_pointer(&d->calls_per_tracing, g_array_unref);
}

static void
detector_free(Detector *d)
{
  detector_clear(d);
  g_free(d);
}

static void
detector_called_without_tracing(Detector *d)
{
  if (d->calls_per_tracing->len == 0) {
    guint zero = 0;
    g_array_append_val(d->calls_per_tracing, zero);
  }
  g_array_index(d->calls_per_tracing, guint, d->calls_per_tracing->len - 1)++;
  d->call_count++;
}

/* Returns whether to warn now, with the counts for the message. */
static bool
detector_called_with_tracing(Detector *d, guint *n_traced, guint *n_calls)
{
  guint one = 1;
  d->call_count++;
  g_array_append_val(d->calls_per_tracing, one);
  while (d->calls_per_tracing->len > 0) {
    guint oldest = g_array_index(d->calls_per_tracing, guint, 0);
    if (d->call_count - oldest <= TR_FN_WARNING_HISTORY)
      break;
    d->call_count -= oldest;
    g_array_remove_index(d->calls_per_tracing, 0);
  }
  if (d->warnings >= 1 || d->calls_per_tracing->len < TR_FN_WARNING_THRESHOLD)
    return false;
  d->warnings++;
  *n_traced = d->calls_per_tracing->len;
  *n_calls = d->call_count;
  return true;
}

/* ---- registry ---- */

TrFnRegistry *
tr_fn_registry_new(TrEventBus *bus)
{
  g_return_val_if_fail(bus != NULL, NULL);
  TrFnRegistry *reg = g_new0(TrFnRegistry, 1);
  reg->refcount = 1;
  reg->bus = tr_event_bus_ref(bus);
  g_mutex_init(&reg->lock);
  reg->detectors =
      g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, (GDestroyNotify)detector_free);
  return reg;
}

TrFnRegistry *
tr_fn_registry_ref(TrFnRegistry *reg)
{
  g_return_val_if_fail(reg != NULL, NULL);
  g_atomic_int_inc(&reg->refcount);
  return reg;
}

void
tr_fn_registry_unref(TrFnRegistry *reg)
{
  if (reg == NULL || !g_atomic_int_dec_and_test(&reg->refcount))
    return;
  g_hash_table_unref(reg->detectors);
  g_mutex_clear(&reg->lock);
  tr_event_bus_unref(reg->bus);
  g_free(reg);
}

TrEventBus *
tr_fn_registry_get_bus(TrFnRegistry *reg)
{
  return reg->bus;
}

void
tr_fn_registry_set_run_eagerly(TrFnRegistry *reg, bool eager)
{
  g_return_if_fail(reg != NULL);
  int old = g_atomic_int_exchange(&reg->eager, eager ? 1 : 0);
  if (old == (eager ? 1 : 0))
    return;
  TrEvent *ev = tr_event_new(TR_EVENT_EAGER_TOGGLED);
  ev->enabled = eager;
  tr_event_bus_emit(reg->bus, ev);
}

bool
tr_fn_registry_get_run_eagerly(TrFnRegistry *reg)
{
  g_return_val_if_fail(reg != NULL, false);
  return g_atomic_int_get(&reg->eager) != 0;
}

/* The detector shared by the Functions of fn's Python function. Called with reg->lock held. */
static Detector *
fn_detector(TrFn *fn)
{
  if (fn->py_key == 0)
    return &fn->own_detector;
  Detector *d = g_hash_table_lookup(fn->reg->detectors, &fn->py_key);
  if (d == NULL) {
    d = g_new0(Detector, 1);
    detector_init(d);
    g_hash_table_insert(fn->reg->detectors, g_memdup2(&fn->py_key, sizeof fn->py_key), d);
  }
  return d;
}

/* ---- ConcreteFunction ---- */

TrConcreteFn *
tr_concrete_fn_ref(TrConcreteFn *cf)
{
  g_return_val_if_fail(cf != NULL, NULL);
  g_atomic_int_inc(&cf->refcount);
  return cf;
}

void
tr_concrete_fn_unref(TrConcreteFn *cf)
{
  if (cf == NULL || !g_atomic_int_dec_and_test(&cf->refcount))
    return;
  if (cf->free_data)
    cf->free_data(cf->data);
  tr_trace_sig_unref(cf->sig);
  g_free(cf);
}

/* ---- Function ---- */

static TrEvent *
fn_event(const TrFn *fn, TrEventKind kind)
{
  TrEvent *ev = tr_event_new(kind);
  ev->fn_id = (gint64)fn->id;
  ev->fn_name = g_strdup(fn->name);
  return ev;
}

static TrEvent *
call_event(const TrFn *fn, const TrFnCall *call, TrEventKind kind)
{
  TrEvent *ev = fn_event(fn, kind);
  tr_event_set_site(ev, call->file, call->line, call->cell);
  return ev;
}

TrFn *
tr_fn_new(TrFnRegistry *reg, const TrFnOptions *options)
{
  g_return_val_if_fail(reg != NULL && options != NULL, NULL);
  TrFn *fn = g_new0(TrFn, 1);
  fn->refcount = 1;
  fn->reg = tr_fn_registry_ref(reg);
  g_mutex_lock(&reg->lock);
  fn->id = ++reg->last_fn_id;
  g_mutex_unlock(&reg->lock);
  fn->name = g_strdup(options->name ? options->name : "<lambda>");
  fn->display = g_strdup(options->display ? options->display : fn->name);
  fn->py_key = options->py_function_key;
  fn->reduce_retracing = options->reduce_retracing;
  if (options->input_signature)
    fn->input_signature = tr_trace_sig_ref(options->input_signature);
  fn->concretes = g_ptr_array_new_with_free_func((GDestroyNotify)tr_concrete_fn_unref);
  detector_init(&fn->own_detector);

  TrEvent *ev = fn_event(fn, TR_EVENT_FUNCTION_CREATED);
  ev->text = g_strdup(fn->display);
  ev->signature = fn->input_signature ? tr_trace_sig_to_string(fn->input_signature) : NULL;
  ev->enabled = fn->reduce_retracing;
  tr_event_bus_emit(reg->bus, ev);
  return fn;
}

TrFn *
tr_fn_ref(TrFn *fn)
{
  g_return_val_if_fail(fn != NULL, NULL);
  g_atomic_int_inc(&fn->refcount);
  return fn;
}

void
tr_fn_unref(TrFn *fn)
{
  if (fn == NULL || !g_atomic_int_dec_and_test(&fn->refcount))
    return;
  g_ptr_array_unref(fn->concretes);
  tr_trace_sig_unref(fn->input_signature);
  detector_clear(&fn->own_detector);
  g_free(fn->name);
  g_free(fn->display);
  tr_fn_registry_unref(fn->reg);
  g_free(fn);
}

guint64
tr_fn_get_id(const TrFn *fn)
{
  return fn->id;
}

const char *
tr_fn_get_name(const TrFn *fn)
{
  return fn->name;
}

const char *
tr_fn_get_display(const TrFn *fn)
{
  return fn->display;
}

const TrFnStats *
tr_fn_get_stats(const TrFn *fn)
{
  return &fn->stats;
}

TrTraceSig *
tr_fn_get_input_signature(const TrFn *fn)
{
  return fn->input_signature;
}

guint
tr_fn_get_n_concrete(const TrFn *fn)
{
  return fn->concretes->len;
}

TrConcreteFn *
tr_fn_get_concrete(const TrFn *fn, guint index)
{
  g_return_val_if_fail(index < fn->concretes->len, NULL);
  return g_ptr_array_index(fn->concretes, index);
}

/* ---- dispatch ---- */

static char *
explain_choice(const TrFn *fn, const TrTraceSig *args, const TrConcreteFn *best)
{
  GString *why = g_string_new(NULL);
  for (guint i = 0; i < fn->concretes->len; i++) {
    const TrConcreteFn *cf = g_ptr_array_index(fn->concretes, i);
    if (cf == best || !tr_trace_sig_is_subtype_of(args, cf->sig))
      continue;
    if (why->len > 0)
      g_string_append(why, "; ");
    if (tr_trace_sig_is_subtype_of(best->sig, cf->sig)) {
      g_autofree char *r = tr_trace_sig_specificity(best->sig, cf->sig);
      g_string_append(why, r);
    } else {
      g_string_append_printf(why,
                             "ConcreteFunction #%" G_GUINT64_FORMAT
                             " is neither more nor less specific; the older trace wins",
                             cf->id);
    }
  }
  return g_string_free(why, FALSE);
}

TrConcreteFn *
tr_fn_lookup(const TrFn *fn, const TrTraceSig *args, char **reason, int *n_candidates)
{
  g_return_val_if_fail(fn != NULL && args != NULL, NULL);
  TrConcreteFn *best = NULL;
  int n = 0;
  for (guint i = 0; i < fn->concretes->len; i++) {
    TrConcreteFn *cf = g_ptr_array_index(fn->concretes, i);
    if (!tr_trace_sig_is_subtype_of(args, cf->sig))
      continue;
    n++;
    if (best == NULL || tr_trace_sig_is_subtype_of(cf->sig, best->sig))
      best = cf;
  }
  if (n_candidates)
    *n_candidates = n;
  if (reason)
    *reason = n > 1 ? explain_choice(fn, args, best) : NULL;
  return best;
}

GPtrArray *
tr_fn_explain_miss(const TrFn *fn, const TrTraceSig *args)
{
  g_return_val_if_fail(fn != NULL && args != NULL, NULL);
  GPtrArray *causes = tr_retrace_causes_new();
  if (fn->concretes->len == 0) {
    g_mutex_lock(&fn->reg->lock);
    bool others = fn->py_key != 0 && fn_detector((TrFn *)fn)->traces > fn->stats.traces;
    g_mutex_unlock(&fn->reg->lock);
    if (others)
      g_ptr_array_add(causes,
                      tr_retrace_cause_new(NULL, TR_CAUSE_NEW_FUNCTION, "new Function object"));
    else
      g_ptr_array_add(causes, tr_retrace_cause_new(NULL, TR_CAUSE_FIRST_CALL, "first call"));
    return causes;
  }
  const TrConcreteFn *closest = NULL;
  int best_args = G_MAXINT, best_leaves = G_MAXINT;
  for (guint i = 0; i < fn->concretes->len; i++) {
    const TrConcreteFn *cf = g_ptr_array_index(fn->concretes, i);
    int da, dl;
    tr_trace_sig_distance(args, cf->sig, &da, &dl);
    if (da < best_args || (da == best_args && dl < best_leaves)) {
      closest = cf;
      best_args = da;
      best_leaves = dl;
    }
  }
  tr_trace_sig_explain(args, closest->sig, causes);
  return causes;
}

TrTraceSig *
tr_fn_generalize(const TrFn *fn, const TrTraceSig *args)
{
  g_return_val_if_fail(fn != NULL && args != NULL, NULL);
  TrTraceSig *relaxed = tr_trace_sig_ref((TrTraceSig *)args);
  for (guint i = 0; i < fn->concretes->len; i++) {
    const TrConcreteFn *cf = g_ptr_array_index(fn->concretes, i);
    TrTraceSig *super = tr_trace_sig_common_supertype(relaxed, cf->sig);
    if (super == NULL)
      continue;
    tr_trace_sig_unref(relaxed);
    relaxed = super;
  }
  return relaxed;
}

/* ---- the call life cycle ---- */

static void
emit_call(TrFn *fn, TrFnCall *call)
{
  if (!tr_event_bus_wants(fn->reg->bus, TR_EVENT_CALL))
    return;
  TrEvent *ev = call_event(fn, call, TR_EVENT_CALL);
  ev->outcome = call->outcome;
  ev->cf_id = call->concrete ? (gint64)call->concrete->id : 0;
  ev->candidates = call->n_candidates;
  ev->reason = g_strdup(call->reason);
  tr_event_bus_emit(fn->reg->bus, ev);
}

static void
emit_causes(TrFn *fn, TrFnCall *call)
{
  if (!tr_event_bus_wants(fn->reg->bus, TR_EVENT_RETRACE_CAUSE))
    return;
  TrEvent *ev = call_event(fn, call, TR_EVENT_RETRACE_CAUSE);
  ev->causes = tr_retrace_causes_new();
  for (guint i = 0; i < call->causes->len; i++) {
    const TrRetraceCause *c = g_ptr_array_index(call->causes, i);
    g_ptr_array_add(ev->causes, tr_retrace_cause_new(c->arg, c->kind, c->text));
  }
  tr_event_bus_emit(fn->reg->bus, ev);
}

static void
begin_miss(TrFn *fn, TrFnCall *call)
{
  call->outcome = TR_OUTCOME_MISS;
  call->causes = tr_fn_explain_miss(fn, call->args);
  if (fn->input_signature)
    call->trace_sig = tr_trace_sig_ref(fn->input_signature);
  else if (fn->reduce_retracing)
    call->trace_sig = tr_fn_generalize(fn, call->args);
  else
    call->trace_sig = tr_trace_sig_ref(call->args);
  if (call->request == TR_FN_REQUEST_CALL) {
    fn->stats.calls++;
    fn->stats.misses++;
    emit_call(fn, call);
  }
  emit_causes(fn, call);
}

TrFnCall *
tr_fn_call_begin(TrFn *fn, TrFnRequest request, TrTraceSig *args, const TrCallSite *site)
{
  g_return_val_if_fail(fn != NULL && args != NULL, NULL);
  TrFnCall *call = g_new0(TrFnCall, 1);
  call->request = request;
  call->args = tr_trace_sig_ref(args);
  call->file = g_strdup(site && site->file ? site->file : "<unknown>");
  call->line = site ? site->line : 0;
  call->cell = site ? site->cell : 0;
  call->start_ns = tr_event_bus_now(fn->reg->bus);

  if (request == TR_FN_REQUEST_CALL && tr_fn_registry_get_run_eagerly(fn->reg)) {
    call->outcome = TR_OUTCOME_EAGER;
    fn->stats.calls++;
    fn->stats.eager_calls++;
    emit_call(fn, call);
    return call;
  }
  if (fn->input_signature && !tr_trace_sig_is_subtype_of(args, fn->input_signature)) {
    call->incompatible = true;
    call->outcome = TR_OUTCOME_NONE;
    return call;
  }
  TrConcreteFn *cf = tr_fn_lookup(fn, args, &call->reason, &call->n_candidates);
  if (cf == NULL) {
    begin_miss(fn, call);
    return call;
  }
  call->outcome = TR_OUTCOME_HIT;
  call->concrete = tr_concrete_fn_ref(cf);
  if (request == TR_FN_REQUEST_CALL) {
    cf->n_served++;
    fn->stats.calls++;
    fn->stats.hits++;
    g_mutex_lock(&fn->reg->lock);
    detector_called_without_tracing(fn_detector(fn));
    g_mutex_unlock(&fn->reg->lock);
    emit_call(fn, call);
  }
  return call;
}

void
tr_fn_trace_begin(TrFn *fn, TrFnCall *call)
{
  g_return_if_fail(fn != NULL && call != NULL);
  g_return_if_fail(call->outcome == TR_OUTCOME_MISS && !call->tracing);
  call->tracing = true;
  call->trace_start_ns = tr_event_bus_now(fn->reg->bus);
  tr_event_bus_emit(fn->reg->bus, call_event(fn, call, TR_EVENT_TRACE_START));
}

static void
maybe_warn(TrFn *fn, TrFnCall *call)
{
  guint n_traced = 0, n_calls = 0;
  g_mutex_lock(&fn->reg->lock);
  Detector *d = fn_detector(fn);
  d->traces++;
  bool warn =
      call->request == TR_FN_REQUEST_CALL && detector_called_with_tracing(d, &n_traced, &n_calls);
  g_mutex_unlock(&fn->reg->lock);
  if (!warn)
    return;
  fn->stats.warnings++;
  TrEvent *ev = call_event(fn, call, TR_EVENT_RETRACING_WARNING);
  ev->text = tr_fn_retracing_warning_text(n_traced, n_calls, fn->display);
  tr_event_bus_emit(fn->reg->bus, ev);
}

TrConcreteFn *
tr_fn_trace_end(TrFn *fn, TrFnCall *call, gpointer data, GDestroyNotify free_data, int n_nodes,
                guint64 graph_id, const char *signature_text)
{
  g_return_val_if_fail(fn != NULL && call != NULL && call->tracing, NULL);
  call->tracing = false;
  gint64 dur = tr_event_bus_now(fn->reg->bus) - call->trace_start_ns;

  TrConcreteFn *cf = g_new0(TrConcreteFn, 1);
  cf->refcount = 1;
  g_mutex_lock(&fn->reg->lock);
  cf->id = ++fn->reg->last_cf_id;
  g_mutex_unlock(&fn->reg->lock);
  cf->fn_id = fn->id;
  cf->sig = tr_trace_sig_ref(call->trace_sig);
  cf->data = data;
  cf->free_data = free_data;
  cf->graph_id = graph_id;
  cf->n_nodes = n_nodes;
  cf->n_nodes_optimized = call->n_nodes_optimized;
  cf->trace_ns = dur;
  cf->n_served = call->request == TR_FN_REQUEST_CALL ? 1 : 0;
  g_ptr_array_add(fn->concretes, cf);
  call->concrete = tr_concrete_fn_ref(cf);
  fn->stats.traces++;
  fn->stats.tracing_ns += dur;

  TrEvent *ev = call_event(fn, call, TR_EVENT_TRACE_END);
  ev->cf_id = (gint64)cf->id;
  ev->dur_ns = dur;
  ev->nodes = n_nodes;
  ev->nodes_optimized = call->n_nodes_optimized;
  tr_event_bus_emit(fn->reg->bus, ev);

  ev = fn_event(fn, TR_EVENT_CONCRETE_ADDED);
  ev->cf_id = (gint64)cf->id;
  ev->graph_id = (gint64)graph_id;
  ev->nodes = n_nodes;
  ev->nodes_optimized = call->n_nodes_optimized;
  ev->signature = signature_text ? g_strdup(signature_text) : tr_trace_sig_to_string(cf->sig);
  ev->graph = g_steal_pointer(&call->graph_json);
  tr_event_bus_emit(fn->reg->bus, ev);

  maybe_warn(fn, call);
  return cf;
}

void
tr_fn_trace_set_graph_json(TrFnCall *call, char *graph_json)
{
  g_return_if_fail(call != NULL && call->tracing);
  g_free(call->graph_json);
  call->graph_json = graph_json;
}

void
tr_fn_trace_set_optimized(TrFnCall *call, int n_nodes)
{
  g_return_if_fail(call != NULL && call->tracing);
  call->n_nodes_optimized = n_nodes;
}

void
tr_fn_trace_abort(TrFn *fn, TrFnCall *call)
{
  g_return_if_fail(fn != NULL && call != NULL && call->tracing);
  call->tracing = false;
  gint64 dur = tr_event_bus_now(fn->reg->bus) - call->trace_start_ns;
  fn->stats.tracing_ns += dur;
  TrEvent *ev = call_event(fn, call, TR_EVENT_TRACE_END);
  ev->dur_ns = dur;
  ev->ok = false;
  tr_event_bus_emit(fn->reg->bus, ev);
}

void
tr_fn_call_end(TrFn *fn, TrFnCall *call, bool ok)
{
  g_return_if_fail(fn != NULL && call != NULL);
  if (call->tracing)
    tr_fn_trace_abort(fn, call);
  if (!call->incompatible && call->request == TR_FN_REQUEST_CALL &&
      tr_event_bus_wants(fn->reg->bus, TR_EVENT_CALL_END)) {
    TrEvent *ev = call_event(fn, call, TR_EVENT_CALL_END);
    ev->outcome = call->outcome;
    ev->cf_id = call->concrete ? (gint64)call->concrete->id : 0;
    ev->dur_ns = tr_event_bus_now(fn->reg->bus) - call->start_ns;
    ev->ok = ok;
    tr_event_bus_emit(fn->reg->bus, ev);
  }
  tr_trace_sig_unref(call->args);
  tr_trace_sig_unref(call->trace_sig);
  tr_concrete_fn_unref(call->concrete);
  if (call->causes)
    g_ptr_array_unref(call->causes);
  g_free(call->reason);
  g_free(call->file);
  g_free(call->graph_json);
  g_free(call);
}

/* ---- weak objects ---- */

static bool
mentions_weak_object(const TrTraceType *t, guint64 id)
{
  if (t->kind == TR_TRACE_IDENTITY)
    return t->identity.weak && t->identity.id == id;
  if (!tr_trace_type_is_structure(t))
    return false;
  for (int i = 0; i < t->seq.n; i++)
    if (mentions_weak_object(t->seq.items[i], id))
      return true;
  return false;
}

guint
tr_fn_release_object(TrFn *fn, guint64 object_id)
{
  g_return_val_if_fail(fn != NULL, 0);
  guint removed = 0;
  for (guint i = fn->concretes->len; i-- > 0;) {
    const TrConcreteFn *cf = g_ptr_array_index(fn->concretes, i);
    bool hit = false;
    for (int a = 0; a < cf->sig->n && !hit; a++)
      hit = mentions_weak_object(cf->sig->types[a], object_id);
    if (hit) {
      g_ptr_array_remove_index(fn->concretes, i);
      removed++;
    }
  }
  return removed;
}

/* ---- messages ---- */

char *
tr_fn_retracing_warning_text(guint n_traced, guint n_calls, const char *display)
{
  return g_strdup_printf(
      "%u out of the last %u calls to %s triggered tf.function retracing. Tracing is expensive "
      "and the excessive number of tracings could be due to (1) creating @tf.function "
      "repeatedly in a loop, (2) passing tensors with different shapes, (3) passing Python "
      "objects instead of tensors. For (1), please define your @tf.function outside of the "
      "loop. For (2), @tf.function has reduce_retracing=True option that can avoid unnecessary "
      "retracing. For (3), please refer to "
      "https://www.tensorflow.org/guide/function#controlling_retracing and "
      "https://www.tensorflow.org/api_docs/python/tf/function for  more details.",
      n_traced, n_calls, display);
}

char *
tr_fn_incompatible_message(const TrFn *fn, const char *const *input_strs, int n_inputs)
{
  g_return_val_if_fail(fn != NULL && fn->input_signature != NULL, NULL);
  GString *s = g_string_new("Python inputs incompatible with input_signature:\n  inputs: (\n    ");
  for (int i = 0; i < n_inputs; i++)
    g_string_append_printf(s, "%s%s", i > 0 ? ",\n    " : "", input_strs[i]);
  g_string_append(s, ")\n  input_signature: (\n    ");
  for (int i = 0; i < fn->input_signature->n; i++) {
    g_autofree char *spec = tr_trace_type_to_string(fn->input_signature->types[i]);
    g_string_append_printf(s, "%s%s", i > 0 ? ",\n    " : "", spec);
  }
  g_string_append(s, ").");
  return g_string_free(s, FALSE);
}

gint64
tr_fn_hit_begin(TrFn *fn, TrConcreteFn *cf, const TrCallSite *site, const char *reason,
                int n_candidates)
{
  g_return_val_if_fail(fn != NULL && cf != NULL, 0);
  cf->n_served++;
  fn->stats.calls++;
  fn->stats.hits++;
  g_mutex_lock(&fn->reg->lock);
  detector_called_without_tracing(fn_detector(fn));
  g_mutex_unlock(&fn->reg->lock);
  TrEventBus *bus = fn->reg->bus;
  if (tr_event_bus_wants(bus, TR_EVENT_CALL)) {
    TrEvent *ev = fn_event(fn, TR_EVENT_CALL);
    tr_event_set_site(ev, site->file, site->line, site->cell);
    ev->outcome = TR_OUTCOME_HIT;
    ev->cf_id = (gint64)cf->id;
    ev->candidates = n_candidates;
    ev->reason = g_strdup(reason);
    tr_event_bus_emit(bus, ev);
  }
  return tr_event_bus_wants(bus, TR_EVENT_CALL_END) ? tr_event_bus_now(bus) : 0;
}

void
tr_fn_hit_end(TrFn *fn, TrConcreteFn *cf, const TrCallSite *site, gint64 start_ns, bool ok)
{
  g_return_if_fail(fn != NULL && cf != NULL);
  TrEventBus *bus = fn->reg->bus;
  if (!tr_event_bus_wants(bus, TR_EVENT_CALL_END))
    return;
  TrEvent *ev = fn_event(fn, TR_EVENT_CALL_END);
  tr_event_set_site(ev, site->file, site->line, site->cell);
  ev->outcome = TR_OUTCOME_HIT;
  ev->cf_id = (gint64)cf->id;
  ev->dur_ns = start_ns ? tr_event_bus_now(bus) - start_ns : 0;
  ev->ok = ok;
  tr_event_bus_emit(bus, ev);
}
