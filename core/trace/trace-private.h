/* trace-private.h — helpers shared inside core/trace; not installed, not included elsewhere. */
#pragma once

#include <string.h>

#include "tr-fn.h"
#include "tr-trace-type.h"

/* Same kind, length, dict keys, namedtuple type and fields (children not compared). */
bool tr_trace_type_same_skeleton(const TrTraceType *a, const TrTraceType *b);
/* A None dim of `b` accepts any size; an unknown rank of `b` accepts any shape. */
bool tr_shape_is_subtype(const TrShape *a, const TrShape *b);

/* A hash that ignores tensor shapes: a key and every trace that accepts it hash alike (being a
 * subtype needs equal names, kinds, dtypes, structures and values; only shapes may differ). */
guint tr_trace_sig_shape_blind_hash(const TrTraceSig *sig);
/* The hash of `sig` with argument `j` left out (its name kept): equal for two keys that differ
 * in argument j alone. */
guint tr_trace_sig_hash_without(const TrTraceSig *sig, int j);
/* Whether every tensor of `sig` has a fully known shape: then the only key it accepts is
 * itself, and a hash table of such keys finds its trace. */
bool tr_trace_sig_is_exact(const TrTraceSig *sig);

/* How far a call's key is from a trace: arguments that do not fit, then a weight of the leaves
 * that do not (2 each, 3 when the kind of value differs too). */
void tr_trace_sig_distance(const TrTraceSig *args, const TrTraceSig *trace, int *n_args,
                           int *n_leaves);
/* Append the SPEC §4 causes for `args` against the trace signature `trace`. */
void tr_trace_sig_explain(const TrTraceSig *args, const TrTraceSig *trace, GPtrArray *causes);
/* Why `winner` (a subtype of `other`) is more specific: "arg 'x': shape (None,) is less
 * specific than (3,)". Transfer full. */
char *tr_trace_sig_specificity(const TrTraceSig *winner, const TrTraceSig *other);

/* g_string_append_len without a call when there is room (GLib 2.74 does not inline it): the
 * JSON writers append a few bytes at a time, millions of times. */
static inline void
tr_put(GString *out, const char *s, gsize n)
{
  if (out->len + n >= out->allocated_len) {
    g_string_append_len(out, s, (gssize)n);
    return;
  }
  memcpy(out->str + out->len, s, n);
  out->len += n;
  out->str[out->len] = '\0';
}

#define TR_PUT_LITERAL(out, lit) tr_put(out, lit, sizeof lit - 1)

static inline void
tr_put_c(GString *out, char c)
{
  tr_put(out, &c, 1);
}

/* The Perfetto writer (perfetto.c), fed one event at a time so that a log need not make
 * TrEvents: begin writes the document's head into `out` (borrowed; with an instant saying how
 * many events were `dropped` before the first, at `first_ts_ns`), add writes one event's trace
 * events, end writes the tail and frees the writer. */
typedef struct _TrPerfetto TrPerfetto;
TrPerfetto *tr_perfetto_begin(GString *out, guint64 dropped, gint64 first_ts_ns);
void tr_perfetto_add(TrPerfetto *p, const TrEvent *ev);
void tr_perfetto_end(TrPerfetto *p);

/* tr_event_append_json with the call site's fields (",\"cell\":…,\"file\":…,\"line\":…") and
 * the Function's (",\"function_id\":…,\"function\":…") already written out, as a log keeps
 * them per interned site and Function (either may be NULL: written from the event). */
void tr_event_append_json_parts(GString *out, const TrEvent *ev, const GString *site,
                                const GString *fn);
