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
 * - Fusion (fuse.c): trees of elementwise ops become one _FusedElementwise node, made in place
 *   of the tree's root; the rest of the tree is then dead.
 *
 * Rewriting a node in place keeps every pass linear and keeps ids topological. Outputs (the
 * graph's Identity nodes) are never folded or merged, so a plan's outputs keep their names.
 * Passes run once per trace, so they must stay linear in the graph's size: a Python loop traced
 * 1000 times makes thousands of nodes, and tracing time is what the user waits for.
 *
 * Graph-level ops are never merged or folded, so neither is a While; one whose cond and body
 * have no stateful node is pure, and dead when nothing uses its results, while a stateful one is
 * a root of liveness like any stateful node. Child graphs (a While's cond and body) are
 * optimised with the same passes after their parent, outside the report: they are whole graphs
 * whose arguments and results stay as they are.
 */
#include "fuse-private.h"
#include "graph-private.h"

#include <string.h>

/* Folding never makes constants bigger than this many elements (TensorFlow's grappler limits
 * folded constants to 10 MB as well). */
#define FOLD_MAX_ELEMENTS (1 << 20)

/* Per node id: whether it is one of the graph's outputs. Transfer full. */
static bool *
output_set(const TrGraph *g)
{
  bool *is_output = g_new0(bool, MAX(tr_graph_n_nodes(g), 1));
  for (int i = 0; i < tr_graph_n_outputs(g); i++)
    is_output[tr_graph_output(g, i)->id] = true;
  return is_output;
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

static bool
output_less(TrOutput a, TrOutput b)
{
  return a.node->id < b.node->id || (a.node->id == b.node->id && a.index < b.index);
}

/* Input i in a canonical order: commuting inputs sorted by producer. */
static TrOutput
canonical_input(const TrNode *node, int i)
{
  if (!commutes(node))
    return node->inputs[i];
  bool swap = output_less(node->inputs[1], node->inputs[0]);
  return node->inputs[swap ? 1 - i : i];
}

/* What a node computes, for the table of pass_cse: op, type, inputs in canonical order, control
 * inputs, and a Const's value (attributes are compared, not hashed). */
static guint
node_hash(gconstpointer p)
{
  const TrNode *node = p;
  guint h = (guint)node->op * 2654435761u;
  if (node->op == TR_GOP_CONST)
    return h ^ tensor_hash(node->value);
  for (int i = 0; i < node->n_inputs; i++) {
    TrOutput in = canonical_input(node, i);
    h = h * 31u + (guint)in.node->id * 8u + (guint)in.index;
  }
  for (int i = 0; i < node->n_control; i++)
    h = h * 37u + (guint)node->control[i]->id;
  return h;
}

static gboolean
node_equal(gconstpointer pa, gconstpointer pb)
{
  const TrNode *a = pa, *b = pb;
  if (a->op != b->op || a->n_inputs != b->n_inputs || a->n_control != b->n_control ||
      strcmp(a->type, b->type) != 0)
    return FALSE;
  for (int i = 0; i < a->n_inputs; i++) {
    TrOutput x = canonical_input(a, i), y = canonical_input(b, i);
    if (x.node != y.node || x.index != y.index)
      return FALSE;
  }
  for (int i = 0; i < a->n_control; i++)
    if (a->control[i] != b->control[i])
      return FALSE;
  if (a->op == TR_GOP_CONST)
    return tr_tensor_equal(a->value, b->value);
  return memcmp(a->attrs, b->attrs, sizeof(TrAttrs)) == 0;
}

static int
pass_cse(TrGraph *g)
{
  int n = tr_graph_n_nodes(g);
  g_autofree TrNode **replacement = g_new0(TrNode *, MAX(n, 1));
  g_autoptr(GHashTable) seen = g_hash_table_new(node_hash, node_equal);
  g_autofree bool *live = tr_graph_live_set(g);
  g_autofree bool *is_output = output_set(g);
  int merged = 0;
  for (int i = 0; i < n; i++) {
    TrNode *node = tr_graph_node(g, i);
    if (!live[i])
      continue; /* dead already, perhaps from an earlier merge */
    rewrite_inputs(node, replacement);
    bool candidate = (node->op == TR_GOP_CONST || is_pure_tensor_op(node)) && !is_output[i];
    if (!candidate)
      continue;
    TrNode *same = g_hash_table_lookup(seen, node);
    if (same) {
      replacement[i] = same;
      merged++;
    } else {
      g_hash_table_add(seen, node);
    }
  }
  return merged;
}

/* ---- constant folding ------------------------------------------------------------------------ */

static bool
foldable(const TrNode *node, const bool *is_output)
{
  if (!is_pure_tensor_op(node) || is_output[node->id])
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
  g_autofree bool *is_output = output_set(g);
  int folded = 0;
  for (int i = 0; i < tr_graph_n_nodes(g); i++) {
    TrNode *node = tr_graph_node(g, i);
    if (live[i] && foldable(node, is_output) && fold(node))
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

/* The passes' shared state: counting live nodes is a walk of the graph, so each pass counts
 * only after itself (the count before is the previous pass's after), and only for a report. */
typedef struct {
  TrGraph *g;          /* the graph optimised */
  TrOptReport *report; /* where passes are recorded, or NULL */
  int live;            /* live nodes now, when reporting */
} Driver;

static void
run_pass(Driver *d, const char *name, PassFunc pass)
{
  int changed = pass(d->g);
  if (!d->report || d->report->n_passes >= (int)G_N_ELEMENTS(d->report->passes))
    return;
  TrOptPassReport *r = &d->report->passes[d->report->n_passes++];
  r->pass = name;
  r->nodes_before = d->live;
  r->nodes_after = d->live = tr_graph_n_live_nodes(d->g);
  r->changed = changed;
}

void
tr_graph_optimize(TrGraph *g, unsigned passes, TrOptReport *report)
{
  g_return_if_fail(g != NULL);
  if (report)
    memset(report, 0, sizeof *report);
  Driver d = {g, report, report ? tr_graph_n_live_nodes(g) : 0};
  if (passes & TR_OPT_CSE)
    run_pass(&d, "cse", pass_cse);
  if (passes & TR_OPT_CONSTANT_FOLDING) {
    run_pass(&d, "constant-folding", pass_constant_folding);
    /* Folded constants with equal values merge, and their consumers with them. */
    if (passes & TR_OPT_CSE)
      run_pass(&d, "cse", pass_cse);
  }
  if (passes & TR_OPT_FUSION)
    run_pass(&d, "fusion", tr_graph_fuse_elementwise);
  if (passes & TR_OPT_DEAD_NODES)
    run_pass(&d, "dead-nodes", pass_dead_nodes);
  for (int i = 0; i < tr_graph_n_nodes(g); i++) {
    TrNode *node = tr_graph_node(g, i);
    /* A SymbolicGradient replays its child node by node: it must stay TensorFlow's ops. */
    for (int c = 0; c < node->n_children && node->op != TR_GOP_SYMBOLIC_GRADIENT; c++)
      tr_graph_optimize(node->children[c], passes, NULL);
  }
}
