/* tf-variable.c — tf.Variable: mutable state shared by eager code and every graph that captured
 * it.
 *
 * A Variable's value lives in a core/graph TrVariable. Eagerly, reads and assignments act at
 * once. While a Function traces, the graph captures the variable's handle once and each read
 * (tf_operand does it: a ReadVariableOp) or assignment becomes a stateful node, so later runs
 * of the trace see and make changes without retracing. Variables may be created while tracing
 * only on a Function's first trace (TensorFlow's singleton rule); their initial value is
 * computed eagerly, as TensorFlow lifts variable initialisers out of the function.
 *
 * Everything a Variable does as a value (operators, float(), indexing, NumPy conversion) it
 * does by reading itself into a tf.Tensor and delegating to the Tensor.
 */
#include "tf-private.h"

#include "tr-print.h"

#include <string.h>
#include <structmember.h>

#define SINGLETON_MESSAGE                                                                          \
  "tf.function only supports singleton tf.Variables created on the first call. Make sure the "     \
  "tf.Variable is only created once or created outside tf.function. See "                          \
  "https://www.tensorflow.org/guide/function#creating_tfvariables for more information."

static TrVariable *
var_of(PyObject *self)
{
  return ((TfVariable *)self)->var;
}

static void
emit_created(TfState *st, TrVariable *var)
{
  if (!tr_event_bus_wants(st->bus, TR_EVENT_VARIABLE_CREATED))
    return;
  TrEvent *ev = tr_event_new(TR_EVENT_VARIABLE_CREATED);
  ev->cell = st->cell;
  ev->var_id = (gint64)var->id;
  ev->name = g_strdup_printf("%s:0", var->name);
  ev->dtype = g_strdup(tr_dtype_name(var->dtype));
  ev->shape = tr_shape_to_string(&var->shape);
  tr_event_bus_emit(st->bus, ev);
}

/* The value a Variable starts with, computed eagerly (outside any trace). `init` may be a
 * value, a Variable, or a callable returning one. Transfer full, or NULL with an exception. */
static TrTensor *
initial_value(TfState *st, PyObject *init, TrDType dtype)
{
  if (tf_is_symbolic(st, init)) {
    TrTensor *t = tf_static_value(st, init);
    if (!t) {
      PyErr_SetString(PyExc_ValueError,
                      "A tf.Variable created inside a tf.function needs an initial value that "
                      "does not depend on the function's inputs: pass a Python value or an eager "
                      "tensor, or create the variable outside the function.");
      return NULL;
    }
    if (dtype == TR_DTYPE_INVALID || t->dtype == dtype)
      return t;
    GError *error = NULL;
    TrTensor *c = tr_cast(t, dtype, &error);
    tr_tensor_unref(t);
    if (!c)
      tf_raise_any(st, error);
    return c;
  }
  /* The initialiser runs outside the trace, as in tf.init_scope. */
  TfTrace *saved = st->trace;
  st->trace = NULL;
  TrTensor *t = NULL;
  PyObject *value = NULL; /* owned */
  if (tf_is_variable(st, init)) {
    t = tr_variable_read(var_of(init));
  } else if (PyCallable_Check(init) && !tf_convertible(st, init)) {
    value = PyObject_CallNoArgs(init);
  } else {
    value = Py_NewRef(init);
  }
  if (value) {
    if (tf_is_variable(st, value))
      t = tr_variable_read(var_of(value));
    else
      t = tf_convert(st, value, dtype, false);
    Py_DECREF(value);
  }
  st->trace = saved;
  if (t && dtype != TR_DTYPE_INVALID && t->dtype != dtype) {
    GError *error = NULL;
    TrTensor *c = tr_cast(t, dtype, &error);
    tr_tensor_unref(t);
    if (!c)
      tf_raise_any(st, error);
    t = c;
  }
  return t;
}

static PyObject *
variable_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
  static char *kwlist[] = {"initial_value",
                           "trainable",
                           "validate_shape",
                           "caching_device",
                           "name",
                           "variable_def",
                           "dtype",
                           "import_scope",
                           "constraint",
                           "synchronization",
                           "aggregation",
                           "shape",
                           NULL};
  PyObject *init = Py_None, *trainable = Py_None, *validate = NULL, *caching = NULL,
           *name = Py_None, *vdef = NULL, *dtype = Py_None, *import_scope = NULL,
           *constraint = NULL, *sync = NULL, *aggregation = NULL, *shape = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OOOOOOOOOOOO:Variable", kwlist, &init,
                                   &trainable, &validate, &caching, &name, &vdef, &dtype,
                                   &import_scope, &constraint, &sync, &aggregation, &shape))
    return NULL;
  TfState *st = tf_state();
  if (init == Py_None) {
    PyErr_SetString(PyExc_ValueError, "initial_value must be specified.");
    return NULL;
  }
  TrDType dt;
  if (!tf_dtype_arg(st, dtype, TR_DTYPE_INVALID, &dt))
    return NULL;
  const char *name_text = NULL;
  if (name != Py_None) {
    if (!PyUnicode_Check(name)) {
      PyErr_SetString(PyExc_TypeError, "Variable name must be a string");
      return NULL;
    }
    name_text = PyUnicode_AsUTF8(name);
    if (!name_text)
      return NULL;
  }
  int is_trainable = 1;
  if (trainable != Py_None && (is_trainable = PyObject_IsTrue(trainable)) < 0)
    return NULL;
  TfTrace *tr = tf_trace(st);
  if (tr) {
    if (!tr->allow_variables) {
      PyErr_SetString(PyExc_ValueError, SINGLETON_MESSAGE);
      return NULL;
    }
    tr->variables_created++;
  }
  TrTensor *t = initial_value(st, init, dt);
  if (!t)
    return NULL;
  /* tf.Variable(...) makes a ResourceVariable, as TensorFlow's metaclass does; a subclass of
   * tf.Variable written in Python makes itself. */
  if (type == st->Variable)
    type = st->ResourceVariable;
  TfVariable *self = (TfVariable *)type->tp_alloc(type, 0);
  if (!self) {
    tr_tensor_unref(t);
    return NULL;
  }
  /* The name scope prefixes the name, eagerly as in a trace: TensorFlow's "outer/v". A Keras
   * layer's scope is the eager one even while its first call is traced (py/debugging.py's
   * _layer_name_scope), as Keras enters it in the graph too. */
  const char *scope = st->eager_name_scope ? st->eager_name_scope
                      : tr                 ? tr_graph_name_scope(tr->graph)
                                           : NULL;
  g_autofree char *scoped = NULL;
  if (scope && *scope)
    scoped = g_strdup_printf("%s%s%s", scope, g_str_has_suffix(scope, "/") ? "" : "/",
                             name_text ? name_text : "Variable");
  self->var = tr_variable_new(t, scoped ? scoped : name_text); /* owned by self */
  tr_tensor_unref(t);
  self->var->trainable = is_trainable;
  emit_created(st, self->var);
  return (PyObject *)self;
}

static void
variable_dealloc(PyObject *self)
{
  PyTypeObject *type = Py_TYPE(self);
  if (((TfVariable *)self)->weakreflist)
    PyObject_ClearWeakRefs(self);
  g_clear_pointer(&((TfVariable *)self)->var, tr_variable_unref);
  type->tp_free(self);
  Py_DECREF(type); /* instances of heap types own a reference to their type */
}

/* ---- reading --------------------------------------------------------------------------------- */

/* The variable's value on the current path: the tensor eagerly, a ReadVariableOp in a trace.
 * New reference. */
static PyObject *
variable_read(TfState *st, PyObject *self)
{
  TfOperand o;
  if (!tf_operand(st, self, TR_DTYPE_INVALID, true, &o))
    return NULL;
  PyObject *r = tf_operand_to_value(st, &o);
  tf_operand_clear(&o);
  return r;
}

/* TensorFlow's repr, also its str: <tf.Variable 'Variable:0' shape=() dtype=float32,
 * numpy=1.0>, the array on a line of its own when it spans several. */
static PyObject *
variable_repr(PyObject *self)
{
  TrVariable *var = var_of(self);
  g_autoptr(TrTensor) t = tr_variable_read(var);
  g_autofree char *shape = tr_shape_to_string(&var->shape);
  g_autofree char *np = tr_tensor_numpy_repr(t);
  return PyUnicode_FromFormat("<tf.Variable '%s:0' shape=%s dtype=%s, numpy=%s%s>", var->name,
                              shape, tr_dtype_name(var->dtype), strchr(np, '\n') ? "\n" : "", np);
}

static PyObject *
variable_read_value(PyObject *self, PyObject *unused)
{
  return variable_read(tf_state(), self);
}

/* Calls `method` of the variable's current eager value (a tf.Tensor). */
static PyObject *
call_on_value(PyObject *self, const char *method, PyObject *const *args, size_t nargsf,
              PyObject *kwnames)
{
  TfState *st = tf_state();
  PyObject *t = tf_tensor_new(st, tr_variable_read(var_of(self))); /* owned */
  if (!t)
    return NULL;
  PyObject *name = PyUnicode_InternFromString(method); /* owned */
  if (!name) {
    Py_DECREF(t);
    return NULL;
  }
  /* Room for the receiver in front of the arguments, as PyObject_VectorcallMethod wants. */
  size_t n = PyVectorcall_NARGS(nargsf) + (kwnames ? (size_t)PyTuple_GET_SIZE(kwnames) : 0);
  PyObject *stack[8];
  PyObject *r = NULL;
  if (n + 1 > G_N_ELEMENTS(stack)) {
    PyErr_Format(PyExc_TypeError, "%s() takes too many arguments", method);
  } else {
    stack[0] = t;
    for (size_t i = 0; i < n; i++)
      stack[i + 1] = args[i];
    r = PyObject_VectorcallMethod(name, stack, (PyVectorcall_NARGS(nargsf) + 1), kwnames);
  }
  Py_DECREF(name);
  Py_DECREF(t);
  return r;
}

static PyObject *
variable_numpy(PyObject *self, PyObject *unused)
{
  return call_on_value(self, "numpy", NULL, 0, NULL);
}

static PyObject *
variable_array(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  return call_on_value(self, "__array__", args, (size_t)nargs, kwnames);
}

/* ---- assignments ----------------------------------------------------------------------------- */

static PyObject *
variable_update(PyObject *self, TrGraphOpId op, const char *fname, PyObject *const *args,
                Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"value", "use_locking", "name", "read_value"};
  PyObject *value = NULL;
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  if (nargs > 4) {
    PyErr_Format(PyExc_TypeError, "%s() takes at most 4 arguments (%zd given)", fname, nargs + nkw);
    return NULL;
  }
  if (nargs > 0)
    value = args[0];
  for (Py_ssize_t k = 0; k < nkw; k++) {
    const char *key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
    if (!key)
      return NULL;
    size_t i = 0;
    while (i < G_N_ELEMENTS(names) && strcmp(names[i], key) != 0)
      i++;
    bool is_value = i == 0 || strcmp(key, "delta") == 0;
    if (i == G_N_ELEMENTS(names) && !is_value) {
      PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%s'", fname, key);
      return NULL;
    }
    if (is_value) {
      if (value) {
        PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fname, key);
        return NULL;
      }
      value = args[nargs + k];
    }
  }
  if (!value) {
    PyErr_Format(PyExc_TypeError, "%s() missing 1 required positional argument: '%s'", fname,
                 op == TR_GOP_ASSIGN_VARIABLE ? "value" : "delta");
    return NULL;
  }
  TfState *st = tf_state();
  TrVariable *var = var_of(self);
  TfTrace *tr = tf_trace(st);
  GError *error = NULL;
  if (!tr) {
    TrTensor *t = tf_convert(st, value, var->dtype, false);
    if (!t)
      return NULL;
    bool ok = op == TR_GOP_ASSIGN_VARIABLE
                  ? tr_variable_assign(var, t, &error)
                  : tr_variable_assign_update(
                        var, op == TR_GOP_ASSIGN_ADD_VARIABLE ? TR_OP_ADD : TR_OP_SUB, t, &error);
    tr_tensor_unref(t);
    if (!ok)
      return tf_raise_any(st, error);
    return Py_NewRef(self);
  }
  TfOperand v;
  if (!tf_operand(st, value, var->dtype, false, &v))
    return NULL;
  TrNode *handle = tr_graph_capture_variable(tr->graph, var, var->name);
  TrNode *node =
      tr_graph_add_assign_variable(tr->graph, op, tr_node_output(handle, 0), v.out, NULL, &error);
  tf_operand_clear(&v);
  if (!node)
    return tf_raise_any(st, error);
  /* In a graph the result is the value after the assignment: a read ordered after it. */
  return variable_read(st, self);
}

static PyObject *
variable_assign(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  return variable_update(self, TR_GOP_ASSIGN_VARIABLE, "assign", args, nargs, kwnames);
}

static PyObject *
variable_assign_add(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  return variable_update(self, TR_GOP_ASSIGN_ADD_VARIABLE, "assign_add", args, nargs, kwnames);
}

static PyObject *
variable_assign_sub(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  return variable_update(self, TR_GOP_ASSIGN_SUB_VARIABLE, "assign_sub", args, nargs, kwnames);
}

/* ---- attributes ------------------------------------------------------------------------------ */

static PyObject *
variable_get_name(PyObject *self, void *closure)
{
  return PyUnicode_FromFormat("%s:0", var_of(self)->name);
}

static PyObject *
variable_get_dtype(PyObject *self, void *closure)
{
  return Py_NewRef(tf_dtype_object(tf_state(), var_of(self)->dtype));
}

static PyObject *
variable_get_shape(PyObject *self, void *closure)
{
  return tf_shape_new(tf_state(), &var_of(self)->shape);
}

static PyObject *
variable_get_shape_method(PyObject *self, PyObject *unused)
{
  return variable_get_shape(self, NULL);
}

static PyObject *
variable_get_trainable(PyObject *self, void *closure)
{
  return PyBool_FromLong(var_of(self)->trainable);
}

static PyObject *
variable_get_device(PyObject *self, void *closure)
{
  return PyUnicode_FromString("/job:localhost/replica:0/task:0/device:CPU:0");
}

static PyObject *
variable_get_ndim(PyObject *self, void *closure)
{
  return PyLong_FromLong(var_of(self)->shape.rank);
}

static Py_hash_t
variable_hash(PyObject *self)
{
  PyErr_SetString(PyExc_TypeError,
                  "Variable is unhashable. Instead, use variable.ref() as the key.");
  return -1;
}

/* ---- operators: a Variable takes part in ops as its value ------------------------------------ */

#define VARIABLE_BINOP(slot, id)                                                                   \
  static PyObject *variable_##slot(PyObject *a, PyObject *b)                                       \
  {                                                                                                \
    return tf_binop(tf_state(), TR_OP_##id, a, b);                                                 \
  }
VARIABLE_BINOP(add, ADD)
VARIABLE_BINOP(sub, SUB)
VARIABLE_BINOP(mul, MUL)
VARIABLE_BINOP(floordiv, FLOORDIV)
VARIABLE_BINOP(mod, MOD)
VARIABLE_BINOP(matmul, MATMUL)
#undef VARIABLE_BINOP

static PyObject *
variable_truediv(PyObject *a, PyObject *b)
{
  return tf_truediv(tf_state(), a, b);
}

static PyObject *
variable_pow(PyObject *a, PyObject *b, PyObject *mod)
{
  if (mod != Py_None)
    Py_RETURN_NOTIMPLEMENTED;
  return tf_binop(tf_state(), TR_OP_POW, a, b);
}

static PyObject *
variable_richcompare(PyObject *a, PyObject *b, int op)
{
  return tf_compare(tf_state(), a, b, op);
}

/* A unary protocol applied to the value read on the current path. */
static PyObject *
on_value(PyObject *self, PyObject *(*apply)(PyObject *))
{
  PyObject *t = variable_read(tf_state(), self); /* owned */
  if (!t)
    return NULL;
  PyObject *r = apply(t);
  Py_DECREF(t);
  return r;
}

static PyObject *
variable_neg(PyObject *self)
{
  return on_value(self, PyNumber_Negative);
}

static PyObject *
variable_pos(PyObject *self)
{
  return on_value(self, PyNumber_Positive);
}

static PyObject *
variable_abs(PyObject *self)
{
  return on_value(self, PyNumber_Absolute);
}

static PyObject *
variable_invert(PyObject *self)
{
  return on_value(self, PyNumber_Invert);
}

static PyObject *
variable_float(PyObject *self)
{
  return on_value(self, PyNumber_Float);
}

static PyObject *
variable_int(PyObject *self)
{
  return on_value(self, PyNumber_Long);
}

static PyObject *
variable_index(PyObject *self)
{
  return on_value(self, PyNumber_Index);
}

static PyObject *
variable_iter(PyObject *self)
{
  return on_value(self, PyObject_GetIter);
}

static int
variable_bool(PyObject *self)
{
  PyObject *t = variable_read(tf_state(), self); /* owned */
  if (!t)
    return -1;
  int r = PyObject_IsTrue(t);
  Py_DECREF(t);
  return r;
}

static Py_ssize_t
variable_len(PyObject *self)
{
  PyObject *t = variable_read(tf_state(), self); /* owned */
  if (!t)
    return -1;
  Py_ssize_t r = PyObject_Length(t);
  Py_DECREF(t);
  return r;
}

static PyObject *
variable_getitem(PyObject *self, PyObject *key)
{
  TfState *st = tf_state();
  PyObject *t = variable_read(st, self); /* owned */
  if (!t)
    return NULL;
  PyObject *r = tf_getitem(st, t, key);
  Py_DECREF(t);
  return r;
}

/* ---- the type -------------------------------------------------------------------------------- */

static PyMethodDef variable_methods[] = {
    {"assign", (PyCFunction)(void (*)(void))variable_assign, METH_FASTCALL | METH_KEYWORDS,
     "assign(value, use_locking=False, name=None, read_value=True)\n--\n\n"
     "Assigns a new value to the variable."},
    {"assign_add", (PyCFunction)(void (*)(void))variable_assign_add, METH_FASTCALL | METH_KEYWORDS,
     "assign_add(delta, use_locking=False, name=None, read_value=True)\n--\n\n"
     "Adds a value to this variable."},
    {"assign_sub", (PyCFunction)(void (*)(void))variable_assign_sub, METH_FASTCALL | METH_KEYWORDS,
     "assign_sub(delta, use_locking=False, name=None, read_value=True)\n--\n\n"
     "Subtracts a value from this variable."},
    {"read_value", variable_read_value, METH_NOARGS, "The current value, as a Tensor."},
    {"value", variable_read_value, METH_NOARGS, "The current value, as a Tensor."},
    {"numpy", variable_numpy, METH_NOARGS, "The current value as a NumPy array or scalar."},
    {"get_shape", variable_get_shape_method, METH_NOARGS, "The TensorShape of the variable."},
    {"__array__", (PyCFunction)(void (*)(void))variable_array, METH_FASTCALL | METH_KEYWORDS,
     "The current value as a NumPy array."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef variable_getsets[] = {
    {"name", variable_get_name, NULL, "The name of the variable: 'Variable:0'.", NULL},
    {"dtype", variable_get_dtype, NULL, "The DType of the variable.", NULL},
    {"shape", variable_get_shape, NULL, "The TensorShape of the variable.", NULL},
    {"trainable", variable_get_trainable, NULL, "Whether optimizers update the variable.", NULL},
    {"device", variable_get_device, NULL, "The device the variable lives on.", NULL},
    {"ndim", variable_get_ndim, NULL, "The variable's rank.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef variable_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(TfVariable, weakreflist), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot variable_slots[] = {
    {Py_tp_doc, "A variable maintains shared, persistent state manipulated by a program."},
    {Py_tp_new, variable_new},
    {Py_tp_dealloc, variable_dealloc},
    {Py_tp_repr, variable_repr},
    {Py_tp_str, variable_repr},
    {Py_tp_hash, variable_hash},
    {Py_tp_richcompare, variable_richcompare},
    {Py_tp_iter, variable_iter},
    {Py_tp_methods, variable_methods},
    {Py_tp_getset, variable_getsets},
    {Py_tp_members, variable_members},
    {Py_nb_add, variable_add},
    {Py_nb_subtract, variable_sub},
    {Py_nb_multiply, variable_mul},
    {Py_nb_true_divide, variable_truediv},
    {Py_nb_floor_divide, variable_floordiv},
    {Py_nb_remainder, variable_mod},
    {Py_nb_power, variable_pow},
    {Py_nb_matrix_multiply, variable_matmul},
    {Py_nb_negative, variable_neg},
    {Py_nb_positive, variable_pos},
    {Py_nb_absolute, variable_abs},
    {Py_nb_invert, variable_invert},
    {Py_nb_float, variable_float},
    {Py_nb_int, variable_int},
    {Py_nb_index, variable_index},
    {Py_nb_bool, variable_bool},
    {Py_mp_subscript, variable_getitem},
    {Py_mp_length, variable_len},
    {0, NULL},
};

static PyType_Spec variable_spec = {
    .name = "tensorflow.python.ops.variables.Variable",
    .basicsize = sizeof(TfVariable),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .slots = variable_slots,
};

/* What tf.Variable(...) returns: TensorFlow's class of every eager and traced variable, a
 * subclass adding nothing (type(v).__name__ is 'ResourceVariable'; isinstance(v, tf.Variable)). */
static PyType_Slot resource_variable_slots[] = {
    {Py_tp_doc, "Variable based on resource handles."},
    {0, NULL},
};

static PyType_Spec resource_variable_spec = {
    .name = "tensorflow.python.ops.resource_variable_ops.ResourceVariable",
    .basicsize = sizeof(TfVariable),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .slots = resource_variable_slots,
};

int
tf_variable_init(PyObject *module, TfState *st)
{
  st->Variable = (PyTypeObject *)PyType_FromModuleAndSpec(module, &variable_spec, NULL);
  if (!st->Variable)
    return -1;
  st->ResourceVariable = (PyTypeObject *)PyType_FromModuleAndSpec(module, &resource_variable_spec,
                                                                  (PyObject *)st->Variable);
  if (!st->ResourceVariable)
    return -1;
  return PyModule_AddObjectRef(module, "Variable", (PyObject *)st->Variable);
}

void
tf_variable_clear(TfState *st)
{
  Py_CLEAR(st->ResourceVariable);
  Py_CLEAR(st->Variable);
}
