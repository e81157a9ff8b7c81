/* tf-module.c — the `tensorflow` module object: its state, its submodules, the host interface
 * of tf.h, and the interrupt flag.
 *
 * The module uses single-phase initialisation: an interpreter has one, and every part finds its
 * state through PyState_FindModule (tf_state), so types' methods need no module argument. The
 * submodules (tf.math, tf.nn, ...) are plain module objects registered in sys.modules under their
 * dotted names, so `import tensorflow.keras` and `from tensorflow import keras` both work.
 */
#include "tf-private.h"

#include <signal.h>

static struct PyModuleDef tf_module_def;

TfState *
tf_state(void)
{
  PyObject *module = PyState_FindModule(&tf_module_def);
  g_assert(module != NULL);
  return PyModule_GetState(module);
}

static TfState *
state_of(PyObject *module)
{
  g_return_val_if_fail(PyModule_GetDef(module) == &tf_module_def, NULL);
  return PyModule_GetState(module);
}

/* ---- interrupts --------------------------------------------------------------------------- */

static volatile sig_atomic_t interrupt_flag;

void
tf_interrupt_request(void)
{
  interrupt_flag = 1;
}

bool
tf_interrupt_pending(void)
{
  return interrupt_flag != 0;
}

void
tf_interrupt_clear(void)
{
  interrupt_flag = 0;
}

const volatile sig_atomic_t *
tf_interrupt_flag(void)
{
  return &interrupt_flag;
}

/* ---- host interface ------------------------------------------------------------------------ */

TrEventBus *
tf_module_get_event_bus(PyObject *tf)
{
  return state_of(tf)->bus;
}

bool
tf_module_use_event_bus(PyObject *tf, TrEventBus *bus)
{
  TfState *st = state_of(tf);
  if (st->bus == bus)
    return true;
  if (st->functions_created) /* the registry's Functions emit on the old bus */
    return false;
  TrFnRegistry *registry = tr_fn_registry_new(bus);
  tr_fn_registry_set_run_eagerly(registry, tr_fn_registry_get_run_eagerly(st->registry));
  g_clear_pointer(&st->registry, tr_fn_registry_unref);
  g_clear_pointer(&st->bus, tr_event_bus_unref);
  st->bus = tr_event_bus_ref(bus);
  st->registry = registry;
  return true;
}

TrFnRegistry *
tf_module_get_registry(PyObject *tf)
{
  return state_of(tf)->registry;
}

void
tf_module_set_cell(PyObject *tf, gint64 cell)
{
  state_of(tf)->cell = cell;
}

bool
tf_module_name_file(PyObject *tf, const char *filename, const char *name)
{
  TfState *st = state_of(tf);
  if (!st->file_names && !(st->file_names = PyDict_New()))
    return false;
  PyObject *value = PyUnicode_FromString(name); /* owned */
  bool ok = value && PyDict_SetItemString(st->file_names, filename, value) == 0;
  Py_XDECREF(value);
  return ok;
}

gint64
tf_module_get_cell(PyObject *tf)
{
  return state_of(tf)->cell;
}

void
tf_module_print_warnings(PyObject *tf)
{
  state_of(tf)->warnings_subscribed = true;
}

/* ---- the module ------------------------------------------------------------------------------ */

/* The parts, in init order (tf-private.h). */
static const struct {
  int (*init)(PyObject *module, TfState *st);
  void (*clear)(TfState *st);
} parts[] = {
    {tf_dtype_init, tf_dtype_clear},       {tf_tensor_init, tf_tensor_clear},
    {tf_graph_init, tf_graph_clear},       {tf_ops_init, tf_ops_clear},
    {tf_variable_init, tf_variable_clear}, {tf_function_init, tf_function_clear},
    {tf_control_init, tf_control_clear},   {tf_autograph_init, tf_autograph_clear},
    {tf_data_init, tf_data_clear},         {tf_tensorarray_init, tf_tensorarray_clear},
    {tf_gradient_init, tf_gradient_clear}, {tf_keras_init, tf_keras_clear},
};

/* A submodule `tensorflow.NAME`, set as the module's attribute and in sys.modules. Returns it
 * borrowed (the parent module owns it), or NULL. */
static PyObject *
add_submodule(PyObject *module, const char *dotted, const char *attr, const char *doc)
{
  PyObject *sub = PyModule_New(dotted);
  if (!sub)
    return NULL;
  if (doc && PyModule_AddStringConstant(sub, "__doc__", doc) < 0)
    goto fail;
  PyObject *modules = PyImport_GetModuleDict(); /* borrowed */
  if (PyDict_SetItemString(modules, dotted, sub) < 0)
    goto fail;
  if (PyModule_AddObjectRef(module, attr, sub) < 0)
    goto fail;
  Py_DECREF(sub);
  return sub;
fail:
  Py_DECREF(sub);
  return NULL;
}

static int
add_submodules(PyObject *module, TfState *st)
{
  static const struct {
    size_t offset;
    const char *dotted, *attr, *doc;
  } subs[] = {
      {offsetof(TfState, mod_math), "tensorflow.math", "math", "Math operations."},
      {offsetof(TfState, mod_nn), "tensorflow.nn", "nn", "Neural network operations."},
      {offsetof(TfState, mod_random), "tensorflow.random", "random", "Random number ops."},
      {offsetof(TfState, mod_config), "tensorflow.config", "config", "Configuration."},
      {offsetof(TfState, mod_errors), "tensorflow.errors", "errors", "Exception types."},
      {offsetof(TfState, mod_dtypes), "tensorflow.dtypes", "dtypes", "Data types."},
      {offsetof(TfState, mod_autograph), "tensorflow.autograph", "autograph",
       "Conversion of plain Python into TensorFlow graph code."},
      {offsetof(TfState, mod_linalg), "tensorflow.linalg", "linalg", "Linear algebra."},
      {offsetof(TfState, mod_experimental), "tensorflow.experimental", "experimental",
       "Experimental APIs."},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(subs); i++) {
    PyObject *sub = add_submodule(module, subs[i].dotted, subs[i].attr, subs[i].doc);
    if (!sub)
      return -1;
    *(PyObject **)((char *)st + subs[i].offset) = sub;
  }
  st->mod_autograph_experimental =
      add_submodule(st->mod_autograph, "tensorflow.autograph.experimental", "experimental", NULL);
  return st->mod_autograph_experimental ? 0 : -1;
}

static int
tf_module_traverse(PyObject *module, visitproc visit, void *arg)
{
  TfState *st = PyModule_GetState(module);
  if (!st)
    return 0;
#define VISIT_FIELD(field) Py_VISIT(st->field);
  TF_STATE_OBJECTS(VISIT_FIELD)
#undef VISIT_FIELD
  for (int d = 0; d < TR_N_DTYPES; d++)
    Py_VISIT(st->dtypes[d]);
  for (int i = 0; i < TF_N_ERRORS; i++)
    Py_VISIT(st->errors[i]);
  return 0;
}

static int
tf_module_clear(PyObject *module)
{
  TfState *st = PyModule_GetState(module);
  if (!st)
    return 0;
  for (size_t i = G_N_ELEMENTS(parts); i-- > 0;)
    parts[i].clear(st);
  Py_CLEAR(st->file_names);
  return 0;
}

static void
tf_module_free(void *module)
{
  TfState *st = PyModule_GetState(module);
  if (!st)
    return;
  tf_module_clear(module);
  g_clear_pointer(&st->registry, tr_fn_registry_unref);
  g_clear_pointer(&st->bus, tr_event_bus_unref);
}

static struct PyModuleDef tf_module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "tensorflow",
    .m_doc = "Trellis's TensorFlow: tensors, tf.function and the rest, over Trellis's core.",
    .m_size = sizeof(TfState),
    .m_traverse = tf_module_traverse,
    .m_clear = tf_module_clear,
    .m_free = tf_module_free,
};

PyMODINIT_FUNC
PyInit_tensorflow(void)
{
  PyObject *module = PyModule_Create(&tf_module_def);
  if (!module)
    return NULL;
  TfState *st = PyModule_GetState(module);
  memset(st, 0, sizeof *st);
  st->module = module;
  st->bus = tr_event_bus_new();
  /* Nobody reads a history here: a host that wants one brings its own bus. Keeping every
   * event would make each cached call allocate and the process grow without bound. */
  tr_event_bus_set_history_limit(st->bus, 0);
  st->registry = tr_fn_registry_new(st->bus);
  if (PyModule_AddStringConstant(module, "__version__", "2.15.0") < 0 ||
      add_submodules(module, st) < 0)
    goto fail;
  for (size_t i = 0; i < G_N_ELEMENTS(parts); i++)
    if (parts[i].init(module, st) < 0)
      goto fail;
  return module;
fail:
  Py_DECREF(module);
  return NULL;
}
