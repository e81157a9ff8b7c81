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
 *
 * A few functions compose several ops, as TensorFlow's own Python wrappers do: tf.norm,
 * tf.nn.leaky_relu, tf.split and tf.unstack (one StridedSlice per piece: a Trellis op has one
 * output) and tf.einsum (products and sums; variadic, so it has its own entry point).
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

/* Whether `v`, a graph value, has no value known while tracing (neither a constant nor one
 * that folds). False with an exception set for a tensor of another graph. */
static bool
graph_value_unknown(TfState *st, PyObject *v, bool *unknown)
{
  *unknown = true;
  if (!tf_is_symbolic(st, v))
    return true; /* a Variable: read when the function runs */
  TfOperand o;   /* raises TypeError for a tensor of a graph that is not being built */
  if (!tf_operand(st, v, TR_DTYPE_INVALID, true, &o))
    return false;
  tf_operand_clear(&o);
  g_autoptr(TrTensor) known = tf_static_value(st, v);
  if (!known)
    known = fold_output(tf_symbolic_output(v), FOLD_DEPTH);
  *unknown = known == NULL;
  return true;
}

/* Whether a list or tuple of dims holds one whose value is only known when the graph runs
 * ([tf.shape(x)[0] * 2, 3]): TensorFlow packs such a list into a tensor. */
static bool
dims_list_unknown(TfState *st, PyObject *v, bool *unknown)
{
  *unknown = false;
  if (!PyList_Check(v) && !PyTuple_Check(v))
    return true;
  PyObject *items = PySequence_Tuple(v); /* owned: __index__ of an item may change a list */
  if (!items)
    return false;
  bool ok = true;
  for (Py_ssize_t i = 0; ok && !*unknown && i < PyTuple_GET_SIZE(items); i++) {
    PyObject *item = PyTuple_GET_ITEM(items, i);
    if (is_graph_value(st, item))
      ok = graph_value_unknown(st, item, unknown);
  }
  Py_DECREF(items);
  return ok;
}

/* What a list of dims with values only known when the graph runs tells of the shape it gives:
 * its length, and each dim known now (a Python int, a tensor that folds to a constant), as
 * TensorFlow's shape inference reads a packed shape. `minus_one` (Reshape's -1) is unknown too.
 * The result `r` (a symbolic tensor) is given that shape where it knew less; anything else is
 * left alone. Returns r. */
static PyObject *
refine_by_dims_list(TfState *st, PyObject *r, PyObject *dims)
{
  if (!r || !tf_is_symbolic(st, r) || !(PyList_Check(dims) || PyTuple_Check(dims)))
    return r;
  PyObject *items = PySequence_Tuple(dims); /* owned */
  if (!items) {
    PyErr_Clear();
    return r;
  }
  if (PyTuple_GET_SIZE(items) > TR_MAX_RANK) {
    Py_DECREF(items);
    return r;
  }
  TrShape s = {.rank = (int)PyTuple_GET_SIZE(items)};
  for (int d = 0; d < s.rank; d++) {
    PyObject *item = PyTuple_GET_ITEM(items, d);
    s.dims[d] = TR_UNKNOWN;
    if (PyLong_Check(item)) {
      int64_t v = PyLong_AsLongLong(item);
      s.dims[d] = v >= 0 ? v : TR_UNKNOWN;
      PyErr_Clear();
    } else if (tf_is_symbolic(st, item)) {
      g_autoptr(TrTensor) known = tf_static_value(st, item);
      if (!known)
        known = fold_output(tf_symbolic_output(item), FOLD_DEPTH);
      if (known && known->shape.rank == 0 && tr_dtype_is_int(known->dtype) &&
          tr_tensor_get_i64(known, 0) >= 0)
        s.dims[d] = tr_tensor_get_i64(known, 0);
    }
  }
  Py_DECREF(items);
  TrOutput out = tf_symbolic_output(r);
  tr_node_refine_shape(out.node, out.index, &s, NULL); /* derived from the op's own sizes */
  return r;
}

/* A shape argument as that input: a static shape, or while tracing any int tensor or list of
 * dims with tensors among them (the op then infers a partial shape). */
static bool
dims_operand(TfState *st, PyObject *v, const char *what, TfOperand *out)
{
  if (tf_trace(st)) {
    bool unknown;
    if (!dims_list_unknown(st, v, &unknown))
      return false;
    if (unknown)
      return graph_dims_operand(st, v, out);
  }
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
  return refine_by_dims_list(st, apply_n(st, TR_OP_FILL, in, 2, NULL, name_arg(a[2], f->node)),
                             a[0]);
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
  return refine_by_dims_list(st, apply_n(st, TR_OP_FILL, in, 2, NULL, name_arg(a[2], NULL)), a[0]);
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
  /* Integer bounds give float64 values: TF's linspace_nd recasts them to its step's dtype, the
   * truediv of two integers. */
  bool ints = tr_dtype_is_int(in[0].dtype) && in[1].dtype == in[0].dtype;
  if ((ints && !(cast_operand(st, &in[0], TR_FLOAT64) && cast_operand(st, &in[1], TR_FLOAT64))) ||
      !operand_arg(st, a[2], TR_INT32, &in[2])) {
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

/* Reshape, Tile and BroadcastTo of `x` to `sizes` when, while tracing, the sizes are only known
 * when the graph runs: the op with the sizes as its second input. *done is FALSE (and nothing
 * happened) for sizes known now. */
static PyObject *
apply_runtime_sizes(TfState *st, TrOpId op, PyObject *x, PyObject *sizes, const char *name,
                    bool *done)
{
  bool unknown = false;
  *done = false;
  if (tf_trace(st) &&
      (!dims_list_unknown(st, sizes, &unknown) ||
       (!unknown && is_graph_value(st, sizes) && !graph_value_unknown(st, sizes, &unknown))))
    return NULL;
  if (!unknown)
    return NULL;
  *done = true;
  TfOperand in[2];
  if (!operand_arg(st, x, TR_DTYPE_INVALID, &in[0]))
    return NULL;
  if (!graph_dims_operand(st, sizes, &in[1])) {
    tf_operand_clear(&in[0]);
    return NULL;
  }
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  PyObject *r = apply_n(st, op, in, 2, &attrs, name);
  return op == TR_OP_TILE ? r : refine_by_dims_list(st, r, sizes); /* multiples are not dims */
}

static PyObject *
tf_reshape(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  bool done;
  PyObject *r = apply_runtime_sizes(st, TR_OP_RESHAPE, a[0], a[1], name_arg(a[2], NULL), &done);
  if (done || PyErr_Occurred())
    return r;
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
  if (given(a[1]) != given(a[2])) {
    PyErr_SetString(PyExc_ValueError, "x and y must both be non-None or both be None.");
    return NULL;
  }
  if (!given(a[1]))
    return apply1(st, TR_OP_WHERE, a[0], NULL, name_arg(a[3], "Where"));
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

/* A Shape, Size or Rank node for a value whose shape is known only when the graph runs. */
static PyObject *
shape_node(TfState *st, TrOpId op, PyObject *x, TrDType dt, const char *name)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.dtype = dt;
  return apply1(st, op, x, &attrs, name);
}

/* tf.shape: the static shape as a constant when it is fully known (always, eagerly); a Shape
 * node otherwise. */
static PyObject *
tf_shape(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  TrDType dt;
  TrShape shape;
  if (!index_dtype_arg(st, a[1], &dt) || !shape_of_arg(st, a[0], &shape))
    return NULL;
  if (!tr_shape_is_fully_defined(&shape))
    return shape_node(st, TR_OP_SHAPE, a[0], dt, name_arg(a[2], "Shape"));
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
    return shape_node(st, TR_OP_SIZE, a[0], dt, name_arg(a[2], "Size"));
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
    return shape_node(st, TR_OP_RANK, a[0], TR_INT32, name_arg(a[1], "Rank"));
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
  return refine_by_dims_list(st, apply_n(st, f->op, &dims, 1, &attrs, name_arg(a[5], NULL)), a[0]);
}

/* tf.random.stateless_uniform and stateless_normal: the stream of the seed pair `seed` (a shape
 * [2] integer value known while tracing), the same at every call and every run. Arguments
 * (shape, seed, minval/mean, maxval/stddev, dtype, name, alg) are put in tf.random.uniform's
 * order for random_attrs. */
static PyObject *
tf_stateless_random(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  bool normal = f->op == TR_OP_STATELESS_RANDOM_NORMAL;
  PyObject *as_uniform[6] = {a[0], a[2], a[3], a[4], NULL, a[5]};
  TrAttrs attrs;
  if (!random_attrs(st, normal, as_uniform, &attrs))
    return NULL;
  g_autoptr(TrTensor) seed = NULL;
  if (is_tensor_like(st, a[1]))
    seed = static_tensor(st, a[1], "seed");
  else if (tf_convertible(st, a[1]))
    seed = tf_convert(st, a[1], TR_INT64, true);
  else
    PyErr_Format(PyExc_TypeError, "seed must be a shape [2] integer tensor, not %R", a[1]);
  if (!seed)
    return NULL;
  if (!tr_dtype_is_int(seed->dtype) || seed->shape.rank != 1 || seed->shape.dims[0] != 2) {
    g_autofree char *s = tr_shape_to_error_string(&seed->shape);
    GError *error = NULL; /* TensorFlow's kernel text, with its op */
    g_set_error(&error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
                "seed must have shape [2], not %s [Op:StatelessRandomGetKeyCounter]", s);
    return tf_raise_error(st, error);
  }
  attrs.seed = (uint64_t)tr_tensor_get_i64(seed, 0);
  attrs.seed2 = (uint64_t)tr_tensor_get_i64(seed, 1);
  attrs.counter = 0;
  TfOperand dims;
  if (!dims_operand(st, a[0], "shape", &dims))
    return NULL;
  return refine_by_dims_list(st, apply_n(st, f->op, &dims, 1, &attrs, name_arg(a[5], NULL)), a[0]);
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

/* ---- activations --------------------------------------------------------------------------- */

/* tf.nn.leaky_relu: x where x > 0, else alpha * x. Integers are cast to float32 first, as TF's
 * wrapper does. */
static PyObject *
tf_leaky_relu(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  double alpha;
  if (!double_arg(st, a[1], "alpha", 0.2, &alpha))
    return NULL;
  TfOperand in[3];
  memset(in, 0, sizeof in);
  if (!operand_arg(st, a[0], TR_DTYPE_INVALID, &in[1]))
    return NULL;
  bool ok = !tr_dtype_is_int(in[1].dtype) || cast_operand(st, &in[1], TR_FLOAT32);
  TfOperand zero, scale, scaled;
  memset(&zero, 0, sizeof zero);
  memset(&scale, 0, sizeof scale);
  memset(&scaled, 0, sizeof scaled);
  g_autoptr(TrTensor) z = tr_tensor_new_float64(0), s = tr_tensor_new_float64(alpha);
  GError *error = NULL;
  TrTensor *zc = ok ? tr_cast(z, in[1].dtype, &error) : NULL;
  TrTensor *sc = zc ? tr_cast(s, in[1].dtype, &error) : NULL;
  if (ok && !sc) {
    if (zc)
      tr_tensor_unref(zc);
    tf_operand_clear(&in[1]);
    return tf_raise_error(st, error);
  }
  ok = ok && tf_operand_from_tensor(st, zc, &zero) && tf_operand_from_tensor(st, sc, &scale);
  TfOperand gt_in[2] = {in[1], zero}, mul_in[2] = {scale, in[1]};
  ok = ok && tf_apply_operand(st, TR_OP_GREATER, gt_in, 2, NULL, NULL, &in[0]) &&
       tf_apply_operand(st, TR_OP_MUL, mul_in, 2, NULL, NULL, &scaled);
  PyObject *r = NULL;
  if (ok) {
    in[2] = scaled;
    memset(&scaled, 0, sizeof scaled);
    r = tf_apply(st, TR_OP_SELECT, in, 3, NULL, name_arg(a[2], "LeakyRelu"));
  }
  tf_operands_clear(in, 3);
  tf_operand_clear(&zero);
  tf_operand_clear(&scale);
  tf_operand_clear(&scaled);
  return r;
}

/* ---- tiling, broadcasting, reversing, sorting ------------------------------------------------ */

/* tf.tile and tf.broadcast_to: a static shape-like argument as the op's attrs.axes. */
static PyObject *
tf_shaped(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  bool done;
  PyObject *r = apply_runtime_sizes(st, f->op, a[0], a[1], name_arg(a[2], NULL), &done);
  if (done || PyErr_Occurred())
    return r;
  TrShape s;
  if (!shape_arg(st, a[1], f->op == TR_OP_TILE ? "multiples" : "shape", &s))
    return NULL;
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.n_axes = s.rank;
  memcpy(attrs.axes, s.dims, sizeof(int64_t) * (size_t)s.rank);
  return apply1(st, f->op, a[0], &attrs, name_arg(a[2], NULL));
}

static PyObject *
tf_reverse(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  if (!axes_arg(st, a[1], "axis", attrs.axes, &attrs.n_axes))
    return NULL;
  if (attrs.n_axes < 0)
    attrs.n_axes = 0;
  return apply1(st, TR_OP_REVERSE, a[0], &attrs, name_arg(a[2], NULL));
}

/* tf.sort and tf.argsort: `direction` is checked first, then the axis, as TF's wrapper does. */
static PyObject *
tf_sort(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  PyObject *dir = a[2];
  if (given(dir)) {
    bool asc = PyUnicode_Check(dir) && PyUnicode_CompareWithASCIIString(dir, "ASCENDING") == 0;
    attrs.descending =
        PyUnicode_Check(dir) && PyUnicode_CompareWithASCIIString(dir, "DESCENDING") == 0;
    if (!asc && !attrs.descending) {
      PyErr_Format(PyExc_ValueError,
                   "Argument `direction` should be one of ASCENDING, DESCENDING. Received: "
                   "direction=%S",
                   dir);
      return NULL;
    }
  }
  if (!int_arg(st, a[1], "axis", -1, &attrs.axis))
    return NULL;
  const char *name = name_arg(f->op == TR_OP_ARGSORT ? a[4] : a[3], NULL);
  TfOperand o;
  if (!operand_arg(st, a[0], TR_DTYPE_INVALID, &o))
    return NULL;
  /* TF's sort_ops.py reads the axis' length as tf.shape(values)[axis] before sorting, so an
   * axis out of range fails there, eagerly as the StridedSlice of that shape vector. */
  int rank = o.shape.rank;
  if (!tf_trace(st) && rank != TR_UNKNOWN && (attrs.axis >= rank || attrs.axis < -rank)) {
    PyErr_Format(st->errors[TF_ERROR_INVALID_ARGUMENT],
                 "slice index %lld of dimension 0 out of bounds. [Op:StridedSlice]",
                 (long long)attrs.axis);
    tf_operand_clear(&o);
    return NULL;
  }
  PyObject *r = tf_apply(st, f->op, &o, 1, &attrs, name);
  tf_operand_clear(&o);
  return r;
}

/* ---- tf.norm ----------------------------------------------------------------------------------
 * TF's linalg_ops.norm, composed of its ops: sqrt(sum(x * x)) for 'euclidean', 'fro' and 2,
 * sum(|x|) and max(|x|) (for matrices over each axis in turn) for 1 and inf, (sum(|x|^p))^(1/p)
 * otherwise; reduced with keepdims, then squeezed unless keepdims. */

typedef enum {
  NORM_EUCLIDEAN,
  NORM_ONE,
  NORM_INF,
  NORM_P,
} NormKind;

/* The `ord` argument: its kind (and p), or a ValueError with TF's text. */
static bool
norm_ord(PyObject *ord, bool matrix, NormKind *kind, double *p)
{
  const char *what = matrix ? "matrix" : "vector";
  if (!given(ord)) {
    *kind = NORM_EUCLIDEAN;
    return true;
  }
  if (PyUnicode_Check(ord)) {
    bool euclid = PyUnicode_CompareWithASCIIString(ord, "euclidean") == 0;
    bool fro = PyUnicode_CompareWithASCIIString(ord, "fro") == 0;
    if (euclid || (fro && matrix)) {
      *kind = NORM_EUCLIDEAN;
      return true;
    }
  } else if (PyNumber_Check(ord) && !PyBool_Check(ord)) {
    *p = PyFloat_AsDouble(ord);
    if (*p == -1.0 && PyErr_Occurred())
      return false;
    bool ok = matrix ? (*p == 1 || *p == 2 || isinf(*p)) : *p > 0;
    if (ok) {
      *kind = *p == 1 ? NORM_ONE : isinf(*p) ? NORM_INF : *p == 2 ? NORM_EUCLIDEAN : NORM_P;
      if (matrix && *p == 2) {
        PyErr_SetString(tf_state()->errors[TF_ERROR_UNIMPLEMENTED],
                        "tf.norm with ord=2 over a matrix (its largest singular value) is not "
                        "supported yet");
        return false;
      }
      return true;
    }
  }
  if (matrix)
    PyErr_Format(PyExc_ValueError,
                 "'ord' must be a supported matrix norm in ['euclidean', 'fro', 1, 2, inf], got %S",
                 ord);
  else
    PyErr_Format(PyExc_ValueError, "'ord' must be a supported %s norm, got %S", what, ord);
  return false;
}

/* The `axis` argument: none (n = -1), one axis or a pair of distinct ones. */
static bool
norm_axes(PyObject *axis, int64_t *axes, int *n)
{
  *n = -1;
  if (!given(axis))
    return true;
  if (PyLong_Check(axis)) {
    *n = 1;
    return index_arg(axis, &axes[0]);
  }
  bool pair = (PyList_Check(axis) || PyTuple_Check(axis)) && PySequence_Size(axis) == 2;
  if (pair) {
    PyObject *t = PySequence_Tuple(axis); /* owned */
    if (!t)
      return false;
    bool ints = PyLong_Check(PyTuple_GET_ITEM(t, 0)) && PyLong_Check(PyTuple_GET_ITEM(t, 1));
    bool ok = ints && index_arg(PyTuple_GET_ITEM(t, 0), &axes[0]) &&
              index_arg(PyTuple_GET_ITEM(t, 1), &axes[1]);
    Py_DECREF(t);
    if (ints && !ok)
      return false;
    if (ok && axes[0] != axes[1]) {
      *n = 2;
      return true;
    }
  }
  PyErr_Format(PyExc_ValueError,
               "'axis' must be None, an integer, or a tuple of 2 unique integers, got %S", axis);
  return false;
}

/* r = op(x) over `axes` with keepdims, replacing x (which the caller clears either way). */
static bool
norm_step(TfState *st, TrOpId op, TfOperand *x, const int64_t *axes, int n)
{
  TrAttrs attrs;
  TfOperand r;
  if (op == TR_OP_SUM || op == TR_OP_MAX)
    reduce_attrs(axes, n, x->shape.rank, true, &attrs);
  else
    tr_attrs_init(&attrs);
  if (!tf_apply_operand(st, op, x, 1, &attrs, NULL, &r))
    return false;
  tf_operand_clear(x);
  *x = r;
  return true;
}

static bool
norm_binary(TfState *st, TrOpId op, TfOperand *x, double v)
{
  g_autoptr(TrTensor) s = tr_tensor_new_float64(v);
  GError *error = NULL;
  TrTensor *c = tr_cast(s, x->dtype, &error);
  if (!c)
    return tf_raise_error(st, error), false;
  TfOperand in[2] = {*x};
  if (!tf_operand_from_tensor(st, c, &in[1]))
    return false;
  TfOperand r;
  bool ok = tf_apply_operand(st, op, in, 2, NULL, NULL, &r);
  tf_operand_clear(&in[1]);
  if (ok) {
    tf_operand_clear(x);
    *x = r;
  }
  return ok;
}

static PyObject *
tf_norm(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  int64_t axes[2];
  int n;
  NormKind kind;
  double p = 2;
  bool keep;
  if (!norm_axes(a[2], axes, &n) || !norm_ord(a[1], n == 2, &kind, &p) || !bool_arg(a[3], &keep))
    return NULL;
  TfOperand x;
  if (!operand_arg(st, a[0], TR_DTYPE_INVALID, &x))
    return NULL;
  bool ok = true;
  const int64_t *all = n < 0 ? NULL : axes;
  switch (kind) {
    case NORM_EUCLIDEAN: {
      TfOperand sq_in[2] = {x, x}, sq;
      ok = tf_apply_operand(st, TR_OP_MUL, sq_in, 2, NULL, NULL, &sq);
      tf_operand_clear(&x);
      x = sq;
      ok = ok && norm_step(st, TR_OP_SUM, &x, all, n) && norm_step(st, TR_OP_SQRT, &x, NULL, 0);
      break;
    }
    case NORM_ONE:
    case NORM_INF: {
      /* A matrix's 1-norm is the largest column sum, its inf-norm the largest row sum. */
      ok = norm_step(st, TR_OP_ABS, &x, NULL, 0);
      TrOpId first = kind == NORM_ONE ? TR_OP_SUM : TR_OP_MAX;
      if (n == 2) {
        int64_t sum_axis = kind == NORM_ONE ? axes[0] : axes[1];
        int64_t max_axis = kind == NORM_ONE ? axes[1] : axes[0];
        ok = ok && norm_step(st, TR_OP_SUM, &x, &sum_axis, 1) &&
             norm_step(st, TR_OP_MAX, &x, &max_axis, 1);
      } else {
        ok = ok && norm_step(st, first, &x, all, n);
      }
      break;
    }
    case NORM_P:
      ok = norm_step(st, TR_OP_ABS, &x, NULL, 0) && norm_binary(st, TR_OP_POW, &x, p) &&
           norm_step(st, TR_OP_SUM, &x, all, n) && norm_binary(st, TR_OP_POW, &x, 1.0 / p);
      break;
  }
  if (ok && !keep) {
    TrAttrs sq;
    tr_attrs_init(&sq);
    if (n > 0) {
      sq.n_axes = n;
      memcpy(sq.axes, axes, sizeof(int64_t) * (size_t)n);
    }
    TfOperand r;
    ok = tf_apply_operand(st, TR_OP_SQUEEZE, &x, 1, &sq, NULL, &r);
    if (ok) {
      tf_operand_clear(&x);
      x = r;
    }
  }
  if (!ok) {
    tf_operand_clear(&x);
    return NULL;
  }
  return tf_operand_to_value(st, &x);
}

/* ---- tf.split and tf.unstack ------------------------------------------------------------------
 * Each piece is a StridedSlice of the value along the axis (TensorFlow's Split, SplitV and
 * Unpack have one output per piece; a Trellis op has one output, so a piece is one node). */

/* x[..., begin:end, ...] along `axis` of a rank-`rank` operand; with `shrink`, x[..., begin, ...].
 */
static PyObject *
slice_piece(TfState *st, const TfOperand *x, int rank, int64_t axis, int64_t begin, int64_t end,
            bool shrink, const char *name)
{
  int64_t b[TR_MAX_RANK] = {0}, e[TR_MAX_RANK] = {0}, s[TR_MAX_RANK];
  for (int i = 0; i < rank; i++)
    s[i] = 1;
  b[axis] = begin;
  e[axis] = end;
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  uint32_t others = (uint32_t)((1ull << rank) - 1) & ~(1u << axis);
  attrs.begin_mask = others;
  attrs.end_mask = others;
  attrs.shrink_axis_mask = shrink ? 1u << axis : 0;
  TrShape vec = tr_shape_make(1, (int64_t[]){rank});
  TfOperand in[4] = {*x};
  bool ok = true;
  const int64_t *parts[3] = {b, e, s};
  int made = 1;
  for (int i = 0; ok && i < 3; i++, made++)
    ok = tf_operand_from_tensor(st, tr_tensor_new_from_data(TR_INT64, &vec, parts[i]), &in[1 + i]);
  PyObject *r = ok ? tf_apply(st, TR_OP_STRIDED_SLICE, in, 4, &attrs, name) : NULL;
  for (int i = 1; i < made && i < 4; i++)
    tf_operand_clear(&in[i]);
  return r;
}

/* The axis of a split or unstack as an index, with the value's static size along it. */
static bool
piece_axis(TfState *st, const TfOperand *x, PyObject *axis_arg, int64_t dflt, bool unstack,
           int64_t *axis, int64_t *size)
{
  int64_t axis_v;
  if (!int_arg(st, axis_arg, "axis", dflt, &axis_v))
    return false;
  int rank = x->shape.rank;
  if (rank == TR_UNKNOWN) {
    PyErr_Format(st->errors[TF_ERROR_UNIMPLEMENTED],
                 "tf.%s of a tensor of unknown rank is not supported yet",
                 unstack ? "unstack" : "split");
    return false;
  }
  if (unstack && rank == 0) {
    PyErr_SetString(PyExc_ValueError, "Cannot unstack a scalar: it has no first dimension");
    return false;
  }
  if (axis_v < -rank || axis_v >= rank) {
    if (unstack)
      PyErr_Format(PyExc_ValueError, "Argument `axis` = %lld not in range [%d, %d)",
                   (long long)axis_v, -rank, rank);
    else
      PyErr_Format(tf_trace(st) ? PyExc_ValueError : st->errors[TF_ERROR_INVALID_ARGUMENT],
                   "-input rank(-%d) <= split_dim < input rank (%d), but got %lld", rank, rank,
                   (long long)axis_v);
    return false;
  }
  *axis = axis_v < 0 ? axis_v + rank : axis_v;
  *size = x->shape.dims[*axis];
  return true;
}

/* " [Op:Split]" (or SplitV) after an eager split's error, as TF's eager errors end; nothing
 * while tracing. */
static const char *
op_suffix(TfState *st, const char *type)
{
  if (tf_trace(st))
    return "";
  return strcmp(type, "SplitV") == 0 ? " [Op:SplitV]" : " [Op:Split]";
}

/* The sizes of tf.split's pieces: `n` equal ones, or a list with at most one -1. Transfer full,
 * or NULL with an exception set. */
static int64_t *
split_sizes(TfState *st, PyObject *v, int64_t total, int64_t axis, int *n_out)
{
  if (PyLong_Check(v)) {
    int64_t n;
    if (!index_arg(v, &n))
      return NULL;
    if (n <= 0) {
      PyErr_Format(tf_trace(st) ? PyExc_ValueError : st->errors[TF_ERROR_INVALID_ARGUMENT],
                   "Number of ways to split should be > 0, but got %lld%s", (long long)n,
                   op_suffix(st, "Split"));
      return NULL;
    }
    if (total != TR_UNKNOWN && total % n != 0) {
      PyErr_Format(tf_trace(st) ? PyExc_ValueError : st->errors[TF_ERROR_INVALID_ARGUMENT],
                   "Number of ways to split should evenly divide the split dimension, but got "
                   "split_dim %lld (size = %lld) and num_split %lld%s",
                   (long long)axis, (long long)total, (long long)n, op_suffix(st, "Split"));
      return NULL;
    }
    if (total == TR_UNKNOWN || n > INT_MAX / 2) {
      PyErr_SetString(st->errors[TF_ERROR_UNIMPLEMENTED],
                      "tf.split along a dimension not known while tracing is not supported yet");
      return NULL;
    }
    int64_t *sizes = g_new(int64_t, n);
    for (int64_t i = 0; i < n; i++)
      sizes[i] = total / n;
    *n_out = (int)n;
    return sizes;
  }
  TrShape s;
  if (!shape_arg(st, v, "num_or_size_splits", &s))
    return NULL;
  if (total == TR_UNKNOWN) {
    PyErr_SetString(st->errors[TF_ERROR_UNIMPLEMENTED],
                    "tf.split along a dimension not known while tracing is not supported yet");
    return NULL;
  }
  int64_t known = 0;
  int unknown_at = -1;
  for (int i = 0; i < s.rank; i++) {
    if (s.dims[i] == -1 && unknown_at < 0)
      unknown_at = i;
    else
      known += s.dims[i];
  }
  bool fits = unknown_at < 0 ? known == total : known <= total;
  if (!fits) {
    PyErr_Format(tf_trace(st) ? PyExc_ValueError : st->errors[TF_ERROR_INVALID_ARGUMENT],
                 "Determined shape must either match input shape along split_dim exactly if fully "
                 "specified, or be less than the size of the input along split_dim if not fully "
                 "specified.  Got: %lld%s",
                 (long long)known, op_suffix(st, "SplitV"));
    return NULL;
  }
  int64_t *sizes = g_new(int64_t, MAX(s.rank, 1));
  memcpy(sizes, s.dims, sizeof(int64_t) * (size_t)s.rank);
  if (unknown_at >= 0)
    sizes[unknown_at] = total - known;
  *n_out = s.rank;
  return sizes;
}

/* A list of `n` pieces made by `piece`. */
static PyObject *
pieces_list(TfState *st, const TfOperand *x, int64_t axis, const int64_t *sizes, int n, bool shrink,
            const char *name)
{
  PyObject *list = PyList_New(n);
  int64_t at = 0;
  for (int i = 0; list && i < n; i++) {
    int64_t len = shrink ? 1 : sizes[i];
    PyObject *t = slice_piece(st, x, x->shape.rank, axis, at, at + len, shrink, name);
    if (!t) {
      Py_CLEAR(list);
      break;
    }
    PyList_SET_ITEM(list, i, t);
    at += len;
  }
  return list;
}

static PyObject *
tf_split(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  TfOperand x;
  if (!operand_arg(st, a[0], TR_DTYPE_INVALID, &x))
    return NULL;
  int64_t axis, total;
  int n = 0;
  g_autofree int64_t *sizes = NULL;
  PyObject *r = NULL;
  if (piece_axis(st, &x, a[2], 0, false, &axis, &total) &&
      (sizes = split_sizes(st, a[1], total, axis, &n)))
    r = pieces_list(st, &x, axis, sizes, n, false, name_arg(a[4], "split"));
  tf_operand_clear(&x);
  return r;
}

static PyObject *
tf_unstack(TfState *st, const OpsFunction *f, PyObject *const *a)
{
  TfOperand x;
  if (!operand_arg(st, a[0], TR_DTYPE_INVALID, &x))
    return NULL;
  int64_t axis, total, num;
  PyObject *r = NULL;
  if (piece_axis(st, &x, a[2], 0, true, &axis, &total) && int_arg(st, a[1], "num", total, &num)) {
    g_autofree char *shape = tr_shape_to_string(&x.shape);
    g_autofree char *dims = tr_shape_to_error_string(&x.shape);
    if (num == TR_UNKNOWN)
      PyErr_Format(PyExc_ValueError, "Cannot infer argument `num` from shape %s", shape);
    else if (total != TR_UNKNOWN && num != total)
      PyErr_Format(st->errors[TF_ERROR_INVALID_ARGUMENT],
                   "Input shape axis %lld must equal %lld, got shape %s", (long long)axis,
                   (long long)num, dims);
    else
      r = pieces_list(st, &x, axis, NULL, (int)num, true, name_arg(a[3], "unstack"));
  }
  tf_operand_clear(&x);
  return r;
}

/* ---- tf.einsum ----------------------------------------------------------------------------------
 * Composed of Trellis's ops, so that its gradient is theirs: each input has its repeated labels
 * reduced to their diagonal (a product with an identity matrix, summed), is transposed to one
 * order of all the equation's labels (the output's first, then the summed ones) with size-1
 * axes for the labels it lacks, the inputs are multiplied (broadcasting) and the summed labels
 * reduced. An ellipsis stands for the same trailing dims in every input, right-aligned. Labels
 * are ints: a letter's code, or 128 + k for the k-th ellipsis dim from the right. */

enum { EINSUM_MAX_INPUTS = 8, EINSUM_ELLIPSIS = 128 };

typedef struct {
  int labels[TR_MAX_RANK];
  int n;
} Labels;

/* Appends the labels of `s` (len bytes) for an operand of `rank` dims (-1: the output, whose
 * ellipsis has n_ell dims). */
static bool
einsum_parse(const char *s, size_t len, int rank, int n_ell_out, Labels *out, int *n_ell)
{
  out->n = 0;
  int letters = 0;
  bool ellipsis = false;
  for (size_t i = 0; i < len; i++) {
    if (s[i] == '.')
      continue;
    if (!g_ascii_isalpha(s[i]))
      return false;
    letters++;
  }
  const char *dots = g_strstr_len(s, (gssize)len, "...");
  ellipsis = dots != NULL;
  int ell = !ellipsis ? 0 : rank >= 0 ? rank - letters : n_ell_out;
  if (ell < 0 || letters + ell > TR_MAX_RANK)
    return false;
  *n_ell = ell;
  for (size_t i = 0; i < len; i++) {
    if (s[i] == '.') {
      if (dots != s + i)
        continue;
      for (int k = ell - 1; k >= 0; k--)
        out->labels[out->n++] = EINSUM_ELLIPSIS + k;
      continue;
    }
    out->labels[out->n++] = (unsigned char)s[i];
  }
  return true;
}

static int
label_index(const Labels *l, int label)
{
  for (int i = 0; i < l->n; i++)
    if (l->labels[i] == label)
      return i;
  return -1;
}

/* Replaces *x by op(x) with attrs; the caller clears x either way. */
static bool
einsum_step(TfState *st, TrOpId op, TfOperand *x, const TrAttrs *attrs)
{
  TfOperand r;
  if (!tf_apply_operand(st, op, x, 1, attrs, NULL, &r))
    return false;
  tf_operand_clear(x);
  *x = r;
  return true;
}

/* x's diagonal over its dims p and q (same label): x * eye placed on p and q, summed over q. */
static bool
einsum_diagonal(TfState *st, TfOperand *x, int p, int q)
{
  int64_t n = x->shape.dims[p];
  if (n == TR_UNKNOWN) {
    PyErr_SetString(st->errors[TF_ERROR_UNIMPLEMENTED],
                    "tf.einsum with a repeated label over a dimension not known while tracing is "
                    "not supported yet");
    return false;
  }
  TrShape mask_shape = {.rank = x->shape.rank};
  for (int i = 0; i < mask_shape.rank; i++)
    mask_shape.dims[i] = i == p || i == q ? n : 1;
  g_autoptr(TrTensor) eye = tr_eye(n, n, x->dtype, NULL);
  GError *error = NULL;
  TrTensor *mask = eye ? tr_reshape(eye, mask_shape.dims, mask_shape.rank, &error) : NULL;
  if (!mask)
    return tf_raise_error(st, error), false;
  TfOperand in[2] = {*x};
  if (!tf_operand_from_tensor(st, mask, &in[1]))
    return false;
  TfOperand prod;
  bool ok = tf_apply_operand(st, TR_OP_MUL, in, 2, NULL, NULL, &prod);
  tf_operand_clear(&in[1]);
  if (!ok)
    return false;
  tf_operand_clear(x);
  *x = prod;
  TrAttrs attrs;
  reduce_attrs((int64_t[]){q}, 1, x->shape.rank, false, &attrs);
  return einsum_step(st, TR_OP_SUM, x, &attrs);
}

/* Input x (labels l) as a tensor over `all` (n_all labels): diagonals taken, transposed, with
 * size-1 axes for the labels it lacks. */
static bool
einsum_align(TfState *st, TfOperand *x, Labels *l, const Labels *all)
{
  for (int p = 0; p < l->n; p++) {
    for (int q = p + 1; q < l->n; q++) {
      if (l->labels[q] != l->labels[p])
        continue;
      if (!einsum_diagonal(st, x, p, q))
        return false;
      memmove(&l->labels[q], &l->labels[q + 1], sizeof(int) * (size_t)(l->n - q - 1));
      l->n--;
      q--;
    }
  }
  TrAttrs perm;
  tr_attrs_init(&perm);
  perm.n_axes = 0;
  for (int i = 0; i < all->n; i++) {
    int at = label_index(l, all->labels[i]);
    if (at >= 0)
      perm.axes[perm.n_axes++] = at;
  }
  bool identity = true;
  for (int i = 0; i < perm.n_axes; i++)
    identity = identity && perm.axes[i] == i;
  if (!identity && !einsum_step(st, TR_OP_TRANSPOSE, x, &perm))
    return false;
  for (int i = 0; i < all->n; i++) {
    if (label_index(l, all->labels[i]) >= 0)
      continue;
    TrAttrs ex;
    tr_attrs_init(&ex);
    ex.axis = i;
    if (!einsum_step(st, TR_OP_EXPAND_DIMS, x, &ex))
      return false;
  }
  return true;
}

/* Each label's size must agree across inputs (ellipsis dims may broadcast from 1). */
static bool
einsum_check_dims(TfState *st, const TfOperand *x, const Labels *l, int64_t *sizes)
{
  for (int j = 0; j < l->n; j++) {
    int label = l->labels[j];
    int64_t d = x->shape.dims[j];
    if (d == TR_UNKNOWN)
      continue;
    if (sizes[label] == TR_UNKNOWN || (label >= EINSUM_ELLIPSIS && sizes[label] == 1)) {
      sizes[label] = d;
      continue;
    }
    if (sizes[label] == d || (label >= EINSUM_ELLIPSIS && d == 1))
      continue;
    g_autofree char *s = tr_shape_to_error_string(&x->shape);
    PyErr_Format(tf_trace(st) ? PyExc_ValueError : st->errors[TF_ERROR_INVALID_ARGUMENT],
                 "Expected dimension %lld at axis %d of the input shaped %s but got dimension "
                 "%lld%s",
                 (long long)sizes[label], j, s, (long long)d, tf_trace(st) ? "" : " [Op:Einsum]");
    return false;
  }
  return true;
}

/* TF's special_math_ops._einsum_v2_parse_and_resolve_equation, before any kernel sees the
 * equation: its ValueErrors for characters other than letters, commas, one "->" and ellipses,
 * a count of subscripts other than the inputs', and output labels repeated or not in any input.
 * `eq` is the equation without spaces; the messages show it with '0' for each ellipsis, as TF
 * resolves it, or the equation as given. */
static bool
einsum_validate(const char *equation, const char *eq, int n_inputs)
{
  bool ellipsis = strstr(equation, "...") != NULL;
  if (ellipsis && strchr(eq, '0')) {
    PyErr_Format(PyExc_ValueError, "Invalid character \"0\" in equation: %s.", equation);
    return false;
  }
  g_autoptr(GString) resolved = g_string_new(NULL);
  for (const char *p = eq; *p; p++) {
    if (ellipsis && g_str_has_prefix(p, "...")) {
      g_string_append_c(resolved, '0');
      p += 2;
    } else {
      g_string_append_c(resolved, *p);
    }
  }
  const char *r = resolved->str, *arrow = strstr(r, "->");
  bool ok = true;
  for (const char *p = r; *p && ok; p++) {
    if (p == arrow) {
      p++;
      continue;
    }
    bool label = g_ascii_isalpha(*p) || (ellipsis && *p == '0');
    ok = label || (*p == ',' && (!arrow || p < arrow));
  }
  if (!ok) {
    PyErr_Format(PyExc_ValueError, "Subscripts have incorrect format: %s", r);
    return false;
  }
  size_t in_len = arrow ? (size_t)(arrow - r) : strlen(r);
  int n_subscripts = 1;
  for (size_t i = 0; i < in_len; i++)
    n_subscripts += r[i] == ',';
  if (n_subscripts != n_inputs) {
    PyErr_Format(PyExc_ValueError, "Got %d inputs for equation \"%s\", expecting %d", n_inputs,
                 equation, n_subscripts);
    return false;
  }
  if (!arrow)
    return true;
  const char *out = arrow + 2;
  for (const char *p = out; *p; p++) {
    if (strchr(p + 1, *p)) {
      PyErr_Format(PyExc_ValueError,
                   "Output subscripts contain a label appearing more than once: %s", equation);
      return false;
    }
    if (*p != '0' && !memchr(r, *p, in_len)) {
      PyErr_Format(PyExc_ValueError,
                   "Output subscripts contain the label %c not present in the input subscripts.",
                   *p);
      return false;
    }
  }
  return true;
}

static PyObject *
einsum(TfState *st, const char *equation, PyObject *const *inputs, int n, const char *name)
{
  g_autofree char *eq = g_strdup(equation);
  /* spaces are ignored */
  char *w = eq;
  for (const char *r = eq; *r; r++)
    if (*r != ' ')
      *w++ = *r;
  *w = '\0';
  if (!einsum_validate(equation, eq, n))
    return NULL;
  char *arrow = strstr(eq, "->");
  if (arrow)
    *arrow = '\0';
  g_auto(GStrv) parts = g_strsplit(eq, ",", -1);
  int n_parts = (int)g_strv_length(parts);
  if (n_parts != n || n > EINSUM_MAX_INPUTS) {
    PyErr_Format(st->errors[TF_ERROR_INVALID_ARGUMENT], "Expected %d inputs but got: %d", n_parts,
                 n);
    return NULL;
  }
  TfOperand x[EINSUM_MAX_INPUTS];
  Labels l[EINSUM_MAX_INPUTS], out, all;
  int made = 0, n_ell = 0, max_ell = 0;
  PyObject *result = NULL;
  TrDType hint = TR_DTYPE_INVALID;
  for (int i = 0; i < n && hint == TR_DTYPE_INVALID; i++)
    hint = tf_dtype_of(st, inputs[i]);
  for (; made < n; made++)
    if (!operand_arg(st, inputs[made], hint, &x[made]))
      goto done;
  int64_t sizes[EINSUM_ELLIPSIS + TR_MAX_RANK];
  for (size_t i = 0; i < G_N_ELEMENTS(sizes); i++)
    sizes[i] = TR_UNKNOWN;
  for (int i = 0; i < n; i++) {
    if (x[i].dtype != x[0].dtype && !tf_trace(st)) {
      PyErr_Format(st->errors[TF_ERROR_INVALID_ARGUMENT],
                   "cannot compute Einsum as input #%d(zero-based) was expected to be a %s tensor "
                   "but is a %s tensor [Op:Einsum]",
                   i, tr_dtype_name(x[0].dtype), tr_dtype_name(x[i].dtype));
      goto done;
    }
    int rank = x[i].shape.rank;
    if (rank == TR_UNKNOWN) {
      PyErr_SetString(st->errors[TF_ERROR_UNIMPLEMENTED],
                      "tf.einsum of a tensor of unknown rank is not supported yet");
      goto done;
    }
    if (!einsum_parse(parts[i], strlen(parts[i]), rank, 0, &l[i], &n_ell) || l[i].n != rank) {
      /* EinsumOp's ProcessDimensions texts; eager errors end with the op's name. */
      bool has_ellipsis = strstr(parts[i], "...") != NULL;
      PyErr_Format(st->errors[TF_ERROR_INVALID_ARGUMENT],
                   "Expected input %d to have rank %s%d but got: %d%s", i,
                   has_ellipsis ? "at least " : "",
                   (int)(strlen(parts[i]) - (has_ellipsis ? 3 : 0)), rank,
                   tf_trace(st) ? "" : " [Op:Einsum]");
      goto done;
    }
    max_ell = MAX(max_ell, n_ell);
    if (!einsum_check_dims(st, &x[i], &l[i], sizes))
      goto done;
  }
  if (arrow) {
    if (!einsum_parse(arrow + 2, strlen(arrow + 2), -1, max_ell, &out, &n_ell)) {
      PyErr_Format(st->errors[TF_ERROR_INVALID_ARGUMENT], "Invalid Einsum equation: %s", equation);
      goto done;
    }
  } else {
    /* Implicit output: the ellipsis, then the letters used once, in alphabetical order. */
    out.n = 0;
    for (int k = max_ell - 1; k >= 0; k--)
      out.labels[out.n++] = EINSUM_ELLIPSIS + k;
    for (int c = 'A'; c <= 'z'; c++) {
      int count = 0;
      for (int i = 0; i < n; i++)
        for (int j = 0; j < l[i].n; j++)
          count += l[i].labels[j] == c;
      if (count == 1 && out.n < TR_MAX_RANK)
        out.labels[out.n++] = c;
    }
  }
  all = out;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < l[i].n; j++) {
      if (label_index(&all, l[i].labels[j]) >= 0)
        continue;
      if (all.n == TR_MAX_RANK) {
        PyErr_SetString(st->errors[TF_ERROR_INVALID_ARGUMENT], "Too many labels in an einsum");
        goto done;
      }
      all.labels[all.n++] = l[i].labels[j];
    }
  }
  for (int i = 0; i < out.n; i++) {
    bool found = false;
    for (int k = 0; k < n && !found; k++)
      found = label_index(&l[k], out.labels[i]) >= 0;
    if (!found) {
      PyErr_Format(st->errors[TF_ERROR_INVALID_ARGUMENT],
                   "Output subscript contains a label not in any input: %s", equation);
      goto done;
    }
  }
  for (int i = 0; i < n; i++)
    if (!einsum_align(st, &x[i], &l[i], &all))
      goto done;
  TfOperand acc = x[0];
  memset(&x[0], 0, sizeof x[0]);
  for (int i = 1; i < n; i++) {
    TfOperand in[2] = {acc, x[i]}, prod;
    bool ok = tf_apply_operand(st, TR_OP_MUL, in, 2, NULL, NULL, &prod);
    tf_operand_clear(&acc);
    if (!ok) {
      memset(&acc, 0, sizeof acc);
      goto done;
    }
    acc = prod;
  }
  if (all.n > out.n) {
    int64_t axes[TR_MAX_RANK];
    for (int i = out.n; i < all.n; i++)
      axes[i - out.n] = i;
    TrAttrs attrs;
    reduce_attrs(axes, all.n - out.n, acc.shape.rank, false, &attrs);
    TfOperand r;
    bool ok = tf_apply_operand(st, TR_OP_SUM, &acc, 1, &attrs, name, &r);
    tf_operand_clear(&acc);
    if (!ok)
      goto done;
    acc = r;
  }
  result = tf_operand_to_value(st, &acc);
done:
  for (int i = 0; i < made; i++)
    tf_operand_clear(&x[i]);
  return result;
}

/* tf.einsum(equation, *inputs, name=None): its own entry, for the variadic inputs. */
static PyObject *
tf_einsum_entry(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  TfState *st = tf_state();
  PyObject *name = NULL;
  Py_ssize_t nk = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t i = 0; i < nk; i++) {
    PyObject *k = PyTuple_GET_ITEM(kwnames, i);
    if (PyUnicode_CompareWithASCIIString(k, "name") != 0)
      return PyErr_Format(PyExc_TypeError, "Invalid keyword argument(s): %R", k);
    name = args[nargs + i];
  }
  if (nargs < 1 || !PyUnicode_Check(args[0]))
    return PyErr_Format(PyExc_TypeError, "einsum() missing 1 required positional argument: "
                                         "'equation'");
  const char *equation = PyUnicode_AsUTF8(args[0]);
  if (!equation)
    return NULL;
  Py_ssize_t n = nargs - 1;
  PyObject *const *inputs = args + 1;
  PyObject *seq = NULL;
  /* tf.einsum('ij,jk', [a, b]) is accepted too: one list holds the inputs. */
  if (n == 1 && (PyList_Check(args[1]) || PyTuple_Check(args[1])) && strchr(equation, ',')) {
    seq = PySequence_Tuple(args[1]);
    if (!seq)
      return NULL;
    n = PyTuple_GET_SIZE(seq);
    inputs = &PyTuple_GET_ITEM(seq, 0);
  }
  PyObject *r = einsum(st, equation, inputs, (int)MIN(n, INT_MAX), name_arg(name, "einsum"));
  Py_XDECREF(seq);
  return r;
}

static PyMethodDef einsum_def = {"einsum", (PyCFunction)(void (*)(void))tf_einsum_entry,
                                 METH_FASTCALL | METH_KEYWORDS,
                                 "einsum(equation, *inputs, name=None)\n--\n\n"};

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
static const char *const P_STATELESS_UNIFORM[] = {"shape", "seed", "minval", "maxval",
                                                  "dtype", "name", "alg",    NULL};
static const char *const P_STATELESS_NORMAL[] = {"shape", "seed", "mean", "stddev",
                                                 "dtype", "name", "alg",  NULL};
static const char *const P_LEAKY[] = {"features", "alpha", "name", NULL};
static const char *const P_TILE[] = {"input", "multiples", "name", NULL};
static const char *const P_BROADCAST[] = {"input", "shape", "name", NULL};
static const char *const P_REVERSE[] = {"tensor", "axis", "name", NULL};
static const char *const P_SORT[] = {"values", "axis", "direction", "name", NULL};
static const char *const P_ARGSORT[] = {"values", "axis", "direction", "stable", "name", NULL};
static const char *const P_NORM[] = {"tensor", "ord", "axis", "keepdims", "name", NULL};
static const char *const P_SPLIT[] = {"value", "num_or_size_splits", "axis", "num", "name", NULL};
static const char *const P_UNSTACK[] = {"value", "num", "axis", "name", NULL};

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
  /* the complex-number ops; py/debugging.py's tf.math.real, imag, angle, conj and tf.complex      \
   * check the dtypes and handle real inputs as TensorFlow's math_ops does */                      \
  X(_real, unary_body, P_UNARY, 1, REAL, "Real", IN_TF)                                            \
  X(_imag, unary_body, P_UNARY, 1, IMAG, "Imag", IN_TF)                                            \
  X(_angle, unary_body, P_UNARY, 1, ANGLE, "Angle", IN_TF)                                         \
  X(_conj, unary_body, P_UNARY, 1, CONJ, "Conj", IN_TF)                                            \
  X(_complex, binary_body, P_BINARY, 2, COMPLEX, "Complex", IN_TF)                                 \
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
  X(softplus, unary_body, P_RELU, 1, SOFTPLUS, NULL, IN_NN | IN_MATH)                              \
  X(relu6, unary_body, P_RELU, 1, RELU6, NULL, IN_NN)                                              \
  X(leaky_relu, tf_leaky_relu, P_LEAKY, 1, SELECT, NULL, IN_NN)                                    \
  /* layout and order */                                                                           \
  X(tile, tf_shaped, P_TILE, 2, TILE, NULL, IN_TF)                                                 \
  X(broadcast_to, tf_shaped, P_BROADCAST, 2, BROADCAST_TO, NULL, IN_TF)                            \
  X(reverse, tf_reverse, P_REVERSE, 2, REVERSE, NULL, IN_TF)                                       \
  X(sort, tf_sort, P_SORT, 1, SORT, NULL, IN_TF)                                                   \
  X(argsort, tf_sort, P_ARGSORT, 1, ARGSORT, NULL, IN_TF)                                          \
  X(split, tf_split, P_SPLIT, 2, STRIDED_SLICE, NULL, IN_TF)                                       \
  X(unstack, tf_unstack, P_UNSTACK, 1, STRIDED_SLICE, NULL, IN_TF)                                 \
  X(norm, tf_norm, P_NORM, 1, SQRT, NULL, IN_TF | IN_LINALG)                                       \
  /* tf.random */                                                                                  \
  X(uniform, tf_random, P_UNIFORM, 1, RANDOM_UNIFORM, NULL, IN_RANDOM)                             \
  X(normal, tf_random, P_NORMAL, 1, RANDOM_NORMAL, NULL, IN_RANDOM)                                \
  X(stateless_uniform, tf_stateless_random, P_STATELESS_UNIFORM, 2, STATELESS_RANDOM_UNIFORM,      \
    NULL, IN_RANDOM)                                                                               \
  X(stateless_normal, tf_stateless_random, P_STATELESS_NORMAL, 2, STATELESS_RANDOM_NORMAL, NULL,   \
    IN_RANDOM)                                                                                     \
  X(set_seed, tf_random_set_seed, P_SEED, 1, IDENTITY, NULL, IN_RANDOM)

#define FUNCTION_ENUM(nm, body, params, n_required, op, node, modules) FN_##nm,
enum { TF_FUNCTION_LIST(FUNCTION_ENUM) N_FUNCTIONS };
#undef FUNCTION_ENUM

#define FUNCTION_ROW(nm, body, params, n_required, op, node, modules)                              \
  [FN_##nm] = {#nm, body, params, n_required, TR_OP_##op, node, modules},
static const OpsFunction functions[N_FUNCTIONS] = {TF_FUNCTION_LIST(FUNCTION_ROW)};
#undef FUNCTION_ROW

/* Whether `v` is of a type that takes part in dispatch (its class has `_tf_api_dispatch`:
 * RaggedTensor). */
static bool
dispatch_type(PyObject *v)
{
  return PyObject_HasAttrString((PyObject *)Py_TYPE(v), "_tf_api_dispatch");
}

/* Whether `v`, or an item of a list or tuple `v` (tf.concat's values), takes part in dispatch. */
static bool
dispatchable(PyObject *v)
{
  if (!PyList_Check(v) && !PyTuple_Check(v))
    return dispatch_type(v);
  PyObject *seq = PySequence_Fast(v, ""); /* owned */
  bool any = false;
  for (Py_ssize_t i = 0; seq && !any && i < PySequence_Fast_GET_SIZE(seq); i++)
    any = dispatch_type(PySequence_Fast_GET_ITEM(seq, i));
  Py_XDECREF(seq);
  return any;
}

/* A failed call whose arguments include a composite tensor goes to the dispatcher (py/strings.py
 * registers it), as TensorFlow's API dispatch does: `dispatcher(name, args, kwargs)` returns
 * the result, or NotImplemented to let the call's own error stand. Only failed calls look: a
 * call with plain tensors pays nothing. */
static PyObject *
dispatch_failed_call(TfState *st, const OpsFunction *f, PyObject *const *args, Py_ssize_t nargs,
                     PyObject *kwnames)
{
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb); /* the checks below must not clear it */
  bool any = false;
  for (Py_ssize_t i = 0; !any && i < nargs + nkw; i++)
    any = dispatchable(args[i]);
  if (!any) {
    PyErr_Restore(type, value, tb);
    return NULL;
  }
  PyObject *pos = PyTuple_New(nargs), *kw = PyDict_New(); /* owned */
  for (Py_ssize_t i = 0; pos && i < nargs; i++)
    PyTuple_SET_ITEM(pos, i, Py_NewRef(args[i]));
  for (Py_ssize_t i = 0; kw && i < nkw; i++)
    if (PyDict_SetItem(kw, PyTuple_GET_ITEM(kwnames, i), args[nargs + i]) < 0)
      Py_CLEAR(kw);
  PyObject *r = pos && kw ? PyObject_CallFunction(st->api_dispatcher, "sOO", f->name, pos, kw)
                          : NULL; /* owned */
  Py_XDECREF(pos);
  Py_XDECREF(kw);
  if (r == Py_NotImplemented) {
    Py_DECREF(r);
    PyErr_Restore(type, value, tb);
    return NULL;
  }
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  return r;
}

/* Binds a call's arguments to row `i` and runs its body. */
static PyObject *
call_function(int i, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  const OpsFunction *f = &functions[i];
  PyObject *a[MAX_PARAMS];
  if (!tf_parse_args(f->name, args, nargs, kwnames, f->params, f->n_required, a))
    return NULL;
  TfState *st = tf_state();
  PyObject *r = f->body(st, f, a);
  if (r || !st->api_dispatcher)
    return r;
  return dispatch_failed_call(st, f, args, nargs, kwnames);
}

/* tf._set_api_dispatcher(fn): the callable that serves failed calls with composite arguments
 * (None: none). */
static PyObject *
set_api_dispatcher(PyObject *module, PyObject *fn)
{
  TfState *st = PyModule_GetState(module); /* bound to the module: it may run during import */
  if (fn != Py_None && !PyCallable_Check(fn))
    return PyErr_Format(PyExc_TypeError, "expected a callable or None");
  Py_XSETREF(st->api_dispatcher, fn == Py_None ? NULL : Py_NewRef(fn));
  Py_RETURN_NONE;
}

static PyMethodDef dispatcher_def = {"_set_api_dispatcher", set_api_dispatcher, METH_O,
                                     "Sets the dispatcher of tf functions for composite tensors."};

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
  PyObject *einsum_fn = PyCFunction_NewEx(&einsum_def, NULL, module_name);        /* owned */
  PyObject *set_fn = PyCFunction_NewEx(&dispatcher_def, st->module, module_name); /* owned */
  Py_DECREF(module_name);
  if (!set_fn || PyModule_AddObjectRef(st->module, "_set_api_dispatcher", set_fn) < 0) {
    Py_XDECREF(set_fn);
    Py_XDECREF(einsum_fn);
    return -1;
  }
  Py_DECREF(set_fn);
  if (!einsum_fn)
    return -1;
  int r = PyModule_AddObjectRef(st->module, "einsum", einsum_fn) < 0 ||
                  PyModule_AddObjectRef(st->mod_linalg, "einsum", einsum_fn) < 0
              ? -1
              : 0;
  Py_DECREF(einsum_fn);
  return r;
}

void
tf_ops_clear(TfState *st)
{
  /* The functions are the modules' attributes, dropped with them; the random state is plain
   * data. */
  Py_CLEAR(st->api_dispatcher);
}
