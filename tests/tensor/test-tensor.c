/* test-tensor.c — dtypes, shapes, buffers, views and the op table itself. */
#include "test-util.h"
#include "tr-tensor-private.h"

#include <string.h>

static void
test_dtype_names(void)
{
  g_assert_cmpstr(tr_dtype_name(TR_FLOAT32), ==, "float32");
  g_assert_cmpstr(tr_dtype_tf_name(TR_FLOAT32), ==, "float");
  g_assert_cmpstr(tr_dtype_tf_name(TR_FLOAT64), ==, "double");
  g_assert_cmpstr(tr_dtype_np_name(TR_STRING), ==, "object");
  g_assert_cmpint(tr_dtype_from_name("int64"), ==, TR_INT64);
  g_assert_cmpint(tr_dtype_from_name("double"), ==, TR_FLOAT64);
  g_assert_cmpint(tr_dtype_from_name("qint8"), ==, TR_DTYPE_INVALID);
  g_assert_cmpint(tr_dtype_from_name("complex64"), ==, TR_COMPLEX64);
  g_assert_cmpint(tr_dtype_from_name("half"), ==, TR_FLOAT16);
  g_assert_cmpstr(tr_dtype_tf_name(TR_FLOAT16), ==, "half");
  g_assert_cmpuint(tr_dtype_size(TR_BFLOAT16), ==, 2);
  g_assert_cmpuint(tr_dtype_size(TR_COMPLEX128), ==, 16);
  g_assert_true(tr_dtype_is_float(TR_BFLOAT16));
  g_assert_true(tr_dtype_is_int(TR_UINT64));
  g_assert_true(tr_dtype_is_unsigned(TR_UINT8));
  g_assert_false(tr_dtype_is_unsigned(TR_INT8));
  g_assert_false(tr_dtype_is_numeric(TR_COMPLEX64));
  g_assert_cmpint(tr_dtype_real(TR_COMPLEX64), ==, TR_FLOAT32);
  g_assert_cmpint(tr_dtype_enum(TR_FLOAT16), ==, 19);
  g_assert_cmpint(tr_dtype_enum(TR_UINT64), ==, 23);
  g_assert_cmpint(tr_dtype_enum(TR_BFLOAT16), ==, 14);
  g_assert_cmpuint(tr_dtype_size(TR_INT32), ==, 4);
  g_assert_true(tr_dtype_is_float(TR_FLOAT64));
  g_assert_false(tr_dtype_is_numeric(TR_BOOL));
}

static void
test_shape_strings(void)
{
  struct {
    TrShape shape;
    const char *str, *err;
  } cases[] = {
      {tr_shape_scalar(), "()", "[]"},
      {tr_shape_make(1, (int64_t[]){3}), "(3,)", "[3]"},
      {tr_shape_make(2, (int64_t[]){2, 3}), "(2, 3)", "[2,3]"},
      {tr_shape_make(2, (int64_t[]){TR_UNKNOWN, 3}), "(None, 3)", "[?,3]"},
      {tr_shape_unknown(), "<unknown>", "<unknown>"},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *s = tr_shape_to_string(&cases[i].shape);
    g_autofree char *e = tr_shape_to_error_string(&cases[i].shape);
    g_assert_cmpstr(s, ==, cases[i].str);
    g_assert_cmpstr(e, ==, cases[i].err);
  }
}

static void
test_shape_compatibility(void)
{
  TrShape none1 = tr_shape_make(1, (int64_t[]){TR_UNKNOWN});
  TrShape three = tr_shape_make(1, (int64_t[]){3});
  TrShape two_by_two = tr_shape_make(2, (int64_t[]){2, 2});
  TrShape unknown = tr_shape_unknown();
  g_assert_true(tr_shape_is_compatible_with(&none1, &three));
  g_assert_false(tr_shape_is_compatible_with(&three, &none1));
  g_assert_false(tr_shape_is_compatible_with(&none1, &two_by_two));
  g_assert_true(tr_shape_is_compatible_with(&unknown, &two_by_two));
  g_assert_false(tr_shape_is_fully_defined(&none1));
  g_assert_cmpint(tr_shape_num_elements(&two_by_two), ==, 4);
  g_assert_cmpint(tr_shape_num_elements(&none1), ==, TR_UNKNOWN);
}

static void
test_broadcast_shapes(void)
{
  TrShape out;
  g_autoptr(GError) error = NULL;
  TrShape a = tr_shape_make(2, (int64_t[]){2, 3});
  TrShape row = tr_shape_make(1, (int64_t[]){3});
  g_assert_true(tr_broadcast_shapes(&a, &row, &out, NULL, &error));
  g_assert_cmpint(out.rank, ==, 2);
  g_assert_cmpint(out.dims[1], ==, 3);

  TrShape c3 = tr_shape_make(3, (int64_t[]){4, 1, 1});
  g_assert_true(tr_broadcast_shapes(&a, &c3, &out, NULL, &error));
  g_autofree char *s = tr_shape_to_string(&out);
  g_assert_cmpstr(s, ==, "(4, 2, 3)");

  TrShape partial = tr_shape_make(2, (int64_t[]){TR_UNKNOWN, 3});
  g_assert_true(tr_broadcast_shapes(&partial, &row, &out, NULL, &error));
  g_assert_cmpint(out.dims[0], ==, TR_UNKNOWN);

  TrShape four = tr_shape_make(1, (int64_t[]){4});
  g_assert_false(tr_broadcast_shapes(&a, &four, &out, "AddV2", &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Incompatible shapes: [2,3] vs. [4] [Op:AddV2]");
}

static void
test_buffer_sharing_views(void)
{
  g_autoptr(TrTensor) t = TT(TR_INT32, DIMS(2, 3), VALS(0, 1, 2, 3, 4, 5));
  TrShape tshape = tr_shape_make(2, (int64_t[]){3, 2});
  g_autoptr(TrTensor) view =
      tr_tensor_new_view(t->buf, TR_INT32, &tshape, (int64_t[]){1, 3}, 0); /* transpose */
  g_assert_true(view->buf == t->buf);
  g_assert_cmpint(t->buf->refcount, ==, 2);
  g_assert_false(view->contiguous);
  tt_assert_tensor(view, TR_INT32, DIMS(3, 2), VALS(0, 3, 1, 4, 2, 5), 0);

  g_autoptr(TrTensor) copy = tr_tensor_contiguous(view);
  g_assert_true(copy->contiguous);
  g_assert_true(copy->buf != t->buf);
  g_assert_true(tr_tensor_equal(copy, view));
  const int32_t *data = tr_tensor_data(copy);
  g_assert_cmpint(data[1], ==, 3);

  g_autoptr(TrTensor) same = tr_tensor_contiguous(t);
  g_assert_true(same == t);
  tr_tensor_unref(same);
  same = NULL;
}

static void
test_strings_owned(void)
{
  g_autoptr(TrTensor) s = tt_strings(DIMS(2), STRS("ab", "c"));
  g_autoptr(TrTensor) copy = tr_tensor_new_from_data(TR_STRING, &s->shape, s->buf->data);
  g_assert_true(tr_tensor_equal(s, copy));
  const TrString *e = tr_tensor_get_string(copy, 0);
  g_assert_true(e->data != tr_tensor_get_string(s, 0)->data);
  g_assert_cmpstr(e->data, ==, "ab");

  g_autoptr(TrTensor) scalar = tr_tensor_new_string("x\0y", 3);
  g_assert_cmpuint(tr_tensor_get_string(scalar, 0)->len, ==, 3);
}

static void
test_scalars(void)
{
  g_autoptr(TrTensor) f = tr_tensor_new_float32(2.5f);
  g_autoptr(TrTensor) i = tr_tensor_new_int64(-7);
  g_autoptr(TrTensor) b = tr_tensor_new_bool(true);
  tt_assert_tensor(f, TR_FLOAT32, NODIMS, VALS(2.5), 0);
  tt_assert_tensor(i, TR_INT64, NODIMS, VALS(-7), 0);
  tt_assert_tensor(b, TR_BOOL, NODIMS, VALS(1), 0);
  g_assert_cmpint(tr_tensor_num_elements(f), ==, 1);
}

static void
test_empty_tensor(void)
{
  TrShape shape = tr_shape_make(2, (int64_t[]){0, 3});
  g_autoptr(TrTensor) t = tr_tensor_new(TR_FLOAT32, &shape);
  g_assert_cmpint(tr_tensor_num_elements(t), ==, 0);
  g_assert_null(t->buf->data);
}

static void
test_op_table_complete(void)
{
  GHashTable *types = g_hash_table_new(g_str_hash, g_str_equal);
  for (int op = 0; op < TR_N_OPS; op++) {
    const TrOpDef *def = tr_op_def(op);
    g_assert_nonnull(def->type);
    g_assert_nonnull(def->name);
    if (!def->infer || !def->kernel)
      g_error("op %s has no inference or kernel", def->type);
    g_assert_false(g_hash_table_contains(types, def->type));
    g_hash_table_add(types, (gpointer)def->type);
    g_assert_cmpint(tr_op_lookup(def->type), ==, op);
  }
  g_assert_cmpint(tr_op_lookup("NoSuchOp"), ==, -1);
  g_hash_table_unref(types);
}

static void
test_op_run_checks_arity(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) a = tr_tensor_new_float32(1);
  TrTensor *in[1] = {a};
  g_assert_null(tr_op_run(TR_OP_ADD, in, 1, NULL, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT, "AddV2 expects 2 inputs, got 1 [Op:AddV2]");
}

static void
test_huge_allocation_is_an_error(void)
{
  g_autoptr(GError) error = NULL;
  TrShape huge = tr_shape_make(1, (int64_t[]){(int64_t)1 << 40});
  g_autoptr(TrTensor) zero = tr_tensor_new_float32(0);
  g_assert_null(tr_fill(&huge, zero, &error));
  g_assert_error(error, TR_ERROR, TR_ERROR_RESOURCE_EXHAUSTED);
  g_assert_true(g_str_has_prefix(
      error->message, "OOM when allocating tensor with shape[1099511627776] and type float"));
}

/* Dims that are each valid but whose product overflows int64 are TensorShape's error, not a
 * tensor whose element count wrapped around. */
static void
test_element_count_overflow_is_an_error(void)
{
  g_autoptr(GError) error = NULL;
  g_assert_null(tr_eye((int64_t)1 << 32, (int64_t)1 << 32, TR_FLOAT32, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Encountered overflow when multiplying 4294967296 with 4294967296, result: -1");
  TrShape empty = tr_shape_make(1, (int64_t[]){0});
  g_autoptr(TrTensor) x = tr_tensor_new(TR_FLOAT32, &empty);
  int64_t huge[2] = {(int64_t)1 << 62, (int64_t)1 << 62};
  g_assert_null(tr_reshape(x, huge, 2, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Encountered overflow when multiplying 4611686018427387904 with "
                  "4611686018427387904, result: -1 [Op:Reshape]");
}

static void
test_dtype_mismatch_text(void)
{
  g_autoptr(GError) error = NULL;
  tr_set_dtype_mismatch(&error, "AddV2", 1, TR_INT32, TR_FLOAT32);
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "cannot compute AddV2 as input #1(zero-based) was expected to be a int32 "
                  "tensor but is a float tensor [Op:AddV2]");
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/tensor/dtype/names", test_dtype_names);
  g_test_add_func("/tensor/shape/strings", test_shape_strings);
  g_test_add_func("/tensor/shape/compatibility", test_shape_compatibility);
  g_test_add_func("/tensor/shape/broadcast", test_broadcast_shapes);
  g_test_add_func("/tensor/buffer/views-share-buffer", test_buffer_sharing_views);
  g_test_add_func("/tensor/buffer/strings-owned", test_strings_owned);
  g_test_add_func("/tensor/scalars", test_scalars);
  g_test_add_func("/tensor/empty", test_empty_tensor);
  g_test_add_func("/tensor/ops/table-complete", test_op_table_complete);
  g_test_add_func("/tensor/ops/run-checks-arity", test_op_run_checks_arity);
  g_test_add_func("/tensor/ops/huge-allocation-is-an-error", test_huge_allocation_is_an_error);
  g_test_add_func("/tensor/ops/element-count-overflow-is-an-error",
                  test_element_count_overflow_is_an_error);
  g_test_add_func("/tensor/ops/dtype-mismatch-text", test_dtype_mismatch_text);
  return g_test_run();
}
