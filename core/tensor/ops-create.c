/* ops-create.c — ops that make new tensors from scalars, shapes and seeds: Range, Fill, Eye,
 * LinSpace, ZerosLike, OnesLike, RandomUniform and RandomStandardNormal.
 *
 * Parameters that may be symbolic in a graph (range bounds, fill dims and value, linspace num,
 * random shapes) are inputs; inference gives a partial shape when their values are unknown
 * (a dim of None, or an unknown rank) and validates them when they are known, so eager calls
 * report TensorFlow's errors before anything is allocated.
 *
 * Random numbers come from Philox-4x32-10 (Salmon et al., "Parallel random numbers: as easy as
 * 1, 2, 3", SC 2011), a counter-based generator: block b of the stream for (seed, seed2,
 * counter) is philox(key = seed ^ mix(seed2), ctr = (b, counter)). Element i is always drawn
 * from the same block and lane, so values depend only on the triple and the index, never on
 * threading or on how the output is chunked. Normals use the Box–Muller transform. The streams
 * are Trellis's own: TensorFlow's exact random values are not reproduced.
 */
#include "tr-tensor-private.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define INDEX_DTYPES           (TR_DTYPE_BIT(TR_INT32) | TR_DTYPE_BIT(TR_INT64))
#define FLOAT_DTYPES           (TR_DTYPE_BIT(TR_FLOAT32) | TR_DTYPE_BIT(TR_FLOAT64))
#define NUMERIC_DTYPES         (FLOAT_DTYPES | INDEX_DTYPES)
#define NUMERIC_OR_BOOL_DTYPES (NUMERIC_DTYPES | TR_DTYPE_BIT(TR_BOOL))

/* TensorFlow's MaxDimensions() is larger; Trellis shapes hold TR_MAX_RANK dims. */
#define SHAPE_MAX_DIMS TR_MAX_RANK

/* ---- helpers ---------------------------------------------------------------------------- */

static const char *
op_type(TrOpId op)
{
  return tr_op_def(op)->type;
}

/* `dtype`, or float32 when it is unset (TR_DTYPE_INVALID): the default of tf.eye, tf.random. */
static TrDType
dtype_or_float32(TrDType dtype)
{
  return dtype == TR_DTYPE_INVALID ? TR_FLOAT32 : dtype;
}

/* A scalar input's shape check: rank 0, or TF's legacy length-1 vector when `allow_vector1`. */
static bool
check_scalar(const TrShape *s, bool allow_vector1, const char *what, const char *type,
             GError **error)
{
  if (s->rank == TR_UNKNOWN || s->rank == 0)
    return true;
  if (allow_vector1 && s->rank == 1 && (s->dims[0] == 1 || s->dims[0] == TR_UNKNOWN))
    return true;
  g_autofree char *str = tr_shape_to_error_string(s);
  tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type, "%s%s", what, str);
  return false;
}

/* A number as TensorFlow's StrCat prints it: integers exactly, floats in the shortest of
 * %.6g/%.9g (float) or %.15g/%.17g (double) that reads back to the same value. */
static char *
format_number(TrDType dtype, double v)
{
  if (tr_dtype_is_int(dtype))
    return g_strdup_printf("%" G_GINT64_FORMAT, (int64_t)v);
  if (dtype == TR_FLOAT32) {
    char *s = g_strdup_printf("%.*g", FLT_DIG, v);
    if (isnan(v) || strtof(s, NULL) == (float)v)
      return s;
    g_free(s);
    return g_strdup_printf("%.*g", FLT_DIG + 3, v);
  }
  char *s = g_strdup_printf("%.*g", DBL_DIG, v);
  if (isnan(v) || strtod(s, NULL) == v)
    return s;
  g_free(s);
  return g_strdup_printf("%.*g", DBL_DIG + 2, v);
}

/* Kernels re-check their inputs with the op's own inference, so that a graph executor that
 * allocated `out` from a stale shape gets an error instead of a buffer overrun. */
static bool
kernel_precheck(TrOpId op, TrTensor *const *in, int n_in, const TrAttrs *attrs, const TrTensor *out,
                GError **error)
{
  TrTensorInfo infos[4];
  g_assert(n_in <= 4);
  for (int i = 0; i < n_in; i++)
    infos[i] = (TrTensorInfo){.dtype = in[i]->dtype, .shape = in[i]->shape, .value = in[i]};
  TrDType dtype;
  TrShape shape;
  if (!tr_op_def(op)->infer(infos, n_in, attrs, &dtype, &shape, error))
    return false;
  if (dtype == out->dtype && tr_shape_equal(&shape, &out->shape))
    return true;
  g_autofree char *want = tr_shape_to_error_string(&shape);
  g_autofree char *got = tr_shape_to_error_string(&out->shape);
  tr_set_op_error(error, TR_ERROR_FAILED_PRECONDITION, op_type(op),
                  "output buffer is %s %s, but the op produces %s %s", tr_dtype_tf_name(out->dtype),
                  got, tr_dtype_tf_name(dtype), want);
  return false;
}

/* The output shape given by a 1-D int32/int64 input (Fill's dims, a random op's shape), as
 * far as it is known: fully when its value is, else its rank when its length is. */
static bool
shape_from_input(const TrTensorInfo *info, const char *attr, const char *not_vector,
                 const char *type, TrShape *out, GError **error)
{
  if (!tr_check_dtype_allowed(info->dtype, INDEX_DTYPES, attr, type, error))
    return false;
  const TrShape *s = info->value ? &info->value->shape : &info->shape;
  if (s->rank != TR_UNKNOWN && s->rank != 1) {
    g_autofree char *str = tr_shape_to_error_string(s);
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type, "%s%s", not_vector, str);
    return false;
  }
  int64_t n = s->rank == 1 ? s->dims[0] : TR_UNKNOWN;
  if (n > SHAPE_MAX_DIMS) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type, "Too many dimensions");
    return false;
  }
  if (!info->value) {
    *out = (TrShape){.rank = (int)n};
    for (int i = 0; i < n; i++)
      out->dims[i] = TR_UNKNOWN;
    return true;
  }
  out->rank = (int)n;
  int64_t elements = 1;
  bool overflow = false, empty = false;
  for (int i = 0; i < n; i++) {
    int64_t dim = tr_tensor_get_i64(info->value, i);
    if (dim < 0) {
      tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                      "Dimension %" G_GINT64_FORMAT " must be >= 0", dim);
      return false;
    }
    out->dims[i] = dim;
    empty |= dim == 0;
    overflow |= dim != 0 && elements > G_MAXINT64 / dim;
    elements = overflow ? 1 : elements * dim;
  }
  if (overflow && !empty) {
    g_autofree char *str = tr_shape_to_error_string(out);
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                    "Shape %s would have more than 2**63 - 1 elements", str);
    return false;
  }
  return true;
}

/* ---- Range ------------------------------------------------------------------------------ */

/* Range's Tidx: TensorFlow's OpDef list (math_ops.cc, as tf.raw_ops.Range's page lists it), in
 * its order for the error text; each has a kernel here. */
#define RANGE_DTYPES                                                                               \
  (TR_DTYPE_BIT(TR_BFLOAT16) | TR_DTYPE_BIT(TR_FLOAT16) | FLOAT_DTYPES | TR_DTYPE_BIT(TR_INT8) |   \
   TR_DTYPE_BIT(TR_INT16) | INDEX_DTYPES | TR_DTYPE_BIT(TR_UINT16) | TR_DTYPE_BIT(TR_UINT32))
#define RANGE_ALLOWED "bfloat16, half, float, double, int8, int16, int32, int64, uint16, uint32"

/* v rounded to float16 or bfloat16 (the others unchanged): Range's half kernels compute in the
 * type itself, each operation rounded. */
static double
round_to(TrDType dtype, double v)
{
  if (dtype == TR_FLOAT16)
    return tr_half_to_float(tr_half_from_float((float)v));
  if (dtype == TR_BFLOAT16)
    return tr_bfloat16_to_float(tr_bfloat16_from_float((float)v));
  return v;
}

/* The length of range(start, limit, delta), checked as TF's Range kernel does. */
static bool
range_size(TrDType dtype, const TrTensor *const v[3], int64_t *size, GError **error)
{
  const char *type = op_type(TR_OP_RANGE);
  double start = tr_tensor_get_f64(v[0], 0), limit = tr_tensor_get_f64(v[1], 0);
  double delta = tr_tensor_get_f64(v[2], 0);
  if (tr_dtype_is_int(dtype)) {
    start = (double)tr_tensor_get_i64(v[0], 0);
    limit = (double)tr_tensor_get_i64(v[1], 0);
    delta = (double)tr_tensor_get_i64(v[2], 0);
  }
  g_autofree char *s_start = format_number(dtype, start);
  g_autofree char *s_limit = format_number(dtype, limit);
  if (delta == 0) {
    g_autofree char *s_delta = format_number(dtype, delta);
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type, "Requires delta != 0: %s", s_delta);
    return false;
  }
  if (delta > 0 ? !(start <= limit) : !(start >= limit)) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                    delta > 0 ? "Requires start <= limit when delta > 0: %s/%s"
                              : "Requires start >= limit when delta < 0: %s/%s",
                    s_start, s_limit);
    return false;
  }
  if (tr_dtype_is_int(dtype)) {
    /* In unsigned arithmetic, so that extreme int64 bounds cannot overflow. */
    int64_t a = tr_tensor_get_i64(v[0], 0), b = tr_tensor_get_i64(v[1], 0);
    int64_t d = tr_tensor_get_i64(v[2], 0);
    uint64_t span = d > 0 ? (uint64_t)b - (uint64_t)a : (uint64_t)a - (uint64_t)b;
    uint64_t step = d > 0 ? (uint64_t)d : -(uint64_t)d;
    uint64_t count = span / step + (span % step != 0);
    if (count > (uint64_t)G_MAXINT64) {
      tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                      "Requires ((limit - start) / delta) <= %" G_GINT64_FORMAT, G_MAXINT64);
      return false;
    }
    *size = (int64_t)count;
    return true;
  }
  double n = dtype == TR_FLOAT32 ? ceilf(fabsf(((float)limit - (float)start) / (float)delta))
             : dtype == TR_FLOAT64
                 ? ceil(fabs((limit - start) / delta))
                 : ceil(fabs(round_to(dtype, round_to(dtype, limit - start) / delta)));
  if (!(n <= (double)G_MAXINT64)) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                    "Requires ((limit - start) / delta) <= %" G_GINT64_FORMAT, G_MAXINT64);
    return false;
  }
  *size = (int64_t)n;
  return true;
}

static bool
infer_range(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype, TrShape *shape,
            GError **error)
{
  const char *type = op_type(TR_OP_RANGE);
  static const char *const names[3] = {"start", "limit", "delta"};
  *dtype = in[0].dtype;
  TrDType t = in[0].dtype;
  if (t < 0 || t >= TR_N_DTYPES || !(RANGE_DTYPES & TR_DTYPE_BIT(t))) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                    "Value for attr 'Tidx' of %s is not in the list of allowed values: %s",
                    t >= 0 && t < TR_N_DTYPES ? tr_dtype_tf_name(t) : "invalid", RANGE_ALLOWED);
    return false;
  }
  for (int i = 0; i < 3; i++) {
    if (in[i].dtype != in[0].dtype) {
      tr_set_dtype_mismatch(error, type, i, in[0].dtype, in[i].dtype);
      return false;
    }
    g_autofree char *what = g_strdup_printf("%s must be a scalar, not shape ", names[i]);
    const TrShape *s = in[i].value ? &in[i].value->shape : &in[i].shape;
    if (!check_scalar(s, true, what, type, error))
      return false;
  }
  *shape = (TrShape){.rank = 1, .dims = {TR_UNKNOWN}};
  if (!in[0].value || !in[1].value || !in[2].value)
    return true;
  const TrTensor *values[3] = {in[0].value, in[1].value, in[2].value};
  return range_size(in[0].dtype, values, &shape->dims[0], error);
}

static bool
kernel_range(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  if (!kernel_precheck(TR_OP_RANGE, in, n_in, attrs, out, error))
    return false;
  int64_t n = out->shape.dims[0];
  void *data = tr_tensor_data(out);
  /* Each value is the previous one plus delta, in the output type (as TF's kernel). */
#define RANGE_FILL(ctype, get)                                                                     \
  {                                                                                                \
    ctype val = (ctype)get(in[0], 0), delta = (ctype)get(in[2], 0);                                \
    for (int64_t i = 0; i < n; i++) {                                                              \
      ((ctype *)data)[i] = val;                                                                    \
      if (i + 1 < n) /* past the last value the sum may overflow */                                \
        val += delta;                                                                              \
    }                                                                                              \
  }
  switch (out->dtype) {
    case TR_FLOAT32:
      RANGE_FILL(float, tr_tensor_get_f64)
      break;
    case TR_FLOAT64:
      RANGE_FILL(double, tr_tensor_get_f64)
      break;
    case TR_INT32:
      RANGE_FILL(int32_t, tr_tensor_get_i64)
      break;
    case TR_INT64:
      RANGE_FILL(int64_t, tr_tensor_get_i64)
      break;
    case TR_INT8:
      RANGE_FILL(int8_t, tr_tensor_get_i64)
      break;
    case TR_INT16:
      RANGE_FILL(int16_t, tr_tensor_get_i64)
      break;
    case TR_UINT16:
      RANGE_FILL(uint16_t, tr_tensor_get_i64)
      break;
    case TR_UINT32:
      RANGE_FILL(uint32_t, tr_tensor_get_i64)
      break;
    case TR_FLOAT16:
    case TR_BFLOAT16: {
      double val = tr_tensor_get_f64(in[0], 0), delta = tr_tensor_get_f64(in[2], 0);
      for (int64_t i = 0; i < n; i++) {
        if (out->dtype == TR_FLOAT16)
          ((TrHalf *)data)[i] = tr_half_from_float((float)val);
        else
          ((TrBFloat16 *)data)[i] = tr_bfloat16_from_float((float)val);
        val = round_to(out->dtype, val + delta);
      }
      break;
    }
    default:
      g_assert_not_reached();
  }
#undef RANGE_FILL
  return true;
}

/* ---- Fill ------------------------------------------------------------------------------- */

static bool
infer_fill(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype, TrShape *shape,
           GError **error)
{
  const char *type = op_type(TR_OP_FILL);
  *dtype = in[1].dtype;
  if (!shape_from_input(&in[0], "index_type", "dims must be a vector, got shape ", type, shape,
                        error))
    return false;
  const TrShape *v = in[1].value ? &in[1].value->shape : &in[1].shape;
  return check_scalar(v, false, "value must be a scalar, got shape ", type, error);
}

static bool
kernel_fill(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  if (!kernel_precheck(TR_OP_FILL, in, n_in, attrs, out, error))
    return false;
  int64_t n = tr_tensor_num_elements(out);
  const TrTensor *value = in[1];
  if (n == 0)
    return true;
  if (out->dtype == TR_STRING) {
    const TrString *s = tr_tensor_get_string(value, 0);
    TrString *dst = tr_tensor_data(out);
    for (int64_t i = 0; i < n; i++)
      tr_string_set(&dst[i], s->data, s->len);
    return true;
  }
  size_t size = tr_dtype_size(out->dtype);
  char *data = tr_tensor_data(out);
  memcpy(data, (const char *)value->buf->data + value->offset * (int64_t)size, size);
  tr_splat_first(data, size, n);
  return true;
}

/* ---- Eye -------------------------------------------------------------------------------- */

static bool
infer_eye(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype, TrShape *shape,
          GError **error)
{
  const char *type = op_type(TR_OP_EYE);
  *dtype = dtype_or_float32(attrs->dtype);
  if (!tr_check_dtype_allowed(*dtype, NUMERIC_OR_BOOL_DTYPES, "dtype", type, error))
    return false;
  if (attrs->num_rows < 0) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                    "Dimension %" G_GINT64_FORMAT " must be >= 0", attrs->num_rows);
    return false;
  }
  int64_t cols = attrs->num_columns < 0 ? attrs->num_rows : attrs->num_columns;
  *shape = tr_shape_make(2, (int64_t[]){attrs->num_rows, cols});
  return true;
}

static bool
kernel_eye(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  if (!kernel_precheck(TR_OP_EYE, in, n_in, attrs, out, error))
    return false;
  int64_t rows = out->shape.dims[0], cols = out->shape.dims[1];
  if (rows * cols == 0)
    return true;
  void *data = tr_tensor_data(out);
  memset(data, 0, (size_t)(rows * cols) * tr_dtype_size(out->dtype));
  for (int64_t i = 0; i < MIN(rows, cols); i++)
    tr_store_number(data, out->dtype, i * cols + i, 1);
  return true;
}

/* ---- LinSpace --------------------------------------------------------------------------- */

static bool
infer_linspace(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,
               TrShape *shape, GError **error)
{
  const char *type = op_type(TR_OP_LINSPACE);
  static const char *const what[3] = {"start must be a scalar, not shape ",
                                      "stop must be a scalar, not shape ",
                                      "num must be a scalar, not shape "};
  *dtype = in[0].dtype;
  if (!tr_check_dtype_allowed(in[0].dtype, FLOAT_DTYPES, "T", type, error))
    return false;
  if (in[1].dtype != in[0].dtype) {
    tr_set_dtype_mismatch(error, type, 1, in[0].dtype, in[1].dtype);
    return false;
  }
  if (!tr_check_dtype_allowed(in[2].dtype, INDEX_DTYPES, "Tidx", type, error))
    return false;
  for (int i = 0; i < 3; i++) {
    const TrShape *s = in[i].value ? &in[i].value->shape : &in[i].shape;
    if (!check_scalar(s, false, what[i], type, error))
      return false;
  }
  *shape = (TrShape){.rank = 1, .dims = {TR_UNKNOWN}};
  if (!in[2].value)
    return true;
  int64_t num = tr_tensor_get_i64(in[2].value, 0);
  if (num <= 0) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type, "Requires num > 0: %" G_GINT64_FORMAT,
                    num);
    return false;
  }
  shape->dims[0] = num;
  return true;
}

static bool
kernel_linspace(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  if (!kernel_precheck(TR_OP_LINSPACE, in, n_in, attrs, out, error))
    return false;
  int64_t num = out->shape.dims[0];
  void *data = tr_tensor_data(out);
  /* start + step * i in the output type, with the last value exactly stop (TF's kernel). */
#define LINSPACE_FILL(ctype)                                                                       \
  {                                                                                                \
    ctype start = (ctype)tr_tensor_get_f64(in[0], 0), stop = (ctype)tr_tensor_get_f64(in[1], 0);   \
    ctype *o = data;                                                                               \
    o[0] = start;                                                                                  \
    if (num > 1) {                                                                                 \
      ctype step = (stop - start) / (ctype)(num - 1);                                              \
      for (int64_t i = 1; i < num - 1; i++)                                                        \
        o[i] = start + step * (ctype)i;                                                            \
      o[num - 1] = stop;                                                                           \
    }                                                                                              \
  }
  if (out->dtype == TR_FLOAT32)
    LINSPACE_FILL(float)
  else
    LINSPACE_FILL(double)
#undef LINSPACE_FILL
  return true;
}

/* ---- ZerosLike, OnesLike ---------------------------------------------------------------- */

static bool
infer_zeros_like(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,
                 TrShape *shape, GError **error)
{
  *dtype = in[0].dtype;
  *shape = in[0].shape;
  return true;
}

static bool
kernel_zeros_like(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out,
                  GError **error)
{
  if (!kernel_precheck(TR_OP_ZEROS_LIKE, in, n_in, attrs, out, error))
    return false;
  int64_t n = tr_tensor_num_elements(out);
  if (n == 0)
    return true;
  if (out->dtype == TR_STRING) {
    TrString *dst = tr_tensor_data(out);
    for (int64_t i = 0; i < n; i++)
      tr_string_set(&dst[i], "", 0);
    return true;
  }
  memset(tr_tensor_data(out), 0, (size_t)n * tr_dtype_size(out->dtype));
  return true;
}

static bool
infer_ones_like(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,
                TrShape *shape, GError **error)
{
  *dtype = in[0].dtype;
  *shape = in[0].shape;
  return tr_check_dtype_allowed(in[0].dtype, NUMERIC_OR_BOOL_DTYPES, "T", op_type(TR_OP_ONES_LIKE),
                                error);
}

static bool
kernel_ones_like(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  if (!kernel_precheck(TR_OP_ONES_LIKE, in, n_in, attrs, out, error))
    return false;
  int64_t n = tr_tensor_num_elements(out);
  if (n == 0)
    return true;
  char *data = tr_tensor_data(out);
  tr_store_number(data, out->dtype, 0, 1);
  tr_splat_first(data, tr_dtype_size(out->dtype), n);
  return true;
}

/* ---- random: Philox-4x32-10 ------------------------------------------------------------- */

#define PHILOX_M0 UINT32_C(0xD2511F53)
#define PHILOX_M1 UINT32_C(0xCD9E8D57)
#define PHILOX_W0 UINT32_C(0x9E3779B9) /* key increments: the golden ratio and sqrt(3) - 1 */
#define PHILOX_W1 UINT32_C(0xBB67AE85)

/* One random stream: a Philox key and the high half of its counter. */
typedef struct {
  uint32_t key[2];     /* from seed and seed2 */
  uint64_t generation; /* attrs.counter: which draw of this seed pair */
} Philox;

/* SplitMix64's output mix (a bijection with mix(0) = 0), to spread seed2 over the key. */
static uint64_t
mix64(uint64_t z)
{
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

static Philox
philox_init(const TrAttrs *attrs)
{
  uint64_t key = attrs->seed ^ mix64(attrs->seed2);
  return (Philox){.key = {(uint32_t)key, (uint32_t)(key >> 32)}, .generation = attrs->counter};
}

/* Block `block` of the stream: four 32-bit words. */
static void
philox_block(const Philox *p, uint64_t block, uint32_t out[4])
{
  uint32_t c[4] = {(uint32_t)block, (uint32_t)(block >> 32), (uint32_t)p->generation,
                   (uint32_t)(p->generation >> 32)};
  uint32_t k0 = p->key[0], k1 = p->key[1];
  for (int round = 0; round < 10; round++) {
    if (round > 0) {
      k0 += PHILOX_W0;
      k1 += PHILOX_W1;
    }
    uint64_t p0 = (uint64_t)PHILOX_M0 * c[0], p1 = (uint64_t)PHILOX_M1 * c[2];
    uint32_t c1 = c[1], c3 = c[3];
    c[0] = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
    c[1] = (uint32_t)p1;
    c[2] = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
    c[3] = (uint32_t)p0;
  }
  memcpy(out, c, sizeof c);
}

static uint64_t
words64(const uint32_t *w)
{
  return (uint64_t)w[1] << 32 | w[0];
}

/* Uniform in [0, 1) with 24 bits (float) or 53 bits (double). */
static float
unit_f32(uint32_t w)
{
  return (float)(w >> 8) * 0x1p-24f;
}

static double
unit_f64(uint64_t w)
{
  return (double)(w >> 11) * 0x1p-53;
}

/* Values per Philox block for each output kind. */
enum { LANES_32 = 4, LANES_64 = 2 };

/* Writes elements i .. i + count - 1 (count <= the kind's lanes) from one block's words. */
typedef void (*BlockFunc)(const uint32_t *w, int64_t i, int count, void *out, const TrAttrs *attrs);

static void
philox_fill(const TrAttrs *attrs, int lanes, BlockFunc block, int64_t n, void *out)
{
  Philox p = philox_init(attrs);
  uint32_t w[4];
  for (int64_t i = 0; i < n; i += lanes) {
    philox_block(&p, (uint64_t)(i / lanes), w);
    block(w, i, (int)MIN(lanes, n - i), out, attrs);
  }
}

/* minval + (maxval - minval) * u, kept below maxval when rounding would reach it. */
static double
scale_uniform(double u, const TrAttrs *attrs)
{
  double lo = attrs->minval, hi = attrs->maxval, v = lo + (hi - lo) * u;
  return lo < hi && v >= hi ? nextafter(hi, -INFINITY) : v;
}

static float
scale_uniform_f32(double u, const TrAttrs *attrs)
{
  float f = (float)scale_uniform(u, attrs), hi = (float)attrs->maxval;
  return attrs->minval < attrs->maxval && f >= hi ? nextafterf(hi, -INFINITY) : f;
}

static void
block_uniform_f32(const uint32_t *w, int64_t i, int count, void *out, const TrAttrs *attrs)
{
  for (int k = 0; k < count; k++)
    ((float *)out)[i + k] = scale_uniform_f32(unit_f32(w[k]), attrs);
}

static void
block_uniform_f64(const uint32_t *w, int64_t i, int count, void *out, const TrAttrs *attrs)
{
  for (int k = 0; k < count; k++)
    ((double *)out)[i + k] = scale_uniform(unit_f64(words64(w + 2 * k)), attrs);
}

/* An integer in [minval, maxval): the high half of r * range (Lemire's multiply-shift; its bias
 * is below range / 2^64). */
static int64_t
uniform_int(uint64_t r, const TrAttrs *attrs)
{
  int64_t lo = (int64_t)attrs->minval, hi = (int64_t)attrs->maxval;
  uint64_t range = (uint64_t)hi - (uint64_t)lo;
  return (int64_t)((uint64_t)lo + (uint64_t)(((unsigned __int128)r * range) >> 64));
}

static void
block_uniform_i32(const uint32_t *w, int64_t i, int count, void *out, const TrAttrs *attrs)
{
  for (int k = 0; k < count; k++)
    ((int32_t *)out)[i + k] = (int32_t)uniform_int(words64(w + 2 * k), attrs);
}

static void
block_uniform_i64(const uint32_t *w, int64_t i, int count, void *out, const TrAttrs *attrs)
{
  for (int k = 0; k < count; k++)
    ((int64_t *)out)[i + k] = uniform_int(words64(w + 2 * k), attrs);
}

/* Box–Muller: u1 in (0, 1] and u2 in [0, 1) give two independent standard normals. */
static void
box_muller(double u1, double u2, double z[2])
{
  double r = sqrt(-2.0 * log(u1)), theta = 2.0 * G_PI * u2;
  z[0] = r * cos(theta);
  z[1] = r * sin(theta);
}

/* The same in single precision, plenty for a float32 result. u1 has 24 bits and is never 0,
 * so |z| <= 5.8: a tail cut where the normal has 7e-9 of its mass. */
static void
block_normal_f32(const uint32_t *w, int64_t i, int count, void *out, const TrAttrs *attrs)
{
  float mean = (float)attrs->minval, stddev = (float)attrs->maxval;
  for (int pair = 0; pair < 2 && 2 * pair < count; pair++) {
    float u1 = ((float)(w[2 * pair] >> 8) + 1.0f) * 0x1p-24f;
    float theta = (float)(2.0 * G_PI) * ((float)(w[2 * pair + 1] >> 8) * 0x1p-24f);
    float r = sqrtf(-2.0f * logf(u1));
    float z[2] = {r * cosf(theta), r * sinf(theta)};
    for (int k = 0; k < 2 && 2 * pair + k < count; k++)
      ((float *)out)[i + 2 * pair + k] = mean + stddev * z[k];
  }
}

static void
block_normal_f64(const uint32_t *w, int64_t i, int count, void *out, const TrAttrs *attrs)
{
  double z[2];
  box_muller(unit_f64(words64(w)) + 0x1p-53, unit_f64(words64(w + 2)), z);
  for (int k = 0; k < count; k++)
    ((double *)out)[i + k] = attrs->minval + attrs->maxval * z[k];
}

/* ---- RandomUniform, RandomStandardNormal ------------------------------------------------ */

static bool
infer_random(TrOpId op, unsigned allowed, const TrTensorInfo *in, const TrAttrs *attrs,
             TrDType *dtype, TrShape *shape, GError **error)
{
  const char *type = op_type(op);
  *dtype = dtype_or_float32(attrs->dtype);
  if (!tr_check_dtype_allowed(*dtype, allowed, "dtype", type, error))
    return false;
  if (op == TR_OP_RANDOM_UNIFORM && tr_dtype_is_int(*dtype) &&
      !((int64_t)attrs->minval < (int64_t)attrs->maxval)) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                    "Need minval < maxval: %" G_GINT64_FORMAT " >= %" G_GINT64_FORMAT,
                    (int64_t)attrs->minval, (int64_t)attrs->maxval);
    return false;
  }
  return shape_from_input(&in[0], "T", "shape must be a vector of {int32,int64}, got shape ", type,
                          shape, error);
}

static bool
infer_random_uniform(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,
                     TrShape *shape, GError **error)
{
  return infer_random(TR_OP_RANDOM_UNIFORM, NUMERIC_DTYPES, in, attrs, dtype, shape, error);
}

static bool
infer_random_normal(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,
                    TrShape *shape, GError **error)
{
  return infer_random(TR_OP_RANDOM_NORMAL, FLOAT_DTYPES, in, attrs, dtype, shape, error);
}

static bool
kernel_random_uniform(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out,
                      GError **error)
{
  if (!kernel_precheck(TR_OP_RANDOM_UNIFORM, in, n_in, attrs, out, error))
    return false;
  int64_t n = tr_tensor_num_elements(out);
  void *data = tr_tensor_data(out);
  switch (out->dtype) {
    case TR_FLOAT32:
      philox_fill(attrs, LANES_32, block_uniform_f32, n, data);
      break;
    case TR_FLOAT64:
      philox_fill(attrs, LANES_64, block_uniform_f64, n, data);
      break;
    case TR_INT32:
      philox_fill(attrs, LANES_64, block_uniform_i32, n, data);
      break;
    case TR_INT64:
      philox_fill(attrs, LANES_64, block_uniform_i64, n, data);
      break;
    default:
      g_assert_not_reached();
  }
  return true;
}

static bool
kernel_random_normal(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out,
                     GError **error)
{
  if (!kernel_precheck(TR_OP_RANDOM_NORMAL, in, n_in, attrs, out, error))
    return false;
  int64_t n = tr_tensor_num_elements(out);
  void *data = tr_tensor_data(out);
  if (out->dtype == TR_FLOAT32)
    philox_fill(attrs, LANES_32, block_normal_f32, n, data);
  else
    philox_fill(attrs, LANES_64, block_normal_f64, n, data);
  return true;
}

/* ---- registration ----------------------------------------------------------------------- */

void
tr_ops_register_create(TrOpDef *defs)
{
  defs[TR_OP_RANGE] =
      (TrOpDef){.name = "range", .n_inputs = 3, .infer = infer_range, .kernel = kernel_range};
  defs[TR_OP_FILL] =
      (TrOpDef){.name = "Fill", .n_inputs = 2, .infer = infer_fill, .kernel = kernel_fill};
  defs[TR_OP_EYE] =
      (TrOpDef){.name = "eye", .n_inputs = 0, .infer = infer_eye, .kernel = kernel_eye};
  defs[TR_OP_LINSPACE] = (TrOpDef){
      .name = "LinSpace", .n_inputs = 3, .infer = infer_linspace, .kernel = kernel_linspace};
  defs[TR_OP_ZEROS_LIKE] = (TrOpDef){
      .name = "zeros_like", .n_inputs = 1, .infer = infer_zeros_like, .kernel = kernel_zeros_like};
  defs[TR_OP_ONES_LIKE] = (TrOpDef){
      .name = "ones_like", .n_inputs = 1, .infer = infer_ones_like, .kernel = kernel_ones_like};
  defs[TR_OP_RANDOM_UNIFORM] = (TrOpDef){.name = "random_uniform",
                                         .n_inputs = 1,
                                         .flags = TR_OP_FLAG_STATEFUL,
                                         .infer = infer_random_uniform,
                                         .kernel = kernel_random_uniform};
  defs[TR_OP_RANDOM_NORMAL] = (TrOpDef){.name = "random_normal",
                                        .n_inputs = 1,
                                        .flags = TR_OP_FLAG_STATEFUL,
                                        .infer = infer_random_normal,
                                        .kernel = kernel_random_normal};
  /* tf.random.stateless_*: the same streams, one per seed pair, drawn anew by every run (not
   * stateful: a graph's run does not advance them) */
  defs[TR_OP_STATELESS_RANDOM_UNIFORM] = (TrOpDef){.name = "stateless_random_uniform",
                                                   .n_inputs = 1,
                                                   .infer = infer_random_uniform,
                                                   .kernel = kernel_random_uniform};
  defs[TR_OP_STATELESS_RANDOM_NORMAL] = (TrOpDef){.name = "stateless_random_normal",
                                                  .n_inputs = 1,
                                                  .infer = infer_random_normal,
                                                  .kernel = kernel_random_normal};
}

/* ---- wrappers --------------------------------------------------------------------------- */

/* A 1-D int64 tensor of a shape's dims (unknown dims stay -1, which the ops reject). */
static TrTensor *
dims_tensor(const TrShape *shape)
{
  TrShape vec = tr_shape_make(1, (int64_t[]){shape->rank});
  return tr_tensor_new_from_data(TR_INT64, &vec, shape->dims);
}

TrTensor *
tr_range(TrTensor *start, TrTensor *limit, TrTensor *delta, GError **error)
{
  g_return_val_if_fail(start != NULL && limit != NULL && delta != NULL, NULL);
  TrTensor *in[3] = {start, limit, delta};
  return tr_op_run(TR_OP_RANGE, in, 3, NULL, error);
}

TrTensor *
tr_fill(const TrShape *shape, TrTensor *value, GError **error)
{
  g_return_val_if_fail(shape != NULL && shape->rank >= 0 && value != NULL, NULL);
  g_autoptr(TrTensor) dims = dims_tensor(shape);
  TrTensor *in[2] = {dims, value};
  return tr_op_run(TR_OP_FILL, in, 2, NULL, error);
}

TrTensor *
tr_eye(int64_t num_rows, int64_t num_columns, TrDType dtype, GError **error)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.num_rows = num_rows;
  attrs.num_columns = num_columns;
  attrs.dtype = dtype;
  return tr_op_run(TR_OP_EYE, NULL, 0, &attrs, error);
}

TrTensor *
tr_linspace(TrTensor *start, TrTensor *stop, TrTensor *num, GError **error)
{
  g_return_val_if_fail(start != NULL && stop != NULL && num != NULL, NULL);
  TrTensor *in[3] = {start, stop, num};
  return tr_op_run(TR_OP_LINSPACE, in, 3, NULL, error);
}

static TrTensor *
random_run(TrOpId op, const TrShape *shape, TrDType dtype, double a, double b, uint64_t seed,
           uint64_t seed2, uint64_t counter, GError **error)
{
  g_return_val_if_fail(shape != NULL && shape->rank >= 0, NULL);
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.dtype = dtype;
  attrs.minval = a;
  attrs.maxval = b;
  attrs.seed = seed;
  attrs.seed2 = seed2;
  attrs.counter = counter;
  g_autoptr(TrTensor) dims = dims_tensor(shape);
  return tr_op_run(op, &dims, 1, &attrs, error);
}

TrTensor *
tr_random_uniform(const TrShape *shape, TrDType dtype, double minval, double maxval, uint64_t seed,
                  uint64_t seed2, uint64_t counter, GError **error)
{
  return random_run(TR_OP_RANDOM_UNIFORM, shape, dtype, minval, maxval, seed, seed2, counter,
                    error);
}

TrTensor *
tr_random_normal(const TrShape *shape, TrDType dtype, double mean, double stddev, uint64_t seed,
                 uint64_t seed2, uint64_t counter, GError **error)
{
  return random_run(TR_OP_RANDOM_NORMAL, shape, dtype, mean, stddev, seed, seed2, counter, error);
}
