/* tf-data.c — tf.data: Dataset and its iterators, eagerly and inside traces.
 *
 * A Dataset object is a variant tensor holding a core/graph TrDataset (tr-dataset.h) plus the
 * structure of its elements: the nesting of tuples and dicts around the flat components that
 * core/graph produces, and the components' dtypes and shapes (the element spec). Outside a
 * trace the tensor is concrete and the dataset can be iterated at once. A Dataset passed to a
 * Function becomes a variant Placeholder (its trace type is its element spec, so datasets of one
 * spec share a trace) fed at call time; an eager dataset a trace uses becomes a Const holding it.
 *
 * Iterators: iter(ds) outside a trace starts a TrIterator, next() advances it. Inside a trace
 * next() adds IteratorGetNext, which advances the iterator each time the graph runs (the guide's
 * good_consume_next); an eager iterator a trace uses is captured and shares its position. A
 * `for` loop over a dataset inside a trace is AutoGraph's: its for_stmt asks
 * tf_dataset_loop_source for a While over (iterator, has_value, components...) fed by
 * MakeIterator and IteratorGetNextAsOptional, so the graph does not grow with the dataset.
 *
 * Dataset.map converts its function with AutoGraph and traces it once into a graph on
 * placeholders of the element spec, as TensorFlow does (a Python print inside runs once), and
 * core/graph runs that graph per element. from_generator calls the generator through core/graph's
 * callbacks while iterating, in eager code and in graph runs alike.
 */
#include "tf-private.h"
#include "tr-dataset.h"

#include <string.h>

/* Argument values that were not passed are NULL; None counts as not passed. */
static inline bool
given(PyObject *v)
{
  return v != NULL && v != Py_None;
}

/* ---- element structures ---------------------------------------------------------------------
 * An element structure is a value like the element with every component replaced by its index
 * in the flat list (a Python int): tuples stay tuples, dicts stay dicts with their keys sorted
 * (as tf.nest sorts them), everything else is a component. */

/* The structure of `v`; its components are appended to the list `leaves`. New reference. */
static PyObject *
structure_flatten(PyObject *v, PyObject *leaves)
{
  if (PyTuple_Check(v) || PyDict_Check(v)) {
    if (Py_EnterRecursiveCall(" while flattening a dataset element"))
      return NULL;
  } else {
    Py_ssize_t index = PyList_GET_SIZE(leaves);
    if (PyList_Append(leaves, v) < 0)
      return NULL;
    return PyLong_FromSsize_t(index);
  }
  PyObject *r = NULL;
  if (PyTuple_Check(v)) {
    Py_ssize_t n = PyTuple_GET_SIZE(v);
    r = PyTuple_New(n);
    for (Py_ssize_t i = 0; r && i < n; i++) {
      PyObject *s = structure_flatten(PyTuple_GET_ITEM(v, i), leaves);
      if (!s)
        Py_CLEAR(r);
      else
        PyTuple_SET_ITEM(r, i, s); /* steals s */
    }
  } else {
    PyObject *keys = PyDict_Keys(v); /* owned */
    if (keys && PyList_Sort(keys) == 0)
      r = PyDict_New();
    for (Py_ssize_t i = 0; r && i < PyList_GET_SIZE(keys); i++) {
      PyObject *key = PyList_GET_ITEM(keys, i);
      PyObject *item = PyDict_GetItemWithError(v, key); /* borrowed */
      PyObject *s = item ? structure_flatten(item, leaves) : NULL;
      if (!s || PyDict_SetItem(r, key, s) < 0)
        Py_CLEAR(r);
      Py_XDECREF(s);
    }
    Py_XDECREF(keys);
  }
  Py_LeaveRecursiveCall();
  return r;
}

/* The components of `v` laid out as `structure` says: v's sequences and mappings must match it;
 * whatever stands at a component's place is appended to `leaves` (so a shape (2, 3) can stand
 * for one component). `what` names v in the TypeError of a mismatch. */
static bool
structure_flatten_up_to(PyObject *structure, PyObject *v, PyObject *leaves, const char *what)
{
  if (PyLong_CheckExact(structure))
    return PyList_Append(leaves, v) == 0;
  if (Py_EnterRecursiveCall(" while flattening a dataset element"))
    return false;
  bool ok = true;
  if (PyTuple_Check(structure)) {
    Py_ssize_t n = PyTuple_GET_SIZE(structure);
    if (!(PyTuple_Check(v) || PyList_Check(v)) || PySequence_Size(v) != n) {
      PyErr_Format(PyExc_TypeError,
                   "%s does not match the element structure: expected a sequence of %zd values, "
                   "got %R",
                   what, n, v);
      ok = false;
    }
    for (Py_ssize_t i = 0; ok && i < n; i++) {
      PyObject *item = PySequence_GetItem(v, i); /* owned */
      ok = item && structure_flatten_up_to(PyTuple_GET_ITEM(structure, i), item, leaves, what);
      Py_XDECREF(item);
    }
  } else {
    Py_ssize_t pos = 0;
    PyObject *key, *sub; /* borrowed */
    while (ok && PyDict_Next(structure, &pos, &key, &sub)) {
      PyObject *item = PyObject_GetItem(v, key); /* owned */
      ok = item && structure_flatten_up_to(sub, item, leaves, what);
      Py_XDECREF(item);
    }
  }
  Py_LeaveRecursiveCall();
  return ok;
}

/* The value of `structure` with component k replaced by items[k] (borrowed). New reference. */
static PyObject *
structure_pack(PyObject *structure, PyObject *const *items)
{
  if (PyLong_CheckExact(structure))
    return Py_NewRef(items[PyLong_AsSsize_t(structure)]);
  if (PyTuple_Check(structure)) {
    Py_ssize_t n = PyTuple_GET_SIZE(structure);
    PyObject *t = PyTuple_New(n);
    for (Py_ssize_t i = 0; t && i < n; i++) {
      PyObject *v = structure_pack(PyTuple_GET_ITEM(structure, i), items);
      if (!v)
        Py_CLEAR(t);
      else
        PyTuple_SET_ITEM(t, i, v); /* steals v */
    }
    return t;
  }
  PyObject *d = PyDict_New();
  Py_ssize_t pos = 0;
  PyObject *key, *sub; /* borrowed */
  while (d && PyDict_Next(structure, &pos, &key, &sub)) {
    PyObject *v = structure_pack(sub, items);
    if (!v || PyDict_SetItem(d, key, v) < 0)
      Py_CLEAR(d);
    Py_XDECREF(v);
  }
  return d;
}

/* ---- Dataset objects ------------------------------------------------------------------------ */

typedef struct {
  PyObject ob_base;    /* PyObject_HEAD */
  PyObject *variant;   /* tf.Tensor holding the TrDataset (concrete), or a symbolic one (owned) */
  PyObject *structure; /* the element structure (owned) */
  int n;               /* components */
  TrDType *dtypes;     /* per component (owned) */
  TrShape *shapes;     /* per component, possibly partial (owned) */
  const char *kind;    /* the class name TensorFlow shows: "_TensorSliceDataset" (static) */
  TrDataset *tmpl;     /* a template made inside a flat_map/interleave function (owned; `variant`
                        * is then None), or NULL */
  PyObject *inner;     /* NULL, or per component None or a Dataset object whose spec is that of
                        * the datasets the (variant) component holds (owned tuple) */
} TfDataset;

typedef struct {
  PyObject ob_base;  /* PyObject_HEAD */
  PyObject *dataset; /* the Dataset iterated (owned): its structure and spec */
  PyObject *handle;  /* tf.Tensor holding the TrIterator (concrete or symbolic), or NULL until a
                      * traced iterator is first used (owned) */
  bool numpy;        /* as_numpy_iterator(): components come out as NumPy values */
  int traced_nexts;  /* IteratorGetNext nodes made by next() while tracing */
} TfIterator;

/* Python iteration that is not AutoGraph's `for` (list(ds), a comprehension) would add
 * IteratorGetNext nodes forever inside a trace: it stops with an error after this many. */
enum { MAX_TRACED_NEXTS = 10000 };

bool
tf_is_dataset(TfState *st, PyObject *v)
{
  return st->Dataset && Py_IS_TYPE(v, st->Dataset);
}

bool
tf_is_dataset_iterator(TfState *st, PyObject *v)
{
  return st->Iterator && Py_IS_TYPE(v, st->Iterator);
}

static void
dataset_dealloc(PyObject *self)
{
  TfDataset *d = (TfDataset *)self;
  PyTypeObject *type = Py_TYPE(self);
  Py_XDECREF(d->variant);
  Py_XDECREF(d->structure);
  Py_XDECREF(d->inner);
  if (d->tmpl)
    tr_dataset_unref(d->tmpl);
  g_free(d->dtypes);
  g_free(d->shapes);
  type->tp_free(self);
  Py_DECREF(type);
}

/* A Dataset object for `variant` and `structure` (both stolen, even on failure) with the given
 * spec (copied). */
static PyObject *
dataset_new(TfState *st, PyObject *variant, PyObject *structure, int n, const TrDType *dtypes,
            const TrShape *shapes, const char *kind)
{
  TfDataset *d = PyObject_New(TfDataset, st->Dataset);
  if (!d) {
    Py_DECREF(variant);
    Py_DECREF(structure);
    return NULL;
  }
  d->variant = variant;
  d->structure = structure;
  d->n = n;
  d->dtypes = g_memdup2(dtypes, sizeof(TrDType) * (size_t)MAX(n, 1));
  d->shapes = g_memdup2(shapes, sizeof(TrShape) * (size_t)MAX(n, 1));
  d->kind = kind;
  d->tmpl = NULL;
  d->inner = NULL;
  return (PyObject *)d;
}

/* A Dataset object for the dataset `ds` (transfer full) laid out as `structure` (stolen), its
 * dataset components described by `inner` (stolen, may be NULL). An eager dataset becomes a
 * variant tensor; a template stays one. */
static PyObject *
dataset_wrap_inner(TfState *st, TrDataset *ds, PyObject *structure, const char *kind,
                   PyObject *inner)
{
  int n = tr_dataset_n_components(ds);
  g_autofree TrDType *dtypes = g_new(TrDType, MAX(n, 1));
  g_autofree TrShape *shapes = g_new(TrShape, MAX(n, 1));
  for (int i = 0; i < n; i++) {
    dtypes[i] = tr_dataset_dtype(ds, i);
    shapes[i] = *tr_dataset_shape(ds, i);
  }
  bool templ = tr_dataset_is_template(ds);
  PyObject *variant =
      templ ? Py_NewRef(Py_None) : tf_tensor_new(st, tr_tensor_new_variant((TrVariant *)ds));
  if (!templ)
    tr_dataset_unref(ds);
  if (!variant) {
    Py_DECREF(structure);
    Py_XDECREF(inner);
    return NULL;
  }
  TfDataset *d = (TfDataset *)dataset_new(st, variant, structure, n, dtypes, shapes, kind);
  if (!d) {
    if (templ)
      tr_dataset_unref(ds);
    Py_XDECREF(inner);
    return NULL;
  }
  d->tmpl = templ ? ds : NULL;
  d->inner = inner;
  return (PyObject *)d;
}

static PyObject *
dataset_wrap(TfState *st, TrDataset *ds, PyObject *structure, const char *kind)
{
  return dataset_wrap_inner(st, ds, structure, kind, NULL);
}

/* The eager dataset of a Dataset object, or NULL when it is symbolic. Borrowed. */
static TrDataset *
dataset_value(PyObject *self)
{
  if (((TfDataset *)self)->tmpl)
    return NULL;
  TrTensor *t = tf_tensor_value(((TfDataset *)self)->variant);
  return t ? tr_tensor_get_dataset(t) : NULL;
}

/* Transformations are built eagerly: a dataset that exists only inside a graph cannot be. */
static TrDataset *
eager_dataset_or_raise(PyObject *self, const char *method)
{
  TrDataset *ds = ((TfDataset *)self)->tmpl ? ((TfDataset *)self)->tmpl : dataset_value(self);
  if (!ds)
    PyErr_Format(PyExc_NotImplementedError,
                 "Dataset.%s() on a dataset that is a traced function's argument is not "
                 "supported yet; apply it before passing the dataset to the function",
                 method);
  return ds;
}

/* TensorSpec(shape, dtype). New reference. */
static PyObject *
tensor_spec_new(TfState *st, TrDType dtype, const TrShape *shape)
{
  if (!st->TensorSpec)
    return PyErr_Format(PyExc_RuntimeError, "tf.TensorSpec is not available");
  PyObject *shape_obj = tf_shape_new(st, shape);
  if (!shape_obj)
    return NULL;
  PyObject *spec = PyObject_CallFunctionObjArgs((PyObject *)st->TensorSpec, shape_obj,
                                                tf_dtype_object(st, dtype), NULL);
  Py_DECREF(shape_obj);
  return spec;
}

static PyObject *element_spec_of(TfState *st, const TfDataset *d);

/* The spec of component i: a TensorSpec, or a DatasetSpec for a dataset component. New
 * reference. */
static PyObject *
component_spec(TfState *st, const TfDataset *d, int i)
{
  PyObject *proto = d->inner ? PyTuple_GET_ITEM(d->inner, i) : Py_None;
  if (proto == Py_None)
    return tensor_spec_new(st, d->dtypes[i], &d->shapes[i]);
  PyObject *inner_spec = element_spec_of(st, (const TfDataset *)proto);
  PyObject *r = inner_spec ? PyObject_CallOneArg(st->DatasetSpec, inner_spec) : NULL;
  Py_XDECREF(inner_spec);
  return r;
}

/* The element spec: the structure with TensorSpecs for the components. New reference. */
static PyObject *
element_spec_of(TfState *st, const TfDataset *d)
{
  PyObject **specs = g_new0(PyObject *, MAX(d->n, 1)); /* owned references */
  PyObject *r = NULL;
  int made = 0;
  for (; made < d->n; made++) {
    specs[made] = component_spec(st, d, made);
    if (!specs[made])
      goto out;
  }
  r = structure_pack(d->structure, specs);
out:
  for (int i = 0; i < made; i++)
    Py_DECREF(specs[i]);
  g_free(specs);
  return r;
}

static PyObject *
dataset_get_element_spec(PyObject *self, void *closure)
{
  return element_spec_of(tf_state(), (TfDataset *)self);
}

static PyObject *
dataset_repr(PyObject *self)
{
  PyObject *spec = dataset_get_element_spec(self, NULL);
  if (!spec)
    return NULL;
  PyObject *r = PyUnicode_FromFormat("<%s element_spec=%R>", ((TfDataset *)self)->kind, spec);
  Py_DECREF(spec);
  return r;
}

static bool check_not_empty(Py_ssize_t n);

typedef struct DataFn {
  struct DataFn *outer; /* the enclosing dataset function being traced, or NULL */
  TrGraph *graph;       /* the function's graph (borrowed) */
  PyObject *slots;      /* the slots' symbolic tensors, in order (owned list) */
} DataFn;

/* The dataset function whose graph is the one being traced now, or NULL. */
static DataFn *
data_fn_now(TfState *st)
{
  DataFn *fn = st->data_fn;
  TfTrace *trace = tf_trace(st);
  return fn && trace && trace->graph == fn->graph ? fn : NULL;
}

/* A new slot holding `v` (converted to `dtype`, TR_DTYPE_INVALID: inferred); its dtype and
 * shape. The slot's index, or -1 with an exception set. */
static int
data_fn_slot(TfState *st, DataFn *fn, PyObject *v, TrDType dtype, TrDType *dtype_out,
             TrShape *shape_out)
{
  TfOperand o;
  if (!tf_operand(st, v, dtype, false, &o))
    return -1;
  PyObject *sym = tf_symbolic_new(st, fn->graph, o.out);
  if (dtype_out)
    *dtype_out = o.dtype;
  if (shape_out)
    *shape_out = o.shape;
  tf_operand_clear(&o);
  if (!sym || PyList_Append(fn->slots, sym) < 0) {
    Py_XDECREF(sym);
    return -1;
  }
  Py_DECREF(sym);
  return (int)PyList_GET_SIZE(fn->slots) - 1;
}

/* Inside a flat_map or interleave function, a source made of symbolic values: a template whose
 * components are read from slots (`slices`: from_tensor_slices, else from_tensors). NULL with
 * *handled false when `value` has no symbolic component or no such function is traced. */
static PyObject *
template_source(TfState *st, PyObject *value, bool slices, const char *kind, bool *handled)
{
  *handled = false;
  DataFn *fn = data_fn_now(st);
  PyObject *leaves = fn ? PyList_New(0) : NULL;
  if (!leaves)
    return NULL;
  PyObject *structure = structure_flatten(value, leaves);
  Py_ssize_t n = PyList_GET_SIZE(leaves);
  bool symbolic = false;
  for (Py_ssize_t i = 0; structure && i < n; i++)
    symbolic = symbolic || tf_is_symbolic(st, PyList_GET_ITEM(leaves, i));
  if (!symbolic || !check_not_empty(n)) {
    *handled = structure == NULL || symbolic;
    Py_XDECREF(structure);
    Py_DECREF(leaves);
    return NULL;
  }
  *handled = true;
  g_autofree int *slots = g_new(int, n);
  g_autofree TrDType *dtypes = g_new(TrDType, n);
  g_autofree TrShape *shapes = g_new(TrShape, n);
  bool ok = true;
  for (Py_ssize_t i = 0; ok && i < n; i++) {
    slots[i] =
        data_fn_slot(st, fn, PyList_GET_ITEM(leaves, i), TR_DTYPE_INVALID, &dtypes[i], &shapes[i]);
    ok = slots[i] >= 0;
  }
  Py_DECREF(leaves);
  GError *error = NULL;
  TrDataset *ds =
      ok ? tr_dataset_new_slot_tensors(slices, slots, (int)n, dtypes, shapes, &error) : NULL;
  if (!ds) {
    Py_DECREF(structure);
    return ok ? tf_raise_any(st, error) : NULL;
  }
  return dataset_wrap(st, ds, structure, kind);
}

/* ---- making datasets ------------------------------------------------------------------------- */

/* core/graph's datasets have elements of one component at least; TensorFlow refuses empty
 * elements for from_tensor_slices with this text. */
static bool
check_not_empty(Py_ssize_t n)
{
  if (n == 0)
    PyErr_SetString(PyExc_ValueError, "Invalid `element`. `element` should not be empty.");
  return n > 0;
}

/* The components of `value` as eager tensors appended to `tensors` (transfer full each), and
 * its structure (new reference). */
static PyObject *
eager_components(TfState *st, PyObject *value, const char *method, GPtrArray *tensors)
{
  PyObject *leaves = PyList_New(0);
  if (!leaves)
    return NULL;
  PyObject *structure = structure_flatten(value, leaves);
  if (structure && !check_not_empty(PyList_GET_SIZE(leaves)))
    Py_CLEAR(structure);
  for (Py_ssize_t i = 0; structure && i < PyList_GET_SIZE(leaves); i++) {
    PyObject *leaf = PyList_GET_ITEM(leaves, i);
    if (tf_is_symbolic(st, leaf)) {
      PyErr_Format(PyExc_NotImplementedError,
                   "Dataset.%s() of a symbolic tensor inside a traced function is not supported "
                   "yet; make the dataset outside the function and pass it in",
                   method);
      Py_CLEAR(structure);
      break;
    }
    TrTensor *t = tf_convert(st, leaf, TR_DTYPE_INVALID, false);
    if (!t) {
      Py_CLEAR(structure);
      break;
    }
    g_ptr_array_add(tensors, t);
  }
  Py_DECREF(leaves);
  return structure;
}

static PyObject *
data_from_tensor_slices(PyObject *cls, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"tensors", "name", NULL};
  PyObject *a[2]; /* tensors, name (borrowed) */
  if (!tf_parse_args("from_tensor_slices", args, nargs, kwnames, names, 1, a))
    return NULL;
  PyObject *tensors = a[0];
  TfState *st = tf_state();
  bool handled;
  PyObject *t = template_source(st, tensors, true, "_TensorSliceDataset", &handled);
  if (handled)
    return t;
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func((GDestroyNotify)tr_tensor_unref);
  PyObject *structure = eager_components(st, tensors, "from_tensor_slices", parts);
  if (!structure)
    return NULL;
  GError *error = NULL;
  TrDataset *ds = tr_dataset_new_tensor_slices((TrTensor **)parts->pdata, (int)parts->len, &error);
  if (!ds) {
    Py_DECREF(structure);
    return tf_raise_any(st, error);
  }
  return dataset_wrap(st, ds, structure, "_TensorSliceDataset");
}

static PyObject *
data_from_tensors(PyObject *cls, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"tensors", "name", NULL};
  PyObject *a[2]; /* tensors, name (borrowed) */
  if (!tf_parse_args("from_tensors", args, nargs, kwnames, names, 1, a))
    return NULL;
  PyObject *tensors = a[0];
  TfState *st = tf_state();
  bool handled;
  PyObject *t = template_source(st, tensors, false, "_TensorDataset", &handled);
  if (handled)
    return t;
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func((GDestroyNotify)tr_tensor_unref);
  PyObject *structure = eager_components(st, tensors, "from_tensors", parts);
  if (!structure)
    return NULL;
  TrDataset *ds = tr_dataset_new_tensors((TrTensor **)parts->pdata, (int)parts->len);
  return dataset_wrap(st, ds, structure, "_TensorDataset");
}

/* An integer argument known now: a Python int (or anything with __index__) or an eager
 * scalar tensor. */
static bool
static_int(TfState *st, PyObject *v, int64_t *out)
{
  if (tf_is_tensor(st, v)) {
    TrTensor *t = tf_static_value(st, v);
    bool ok = t && t->shape.rank == 0 && tr_dtype_is_int(t->dtype);
    if (ok)
      *out = tr_tensor_get_i64(t, 0);
    else
      PyErr_SetString(PyExc_TypeError, "expected a Python int or an integer scalar tensor");
    if (t)
      tr_tensor_unref(t);
    return ok;
  }
  long long x = PyLong_AsLongLong(v);
  if (x == -1 && PyErr_Occurred())
    return false;
  *out = x;
  return true;
}

static PyObject *
data_range(PyObject *cls, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  TfState *st = tf_state();
  PyObject *output_type = NULL;
  for (Py_ssize_t i = 0; kwnames && i < PyTuple_GET_SIZE(kwnames); i++) {
    const char *key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, i));
    if (!key)
      return NULL;
    if (strcmp(key, "output_type") == 0)
      output_type = args[nargs + i];
    else if (strcmp(key, "name") != 0)
      return PyErr_Format(PyExc_TypeError, "range() got an unexpected keyword argument '%s'", key);
  }
  if (nargs < 1 || nargs > 3)
    return PyErr_Format(PyExc_TypeError,
                        "range() takes 1 to 3 positional arguments (start, stop, step), %zd "
                        "given",
                        nargs);
  TrDType dtype;
  if (!tf_dtype_arg(st, output_type, TR_INT64, &dtype))
    return NULL;
  if (!tr_dtype_is_numeric(dtype))
    return PyErr_Format(PyExc_TypeError, "Dataset.range(output_type=...) must be a numeric dtype");
  int64_t v[3] = {0, 0, 1};
  int slots[3] = {-1, -1, -1};
  DataFn *fn = data_fn_now(st);
  bool templ = false;
  for (Py_ssize_t i = 0; i < nargs; i++) {
    int k = nargs == 1 ? 1 : (int)i;
    /* Inside a flat_map function, symbolic bounds are read from slots. */
    if (fn && tf_is_symbolic(st, args[i])) {
      slots[k] = data_fn_slot(st, fn, args[i], TR_INT64, NULL, NULL);
      if (slots[k] < 0)
        return NULL;
      templ = true;
    } else if (!static_int(st, args[i], &v[k])) {
      return NULL;
    }
  }
  GError *error = NULL;
  TrDataset *ds = templ ? tr_dataset_new_slot_range(v, slots, dtype)
                        : tr_dataset_new_range_of(v[0], v[1], v[2], dtype, &error);
  if (!ds)
    return tf_raise_any(st, error);
  return dataset_wrap(st, ds, PyLong_FromLong(0), "_RangeDataset");
}

/* ---- from_generator: elements from Python, through core/graph's callbacks -------------------
 * The callbacks run inside tr_iterator_next, eagerly or in a graph run; they take the GIL in
 * case the caller released it. */

typedef struct {
  TfState *st;
  PyObject *generator; /* callable returning an iterable (owned) */
  PyObject *args;      /* a tuple of its arguments (owned) */
  PyObject *structure; /* the element structure (owned) */
  int n;               /* components */
  TrDType *dtypes;     /* per component (owned) */
  TrShape *shapes;     /* per component (owned) */
} Generator;

/* The pending Python exception as TensorFlow reports an error inside a dataset: an
 * InvalidArgumentError naming the Python exception. Clears it. */
static void
exception_to_error(GError **error)
{
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  PyObject *text = value ? PyObject_Str(value) : NULL;
  const char *utf8 = text ? PyUnicode_AsUTF8(text) : NULL;
  if (!utf8)
    PyErr_Clear();
  g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT, "%s: %s",
              type ? ((PyTypeObject *)type)->tp_name : "Error", utf8 ? utf8 : "");
  Py_XDECREF(text);
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
}

static void *
generator_start(void *data, bool *failed, GError **error)
{
  Generator *gen = data;
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject *iterable = PyObject_Call(gen->generator, gen->args, NULL);
  PyObject *it = iterable ? PyObject_GetIter(iterable) : NULL; /* the pass's state (owned) */
  Py_XDECREF(iterable);
  if (!it) {
    *failed = true;
    exception_to_error(error);
  }
  PyGILState_Release(gil);
  return it;
}

/* The dtypes of the element structure (for TensorFlow's mismatch message). New reference. */
static PyObject *
generator_expected(Generator *gen)
{
  PyObject **items = g_new(PyObject *, MAX(gen->n, 1)); /* borrowed */
  for (int i = 0; i < gen->n; i++)
    items[i] = tf_dtype_object(gen->st, gen->dtypes[i]);
  PyObject *r = structure_pack(gen->structure, items);
  g_free(items);
  return r;
}

/* Component i of a yielded element, checked as TensorFlow checks it. Transfer full, or NULL
 * with a Python exception set. */
static TrTensor *
generator_component(Generator *gen, int i, PyObject *value)
{
  TrTensor *t = tf_convert(gen->st, value, gen->dtypes[i], false);
  if (!t) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError,
                 "`generator` yielded an element that could not be converted to the expected "
                 "type. The expected type was %s, but the yielded element was %R.",
                 tr_dtype_name(gen->dtypes[i]), value);
    return NULL;
  }
  if (!tr_shape_is_compatible_with(&gen->shapes[i], &t->shape)) {
    g_autofree char *got = tr_shape_to_string(&t->shape);
    g_autofree char *want = tr_shape_to_string(&gen->shapes[i]);
    PyErr_Format(PyExc_TypeError,
                 "`generator` yielded an element of shape %s where an element of shape %s was "
                 "expected.",
                 got, want);
    tr_tensor_unref(t);
    return NULL;
  }
  return t;
}

static bool
generator_element(Generator *gen, PyObject *v, TrTensor **out)
{
  PyObject *leaves = PyList_New(0);
  if (!leaves)
    return false;
  bool ok =
      structure_flatten_up_to(gen->structure, v, leaves, "`generator` yielded an element that");
  if (!ok && PyErr_ExceptionMatches(PyExc_TypeError)) {
    PyErr_Clear();
    PyObject *expected = generator_expected(gen);
    if (expected)
      PyErr_Format(PyExc_TypeError,
                   "`generator` yielded an element that did not match the expected structure. "
                   "The expected structure was %R, but the yielded element was %R.",
                   expected, v);
    Py_XDECREF(expected);
  }
  for (int i = 0; ok && i < gen->n; i++) {
    out[i] = generator_component(gen, i, PyList_GET_ITEM(leaves, i));
    if (!out[i]) {
      for (int j = 0; j < i; j++)
        g_clear_pointer(&out[j], tr_tensor_unref);
      ok = false;
    }
  }
  Py_DECREF(leaves);
  return ok;
}

static bool
generator_next(void *data, void *state, TrTensor **out, bool *end, GError **error)
{
  Generator *gen = data;
  PyGILState_STATE gil = PyGILState_Ensure();
  bool ok = true;
  PyObject *v = PyIter_Next(state);
  if (v)
    ok = generator_element(gen, v, out);
  else if (PyErr_Occurred())
    ok = false;
  else
    *end = true;
  Py_XDECREF(v);
  if (!ok)
    exception_to_error(error);
  PyGILState_Release(gil);
  return ok;
}

static void
generator_stop(void *data, void *state)
{
  if (!state)
    return;
  PyGILState_STATE gil = PyGILState_Ensure();
  Py_DECREF((PyObject *)state);
  PyGILState_Release(gil);
}

static void
generator_destroy(void *data)
{
  Generator *gen = data;
  if (Py_IsInitialized()) { /* else the objects went with the interpreter */
    PyGILState_STATE gil = PyGILState_Ensure();
    Py_XDECREF(gen->generator);
    Py_XDECREF(gen->args);
    Py_XDECREF(gen->structure);
    PyGILState_Release(gil);
  }
  g_free(gen->dtypes);
  g_free(gen->shapes);
  g_free(gen);
}

static const TrDatasetCallbacks generator_callbacks = {
    generator_start,
    generator_next,
    generator_stop,
    generator_destroy,
};

/* A shape from output_shapes or a TensorSpec: None is an unknown shape. */
static bool
shape_or_unknown(TfState *st, PyObject *v, TrShape *out)
{
  if (!given(v)) {
    *out = tr_shape_unknown();
    return true;
  }
  return tf_shape_arg(st, v, out);
}

/* output_signature: a structure of TensorSpecs. Returns the structure (new reference). */
static PyObject *
signature_spec(TfState *st, PyObject *signature, GArray *dtypes, GArray *shapes)
{
  PyObject *leaves = PyList_New(0);
  if (!leaves)
    return NULL;
  PyObject *structure = structure_flatten(signature, leaves);
  for (Py_ssize_t i = 0; structure && i < PyList_GET_SIZE(leaves); i++) {
    PyObject *spec = PyList_GET_ITEM(leaves, i);
    int is_spec = st->TensorSpec ? PyObject_IsInstance(spec, (PyObject *)st->TensorSpec) : 0;
    if (is_spec <= 0) {
      if (is_spec == 0)
        PyErr_Format(PyExc_TypeError,
                     "`output_signature` must contain objects that are subclass of "
                     "`tf.TypeSpec` but found %R which is not.",
                     (PyObject *)Py_TYPE(spec));
      Py_CLEAR(structure);
      break;
    }
    PyObject *dt = PyObject_GetAttrString(spec, "dtype");
    PyObject *sh = dt ? PyObject_GetAttrString(spec, "shape") : NULL;
    TrDType dtype = TR_DTYPE_INVALID;
    TrShape shape;
    bool ok = sh && tf_dtype_arg(st, dt, TR_FLOAT32, &dtype) && shape_or_unknown(st, sh, &shape);
    Py_XDECREF(dt);
    Py_XDECREF(sh);
    if (!ok) {
      Py_CLEAR(structure);
      break;
    }
    g_array_append_val(dtypes, dtype);
    g_array_append_val(shapes, shape);
  }
  Py_DECREF(leaves);
  return structure;
}

/* output_types and output_shapes (of the same structure, shapes optional). Returns the
 * structure (new reference). */
static PyObject *
types_spec(TfState *st, PyObject *types, PyObject *shapes_arg, GArray *dtypes, GArray *shapes)
{
  PyObject *leaves = PyList_New(0);
  PyObject *shape_leaves = PyList_New(0);
  PyObject *structure = leaves && shape_leaves ? structure_flatten(types, leaves) : NULL;
  bool has_shapes = given(shapes_arg);
  if (structure && has_shapes &&
      !structure_flatten_up_to(structure, shapes_arg, shape_leaves, "`output_shapes`"))
    Py_CLEAR(structure);
  for (Py_ssize_t i = 0; structure && i < PyList_GET_SIZE(leaves); i++) {
    TrDType dtype;
    TrShape shape = tr_shape_unknown();
    if (!tf_dtype_arg(st, PyList_GET_ITEM(leaves, i), TR_FLOAT32, &dtype) ||
        (has_shapes && !shape_or_unknown(st, PyList_GET_ITEM(shape_leaves, i), &shape))) {
      Py_CLEAR(structure);
      break;
    }
    g_array_append_val(dtypes, dtype);
    g_array_append_val(shapes, shape);
  }
  Py_XDECREF(leaves);
  Py_XDECREF(shape_leaves);
  return structure;
}

static PyObject *
data_from_generator(PyObject *cls, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {
      "generator", "output_types", "output_shapes", "args", "output_signature", "name", NULL};
  PyObject *a[6]; /* the arguments (borrowed), NULL when not given */
  if (!tf_parse_args("from_generator", args, nargs, kwnames, names, 1, a))
    return NULL;
  PyObject *generator = a[0], *output_types = a[1], *output_shapes = a[2], *gargs = a[3],
           *output_signature = a[4];
  TfState *st = tf_state();
  if (!PyCallable_Check(generator))
    return PyErr_Format(PyExc_TypeError, "`generator` must be a Python callable.");
  bool has_sig = given(output_signature);
  if (has_sig && given(output_types))
    return PyErr_Format(PyExc_TypeError, "The `output_types` argument can not be used together "
                                         "with the `output_signature` argument.");
  if (has_sig && given(output_shapes))
    return PyErr_Format(PyExc_TypeError, "The `output_shapes` argument can not be used together "
                                         "with the `output_signature` argument.");
  if (!has_sig && !given(output_types))
    return PyErr_Format(PyExc_TypeError,
                        "Missing required argument `output_signature` or `output_types`.");
  g_autoptr(GArray) dtypes = g_array_new(FALSE, FALSE, sizeof(TrDType));
  g_autoptr(GArray) shapes = g_array_new(FALSE, FALSE, sizeof(TrShape));
  PyObject *structure = has_sig ? signature_spec(st, output_signature, dtypes, shapes)
                                : types_spec(st, output_types, output_shapes, dtypes, shapes);
  if (!structure)
    return NULL;
  if (!check_not_empty(dtypes->len)) {
    Py_DECREF(structure);
    return NULL;
  }
  PyObject *targs = given(gargs) ? PySequence_Tuple(gargs) : PyTuple_New(0);
  if (!targs) {
    Py_DECREF(structure);
    return NULL;
  }
  Generator *gen = g_new0(Generator, 1); /* the dataset's from here on */
  gen->st = st;
  gen->generator = Py_NewRef(generator);
  gen->args = targs;
  gen->structure = Py_NewRef(structure);
  gen->n = (int)dtypes->len;
  gen->dtypes = g_memdup2(dtypes->data, sizeof(TrDType) * MAX(dtypes->len, 1));
  gen->shapes = g_memdup2(shapes->data, sizeof(TrShape) * MAX(shapes->len, 1));
  TrDataset *ds = tr_dataset_new_callback(&generator_callbacks, gen, (int)dtypes->len,
                                          (TrDType *)dtypes->data, (TrShape *)shapes->data);
  return dataset_wrap(st, ds, structure, "_FlatMapDataset");
}

/* ---- transformations ------------------------------------------------------------------------- */

static PyObject *
dataset_batch(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"batch_size",    "drop_remainder", "num_parallel_calls",
                                      "deterministic", "name",           NULL};
  PyObject *a[5]; /* the arguments (borrowed), NULL when not given */
  if (!tf_parse_args("batch", args, nargs, kwnames, names, 1, a))
    return NULL;
  PyObject *size = a[0];
  int drop_remainder = a[1] ? PyObject_IsTrue(a[1]) : 0;
  if (drop_remainder < 0)
    return NULL;
  TfState *st = tf_state();
  int64_t batch_size;
  if (!static_int(st, size, &batch_size))
    return NULL;
  TrDataset *input = eager_dataset_or_raise(self, "batch");
  if (!input)
    return NULL;
  GError *error = NULL;
  TrDataset *ds = tr_dataset_new_batch(input, batch_size, drop_remainder != 0, &error);
  if (!ds)
    return tf_raise_any(st, error);
  return dataset_wrap(st, ds, Py_NewRef(((TfDataset *)self)->structure), "_BatchDataset");
}

static void eager_print(const char *text, size_t len, bool to_stderr, void *user);
static bool wrap_nested(TfState *st, PyObject *inner, PyObject **items, int n);

/* ---- functions of transformations ------------------------------------------------------------
 * map, filter, scan, reduce, flat_map and interleave trace their function once into a graph of
 * its own (converted by AutoGraph, as tf.data does, so a Python print inside runs once): its
 * placeholders are the state's components (scan, reduce) then the element's, its results what
 * the transformation needs.
 *
 * flat_map's and interleave's functions return a dataset. While one is traced, a DataFn is
 * st->data_fn: datasets made there from the function's symbolic values are templates
 * (tr-dataset.h) whose sources read slots, the symbolic tensors listed in the DataFn, which
 * become the function's results. */

/* What a function's trace needs besides the input dataset, and what it gives back. */
typedef struct {
  const char *name;      /* for errors: "Dataset.map" */
  PyObject *state;       /* scan, reduce: the initial state's structure (borrowed), else NULL */
  GPtrArray *initial;    /* scan, reduce: its components (TrTensor, borrowed) */
  TrShape *state_shapes; /* scan, reduce: the state placeholders' shapes (borrowed) */
  bool returns_state;    /* reduce: the result is the new state only */
  bool returns_dataset;  /* flat_map, interleave: the result is a Dataset */
  /* out: */
  PyObject *structure; /* the output element's structure (new reference), or NULL */
  PyObject *inner;     /* flat_map: the returned dataset's TfDataset.inner (new ref, may be NULL) */
  TrDataset *dataset;  /* flat_map: the returned template (transfer full) */
  const TfDataset *returned; /* flat_map: the returned Dataset object (borrowed while traced) */
} FnTrace;

/* Placeholders for n components of dtypes and shapes named args_<first + i>, packed as
 * `structure`; dataset components (`inner`) become Datasets, templates inside a dataset
 * function. New reference. */
static PyObject *
placeholders(TfState *st, TrGraph *g, PyObject *structure, int n, const TrDType *dtypes,
             const TrShape *shapes, PyObject *inner, int first)
{
  PyObject **items = g_new0(PyObject *, MAX(n, 1)); /* owned references */
  PyObject *element = NULL;
  bool ok = true;
  for (int i = 0; ok && i < n; i++) {
    g_autofree char *name = g_strdup_printf("args_%d", first + i);
    TrNode *ph = tr_graph_add_placeholder(g, dtypes[i], &shapes[i], name);
    items[i] = tf_symbolic_new(st, g, tr_node_output(ph, 0));
    ok = items[i] != NULL;
  }
  DataFn *fn = data_fn_now(st);
  for (int i = 0; ok && fn && inner && i < n; i++) {
    const TfDataset *proto = (const TfDataset *)PyTuple_GET_ITEM(inner, i);
    if ((PyObject *)proto == Py_None)
      continue;
    int slot = data_fn_slot(st, fn, items[i], TR_VARIANT, NULL, NULL);
    if (slot < 0) {
      ok = false;
      break;
    }
    TrDataset *ds = tr_dataset_new_slot_dataset(slot, proto->n, proto->dtypes, proto->shapes);
    Py_SETREF(items[i], dataset_wrap_inner(st, ds, Py_NewRef(proto->structure), "_VariantDataset",
                                           proto->inner ? Py_NewRef(proto->inner) : NULL));
    ok = items[i] != NULL;
  }
  if (ok && !fn)
    ok = wrap_nested(st, inner, items, n);
  if (ok)
    element = structure_pack(structure, items);
  for (int i = 0; i < n; i++)
    Py_XDECREF(items[i]);
  g_free(items);
  return element;
}

/* The function called on placeholders of the state (if any) and of the element spec, in `g`.
 * New reference. */
static PyObject *
call_fn(TfState *st, const TfDataset *d, PyObject *fn, TrGraph *g, FnTrace *ft)
{
  PyObject *state = NULL;
  int n_state = ft->state ? (int)ft->initial->len : 0;
  if (ft->state) {
    g_autofree TrDType *dtypes = g_new(TrDType, MAX(n_state, 1));
    for (int i = 0; i < n_state; i++)
      dtypes[i] = ((TrTensor *)g_ptr_array_index(ft->initial, i))->dtype;
    state = placeholders(st, g, ft->state, n_state, dtypes, ft->state_shapes, NULL, 0);
    if (!state)
      return NULL;
  }
  PyObject *element =
      placeholders(st, g, d->structure, d->n, d->dtypes, d->shapes, d->inner, n_state);
  if (!element) {
    Py_XDECREF(state);
    return NULL;
  }
  PyObject *r;
  if (state) {
    r = PyObject_CallFunctionObjArgs(fn, state, element, NULL);
    Py_DECREF(state);
  } else {
    /* A tuple element is spread over the function's parameters, as tf.data does. */
    r = PyTuple_CheckExact(element) ? PyObject_Call(fn, element, NULL)
                                    : PyObject_CallOneArg(fn, element);
  }
  Py_DECREF(element);
  return r;
}

/* `leaves` (values) as results of `g`. */
static bool
add_outputs(TfState *st, TrGraph *g, PyObject *leaves)
{
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(leaves); i++) {
    TfOperand o;
    GError *error = NULL;
    if (!tf_operand(st, PyList_GET_ITEM(leaves, i), TR_DTYPE_INVALID, false, &o))
      return false;
    bool ok = tr_graph_add_output(g, o.out, &error) != NULL;
    tf_operand_clear(&o);
    if (!ok) {
      tf_raise_any(st, error);
      return false;
    }
  }
  return true;
}

/* The function's results as outputs of its graph; lists count as tuples. Returns the results'
 * structure (new reference). */
static PyObject *
map_outputs(TfState *st, TrGraph *g, PyObject *result)
{
  PyObject *r = PyList_Check(result) ? PyList_AsTuple(result) : Py_NewRef(result);
  PyObject *leaves = r ? PyList_New(0) : NULL;
  PyObject *structure = leaves ? structure_flatten(r, leaves) : NULL;
  if (structure && !check_not_empty(PyList_GET_SIZE(leaves)))
    Py_CLEAR(structure);
  if (structure && !add_outputs(st, g, leaves))
    Py_CLEAR(structure);
  Py_XDECREF(leaves);
  Py_XDECREF(r);
  return structure;
}

/* The dtypes (DType objects) or TensorSpecs of g's outputs from `first` on, laid out as
 * `structure`: the types and structures TensorFlow's scan and reduce name in their errors. New
 * reference. */
static PyObject *
outputs_described(TfState *st, TrGraph *g, int first, PyObject *structure, bool specs)
{
  int n = tr_graph_n_outputs(g) - first;
  PyObject **items = g_new0(PyObject *, MAX(n, 1)); /* owned references */
  PyObject *r = NULL;
  int made = 0;
  for (; made < n; made++) {
    TrOutput out = tr_node_output(tr_graph_output(g, first + made), 0);
    items[made] = specs ? tensor_spec_new(st, tr_output_dtype(out), tr_output_shape(out))
                        : Py_NewRef(tf_dtype_object(st, tr_output_dtype(out)));
    if (!items[made])
      goto out;
  }
  r = structure_pack(structure, items);
out:
  for (int i = 0; i < made; i++)
    Py_DECREF(items[i]);
  g_free(items);
  return r;
}

/* The new state a scan or reduce function returned, as outputs of g, with the dtypes of the
 * initial state: else TensorFlow's TypeError (scan_op.py's text for scan, dataset_ops.py's for
 * reduce; str() of the dtype structures, so a lone dtype shows as <dtype: 'int64'>). */
static bool
state_outputs(TfState *st, TrGraph *g, FnTrace *ft, PyObject *new_state)
{
  int first = tr_graph_n_outputs(g);
  PyObject *leaves = PyList_New(0);
  bool ok = leaves && structure_flatten_up_to(ft->state, new_state, leaves, "The new state") &&
            add_outputs(st, g, leaves);
  Py_XDECREF(leaves);
  if (!ok)
    return false;
  guint n = ft->initial->len;
  bool same = true;
  for (guint i = 0; same && i < n; i++) {
    TrOutput out = tr_node_output(tr_graph_output(g, first + (int)i), 0);
    same = tr_output_dtype(out) == ((TrTensor *)g_ptr_array_index(ft->initial, i))->dtype;
  }
  if (same)
    return true;
  PyObject **old_items = g_new0(PyObject *, MAX(n, 1)); /* borrowed */
  for (guint i = 0; i < n; i++)
    old_items[i] = tf_dtype_object(st, ((TrTensor *)g_ptr_array_index(ft->initial, i))->dtype);
  PyObject *old_types = structure_pack(ft->state, old_items);
  g_free(old_items);
  PyObject *new_types = old_types ? outputs_described(st, g, first, ft->state, false) : NULL;
  if (new_types) {
    if (ft->returns_state)
      PyErr_Format(PyExc_TypeError,
                   "The element types for the new state must match the initial state. Expected "
                   "%S but got %S.",
                   old_types, new_types);
    else
      PyErr_Format(PyExc_TypeError,
                   "Invalid `scan_func`. The element types for the new state must match the "
                   "initial state. Expected %S, got %S.",
                   old_types, new_types);
  }
  Py_XDECREF(old_types);
  Py_XDECREF(new_types);
  return false;
}

/* flat_map's result: a Dataset, whose template (or eager dataset) becomes ft->dataset and whose
 * slots become the graph's results. */
static bool
dataset_outputs(TfState *st, TrGraph *g, FnTrace *ft, DataFn *fn, PyObject *result)
{
  if (!tf_is_dataset(st, result)) {
    PyErr_Format(PyExc_TypeError, "The `map_func` argument must return a `Dataset` object. Got %R.",
                 (PyObject *)Py_TYPE(result));
    return false;
  }
  TfDataset *d = (TfDataset *)result;
  TrDataset *ds = d->tmpl ? d->tmpl : dataset_value(result);
  if (!ds) {
    PyErr_SetString(PyExc_NotImplementedError,
                    "the dataset a flat_map or interleave function returns must be made inside "
                    "the function or outside any tf.function");
    return false;
  }
  if (!add_outputs(st, g, fn->slots))
    return false;
  ft->dataset = tr_dataset_ref(ds);
  ft->structure = Py_NewRef(d->structure);
  ft->inner = d->inner ? Py_NewRef(d->inner) : NULL;
  ft->returned = d;
  return true;
}

/* The outputs of the traced function's `result`. */
static bool
fn_outputs(TfState *st, TrGraph *g, FnTrace *ft, DataFn *fn, PyObject *result)
{
  if (ft->returns_dataset)
    return dataset_outputs(st, g, ft, fn, result);
  if (ft->returns_state)
    return state_outputs(st, g, ft, result);
  if (!ft->state) {
    ft->structure = map_outputs(st, g, result);
    return ft->structure != NULL;
  }
  /* scan: (new_state, output_element); else scan_op.py's TypeError naming what it returned */
  if (!(PyTuple_Check(result) || PyList_Check(result)) || PySequence_Size(result) != 2) {
    int first = tr_graph_n_outputs(g);
    PyObject *structure = map_outputs(st, g, result);
    PyObject *returned = structure ? outputs_described(st, g, first, structure, true) : NULL;
    if (returned)
      PyErr_Format(PyExc_TypeError,
                   "Invalid `scan_func`. `scan_func` should return a pair consisting of new "
                   "state and the output value but its return type is %S.",
                   returned);
    Py_XDECREF(structure);
    Py_XDECREF(returned);
    return false;
  }
  PyObject *new_state = PySequence_GetItem(result, 0), *out = PySequence_GetItem(result, 1);
  bool ok = new_state && out && state_outputs(st, g, ft, new_state);
  if (ok)
    ft->structure = map_outputs(st, g, out);
  Py_XDECREF(new_state);
  Py_XDECREF(out);
  return ok && ft->structure;
}

/* Traces fn into a graph of its own, filling ft's results. Transfer full, or NULL with an
 * exception set. */
static TrGraph *
trace_fn(TfState *st, const TfDataset *d, PyObject *fn, FnTrace *ft)
{
  TfTrace trace = {
      .graph = tr_graph_new("Dataset_map_fn"),
      .consts = g_hash_table_new(NULL, NULL),
      .fn_name = ft->name,
  };
  DataFn data_fn = {st->data_fn, trace.graph, NULL};
  TfTrace *saved = st->trace;
  st->trace = &trace;
  if (ft->returns_dataset) {
    data_fn.slots = PyList_New(0);
    st->data_fn = &data_fn;
  }
  PyObject *converted = tf_autograph_convert(st, fn);
  PyObject *result = converted && (data_fn.slots || !ft->returns_dataset)
                         ? call_fn(st, d, converted, trace.graph, ft)
                         : NULL;
  Py_XDECREF(converted);
  bool ok = result && fn_outputs(st, trace.graph, ft, &data_fn, result);
  st->trace = saved;
  if (ft->returns_dataset)
    st->data_fn = data_fn.outer;
  Py_XDECREF(data_fn.slots);
  Py_XDECREF(result);
  if (ok && trace.error) {
    PyErr_SetString(PyExc_ValueError, trace.error);
    ok = false;
  }
  g_free(trace.error);
  g_hash_table_unref(trace.consts);
  if (trace.captures)
    g_array_unref(trace.captures);
  if (!ok) {
    Py_CLEAR(ft->structure);
    Py_CLEAR(ft->inner);
    g_clear_pointer(&ft->dataset, tr_dataset_unref);
    tr_graph_unref(trace.graph);
    return NULL;
  }
  return trace.graph;
}

static PyObject *
dataset_map(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"map_func", "num_parallel_calls", "deterministic", "name",
                                      NULL};
  PyObject *a[4]; /* the arguments (borrowed), NULL when not given */
  if (!tf_parse_args("map", args, nargs, kwnames, names, 1, a))
    return NULL;
  PyObject *fn = a[0], *parallel = a[1];
  TfState *st = tf_state();
  TrDataset *input = eager_dataset_or_raise(self, "map");
  if (!input)
    return NULL;
  FnTrace ft = {.name = "Dataset.map"};
  g_autoptr(TrGraph) graph = trace_fn(st, (TfDataset *)self, fn, &ft);
  if (!graph)
    return NULL;
  GError *error = NULL;
  TrDataset *ds = tr_dataset_new_map(input, graph, &error);
  if (!ds) {
    Py_DECREF(ft.structure);
    return tf_raise_any(st, error);
  }
  return dataset_wrap(st, ds, ft.structure,
                      given(parallel) ? "_ParallelMapDataset" : "_MapDataset");
}

/* ---- more transformations ---------------------------------------------------------------------
 */

/* The Dataset object for `ds` (transfer full; NULL: raise *error, which the call that made ds
 * set: a pointer, as that call is an argument evaluated in any order) with self's element
 * spec. */
static PyObject *
wrap_like(TfState *st, PyObject *self, TrDataset *ds, GError **error, const char *kind)
{
  if (!ds)
    return tf_raise_any(st, *error);
  TfDataset *d = (TfDataset *)self;
  return dataset_wrap_inner(st, ds, Py_NewRef(d->structure), kind,
                            d->inner ? Py_NewRef(d->inner) : NULL);
}

/* A count argument, as TensorFlow converts it: convert_to_tensor(v, dtype=tf.int64), a
 * scalar. */
static bool
int64_arg(TfState *st, PyObject *v, const char *name, int64_t *out)
{
  if (tf_is_symbolic(st, v)) {
    PyErr_Format(PyExc_NotImplementedError,
                 "a symbolic `%s` is not supported yet; pass a Python int or an eager tensor",
                 name);
    return false;
  }
  TrTensor *t = tf_convert(st, v, TR_INT64, false);
  if (!t)
    return false;
  bool scalar = t->shape.rank == 0;
  if (scalar)
    *out = tr_tensor_get_i64(t, 0);
  else
    tf_raise_error(st,
                   g_error_new(TR_ERROR, TR_ERROR_INVALID_ARGUMENT, "%s must be a scalar", name));
  tr_tensor_unref(t);
  return scalar;
}

/* The one count argument of take, skip, repeat (default -1), shuffle, prefetch. */
static bool
count_method(const char *method, const char *arg, bool required, PyObject *const *args,
             Py_ssize_t nargs, PyObject *kwnames, int64_t *count)
{
  const char *names[] = {arg, "name", NULL};
  PyObject *a[2]; /* borrowed */
  if (!tf_parse_args(method, args, nargs, kwnames, (const char *const *)names, required ? 1 : 0, a))
    return false;
  *count = -1;
  return !given(a[0]) || int64_arg(tf_state(), a[0], arg, count);
}

static PyObject *
dataset_take(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  int64_t count;
  TrDataset *input;
  if (!count_method("take", "count", true, args, nargs, kwnames, &count) ||
      !(input = eager_dataset_or_raise(self, "take")))
    return NULL;
  return wrap_like(tf_state(), self, tr_dataset_new_take(input, count), NULL, "_TakeDataset");
}

static PyObject *
dataset_skip(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  int64_t count;
  TrDataset *input;
  if (!count_method("skip", "count", true, args, nargs, kwnames, &count) ||
      !(input = eager_dataset_or_raise(self, "skip")))
    return NULL;
  return wrap_like(tf_state(), self, tr_dataset_new_skip(input, count), NULL, "_SkipDataset");
}

static PyObject *
dataset_repeat(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  int64_t count;
  TrDataset *input;
  if (!count_method("repeat", "count", false, args, nargs, kwnames, &count) ||
      !(input = eager_dataset_or_raise(self, "repeat")))
    return NULL;
  return wrap_like(tf_state(), self, tr_dataset_new_repeat(input, count), NULL, "_RepeatDataset");
}

static PyObject *
dataset_prefetch(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  int64_t size;
  TrDataset *input;
  if (!count_method("prefetch", "buffer_size", true, args, nargs, kwnames, &size) ||
      !(input = eager_dataset_or_raise(self, "prefetch")))
    return NULL;
  GError *error = NULL;
  return wrap_like(tf_state(), self, tr_dataset_new_prefetch(input, size, &error), &error,
                   "_PrefetchDataset");
}

static PyObject *
dataset_cache(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"filename", "name", NULL};
  PyObject *a[2]; /* borrowed */
  if (!tf_parse_args("cache", args, nargs, kwnames, names, 0, a))
    return NULL;
  TrDataset *input = eager_dataset_or_raise(self, "cache");
  if (!input)
    return NULL;
  /* A filename caches on disk in TensorFlow; here every cache is in memory, which a program
   * observes the same way within one run. */
  return wrap_like(tf_state(), self, tr_dataset_new_cache(input), NULL, "_CacheDataset");
}

static PyObject *
dataset_shuffle(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"buffer_size", "seed", "reshuffle_each_iteration", "name",
                                      NULL};
  PyObject *a[4]; /* borrowed, NULL when not given */
  if (!tf_parse_args("shuffle", args, nargs, kwnames, names, 1, a))
    return NULL;
  TfState *st = tf_state();
  int64_t size, seed = 0;
  if (!int64_arg(st, a[0], "buffer_size", &size) ||
      (given(a[1]) && !int64_arg(st, a[1], "seed", &seed)))
    return NULL;
  int reshuffle = given(a[2]) ? PyObject_IsTrue(a[2]) : 1;
  if (reshuffle < 0)
    return NULL;
  TrDataset *input = eager_dataset_or_raise(self, "shuffle");
  if (!input)
    return NULL;
  /* As tf.random: the op seed with the global one when either is set, else a fresh seed. */
  uint64_t s;
  if (given(a[1]) || st->random_seeded)
    s = (uint64_t)seed * 0x9E3779B97F4A7C15u ^ (uint64_t)st->random_seed ^
        (uint64_t)(given(a[1]) ? 0 : st->random_counter++);
  else
    s = ((uint64_t)g_random_int() << 32) | g_random_int();
  GError *error = NULL;
  return wrap_like(st, self, tr_dataset_new_shuffle(input, size, s, reshuffle != 0, &error), &error,
                   "_ShuffleDataset");
}

static PyObject *
dataset_filter(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"predicate", "name", NULL};
  PyObject *a[2]; /* borrowed */
  if (!tf_parse_args("filter", args, nargs, kwnames, names, 1, a))
    return NULL;
  TfState *st = tf_state();
  TrDataset *input = eager_dataset_or_raise(self, "filter");
  if (!input)
    return NULL;
  FnTrace ft = {.name = "Dataset.filter"};
  g_autoptr(TrGraph) graph = trace_fn(st, (TfDataset *)self, a[0], &ft);
  if (!graph)
    return NULL;
  bool scalar_bool = PyLong_CheckExact(ft.structure) && tr_graph_n_outputs(graph) == 1 &&
                     tr_output_dtype(tr_node_output(tr_graph_output(graph, 0), 0)) == TR_BOOL;
  if (!scalar_bool) {
    PyObject *spec = NULL;
    if (tr_graph_n_outputs(graph) >= 1) {
      TrOutput o = tr_node_output(tr_graph_output(graph, 0), 0);
      spec = tensor_spec_new(st, tr_output_dtype(o), tr_output_shape(o));
    }
    if (spec)
      PyErr_Format(PyExc_ValueError,
                   "Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but "
                   "its return type is %R.",
                   spec);
    Py_XDECREF(spec);
    Py_DECREF(ft.structure);
    return NULL;
  }
  Py_DECREF(ft.structure);
  GError *error = NULL;
  return wrap_like(st, self, tr_dataset_new_filter(input, graph, &error), &error, "_FilterDataset");
}

/* A structure whose component indices are those of `structure` plus `offset`. New reference. */
static PyObject *
structure_shift(PyObject *structure, Py_ssize_t offset)
{
  if (PyLong_CheckExact(structure))
    return PyLong_FromSsize_t(PyLong_AsSsize_t(structure) + offset);
  if (PyTuple_Check(structure)) {
    Py_ssize_t n = PyTuple_GET_SIZE(structure);
    PyObject *t = PyTuple_New(n);
    for (Py_ssize_t i = 0; t && i < n; i++) {
      PyObject *v = structure_shift(PyTuple_GET_ITEM(structure, i), offset);
      if (!v)
        Py_CLEAR(t);
      else
        PyTuple_SET_ITEM(t, i, v); /* steals v */
    }
    return t;
  }
  PyObject *d = PyDict_New();
  Py_ssize_t pos = 0;
  PyObject *key, *sub; /* borrowed */
  while (d && PyDict_Next(structure, &pos, &key, &sub)) {
    PyObject *v = structure_shift(sub, offset);
    if (!v || PyDict_SetItem(d, key, v) < 0)
      Py_CLEAR(d);
    Py_XDECREF(v);
  }
  return d;
}

/* zip of `datasets`, a structure of Dataset objects. */
static PyObject *
zip_structure(TfState *st, PyObject *datasets)
{
  PyObject *leaves = PyList_New(0);
  PyObject *outer = leaves ? structure_flatten(datasets, leaves) : NULL;
  if (!outer) {
    Py_XDECREF(leaves);
    return NULL;
  }
  Py_ssize_t n = PyList_GET_SIZE(leaves);
  g_autofree TrDataset **inputs = g_new(TrDataset *, MAX(n, 1));
  PyObject **structures = g_new0(PyObject *, MAX(n, 1)); /* owned */
  PyObject *inner = NULL, *r = NULL;
  Py_ssize_t total = 0;
  bool ok = true, any_inner = false;
  for (Py_ssize_t k = 0; ok && k < n; k++) {
    PyObject *ds = PyList_GET_ITEM(leaves, k);
    if (!tf_is_dataset(st, ds)) {
      if (PyList_Check(ds))
        PyErr_SetString(PyExc_TypeError,
                        "Invalid `datasets`. `datasets` is expected to be a (nested) structure of "
                        "`tf.data.Dataset` objects. Python `list` is not supported and you should "
                        "use `tuple` instead.");
      else
        PyErr_Format(PyExc_TypeError,
                     "Invalid `datasets`. `datasets` is expected to be a (nested) structure of "
                     "`tf.data.Dataset` objects but encountered object of type %R.",
                     (PyObject *)Py_TYPE(ds));
      ok = false;
      break;
    }
    inputs[k] = eager_dataset_or_raise(ds, "zip");
    structures[k] = inputs[k] ? structure_shift(((TfDataset *)ds)->structure, total) : NULL;
    ok = structures[k] != NULL;
    total += ((TfDataset *)ds)->n;
    any_inner = any_inner || ((TfDataset *)ds)->inner;
  }
  if (ok && n == 0) {
    PyErr_SetString(PyExc_TypeError, "Must pass at least one dataset to `zip`.");
    ok = false;
  }
  if (ok && any_inner) {
    inner = PyTuple_New(total);
    Py_ssize_t at = 0;
    for (Py_ssize_t k = 0; inner && k < n; k++) {
      TfDataset *d = (TfDataset *)PyList_GET_ITEM(leaves, k);
      for (int i = 0; i < d->n; i++)
        PyTuple_SET_ITEM(inner, at++,
                         Py_NewRef(d->inner ? PyTuple_GET_ITEM(d->inner, i) : Py_None));
    }
    ok = inner != NULL;
  }
  PyObject *structure = ok ? structure_pack(outer, structures) : NULL;
  if (structure) {
    TrDataset *ds = tr_dataset_new_zip(inputs, (int)n);
    r = dataset_wrap_inner(st, ds, structure, "_ZipDataset", g_steal_pointer(&inner));
  }
  Py_XDECREF(inner);
  for (Py_ssize_t k = 0; k < n; k++)
    Py_XDECREF(structures[k]);
  g_free(structures);
  Py_DECREF(outer);
  Py_DECREF(leaves);
  return r;
}

static PyObject *
data_zip(PyObject *cls, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  PyObject *datasets = NULL; /* borrowed */
  for (Py_ssize_t i = 0; kwnames && i < PyTuple_GET_SIZE(kwnames); i++) {
    const char *key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, i));
    if (!key)
      return NULL;
    if (strcmp(key, "datasets") == 0)
      datasets = args[nargs + i];
    else if (strcmp(key, "name") != 0)
      return PyErr_Format(PyExc_TypeError, "zip() got an unexpected keyword argument '%s'", key);
  }
  if (nargs == 0 && !datasets)
    return PyErr_Format(PyExc_TypeError, "Must pass at least one dataset to `zip`.");
  if (nargs > 0 && datasets)
    return PyErr_Format(PyExc_TypeError, "Both `*args` and `datasets` cannot be set.");
  TfState *st = tf_state();
  if (datasets)
    return zip_structure(st, datasets);
  if (nargs == 1)
    return zip_structure(st, args[0]);
  PyObject *t = PyTuple_New(nargs);
  for (Py_ssize_t i = 0; t && i < nargs; i++)
    PyTuple_SET_ITEM(t, i, Py_NewRef(args[i]));
  PyObject *r = t ? zip_structure(st, t) : NULL;
  Py_XDECREF(t);
  return r;
}

static PyObject *
dataset_enumerate(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"start", "name", NULL};
  PyObject *a[2]; /* borrowed */
  if (!tf_parse_args("enumerate", args, nargs, kwnames, names, 0, a))
    return NULL;
  TfState *st = tf_state();
  int64_t start = 0;
  if (given(a[0]) && !int64_arg(st, a[0], "start", &start))
    return NULL;
  GError *error = NULL;
  TrDataset *counter = tr_dataset_new_range(start, G_MAXINT64, 1, &error);
  PyObject *range = counter ? dataset_wrap(st, counter, PyLong_FromLong(0), "_RangeDataset")
                            : tf_raise_any(st, error);
  PyObject *pair = range ? PyTuple_Pack(2, range, self) : NULL;
  PyObject *r = pair ? zip_structure(st, pair) : NULL;
  Py_XDECREF(pair);
  Py_XDECREF(range);
  return r;
}

static PyObject *
dataset_concatenate(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"dataset", "name", NULL};
  PyObject *a[2]; /* borrowed */
  if (!tf_parse_args("concatenate", args, nargs, kwnames, names, 1, a))
    return NULL;
  TfState *st = tf_state();
  if (!tf_is_dataset(st, a[0]))
    return PyErr_Format(PyExc_TypeError,
                        "Invalid `dataset`. `dataset` is expected to be a `tf.data.Dataset` "
                        "object but encountered object of type %R.",
                        (PyObject *)Py_TYPE(a[0]));
  TrDataset *x = eager_dataset_or_raise(self, "concatenate");
  TrDataset *y = x ? eager_dataset_or_raise(a[0], "concatenate") : NULL;
  if (!y)
    return NULL;
  PyObject *sx = dataset_get_element_spec(self, NULL);
  PyObject *sy = sx ? dataset_get_element_spec(a[0], NULL) : NULL;
  int same_structure = sy ? PyObject_RichCompareBool(((TfDataset *)self)->structure,
                                                     ((TfDataset *)a[0])->structure, Py_EQ)
                          : -1;
  GError *error = NULL;
  TrDataset *ds = same_structure == 1 ? tr_dataset_new_concatenate(x, y, &error) : NULL;
  if (same_structure >= 0 && !ds) {
    g_clear_error(&error);
    PyErr_Format(PyExc_TypeError, "Incompatible dataset elements:\n  %R vs.   %R", sx, sy);
  }
  Py_XDECREF(sx);
  Py_XDECREF(sy);
  if (!ds)
    return NULL;
  return wrap_like(st, self, ds, NULL, "_ConcatenateDataset");
}

static PyObject *
dataset_unbatch(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"name", NULL};
  PyObject *a[1]; /* borrowed */
  if (!tf_parse_args("unbatch", args, nargs, kwnames, names, 0, a))
    return NULL;
  TrDataset *input = eager_dataset_or_raise(self, "unbatch");
  if (!input)
    return NULL;
  GError *error = NULL;
  return wrap_like(tf_state(), self, tr_dataset_new_unbatch(input, &error), &error,
                   "_UnbatchDataset");
}

static PyObject *
dataset_window(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"size", "shift", "stride", "drop_remainder", "name", NULL};
  PyObject *a[5]; /* borrowed, NULL when not given */
  if (!tf_parse_args("window", args, nargs, kwnames, names, 1, a))
    return NULL;
  TfState *st = tf_state();
  int64_t size, shift, stride = 1;
  if (!int64_arg(st, a[0], "size", &size))
    return NULL;
  shift = size;
  if ((given(a[1]) && !int64_arg(st, a[1], "shift", &shift)) ||
      (given(a[2]) && !int64_arg(st, a[2], "stride", &stride)))
    return NULL;
  int drop = given(a[3]) ? PyObject_IsTrue(a[3]) : 0;
  if (drop < 0)
    return NULL;
  TrDataset *input = eager_dataset_or_raise(self, "window");
  if (!input)
    return NULL;
  GError *error = NULL;
  TrDataset *ds = tr_dataset_new_window(input, size, shift, stride, drop != 0, &error);
  if (!ds)
    return tf_raise_any(st, error);
  /* Each component becomes a dataset of that component's values. */
  TfDataset *d = (TfDataset *)self;
  PyObject *inner = PyTuple_New(d->n);
  for (int i = 0; inner && i < d->n; i++) {
    PyObject *proto = dataset_new(st, Py_NewRef(Py_None), PyLong_FromLong(0), 1, &d->dtypes[i],
                                  &d->shapes[i], "_VariantDataset");
    if (!proto) {
      Py_CLEAR(inner);
      break;
    }
    if (d->inner && PyTuple_GET_ITEM(d->inner, i) != Py_None)
      ((TfDataset *)proto)->inner = PyTuple_Pack(1, PyTuple_GET_ITEM(d->inner, i));
    PyTuple_SET_ITEM(inner, i, proto);
  }
  if (!inner) {
    tr_dataset_unref(ds);
    return NULL;
  }
  return dataset_wrap_inner(st, ds, Py_NewRef(d->structure), "_WindowDataset", inner);
}

/* flat_map and interleave: the function traced with ft.returns_dataset. */
static PyObject *
nested_method(PyObject *self, PyObject *fn, const char *method, int64_t cycle, int64_t block,
              const char *kind)
{
  TfState *st = tf_state();
  TrDataset *input = eager_dataset_or_raise(self, method);
  if (!input)
    return NULL;
  FnTrace ft = {.name = method, .returns_dataset = true};
  g_autoptr(TrGraph) graph = trace_fn(st, (TfDataset *)self, fn, &ft);
  if (!graph)
    return NULL;
  GError *error = NULL;
  TrDataset *ds = cycle > 0
                      ? tr_dataset_new_interleave(input, graph, ft.dataset, cycle, block, &error)
                      : tr_dataset_new_flat_map(input, graph, ft.dataset, &error);
  tr_dataset_unref(ft.dataset);
  if (!ds) {
    Py_DECREF(ft.structure);
    Py_XDECREF(ft.inner);
    return tf_raise_any(st, error);
  }
  return dataset_wrap_inner(st, ds, ft.structure, kind, ft.inner);
}

static PyObject *
dataset_flat_map(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"map_func", "name", NULL};
  PyObject *a[2]; /* borrowed */
  if (!tf_parse_args("flat_map", args, nargs, kwnames, names, 1, a))
    return NULL;
  return nested_method(self, a[0], "flat_map", 0, 0, "_FlatMapDataset");
}

static PyObject *
dataset_interleave(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {
      "map_func", "cycle_length", "block_length", "num_parallel_calls", "deterministic", "name",
      NULL};
  PyObject *a[6]; /* borrowed, NULL when not given */
  if (!tf_parse_args("interleave", args, nargs, kwnames, names, 1, a))
    return NULL;
  TfState *st = tf_state();
  int64_t cycle = -1, block = 1;
  if ((given(a[1]) && !int64_arg(st, a[1], "cycle_length", &cycle)) ||
      (given(a[2]) && !int64_arg(st, a[2], "block_length", &block)))
    return NULL;
  /* AUTOTUNE: TensorFlow's default cycle is the machine's parallelism. */
  if (cycle == -1)
    cycle = g_get_num_processors();
  else if (cycle <= 0)
    return tf_raise_error(st, g_error_new_literal(TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
                                                  "cycle_length must be greater than zero."));
  return nested_method(self, a[0], "interleave", cycle, block,
                       given(a[3]) ? "_ParallelInterleaveDataset" : "_InterleaveDataset");
}

/* The initial state of scan and reduce as eager tensors (ft->initial, owned by the caller's
 * array) and its structure (ft->state, a new reference). */
static bool
initial_state(TfState *st, PyObject *value, const char *method, FnTrace *ft, GPtrArray *tensors)
{
  ft->state = eager_components(st, value, method, tensors);
  ft->initial = tensors;
  return ft->state != NULL;
}

static PyObject *
dataset_scan(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"initial_state", "scan_func", "name", NULL};
  PyObject *a[3]; /* borrowed */
  if (!tf_parse_args("scan", args, nargs, kwnames, names, 2, a))
    return NULL;
  TfState *st = tf_state();
  TrDataset *input = eager_dataset_or_raise(self, "scan");
  if (!input)
    return NULL;
  g_autoptr(GPtrArray) initial = g_ptr_array_new_with_free_func((GDestroyNotify)tr_tensor_unref);
  FnTrace ft = {.name = "Dataset.scan"};
  if (!initial_state(st, a[0], "scan", &ft, initial))
    return NULL;
  g_autofree TrShape *shapes = g_new(TrShape, initial->len);
  for (guint i = 0; i < initial->len; i++)
    shapes[i] = ((TrTensor *)g_ptr_array_index(initial, i))->shape;
  ft.state_shapes = shapes;
  g_autoptr(TrGraph) graph = trace_fn(st, (TfDataset *)self, a[1], &ft);
  Py_DECREF(ft.state);
  if (!graph)
    return NULL;
  GError *error = NULL;
  TrDataset *ds =
      tr_dataset_new_scan(input, (TrTensor **)initial->pdata, (int)initial->len, graph, &error);
  if (!ds) {
    Py_DECREF(ft.structure);
    return tf_raise_any(st, error);
  }
  return dataset_wrap(st, ds, ft.structure, "_ScanDataset");
}

static PyObject *
dataset_reduce(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"initial_state", "reduce_func", "name", NULL};
  PyObject *a[3]; /* borrowed */
  if (!tf_parse_args("reduce", args, nargs, kwnames, names, 2, a))
    return NULL;
  TfState *st = tf_state();
  TrDataset *input = dataset_value(self);
  if (!input || tf_trace(st)) {
    PyErr_SetString(PyExc_NotImplementedError,
                    "Dataset.reduce() inside a traced function is not supported yet; use a `for` "
                    "loop over the dataset");
    return NULL;
  }
  g_autoptr(GPtrArray) initial = g_ptr_array_new_with_free_func((GDestroyNotify)tr_tensor_unref);
  FnTrace ft = {.name = "Dataset.reduce", .returns_state = true};
  if (!initial_state(st, a[0], "reduce", &ft, initial))
    return NULL;
  int n = (int)initial->len;
  g_autofree TrShape *shapes = g_new(TrShape, n);
  for (int i = 0; i < n; i++)
    shapes[i] = ((TrTensor *)g_ptr_array_index(initial, i))->shape;
  ft.state_shapes = shapes;
  g_autoptr(TrGraph) graph = trace_fn(st, (TfDataset *)self, a[1], &ft);
  /* A state whose shape changes (a growing vector) is traced again with the shapes relaxed, as
   * TensorFlow retraces reduce_func. */
  bool relaxed = false;
  for (int i = 0; graph && i < tr_graph_n_outputs(graph) && i < n; i++) {
    const TrShape *out = tr_output_shape(tr_node_output(tr_graph_output(graph, i), 0));
    if (tr_shape_equal(out, &shapes[i]))
      continue;
    shapes[i] = tr_shape_most_specific_compatible(out, &shapes[i]);
    relaxed = true;
  }
  if (relaxed) {
    g_clear_pointer(&graph, tr_graph_unref);
    graph = trace_fn(st, (TfDataset *)self, a[1], &ft);
  }
  if (!graph) {
    Py_DECREF(ft.state);
    return NULL;
  }
  g_autofree TrTensor **out = g_new0(TrTensor *, n);
  GError *error = NULL;
  TrRunContext ctx = {eager_print, st, tf_interrupt_flag()};
  if (!tr_dataset_reduce(input, (TrTensor **)initial->pdata, n, graph, out, &ctx, &error)) {
    Py_DECREF(ft.state);
    return tf_raise_any(st, error);
  }
  PyObject **items = g_new0(PyObject *, n); /* owned */
  bool ok = true;
  for (int i = 0; i < n; i++) {
    items[i] = ok ? tf_tensor_new(st, out[i]) : NULL;
    if (!ok)
      tr_tensor_unref(out[i]);
    ok = items[i] != NULL;
  }
  PyObject *r = ok ? structure_pack(ft.state, items) : NULL;
  for (int i = 0; i < n; i++)
    Py_XDECREF(items[i]);
  g_free(items);
  Py_DECREF(ft.state);
  return r;
}

/* padded_shapes' component: a shape whose -1 dims are unknown. */
static bool
padded_shape_arg(TfState *st, PyObject *v, TrShape *out)
{
  PyObject *seq = NULL;
  if (PyList_Check(v) || PyTuple_Check(v)) {
    Py_ssize_t n = PySequence_Size(v);
    seq = PyList_New(n);
    for (Py_ssize_t i = 0; seq && i < n; i++) {
      PyObject *x = PySequence_GetItem(v, i);
      if (x && PyLong_Check(x) && PyLong_AsLongLong(x) == -1)
        Py_SETREF(x, Py_NewRef(Py_None));
      if (!x)
        Py_CLEAR(seq);
      else
        PyList_SET_ITEM(seq, i, x);
    }
    if (!seq)
      return false;
  }
  bool ok = tf_shape_arg(st, seq ? seq : v, out);
  Py_XDECREF(seq);
  if (ok && out->rank != TR_UNKNOWN)
    for (int d = 0; d < out->rank; d++)
      if (out->dims[d] < 0)
        out->dims[d] = TR_UNKNOWN;
  return ok;
}

/* Whether an input component of shape `in` can be padded to `padded`. */
static bool
paddable(const TrShape *padded, const TrShape *in)
{
  if (padded->rank == TR_UNKNOWN || in->rank == TR_UNKNOWN)
    return true;
  if (padded->rank != in->rank)
    return false;
  for (int d = 0; d < in->rank; d++)
    if (padded->dims[d] >= 0 && in->dims[d] >= 0 && padded->dims[d] < in->dims[d])
      return false;
  return true;
}

/* The padding value of component i: `v` (None: zero of its dtype), a scalar of `dtype`. */
static TrTensor *
padding_value(TfState *st, PyObject *v, TrDType dtype)
{
  if (!given(v))
    return tr_tensor_new(dtype, &(TrShape){.rank = 0});
  TrTensor *t = tf_convert(st, v, TR_DTYPE_INVALID, false);
  if (!t)
    return NULL;
  if (t->shape.rank != 0) {
    g_autofree char *s = tr_shape_to_string(&t->shape);
    PyErr_Format(PyExc_ValueError,
                 "Invalid `padding_values`. `padding_values` values should be scalars, but got "
                 "%s.",
                 s);
  } else if (t->dtype != dtype) {
    PyErr_Format(PyExc_TypeError,
                 "Invalid `padding_values`. `padding_values` values type <dtype: '%s'> does not "
                 "match type <dtype: '%s'> of the corresponding input component.",
                 tr_dtype_name(t->dtype), tr_dtype_name(dtype));
  } else {
    return t;
  }
  tr_tensor_unref(t);
  return NULL;
}

static PyObject *
dataset_padded_batch(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"batch_size",     "padded_shapes", "padding_values",
                                      "drop_remainder", "name",          NULL};
  PyObject *a[5]; /* borrowed, NULL when not given */
  if (!tf_parse_args("padded_batch", args, nargs, kwnames, names, 1, a))
    return NULL;
  TfState *st = tf_state();
  TfDataset *d = (TfDataset *)self;
  int64_t batch_size;
  if (!int64_arg(st, a[0], "batch_size", &batch_size))
    return NULL;
  int drop = given(a[3]) ? PyObject_IsTrue(a[3]) : 0;
  if (drop < 0)
    return NULL;
  TrDataset *input = eager_dataset_or_raise(self, "padded_batch");
  if (!input)
    return NULL;
  g_autofree TrShape *padded = g_new(TrShape, MAX(d->n, 1));
  g_autofree TrTensor **values = g_new0(TrTensor *, MAX(d->n, 1));
  PyObject *shape_leaves = PyList_New(0), *value_leaves = PyList_New(0);
  bool ok = shape_leaves && value_leaves;
  if (ok && given(a[1]))
    ok = structure_flatten_up_to(d->structure, a[1], shape_leaves, "`padded_shapes`");
  /* One padding value for a structured element is every component's. */
  if (ok && given(a[2]) && !PyLong_CheckExact(d->structure) &&
      (PyTuple_Check(a[2]) || PyDict_Check(a[2])))
    ok = structure_flatten_up_to(d->structure, a[2], value_leaves, "`padding_values`");
  for (int i = 0; ok && i < d->n; i++) {
    if (!given(a[1])) {
      padded[i] = d->shapes[i];
      if (padded[i].rank == TR_UNKNOWN) {
        PyErr_Format(PyExc_ValueError,
                     "You must provide `padded_shapes` argument because component %d has unknown "
                     "rank.",
                     i);
        ok = false;
        break;
      }
    } else if (!padded_shape_arg(st, PyList_GET_ITEM(shape_leaves, i), &padded[i])) {
      ok = false;
      break;
    }
    if (!paddable(&padded[i], &d->shapes[i])) {
      g_autofree char *p = tr_shape_to_string(&padded[i]);
      g_autofree char *s = tr_shape_to_string(&d->shapes[i]);
      PyErr_Format(PyExc_ValueError,
                   "The padded shape %s is not compatible with the shape %s of the corresponding "
                   "input component.",
                   p, s);
      ok = false;
      break;
    }
    PyObject *v = PyList_GET_SIZE(value_leaves) ? PyList_GET_ITEM(value_leaves, i) : a[2];
    values[i] = padding_value(st, v, d->dtypes[i]);
    ok = values[i] != NULL;
  }
  Py_XDECREF(shape_leaves);
  Py_XDECREF(value_leaves);
  GError *error = NULL;
  TrDataset *ds =
      ok ? tr_dataset_new_padded_batch(input, batch_size, padded, values, drop != 0, &error) : NULL;
  for (int i = 0; i < d->n; i++)
    if (values[i])
      tr_tensor_unref(values[i]);
  if (!ok)
    return NULL;
  return wrap_like(st, self, ds, &error, "_PaddedBatchDataset");
}

static PyObject *
dataset_apply(PyObject *self, PyObject *fn)
{
  PyObject *r = PyObject_CallOneArg(fn, self);
  if (r && !tf_is_dataset(tf_state(), r)) {
    PyErr_Format(PyExc_TypeError,
                 "`transformation_func` must return a `tf.data.Dataset` object. Got %R.",
                 (PyObject *)Py_TYPE(r));
    Py_CLEAR(r);
  }
  return r;
}

static PyObject *
dataset_cardinality(PyObject *self, PyObject *unused)
{
  TrDataset *ds = eager_dataset_or_raise(self, "cardinality");
  if (!ds)
    return NULL;
  return tf_tensor_new(tf_state(), tr_tensor_new_int64(tr_dataset_cardinality(ds)));
}

static Py_ssize_t
dataset_len(PyObject *self)
{
  TrDataset *ds = dataset_value(self);
  if (!ds) {
    PyErr_SetString(PyExc_TypeError, "`tf.data.Dataset` only supports `len` in eager mode. Use "
                                     "`tf.data.Dataset.cardinality()` instead.");
    return -1;
  }
  int64_t n = tr_dataset_cardinality(ds);
  if (n < 0) {
    PyErr_SetString(PyExc_TypeError, n == TR_DATASET_UNKNOWN_CARDINALITY
                                         ? "The dataset length is unknown."
                                         : "The dataset is infinite.");
    return -1;
  }
  return (Py_ssize_t)n;
}

/* TensorFlow's Dataset defines __bool__ because __len__ can raise. */
static int
dataset_bool(PyObject *self)
{
  return 1;
}

/* ---- iterators ------------------------------------------------------------------------------- */

static void
iterator_dealloc(PyObject *self)
{
  TfIterator *it = (TfIterator *)self;
  PyTypeObject *type = Py_TYPE(self);
  Py_XDECREF(it->dataset);
  Py_XDECREF(it->handle);
  type->tp_free(self);
  Py_DECREF(type);
}

/* An iterator over `dataset` whose position `handle` holds (stolen; NULL: made on first traced
 * use). */
static PyObject *
iterator_new(TfState *st, PyObject *dataset, PyObject *handle)
{
  TfIterator *it = PyObject_New(TfIterator, st->Iterator);
  if (!it) {
    Py_XDECREF(handle);
    return NULL;
  }
  it->dataset = Py_NewRef(dataset);
  it->handle = handle;
  it->numpy = false;
  it->traced_nexts = 0;
  return (PyObject *)it;
}

/* tf.print inside a map function, while iterating eagerly, writes to sys.stdout or sys.stderr
 * and is a tf_print event of the running cell, as an eager tf.print is. */
static void
eager_print(const char *text, size_t len, bool to_stderr, void *user)
{
  TfState *st = user;
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyObject *file = PySys_GetObject(to_stderr ? "stderr" : "stdout"); /* borrowed */
  PyObject *s = PyUnicode_DecodeUTF8(text, (Py_ssize_t)len, "replace");
  PyObject *r = file && file != Py_None && s ? PyObject_CallMethod(file, "write", "O", s) : NULL;
  Py_XDECREF(r);
  Py_XDECREF(s);
  PyErr_Clear(); /* a failing sys.stdout loses the text, as print() to it would */
  PyErr_Restore(type, value, tb);
  if (tr_event_bus_wants(st->bus, TR_EVENT_TF_PRINT)) {
    TrEvent *ev = tr_event_new(TR_EVENT_TF_PRINT);
    ev->cell = st->cell;
    ev->text = g_strndup(text, len);
    tr_event_bus_emit(st->bus, ev);
  }
}

static PyObject *
dataset_iter(PyObject *self)
{
  TfState *st = tf_state();
  if (((TfDataset *)self)->tmpl) {
    PyErr_SetString(PyExc_NotImplementedError,
                    "iterating a dataset made inside a flat_map or interleave function is not "
                    "supported; return it from the function instead");
    return NULL;
  }
  TrDataset *ds = dataset_value(self);
  if (tf_trace(st) || !ds)
    return iterator_new(st, self, NULL);
  GError *error = NULL;
  TrIterator *it = tr_iterator_new(ds, &error);
  if (!it)
    return tf_raise_any(st, error);
  PyObject *handle = tf_tensor_new(st, tr_tensor_new_variant((TrVariant *)it));
  tr_iterator_unref(it);
  return handle ? iterator_new(st, self, handle) : NULL;
}

/* A component as the iterator hands it out (t: transfer full). */
static PyObject *
component_value(TfState *st, TrTensor *t, bool numpy)
{
  PyObject *v = tf_tensor_new(st, t);
  if (!numpy || !v)
    return v;
  PyObject *r = PyObject_CallMethod(v, "numpy", NULL);
  Py_DECREF(v);
  return r;
}

/* Replaces items[i] (tf.Tensors holding datasets, owned) by Dataset objects where `inner` (may be
 * NULL) says component i is a dataset. */
static bool
wrap_nested(TfState *st, PyObject *inner, PyObject **items, int n)
{
  for (int i = 0; inner && i < n; i++) {
    PyObject *proto = PyTuple_GET_ITEM(inner, i);
    if (proto == Py_None || !items[i])
      continue;
    const TfDataset *p = (const TfDataset *)proto;
    PyObject *d = dataset_new(st, items[i], Py_NewRef(p->structure), p->n, p->dtypes, p->shapes,
                              "_VariantDataset");
    items[i] = d;
    if (!d)
      return false;
    ((TfDataset *)d)->inner = p->inner ? Py_NewRef(p->inner) : NULL;
  }
  return true;
}

/* The element `out` (transfer full each) holds, laid out as the dataset's structure. */
static PyObject *
element_value(TfState *st, const TfDataset *d, TrTensor **out, bool numpy)
{
  PyObject **items = g_new0(PyObject *, MAX(d->n, 1)); /* owned references */
  bool ok = true;
  for (int i = 0; i < d->n; i++) {
    if (!ok) {
      tr_tensor_unref(out[i]);
      continue;
    }
    bool nested = d->inner && PyTuple_GET_ITEM(d->inner, i) != Py_None;
    items[i] = component_value(st, out[i], numpy && !nested);
    ok = items[i] != NULL;
  }
  ok = ok && wrap_nested(st, d->inner, items, d->n);
  PyObject *r = ok ? structure_pack(d->structure, items) : NULL;
  for (int i = 0; i < d->n; i++)
    Py_XDECREF(items[i]);
  g_free(items);
  return r;
}

/* next() outside a trace. NULL without an exception at the end. */
static PyObject *
eager_next(TfState *st, TfIterator *it)
{
  TfDataset *d = (TfDataset *)it->dataset;
  TrIterator *ti = tr_tensor_get_iterator(tf_tensor_value(it->handle));
  TrTensor **out = g_new0(TrTensor *, MAX(d->n, 1));
  bool end = false;
  GError *error = NULL;
  TrRunContext ctx = {eager_print, st, tf_interrupt_flag()};
  PyObject *r = NULL;
  if (!tr_iterator_next(ti, out, &end, &ctx, &error))
    tf_raise_any(st, error);
  else if (!end)
    r = element_value(st, d, out, it->numpy);
  g_free(out);
  return r;
}

/* The symbolic element outputs first.. of `node` stand for, in `g`. New reference. */
static PyObject *
symbolic_element(TfState *st, const TfDataset *d, TrGraph *g, TrNode *node, int first)
{
  PyObject **items = g_new0(PyObject *, MAX(d->n, 1)); /* owned references */
  bool ok = true;
  for (int i = 0; ok && i < d->n; i++) {
    items[i] = tf_symbolic_new(st, g, tr_node_output(node, first + i));
    ok = items[i] != NULL;
  }
  ok = ok && wrap_nested(st, d->inner, items, d->n);
  PyObject *r = ok ? structure_pack(d->structure, items) : NULL;
  for (int i = 0; i < d->n; i++)
    Py_XDECREF(items[i]);
  g_free(items);
  return r;
}

/* A traced iterator's handle: a MakeIterator node over its dataset, made on first use. */
static bool
traced_handle(TfState *st, TfIterator *it, TfOperand *out)
{
  if (it->handle)
    return tf_operand(st, it->handle, TR_VARIANT, false, out);
  TfOperand ds;
  if (!tf_operand(st, ((TfDataset *)it->dataset)->variant, TR_VARIANT, false, &ds))
    return false;
  GError *error = NULL;
  TrGraph *g = tf_trace(st)->graph;
  TrNode *node = tr_graph_add_make_iterator(g, ds.out, NULL, &error);
  tf_operand_clear(&ds);
  if (!node) {
    tf_raise_any(st, error);
    return false;
  }
  it->handle = tf_symbolic_new(st, g, tr_node_output(node, 0));
  return it->handle && tf_operand(st, it->handle, TR_VARIANT, false, out);
}

/* next(it) inside a trace: an IteratorGetNext node, advancing the iterator when the graph
 * runs. */
static PyObject *
traced_next(TfState *st, TfIterator *it)
{
  TfDataset *d = (TfDataset *)it->dataset;
  if (++it->traced_nexts > MAX_TRACED_NEXTS) {
    PyErr_SetString(st->OperatorNotAllowedInGraphError,
                    "Iterating over a tf.data iterator inside a traced function with Python "
                    "iteration (list(), a comprehension) does not end: use a `for` statement, "
                    "which becomes a dataset loop, or next() a known number of times.");
    return NULL;
  }
  TfOperand h;
  if (!traced_handle(st, it, &h))
    return NULL;
  TrGraph *g = tf_trace(st)->graph;
  GError *error = NULL;
  TrNode *node = tr_graph_add_iterator_get_next(g, h.out, d->n, d->dtypes, d->shapes, NULL, &error);
  tf_operand_clear(&h);
  if (!node)
    return tf_raise_any(st, error);
  return symbolic_element(st, d, g, node, 0);
}

static PyObject *
iterator_next(PyObject *self)
{
  TfState *st = tf_state();
  TfIterator *it = (TfIterator *)self;
  if (tf_trace(st))
    return traced_next(st, it);
  if (!it->handle || !tf_tensor_value(it->handle)) {
    PyErr_SetString(PyExc_RuntimeError,
                    "This iterator belongs to a traced function and cannot be used outside of "
                    "it.");
    return NULL;
  }
  return eager_next(st, it);
}

static PyObject *
iterator_get_next(PyObject *self, PyObject *unused)
{
  PyObject *r = iterator_next(self);
  if (!r && !PyErr_Occurred()) {
    TfState *st = tf_state();
    return tf_raise_error(st,
                          g_error_new_literal(TR_ERROR, TR_ERROR_OUT_OF_RANGE, "End of sequence"));
  }
  return r;
}

static PyObject *
iterator_get_element_spec(PyObject *self, void *closure)
{
  return dataset_get_element_spec(((TfIterator *)self)->dataset, NULL);
}

static PyObject *
iterator_repr(PyObject *self)
{
  if (((TfIterator *)self)->numpy)
    return PyUnicode_FromFormat(
        "<tensorflow.python.data.ops.dataset_ops._NumpyIterator object at %p>", self);
  return PyUnicode_FromFormat(
      "<tensorflow.python.data.ops.iterator_ops.OwnedIterator object at %p>", self);
}

static PyObject *
dataset_as_numpy_iterator(PyObject *self, PyObject *unused)
{
  if (tf_trace(tf_state()) || !dataset_value(self)) {
    PyErr_SetString(PyExc_RuntimeError,
                    "`tf.data.Dataset.as_numpy_iterator()` is only supported in eager mode.");
    return NULL;
  }
  PyObject *it = dataset_iter(self);
  if (it)
    ((TfIterator *)it)->numpy = true;
  return it;
}

/* ---- the `for` loop source: a While over (iterator, has_value, components...) ---------------- */

typedef struct {
  bool make;           /* `handle` is a dataset: the loop makes its iterator */
  TrOutput handle;     /* the dataset or iterator, in the enclosing graph */
  int n;               /* components */
  TrDType *dtypes;     /* per component (owned) */
  TrShape *shapes;     /* per component (owned) */
  PyObject *structure; /* the element structure (owned) */
  PyObject *inner;     /* TfDataset.inner (owned, may be NULL) */
  char **names;        /* state placeholder names (owned, NULL-terminated) */
} DataLoop;

static bool
data_loop_init(TfState *st, void *data, TrGraph *g, TrOutput *state, GError **error)
{
  DataLoop *dl = data;
  TrOutput it = dl->handle;
  if (dl->make) {
    TrNode *make = tr_graph_add_make_iterator(g, dl->handle, NULL, error);
    if (!make)
      return false;
    it = tr_node_output(make, 0);
  }
  TrNode *first =
      tr_graph_add_iterator_get_next_as_optional(g, it, dl->n, dl->dtypes, dl->shapes, NULL, error);
  if (!first)
    return false;
  state[0] = it;
  for (int i = 0; i <= dl->n; i++)
    state[1 + i] = tr_node_output(first, i);
  return true;
}

static bool
data_loop_test(void *data, TrGraph *cond, const TrOutput *state, TrOutput *more, GError **error)
{
  *more = state[1];
  return true;
}

static PyObject *
data_loop_element(TfState *st, void *data, TrGraph *body, const TrOutput *state)
{
  DataLoop *dl = data;
  PyObject **items = g_new0(PyObject *, MAX(dl->n, 1)); /* owned references */
  bool ok = true;
  for (int i = 0; ok && i < dl->n; i++) {
    items[i] = tf_symbolic_new(st, body, state[2 + i]);
    ok = items[i] != NULL;
  }
  ok = ok && wrap_nested(st, dl->inner, items, dl->n);
  PyObject *r = ok ? structure_pack(dl->structure, items) : NULL;
  for (int i = 0; i < dl->n; i++)
    Py_XDECREF(items[i]);
  g_free(items);
  return r;
}

static bool
data_loop_step(void *data, TrGraph *body, const TrOutput *state, TrOutput *next, GError **error)
{
  DataLoop *dl = data;
  TrNode *node = tr_graph_add_iterator_get_next_as_optional(body, state[0], dl->n, dl->dtypes,
                                                            dl->shapes, NULL, error);
  if (!node)
    return false;
  next[0] = state[0];
  for (int i = 0; i <= dl->n; i++)
    next[1 + i] = tr_node_output(node, i);
  return true;
}

static void
data_loop_free(void *data)
{
  DataLoop *dl = data;
  g_free(dl->dtypes);
  g_free(dl->shapes);
  Py_XDECREF(dl->structure);
  Py_XDECREF(dl->inner);
  g_strfreev(dl->names);
  g_free(dl);
}

bool
tf_dataset_loop_source(TfState *st, PyObject *v, TfLoopSource *source, void **data)
{
  bool iterator = tf_is_dataset_iterator(st, v);
  g_return_val_if_fail(iterator || tf_is_dataset(st, v), false);
  TfDataset *d = (TfDataset *)(iterator ? ((TfIterator *)v)->dataset : v);
  if (d->n + 2 > TF_LOOP_MAX_STATE) {
    PyErr_Format(PyExc_NotImplementedError,
                 "a `for` loop over a dataset inside a traced function supports elements of at "
                 "most %d components",
                 TF_LOOP_MAX_STATE - 2);
    return false;
  }
  /* Over a dataset the loop makes a fresh iterator; over an iterator it advances that one. */
  TfOperand h;
  if (iterator ? !traced_handle(st, (TfIterator *)v, &h)
               : !tf_operand(st, d->variant, TR_VARIANT, false, &h))
    return false;
  DataLoop *dl = g_new0(DataLoop, 1);
  dl->make = !iterator;
  dl->handle = h.out;
  tf_operand_clear(&h);
  dl->n = d->n;
  dl->dtypes = g_memdup2(d->dtypes, sizeof(TrDType) * (size_t)MAX(d->n, 1));
  dl->shapes = g_memdup2(d->shapes, sizeof(TrShape) * (size_t)MAX(d->n, 1));
  dl->structure = Py_NewRef(d->structure);
  dl->inner = d->inner ? Py_NewRef(d->inner) : NULL;
  dl->names = g_new0(char *, d->n + 3);
  dl->names[0] = g_strdup("iterator");
  dl->names[1] = g_strdup("has_value");
  for (int i = 0; i < d->n; i++)
    dl->names[2 + i] = g_strdup_printf("element_%d", i);
  *source = (TfLoopSource){
      .n_state = d->n + 2,
      .names = (const char *const *)dl->names,
      .init = data_loop_init,
      .test = data_loop_test,
      .element = data_loop_element,
      .step = data_loop_step,
      .free = data_loop_free,
  };
  *data = dl;
  return true;
}

/* ---- datasets and iterators as Function arguments ------------------------------------------- */

/* The element spec as trace types: TensorSpecs laid out as the structure. */
static TrTraceType *
spec_trace_type(PyObject *structure, const TfDataset *d)
{
  if (PyLong_CheckExact(structure)) {
    Py_ssize_t i = PyLong_AsSsize_t(structure);
    return tr_trace_type_new_tensor(d->dtypes[i], &d->shapes[i], NULL);
  }
  if (PyTuple_Check(structure)) {
    int n = (int)PyTuple_GET_SIZE(structure);
    g_autofree TrTraceType **items = g_new(TrTraceType *, MAX(n, 1));
    for (int i = 0; i < n; i++)
      items[i] = spec_trace_type(PyTuple_GET_ITEM(structure, i), d);
    return tr_trace_type_new_tuple(n, items);
  }
  int n = (int)PyDict_GET_SIZE(structure), i = 0;
  g_autofree TrTraceType **keys = g_new(TrTraceType *, MAX(n, 1));
  g_autofree TrTraceType **vals = g_new(TrTraceType *, MAX(n, 1));
  Py_ssize_t pos = 0;
  PyObject *key, *sub; /* borrowed */
  while (PyDict_Next(structure, &pos, &key, &sub) && i < n) {
    const char *text = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
    if (text) {
      keys[i] = tr_trace_type_new_str(text);
    } else {
      PyErr_Clear();
      keys[i] = tr_trace_type_new_int(PyLong_Check(key) ? PyLong_AsLongLong(key) : i);
      PyErr_Clear();
    }
    vals[i++] = spec_trace_type(sub, d);
  }
  return tr_trace_type_new_dict(i, keys, vals);
}

TrTraceType *
tf_data_trace_type(TfState *st, PyObject *v)
{
  bool iterator = tf_is_dataset_iterator(st, v);
  TfDataset *d = (TfDataset *)(iterator ? ((TfIterator *)v)->dataset : v);
  static const char *const fields[] = {"element_spec"};
  TrTraceType *spec = spec_trace_type(d->structure, d);
  return tr_trace_type_new_namedtuple(iterator ? "IteratorSpec" : "DatasetSpec", 1, fields, &spec);
}

PyObject *
tf_data_placeholder(TfState *st, TrGraph *g, PyObject *v, const char *name)
{
  TrShape scalar = tr_shape_scalar();
  TrNode *ph = tr_graph_add_placeholder(g, TR_VARIANT, &scalar, name);
  PyObject *handle = tf_symbolic_new(st, g, tr_node_output(ph, 0));
  if (!handle)
    return NULL;
  if (tf_is_dataset_iterator(st, v))
    return iterator_new(st, ((TfIterator *)v)->dataset, handle);
  TfDataset *d = (TfDataset *)v;
  PyObject *r =
      dataset_new(st, handle, Py_NewRef(d->structure), d->n, d->dtypes, d->shapes, d->kind);
  if (r)
    ((TfDataset *)r)->inner = d->inner ? Py_NewRef(d->inner) : NULL;
  return r;
}

bool
tf_data_operand(TfState *st, PyObject *v, TfOperand *out)
{
  if (tf_is_dataset(st, v) && ((TfDataset *)v)->tmpl) {
    PyErr_SetString(PyExc_NotImplementedError,
                    "a dataset made inside a flat_map or interleave function can only be that "
                    "function's result");
    return false;
  }
  if (tf_is_dataset(st, v))
    return tf_operand(st, ((TfDataset *)v)->variant, TR_VARIANT, false, out);
  TfIterator *it = (TfIterator *)v;
  if (tf_trace(st))
    return traced_handle(st, it, out);
  if (!it->handle) {
    PyErr_SetString(PyExc_RuntimeError,
                    "This iterator belongs to a traced function and cannot be used outside of "
                    "it.");
    return false;
  }
  return tf_operand(st, it->handle, TR_VARIANT, false, out);
}

/* ---- types and the module -------------------------------------------------------------------- */

#define FASTCALL_KW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

static PyMethodDef dataset_methods[] = {
    {"from_tensor_slices", FASTCALL_KW(data_from_tensor_slices) | METH_STATIC,
     "from_tensor_slices(tensors, name=None)\n--\n\n"
     "A dataset whose elements are slices of the given tensors along their first dimension."},
    {"from_tensors", FASTCALL_KW(data_from_tensors) | METH_STATIC,
     "from_tensors(tensors, name=None)\n--\n\nA dataset of one element, the given tensors."},
    {"from_generator", FASTCALL_KW(data_from_generator) | METH_STATIC,
     "from_generator(generator, output_types=None, output_shapes=None, args=None, "
     "output_signature=None, name=None)\n--\n\n"
     "A dataset whose elements the Python generator yields."},
    {"range", FASTCALL_KW(data_range) | METH_STATIC,
     "range(*args, output_type=tf.int64, name=None)\n--\n\n"
     "A dataset of a step-separated range of int64 values."},
    {"batch", FASTCALL_KW(dataset_batch),
     "batch($self, batch_size, drop_remainder=False, num_parallel_calls=None, "
     "deterministic=None, name=None)\n--\n\nCombines consecutive elements into batches."},
    {"map", FASTCALL_KW(dataset_map),
     "map($self, map_func, num_parallel_calls=None, deterministic=None, name=None)\n--\n\n"
     "Maps map_func (traced once into a graph) across the elements."},
    {"zip", FASTCALL_KW(data_zip) | METH_STATIC,
     "zip(*args, datasets=None, name=None)\n--\n\n"
     "A dataset of the given (nested structure of) datasets' elements side by side."},
    {"concatenate", FASTCALL_KW(dataset_concatenate),
     "concatenate($self, dataset, name=None)\n--\n\nThis dataset's elements, then dataset's."},
    {"repeat", FASTCALL_KW(dataset_repeat),
     "repeat($self, count=None, name=None)\n--\n\nRepeats this dataset `count` times "
     "(forever when None or -1)."},
    {"take", FASTCALL_KW(dataset_take),
     "take($self, count, name=None)\n--\n\nThe first `count` elements (all when -1)."},
    {"skip", FASTCALL_KW(dataset_skip),
     "skip($self, count, name=None)\n--\n\nAll but the first `count` elements."},
    {"filter", FASTCALL_KW(dataset_filter),
     "filter($self, predicate, name=None)\n--\n\nThe elements for which predicate is True."},
    {"flat_map", FASTCALL_KW(dataset_flat_map),
     "flat_map($self, map_func, name=None)\n--\n\n"
     "Maps map_func (returning a dataset) across the elements and flattens the result."},
    {"interleave", FASTCALL_KW(dataset_interleave),
     "interleave($self, map_func, cycle_length=None, block_length=None, "
     "num_parallel_calls=None, deterministic=None, name=None)\n--\n\n"
     "Maps map_func across the elements and interleaves the results."},
    {"padded_batch", FASTCALL_KW(dataset_padded_batch),
     "padded_batch($self, batch_size, padded_shapes=None, padding_values=None, "
     "drop_remainder=False, name=None)\n--\n\nCombines consecutive elements into padded "
     "batches."},
    {"window", FASTCALL_KW(dataset_window),
     "window($self, size, shift=None, stride=1, drop_remainder=False, name=None)\n--\n\n"
     "Groups elements into windows, each a dataset per component."},
    {"shuffle", FASTCALL_KW(dataset_shuffle),
     "shuffle($self, buffer_size, seed=None, reshuffle_each_iteration=None, name=None)\n--\n\n"
     "Randomly shuffles the elements."},
    {"prefetch", FASTCALL_KW(dataset_prefetch),
     "prefetch($self, buffer_size, name=None)\n--\n\nThe elements unchanged."},
    {"cache", FASTCALL_KW(dataset_cache),
     "cache($self, filename='', name=None)\n--\n\nCaches the elements (in memory)."},
    {"enumerate", FASTCALL_KW(dataset_enumerate),
     "enumerate($self, start=0, name=None)\n--\n\nPairs each element with its index."},
    {"unbatch", FASTCALL_KW(dataset_unbatch),
     "unbatch($self, name=None)\n--\n\nSplits elements into their rows."},
    {"scan", FASTCALL_KW(dataset_scan),
     "scan($self, initial_state, scan_func, name=None)\n--\n\n"
     "A transformation that scans a function across the elements."},
    {"reduce", FASTCALL_KW(dataset_reduce),
     "reduce($self, initial_state, reduce_func, name=None)\n--\n\n"
     "Reduces the elements to a single value."},
    {"apply", dataset_apply, METH_O,
     "apply($self, transformation_func)\n--\n\ntransformation_func(self)."},
    {"cardinality", dataset_cardinality, METH_NOARGS,
     "cardinality($self)\n--\n\nThe number of elements, or -2 when unknown."},
    {"as_numpy_iterator", dataset_as_numpy_iterator, METH_NOARGS,
     "as_numpy_iterator($self)\n--\n\nAn iterator giving the elements' NumPy values."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef dataset_getsets[] = {
    {"element_spec", dataset_get_element_spec, NULL, "The type specification of an element.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot dataset_slots[] = {
    {Py_tp_dealloc, dataset_dealloc},
    {Py_tp_repr, dataset_repr},
    {Py_tp_iter, dataset_iter},
    {Py_sq_length, dataset_len},
    {Py_nb_bool, dataset_bool},
    {Py_tp_methods, dataset_methods},
    {Py_tp_getset, dataset_getsets},
    {Py_tp_doc, "Represents a potentially large set of elements."},
    {0, NULL},
};

static PyType_Spec dataset_spec = {
    .name = "tensorflow.python.data.ops.dataset_ops.DatasetV2",
    .basicsize = sizeof(TfDataset),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = dataset_slots,
};

static PyMethodDef iterator_methods[] = {
    {"get_next", iterator_get_next, METH_NOARGS,
     "get_next($self)\n--\n\nThe next element; OutOfRangeError at the end."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef iterator_getsets[] = {
    {"element_spec", iterator_get_element_spec, NULL, "The type specification of an element.",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot iterator_slots[] = {
    {Py_tp_dealloc, iterator_dealloc},
    {Py_tp_repr, iterator_repr},
    {Py_tp_iter, PyObject_SelfIter},
    {Py_tp_iternext, iterator_next},
    {Py_tp_methods, iterator_methods},
    {Py_tp_getset, iterator_getsets},
    {Py_tp_doc, "An iterator over a tf.data.Dataset."},
    {0, NULL},
};

static PyType_Spec iterator_spec = {
    .name = "tensorflow.python.data.ops.iterator_ops.OwnedIterator",
    .basicsize = sizeof(TfIterator),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = iterator_slots,
};

/* A submodule `dotted` set as attribute `attr` of `parent` and in sys.modules. Borrowed (the
 * parent owns it), or NULL. */
static PyObject *
add_submodule(PyObject *parent, const char *dotted, const char *attr, const char *doc)
{
  PyObject *sub = PyModule_New(dotted);
  if (!sub)
    return NULL;
  if (PyModule_AddStringConstant(sub, "__doc__", doc) < 0 ||
      PyDict_SetItemString(PyImport_GetModuleDict(), dotted, sub) < 0 ||
      PyModule_AddObjectRef(parent, attr, sub) < 0) {
    Py_DECREF(sub);
    return NULL;
  }
  Py_DECREF(sub);
  return sub;
}

/* What is simplest in Python: tf.data.DatasetSpec (the spec of a dataset-valued component, printed
 * as TensorFlow's TypeSpec repr) and tf.data.experimental.cardinality. */
static const char data_python[] =
    "class DatasetSpec:\n"
    "  'Type specification for `tf.data.Dataset`.'\n"
    "  def __init__(self, element_spec, dataset_shape=()):\n"
    "    self._element_spec = element_spec\n"
    "    self._dataset_shape = _TensorShape(dataset_shape)\n"
    "  element_spec = property(lambda self: self._element_spec)\n"
    "  def __repr__(self):\n"
    "    return 'DatasetSpec(%r, %r)' % (self._element_spec, self._dataset_shape)\n"
    "  def __eq__(self, other):\n"
    "    return (type(other) is DatasetSpec and self._element_spec == other._element_spec\n"
    "            and self._dataset_shape == other._dataset_shape)\n"
    "  __hash__ = None\n"
    "DatasetSpec.__module__ = 'tensorflow.python.data.ops.dataset_ops'\n"
    "def cardinality(dataset):\n"
    "  'The cardinality of `dataset`.'\n"
    "  return dataset.cardinality()\n";

static int
data_init_python(TfState *st, PyObject *data, PyObject *experimental)
{
  PyObject *ns = PyDict_New();
  if (!ns || PyDict_SetItemString(ns, "__builtins__", PyEval_GetBuiltins()) < 0 ||
      PyDict_SetItemString(ns, "_TensorShape", (PyObject *)st->TensorShape) < 0) {
    Py_XDECREF(ns);
    return -1;
  }
  PyObject *r = PyRun_String(data_python, Py_file_input, ns, ns);
  Py_XDECREF(r);
  PyObject *spec = r ? PyDict_GetItemString(ns, "DatasetSpec") : NULL; /* borrowed */
  PyObject *card = r ? PyDict_GetItemString(ns, "cardinality") : NULL; /* borrowed */
  int rc = -1;
  if (spec && card && PyModule_AddObjectRef(data, "DatasetSpec", spec) == 0 &&
      PyModule_AddObjectRef(experimental, "cardinality", card) == 0) {
    st->DatasetSpec = Py_NewRef(spec);
    rc = 0;
  }
  Py_DECREF(ns);
  return rc;
}

int
tf_data_init(PyObject *module, TfState *st)
{
  st->Dataset = (PyTypeObject *)PyType_FromModuleAndSpec(module, &dataset_spec, NULL);
  st->Iterator = (PyTypeObject *)PyType_FromModuleAndSpec(module, &iterator_spec, NULL);
  if (!st->Dataset || !st->Iterator)
    return -1;
  PyObject *data = add_submodule(module, "tensorflow.data", "data", "tf.data: input pipelines.");
  PyObject *experimental = data ? add_submodule(data, "tensorflow.data.experimental",
                                                "experimental", "Experimental tf.data APIs.")
                                : NULL;
  if (!experimental || PyModule_AddObjectRef(data, "Dataset", (PyObject *)st->Dataset) < 0 ||
      PyModule_AddObjectRef(data, "Iterator", (PyObject *)st->Iterator) < 0 ||
      PyModule_AddIntConstant(data, "AUTOTUNE", -1) < 0 ||
      PyModule_AddIntConstant(experimental, "AUTOTUNE", -1) < 0)
    return -1;
  static const char *const cards[] = {"INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY"};
  static const int values[] = {TR_DATASET_INFINITE_CARDINALITY, TR_DATASET_UNKNOWN_CARDINALITY};
  for (int i = 0; i < 2; i++)
    if (PyModule_AddIntConstant(data, cards[i], values[i]) < 0 ||
        PyModule_AddIntConstant(experimental, cards[i], values[i]) < 0)
      return -1;
  return data_init_python(st, data, experimental);
}

void
tf_data_clear(TfState *st)
{
  Py_CLEAR(st->Dataset);
  Py_CLEAR(st->Iterator);
  Py_CLEAR(st->DatasetSpec);
}
