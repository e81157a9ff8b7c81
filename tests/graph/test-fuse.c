/* test-fuse.c — elementwise fusion: which nodes become one _FusedElementwise node, and fused
 * graphs computing bitwise the values of the unfused ones (random inputs, broadcasting, strided
 * views, blocks, partial shapes); what must never be fused. */
#include "test-graph.h"

#include <math.h>
#include <string.h>

/* ---- helpers ---------------------------------------------------------------------------- */

/* An optimised copy of g with every pass, fusion included. Transfer full. */
static TrGraph *
fused_copy(const TrGraph *g, TrOptReport *report)
{
  TrGraph *copy = tr_graph_copy(g);
  tr_graph_optimize(copy, TR_OPT_ALL, report);
  return copy;
}

/* The reference: every pass but fusion. (CSE merges a + b with b + a, whose NaN payloads
 * differ on x86, so the unoptimised graph is not bitwise the reference for NaNs.) */
static TrGraph *
unfused_copy(const TrGraph *g)
{
  TrGraph *copy = tr_graph_copy(g);
  tr_graph_optimize(copy, TR_OPT_ALL & ~TR_OPT_FUSION, NULL);
  return copy;
}

static int
count_op(const TrGraph *g, int op)
{
  int n = 0;
  for (int i = 0; i < tr_graph_n_nodes(g); i++)
    n += tr_graph_node(g, i)->op == op;
  return n;
}

static const TrOptPassReport *
find_pass(const TrOptReport *report, const char *name)
{
  for (int i = 0; i < report->n_passes; i++)
    if (g_strcmp0(report->passes[i].pass, name) == 0)
      return &report->passes[i];
  return NULL;
}

/* Run every output of a graph. outs receives transfer-full tensors. */
static void
run_all(TrGraph *g, TrTensor *const *in, int n_in, TrTensor **outs)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrPlan) plan = tr_plan_new(g, NULL, 0, &error);
  g_assert_no_error(error);
  g_assert_true(tr_plan_run(plan, in, n_in, outs, NULL, &error));
  g_assert_no_error(error);
}

/* Whether element i of two contiguous tensors of one dtype is the same: the same bits, or NaN
 * in both. (A NaN's sign and payload are not a result: x86 returns the first operand's NaN when
 * both are NaN, and compilers swap the operands of float + and * freely.) */
static bool
same_element(const TrTensor *a, const TrTensor *b, int64_t i)
{
  size_t size = tr_dtype_size(a->dtype);
  const char *x = (const char *)tr_tensor_data(a) + (size_t)i * size;
  const char *y = (const char *)tr_tensor_data(b) + (size_t)i * size;
  if (memcmp(x, y, size) == 0)
    return true;
  return tr_dtype_is_float(a->dtype) && isnan(tr_tensor_get_f64(a, i)) &&
         isnan(tr_tensor_get_f64(b, i));
}

/* Same dtype, shape and elements: bitwise (so -0 differs from 0), NaN matching NaN. */
static void
assert_same_bits(const TrTensor *want, const TrTensor *got)
{
  g_assert_cmpint(want->dtype, ==, got->dtype);
  g_assert_true(tr_shape_equal(&want->shape, &got->shape));
  g_autoptr(TrTensor) a = tr_tensor_contiguous((TrTensor *)want);
  g_autoptr(TrTensor) b = tr_tensor_contiguous((TrTensor *)got);
  int64_t differ = 0;
  for (int64_t i = 0; i < tr_tensor_num_elements(a); i++) {
    if (same_element(a, b, i))
      continue;
    if (differ++ < 5)
      g_test_message("element %" G_GINT64_FORMAT ": want %.17g, got %.17g", i,
                     tr_tensor_get_f64(a, i), tr_tensor_get_f64(b, i));
  }
  g_assert_cmpint(differ, ==, 0);
}

/* Run g optimised without fusion and its fused copy on the inputs: every output must be bitwise
 * equal. */
static void
assert_fused_matches(TrGraph *g, TrGraph *fused, TrTensor *const *in, int n_in)
{
  int n = tr_graph_n_outputs(g);
  g_autofree TrTensor **want = g_new0(TrTensor *, n);
  g_autofree TrTensor **got = g_new0(TrTensor *, n);
  g_autoptr(TrGraph) reference = unfused_copy(g);
  g_assert_cmpint(count_op(reference, TR_GOP_FUSED), ==, 0);
  run_all(reference, in, n_in, want);
  run_all(fused, in, n_in, got);
  for (int i = 0; i < n; i++) {
    assert_same_bits(want[i], got[i]);
    tr_tensor_unref(want[i]);
    tr_tensor_unref(got[i]);
  }
}

/* Random values of a dtype: floats in [-4, 4) with some NaN, infinities and -0; integers over
 * the whole int32 range (so that arithmetic wraps). Transfer full. */
static TrTensor *
random_tensor(TrDType dtype, int rank, const int64_t *dims)
{
  TrShape shape = tr_shape_make(rank, dims);
  int64_t n = tr_shape_num_elements(&shape);
  g_autofree double *v = g_new(double, MAX(n, 1));
  const double specials[] = {NAN, INFINITY, -INFINITY, -0.0, 0.0, 1.0};
  for (int64_t i = 0; i < n; i++) {
    if (tr_dtype_is_int(dtype))
      v[i] = (double)(int32_t)g_test_rand_int();
    else if (g_test_rand_int_range(0, 16) == 0)
      v[i] = specials[g_test_rand_int_range(0, G_N_ELEMENTS(specials))];
    else
      v[i] = g_test_rand_double_range(-4, 4);
  }
  return tt_tensor(dtype, rank, dims, v);
}

static TrNode *
add_clip(TrGraph *g, TrNode *x, TrNode *lo, TrNode *hi)
{
  TrOutput in[3] = {OUT(x), OUT(lo), OUT(hi)};
  g_autoptr(GError) error = NULL;
  TrNode *node = tr_graph_add_op(g, TR_OP_CLIP_BY_VALUE, in, 3, NULL, NULL, &error);
  g_assert_no_error(error);
  return node;
}

/* ---- the chain --------------------------------------------------------------------- */

/* for _ in range(n): x = tf.tanh(x * 0.5 + 0.1), with a Const per Python number, as tracing
 * makes them. */
static TrNode *
tanh_chain(TrGraph *g, TrNode *x, int n)
{
  for (int i = 0; i < n; i++) {
    TrNode *m = tg_op(g, TR_OP_MUL, x, tg_const(g, tr_tensor_new_float32(0.5f)), NULL);
    TrNode *a = tg_op(g, TR_OP_ADD, m, tg_const(g, tr_tensor_new_float32(0.1f)), NULL);
    x = tg_op(g, TR_OP_TANH, a, NULL, NULL);
  }
  return x;
}

static void
test_chain_becomes_one_node(void)
{
  g_autoptr(TrGraph) g = tr_graph_new("__inference_chain_7");
  TrNode *x = tg_placeholder(g, TR_FLOAT32, DIMS(2, 2), "x");
  TrNode *last = tanh_chain(g, x, 100);
  tg_output(g, last);
  g_assert_cmpint(tr_graph_n_nodes(g), ==, 1 + 500 + 1);

  TrOptReport report;
  g_autoptr(TrGraph) fused = fused_copy(g, &report);
  const TrOptPassReport *fusion = find_pass(&report, "fusion");
  g_assert_nonnull(fusion);
  /* CSE leaves two Consts; the 300 ops become one node. */
  g_assert_cmpint(fusion->nodes_before, ==, 1 + 2 + 300 + 1);
  g_assert_cmpint(fusion->changed, ==, 299);
  g_assert_cmpint(fusion->nodes_after, ==, 1 + 2 + 1 + 1);
  g_assert_cmpint(tr_graph_n_nodes(fused), ==, 5);
  TrNode *node = tr_graph_find_node(fused, last->name);
  g_assert_nonnull(node);
  g_assert_cmpint(node->op, ==, TR_GOP_FUSED);
  g_assert_cmpstr(node->type, ==, "_FusedElementwise");
  g_assert_cmpint(node->n_inputs, ==, 3);
  g_assert_true(tr_shape_equal(&node->shapes[0], &last->shapes[0]));
  /* The traced graph is untouched. */
  g_assert_cmpint(tr_graph_n_nodes(g), ==, 502);
  g_assert_cmpint(count_op(g, TR_GOP_FUSED), ==, 0);

  for (int round = 0; round < 5; round++) {
    g_autoptr(TrTensor) in = random_tensor(TR_FLOAT32, DIMS(2, 2));
    assert_fused_matches(g, fused, &in, 1);
  }
  /* And as the plan keeps running: no more than one step besides the argument and result. */
  g_autoptr(GError) error = NULL;
  g_autoptr(TrPlan) plan = tr_plan_new(fused, NULL, 0, &error);
  g_assert_cmpint(tr_plan_n_steps(plan), ==, 5);
}

/* ---- random graphs -------------------------------------------------------------------------- */

typedef struct {
  TrOpId op;    /* what to apply */
  bool int_too; /* also on integers (ops that cannot fail there) */
  int n_inputs; /* 1, 2 or 3 (ClipByValue) */
} RandomOp;

static const RandomOp random_ops[] = {
    {TR_OP_ADD, true, 2},           {TR_OP_SUB, true, 2},     {TR_OP_MUL, true, 2},
    {TR_OP_MAXIMUM, true, 2},       {TR_OP_MINIMUM, true, 2}, {TR_OP_NEG, true, 1},
    {TR_OP_ABS, true, 1},           {TR_OP_SQUARE, true, 1},  {TR_OP_RELU, true, 1},
    {TR_OP_CLIP_BY_VALUE, true, 3}, {TR_OP_DIV, false, 2},    {TR_OP_FLOORDIV, false, 2},
    {TR_OP_MOD, false, 2},          {TR_OP_POW, false, 2},    {TR_OP_SQRT, false, 1},
    {TR_OP_EXP, false, 1},          {TR_OP_LOG, false, 1},    {TR_OP_TANH, false, 1},
    {TR_OP_SIGMOID, false, 1},      {TR_OP_SIN, false, 1},    {TR_OP_COS, false, 1},
};

static const RandomOp *
pick_op(TrDType dtype)
{
  for (;;) {
    const RandomOp *op = &random_ops[g_test_rand_int_range(0, G_N_ELEMENTS(random_ops))];
    if (op->int_too || tr_dtype_is_float(dtype))
      return op;
  }
}

/* A random DAG of elementwise ops over inputs of several broadcast shapes. Nodes of the full
 * shape are reused at random, so some have several consumers (and some are results), which
 * splits fusion groups; the leaves broadcast (a row, a column, a scalar) or are read through a
 * strided view. Returns the number of inputs (6); in[] receives their values.
 *
 * The random part alone need not leave anything to fuse: when its last op reads x or t (or a
 * value that is also a result) and no earlier result is a chain, the graph's live part may hold
 * no op whose only consumer is another op, and then no group has two members. So the graph also
 * returns Neg(last * u): u is read by nothing else, so CSE cannot merge the Mul or the Neg with
 * another node, the Mul's only consumer is the Neg, and the two always make a fused group. */
static int
random_graph(TrGraph *g, TrDType dtype, int64_t rows, int64_t cols, int n_ops, TrTensor **in)
{
  TrNode *x = tg_placeholder(g, dtype, DIMS(rows, cols), "x");
  TrNode *row = tg_placeholder(g, dtype, DIMS(cols), "row");
  TrNode *col = tg_placeholder(g, dtype, DIMS(rows, 1), "col");
  TrNode *s = tg_placeholder(g, dtype, NODIMS, "s");
  TrNode *t = tg_placeholder(g, dtype, DIMS(rows, cols), "t");
  TrNode *u = tg_placeholder(g, dtype, DIMS(rows, cols), "u"); /* read only by the tail */
  TrNode *leaves[] = {x, row, col, s, t, tg_const(g, tt_tensor(dtype, NODIMS, VALS(0.75)))};
  in[0] = random_tensor(dtype, DIMS(rows, cols));
  in[1] = random_tensor(dtype, DIMS(cols));
  in[2] = random_tensor(dtype, DIMS(rows, 1));
  in[3] = random_tensor(dtype, NODIMS);
  g_autoptr(TrTensor) tt = random_tensor(dtype, DIMS(cols, rows));
  in[4] = tt_transposed(tt); /* strided: read by gathering */

  GPtrArray *pool = g_ptr_array_new();
  g_ptr_array_add(pool, x);
  g_ptr_array_add(pool, t);
  for (int i = 0; i < n_ops; i++) {
    const RandomOp *op = pick_op(dtype);
    /* Mostly the newest node (chains), sometimes an older one (shared values). */
    int pick =
        g_test_rand_int_range(0, 4) ? (int)pool->len - 1 : g_test_rand_int_range(0, (int)pool->len);
    TrNode *a = pool->pdata[pick];
    TrNode *b = leaves[g_test_rand_int_range(0, G_N_ELEMENTS(leaves))];
    if (g_test_rand_bit())
      b = pool->pdata[g_test_rand_int_range(0, (int)pool->len)];
    TrNode *node;
    if (op->n_inputs == 3)
      node = add_clip(g, a, leaves[3], leaves[5]);
    else
      node = tg_op(g, op->op, a, op->n_inputs == 2 ? b : NULL, NULL);
    g_ptr_array_add(pool, node);
    if (g_test_rand_int_range(0, 10) == 0)
      tg_output(g, node); /* a result that is also read on */
  }
  TrNode *last = pool->pdata[pool->len - 1];
  tg_output(g, last);
  tg_output(g, tg_op(g, TR_OP_NEG, tg_op(g, TR_OP_MUL, last, u, NULL), NULL, NULL));
  /* u takes x's values: drawing none keeps each seed's graph as it was before the tail. */
  in[5] = tr_tensor_ref(in[0]);
  g_ptr_array_free(pool, TRUE);
  return 6;
}

static void
check_random_graphs(TrDType dtype, int64_t rows, int64_t cols)
{
  for (int round = 0; round < 8; round++) {
    g_autoptr(TrGraph) g = tr_graph_new(NULL);
    TrTensor *in[6];
    int n_in = random_graph(g, dtype, rows, cols, 40, in);
    g_autoptr(TrGraph) fused = fused_copy(g, NULL);
    g_assert_cmpint(count_op(fused, TR_GOP_FUSED), >, 0);
    assert_fused_matches(g, fused, in, n_in);
    for (int i = 0; i < n_in; i++)
      tr_tensor_unref(in[i]);
  }
}

static void
test_random_float32(void)
{
  check_random_graphs(TR_FLOAT32, 3, 5);
  check_random_graphs(TR_FLOAT32, 7, 130); /* several blocks, partial last block */
}

static void
test_random_float64(void)
{
  check_random_graphs(TR_FLOAT64, 4, 4);
  check_random_graphs(TR_FLOAT64, 9, 61);
}

static void
test_random_integers(void)
{
  check_random_graphs(TR_INT32, 3, 5);
  check_random_graphs(TR_INT32, 5, 111);
  check_random_graphs(TR_INT64, 6, 50);
}

/* ---- broadcasting and partial shapes -------------------------------------------------------- */

/* Inputs of four shapes broadcast into one [3, 5, 4] tree; a scalar placeholder and a column. */
static void
test_broadcast_inputs(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *x = tg_placeholder(g, TR_FLOAT64, DIMS(3, 1, 4), "x");
  TrNode *w = tg_placeholder(g, TR_FLOAT64, DIMS(5, 1), "w");
  TrNode *y = tg_placeholder(g, TR_FLOAT64, DIMS(4), "y");
  TrNode *s = tg_placeholder(g, TR_FLOAT64, NODIMS, "s");
  TrNode *a = tg_op(g, TR_OP_ADD, x, w, NULL); /* [3, 5, 4] */
  TrNode *b = tg_op(g, TR_OP_MUL, a, y, NULL);
  TrNode *c = tg_op(g, TR_OP_SUB, s, tg_op(g, TR_OP_EXP, b, NULL, NULL), NULL);
  tg_output(g, tg_op(g, TR_OP_MAXIMUM, c, x, NULL));
  g_autoptr(TrGraph) fused = fused_copy(g, NULL);
  g_assert_cmpint(count_op(fused, TR_GOP_FUSED), ==, 1);
  g_assert_cmpint(tr_graph_n_nodes(fused), ==, 4 + 1 + 1);
  TrTensor *in[4] = {random_tensor(TR_FLOAT64, DIMS(3, 1, 4)),
                     random_tensor(TR_FLOAT64, DIMS(5, 1)), random_tensor(TR_FLOAT64, DIMS(4)),
                     random_tensor(TR_FLOAT64, NODIMS)};
  assert_fused_matches(g, fused, in, 4);
  for (int i = 0; i < 4; i++)
    tr_tensor_unref(in[i]);
}

/* A smaller intermediate shape stops a group: [3] + [3] is not fused with the [2, 3] add. */
static void
test_differing_shapes_split_groups(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *v = tg_placeholder(g, TR_FLOAT32, DIMS(3), "v");
  TrNode *m = tg_placeholder(g, TR_FLOAT32, DIMS(2, 3), "m");
  TrNode *small = tg_op(g, TR_OP_EXP, tg_op(g, TR_OP_NEG, v, NULL, NULL), NULL, NULL);
  TrNode *big = tg_op(g, TR_OP_TANH, tg_op(g, TR_OP_ADD, m, small, NULL), NULL, NULL);
  tg_output(g, big);
  g_autoptr(TrGraph) fused = fused_copy(g, NULL);
  /* Neg+Exp over [3], Add+Tanh over [2, 3]. */
  g_assert_cmpint(count_op(fused, TR_GOP_FUSED), ==, 2);
  TrNode *inner = tr_graph_find_node(fused, small->name);
  g_assert_cmpint(inner->op, ==, TR_GOP_FUSED);
  g_assert_cmpint(inner->shapes[0].rank, ==, 1);
  TrTensor *in[2] = {random_tensor(TR_FLOAT32, DIMS(3)), random_tensor(TR_FLOAT32, DIMS(2, 3))};
  assert_fused_matches(g, fused, in, 2);
  tr_tensor_unref(in[0]);
  tr_tensor_unref(in[1]);
}

/* Traced for (None, 3): one fused node serves every batch size, and inputs that do not
 * broadcast fail as the unfused Add would, with TensorFlow's text. */
static void
test_partial_shapes(void)
{
  g_autoptr(TrGraph) g = tr_graph_new("__inference_f_3");
  TrNode *x = tg_placeholder(g, TR_FLOAT32, DIMS(TR_UNKNOWN, 3), "x");
  TrNode *y = tg_placeholder(g, TR_FLOAT32, DIMS(TR_UNKNOWN, 3), "y");
  TrNode *sum = tg_op(g, TR_OP_ADD, x, y, NULL);
  tg_output(g, tg_op(g, TR_OP_SIGMOID, tg_op(g, TR_OP_SQUARE, sum, NULL, NULL), NULL, NULL));
  g_autoptr(TrGraph) fused = fused_copy(g, NULL);
  g_assert_cmpint(count_op(fused, TR_GOP_FUSED), ==, 1);
  const int64_t batches[][2] = {{1, 1}, {4, 4}, {1, 6}, {5, 1}, {0, 0}};
  for (guint i = 0; i < G_N_ELEMENTS(batches); i++) {
    TrTensor *in[2] = {random_tensor(TR_FLOAT32, DIMS(batches[i][0], 3)),
                       random_tensor(TR_FLOAT32, DIMS(batches[i][1], 3))};
    assert_fused_matches(g, fused, in, 2);
    tr_tensor_unref(in[0]);
    tr_tensor_unref(in[1]);
  }
  g_autoptr(GError) error = NULL;
  g_autoptr(TrPlan) plan = tr_plan_new(fused, NULL, 0, &error);
  g_autoptr(TrTensor) a = random_tensor(TR_FLOAT32, DIMS(2, 3));
  g_autoptr(TrTensor) b = random_tensor(TR_FLOAT32, DIMS(4, 3));
  TrTensor *in[2] = {a, b}, *out = NULL;
  g_assert_false(tr_plan_run(plan, in, 2, &out, NULL, &error));
  g_assert_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT);
  g_assert_true(g_str_has_prefix(error->message, "Incompatible shapes: [2,3] vs. [4,3]"));
}

/* ---- what is not fused -------------------------------------------------------------------- */

/* A value also needed outside the chain (a result, another chain) is a group's root, computed
 * once and read by both; its own producers are fused with it. */
static void
test_shared_values_stay_roots(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *x = tg_placeholder(g, TR_FLOAT32, DIMS(4), "x");
  TrNode *t = tg_op(g, TR_OP_EXP, tg_op(g, TR_OP_NEG, x, NULL, NULL), NULL, NULL);
  TrNode *u = tg_op(g, TR_OP_SQRT, tg_op(g, TR_OP_ABS, t, NULL, NULL), NULL, NULL);
  TrNode *v = tg_op(g, TR_OP_LOG, tg_op(g, TR_OP_SQUARE, t, NULL, NULL), NULL, NULL);
  tg_output(g, t);
  tg_output(g, u);
  tg_output(g, v);
  TrOptReport report;
  g_autoptr(TrGraph) fused = fused_copy(g, &report);
  /* {Neg, Exp}, {Abs, Sqrt}, {Square, Log}: three fused nodes, three nodes fused away. */
  g_assert_cmpint(find_pass(&report, "fusion")->changed, ==, 3);
  g_assert_cmpint(count_op(fused, TR_GOP_FUSED), ==, 3);
  TrNode *root = tr_graph_find_node(fused, t->name);
  g_assert_cmpint(root->op, ==, TR_GOP_FUSED);
  TrNode *un = tr_graph_find_node(fused, u->name);
  g_assert_true(un->inputs[0].node == root);
  g_autoptr(TrTensor) in = random_tensor(TR_FLOAT32, DIMS(4));
  assert_fused_matches(g, fused, &in, 1);
}

/* A value read twice by one consumer, or by two consumers of the same group, is fused: the
 * group is a DAG, not only a chain. */
static void
test_diamond_is_fused(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *x = tg_placeholder(g, TR_FLOAT64, DIMS(3), "x");
  TrNode *t = tg_op(g, TR_OP_MUL, x, tg_const(g, tr_tensor_new_float64(2)), NULL);
  TrNode *sq = tg_op(g, TR_OP_MUL, t, t, NULL);
  TrNode *d = tg_op(g, TR_OP_ADD, tg_op(g, TR_OP_TANH, sq, NULL, NULL),
                    tg_op(g, TR_OP_SIGMOID, t, NULL, NULL), NULL);
  tg_output(g, d);
  TrOptReport report;
  g_autoptr(TrGraph) fused = fused_copy(g, &report);
  g_assert_cmpint(find_pass(&report, "fusion")->changed, ==, 4);
  g_assert_cmpint(count_op(fused, TR_GOP_FUSED), ==, 1);
  g_assert_cmpint(tr_graph_find_node(fused, d->name)->n_inputs, ==, 2); /* x and the Const */
  g_autoptr(TrTensor) in = random_tensor(TR_FLOAT64, DIMS(3));
  assert_fused_matches(g, fused, &in, 1);
}

/* Stateful nodes (variable reads, tf.print, random ops) are never fused, and a value tf.print
 * reads is computed as a root; integer ops that can fail (FloorDiv) stay and still fail. */
static void
test_stateful_and_failing_ops_stay(void)
{
  g_autoptr(TrGraph) g = tr_graph_new("__inference_f_4");
  TrNode *x = tg_placeholder(g, TR_INT32, DIMS(2), "x");
  g_autoptr(TrVariable) var = tg_variable(TT(TR_INT32, DIMS(2), VALS(10, 20)), "v");
  g_autoptr(GError) error = NULL;
  TrNode *h = tr_graph_capture_variable(g, var, NULL);
  TrNode *read = tr_graph_add_read_variable(g, OUT(h), NULL, &error);
  TrNode *a = tg_op(g, TR_OP_ADD, tg_op(g, TR_OP_NEG, x, NULL, NULL), read, NULL);
  TrNode *b = tg_op(g, TR_OP_MUL, a, a, NULL);
  TrNode *fmt = tr_graph_add_string_format(g, "b = {}", (TrOutput[]){OUT(b)}, 1, 3, NULL, &error);
  tr_graph_add_print(g, OUT(fmt), NULL, false, NULL, &error);
  TrNode *q = tg_op(g, TR_OP_FLOORDIV, tg_op(g, TR_OP_ABS, b, NULL, NULL), x, NULL);
  tg_output(g, tg_op(g, TR_OP_RELU, q, NULL, NULL));
  g_assert_no_error(error);

  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.dtype = TR_FLOAT32;
  attrs.seed = 7;
  g_autoptr(TrTensor) shape = TT(TR_INT32, DIMS(1), VALS(2));
  TrNode *dims = tg_const(g, g_steal_pointer(&shape));
  TrOutput shape_in = OUT(dims);
  TrNode *r = tr_graph_add_op(g, TR_OP_RANDOM_UNIFORM, &shape_in, 1, &attrs, NULL, &error);
  g_assert_no_error(error);
  tg_output(g, tg_op(g, TR_OP_EXP, tg_op(g, TR_OP_NEG, r, NULL, NULL), NULL, NULL));

  g_autoptr(TrGraph) fused = fused_copy(g, NULL);
  g_assert_cmpint(tr_graph_find_node(fused, read->name)->op, ==, TR_GOP_READ_VARIABLE);
  g_assert_cmpint(tr_graph_find_node(fused, b->name)->op, ==, TR_GOP_FUSED); /* Neg, Add, Mul */
  g_assert_cmpint(tr_graph_find_node(fused, q->name)->op, ==, TR_OP_FLOORDIV);
  g_assert_cmpint(tr_graph_find_node(fused, r->name)->op, ==, TR_OP_RANDOM_UNIFORM);
  g_assert_cmpint(count_op(fused, TR_GOP_FUSED), ==, 2); /* and Neg + Exp of the random values */
  g_assert_cmpint(count_op(fused, TR_GOP_PRINT), ==, 1);

  g_autoptr(TrTensor) in = TT(TR_INT32, DIMS(2), VALS(3, -4));
  TgSink want_sink = {g_string_new(NULL), 0}, got_sink = {g_string_new(NULL), 0};
  TrRunContext want_ctx = TG_SINK_CONTEXT(&want_sink), got_ctx = TG_SINK_CONTEXT(&got_sink);
  g_autoptr(TrPlan) want_plan = tr_plan_new(g, NULL, 0, &error);
  g_autoptr(TrPlan) got_plan = tr_plan_new(fused, NULL, 0, &error);
  TrTensor *want[2], *got[2];
  g_assert_true(tr_plan_run(want_plan, &in, 1, want, &want_ctx, &error));
  g_assert_true(tr_plan_run(got_plan, &in, 1, got, &got_ctx, &error));
  g_assert_cmpstr(got_sink.text->str, ==, want_sink.text->str);
  g_assert_cmpstr(got_sink.text->str, ==, "b = [49 576]\n");
  for (int i = 0; i < 2; i++) {
    assert_same_bits(want[i], got[i]);
    tr_tensor_unref(want[i]);
    tr_tensor_unref(got[i]);
  }
  /* Division by zero still fails, naming the FloorDiv node. */
  g_autoptr(TrTensor) zero = TT(TR_INT32, DIMS(2), VALS(0, 1));
  TrTensor *out[2] = {NULL, NULL};
  g_assert_false(tr_plan_run(got_plan, &zero, 1, out, &got_ctx, &error));
  g_assert_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(error->message, q->name));
  g_string_free(want_sink.text, TRUE);
  g_string_free(got_sink.text, TRUE);
}

/* A node with a control input, or one another node waits for, keeps its place. */
static void
test_control_edges_stay(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *x = tg_placeholder(g, TR_FLOAT32, DIMS(2), "x");
  TrNode *a = tg_op(g, TR_OP_EXP, x, NULL, NULL);
  TrNode *b = tg_op(g, TR_OP_TANH, a, NULL, NULL);
  TrNode *c = tg_op(g, TR_OP_SIN, b, NULL, NULL);
  TrNode *noop = tr_graph_add_no_op(g, NULL);
  tr_node_add_control_input(noop, b); /* something waits for b */
  TrNode *d = tg_op(g, TR_OP_COS, c, NULL, NULL);
  tr_node_add_control_input(d, noop);
  tg_output(g, d);
  g_autoptr(TrGraph) fused = fused_copy(g, NULL);
  /* {Exp, Tanh}: b is a root (waited for); c alone; d has a control input. */
  g_assert_cmpint(tr_graph_find_node(fused, b->name)->op, ==, TR_GOP_FUSED);
  g_assert_cmpint(tr_graph_find_node(fused, c->name)->op, ==, TR_OP_SIN);
  g_assert_cmpint(tr_graph_find_node(fused, d->name)->op, ==, TR_OP_COS);
  g_autoptr(TrTensor) in = random_tensor(TR_FLOAT32, DIMS(2));
  assert_fused_matches(g, fused, &in, 1);
}

/* Strings, bools and comparisons are not fused. */
static void
test_other_dtypes_stay(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *s = tg_placeholder(g, TR_STRING, DIMS(2), "s");
  TrNode *ss = tg_op(g, TR_OP_ADD, tg_op(g, TR_OP_ADD, s, s, NULL), s, NULL);
  TrNode *x = tg_placeholder(g, TR_FLOAT32, DIMS(2), "x");
  TrNode *lt = tg_op(g, TR_OP_LESS, tg_op(g, TR_OP_EXP, x, NULL, NULL), x, NULL);
  tg_output(g, ss);
  tg_output(g, tg_op(g, TR_OP_LOGICAL_NOT, lt, NULL, NULL));
  g_autoptr(TrGraph) fused = fused_copy(g, NULL);
  g_assert_cmpint(count_op(fused, TR_GOP_FUSED), ==, 0);
}

/* ---- fused graphs elsewhere --------------------------------------------------------------- */

/* An optimised graph copies and inlines with its fused nodes, which run the same program. */
static void
test_copy_and_inline_fused_graph(void)
{
  g_autoptr(TrGraph) callee = tr_graph_new("__inference_chain_2");
  TrNode *x = tg_placeholder(callee, TR_FLOAT32, DIMS(TR_UNKNOWN), "x");
  tg_output(callee, tanh_chain(callee, x, 10));
  g_autoptr(TrGraph) fused = fused_copy(callee, NULL);
  g_autoptr(TrGraph) copy = tr_graph_copy(fused);
  g_assert_cmpint(count_op(copy, TR_GOP_FUSED), ==, 1);

  g_autoptr(TrGraph) g = tr_graph_new("__inference_outer_3");
  TrNode *y = tg_placeholder(g, TR_FLOAT32, DIMS(3), "y");
  TrOutput in = OUT(y), out;
  g_autoptr(GError) error = NULL;
  g_assert_true(tr_graph_inline(g, copy, &in, 1, &out, 1, "chain", &error));
  g_assert_no_error(error);
  tg_output(g, out.node);
  TrNode *inlined = NULL;
  for (int i = 0; i < tr_graph_n_nodes(g); i++)
    if (tr_graph_node(g, i)->op == TR_GOP_FUSED)
      inlined = tr_graph_node(g, i);
  g_assert_nonnull(inlined);
  g_assert_true(g_str_has_prefix(inlined->name, "chain/"));
  g_assert_cmpint(inlined->shapes[0].dims[0], ==, 3); /* the new input's shape */

  g_autoptr(TrTensor) v = random_tensor(TR_FLOAT32, DIMS(3));
  g_autoptr(TrTensor) want = tg_run(callee, &v, 1, 0);
  g_autoptr(TrTensor) got_copy = tg_run(copy, &v, 1, 0);
  g_autoptr(TrTensor) got_inlined = tg_run(g, &v, 1, 0);
  assert_same_bits(want, got_copy);
  assert_same_bits(want, got_inlined);
}

/* A warm plan runs a fused node into a recycled buffer. */
static void
test_fused_outputs_are_pooled(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *x = tg_placeholder(g, TR_FLOAT32, DIMS(64), "x");
  TrNode *a = tanh_chain(g, x, 3);
  TrNode *b = tg_op(g, TR_OP_SUM, a, NULL, NULL); /* not elementwise: reads a, then a dies */
  tg_output(g, tg_op(g, TR_OP_EXP, tg_op(g, TR_OP_NEG, b, NULL, NULL), NULL, NULL));
  g_autoptr(TrGraph) fused = fused_copy(g, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(TrPlan) plan = tr_plan_new(fused, NULL, 0, &error);
  g_autoptr(TrTensor) in = random_tensor(TR_FLOAT32, DIMS(64));
  for (int i = 0; i < 3; i++) {
    TrTensor *out = NULL;
    g_assert_true(tr_plan_run(plan, &in, 1, &out, NULL, &error));
    tr_tensor_unref(out);
  }
  TrPlanStats stats;
  tr_plan_get_stats(plan, &stats);
  g_assert_cmpint(stats.reuses, >, 0);
  g_assert_cmpint(stats.allocations, <=, 3 + 2);
}

/* Inside a While body the chain is fused too, and the loop computes the same. */
static void
test_fusion_reaches_while_body(void)
{
  g_autoptr(TrGraph) cond = tr_graph_new("while_cond");
  TrNode *ci = tg_placeholder(cond, TR_INT32, NODIMS, "i");
  tg_placeholder(cond, TR_FLOAT32, DIMS(4), "v");
  tg_output(cond, tg_op(cond, TR_OP_LESS, ci, tg_const(cond, tr_tensor_new_int32(20)), NULL));
  g_autoptr(TrGraph) body = tr_graph_new("while_body");
  TrNode *bi = tg_placeholder(body, TR_INT32, NODIMS, "i");
  TrNode *bv = tg_placeholder(body, TR_FLOAT32, DIMS(4), "v");
  tg_output(body, tg_op(body, TR_OP_ADD, bi, tg_const(body, tr_tensor_new_int32(1)), NULL));
  tg_output(body, tanh_chain(body, bv, 4));
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *v = tg_placeholder(g, TR_FLOAT32, DIMS(4), "v");
  TrNode *zero = tg_const(g, tr_tensor_new_int32(0));
  TrOutput in[2] = {OUT(zero), OUT(v)};
  g_autoptr(GError) error = NULL;
  TrNode *loop = tr_graph_add_while(g, cond, body, in, 2, NULL, &error);
  g_assert_no_error(error);
  tg_output(g, loop);
  g_assert_true(tr_graph_add_output(g, tr_node_output(loop, 1), &error) != NULL);
  g_autoptr(TrGraph) fused = fused_copy(g, NULL);
  TrGraph *fused_body = tr_graph_find_node(fused, "while")->children[1];
  g_assert_cmpint(count_op(fused_body, TR_GOP_FUSED), ==, 1);
  g_autoptr(TrTensor) x = random_tensor(TR_FLOAT32, DIMS(4));
  assert_fused_matches(g, fused, &x, 1);
}

void
tg_add_fuse_tests(void)
{
  g_test_add_func("/graph/fuse/chain-becomes-one-node", test_chain_becomes_one_node);
  g_test_add_func("/graph/fuse/random-graphs-bitwise/float32", test_random_float32);
  g_test_add_func("/graph/fuse/random-graphs-bitwise/float64", test_random_float64);
  g_test_add_func("/graph/fuse/random-graphs-bitwise/integers", test_random_integers);
  g_test_add_func("/graph/fuse/broadcast-inputs", test_broadcast_inputs);
  g_test_add_func("/graph/fuse/differing-shapes-split-groups", test_differing_shapes_split_groups);
  g_test_add_func("/graph/fuse/partial-shapes", test_partial_shapes);
  g_test_add_func("/graph/fuse/shared-values-stay-roots", test_shared_values_stay_roots);
  g_test_add_func("/graph/fuse/diamond-is-fused", test_diamond_is_fused);
  g_test_add_func("/graph/fuse/stateful-and-failing-ops-stay", test_stateful_and_failing_ops_stay);
  g_test_add_func("/graph/fuse/control-edges-stay", test_control_edges_stay);
  g_test_add_func("/graph/fuse/other-dtypes-stay", test_other_dtypes_stay);
  g_test_add_func("/graph/fuse/copy-and-inline", test_copy_and_inline_fused_graph);
  g_test_add_func("/graph/fuse/outputs-are-pooled", test_fused_outputs_are_pooled);
  g_test_add_func("/graph/fuse/reaches-while-body", test_fusion_reaches_while_body);
}
