/* test-linalg.c — MatMul, BatchMatMulV2 and Conv2D: values by hand and against naive loops in
 * double precision, every kernel path (BLAS, integer loop, views, shifted GEMM, im2col, groups),
 * partial-shape inference, and TensorFlow's error texts. */
#include "linalg-dnnl.h"
#include "test-util.h"

/* ---- helpers ---------------------------------------------------------------------------- */

/* A contiguous tensor of random values: [-1, 1) for floats, small integers otherwise. */
static TrTensor *
random_tensor(TrDType dtype, int rank, const int64_t *dims)
{
  TrShape s = tr_shape_make(rank, dims);
  int64_t n = tr_shape_num_elements(&s);
  g_autofree double *v = g_new(double, MAX(n, 1));
  for (int64_t i = 0; i < n; i++)
    v[i] =
        tr_dtype_is_int(dtype) ? g_test_rand_int_range(-4, 5) : g_test_rand_double_range(-1.0, 1.0);
  return tt_tensor(dtype, rank, dims, v);
}
#define RANDOM(dtype, dims) random_tensor((dtype), dims)

/* A view of `t` with its dims permuted (no copy): the layout a transpose leaves. */
static TrTensor *
permuted_view(TrTensor *t, const int64_t *perm)
{
  TrShape s = {.rank = t->shape.rank};
  int64_t strides[TR_MAX_RANK];
  for (int i = 0; i < s.rank; i++) {
    s.dims[i] = t->shape.dims[perm[i]];
    strides[i] = t->strides[perm[i]];
  }
  return tr_tensor_new_view(t->buf, t->dtype, &s, strides, t->offset);
}

#define U TR_UNKNOWN /* an unknown dim, in the partial shapes of the inference tests */

/* Reference op(a)·op(b) in double with NumPy-broadcast batch dims, from any layout. */
static double *
ref_matmul(const TrTensor *a, const TrTensor *b, bool ta, bool tb, TrShape *out)
{
  int ra = a->shape.rank, rb = b->shape.rank, rbatch = MAX(ra, rb) - 2;
  int64_t a_rows = a->shape.dims[ra - 2], a_cols = a->shape.dims[ra - 1];
  int64_t b_rows = b->shape.dims[rb - 2], b_cols = b->shape.dims[rb - 1];
  int64_t m = ta ? a_cols : a_rows, k = ta ? a_rows : a_cols, n = tb ? b_rows : b_cols;
  out->rank = rbatch + 2;
  int64_t nbatch = 1;
  for (int i = 0; i < rbatch; i++) {
    int ia = i - (rbatch - (ra - 2)), ib = i - (rbatch - (rb - 2));
    int64_t da = ia >= 0 ? a->shape.dims[ia] : 1, db = ib >= 0 ? b->shape.dims[ib] : 1;
    out->dims[i] = MAX(da, db);
    nbatch *= out->dims[i];
  }
  out->dims[rbatch] = m;
  out->dims[rbatch + 1] = n;
  double *res = g_new0(double, MAX(nbatch * m * n, 1));
  for (int64_t bi = 0; bi < nbatch; bi++) {
    int64_t rest = bi, abatch = 0, bbatch = 0, astep = 1, bstep = 1;
    for (int i = rbatch - 1; i >= 0; i--) {
      int64_t idx = rest % out->dims[i];
      rest /= out->dims[i];
      int ia = i - (rbatch - (ra - 2)), ib = i - (rbatch - (rb - 2));
      if (ia >= 0) {
        abatch += (a->shape.dims[ia] == 1 ? 0 : idx) * astep;
        astep *= a->shape.dims[ia];
      }
      if (ib >= 0) {
        bbatch += (b->shape.dims[ib] == 1 ? 0 : idx) * bstep;
        bstep *= b->shape.dims[ib];
      }
    }
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) {
        double sum = 0;
        for (int64_t p = 0; p < k; p++) {
          int64_t ai = ta ? p * a_cols + i : i * a_cols + p;
          int64_t bj = tb ? j * b_cols + p : p * b_cols + j;
          sum += tr_tensor_get_f64(a, abatch * a_rows * a_cols + ai) *
                 tr_tensor_get_f64(b, bbatch * b_rows * b_cols + bj);
        }
        res[(bi * m + i) * n + j] = sum;
      }
  }
  return res;
}

/* Run tr_matmul and compare with `want` (check_matmul_gives: within `tol` for floats). */
#define assert_matmul_gives(a, b, ta, tb, dims, want)                                              \
  check_matmul_gives(__FILE__, __LINE__, (a), (b), (ta), (tb), dims, (want), 0)
static void
check_matmul_gives(const char *file, int line, TrTensor *a, TrTensor *b, bool ta, bool tb, int rank,
                   const int64_t *dims, const double *want, double tol)
{
  GError *error = NULL;
  g_autoptr(TrTensor) got = tr_matmul(a, b, ta, tb, &error);
  g_assert_no_error(error);
  tt_check_tensor(file, line, got, a->dtype, rank, dims, want, tol);
}

/* Run tr_matmul and compare with the reference. */
#define assert_matmul_matches(a, b, ta, tb, tol)                                                   \
  check_matmul(__FILE__, __LINE__, (a), (b), (ta), (tb), (tol))
static void
check_matmul(const char *file, int line, TrTensor *a, TrTensor *b, bool ta, bool tb, double tol)
{
  TrShape shape;
  g_autofree double *want = ref_matmul(a, b, ta, tb, &shape);
  check_matmul_gives(file, line, a, b, ta, tb, shape.rank, shape.dims, want, tol);
}

/* Assert that tr_matmul fails with TR_ERROR_INVALID_ARGUMENT and exactly `message`. */
static void
assert_matmul_error(TrTensor *a, TrTensor *b, bool ta, bool tb, const char *message)
{
  GError *error = NULL;
  g_assert_null(tr_matmul(a, b, ta, tb, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT, message);
}

/* [[1, 2, 3], [4, 5, 6]]·[[7, 8], [9, 10], [11, 12]] = [[58, 64], [139, 154]] in `dtype`, each
 * operand stored transposed when its transpose flag is set. */
static void
check_hand_product(TrDType dtype, bool ta, bool tb)
{
  g_autoptr(TrTensor) a = ta ? TT(dtype, DIMS(3, 2), VALS(1, 4, 2, 5, 3, 6))
                             : TT(dtype, DIMS(2, 3), VALS(1, 2, 3, 4, 5, 6));
  g_autoptr(TrTensor) b = tb ? TT(dtype, DIMS(2, 3), VALS(7, 9, 11, 8, 10, 12))
                             : TT(dtype, DIMS(3, 2), VALS(7, 8, 9, 10, 11, 12));
  assert_matmul_gives(a, b, ta, tb, DIMS(2, 2), VALS(58, 64, 139, 154));
}

static double
tol_for(TrDType dtype)
{
  return dtype == TR_FLOAT32 ? 1e-4 : dtype == TR_FLOAT64 ? 1e-12 : 0;
}

/* The elements of `t` in row-major order, as doubles. */
static double *
to_doubles(const TrTensor *t)
{
  int64_t n = tr_tensor_num_elements(t);
  double *v = g_new(double, MAX(n, 1));
  for (int64_t i = 0; i < n; i++)
    v[i] = tr_tensor_get_f64(t, i);
  return v;
}

/* Reference Conv2D in double, with TensorFlow's output sizes and SAME split. */
static double *
ref_conv2d(const TrTensor *x, const TrTensor *f, int64_t sh, int64_t sw, TrPadding padding,
           TrShape *out)
{
  const int64_t *xd = x->shape.dims, *fd = f->shape.dims;
  int64_t nb = xd[0], h = xd[1], w = xd[2], c = xd[3];
  int64_t kh = fd[0], kw = fd[1], kc = fd[2], co = fd[3], groups = c / kc, opg = co / groups;
  int64_t oh, ow, pt = 0, pl = 0;
  if (padding == TR_PADDING_VALID) {
    oh = (h - kh + sh) / sh;
    ow = (w - kw + sw) / sw;
  } else {
    oh = (h + sh - 1) / sh;
    ow = (w + sw - 1) / sw;
    pt = MAX(0, (oh - 1) * sh + kh - h) / 2;
    pl = MAX(0, (ow - 1) * sw + kw - w) / 2;
  }
  *out = tr_shape_make(4, (const int64_t[]){nb, oh, ow, co});
  g_autofree double *xv = to_doubles(x);
  g_autofree double *fv = to_doubles(f);
  double *res = g_new0(double, MAX(nb * oh * ow * co, 1));
  for (int64_t b = 0; b < nb; b++)
    for (int64_t i = 0; i < oh; i++)
      for (int64_t j = 0; j < ow; j++) {
        double *r = res + ((b * oh + i) * ow + j) * co;
        for (int64_t u = 0; u < kh; u++)
          for (int64_t v = 0; v < kw; v++) {
            int64_t ih = i * sh - pt + u, iw = j * sw - pl + v;
            if (ih < 0 || ih >= h || iw < 0 || iw >= w)
              continue;
            for (int64_t g = 0; g < groups; g++)
              for (int64_t q = 0; q < kc; q++) {
                double xq = xv[((b * h + ih) * w + iw) * c + g * kc + q];
                const double *frow = fv + ((u * kw + v) * kc + q) * co + g * opg;
                for (int64_t o = 0; o < opg; o++)
                  r[g * opg + o] += xq * frow[o];
              }
          }
      }
  return res;
}

/* Run tr_conv2d and compare with `want` (check_conv_gives: within `tol` for floats). */
#define assert_conv_gives(x, f, sh, sw, padding, dims, want)                                       \
  check_conv_gives(__FILE__, __LINE__, (x), (f), (sh), (sw), (padding), dims, (want), 0)
static void
check_conv_gives(const char *file, int line, TrTensor *x, TrTensor *f, int64_t sh, int64_t sw,
                 TrPadding padding, int rank, const int64_t *dims, const double *want, double tol)
{
  GError *error = NULL;
  g_autoptr(TrTensor) got = tr_conv2d(x, f, (const int64_t[]){sh, sw}, padding, &error);
  g_assert_no_error(error);
  tt_check_tensor(file, line, got, x->dtype, rank, dims, want, tol);
}

/* Run tr_conv2d and compare with the reference. */
#define assert_conv_matches(x, f, sh, sw, padding, tol)                                            \
  check_conv(__FILE__, __LINE__, (x), (f), (sh), (sw), (padding), (tol))
static void
check_conv(const char *file, int line, TrTensor *x, TrTensor *f, int64_t sh, int64_t sw,
           TrPadding padding, double tol)
{
  TrShape shape;
  g_autofree double *want = ref_conv2d(x, f, sh, sw, padding, &shape);
  check_conv_gives(file, line, x, f, sh, sw, padding, shape.rank, shape.dims, want, tol);
}

/* The 3x3 image 1..9 through the 2x2 filter [[1, 0], [0, 1]] (VALID): [[6, 8], [12, 14]] in
 * `dtype`. */
static void
check_hand_conv(TrDType dtype)
{
  g_autoptr(TrTensor) x = TT(dtype, DIMS(1, 3, 3, 1), VALS(1, 2, 3, 4, 5, 6, 7, 8, 9));
  g_autoptr(TrTensor) f = TT(dtype, DIMS(2, 2, 1, 1), VALS(1, 0, 0, 1));
  assert_conv_gives(x, f, 1, 1, TR_PADDING_VALID, DIMS(1, 2, 2, 1), VALS(6, 8, 12, 14));
}

/* Random input [n, h, w, c] and filters [kh, kw, kc, co], convolved and checked. */
static void
check_random_conv(TrDType dtype, int64_t n, int64_t h, int64_t w, int64_t c, int64_t kh, int64_t kw,
                  int64_t kc, int64_t co, int64_t sh, int64_t sw, TrPadding padding)
{
  g_autoptr(TrTensor) x = RANDOM(dtype, DIMS(n, h, w, c));
  g_autoptr(TrTensor) f = RANDOM(dtype, DIMS(kh, kw, kc, co));
  assert_conv_matches(x, f, sh, sw, padding, tol_for(dtype));
}

/* ---- MatMul ----------------------------------------------------------------------------- */

static void
test_matmul_hand(void)
{
  check_hand_product(TR_FLOAT32, false, false);
}

static void
test_matmul_transpose_a(void)
{
  check_hand_product(TR_FLOAT32, true, false);
}

static void
test_matmul_transpose_b(void)
{
  check_hand_product(TR_FLOAT32, false, true);
}

static void
test_matmul_transpose_both(void)
{
  check_hand_product(TR_FLOAT64, true, true);
}

static void
test_matmul_int(void)
{
  check_hand_product(TR_INT32, false, false);

  g_autoptr(TrTensor) a64 = TT(TR_INT64, DIMS(1, 2), VALS(3000000000.0, 1));
  g_autoptr(TrTensor) b64 = TT(TR_INT64, DIMS(2, 1), VALS(3, -7));
  assert_matmul_gives(a64, b64, false, false, DIMS(1, 1), VALS(8999999993.0));

  for (TrDType dt = TR_INT32; dt <= TR_INT64; dt++)
    for (int t = 0; t < 4; t++) {
      g_autoptr(TrTensor) x = t & 1 ? RANDOM(dt, DIMS(7, 5)) : RANDOM(dt, DIMS(5, 7));
      g_autoptr(TrTensor) y = t >> 1 ? RANDOM(dt, DIMS(4, 7)) : RANDOM(dt, DIMS(7, 4));
      assert_matmul_matches(x, y, t & 1, t >> 1, 0);
    }
}

/* int32 products wrap around as TensorFlow's kernels do (no undefined overflow). */
static void
test_matmul_int_wraps(void)
{
  g_autoptr(TrTensor) a = TT(TR_INT32, DIMS(1, 2), VALS(65536, 2147483647));
  g_autoptr(TrTensor) b = TT(TR_INT32, DIMS(2, 1), VALS(65536, 2));
  assert_matmul_gives(a, b, false, false, DIMS(1, 1), VALS(-2));
}

static void
test_matmul_random(void)
{
  static const int64_t shapes[][3] = {{1, 1, 1},    {1, 7, 1},   {7, 1, 5},
                                      {3, 5, 4},    {17, 33, 9}, {64, 1, 64},
                                      {65, 63, 67}, {2, 300, 3}, {128, 96, 256}};
  for (TrDType dt = TR_FLOAT32; dt <= TR_FLOAT64; dt++)
    for (guint s = 0; s < G_N_ELEMENTS(shapes); s++)
      for (int t = 0; t < 4; t++) {
        bool ta = t & 1, tb = t >> 1;
        int64_t m = shapes[s][0], k = shapes[s][1], n = shapes[s][2];
        g_autoptr(TrTensor) a = ta ? RANDOM(dt, DIMS(k, m)) : RANDOM(dt, DIMS(m, k));
        g_autoptr(TrTensor) b = tb ? RANDOM(dt, DIMS(n, k)) : RANDOM(dt, DIMS(k, n));
        assert_matmul_matches(a, b, ta, tb, tol_for(dt));
      }
}

/* A transposed view goes to BLAS as a transpose flag: same values as a copy would give. */
static void
test_matmul_transposed_view(void)
{
  g_autoptr(TrTensor) stored = TT(TR_FLOAT32, DIMS(3, 2), VALS(1, 4, 2, 5, 3, 6));
  g_autoptr(TrTensor) a = tt_transposed(stored);
  g_assert_false(a->contiguous);
  g_autoptr(TrTensor) b = TT(TR_FLOAT32, DIMS(3, 2), VALS(7, 8, 9, 10, 11, 12));
  assert_matmul_gives(a, b, false, false, DIMS(2, 2), VALS(58, 64, 139, 154));

  int64_t m = 13, k = 9, n = 11;
  for (TrDType dt = TR_FLOAT32; dt <= TR_INT64; dt++)
    for (int t = 0; t < 4; t++) {
      bool ta = t & 1, tb = t >> 1;
      /* stored transposed, so the views have the logical shapes op() expects */
      g_autoptr(TrTensor) sa = ta ? RANDOM(dt, DIMS(m, k)) : RANDOM(dt, DIMS(k, m));
      g_autoptr(TrTensor) sb = tb ? RANDOM(dt, DIMS(k, n)) : RANDOM(dt, DIMS(n, k));
      g_autoptr(TrTensor) va = tt_transposed(sa);
      g_autoptr(TrTensor) vb = tt_transposed(sb);
      assert_matmul_matches(va, vb, ta, tb, tol_for(dt));
      assert_matmul_matches(va, vb, ta, tb, tol_for(dt));
    }
}

/* Layouts BLAS cannot read (a column step of 2, a broadcast row) are copied first. */
static void
test_matmul_strided_view(void)
{
  for (TrDType dt = TR_FLOAT32; dt <= TR_INT32; dt++) {
    g_autoptr(TrTensor) stored = RANDOM(dt, DIMS(6, 10));
    TrShape s = tr_shape_make(2, (const int64_t[]){6, 5});
    g_autoptr(TrTensor) every_other =
        tr_tensor_new_view(stored->buf, dt, &s, (const int64_t[]){10, 2}, 1);
    g_autoptr(TrTensor) row = RANDOM(dt, DIMS(1, 6));
    TrShape rs = tr_shape_make(2, (const int64_t[]){4, 6});
    g_autoptr(TrTensor) broadcast =
        tr_tensor_new_view(row->buf, dt, &rs, (const int64_t[]){0, 1}, 0);
    assert_matmul_matches(broadcast, every_other, false, false, tol_for(dt));
    assert_matmul_matches(every_other, broadcast, true, true, tol_for(dt));
  }
}

static void
test_matmul_empty(void)
{
  g_autoptr(TrTensor) a = TT(TR_FLOAT32, DIMS(2, 0), VALS(0));
  g_autoptr(TrTensor) b = TT(TR_FLOAT32, DIMS(0, 3), VALS(0));
  assert_matmul_gives(a, b, false, false, DIMS(2, 3), VALS(0, 0, 0, 0, 0, 0));

  g_autoptr(TrTensor) ai = TT(TR_INT64, DIMS(2, 0), VALS(0));
  g_autoptr(TrTensor) bi = TT(TR_INT64, DIMS(0, 1), VALS(0));
  assert_matmul_gives(ai, bi, false, false, DIMS(2, 1), VALS(0, 0));

  g_autoptr(TrTensor) e = TT(TR_FLOAT64, DIMS(0, 3), VALS(0));
  g_autoptr(TrTensor) f = TT(TR_FLOAT64, DIMS(3, 2), VALS(1, 2, 3, 4, 5, 6));
  assert_matmul_gives(e, f, false, false, DIMS(0, 2), VALS(0));
}

static void
test_matmul_error_size(void)
{
  g_autoptr(TrTensor) a = RANDOM(TR_FLOAT32, DIMS(2, 3));
  g_autoptr(TrTensor) b = RANDOM(TR_FLOAT32, DIMS(2, 3));
  assert_matmul_error(a, b, false, false,
                      "Matrix size-incompatible: In[0]: [2,3], In[1]: [2,3] [Op:MatMul]");
  g_autoptr(TrTensor) c = RANDOM(TR_FLOAT32, DIMS(3, 2));
  assert_matmul_error(a, c, true, false,
                      "Matrix size-incompatible: In[0]: [2,3], In[1]: [3,2] [Op:MatMul]");
}

static void
test_matmul_error_ndims(void)
{
  GError *error = NULL;
  g_autoptr(TrTensor) a = RANDOM(TR_FLOAT32, DIMS(2, 3));
  g_autoptr(TrTensor) v = RANDOM(TR_FLOAT32, DIMS(4));
  assert_matmul_error(a, v, false, false,
                      "In[0] and In[1] has different ndims: [2,3] vs. [4] [Op:MatMul]");
  assert_matmul_error(v, v, false, false, "In[0] and In[1] ndims must be == 2: 1 [Op:MatMul]");
  g_autoptr(TrTensor) s = TT_SCALAR(TR_FLOAT32, 1);
  assert_matmul_error(s, a, false, false,
                      "In[0] and In[1] has different ndims: [] vs. [2,3] [Op:MatMul]");
  g_autoptr(TrTensor) t3 = RANDOM(TR_FLOAT32, DIMS(1, 2, 2));
  TrTensor *in[2] = {t3, t3};
  g_assert_null(tr_op_run(TR_OP_MATMUL, in, 2, NULL, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "In[0] and In[1] ndims must be == 2: 3 [Op:MatMul]");
}

static void
test_matmul_error_dtype(void)
{
  g_autoptr(TrTensor) a = RANDOM(TR_FLOAT32, DIMS(2, 2));
  g_autoptr(TrTensor) b = RANDOM(TR_INT32, DIMS(2, 2));
  assert_matmul_error(a, b, false, false,
                      "cannot compute MatMul as input #1(zero-based) was expected to be a float "
                      "tensor but is a int32 tensor [Op:MatMul]");
  g_autoptr(TrTensor) c = TT(TR_BOOL, DIMS(1, 1), VALS(1));
  assert_matmul_error(c, c, false, false,
                      "Value for attr 'T' of bool is not in the list of allowed values: bfloat16, "
                      "half, float, double, int32, int64, complex64, complex128 [Op:MatMul]");
  g_autoptr(TrTensor) s = tt_strings(DIMS(1, 1), STRS("a"));
  g_autoptr(TrTensor) s3 = tt_strings(DIMS(1, 1, 1), STRS("a"));
  assert_matmul_error(
      s3, s, false, false,
      "Value for attr 'T' of string is not in the list of allowed values: bfloat16, "
      "half, float, double, int16, int32, int64, complex64, complex128 "
      "[Op:BatchMatMulV2]");
}

static void
test_matmul_infer_partial(void)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  TrTensorInfo in[2] = {tt_symbolic(TR_FLOAT32, DIMS(U, 3)), tt_symbolic(TR_FLOAT32, DIMS(3, 5))};
  tt_assert_infers(TR_OP_MATMUL, in, 2, &attrs, TR_FLOAT32, "(None, 5)");
  in[1] = tt_symbolic(TR_FLOAT32, DIMS(U, U));
  tt_assert_infers(TR_OP_MATMUL, in, 2, &attrs, TR_FLOAT32, "(None, None)");
  in[0] = tt_symbolic(TR_FLOAT64, UNKNOWN_RANK);
  in[1] = tt_symbolic(TR_FLOAT64, DIMS(4, 7));
  tt_assert_infers(TR_OP_MATMUL, in, 2, &attrs, TR_FLOAT64, "(None, 7)");
  in[1] = tt_symbolic(TR_FLOAT64, UNKNOWN_RANK);
  tt_assert_infers(TR_OP_MATMUL, in, 2, &attrs, TR_FLOAT64, "(None, None)");

  attrs.transpose_a = true;
  attrs.transpose_b = true;
  in[0] = tt_symbolic(TR_INT32, DIMS(3, U));
  in[1] = tt_symbolic(TR_INT32, DIMS(8, 3));
  tt_assert_infers(TR_OP_MATMUL, in, 2, &attrs, TR_INT32, "(None, 8)");

  attrs.transpose_a = attrs.transpose_b = false;
  in[0] = tt_symbolic(TR_FLOAT32, DIMS(U, 3));
  in[1] = tt_symbolic(TR_FLOAT32, DIMS(4, U));
  tt_assert_infer_error(TR_OP_MATMUL, in, 2, &attrs,
                        "Matrix size-incompatible: In[0]: [?,3], In[1]: [4,?] [Op:MatMul]");
  in[0] = tt_symbolic(TR_FLOAT32, UNKNOWN_RANK);
  in[1] = tt_symbolic(TR_FLOAT32, DIMS(2, 3, 4));
  tt_assert_infer_error(TR_OP_MATMUL, in, 2, &attrs,
                        "In[0] and In[1] ndims must be == 2: 3 [Op:MatMul]");
  in[1] = tt_symbolic(TR_INT32, DIMS(2, 3));
  tt_assert_infer_error(TR_OP_MATMUL, in, 2, &attrs,
                        "cannot compute MatMul as input #1(zero-based) was expected to be a float "
                        "tensor but is a int32 tensor [Op:MatMul]");
}

static void
test_matmul_op_defs(void)
{
  static const struct {
    TrOpId op;
    const char *type, *name;
  } rows[] = {
      {TR_OP_MATMUL, "MatMul", "MatMul"},
      {TR_OP_BATCH_MATMUL, "BatchMatMulV2", "MatMul"},
      {TR_OP_CONV2D, "Conv2D", "Conv2D"},
  };
  G_STATIC_ASSERT(TR_OP_CONV2D - TR_OP_MATMUL + 1 == G_N_ELEMENTS(rows));
  for (size_t i = 0; i < G_N_ELEMENTS(rows); i++) {
    const TrOpDef *def = tt_assert_op_def(rows[i].op, rows[i].name, 2);
    g_assert_cmpstr(def->type, ==, rows[i].type);
  }
}

/* ---- BatchMatMulV2 ---------------------------------------------------------------------- */

static void
test_batch_matmul_hand(void)
{
  g_autoptr(TrTensor) a = TT(TR_FLOAT32, DIMS(2, 2, 2), VALS(1, 2, 3, 4, 1, 0, 0, 1));
  g_autoptr(TrTensor) b = TT(TR_FLOAT32, DIMS(2, 2, 2), VALS(5, 6, 7, 8, 9, 8, 7, 6));
  assert_matmul_gives(a, b, false, false, DIMS(2, 2, 2), VALS(19, 22, 43, 50, 9, 8, 7, 6));
}

/* Batch dims broadcast as NumPy's do; a rank-2 operand is shared by every batch. */
static void
test_batch_matmul_broadcast(void)
{
  g_autoptr(TrTensor) a = TT(TR_INT32, DIMS(2, 1, 2), VALS(1, 2, 3, 4));
  g_autoptr(TrTensor) b = TT(TR_INT32, DIMS(1, 2, 3), VALS(1, 0, 1, 1, 1, 0));
  assert_matmul_gives(a, b, false, false, DIMS(2, 1, 3), VALS(3, 2, 1, 7, 4, 3));
  g_autoptr(TrTensor) m2 = TT(TR_INT32, DIMS(2, 3), VALS(1, 0, 1, 1, 1, 0));
  assert_matmul_gives(a, m2, false, false, DIMS(2, 1, 3), VALS(3, 2, 1, 7, 4, 3));

  for (TrDType dt = TR_FLOAT32; dt <= TR_INT64; dt++) {
    g_autoptr(TrTensor) x = RANDOM(dt, DIMS(2, 1, 3, 4));
    g_autoptr(TrTensor) y = RANDOM(dt, DIMS(5, 4, 2));
    assert_matmul_matches(x, y, false, false, tol_for(dt));
    g_autoptr(TrTensor) m = RANDOM(dt, DIMS(3, 4));
    g_autoptr(TrTensor) z = RANDOM(dt, DIMS(2, 4, 5));
    assert_matmul_matches(m, z, false, false, tol_for(dt));
    g_autoptr(TrTensor) w = RANDOM(dt, DIMS(1, 3, 1, 4, 2));
    g_autoptr(TrTensor) v = RANDOM(dt, DIMS(1, 2, 2, 5));
    assert_matmul_matches(w, v, false, false, tol_for(dt));
  }
}

/* [batch, m, k] times a shared [k, n] is one GEMM over batch*m rows: same values. */
static void
test_batch_matmul_folded(void)
{
  for (TrDType dt = TR_FLOAT32; dt <= TR_INT32; dt++) {
    g_autoptr(TrTensor) a = RANDOM(dt, DIMS(4, 5, 6));
    g_autoptr(TrTensor) b = RANDOM(dt, DIMS(6, 3));
    assert_matmul_matches(a, b, false, false, tol_for(dt));
    assert_matmul_matches(a, b, false, false, tol_for(dt));
    g_autoptr(TrTensor) b1 = RANDOM(dt, DIMS(1, 6, 3));
    assert_matmul_matches(a, b1, false, false, tol_for(dt));
    /* batches that do not step uniformly cannot fold */
    g_autoptr(TrTensor) stored = RANDOM(dt, DIMS(5, 4, 6));
    g_autoptr(TrTensor) swapped = permuted_view(stored, (const int64_t[]){1, 0, 2});
    assert_matmul_matches(swapped, b, false, false, tol_for(dt));
    g_autoptr(TrTensor) c = RANDOM(dt, DIMS(3, 6, 5));
    assert_matmul_matches(c, b, true, false, tol_for(dt));
  }
}

static void
test_batch_matmul_transpose(void)
{
  for (TrDType dt = TR_FLOAT32; dt <= TR_INT64; dt++)
    for (int t = 0; t < 4; t++) {
      bool ta = t & 1, tb = t >> 1;
      g_autoptr(TrTensor) a = ta ? RANDOM(dt, DIMS(3, 7, 5)) : RANDOM(dt, DIMS(3, 5, 7));
      g_autoptr(TrTensor) b = tb ? RANDOM(dt, DIMS(3, 4, 7)) : RANDOM(dt, DIMS(3, 7, 4));
      assert_matmul_matches(a, b, ta, tb, tol_for(dt));
    }
}

/* Batched inputs that are views: transposed matrices, permuted batch dims. */
static void
test_batch_matmul_views(void)
{
  for (TrDType dt = TR_FLOAT32; dt <= TR_INT64; dt++) {
    g_autoptr(TrTensor) sa = RANDOM(dt, DIMS(3, 2, 6, 5));
    g_autoptr(TrTensor) a = permuted_view(sa, (const int64_t[]){1, 0, 3, 2}); /* [2,3,5,6] */
    g_autoptr(TrTensor) sb = RANDOM(dt, DIMS(6, 3, 4));
    g_autoptr(TrTensor) b = permuted_view(sb, (const int64_t[]){1, 0, 2}); /* [3,6,4] */
    /* [1,3,6,4] over the same buffer; the size-1 dim has a stride nothing should read */
    TrShape s = tr_shape_make(4, (const int64_t[]){1, 3, 6, 4});
    g_autoptr(TrTensor) b1 =
        tr_tensor_new_view(sb->buf, dt, &s, (const int64_t[]){99, 4, 12, 1}, 0);
    assert_matmul_matches(a, b, false, false, tol_for(dt));
    assert_matmul_matches(a, b1, false, false, tol_for(dt));
    assert_matmul_matches(b, a, true, true, tol_for(dt));
  }
}

static void
test_batch_matmul_random(void)
{
  static const int64_t shapes[][4] = {
      {1, 1, 1, 1}, {7, 1, 9, 3}, {3, 17, 1, 5}, {2, 65, 33, 31}, {9, 8, 8, 8}};
  for (TrDType dt = TR_FLOAT32; dt <= TR_FLOAT64; dt++)
    for (guint s = 0; s < G_N_ELEMENTS(shapes); s++) {
      const int64_t *d = shapes[s];
      g_autoptr(TrTensor) a = RANDOM(dt, DIMS(d[0], d[1], d[2]));
      g_autoptr(TrTensor) b = RANDOM(dt, DIMS(d[0], d[2], d[3]));
      assert_matmul_matches(a, b, false, false, tol_for(dt));
      g_autoptr(TrTensor) e = RANDOM(dt, DIMS(d[0], 0, d[2]));
      assert_matmul_matches(e, b, false, false, tol_for(dt));
      g_autoptr(TrTensor) z1 = RANDOM(dt, DIMS(d[0], d[1], 0));
      g_autoptr(TrTensor) z2 = RANDOM(dt, DIMS(d[0], 0, d[3]));
      assert_matmul_matches(z1, z2, false, false, tol_for(dt));
    }
}

static void
test_batch_matmul_errors(void)
{
  GError *error = NULL;
  g_autoptr(TrTensor) v = RANDOM(TR_FLOAT32, DIMS(4));
  g_autoptr(TrTensor) m = RANDOM(TR_FLOAT32, DIMS(4, 4));
  g_autoptr(TrTensor) a = RANDOM(TR_FLOAT32, DIMS(2, 3, 4));
  TrTensor *in[2] = {v, m};
  g_assert_null(tr_op_run(TR_OP_BATCH_MATMUL, in, 2, NULL, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "In[0] ndims must be >= 2: 1 [Op:BatchMatMulV2]");
  in[0] = a;
  in[1] = v;
  g_assert_null(tr_op_run(TR_OP_BATCH_MATMUL, in, 2, NULL, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "In[1] ndims must be >= 2: 1 [Op:BatchMatMulV2]");

  g_autoptr(TrTensor) b = RANDOM(TR_FLOAT32, DIMS(3, 4, 5));
  assert_matmul_error(a, b, false, false,
                      "In[0] and In[1] must have compatible batch dimensions: [2,3,4] vs. [3,4,5] "
                      "[Op:BatchMatMulV2]");
  assert_matmul_error(
      a, a, false, false,
      "Matrix size-incompatible: In[0]: [2,3,4], In[1]: [2,3,4] [Op:BatchMatMulV2]");
  assert_matmul_error(a, m, true, false,
                      "Matrix size-incompatible: In[0]: [2,3,4], In[1]: [4,4] [Op:BatchMatMulV2]");
  g_autoptr(TrTensor) d = RANDOM(TR_FLOAT64, DIMS(2, 4, 3));
  assert_matmul_error(a, d, false, false,
                      "cannot compute BatchMatMulV2 as input #1(zero-based) was expected to be a "
                      "float tensor but is a double tensor [Op:BatchMatMulV2]");
}

static void
test_batch_matmul_infer_partial(void)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  TrTensorInfo in[2] = {tt_symbolic(TR_FLOAT32, DIMS(U, 3, 4)),
                        tt_symbolic(TR_FLOAT32, DIMS(4, 5))};
  tt_assert_infers(TR_OP_BATCH_MATMUL, in, 2, &attrs, TR_FLOAT32, "(None, 3, 5)");
  in[1] = tt_symbolic(TR_FLOAT32, DIMS(7, 1, U, 5));
  tt_assert_infers(TR_OP_BATCH_MATMUL, in, 2, &attrs, TR_FLOAT32, "(7, None, 3, 5)");
  in[1] = tt_symbolic(TR_FLOAT32, UNKNOWN_RANK);
  tt_assert_infers(TR_OP_BATCH_MATMUL, in, 2, &attrs, TR_FLOAT32, "<unknown>");
  attrs.transpose_a = true;
  in[0] = tt_symbolic(TR_INT64, DIMS(2, U, 3));
  in[1] = tt_symbolic(TR_INT64, DIMS(U, 6));
  tt_assert_infers(TR_OP_BATCH_MATMUL, in, 2, &attrs, TR_INT64, "(2, 3, 6)");
  attrs.transpose_a = false;
  in[0] = tt_symbolic(TR_FLOAT32, DIMS(2, 3, 4));
  in[1] = tt_symbolic(TR_FLOAT32, DIMS(3, 5, U));
  tt_assert_infer_error(
      TR_OP_BATCH_MATMUL, in, 2, &attrs,
      "In[0] and In[1] must have compatible batch dimensions: [2,3,4] vs. [3,5,?] "
      "[Op:BatchMatMulV2]");
  in[1] = tt_symbolic(TR_FLOAT32, DIMS(U, 5, U));
  tt_assert_infer_error(TR_OP_BATCH_MATMUL, in, 2, &attrs,
                        "Matrix size-incompatible: In[0]: [2,3,4], In[1]: [?,5,?] "
                        "[Op:BatchMatMulV2]");
  in[0] = tt_symbolic(TR_FLOAT32, DIMS(3));
  tt_assert_infer_error(TR_OP_BATCH_MATMUL, in, 2, &attrs,
                        "In[0] ndims must be >= 2: 1 [Op:BatchMatMulV2]");
}

/* ---- Conv2D ----------------------------------------------------------------------------- */

static void
test_conv2d_valid_hand(void)
{
  check_hand_conv(TR_FLOAT32);
}

static void
test_conv2d_same_hand(void)
{
  g_autoptr(TrTensor) x = TT(TR_FLOAT32, DIMS(1, 3, 3, 1), VALS(1, 1, 1, 1, 1, 1, 1, 1, 1));
  g_autoptr(TrTensor) f = TT(TR_FLOAT32, DIMS(3, 3, 1, 1), VALS(1, 1, 1, 1, 1, 1, 1, 1, 1));
  assert_conv_gives(x, f, 1, 1, TR_PADDING_SAME, DIMS(1, 3, 3, 1), VALS(4, 6, 4, 6, 9, 6, 4, 6, 4));
}

/* TensorFlow puts SAME's odd padding row and column at the bottom and right. */
static void
test_conv2d_same_stride_2_hand(void)
{
  g_autoptr(TrTensor) x =
      TT(TR_FLOAT32, DIMS(1, 4, 4, 1), VALS(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16));
  g_autoptr(TrTensor) f = TT(TR_FLOAT32, DIMS(3, 3, 1, 1), VALS(1, 1, 1, 1, 1, 1, 1, 1, 1));
  assert_conv_gives(x, f, 2, 2, TR_PADDING_SAME, DIMS(1, 2, 2, 1), VALS(54, 45, 72, 54));
}

static void
test_conv2d_multichannel_hand(void)
{
  g_autoptr(TrTensor) x = TT(TR_FLOAT64, DIMS(1, 1, 2, 2), VALS(1, 2, 3, 4));
  /* [1, 1, 2 in, 3 out] */
  g_autoptr(TrTensor) f = TT(TR_FLOAT64, DIMS(1, 1, 2, 3), VALS(1, 0, 1, 0, 1, 1));
  assert_conv_gives(x, f, 1, 1, TR_PADDING_VALID, DIMS(1, 1, 2, 3), VALS(1, 2, 3, 3, 4, 7));
}

/* Shallow inputs and strides > 1 take the im2col path. */
static void
test_conv2d_valid(void)
{
  check_random_conv(TR_FLOAT32, 1, 5, 5, 1, 3, 3, 1, 1, 1, 1, TR_PADDING_VALID);
  check_random_conv(TR_FLOAT32, 2, 7, 6, 3, 3, 2, 3, 4, 1, 1, TR_PADDING_VALID);
  check_random_conv(TR_FLOAT32, 3, 9, 11, 5, 4, 3, 5, 7, 1, 1, TR_PADDING_VALID);
  check_random_conv(TR_FLOAT64, 1, 6, 6, 2, 6, 6, 2, 3, 1, 1, TR_PADDING_VALID);
  check_random_conv(TR_FLOAT32, 1, 5, 5, 2, 5, 5, 2, 2, 1, 1, TR_PADDING_VALID);
  check_random_conv(TR_FLOAT32, 2, 3, 8, 3, 2, 5, 3, 2, 1, 1, TR_PADDING_VALID);
}

static void
test_conv2d_valid_strides(void)
{
  check_random_conv(TR_FLOAT32, 1, 7, 7, 3, 3, 3, 3, 4, 2, 2, TR_PADDING_VALID);
  check_random_conv(TR_FLOAT32, 2, 8, 9, 2, 2, 3, 2, 3, 2, 3, TR_PADDING_VALID);
  check_random_conv(TR_FLOAT64, 3, 10, 5, 4, 1, 1, 4, 5, 3, 1, TR_PADDING_VALID);
  check_random_conv(TR_FLOAT32, 1, 9, 9, 64, 3, 3, 64, 8, 2, 2, TR_PADDING_VALID);
  check_random_conv(TR_FLOAT32, 1, 4, 4, 1, 3, 3, 1, 1, 5, 5, TR_PADDING_VALID);
}

static void
test_conv2d_same(void)
{
  check_random_conv(TR_FLOAT32, 1, 5, 5, 1, 3, 3, 1, 1, 1, 1, TR_PADDING_SAME);
  check_random_conv(TR_FLOAT32, 2, 6, 7, 3, 2, 2, 3, 4, 1, 1, TR_PADDING_SAME);
  check_random_conv(TR_FLOAT64, 1, 5, 8, 2, 4, 5, 2, 3, 1, 1, TR_PADDING_SAME);
  check_random_conv(TR_FLOAT32, 1, 3, 3, 2, 5, 5, 2, 2, 1, 1, TR_PADDING_SAME);
}

static void
test_conv2d_same_stride_2(void)
{
  check_random_conv(TR_FLOAT32, 1, 4, 4, 1, 3, 3, 1, 1, 2, 2, TR_PADDING_SAME);
  check_random_conv(TR_FLOAT32, 2, 7, 8, 3, 3, 3, 3, 5, 2, 2, TR_PADDING_SAME);
  check_random_conv(TR_FLOAT32, 1, 9, 10, 2, 4, 2, 2, 3, 2, 3, TR_PADDING_SAME);
  check_random_conv(TR_FLOAT64, 3, 5, 5, 2, 1, 1, 2, 2, 2, 2, TR_PADDING_SAME);
  check_random_conv(TR_FLOAT32, 1, 2, 2, 1, 3, 3, 1, 1, 3, 3, TR_PADDING_SAME);
  check_random_conv(TR_FLOAT32, 1, 11, 11, 64, 3, 3, 64, 4, 2, 2, TR_PADDING_SAME);
}

/* Deep inputs at stride 1 take the shifted-GEMM path (with a zero border for SAME). */
static void
test_conv2d_deep(void)
{
  check_random_conv(TR_FLOAT32, 1, 9, 8, 64, 3, 3, 64, 16, 1, 1, TR_PADDING_VALID);
  check_random_conv(TR_FLOAT32, 2, 7, 9, 50, 3, 2, 50, 5, 1, 1, TR_PADDING_VALID);
  check_random_conv(TR_FLOAT32, 2, 8, 7, 64, 3, 3, 64, 16, 1, 1, TR_PADDING_SAME);
  check_random_conv(TR_FLOAT64, 1, 6, 6, 48, 4, 4, 48, 3, 1, 1, TR_PADDING_SAME);
  check_random_conv(TR_FLOAT32, 1, 7, 6, 64, 3, 1, 64, 5, 1, 1, TR_PADDING_VALID);
  check_random_conv(TR_FLOAT32, 1, 7, 6, 64, 1, 3, 64, 5, 1, 1, TR_PADDING_SAME);
  check_random_conv(TR_INT32, 1, 5, 5, 64, 3, 3, 64, 3, 1, 1, TR_PADDING_SAME);
}

/* Large images: the shifted GEMM runs in several blocks of rows (2 MB of output each). */
static void
test_conv2d_deep_blocks(void)
{
  check_random_conv(TR_FLOAT32, 1, 150, 130, 48, 2, 2, 48, 64, 1, 1, TR_PADDING_VALID);
  check_random_conv(TR_FLOAT32, 1, 70, 100, 48, 2, 2, 48, 96, 1, 1, TR_PADDING_SAME);
}

/* Many output pixels: im2col runs in several blocks (4 MB each), some spanning two images. */
static void
test_conv2d_im2col_blocks(void)
{
  check_random_conv(TR_FLOAT32, 2, 130, 130, 32, 3, 3, 32, 4, 2, 2, TR_PADDING_VALID);
  check_random_conv(TR_FLOAT32, 3, 60, 70, 16, 3, 3, 16, 3, 1, 1, TR_PADDING_SAME);
}

static void
test_conv2d_pointwise(void)
{
  check_random_conv(TR_FLOAT32, 2, 5, 6, 3, 1, 1, 3, 4, 1, 1, TR_PADDING_VALID);
  check_random_conv(TR_FLOAT32, 1, 4, 4, 64, 1, 1, 64, 7, 1, 1, TR_PADDING_SAME);
  check_random_conv(TR_INT32, 1, 3, 3, 2, 1, 1, 2, 2, 1, 1, TR_PADDING_VALID);
}

/* Input depth a multiple of the filter depth: one convolution per group of channels. */
static void
test_conv2d_grouped(void)
{
  check_random_conv(TR_FLOAT32, 1, 5, 5, 6, 3, 3, 3, 4, 1, 1, TR_PADDING_VALID);
  check_random_conv(TR_FLOAT32, 2, 6, 6, 6, 3, 3, 2, 6, 2, 2, TR_PADDING_SAME);
  check_random_conv(TR_FLOAT32, 1, 6, 6, 128, 3, 3, 64, 8, 1, 1, TR_PADDING_SAME);
  check_random_conv(TR_FLOAT64, 1, 4, 4, 4, 1, 1, 1, 4, 1, 1, TR_PADDING_VALID);
}

static void
test_conv2d_int32(void)
{
  check_hand_conv(TR_INT32);
  check_random_conv(TR_INT32, 2, 6, 5, 3, 3, 3, 3, 2, 2, 1, TR_PADDING_SAME);
}

/* Inputs that are views (a transposed image, a permuted filter) are read correctly. */
static void
test_conv2d_views(void)
{
  g_autoptr(TrTensor) stored = RANDOM(TR_FLOAT32, DIMS(1, 7, 6, 64));
  g_autoptr(TrTensor) x = permuted_view(stored, (const int64_t[]){0, 2, 1, 3});
  g_autoptr(TrTensor) sf = RANDOM(TR_FLOAT32, DIMS(3, 3, 4, 64));
  g_autoptr(TrTensor) f = permuted_view(sf, (const int64_t[]){0, 1, 3, 2});
  assert_conv_matches(x, f, 1, 1, TR_PADDING_VALID, 1e-4);
  assert_conv_matches(x, f, 2, 1, TR_PADDING_SAME, 1e-4);
}

static void
test_conv2d_empty(void)
{
  g_autoptr(TrTensor) x = TT(TR_FLOAT32, DIMS(1, 2, 2, 0), VALS(0));
  g_autoptr(TrTensor) f = TT(TR_FLOAT32, DIMS(1, 1, 1, 2), VALS(1, 1));
  assert_conv_gives(x, f, 1, 1, TR_PADDING_VALID, DIMS(1, 2, 2, 2), VALS(0, 0, 0, 0, 0, 0, 0, 0));

  g_autoptr(TrTensor) x0 = TT(TR_FLOAT32, DIMS(0, 4, 4, 2), VALS(0));
  g_autoptr(TrTensor) f0 = RANDOM(TR_FLOAT32, DIMS(3, 3, 2, 5));
  assert_conv_gives(x0, f0, 1, 1, TR_PADDING_SAME, DIMS(0, 4, 4, 5), VALS(0));
}

static void
assert_conv_error(TrTensor *x, TrTensor *f, int64_t sh, int64_t sw, TrPadding padding,
                  const char *message)
{
  GError *error = NULL;
  g_assert_null(tr_conv2d(x, f, (const int64_t[]){sh, sw}, padding, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT, message);
}

static void
test_conv2d_errors(void)
{
  g_autoptr(TrTensor) x = RANDOM(TR_FLOAT32, DIMS(1, 5, 5, 3));
  g_autoptr(TrTensor) x3 = RANDOM(TR_FLOAT32, DIMS(5, 5, 3));
  g_autoptr(TrTensor) f = RANDOM(TR_FLOAT32, DIMS(3, 3, 3, 2));
  g_autoptr(TrTensor) f3 = RANDOM(TR_FLOAT32, DIMS(3, 3, 3));
  assert_conv_error(x3, f, 1, 1, TR_PADDING_VALID,
                    "input must be 4-dimensional[5,5,3] [Op:Conv2D]");
  assert_conv_error(x, f3, 1, 1, TR_PADDING_VALID,
                    "filter must be 4-dimensional: [3,3,3] [Op:Conv2D]");
  g_autoptr(TrTensor) f2 = RANDOM(TR_FLOAT32, DIMS(3, 3, 2, 2));
  assert_conv_error(x, f2, 1, 1, TR_PADDING_VALID,
                    "input depth must be evenly divisible by filter depth: 3 vs 2 [Op:Conv2D]");
  g_autoptr(TrTensor) fz = TT(TR_FLOAT32, DIMS(3, 3, 0, 2), VALS(0));
  assert_conv_error(x, fz, 1, 1, TR_PADDING_VALID,
                    "filter depth must be stricly positive, got 0 [Op:Conv2D]");
  g_autoptr(TrTensor) x4 = RANDOM(TR_FLOAT32, DIMS(1, 5, 5, 4));
  g_autoptr(TrTensor) fg = RANDOM(TR_FLOAT32, DIMS(3, 3, 2, 3));
  assert_conv_error(x4, fg, 1, 1, TR_PADDING_VALID,
                    "output depth must be evenly divisible by number of groups: 3 vs 2 "
                    "[Op:Conv2D]");
  g_autoptr(TrTensor) big = RANDOM(TR_FLOAT32, DIMS(7, 3, 3, 2));
  assert_conv_error(x, big, 1, 1, TR_PADDING_VALID,
                    "Computed output size would be negative: -1 [input_size: 5, "
                    "effective_filter_size: 7, stride: 1] [Op:Conv2D]");
  g_autoptr(TrTensor) wide = RANDOM(TR_FLOAT32, DIMS(3, 9, 3, 2));
  assert_conv_error(x, wide, 2, 1, TR_PADDING_VALID,
                    "Computed output size would be negative: -3 [input_size: 5, "
                    "effective_filter_size: 9, stride: 1] [Op:Conv2D]");
  assert_conv_error(x, f, 0, 1, TR_PADDING_VALID,
                    "Row and column strides should be larger than 0. [Op:Conv2D]");
  assert_conv_error(x, f, 1, -2, TR_PADDING_SAME,
                    "Row and column strides should be larger than 0. [Op:Conv2D]");
  g_autoptr(TrTensor) fd = RANDOM(TR_FLOAT64, DIMS(3, 3, 3, 2));
  assert_conv_error(x, fd, 1, 1, TR_PADDING_VALID,
                    "cannot compute Conv2D as input #1(zero-based) was expected to be a float "
                    "tensor but is a double tensor [Op:Conv2D]");
  g_autoptr(TrTensor) xi = RANDOM(TR_INT64, DIMS(1, 5, 5, 3));
  g_autoptr(TrTensor) fi = RANDOM(TR_INT64, DIMS(3, 3, 3, 2));
  assert_conv_error(xi, fi, 1, 1, TR_PADDING_VALID,
                    "Value for attr 'T' of int64 is not in the list of allowed values: half, "
                    "bfloat16, float, double, int32 [Op:Conv2D]");
  g_autoptr(TrTensor) fe = TT(TR_FLOAT32, DIMS(0, 3, 3, 2), VALS(0));
  assert_conv_error(x, fe, 1, 1, TR_PADDING_VALID,
                    "filter must not have zero elements (i.e. all dimensions must be non-zero) "
                    "[Op:Conv2D]");
}

static void
test_conv2d_infer_partial(void)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  TrTensorInfo in[2] = {tt_symbolic(TR_FLOAT32, DIMS(U, 28, 28, 3)),
                        tt_symbolic(TR_FLOAT32, DIMS(3, 3, 3, 8))};
  tt_assert_infers(TR_OP_CONV2D, in, 2, &attrs, TR_FLOAT32, "(None, 26, 26, 8)");
  in[0] = tt_symbolic(TR_FLOAT32, DIMS(U, U, U, 3));
  tt_assert_infers(TR_OP_CONV2D, in, 2, &attrs, TR_FLOAT32, "(None, None, None, 8)");
  in[0] = tt_symbolic(TR_FLOAT32, UNKNOWN_RANK);
  tt_assert_infers(TR_OP_CONV2D, in, 2, &attrs, TR_FLOAT32, "(None, None, None, 8)");
  in[1] = tt_symbolic(TR_FLOAT32, UNKNOWN_RANK);
  tt_assert_infers(TR_OP_CONV2D, in, 2, &attrs, TR_FLOAT32, "(None, None, None, None)");

  attrs.strides[0] = attrs.strides[1] = 2;
  attrs.padding = TR_PADDING_SAME;
  in[0] = tt_symbolic(TR_FLOAT64, DIMS(1, U, 7, 3));
  in[1] = tt_symbolic(TR_FLOAT64, DIMS(3, 3, U, 4));
  tt_assert_infers(TR_OP_CONV2D, in, 2, &attrs, TR_FLOAT64, "(1, None, 4, 4)");

  attrs.strides[0] = attrs.strides[1] = 1;
  attrs.padding = TR_PADDING_VALID;
  in[0] = tt_symbolic(TR_FLOAT32, DIMS(U, U, U, 3));
  in[1] = tt_symbolic(TR_FLOAT32, DIMS(3, 3, 2, 8));
  tt_assert_infer_error(TR_OP_CONV2D, in, 2, &attrs,
                        "input depth must be evenly divisible by filter depth: 3 vs 2 [Op:Conv2D]");
  in[0] = tt_symbolic(TR_FLOAT32, DIMS(U, 2, U, 2));
  in[1] = tt_symbolic(TR_FLOAT32, DIMS(5, 3, 2, 8));
  tt_assert_infer_error(TR_OP_CONV2D, in, 2, &attrs,
                        "Computed output size would be negative: -2 [input_size: 2, "
                        "effective_filter_size: 5, stride: 1] [Op:Conv2D]");
  in[1] = tt_symbolic(TR_FLOAT32, DIMS(5, 3, 2));
  tt_assert_infer_error(TR_OP_CONV2D, in, 2, &attrs,
                        "filter must be 4-dimensional: [5,3,2] [Op:Conv2D]");
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  /* Conv2D on Trellis's own kernels, whatever the CPU: test-conv checks oneDNN's. */
  tr_dnnl_min_macs = INT64_MAX;

  g_test_add_func("/tensor/linalg/matmul/hand", test_matmul_hand);
  g_test_add_func("/tensor/linalg/matmul/transpose-a", test_matmul_transpose_a);
  g_test_add_func("/tensor/linalg/matmul/transpose-b", test_matmul_transpose_b);
  g_test_add_func("/tensor/linalg/matmul/transpose-both", test_matmul_transpose_both);
  g_test_add_func("/tensor/linalg/matmul/int", test_matmul_int);
  g_test_add_func("/tensor/linalg/matmul/int-wraps", test_matmul_int_wraps);
  g_test_add_func("/tensor/linalg/matmul/random-vs-reference", test_matmul_random);
  g_test_add_func("/tensor/linalg/matmul/transposed-view", test_matmul_transposed_view);
  g_test_add_func("/tensor/linalg/matmul/strided-view", test_matmul_strided_view);
  g_test_add_func("/tensor/linalg/matmul/empty", test_matmul_empty);
  g_test_add_func("/tensor/linalg/matmul/error/size-incompatible", test_matmul_error_size);
  g_test_add_func("/tensor/linalg/matmul/error/ndims", test_matmul_error_ndims);
  g_test_add_func("/tensor/linalg/matmul/error/dtype", test_matmul_error_dtype);
  g_test_add_func("/tensor/linalg/matmul/infer/partial", test_matmul_infer_partial);
  g_test_add_func("/tensor/linalg/matmul/op-defs", test_matmul_op_defs);

  g_test_add_func("/tensor/linalg/batch-matmul/hand", test_batch_matmul_hand);
  g_test_add_func("/tensor/linalg/batch-matmul/broadcast", test_batch_matmul_broadcast);
  g_test_add_func("/tensor/linalg/batch-matmul/folded", test_batch_matmul_folded);
  g_test_add_func("/tensor/linalg/batch-matmul/transpose", test_batch_matmul_transpose);
  g_test_add_func("/tensor/linalg/batch-matmul/views", test_batch_matmul_views);
  g_test_add_func("/tensor/linalg/batch-matmul/random-vs-reference", test_batch_matmul_random);
  g_test_add_func("/tensor/linalg/batch-matmul/errors", test_batch_matmul_errors);
  g_test_add_func("/tensor/linalg/batch-matmul/infer/partial", test_batch_matmul_infer_partial);

  g_test_add_func("/tensor/linalg/conv2d/valid-hand", test_conv2d_valid_hand);
  g_test_add_func("/tensor/linalg/conv2d/same-hand", test_conv2d_same_hand);
  g_test_add_func("/tensor/linalg/conv2d/same-stride-2-hand", test_conv2d_same_stride_2_hand);
  g_test_add_func("/tensor/linalg/conv2d/multichannel-hand", test_conv2d_multichannel_hand);
  g_test_add_func("/tensor/linalg/conv2d/valid", test_conv2d_valid);
  g_test_add_func("/tensor/linalg/conv2d/valid-strides", test_conv2d_valid_strides);
  g_test_add_func("/tensor/linalg/conv2d/same", test_conv2d_same);
  g_test_add_func("/tensor/linalg/conv2d/same-stride-2", test_conv2d_same_stride_2);
  g_test_add_func("/tensor/linalg/conv2d/deep-shifted", test_conv2d_deep);
  g_test_add_func("/tensor/linalg/conv2d/deep-shifted-blocks", test_conv2d_deep_blocks);
  g_test_add_func("/tensor/linalg/conv2d/im2col-blocks", test_conv2d_im2col_blocks);
  g_test_add_func("/tensor/linalg/conv2d/pointwise", test_conv2d_pointwise);
  g_test_add_func("/tensor/linalg/conv2d/grouped", test_conv2d_grouped);
  g_test_add_func("/tensor/linalg/conv2d/int32", test_conv2d_int32);
  g_test_add_func("/tensor/linalg/conv2d/views", test_conv2d_views);
  g_test_add_func("/tensor/linalg/conv2d/empty", test_conv2d_empty);
  g_test_add_func("/tensor/linalg/conv2d/errors", test_conv2d_errors);
  g_test_add_func("/tensor/linalg/conv2d/infer/partial", test_conv2d_infer_partial);

  return g_test_run();
}
