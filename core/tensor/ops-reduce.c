/* ops-reduce.c — reductions (Sum, Mean, Max, Min, Prod, All, Any), ArgMax/ArgMin and Softmax.
 *
 * A reduction fills an accumulator shaped like its output with the reducer's identity, then
 * walks the input once: the input's geometry is folded into runs of reduced and kept
 * dimensions, and the innermost run is handled by one of two tight loops — `fold` (the run is
 * reduced: combine a whole row into one accumulator) or `accum` (the run is kept: combine a row
 * into a row of accumulators). A contiguous input reduced over its last axes is therefore one
 * vectorised `fold` per output element, and over its first axes one `accum` per input row.
 * Mean finishes by dividing, from a wider accumulator for int32 as TensorFlow does.
 *
 * Semantics are TensorFlow's: strict dtypes, duplicate axes allowed, empty reductions give the
 * identity (0, 1, -inf, +inf, true, false), Max/Min propagate NaN, Mean of integers truncates,
 * ArgMax/ArgMin return the first index of ties.
 */
#include "tr-tensor-private.h"

#include <complex.h>
#include <math.h>
#include <string.h>

/* Loops over fixed blocks of this many elements vectorise at -O2; reductions keep this many
 * partial results. */
#define LANES 16
#if defined(__GNUC__) && !defined(__clang__)
#define IVDEP _Pragma("GCC ivdep")
#else
#define IVDEP
#endif

/* Elements between two polls of the cancel flag: a few milliseconds of work. A reduced run
 * longer than this is folded in pieces of this length (a multiple of LANES). */
#define CANCEL_CHUNK ((int64_t)1 << 22)

/* ---- reducers ----------------------------------------------------------------------------- */

/* acc[i] = identity for i < n */
typedef void (*FillFunc)(void *acc, int64_t n);
/* *acc = combine(*acc, x[0], x[s], ... x[(n - 1) * s]) */
typedef void (*FoldFunc)(void *acc, const void *x, int64_t s, int64_t n);
/* acc[i] = combine(acc[i], x[i * s]) for i < n */
typedef void (*AccumFunc)(void *acc, const void *x, int64_t s, int64_t n);
/* out[i] = finish(acc[i]) given how many elements each accumulator combined */
typedef void (*FinishFunc)(void *out, const void *acc, int64_t n, int64_t count);

typedef struct {
  TrDType acc_dtype; /* accumulator type; the output's unless a finish converts */
  FillFunc fill;     /* start */
  FoldFunc fold;     /* reduce a row into one accumulator */
  AccumFunc accum;   /* reduce a row into a row of accumulators */
  FinishFunc finish; /* NULL: the accumulators are the output */
} Reducer;

/* Combines; integer sums and products wrap, as TensorFlow's do. */
#define ADD(a, b)         ((a) + (b))
#define MUL(a, b)         ((a) * (b))
#define ADD_WRAP(U, a, b) ((U)(a) + (U)(b))
#define MUL_WRAP(U, a, b) ((U)(a) * (U)(b))
#define ADD_U32(a, b)     ((int32_t)ADD_WRAP(uint32_t, a, b))
#define ADD_U64(a, b)     ((int64_t)ADD_WRAP(uint64_t, a, b))
#define MUL_U32(a, b)     ((int32_t)MUL_WRAP(uint32_t, a, b))
#define MUL_U64(a, b)     ((int64_t)MUL_WRAP(uint64_t, a, b))
#define MAX_NAN(a, b)     (((b) > (a) || (b) != (b)) ? (b) : (a))
#define MIN_NAN(a, b)     (((b) < (a) || (b) != (b)) ? (b) : (a))
#define MAX_INT(a, b)     ((b) > (a) ? (b) : (a))
#define MIN_INT(a, b)     ((b) < (a) ? (b) : (a))
#define AND(a, b)         ((a) & (b))
#define OR(a, b)          ((a) | (b))

/* An input element as an accumulator: C's conversion, or the widening of a half type. */
#define LOAD_CAST(TA, v) ((TA)(v))
#define LOAD_F16(TA, v)  tr_half_to_float(v)
#define LOAD_BF16(TA, v) tr_bfloat16_to_float(v)

/* The three loops of a reducer over input type TI into accumulators of type TA. */
#define REDUCER(NAME, TA, TI, IDENTITY, COMBINE)                                                   \
  REDUCER_L(NAME, TA, TI, IDENTITY, COMBINE, LOAD_CAST)
#define REDUCER_L(NAME, TA, TI, IDENTITY, COMBINE, LOAD)                                           \
  static void fill_##NAME(void *accv, int64_t n)                                                   \
  {                                                                                                \
    TA *acc = accv;                                                                                \
    for (int64_t i = 0; i < n; i++)                                                                \
      acc[i] = IDENTITY;                                                                           \
  }                                                                                                \
  static void fold_##NAME(void *accv, const void *xv, int64_t s, int64_t n)                        \
  {                                                                                                \
    const TI *x = xv;                                                                              \
    TA r = *(TA *)accv;                                                                            \
    int64_t i0 = 0;                                                                                \
    if (s == 1 && n >= LANES) {                                                                    \
      TA lane[LANES];                                                                              \
      for (int l = 0; l < LANES; l++)                                                              \
        lane[l] = IDENTITY;                                                                        \
      for (; i0 + LANES <= n; i0 += LANES)                                                         \
        for (int l = 0; l < LANES; l++)                                                            \
          lane[l] = COMBINE(lane[l], LOAD(TA, x[i0 + l]));                                         \
      for (int l = 0; l < LANES; l++)                                                              \
        r = COMBINE(r, lane[l]);                                                                   \
    }                                                                                              \
    for (int64_t i = i0; i < n; i++)                                                               \
      r = COMBINE(r, LOAD(TA, x[i * s]));                                                          \
    *(TA *)accv = r;                                                                               \
  }                                                                                                \
  static void accum_##NAME(void *accv, const void *xv, int64_t s, int64_t n)                       \
  {                                                                                                \
    TA *acc = accv;                                                                                \
    const TI *x = xv;                                                                              \
    int64_t i0 = 0;                                                                                \
    if (s == 1)                                                                                    \
      for (; i0 + LANES <= n; i0 += LANES)                                                         \
        IVDEP for (int l = 0; l < LANES; l++) acc[i0 + l] =                                        \
            COMBINE(acc[i0 + l], LOAD(TA, x[i0 + l]));                                             \
    for (int64_t i = i0; i < n; i++)                                                               \
      acc[i] = COMBINE(acc[i], LOAD(TA, x[i * s]));                                                \
  }

REDUCER(sum_f32, float, float, 0, ADD)
REDUCER(sum_f64, double, double, 0, ADD)
REDUCER(sum_i32, int32_t, int32_t, 0, ADD_U32)
REDUCER(sum_i64, int64_t, int64_t, 0, ADD_U64)
REDUCER(sum_i32_wide, int64_t, int32_t, 0, ADD_U64)
REDUCER(prod_f32, float, float, 1, MUL)
REDUCER(prod_f64, double, double, 1, MUL)
REDUCER(prod_i32, int32_t, int32_t, 1, MUL_U32)
REDUCER(prod_i64, int64_t, int64_t, 1, MUL_U64)
REDUCER(max_f32, float, float, -INFINITY, MAX_NAN)
REDUCER(max_f64, double, double, -INFINITY, MAX_NAN)
REDUCER(max_i32, int32_t, int32_t, INT32_MIN, MAX_INT)
REDUCER(max_i64, int64_t, int64_t, INT64_MIN, MAX_INT)
REDUCER(min_f32, float, float, INFINITY, MIN_NAN)
REDUCER(min_f64, double, double, INFINITY, MIN_NAN)
REDUCER(min_i32, int32_t, int32_t, INT32_MAX, MIN_INT)
REDUCER(min_i64, int64_t, int64_t, INT64_MAX, MIN_INT)
REDUCER(all_b, bool, bool, true, AND)
REDUCER(any_b, bool, bool, false, OR)

/* The narrower integers wrap in their own type (sums and products); their means sum in int64
 * (uint64 for the unsigned ones), as int32's do. */
#define ADD_IN(T, U, a, b) ((T)((U)(a) + (U)(b)))
#define MUL_IN(T, U, a, b) ((T)((U)(a) * (U)(b)))
#define ADD_I8(a, b)       ADD_IN(int8_t, uint32_t, a, b)
#define ADD_I16(a, b)      ADD_IN(int16_t, uint32_t, a, b)
#define ADD_U8(a, b)       ADD_IN(uint8_t, uint32_t, a, b)
#define ADD_U16(a, b)      ADD_IN(uint16_t, uint32_t, a, b)
#define ADD_UW(a, b)       ((a) + (b))
#define MUL_I8(a, b)       MUL_IN(int8_t, uint32_t, a, b)
#define MUL_I16(a, b)      MUL_IN(int16_t, uint32_t, a, b)
#define MUL_U8(a, b)       MUL_IN(uint8_t, uint32_t, a, b)
#define MUL_U16(a, b)      MUL_IN(uint16_t, uint32_t, a, b)
#define MUL_U32W(a, b)     MUL_IN(uint32_t, uint32_t, a, b)
#define MUL_UW(a, b)       ((a) * (b))
#define INT_REDUCERS(SUF, T, WIDE, MIN, MAX, ADDF, MULF)                                           \
  REDUCER(sum_##SUF, T, T, 0, ADDF)                                                                \
  REDUCER(sum_##SUF##_wide, WIDE, T, 0, ADD_UW)                                                    \
  REDUCER(prod_##SUF, T, T, 1, MULF)                                                               \
  REDUCER(max_##SUF, T, T, MIN, MAX_INT)                                                           \
  REDUCER(min_##SUF, T, T, MAX, MIN_INT)
INT_REDUCERS(i8, int8_t, int64_t, INT8_MIN, INT8_MAX, ADD_I8, MUL_I8)
INT_REDUCERS(i16, int16_t, int64_t, INT16_MIN, INT16_MAX, ADD_I16, MUL_I16)
INT_REDUCERS(u8, uint8_t, uint64_t, 0, UINT8_MAX, ADD_U8, MUL_U8)
INT_REDUCERS(u16, uint16_t, uint64_t, 0, UINT16_MAX, ADD_U16, MUL_U16)
INT_REDUCERS(u32, uint32_t, uint64_t, 0, UINT32_MAX, ADD_UW, MUL_U32W)
INT_REDUCERS(u64, uint64_t, uint64_t, 0, UINT64_MAX, ADD_UW, MUL_UW)

/* float16 and bfloat16 accumulate in float32 (TensorFlow sums halves in float too) and round
 * once at the end. */
#define HALF_REDUCERS(SUF, T, LOAD)                                                                \
  REDUCER_L(sum_##SUF, float, T, 0, ADD, LOAD)                                                     \
  REDUCER_L(prod_##SUF, float, T, 1, MUL, LOAD)                                                    \
  REDUCER_L(max_##SUF, float, T, -INFINITY, MAX_NAN, LOAD)                                         \
  REDUCER_L(min_##SUF, float, T, INFINITY, MIN_NAN, LOAD)
HALF_REDUCERS(f16, TrHalf, LOAD_F16)
HALF_REDUCERS(bf16, TrBFloat16, LOAD_BF16)

/* complex64 and complex128 (Sum, Prod and Mean have CPU kernels for them, TF_CALL_NUMBER_TYPES):
 * C's complex arithmetic. */
REDUCER(sum_c64, float _Complex, float _Complex, 0, ADD)
REDUCER(sum_c128, double _Complex, double _Complex, 0, ADD)
REDUCER(prod_c64, float _Complex, float _Complex, 1, MUL)
REDUCER(prod_c128, double _Complex, double _Complex, 1, MUL)

/* Mean: the sum divided by the count; integers truncate, and an empty integer mean is 0. */
#define MEAN_FINISH(NAME, TO, TA, DIVIDE)                                                          \
  static void finish_##NAME(void *outv, const void *accv, int64_t n, int64_t count)                \
  {                                                                                                \
    TO *out = outv;                                                                                \
    const TA *acc = accv;                                                                          \
    for (int64_t i = 0; i < n; i++)                                                                \
      out[i] = (TO)(DIVIDE);                                                                       \
  }
MEAN_FINISH(mean_f32, float, float, acc[i] / (float)count)
MEAN_FINISH(mean_f64, double, double, acc[i] / (double)count)
MEAN_FINISH(mean_c64, float _Complex, float _Complex, acc[i] / (float)count)
MEAN_FINISH(mean_c128, double _Complex, double _Complex, acc[i] / (double)count)
MEAN_FINISH(mean_i32, int32_t, int64_t, count ? acc[i] / count : 0)
MEAN_FINISH(mean_i64, int64_t, int64_t, count ? acc[i] / count : 0)
MEAN_FINISH(mean_i8, int8_t, int64_t, count ? acc[i] / count : 0)
MEAN_FINISH(mean_i16, int16_t, int64_t, count ? acc[i] / count : 0)
MEAN_FINISH(mean_u8, uint8_t, uint64_t, count ? acc[i] / (uint64_t)count : 0)
MEAN_FINISH(mean_u16, uint16_t, uint64_t, count ? acc[i] / (uint64_t)count : 0)
MEAN_FINISH(mean_u32, uint32_t, uint64_t, count ? acc[i] / (uint64_t)count : 0)
MEAN_FINISH(mean_u64, uint64_t, uint64_t, count ? acc[i] / (uint64_t)count : 0)

/* The halves' finishes round the float accumulators (a struct cannot be a cast's target). */
#define HALF_FINISH(NAME, TO, FROM_FLOAT, DIVIDE)                                                  \
  static void finish_##NAME(void *outv, const void *accv, int64_t n, int64_t count)                \
  {                                                                                                \
    TO *out = outv;                                                                                \
    const float *acc = accv;                                                                       \
    for (int64_t i = 0; i < n; i++)                                                                \
      out[i] = FROM_FLOAT(DIVIDE ? acc[i] / (float)count : acc[i]);                                \
  }
HALF_FINISH(mean_f16, TrHalf, tr_half_from_float, true)
HALF_FINISH(mean_bf16, TrBFloat16, tr_bfloat16_from_float, true)
HALF_FINISH(round_f16, TrHalf, tr_half_from_float, false)
HALF_FINISH(round_bf16, TrBFloat16, tr_bfloat16_from_float, false)

/* A reducer whose accumulators are the output; a mean, which finishes into it. */
#define ENTRY(dtype, name)                                                                         \
  {                                                                                                \
    dtype, fill_##name, fold_##name, accum_##name, NULL                                            \
  }
#define MEAN_ENTRY(dtype, sum, mean)                                                               \
  {                                                                                                \
    dtype, fill_##sum, fold_##sum, accum_##sum, finish_##mean                                      \
  }
/* Reducers for every numeric dtype, in a designated initialiser. */
#define NUMERIC_ENTRIES(op)                                                                        \
  [TR_FLOAT32] = ENTRY(TR_FLOAT32, op##_f32), [TR_FLOAT64] = ENTRY(TR_FLOAT64, op##_f64),          \
  [TR_INT32] = ENTRY(TR_INT32, op##_i32), [TR_INT64] = ENTRY(TR_INT64, op##_i64),                  \
  [TR_INT8] = ENTRY(TR_INT8, op##_i8), [TR_INT16] = ENTRY(TR_INT16, op##_i16),                     \
  [TR_UINT8] = ENTRY(TR_UINT8, op##_u8), [TR_UINT16] = ENTRY(TR_UINT16, op##_u16),                 \
  [TR_UINT32] = ENTRY(TR_UINT32, op##_u32), [TR_UINT64] = ENTRY(TR_UINT64, op##_u64),              \
  [TR_FLOAT16] = MEAN_ENTRY(TR_FLOAT32, op##_f16, round_f16),                                      \
  [TR_BFLOAT16] = MEAN_ENTRY(TR_FLOAT32, op##_bf16, round_bf16)

/* ---- TensorFlow's type constraints, for error messages ---------------------------------- */

#define NUMBER_TYPE                                                                                \
  "float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, bfloat16, "  \
  "qint16, quint16, uint16, complex128, half, uint32, uint64"
#define NUMBER_TYPE_DT                                                                             \
  "DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, DT_INT8, DT_COMPLEX64, DT_INT64, DT_QINT8, " \
  "DT_QUINT8, DT_QINT32, DT_BFLOAT16, DT_QINT16, DT_QUINT16, DT_UINT16, DT_COMPLEX128, DT_HALF, "  \
  "DT_UINT32, DT_UINT64"
#define REDUCTION_SUMMARY                                                                          \
  "signature=input:T, reduction_indices:Tidx -> output:T; attr=keep_dims:bool,default=false; "     \
  "attr=T:type,allowed=[@]; attr=Tidx:type,default=DT_INT32,allowed=[DT_INT32, DT_INT64]"
#define ARG_SUMMARY(T_LIST, OUT_LIST)                                                              \
  "signature=input:T, dimension:Tidx -> output:output_type; attr=T:type,allowed=[" T_LIST "]; "    \
  "attr=Tidx:type,default=DT_INT32,allowed=[DT_INT32, DT_INT64]; "                                 \
  "attr=output_type:type,default=DT_INT64,allowed=[" OUT_LIST "]"

static const TrTypeRule rule_number = {"T", NUMBER_TYPE, REDUCTION_SUMMARY};
static const TrTypeRule rule_real_number = {
    "T",
    "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64, "
    "qint8, quint8, qint32, qint16, quint16",
    REDUCTION_SUMMARY};
static const TrTypeRule rule_arg = {"T", NUMBER_TYPE ", bool",
                                    ARG_SUMMARY("@", "DT_INT32, DT_INT64")};
static const TrTypeRule rule_arg_output = {"output_type", "int32, int64",
                                           ARG_SUMMARY(NUMBER_TYPE_DT ", DT_BOOL", "@")};
static const TrTypeRule rule_softmax = {"T", "half, bfloat16, float, double",
                                        "signature=logits:T -> softmax:T; attr=T:type,allowed=[@]"};

/* ---- the reduction ops -------------------------------------------------------------------- */

typedef struct {
  const char *name;              /* default node name */
  const TrTypeRule *rule;        /* TensorFlow's constraint on T; NULL: the input is bool */
  Reducer by_dtype[TR_N_DTYPES]; /* per input dtype; fill NULL: not defined */
} ReduceOp;

static const ReduceOp reduce_ops[] = {
    [TR_OP_SUM] = {"Sum",
                   &rule_number,
                   {NUMERIC_ENTRIES(sum), [TR_COMPLEX64] = ENTRY(TR_COMPLEX64, sum_c64),
                    [TR_COMPLEX128] = ENTRY(TR_COMPLEX128, sum_c128)}},
    [TR_OP_MEAN] = {"Mean",
                    &rule_number,
                    {[TR_FLOAT32] = MEAN_ENTRY(TR_FLOAT32, sum_f32, mean_f32),
                     [TR_FLOAT64] = MEAN_ENTRY(TR_FLOAT64, sum_f64, mean_f64),
                     [TR_INT32] = MEAN_ENTRY(TR_INT64, sum_i32_wide, mean_i32),
                     [TR_INT64] = MEAN_ENTRY(TR_INT64, sum_i64, mean_i64),
                     [TR_INT8] = MEAN_ENTRY(TR_INT64, sum_i8_wide, mean_i8),
                     [TR_INT16] = MEAN_ENTRY(TR_INT64, sum_i16_wide, mean_i16),
                     [TR_UINT8] = MEAN_ENTRY(TR_UINT64, sum_u8_wide, mean_u8),
                     [TR_UINT16] = MEAN_ENTRY(TR_UINT64, sum_u16_wide, mean_u16),
                     [TR_UINT32] = MEAN_ENTRY(TR_UINT64, sum_u32_wide, mean_u32),
                     [TR_UINT64] = MEAN_ENTRY(TR_UINT64, sum_u64_wide, mean_u64),
                     [TR_FLOAT16] = MEAN_ENTRY(TR_FLOAT32, sum_f16, mean_f16),
                     [TR_BFLOAT16] = MEAN_ENTRY(TR_FLOAT32, sum_bf16, mean_bf16),
                     [TR_COMPLEX64] = MEAN_ENTRY(TR_COMPLEX64, sum_c64, mean_c64),
                     [TR_COMPLEX128] = MEAN_ENTRY(TR_COMPLEX128, sum_c128, mean_c128)}},
    [TR_OP_MAX] = {"Max", &rule_real_number, {NUMERIC_ENTRIES(max)}},
    [TR_OP_MIN] = {"Min", &rule_real_number, {NUMERIC_ENTRIES(min)}},
    [TR_OP_PROD] = {"Prod",
                    &rule_number,
                    {NUMERIC_ENTRIES(prod), [TR_COMPLEX64] = ENTRY(TR_COMPLEX64, prod_c64),
                     [TR_COMPLEX128] = ENTRY(TR_COMPLEX128, prod_c128)}},
    [TR_OP_ALL] = {"All", NULL, {[TR_BOOL] = ENTRY(TR_BOOL, all_b)}},
    [TR_OP_ANY] = {"Any", NULL, {[TR_BOOL] = ENTRY(TR_BOOL, any_b)}},
};

/* Mark the reduced dimensions of a rank-`rank` input; all of them when n_axes < 0. Duplicate
 * axes (also as a positive and a negative index) count once, as in TensorFlow. */
static bool
reduced_axes(const TrAttrs *attrs, int rank, bool *reduced, const char *op_type, GError **error)
{
  for (int d = 0; d < rank; d++)
    reduced[d] = attrs->n_axes < 0;
  for (int i = 0; i < attrs->n_axes; i++) {
    int64_t axis;
    if (!tr_axis_normalize(attrs->axes[i], rank, &axis)) {
      tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, op_type,
                      "Invalid reduction dimension %" G_GINT64_FORMAT
                      " for input with %d dimensions.",
                      attrs->axes[i], rank);
      return false;
    }
    reduced[axis] = true;
  }
  return true;
}

static bool
reduce_infer(TrOpId op, const TrTensorInfo *in, const TrAttrs *attrs, TrDType *dtype,
             TrShape *shape, GError **error)
{
  const ReduceOp *r = &reduce_ops[op];
  const char *type = tr_op_def(op)->type;
  TrDType t = in[0].dtype;
  if (!r->rule && t != TR_BOOL) {
    tr_set_dtype_mismatch(error, type, 0, TR_BOOL, t);
    return false;
  }
  if (!r->by_dtype[t].fill) {
    if (tr_rule_allows(r->rule, t)) {
      unsigned kernels = 0;
      for (int d = 0; d < TR_N_DTYPES; d++)
        if (r->by_dtype[d].fill)
          kernels |= TR_DTYPE_BIT(d);
      tr_set_no_kernel_error(error, type, kernels, t);
    } else {
      tr_set_attr_error(error, type, r->rule, t);
    }
    return false;
  }
  *dtype = t;

  const TrShape *x = &in[0].shape;
  if (x->rank == TR_UNKNOWN) {
    /* Reducing everything without keepdims gives a scalar; anything else keeps the rank. */
    bool scalar = attrs->n_axes < 0 && !attrs->keepdims;
    *shape = scalar ? tr_shape_scalar() : tr_shape_unknown();
    return true;
  }
  bool reduced[TR_MAX_RANK];
  if (!reduced_axes(attrs, x->rank, reduced, type, error))
    return false;
  shape->rank = 0;
  for (int d = 0; d < x->rank; d++) {
    if (!reduced[d])
      shape->dims[shape->rank++] = x->dims[d];
    else if (attrs->keepdims)
      shape->dims[shape->rank++] = 1;
  }
  return true;
}

/* Input geometry folded into runs: size-1 dimensions dropped, neighbours merged when both are
 * reduced or both kept and the input and output step through them as through one. */
typedef struct {
  int rank;                    /* runs */
  int64_t dims[TR_MAX_RANK];   /* run lengths */
  int64_t in_st[TR_MAX_RANK];  /* input strides, in elements */
  int64_t acc_st[TR_MAX_RANK]; /* accumulator strides; 0 on reduced runs */
  bool reduced[TR_MAX_RANK];   /* whether the run is reduced */
} Runs;

static void
fold_runs(const TrTensor *x, const bool *reduced, Runs *runs)
{
  int64_t acc_st[TR_MAX_RANK], stride = 1;
  for (int d = x->shape.rank - 1; d >= 0; d--) {
    acc_st[d] = reduced[d] ? 0 : stride;
    if (!reduced[d])
      stride *= x->shape.dims[d];
  }
  runs->rank = 0;
  for (int d = 0; d < x->shape.rank; d++) {
    int64_t len = x->shape.dims[d];
    if (len == 1)
      continue;
    int r = runs->rank - 1;
    if (r >= 0 && runs->reduced[r] == reduced[d] && runs->in_st[r] == x->strides[d] * len &&
        runs->acc_st[r] == acc_st[d] * len) {
      runs->dims[r] *= len;
    } else {
      r = runs->rank++;
      runs->dims[r] = len;
      runs->reduced[r] = reduced[d];
    }
    runs->in_st[r] = x->strides[d];
    runs->acc_st[r] = acc_st[d];
  }
}

/* Fold a reduced run of n elements into *acc, polling the cancel flag between pieces of
 * CANCEL_CHUNK elements. False when an interrupt stopped it. */
static bool
fold_run(const Reducer *red, char *acc, const char *x, size_t xsize, int64_t s, int64_t n)
{
  for (int64_t done = 0;;) {
    int64_t piece = MIN(CANCEL_CHUNK, n - done);
    red->fold(acc, x + done * s * (int64_t)xsize, s, piece);
    if ((done += piece) == n)
      return true;
    if (tr_cancel_requested())
      return false;
  }
}

/* Combine every element of `x` into `acc` (already filled with the identity); the cancel flag
 * is polled between rows. False when an interrupt stopped it. */
static bool
reduce_walk(const Reducer *red, const TrTensor *x, const bool *reduced, char *acc)
{
  Runs runs;
  fold_runs(x, reduced, &runs);
  size_t xsize = tr_dtype_size(x->dtype), asize = tr_dtype_size(red->acc_dtype);
  const char *base = (const char *)x->buf->data + x->offset * (int64_t)xsize;
  if (runs.rank == 0) {
    red->fold(acc, base, 1, 1);
    return true;
  }
  int inner = runs.rank - 1;
  int64_t index[TR_MAX_RANK] = {0}, in_pos = 0, acc_pos = 0;
  for (;;) {
    const char *row = base + in_pos * (int64_t)xsize;
    if (runs.reduced[inner]) {
      if (!fold_run(red, acc + acc_pos * (int64_t)asize, row, xsize, runs.in_st[inner],
                    runs.dims[inner]))
        return false;
    } else {
      red->accum(acc + acc_pos * (int64_t)asize, row, runs.in_st[inner], runs.dims[inner]);
    }
    int d = inner - 1;
    for (; d >= 0; d--) {
      in_pos += runs.in_st[d];
      acc_pos += runs.acc_st[d];
      if (++index[d] < runs.dims[d])
        break;
      in_pos -= runs.in_st[d] * runs.dims[d];
      acc_pos -= runs.acc_st[d] * runs.dims[d];
      index[d] = 0;
    }
    if (d < 0)
      return true;
    if (tr_cancel_requested())
      return false;
  }
}

static bool
reduce_kernel(TrOpId op, TrTensor *x, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  const Reducer *red = &reduce_ops[op].by_dtype[x->dtype];
  g_return_val_if_fail(red->fill != NULL, false);
  bool reduced[TR_MAX_RANK];
  if (!reduced_axes(attrs, x->shape.rank, reduced, tr_op_def(op)->type, error))
    return false;
  int64_t count = 1;
  for (int d = 0; d < x->shape.rank; d++)
    if (reduced[d])
      count *= x->shape.dims[d];

  int64_t n_out = tr_tensor_num_elements(out);
  g_autofree char *wide = NULL;
  char *acc = out->buf->data;
  if (red->acc_dtype != out->dtype && n_out > 0)
    acc = wide = g_malloc((size_t)n_out * tr_dtype_size(red->acc_dtype));
  red->fill(acc, n_out);
  if (tr_tensor_num_elements(x) > 0 && !reduce_walk(red, x, reduced, acc)) {
    tr_set_cancelled(error, tr_op_def(op)->type);
    return false;
  }
  if (red->finish)
    red->finish(out->buf->data, acc, n_out, count);
  return true;
}

#define REDUCE_OPS(X)                                                                              \
  X(SUM)                                                                                           \
  X(MEAN)                                                                                          \
  X(MAX)                                                                                           \
  X(MIN)                                                                                           \
  X(PROD)                                                                                          \
  X(ALL)                                                                                           \
  X(ANY)

#define REDUCE_CALLBACKS(ID)                                                                       \
  static bool infer_##ID(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,   \
                         TrShape *shape, GError **error)                                           \
  {                                                                                                \
    return reduce_infer(TR_OP_##ID, in, attrs, dtype, shape, error);                               \
  }                                                                                                \
  static bool kernel_##ID(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out,      \
                          GError **error)                                                          \
  {                                                                                                \
    return reduce_kernel(TR_OP_##ID, in[0], attrs, out, error);                                    \
  }
REDUCE_OPS(REDUCE_CALLBACKS)
#undef REDUCE_CALLBACKS

/* ---- ArgMax, ArgMin ----------------------------------------------------------------------- */

/* Index of the first greatest (least) of n elements x[0], x[s], ...; NaN only wins at 0. */
typedef int64_t (*ArgScanFunc)(const void *x, int64_t s, int64_t n);

#define ARG_SCAN(NAME, T, BETTER)                                                                  \
  static int64_t NAME(const void *xv, int64_t s, int64_t n)                                        \
  {                                                                                                \
    const T *x = xv;                                                                               \
    T best = x[0];                                                                                 \
    int64_t at = 0;                                                                                \
    for (int64_t i = 1; i < n; i++) {                                                              \
      T v = x[i * s];                                                                              \
      if (v BETTER best) {                                                                         \
        best = v;                                                                                  \
        at = i;                                                                                    \
      }                                                                                            \
    }                                                                                              \
    return at;                                                                                     \
  }
#define ARG_SCANS(SUF, T) ARG_SCAN(argmax_##SUF, T, >) ARG_SCAN(argmin_##SUF, T, <)
ARG_SCANS(f32, float)
ARG_SCANS(f64, double)
ARG_SCANS(i32, int32_t)
ARG_SCANS(i64, int64_t)
ARG_SCANS(b, bool)
ARG_SCANS(i8, int8_t)
ARG_SCANS(i16, int16_t)
ARG_SCANS(u8, uint8_t)
ARG_SCANS(u16, uint16_t)
ARG_SCANS(u32, uint32_t)
ARG_SCANS(u64, uint64_t)

/* The halves compare as floats. */
#define ARG_SCAN_HALF(NAME, T, TO_FLOAT, BETTER)                                                   \
  static int64_t NAME(const void *xv, int64_t s, int64_t n)                                        \
  {                                                                                                \
    const T *x = xv;                                                                               \
    float best = TO_FLOAT(x[0]);                                                                   \
    int64_t at = 0;                                                                                \
    for (int64_t i = 1; i < n; i++) {                                                              \
      float v = TO_FLOAT(x[i * s]);                                                                \
      if (v BETTER best) {                                                                         \
        best = v;                                                                                  \
        at = i;                                                                                    \
      }                                                                                            \
    }                                                                                              \
    return at;                                                                                     \
  }
ARG_SCAN_HALF(argmax_f16, TrHalf, tr_half_to_float, >)
ARG_SCAN_HALF(argmin_f16, TrHalf, tr_half_to_float, <)
ARG_SCAN_HALF(argmax_bf16, TrBFloat16, tr_bfloat16_to_float, >)
ARG_SCAN_HALF(argmin_bf16, TrBFloat16, tr_bfloat16_to_float, <)

#define ARG_ROWS(op)                                                                               \
  {                                                                                                \
    [TR_FLOAT32] = op##_f32, [TR_FLOAT64] = op##_f64, [TR_INT32] = op##_i32,                       \
    [TR_INT64] = op##_i64, [TR_BOOL] = op##_b, [TR_INT8] = op##_i8, [TR_INT16] = op##_i16,         \
    [TR_UINT8] = op##_u8, [TR_UINT16] = op##_u16, [TR_UINT32] = op##_u32, [TR_UINT64] = op##_u64,  \
    [TR_FLOAT16] = op##_f16, [TR_BFLOAT16] = op##_bf16                                             \
  }
static const ArgScanFunc argmax_scans[TR_N_DTYPES] = ARG_ROWS(argmax);
static const ArgScanFunc argmin_scans[TR_N_DTYPES] = ARG_ROWS(argmin);

static const ArgScanFunc *
arg_scans(TrOpId op)
{
  return op == TR_OP_ARGMAX ? argmax_scans : argmin_scans;
}

static TrDType
arg_output_dtype(const TrAttrs *attrs)
{
  return attrs->dtype == TR_DTYPE_INVALID ? TR_INT64 : attrs->dtype;
}

static bool
arg_infer(TrOpId op, const TrTensorInfo *in, const TrAttrs *attrs, TrDType *dtype, TrShape *shape,
          GError **error)
{
  const char *type = tr_op_def(op)->type;
  TrDType t = in[0].dtype, out = arg_output_dtype(attrs);
  if (!arg_scans(op)[t]) {
    if (tr_rule_allows(&rule_arg, t)) {
      unsigned kernels = 0;
      for (int d = 0; d < TR_N_DTYPES; d++)
        if (arg_scans(op)[d])
          kernels |= TR_DTYPE_BIT(d);
      tr_set_no_kernel_error(error, type, kernels, t);
    } else {
      tr_set_attr_error(error, type, &rule_arg, t);
    }
    return false;
  }
  if (out != TR_INT32 && out != TR_INT64) {
    tr_set_attr_error(error, type, &rule_arg_output, out);
    return false;
  }
  *dtype = out;
  const TrShape *x = &in[0].shape;
  if (x->rank == TR_UNKNOWN) {
    *shape = tr_shape_unknown();
    return true;
  }
  int64_t axis;
  if (!tr_axis_normalize(attrs->axis, x->rank, &axis)) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                    "Expected dimension in the range [%d, %d), but got %" G_GINT64_FORMAT, -x->rank,
                    x->rank, attrs->axis);
    return false;
  }
  shape->rank = 0;
  for (int d = 0; d < x->rank; d++)
    if (d != axis)
      shape->dims[shape->rank++] = x->dims[d];
  return true;
}

/* Sizes around `axis` of a contiguous tensor: outer * n * inner elements. */
static void
split_at_axis(const TrShape *shape, int64_t axis, int64_t *outer, int64_t *n, int64_t *inner)
{
  *outer = *inner = 1;
  for (int d = 0; d < shape->rank; d++) {
    if (d < axis)
      *outer *= shape->dims[d];
    else if (d > axis)
      *inner *= shape->dims[d];
  }
  *n = shape->dims[axis];
}

static bool
arg_kernel(TrOpId op, TrTensor *x, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  int64_t axis, outer, n, inner;
  if (!tr_axis_normalize(attrs->axis, x->shape.rank, &axis)) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, tr_op_def(op)->type,
                    "Expected dimension in the range [%d, %d), but got %" G_GINT64_FORMAT,
                    -x->shape.rank, x->shape.rank, attrs->axis);
    return false;
  }
  split_at_axis(&x->shape, axis, &outer, &n, &inner);
  if (n == 0) {
    g_autofree char *s = tr_shape_to_error_string(&x->shape);
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, tr_op_def(op)->type,
                    "Reduction axis %" G_GINT64_FORMAT " is empty in shape %s", attrs->axis, s);
    return false;
  }
  ArgScanFunc scan = arg_scans(op)[x->dtype];
  g_autoptr(TrTensor) c = tr_tensor_contiguous(x);
  const char *data = tr_tensor_data(c);
  size_t size = tr_dtype_size(x->dtype);
  int64_t *out64 = out->dtype == TR_INT64 ? out->buf->data : NULL;
  int32_t *out32 = out->dtype == TR_INT32 ? out->buf->data : NULL;
  for (int64_t o = 0; o < outer; o++) {
    for (int64_t j = 0; j < inner; j++) {
      int64_t at = scan(data + ((o * n) * inner + j) * (int64_t)size, inner, n);
      if (out64)
        out64[o * inner + j] = at;
      else
        out32[o * inner + j] = (int32_t)at;
    }
  }
  return true;
}

#define ARG_CALLBACKS(ID)                                                                          \
  static bool infer_##ID(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,   \
                         TrShape *shape, GError **error)                                           \
  {                                                                                                \
    return arg_infer(TR_OP_##ID, in, attrs, dtype, shape, error);                                  \
  }                                                                                                \
  static bool kernel_##ID(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out,      \
                          GError **error)                                                          \
  {                                                                                                \
    return arg_kernel(TR_OP_##ID, in[0], attrs, out, error);                                       \
  }
ARG_CALLBACKS(ARGMAX)
ARG_CALLBACKS(ARGMIN)
#undef ARG_CALLBACKS

/* ---- Sort and ArgSort ---------------------------------------------------------------------
 * tf.sort and tf.argsort along one axis. TensorFlow builds them from TopKV2 (ascending order as
 * the top k of the negated values); the order is the same: a stable sort, so equal values keep
 * their index order in either direction, as top_k returns the lower index first. */

static const TrTypeRule rule_top_k = {
    "T", "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64",
    "signature=input:T, k:int32 -> values:T, indices:int32; attr=sorted:bool,default=true; "
    "attr=T:type,allowed=[@]"};

static bool
sort_infer(TrOpId op, const TrTensorInfo *in, const TrAttrs *attrs, TrDType *dtype, TrShape *shape,
           GError **error)
{
  TrDType t = in[0].dtype;
  /* TopKV2 has a CPU kernel for each dtype its attr allows (TF_CALL_REAL_NUMBER_TYPES) */
  if (!tr_rule_allows(&rule_top_k, t)) {
    tr_set_attr_error(error, "TopKV2", &rule_top_k, t);
    return false;
  }
  const TrShape *x = &in[0].shape;
  *dtype = op == TR_OP_ARGSORT ? TR_INT32 : t;
  *shape = *x;
  if (x->rank == TR_UNKNOWN)
    return true;
  if (x->rank == 0) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, "TopKV2",
                    "input must be >= 1-D, got shape []");
    return false;
  }
  int64_t axis;
  if (!tr_axis_normalize(attrs->axis, x->rank, &axis)) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, tr_op_def(op)->type,
                    "Expected dimension in the range [%d, %d), but got %" G_GINT64_FORMAT, -x->rank,
                    x->rank, attrs->axis);
    return false;
  }
  return true;
}

/* One lane of a contiguous tensor being sorted: where its elements are. */
typedef struct {
  const char *base; /* the lane's first element */
  int64_t stride;   /* in elements */
  TrDType dtype;
  bool descending;
} SortLane;

static int
sort_compare(gconstpointer pa, gconstpointer pb, gpointer data)
{
  const SortLane *l = data;
  int64_t a = *(const int64_t *)pa * l->stride, b = *(const int64_t *)pb * l->stride;
  int c;
#define SORT_CMP(T, CONV)                                                                          \
  {                                                                                                \
    T x = CONV(((const T *)l->base)[a]), y = CONV(((const T *)l->base)[b]);                        \
    c = (x > y) - (x < y);                                                                         \
  }
#define AS_IS(v) (v)
  switch (l->dtype) {
    case TR_FLOAT32:
      SORT_CMP(float, AS_IS)
      break;
    case TR_FLOAT64:
      SORT_CMP(double, AS_IS)
      break;
    case TR_INT32:
      SORT_CMP(int32_t, AS_IS)
      break;
    case TR_INT8:
      SORT_CMP(int8_t, AS_IS)
      break;
    case TR_INT16:
      SORT_CMP(int16_t, AS_IS)
      break;
    case TR_UINT8:
      SORT_CMP(uint8_t, AS_IS)
      break;
    case TR_UINT16:
      SORT_CMP(uint16_t, AS_IS)
      break;
    case TR_UINT32:
      SORT_CMP(uint32_t, AS_IS)
      break;
    case TR_UINT64:
      SORT_CMP(uint64_t, AS_IS)
      break;
    case TR_FLOAT16: {
      float x = tr_half_to_float(((const TrHalf *)l->base)[a]);
      float y = tr_half_to_float(((const TrHalf *)l->base)[b]);
      c = (x > y) - (x < y);
      break;
    }
    case TR_BFLOAT16: {
      float x = tr_bfloat16_to_float(((const TrBFloat16 *)l->base)[a]);
      float y = tr_bfloat16_to_float(((const TrBFloat16 *)l->base)[b]);
      c = (x > y) - (x < y);
      break;
    }
    default:
      SORT_CMP(int64_t, AS_IS)
      break;
  }
#undef SORT_CMP
#undef AS_IS
  return l->descending ? -c : c;
}

static bool
sort_kernel(TrOpId op, TrTensor *x, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  int64_t axis, outer, n, inner;
  if (!tr_axis_normalize(attrs->axis, x->shape.rank, &axis)) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, tr_op_def(op)->type,
                    "Expected dimension in the range [%d, %d), but got %" G_GINT64_FORMAT,
                    -x->shape.rank, x->shape.rank, attrs->axis);
    return false;
  }
  split_at_axis(&x->shape, axis, &outer, &n, &inner);
  g_autoptr(TrTensor) c = tr_tensor_contiguous(x);
  size_t size = tr_dtype_size(x->dtype);
  g_autofree int64_t *order = g_new(int64_t, MAX(n, 1));
  char *dst = out->buf->data;
  for (int64_t o = 0; o < outer; o++) {
    for (int64_t j = 0; j < inner; j++) {
      int64_t first = o * n * inner + j;
      SortLane lane = {(const char *)tr_tensor_data(c) + first * (int64_t)size, inner, x->dtype,
                       attrs->descending};
      for (int64_t i = 0; i < n; i++)
        order[i] = i;
      g_qsort_with_data(order, (gint)n, sizeof *order, sort_compare, &lane);
      for (int64_t i = 0; i < n; i++) {
        int64_t at = first + i * inner;
        if (op == TR_OP_ARGSORT)
          ((int32_t *)dst)[at] = (int32_t)order[i];
        else
          memcpy(dst + at * (int64_t)size, lane.base + order[i] * inner * (int64_t)size, size);
      }
    }
  }
  return true;
}

#define SORT_CALLBACKS(ID)                                                                         \
  static bool infer_##ID(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,   \
                         TrShape *shape, GError **error)                                           \
  {                                                                                                \
    return sort_infer(TR_OP_##ID, in, attrs, dtype, shape, error);                                 \
  }                                                                                                \
  static bool kernel_##ID(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out,      \
                          GError **error)                                                          \
  {                                                                                                \
    return sort_kernel(TR_OP_##ID, in[0], attrs, out, error);                                      \
  }
SORT_CALLBACKS(SORT)
SORT_CALLBACKS(ARGSORT)
#undef SORT_CALLBACKS

/* ---- Softmax ------------------------------------------------------------------------------ */

/* exp(x - max) * (1 / sum), along one axis of a contiguous tensor, as TensorFlow computes it. */
#define SOFTMAX(NAME, T, EXP)                                                                      \
  static void NAME(void *outv, const void *xv, int64_t outer, int64_t n, int64_t inner)            \
  {                                                                                                \
    T *out = outv;                                                                                 \
    const T *x = xv;                                                                               \
    for (int64_t o = 0; o < outer; o++) {                                                          \
      for (int64_t j = 0; j < inner; j++) {                                                        \
        const T *row = x + o * n * inner + j;                                                      \
        T *dst = out + o * n * inner + j;                                                          \
        T top = row[0], sum = 0;                                                                   \
        for (int64_t i = 1; i < n; i++)                                                            \
          top = row[i * inner] > top ? row[i * inner] : top;                                       \
        for (int64_t i = 0; i < n; i++) {                                                          \
          dst[i * inner] = EXP(row[i * inner] - top);                                              \
          sum += dst[i * inner];                                                                   \
        }                                                                                          \
        T scale = 1 / sum;                                                                         \
        for (int64_t i = 0; i < n; i++)                                                            \
          dst[i * inner] *= scale;                                                                 \
      }                                                                                            \
    }                                                                                              \
  }
SOFTMAX(softmax_f32, float, expf)
SOFTMAX(softmax_f64, double, exp)

typedef void (*SoftmaxFunc)(void *out, const void *x, int64_t outer, int64_t n, int64_t inner);
static const SoftmaxFunc softmax_funcs[TR_N_DTYPES] = {
    [TR_FLOAT32] = softmax_f32, [TR_FLOAT64] = softmax_f64};

/* tf.nn.softmax: the axis check is Python's (no op suffix) and comes first unless the axis is
 * the last one; then the Softmax op checks the dtype and the rank. */
static bool
softmax_infer(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,
              TrShape *shape, GError **error)
{
  const TrShape *x = &in[0].shape;
  int64_t axis;
  bool last = attrs->axis == -1 || (x->rank != TR_UNKNOWN && attrs->axis == x->rank - 1);
  if (!last && x->rank != TR_UNKNOWN && !tr_axis_normalize(attrs->axis, x->rank, &axis)) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, NULL,
                    "`dim` must be in the range [%d, %d) where %d is the number of dimensions in "
                    "the input. Received: dim=%" G_GINT64_FORMAT,
                    -x->rank, x->rank, x->rank, attrs->axis);
    return false;
  }
  if (!softmax_funcs[in[0].dtype]) {
    tr_set_attr_error(error, "Softmax", &rule_softmax, in[0].dtype);
    return false;
  }
  if (x->rank == 0) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, "Softmax",
                    "logits must have >= 1 dimension, got []");
    return false;
  }
  *dtype = in[0].dtype;
  *shape = *x;
  return true;
}

static bool
softmax_kernel(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  int64_t axis, outer, n, inner;
  bool valid = tr_axis_normalize(attrs->axis, in[0]->shape.rank, &axis);
  g_return_val_if_fail(valid, false);
  split_at_axis(&in[0]->shape, axis, &outer, &n, &inner);
  if (n == 0 || tr_tensor_num_elements(out) == 0)
    return true;
  g_autoptr(TrTensor) c = tr_tensor_contiguous(in[0]);
  softmax_funcs[c->dtype](out->buf->data, tr_tensor_data(c), outer, n, inner);
  return true;
}

/* ---- registration ------------------------------------------------------------------------- */

void
tr_ops_register_reduce(TrOpDef *defs)
{
#define REDUCE_DEF(ID)                                                                             \
  defs[TR_OP_##ID] = (TrOpDef){.name = reduce_ops[TR_OP_##ID].name,                                \
                               .n_inputs = 1,                                                      \
                               .infer = infer_##ID,                                                \
                               .kernel = kernel_##ID};
  REDUCE_OPS(REDUCE_DEF)
#undef REDUCE_DEF
  defs[TR_OP_ARGMAX] =
      (TrOpDef){.name = "ArgMax", .n_inputs = 1, .infer = infer_ARGMAX, .kernel = kernel_ARGMAX};
  defs[TR_OP_ARGMIN] =
      (TrOpDef){.name = "ArgMin", .n_inputs = 1, .infer = infer_ARGMIN, .kernel = kernel_ARGMIN};
  defs[TR_OP_SOFTMAX] =
      (TrOpDef){.name = "Softmax", .n_inputs = 1, .infer = softmax_infer, .kernel = softmax_kernel};
  defs[TR_OP_SORT] =
      (TrOpDef){.name = "sort", .n_inputs = 1, .infer = infer_SORT, .kernel = kernel_SORT};
  defs[TR_OP_ARGSORT] =
      (TrOpDef){.name = "argsort", .n_inputs = 1, .infer = infer_ARGSORT, .kernel = kernel_ARGSORT};
}

/* ---- convenience wrappers ----------------------------------------------------------------- */

/* Axes are passed through unchanged, except that repeats of an axis already listed are dropped
 * so that any number of them fits TrAttrs. */
TrTensor *
tr_reduce(TrOpId op, TrTensor *x, const int64_t *axes, int n_axes, bool keepdims, GError **error)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.keepdims = keepdims;
  attrs.n_axes = n_axes < 0 ? -1 : 0;
  for (int i = 0; i < n_axes; i++) {
    int64_t axis, seen;
    bool valid = tr_axis_normalize(axes[i], x->shape.rank, &axis), repeat = false;
    for (int j = 0; valid && j < attrs.n_axes && !repeat; j++)
      repeat = tr_axis_normalize(attrs.axes[j], x->shape.rank, &seen) && seen == axis;
    if (repeat)
      continue;
    if (attrs.n_axes == TR_MAX_RANK)
      attrs.n_axes--; /* only an invalid axis gets here: keep it, to report it */
    attrs.axes[attrs.n_axes++] = axes[i];
    if (!valid)
      break;
  }
  return tr_op_run(op, &x, 1, &attrs, error);
}

TrTensor *
tr_arg_reduce(TrOpId op, TrTensor *x, int64_t axis, TrDType out_dtype, GError **error)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.axis = axis;
  attrs.dtype = out_dtype;
  return tr_op_run(op, &x, 1, &attrs, error);
}

TrTensor *
tr_softmax(TrTensor *x, int64_t axis, GError **error)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.axis = axis;
  return tr_op_run(TR_OP_SOFTMAX, &x, 1, &attrs, error);
}
