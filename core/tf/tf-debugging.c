/* tf-debugging.c — tf.debugging, tf.nest, tf.name_scope, tf.device, tf.Graph and the small
 * everyday names around them (tf.executing_eagerly, tf.config.list_physical_devices, ...).
 *
 * Most of it is Python (py/debugging.py), as TensorFlow's own check_ops.py and nest.py are: the
 * messages are built from Python values and NumPy's printing. This file gives that code the few
 * things only C can do: whether a trace is running, the graph's name scopes, the Assert and
 * CheckNumerics nodes that fail a graph's run with TensorFlow's texts (core/graph/gops.c), and
 * the EagerPyFunc node by which a graph calls tf.py_function's Python function as it runs.
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

/* current_scope(): the name scope of the graph being built, with a trailing "/" ("" at the top
 * or when nothing traces). */
static PyObject *
dbg_current_scope(PyObject *self, PyObject *unused)
{
  TrGraph *g = trace_graph();
  const char *scope = g ? tr_graph_name_scope(g) : NULL;
  return scope ? PyUnicode_FromFormat("%s/", scope) : PyUnicode_FromString("");
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

/* ---- tf.py_function in a graph ----------------------------------------------------------------
 * An EagerPyFunc node calls back into Python when its graph runs: `runner` (py/debugging.py)
 * takes the inputs as eager tensors and returns the results as a list of eager tensors of the
 * declared dtypes. A Python exception fails the run with the class TensorFlow's py_func.cc
 * maps it to, its message "ValueError: text" as the first line of TensorFlow's. */

static TrErrorCode
py_exception_code(PyObject *exc)
{
  if (PyErr_GivenExceptionMatches(exc, PyExc_ValueError) ||
      PyErr_GivenExceptionMatches(exc, PyExc_TypeError))
    return TR_ERROR_INVALID_ARGUMENT;
  if (PyErr_GivenExceptionMatches(exc, PyExc_StopIteration))
    return TR_ERROR_OUT_OF_RANGE;
  if (PyErr_GivenExceptionMatches(exc, PyExc_MemoryError))
    return TR_ERROR_RESOURCE_EXHAUSTED;
  if (PyErr_GivenExceptionMatches(exc, PyExc_NotImplementedError))
    return TR_ERROR_UNIMPLEMENTED;
  return TR_ERROR_UNKNOWN;
}

/* The pending Python exception as a GError (and cleared); an OpError raised by TensorFlow code
 * inside the function keeps its class. */
static void
py_exception_to_error(TfState *st, GError **error)
{
  PyObject *type, *exc, *tb; /* owned */
  PyErr_Fetch(&type, &exc, &tb);
  PyErr_NormalizeException(&type, &exc, &tb);
  Py_XDECREF(type);
  Py_XDECREF(tb);
  if (!exc) {
    g_set_error_literal(error, TR_ERROR, TR_ERROR_UNKNOWN, "a py_function failed");
    return;
  }
  TrErrorCode code = py_exception_code(exc);
  for (int i = 0; i < TF_N_ERRORS; i++) {
#define KIND_CODE(c, nm) [TF_ERROR_##c] = TR_ERROR_##c,
    static const TrErrorCode codes[] = {TF_ERROR_LIST(KIND_CODE)};
#undef KIND_CODE
    if (PyObject_TypeCheck(exc, (PyTypeObject *)st->errors[i]))
      code = codes[i];
  }
  PyObject *text = PyObject_Str(exc); /* owned */
  const char *msg = text ? PyUnicode_AsUTF8(text) : NULL;
  PyErr_Clear();
  g_set_error(error, TR_ERROR, code, "%s: %s", Py_TYPE(exc)->tp_name, msg ? msg : "?");
  Py_XDECREF(text);
  Py_DECREF(exc);
}

/* TrHostFunc of an EagerPyFunc node; `user` is the runner (a reference the node's TrHostCall
 * owns). The graph may run without the GIL held: it is taken here. */
static bool
py_func_call(void *user, TrTensor *const *in, int n_in, TrTensor **out, int n_out, GError **error)
{
  PyGILState_STATE gil = PyGILState_Ensure();
  TfState *st = tf_state();
  bool ok = false;
  PyObject *result = NULL, *seq = NULL;
  PyObject *args = PyTuple_New(n_in); /* owned */
  for (int i = 0; args && i < n_in; i++) {
    PyObject *t = tf_tensor_new(st, tr_tensor_ref(in[i])); /* owned; stolen below */
    if (!t)
      Py_CLEAR(args);
    else
      PyTuple_SET_ITEM(args, i, t);
  }
  result = args ? PyObject_Call((PyObject *)user, args, NULL) : NULL;
  seq = result ? PySequence_Fast(result, "a py_function runner returns a list") : NULL;
  if (seq && PySequence_Fast_GET_SIZE(seq) != n_out)
    PyErr_Format(PyExc_ValueError, "expected %d values from the function, got %zd", n_out,
                 PySequence_Fast_GET_SIZE(seq));
  else if (seq) {
    ok = true;
    for (int i = 0; ok && i < n_out; i++) {
      PyObject *v = PySequence_Fast_GET_ITEM(seq, i);
      TrTensor *value = tf_is_tensor(st, v) ? tf_tensor_value(v) : NULL;
      if (!value) {
        PyErr_SetString(PyExc_TypeError, "a py_function runner returns eager tensors");
        ok = false;
      } else {
        out[i] = tr_tensor_ref(value);
      }
    }
  }
  if (!ok)
    py_exception_to_error(st, error);
  Py_XDECREF(seq);
  Py_XDECREF(result);
  Py_XDECREF(args);
  PyGILState_Release(gil);
  return ok;
}

static void
py_func_release(void *user)
{
  PyGILState_STATE gil = PyGILState_Ensure();
  Py_DECREF((PyObject *)user);
  PyGILState_Release(gil);
}

/* py_func_node(runner, inputs, dtypes, name): an EagerPyFunc node of the graph being built;
 * returns its outputs as a list of symbolic tensors. */
static PyObject *
dbg_py_func_node(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  TfState *st = tf_state();
  TrGraph *g = trace_graph();
  if (nargs != 4 || !g || !PyCallable_Check(args[0]) || !PyList_Check(args[1]) ||
      !PyList_Check(args[2])) {
    PyErr_SetString(PyExc_TypeError,
                    "py_func_node(runner, inputs: list, dtypes: list, name) while tracing");
    return NULL;
  }
  const char *name = PyUnicode_Check(args[3]) ? PyUnicode_AsUTF8(args[3]) : NULL;
  PyObject *inputs = PyList_AsTuple(args[1]), *dtypes = PyList_AsTuple(args[2]); /* owned */
  if (!inputs || !dtypes) {
    Py_XDECREF(inputs);
    Py_XDECREF(dtypes);
    return NULL;
  }
  int n = (int)PyTuple_GET_SIZE(inputs), n_out = (int)PyTuple_GET_SIZE(dtypes);
  TfOperand *ops = g_new0(TfOperand, MAX(n, 1));
  TrOutput *ins = g_new(TrOutput, MAX(n, 1));
  TrDType *out_dtypes = g_new(TrDType, MAX(n_out, 1));
  PyObject *result = NULL;
  int done = 0;
  for (; done < n; done++) {
    if (!tf_operand(st, PyTuple_GET_ITEM(inputs, done), TR_DTYPE_INVALID, true, &ops[done]))
      goto out;
    ins[done] = ops[done].out;
  }
  for (int i = 0; i < n_out; i++)
    if (!tf_dtype_arg(st, PyTuple_GET_ITEM(dtypes, i), TR_DTYPE_INVALID, &out_dtypes[i]))
      goto out;
  TrHostCall *call = tr_host_call_new(py_func_call, Py_NewRef(args[0]), py_func_release);
  GError *error = NULL;
  TrNode *node = tr_graph_add_host_call(g, call, ins, n, out_dtypes, n_out, name, &error);
  tr_host_call_unref(call);
  if (!node) {
    tf_raise_any(st, error);
    goto out;
  }
  result = PyList_New(n_out);
  for (int i = 0; result && i < n_out; i++) {
    PyObject *t = tf_symbolic_new(st, g, tr_node_output(node, i));
    if (!t)
      Py_CLEAR(result);
    else
      PyList_SET_ITEM(result, i, t);
  }
out:
  tf_operands_clear(ops, done);
  g_free(ops);
  g_free(ins);
  g_free(out_dtypes);
  Py_DECREF(inputs);
  Py_DECREF(dtypes);
  return result;
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

/* set_eager_scope(scope): tf.name_scope's scope while eager ("" or None: none); returns the
 * previous one. */
static PyObject *
dbg_set_eager_scope(PyObject *self, PyObject *scope)
{
  TfState *st = tf_state();
  const char *text = scope == Py_None         ? ""
                     : PyUnicode_Check(scope) ? PyUnicode_AsUTF8(scope)
                                              : NULL;
  if (!text) {
    if (!PyErr_Occurred())
      PyErr_SetString(PyExc_TypeError, "set_eager_scope(scope: str)");
    return NULL;
  }
  PyObject *old = PyUnicode_FromString(st->eager_name_scope ? st->eager_name_scope : "");
  if (!old)
    return NULL;
  g_free(st->eager_name_scope);
  st->eager_name_scope = *text ? g_strdup(text) : NULL;
  return old;
}

static PyMethodDef dbg_methods[] = {
    {"set_eager_scope", dbg_set_eager_scope, METH_O, "set_eager_scope(scope)\n--\n\n"},
    {"tracing", dbg_tracing, METH_NOARGS, "tracing()\n--\n\n"},
    {"push_scope", dbg_push_scope, METH_O, "push_scope(name)\n--\n\n"},
    {"pop_scope", dbg_pop_scope, METH_NOARGS, "pop_scope()\n--\n\n"},
    {"current_scope", dbg_current_scope, METH_NOARGS, "current_scope()\n--\n\n"},
    {"assert_node", (PyCFunction)(void (*)(void))dbg_assert_node, METH_FASTCALL,
     "assert_node(condition, data, summarize)\n--\n\n"},
    {"py_func_node", (PyCFunction)(void (*)(void))dbg_py_func_node, METH_FASTCALL,
     "py_func_node(runner, inputs, dtypes, name)\n--\n\n"},
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
  g_clear_pointer(&st->eager_name_scope, g_free);
}
