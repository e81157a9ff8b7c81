/* inline.c — inlining a finished graph into another: what a traced function builds when it calls
 * another traced function and the callee's nodes are copied in rather than called.
 *
 * The body's nodes are rebuilt in `g` in the body's insertion order (a topological order)
 * through the ordinary builders, so g's naming makes their names unique, inference re-runs on
 * the actual inputs (often more specific than the body's placeholders), and stateful nodes are
 * chained after g's own by the automatic control dependencies. One function per graph-level op,
 * generated from TR_GRAPH_OP_LIST, says how that op is rebuilt; every core/tensor op is rebuilt
 * by tr_graph_add_op with its attrs. A failure drops what was added, so g is left as it was.
 */
#include "fuse-private.h"
#include "graph-private.h"
#include "data-private.h" /* inline_<ID> of the dataset and list ops */
#include "tr-grad.h"      /* inline_SYMBOLIC_GRADIENT */

/* Rebuilds one body node in `g` from its mapped data inputs `args`, named after it. Returns the
 * new node, or NULL with `error` set. */
typedef TrNode *(*InlineFunc)(TrGraph *g, const TrNode *node, const TrOutput *args, GError **error);

/* ---- one function per graph-level op ------------------------------------------------------ */

/* Arguments are bound to their inputs before the walk; only captured variables get here. */
static TrNode *
inline_PLACEHOLDER(TrGraph *g, const TrNode *node, const TrOutput *args, GError **error)
{
  g_assert(node->variable != NULL);
  return tr_graph_capture_variable(g, node->variable, node->name);
}

static TrNode *
inline_CONST(TrGraph *g, const TrNode *node, const TrOutput *args, GError **error)
{
  return tr_graph_add_const(g, node->value, node->name);
}

static TrNode *
inline_READ_VARIABLE(TrGraph *g, const TrNode *node, const TrOutput *args, GError **error)
{
  return tr_graph_add_read_variable(g, args[0], node->name, error);
}

/* The three assignments differ only in their op. */
static TrNode *
inline_assign(TrGraph *g, const TrNode *node, const TrOutput *args, GError **error)
{
  return tr_graph_add_assign_variable(g, (TrGraphOpId)node->op, args[0], args[1], node->name,
                                      error);
}
#define inline_ASSIGN_VARIABLE     inline_assign
#define inline_ASSIGN_ADD_VARIABLE inline_assign
#define inline_ASSIGN_SUB_VARIABLE inline_assign

/* From the segments, not the template: a literal "{}" in tf.print's text is no placeholder. */
static TrNode *
inline_STRING_FORMAT(TrGraph *g, const TrNode *node, const TrOutput *args, GError **error)
{
  const TrPrintAttrs *pa = node->print;
  return tr_graph_add_string_format_segments(g, pa->segments, args, node->n_inputs, pa->summarize,
                                             node->name, error);
}

static TrNode *
inline_PRINT(TrGraph *g, const TrNode *node, const TrOutput *args, GError **error)
{
  const TrPrintAttrs *pa = node->print;
  return tr_graph_add_print(g, args[0], pa->end, pa->to_stderr, node->name, error);
}

static TrNode *
inline_ASSERT(TrGraph *g, const TrNode *node, const TrOutput *args, GError **error)
{
  return tr_graph_add_assert(g, args, node->n_inputs, node->print->summarize, node->name, error);
}

static TrNode *
inline_CHECK_NUMERICS(TrGraph *g, const TrNode *node, const TrOutput *args, GError **error)
{
  return tr_graph_add_check_numerics(g, args[0], node->print->message, node->name, error);
}

static TrNode *
inline_NO_OP(TrGraph *g, const TrNode *node, const TrOutput *args, GError **error)
{
  return tr_graph_add_no_op(g, node->name);
}

/* On copies of cond and body (a child graph belongs to one parent); the builder relaxes the
 * shapes anew for the actual inputs. */
static TrNode *
inline_WHILE(TrGraph *g, const TrNode *node, const TrOutput *args, GError **error)
{
  g_autoptr(TrGraph) cond = tr_graph_copy(node->children[0]);
  g_autoptr(TrGraph) body = tr_graph_copy(node->children[1]);
  return tr_graph_add_while(g, cond, body, args, node->n_inputs, node->name, error);
}

static TrNode *
inline_IF(TrGraph *g, const TrNode *node, const TrOutput *args, GError **error)
{
  g_autoptr(TrGraph) then_branch = tr_graph_copy(node->children[0]);
  g_autoptr(TrGraph) else_branch = tr_graph_copy(node->children[1]);
  int n_then = tr_graph_n_inputs(then_branch);
  return tr_graph_add_cond(g, args[0], then_branch, else_branch, args + 1, n_then,
                           args + 1 + n_then, node->n_inputs - 1 - n_then, node->name, error);
}

/* The same forward node (copied again) on the new inputs and upstream gradients. */
static TrNode *
inline_SYMBOLIC_GRADIENT(TrGraph *g, const TrNode *node, const TrOutput *args, GError **error)
{
  const TrNode *forward = tr_grad_symbolic_forward(node);
  return tr_grad_add_symbolic_gradient(g, forward, args, args + forward->n_inputs, node->name,
                                       error);
}

/* An optimised graph's fused node: the same program on the new inputs. */
static TrNode *
inline_FUSED(TrGraph *g, const TrNode *node, const TrOutput *args, GError **error)
{
  return tr_graph_add_fused_like(g, node, args, node->name, error);
}

/* The same host function on the new inputs. */
static TrNode *
inline_PY_FUNC(TrGraph *g, const TrNode *node, const TrOutput *args, GError **error)
{
  return tr_graph_add_host_call(g, node->host, args, node->n_inputs, node->dtypes, node->n_outputs,
                                node->name, error);
}

static const InlineFunc inline_gops[] = {
#define INLINE_ROW(id, type, stateful) [TR_GOP_##id - TR_N_OPS] = inline_##id,
    TR_GRAPH_OP_LIST(INLINE_ROW)
#undef INLINE_ROW
};
G_STATIC_ASSERT(G_N_ELEMENTS(inline_gops) == TR_N_NODE_OPS - TR_N_OPS);

/* Every core/tensor op, body outputs' Identity nodes included: shapes are inferred anew. */
static TrNode *
inline_tensor_op(TrGraph *g, const TrNode *node, const TrOutput *args, GError **error)
{
  return tr_graph_add_op(g, (TrOpId)node->op, args, node->n_inputs, node->attrs, node->name, error);
}

/* ---- the walk ------------------------------------------------------------------------------ */

/* What a body output became in g. `map` holds, per body node id, what its output 0 became:
 * output k of a rebuilt node is output k of its copy; an argument is its input. */
static TrOutput
map_output(const TrOutput *map, TrOutput out)
{
  TrOutput m = map[out.node->id];
  return (TrOutput){m.node, m.index + out.index};
}

/* Rebuild one body node in g and record it in `map`. */
static bool
inline_node(TrGraph *g, const TrNode *node, TrOutput *map, GError **error)
{
  if (map[node->id].node)
    return true; /* an argument, bound to its input */
  g_autofree TrOutput *args = g_new(TrOutput, MAX(node->n_inputs, 1));
  for (int i = 0; i < node->n_inputs; i++)
    args[i] = map_output(map, node->inputs[i]);
  InlineFunc rebuild =
      tr_op_is_graph_level(node->op) ? inline_gops[node->op - TR_N_OPS] : inline_tensor_op;
  TrNode *copy = rebuild(g, node, args, error);
  if (copy && node->site_file) { /* made where the inlined function's line made it */
    copy->site_file = node->site_file;
    copy->site_line = node->site_line;
  }
  if (!copy)
    return false;
  map[node->id] = tr_node_output(copy, 0);
  /* A captured variable's handle may be older than this inlining: it gains nothing. */
  if (node->op == TR_GOP_PLACEHOLDER)
    return true;
  for (int i = 0; i < node->n_control; i++)
    tr_node_add_control_input(copy, map[node->control[i]->id].node);
  if (copy->n_children)
    return true; /* its builder took copies (While) */
  for (int i = 0; i < node->n_children; i++) {
    g_autoptr(TrGraph) child = tr_graph_copy(node->children[i]);
    tr_node_add_child(copy, child);
  }
  return true;
}

/* The mistakes of a caller passing arguments: count, graph, dtype and shape of each. */
static bool
check_arguments(TrGraph *g, const TrGraph *body, const TrOutput *inputs, int n_inputs,
                GError **error)
{
  const char *name = body->name ? body->name : "graph";
  int want = tr_graph_n_inputs(body);
  if (n_inputs != want) {
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE,
                "Cannot inline %s: it takes %d input%s but %d %s given", name, want,
                want == 1 ? "" : "s", n_inputs, n_inputs == 1 ? "was" : "were");
    return false;
  }
  if (!tr_graph_check_inputs(g, inputs, n_inputs, error))
    return false;
  for (int i = 0; i < n_inputs; i++) {
    const TrNode *arg = tr_graph_input(body, i);
    TrDType dtype = tr_output_dtype(inputs[i]);
    const TrShape *shape = tr_output_shape(inputs[i]);
    bool dtype_ok = dtype == arg->dtypes[0];
    if (dtype_ok && tr_graph_shapes_compatible(&arg->shapes[0], shape))
      continue;
    g_autofree char *given = tr_output_to_string(inputs[i]);
    g_autofree char *arg_shape = tr_shape_to_string(&arg->shapes[0]);
    g_set_error(error, TR_GRAPH_ERROR, dtype_ok ? TR_GRAPH_ERROR_VALUE : TR_GRAPH_ERROR_TYPE,
                "Cannot inline %s: input %d ('%s') expects %s %s, but got %s", name, i, arg->name,
                dtype_ok ? "shape" : "dtype",
                dtype_ok ? arg_shape : tr_graph_dtype_name(arg->dtypes[0]), given);
    return false;
  }
  return true;
}

/* Drop the nodes from `n_before` on and restore the stateful chain's end. */
static void
roll_back(TrGraph *g, int n_before, TrNode *last_stateful)
{
  int n = tr_graph_n_nodes(g);
  g_autofree bool *keep = g_new(bool, MAX(n, 1));
  for (int i = 0; i < n; i++)
    keep[i] = i < n_before;
  tr_graph_compact(g, keep);
  g->last_stateful = last_stateful;
}

bool
tr_graph_inline(TrGraph *g, const TrGraph *body, const TrOutput *inputs, int n_inputs,
                TrOutput *outputs, int n_outputs, const char *scope, GError **error)
{
  g_return_val_if_fail(g && body && g != body, false);
  g_return_val_if_fail(n_inputs >= 0 && (n_inputs == 0 || inputs), false);
  g_return_val_if_fail(n_outputs == tr_graph_n_outputs(body) && (n_outputs == 0 || outputs), false);
  if (!check_arguments(g, body, inputs, n_inputs, error))
    return false;

  int n_before = tr_graph_n_nodes(g);
  TrNode *last_stateful = g->last_stateful;
  int n_body = tr_graph_n_nodes(body);
  g_autofree TrOutput *map = g_new0(TrOutput, MAX(n_body, 1));
  for (int i = 0; i < n_inputs; i++)
    map[tr_graph_input(body, i)->id] = inputs[i];

  if (scope)
    tr_graph_push_name_scope(g, scope);
  bool ok = true;
  for (int i = 0; ok && i < n_body; i++)
    ok = inline_node(g, tr_graph_node(body, i), map, error);
  if (scope)
    tr_graph_pop_name_scope(g);
  if (!ok) {
    roll_back(g, n_before, last_stateful);
    return false;
  }
  for (int i = 0; i < n_outputs; i++)
    outputs[i] = map_output(map, tr_node_output(tr_graph_output(body, i), 0));
  return true;
}
