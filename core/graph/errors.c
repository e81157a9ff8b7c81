/* errors.c — TensorFlow's graph-mode texts for ops that fail to build.
 *
 * core/tensor reports inference failures as eager errors ("Incompatible shapes: [3] vs. [2]
 * [Op:AddV2]"). While tracing, TensorFlow reports the same failures differently: shape
 * functions fail with a ValueError naming the node, its NodeDef and its input shapes
 *   Dimensions must be equal, but are 3 and 2 for '{{node add}} = AddV2[T=DT_INT32](x, y)'
 *   with input shapes: [3], [2].
 * and dtype mismatches are caught in Python as a TypeError naming the op's arguments
 *   Input 'y' of 'AddV2' Op has type float32 that does not match type int32 of argument 'x'.
 * This file rewrites the first form into the second, using a table of the ops' argument names.
 */
#include "graph-private.h"

#include <stdio.h>
#include <string.h>

/* ---- argument names of each op, as its OpDef names them ---------------------------------- */

static const char *const args_xy[] = {"x", "y"};
static const char *const args_x[] = {"x"};
static const char *const args_ab[] = {"a", "b"};
static const char *const args_input[] = {"input"};
static const char *const args_select[] = {"condition", "t", "e"};
static const char *const args_clip[] = {"t", "clip_value_min", "clip_value_max"};
static const char *const args_conv[] = {"input", "filter"};
static const char *const args_values[] = {"values"};
static const char *const args_gather[] = {"params", "indices"};
static const char *const args_slice[] = {"input", "begin", "end", "strides"};
static const char *const args_range[] = {"start", "limit", "delta"};
static const char *const args_fill[] = {"dims", "value"};
static const char *const args_linspace[] = {"start", "stop", "num"};
static const char *const args_shape[] = {"shape"};
static const char *const args_reshape[] = {"tensor", "shape"};
static const char *const args_logits[] = {"logits"};
static const char *const args_indices[] = {"indices"};

typedef struct {
  const char *const *names; /* argument names */
  int n;                    /* how many; ops with a list argument repeat the last */
} ArgNames;

#define ARGS(list)                                                                                 \
  {                                                                                                \
    list, G_N_ELEMENTS(list)                                                                       \
  }

static ArgNames
op_args(TrOpId op)
{
  static ArgNames table[TR_N_OPS];
  static gsize done = 0;
  if (g_once_init_enter(&done)) {
    for (int i = 0; i < TR_N_OPS; i++) {
      unsigned flags = tr_op_def(i)->flags;
      int n = tr_op_def(i)->n_inputs;
      table[i] = (flags & TR_OP_FLAG_ELEMENTWISE) && n == 2   ? (ArgNames)ARGS(args_xy)
                 : (flags & TR_OP_FLAG_ELEMENTWISE) && n == 1 ? (ArgNames)ARGS(args_x)
                                                              : (ArgNames)ARGS(args_input);
    }
    table[TR_OP_IDENTITY] = (ArgNames)ARGS(args_input);
    table[TR_OP_SELECT] = (ArgNames)ARGS(args_select);
    table[TR_OP_CLIP_BY_VALUE] = (ArgNames)ARGS(args_clip);
    table[TR_OP_MATMUL] = (ArgNames)ARGS(args_ab);
    table[TR_OP_BATCH_MATMUL] = (ArgNames)ARGS(args_xy);
    table[TR_OP_CONV2D] = (ArgNames)ARGS(args_conv);
    table[TR_OP_TRANSPOSE] = (ArgNames)ARGS(args_x);
    table[TR_OP_RESHAPE] = (ArgNames)ARGS(args_reshape);
    table[TR_OP_CONCAT] = (ArgNames)ARGS(args_values);
    table[TR_OP_STACK] = (ArgNames)ARGS(args_values);
    table[TR_OP_GATHER] = (ArgNames)ARGS(args_gather);
    table[TR_OP_ONE_HOT] = (ArgNames)ARGS(args_indices);
    table[TR_OP_STRIDED_SLICE] = (ArgNames)ARGS(args_slice);
    table[TR_OP_RANGE] = (ArgNames)ARGS(args_range);
    table[TR_OP_FILL] = (ArgNames)ARGS(args_fill);
    table[TR_OP_LINSPACE] = (ArgNames)ARGS(args_linspace);
    table[TR_OP_ZEROS_LIKE] = (ArgNames)ARGS(args_x);
    table[TR_OP_ONES_LIKE] = (ArgNames)ARGS(args_x);
    table[TR_OP_RANDOM_UNIFORM] = (ArgNames)ARGS(args_shape);
    table[TR_OP_RANDOM_NORMAL] = (ArgNames)ARGS(args_shape);
    table[TR_OP_STATELESS_RANDOM_UNIFORM] = (ArgNames)ARGS(args_shape);
    table[TR_OP_STATELESS_RANDOM_NORMAL] = (ArgNames)ARGS(args_shape);
    table[TR_OP_SOFTMAX] = (ArgNames)ARGS(args_logits);
    g_once_init_leave(&done, 1);
  }
  return table[op];
}

static const char *
arg_name(TrOpId op, int i)
{
  ArgNames a = op_args(op);
  return a.names[MIN(i, a.n - 1)];
}

/* ---- NodeDef summaries ------------------------------------------------------------------------
 */

char *
tr_graph_shape_error_string(const TrShape *shape)
{
  /* Graph-mode messages write an unknown rank as "?"; known ranks as eager errors do. */
  if (shape->rank == TR_UNKNOWN)
    return g_strdup("?");
  return tr_shape_to_error_string(shape);
}

/* "DT_INT32" */
static char *
dt_name(TrDType dtype)
{
  if (dtype == TR_DTYPE_RESOURCE)
    return g_strdup("DT_RESOURCE");
  g_autofree char *up = g_ascii_strup(tr_dtype_tf_name(dtype), -1);
  return g_strconcat("DT_", up, NULL);
}

/* The attributes TensorFlow's NodeDef of this op shows, sorted by name. */
static void
append_attrs(GString *s, TrOpId op, const TrTensorInfo *in, int n_in, const TrAttrs *attrs)
{
  g_autofree char *t = n_in > 0 ? dt_name(in[0].dtype) : NULL;
  switch (op) {
    case TR_OP_MATMUL:
      g_string_append_printf(s, "[T=%s, transpose_a=%s, transpose_b=%s]", t,
                             attrs->transpose_a ? "true" : "false",
                             attrs->transpose_b ? "true" : "false");
      return;
    case TR_OP_BATCH_MATMUL:
      g_string_append_printf(s, "[T=%s, adj_x=%s, adj_y=%s]", t,
                             attrs->transpose_a ? "true" : "false",
                             attrs->transpose_b ? "true" : "false");
      return;
    case TR_OP_SUM:
    case TR_OP_MEAN:
    case TR_OP_MAX:
    case TR_OP_MIN:
    case TR_OP_PROD:
      g_string_append_printf(s, "[T=%s, Tidx=DT_INT32, keep_dims=%s]", t,
                             attrs->keepdims ? "true" : "false");
      return;
    case TR_OP_CAST: {
      g_autofree char *dst = dt_name(attrs->dtype);
      g_string_append_printf(s, "[DstT=%s, SrcT=%s, Truncate=false]", dst, t);
      return;
    }
    default:
      if (t)
        g_string_append_printf(s, "[T=%s]", t);
  }
}

/* "'{{node add}} = AddV2[T=DT_INT32](x, y)' with input shapes: [3], [2]." */
static char *
node_context(TrOpId op, const char *name, const TrTensorInfo *in, const TrOutput *inputs, int n_in,
             const TrAttrs *attrs)
{
  GString *s = g_string_new(NULL);
  g_string_append_printf(s, "'{{node %s}} = %s", name, tr_graph_op_type(op, in, n_in));
  append_attrs(s, op, in, n_in, attrs);
  g_string_append_c(s, '(');
  for (int i = 0; i < n_in; i++) {
    g_autofree char *input = tr_output_input_string(inputs[i]);
    g_string_append_printf(s, "%s%s", i ? ", " : "", input);
  }
  g_string_append(s, ")' with input shapes: ");
  for (int i = 0; i < n_in; i++) {
    g_autofree char *shape = tr_graph_shape_error_string(&in[i].shape);
    g_string_append_printf(s, "%s%s", i ? ", " : "", shape);
  }
  g_string_append_c(s, '.');
  return g_string_free(s, FALSE);
}

/* ---- rewriting eager texts ------------------------------------------------------------------- */

/* The eager text without its " [Op:X]" suffix. */
static char *
strip_op_suffix(const char *message)
{
  const char *suffix = g_strrstr(message, " [Op:");
  return suffix ? g_strndup(message, (gsize)(suffix - message)) : g_strdup(message);
}

/* The first dimension, from the left, where broadcasting fails. */
static char *
broadcast_reason(const TrTensorInfo *in)
{
  const TrShape *a = &in[0].shape, *b = &in[1].shape;
  int rank = MAX(a->rank, b->rank);
  for (int i = 0; i < rank; i++) {
    int ia = a->rank - rank + i, ib = b->rank - rank + i;
    int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
    if (da != db && da != 1 && db != 1 && da >= 0 && db >= 0)
      return g_strdup_printf(
          "Dimensions must be equal, but are %" G_GINT64_FORMAT " and %" G_GINT64_FORMAT, da, db);
  }
  return NULL;
}

/* MatMul's shape function: both inputs of rank 2, inner dimensions equal. */
static char *
matmul_reason(const TrTensorInfo *in, const TrAttrs *attrs, bool batch)
{
  const TrShape *a = &in[0].shape, *b = &in[1].shape;
  for (int k = 0; k < 2 && !batch; k++) {
    int rank = in[k].shape.rank;
    if (rank != TR_UNKNOWN && rank != 2)
      return g_strdup_printf("Shape must be rank 2 but is rank %d", rank);
  }
  if (a->rank < 2 || b->rank < 2)
    return NULL;
  int64_t inner_a = a->dims[a->rank - (attrs->transpose_a ? 2 : 1)];
  int64_t inner_b = b->dims[b->rank - (attrs->transpose_b ? 1 : 2)];
  if (inner_a < 0 || inner_b < 0 || inner_a == inner_b)
    return NULL;
  return g_strdup_printf("Dimensions must be equal, but are %" G_GINT64_FORMAT
                         " and %" G_GINT64_FORMAT,
                         inner_a, inner_b);
}

/* TensorFlow's DataTypeString names turned into Python's dtype names, for allowed lists. */
static char *
python_dtype_list(const char *tf_list)
{
  static const char *const renames[][2] = {
      {"float", "float32"}, {"double", "float64"}, {"half", "float16"}};
  g_auto(GStrv) names = g_strsplit(tf_list, ", ", -1);
  GString *s = g_string_new(NULL);
  for (int i = 0; names[i]; i++) {
    const char *name = names[i];
    for (size_t k = 0; k < G_N_ELEMENTS(renames); k++)
      if (strcmp(name, renames[k][0]) == 0)
        name = renames[k][1];
    g_string_append_printf(s, "%s%s", i ? ", " : "", name);
  }
  return g_string_free(s, FALSE);
}

/* "cannot compute AddV2 as input #1(zero-based) was expected to be a int32 tensor but is a
 * float tensor" -> Python's TypeError from building the op. */
static bool
set_dtype_mismatch(GError **error, const char *message, TrOpId op, const TrTensorInfo *in, int n_in,
                   const char *type)
{
  const char *p = strstr(message, "as input #");
  int k;
  if (!p || sscanf(p, "as input #%d", &k) != 1 || k < 0 || k >= n_in)
    return false;
  /* The first earlier input with the dtype this one should have had names the type. */
  for (int j = 0; j < k; j++) {
    if (in[j].dtype != in[k].dtype && strstr(message, tr_dtype_tf_name(in[j].dtype))) {
      g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE,
                  "Input '%s' of '%s' Op has type %s that does not match type %s of argument "
                  "'%s'.",
                  arg_name(op, k), type, tr_graph_dtype_name(in[k].dtype),
                  tr_graph_dtype_name(in[j].dtype), arg_name(op, j));
      return true;
    }
  }
  const char *want = strstr(message, "expected to be a ");
  char expected[32] = "";
  if (want)
    sscanf(want, "expected to be a %31s", expected);
  TrDType e = tr_dtype_from_name(expected);
  g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE,
              "Input '%s' of '%s' Op has type %s that does not match expected type of %s.",
              arg_name(op, k), type, tr_graph_dtype_name(in[k].dtype),
              e == TR_DTYPE_INVALID ? expected : tr_dtype_name(e));
  return true;
}

/* "Value for attr 'T' of string is not in the list of allowed values: float, double\n..." ->
 * "Value passed to parameter 'x' has DataType string not in list of allowed values: float32,
 * float64" */
static bool
set_attr_error(GError **error, const char *message, TrOpId op, const TrTensorInfo *in, int n_in)
{
  const char *list = strstr(message, "is not in the list of allowed values: ");
  if (!list || n_in == 0)
    return false;
  list += strlen("is not in the list of allowed values: ");
  const char *stop = list + strcspn(list, "\n");
  g_autofree char *tf_list = g_strndup(list, (gsize)(stop - list));
  g_autofree char *py_list = python_dtype_list(tf_list);
  g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE,
              "Value passed to parameter '%s' has DataType %s not in list of allowed values: %s",
              arg_name(op, 0), tr_graph_dtype_name(in[0].dtype), py_list);
  return true;
}

void
tr_graph_set_infer_error(GError **error, GError *eager, TrOpId op, const char *name,
                         const TrTensorInfo *in, const TrOutput *inputs, int n_inputs,
                         const TrAttrs *attrs)
{
  g_autoptr(GError) owned = eager;
  g_autofree char *message = strip_op_suffix(eager->message);
  const char *type = tr_graph_op_type(op, in, n_inputs);
  if (g_str_has_prefix(message, "cannot compute ") &&
      set_dtype_mismatch(error, message, op, in, n_inputs, type))
    return;
  if (strstr(message, "Value for attr ") && set_attr_error(error, message, op, in, n_inputs))
    return;

  g_autofree char *reason = NULL;
  if (g_str_has_prefix(message, "Incompatible shapes: ") && n_inputs >= 2)
    reason = broadcast_reason(in);
  else if ((op == TR_OP_MATMUL || op == TR_OP_BATCH_MATMUL) && n_inputs == 2)
    reason = matmul_reason(in, attrs, op == TR_OP_BATCH_MATMUL);
  g_autofree char *context = node_context(op, name, in, inputs, n_inputs, attrs);
  g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_VALUE, "%s for %s", reason ? reason : message,
              context);
}
