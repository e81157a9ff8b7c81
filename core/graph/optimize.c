/* optimize.c — graph passes run once per ConcreteFunction, before planning, on a copy of the
 * traced graph (tr_graph_copy), so the user still sees the graph as traced.
 *
 * - Common-subexpression elimination: a pure node with the same op, inputs and attributes as an
 *   older one (or a Const with an equal value) is replaced by it. Inputs are rewritten in id
 *   order, so one pass sees chains of duplicates.
 * - Constant folding: a pure op whose inputs are all Const is computed once with core/tensor's
 *   eager path and the node becomes a Const in place (same name and id, so insertion order stays
 *   topological); a failing op (integer division by zero) is left to fail at run time.
 * - Dead nodes: nodes that no output, stateful node or argument needs are removed.
 *
 * Rewriting a node in place keeps every pass linear and keeps ids topological. Outputs (the
 * graph's Identity nodes) are never folded or merged, so a plan's outputs keep their names.
 *
 * Graph-level ops are never merged or folded, so neither is a While; one whose cond and body
 * have no stateful node is pure, and dead when nothing uses its results, while a stateful one is
 * a root of liveness like any stateful node. Child graphs (a While's cond and body) are
 * optimised with the same passes after their parent, outside the report: they are whole graphs
 * whose arguments and results stay as they are.
 *
 * Elementwise fusion (one loop over a chain of elementwise ops) is designed for but not done:
 * it would be a plan-time step kind, STEP_FUSED, holding the chain's row functions and running
 * them block by block over a cache-sized tile; core/tensor's row functions are private today,
 * so it needs a small public "row kernel" entry in tr-ops.h first.
 */
#include "graph-private.h"

#include <string.h>

/* Folding never makes constants bigger than this many elements (TensorFlow's grappler limits
 * folded constants to 10 MB as well). */
#define FOLD_MAX_ELEMENTS (1 << 20)

static bool
is_graph_output(const TrGraph *g, const TrNode *node)
{
  for (int i = 0; i < tr_graph_n_outputs(g); i++)
    if (tr_graph_output(g, i) == node)
      return true;
  return false;
}

/* Point every input and control input at its replacement, if it has one. */
static void
rewrite_inputs(TrNode *node, TrNode **replacement)
{
  for (int i = 0; i < node->n_inputs; i++) {
    TrNode *r = replacement[node->inputs[i].node->id];
    if (r)
      node->inputs[i].node = r;
  }
  for (int i = 0; i < node->n_control; i++) {
    TrNode *r = replacement[node->control[i]->id];
    if (r)
      node->control[i] = r;
  }
}

static bool
is_pure_tensor_op(const TrNode *node)
{
  return !tr_op_is_graph_level(node->op) && !node->stateful && node->n_children == 0 &&
         !(tr_op_def(node->op)->flags & TR_OP_FLAG_STATEFUL);
}

/* ---- common subexpressions ------------------------------------------------------------------ */

static guint
tensor_hash(const TrTensor *t)
{
  guint h = (guint)t->dtype * 31u + (guint)t->shape.rank;
  int64_t n = MIN(tr_tensor_num_elements(t), 64);
  for (int64_t i = 0; i < n; i++) {
    if (t->dtype == TR_STRING) {
      h = h * 31u + g_str_hash(tr_tensor_get_string(t, i)->data);
      continue;
    }
    double v = tr_tensor_get_f64(t, i); /* exact for every dtype but int64 extremes */
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    h = h * 31u + (guint)(bits ^ (bits >> 32));
  }
  return h;
}

/* Whether a binary node's inputs may swap: core/tensor leaves AddV2 unmarked because string
 * addition concatenates, but numeric addition commutes. */
static bool
commutes(const TrNode *node)
{
  if (node->n_inputs != 2)
    return false;
  if (node->op == TR_OP_ADD)
    return node->dtypes[0] != TR_STRING;
  return (tr_op_def(node->op)->flags & TR_OP_FLAG_COMMUTATIVE) != 0;
}

/* A key naming what the node computes; equal keys are then checked field by field. */
static char *
cse_key(const TrNode *node)
{
  GString *key = g_string_new(NULL);
  g_string_append_printf(key, "%d|%s|", node->op, node->type);
  if (node->op == TR_GOP_CONST) {
    g_string_append_printf(key, "%u", tensor_hash(node->value));
    return g_string_free(key, FALSE);
  }
  TrOutput in[2];
  bool swap = commutes(node);
  for (int i = 0; i < node->n_inputs; i++) {
    TrOutput o = node->inputs[i];
    if (swap) {
      in[0] = node->inputs[0];
      in[1] = node->inputs[1];
      bool greater = in[0].node->id > in[1].node->id ||
                     (in[0].node->id == in[1].node->id && in[0].index > in[1].index);
      o = greater ? in[1 - i] : in[i];
    }
    g_string_append_printf(key, "%d:%d,", o.node->id, o.index);
  }
  g_string_append_c(key, '|');
  for (int i = 0; i < node->n_control; i++)
    g_string_append_printf(key, "^%d,", node->control[i]->id);
  return g_string_free(key, FALSE);
}

static bool
same_computation(const TrNode *a, const TrNode *b)
{
  if (a->op == TR_GOP_CONST)
    return tr_tensor_equal(a->value, b->value);
  return memcmp(a->attrs, b->attrs, sizeof(TrAttrs)) == 0;
}

static int
pass_cse(TrGraph *g)
{
  int n = tr_graph_n_nodes(g);
  g_autofree TrNode **replacement = g_new0(TrNode *, MAX(n, 1));
  g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_autofree bool *live = tr_graph_live_set(g);
  int merged = 0;
  for (int i = 0; i < n; i++) {
    TrNode *node = tr_graph_node(g, i);
    if (!live[i])
      continue; /* dead already, perhaps from an earlier merge */
    rewrite_inputs(node, replacement);
    bool candidate =
        (node->op == TR_GOP_CONST || is_pure_tensor_op(node)) && !is_graph_output(g, node);
    if (!candidate)
      continue;
    char *key = cse_key(node);
    TrNode *same = g_hash_table_lookup(seen, key);
    if (same && same_computation(same, node)) {
      replacement[i] = same;
      merged++;
      g_free(key);
      continue;
    }
    if (!same)
      g_hash_table_insert(seen, key, node);
    else
      g_free(key);
  }
  return merged;
}

/* ---- constant folding ------------------------------------------------------------------------ */

static bool
foldable(const TrGraph *g, const TrNode *node)
{
  if (!is_pure_tensor_op(node) || is_graph_output(g, node))
    return false;
  for (int i = 0; i < node->n_inputs; i++)
    if (node->inputs[i].node->op != TR_GOP_CONST)
      return false;
  int64_t n = tr_shape_num_elements(&node->shapes[0]);
  return n != TR_UNKNOWN && n <= FOLD_MAX_ELEMENTS;
}

static bool
fold(TrNode *node)
{
  TrTensor *stack_in[8];
  g_autofree TrTensor **heap = node->n_inputs > 8 ? g_new(TrTensor *, node->n_inputs) : NULL;
  TrTensor **in = heap ? heap : stack_in;
  for (int i = 0; i < node->n_inputs; i++)
    in[i] = node->inputs[i].node->value;
  GError *ignored = NULL;
  TrTensor *value = tr_op_run(node->op, in, node->n_inputs, node->attrs, &ignored);
  if (!value) {
    g_clear_error(&ignored);
    return false;
  }
  node->op = TR_GOP_CONST;
  node->type = "Const";
  node->n_inputs = 0;
  node->attrs = NULL;
  node->value = value;
  node->dtypes[0] = value->dtype;
  node->shapes[0] = value->shape;
  return true;
}

static int
pass_constant_folding(TrGraph *g)
{
  g_autofree bool *live = tr_graph_live_set(g);
  int folded = 0;
  for (int i = 0; i < tr_graph_n_nodes(g); i++) {
    TrNode *node = tr_graph_node(g, i);
    if (live[i] && foldable(g, node) && fold(node))
      folded++;
  }
  return folded;
}

/* ---- dead nodes ---------------------------------------------------------------------------- */

static int
pass_dead_nodes(TrGraph *g)
{
  g_autofree bool *live = tr_graph_live_set(g);
  int before = tr_graph_n_nodes(g);
  tr_graph_compact(g, live);
  return before - tr_graph_n_nodes(g);
}

/* ---- driver -------------------------------------------------------------------------------- */

typedef int (*PassFunc)(TrGraph *g);

static void
run_pass(TrGraph *g, const char *name, PassFunc pass, TrOptReport *report)
{
  int before = tr_graph_n_live_nodes(g);
  int changed = pass(g);
  if (!report || report->n_passes >= (int)G_N_ELEMENTS(report->passes))
    return;
  TrOptPassReport *r = &report->passes[report->n_passes++];
  r->pass = name;
  r->nodes_before = before;
  r->nodes_after = tr_graph_n_live_nodes(g);
  r->changed = changed;
}

void
tr_graph_optimize(TrGraph *g, unsigned passes, TrOptReport *report)
{
  g_return_if_fail(g != NULL);
  if (report)
    memset(report, 0, sizeof *report);
  if (passes & TR_OPT_CSE)
    run_pass(g, "cse", pass_cse, report);
  if (passes & TR_OPT_CONSTANT_FOLDING) {
    run_pass(g, "constant-folding", pass_constant_folding, report);
    /* Folded constants with equal values merge, and their consumers with them. */
    if (passes & TR_OPT_CSE)
      run_pass(g, "cse", pass_cse, report);
  }
  if (passes & TR_OPT_DEAD_NODES)
    run_pass(g, "dead-nodes", pass_dead_nodes, report);
  for (int i = 0; i < tr_graph_n_nodes(g); i++) {
    TrNode *node = tr_graph_node(g, i);
    for (int c = 0; c < node->n_children; c++)
      tr_graph_optimize(node->children[c], passes, NULL);
  }
}
