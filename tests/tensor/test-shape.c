/* test-shape.c — Transpose, Reshape, ConcatV2, Pack, Squeeze, ExpandDims, GatherV2, OneHot and
 * StridedSlice: values (hand-computed or NumPy 1.24's), dtypes, views, partial-shape inference
 * and TensorFlow's error texts. */
#include "test-util.h"

/* ---- helpers ---------------------------------------------------------------------------- */

#define I64(...) ((const int64_t[]){__VA_ARGS__})

/* Default attrs with `axis` set (concat, stack, gather, one_hot, expand_dims). */
static TrAttrs
axis_attrs(int64_t axis)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.axis = axis;
  return attrs;
}

/* Run the op's kernel on a preallocated output, as the graph executor does. */
static TrTensor *
run_kernel(TrOpId op, TrTensor *const *in, int n_in, const TrAttrs *attrs, TrDType dtype, int rank,
           const int64_t *dims)
{
  TrShape shape = tr_shape_make(rank, dims);
  TrTensor *out = tr_tensor_new_uninit(dtype, &shape);
  g_autoptr(GError) error = NULL;
  g_assert_true(tr_op_def(op)->kernel(in, n_in, attrs, out, &error));
  g_assert_no_error(error);
  return out;
}

typedef struct {
  uint32_t begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask;
} Masks;

static TrTensor *
slice(TrTensor *x, int n, const int64_t *begin, const int64_t *end, const int64_t *strides, Masks m,
      GError **error)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.begin_mask = m.begin_mask;
  attrs.end_mask = m.end_mask;
  attrs.ellipsis_mask = m.ellipsis_mask;
  attrs.new_axis_mask = m.new_axis_mask;
  attrs.shrink_axis_mask = m.shrink_axis_mask;
  return tr_strided_slice(x, begin, end, strides, n, &attrs, error);
}

static bool
shares_buffer(const TrTensor *a, const TrTensor *b)
{
  return a->buf == b->buf;
}

/* ---- op table --------------------------------------------------------------------------- */

static void
test_defs_names_and_views(void)
{
  static const struct {
    TrOpId op;
    const char *name;
    int n_inputs;
    bool view;
  } rows[] = {
      {TR_OP_TRANSPOSE, "transpose", 1, true},
      {TR_OP_RESHAPE, "Reshape", -1, true}, /* the tensor, and maybe its shape as a tensor */
      {TR_OP_CONCAT, "concat", -1, false},
      {TR_OP_STACK, "stack", -1, false},
      {TR_OP_SQUEEZE, "Squeeze", 1, true},
      {TR_OP_EXPAND_DIMS, "ExpandDims", 1, true},
      {TR_OP_GATHER, "GatherV2", 2, false},
      {TR_OP_ONE_HOT, "one_hot", 1, false},
      {TR_OP_STRIDED_SLICE, "strided_slice", 4, true},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(rows); i++) {
    const TrOpDef *def = tt_assert_op_def(rows[i].op, rows[i].name, rows[i].n_inputs);
    g_assert_true((def->view != NULL) == rows[i].view);
    g_assert_false(def->flags & TR_OP_FLAG_STATEFUL);
  }
}

/* ---- Transpose -------------------------------------------------------------------------- */

static void
test_transpose_values_2d(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) x = TT(TR_FLOAT32, DIMS(2, 3), VALS(1, 2, 3, 4, 5, 6));
  g_autoptr(TrTensor) y = tr_transpose(x, I64(1, 0), 2, &error);
  g_assert_no_error(error);
  tt_assert_tensor(y, TR_FLOAT32, DIMS(3, 2), VALS(1, 4, 2, 5, 3, 6), 0);
}

static void
test_transpose_default_reverses(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) x = tt_arange(TR_INT32, DIMS(2, 3, 4));
  g_autoptr(TrTensor) y = tr_transpose(x, NULL, -1, &error);
  g_assert_no_error(error);
  tt_assert_tensor(
      y, TR_INT32, DIMS(4, 3, 2),
      VALS(0, 12, 4, 16, 8, 20, 1, 13, 5, 17, 9, 21, 2, 14, 6, 18, 10, 22, 3, 15, 7, 19, 11, 23),
      0);
  g_autoptr(TrTensor) z = tr_transpose(x, I64(1, 0, 2), 3, &error);
  tt_assert_tensor(
      z, TR_INT32, DIMS(3, 2, 4),
      VALS(0, 1, 2, 3, 12, 13, 14, 15, 4, 5, 6, 7, 16, 17, 18, 19, 8, 9, 10, 11, 20, 21, 22, 23),
      0);
}

static void
test_transpose_is_a_view(void)
{
  g_autoptr(TrTensor) x = tt_arange(TR_FLOAT64, DIMS(3, 4));
  g_autoptr(TrTensor) y = tr_transpose(x, NULL, -1, NULL);
  g_assert_true(shares_buffer(x, y));
  g_assert_false(y->contiguous);
  g_assert_cmpint(y->strides[0], ==, 1);
  g_assert_cmpint(y->strides[1], ==, 4);
  /* Transposing back gives the original layout, still on the same buffer. */
  g_autoptr(TrTensor) z = tr_transpose(y, NULL, -1, NULL);
  g_assert_true(shares_buffer(x, z));
  g_assert_true(z->contiguous);
}

static void
test_transpose_kernel_copies(void)
{
  g_autoptr(TrTensor) x = TT(TR_INT64, DIMS(2, 3), VALS(1, 2, 3, 4, 5, 6));
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.axes[0] = 1;
  attrs.axes[1] = 0;
  attrs.n_axes = 2;
  g_autoptr(TrTensor) out = run_kernel(TR_OP_TRANSPOSE, &x, 1, &attrs, TR_INT64, DIMS(3, 2));
  g_assert_false(shares_buffer(x, out));
  tt_assert_tensor(out, TR_INT64, DIMS(3, 2), VALS(1, 4, 2, 5, 3, 6), 0);
}

static void
test_transpose_strings(void)
{
  g_autoptr(TrTensor) x = tt_strings(DIMS(2, 2), STRS("a", "bb", "ccc", ""));
  g_autoptr(TrTensor) y = tr_transpose(x, NULL, -1, NULL);
  tt_assert_strings(y, DIMS(2, 2), STRS("a", "ccc", "bb", ""));
  /* A contiguous copy of the view owns new bytes. */
  g_autoptr(TrTensor) c = tr_tensor_contiguous(y);
  g_assert_true(tr_tensor_get_string(c, 1)->data != tr_tensor_get_string(x, 2)->data);
}

static void
test_transpose_errors(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) x = tt_arange(TR_FLOAT32, DIMS(2, 3, 4));
  g_assert_null(tr_transpose(x, I64(1, 0), 2, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "transpose expects a vector of size 3. But input(1) is a vector of size 2 "
                  "[Op:Transpose]");
  g_assert_null(tr_transpose(x, I64(0, 3, 1), 3, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT, "3 is out of range [0 .. 3) [Op:Transpose]");
  g_assert_null(tr_transpose(x, I64(0, -1, 1), 3, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT, "-1 is out of range [0 .. 3) [Op:Transpose]");
  g_assert_null(tr_transpose(x, I64(1, 1, 0), 3, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT, "2 is missing from {1,1,0}. [Op:Transpose]");
}

static void
test_transpose_infer_partial(void)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  TrTensorInfo x = tt_symbolic(TR_FLOAT32, DIMS(TR_UNKNOWN, 3));
  tt_assert_infers(TR_OP_TRANSPOSE, &x, 1, &attrs, TR_FLOAT32, "(3, None)");
  TrTensorInfo u = tt_symbolic(TR_INT32, UNKNOWN_RANK);
  tt_assert_infers(TR_OP_TRANSPOSE, &u, 1, &attrs, TR_INT32, "<unknown>");
  attrs.n_axes = 3;
  attrs.axes[0] = 2;
  attrs.axes[1] = 0;
  attrs.axes[2] = 1;
  tt_assert_infers(TR_OP_TRANSPOSE, &u, 1, &attrs, TR_INT32, "(None, None, None)");
}

/* ---- Reshape ---------------------------------------------------------------------------- */

static void
test_reshape_values_and_minus_one(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) x = tt_arange(TR_INT32, DIMS(2, 3));
  g_autoptr(TrTensor) y = tr_reshape(x, I64(3, -1), 2, &error);
  g_assert_no_error(error);
  tt_assert_tensor(y, TR_INT32, DIMS(3, 2), VALS(0, 1, 2, 3, 4, 5), 0);
  g_autoptr(TrTensor) flat = tr_reshape(x, I64(-1), 1, &error);
  tt_assert_tensor(flat, TR_INT32, DIMS(6), VALS(0, 1, 2, 3, 4, 5), 0);
  g_autoptr(TrTensor) s = TT(TR_FLOAT32, DIMS(1, 1), VALS(7));
  g_autoptr(TrTensor) scalar = tr_reshape(s, NULL, 0, &error);
  tt_assert_tensor(scalar, TR_FLOAT32, NODIMS, VALS(7), 0);
}

static void
test_reshape_is_a_view_when_contiguous(void)
{
  g_autoptr(TrTensor) x = tt_arange(TR_FLOAT32, DIMS(4, 6));
  g_autoptr(TrTensor) y = tr_reshape(x, I64(2, 3, 4), 3, NULL);
  g_assert_true(shares_buffer(x, y));
  g_assert_true(y->contiguous);
  /* A dense slice (rows 1..2) has an offset but no gaps: reshaping it is a view too. */
  g_autoptr(TrTensor) rows = slice(x, 1, I64(1), I64(3), I64(1), (Masks){0}, NULL);
  g_autoptr(TrTensor) r = tr_reshape(rows, I64(12), 1, NULL);
  g_assert_true(shares_buffer(x, r));
  tt_assert_tensor(r, TR_FLOAT32, DIMS(12), VALS(6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17), 0);
}

static void
test_reshape_copies_a_strided_input(void)
{
  g_autoptr(TrTensor) x = tt_arange(TR_INT64, DIMS(2, 3));
  g_autoptr(TrTensor) t = tr_transpose(x, NULL, -1, NULL);
  g_autoptr(TrTensor) y = tr_reshape(t, I64(6), 1, NULL);
  g_assert_false(shares_buffer(x, y));
  tt_assert_tensor(y, TR_INT64, DIMS(6), VALS(0, 3, 1, 4, 2, 5), 0);
}

static void
test_reshape_strings(void)
{
  g_autoptr(TrTensor) x = tt_strings(DIMS(2, 2), STRS("w", "x", "y", "z"));
  g_autoptr(TrTensor) v = tr_reshape(x, I64(4), 1, NULL);
  g_assert_true(shares_buffer(x, v));
  tt_assert_strings(v, DIMS(4), STRS("w", "x", "y", "z"));
  g_autoptr(TrTensor) t = tr_transpose(x, NULL, -1, NULL);
  g_autoptr(TrTensor) c = tr_reshape(t, I64(4), 1, NULL);
  g_assert_false(shares_buffer(x, c));
  tt_assert_strings(c, DIMS(4), STRS("w", "y", "x", "z"));
  g_assert_true(tr_tensor_get_string(c, 0)->data != tr_tensor_get_string(x, 0)->data);
}

static void
test_reshape_empty(void)
{
  g_autoptr(TrTensor) x = tt_arange(TR_FLOAT32, DIMS(0, 3));
  g_autoptr(TrTensor) a = tr_reshape(x, I64(-1, 3), 2, NULL);
  tt_assert_tensor(a, TR_FLOAT32, DIMS(0, 3), VALS(0), 0);
  /* TF leaves zero-sized input dims out when the request has a zero: -1 becomes 3. */
  g_autoptr(TrTensor) b = tr_reshape(x, I64(-1, 0), 2, NULL);
  tt_assert_tensor(b, TR_FLOAT32, DIMS(3, 0), VALS(0), 0);
}

static void
test_reshape_errors(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) x = tt_arange(TR_FLOAT32, DIMS(2, 2));
  g_assert_null(tr_reshape(x, I64(2, 3), 2, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Input to reshape is a tensor with 4 values, but the requested shape has 6 "
                  "[Op:Reshape]");
  g_autoptr(TrTensor) five = tt_arange(TR_INT32, DIMS(5));
  g_assert_null(tr_reshape(five, I64(-1, 2), 2, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Input to reshape is a tensor with 5 values, but the requested shape requires "
                  "a multiple of 2 [Op:Reshape]");
  g_assert_null(tr_reshape(x, I64(-1, -1), 2, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Only one input size may be -1, not both 0 and 1 [Op:Reshape]");
  g_assert_null(tr_reshape(x, I64(2, -2), 2, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Size 1 must be non-negative, not -2 [Op:Reshape]");
}

static void
test_reshape_infer_partial(void)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.n_axes = 2;
  attrs.axes[0] = -1;
  attrs.axes[1] = 2;
  TrTensorInfo x = tt_symbolic(TR_FLOAT32, DIMS(TR_UNKNOWN, 4));
  tt_assert_infers(TR_OP_RESHAPE, &x, 1, &attrs, TR_FLOAT32, "(None, 2)");
  TrTensorInfo known = tt_symbolic(TR_STRING, DIMS(3, 4));
  tt_assert_infers(TR_OP_RESHAPE, &known, 1, &attrs, TR_STRING, "(6, 2)");
  TrTensorInfo u = tt_symbolic(TR_BOOL, UNKNOWN_RANK);
  tt_assert_infers(TR_OP_RESHAPE, &u, 1, &attrs, TR_BOOL, "(None, 2)");
}

/* ---- ConcatV2 --------------------------------------------------------------------------- */

static void
test_concat_values_by_axis(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) a = TT(TR_FLOAT32, DIMS(2, 2), VALS(1, 2, 3, 4));
  g_autoptr(TrTensor) b = TT(TR_FLOAT32, DIMS(2, 1), VALS(5, 6));
  g_autoptr(TrTensor) c = TT(TR_FLOAT32, DIMS(2, 3), VALS(7, 8, 9, 10, 11, 12));
  TrTensor *xs[] = {a, b, c};
  g_autoptr(TrTensor) y = tr_concat(xs, 3, 1, &error);
  g_assert_no_error(error);
  tt_assert_tensor(y, TR_FLOAT32, DIMS(2, 6), VALS(1, 2, 5, 7, 8, 9, 3, 4, 6, 10, 11, 12), 0);
  g_autoptr(TrTensor) z = tr_concat(xs, 3, -1, &error);
  g_assert_true(tr_tensor_equal(y, z));
  TrTensor *rows[] = {a, a};
  g_autoptr(TrTensor) r = tr_concat(rows, 2, 0, &error);
  tt_assert_tensor(r, TR_FLOAT32, DIMS(4, 2), VALS(1, 2, 3, 4, 1, 2, 3, 4), 0);
}

static void
test_concat_strided_inputs(void)
{
  g_autoptr(TrTensor) a = tt_arange(TR_INT32, DIMS(2, 3));
  g_autoptr(TrTensor) at = tr_transpose(a, NULL, -1, NULL); /* [[0,3],[1,4],[2,5]] */
  g_autoptr(TrTensor) b = TT(TR_INT32, DIMS(3, 1), VALS(9, 9, 9));
  TrTensor *xs[] = {at, b};
  g_autoptr(TrTensor) y = tr_concat(xs, 2, 1, NULL);
  tt_assert_tensor(y, TR_INT32, DIMS(3, 3), VALS(0, 3, 9, 1, 4, 9, 2, 5, 9), 0);
}

static void
test_concat_dtypes(void)
{
  g_autoptr(TrTensor) a = TT(TR_BOOL, DIMS(2), VALS(1, 0));
  g_autoptr(TrTensor) b = TT(TR_BOOL, DIMS(1), VALS(1));
  TrTensor *bools[] = {a, b};
  g_autoptr(TrTensor) y = tr_concat(bools, 2, 0, NULL);
  tt_assert_tensor(y, TR_BOOL, DIMS(3), VALS(1, 0, 1), 0);
  g_autoptr(TrTensor) s1 = tt_strings(DIMS(1, 2), STRS("a", "b"));
  g_autoptr(TrTensor) s2 = tt_strings(DIMS(1, 2), STRS("cc", ""));
  TrTensor *strs[] = {s1, s2};
  g_autoptr(TrTensor) s = tr_concat(strs, 2, 0, NULL);
  tt_assert_strings(s, DIMS(2, 2), STRS("a", "b", "cc", ""));
  g_assert_true(tr_tensor_get_string(s, 0)->data != tr_tensor_get_string(s1, 0)->data);
  g_autoptr(TrTensor) i1 = TT(TR_INT64, DIMS(1), VALS(5));
  TrTensor *one[] = {i1};
  g_autoptr(TrTensor) single = tr_concat(one, 1, 0, NULL);
  tt_assert_tensor(single, TR_INT64, DIMS(1), VALS(5), 0);
}

static void
test_concat_scalars_make_a_vector(void)
{
  g_autoptr(TrTensor) a = TT_SCALAR(TR_INT32, 1);
  g_autoptr(TrTensor) b = TT_SCALAR(TR_INT32, 2);
  TrTensor *xs[] = {a, b};
  g_autoptr(TrTensor) y = tr_concat(xs, 2, 0, NULL);
  tt_assert_tensor(y, TR_INT32, DIMS(2), VALS(1, 2), 0);
}

static void
test_concat_large_blocks(void)
{
  g_autoptr(TrTensor) a = tt_arange(TR_FLOAT64, DIMS(100, 300));
  g_autoptr(TrTensor) b = tt_arange(TR_FLOAT64, DIMS(100, 200));
  TrTensor *xs[] = {a, b};
  g_autoptr(TrTensor) y = tr_concat(xs, 2, 1, NULL);
  g_assert_cmpint(y->shape.dims[1], ==, 500);
  for (int64_t r = 0; r < 100; r += 33) {
    g_assert_cmpfloat(tr_tensor_get_f64(y, r * 500 + 299), ==, r * 300 + 299);
    g_assert_cmpfloat(tr_tensor_get_f64(y, r * 500 + 300), ==, r * 200);
  }
}

static void
test_concat_errors(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) a = tt_arange(TR_FLOAT32, DIMS(2, 2));
  g_autoptr(TrTensor) b = tt_arange(TR_FLOAT32, DIMS(2, 3));
  TrTensor *ab[] = {a, b};
  g_assert_null(tr_concat(ab, 2, 0, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "ConcatOp : Dimension 1 in both shapes must be equal: shape[0] = [2,2] vs. "
                  "shape[1] = [2,3] [Op:ConcatV2]");
  g_assert_null(tr_concat(ab, 2, 2, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "ConcatOp : Expected concatenating dimensions in the range [-2, 2), but got 2 "
                  "[Op:ConcatV2]");
  g_autoptr(TrTensor) v = tt_arange(TR_FLOAT32, DIMS(2));
  TrTensor *av[] = {a, v};
  g_assert_null(tr_concat(av, 2, 0, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "ConcatOp : Ranks of all input tensors should match: shape[0] = [2,2] vs. "
                  "shape[1] = [2] [Op:ConcatV2]");
  g_autoptr(TrTensor) i = tt_arange(TR_INT32, DIMS(2, 2));
  TrTensor *ai[] = {a, i};
  g_assert_null(tr_concat(ai, 2, 0, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "cannot compute ConcatV2 as input #1(zero-based) was expected to be a float "
                  "tensor but is a int32 tensor [Op:ConcatV2]");
}

static void
test_concat_infer_partial(void)
{
  TrAttrs attrs = axis_attrs(1);
  TrTensorInfo in[3] = {tt_symbolic(TR_FLOAT32, DIMS(TR_UNKNOWN, 2)),
                        tt_symbolic(TR_FLOAT32, DIMS(TR_UNKNOWN, 3)),
                        tt_symbolic(TR_FLOAT32, DIMS(4, 1))};
  tt_assert_infers(TR_OP_CONCAT, in, 3, &attrs, TR_FLOAT32, "(4, 6)");
  in[2] = tt_symbolic(TR_FLOAT32, DIMS(4, TR_UNKNOWN));
  tt_assert_infers(TR_OP_CONCAT, in, 3, &attrs, TR_FLOAT32, "(4, None)");
  in[0] = tt_symbolic(TR_FLOAT32, UNKNOWN_RANK);
  in[2] = tt_symbolic(TR_FLOAT32, DIMS(4, 1));
  tt_assert_infers(TR_OP_CONCAT, in, 3, &attrs, TR_FLOAT32, "(4, None)");
  TrTensorInfo unknown[2] = {tt_symbolic(TR_INT32, UNKNOWN_RANK),
                             tt_symbolic(TR_INT32, UNKNOWN_RANK)};
  tt_assert_infers(TR_OP_CONCAT, unknown, 2, &attrs, TR_INT32, "<unknown>");
}

/* ---- Pack (stack) ----------------------------------------------------------------------- */

static void
test_stack_values_by_axis(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) a = TT(TR_INT32, DIMS(2), VALS(1, 2));
  g_autoptr(TrTensor) b = TT(TR_INT32, DIMS(2), VALS(3, 4));
  g_autoptr(TrTensor) c = TT(TR_INT32, DIMS(2), VALS(5, 6));
  TrTensor *xs[] = {a, b, c};
  g_autoptr(TrTensor) y0 = tr_stack(xs, 3, 0, &error);
  g_assert_no_error(error);
  tt_assert_tensor(y0, TR_INT32, DIMS(3, 2), VALS(1, 2, 3, 4, 5, 6), 0);
  g_autoptr(TrTensor) y1 = tr_stack(xs, 3, 1, &error);
  tt_assert_tensor(y1, TR_INT32, DIMS(2, 3), VALS(1, 3, 5, 2, 4, 6), 0);
  g_autoptr(TrTensor) yn = tr_stack(xs, 3, -1, &error);
  g_assert_true(tr_tensor_equal(y1, yn));
}

static void
test_stack_scalars_and_strings(void)
{
  g_autoptr(TrTensor) a = TT_SCALAR(TR_FLOAT64, 1.5);
  g_autoptr(TrTensor) b = TT_SCALAR(TR_FLOAT64, -2);
  TrTensor *xs[] = {a, b};
  g_autoptr(TrTensor) y = tr_stack(xs, 2, 0, NULL);
  tt_assert_tensor(y, TR_FLOAT64, DIMS(2), VALS(1.5, -2), 0);
  g_autoptr(TrTensor) s1 = tt_strings(DIMS(2), STRS("a", "b"));
  g_autoptr(TrTensor) s2 = tt_strings(DIMS(2), STRS("c", "d"));
  TrTensor *ss[] = {s1, s2};
  g_autoptr(TrTensor) s = tr_stack(ss, 2, 1, NULL);
  tt_assert_strings(s, DIMS(2, 2), STRS("a", "c", "b", "d"));
}

static void
test_stack_strided_inputs(void)
{
  g_autoptr(TrTensor) a = tt_arange(TR_FLOAT32, DIMS(2, 2));
  g_autoptr(TrTensor) at = tr_transpose(a, NULL, -1, NULL);
  TrTensor *xs[] = {a, at};
  g_autoptr(TrTensor) y = tr_stack(xs, 2, 1, NULL);
  tt_assert_tensor(y, TR_FLOAT32, DIMS(2, 2, 2), VALS(0, 1, 0, 2, 2, 3, 1, 3), 0);
}

static void
test_stack_errors(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) a = tt_arange(TR_FLOAT32, DIMS(2, 2));
  g_autoptr(TrTensor) b = tt_arange(TR_FLOAT32, DIMS(2, 3));
  TrTensor *aa[] = {a, a}, *ab[] = {a, b};
  g_assert_null(tr_stack(aa, 2, 3, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT, "axis = 3 not in [-3, 3) [Op:Pack]");
  g_assert_null(tr_stack(aa, 2, -4, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT, "axis = -4 not in [-3, 3) [Op:Pack]");
  g_assert_null(tr_stack(ab, 2, 0, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Shapes of all inputs must match: values[0].shape = [2,2] != values[1].shape = "
                  "[2,3] [Op:Pack]");
  g_autoptr(TrTensor) s = tt_strings(DIMS(2, 2), STRS("a", "b", "c", "d"));
  TrTensor *as[] = {a, s};
  g_assert_null(tr_stack(as, 2, 0, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "cannot compute Pack as input #1(zero-based) was expected to be a float tensor "
                  "but is a string tensor [Op:Pack]");
}

static void
test_stack_infer_partial(void)
{
  TrAttrs attrs = axis_attrs(1);
  TrTensorInfo in[2] = {tt_symbolic(TR_INT64, DIMS(TR_UNKNOWN, 3)),
                        tt_symbolic(TR_INT64, DIMS(2, TR_UNKNOWN))};
  tt_assert_infers(TR_OP_STACK, in, 2, &attrs, TR_INT64, "(2, 2, 3)");
  in[1] = tt_symbolic(TR_INT64, UNKNOWN_RANK);
  tt_assert_infers(TR_OP_STACK, in, 2, &attrs, TR_INT64, "(None, 2, 3)");
}

/* ---- Squeeze ---------------------------------------------------------------------------- */

static void
test_squeeze_all_and_axes(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) x = tt_arange(TR_INT32, DIMS(1, 3, 1, 2));
  g_autoptr(TrTensor) all = tr_squeeze(x, NULL, -1, &error);
  g_assert_no_error(error);
  tt_assert_tensor(all, TR_INT32, DIMS(3, 2), VALS(0, 1, 2, 3, 4, 5), 0);
  g_autoptr(TrTensor) one = tr_squeeze(x, I64(2), 1, &error);
  tt_assert_tensor(one, TR_INT32, DIMS(1, 3, 2), VALS(0, 1, 2, 3, 4, 5), 0);
  g_autoptr(TrTensor) neg = tr_squeeze(x, I64(-4, -2), 2, &error);
  tt_assert_tensor(neg, TR_INT32, DIMS(3, 2), VALS(0, 1, 2, 3, 4, 5), 0);
}

static void
test_squeeze_is_a_view(void)
{
  g_autoptr(TrTensor) x = tt_arange(TR_FLOAT32, DIMS(3, 1, 4));
  g_autoptr(TrTensor) t = tr_transpose(x, I64(2, 1, 0), 3, NULL);
  g_autoptr(TrTensor) y = tr_squeeze(t, NULL, -1, NULL);
  g_assert_true(shares_buffer(x, y));
  tt_assert_tensor(y, TR_FLOAT32, DIMS(4, 3), VALS(0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11), 0);
  g_autoptr(TrTensor) s = tt_strings(DIMS(1, 2), STRS("p", "q"));
  g_autoptr(TrTensor) sq = tr_squeeze(s, NULL, -1, NULL);
  g_assert_true(shares_buffer(s, sq));
  tt_assert_strings(sq, DIMS(2), STRS("p", "q"));
}

static void
test_squeeze_errors(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) x = tt_arange(TR_FLOAT32, DIMS(2, 1));
  g_assert_null(tr_squeeze(x, I64(0), 1, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Can not squeeze dim[0], expected a dimension of 1, got 2 [Op:Squeeze]");
  g_assert_null(tr_squeeze(x, I64(2), 1, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Tried to squeeze dim index 2 for tensor with 2 dimensions. [Op:Squeeze]");
  g_assert_null(tr_squeeze(x, I64(-3), 1, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Tried to squeeze dim index -3 for tensor with 2 dimensions. [Op:Squeeze]");
}

static void
test_squeeze_infer_partial(void)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  TrTensorInfo x = tt_symbolic(TR_FLOAT32, DIMS(1, TR_UNKNOWN, 3));
  tt_assert_infers(TR_OP_SQUEEZE, &x, 1, &attrs, TR_FLOAT32, "<unknown>");
  attrs.n_axes = 1;
  attrs.axes[0] = 0;
  tt_assert_infers(TR_OP_SQUEEZE, &x, 1, &attrs, TR_FLOAT32, "(None, 3)");
  attrs.axes[0] = 1; /* an unknown dim named explicitly is taken to be 1 */
  tt_assert_infers(TR_OP_SQUEEZE, &x, 1, &attrs, TR_FLOAT32, "(1, 3)");
  TrTensorInfo known = tt_symbolic(TR_INT32, DIMS(1, 2, 1));
  tr_attrs_init(&attrs);
  tt_assert_infers(TR_OP_SQUEEZE, &known, 1, &attrs, TR_INT32, "(2,)");
}

/* ---- ExpandDims ------------------------------------------------------------------------- */

static void
test_expand_dims_positions(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) x = tt_arange(TR_INT64, DIMS(2, 3));
  g_autoptr(TrTensor) a = tr_expand_dims(x, 0, &error);
  g_assert_no_error(error);
  tt_assert_tensor(a, TR_INT64, DIMS(1, 2, 3), VALS(0, 1, 2, 3, 4, 5), 0);
  g_autoptr(TrTensor) b = tr_expand_dims(x, 1, &error);
  tt_assert_tensor(b, TR_INT64, DIMS(2, 1, 3), VALS(0, 1, 2, 3, 4, 5), 0);
  g_autoptr(TrTensor) c = tr_expand_dims(x, -1, &error);
  tt_assert_tensor(c, TR_INT64, DIMS(2, 3, 1), VALS(0, 1, 2, 3, 4, 5), 0);
  g_autoptr(TrTensor) d = tr_expand_dims(x, -3, &error);
  tt_assert_tensor(d, TR_INT64, DIMS(1, 2, 3), VALS(0, 1, 2, 3, 4, 5), 0);
  g_autoptr(TrTensor) s = TT_SCALAR(TR_BOOL, 1);
  g_autoptr(TrTensor) e = tr_expand_dims(s, 0, &error);
  tt_assert_tensor(e, TR_BOOL, DIMS(1), VALS(1), 0);
}

static void
test_expand_dims_is_a_view(void)
{
  g_autoptr(TrTensor) x = tt_arange(TR_FLOAT32, DIMS(2, 3));
  g_autoptr(TrTensor) y = tr_expand_dims(x, 1, NULL);
  g_assert_true(shares_buffer(x, y));
  g_assert_true(y->contiguous);
  g_autoptr(TrTensor) t = tr_transpose(x, NULL, -1, NULL);
  g_autoptr(TrTensor) z = tr_expand_dims(t, 2, NULL);
  g_assert_true(shares_buffer(x, z));
  tt_assert_tensor(z, TR_FLOAT32, DIMS(3, 2, 1), VALS(0, 3, 1, 4, 2, 5), 0);
  TrAttrs attrs = axis_attrs(0);
  g_autoptr(TrTensor) k = run_kernel(TR_OP_EXPAND_DIMS, &t, 1, &attrs, TR_FLOAT32, DIMS(1, 3, 2));
  tt_assert_tensor(k, TR_FLOAT32, DIMS(1, 3, 2), VALS(0, 3, 1, 4, 2, 5), 0);
}

static void
test_expand_dims_errors(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) x = tt_arange(TR_FLOAT32, DIMS(4));
  g_assert_null(tr_expand_dims(x, 2, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Tried to expand dim index 2 for tensor with 1 dimensions. [Op:ExpandDims]");
  g_assert_null(tr_expand_dims(x, -3, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Tried to expand dim index -3 for tensor with 1 dimensions. [Op:ExpandDims]");
}

static void
test_expand_dims_infer_partial(void)
{
  TrAttrs attrs = axis_attrs(-1);
  TrTensorInfo x = tt_symbolic(TR_STRING, DIMS(TR_UNKNOWN, 2));
  tt_assert_infers(TR_OP_EXPAND_DIMS, &x, 1, &attrs, TR_STRING, "(None, 2, 1)");
  TrTensorInfo u = tt_symbolic(TR_STRING, UNKNOWN_RANK);
  tt_assert_infers(TR_OP_EXPAND_DIMS, &u, 1, &attrs, TR_STRING, "<unknown>");
}

/* ---- GatherV2 --------------------------------------------------------------------------- */

static void
test_gather_rows_and_columns(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) x = tt_arange(TR_FLOAT32, DIMS(4, 5));
  g_autoptr(TrTensor) rows = TT(TR_INT32, DIMS(3), VALS(3, 0, 3));
  g_autoptr(TrTensor) r = tr_gather(x, rows, 0, &error);
  g_assert_no_error(error);
  tt_assert_tensor(r, TR_FLOAT32, DIMS(3, 5),
                   VALS(15, 16, 17, 18, 19, 0, 1, 2, 3, 4, 15, 16, 17, 18, 19), 0);
  g_autoptr(TrTensor) cols = TT(TR_INT64, DIMS(3), VALS(4, 0, 0));
  g_autoptr(TrTensor) c = tr_gather(x, cols, 1, &error);
  tt_assert_tensor(c, TR_FLOAT32, DIMS(4, 3), VALS(4, 0, 0, 9, 5, 5, 14, 10, 10, 19, 15, 15), 0);
}

static void
test_gather_index_shapes(void)
{
  g_autoptr(TrTensor) x = tt_arange(TR_INT32, DIMS(4, 5));
  g_autoptr(TrTensor) idx = TT(TR_INT32, DIMS(2, 2), VALS(3, 1, 0, 0));
  g_autoptr(TrTensor) y = tr_gather(x, idx, 0, NULL);
  tt_assert_tensor(y, TR_INT32, DIMS(2, 2, 5),
                   VALS(15, 16, 17, 18, 19, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4), 0);
  g_autoptr(TrTensor) one = TT_SCALAR(TR_INT64, 2);
  g_autoptr(TrTensor) row = tr_gather(x, one, 0, NULL);
  tt_assert_tensor(row, TR_INT32, DIMS(5), VALS(10, 11, 12, 13, 14), 0);
  g_autoptr(TrTensor) cube = tt_arange(TR_INT32, DIMS(2, 3, 4));
  g_autoptr(TrTensor) last = TT(TR_INT32, DIMS(2), VALS(2, 0));
  g_autoptr(TrTensor) z = tr_gather(cube, last, -1, NULL);
  tt_assert_tensor(z, TR_INT32, DIMS(2, 3, 2), VALS(2, 0, 6, 4, 10, 8, 14, 12, 18, 16, 22, 20), 0);
}

static void
test_gather_strided_params_and_strings(void)
{
  g_autoptr(TrTensor) x = tt_arange(TR_FLOAT64, DIMS(3, 2));
  g_autoptr(TrTensor) t = tr_transpose(x, NULL, -1, NULL); /* [[0,2,4],[1,3,5]] */
  g_autoptr(TrTensor) idx = TT(TR_INT32, DIMS(2), VALS(2, 0));
  g_autoptr(TrTensor) y = tr_gather(t, idx, 1, NULL);
  tt_assert_tensor(y, TR_FLOAT64, DIMS(2, 2), VALS(4, 0, 5, 1), 0);
  g_autoptr(TrTensor) s = tt_strings(DIMS(3), STRS("zero", "one", "two"));
  g_autoptr(TrTensor) sidx = TT(TR_INT64, DIMS(4), VALS(2, 2, 0, 1));
  g_autoptr(TrTensor) g = tr_gather(s, sidx, 0, NULL);
  tt_assert_strings(g, DIMS(4), STRS("two", "two", "zero", "one"));
  g_assert_true(tr_tensor_get_string(g, 0)->data != tr_tensor_get_string(g, 1)->data);
}

static void
test_gather_errors(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) x = tt_arange(TR_FLOAT32, DIMS(3, 2));
  g_autoptr(TrTensor) bad = TT(TR_INT32, DIMS(3), VALS(0, 5, 7));
  g_assert_null(tr_gather(x, bad, 0, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "indices[1] = 5 is not in [0, 3) [Op:GatherV2]");
  g_autoptr(TrTensor) neg = TT(TR_INT64, DIMS(2, 2), VALS(0, 1, -1, 0));
  g_assert_null(tr_gather(x, neg, 0, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "indices[1,0] = -1 is not in [0, 3) [Op:GatherV2]");
  g_autoptr(TrTensor) scalar = TT_SCALAR(TR_INT32, 2);
  g_assert_null(tr_gather(x, scalar, 1, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT, "indices = 2 is not in [0, 2) [Op:GatherV2]");
  g_assert_null(tr_gather(x, scalar, 2, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Shape must be at least rank 3 but is rank 2 [Op:GatherV2]");
  g_autoptr(TrTensor) p0 = TT_SCALAR(TR_FLOAT32, 1);
  g_assert_null(tr_gather(p0, scalar, 0, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "params must be at least 1 dimensional [Op:GatherV2]");
  g_autoptr(TrTensor) fidx = TT(TR_FLOAT32, DIMS(1), VALS(0));
  g_assert_null(tr_gather(x, fidx, 0, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Value for attr 'Tindices' of float is not in the list of allowed values: "
                  "int32, int64 [Op:GatherV2]");
  /* Nothing is read from an empty params slice, so no index is checked (as in TF). */
  g_autoptr(TrTensor) empty = tt_arange(TR_FLOAT32, DIMS(3, 0));
  g_autoptr(TrTensor) e = tr_gather(empty, bad, 0, &error);
  g_assert_no_error(error);
  tt_assert_tensor(e, TR_FLOAT32, DIMS(3, 0), VALS(0), 0);
}

static void
test_gather_infer_partial(void)
{
  TrAttrs attrs = axis_attrs(1);
  TrTensorInfo in[2] = {tt_symbolic(TR_FLOAT32, DIMS(TR_UNKNOWN, 5, 7)),
                        tt_symbolic(TR_INT32, DIMS(2, TR_UNKNOWN))};
  tt_assert_infers(TR_OP_GATHER, in, 2, &attrs, TR_FLOAT32, "(None, 2, None, 7)");
  in[1] = tt_symbolic(TR_INT64, UNKNOWN_RANK);
  tt_assert_infers(TR_OP_GATHER, in, 2, &attrs, TR_FLOAT32, "<unknown>");
}

/* ---- OneHot ----------------------------------------------------------------------------- */

static void
test_one_hot_values(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) idx = TT(TR_INT32, DIMS(4), VALS(0, 2, -1, 5));
  g_autoptr(TrTensor) y = tr_one_hot(idx, 3, 1, 0, -1, TR_DTYPE_INVALID, &error);
  g_assert_no_error(error);
  /* Out-of-range indices (-1, 5) give rows of off_value. */
  tt_assert_tensor(y, TR_FLOAT32, DIMS(4, 3), VALS(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0), 0);
  g_autoptr(TrTensor) z = tr_one_hot(idx, 3, 5, -1, 0, TR_INT32, &error);
  tt_assert_tensor(z, TR_INT32, DIMS(3, 4), VALS(5, -1, -1, -1, -1, -1, -1, -1, -1, 5, -1, -1), 0);
}

static void
test_one_hot_axis_and_dtypes(void)
{
  g_autoptr(TrTensor) idx = TT(TR_INT64, DIMS(2, 2), VALS(1, 0, 2, 1));
  g_autoptr(TrTensor) y = tr_one_hot(idx, 3, 1, 0, 1, TR_BOOL, NULL);
  /* [[[0,1],[1,0],[0,0]], [[0,0],[0,1],[1,0]]] */
  tt_assert_tensor(y, TR_BOOL, DIMS(2, 3, 2), VALS(0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0), 0);
  g_autoptr(TrTensor) d = tr_one_hot(idx, 2, 0.5, 0.25, -1, TR_FLOAT64, NULL);
  tt_assert_tensor(d, TR_FLOAT64, DIMS(2, 2, 2), VALS(.25, .5, .5, .25, .25, .25, .25, .5), 0);
  g_autoptr(TrTensor) s = TT_SCALAR(TR_INT32, 1);
  g_autoptr(TrTensor) v = tr_one_hot(s, 3, 1, 0, -1, TR_INT64, NULL);
  tt_assert_tensor(v, TR_INT64, DIMS(3), VALS(0, 1, 0), 0);
}

static void
test_one_hot_errors(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) idx = TT(TR_INT32, DIMS(2, 2), VALS(0, 1, 1, 0));
  g_assert_null(tr_one_hot(idx, 3, 1, 0, 3, TR_FLOAT32, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Expected axis to be -1 or between [0, 3).  But received: 3 [Op:OneHot]");
  g_assert_null(tr_one_hot(idx, 3, 1, 0, -2, TR_FLOAT32, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Expected axis to be -1 or between [0, 3).  But received: -2 [Op:OneHot]");
  g_assert_null(tr_one_hot(idx, -1, 1, 0, -1, TR_FLOAT32, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "depth must be non-negative, got: -1 [Op:OneHot]");
  g_autoptr(TrTensor) fidx = TT(TR_FLOAT32, DIMS(1), VALS(0));
  g_assert_null(tr_one_hot(fidx, 3, 1, 0, -1, TR_FLOAT32, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Value for attr 'TI' of float is not in the list of allowed values: int32, "
                  "int64 [Op:OneHot]");
}

static void
test_one_hot_infer_partial(void)
{
  TrAttrs attrs = axis_attrs(-1);
  attrs.depth = 10;
  TrTensorInfo x = tt_symbolic(TR_INT32, DIMS(TR_UNKNOWN));
  tt_assert_infers(TR_OP_ONE_HOT, &x, 1, &attrs, TR_FLOAT32, "(None, 10)");
  attrs.axis = 0;
  attrs.dtype = TR_INT64;
  tt_assert_infers(TR_OP_ONE_HOT, &x, 1, &attrs, TR_INT64, "(10, None)");
}

/* ---- StridedSlice ----------------------------------------------------------------------- */

static void
test_strided_slice_basic_ranges(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) x = tt_arange(TR_INT32, DIMS(4, 5));
  /* x[1:3, ::2] */
  g_autoptr(TrTensor) a =
      slice(x, 2, I64(1, 0), I64(3, 0), I64(1, 2), (Masks){.begin_mask = 2, .end_mask = 2}, &error);
  g_assert_no_error(error);
  tt_assert_tensor(a, TR_INT32, DIMS(2, 3), VALS(5, 7, 9, 10, 12, 14), 0);
  /* x[1:3] with a spec shorter than the rank: the rest is taken whole */
  g_autoptr(TrTensor) b = slice(x, 1, I64(1), I64(3), I64(1), (Masks){0}, &error);
  tt_assert_tensor(b, TR_INT32, DIMS(2, 5), VALS(5, 6, 7, 8, 9, 10, 11, 12, 13, 14), 0);
}

static void
test_strided_slice_negative_step(void)
{
  g_autoptr(TrTensor) x = tt_arange(TR_INT32, DIMS(4, 5));
  /* x[::-1] */
  g_autoptr(TrTensor) a =
      slice(x, 1, I64(0), I64(0), I64(-1), (Masks){.begin_mask = 1, .end_mask = 1}, NULL);
  tt_assert_tensor(a, TR_INT32, DIMS(4, 5),
                   VALS(15, 16, 17, 18, 19, 10, 11, 12, 13, 14, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4), 0);
  g_assert_cmpint(a->strides[0], ==, -5);
  /* x[:, 4:0:-2] */
  g_autoptr(TrTensor) b =
      slice(x, 2, I64(0, 4), I64(0, 0), I64(1, -2), (Masks){.begin_mask = 1, .end_mask = 1}, NULL);
  tt_assert_tensor(b, TR_INT32, DIMS(4, 2), VALS(4, 2, 9, 7, 14, 12, 19, 17), 0);
  /* x[::-3, ::-2] */
  g_autoptr(TrTensor) c =
      slice(x, 2, I64(0, 0), I64(0, 0), I64(-3, -2), (Masks){.begin_mask = 3, .end_mask = 3}, NULL);
  tt_assert_tensor(c, TR_INT32, DIMS(2, 3), VALS(19, 17, 15, 4, 2, 0), 0);
}

static void
test_strided_slice_negative_indices_and_clamping(void)
{
  g_autoptr(TrTensor) x = tt_arange(TR_INT64, DIMS(4, 5));
  /* x[-3:-1, -1] */
  g_autoptr(TrTensor) a =
      slice(x, 2, I64(-3, -1), I64(-1, 0), I64(1, 1), (Masks){.shrink_axis_mask = 2}, NULL);
  tt_assert_tensor(a, TR_INT64, DIMS(2), VALS(9, 14), 0);
  /* x[-100:100, 1:2] */
  g_autoptr(TrTensor) b = slice(x, 2, I64(-100, 1), I64(100, 2), I64(1, 1), (Masks){0}, NULL);
  tt_assert_tensor(b, TR_INT64, DIMS(4, 1), VALS(1, 6, 11, 16), 0);
  /* x[3:1] is empty */
  g_autoptr(TrTensor) c = slice(x, 1, I64(3), I64(1), I64(1), (Masks){0}, NULL);
  tt_assert_tensor(c, TR_INT64, DIMS(0, 5), VALS(0), 0);
  /* x[10:20:-1] clamps to an empty range as well */
  g_autoptr(TrTensor) d = slice(x, 1, I64(10), I64(20), I64(-1), (Masks){0}, NULL);
  tt_assert_tensor(d, TR_INT64, DIMS(0, 5), VALS(0), 0);
}

static void
test_strided_slice_integer_index(void)
{
  g_autoptr(TrTensor) x = tt_arange(TR_FLOAT32, DIMS(4, 5));
  /* x[2] */
  g_autoptr(TrTensor) a = slice(x, 1, I64(2), I64(3), I64(1), (Masks){.shrink_axis_mask = 1}, NULL);
  tt_assert_tensor(a, TR_FLOAT32, DIMS(5), VALS(10, 11, 12, 13, 14), 0);
  /* x[-1, -2]: the Python layer's end is index + 1, here 0 for -1 */
  g_autoptr(TrTensor) b =
      slice(x, 2, I64(-1, -2), I64(0, -1), I64(1, 1), (Masks){.shrink_axis_mask = 3}, NULL);
  tt_assert_tensor(b, TR_FLOAT32, NODIMS, VALS(18), 0);
}

static void
test_strided_slice_ellipsis_and_new_axis(void)
{
  g_autoptr(TrTensor) x = tt_arange(TR_INT32, DIMS(4, 5));
  /* x[..., 1] */
  g_autoptr(TrTensor) a = slice(x, 2, I64(0, 1), I64(0, 2), I64(1, 1),
                                (Masks){.ellipsis_mask = 1, .shrink_axis_mask = 2}, NULL);
  tt_assert_tensor(a, TR_INT32, DIMS(4), VALS(1, 6, 11, 16), 0);
  /* x[None, 1, :, None] */
  g_autoptr(TrTensor) b = slice(
      x, 4, I64(0, 1, 0, 0), I64(0, 2, 0, 0), I64(1, 1, 1, 1),
      (Masks){.begin_mask = 4, .end_mask = 4, .new_axis_mask = 9, .shrink_axis_mask = 2}, NULL);
  tt_assert_tensor(b, TR_INT32, DIMS(1, 5, 1), VALS(5, 6, 7, 8, 9), 0);
  g_autoptr(TrTensor) y = tt_arange(TR_INT32, DIMS(2, 3, 4));
  /* y[1, ..., 1:3] */
  g_autoptr(TrTensor) c = slice(y, 3, I64(1, 0, 1), I64(2, 0, 3), I64(1, 1, 1),
                                (Masks){.ellipsis_mask = 2, .shrink_axis_mask = 1}, NULL);
  tt_assert_tensor(c, TR_INT32, DIMS(3, 2), VALS(13, 14, 17, 18, 21, 22), 0);
  /* y[..., None, 0] */
  g_autoptr(TrTensor) d =
      slice(y, 3, I64(0, 0, 0), I64(0, 0, 1), I64(1, 1, 1),
            (Masks){.ellipsis_mask = 1, .new_axis_mask = 2, .shrink_axis_mask = 4}, NULL);
  tt_assert_tensor(d, TR_INT32, DIMS(2, 3, 1), VALS(0, 4, 8, 12, 16, 20), 0);
}

static void
test_strided_slice_is_a_view(void)
{
  g_autoptr(TrTensor) x = tt_arange(TR_FLOAT64, DIMS(4, 5));
  /* x[1:3, 4:0:-2]: offset moves to (1, 4), strides multiply */
  g_autoptr(TrTensor) y = slice(x, 2, I64(1, 4), I64(3, 0), I64(1, -2), (Masks){0}, NULL);
  g_assert_true(shares_buffer(x, y));
  g_assert_cmpint(y->offset, ==, 1 * 5 + 4);
  g_assert_cmpint(y->strides[0], ==, 5);
  g_assert_cmpint(y->strides[1], ==, -2);
  tt_assert_tensor(y, TR_FLOAT64, DIMS(2, 2), VALS(9, 7, 14, 12), 0);
  /* slicing a slice composes */
  g_autoptr(TrTensor) z = slice(y, 1, I64(1), I64(2), I64(1), (Masks){.shrink_axis_mask = 1}, NULL);
  g_assert_true(shares_buffer(x, z));
  tt_assert_tensor(z, TR_FLOAT64, DIMS(2), VALS(14, 12), 0);
}

static void
test_strided_slice_strings(void)
{
  g_autoptr(TrTensor) s = tt_strings(DIMS(4), STRS("a", "b", "c", "d"));
  g_autoptr(TrTensor) r =
      slice(s, 1, I64(0), I64(0), I64(-2), (Masks){.begin_mask = 1, .end_mask = 1}, NULL);
  g_assert_true(shares_buffer(s, r));
  tt_assert_strings(r, DIMS(2), STRS("d", "b"));
}

static void
test_strided_slice_kernel_copies(void)
{
  g_autoptr(TrTensor) x = tt_arange(TR_INT32, DIMS(4, 5));
  g_autoptr(TrTensor) b = TT(TR_INT32, DIMS(2), VALS(1, 0));
  g_autoptr(TrTensor) e = TT(TR_INT32, DIMS(2), VALS(3, 0));
  g_autoptr(TrTensor) s = TT(TR_INT32, DIMS(2), VALS(1, 2));
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.begin_mask = attrs.end_mask = 2;
  TrTensor *in[4] = {x, b, e, s};
  g_autoptr(TrTensor) out = run_kernel(TR_OP_STRIDED_SLICE, in, 4, &attrs, TR_INT32, DIMS(2, 3));
  g_assert_false(shares_buffer(x, out));
  tt_assert_tensor(out, TR_INT32, DIMS(2, 3), VALS(5, 7, 9, 10, 12, 14), 0);
}

static void
test_strided_slice_errors(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) x = tt_arange(TR_FLOAT32, DIMS(3));
  g_assert_null(slice(x, 1, I64(5), I64(6), I64(1), (Masks){.shrink_axis_mask = 1}, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "slice index 5 of dimension 0 out of bounds. [Op:StridedSlice]");
  /* TF reports a negative index after adding the dim: x[-5] on 3 elements names -2. */
  g_assert_null(slice(x, 1, I64(-5), I64(-4), I64(1), (Masks){.shrink_axis_mask = 1}, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "slice index -2 of dimension 0 out of bounds. [Op:StridedSlice]");
  g_assert_null(slice(x, 1, I64(0), I64(3), I64(0), (Masks){0}, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "strides[0] must be non-zero [Op:StridedSlice]");
  g_assert_null(slice(x, 2, I64(0, 0), I64(1, 1), I64(1, 1), (Masks){0}, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Index out of range using input dim 1; input has only 1 dims [Op:StridedSlice]");
  g_assert_null(slice(x, 2, I64(0, 0), I64(0, 0), I64(1, 1), (Masks){.ellipsis_mask = 3}, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Multiple ellipses in slice spec not allowed [Op:StridedSlice]");
  g_assert_null(slice(x, 1, I64(1), I64(0), I64(-1), (Masks){.shrink_axis_mask = 1}, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "only stride 1 allowed on non-range indexing. [Op:StridedSlice]");

  g_autoptr(TrTensor) b2 = TT(TR_INT32, DIMS(2), VALS(0, 0));
  g_autoptr(TrTensor) e1 = TT(TR_INT32, DIMS(1), VALS(1));
  g_autoptr(TrTensor) e64 = TT(TR_INT64, DIMS(2), VALS(1, 1));
  TrTensor *mismatched[4] = {x, b2, e1, b2};
  g_assert_null(tr_op_run(TR_OP_STRIDED_SLICE, mismatched, 4, NULL, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
                  "[2], [1], and [2] instead. [Op:StridedSlice]");
  TrTensor *mixed[4] = {x, b2, e64, b2};
  g_assert_null(tr_op_run(TR_OP_STRIDED_SLICE, mixed, 4, NULL, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "cannot compute StridedSlice as input #2(zero-based) was expected to be a int32 "
                  "tensor but is a int64 tensor [Op:StridedSlice]");
}

static void
test_strided_slice_infer_partial(void)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  g_autoptr(TrTensor) ones = TT(TR_INT32, DIMS(2), VALS(1, 1));
  g_autoptr(TrTensor) begin = TT(TR_INT32, DIMS(2), VALS(1, 0));
  g_autoptr(TrTensor) end = TT(TR_INT32, DIMS(2), VALS(3, 0));
  TrTensorInfo spec = tt_symbolic(TR_INT32, DIMS(2));
  /* x[:, b:e] with b, e unknown: the masked dim is known, the other is not */
  TrTensorInfo in[4] = {tt_symbolic(TR_FLOAT32, DIMS(5, 4)), spec, spec, tt_constant(ones)};
  attrs.begin_mask = attrs.end_mask = 1;
  tt_assert_infers(TR_OP_STRIDED_SLICE, in, 4, &attrs, TR_FLOAT32, "(5, None)");
  /* x[:, b] drops the indexed dim whatever b is */
  attrs.shrink_axis_mask = 2;
  tt_assert_infers(TR_OP_STRIDED_SLICE, in, 4, &attrs, TR_FLOAT32, "(5,)");
  /* known bounds on an unknown dim: x[1:3, :] on (None, 4) */
  tr_attrs_init(&attrs);
  attrs.begin_mask = attrs.end_mask = 2;
  TrTensorInfo known[4] = {tt_symbolic(TR_FLOAT32, DIMS(TR_UNKNOWN, 4)), tt_constant(begin),
                           tt_constant(end), tt_constant(ones)};
  tt_assert_infers(TR_OP_STRIDED_SLICE, known, 4, &attrs, TR_FLOAT32, "(None, 4)");
  known[0] = tt_symbolic(TR_FLOAT32, DIMS(6, TR_UNKNOWN));
  tt_assert_infers(TR_OP_STRIDED_SLICE, known, 4, &attrs, TR_FLOAT32, "(2, None)");
  /* unknown strides or an unknown input rank: nothing is known */
  in[3] = spec;
  tt_assert_infers(TR_OP_STRIDED_SLICE, in, 4, &attrs, TR_FLOAT32, "<unknown>");
  known[0] = tt_symbolic(TR_FLOAT32, UNKNOWN_RANK);
  tt_assert_infers(TR_OP_STRIDED_SLICE, known, 4, &attrs, TR_FLOAT32, "<unknown>");
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/tensor/shape/defs/names-and-views", test_defs_names_and_views);

  g_test_add_func("/tensor/shape/transpose/values-2d", test_transpose_values_2d);
  g_test_add_func("/tensor/shape/transpose/default-reverses", test_transpose_default_reverses);
  g_test_add_func("/tensor/shape/transpose/is-a-view", test_transpose_is_a_view);
  g_test_add_func("/tensor/shape/transpose/kernel-copies", test_transpose_kernel_copies);
  g_test_add_func("/tensor/shape/transpose/strings", test_transpose_strings);
  g_test_add_func("/tensor/shape/transpose/errors", test_transpose_errors);
  g_test_add_func("/tensor/shape/transpose/infer-partial", test_transpose_infer_partial);

  g_test_add_func("/tensor/shape/reshape/values-and-minus-one", test_reshape_values_and_minus_one);
  g_test_add_func("/tensor/shape/reshape/is-a-view-when-contiguous",
                  test_reshape_is_a_view_when_contiguous);
  g_test_add_func("/tensor/shape/reshape/copies-a-strided-input",
                  test_reshape_copies_a_strided_input);
  g_test_add_func("/tensor/shape/reshape/strings", test_reshape_strings);
  g_test_add_func("/tensor/shape/reshape/empty", test_reshape_empty);
  g_test_add_func("/tensor/shape/reshape/errors", test_reshape_errors);
  g_test_add_func("/tensor/shape/reshape/infer-partial", test_reshape_infer_partial);

  g_test_add_func("/tensor/shape/concat/values-by-axis", test_concat_values_by_axis);
  g_test_add_func("/tensor/shape/concat/strided-inputs", test_concat_strided_inputs);
  g_test_add_func("/tensor/shape/concat/dtypes", test_concat_dtypes);
  g_test_add_func("/tensor/shape/concat/scalars-make-a-vector", test_concat_scalars_make_a_vector);
  g_test_add_func("/tensor/shape/concat/large-blocks", test_concat_large_blocks);
  g_test_add_func("/tensor/shape/concat/errors", test_concat_errors);
  g_test_add_func("/tensor/shape/concat/infer-partial", test_concat_infer_partial);

  g_test_add_func("/tensor/shape/stack/values-by-axis", test_stack_values_by_axis);
  g_test_add_func("/tensor/shape/stack/scalars-and-strings", test_stack_scalars_and_strings);
  g_test_add_func("/tensor/shape/stack/strided-inputs", test_stack_strided_inputs);
  g_test_add_func("/tensor/shape/stack/errors", test_stack_errors);
  g_test_add_func("/tensor/shape/stack/infer-partial", test_stack_infer_partial);

  g_test_add_func("/tensor/shape/squeeze/all-and-axes", test_squeeze_all_and_axes);
  g_test_add_func("/tensor/shape/squeeze/is-a-view", test_squeeze_is_a_view);
  g_test_add_func("/tensor/shape/squeeze/errors", test_squeeze_errors);
  g_test_add_func("/tensor/shape/squeeze/infer-partial", test_squeeze_infer_partial);

  g_test_add_func("/tensor/shape/expand-dims/positions", test_expand_dims_positions);
  g_test_add_func("/tensor/shape/expand-dims/is-a-view", test_expand_dims_is_a_view);
  g_test_add_func("/tensor/shape/expand-dims/errors", test_expand_dims_errors);
  g_test_add_func("/tensor/shape/expand-dims/infer-partial", test_expand_dims_infer_partial);

  g_test_add_func("/tensor/shape/gather/rows-and-columns", test_gather_rows_and_columns);
  g_test_add_func("/tensor/shape/gather/index-shapes", test_gather_index_shapes);
  g_test_add_func("/tensor/shape/gather/strided-params-and-strings",
                  test_gather_strided_params_and_strings);
  g_test_add_func("/tensor/shape/gather/errors", test_gather_errors);
  g_test_add_func("/tensor/shape/gather/infer-partial", test_gather_infer_partial);

  g_test_add_func("/tensor/shape/one-hot/values", test_one_hot_values);
  g_test_add_func("/tensor/shape/one-hot/axis-and-dtypes", test_one_hot_axis_and_dtypes);
  g_test_add_func("/tensor/shape/one-hot/errors", test_one_hot_errors);
  g_test_add_func("/tensor/shape/one-hot/infer-partial", test_one_hot_infer_partial);

  g_test_add_func("/tensor/shape/strided-slice/basic-ranges", test_strided_slice_basic_ranges);
  g_test_add_func("/tensor/shape/strided-slice/negative-step", test_strided_slice_negative_step);
  g_test_add_func("/tensor/shape/strided-slice/negative-indices-and-clamping",
                  test_strided_slice_negative_indices_and_clamping);
  g_test_add_func("/tensor/shape/strided-slice/integer-index", test_strided_slice_integer_index);
  g_test_add_func("/tensor/shape/strided-slice/ellipsis-and-new-axis",
                  test_strided_slice_ellipsis_and_new_axis);
  g_test_add_func("/tensor/shape/strided-slice/is-a-view", test_strided_slice_is_a_view);
  g_test_add_func("/tensor/shape/strided-slice/strings", test_strided_slice_strings);
  g_test_add_func("/tensor/shape/strided-slice/kernel-copies", test_strided_slice_kernel_copies);
  g_test_add_func("/tensor/shape/strided-slice/errors", test_strided_slice_errors);
  g_test_add_func("/tensor/shape/strided-slice/infer-partial", test_strided_slice_infer_partial);
  return g_test_run();
}
