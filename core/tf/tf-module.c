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
#include <stdlib.h>
#include <string.h>

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
  TfState *st = state_of(tf);
  st->cell = cell;
  Py_CLEAR(st->site_filename); /* a cell run again is the same file under a new number */
}

void
tf_module_name_files(PyObject *tf, PyObject *names)
{
  TfState *st = state_of(tf);
  Py_XINCREF(names);
  Py_XSETREF(st->file_names, names);
}

/* "<cell N>" for cell number `number` (an int), made once and kept. Borrowed; NULL with an
 * exception set. */
static PyObject *
cell_name(TfState *st, PyObject *number)
{
  if (!st->cell_names && !(st->cell_names = PyDict_New()))
    return NULL;
  PyObject *name = PyDict_GetItemWithError(st->cell_names, number); /* borrowed */
  if (name || PyErr_Occurred())
    return name;
  name = PyUnicode_FromFormat("<cell %S>", number); /* owned */
  if (!name || PyDict_SetItem(st->cell_names, number, name) < 0) {
    Py_XDECREF(name);
    return NULL;
  }
  Py_DECREF(name); /* the dict holds it */
  return name;
}

const char *
tf_event_file_name(TfState *st, PyObject *filename)
{
  PyObject *named = st->file_names && PyDict_Check(st->file_names)
                        ? PyDict_GetItemWithError(st->file_names, filename)
                        : NULL; /* borrowed */
  if (!named && PyErr_Occurred())
    return NULL;
  if (named && PyLong_CheckExact(named))
    named = cell_name(st, named);
  else if (named && !PyUnicode_Check(named))
    named = NULL; /* anything else in the host's map: the file's own name */
  if (!named && PyErr_Occurred())
    return NULL;
  return PyUnicode_AsUTF8(named ? named : filename);
}

/* ---- breakpoints and a debugger's stops ----------------------------------------------------- */

static void
breakpoints_free(gpointer data)
{
  TfBreakpoints *bp = data;
  g_free(bp->lines);
  g_free(bp);
}

static int
compare_ints(gconstpointer a, gconstpointer b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

const TfBreakpoints *
tf_breakpoints_of(TfState *st, const char *filename)
{
  return st->breakpoints && filename ? g_hash_table_lookup(st->breakpoints, filename) : NULL;
}

/* `lines` sorted and without duplicates; *n becomes their count. Transfer full. */
static int *
sorted_lines(const int *lines, size_t *n)
{
  int *out = g_memdup2(lines, *n * sizeof *lines);
  qsort(out, *n, sizeof *out, (int (*)(const void *, const void *))compare_ints);
  size_t kept = 0;
  for (size_t i = 0; i < *n; i++)
    if (kept == 0 || out[kept - 1] != out[i])
      out[kept++] = out[i];
  *n = kept;
  return out;
}

bool
tf_module_set_breakpoints(PyObject *tf, const char *filename, const int *lines, size_t n)
{
  TfState *st = state_of(tf);
  g_return_val_if_fail(n == 0 || (filename != NULL && lines != NULL), false);
  if (!st->breakpoints)
    st->breakpoints = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, breakpoints_free);
  if (n == 0) {
    bool removed = filename ? g_hash_table_remove(st->breakpoints, filename)
                            : g_hash_table_size(st->breakpoints) > 0;
    if (!filename)
      g_hash_table_remove_all(st->breakpoints);
    st->bp_generation += removed;
    return true;
  }
  g_autofree int *sorted = sorted_lines(lines, &n);
  const TfBreakpoints *old = tf_breakpoints_of(st, filename);
  if (old && old->n == n && memcmp(old->lines, sorted, n * sizeof *sorted) == 0)
    return true; /* the same breakpoints again: cached calls need not say so again */
  TfBreakpoints *bp = g_new(TfBreakpoints, 1);
  bp->lines = g_steal_pointer(&sorted);
  bp->n = n;
  bp->generation = ++st->bp_generation;
  g_hash_table_replace(st->breakpoints, g_strdup(filename), bp);
  return true;
}

/* The Function whose Python body runs now, for a debugger's stop: the innermost trace that
 * belongs to a Function (branch and loop bodies do not), else the one running eagerly. */
static void
running_function(TfState *st, TrEvent *ev)
{
  for (TfTrace *t = st->trace; t; t = t->outer) {
    if (t->fn_id) {
      ev->fn_id = (gint64)t->fn_id;
      ev->fn_name = g_strdup(t->fn_name);
      ev->tracing = true;
      return;
    }
  }
  if (st->trace) { /* a trace of no Function (Dataset.map's function) */
    ev->fn_name = g_strdup(st->trace->fn_name);
    ev->tracing = true;
    return;
  }
  if (st->eager_fn) {
    ev->fn_id = (gint64)tr_fn_get_id(st->eager_fn);
    ev->fn_name = g_strdup(tr_fn_get_name(st->eager_fn));
  }
}

void
tf_module_emit_debugger_stopped(PyObject *tf, const char *reason, const char *filename, int line,
                                const char *function, const char *description)
{
  TfState *st = state_of(tf);
  TrEvent *ev = tr_event_new(TR_EVENT_DEBUGGER_STOPPED);
  const char *file = filename;
  PyObject *key = filename ? PyUnicode_FromString(filename) : NULL; /* owned */
  if (key) {
    const char *named = tf_event_file_name(st, key);
    if (named)
      file = named;
  }
  PyErr_Clear(); /* an undecodable name stays as given */
  tr_event_set_site(ev, file, line, st->cell);
  Py_XDECREF(key);
  ev->name = g_strdup(function);
  ev->reason = g_strdup(reason);
  ev->text = g_strdup(description);
  running_function(st, ev);
  if (!st->stopped) /* a step stops again: the pause goes on */
    st->stopped_ns = tr_event_bus_now(st->bus);
  st->stopped = true;
  tr_event_bus_emit(st->bus, ev);
}

void
tf_module_emit_debugger_continued(PyObject *tf)
{
  TfState *st = state_of(tf);
  if (!st->stopped)
    return;
  TrEvent *ev = tr_event_new(TR_EVENT_DEBUGGER_CONTINUED);
  ev->dur_ns = tr_event_bus_now(st->bus) - st->stopped_ns;
  st->stopped = false;
  tr_event_bus_emit(st->bus, ev);
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

/* Where a graph node is made (tr_graph_set_site_func): while a function traces, the running
 * Python line outside the module's own Python files ("<tensorflow/keras.py>": a Keras layer's
 * ops are made at the user's call of it), its file named as events name it ("<cell 3>"). */
static bool
node_site(void *data, const char **file, int *line)
{
  TfState *st = data;
  if (!PyGILState_Check() || !tf_trace(st))
    return false;
  PyFrameObject *frame = (PyFrameObject *)Py_XNewRef(PyEval_GetFrame()); /* owned */
  bool found = false;
  while (frame && !found) {
    PyCodeObject *code = PyFrame_GetCode(frame); /* owned */
    const char *name = PyUnicode_AsUTF8(code->co_filename);
    if (name && !g_str_has_prefix(name, "<tensorflow/")) {
      if (code->co_filename != st->site_filename) { /* a trace makes its nodes in few files */
        const char *named = tf_event_file_name(st, code->co_filename);
        Py_XSETREF(st->site_filename, Py_NewRef(code->co_filename));
        st->site_file = g_intern_string(named ? named : name);
      }
      *file = st->site_file;
      *line = PyFrame_GetLineNumber(frame);
      found = true;
    }
    PyErr_Clear(); /* a file name that cannot be encoded: no site from this frame */
    Py_DECREF(code);
    PyFrameObject *back = found ? NULL : PyFrame_GetBack(frame); /* owned */
    Py_DECREF(frame);
    frame = back;
  }
  Py_XDECREF(frame);
  return found;
}

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
    {tf_numpy_init, tf_numpy_clear},       {tf_debugging_init, tf_debugging_clear},
    {tf_strings_init, tf_strings_clear},
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
  Py_CLEAR(st->cell_names);
  Py_CLEAR(st->site_code);
  Py_CLEAR(st->site_filename);
  g_clear_pointer(&st->breakpoints, g_hash_table_unref);
  return 0;
}

static void
tf_module_free(void *module)
{
  TfState *st = PyModule_GetState(module);
  if (!st)
    return;
  tf_module_clear(module);
  tr_graph_set_site_func(NULL, NULL);
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
  tr_set_cancel_flag(&interrupt_flag);   /* long eager and graph kernels stop on an interrupt */
  tr_graph_set_site_func(node_site, st); /* graph nodes keep the line that made them */
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
