/* test-cancel.c — long kernels stop on the cancel flag (tr_set_cancel_flag): an interrupt. */
#include "test-util.h"

#include <math.h>

static volatile sig_atomic_t cancel;

/* A float32 tensor of `n` elements, all `v`. Transfer full. */
static TrTensor *
filled(int rank, const int64_t *dims, float v)
{
  TrTensor *t = tt_zeros(TR_FLOAT32, rank, dims);
  float *p = tr_tensor_data(t);
  for (int64_t i = 0; i < tr_tensor_num_elements(t); i++)
    p[i] = v;
  return t;
}

/* Assert that running `call` (which sets `error`) failed with TR_ERROR_CANCELLED for op_type. */
#define assert_cancelled(call, error, op_type)                                                     \
  do {                                                                                             \
    TrTensor *result_ = (call);                                                                    \
    check_cancelled(result_, &(error), (op_type));                                                 \
  } while (0)

static void
check_cancelled(TrTensor *result, GError **error, const char *op_type)
{
  g_assert_null(result);
  g_assert_error(*error, TR_ERROR, TR_ERROR_CANCELLED);
  g_autofree char *suffix = g_strdup_printf("[Op:%s]", op_type);
  g_assert_true(g_str_has_suffix((*error)->message, suffix));
  g_clear_error(error);
}

static void
test_large_gemm_stops(void)
{
  g_autoptr(TrTensor) a = filled(DIMS(2048, 2048), 1.0f);
  cancel = 1;
  GError *error = NULL;
  assert_cancelled(tr_matmul(a, a, false, false, &error), error, "MatMul");
  cancel = 0;
  g_autoptr(TrTensor) c = tr_matmul(a, a, false, false, &error);
  g_assert_no_error(error);
  /* Every tile was computed once the flag is clear: corners and the middle. */
  const float *p = tr_tensor_data(c);
  g_assert_cmpfloat(p[0], ==, 2048.0f);
  g_assert_cmpfloat(p[2048 * 2048 - 1], ==, 2048.0f);
  g_assert_cmpfloat(p[1024 * 2048 + 1500], ==, 2048.0f);
}

static void
test_tiled_gemm_matches_untiled(void)
{
  /* 2600 x 1300 x 1400: more multiply-adds than one tile (4 G), in two tiles of rows (2359 rows
   * and 241). A transposed operand takes the strided path of the tiles. */
  g_autoptr(TrTensor) a = tt_arange(TR_FLOAT64, DIMS(2600, 1300));
  g_autoptr(TrTensor) b = tt_arange(TR_FLOAT64, DIMS(1400, 1300));
  GError *error = NULL;
  g_autoptr(TrTensor) c = tr_matmul(a, b, false, true, &error);
  g_assert_no_error(error);
  const double *pa = tr_tensor_data(a), *pb = tr_tensor_data(b), *pc = tr_tensor_data(c);
  const int64_t probes[][2] = {{0, 0}, {2358, 5}, {2359, 1399}, {2599, 1399}, {1200, 700}};
  for (size_t i = 0; i < G_N_ELEMENTS(probes); i++) {
    int64_t r = probes[i][0], col = probes[i][1];
    double want = 0;
    for (int64_t k = 0; k < 1300; k++)
      want += pa[r * 1300 + k] * pb[col * 1300 + k];
    g_assert_cmpfloat_with_epsilon(pc[r * 1400 + col], want, fabs(want) * 1e-12);
  }
}

static void
test_small_kernels_ignore_the_flag(void)
{
  /* Below one chunk of work a kernel never polls: a cell's small ops finish as they are. */
  g_autoptr(TrTensor) a = filled(DIMS(64, 64), 1.0f);
  cancel = 1;
  GError *error = NULL;
  g_autoptr(TrTensor) c = tr_matmul(a, a, false, false, &error);
  g_autoptr(TrTensor) s = tr_binary(TR_OP_ADD, a, a, &error);
  cancel = 0;
  g_assert_no_error(error);
  g_assert_cmpfloat(((float *)tr_tensor_data(c))[0], ==, 64.0f);
  g_assert_cmpfloat(((float *)tr_tensor_data(s))[0], ==, 2.0f);
}

static void
test_large_elementwise_stops(void)
{
  g_autoptr(TrTensor) a = filled(DIMS(4 << 20), 1.0f);
  g_autoptr(TrTensor) row = filled(DIMS(1 << 10), 1.0f);
  g_autoptr(TrTensor) m = filled(DIMS(4 << 10, 1 << 10), 1.0f);
  cancel = 1;
  GError *error = NULL;
  assert_cancelled(tr_binary(TR_OP_ADD, a, a, &error), error, "AddV2");
  assert_cancelled(tr_binary(TR_OP_MUL, m, row, &error), error, "Mul"); /* broadcast rows */
  assert_cancelled(tr_cast(a, TR_FLOAT64, &error), error, "Cast");
  cancel = 0;
  g_autoptr(TrTensor) sum = tr_binary(TR_OP_ADD, a, a, &error);
  g_assert_no_error(error);
  g_assert_cmpfloat(((float *)tr_tensor_data(sum))[(4 << 20) - 1], ==, 2.0f);
}

static void
test_large_reduction_stops(void)
{
  g_autoptr(TrTensor) a = filled(DIMS(16 << 20), 1.0f);
  g_autoptr(TrTensor) m = filled(DIMS(4 << 10, 1 << 10), 1.0f);
  cancel = 1;
  GError *error = NULL;
  assert_cancelled(tr_reduce(TR_OP_SUM, a, NULL, -1, false, &error), error, "Sum");
  assert_cancelled(tr_reduce(TR_OP_MAX, m, (const int64_t[]){0}, 1, false, &error), error, "Max");
  cancel = 0;
  g_autoptr(TrTensor) total = tr_reduce(TR_OP_SUM, a, NULL, -1, false, &error);
  g_assert_no_error(error);
  g_assert_cmpfloat(*(float *)tr_tensor_data(total), ==, (float)(16 << 20));
}

static void
test_large_conv_stops(void)
{
  /* 3x3 at stride 1 (shifted GEMMs), at stride 2 (im2col) and 1x1 (one large GEMM). */
  g_autoptr(TrTensor) x = filled(DIMS(4, 128, 128, 64), 1.0f);
  g_autoptr(TrTensor) f3 = filled(DIMS(3, 3, 64, 64), 1.0f);
  g_autoptr(TrTensor) big = filled(DIMS(5, 128, 128, 256), 1.0f); /* 5.4 G multiply-adds */
  g_autoptr(TrTensor) f1 = filled(DIMS(1, 1, 256, 256), 1.0f);
  cancel = 1;
  GError *error = NULL;
  assert_cancelled(tr_conv2d(x, f3, (const int64_t[]){1, 1}, TR_PADDING_SAME, &error), error,
                   "Conv2D");
  assert_cancelled(tr_conv2d(x, f3, (const int64_t[]){2, 2}, TR_PADDING_SAME, &error), error,
                   "Conv2D");
  assert_cancelled(tr_conv2d(big, f1, (const int64_t[]){1, 1}, TR_PADDING_VALID, &error), error,
                   "Conv2D");
  cancel = 0;
}

static gpointer
cancel_later(gpointer unused)
{
  (void)unused;
  g_usleep(20000);
  cancel = 1;
  return NULL;
}

static void
test_running_gemm_stops_soon(void)
{
  /* A GEMM of ~70 G multiply-adds stopped 20 ms in ends long before it would have finished. */
  g_autoptr(TrTensor) a = filled(DIMS(4096, 4096), 1.0f);
  GError *error = NULL;
  gint64 t0 = g_get_monotonic_time();
  g_autoptr(TrTensor) whole = tr_matmul(a, a, false, false, &error);
  gint64 full = g_get_monotonic_time() - t0;
  g_assert_no_error(error);

  GThread *setter = g_thread_new("cancel", cancel_later, NULL);
  t0 = g_get_monotonic_time();
  TrTensor *stopped = tr_matmul(a, a, false, false, &error);
  gint64 took = g_get_monotonic_time() - t0;
  g_thread_join(setter);
  cancel = 0;
  assert_cancelled(stopped, error, "MatMul");
  g_test_message("whole GEMM %.3f s, stopped after %.3f s", full / 1e6, took / 1e6);
  g_assert_cmpint(took, <, full / 2);
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  tr_set_cancel_flag(&cancel);
  g_test_add_func("/tensor/cancel/large-gemm-stops", test_large_gemm_stops);
  g_test_add_func("/tensor/cancel/tiled-gemm-matches-untiled", test_tiled_gemm_matches_untiled);
  g_test_add_func("/tensor/cancel/small-kernels-ignore-the-flag",
                  test_small_kernels_ignore_the_flag);
  g_test_add_func("/tensor/cancel/large-elementwise-stops", test_large_elementwise_stops);
  g_test_add_func("/tensor/cancel/large-reduction-stops", test_large_reduction_stops);
  g_test_add_func("/tensor/cancel/large-conv-stops", test_large_conv_stops);
  g_test_add_func("/tensor/cancel/running-gemm-stops-soon", test_running_gemm_stops_soon);
  return g_test_run();
}
