/* tf-keras.c — tf.keras: the module objects, and running py/keras.py into them on first use.
 *
 * Keras is written in Python (py/keras.py, compiled into the extension as a string by
 * py/embed.py): its layers are tf.Module subclasses and its optimizers make tf.Variables, so it
 * needs the finished `tensorflow` module, which does not exist yet while tf_keras_init() runs.
 * So `tensorflow.keras` and its submodules (tensorflow.keras.layers, .optimizers, ...) are made
 * here as empty modules, registered in sys.modules and as attributes (so `import
 * tensorflow.keras.layers` and `from tensorflow.keras import layers` find them), each with a
 * module `__getattr__` (PEP 562): the first lookup of a name none of them has yet runs keras.py
 * in the namespace of tensorflow.keras, which fills the submodules; its own `import tensorflow`
 * then finds the finished module. Programs that never touch Keras never compile it.
 */
#include "keras-py.h"
#include "keras_training-py.h"
#include "tf-private.h"

/* The Python files of Keras, run in this order in tensorflow.keras's namespace: keras.py (layers,
 * initializers, optimizers), then keras_training.py (models, the functional API, losses,
 * metrics, callbacks and the training loop), which builds on what the first defined. Each
 * name is what its code objects carry and its entry in linecache (tracebacks show its lines). */
static const TfPyCode *const keras_files[] = {&tf_keras_py, &tf_keras_training_py};

/* The submodules, filled by keras.py. */
static const struct {
  const char *name, *doc;
} submodules[] = {
    {"activations", "Built-in activation functions."},
    {"initializers", "Weight initializers."},
    {"layers", "Keras layers."},
    {"optimizers", "Keras optimizers."},
    {"models", "Keras models."},
    {"backend", "Keras backend utilities."},
    {"losses", "Keras loss functions."},
    {"metrics", "Keras metrics."},
    {"callbacks", "Keras callbacks: hooks into fit, evaluate and predict."},
    {"utils", "Keras utilities."},
};

/* Puts a Keras file's text in linecache so that tracebacks through Keras show source lines.
 * Best effort: a failure only loses those lines. */
static void
register_source(PyObject *source, const char *file)
{
  PyObject *linecache = PyImport_ImportModule("linecache");
  PyObject *cache = linecache ? PyObject_GetAttrString(linecache, "cache") : NULL;
  PyObject *lines = cache ? PyUnicode_Splitlines(source, 1) : NULL;
  PyObject *entry =
      lines ? Py_BuildValue("(nOOs)", PyUnicode_GET_LENGTH(source), Py_None, lines, file) : NULL;
  if (!entry || PyObject_SetItem(cache, PyTuple_GET_ITEM(entry, 3), entry) < 0)
    PyErr_Clear();
  Py_XDECREF(entry);
  Py_XDECREF(lines);
  Py_XDECREF(cache);
  Py_XDECREF(linecache);
}

/* Runs one Keras file in `globals`. False with the exception set. */
static bool
run_file(PyObject *globals, const TfPyCode *file)
{
  PyObject *result = NULL;
  PyObject *source = PyUnicode_FromString(file->text); /* owned */
  PyObject *code = source ? tf_py_code(file) : NULL;   /* owned */
  if (code) {
    register_source(source, file->file);
    result = PyEval_EvalCode(code, globals, globals);
  }
  Py_XDECREF(code);
  Py_XDECREF(source);
  if (!result)
    return false;
  Py_DECREF(result);
  return true;
}

/* Runs the Keras files in tensorflow.keras's namespace. False with the exception set; a later
 * lookup then tries again. */
static bool
keras_load(TfState *st)
{
  /* Set first: Keras reading its own modules while it runs must not start it again. */
  st->keras_loaded = true;
  PyObject *globals = PyModule_GetDict(st->keras); /* borrowed */
  bool ok = PyDict_SetItemString(globals, "__builtins__", PyEval_GetBuiltins()) == 0;
  for (size_t i = 0; ok && i < G_N_ELEMENTS(keras_files); i++)
    ok = run_file(globals, keras_files[i]);
  if (!ok)
    st->keras_loaded = false;
  return ok;
}

static bool
is_dunder(PyObject *name)
{
  Py_ssize_t n = PyUnicode_GET_LENGTH(name);
  return n > 4 && PyUnicode_READ_CHAR(name, 0) == '_' && PyUnicode_READ_CHAR(name, 1) == '_' &&
         PyUnicode_READ_CHAR(name, n - 2) == '_' && PyUnicode_READ_CHAR(name, n - 1) == '_';
}

/* A Keras module's __getattr__ (PEP 562: called when `name` is not in its dict). The first
 * lookup of a public name loads Keras; dunder names (probes by the import system and tools:
 * __path__, __wrapped__) never do. */
static PyObject *
keras_getattr(PyObject *module, PyObject *name)
{
  TfState *st = tf_state();
  if (PyUnicode_Check(name) && !st->keras_loaded && !is_dunder(name)) {
    if (!keras_load(st))
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

/* dir() of a Keras module: its names once Keras is loaded. */
static PyObject *
keras_dir(PyObject *module, PyObject *unused)
{
  TfState *st = tf_state();
  if (!st->keras_loaded && !keras_load(st))
    return NULL;
  PyObject *names = PyDict_Keys(PyModule_GetDict(module));
  if (names && PyList_Sort(names) < 0)
    Py_CLEAR(names);
  return names;
}

static PyMethodDef getattr_def = {"__getattr__", keras_getattr, METH_O,
                                  PyDoc_STR("Loads Keras on the first lookup.")};
static PyMethodDef dir_def = {"__dir__", keras_dir, METH_NOARGS,
                              PyDoc_STR("The names the module defines, Keras loaded.")};

/* A lazily filled module `dotted`, registered in sys.modules and set as `attr` of `parent`.
 * Returns it (a new reference), or NULL. */
static PyObject *
lazy_module(PyObject *parent, const char *dotted, const char *attr, const char *doc)
{
  PyObject *module = PyModule_New(dotted);
  if (!module)
    return NULL;
  /* The functions hold the module as `self`: a cycle through its dict, as modules live on. */
  PyObject *getattr = PyCFunction_New(&getattr_def, module);
  PyObject *dir = PyCFunction_New(&dir_def, module);
  if (!getattr || !dir || PyModule_AddObjectRef(module, "__getattr__", getattr) < 0 ||
      PyModule_AddObjectRef(module, "__dir__", dir) < 0 ||
      PyModule_AddStringConstant(module, "__doc__", doc) < 0 ||
      PyDict_SetItemString(PyImport_GetModuleDict(), dotted, module) < 0 ||
      PyModule_AddObjectRef(parent, attr, module) < 0)
    Py_CLEAR(module);
  Py_XDECREF(getattr);
  Py_XDECREF(dir);
  return module;
}

/* `import keras` after `import tensorflow`: TensorFlow 2.15's guides import Keras both ways and
 * both name Keras 2.15, so `keras` and `keras.<submodule>` are entered in sys.modules as the
 * same module objects, unless a `keras` is already imported. */
static int
alias_keras(PyObject *keras)
{
  PyObject *modules = PyImport_GetModuleDict();                /* borrowed */
  PyObject *existing = PyDict_GetItemString(modules, "keras"); /* borrowed */
  if (existing)
    return 0;
  if (PyDict_SetItemString(modules, "keras", keras) < 0)
    return -1;
  for (size_t i = 0; i < G_N_ELEMENTS(submodules); i++) {
    PyObject *sub = PyObject_GetAttrString(keras, submodules[i].name); /* new reference */
    g_autofree char *dotted = g_strconcat("keras.", submodules[i].name, NULL);
    int failed = !sub || PyDict_SetItemString(modules, dotted, sub) < 0;
    Py_XDECREF(sub);
    if (failed)
      return -1;
  }
  return 0;
}

int
tf_keras_init(PyObject *module, TfState *st)
{
  st->keras_loaded = false;
  st->keras = lazy_module(module, "tensorflow.keras", "keras",
                          "Keras: layers (Dense, Conv2D, Sequential) and optimizers (SGD, Adam), "
                          "loaded on first use.");
  if (!st->keras)
    return -1;
  for (size_t i = 0; i < G_N_ELEMENTS(submodules); i++) {
    g_autofree char *dotted = g_strconcat("tensorflow.keras.", submodules[i].name, NULL);
    PyObject *sub = lazy_module(st->keras, dotted, submodules[i].name, submodules[i].doc);
    if (!sub)
      return -1;
    Py_DECREF(sub); /* tensorflow.keras's attribute owns it */
  }
  return alias_keras(st->keras);
}

void
tf_keras_clear(TfState *st)
{
  Py_CLEAR(st->keras);
  st->keras_loaded = false;
}
