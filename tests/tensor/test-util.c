/* test-util.c — see test-util.h. */
#include "test-util.h"

#include <math.h>
#include <string.h>

/* ---- building tensors ------------------------------------------------------------------- */

TrTensor *
tt_tensor(TrDType dtype, int rank, const int64_t *dims, const double *values)
{
  TrShape shape = tr_shape_make(rank, dims);
  TrTensor *t = tr_tensor_new(dtype, &shape);
  int64_t n = tr_shape_num_elements(&shape);
  for (int64_t i = 0; i < n; i++) {
    switch (dtype) {
      case TR_FLOAT32:
        ((float *)t->buf->data)[i] = (float)values[i];
        break;
      case TR_FLOAT64:
        ((double *)t->buf->data)[i] = values[i];
        break;
      case TR_INT32:
        ((int32_t *)t->buf->data)[i] = (int32_t)values[i];
        break;
      case TR_INT64:
        ((int64_t *)t->buf->data)[i] = (int64_t)values[i];
        break;
      case TR_BOOL:
        ((bool *)t->buf->data)[i] = values[i] != 0;
        break;
      default: {
        /* the other dtypes: the values as float64, then Cast (in range, they stay exact) */
        g_autoptr(TrTensor) wide = tt_tensor(TR_FLOAT64, rank, dims, values);
        g_autoptr(GError) error = NULL;
        tr_tensor_unref(t);
        t = tr_cast(wide, dtype, &error);
        g_assert_no_error(error);
        return t;
      }
    }
  }
  return t;
}

TrTensor *
tt_strings(int rank, const int64_t *dims, const char *const *values)
{
  TrShape shape = tr_shape_make(rank, dims);
  TrTensor *t = tr_tensor_new(TR_STRING, &shape);
  int64_t n = tr_shape_num_elements(&shape);
  for (int64_t i = 0; i < n; i++) {
    TrString *s = &((TrString *)t->buf->data)[i];
    s->len = strlen(values[i]);
    s->data = g_strdup(values[i]);
  }
  return t;
}

TrTensor *
tt_zeros(TrDType dtype, int rank, const int64_t *dims)
{
  TrShape shape = tr_shape_make(rank, dims);
  return tr_tensor_new(dtype, &shape);
}

TrTensor *
tt_arange(TrDType dtype, int rank, const int64_t *dims)
{
  TrShape shape = tr_shape_make(rank, dims);
  int64_t n = tr_shape_num_elements(&shape);
  g_autofree double *values = g_new(double, MAX(n, 1));
  for (int64_t i = 0; i < n; i++)
    values[i] = (double)i;
  return tt_tensor(dtype, rank, dims, values);
}

TrTensor *
tt_transposed(const TrTensor *t)
{
  g_assert_cmpint(t->shape.rank, ==, 2);
  TrShape shape = tr_shape_make(2, (const int64_t[]){t->shape.dims[1], t->shape.dims[0]});
  int64_t strides[2] = {t->strides[1], t->strides[0]};
  return tr_tensor_new_view(t->buf, t->dtype, &shape, strides, t->offset);
}

/* ---- inference inputs ------------------------------------------------------------------- */

TrTensorInfo
tt_symbolic(TrDType dtype, int rank, const int64_t *dims)
{
  return (TrTensorInfo){.dtype = dtype, .shape = tr_shape_make(rank, dims), .value = NULL};
}

TrTensorInfo
tt_constant(const TrTensor *t)
{
  return (TrTensorInfo){.dtype = t->dtype, .shape = t->shape, .value = t};
}

/* ---- assertions ------------------------------------------------------------------------- */

/* Fail at `where` unless `t` is a tensor of `dtype` with exactly the given dims. */
static void
check_dtype_and_shape(const char *where, const TrTensor *t, TrDType dtype, int rank,
                      const int64_t *dims)
{
  if (!t)
    g_error("%s: tensor is NULL", where);
  if (t->dtype != dtype)
    g_error("%s: dtype %s, expected %s", where, tr_dtype_name(t->dtype), tr_dtype_name(dtype));
  TrShape expect = tr_shape_make(rank, dims);
  if (!tr_shape_equal(&t->shape, &expect)) {
    g_autofree char *got = tr_shape_to_string(&t->shape);
    g_autofree char *want = tr_shape_to_string(&expect);
    g_error("%s: shape %s, expected %s", where, got, want);
  }
}

void
tt_check_tensor(const char *file, int line, const TrTensor *t, TrDType dtype, int rank,
                const int64_t *dims, const double *values, double tol)
{
  g_autofree char *where = g_strdup_printf("%s:%d", file, line);
  check_dtype_and_shape(where, t, dtype, rank, dims);
  int64_t n = tr_tensor_num_elements(t);
  for (int64_t i = 0; i < n; i++) {
    double got = tr_tensor_get_f64(t, i);
    bool same = (isnan(got) && isnan(values[i])) || got == values[i] ||
                fabs(got - values[i]) <= tol * fmax(1.0, fabs(values[i]));
    if (!same)
      g_error("%s: element %" G_GINT64_FORMAT " is %.17g, expected %.17g", where, i, got,
              values[i]);
  }
}

void
tt_check_strings(const char *file, int line, const TrTensor *t, int rank, const int64_t *dims,
                 const char *const *values)
{
  g_autofree char *where = g_strdup_printf("%s:%d", file, line);
  check_dtype_and_shape(where, t, TR_STRING, rank, dims);
  int64_t n = tr_tensor_num_elements(t);
  for (int64_t i = 0; i < n; i++) {
    const TrString *s = tr_tensor_get_string(t, i);
    size_t len = strlen(values[i]);
    if (s->len != len || (len != 0 && memcmp(s->data, values[i], len) != 0))
      g_error("%s: element %" G_GINT64_FORMAT " is \"%.*s\" (%zu bytes), expected \"%s\"", where, i,
              (int)s->len, s->len != 0 ? s->data : "", s->len, values[i]);
  }
}

void
tt_check_error(const char *file, int line, GError **error, TrErrorCode code, const char *message)
{
  if (!*error)
    g_error("%s:%d: no error was set (expected \"%s\")", file, line, message);
  if ((*error)->domain != TR_ERROR || (*error)->code != (int)code ||
      strcmp((*error)->message, message) != 0)
    g_error("%s:%d: error %d \"%s\", expected %d \"%s\"", file, line, (*error)->code,
            (*error)->message, code, message);
  g_clear_error(error);
}

void
tt_check_infers(const char *file, int line, TrOpId op, const TrTensorInfo *in, int n_in,
                const TrAttrs *attrs, TrDType dtype, const char *want)
{
  g_autoptr(GError) error = NULL;
  TrDType got_dtype;
  TrShape shape;
  if (!tr_op_infer(op, in, n_in, attrs, &got_dtype, &shape, &error))
    g_error("%s:%d: inference failed: %s", file, line, error ? error->message : "(no error set)");
  if (error)
    g_error("%s:%d: inference succeeded but set an error: %s", file, line, error->message);
  g_autofree char *got = tr_shape_to_string(&shape);
  if (got_dtype != dtype || strcmp(got, want) != 0)
    g_error("%s:%d: inferred %s %s, expected %s %s", file, line, tr_dtype_name(got_dtype), got,
            tr_dtype_name(dtype), want);
  /* The text prints every negative dim as None: only TR_UNKNOWN may stand for one. */
  for (int i = 0; i < shape.rank; i++)
    if (shape.dims[i] < 0 && shape.dims[i] != TR_UNKNOWN)
      g_error("%s:%d: inferred dim %d is %" G_GINT64_FORMAT, file, line, i, shape.dims[i]);
}

void
tt_check_infer_error(const char *file, int line, TrOpId op, const TrTensorInfo *in, int n_in,
                     const TrAttrs *attrs, const char *message)
{
  GError *error = NULL;
  TrDType dtype;
  TrShape shape;
  if (tr_op_infer(op, in, n_in, attrs, &dtype, &shape, &error))
    g_error("%s:%d: inference succeeded (expected \"%s\")", file, line, message);
  tt_check_error(file, line, &error, TR_ERROR_INVALID_ARGUMENT, message);
}

const TrOpDef *
tt_check_op_def(const char *file, int line, TrOpId op, const char *name, int n_inputs)
{
  const TrOpDef *def = tr_op_def(op);
  if (g_strcmp0(def->name, name) != 0)
    g_error("%s:%d: op %s is named \"%s\", expected \"%s\"", file, line, def->type, def->name,
            name);
  if (def->n_inputs != n_inputs)
    g_error("%s:%d: op %s takes %d inputs, expected %d", file, line, def->type, def->n_inputs,
            n_inputs);
  if (!def->infer || !def->kernel)
    g_error("%s:%d: op %s has no inference function or no kernel", file, line, def->type);
  return def;
}
