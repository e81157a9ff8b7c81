/* tf-function.c — tf.function: Function, ConcreteFunction, TensorSpec, Graph, tf.print,
 * tf.init_scope and tf.config, on core/trace's cache and core/graph's graphs and plans.
 *
 * A call of a Function binds its arguments to the Python function's parameters (from its code
 * object, with CPython's TypeError texts), builds the call's trace key (SPEC §3.1) and asks
 * core/trace which ConcreteFunction serves it:
 *  - hit: the trace's plan runs on the call's tensors; no Python code runs. A call whose
 *    arguments match the previous call's key exactly (the common case in a loop) skips
 *    building a key at all and goes straight to the plan (tr_fn_hit_begin);
 *  - miss: the body (AutoGraph's conversion of it, unless autograph=False) runs once on
 *    symbolic tensors (placeholders named after the parameters) while a TfTrace is current,
 *    so every op adds a node; the returned structure becomes the graph's outputs and a
 *    template to rebuild results from; the graph is optimised (on a copy, so the user sees
 *    what was traced), planned, stored, and run;
 *  - eager: tf.config.run_functions_eagerly(True) runs the Python body directly.
 * A Function called while another traces inlines its ConcreteFunction's graph into the outer
 * graph. Every step emits core/trace's events with the call site of the calling Python frame.
 * tf.print writes to Python's sys.stdout / sys.stderr objects, so hosts capture it.
 */
#include "tf-private.h"

#include "function-py.h"

#include <limits.h>
#include <string.h>
#include <structmember.h>

/* ---- arguments ------------------------------------------------------------------------------- */

/* A boolean option: `dflt` when not given or None. -1 with an exception. */
static int
bool_arg(PyObject *v, bool dflt)
{
  if (!v || v == Py_None)
    return dflt;
  return PyObject_IsTrue(v);
}

/* A type's name without its module: "Point" for "__main__.Point" (what tp_name ends with). */
static const char *
short_type_name(PyTypeObject *type)
{
  const char *dot = strrchr(type->tp_name, '.');
  return dot ? dot + 1 : type->tp_name;
}

/* ---- output: Python's streams, tf.print's events --------------------------------------------- */

/* Writes text to sys.stdout or sys.stderr (whatever objects they are now: a host's capture, a
 * notebook's stream). False with an exception set. */
static bool
write_stream(bool to_stderr, const char *text, size_t len)
{
  PyObject *stream = PySys_GetObject(to_stderr ? "stderr" : "stdout"); /* borrowed */
  if (!stream || stream == Py_None)
    return true; /* no stream (pythonw, a closed interpreter): nothing to write to */
  PyObject *s = PyUnicode_DecodeUTF8(text, (Py_ssize_t)len, "replace"); /* owned */
  if (!s)
    return false;
  PyObject *r = PyObject_CallMethod(stream, "write", "O", s);
  Py_DECREF(s);
  if (!r)
    return false;
  Py_DECREF(r);
  return true;
}

static void
emit_print(TfState *st, TrFn *fn, const char *text, size_t len)
{
  if (!tr_event_bus_wants(st->bus, TR_EVENT_TF_PRINT))
    return;
  TrEvent *ev = tr_event_new(TR_EVENT_TF_PRINT);
  ev->cell = st->cell;
  if (fn) {
    ev->fn_id = (gint64)tr_fn_get_id(fn);
    ev->fn_name = g_strdup(tr_fn_get_name(fn));
  }
  ev->text = g_strndup(text, len);
  tr_event_bus_emit(st->bus, ev);
}

/* Where a running graph's tf.print goes. The first failed write keeps its exception; the run's
 * caller raises it. */
typedef struct {
  TfState *st;
  TrFn *fn;    /* the Function whose graph prints, or NULL */
  bool failed; /* a write raised; its exception is set */
} PrintSink;

static void
print_sink_write(const char *text, size_t len, bool to_stderr, void *user)
{
  PrintSink *sink = user;
  if (!sink->failed && !write_stream(to_stderr, text, len))
    sink->failed = true;
  emit_print(sink->st, sink->fn, text, len);
}

/* The retracing warning, as TensorFlow's logger prints it, when the host asked for it. Runs
 * on the thread that traced, which holds the GIL. */
static void
print_retracing_warning(const TrEvent *ev, gpointer user)
{
  TfState *st = user;
  if (ev->kind != TR_EVENT_RETRACING_WARNING || !ev->text || !st->warnings_subscribed)
    return;
  g_autofree char *line = g_strdup_printf("WARNING:tensorflow:%s\n", ev->text);
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  if (!write_stream(true, line, strlen(line)))
    PyErr_WriteUnraisable(NULL);
  PyErr_Restore(type, value, tb);
}

/* ---- TensorSpec ------------------------------------------------------------------------------ */

typedef struct {
  PyObject ob_base; /* PyObject_HEAD */
  TrShape shape;    /* possibly partial */
  TrDType dtype;    /* element type */
  char *name;       /* or NULL (owned) */
} TensorSpec;

static PyObject *
spec_new(TfState *st, const TrShape *shape, TrDType dtype, const char *name)
{
  TensorSpec *s = PyObject_New(TensorSpec, st->TensorSpec);
  if (!s)
    return NULL;
  s->shape = *shape;
  s->dtype = dtype;
  s->name = g_strdup(name);
  return (PyObject *)s;
}

static PyObject *
spec_tp_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
  static char *kwlist[] = {"shape", "dtype", "name", NULL};
  PyObject *shape, *dtype = Py_None, *name = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OO:TensorSpec", kwlist, &shape, &dtype, &name))
    return NULL;
  TfState *st = tf_state();
  TrShape s = tr_shape_unknown();
  if (shape != Py_None && !tf_shape_arg(st, shape, &s))
    return NULL;
  TrDType dt;
  if (!tf_dtype_arg(st, dtype, TR_FLOAT32, &dt))
    return NULL;
  if (name != Py_None && !PyUnicode_Check(name)) {
    PyErr_SetString(PyExc_TypeError, "TensorSpec name must be a string or None");
    return NULL;
  }
  return spec_new(st, &s, dt, name == Py_None ? NULL : PyUnicode_AsUTF8(name));
}

static void
spec_dealloc(PyObject *self)
{
  PyTypeObject *type = Py_TYPE(self);
  g_free(((TensorSpec *)self)->name);
  PyObject_Free(self);
  Py_DECREF(type);
}

static PyObject *
spec_repr(PyObject *self)
{
  TensorSpec *s = (TensorSpec *)self;
  g_autoptr(TrTraceType) t = tr_trace_type_new_tensor(s->dtype, &s->shape, s->name);
  g_autofree char *text = tr_trace_type_to_string(t);
  return PyUnicode_FromString(text);
}

static PyObject *
spec_richcompare(PyObject *a, PyObject *b, int op)
{
  TfState *st = tf_state();
  if ((op != Py_EQ && op != Py_NE) || !Py_IS_TYPE(b, st->TensorSpec))
    Py_RETURN_NOTIMPLEMENTED;
  TensorSpec *x = (TensorSpec *)a, *y = (TensorSpec *)b;
  bool eq = x->dtype == y->dtype && tr_shape_equal(&x->shape, &y->shape) &&
            g_strcmp0(x->name, y->name) == 0;
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static Py_hash_t
spec_hash(PyObject *self)
{
  TensorSpec *s = (TensorSpec *)self;
  g_autoptr(TrTraceType) t = tr_trace_type_new_tensor(s->dtype, &s->shape, NULL);
  Py_hash_t h = (Py_hash_t)tr_trace_type_hash(t) ^ (Py_hash_t)(s->name ? g_str_hash(s->name) : 0);
  return h == -1 ? -2 : h;
}

static PyObject *
spec_get_shape(PyObject *self, void *closure)
{
  return tf_shape_new(tf_state(), &((TensorSpec *)self)->shape);
}

static PyObject *
spec_get_dtype(PyObject *self, void *closure)
{
  return Py_NewRef(tf_dtype_object(tf_state(), ((TensorSpec *)self)->dtype));
}

static PyObject *
spec_get_name(PyObject *self, void *closure)
{
  const char *name = ((TensorSpec *)self)->name;
  if (!name)
    Py_RETURN_NONE;
  return PyUnicode_FromString(name);
}

/* TensorSpec.from_tensor(tensor, name=None). */
static PyObject *
spec_from_tensor(PyObject *cls, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"tensor", "name", NULL};
  PyObject *a[2];
  if (!tf_parse_args("from_tensor", args, nargs, kwnames, names, 1, a))
    return NULL;
  TfState *st = tf_state();
  TrShape shape;
  TrDType dtype = tf_dtype_of(st, a[0]);
  if (dtype == TR_DTYPE_INVALID || !tf_shape_of(st, a[0], &shape)) {
    PyErr_SetString(PyExc_TypeError, "TensorSpec.from_tensor needs a tf.Tensor or tf.Variable");
    return NULL;
  }
  const char *name = NULL;
  if (a[1] && a[1] != Py_None && !(name = PyUnicode_AsUTF8(a[1])))
    return NULL;
  return spec_new(st, &shape, dtype, name);
}

static PyMethodDef spec_methods[] = {
    {"from_tensor", (PyCFunction)(void (*)(void))spec_from_tensor,
     METH_FASTCALL | METH_KEYWORDS | METH_CLASS, "The TensorSpec describing `tensor`."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef spec_getsets[] = {
    {"shape", spec_get_shape, NULL, "The TensorShape of the described tensors.", NULL},
    {"dtype", spec_get_dtype, NULL, "The DType of the described tensors.", NULL},
    {"name", spec_get_name, NULL, "The name of the described tensor, or None.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot spec_slots[] = {
    {Py_tp_doc, "Describes the type of a tf.Tensor: its shape, dtype and name."},
    {Py_tp_new, spec_tp_new},
    {Py_tp_dealloc, spec_dealloc},
    {Py_tp_repr, spec_repr},
    {Py_tp_richcompare, spec_richcompare},
    {Py_tp_hash, spec_hash},
    {Py_tp_methods, spec_methods},
    {Py_tp_getset, spec_getsets},
    {0, NULL},
};

static PyType_Spec spec_spec = {
    .name = "tensorflow.TensorSpec",
    .basicsize = sizeof(TensorSpec),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = spec_slots,
};

/* ---- Graph ----------------------------------------------------------------------------------- */

typedef struct {
  PyObject ob_base; /* PyObject_HEAD */
  TrGraph *graph;   /* owned reference */
} GraphObject;

PyObject *
tf_graph_object_new(TfState *st, TrGraph *graph)
{
  GraphObject *g = PyObject_New(GraphObject, st->Graph);
  if (!g)
    return NULL;
  g->graph = tr_graph_ref(graph);
  return (PyObject *)g;
}

static TrGraph *
graph_of(PyObject *self)
{
  return ((GraphObject *)self)->graph;
}

static void
graph_dealloc(PyObject *self)
{
  PyTypeObject *type = Py_TYPE(self);
  g_clear_pointer(&((GraphObject *)self)->graph, tr_graph_unref);
  PyObject_Free(self);
  Py_DECREF(type);
}

/* An instance of a class of py/function.py. */
static PyObject *
support_call(TfState *st, const char *cls_name, PyObject *const *args, size_t nargs)
{
  PyObject *cls = PyDict_GetItemString(st->py_support, cls_name); /* borrowed */
  if (!cls) {
    PyErr_Format(PyExc_RuntimeError, "tensorflow's %s is missing", cls_name);
    return NULL;
  }
  return PyObject_Vectorcall(cls, args, nargs, NULL);
}

/* One NodeDef. New reference. */
static PyObject *
node_def(TfState *st, const TrNodeDef *d)
{
  PyObject *inputs = PyList_New(d->n_inputs); /* owned */
  if (!inputs)
    return NULL;
  for (int k = 0; k < d->n_inputs; k++) {
    PyObject *s = PyUnicode_FromString(d->inputs[k]);
    if (!s) {
      Py_DECREF(inputs);
      return NULL;
    }
    PyList_SET_ITEM(inputs, k, s);
  }
  PyObject *name = PyUnicode_FromString(d->name), *op = PyUnicode_FromString(d->op);
  PyObject *node = NULL;
  if (name && op) {
    PyObject *fields[3] = {name, op, inputs};
    node = support_call(st, "NodeDef", fields, 3);
  }
  Py_XDECREF(name);
  Py_XDECREF(op);
  Py_DECREF(inputs);
  return node;
}

static PyObject *
graph_as_graph_def(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"from_version", "add_shapes", "use_pybind11_proto", NULL};
  PyObject *a[3];
  if (!tf_parse_args("as_graph_def", args, nargs, kwnames, names, 0, a))
    return NULL;
  TfState *st = tf_state();
  int n;
  TrNodeDef *defs = tr_graph_as_graph_def(graph_of(self), &n);
  PyObject *nodes = PyList_New(n); /* owned */
  for (int i = 0; nodes && i < n; i++) {
    PyObject *node = node_def(st, &defs[i]);
    if (!node)
      Py_CLEAR(nodes);
    else
      PyList_SET_ITEM(nodes, i, node);
  }
  tr_graph_def_free(defs, n);
  if (!nodes)
    return NULL;
  PyObject *r = support_call(st, "GraphDef", &nodes, 1);
  Py_DECREF(nodes);
  return r;
}

/* A Python str taking over `text` (transfer full). */
static PyObject *
take_string(char *text)
{
  PyObject *r = PyUnicode_FromString(text);
  g_free(text);
  return r;
}

static PyObject *
graph_to_dot(PyObject *self, PyObject *unused)
{
  return take_string(tr_graph_to_dot(graph_of(self)));
}

static PyObject *
graph_to_json(PyObject *self, PyObject *unused)
{
  return take_string(tr_graph_to_json(graph_of(self)));
}

/* The graph as inline SVG: the <svg> element alone, without the XML declaration and doctype
 * Graphviz writes (Jupyter embeds it in HTML, where those are not allowed). */
static PyObject *
svg_of(TrGraph *graph)
{
  GError *error = NULL;
  g_autofree char *svg = tr_graph_to_svg(graph, &error);
  if (!svg) {
    PyErr_SetString(PyExc_RuntimeError, error->message);
    g_error_free(error);
    return NULL;
  }
  const char *start = strstr(svg, "<svg");
  return PyUnicode_FromString(start ? start : svg);
}

static PyObject *
graph_repr_svg(PyObject *self, PyObject *unused)
{
  return svg_of(graph_of(self));
}

static PyObject *
graph_repr(PyObject *self)
{
  TrGraph *g = graph_of(self);
  return PyUnicode_FromFormat("<FuncGraph name=%s, %d nodes>", tr_graph_name(g),
                              tr_graph_n_nodes(g));
}

static PyObject *
graph_get_name(PyObject *self, void *closure)
{
  return PyUnicode_FromString(tr_graph_name(graph_of(self)));
}

/* ---- Operation: a node of a graph, as tf.Operation ------------------------------------------ */

typedef struct {
  PyObject ob_base; /* PyObject_HEAD */
  TrGraph *graph;   /* owned reference */
  TrNode *node;     /* borrowed from graph */
} OperationObject;

PyObject *
tf_operation_new(TfState *st, TrGraph *graph, TrNode *node)
{
  OperationObject *op = PyObject_New(OperationObject, st->Operation);
  if (!op)
    return NULL;
  op->graph = tr_graph_ref(graph);
  op->node = node;
  return (PyObject *)op;
}

static void
operation_dealloc(PyObject *self)
{
  PyTypeObject *type = Py_TYPE(self);
  g_clear_pointer(&((OperationObject *)self)->graph, tr_graph_unref);
  PyObject_Free(self);
  Py_DECREF(type);
}

static TrNode *
node_of(PyObject *self)
{
  return ((OperationObject *)self)->node;
}

static PyObject *
operation_repr(PyObject *self)
{
  return PyUnicode_FromFormat("<tf.Operation '%s' type=%s>", node_of(self)->name,
                              node_of(self)->type);
}

/* Two Operation objects of one node are equal (each lookup makes a new object). */
static PyObject *
operation_richcompare(PyObject *a, PyObject *b, int op)
{
  if ((op != Py_EQ && op != Py_NE) || Py_TYPE(a) != Py_TYPE(b))
    Py_RETURN_NOTIMPLEMENTED;
  bool same = node_of(a) == node_of(b);
  return PyBool_FromLong(op == Py_EQ ? same : !same);
}

static Py_hash_t
operation_hash(PyObject *self)
{
  return _Py_HashPointer(node_of(self));
}

static PyObject *
operation_get_name(PyObject *self, void *closure)
{
  return PyUnicode_FromString(node_of(self)->name);
}

static PyObject *
operation_get_type(PyObject *self, void *closure)
{
  return PyUnicode_FromString(node_of(self)->type);
}

static PyObject *
operation_get_graph(PyObject *self, void *closure)
{
  return tf_graph_object_new(tf_state(), ((OperationObject *)self)->graph);
}

static PyObject *
operation_get_device(PyObject *self, void *closure)
{
  return PyUnicode_FromString(""); /* placed by nobody: TensorFlow's default for graph ops */
}

/* A tuple (inputs) or list (outputs) of the symbolic tensors of `outs`. */
static PyObject *
tensors_of(OperationObject *op, const TrOutput *outs, int n, bool tuple)
{
  TfState *st = tf_state();
  PyObject *r = tuple ? PyTuple_New(n) : PyList_New(n); /* owned */
  for (int i = 0; r && i < n; i++) {
    PyObject *t = tf_symbolic_new(st, op->graph, outs[i]);
    if (!t)
      Py_CLEAR(r);
    else if (tuple)
      PyTuple_SET_ITEM(r, i, t);
    else
      PyList_SET_ITEM(r, i, t);
  }
  return r;
}

static PyObject *
operation_get_inputs(PyObject *self, void *closure)
{
  TrNode *node = node_of(self);
  return tensors_of((OperationObject *)self, node->inputs, node->n_inputs, true);
}

static PyObject *
operation_get_outputs(PyObject *self, void *closure)
{
  TrNode *node = node_of(self);
  g_autofree TrOutput *outs = g_new(TrOutput, MAX(node->n_outputs, 1));
  for (int i = 0; i < node->n_outputs; i++)
    outs[i] = tr_node_output(node, i);
  return tensors_of((OperationObject *)self, outs, node->n_outputs, false);
}

static PyObject *
operation_get_control_inputs(PyObject *self, void *closure)
{
  TrNode *node = node_of(self);
  TfState *st = tf_state();
  PyObject *r = PyList_New(node->n_control); /* owned */
  for (int i = 0; r && i < node->n_control; i++) {
    PyObject *op = tf_operation_new(st, ((OperationObject *)self)->graph, node->control[i]);
    if (!op)
      Py_CLEAR(r);
    else
      PyList_SET_ITEM(r, i, op);
  }
  return r;
}

static PyObject *
operation_get_node_def(PyObject *self, void *closure)
{
  OperationObject *op = (OperationObject *)self;
  int n;
  TrNodeDef *defs = tr_graph_as_graph_def(op->graph, &n);
  PyObject *r = NULL;
  for (int i = 0; i < n && !r; i++)
    if (strcmp(defs[i].name, op->node->name) == 0)
      r = node_def(tf_state(), &defs[i]);
  tr_graph_def_free(defs, n);
  if (!r && !PyErr_Occurred())
    PyErr_Format(PyExc_ValueError, "no NodeDef for operation '%s'", op->node->name);
  return r;
}

static PyGetSetDef operation_getsets[] = {
    {"name", operation_get_name, NULL, "The full name of the operation.", NULL},
    {"type", operation_get_type, NULL, "The type of the op (e.g. \"MatMul\").", NULL},
    {"graph", operation_get_graph, NULL, "The Graph that contains this operation.", NULL},
    {"device", operation_get_device, NULL, "The name of the device this op is placed on.", NULL},
    {"inputs", operation_get_inputs, NULL, "The input Tensors of this operation.", NULL},
    {"outputs", operation_get_outputs, NULL, "The list of Tensor objects this op outputs.", NULL},
    {"control_inputs", operation_get_control_inputs, NULL,
     "The Operations that must run before this one.", NULL},
    {"node_def", operation_get_node_def, NULL, "The NodeDef of this operation.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot operation_slots[] = {
    {Py_tp_doc, "Represents a graph node that performs computation on tensors."},
    {Py_tp_dealloc, operation_dealloc},
    {Py_tp_repr, operation_repr},
    {Py_tp_richcompare, operation_richcompare},
    {Py_tp_hash, operation_hash},
    {Py_tp_getset, operation_getsets},
    {0, NULL},
};

static PyType_Spec operation_spec = {
    .name = "tensorflow.Operation",
    .basicsize = sizeof(OperationObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = operation_slots,
};

/* Graph.get_operations(): every node, in the order they were added. */
static PyObject *
graph_get_operations(PyObject *self, PyObject *unused)
{
  TrGraph *g = graph_of(self);
  TfState *st = tf_state();
  PyObject *r = PyList_New(tr_graph_n_nodes(g)); /* owned */
  for (int i = 0; r && i < tr_graph_n_nodes(g); i++) {
    PyObject *op = tf_operation_new(st, g, tr_graph_node(g, i));
    if (!op)
      Py_CLEAR(r);
    else
      PyList_SET_ITEM(r, i, op);
  }
  return r;
}

static PyObject *
graph_get_operation_by_name(PyObject *self, PyObject *name)
{
  if (!PyUnicode_Check(name)) {
    PyErr_Format(PyExc_TypeError, "Operation names are strings (or similar), not %s.",
                 Py_TYPE(name)->tp_name);
    return NULL;
  }
  const char *text = PyUnicode_AsUTF8(name);
  if (!text)
    return NULL;
  if (strchr(text, ':')) { /* Graph._as_graph_element_locked's texts, as TensorFlow words them */
    PyErr_Format(PyExc_ValueError, "Name %R appears to refer to a Tensor, not a Operation.", name);
    return NULL;
  }
  TrNode *node = tr_graph_find_node(graph_of(self), text);
  if (!node) {
    PyErr_Format(PyExc_KeyError, "The name %R refers to an Operation not in the graph.", name);
    return NULL;
  }
  return tf_operation_new(tf_state(), graph_of(self), node);
}

static PyObject *
graph_get_tensor_by_name(PyObject *self, PyObject *name)
{
  if (!PyUnicode_Check(name)) {
    PyErr_Format(PyExc_TypeError, "Tensor names are strings (or similar), not %s.",
                 Py_TYPE(name)->tp_name);
    return NULL;
  }
  const char *text = PyUnicode_AsUTF8(name);
  if (!text)
    return NULL;
  const char *colon = strrchr(text, ':');
  if (!colon) {
    PyErr_Format(PyExc_ValueError,
                 tr_graph_find_node(graph_of(self), text)
                     ? "The name %R refers to an Operation, not a Tensor. Tensor names must be of "
                       "the form \"<op_name>:<output_index>\"."
                     : "The name %R looks like an (invalid) Operation name, not a Tensor. Tensor "
                       "names must be of the form \"<op_name>:<output_index>\".",
                 name);
    return NULL;
  }
  guint64 index;
  if (!g_ascii_string_to_unsigned(colon + 1, 10, 0, G_MAXINT, &index, NULL)) {
    PyErr_Format(PyExc_ValueError,
                 "The name %R looks a like a Tensor name, but is not a valid one. Tensor names "
                 "must be of the form \"<op_name>:<output_index>\".",
                 name);
    return NULL;
  }
  g_autofree char *op_name = g_strndup(text, (gsize)(colon - text));
  TrNode *node = tr_graph_find_node(graph_of(self), op_name);
  if (!node) {
    PyErr_Format(PyExc_KeyError,
                 "The name %R refers to a Tensor which does not exist. The operation, '%s', "
                 "does not exist in the graph.",
                 name, op_name);
    return NULL;
  }
  if ((int)index >= node->n_outputs) {
    PyErr_Format(PyExc_KeyError,
                 "The name %R refers to a Tensor which does not exist. The operation, '%s', "
                 "exists but only has %d outputs.",
                 name, op_name, node->n_outputs);
    return NULL;
  }
  return tf_symbolic_new(tf_state(), graph_of(self), tr_node_output(node, (int)index));
}

/* Graph.inputs and Graph.outputs: the arguments' placeholders, the results' tensors. */
static PyObject *
graph_get_inputs(PyObject *self, void *closure)
{
  TrGraph *g = graph_of(self);
  TfState *st = tf_state();
  PyObject *r = PyList_New(tr_graph_n_inputs(g)); /* owned */
  for (int i = 0; r && i < tr_graph_n_inputs(g); i++) {
    PyObject *t = tf_symbolic_new(st, g, tr_node_output(tr_graph_input(g, i), 0));
    if (!t)
      Py_CLEAR(r);
    else
      PyList_SET_ITEM(r, i, t);
  }
  return r;
}

static PyObject *
graph_get_outputs(PyObject *self, void *closure)
{
  TrGraph *g = graph_of(self);
  TfState *st = tf_state();
  PyObject *r = PyList_New(tr_graph_n_outputs(g)); /* owned */
  for (int i = 0; r && i < tr_graph_n_outputs(g); i++) {
    PyObject *t = tf_symbolic_new(st, g, tr_node_output(tr_graph_output(g, i), 0));
    if (!t)
      Py_CLEAR(r);
    else
      PyList_SET_ITEM(r, i, t);
  }
  return r;
}

static PyMethodDef graph_methods[] = {
    {"as_graph_def", (PyCFunction)(void (*)(void))graph_as_graph_def, METH_FASTCALL | METH_KEYWORDS,
     "The graph as a GraphDef: .node lists every node with its name, op and inputs."},
    {"get_operations", graph_get_operations, METH_NOARGS,
     "The list of operations in the graph, in the order they were added."},
    {"get_operation_by_name", graph_get_operation_by_name, METH_O,
     "The Operation with the given name."},
    {"get_tensor_by_name", graph_get_tensor_by_name, METH_O,
     "The Tensor with the given name (\"op_name:output_index\")."},
    {"to_dot", graph_to_dot, METH_NOARGS, "The graph in Graphviz's DOT language."},
    {"to_json", graph_to_json, METH_NOARGS, "The graph as JSON."},
    {"_repr_svg_", graph_repr_svg, METH_NOARGS, "An SVG drawing of the graph (Graphviz)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef graph_getsets[] = {
    {"name", graph_get_name, NULL, "The name of the function the graph was traced for.", NULL},
    {"inputs", graph_get_inputs, NULL, "The placeholders of the function's arguments.", NULL},
    {"outputs", graph_get_outputs, NULL, "The tensors the function returns.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot graph_slots[] = {
    {Py_tp_doc, "A dataflow graph traced from a Python function."},
    {Py_tp_dealloc, graph_dealloc},
    {Py_tp_repr, graph_repr},
    {Py_tp_methods, graph_methods},
    {Py_tp_getset, graph_getsets},
    {0, NULL},
};

static PyType_Spec graph_spec = {
    .name = "tensorflow.python.framework.func_graph.FuncGraph",
    .basicsize = sizeof(GraphObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = graph_slots,
};

/* ---- result templates ------------------------------------------------------------------------ */

/* The structure a traced function returned, with each tensor replaced by the index of the
 * graph output standing for it. A run rebuilds the result from it. */
typedef enum {
  TPL_SLOT,       /* graph output `index` */
  TPL_VALUE,      /* `value` itself (None, any non-tensor object) */
  TPL_LIST,       /* items */
  TPL_TUPLE,      /* items */
  TPL_NAMEDTUPLE, /* items; `value` is the namedtuple class */
  TPL_DICT,       /* items; `value` is the tuple of keys, in the dict's order */
} TplKind;

typedef struct Tpl Tpl;
struct Tpl {
  TplKind kind;    /* what this node rebuilds */
  int index;       /* TPL_SLOT: the graph output */
  PyObject *value; /* see TplKind (owned), or NULL */
  int n;           /* items */
  Tpl *items;      /* owned array of n */
};

static void
tpl_clear(Tpl *t)
{
  for (int i = 0; i < t->n; i++)
    tpl_clear(&t->items[i]);
  g_free(t->items);
  Py_CLEAR(t->value);
}

static bool
is_namedtuple(PyObject *v)
{
  if (!PyTuple_Check(v) || PyTuple_CheckExact(v))
    return false;
  PyObject *fields = PyObject_GetAttrString((PyObject *)Py_TYPE(v), "_fields");
  if (!fields) {
    PyErr_Clear();
    return false;
  }
  bool ok = PyTuple_Check(fields);
  Py_DECREF(fields);
  return ok;
}

/* Python values a traced function may return that TensorFlow makes into tensors. */
static bool
is_scalar_value(PyObject *v)
{
  return PyBool_Check(v) || PyLong_Check(v) || PyFloat_Check(v) || PyUnicode_Check(v) ||
         PyBytes_Check(v);
}

/* Fills `t` for returned value `v`: tensors, Variables and Python scalars become outputs of
 * `g` (Identity nodes). False with an exception (t is then cleared). */
static bool
tpl_make(TfState *st, TrGraph *g, PyObject *v, int *n_outputs, Tpl *t)
{
  memset(t, 0, sizeof *t);
  if (tf_is_tensor(st, v) || tf_is_variable(st, v) || is_scalar_value(v)) {
    TfOperand o;
    if (!tf_operand(st, v, TR_DTYPE_INVALID, true, &o))
      return false;
    GError *error = NULL;
    bool ok = tr_graph_add_output(g, o.out, &error) != NULL;
    tf_operand_clear(&o);
    if (!ok) {
      tf_raise_any(st, error);
      return false;
    }
    t->kind = TPL_SLOT;
    t->index = (*n_outputs)++;
    return true;
  }
  PyObject *seq = NULL; /* owned: the items to walk */
  if (PyList_Check(v)) {
    t->kind = TPL_LIST;
    seq = Py_NewRef(v);
  } else if (PyTuple_Check(v)) {
    t->kind = is_namedtuple(v) ? TPL_NAMEDTUPLE : TPL_TUPLE;
    if (t->kind == TPL_NAMEDTUPLE)
      t->value = Py_NewRef((PyObject *)Py_TYPE(v));
    seq = Py_NewRef(v);
  } else if (PyDict_Check(v)) {
    t->kind = TPL_DICT;
    PyObject *keys = PyDict_Keys(v); /* owned list */
    t->value = keys ? PyList_AsTuple(keys) : NULL;
    Py_XDECREF(keys);
    seq = t->value ? PyDict_Values(v) : NULL;
    if (!seq) {
      tpl_clear(t);
      return false;
    }
  } else {
    t->kind = TPL_VALUE;
    t->value = Py_NewRef(v);
    return true;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  t->items = g_new0(Tpl, n > 0 ? n : 1);
  for (Py_ssize_t i = 0; i < n; i++) {
    if (!tpl_make(st, g, PySequence_Fast_GET_ITEM(seq, i), n_outputs, &t->items[i])) {
      tpl_clear(t);
      Py_DECREF(seq);
      return false;
    }
    t->n++;
  }
  Py_DECREF(seq);
  return true;
}

/* Makes the object for graph output `index`. New reference. */
typedef PyObject *(*SlotFunc)(TfState *st, int index, void *user);

static PyObject *
tpl_fill(TfState *st, const Tpl *t, SlotFunc make, void *user)
{
  switch (t->kind) {
    case TPL_SLOT:
      return make(st, t->index, user);
    case TPL_VALUE:
      return Py_NewRef(t->value);
    default:
      break;
  }
  PyObject *items = t->kind == TPL_LIST ? PyList_New(t->n) : PyTuple_New(t->n); /* owned */
  if (!items)
    return NULL;
  for (int i = 0; i < t->n; i++) {
    PyObject *v = tpl_fill(st, &t->items[i], make, user);
    if (!v) {
      Py_DECREF(items);
      return NULL;
    }
    if (t->kind == TPL_LIST)
      PyList_SET_ITEM(items, i, v);
    else
      PyTuple_SET_ITEM(items, i, v);
  }
  if (t->kind == TPL_LIST || t->kind == TPL_TUPLE)
    return items;
  PyObject *r = NULL;
  if (t->kind == TPL_NAMEDTUPLE) {
    r = PyObject_Call(t->value, items, NULL);
  } else {
    r = PyDict_New();
    for (int i = 0; r && i < t->n; i++)
      if (PyDict_SetItem(r, PyTuple_GET_ITEM(t->value, i), PyTuple_GET_ITEM(items, i)) < 0)
        Py_CLEAR(r);
  }
  Py_DECREF(items);
  return r;
}

/* ---- traces ---------------------------------------------------------------------------------- */

/* What core/trace keeps for one ConcreteFunction (TrConcreteFn.data). */
typedef struct {
  TrGraph *graph;  /* as traced: what users see (owned) */
  TrGraph *exec;   /* the optimised copy the plan runs (owned) */
  TrPlan *plan;    /* planned once (owned) */
  Tpl outputs;     /* result template */
  int n_outputs;   /* graph outputs */
  char *name;      /* the Python function's name */
  char *signature; /* "double(a)\n  Args:\n ..." */
  bool flat;       /* every tensor input is a top-level parameter (the hit path's shortcut) */
} Concrete;

static void
concrete_free(gpointer data)
{
  Concrete *c = data;
  tr_plan_free(c->plan);
  g_clear_pointer(&c->exec, tr_graph_unref);
  g_clear_pointer(&c->graph, tr_graph_unref);
  tpl_clear(&c->outputs);
  g_free(c->name);
  g_free(c->signature);
  g_free(c);
}

/* ---- parameters and binding ------------------------------------------------------------------ */

/* The parameters a Function binds, read once from the Python function's code object: those
 * after `self` for methods, then *args, keyword-only ones and **kwargs. */
typedef struct {
  int first;            /* parameters of the code before the bound ones (1: self) */
  int n_pos;            /* positional-or-keyword (and positional-only) parameters bound */
  int n_posonly;        /* positional-only among them */
  int n_kwonly;         /* keyword-only parameters */
  bool varargs;         /* *args: a tuple, bound after the positional ones */
  bool varkw;           /* **kwargs: a dict, bound last */
  int n;                /* all bound parameters */
  PyObject **names;     /* interned names (owned), in bound order */
  const char **cnames;  /* their UTF-8 (borrowed from names) */
  PyObject *defaults;   /* tuple of the last positional parameters' defaults (owned), or NULL */
  PyObject *kwdefaults; /* dict of keyword-only defaults (owned), or NULL */
  PyObject *qualname;   /* for CPython's messages: "f", "Model.__call__" (owned) */
  bool simple;          /* only positional parameters, no defaults: a call is its arguments */
} Params;

static void
params_clear(Params *p)
{
  for (int i = 0; p->names && i < p->n; i++)
    Py_XDECREF(p->names[i]);
  g_clear_pointer(&p->names, g_free);
  g_clear_pointer(&p->cnames, g_free);
  Py_CLEAR(p->defaults);
  Py_CLEAR(p->kwdefaults);
  Py_CLEAR(p->qualname);
}

static bool
params_init(Params *p, PyObject *func, bool method)
{
  memset(p, 0, sizeof *p);
  PyCodeObject *code = (PyCodeObject *)PyFunction_GetCode(func); /* borrowed */
  p->first = method ? 1 : 0;
  if (method && code->co_argcount < 1) {
    PyErr_SetString(PyExc_TypeError, "a tf.function method needs a `self` parameter");
    return false;
  }
  p->n_pos = code->co_argcount - p->first;
  p->n_posonly = code->co_posonlyargcount > p->first ? code->co_posonlyargcount - p->first : 0;
  p->n_kwonly = code->co_kwonlyargcount;
  p->varargs = (code->co_flags & CO_VARARGS) != 0;
  p->varkw = (code->co_flags & CO_VARKEYWORDS) != 0;
  p->n = p->n_pos + p->varargs + p->n_kwonly + p->varkw;
  PyObject *varnames = PyCode_GetVarnames(code); /* owned */
  if (!varnames)
    return false;
  p->names = g_new0(PyObject *, p->n > 0 ? p->n : 1);
  p->cnames = g_new0(const char *, p->n > 0 ? p->n : 1);
  /* The code's order: positional, keyword-only, then *args, then **kwargs. */
  int k = 0;
  for (int i = p->first; i < code->co_argcount; i++)
    p->names[k++] = Py_NewRef(PyTuple_GET_ITEM(varnames, i));
  int star = code->co_argcount + code->co_kwonlyargcount;
  if (p->varargs)
    p->names[k++] = Py_NewRef(PyTuple_GET_ITEM(varnames, star++));
  for (int i = 0; i < p->n_kwonly; i++)
    p->names[k++] = Py_NewRef(PyTuple_GET_ITEM(varnames, code->co_argcount + i));
  if (p->varkw)
    p->names[k++] = Py_NewRef(PyTuple_GET_ITEM(varnames, star));
  Py_DECREF(varnames);
  for (int i = 0; i < p->n; i++)
    if (!(p->cnames[i] = PyUnicode_AsUTF8(p->names[i])))
      return false;
  p->defaults = Py_XNewRef(PyFunction_GetDefaults(func));
  p->kwdefaults = Py_XNewRef(PyFunction_GetKwDefaults(func));
  p->qualname = Py_NewRef(code->co_qualname);
  p->simple = !p->varargs && !p->varkw && p->n_kwonly == 0 &&
              (!p->defaults || PyTuple_GET_SIZE(p->defaults) == 0);
  return true;
}

static int
param_index(const Params *p, PyObject *name)
{
  for (int i = 0; i < p->n; i++)
    if (p->names[i] == name)
      return i;
  for (int i = 0; i < p->n; i++)
    if (PyUnicode_Compare(p->names[i], name) == 0)
      return i;
  return -1;
}

/* 'a', 'a' and 'b', 'a', 'b', and 'c': CPython's list of missing parameters. */
static void
raise_missing(const Params *p, const int *missing, int n, bool positional)
{
  GString *s = g_string_new(NULL);
  for (int i = 0; i < n; i++) {
    if (i > 0)
      g_string_append(s, n == 2 ? " and " : i == n - 1 ? ", and " : ", ");
    g_string_append_printf(s, "'%s'", p->cnames[missing[i]]);
  }
  PyErr_Format(PyExc_TypeError, "%U() missing %d required %s argument%s: %s", p->qualname, n,
               positional ? "positional" : "keyword-only", n == 1 ? "" : "s", s->str);
  g_string_free(s, TRUE);
}

static void
raise_too_many(const Params *p, Py_ssize_t given, int kwonly_given)
{
  int total = p->n_pos + p->first;
  int n_defaults = p->defaults ? (int)PyTuple_GET_SIZE(p->defaults) : 0;
  g_autofree char *sig = n_defaults > 0
                             ? g_strdup_printf("from %d to %d", total - n_defaults, total)
                             : g_strdup_printf("%d", total);
  g_autofree char *kw_sig =
      kwonly_given > 0 ? g_strdup_printf(" positional argument%s (and %d keyword-only argument%s)",
                                         given + p->first != 1 ? "s" : "", kwonly_given,
                                         kwonly_given != 1 ? "s" : "")
                       : g_strdup("");
  PyErr_Format(PyExc_TypeError, "%U() takes %s positional argument%s but %zd%s %s given",
               p->qualname, sig, total != 1 || n_defaults > 0 ? "s" : "", given + p->first, kw_sig,
               given + p->first == 1 && kwonly_given == 0 ? "was" : "were");
}

/* Binds a call to the parameters as CPython does (defaults applied; *args a tuple, **kwargs a
 * dict). `out` receives p->n new references. False with CPython's TypeError. */
static bool
bind_call(const Params *p, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
          PyObject **out)
{
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (int i = 0; i < p->n; i++)
    out[i] = NULL;
  int vararg_slot = p->varargs ? p->n_pos : -1;
  int kw_slot = p->varkw ? p->n - 1 : -1;
  if (nargs > p->n_pos && !p->varargs) {
    int kwonly_given = 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
      int i = param_index(p, PyTuple_GET_ITEM(kwnames, k));
      kwonly_given += i >= p->n_pos + p->varargs && i != kw_slot;
    }
    raise_too_many(p, nargs, kwonly_given);
    return false;
  }
  for (Py_ssize_t i = 0; i < nargs && i < p->n_pos; i++)
    out[i] = Py_NewRef(args[i]);
  if (p->varargs) {
    Py_ssize_t extra = nargs > p->n_pos ? nargs - p->n_pos : 0;
    out[vararg_slot] = PyTuple_New(extra);
    if (!out[vararg_slot])
      goto fail;
    for (Py_ssize_t i = 0; i < extra; i++)
      PyTuple_SET_ITEM(out[vararg_slot], i, Py_NewRef(args[p->n_pos + i]));
  }
  if (p->varkw && !(out[kw_slot] = PyDict_New()))
    goto fail;
  GString *posonly_as_kw = NULL;
  for (Py_ssize_t k = 0; k < nkw; k++) {
    PyObject *key = PyTuple_GET_ITEM(kwnames, k);
    PyObject *value = args[nargs + k];
    int i = param_index(p, key);
    if (i >= 0 && i < p->n_posonly) {
      if (p->varkw) {
        if (PyDict_SetItem(out[kw_slot], key, value) < 0)
          goto fail;
        continue;
      }
      if (!posonly_as_kw)
        posonly_as_kw = g_string_new(NULL);
      g_string_append_printf(posonly_as_kw, "%s%s", posonly_as_kw->len ? ", " : "", p->cnames[i]);
      continue;
    }
    if (i >= 0 && i != vararg_slot && i != kw_slot) {
      if (out[i]) {
        PyErr_Format(PyExc_TypeError, "%U() got multiple values for argument '%S'", p->qualname,
                     key);
        goto fail;
      }
      out[i] = Py_NewRef(value);
    } else if (p->varkw) {
      if (PyDict_SetItem(out[kw_slot], key, value) < 0)
        goto fail;
    } else {
      PyErr_Format(PyExc_TypeError, "%U() got an unexpected keyword argument '%S'", p->qualname,
                   key);
      goto fail;
    }
  }
  if (posonly_as_kw) {
    PyErr_Format(PyExc_TypeError,
                 "%U() got some positional-only arguments passed as keyword arguments: '%s'",
                 p->qualname, posonly_as_kw->str);
    g_string_free(posonly_as_kw, TRUE);
    goto fail;
  }
  /* Defaults: for the last positional parameters, then keyword-only ones. */
  int n_defaults = p->defaults ? (int)PyTuple_GET_SIZE(p->defaults) : 0;
  int first_default = p->n_pos - n_defaults; /* in bound numbering */
  int missing[256], n_missing = 0;
  for (int i = 0; i < p->n_pos; i++) {
    if (out[i])
      continue;
    if (i >= first_default)
      out[i] = Py_NewRef(PyTuple_GET_ITEM(p->defaults, i - first_default));
    else if (n_missing < (int)G_N_ELEMENTS(missing))
      missing[n_missing++] = i;
  }
  if (n_missing > 0) {
    raise_missing(p, missing, n_missing, true);
    goto fail;
  }
  for (int i = p->n_pos + p->varargs; i < p->n_pos + p->varargs + p->n_kwonly; i++) {
    if (out[i])
      continue;
    PyObject *d = p->kwdefaults ? PyDict_GetItemWithError(p->kwdefaults, p->names[i]) : NULL;
    if (d)
      out[i] = Py_NewRef(d);
    else if (PyErr_Occurred())
      goto fail;
    else if (n_missing < (int)G_N_ELEMENTS(missing))
      missing[n_missing++] = i;
  }
  if (n_missing > 0) {
    raise_missing(p, missing, n_missing, false);
    goto fail;
  }
  return true;
fail:
  for (int i = 0; i < p->n; i++)
    Py_CLEAR(out[i]);
  return false;
}

/* ---- trace keys ------------------------------------------------------------------------------ */

/* How users see an object: "<__main__.Model object at 0x7f…>", made without running its
 * __repr__ (keys are built on every call that is not a plain repeat). Transfer full. */
static char *
object_display(PyObject *v)
{
  PyTypeObject *type = Py_TYPE(v);
  PyObject *module = PyObject_GetAttrString((PyObject *)type, "__module__"); /* owned */
  const char *mod = module && PyUnicode_Check(module) ? PyUnicode_AsUTF8(module) : NULL;
  PyErr_Clear();
  PyObject *qualname = PyType_GetQualName(type); /* owned */
  const char *qn = qualname ? PyUnicode_AsUTF8(qualname) : NULL;
  PyErr_Clear();
  char *r = g_strdup_printf("<%s%s%s object at %p>", mod && strcmp(mod, "builtins") ? mod : "",
                            mod && strcmp(mod, "builtins") ? "." : "", qn ? qn : type->tp_name,
                            (void *)v);
  Py_XDECREF(module);
  Py_XDECREF(qualname);
  return r;
}

static TrTraceType *arg_type(TfState *st, PyObject *v);

/* A list's or tuple's key: its items' keys. */
static TrTraceType *
sequence_type(TfState *st, PyObject *v, bool list)
{
  /* An item's key may run Python code (a metaclass's attributes) that changes a list: the
   * items are read from a tuple of them. */
  PyObject *seq = PySequence_Tuple(v); /* owned */
  if (!seq)
    return NULL;
  Py_ssize_t n = PyTuple_GET_SIZE(seq);
  TrTraceType **items = g_new(TrTraceType *, n > 0 ? n : 1);
  for (Py_ssize_t i = 0; i < n; i++) {
    items[i] = arg_type(st, PyTuple_GET_ITEM(seq, i));
    if (!items[i]) {
      for (Py_ssize_t j = 0; j < i; j++)
        tr_trace_type_unref(items[j]);
      g_free(items);
      Py_DECREF(seq);
      return NULL;
    }
  }
  TrTraceType *t =
      list ? tr_trace_type_new_list((int)n, items) : tr_trace_type_new_tuple((int)n, items);
  g_free(items);
  Py_DECREF(seq);
  return t;
}

static bool
is_primitive(PyObject *v)
{
  return v == Py_None || PyBool_Check(v) || PyLong_Check(v) || PyFloat_Check(v) ||
         PyUnicode_Check(v);
}

static TrTraceType *
identity_type(PyObject *v)
{
  g_autofree char *display = object_display(v);
  return tr_trace_type_new_identity((guint64)(uintptr_t)v, display, false);
}

/* A dict's key: primitive keys with their values' keys; a dict with other keys is keyed by
 * its identity. */
static TrTraceType *
dict_type(TfState *st, PyObject *v)
{
  Py_ssize_t n = PyDict_GET_SIZE(v), pos = 0, i = 0;
  PyObject *key, *value;
  while (PyDict_Next(v, &pos, &key, &value))
    if (!is_primitive(key))
      return identity_type(v);
  TrTraceType **keys = g_new(TrTraceType *, n > 0 ? n : 1);
  TrTraceType **vals = g_new(TrTraceType *, n > 0 ? n : 1);
  pos = 0;
  while (PyDict_Next(v, &pos, &key, &value) && i < n) {
    keys[i] = arg_type(st, key);
    vals[i] = keys[i] ? arg_type(st, value) : NULL;
    if (!vals[i]) {
      if (keys[i])
        tr_trace_type_unref(keys[i]);
      for (Py_ssize_t j = 0; j < i; j++) {
        tr_trace_type_unref(keys[j]);
        tr_trace_type_unref(vals[j]);
      }
      g_free(keys);
      g_free(vals);
      return NULL;
    }
    i++;
  }
  TrTraceType *t = tr_trace_type_new_dict((int)i, keys, vals);
  g_free(keys);
  g_free(vals);
  return t;
}

static TrTraceType *
namedtuple_type(TfState *st, PyObject *v)
{
  PyObject *fields = PyObject_GetAttrString((PyObject *)Py_TYPE(v), "_fields"); /* owned */
  if (!fields)
    return NULL;
  Py_ssize_t n = PyTuple_GET_SIZE(v);
  if (!PyTuple_Check(fields) || PyTuple_GET_SIZE(fields) != n) {
    Py_DECREF(fields);
    return sequence_type(st, v, false);
  }
  const char **names = g_new(const char *, n > 0 ? n : 1);
  TrTraceType **items = g_new(TrTraceType *, n > 0 ? n : 1);
  Py_ssize_t made = 0;
  for (; made < n; made++) {
    PyObject *f = PyTuple_GET_ITEM(fields, made);
    names[made] = PyUnicode_Check(f) ? PyUnicode_AsUTF8(f) : "?";
    if (!names[made] || !(items[made] = arg_type(st, PyTuple_GET_ITEM(v, made))))
      break;
  }
  TrTraceType *t = NULL;
  if (made == n) {
    t = tr_trace_type_new_namedtuple(short_type_name(Py_TYPE(v)), (int)n, names, items);
  } else {
    for (Py_ssize_t j = 0; j < made; j++)
      tr_trace_type_unref(items[j]);
  }
  g_free(items);
  g_free(names);
  Py_DECREF(fields);
  return t;
}

/* The trace key of one argument (SPEC §3.1). Transfer full; NULL with an exception. */
static TrTraceType *
arg_type(TfState *st, PyObject *v)
{
  if (v == Py_None)
    return tr_trace_type_new_none();
  if (PyBool_Check(v))
    return tr_trace_type_new_bool(v == Py_True);
  if (PyLong_Check(v)) {
    int overflow;
    long long i = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (i == -1 && PyErr_Occurred())
      return NULL;
    return overflow ? identity_type(v) : tr_trace_type_new_int(i);
  }
  if (PyFloat_Check(v))
    return tr_trace_type_new_float(PyFloat_AS_DOUBLE(v));
  if (PyUnicode_Check(v)) {
    const char *s = PyUnicode_AsUTF8(v);
    return s ? tr_trace_type_new_str(s) : NULL;
  }
  if (tf_is_tensor(st, v)) {
    TrShape shape;
    tf_shape_of(st, v, &shape);
    return tr_trace_type_new_tensor(tf_dtype_of(st, v), &shape, NULL);
  }
  if (tf_is_variable(st, v)) {
    TrVariable *var = ((TfVariable *)v)->var;
    g_autofree char *name = g_strdup_printf("%s:0", var->name);
    return tr_trace_type_new_variable(var->id, var->dtype, &var->shape, name);
  }
  if (Py_IS_TYPE(v, st->TensorSpec)) {
    TensorSpec *s = (TensorSpec *)v;
    return tr_trace_type_new_tensor(s->dtype, &s->shape, s->name);
  }
  if (tf_is_ndarray(st, v)) {
    /* A NumPy array is a tensor argument, as in TensorFlow: keyed by the dtype and shape it
     * converts to, fed to a placeholder. */
    TrTensor *t = tf_convert(st, v, TR_DTYPE_INVALID, false);
    if (!t)
      return NULL;
    TrTraceType *r = tr_trace_type_new_tensor(t->dtype, &t->shape, NULL);
    tr_tensor_unref(t);
    return r;
  }
  if (tf_is_dataset(st, v) || tf_is_dataset_iterator(st, v))
    return tf_data_trace_type(st, v);
  if (!PyList_Check(v) && !PyTuple_Check(v) && !PyDict_Check(v))
    return identity_type(v);
  /* Nested structures: a recursive or very deep one is a RecursionError. */
  if (Py_EnterRecursiveCall(" while computing a tf.function's trace key"))
    return NULL;
  TrTraceType *t;
  if (PyList_Check(v))
    t = sequence_type(st, v, true);
  else if (PyTuple_Check(v))
    t = is_namedtuple(v) ? namedtuple_type(st, v) : sequence_type(st, v, false);
  else
    t = dict_type(st, v);
  Py_LeaveRecursiveCall();
  return t;
}

/* Whether bound argument `v` has exactly the trace type `t`, decided without making one (the
 * hit path). False when unsure: the caller then builds the key. */
static bool
same_key(TfState *st, PyObject *v, const TrTraceType *t)
{
  switch (t->kind) {
    case TR_TRACE_TENSOR: {
      if (!tf_is_tensor(st, v) || t->tensor.name)
        return false;
      TrTensor *x = tf_tensor_value(v);
      if (x)
        return x->dtype == t->tensor.dtype && tr_shape_equal(&x->shape, &t->tensor.shape);
      TrOutput out = tf_symbolic_output(v);
      return tr_output_dtype(out) == t->tensor.dtype &&
             tr_shape_equal(tr_output_shape(out), &t->tensor.shape);
    }
    case TR_TRACE_VARIABLE:
      return tf_is_variable(st, v) && ((TfVariable *)v)->var->id == t->variable.id;
    case TR_TRACE_PRIMITIVE:
      switch (t->prim.py) {
        case TR_PY_NONE:
          return v == Py_None;
        case TR_PY_BOOL:
          return PyBool_Check(v) && (v == Py_True) == (t->prim.i != 0);
        case TR_PY_INT: {
          if (!PyLong_CheckExact(v))
            return false;
          int overflow;
          long long i = PyLong_AsLongLongAndOverflow(v, &overflow);
          return !overflow && i == t->prim.i;
        }
        case TR_PY_FLOAT:
          return PyFloat_CheckExact(v) && PyFloat_AS_DOUBLE(v) == t->prim.f;
        case TR_PY_STR: {
          if (!PyUnicode_CheckExact(v))
            return false;
          const char *s = PyUnicode_AsUTF8(v);
          if (!s) {
            PyErr_Clear();
            return false;
          }
          return strcmp(s, t->prim.s) == 0;
        }
      }
      return false;
    case TR_TRACE_IDENTITY:
      /* An object keyed by identity; another kind of value now at its (freed) address is
       * not it. */
      return (guint64)(uintptr_t)v == t->identity.id && !tf_is_tensor(st, v) &&
             !tf_is_variable(st, v) && !is_primitive(v) && !PyList_Check(v) && !PyTuple_Check(v) &&
             !PyDict_Check(v) && !Py_IS_TYPE(v, st->TensorSpec) && !tf_is_dataset(st, v) &&
             !tf_is_dataset_iterator(st, v);
    case TR_TRACE_LIST:
    case TR_TRACE_TUPLE: {
      bool list = t->kind == TR_TRACE_LIST;
      if (list ? !PyList_CheckExact(v) : !PyTuple_CheckExact(v))
        return false;
      if (PySequence_Fast_GET_SIZE(v) != t->seq.n)
        return false;
      for (int i = 0; i < t->seq.n; i++)
        if (!same_key(st, PySequence_Fast_GET_ITEM(v, i), t->seq.items[i]))
          return false;
      return true;
    }
    default:
      return false; /* dicts and namedtuples take the general path */
  }
}

/* A Python primitive for a primitive trace type (dict keys, baked values). New reference. */
static PyObject *
primitive_value(const TrTraceType *t)
{
  switch (t->prim.py) {
    case TR_PY_NONE:
      Py_RETURN_NONE;
    case TR_PY_BOOL:
      return PyBool_FromLong(t->prim.i != 0);
    case TR_PY_INT:
      return PyLong_FromLongLong(t->prim.i);
    case TR_PY_FLOAT:
      return PyFloat_FromDouble(t->prim.f);
    case TR_PY_STR:
      return PyUnicode_FromString(t->prim.s);
  }
  Py_RETURN_NONE;
}

/* An item of a structured argument, by the key's position (lists, tuples) or key (dicts).
 * New reference. */
static PyObject *
structure_item(PyObject *v, const TrTraceType *t, int i)
{
  if (t->kind != TR_TRACE_DICT)
    return PySequence_GetItem(v, i);
  PyObject *key = primitive_value(t->seq.keys[i]);
  if (!key)
    return NULL;
  PyObject *item = PyObject_GetItem(v, key);
  Py_DECREF(key);
  return item;
}

/* ---- placeholders and inputs ----------------------------------------------------------------- */

/* The argument the body sees while tracing: `v` with every tensor leaf of key `t` replaced by
 * a placeholder of t's dtype and shape named after parameter `name`. New reference. */
static PyObject *
placeholder_arg(TfState *st, TrGraph *g, const TrTraceType *t, PyObject *v, const char *name)
{
  if (tf_is_dataset(st, v) || tf_is_dataset_iterator(st, v))
    return tf_data_placeholder(st, g, v, name);
  switch (t->kind) {
    case TR_TRACE_TENSOR: {
      const char *pname = t->tensor.name ? t->tensor.name : name;
      TrNode *node = tr_graph_add_placeholder(g, t->tensor.dtype, &t->tensor.shape, pname);
      return tf_symbolic_new(st, g, tr_node_output(node, 0));
    }
    case TR_TRACE_LIST:
    case TR_TRACE_TUPLE:
    case TR_TRACE_NAMEDTUPLE:
    case TR_TRACE_DICT: {
      PyObject *items = PyList_New(t->seq.n); /* owned */
      for (int i = 0; items && i < t->seq.n; i++) {
        PyObject *item = structure_item(v, t, i);
        PyObject *a = item ? placeholder_arg(st, g, t->seq.items[i], item, name) : NULL;
        Py_XDECREF(item);
        if (!a)
          Py_CLEAR(items);
        else
          PyList_SET_ITEM(items, i, a);
      }
      if (!items || t->kind == TR_TRACE_LIST)
        return items;
      PyObject *r = NULL;
      if (t->kind == TR_TRACE_TUPLE) {
        r = PyList_AsTuple(items);
      } else if (t->kind == TR_TRACE_NAMEDTUPLE) {
        PyObject *tuple = PyList_AsTuple(items);
        r = tuple ? PyObject_Call((PyObject *)Py_TYPE(v), tuple, NULL) : NULL;
        Py_XDECREF(tuple);
      } else {
        r = PyDict_New();
        for (int i = 0; r && i < t->seq.n; i++) {
          PyObject *key = primitive_value(t->seq.keys[i]);
          if (!key || PyDict_SetItem(r, key, PyList_GET_ITEM(items, i)) < 0)
            Py_CLEAR(r);
          Py_XDECREF(key);
        }
      }
      Py_DECREF(items);
      return r;
    }
    default:
      return Py_NewRef(v);
  }
}

/* Operands in placeholder order; small calls keep them on the stack. */
typedef struct {
  TfOperand *data; /* `small` or heap */
  int len;         /* operands held */
  int cap;         /* room in data */
  TfOperand small[4];
} OperandVec;

static void
operand_vec_init(OperandVec *v)
{
  v->data = v->small;
  v->len = 0;
  v->cap = (int)G_N_ELEMENTS(v->small);
}

static void
operand_vec_push(OperandVec *v, const TfOperand *o)
{
  if (v->len == v->cap) {
    TfOperand *d = g_new(TfOperand, v->cap * 2);
    memcpy(d, v->data, sizeof *d * (size_t)v->len);
    if (v->data != v->small)
      g_free(v->data);
    v->data = d;
    v->cap *= 2;
  }
  v->data[v->len++] = *o;
}

static void
operand_vec_clear(OperandVec *v)
{
  tf_operands_clear(v->data, v->len);
  if (v->data != v->small)
    g_free(v->data);
  operand_vec_init(v);
}

/* The call's tensors in placeholder order, as operands of the current path. */
static bool
collect_inputs(TfState *st, const TrTraceType *t, PyObject *v, OperandVec *out)
{
  TfOperand o;
  if (tf_is_dataset(st, v) || tf_is_dataset_iterator(st, v)) {
    if (!tf_data_operand(st, v, &o))
      return false;
    operand_vec_push(out, &o);
    return true;
  }
  switch (t->kind) {
    case TR_TRACE_TENSOR:
      if (!tf_operand(st, v, t->tensor.dtype, true, &o))
        return false;
      operand_vec_push(out, &o);
      return true;
    case TR_TRACE_LIST:
    case TR_TRACE_TUPLE:
    case TR_TRACE_NAMEDTUPLE:
    case TR_TRACE_DICT:
      for (int i = 0; i < t->seq.n; i++) {
        PyObject *item = structure_item(v, t, i);
        if (!item)
          return false;
        bool ok = collect_inputs(st, t->seq.items[i], item, out);
        Py_DECREF(item);
        if (!ok)
          return false;
      }
      return true;
    default:
      return true;
  }
}

/* ---- signatures as text ---------------------------------------------------------------------- */

static void
describe_output(GString *s, TrGraph *g, const Tpl *t)
{
  switch (t->kind) {
    case TPL_SLOT: {
      TrOutput out = tr_node_output(tr_graph_output(g, t->index), 0);
      g_autofree char *shape = tr_shape_to_string(tr_output_shape(out));
      g_string_append_printf(s, "%s Tensor, shape=%s", tr_dtype_name(tr_output_dtype(out)), shape);
      return;
    }
    case TPL_VALUE:
      if (t->value == Py_None)
        g_string_append(s, "NoneTensorSpec()");
      else
        g_string_append(s, short_type_name(Py_TYPE(t->value)));
      return;
    case TPL_DICT:
      g_string_append_c(s, '{');
      for (int i = 0; i < t->n; i++) {
        if (i > 0)
          g_string_append(s, ", ");
        PyObject *key = PyTuple_GET_ITEM(t->value, i);
        PyObject *r = PyObject_Repr(key);
        const char *text = r ? PyUnicode_AsUTF8(r) : NULL;
        if (!text)
          PyErr_Clear();
        g_string_append_printf(s, "%s: ", text ? text : "?");
        Py_XDECREF(r);
        describe_output(s, g, &t->items[i]);
      }
      g_string_append_c(s, '}');
      return;
    default: {
      bool list = t->kind == TPL_LIST;
      if (t->kind == TPL_NAMEDTUPLE)
        g_string_append(s, short_type_name((PyTypeObject *)t->value));
      g_string_append_c(s, list ? '[' : '(');
      for (int i = 0; i < t->n; i++) {
        if (i > 0)
          g_string_append(s, ", ");
        describe_output(s, g, &t->items[i]);
      }
      if (t->kind == TPL_TUPLE && t->n == 1)
        g_string_append_c(s, ',');
      g_string_append_c(s, list ? ']' : ')');
    }
  }
}

/* TensorFlow's pretty-printed signature of a trace:
 *   double(a)
 *     Args:
 *       a: int32 Tensor, shape=()
 *     Returns:
 *       int32 Tensor, shape=()
 * Python-valued parameters appear as `b=2` in the header and not under Args. */
static char *
signature_text(const char *name, const TrTraceSig *sig, TrGraph *g, const Tpl *outputs)
{
  GString *s = g_string_new(name);
  g_string_append_c(s, '(');
  for (int i = 0; i < sig->n; i++) {
    if (i > 0)
      g_string_append(s, ", ");
    g_string_append(s, sig->names[i]);
    if (sig->types[i]->kind == TR_TRACE_PRIMITIVE) {
      g_autofree char *v = tr_trace_type_primitive_repr(sig->types[i]);
      g_string_append_printf(s, "=%s", v);
    }
  }
  g_string_append(s, ")\n  Args:\n");
  for (int i = 0; i < sig->n; i++) {
    const TrTraceType *t = sig->types[i];
    if (t->kind == TR_TRACE_PRIMITIVE)
      continue;
    if (t->kind == TR_TRACE_TENSOR) {
      g_autofree char *shape = tr_shape_to_string(&t->tensor.shape);
      g_string_append_printf(s, "    %s: %s Tensor, shape=%s\n", sig->names[i],
                             tr_dtype_name(t->tensor.dtype), shape);
    } else {
      g_autofree char *d = tr_trace_type_describe(t);
      g_string_append_printf(s, "    %s: %s\n", sig->names[i], d);
    }
  }
  g_string_append(s, "  Returns:\n    ");
  describe_output(s, g, outputs);
  return g_string_free(s, FALSE);
}

/* ---- running a trace ------------------------------------------------------------------------- */

static PyObject *
make_output_tensor(TfState *st, int index, void *user)
{
  TrTensor **outs = user;
  TrTensor *t = outs[index];
  outs[index] = NULL;
  return tf_tensor_new(st, t);
}

/* Runs a trace's plan on concrete inputs (borrowed) and builds the result. `operands` (may be
 * NULL when no tape records) are the same inputs, for the gradient tape. */
static PyObject *
run_plan(TfState *st, TrFn *fn, const Concrete *c, TrTensor *const *ins, int n_in,
         const TfOperand *operands)
{
  TrTensor *small[8];
  g_autofree TrTensor **heap = c->n_outputs > 8 ? g_new0(TrTensor *, c->n_outputs) : NULL;
  TrTensor **outs = heap ? heap : small;
  PrintSink sink = {st, fn, false};
  TrRunContext ctx = {print_sink_write, &sink, tf_interrupt_flag()};
  GError *error = NULL;
  if (!tr_plan_run(c->plan, ins, n_in, outs, &ctx, &error)) {
    if (sink.failed)
      PyErr_Clear(); /* the run's own error says more */
    return tf_raise_any(st, error);
  }
  PyObject *r = NULL;
  if (!sink.failed) {
    if (G_UNLIKELY(st->tapes) && operands)
      tf_tape_record_call(st, c->graph, operands, n_in, outs, c->n_outputs);
    if (c->outputs.kind == TPL_SLOT) {
      r = tf_tensor_new(st, outs[c->outputs.index]);
      outs[c->outputs.index] = NULL;
    } else {
      r = tpl_fill(st, &c->outputs, make_output_tensor, outs);
    }
  }
  for (int i = 0; i < c->n_outputs; i++)
    if (outs[i])
      tr_tensor_unref(outs[i]);
  return r;
}

/* Runs trace `cf` on tensors `ins` (with their operands `in`, or NULL on the hit path), with
 * the graph execution events. */
static PyObject *
run_with_events(TfState *st, TrFn *fn, TrConcreteFn *cf, TrTensor **ins, int n_in,
                const TfOperand *in)
{
  TrEventBus *bus = st->bus;
  bool events = fn && tr_event_bus_wants(bus, TR_EVENT_GRAPH_EXEC_START);
  gint64 start = 0;
  /* Views (tr_event_bus_emit_view): a graph run's events allocate nothing unless kept. */
  TrEvent ev;
  if (events) {
    memset(&ev, 0, sizeof ev);
    ev.kind = TR_EVENT_GRAPH_EXEC_START;
    ev.ok = true;
    ev.fn_id = (gint64)tr_fn_get_id(fn);
    ev.fn_name = (char *)tr_fn_get_name(fn);
    ev.cf_id = (gint64)cf->id;
    ev.graph_id = (gint64)cf->graph_id;
    tr_event_bus_emit_view(bus, &ev);
    start = ev.ts_ns;
  }
  PyObject *r = run_plan(st, fn, cf->data, ins, n_in, in);
  if (events) {
    ev.kind = TR_EVENT_GRAPH_EXEC_END;
    ev.ts_ns = tr_event_bus_now(bus);
    ev.dur_ns = ev.ts_ns - start;
    ev.ok = r != NULL;
    tr_event_bus_emit_view(bus, &ev);
  }
  return r;
}

/* Runs a trace on operands of the eager path, with the graph execution events. */
static PyObject *
run_operands(TfState *st, TrFn *fn, TrConcreteFn *cf, const TfOperand *in, int n_in)
{
  TrTensor *small[8];
  g_autofree TrTensor **heap = n_in > 8 ? g_new(TrTensor *, n_in) : NULL;
  TrTensor **ins = heap ? heap : small;
  for (int i = 0; i < n_in; i++)
    ins[i] = in[i].value;
  return run_with_events(st, fn, cf, ins, n_in, in);
}

/* A Function called while another traces: the trace's graph is inlined into the outer one. */
typedef struct {
  TrGraph *g;     /* the outer graph */
  TrOutput *outs; /* the inlined outputs */
} InlineOutputs;

static PyObject *
make_inline_output(TfState *st, int index, void *user)
{
  InlineOutputs *io = user;
  return tf_symbolic_new(st, io->g, io->outs[index]);
}

static PyObject *
inline_concrete(TfState *st, const Concrete *c, const TfOperand *in, int n_in)
{
  TfTrace *tr = tf_trace(st);
  g_autofree TrOutput *ins = g_new(TrOutput, n_in > 0 ? n_in : 1);
  g_autofree TrOutput *outs = g_new(TrOutput, c->n_outputs > 0 ? c->n_outputs : 1);
  for (int i = 0; i < n_in; i++)
    ins[i] = in[i].out;
  GError *error = NULL;
  if (!tr_graph_inline(tr->graph, c->graph, ins, n_in, outs, c->n_outputs, c->name, &error))
    return tf_raise_any(st, error);
  InlineOutputs io = {tr->graph, outs};
  return tpl_fill(st, &c->outputs, make_inline_output, &io);
}

/* Runs (or, while tracing, inlines) trace `cf` for bound arguments `bound` of its key. */
static PyObject *
execute(TfState *st, TrFn *fn, TrConcreteFn *cf, PyObject *const *bound)
{
  const TrTraceSig *sig = cf->sig;
  const Concrete *c = cf->data;
  /* The hit path: top-level eager tensors go to the plan as they are (events or not). */
  if (c->flat && !st->trace && !st->tapes && sig->n <= 16) {
    TrTensor *ins[16];
    int n = 0;
    bool direct = true;
    for (int i = 0; i < sig->n && direct; i++) {
      PyObject *v = bound[i];
      switch (sig->types[i]->kind) {
        case TR_TRACE_TENSOR:
          direct = tf_is_tensor(st, v) && (ins[n++] = tf_tensor_value(v)) != NULL;
          break;
        case TR_TRACE_IDENTITY:
          direct = !tf_is_dataset(st, v) && !tf_is_dataset_iterator(st, v);
          break;
        default:
          break;
      }
    }
    if (direct)
      return run_with_events(st, fn, cf, ins, n, NULL);
  }
  OperandVec in;
  operand_vec_init(&in);
  for (int i = 0; i < sig->n; i++) {
    if (!collect_inputs(st, sig->types[i], bound[i], &in)) {
      operand_vec_clear(&in);
      return NULL;
    }
  }
  PyObject *r = st->trace ? inline_concrete(st, c, in.data, in.len)
                          : run_operands(st, fn, cf, in.data, in.len);
  operand_vec_clear(&in);
  return r;
}

/* ---- Function -------------------------------------------------------------------------------- */

typedef struct {
  PyObject ob_base;          /* PyObject_HEAD */
  vectorcallfunc vectorcall; /* function_vectorcall: calls pass no tuple or dict */
  TrFn *fn;                  /* the trace cache (owned); NULL once cleared */
  PyObject *python_function; /* what was decorated (owned) */
  PyObject *func;            /* the plain Python function whose code is bound (owned) */
  PyObject *self;            /* the instance of a bound method, held strongly (owned), or NULL */
  PyObject *self_ref;        /* ... or weakly: a weak reference to it (owned), or NULL */
  PyObject *bound;           /* dict id(instance) -> its Function (owned), or NULL */
  PyObject *input_signature; /* tuple of the specs given (owned), or NULL */
  PyObject *converted;       /* AutoGraph's form of func, made on the first trace (owned) */
  bool autograph;            /* tf.function(autograph=) */
  bool reduce_retracing;     /* tf.function(reduce_retracing=) */
  Params params;             /* what calls bind */
  /* The last call's key and the trace that served it: a call with the same key is a hit on
   * it without building a key, while no trace has been added since. */
  TrTraceSig *last_args; /* owned, or NULL */
  TrConcreteFn *last_cf; /* owned, or NULL */
  guint last_n_concrete; /* traces the Function had then */
  char *last_reason;     /* the lookup's reason for it (owned), or NULL */
  int last_candidates;   /* the lookup's candidate count */
  PyObject *dict;        /* __dict__: __name__, __doc__, __wrapped__... (owned) */
  PyObject *weakreflist;
  /* Breakpoints that cached calls pass by (breakpoint_bypassed; see bypass_check). */
  guint64 bp_seen;      /* st->bp_generation when this Function last looked */
  guint64 bp_file_seen; /* its file's TfBreakpoints.generation then (0: none) */
  int body_first;       /* lines of the Python body: its first statement's line, */
  int body_last;        /* its last line (nested functions included); 0: not computed yet */
} Function;

static void
forget_last(Function *f)
{
  g_clear_pointer(&f->last_args, tr_trace_sig_unref);
  g_clear_pointer(&f->last_cf, tr_concrete_fn_unref);
  g_clear_pointer(&f->last_reason, g_free);
}

static void
remember_last(Function *f, TrTraceSig *args, TrConcreteFn *cf, const char *reason, int candidates)
{
  forget_last(f);
  f->last_args = tr_trace_sig_ref(args);
  f->last_cf = tr_concrete_fn_ref(cf);
  f->last_n_concrete = tr_fn_get_n_concrete(f->fn);
  f->last_reason = g_strdup(reason);
  f->last_candidates = candidates;
}

/* The instance a per-instance Function calls its method on (borrowed), or NULL (no
 * exception) for plain functions; NULL with ReferenceError when it has died. */
static PyObject *
function_instance(Function *f, bool *dead)
{
  *dead = false;
  if (f->self)
    return f->self;
  if (!f->self_ref)
    return NULL;
  PyObject *obj = PyWeakref_GetObject(f->self_ref); /* borrowed */
  if (obj == Py_None) {
    *dead = true;
    PyErr_SetString(PyExc_ReferenceError, "the instance of this tf.function method is gone");
    return NULL;
  }
  return obj;
}

/* Calls `body` (the Python function or its conversion) with bound values: the instance
 * first for methods, positional parameters and *args positionally, the rest by keyword. */
static PyObject *
call_body(Function *f, PyObject *body, PyObject *const *bound)
{
  const Params *p = &f->params;
  bool dead;
  PyObject *self = function_instance(f, &dead);
  if (dead)
    return NULL;
  Py_ssize_t n_var = p->varargs ? PyTuple_GET_SIZE(bound[p->n_pos]) : 0;
  Py_ssize_t n_varkw = p->varkw ? PyDict_GET_SIZE(bound[p->n - 1]) : 0;
  Py_ssize_t n_positional = (self ? 1 : 0) + p->n_pos + n_var;
  Py_ssize_t n_kw = p->n_kwonly + n_varkw;
  Py_ssize_t total = n_positional + n_kw;
  PyObject *small[16];
  g_autofree PyObject **heap = total > 16 ? g_new(PyObject *, total) : NULL;
  PyObject **argv = heap ? heap : small;
  Py_ssize_t k = 0;
  if (self)
    argv[k++] = self;
  for (int i = 0; i < p->n_pos; i++)
    argv[k++] = bound[i];
  for (Py_ssize_t i = 0; i < n_var; i++)
    argv[k++] = PyTuple_GET_ITEM(bound[p->n_pos], i);
  PyObject *kwnames = n_kw > 0 ? PyTuple_New(n_kw) : NULL; /* owned */
  if (n_kw > 0 && !kwnames)
    return NULL;
  Py_ssize_t kw = 0;
  for (int i = 0; i < p->n_kwonly; i++) {
    int slot = p->n_pos + p->varargs + i;
    PyTuple_SET_ITEM(kwnames, kw++, Py_NewRef(p->names[slot]));
    argv[k++] = bound[slot];
  }
  if (p->varkw) {
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(bound[p->n - 1], &pos, &key, &value)) {
      PyTuple_SET_ITEM(kwnames, kw++, Py_NewRef(key));
      argv[k++] = value;
    }
  }
  PyObject *r = PyObject_Vectorcall(body, argv, (size_t)n_positional, kwnames);
  Py_XDECREF(kwnames);
  return r;
}

/* The body tracing runs: AutoGraph's conversion of the function, made once per Function. */
static PyObject *
traced_body(TfState *st, Function *f)
{
  if (!f->autograph)
    return f->func;
  if (!f->converted)
    f->converted = tf_autograph_convert(st, f->func);
  return f->converted;
}

/* The call site: the calling Python frame's file ("<cell 3>": the name the host gave the file,
 * tf_module_name_file, or the file name itself) and line. The file name stays valid while the
 * returned code object (a new reference, may be NULL) is held (the names given live as long as
 * the module). */
static PyCodeObject *
call_site(TfState *st, TrCallSite *site)
{
  site->file = "<unknown>";
  site->line = 0;
  site->cell = st->cell;
  PyFrameObject *frame = PyEval_GetFrame(); /* borrowed */
  if (!frame)
    return NULL;
  PyCodeObject *code = PyFrame_GetCode(frame); /* owned */
  const char *file = tf_event_file_name(st, code->co_filename);
  if (file)
    site->file = file;
  else
    PyErr_Clear();
  int lasti = PyFrame_GetLasti(frame);
  if (st->site_code != (PyObject *)code || st->site_lasti != lasti) {
    Py_XSETREF(st->site_code, Py_NewRef(code));
    st->site_lasti = lasti;
    st->site_line = PyFrame_GetLineNumber(frame);
  }
  site->line = st->site_line;
  return code;
}

/* Runs the body once on placeholders for `sig`. On success fills *graph_out, *outputs and
 * *n_outputs and returns true. */
static bool
trace_once(TfState *st, Function *f, const TrTraceSig *sig, PyObject *const *bound,
           bool allow_variables, TrGraph **graph_out, Tpl *outputs, int *n_outputs, int *n_created)
{
  const Params *p = &f->params;
  g_autofree char *gname =
      g_strdup_printf("__inference_%s_%" G_GUINT64_FORMAT, tr_fn_get_name(f->fn),
                      tr_fn_get_id(f->fn) * 1000 + tr_fn_get_stats(f->fn)->traces);
  TrGraph *g = tr_graph_new(gname);
  PyObject *body = traced_body(st, f); /* borrowed from f */
  PyObject *small[16];
  g_autofree PyObject **heap = p->n > 16 ? g_new0(PyObject *, p->n) : NULL;
  PyObject **args = heap ? heap : small;
  int made = 0;
  bool ok = body != NULL;
  for (int i = 0; ok && i < p->n; i++) {
    args[i] = i < sig->n ? placeholder_arg(st, g, sig->types[i], bound[i], p->cnames[i])
                         : Py_NewRef(bound[i]);
    ok = args[i] != NULL;
    made += ok;
  }
  TfTrace trace = {
      .graph = g,
      .outer = st->trace,
      .consts = g_hash_table_new(NULL, NULL),
      .allow_variables = allow_variables,
      .fn_name = tr_fn_get_name(f->fn),
      .fn_id = tr_fn_get_id(f->fn),
  };
  if (ok) {
    st->trace = &trace;
    PyObject *result = call_body(f, body, args);
    if (trace.error && result) {
      Py_CLEAR(result);
      PyErr_SetString(st->OperatorNotAllowedInGraphError, trace.error);
    }
    *n_outputs = 0;
    ok = result && tpl_make(st, g, result, n_outputs, outputs);
    Py_XDECREF(result);
    st->trace = trace.outer;
  }
  g_free(trace.error);
  g_hash_table_unref(trace.consts);
  for (int i = 0; i < made; i++)
    Py_DECREF(args[i]);
  if (!ok) {
    tr_graph_unref(g);
    return false;
  }
  *graph_out = g;
  *n_created = trace.variables_created;
  return true;
}

/* Whether every tensor input of a trace is a top-level parameter. */
static bool
sig_is_flat(const TrTraceSig *sig)
{
  for (int i = 0; i < sig->n; i++) {
    TrTraceKind k = sig->types[i]->kind;
    if (k != TR_TRACE_TENSOR && k != TR_TRACE_PRIMITIVE && k != TR_TRACE_VARIABLE &&
        k != TR_TRACE_IDENTITY)
      return false;
  }
  return true;
}

/* A miss: traces, plans and stores a ConcreteFunction for call->trace_sig. Borrowed result. */
static TrConcreteFn *
trace_call(TfState *st, Function *f, TrFnCall *call, PyObject *const *bound)
{
  tr_fn_trace_begin(f->fn, call);
  bool first = tr_fn_get_stats(f->fn)->traces == 0;
  TrGraph *g = NULL;
  Tpl outputs;
  int n_outputs = 0, n_created = 0;
  bool ok = trace_once(st, f, call->trace_sig, bound, first, &g, &outputs, &n_outputs, &n_created);
  if (ok && n_created > 0) {
    /* TensorFlow's check: a body that created variables is traced again, and this second
     * trace must create none (the singleton rule); its graph is the one kept. */
    tr_graph_unref(g);
    tpl_clear(&outputs);
    ok = trace_once(st, f, call->trace_sig, bound, false, &g, &outputs, &n_outputs, &n_created);
  }
  if (!ok) {
    tr_fn_trace_abort(f->fn, call);
    return NULL;
  }
  Concrete *c = g_new0(Concrete, 1);
  c->graph = g;
  c->outputs = outputs;
  c->n_outputs = n_outputs;
  c->name = g_strdup(tr_fn_get_name(f->fn));
  c->flat = sig_is_flat(call->trace_sig);
  c->exec = tr_graph_copy(g);
  tr_graph_optimize(c->exec, TR_OPT_ALL, NULL);
  tr_fn_trace_set_optimized(call, tr_graph_n_nodes(c->exec));
  if (tr_event_bus_carries_graphs(st->bus))
    tr_fn_trace_set_graph_json(call, tr_graph_to_json(g));
  GError *error = NULL;
  c->plan = tr_plan_new(c->exec, NULL, 0, &error);
  if (!c->plan) {
    concrete_free(c);
    tr_fn_trace_abort(f->fn, call);
    tf_raise_any(st, error);
    return NULL;
  }
  c->signature = signature_text(c->name, call->trace_sig, g, &c->outputs);
  return tr_fn_trace_end(f->fn, call, c, concrete_free, tr_graph_n_nodes(g), (guint64)(uintptr_t)g,
                         c->signature);
}

/* The key of one argument under an input_signature's TensorSpec: Python values and Variables
 * are keyed as the tensors they convert to, as TensorFlow converts them. */
static TrTraceType *
signature_arg_type(TfState *st, PyObject *v, const TrTraceType *spec)
{
  if (spec->kind != TR_TRACE_TENSOR || tf_is_tensor(st, v) || Py_IS_TYPE(v, st->TensorSpec))
    return arg_type(st, v);
  if (tf_is_variable(st, v)) {
    TrVariable *var = ((TfVariable *)v)->var;
    return tr_trace_type_new_tensor(var->dtype, &var->shape, NULL);
  }
  if (!tf_convertible(st, v))
    return arg_type(st, v);
  TrTensor *t = tf_convert(st, v, spec->tensor.dtype, true);
  if (!t) {
    PyErr_Clear();
    return arg_type(st, v);
  }
  TrTraceType *r = tr_trace_type_new_tensor(t->dtype, &t->shape, NULL);
  tr_tensor_unref(t);
  return r;
}

/* The call's trace key: the bound parameters (only those of the input_signature when there is
 * one). Transfer full; NULL with an exception. */
static TrTraceSig *
call_sig(TfState *st, Function *f, PyObject *const *bound)
{
  const Params *p = &f->params;
  const TrTraceSig *isig = tr_fn_get_input_signature(f->fn);
  int n = isig ? isig->n : p->n;
  TrTraceType *small[16];
  g_autofree TrTraceType **heap = n > 16 ? g_new(TrTraceType *, n) : NULL;
  TrTraceType **t = heap ? heap : small;
  for (int i = 0; i < n; i++) {
    t[i] = isig ? signature_arg_type(st, bound[i], isig->types[i]) : arg_type(st, bound[i]);
    if (!t[i]) {
      for (int j = 0; j < i; j++)
        tr_trace_type_unref(t[j]);
      return NULL;
    }
  }
  return tr_trace_sig_new(n, p->cnames, t);
}

/* input_signature's ValueError, with str() of each argument given. */
static void
raise_incompatible(Function *f, PyObject *const *args, Py_ssize_t n)
{
  char **texts = g_new0(char *, n + 1);
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *s = PyObject_Str(args[i]);
    const char *text = s ? PyUnicode_AsUTF8(s) : NULL;
    if (!text) {
      Py_XDECREF(s);
      g_strfreev(texts);
      return;
    }
    texts[i] = g_strdup(text);
    Py_DECREF(s);
  }
  g_autofree char *msg = tr_fn_incompatible_message(f->fn, (const char *const *)texts, (int)n);
  PyErr_SetString(PyExc_ValueError, msg);
  g_strfreev(texts);
}

/* ---- breakpoints that cached calls pass by ----------------------------------------------------
 *
 * A cached call runs the graph, so a debugger's breakpoint in the Python body cannot stop it;
 * breakpoint_bypassed says so. It is emitted once per Function after the breakpoints of its file
 * change, on its first cached call since: per call it would flood the log of a training loop
 * with one message, and per trace it would repeat what the user already read whenever shapes
 * change. A changed breakpoint (or a re-run cell, which makes a new Function) is news again.
 * Cached calls are hot: while no breakpoint was ever set, the whole cost is comparing
 * st->bp_generation (0) with f->bp_seen (0). */

/* Folds the lines of `code` and of the functions nested in it into [*first, *last]; the entries
 * on its first line (the def or the first decorator, where the function is made, not run) do not
 * count unless nothing else does. False with an exception set. */
static bool
code_lines(PyCodeObject *code, int *first, int *last)
{
  PyObject *lines = PyObject_CallMethod((PyObject *)code, "co_lines", NULL); /* owned */
  PyObject *it = lines ? PyObject_GetIter(lines) : NULL;                     /* owned */
  Py_XDECREF(lines);
  if (!it)
    return false;
  PyObject *entry;
  while ((entry = PyIter_Next(it))) {
    PyObject *line = PyTuple_Check(entry) && PyTuple_GET_SIZE(entry) == 3
                         ? PyTuple_GET_ITEM(entry, 2)
                         : Py_None; /* borrowed */
    long l = PyLong_Check(line) ? PyLong_AsLong(line) : 0;
    Py_DECREF(entry);
    if (l <= 0 || l > INT_MAX)
      continue;
    if (l > code->co_firstlineno && (*first == 0 || l < *first))
      *first = (int)l;
    *last = MAX(*last, (int)l);
  }
  Py_DECREF(it);
  if (PyErr_Occurred())
    return false;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(code->co_consts); i++) {
    PyObject *c = PyTuple_GET_ITEM(code->co_consts, i); /* borrowed */
    if (PyCode_Check(c) && !code_lines((PyCodeObject *)c, first, last))
      return false;
  }
  return true;
}

/* The Function's body lines, computed on its first look. */
static void
body_lines(Function *f, PyCodeObject *code)
{
  int first = 0, last = 0;
  if (!code_lines(code, &first, &last)) {
    PyErr_Clear();
    first = last = -1; /* never matches a breakpoint */
  }
  f->body_first = first ? first : code->co_firstlineno;
  f->body_last = MAX(last, f->body_first);
}

/* "line 3" or "lines 3, 5": the breakpoints of `bp` in [first, last]; NULL when none. The first
 * one goes to *line. Transfer full. */
static char *
lines_in(const TfBreakpoints *bp, int first, int last, int *line)
{
  GString *s = NULL;
  guint n = 0;
  for (size_t i = 0; i < bp->n; i++) {
    if (bp->lines[i] < first || bp->lines[i] > last)
      continue;
    if (!s) {
      s = g_string_new(NULL);
      *line = bp->lines[i];
    }
    g_string_append_printf(s, "%s%d", n++ ? ", " : "", bp->lines[i]);
  }
  if (!s)
    return NULL;
  g_string_prepend(s, n > 1 ? "lines " : "line ");
  return g_string_free(s, FALSE);
}

static void
emit_bypassed(TfState *st, Function *f, TrConcreteFn *cf, const char *bp_file, int bp_line,
              const char *lines)
{
  TrCallSite site;
  PyCodeObject *caller = call_site(st, &site); /* owned: keeps site.file alive */
  const char *name = tr_fn_get_name(f->fn);
  TrEvent *ev = tr_event_new(TR_EVENT_BREAKPOINT_BYPASSED);
  tr_event_set_site(ev, site.file, site.line, site.cell);
  ev->fn_id = (gint64)tr_fn_get_id(f->fn);
  ev->fn_name = g_strdup(name);
  ev->cf_id = (gint64)cf->id;
  ev->bp_file = g_strdup(bp_file);
  ev->bp_line = bp_line;
  ev->text = g_strdup_printf(
      "The call of %s at %s, line %d ran its cached graph (concrete function #%" G_GUINT64_FORMAT
      "): no Python ran, so the breakpoint at %s, %s in %s could not stop it. To stop there, run "
      "functions eagerly (tf.config.run_functions_eagerly(True), or the debugger's \"Run "
      "functions eagerly\" switch), or make a call that traces %s anew.",
      name, site.file, site.line, cf->id, bp_file, lines, name, name);
  tr_event_bus_emit(st->bus, ev);
  Py_XDECREF(caller);
}

/* A cached call of `f` served by `cf`, after the breakpoints changed: emits breakpoint_bypassed
 * when one sits in f's body and this Function has not said so since its file's breakpoints last
 * changed. */
static void
bypass_check(TfState *st, Function *f, TrConcreteFn *cf)
{
  f->bp_seen = st->bp_generation;
  PyCodeObject *code = (PyCodeObject *)PyFunction_GET_CODE(f->func); /* borrowed */
  const char *filename = PyUnicode_AsUTF8(code->co_filename);
  if (!filename) {
    PyErr_Clear();
    return;
  }
  const TfBreakpoints *bp = tf_breakpoints_of(st, filename);
  guint64 file_generation = bp ? bp->generation : 0;
  if (file_generation == f->bp_file_seen)
    return;
  f->bp_file_seen = file_generation;
  if (!bp || !tr_event_bus_wants(st->bus, TR_EVENT_BREAKPOINT_BYPASSED))
    return;
  if (f->body_last == 0)
    body_lines(f, code);
  int line = 0;
  g_autofree char *lines = lines_in(bp, f->body_first, f->body_last, &line);
  if (!lines)
    return;
  const char *bp_file = tf_event_file_name(st, code->co_filename);
  if (!bp_file) {
    PyErr_Clear();
    bp_file = filename;
  }
  emit_bypassed(st, f, cf, bp_file, line, lines);
}

/* The hot paths' test: anything to check at all? */
static inline void
bypass_note(TfState *st, Function *f, TrConcreteFn *cf)
{
  if (G_UNLIKELY(st->bp_generation != f->bp_seen))
    bypass_check(st, f, cf);
}

/* A call the previous call's key served: straight to the plan. */
static PyObject *
call_hit(TfState *st, Function *f, PyObject *const *bound)
{
  TrConcreteFn *cf = f->last_cf;
  TrCallSite site = {NULL, 0, st->cell};
  PyCodeObject *code = NULL; /* owned: keeps site.file alive */
  if (tr_event_bus_wants(st->bus, TR_EVENT_CALL) || tr_event_bus_wants(st->bus, TR_EVENT_CALL_END))
    code = call_site(st, &site);
  tr_concrete_fn_ref(cf); /* the run may replace f->last_cf (a nested call of f) */
  gint64 start = tr_fn_hit_begin(f->fn, cf, &site, f->last_reason, f->last_candidates);
  bypass_note(st, f, cf);
  PyObject *r = execute(st, f->fn, cf, bound);
  tr_fn_hit_end(f->fn, cf, &site, start, r != NULL);
  tr_concrete_fn_unref(cf);
  Py_XDECREF(code);
  return r;
}

/* A call or get_concrete_function after its arguments are bound. With `concrete`, returns
 * None and the serving trace there (a new reference). */
static PyObject *
request_bound(TfState *st, Function *f, TrFnRequest request, PyObject *const *bound,
              PyObject *const *args, Py_ssize_t n_given, TrConcreteFn **concrete)
{
  TrTraceSig *sig = call_sig(st, f, bound);
  if (!sig)
    return NULL;
  TrCallSite site;
  PyCodeObject *code = call_site(st, &site); /* owned: keeps site.file alive */
  TrFnCall *call = tr_fn_call_begin(f->fn, request, sig, &site);
  tr_trace_sig_unref(sig);
  PyObject *r = NULL;
  TrConcreteFn *cf = NULL;
  switch (call->outcome) {
    case TR_OUTCOME_HIT:
      cf = call->concrete;
      if (request == TR_FN_REQUEST_CALL) {
        remember_last(f, call->args, cf, call->reason, call->n_candidates);
        bypass_note(st, f, cf);
      }
      break;
    case TR_OUTCOME_MISS:
      cf = trace_call(st, f, call, bound);
      if (cf && request == TR_FN_REQUEST_CALL)
        remember_last(f, call->args, cf, NULL, 1); /* only the new trace accepts this key */
      break;
    case TR_OUTCOME_EAGER: {
      /* tf.print in the body reports this Function, as it does from a graph. */
      TrFn *outer_fn = st->eager_fn;
      st->eager_fn = f->fn;
      r = call_body(f, f->func, bound);
      st->eager_fn = outer_fn;
      break;
    }
    default:
      raise_incompatible(f, args, n_given);
      break;
  }
  if (cf && concrete) {
    *concrete = tr_concrete_fn_ref(cf);
    r = Py_NewRef(Py_None);
  } else if (cf) {
    r = execute(st, f->fn, cf, bound);
  }
  tr_fn_call_end(f->fn, call, r != NULL);
  Py_XDECREF(code);
  return r;
}

/* One request (a call or get_concrete_function) with the caller's arguments. */
static PyObject *
function_request(TfState *st, Function *f, TrFnRequest request, PyObject *const *args,
                 Py_ssize_t nargs, PyObject *kwnames, TrConcreteFn **concrete)
{
  const Params *p = &f->params;
  PyObject *small[16];
  g_autofree PyObject **heap = NULL;
  PyObject *const *bound = args; /* borrowed from the caller when the call is the binding */
  bool owned = !(p->simple && !kwnames && nargs == p->n_pos);
  if (owned) {
    PyObject **out = p->n > 16 ? (heap = g_new(PyObject *, p->n)) : small;
    if (!bind_call(p, args, nargs, kwnames, out))
      return NULL;
    bound = out;
  }
  PyObject *r;
  if (request == TR_FN_REQUEST_CALL && f->last_cf &&
      f->last_n_concrete == tr_fn_get_n_concrete(f->fn) &&
      !tr_fn_registry_get_run_eagerly(st->registry)) {
    bool same = true;
    for (int i = 0; i < f->last_args->n && same; i++)
      same = same_key(st, bound[i], f->last_args->types[i]);
    if (same) {
      r = call_hit(st, f, bound);
      goto out;
    }
  }
  r = request_bound(st, f, request, bound, args, nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0),
                    concrete);
out:
  if (owned)
    for (int i = 0; i < p->n; i++)
      Py_DECREF(bound[i]);
  return r;
}

/* The call raised: an error event with the exception's class and its last traceback line;
 * `rejected` when no call began (the arguments did not bind, input_signature refused them): its
 * reason says so, and the debugger counts it as a call that raised. */
static void
emit_error(TfState *st, Function *f, bool rejected)
{
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  const char *name = type && PyType_Check(type) ? short_type_name((PyTypeObject *)type) : "?";
  PyObject *s = value ? PyObject_Str(value) : NULL;
  const char *msg = s ? PyUnicode_AsUTF8(s) : NULL;
  if (!msg)
    PyErr_Clear();
  TrCallSite site;
  PyCodeObject *code = call_site(st, &site);
  TrEvent *ev = tr_event_new(TR_EVENT_ERROR);
  tr_event_set_site(ev, site.file, site.line, site.cell);
  ev->fn_id = (gint64)tr_fn_get_id(f->fn);
  ev->fn_name = g_strdup(tr_fn_get_name(f->fn));
  ev->name = g_strdup(name);
  ev->text = msg && *msg ? g_strdup_printf("%s: %s", name, msg) : g_strdup(name);
  if (rejected)
    ev->reason = g_strdup("rejected");
  tr_event_bus_emit(st->bus, ev);
  Py_XDECREF(code);
  Py_XDECREF(s);
  PyErr_Restore(type, value, tb);
}

static PyObject *
function_vectorcall(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
  Function *f = (Function *)callable;
  TfState *st = tf_state();
  if (!f->fn) {
    PyErr_SetString(PyExc_RuntimeError, "this tf.function was torn down");
    return NULL;
  }
  /* A body that calls its own Function with tensors recurses while tracing. */
  if (Py_EnterRecursiveCall(" while calling a tf.function"))
    return NULL;
  guint64 calls = tr_fn_get_stats(f->fn)->calls;
  PyObject *r =
      function_request(st, f, TR_FN_REQUEST_CALL, args, PyVectorcall_NARGS(nargsf), kwnames, NULL);
  Py_LeaveRecursiveCall();
  if (!r && tr_event_bus_wants(st->bus, TR_EVENT_ERROR))
    emit_error(st, f, f->fn && tr_fn_get_stats(f->fn)->calls == calls);
  return r;
}

/* The TrTraceSig of an input_signature: one TensorSpec (or nested list/tuple of them) per
 * leading positional parameter. Transfer full; NULL with TypeError. */
static TrTraceSig *
input_signature_sig(TfState *st, const Params *p, PyObject *specs)
{
  Py_ssize_t n = PyTuple_GET_SIZE(specs);
  if (n > p->n_pos) {
    PyErr_Format(PyExc_TypeError,
                 "input_signature has %zd specs but the function takes %d positional arguments", n,
                 p->n_pos);
    return NULL;
  }
  TrTraceType **types = g_new(TrTraceType *, n > 0 ? n : 1);
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *s = PyTuple_GET_ITEM(specs, i);
    types[i] = NULL;
    if (Py_IS_TYPE(s, st->TensorSpec) || PyList_Check(s) || PyTuple_Check(s))
      types[i] = arg_type(st, s);
    else
      PyErr_SetString(PyExc_TypeError,
                      "input_signature must be a possibly nested sequence of TensorSpec objects");
    if (!types[i]) {
      for (Py_ssize_t j = 0; j < i; j++)
        tr_trace_type_unref(types[j]);
      g_free(types);
      return NULL;
    }
  }
  TrTraceSig *sig = tr_trace_sig_new((int)n, p->cnames, types);
  g_free(types);
  return sig;
}

/* Copies what functools.update_wrapper copies, so a Function looks like its function to
 * inspect, IPython's `?` and doctools. */
static int
copy_wrapper_attributes(Function *f, PyObject *func)
{
  static const char *const attrs[] = {"__module__", "__name__", "__qualname__", "__doc__"};
  f->dict = PyDict_New();
  if (!f->dict)
    return -1;
  for (size_t i = 0; i < G_N_ELEMENTS(attrs); i++) {
    PyObject *v = PyObject_GetAttrString(func, attrs[i]);
    if (!v) {
      PyErr_Clear();
      continue;
    }
    int r = PyDict_SetItemString(f->dict, attrs[i], v);
    Py_DECREF(v);
    if (r < 0)
      return -1;
  }
  return PyDict_SetItemString(f->dict, "__wrapped__", func);
}

static void
subscribe_warnings(TfState *st)
{
  if (st->functions_created)
    return;
  st->functions_created = true; /* the bus may no longer change: subscribe to it now */
  st->warning_subscription =
      tr_event_bus_subscribe_kinds(st->bus, G_GUINT64_CONSTANT(1) << TR_EVENT_RETRACING_WARNING,
                                   print_retracing_warning, st, NULL, false);
}

/* A Function for `python_function`. `instance` (may be NULL) makes it the per-instance
 * Function of a method; `specs` is a tuple of TensorSpecs or NULL. New reference. */
static PyObject *
function_create(TfState *st, PyObject *python_function, PyObject *instance, PyObject *specs,
                bool autograph, bool reduce_retracing)
{
  PyObject *func = python_function;   /* borrowed: the plain function whose code is bound */
  PyObject *self = instance;          /* borrowed */
  if (Py_IS_TYPE(func, st->Function)) /* tf.function of a Function: of its function */
    func = python_function = ((Function *)func)->python_function;
  if (PyMethod_Check(func)) {
    self = PyMethod_GET_SELF(func);
    func = PyMethod_GET_FUNCTION(func);
  } else if (!PyFunction_Check(func) && PyCallable_Check(func) && !PyType_Check(func)) {
    /* A callable object: its class's __call__, on it. */
    PyObject *call = PyObject_GetAttrString((PyObject *)Py_TYPE(func), "__call__");
    if (call && PyFunction_Check(call)) {
      self = func;
      func = call;
    }
    Py_XDECREF(call); /* the class keeps it */
    PyErr_Clear();
  }
  if (!PyFunction_Check(func)) {
    PyErr_Format(PyExc_TypeError,
                 "tf.function needs a Python function defined with def or lambda, got %s",
                 Py_TYPE(python_function)->tp_name);
    return NULL;
  }
  Function *f = PyObject_GC_New(Function, st->Function);
  if (!f)
    return NULL;
  memset((char *)f + sizeof(PyObject), 0, sizeof *f - sizeof(PyObject));
  f->vectorcall = function_vectorcall;
  f->python_function = Py_NewRef(python_function);
  f->func = Py_NewRef(func);
  f->autograph = autograph;
  f->reduce_retracing = reduce_retracing;
  f->input_signature = Py_XNewRef(specs);
  PyObject_GC_Track(f);
  PyObject *obj = (PyObject *)f;
  if (self) {
    /* Held weakly when it can be: the Function lives in its class's cache of instances. */
    f->self_ref = PyType_SUPPORTS_WEAKREFS(Py_TYPE(self)) ? PyWeakref_NewRef(self, NULL) : NULL;
    if (!f->self_ref) {
      PyErr_Clear();
      f->self = Py_NewRef(self);
    }
  }
  if (!params_init(&f->params, func, self != NULL) || copy_wrapper_attributes(f, func) < 0) {
    Py_DECREF(obj);
    return NULL;
  }
  TrTraceSig *isig = specs ? input_signature_sig(st, &f->params, specs) : NULL;
  if (specs && !isig) {
    Py_DECREF(obj);
    return NULL;
  }
  const char *name = PyUnicode_AsUTF8(((PyFunctionObject *)func)->func_name);
  const char *qualname = PyUnicode_AsUTF8(((PyFunctionObject *)func)->func_qualname);
  g_autofree char *display =
      g_strdup_printf("<function %s at %p>", qualname ? qualname : "?", (void *)func);
  PyErr_Clear();
  TrFnOptions options = {
      .name = name ? name : "?",
      .display = display,
      .py_function_key = (guint64)(uintptr_t)func,
      .reduce_retracing = reduce_retracing,
      .input_signature = isig,
  };
  subscribe_warnings(st);
  f->fn = tr_fn_new(st->registry, &options);
  if (isig)
    tr_trace_sig_unref(isig);
  return obj;
}

static int
function_traverse(PyObject *self, visitproc visit, void *arg)
{
  Function *f = (Function *)self;
  Py_VISIT(Py_TYPE(self));
  Py_VISIT(f->python_function);
  Py_VISIT(f->func);
  Py_VISIT(f->self);
  Py_VISIT(f->self_ref); /* its callback holds the cache of the unbound Function */
  Py_VISIT(f->bound);
  Py_VISIT(f->input_signature);
  Py_VISIT(f->converted);
  Py_VISIT(f->dict);
  Py_VISIT(f->params.defaults);
  Py_VISIT(f->params.kwdefaults);
  return 0;
}

static int
function_clear(PyObject *self)
{
  Function *f = (Function *)self;
  Py_CLEAR(f->self);
  Py_CLEAR(f->self_ref);
  Py_CLEAR(f->bound);
  Py_CLEAR(f->converted);
  Py_CLEAR(f->dict);
  forget_last(f);
  g_clear_pointer(&f->fn, tr_fn_unref);
  return 0;
}

static void
function_dealloc(PyObject *self)
{
  Function *f = (Function *)self;
  PyTypeObject *type = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  if (f->weakreflist)
    PyObject_ClearWeakRefs(self);
  function_clear(self);
  Py_CLEAR(f->python_function);
  Py_CLEAR(f->func);
  Py_CLEAR(f->input_signature);
  params_clear(&f->params);
  PyObject_GC_Del(self);
  Py_DECREF(type);
}

/* Drops a per-instance Function when its instance dies: the callback of the weak reference
 * the cache entry is keyed by; `entry` is (cache dict, key). */
static PyObject *
forget_instance(PyObject *entry, PyObject *weakref)
{
  PyObject *cache = PyTuple_GET_ITEM(entry, 0), *key = PyTuple_GET_ITEM(entry, 1);
  if (PyDict_DelItem(cache, key) < 0)
    PyErr_Clear();
  Py_RETURN_NONE;
}

static PyMethodDef forget_instance_def = {"_forget_instance", forget_instance, METH_O, NULL};

/* A method decorated with tf.function: one Function per instance, as TensorFlow keeps them,
 * cached here by the instance's id and dropped when the instance dies. */
static PyObject *
function_descr_get(PyObject *self, PyObject *obj, PyObject *type)
{
  Function *f = (Function *)self;
  if (!obj || obj == Py_None || f->self || f->self_ref)
    return Py_NewRef(self);
  if (!f->bound && !(f->bound = PyDict_New()))
    return NULL;
  PyObject *key = PyLong_FromVoidPtr(obj); /* owned */
  if (!key)
    return NULL;
  Function *have = (Function *)PyDict_GetItemWithError(f->bound, key); /* borrowed */
  if (have) {
    bool dead;
    if (function_instance(have, &dead) == obj) {
      Py_DECREF(key);
      return Py_NewRef((PyObject *)have);
    }
    PyErr_Clear(); /* an earlier instance at the same address: replaced below */
  } else if (PyErr_Occurred()) {
    Py_DECREF(key);
    return NULL;
  }
  TfState *st = tf_state();
  PyObject *b = function_create(st, f->func, obj, f->input_signature, f->autograph,
                                f->reduce_retracing); /* owned */
  if (b && f->converted)
    ((Function *)b)->converted = Py_NewRef(f->converted);
  if (b && ((Function *)b)->self_ref) {
    /* Re-make the weak reference with the callback that removes the cache entry. */
    PyObject *entry = PyTuple_Pack(2, f->bound, key);
    PyObject *cb = entry ? PyCFunction_New(&forget_instance_def, entry) : NULL;
    PyObject *ref = cb ? PyWeakref_NewRef(obj, cb) : NULL;
    Py_XDECREF(entry);
    Py_XDECREF(cb);
    if (!ref)
      Py_CLEAR(b);
    else
      Py_SETREF(((Function *)b)->self_ref, ref);
  }
  if (b && PyDict_SetItem(f->bound, key, b) < 0)
    Py_CLEAR(b);
  Py_DECREF(key);
  return b;
}

/* ---- ConcreteFunction ------------------------------------------------------------------------ */

typedef struct {
  PyObject ob_base;          /* PyObject_HEAD */
  vectorcallfunc vectorcall; /* concrete_vectorcall */
  TrConcreteFn *cf;          /* owned reference */
  PyObject *function;        /* the Function that traced it (owned) */
} ConcreteObject;

static PyObject *concrete_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                     PyObject *kwnames);

static Concrete *
concrete_of(PyObject *self)
{
  return ((ConcreteObject *)self)->cf->data;
}

static PyObject *
concrete_new(TfState *st, TrConcreteFn *cf, PyObject *function)
{
  ConcreteObject *c = PyObject_GC_New(ConcreteObject, st->ConcreteFunction);
  if (!c) {
    tr_concrete_fn_unref(cf);
    return NULL;
  }
  c->vectorcall = concrete_vectorcall;
  c->cf = cf; /* the reference passed in */
  c->function = Py_NewRef(function);
  PyObject_GC_Track(c);
  return (PyObject *)c;
}

static int
concrete_traverse(PyObject *self, visitproc visit, void *arg)
{
  Py_VISIT(Py_TYPE(self));
  Py_VISIT(((ConcreteObject *)self)->function);
  return 0;
}

static int
concrete_clear_refs(PyObject *self)
{
  Py_CLEAR(((ConcreteObject *)self)->function);
  return 0;
}

static void
concrete_dealloc(PyObject *self)
{
  PyTypeObject *type = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  concrete_clear_refs(self);
  g_clear_pointer(&((ConcreteObject *)self)->cf, tr_concrete_fn_unref);
  PyObject_GC_Del(self);
  Py_DECREF(type);
}

/* A baked Python value given again with another value: TensorFlow's TypeError. */
static bool
check_baked(TfState *st, PyObject *self, int i, PyObject *v)
{
  const TrTraceSig *sig = ((ConcreteObject *)self)->cf->sig;
  const TrTraceType *t = sig->types[i];
  g_autoptr(TrTraceType) given = arg_type(st, v);
  if (!given)
    return false;
  if (tr_trace_type_equal(given, t))
    return true;
  GString *params = g_string_new(NULL);
  for (int k = 0; k < sig->n; k++)
    g_string_append_printf(params, "%s%s", k ? ", " : "", sig->names[k]);
  bool prim = t->kind == TR_TRACE_PRIMITIVE, given_prim = given->kind == TR_TRACE_PRIMITIVE;
  g_autofree char *was = prim ? tr_trace_type_primitive_repr(t) : tr_trace_type_to_string(t);
  g_autofree char *now = given_prim ? tr_trace_type_primitive_repr(given) : NULL;
  PyErr_Format(PyExc_TypeError,
               "ConcreteFunction %s(%s) was constructed with %s value %s in %s, but was called "
               "with %s value %s.",
               concrete_of(self)->name, params->str,
               prim ? tr_trace_type_py_type_name(t) : tr_trace_kind_name(t->kind), was,
               sig->names[i], given_prim ? tr_trace_type_py_type_name(given) : Py_TYPE(v)->tp_name,
               now ? now : "(not a Python value)");
  g_string_free(params, TRUE);
  return false;
}

static bool
is_baked(const TrTraceType *t)
{
  return t->kind == TR_TRACE_PRIMITIVE || t->kind == TR_TRACE_IDENTITY ||
         t->kind == TR_TRACE_VARIABLE;
}

/* ConcreteFunction.__call__: positional arguments fill the tensor parameters in order,
 * keywords any parameter; Python-valued parameters keep their traced value. */
static PyObject *
concrete_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
  TfState *st = tf_state();
  ConcreteObject *c = (ConcreteObject *)self;
  const TrTraceSig *sig = c->cf->sig;
  const char *name = concrete_of(self)->name;
  Py_ssize_t n_pos = PyVectorcall_NARGS(nargsf);
  Py_ssize_t n_kw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  g_autofree PyObject **bound = g_new0(PyObject *, sig->n > 0 ? sig->n : 1); /* borrowed */
  /* Variables may be given positionally (checked to be the traced ones) or left out. */
  int n_tensor = 0;
  for (int i = 0; i < sig->n; i++)
    n_tensor += !is_baked(sig->types[i]);
  bool skip_variables = n_pos <= n_tensor;
  int next = 0;
  for (Py_ssize_t a = 0; a < n_pos; a++) {
    while (next < sig->n && is_baked(sig->types[next]) &&
           (sig->types[next]->kind != TR_TRACE_VARIABLE || skip_variables))
      next++;
    if (next >= sig->n) {
      PyErr_Format(PyExc_TypeError, "%s() takes %d positional arguments but %zd were given", name,
                   n_tensor, n_pos);
      return NULL;
    }
    bound[next++] = args[a];
  }
  for (Py_ssize_t k = 0; k < n_kw; k++) {
    const char *key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
    if (!key)
      return NULL;
    int i = tr_trace_sig_find(sig, key);
    if (i < 0) {
      PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%s'", name, key);
      return NULL;
    }
    if (bound[i]) {
      PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", name, key);
      return NULL;
    }
    bound[i] = args[n_pos + k];
  }
  OperandVec in;
  operand_vec_init(&in);
  for (int i = 0; i < sig->n; i++) {
    const TrTraceType *t = sig->types[i];
    bool ok;
    if (is_baked(t)) {
      ok = !bound[i] || check_baked(st, self, i, bound[i]);
    } else if (!bound[i]) {
      PyErr_Format(PyExc_TypeError, "%s() missing required argument: '%s'", name, sig->names[i]);
      ok = false;
    } else {
      ok = collect_inputs(st, t, bound[i], &in);
    }
    if (!ok) {
      operand_vec_clear(&in);
      return NULL;
    }
  }
  Function *f = (Function *)c->function; /* a ConcreteFunction's call runs no Python either */
  if (f->fn)
    bypass_note(st, f, c->cf);
  PyObject *r = st->trace ? inline_concrete(st, concrete_of(self), in.data, in.len)
                          : run_operands(st, NULL, c->cf, in.data, in.len);
  operand_vec_clear(&in);
  return r;
}

static PyObject *
concrete_str(PyObject *self)
{
  return PyUnicode_FromFormat("ConcreteFunction %s", concrete_of(self)->signature);
}

static PyObject *
concrete_repr(PyObject *self)
{
  /* TensorFlow's: the signature's first line, <ConcreteFunction double(a) at 0x7F…>. */
  const char *sig = concrete_of(self)->signature;
  g_autofree char *head = g_strndup(sig, strcspn(sig, "\n"));
  g_autofree char *addr = g_strdup_printf("%" G_GINT64_MODIFIER "X", (gint64)(uintptr_t)self);
  return PyUnicode_FromFormat("<ConcreteFunction %s at 0x%s>", head, addr);
}

static PyObject *
concrete_get_graph(PyObject *self, void *closure)
{
  return tf_graph_object_new(tf_state(), concrete_of(self)->graph);
}

static PyObject *
concrete_get_name(PyObject *self, void *closure)
{
  return PyUnicode_FromString(tr_graph_name(concrete_of(self)->graph));
}

static PyObject *
make_symbolic_output(TfState *st, int index, void *user)
{
  TrGraph *g = user;
  return tf_symbolic_new(st, g, tr_node_output(tr_graph_output(g, index), 0));
}

static PyObject *
concrete_get_structured_outputs(PyObject *self, void *closure)
{
  Concrete *c = concrete_of(self);
  return tpl_fill(tf_state(), &c->outputs, make_symbolic_output, c->graph);
}

static PyObject *
concrete_get_outputs(PyObject *self, void *closure)
{
  TfState *st = tf_state();
  Concrete *c = concrete_of(self);
  PyObject *list = PyList_New(c->n_outputs);
  for (int i = 0; list && i < c->n_outputs; i++) {
    PyObject *t = make_symbolic_output(st, i, c->graph);
    if (!t)
      Py_CLEAR(list);
    else
      PyList_SET_ITEM(list, i, t);
  }
  return list;
}

static PyObject *
concrete_get_inputs(PyObject *self, void *closure)
{
  TfState *st = tf_state();
  TrGraph *g = concrete_of(self)->graph;
  int n = tr_graph_n_inputs(g);
  PyObject *list = PyList_New(n);
  for (int i = 0; list && i < n; i++) {
    PyObject *t = tf_symbolic_new(st, g, tr_node_output(tr_graph_input(g, i), 0));
    if (!t)
      Py_CLEAR(list);
    else
      PyList_SET_ITEM(list, i, t);
  }
  return list;
}

/* A leaf of structured_input_signature: TensorSpec(name=parameter) for tensors, the value for
 * Python values, the spec structure for lists, tuples and dicts. New reference. */
static PyObject *
input_spec(TfState *st, const TrTraceType *t, const char *name)
{
  switch (t->kind) {
    case TR_TRACE_TENSOR:
      return spec_new(st, &t->tensor.shape, t->tensor.dtype,
                      t->tensor.name ? t->tensor.name : name);
    case TR_TRACE_VARIABLE:
      return spec_new(st, &t->variable.shape, t->variable.dtype, name);
    case TR_TRACE_PRIMITIVE:
      return primitive_value(t);
    case TR_TRACE_LIST:
    case TR_TRACE_TUPLE:
    case TR_TRACE_NAMEDTUPLE: {
      PyObject *items = PyList_New(t->seq.n);
      for (int i = 0; items && i < t->seq.n; i++) {
        PyObject *v = input_spec(st, t->seq.items[i], name);
        if (!v)
          Py_CLEAR(items);
        else
          PyList_SET_ITEM(items, i, v);
      }
      if (!items || t->kind == TR_TRACE_LIST)
        return items;
      PyObject *r = PyList_AsTuple(items);
      Py_DECREF(items);
      return r;
    }
    case TR_TRACE_DICT: {
      PyObject *r = PyDict_New();
      for (int i = 0; r && i < t->seq.n; i++) {
        PyObject *k = primitive_value(t->seq.keys[i]);
        PyObject *v = k ? input_spec(st, t->seq.items[i], name) : NULL;
        if (!v || PyDict_SetItem(r, k, v) < 0)
          Py_CLEAR(r);
        Py_XDECREF(k);
        Py_XDECREF(v);
      }
      return r;
    }
    default: {
      g_autofree char *text = tr_trace_type_to_string(t);
      return PyUnicode_FromString(text);
    }
  }
}

static PyObject *
concrete_get_structured_input_signature(PyObject *self, void *closure)
{
  TfState *st = tf_state();
  const TrTraceSig *sig = ((ConcreteObject *)self)->cf->sig;
  PyObject *args = PyTuple_New(sig->n);
  for (int i = 0; args && i < sig->n; i++) {
    PyObject *v = input_spec(st, sig->types[i], sig->names[i]);
    if (!v)
      Py_CLEAR(args);
    else
      PyTuple_SET_ITEM(args, i, v);
  }
  if (!args)
    return NULL;
  PyObject *r = Py_BuildValue("(N{})", args);
  return r;
}

static PyObject *
concrete_pretty_printed_signature(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames)
{
  static const char *const names[] = {"verbose", NULL};
  PyObject *a[1];
  if (!tf_parse_args("pretty_printed_signature", args, nargs, kwnames, names, 0, a))
    return NULL;
  return PyUnicode_FromString(concrete_of(self)->signature);
}

static PyObject *
concrete_repr_svg(PyObject *self, PyObject *unused)
{
  return svg_of(concrete_of(self)->graph);
}

static PyMethodDef concrete_methods[] = {
    {"pretty_printed_signature", (PyCFunction)(void (*)(void))concrete_pretty_printed_signature,
     METH_FASTCALL | METH_KEYWORDS, "The trace's signature as text."},
    {"_repr_svg_", concrete_repr_svg, METH_NOARGS, "An SVG drawing of the trace's graph."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef concrete_getsets[] = {
    {"graph", concrete_get_graph, NULL, "The Graph traced for this signature.", NULL},
    {"name", concrete_get_name, NULL, "The graph's function name.", NULL},
    {"structured_outputs", concrete_get_structured_outputs, NULL,
     "The returned structure, with the graph's output tensors.", NULL},
    {"structured_input_signature", concrete_get_structured_input_signature, NULL,
     "((TensorSpec or value per parameter), {}) the trace was made for.", NULL},
    {"inputs", concrete_get_inputs, NULL, "The graph's placeholders.", NULL},
    {"outputs", concrete_get_outputs, NULL, "The graph's output tensors.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef concrete_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(ConcreteObject, vectorcall), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot concrete_slots[] = {
    {Py_tp_doc, "A Graph traced for one signature, with its executor."},
    {Py_tp_dealloc, concrete_dealloc},
    {Py_tp_traverse, concrete_traverse},
    {Py_tp_clear, concrete_clear_refs},
    {Py_tp_repr, concrete_repr},
    {Py_tp_str, concrete_str},
    {Py_tp_call, PyVectorcall_Call},
    {Py_tp_methods, concrete_methods},
    {Py_tp_getset, concrete_getsets},
    {Py_tp_members, concrete_members},
    {0, NULL},
};

static PyType_Spec concrete_spec = {
    .name = "tensorflow.python.eager.polymorphic_function.concrete_function.ConcreteFunction",
    .basicsize = sizeof(ConcreteObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL |
             Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = concrete_slots,
};

/* ---- Function's methods ---------------------------------------------------------------------- */

static PyObject *
function_get_concrete_function(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames)
{
  TfState *st = tf_state();
  Function *f = (Function *)self;
  TrConcreteFn *cf = NULL;
  TrTraceSig *isig = tr_fn_get_input_signature(f->fn);
  PyObject *r;
  if (nargs == 0 && !kwnames && isig && tr_fn_get_n_concrete(f->fn) > 0) {
    cf = tr_concrete_fn_ref(tr_fn_get_concrete(f->fn, 0));
  } else if (nargs == 0 && !kwnames && isig) {
    /* Trace the input_signature: its specs stand for the arguments. */
    PyObject *specs = PyTuple_New(isig->n); /* owned */
    for (int i = 0; specs && i < isig->n; i++) {
      PyObject *s = input_spec(st, isig->types[i], NULL);
      if (!s)
        Py_CLEAR(specs);
      else
        PyTuple_SET_ITEM(specs, i, s);
    }
    if (!specs)
      return NULL;
    r = function_request(st, f, TR_FN_REQUEST_GET_CONCRETE, &PyTuple_GET_ITEM(specs, 0), isig->n,
                         NULL, &cf);
    Py_DECREF(specs);
    if (!r)
      return NULL;
    Py_DECREF(r);
  } else {
    r = function_request(st, f, TR_FN_REQUEST_GET_CONCRETE, args, nargs, kwnames, &cf);
    if (!r)
      return NULL;
    Py_DECREF(r);
  }
  return concrete_new(st, cf, self);
}

static PyObject *
function_pretty_printed(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"verbose", NULL};
  PyObject *a[1];
  if (!tf_parse_args("pretty_printed_concrete_signatures", args, nargs, kwnames, names, 0, a))
    return NULL;
  TrFn *fn = ((Function *)self)->fn;
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < tr_fn_get_n_concrete(fn); i++) {
    Concrete *c = tr_fn_get_concrete(fn, i)->data;
    if (i > 0)
      g_string_append(s, "\n\n");
    g_string_append(s, c->signature);
  }
  PyObject *r = PyUnicode_FromStringAndSize(s->str, (Py_ssize_t)s->len);
  g_string_free(s, TRUE);
  return r;
}

static PyObject *
function_tracing_count(PyObject *self, PyObject *unused)
{
  return PyLong_FromUnsignedLongLong(tr_fn_get_stats(((Function *)self)->fn)->traces);
}

static PyObject *
function_get_python_function(PyObject *self, void *closure)
{
  return Py_NewRef(((Function *)self)->python_function);
}

static PyObject *
function_get_name(PyObject *self, void *closure)
{
  return PyUnicode_FromString(tr_fn_get_name(((Function *)self)->fn));
}

static PyObject *
function_get_input_signature(PyObject *self, void *closure)
{
  PyObject *s = ((Function *)self)->input_signature;
  return Py_NewRef(s ? s : Py_None);
}

static PyObject *
function_repr(PyObject *self)
{
  return PyUnicode_FromFormat("<tensorflow.python.eager.polymorphic_function.polymorphic_function."
                              "Function object at %p>",
                              self);
}

static PyMethodDef function_methods[] = {
    {"get_concrete_function", (PyCFunction)(void (*)(void))function_get_concrete_function,
     METH_FASTCALL | METH_KEYWORDS,
     "The ConcreteFunction for these arguments or TensorSpecs, tracing if needed."},
    {"pretty_printed_concrete_signatures", (PyCFunction)(void (*)(void))function_pretty_printed,
     METH_FASTCALL | METH_KEYWORDS, "Every trace's signature as text."},
    {"experimental_get_tracing_count", function_tracing_count, METH_NOARGS,
     "How many times the Function has traced."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef function_getsets[] = {
    {"python_function", function_get_python_function, NULL, "The decorated Python function.", NULL},
    {"name", function_get_name, NULL, "The Python function's name.", NULL},
    {"input_signature", function_get_input_signature, NULL, "The input_signature, or None.", NULL},
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef function_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(Function, vectorcall), READONLY, NULL},
    {"__dictoffset__", T_PYSSIZET, offsetof(Function, dict), READONLY, NULL},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(Function, weakreflist), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot function_slots[] = {
    {Py_tp_doc, "A callable that traces a Python function into graphs, one per input signature."},
    {Py_tp_dealloc, function_dealloc},
    {Py_tp_traverse, function_traverse},
    {Py_tp_clear, function_clear},
    {Py_tp_repr, function_repr},
    {Py_tp_call, PyVectorcall_Call},
    {Py_tp_descr_get, function_descr_get},
    {Py_tp_methods, function_methods},
    {Py_tp_getset, function_getsets},
    {Py_tp_members, function_members},
    {0, NULL},
};

static PyType_Spec function_spec = {
    .name = "tensorflow.python.eager.polymorphic_function.polymorphic_function.Function",
    .basicsize = sizeof(Function),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL |
             Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = function_slots,
};

/* ---- tf.function ----------------------------------------------------------------------------- */

/* The options of tf.function, read from its arguments. */
typedef struct {
  PyObject *input_signature; /* a tuple of specs (owned), or NULL */
  bool autograph;            /* convert control flow (default true) */
  bool reduce_retracing;     /* generalise shapes on misses */
} FunctionOptions;

static bool
function_options(PyObject *isig, PyObject *autograph, PyObject *reduce, FunctionOptions *o)
{
  memset(o, 0, sizeof *o);
  int ag = bool_arg(autograph, true), rr = bool_arg(reduce, false);
  if (ag < 0 || rr < 0)
    return false;
  o->autograph = ag;
  o->reduce_retracing = rr;
  if (isig && isig != Py_None) {
    o->input_signature = PySequence_Tuple(isig);
    if (!o->input_signature)
      return false;
  }
  return true;
}

/* tf.function(input_signature=...) without a function returns this decorator; `options` is
 * (input_signature or None, autograph, reduce_retracing). */
static PyObject *
decorate(PyObject *options, PyObject *func)
{
  PyObject *isig = PyTuple_GET_ITEM(options, 0);
  return function_create(tf_state(), func, NULL, isig == Py_None ? NULL : isig,
                         PyTuple_GET_ITEM(options, 1) == Py_True,
                         PyTuple_GET_ITEM(options, 2) == Py_True);
}

static PyMethodDef decorate_def = {"function", decorate, METH_O,
                                   "Makes a tf.function of the decorated function."};

static PyObject *
tf_function(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {
      "func",
      "input_signature",
      "autograph",
      "jit_compile",
      "reduce_retracing",
      "experimental_implements",
      "experimental_autograph_options",
      "experimental_attributes",
      "experimental_relax_shapes",
      "experimental_compile",
      "experimental_follow_type_hints",
      NULL,
  };
  PyObject *a[G_N_ELEMENTS(names) - 1];
  if (!tf_parse_args("function", args, nargs, kwnames, names, 0, a))
    return NULL;
  FunctionOptions o;
  if (!function_options(a[1], a[2], a[4] ? a[4] : a[8], &o))
    return NULL;
  PyObject *r;
  if (!a[0] || a[0] == Py_None) {
    PyObject *options =
        Py_BuildValue("(OOO)", o.input_signature ? o.input_signature : Py_None,
                      o.autograph ? Py_True : Py_False, o.reduce_retracing ? Py_True : Py_False);
    r = options ? PyCFunction_New(&decorate_def, options) : NULL;
    Py_XDECREF(options);
  } else {
    r = function_create(tf_state(), a[0], NULL, o.input_signature, o.autograph, o.reduce_retracing);
  }
  Py_XDECREF(o.input_signature);
  return r;
}

/* ---- tf.print -------------------------------------------------------------------------------- */

/* Whether output_stream names standard error: sys.stderr, sys.__stderr__ or a name with
 * "stderr" in it (TensorFlow's tf.compat.v1.logging streams are not supported). */
static int
stream_is_stderr(PyObject *stream)
{
  if (!stream || stream == Py_None)
    return 0;
  if (stream == PySys_GetObject("stderr") || stream == PySys_GetObject("__stderr__"))
    return 1;
  if (stream == PySys_GetObject("stdout") || stream == PySys_GetObject("__stdout__"))
    return 0;
  PyObject *r = PyUnicode_Check(stream) ? Py_NewRef(stream) : PyObject_Repr(stream);
  if (!r)
    return -1;
  const char *text = PyUnicode_AsUTF8(r);
  int is = text ? strstr(text, "stderr") != NULL : -1;
  Py_DECREF(r);
  return is;
}

/* A string option: its UTF-8, or `dflt` when not given or None. */
static bool
str_arg(PyObject *v, const char *dflt, const char **out)
{
  *out = dflt;
  if (!v || v == Py_None)
    return true;
  if (!PyUnicode_Check(v)) {
    PyErr_SetString(PyExc_TypeError, "tf.print's sep and end must be strings");
    return false;
  }
  *out = PyUnicode_AsUTF8(v);
  return *out != NULL;
}

/* tf.print while tracing: a StringFormat and a PrintV2 node. */
static bool
print_in_graph(TfState *st, TrGraph *g, const TrPrintArg *pargs, int n, const char *sep,
               const char *end, bool to_stderr, int summarize)
{
  GError *error = NULL;
  if (!to_stderr && summarize == 3) {
    if (tr_graph_add_tf_print(g, pargs, n, sep, end, &error))
      return true;
    tf_raise_any(st, error);
    return false;
  }
  /* To standard error, or with another summarize: the same template and PrintV2 built here. */
  GString *tpl = g_string_new(NULL);
  TrOutput *ins = g_new(TrOutput, n > 0 ? n : 1);
  int n_ins = 0;
  for (int i = 0; i < n; i++) {
    if (i > 0)
      g_string_append(tpl, sep);
    if (pargs[i].text) {
      g_string_append(tpl, pargs[i].text);
    } else {
      g_string_append(tpl, "{}");
      ins[n_ins++] = pargs[i].tensor;
    }
  }
  TrNode *fmt = tr_graph_add_string_format(g, tpl->str, ins, n_ins, summarize, NULL, &error);
  TrNode *print =
      fmt ? tr_graph_add_print(g, tr_node_output(fmt, 0), end, to_stderr, NULL, &error) : NULL;
  g_string_free(tpl, TRUE);
  g_free(ins);
  if (!print) {
    tf_raise_any(st, error);
    return false;
  }
  return true;
}

static PyObject *
tf_print(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"output_stream", "summarize", "sep", "end", "name", NULL};
  PyObject *kw[G_N_ELEMENTS(names) - 1];
  /* *inputs are the positional arguments; the options are keyword-only. */
  if (!tf_parse_args("print", args + nargs, 0, kwnames, names, 0, kw))
    return NULL;
  TfState *st = tf_state();
  int summarize = 3;
  if (kw[1] && kw[1] != Py_None) {
    long v = PyLong_AsLong(kw[1]);
    if (v == -1 && PyErr_Occurred())
      return NULL;
    summarize = v < 0 ? -1 : (int)MIN(v, G_MAXINT);
  }
  const char *sep, *end;
  int to_stderr = stream_is_stderr(kw[0]);
  if (!str_arg(kw[2], " ", &sep) || !str_arg(kw[3], "\n", &end) || to_stderr < 0)
    return NULL;
  TfTrace *tr = tf_trace(st);
  int n = (int)nargs;
  GPtrArray *texts = g_ptr_array_new_with_free_func(g_free);
  TrPrintArg *pargs = g_new0(TrPrintArg, n > 0 ? n : 1);
  TfOperand *ops = g_new0(TfOperand, n > 0 ? n : 1);
  int n_ops = 0;
  PyObject *result = NULL;
  for (int i = 0; i < n; i++) {
    PyObject *v = args[i];
    if (tf_is_tensor(st, v) || tf_is_variable(st, v)) {
      if (!tf_operand(st, v, TR_DTYPE_INVALID, true, &ops[n_ops]))
        goto out;
      TfOperand *o = &ops[n_ops++];
      if (tr) {
        pargs[i].tensor = o->out;
      } else {
        char *t = tr_format_print_tensor(o->value, summarize);
        g_ptr_array_add(texts, t);
        pargs[i].text = t;
      }
    } else {
      PyObject *s = PyObject_Str(v);
      const char *text = s ? PyUnicode_AsUTF8(s) : NULL;
      if (!text) {
        Py_XDECREF(s);
        goto out;
      }
      char *t = g_strdup(text);
      Py_DECREF(s);
      g_ptr_array_add(texts, t);
      pargs[i].text = t;
    }
  }
  if (tr) {
    if (!print_in_graph(st, tr->graph, pargs, n, sep, end, to_stderr, summarize))
      goto out;
  } else {
    GString *s = g_string_new(NULL);
    for (int i = 0; i < n; i++) {
      if (i > 0)
        g_string_append(s, sep);
      g_string_append(s, pargs[i].text);
    }
    g_string_append(s, end);
    bool ok = write_stream(to_stderr, s->str, s->len);
    if (ok)
      emit_print(st, st->eager_fn, s->str, s->len);
    g_string_free(s, TRUE);
    if (!ok)
      goto out;
  }
  result = Py_NewRef(Py_None);
out:
  tf_operands_clear(ops, n_ops);
  g_free(ops);
  g_free(pargs);
  g_ptr_array_unref(texts);
  return result;
}

/* ---- tf.init_scope --------------------------------------------------------------------------- */

/* `with tf.init_scope():` runs its block eagerly, outside the graph being traced. */
typedef struct {
  PyObject ob_base; /* PyObject_HEAD */
  TfTrace *saved;   /* the trace suspended by __enter__ */
  bool entered;     /* between __enter__ and __exit__ */
} InitScope;

static PyObject *
init_scope_enter(PyObject *self, PyObject *unused)
{
  InitScope *s = (InitScope *)self;
  TfState *st = tf_state();
  if (s->entered) {
    PyErr_SetString(PyExc_RuntimeError, "this tf.init_scope is already entered");
    return NULL;
  }
  s->saved = st->trace;
  s->entered = true;
  st->trace = NULL;
  return Py_NewRef(self);
}

static PyObject *
init_scope_exit(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  InitScope *s = (InitScope *)self;
  if (s->entered) {
    tf_state()->trace = s->saved;
    s->entered = false;
  }
  Py_RETURN_FALSE;
}

static void
init_scope_dealloc(PyObject *self)
{
  PyTypeObject *type = Py_TYPE(self);
  PyObject_Free(self);
  Py_DECREF(type);
}

static PyMethodDef init_scope_methods[] = {
    {"__enter__", init_scope_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)(void (*)(void))init_scope_exit, METH_FASTCALL, NULL},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot init_scope_slots[] = {
    {Py_tp_dealloc, init_scope_dealloc},
    {Py_tp_methods, init_scope_methods},
    {0, NULL},
};

static PyType_Spec init_scope_spec = {
    .name = "tensorflow.init_scope",
    .basicsize = sizeof(InitScope),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = init_scope_slots,
};

static PyObject *
tf_init_scope(PyObject *module, PyObject *unused)
{
  InitScope *s = PyObject_New(InitScope, tf_state()->InitScope);
  if (!s)
    return NULL;
  s->saved = NULL;
  s->entered = false;
  return (PyObject *)s;
}

/* ---- tf.config ------------------------------------------------------------------------------- */

static PyObject *
config_run_functions_eagerly(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames)
{
  static const char *const names[] = {"run_eagerly", NULL};
  PyObject *a[1];
  if (!tf_parse_args("run_functions_eagerly", args, nargs, kwnames, names, 1, a))
    return NULL;
  int b = PyObject_IsTrue(a[0]);
  if (b < 0)
    return NULL;
  tr_fn_registry_set_run_eagerly(tf_state()->registry, b);
  Py_RETURN_NONE;
}

static PyObject *
config_functions_run_eagerly(PyObject *module, PyObject *unused)
{
  return PyBool_FromLong(tr_fn_registry_get_run_eagerly(tf_state()->registry));
}

static PyMethodDef config_functions[] = {
    {"run_functions_eagerly", (PyCFunction)(void (*)(void))config_run_functions_eagerly,
     METH_FASTCALL | METH_KEYWORDS,
     "run_functions_eagerly(run_eagerly)\n--\n\n"
     "Enables or disables running every tf.function's Python body directly."},
    {"functions_run_eagerly", config_functions_run_eagerly, METH_NOARGS,
     "functions_run_eagerly()\n--\n\nWhether tf.functions run eagerly."},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef module_functions[] = {
    {"function", (PyCFunction)(void (*)(void))tf_function, METH_FASTCALL | METH_KEYWORDS,
     "function(func=None, input_signature=None, autograph=True, jit_compile=None, "
     "reduce_retracing=False)\n--\n\n"
     "Compiles a function into a callable TensorFlow graph."},
    {"print", (PyCFunction)(void (*)(void))tf_print, METH_FASTCALL | METH_KEYWORDS,
     "print(*inputs, output_stream=sys.stdout, summarize=3, sep=' ', end='\\n')\n--\n\n"
     "Prints tensors; inside a tf.function it is an op that prints on every execution."},
    {"init_scope", tf_init_scope, METH_NOARGS,
     "init_scope()\n--\n\n"
     "A context manager that runs its block eagerly, outside the graph being traced."},
    {NULL, NULL, 0, NULL},
};

/* ---- the part -------------------------------------------------------------------------------- */

/* Runs py/function.py into st->py_support, with tf.Variable bound there, and exports its
 * tf.Module. */
static int
run_support_source(PyObject *module, TfState *st)
{
  st->py_support = PyDict_New();
  if (!st->py_support)
    return -1;
  PyObject *builtins = PyImport_ImportModule("builtins"); /* owned */
  if (!builtins)
    return -1;
  int r = PyDict_SetItemString(st->py_support, "__builtins__", builtins);
  Py_DECREF(builtins);
  PyObject *name = PyUnicode_FromString("tensorflow"); /* owned */
  if (r < 0 || !name || PyDict_SetItemString(st->py_support, "__name__", name) < 0 ||
      PyDict_SetItemString(st->py_support, "Variable", (PyObject *)st->Variable) < 0) {
    Py_XDECREF(name);
    return -1;
  }
  Py_DECREF(name);
  PyObject *code = tf_py_code(&tf_function_py); /* owned */
  if (!code)
    return -1;
  PyObject *done = PyEval_EvalCode(code, st->py_support, st->py_support);
  Py_DECREF(code);
  if (!done)
    return -1;
  Py_DECREF(done);
  PyObject *module_class = PyDict_GetItemString(st->py_support, "Module"); /* borrowed */
  if (!module_class) {
    PyErr_SetString(PyExc_RuntimeError, "tensorflow's function.py defines no Module");
    return -1;
  }
  return PyModule_AddObjectRef(module, "Module", module_class);
}

static int
add_type(PyObject *module, PyType_Spec *spec, PyTypeObject **out, const char *export_name)
{
  *out = (PyTypeObject *)PyType_FromModuleAndSpec(module, spec, NULL);
  if (!*out)
    return -1;
  return export_name ? PyModule_AddObjectRef(module, export_name, (PyObject *)*out) : 0;
}

int
tf_function_init(PyObject *module, TfState *st)
{
  if (add_type(module, &spec_spec, &st->TensorSpec, "TensorSpec") < 0 ||
      add_type(module, &graph_spec, &st->Graph, NULL) < 0 ||
      add_type(module, &operation_spec, &st->Operation, "Operation") < 0 ||
      add_type(module, &function_spec, &st->Function, NULL) < 0 ||
      add_type(module, &concrete_spec, &st->ConcreteFunction, NULL) < 0 ||
      add_type(module, &init_scope_spec, &st->InitScope, NULL) < 0)
    return -1;
  if (PyModule_AddFunctions(module, module_functions) < 0 ||
      PyModule_AddFunctions(st->mod_config, config_functions) < 0)
    return -1;
  if (run_support_source(module, st) < 0)
    return -1;
  return 0;
}

void
tf_function_clear(TfState *st)
{
  /* A host's bus may outlive the module: the subscription must not call into a freed state. */
  if (st->warning_subscription && st->bus)
    tr_event_bus_unsubscribe(st->bus, st->warning_subscription);
  st->warning_subscription = 0;
  Py_CLEAR(st->py_support);
  Py_CLEAR(st->TensorSpec);
  Py_CLEAR(st->Graph);
  Py_CLEAR(st->Operation);
  Py_CLEAR(st->Function);
  Py_CLEAR(st->ConcreteFunction);
  Py_CLEAR(st->InitScope);
}
