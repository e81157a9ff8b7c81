/* test-graph.c — the core/graph test program: shared helpers and main. */
#include "test-graph.h"

TrNode *
tg_placeholder(TrGraph *g, TrDType dtype, int rank, const int64_t *dims, const char *name)
{
  TrShape shape = rank == TR_UNKNOWN ? tr_shape_unknown() : tr_shape_make(rank, dims);
  TrNode *node = tr_graph_add_placeholder(g, dtype, &shape, name);
  g_assert_nonnull(node);
  return node;
}

TrNode *
tg_op(TrGraph *g, TrOpId op, TrNode *a, TrNode *b, const char *name)
{
  TrOutput in[2] = {OUT(a), b ? OUT(b) : OUT(a)};
  g_autoptr(GError) error = NULL;
  TrNode *node = tr_graph_add_op(g, op, in, b ? 2 : 1, NULL, name, &error);
  g_assert_no_error(error);
  g_assert_nonnull(node);
  return node;
}

TrNode *
tg_const(TrGraph *g, TrTensor *value)
{
  TrNode *node = tr_graph_add_const(g, value, NULL);
  tr_tensor_unref(value);
  return node;
}

TrVariable *
tg_variable(TrTensor *initial, const char *name)
{
  TrVariable *var = tr_variable_new(initial, name);
  tr_tensor_unref(initial);
  return var;
}

TrNode *
tg_output(TrGraph *g, TrNode *value)
{
  g_autoptr(GError) error = NULL;
  TrNode *node = tr_graph_add_output(g, OUT(value), &error);
  g_assert_no_error(error);
  return node;
}

TrTensor *
tg_run(TrGraph *g, TrTensor *const *inputs, int n_inputs, int which)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrPlan) plan = tr_plan_new(g, NULL, 0, &error);
  g_assert_no_error(error);
  int n = tr_plan_n_outputs(plan);
  g_assert_cmpint(which, <, n);
  g_autofree TrTensor **outs = g_new0(TrTensor *, n);
  bool ok = tr_plan_run(plan, inputs, n_inputs, outs, NULL, &error);
  g_assert_no_error(error);
  g_assert_true(ok);
  for (int i = 0; i < n; i++)
    if (i != which)
      tr_tensor_unref(outs[i]);
  return outs[which];
}

void
tg_sink_write(const char *text, size_t len, bool to_stderr, void *user)
{
  TgSink *sink = user;
  g_string_append_len(sink->text, text, (gssize)len);
  sink->calls++;
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  tg_add_build_tests();
  tg_add_export_tests();
  tg_add_exec_tests();
  tg_add_optimize_tests();
  tg_add_inline_tests();
  tg_add_while_tests();
  tg_add_fuse_tests();
  return g_test_run();
}
