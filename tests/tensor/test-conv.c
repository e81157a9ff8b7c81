/* test-conv.c — the oneDNN kernels (ops-dnnl.c) against naive loops in double precision:
 * Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter over strides, paddings and groups, in
 * one tile and in many (bands of rows, several images per tile), float32 SGEMM through MatMul,
 * and interrupts between tiles. Small cases are sent to oneDNN by lowering tr_dnnl_min_macs;
 * tr_dnnl_tile_macs makes them run in many tiles. float64 cases check Trellis's own kernels
 * against the same reference. */
#include "linalg-dnnl.h"
#include "test-util.h"

#include <math.h>

/* ---- helpers ---------------------------------------------------------------------------- */

static TrTensor *
random_tensor(TrDType dtype, int rank, const int64_t *dims)
{
  TrShape s = tr_shape_make(rank, dims);
  int64_t n = tr_shape_num_elements(&s);
  g_autofree double *v = g_new(double, MAX(n, 1));
  for (int64_t i = 0; i < n; i++)
    v[i] = g_test_rand_double_range(-1.0, 1.0);
  return tt_tensor(dtype, rank, dims, v);
}

static double *
to_doubles(const TrTensor *t)
{
  int64_t n = tr_tensor_num_elements(t);
  double *v = g_new(double, MAX(n, 1));
  for (int64_t i = 0; i < n; i++)
    v[i] = tr_tensor_get_f64(t, i);
  return v;
}

/* One convolution case: input [n, h, w, c], filters [kh, kw, kc, co] (groups = c / kc). */
typedef struct {
  int64_t n, h, w, c, kh, kw, kc, co, sh, sw;
  TrPadding padding;
} Case;

/* Output size and leading padding, as TensorFlow computes them. */
static void
out_size(int64_t in, int64_t k, int64_t s, TrPadding p, int64_t *out, int64_t *pad)
{
  *out = p == TR_PADDING_VALID ? (in - k + s) / s : (in + s - 1) / s;
  *pad = p == TR_PADDING_VALID ? 0 : MAX(0, (*out - 1) * s + k - in) / 2;
}

/* The three reference results of a case, from x, f and dy (as doubles): y = conv(x, f),
 * dx = dConv/dx · dy, df = dConv/df · dy. Each element is a sum over (pixel, tap) pairs. */
typedef struct {
  int64_t oh, ow;
  double *y, *dx, *df; /* owned */
} Ref;

static Ref
reference(const Case *c, const double *x, const double *f, const double *dy)
{
  Ref r;
  int64_t pt, pl, groups = c->c / c->kc, opg = c->co / groups;
  out_size(c->h, c->kh, c->sh, c->padding, &r.oh, &pt);
  out_size(c->w, c->kw, c->sw, c->padding, &r.ow, &pl);
  r.y = g_new0(double, MAX(c->n * r.oh * r.ow * c->co, 1));
  r.dx = g_new0(double, MAX(c->n * c->h * c->w * c->c, 1));
  r.df = g_new0(double, MAX(c->kh * c->kw * c->kc * c->co, 1));
  for (int64_t b = 0; b < c->n; b++)
    for (int64_t i = 0; i < r.oh; i++)
      for (int64_t j = 0; j < r.ow; j++)
        for (int64_t u = 0; u < c->kh; u++)
          for (int64_t v = 0; v < c->kw; v++) {
            int64_t ih = i * c->sh - pt + u, iw = j * c->sw - pl + v;
            if (ih < 0 || ih >= c->h || iw < 0 || iw >= c->w)
              continue;
            for (int64_t o = 0; o < c->co; o++)
              for (int64_t q = 0; q < c->kc; q++) {
                int64_t xi = ((b * c->h + ih) * c->w + iw) * c->c + (o / opg) * c->kc + q;
                int64_t fi = ((u * c->kw + v) * c->kc + q) * c->co + o;
                int64_t yi = ((b * r.oh + i) * r.ow + j) * c->co + o;
                r.y[yi] += x[xi] * f[fi];
                r.dx[xi] += f[fi] * dy[yi];
                r.df[fi] += x[xi] * dy[yi];
              }
          }
  return r;
}

static double
tol_for(TrDType dtype)
{
  return dtype == TR_FLOAT32 ? 1e-4 : 1e-12;
}

/* Whether oneDNN could be opened (then it computes every float32 gradient). */
static bool
have_dnnl(void)
{
  return strstr(tr_compute_description(), "oneDNN unavailable") == NULL;
}

/* After a float32 op: the kernel that ran was oneDNN's, where it is expected to take the op. */
static void
check_dnnl_ran(TrDType dtype, bool expected)
{
  if (dtype == TR_FLOAT32 && expected && have_dnnl())
    g_assert_true(g_str_has_prefix(tr_last_kernel(), "oneDNN"));
}

/* Run Conv2D and both gradients of case `c` in `dtype` and compare with the reference. */
static void
check_case(const Case *c, TrDType dtype)
{
  g_autoptr(TrTensor) x = random_tensor(dtype, DIMS(c->n, c->h, c->w, c->c));
  g_autoptr(TrTensor) f = random_tensor(dtype, DIMS(c->kh, c->kw, c->kc, c->co));
  int64_t oh, ow, pad;
  out_size(c->h, c->kh, c->sh, c->padding, &oh, &pad);
  out_size(c->w, c->kw, c->sw, c->padding, &ow, &pad);
  g_autoptr(TrTensor) dy = random_tensor(dtype, DIMS(c->n, oh, ow, c->co));
  g_autofree double *xv = to_doubles(x);
  g_autofree double *fv = to_doubles(f);
  g_autofree double *dyv = to_doubles(dy);
  Ref r = reference(c, xv, fv, dyv);
  double tol = tol_for(dtype);
  GError *error = NULL;

  g_autoptr(TrTensor) y = tr_conv2d(x, f, (const int64_t[]){c->sh, c->sw}, c->padding, &error);
  g_assert_no_error(error);
  tt_assert_tensor(y, dtype, DIMS(c->n, oh, ow, c->co), r.y, tol);
  if (dtype == TR_FLOAT32)
    g_test_message("Conv2D [%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
                   ",%" G_GINT64_FORMAT "] groups %" G_GINT64_FORMAT ": %s",
                   c->n, c->h, c->w, c->c, c->c / c->kc, tr_last_kernel());

  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.strides[0] = c->sh;
  attrs.strides[1] = c->sw;
  attrs.padding = c->padding;
  attrs.n_axes = 4;
  memcpy(attrs.axes, (const int64_t[]){c->n, c->h, c->w, c->c}, sizeof(int64_t[4]));
  g_autoptr(TrTensor) dx =
      tr_op_run(TR_OP_CONV2D_BACKPROP_INPUT, (TrTensor *[]){f, dy}, 2, &attrs, &error);
  g_assert_no_error(error);
  tt_assert_tensor(dx, dtype, DIMS(c->n, c->h, c->w, c->c), r.dx, tol);
  check_dnnl_ran(dtype, true);

  memcpy(attrs.axes, (const int64_t[]){c->kh, c->kw, c->kc, c->co}, sizeof(int64_t[4]));
  g_autoptr(TrTensor) df =
      tr_op_run(TR_OP_CONV2D_BACKPROP_FILTER, (TrTensor *[]){x, dy}, 2, &attrs, &error);
  g_assert_no_error(error);
  tt_assert_tensor(df, dtype, DIMS(c->kh, c->kw, c->kc, c->co), r.df, tol);
  check_dnnl_ran(dtype, true);
  g_free(r.y);
  g_free(r.dx);
  g_free(r.df);
}

/* Strides below, equal to and above the filter size, both paddings, odd sizes whose last rows
 * no VALID window reads, 1x1 filters at stride 2, groups, and several images. */
static const Case cases[] = {
    {1, 9, 9, 8, 3, 3, 8, 16, 1, 1, TR_PADDING_VALID},
    {2, 11, 10, 16, 3, 3, 16, 8, 1, 1, TR_PADDING_SAME},
    {2, 12, 13, 5, 3, 2, 5, 7, 2, 2, TR_PADDING_VALID},
    {3, 13, 9, 4, 3, 3, 4, 6, 2, 3, TR_PADDING_SAME},
    {2, 10, 10, 16, 1, 1, 16, 32, 2, 2, TR_PADDING_VALID},
    {1, 11, 12, 6, 2, 2, 6, 5, 3, 3, TR_PADDING_SAME},
    {1, 15, 14, 3, 5, 5, 3, 4, 1, 1, TR_PADDING_SAME},
    {2, 8, 9, 12, 3, 3, 4, 6, 1, 1, TR_PADDING_SAME},     /* 3 groups */
    {1, 10, 7, 32, 3, 3, 16, 32, 2, 1, TR_PADDING_VALID}, /* 2 groups */
    {4, 6, 6, 8, 3, 3, 8, 8, 1, 1, TR_PADDING_VALID},
};

/* Every case in float32 (oneDNN) with tiles of `tile_macs` multiply-adds, and in float64. */
static void
check_all(int64_t tile_macs)
{
  int64_t saved_min = tr_dnnl_min_macs, saved_tile = tr_dnnl_tile_macs;
  tr_dnnl_min_macs = 0;
  tr_dnnl_tile_macs = tile_macs;
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    check_case(&cases[i], TR_FLOAT32);
    check_case(&cases[i], TR_FLOAT64);
  }
  tr_dnnl_min_macs = saved_min;
  tr_dnnl_tile_macs = saved_tile;
}

/* ---- tests ------------------------------------------------------------------------------ */

static void
test_one_tile(void)
{
  check_all((int64_t)1 << 32);
}

/* About 3000 multiply-adds: one or a few output rows per tile. */
static void
test_row_tiles(void)
{
  check_all(3000);
}

/* One output row per tile. */
static void
test_single_row_tiles(void)
{
  check_all(1);
}

/* Two or three whole images per tile. */
static void
test_image_tiles(void)
{
  check_all(150000);
}

/* Where oneDNN takes Conv2D (AVX-512), the kernel note says so; its gradients always. */
static void
test_kernel_names(void)
{
  const char *description = tr_compute_description();
  g_test_message("compute: %s", description);
  if (!have_dnnl()) {
    g_test_skip("oneDNN cannot be opened here");
    return;
  }
  Case c = {1, 40, 40, 64, 3, 3, 64, 64, 1, 1, TR_PADDING_VALID}; /* 8.9 M multiply-adds */
  g_autoptr(TrTensor) x = random_tensor(TR_FLOAT32, DIMS(c.n, c.h, c.w, c.c));
  g_autoptr(TrTensor) f = random_tensor(TR_FLOAT32, DIMS(c.kh, c.kw, c.kc, c.co));
  GError *error = NULL;
  g_autoptr(TrTensor) y = tr_conv2d(x, f, (const int64_t[]){1, 1}, c.padding, &error);
  g_assert_no_error(error);
  g_test_message("Conv2D kernel: %s", tr_last_kernel());
  bool conv = strstr(description, "float32 Conv2D,") != NULL;
  g_assert_true(g_str_has_prefix(tr_last_kernel(), "oneDNN") == conv);
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.n_axes = 4;
  memcpy(attrs.axes, (const int64_t[]){c.kh, c.kw, c.kc, c.co}, sizeof(int64_t[4]));
  g_autoptr(TrTensor) df =
      tr_op_run(TR_OP_CONV2D_BACKPROP_FILTER, (TrTensor *[]){x, y}, 2, &attrs, &error);
  g_assert_no_error(error);
  g_assert_true(g_str_has_prefix(tr_last_kernel(), "oneDNN"));
}

static volatile sig_atomic_t cancel;

/* With the flag up, each of the three stops before its first tile and says so. */
static void
test_cancel(void)
{
  g_autoptr(TrTensor) x = random_tensor(TR_FLOAT32, DIMS(2, 64, 64, 32));
  g_autoptr(TrTensor) f = random_tensor(TR_FLOAT32, DIMS(3, 3, 32, 32));
  g_autoptr(TrTensor) dy = random_tensor(TR_FLOAT32, DIMS(2, 64, 64, 32));
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.padding = TR_PADDING_SAME;
  attrs.n_axes = 4;
  tr_set_cancel_flag(&cancel);
  cancel = 1;
  GError *error = NULL;
  g_assert_null(tr_conv2d(x, f, (const int64_t[]){1, 1}, TR_PADDING_SAME, &error));
  g_assert_error(error, TR_ERROR, TR_ERROR_CANCELLED);
  g_clear_error(&error);
  memcpy(attrs.axes, (const int64_t[]){2, 64, 64, 32}, sizeof(int64_t[4]));
  g_assert_null(tr_op_run(TR_OP_CONV2D_BACKPROP_INPUT, (TrTensor *[]){f, dy}, 2, &attrs, &error));
  g_assert_error(error, TR_ERROR, TR_ERROR_CANCELLED);
  g_clear_error(&error);
  memcpy(attrs.axes, (const int64_t[]){3, 3, 32, 32}, sizeof(int64_t[4]));
  g_assert_null(tr_op_run(TR_OP_CONV2D_BACKPROP_FILTER, (TrTensor *[]){x, dy}, 2, &attrs, &error));
  g_assert_error(error, TR_ERROR, TR_ERROR_CANCELLED);
  g_clear_error(&error);
  cancel = 0;
  g_autoptr(TrTensor) y = tr_conv2d(x, f, (const int64_t[]){1, 1}, TR_PADDING_SAME, &error);
  g_assert_no_error(error);
  tr_set_cancel_flag(NULL);
}

/* float32 MatMul on oneDNN's SGEMM (where chosen), every transpose, against double loops. */
static void
test_sgemm(void)
{
  int64_t saved = tr_dnnl_min_macs;
  tr_dnnl_min_macs = 0;
  const int64_t m = 37, k = 53, n = 29;
  for (int t = 0; t < 4; t++) {
    bool ta = t & 1, tb = t >> 1;
    g_autoptr(TrTensor) a =
        ta ? random_tensor(TR_FLOAT32, DIMS(k, m)) : random_tensor(TR_FLOAT32, DIMS(m, k));
    g_autoptr(TrTensor) b =
        tb ? random_tensor(TR_FLOAT32, DIMS(n, k)) : random_tensor(TR_FLOAT32, DIMS(k, n));
    g_autofree double *av = to_doubles(a);
    g_autofree double *bv = to_doubles(b);
    g_autofree double *want = g_new0(double, m *n);
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++)
        for (int64_t p = 0; p < k; p++)
          want[i * n + j] += av[ta ? p * m + i : i * k + p] * bv[tb ? j * k + p : p * n + j];
    GError *error = NULL;
    g_autoptr(TrTensor) c = tr_matmul(a, b, ta, tb, &error);
    g_assert_no_error(error);
    tt_assert_tensor(c, TR_FLOAT32, DIMS(m, n), want, 1e-4);
  }
  g_test_message("MatMul kernel: %s", tr_last_kernel());
  tr_dnnl_min_macs = saved;
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/tensor/conv/onednn/one-tile", test_one_tile);
  g_test_add_func("/tensor/conv/onednn/row-tiles", test_row_tiles);
  g_test_add_func("/tensor/conv/onednn/single-row-tiles", test_single_row_tiles);
  g_test_add_func("/tensor/conv/onednn/image-tiles", test_image_tiles);
  g_test_add_func("/tensor/conv/onednn/kernel-names", test_kernel_names);
  g_test_add_func("/tensor/conv/onednn/cancel", test_cancel);
  g_test_add_func("/tensor/conv/onednn/sgemm", test_sgemm);
  return g_test_run();
}
