/* test-while.c — tf.while_loop's While node: loops that count, sum, print and assign; shapes
 * relaxed against the body's results; the mistakes tracing can make; and the node in exports,
 * copies, the optimiser, inlining and the executor (nested loops, runtime errors). */
#include "test-graph.h"

#include <string.h>

/* ---- building loops ------------------------------------------------------------------------ */

/* The loop variables as scalar int32 placeholders i, v1, v2, ... of a new child graph. */
static TrGraph *
scalar_loop_graph(const char *name, int n_vars, TrNode **vars)
{
  TrGraph *g = tr_graph_new(name);
  for (int k = 0; k < n_vars; k++) {
    g_autofree char *var_name = k == 0 ? g_strdup("i") : g_strdup_printf("v%d", k);
    vars[k] = tg_placeholder(g, TR_INT32, NODIMS, var_name);
  }
  return g;
}

/* cond(i, ...) = i < limit. */
static TrGraph *
less_than(int n_vars, int limit)
{
  TrNode *vars[4];
  TrGraph *cond = scalar_loop_graph("while_cond", n_vars, vars);
  TrNode *bound = tg_const(cond, tr_tensor_new_int32(limit));
  tg_output(cond, tg_op(cond, TR_OP_LESS, vars[0], bound, NULL));
  return cond;
}

/* body(i) = i + 1. */
static TrGraph *
increment(void)
{
  TrNode *i;
  TrGraph *body = scalar_loop_graph("while_body", 1, &i);
  TrNode *one = tg_const(body, tr_tensor_new_int32(1));
  tg_output(body, tg_op(body, TR_OP_ADD, i, one, NULL));
  return body;
}

/* A While that must build; it takes its own references on cond and body (consumed here). */
static TrNode *
while_ok(TrGraph *g, TrGraph *cond, TrGraph *body, const TrOutput *inputs, int n)
{
  g_autoptr(GError) error = NULL;
  TrNode *node = tr_graph_add_while(g, cond, body, inputs, n, NULL, &error);
  g_assert_no_error(error);
  g_assert_nonnull(node);
  tr_graph_unref(cond);
  tr_graph_unref(body);
  return node;
}

/* Plan `outputs` (NULL: the graph's), run once with `ctx`, fill `results` (transfer full). */
static void
run_ok(TrGraph *g, const TrOutput *outputs, int n_outputs, TrTensor *const *feed, int n_feed,
       const TrRunContext *ctx, TrTensor **results)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrPlan) plan = tr_plan_new(g, outputs, n_outputs, &error);
  g_assert_no_error(error);
  g_assert_true(tr_plan_run(plan, feed, n_feed, results, ctx, &error));
  g_assert_no_error(error);
}

/* tf.function def count(x): return tf.while_loop(lambda i: i < 10, lambda i: i + 1, [x]) */
static TrGraph *
counter_graph(void)
{
  TrGraph *g = tr_graph_new("__inference_count_7");
  TrNode *x = tg_placeholder(g, TR_INT32, NODIMS, "x");
  TrOutput in[1] = {OUT(x)};
  tg_output(g, while_ok(g, less_than(1, 10), increment(), in, 1));
  return g;
}

/* ---- running loops ------------------------------------------------------------------------- */

static void
test_counter(void)
{
  g_autoptr(TrGraph) g = counter_graph();
  TrNode *loop = tr_graph_find_node(g, "while");
  g_assert_nonnull(loop);
  g_assert_cmpstr(loop->type, ==, "While");
  g_assert_cmpint(loop->op, ==, TR_GOP_WHILE);
  g_assert_cmpint(loop->n_outputs, ==, 1);
  g_assert_cmpint(loop->n_children, ==, 2);
  g_assert_cmpstr(tr_graph_name(loop->children[0]), ==, "while_cond");
  g_assert_cmpstr(tr_graph_name(loop->children[1]), ==, "while_body");
  g_assert_true(tr_graph_parent(loop->children[0]) == g);
  g_assert_true(tr_graph_parent(loop->children[1]) == g);
  /* Nothing in cond or body has an effect: the loop is pure. */
  g_assert_false(loop->stateful);
  g_autofree char *s = tr_output_to_string(OUT(loop));
  g_assert_cmpstr(s, ==, "Tensor(\"while:0\", shape=(), dtype=int32)");

  g_autoptr(TrTensor) zero = tr_tensor_new_int32(0);
  g_autoptr(TrTensor) ten = tg_run(g, &zero, 1, 0);
  tt_assert_tensor(ten, TR_INT32, NODIMS, VALS(10), 0);
  /* cond is false at once: body never runs and the input comes back. */
  g_autoptr(TrTensor) twelve = tr_tensor_new_int32(12);
  g_autoptr(TrTensor) same = tg_run(g, &twelve, 1, 0);
  tt_assert_tensor(same, TR_INT32, NODIMS, VALS(12), 0);
}

/* i, acc = tf.while_loop(lambda i, acc: i < 5, lambda i, acc: (i + 1, acc + i), [0, 0]) */
static void
test_two_variables_sum(void)
{
  TrNode *vars[2];
  TrGraph *body = scalar_loop_graph("while_body", 2, vars);
  TrNode *one = tg_const(body, tr_tensor_new_int32(1));
  tg_output(body, tg_op(body, TR_OP_ADD, vars[0], one, NULL));
  tg_output(body, tg_op(body, TR_OP_ADD, vars[1], vars[0], NULL));

  g_autoptr(TrGraph) g = tr_graph_new("__inference_sum_2");
  TrNode *zero = tg_const(g, tr_tensor_new_int32(0));
  TrOutput in[2] = {OUT(zero), OUT(zero)};
  TrNode *loop = while_ok(g, less_than(2, 5), body, in, 2);
  g_assert_cmpint(loop->n_outputs, ==, 2);
  TrOutput acc = tr_node_output(loop, 1);
  g_autofree char *name = tr_output_name(acc);
  g_assert_cmpstr(name, ==, "while:1");
  g_autofree char *input = tr_output_input_string(acc);
  g_assert_cmpstr(input, ==, "while:1");
  g_autofree char *s = tr_output_to_string(acc);
  g_assert_cmpstr(s, ==, "Tensor(\"while:1\", shape=(), dtype=int32)");

  TrOutput both[2] = {OUT(loop), acc};
  TrTensor *got[2];
  run_ok(g, both, 2, NULL, 0, NULL, got);
  tt_assert_tensor(got[0], TR_INT32, NODIMS, VALS(5), 0);
  tt_assert_tensor(got[1], TR_INT32, NODIMS, VALS(0 + 1 + 2 + 3 + 4), 0);
  tr_tensor_unref(got[0]);
  tr_tensor_unref(got[1]);

  /* Only the sum is asked for: the loop still runs, its unused output is released at once. */
  tg_output(g, tg_op(g, TR_OP_MUL, loop, loop, NULL)); /* i * i, not asked for below */
  TrTensor *sum;
  run_ok(g, &acc, 1, NULL, 0, NULL, &sum);
  tt_assert_tensor(sum, TR_INT32, NODIMS, VALS(10), 0);
  tr_tensor_unref(sum);
}

/* body(i): tf.print("i =", i); return i + 1 */
static TrGraph *
printing_body(void)
{
  TrNode *i;
  TrGraph *body = scalar_loop_graph("while_body", 1, &i);
  TrPrintArg args[2] = {{.text = "i ="}, {.tensor = OUT(i)}};
  g_autoptr(GError) error = NULL;
  g_assert_nonnull(tr_graph_add_tf_print(body, args, 2, NULL, NULL, &error));
  g_assert_no_error(error);
  TrNode *one = tg_const(body, tr_tensor_new_int32(1));
  tg_output(body, tg_op(body, TR_OP_ADD, i, one, NULL));
  return body;
}

/* The loop's only effect is printing: the outer graph returns nothing, yet the loop runs, and
 * its prints reach the run's sink. */
static void
test_print_each_iteration(void)
{
  g_autoptr(TrGraph) g = tr_graph_new("__inference_show_3");
  TrNode *zero = tg_const(g, tr_tensor_new_int32(0));
  TrOutput in[1] = {OUT(zero)};
  TrNode *loop = while_ok(g, less_than(1, 3), printing_body(), in, 1);
  g_assert_true(loop->stateful);

  TgSink sink = {g_string_new(NULL), 0};
  TrRunContext ctx = TG_SINK_CONTEXT(&sink);
  g_autoptr(GError) error = NULL;
  g_autoptr(TrPlan) plan = tr_plan_new(g, NULL, 0, &error);
  g_assert_no_error(error);
  g_assert_cmpint(tr_plan_n_outputs(plan), ==, 0);
  g_assert_true(tr_plan_run(plan, NULL, 0, NULL, &ctx, &error));
  g_assert_no_error(error);
  g_assert_cmpstr(sink.text->str, ==, "i = 0\ni = 1\ni = 2\n");
  g_assert_cmpint(sink.calls, ==, 3);
  /* A second run of the same plan prints the same three lines. */
  g_assert_true(tr_plan_run(plan, NULL, 0, NULL, &ctx, &error));
  g_assert_cmpint(sink.calls, ==, 6);
  g_string_free(sink.text, TRUE);
}

/* v = tf.Variable(0)
 * tf.function def f(): tf.while_loop(lambda i: i < 4, lambda i: (v.assign_add(i), i + 1)[1], [0])
 *                      return v.read_value() */
static void
test_assign_variable(void)
{
  g_autoptr(TrVariable) v = tg_variable(tr_tensor_new_int32(0), "v");
  g_autoptr(GError) error = NULL;
  TrNode *i;
  TrGraph *body = scalar_loop_graph("while_body", 1, &i);
  TrNode *bh = tr_graph_capture_variable(body, v, "v");
  g_assert_nonnull(tr_graph_add_assign_variable(body, TR_GOP_ASSIGN_ADD_VARIABLE, OUT(bh), OUT(i),
                                                NULL, &error));
  g_assert_no_error(error);
  TrNode *one = tg_const(body, tr_tensor_new_int32(1));
  tg_output(body, tg_op(body, TR_OP_ADD, i, one, NULL));
  /* The handle is body's own, not a loop variable. */
  g_assert_cmpint(tr_graph_n_inputs(body), ==, 1);

  g_autoptr(TrGraph) g = tr_graph_new("__inference_f_4");
  TrNode *h = tr_graph_capture_variable(g, v, "v");
  TrNode *zero = tg_const(g, tr_tensor_new_int32(0));
  TrOutput in[1] = {OUT(zero)};
  TrNode *loop = while_ok(g, less_than(1, 4), body, in, 1);
  g_assert_true(loop->stateful);
  TrNode *read = tr_graph_add_read_variable(g, OUT(h), NULL, &error);
  g_assert_no_error(error);
  /* The read follows the loop (automatic control dependencies). */
  g_assert_cmpint(read->n_control, ==, 1);
  g_assert_true(read->control[0] == loop);
  tg_output(g, read);

  g_autoptr(TrTensor) got = tg_run(g, NULL, 0, 0);
  tt_assert_tensor(got, TR_INT32, NODIMS, VALS(0 + 1 + 2 + 3), 0);
  tt_assert_tensor(v->value, TR_INT32, NODIMS, VALS(6), 0);
  g_autoptr(TrTensor) again = tg_run(g, NULL, 0, 0);
  tt_assert_tensor(again, TR_INT32, NODIMS, VALS(12), 0);
}

/* A loop inside a loop: total counts 0 + 1 + 2 + 3 inner rounds; the inner loop's plans belong
 * to the outer body's plan. */
static void
test_nested_loops(void)
{
  /* inner: (j, n, acc) while j < n: (j + 1, n, acc + 1) */
  TrNode *iv[3];
  TrGraph *inner_cond = scalar_loop_graph("inner_cond", 3, iv);
  tg_output(inner_cond, tg_op(inner_cond, TR_OP_LESS, iv[0], iv[1], NULL));
  TrGraph *inner_body = scalar_loop_graph("inner_body", 3, iv);
  TrNode *one = tg_const(inner_body, tr_tensor_new_int32(1));
  tg_output(inner_body, tg_op(inner_body, TR_OP_ADD, iv[0], one, NULL));
  tg_output(inner_body, iv[1]);
  tg_output(inner_body, tg_op(inner_body, TR_OP_ADD, iv[2], one, NULL));

  /* outer: (i, total) while i < 4: (i + 1, inner(0, i, total)[2]) */
  TrNode *ov[2];
  TrGraph *outer_body = scalar_loop_graph("outer_body", 2, ov);
  TrNode *zero = tg_const(outer_body, tr_tensor_new_int32(0));
  TrOutput inner_in[3] = {OUT(zero), OUT(ov[0]), OUT(ov[1])};
  TrNode *inner = while_ok(outer_body, inner_cond, inner_body, inner_in, 3);
  TrNode *one_more = tg_const(outer_body, tr_tensor_new_int32(1));
  tg_output(outer_body, tg_op(outer_body, TR_OP_ADD, ov[0], one_more, NULL));
  g_autoptr(GError) error = NULL;
  g_assert_nonnull(tr_graph_add_output(outer_body, tr_node_output(inner, 2), &error));
  g_assert_no_error(error);

  g_autoptr(TrGraph) g = tr_graph_new("__inference_nested_1");
  TrNode *start = tg_const(g, tr_tensor_new_int32(0));
  TrOutput in[2] = {OUT(start), OUT(start)};
  TrNode *outer = while_ok(g, less_than(2, 4), outer_body, in, 2);
  TrOutput total = tr_node_output(outer, 1);
  TrTensor *got;
  run_ok(g, &total, 1, NULL, 0, NULL, &got);
  tt_assert_tensor(got, TR_INT32, NODIMS, VALS(0 + 1 + 2 + 3), 0);
  tr_tensor_unref(got);
}

/* An error inside body fails the run with TensorFlow's text, naming body's node and the loop. */
static void
test_runtime_error_propagates(void)
{
  /* (i, d) while i < 3: (i + i // d + 1, d), with d fed at run time */
  TrNode *vars[2];
  TrGraph *body = scalar_loop_graph("while_body", 2, vars);
  TrNode *q = tg_op(body, TR_OP_FLOORDIV, vars[0], vars[1], NULL);
  TrNode *one = tg_const(body, tr_tensor_new_int32(1));
  TrNode *sum = tg_op(body, TR_OP_ADD, vars[0], q, NULL);
  tg_output(body, tg_op(body, TR_OP_ADD, sum, one, NULL));
  tg_output(body, vars[1]);

  g_autoptr(TrGraph) g = tr_graph_new("__inference_bad_5");
  TrNode *d = tg_placeholder(g, TR_INT32, NODIMS, "d");
  TrNode *zero = tg_const(g, tr_tensor_new_int32(0));
  TrOutput in[2] = {OUT(zero), OUT(d)};
  TrNode *loop = while_ok(g, less_than(2, 3), body, in, 2);
  tg_output(g, loop);

  g_autoptr(GError) error = NULL;
  g_autoptr(TrPlan) plan = tr_plan_new(g, NULL, 0, &error);
  g_assert_no_error(error);
  g_autoptr(TrTensor) zero_d = tr_tensor_new_int32(0);
  TrTensor *out = NULL;
  g_assert_false(tr_plan_run(plan, &zero_d, 1, &out, NULL, &error));
  g_assert_null(out);
  g_assert_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr(error->message, ==,
                  "Integer division by zero\n\t [[{{node floordiv}}]]\n\t [[{{node while}}]] "
                  "[Op:__inference_bad_5]");
  g_clear_error(&error);
  /* The plan is usable again after the failure. */
  g_autoptr(TrTensor) two = tr_tensor_new_int32(2);
  g_assert_true(tr_plan_run(plan, &two, 1, &out, NULL, &error));
  g_assert_no_error(error);
  tt_assert_tensor(out, TR_INT32, NODIMS, VALS(4), 0); /* 0 -> 1 -> 2 -> 2 + 1 + 1 */
  tr_tensor_unref(out);
}

/* ---- shapes -------------------------------------------------------------------------------- */

/* (i, x) while i < 3: (i + 1, concat([x, x])), x = [1] traced as (None,) in cond and body. */
static void
test_growing_shape_relaxes(void)
{
  TrNode *cv[2], *bv[2];
  TrGraph *cond = tr_graph_new("while_cond");
  cv[0] = tg_placeholder(cond, TR_INT32, NODIMS, "i");
  cv[1] = tg_placeholder(cond, TR_FLOAT32, DIMS(TR_UNKNOWN), "x");
  TrNode *three = tg_const(cond, tr_tensor_new_int32(3));
  tg_output(cond, tg_op(cond, TR_OP_LESS, cv[0], three, NULL));
  TrGraph *body = tr_graph_new("while_body");
  bv[0] = tg_placeholder(body, TR_INT32, NODIMS, "i");
  bv[1] = tg_placeholder(body, TR_FLOAT32, DIMS(TR_UNKNOWN), "x");
  TrNode *one = tg_const(body, tr_tensor_new_int32(1));
  tg_output(body, tg_op(body, TR_OP_ADD, bv[0], one, NULL));
  tg_output(body, tg_op(body, TR_OP_CONCAT, bv[1], bv[1], NULL));

  g_autoptr(TrGraph) g = tr_graph_new("__inference_grow_6");
  TrNode *i0 = tg_const(g, tr_tensor_new_int32(0));
  TrNode *x0 = tg_const(g, TT(TR_FLOAT32, DIMS(1), VALS(1.5)));
  g_assert_cmpint(x0->shapes[0].dims[0], ==, 1);
  TrOutput in[2] = {OUT(i0), OUT(x0)};
  TrNode *loop = while_ok(g, cond, body, in, 2);
  g_autofree char *s0 = tr_output_to_string(tr_node_output(loop, 0));
  g_autofree char *s1 = tr_output_to_string(tr_node_output(loop, 1));
  g_assert_cmpstr(s0, ==, "Tensor(\"while:0\", shape=(), dtype=int32)");
  g_assert_cmpstr(s1, ==, "Tensor(\"while:1\", shape=(None,), dtype=float32)");

  TrOutput x = tr_node_output(loop, 1);
  TrTensor *got;
  run_ok(g, &x, 1, NULL, 0, NULL, &got);
  tt_assert_tensor(got, TR_FLOAT32, DIMS(8), VALS(1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5), 0);
  tr_tensor_unref(got);
}

/* A loop of one round (cond: i < 1) whose body returns `result` (consumed) for x. */
static TrNode *
one_round_loop(TrGraph *g, const TrShape *x_invariant, TrTensor *result)
{
  TrGraph *cond = tr_graph_new("while_cond");
  TrNode *ci = tg_placeholder(cond, TR_INT32, NODIMS, "i");
  tr_graph_add_placeholder(cond, TR_FLOAT32, x_invariant, "x");
  TrNode *limit = tg_const(cond, tr_tensor_new_int32(1));
  tg_output(cond, tg_op(cond, TR_OP_LESS, ci, limit, NULL));
  TrGraph *body = tr_graph_new("while_body");
  TrNode *bi = tg_placeholder(body, TR_INT32, NODIMS, "i");
  tr_graph_add_placeholder(body, TR_FLOAT32, x_invariant, "x");
  TrNode *one = tg_const(body, tr_tensor_new_int32(1));
  tg_output(body, tg_op(body, TR_OP_ADD, bi, one, NULL));
  tg_output(body, tg_const(body, result));

  TrNode *i0 = tg_const(g, tr_tensor_new_int32(0));
  TrNode *x0 = tg_const(g, TT(TR_FLOAT32, DIMS(1), VALS(7)));
  TrOutput in[2] = {OUT(i0), OUT(x0)};
  return while_ok(g, cond, body, in, 2);
}

/* Dims that differ between the input and body's result become None; a differing rank makes the
 * rank unknown. The run's result has the concrete shape. */
static void
test_relaxation_rules(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrShape vector = tr_shape_make(DIMS(TR_UNKNOWN));
  TrNode *wider = one_round_loop(g, &vector, TT(TR_FLOAT32, DIMS(2), VALS(5, 6)));
  g_autofree char *shape = tr_shape_to_string(&wider->shapes[1]);
  g_assert_cmpstr(shape, ==, "(None,)");

  TrShape any = tr_shape_unknown();
  TrNode *matrix = one_round_loop(g, &any, TT(TR_FLOAT32, DIMS(2, 2), VALS(1, 2, 3, 4)));
  g_autofree char *unknown = tr_shape_to_string(&matrix->shapes[1]);
  g_assert_cmpstr(unknown, ==, "<unknown>");

  TrOutput outs[2] = {tr_node_output(wider, 1), tr_node_output(matrix, 1)};
  TrTensor *got[2];
  run_ok(g, outs, 2, NULL, 0, NULL, got);
  tt_assert_tensor(got[0], TR_FLOAT32, DIMS(2), VALS(5, 6), 0);
  tt_assert_tensor(got[1], TR_FLOAT32, DIMS(2, 2), VALS(1, 2, 3, 4), 0);
  tr_tensor_unref(got[0]);
  tr_tensor_unref(got[1]);
}

/* ---- mistakes ------------------------------------------------------------------------------ */

/* tr_graph_add_while must fail with `code` and exactly `message`, leaving g and the children as
 * they were. Consumes cond and body. */
static void
assert_while_error(TrGraph *g, TrGraph *cond, TrGraph *body, const TrOutput *inputs, int n,
                   int code, const char *message)
{
  int n_nodes = tr_graph_n_nodes(g);
  g_autoptr(GError) error = NULL;
  g_assert_null(tr_graph_add_while(g, cond, body, inputs, n, NULL, &error));
  g_assert_error(error, TR_GRAPH_ERROR, code);
  g_assert_cmpstr(error->message, ==, message);
  g_assert_cmpint(tr_graph_n_nodes(g), ==, n_nodes);
  g_assert_null(tr_graph_parent(cond));
  g_assert_null(tr_graph_parent(body));
  tr_graph_unref(cond);
  tr_graph_unref(body);
}

static void
test_cond_not_scalar_bool(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *zero = tg_const(g, tr_tensor_new_int32(0));
  TrOutput in[1] = {OUT(zero)};

  /* cond returns i itself, an int32 */
  TrNode *i;
  TrGraph *cond = scalar_loop_graph("while_cond", 1, &i);
  tg_output(cond, i);
  assert_while_error(g, cond, increment(), in, 1, TR_GRAPH_ERROR_TYPE,
                     "The while loop's cond must return a bool tensor, but returns "
                     "Tensor(\"Identity:0\", shape=(), dtype=int32)");

  /* cond returns i < [1, 2], a vector */
  cond = scalar_loop_graph("while_cond", 1, &i);
  TrNode *bounds = tg_const(cond, TT(TR_INT32, DIMS(2), VALS(1, 2)));
  tg_output(cond, tg_op(cond, TR_OP_LESS, i, bounds, NULL));
  assert_while_error(g, cond, increment(), in, 1, TR_GRAPH_ERROR_VALUE,
                     "The while loop's cond must return a scalar, but returns "
                     "Tensor(\"Identity:0\", shape=(2,), dtype=bool)");

  /* cond returns two values */
  cond = less_than(1, 3);
  TrNode *t = tg_const(cond, tr_tensor_new_bool(true));
  tg_output(cond, t);
  assert_while_error(g, cond, increment(), in, 1, TR_GRAPH_ERROR_VALUE,
                     "The while loop's cond must return one scalar bool tensor, but returns 2 "
                     "values");
}

static void
test_body_results_mismatch(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *zero = tg_const(g, tr_tensor_new_int32(0));
  TrOutput in[1] = {OUT(zero)};

  /* body returns (i + 1, i) for one loop variable */
  TrGraph *body = increment();
  tg_output(body, tr_graph_input(body, 0));
  assert_while_error(g, less_than(1, 3), body, in, 1, TR_GRAPH_ERROR_VALUE,
                     "The while loop's body must return 1 value, one per loop variable, but "
                     "returns 2");

  /* body returns tf.cast(i, tf.float32) */
  TrNode *i;
  body = scalar_loop_graph("while_body", 1, &i);
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.dtype = TR_FLOAT32;
  TrOutput arg = OUT(i);
  g_autoptr(GError) error = NULL;
  TrNode *cast = tr_graph_add_op(body, TR_OP_CAST, &arg, 1, &attrs, NULL, &error);
  g_assert_no_error(error);
  tg_output(body, cast);
  assert_while_error(g, less_than(1, 3), body, in, 1, TR_GRAPH_ERROR_TYPE,
                     "Loop variable 'Const:0' enters the loop with dtype int32, but has dtype "
                     "float32 after one iteration. All loop variables must keep their dtypes.");
}

static void
test_arguments_mismatch(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *zero = tg_const(g, tr_tensor_new_int32(0));
  TrNode *half = tg_const(g, tr_tensor_new_float32(0.5f));
  TrOutput two[2] = {OUT(zero), OUT(zero)};
  assert_while_error(g, less_than(1, 3), increment(), two, 2, TR_GRAPH_ERROR_TYPE,
                     "The while loop's cond takes 1 argument, but 2 loop variables were given");

  TrOutput flt[1] = {OUT(half)};
  assert_while_error(g, less_than(1, 3), increment(), flt, 1, TR_GRAPH_ERROR_TYPE,
                     "Loop variable 0 does not fit the while loop's cond: its argument 'i' "
                     "expects dtype int32, but got Tensor(\"Const_1:0\", shape=(), "
                     "dtype=float32)");

  TrNode *vec = tg_const(g, TT(TR_INT32, DIMS(2), VALS(1, 2)));
  TrOutput wrong_shape[1] = {OUT(vec)};
  assert_while_error(g, less_than(1, 3), increment(), wrong_shape, 1, TR_GRAPH_ERROR_VALUE,
                     "Loop variable 0 does not fit the while loop's cond: its argument 'i' "
                     "expects shape (), but got Tensor(\"Const_2:0\", shape=(2,), dtype=int32)");

  assert_while_error(g, less_than(1, 3), increment(), NULL, 0, TR_GRAPH_ERROR_VALUE,
                     "A while loop needs at least one loop variable: 'loop_vars' is empty");
}

/* body's result must fit the shape cond and body were traced on: x = [1] traced as (1,) cannot
 * become concat([x, x]). */
static void
test_shape_invariant_violated(void)
{
  TrGraph *cond = tr_graph_new("while_cond");
  TrNode *cx = tg_placeholder(cond, TR_FLOAT32, DIMS(1), "x");
  TrNode *sum = tg_op(cond, TR_OP_SUM, cx, NULL, NULL);
  TrNode *limit = tg_const(cond, tr_tensor_new_float32(8));
  tg_output(cond, tg_op(cond, TR_OP_LESS, sum, limit, NULL));
  TrGraph *body = tr_graph_new("while_body");
  TrNode *bx = tg_placeholder(body, TR_FLOAT32, DIMS(1), "x");
  tg_output(body, tg_op(body, TR_OP_CONCAT, bx, bx, NULL));

  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *x0 = tg_const(g, TT(TR_FLOAT32, DIMS(1), VALS(1)));
  TrOutput in[1] = {OUT(x0)};
  assert_while_error(g, cond, body, in, 1, TR_GRAPH_ERROR_VALUE,
                     "Input tensor 'Const:0' enters the loop with shape (1,), but has shape (2,) "
                     "after one iteration. To allow the shape to vary across iterations, trace "
                     "cond and body on a less-specific shape (the `shape_invariants` argument of "
                     "tf.while_loop).");
}

/* ---- exports ------------------------------------------------------------------------------- */

static void
test_exports(void)
{
  TrNode *vars[2];
  TrGraph *body = scalar_loop_graph("while_body", 2, vars);
  TrNode *one = tg_const(body, tr_tensor_new_int32(1));
  tg_output(body, tg_op(body, TR_OP_ADD, vars[0], one, NULL));
  tg_output(body, tg_op(body, TR_OP_ADD, vars[1], vars[0], NULL));
  g_autoptr(TrGraph) g = tr_graph_new("__inference_sum_2");
  TrNode *x = tg_placeholder(g, TR_INT32, NODIMS, "x");
  TrNode *zero = tg_const(g, tr_tensor_new_int32(0));
  TrOutput in[2] = {OUT(zero), OUT(x)};
  TrNode *loop = while_ok(g, less_than(2, 5), body, in, 2);
  g_autoptr(GError) error = NULL;
  tr_graph_add_output(g, tr_node_output(loop, 1), &error);
  g_assert_no_error(error);

  g_autofree char *listing = tr_graph_def_listing(g);
  g_assert_cmpstr(listing, ==,
                  "[] -> x\n"
                  "[] -> Const\n"
                  "['Const', 'x'] -> while\n"
                  "['while:1'] -> Identity\n");

  g_autofree char *dot = tr_graph_to_dot(g);
  g_assert_nonnull(strstr(dot, "n2 [label=\"while\\nWhile\\nint32 ()\\nint32 ()\""));
  g_assert_nonnull(strstr(dot, "subgraph \"cluster_n2c0_\" {"));
  g_assert_nonnull(strstr(dot, "label=\"while / while_cond\""));
  g_assert_nonnull(strstr(dot, "subgraph \"cluster_n2c1_\" {"));
  g_assert_nonnull(strstr(dot, "label=\"while / while_body\""));
  g_assert_nonnull(strstr(dot, "n2c1_n3 [label=\"add\\nAddV2\\nint32 ()\""));
  g_assert_nonnull(strstr(dot, "n2 -> n3 [taillabel=\"1\"];"));

  g_autofree char *json = tr_graph_to_json(g);
  g_assert_nonnull(strstr(json, "{\"name\":\"while\",\"op\":\"While\",\"inputs\":[\"Const\",\"x\"],"
                                "\"outputs\":[{\"dtype\":\"int32\",\"shape\":[]},{\"dtype\":"
                                "\"int32\",\"shape\":[]}],\"children\":[{\"name\":\"while_cond\""));
  g_assert_nonnull(strstr(json, "{\"name\":\"while_body\""));
  g_assert_nonnull(strstr(json, "\"inputs\":[\"while:1\"]"));
  /* No SVG here: Graphviz 2.42's dot layout leaks the virtual edges of every cluster spanning
   * two ranks or more (build_skeleton), which the sanitizer build reports. */
}

/* ---- copies, the optimiser and inlining ---------------------------------------------------- */

static void
test_copy_and_optimise_keep_stateful(void)
{
  g_autoptr(TrGraph) g = tr_graph_new("__inference_show_3");
  TrNode *zero = tg_const(g, tr_tensor_new_int32(0));
  TrOutput in[1] = {OUT(zero)};
  while_ok(g, less_than(1, 3), printing_body(), in, 1);
  /* A pure loop nobody uses, and a Const only it uses. */
  TrNode *start = tg_const(g, tr_tensor_new_int32(5));
  TrOutput pure_in[1] = {OUT(start)};
  while_ok(g, less_than(1, 10), increment(), pure_in, 1);
  g_assert_cmpint(tr_graph_n_nodes(g), ==, 4);

  g_autoptr(TrGraph) copy = tr_graph_copy(g);
  TrNode *copied = tr_graph_find_node(copy, "while");
  g_assert_nonnull(copied);
  g_assert_true(copied->stateful);
  g_assert_cmpint(copied->n_children, ==, 2);
  TrNode *original = tr_graph_find_node(g, "while");
  g_assert_true(copied->children[1] != original->children[1]);
  g_assert_true(tr_graph_parent(copied->children[1]) == copy);

  TrOptReport report;
  tr_graph_optimize(copy, TR_OPT_ALL, &report);
  /* The pure loop and its Const are gone; the printing loop and its input stay. */
  g_assert_cmpint(tr_graph_n_nodes(copy), ==, 2);
  g_assert_nonnull(tr_graph_find_node(copy, "while"));
  g_assert_null(tr_graph_find_node(copy, "while_1"));
  g_assert_cmpint(tr_graph_n_nodes(g), ==, 4);

  TgSink sink = {g_string_new(NULL), 0};
  TrRunContext ctx = TG_SINK_CONTEXT(&sink);
  run_ok(copy, NULL, 0, NULL, 0, &ctx, NULL);
  g_assert_cmpstr(sink.text->str, ==, "i = 0\ni = 1\ni = 2\n");
  g_string_free(sink.text, TRUE);
}

/* Two equal pure loops on constants: neither merged nor folded, though used. */
static void
test_optimise_neither_merges_nor_folds(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *zero = tg_const(g, tr_tensor_new_int32(0));
  TrOutput in[1] = {OUT(zero)};
  TrNode *a = while_ok(g, less_than(1, 10), increment(), in, 1);
  TrNode *b = while_ok(g, less_than(1, 10), increment(), in, 1);
  tg_output(g, tg_op(g, TR_OP_ADD, a, b, NULL));
  TrOptReport report;
  tr_graph_optimize(g, TR_OPT_ALL, &report);
  g_assert_cmpint(tr_graph_find_node(g, "while")->op, ==, TR_GOP_WHILE);
  g_assert_cmpint(tr_graph_find_node(g, "while_1")->op, ==, TR_GOP_WHILE);
  g_autoptr(TrTensor) got = tg_run(g, NULL, 0, 0);
  tt_assert_tensor(got, TR_INT32, NODIMS, VALS(20), 0);
}

/* The passes reach into body: i + (1 + 1) folds, and an unused i * i goes. */
static void
test_optimise_reaches_body(void)
{
  TrNode *i;
  TrGraph *body = scalar_loop_graph("while_body", 1, &i);
  TrNode *one = tg_const(body, tr_tensor_new_int32(1));
  TrNode *two = tg_op(body, TR_OP_ADD, one, one, NULL);
  tg_op(body, TR_OP_MUL, i, i, NULL);
  tg_output(body, tg_op(body, TR_OP_ADD, i, two, NULL));
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *zero = tg_const(g, tr_tensor_new_int32(0));
  TrOutput in[1] = {OUT(zero)};
  TrNode *loop = while_ok(g, less_than(1, 9), body, in, 1);
  tg_output(g, loop);
  TrGraph *inner = loop->children[1];
  g_assert_cmpint(tr_graph_n_nodes(inner), ==, 6);

  tr_graph_optimize(g, TR_OPT_ALL, NULL);
  /* i, the folded 2 (in add's place), add_1 and Identity */
  g_assert_cmpint(tr_graph_n_nodes(inner), ==, 4);
  g_assert_null(tr_graph_find_node(inner, "mul"));
  g_assert_cmpint(tr_graph_find_node(inner, "add")->op, ==, TR_GOP_CONST);
  g_autoptr(TrTensor) got = tg_run(g, NULL, 0, 0);
  tt_assert_tensor(got, TR_INT32, NODIMS, VALS(10), 0);
}

/* tf.function def count(x) (a While) called from f(): its loop is rebuilt on f's input. */
static void
test_inline_graph_with_while(void)
{
  g_autoptr(TrGraph) callee = tr_graph_new("__inference_show_8");
  TrNode *x = tg_placeholder(callee, TR_INT32, NODIMS, "x");
  TrOutput x_in[1] = {OUT(x)};
  TrNode *inner = while_ok(callee, less_than(1, 3), printing_body(), x_in, 1);
  tg_output(callee, inner);

  g_autoptr(TrGraph) g = tr_graph_new("__inference_f_9");
  TgSink sink = {g_string_new(NULL), 0};
  TrPrintArg hello = {.text = "before"};
  g_autoptr(GError) error = NULL;
  TrNode *print = tr_graph_add_tf_print(g, &hello, 1, NULL, NULL, &error);
  g_assert_no_error(error);
  TrNode *one = tg_const(g, tr_tensor_new_int32(1));
  TrOutput in[1] = {OUT(one)};
  TrOutput out;
  g_assert_true(tr_graph_inline(g, callee, in, 1, &out, 1, "show", &error));
  g_assert_no_error(error);

  TrNode *loop = tr_graph_find_node(g, "show/while");
  g_assert_nonnull(loop);
  g_assert_cmpint(loop->op, ==, TR_GOP_WHILE);
  g_assert_true(loop->stateful);
  g_assert_true(loop->inputs[0].node == one);
  /* The loop follows g's earlier print. */
  g_assert_cmpint(loop->n_control, ==, 1);
  g_assert_true(loop->control[0] == print);
  /* Its cond and body are copies owned by g's node. */
  g_assert_cmpint(loop->n_children, ==, 2);
  g_assert_true(loop->children[0] != inner->children[0]);
  g_assert_true(tr_graph_parent(loop->children[0]) == g);
  g_assert_true(tr_graph_parent(inner->children[0]) == callee);

  tg_output(g, out.node);
  TrRunContext ctx = TG_SINK_CONTEXT(&sink);
  TrTensor *got;
  run_ok(g, NULL, 0, NULL, 0, &ctx, &got);
  tt_assert_tensor(got, TR_INT32, NODIMS, VALS(3), 0);
  tr_tensor_unref(got);
  g_assert_cmpstr(sink.text->str, ==, "before\ni = 1\ni = 2\n");
  g_string_free(sink.text, TRUE);
}

void
tg_add_while_tests(void)
{
  g_test_add_func("/graph/while/counter", test_counter);
  g_test_add_func("/graph/while/two-variables-sum", test_two_variables_sum);
  g_test_add_func("/graph/while/print-each-iteration-to-the-sink", test_print_each_iteration);
  g_test_add_func("/graph/while/assign-variable-then-read", test_assign_variable);
  g_test_add_func("/graph/while/nested-loops", test_nested_loops);
  g_test_add_func("/graph/while/runtime-error-names-body-node-and-loop",
                  test_runtime_error_propagates);
  g_test_add_func("/graph/while/growing-shape-relaxes-to-none", test_growing_shape_relaxes);
  g_test_add_func("/graph/while/relaxation-rules", test_relaxation_rules);
  g_test_add_func("/graph/while/cond-not-scalar-bool", test_cond_not_scalar_bool);
  g_test_add_func("/graph/while/body-results-mismatch", test_body_results_mismatch);
  g_test_add_func("/graph/while/arguments-mismatch", test_arguments_mismatch);
  g_test_add_func("/graph/while/shape-invariant-violated", test_shape_invariant_violated);
  g_test_add_func("/graph/while/exports-name-inputs-and-draw-clusters", test_exports);
  g_test_add_func("/graph/while/copy-and-optimise-keep-stateful",
                  test_copy_and_optimise_keep_stateful);
  g_test_add_func("/graph/while/optimise-neither-merges-nor-folds",
                  test_optimise_neither_merges_nor_folds);
  g_test_add_func("/graph/while/optimise-reaches-cond-and-body", test_optimise_reaches_body);
  g_test_add_func("/graph/while/inline-graph-with-while", test_inline_graph_with_while);
}
