/* ops-strings.c — the string ops of tf.strings: length, case, strip, substr, number conversions,
 * regular expressions, reduce_join and the splits that ragged results are built from.
 *
 * Elements are bytes (TrString); UTF-8 is only assumed where an op is asked to count characters
 * (unit UTF8_CHAR) or to split into characters and code points. Parameters that TensorFlow
 * passes as string attrs (a separator, a pattern) are scalar string inputs here, so that the
 * attrs stay plain values a graph node can copy.
 *
 * StringSplitV2 has three outputs in TensorFlow (indices, values, shape); the op table has one
 * output per op, so one application gives the tokens and another, with attrs.str_flag set, the
 * row_splits a RaggedTensor is made of (tf.strings.split applies both). attrs.str_mode picks
 * what a row is split into: SPLIT_SEP (by a separator, or at whitespace when it is empty),
 * SPLIT_BYTES, SPLIT_CHARS (UTF-8 characters as strings) or SPLIT_CODEPOINTS (their code points
 * as int32: tf.strings.unicode_decode). Regular expressions are GLib's (PCRE), which agrees with
 * TensorFlow's RE2 on the syntax the guides use.
 */
#include "tr-tensor-private.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { UNIT_BYTE = 0, UNIT_UTF8_CHAR = 1 };
enum { SPLIT_SEP = 0, SPLIT_BYTES = 1, SPLIT_CHARS = 2, SPLIT_CODEPOINTS = 3 };

static const char *
op_type(TrOpId op)
{
  return tr_op_def(op)->type;
}

static bool
expect_dtype(const TrTensorInfo *in, int i, TrDType want, TrOpId op, GError **error)
{
  if (in[i].dtype == want)
    return true;
  tr_set_dtype_mismatch(error, op_type(op), i, want, in[i].dtype);
  return false;
}

static bool
expect_scalar(const TrTensorInfo *in, int i, const char *what, TrOpId op, GError **error)
{
  if (in[i].shape.rank == TR_UNKNOWN || in[i].shape.rank == 0)
    return true;
  g_autofree char *s = tr_shape_to_error_string(&in[i].shape);
  tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, op_type(op),
                  "%s must be a scalar, got shape: %s", what, s);
  return false;
}

/* The output element i of a string-valued kernel (contiguous, elements start empty). */
static inline TrString *
out_string(TrTensor *out, int64_t i)
{
  return &((TrString *)tr_tensor_data(out))[i];
}

/* UTF-8 characters in `len` bytes: the bytes that do not continue a sequence. */
static int64_t
utf8_count(const char *s, size_t len)
{
  int64_t n = 0;
  for (size_t i = 0; i < len; i++)
    n += ((unsigned char)s[i] & 0xC0) != 0x80;
  return n;
}

/* Byte offset of character `c` (clamped to the end) of a UTF-8 string. */
static size_t
utf8_offset(const char *s, size_t len, int64_t c)
{
  size_t i = 0;
  while (i < len && c > 0) {
    i++;
    while (i < len && ((unsigned char)s[i] & 0xC0) == 0x80)
      i++;
    c--;
  }
  return i;
}

/* ---- elementwise ------------------------------------------------------------------------- */

/* Unary ops on string tensors, output shaped as the input. */
static bool
infer_string_unary(TrOpId op, const TrTensorInfo *in, TrDType out_dtype, TrDType *dtype,
                   TrShape *shape, GError **error)
{
  if (!expect_dtype(in, 0, TR_STRING, op, error))
    return false;
  *dtype = out_dtype;
  *shape = in[0].shape;
  return true;
}

static bool
infer_length(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype, TrShape *shape,
             GError **error)
{
  (void)n_in, (void)attrs;
  return infer_string_unary(TR_OP_STRING_LENGTH, in, TR_INT32, dtype, shape, error);
}

static bool
kernel_length(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  (void)n_in, (void)error;
  int32_t *o = tr_tensor_data(out);
  int64_t n = tr_tensor_num_elements(out);
  for (int64_t i = 0; i < n; i++) {
    const TrString *s = tr_tensor_get_string(in[0], i);
    o[i] = (int32_t)(attrs->str_mode == UNIT_UTF8_CHAR ? utf8_count(s->data, s->len)
                                                       : (int64_t)s->len);
  }
  return true;
}

static bool
infer_upper(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype, TrShape *shape,
            GError **error)
{
  (void)n_in, (void)attrs;
  return infer_string_unary(TR_OP_STRING_UPPER, in, TR_STRING, dtype, shape, error);
}

static bool
infer_lower(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype, TrShape *shape,
            GError **error)
{
  (void)n_in, (void)attrs;
  return infer_string_unary(TR_OP_STRING_LOWER, in, TR_STRING, dtype, shape, error);
}

static bool
infer_strip(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype, TrShape *shape,
            GError **error)
{
  (void)n_in, (void)attrs;
  return infer_string_unary(TR_OP_STRING_STRIP, in, TR_STRING, dtype, shape, error);
}

/* StringUpper and StringLower with no encoding change ASCII letters only, as TensorFlow's. */
static bool
kernel_case(TrTensor *const *in, TrTensor *out, bool upper)
{
  int64_t n = tr_tensor_num_elements(out);
  for (int64_t i = 0; i < n; i++) {
    const TrString *s = tr_tensor_get_string(in[0], i);
    TrString *d = out_string(out, i);
    tr_string_set(d, s->data, s->len);
    for (size_t k = 0; k < d->len; k++)
      d->data[k] = upper ? g_ascii_toupper(d->data[k]) : g_ascii_tolower(d->data[k]);
  }
  return true;
}

static bool
kernel_upper(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  (void)n_in, (void)attrs, (void)error;
  return kernel_case(in, out, true);
}

static bool
kernel_lower(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  (void)n_in, (void)attrs, (void)error;
  return kernel_case(in, out, false);
}

static bool
kernel_strip(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  (void)n_in, (void)attrs, (void)error;
  int64_t n = tr_tensor_num_elements(out);
  for (int64_t i = 0; i < n; i++) {
    const TrString *s = tr_tensor_get_string(in[0], i);
    size_t a = 0, b = s->len;
    while (a < b && g_ascii_isspace(s->data[a]))
      a++;
    while (b > a && g_ascii_isspace(s->data[b - 1]))
      b--;
    tr_string_set(out_string(out, i), s->data + a, b - a);
  }
  return true;
}

/* ---- Substr -------------------------------------------------------------------------------- */

/* pos and len: int32 or int64, of one shape, scalars or shaped as the input. */
static bool
infer_substr(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype, TrShape *shape,
             GError **error)
{
  (void)n_in, (void)attrs;
  const char *type = op_type(TR_OP_SUBSTR);
  if (!expect_dtype(in, 0, TR_STRING, TR_OP_SUBSTR, error))
    return false;
  if (in[1].dtype != TR_INT32 && in[1].dtype != TR_INT64) {
    tr_set_dtype_mismatch(error, type, 1, TR_INT32, in[1].dtype);
    return false;
  }
  if (!expect_dtype(in, 2, in[1].dtype, TR_OP_SUBSTR, error))
    return false;
  const TrShape *p = &in[1].shape, *l = &in[2].shape;
  if (p->rank != TR_UNKNOWN && l->rank != TR_UNKNOWN && tr_shape_is_fully_defined(p) &&
      tr_shape_is_fully_defined(l) && !tr_shape_equal(p, l)) {
    g_autofree char *ps = tr_shape_to_error_string(p);
    g_autofree char *ls = tr_shape_to_error_string(l);
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                    "pos and len should have the same shape, got: %s vs. %s", ps, ls);
    return false;
  }
  /* Broadcasting over the leading dims: pos's shape must be the input's trailing dims. */
  const TrShape *x = &in[0].shape;
  if (p->rank > 0 && x->rank > 0 && tr_shape_is_fully_defined(p) && tr_shape_is_fully_defined(x)) {
    bool fits = p->rank <= x->rank;
    for (int d = 0; fits && d < p->rank; d++)
      fits = p->dims[p->rank - 1 - d] == x->dims[x->rank - 1 - d];
    if (!fits) {
      g_autofree char *is = tr_shape_to_error_string(x);
      g_autofree char *ps = tr_shape_to_error_string(p);
      tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type, "Incompatible shapes: %s vs. %s", is,
                      ps);
      return false;
    }
  }
  /* A scalar input is broadcast onto pos and len instead. */
  *dtype = TR_STRING;
  *shape = x->rank == 0 && p->rank != 0 ? *p : *x;
  return true;
}

static bool
kernel_substr(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  (void)n_in;
  int64_t n = tr_tensor_num_elements(out);
  int64_t n_pos = tr_tensor_num_elements(in[1]); /* pos repeats over the leading dims */
  if (n_pos == 0 && n > 0) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, op_type(TR_OP_SUBSTR), "pos is empty");
    return false;
  }
  bool scalar_input = in[0]->shape.rank == 0;
  for (int64_t i = 0; i < n; i++) {
    const TrString *s = tr_tensor_get_string(in[0], scalar_input ? 0 : i);
    int64_t pos = tr_tensor_get_i64(in[1], i % n_pos);
    int64_t len = tr_tensor_get_i64(in[2], i % n_pos);
    bool chars = attrs->str_mode == UNIT_UTF8_CHAR;
    int64_t size = chars ? utf8_count(s->data, s->len) : (int64_t)s->len;
    /* TensorFlow accepts -size..size, a negative pos counting from the end. */
    if (pos > size || pos < -size) {
      tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, op_type(TR_OP_SUBSTR),
                      /* sic: TensorFlow's text has no space before b' */
                      "pos %" G_GINT64_FORMAT
                      " out of range for stringb'%s' at index %" G_GINT64_FORMAT,
                      pos, s->data, i);
      return false;
    }
    if (pos < 0)
      pos += size;
    if (len < 0)
      len = 0;
    int64_t end = MIN(size, pos + len);
    size_t a = chars ? utf8_offset(s->data, s->len, pos) : (size_t)pos;
    size_t b = chars ? utf8_offset(s->data, s->len, end) : (size_t)end;
    tr_string_set(out_string(out, i), s->data + a, b - a);
  }
  return true;
}

/* ---- StringToNumber and AsString -------------------------------------------------------- */

static bool
infer_to_number(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,
                TrShape *shape, GError **error)
{
  (void)n_in;
  TrDType out = attrs->dtype == TR_DTYPE_INVALID ? TR_FLOAT32 : attrs->dtype;
  unsigned allowed = TR_DTYPE_BIT(TR_FLOAT32) | TR_DTYPE_BIT(TR_FLOAT64) | TR_DTYPE_BIT(TR_INT32) |
                     TR_DTYPE_BIT(TR_INT64);
  if (!tr_check_dtype_allowed(out, allowed, "out_type", op_type(TR_OP_STRING_TO_NUMBER), error))
    return false;
  return infer_string_unary(TR_OP_STRING_TO_NUMBER, in, out, dtype, shape, error);
}

/* One number, as TensorFlow's safe_strto* read it: surrounding whitespace allowed, the whole
 * rest consumed, integers within range of the output type. */
static bool
parse_number(const TrString *s, TrDType dtype, double *f, int64_t *v)
{
  if (memchr(s->data, '\0', s->len))
    return false;
  g_autofree char *copy = g_strndup(s->data, s->len);
  const char *text = g_strstrip(copy);
  if (!*text)
    return false;
  char *end = NULL;
  errno = 0;
  if (dtype == TR_FLOAT32 || dtype == TR_FLOAT64) {
    *f = g_ascii_strtod(text, &end);
    return *end == '\0';
  }
  *v = g_ascii_strtoll(text, &end, 10);
  if (*end != '\0' || errno == ERANGE)
    return false;
  return dtype != TR_INT32 || (*v >= G_MININT32 && *v <= G_MAXINT32);
}

static bool
kernel_to_number(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  (void)n_in, (void)attrs;
  int64_t n = tr_tensor_num_elements(out);
  void *data = tr_tensor_data(out);
  for (int64_t i = 0; i < n; i++) {
    const TrString *s = tr_tensor_get_string(in[0], i);
    double f = 0;
    int64_t v = 0;
    if (!parse_number(s, out->dtype, &f, &v)) {
      tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, op_type(TR_OP_STRING_TO_NUMBER),
                      "StringToNumberOp could not correctly convert string: %s", s->data);
      return false;
    }
    if (out->dtype == TR_INT64)
      ((int64_t *)data)[i] = v;
    else if (out->dtype == TR_INT32)
      ((int32_t *)data)[i] = (int32_t)v;
    else
      tr_store_number(data, out->dtype, i, f);
  }
  return true;
}

static bool
infer_as_string(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,
                TrShape *shape, GError **error)
{
  (void)n_in, (void)attrs;
  unsigned allowed = 0;
  for (int d = 0; d < TR_N_DTYPES; d++)
    if (d != TR_STRING)
      allowed |= TR_DTYPE_BIT(d);
  if (!tr_check_dtype_allowed(in[0].dtype, allowed, "T", op_type(TR_OP_AS_STRING), error))
    return false;
  *dtype = TR_STRING;
  *shape = in[0].shape;
  return true;
}

/* TensorFlow's defaults: floats as "%f", integers in decimal, bools as true/false. */
static bool
kernel_as_string(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  (void)n_in, (void)attrs, (void)error;
  int64_t n = tr_tensor_num_elements(out);
  TrDType dt = in[0]->dtype;
  for (int64_t i = 0; i < n; i++) {
    g_autofree char *text = NULL;
    if (dt == TR_BOOL)
      text = g_strdup(tr_tensor_get_i64(in[0], i) ? "true" : "false");
    else if (tr_dtype_is_float(dt))
      text = g_strdup_printf("%f", tr_tensor_get_f64(in[0], i));
    else
      text = g_strdup_printf("%" G_GINT64_FORMAT, tr_tensor_get_i64(in[0], i));
    tr_string_set(out_string(out, i), text, strlen(text));
  }
  return true;
}

/* ---- regular expressions ------------------------------------------------------------------- */

/* The pattern in `t`, compiled; NULL with TensorFlow's error. `anchored` matches the whole
 * string only: the pattern is then wrapped, after a first compilation of the pattern as given,
 * whose error message (PCRE's, without GLib's preamble quoting the pattern) is the one shown.
 * Transfer full. */
static GRegex *
compile_pattern(const TrTensor *t, bool anchored, TrOpId op, GError **error)
{
  const TrString *p = tr_tensor_get_string(t, 0);
  GError *re_error = NULL;
  GRegex *re = g_regex_new(p->data, G_REGEX_RAW, 0, &re_error);
  if (re && anchored) {
    g_regex_unref(re);
    g_autofree char *text = g_strdup_printf("(?:%s)\\z", p->data);
    re = g_regex_new(text, G_REGEX_RAW | G_REGEX_ANCHORED, 0, &re_error);
  }
  if (!re) {
    const char *reason = strstr(re_error->message, " at char ");
    reason = reason ? strstr(reason, ": ") : NULL;
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, op_type(op), "Invalid pattern: %s, error: %s",
                    p->data, reason ? reason + 2 : re_error->message);
    g_error_free(re_error);
  }
  return re;
}

static bool
infer_regex_full_match(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,
                       TrShape *shape, GError **error)
{
  (void)n_in, (void)attrs;
  return expect_dtype(in, 1, TR_STRING, TR_OP_REGEX_FULL_MATCH, error) &&
         expect_scalar(in, 1, "Pattern", TR_OP_REGEX_FULL_MATCH, error) &&
         infer_string_unary(TR_OP_REGEX_FULL_MATCH, in, TR_BOOL, dtype, shape, error);
}

static bool
kernel_regex_full_match(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out,
                        GError **error)
{
  (void)n_in, (void)attrs;
  GRegex *re = compile_pattern(in[1], true, TR_OP_REGEX_FULL_MATCH, error);
  if (!re)
    return false;
  bool *o = tr_tensor_data(out);
  int64_t n = tr_tensor_num_elements(out);
  for (int64_t i = 0; i < n; i++) {
    const TrString *s = tr_tensor_get_string(in[0], i);
    o[i] = g_regex_match_full(re, s->data, (gssize)s->len, 0, 0, NULL, NULL);
  }
  g_regex_unref(re);
  return true;
}

static bool
infer_regex_replace(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,
                    TrShape *shape, GError **error)
{
  (void)n_in, (void)attrs;
  return expect_dtype(in, 1, TR_STRING, TR_OP_REGEX_REPLACE, error) &&
         expect_dtype(in, 2, TR_STRING, TR_OP_REGEX_REPLACE, error) &&
         expect_scalar(in, 1, "Pattern", TR_OP_REGEX_REPLACE, error) &&
         expect_scalar(in, 2, "Rewrite", TR_OP_REGEX_REPLACE, error) &&
         infer_string_unary(TR_OP_REGEX_REPLACE, in, TR_STRING, dtype, shape, error);
}

static bool
kernel_regex_replace(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out,
                     GError **error)
{
  (void)n_in;
  GRegex *re = compile_pattern(in[1], false, TR_OP_REGEX_REPLACE, error);
  if (!re)
    return false;
  const TrString *rewrite = tr_tensor_get_string(in[2], 0);
  int64_t n = tr_tensor_num_elements(out);
  bool ok = true;
  for (int64_t i = 0; ok && i < n; i++) {
    const TrString *s = tr_tensor_get_string(in[0], i);
    GError *re_error = NULL;
    char *text = NULL;
    if (attrs->str_flag) {
      text = g_regex_replace(re, s->data, (gssize)s->len, 0, rewrite->data, 0, &re_error);
    } else {
      /* Only the first match: the text before it, its expansion, and the rest. */
      GMatchInfo *match = NULL;
      if (g_regex_match_full(re, s->data, (gssize)s->len, 0, 0, &match, NULL)) {
        int start = 0, end = 0;
        g_match_info_fetch_pos(match, 0, &start, &end);
        char *expanded = g_match_info_expand_references(match, rewrite->data, &re_error);
        if (expanded)
          text = g_strdup_printf("%.*s%s%.*s", start, s->data, expanded, (int)(s->len - end),
                                 s->data + end);
        g_free(expanded);
      } else {
        text = g_strndup(s->data, s->len);
      }
      g_match_info_free(match);
    }
    if (!text) {
      tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, op_type(TR_OP_REGEX_REPLACE),
                      "Invalid rewrite pattern: %s", re_error ? re_error->message : "");
      ok = false;
    } else {
      tr_string_set(out_string(out, i), text, strlen(text));
    }
    g_clear_error(&re_error);
    g_free(text);
  }
  g_regex_unref(re);
  return ok;
}

/* ---- ReduceJoin ---------------------------------------------------------------------------- */

/* Which dims attrs reduces (all when n_axes < 0); false with the error for a bad axis. */
static bool
reduced_dims(int rank, const TrAttrs *attrs, bool *reduced, GError **error)
{
  for (int d = 0; d < rank; d++)
    reduced[d] = attrs->n_axes < 0;
  for (int k = 0; k < MAX(attrs->n_axes, 0); k++) {
    int64_t axis;
    if (!tr_axis_normalize(attrs->axes[k], rank, &axis)) {
      tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, op_type(TR_OP_REDUCE_JOIN),
                      "Invalid reduction dimension %" G_GINT64_FORMAT " for input with %d "
                      "dimensions.",
                      attrs->axes[k], rank);
      return false;
    }
    reduced[axis] = true;
  }
  return true;
}

static bool
infer_reduce_join(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,
                  TrShape *shape, GError **error)
{
  (void)n_in;
  if (!expect_dtype(in, 0, TR_STRING, TR_OP_REDUCE_JOIN, error) ||
      !expect_dtype(in, 1, TR_STRING, TR_OP_REDUCE_JOIN, error))
    return false;
  *dtype = TR_STRING;
  if (in[0].shape.rank == TR_UNKNOWN) {
    *shape = tr_shape_unknown();
    return true;
  }
  bool reduced[TR_MAX_RANK];
  if (!reduced_dims(in[0].shape.rank, attrs, reduced, error))
    return false;
  shape->rank = 0;
  for (int d = 0; d < in[0].shape.rank; d++) {
    if (!reduced[d])
      shape->dims[shape->rank++] = in[0].shape.dims[d];
    else if (attrs->keepdims)
      shape->dims[shape->rank++] = 1;
  }
  return true;
}

static bool
kernel_reduce_join(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out,
                   GError **error)
{
  (void)n_in;
  const TrTensor *x = in[0];
  int rank = x->shape.rank;
  bool reduced[TR_MAX_RANK];
  if (!reduced_dims(rank, attrs, reduced, error))
    return false;
  int64_t strides[TR_MAX_RANK];
  tr_shape_contiguous_strides(&x->shape, strides);
  /* The kept dims and the reduced dims, each walked in row-major order. */
  int kept[TR_MAX_RANK], red[TR_MAX_RANK], n_kept = 0, n_red = 0;
  int64_t n_inner = 1;
  for (int d = 0; d < rank; d++) {
    if (reduced[d]) {
      red[n_red++] = d;
      n_inner *= x->shape.dims[d];
    } else {
      kept[n_kept++] = d;
    }
  }
  const TrString *sep = tr_tensor_get_string(in[1], 0);
  int64_t n = tr_tensor_num_elements(out);
  for (int64_t o = 0; o < n; o++) {
    int64_t base = 0, rest = o;
    for (int k = n_kept - 1; k >= 0; k--) {
      int64_t dim = x->shape.dims[kept[k]];
      base += (rest % dim) * strides[kept[k]];
      rest /= dim;
    }
    g_autoptr(GString) joined = g_string_new(NULL);
    for (int64_t r = 0; r < n_inner; r++) {
      int64_t flat = base, rr = r;
      for (int k = n_red - 1; k >= 0; k--) {
        int64_t dim = x->shape.dims[red[k]];
        flat += (rr % dim) * strides[red[k]];
        rr /= dim;
      }
      const TrString *s = tr_tensor_get_string(x, flat);
      if (r > 0)
        g_string_append_len(joined, sep->data, (gssize)sep->len);
      g_string_append_len(joined, s->data, (gssize)s->len);
    }
    tr_string_set(out_string(out, o), joined->str, joined->len);
  }
  return true;
}

/* ---- StringSplitV2 ------------------------------------------------------------------------ */

/* One piece of a split row: a byte range, or a code point. */
typedef struct {
  size_t start, len;
  int32_t codepoint;
} Piece;

/* Appends the pieces of `s` to `pieces` (a GArray of Piece). */
static void
split_row(const TrString *s, int mode, const TrString *sep, int64_t maxsplit, GArray *pieces)
{
  const char *d = s->data;
  size_t n = s->len;
  if (mode == SPLIT_BYTES) {
    for (size_t i = 0; i < n; i++)
      g_array_append_val(pieces, ((Piece){i, 1, 0}));
    return;
  }
  if (mode == SPLIT_CHARS || mode == SPLIT_CODEPOINTS) {
    size_t i = 0;
    while (i < n) {
      gunichar c = g_utf8_get_char_validated(d + i, (gssize)(n - i));
      size_t len;
      if (c == (gunichar)-1 || c == (gunichar)-2) {
        c = 0xFFFD; /* errors='replace': one replacement character per bad byte */
        len = 1;
      } else {
        len = (size_t)(g_utf8_next_char(d + i) - (d + i));
      }
      g_array_append_val(pieces, ((Piece){i, len, (int32_t)c}));
      i += len;
    }
    return;
  }
  int64_t splits = 0;
  if (sep->len == 0) {
    /* Python's str.split(): runs of whitespace separate, no empty pieces. */
    size_t i = 0;
    while (i < n) {
      while (i < n && g_ascii_isspace(d[i]))
        i++;
      if (i == n)
        break;
      size_t start = i;
      if (maxsplit >= 0 && splits == maxsplit) {
        size_t end = n;
        while (end > start && g_ascii_isspace(d[end - 1]))
          end--;
        g_array_append_val(pieces, ((Piece){start, end - start, 0}));
        break;
      }
      while (i < n && !g_ascii_isspace(d[i]))
        i++;
      g_array_append_val(pieces, ((Piece){start, i - start, 0}));
      splits++;
    }
    return;
  }
  /* A separator: consecutive ones delimit empty pieces (str.split(sep)); "" gives no piece. */
  if (n == 0)
    return;
  size_t start = 0;
  for (size_t i = 0; i + sep->len <= n;) {
    if ((maxsplit < 0 || splits < maxsplit) && memcmp(d + i, sep->data, sep->len) == 0) {
      g_array_append_val(pieces, ((Piece){start, i - start, 0}));
      splits++;
      i += sep->len;
      start = i;
    } else {
      i++;
    }
  }
  g_array_append_val(pieces, ((Piece){start, n - start, 0}));
}

/* The pieces of every element, and row_splits (n + 1 entries, owned by the caller). */
static GArray *
split_all(TrTensor *const *in, const TrAttrs *attrs, int64_t **row_splits)
{
  int64_t n = tr_tensor_num_elements(in[0]);
  const TrString *sep = tr_tensor_get_string(in[1], 0);
  int64_t maxsplit = tr_tensor_get_i64(in[2], 0);
  GArray *pieces = g_array_new(FALSE, FALSE, sizeof(Piece));
  int64_t *splits = g_new(int64_t, n + 1);
  splits[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    split_row(tr_tensor_get_string(in[0], i), attrs->str_mode, sep, maxsplit, pieces);
    splits[i + 1] = pieces->len;
  }
  *row_splits = splits;
  return pieces;
}

static bool
infer_split(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype, TrShape *shape,
            GError **error)
{
  (void)n_in;
  TrOpId op = TR_OP_STRING_SPLIT;
  if (!expect_dtype(in, 0, TR_STRING, op, error) || !expect_dtype(in, 1, TR_STRING, op, error) ||
      !expect_scalar(in, 1, "sep", op, error))
    return false;
  int64_t n = tr_shape_num_elements(&in[0].shape);
  if (attrs->str_flag) {
    *dtype = TR_INT64;
    *shape = tr_shape_make(1, (int64_t[]){n == TR_UNKNOWN ? TR_UNKNOWN : n + 1});
    return true;
  }
  *dtype = attrs->str_mode == SPLIT_CODEPOINTS ? TR_INT32 : TR_STRING;
  int64_t count = TR_UNKNOWN;
  if (in[0].value && in[1].value && in[2].value) {
    TrTensor *values[3] = {(TrTensor *)in[0].value, (TrTensor *)in[1].value,
                           (TrTensor *)in[2].value};
    int64_t *splits = NULL;
    GArray *pieces = split_all(values, attrs, &splits);
    count = pieces->len;
    g_array_free(pieces, TRUE);
    g_free(splits);
  }
  *shape = tr_shape_make(1, (int64_t[]){count});
  return true;
}

static bool
kernel_split(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  (void)n_in, (void)error;
  int64_t *splits = NULL;
  GArray *pieces = split_all(in, attrs, &splits);
  int64_t n = tr_tensor_num_elements(in[0]);
  if (attrs->str_flag) {
    memcpy(tr_tensor_data(out), splits, (size_t)(n + 1) * sizeof(int64_t));
  } else {
    /* Pieces of element i index into its bytes. */
    for (int64_t i = 0; i < n; i++) {
      const TrString *s = tr_tensor_get_string(in[0], i);
      for (int64_t k = splits[i]; k < splits[i + 1]; k++) {
        const Piece *p = &g_array_index(pieces, Piece, k);
        if (out->dtype == TR_INT32)
          ((int32_t *)tr_tensor_data(out))[k] = p->codepoint;
        else
          tr_string_set(out_string(out, k), s->data + p->start, p->len);
      }
    }
  }
  g_array_free(pieces, TRUE);
  g_free(splits);
  return true;
}

void
tr_ops_register_strings(TrOpDef *defs)
{
  defs[TR_OP_STRING_LENGTH] = (TrOpDef){.name = "StringLength",
                                        .n_inputs = 1,
                                        .flags = TR_OP_FLAG_ELEMENTWISE,
                                        .infer = infer_length,
                                        .kernel = kernel_length};
  defs[TR_OP_STRING_UPPER] = (TrOpDef){.name = "StringUpper",
                                       .n_inputs = 1,
                                       .flags = TR_OP_FLAG_ELEMENTWISE,
                                       .infer = infer_upper,
                                       .kernel = kernel_upper};
  defs[TR_OP_STRING_LOWER] = (TrOpDef){.name = "StringLower",
                                       .n_inputs = 1,
                                       .flags = TR_OP_FLAG_ELEMENTWISE,
                                       .infer = infer_lower,
                                       .kernel = kernel_lower};
  defs[TR_OP_STRING_STRIP] = (TrOpDef){.name = "StringStrip",
                                       .n_inputs = 1,
                                       .flags = TR_OP_FLAG_ELEMENTWISE,
                                       .infer = infer_strip,
                                       .kernel = kernel_strip};
  defs[TR_OP_SUBSTR] =
      (TrOpDef){.name = "Substr", .n_inputs = 3, .infer = infer_substr, .kernel = kernel_substr};
  defs[TR_OP_STRING_TO_NUMBER] = (TrOpDef){.name = "StringToNumber",
                                           .n_inputs = 1,
                                           .flags = TR_OP_FLAG_ELEMENTWISE,
                                           .infer = infer_to_number,
                                           .kernel = kernel_to_number};
  defs[TR_OP_AS_STRING] = (TrOpDef){.name = "AsString",
                                    .n_inputs = 1,
                                    .flags = TR_OP_FLAG_ELEMENTWISE,
                                    .infer = infer_as_string,
                                    .kernel = kernel_as_string};
  defs[TR_OP_REGEX_FULL_MATCH] = (TrOpDef){.name = "RegexFullMatch",
                                           .n_inputs = 2,
                                           .infer = infer_regex_full_match,
                                           .kernel = kernel_regex_full_match};
  defs[TR_OP_REGEX_REPLACE] = (TrOpDef){.name = "RegexReplace",
                                        .n_inputs = 3,
                                        .infer = infer_regex_replace,
                                        .kernel = kernel_regex_replace};
  defs[TR_OP_REDUCE_JOIN] = (TrOpDef){.name = "ReduceJoin",
                                      .n_inputs = 2,
                                      .infer = infer_reduce_join,
                                      .kernel = kernel_reduce_join};
  defs[TR_OP_STRING_SPLIT] = (TrOpDef){
      .name = "StringSplitV2", .n_inputs = 3, .infer = infer_split, .kernel = kernel_split};
}
