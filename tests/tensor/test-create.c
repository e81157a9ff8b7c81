/* test-create.c — Range, Fill, Eye, LinSpace, ZerosLike, OnesLike, RandomUniform and
 * RandomStandardNormal: values, dtypes, partial-shape inference, TensorFlow's error texts, and
 * the random ops' determinism and statistics. */
#include "test-util.h"

#include <math.h>

/* ---- helpers ---------------------------------------------------------------------------- */

static TrShape
shape_of(int rank, const int64_t *dims)
{
  return tr_shape_make(rank, dims);
}

/* tr_range on scalars of `dtype`. Transfer full, or NULL with `error` set. */
static TrTensor *
range(TrDType dtype, double start, double limit, double delta, GError **error)
{
  g_autoptr(TrTensor) s = TT_SCALAR(dtype, start);
  g_autoptr(TrTensor) l = TT_SCALAR(dtype, limit);
  g_autoptr(TrTensor) d = TT_SCALAR(dtype, delta);
  return tr_range(s, l, d, error);
}

/* tr_linspace on scalars: start and stop of `dtype`, num of `num_dtype`. Transfer full, or NULL
 * with `error` set. */
static TrTensor *
linspace(TrDType dtype, double start, double stop, TrDType num_dtype, double num, GError **error)
{
  g_autoptr(TrTensor) a = TT_SCALAR(dtype, start);
  g_autoptr(TrTensor) b = TT_SCALAR(dtype, stop);
  g_autoptr(TrTensor) n = TT_SCALAR(num_dtype, num);
  return tr_linspace(a, b, n, error);
}

static TrTensor *
uniform(TrDType dtype, int64_t n, double lo, double hi, uint64_t seed, uint64_t seed2,
        uint64_t counter)
{
  TrShape s = shape_of(DIMS(n));
  g_autoptr(GError) error = NULL;
  TrTensor *t = tr_random_uniform(&s, dtype, lo, hi, seed, seed2, counter, &error);
  g_assert_no_error(error);
  return t;
}

static TrTensor *
normal(TrDType dtype, int64_t n, double mean, double stddev, uint64_t seed, uint64_t counter)
{
  TrShape s = shape_of(DIMS(n));
  g_autoptr(GError) error = NULL;
  TrTensor *t = tr_random_normal(&s, dtype, mean, stddev, seed, 0, counter, &error);
  g_assert_no_error(error);
  return t;
}

typedef struct {
  double mean, stddev, min, max;
} Stats;

static Stats
stats_of(const TrTensor *t)
{
  int64_t n = tr_tensor_num_elements(t);
  Stats s = {.min = INFINITY, .max = -INFINITY};
  double sum = 0, sum2 = 0;
  for (int64_t i = 0; i < n; i++) {
    double v = tr_tensor_get_f64(t, i);
    sum += v;
    sum2 += v * v;
    s.min = fmin(s.min, v);
    s.max = fmax(s.max, v);
  }
  s.mean = sum / (double)n;
  s.stddev = sqrt(sum2 / (double)n - s.mean * s.mean);
  return s;
}

/* ---- op table --------------------------------------------------------------------------- */

static void
test_defs_names_and_flags(void)
{
  static const struct {
    TrOpId op;
    const char *name;
    int n_inputs;
    bool stateful;
  } rows[] = {
      {TR_OP_RANGE, "range", 3, false},
      {TR_OP_FILL, "Fill", 2, false},
      {TR_OP_EYE, "eye", 0, false},
      {TR_OP_LINSPACE, "LinSpace", 3, false},
      {TR_OP_ZEROS_LIKE, "zeros_like", 1, false},
      {TR_OP_ONES_LIKE, "ones_like", 1, false},
      {TR_OP_RANDOM_UNIFORM, "random_uniform", 1, true},
      {TR_OP_RANDOM_NORMAL, "random_normal", 1, true},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(rows); i++) {
    const TrOpDef *def = tt_assert_op_def(rows[i].op, rows[i].name, rows[i].n_inputs);
    g_assert_true(((def->flags & TR_OP_FLAG_STATEFUL) != 0) == rows[i].stateful);
  }
}

/* ---- Range ------------------------------------------------------------------------------ */

static void
test_range_int(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) a = range(TR_INT32, 0, 5, 1, &error);
  g_assert_no_error(error);
  tt_assert_tensor(a, TR_INT32, DIMS(5), VALS(0, 1, 2, 3, 4), 0);
  g_autoptr(TrTensor) b = range(TR_INT32, 0, 5, 3, &error);
  tt_assert_tensor(b, TR_INT32, DIMS(2), VALS(0, 3), 0);
  g_autoptr(TrTensor) c = range(TR_INT32, 5, 5, 1, &error);
  tt_assert_tensor(c, TR_INT32, DIMS(0), VALS(0), 0);
  g_autoptr(TrTensor) d = range(TR_INT64, -3, 4, 2, &error);
  tt_assert_tensor(d, TR_INT64, DIMS(4), VALS(-3, -1, 1, 3), 0);
}

static void
test_range_negative_delta(void)
{
  g_autoptr(TrTensor) a = range(TR_INT32, 5, 1, -1, NULL);
  tt_assert_tensor(a, TR_INT32, DIMS(4), VALS(5, 4, 3, 2), 0);
  g_autoptr(TrTensor) b = range(TR_FLOAT32, 1, -1, -0.5, NULL);
  tt_assert_tensor(b, TR_FLOAT32, DIMS(4), VALS(1, 0.5, 0, -0.5), 0);
}

static void
test_range_float(void)
{
  g_autoptr(TrTensor) a = range(TR_FLOAT64, 0, 1, 0.25, NULL);
  tt_assert_tensor(a, TR_FLOAT64, DIMS(4), VALS(0, 0.25, 0.5, 0.75), 0);
  /* size = ceil((limit - start) / delta) in float32: 1 / 0.1f rounds to 10 */
  g_autoptr(TrTensor) b = range(TR_FLOAT32, 0, 1, 0.1, NULL);
  g_assert_cmpint(b->shape.dims[0], ==, 10);
  /* each value is the previous one plus delta, in float32 (TF's kernel) */
  float acc = 0;
  for (int i = 0; i < 10; i++, acc += 0.1f)
    g_assert_cmpfloat(tr_tensor_get_f64(b, i), ==, acc);
}

static void
test_range_errors(void)
{
  g_autoptr(GError) error = NULL;
  g_assert_null(range(TR_INT32, 5, 1, 1, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Requires start <= limit when delta > 0: 5/1 [Op:Range]");
  g_assert_null(range(TR_INT32, 1, 5, -1, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Requires start >= limit when delta < 0: 1/5 [Op:Range]");
  g_assert_null(range(TR_INT32, 1, 5, 0, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT, "Requires delta != 0: 0 [Op:Range]");
  g_assert_null(range(TR_FLOAT32, 5.5, 0.1, 1, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Requires start <= limit when delta > 0: 5.5/0.1 [Op:Range]");
  g_autoptr(TrTensor) one = TT_SCALAR(TR_INT32, 1);
  g_autoptr(TrTensor) zero = TT_SCALAR(TR_INT32, 0);
  g_autoptr(TrTensor) f1 = TT_SCALAR(TR_FLOAT32, 1);
  g_assert_null(tr_range(one, f1, one, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "cannot compute Range as input #1(zero-based) was expected to be a int32 tensor "
                  "but is a float tensor [Op:Range]");
  g_autoptr(TrTensor) vec = TT(TR_INT32, DIMS(2), VALS(1, 2));
  g_assert_null(tr_range(zero, vec, one, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "limit must be a scalar, not shape [2] [Op:Range]");
  g_assert_null(range(TR_BOOL, 1, 1, 1, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Value for attr 'Tidx' of bool is not in the list of allowed values: "
                  "bfloat16, half, float, double, int8, int16, int32, int64, uint16, uint32 "
                  "[Op:Range]");
}

static void
test_range_infer_partial(void)
{
  g_autoptr(TrTensor) zero = TT_SCALAR(TR_INT64, 0);
  g_autoptr(TrTensor) ten = TT_SCALAR(TR_INT64, 10);
  g_autoptr(TrTensor) three = TT_SCALAR(TR_INT64, 3);
  TrTensorInfo in[3] = {tt_constant(zero), tt_constant(ten), tt_constant(three)};
  tt_assert_infers(TR_OP_RANGE, in, 3, NULL, TR_INT64, "(4,)");
  in[1] = tt_symbolic(TR_INT64, NODIMS);
  tt_assert_infers(TR_OP_RANGE, in, 3, NULL, TR_INT64, "(None,)");
}

/* ---- Fill ------------------------------------------------------------------------------- */

static void
test_fill_values(void)
{
  g_autoptr(GError) error = NULL;
  TrShape s = shape_of(DIMS(2, 3));
  g_autoptr(TrTensor) seven = TT_SCALAR(TR_INT32, 7);
  g_autoptr(TrTensor) a = tr_fill(&s, seven, &error);
  g_assert_no_error(error);
  tt_assert_tensor(a, TR_INT32, DIMS(2, 3), VALS(7, 7, 7, 7, 7, 7), 0);
  g_autoptr(TrTensor) half = TT_SCALAR(TR_FLOAT64, 0.5);
  TrShape big = shape_of(DIMS(1000));
  g_autoptr(TrTensor) b = tr_fill(&big, half, &error);
  for (int64_t i = 0; i < 1000; i += 111)
    g_assert_cmpfloat(tr_tensor_get_f64(b, i), ==, 0.5);
  g_assert_cmpfloat(tr_tensor_get_f64(b, 999), ==, 0.5);
  TrShape scalar = tr_shape_scalar();
  g_autoptr(TrTensor) t = TT_SCALAR(TR_BOOL, 1);
  g_autoptr(TrTensor) c = tr_fill(&scalar, t, &error);
  tt_assert_tensor(c, TR_BOOL, NODIMS, VALS(1), 0);
  TrShape empty = shape_of(DIMS(0, 4));
  g_autoptr(TrTensor) d = tr_fill(&empty, t, &error);
  tt_assert_tensor(d, TR_BOOL, DIMS(0, 4), VALS(0), 0);
}

static void
test_fill_strings(void)
{
  TrShape s = shape_of(DIMS(3));
  g_autoptr(TrTensor) v = tr_tensor_new_string("ab", 2);
  g_autoptr(TrTensor) a = tr_fill(&s, v, NULL);
  tt_assert_strings(a, DIMS(3), STRS("ab", "ab", "ab"));
  /* every element owns its bytes */
  g_assert_true(tr_tensor_get_string(a, 0)->data != tr_tensor_get_string(a, 1)->data);
}

static void
test_fill_errors(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) one = TT_SCALAR(TR_FLOAT32, 1);
  TrShape neg = shape_of(DIMS(2, -1));
  g_assert_null(tr_fill(&neg, one, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT, "Dimension -1 must be >= 0 [Op:Fill]");
  g_autoptr(TrTensor) dims = TT(TR_INT32, DIMS(2), VALS(2, 2));
  g_autoptr(TrTensor) vec = TT(TR_FLOAT32, DIMS(2), VALS(1, 2));
  TrTensor *bad_value[2] = {dims, vec};
  g_assert_null(tr_op_run(TR_OP_FILL, bad_value, 2, NULL, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "value must be a scalar, got shape [2] [Op:Fill]");
  g_autoptr(TrTensor) dims2d = TT(TR_INT64, DIMS(2, 2), VALS(1, 1, 1, 1));
  TrTensor *bad_dims[2] = {dims2d, one};
  g_assert_null(tr_op_run(TR_OP_FILL, bad_dims, 2, NULL, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "dims must be a vector, got shape [2,2] [Op:Fill]");
  g_autoptr(TrTensor) fdims = TT(TR_FLOAT32, DIMS(1), VALS(2));
  TrTensor *float_dims[2] = {fdims, one};
  g_assert_null(tr_op_run(TR_OP_FILL, float_dims, 2, NULL, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Value for attr 'index_type' of float is not in the list of allowed values: "
                  "int32, int64 [Op:Fill]");
  TrShape huge = shape_of(DIMS(G_MAXINT64 / 2, 4));
  g_assert_null(tr_fill(&huge, one, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Shape [4611686018427387903,4] would have more than 2**63 - 1 elements "
                  "[Op:Fill]");
}

static void
test_fill_infer_partial(void)
{
  g_autoptr(TrTensor) dims = TT(TR_INT32, DIMS(2), VALS(4, 5));
  TrTensorInfo in[2] = {tt_constant(dims), tt_symbolic(TR_STRING, NODIMS)};
  tt_assert_infers(TR_OP_FILL, in, 2, NULL, TR_STRING, "(4, 5)");
  in[0] = tt_symbolic(TR_INT32, DIMS(3));
  tt_assert_infers(TR_OP_FILL, in, 2, NULL, TR_STRING, "(None, None, None)");
  in[0] = tt_symbolic(TR_INT32, DIMS(TR_UNKNOWN));
  tt_assert_infers(TR_OP_FILL, in, 2, NULL, TR_STRING, "<unknown>");
}

/* ---- Eye -------------------------------------------------------------------------------- */

static void
test_eye_square_and_rectangular(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) a = tr_eye(3, -1, TR_DTYPE_INVALID, &error);
  g_assert_no_error(error);
  tt_assert_tensor(a, TR_FLOAT32, DIMS(3, 3), VALS(1, 0, 0, 0, 1, 0, 0, 0, 1), 0);
  g_autoptr(TrTensor) b = tr_eye(2, 3, TR_INT32, &error);
  tt_assert_tensor(b, TR_INT32, DIMS(2, 3), VALS(1, 0, 0, 0, 1, 0), 0);
  g_autoptr(TrTensor) c = tr_eye(3, 2, TR_BOOL, &error);
  tt_assert_tensor(c, TR_BOOL, DIMS(3, 2), VALS(1, 0, 0, 1, 0, 0), 0);
  g_autoptr(TrTensor) d = tr_eye(0, -1, TR_FLOAT64, &error);
  tt_assert_tensor(d, TR_FLOAT64, DIMS(0, 0), VALS(0), 0);
}

static void
test_eye_errors(void)
{
  g_autoptr(GError) error = NULL;
  g_assert_null(tr_eye(-2, -1, TR_FLOAT32, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT, "Dimension -2 must be >= 0 [Op:Eye]");
  g_assert_null(tr_eye(2, 2, TR_STRING, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Value for attr 'dtype' of string is not in the list of allowed values: float, "
                  "double, int32, int64, bool [Op:Eye]");
}

/* ---- LinSpace --------------------------------------------------------------------------- */

static void
test_linspace_values(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) a = linspace(TR_FLOAT32, 0, 1, TR_INT32, 5, &error);
  g_assert_no_error(error);
  tt_assert_tensor(a, TR_FLOAT32, DIMS(5), VALS(0, 0.25, 0.5, 0.75, 1), 0);
  /* start + step * i in float32, and the last value is exactly stop */
  g_autoptr(TrTensor) b = linspace(TR_FLOAT32, 0, 1, TR_INT64, 7, &error);
  float step = 1.0f / 6.0f;
  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat(tr_tensor_get_f64(b, i), ==, 0.0f + step * (float)i);
  g_assert_cmpfloat(tr_tensor_get_f64(b, 6), ==, 1.0);
  g_autoptr(TrTensor) c = linspace(TR_FLOAT64, -1, 1, TR_INT32, 3, &error);
  tt_assert_tensor(c, TR_FLOAT64, DIMS(3), VALS(-1, 0, 1), 0);
}

static void
test_linspace_num_one_gives_start(void)
{
  g_autoptr(TrTensor) a = linspace(TR_FLOAT32, 3, 9, TR_INT32, 1, NULL);
  tt_assert_tensor(a, TR_FLOAT32, DIMS(1), VALS(3), 0);
}

static void
test_linspace_errors(void)
{
  g_autoptr(GError) error = NULL;
  g_assert_null(linspace(TR_FLOAT32, 0, 1, TR_INT32, 0, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT, "Requires num > 0: 0 [Op:LinSpace]");
  g_assert_null(linspace(TR_INT32, 0, 0, TR_INT32, 0, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Value for attr 'T' of int32 is not in the list of allowed values: float, "
                  "double [Op:LinSpace]");
  g_autoptr(TrTensor) start = TT_SCALAR(TR_FLOAT32, 0);
  g_autoptr(TrTensor) stop = TT_SCALAR(TR_FLOAT32, 1);
  g_autoptr(TrTensor) dstop = TT_SCALAR(TR_FLOAT64, 1);
  g_autoptr(TrTensor) zero = TT_SCALAR(TR_INT32, 0);
  g_assert_null(tr_linspace(start, dstop, zero, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "cannot compute LinSpace as input #1(zero-based) was expected to be a float "
                  "tensor but is a double tensor [Op:LinSpace]");
  g_autoptr(TrTensor) vec = TT(TR_FLOAT32, DIMS(2), VALS(0, 1));
  g_autoptr(TrTensor) three = TT_SCALAR(TR_INT32, 3);
  g_assert_null(tr_linspace(vec, stop, three, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "start must be a scalar, not shape [2] [Op:LinSpace]");
}

static void
test_linspace_infer_partial(void)
{
  TrTensorInfo in[3] = {tt_symbolic(TR_FLOAT64, NODIMS), tt_symbolic(TR_FLOAT64, NODIMS),
                        tt_symbolic(TR_INT32, NODIMS)};
  tt_assert_infers(TR_OP_LINSPACE, in, 3, NULL, TR_FLOAT64, "(None,)");
  g_autoptr(TrTensor) num = TT_SCALAR(TR_INT32, 9);
  in[2] = tt_constant(num);
  tt_assert_infers(TR_OP_LINSPACE, in, 3, NULL, TR_FLOAT64, "(9,)");
}

/* ---- ZerosLike, OnesLike ---------------------------------------------------------------- */

static void
test_zeros_like_dtypes(void)
{
  g_autoptr(TrTensor) f = TT(TR_FLOAT32, DIMS(2, 2), VALS(1, 2, 3, 4));
  g_autoptr(TrTensor) a = tr_unary(TR_OP_ZEROS_LIKE, f, NULL);
  tt_assert_tensor(a, TR_FLOAT32, DIMS(2, 2), VALS(0, 0, 0, 0), 0);
  g_autoptr(TrTensor) b = TT(TR_BOOL, DIMS(3), VALS(1, 1, 0));
  g_autoptr(TrTensor) c = tr_unary(TR_OP_ZEROS_LIKE, b, NULL);
  tt_assert_tensor(c, TR_BOOL, DIMS(3), VALS(0, 0, 0), 0);
  g_autoptr(TrTensor) s = tt_strings(DIMS(2), STRS("x", "yy"));
  g_autoptr(TrTensor) e = tr_unary(TR_OP_ZEROS_LIKE, s, NULL);
  tt_assert_strings(e, DIMS(2), STRS("", ""));
}

static void
test_ones_like_dtypes(void)
{
  g_autoptr(TrTensor) i = TT(TR_INT64, DIMS(3), VALS(4, 5, 6));
  g_autoptr(TrTensor) a = tr_unary(TR_OP_ONES_LIKE, i, NULL);
  tt_assert_tensor(a, TR_INT64, DIMS(3), VALS(1, 1, 1), 0);
  g_autoptr(TrTensor) d = TT(TR_FLOAT64, DIMS(2, 3), VALS(0, 0, 0, 0, 0, 0));
  g_autoptr(TrTensor) t = tr_transpose(d, NULL, -1, NULL);
  g_autoptr(TrTensor) b = tr_unary(TR_OP_ONES_LIKE, t, NULL);
  tt_assert_tensor(b, TR_FLOAT64, DIMS(3, 2), VALS(1, 1, 1, 1, 1, 1), 0);
  g_assert_true(b->contiguous);
  g_autoptr(TrTensor) bo = TT_SCALAR(TR_BOOL, 0);
  g_autoptr(TrTensor) c = tr_unary(TR_OP_ONES_LIKE, bo, NULL);
  tt_assert_tensor(c, TR_BOOL, NODIMS, VALS(1), 0);
}

static void
test_ones_like_strings_fail(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) s = tt_strings(DIMS(1), STRS("x"));
  g_assert_null(tr_unary(TR_OP_ONES_LIKE, s, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Value for attr 'T' of string is not in the list of allowed values: float, "
                  "double, int32, int64, bool [Op:OnesLike]");
}

static void
test_like_infer_partial(void)
{
  TrTensorInfo x = tt_symbolic(TR_INT32, DIMS(TR_UNKNOWN, 2));
  tt_assert_infers(TR_OP_ZEROS_LIKE, &x, 1, NULL, TR_INT32, "(None, 2)");
  tt_assert_infers(TR_OP_ONES_LIKE, &x, 1, NULL, TR_INT32, "(None, 2)");
}

/* ---- RandomUniform ---------------------------------------------------------------------- */

static void
test_random_uniform_is_philox(void)
{
  /* Philox-4x32-10's published answer for key 0, counter 0 is 6627e8d5 e169c58d bc57ac4c
   * 9b00dbd8; float32 uniforms are their top 24 bits over 2^24. */
  g_autoptr(TrTensor) a = uniform(TR_FLOAT32, 4, 0, 1, 0, 0, 0);
  tt_assert_tensor(a, TR_FLOAT32, DIMS(4),
                   VALS(0x6627e8 / 16777216.0, 0xe169c5 / 16777216.0, 0xbc57ac / 16777216.0,
                        0x9b00db / 16777216.0),
                   0);
}

static void
test_random_uniform_is_deterministic(void)
{
  g_autoptr(TrTensor) a = uniform(TR_FLOAT32, 1000, 0, 1, 42, 7, 3);
  g_autoptr(TrTensor) b = uniform(TR_FLOAT32, 1000, 0, 1, 42, 7, 3);
  g_assert_true(tr_tensor_equal(a, b));
  g_autoptr(TrTensor) other_counter = uniform(TR_FLOAT32, 1000, 0, 1, 42, 7, 4);
  g_autoptr(TrTensor) other_seed = uniform(TR_FLOAT32, 1000, 0, 1, 43, 7, 3);
  g_autoptr(TrTensor) other_seed2 = uniform(TR_FLOAT32, 1000, 0, 1, 42, 8, 3);
  g_assert_false(tr_tensor_equal(a, other_counter));
  g_assert_false(tr_tensor_equal(a, other_seed));
  g_assert_false(tr_tensor_equal(a, other_seed2));
  /* element i does not depend on the output's size or shape */
  TrShape s = shape_of(DIMS(10, 100));
  g_autoptr(TrTensor) c = tr_random_uniform(&s, TR_FLOAT32, 0, 1, 42, 7, 3, NULL);
  for (int64_t i = 0; i < 1000; i += 37)
    g_assert_cmpfloat(tr_tensor_get_f64(a, i), ==, tr_tensor_get_f64(c, i));
}

static void
test_random_uniform_float_statistics(void)
{
  g_autoptr(TrTensor) a = uniform(TR_FLOAT32, 100000, 2, 5, 1, 2, 0);
  Stats s = stats_of(a);
  g_assert_cmpfloat(s.min, >=, 2);
  g_assert_cmpfloat(s.max, <, 5);
  g_assert_cmpfloat(fabs(s.mean - 3.5), <, 0.02);
  g_assert_cmpfloat(fabs(s.stddev - 3 / sqrt(12)), <, 0.02);
  g_autoptr(TrTensor) d = uniform(TR_FLOAT64, 100000, -1, 1, 9, 0, 5);
  Stats t = stats_of(d);
  g_assert_cmpfloat(t.min, >=, -1);
  g_assert_cmpfloat(t.max, <, 1);
  g_assert_cmpfloat(fabs(t.mean), <, 0.02);
  g_assert_cmpfloat(fabs(t.stddev - 2 / sqrt(12)), <, 0.02);
}

static void
test_random_uniform_stays_below_maxval(void)
{
  /* maxval is the float after minval: every value must round down to minval */
  double hi = nextafterf(1.0f, 2.0f);
  g_autoptr(TrTensor) a = uniform(TR_FLOAT32, 10000, 1, hi, 5, 5, 5);
  Stats s = stats_of(a);
  g_assert_cmpfloat(s.min, ==, 1);
  g_assert_cmpfloat(s.max, ==, 1);
}

static void
test_random_uniform_int(void)
{
  g_autoptr(TrTensor) a = uniform(TR_INT32, 70000, -3, 4, 11, 0, 0);
  int64_t counts[7] = {0};
  for (int64_t i = 0; i < 70000; i++) {
    int64_t v = tr_tensor_get_i64(a, i);
    g_assert_cmpint(v, >=, -3);
    g_assert_cmpint(v, <, 4);
    counts[v + 3]++;
  }
  for (int k = 0; k < 7; k++)
    g_assert_cmpint(labs(counts[k] - 10000), <, 500);
  double big = 4611686018427387904.0; /* 2^62 */
  g_autoptr(TrTensor) b = uniform(TR_INT64, 10000, -big, big, 12, 0, 0);
  Stats s = stats_of(b);
  g_assert_cmpfloat(s.min, >=, -big);
  g_assert_cmpfloat(s.max, <, big);
  g_assert_cmpfloat(fabs(s.mean) / big, <, 0.05);
}

static void
test_random_uniform_errors(void)
{
  g_autoptr(GError) error = NULL;
  TrShape s = shape_of(DIMS(3));
  g_assert_null(tr_random_uniform(&s, TR_INT32, 0, 0, 0, 0, 0, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Need minval < maxval: 0 >= 0 [Op:RandomUniform]");
  g_assert_null(tr_random_uniform(&s, TR_INT64, 5, 2, 0, 0, 0, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Need minval < maxval: 5 >= 2 [Op:RandomUniform]");
  g_assert_null(tr_random_uniform(&s, TR_BOOL, 0, 1, 0, 0, 0, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Value for attr 'dtype' of bool is not in the list of allowed values: float, "
                  "double, int32, int64 [Op:RandomUniform]");
  TrShape neg = shape_of(DIMS(3, -1));
  g_assert_null(tr_random_uniform(&neg, TR_FLOAT32, 0, 1, 0, 0, 0, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Dimension -1 must be >= 0 [Op:RandomUniform]");
  g_autoptr(TrTensor) shape2d = TT(TR_INT32, DIMS(1, 2), VALS(2, 2));
  g_assert_null(tr_op_run(TR_OP_RANDOM_UNIFORM, &shape2d, 1, NULL, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "shape must be a vector of {int32,int64}, got shape [1,2] [Op:RandomUniform]");
  g_autoptr(TrTensor) fshape = TT(TR_FLOAT32, DIMS(1), VALS(2));
  g_assert_null(tr_op_run(TR_OP_RANDOM_UNIFORM, &fshape, 1, NULL, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Value for attr 'T' of float is not in the list of allowed values: int32, "
                  "int64 [Op:RandomUniform]");
}

static void
test_random_infer_partial(void)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  TrTensorInfo shape = tt_symbolic(TR_INT32, DIMS(2));
  tt_assert_infers(TR_OP_RANDOM_UNIFORM, &shape, 1, &attrs, TR_FLOAT32, "(None, None)");
  attrs.dtype = TR_FLOAT64;
  tt_assert_infers(TR_OP_RANDOM_NORMAL, &shape, 1, &attrs, TR_FLOAT64, "(None, None)");
  TrTensorInfo unknown = tt_symbolic(TR_INT64, UNKNOWN_RANK);
  tt_assert_infers(TR_OP_RANDOM_NORMAL, &unknown, 1, &attrs, TR_FLOAT64, "<unknown>");
  g_autoptr(TrTensor) dims = TT(TR_INT64, DIMS(3), VALS(1, 2, 3));
  TrTensorInfo known = tt_constant(dims);
  tt_assert_infers(TR_OP_RANDOM_UNIFORM, &known, 1, &attrs, TR_FLOAT64, "(1, 2, 3)");
}

/* ---- RandomStandardNormal --------------------------------------------------------------- */

static void
test_random_normal_statistics(void)
{
  g_autoptr(TrTensor) a = normal(TR_FLOAT32, 100000, 0, 1, 3, 0);
  Stats s = stats_of(a);
  g_assert_cmpfloat(fabs(s.mean), <, 0.02);
  g_assert_cmpfloat(fabs(s.stddev - 1), <, 0.02);
  g_assert_true(isfinite(s.min) && isfinite(s.max));
  g_autoptr(TrTensor) b = normal(TR_FLOAT64, 100000, 1.5, 2, 4, 1);
  Stats t = stats_of(b);
  g_assert_cmpfloat(fabs(t.mean - 1.5), <, 0.04);
  g_assert_cmpfloat(fabs(t.stddev - 2), <, 0.04);
  g_assert_true(isfinite(t.min) && isfinite(t.max));
  /* about 68.3% of a normal lies within one stddev */
  int64_t inside = 0;
  for (int64_t i = 0; i < 100000; i++)
    inside += fabs(tr_tensor_get_f64(a, i)) < 1;
  g_assert_cmpfloat(fabs((double)inside / 100000 - 0.6827), <, 0.01);
}

static void
test_random_normal_is_deterministic(void)
{
  g_autoptr(TrTensor) a = normal(TR_FLOAT64, 257, 0, 1, 77, 0);
  g_autoptr(TrTensor) b = normal(TR_FLOAT64, 257, 0, 1, 77, 0);
  g_autoptr(TrTensor) c = normal(TR_FLOAT64, 257, 0, 1, 77, 1);
  g_assert_true(tr_tensor_equal(a, b));
  g_assert_false(tr_tensor_equal(a, c));
}

static void
test_random_normal_errors(void)
{
  g_autoptr(GError) error = NULL;
  TrShape s = shape_of(DIMS(3));
  g_assert_null(tr_random_normal(&s, TR_INT32, 0, 1, 0, 0, 0, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Value for attr 'dtype' of int32 is not in the list of allowed values: float, "
                  "double [Op:RandomStandardNormal]");
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/tensor/create/defs/names-and-flags", test_defs_names_and_flags);

  g_test_add_func("/tensor/create/range/int", test_range_int);
  g_test_add_func("/tensor/create/range/negative-delta", test_range_negative_delta);
  g_test_add_func("/tensor/create/range/float", test_range_float);
  g_test_add_func("/tensor/create/range/errors", test_range_errors);
  g_test_add_func("/tensor/create/range/infer-partial", test_range_infer_partial);

  g_test_add_func("/tensor/create/fill/values", test_fill_values);
  g_test_add_func("/tensor/create/fill/strings", test_fill_strings);
  g_test_add_func("/tensor/create/fill/errors", test_fill_errors);
  g_test_add_func("/tensor/create/fill/infer-partial", test_fill_infer_partial);

  g_test_add_func("/tensor/create/eye/square-and-rectangular", test_eye_square_and_rectangular);
  g_test_add_func("/tensor/create/eye/errors", test_eye_errors);

  g_test_add_func("/tensor/create/linspace/values", test_linspace_values);
  g_test_add_func("/tensor/create/linspace/num-one-gives-start", test_linspace_num_one_gives_start);
  g_test_add_func("/tensor/create/linspace/errors", test_linspace_errors);
  g_test_add_func("/tensor/create/linspace/infer-partial", test_linspace_infer_partial);

  g_test_add_func("/tensor/create/zeros-like/dtypes", test_zeros_like_dtypes);
  g_test_add_func("/tensor/create/ones-like/dtypes", test_ones_like_dtypes);
  g_test_add_func("/tensor/create/ones-like/strings-fail", test_ones_like_strings_fail);
  g_test_add_func("/tensor/create/like/infer-partial", test_like_infer_partial);

  g_test_add_func("/tensor/create/random-uniform/is-philox", test_random_uniform_is_philox);
  g_test_add_func("/tensor/create/random-uniform/is-deterministic",
                  test_random_uniform_is_deterministic);
  g_test_add_func("/tensor/create/random-uniform/float-statistics",
                  test_random_uniform_float_statistics);
  g_test_add_func("/tensor/create/random-uniform/stays-below-maxval",
                  test_random_uniform_stays_below_maxval);
  g_test_add_func("/tensor/create/random-uniform/int", test_random_uniform_int);
  g_test_add_func("/tensor/create/random-uniform/errors", test_random_uniform_errors);
  g_test_add_func("/tensor/create/random/infer-partial", test_random_infer_partial);

  g_test_add_func("/tensor/create/random-normal/statistics", test_random_normal_statistics);
  g_test_add_func("/tensor/create/random-normal/is-deterministic",
                  test_random_normal_is_deterministic);
  g_test_add_func("/tensor/create/random-normal/errors", test_random_normal_errors);
  return g_test_run();
}
