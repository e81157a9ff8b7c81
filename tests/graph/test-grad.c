/* test-grad.c — core/graph's gradients (tr-grad.h): every differentiable op's gradient against
 * central finite differences in float64, computed both ways (the eager builder, and gradient
 * nodes added to a graph and run by the executor); the backward walk's bookkeeping (sums over
 * uses, unconnected and integer sources, seeds); and calls of traced graphs, loops included,
 * differentiated by replay. */
#include "../tensor/test-util.h"
#include "tr-grad.h"
#include "tr-plan.h"

#include <math.h>
#include <string.h>

enum { MAX_IN = 4 };

/* One input of an op under test. */
typedef struct {
  TrDType dtype;        /* TR_FLOAT64 inputs are differentiated; others are held fixed */
  int rank;             /* dims used */
  int64_t dims[4];      /* shape */
  const double *values; /* explicit values, or NULL for generated distinct ones */
  bool positive;        /* generated values in (0.5, 1.5) rather than (-1, 1) */
} CaseInput;

/* An op, its attrs and inputs: the gradient of sum(w * op(inputs)) is checked. */
typedef struct {
  const char *path;         /* test path under /grad/op/ */
  TrOpId op;                /* the op */
  void (*attrs)(TrAttrs *); /* sets its attrs, or NULL for defaults */
  int n_in;                 /* inputs */
  CaseInput in[MAX_IN];     /* per input */
  double eps;               /* finite differences' step; 0 for 1e-6 */
} Case;

/* Distinct values in (-1, 1) away from 0, or in (0.5, 1.5). */
static double
generated(int i, int input, bool positive)
{
  double v = ((i * 37 + input * 11) % 23) / 23.0 * 1.8 - 0.9;
  v += v >= 0 ? 0.037 : -0.037;
  return positive ? 1.0 + v / 2 : v;
}

static TrTensor *
case_input(const CaseInput *ci, int input)
{
  TrShape shape = tr_shape_make(ci->rank, ci->dims);
  int64_t n = tr_shape_num_elements(&shape);
  g_autofree double *v = g_new(double, MAX(n, 1));
  for (int64_t i = 0; i < n; i++)
    v[i] = ci->values ? ci->values[i] : generated((int)i, input, ci->positive);
  return tt_tensor(ci->dtype, ci->rank, ci->dims, v);
}

/* sum(w * y) in float64. */
static double
objective(const TrTensor *w, const TrTensor *y)
{
  double s = 0;
  for (int64_t i = 0; i < tr_tensor_num_elements(y); i++)
    s += tr_tensor_get_f64(w, i) * tr_tensor_get_f64(y, i);
  return s;
}

static TrTensor *
run_op(const Case *cs, TrTensor **in, const TrAttrs *attrs)
{
  g_autoptr(GError) error = NULL;
  TrTensor *y = tr_op_run(cs->op, in, cs->n_in, attrs, &error);
  g_assert_no_error(error);
  return y;
}

/* d objective / d in[k][i] by central differences. */
static double
numeric(const Case *cs, TrTensor **in, const TrAttrs *attrs, const TrTensor *w, int k, int64_t i)
{
  const double eps = cs->eps > 0 ? cs->eps : 1e-6;
  double *x = (double *)tr_tensor_data(in[k]) + i, keep = *x;
  /* Views (transpose, slices) share x's buffer: each objective is taken before x changes. */
  *x = keep + eps;
  g_autoptr(TrTensor) hi = run_op(cs, in, attrs);
  double f_hi = objective(w, hi);
  *x = keep - eps;
  g_autoptr(TrTensor) lo = run_op(cs, in, attrs);
  double f_lo = objective(w, lo);
  *x = keep;
  return (f_hi - f_lo) / (2 * eps);
}

static void
assert_close(const char *what, int k, int64_t i, double got, double want)
{
  if (fabs(got - want) <= 1e-5 * (1 + fabs(want)))
    return;
  g_error("%s: d/d input %d [%" G_GINT64_FORMAT "]: got %.10g, finite differences say %.10g", what,
          k, i, got, want);
}

/* The gradients of the inputs by the eager builder (grads[k] NULL for fixed inputs). */
static void
eager_gradients(const Case *cs, TrTensor **in, const TrAttrs *attrs, TrTensor *w, TrTensor **grads)
{
  g_autoptr(TrGradEager) e = tr_grad_eager_new();
  void *hin[MAX_IN], *hy, *hw;
  for (int k = 0; k < cs->n_in; k++)
    hin[k] = tr_grad_eager_handle(e, in[k]);
  g_autoptr(TrTensor) y = run_op(cs, in, attrs);
  hy = tr_grad_eager_handle(e, y);
  hw = tr_grad_eager_handle(e, w);
  TrGradRecord r = {.op = cs->op,
                    .attrs = attrs,
                    .n_inputs = cs->n_in,
                    .inputs = hin,
                    .n_outputs = 1,
                    .outputs = &hy};
  void *out[MAX_IN];
  g_autoptr(GError) error = NULL;
  bool ok =
      tr_grad_backprop(&tr_grad_eager_builder, e, &r, 1, &hy, &hw, 1, hin, cs->n_in, out, &error);
  g_assert_no_error(error);
  g_assert_true(ok);
  for (int k = 0; k < cs->n_in; k++)
    grads[k] = out[k] ? tr_tensor_ref(tr_grad_eager_tensor(out[k])) : NULL;
}

/* The same gradients as nodes of a graph (inputs and w as placeholders), run by a plan. */
static void
graph_gradients(const Case *cs, TrTensor **in, const TrAttrs *attrs, TrTensor *w, TrTensor **grads)
{
  g_autoptr(TrGraph) g = tr_graph_new("grad_test");
  g_autoptr(GError) error = NULL;
  TrOutput pin[MAX_IN];
  for (int k = 0; k < cs->n_in; k++)
    pin[k] = tr_node_output(tr_graph_add_placeholder(g, in[k]->dtype, &in[k]->shape, NULL), 0);
  TrOutput pw = tr_node_output(tr_graph_add_placeholder(g, w->dtype, &w->shape, "w"), 0);
  TrNode *node = tr_graph_add_op(g, cs->op, pin, cs->n_in, attrs, NULL, &error);
  g_assert_no_error(error);
  int first = tr_graph_n_nodes(g) - 1;
  g_autoptr(TrGradGraph) b = tr_grad_graph_new(g);
  g_autoptr(GArray) records = g_array_new(FALSE, FALSE, sizeof(TrGradRecord));
  tr_grad_graph_records(b, first, first + 1, records);
  g_assert_cmpint(records->len, ==, 1);
  void *hin[MAX_IN], *out[MAX_IN];
  for (int k = 0; k < cs->n_in; k++)
    hin[k] = tr_grad_graph_handle(b, pin[k]);
  void *hy = tr_grad_graph_handle(b, tr_node_output(node, 0)), *hw = tr_grad_graph_handle(b, pw);
  bool ok = tr_grad_backprop(&tr_grad_graph_builder, b, (TrGradRecord *)records->data, 1, &hy, &hw,
                             1, hin, cs->n_in, out, &error);
  g_assert_no_error(error);
  g_assert_true(ok);
  int n_out = 0;
  int which[MAX_IN];
  for (int k = 0; k < cs->n_in; k++) {
    which[k] = out[k] ? n_out++ : -1;
    if (out[k])
      tr_graph_add_output(g, tr_grad_graph_output(out[k]), &error);
    g_assert_no_error(error);
  }
  TrTensor *feed[MAX_IN + 1];
  for (int k = 0; k < cs->n_in; k++)
    feed[k] = in[k];
  feed[cs->n_in] = w;
  g_autoptr(TrPlan) plan = tr_plan_new(g, NULL, 0, &error);
  g_assert_no_error(error);
  TrTensor *outs[MAX_IN] = {NULL};
  ok = n_out == 0 || tr_plan_run(plan, feed, cs->n_in + 1, outs, NULL, &error);
  g_assert_no_error(error);
  g_assert_true(ok);
  for (int k = 0; k < cs->n_in; k++)
    grads[k] = which[k] >= 0 ? outs[which[k]] : NULL;
}

static void
check_gradients(const Case *cs, const char *how, TrTensor **in, const TrAttrs *attrs,
                const TrTensor *w, TrTensor **grads)
{
  for (int k = 0; k < cs->n_in; k++) {
    if (in[k]->dtype != TR_FLOAT64) {
      g_assert_null(grads[k]);
      continue;
    }
    if (!grads[k])
      g_error("%s: input %d got no gradient (%s)", cs->path, k, how);
    g_assert_cmpint(grads[k]->dtype, ==, TR_FLOAT64);
    g_assert_true(tr_shape_equal(&grads[k]->shape, &in[k]->shape));
    for (int64_t i = 0; i < tr_tensor_num_elements(in[k]); i++)
      assert_close(how, k, i, tr_tensor_get_f64(grads[k], i), numeric(cs, in, attrs, w, k, i));
  }
}

static void
test_op_case(gconstpointer data)
{
  const Case *cs = data;
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  if (cs->attrs)
    cs->attrs(&attrs);
  TrTensor *in[MAX_IN];
  for (int k = 0; k < cs->n_in; k++)
    in[k] = case_input(&cs->in[k], k);
  g_autoptr(TrTensor) y = run_op(cs, in, &attrs);
  g_autoptr(TrTensor) w = tr_tensor_new(TR_FLOAT64, &y->shape);
  for (int64_t i = 0; i < tr_tensor_num_elements(w); i++)
    ((double *)tr_tensor_data(w))[i] = 0.5 + generated((int)i, 7, false);

  TrTensor *eager[MAX_IN], *graph[MAX_IN];
  eager_gradients(cs, in, &attrs, w, eager);
  check_gradients(cs, "eager", in, &attrs, w, eager);
  graph_gradients(cs, in, &attrs, w, graph);
  check_gradients(cs, "graph", in, &attrs, w, graph);
  for (int k = 0; k < cs->n_in; k++) {
    g_clear_pointer(&eager[k], tr_tensor_unref);
    g_clear_pointer(&graph[k], tr_tensor_unref);
    tr_tensor_unref(in[k]);
  }
}

/* ---- the cases ------------------------------------------------------------------------------ */

#define N_DIMS(...) (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
#define F64(...)                                                                                   \
  {                                                                                                \
    .dtype = TR_FLOAT64, .rank = N_DIMS(__VA_ARGS__), .dims = { __VA_ARGS__ }                      \
  }
#define F64_SCALAR                                                                                 \
  {                                                                                                \
    .dtype = TR_FLOAT64                                                                            \
  }
#define POS(...)                                                                                   \
  {                                                                                                \
    .dtype = TR_FLOAT64, .rank = N_DIMS(__VA_ARGS__), .dims = {__VA_ARGS__}, .positive = true      \
  }
#define INTS(n, ...)                                                                               \
  {                                                                                                \
    .dtype = TR_INT32, .rank = 1, .dims = {n}, .values = VALS(__VA_ARGS__)                         \
  }
#define GIVEN(dtype_, vals, ...)                                                                   \
  {                                                                                                \
    .dtype = (dtype_), .rank = N_DIMS(__VA_ARGS__), .dims = {__VA_ARGS__}, .values = (vals)        \
  }
#define GIVEN_SCALAR(dtype_, vals)                                                                 \
  {                                                                                                \
    .dtype = (dtype_), .values = (vals)                                                            \
  }
#define CASE(path_, op_, attrs_, n_, ...)                                                          \
  {                                                                                                \
    .path = (path_), .op = (op_), .attrs = (attrs_), .n_in = (n_), .in = { __VA_ARGS__ }           \
  }
/* Cast to float32 is linear: a long step keeps float32's rounding out of the differences. */
#define CASE_LONG_STEP(path_, op_, attrs_, n_, ...)                                                \
  {                                                                                                \
    .path = (path_), .op = (op_), .attrs = (attrs_), .n_in = (n_), .in = {__VA_ARGS__},            \
    .eps = 0.05                                                                                    \
  }

static void
attrs_axis1(TrAttrs *a)
{
  a->n_axes = 1;
  a->axes[0] = 1;
}

static void
attrs_axis1_keep(TrAttrs *a)
{
  attrs_axis1(a);
  a->keepdims = true;
}

static void
attrs_axes_0_2(TrAttrs *a)
{
  a->n_axes = 2;
  a->axes[0] = 0;
  a->axes[1] = -1;
}

static void
attrs_last_axis(TrAttrs *a)
{
  a->axis = -1;
}

static void
attrs_axis1_scalar(TrAttrs *a)
{
  a->axis = 1;
}

static void
attrs_transpose_a(TrAttrs *a)
{
  a->transpose_a = true;
}

static void
attrs_transpose_both(TrAttrs *a)
{
  a->transpose_a = a->transpose_b = true;
}

static void
attrs_conv_same_stride2(TrAttrs *a)
{
  a->padding = TR_PADDING_SAME;
  a->strides[0] = a->strides[1] = 2;
}

static void
attrs_perm(TrAttrs *a)
{
  a->n_axes = 3;
  a->axes[0] = 2;
  a->axes[1] = 0;
  a->axes[2] = 1;
}

static void
attrs_reshape(TrAttrs *a)
{
  a->n_axes = 2;
  a->axes[0] = 3;
  a->axes[1] = -1;
}

static void
attrs_squeeze(TrAttrs *a)
{
  a->n_axes = 1;
  a->axes[0] = 1;
}

static void
attrs_cast_f32(TrAttrs *a)
{
  a->dtype = TR_FLOAT32;
}

/* x[1:, ::-2, 0]: a begin, a negative stride and a shrunk axis. */
static void
attrs_slice(TrAttrs *a)
{
  a->begin_mask = 0;
  a->end_mask = 1u << 1 | 1u << 0;
  a->shrink_axis_mask = 1u << 2;
}

static void
attrs_slice_new_axis(TrAttrs *a)
{
  a->begin_mask = 1u << 1;
  a->end_mask = 1u << 1;
  a->new_axis_mask = 1u << 0;
}

static const Case cases[] = {
    CASE("add-broadcast", TR_OP_ADD, NULL, 2, F64(2, 3), F64(3)),
    CASE("sub-broadcast", TR_OP_SUB, NULL, 2, F64(2, 1), F64(1, 3)),
    CASE("mul-scalar", TR_OP_MUL, NULL, 2, F64(2, 3), F64_SCALAR),
    CASE("realdiv", TR_OP_DIV, NULL, 2, F64(2, 3), POS(2, 1)),
    CASE("floormod", TR_OP_MOD, NULL, 2, POS(4), GIVEN(TR_FLOAT64, VALS(0.3, 0.7, 0.45, 0.9), 4)),
    CASE("pow", TR_OP_POW, NULL, 2, POS(2, 3), F64(3)),
    CASE("maximum", TR_OP_MAXIMUM, NULL, 2, F64(2, 3), F64(3)),
    CASE("minimum", TR_OP_MINIMUM, NULL, 2, F64(2, 3), F64(2, 3)),
    CASE("neg", TR_OP_NEG, NULL, 1, F64(5)),
    CASE("abs", TR_OP_ABS, NULL, 1, F64(5)),
    CASE("square", TR_OP_SQUARE, NULL, 1, F64(2, 2)),
    CASE("sqrt", TR_OP_SQRT, NULL, 1, POS(4)),
    CASE("exp", TR_OP_EXP, NULL, 1, F64(4)),
    CASE("log", TR_OP_LOG, NULL, 1, POS(4)),
    CASE("tanh", TR_OP_TANH, NULL, 1, F64(4)),
    CASE("sigmoid", TR_OP_SIGMOID, NULL, 1, F64(4)),
    CASE("sin", TR_OP_SIN, NULL, 1, F64(4)),
    CASE("cos", TR_OP_COS, NULL, 1, F64(4)),
    CASE("relu", TR_OP_RELU, NULL, 1, F64(6)),
    CASE("identity", TR_OP_IDENTITY, NULL, 1, F64(3)),
    CASE_LONG_STEP("cast-float", TR_OP_CAST, attrs_cast_f32, 1, F64(3)),
    CASE("select", TR_OP_SELECT, NULL, 3, GIVEN(TR_BOOL, VALS(1, 0, 1, 0, 0, 1), 2, 3), F64(2, 3),
         F64(3)),
    CASE("clip-by-value", TR_OP_CLIP_BY_VALUE, NULL, 3, F64(2, 3),
         GIVEN_SCALAR(TR_FLOAT64, VALS(-0.3)), GIVEN(TR_FLOAT64, VALS(0.2, 0.6, 0.5), 3)),
    CASE("sum-axis", TR_OP_SUM, attrs_axis1, 1, F64(2, 3, 2)),
    CASE("sum-all", TR_OP_SUM, NULL, 1, F64(2, 3)),
    CASE("mean-keepdims", TR_OP_MEAN, attrs_axis1_keep, 1, F64(2, 3, 2)),
    CASE("mean-two-axes", TR_OP_MEAN, attrs_axes_0_2, 1, F64(2, 3, 2)),
    CASE("max-axis", TR_OP_MAX, attrs_axis1, 1, F64(2, 4)),
    CASE("min-all", TR_OP_MIN, NULL, 1, F64(3, 2)),
    CASE("prod-axis", TR_OP_PROD, attrs_axis1, 1, F64(2, 3)),
    CASE("softmax", TR_OP_SOFTMAX, attrs_last_axis, 1, F64(2, 4)),
    CASE("matmul", TR_OP_MATMUL, NULL, 2, F64(2, 3), F64(3, 4)),
    CASE("matmul-transpose-a", TR_OP_MATMUL, attrs_transpose_a, 2, F64(3, 2), F64(3, 4)),
    CASE("matmul-transpose-both", TR_OP_MATMUL, attrs_transpose_both, 2, F64(3, 2), F64(4, 3)),
    CASE("batch-matmul-broadcast", TR_OP_BATCH_MATMUL, NULL, 2, F64(2, 2, 3), F64(3, 2)),
    CASE("conv2d-valid", TR_OP_CONV2D, NULL, 2, F64(1, 4, 4, 2), F64(2, 2, 2, 3)),
    CASE("conv2d-same-stride2", TR_OP_CONV2D, attrs_conv_same_stride2, 2, F64(2, 5, 4, 1),
         F64(3, 2, 1, 2)),
    CASE("transpose", TR_OP_TRANSPOSE, attrs_perm, 1, F64(2, 3, 2)),
    CASE("reshape", TR_OP_RESHAPE, attrs_reshape, 1, F64(2, 3, 2)),
    CASE("squeeze", TR_OP_SQUEEZE, attrs_squeeze, 1, F64(2, 1, 3)),
    CASE("expand-dims", TR_OP_EXPAND_DIMS, attrs_axis1_scalar, 1, F64(2, 3)),
    CASE("concat", TR_OP_CONCAT, attrs_axis1_scalar, 3, F64(2, 1), F64(2, 3), F64(2, 2)),
    CASE("pack", TR_OP_STACK, attrs_axis1_scalar, 2, F64(2, 3), F64(2, 3)),
    CASE("gather-axis0", TR_OP_GATHER, NULL, 2, F64(4, 2), INTS(5, 3, 0, 3, 1, 3)),
    CASE("gather-axis1-matrix-indices", TR_OP_GATHER, attrs_axis1_scalar, 2, F64(2, 3, 2),
         GIVEN(TR_INT32, VALS(2, 0, 2, 2), 2, 2)),
    CASE("strided-slice", TR_OP_STRIDED_SLICE, attrs_slice, 4, F64(3, 5, 2), INTS(3, 1, 0, 0),
         INTS(3, 0, 0, 1), INTS(3, 1, -2, 1)),
    CASE("strided-slice-new-axis", TR_OP_STRIDED_SLICE, attrs_slice_new_axis, 4, F64(4, 3),
         INTS(3, 0, 0, 1), INTS(3, 0, 0, 3), INTS(3, 1, 1, 1)),
};

/* ---- the walk ------------------------------------------------------------------------------- */

/* Runs g's plan on `inputs`; its output 0. Transfer full. */
static TrTensor *
run_graph(TrGraph *g, TrTensor *const *inputs, int n)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrPlan) plan = tr_plan_new(g, NULL, 0, &error);
  g_assert_no_error(error);
  TrTensor *out[4] = {NULL};
  g_assert_true(tr_plan_run(plan, inputs, n, out, NULL, &error));
  g_assert_no_error(error);
  for (int i = 1; i < tr_plan_n_outputs(plan); i++)
    g_clear_pointer(&out[i], tr_tensor_unref);
  return out[0];
}

static TrOutput
add_op(TrGraph *g, TrOpId op, TrOutput a, TrOutput b)
{
  g_autoptr(GError) error = NULL;
  TrNode *node = tr_graph_add_op(g, op, (TrOutput[]){a, b}, 2, NULL, NULL, &error);
  g_assert_no_error(error);
  return tr_node_output(node, 0);
}

static TrOutput
add_placeholder(TrGraph *g, TrDType dtype, const char *name)
{
  TrShape scalar = tr_shape_scalar();
  return tr_node_output(tr_graph_add_placeholder(g, dtype, &scalar, name), 0);
}

static TrOutput
add_const(TrGraph *g, TrTensor *value)
{
  TrNode *node = tr_graph_add_const(g, value, NULL);
  tr_tensor_unref(value);
  return tr_node_output(node, 0);
}

static void
add_output(TrGraph *g, TrOutput out)
{
  g_autoptr(GError) error = NULL;
  tr_graph_add_output(g, out, &error);
  g_assert_no_error(error);
}

static TrTensor *
eager_grad_tensor(void *h)
{
  return h ? tr_grad_eager_tensor(h) : NULL;
}

/* y = x * x + x: the uses of x are summed (2x + 1); an unconnected source and an integer source
 * get no gradient; a target that is also a source gets ones. */
static void
test_walk_sums_uses_and_skips_unconnected(void)
{
  g_autoptr(TrGradEager) e = tr_grad_eager_new();
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) tx = TT(TR_FLOAT64, DIMS(2), VALS(3, -1));
  g_autoptr(TrTensor) tz = TT(TR_FLOAT64, DIMS(2), VALS(5, 5));
  g_autoptr(TrTensor) tn = TT(TR_INT32, DIMS(2), VALS(1, 2));
  void *x = tr_grad_eager_handle(e, tx), *z = tr_grad_eager_handle(e, tz);
  void *n = tr_grad_eager_handle(e, tn);
  void *xx = tr_grad_eager_builder.apply(e, TR_OP_MUL, (void *[]){x, x}, 2, NULL, &error);
  void *y = tr_grad_eager_builder.apply(e, TR_OP_ADD, (void *[]){xx, x}, 2, NULL, &error);
  g_assert_no_error(error);
  TrGradRecord records[] = {
      {.op = TR_OP_MUL, .n_inputs = 2, .inputs = (void *[]){x, x}, .n_outputs = 1, .outputs = &xx},
      {.op = TR_OP_ADD, .n_inputs = 2, .inputs = (void *[]){xx, x}, .n_outputs = 1, .outputs = &y},
  };
  void *grads[4];
  g_assert_true(tr_grad_backprop(&tr_grad_eager_builder, e, records, 2, &y, NULL, 1,
                                 (void *[]){x, z, n, y}, 4, grads, &error));
  g_assert_no_error(error);
  tt_assert_tensor(eager_grad_tensor(grads[0]), TR_FLOAT64, DIMS(2), VALS(7, -1), 0);
  g_assert_null(grads[1]);
  g_assert_null(grads[2]);
  tt_assert_tensor(eager_grad_tensor(grads[3]), TR_FLOAT64, DIMS(2), VALS(1, 1), 0);
}

/* Records of ops without a gradient (a comparison) stop the walk. */
static void
test_walk_stops_at_comparisons(void)
{
  g_autoptr(TrGradEager) e = tr_grad_eager_new();
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) tx = TT(TR_FLOAT64, DIMS(2), VALS(3, -1));
  void *x = tr_grad_eager_handle(e, tx);
  void *gt = tr_grad_eager_builder.apply(e, TR_OP_GREATER, (void *[]){x, x}, 2, NULL, &error);
  void *c = tr_grad_eager_builder.apply(e, TR_OP_CAST, (void *[]){gt}, 1,
                                        &(TrAttrs){.n_axes = -1, .dtype = TR_FLOAT64}, &error);
  g_assert_no_error(error);
  TrAttrs cast;
  tr_attrs_init(&cast);
  cast.dtype = TR_FLOAT64;
  TrGradRecord records[] = {
      {.op = TR_OP_GREATER,
       .n_inputs = 2,
       .inputs = (void *[]){x, x},
       .n_outputs = 1,
       .outputs = &gt},
      {.op = TR_OP_CAST,
       .attrs = &cast,
       .n_inputs = 1,
       .inputs = &gt,
       .n_outputs = 1,
       .outputs = &c},
  };
  void *grad = NULL;
  g_assert_true(
      tr_grad_backprop(&tr_grad_eager_builder, e, records, 2, &c, NULL, 1, &x, 1, &grad, &error));
  g_assert_null(grad);
  g_assert_false(tr_grad_op_is_differentiable(TR_OP_ARGMAX));
  g_assert_true(tr_grad_op_is_differentiable(TR_OP_CONV2D));
}

/* StopGradient passes its value but no gradient: y = x * stop(x) has dy/dx = stop(x) = x. */
static void
test_walk_stop_gradient(void)
{
  g_autoptr(TrGradEager) e = tr_grad_eager_new();
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) tx = TT(TR_FLOAT64, DIMS(2), VALS(3, -1));
  void *x = tr_grad_eager_handle(e, tx);
  void *s = tr_grad_eager_builder.apply(e, TR_OP_STOP_GRADIENT, &x, 1, NULL, &error);
  void *y = tr_grad_eager_builder.apply(e, TR_OP_MUL, (void *[]){x, s}, 2, NULL, &error);
  g_assert_no_error(error);
  tt_assert_tensor(tr_grad_eager_tensor(s), TR_FLOAT64, DIMS(2), VALS(3, -1), 0);
  TrGradRecord records[] = {
      {.op = TR_OP_STOP_GRADIENT, .n_inputs = 1, .inputs = &x, .n_outputs = 1, .outputs = &s},
      {.op = TR_OP_MUL, .n_inputs = 2, .inputs = (void *[]){x, s}, .n_outputs = 1, .outputs = &y},
  };
  void *grad = NULL;
  g_assert_true(
      tr_grad_backprop(&tr_grad_eager_builder, e, records, 2, &y, NULL, 1, &x, 1, &grad, &error));
  g_assert_no_error(error);
  tt_assert_tensor(eager_grad_tensor(grad), TR_FLOAT64, DIMS(2), VALS(3, -1), 0);
  g_assert_false(tr_grad_op_is_differentiable(TR_OP_STOP_GRADIENT));
}

/* A custom record's gradient: the callback gets the upstream gradients (NULL where none flows)
 * and gives 10 * dy for its first input, none for its second. */
static bool
times_ten(void *ctx, const TrGradRecord *r, void *const *dy, void **dx, GError **error)
{
  int *calls = r->custom_data;
  (*calls)++;
  g_assert_nonnull(dy[0]);
  g_assert_null(dy[1]);
  void *ten = tr_grad_eager_builder.constant(ctx, tr_tensor_new_float64(10), error);
  dx[0] = ten ? tr_grad_eager_builder.apply(ctx, TR_OP_MUL, (void *[]){dy[0], ten}, 2, NULL, error)
              : NULL;
  dx[1] = NULL;
  return dx[0] != NULL;
}

static bool
custom_fails(void *ctx, const TrGradRecord *r, void *const *dy, void **dx, GError **error)
{
  g_set_error_literal(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT, "grad_fn failed");
  return false;
}

static void
test_walk_custom_record(void)
{
  g_autoptr(TrGradEager) e = tr_grad_eager_new();
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) ta = TT(TR_FLOAT64, DIMS(2), VALS(1, 2));
  g_autoptr(TrTensor) tb = TT(TR_FLOAT64, DIMS(2), VALS(5, 6));
  void *a = tr_grad_eager_handle(e, ta), *b = tr_grad_eager_handle(e, tb);
  /* The record's outputs: any values (the forward pass is the language layer's). */
  void *o1 = tr_grad_eager_builder.apply(e, TR_OP_ADD, (void *[]){a, b}, 2, NULL, &error);
  void *o2 = tr_grad_eager_builder.apply(e, TR_OP_SUB, (void *[]){a, b}, 2, NULL, &error);
  void *y = tr_grad_eager_builder.apply(e, TR_OP_MUL, (void *[]){o1, o1}, 2, NULL, &error);
  g_assert_no_error(error);
  int calls = 0;
  TrGradRecord records[] = {
      {.op = TR_GRAD_CUSTOM,
       .n_inputs = 2,
       .inputs = (void *[]){a, b},
       .n_outputs = 2,
       .outputs = (void *[]){o1, o2},
       .custom = times_ten,
       .custom_data = &calls},
      {.op = TR_OP_MUL, .n_inputs = 2, .inputs = (void *[]){o1, o1}, .n_outputs = 1, .outputs = &y},
  };
  void *grads[2];
  g_assert_true(tr_grad_backprop(&tr_grad_eager_builder, e, records, 2, &y, NULL, 1,
                                 (void *[]){a, b}, 2, grads, &error));
  g_assert_no_error(error);
  g_assert_cmpint(calls, ==, 1);
  /* dy/do1 = 2 * o1 = (12, 16); times ten */
  tt_assert_tensor(eager_grad_tensor(grads[0]), TR_FLOAT64, DIMS(2), VALS(120, 160), 0);
  g_assert_null(grads[1]);
  records[0].custom = custom_fails;
  g_assert_false(tr_grad_backprop(&tr_grad_eager_builder, e, records, 2, &y, NULL, 1,
                                  (void *[]){a, b}, 2, grads, &error));
  g_assert_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT);
}

/* A traced graph called as one record: f(x, x) = x * 3 (one argument) + the second argument
 * squared: each argument position gets its own gradient; the variable's value, passed after the
 * arguments, gets d/dv (v * x) = x. */
static void
test_call_replay(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrGraph) g = tr_graph_new("f");
  TrShape scalar = tr_shape_scalar();
  TrNode *a = tr_graph_add_placeholder(g, TR_FLOAT64, &scalar, "a");
  TrNode *b = tr_graph_add_placeholder(g, TR_FLOAT64, &scalar, "b");
  g_autoptr(TrTensor) v0 = tr_tensor_new_float64(10);
  g_autoptr(TrVariable) var = tr_variable_new(v0, "v");
  TrNode *h = tr_graph_capture_variable(g, var, "v");
  TrNode *rd = tr_graph_add_read_variable(g, tr_node_output(h, 0), NULL, &error);
  g_autoptr(TrTensor) three = tr_tensor_new_float64(3);
  TrNode *k = tr_graph_add_const(g, three, NULL);
  TrOutput in1[2] = {tr_node_output(a, 0), tr_node_output(k, 0)};
  TrNode *a3 = tr_graph_add_op(g, TR_OP_MUL, in1, 2, NULL, NULL, &error);
  TrNode *b2 =
      tr_graph_add_op(g, TR_OP_SQUARE, (TrOutput[]){tr_node_output(b, 0)}, 1, NULL, NULL, &error);
  TrNode *va =
      tr_graph_add_op(g, TR_OP_MUL, (TrOutput[]){tr_node_output(rd, 0), tr_node_output(a, 0)}, 2,
                      NULL, NULL, &error);
  TrNode *s =
      tr_graph_add_op(g, TR_OP_ADD, (TrOutput[]){tr_node_output(a3, 0), tr_node_output(b2, 0)}, 2,
                      NULL, NULL, &error);
  TrNode *t =
      tr_graph_add_op(g, TR_OP_ADD, (TrOutput[]){tr_node_output(s, 0), tr_node_output(va, 0)}, 2,
                      NULL, NULL, &error);
  tr_graph_add_output(g, tr_node_output(t, 0), &error);
  g_assert_no_error(error);
  g_assert_cmpint(tr_grad_graph_variables(g, NULL, 0), ==, 1);

  g_autoptr(TrGradEager) e = tr_grad_eager_new();
  g_autoptr(TrTensor) tx = tr_tensor_new_float64(2);
  void *x = tr_grad_eager_handle(e, tx), *vh = tr_grad_eager_handle(e, v0);
  g_autoptr(TrTensor) ty = run_graph(g, (TrTensor *[]){tx, tx}, 2);
  void *y = tr_grad_eager_handle(e, ty);
  TrGradRecord call = {.op = TR_GRAD_CALL,
                       .n_inputs = 3,
                       .inputs = (void *[]){x, x, vh},
                       .n_outputs = 1,
                       .outputs = &y,
                       .graph = g};
  void *grads[2];
  g_assert_true(tr_grad_backprop(&tr_grad_eager_builder, e, &call, 1, &y, NULL, 1,
                                 (void *[]){x, vh}, 2, grads, &error));
  g_assert_no_error(error);
  /* d/dx (3x + x^2 + v x) = 3 + 2x + v = 17 at x = 2, v = 10; d/dv = x = 2. */
  tt_assert_tensor(eager_grad_tensor(grads[0]), TR_FLOAT64, NODIMS, VALS(17), 1e-12);
  tt_assert_tensor(eager_grad_tensor(grads[1]), TR_FLOAT64, NODIMS, VALS(2), 1e-12);
}

/* f(x, y) = x * y^3 by a While loop running its body three times: x = x * y. */
static TrGraph *
loop_graph(void)
{
  TrGraph *g = tr_graph_new("loop");
  TrOutput x = add_placeholder(g, TR_FLOAT64, "x"), y = add_placeholder(g, TR_FLOAT64, "y");
  g_autoptr(TrGraph) cond = tr_graph_new("cond");
  TrOutput ci = add_placeholder(cond, TR_INT32, "i");
  add_placeholder(cond, TR_FLOAT64, "x");
  add_placeholder(cond, TR_FLOAT64, "y");
  add_output(cond, add_op(cond, TR_OP_LESS, ci, add_const(cond, tr_tensor_new_int32(3))));
  g_autoptr(TrGraph) body = tr_graph_new("body");
  TrOutput bi = add_placeholder(body, TR_INT32, "i");
  TrOutput bx = add_placeholder(body, TR_FLOAT64, "x");
  TrOutput by = add_placeholder(body, TR_FLOAT64, "y");
  add_output(body, add_op(body, TR_OP_ADD, bi, add_const(body, tr_tensor_new_int32(1))));
  add_output(body, add_op(body, TR_OP_MUL, bx, by));
  add_output(body, by);
  g_autoptr(GError) error = NULL;
  TrOutput in[3] = {add_const(g, tr_tensor_new_int32(0)), x, y};
  TrNode *loop = tr_graph_add_while(g, cond, body, in, 3, NULL, &error);
  g_assert_no_error(error);
  add_output(g, tr_node_output(loop, 1));
  return g;
}

static void
test_call_replays_loops(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrGraph) g = loop_graph();
  g_autoptr(TrGradEager) e = tr_grad_eager_new();
  g_autoptr(TrTensor) tx = tr_tensor_new_float64(1.5);
  g_autoptr(TrTensor) ty = tr_tensor_new_float64(-2);
  g_autoptr(TrTensor) tf = run_graph(g, (TrTensor *[]){tx, ty}, 2);
  tt_assert_tensor(tf, TR_FLOAT64, NODIMS, VALS(-12), 0);
  void *x = tr_grad_eager_handle(e, tx), *y = tr_grad_eager_handle(e, ty);
  void *f = tr_grad_eager_handle(e, tf);
  TrGradRecord call = {.op = TR_GRAD_CALL,
                       .n_inputs = 2,
                       .inputs = (void *[]){x, y},
                       .n_outputs = 1,
                       .outputs = &f,
                       .graph = g};
  void *grads[2];
  g_assert_true(tr_grad_backprop(&tr_grad_eager_builder, e, &call, 1, &f, NULL, 1, (void *[]){x, y},
                                 2, grads, &error));
  g_assert_no_error(error);
  /* d/dx = y^3 = -8; d/dy = 3 x y^2 = 18. */
  tt_assert_tensor(eager_grad_tensor(grads[0]), TR_FLOAT64, NODIMS, VALS(-8), 1e-12);
  tt_assert_tensor(eager_grad_tensor(grads[1]), TR_FLOAT64, NODIMS, VALS(18), 1e-12);
}

/* In a graph the loop's trip count is not known while building: without the builder's
 * symbolic_gradient hook that is an error, not a wrong answer. */
static void
test_graph_loop_needs_symbolic_gradient(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrGraph) g = loop_graph();
  g_autoptr(TrGradGraph) b = tr_grad_graph_new(g);
  g_autoptr(GArray) records = g_array_new(FALSE, FALSE, sizeof(TrGradRecord));
  tr_grad_graph_records(b, 0, tr_graph_n_nodes(g), records);
  void *x = tr_grad_graph_handle(b, tr_node_output(tr_graph_input(g, 0), 0));
  void *f = tr_grad_graph_handle(b, tr_node_output(tr_graph_output(g, 0), 0));
  void *grad = NULL;
  TrGradBuilder without_hook = tr_grad_graph_builder;
  without_hook.symbolic_gradient = NULL;
  g_assert_false(tr_grad_backprop(&without_hook, b, (TrGradRecord *)records->data,
                                  (int)records->len, &f, NULL, 1, &x, 1, &grad, &error));
  g_assert_error(error, TR_ERROR, TR_ERROR_UNIMPLEMENTED);
  g_assert_nonnull(strstr(error->message, "while loop"));
}

/* ---- SymbolicGradient: tapes inside a trace, through loops and conditionals ------------------ */

/* A While in `host` taking x to x * y^trips (and y through), its final x. */
static TrOutput
add_power_loop(TrGraph *host, TrOutput x, TrOutput y, int trips, TrVariable *var)
{
  g_autoptr(TrGraph) cond = tr_graph_new("cond");
  TrOutput ci = add_placeholder(cond, TR_INT32, "i");
  add_placeholder(cond, TR_FLOAT64, "x");
  add_placeholder(cond, TR_FLOAT64, "y");
  add_output(cond, add_op(cond, TR_OP_LESS, ci, add_const(cond, tr_tensor_new_int32(trips))));
  g_autoptr(TrGraph) body = tr_graph_new("body");
  TrOutput bi = add_placeholder(body, TR_INT32, "i");
  TrOutput bx = add_placeholder(body, TR_FLOAT64, "x");
  TrOutput by = add_placeholder(body, TR_FLOAT64, "y");
  g_autoptr(GError) error = NULL;
  if (var) { /* x = x * y * v, v read inside the body */
    TrNode *h = tr_graph_capture_variable(body, var, "v");
    TrNode *rd = tr_graph_add_read_variable(body, tr_node_output(h, 0), NULL, &error);
    g_assert_no_error(error);
    bx = add_op(body, TR_OP_MUL, bx, tr_node_output(rd, 0));
  }
  add_output(body, add_op(body, TR_OP_ADD, bi, add_const(body, tr_tensor_new_int32(1))));
  add_output(body, add_op(body, TR_OP_MUL, bx, by));
  add_output(body, by);
  TrOutput in[3] = {add_const(host, tr_tensor_new_int32(0)), x, y};
  TrNode *loop = tr_graph_add_while(host, cond, body, in, 3, NULL, &error);
  g_assert_no_error(error);
  return tr_node_output(loop, 1);
}

/* f(x, y) by an If on x > 0: then x * y^3 through a loop (`loop_in_then`) or x * x * y, else
 * sin(x) * y. */
static TrGraph *
cond_graph(bool loop_in_then)
{
  TrGraph *g = tr_graph_new("branchy");
  TrOutput x = add_placeholder(g, TR_FLOAT64, "x"), y = add_placeholder(g, TR_FLOAT64, "y");
  TrOutput pred = add_op(g, TR_OP_GREATER, x, add_const(g, tr_tensor_new_float64(0)));
  g_autoptr(TrGraph) then_b = tr_graph_new("then");
  TrOutput tx = add_placeholder(then_b, TR_FLOAT64, "x");
  TrOutput ty = add_placeholder(then_b, TR_FLOAT64, "y");
  add_output(then_b, loop_in_then
                         ? add_power_loop(then_b, tx, ty, 3, NULL)
                         : add_op(then_b, TR_OP_MUL, add_op(then_b, TR_OP_MUL, tx, tx), ty));
  g_autoptr(TrGraph) else_b = tr_graph_new("else");
  TrOutput ex = add_placeholder(else_b, TR_FLOAT64, "x");
  TrOutput ey = add_placeholder(else_b, TR_FLOAT64, "y");
  g_autoptr(GError) error = NULL;
  TrNode *sin = tr_graph_add_op(else_b, TR_OP_SIN, &ex, 1, NULL, NULL, &error);
  add_output(else_b, add_op(else_b, TR_OP_MUL, tr_node_output(sin, 0), ey));
  TrOutput args[2] = {x, y};
  TrNode *node = tr_graph_add_cond(g, pred, then_b, else_b, args, 2, args, 2, NULL, &error);
  g_assert_no_error(error);
  add_output(g, tr_node_output(node, 0));
  return g;
}

/* f(x, y) = x * y^3 * v^3: the loop reads a variable. */
static TrGraph *
variable_loop_graph(TrVariable *var)
{
  TrGraph *g = tr_graph_new("var_loop");
  TrOutput x = add_placeholder(g, TR_FLOAT64, "x"), y = add_placeholder(g, TR_FLOAT64, "y");
  add_output(g, add_power_loop(g, x, y, 3, var));
  return g;
}

static int
count_op(const TrGraph *g, int op)
{
  int n = 0;
  for (int i = 0; i < tr_graph_n_nodes(g); i++)
    n += tr_graph_node(g, i)->op == op;
  return n;
}

/* Adds to `g` (a function of scalars x, y, as a tape in its trace would) the gradients of its
 * output 0 with respect to x, y and, when given, the variable, as further outputs. */
static void
add_graph_gradients(TrGraph *g, TrVariable *var)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrGradGraph) b = tr_grad_graph_new(g);
  void *src[3] = {tr_grad_graph_handle(b, tr_node_output(tr_graph_input(g, 0), 0)),
                  tr_grad_graph_handle(b, tr_node_output(tr_graph_input(g, 1), 0)),
                  var ? tr_grad_graph_variable_handle(b, var) : NULL};
  g_autoptr(GArray) records = g_array_new(FALSE, FALSE, sizeof(TrGradRecord));
  tr_grad_graph_records(b, 0, tr_graph_n_nodes(g), records);
  void *f = tr_grad_graph_handle(b, tr_node_output(tr_graph_output(g, 0), 0));
  void *grads[3] = {NULL};
  int n = var ? 3 : 2;
  g_assert_true(tr_grad_backprop(&tr_grad_graph_builder, b, (TrGradRecord *)records->data,
                                 (int)records->len, &f, NULL, 1, src, n, grads, &error));
  g_assert_no_error(error);
  for (int j = 0; j < n; j++) {
    g_assert_nonnull(grads[j]);
    add_output(g, tr_grad_graph_output(grads[j]));
  }
}

/* Runs g on (x, y): out[0] the value, out[1..] the gradients. */
static void
run_all(TrGraph *g, double x, double y, TrTensor **out)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrPlan) plan = tr_plan_new(g, NULL, 0, &error);
  g_assert_no_error(error);
  g_autoptr(TrTensor) tx = tr_tensor_new_float64(x);
  g_autoptr(TrTensor) ty = tr_tensor_new_float64(y);
  g_assert_true(tr_plan_run(plan, (TrTensor *[]){tx, ty}, 2, out, NULL, &error));
  g_assert_no_error(error);
}

static double
forward_at(TrGraph *fwd, double x, double y)
{
  g_autoptr(TrTensor) tx = tr_tensor_new_float64(x);
  g_autoptr(TrTensor) ty = tr_tensor_new_float64(y);
  g_autoptr(TrTensor) f = run_graph(fwd, (TrTensor *[]){tx, ty}, 2);
  return tr_tensor_get_f64(f, 0);
}

static void
set_variable(TrVariable *var, double v)
{
  g_autoptr(TrTensor) t = tr_tensor_new_float64(v);
  g_autoptr(GError) error = NULL;
  tr_variable_assign(var, t, &error);
  g_assert_no_error(error);
}

/* The gradients g computes at (x, y) against central differences of the forward graph fwd, and
 * against the eager tape's replay of fwd called as one record. */
static void
check_against_numeric(TrGraph *g, TrGraph *fwd, TrVariable *var, double x, double y)
{
  const double eps = 1e-6;
  TrTensor *out[4] = {NULL};
  run_all(g, x, y, out);
  double want[3] = {
      (forward_at(fwd, x + eps, y) - forward_at(fwd, x - eps, y)) / (2 * eps),
      (forward_at(fwd, x, y + eps) - forward_at(fwd, x, y - eps)) / (2 * eps),
      0,
  };
  if (var) {
    double v = tr_tensor_get_f64(var->value, 0);
    set_variable(var, v + eps);
    double hi = forward_at(fwd, x, y);
    set_variable(var, v - eps);
    want[2] = (hi - forward_at(fwd, x, y)) / (2 * eps);
    set_variable(var, v);
  }
  g_assert_cmpfloat_with_epsilon(tr_tensor_get_f64(out[0], 0), forward_at(fwd, x, y), 1e-12);
  for (int j = 0; j < (var ? 3 : 2); j++)
    assert_close("SymbolicGradient", j, 0, tr_tensor_get_f64(out[1 + j], 0), want[j]);

  /* The eager tape: fwd called as one record, replayed with concrete values. */
  g_autoptr(GError) error = NULL;
  g_autoptr(TrGradEager) e = tr_grad_eager_new();
  g_autoptr(TrTensor) tx = tr_tensor_new_float64(x);
  g_autoptr(TrTensor) ty = tr_tensor_new_float64(y);
  g_autoptr(TrTensor) tv = var ? tr_variable_read(var) : NULL;
  void *hx = tr_grad_eager_handle(e, tx), *hy = tr_grad_eager_handle(e, ty);
  void *hv = tv ? tr_grad_eager_handle(e, tv) : NULL;
  g_autoptr(TrTensor) tf = run_graph(fwd, (TrTensor *[]){tx, ty}, 2);
  void *hf = tr_grad_eager_handle(e, tf);
  TrGradRecord call = {.op = TR_GRAD_CALL,
                       .n_inputs = var ? 3 : 2,
                       .inputs = (void *[]){hx, hy, hv},
                       .n_outputs = 1,
                       .outputs = &hf,
                       .graph = fwd};
  void *grads[3] = {NULL};
  g_assert_true(tr_grad_backprop(&tr_grad_eager_builder, e, &call, 1, &hf, NULL, 1,
                                 (void *[]){hx, hy, hv}, var ? 3 : 2, grads, &error));
  g_assert_no_error(error);
  for (int j = 0; j < (var ? 3 : 2); j++)
    g_assert_cmpfloat_with_epsilon(tr_tensor_get_f64(out[1 + j], 0),
                                   tr_tensor_get_f64(eager_grad_tensor(grads[j]), 0), 1e-12);
  for (int j = 0; j < 4; j++)
    g_clear_pointer(&out[j], tr_tensor_unref);
}

/* The graph after a copy, an optimisation and an inlining computes the same gradients. */
static void
check_transformed(TrGraph *g, TrGraph *fwd, TrVariable *var, double x, double y)
{
  g_autoptr(TrGraph) opt = tr_graph_copy(g);
  tr_graph_optimize(opt, TR_OPT_ALL, NULL);
  g_assert_cmpint(count_op(opt, TR_GOP_SYMBOLIC_GRADIENT), ==,
                  count_op(g, TR_GOP_SYMBOLIC_GRADIENT));
  check_against_numeric(opt, fwd, var, x, y);
  g_autoptr(TrGraph) outer = tr_graph_new("outer");
  TrOutput args[2] = {add_placeholder(outer, TR_FLOAT64, "a"),
                      add_placeholder(outer, TR_FLOAT64, "b")};
  int n_out = tr_graph_n_outputs(g);
  TrOutput outs[4];
  g_autoptr(GError) error = NULL;
  g_assert_true(tr_graph_inline(outer, g, args, 2, outs, n_out, "inner", &error));
  g_assert_no_error(error);
  for (int k = 0; k < n_out; k++)
    add_output(outer, outs[k]);
  g_assert_cmpint(count_op(outer, TR_GOP_SYMBOLIC_GRADIENT), >=, 1);
  check_against_numeric(outer, fwd, var, x, y);
}

static void
check_symbolic(TrGraph *(*make)(void), const double (*points)[2], int n_points)
{
  g_autoptr(TrGraph) g = make();
  g_autoptr(TrGraph) fwd = make();
  add_graph_gradients(g, NULL);
  g_assert_cmpint(count_op(g, TR_GOP_SYMBOLIC_GRADIENT), ==, 1);
  /* It draws like any node: its forward graph is a cluster. */
  g_autofree char *dot = tr_graph_to_dot(g);
  g_assert_nonnull(strstr(dot, "SymbolicGradient"));
  g_autofree char *json = tr_graph_to_json(g);
  g_assert_nonnull(strstr(json, "\"SymbolicGradient\""));
  for (int i = 0; i < n_points; i++)
    check_against_numeric(g, fwd, NULL, points[i][0], points[i][1]);
  check_transformed(g, fwd, NULL, points[0][0], points[0][1]);
}

static TrGraph *
make_loop(void)
{
  return loop_graph();
}

static TrGraph *
make_cond(void)
{
  return cond_graph(false);
}

static TrGraph *
make_loop_in_cond(void)
{
  return cond_graph(true);
}

static void
test_symbolic_loop(void)
{
  static const double points[][2] = {{1.5, -2}, {-0.3, 0.7}, {2, 1.1}};
  check_symbolic(make_loop, points, G_N_ELEMENTS(points));
}

/* Both branches are taken, by calls of the same graph. */
static void
test_symbolic_cond(void)
{
  static const double points[][2] = {{1.3, 0.4}, {-0.7, 1.9}};
  check_symbolic(make_cond, points, G_N_ELEMENTS(points));
}

static void
test_symbolic_loop_in_cond(void)
{
  static const double points[][2] = {{0.8, -1.2}, {-1.1, 0.6}};
  check_symbolic(make_loop_in_cond, points, G_N_ELEMENTS(points));
}

/* A variable read inside the loop body gets its gradient, read when the graph runs. */
static void
test_symbolic_loop_variable(void)
{
  g_autoptr(TrTensor) v0 = tr_tensor_new_float64(1.2);
  g_autoptr(TrVariable) var = tr_variable_new(v0, "v");
  g_autoptr(TrGraph) g = variable_loop_graph(var);
  g_autoptr(TrGraph) fwd = variable_loop_graph(var);
  add_graph_gradients(g, var);
  TrNode *sg = NULL;
  for (int i = 0; i < tr_graph_n_nodes(g); i++)
    if (tr_graph_node(g, i)->op == TR_GOP_SYMBOLIC_GRADIENT)
      sg = tr_graph_node(g, i);
  g_assert_nonnull(sg);
  g_assert_true(sg->stateful);
  g_assert_cmpint(sg->n_outputs, ==, 4); /* i, x, y, then v */
  check_against_numeric(g, fwd, var, 0.9, -1.3);
  set_variable(var, -0.8);
  check_against_numeric(g, fwd, var, 0.9, -1.3);
  check_transformed(g, fwd, var, 1.1, 0.5);
}

/* A SymbolicGradient node rejects upstream gradients of the wrong dtype. */
static void
test_symbolic_checks_dtypes(void)
{
  g_autoptr(TrGraph) g = loop_graph();
  const TrNode *loop = NULL;
  for (int i = 0; i < tr_graph_n_nodes(g); i++)
    if (tr_graph_node(g, i)->op == TR_GOP_WHILE)
      loop = tr_graph_node(g, i);
  TrOutput wrong = add_const(g, tr_tensor_new_int32(1));
  TrOutput grads[3] = {loop->inputs[0], wrong, loop->inputs[2]};
  g_autoptr(GError) error = NULL;
  g_assert_null(tr_grad_add_symbolic_gradient(g, loop, loop->inputs, grads, NULL, &error));
  g_assert_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE);
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *path = g_strdup_printf("/grad/op/%s", cases[i].path);
    g_test_add_data_func(path, &cases[i], test_op_case);
  }
  g_test_add_func("/grad/walk/sums-uses-and-skips-unconnected",
                  test_walk_sums_uses_and_skips_unconnected);
  g_test_add_func("/grad/walk/stops-at-comparisons", test_walk_stops_at_comparisons);
  g_test_add_func("/grad/walk/stop-gradient", test_walk_stop_gradient);
  g_test_add_func("/grad/walk/custom-record", test_walk_custom_record);
  g_test_add_func("/grad/call/replays-graph-and-variables", test_call_replay);
  g_test_add_func("/grad/call/replays-loops", test_call_replays_loops);
  g_test_add_func("/grad/graph/loop-needs-symbolic-gradient",
                  test_graph_loop_needs_symbolic_gradient);
  g_test_add_func("/grad/symbolic/loop", test_symbolic_loop);
  g_test_add_func("/grad/symbolic/cond", test_symbolic_cond);
  g_test_add_func("/grad/symbolic/loop-in-cond", test_symbolic_loop_in_cond);
  g_test_add_func("/grad/symbolic/loop-reads-variable", test_symbolic_loop_variable);
  g_test_add_func("/grad/symbolic/checks-dtypes", test_symbolic_checks_dtypes);
  return g_test_run();
}
