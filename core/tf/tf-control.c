/* tf-control.c — AutoGraph's operators: the `ag__` namespace that code converted by
 * tf-autograph.c calls (SPEC §3.3).
 *
 * if_stmt, while_stmt and for_stmt receive a block's code as functions and its state (the names
 * the block assigns) through get_state/set_state closures. With Python values they run the
 * block as Python would. Inside a trace, with a symbolic tensor as the condition or the
 * iterable, they build graph nodes instead:
 * - `if`: both branches run, each in a child trace whose graph becomes a branch of an If node;
 *   the state each branch leaves is merged through the node's outputs (a name defined in one
 *   branch only, or with two dtypes, is an error naming it).
 * - `while` and `for` over tf.range, a tensor or a dataset: the test runs once into a cond graph
 *   and the body once into a body graph, on placeholders of the loop variables (the state's
 *   tensors and numbers at the loop's start); a While node runs them. A variable whose shape
 *   changes across one iteration makes the loop trace again with that dimension relaxed; a
 *   `return` inside (retval_ first set in the body) makes it trace again with the value as a
 *   loop variable.
 * Tensors of enclosing graphs used inside a child graph are its captures (tf_operand records
 * them): they become extra inputs of the node. converted_call, and_, or_, not_ and len_ complete
 * the namespace.
 *
 * tf.cond, tf.while_loop, tf.map_fn and tf.vectorized_map (py/control.py, run here) are written
 * over the same operators: cond_flat traces two branch functions into an If node, and
 * while_stmt takes tf.while_loop's shape invariants and its strictness (a shape that changes is
 * an error there, where AutoGraph relaxes it) through its opts.
 */
#include "control-py.h"
#include "tf-private.h"

#include <string.h>
#include <structmember.h>

/* ---- Undefined and UndefinedReturnValue ------------------------------------------------------ */

/* A name that a converted block's state holds before it is bound (TF's Undefined). */
typedef struct {
  PyObject_HEAD
  PyObject *symbol_name; /* the name (owned) */
} AgUndefined;

static PyObject *
undefined_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
  static const char *kwlist[] = {"symbol_name", NULL};
  PyObject *name;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "U:Undefined", (char **)kwlist, &name))
    return NULL;
  AgUndefined *self = (AgUndefined *)type->tp_alloc(type, 0);
  if (self)
    self->symbol_name = Py_NewRef(name);
  return (PyObject *)self;
}

static void
undefined_dealloc(PyObject *self)
{
  PyTypeObject *type = Py_TYPE(self);
  Py_CLEAR(((AgUndefined *)self)->symbol_name);
  type->tp_free(self);
  Py_DECREF(type);
}

static PyObject *
undefined_repr(PyObject *self)
{
  return Py_NewRef(((AgUndefined *)self)->symbol_name);
}

static PyMemberDef undefined_members[] = {
    {"symbol_name", T_OBJECT, offsetof(AgUndefined, symbol_name), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot undefined_slots[] = {
    {Py_tp_new, undefined_new},
    {Py_tp_dealloc, undefined_dealloc},
    {Py_tp_repr, undefined_repr},
    {Py_tp_members, undefined_members},
    {Py_tp_doc, "A symbol that a converted block's state holds before it is bound."},
    {0, NULL},
};

static PyType_Spec undefined_spec = {
    .name = "tensorflow.autograph.Undefined",
    .basicsize = sizeof(AgUndefined),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = undefined_slots,
};

static PyType_Slot undefined_return_slots[] = {
    {Py_tp_doc, "The return value of a converted function before a return ran."},
    {0, NULL},
};

static PyType_Spec undefined_return_spec = {
    .name = "tensorflow.autograph.UndefinedReturnValue",
    .basicsize = sizeof(PyObject),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = undefined_return_slots,
};

static bool
is_undefined(TfState *st, PyObject *v)
{
  return Py_IS_TYPE(v, st->AgUndefined);
}

static bool
is_undefined_return(TfState *st, PyObject *v)
{
  return Py_IS_TYPE(v, st->AgUndefinedReturnValue);
}

/* ---- values on the current path ------------------------------------------------------------- */

static bool
symbolic(TfState *st, PyObject *v)
{
  return st->trace && tf_is_symbolic(st, v);
}

/* A value that can be a loop variable or an output of an If: a tensor, a TensorArray, a number. */
static bool
tensor_like(TfState *st, PyObject *v)
{
  return tf_is_tensor(st, v) || tf_is_tensor_array(st, v) || PyLong_Check(v) || PyFloat_Check(v);
}

static const char *
type_name(PyObject *v)
{
  return Py_TYPE(v)->tp_name;
}

/* The tensor carrying v's value on the current path (a TensorArray's tensor list). */
static bool
value_operand(TfState *st, PyObject *v, TrDType dtype, bool hint, TfOperand *out)
{
  if (tf_is_tensor_array(st, v))
    return tf_tensor_array_flow(st, v, out);
  return tf_operand(st, v, dtype, hint, out);
}

/* The value for output `out` of graph g, shaped like `like` (a TensorArray stays one). New
 * reference. */
static PyObject *
value_wrap(TfState *st, PyObject *like, TrGraph *g, TrOutput out)
{
  PyObject *t = tf_symbolic_new(st, g, out);
  if (!t || !tf_is_tensor_array(st, like))
    return t;
  PyObject *ta = tf_tensor_array_with_flow(st, like, t);
  Py_DECREF(t);
  return ta;
}

/* The state's values as a tuple (new reference), checked against the names. */
static PyObject *
get_state(PyObject *get, Py_ssize_t n)
{
  PyObject *vals = PyObject_CallNoArgs(get);
  if (vals && (!PyTuple_Check(vals) || PyTuple_GET_SIZE(vals) != n)) {
    Py_DECREF(vals);
    PyErr_SetString(PyExc_RuntimeError, "AutoGraph's get_state returned the wrong state");
    return NULL;
  }
  return vals;
}

static bool
set_state(PyObject *set, PyObject *vals)
{
  PyObject *r = PyObject_CallOneArg(set, vals);
  Py_XDECREF(r);
  return r != NULL;
}

/* Puts `vals` back after a failure, keeping the exception that caused it. */
static void
restore_state(PyObject *set, PyObject *vals)
{
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  if (!set_state(set, vals))
    PyErr_Clear();
  PyErr_Restore(type, value, tb);
}

static const char *
name_at(PyObject *names, Py_ssize_t k)
{
  if (!names || !PyTuple_Check(names) || k >= PyTuple_GET_SIZE(names))
    return "?";
  const char *s = PyUnicode_AsUTF8(PyTuple_GET_ITEM(names, k));
  if (!s)
    PyErr_Clear();
  return s ? s : "?";
}

/* ---- child traces ---------------------------------------------------------------------------- */

/* A trace for a branch, cond or body graph inside `parent`. */
static void
child_init(TfTrace *t, TfTrace *parent, const char *graph_name)
{
  memset(t, 0, sizeof *t);
  t->graph = tr_graph_new(graph_name);
  t->outer = parent;
  t->consts = g_hash_table_new(NULL, NULL);
  t->captures = g_array_new(FALSE, FALSE, sizeof(TfCapture));
  t->fn_name = parent->fn_name;
}

/* Drops what a child trace holds; an error it recorded goes to its parent. */
static void
child_clear(TfTrace *t)
{
  if (t->error && t->outer && !t->outer->error)
    t->outer->error = g_steal_pointer(&t->error);
  g_clear_pointer(&t->error, g_free);
  g_clear_pointer(&t->graph, tr_graph_unref);
  g_clear_pointer(&t->consts, g_hash_table_unref);
  if (t->captures) {
    g_array_free(t->captures, TRUE);
    t->captures = NULL;
  }
}

static int
n_captures(const TfTrace *t)
{
  return (int)t->captures->len;
}

static TrOutput
capture_outer(const TfTrace *t, int i)
{
  return g_array_index(t->captures, TfCapture, i).outer;
}

static TrOutput
capture_inner(const TfTrace *t, int i)
{
  return tr_node_output(g_array_index(t->captures, TfCapture, i).inner, 0);
}

/* fn() or fn(arg) with `t` as the current trace. New reference. */
static PyObject *
call_in(TfState *st, TfTrace *t, PyObject *fn, PyObject *arg)
{
  TfTrace *saved = st->trace;
  st->trace = t;
  PyObject *r = arg ? PyObject_CallOneArg(fn, arg) : PyObject_CallNoArgs(fn);
  st->trace = saved;
  return r;
}

/* value_operand with `t` as the current trace. */
static bool
operand_in(TfState *st, TfTrace *t, PyObject *v, TrDType dtype, bool hint, TfOperand *out)
{
  TfTrace *saved = st->trace;
  st->trace = t;
  bool ok = value_operand(st, v, dtype, hint, out);
  st->trace = saved;
  return ok;
}

/* Zeros like `out` in `g`: the value a branch or a loop's first pass gives a return value that
 * is not set there yet (TF's placeholder value). Unknown dims become 0, an unknown rank a
 * scalar. */
static bool
zeros_like(TfState *st, TrGraph *g, TrOutput out, TrOutput *zeros)
{
  TrDType dtype = tr_output_dtype(out);
  if ((int)dtype >= TR_N_DTYPES) {
    PyErr_Format(PyExc_TypeError,
                 "A `return` of a %s value inside a conditional or loop on a "
                 "symbolic tensor must happen on every path",
                 tr_graph_dtype_name(dtype));
    return false;
  }
  TrShape shape = *tr_output_shape(out);
  if (shape.rank == TR_UNKNOWN)
    shape = tr_shape_scalar();
  for (int i = 0; i < shape.rank; i++)
    if (shape.dims[i] == TR_UNKNOWN)
      shape.dims[i] = 0;
  g_autoptr(TrTensor) value = tr_tensor_new(dtype, &shape);
  *zeros = tr_node_output(tr_graph_add_const(g, value, "zeros"), 0);
  return true;
}

/* ---- if ------------------------------------------------------------------------------------ */

/* The branch traces of an `if` and what each left. */
typedef struct {
  TfTrace *parent;
  TfTrace then_t, else_t;
  PyObject *names;
  bool guard;                             /* the `if not flag` of a lowered break or return */
  PyObject *init, *then_vals, *else_vals; /* owned */
  int n_out;
  int *which;        /* per output: its state index */
  TrOutput *ta, *te; /* per output: its value in each branch */
} IfBlock;

static void
if_block_clear(IfBlock *b)
{
  if (b->then_t.graph)
    child_clear(&b->then_t);
  if (b->else_t.graph)
    child_clear(&b->else_t);
  Py_CLEAR(b->init);
  Py_CLEAR(b->then_vals);
  Py_CLEAR(b->else_vals);
  g_clear_pointer(&b->which, g_free);
  g_clear_pointer(&b->ta, g_free);
  g_clear_pointer(&b->te, g_free);
}

/* Whether two Python values left by the branches are the same value: no output needed. */
static bool
same_python_value(PyObject *a, PyObject *e)
{
  if (a == e)
    return true;
  if (Py_TYPE(a) != Py_TYPE(e) || !(PyLong_Check(a) || PyFloat_Check(a)))
    return false;
  int eq = PyObject_RichCompareBool(a, e, Py_EQ);
  if (eq < 0)
    PyErr_Clear();
  return eq > 0;
}

/* The outputs of both branches for state value k. Returns 1 when it needs an output, 0 when
 * the value stays as it is, 2 when it stays undefined (a guard's), -1 on error. */
static int
if_merge(TfState *st, IfBlock *b, Py_ssize_t k, TrOutput *ta, TrOutput *te)
{
  PyObject *a = PyTuple_GET_ITEM(b->then_vals, k), *e = PyTuple_GET_ITEM(b->else_vals, k);
  const char *name = name_at(b->names, k);
  if (same_python_value(a, e))
    return 0;
  if (is_undefined(st, a) || is_undefined(st, e)) {
    if (is_undefined(st, a) && is_undefined(st, e))
      return 0;
    if (b->guard)
      return 2;
    PyErr_Format(PyExc_ValueError,
                 "'%s' must also be initialized in the %s branch: an `if` on a symbolic tensor "
                 "runs both branches, and each must leave '%s' defined",
                 name, is_undefined(st, a) ? "main" : "else", name);
    return -1;
  }
  if (is_undefined_return(st, a) && is_undefined_return(st, e))
    return 0;
  if (is_undefined_return(st, a) || is_undefined_return(st, e)) {
    /* A `return` ran in one branch only: the other gives zeros of the value's dtype and shape,
     * which its flag keeps from being returned. */
    bool in_then = !is_undefined_return(st, a);
    PyObject *v = in_then ? a : e;
    TfTrace *mine = in_then ? &b->then_t : &b->else_t;
    TfTrace *other = in_then ? &b->else_t : &b->then_t;
    TfOperand o;
    if (!tensor_like(st, v) || tf_is_tensor_array(st, v)) {
      PyErr_Format(PyExc_TypeError,
                   "A `return` in one branch of an `if` on a symbolic tensor must return a "
                   "tensor or a number, not %s",
                   type_name(v));
      return -1;
    }
    if (!operand_in(st, mine, v, TR_DTYPE_INVALID, true, &o))
      return -1;
    TrOutput z;
    bool ok = zeros_like(st, other->graph, o.out, &z);
    *ta = in_then ? o.out : z;
    *te = in_then ? z : o.out;
    tf_operand_clear(&o);
    return ok ? 1 : -1;
  }
  if (!tensor_like(st, a) || !tensor_like(st, e)) {
    PyErr_Format(PyExc_TypeError,
                 "'%s' is a %s in the main branch and a %s in the else branch of an `if` on a "
                 "tensor; values an `if` on a tensor sets in a branch must be tensors or numbers",
                 name, type_name(a), type_name(e));
    return -1;
  }
  if (tf_is_tensor_array(st, a) != tf_is_tensor_array(st, e)) {
    PyErr_Format(PyExc_TypeError, "'%s' is a %s in the main branch and a %s in the else branch",
                 name, type_name(a), type_name(e));
    return -1;
  }
  TrDType hint = tf_dtype_of(st, a);
  if (hint == TR_DTYPE_INVALID)
    hint = tf_dtype_of(st, e);
  TfOperand oa, oe;
  if (!operand_in(st, &b->then_t, a, hint, hint != TR_DTYPE_INVALID, &oa))
    return -1;
  if (!operand_in(st, &b->else_t, e, hint, hint != TR_DTYPE_INVALID, &oe)) {
    tf_operand_clear(&oa);
    return -1;
  }
  *ta = oa.out;
  *te = oe.out;
  TrDType da = oa.dtype, de = oe.dtype;
  tf_operand_clear(&oa);
  tf_operand_clear(&oe);
  if (da != de) {
    PyErr_Format(PyExc_TypeError,
                 "'%s' has dtype %s in the main branch, but dtype %s in the else branch", name,
                 tr_dtype_name(da), tr_dtype_name(de));
    return -1;
  }
  return 1;
}

/* The If node for `pred` over the finished branches; *out (new reference) the state's values
 * after it: its outputs, and the values the branches left alike. */
static bool
if_build(TfState *st, IfBlock *b, TrOutput pred, PyObject **out)
{
  Py_ssize_t n = PyTuple_GET_SIZE(b->init);
  b->which = g_new(int, n + 1);
  b->ta = g_new(TrOutput, n + 1);
  b->te = g_new(TrOutput, n + 1);
  g_autofree bool *undefined = g_new0(bool, n + 1);
  for (Py_ssize_t k = 0; k < n; k++) {
    int r = if_merge(st, b, k, &b->ta[b->n_out], &b->te[b->n_out]);
    if (r < 0)
      return false;
    if (r == 1)
      b->which[b->n_out++] = (int)k;
    undefined[k] = r == 2;
  }
  GError *error = NULL;
  for (int i = 0; i < b->n_out; i++)
    if (!tr_graph_add_output(b->then_t.graph, b->ta[i], &error) ||
        !tr_graph_add_output(b->else_t.graph, b->te[i], &error)) {
      tf_raise_any(st, error);
      return false;
    }
  int n_then = n_captures(&b->then_t), n_else = n_captures(&b->else_t);
  g_autofree TrOutput *then_in = g_new(TrOutput, n_then + 1);
  g_autofree TrOutput *else_in = g_new(TrOutput, n_else + 1);
  for (int i = 0; i < n_then; i++)
    then_in[i] = capture_outer(&b->then_t, i);
  for (int i = 0; i < n_else; i++)
    else_in[i] = capture_outer(&b->else_t, i);
  TrGraph *g = b->parent->graph;
  TrNode *node = tr_graph_add_cond(g, pred, b->then_t.graph, b->else_t.graph, then_in, n_then,
                                   else_in, n_else, "cond", &error);
  if (!node) {
    tf_raise_any(st, error);
    return false;
  }
  PyObject *final = PyTuple_New(n);
  if (!final)
    return false;
  for (Py_ssize_t k = 0; k < n; k++) {
    PyObject *v = PyTuple_GET_ITEM(b->then_vals, k);
    if (undefined[k] && !is_undefined(st, v))
      v = PyTuple_GET_ITEM(b->else_vals, k);
    PyTuple_SET_ITEM(final, k, Py_NewRef(v));
  }
  for (int i = 0; i < b->n_out; i++) {
    int k = b->which[i];
    PyObject *like = PyTuple_GET_ITEM(b->then_vals, k);
    if (is_undefined_return(st, like))
      like = PyTuple_GET_ITEM(b->else_vals, k);
    PyObject *v = value_wrap(st, like, g, tr_node_output(node, i));
    if (!v) {
      Py_DECREF(final);
      return false;
    }
    Py_SETREF(PyTuple_GET_ITEM(final, k), v);
  }
  *out = final;
  return true;
}

/* if_build, then the state set to its values. */
static bool
if_finish(TfState *st, IfBlock *b, TrOutput pred, PyObject *set)
{
  PyObject *final = NULL;
  if (!if_build(st, b, pred, &final))
    return false;
  bool ok = set_state(set, final);
  Py_DECREF(final);
  return ok;
}

/* The condition of an `if` or `while` on a tensor: a scalar bool. */
static bool
predicate(TfState *st, PyObject *cond, const char *what, TfOperand *pred)
{
  if (!tf_operand(st, cond, TR_DTYPE_INVALID, false, pred))
    return false;
  if (pred->dtype != TR_BOOL) {
    if (strcmp(what, "if") == 0)
      PyErr_Format(PyExc_TypeError,
                   "The condition of an `if` on a tensor must be a bool tensor, but is a %s "
                   "tensor; compare it (`x != 0`) or cast it with tf.cast",
                   tr_dtype_name(pred->dtype));
    else
      PyErr_Format(PyExc_TypeError,
                   "The condition of a `while` on a tensor must be a bool tensor, but is a %s "
                   "tensor",
                   tr_dtype_name(pred->dtype));
    tf_operand_clear(pred);
    return false;
  }
  if (pred->shape.rank != 0 && pred->shape.rank != TR_UNKNOWN) {
    g_autofree char *shape = tr_shape_to_string(&pred->shape);
    PyErr_Format(PyExc_ValueError,
                 "The condition of an `%s` on a tensor must be a scalar, but has shape %s; reduce "
                 "it with tf.reduce_all or tf.reduce_any",
                 what, shape);
    tf_operand_clear(pred);
    return false;
  }
  return true;
}

/* `if` on a symbolic tensor: both branches traced, an If node. */
static bool
if_symbolic(TfState *st, PyObject *cond, PyObject *body, PyObject *orelse, PyObject *get,
            PyObject *set, PyObject *names, Py_ssize_t n, bool guard)
{
  TfOperand pred;
  if (!predicate(st, cond, "if", &pred))
    return false;
  IfBlock b = {.parent = st->trace, .names = names, .guard = guard};
  bool ok = (b.init = get_state(get, n)) != NULL;
  if (ok) {
    child_init(&b.then_t, b.parent, "cond_true");
    PyObject *r = call_in(st, &b.then_t, body, NULL);
    ok = r && (b.then_vals = get_state(get, n));
    Py_XDECREF(r);
  }
  if (ok) {
    child_init(&b.else_t, b.parent, "cond_false");
    ok = set_state(set, b.init);
    PyObject *r = ok ? call_in(st, &b.else_t, orelse, NULL) : NULL;
    ok = r && (b.else_vals = get_state(get, n));
    Py_XDECREF(r);
  }
  ok = ok && if_finish(st, &b, pred.out, set);
  if (!ok && b.init)
    restore_state(set, b.init);
  tf_operand_clear(&pred);
  if_block_clear(&b);
  return ok;
}

/* ag__.if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts, guard=False):
 * `guard` marks the `if not flag:` around statements after a lowered break or return. */
static PyObject *
ag_if_stmt(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  if (nargs != 7 && nargs != 8) {
    PyErr_SetString(PyExc_TypeError, "if_stmt() takes 7 arguments");
    return NULL;
  }
  TfState *st = tf_state();
  PyObject *cond = args[0], *names = args[5];
  if (symbolic(st, cond)) {
    Py_ssize_t n = PyTuple_Check(names) ? PyTuple_GET_SIZE(names) : 0;
    bool guard = nargs == 8 && PyObject_IsTrue(args[7]) > 0;
    if (!if_symbolic(st, cond, args[1], args[2], args[3], args[4], names, n, guard))
      return NULL;
    Py_RETURN_NONE;
  }
  int t = PyObject_IsTrue(cond);
  if (t < 0)
    return NULL;
  PyObject *r = PyObject_CallNoArgs(args[t ? 1 : 2]);
  if (!r)
    return NULL;
  Py_DECREF(r);
  Py_RETURN_NONE;
}

/* A branch of tf.cond: fn() in trace `t`, which must return a tuple (control.py flattens the
 * branch's structure). New reference. */
static PyObject *
cond_branch(TfState *st, TfTrace *t, PyObject *fn)
{
  PyObject *r = call_in(st, t, fn, NULL);
  if (r && !PyTuple_Check(r)) {
    Py_DECREF(r);
    PyErr_SetString(PyExc_RuntimeError, "tf.cond's branch wrapper returned no tuple");
    return NULL;
  }
  return r;
}

/* cond_flat(pred, true_fn, false_fn): tf.cond on a symbolic `pred` (control.py). Each function
 * returns a tuple of its branch's values, flattened; both are traced into branches of one If
 * node, whose outputs (values alike in both branches stay as they are) come back as a tuple. */
static PyObject *
ag_cond_flat(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  if (nargs != 3) {
    PyErr_SetString(PyExc_TypeError, "cond_flat() takes 3 arguments");
    return NULL;
  }
  TfState *st = tf_state();
  TfOperand pred;
  if (!st->trace || !predicate(st, args[0], "if", &pred))
    return st->trace ? NULL : PyErr_Format(PyExc_RuntimeError, "cond_flat() outside a trace");
  IfBlock b = {.parent = st->trace};
  PyObject *final = NULL;
  child_init(&b.then_t, b.parent, "cond_true");
  bool ok = (b.then_vals = cond_branch(st, &b.then_t, args[1])) != NULL;
  if (ok) {
    child_init(&b.else_t, b.parent, "cond_false");
    ok = (b.else_vals = cond_branch(st, &b.else_t, args[2])) != NULL;
  }
  if (ok && PyTuple_GET_SIZE(b.then_vals) != PyTuple_GET_SIZE(b.else_vals)) {
    PyErr_SetString(PyExc_TypeError, "true_fn and false_fn arguments to tf.cond must have the "
                                     "same number, type, and overall structure of return values.");
    ok = false;
  }
  if (ok) {
    b.init = Py_NewRef(b.then_vals);
    ok = if_build(st, &b, pred.out, &final);
  }
  tf_operand_clear(&pred);
  if_block_clear(&b);
  return ok ? final : NULL;
}

/* is_symbolic(v): whether v is a symbolic tensor of the trace being built (control.py). */
static PyObject *
ag_is_symbolic(PyObject *self, PyObject *v)
{
  return PyBool_FromLong(symbolic(tf_state(), v));
}

/* is_tracing(): whether a tf.function is being traced (control.py). */
static PyObject *
ag_is_tracing(PyObject *self, PyObject *unused)
{
  return PyBool_FromLong(tf_state()->trace != NULL);
}

/* ---- while and for --------------------------------------------------------------------------- */

/* A `while` or `for` loop being traced into a While node. */
typedef struct {
  TfState *st;
  TfTrace *parent;                      /* the trace the loop belongs to */
  PyObject *test;                       /* while: the loop test; NULL for a for */
  PyObject *extra;                      /* for: the extra test (break, return), or NULL */
  PyObject *body, *get, *set;           /* the block's functions (borrowed) */
  PyObject *names;                      /* the state's names (borrowed) */
  Py_ssize_t n;                         /* state size */
  const TfLoopSource *source;           /* for: where elements come from; NULL for a while */
  void *data;                           /* the source's data (borrowed) */
  int ns;                               /* the source's state variables */
  TrOutput src_init[TF_LOOP_MAX_STATE]; /* their initial values, parent graph */
  PyObject *init;                       /* the state before the loop (owned) */
  int nv;                               /* loop variables */
  int *var;                             /* their state indices */
  TrOutput *var_init;                   /* their values before the loop, parent graph */
  PyObject **like;        /* what each was before the loop (borrowed; None: a return) */
  TrShape *shapes;        /* shape invariants once relaxed or set, else NULL */
  bool relaxed;           /* shapes were relaxed once already */
  PyObject *invariants;   /* tf.while_loop's shape invariants: per state value, None or a shape
                           * (borrowed from opts) */
  bool strict;            /* tf.while_loop: a shape that changes is an error, not relaxed */
  TfTrace cond_t, body_t; /* the graphs of one attempt */
} Loop;

static void
loop_attempt_clear(Loop *lp)
{
  if (lp->cond_t.graph)
    child_clear(&lp->cond_t);
  if (lp->body_t.graph)
    child_clear(&lp->body_t);
}

static void
loop_clear(Loop *lp)
{
  loop_attempt_clear(lp);
  Py_CLEAR(lp->init);
  g_clear_pointer(&lp->var, g_free);
  g_clear_pointer(&lp->var_init, g_free);
  g_clear_pointer(&lp->like, g_free);
  g_clear_pointer(&lp->shapes, g_free);
}

static bool
loop_var_candidate(TfState *st, PyObject *v)
{
  return tensor_like(st, v) && !tf_is_variable(st, v);
}

/* Adds state index k as a loop variable entering with `init`. */
static void
loop_add_var(Loop *lp, int k, TrOutput init, PyObject *like, const TrShape *invariant)
{
  int j = lp->nv++;
  lp->var = g_renew(int, lp->var, lp->nv);
  lp->var_init = g_renew(TrOutput, lp->var_init, lp->nv);
  lp->like = g_renew(PyObject *, lp->like, lp->nv);
  lp->var[j] = k;
  lp->var_init[j] = init;
  lp->like[j] = like;
  if (invariant && !lp->shapes) {
    lp->shapes = g_new(TrShape, lp->nv);
    for (int i = 0; i < j; i++)
      lp->shapes[i] = *tr_output_shape(lp->var_init[i]);
  } else if (lp->shapes) {
    lp->shapes = g_renew(TrShape, lp->shapes, lp->nv);
  }
  if (lp->shapes)
    lp->shapes[j] = invariant ? *invariant : *tr_output_shape(init);
}

/* The shape invariant tf.while_loop gives state value k (entering as `o`), if any: it must be
 * compatible with the shape the value enters with (TF's ValueError otherwise). */
static bool
loop_invariant(Loop *lp, Py_ssize_t k, const TfOperand *o, TrShape *out, bool *has)
{
  *has = false;
  if (!lp->invariants || k >= PyTuple_GET_SIZE(lp->invariants) ||
      PyTuple_GET_ITEM(lp->invariants, k) == Py_None)
    return true;
  if (!tf_shape_arg(lp->st, PyTuple_GET_ITEM(lp->invariants, k), out))
    return false;
  if (!tr_shape_is_compatible_with(out, &o->shape)) {
    g_autofree char *name = tr_output_name(o->out);
    g_autofree char *enters = tr_shape_to_string(&o->shape);
    g_autofree char *inv = tr_shape_to_string(out);
    PyErr_Format(PyExc_ValueError,
                 "The shape invariant specified for %s is not compatible with the initial shape "
                 "of the loop variable. It enters the loop with shape %s, but the specified shape "
                 "invariant is %s.",
                 name, enters, inv);
    return false;
  }
  *has = true;
  return true;
}

/* tf.while_loop's error for a loop variable whose shape changed across one iteration. */
static void
loop_shape_error(Loop *lp, int j, const TrShape *enters, const TrShape *after)
{
  g_autofree char *name = tr_output_name(lp->var_init[j]);
  g_autofree char *a = tr_shape_to_string(enters);
  g_autofree char *b = tr_shape_to_string(after);
  PyErr_Format(PyExc_ValueError,
               "Input tensor '%s' enters the loop with shape %s, but has shape %s after one "
               "iteration. To allow the shape to vary across iterations, use the "
               "`shape_invariants` argument of tf.while_loop to specify a less-specific shape.",
               name, a, b);
}

/* The loop variables: the state's tensors and numbers when the loop starts. */
static bool
loop_collect(Loop *lp)
{
  TfState *st = lp->st;
  for (Py_ssize_t k = 0; k < lp->n; k++) {
    PyObject *v = PyTuple_GET_ITEM(lp->init, k);
    if (!loop_var_candidate(st, v))
      continue;
    TfOperand o;
    if (!value_operand(st, v, TR_DTYPE_INVALID, true, &o))
      return false;
    TrShape invariant;
    bool has = false;
    if (!loop_invariant(lp, k, &o, &invariant, &has)) {
      tf_operand_clear(&o);
      return false;
    }
    loop_add_var(lp, (int)k, o.out, v, has ? &invariant : NULL);
    tf_operand_clear(&o);
  }
  return true;
}

static const TrShape *
var_shape(const Loop *lp, int j)
{
  return lp->shapes ? &lp->shapes[j] : tr_output_shape(lp->var_init[j]);
}

/* Placeholders of the source state and loop variables in `g`; the state with the loop
 * variables replaced by them. New reference. */
static PyObject *
loop_bind(Loop *lp, TrGraph *g, TrOutput *ph)
{
  for (int i = 0; i < lp->ns; i++)
    ph[i] = tr_node_output(tr_graph_add_placeholder(g, tr_output_dtype(lp->src_init[i]),
                                                    tr_output_shape(lp->src_init[i]),
                                                    lp->source->names[i]),
                           0);
  PyObject *vals = PyTuple_New(lp->n);
  if (!vals)
    return NULL;
  for (Py_ssize_t k = 0; k < lp->n; k++)
    PyTuple_SET_ITEM(vals, k, Py_NewRef(PyTuple_GET_ITEM(lp->init, k)));
  for (int j = 0; j < lp->nv; j++) {
    TrOutput p =
        tr_node_output(tr_graph_add_placeholder(g, tr_output_dtype(lp->var_init[j]),
                                                var_shape(lp, j), name_at(lp->names, lp->var[j])),
                       0);
    ph[lp->ns + j] = p;
    PyObject *v = value_wrap(lp->st, lp->like[j], g, p);
    if (!v) {
      Py_DECREF(vals);
      return NULL;
    }
    Py_SETREF(PyTuple_GET_ITEM(vals, lp->var[j]), v);
  }
  return vals;
}

/* *pred = *pred && flag, in `g`. */
static bool
and_into(TrGraph *g, TrOutput *pred, TrOutput flag, GError **error)
{
  TrOutput in[2] = {*pred, flag};
  TrNode *both = tr_graph_add_op(g, TR_OP_LOGICAL_AND, in, 2, NULL, NULL, error);
  if (both)
    *pred = tr_node_output(both, 0);
  return both != NULL;
}

/* A Python test's result as a bool of the trace `t`. */
static bool
test_operand(TfState *st, TfTrace *t, PyObject *v, TrOutput *out)
{
  TfTrace *saved = st->trace;
  st->trace = t;
  TfOperand o;
  bool ok =
      tf_is_tensor(st, v) ? predicate(st, v, "while", &o) : tf_operand(st, v, TR_BOOL, false, &o);
  st->trace = saved;
  if (ok) {
    *out = o.out;
    tf_operand_clear(&o);
  }
  return ok;
}

/* The cond graph: the test on placeholders of the loop variables. */
static bool
loop_cond(Loop *lp)
{
  TfState *st = lp->st;
  child_init(&lp->cond_t, lp->parent, "while_cond");
  TrGraph *g = lp->cond_t.graph;
  g_autofree TrOutput *ph = g_new(TrOutput, lp->ns + lp->nv + 1);
  PyObject *vals = loop_bind(lp, g, ph);
  bool ok = vals && set_state(lp->set, vals);
  Py_XDECREF(vals);
  if (!ok)
    return false;
  TrOutput more;
  GError *error = NULL;
  if (lp->test) {
    PyObject *t = call_in(st, &lp->cond_t, lp->test, NULL);
    ok = t && test_operand(st, &lp->cond_t, t, &more);
    Py_XDECREF(t);
    if (!ok)
      return false;
  } else {
    if (!lp->source->test(lp->data, g, ph, &more, &error))
      return tf_raise_any(st, error), false;
    if (lp->extra) {
      PyObject *x = call_in(st, &lp->cond_t, lp->extra, NULL);
      TrOutput flag;
      ok = x && test_operand(st, &lp->cond_t, x, &flag);
      Py_XDECREF(x);
      if (!ok)
        return false;
      if (!and_into(g, &more, flag, &error))
        return tf_raise_any(st, error), false;
    }
  }
  if (!tr_graph_add_output(g, more, &error))
    return tf_raise_any(st, error), false;
  return true;
}

/* A loop variable's value after one pass of the body, as an output of the body graph. */
static bool
loop_next(Loop *lp, int j, PyObject *v, TrDType want, TrOutput *next)
{
  TfState *st = lp->st;
  const char *name = name_at(lp->names, lp->var[j]);
  PyObject *like = lp->like[j];
  if (!tensor_like(st, v)) {
    PyErr_Format(PyExc_TypeError,
                 "'%s' holds a %s before the loop and a %s after one iteration; a loop variable "
                 "must stay a tensor",
                 name, tr_dtype_name(want), type_name(v));
    return false;
  }
  if (tf_is_tensor_array(st, like) != tf_is_tensor_array(st, v)) {
    PyErr_Format(PyExc_TypeError, "'%s' is a %s before the loop and a %s after one iteration", name,
                 type_name(like), type_name(v));
    return false;
  }
  TfOperand o;
  if (!operand_in(st, &lp->body_t, v, want, true, &o))
    return false;
  TrDType got = o.dtype;
  *next = o.out;
  tf_operand_clear(&o);
  if (got != want) {
    PyErr_Format(PyExc_TypeError,
                 "'%s' has dtype %s before the loop, but dtype %s after one iteration", name,
                 tr_dtype_name(want), tr_dtype_name(got));
    return false;
  }
  return true;
}

/* A `return` inside the loop set retval_: it becomes a loop variable entering as zeros. Returns
 * 1 when one was added (trace again), 0 when none, -1 on error. */
static int
loop_take_return(Loop *lp, PyObject *after)
{
  TfState *st = lp->st;
  for (Py_ssize_t k = 0; k < lp->n; k++) {
    PyObject *before = PyTuple_GET_ITEM(lp->init, k), *v = PyTuple_GET_ITEM(after, k);
    if (!is_undefined_return(st, before) || is_undefined_return(st, v))
      continue;
    bool is_var = false;
    for (int j = 0; j < lp->nv && !is_var; j++)
      is_var = lp->var[j] == k;
    if (is_var)
      continue;
    if (!tensor_like(st, v) || tf_is_tensor_array(st, v)) {
      PyErr_Format(PyExc_TypeError,
                   "A `return` inside a loop on a symbolic tensor must return a tensor or a "
                   "number, not %s",
                   type_name(v));
      return -1;
    }
    TfOperand o;
    if (!operand_in(st, &lp->body_t, v, TR_DTYPE_INVALID, true, &o))
      return -1;
    TrOutput value = o.out;
    tf_operand_clear(&o);
    TrOutput zeros;
    if (!zeros_like(st, lp->parent->graph, value, &zeros))
      return -1;
    loop_add_var(lp, (int)k, zeros, Py_None, tr_output_shape(value));
    return 1;
  }
  return 0;
}

/* One attempt at tracing the loop. 1: the While node is built and the state rebound to its
 * outputs; 0: trace again (shapes relaxed, a return value added); -1: error. */
static int
loop_attempt(Loop *lp)
{
  TfState *st = lp->st;
  GError *error = NULL;
  if (!loop_cond(lp))
    return -1;
  child_init(&lp->body_t, lp->parent, "while_body");
  TrGraph *body = lp->body_t.graph;
  int ns = lp->ns, nv = lp->nv, nc = n_captures(&lp->cond_t);
  g_autofree TrOutput *ph = g_new(TrOutput, ns + nv + nc + 1);
  PyObject *vals = loop_bind(lp, body, ph);
  for (int c = 0; c < nc; c++) {
    TrNode *inner = g_array_index(lp->cond_t.captures, TfCapture, c).inner;
    ph[ns + nv + c] = tr_node_output(
        tr_graph_add_placeholder(body, inner->dtypes[0], &inner->shapes[0], inner->name), 0);
  }
  bool ok = vals && set_state(lp->set, vals);
  Py_XDECREF(vals);
  if (!ok)
    return -1;
  PyObject *element = NULL;
  if (lp->source) {
    TfTrace *saved = st->trace;
    st->trace = &lp->body_t;
    element = lp->source->element(st, lp->data, body, ph);
    st->trace = saved;
    if (!element)
      return -1;
  }
  PyObject *r = call_in(st, &lp->body_t, lp->body, element);
  Py_XDECREF(element);
  if (!r)
    return -1;
  Py_DECREF(r);
  PyObject *after = get_state(lp->get, lp->n);
  if (!after)
    return -1;
  int nb = n_captures(&lp->body_t);
  int n_out = ns + nv + nc + nb;
  g_autofree TrOutput *outs = g_new(TrOutput, n_out + 1);
  ok = true;
  for (int j = 0; ok && j < nv; j++)
    ok = loop_next(lp, j, PyTuple_GET_ITEM(after, lp->var[j]), tr_output_dtype(ph[ns + j]),
                   &outs[ns + j]);
  int added = ok ? loop_take_return(lp, after) : -1;
  Py_DECREF(after);
  if (!ok || added < 0)
    return -1;
  if (!lp->relaxed) {
    bool relax = false;
    for (int j = 0; j < nv && !relax; j++)
      relax =
          !tr_shape_is_compatible_with(tr_output_shape(ph[ns + j]), tr_output_shape(outs[ns + j]));
    for (int j = 0; relax && lp->strict && j < nv; j++) {
      if (tr_shape_is_compatible_with(tr_output_shape(ph[ns + j]), tr_output_shape(outs[ns + j])))
        continue;
      loop_shape_error(lp, j, tr_output_shape(ph[ns + j]), tr_output_shape(outs[ns + j]));
      return -1;
    }
    if (relax) {
      /* A shape changed across the iteration: trace again with those dims relaxed. */
      if (!lp->shapes) {
        lp->shapes = g_new(TrShape, lp->nv);
        for (int j = 0; j < lp->nv; j++)
          lp->shapes[j] = *tr_output_shape(lp->var_init[j]);
      }
      for (int j = 0; j < nv; j++)
        lp->shapes[j] = tr_shape_most_specific_compatible(tr_output_shape(ph[ns + j]),
                                                          tr_output_shape(outs[ns + j]));
      lp->relaxed = true;
      return 0;
    }
  }
  if (added)
    return 0;
  nb = n_captures(&lp->body_t); /* loop_next may have captured more */
  n_out = ns + nv + nc + nb;
  outs = g_renew(TrOutput, outs, n_out + 1);
  if (lp->source && !lp->source->step(lp->data, body, ph, outs, &error))
    return tf_raise_any(st, error), -1;
  for (int c = 0; c < nc; c++)
    outs[ns + nv + c] = ph[ns + nv + c];
  for (int c = 0; c < nb; c++)
    outs[ns + nv + nc + c] = capture_inner(&lp->body_t, c);
  for (int i = 0; i < n_out; i++)
    if (!tr_graph_add_output(body, outs[i], &error))
      return tf_raise_any(st, error), -1;
  /* The cond takes the body's captures too, unused. */
  for (int c = 0; c < nb; c++) {
    TrNode *inner = g_array_index(lp->body_t.captures, TfCapture, c).inner;
    tr_graph_add_placeholder(lp->cond_t.graph, inner->dtypes[0], &inner->shapes[0], inner->name);
  }
  g_autofree TrOutput *inputs = g_new(TrOutput, n_out + 1);
  for (int i = 0; i < ns; i++)
    inputs[i] = lp->src_init[i];
  for (int j = 0; j < nv; j++)
    inputs[ns + j] = lp->var_init[j];
  for (int c = 0; c < nc; c++)
    inputs[ns + nv + c] = capture_outer(&lp->cond_t, c);
  for (int c = 0; c < nb; c++)
    inputs[ns + nv + nc + c] = capture_outer(&lp->body_t, c);
  TrGraph *g = lp->parent->graph;
  TrNode *node = tr_graph_add_while(g, lp->cond_t.graph, body, inputs, n_out, "while", &error);
  if (!node)
    return tf_raise_any(st, error), -1;
  /* The loop variables become the node's outputs; names local to the body go back to what
   * they were before the loop. */
  PyObject *final = PyTuple_New(lp->n);
  if (!final)
    return -1;
  for (Py_ssize_t k = 0; k < lp->n; k++)
    PyTuple_SET_ITEM(final, k, Py_NewRef(PyTuple_GET_ITEM(lp->init, k)));
  for (int j = 0; j < nv; j++) {
    PyObject *v = value_wrap(st, lp->like[j], g, tr_node_output(node, ns + j));
    if (!v) {
      Py_DECREF(final);
      return -1;
    }
    Py_SETREF(PyTuple_GET_ITEM(final, lp->var[j]), v);
  }
  ok = set_state(lp->set, final);
  Py_DECREF(final);
  return ok ? 1 : -1;
}

/* Traces the loop `lp` (filled in by the caller) into a While node. */
static bool
loop_symbolic(Loop *lp)
{
  TfState *st = lp->st;
  lp->parent = st->trace;
  lp->init = get_state(lp->get, lp->n);
  if (!lp->init)
    return false;
  GError *error = NULL;
  bool ok = true;
  if (lp->source && !lp->source->init(st, lp->data, lp->parent->graph, lp->src_init, &error))
    ok = error ? (tf_raise_any(st, error), false) : false;
  ok = ok && loop_collect(lp);
  int r = ok ? 0 : -1;
  while (r == 0) {
    loop_attempt_clear(lp);
    r = loop_attempt(lp);
  }
  if (r < 0)
    restore_state(lp->set, lp->init);
  loop_clear(lp);
  return r > 0;
}

/* The opts of a while_stmt that tf.while_loop (control.py) passes: a dict with
 * "shape_invariants" (a tuple, one entry per state value: None or a shape) and "strict_shapes"
 * (a shape that changes across an iteration is TF's ValueError). AutoGraph's opts have neither. */
static bool
loop_options(Loop *lp, PyObject *opts)
{
  if (!PyDict_Check(opts))
    return true;
  PyObject *inv = PyDict_GetItemString(opts, "shape_invariants"); /* borrowed */
  PyObject *strict = PyDict_GetItemString(opts, "strict_shapes"); /* borrowed */
  lp->invariants = inv && PyTuple_Check(inv) ? inv : NULL;
  int r = strict ? PyObject_IsTrue(strict) : 0;
  lp->strict = r > 0;
  return r >= 0;
}

/* ag__.while_stmt(test, body, get_state, set_state, symbol_names, opts) */
static PyObject *
ag_while_stmt(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  if (nargs != 6) {
    PyErr_SetString(PyExc_TypeError, "while_stmt() takes 6 arguments");
    return NULL;
  }
  TfState *st = tf_state();
  PyObject *test = args[0], *body = args[1];
  for (;;) {
    PyObject *t = PyObject_CallNoArgs(test);
    if (!t)
      return NULL;
    if (symbolic(st, t)) {
      /* The test is a tensor (from the start, or since the last pass made it one): the rest
       * of the loop is a While node. */
      Py_DECREF(t);
      Loop lp = {
          .st = st, .test = test, .body = body, .get = args[2], .set = args[3], .names = args[4]};
      lp.n = PyTuple_Check(lp.names) ? PyTuple_GET_SIZE(lp.names) : 0;
      if (!loop_options(&lp, args[5]))
        return NULL;
      if (!loop_symbolic(&lp))
        return NULL;
      Py_RETURN_NONE;
    }
    int go = PyObject_IsTrue(t);
    Py_DECREF(t);
    if (go < 0)
      return NULL;
    if (!go)
      Py_RETURN_NONE;
    PyObject *r = PyObject_CallNoArgs(body);
    if (!r)
      return NULL;
    Py_DECREF(r);
  }
}

/* ---- for: sources --------------------------------------------------------------------------- */

/* tf.range(start, limit, delta): the counter is the element; state (i, limit, delta). */
static bool
range_init(TfState *st, void *data, TrGraph *g, TrOutput *state, GError **error)
{
  TrNode *range = data;
  for (int i = 0; i < 3; i++)
    state[i] = range->inputs[i];
  return true;
}

static bool
range_test(void *data, TrGraph *cond, const TrOutput *state, TrOutput *more, GError **error)
{
  /* tf.range counts down for a negative delta. */
  TrNode *delta = ((TrNode *)data)->inputs[2].node;
  bool down = delta->op == TR_GOP_CONST && tr_tensor_get_f64(delta->value, 0) < 0;
  TrOutput in[2] = {state[0], state[1]};
  TrNode *test = tr_graph_add_op(cond, down ? TR_OP_GREATER : TR_OP_LESS, in, 2, NULL, NULL, error);
  if (test)
    *more = tr_node_output(test, 0);
  return test != NULL;
}

static PyObject *
range_element(TfState *st, void *data, TrGraph *body, const TrOutput *state)
{
  return tf_symbolic_new(st, body, state[0]);
}

static bool
range_step(void *data, TrGraph *body, const TrOutput *state, TrOutput *next, GError **error)
{
  TrOutput in[2] = {state[0], state[2]};
  TrNode *step = tr_graph_add_op(body, TR_OP_ADD, in, 2, NULL, NULL, error);
  if (!step)
    return false;
  next[0] = tr_node_output(step, 0);
  next[1] = state[1];
  next[2] = state[2];
  return true;
}

static const char *const range_names[] = {"i", "limit", "delta"};
static const TfLoopSource range_source = {
    .n_state = 3,
    .names = range_names,
    .init = range_init,
    .test = range_test,
    .element = range_element,
    .step = range_step,
};

/* A tensor: its rows t[k] in order; state (k, t). */
static bool
tensor_init(TfState *st, void *data, TrGraph *g, TrOutput *state, GError **error)
{
  g_autoptr(TrTensor) zero = tr_tensor_new_int32(0);
  state[0] = tr_node_output(tr_graph_add_const(g, zero, NULL), 0);
  state[1] = *(TrOutput *)data;
  return true;
}

static bool
tensor_test(void *data, TrGraph *cond, const TrOutput *state, TrOutput *more, GError **error)
{
  int64_t len = tr_output_shape(*(TrOutput *)data)->dims[0];
  g_autoptr(TrTensor) limit = tr_tensor_new_int32((int32_t)len);
  TrOutput in[2] = {state[0], tr_node_output(tr_graph_add_const(cond, limit, NULL), 0)};
  TrNode *test = tr_graph_add_op(cond, TR_OP_LESS, in, 2, NULL, NULL, error);
  if (test)
    *more = tr_node_output(test, 0);
  return test != NULL;
}

static PyObject *
tensor_element(TfState *st, void *data, TrGraph *body, const TrOutput *state)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.axis = 0;
  TrOutput in[2] = {state[1], state[0]};
  GError *error = NULL;
  TrNode *elem = tr_graph_add_op(body, TR_OP_GATHER, in, 2, &attrs, NULL, &error);
  if (!elem)
    return tf_raise_any(st, error);
  return tf_symbolic_new(st, body, tr_node_output(elem, 0));
}

static bool
tensor_step(void *data, TrGraph *body, const TrOutput *state, TrOutput *next, GError **error)
{
  g_autoptr(TrTensor) one = tr_tensor_new_int32(1);
  TrOutput in[2] = {state[0], tr_node_output(tr_graph_add_const(body, one, NULL), 0)};
  TrNode *step = tr_graph_add_op(body, TR_OP_ADD, in, 2, NULL, NULL, error);
  if (!step)
    return false;
  next[0] = tr_node_output(step, 0);
  next[1] = state[1];
  return true;
}

static const char *const tensor_names[] = {"k", "elems"};
static const TfLoopSource tensor_source = {
    .n_state = 2,
    .names = tensor_names,
    .init = tensor_init,
    .test = tensor_test,
    .element = tensor_element,
    .step = tensor_step,
};

/* The source of `for x in <symbolic tensor>`: a tf.range of this graph counts, any other tensor
 * gives its rows. `*out` receives the tensor's output when it is one. */
static bool
tensor_loop_source(TfState *st, PyObject *iter, TfLoopSource *source, void **data, TrOutput *out)
{
  TrOutput t = tf_symbolic_output(iter);
  if (t.node->op == TR_OP_RANGE && t.node->n_inputs == 3 && t.node->graph == st->trace->graph) {
    *source = range_source;
    *data = t.node;
    return true;
  }
  TfOperand o;
  if (!tf_operand(st, iter, TR_DTYPE_INVALID, false, &o))
    return false;
  TrShape shape = o.shape;
  *out = o.out;
  tf_operand_clear(&o);
  if (shape.rank == 0) {
    PyErr_SetString(PyExc_TypeError, "Cannot iterate over a scalar tensor.");
    return false;
  }
  if (shape.rank == TR_UNKNOWN || shape.dims[0] == TR_UNKNOWN) {
    PyErr_SetString(st->OperatorNotAllowedInGraphError,
                    "Iterating over a tensor whose first dimension is unknown is not supported "
                    "yet; iterate over tf.range(n) and index the tensor.");
    return false;
  }
  *source = tensor_source;
  *data = out;
  return true;
}

/* `for` over a Python iterable (or an eager tensor or dataset): the body per element. */
static bool
for_python(TfState *st, PyObject *iterable, PyObject *extra, PyObject *body)
{
  PyObject *it = PyObject_GetIter(iterable);
  if (!it)
    return false;
  bool ok = true;
  for (;;) {
    if (extra) {
      PyObject *x = PyObject_CallNoArgs(extra);
      if (x && symbolic(st, x)) {
        Py_DECREF(x);
        PyErr_SetString(st->OperatorNotAllowedInGraphError,
                        "`break` and `continue` out of an `if` on a symbolic tensor are not "
                        "supported yet; carry a flag in a loop variable instead");
        ok = false;
        break;
      }
      int go = x ? PyObject_IsTrue(x) : -1;
      Py_XDECREF(x);
      if (go <= 0) {
        ok = go == 0;
        break;
      }
    }
    PyObject *item = PyIter_Next(it);
    if (!item) {
      ok = !PyErr_Occurred();
      break;
    }
    PyObject *r = PyObject_CallOneArg(body, item);
    Py_DECREF(item);
    if (!r) {
      ok = false;
      break;
    }
    Py_DECREF(r);
  }
  Py_DECREF(it);
  return ok;
}

/* ag__.for_stmt(iter, extra_test, body, get_state, set_state, symbol_names, opts) */
static PyObject *
ag_for_stmt(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  if (nargs != 7) {
    PyErr_SetString(PyExc_TypeError, "for_stmt() takes 7 arguments");
    return NULL;
  }
  TfState *st = tf_state();
  PyObject *iter = args[0], *extra = args[1] == Py_None ? NULL : args[1];
  bool data = tf_is_dataset(st, iter) || tf_is_dataset_iterator(st, iter);
  bool graph_loop = st->trace && (tf_is_symbolic(st, iter) || data);
  if (!graph_loop) {
    if (!for_python(st, iter, extra, args[2]))
      return NULL;
    Py_RETURN_NONE;
  }
  TfLoopSource source = {0};
  void *source_data = NULL;
  TrOutput tensor;
  bool ok = data ? tf_dataset_loop_source(st, iter, &source, &source_data)
                 : tensor_loop_source(st, iter, &source, &source_data, &tensor);
  if (ok) {
    Loop lp = {.st = st,
               .extra = extra,
               .body = args[2],
               .get = args[3],
               .set = args[4],
               .names = args[5],
               .source = &source,
               .data = source_data,
               .ns = source.n_state};
    lp.n = PyTuple_Check(lp.names) ? PyTuple_GET_SIZE(lp.names) : 0;
    ok = loop_symbolic(&lp);
  }
  if (source.free)
    source.free(source_data);
  if (!ok)
    return NULL;
  Py_RETURN_NONE;
}

/* ---- calls and expressions
 * ------------------------------------------------------------------------ */

/* Whether any of `args` is a symbolic tensor of the trace. */
static bool
any_symbolic(TfState *st, PyObject *args)
{
  for (Py_ssize_t i = 0; PyTuple_Check(args) && i < PyTuple_GET_SIZE(args); i++)
    if (symbolic(st, PyTuple_GET_ITEM(args, i)))
      return true;
  return false;
}

/* ag__.converted_call(f, args, kwargs, caller_fn_scope=None, options=None): f called, converted
 * first when it is a user function; range() of a tensor is tf.range. */
static PyObject *
ag_converted_call(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  if (nargs < 3 || nargs > 5 || !PyTuple_Check(args[1]) ||
      (args[2] != Py_None && !PyDict_Check(args[2]))) {
    PyErr_SetString(PyExc_TypeError, "converted_call(f, args, kwargs) takes a tuple and a dict");
    return NULL;
  }
  TfState *st = tf_state();
  PyObject *f = args[0], *kwargs = args[2] == Py_None ? NULL : args[2];
  PyObject *target;
  if (f == (PyObject *)&PyRange_Type && any_symbolic(st, args[1]))
    target = PyObject_GetAttrString(st->module, "range");
  else if (PyFunction_Check(f) || PyMethod_Check(f))
    target = tf_autograph_convert(st, f);
  else
    target = Py_NewRef(f);
  if (!target)
    return NULL;
  PyObject *r = PyObject_Call(target, args[1], kwargs);
  Py_DECREF(target);
  return r;
}

/* tf.logical_and / logical_or / logical_not of tensors (bool operands). */
static PyObject *
logical(TfState *st, TrOpId op, PyObject *a, PyObject *b)
{
  TfOperand in[2];
  int n = b ? 2 : 1;
  if (!tf_operand(st, a, TR_BOOL, false, &in[0]))
    return NULL;
  if (b && !tf_operand(st, b, TR_BOOL, false, &in[1])) {
    tf_operand_clear(&in[0]);
    return NULL;
  }
  PyObject *r = tf_apply(st, op, in, n, NULL, NULL);
  tf_operands_clear(in, n);
  return r;
}

/* and_/or_: Python operands short-circuit as Python's; a symbolic tensor first makes the other
 * operand run too, and the two are combined by a logical op (a Python value after it decides,
 * or leaves the tensor to). */
static PyObject *
lazy_bool(PyObject *const *args, Py_ssize_t nargs, bool is_or)
{
  if (nargs != 2) {
    PyErr_SetString(PyExc_TypeError, "and_/or_ take two functions");
    return NULL;
  }
  TfState *st = tf_state();
  PyObject *a = PyObject_CallNoArgs(args[0]);
  if (!a)
    return NULL;
  if (!symbolic(st, a)) {
    int t = PyObject_IsTrue(a);
    if (t < 0 || (t != 0) == is_or) {
      if (t < 0)
        Py_CLEAR(a);
      return a;
    }
    Py_DECREF(a);
    return PyObject_CallNoArgs(args[1]);
  }
  PyObject *b = PyObject_CallNoArgs(args[1]);
  PyObject *r = NULL;
  if (b && tf_is_tensor(st, b)) {
    r = logical(st, is_or ? TR_OP_LOGICAL_OR : TR_OP_LOGICAL_AND, a, b);
  } else if (b) {
    int t = PyObject_IsTrue(b);
    if (t >= 0)
      r = (t != 0) == is_or ? Py_NewRef(is_or ? Py_True : Py_False) : Py_NewRef(a);
  }
  Py_DECREF(a);
  Py_XDECREF(b);
  return r;
}

static PyObject *
ag_and(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  return lazy_bool(args, nargs, false);
}

static PyObject *
ag_or(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  return lazy_bool(args, nargs, true);
}

/* ag__.not_(x): tf.logical_not of a tensor, Python's `not` otherwise. */
static PyObject *
ag_not(PyObject *self, PyObject *x)
{
  TfState *st = tf_state();
  if (tf_is_tensor(st, x))
    return logical(st, TR_OP_LOGICAL_NOT, x, NULL);
  int t = PyObject_Not(x);
  if (t < 0)
    return NULL;
  return PyBool_FromLong(t);
}

/* ag__.len_(s): a symbolic tensor's static length, or tf.shape(s)[0]; a TensorArray's size();
 * Python's len otherwise. */
static PyObject *
ag_len(PyObject *self, PyObject *s)
{
  TfState *st = tf_state();
  if (tf_is_tensor_array(st, s))
    return PyObject_CallMethod(s, "size", NULL);
  if (symbolic(st, s)) {
    TrShape shape;
    if (!tf_shape_of(st, s, &shape))
      shape = tr_shape_unknown();
    if (shape.rank == 0) {
      PyErr_SetString(PyExc_ValueError, "len requires a non-scalar tensor, got one of shape []");
      return NULL;
    }
    if (shape.rank > 0 && shape.dims[0] != TR_UNKNOWN)
      return PyLong_FromLongLong(shape.dims[0]);
    PyObject *dyn = PyObject_CallMethod(st->module, "shape", "O", s);
    if (!dyn)
      return NULL;
    PyObject *zero = PyLong_FromLong(0);
    PyObject *r = zero ? PyObject_GetItem(dyn, zero) : NULL;
    Py_XDECREF(zero);
    Py_DECREF(dyn);
    return r;
  }
  Py_ssize_t n = PyObject_Length(s);
  return n < 0 ? NULL : PyLong_FromSsize_t(n);
}

/* ag__.retval(v): what a converted function returns: None when no return ran. */
static PyObject *
ag_retval(PyObject *self, PyObject *v)
{
  if (is_undefined_return(tf_state(), v))
    Py_RETURN_NONE;
  return Py_NewRef(v);
}

static PyMethodDef operator_methods[] = {
    {"if_stmt", (PyCFunction)(void (*)(void))ag_if_stmt, METH_FASTCALL,
     "if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts)\n--\n\n"},
    {"while_stmt", (PyCFunction)(void (*)(void))ag_while_stmt, METH_FASTCALL,
     "while_stmt(test, body, get_state, set_state, symbol_names, opts)\n--\n\n"},
    {"for_stmt", (PyCFunction)(void (*)(void))ag_for_stmt, METH_FASTCALL,
     "for_stmt(iter, extra_test, body, get_state, set_state, symbol_names, opts)\n--\n\n"},
    {"converted_call", (PyCFunction)(void (*)(void))ag_converted_call, METH_FASTCALL,
     "converted_call(f, args, kwargs, caller_fn_scope=None, options=None)\n--\n\n"},
    {"and_", (PyCFunction)(void (*)(void))ag_and, METH_FASTCALL, "and_(a, b)\n--\n\n"},
    {"or_", (PyCFunction)(void (*)(void))ag_or, METH_FASTCALL, "or_(a, b)\n--\n\n"},
    {"not_", ag_not, METH_O, "not_(a)\n--\n\n"},
    {"len_", ag_len, METH_O, "len_(s)\n--\n\n"},
    {"retval", ag_retval, METH_O, "retval(value)\n--\n\n"},
    {"cond_flat", (PyCFunction)(void (*)(void))ag_cond_flat, METH_FASTCALL,
     "cond_flat(pred, true_fn, false_fn)\n--\n\n"},
    {"is_symbolic", ag_is_symbolic, METH_O, "is_symbolic(v)\n--\n\n"},
    {"is_tracing", ag_is_tracing, METH_NOARGS, "is_tracing()\n--\n\n"},
    {NULL, NULL, 0, NULL},
};

/* Runs py/control.py with `tf` and `_ag` bound, and exports its functions from tf. */
static int
run_control_source(PyObject *module, TfState *st)
{
  PyObject *ns = PyDict_New(); /* owned */
  if (!ns)
    return -1;
  PyObject *builtins = PyImport_ImportModule("builtins"); /* owned */
  int r = builtins && PyDict_SetItemString(ns, "__builtins__", builtins) == 0 &&
                  PyDict_SetItemString(ns, "tf", module) == 0 &&
                  PyDict_SetItemString(ns, "_ag", st->ag_operators) == 0
              ? 0
              : -1;
  Py_XDECREF(builtins);
  PyObject *code = r == 0 ? tf_py_code(&tf_control_py) : NULL;  /* owned */
  PyObject *done = code ? PyEval_EvalCode(code, ns, ns) : NULL; /* owned */
  Py_XDECREF(code);
  r = done ? 0 : -1;
  Py_XDECREF(done);
  static const char *const exported[] = {"cond", "while_loop", "map_fn", "vectorized_map"};
  for (size_t i = 0; r == 0 && i < G_N_ELEMENTS(exported); i++) {
    PyObject *fn = PyDict_GetItemString(ns, exported[i]); /* borrowed */
    r = fn ? PyModule_AddObjectRef(module, exported[i], fn) : -1;
    if (!fn)
      PyErr_Format(PyExc_RuntimeError, "tensorflow's control.py defines no %s", exported[i]);
  }
  Py_DECREF(ns);
  return r;
}

int
tf_control_init(PyObject *module, TfState *st)
{
  st->AgUndefined = (PyTypeObject *)PyType_FromModuleAndSpec(module, &undefined_spec, NULL);
  st->AgUndefinedReturnValue =
      (PyTypeObject *)PyType_FromModuleAndSpec(module, &undefined_return_spec, NULL);
  st->ag_operators = PyModule_New("tensorflow.autograph.operators");
  if (!st->AgUndefined || !st->AgUndefinedReturnValue || !st->ag_operators)
    return -1;
  if (PyModule_AddFunctions(st->ag_operators, operator_methods) < 0 ||
      PyModule_AddObjectRef(st->ag_operators, "Undefined", (PyObject *)st->AgUndefined) < 0 ||
      PyModule_AddObjectRef(st->ag_operators, "UndefinedReturnValue",
                            (PyObject *)st->AgUndefinedReturnValue) < 0)
    return -1;
  return run_control_source(module, st);
}

void
tf_control_clear(TfState *st)
{
  Py_CLEAR(st->ag_operators);
  Py_CLEAR(st->AgUndefined);
  Py_CLEAR(st->AgUndefinedReturnValue);
}
