/* td-trace-diff.h — what tells two traces of a Function apart, and what TensorFlow's guide
 * advises for each retrace cause: the debugger's trace comparison (SPEC §6), without GTK.
 *
 * Traces are compared by their signatures as pretty_printed_concrete_signatures prints them:
 * "f(x, n)\n  Args:\n    x: float32 Tensor, shape=(2,)\n    n: int32 Tensor, shape=()\n
 *  Returns:\n    …". Each argument line is an argument's trace type. */
#pragma once

#include <glib.h>

#include "tr-events.h"

G_BEGIN_DECLS

/* One argument where two signatures differ. */
typedef struct {
  char *name; /* the argument ("x", or "args_0" for a positional one) */
  char *a;    /* its type in the first signature ("float32 Tensor, shape=(2,)"), or NULL */
  char *b;    /* in the second, or NULL when the second has no such argument */
} TdArgDiff;

/* The arguments of `a` and `b` that differ, in `a`'s order then `b`'s extra ones
 * (TdArgDiff *, transfer full; empty when the argument types are the same). */
GPtrArray *td_trace_diff(const char *a, const char *b);

/* The arguments of a signature, "name: type" lines in order (char *, transfer full). */
GPtrArray *td_trace_args(const char *signature);

/* What TensorFlow's guide ("Better performance with tf.function", "Controlling retracing")
 * suggests against a cause, in a sentence; NULL for causes no change avoids (a first call). */
const char *td_cause_advice(TrCauseKind kind);

G_END_DECLS
