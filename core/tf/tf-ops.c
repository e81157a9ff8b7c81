/* tf-ops.c — the functions of tf, tf.math, tf.nn, tf.random and tf.linalg that apply ops.
 *
 * Every function is a row of one list (TF_FUNCTION_LIST below): its Python name, its
 * parameters, the modules that hold it and the C body that runs once the arguments are bound.
 * The module's one argument parser (tf_parse_args: CPython's METH_FASTCALL | METH_KEYWORDS
 * calling convention and TypeError texts) binds every row's calls; the entry points generated
 * from the list only name their row.
 *
 * A body converts its tensor arguments to operands (tf-private.h: Python values next to a
 * tensor take its dtype as a hint, as TF's op wrappers do) and applies one op of core/tensor's
 * table with the attrs TF's wrapper would fill. Eagerly the op runs at once and a TR_ERROR
 * becomes the tf.errors class of its code with TF's message; while a tf.function traces, the op
 * adds a node to the graph being built. Axes, perms, shapes, depths and seeds are attrs, so
 * their values must be known when the op is built (see "static arguments"). The random
 * functions draw from the state's global seed and op counter.
 */
#include "tf-private.h"

#include <string.h>

/* ---- rows
 * ---------------------------------------------------------------------------------------- A row's
 * parameters are a NULL-terminated list of names whose first `n_required` have no default;
 * tf_parse_args binds a call to them, an omitted optional argument being NULL in the slots (the
 * body applies its default). Slots hold borrowed references. */

enum { MAX_PARAMS = 8 };

typedef struct OpsFunction OpsFunction;

/* A function's body: `a` holds its bound arguments, in parameter order. A new reference, or
 * NULL with an exception set. */
typedef PyObject *(*OpsBody)(TfState *st, const OpsFunction *f, PyObject *const *a);

/* The modules a function is an attribute of. */
enum {
  IN_TF = 1 << 0,
  IN_MATH = 1 << 1,
  IN_NN = 1 << 2,
  IN_RANDOM = 1 << 3,
  IN_LINALG = 1 << 4,
};

struct OpsFunction {
  const char *name;          /* Python name; also the name in TypeError texts */
  OpsBody body;              /* runs the function on bound arguments */
  const char *const *params; /* parameter names, NULL-terminated, at most MAX_PARAMS */
  int n_required;            /* the first n_required parameters have no default */
  TrOpId op;                 /* the op applied, for bodies that several rows share */
  const char *node;          /* the default node name; NULL: the op's own */
  unsigned modules;          /* IN_* bits */
};

static int
n_params(const OpsFunction *f)
{
  int n = 0;
  while (f->params[n])
    n++;
  return n;
}

/* ---- argument helpers ---------------------------------------------------------------------- */

/* Whether an optional argument was given (None counts as omitted, as TF's defaults are None). */
static bool
given(PyObject *v)
{
  return v && v != Py_None;
}

/* The node name a `name=` argument asks for, else `dflt` (NULL: the op's default). The text is
 * borrowed from the str object, which the caller's arguments keep alive. */
static const char *
name_arg(PyObject *name, const char *dflt)
{
  if (!name || !PyUnicode_Check(name))
    return dflt;
  const char *s = PyUnicode_AsUTF8(name);
  if (!s) /* a lone surrogate: no node name can hold it, the op's own name does */
    PyErr_Clear();
  return s ? s : dflt;
}

/* convert_to_tensor of an argument as an operand, with `hint` as the preferred dtype. */
static bool
operand_arg(TfState *st, PyObject *v, TrDType hint, TfOperand *out)
{
  return tf_operand(st, v, hint, true, out);
}

static bool
bool_arg(PyObject *v, bool *out)
{
  if (!v) {
    *out = false;
    return true;
  }
  int r = PyObject_IsTrue(v);
  *out = r == 1;
  return r >= 0;
}

static bool
is_variable(TfState *st, PyObject *v)
{
  return st->Variable && tf_is_variable(st, v);
}

static void
operand_list_free(TfOperand *items, int n)
{
  tf_operands_clear(items, n);
  g_free(items);
}

/* The items of an iterable of tensor-likes (tensors, Variables, Python values) as operands,
 * converted with the first tensor's dtype as a hint. Returns the count, or -1 with an exception
 * set; *out (transfer full) is freed with operand_list_free. */
static int
operand_list_arg(TfState *st, PyObject *v, TfOperand **out)
{
  /* A tuple (not PySequence_Fast's list itself): converting an item may run Python code that
   * changes the list. */
  PyObject *seq = PyList_Check(v)
                      ? PyList_AsTuple(v)
                      : PySequence_Fast(v, "values must be a list or tuple of tensors"); /* owned */
  if (!seq)
    return -1;
  Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
  if (len > INT_MAX / 2) {
    Py_DECREF(seq);
    PyErr_SetString(PyExc_ValueError, "too many values");
    return -1;
  }
  int n = (int)len;
  PyObject **items = PySequence_Fast_ITEMS(seq); /* borrowed from seq */
  TrDType hint = TR_DTYPE_INVALID;
  for (int i = 0; i < n && hint == TR_DTYPE_INVALID; i++)
    hint = tf_dtype_of(st, items[i]);
  TfOperand *ops = g_new0(TfOperand, (gsize)MAX(n, 1));
  for (int i = 0; i < n; i++) {
    if (!operand_arg(st, items[i], hint, &ops[i])) {
      operand_list_free(ops, i);
      Py_DECREF(seq);
      return -1;
    }
  }
  Py_DECREF(seq);
  *out = ops;
  return n;
}

/* Replaces *o by its cast to `dtype` when its dtype differs (tf.cast adds no op otherwise).
 * On failure *o is left to the caller. */
static bool
cast_operand(TfState *st, TfOperand *o, TrDType dtype)
{
  if (o->dtype == dtype)
    return true;
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.dtype = dtype;
  TfOperand c;
  if (!tf_apply_operand(st, TR_OP_CAST, o, 1, &attrs, NULL, &c))
    return false;
  tf_operand_clear(o);
  *o = c;
  return true;
}

/* Applies `op` to one argument converted without a hint. */
static PyObject *
apply1(TfState *st, TrOpId op, PyObject *x, const TrAttrs *attrs, const char *name)
{
  TfOperand o;
  if (!operand_arg(st, x, TR_DTYPE_INVALID, &o))
    return NULL;
  PyObject *r = tf_apply(st, op, &o, 1, attrs, name);
  tf_operand_clear(&o);
  return r;
}

/* Applies `op` to n operands and clears them. */
static PyObject *
apply_n(TfState *st, TrOpId op, TfOperand *in, int n, const TrAttrs *attrs, const char *name)
{
  PyObject *r = tf_apply(st, op, in, n, attrs, name);
  tf_operands_clear(in, n);
  return r;
}

/* A tf.Tensor of a value computed here (transfer full of t; NULL passes an exception on): the
 * tensor itself when eager, a Const node named `name` while tracing. */
static PyObject *
constant_value(TfState *st, TrTensor *t, const char *name)
{
  TfTrace *tr = tf_trace(st);
  if (!t || !tr)
    return tf_tensor_new(st, t);
  TrNode *node = tr_graph_add_const(tr->graph, t, name); /* takes its own reference */
  tr_tensor_unref(t);
  return tf_symbolic_new(st, tr->graph, tr_node_output(node, 0));
}

/* ---- static arguments -----------------------------------------------------------------------
 * Axes, perms, shapes, depths and seeds are attributes of an op: their values must be known
 * when the op is built. Besides Python values and eager tensors, a symbolic tensor is accepted
 * when its value is known at trace time: a Const node, or an op (not stateful) of Const nodes,
 * folded here as TensorFlow's constant_value folds a shape computed from constants. A Variable
 * is read when eager. Anything else is a TypeError naming the argument. */

/* How many ops deep folding looks. */
enum { FOLD_DEPTH = 8 };

/* The value of `out` when it can be computed at trace time, else NULL. Transfer full. */
static TrTensor *
fold_output(TrOutput out, int depth)
{
  TrNode *node = out.node;
  if (node->op == TR_GOP_CONST)
    return tr_tensor_ref(node->value);
  if (depth == 0 || node->op >= TR_N_OPS || node->stateful)
    return NULL;
  g_autofree TrTensor **in = g_new0(TrTensor *, (gsize)MAX(node->n_inputs, 1));
  bool known = true;
  for (int i = 0; known && i < node->n_inputs; i++)
    known = (in[i] = fold_output(node->inputs[i], depth - 1)) != NULL;
  TrTensor *r = NULL;
  if (known) {
    GError *error = NULL;
    r = tr_op_run((TrOpId)node->op, in, node->n_inputs, node->attrs, &error);
    g_clear_error(&error); /* not known then: the error is the function's, when it runs */
  }
  for (int i = 0; i < node->n_inputs; i++)
    if (in[i])
      tr_tensor_unref(in[i]);
  return r;
}

static bool
raise_not_static(TfState *st, PyObject *v, const char *what)
{
  if (is_variable(st, v)) {
    PyErr_Format(PyExc_TypeError,
                 "`%s` must be known when the function is traced, but got the tf.Variable '%s', "
                 "whose value is only read when the function runs",
                 what, ((TfVariable *)v)->var->name);
    return false;
  }
  g_autofree char *name = tr_output_name(tf_symbolic_output(v));
  PyErr_Format(PyExc_TypeError,
               "`%s` must be known when the function is traced (a Python value or a constant), "
               "but got the symbolic tensor '%s', whose value is only computed when the function "
               "runs",
               what, name);
  return false;
}

/* The value of a tensor or Variable argument `v` that must be static. Transfer full, or NULL
 * with an exception set. */
static TrTensor *
static_tensor(TfState *st, PyObject *v, const char *what)
{
  if (is_variable(st, v)) {
    if (!tf_trace(st))
      return tr_variable_read(((TfVariable *)v)->var);
    raise_not_static(st, v, what);
    return NULL;
  }
  if (!tf_is_symbolic(st, v))
    return tr_tensor_ref(tf_tensor_value(v));
  TfOperand o; /* raises TypeError for a tensor of a graph that is not being built */
  if (!tf_operand(st, v, TR_DTYPE_INVALID, true, &o))
    return NULL;
  tf_operand_clear(&o);
  TrTensor *t = tf_static_value(st, v);
  if (!t)
    t = fold_output(tf_symbolic_output(v), FOLD_DEPTH);
  if (!t)
    raise_not_static(st, v, what);
  return t;
}

static bool
is_tensor_like(TfState *st, PyObject *v)
{
  return tf_is_tensor(st, v) || is_variable(st, v);
}

/* A Python integer (or an object with __index__) as an int64. */
static bool
index_arg(PyObject *v, int64_t *out)
{
  PyObject *i = PyNumber_Index(v); /* owned */
  if (!i)
    return false;
  long long x = PyLong_AsLongLong(i);
  Py_DECREF(i);
  if (x == -1 && PyErr_Occurred())
    return false;
  *out = x;
  return true;
}

/* A scalar integer tensor's value; TypeError naming `what` otherwise. */
static bool
scalar_int(const TrTensor *t, const char *what, int64_t *out)
{
  if (t->shape.rank != 0 || !tr_dtype_is_int(t->dtype)) {
    g_autofree char *shape = tr_shape_to_string(&t->shape);
    PyErr_Format(PyExc_TypeError,
                 "`%s` must be an integer or a scalar integer tensor, got a %s tensor of shape %s",
                 what, tr_dtype_name(t->dtype), shape);
    return false;
  }
  *out = tr_tensor_get_i64(t, 0);
  return true;
}

/* One dimension of a shape given as a list: None (unknown), an int or a scalar int tensor. */
static bool
dim_arg(TfState *st, PyObject *v, const char *what, int64_t *out)
{
  if (v == Py_None) {
    *out = TR_UNKNOWN;
    return true;
  }
  if (!is_tensor_like(st, v))
    return index_arg(v, out);
  g_autoptr(TrTensor) t = static_tensor(st, v, what);
  return t && scalar_int(t, what, out);
}

/* The dims a tensor holds: a scalar is one dim, a vector its elements. */
static bool
shape_of_tensor_value(const TrTensor *t, TrShape *out)
{
  if (!tr_dtype_is_int(t->dtype)) {
    PyErr_Format(PyExc_TypeError, "A shape must be an integer tensor, got dtype %s",
                 tr_dtype_name(t->dtype));
    return false;
  }
  if (t->shape.rank > 1) {
    PyErr_Format(PyExc_ValueError, "Shape must be rank 1 but is rank %d", t->shape.rank);
    return false;
  }
  int64_t n = t->shape.rank == 0 ? 1 : t->shape.dims[0];
  if (n > TR_MAX_RANK) {
    PyErr_Format(PyExc_ValueError, "shapes may have at most %d dimensions", TR_MAX_RANK);
    return false;
  }
  out->rank = (int)n;
  for (int64_t i = 0; i < n; i++)
    out->dims[i] = tr_tensor_get_i64(t, i);
  return true;
}

static bool
shape_of_sequence(TfState *st, PyObject *v, const char *what, TrShape *out)
{
  /* A dim's __index__ may change a list: its items are read from a tuple of them. */
  PyObject *items = PySequence_Tuple(v); /* owned */
  if (!items)
    return false;
  Py_ssize_t n = PyTuple_GET_SIZE(items);
  bool ok = n <= TR_MAX_RANK;
  if (!ok)
    PyErr_Format(PyExc_ValueError, "shapes may have at most %d dimensions", TR_MAX_RANK);
  out->rank = ok ? (int)n : 0;
  for (Py_ssize_t i = 0; ok && i < n; i++)
    ok = dim_arg(st, PyTuple_GET_ITEM(items, i), what, &out->dims[i]);
  Py_DECREF(items);
  return ok;
}

/* A shape-like argument, static: a TensorShape, an int, a list or tuple of dims, or a value
 * convert_to_tensor makes an int scalar or vector of (a tensor, a NumPy array). The rank may
 * be unknown (a TensorShape's) and dims may be TR_UNKNOWN (None). */
static bool
static_shape(TfState *st, PyObject *v, const char *what, TrShape *out)
{
  if (st->TensorShape && PyObject_TypeCheck(v, st->TensorShape))
    return tf_shape_arg(st, v, out);
  if (PyList_Check(v) || PyTuple_Check(v))
    return shape_of_sequence(st, v, what, out);
  if (PyLong_Check(v)) {
    out->rank = 1;
    return index_arg(v, &out->dims[0]);
  }
  g_autoptr(TrTensor) t = NULL;
  if (is_tensor_like(st, v))
    t = static_tensor(st, v, what);
  else if (tf_convertible(st, v))
    t = tf_convert(st, v, TR_DTYPE_INVALID, true);
  else
    PyErr_Format(PyExc_TypeError,
                 "Failed to convert '%R' to a shape: '%R'could not be converted to a dimension. A "
                 "shape should either be single dimension (e.g. 10), or an iterable of dimensions "
                 "(e.g. [1, 10, None]).",
                 v, v);
  return t && shape_of_tensor_value(t, out);
}

/* An int argument (axis, depth, seed): an int or a scalar int tensor; NULL/None give dflt. */
static bool
int_arg(TfState *st, PyObject *v, const char *what, int64_t dflt, int64_t *out)
{
  if (!given(v)) {
    *out = dflt;
    return true;
  }
  if (!is_tensor_like(st, v))
    return index_arg(v, out);
  g_autoptr(TrTensor) t = static_tensor(st, v, what);
  return t && scalar_int(t, what, out);
}

/* A float attribute (minval, on_value): a number or a scalar tensor; NULL/None give dflt. */
static bool
double_arg(TfState *st, PyObject *v, const char *what, double dflt, double *out)
{
  if (!given(v)) {
    *out = dflt;
    return true;
  }
  if (!is_tensor_like(st, v)) {
    *out = PyFloat_AsDouble(v);
    return !(*out == -1.0 && PyErr_Occurred());
  }
  g_autoptr(TrTensor) t = static_tensor(st, v, what);
  if (!t)
    return false;
  if (t->shape.rank != 0 || !tr_dtype_is_numeric(t->dtype)) {
    PyErr_Format(PyExc_TypeError, "`%s` must be a number or a scalar numeric tensor", what);
    return false;
  }
  *out = tr_tensor_get_f64(t, 0);
  return true;
}

/* A shape argument (static_shape) of a known rank. */
static bool
shape_arg(TfState *st, PyObject *v, const char *what, TrShape *out)
{
  if (!static_shape(st, v, what, out))
    return false;
  if (out->rank == TR_UNKNOWN) {
    PyErr_SetString(PyExc_ValueError,
                    "Cannot convert a partially known TensorShape <unknown> to a Tensor.");
    return false;
  }
  return true;
}

/* An axis list: NULL/None is "all" (n = -1), an int one axis, a list, tuple or tensor several. */
static bool
axes_arg(TfState *st, PyObject *v, const char *what, int64_t *axes, int *n)
{
  if (!given(v)) {
    *n = -1;
    return true;
  }
  TrShape s;
  if (!shape_arg(st, v, what, &s))
    return false;
  *n = s.rank;
  memcpy(axes, s.dims, sizeof(int64_t) * (size_t)s.rank);
  return true;
}

/* A 1-D int64 tensor of a shape's dims: the `dims` input of Fill and the random ops. */
static TrTensor *
dims_tensor(const TrShape *shape)
{
  TrShape vec = tr_shape_make(1, (int64_t[]){shape->rank});
  return tr_tensor_new_from_data(TR_INT64, &vec, shape->dims);
}

/* A shape tensor of the graph as that input; a scalar is reshaped to a vector, as static_shape
 * reads it. */
static bool
graph_dims_operand(TfState *st, PyObject *v, TfOperand *out)
{
  TfOperand o;
  if (!operand_arg(st, v, TR_DTYPE_INVALID, &o))
    return false;
  if (o.shape.rank != 0) {
    *out = o;
    return true;
  }
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.axes[0] = -1;
  attrs.n_axes = 1;
  bool ok = tf_apply_operand(st, TR_OP_RESHAPE, &o, 1, &attrs, NULL, out);
  tf_operand_clear(&o);
  return ok;
}

/* Whether `v` has no Python value of its own while tracing. */
static bool
is_graph_value(TfState *st, PyObject *v)
{
  return tf_is_symbolic(st, v) || is_variable(st, v);
}

/* A shape argument as that input: a static shape, or while tracing any int tensor (the op then
 * infers a partial shape). */
static bool
dims_operand(TfState *st, PyObject *v, const char *what, TfOperand *out)
{
  if (tf_trace(st) && is_graph_value(st, v)) {
    g_autoptr(TrTensor) known = NULL;
    if (tf_is_symbolic(st, v)) {
      TfOperand o; /* raises TypeError for a tensor of a graph that is not being built */
      if (!tf_operand(st, v, TR_DTYPE_INVALID, true, &o))
        return false;
      tf_operand_clear(&o);
      known = tf_static_value(st, v);
      if (!known)
        known = fold_output(tf_symbolic_output(v), FOLD_DEPTH);
    }
    if (!known)
      return graph_dims_operand(st, v, out);
  }
  TrShape s;
  return shape_arg(st, v, what, &s) && tf_operand_from_tensor(st, dims_tensor(&s), out);
}

/* ---- generated elementwise and reduction functions ----------------------------------------- */

static const char *const P_UNARY[] = {"x", "name", NULL};
static const char *const P_BINARY[] = {"x", "y", "name", NULL};
static const char *const P_REDUCE[] = {"input_tensor", "axis", "keepdims", "name", NULL};

/* Python's `/` as TensorFlow's truediv: integers of one dtype are cast to float64 first. The
 * casts replace in[], which stay the caller's to clear. */
static PyObject *
truediv(TfState *st, TfOperand in[2], const char *name)
{
  bool ints = in[0].dtype == in[1].dtype && tr_dtype_is_int(in[0].dtype);
  if (ints && !(cast_operand(st, &in[0], TR_FLOAT64) && cast_operand(st, &in[1], TR_FLOAT64)))
    return NULL;
  return tf_apply(st, TR_OP_DIV, in, 2, NULL, name);
}

/* An axis in [-rank, rank) as an index in [0, rank); with an unknown rank, the axis itself. */
static bool
axis_index(int64_t axis, int rank, int64_t *out)
{
  if (rank == TR_UNKNOWN) {
    *out = axis;
    return true;
  }
  if (axis < -rank || axis >= rank)
    return false;
  *out = axis < 0 ? axis + rank : axis;
  return true;
}

/* A reduction's attrs as tr_reduce fills them: axes pass unchanged, except that repeats of an
 * axis already listed are dropped so that any number of them fits. */
static void
reduce_attrs(const int64_t *axes, int n_axes, int rank, bool keepdims, TrAttrs *attrs)
{
  tr_attrs_init(attrs);
  attrs->keepdims = keepdims;
  attrs->n_axes = n_axes < 0 ? -1 : 0;
  for (int i = 0; i < n_axes; i++) {
    int64_t axis, seen;
    bool valid = axis_index(axes[i], rank, &axis), repeat = false;
    for (int j = 0; valid && j < attrs->n_axes && !repeat; j++)
      repeat = axis_index(attrs->axes[j], rank, &seen) && seen == axis;
    if (repeat)
      continue;
    if (attrs->n_axes == TR_MAX_RANK)
      attrs->n_axes--; /* only an invalid axis gets here: keep it, to report it */
    attrs->axes[attrs->n_axes++] = axes[i];
    if (!valid)
      break;
  }
}

static PyObject *
unary_body(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  return apply1(st, f->op, a[0], NULL, name_arg(a[1], f->node));
}

static PyObject *
binary_body(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  TfOperand in[2];
  if (!tf_operand_pair(st, a[0], a[1], &in[0], &in[1]))
    return NULL;
  const char *name = name_arg(a[2], f->node);
  PyObject *r = f->op == TR_OP_DIV ? truediv(st, in, name) : tf_apply(st, f->op, in, 2, NULL, name);
  tf_operands_clear(in, 2);
  return r;
}

static PyObject *
reduce_body(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  int64_t axes[TR_MAX_RANK];
  int n;
  bool keep;
  if (!axes_arg(st, a[1], "axis", axes, &n) || !bool_arg(a[2], &keep))
    return NULL;
  TfOperand o;
  if (!operand_arg(st, a[0], TR_DTYPE_INVALID, &o))
    return NULL;
  TrAttrs attrs;
  reduce_attrs(axes, n, o.shape.rank, keep, &attrs);
  PyObject *r = tf_apply(st, f->op, &o, 1, &attrs, name_arg(a[3], f->node));
  tf_operand_clear(&o);
  return r;
}

/* ---- creation ------------------------------------------------------------------------------ */

/* tf.zeros and tf.ones: Fill of `value` converted to the dtype. */
static PyObject *
fill_value(TfState *st, const OpsFunction *f, PyObject *const *a, double value)
{
  TrDType dt;
  if (!tf_dtype_arg(st, a[1], TR_FLOAT32, &dt))
    return NULL;
  TfOperand in[2];
  if (!dims_operand(st, a[0], "shape", &in[0]))
    return NULL;
  GError *error = NULL;
  TrTensor *v = dt == TR_STRING ? tr_tensor_new_string("", 0) : tr_tensor_new_float64(value);
  if (v->dtype != dt) {
    TrTensor *c = tr_cast(v, dt, &error);
    tr_tensor_unref(v);
    v = c;
  }
  if (!v) {
    tf_operand_clear(&in[0]);
    return tf_raise_error(st, error);
  }
  if (!tf_operand_from_tensor(st, v, &in[1])) {
    tf_operand_clear(&in[0]);
    return NULL;
  }
  return apply_n(st, TR_OP_FILL, in, 2, NULL, name_arg(a[2], f->node));
}

static PyObject *
tf_zeros(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  return fill_value(st, f, a, 0);
}

static PyObject *
tf_ones(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  return fill_value(st, f, a, 1);
}

static PyObject *
tf_fill(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  TfOperand in[2];
  if (!dims_operand(st, a[0], "dims", &in[0]))
    return NULL;
  if (!operand_arg(st, a[1], TR_DTYPE_INVALID, &in[1])) {
    tf_operand_clear(&in[0]);
    return NULL;
  }
  return apply_n(st, TR_OP_FILL, in, 2, NULL, name_arg(a[2], NULL));
}

/* tf.zeros_like and tf.ones_like, then a cast to `dtype` when given. */
static PyObject *
tf_like(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  TrDType dt;
  if (!tf_dtype_arg(st, a[1], TR_DTYPE_INVALID, &dt))
    return NULL;
  TfOperand o, r;
  if (!operand_arg(st, a[0], TR_DTYPE_INVALID, &o))
    return NULL;
  bool ok = tf_apply_operand(st, f->op, &o, 1, NULL, name_arg(a[2], NULL), &r);
  tf_operand_clear(&o);
  if (ok && dt != TR_DTYPE_INVALID && !cast_operand(st, &r, dt)) {
    tf_operand_clear(&r);
    ok = false;
  }
  return ok ? tf_operand_to_value(st, &r) : NULL;
}

/* tf.range's dtype: the widest of the arguments in TF's order int32 < int64 < float32 <
 * float64; other dtypes are not widened to (the cast then reports them). */
static const int range_width[TR_N_DTYPES] = {
    [TR_INT32] = 1,
    [TR_INT64] = 2,
    [TR_FLOAT32] = 3,
    [TR_FLOAT64] = 4,
};

static int
range_rank(TrDType d)
{
  return d >= 0 && d < TR_N_DTYPES ? range_width[d] : 0;
}

static PyObject *
tf_range(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  TrDType dt;
  if (!tf_dtype_arg(st, a[3], TR_DTYPE_INVALID, &dt))
    return NULL;
  PyObject *zero = PyLong_FromLong(0), *one = PyLong_FromLong(1); /* owned */
  if (!zero || !one) {
    Py_XDECREF(zero);
    Py_XDECREF(one);
    return NULL;
  }
  /* range(limit) counts from 0 */
  PyObject *vals[3] = {given(a[1]) ? a[0] : zero, given(a[1]) ? a[1] : a[0], a[2] ? a[2] : one};
  TfOperand in[3];
  memset(in, 0, sizeof in);
  TrDType widest = TR_INT32;
  bool ok = true;
  for (int i = 0; ok && i < 3; i++) {
    ok = operand_arg(st, vals[i], dt, &in[i]);
    if (ok && range_rank(in[i].dtype) > range_rank(widest))
      widest = in[i].dtype;
  }
  Py_DECREF(zero);
  Py_DECREF(one);
  if (dt == TR_DTYPE_INVALID)
    dt = widest;
  for (int i = 0; ok && i < 3; i++)
    ok = cast_operand(st, &in[i], dt);
  if (!ok) {
    tf_operands_clear(in, 3);
    return NULL;
  }
  return apply_n(st, TR_OP_RANGE, in, 3, NULL, name_arg(a[4], NULL));
}

static PyObject *
tf_eye(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  if (!int_arg(st, a[0], "num_rows", 0, &attrs.num_rows) ||
      !int_arg(st, a[1], "num_columns", -1, &attrs.num_columns) ||
      !tf_dtype_arg(st, a[3], TR_FLOAT32, &attrs.dtype))
    return NULL;
  if (given(a[2])) {
    PyErr_SetString(st->errors[TF_ERROR_UNIMPLEMENTED],
                    "tf.eye with a batch_shape is not supported yet");
    return NULL;
  }
  return tf_apply(st, TR_OP_EYE, NULL, 0, &attrs, name_arg(a[4], NULL));
}

static PyObject *
tf_linspace(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  int64_t axis;
  if (!int_arg(st, a[4], "axis", 0, &axis))
    return NULL;
  if (axis != 0) {
    PyErr_SetString(st->errors[TF_ERROR_UNIMPLEMENTED],
                    "tf.linspace with an axis other than 0 is not supported yet");
    return NULL;
  }
  TfOperand in[3];
  if (!tf_operand_pair(st, a[0], a[1], &in[0], &in[1]))
    return NULL;
  if (!operand_arg(st, a[2], TR_INT32, &in[2])) {
    tf_operands_clear(in, 2);
    return NULL;
  }
  return apply_n(st, TR_OP_LINSPACE, in, 3, NULL, name_arg(a[3], NULL));
}

static PyObject *
tf_cast(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  if (!tf_dtype_arg(st, a[1], TR_DTYPE_INVALID, &attrs.dtype))
    return NULL;
  if (attrs.dtype == TR_DTYPE_INVALID) { /* dtype=None */
    PyErr_SetString(PyExc_TypeError,
                    "Cannot convert the argument `type_value`: None to a TensorFlow DType.");
    return NULL;
  }
  TfOperand o;
  if (!operand_arg(st, a[0], TR_DTYPE_INVALID, &o))
    return NULL;
  /* While tracing, a tensor of the dtype already is the result, as tf.cast adds no op then. */
  if (tf_trace(st) && o.dtype == attrs.dtype)
    return tf_operand_to_value(st, &o);
  PyObject *r = tf_apply(st, TR_OP_CAST, &o, 1, &attrs, name_arg(a[2], NULL));
  tf_operand_clear(&o);
  return r;
}

/* ---- linear algebra, shapes, selection ------------------------------------------------------ */

static PyObject *
tf_matmul(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  if (!bool_arg(a[2], &attrs.transpose_a) || !bool_arg(a[3], &attrs.transpose_b))
    return NULL;
  TfOperand in[2];
  if (!tf_operand_pair(st, a[0], a[1], &in[0], &in[1]))
    return NULL;
  /* tf.matmul's choice: MatMul for matrices, BatchMatMulV2 once either input has batch dims (or
   * may have: an unknown rank). */
  int ra = in[0].shape.rank, rb = in[1].shape.rank;
  bool batch = ra > 2 || rb > 2 || ra == TR_UNKNOWN || rb == TR_UNKNOWN;
  return apply_n(st, batch ? TR_OP_BATCH_MATMUL : TR_OP_MATMUL, in, 2, &attrs,
                 name_arg(a[4], NULL));
}

/* tf.argmax and tf.argmin. */
static PyObject *
tf_arg_reduce(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  if (!int_arg(st, a[1], "axis", 0, &attrs.axis) || !tf_dtype_arg(st, a[2], TR_INT64, &attrs.dtype))
    return NULL;
  return apply1(st, f->op, a[0], &attrs, name_arg(a[3], NULL));
}

static PyObject *
tf_transpose(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  if (!axes_arg(st, a[1], "perm", attrs.axes, &attrs.n_axes))
    return NULL;
  return apply1(st, TR_OP_TRANSPOSE, a[0], &attrs, name_arg(a[3], NULL));
}

static PyObject *
tf_reshape(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  TrShape s;
  if (!shape_arg(st, a[1], "shape", &s))
    return NULL;
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  memcpy(attrs.axes, s.dims, sizeof(int64_t) * (size_t)s.rank);
  attrs.n_axes = s.rank;
  return apply1(st, TR_OP_RESHAPE, a[0], &attrs, name_arg(a[2], NULL));
}

/* tf.concat and tf.stack. */
static PyObject *
tf_join(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  bool stack = f->op == TR_OP_STACK;
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  if (!int_arg(st, a[1], "axis", 0, &attrs.axis))
    return NULL;
  TfOperand *items;
  int n = operand_list_arg(st, a[0], &items);
  if (n < 0)
    return NULL;
  if (n == 0) {
    operand_list_free(items, 0);
    return PyErr_Format(
        PyExc_ValueError,
        "List argument 'values' to '%s' Op with length 0 shorter than minimum length %d.",
        stack ? "Pack" : "ConcatV2", stack ? 1 : 2);
  }
  PyObject *r = tf_apply(st, f->op, items, n, &attrs, name_arg(a[2], NULL));
  operand_list_free(items, n);
  return r;
}

static PyObject *
tf_squeeze(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  int n;
  if (!axes_arg(st, a[1], "axis", attrs.axes, &n))
    return NULL;
  if (n > 0) /* none listed squeezes every size-1 dimension */
    attrs.n_axes = n;
  return apply1(st, TR_OP_SQUEEZE, a[0], &attrs, name_arg(a[2], NULL));
}

static PyObject *
tf_expand_dims(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  if (!int_arg(st, a[1], "axis", 0, &attrs.axis))
    return NULL;
  return apply1(st, TR_OP_EXPAND_DIMS, a[0], &attrs, name_arg(a[2], NULL));
}

static PyObject *
tf_where(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  if (!given(a[1]) || !given(a[2])) {
    PyErr_SetString(
        st->errors[TF_ERROR_UNIMPLEMENTED],
        "tf.where with only a condition (coordinates of true elements) is not supported yet");
    return NULL;
  }
  TfOperand in[3];
  if (!operand_arg(st, a[0], TR_BOOL, &in[0]))
    return NULL;
  if (!tf_operand_pair(st, a[1], a[2], &in[1], &in[2])) {
    tf_operand_clear(&in[0]);
    return NULL;
  }
  return apply_n(st, TR_OP_SELECT, in, 3, NULL, name_arg(a[3], NULL));
}

static PyObject *
tf_clip_by_value(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  TfOperand in[3];
  memset(in, 0, sizeof in);
  bool ok = operand_arg(st, a[0], TR_DTYPE_INVALID, &in[0]) &&
            operand_arg(st, a[1], in[0].dtype, &in[1]) &&
            operand_arg(st, a[2], in[0].dtype, &in[2]);
  if (!ok) {
    tf_operands_clear(in, 3);
    return NULL;
  }
  return apply_n(st, TR_OP_CLIP_BY_VALUE, in, 3, NULL, name_arg(a[3], NULL));
}

/* tf.one_hot's dtype when none is given: on_value's (a Python int is int32, a bool bool),
 * else float32. */
static TrDType
one_hot_dtype(TfState *st, PyObject *on)
{
  if (!on)
    return TR_FLOAT32;
  TrDType d = tf_dtype_of(st, on);
  if (d != TR_DTYPE_INVALID)
    return d;
  return PyBool_Check(on) ? TR_BOOL : PyLong_Check(on) ? TR_INT32 : TR_FLOAT32;
}

static PyObject *
tf_one_hot(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  if (!int_arg(st, a[1], "depth", 0, &attrs.depth) || !int_arg(st, a[4], "axis", -1, &attrs.axis) ||
      !tf_dtype_arg(st, a[5], one_hot_dtype(st, a[2]), &attrs.dtype) ||
      !double_arg(st, a[2], "on_value", 1, &attrs.on_value) ||
      !double_arg(st, a[3], "off_value", 0, &attrs.off_value))
    return NULL;
  return apply1(st, TR_OP_ONE_HOT, a[0], &attrs, name_arg(a[6], NULL));
}

static PyObject *
tf_gather(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  int64_t batch_dims;
  if (!int_arg(st, a[3], "axis", 0, &attrs.axis) ||
      !int_arg(st, a[4], "batch_dims", 0, &batch_dims))
    return NULL;
  if (batch_dims != 0) {
    PyErr_SetString(st->errors[TF_ERROR_UNIMPLEMENTED],
                    "tf.gather with batch_dims is not supported yet");
    return NULL;
  }
  TfOperand in[2];
  if (!operand_arg(st, a[0], TR_DTYPE_INVALID, &in[0]))
    return NULL;
  if (!operand_arg(st, a[1], TR_DTYPE_INVALID, &in[1])) {
    tf_operand_clear(&in[0]);
    return NULL;
  }
  return apply_n(st, TR_OP_GATHER, in, 2, &attrs, name_arg(a[5], NULL));
}

/* The static shape of a tensor-like: a Variable's, a symbolic tensor's (possibly partial), or
 * that of the tensor a Python value converts to. */
static bool
shape_of_arg(TfState *st, PyObject *v, TrShape *out)
{
  if (is_variable(st, v))
    return tf_shape_of(st, v, out);
  if (tf_is_symbolic(st, v)) {
    TfOperand o; /* raises TypeError for a tensor of a graph that is not being built */
    if (!tf_operand(st, v, TR_DTYPE_INVALID, true, &o))
      return false;
    *out = o.shape;
    tf_operand_clear(&o);
    return true;
  }
  if (tf_is_tensor(st, v)) {
    *out = tf_tensor_value(v)->shape;
    return true;
  }
  TrTensor *t = tf_convert(st, v, TR_DTYPE_INVALID, true);
  if (!t)
    return false;
  *out = t->shape;
  tr_tensor_unref(t);
  return true;
}

/* The out_type of tf.shape, tf.size and tf.rank: int32 or int64. */
static bool
index_dtype_arg(TfState *st, PyObject *v, TrDType *out)
{
  if (!tf_dtype_arg(st, v, TR_INT32, out))
    return false;
  if (*out == TR_INT32 || *out == TR_INT64)
    return true;
  PyErr_Format(PyExc_TypeError,
               "Value for attr 'out_type' of %s is not in the list of allowed values: int32, int64",
               tr_dtype_tf_name(*out));
  return false;
}

/* A tensor of `n` values of `dtype` (int32 or int64); a rank of -1 is a scalar. */
static TrTensor *
index_tensor(TrDType dtype, const int64_t *values, int n)
{
  TrShape s = n < 0 ? tr_shape_scalar() : tr_shape_make(1, (int64_t[]){n});
  TrTensor *r = tr_tensor_new(dtype, &s);
  for (int i = 0; i < (n < 0 ? 1 : n); i++) {
    if (dtype == TR_INT64)
      ((int64_t *)tr_tensor_data(r))[i] = values[i];
    else
      ((int32_t *)tr_tensor_data(r))[i] = (int32_t)values[i];
  }
  return r;
}

static PyObject *
unknown_shape_error(TfState *st, const char *fname, const TrShape *shape)
{
  g_autofree char *text = tr_shape_to_string(shape);
  PyErr_Format(st->errors[TF_ERROR_UNIMPLEMENTED],
               "tf.%s of a tensor of shape %s, not fully known while tracing, is not supported yet",
               fname, text);
  return NULL;
}

/* tf.shape: computed here from the static shape (a Const node while tracing, which needs it
 * fully known). */
static PyObject *
tf_shape(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  TrDType dt;
  TrShape shape;
  if (!index_dtype_arg(st, a[1], &dt) || !shape_of_arg(st, a[0], &shape))
    return NULL;
  if (!tr_shape_is_fully_defined(&shape))
    return unknown_shape_error(st, f->name, &shape);
  return constant_value(st, index_tensor(dt, shape.dims, shape.rank), name_arg(a[2], "Shape"));
}

/* tf.size: the element count, from the static shape like tf.shape. */
static PyObject *
tf_size(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  TrDType dt;
  TrShape shape;
  if (!index_dtype_arg(st, a[1], &dt) || !shape_of_arg(st, a[0], &shape))
    return NULL;
  if (!tr_shape_is_fully_defined(&shape))
    return unknown_shape_error(st, f->name, &shape);
  int64_t n = tr_shape_num_elements(&shape);
  return constant_value(st, index_tensor(dt, &n, -1), name_arg(a[2], "Size"));
}

/* tf.rank: an int32 scalar, from the static rank. */
static PyObject *
tf_rank(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  TrShape shape;
  if (!shape_of_arg(st, a[0], &shape))
    return NULL;
  if (shape.rank == TR_UNKNOWN)
    return unknown_shape_error(st, f->name, &shape);
  int64_t rank = shape.rank;
  return constant_value(st, index_tensor(TR_INT32, &rank, -1), name_arg(a[1], "Rank"));
}

/* ---- tf.nn ----------------------------------------------------------------------------------- */

static PyObject *
tf_relu(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  return apply1(st, TR_OP_RELU, a[0], NULL, name_arg(a[1], NULL));
}

static PyObject *
tf_softmax(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  if (!int_arg(st, a[1], "axis", -1, &attrs.axis))
    return NULL;
  return apply1(st, TR_OP_SOFTMAX, a[0], &attrs, name_arg(a[2], NULL));
}

/* conv2d strides: an int, [s], [sh, sw] or [1, sh, sw, 1]. */
static bool
conv_strides_arg(TfState *st, PyObject *v, int64_t strides[2])
{
  TrShape s;
  if (!shape_arg(st, v, "strides", &s))
    return false;
  if (s.rank == 1)
    strides[0] = strides[1] = s.dims[0];
  else if (s.rank == 2)
    strides[0] = s.dims[0], strides[1] = s.dims[1];
  else if (s.rank == 4)
    strides[0] = s.dims[1], strides[1] = s.dims[2];
  else {
    PyErr_Format(PyExc_ValueError, "strides should be of length 1, 2 or 4 but was %d", s.rank);
    return false;
  }
  return true;
}

static const struct {
  const char *name;
  TrPadding padding;
} paddings[] = {
    {"VALID", TR_PADDING_VALID},
    {"SAME", TR_PADDING_SAME},
};

static bool
padding_arg(PyObject *v, TrPadding *out)
{
  const char *p = PyUnicode_Check(v) ? PyUnicode_AsUTF8(v) : NULL;
  for (size_t i = 0; p && i < G_N_ELEMENTS(paddings); i++) {
    if (g_ascii_strcasecmp(p, paddings[i].name) == 0) {
      *out = paddings[i].padding;
      return true;
    }
  }
  PyErr_Clear(); /* a str that is not UTF-8 is as wrong as any other value */
  PyErr_Format(PyExc_ValueError,
               "padding must be one of SAME, VALID, EXPLICIT. Received: padding=%S", v);
  return false;
}

static PyObject *
tf_conv2d(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  if (!conv_strides_arg(st, a[2], attrs.strides) || !padding_arg(a[3], &attrs.padding))
    return NULL;
  if (given(a[4]) && PyUnicode_Check(a[4]) && PyUnicode_CompareWithASCIIString(a[4], "NHWC")) {
    PyErr_Format(st->errors[TF_ERROR_UNIMPLEMENTED],
                 "The Conv2D op currently only supports the NHWC tensor format on the CPU. The op "
                 "was given the format: %U",
                 a[4]);
    return NULL;
  }
  TfOperand in[2];
  if (!tf_operand_pair(st, a[0], a[1], &in[0], &in[1]))
    return NULL;
  return apply_n(st, TR_OP_CONV2D, in, 2, &attrs, name_arg(a[6], NULL));
}

/* ---- tf.random: the global seed and op counter ------------------------------------------------
 * As TensorFlow: an op's stream is fixed by the global seed (tf.random.set_seed, else a seed
 * drawn per session), its own `seed=` argument, and how many random ops ran since the global
 * seed was set (the counter), so that set_seed(s) followed by the same ops repeats them. */

/* The attrs of a random op but its seeds: dtype and the two parameters (minval and maxval, or
 * mean and stddev). a[1], a[2], a[3], a[4] are the two parameters, dtype and seed. */
static bool
random_attrs(TfState *st, bool normal, PyObject *const *a, TrAttrs *attrs)
{
  tr_attrs_init(attrs);
  int64_t op_seed;
  if (!tf_dtype_arg(st, a[3], TR_FLOAT32, &attrs->dtype) ||
      !int_arg(st, a[4], "seed", 0, &op_seed) ||
      !double_arg(st, a[1], normal ? "mean" : "minval", 0, &attrs->minval) ||
      !double_arg(st, a[2], normal ? "stddev" : "maxval", 1, &attrs->maxval))
    return false;
  attrs->seed = (uint64_t)op_seed;
  if (!normal && tr_dtype_is_int(attrs->dtype) && !given(a[2])) {
    PyErr_Format(PyExc_ValueError, "Must specify maxval for integer dtype <dtype: '%s'>",
                 tr_dtype_name(attrs->dtype));
    return false;
  }
  return true;
}

/* tf.random.uniform and tf.random.normal. */
static PyObject *
tf_random(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  TrAttrs attrs;
  if (!random_attrs(st, f->op == TR_OP_RANDOM_NORMAL, a, &attrs))
    return NULL;
  TfOperand dims;
  if (!dims_operand(st, a[0], "shape", &dims))
    return NULL;
  attrs.seed2 = (uint64_t)st->random_seed;
  attrs.counter = (uint64_t)st->random_counter++;
  return apply_n(st, f->op, &dims, 1, &attrs, name_arg(a[5], NULL));
}

/* A seed for the session when none is set: random, so that unseeded runs differ. */
static void
random_reset(TfState *st)
{
  st->random_seeded = false;
  st->random_seed = g_random_int();
  st->random_counter = 0;
}

static PyObject *
tf_random_set_seed(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  if (a[0] == Py_None) { /* TF: back to an unseeded session */
    random_reset(st);
    Py_RETURN_NONE;
  }
  int64_t seed;
  if (!int_arg(st, a[0], "seed", 0, &seed))
    return NULL;
  st->random_seeded = true;
  st->random_seed = seed;
  st->random_counter = 0;
  Py_RETURN_NONE;
}

/* ---- the table ------------------------------------------------------------------------------- */

static const char *const P_SHAPE_DTYPE[] = {"shape", "dtype", "name", NULL};
static const char *const P_FILL[] = {"dims", "value", "name", NULL};
static const char *const P_LIKE[] = {"input", "dtype", "name", NULL};
static const char *const P_RANGE[] = {"start", "limit", "delta", "dtype", "name", NULL};
static const char *const P_EYE[] = {"num_rows", "num_columns", "batch_shape",
                                    "dtype",    "name",        NULL};
static const char *const P_LINSPACE[] = {"start", "stop", "num", "name", "axis", NULL};
static const char *const P_CAST[] = {"x", "dtype", "name", NULL};
static const char *const P_MATMUL[] = {"a", "b", "transpose_a", "transpose_b", "name", NULL};
static const char *const P_ARG[] = {"input", "axis", "output_type", "name", NULL};
static const char *const P_TRANSPOSE[] = {"a", "perm", "conjugate", "name", NULL};
static const char *const P_RESHAPE[] = {"tensor", "shape", "name", NULL};
static const char *const P_JOIN[] = {"values", "axis", "name", NULL};
static const char *const P_AXIS[] = {"input", "axis", "name", NULL};
static const char *const P_WHERE[] = {"condition", "x", "y", "name", NULL};
static const char *const P_CLIP[] = {"t", "clip_value_min", "clip_value_max", "name", NULL};
static const char *const P_ONE_HOT[] = {"indices", "depth", "on_value", "off_value",
                                        "axis",    "dtype", "name",     NULL};
static const char *const P_GATHER[] = {
    "params", "indices", "validate_indices", "axis", "batch_dims", "name", NULL};
static const char *const P_SHAPE[] = {"input", "out_type", "name", NULL};
static const char *const P_RANK[] = {"input", "name", NULL};
static const char *const P_RELU[] = {"features", "name", NULL};
static const char *const P_SOFTMAX[] = {"logits", "axis", "name", NULL};
static const char *const P_CONV2D[] = {"input",       "filters",   "strides", "padding",
                                       "data_format", "dilations", "name",    NULL};
static const char *const P_UNIFORM[] = {"shape", "minval", "maxval", "dtype", "seed", "name", NULL};
static const char *const P_NORMAL[] = {"shape", "mean", "stddev", "dtype", "seed", "name", NULL};
static const char *const P_SEED[] = {"seed", NULL};

/* Every function: Python name, body, parameters, required count, op (IDENTITY for bodies that
 * read none), default node name (TF's functions name theirs "Add" where `x + y` says "add";
 * NULL: the op's), modules. */
#define TF_FUNCTION_LIST(X)                                                                        \
  /* elementwise, unary */                                                                         \
  X(abs, unary_body, P_UNARY, 1, ABS, NULL, IN_TF | IN_MATH)                                       \
  X(negative, unary_body, P_UNARY, 1, NEG, NULL, IN_TF | IN_MATH)                                  \
  X(square, unary_body, P_UNARY, 1, SQUARE, NULL, IN_TF | IN_MATH)                                 \
  X(sqrt, unary_body, P_UNARY, 1, SQRT, NULL, IN_TF | IN_MATH)                                     \
  X(exp, unary_body, P_UNARY, 1, EXP, NULL, IN_TF | IN_MATH)                                       \
  X(log, unary_body, P_UNARY, 1, LOG, NULL, IN_TF | IN_MATH)                                       \
  X(tanh, unary_body, P_UNARY, 1, TANH, NULL, IN_TF | IN_MATH)                                     \
  X(sigmoid, unary_body, P_UNARY, 1, SIGMOID, NULL, IN_TF | IN_MATH | IN_NN)                       \
  X(sin, unary_body, P_UNARY, 1, SIN, NULL, IN_TF | IN_MATH)                                       \
  X(cos, unary_body, P_UNARY, 1, COS, NULL, IN_TF | IN_MATH)                                       \
  X(logical_not, unary_body, P_UNARY, 1, LOGICAL_NOT, NULL, IN_TF | IN_MATH)                       \
  X(identity, unary_body, P_UNARY, 1, IDENTITY, NULL, IN_TF)                                       \
  /* elementwise, binary */                                                                        \
  X(add, binary_body, P_BINARY, 2, ADD, "Add", IN_TF | IN_MATH)                                    \
  X(subtract, binary_body, P_BINARY, 2, SUB, "Sub", IN_TF | IN_MATH)                               \
  X(multiply, binary_body, P_BINARY, 2, MUL, "Mul", IN_TF | IN_MATH)                               \
  X(divide, binary_body, P_BINARY, 2, DIV, "truediv", IN_TF | IN_MATH)                             \
  X(truediv, binary_body, P_BINARY, 2, DIV, "truediv", IN_TF | IN_MATH)                            \
  X(floordiv, binary_body, P_BINARY, 2, FLOORDIV, "floordiv", IN_TF | IN_MATH)                     \
  X(mod, binary_body, P_BINARY, 2, MOD, "FloorMod", IN_TF | IN_MATH)                               \
  X(floormod, binary_body, P_BINARY, 2, MOD, "FloorMod", IN_TF | IN_MATH)                          \
  X(pow, binary_body, P_BINARY, 2, POW, "Pow", IN_TF | IN_MATH)                                    \
  X(maximum, binary_body, P_BINARY, 2, MAXIMUM, "Maximum", IN_TF | IN_MATH)                        \
  X(minimum, binary_body, P_BINARY, 2, MINIMUM, "Minimum", IN_TF | IN_MATH)                        \
  X(equal, binary_body, P_BINARY, 2, EQUAL, "Equal", IN_TF | IN_MATH)                              \
  X(not_equal, binary_body, P_BINARY, 2, NOT_EQUAL, "NotEqual", IN_TF | IN_MATH)                   \
  X(greater, binary_body, P_BINARY, 2, GREATER, "Greater", IN_TF | IN_MATH)                        \
  X(greater_equal, binary_body, P_BINARY, 2, GREATER_EQUAL, "GreaterEqual", IN_TF | IN_MATH)       \
  X(less, binary_body, P_BINARY, 2, LESS, "Less", IN_TF | IN_MATH)                                 \
  X(less_equal, binary_body, P_BINARY, 2, LESS_EQUAL, "LessEqual", IN_TF | IN_MATH)                \
  X(logical_and, binary_body, P_BINARY, 2, LOGICAL_AND, "LogicalAnd", IN_TF | IN_MATH)             \
  X(logical_or, binary_body, P_BINARY, 2, LOGICAL_OR, "LogicalOr", IN_TF | IN_MATH)                \
  /* reductions */                                                                                 \
  X(reduce_sum, reduce_body, P_REDUCE, 1, SUM, NULL, IN_TF | IN_MATH)                              \
  X(reduce_mean, reduce_body, P_REDUCE, 1, MEAN, NULL, IN_TF | IN_MATH)                            \
  X(reduce_max, reduce_body, P_REDUCE, 1, MAX, NULL, IN_TF | IN_MATH)                              \
  X(reduce_min, reduce_body, P_REDUCE, 1, MIN, NULL, IN_TF | IN_MATH)                              \
  X(reduce_prod, reduce_body, P_REDUCE, 1, PROD, NULL, IN_TF | IN_MATH)                            \
  X(reduce_all, reduce_body, P_REDUCE, 1, ALL, NULL, IN_TF | IN_MATH)                              \
  X(reduce_any, reduce_body, P_REDUCE, 1, ANY, NULL, IN_TF | IN_MATH)                              \
  X(argmax, tf_arg_reduce, P_ARG, 1, ARGMAX, NULL, IN_TF | IN_MATH)                                \
  X(argmin, tf_arg_reduce, P_ARG, 1, ARGMIN, NULL, IN_TF | IN_MATH)                                \
  /* creation */                                                                                   \
  X(zeros, tf_zeros, P_SHAPE_DTYPE, 1, FILL, "zeros", IN_TF)                                       \
  X(ones, tf_ones, P_SHAPE_DTYPE, 1, FILL, "ones", IN_TF)                                          \
  X(fill, tf_fill, P_FILL, 2, FILL, NULL, IN_TF)                                                   \
  X(zeros_like, tf_like, P_LIKE, 1, ZEROS_LIKE, NULL, IN_TF)                                       \
  X(ones_like, tf_like, P_LIKE, 1, ONES_LIKE, NULL, IN_TF)                                         \
  X(range, tf_range, P_RANGE, 1, RANGE, NULL, IN_TF)                                               \
  X(eye, tf_eye, P_EYE, 1, EYE, NULL, IN_TF | IN_LINALG)                                           \
  X(linspace, tf_linspace, P_LINSPACE, 3, LINSPACE, NULL, IN_TF)                                   \
  X(cast, tf_cast, P_CAST, 2, CAST, NULL, IN_TF)                                                   \
  /* linear algebra, shapes, selection */                                                          \
  X(matmul, tf_matmul, P_MATMUL, 2, MATMUL, NULL, IN_TF | IN_LINALG)                               \
  X(transpose, tf_transpose, P_TRANSPOSE, 1, TRANSPOSE, NULL, IN_TF)                               \
  X(reshape, tf_reshape, P_RESHAPE, 2, RESHAPE, NULL, IN_TF)                                       \
  X(concat, tf_join, P_JOIN, 2, CONCAT, NULL, IN_TF)                                               \
  X(stack, tf_join, P_JOIN, 1, STACK, NULL, IN_TF)                                                 \
  X(squeeze, tf_squeeze, P_AXIS, 1, SQUEEZE, NULL, IN_TF)                                          \
  X(expand_dims, tf_expand_dims, P_AXIS, 2, EXPAND_DIMS, NULL, IN_TF)                              \
  X(where, tf_where, P_WHERE, 1, SELECT, NULL, IN_TF)                                              \
  X(clip_by_value, tf_clip_by_value, P_CLIP, 3, CLIP_BY_VALUE, NULL, IN_TF)                        \
  X(one_hot, tf_one_hot, P_ONE_HOT, 2, ONE_HOT, NULL, IN_TF)                                       \
  X(gather, tf_gather, P_GATHER, 2, GATHER, NULL, IN_TF)                                           \
  X(shape, tf_shape, P_SHAPE, 1, IDENTITY, NULL, IN_TF)                                            \
  X(size, tf_size, P_SHAPE, 1, IDENTITY, NULL, IN_TF)                                              \
  X(rank, tf_rank, P_RANK, 1, IDENTITY, NULL, IN_TF)                                               \
  /* tf.nn */                                                                                      \
  X(relu, tf_relu, P_RELU, 1, RELU, NULL, IN_NN)                                                   \
  X(softmax, tf_softmax, P_SOFTMAX, 1, SOFTMAX, NULL, IN_NN | IN_MATH)                             \
  X(conv2d, tf_conv2d, P_CONV2D, 4, CONV2D, NULL, IN_NN)                                           \
  /* tf.random */                                                                                  \
  X(uniform, tf_random, P_UNIFORM, 1, RANDOM_UNIFORM, NULL, IN_RANDOM)                             \
  X(normal, tf_random, P_NORMAL, 1, RANDOM_NORMAL, NULL, IN_RANDOM)                                \
  X(set_seed, tf_random_set_seed, P_SEED, 1, IDENTITY, NULL, IN_RANDOM)

#define FUNCTION_ENUM(nm, body, params, n_required, op, node, modules) FN_##nm,
enum { TF_FUNCTION_LIST(FUNCTION_ENUM) N_FUNCTIONS };
#undef FUNCTION_ENUM

#define FUNCTION_ROW(nm, body, params, n_required, op, node, modules)                              \
  [FN_##nm] = {#nm, body, params, n_required, TR_OP_##op, node, modules},
static const OpsFunction functions[N_FUNCTIONS] = {TF_FUNCTION_LIST(FUNCTION_ROW)};
#undef FUNCTION_ROW

/* Binds a call's arguments to row `i` and runs its body. */
static PyObject *
call_function(int i, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  const OpsFunction *f = &functions[i];
  PyObject *a[MAX_PARAMS];
  if (!tf_parse_args(f->name, args, nargs, kwnames, f->params, f->n_required, a))
    return NULL;
  return f->body(tf_state(), f, a);
}

/* Each row's C entry point: the row it stands for is all it adds to call_function. */
#define FUNCTION_ENTRY(nm, body, params, n_required, op, node, modules)                            \
  static PyObject *entry_##nm(PyObject *self, PyObject *const *args, Py_ssize_t nargs,             \
                              PyObject *kwnames)                                                   \
  {                                                                                                \
    return call_function(FN_##nm, args, nargs, kwnames);                                           \
  }
TF_FUNCTION_LIST(FUNCTION_ENTRY)
#undef FUNCTION_ENTRY

/* The method definitions of the rows; their docs (text signatures) are filled on first init. A
 * function object keeps a pointer to its definition, so they live as long as the process. */
#define FUNCTION_DEF(nm, body, params, n_required, op, node, modules)                              \
  [FN_##nm] = {#nm, (PyCFunction)(void (*)(void))entry_##nm, METH_FASTCALL | METH_KEYWORDS, NULL},
static PyMethodDef function_defs[N_FUNCTIONS] = {TF_FUNCTION_LIST(FUNCTION_DEF)};
#undef FUNCTION_DEF

/* A row's __text_signature__ ("zeros(shape, dtype=None, name=None)\n--\n\n"), so that
 * inspect.signature and help() show the parameters. Every default reads None: the binder treats
 * None as omitted. Transfer full (kept by function_defs for the process's life). */
static char *
text_signature(const OpsFunction *f)
{
  GString *s = g_string_new(f->name);
  g_string_append_c(s, '(');
  for (int i = 0; f->params[i]; i++)
    g_string_append_printf(s, "%s%s%s", i ? ", " : "", f->params[i],
                           i < f->n_required ? "" : "=None");
  g_string_append(s, ")\n--\n\n");
  return g_string_free(s, false);
}

static void
function_docs_fill(void)
{
  if (function_defs[0].ml_doc)
    return;
  for (int i = 0; i < N_FUNCTIONS; i++) {
    g_assert(n_params(&functions[i]) <= MAX_PARAMS &&
             functions[i].n_required <= n_params(&functions[i]));
    function_defs[i].ml_doc = text_signature(&functions[i]);
  }
}

/* The module attributes a row's IN_* bits name. */
static const struct {
  unsigned bit;
  size_t offset; /* of the module in TfState */
} homes[] = {
    {IN_TF, offsetof(TfState, module)},         {IN_MATH, offsetof(TfState, mod_math)},
    {IN_NN, offsetof(TfState, mod_nn)},         {IN_RANDOM, offsetof(TfState, mod_random)},
    {IN_LINALG, offsetof(TfState, mod_linalg)},
};

int
tf_ops_init(PyObject *module, TfState *st)
{
  random_reset(st);
  PyObject *module_name = PyModule_GetNameObject(module); /* owned */
  if (!module_name)
    return -1;
  function_docs_fill();
  for (int i = 0; i < N_FUNCTIONS; i++) {
    const OpsFunction *f = &functions[i];
    PyObject *fn = PyCFunction_NewEx(&function_defs[i], NULL, module_name); /* owned */
    if (!fn) {
      Py_DECREF(module_name);
      return -1;
    }
    /* One function object in every module that holds it: tf.add is tf.math.add. */
    for (size_t h = 0; h < G_N_ELEMENTS(homes); h++) {
      PyObject *home = *(PyObject **)((char *)st + homes[h].offset); /* borrowed */
      if ((f->modules & homes[h].bit) && PyModule_AddObjectRef(home, f->name, fn) < 0) {
        Py_DECREF(fn);
        Py_DECREF(module_name);
        return -1;
      }
    }
    Py_DECREF(fn);
  }
  Py_DECREF(module_name);
  return 0;
}

void
tf_ops_clear(TfState *st)
{
  /* The functions are the modules' attributes, dropped with them; the random state is plain
   * data. */
}
