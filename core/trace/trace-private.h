/* trace-private.h — helpers shared inside core/trace; not installed, not included elsewhere. */
#pragma once

#include "tr-fn.h"
#include "tr-trace-type.h"

/* Same kind, length, dict keys, namedtuple type and fields (children not compared). */
bool tr_trace_type_same_skeleton(const TrTraceType *a, const TrTraceType *b);
/* A None dim of `b` accepts any size; an unknown rank of `b` accepts any shape. */
bool tr_shape_is_subtype(const TrShape *a, const TrShape *b);

/* How far a call's key is from a trace: arguments that do not fit, then a weight of the leaves
 * that do not (2 each, 3 when the kind of value differs too). */
void tr_trace_sig_distance(const TrTraceSig *args, const TrTraceSig *trace, int *n_args,
                           int *n_leaves);
/* Append the SPEC §4 causes for `args` against the trace signature `trace`. */
void tr_trace_sig_explain(const TrTraceSig *args, const TrTraceSig *trace, GPtrArray *causes);
/* Why `winner` (a subtype of `other`) is more specific: "arg 'x': shape (None,) is less
 * specific than (3,)". Transfer full. */
char *tr_trace_sig_specificity(const TrTraceSig *winner, const TrTraceSig *other);
