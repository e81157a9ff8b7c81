/* lang-tf.c — the `tensorflow` module: dtypes, tf.errors, and the functions over ops.
 *
 * Every function converts its tensor arguments to operands (lang-tf-private.h; Python values
 * next to a tensor take its dtype as a hint, as TF's op wrappers do) and applies one op of
 * core/tensor's table with the attrs its wrapper there would fill. Eagerly the op runs at once
 * and a TR_ERROR becomes the tf.errors class of its code with TF's message; while a tf.function
 * traces, the op adds a node to the graph being built. Axes, perms, shapes and depths are attrs,
 * so their values must be known when the op is built (see "static arguments"). The simple
 * elementwise and reduction functions are generated from the tables below. The random
 * functions are bound to a per-session state object holding the global seed and op counter.
 */
#include "lang-tf-private.h"
#include "tr-ops.h"

#include <string.h>

/* ---- dtypes ---------------------------------------------------------------------------- */

typedef struct {
  LangObject base; /* lang_tf_dtype_type; immortal */
  TrDType dtype;   /* the element type it names */
} LangTfDType;

static LangValue
dtype_repr(LangState *L, LangValue self)
{
  return lang_str_printf(L, "tf.%s", tr_dtype_name(((LangTfDType *)self.o)->dtype));
}

static LangValue
dtype_get_name(LangState *L, LangValue self)
{
  return lang_str_cstr(L, tr_dtype_name(((LangTfDType *)self.o)->dtype));
}

static LangValue
dtype_get_is_floating(LangState *L, LangValue self)
{
  return lang_bool(tr_dtype_is_float(((LangTfDType *)self.o)->dtype));
}

static LangValue
dtype_get_is_integer(LangState *L, LangValue self)
{
  return lang_bool(tr_dtype_is_int(((LangTfDType *)self.o)->dtype));
}

static LangValue
dtype_get_size(LangState *L, LangValue self)
{
  return lang_int((int64_t)tr_dtype_size(((LangTfDType *)self.o)->dtype));
}

static const LangGetSetDef dtype_getsets[] = {
    {"name", dtype_get_name, NULL, "The dtype's name: 'float32'."},
    {"is_floating", dtype_get_is_floating, NULL, "Whether this is a floating point type."},
    {"is_integer", dtype_get_is_integer, NULL, "Whether this is an integer type."},
    {"size", dtype_get_size, NULL, "Bytes per element."},
    {NULL, NULL, NULL, NULL},
};

LangType lang_tf_dtype_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "DType",
    .instance_size = sizeof(LangTfDType),
    .flags = LANG_TYPE_ABSTRACT_NEW,
    .slots = {.repr = dtype_repr},
    .getsets = dtype_getsets,
    .doc = "Represents the type of the elements in a Tensor.",
};

static LangTfDType dtype_objects[TR_N_DTYPES] = {
#define DTYPE_OBJECT(id, py, tf, np, size)                                                         \
  [TR_##id] = {{LANG_IMMORTAL_REFCOUNT, &lang_tf_dtype_type}, TR_##id},
    TR_DTYPE_LIST(DTYPE_OBJECT)
#undef DTYPE_OBJECT
};

LangValue
lang_tf_dtype_object(TrDType dtype)
{
  g_return_val_if_fail(dtype >= 0 && dtype < TR_N_DTYPES, LANG_NONE);
  return (LangValue){.tag = LANG_TAG_OBJ, .o = &dtype_objects[dtype].base};
}

bool
lang_tf_dtype_arg(LangState *L, LangValue v, TrDType dflt, TrDType *out)
{
  if (lang_is_unset(v) || v.tag == LANG_TAG_NONE) {
    *out = dflt;
    return true;
  }
  if (lang_is_type(v, &lang_tf_dtype_type)) {
    *out = ((LangTfDType *)v.o)->dtype;
    return true;
  }
  if (lang_is_str(v) && tr_dtype_from_name(lang_str_data(v.o)) != TR_DTYPE_INVALID) {
    *out = tr_dtype_from_name(lang_str_data(v.o));
    return true;
  }
  LangValue r = lang_repr(L, v);
  if (!lang_is_exc(r)) {
    lang_raise(L, &lang_exc_TypeError,
               "Cannot convert the argument `type_value`: %s to a TensorFlow DType.",
               lang_str_text(r));
    lang_decref(r);
  }
  return false;
}

/* ---- tf.errors ------------------------------------------------------------------------- */

#define TF_EXC_TYPE(nm, base)                                                                      \
  {                                                                                                \
    LANG_STATIC_TYPE_HEAD, .name = #nm, .base_type = &base, .instance_size = sizeof(LangExc),      \
                           .dict_offset = offsetof(LangExc, dict),                                 \
                           .flags = LANG_TYPE_BASETYPE | LANG_TYPE_EXCEPTION | LANG_TYPE_GC,       \
  }

LangType lang_tf_exc_OpError = TF_EXC_TYPE(OpError, lang_exc_Exception);
#define TF_EXC_DEFINE(code, nm) LangType lang_tf_exc_##nm = TF_EXC_TYPE(nm, lang_tf_exc_OpError);
LANG_TF_ERROR_LIST(TF_EXC_DEFINE)
#undef TF_EXC_DEFINE

LangValue
lang_tf_raise_error(LangState *L, GError *error)
{
  g_return_val_if_fail(error != NULL, LANG_EXC);
  LangType *type = &lang_tf_exc_InvalidArgumentError;
  if (error->domain == TR_ERROR) {
    switch ((TrErrorCode)error->code) {
#define TF_EXC_CASE(code, nm)                                                                      \
  case TR_ERROR_##code:                                                                            \
    type = &lang_tf_exc_##nm;                                                                      \
    break;
      LANG_TF_ERROR_LIST(TF_EXC_CASE)
#undef TF_EXC_CASE
    }
  }
  lang_raise_str(L, type, error->message);
  g_error_free(error);
  return LANG_EXC;
}

/* ---- argument helpers ------------------------------------------------------------------ */

/* The node name a `name=` argument asks for, else `dflt` (NULL: the op's default). */
static const char *
name_arg(LangValue name, const char *dflt)
{
  return lang_is_str(name) ? lang_str_data(name.o) : dflt;
}

/* convert_to_tensor of an argument as an operand, with `hint` as the preferred dtype. */
static bool
operand_arg(LangState *L, LangValue v, TrDType hint, LangTfOperand *out)
{
  return lang_tf_operand(L, v, hint, true, out);
}

static bool
bool_arg(LangState *L, LangValue v, bool *out)
{
  if (lang_is_unset(v)) {
    *out = false;
    return true;
  }
  int r = lang_truth(L, v);
  *out = r == 1;
  return r >= 0;
}

static void
operand_list_free(LangTfOperand *items, int n)
{
  lang_tf_operands_clear(items, n);
  g_free(items);
}

/* The items of a list or tuple of tensor-likes (tensors, Variables, Python values) as operands,
 * converted with the first tensor's dtype as a hint. Returns the count, or -1 with an exception
 * raised; *out is freed with operand_list_free. */
static int
operand_list_arg(LangState *L, LangValue v, LangTfOperand **out)
{
  LangValue seq = lang_list_from_iterable(L, v);
  if (lang_is_exc(seq))
    return -1;
  LangList *list = (LangList *)seq.o;
  int n = (int)list->n;
  TrDType hint = TR_DTYPE_INVALID;
  for (int i = 0; i < n && hint == TR_DTYPE_INVALID; i++)
    hint = lang_tf_dtype_of(list->items[i]);
  LangTfOperand *items = g_new0(LangTfOperand, (gsize)MAX(n, 1));
  for (int i = 0; i < n; i++) {
    if (!operand_arg(L, list->items[i], hint, &items[i])) {
      operand_list_free(items, i);
      lang_decref(seq);
      return -1;
    }
  }
  lang_decref(seq);
  *out = items;
  return n;
}

/* Replaces *o by its cast to `dtype` when its dtype differs (tf.cast adds no op otherwise).
 * On failure *o is left to the caller. */
static bool
cast_operand(LangState *L, LangTfOperand *o, TrDType dtype)
{
  if (o->dtype == dtype)
    return true;
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.dtype = dtype;
  LangTfOperand c;
  if (!lang_tf_apply_operand(L, TR_OP_CAST, o, 1, &attrs, NULL, &c))
    return false;
  lang_tf_operand_clear(o);
  *o = c;
  return true;
}

/* Applies `op` to one argument converted without a hint. */
static LangValue
apply1(LangState *L, TrOpId op, LangValue x, const TrAttrs *attrs, const char *name)
{
  LangTfOperand o;
  if (!operand_arg(L, x, TR_DTYPE_INVALID, &o))
    return LANG_EXC;
  LangValue r = lang_tf_apply(L, op, &o, 1, attrs, name);
  lang_tf_operand_clear(&o);
  return r;
}

/* A tf.Tensor of a value computed here (transfer full of t; NULL passes an exception on): the
 * tensor itself when eager, a Const node while tracing. */
static LangValue
constant_value(LangState *L, TrTensor *t, const char *name)
{
  LangTfTrace *tr = lang_tf_trace(L);
  if (!t || !tr)
    return lang_tf_tensor_new(L, t);
  TrNode *node = tr_graph_add_const(tr->graph, t, name);
  tr_tensor_unref(t);
  return lang_tf_symbolic_new(L, tr->graph, tr_node_output(node, 0));
}

/* ---- static arguments ------------------------------------------------------------------ */

/* Axes, perms, shapes, depths and seeds are attributes of an op: their values must be known when
 * the op is built. Besides Python values and eager tensors, a symbolic tensor is accepted when
 * its value is known at trace time: a Const node, or an op (not stateful) of Const nodes, folded
 * here as TensorFlow's constant_value folds a shape computed from constants. Anything else is a
 * TypeError naming the argument. */

/* How many ops deep folding looks. */
#define FOLD_DEPTH 8

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

/* The value of a symbolic tensor known at trace time, or NULL. Transfer full. */
static TrTensor *
known_value(LangState *L, LangValue v)
{
  TrTensor *t = lang_tf_static_value(L, v);
  return t ? t : fold_output(lang_tf_symbolic_output(v), FOLD_DEPTH);
}

/* Whether `v` has no Python value of its own. */
static bool
is_graph_value(LangValue v)
{
  return lang_tf_is_symbolic(v) || lang_tf_is_variable(v);
}

static bool
raise_not_static(LangState *L, LangValue v, const char *what)
{
  if (lang_tf_is_variable(v)) {
    lang_raise(L, &lang_exc_TypeError,
               "`%s` must be known when the function is traced, but got the tf.Variable '%s', "
               "whose value is only read when the function runs",
               what, ((LangTfVariable *)v.o)->var->name);
    return false;
  }
  g_autofree char *name = tr_output_name(lang_tf_symbolic_output(v));
  lang_raise(L, &lang_exc_TypeError,
             "`%s` must be known when the function is traced (a Python value or a constant), "
             "but got the symbolic tensor '%s', whose value is only computed when the function "
             "runs",
             what, name);
  return false;
}

/* A symbolic tensor or a Variable as an eager tf.Tensor of its value (transfer full). */
static bool
static_item(LangState *L, LangValue v, const char *what, LangValue *out)
{
  if (lang_tf_is_variable(v) && !lang_tf_trace(L)) {
    *out = lang_tf_tensor_new(L, tr_variable_read(((LangTfVariable *)v.o)->var));
    return true;
  }
  if (lang_tf_is_symbolic(v)) {
    LangTfOperand o; /* raises TypeError for a tensor of another graph */
    if (!lang_tf_operand(L, v, TR_DTYPE_INVALID, true, &o))
      return false;
    lang_tf_operand_clear(&o);
    TrTensor *t = known_value(L, v);
    if (t) {
      *out = lang_tf_tensor_new(L, t);
      return true;
    }
  }
  return raise_not_static(L, v, what);
}

static LangValue
seq_item(LangValue v, int64_t i)
{
  return lang_is_type(v, &lang_list_type) ? ((LangList *)v.o)->items[i] : lang_tuple_get(v.o, i);
}

/* A static argument in the form the eager helpers read (lang_tf_shape_arg, lang_to_index): v
 * itself, with symbolic tensors and Variables, also as items of a list or tuple, replaced by
 * eager tensors of their values. A new reference; false with TypeError raised for a value not
 * known while tracing. */
static bool
static_arg(LangState *L, LangValue v, const char *what, LangValue *out)
{
  if (is_graph_value(v))
    return static_item(L, v, what, out);
  bool is_list = lang_is_type(v, &lang_list_type);
  int64_t n = is_list                             ? ((LangList *)v.o)->n
              : lang_is_type(v, &lang_tuple_type) ? lang_tuple_len(v.o)
                                                  : 0;
  int64_t first = 0;
  while (first < n && !is_graph_value(seq_item(v, first)))
    first++;
  if (first == n) {
    *out = lang_incref(v);
    return true;
  }
  LangValue copy = lang_tuple_new(L, n);
  for (int64_t i = 0; i < n; i++) {
    LangValue item = seq_item(v, i), s = lang_incref(item);
    if (is_graph_value(item) && !static_item(L, item, what, &s)) {
      lang_decref(copy);
      return false;
    }
    lang_tuple_set(copy, i, s);
  }
  *out = copy;
  return true;
}

/* An int argument (axis, depth, seed): an int or a scalar int tensor; None/UNSET give dflt. */
static bool
int_arg(LangState *L, LangValue v, const char *what, int64_t dflt, int64_t *out)
{
  if (lang_is_unset(v) || v.tag == LANG_TAG_NONE) {
    *out = dflt;
    return true;
  }
  LangValue s;
  if (!static_arg(L, v, what, &s))
    return false;
  TrTensor *t = lang_tf_is_tensor(s) ? lang_tf_tensor_value(s) : NULL;
  bool ok = true;
  if (t && t->shape.rank == 0 && tr_dtype_is_int(t->dtype))
    *out = tr_tensor_get_i64(t, 0);
  else
    ok = lang_to_index(L, s, out);
  lang_decref(s);
  return ok;
}

/* A float attribute (minval, on_value): a number or a scalar tensor; None/UNSET give dflt. */
static bool
double_arg(LangState *L, LangValue v, const char *what, double dflt, double *out)
{
  if (lang_is_unset(v) || v.tag == LANG_TAG_NONE) {
    *out = dflt;
    return true;
  }
  LangValue s;
  if (!static_arg(L, v, what, &s))
    return false;
  bool ok = lang_to_double(L, s, out);
  lang_decref(s);
  return ok;
}

/* A shape argument (lang_tf_shape_arg) of a known rank. */
static bool
shape_arg(LangState *L, LangValue v, const char *what, TrShape *out)
{
  LangValue s;
  if (!static_arg(L, v, what, &s))
    return false;
  bool ok = lang_tf_shape_arg(L, s, out);
  lang_decref(s);
  if (ok && out->rank == TR_UNKNOWN) {
    lang_raise_str(L, &lang_exc_ValueError,
                   "Cannot convert a partially known TensorShape <unknown> to a Tensor.");
    return false;
  }
  return ok;
}

/* An axis list: None/UNSET is "all" (n = -1), an int one axis, a list or tuple several. */
static bool
axes_arg(LangState *L, LangValue v, const char *what, int64_t *axes, int *n)
{
  if (lang_is_unset(v) || v.tag == LANG_TAG_NONE) {
    *n = -1;
    return true;
  }
  LangValue s;
  if (!static_arg(L, v, what, &s))
    return false;
  TrShape shape;
  bool ok;
  if (s.tag == LANG_TAG_INT || lang_tf_is_tensor(s) || lang_is_type(s, &lang_list_type) ||
      lang_is_type(s, &lang_tuple_type)) {
    ok = lang_tf_shape_arg(L, s, &shape);
    if (ok) {
      *n = shape.rank;
      memcpy(axes, shape.dims, sizeof(int64_t) * (size_t)shape.rank);
    }
  } else {
    ok = lang_to_index(L, s, axes) && (*n = 1);
  }
  lang_decref(s);
  return ok;
}

/* A 1-D int64 tensor of a shape's dims: the `dims` input of Fill and the random ops. */
static TrTensor *
dims_tensor(const TrShape *shape)
{
  TrShape vec = tr_shape_make(1, (int64_t[]){shape->rank});
  return tr_tensor_new_from_data(TR_INT64, &vec, shape->dims);
}

/* A shape tensor of the graph as that input; a scalar is reshaped to a vector, as
 * lang_tf_shape_arg reads it. */
static bool
graph_dims_operand(LangState *L, LangValue v, LangTfOperand *out)
{
  LangTfOperand o;
  if (!operand_arg(L, v, TR_DTYPE_INVALID, &o))
    return false;
  if (o.shape.rank != 0) {
    *out = o;
    return true;
  }
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.axes[0] = -1;
  attrs.n_axes = 1;
  bool ok = lang_tf_apply_operand(L, TR_OP_RESHAPE, &o, 1, &attrs, NULL, out);
  lang_tf_operand_clear(&o);
  return ok;
}

/* A shape argument as that input: a static shape, or while tracing any int tensor (the op then
 * infers a partial shape). */
static bool
dims_operand(LangState *L, LangValue v, const char *what, LangTfOperand *out)
{
  if (lang_tf_trace(L) && is_graph_value(v)) {
    g_autoptr(TrTensor) known = lang_tf_is_symbolic(v) ? known_value(L, v) : NULL;
    if (!known)
      return graph_dims_operand(L, v, out);
  }
  TrShape s;
  return shape_arg(L, v, what, &s) && lang_tf_operand_from_tensor(L, dims_tensor(&s), out);
}

/* ---- generated elementwise and reduction functions ----------------------------------- */

/* Python's `/` as tr_truediv: integers of one dtype are cast to float64 first. The casts
 * replace in[], which stay the caller's to clear. */
static LangValue
truediv(LangState *L, LangTfOperand in[2], const char *name)
{
  bool ints = in[0].dtype == in[1].dtype && tr_dtype_is_int(in[0].dtype);
  if (ints && !(cast_operand(L, &in[0], TR_FLOAT64) && cast_operand(L, &in[1], TR_FLOAT64)))
    return LANG_EXC;
  return lang_tf_apply(L, TR_OP_DIV, in, 2, NULL, name);
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

static LangValue
unary_fn(LangState *L, const char *fname, TrOpId op, const char *node, const LangValue *args,
         int nargs, LangObject *kwnames)
{
  LangValue x, name = LANG_UNSET;
  if (!lang_parse_args(L, fname, args, nargs, kwnames, "x,name=", &x, &name))
    return LANG_EXC;
  return apply1(L, op, x, NULL, name_arg(name, node));
}

static LangValue
binary_fn(LangState *L, const char *fname, TrOpId op, const char *node, const LangValue *args,
          int nargs, LangObject *kwnames)
{
  LangValue x, y, name = LANG_UNSET;
  if (!lang_parse_args(L, fname, args, nargs, kwnames, "x,y,name=", &x, &y, &name))
    return LANG_EXC;
  LangTfOperand in[2];
  if (!lang_tf_operand_pair(L, x, y, &in[0], &in[1]))
    return LANG_EXC;
  const char *nm = name_arg(name, node);
  LangValue r = op == TR_OP_DIV ? truediv(L, in, nm) : lang_tf_apply(L, op, in, 2, NULL, nm);
  lang_tf_operands_clear(in, 2);
  return r;
}

static LangValue
reduce_fn(LangState *L, const char *fname, TrOpId op, const char *node, const LangValue *args,
          int nargs, LangObject *kwnames)
{
  LangValue x, axis = LANG_UNSET, keepdims = LANG_UNSET, name = LANG_UNSET;
  if (!lang_parse_args(L, fname, args, nargs, kwnames, "input_tensor,axis=,keepdims=,name=", &x,
                       &axis, &keepdims, &name))
    return LANG_EXC;
  int64_t axes[TR_MAX_RANK];
  int n;
  bool keep;
  if (!axes_arg(L, axis, "axis", axes, &n) || !bool_arg(L, keepdims, &keep))
    return LANG_EXC;
  LangTfOperand o;
  if (!operand_arg(L, x, TR_DTYPE_INVALID, &o))
    return LANG_EXC;
  TrAttrs attrs;
  reduce_attrs(axes, n, o.shape.rank, keep, &attrs);
  LangValue r = lang_tf_apply(L, op, &o, 1, &attrs, name_arg(name, node));
  lang_tf_operand_clear(&o);
  return r;
}

/* name, op */
#define TF_UNARY_LIST(X)                                                                           \
  X(abs, ABS)                                                                                      \
  X(negative, NEG)                                                                                 \
  X(square, SQUARE)                                                                                \
  X(sqrt, SQRT)                                                                                    \
  X(exp, EXP)                                                                                      \
  X(log, LOG)                                                                                      \
  X(tanh, TANH)                                                                                    \
  X(sigmoid, SIGMOID)                                                                              \
  X(sin, SIN)                                                                                      \
  X(cos, COS)                                                                                      \
  X(logical_not, LOGICAL_NOT)                                                                      \
  X(identity, IDENTITY)

/* name, op, the node's default name: TF's functions name theirs "Add" where `x + y` says "add" */
#define TF_BINARY_LIST(X)                                                                          \
  X(add, ADD, "Add")                                                                               \
  X(subtract, SUB, "Sub")                                                                          \
  X(multiply, MUL, "Mul")                                                                          \
  X(divide, DIV, "truediv")                                                                        \
  X(truediv, DIV, "truediv")                                                                       \
  X(floordiv, FLOORDIV, "floordiv")                                                                \
  X(mod, MOD, "FloorMod")                                                                          \
  X(floormod, MOD, "FloorMod")                                                                     \
  X(pow, POW, "Pow")                                                                               \
  X(maximum, MAXIMUM, "Maximum")                                                                   \
  X(minimum, MINIMUM, "Minimum")                                                                   \
  X(equal, EQUAL, "Equal")                                                                         \
  X(not_equal, NOT_EQUAL, "NotEqual")                                                              \
  X(greater, GREATER, "Greater")                                                                   \
  X(greater_equal, GREATER_EQUAL, "GreaterEqual")                                                  \
  X(less, LESS, "Less")                                                                            \
  X(less_equal, LESS_EQUAL, "LessEqual")                                                           \
  X(logical_and, LOGICAL_AND, "LogicalAnd")                                                        \
  X(logical_or, LOGICAL_OR, "LogicalOr")

#define TF_REDUCE_LIST(X)                                                                          \
  X(reduce_sum, SUM)                                                                               \
  X(reduce_mean, MEAN)                                                                             \
  X(reduce_max, MAX)                                                                               \
  X(reduce_min, MIN)                                                                               \
  X(reduce_prod, PROD)                                                                             \
  X(reduce_all, ALL)                                                                               \
  X(reduce_any, ANY)

#define DEFINE_WRAPPER(kind, name, op, node)                                                       \
  static LangValue tf_##name(LangState *L, LangValue self, const LangValue *args, int nargs,       \
                             LangObject *kwnames)                                                  \
  {                                                                                                \
    return kind##_fn(L, #name, TR_OP_##op, node, args, nargs, kwnames);                            \
  }
#define DEFINE_UNARY(name, op)        DEFINE_WRAPPER(unary, name, op, NULL)
#define DEFINE_BINARY(name, op, node) DEFINE_WRAPPER(binary, name, op, node)
#define DEFINE_REDUCE(name, op)       DEFINE_WRAPPER(reduce, name, op, NULL)
TF_UNARY_LIST(DEFINE_UNARY)
TF_BINARY_LIST(DEFINE_BINARY)
TF_REDUCE_LIST(DEFINE_REDUCE)
#undef DEFINE_WRAPPER

#define UNARY_DEF(name, op)        {#name, tf_##name, "(x, name=None)", NULL, 0},
#define BINARY_DEF(name, op, node) {#name, tf_##name, "(x, y, name=None)", NULL, 0},
#define REDUCE_DEF(name, op)                                                                       \
  {#name, tf_##name, "(input_tensor, axis=None, keepdims=False, name=None)", NULL, 0},

/* ---- creation ------------------------------------------------------------------------- */

/* tf.constant's value: `t` (transfer full) cast to `dtype` and given `shape` (a single value is
 * broadcast to it). Transfer full, or NULL with an exception raised. */
static TrTensor *
constant_tensor(LangState *L, TrTensor *t, TrDType dtype, LangValue shape)
{
  GError *error = NULL;
  if (dtype != TR_DTYPE_INVALID && t->dtype != dtype) {
    TrTensor *c = tr_cast(t, dtype, &error);
    tr_tensor_unref(t);
    if (!c) {
      lang_tf_raise_error(L, error);
      return NULL;
    }
    t = c;
  }
  if (lang_is_unset(shape) || shape.tag == LANG_TAG_NONE)
    return t;
  TrShape s;
  if (!shape_arg(L, shape, "shape", &s)) {
    tr_tensor_unref(t);
    return NULL;
  }
  int64_t n = tr_tensor_num_elements(t), want = tr_shape_num_elements(&s);
  TrTensor *r = NULL;
  if (n == 1)
    r = tr_fill(&s, t, &error);
  else if (n == want)
    r = tr_reshape(t, s.dims, s.rank, &error);
  tr_tensor_unref(t);
  if (n != 1 && n != want) {
    lang_raise(L, &lang_exc_TypeError,
               "Eager execution of tf.constant with unsupported shape. Tensor %s of shape "
               "(%" G_GINT64_FORMAT ",) cannot be reshaped to shape %s",
               "value", n, "requested");
    return NULL;
  }
  if (!r)
    lang_tf_raise_error(L, error);
  return r;
}

/* tf.constant of a symbolic tensor or a Variable while tracing: an Identity of its value, or a
 * Reshape to `shape`, after a Cast to `dtype`. */
static LangValue
constant_of_graph_value(LangState *L, LangValue value, TrDType dtype, LangValue shape,
                        const char *name)
{
  LangTfOperand o;
  if (!operand_arg(L, value, dtype, &o))
    return LANG_EXC;
  bool reshape = !lang_is_unset(shape) && shape.tag != LANG_TAG_NONE;
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  TrShape s;
  LangValue r = LANG_EXC;
  if ((dtype == TR_DTYPE_INVALID || cast_operand(L, &o, dtype)) &&
      (!reshape || shape_arg(L, shape, "shape", &s))) {
    if (reshape) {
      memcpy(attrs.axes, s.dims, sizeof(int64_t) * (size_t)s.rank);
      attrs.n_axes = s.rank;
    }
    r = lang_tf_apply(L, reshape ? TR_OP_RESHAPE : TR_OP_IDENTITY, &o, 1, &attrs, name);
  }
  lang_tf_operand_clear(&o);
  return r;
}

static LangValue
tf_constant(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue value, dtype = LANG_UNSET, shape = LANG_UNSET, name = LANG_UNSET;
  if (!lang_parse_args(L, "constant", args, nargs, kwnames, "value,dtype=,shape=,name=", &value,
                       &dtype, &shape, &name))
    return LANG_EXC;
  TrDType dt;
  if (!lang_tf_dtype_arg(L, dtype, TR_DTYPE_INVALID, &dt))
    return LANG_EXC;
  if (lang_tf_is_symbolic(value) || (lang_tf_is_variable(value) && lang_tf_trace(L)))
    return constant_of_graph_value(L, value, dt, shape, name_arg(name, NULL));
  TrTensor *t = lang_tf_is_variable(value) ? tr_variable_read(((LangTfVariable *)value.o)->var)
                                           : lang_tf_convert(L, value, dt, true);
  if (t)
    t = constant_tensor(L, t, dt, shape);
  return constant_value(L, t, name_arg(name, NULL));
}

static LangValue
tf_convert_to_tensor(LangState *L, LangValue self, const LangValue *args, int nargs,
                     LangObject *kwnames)
{
  LangValue value, dtype = LANG_UNSET, hint = LANG_UNSET, name = LANG_UNSET;
  if (!lang_parse_args(L, "convert_to_tensor", args, nargs, kwnames,
                       "value,dtype=,dtype_hint=,name=", &value, &dtype, &hint, &name))
    return LANG_EXC;
  TrDType dt, dh;
  if (!lang_tf_dtype_arg(L, dtype, TR_DTYPE_INVALID, &dt) ||
      !lang_tf_dtype_arg(L, hint, TR_DTYPE_INVALID, &dh))
    return LANG_EXC;
  LangTfOperand o;
  bool ok = dt != TR_DTYPE_INVALID ? lang_tf_operand(L, value, dt, false, &o)
                                   : lang_tf_operand(L, value, dh, true, &o);
  return ok ? lang_tf_operand_to_value(L, &o) : LANG_EXC;
}

/* tf.zeros and tf.ones: Fill of `value` converted to the dtype. */
static LangValue
fill_value_fn(LangState *L, const char *fname, double value, const LangValue *args, int nargs,
              LangObject *kwnames)
{
  LangValue shape, dtype = LANG_UNSET, name = LANG_UNSET;
  if (!lang_parse_args(L, fname, args, nargs, kwnames, "shape,dtype=,name=", &shape, &dtype, &name))
    return LANG_EXC;
  LangTfOperand in[2];
  TrDType dt;
  if (!dims_operand(L, shape, "shape", &in[0]))
    return LANG_EXC;
  if (!lang_tf_dtype_arg(L, dtype, TR_FLOAT32, &dt)) {
    lang_tf_operand_clear(&in[0]);
    return LANG_EXC;
  }
  GError *error = NULL;
  TrTensor *v = dt == TR_STRING ? tr_tensor_new_string("", 0) : tr_tensor_new_float64(value);
  if (v->dtype != dt) {
    TrTensor *c = tr_cast(v, dt, &error);
    tr_tensor_unref(v);
    v = c;
  }
  if (!v) {
    lang_tf_operand_clear(&in[0]);
    return lang_tf_raise_error(L, error);
  }
  lang_tf_operand_from_tensor(L, v, &in[1]);
  LangValue r = lang_tf_apply(L, TR_OP_FILL, in, 2, NULL, name_arg(name, fname));
  lang_tf_operands_clear(in, 2);
  return r;
}

static LangValue
tf_zeros(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  return fill_value_fn(L, "zeros", 0, args, nargs, kwnames);
}

static LangValue
tf_ones(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  return fill_value_fn(L, "ones", 1, args, nargs, kwnames);
}

static LangValue
tf_fill(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue dims, value, name = LANG_UNSET;
  if (!lang_parse_args(L, "fill", args, nargs, kwnames, "dims,value,name=", &dims, &value, &name))
    return LANG_EXC;
  LangTfOperand in[2];
  if (!dims_operand(L, dims, "dims", &in[0]))
    return LANG_EXC;
  if (!operand_arg(L, value, TR_DTYPE_INVALID, &in[1])) {
    lang_tf_operand_clear(&in[0]);
    return LANG_EXC;
  }
  LangValue r = lang_tf_apply(L, TR_OP_FILL, in, 2, NULL, name_arg(name, NULL));
  lang_tf_operands_clear(in, 2);
  return r;
}

static LangValue
like_fn(LangState *L, const char *fname, TrOpId op, const LangValue *args, int nargs,
        LangObject *kwnames)
{
  LangValue input, dtype = LANG_UNSET, name = LANG_UNSET;
  if (!lang_parse_args(L, fname, args, nargs, kwnames, "input,dtype=,name=", &input, &dtype, &name))
    return LANG_EXC;
  TrDType dt;
  if (!lang_tf_dtype_arg(L, dtype, TR_DTYPE_INVALID, &dt))
    return LANG_EXC;
  LangTfOperand o, r;
  if (!operand_arg(L, input, TR_DTYPE_INVALID, &o))
    return LANG_EXC;
  bool ok = lang_tf_apply_operand(L, op, &o, 1, NULL, name_arg(name, NULL), &r);
  lang_tf_operand_clear(&o);
  if (ok && dt != TR_DTYPE_INVALID && !cast_operand(L, &r, dt)) {
    lang_tf_operand_clear(&r);
    ok = false;
  }
  return ok ? lang_tf_operand_to_value(L, &r) : LANG_EXC;
}

static LangValue
tf_zeros_like(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  return like_fn(L, "zeros_like", TR_OP_ZEROS_LIKE, args, nargs, kwnames);
}

static LangValue
tf_ones_like(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  return like_fn(L, "ones_like", TR_OP_ONES_LIKE, args, nargs, kwnames);
}

/* tf.range's dtype: the widest of the arguments in TF's order int32 < int64 < float32 < float64. */
static int
range_rank(TrDType d)
{
  switch (d) {
    case TR_INT32:
      return 0;
    case TR_INT64:
      return 1;
    case TR_FLOAT32:
      return 2;
    case TR_FLOAT64:
      return 3;
    default:
      return -1;
  }
}

static LangValue
tf_range(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue start, limit = LANG_UNSET, delta = LANG_UNSET, dtype = LANG_UNSET, name = LANG_UNSET;
  if (!lang_parse_args(L, "range", args, nargs, kwnames, "start,limit=,delta=,dtype=,name=", &start,
                       &limit, &delta, &dtype, &name))
    return LANG_EXC;
  TrDType dt;
  if (!lang_tf_dtype_arg(L, dtype, TR_DTYPE_INVALID, &dt))
    return LANG_EXC;
  if (lang_is_unset(limit) || limit.tag == LANG_TAG_NONE) {
    limit = start;
    start = lang_int(0);
  }
  if (lang_is_unset(delta))
    delta = lang_int(1);
  LangValue vals[3] = {start, limit, delta};
  LangTfOperand in[3];
  memset(in, 0, sizeof in);
  TrDType widest = TR_INT32;
  bool ok = true;
  for (int i = 0; ok && i < 3; i++) {
    ok = operand_arg(L, vals[i], dt, &in[i]);
    if (ok && range_rank(in[i].dtype) > range_rank(widest))
      widest = in[i].dtype;
  }
  if (dt == TR_DTYPE_INVALID)
    dt = widest;
  for (int i = 0; ok && i < 3; i++)
    ok = cast_operand(L, &in[i], dt);
  LangValue r = ok ? lang_tf_apply(L, TR_OP_RANGE, in, 3, NULL, name_arg(name, NULL)) : LANG_EXC;
  lang_tf_operands_clear(in, 3);
  return r;
}

static LangValue
tf_eye(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue rows, cols = LANG_UNSET, batch = LANG_UNSET, dtype = LANG_UNSET, name = LANG_UNSET;
  if (!lang_parse_args(L, "eye", args, nargs, kwnames,
                       "num_rows,num_columns=,batch_shape=,dtype=,name=", &rows, &cols, &batch,
                       &dtype, &name))
    return LANG_EXC;
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  if (!int_arg(L, rows, "num_rows", 0, &attrs.num_rows) ||
      !int_arg(L, cols, "num_columns", -1, &attrs.num_columns) ||
      !lang_tf_dtype_arg(L, dtype, TR_FLOAT32, &attrs.dtype))
    return LANG_EXC;
  return lang_tf_apply(L, TR_OP_EYE, NULL, 0, &attrs, name_arg(name, NULL));
}

static LangValue
tf_linspace(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue start, stop, num, name = LANG_UNSET, axis = LANG_UNSET;
  if (!lang_parse_args(L, "linspace", args, nargs, kwnames, "start,stop,num,name=,axis=", &start,
                       &stop, &num, &name, &axis))
    return LANG_EXC;
  LangTfOperand in[3];
  if (!lang_tf_operand_pair(L, start, stop, &in[0], &in[1]))
    return LANG_EXC;
  if (!operand_arg(L, num, TR_INT32, &in[2])) {
    lang_tf_operands_clear(in, 2);
    return LANG_EXC;
  }
  LangValue r = lang_tf_apply(L, TR_OP_LINSPACE, in, 3, NULL, name_arg(name, NULL));
  lang_tf_operands_clear(in, 3);
  return r;
}

static LangValue
tf_cast(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue x, dtype, name = LANG_UNSET;
  if (!lang_parse_args(L, "cast", args, nargs, kwnames, "x,dtype,name=", &x, &dtype, &name))
    return LANG_EXC;
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  if (!lang_tf_dtype_arg(L, dtype, TR_DTYPE_INVALID, &attrs.dtype))
    return LANG_EXC;
  LangTfOperand o;
  if (!operand_arg(L, x, TR_DTYPE_INVALID, &o))
    return LANG_EXC;
  /* While tracing, a tensor of the dtype already is the result, as tf.cast adds no op then. */
  if (lang_tf_trace(L) && o.dtype == attrs.dtype)
    return lang_tf_operand_to_value(L, &o);
  LangValue r = lang_tf_apply(L, TR_OP_CAST, &o, 1, &attrs, name_arg(name, NULL));
  lang_tf_operand_clear(&o);
  return r;
}

/* ---- linear algebra, shapes, selection --------------------------------------------------- */

static LangValue
tf_matmul(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue a, b, ta_v = LANG_UNSET, tb_v = LANG_UNSET, name = LANG_UNSET;
  if (!lang_parse_args(L, "matmul", args, nargs, kwnames, "a,b,transpose_a=,transpose_b=,name=", &a,
                       &b, &ta_v, &tb_v, &name))
    return LANG_EXC;
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  if (!bool_arg(L, ta_v, &attrs.transpose_a) || !bool_arg(L, tb_v, &attrs.transpose_b))
    return LANG_EXC;
  LangTfOperand in[2];
  if (!lang_tf_operand_pair(L, a, b, &in[0], &in[1]))
    return LANG_EXC;
  /* tf.matmul's choice: MatMul for matrices, BatchMatMulV2 once either input has batch dims (or
   * may have: an unknown rank). */
  int ra = in[0].shape.rank, rb = in[1].shape.rank;
  bool batch = ra > 2 || rb > 2 || ra == TR_UNKNOWN || rb == TR_UNKNOWN;
  LangValue r = lang_tf_apply(L, batch ? TR_OP_BATCH_MATMUL : TR_OP_MATMUL, in, 2, &attrs,
                              name_arg(name, NULL));
  lang_tf_operands_clear(in, 2);
  return r;
}

static LangValue
arg_fn(LangState *L, const char *fname, TrOpId op, const LangValue *args, int nargs,
       LangObject *kwnames)
{
  LangValue x, axis = LANG_UNSET, out = LANG_UNSET, name = LANG_UNSET;
  if (!lang_parse_args(L, fname, args, nargs, kwnames, "input,axis=,output_type=,name=", &x, &axis,
                       &out, &name))
    return LANG_EXC;
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  if (!int_arg(L, axis, "axis", 0, &attrs.axis) ||
      !lang_tf_dtype_arg(L, out, TR_INT64, &attrs.dtype))
    return LANG_EXC;
  return apply1(L, op, x, &attrs, name_arg(name, NULL));
}

static LangValue
tf_argmax(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  return arg_fn(L, "argmax", TR_OP_ARGMAX, args, nargs, kwnames);
}

static LangValue
tf_argmin(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  return arg_fn(L, "argmin", TR_OP_ARGMIN, args, nargs, kwnames);
}

static LangValue
tf_transpose(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue a, perm = LANG_UNSET, conj = LANG_UNSET, name = LANG_UNSET;
  if (!lang_parse_args(L, "transpose", args, nargs, kwnames, "a,perm=,conjugate=,name=", &a, &perm,
                       &conj, &name))
    return LANG_EXC;
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  if (!axes_arg(L, perm, "perm", attrs.axes, &attrs.n_axes))
    return LANG_EXC;
  return apply1(L, TR_OP_TRANSPOSE, a, &attrs, name_arg(name, NULL));
}

static LangValue
tf_reshape(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue x, shape, name = LANG_UNSET;
  if (!lang_parse_args(L, "reshape", args, nargs, kwnames, "tensor,shape,name=", &x, &shape, &name))
    return LANG_EXC;
  TrShape s;
  if (!shape_arg(L, shape, "shape", &s))
    return LANG_EXC;
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  memcpy(attrs.axes, s.dims, sizeof(int64_t) * (size_t)s.rank);
  attrs.n_axes = s.rank;
  return apply1(L, TR_OP_RESHAPE, x, &attrs, name_arg(name, NULL));
}

static LangValue
join_fn(LangState *L, const char *fname, bool stack, const LangValue *args, int nargs,
        LangObject *kwnames)
{
  LangValue values, axis = LANG_UNSET, name = LANG_UNSET;
  if (!lang_parse_args(L, fname, args, nargs, kwnames,
                       stack ? "values,axis=,name=" : "values,axis,name=", &values, &axis, &name))
    return LANG_EXC;
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  if (!int_arg(L, axis, "axis", 0, &attrs.axis))
    return LANG_EXC;
  LangTfOperand *items;
  int n = operand_list_arg(L, values, &items);
  if (n < 0)
    return LANG_EXC;
  if (n == 0) {
    operand_list_free(items, 0);
    return lang_raise(
        L, &lang_exc_ValueError,
        "List argument 'values' to '%s' Op with length 0 shorter than minimum length %d.",
        stack ? "Pack" : "ConcatV2", stack ? 1 : 2);
  }
  LangValue r =
      lang_tf_apply(L, stack ? TR_OP_STACK : TR_OP_CONCAT, items, n, &attrs, name_arg(name, NULL));
  operand_list_free(items, n);
  return r;
}

static LangValue
tf_concat(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  return join_fn(L, "concat", false, args, nargs, kwnames);
}

static LangValue
tf_stack(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  return join_fn(L, "stack", true, args, nargs, kwnames);
}

static LangValue
tf_squeeze(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue x, axis = LANG_UNSET, name = LANG_UNSET;
  if (!lang_parse_args(L, "squeeze", args, nargs, kwnames, "input,axis=,name=", &x, &axis, &name))
    return LANG_EXC;
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  int n;
  if (!axes_arg(L, axis, "axis", attrs.axes, &n))
    return LANG_EXC;
  if (n > 0) /* none listed squeezes every size-1 dimension */
    attrs.n_axes = n;
  return apply1(L, TR_OP_SQUEEZE, x, &attrs, name_arg(name, NULL));
}

static LangValue
tf_expand_dims(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue x, axis, name = LANG_UNSET;
  if (!lang_parse_args(L, "expand_dims", args, nargs, kwnames, "input,axis,name=", &x, &axis,
                       &name))
    return LANG_EXC;
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  if (!int_arg(L, axis, "axis", 0, &attrs.axis))
    return LANG_EXC;
  return apply1(L, TR_OP_EXPAND_DIMS, x, &attrs, name_arg(name, NULL));
}

static LangValue
tf_where(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue cond, x = LANG_UNSET, y = LANG_UNSET, name = LANG_UNSET;
  if (!lang_parse_args(L, "where", args, nargs, kwnames, "condition,x=,y=,name=", &cond, &x, &y,
                       &name))
    return LANG_EXC;
  if (lang_is_unset(x) || lang_is_unset(y) || x.tag == LANG_TAG_NONE || y.tag == LANG_TAG_NONE)
    return lang_raise_str(
        L, &lang_tf_exc_UnimplementedError,
        "tf.where with only a condition (coordinates of true elements) is not supported yet");
  LangTfOperand in[3];
  if (!operand_arg(L, cond, TR_BOOL, &in[0]))
    return LANG_EXC;
  if (!lang_tf_operand_pair(L, x, y, &in[1], &in[2])) {
    lang_tf_operand_clear(&in[0]);
    return LANG_EXC;
  }
  LangValue r = lang_tf_apply(L, TR_OP_SELECT, in, 3, NULL, name_arg(name, NULL));
  lang_tf_operands_clear(in, 3);
  return r;
}

static LangValue
tf_clip_by_value(LangState *L, LangValue self, const LangValue *args, int nargs,
                 LangObject *kwnames)
{
  LangValue x, lo, hi, name = LANG_UNSET;
  if (!lang_parse_args(L, "clip_by_value", args, nargs, kwnames,
                       "t,clip_value_min,clip_value_max,name=", &x, &lo, &hi, &name))
    return LANG_EXC;
  LangTfOperand in[3];
  memset(in, 0, sizeof in);
  bool ok = operand_arg(L, x, TR_DTYPE_INVALID, &in[0]) &&
            operand_arg(L, lo, in[0].dtype, &in[1]) && operand_arg(L, hi, in[0].dtype, &in[2]);
  LangValue r =
      ok ? lang_tf_apply(L, TR_OP_CLIP_BY_VALUE, in, 3, NULL, name_arg(name, NULL)) : LANG_EXC;
  lang_tf_operands_clear(in, 3);
  return r;
}

static LangValue
tf_one_hot(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue ind, depth, on = LANG_UNSET, off = LANG_UNSET, axis = LANG_UNSET, dtype = LANG_UNSET,
                        name = LANG_UNSET;
  if (!lang_parse_args(L, "one_hot", args, nargs, kwnames,
                       "indices,depth,on_value=,off_value=,axis=,dtype=,name=", &ind, &depth, &on,
                       &off, &axis, &dtype, &name))
    return LANG_EXC;
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  TrDType dflt = on.tag == LANG_TAG_INT ? TR_INT32 : TR_FLOAT32;
  if (!int_arg(L, depth, "depth", 0, &attrs.depth) || !int_arg(L, axis, "axis", -1, &attrs.axis) ||
      !lang_tf_dtype_arg(L, dtype, dflt, &attrs.dtype) ||
      !double_arg(L, on, "on_value", 1, &attrs.on_value) ||
      !double_arg(L, off, "off_value", 0, &attrs.off_value))
    return LANG_EXC;
  return apply1(L, TR_OP_ONE_HOT, ind, &attrs, name_arg(name, NULL));
}

static LangValue
tf_gather(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue params, indices, validate = LANG_UNSET, axis = LANG_UNSET, batch = LANG_UNSET,
                             name = LANG_UNSET;
  if (!lang_parse_args(L, "gather", args, nargs, kwnames,
                       "params,indices,validate_indices=,axis=,batch_dims=,name=", &params,
                       &indices, &validate, &axis, &batch, &name))
    return LANG_EXC;
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  if (!int_arg(L, axis, "axis", 0, &attrs.axis))
    return LANG_EXC;
  LangTfOperand in[2];
  if (!operand_arg(L, params, TR_DTYPE_INVALID, &in[0]))
    return LANG_EXC;
  if (!operand_arg(L, indices, TR_DTYPE_INVALID, &in[1])) {
    lang_tf_operand_clear(&in[0]);
    return LANG_EXC;
  }
  LangValue r = lang_tf_apply(L, TR_OP_GATHER, in, 2, &attrs, name_arg(name, NULL));
  lang_tf_operands_clear(in, 2);
  return r;
}

/* The static shape of a tensor-like: a Variable's, a symbolic tensor's (possibly partial), or
 * that of the tensor a Python value converts to. */
static bool
shape_of_arg(LangState *L, LangValue v, TrShape *out)
{
  if (lang_tf_is_variable(v))
    return lang_tf_shape_of(v, out);
  if (lang_tf_is_symbolic(v)) {
    LangTfOperand o; /* raises TypeError for a tensor of another graph */
    if (!lang_tf_operand(L, v, TR_DTYPE_INVALID, true, &o))
      return false;
    *out = o.shape;
    lang_tf_operand_clear(&o);
    return true;
  }
  TrTensor *t = lang_tf_convert(L, v, TR_DTYPE_INVALID, true);
  if (!t)
    return false;
  *out = t->shape;
  tr_tensor_unref(t);
  return true;
}

/* tf.shape: computed here from the static shape (a Const node while tracing, which needs it
 * fully known). */
static LangValue
tf_shape(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue x, out = LANG_UNSET, name = LANG_UNSET;
  if (!lang_parse_args(L, "shape", args, nargs, kwnames, "input,out_type=,name=", &x, &out, &name))
    return LANG_EXC;
  TrDType dt;
  TrShape shape;
  if (!lang_tf_dtype_arg(L, out, TR_INT32, &dt) || !shape_of_arg(L, x, &shape))
    return LANG_EXC;
  if (!tr_shape_is_fully_defined(&shape)) {
    g_autofree char *text = tr_shape_to_string(&shape);
    return lang_raise(L, &lang_tf_exc_UnimplementedError,
                      "tf.shape of a tensor of shape %s, not fully known while tracing, is not "
                      "supported yet",
                      text);
  }
  int64_t n = shape.rank;
  TrShape s = tr_shape_make(1, &n);
  TrTensor *r = tr_tensor_new(dt, &s);
  for (int i = 0; i < shape.rank; i++) {
    if (dt == TR_INT64)
      ((int64_t *)tr_tensor_data(r))[i] = shape.dims[i];
    else
      ((int32_t *)tr_tensor_data(r))[i] = (int32_t)shape.dims[i];
  }
  return constant_value(L, r, name_arg(name, "Shape"));
}

/* ---- tf.nn --------------------------------------------------------------------------- */

static LangValue
tf_relu(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue x, name = LANG_UNSET;
  if (!lang_parse_args(L, "relu", args, nargs, kwnames, "features,name=", &x, &name))
    return LANG_EXC;
  return apply1(L, TR_OP_RELU, x, NULL, name_arg(name, NULL));
}

static LangValue
tf_softmax(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue x, axis = LANG_UNSET, name = LANG_UNSET;
  if (!lang_parse_args(L, "softmax", args, nargs, kwnames, "logits,axis=,name=", &x, &axis, &name))
    return LANG_EXC;
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  if (!int_arg(L, axis, "axis", -1, &attrs.axis))
    return LANG_EXC;
  return apply1(L, TR_OP_SOFTMAX, x, &attrs, name_arg(name, NULL));
}

/* conv2d strides: an int, [s], [sh, sw] or [1, sh, sw, 1]. */
static bool
conv_strides_arg(LangState *L, LangValue v, int64_t strides[2])
{
  TrShape s;
  if (!shape_arg(L, v, "strides", &s))
    return false;
  if (s.rank == 1)
    strides[0] = strides[1] = s.dims[0];
  else if (s.rank == 2)
    strides[0] = s.dims[0], strides[1] = s.dims[1];
  else if (s.rank == 4)
    strides[0] = s.dims[1], strides[1] = s.dims[2];
  else {
    lang_raise(L, &lang_exc_ValueError, "strides should be of length 1, 2 or 4 but was %d", s.rank);
    return false;
  }
  return true;
}

static LangValue
tf_conv2d(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue x, filters, strides, padding, fmt = LANG_UNSET, dil = LANG_UNSET, name = LANG_UNSET;
  if (!lang_parse_args(L, "conv2d", args, nargs, kwnames,
                       "input,filters,strides,padding,data_format=,dilations=,name=", &x, &filters,
                       &strides, &padding, &fmt, &dil, &name))
    return LANG_EXC;
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  if (!conv_strides_arg(L, strides, attrs.strides))
    return LANG_EXC;
  const char *p = lang_str_text(padding);
  if (g_ascii_strcasecmp(p, "VALID") == 0)
    attrs.padding = TR_PADDING_VALID;
  else if (g_ascii_strcasecmp(p, "SAME") == 0)
    attrs.padding = TR_PADDING_SAME;
  else
    return lang_raise(L, &lang_exc_ValueError,
                      "padding must be one of SAME, VALID, EXPLICIT. Received: padding=%s", p);
  LangTfOperand in[2];
  if (!lang_tf_operand_pair(L, x, filters, &in[0], &in[1]))
    return LANG_EXC;
  LangValue r = lang_tf_apply(L, TR_OP_CONV2D, in, 2, &attrs, name_arg(name, NULL));
  lang_tf_operands_clear(in, 2);
  return r;
}

/* ---- tf.random: a per-session seed and op counter ------------------------------------ */

typedef struct {
  LangObject base;  /* random_state_type */
  uint64_t seed2;   /* the global seed (or a per-session random one) */
  uint64_t counter; /* draws made since the seed was set */
} RandomState;

static LangType random_state_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "RandomState",
    .instance_size = sizeof(RandomState),
    .flags = LANG_TYPE_ABSTRACT_NEW,
};

/* The attrs of a random op but its counter: dtype, the two parameters (minval and maxval, or
 * mean and stddev) and the op seed. */
static bool
random_attrs(LangState *L, bool normal, LangValue dtype, LangValue seed, LangValue a, LangValue b,
             TrAttrs *attrs)
{
  tr_attrs_init(attrs);
  int64_t op_seed;
  if (!lang_tf_dtype_arg(L, dtype, TR_FLOAT32, &attrs->dtype) ||
      !int_arg(L, seed, "seed", 0, &op_seed) ||
      !double_arg(L, a, normal ? "mean" : "minval", 0, &attrs->minval) ||
      !double_arg(L, b, normal ? "stddev" : "maxval", 1, &attrs->maxval))
    return false;
  attrs->seed = (uint64_t)op_seed;
  bool b_given = !lang_is_unset(b) && b.tag != LANG_TAG_NONE;
  if (!normal && tr_dtype_is_int(attrs->dtype) && !b_given) {
    lang_raise(L, &lang_exc_ValueError, "Must specify maxval for integer dtype <dtype: '%s'>",
               tr_dtype_name(attrs->dtype));
    return false;
  }
  return true;
}

static LangValue
random_fn(LangState *L, LangValue self, bool normal, const LangValue *args, int nargs,
          LangObject *kwnames)
{
  LangValue shape, a = LANG_UNSET, b = LANG_UNSET, dtype = LANG_UNSET, seed = LANG_UNSET,
                   name = LANG_UNSET;
  const char *spec = normal ? "shape,mean=,stddev=,dtype=,seed=,name="
                            : "shape,minval=,maxval=,dtype=,seed=,name=";
  if (!lang_parse_args(L, normal ? "normal" : "uniform", args, nargs, kwnames, spec, &shape, &a, &b,
                       &dtype, &seed, &name))
    return LANG_EXC;
  LangTfOperand dims;
  if (!dims_operand(L, shape, "shape", &dims))
    return LANG_EXC;
  TrAttrs attrs;
  if (!random_attrs(L, normal, dtype, seed, a, b, &attrs)) {
    lang_tf_operand_clear(&dims);
    return LANG_EXC;
  }
  RandomState *st = (RandomState *)self.o;
  attrs.seed2 = st->seed2;
  attrs.counter = st->counter++;
  LangValue r = lang_tf_apply(L, normal ? TR_OP_RANDOM_NORMAL : TR_OP_RANDOM_UNIFORM, &dims, 1,
                              &attrs, name_arg(name, NULL));
  lang_tf_operand_clear(&dims);
  return r;
}

static LangValue
tf_random_uniform(LangState *L, LangValue self, const LangValue *args, int nargs,
                  LangObject *kwnames)
{
  return random_fn(L, self, false, args, nargs, kwnames);
}

static LangValue
tf_random_normal(LangState *L, LangValue self, const LangValue *args, int nargs,
                 LangObject *kwnames)
{
  return random_fn(L, self, true, args, nargs, kwnames);
}

static LangValue
tf_random_set_seed(LangState *L, LangValue self, const LangValue *args, int nargs,
                   LangObject *kwnames)
{
  LangValue seed;
  if (!lang_parse_args(L, "set_seed", args, nargs, kwnames, "seed", &seed))
    return LANG_EXC;
  int64_t s;
  if (!int_arg(L, seed, "seed", 0, &s))
    return LANG_EXC;
  RandomState *st = (RandomState *)self.o;
  st->seed2 = (uint64_t)s;
  st->counter = 0;
  return LANG_NONE;
}

static const LangMethodDef random_functions[] = {
    {"uniform", tf_random_uniform,
     "(shape, minval=0, maxval=None, dtype=tf.float32, seed=None, name=None)",
     "Outputs random values from a uniform distribution.", 0},
    {"normal", tf_random_normal,
     "(shape, mean=0.0, stddev=1.0, dtype=tf.float32, seed=None, name=None)",
     "Outputs random values from a normal distribution.", 0},
    {"set_seed", tf_random_set_seed, "(seed)", "Sets the global random seed.", 0},
    {NULL, NULL, NULL, NULL, 0},
};

/* ---- the module ------------------------------------------------------------------------ */

/* Functions in both tf and tf.math. */
static const LangMethodDef math_functions[] = {
    TF_UNARY_LIST(UNARY_DEF) TF_BINARY_LIST(BINARY_DEF) TF_REDUCE_LIST(REDUCE_DEF){
        "argmax", tf_argmax, "(input, axis=None, output_type=tf.int64, name=None)", NULL, 0},
    {"argmin", tf_argmin, "(input, axis=None, output_type=tf.int64, name=None)", NULL, 0},
    {NULL, NULL, NULL, NULL, 0},
};

static const LangMethodDef tf_functions[] = {
    {"constant", tf_constant, "(value, dtype=None, shape=None, name='Const')",
     "Creates a constant tensor.", 0},
    {"convert_to_tensor", tf_convert_to_tensor, "(value, dtype=None, dtype_hint=None, name=None)",
     NULL, 0},
    {"zeros", tf_zeros, "(shape, dtype=tf.float32, name=None)", NULL, 0},
    {"ones", tf_ones, "(shape, dtype=tf.float32, name=None)", NULL, 0},
    {"fill", tf_fill, "(dims, value, name=None)", NULL, 0},
    {"zeros_like", tf_zeros_like, "(input, dtype=None, name=None)", NULL, 0},
    {"ones_like", tf_ones_like, "(input, dtype=None, name=None)", NULL, 0},
    {"range", tf_range, "(start, limit=None, delta=1, dtype=None, name='range')", NULL, 0},
    {"eye", tf_eye, "(num_rows, num_columns=None, batch_shape=None, dtype=tf.float32, name=None)",
     NULL, 0},
    {"linspace", tf_linspace, "(start, stop, num, name=None, axis=0)", NULL, 0},
    {"cast", tf_cast, "(x, dtype, name=None)", NULL, 0},
    {"matmul", tf_matmul, "(a, b, transpose_a=False, transpose_b=False, name=None)", NULL, 0},
    {"transpose", tf_transpose, "(a, perm=None, conjugate=False, name='transpose')", NULL, 0},
    {"reshape", tf_reshape, "(tensor, shape, name=None)", NULL, 0},
    {"concat", tf_concat, "(values, axis, name='concat')", NULL, 0},
    {"stack", tf_stack, "(values, axis=0, name='stack')", NULL, 0},
    {"squeeze", tf_squeeze, "(input, axis=None, name=None)", NULL, 0},
    {"expand_dims", tf_expand_dims, "(input, axis, name=None)", NULL, 0},
    {"where", tf_where, "(condition, x=None, y=None, name=None)", NULL, 0},
    {"clip_by_value", tf_clip_by_value, "(t, clip_value_min, clip_value_max, name=None)", NULL, 0},
    {"one_hot", tf_one_hot,
     "(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None)", NULL, 0},
    {"gather", tf_gather,
     "(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None)", NULL, 0},
    {"shape", tf_shape, "(input, out_type=tf.int32, name=None)", NULL, 0},
    {NULL, NULL, NULL, NULL, 0},
};

static const LangMethodDef nn_functions[] = {
    {"relu", tf_relu, "(features, name=None)", NULL, 0},
    {"softmax", tf_softmax, "(logits, axis=None, name=None)", NULL, 0},
    {"conv2d", tf_conv2d,
     "(input, filters, strides, padding, data_format='NHWC', dilations=None, name=None)", NULL, 0},
    {NULL, NULL, NULL, NULL, 0},
};

#define ERRORS_MODULE "tensorflow.python.framework.errors_impl"

static void
types_ready(void)
{
  lang_type_ready(&lang_tf_dtype_type, "tensorflow.python.framework.dtypes");
  lang_type_ready(&random_state_type, "tensorflow.random");
  lang_type_ready(&lang_tf_exc_OpError, ERRORS_MODULE);
#define TF_EXC_READY(code, nm) lang_type_ready(&lang_tf_exc_##nm, ERRORS_MODULE);
  LANG_TF_ERROR_LIST(TF_EXC_READY)
#undef TF_EXC_READY
  lang_tf_tensor_types_ready("tensorflow");
}

/* Adds `sub` as attribute `name` of `module`, dropping the caller's reference. */
static bool
add_submodule(LangState *L, LangValue module, const char *name, LangValue sub)
{
  bool ok = lang_module_add(L, module, name, sub);
  lang_decref(sub);
  return ok;
}

static LangValue
random_module_new(LangState *L)
{
  LangValue m = lang_module_new(L, "tensorflow.random", "Random number generation.");
  RandomState *st = (RandomState *)lang_object_alloc(L, &random_state_type, sizeof(RandomState));
  st->seed2 = g_random_int();
  LangValue state = lang_obj(st);
  for (const LangMethodDef *d = random_functions; d->name; d++) {
    LangValue f = lang_native_function_new(L, d, state, "tensorflow.random");
    lang_module_add(L, m, d->name, f);
    lang_decref(f);
  }
  lang_decref(state);
  return m;
}

static LangValue
errors_module_new(LangState *L)
{
  LangValue m = lang_module_new(L, "tensorflow.errors", "Exception types for TensorFlow errors.");
  lang_module_add(L, m, "OpError", lang_obj(&lang_tf_exc_OpError));
#define TF_EXC_ADD(code, nm) lang_module_add(L, m, #nm, lang_obj(&lang_tf_exc_##nm));
  LANG_TF_ERROR_LIST(TF_EXC_ADD)
#undef TF_EXC_ADD
  return m;
}

LangValue
lang_tf_module_init(LangState *L)
{
  types_ready();
  LangValue m =
      lang_module_new(L, "tensorflow", "An eager subset of TensorFlow for notebook cells.");
  lang_module_add_functions(L, m, tf_functions);
  lang_module_add_functions(L, m, math_functions);
  lang_module_add_type(L, m, &lang_tf_tensor_type);
  lang_module_add_type(L, m, &lang_tf_tensor_shape_type);
  lang_module_add(L, m, "DType", lang_obj(&lang_tf_dtype_type));
  for (int d = 0; d < TR_N_DTYPES; d++)
    lang_module_add(L, m, tr_dtype_name(d), lang_tf_dtype_object(d));
  lang_module_add(L, m, "newaxis", LANG_NONE);

  LangValue math = lang_module_new(L, "tensorflow.math", "Math operations.");
  lang_module_add_functions(L, math, math_functions);
  add_submodule(L, m, "math", math);

  LangValue nn = lang_module_new(L, "tensorflow.nn", "Neural network operations.");
  lang_module_add_functions(L, nn, nn_functions);
  add_submodule(L, m, "nn", nn);

  add_submodule(L, m, "random", random_module_new(L));
  add_submodule(L, m, "errors", errors_module_new(L));
  add_submodule(L, m, "data", lang_tf_data_module_new(L));
  lang_module_add_type(L, m, &lang_tf_tensor_array_type);
  add_submodule(L, m, "keras", lang_tf_keras_module_new(L));
  return m;
}
