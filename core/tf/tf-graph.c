/* tf-graph.c — the op dispatcher of the tensorflow module: one op, two paths.
 *
 * Outside a trace, operands are concrete tensors and tf_apply() runs the op's kernel (and tells
 * a recording GradientTape). While a Function traces, operands are outputs of the graph being
 * built and tf_apply() adds a node: concrete tensors met on the way (globals, Python numbers)
 * become Const nodes, Variables a ReadVariableOp of their captured handle, tensors of an
 * enclosing trace are captured by branch and loop bodies. A symbolic tensor of any other graph
 * is a leaked tensor, and using it is TensorFlow's TypeError.
 *
 * This is the hot path of eager code and of tracing: operands live on the caller's stack, shapes
 * are copied only as far as their rank, and nothing here looks anything up by name.
 */
#include "tf-private.h"

#include <string.h>

/* A symbolic tensor used where its graph is not being built. */
static bool
raise_leaked(TfState *st, PyObject *v)
{
  TrOutput out = tf_symbolic_output(v);
  g_autofree char *name = tr_output_name(out);
  if (!tf_trace(st)) {
    PyErr_Format(PyExc_TypeError,
                 "An op outside of the function building code is being passed a \"Graph\" "
                 "tensor. It is possible to have Graph tensors leak out of the function building "
                 "context by including a tf.init_scope in your function building code, or by "
                 "storing a tensor of a traced function in a global, a list or an attribute. "
                 "Return it from the function instead.\nThe graph tensor has name: %s",
                 name);
    return false;
  }
  PyErr_Format(PyExc_TypeError,
               "tf.Graph captured an external symbolic tensor. The symbolic tensor '%s' created "
               "by node '%s' is captured by the tf.Graph being built as an input. But a tf.Graph "
               "is not allowed to take symbolic tensors from another graph as its inputs. Make "
               "sure all captured inputs of the tf.Graph are not symbolic tensors. Use return "
               "values, explicit Python locals or TensorFlow collections to access it. Please "
               "see https://www.tensorflow.org/guide/"
               "function#all_outputs_of_a_tffunction_must_be_return_values for more information.",
               name, out.node->name);
  return false;
}

/* ---- operands ---------------------------------------------------------------------------- */

void
tf_operand_clear(TfOperand *o)
{
  if (o->value)
    tr_tensor_unref(o->value);
  o->value = NULL;
}

void
tf_operands_clear(TfOperand *o, int n)
{
  for (int i = 0; i < n; i++)
    tf_operand_clear(&o[i]);
}

/* Copies the used part of a shape (operands are made on every op: no 264-byte copies). */
static inline void
shape_copy(TrShape *dst, const TrShape *src)
{
  dst->rank = src->rank;
  if (src->rank > 0)
    memcpy(dst->dims, src->dims, sizeof(int64_t) * (size_t)src->rank);
}

static void
operand_from_output(TfOperand *o, TrOutput out)
{
  o->value = NULL;
  o->out = out;
  o->dtype = tr_output_dtype(out);
  shape_copy(&o->shape, tr_output_shape(out));
}

static inline void
operand_clear_fields(TfOperand *o)
{
  o->value = NULL;
  o->out.node = NULL;
  o->out.index = 0;
  o->dtype = TR_DTYPE_INVALID;
  o->shape.rank = 0;
}

bool
tf_operand_from_tensor(TfState *st, TrTensor *t, TfOperand *out)
{
  TfTrace *tr = tf_trace(st);
  operand_clear_fields(out);
  if (!tr) {
    out->value = t;
    out->dtype = t->dtype;
    shape_copy(&out->shape, &t->shape);
    return true;
  }
  TrNode *node = g_hash_table_lookup(tr->consts, t);
  if (!node) {
    node = tr_graph_add_const(tr->graph, t, NULL);
    g_hash_table_insert(tr->consts, t, node);
  }
  tr_tensor_unref(t); /* the Const node holds it */
  operand_from_output(out, tr_node_output(node, 0));
  return true;
}

static bool
check_requested_dtype(PyObject *v, TrDType have, TrDType dtype, bool hint)
{
  if (dtype == TR_DTYPE_INVALID || hint || have == dtype)
    return true;
  PyErr_Format(PyExc_ValueError,
               "Tensor conversion requested dtype %s for Tensor with dtype %s: %R",
               tr_dtype_name(dtype), tr_dtype_name(have), v);
  return false;
}

/* `*out`, an output of `g`, as a tensor of trace `tr`'s graph: a branch or loop body takes a
 * tensor of an enclosing graph through a placeholder (recursively through nested bodies). False
 * when `g` is not an enclosing graph of tr (a leaked tensor). */
static bool
capture(TfTrace *tr, TrGraph *g, TrOutput *out)
{
  if (tr->graph == g)
    return true;
  if (!tr->captures || !tr->outer)
    return false;
  TrOutput outer = *out;
  if (!capture(tr->outer, g, &outer))
    return false;
  for (guint i = 0; i < tr->captures->len; i++) {
    TfCapture *c = &g_array_index(tr->captures, TfCapture, i);
    if (c->outer.node == outer.node && c->outer.index == outer.index) {
      *out = tr_node_output(c->inner, 0);
      return true;
    }
  }
  TfCapture c = {outer, tr_graph_add_placeholder(tr->graph, tr_output_dtype(outer),
                                                 tr_output_shape(outer), outer.node->name)};
  g_array_append_val(tr->captures, c);
  *out = tr_node_output(c.inner, 0);
  return true;
}

/* Whether a list/tuple holds a symbolic tensor or a Variable at any depth: while tracing it is
 * packed in the graph (TF's auto-packing) rather than converted as a constant. */
static bool
holds_graph_values(TfState *st, PyObject *v, int depth)
{
  if (depth > TR_MAX_RANK)
    return false;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(v);
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *item = PySequence_Fast_GET_ITEM(v, i);
    if (tf_is_symbolic(st, item) || (st->Variable && tf_is_variable(st, item)))
      return true;
    if ((PyList_Check(item) || PyTuple_Check(item)) && holds_graph_values(st, item, depth + 1))
      return true;
  }
  return false;
}

/* A list of graph values while tracing: a Pack of each item's operand. */
static bool
pack_operand(TfState *st, PyObject *v, TrDType dtype, bool hint, TfOperand *out)
{
  Py_ssize_t n = PySequence_Fast_GET_SIZE(v);
  if (n == 0 || n > 4096)
    return tf_operand(st, v, dtype, hint, out); /* not reached for n == 0 (no graph values) */
  /* An item's conversion may run Python code (__array__) that changes a list: the items are
   * read from a tuple of them. */
  PyObject *seq = PySequence_Tuple(v); /* owned */
  if (!seq)
    return false;
  v = seq;
  n = PyTuple_GET_SIZE(v);
  TfOperand *items = g_new(TfOperand, MAX(n, 1));
  TrDType dt = dtype;
  for (Py_ssize_t i = 0; dt == TR_DTYPE_INVALID && i < n; i++)
    dt = tf_dtype_of(st, PySequence_Fast_GET_ITEM(v, i));
  Py_ssize_t made = 0;
  bool ok = true;
  for (; ok && made < n; made++)
    ok = tf_operand(st, PySequence_Fast_GET_ITEM(v, made), dt, dtype == TR_DTYPE_INVALID || hint,
                    &items[made]);
  if (!ok)
    made--;
  if (ok) {
    TrAttrs stack;
    tr_attrs_init(&stack);
    stack.axis = 0;
    ok = tf_apply_operand(st, TR_OP_STACK, items, (int)n, &stack, "packed", out);
  }
  tf_operands_clear(items, (int)made);
  g_free(items);
  Py_DECREF(seq);
  return ok;
}

bool
tf_operand(TfState *st, PyObject *v, TrDType dtype, bool hint, TfOperand *out)
{
  TfTrace *tr = tf_trace(st);
  operand_clear_fields(out);
  if (tf_is_tensor(st, v)) {
    TfTensor *t = (TfTensor *)v;
    if (t->value) {
      if (!check_requested_dtype(v, t->value->dtype, dtype, hint))
        return false;
      if (!tr) { /* the common eager case */
        out->value = tr_tensor_ref(t->value);
        out->dtype = t->value->dtype;
        shape_copy(&out->shape, &t->value->shape);
        return true;
      }
      return tf_operand_from_tensor(st, tr_tensor_ref(t->value), out);
    }
    TrOutput o = t->out;
    if (!tr || (t->graph != tr->graph && !capture(tr, t->graph, &o)))
      return raise_leaked(st, v);
    if (!check_requested_dtype(v, tr_output_dtype(o), dtype, hint))
      return false;
    operand_from_output(out, o);
    return true;
  }
  if (st->Variable && tf_is_variable(st, v)) {
    TrVariable *var = ((TfVariable *)v)->var;
    if (!check_requested_dtype(v, var->dtype, dtype, hint))
      return false;
    if (G_UNLIKELY(st->variable_watch))
      tf_watch_variable_read(st, v);
    if (!tr) {
      TrTensor *value = tr_variable_read(var);
      if (G_UNLIKELY(st->tapes))
        tf_tape_read_variable(st, v, &value);
      return tf_operand_from_tensor(st, value, out);
    }
    TrNode *handle = tr_graph_capture_variable(tr->graph, var, var->name);
    GError *error = NULL;
    TrNode *read = tr_graph_add_read_variable(tr->graph, tr_node_output(handle, 0), NULL, &error);
    if (!read) {
      tf_raise_graph_error(st, error);
      return false;
    }
    operand_from_output(out, tr_node_output(read, 0));
    return true;
  }
  if (tr && (PyList_Check(v) || PyTuple_Check(v)) && holds_graph_values(st, v, 0))
    return pack_operand(st, v, dtype, hint, out);
  TrTensor *t = tf_convert(st, v, dtype, hint);
  return t && tf_operand_from_tensor(st, t, out);
}

bool
tf_operand_pair(TfState *st, PyObject *x, PyObject *y, TfOperand *ox, TfOperand *oy)
{
  TrDType hx = tf_dtype_of(st, x), hy = tf_dtype_of(st, y);
  if (!tf_operand(st, x, hx != TR_DTYPE_INVALID ? hx : hy, true, ox))
    return false;
  if (!tf_operand(st, y, ox->dtype, true, oy)) {
    tf_operand_clear(ox);
    return false;
  }
  return true;
}

/* ---- applying ops ------------------------------------------------------------------------ */

bool
tf_apply_operand(TfState *st, TrOpId op, const TfOperand *in, int n, const TrAttrs *attrs,
                 const char *name, TfOperand *result)
{
  TfTrace *tr = tf_trace(st);
  GError *error = NULL;
  operand_clear_fields(result);
  if (!tr) {
    TrTensor *vals[TR_MAX_RANK + 8];
    g_autofree TrTensor **heap = n > (int)G_N_ELEMENTS(vals) ? g_new(TrTensor *, n) : NULL;
    TrTensor **v = heap ? heap : vals;
    for (int i = 0; i < n; i++)
      v[i] = in[i].value;
    TrTensor *r = tr_op_run(op, v, n, attrs, &error);
    if (!r) {
      tf_raise_error(st, error);
      return false;
    }
    result->value = r;
    result->dtype = r->dtype;
    shape_copy(&result->shape, &r->shape);
    if (G_UNLIKELY(st->tapes))
      tf_tape_record_op(st, op, attrs, in, n, result);
    return true;
  }
  TrOutput outs[TR_MAX_RANK + 8];
  g_autofree TrOutput *heap = n > (int)G_N_ELEMENTS(outs) ? g_new(TrOutput, n) : NULL;
  TrOutput *o = heap ? heap : outs;
  for (int i = 0; i < n; i++)
    o[i] = in[i].out;
  TrNode *node = tr_graph_add_op(tr->graph, op, o, n, attrs, name, &error);
  if (!node) {
    tf_raise_any(st, error);
    return false;
  }
  operand_from_output(result, tr_node_output(node, 0));
  return true;
}

PyObject *
tf_operand_to_value(TfState *st, TfOperand *o)
{
  if (o->value) {
    TrTensor *t = o->value;
    o->value = NULL;
    return tf_tensor_new(st, t);
  }
  return tf_symbolic_new(st, o->out.node->graph, o->out);
}

PyObject *
tf_apply(TfState *st, TrOpId op, const TfOperand *in, int n, const TrAttrs *attrs, const char *name)
{
  TfOperand r;
  if (!tf_apply_operand(st, op, in, n, attrs, name, &r))
    return NULL;
  return tf_operand_to_value(st, &r);
}

PyObject *
tf_apply_truediv(TfState *st, const TfOperand *a, const TfOperand *b)
{
  if (!tr_dtype_is_int(a->dtype))
    return tf_apply(st, TR_OP_DIV, (TfOperand[]){*a, *b}, 2, NULL, "truediv");
  TrAttrs cast;
  tr_attrs_init(&cast);
  /* TensorFlow's _TRUEDIV_TABLE: 8- and 16-bit integers divide as float32, wider as float64 */
  cast.dtype = tr_dtype_size(a->dtype) <= 2 ? TR_FLOAT32 : TR_FLOAT64;
  TfOperand c[2];
  if (!tf_apply_operand(st, TR_OP_CAST, a, 1, &cast, NULL, &c[0]))
    return NULL;
  if (!tf_apply_operand(st, TR_OP_CAST, b, 1, &cast, NULL, &c[1])) {
    tf_operand_clear(&c[0]);
    return NULL;
  }
  PyObject *r = tf_apply(st, TR_OP_DIV, c, 2, NULL, "truediv");
  tf_operands_clear(c, 2);
  return r;
}

TrTensor *
tf_static_value(TfState *st, PyObject *v)
{
  if (tf_is_tensor(st, v)) {
    TfTensor *t = (TfTensor *)v;
    if (t->value)
      return tr_tensor_ref(t->value);
    if (t->out.node->op == TR_GOP_CONST)
      return tr_tensor_ref(t->out.node->value);
    return NULL;
  }
  if (st->Variable && tf_is_variable(st, v) && !tf_trace(st))
    return tr_variable_read(((TfVariable *)v)->var);
  return NULL;
}

/* ---- the part's init ---------------------------------------------------------------------- */

int
tf_graph_init(PyObject *module, TfState *st)
{
  return 0;
}

void
tf_graph_clear(TfState *st)
{
}
