/* gops.c — the graph-level ops: one table row each (type, statefulness, how it runs), and
 * tf.print's text of a tensor.
 *
 * tf.print formats with TensorFlow's C++ rules, not NumPy's: floats in the shortest of 6 or 9
 * significant digits (15 or 17 for doubles) that reads back exactly ("2", "0.3", "3.14159274"),
 * bools as 1 and 0, strings quoted and escaped inside arrays but bare as a scalar, and only the
 * first and last `summarize` entries of each dimension around "...".
 */
#include "graph-private.h"
#include "data-private.h" /* run_<ID> of the dataset and list ops */
#include "tr-grad.h"      /* run_SYMBOLIC_GRADIENT */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- tf.print's text of a tensor -------------------------------------------------------- */

static void
append_float(GString *s, double v, bool is_float32)
{
  if (isnan(v)) {
    g_string_append(s, signbit(v) ? "-nan" : "nan");
    return;
  }
  char buf[64];
  if (is_float32) {
    float f = (float)v;
    g_snprintf(buf, sizeof buf, "%.6g", (double)f);
    if (strtof(buf, NULL) != f)
      g_snprintf(buf, sizeof buf, "%.9g", (double)f);
  } else {
    g_snprintf(buf, sizeof buf, "%.15g", v);
    if (strtod(buf, NULL) != v)
      g_snprintf(buf, sizeof buf, "%.17g", v);
  }
  g_string_append(s, buf);
}

/* C-style escapes for a string element; UTF-8 bytes pass through. Quoted inside tf.print's
 * arrays; bare in an Assert's message (TensorFlow's SummarizeValue without print_v2). */
static void
append_escaped(GString *s, const TrString *str, bool quoted)
{
  if (quoted)
    g_string_append_c(s, '"');
  for (size_t i = 0; i < str->len; i++) {
    unsigned char c = (unsigned char)str->data[i];
    switch (c) {
      case '\n':
        g_string_append(s, "\\n");
        break;
      case '\r':
        g_string_append(s, "\\r");
        break;
      case '\t':
        g_string_append(s, "\\t");
        break;
      case '"':
        g_string_append(s, "\\\"");
        break;
      case '\'':
        g_string_append(s, "\\'");
        break;
      case '\\':
        g_string_append(s, "\\\\");
        break;
      default:
        if (c < 0x20 || c == 0x7f)
          g_string_append_printf(s, "\\%03o", c);
        else
          g_string_append_c(s, (char)c);
    }
  }
  if (quoted)
    g_string_append_c(s, '"');
}

static void
append_element_quoted(GString *s, const TrTensor *t, int64_t i, bool quoted)
{
  switch (t->dtype) {
    case TR_FLOAT32:
    case TR_FLOAT64:
      append_float(s, tr_tensor_get_f64(t, i), t->dtype == TR_FLOAT32);
      break;
    case TR_STRING:
      append_escaped(s, tr_tensor_get_string(t, i), quoted);
      break;
    default: /* ints, and bools as 1 and 0 */
      g_string_append_printf(s, "%" G_GINT64_FORMAT, tr_tensor_get_i64(t, i));
      break;
  }
}

static void
append_element(GString *s, const TrTensor *t, int64_t i)
{
  append_element_quoted(s, t, i, true);
}

/* Between two entries of dim `d`: a space in the last dim, else newlines and indentation. */
static void
append_spacing(GString *s, int d, int rank)
{
  if (d == rank - 1) {
    g_string_append_c(s, ' ');
    return;
  }
  for (int j = 0; j < rank - d - 1; j++)
    g_string_append_c(s, '\n');
  for (int j = 0; j <= d; j++)
    g_string_append_c(s, ' ');
}

static void
append_dim(GString *s, const TrTensor *t, int d, int64_t ends, int64_t base)
{
  int rank = t->shape.rank;
  if (d == rank) {
    append_element(s, t, base);
    return;
  }
  int64_t count = t->shape.dims[d];
  int64_t stride = 1;
  for (int k = d + 1; k < rank; k++)
    stride *= t->shape.dims[k];
  int64_t tail = MAX(ends, count - ends);
  g_string_append_c(s, '[');
  for (int64_t i = 0; i < ends && i < count; i++) {
    if (i > 0)
      append_spacing(s, d, rank);
    append_dim(s, t, d + 1, ends, base + stride * i);
  }
  if (count > 2 * ends) {
    append_spacing(s, d, rank);
    g_string_append(s, "...");
  }
  for (int64_t i = tail; i < count; i++) {
    append_spacing(s, d, rank);
    append_dim(s, t, d + 1, ends, base + stride * i);
  }
  g_string_append_c(s, ']');
}

static void
append_print_tensor(GString *s, const TrTensor *t, int summarize)
{
  int64_t n = tr_tensor_num_elements(t);
  if (t->shape.rank == 0) {
    if (t->dtype == TR_STRING) {
      const TrString *str = tr_tensor_get_string(t, 0);
      g_string_append_len(s, str->data, (gssize)str->len);
    } else {
      append_element(s, t, 0);
    }
    return;
  }
  int64_t limit = summarize < 0 ? n : MIN((int64_t)summarize, n);
  append_dim(s, t, 0, limit, 0);
}

char *
tr_format_print_tensor(const TrTensor *t, int summarize)
{
  g_return_val_if_fail(t != NULL, NULL);
  GString *s = g_string_new(NULL);
  append_print_tensor(s, t, summarize);
  return g_string_free(s, FALSE);
}

/* ---- run functions, one per graph-level op ------------------------------------------------ */

/* Placeholders are bound by the executor; this never runs. */
static bool
run_PLACEHOLDER(const TrNode *node, TrTensor *const *in, TrTensor **out, const TrRunContext *ctx,
                GError **error)
{
  g_return_val_if_reached(false);
}

static bool
run_CONST(const TrNode *node, TrTensor *const *in, TrTensor **out, const TrRunContext *ctx,
          GError **error)
{
  out[0] = tr_tensor_ref(node->value);
  return true;
}

static TrVariable *
node_variable(const TrNode *node)
{
  return node->inputs[0].node->variable;
}

static bool
run_READ_VARIABLE(const TrNode *node, TrTensor *const *in, TrTensor **out, const TrRunContext *ctx,
                  GError **error)
{
  out[0] = tr_variable_read(node_variable(node));
  return true;
}

static bool
run_ASSIGN_VARIABLE(const TrNode *node, TrTensor *const *in, TrTensor **out,
                    const TrRunContext *ctx, GError **error)
{
  return tr_variable_assign(node_variable(node), in[1], error);
}

static bool
run_ASSIGN_ADD_VARIABLE(const TrNode *node, TrTensor *const *in, TrTensor **out,
                        const TrRunContext *ctx, GError **error)
{
  return tr_variable_assign_update(node_variable(node), TR_OP_ADD, in[1], error);
}

static bool
run_ASSIGN_SUB_VARIABLE(const TrNode *node, TrTensor *const *in, TrTensor **out,
                        const TrRunContext *ctx, GError **error)
{
  return tr_variable_assign_update(node_variable(node), TR_OP_SUB, in[1], error);
}

static bool
run_STRING_FORMAT(const TrNode *node, TrTensor *const *in, TrTensor **out, const TrRunContext *ctx,
                  GError **error)
{
  const TrPrintAttrs *pa = node->print;
  GString *s = g_string_new(pa->segments[0]);
  for (int i = 0; i < node->n_inputs; i++) {
    append_print_tensor(s, in[i], pa->summarize);
    g_string_append(s, pa->segments[i + 1]);
  }
  out[0] = tr_tensor_new_string(s->str, s->len);
  g_string_free(s, TRUE);
  return true;
}

static bool
run_PRINT(const TrNode *node, TrTensor *const *in, TrTensor **out, const TrRunContext *ctx,
          GError **error)
{
  if (tr_tensor_num_elements(in[0]) != 1) {
    g_autofree char *shape = tr_shape_to_string(&in[0]->shape);
    g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
                "Input is expected to be scalar, but got shape: %s", shape);
    return false;
  }
  const TrString *text = tr_tensor_get_string(in[0], 0);
  const char *end = node->print->end;
  bool to_stderr = node->print->to_stderr;
  if (ctx && ctx->write) {
    g_autofree char *line = g_strconcat(text->data, end, NULL);
    ctx->write(line, text->len + strlen(end), to_stderr, ctx->user);
    return true;
  }
  FILE *f = to_stderr ? stderr : stdout;
  fwrite(text->data, 1, text->len, f);
  fputs(end, f);
  fflush(f);
  return true;
}

static bool
run_NO_OP(const TrNode *node, TrTensor *const *in, TrTensor **out, const TrRunContext *ctx,
          GError **error)
{
  return true;
}

/* A While runs its cond and body through their own plans, which the executor holds (plan.c);
 * this never runs. */
static bool
run_WHILE(const TrNode *node, TrTensor *const *in, TrTensor **out, const TrRunContext *ctx,
          GError **error)
{
  g_return_val_if_reached(false);
}

/* An If runs one branch through its plan (plan.c); this never runs. */
static bool
run_IF(const TrNode *node, TrTensor *const *in, TrTensor **out, const TrRunContext *ctx,
       GError **error)
{
  g_return_val_if_reached(false);
}

/* Replays the forward While or If eagerly and back-propagates through it (grad.c). */
static bool
run_SYMBOLIC_GRADIENT(const TrNode *node, TrTensor *const *in, TrTensor **out,
                      const TrRunContext *ctx, GError **error)
{
  return tr_grad_run_symbolic_gradient(node, in, out, error);
}

/* A fused elementwise tree runs as a kernel of the executor (plan.c, fuse.c); this never runs. */
static bool
run_FUSED(const TrNode *node, TrTensor *const *in, TrTensor **out, const TrRunContext *ctx,
          GError **error)
{
  g_return_val_if_reached(false);
}

/* ---- tf.debugging's Assert and CheckNumerics ------------------------------------------------ */

/* One dimension of TensorFlow's SummarizeValue without print_v2 (the form an Assert's message
 * shows): the innermost dimension as space-separated entries, outer ones each in brackets with
 * no separator ("[1 2][3 4]"); entries stop after `limit` in flat order, and a cut-off inner
 * dimension (not the first) ends in "...". */
static void
append_summary_dim(GString *s, const TrTensor *t, int d, int64_t limit, int64_t *next)
{
  if (*next >= limit)
    return;
  int rank = t->shape.rank;
  int64_t count = t->shape.dims[d];
  if (d == rank - 1) {
    for (int64_t i = 0; i < count; i++) {
      if (*next >= limit) {
        if (d != 0)
          g_string_append(s, "...");
        return;
      }
      if (i > 0)
        g_string_append_c(s, ' ');
      append_element_quoted(s, t, (*next)++, false);
    }
    return;
  }
  for (int64_t i = 0; i < count; i++) {
    bool opened = false;
    if (*next < limit) {
      g_string_append_c(s, '[');
      opened = true;
    }
    append_summary_dim(s, t, d + 1, limit, next);
    if (*next < limit || opened)
      g_string_append_c(s, ']');
  }
}

static void
append_summary(GString *s, const TrTensor *t, int summarize)
{
  int64_t n = tr_tensor_num_elements(t);
  int64_t limit = summarize < 0 ? n : MIN((int64_t)summarize, n);
  if (t->shape.rank == 0) {
    for (int64_t i = 0; i < limit; i++)
      append_element_quoted(s, t, i, false);
  } else {
    int64_t next = 0;
    append_summary_dim(s, t, 0, limit, &next);
  }
  if (n > limit)
    g_string_append(s, "...");
}

static bool
run_ASSERT(const TrNode *node, TrTensor *const *in, TrTensor **out, const TrRunContext *ctx,
           GError **error)
{
  if (tr_tensor_num_elements(in[0]) != 1 || in[0]->shape.rank > 1) {
    g_autofree char *shape = tr_shape_to_string(&in[0]->shape);
    g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT, "In[0] should be a scalar: %s", shape);
    return false;
  }
  if (tr_tensor_get_i64(in[0], 0) != 0)
    return true;
  GString *msg = g_string_new("assertion failed: ");
  for (int i = 1; i < node->n_inputs; i++) {
    g_string_append_c(msg, '[');
    append_summary(msg, in[i], node->print->summarize);
    g_string_append(msg, i < node->n_inputs - 1 ? "] " : "]");
  }
  g_set_error_literal(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT, msg->str);
  g_string_free(msg, TRUE);
  return false;
}

static bool
run_CHECK_NUMERICS(const TrNode *node, TrTensor *const *in, TrTensor **out, const TrRunContext *ctx,
                   GError **error)
{
  bool nan = false, inf = false;
  int64_t n = tr_tensor_num_elements(in[0]);
  for (int64_t i = 0; i < n && !(nan && inf); i++) {
    double v = tr_tensor_get_f64(in[0], i);
    nan = nan || isnan(v);
    inf = inf || isinf(v);
  }
  if (!nan && !inf)
    return true;
  g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT, "%s : Tensor had %s values",
              node->print->message,
              nan && inf ? "Inf and NaN"
              : nan      ? "NaN"
                         : "Inf");
  return false;
}

TrNode *
tr_graph_add_assert(TrGraph *g, const TrOutput *inputs, int n_inputs, int summarize,
                    const char *name, GError **error)
{
  g_return_val_if_fail(g && inputs && n_inputs >= 1, NULL);
  if (!tr_graph_check_inputs(g, inputs, n_inputs, error))
    return NULL;
  if (tr_output_dtype(inputs[0]) != TR_BOOL) {
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE,
                "Input 'condition' of 'Assert' Op has type %s that does not match expected type "
                "of bool.",
                tr_graph_dtype_name(tr_output_dtype(inputs[0])));
    return NULL;
  }
  const char *unique = tr_graph_unique_name(g, name ? name : "Assert");
  TrNode *node = tr_graph_node_new(g, TR_GOP_ASSERT, "Assert", unique, inputs, n_inputs, 0);
  TrPrintAttrs *pa = tr_arena_new(&g->arena, TrPrintAttrs, 1);
  pa->summarize = summarize;
  node->print = pa;
  tr_graph_note_stateful(g, node);
  return node;
}

TrNode *
tr_graph_add_check_numerics(TrGraph *g, TrOutput x, const char *message, const char *name,
                            GError **error)
{
  g_return_val_if_fail(g && message, NULL);
  if (!tr_graph_check_inputs(g, &x, 1, error))
    return NULL;
  TrDType dtype = tr_output_dtype(x);
  if (!tr_dtype_is_float(dtype)) {
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE,
                "Value for attr 'T' of %s is not in the list of allowed values: bfloat16, half, "
                "float, double",
                tr_graph_dtype_name(dtype));
    return NULL;
  }
  const char *unique = tr_graph_unique_name(g, name ? name : "CheckNumerics");
  TrNode *node = tr_graph_node_new(g, TR_GOP_CHECK_NUMERICS, "CheckNumerics", unique, &x, 1, 0);
  TrPrintAttrs *pa = tr_arena_new(&g->arena, TrPrintAttrs, 1);
  pa->message = tr_arena_strdup(&g->arena, message);
  node->print = pa;
  tr_graph_note_stateful(g, node);
  return node;
}

/* ---- EagerPyFunc ------------------------------------------------------------------------- */

struct TrHostCall {
  int refcount;
  TrHostFunc func;
  void *user;
  GDestroyNotify destroy;
};

TrHostCall *
tr_host_call_new(TrHostFunc func, void *user, GDestroyNotify destroy)
{
  g_return_val_if_fail(func != NULL, NULL);
  TrHostCall *call = g_new0(TrHostCall, 1);
  call->refcount = 1;
  call->func = func;
  call->user = user;
  call->destroy = destroy;
  return call;
}

/* Graphs are built and run on one thread at a time (tr-plan.h), so a plain count suffices. */
TrHostCall *
tr_host_call_ref(TrHostCall *call)
{
  g_return_val_if_fail(call != NULL, NULL);
  call->refcount++;
  return call;
}

void
tr_host_call_unref(TrHostCall *call)
{
  if (!call || --call->refcount > 0)
    return;
  if (call->destroy)
    call->destroy(call->user);
  g_free(call);
}

/* The host function's results, checked against the node's dtypes as TensorFlow's EagerPyFunc
 * kernel checks them (py_func.cc: "... expected to be a float tensor but is a int32 tensor"). */
static bool
run_PY_FUNC(const TrNode *node, TrTensor *const *in, TrTensor **out, const TrRunContext *ctx,
            GError **error)
{
  for (int i = 0; i < node->n_outputs; i++)
    out[i] = NULL;
  if (!node->host->func(node->host->user, in, node->n_inputs, out, node->n_outputs, error)) {
    for (int i = 0; i < node->n_outputs; i++)
      g_clear_pointer(&out[i], tr_tensor_unref);
    return false;
  }
  for (int i = 0; i < node->n_outputs; i++) {
    if (out[i] && out[i]->dtype == node->dtypes[i])
      continue;
    if (out[i])
      g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
                  "Return value %d was expected to be a %s tensor but is a %s tensor", i,
                  tr_dtype_tf_name(node->dtypes[i]), tr_dtype_tf_name(out[i]->dtype));
    else
      g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT, "Return value %d is missing", i);
    for (int k = 0; k < node->n_outputs; k++)
      g_clear_pointer(&out[k], tr_tensor_unref);
    return false;
  }
  return true;
}

TrNode *
tr_graph_add_host_call(TrGraph *g, TrHostCall *call, const TrOutput *inputs, int n_inputs,
                       const TrDType *out_dtypes, int n_outputs, const char *name, GError **error)
{
  g_return_val_if_fail(g && call && n_inputs >= 0 && n_outputs >= 0, NULL);
  if (n_inputs && !tr_graph_check_inputs(g, inputs, n_inputs, error))
    return NULL;
  const char *unique = tr_graph_unique_name(g, name ? name : "EagerPyFunc");
  TrNode *node =
      tr_graph_node_new(g, TR_GOP_PY_FUNC, "EagerPyFunc", unique, inputs, n_inputs, n_outputs);
  for (int i = 0; i < n_outputs; i++) {
    node->dtypes[i] = out_dtypes[i];
    node->shapes[i] = tr_shape_unknown();
  }
  node->host = tr_host_call_ref(call);
  tr_graph_note_stateful(g, node);
  return node;
}

/* ---- the table ------------------------------------------------------------------------------ */

static const TrGopDef gop_defs[] = {
#define GOP_ROW(id, type, stateful) [TR_GOP_##id - TR_N_OPS] = {type, stateful, run_##id},
    TR_GRAPH_OP_LIST(GOP_ROW)
#undef GOP_ROW
};
G_STATIC_ASSERT(G_N_ELEMENTS(gop_defs) == TR_N_NODE_OPS - TR_N_OPS);

const TrGopDef *
tr_gop_def(int op)
{
  g_return_val_if_fail(op >= TR_N_OPS && op < TR_N_NODE_OPS, NULL);
  return &gop_defs[op - TR_N_OPS];
}
