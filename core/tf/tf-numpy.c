/* tf-numpy.c — tf.experimental.numpy (`tnp`): the module object, and running py/tnp.py into it
 * on first use.
 *
 * TensorFlow's NumPy API is written in Python (py/tnp.py, compiled into the extension as a string
 * by py/embed.py) over the module's own ops, and it imports NumPy, which a program that never
 * touches tnp should not pay for. So `tensorflow.experimental.numpy` is made here as an empty
 * module, registered in sys.modules and as tf.experimental's attribute `numpy` (so `import
 * tensorflow.experimental.numpy as tnp` and `tf.experimental.numpy` both find it), with a module
 * `__getattr__` (PEP 562): the first lookup of a public name runs tnp.py in the module's
 * namespace. The module has a `__file__` once that has started: it is the loaded flag, so no
 * field of the module state is needed.
 */
#include "tf-private.h"
#include "tnp-py.h"

#define TNP_FILE (tf_tnp_py.file)

/* Puts tnp.py's text in linecache so that tracebacks through it show source lines. Best effort:
 * a failure only loses those lines. */
static void
register_source(PyObject *source)
{
  PyObject *linecache = PyImport_ImportModule("linecache");                        /* owned */
  PyObject *cache = linecache ? PyObject_GetAttrString(linecache, "cache") : NULL; /* owned */
  PyObject *lines = cache ? PyUnicode_Splitlines(source, 1) : NULL;                /* owned */
  PyObject *entry =
      lines ? Py_BuildValue("(nOOs)", PyUnicode_GET_LENGTH(source), Py_None, lines, TNP_FILE)
            : NULL; /* owned */
  if (!entry || PyObject_SetItem(cache, PyTuple_GET_ITEM(entry, 3), entry) < 0)
    PyErr_Clear();
  Py_XDECREF(entry);
  Py_XDECREF(lines);
  Py_XDECREF(cache);
  Py_XDECREF(linecache);
}

/* Runs tnp.py in `module`'s namespace. False with the exception set; `__file__` is removed again
 * so that a later lookup tries once more. */
static bool
tnp_load(PyObject *module)
{
  PyObject *globals = PyModule_GetDict(module); /* borrowed */
  /* Set first: tnp.py reading its own module while it runs must not start it again. */
  PyObject *file = PyUnicode_FromString(TNP_FILE); /* owned */
  int set = file ? PyDict_SetItemString(globals, "__file__", file) : -1;
  Py_XDECREF(file);
  if (set < 0)
    return false;
  PyObject *result = NULL;
  PyObject *source = PyUnicode_FromString(tf_tnp_py.text); /* owned */
  PyObject *code = NULL;                                   /* owned */
  if (source && PyDict_SetItemString(globals, "__builtins__", PyEval_GetBuiltins()) == 0)
    code = tf_py_code(&tf_tnp_py);
  if (code) {
    register_source(source);
    result = PyEval_EvalCode(code, globals, globals);
  }
  Py_XDECREF(code);
  Py_XDECREF(source);
  if (result) {
    Py_DECREF(result);
    return true;
  }
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  if (PyDict_DelItemString(globals, "__file__") < 0)
    PyErr_Clear();
  PyErr_Restore(type, value, tb);
  return false;
}

static bool
loaded(PyObject *module)
{
  return PyDict_GetItemString(PyModule_GetDict(module), "__file__") != NULL;
}

static bool
is_dunder(PyObject *name)
{
  Py_ssize_t n = PyUnicode_GET_LENGTH(name);
  return n > 4 && PyUnicode_READ_CHAR(name, 0) == '_' && PyUnicode_READ_CHAR(name, 1) == '_' &&
         PyUnicode_READ_CHAR(name, n - 2) == '_' && PyUnicode_READ_CHAR(name, n - 1) == '_';
}

/* The module's __getattr__ (called when `name` is not in its dict): the first lookup of a public
 * name loads tnp.py; dunder names (probes by the import system: __path__) never do. */
static PyObject *
tnp_getattr(PyObject *module, PyObject *name)
{
  if (PyUnicode_Check(name) && !loaded(module) && !is_dunder(name)) {
    if (!tnp_load(module))
      return NULL;
    PyObject *value = PyDict_GetItemWithError(PyModule_GetDict(module), name); /* borrowed */
    if (value)
      return Py_NewRef(value);
    if (PyErr_Occurred())
      return NULL;
  }
  PyErr_Format(PyExc_AttributeError, "module '%s' has no attribute '%U'", PyModule_GetName(module),
               name);
  return NULL;
}

/* dir() of the module: its names once tnp.py has run. */
static PyObject *
tnp_dir(PyObject *module, PyObject *unused)
{
  (void)unused;
  if (!loaded(module) && !tnp_load(module))
    return NULL;
  PyObject *names = PyDict_Keys(PyModule_GetDict(module)); /* owned, returned */
  if (names && PyList_Sort(names) < 0)
    Py_CLEAR(names);
  return names;
}

static PyMethodDef getattr_def = {"__getattr__", tnp_getattr, METH_O,
                                  PyDoc_STR("Loads TensorFlow NumPy on the first lookup.")};
static PyMethodDef dir_def = {"__dir__", tnp_dir, METH_NOARGS,
                              PyDoc_STR("The names the module defines, TensorFlow NumPy loaded.")};

int
tf_numpy_init(PyObject *module, TfState *st)
{
  (void)module;
  PyObject *tnp = PyModule_New("tensorflow.experimental.numpy"); /* owned */
  if (!tnp)
    return -1;
  /* The functions hold the module as `self`: a cycle through its dict, as modules live on. */
  PyObject *getattr = PyCFunction_New(&getattr_def, tnp); /* owned */
  PyObject *dir = PyCFunction_New(&dir_def, tnp);         /* owned */
  int r = getattr && dir && PyModule_AddObjectRef(tnp, "__getattr__", getattr) == 0 &&
                  PyModule_AddObjectRef(tnp, "__dir__", dir) == 0 &&
                  PyModule_AddStringConstant(tnp, "__doc__",
                                             "tf.experimental.numpy: NumPy API "
                                             "on TensorFlow.") == 0 &&
                  PyDict_SetItemString(PyImport_GetModuleDict(), "tensorflow.experimental.numpy",
                                       tnp) == 0 &&
                  PyModule_AddObjectRef(st->mod_experimental, "numpy", tnp) == 0
              ? 0
              : -1;
  Py_XDECREF(getattr);
  Py_XDECREF(dir);
  Py_DECREF(tnp); /* tf.experimental's attribute and sys.modules own it */
  return r;
}

void
tf_numpy_clear(TfState *st)
{
  (void)st;
}
