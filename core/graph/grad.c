/* grad.c — reverse-mode gradients (see tr-grad.h): the gradient of every differentiable op,
 * written once against TrGradBuilder, the backward walk over a tape of records, the replay of
 * traced graphs (calls, loops, conditionals) that differentiates them, and two builders: one that
 * runs ops at once and one that adds nodes to a graph. A loop or conditional in a graph whose
 * values are only known when the graph runs becomes a SymbolicGradient node, whose kernel is that
 * same replay on the values it is given.
 *
 * Gradient code chains many ops; it goes through a small context (Grad) that keeps the first
 * error and makes every later helper return NULL, so a gradient function reads as its formula
 * and the caller checks once. Broadcasting binary ops reduce their gradients back to each
 * input's shape (sum_to). Shapes come from the builder's static description: dims unknown while
 * tracing are taken as not broadcast, as nothing can tell at trace time.
 */
#include "graph-private.h" /* tr_graph_node_new for SymbolicGradient nodes */
#include "tr-grad.h"

#include <string.h>

/* ---- the gradient context ------------------------------------------------------------------- */

typedef struct {
  const TrGradBuilder *b; /* how ops are emitted */
  void *ctx;              /* the builder's context */
  GError *error;          /* the first failure; helpers return NULL once it is set */
} Grad;

typedef void *H; /* a builder handle */

static void fail(Grad *c, TrErrorCode code, const char *fmt, ...) G_GNUC_PRINTF(3, 4);

static void
fail(Grad *c, TrErrorCode code, const char *fmt, ...)
{
  if (c->error)
    return;
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  c->error = g_error_new_literal(TR_ERROR, code, msg);
}

static H
apply(Grad *c, TrOpId op, H const *in, int n, const TrAttrs *attrs)
{
  if (c->error)
    return NULL;
  for (int i = 0; i < n; i++)
    if (!in[i])
      return NULL;
  return c->b->apply(c->ctx, op, in, n, attrs, &c->error);
}

static H
op1(Grad *c, TrOpId op, H x)
{
  return apply(c, op, (H[]){x}, 1, NULL);
}

static H
op2(Grad *c, TrOpId op, H x, H y)
{
  return apply(c, op, (H[]){x, y}, 2, NULL);
}

static H
op3(Grad *c, TrOpId op, H x, H y, H z)
{
  return apply(c, op, (H[]){x, y, z}, 3, NULL);
}

static TrDType
dtype_of(Grad *c, H h)
{
  TrDType dtype;
  TrShape shape;
  c->b->describe(c->ctx, h, &dtype, &shape);
  return dtype;
}

static TrShape
shape_of(Grad *c, H h)
{
  TrDType dtype;
  TrShape shape;
  c->b->describe(c->ctx, h, &dtype, &shape);
  return shape;
}

static H
constant(Grad *c, TrTensor *value)
{
  if (c->error) {
    tr_tensor_unref(value);
    return NULL;
  }
  return c->b->constant(c->ctx, value, &c->error);
}

/* A scalar of `dtype` (a float type). */
static H
scalar(Grad *c, double v, TrDType dtype)
{
  g_autoptr(TrTensor) f = tr_tensor_new_float64(v);
  return constant(c, dtype == TR_FLOAT64 ? tr_tensor_ref(f) : tr_cast(f, dtype, NULL));
}

/* A 1-d int32 constant. */
static H
int_vector(Grad *c, const int64_t *v, int n)
{
  int32_t data[TR_MAX_RANK];
  for (int i = 0; i < n; i++)
    data[i] = (int32_t)v[i];
  TrShape shape = tr_shape_make(1, (const int64_t[]){n});
  return constant(c, tr_tensor_new_from_data(TR_INT32, &shape, data));
}

static H
cast(Grad *c, H x, TrDType dtype)
{
  if (!x || dtype_of(c, x) == dtype)
    return x;
  TrAttrs a;
  tr_attrs_init(&a);
  a.dtype = dtype;
  return apply(c, TR_OP_CAST, (H[]){x}, 1, &a);
}

static H
zeros_like(Grad *c, H x)
{
  return op1(c, TR_OP_ZEROS_LIKE, x);
}

static H
where(Grad *c, H cond, H x, H y)
{
  return op3(c, TR_OP_SELECT, cond, x, y);
}

/* x with `shape` (possibly partial: one unknown dim becomes -1). */
static H
reshape(Grad *c, H x, const TrShape *shape)
{
  if (!x)
    return NULL;
  if (shape->rank == TR_UNKNOWN) {
    fail(c, TR_ERROR_UNIMPLEMENTED, "Gradient needs the rank of a tensor, which is not known");
    return NULL;
  }
  TrShape have = shape_of(c, x);
  if (tr_shape_is_fully_defined(&have) && tr_shape_equal(&have, shape))
    return x;
  TrAttrs a;
  tr_attrs_init(&a);
  a.n_axes = shape->rank;
  int unknown = 0;
  for (int d = 0; d < shape->rank; d++) {
    a.axes[d] = shape->dims[d] == TR_UNKNOWN ? -1 : shape->dims[d];
    unknown += shape->dims[d] == TR_UNKNOWN;
  }
  if (unknown > 1) {
    g_autofree char *s = tr_shape_to_string(shape);
    fail(c, TR_ERROR_UNIMPLEMENTED, "Gradient needs the shape %s, which is not fully known", s);
    return NULL;
  }
  return apply(c, TR_OP_RESHAPE, (H[]){x}, 1, &a);
}

/* Sum over `axes` (n of them), keeping them or not. */
static H
reduce(Grad *c, TrOpId op, H x, const int64_t *axes, int n, bool keepdims)
{
  TrAttrs a;
  tr_attrs_init(&a);
  a.n_axes = n;
  memcpy(a.axes, axes, sizeof(int64_t) * (size_t)n);
  a.keepdims = keepdims;
  return apply(c, op, (H[]){x}, 1, &a);
}

/* The gradient `g` of a broadcast result, summed down to the shape of `x`. */
static H
sum_to(Grad *c, H g, H x)
{
  if (!g)
    return NULL;
  TrShape sg = shape_of(c, g), sx = shape_of(c, x);
  if (sg.rank == TR_UNKNOWN || sx.rank == TR_UNKNOWN) {
    if (sg.rank == sx.rank)
      return g;
    fail(c, TR_ERROR_UNIMPLEMENTED, "Gradient of a broadcast needs the ranks of its inputs");
    return NULL;
  }
  int lead = sg.rank - sx.rank;
  int64_t axes[TR_MAX_RANK];
  int n = 0;
  for (int d = 0; d < sg.rank; d++)
    if (d < lead || (sx.dims[d - lead] == 1 && sg.dims[d] != 1))
      axes[n++] = d;
  if (n == 0)
    return g;
  return reshape(c, reduce(c, TR_OP_SUM, g, axes, n, false), &sx);
}

/* Axis `a` of a rank-`rank` tensor made non-negative. */
static int64_t
norm_axis(int64_t a, int rank)
{
  return a < 0 ? a + rank : a;
}

/* ---- gradients of core/tensor ops ------------------------------------------------------------
 * Each fills dx[i] (NULL: no gradient) from dy, the gradients of the record's outputs. */

typedef void (*GradFunc)(Grad *c, const TrGradRecord *r, H const *dy, H *dx);

#define X0 (r->inputs[0])
#define X1 (r->inputs[1])
#define X2 (r->inputs[2])
#define Y  (r->outputs[0])

static void
grad_add(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  dx[0] = sum_to(c, dy[0], X0);
  dx[1] = sum_to(c, dy[0], X1);
}

static void
grad_sub(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  dx[0] = sum_to(c, dy[0], X0);
  dx[1] = sum_to(c, op1(c, TR_OP_NEG, dy[0]), X1);
}

/* conj(v) of a complex v, else v itself: TensorFlow's product and quotient gradients take the
 * conjugates of the other operand (math_grad.py's _MulGrad, _RealDivGrad). */
static H
conj_if_complex(Grad *c, H v)
{
  return v && tr_dtype_is_complex(dtype_of(c, v)) ? op1(c, TR_OP_CONJ, v) : v;
}

static void
grad_mul(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  dx[0] = sum_to(c, op2(c, TR_OP_MUL, dy[0], conj_if_complex(c, X1)), X0);
  dx[1] = sum_to(c, op2(c, TR_OP_MUL, conj_if_complex(c, X0), dy[0]), X1);
}

static void
grad_div(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  H x = conj_if_complex(c, X0), y = conj_if_complex(c, X1);
  dx[0] = sum_to(c, op2(c, TR_OP_DIV, dy[0], y), X0);
  H q = op2(c, TR_OP_DIV, op2(c, TR_OP_DIV, op1(c, TR_OP_NEG, x), y), y);
  dx[1] = sum_to(c, op2(c, TR_OP_MUL, dy[0], q), X1);
}

/* ---- complex numbers (math_grad.py's _RealGrad, _ImagGrad, _ComplexGrad, _ConjGrad,
 * _AngleGrad, _ComplexAbsGrad) ---- */

static H
complex_of(Grad *c, H re, H im)
{
  return op2(c, TR_OP_COMPLEX, re, im);
}

static void
grad_real(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  dx[0] = complex_of(c, dy[0], zeros_like(c, dy[0]));
}

static void
grad_imag(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  dx[0] = complex_of(c, zeros_like(c, dy[0]), dy[0]);
}

static void
grad_complex(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  dx[0] = sum_to(c, op1(c, TR_OP_REAL, dy[0]), X0);
  dx[1] = sum_to(c, op1(c, TR_OP_IMAG, dy[0]), X1);
}

static void
grad_conj(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  dx[0] = op1(c, TR_OP_CONJ, dy[0]);
}

/* d angle(x) = -complex(dy, 0) / complex(imag(x), real(x)) */
static void
grad_angle(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  H z = complex_of(c, op1(c, TR_OP_IMAG, X0), op1(c, TR_OP_REAL, X0));
  H g = complex_of(c, dy[0], zeros_like(c, dy[0]));
  dx[0] = op1(c, TR_OP_NEG, op2(c, TR_OP_DIV, g, z));
}

/* |x| of a complex x: complex(dy, 0) * x / complex(|x|, 0), 0 where |x| is 0 (div_no_nan). */
static void
grad_complex_abs(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  H num = op2(c, TR_OP_MUL, complex_of(c, dy[0], zeros_like(c, dy[0])), X0);
  H is_zero = op2(c, TR_OP_EQUAL, Y, zeros_like(c, Y));
  H safe = where(c, is_zero, op1(c, TR_OP_ONES_LIKE, Y), Y);
  H den = complex_of(c, safe, zeros_like(c, safe));
  dx[0] = where(c, is_zero, zeros_like(c, num), op2(c, TR_OP_DIV, num, den));
}

static void
grad_floor_mod(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  dx[0] = sum_to(c, dy[0], X0);
  H q = op1(c, TR_OP_NEG, op2(c, TR_OP_FLOORDIV, X0, X1));
  dx[1] = sum_to(c, op2(c, TR_OP_MUL, dy[0], q), X1);
}

/* z = x^y: dz/dx = y x^(y-1); dz/dy = z log x where x > 0, else 0. */
static void
grad_pow(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  H ym1 = op2(c, TR_OP_SUB, X1, scalar(c, 1.0, dtype_of(c, X1)));
  H dzdx = op2(c, TR_OP_MUL, X1, op2(c, TR_OP_POW, X0, ym1));
  dx[0] = sum_to(c, op2(c, TR_OP_MUL, dy[0], dzdx), X0);
  H zero = zeros_like(c, X0);
  H log_x = where(c, op2(c, TR_OP_GREATER, X0, zero), op1(c, TR_OP_LOG, X0), zero);
  dx[1] = sum_to(c, op2(c, TR_OP_MUL, dy[0], op2(c, TR_OP_MUL, Y, log_x)), X1);
}

/* Maximum and Minimum: the gradient goes to the input that was chosen (x on ties). */
static void
grad_select_extreme(Grad *c, const TrGradRecord *r, H const *dy, H *dx, TrOpId x_wins)
{
  H mask = op2(c, x_wins, X0, X1);
  H zero = zeros_like(c, dy[0]);
  dx[0] = sum_to(c, where(c, mask, dy[0], zero), X0);
  dx[1] = sum_to(c, where(c, mask, zero, dy[0]), X1);
}

static void
grad_maximum(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  grad_select_extreme(c, r, dy, dx, TR_OP_GREATER_EQUAL);
}

static void
grad_minimum(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  grad_select_extreme(c, r, dy, dx, TR_OP_LESS_EQUAL);
}

static void
grad_neg(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  dx[0] = op1(c, TR_OP_NEG, dy[0]);
}

/* sign(x) = (x > 0) - (x < 0), in x's dtype. */
static void
grad_abs(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  TrDType dt = dtype_of(c, X0);
  if (tr_dtype_is_complex(dt)) {
    grad_complex_abs(c, r, dy, dx);
    return;
  }
  H zero = zeros_like(c, X0);
  H sign = op2(c, TR_OP_SUB, cast(c, op2(c, TR_OP_GREATER, X0, zero), dt),
               cast(c, op2(c, TR_OP_LESS, X0, zero), dt));
  dx[0] = op2(c, TR_OP_MUL, dy[0], sign);
}

static void
grad_square(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  H two_x = op2(c, TR_OP_MUL, scalar(c, 2.0, dtype_of(c, X0)), X0);
  dx[0] = op2(c, TR_OP_MUL, dy[0], two_x);
}

static void
grad_sqrt(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  H half = op2(c, TR_OP_MUL, dy[0], scalar(c, 0.5, dtype_of(c, Y)));
  dx[0] = op2(c, TR_OP_DIV, half, Y);
}

static void
grad_exp(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  dx[0] = op2(c, TR_OP_MUL, dy[0], Y);
}

static void
grad_log(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  dx[0] = op2(c, TR_OP_DIV, dy[0], X0);
}

static void
grad_tanh(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  H one = scalar(c, 1.0, dtype_of(c, Y));
  dx[0] = op2(c, TR_OP_MUL, dy[0], op2(c, TR_OP_SUB, one, op2(c, TR_OP_MUL, Y, Y)));
}

static void
grad_sigmoid(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  H one = scalar(c, 1.0, dtype_of(c, Y));
  H dydx = op2(c, TR_OP_MUL, Y, op2(c, TR_OP_SUB, one, Y));
  dx[0] = op2(c, TR_OP_MUL, dy[0], dydx);
}

static void
grad_sin(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  dx[0] = op2(c, TR_OP_MUL, dy[0], op1(c, TR_OP_COS, X0));
}

static void
grad_cos(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  dx[0] = op2(c, TR_OP_MUL, dy[0], op1(c, TR_OP_NEG, op1(c, TR_OP_SIN, X0)));
}

static void
grad_relu(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  H zero = zeros_like(c, dy[0]);
  dx[0] = where(c, op2(c, TR_OP_GREATER, Y, zeros_like(c, Y)), dy[0], zero);
}

static void
grad_identity(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  dx[0] = dy[0];
}

/* Only between floating-point types does a gradient pass a Cast. */
static void
grad_cast(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  TrDType from = dtype_of(c, X0);
  if (tr_grad_dtype_is_differentiable(from) && tr_grad_dtype_is_differentiable(dtype_of(c, Y)))
    dx[0] = cast(c, dy[0], from);
}

static void
grad_select(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  H zero = zeros_like(c, dy[0]);
  dx[1] = sum_to(c, where(c, X0, dy[0], zero), X1);
  dx[2] = sum_to(c, where(c, X0, zero, dy[0]), X2);
}

static void
grad_clip_by_value(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  H zero = zeros_like(c, dy[0]);
  H below = op2(c, TR_OP_LESS, X0, X1), above = op2(c, TR_OP_GREATER, X0, X2);
  H clipped = op2(c, TR_OP_LOGICAL_OR, below, above);
  dx[0] = sum_to(c, where(c, clipped, zero, dy[0]), X0);
  dx[1] = sum_to(c, where(c, below, dy[0], zero), X1);
  dx[2] = sum_to(c, where(c, above, dy[0], zero), X2);
}

/* ---- reductions ---- */

/* The reduced axes of a reduction record, non-negative and ascending; false without a rank. */
static bool
reduced_axes(Grad *c, const TrGradRecord *r, int64_t *axes, int *n)
{
  TrShape sx = shape_of(c, X0);
  if (sx.rank == TR_UNKNOWN) {
    fail(c, TR_ERROR_UNIMPLEMENTED, "Gradient of a reduction needs its input's rank");
    return false;
  }
  bool reduced[TR_MAX_RANK] = {false};
  const TrAttrs *a = r->attrs;
  for (int d = 0; d < sx.rank; d++)
    reduced[d] = !a || a->n_axes < 0;
  for (int i = 0; a && i < a->n_axes; i++)
    reduced[norm_axis(a->axes[i], sx.rank)] = true;
  *n = 0;
  for (int d = 0; d < sx.rank; d++)
    if (reduced[d])
      axes[(*n)++] = d;
  return true;
}

/* A reduction's output (or its gradient) with the reduced axes put back as size-1 dims. */
static H
keep_dims(Grad *c, const TrGradRecord *r, H v, const int64_t *axes, int n)
{
  if (r->attrs && r->attrs->keepdims)
    return v;
  TrShape s = shape_of(c, X0);
  for (int i = 0; i < n; i++)
    s.dims[axes[i]] = 1;
  return reshape(c, v, &s);
}

/* dy spread back over x's shape. */
static H
spread(Grad *c, const TrGradRecord *r, H g, const int64_t *axes, int n)
{
  return op2(c, TR_OP_MUL, keep_dims(c, r, g, axes, n), op1(c, TR_OP_ONES_LIKE, X0));
}

static void
grad_sum(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  int64_t axes[TR_MAX_RANK];
  int n;
  if (reduced_axes(c, r, axes, &n))
    dx[0] = spread(c, r, dy[0], axes, n);
}

static void
grad_mean(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  int64_t axes[TR_MAX_RANK];
  int n;
  if (!reduced_axes(c, r, axes, &n))
    return;
  TrShape sx = shape_of(c, X0);
  int64_t count = 1;
  for (int i = 0; i < n && count != TR_UNKNOWN; i++)
    count = sx.dims[axes[i]] == TR_UNKNOWN ? TR_UNKNOWN : count * sx.dims[axes[i]];
  H total = spread(c, r, dy[0], axes, n);
  TrDType dt = dtype_of(c, X0);
  H denom = count != TR_UNKNOWN ? scalar(c, (double)count, dt)
                                : reduce(c, TR_OP_SUM, op1(c, TR_OP_ONES_LIKE, X0), axes, n, true);
  dx[0] = op2(c, TR_OP_DIV, total, denom);
}

/* Max and Min: shared equally by the elements equal to the result. */
static void
grad_extreme(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  int64_t axes[TR_MAX_RANK];
  int n;
  if (!reduced_axes(c, r, axes, &n))
    return;
  H hit = cast(c, op2(c, TR_OP_EQUAL, X0, keep_dims(c, r, Y, axes, n)), dtype_of(c, X0));
  H count = reduce(c, TR_OP_SUM, hit, axes, n, true);
  H share = op2(c, TR_OP_DIV, hit, count);
  dx[0] = op2(c, TR_OP_MUL, keep_dims(c, r, dy[0], axes, n), share);
}

/* d prod / dx_i = prod / x_i (inputs with zeros are not handled, as there is no cumprod). */
static void
grad_prod(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  int64_t axes[TR_MAX_RANK];
  int n;
  if (!reduced_axes(c, r, axes, &n))
    return;
  H g = op2(c, TR_OP_MUL, keep_dims(c, r, dy[0], axes, n), keep_dims(c, r, Y, axes, n));
  dx[0] = op2(c, TR_OP_DIV, g, X0);
}

static void
grad_softmax(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  TrShape sy = shape_of(c, Y);
  int64_t axis = norm_axis(r->attrs ? r->attrs->axis : -1, sy.rank);
  H dot = reduce(c, TR_OP_SUM, op2(c, TR_OP_MUL, dy[0], Y), &axis, 1, true);
  dx[0] = op2(c, TR_OP_MUL, op2(c, TR_OP_SUB, dy[0], dot), Y);
}

/* ---- linear algebra ---- */

static H
matmul(Grad *c, TrOpId op, H a, H b, bool ta, bool tb)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.transpose_a = ta;
  attrs.transpose_b = tb;
  return apply(c, op, (H[]){a, b}, 2, &attrs);
}

/* y = op(a) op(b), op transposing when the attr says so. */
static void
grad_matmul(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  bool ta = r->attrs && r->attrs->transpose_a, tb = r->attrs && r->attrs->transpose_b;
  TrOpId op = r->op;
  H g = dy[0], a = X0, b = X1;
  if (!ta && !tb) {
    dx[0] = matmul(c, op, g, b, false, true);
    dx[1] = matmul(c, op, a, g, true, false);
  } else if (!ta && tb) {
    dx[0] = matmul(c, op, g, b, false, false);
    dx[1] = matmul(c, op, g, a, true, false);
  } else if (ta && !tb) {
    dx[0] = matmul(c, op, b, g, false, true);
    dx[1] = matmul(c, op, a, g, false, false);
  } else {
    dx[0] = matmul(c, op, b, g, true, true);
    dx[1] = matmul(c, op, g, a, true, true);
  }
  /* Batch dims broadcast like elementwise ops. */
  dx[0] = sum_to(c, dx[0], a);
  dx[1] = sum_to(c, dx[1], b);
}

/* Conv2DBackpropInput / Conv2DBackpropFilter with the result's shape as attr. */
static H
conv_backprop(Grad *c, const TrGradRecord *r, TrOpId op, H known, H g, H like)
{
  TrShape s = shape_of(c, like);
  if (!tr_shape_is_fully_defined(&s)) {
    fail(c, TR_ERROR_UNIMPLEMENTED, "Gradient of Conv2D needs fully known input and filter shapes");
    return NULL;
  }
  TrAttrs a = *r->attrs;
  a.n_axes = 4;
  memcpy(a.axes, s.dims, sizeof(int64_t) * 4);
  return apply(c, op, (H[]){known, g}, 2, &a);
}

static void
grad_conv2d(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  dx[0] = conv_backprop(c, r, TR_OP_CONV2D_BACKPROP_INPUT, X1, dy[0], X0);
  dx[1] = conv_backprop(c, r, TR_OP_CONV2D_BACKPROP_FILTER, X0, dy[0], X1);
}

/* ---- shape and layout ---- */

static H
transpose(Grad *c, H x, const int64_t *perm, int n)
{
  TrAttrs a;
  tr_attrs_init(&a);
  a.n_axes = n;
  memcpy(a.axes, perm, sizeof(int64_t) * (size_t)n);
  return apply(c, TR_OP_TRANSPOSE, (H[]){x}, 1, &a);
}

static void
grad_transpose(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  int rank = shape_of(c, X0).rank;
  if (rank == TR_UNKNOWN) {
    fail(c, TR_ERROR_UNIMPLEMENTED, "Gradient of Transpose needs its input's rank");
    return;
  }
  int64_t inverse[TR_MAX_RANK];
  for (int i = 0; i < rank; i++) {
    int64_t p =
        r->attrs && r->attrs->n_axes >= 0 ? norm_axis(r->attrs->axes[i], rank) : rank - 1 - i;
    inverse[p] = i;
  }
  dx[0] = transpose(c, dy[0], inverse, rank);
}

/* Reshape, Squeeze, ExpandDims: the gradient takes the input's shape back. */
static void
grad_reshape(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  TrShape s = shape_of(c, X0);
  int unknown = 0;
  for (int d = 0; d < s.rank; d++)
    unknown += s.dims[d] == TR_UNKNOWN;
  if ((s.rank != TR_UNKNOWN && unknown <= 1) || !dy[0]) {
    dx[0] = reshape(c, dy[0], &s);
    return;
  }
  /* x's shape is only known when the graph runs: dy reshaped to Shape(x). */
  TrAttrs a;
  tr_attrs_init(&a);
  a.dtype = TR_INT32;
  H shape = apply(c, TR_OP_SHAPE, (H[]){X0}, 1, &a);
  tr_attrs_init(&a);
  dx[0] = shape ? apply(c, TR_OP_RESHAPE, (H[]){dy[0], shape}, 2, &a) : NULL;
}

/* g[..., begin:end, ...] along `axis` (begin < 0: g[..., -begin-1, ...], the axis dropped). */
static H
slice_axis(Grad *c, H g, int rank, int64_t axis, int64_t begin, int64_t end)
{
  int64_t b[TR_MAX_RANK] = {0}, e[TR_MAX_RANK] = {0}, s[TR_MAX_RANK];
  TrAttrs a;
  tr_attrs_init(&a);
  for (int d = 0; d < rank; d++) {
    s[d] = 1;
    if (d != axis) {
      a.begin_mask |= 1u << d;
      a.end_mask |= 1u << d;
    }
  }
  if (begin < 0) {
    b[axis] = -begin - 1;
    e[axis] = -begin;
    a.shrink_axis_mask = 1u << axis;
  } else {
    b[axis] = begin;
    e[axis] = end;
  }
  H in[4] = {g, int_vector(c, b, rank), int_vector(c, e, rank), int_vector(c, s, rank)};
  return apply(c, TR_OP_STRIDED_SLICE, in, 4, &a);
}

static void
grad_concat(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  int rank = shape_of(c, dy[0]).rank;
  int64_t axis = norm_axis(r->attrs ? r->attrs->axis : 0, rank);
  int64_t at = 0;
  for (int i = 0; i < r->n_inputs; i++) {
    int64_t size = shape_of(c, r->inputs[i]).dims[axis];
    if (size == TR_UNKNOWN) {
      fail(c, TR_ERROR_UNIMPLEMENTED, "Gradient of ConcatV2 needs the sizes along its axis");
      return;
    }
    dx[i] = slice_axis(c, dy[0], rank, axis, at, at + size);
    at += size;
  }
}

static void
grad_stack(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  int rank = shape_of(c, dy[0]).rank;
  int64_t axis = norm_axis(r->attrs ? r->attrs->axis : 0, rank);
  for (int i = 0; i < r->n_inputs; i++)
    dx[i] = slice_axis(c, dy[0], rank, axis, -i - 1, 0);
}

/* The gradient of params: dy's rows scattered back to the rows `indices` took, summed. As a
 * product with the one-hot matrix of the indices: [N, K] x [K, M]. */
static void
grad_gather(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  TrShape sp = shape_of(c, X0), si = shape_of(c, X1);
  if (!tr_shape_is_fully_defined(&sp) || si.rank == TR_UNKNOWN) {
    fail(c, TR_ERROR_UNIMPLEMENTED, "Gradient of GatherV2 needs the shape of params");
    return;
  }
  int rank = sp.rank, q = si.rank;
  int64_t axis = norm_axis(r->attrs ? r->attrs->axis : 0, rank), n = sp.dims[axis], rest = 1;
  for (int d = 0; d < rank; d++)
    rest *= d == axis ? 1 : sp.dims[d];
  TrAttrs oh;
  tr_attrs_init(&oh);
  oh.depth = n;
  oh.axis = -1;
  oh.dtype = dtype_of(c, dy[0]);
  H hot = reshape(c, apply(c, TR_OP_ONE_HOT, (H[]){X1}, 1, &oh),
                  &(TrShape){.rank = 2, .dims = {TR_UNKNOWN, n}});
  /* dy's index dims first: [idx..., params' other dims...], then [K, M]. */
  int64_t perm[TR_MAX_RANK];
  int k = 0;
  for (int d = 0; d < q; d++)
    perm[k++] = axis + d;
  for (int d = 0; d < axis; d++)
    perm[k++] = d;
  for (int d = (int)axis + q; d < rank - 1 + q; d++)
    perm[k++] = d;
  H rows =
      reshape(c, transpose(c, dy[0], perm, k), &(TrShape){.rank = 2, .dims = {TR_UNKNOWN, rest}});
  H sums = matmul(c, TR_OP_MATMUL, hot, rows, true, false);
  /* [N, params' other dims...], then N moved back to `axis`. */
  TrShape moved = {.rank = rank};
  moved.dims[0] = n;
  for (int d = 0, j = 1; d < rank; d++)
    if (d != axis)
      moved.dims[j++] = sp.dims[d];
  for (int d = 0; d < rank; d++)
    perm[d] = d < axis ? d + 1 : d == axis ? 0 : d;
  dx[0] = transpose(c, reshape(c, sums, &moved), perm, rank);
}

static void
grad_strided_slice(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  TrShape s = shape_of(c, X0);
  if (!tr_shape_is_fully_defined(&s)) {
    fail(c, TR_ERROR_UNIMPLEMENTED, "Gradient of StridedSlice needs its input's full shape");
    return;
  }
  TrAttrs a = *r->attrs;
  a.n_axes = s.rank;
  memcpy(a.axes, s.dims, sizeof(int64_t) * (size_t)s.rank);
  dx[0] = apply(c, TR_OP_STRIDED_SLICE_GRAD, (H[]){dy[0], X1, X2, r->inputs[3]}, 4, &a);
}

/* ---- ops of the basic guides: activations, tiling, broadcasting, reversing, sorting ---- */

/* Softplus: dy * sigmoid(x). */
static void
grad_softplus(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  dx[0] = op2(c, TR_OP_MUL, dy[0], op1(c, TR_OP_SIGMOID, X0));
}

/* Relu6: dy where 0 < x < 6, else 0. */
static void
grad_relu6(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  H six = scalar(c, 6.0, dtype_of(c, X0));
  H inside = op2(c, TR_OP_LOGICAL_AND, op2(c, TR_OP_GREATER, X0, zeros_like(c, X0)),
                 op2(c, TR_OP_LESS, X0, six));
  dx[0] = where(c, inside, dy[0], zeros_like(c, dy[0]));
}

/* Tile: dy seen as [m0, d0, m1, d1, ...] summed over the multiples. */
static void
grad_tile(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  TrShape s = shape_of(c, X0);
  if (!tr_shape_is_fully_defined(&s) || 2 * s.rank > TR_MAX_RANK) {
    fail(c, TR_ERROR_UNIMPLEMENTED, "Gradient of Tile needs its input's full shape");
    return;
  }
  if (s.rank == 0) {
    dx[0] = dy[0];
    return;
  }
  TrShape split = {.rank = 2 * s.rank};
  int64_t axes[TR_MAX_RANK];
  for (int i = 0; i < s.rank; i++) {
    split.dims[2 * i] = r->attrs->axes[i];
    split.dims[2 * i + 1] = s.dims[i];
    axes[i] = 2 * i;
  }
  dx[0] = reduce(c, TR_OP_SUM, reshape(c, dy[0], &split), axes, s.rank, false);
}

/* BroadcastTo: dy summed back to the input's shape. */
static void
grad_broadcast_to(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  dx[0] = sum_to(c, dy[0], X0);
}

/* ReverseV2 is its own inverse. */
static void
grad_reverse(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  dx[0] = apply(c, TR_OP_REVERSE, (H[]){dy[0]}, 1, r->attrs);
}

/* Sort: each input element gets the gradient of the place it was sorted to. With idx the
 * argsort along the (moved-last) axis, dx[..., j] = sum_i dy[..., i] * (idx[..., i] == j),
 * through a one-hot of idx. */
static void
grad_sort(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  TrShape s = shape_of(c, X0);
  if (s.rank == TR_UNKNOWN) {
    fail(c, TR_ERROR_UNIMPLEMENTED, "Gradient of Sort needs its input's rank");
    return;
  }
  int64_t axis = norm_axis(r->attrs->axis, s.rank);
  int64_t n = s.dims[axis];
  if (n == TR_UNKNOWN) {
    fail(c, TR_ERROR_UNIMPLEMENTED, "Gradient of Sort needs the size of the sorted axis");
    return;
  }
  int64_t perm[TR_MAX_RANK];
  for (int i = 0; i < s.rank; i++)
    perm[i] = i;
  perm[axis] = s.rank - 1;
  perm[s.rank - 1] = axis; /* a swap: its own inverse */
  TrAttrs sa = *r->attrs;
  sa.axis = -1;
  H idx = apply(c, TR_OP_ARGSORT, (H[]){transpose(c, X0, perm, s.rank)}, 1, &sa);
  TrAttrs oh;
  tr_attrs_init(&oh);
  oh.depth = n;
  oh.axis = -1;
  oh.dtype = dtype_of(c, dy[0]);
  H hot = apply(c, TR_OP_ONE_HOT, (H[]){idx}, 1, &oh);
  TrAttrs ex;
  tr_attrs_init(&ex);
  ex.axis = -1;
  H g = apply(c, TR_OP_EXPAND_DIMS, (H[]){transpose(c, dy[0], perm, s.rank)}, 1, &ex);
  int64_t rows = s.rank - 1;
  H moved = reduce(c, TR_OP_SUM, op2(c, TR_OP_MUL, g, hot), &rows, 1, false);
  dx[0] = transpose(c, moved, perm, s.rank);
}

#undef X0
#undef X1
#undef X2
#undef Y

/* The gradient of each core/tensor op; NULL: not differentiable (no gradient for any input). */
static const GradFunc grad_funcs[TR_N_OPS] = {
    [TR_OP_ADD] = grad_add,
    [TR_OP_SUB] = grad_sub,
    [TR_OP_MUL] = grad_mul,
    [TR_OP_DIV] = grad_div,
    [TR_OP_MOD] = grad_floor_mod,
    [TR_OP_POW] = grad_pow,
    [TR_OP_MAXIMUM] = grad_maximum,
    [TR_OP_MINIMUM] = grad_minimum,
    [TR_OP_NEG] = grad_neg,
    [TR_OP_ABS] = grad_abs,
    [TR_OP_REAL] = grad_real,
    [TR_OP_IMAG] = grad_imag,
    [TR_OP_COMPLEX] = grad_complex,
    [TR_OP_CONJ] = grad_conj,
    [TR_OP_ANGLE] = grad_angle,
    [TR_OP_SQUARE] = grad_square,
    [TR_OP_SQRT] = grad_sqrt,
    [TR_OP_EXP] = grad_exp,
    [TR_OP_LOG] = grad_log,
    [TR_OP_TANH] = grad_tanh,
    [TR_OP_SIGMOID] = grad_sigmoid,
    [TR_OP_SIN] = grad_sin,
    [TR_OP_COS] = grad_cos,
    [TR_OP_RELU] = grad_relu,
    [TR_OP_IDENTITY] = grad_identity,
    [TR_OP_CAST] = grad_cast,
    [TR_OP_SELECT] = grad_select,
    [TR_OP_CLIP_BY_VALUE] = grad_clip_by_value,
    [TR_OP_SUM] = grad_sum,
    [TR_OP_MEAN] = grad_mean,
    [TR_OP_MAX] = grad_extreme,
    [TR_OP_MIN] = grad_extreme,
    [TR_OP_PROD] = grad_prod,
    [TR_OP_SOFTMAX] = grad_softmax,
    [TR_OP_MATMUL] = grad_matmul,
    [TR_OP_BATCH_MATMUL] = grad_matmul,
    [TR_OP_CONV2D] = grad_conv2d,
    [TR_OP_TRANSPOSE] = grad_transpose,
    [TR_OP_RESHAPE] = grad_reshape,
    [TR_OP_CONCAT] = grad_concat,
    [TR_OP_STACK] = grad_stack,
    [TR_OP_SQUEEZE] = grad_reshape,
    [TR_OP_EXPAND_DIMS] = grad_reshape,
    [TR_OP_GATHER] = grad_gather,
    [TR_OP_STRIDED_SLICE] = grad_strided_slice,
    [TR_OP_SOFTPLUS] = grad_softplus,
    [TR_OP_RELU6] = grad_relu6,
    [TR_OP_TILE] = grad_tile,
    [TR_OP_BROADCAST_TO] = grad_broadcast_to,
    [TR_OP_REVERSE] = grad_reverse,
    [TR_OP_SORT] = grad_sort,
};

/* ---- the backward walk ------------------------------------------------------------------------
 */

bool
tr_grad_dtype_is_differentiable(TrDType dtype)
{
  return dtype != TR_DTYPE_RESOURCE && (tr_dtype_is_float(dtype) || tr_dtype_is_complex(dtype));
}

static void grad_read_variable(Grad *c, const TrGradRecord *r, H const *dy, H *dx);
static void grad_call(Grad *c, const TrGradRecord *r, H const *dy, H *dx);
static void grad_while(Grad *c, const TrGradRecord *r, H const *dy, H *dx);
static void grad_if(Grad *c, const TrGradRecord *r, H const *dy, H *dx);
static void grad_second_order(Grad *c, const TrGradRecord *r, H const *dy, H *dx);

/* A record whose gradient the language layer computes (tf.custom_gradient). */
static void
grad_custom(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  if (!r->custom) {
    fail(c, TR_ERROR_UNIMPLEMENTED, "A custom gradient record has no gradient function");
    return;
  }
  GError *error = NULL;
  if (!r->custom(c->ctx, r, (void *const *)dy, dx, &error)) {
    if (!c->error)
      c->error = error;
    else
      g_error_free(error);
  }
}

static GradFunc
grad_func(int op)
{
  if (op >= 0 && op < TR_N_OPS)
    return grad_funcs[op];
  if (op == TR_GOP_READ_VARIABLE)
    return grad_read_variable;
  if (op == TR_GOP_WHILE)
    return grad_while;
  if (op == TR_GOP_IF)
    return grad_if;
  if (op == TR_GOP_SYMBOLIC_GRADIENT)
    return grad_second_order;
  if (op == TR_GRAD_CALL)
    return grad_call;
  if (op == TR_GRAD_CUSTOM)
    return grad_custom;
  return NULL;
}

bool
tr_grad_op_is_differentiable(int op)
{
  return grad_func(op) != NULL;
}

static bool
differentiable(Grad *c, H h)
{
  return tr_grad_dtype_is_differentiable(dtype_of(c, h));
}

/* grads[h] += g. */
static void
accumulate(Grad *c, GHashTable *grads, H h, H g)
{
  H old = g_hash_table_lookup(grads, h);
  H sum = old ? op2(c, TR_OP_ADD, old, g) : g;
  if (sum)
    g_hash_table_insert(grads, h, sum);
}

/* The values the sources reach through differentiable records: only their gradients matter. */
static GHashTable *
reachable(Grad *c, const TrGradRecord *records, int n_records, H const *sources, int n_sources)
{
  GHashTable *reach = g_hash_table_new(NULL, NULL);
  for (int j = 0; j < n_sources; j++)
    if (sources[j] && differentiable(c, sources[j]))
      g_hash_table_add(reach, sources[j]);
  for (int i = 0; i < n_records; i++) {
    const TrGradRecord *r = &records[i];
    bool hit = false;
    for (int k = 0; k < r->n_inputs && !hit; k++)
      hit = g_hash_table_contains(reach, r->inputs[k]);
    if (!hit || !grad_func(r->op))
      continue;
    for (int k = 0; k < r->n_outputs; k++)
      if (differentiable(c, r->outputs[k]))
        g_hash_table_add(reach, r->outputs[k]);
  }
  return reach;
}

/* One record, backwards: its inputs' gradients from its outputs'. */
static void
backprop_record(Grad *c, const TrGradRecord *r, GHashTable *reach, GHashTable *grads)
{
  bool needed = false, any = false;
  for (int k = 0; k < r->n_inputs && !needed; k++)
    needed = g_hash_table_contains(reach, r->inputs[k]);
  GradFunc f = grad_func(r->op);
  if (!needed || !f)
    return;
  g_autofree H *dy = g_new0(H, MAX(r->n_outputs, 1));
  for (int k = 0; k < r->n_outputs; k++) {
    dy[k] = g_hash_table_lookup(grads, r->outputs[k]);
    any |= dy[k] != NULL;
  }
  if (!any)
    return;
  g_autofree H *dx = g_new0(H, MAX(r->n_inputs, 1));
  f(c, r, dy, dx);
  for (int k = 0; k < r->n_inputs && !c->error; k++)
    if (dx[k] && g_hash_table_contains(reach, r->inputs[k]))
      accumulate(c, grads, r->inputs[k], dx[k]);
}

/* The walk: seeds[i] NULL means ones when `null_is_ones`, no gradient otherwise. */
static void
backprop(Grad *c, const TrGradRecord *records, int n_records, H const *targets, H const *seeds,
         int n_targets, bool null_is_ones, H const *sources, int n_sources, H *out)
{
  g_autoptr(GHashTable) reach = reachable(c, records, n_records, sources, n_sources);
  g_autoptr(GHashTable) grads = g_hash_table_new(NULL, NULL);
  for (int i = 0; i < n_targets; i++) {
    if (!g_hash_table_contains(reach, targets[i]))
      continue;
    H seed = seeds ? seeds[i] : NULL;
    if (!seed && null_is_ones)
      seed = op1(c, TR_OP_ONES_LIKE, targets[i]);
    if (seed)
      accumulate(c, grads, targets[i], cast(c, seed, dtype_of(c, targets[i])));
  }
  for (int i = n_records - 1; i >= 0 && !c->error; i--)
    backprop_record(c, &records[i], reach, grads);
  for (int j = 0; j < n_sources; j++)
    out[j] = c->error || !sources[j] ? NULL : g_hash_table_lookup(grads, sources[j]);
}

bool
tr_grad_backprop(const TrGradBuilder *b, void *ctx, const TrGradRecord *records, int n_records,
                 void *const *targets, void *const *seeds, int n_targets, void *const *sources,
                 int n_sources, void **grads, GError **error)
{
  Grad c = {b, ctx, NULL};
  backprop(&c, records, n_records, targets, seeds, n_targets, true, sources, n_sources, grads);
  if (!c.error)
    return true;
  g_propagate_error(error, c.error);
  return false;
}

static void
grad_read_variable(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  dx[0] = dy[0];
}

/* ---- replaying graphs --------------------------------------------------------------------------
 * A traced graph is differentiated by running it again through the builder, node by node, while
 * recording every op; loops run on concrete values and leave one set of records per iteration. */

typedef struct {
  Grad *c;          /* where ops go */
  GArray *records;  /* TrGradRecord, in the order the replay applied them */
  GPtrArray *mem;   /* the records' handle arrays (owned) */
  GHashTable *vars; /* TrVariable* -> the handle of its current value */
} Replay;

static void
replay_init(Replay *rp, Grad *c)
{
  rp->c = c;
  rp->records = g_array_new(FALSE, TRUE, sizeof(TrGradRecord));
  rp->mem = g_ptr_array_new_with_free_func(g_free);
  rp->vars = g_hash_table_new(NULL, NULL);
}

static void
replay_clear(Replay *rp)
{
  g_array_unref(rp->records);
  g_ptr_array_unref(rp->mem);
  g_hash_table_unref(rp->vars);
}

static H *
replay_alloc(Replay *rp, int n)
{
  H *a = g_new0(H, MAX(n, 1));
  g_ptr_array_add(rp->mem, a);
  return a;
}

static bool replay_graph(Replay *rp, const TrGraph *g, H const *args, H *outs);

/* Runs one node: `in` are its inputs' handles, `out` receives its outputs'. */
typedef bool (*ReplayFunc)(Replay *rp, const TrNode *node, H const *in, H *out);

static bool
replay_op(Replay *rp, const TrNode *node, H const *in, H *out)
{
  Grad *c = rp->c;
  for (int i = 0; i < node->n_inputs; i++) {
    if (!in[i]) {
      fail(c, TR_ERROR_UNIMPLEMENTED,
           "Cannot differentiate through node '%s': input %d has no value", node->name, i);
      return false;
    }
  }
  out[0] = apply(c, node->op, in, node->n_inputs, node->attrs);
  if (!out[0])
    return false;
  H *ins = replay_alloc(rp, node->n_inputs);
  memcpy(ins, in, sizeof(H) * (size_t)node->n_inputs);
  TrGradRecord r = {.op = node->op,
                    .attrs = node->attrs,
                    .n_inputs = node->n_inputs,
                    .inputs = ins,
                    .n_outputs = 1,
                    .outputs = replay_alloc(rp, 1)};
  ((H *)r.outputs)[0] = out[0];
  g_array_append_val(rp->records, r);
  return true;
}

static bool
replay_const(Replay *rp, const TrNode *node, H const *in, H *out)
{
  out[0] = constant(rp->c, tr_tensor_ref(node->value));
  return out[0] != NULL;
}

/* A resource placeholder; argument placeholders are bound by replay_graph. */
static bool
replay_placeholder(Replay *rp, const TrNode *node, H const *in, H *out)
{
  if (!node->variable)
    return true;
  out[0] = g_hash_table_lookup(rp->vars, node->variable);
  if (!out[0])
    fail(rp->c, TR_ERROR_UNIMPLEMENTED,
         "Cannot differentiate through variable '%s': its value is not known",
         node->variable->name);
  return out[0] != NULL;
}

/* A read gives the variable's current value: the gradient goes to whatever made that value. */
static bool
replay_read_variable(Replay *rp, const TrNode *node, H const *in, H *out)
{
  out[0] = in[0];
  return true;
}

static bool
replay_assign(Replay *rp, const TrNode *node, H const *in, H *out)
{
  TrVariable *var = node->inputs[0].node->variable;
  H now = g_hash_table_lookup(rp->vars, var);
  H next = node->op == TR_GOP_ASSIGN_VARIABLE       ? in[1]
           : node->op == TR_GOP_ASSIGN_ADD_VARIABLE ? op2(rp->c, TR_OP_ADD, now, in[1])
                                                    : op2(rp->c, TR_OP_SUB, now, in[1]);
  if (!next)
    return rp->c->error == NULL;
  g_hash_table_insert(rp->vars, var, next);
  return true;
}

/* Nodes without a value a gradient needs (printing, NoOp). */
static bool
replay_nothing(Replay *rp, const TrNode *node, H const *in, H *out)
{
  return true;
}

static bool
concrete_bool(Replay *rp, H h, const char *what, bool *out)
{
  TrTensor *t = rp->c->b->value(rp->c->ctx, h);
  if (!t) {
    fail(rp->c, TR_ERROR_UNIMPLEMENTED,
         "Gradients of a %s inside a traced function are not supported yet", what);
    return false;
  }
  *out = tr_tensor_get_i64(t, 0) != 0;
  return true;
}

static bool
replay_while(Replay *rp, const TrNode *node, H const *in, H *out)
{
  const TrGraph *cond = node->children[0], *body = node->children[1];
  int n = node->n_inputs;
  memcpy(out, in, sizeof(H) * (size_t)n);
  g_autofree H *next = g_new0(H, MAX(n, 1));
  for (;;) {
    H more = NULL;
    bool go;
    if (!replay_graph(rp, cond, out, &more) || !concrete_bool(rp, more, "while loop", &go))
      return false;
    if (!go)
      return true;
    if (!replay_graph(rp, body, out, next))
      return false;
    memcpy(out, next, sizeof(H) * (size_t)n);
  }
}

static bool
replay_if(Replay *rp, const TrNode *node, H const *in, H *out)
{
  bool go;
  if (!concrete_bool(rp, in[0], "conditional", &go))
    return false;
  int n_then = tr_graph_n_inputs(node->children[0]);
  return replay_graph(rp, node->children[go ? 0 : 1], go ? in + 1 : in + 1 + n_then, out);
}

static const char second_order_text[] =
    "Second-order gradients through a while loop or conditional inside a traced function are not "
    "supported yet";

/* A SymbolicGradient of a graph being replayed (a traced function that took gradients itself):
 * it runs on the known values, and its record's gradient is an error (grad_second_order). */
static bool
replay_symbolic_gradient(Replay *rp, const TrNode *node, H const *in, H *out)
{
  Grad *c = rp->c;
  g_autofree TrTensor **vals = g_new0(TrTensor *, MAX(node->n_inputs, 1));
  for (int i = 0; i < node->n_inputs; i++) {
    vals[i] = in[i] ? c->b->value(c->ctx, in[i]) : NULL;
    if (!vals[i]) {
      fail(c, TR_ERROR_UNIMPLEMENTED, "%s", second_order_text);
      return false;
    }
  }
  g_autofree TrTensor **res = g_new0(TrTensor *, MAX(node->n_outputs, 1));
  if (!tr_grad_run_symbolic_gradient(node, vals, res, &c->error))
    return false;
  for (int k = 0; k < node->n_outputs; k++)
    out[k] = constant(c, res[k]);
  if (c->error)
    return false;
  H *ins = replay_alloc(rp, node->n_inputs), *outs = replay_alloc(rp, node->n_outputs);
  memcpy(ins, in, sizeof(H) * (size_t)node->n_inputs);
  memcpy(outs, out, sizeof(H) * (size_t)node->n_outputs);
  TrGradRecord r = {.op = node->op,
                    .n_inputs = node->n_inputs,
                    .inputs = ins,
                    .n_outputs = node->n_outputs,
                    .outputs = outs,
                    .node = node};
  g_array_append_val(rp->records, r);
  return true;
}

static const ReplayFunc replay_gops[TR_N_NODE_OPS - TR_N_OPS] = {
    [TR_GOP_PLACEHOLDER - TR_N_OPS] = replay_placeholder,
    [TR_GOP_CONST - TR_N_OPS] = replay_const,
    [TR_GOP_READ_VARIABLE - TR_N_OPS] = replay_read_variable,
    [TR_GOP_ASSIGN_VARIABLE - TR_N_OPS] = replay_assign,
    [TR_GOP_ASSIGN_ADD_VARIABLE - TR_N_OPS] = replay_assign,
    [TR_GOP_ASSIGN_SUB_VARIABLE - TR_N_OPS] = replay_assign,
    [TR_GOP_STRING_FORMAT - TR_N_OPS] = replay_nothing,
    [TR_GOP_PRINT - TR_N_OPS] = replay_nothing,
    [TR_GOP_NO_OP - TR_N_OPS] = replay_nothing,
    [TR_GOP_WHILE - TR_N_OPS] = replay_while,
    [TR_GOP_IF - TR_N_OPS] = replay_if,
    [TR_GOP_SYMBOLIC_GRADIENT - TR_N_OPS] = replay_symbolic_gradient,
};

static ReplayFunc
replay_func(int op)
{
  if (op < TR_N_OPS)
    return replay_op;
  ReplayFunc f = replay_gops[op - TR_N_OPS];
  return f ? f : replay_nothing;
}

/* Runs `g` on `args` (its arguments' handles); outs receives its results' handles. */
static bool
replay_graph(Replay *rp, const TrGraph *g, H const *args, H *outs)
{
  int n = tr_graph_n_nodes(g);
  g_autofree H **vals = g_new0(H *, MAX(n, 1));
  for (int i = 0; i < tr_graph_n_inputs(g); i++) {
    const TrNode *p = tr_graph_input(g, i);
    vals[p->id] = replay_alloc(rp, 1);
    vals[p->id][0] = args[i];
  }
  for (int i = 0; i < n; i++) {
    const TrNode *node = tr_graph_node(g, i);
    if (vals[i])
      continue;
    vals[i] = replay_alloc(rp, node->n_outputs);
    g_autofree H *in = g_new0(H, MAX(node->n_inputs, 1));
    for (int k = 0; k < node->n_inputs; k++)
      in[k] = vals[node->inputs[k].node->id][node->inputs[k].index];
    if (!replay_func(node->op)(rp, node, in, vals[i]))
      return false;
  }
  for (int i = 0; i < tr_graph_n_outputs(g); i++)
    outs[i] = vals[tr_graph_output(g, i)->id][0];
  return true;
}

/* Runs a replay of something with `n_in` inputs and `n_out` outputs, then back-propagates dy
 * through what it recorded. Each input gets an Identity of its own first, so that an input
 * passed twice gets the gradient of each use separately. */
typedef bool (*ReplayRun)(Replay *rp, const TrGradRecord *r, H const *in, H *out);

static void
replay_vjp(Grad *c, const TrGradRecord *r, ReplayRun run, H const *dy, H *dx)
{
  Replay rp;
  replay_init(&rp, c);
  g_autofree H *in = g_new0(H, MAX(r->n_inputs, 1));
  g_autofree H *out = g_new0(H, MAX(r->n_outputs, 1));
  for (int i = 0; i < r->n_inputs; i++)
    in[i] = op1(c, TR_OP_IDENTITY, r->inputs[i]);
  if (!c->error && run(&rp, r, in, out))
    backprop(c, (TrGradRecord *)rp.records->data, (int)rp.records->len, out, dy, r->n_outputs,
             false, in, r->n_inputs, dx);
  replay_clear(&rp);
}

static bool
run_call(Replay *rp, const TrGradRecord *r, H const *in, H *out)
{
  int n_args = tr_graph_n_inputs(r->graph);
  int n_vars = tr_grad_graph_variables(r->graph, NULL, 0);
  g_return_val_if_fail(r->n_inputs == n_args + n_vars, false);
  g_autofree TrVariable **vars = g_new0(TrVariable *, MAX(n_vars, 1));
  tr_grad_graph_variables(r->graph, vars, n_vars);
  for (int k = 0; k < n_vars; k++)
    g_hash_table_insert(rp->vars, vars[k], in[n_args + k]);
  return replay_graph(rp, r->graph, in, out);
}

static void node_variables(const TrNode *node, GPtrArray *out);

/* A While or If record: the node's inputs, then (when given) its children's variables. */
static bool
run_node(Replay *rp, const TrGradRecord *r, H const *in, H *out)
{
  const TrNode *node = r->node;
  if (r->n_inputs > node->n_inputs) {
    g_autoptr(GPtrArray) vars = g_ptr_array_new();
    node_variables(node, vars);
    g_return_val_if_fail((int)vars->len == r->n_inputs - node->n_inputs, false);
    for (guint k = 0; k < vars->len; k++)
      g_hash_table_insert(rp->vars, vars->pdata[k], in[node->n_inputs + (int)k]);
  }
  return replay_func(node->op)(rp, node, in, out);
}

static void
grad_call(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  replay_vjp(c, r, run_call, dy, dx);
}

/* Loops and conditionals of a graph: replayed when their inputs are concrete. */
static bool
inputs_concrete(Grad *c, const TrGradRecord *r)
{
  for (int i = 0; i < r->n_inputs; i++)
    if (!c->b->value(c->ctx, r->inputs[i]))
      return false;
  return true;
}

static void
grad_while(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  if (inputs_concrete(c, r)) {
    replay_vjp(c, r, run_node, dy, dx);
    return;
  }
  if (!c->b->symbolic_gradient) {
    fail(c, TR_ERROR_UNIMPLEMENTED,
         "Gradients of a while loop inside a traced function are not supported yet (node '%s')",
         r->node->name);
    return;
  }
  if (!c->error)
    c->b->symbolic_gradient(c->ctx, r->node, r->inputs, r->n_inputs, dy, dx, &c->error);
}

/* Replayed when its inputs are known (the taken branch is then known), else symbolic when the
 * builder can; without the hook the replay reports that the predicate is not known. */
static void
grad_if(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  if (inputs_concrete(c, r) || !c->b->symbolic_gradient) {
    replay_vjp(c, r, run_node, dy, dx);
    return;
  }
  if (!c->error)
    c->b->symbolic_gradient(c->ctx, r->node, r->inputs, r->n_inputs, dy, dx, &c->error);
}

/* A SymbolicGradient's own gradient would be a replay of a replay: not done. */
static void
grad_second_order(Grad *c, const TrGradRecord *r, H const *dy, H *dx)
{
  fail(c, TR_ERROR_UNIMPLEMENTED, "%s", second_order_text);
}

/* ---- variables of a graph ----------------------------------------------------------------------
 */

static void
collect_variables(const TrGraph *g, GPtrArray *out)
{
  for (int i = 0; i < tr_graph_n_nodes(g); i++) {
    const TrNode *node = tr_graph_node(g, i);
    if (node->op == TR_GOP_PLACEHOLDER && node->variable &&
        !g_ptr_array_find(out, node->variable, NULL))
      g_ptr_array_add(out, node->variable);
    node_variables(node, out);
  }
}

/* The variables a node's children use, in tr_grad_graph_variables order. */
static void
node_variables(const TrNode *node, GPtrArray *out)
{
  for (int k = 0; k < node->n_children; k++)
    collect_variables(node->children[k], out);
}

int
tr_grad_graph_variables(const TrGraph *g, TrVariable **vars, int max)
{
  g_autoptr(GPtrArray) all = g_ptr_array_new();
  collect_variables(g, all);
  for (int i = 0; vars && i < (int)all->len && i < max; i++)
    vars[i] = all->pdata[i];
  return (int)all->len;
}

/* ---- SymbolicGradient nodes ----------------------------------------------------------------
 * The node keeps a small function graph of its own, the forward node on placeholders, so that a
 * copy or an inlining carries it and the exporters draw it; its kernel replays that node with
 * the eager builder, the same replay_vjp an eager tape uses for a called function. */

static bool
is_forward_op(int op)
{
  return op == TR_GOP_WHILE || op == TR_GOP_IF;
}

const TrNode *
tr_grad_symbolic_forward(const TrNode *node)
{
  g_return_val_if_fail(node && node->op == TR_GOP_SYMBOLIC_GRADIENT && node->n_children == 1, NULL);
  const TrGraph *f = node->children[0];
  for (int i = 0; i < tr_graph_n_nodes(f); i++)
    if (is_forward_op(tr_graph_node(f, i)->op))
      return tr_graph_node(f, i);
  g_return_val_if_reached(NULL);
}

/* The child graph: placeholders like the forward node's inputs, a copy of the node on them (its
 * children copied: a child graph belongs to one parent), and its results. */
static TrGraph *
forward_graph(const TrNode *forward, GError **error)
{
  g_autoptr(TrGraph) f = tr_graph_new(forward->name);
  int n = forward->n_inputs;
  g_autofree TrOutput *args = g_new(TrOutput, MAX(n, 1));
  for (int i = 0; i < n; i++) {
    TrOutput in = forward->inputs[i];
    TrNode *p = tr_graph_add_placeholder(f, tr_output_dtype(in), tr_output_shape(in), "input");
    args[i] = tr_node_output(p, 0);
  }
  g_autoptr(TrGraph) a = tr_graph_copy(forward->children[0]);
  g_autoptr(TrGraph) b = tr_graph_copy(forward->children[1]);
  int n_then = tr_graph_n_inputs(a);
  TrNode *copy = forward->op == TR_GOP_WHILE
                     ? tr_graph_add_while(f, a, b, args, n, forward->name, error)
                     : tr_graph_add_cond(f, args[0], a, b, args + 1, n_then, args + 1 + n_then,
                                         n - 1 - n_then, forward->name, error);
  if (!copy)
    return NULL;
  for (int k = 0; k < copy->n_outputs; k++)
    if (!tr_graph_add_output(f, tr_node_output(copy, k), error))
      return NULL;
  return g_steal_pointer(&f);
}

/* Each given tensor has the dtype the forward node has there. */
static bool
check_dtype(TrOutput given, TrDType want, const char *what, int i, GError **error)
{
  TrDType got = tr_output_dtype(given);
  if (got == want)
    return true;
  g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE,
              "SymbolicGradient: %s %d must have dtype %s, but has dtype %s", what, i,
              tr_graph_dtype_name(want), tr_graph_dtype_name(got));
  return false;
}

TrNode *
tr_grad_add_symbolic_gradient(TrGraph *g, const TrNode *forward, const TrOutput *inputs,
                              const TrOutput *grad_outputs, const char *name, GError **error)
{
  g_return_val_if_fail(g && forward && is_forward_op(forward->op), NULL);
  int n_in = forward->n_inputs, n_out = forward->n_outputs;
  g_autofree TrOutput *all = g_new(TrOutput, MAX(n_in + n_out, 1));
  memcpy(all, inputs, sizeof(TrOutput) * (size_t)n_in);
  memcpy(all + n_in, grad_outputs, sizeof(TrOutput) * (size_t)n_out);
  if (!tr_graph_check_inputs(g, all, n_in + n_out, error))
    return NULL;
  for (int i = 0; i < n_in; i++)
    if (!check_dtype(inputs[i], tr_output_dtype(forward->inputs[i]), "input", i, error))
      return NULL;
  for (int k = 0; k < n_out; k++)
    if (!check_dtype(grad_outputs[k], forward->dtypes[k], "the gradient of output", k, error))
      return NULL;
  g_autoptr(TrGraph) f = forward_graph(forward, error);
  if (!f)
    return NULL;
  g_autoptr(GPtrArray) vars = g_ptr_array_new();
  collect_variables(f, vars);
  const char *type = tr_gop_def(TR_GOP_SYMBOLIC_GRADIENT)->type;
  const char *unique = tr_graph_unique_name(g, name ? name : type);
  TrNode *node = tr_graph_node_new(g, TR_GOP_SYMBOLIC_GRADIENT, type, unique, all, n_in + n_out,
                                   n_in + (int)vars->len);
  for (int i = 0; i < n_in; i++) {
    node->dtypes[i] = tr_output_dtype(inputs[i]);
    node->shapes[i] = *tr_output_shape(inputs[i]);
  }
  for (guint k = 0; k < vars->len; k++) {
    TrVariable *var = vars->pdata[k];
    node->dtypes[n_in + (int)k] = var->dtype;
    node->shapes[n_in + (int)k] = var->shape;
  }
  tr_node_add_child(node, f);
  if (vars->len > 0)
    tr_graph_note_stateful(g, node);
  return node;
}

/* What a SymbolicGradient output is when back-propagation gave none: zeros for a floating-point
 * value, the value itself otherwise (the node's outputs are documented so). */
static TrTensor *
no_gradient(TrTensor *value, GError **error)
{
  if (!tr_grad_dtype_is_differentiable(value->dtype))
    return tr_tensor_ref(value);
  return tr_op_run(TR_OP_ZEROS_LIKE, &value, 1, NULL, error);
}

/* Output k of the kernel from the gradient handle `dx` (may be NULL) of `value`. */
static TrTensor *
kernel_output(void *dx, TrTensor *value, GError **error)
{
  if (dx && tr_grad_dtype_is_differentiable(value->dtype))
    return tr_tensor_ref(tr_grad_eager_tensor(dx));
  return no_gradient(value, error);
}

bool
tr_grad_run_symbolic_gradient(const TrNode *node, TrTensor *const *in, TrTensor **out,
                              GError **error)
{
  const TrNode *fwd = tr_grad_symbolic_forward(node);
  g_return_val_if_fail(fwd != NULL, false);
  int n_in = fwd->n_inputs, n_out = fwd->n_outputs, n = node->n_outputs;
  g_autoptr(GPtrArray) vars = g_ptr_array_new();
  node_variables(fwd, vars);
  g_return_val_if_fail(n == n_in + (int)vars->len, false);
  g_autoptr(TrGradEager) e = tr_grad_eager_new();
  g_autofree H *ins = g_new0(H, MAX(n, 1));
  g_autofree TrTensor **values = g_new0(TrTensor *, MAX(n, 1));
  for (int i = 0; i < n; i++) {
    values[i] = i < n_in ? tr_tensor_ref(in[i]) : tr_variable_read(vars->pdata[i - n_in]);
    ins[i] = tr_grad_eager_handle(e, values[i]);
  }
  g_autofree H *dy = g_new0(H, MAX(n_out, 1));
  for (int k = 0; k < n_out; k++)
    if (tr_grad_dtype_is_differentiable(fwd->dtypes[k]))
      dy[k] = tr_grad_eager_handle(e, in[n_in + k]);
  TrGradRecord r = {.op = fwd->op, .n_inputs = n, .inputs = ins, .n_outputs = n_out, .node = fwd};
  Grad c = {&tr_grad_eager_builder, e, NULL};
  g_autofree H *dx = g_new0(H, MAX(n, 1));
  replay_vjp(&c, &r, run_node, dy, dx);
  bool ok = c.error == NULL;
  if (!ok)
    g_propagate_error(error, c.error);
  for (int i = 0; i < n && ok; i++) {
    out[i] = kernel_output(dx[i], values[i], error);
    ok = out[i] != NULL;
    for (int k = 0; !ok && k < i; k++)
      g_clear_pointer(&out[k], tr_tensor_unref);
  }
  for (int i = 0; i < n; i++)
    tr_tensor_unref(values[i]);
  return ok;
}

/* ---- the eager builder -------------------------------------------------------------------------
 */

struct TrGradEager {
  GPtrArray *handles; /* EagerHandle*, freed with the builder */
};

typedef struct {
  TrTensor *t; /* the value (owned reference) */
} EagerHandle;

static void
eager_handle_free(gpointer data)
{
  EagerHandle *h = data;
  tr_tensor_unref(h->t);
  g_free(h);
}

TrGradEager *
tr_grad_eager_new(void)
{
  TrGradEager *e = g_new0(TrGradEager, 1);
  e->handles = g_ptr_array_new_with_free_func(eager_handle_free);
  return e;
}

void
tr_grad_eager_free(TrGradEager *e)
{
  if (!e)
    return;
  g_ptr_array_unref(e->handles);
  g_free(e);
}

static void *
eager_take(TrGradEager *e, TrTensor *t)
{
  EagerHandle *h = g_new0(EagerHandle, 1);
  h->t = t;
  g_ptr_array_add(e->handles, h);
  return h;
}

void *
tr_grad_eager_handle(TrGradEager *e, TrTensor *t)
{
  return eager_take(e, tr_tensor_ref(t));
}

TrTensor *
tr_grad_eager_tensor(void *handle)
{
  return ((EagerHandle *)handle)->t;
}

static void *
eager_apply(void *ctx, TrOpId op, void *const *in, int n, const TrAttrs *attrs, GError **error)
{
  TrTensor *stack[8];
  g_autofree TrTensor **heap = n > 8 ? g_new(TrTensor *, n) : NULL;
  TrTensor **v = heap ? heap : stack;
  for (int i = 0; i < n; i++)
    v[i] = tr_grad_eager_tensor(in[i]);
  TrTensor *t = tr_op_run(op, v, n, attrs, error);
  return t ? eager_take(ctx, t) : NULL;
}

static void *
eager_constant(void *ctx, TrTensor *value, GError **error)
{
  return eager_take(ctx, value);
}

static void
eager_describe(void *ctx, void *handle, TrDType *dtype, TrShape *shape)
{
  TrTensor *t = tr_grad_eager_tensor(handle);
  *dtype = t->dtype;
  *shape = t->shape;
}

static TrTensor *
eager_value(void *ctx, void *handle)
{
  return tr_grad_eager_tensor(handle);
}

const TrGradBuilder tr_grad_eager_builder = {
    .apply = eager_apply,
    .constant = eager_constant,
    .describe = eager_describe,
    .value = eager_value,
};

/* ---- the graph builder -------------------------------------------------------------------------
 */

struct TrGradGraph {
  TrGraph *g;          /* where nodes go (borrowed) */
  GHashTable *handles; /* GraphHandle* -> itself, by output (owned) */
  GPtrArray *mem;      /* the records' arrays (owned) */
};

typedef struct {
  TrOutput out; /* the output this handle stands for */
} GraphHandle;

static guint
graph_handle_hash(gconstpointer p)
{
  const GraphHandle *h = p;
  return g_direct_hash(h->out.node) ^ (guint)h->out.index * 2654435761u;
}

static gboolean
graph_handle_equal(gconstpointer a, gconstpointer b)
{
  const GraphHandle *x = a, *y = b;
  return x->out.node == y->out.node && x->out.index == y->out.index;
}

TrGradGraph *
tr_grad_graph_new(TrGraph *g)
{
  TrGradGraph *b = g_new0(TrGradGraph, 1);
  b->g = g;
  b->handles = g_hash_table_new_full(graph_handle_hash, graph_handle_equal, g_free, NULL);
  b->mem = g_ptr_array_new_with_free_func(g_free);
  return b;
}

void
tr_grad_graph_free(TrGradGraph *b)
{
  if (!b)
    return;
  g_hash_table_unref(b->handles);
  g_ptr_array_unref(b->mem);
  g_free(b);
}

void *
tr_grad_graph_handle(TrGradGraph *b, TrOutput out)
{
  GraphHandle key = {out};
  GraphHandle *h = g_hash_table_lookup(b->handles, &key);
  if (h)
    return h;
  h = g_new(GraphHandle, 1);
  h->out = out;
  g_hash_table_insert(b->handles, h, h);
  return h;
}

TrOutput
tr_grad_graph_output(void *handle)
{
  return ((GraphHandle *)handle)->out;
}

void *
tr_grad_graph_variable_handle(TrGradGraph *b, TrVariable *var)
{
  for (int i = 0; i < tr_graph_n_nodes(b->g); i++) {
    TrNode *node = tr_graph_node(b->g, i);
    if (node->op == TR_GOP_PLACEHOLDER && node->variable == var)
      return tr_grad_graph_handle(b, tr_node_output(node, 0));
  }
  return tr_grad_graph_handle(b,
                              tr_node_output(tr_graph_capture_variable(b->g, var, var->name), 0));
}

static void *
graph_apply(void *ctx, TrOpId op, void *const *in, int n, const TrAttrs *attrs, GError **error)
{
  TrGradGraph *b = ctx;
  g_autofree TrOutput *outs = g_new(TrOutput, MAX(n, 1));
  for (int i = 0; i < n; i++)
    outs[i] = tr_grad_graph_output(in[i]);
  TrNode *node = tr_graph_add_op(b->g, op, outs, n, attrs, NULL, error);
  return node ? tr_grad_graph_handle(b, tr_node_output(node, 0)) : NULL;
}

static void *
graph_constant(void *ctx, TrTensor *value, GError **error)
{
  TrGradGraph *b = ctx;
  TrNode *node = tr_graph_add_const(b->g, value, NULL);
  tr_tensor_unref(value);
  return tr_grad_graph_handle(b, tr_node_output(node, 0));
}

static void
graph_describe(void *ctx, void *handle, TrDType *dtype, TrShape *shape)
{
  TrOutput out = tr_grad_graph_output(handle);
  TrVariable *var = out.node->variable;
  *dtype = var ? var->dtype : tr_output_dtype(out);
  *shape = var ? var->shape : *tr_output_shape(out);
}

static TrTensor *
graph_value(void *ctx, void *handle)
{
  TrOutput out = tr_grad_graph_output(handle);
  return out.node->op == TR_GOP_CONST ? out.node->value : NULL;
}

/* The upstream gradient of forward output k: the given one, zeros for a missing floating-point
 * one, and for any other output the output itself (the node ignores it). */
static TrOutput
upstream_gradient(TrGradGraph *b, const TrNode *node, void *const *grad_outputs, int k,
                  GError **error)
{
  TrOutput y = tr_node_output((TrNode *)node, k);
  if (grad_outputs[k])
    return tr_grad_graph_output(grad_outputs[k]);
  if (!tr_grad_dtype_is_differentiable(node->dtypes[k]))
    return y;
  TrNode *zeros = tr_graph_add_op(b->g, TR_OP_ZEROS_LIKE, &y, 1, NULL, NULL, error);
  return zeros ? tr_node_output(zeros, 0) : (TrOutput){NULL, 0};
}

static bool
graph_symbolic_gradient(void *ctx, const TrNode *node, void *const *inputs, int n_inputs,
                        void *const *grad_outputs, void **grad_inputs, GError **error)
{
  TrGradGraph *b = ctx;
  int n_in = node->n_inputs, n_out = node->n_outputs;
  g_autofree TrOutput *in = g_new(TrOutput, MAX(n_in, 1));
  g_autofree TrOutput *dy = g_new(TrOutput, MAX(n_out, 1));
  for (int i = 0; i < n_in; i++)
    in[i] = tr_grad_graph_output(inputs[i]);
  for (int k = 0; k < n_out; k++) {
    dy[k] = upstream_gradient(b, node, grad_outputs, k, error);
    if (!dy[k].node)
      return false;
  }
  TrNode *sg = tr_grad_add_symbolic_gradient(b->g, node, in, dy, NULL, error);
  if (!sg)
    return false;
  g_return_val_if_fail(sg->n_outputs == n_inputs, false);
  for (int i = 0; i < n_inputs; i++) {
    TrDType dtype;
    TrShape shape;
    graph_describe(b, inputs[i], &dtype, &shape);
    grad_inputs[i] = tr_grad_dtype_is_differentiable(dtype)
                         ? tr_grad_graph_handle(b, tr_node_output(sg, i))
                         : NULL;
  }
  return true;
}

const TrGradBuilder tr_grad_graph_builder = {
    .apply = graph_apply,
    .constant = graph_constant,
    .describe = graph_describe,
    .value = graph_value,
    .symbolic_gradient = graph_symbolic_gradient,
};

static void *const *
graph_handles(TrGradGraph *b, const TrNode *node, bool outputs)
{
  int n = outputs ? node->n_outputs : node->n_inputs;
  void **a = g_new0(void *, MAX(n, 1));
  g_ptr_array_add(b->mem, a);
  for (int k = 0; k < n; k++)
    a[k] = tr_grad_graph_handle(b, outputs ? tr_node_output((TrNode *)node, k) : node->inputs[k]);
  return a;
}

/* A While's or If's inputs, then its children's variables (run_node binds them). */
static void *const *
forward_handles(TrGradGraph *b, const TrNode *node, int *n_inputs)
{
  g_autoptr(GPtrArray) vars = g_ptr_array_new();
  node_variables(node, vars);
  *n_inputs = node->n_inputs + (int)vars->len;
  void **a = g_new0(void *, MAX(*n_inputs, 1));
  g_ptr_array_add(b->mem, a);
  for (int k = 0; k < node->n_inputs; k++)
    a[k] = tr_grad_graph_handle(b, node->inputs[k]);
  for (guint k = 0; k < vars->len; k++)
    a[node->n_inputs + (int)k] = tr_grad_graph_variable_handle(b, vars->pdata[k]);
  return a;
}

void
tr_grad_graph_records(TrGradGraph *b, int first, int last, GArray *records)
{
  last = MIN(last, tr_graph_n_nodes(b->g));
  for (int i = MAX(first, 0); i < last; i++) {
    const TrNode *node = tr_graph_node(b->g, i);
    if (!grad_func(node->op) || node->n_outputs == 0)
      continue;
    TrGradRecord r = {.op = node->op,
                      .attrs = node->op < TR_N_OPS ? node->attrs : NULL,
                      .n_inputs = node->n_inputs,
                      .n_outputs = node->n_outputs,
                      .outputs = graph_handles(b, node, true),
                      .node = node};
    r.inputs = is_forward_op(node->op) ? forward_handles(b, node, &r.n_inputs)
                                       : graph_handles(b, node, false);
    g_array_append_val(records, r);
  }
}
