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

/* The traces whose keys have one shape-blind hash (tr_trace_sig_shape_blind_hash): the only
 * traces that can accept a key of that hash, or have a common supertype with it. */
typedef struct {
  GPtrArray *all;     /* with reduce_retracing: every trace of the family (TrConcreteFn*,
                       * borrowed from fn->concretes), oldest first; else NULL */
  GPtrArray *partial; /* its traces not in fn->exact (a partial shape), oldest first, or NULL */
} Family;

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
  GHashTable *exact;           /* sig → TrConcreteFn*, both borrowed from concretes: traces whose
                                * key accepts only itself (tr_trace_sig_is_exact), so a call finds
                                * them by its own key whatever the number of traces */
  GHashTable *families;        /* shape-blind hash → Family* (owned), made when needed */
  GHashTable *neighbours;      /* hash of a key without one argument → GPtrArray* (owned) of
                                * TrConcreteFn* (borrowed), oldest first */
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

/* ---- the index of traces ----
 *
 * A call must find the traces that accept it, and a miss the closest trace, without looking at
 * every trace: a Function fed a new Python value per call keeps thousands.
 * - A trace whose key has only fully known shapes accepts that key alone: `exact` finds it.
 * - The others (partial shapes: an input_signature, reduce_retracing, TensorSpecs) are few; a
 *   call looks only at those of its family (the same shape-blind hash), the only ones that can
 *   accept it. reduce_retracing widens a key against every trace of its family.
 * - A miss usually differs from some trace in one argument: `neighbours` files each trace under
 *   its key with one argument left out, once per argument, so the traces that differ from a
 *   call in argument j alone are the ones filed under the call's key without j. */

static guint
sig_hash(gconstpointer sig)
{
  return tr_trace_sig_hash(sig);
}

static gboolean
sig_equal(gconstpointer a, gconstpointer b)
{
  return tr_trace_sig_equal(a, b);
}

static void
family_free(Family *fam)
{
  if (fam->all)
    g_ptr_array_unref(fam->all);
  if (fam->partial)
    g_ptr_array_unref(fam->partial);
  g_free(fam);
}

static Family *
family_of(const TrFn *fn, const TrTraceSig *sig)
{
  return g_hash_table_lookup(fn->families, GUINT_TO_POINTER(tr_trace_sig_shape_blind_hash(sig)));
}

/* Appends `cf` to the array at *slot, made on first use. */
static void
list_add(GPtrArray **slot, TrConcreteFn *cf)
{
  if (!*slot)
    *slot = g_ptr_array_new();
  g_ptr_array_add(*slot, cf);
}

/* Removes `cf` keeping the order; true when the list is now empty (or was never made). */
static bool
list_remove(GPtrArray *list, TrConcreteFn *cf)
{
  if (list)
    g_ptr_array_remove(list, cf);
  return !list || list->len == 0;
}

static void
index_add(TrFn *fn, TrConcreteFn *cf)
{
  /* An exact key already taken (a trace made for an equal key, which dispatch never does) is
   * filed as partial, where every lookup still meets it. */
  bool exact = tr_trace_sig_is_exact(cf->sig) && !g_hash_table_contains(fn->exact, cf->sig);
  if (exact)
    g_hash_table_insert(fn->exact, cf->sig, cf);
  if (!exact || fn->reduce_retracing) {
    gpointer blind = GUINT_TO_POINTER(tr_trace_sig_shape_blind_hash(cf->sig));
    Family *fam = g_hash_table_lookup(fn->families, blind);
    if (!fam) {
      fam = g_new0(Family, 1);
      g_hash_table_insert(fn->families, blind, fam);
    }
    if (fn->reduce_retracing)
      list_add(&fam->all, cf);
    if (!exact)
      list_add(&fam->partial, cf);
  }
  for (int j = 0; j < cf->sig->n; j++) {
    gpointer key = GUINT_TO_POINTER(tr_trace_sig_hash_without(cf->sig, j));
    GPtrArray *near = g_hash_table_lookup(fn->neighbours, key);
    if (!near) {
      near = g_ptr_array_new();
      g_hash_table_insert(fn->neighbours, key, near);
    }
    g_ptr_array_add(near, cf);
  }
}

static void
index_remove(TrFn *fn, TrConcreteFn *cf)
{
  if (g_hash_table_lookup(fn->exact, cf->sig) == cf)
    g_hash_table_remove(fn->exact, cf->sig);
  gpointer blind = GUINT_TO_POINTER(tr_trace_sig_shape_blind_hash(cf->sig));
  Family *fam = g_hash_table_lookup(fn->families, blind);
  if (fam) {
    bool no_all = list_remove(fam->all, cf);
    bool no_partial = list_remove(fam->partial, cf);
    if (no_all && no_partial)
      g_hash_table_remove(fn->families, blind);
  }
  for (int j = 0; j < cf->sig->n; j++) {
    gpointer key = GUINT_TO_POINTER(tr_trace_sig_hash_without(cf->sig, j));
    if (list_remove(g_hash_table_lookup(fn->neighbours, key), cf))
      g_hash_table_remove(fn->neighbours, key);
  }
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
  fn->exact = g_hash_table_new(sig_hash, sig_equal);
  fn->families = g_hash_table_new_full(NULL, NULL, NULL, (GDestroyNotify)family_free);
  fn->neighbours = g_hash_table_new_full(NULL, NULL, NULL, (GDestroyNotify)g_ptr_array_unref);
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
  g_hash_table_unref(fn->exact);
  g_hash_table_unref(fn->families);
  g_hash_table_unref(fn->neighbours);
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

/* The traces that accept `args`, oldest first: its exact trace and the partial ones of its
 * family that accept it. Transfer container. */
static GPtrArray *
candidates_of(const TrFn *fn, const TrTraceSig *args)
{
  GPtrArray *out = g_ptr_array_new();
  TrConcreteFn *exact = g_hash_table_lookup(fn->exact, args);
  Family *fam = family_of(fn, args);
  for (guint i = 0; fam && fam->partial && i < fam->partial->len; i++) {
    TrConcreteFn *cf = g_ptr_array_index(fam->partial, i);
    if (exact && exact->id < cf->id)
      g_ptr_array_add(out, g_steal_pointer(&exact));
    if (tr_trace_sig_is_subtype_of(args, cf->sig))
      g_ptr_array_add(out, cf);
  }
  if (exact)
    g_ptr_array_add(out, exact);
  return out;
}

static char *
explain_choice(const GPtrArray *candidates, const TrConcreteFn *best)
{
  GString *why = g_string_new(NULL);
  for (guint i = 0; i < candidates->len; i++) {
    const TrConcreteFn *cf = g_ptr_array_index(candidates, i);
    if (cf == best)
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
  g_autoptr(GPtrArray) candidates = candidates_of(fn, args);
  TrConcreteFn *best = NULL;
  for (guint i = 0; i < candidates->len; i++) {
    TrConcreteFn *cf = g_ptr_array_index(candidates, i);
    if (best == NULL || tr_trace_sig_is_subtype_of(cf->sig, best->sig))
      best = cf;
  }
  int n = (int)candidates->len;
  if (n_candidates)
    *n_candidates = n;
  if (reason)
    *reason = n > 1 ? explain_choice(candidates, best) : NULL;
  return best;
}

/* How many traces a miss compares with from each source: the oldest, those that differ from
 * the call in one argument alone (per argument), the newest. With fewer traces than this every
 * trace is compared, and the cost of a miss never grows with the number of traces. */
#define CLOSEST_SCAN 64

typedef struct {
  const TrTraceSig *args;       /* the call's key */
  int bound_args, bound_leaves; /* the least distance any trace can have */
  const TrConcreteFn *best;     /* closest so far: fewest arguments, leaves, then oldest */
  int best_args, best_leaves;   /* its distance */
} Closest;

/* Weighs `cf`; true once no trace can be closer (older traces having been weighed first). */
static bool
closest_visit(Closest *c, const TrConcreteFn *cf)
{
  int da, dl;
  tr_trace_sig_distance(c->args, cf->sig, &da, &dl);
  if (c->best == NULL || da < c->best_args || (da == c->best_args && dl < c->best_leaves) ||
      (da == c->best_args && dl == c->best_leaves && cf->id < c->best->id)) {
    c->best = cf;
    c->best_args = da;
    c->best_leaves = dl;
  }
  return c->best_args == c->bound_args && c->best_leaves == c->bound_leaves;
}

/* Weighs up to CLOSEST_SCAN traces of `list` from `from` on. */
static bool
closest_scan(Closest *c, const GPtrArray *list, guint from)
{
  for (guint i = from; list && i < list->len && i - from < CLOSEST_SCAN; i++)
    if (closest_visit(c, g_ptr_array_index(list, i)))
      return true;
  return false;
}

GPtrArray *
tr_fn_explain_miss(const TrFn *fn, const TrTraceSig *args)
{
  g_return_val_if_fail(fn != NULL && args != NULL, NULL);
  GPtrArray *causes = tr_retrace_causes_new();
  guint n = fn->concretes->len;
  if (n == 0) {
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
  /* A trace that does not accept the call differs in one argument at least, by two leaf
   * weights at least (tr_trace_sig_distance); one that accepts it, in nothing. */
  bool accepted = tr_fn_lookup(fn, args, NULL, NULL) != NULL;
  Closest c = {.args = args, .bound_args = accepted ? 0 : 1, .bound_leaves = accepted ? 0 : 2};
  bool done = closest_scan(&c, fn->concretes, 0);
  for (int j = 0; j < args->n && !done && n > CLOSEST_SCAN; j++) {
    gpointer key = GUINT_TO_POINTER(tr_trace_sig_hash_without(args, j));
    done = closest_scan(&c, g_hash_table_lookup(fn->neighbours, key), 0);
  }
  if (!done && n > CLOSEST_SCAN)
    closest_scan(&c, fn->concretes, MAX(n - CLOSEST_SCAN, CLOSEST_SCAN));
  tr_trace_sig_explain(args, c.best->sig, causes);
  return causes;
}

TrTraceSig *
tr_fn_generalize(const TrFn *fn, const TrTraceSig *args)
{
  g_return_val_if_fail(fn != NULL && args != NULL, NULL);
  TrTraceSig *relaxed = tr_trace_sig_ref((TrTraceSig *)args);
  /* Only traces of the call's family have a common supertype with it, and widening keeps
   * `relaxed` in that family; a Function without reduce_retracing files no family lists. */
  const GPtrArray *traces = fn->concretes;
  if (fn->reduce_retracing) {
    Family *fam = family_of(fn, args);
    traces = fam ? fam->all : NULL;
  }
  for (guint i = 0; traces && i < traces->len; i++) {
    const TrConcreteFn *cf = g_ptr_array_index(traces, i);
    TrTraceSig *super = tr_trace_sig_common_supertype(relaxed, cf->sig);
    if (super == NULL)
      continue;
    tr_trace_sig_unref(relaxed);
    relaxed = super;
  }
  return relaxed;
}

/* ---- the call life cycle ---- */

/* A call's event as a view (tr_event_bus_emit_view): on the stack, its strings the Function's
 * and the call's, so that a cached call's events cost no allocation. */
static void
call_view(TrEvent *ev, const TrFn *fn, const TrFnCall *call, TrEventKind kind)
{
  memset(ev, 0, sizeof *ev);
  ev->kind = kind;
  ev->ok = true;
  ev->fn_id = (gint64)fn->id;
  ev->fn_name = fn->name;
  ev->file = call->file;
  ev->line = call->line;
  ev->cell = call->cell;
  ev->outcome = call->outcome;
  ev->cf_id = call->concrete ? (gint64)call->concrete->id : 0;
}

static void
emit_call(TrFn *fn, TrFnCall *call)
{
  if (!tr_event_bus_wants(fn->reg->bus, TR_EVENT_CALL))
    return;
  TrEvent ev;
  call_view(&ev, fn, call, TR_EVENT_CALL);
  ev.candidates = call->n_candidates;
  ev.reason = call->reason;
  tr_event_bus_emit_view(fn->reg->bus, &ev);
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
  index_add(fn, cf);
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
    TrEvent ev;
    call_view(&ev, fn, call, TR_EVENT_CALL_END);
    ev.ts_ns = tr_event_bus_now(fn->reg->bus);
    ev.dur_ns = ev.ts_ns - call->start_ns;
    ev.ok = ok;
    tr_event_bus_emit_view(fn->reg->bus, &ev);
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
      index_remove(fn, (TrConcreteFn *)cf);
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

/* A cache hit's event as a view, its strings the Function's and the site's (borrowed). */
static void
hit_view(TrEvent *ev, const TrFn *fn, const TrConcreteFn *cf, const TrCallSite *site,
         TrEventKind kind)
{
  memset(ev, 0, sizeof *ev);
  ev->kind = kind;
  ev->ok = true;
  ev->fn_id = (gint64)fn->id;
  ev->fn_name = fn->name;
  ev->file = (char *)site->file;
  ev->line = site->line;
  ev->cell = site->cell;
  ev->outcome = TR_OUTCOME_HIT;
  ev->cf_id = (gint64)cf->id;
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
    TrEvent ev;
    hit_view(&ev, fn, cf, site, TR_EVENT_CALL);
    ev.candidates = n_candidates;
    ev.reason = (char *)reason;
    tr_event_bus_emit_view(bus, &ev);
    if (tr_event_bus_wants(bus, TR_EVENT_CALL_END))
      return ev.ts_ns; /* the call starts when its call event says */
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
  TrEvent ev;
  hit_view(&ev, fn, cf, site, TR_EVENT_CALL_END);
  ev.ts_ns = tr_event_bus_now(bus);
  ev.dur_ns = start_ns ? ev.ts_ns - start_ns : 0;
  ev.ok = ok;
  tr_event_bus_emit_view(bus, &ev);
}
