/* while.c — tf.while_loop's While node: checking a loop's cond and body against its loop
 * variables, and the static shapes its results can promise.
 *
 * The cond and body are finished graphs traced on the loop variables (their non-resource
 * placeholders, in order). They become the node's children, so the exporters draw them, copies
 * and inlining carry them, and the executor (plan.c) plans them once with the outer plan. A
 * placeholder's shape is the loop's shape invariant for its variable: every body result is fed
 * back into it, so the results must fit it. The node's shapes cover both the loop that never runs
 * its body (the inputs) and the one that does (the body's results).
 */
#include "graph-private.h"

static const char *
plural(int n)
{
  return n == 1 ? "" : "s";
}

static TrOutput
child_result(const TrGraph *child, int i)
{
  return tr_node_output(tr_graph_output(child, i), 0);
}

/* The loop variables fit the arguments `child` (the loop's "cond" or "body") was traced on. */
static bool
check_arguments(const TrGraph *child, const char *role, const TrOutput *inputs, int n,
                GError **error)
{
  int want = tr_graph_n_inputs(child);
  if (want != n) {
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE,
                "The while loop's %s takes %d argument%s, but %d loop variable%s given", role, want,
                plural(want), n, n == 1 ? " was" : "s were");
    return false;
  }
  for (int i = 0; i < n; i++) {
    const TrNode *arg = tr_graph_input(child, i);
    TrDType dtype = tr_output_dtype(inputs[i]);
    bool dtype_ok = dtype == arg->dtypes[0];
    if (dtype_ok && tr_graph_shapes_compatible(&arg->shapes[0], tr_output_shape(inputs[i])))
      continue;
    g_autofree char *given = tr_output_to_string(inputs[i]);
    g_autofree char *arg_shape = tr_shape_to_string(&arg->shapes[0]);
    g_set_error(error, TR_GRAPH_ERROR, dtype_ok ? TR_GRAPH_ERROR_VALUE : TR_GRAPH_ERROR_TYPE,
                "Loop variable %d does not fit the while loop's %s: its argument '%s' expects %s "
                "%s, but got %s",
                i, role, arg->name, dtype_ok ? "shape" : "dtype",
                dtype_ok ? arg_shape : tr_graph_dtype_name(arg->dtypes[0]), given);
    return false;
  }
  return true;
}

/* LoopCond's input: one scalar bool. */
static bool
check_cond_result(const TrGraph *cond, GError **error)
{
  int n = tr_graph_n_outputs(cond);
  if (n != 1) {
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_VALUE,
                "The while loop's cond must return one scalar bool tensor, but returns %d value%s",
                n, plural(n));
    return false;
  }
  TrOutput pred = child_result(cond, 0);
  g_autofree char *text = tr_output_to_string(pred);
  if (tr_output_dtype(pred) != TR_BOOL) {
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE,
                "The while loop's cond must return a bool tensor, but returns %s", text);
    return false;
  }
  int rank = tr_output_shape(pred)->rank;
  if (rank != 0 && rank != TR_UNKNOWN) {
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_VALUE,
                "The while loop's cond must return a scalar, but returns %s", text);
    return false;
  }
  return true;
}

/* Body result `i` goes back into argument i of cond and body: it must fit both. */
static bool
check_invariant(const TrGraph *child, TrOutput input, TrOutput result, int i, GError **error)
{
  const TrShape *invariant = &tr_graph_input(child, i)->shapes[0];
  if (tr_graph_shapes_compatible(invariant, tr_output_shape(result)))
    return true;
  g_autofree char *name = tr_output_name(input);
  g_autofree char *want = tr_shape_to_string(invariant);
  g_autofree char *got = tr_shape_to_string(tr_output_shape(result));
  g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_VALUE,
              "Input tensor '%s' enters the loop with shape %s, but has shape %s after one "
              "iteration. To allow the shape to vary across iterations, trace cond and body on a "
              "less-specific shape (the `shape_invariants` argument of tf.while_loop).",
              name, want, got);
  return false;
}

static bool
check_body_results(const TrGraph *cond, const TrGraph *body, const TrOutput *inputs, int n,
                   GError **error)
{
  int got = tr_graph_n_outputs(body);
  if (got != n) {
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_VALUE,
                "The while loop's body must return %d value%s, one per loop variable, but returns "
                "%d",
                n, plural(n), got);
    return false;
  }
  for (int i = 0; i < n; i++) {
    TrOutput result = child_result(body, i);
    TrDType before = tr_output_dtype(inputs[i]);
    TrDType after = tr_output_dtype(result);
    if (after != before) {
      g_autofree char *name = tr_output_name(inputs[i]);
      g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE,
                  "Loop variable '%s' enters the loop with dtype %s, but has dtype %s after one "
                  "iteration. All loop variables must keep their dtypes.",
                  name, tr_graph_dtype_name(before), tr_graph_dtype_name(after));
      return false;
    }
    if (!check_invariant(body, inputs[i], result, i, error) ||
        !check_invariant(cond, inputs[i], result, i, error))
      return false;
  }
  return true;
}

TrNode *
tr_graph_add_while(TrGraph *g, TrGraph *cond, TrGraph *body, const TrOutput *inputs, int n,
                   const char *name, GError **error)
{
  g_return_val_if_fail(g && cond && body, NULL);
  g_return_val_if_fail(cond != body && cond != g && body != g, NULL);
  g_return_val_if_fail(!tr_graph_parent(cond) && !tr_graph_parent(body), NULL);
  g_return_val_if_fail(n >= 0 && (n == 0 || inputs), NULL);
  if (n == 0) {
    g_set_error_literal(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_VALUE,
                        "A while loop needs at least one loop variable: 'loop_vars' is empty");
    return NULL;
  }
  if (!tr_graph_check_inputs(g, inputs, n, error) ||
      !check_arguments(cond, "cond", inputs, n, error) ||
      !check_arguments(body, "body", inputs, n, error) || !check_cond_result(cond, error) ||
      !check_body_results(cond, body, inputs, n, error))
    return NULL;

  const char *unique = tr_graph_unique_name(g, name ? name : "while");
  TrNode *node =
      tr_graph_node_new(g, TR_GOP_WHILE, tr_gop_def(TR_GOP_WHILE)->type, unique, inputs, n, n);
  for (int i = 0; i < n; i++) {
    node->dtypes[i] = tr_output_dtype(inputs[i]);
    node->shapes[i] = tr_shape_most_specific_compatible(tr_output_shape(inputs[i]),
                                                        tr_output_shape(child_result(body, i)));
  }
  tr_node_add_child(node, cond);
  tr_node_add_child(node, body);
  if (tr_graph_has_stateful_node(cond) || tr_graph_has_stateful_node(body))
    tr_graph_note_stateful(g, node);
  return node;
}
