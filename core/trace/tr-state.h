/* tr-state.h — what an event stream says about a session, folded into one model: the
 * debugger's data and the kernel's snapshot for a debugger that attaches late.
 *
 * A TrState applies events in sequence order and keeps, per Function, its counters (calls,
 * hits, misses, eager runs, tracing time), its traces (ConcreteFunctions with signature, node
 * counts, tracing cost, the causes of the miss that made them and, when the events carried it,
 * the graph's JSON) and every retrace with its causes; per cell, its source and span; the
 * Variables created; whether functions run eagerly; whether a debugger holds the kernel paused,
 * and where. It also keeps the most recent events themselves (a window bounded in count and
 * bytes), for a timeline, a log, and to fill a gap in a live stream. A long-running host (the
 * kernel) also bounds the cells kept (tr_state_set_limits); per-Function counts stay exact
 * whatever is dropped, and the snapshot says how many cells and events were.
 *
 * Its JSON form is the snapshot of the ZeroMQ guide's "clone" pattern: a subscriber that
 * loads a snapshot taken at sequence number N (tr_state_from_json) and then applies the live
 * events numbered above N holds the same state as the publisher.
 *
 * Every struct below is owned by the state and read-only outside state.c; pointers stay valid
 * until the state is freed (Functions and traces are never removed) except the events and,
 * with a cell limit, the cells, which are dropped oldest first. Not thread-safe: one owner, or
 * the owner's lock.
 */
#pragma once

#include <glib.h>
#include <jansson.h>
#include <stdbool.h>

#include "tr-event-log.h"
#include "tr-events.h"

G_BEGIN_DECLS

/* One miss: where it happened and what differed from the closest trace. */
typedef struct {
  guint64 seq;       /* the retrace_cause event's sequence number */
  gint64 ts_ns;      /* its time */
  char *file;        /* call site */
  gint64 line;       /* call site line */
  gint64 cell;       /* running cell (0: none) */
  GPtrArray *causes; /* TrRetraceCause*, owned; never NULL */
  gint64 cf_id;      /* the trace it led to (0: tracing failed or not finished yet) */
} TrStateRetrace;

/* One ConcreteFunction. */
typedef struct {
  gint64 id;               /* ConcreteFunction id */
  gint64 fn_id;            /* its Function */
  char *signature;         /* pretty_printed_concrete_signatures' text for it */
  gint64 graph_id;         /* Graph id */
  gint64 nodes;            /* node count of the traced graph */
  gint64 nodes_optimized;  /* node count of the graph that runs (0: not given) */
  gint64 trace_ns;         /* time spent tracing it */
  guint64 served;          /* calls it served: the tracing call and every hit */
  char *graph_json;        /* tr_graph_to_json() of its graph, or NULL when not carried */
  TrStateRetrace *retrace; /* the miss that traced it (borrowed from the Function), or NULL */
} TrStateTrace;

/* One Function. */
typedef struct {
  gint64 id;           /* Function id */
  char *name;          /* Python name */
  char *text;          /* repr: "<function f at 0x…>" */
  guint64 calls;       /* every call: hits + misses + eager + rejected */
  guint64 hits;        /* served by an existing trace */
  guint64 misses;      /* traced (or tried to) */
  guint64 eager;       /* ran the Python body (run_functions_eagerly) */
  guint64 errors;      /* calls that raised, rejected ones among them */
  guint64 rejected;    /* calls refused before they ran (input_signature, unbindable args) */
  guint64 warnings;    /* retracing warnings */
  gint64 trace_ns;     /* total time tracing */
  gint64 call_ns;      /* total time in calls, tracing included */
  GPtrArray *traces;   /* TrStateTrace*, owned, in creation order */
  GPtrArray *retraces; /* TrStateRetrace*, owned, in order */
  guint64 created_seq; /* sequence number of function_created (0: seen first in a call) */
  guint64 changed_seq; /* sequence number of the last event that changed this Function */
  gint64 first_ts_ns;  /* time of its first event */
} TrStateFn;

/* One cell (or script run). */
typedef struct {
  gint64 number;   /* execution count */
  char *source;    /* the cell's code, or NULL */
  gint64 start_ns; /* cell_start's time */
  gint64 dur_ns;   /* its span (0 while running) */
  bool running;    /* cell_start seen, cell_end not yet */
  bool ok;         /* ended without an exception */
} TrStateCell;

/* One tf.Variable. */
typedef struct {
  gint64 id;   /* Variable id */
  char *name;  /* its name */
  char *dtype; /* dtype name */
  char *shape; /* shape text */
  gint64 cell; /* cell that created it */
} TrStateVariable;

typedef struct _TrState TrState;

/* An empty state that keeps the last `keep_events` events (0: none, G_MAXUINT: all) and every
 * cell. */
TrState *tr_state_new(guint keep_events);
/* Bound what the state keeps: at most `keep_cells` cells (G_MAXUINT: all) and about
 * `event_bytes` bytes of events (tr_event_log_event_bytes; G_MAXSIZE: no bound), the oldest dropped
 * first. */
void tr_state_set_limits(TrState *state, guint keep_cells, gsize event_bytes);
void tr_state_free(TrState *state);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TrState, tr_state_free)

/* Fold one event in. Events at or below the last applied sequence number are ignored
 * (returns FALSE); so are events of unknown Functions' traces. Returns TRUE when applied. The
 * event is borrowed; the state takes its own reference when it keeps it. */
bool tr_state_apply(TrState *state, const TrEvent *ev);
/* A TrEventFunc that applies to `user_data`, a TrState. */
void tr_state_event_func(const TrEvent *ev, gpointer user_data);

/* The last sequence number applied (0: none). */
guint64 tr_state_last_seq(const TrState *state);
/* Time of the newest event applied, on the events' ts_ns scale. */
gint64 tr_state_last_ts(const TrState *state);
/* Whether functions run eagerly, as the last eager_mode event (or snapshot) said. */
bool tr_state_eager(const TrState *state);

/* The debugger_stopped event in force while a debugger holds the kernel paused (borrowed: valid
 * until the next event is applied), or NULL when it runs. */
const TrEvent *tr_state_paused(const TrState *state);

/* Functions in creation order (TrStateFn*, borrowed array). */
GPtrArray *tr_state_functions(const TrState *state);
TrStateFn *tr_state_function(const TrState *state, gint64 fn_id); /* NULL if unknown */
TrStateTrace *tr_state_trace(const TrState *state, gint64 cf_id); /* NULL if unknown */
GPtrArray *tr_state_cells(const TrState *state);                  /* TrStateCell*, borrowed */
GPtrArray *tr_state_variables(const TrState *state);              /* TrStateVariable* */

/* The kept events, oldest first, compactly (tr-event-log.h; borrowed). */
const TrEventLog *tr_state_event_log(const TrState *state);
/* How many events were applied in all (kept or not). */
guint64 tr_state_n_applied(const TrState *state);
/* How many kept events have been dropped from the front of the window so far (the window
 * drops the oldest in batches, once it is a sixteenth over `keep_events` or its bytes). */
guint64 tr_state_events_dropped(const TrState *state);
/* How many events of the session the window lacks: those numbered before its oldest, whether
 * this state dropped them or its snapshot came without them (what a viewer says it lost). */
guint64 tr_state_events_missing(const TrState *state);
/* How many cells have been dropped from the front so far (tr_state_set_limits), this state's
 * own and those its snapshot had dropped. */
guint64 tr_state_cells_dropped(const TrState *state);
/* New references to the kept events numbered above `seq`, oldest first; NULL when some of
 * them are no longer kept (the caller then needs a snapshot). Transfer full. */
GPtrArray *tr_state_events_since(const TrState *state, guint64 seq);

/* The last retrace's causes as one line ("arg 'x': …; arg 'y': …"), or NULL. Transfer full. */
char *tr_state_fn_last_cause(const TrStateFn *fn);
/* Hit rate in [0, 1] (hits / (hits + misses)); 0 when there was no graph call. */
double tr_state_fn_hit_rate(const TrStateFn *fn);

/* The snapshot: {"version":1, "seq":N, "ts_ns":…, "eager":…, "functions":[…], "cells":[…],
 * "variables":[…], "paused": the debugger_stopped event in force or null, "events":[the last
 * `max_events` kept events]}. Transfer full. */
json_t *tr_state_to_json(const TrState *state, guint max_events);
/* A state from a snapshot (it keeps `keep_events` events, as tr_state_new). A malformed
 * snapshot is a TR_EVENTS_ERROR (it comes from another process). Transfer full. */
TrState *tr_state_from_json(json_t *snapshot, guint keep_events, GError **error);

G_END_DECLS
