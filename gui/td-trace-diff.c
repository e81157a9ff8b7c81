/* The debugger's trace comparison (td-trace-diff.h). */
#include "td-trace-diff.h"

#include <string.h>

GPtrArray *
td_trace_args(const char *signature)
{
  GPtrArray *args = g_ptr_array_new_with_free_func(g_free);
  if (!signature)
    return args;
  g_auto(GStrv) lines = g_strsplit(signature, "\n", -1);
  bool in_args = false;
  for (int i = 0; lines[i]; i++) {
    const char *line = lines[i];
    const char *text = line + strspn(line, " ");
    if (text - line == 2) { /* a section: "  Args:", "  Returns:" */
      in_args = g_str_equal(text, "Args:");
      continue;
    }
    if (in_args && text - line >= 4 && *text && strchr(text, ':'))
      g_ptr_array_add(args, g_strdup(text));
  }
  return args;
}

/* "x: float32 Tensor" → name "x" (transfer full) and the type after ": " (borrowed). */
static char *
split_arg(const char *line, const char **type)
{
  const char *colon = strchr(line, ':');
  *type = colon[1] == ' ' ? colon + 2 : colon + 1;
  return g_strndup(line, (gsize)(colon - line));
}

static void
arg_diff_free(gpointer data)
{
  TdArgDiff *d = data;
  g_free(d->name);
  g_free(d->a);
  g_free(d->b);
  g_free(d);
}

static const char *
type_of(GHashTable *types, const char *name)
{
  return g_hash_table_lookup(types, name);
}

GPtrArray *
td_trace_diff(const char *a, const char *b)
{
  GPtrArray *diffs = g_ptr_array_new_with_free_func(arg_diff_free);
  g_autoptr(GPtrArray) a_args = td_trace_args(a);
  g_autoptr(GPtrArray) b_args = td_trace_args(b);
  g_autoptr(GHashTable) a_types = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) b_types = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) b_names = g_ptr_array_new();
  for (guint i = 0; i < a_args->len; i++) {
    const char *type;
    char *name = split_arg(a_args->pdata[i], &type);
    g_hash_table_insert(a_types, name, (gpointer)type);
  }
  for (guint i = 0; i < b_args->len; i++) {
    const char *type;
    char *name = split_arg(b_args->pdata[i], &type);
    g_hash_table_insert(b_types, name, (gpointer)type);
    g_ptr_array_add(b_names, name);
  }
  for (guint i = 0; i < a_args->len; i++) {
    const char *ta;
    g_autofree char *name = split_arg(a_args->pdata[i], &ta);
    const char *tb = type_of(b_types, name);
    if (tb && strcmp(ta, tb) == 0)
      continue;
    TdArgDiff *d = g_new(TdArgDiff, 1);
    *d = (TdArgDiff){g_strdup(name), g_strdup(ta), g_strdup(tb)};
    g_ptr_array_add(diffs, d);
  }
  for (guint i = 0; i < b_names->len; i++) {
    const char *name = b_names->pdata[i];
    if (type_of(a_types, name))
      continue;
    TdArgDiff *d = g_new(TdArgDiff, 1);
    *d = (TdArgDiff){g_strdup(name), NULL, g_strdup(type_of(b_types, name))};
    g_ptr_array_add(diffs, d);
  }
  return diffs;
}

const char *
td_cause_advice(TrCauseKind kind)
{
  switch (kind) {
    case TR_CAUSE_SHAPE:
      return "Shapes that vary retrace: give input_signature a TensorSpec with None for the "
             "dimensions that change, or use @tf.function(reduce_retracing=True).";
    case TR_CAUSE_DTYPE:
      return "Each dtype has its own trace: convert the argument to one dtype (tf.cast) before "
             "the call, or fix it with input_signature.";
    case TR_CAUSE_PYTHON_VALUE:
      return "A Python number or string is part of the trace: each new value traces again. Pass "
             "it as a tensor (tf.constant) unless it really changes the graph.";
    case TR_CAUSE_NEW_OBJECT:
      return "A new Python object is a new trace: reuse the object, or pass its tensors.";
    case TR_CAUSE_STRUCTURE:
      return "The nesting of the arguments (lists, tuples, dicts) is part of the trace: keep it "
             "the same from call to call.";
    case TR_CAUSE_TYPE:
      return "An argument of another Python type traces again: pass the same type each call.";
    case TR_CAUSE_VARIABLE:
      return "A different tf.Variable traces again: create variables once, outside the "
             "function, and reuse them.";
    case TR_CAUSE_ARGUMENTS:
      return "Calls with other arguments (count or keywords) trace again: call with the same "
             "arguments, or fix them with input_signature.";
    case TR_CAUSE_NEW_FUNCTION:
      return "A new tf.function object starts with no traces: create the Function once and "
             "call it many times, not tf.function(f)(x) in a loop.";
    default:
      return NULL;
  }
}
