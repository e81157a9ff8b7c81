/* causes.c — explaining the cache: why a call missed (retrace causes, SPEC §4), how far a
 * call is from each trace, and why the most specific of several accepting traces won. */
#include "trace-private.h"

#include <string.h>

/* "xs[1]", "d['a']", "p.x": the path of a child inside an argument. Transfer full. */
static char *
child_path(const char *path, const TrTraceType *parent, int i)
{
  switch (parent->kind) {
    case TR_TRACE_DICT: {
      g_autofree char *key = tr_trace_type_primitive_repr(parent->seq.keys[i]);
      return g_strdup_printf("%s[%s]", path, key);
    }
    case TR_TRACE_NAMEDTUPLE:
      return g_strdup_printf("%s.%s", path, parent->seq.fields[i]);
    default:
      return g_strdup_printf("%s[%d]", path, i);
  }
}

static void
add_cause(GPtrArray *out, const char *arg, TrCauseKind kind, char *text /* stolen */)
{
  g_ptr_array_add(out, tr_retrace_cause_new(arg, kind, text));
  g_free(text);
}

static void
explain_tensor(const TrTraceType *now, const TrTraceType *was, const char *arg, const char *path,
               GPtrArray *out)
{
  if (now->tensor.dtype != was->tensor.dtype)
    add_cause(out, arg, TR_CAUSE_DTYPE,
              g_strdup_printf("arg '%s': dtype %s, traces have %s", path,
                              tr_dtype_name(now->tensor.dtype), tr_dtype_name(was->tensor.dtype)));
  if (!tr_shape_is_subtype(&now->tensor.shape, &was->tensor.shape)) {
    g_autofree char *ns = tr_shape_to_string(&now->tensor.shape);
    g_autofree char *ws = tr_shape_to_string(&was->tensor.shape);
    add_cause(out, arg, TR_CAUSE_SHAPE,
              g_strdup_printf("arg '%s': shape %s does not match %s", path, ns, ws));
  }
}

/* Causes for one argument (or a part of it, at `path`) against the trace's type. */
static void
explain_type(const TrTraceType *now, const TrTraceType *was, const char *arg, const char *path,
             GPtrArray *out)
{
  if (tr_trace_type_is_subtype_of(now, was))
    return;
  g_autofree char *now_desc = tr_trace_type_describe(now);
  g_autofree char *was_desc = tr_trace_type_describe(was);
  if (tr_trace_type_is_structure(now) || tr_trace_type_is_structure(was)) {
    if (!tr_trace_type_same_skeleton(now, was)) {
      add_cause(
          out, arg, TR_CAUSE_STRUCTURE,
          g_strdup_printf("structure of arg '%s' changed: %s \u2192 %s", path, was_desc, now_desc));
      return;
    }
    for (int i = 0; i < now->seq.n; i++) {
      g_autofree char *sub = child_path(path, now, i);
      explain_type(now->seq.items[i], was->seq.items[i], arg, sub, out);
    }
    return;
  }
  if (now->kind != was->kind) {
    add_cause(out, arg, TR_CAUSE_TYPE,
              g_strdup_printf("arg '%s': %s, traces have %s", path, now_desc, was_desc));
    return;
  }
  switch (now->kind) {
    case TR_TRACE_TENSOR:
      explain_tensor(now, was, arg, path, out);
      return;
    case TR_TRACE_PRIMITIVE: {
      g_autofree char *nv = tr_trace_type_primitive_repr(now);
      g_autofree char *wv = tr_trace_type_primitive_repr(was);
      add_cause(out, arg, TR_CAUSE_PYTHON_VALUE,
                g_strdup_printf("arg '%s': Python value %s, traces have %s", path, nv, wv));
      return;
    }
    case TR_TRACE_IDENTITY:
      add_cause(out, arg, TR_CAUSE_NEW_OBJECT,
                g_strdup_printf("arg '%s': new object %s", path, now->identity.display));
      return;
    case TR_TRACE_VARIABLE:
      add_cause(out, arg, TR_CAUSE_VARIABLE,
                g_strdup_printf("arg '%s': %s, traces have %s", path, now_desc, was_desc));
      return;
    default:
      g_assert_not_reached();
  }
}

static char *
names_text(const TrTraceSig *sig)
{
  g_autofree char *joined = g_strjoinv(", ", sig->names);
  return g_strdup_printf("(%s)", joined);
}

void
tr_trace_sig_explain(const TrTraceSig *args, const TrTraceSig *trace, GPtrArray *causes)
{
  bool names_differ = args->n != trace->n;
  for (int i = 0; i < args->n && !names_differ; i++)
    names_differ = strcmp(args->names[i], trace->names[i]) != 0;
  if (names_differ) {
    g_autofree char *was = names_text(trace);
    g_autofree char *now = names_text(args);
    add_cause(causes, NULL, TR_CAUSE_ARGUMENTS,
              g_strdup_printf("arguments changed: %s \u2192 %s", was, now));
  }
  guint before = causes->len;
  for (int i = 0; i < args->n; i++) {
    int j = tr_trace_sig_find(trace, args->names[i]);
    if (j >= 0)
      explain_type(args->types[i], trace->types[j], args->names[i], args->names[i], causes);
  }
  if (causes->len == before && !names_differ)
    add_cause(causes, NULL, TR_CAUSE_OTHER, g_strdup("no trace accepts these arguments"));
}

static int
count_leaves(const TrTraceType *t)
{
  if (!tr_trace_type_is_structure(t))
    return 1;
  int n = 0;
  for (int i = 0; i < t->seq.n; i++)
    n += count_leaves(t->seq.items[i]);
  return MAX(n, 1);
}

/* Twice the leaves of `now` that `was` does not accept (under a changed skeleton, all of
 * them), plus one for each such leaf whose kind differs too: a Python value 4 is closer to a
 * trace for 3 than to one for a tensor. */
static int
leaf_distance(const TrTraceType *now, const TrTraceType *was)
{
  if (tr_trace_type_is_subtype_of(now, was))
    return 0;
  if (!tr_trace_type_is_structure(now) && !tr_trace_type_is_structure(was))
    return now->kind == was->kind ? 2 : 3;
  if (!tr_trace_type_is_structure(now) || !tr_trace_type_same_skeleton(now, was))
    return 3 * count_leaves(now);
  int d = 0;
  for (int i = 0; i < now->seq.n; i++)
    d += leaf_distance(now->seq.items[i], was->seq.items[i]);
  return d;
}

void
tr_trace_sig_distance(const TrTraceSig *args, const TrTraceSig *trace, int *n_args, int *n_leaves)
{
  int da = 0, dl = 0;
  for (int i = 0; i < args->n; i++) {
    int j = tr_trace_sig_find(trace, args->names[i]);
    int d = j < 0 ? 3 : leaf_distance(args->types[i], trace->types[j]);
    da += d > 0;
    dl += d;
  }
  for (int j = 0; j < trace->n; j++)
    if (tr_trace_sig_find(args, trace->names[j]) < 0)
      da++, dl += 3;
  *n_args = da;
  *n_leaves = dl;
}

/* The first leaf, in argument order, where the more specific `w` differs from `o`. */
static char *
specificity_of(const TrTraceType *w, const TrTraceType *o, const char *path)
{
  if (tr_trace_type_equal(w, o))
    return NULL;
  if (tr_trace_type_is_structure(w)) {
    for (int i = 0; i < w->seq.n; i++) {
      g_autofree char *sub = child_path(path, w, i);
      char *r = specificity_of(w->seq.items[i], o->seq.items[i], sub);
      if (r)
        return r;
    }
    return NULL;
  }
  if (w->kind != TR_TRACE_TENSOR)
    return NULL;
  g_autofree char *ws = tr_shape_to_string(&w->tensor.shape);
  g_autofree char *os = tr_shape_to_string(&o->tensor.shape);
  return g_strdup_printf("arg '%s': shape %s is less specific than %s", path, os, ws);
}

char *
tr_trace_sig_specificity(const TrTraceSig *winner, const TrTraceSig *other)
{
  for (int i = 0; i < winner->n && i < other->n; i++) {
    char *r = specificity_of(winner->types[i], other->types[i], winner->names[i]);
    if (r)
      return r;
  }
  return g_strdup("the signatures are equal");
}
