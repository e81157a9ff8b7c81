/* test-optimize.c — optimisation passes: node counts before and after, and optimised graphs
 * computing the same values as the traced ones. */
#include "test-graph.h"

static TrTensor *
run_graph(TrGraph *g, TrTensor *x)
{
  return tg_run(g, &x, 1, 0);
}

static void
test_constant_folding(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *x = tg_placeholder(g, TR_FLOAT32, DIMS(3), "x");
  TrNode *two = tg_const(g, tr_tensor_new_float32(2));
  TrNode *three = tg_const(g, tr_tensor_new_float32(3));
  TrNode *six = tg_op(g, TR_OP_MUL, two, three, NULL);
  TrNode *seven = tg_op(g, TR_OP_ADD, six, tg_const(g, tr_tensor_new_float32(1)), NULL);
  TrNode *sq = tg_op(g, TR_OP_SQRT, seven, NULL, NULL);
  tg_output(g, tg_op(g, TR_OP_MUL, x, sq, NULL));
  g_assert_cmpint(tr_graph_n_nodes(g), ==, 9);

  g_autoptr(TrGraph) opt = tr_graph_copy(g);
  TrOptReport report;
  tr_graph_optimize(opt, TR_OPT_CONSTANT_FOLDING | TR_OPT_DEAD_NODES, &report);
  g_assert_cmpint(report.n_passes, ==, 2);
  g_assert_cmpstr(report.passes[0].pass, ==, "constant-folding");
  g_assert_cmpint(report.passes[0].changed, ==, 3);
  g_assert_cmpint(report.passes[0].nodes_before, ==, 9);
  g_assert_cmpint(report.passes[0].nodes_after, ==, 4);
  g_assert_cmpstr(report.passes[1].pass, ==, "dead-nodes");
  g_assert_cmpint(report.passes[1].changed, ==, 5);
  /* x, the folded sqrt (now a Const keeping its name), mul_1, Identity. */
  g_assert_cmpint(tr_graph_n_nodes(opt), ==, 4);
  TrNode *folded = tr_graph_find_node(opt, "Sqrt");
  g_assert_nonnull(folded);
  g_assert_cmpstr(folded->type, ==, "Const");
  g_assert_cmpfloat_with_epsilon(tr_tensor_get_f64(folded->value, 0), 2.6457513, 1e-6);
  /* The traced graph is untouched. */
  g_assert_cmpint(tr_graph_n_nodes(g), ==, 9);
  g_assert_cmpstr(tr_graph_find_node(g, "Sqrt")->type, ==, "Sqrt");

  g_autoptr(TrTensor) in = TT(TR_FLOAT32, DIMS(3), VALS(1, 2, 3));
  g_autoptr(TrTensor) want = run_graph(g, in);
  g_autoptr(TrTensor) got = run_graph(opt, in);
  g_assert_true(tr_tensor_equal(want, got));
}

static void
test_folding_leaves_runtime_errors(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *x = tg_placeholder(g, TR_INT32, NODIMS, "x");
  TrNode *q = tg_op(g, TR_OP_FLOORDIV, tg_const(g, tr_tensor_new_int32(1)),
                    tg_const(g, tr_tensor_new_int32(0)), NULL);
  tg_output(g, tg_op(g, TR_OP_ADD, x, q, NULL));
  TrOptReport report;
  tr_graph_optimize(g, TR_OPT_ALL, &report);
  g_assert_cmpstr(tr_graph_find_node(g, "floordiv")->type, ==, "FloorDiv");
  g_autoptr(GError) error = NULL;
  g_autoptr(TrPlan) plan = tr_plan_new(g, NULL, 0, &error);
  g_autoptr(TrTensor) in = tr_tensor_new_int32(1);
  TrTensor *out = NULL;
  g_assert_false(tr_plan_run(plan, &in, 1, &out, NULL, &error));
  g_assert_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT);
}

static void
test_common_subexpressions(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *x = tg_placeholder(g, TR_FLOAT32, DIMS(TR_UNKNOWN), "x");
  TrNode *y = tg_placeholder(g, TR_FLOAT32, DIMS(TR_UNKNOWN), "y");
  TrNode *s1 = tg_op(g, TR_OP_ADD, x, y, NULL);
  TrNode *s2 = tg_op(g, TR_OP_ADD, y, x, NULL); /* commutative: the same sum */
  TrNode *e1 = tg_op(g, TR_OP_EXP, s1, NULL, NULL);
  TrNode *e2 = tg_op(g, TR_OP_EXP, s2, NULL, NULL);
  TrNode *d = tg_op(g, TR_OP_SUB, x, y, NULL);
  TrNode *d2 = tg_op(g, TR_OP_SUB, y, x, NULL); /* not commutative: differs */
  TrNode *m = tg_op(g, TR_OP_MUL, e1, e2, NULL);
  tg_output(g, tg_op(g, TR_OP_ADD, tg_op(g, TR_OP_ADD, m, d, NULL), d2, NULL));
  g_assert_cmpint(tr_graph_n_nodes(g), ==, 12);

  g_autoptr(TrGraph) opt = tr_graph_copy(g);
  TrOptReport report;
  tr_graph_optimize(opt, TR_OPT_CSE | TR_OPT_DEAD_NODES, &report);
  g_assert_cmpstr(report.passes[0].pass, ==, "cse");
  g_assert_cmpint(report.passes[0].changed, ==, 2);
  g_assert_cmpint(report.passes[0].nodes_before, ==, 12);
  g_assert_cmpint(report.passes[0].nodes_after, ==, 10);
  g_assert_cmpint(tr_graph_n_nodes(opt), ==, 10);
  TrNode *mul = tr_graph_find_node(opt, "mul");
  g_assert_true(mul->inputs[0].node == mul->inputs[1].node);

  g_autoptr(TrTensor) a = TT(TR_FLOAT32, DIMS(2), VALS(0.5, 1));
  g_autoptr(TrTensor) b = TT(TR_FLOAT32, DIMS(2), VALS(-1, 2));
  TrTensor *in[2] = {a, b};
  g_autoptr(TrTensor) want = tg_run(g, in, 2, 0);
  g_autoptr(TrTensor) got = tg_run(opt, in, 2, 0);
  g_assert_true(tr_tensor_equal(want, got));
}

static void
test_cse_respects_attrs_and_state(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *x = tg_placeholder(g, TR_FLOAT32, DIMS(2, 3), "x");
  TrAttrs a0, a1;
  tr_attrs_init(&a0);
  a0.n_axes = 1;
  a0.axes[0] = 0;
  a1 = a0;
  a1.axes[0] = 1;
  TrOutput in = OUT(x);
  g_autoptr(GError) error = NULL;
  TrNode *s0 = tr_graph_add_op(g, TR_OP_SUM, &in, 1, &a0, NULL, &error);
  TrNode *s1 = tr_graph_add_op(g, TR_OP_SUM, &in, 1, &a1, NULL, &error);
  tg_output(g, s0);
  tg_output(g, s1);
  g_autoptr(TrVariable) v = tg_variable(tr_tensor_new_float32(1), NULL);
  TrNode *h = tr_graph_capture_variable(g, v, NULL);
  tr_graph_add_read_variable(g, OUT(h), NULL, &error);
  tr_graph_add_read_variable(g, OUT(h), NULL, &error);
  g_assert_no_error(error);
  int before = tr_graph_n_nodes(g);
  tr_graph_optimize(g, TR_OPT_ALL, NULL);
  /* Different axes do not merge; stateful reads are never merged or dropped. */
  g_assert_cmpint(tr_graph_n_nodes(g), ==, before);
}

static void
test_dead_nodes(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *x = tg_placeholder(g, TR_FLOAT32, NODIMS, "x");
  TrNode *unused = tg_placeholder(g, TR_FLOAT32, NODIMS, "unused");
  tg_op(g, TR_OP_EXP, x, NULL, NULL);
  tg_op(g, TR_OP_LOG, unused, NULL, NULL);
  g_autoptr(GError) error = NULL;
  TrNode *s = tr_graph_add_string_format(g, "x is {}", (TrOutput[]){OUT(x)}, 1, 3, NULL, &error);
  tr_graph_add_print(g, OUT(s), NULL, false, NULL, &error);
  tg_output(g, tg_op(g, TR_OP_NEG, x, NULL, NULL));
  g_assert_cmpint(tr_graph_n_nodes(g), ==, 8);
  g_assert_cmpint(tr_graph_n_live_nodes(g), ==, 6);
  TrOptReport report;
  tr_graph_optimize(g, TR_OPT_DEAD_NODES, &report);
  g_assert_cmpint(report.n_passes, ==, 1);
  g_assert_cmpint(report.passes[0].changed, ==, 2);
  g_assert_cmpint(report.passes[0].nodes_after, ==, 6);
  g_autofree char *listing = tr_graph_def_listing(g);
  g_assert_cmpstr(listing, ==,
                  "[] -> x\n"
                  "[] -> unused\n"
                  "['x'] -> StringFormat\n"
                  "['StringFormat'] -> PrintV2\n"
                  "['x'] -> Neg\n"
                  "['Neg'] -> Identity\n");
  g_assert_true(tr_graph_node(g, 4)->id == 4);
  g_assert_cmpint(tr_graph_n_inputs(g), ==, 2);
}

/* A graph mixing constants, duplicates and live inputs: all passes together keep its values. */
static void
test_optimised_graphs_compute_same_values(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *x = tg_placeholder(g, TR_FLOAT64, DIMS(TR_UNKNOWN, 2), "x");
  TrNode *c = tg_op(g, TR_OP_EXP, tg_const(g, tr_tensor_new_float64(0.5)), NULL, NULL);
  TrNode *k = tg_const(g, TT(TR_FLOAT64, DIMS(2), VALS(1, -1)));
  TrNode *y = x;
  for (int i = 0; i < 20; i++) {
    TrNode *t1 = tg_op(g, TR_OP_MUL, y, c, NULL);
    TrNode *t2 = tg_op(g, TR_OP_MUL, c, y, NULL);
    TrNode *u = tg_op(g, TR_OP_ADD, t1, t2, NULL);
    y = tg_op(g, TR_OP_TANH, tg_op(g, TR_OP_ADD, u, k, NULL), NULL, NULL);
  }
  tg_output(g, y);
  g_autoptr(TrGraph) opt = tr_graph_copy(g);
  TrOptReport report;
  tr_graph_optimize(opt, TR_OPT_ALL, &report);
  g_assert_cmpint(report.n_passes, ==, 5);
  const char *order[5] = {"cse", "constant-folding", "cse", "fusion", "dead-nodes"};
  for (int i = 0; i < report.n_passes; i++) {
    g_test_message("%s: %d -> %d nodes (%d changed)", report.passes[i].pass,
                   report.passes[i].nodes_before, report.passes[i].nodes_after,
                   report.passes[i].changed);
    g_assert_cmpstr(report.passes[i].pass, ==, order[i]);
    if (i > 0)
      g_assert_cmpint(report.passes[i].nodes_before, ==, report.passes[i - 1].nodes_after);
  }
  /* CSE merges y * c with c * y: x, c (folded), k, 80 ops and Identity; then the 80 ops (all of
   * shape [None, 2]) become one fused node. */
  g_assert_cmpint(report.passes[2].nodes_after, ==, 3 + 20 * 4 + 1);
  g_assert_cmpint(report.passes[3].changed, ==, 20 * 4 - 1);
  g_assert_cmpint(tr_graph_n_nodes(opt), ==, 3 + 1 + 1);
  /* Without fusion, the same passes keep the 80 ops. */
  g_autoptr(TrGraph) unfused = tr_graph_copy(g);
  tr_graph_optimize(unfused, TR_OPT_ALL & ~TR_OPT_FUSION, &report);
  g_assert_cmpint(report.n_passes, ==, 4);
  g_assert_cmpint(tr_graph_n_nodes(unfused), ==, 3 + 20 * 4 + 1);
  g_autoptr(TrTensor) in = TT(TR_FLOAT64, DIMS(3, 2), VALS(0.1, 0.2, -0.3, 0.4, 1, -2));
  g_autoptr(TrTensor) want = run_graph(g, in);
  g_autoptr(TrTensor) got = run_graph(opt, in);
  g_assert_true(tr_tensor_equal(want, got));
}

void
tg_add_optimize_tests(void)
{
  g_test_add_func("/graph/optimize/constant-folding", test_constant_folding);
  g_test_add_func("/graph/optimize/folding-leaves-runtime-errors",
                  test_folding_leaves_runtime_errors);
  g_test_add_func("/graph/optimize/common-subexpressions", test_common_subexpressions);
  g_test_add_func("/graph/optimize/cse-respects-attrs-and-state",
                  test_cse_respects_attrs_and_state);
  g_test_add_func("/graph/optimize/dead-nodes", test_dead_nodes);
  g_test_add_func("/graph/optimize/optimised-graphs-compute-same-values",
                  test_optimised_graphs_compute_same_values);
}
