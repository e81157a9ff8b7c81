/* tr-fn.h — Function and ConcreteFunction: the cache of traces behind tf.function (SPEC §3).
 *
 * A TrFn is one tf.function object: the ConcreteFunctions traced so far, each keyed by the
 * TrTraceSig it was traced for, plus counters. core/trace decides which trace serves a call,
 * explains every miss (retrace causes), and emits the events of SPEC §4; the language layer
 * builds the trace key of a call, does the tracing itself, and hands the resulting graph back
 * as an opaque pointer with a free function.
 *
 * One call, as the language layer drives it:
 *
 *   TrFnCall *call = tr_fn_call_begin(fn, TR_FN_REQUEST_CALL, key, &site);
 *   switch (call->outcome) {
 *   case TR_OUTCOME_HIT:   run call->concrete->data; break;
 *   case TR_OUTCOME_MISS:  tr_fn_trace_begin(fn, call);
 *                          build a graph for call->trace_sig (placeholders from its types);
 *                          tr_fn_trace_end(fn, call, graph, free, n_nodes, graph_id, NULL);
 *                          run call->concrete->data; break;
 *   case TR_OUTCOME_EAGER: run the Python body; break;
 *   default (incompatible with input_signature): raise ValueError with
 *                          tr_fn_incompatible_message(); break;
 *   }
 *   tr_fn_call_end(fn, call, ok);
 *
 * A TrFnRegistry is shared by all Functions of one interpreter: it owns the event bus
 * reference, the "run functions eagerly" switch, the id counters, and TensorFlow's frequent-
 * tracing detectors, which are keyed by the Python function so that tf.function(f) created
 * repeatedly in a loop is noticed.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>

#include "tr-events.h"
#include "tr-trace-type.h"

G_BEGIN_DECLS

/* TensorFlow's frequent-tracing detector: warn when THRESHOLD of the calls within the last
 * HISTORY calls traced (TF 2.x constants); Trellis warns once per Python function. */
#define TR_FN_WARNING_THRESHOLD 5
#define TR_FN_WARNING_HISTORY   10

typedef struct _TrFnRegistry TrFnRegistry;
typedef struct _TrFn TrFn;

/* One trace: a signature and the graph the language layer built for it. */
typedef struct {
  int refcount;             /* owners: the Function, and Python ConcreteFunction objects */
  guint64 id;               /* unique per registry, from 1 */
  guint64 fn_id;            /* the Function that traced it */
  TrTraceSig *sig;          /* the types it was traced for (owned) */
  gpointer data;            /* the caller's graph/plan; owned through free_data */
  GDestroyNotify free_data; /* frees data, or NULL */
  guint64 graph_id;         /* the Graph's id, for events */
  int n_nodes;              /* node count of the traced graph */
  int n_nodes_optimized;    /* node count of the optimised graph that runs (0: not given) */
  gint64 trace_ns;          /* how long tracing took */
  guint64 n_served;         /* calls this trace has served (hits and the tracing call) */
} TrConcreteFn;

TrConcreteFn *tr_concrete_fn_ref(TrConcreteFn *cf);
void tr_concrete_fn_unref(TrConcreteFn *cf);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TrConcreteFn, tr_concrete_fn_unref)

/* Counters of one Function. */
typedef struct {
  guint64 calls;       /* calls of the Function (hits + misses + eager) */
  guint64 hits;        /* served by an existing trace */
  guint64 misses;      /* calls that traced */
  guint64 eager_calls; /* calls run eagerly */
  guint64 traces;      /* traces made, including get_concrete_function's */
  gint64 tracing_ns;   /* time spent tracing */
  guint64 warnings;    /* retracing warnings emitted for this Function */
} TrFnStats;

/* Where a call comes from. */
typedef struct {
  const char *file; /* "<cell 3>" or a path; borrowed */
  int line;         /* 1-based */
  gint64 cell;      /* execution count of the running cell, or 0 */
} TrCallSite;

typedef enum {
  TR_FN_REQUEST_CALL,         /* f(...): counted, eager mode applies, may warn */
  TR_FN_REQUEST_GET_CONCRETE, /* f.get_concrete_function(...): traces if needed, not a call */
} TrFnRequest;

/* Options of tf.function. */
typedef struct {
  const char *name;            /* Python name ("f"), for reports and lanes */
  const char *display;         /* repr of the Python function: "<function f at 0x7f…>" */
  guint64 py_function_key;     /* identity of the Python function (0: unknown) */
  bool reduce_retracing;       /* generalise shapes on misses caused by shapes alone */
  TrTraceSig *input_signature; /* borrowed (the Function takes its own ref), or NULL */
} TrFnOptions;

/* The state of one call between tr_fn_call_begin and tr_fn_call_end. Read-only. */
typedef struct {
  TrFnRequest request;    /* call or get_concrete_function */
  TrOutcome outcome;      /* HIT, MISS, EAGER; NONE when incompatible with input_signature */
  bool incompatible;      /* the arguments do not fit the input_signature */
  TrTraceSig *args;       /* the call's trace key (owned) */
  TrConcreteFn *concrete; /* the serving trace (owned ref): set on HIT, and by trace_end */
  TrTraceSig *trace_sig;  /* MISS: what to trace — input_signature, a generalised key, or args */
  GPtrArray *causes;      /* MISS: TrRetraceCause* (owned) */
  char *reason;           /* HIT with several candidates: why this one won, else NULL */
  int n_candidates;       /* traces that accepted the call */
  char *file;             /* call site */
  int line;               /* call site line */
  gint64 cell;            /* running cell */
  gint64 start_ns;        /* bus time at call_begin */
  gint64 trace_start_ns;  /* bus time at trace_begin */
  bool tracing;           /* between trace_begin and trace_end/abort */
  int n_nodes_optimized;  /* MISS: set by tr_fn_trace_set_optimized, for trace_end */
  char *graph_json;       /* MISS: set by tr_fn_trace_set_graph_json, for concrete_function_added */
} TrFnCall;

/* ---- registry ---- */

/* Transfer full; takes its own reference on bus. */
TrFnRegistry *tr_fn_registry_new(TrEventBus *bus);
TrFnRegistry *tr_fn_registry_ref(TrFnRegistry *reg);
void tr_fn_registry_unref(TrFnRegistry *reg);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TrFnRegistry, tr_fn_registry_unref)
TrEventBus *tr_fn_registry_get_bus(TrFnRegistry *reg); /* borrowed */
/* tf.config.run_functions_eagerly: emits an eager_mode event when the value changes. Safe to
 * call from another thread (the kernel's control thread). */
void tr_fn_registry_set_run_eagerly(TrFnRegistry *reg, bool eager);
bool tr_fn_registry_get_run_eagerly(TrFnRegistry *reg);

/* ---- Function ---- */

/* A new Function; emits function_created. Transfer full. */
TrFn *tr_fn_new(TrFnRegistry *reg, const TrFnOptions *options);
TrFn *tr_fn_ref(TrFn *fn);
void tr_fn_unref(TrFn *fn);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TrFn, tr_fn_unref)

guint64 tr_fn_get_id(const TrFn *fn);
const char *tr_fn_get_name(const TrFn *fn);
const char *tr_fn_get_display(const TrFn *fn);
const TrFnStats *tr_fn_get_stats(const TrFn *fn);
TrTraceSig *tr_fn_get_input_signature(const TrFn *fn); /* borrowed, or NULL */
guint tr_fn_get_n_concrete(const TrFn *fn);
TrConcreteFn *tr_fn_get_concrete(const TrFn *fn, guint index); /* borrowed, in trace order */

/* The most specific trace that accepts `args`, or NULL. Among several, a trace wins if its
 * signature is a subtype of the current best (TF's dispatch); `reason` (transfer full, may be
 * NULL) then says why, e.g. "arg 'x': shape (None,) is less specific than (3,)". Pure query. */
TrConcreteFn *tr_fn_lookup(const TrFn *fn, const TrTraceSig *args, char **reason,
                           int *n_candidates);
/* Why `args` has no trace: differences from the closest trace (fewest differing arguments,
 * then fewest differing leaves, then the oldest), or "first call" / "new Function object".
 * With more than 64 traces, the closest is looked for among the 64 oldest, the 64 newest and
 * the first 64 that differ from `args` in one argument alone (per argument), so that a miss
 * costs the same after ten traces or ten thousand. Transfer full: a GPtrArray of
 * TrRetraceCause. */
GPtrArray *tr_fn_explain_miss(const TrFn *fn, const TrTraceSig *args);
/* The signature reduce_retracing traces for `args`: `args` widened against every existing
 * trace that has a common supertype with it (TF's generalisation), oldest first. Transfer
 * full. */
TrTraceSig *tr_fn_generalize(const TrFn *fn, const TrTraceSig *args);

/* Start a call: decides hit/miss/eager, updates counters, emits call (and retrace_cause on a
 * miss). `args` is borrowed (a reference is taken). Transfer full: end it with
 * tr_fn_call_end. */
TrFnCall *tr_fn_call_begin(TrFn *fn, TrFnRequest request, TrTraceSig *args, const TrCallSite *site);
/* A hit the language layer found itself: a call with exactly the key of an earlier call that
 * `cf` served, no trace having been added since (so the lookup would give `cf` again, with
 * the same `reason` and `n_candidates`). Counts it and emits call; returns the start time for
 * tr_fn_hit_end, which emits call_end. No allocation when nobody listens. */
gint64 tr_fn_hit_begin(TrFn *fn, TrConcreteFn *cf, const TrCallSite *site, const char *reason,
                       int n_candidates);
void tr_fn_hit_end(TrFn *fn, TrConcreteFn *cf, const TrCallSite *site, gint64 start_ns, bool ok);

/* Tracing starts for a MISS: emits trace_start. */
void tr_fn_trace_begin(TrFn *fn, TrFnCall *call);
/* Tracing produced a graph: stores a ConcreteFunction for call->trace_sig that owns `data`,
 * sets call->concrete, emits trace_end and concrete_function_added (with `signature_text`, or
 * the signature's default text when NULL), and the retracing warning when due. Returns the
 * new trace (borrowed). */
TrConcreteFn *tr_fn_trace_end(TrFn *fn, TrFnCall *call, gpointer data, GDestroyNotify free_data,
                              int n_nodes, guint64 graph_id, const char *signature_text);
/* The traced graph was optimised to `n_nodes` nodes: trace_end records it in the trace and in
 * concrete_function_added's "nodes_optimized". Call between trace_begin and trace_end. */
void tr_fn_trace_set_optimized(TrFnCall *call, int n_nodes);
/* The traced graph's JSON (transfer full) for concrete_function_added's "graph", given when
 * the bus carries graphs (tr_event_bus_carries_graphs). Call before trace_end. */
void tr_fn_trace_set_graph_json(TrFnCall *call, char *graph_json);
/* Tracing raised: emits trace_end with ok false; nothing is cached. */
void tr_fn_trace_abort(TrFn *fn, TrFnCall *call);
/* The call returned (ok) or raised: emits call_end with its duration and frees `call`. */
void tr_fn_call_end(TrFn *fn, TrFnCall *call, bool ok);

/* Drop every trace keyed on a weakly held object that has died (TF keeps such objects by
 * weak reference). Returns how many traces went. */
guint tr_fn_release_object(TrFn *fn, guint64 object_id);

/* TensorFlow's warning text: "5 out of the last 5 calls to <function f at 0x…> triggered
 * tf.function retracing. Tracing is expensive…". Transfer full. */
char *tr_fn_retracing_warning_text(guint n_traced, guint n_calls, const char *display);
/* TensorFlow's ValueError text for a call that does not fit input_signature, from str() of
 * each input: "Python inputs incompatible with input_signature:\n  inputs: (\n    …)\n
 * input_signature: (\n    TensorSpec(…)).". Transfer full. */
char *tr_fn_incompatible_message(const TrFn *fn, const char *const *input_strs, int n_inputs);

G_END_DECLS
