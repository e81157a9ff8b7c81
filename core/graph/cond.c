/* cond.c — the If node of `tf.cond` and AutoGraph's `if` on a tensor: checking its branches and
 * the static shapes its results can promise.
 *
 * The branches are finished graphs: each takes its own arguments (the tensors of the enclosing
 * graph it captured) and returns one result per value the `if` assigns. The node's inputs are
 * the predicate, then the true branch's arguments, then the false branch's; the executor (plan.c)
 * runs one branch on its slice. As in TensorFlow the node is a "StatelessIf" unless a branch has
 * a stateful node (tf.print, variable writes), when it is an "If" ordered with the graph's other
 * stateful nodes. A result's static shape covers both branches: dims that differ become None.
 */
#include "graph-private.h"

static TrOutput
branch_result(const TrGraph *branch, int i)
{
  return tr_node_output(tr_graph_output(branch, i), 0);
}

/* A branch's arguments fit the tensors given for them. */
static bool
check_arguments(const TrGraph *branch, const char *role, const TrOutput *inputs, int n,
                GError **error)
{
  if (tr_graph_n_inputs(branch) != n) {
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE,
                "The cond's %s branch takes %d arguments, but %d were given", role,
                tr_graph_n_inputs(branch), n);
    return false;
  }
  for (int i = 0; i < n; i++) {
    const TrNode *arg = tr_graph_input(branch, i);
    if (arg->dtypes[0] == tr_output_dtype(inputs[i]) &&
        tr_graph_shapes_compatible(&arg->shapes[0], tr_output_shape(inputs[i])))
      continue;
    g_autofree char *given = tr_output_to_string(inputs[i]);
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE,
                "Argument %d of the cond's %s branch ('%s') does not fit %s", i, role, arg->name,
                given);
    return false;
  }
  return true;
}

static bool
check_pred(TrOutput pred, GError **error)
{
  g_autofree char *text = tr_output_to_string(pred);
  if (tr_output_dtype(pred) != TR_BOOL) {
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE,
                "The condition of a cond must be a bool tensor, but is %s", text);
    return false;
  }
  int rank = tr_output_shape(pred)->rank;
  if (rank != 0 && rank != TR_UNKNOWN) {
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_VALUE,
                "The condition of a cond must be a scalar, but is %s", text);
    return false;
  }
  return true;
}

/* Both branches return the same number of results, each of one dtype. */
static bool
check_results(const TrGraph *then_branch, const TrGraph *else_branch, GError **error)
{
  int n = tr_graph_n_outputs(then_branch);
  if (tr_graph_n_outputs(else_branch) != n) {
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_VALUE,
                "The cond's branches return different numbers of values: %d and %d", n,
                tr_graph_n_outputs(else_branch));
    return false;
  }
  for (int i = 0; i < n; i++) {
    TrDType a = tr_output_dtype(branch_result(then_branch, i));
    TrDType b = tr_output_dtype(branch_result(else_branch, i));
    if (a == b)
      continue;
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE,
                "Result %d of the cond has dtype %s in the true branch but %s in the false "
                "branch",
                i, tr_graph_dtype_name(a), tr_graph_dtype_name(b));
    return false;
  }
  return true;
}

TrNode *
tr_graph_add_cond(TrGraph *g, TrOutput pred, TrGraph *then_branch, TrGraph *else_branch,
                  const TrOutput *then_inputs, int n_then, const TrOutput *else_inputs, int n_else,
                  const char *name, GError **error)
{
  g_return_val_if_fail(g && then_branch && else_branch && then_branch != else_branch, NULL);
  g_return_val_if_fail(!tr_graph_parent(then_branch) && !tr_graph_parent(else_branch), NULL);
  g_return_val_if_fail(n_then >= 0 && n_else >= 0, NULL);
  int n_in = 1 + n_then + n_else;
  g_autofree TrOutput *inputs = g_new(TrOutput, n_in);
  inputs[0] = pred;
  for (int i = 0; i < n_then; i++)
    inputs[1 + i] = then_inputs[i];
  for (int i = 0; i < n_else; i++)
    inputs[1 + n_then + i] = else_inputs[i];
  if (!tr_graph_check_inputs(g, inputs, n_in, error) || !check_pred(pred, error) ||
      !check_arguments(then_branch, "true", then_inputs, n_then, error) ||
      !check_arguments(else_branch, "false", else_inputs, n_else, error) ||
      !check_results(then_branch, else_branch, error))
    return NULL;

  bool stateful =
      tr_graph_has_stateful_node(then_branch) || tr_graph_has_stateful_node(else_branch);
  int n_out = tr_graph_n_outputs(then_branch);
  const char *unique = tr_graph_unique_name(g, name ? name : "cond");
  TrNode *node = tr_graph_node_new(g, TR_GOP_IF, stateful ? "If" : tr_gop_def(TR_GOP_IF)->type,
                                   unique, inputs, n_in, n_out);
  for (int i = 0; i < n_out; i++) {
    TrOutput a = branch_result(then_branch, i), b = branch_result(else_branch, i);
    node->dtypes[i] = tr_output_dtype(a);
    node->shapes[i] = tr_shape_most_specific_compatible(tr_output_shape(a), tr_output_shape(b));
  }
  tr_node_add_child(node, then_branch);
  tr_node_add_child(node, else_branch);
  if (stateful)
    tr_graph_note_stateful(g, node);
  return node;
}
