/* test-inline.c — inlining one graph into another: names and scopes, shapes re-inferred from the
 * actual inputs, variables and tf.print keeping their order and text, control inputs and child
 * graphs, and the caller's mistakes. */
#include "test-graph.h"

#include <string.h>

/* double(a, b) = a + b over vectors of unknown length: the body most tests inline. */
static TrGraph *
add_body(TrDType dtype)
{
  TrGraph *body = tr_graph_new("__inference_add_3");
  TrNode *a = tg_placeholder(body, dtype, DIMS(TR_UNKNOWN), "a");
  TrNode *b = tg_placeholder(body, dtype, DIMS(TR_UNKNOWN), "b");
  tg_output(body, tg_op(body, TR_OP_ADD, a, b, NULL));
  return body;
}

/* Inline `body` into g on `inputs`, which must succeed; returns output 0 (if any). */
static TrOutput
inline_ok(TrGraph *g, const TrGraph *body, const TrOutput *inputs, int n_inputs, const char *scope)
{
  g_autoptr(GError) error = NULL;
  TrOutput out[1] = {{NULL, 0}};
  int n_outputs = tr_graph_n_outputs(body);
  g_assert_cmpint(n_outputs, <=, 1);
  g_assert_true(tr_graph_inline(g, body, inputs, n_inputs, out, n_outputs, scope, &error));
  g_assert_no_error(error);
  return out[0];
}

static int
plan_position(const TrPlan *plan, const TrNode *node)
{
  for (int i = 0; i < tr_plan_n_steps(plan); i++)
    if (tr_plan_step_node(plan, i) == node)
      return i;
  return -1;
}

static void
test_add_with_concrete_shapes(void)
{
  g_autoptr(TrGraph) body = add_body(TR_FLOAT32);
  g_autoptr(TrGraph) g = tr_graph_new("__inference_f_9");
  TrNode *x = tg_placeholder(g, TR_FLOAT32, DIMS(3), "x");
  TrNode *y = tg_placeholder(g, TR_FLOAT32, DIMS(3), "y");
  TrOutput in[2] = {OUT(x), OUT(y)};

  TrOutput plain = inline_ok(g, body, in, 2, NULL);
  /* The body's placeholders are replaced, not copied: only add and its Identity are new. */
  g_assert_cmpint(tr_graph_n_nodes(g), ==, 4);
  TrNode *add = tr_graph_find_node(g, "add");
  g_assert_nonnull(add);
  g_assert_true(add->inputs[0].node == x && add->inputs[1].node == y);
  g_assert_cmpstr(plain.node->name, ==, "Identity");
  g_assert_cmpint(plain.node->op, ==, TR_OP_IDENTITY);
  g_assert_true(plain.node->inputs[0].node == add);
  /* Shapes come from the actual inputs, (3,), not the body's (None,). */
  g_autofree char *s = tr_output_to_string(plain);
  g_assert_cmpstr(s, ==, "Tensor(\"Identity:0\", shape=(3,), dtype=float32)");
  g_assert_cmpint(tr_graph_node(body, 2)->shapes[0].dims[0], ==, TR_UNKNOWN);
  /* The body's outputs are not g's. */
  g_assert_cmpint(tr_graph_n_outputs(g), ==, 0);

  TrOutput scoped = inline_ok(g, body, in, 2, "double");
  g_assert_cmpint(tr_graph_n_nodes(g), ==, 6);
  g_assert_cmpstr(scoped.node->name, ==, "double/Identity");
  g_assert_cmpstr(scoped.node->inputs[0].node->name, ==, "double/add");
  g_assert_cmpint(tr_output_shape(scoped)->dims[0], ==, 3);

  tg_output(g, scoped.node);
  g_autoptr(TrTensor) a = TT(TR_FLOAT32, DIMS(3), VALS(1, 2, 3));
  g_autoptr(TrTensor) b = TT(TR_FLOAT32, DIMS(3), VALS(10, 20, 30));
  TrTensor *feed[2] = {a, b};
  g_autoptr(TrTensor) got = tg_run(g, feed, 2, 0);
  tt_assert_tensor(got, TR_FLOAT32, DIMS(3), VALS(11, 22, 33), 0);
}

static void
test_same_scope_twice(void)
{
  g_autoptr(TrGraph) body = add_body(TR_INT32);
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *x = tg_placeholder(g, TR_INT32, DIMS(4), "x");
  TrOutput in[2] = {OUT(x), OUT(x)};
  TrOutput first = inline_ok(g, body, in, 2, "double");
  TrOutput second = inline_ok(g, body, in, 2, "double");
  /* Each inlining enters the scope anew, which tr_graph_push_name_scope makes unique. */
  g_assert_cmpstr(first.node->inputs[0].node->name, ==, "double/add");
  g_assert_cmpstr(second.node->inputs[0].node->name, ==, "double_1/add");
  g_assert_cmpstr(second.node->name, ==, "double_1/Identity");
  g_assert_cmpint(tr_output_shape(second)->dims[0], ==, 4);
}

/* tf.function def bump(d): v.assign_add(d); return v.read_value() */
static void
test_variable_update_then_read(void)
{
  g_autoptr(TrVariable) v = tg_variable(tr_tensor_new_int32(1), "v");
  g_autoptr(GError) error = NULL;
  g_autoptr(TrGraph) body = tr_graph_new("__inference_bump_4");
  TrNode *d = tg_placeholder(body, TR_INT32, NODIMS, "d");
  TrNode *bh = tr_graph_capture_variable(body, v, "v");
  tr_graph_add_assign_variable(body, TR_GOP_ASSIGN_ADD_VARIABLE, OUT(bh), OUT(d), NULL, &error);
  tg_output(body, tr_graph_add_read_variable(body, OUT(bh), NULL, &error));
  g_assert_no_error(error);
  g_assert_cmpint(tr_graph_n_inputs(body), ==, 1);

  /* The caller captured v already and read it before the call. */
  g_autoptr(TrGraph) g = tr_graph_new("__inference_f_5");
  TrNode *h = tr_graph_capture_variable(g, v, "v");
  TrNode *before = tr_graph_add_read_variable(g, OUT(h), NULL, &error);
  TrNode *five = tg_const(g, tr_tensor_new_int32(5));
  TrOutput in[1] = {OUT(five)};
  TrOutput read = inline_ok(g, body, in, 1, "bump");

  TrNode *assign = tr_graph_find_node(g, "bump/AssignAddVariableOp");
  TrNode *read_node = tr_graph_find_node(g, "bump/ReadVariableOp");
  g_assert_nonnull(assign);
  g_assert_nonnull(read_node);
  /* One handle for v: the body's capture became g's. */
  g_assert_true(assign->inputs[0].node == h);
  g_assert_true(read_node->inputs[0].node == h);
  g_assert_null(tr_graph_find_node(g, "bump/v"));
  /* The assignment follows g's earlier read; the body's read follows the assignment. */
  g_assert_cmpint(assign->n_control, ==, 1);
  g_assert_true(assign->control[0] == before);
  g_assert_cmpint(read_node->n_control, ==, 1);
  g_assert_true(read_node->control[0] == assign);

  tg_output(g, before);
  tg_output(g, read.node);
  g_autoptr(TrPlan) plan = tr_plan_new(g, NULL, 0, &error);
  g_assert_no_error(error);
  g_assert_cmpint(plan_position(plan, before), <, plan_position(plan, assign));
  g_assert_cmpint(plan_position(plan, assign), <, plan_position(plan, read_node));
  TrTensor *out[2] = {NULL, NULL};
  g_assert_true(tr_plan_run(plan, NULL, 0, out, NULL, &error));
  g_assert_no_error(error);
  g_assert_cmpint(tr_tensor_get_i64(out[0], 0), ==, 1);
  g_assert_cmpint(tr_tensor_get_i64(out[1], 0), ==, 6);
  g_assert_cmpint(tr_tensor_get_i64(v->value, 0), ==, 6);
  tr_tensor_unref(out[0]);
  tr_tensor_unref(out[1]);
}

/* tf.function def show(x): tf.print("x:", x, "{} stays", sep=",", end="!\n") */
static void
test_print_keeps_format(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrGraph) body = tr_graph_new("__inference_show_2");
  TrNode *x = tg_placeholder(body, TR_INT32, DIMS(TR_UNKNOWN), "x");
  TrPrintArg args[3] = {{.text = "x:"}, {.tensor = OUT(x)}, {.text = "{} stays"}};
  tr_graph_add_tf_print(body, args, 3, ",", "!\n", &error);
  g_assert_no_error(error);

  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *c = tg_const(g, TT(TR_INT32, DIMS(3), VALS(1, 2, 3)));
  TrOutput in[1] = {OUT(c)};
  inline_ok(g, body, in, 1, NULL);
  inline_ok(g, body, in, 1, NULL);
  TrNode *format = tr_graph_find_node(g, "StringFormat_1");
  TrNode *print = tr_graph_find_node(g, "PrintV2_1");
  g_assert_nonnull(format);
  g_assert_nonnull(print);
  g_assert_cmpstr(format->print->template_text, ==, "x:,{},{} stays");
  g_assert_cmpint(format->print->n_segments, ==, 2);
  g_assert_cmpstr(print->print->end, ==, "!\n");
  g_assert_false(print->print->to_stderr);
  /* The second print follows the first. */
  g_assert_true(print->control[0] == tr_graph_find_node(g, "PrintV2"));

  g_autoptr(TrPlan) plan = tr_plan_new(g, NULL, 0, &error);
  g_assert_no_error(error);
  TgSink sink = {g_string_new(NULL), 0};
  TrRunContext ctx = TG_SINK_CONTEXT(&sink);
  g_assert_true(tr_plan_run(plan, NULL, 0, NULL, &ctx, &error));
  g_assert_no_error(error);
  g_assert_cmpstr(sink.text->str, ==, "x:,[1 2 3],{} stays!\nx:,[1 2 3],{} stays!\n");
  g_assert_cmpint(sink.calls, ==, 2);
  g_string_free(sink.text, TRUE);
}

/* A Const (shared), a pure node with a control input, and a NoOp owning a child graph. */
static void
test_consts_control_inputs_and_children(void)
{
  g_autoptr(TrGraph) body = tr_graph_new(NULL);
  TrNode *x = tg_placeholder(body, TR_INT32, NODIMS, "x");
  TrNode *two = tg_const(body, tr_tensor_new_int32(2));
  TrNode *mul = tg_op(body, TR_OP_MUL, x, two, NULL);
  TrNode *gate = tr_graph_add_no_op(body, "gate");
  tr_node_add_control_input(gate, mul);
  g_autoptr(TrGraph) branch = tr_graph_new("cond_true_1");
  tg_placeholder(branch, TR_INT32, NODIMS, "i");
  tr_node_add_child(gate, branch);
  TrNode *neg = tg_op(body, TR_OP_NEG, mul, NULL, NULL);
  tr_node_add_control_input(neg, gate);
  tg_output(body, neg);

  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *a = tg_placeholder(g, TR_INT32, NODIMS, "a");
  TrOutput in[1] = {OUT(a)};
  TrOutput out = inline_ok(g, body, in, 1, "f");
  TrNode *c = tr_graph_find_node(g, "f/Const");
  TrNode *g_gate = tr_graph_find_node(g, "f/gate");
  TrNode *g_neg = tr_graph_find_node(g, "f/Neg");
  g_assert_nonnull(c);
  g_assert_nonnull(g_gate);
  g_assert_nonnull(g_neg);
  g_assert_true(c->value == two->value);
  g_assert_false(g_gate->stateful);
  g_assert_cmpint(g_gate->n_control, ==, 1);
  g_assert_true(g_gate->control[0] == tr_graph_find_node(g, "f/mul"));
  g_assert_cmpint(g_neg->n_control, ==, 1);
  g_assert_true(g_neg->control[0] == g_gate);
  /* The child graph is a copy owned by g's node. */
  g_assert_cmpint(g_gate->n_children, ==, 1);
  g_assert_true(g_gate->children[0] != branch);
  g_assert_true(tr_graph_parent(g_gate->children[0]) == g);
  g_assert_cmpstr(tr_graph_name(g_gate->children[0]), ==, "cond_true_1");
  g_assert_cmpint(tr_graph_n_nodes(g_gate->children[0]), ==, 1);

  tg_output(g, out.node);
  g_autoptr(TrTensor) seven = tr_tensor_new_int32(7);
  g_autoptr(TrTensor) got = tg_run(g, &seven, 1, 0);
  g_assert_cmpint(tr_tensor_get_i64(got, 0), ==, -14);
}

static void
test_dtype_mismatch(void)
{
  g_autoptr(TrGraph) body = add_body(TR_INT32);
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *i = tg_placeholder(g, TR_INT32, DIMS(2), "i");
  TrNode *f = tg_placeholder(g, TR_FLOAT32, DIMS(2), "f");
  TrOutput in[2] = {OUT(i), OUT(f)};
  TrOutput out[1] = {{NULL, 0}};
  g_autoptr(GError) error = NULL;
  g_assert_false(tr_graph_inline(g, body, in, 2, out, 1, "double", &error));
  g_assert_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE);
  g_assert_cmpstr(error->message, ==,
                  "Cannot inline __inference_add_3: input 1 ('b') expects dtype int32, but got "
                  "Tensor(\"f:0\", shape=(2,), dtype=float32)");
  g_assert_cmpint(tr_graph_n_nodes(g), ==, 2);
  g_assert_null(out[0].node);
}

static void
test_shape_mismatch(void)
{
  g_autoptr(TrGraph) body = add_body(TR_INT32);
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *m = tg_placeholder(g, TR_INT32, DIMS(2, 2), "m");
  TrOutput in[2] = {OUT(m), OUT(m)};
  TrOutput out[1];
  g_autoptr(GError) error = NULL;
  g_assert_false(tr_graph_inline(g, body, in, 2, out, 1, NULL, &error));
  g_assert_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_VALUE);
  g_assert_cmpstr(error->message, ==,
                  "Cannot inline __inference_add_3: input 0 ('a') expects shape (None,), but got "
                  "Tensor(\"m:0\", shape=(2, 2), dtype=int32)");
}

static void
test_wrong_input_count(void)
{
  g_autoptr(TrGraph) body = add_body(TR_INT32);
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *x = tg_placeholder(g, TR_INT32, NODIMS, "x");
  TrOutput in[3] = {OUT(x), OUT(x), OUT(x)};
  TrOutput out[1];
  g_autoptr(GError) error = NULL;
  g_assert_false(tr_graph_inline(g, body, in, 3, out, 1, NULL, &error));
  g_assert_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE);
  g_assert_cmpstr(error->message, ==,
                  "Cannot inline __inference_add_3: it takes 2 inputs but 3 were given");
  g_clear_error(&error);
  g_assert_false(tr_graph_inline(g, body, in, 1, out, 1, NULL, &error));
  g_assert_cmpstr(error->message, ==,
                  "Cannot inline __inference_add_3: it takes 2 inputs but 1 was given");
  g_assert_cmpint(tr_graph_n_nodes(g), ==, 1);
}

static void
test_input_of_another_graph(void)
{
  g_autoptr(TrGraph) body = add_body(TR_INT32);
  g_autoptr(TrGraph) other = tr_graph_new("other");
  TrNode *x = tg_placeholder(other, TR_INT32, NODIMS, "x");
  g_autoptr(TrGraph) g = tr_graph_new("g");
  TrOutput in[2] = {OUT(x), OUT(x)};
  TrOutput out[1];
  g_autoptr(GError) error = NULL;
  g_assert_false(tr_graph_inline(g, body, in, 2, out, 1, NULL, &error));
  g_assert_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_INACCESSIBLE);
  g_assert_cmpint(tr_graph_n_nodes(g), ==, 0);
}

/* Inference fails half-way (lengths 3 and 2 only meet in the body's add): the print already
 * added and the capture are dropped again, and g's stateful chain is as before. */
static void
test_failure_leaves_graph_unchanged(void)
{
  g_autoptr(TrVariable) v = tg_variable(tr_tensor_new_int32(0), "v");
  g_autoptr(GError) error = NULL;
  g_autoptr(TrGraph) body = tr_graph_new("__inference_h_8");
  TrNode *a = tg_placeholder(body, TR_INT32, DIMS(TR_UNKNOWN), "a");
  TrNode *b = tg_placeholder(body, TR_INT32, DIMS(TR_UNKNOWN), "b");
  TrNode *bh = tr_graph_capture_variable(body, v, "v");
  TrNode *r = tr_graph_add_read_variable(body, OUT(bh), NULL, &error);
  TrPrintArg args[1] = {{.tensor = OUT(r)}};
  tr_graph_add_tf_print(body, args, 1, NULL, NULL, &error);
  tg_output(body, tg_op(body, TR_OP_ADD, a, b, NULL));
  g_assert_no_error(error);

  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *x = tg_placeholder(g, TR_INT32, DIMS(3), "x");
  TrNode *y = tg_placeholder(g, TR_INT32, DIMS(2), "y");
  TrNode *noted = tr_graph_add_print(g, OUT(tg_const(g, tr_tensor_new_string("hi", 2))), NULL,
                                     false, NULL, &error);
  g_assert_no_error(error);
  int n_before = tr_graph_n_nodes(g);
  TrOutput in[2] = {OUT(x), OUT(y)};
  TrOutput out[1];
  g_assert_false(tr_graph_inline(g, body, in, 2, out, 1, "h", &error));
  g_assert_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_VALUE);
  g_assert_nonnull(strstr(error->message, "Dimensions must be equal, but are 3 and 2"));
  g_clear_error(&error);
  g_assert_cmpint(tr_graph_n_nodes(g), ==, n_before);
  g_assert_null(tr_graph_find_node(g, "h/PrintV2"));
  g_assert_null(tr_graph_find_node(g, "h/v"));

  /* g still builds and its next stateful node follows the one before the failed inlining. */
  TrNode *again =
      tr_graph_add_print(g, OUT(tr_graph_find_node(g, "Const")), NULL, false, NULL, &error);
  g_assert_no_error(error);
  g_assert_true(again->control[0] == noted);
  g_autoptr(TrPlan) plan = tr_plan_new(g, NULL, 0, &error);
  g_assert_no_error(error);
  g_autoptr(TrTensor) three = tt_zeros(TR_INT32, DIMS(3));
  g_autoptr(TrTensor) two = tt_zeros(TR_INT32, DIMS(2));
  TrTensor *feed[2] = {three, two};
  TgSink sink = {g_string_new(NULL), 0};
  TrRunContext ctx = TG_SINK_CONTEXT(&sink);
  g_assert_true(tr_plan_run(plan, feed, 2, NULL, &ctx, &error));
  g_assert_no_error(error);
  g_assert_cmpstr(sink.text->str, ==, "hi\nhi\n");
  g_string_free(sink.text, TRUE);
}

/* ---- EagerPyFunc: a host function called when the node runs ---------------------------- */

typedef struct {
  int calls;     /* runs of the function */
  int released;  /* destroy calls: 1 once the last node sharing it is gone */
  bool fail;     /* fail the next call */
  bool bad_type; /* return an int32 where float32 is declared */
} HostState;

/* out[0] = 2 * in[0] (float32); counts its calls. */
static bool
host_double(void *user, TrTensor *const *in, int n_in, TrTensor **out, int n_out, GError **error)
{
  HostState *hs = user;
  hs->calls++;
  g_assert_cmpint(n_in, ==, 1);
  g_assert_cmpint(n_out, ==, 1);
  if (hs->fail) {
    g_set_error_literal(error, TR_ERROR, TR_ERROR_UNKNOWN, "RuntimeError: no");
    return false;
  }
  if (hs->bad_type) {
    out[0] = TT_SCALAR(TR_INT32, 1);
    return true;
  }
  g_autoptr(TrTensor) two = TT_SCALAR(TR_FLOAT32, 2);
  out[0] = tr_binary(TR_OP_MUL, in[0], two, error);
  return out[0] != NULL;
}

static void
host_release(void *user)
{
  ((HostState *)user)->released++;
}

static void
test_host_call(void)
{
  g_autoptr(GError) error = NULL;
  HostState hs = {0};
  TrHostCall *call = tr_host_call_new(host_double, &hs, host_release);
  TrGraph *body = tr_graph_new("__inference_py_5");
  TrNode *x = tg_placeholder(body, TR_FLOAT32, DIMS(2), "x");
  TrOutput in = OUT(x);
  TrNode *node =
      tr_graph_add_host_call(body, call, &in, 1, (const TrDType[]){TR_FLOAT32}, 1, NULL, &error);
  g_assert_no_error(error);
  tr_host_call_unref(call); /* the node holds it now */
  g_assert_cmpstr(node->type, ==, "EagerPyFunc");
  g_assert_true(node->stateful);
  g_assert_cmpint(node->shapes[0].rank, ==, TR_UNKNOWN);
  tg_output(body, tg_op(body, TR_OP_IDENTITY, node, NULL, NULL));

  /* Each run calls the function. */
  g_autoptr(TrTensor) v = TT(TR_FLOAT32, DIMS(2), VALS(1.5, -2));
  for (int i = 0; i < 2; i++) {
    g_autoptr(TrTensor) r = tg_run(body, &v, 1, 0);
    tt_assert_tensor(r, TR_FLOAT32, DIMS(2), VALS(3, -4), 0);
  }
  g_assert_cmpint(hs.calls, ==, 2);

  /* Inlined and copied graphs share the function; it is released once, with the last. */
  g_autoptr(TrGraph) g = tr_graph_new("__inference_outer_7");
  TrNode *y = tg_placeholder(g, TR_FLOAT32, DIMS(2), "y");
  TrOutput yin = OUT(y);
  TrOutput out = inline_ok(g, body, &yin, 1, NULL);
  tg_output(g, out.node);
  TrGraph *copy = tr_graph_copy(g);
  tr_graph_unref(body);
  g_assert_cmpint(hs.released, ==, 0);
  g_autoptr(TrTensor) r = tg_run(copy, &v, 1, 0);
  tt_assert_tensor(r, TR_FLOAT32, DIMS(2), VALS(3, -4), 0);
  g_assert_cmpint(hs.calls, ==, 3);

  /* Its failure fails the run; a result of another dtype is TensorFlow's error. */
  g_autoptr(TrPlan) plan = tr_plan_new(g, NULL, 0, &error);
  g_assert_no_error(error);
  TrTensor *result = NULL;
  hs.fail = true;
  g_assert_false(tr_plan_run(plan, &v, 1, &result, NULL, &error));
  g_assert_error(error, TR_ERROR, TR_ERROR_UNKNOWN);
  g_assert_nonnull(strstr(error->message, "RuntimeError: no"));
  g_clear_error(&error);
  hs.fail = false;
  hs.bad_type = true;
  g_assert_false(tr_plan_run(plan, &v, 1, &result, NULL, &error));
  g_assert_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(error->message,
                          "Return value 0 was expected to be a float tensor but is a int32 "
                          "tensor"));
  g_clear_error(&error);
  tr_graph_unref(copy);
  g_clear_pointer(&plan, tr_plan_free);
  g_clear_pointer(&g, tr_graph_unref);
  g_assert_cmpint(hs.released, ==, 1);
}

void
tg_add_inline_tests(void)
{
  g_test_add_func("/graph/inline/host-call", test_host_call);
  g_test_add_func("/graph/inline/add-with-concrete-shapes", test_add_with_concrete_shapes);
  g_test_add_func("/graph/inline/same-scope-twice-is-made-unique", test_same_scope_twice);
  g_test_add_func("/graph/inline/variable-update-then-read", test_variable_update_then_read);
  g_test_add_func("/graph/inline/print-keeps-format", test_print_keeps_format);
  g_test_add_func("/graph/inline/consts-control-inputs-and-children",
                  test_consts_control_inputs_and_children);
  g_test_add_func("/graph/inline/dtype-mismatch-is-a-type-error", test_dtype_mismatch);
  g_test_add_func("/graph/inline/shape-mismatch-is-a-value-error", test_shape_mismatch);
  g_test_add_func("/graph/inline/wrong-input-count", test_wrong_input_count);
  g_test_add_func("/graph/inline/input-of-another-graph", test_input_of_another_graph);
  g_test_add_func("/graph/inline/failure-leaves-graph-unchanged",
                  test_failure_leaves_graph_unchanged);
}
