/* ops-shape.c — ops that move elements without computing on them: Transpose, Reshape,
 * ConcatV2, Pack, Squeeze, ExpandDims, GatherV2, OneHot, StridedSlice, Tile, BroadcastTo and
 * ReverseV2.
 *
 * The geometry ops (transpose, reshape of dense memory, squeeze, expand_dims, strided_slice)
 * are views: each has a *_geometry() function that describes its output as a tensor on the
 * input's buffer (new shape, strides and offset). The view function turns that description
 * into a real tensor and copies nothing; the kernel, which the graph executor calls with a
 * preallocated output, copies the described elements out.
 *
 * Every copy goes through tr_tensor_copy_into(), which drops size-1 dims and merges dims that are
 * adjacent in both layouts until the innermost run is as long as possible, then moves whole
 * runs with memcpy (strings are duplicated one by one: each buffer owns its bytes). Concat and
 * stack write each input as one block of the output; gather copies one slice per index.
 *
 * Error texts are those of TensorFlow's eager kernels (transpose_op.cc, reshape_op.h,
 * concat_op.cc, pack_op.cc, shape_ops.h, gather_op.cc, one_hot_op.cc, strided_slice_op.cc), so a
 * user reads what TensorFlow would print.
 */
#include "tr-tensor-private.h"

#include <stdlib.h>
#include <string.h>

#define INDEX_DTYPES (TR_DTYPE_BIT(TR_INT32) | TR_DTYPE_BIT(TR_INT64))
#define NUMERIC_OR_BOOL_DTYPES                                                                     \
  (TR_DTYPE_BIT(TR_FLOAT32) | TR_DTYPE_BIT(TR_FLOAT64) | TR_DTYPE_BIT(TR_INT32) |                  \
   TR_DTYPE_BIT(TR_INT64) | TR_DTYPE_BIT(TR_BOOL))

/* StridedSlice masks are 32 bits wide, so a slice spec has fewer than 32 entries. */
#define SLICE_MAX_SPEC 31

/* ---- helpers ---------------------------------------------------------------------------- */

static const char *
op_type(TrOpId op)
{
  return tr_op_def(op)->type;
}

static bool
check_rank(int rank, const char *type, GError **error)
{
  if (rank <= TR_MAX_RANK)
    return true;
  tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type, "Too many dimensions");
  return false;
}

/* Whether `t` lies in memory row-major without gaps (its offset may be anything). */
static bool
is_dense(const TrTensor *t)
{
  int64_t expect = 1;
  for (int i = t->shape.rank - 1; i >= 0; i--) {
    if (t->shape.dims[i] != 1 && t->strides[i] != expect)
      return false;
    expect *= t->shape.dims[i];
  }
  return true;
}

static int64_t
product(const int64_t *dims, int from, int to)
{
  int64_t n = 1;
  for (int i = from; i < to; i++)
    n *= dims[i];
  return n;
}

/* A tensor description on `buf` (not refcounted: it lives on the stack for one copy). */
static TrTensor
geometry_on(const TrTensor *t)
{
  TrTensor g = *t;
  g.refcount = 0;
  return g;
}

static TrTensor *
view_from_geometry(const TrTensor *g)
{
  return tr_tensor_new_view(g->buf, g->dtype, &g->shape, g->strides, g->offset);
}

/* Kernels re-check their inputs with the op's own inference, so that a graph executor that
 * allocated `out` from a stale shape gets an error instead of a buffer overrun. */
static bool
kernel_precheck(TrOpId op, TrTensor *const *in, int n_in, const TrAttrs *attrs, const TrTensor *out,
                GError **error)
{
  TrTensorInfo stack_infos[8];
  g_autofree TrTensorInfo *heap_infos = n_in > 8 ? g_new(TrTensorInfo, n_in) : NULL;
  TrTensorInfo *infos = heap_infos ? heap_infos : stack_infos;
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

/* Read element i of an int32/int64 tensor of any layout. */
static int64_t
index_at(const TrTensor *t, int64_t i)
{
  int64_t j = tr_tensor_element_index(t, i);
  if (t->dtype == TR_INT32)
    return ((const int32_t *)t->buf->data)[j];
  return ((const int64_t *)t->buf->data)[j];
}

/* ---- Transpose -------------------------------------------------------------------------- */

/* The permutation for a tensor of `rank` dims: attrs.axes, or the dims reversed. */
static bool
transpose_perm(const TrAttrs *attrs, int rank, int64_t *perm, GError **error)
{
  const char *type = op_type(TR_OP_TRANSPOSE);
  if (attrs->n_axes < 0) {
    for (int i = 0; i < rank; i++)
      perm[i] = rank - 1 - i;
    return true;
  }
  if (attrs->n_axes != rank) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                    "transpose expects a vector of size %d. But input(1) is a vector of size %d",
                    rank, attrs->n_axes);
    return false;
  }
  bool seen[TR_MAX_RANK] = {false};
  for (int i = 0; i < rank; i++) {
    int64_t d = attrs->axes[i];
    if (d < 0 || d >= rank) {
      tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                      "%" G_GINT64_FORMAT " is out of range [0 .. %d)", d, rank);
      return false;
    }
    seen[d] = true;
    perm[i] = d;
  }
  for (int i = 0; i < rank; i++) {
    if (seen[i])
      continue;
    g_autoptr(GString) list = g_string_new(NULL);
    for (int k = 0; k < rank; k++)
      g_string_append_printf(list, "%s%" G_GINT64_FORMAT, k ? "," : "", perm[k]);
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type, "%d is missing from {%s}.", i,
                    list->str);
    return false;
  }
  return true;
}

static bool
infer_transpose(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,
                TrShape *shape, GError **error)
{
  const TrShape *x = &in[0].shape;
  *dtype = in[0].dtype;
  if (x->rank == TR_UNKNOWN && attrs->n_axes < 0) {
    *shape = tr_shape_unknown();
    return true;
  }
  int rank = x->rank == TR_UNKNOWN ? attrs->n_axes : x->rank;
  if (!check_rank(rank, op_type(TR_OP_TRANSPOSE), error))
    return false;
  int64_t perm[TR_MAX_RANK];
  if (!transpose_perm(attrs, rank, perm, error))
    return false;
  shape->rank = rank;
  for (int i = 0; i < rank; i++)
    shape->dims[i] = x->rank == TR_UNKNOWN ? TR_UNKNOWN : x->dims[perm[i]];
  return true;
}

static bool
transpose_geometry(TrTensor *const *in, const TrAttrs *attrs, TrTensor *g, GError **error)
{
  const TrTensor *x = in[0];
  int64_t perm[TR_MAX_RANK];
  if (!transpose_perm(attrs, x->shape.rank, perm, error))
    return false;
  *g = geometry_on(x);
  for (int i = 0; i < x->shape.rank; i++) {
    g->shape.dims[i] = x->shape.dims[perm[i]];
    g->strides[i] = x->strides[perm[i]];
  }
  return true;
}

/* ---- Reshape ---------------------------------------------------------------------------- */

/* The output shape of reshaping `x` to attrs.axes (one entry may be -1). */
static bool
reshape_target(const TrShape *x, const TrAttrs *attrs, TrShape *out, GError **error)
{
  const char *type = op_type(TR_OP_RESHAPE);
  g_return_val_if_fail(attrs->n_axes >= 0 && attrs->n_axes <= TR_MAX_RANK, false);
  int unknown_index = -1;
  int64_t known_product = 1; /* of the nonzero requested sizes */
  bool sizes_have_zero = false;
  out->rank = attrs->n_axes;
  for (int d = 0; d < attrs->n_axes; d++) {
    int64_t size = attrs->axes[d];
    out->dims[d] = size;
    if (size == -1) {
      if (unknown_index != -1) {
        tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                        "Only one input size may be -1, not both %d and %d", unknown_index, d);
        return false;
      }
      unknown_index = d;
    } else if (size < 0) {
      tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                      "Size %d must be non-negative, not %" G_GINT64_FORMAT, d, size);
      return false;
    } else if (size == 0) {
      sizes_have_zero = true;
    } else if (known_product > G_MAXINT64 / size) {
      /* the product of [2**62, 2**62] would wrap around to 0 and pass for an empty input */
      tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                      "Encountered overflow when multiplying %" G_GINT64_FORMAT
                      " with %" G_GINT64_FORMAT ", result: -1",
                      known_product, size);
      return false;
    } else {
      known_product *= size;
    }
  }
  if (!tr_shape_is_fully_defined(x))
    return true; /* the -1 (if any) stays unknown: out->dims[unknown_index] is TR_UNKNOWN */

  int64_t n = tr_shape_num_elements(x);
  if (unknown_index != -1) {
    /* Zero-sized input dims are left out when the request has a zero, so that the other
     * sizes can still be inferred. */
    int64_t input_elements = 1;
    bool input_has_zero = false;
    for (int d = 0; d < x->rank; d++) {
      if (x->dims[d] > 0 || !sizes_have_zero)
        input_elements *= x->dims[d];
      else
        input_has_zero = true;
    }
    int64_t missing = input_elements / known_product;
    if (!input_has_zero && missing * known_product != input_elements) {
      tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                      "Input to reshape is a tensor with %" G_GINT64_FORMAT
                      " values, but the requested shape requires a multiple of %" G_GINT64_FORMAT,
                      input_elements, known_product);
      return false;
    }
    out->dims[unknown_index] = missing;
  }
  int64_t requested = tr_shape_num_elements(out);
  if (requested != n) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                    "Input to reshape is a tensor with %" G_GINT64_FORMAT
                    " values, but the requested shape has %" G_GINT64_FORMAT,
                    n, requested);
    return false;
  }
  return true;
}

/* The sizes of Reshape, Tile (multiples) and BroadcastTo (shape): attrs.axes, or with a second
 * input (sizes only known when a graph runs: tf.reshape(x, [tf.shape(x)[0], -1])) that input's
 * value, copied into `request`. Without that value, *known is FALSE and `request` holds its
 * length (n_axes, possibly TR_UNKNOWN). */
static bool
sizes_request(TrOpId op, const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrAttrs *request,
              bool *known, GError **error)
{
  const char *type = op_type(op);
  *request = *attrs;
  *known = true;
  if (n_in == 1)
    return true;
  if (n_in != 2) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                    "%s takes a tensor and its sizes, not %d inputs", type, n_in);
    return false;
  }
  const TrTensorInfo *sizes = &in[1];
  if (!tr_check_dtype_allowed(sizes->dtype, INDEX_DTYPES, "Tshape", type, error))
    return false;
  const TrShape *s = sizes->value ? &sizes->value->shape : &sizes->shape;
  if (s->rank != TR_UNKNOWN && s->rank != 1) {
    g_autofree char *str = tr_shape_to_error_string(s);
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type, "sizes input must be 1-D, not %s", str);
    return false;
  }
  int64_t n = s->rank == 1 ? s->dims[0] : TR_UNKNOWN;
  if (n > TR_MAX_RANK) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type, "shapes may have at most %d dimensions",
                    TR_MAX_RANK);
    return false;
  }
  request->n_axes = (int)n;
  if (!sizes->value) {
    *known = false;
    return true;
  }
  for (int d = 0; d < (int)n; d++)
    request->axes[d] = tr_tensor_get_i64(sizes->value, d);
  return true;
}

static bool
infer_reshape(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,
              TrShape *shape, GError **error)
{
  *dtype = in[0].dtype;
  TrAttrs request;
  bool known;
  if (!sizes_request(TR_OP_RESHAPE, in, n_in, attrs, &request, &known, error))
    return false;
  if (known)
    return reshape_target(&in[0].shape, &request, shape, error);
  /* Sizes known only when the graph runs: the rank is the sizes' length, if that is known. */
  shape->rank = request.n_axes;
  for (int d = 0; d < request.n_axes; d++)
    shape->dims[d] = TR_UNKNOWN;
  return true;
}

static TrTensor *
view_reshape(TrTensor *const *in, int n_in, const TrAttrs *attrs, const TrShape *out_shape)
{
  const TrTensor *x = in[0];
  if (!is_dense(x))
    return NULL;
  int64_t strides[TR_MAX_RANK];
  tr_shape_contiguous_strides(out_shape, strides);
  return tr_tensor_new_view(x->buf, x->dtype, out_shape, strides, x->offset);
}

static bool
kernel_reshape(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  if (!kernel_precheck(TR_OP_RESHAPE, in, n_in, attrs, out, error))
    return false;
  /* Row-major order is kept: write x's elements into out's buffer seen with x's shape. */
  TrTensor dst = geometry_on(out);
  dst.shape = in[0]->shape;
  tr_shape_contiguous_strides(&dst.shape, dst.strides);
  tr_tensor_copy_into(&dst, in[0]);
  return true;
}

/* ---- ConcatV2 --------------------------------------------------------------------------- */

/* ConcatOp's errors: ranks differ (dim < 0), or dim `dim` differs. Returns FALSE. */
static bool
concat_shape_error(GError **error, int dim, const TrShape *first, int i, const TrShape *s)
{
  g_autofree char *s0 = tr_shape_to_error_string(first);
  g_autofree char *si = tr_shape_to_error_string(s);
  if (dim < 0)
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, op_type(TR_OP_CONCAT),
                    "ConcatOp : Ranks of all input tensors should match: shape[0] = %s vs. "
                    "shape[%d] = %s",
                    s0, i, si);
  else
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, op_type(TR_OP_CONCAT),
                    "ConcatOp : Dimension %d in both shapes must be equal: shape[0] = %s vs. "
                    "shape[%d] = %s",
                    dim, s0, i, si);
  return false;
}

static bool
infer_concat(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype, TrShape *shape,
             GError **error)
{
  const char *type = op_type(TR_OP_CONCAT);
  *dtype = in[0].dtype;
  for (int i = 1; i < n_in; i++) {
    if (in[i].dtype != in[0].dtype) {
      tr_set_dtype_mismatch(error, type, i, in[0].dtype, in[i].dtype);
      return false;
    }
  }
  const TrShape *first = &in[0].shape;
  int rank = first->rank;
  for (int i = 1; i < n_in && rank == TR_UNKNOWN; i++)
    rank = in[i].shape.rank;
  if (rank == TR_UNKNOWN) {
    *shape = tr_shape_unknown();
    return true;
  }
  int64_t axis;
  /* An axis of 0 also accepts scalars, which concatenate into a vector (TF's legacy rule). */
  if (!tr_axis_normalize(attrs->axis, rank, &axis) && attrs->axis != 0) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                    "ConcatOp : Expected concatenating dimensions in the range [%d, %d), but "
                    "got %" G_GINT64_FORMAT,
                    -rank, rank, attrs->axis);
    return false;
  }
  if (rank == 0)
    axis = 0;

  *shape = (TrShape){.rank = MAX(rank, 1)};
  for (int j = 0; j < rank; j++)
    shape->dims[j] = TR_UNKNOWN;
  int64_t total = 0;
  for (int i = 0; i < n_in; i++) {
    const TrShape *s = &in[i].shape;
    if (s->rank == TR_UNKNOWN) {
      total = TR_UNKNOWN;
      continue;
    }
    if (s->rank != rank)
      return concat_shape_error(error, -1, first, i, s);
    for (int j = 0; j < rank; j++) {
      if (j == axis || s->dims[j] == TR_UNKNOWN)
        continue;
      if (shape->dims[j] != TR_UNKNOWN && shape->dims[j] != s->dims[j])
        return concat_shape_error(error, j, first, i, s);
      shape->dims[j] = s->dims[j];
    }
    int64_t part = rank == 0 ? 1 : s->dims[axis];
    if (total != TR_UNKNOWN)
      total = part == TR_UNKNOWN ? TR_UNKNOWN : total + part;
  }
  shape->dims[axis] = total;
  return true;
}

static bool
kernel_concat(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  if (!kernel_precheck(TR_OP_CONCAT, in, n_in, attrs, out, error))
    return false;
  int rank = in[0]->shape.rank;
  int64_t axis = 0;
  if (rank > 0)
    tr_axis_normalize(attrs->axis, rank, &axis);
  int64_t start = 0;
  for (int i = 0; i < n_in; i++) {
    TrTensor dst = geometry_on(out);
    dst.shape = in[i]->shape;
    dst.offset = out->offset + start * out->strides[axis];
    tr_tensor_copy_into(&dst, in[i]);
    start += rank == 0 ? 1 : in[i]->shape.dims[axis];
  }
  return true;
}

/* ---- Pack (stack) ----------------------------------------------------------------------- */

static bool
infer_stack(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype, TrShape *shape,
            GError **error)
{
  const char *type = op_type(TR_OP_STACK);
  *dtype = in[0].dtype;
  for (int i = 1; i < n_in; i++) {
    if (in[i].dtype != in[0].dtype) {
      tr_set_dtype_mismatch(error, type, i, in[0].dtype, in[i].dtype);
      return false;
    }
  }
  TrShape merged = tr_shape_unknown();
  for (int i = 0; i < n_in && merged.rank == TR_UNKNOWN; i++)
    merged = in[i].shape;
  if (merged.rank == TR_UNKNOWN) {
    *shape = tr_shape_unknown();
    return true;
  }
  int expanded = merged.rank + 1;
  int64_t axis;
  if (!tr_axis_normalize(attrs->axis, expanded, &axis)) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                    "axis = %" G_GINT64_FORMAT " not in [%d, %d)", attrs->axis, -expanded,
                    expanded);
    return false;
  }
  if (!check_rank(expanded, type, error))
    return false;
  for (int i = 0; i < n_in; i++) {
    const TrShape *s = &in[i].shape;
    if (s->rank == TR_UNKNOWN)
      continue;
    bool same = s->rank == merged.rank;
    for (int j = 0; same && j < s->rank; j++) {
      if (merged.dims[j] == TR_UNKNOWN)
        merged.dims[j] = s->dims[j];
      else if (s->dims[j] != TR_UNKNOWN && s->dims[j] != merged.dims[j])
        same = false;
    }
    if (!same) {
      g_autofree char *s0 = tr_shape_to_error_string(&in[0].shape);
      g_autofree char *si = tr_shape_to_error_string(s);
      tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                      "Shapes of all inputs must match: values[0].shape = %s != values[%d].shape "
                      "= %s",
                      s0, i, si);
      return false;
    }
  }
  shape->rank = expanded;
  for (int j = 0, k = 0; j < expanded; j++)
    shape->dims[j] = j == axis ? n_in : merged.dims[k++];
  return true;
}

static bool
kernel_stack(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  if (!kernel_precheck(TR_OP_STACK, in, n_in, attrs, out, error))
    return false;
  int64_t axis;
  tr_axis_normalize(attrs->axis, out->shape.rank, &axis);
  for (int i = 0; i < n_in; i++) {
    TrTensor dst = geometry_on(out);
    dst.shape = in[i]->shape;
    for (int j = 0, k = 0; j < out->shape.rank; j++)
      if (j != axis)
        dst.strides[k++] = out->strides[j];
    dst.offset = out->offset + i * out->strides[axis];
    tr_tensor_copy_into(&dst, in[i]);
  }
  return true;
}

/* ---- Squeeze ---------------------------------------------------------------------------- */

/* Which dims of `x` squeeze drops. FALSE with *unknown set (and no error) when that depends on
 * dims not known yet. */
static bool
squeeze_dims(const TrShape *x, const TrAttrs *attrs, bool *drop, bool *unknown, GError **error)
{
  const char *type = op_type(TR_OP_SQUEEZE);
  *unknown = false;
  for (int d = 0; d < x->rank; d++)
    drop[d] = false;
  if (attrs->n_axes <= 0) {
    for (int d = 0; d < x->rank; d++) {
      if (x->dims[d] == TR_UNKNOWN) {
        *unknown = true;
        return false;
      }
      drop[d] = x->dims[d] == 1;
    }
    return true;
  }
  for (int i = 0; i < attrs->n_axes; i++) {
    int64_t d;
    if (!tr_axis_normalize(attrs->axes[i], x->rank, &d)) {
      tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                      "Tried to squeeze dim index %" G_GINT64_FORMAT " for tensor with %d "
                      "dimensions.",
                      attrs->axes[i], x->rank);
      return false;
    }
    drop[d] = true;
  }
  for (int d = 0; d < x->rank; d++) {
    if (drop[d] && x->dims[d] != 1 && x->dims[d] != TR_UNKNOWN) {
      tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                      "Can not squeeze dim[%d], expected a dimension of 1, got %" G_GINT64_FORMAT,
                      d, x->dims[d]);
      return false;
    }
  }
  return true;
}

static bool
infer_squeeze(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,
              TrShape *shape, GError **error)
{
  const TrShape *x = &in[0].shape;
  *dtype = in[0].dtype;
  bool drop[TR_MAX_RANK], unknown;
  if (x->rank == TR_UNKNOWN) {
    *shape = tr_shape_unknown();
    return true;
  }
  if (!squeeze_dims(x, attrs, drop, &unknown, error)) {
    *shape = tr_shape_unknown();
    return unknown;
  }
  shape->rank = 0;
  for (int d = 0; d < x->rank; d++)
    if (!drop[d])
      shape->dims[shape->rank++] = x->dims[d];
  return true;
}

static bool
squeeze_geometry(TrTensor *const *in, const TrAttrs *attrs, TrTensor *g, GError **error)
{
  const TrTensor *x = in[0];
  bool drop[TR_MAX_RANK], unknown;
  if (!squeeze_dims(&x->shape, attrs, drop, &unknown, error))
    return false;
  *g = geometry_on(x);
  g->shape.rank = 0;
  for (int d = 0; d < x->shape.rank; d++) {
    if (drop[d])
      continue;
    g->strides[g->shape.rank] = x->strides[d];
    g->shape.dims[g->shape.rank++] = x->shape.dims[d];
  }
  return true;
}

/* ---- ExpandDims ------------------------------------------------------------------------- */

/* Where the new dim goes in a tensor of `rank` dims: NumPy's rule, -1 appends. */
static bool
expand_axis(int64_t axis, int rank, int *out, GError **error)
{
  const char *type = op_type(TR_OP_EXPAND_DIMS);
  if (axis < -1 - rank || axis > rank) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                    "Tried to expand dim index %" G_GINT64_FORMAT " for tensor with %d "
                    "dimensions.",
                    axis, rank);
    return false;
  }
  if (!check_rank(rank + 1, type, error))
    return false;
  *out = (int)(axis < 0 ? axis + rank + 1 : axis);
  return true;
}

static bool
infer_expand_dims(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,
                  TrShape *shape, GError **error)
{
  const TrShape *x = &in[0].shape;
  *dtype = in[0].dtype;
  if (x->rank == TR_UNKNOWN) {
    *shape = tr_shape_unknown();
    return true;
  }
  int axis;
  if (!expand_axis(attrs->axis, x->rank, &axis, error))
    return false;
  shape->rank = x->rank + 1;
  for (int d = 0, k = 0; d < shape->rank; d++)
    shape->dims[d] = d == axis ? 1 : x->dims[k++];
  return true;
}

static bool
expand_dims_geometry(TrTensor *const *in, const TrAttrs *attrs, TrTensor *g, GError **error)
{
  const TrTensor *x = in[0];
  int axis;
  if (!expand_axis(attrs->axis, x->shape.rank, &axis, error))
    return false;
  *g = geometry_on(x);
  g->shape.rank = x->shape.rank + 1;
  for (int d = 0, k = 0; d < g->shape.rank; d++) {
    if (d == axis) {
      g->shape.dims[d] = 1;
      g->strides[d] = k < x->shape.rank ? x->strides[k] * x->shape.dims[k] : 1;
      continue;
    }
    g->shape.dims[d] = x->shape.dims[k];
    g->strides[d] = x->strides[k++];
  }
  return true;
}

/* ---- GatherV2 --------------------------------------------------------------------------- */

/* The gather axis of `params_rank`-dim params. */
static bool
gather_axis(int64_t axis, int params_rank, int *out, GError **error)
{
  const char *type = op_type(TR_OP_GATHER);
  if (params_rank == 0) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                    "params must be at least 1 dimensional");
    return false;
  }
  int64_t min_rank = axis < 0 ? -axis : axis + 1;
  if (params_rank < min_rank) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                    "Shape must be at least rank %" G_GINT64_FORMAT " but is rank %d", min_rank,
                    params_rank);
    return false;
  }
  *out = (int)(axis < 0 ? axis + params_rank : axis);
  return true;
}

static bool
infer_gather(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype, TrShape *shape,
             GError **error)
{
  const char *type = op_type(TR_OP_GATHER);
  const TrShape *params = &in[0].shape, *indices = &in[1].shape;
  *dtype = in[0].dtype;
  if (!tr_check_dtype_allowed(in[1].dtype, INDEX_DTYPES, "Tindices", type, error))
    return false;
  if (params->rank == TR_UNKNOWN || indices->rank == TR_UNKNOWN) {
    *shape = tr_shape_unknown();
    return true;
  }
  int axis;
  if (!gather_axis(attrs->axis, params->rank, &axis, error))
    return false;
  int rank = params->rank - 1 + indices->rank;
  if (!check_rank(rank, type, error))
    return false;
  shape->rank = 0;
  for (int d = 0; d < axis; d++)
    shape->dims[shape->rank++] = params->dims[d];
  for (int d = 0; d < indices->rank; d++)
    shape->dims[shape->rank++] = indices->dims[d];
  for (int d = axis + 1; d < params->rank; d++)
    shape->dims[shape->rank++] = params->dims[d];
  return true;
}

/* "[1]" or "[0,2]": where flat element `flat` sits in `shape` (TF's SliceDebugString). */
static char *
slice_debug_string(const TrShape *shape, int64_t flat)
{
  if (shape->rank == 0)
    return g_strdup("");
  int64_t coords[TR_MAX_RANK];
  for (int d = shape->rank - 1; d >= 0; d--) {
    coords[d] = flat % shape->dims[d];
    flat /= shape->dims[d];
  }
  GString *s = g_string_new("[");
  for (int d = 0; d < shape->rank; d++)
    g_string_append_printf(s, "%s%" G_GINT64_FORMAT, d ? "," : "", coords[d]);
  g_string_append_c(s, ']');
  return g_string_free(s, FALSE);
}

static bool
gather_check_indices(const TrTensor *indices, const int64_t *idx, int64_t limit, GError **error)
{
  int64_t n = tr_tensor_num_elements(indices);
  for (int64_t j = 0; j < n; j++) {
    if (idx[j] >= 0 && idx[j] < limit)
      continue;
    g_autofree char *where = slice_debug_string(&indices->shape, j);
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, op_type(TR_OP_GATHER),
                    "indices%s = %" G_GINT64_FORMAT " is not in [0, %" G_GINT64_FORMAT ")", where,
                    idx[j], limit);
    return false;
  }
  return true;
}

/* out[o, j, i] = params[o, idx[j], i] on dense params: one memcpy per slice, or a typed
 * load and store when a slice is one element. */
static void
gather_dense(const TrTensor *params, const int64_t *idx, int64_t n_idx, int64_t outer,
             int64_t limit, int64_t inner, TrTensor *out)
{
  int64_t size = (int64_t)tr_dtype_size(params->dtype);
  int64_t row = inner * size;
  const char *src = (const char *)params->buf->data + params->offset * size;
  char *dst = tr_tensor_data(out);
#define GATHER_ELEMENTS(ctype)                                                                     \
  {                                                                                                \
    for (int64_t o = 0; o < outer; o++, dst += n_idx * row)                                        \
      for (int64_t j = 0; j < n_idx; j++)                                                          \
        ((ctype *)dst)[j] = ((const ctype *)src)[o * limit + idx[j]];                              \
    return;                                                                                        \
  }
  if (inner == 1 && size == 4)
    GATHER_ELEMENTS(uint32_t)
  if (inner == 1 && size == 8)
    GATHER_ELEMENTS(uint64_t)
  if (inner == 1 && size == 1)
    GATHER_ELEMENTS(uint8_t)
#undef GATHER_ELEMENTS
  for (int64_t o = 0; o < outer; o++)
    for (int64_t j = 0; j < n_idx; j++, dst += row)
      memcpy(dst, src + (o * limit + idx[j]) * row, (size_t)row);
}

/* The same for any layout and for strings: one strided copy per index. */
static void
gather_strided(const TrTensor *params, int axis, const int64_t *idx, int64_t n_idx,
               int indices_rank, TrTensor *out)
{
  TrTensor src = geometry_on(params), dst = geometry_on(out);
  src.shape.rank = dst.shape.rank = params->shape.rank - 1;
  for (int d = 0, k = 0; d < params->shape.rank; d++) {
    if (d == axis)
      continue;
    src.shape.dims[k] = dst.shape.dims[k] = params->shape.dims[d];
    src.strides[k] = params->strides[d];
    dst.strides[k] = out->strides[d < axis ? d : d - 1 + indices_rank];
    k++;
  }
  int64_t inner = product(params->shape.dims, axis + 1, params->shape.rank);
  for (int64_t j = 0; j < n_idx; j++) {
    src.offset = params->offset + idx[j] * params->strides[axis];
    dst.offset = out->offset + j * inner;
    tr_tensor_copy_into(&dst, &src);
  }
}

static bool
kernel_gather(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  if (!kernel_precheck(TR_OP_GATHER, in, n_in, attrs, out, error))
    return false;
  const TrTensor *params = in[0], *indices = in[1];
  int axis;
  gather_axis(attrs->axis, params->shape.rank, &axis, NULL);
  int64_t outer = product(params->shape.dims, 0, axis);
  int64_t limit = params->shape.dims[axis];
  int64_t inner = product(params->shape.dims, axis + 1, params->shape.rank);
  int64_t n_idx = tr_tensor_num_elements(indices);
  if (outer == 0 || inner == 0 || n_idx == 0)
    return true; /* nothing is read, so no index is checked (as in TF) */

  g_autofree int64_t *idx = g_new(int64_t, n_idx);
  for (int64_t j = 0; j < n_idx; j++)
    idx[j] = index_at(indices, j);
  if (!gather_check_indices(indices, idx, limit, error))
    return false;
  if (is_dense(params) && params->dtype != TR_STRING)
    gather_dense(params, idx, n_idx, outer, limit, inner, out);
  else
    gather_strided(params, axis, idx, n_idx, indices->shape.rank, out);
  return true;
}

/* ---- OneHot ----------------------------------------------------------------------------- */

static TrDType
one_hot_dtype(const TrAttrs *attrs)
{
  return attrs->dtype == TR_DTYPE_INVALID ? TR_FLOAT32 : attrs->dtype;
}

static bool
infer_one_hot(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,
              TrShape *shape, GError **error)
{
  const char *type = op_type(TR_OP_ONE_HOT);
  const TrShape *x = &in[0].shape;
  *dtype = one_hot_dtype(attrs);
  if (!tr_check_dtype_allowed(*dtype, NUMERIC_OR_BOOL_DTYPES, "T", type, error) ||
      !tr_check_dtype_allowed(in[0].dtype, INDEX_DTYPES, "TI", type, error))
    return false;
  if (x->rank == TR_UNKNOWN) {
    *shape = tr_shape_unknown();
    return true;
  }
  int out_rank = x->rank + 1;
  if (attrs->axis != -1 && (attrs->axis < 0 || attrs->axis >= out_rank)) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                    "Expected axis to be -1 or between [0, %d).  But received: %" G_GINT64_FORMAT,
                    out_rank, attrs->axis);
    return false;
  }
  if (attrs->depth < 0) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                    "depth must be non-negative, got: %" G_GINT64_FORMAT, attrs->depth);
    return false;
  }
  if (!check_rank(out_rank, type, error))
    return false;
  int axis = attrs->axis == -1 ? x->rank : (int)attrs->axis;
  shape->rank = out_rank;
  for (int d = 0, k = 0; d < out_rank; d++)
    shape->dims[d] = d == axis ? attrs->depth : x->dims[k++];
  return true;
}

static bool
kernel_one_hot(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  if (!kernel_precheck(TR_OP_ONE_HOT, in, n_in, attrs, out, error))
    return false;
  const TrTensor *indices = in[0];
  int64_t n = tr_tensor_num_elements(out);
  if (n == 0)
    return true;
  int axis = attrs->axis == -1 ? indices->shape.rank : (int)attrs->axis;
  int64_t suffix = product(indices->shape.dims, axis, indices->shape.rank);
  int64_t prefix = product(indices->shape.dims, 0, axis);
  int64_t depth = attrs->depth;
  char *data = tr_tensor_data(out);
  tr_store_number(data, out->dtype, 0, attrs->off_value);
  tr_splat_first(data, tr_dtype_size(out->dtype), n);
  for (int64_t p = 0; p < prefix; p++) {
    for (int64_t s = 0; s < suffix; s++) {
      int64_t d = index_at(indices, p * suffix + s);
      if (d >= 0 && d < depth)
        tr_store_number(data, out->dtype, (p * depth + d) * suffix + s, attrs->on_value);
    }
  }
  return true;
}

/* ---- StridedSlice ----------------------------------------------------------------------- */

/* The slice spec as the op's inputs and masks give it ("sparse": one entry per index item). */
typedef struct {
  int n;                           /* entries */
  bool begin_known;                /* begin values are known */
  bool end_known;                  /* end values are known */
  int64_t begin[SLICE_MAX_SPEC];   /* per entry */
  int64_t end[SLICE_MAX_SPEC];     /* per entry */
  int64_t strides[SLICE_MAX_SPEC]; /* per entry; always known */
} SliceSpec;

/* What the spec takes from each input dim, and where each output dim comes from. */
typedef struct {
  int64_t begin[TR_MAX_RANK];  /* first index taken per input dim */
  int64_t stride[TR_MAX_RANK]; /* step per input dim */
  int64_t size[TR_MAX_RANK];   /* elements taken per input dim; TR_UNKNOWN if not known */
  int out_rank;                /* output dims */
  int out_src[TR_MAX_RANK];    /* per output dim: the input dim it keeps, or -1 (new axis) */
} SlicePlan;

/* The spec with its entries matched to input dims (TF's "dense" spec). */
typedef struct {
  int64_t begin[TR_MAX_RANK];  /* per input dim */
  int64_t end[TR_MAX_RANK];    /* per input dim */
  int64_t stride[TR_MAX_RANK]; /* per input dim */
  uint64_t begin_mask;         /* per input dim: begin is "from the start" */
  uint64_t end_mask;           /* per input dim: end is "to the end" */
  uint64_t shrink_mask;        /* per input dim: an integer index, dim dropped */
} DenseSpec;

static bool
slice_push_output(SlicePlan *p, int src, GError **error)
{
  if (p->out_rank == TR_MAX_RANK) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, op_type(TR_OP_STRIDED_SLICE),
                    "Too many dimensions");
    return false;
  }
  p->out_src[p->out_rank++] = src;
  return true;
}

/* Expand the ellipsis (an implicit one ends every spec) and assign entries to input dims. */
static bool
slice_dense_spec(int rank, const SliceSpec *sp, const TrAttrs *m, DenseSpec *ds, SlicePlan *p,
                 GError **error)
{
  const char *type = op_type(TR_OP_STRIDED_SLICE);
  uint64_t ellipsis = m->ellipsis_mask, new_axis = m->new_axis_mask;
  int n_new_after = 0, n = sp->n;
  bool seen = false;
  for (int i = 0; i < n; i++) {
    if (seen && (new_axis >> i & 1))
      n_new_after++;
    if (ellipsis >> i & 1)
      seen = true;
  }
  if (!seen)
    ellipsis |= UINT64_C(1) << n++;

  *ds = (DenseSpec){0};
  p->out_rank = 0;
  int full = 0;
  for (int i = 0; i < n; i++) {
    if (ellipsis >> i & 1) {
      int next = MIN(rank - (n - i) + 1 + n_new_after, rank);
      for (; full < next; full++) {
        ds->stride[full] = 1;
        ds->begin_mask |= UINT64_C(1) << full;
        ds->end_mask |= UINT64_C(1) << full;
        if (!slice_push_output(p, full, error))
          return false;
      }
    } else if (new_axis >> i & 1) {
      if (!slice_push_output(p, -1, error))
        return false;
    } else {
      if (full == rank) {
        tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                        "Index out of range using input dim %d; input has only %d dims", full,
                        rank);
        return false;
      }
      ds->begin[full] = sp->begin_known ? sp->begin[i] : 0;
      ds->end[full] = sp->end_known ? sp->end[i] : 0;
      ds->stride[full] = sp->strides[i];
      ds->begin_mask |= (uint64_t)(m->begin_mask >> i & 1) << full;
      ds->end_mask |= (uint64_t)(m->end_mask >> i & 1) << full;
      if (m->shrink_axis_mask >> i & 1)
        ds->shrink_mask |= UINT64_C(1) << full;
      else if (!slice_push_output(p, full, error))
        return false;
      full++;
    }
  }
  return true;
}

/* A begin (c = 0) or end (c = 1) index made positive and clamped, as NumPy does for slices. */
static int64_t
slice_canonical(int64_t x, int c, bool masked, int64_t stride, int64_t dim)
{
  int64_t lo = stride > 0 ? 0 : -1, hi = stride > 0 ? dim : dim - 1;
  if (masked)
    return (stride > 0) == (c == 0) ? lo : hi;
  int64_t fwd = x < 0 ? dim + x : x;
  return fwd < lo ? lo : fwd > hi ? hi : fwd;
}

/* Begin, stride and size for input dim d. */
static bool
slice_dim(const TrShape *x, const SliceSpec *sp, const DenseSpec *ds, int d, SlicePlan *p,
          GError **error)
{
  const char *type = op_type(TR_OP_STRIDED_SLICE);
  int64_t stride = ds->stride[d], dim = x->dims[d];
  bool shrink = ds->shrink_mask >> d & 1;
  bool begin_masked = ds->begin_mask >> d & 1, end_masked = ds->end_mask >> d & 1;
  p->stride[d] = stride;
  p->begin[d] = 0;
  if (stride == 0) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type, "strides[%d] must be non-zero", d);
    return false;
  }
  if (dim == TR_UNKNOWN) {
    p->size[d] = shrink ? 1 : TR_UNKNOWN;
    return true;
  }
  if (shrink && stride <= 0) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                    "only stride 1 allowed on non-range indexing.");
    return false;
  }
  int64_t interval;
  if (sp->begin_known && sp->end_known) {
    int64_t begin = ds->begin[d], end;
    if (shrink) {
      begin = begin < 0 ? dim + begin : begin;
      end = begin + 1;
      if (begin < 0 || begin >= dim) {
        tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                        "slice index %" G_GINT64_FORMAT " of dimension %d out of bounds.", begin,
                        d);
        return false;
      }
    } else {
      begin = slice_canonical(begin, 0, begin_masked, stride, dim);
      end = slice_canonical(ds->end[d], 1, end_masked, stride, dim);
    }
    p->begin[d] = begin;
    interval = end - begin;
  } else if (shrink) {
    interval = 1;
  } else if (begin_masked && end_masked) {
    interval = stride < 0 ? -dim : dim;
  } else {
    p->size[d] = TR_UNKNOWN;
    return true;
  }
  if (interval == 0 || (interval < 0) != (stride < 0))
    p->size[d] = 0;
  else
    p->size[d] = interval / stride + (interval % stride != 0);
  return true;
}

static bool
slice_plan(const TrShape *x, const SliceSpec *sp, const TrAttrs *masks, SlicePlan *p,
           GError **error)
{
  const char *type = op_type(TR_OP_STRIDED_SLICE);
  if (masks->ellipsis_mask & (masks->ellipsis_mask - 1)) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                    "Multiple ellipses in slice spec not allowed");
    return false;
  }
  DenseSpec ds;
  if (!slice_dense_spec(x->rank, sp, masks, &ds, p, error))
    return false;
  for (int d = 0; d < x->rank; d++)
    if (!slice_dim(x, sp, &ds, d, p, error))
      return false;
  return true;
}

/* Read the begin/end/strides inputs into a spec; FALSE with *unknown when strides are not
 * known (the output shape is then unknown), or with an error when they are malformed. */
static bool
slice_spec_read(const TrTensorInfo *in, SliceSpec *sp, bool *unknown, GError **error)
{
  const char *type = op_type(TR_OP_STRIDED_SLICE);
  *unknown = false;
  if (!tr_check_dtype_allowed(in[1].dtype, INDEX_DTYPES, "Index", type, error))
    return false;
  for (int i = 2; i <= 3; i++) {
    if (in[i].dtype != in[1].dtype) {
      tr_set_dtype_mismatch(error, type, i, in[1].dtype, in[i].dtype);
      return false;
    }
  }
  /* A known value's own shape is authoritative: its elements are read below. */
  const TrShape *b = in[1].value ? &in[1].value->shape : &in[1].shape;
  const TrShape *e = in[2].value ? &in[2].value->shape : &in[2].shape;
  const TrShape *s = in[3].value ? &in[3].value->shape : &in[3].shape;
  bool bad = false;
  for (const TrShape *const *t = (const TrShape *const[]){b, e, s, NULL}; *t; t++)
    bad |= (*t)->rank != TR_UNKNOWN && (*t)->rank != 1;
  if (!bad && b->rank == 1 && e->rank == 1 && s->rank == 1) {
    int64_t nb = b->dims[0], ne = e->dims[0], ns = s->dims[0];
    bad = (nb != TR_UNKNOWN && ns != TR_UNKNOWN && nb != ns) ||
          (ne != TR_UNKNOWN && ns != TR_UNKNOWN && ne != ns) ||
          (nb != TR_UNKNOWN && ne != TR_UNKNOWN && nb != ne) || nb > SLICE_MAX_SPEC ||
          ne > SLICE_MAX_SPEC || ns > SLICE_MAX_SPEC;
  }
  if (bad) {
    g_autofree char *sb = tr_shape_to_error_string(b);
    g_autofree char *se = tr_shape_to_error_string(e);
    g_autofree char *ss = tr_shape_to_error_string(s);
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                    "Expected begin, end, and strides to be 1D equal size tensors, but got "
                    "shapes %s, %s, and %s instead.",
                    sb, se, ss);
    return false;
  }
  if (!in[3].value) {
    *unknown = true;
    return false;
  }
  sp->n = (int)tr_tensor_num_elements(in[3].value);
  sp->begin_known = in[1].value != NULL;
  sp->end_known = in[2].value != NULL;
  for (int i = 0; i < sp->n; i++) {
    sp->strides[i] = index_at(in[3].value, i);
    sp->begin[i] = sp->begin_known ? index_at(in[1].value, i) : 0;
    sp->end[i] = sp->end_known ? index_at(in[2].value, i) : 0;
  }
  return true;
}

static bool
infer_strided_slice(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,
                    TrShape *shape, GError **error)
{
  *dtype = in[0].dtype;
  SliceSpec sp;
  bool unknown;
  if (!slice_spec_read(in, &sp, &unknown, error)) {
    *shape = tr_shape_unknown();
    return unknown;
  }
  if (in[0].shape.rank == TR_UNKNOWN) {
    *shape = tr_shape_unknown();
    return true;
  }
  SlicePlan p;
  if (!slice_plan(&in[0].shape, &sp, attrs, &p, error))
    return false;
  shape->rank = p.out_rank;
  for (int k = 0; k < p.out_rank; k++)
    shape->dims[k] = p.out_src[k] < 0 ? 1 : p.size[p.out_src[k]];
  return true;
}

static bool
strided_slice_geometry(TrTensor *const *in, const TrAttrs *attrs, TrTensor *g, GError **error)
{
  const TrTensor *x = in[0];
  TrTensorInfo infos[4];
  for (int i = 0; i < 4; i++)
    infos[i] = (TrTensorInfo){.dtype = in[i]->dtype, .shape = in[i]->shape, .value = in[i]};
  SliceSpec sp;
  bool unknown;
  SlicePlan p;
  if (!slice_spec_read(infos, &sp, &unknown, error) ||
      !slice_plan(&x->shape, &sp, attrs, &p, error))
    return false;
  *g = geometry_on(x);
  bool empty = false;
  for (int d = 0; d < x->shape.rank; d++) {
    empty |= p.size[d] == 0;
    g->offset += p.begin[d] * x->strides[d];
  }
  if (empty)
    g->offset = x->offset; /* a clamped begin may lie outside the buffer; nothing is read */
  g->shape.rank = p.out_rank;
  for (int k = 0; k < p.out_rank; k++) {
    int src = p.out_src[k];
    g->shape.dims[k] = src < 0 ? 1 : p.size[src];
    g->strides[k] = src < 0 ? 0 : x->strides[src] * p.stride[src];
  }
  return true;
}

/* ---- view ops: view functions and kernels from their geometry ---------------------------- */

typedef bool (*GeometryFunc)(TrTensor *const *in, const TrAttrs *attrs, TrTensor *g,
                             GError **error);

static TrTensor *
view_via(GeometryFunc geometry, TrTensor *const *in, const TrAttrs *attrs, const TrShape *out_shape)
{
  TrTensor g;
  if (!geometry(in, attrs, &g, NULL))
    return NULL;
  g_return_val_if_fail(tr_shape_equal(&g.shape, out_shape), NULL);
  return view_from_geometry(&g);
}

static bool
kernel_via(TrOpId op, GeometryFunc geometry, TrTensor *const *in, int n_in, const TrAttrs *attrs,
           TrTensor *out, GError **error)
{
  if (!kernel_precheck(op, in, n_in, attrs, out, error))
    return false;
  TrTensor g;
  if (!geometry(in, attrs, &g, error))
    return false;
  tr_tensor_copy_into(out, &g);
  return true;
}

#define VIEW_OP(name, OP)                                                                          \
  static TrTensor *view_##name(TrTensor *const *in, int n_in, const TrAttrs *attrs,                \
                               const TrShape *out_shape)                                           \
  {                                                                                                \
    return view_via(name##_geometry, in, attrs, out_shape);                                        \
  }                                                                                                \
  static bool kernel_##name(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out,    \
                            GError **error)                                                        \
  {                                                                                                \
    return kernel_via(TR_OP_##OP, name##_geometry, in, n_in, attrs, out, error);                   \
  }
VIEW_OP(transpose, TRANSPOSE)
VIEW_OP(squeeze, SQUEEZE)
VIEW_OP(expand_dims, EXPAND_DIMS)
VIEW_OP(strided_slice, STRIDED_SLICE)
#undef VIEW_OP

/* ---- StridedSliceGrad ----------------------------------------------------------------------
 * StridedSliceGrad(dy, begin, end, strides): zeros of the sliced tensor's shape (attr `axes`)
 * with `dy` written where StridedSlice with the same spec and masks read from. The gradient of
 * StridedSlice, for core/graph/grad.c (TensorFlow's takes the shape as its first operand). */

/* The attr shape as the StridedSlice input it stands for, with the slice's spec operands. */
static void
slice_grad_infos(const TrTensorInfo *in, const TrAttrs *attrs, TrTensorInfo *infos)
{
  infos[0] =
      (TrTensorInfo){.dtype = in[0].dtype, .shape = tr_shape_make(attrs->n_axes, attrs->axes)};
  for (int i = 1; i < 4; i++)
    infos[i] = in[i];
}

static bool
infer_strided_slice_grad(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,
                         TrShape *shape, GError **error)
{
  const char *type = op_type(TR_OP_STRIDED_SLICE_GRAD);
  if (attrs->n_axes < 0 || attrs->n_axes > TR_MAX_RANK) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type, "the sliced shape is not set");
    return false;
  }
  TrTensorInfo infos[4];
  slice_grad_infos(in, attrs, infos);
  TrShape sliced;
  if (!infer_strided_slice(infos, 4, attrs, dtype, &sliced, error))
    return false;
  if (!tr_shape_is_compatible_with(&sliced, &in[0].shape)) {
    g_autofree char *a = tr_shape_to_error_string(&sliced);
    g_autofree char *b = tr_shape_to_error_string(&in[0].shape);
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type, "shape of dy was %s instead of %s", b,
                    a);
    return false;
  }
  *dtype = in[0].dtype;
  *shape = infos[0].shape;
  return true;
}

static bool
kernel_strided_slice_grad(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out,
                          GError **error)
{
  if (!kernel_precheck(TR_OP_STRIDED_SLICE_GRAD, in, n_in, attrs, out, error))
    return false;
  int64_t n = tr_tensor_num_elements(out);
  if (n > 0 && out->dtype != TR_STRING)
    memset(tr_tensor_data(out), 0, (size_t)n * tr_dtype_size(out->dtype));
  TrTensor *spec[4] = {out, in[1], in[2], in[3]};
  TrTensor g;
  if (!strided_slice_geometry(spec, attrs, &g, error))
    return false;
  if (tr_tensor_num_elements(&g) > 0)
    tr_tensor_copy_into(&g, in[0]);
  return true;
}

/* ---- StopGradient --------------------------------------------------------------------------
 * The value unchanged; what sets it apart from Identity is that core/graph/grad.c gives it no
 * gradient. A view of the input when it can be one. */

static bool
infer_stop_gradient(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,
                    TrShape *shape, GError **error)
{
  *dtype = in[0].dtype;
  *shape = in[0].shape;
  return true;
}

static TrTensor *
view_stop_gradient(TrTensor *const *in, int n_in, const TrAttrs *attrs, const TrShape *out_shape)
{
  const TrTensor *x = in[0];
  return tr_tensor_new_view(x->buf, x->dtype, &x->shape, x->strides, x->offset);
}

static bool
kernel_stop_gradient(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out,
                     GError **error)
{
  tr_tensor_copy_into(out, in[0]);
  return true;
}

/* ---- Tile ------------------------------------------------------------------------------- */

/* attrs.axes are the multiples, one per dim of the input (tile_ops.cc's checks). */
static bool
infer_tile(const TrTensorInfo *in, int n_in, const TrAttrs *given, TrDType *dtype, TrShape *shape,
           GError **error)
{
  const char *type = op_type(TR_OP_TILE);
  const TrShape *x = &in[0].shape;
  *dtype = in[0].dtype;
  TrAttrs request;
  bool known;
  if (!sizes_request(TR_OP_TILE, in, n_in, given, &request, &known, error))
    return false;
  const TrAttrs *attrs = &request;
  if (!known) { /* multiples known when the graph runs */
    shape->rank = x->rank != TR_UNKNOWN ? x->rank : attrs->n_axes;
    for (int i = 0; i < shape->rank; i++)
      shape->dims[i] = TR_UNKNOWN;
    return true;
  }
  int n = attrs->n_axes < 0 ? 0 : attrs->n_axes;
  if (x->rank != TR_UNKNOWN && x->rank != n) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                    "Expected multiples argument to be a vector of length %d but got length %d",
                    x->rank, n);
    return false;
  }
  for (int i = 0; i < n; i++) {
    if (attrs->axes[i] < 0) {
      tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                      "Expected multiples[%d] >= 0, but got %" G_GINT64_FORMAT, i, attrs->axes[i]);
      return false;
    }
  }
  shape->rank = n;
  for (int i = 0; i < n; i++) {
    int64_t d = x->rank == TR_UNKNOWN ? TR_UNKNOWN : x->dims[i];
    shape->dims[i] = d == TR_UNKNOWN ? TR_UNKNOWN : d * attrs->axes[i];
  }
  return true;
}

/* One copy of the input per tile: the output's block at each tile position, walked by an n-d
 * iterator over the multiples. */
static bool
kernel_tile(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  if (!kernel_precheck(TR_OP_TILE, in, n_in, attrs, out, error))
    return false;
  const TrTensor *x = in[0];
  if (tr_tensor_num_elements(out) == 0)
    return true;
  if (x->shape.rank == 0) {
    tr_tensor_copy_into(out, x);
    return true;
  }
  TrShape tiles = x->shape; /* the multiples: attrs.axes, or the second input's value */
  for (int d = 0; d < tiles.rank; d++)
    tiles.dims[d] = n_in == 2 ? tr_tensor_get_i64(in[1], d) : attrs->axes[d];
  int64_t steps[1][TR_MAX_RANK];
  for (int i = 0; i < x->shape.rank; i++)
    steps[0][i] = out->strides[i] * x->shape.dims[i];
  TrNdIter it;
  tr_nd_iter_init(&it, &tiles, 1, (int64_t[]){out->offset}, steps);
  do {
    TrTensor dst = geometry_on(out);
    dst.shape = x->shape;
    dst.offset = it.pos[0];
    tr_tensor_copy_into(&dst, x);
  } while (tr_nd_iter_next(&it));
  return true;
}

/* ---- BroadcastTo ------------------------------------------------------------------------ */

/* attrs.axes is the target shape (broadcast_to_op.cc's checks, in its order). */
static bool
infer_broadcast_to(const TrTensorInfo *in, int n_in, const TrAttrs *given, TrDType *dtype,
                   TrShape *shape, GError **error)
{
  const char *type = op_type(TR_OP_BROADCAST_TO);
  const TrShape *x = &in[0].shape;
  TrAttrs request;
  bool known;
  if (!sizes_request(TR_OP_BROADCAST_TO, in, n_in, given, &request, &known, error))
    return false;
  const TrAttrs *attrs = &request;
  if (!known) { /* the shape is known when the graph runs */
    *dtype = in[0].dtype;
    shape->rank = attrs->n_axes;
    for (int i = 0; i < shape->rank; i++)
      shape->dims[i] = TR_UNKNOWN;
    return true;
  }
  TrShape target = tr_shape_make(attrs->n_axes < 0 ? 0 : attrs->n_axes, attrs->axes);
  *dtype = in[0].dtype;
  *shape = target;
  if (x->rank == TR_UNKNOWN)
    return true;
  if (x->rank > target.rank) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                    "Rank of input (%d) must be no greater than rank of output shape (%d).",
                    x->rank, target.rank);
    return false;
  }
  bool valid = true, reaches = true;
  for (int i = 0; i < x->rank; i++) {
    int64_t a = x->dims[i], b = target.dims[target.rank - x->rank + i];
    if (a == TR_UNKNOWN || b == TR_UNKNOWN || a == b || a == 1)
      continue;
    if (b == 1)
      reaches = false; /* valid broadcasting, but to a bigger shape than the target */
    else
      valid = false;
  }
  g_autofree char *xs = tr_shape_to_error_string(x);
  g_autofree char *ts = tr_shape_to_error_string(&target);
  if (!valid) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type, "Incompatible shapes: %s vs. %s", xs,
                    ts);
    return false;
  }
  if (!reaches) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                    "Unable to broadcast tensor of shape %s to tensor of shape %s", xs, ts);
    return false;
  }
  return true;
}

static bool
kernel_broadcast_to(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out,
                    GError **error)
{
  if (!kernel_precheck(TR_OP_BROADCAST_TO, in, n_in, attrs, out, error))
    return false;
  TrTensor src = geometry_on(in[0]);
  tr_broadcast_strides(in[0], &out->shape, src.strides);
  src.shape = out->shape;
  tr_tensor_copy_into(out, &src);
  return true;
}

/* ---- ReverseV2 -------------------------------------------------------------------------- */

/* Which dims attrs.axes reverse (reverse_op.cc's checks). */
static bool
reverse_dims(int rank, const TrAttrs *attrs, bool *flip, GError **error)
{
  const char *type = op_type(TR_OP_REVERSE);
  memset(flip, 0, sizeof(bool) * TR_MAX_RANK);
  for (int i = 0; i < attrs->n_axes; i++) {
    int64_t axis = attrs->axes[i], canonical = axis < 0 ? axis + rank : axis;
    if (canonical < 0 || canonical >= rank) {
      tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                      "'axis'[%d] = %" G_GINT64_FORMAT " is out of valid range [0, %d", i, axis,
                      rank - 1);
      return false;
    }
    if (flip[canonical]) {
      tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                      "axis %" G_GINT64_FORMAT " specified more than once.", canonical);
      return false;
    }
    flip[canonical] = true;
  }
  return true;
}

static bool
infer_reverse(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,
              TrShape *shape, GError **error)
{
  *dtype = in[0].dtype;
  *shape = in[0].shape;
  bool flip[TR_MAX_RANK];
  return in[0].shape.rank == TR_UNKNOWN || reverse_dims(in[0].shape.rank, attrs, flip, error);
}

/* The input read backwards along the reversed dims: negative strides from the far end. */
static bool
reverse_geometry(TrTensor *const *in, const TrAttrs *attrs, TrTensor *g, GError **error)
{
  const TrTensor *x = in[0];
  bool flip[TR_MAX_RANK];
  if (!reverse_dims(x->shape.rank, attrs, flip, error))
    return false;
  *g = geometry_on(x);
  if (tr_tensor_num_elements(x) == 0)
    return true;
  for (int i = 0; i < x->shape.rank; i++) {
    if (!flip[i])
      continue;
    g->offset += (x->shape.dims[i] - 1) * x->strides[i];
    g->strides[i] = -x->strides[i];
  }
  return true;
}

static bool
kernel_reverse(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  if (!kernel_precheck(TR_OP_REVERSE, in, n_in, attrs, out, error))
    return false;
  TrTensor g;
  if (!reverse_geometry(in, attrs, &g, error))
    return false;
  tr_tensor_copy_into(out, &g);
  return true;
}

/* ---- Shape, Size, Rank ----------------------------------------------------------------------
 * What the input's shape is when the graph runs; any dtype in, attrs.dtype (Shape and Size:
 * int32 or int64) out. Rank is int32, as TensorFlow's. */

static TrDType
index_out_dtype(const TrAttrs *attrs)
{
  return attrs->dtype == TR_INT64 ? TR_INT64 : TR_INT32;
}

static bool
infer_shape_op(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,
               TrShape *shape, GError **error)
{
  *dtype = index_out_dtype(attrs);
  *shape =
      tr_shape_make(1, (int64_t[]){in[0].shape.rank == TR_UNKNOWN ? TR_UNKNOWN : in[0].shape.rank});
  return true;
}

static bool
infer_scalar_index(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,
                   TrShape *shape, GError **error)
{
  *dtype = index_out_dtype(attrs);
  *shape = tr_shape_scalar();
  return true;
}

static bool
infer_rank(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype, TrShape *shape,
           GError **error)
{
  *dtype = TR_INT32;
  *shape = tr_shape_scalar();
  return true;
}

/* out[i] = values[i], in out's index dtype. */
static void
store_indices(TrTensor *out, const int64_t *values, int n)
{
  for (int i = 0; i < n; i++) {
    if (out->dtype == TR_INT64)
      ((int64_t *)tr_tensor_data(out))[i] = values[i];
    else
      ((int32_t *)tr_tensor_data(out))[i] = (int32_t)values[i];
  }
}

static bool
kernel_shape_op(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  store_indices(out, in[0]->shape.dims, in[0]->shape.rank);
  return true;
}

static bool
kernel_size(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  int64_t n = tr_tensor_num_elements(in[0]);
  store_indices(out, &n, 1);
  return true;
}

static bool
kernel_rank(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  int64_t rank = in[0]->shape.rank;
  store_indices(out, &rank, 1);
  return true;
}

/* ---- Where ---------------------------------------------------------------------------------
 * The coordinates of the true (non-zero) elements, in row-major order: [count, rank] int64. The
 * count is known once the input's value is: eagerly, and when a graph runs. */

static bool
where_nonzero(const TrTensor *x, int64_t i)
{
  return x->dtype == TR_BOOL ? tr_tensor_get_i64(x, i) != 0 : tr_tensor_get_f64(x, i) != 0.0;
}

static bool
infer_where(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype, TrShape *shape,
            GError **error)
{
  TrDType t = in[0].dtype;
  if (t == TR_STRING || tr_dtype_is_complex(t)) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, "Where",
                    "Value for attr 'T' of %s is not in the list of allowed values",
                    tr_dtype_tf_name(t));
    return false;
  }
  *dtype = TR_INT64;
  int64_t count = TR_UNKNOWN;
  if (in[0].value) {
    count = 0;
    for (int64_t i = 0; i < tr_tensor_num_elements(in[0].value); i++)
      count += where_nonzero(in[0].value, i);
  }
  int rank = in[0].shape.rank;
  *shape = tr_shape_make(2, (int64_t[]){count, rank == TR_UNKNOWN ? TR_UNKNOWN : rank});
  return true;
}

static bool
kernel_where(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  const TrTensor *x = in[0];
  int rank = x->shape.rank;
  int64_t *dst = tr_tensor_data(out), index[TR_MAX_RANK] = {0};
  for (int64_t i = 0; i < tr_tensor_num_elements(x); i++) {
    if (where_nonzero(x, i)) {
      memcpy(dst, index, sizeof(int64_t) * (size_t)rank);
      dst += rank;
    }
    for (int d = rank - 1; d >= 0 && ++index[d] == x->shape.dims[d]; d--)
      index[d] = 0;
  }
  return true;
}

/* ---- registration ----------------------------------------------------------------------- */

void
tr_ops_register_shape(TrOpDef *defs)
{
  defs[TR_OP_TRANSPOSE] = (TrOpDef){.name = "transpose",
                                    .n_inputs = 1,
                                    .infer = infer_transpose,
                                    .kernel = kernel_transpose,
                                    .view = view_transpose};
  defs[TR_OP_RESHAPE] = (TrOpDef){.name = "Reshape",
                                  .n_inputs = -1, /* the tensor, and maybe its shape */
                                  .infer = infer_reshape,
                                  .kernel = kernel_reshape,
                                  .view = view_reshape};
  defs[TR_OP_CONCAT] =
      (TrOpDef){.name = "concat", .n_inputs = -1, .infer = infer_concat, .kernel = kernel_concat};
  defs[TR_OP_STACK] =
      (TrOpDef){.name = "stack", .n_inputs = -1, .infer = infer_stack, .kernel = kernel_stack};
  defs[TR_OP_SQUEEZE] = (TrOpDef){.name = "Squeeze",
                                  .n_inputs = 1,
                                  .infer = infer_squeeze,
                                  .kernel = kernel_squeeze,
                                  .view = view_squeeze};
  defs[TR_OP_EXPAND_DIMS] = (TrOpDef){.name = "ExpandDims",
                                      .n_inputs = 1,
                                      .infer = infer_expand_dims,
                                      .kernel = kernel_expand_dims,
                                      .view = view_expand_dims};
  defs[TR_OP_GATHER] =
      (TrOpDef){.name = "GatherV2", .n_inputs = 2, .infer = infer_gather, .kernel = kernel_gather};
  defs[TR_OP_ONE_HOT] =
      (TrOpDef){.name = "one_hot", .n_inputs = 1, .infer = infer_one_hot, .kernel = kernel_one_hot};
  defs[TR_OP_STRIDED_SLICE] = (TrOpDef){.name = "strided_slice",
                                        .n_inputs = 4,
                                        .infer = infer_strided_slice,
                                        .kernel = kernel_strided_slice,
                                        .view = view_strided_slice};
  defs[TR_OP_STRIDED_SLICE_GRAD] = (TrOpDef){.name = "StridedSliceGrad",
                                             .n_inputs = 4,
                                             .infer = infer_strided_slice_grad,
                                             .kernel = kernel_strided_slice_grad};
  defs[TR_OP_SHAPE] =
      (TrOpDef){.name = "Shape", .n_inputs = 1, .infer = infer_shape_op, .kernel = kernel_shape_op};
  defs[TR_OP_SIZE] =
      (TrOpDef){.name = "Size", .n_inputs = 1, .infer = infer_scalar_index, .kernel = kernel_size};
  defs[TR_OP_WHERE] =
      (TrOpDef){.name = "Where", .n_inputs = 1, .infer = infer_where, .kernel = kernel_where};
  defs[TR_OP_RANK] =
      (TrOpDef){.name = "Rank", .n_inputs = 1, .infer = infer_rank, .kernel = kernel_rank};
  defs[TR_OP_STOP_GRADIENT] = (TrOpDef){.name = "StopGradient",
                                        .n_inputs = 1,
                                        .infer = infer_stop_gradient,
                                        .kernel = kernel_stop_gradient,
                                        .view = view_stop_gradient};
  defs[TR_OP_TILE] =
      (TrOpDef){.name = "Tile", .n_inputs = -1, .infer = infer_tile, .kernel = kernel_tile};
  defs[TR_OP_BROADCAST_TO] = (TrOpDef){.name = "BroadcastTo",
                                       .n_inputs = -1, /* the tensor, and maybe its shape */
                                       .infer = infer_broadcast_to,
                                       .kernel = kernel_broadcast_to};
  defs[TR_OP_REVERSE] = (TrOpDef){
      .name = "ReverseV2", .n_inputs = 1, .infer = infer_reverse, .kernel = kernel_reverse};
}

/* ---- wrappers --------------------------------------------------------------------------- */

TrTensor *
tr_transpose(TrTensor *x, const int64_t *perm, int n_perm, GError **error)
{
  g_return_val_if_fail(x != NULL, NULL);
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  if (perm && n_perm >= 0) {
    if (n_perm > TR_MAX_RANK) {
      tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, op_type(TR_OP_TRANSPOSE),
                      "transpose expects a vector of size %d. But input(1) is a vector of size %d",
                      x->shape.rank, n_perm);
      return NULL;
    }
    memcpy(attrs.axes, perm, (size_t)n_perm * sizeof *perm);
    attrs.n_axes = n_perm;
  }
  return tr_op_run(TR_OP_TRANSPOSE, &x, 1, &attrs, error);
}

TrTensor *
tr_reshape(TrTensor *x, const int64_t *shape, int rank, GError **error)
{
  g_return_val_if_fail(x != NULL && rank >= 0 && (shape || rank == 0), NULL);
  if (!check_rank(rank, op_type(TR_OP_RESHAPE), error))
    return NULL;
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  if (rank > 0)
    memcpy(attrs.axes, shape, (size_t)rank * sizeof *shape);
  attrs.n_axes = rank;
  return tr_op_run(TR_OP_RESHAPE, &x, 1, &attrs, error);
}

TrTensor *
tr_concat(TrTensor *const *xs, int n, int64_t axis, GError **error)
{
  g_return_val_if_fail(xs != NULL && n >= 1, NULL);
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.axis = axis;
  return tr_op_run(TR_OP_CONCAT, xs, n, &attrs, error);
}

TrTensor *
tr_stack(TrTensor *const *xs, int n, int64_t axis, GError **error)
{
  g_return_val_if_fail(xs != NULL && n >= 1, NULL);
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.axis = axis;
  return tr_op_run(TR_OP_STACK, xs, n, &attrs, error);
}

TrTensor *
tr_squeeze(TrTensor *x, const int64_t *axes, int n_axes, GError **error)
{
  g_return_val_if_fail(x != NULL, NULL);
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  if (axes && n_axes > 0) {
    if (!check_rank(n_axes, op_type(TR_OP_SQUEEZE), error))
      return NULL;
    memcpy(attrs.axes, axes, (size_t)n_axes * sizeof *axes);
    attrs.n_axes = n_axes;
  }
  return tr_op_run(TR_OP_SQUEEZE, &x, 1, &attrs, error);
}

TrTensor *
tr_expand_dims(TrTensor *x, int64_t axis, GError **error)
{
  g_return_val_if_fail(x != NULL, NULL);
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.axis = axis;
  return tr_op_run(TR_OP_EXPAND_DIMS, &x, 1, &attrs, error);
}

TrTensor *
tr_gather(TrTensor *params, TrTensor *indices, int64_t axis, GError **error)
{
  g_return_val_if_fail(params != NULL && indices != NULL, NULL);
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.axis = axis;
  TrTensor *in[2] = {params, indices};
  return tr_op_run(TR_OP_GATHER, in, 2, &attrs, error);
}

TrTensor *
tr_one_hot(TrTensor *indices, int64_t depth, double on_value, double off_value, int64_t axis,
           TrDType dtype, GError **error)
{
  g_return_val_if_fail(indices != NULL, NULL);
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.depth = depth;
  attrs.on_value = on_value;
  attrs.off_value = off_value;
  attrs.axis = axis;
  attrs.dtype = dtype;
  return tr_op_run(TR_OP_ONE_HOT, &indices, 1, &attrs, error);
}

TrTensor *
tr_strided_slice(TrTensor *x, const int64_t *begin, const int64_t *end, const int64_t *strides,
                 int n, const TrAttrs *masks, GError **error)
{
  g_return_val_if_fail(x != NULL && n >= 0, NULL);
  g_return_val_if_fail(n == 0 || (begin && end && strides), NULL);
  TrShape vec = tr_shape_make(1, (int64_t[]){n});
  g_autoptr(TrTensor) tb = tr_tensor_new_from_data(TR_INT64, &vec, begin);
  g_autoptr(TrTensor) te = tr_tensor_new_from_data(TR_INT64, &vec, end);
  g_autoptr(TrTensor) ts = tr_tensor_new_from_data(TR_INT64, &vec, strides);
  TrAttrs defaults;
  if (!masks) {
    tr_attrs_init(&defaults);
    masks = &defaults;
  }
  TrTensor *in[4] = {x, tb, te, ts};
  return tr_op_run(TR_OP_STRIDED_SLICE, in, 4, masks, error);
}
