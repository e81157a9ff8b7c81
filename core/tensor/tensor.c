/* tensor.c — dtypes, shapes, buffers and tensor objects; the shared helpers of the op files. */
#include "tr-tensor-private.h"

#include <complex.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- dtypes ---------------------------------------------------------------------------- */

typedef struct {
  const char *name;    /* Python-visible name */
  const char *tf_name; /* TF DataTypeString */
  const char *np_name; /* NumPy name */
  size_t size;         /* bytes per element */
} DTypeInfo;

static const DTypeInfo dtype_info[] = {
#define TR_DTYPE_ROW(id, py, tf, np, sz) [TR_##id] = {py, tf, np, sz},
    TR_DTYPE_LIST(TR_DTYPE_ROW)
#undef TR_DTYPE_ROW
};
G_STATIC_ASSERT(G_N_ELEMENTS(dtype_info) == TR_N_DTYPES);

/* Variants are outside the table (see TR_VARIANT): NumPy would hold them as objects. */
static const DTypeInfo variant_info = {"variant", "variant", "object", sizeof(TrVariant *)};

static const DTypeInfo *
dtype_get(TrDType dtype)
{
  if (dtype == TR_VARIANT)
    return &variant_info;
  g_return_val_if_fail(dtype >= 0 && dtype < TR_N_DTYPES, &dtype_info[0]);
  return &dtype_info[dtype];
}

const char *
tr_dtype_name(TrDType dtype)
{
  return dtype_get(dtype)->name;
}

const char *
tr_dtype_tf_name(TrDType dtype)
{
  return dtype_get(dtype)->tf_name;
}

const char *
tr_dtype_np_name(TrDType dtype)
{
  return dtype_get(dtype)->np_name;
}

size_t
tr_dtype_size(TrDType dtype)
{
  return dtype_get(dtype)->size;
}

TrDType
tr_dtype_from_name(const char *name)
{
  for (int i = 0; i < TR_N_DTYPES; i++)
    if (strcmp(name, dtype_info[i].name) == 0 || strcmp(name, dtype_info[i].tf_name) == 0)
      return (TrDType)i;
  return TR_DTYPE_INVALID;
}

bool
tr_dtype_is_float(TrDType dtype)
{
  return dtype == TR_FLOAT32 || dtype == TR_FLOAT64 || dtype == TR_FLOAT16 || dtype == TR_BFLOAT16;
}

bool
tr_dtype_is_unsigned(TrDType dtype)
{
  return dtype == TR_UINT8 || dtype == TR_UINT16 || dtype == TR_UINT32 || dtype == TR_UINT64;
}

bool
tr_dtype_is_int(TrDType dtype)
{
  return dtype == TR_INT32 || dtype == TR_INT64 || dtype == TR_INT8 || dtype == TR_INT16 ||
         tr_dtype_is_unsigned(dtype);
}

bool
tr_dtype_is_complex(TrDType dtype)
{
  return dtype == TR_COMPLEX64 || dtype == TR_COMPLEX128;
}

bool
tr_dtype_is_numeric(TrDType dtype)
{
  return tr_dtype_is_float(dtype) || tr_dtype_is_int(dtype);
}

TrDType
tr_dtype_real(TrDType dtype)
{
  return dtype == TR_COMPLEX64 ? TR_FLOAT32 : dtype == TR_COMPLEX128 ? TR_FLOAT64 : dtype;
}

/* TensorFlow's types.proto numbers. */
static const int dtype_enums[TR_N_DTYPES] = {
    [TR_FLOAT32] = 1,     [TR_FLOAT64] = 2,  [TR_INT32] = 3,     [TR_UINT8] = 4,
    [TR_INT16] = 5,       [TR_INT8] = 6,     [TR_STRING] = 7,    [TR_COMPLEX64] = 8,
    [TR_INT64] = 9,       [TR_BOOL] = 10,    [TR_BFLOAT16] = 14, [TR_UINT16] = 17,
    [TR_COMPLEX128] = 18, [TR_FLOAT16] = 19, [TR_UINT32] = 22,   [TR_UINT64] = 23,
};

int
tr_dtype_enum(TrDType dtype)
{
  if (dtype == TR_VARIANT)
    return 21;
  g_return_val_if_fail(dtype >= 0 && dtype < TR_N_DTYPES, 0);
  return dtype_enums[dtype];
}

/* ---- shapes ---------------------------------------------------------------------------- */

TrShape
tr_shape_make(int rank, const int64_t *dims)
{
  TrShape s = {.rank = rank};
  g_return_val_if_fail(rank >= TR_UNKNOWN && rank <= TR_MAX_RANK, s);
  for (int i = 0; i < rank; i++)
    s.dims[i] = dims[i];
  return s;
}

TrShape
tr_shape_scalar(void)
{
  return (TrShape){.rank = 0};
}

TrShape
tr_shape_unknown(void)
{
  return (TrShape){.rank = TR_UNKNOWN};
}

bool
tr_shape_is_fully_defined(const TrShape *shape)
{
  if (shape->rank == TR_UNKNOWN)
    return false;
  for (int i = 0; i < shape->rank; i++)
    if (shape->dims[i] < 0)
      return false;
  return true;
}

int64_t
tr_shape_num_elements(const TrShape *shape)
{
  if (!tr_shape_is_fully_defined(shape))
    return TR_UNKNOWN;
  int64_t n = 1;
  bool overflow = false;
  for (int i = 0; i < shape->rank; i++) {
    if (shape->dims[i] == 0)
      return 0;
    overflow |= n > G_MAXINT64 / shape->dims[i];
    n = overflow ? G_MAXINT64 : n * shape->dims[i];
  }
  return n;
}

bool
tr_shape_equal(const TrShape *a, const TrShape *b)
{
  if (a->rank != b->rank)
    return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i])
      return false;
  return true;
}

TrShape
tr_shape_most_specific_compatible(const TrShape *a, const TrShape *b)
{
  if (a->rank == TR_UNKNOWN || b->rank == TR_UNKNOWN || a->rank != b->rank)
    return tr_shape_unknown();
  TrShape s = *a;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i])
      s.dims[i] = TR_UNKNOWN;
  return s;
}

bool
tr_shape_is_compatible_with(const TrShape *pattern, const TrShape *b)
{
  if (pattern->rank == TR_UNKNOWN)
    return true;
  if (pattern->rank != b->rank)
    return false;
  for (int i = 0; i < b->rank; i++)
    if (pattern->dims[i] != TR_UNKNOWN && pattern->dims[i] != b->dims[i])
      return false;
  return true;
}

char *
tr_shape_to_string(const TrShape *shape)
{
  if (shape->rank == TR_UNKNOWN)
    return g_strdup("<unknown>");
  GString *s = g_string_new("(");
  for (int i = 0; i < shape->rank; i++) {
    if (i > 0)
      g_string_append(s, ", ");
    if (shape->dims[i] < 0)
      g_string_append(s, "None");
    else
      g_string_append_printf(s, "%" G_GINT64_FORMAT, shape->dims[i]);
  }
  if (shape->rank == 1)
    g_string_append_c(s, ',');
  g_string_append_c(s, ')');
  return g_string_free(s, FALSE);
}

char *
tr_shape_to_error_string(const TrShape *shape)
{
  if (shape->rank == TR_UNKNOWN)
    return g_strdup("<unknown>");
  GString *s = g_string_new("[");
  for (int i = 0; i < shape->rank; i++) {
    if (i > 0)
      g_string_append_c(s, ',');
    if (shape->dims[i] < 0)
      g_string_append_c(s, '?');
    else
      g_string_append_printf(s, "%" G_GINT64_FORMAT, shape->dims[i]);
  }
  g_string_append_c(s, ']');
  return g_string_free(s, FALSE);
}

void
tr_shape_contiguous_strides(const TrShape *shape, int64_t *strides)
{
  int64_t stride = 1;
  for (int i = shape->rank - 1; i >= 0; i--) {
    strides[i] = stride;
    stride *= shape->dims[i] > 0 ? shape->dims[i] : 1;
  }
}

/* ---- errors ---------------------------------------------------------------------------- */

G_DEFINE_QUARK(trellis-tensor-error-quark, tr_error);

const volatile sig_atomic_t *tr_cancel_flag;

void
tr_set_cancel_flag(const volatile sig_atomic_t *flag)
{
  tr_cancel_flag = flag;
}

void
tr_set_cancelled(GError **error, const char *op_type)
{
  tr_set_op_error(error, TR_ERROR_CANCELLED, op_type, "%s was interrupted", op_type);
}

void
tr_set_op_error(GError **error, TrErrorCode code, const char *op_type, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  if (op_type)
    g_set_error(error, TR_ERROR, code, "%s [Op:%s]", msg, op_type);
  else
    g_set_error_literal(error, TR_ERROR, code, msg);
}

void
tr_set_dtype_mismatch(GError **error, const char *op_type, int input_index, TrDType expected,
                      TrDType got)
{
  tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, op_type,
                  "cannot compute %s as input #%d(zero-based) was expected to be a %s tensor but "
                  "is a %s tensor",
                  op_type, input_index, tr_dtype_tf_name(expected), tr_dtype_tf_name(got));
}

char *
tr_dt_list(const char *allowed)
{
  GString *s = g_string_new(NULL);
  bool at_start = true;
  for (const char *p = allowed; *p; p++) {
    if (at_start && *p != ' ' && *p != ',')
      g_string_append(s, "DT_");
    g_string_append_c(s, g_ascii_toupper(*p));
    at_start = *p == ' ';
  }
  return g_string_free(s, FALSE);
}

void
tr_set_attr_error(GError **error, const char *op_type, const TrTypeRule *rule, TrDType got)
{
  g_autofree char *dts = tr_dt_list(rule->allowed);
  g_autoptr(GString) summary = g_string_new(rule->summary);
  g_string_replace(summary, "@", dts, 1);
  tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, op_type,
                  "Value for attr '%s' of %s is not in the list of allowed values: %s\n"
                  "\t; NodeDef: {{node %s}}; Op<name=%s; %s>",
                  rule->attr, tr_dtype_tf_name(got), rule->allowed, op_type, op_type, summary->str);
}

bool
tr_rule_allows(const TrTypeRule *rule, TrDType dtype)
{
  if (!rule || !rule->allowed)
    return true;
  const char *name = tr_dtype_tf_name(dtype);
  size_t len = strlen(name);
  for (const char *p = rule->allowed; (p = strstr(p, name)); p += len) {
    bool starts = p == rule->allowed || p[-1] == ' ';
    bool ends = p[len] == '\0' || p[len] == ',';
    if (starts && ends)
      return true;
  }
  return false;
}

void
tr_set_no_kernel_error(GError **error, const char *op_type, unsigned kernels, TrDType got)
{
  g_autoptr(GString) list = g_string_new(NULL);
  for (int d = 0; d < TR_N_DTYPES; d++) {
    if (!(kernels & TR_DTYPE_BIT(d)))
      continue;
    g_autofree char *dt = tr_dt_list(tr_dtype_tf_name(d));
    g_string_append_printf(list, "  device='CPU'; T in [%s]\n", dt);
  }
  g_autofree char *want = tr_dt_list(tr_dtype_tf_name(got));
  tr_set_op_error(error, TR_ERROR_NOT_FOUND, op_type,
                  "Could not find device for node: {{node %s}} = %s[T=%s]\n"
                  "All kernels registered for op %s:\n%s",
                  op_type, op_type, want, op_type, list->str);
}

bool
tr_check_dtype_allowed(TrDType dtype, unsigned allowed, const char *attr, const char *type,
                       GError **error)
{
  if (dtype >= 0 && dtype < TR_N_DTYPES && (allowed & TR_DTYPE_BIT(dtype)))
    return true;
  g_autoptr(GString) list = g_string_new(NULL);
  for (int d = 0; d < TR_N_DTYPES; d++)
    if (allowed & TR_DTYPE_BIT(d))
      g_string_append_printf(list, "%s%s", list->len ? ", " : "", tr_dtype_tf_name((TrDType)d));
  tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                  "Value for attr '%s' of %s is not in the list of allowed values: %s", attr,
                  dtype >= 0 && dtype < TR_N_DTYPES ? tr_dtype_tf_name(dtype) : "invalid",
                  list->str);
  return false;
}

bool
tr_broadcast_shapes(const TrShape *a, const TrShape *b, TrShape *out, const char *op_type,
                    GError **error)
{
  if (a->rank == TR_UNKNOWN || b->rank == TR_UNKNOWN) {
    *out = tr_shape_unknown();
    return true;
  }
  int rank = MAX(a->rank, b->rank);
  out->rank = rank;
  for (int i = 0; i < rank; i++) {
    int ia = a->rank - rank + i, ib = b->rank - rank + i;
    int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
    if (da == db || db == 1)
      out->dims[i] = da;
    else if (da == 1)
      out->dims[i] = db;
    else if (da == TR_UNKNOWN || db == TR_UNKNOWN)
      out->dims[i] = da == TR_UNKNOWN ? db : da;
    else {
      g_autofree char *sa = tr_shape_to_error_string(a);
      g_autofree char *sb = tr_shape_to_error_string(b);
      tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, op_type, "Incompatible shapes: %s vs. %s",
                      sa, sb);
      return false;
    }
  }
  return true;
}

void
tr_broadcast_strides(const TrTensor *t, const TrShape *out, int64_t *strides)
{
  int shift = out->rank - t->shape.rank;
  for (int i = 0; i < out->rank; i++) {
    int it = i - shift;
    strides[i] = (it < 0 || t->shape.dims[it] == 1) ? 0 : t->strides[it];
  }
}

bool
tr_axis_normalize(int64_t axis, int rank, int64_t *out)
{
  if (axis < -rank || axis >= rank)
    return false;
  *out = axis < 0 ? axis + rank : axis;
  return true;
}

void
tr_nd_iter_init(TrNdIter *it, const TrShape *shape, int n_operands, const int64_t *offsets,
                int64_t (*strides)[TR_MAX_RANK])
{
  g_assert(n_operands >= 1 && n_operands <= 4);
  it->rank = shape->rank;
  it->n_operands = n_operands;
  for (int d = 0; d < shape->rank; d++) {
    it->dims[d] = shape->dims[d];
    it->index[d] = 0;
  }
  for (int k = 0; k < n_operands; k++) {
    it->pos[k] = offsets[k];
    for (int d = 0; d < shape->rank; d++)
      it->strides[k][d] = strides[k][d];
  }
}

void
tr_store_number(void *data, TrDType dtype, int64_t i, double v)
{
  switch (dtype) {
    case TR_FLOAT32:
      ((float *)data)[i] = (float)v;
      break;
    case TR_FLOAT64:
      ((double *)data)[i] = v;
      break;
    case TR_INT32:
      ((int32_t *)data)[i] = (int32_t)v;
      break;
    case TR_INT64:
      ((int64_t *)data)[i] = (int64_t)v;
      break;
    case TR_BOOL:
      ((bool *)data)[i] = v != 0;
      break;
    case TR_FLOAT16:
      ((TrHalf *)data)[i] = tr_half_from_float((float)v);
      break;
    case TR_BFLOAT16:
      ((TrBFloat16 *)data)[i] = tr_bfloat16_from_float((float)v);
      break;
    /* the values stored here (one_hot's, eye's ones) fit every integer type */
    case TR_INT8:
      ((int8_t *)data)[i] = (int8_t)v;
      break;
    case TR_INT16:
      ((int16_t *)data)[i] = (int16_t)v;
      break;
    case TR_UINT8:
      ((uint8_t *)data)[i] = (uint8_t)v;
      break;
    case TR_UINT16:
      ((uint16_t *)data)[i] = (uint16_t)v;
      break;
    case TR_UINT32:
      ((uint32_t *)data)[i] = (uint32_t)v;
      break;
    case TR_UINT64:
      ((uint64_t *)data)[i] = (uint64_t)v;
      break;
    case TR_COMPLEX64:
      ((float _Complex *)data)[i] = (float)v;
      break;
    case TR_COMPLEX128:
      ((double _Complex *)data)[i] = v;
      break;
    default:
      g_assert_not_reached();
  }
}

void
tr_splat_first(char *data, size_t size, int64_t n)
{
  for (int64_t done = 1; done < n;) {
    int64_t chunk = MIN(done, n - done);
    memcpy(data + done * (int64_t)size, data, (size_t)chunk * size);
    done += chunk;
  }
}

/* ---- variants -------------------------------------------------------------------------- */

void
tr_variant_init(TrVariant *v, const TrVariantClass *klass)
{
  g_return_if_fail(v && klass && klass->finalize);
  v->refcount = 1;
  v->klass = klass;
}

TrVariant *
tr_variant_ref(TrVariant *v)
{
  g_return_val_if_fail(v != NULL, NULL);
  g_atomic_int_inc(&v->refcount);
  return v;
}

void
tr_variant_unref(TrVariant *v)
{
  if (v && g_atomic_int_dec_and_test(&v->refcount))
    v->klass->finalize(v);
}

TrTensor *
tr_tensor_new_variant(TrVariant *v)
{
  g_return_val_if_fail(v != NULL, NULL);
  TrShape scalar = tr_shape_scalar();
  TrTensor *t = tr_tensor_new(TR_VARIANT, &scalar);
  *(TrVariant **)t->buf->data = tr_variant_ref(v);
  return t;
}

TrVariant *
tr_tensor_get_variant(const TrTensor *t, const TrVariantClass *klass)
{
  if (!t || t->dtype != TR_VARIANT || t->shape.rank != 0)
    return NULL;
  TrVariant *v = ((TrVariant **)t->buf->data)[t->offset];
  return v && (!klass || v->klass == klass) ? v : NULL;
}

/* ---- buffers --------------------------------------------------------------------------- */

void
tr_string_set(TrString *dst, const char *data, size_t len)
{
  g_free(dst->data);
  dst->data = g_malloc(len + 1);
  if (len)
    memcpy(dst->data, data, len);
  dst->data[len] = '\0';
  dst->len = len;
}

/* The buffer header and its elements share one 64-byte aligned block: one allocation per
 * tensor buffer, which matters for the many small tensors of eager code. */
#define BUFFER_HEADER_SIZE ((sizeof(TrBuffer) + 63) & ~(size_t)63)

TrBuffer *
tr_buffer_new_uninit(TrDType dtype, int64_t n_elems)
{
  g_return_val_if_fail(n_elems >= 0, NULL);
  size_t bytes = (size_t)n_elems * tr_dtype_size(dtype);
  size_t total = (BUFFER_HEADER_SIZE + bytes + 63) & ~(size_t)63;
  if (n_elems > (int64_t)(G_MAXSSIZE / 2 / (gssize)tr_dtype_size(dtype)))
    return NULL;
  TrBuffer *buf = aligned_alloc(64, total);
  if (!buf)
    return NULL;
  buf->refcount = 1;
  buf->dtype = dtype;
  buf->n_elems = n_elems;
  buf->data = n_elems > 0 ? (char *)buf + BUFFER_HEADER_SIZE : NULL;
  if ((dtype == TR_STRING || dtype == TR_VARIANT) && bytes)
    memset(buf->data, 0, bytes);
  return buf;
}

TrBuffer *
tr_buffer_new(TrDType dtype, int64_t n_elems)
{
  TrBuffer *buf = tr_buffer_new_uninit(dtype, n_elems);
  if (!buf)
    return NULL;
  if (buf->data && dtype != TR_STRING && dtype != TR_VARIANT)
    memset(buf->data, 0, (size_t)n_elems * tr_dtype_size(dtype));
  return buf;
}

TrBuffer *
tr_buffer_ref(TrBuffer *buf)
{
  g_atomic_int_inc(&buf->refcount);
  return buf;
}

void
tr_buffer_unref(TrBuffer *buf)
{
  if (!buf || !g_atomic_int_dec_and_test(&buf->refcount))
    return;
  if (buf->dtype == TR_STRING) {
    TrString *s = buf->data;
    for (int64_t i = 0; i < buf->n_elems; i++)
      g_free(s[i].data);
  }
  if (buf->dtype == TR_VARIANT) {
    TrVariant **v = buf->data;
    for (int64_t i = 0; i < buf->n_elems; i++)
      tr_variant_unref(v[i]);
  }
  free(buf);
}

/* ---- copying (any strides to any strides)
 * ---------------------------------------------------------------------------- */

/* Copy n elements from src (every ss elements) to dst (every ds elements). */
static void
copy_run(char *dst, int64_t ds, const char *src, int64_t ss, int64_t n, TrDType dtype)
{
  if (dtype == TR_STRING) {
    TrString *d = (TrString *)dst;
    const TrString *s = (const TrString *)src;
    for (int64_t i = 0; i < n; i++)
      tr_string_set(&d[i * ds], s[i * ss].data, s[i * ss].len);
    return;
  }
  if (dtype == TR_VARIANT) {
    TrVariant **d = (TrVariant **)dst;
    TrVariant *const *s = (TrVariant *const *)src;
    for (int64_t i = 0; i < n; i++) {
      TrVariant *old = d[i * ds];
      d[i * ds] = s[i * ss] ? tr_variant_ref(s[i * ss]) : NULL;
      tr_variant_unref(old);
    }
    return;
  }
  size_t size = tr_dtype_size(dtype);
  if (ds == 1 && ss == 1) {
    memcpy(dst, src, (size_t)n * size);
    return;
  }
#define STRIDED_COPY(ctype)                                                                        \
  {                                                                                                \
    for (int64_t i = 0; i < n; i++)                                                                \
      ((ctype *)dst)[i * ds] = ((const ctype *)src)[i * ss];                                       \
    return;                                                                                        \
  }
  switch (size) {
    case 1:
      STRIDED_COPY(uint8_t)
    case 4:
      STRIDED_COPY(uint32_t)
    case 8:
      STRIDED_COPY(uint64_t)
    default:
      for (int64_t i = 0; i < n; i++)
        memcpy(dst + i * ds * (int64_t)size, src + i * ss * (int64_t)size, size);
  }
#undef STRIDED_COPY
}

/* A shape walked by two operands, with size-1 dims dropped and mergeable dims merged. */
typedef struct {
  int rank;                        /* dims left */
  int64_t dims[TR_MAX_RANK];       /* their sizes */
  int64_t strides[2][TR_MAX_RANK]; /* per operand */
} Layout2;

static void
layout2_init(Layout2 *l, const TrShape *shape, const int64_t *s0, const int64_t *s1)
{
  l->rank = 0;
  for (int d = 0; d < shape->rank; d++) {
    int64_t n = shape->dims[d];
    if (n == 1)
      continue;
    int r = l->rank;
    if (r > 0 && l->strides[0][r - 1] == s0[d] * n && l->strides[1][r - 1] == s1[d] * n) {
      l->dims[r - 1] *= n;
      l->strides[0][r - 1] = s0[d];
      l->strides[1][r - 1] = s1[d];
      continue;
    }
    l->dims[r] = n;
    l->strides[0][r] = s0[d];
    l->strides[1][r] = s1[d];
    l->rank++;
  }
}

/* Copy a rows x cols block that one side stores transposed: in square tiles, so that both
 * sides stay in cache. */
static void
copy_tiled(char *dst, const int64_t *ds, const char *src, const int64_t *ss, int64_t rows,
           int64_t cols, TrDType dtype)
{
  enum { TILE = 32 };
  int64_t size = (int64_t)tr_dtype_size(dtype);
  for (int64_t r0 = 0; r0 < rows; r0 += TILE) {
    for (int64_t c0 = 0; c0 < cols; c0 += TILE) {
      int64_t r1 = MIN(rows, r0 + TILE), n = MIN(cols, c0 + TILE) - c0;
      for (int64_t r = r0; r < r1; r++)
        copy_run(dst + (r * ds[0] + c0 * ds[1]) * size, ds[1],
                 src + (r * ss[0] + c0 * ss[1]) * size, ss[1], n, dtype);
    }
  }
}

/* Copy every element of `src` into `dst`: same dtype and shape, any strides. */
void
tr_tensor_copy_into(TrTensor *dst, const TrTensor *src)
{
  g_assert(dst->dtype == src->dtype && tr_shape_equal(&dst->shape, &src->shape));
  if (tr_tensor_num_elements(src) == 0)
    return;
  Layout2 l;
  layout2_init(&l, &src->shape, dst->strides, src->strides);
  int64_t size = (int64_t)tr_dtype_size(src->dtype);
  char *dbase = dst->buf->data;
  const char *sbase = src->buf->data;
  if (l.rank == 0) {
    copy_run(dbase + dst->offset * size, 1, sbase + src->offset * size, 1, 1, src->dtype);
    return;
  }
  int last = l.rank - 1;
  /* Tile when one side walks the last dim with a larger step than the one before it. */
  bool tiled = false;
  for (int k = 0; k < 2 && l.rank >= 2; k++)
    tiled |= llabs(l.strides[k][last]) > llabs(l.strides[k][last - 1]);
  int walked = tiled ? last - 1 : last; /* dims walked one by one; the rest go in one call */
  TrShape outer = tr_shape_make(walked, l.dims);
  int64_t offsets[2] = {dst->offset, src->offset};
  TrNdIter it;
  tr_nd_iter_init(&it, &outer, 2, offsets, l.strides);
  do {
    char *d = dbase + it.pos[0] * size;
    const char *s = sbase + it.pos[1] * size;
    if (tiled) {
      int64_t ds[2] = {l.strides[0][last - 1], l.strides[0][last]};
      int64_t ss[2] = {l.strides[1][last - 1], l.strides[1][last]};
      copy_tiled(d, ds, s, ss, l.dims[last - 1], l.dims[last], src->dtype);
    } else {
      copy_run(d, l.strides[0][last], s, l.strides[1][last], l.dims[last], src->dtype);
    }
  } while (tr_nd_iter_next(&it));
}

/* ---- tensors --------------------------------------------------------------------------- */

static bool
strides_are_contiguous(const TrShape *shape, const int64_t *strides, int64_t offset)
{
  if (offset != 0)
    return false;
  int64_t expect = 1;
  for (int i = shape->rank - 1; i >= 0; i--) {
    if (shape->dims[i] != 1 && strides[i] != expect)
      return false;
    expect *= shape->dims[i];
  }
  return true;
}

TrTensor *
tr_tensor_new_view(TrBuffer *buf, TrDType dtype, const TrShape *shape, const int64_t *strides,
                   int64_t offset)
{
  g_return_val_if_fail(buf != NULL && tr_shape_is_fully_defined(shape), NULL);
  TrTensor *t = g_new(TrTensor, 1);
  t->refcount = 1;
  t->dtype = dtype;
  t->shape = *shape;
  for (int i = 0; i < shape->rank; i++)
    t->strides[i] = strides[i];
  t->offset = offset;
  t->buf = tr_buffer_ref(buf);
  t->contiguous = strides_are_contiguous(shape, strides, offset);
  return t;
}

static TrTensor *
tensor_new_on(TrBuffer *buf, TrDType dtype, const TrShape *shape)
{
  TrTensor *t = g_new(TrTensor, 1);
  t->refcount = 1;
  t->dtype = dtype;
  t->shape = *shape;
  tr_shape_contiguous_strides(shape, t->strides);
  t->offset = 0;
  t->buf = buf;
  t->contiguous = true;
  return t;
}

static TrBuffer *
buffer_or_die(TrBuffer *buf, const TrShape *shape)
{
  if (!buf)
    g_error("out of memory allocating a tensor of %" G_GINT64_FORMAT " elements",
            tr_shape_num_elements(shape));
  return buf;
}

TrTensor *
tr_tensor_new(TrDType dtype, const TrShape *shape)
{
  g_return_val_if_fail(tr_shape_is_fully_defined(shape), NULL);
  TrBuffer *buf = tr_buffer_new(dtype, tr_shape_num_elements(shape));
  return tensor_new_on(buffer_or_die(buf, shape), dtype, shape);
}

TrTensor *
tr_tensor_new_uninit(TrDType dtype, const TrShape *shape)
{
  g_return_val_if_fail(tr_shape_is_fully_defined(shape), NULL);
  TrBuffer *buf = tr_buffer_new_uninit(dtype, tr_shape_num_elements(shape));
  return tensor_new_on(buffer_or_die(buf, shape), dtype, shape);
}

/* Whether a shape's element count fits int64; else TensorShape's InvalidArgumentError. A user's
 * dims (tf.eye(2**32, 2**32)) can each be valid while their product wraps around. */
static bool
check_num_elements(const TrShape *shape, GError **error)
{
  int64_t n = 1;
  for (int i = 0; i < shape->rank; i++) {
    int64_t d = shape->dims[i];
    if (d == 0)
      return true;
    if (d > 0 && n > G_MAXINT64 / d) {
      g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
                  "Encountered overflow when multiplying %" G_GINT64_FORMAT
                  " with %" G_GINT64_FORMAT ", result: -1",
                  n, d);
      return false;
    }
    n *= d;
  }
  return true;
}

TrTensor *
tr_tensor_try_new_uninit(TrDType dtype, const TrShape *shape, GError **error)
{
  g_return_val_if_fail(tr_shape_is_fully_defined(shape), NULL);
  if (!check_num_elements(shape, error))
    return NULL;
  TrBuffer *buf = tr_buffer_new_uninit(dtype, tr_shape_num_elements(shape));
  if (buf)
    return tensor_new_on(buf, dtype, shape);
  g_autofree char *dims = tr_shape_to_error_string(shape);
  g_set_error(error, TR_ERROR, TR_ERROR_RESOURCE_EXHAUSTED,
              "OOM when allocating tensor with shape%s and type %s on "
              "/job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu",
              dims, tr_dtype_tf_name(dtype));
  return NULL;
}

TrTensor *
tr_tensor_ref(TrTensor *t)
{
  g_atomic_int_inc(&t->refcount);
  return t;
}

void
tr_tensor_unref(TrTensor *t)
{
  if (!t || !g_atomic_int_dec_and_test(&t->refcount))
    return;
  tr_buffer_unref(t->buf);
  g_free(t);
}

#define SCALAR_CTOR(fn, ctype, dtype)                                                              \
  TrTensor *fn(ctype v)                                                                            \
  {                                                                                                \
    TrShape s = tr_shape_scalar();                                                                 \
    TrTensor *t = tr_tensor_new(dtype, &s);                                                        \
    *(ctype *)t->buf->data = v;                                                                    \
    return t;                                                                                      \
  }
SCALAR_CTOR(tr_tensor_new_float32, float, TR_FLOAT32)
SCALAR_CTOR(tr_tensor_new_float64, double, TR_FLOAT64)
SCALAR_CTOR(tr_tensor_new_int32, int32_t, TR_INT32)
SCALAR_CTOR(tr_tensor_new_int64, int64_t, TR_INT64)
SCALAR_CTOR(tr_tensor_new_bool, bool, TR_BOOL)
#undef SCALAR_CTOR

TrTensor *
tr_tensor_new_string(const char *data, size_t len)
{
  TrShape s = tr_shape_scalar();
  TrTensor *t = tr_tensor_new(TR_STRING, &s);
  tr_string_set(t->buf->data, data, len);
  return t;
}

TrTensor *
tr_tensor_new_from_data(TrDType dtype, const TrShape *shape, const void *data)
{
  TrTensor *t = tr_tensor_new(dtype, shape);
  int64_t n = tr_shape_num_elements(shape);
  if (n == 0)
    return t;
  if (dtype == TR_STRING) {
    const TrString *src = data;
    TrString *dst = t->buf->data;
    for (int64_t i = 0; i < n; i++)
      tr_string_set(&dst[i], src[i].data, src[i].len);
  } else if (dtype == TR_VARIANT) {
    TrVariant *const *src = data;
    TrVariant **dst = t->buf->data;
    for (int64_t i = 0; i < n; i++)
      dst[i] = src[i] ? tr_variant_ref(src[i]) : NULL;
  } else {
    memcpy(t->buf->data, data, (size_t)n * tr_dtype_size(dtype));
  }
  return t;
}

int64_t
tr_tensor_num_elements(const TrTensor *t)
{
  return tr_shape_num_elements(&t->shape);
}

void *
tr_tensor_data(const TrTensor *t)
{
  g_return_val_if_fail(t->contiguous, NULL);
  if (!t->buf->data)
    return NULL;
  return (char *)t->buf->data + t->offset * (int64_t)tr_dtype_size(t->dtype);
}

int64_t
tr_tensor_element_index(const TrTensor *t, int64_t flat_index)
{
  if (t->contiguous)
    return t->offset + flat_index;
  int64_t pos = t->offset;
  for (int d = t->shape.rank - 1; d >= 0; d--) {
    int64_t n = t->shape.dims[d];
    pos += (flat_index % n) * t->strides[d];
    flat_index /= n;
  }
  return pos;
}

/* Element i of a buffer as double: the real part of a complex, the address of a variant (code
 * that hashes or prints any element still works). */
static double
get_f64_at(TrDType dtype, const void *data, int64_t i)
{
  switch (dtype) {
    case TR_FLOAT32:
      return ((const float *)data)[i];
    case TR_FLOAT64:
      return ((const double *)data)[i];
    case TR_INT32:
      return ((const int32_t *)data)[i];
    case TR_INT64:
      return (double)((const int64_t *)data)[i];
    case TR_BOOL:
      return ((const bool *)data)[i];
    case TR_FLOAT16:
      return tr_half_to_float(((const TrHalf *)data)[i]);
    case TR_BFLOAT16:
      return tr_bfloat16_to_float(((const TrBFloat16 *)data)[i]);
    case TR_INT8:
      return ((const int8_t *)data)[i];
    case TR_INT16:
      return ((const int16_t *)data)[i];
    case TR_UINT8:
      return ((const uint8_t *)data)[i];
    case TR_UINT16:
      return ((const uint16_t *)data)[i];
    case TR_UINT32:
      return ((const uint32_t *)data)[i];
    case TR_UINT64:
      return (double)((const uint64_t *)data)[i];
    case TR_COMPLEX64:
      return crealf(((const float _Complex *)data)[i]);
    case TR_COMPLEX128:
      return creal(((const double _Complex *)data)[i]);
    case TR_VARIANT:
      return (double)(uintptr_t)((TrVariant *const *)data)[i];
    default:
      g_return_val_if_reached(NAN);
  }
}

double
tr_tensor_get_f64(const TrTensor *t, int64_t flat_index)
{
  return get_f64_at(t->dtype, t->buf->data, tr_tensor_element_index(t, flat_index));
}

int64_t
tr_tensor_get_i64(const TrTensor *t, int64_t flat_index)
{
  int64_t i = tr_tensor_element_index(t, flat_index);
  switch (t->dtype) {
    case TR_INT32:
      return ((int32_t *)t->buf->data)[i];
    case TR_INT64:
      return ((int64_t *)t->buf->data)[i];
    case TR_BOOL:
      return ((bool *)t->buf->data)[i];
    case TR_INT8:
      return ((int8_t *)t->buf->data)[i];
    case TR_INT16:
      return ((int16_t *)t->buf->data)[i];
    case TR_UINT8:
      return ((uint8_t *)t->buf->data)[i];
    case TR_UINT16:
      return ((uint16_t *)t->buf->data)[i];
    case TR_UINT32:
      return ((uint32_t *)t->buf->data)[i];
    case TR_UINT64: /* wraps above INT64_MAX, as NumPy's astype(int64) */
      return (int64_t)((uint64_t *)t->buf->data)[i];
    case TR_VARIANT: /* its address, as tr_tensor_get_f64 */
      return (int64_t)(uintptr_t)((TrVariant **)t->buf->data)[i];
    case TR_STRING:
      g_return_val_if_reached(0);
    default: /* floats: truncated (C's conversion) */
      return (int64_t)get_f64_at(t->dtype, t->buf->data, i);
  }
}

const TrString *
tr_tensor_get_string(const TrTensor *t, int64_t flat_index)
{
  g_return_val_if_fail(t->dtype == TR_STRING, NULL);
  return &((TrString *)t->buf->data)[tr_tensor_element_index(t, flat_index)];
}

TrTensor *
tr_tensor_contiguous(TrTensor *t)
{
  if (t->contiguous)
    return tr_tensor_ref(t);
  TrTensor *out = tr_tensor_new_uninit(t->dtype, &t->shape);
  tr_tensor_copy_into(out, t);
  return out;
}

bool
tr_tensor_equal(const TrTensor *a, const TrTensor *b)
{
  if (a->dtype != b->dtype || !tr_shape_equal(&a->shape, &b->shape))
    return false;
  int64_t n = tr_tensor_num_elements(a);
  size_t size = tr_dtype_size(a->dtype);
  for (int64_t i = 0; i < n; i++) {
    if (a->dtype == TR_STRING) {
      const TrString *sa = tr_tensor_get_string(a, i), *sb = tr_tensor_get_string(b, i);
      if (sa->len != sb->len || memcmp(sa->data, sb->data, sa->len) != 0)
        return false;
      continue;
    }
    const char *pa = (const char *)a->buf->data + tr_tensor_element_index(a, i) * size;
    const char *pb = (const char *)b->buf->data + tr_tensor_element_index(b, i) * size;
    if (a->dtype == TR_BOOL) {
      if (*(const bool *)pa != *(const bool *)pb)
        return false;
    } else if (memcmp(pa, pb, size) != 0) {
      return false;
    }
  }
  return true;
}
