/* tf-debugging.c — tf.debugging, tf.nest, tf.name_scope, tf.device, tf.Graph and the small
 * everyday names around them (tf.executing_eagerly, tf.config.list_physical_devices, ...).
 *
 * Most of it is Python (py/debugging.py), as TensorFlow's own check_ops.py and nest.py are: the
 * messages are built from Python values and NumPy's printing. This file gives that code the few
 * things only C can do: whether a trace is running, the graph's name scopes, and the Assert and
 * CheckNumerics nodes that fail a graph's run with TensorFlow's texts (core/graph/gops.c).
 */
#include "tf-private.h"

#include "debugging-py.h"

/* The graph being built, or NULL (with no exception) while eager. */
static TrGraph *
trace_graph(void)
{
  TfTrace *tr = tf_trace(tf_state());
  return tr ? tr->graph : NULL;
}

static PyObject *
dbg_tracing(PyObject *self, PyObject *unused)
{
  return PyBool_FromLong(trace_graph() != NULL);
}

/* push_scope(name): enters a name scope of the graph being built; returns its full name with a
 * trailing "/", as TensorFlow's Graph.name_scope does ("outer/inner_1/"). */
static PyObject *
dbg_push_scope(PyObject *self, PyObject *name)
{
  TrGraph *g = trace_graph();
  const char *text = PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : NULL;
  if (!g || !text) {
    if (!PyErr_Occurred())
      PyErr_SetString(PyExc_RuntimeError, "push_scope needs a trace and a str");
    return NULL;
  }
  tr_graph_push_name_scope(g, text);
  return PyUnicode_FromFormat("%s/", tr_graph_name_scope(g));
}

static PyObject *
dbg_pop_scope(PyObject *self, PyObject *unused)
{
  TrGraph *g = trace_graph();
  if (g && tr_graph_name_scope(g))
    tr_graph_pop_name_scope(g);
  Py_RETURN_NONE;
}

/* assert_node(condition, data, summarize): an Assert node of the graph being built. `data` is
 * a list of tensors and Python values (strings become string constants, as TensorFlow converts
 * them). */
static PyObject *
dbg_assert_node(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  if (nargs != 3 || !PyList_Check(args[1])) {
    PyErr_SetString(PyExc_TypeError, "assert_node(condition, data: list, summarize)");
    return NULL;
  }
  TfState *st = tf_state();
  TrGraph *g = trace_graph();
  long summarize = args[2] == Py_None ? 3 : PyLong_AsLong(args[2]);
  if ((summarize == -1 && PyErr_Occurred()) || !g)
    return g ? NULL : PyErr_Format(PyExc_RuntimeError, "assert_node needs a trace");
  /* A tuple: converting an item may run Python code that changes the list. */
  PyObject *data = PyList_AsTuple(args[1]); /* owned */
  if (!data)
    return NULL;
  int n = 1 + (int)PyTuple_GET_SIZE(data);
  TfOperand *ops = g_new0(TfOperand, n);
  TrOutput *ins = g_new(TrOutput, n);
  int done = 0;
  PyObject *result = NULL;
  if (!tf_operand(st, args[0], TR_BOOL, false, &ops[0]))
    goto out;
  for (done = 1; done < n; done++)
    if (!tf_operand(st, PyTuple_GET_ITEM(data, done - 1), TR_DTYPE_INVALID, true, &ops[done]))
      goto out;
  for (int i = 0; i < n; i++)
    ins[i] = ops[i].out;
  GError *error = NULL;
  if (!tr_graph_add_assert(g, ins, n, summarize < 0 ? -1 : (int)MIN(summarize, G_MAXINT), NULL,
                           &error)) {
    tf_raise_any(st, error);
    goto out;
  }
  result = Py_NewRef(Py_None);
out:
  tf_operands_clear(ops, done);
  g_free(ops);
  g_free(ins);
  Py_DECREF(data);
  return result;
}

/* check_numerics_node(tensor, message): a CheckNumerics node of the graph being built. */
static PyObject *
dbg_check_numerics_node(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  TfState *st = tf_state();
  TrGraph *g = trace_graph();
  const char *message = nargs == 2 && PyUnicode_Check(args[1]) ? PyUnicode_AsUTF8(args[1]) : NULL;
  if (!g || !message) {
    if (!PyErr_Occurred())
      PyErr_SetString(PyExc_TypeError, "check_numerics_node(tensor, message: str) while tracing");
    return NULL;
  }
  TfOperand x = {0};
  if (!tf_operand(st, args[0], TR_DTYPE_INVALID, true, &x))
    return NULL;
  GError *error = NULL;
  TrNode *node = tr_graph_add_check_numerics(g, x.out, message, NULL, &error);
  tf_operand_clear(&x);
  if (!node)
    return tf_raise_any(st, error);
  Py_RETURN_NONE;
}

/* static_value(tensor): its value when known at trace time (eager tensors, Const nodes), as an
 * eager tensor, else None: TensorFlow's tensor_util.constant_value for the checks it makes
 * while tracing. */
static PyObject *
dbg_static_value(PyObject *self, PyObject *v)
{
  TfState *st = tf_state();
  TrTensor *t = tf_static_value(st, v); /* owned */
  if (!t)
    Py_RETURN_NONE;
  return tf_tensor_new(st, t);
}

static PyMethodDef dbg_methods[] = {
    {"tracing", dbg_tracing, METH_NOARGS, "tracing()\n--\n\n"},
    {"push_scope", dbg_push_scope, METH_O, "push_scope(name)\n--\n\n"},
    {"pop_scope", dbg_pop_scope, METH_NOARGS, "pop_scope()\n--\n\n"},
    {"assert_node", (PyCFunction)(void (*)(void))dbg_assert_node, METH_FASTCALL,
     "assert_node(condition, data, summarize)\n--\n\n"},
    {"check_numerics_node", (PyCFunction)(void (*)(void))dbg_check_numerics_node, METH_FASTCALL,
     "check_numerics_node(tensor, message)\n--\n\n"},
    {"static_value", dbg_static_value, METH_O, "static_value(tensor)\n--\n\n"},
    {NULL, NULL, 0, NULL},
};

/* Runs py/debugging.py with `tf` and `_dbg` (the functions above) bound; it installs its names
 * on the module itself. The namespace lives on in its functions' globals. */
int
tf_debugging_init(PyObject *module, TfState *st)
{
  PyObject *helpers = PyModule_New("tensorflow._debugging"); /* owned */
  PyObject *ns = PyDict_New();                               /* owned */
  PyObject *builtins = PyImport_ImportModule("builtins");    /* owned */
  PyObject *name = PyUnicode_FromString("tensorflow");       /* owned */
  int r = helpers && ns && builtins && name && PyModule_AddFunctions(helpers, dbg_methods) == 0 &&
                  PyDict_SetItemString(ns, "__builtins__", builtins) == 0 &&
                  PyDict_SetItemString(ns, "__name__", name) == 0 &&
                  PyDict_SetItemString(ns, "tf", module) == 0 &&
                  PyDict_SetItemString(ns, "_dbg", helpers) == 0
              ? 0
              : -1;
  PyObject *code = r == 0 ? tf_py_code(&tf_debugging_py) : NULL; /* owned */
  PyObject *done = code ? PyEval_EvalCode(code, ns, ns) : NULL;  /* owned */
  r = done ? 0 : -1;
  Py_XDECREF(done);
  Py_XDECREF(code);
  Py_XDECREF(builtins);
  Py_XDECREF(name);
  Py_XDECREF(ns);
  Py_XDECREF(helpers);
  return r;
}

void
tf_debugging_clear(TfState *st)
{
}
