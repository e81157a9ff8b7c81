/* tf-strings.c — tf.strings, tf.ragged and tf.sparse: their modules, and running py/ragged.py,
 * py/sparse.py and py/strings.py into them.
 *
 * RaggedTensor and SparseTensor are Python classes over ordinary tensors (values and
 * row_splits; indices, values and dense_shape), as in TensorFlow, so they are written in Python.
 * What must run as graph ops, eagerly or in a trace, are core/tensor's string kernels
 * (ops-strings.c): the Python files reach them through `_op`, a function of their private
 * namespace that converts its arguments with tf_operand() and applies an op by its TensorFlow
 * type through tf_apply(), the path every op of the module takes. The files run when the module
 * is imported, in one namespace (the later files use the earlier ones' classes), with `tf`
 * bound to the module being initialised: they only read its attributes when called.
 */
#include "ragged-py.h"
#include "sparse-py.h"
#include "strings-py.h"
#include "tf-private.h"

static const TfPyCode *const files[] = {&tf_ragged_py, &tf_sparse_py, &tf_strings_py};

/* _op(type, inputs, hints=None, *, mode=0, flag=False, axes=None, keepdims=False, dtype=None,
 * name=None): applies the op of TensorFlow type `type` to `inputs` (a tuple; hints, a tuple of
 * DTypes or None, the dtypes Python values are converted to). mode and flag are attrs.str_mode
 * and str_flag, axes and keepdims a reduction's, dtype attrs.dtype. */
static PyObject *
apply_op(PyObject *self, PyObject *args, PyObject *kwargs)
{
  (void)self;
  static char *kwlist[] = {"type", "inputs",   "hints", "mode", "flag",
                           "axes", "keepdims", "dtype", "name", NULL};
  const char *type = NULL, *name = NULL;
  PyObject *inputs = NULL, *hints = Py_None, *axes = Py_None, *dtype = Py_None;
  int mode = 0, flag = 0, keepdims = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "sO!|O$ipOpOz", kwlist, &type, &PyTuple_Type,
                                   &inputs, &hints, &mode, &flag, &axes, &keepdims, &dtype, &name))
    return NULL;
  int op = tr_op_lookup(type);
  Py_ssize_t n = PyTuple_GET_SIZE(inputs);
  if (op < 0 || n > 8) {
    PyErr_Format(PyExc_ValueError, "no op %s of %zd inputs", type, n);
    return NULL;
  }
  TfState *st = tf_state();
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.str_mode = mode;
  attrs.str_flag = flag;
  attrs.keepdims = keepdims;
  if (!tf_dtype_arg(st, dtype, TR_DTYPE_INVALID, &attrs.dtype))
    return NULL;
  if (axes != Py_None) {
    PyObject *seq = PySequence_Fast(axes, "axes must be a sequence");
    if (!seq)
      return NULL;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(seq);
    attrs.n_axes = 0;
    for (Py_ssize_t i = 0; i < k && i < TR_MAX_RANK; i++) {
      attrs.axes[attrs.n_axes++] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
    }
    Py_DECREF(seq);
    if (PyErr_Occurred())
      return NULL;
  }
  TfOperand in[8];
  int made = 0;
  PyObject *result = NULL;
  for (; made < n; made++) {
    TrDType hint = TR_DTYPE_INVALID;
    PyObject *h = PyTuple_Check(hints) && made < PyTuple_GET_SIZE(hints)
                      ? PyTuple_GET_ITEM(hints, made)
                      : Py_None; /* borrowed */
    bool ok = tf_dtype_arg(st, h, TR_DTYPE_INVALID, &hint) &&
              tf_operand(st, PyTuple_GET_ITEM(inputs, made), hint, true, &in[made]);
    if (!ok)
      goto out;
  }
  result = tf_apply(st, (TrOpId)op, in, (int)n, &attrs, name);
out:
  tf_operands_clear(in, made);
  return result;
}

static PyMethodDef op_def = {"_op", (PyCFunction)(void (*)(void))apply_op,
                             METH_VARARGS | METH_KEYWORDS,
                             PyDoc_STR("Applies a core/tensor op by its TensorFlow type.")};

/* A submodule `tensorflow.NAME`, in sys.modules and as the module's attribute. Borrowed (the
 * module's attribute owns it), or NULL. */
static PyObject *
submodule(PyObject *module, const char *attr, const char *doc)
{
  g_autofree char *dotted = g_strconcat("tensorflow.", attr, NULL);
  PyObject *sub = PyModule_New(dotted); /* owned */
  int r = sub && PyModule_AddStringConstant(sub, "__doc__", doc) == 0 &&
                  PyDict_SetItemString(PyImport_GetModuleDict(), dotted, sub) == 0 &&
                  PyModule_AddObjectRef(module, attr, sub) == 0
              ? 0
              : -1;
  Py_XDECREF(sub);
  return r == 0 ? sub : NULL;
}

int
tf_strings_init(PyObject *module, TfState *st)
{
  (void)st;
  PyObject *strings = submodule(module, "strings", "Operations for working with string Tensors.");
  PyObject *ragged = submodule(module, "ragged", "Ragged Tensors.");
  PyObject *sparse = submodule(module, "sparse", "Sparse Tensor Representation.");
  if (!strings || !ragged || !sparse)
    return -1;
  PyObject *ns = PyDict_New();                            /* owned */
  PyObject *builtins = PyImport_ImportModule("builtins"); /* owned */
  PyObject *op = PyCFunction_New(&op_def, NULL);          /* owned */
  PyObject *name = PyModule_GetNameObject(ragged);        /* owned */
  int r = ns && builtins && op && PyDict_SetItemString(ns, "__builtins__", builtins) == 0 && name &&
                  PyDict_SetItemString(ns, "__name__", name) == 0 &&
                  PyDict_SetItemString(ns, "tf", module) == 0 &&
                  PyDict_SetItemString(ns, "_op", op) == 0 &&
                  PyDict_SetItemString(ns, "_strings", strings) == 0 &&
                  PyDict_SetItemString(ns, "_ragged", ragged) == 0 &&
                  PyDict_SetItemString(ns, "_sparse", sparse) == 0
              ? 0
              : -1;
  Py_XDECREF(builtins);
  Py_XDECREF(op);
  Py_XDECREF(name);
  for (size_t i = 0; r == 0 && i < G_N_ELEMENTS(files); i++) {
    PyObject *code = tf_py_code(files[i]);                        /* owned */
    PyObject *done = code ? PyEval_EvalCode(code, ns, ns) : NULL; /* owned */
    r = done ? 0 : -1;
    Py_XDECREF(code);
    Py_XDECREF(done);
  }
  Py_XDECREF(ns);
  return r;
}

void
tf_strings_clear(TfState *st)
{
  (void)st;
}
