/* test-build.c — building graphs: TensorFlow's node names, partial-shape inference, graph-mode
 * errors, variables and automatic control dependencies. */
#include "test-graph.h"

#include <string.h>

static void
assert_graph_error(GError **error, TrGraphErrorCode code, const char *message)
{
  g_assert_nonnull(*error);
  g_assert_cmpstr((*error)->message, ==, message);
  g_assert_error(*error, TR_GRAPH_ERROR, (int)code);
  g_clear_error(error);
}

/* ---- naming ------------------------------------------------------------------------------------
 */

static void
test_add_then_add_1(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *a = tg_placeholder(g, TR_INT32, NODIMS, "a");
  TrNode *add = tg_op(g, TR_OP_ADD, a, a, NULL);
  TrNode *add_1 = tg_op(g, TR_OP_ADD, add, a, NULL);
  TrNode *add_2 = tg_op(g, TR_OP_ADD, add_1, a, NULL);
  TrNode *mul = tg_op(g, TR_OP_MUL, add_2, a, NULL);
  g_assert_cmpstr(a->name, ==, "a");
  g_assert_cmpstr(add->name, ==, "add");
  g_assert_cmpstr(add_1->name, ==, "add_1");
  g_assert_cmpstr(add_2->name, ==, "add_2");
  g_assert_cmpstr(mul->name, ==, "mul");
  g_assert_cmpstr(add->type, ==, "AddV2");
  g_assert_true(tr_graph_find_node(g, "add_1") == add_1);
}

static void
test_names_case_insensitive(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  g_assert_cmpstr(tr_graph_unique_name(g, "add"), ==, "add");
  g_assert_cmpstr(tr_graph_unique_name(g, "Add"), ==, "Add_1");
}

static void
test_names_skip_taken_suffix(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  g_assert_cmpstr(tr_graph_unique_name(g, "add_1"), ==, "add_1");
  g_assert_cmpstr(tr_graph_unique_name(g, "add"), ==, "add");
  g_assert_cmpstr(tr_graph_unique_name(g, "add"), ==, "add_2");
  g_assert_cmpstr(tr_graph_unique_name(g, "add"), ==, "add_3");
}

static void
test_placeholders_after_parameters(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *x = tg_placeholder(g, TR_INT32, DIMS(TR_UNKNOWN), "x");
  TrNode *num_steps = tg_placeholder(g, TR_INT32, NODIMS, "num_steps");
  g_assert_cmpstr(x->name, ==, "x");
  g_assert_cmpstr(num_steps->name, ==, "num_steps");
  g_assert_cmpint(tr_graph_n_inputs(g), ==, 2);
  g_assert_true(tr_graph_input(g, 1) == num_steps);
  g_autofree char *s = tr_output_to_string(OUT(x));
  g_assert_cmpstr(s, ==, "Tensor(\"x:0\", shape=(None,), dtype=int32)");
  g_autofree char *s2 = tr_output_to_string(OUT(num_steps));
  g_assert_cmpstr(s2, ==, "Tensor(\"num_steps:0\", shape=(), dtype=int32)");
}

static void
test_identity_outputs(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *a = tg_placeholder(g, TR_FLOAT32, NODIMS, "a");
  TrNode *o0 = tg_output(g, a);
  TrNode *o1 = tg_output(g, a);
  g_assert_cmpstr(o0->name, ==, "Identity");
  g_assert_cmpstr(o1->name, ==, "Identity_1");
  g_assert_cmpint(tr_graph_n_outputs(g), ==, 2);
  g_autofree char *s = tr_output_to_string(OUT(o0));
  g_assert_cmpstr(s, ==, "Tensor(\"Identity:0\", shape=(), dtype=float32)");
}

static void
test_name_scopes(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *a = tg_placeholder(g, TR_FLOAT32, NODIMS, "a");
  tr_graph_push_name_scope(g, "dense");
  TrNode *add = tg_op(g, TR_OP_ADD, a, a, NULL);
  tr_graph_push_name_scope(g, "inner");
  TrNode *mul = tg_op(g, TR_OP_MUL, a, a, NULL);
  tr_graph_pop_name_scope(g);
  tr_graph_pop_name_scope(g);
  tr_graph_push_name_scope(g, "dense");
  TrNode *add2 = tg_op(g, TR_OP_ADD, a, a, NULL);
  tr_graph_pop_name_scope(g);
  TrNode *add3 = tg_op(g, TR_OP_ADD, a, a, NULL);
  g_assert_cmpstr(add->name, ==, "dense/add");
  g_assert_cmpstr(mul->name, ==, "dense/inner/mul");
  g_assert_cmpstr(add2->name, ==, "dense_1/add");
  g_assert_cmpstr(add3->name, ==, "add");
}

static void
test_bad_name_characters(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  g_assert_cmpstr(tr_graph_unique_name(g, "my var!"), ==, "my_var_");
  g_assert_cmpstr(tr_graph_unique_name(g, "_x"), ==, "_x");
  g_assert_cmpstr(tr_graph_unique_name(g, ""), ==, "unnamed");
}

/* ---- inference ------------------------------------------------------------------------------- */

static void
assert_shape(TrNode *node, const char *want)
{
  g_autofree char *got = tr_shape_to_string(tr_output_shape(OUT(node)));
  g_assert_cmpstr(got, ==, want);
}

static void
test_partial_shape(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *x = tg_placeholder(g, TR_INT32, DIMS(TR_UNKNOWN), "x");
  TrNode *two = tg_const(g, tr_tensor_new_int32(2));
  TrNode *mod = tg_op(g, TR_OP_MOD, x, two, NULL);
  TrNode *eq = tg_op(g, TR_OP_EQUAL, mod, tg_const(g, tr_tensor_new_int32(0)), NULL);
  assert_shape(mod, "(None,)");
  assert_shape(eq, "(None,)");
  g_assert_cmpint(tr_output_dtype(OUT(eq)), ==, TR_BOOL);
  g_assert_cmpstr(mod->name, ==, "mod");
  g_assert_cmpstr(eq->name, ==, "Equal");

  TrNode *m = tg_placeholder(g, TR_FLOAT32, DIMS(TR_UNKNOWN, 3), "m");
  TrNode *w = tg_placeholder(g, TR_FLOAT32, DIMS(3, 2), "w");
  TrNode *mm = tg_op(g, TR_OP_MATMUL, m, w, NULL);
  assert_shape(mm, "(None, 2)");
  TrNode *u = tg_placeholder(g, TR_FLOAT32, UNKNOWN_RANK, "u");
  assert_shape(tg_op(g, TR_OP_ADD, u, m, NULL), "<unknown>");
}

static void
test_const_values_refine_shapes(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *start = tg_const(g, tr_tensor_new_int32(0));
  TrNode *limit = tg_const(g, tr_tensor_new_int32(5));
  TrNode *delta = tg_const(g, tr_tensor_new_int32(1));
  TrOutput in[3] = {OUT(start), OUT(limit), OUT(delta)};
  g_autoptr(GError) error = NULL;
  TrNode *range = tr_graph_add_op(g, TR_OP_RANGE, in, 3, NULL, NULL, &error);
  g_assert_no_error(error);
  assert_shape(range, "(5,)");
  g_assert_cmpstr(range->name, ==, "range");
  g_assert_cmpstr(start->name, ==, "Const");
  g_assert_cmpstr(limit->name, ==, "Const_1");

  TrNode *n = tg_placeholder(g, TR_INT32, NODIMS, "n");
  TrOutput sym[3] = {OUT(start), OUT(n), OUT(delta)};
  TrNode *range_1 = tr_graph_add_op(g, TR_OP_RANGE, sym, 3, NULL, NULL, &error);
  g_assert_no_error(error);
  assert_shape(range_1, "(None,)");
}

/* ---- graph-mode errors ------------------------------------------------------------------------
 */

static void
test_dimensions_must_be_equal(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *x = tg_placeholder(g, TR_INT32, DIMS(3), "x");
  TrNode *y = tg_placeholder(g, TR_INT32, DIMS(2), "y");
  TrOutput in[2] = {OUT(x), OUT(y)};
  GError *error = NULL;
  g_assert_null(tr_graph_add_op(g, TR_OP_ADD, in, 2, NULL, NULL, &error));
  assert_graph_error(&error, TR_GRAPH_ERROR_VALUE,
                     "Dimensions must be equal, but are 3 and 2 for '{{node add}} = "
                     "AddV2[T=DT_INT32](x, y)' with input shapes: [3], [2].");
  /* As in TensorFlow, the failed op used up its name. */
  TrNode *add = tg_op(g, TR_OP_ADD, x, x, NULL);
  g_assert_cmpstr(add->name, ==, "add_1");
  g_assert_cmpint(tr_graph_n_nodes(g), ==, 3);
}

static void
test_dimensions_unknown_print_as_question_marks(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *x = tg_placeholder(g, TR_FLOAT32, DIMS(TR_UNKNOWN, 3), "x");
  TrNode *y = tg_placeholder(g, TR_FLOAT32, DIMS(2), "y");
  TrOutput in[2] = {OUT(x), OUT(y)};
  GError *error = NULL;
  g_assert_null(tr_graph_add_op(g, TR_OP_MUL, in, 2, NULL, NULL, &error));
  assert_graph_error(&error, TR_GRAPH_ERROR_VALUE,
                     "Dimensions must be equal, but are 3 and 2 for '{{node mul}} = "
                     "Mul[T=DT_FLOAT](x, y)' with input shapes: [?,3], [2].");
}

static void
test_matmul_inner_dimensions(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *a = tg_placeholder(g, TR_FLOAT32, DIMS(2, 3), "a");
  TrNode *b = tg_placeholder(g, TR_FLOAT32, DIMS(2, 2), "b");
  TrOutput in[2] = {OUT(a), OUT(b)};
  GError *error = NULL;
  g_assert_null(tr_graph_add_op(g, TR_OP_MATMUL, in, 2, NULL, NULL, &error));
  assert_graph_error(&error, TR_GRAPH_ERROR_VALUE,
                     "Dimensions must be equal, but are 3 and 2 for '{{node MatMul}} = "
                     "MatMul[T=DT_FLOAT, transpose_a=false, transpose_b=false](a, b)' with input "
                     "shapes: [2,3], [2,2].");
  TrNode *v = tg_placeholder(g, TR_FLOAT32, DIMS(2), "v");
  TrOutput in2[2] = {OUT(v), OUT(b)};
  g_assert_null(tr_graph_add_op(g, TR_OP_MATMUL, in2, 2, NULL, NULL, &error));
  assert_graph_error(&error, TR_GRAPH_ERROR_VALUE,
                     "Shape must be rank 2 but is rank 1 for '{{node MatMul_1}} = "
                     "MatMul[T=DT_FLOAT, transpose_a=false, transpose_b=false](v, b)' with input "
                     "shapes: [2], [2,2].");
}

static void
test_dtype_mismatch_is_type_error(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *x = tg_placeholder(g, TR_INT32, NODIMS, "x");
  TrNode *y = tg_placeholder(g, TR_FLOAT32, NODIMS, "y");
  TrOutput in[2] = {OUT(x), OUT(y)};
  GError *error = NULL;
  g_assert_null(tr_graph_add_op(g, TR_OP_ADD, in, 2, NULL, NULL, &error));
  assert_graph_error(&error, TR_GRAPH_ERROR_TYPE,
                     "Input 'y' of 'AddV2' Op has type float32 that does not match type int32 of "
                     "argument 'x'.");
}

static void
test_disallowed_dtype_is_type_error(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *x = tg_placeholder(g, TR_STRING, NODIMS, "x");
  TrOutput in[1] = {OUT(x)};
  GError *error = NULL;
  g_assert_null(tr_graph_add_op(g, TR_OP_SQRT, in, 1, NULL, NULL, &error));
  g_assert_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE);
  g_assert_true(g_str_has_prefix(error->message, "Value passed to parameter 'x' has DataType "
                                                 "string not in list of allowed values: "));
  g_assert_nonnull(strstr(error->message, "float32, float64"));
  g_clear_error(&error);
}

static void
test_foreign_tensor_is_inaccessible(void)
{
  g_autoptr(TrGraph) f = tr_graph_new("f");
  g_autoptr(TrGraph) g = tr_graph_new("g");
  TrNode *a = tg_placeholder(f, TR_INT32, NODIMS, "a");
  TrNode *leaked = tg_op(f, TR_OP_ADD, a, a, NULL);
  TrOutput in[2] = {OUT(leaked), OUT(leaked)};
  GError *error = NULL;
  g_assert_null(tr_graph_add_op(g, TR_OP_ADD, in, 2, NULL, NULL, &error));
  g_assert_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_INACCESSIBLE);
  g_assert_true(g_str_has_prefix(
      error->message, "The tensor 'Tensor(\"add:0\", shape=(), dtype=int32)' cannot be accessed "
                      "here: it is defined in another function or code block."));
  g_clear_error(&error);
  g_assert_cmpint(tr_graph_n_nodes(g), ==, 0);
}

/* ---- variables and stateful order ---------------------------------------------------------------
 */

static void
test_variable_capture_once(void)
{
  g_autoptr(TrVariable) v = tg_variable(tr_tensor_new_float32(1.0f), NULL);
  g_autoptr(TrVariable) w = tg_variable(tr_tensor_new_float32(2.0f), "w");
  g_assert_cmpuint(w->id, >, v->id);
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *h1 = tr_graph_capture_variable(g, v, NULL);
  TrNode *h2 = tr_graph_capture_variable(g, v, NULL);
  g_assert_true(h1 == h2);
  g_assert_cmpint(tr_output_dtype(OUT(h1)), ==, TR_DTYPE_RESOURCE);
  g_assert_cmpint(tr_graph_n_inputs(g), ==, 0);
  g_autoptr(GError) error = NULL;
  TrNode *read = tr_graph_add_read_variable(g, OUT(h1), NULL, &error);
  g_assert_no_error(error);
  g_assert_cmpstr(read->name, ==, "ReadVariableOp");
  g_assert_cmpstr(read->type, ==, "ReadVariableOp");
  g_assert_cmpint(tr_output_dtype(OUT(read)), ==, TR_FLOAT32);
  g_assert_true(read->stateful);
}

static void
test_variable_assign_errors(void)
{
  int64_t dims[1] = {2};
  g_autoptr(TrVariable) v = tg_variable(tt_zeros(TR_FLOAT32, 1, dims), NULL);
  GError *error = NULL;
  g_autoptr(TrTensor) three = tt_zeros(TR_FLOAT32, 1, (int64_t[]){3});
  g_assert_false(tr_variable_assign(v, three, &error));
  assert_graph_error(&error, TR_GRAPH_ERROR_VALUE,
                     "Cannot assign value to variable ' Variable:0': Shape mismatch.The variable "
                     "shape (2,), and the assigned value shape (3,) are incompatible.");
  g_autoptr(TrTensor) ints = tt_zeros(TR_INT32, 1, dims);
  g_assert_false(tr_variable_assign(v, ints, &error));
  g_assert_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_VALUE);
  g_assert_true(g_str_has_prefix(
      error->message, "Tensor conversion requested dtype float32 for Tensor with dtype int32: "));
  g_clear_error(&error);

  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  TrNode *h = tr_graph_capture_variable(g, v, "v");
  TrNode *x = tg_placeholder(g, TR_FLOAT32, DIMS(3), "x");
  g_assert_null(
      tr_graph_add_assign_variable(g, TR_GOP_ASSIGN_VARIABLE, OUT(h), OUT(x), NULL, &error));
  assert_graph_error(&error, TR_GRAPH_ERROR_VALUE,
                     "Cannot assign value to variable ' Variable:0': Shape mismatch.The variable "
                     "shape (2,), and the assigned value shape (3,) are incompatible.");
  TrNode *y = tg_placeholder(g, TR_FLOAT32, DIMS(TR_UNKNOWN), "y");
  g_assert_nonnull(
      tr_graph_add_assign_variable(g, TR_GOP_ASSIGN_ADD_VARIABLE, OUT(h), OUT(y), NULL, &error));
  g_assert_no_error(error);
}

static void
test_automatic_control_dependencies(void)
{
  g_autoptr(TrVariable) v = tg_variable(tr_tensor_new_int32(1), NULL);
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  g_autoptr(GError) error = NULL;
  TrNode *h = tr_graph_capture_variable(g, v, NULL);
  TrNode *one = tg_const(g, tr_tensor_new_int32(1));
  TrNode *read = tr_graph_add_read_variable(g, OUT(h), NULL, &error);
  TrPrintArg args[2] = {{.text = "v ="}, {.tensor = OUT(read)}};
  TrNode *print = tr_graph_add_tf_print(g, args, 2, NULL, NULL, &error);
  TrNode *assign =
      tr_graph_add_assign_variable(g, TR_GOP_ASSIGN_ADD_VARIABLE, OUT(h), OUT(one), NULL, &error);
  TrNode *read_1 = tr_graph_add_read_variable(g, OUT(h), NULL, &error);
  g_assert_no_error(error);
  g_assert_cmpint(read->n_control, ==, 0);
  g_assert_cmpint(print->n_control, ==, 1);
  g_assert_true(print->control[0] == read);
  g_assert_true(assign->control[0] == print);
  g_assert_true(read_1->control[0] == assign);
  g_assert_cmpstr(read_1->name, ==, "ReadVariableOp_1");
  g_assert_cmpstr(assign->name, ==, "AssignAddVariableOp");
  g_assert_cmpstr(print->name, ==, "PrintV2");
  /* Pure nodes get no control edges. */
  TrNode *add = tg_op(g, TR_OP_ADD, read_1, one, NULL);
  g_assert_cmpint(add->n_control, ==, 0);
}

static void
test_children_for_control_flow(void)
{
  g_autoptr(TrGraph) g = tr_graph_new(NULL);
  g_autoptr(TrGraph) branch = tr_graph_new("cond_true_1");
  tg_placeholder(branch, TR_INT32, NODIMS, "x");
  TrNode *node = tr_graph_add_no_op(g, "cond");
  tr_node_add_child(node, branch);
  g_assert_cmpint(node->n_children, ==, 1);
  g_assert_true(tr_graph_parent(branch) == g);
}

/* Error domains are named as written: the formatter once spaced G_DEFINE_QUARK's argument. */
static void
test_error_domain_names(void)
{
  g_assert_cmpstr(g_quark_to_string(TR_ERROR), ==, "trellis-tensor-error-quark");
  g_assert_cmpstr(g_quark_to_string(TR_GRAPH_ERROR), ==, "tr-graph-error-quark");
}

void
tg_add_build_tests(void)
{
  g_test_add_func("/graph/errors/domain-names", test_error_domain_names);
  g_test_add_func("/graph/naming/add-then-add_1", test_add_then_add_1);
  g_test_add_func("/graph/naming/case-insensitive", test_names_case_insensitive);
  g_test_add_func("/graph/naming/skip-taken-suffix", test_names_skip_taken_suffix);
  g_test_add_func("/graph/naming/placeholders-after-parameters",
                  test_placeholders_after_parameters);
  g_test_add_func("/graph/naming/identity-outputs", test_identity_outputs);
  g_test_add_func("/graph/naming/name-scopes", test_name_scopes);
  g_test_add_func("/graph/naming/bad-characters", test_bad_name_characters);
  g_test_add_func("/graph/infer/partial-shape", test_partial_shape);
  g_test_add_func("/graph/infer/const-values-refine-shapes", test_const_values_refine_shapes);
  g_test_add_func("/graph/errors/dimensions-must-be-equal", test_dimensions_must_be_equal);
  g_test_add_func("/graph/errors/unknown-dims-print-as-question-marks",
                  test_dimensions_unknown_print_as_question_marks);
  g_test_add_func("/graph/errors/matmul-inner-dimensions", test_matmul_inner_dimensions);
  g_test_add_func("/graph/errors/dtype-mismatch-is-type-error", test_dtype_mismatch_is_type_error);
  g_test_add_func("/graph/errors/disallowed-dtype-is-type-error",
                  test_disallowed_dtype_is_type_error);
  g_test_add_func("/graph/errors/foreign-tensor-is-inaccessible",
                  test_foreign_tensor_is_inaccessible);
  g_test_add_func("/graph/variables/capture-once", test_variable_capture_once);
  g_test_add_func("/graph/variables/assign-errors", test_variable_assign_errors);
  g_test_add_func("/graph/stateful/automatic-control-dependencies",
                  test_automatic_control_dependencies);
  g_test_add_func("/graph/children/for-control-flow", test_children_for_control_flow);
}
