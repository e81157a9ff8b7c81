/* tf-tensor.c — tf.Tensor, tf.TensorShape, convert_to_tensor and NumPy interop: how Python
 * values become TrTensors and tensors behave as Python objects.
 *
 * One type stands for eager tensors (a TrTensor) and symbolic ones (an output of the graph being
 * traced). Operators follow TensorFlow's overloads: the other operand is converted with the
 * tensor's dtype as a hint (so `x + 1` stays float32 for a float32 x), `/` is truediv, `==` is
 * elementwise and hashing is refused. Indexing builds one StridedSlice with TF's masks.
 *
 * NumPy (SPEC §1) is never imported by `import tensorflow`: conversions look for NumPy objects
 * only once a program has imported NumPy itself, and .numpy() imports it on first use. Eager
 * tensors export their memory through the buffer protocol, read-only (tensors are immutable and
 * shared: np.asarray(t) is a read-only view, np.array(t) and t.numpy() are writable copies).
 * Text forms come from core/tensor's printer (NumPy 1.24's rules inside TF's wrappers).
 */
#include "tf-private.h"

#include <complex.h>
#include "tr-print.h"

#include <structmember.h>

#include <math.h>
#include <string.h>

/* ---- argument parsing ------------------------------------------------------------------------ */

bool
tf_parse_args(const char *fname, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
              const char *const *names, int n_required, PyObject **out)
{
  int n = 0;
  while (names[n])
    n++;
  for (int i = 0; i < n; i++)
    out[i] = NULL;
  if (nargs > n) {
    PyErr_Format(PyExc_TypeError, "%s() takes at most %d positional arguments (%zd given)", fname,
                 n, nargs);
    return false;
  }
  for (Py_ssize_t i = 0; i < nargs; i++)
    out[i] = args[i];
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; k++) {
    PyObject *key = PyTuple_GET_ITEM(kwnames, k); /* borrowed */
    int i = 0;
    while (i < n && PyUnicode_CompareWithASCIIString(key, names[i]) != 0)
      i++;
    if (i == n) {
      PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", fname, key);
      return false;
    }
    if (out[i]) {
      PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fname, names[i]);
      return false;
    }
    out[i] = args[nargs + k];
  }
  for (int i = 0; i < n_required; i++)
    if (!out[i]) {
      PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s' (pos %d)", fname, names[i],
                   i + 1);
      return false;
    }
  return true;
}

/* ---- tensor objects ------------------------------------------------------------------------- */

PyObject *
tf_tensor_new(TfState *st, TrTensor *t)
{
  if (!t)
    return NULL;
  TfTensor *o = PyObject_New(TfTensor, st->EagerTensor);
  if (!o) {
    tr_tensor_unref(t);
    return NULL;
  }
  o->value = t;
  o->graph = NULL;
  o->out = (TrOutput){NULL, 0};
  o->weakreflist = NULL;
  return (PyObject *)o;
}

PyObject *
tf_result(TfState *st, TrTensor *t, GError *error)
{
  if (!t)
    return tf_raise_error(st, error);
  return tf_tensor_new(st, t);
}

PyObject *
tf_symbolic_new(TfState *st, TrGraph *graph, TrOutput out)
{
  TfTensor *o = PyObject_New(TfTensor, st->SymbolicTensor);
  if (!o)
    return NULL;
  o->value = NULL;
  o->graph = tr_graph_ref(graph);
  o->out = out;
  o->weakreflist = NULL;
  return (PyObject *)o;
}

static void
tensor_dealloc(PyObject *self)
{
  TfTensor *t = (TfTensor *)self;
  PyTypeObject *type = Py_TYPE(self);
  if (t->weakreflist)
    PyObject_ClearWeakRefs(self);
  if (t->value)
    tr_tensor_unref(t->value);
  if (t->graph)
    tr_graph_unref(t->graph);
  type->tp_free(self);
  Py_DECREF(type);
}

TrDType
tf_dtype_of(TfState *st, PyObject *v)
{
  if (tf_is_tensor(st, v)) {
    TfTensor *t = (TfTensor *)v;
    return t->value ? t->value->dtype : tr_output_dtype(t->out);
  }
  if (st->Variable && tf_is_variable(st, v))
    return ((TfVariable *)v)->var->dtype;
  return TR_DTYPE_INVALID;
}

bool
tf_shape_of(TfState *st, PyObject *v, TrShape *out)
{
  if (tf_is_tensor(st, v)) {
    TfTensor *t = (TfTensor *)v;
    *out = t->value ? t->value->shape : *tr_output_shape(t->out);
    return true;
  }
  if (st->Variable && tf_is_variable(st, v)) {
    *out = ((TfVariable *)v)->var->shape;
    return true;
  }
  return false;
}

/* "add:0" (transfer full). */
static char *
symbolic_name(PyObject *self)
{
  return tr_output_name(tf_symbolic_output(self));
}

/* The eager value of self; for a symbolic tensor, TypeError saying `what` needs a value. */
static TrTensor *
value_for(PyObject *self, const char *what)
{
  TrTensor *t = tf_tensor_value(self);
  if (!t) {
    g_autofree char *name = symbolic_name(self);
    PyErr_Format(PyExc_TypeError,
                 "%s needs the value of a symbolic tensor (%s), which exists only when its graph "
                 "runs. Return the tensor from the tf.function instead.",
                 what, name);
  }
  return t;
}

/* A Python str made from `text` (transfer full of text). */
static PyObject *
text_result(char *text)
{
  PyObject *s = PyUnicode_FromString(text);
  g_free(text);
  return s;
}

static PyObject *
tensor_repr(PyObject *self)
{
  TrTensor *t = tf_tensor_value(self);
  if (t)
    return text_result(tr_tensor_repr(t));
  TrOutput out = tf_symbolic_output(self);
  g_autofree char *name = tr_output_name(out);
  g_autofree char *shape = tr_shape_to_string(tr_output_shape(out));
  return PyUnicode_FromFormat("<tf.Tensor '%s' shape=%s dtype=%s>", name, shape,
                              tr_dtype_name(tr_output_dtype(out)));
}

static PyObject *
tensor_str(PyObject *self)
{
  TrTensor *t = tf_tensor_value(self);
  if (t)
    return text_result(tr_tensor_to_string(t));
  return text_result(tr_output_to_string(tf_symbolic_output(self)));
}

static Py_hash_t
tensor_hash(PyObject *self)
{
  PyErr_SetString(PyExc_TypeError, "Tensor is unhashable. Instead, use tensor.ref() as the key.");
  return -1;
}

/* ---- TensorShape ---------------------------------------------------------------------------- */

typedef struct {
  PyObject_HEAD
  TrShape shape; /* possibly partial */
} TfShape;

static const TrShape *
shape_of(PyObject *self)
{
  return &((TfShape *)self)->shape;
}

PyObject *
tf_shape_new(TfState *st, const TrShape *shape)
{
  TfShape *o = PyObject_New(TfShape, st->TensorShape);
  if (!o)
    return NULL;
  o->shape.rank = shape->rank;
  if (shape->rank > 0)
    memcpy(o->shape.dims, shape->dims, sizeof(int64_t) * (size_t)shape->rank);
  return (PyObject *)o;
}

static void
shape_dealloc(PyObject *self)
{
  PyTypeObject *type = Py_TYPE(self);
  type->tp_free(self);
  Py_DECREF(type);
}

static PyObject *
dim_value(int64_t d)
{
  if (d < 0)
    Py_RETURN_NONE;
  return PyLong_FromLongLong(d);
}

/* tf.TensorShape(dims): a list/tuple of dims (None: unknown), or None for an unknown rank. */
static PyObject *
shape_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
  PyObject *dims;
  static char *kwlist[] = {"dims", NULL};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:TensorShape", kwlist, &dims))
    return NULL;
  TfState *st = tf_state();
  TrShape s;
  if (!tf_shape_arg(st, dims, &s))
    return NULL;
  return tf_shape_new(st, &s);
}

static PyObject *
shape_str(PyObject *self)
{
  return text_result(tr_shape_to_string(shape_of(self)));
}

/* TensorShape([2, None]) / TensorShape(None) */
static PyObject *
shape_repr(PyObject *self)
{
  const TrShape *s = shape_of(self);
  if (s->rank < 0)
    return PyUnicode_FromString("TensorShape(None)");
  GString *out = g_string_new("TensorShape([");
  for (int i = 0; i < s->rank; i++) {
    if (i)
      g_string_append(out, ", ");
    if (s->dims[i] < 0)
      g_string_append(out, "None");
    else
      g_string_append_printf(out, "%" G_GINT64_FORMAT, s->dims[i]);
  }
  g_string_append(out, "])");
  return text_result(g_string_free(out, FALSE));
}

static PyObject *
shape_as_list(PyObject *self, PyObject *unused)
{
  const TrShape *s = shape_of(self);
  if (s->rank < 0) {
    PyErr_SetString(PyExc_ValueError, "as_list() is not defined on an unknown TensorShape.");
    return NULL;
  }
  PyObject *list = PyList_New(s->rank);
  for (int i = 0; list && i < s->rank; i++) {
    PyObject *d = dim_value(s->dims[i]);
    if (!d) {
      Py_CLEAR(list);
      break;
    }
    PyList_SET_ITEM(list, i, d);
  }
  return list;
}

static PyObject *
shape_num_elements(PyObject *self, PyObject *unused)
{
  int64_t n = tr_shape_num_elements(shape_of(self));
  return dim_value(n);
}

static PyObject *
shape_is_fully_defined(PyObject *self, PyObject *unused)
{
  return PyBool_FromLong(tr_shape_is_fully_defined(shape_of(self)));
}

static PyObject *
shape_is_compatible_with(PyObject *self, PyObject *other)
{
  TrShape o;
  if (!tf_shape_arg(tf_state(), other, &o))
    return NULL;
  return PyBool_FromLong(tr_shape_is_compatible_with(shape_of(self), &o));
}

static PyObject *
shape_get_rank(PyObject *self, void *closure)
{
  int rank = shape_of(self)->rank;
  if (rank < 0)
    Py_RETURN_NONE;
  return PyLong_FromLong(rank);
}

static PyObject *
shape_get_dims(PyObject *self, void *closure)
{
  if (shape_of(self)->rank < 0)
    Py_RETURN_NONE;
  return shape_as_list(self, NULL);
}

static Py_ssize_t
shape_len(PyObject *self)
{
  int rank = shape_of(self)->rank;
  if (rank < 0) {
    PyErr_SetString(PyExc_ValueError, "Cannot take the length of shape with unknown rank.");
    return -1;
  }
  return rank;
}

static PyObject *
shape_getitem(PyObject *self, PyObject *key)
{
  const TrShape *s = shape_of(self);
  if (PySlice_Check(key)) {
    if (s->rank < 0)
      return tf_shape_new(tf_state(), s);
    Py_ssize_t start, stop, step;
    if (PySlice_Unpack(key, &start, &stop, &step) < 0)
      return NULL;
    Py_ssize_t count = PySlice_AdjustIndices(s->rank, &start, &stop, step);
    TrShape r = {.rank = (int)count};
    for (Py_ssize_t i = 0; i < count; i++)
      r.dims[i] = s->dims[start + i * step];
    return tf_shape_new(tf_state(), &r);
  }
  Py_ssize_t i = PyNumber_AsSsize_t(key, PyExc_IndexError);
  if (i == -1 && PyErr_Occurred())
    return NULL;
  if (s->rank < 0)
    Py_RETURN_NONE;
  if (i < 0)
    i += s->rank;
  if (i < 0 || i >= s->rank) {
    PyErr_SetString(PyExc_IndexError, "list index out of range");
    return NULL;
  }
  return dim_value(s->dims[i]);
}

static PyObject *
shape_iter(PyObject *self)
{
  PyObject *list = shape_as_list(self, NULL);
  if (!list)
    return NULL;
  PyObject *it = PyObject_GetIter(list);
  Py_DECREF(list);
  return it;
}

/* TensorShape == TensorShape / list / tuple: equal dims (None only equals None). */
static PyObject *
shape_richcompare(PyObject *self, PyObject *other, int op)
{
  TfState *st = tf_state();
  if (op != Py_EQ && op != Py_NE)
    Py_RETURN_NOTIMPLEMENTED;
  TrShape o;
  if (Py_IS_TYPE(other, st->TensorShape))
    o = *shape_of(other);
  else if (PyList_Check(other) || PyTuple_Check(other)) {
    if (!tf_shape_arg(st, other, &o)) {
      PyErr_Clear();
      return PyBool_FromLong(op == Py_NE);
    }
  } else
    Py_RETURN_NOTIMPLEMENTED;
  const TrShape *s = shape_of(self);
  bool eq = s->rank == o.rank;
  for (int i = 0; eq && i < s->rank; i++)
    eq = s->dims[i] == o.dims[i];
  return PyBool_FromLong(eq == (op == Py_EQ));
}

static Py_hash_t
shape_hash(PyObject *self)
{
  const TrShape *s = shape_of(self);
  Py_hash_t h = s->rank;
  for (int i = 0; i < s->rank; i++)
    h = h * 1000003 ^ (Py_hash_t)s->dims[i];
  return h == -1 ? -2 : h;
}

static PyMethodDef shape_methods[] = {
    {"as_list", shape_as_list, METH_NOARGS, "The dimensions as a list (None if unknown)."},
    {"num_elements", shape_num_elements, METH_NOARGS, "The element count, or None."},
    {"is_fully_defined", shape_is_fully_defined, METH_NOARGS, "Whether every dim is known."},
    {"is_compatible_with", shape_is_compatible_with, METH_O,
     "Whether `other` could be this shape."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef shape_getset[] = {
    {"rank", shape_get_rank, NULL, "The number of dimensions, or None.", NULL},
    {"ndims", shape_get_rank, NULL, "The number of dimensions, or None.", NULL},
    {"dims", shape_get_dims, NULL, "The dimensions, or None for an unknown rank.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot shape_slots[] = {
    {Py_tp_new, shape_new},
    {Py_tp_dealloc, shape_dealloc},
    {Py_tp_repr, shape_repr},
    {Py_tp_str, shape_str},
    {Py_tp_hash, shape_hash},
    {Py_tp_richcompare, shape_richcompare},
    {Py_tp_iter, shape_iter},
    {Py_mp_length, shape_len},
    {Py_mp_subscript, shape_getitem},
    {Py_tp_methods, shape_methods},
    {Py_tp_getset, shape_getset},
    {Py_tp_doc, "Represents the shape of a Tensor."},
    {0, NULL},
};

static PyType_Spec shape_spec = {
    .name = "tensorflow.TensorShape",
    .basicsize = sizeof(TfShape),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = shape_slots,
};

/* A scalar integer value of a shape or index: a Python int (not bool), an object with
 * __index__, or an eager scalar int tensor. False without an exception when v is none of them. */
static bool
int_like(TfState *st, PyObject *v, int64_t *out)
{
  if (tf_is_tensor(st, v)) {
    TrTensor *t = tf_tensor_value(v);
    if (!t || t->shape.rank != 0 || !tr_dtype_is_int(t->dtype))
      return false;
    *out = tr_tensor_get_i64(t, 0);
    return true;
  }
  if (PyBool_Check(v) || !PyIndex_Check(v))
    return false;
  int overflow;
  PyObject *i = PyNumber_Index(v); /* owned */
  if (!i) {
    PyErr_Clear();
    return false;
  }
  *out = PyLong_AsLongLongAndOverflow(i, &overflow);
  Py_DECREF(i);
  if (overflow || (*out == -1 && PyErr_Occurred())) {
    PyErr_Clear();
    return false;
  }
  return true;
}

bool
tf_shape_arg(TfState *st, PyObject *v, TrShape *out)
{
  if (Py_IS_TYPE(v, st->TensorShape)) {
    *out = *shape_of(v);
    return true;
  }
  if (v == Py_None) {
    *out = tr_shape_unknown();
    return true;
  }
  if (tf_is_tensor(st, v) || (st->Variable && tf_is_variable(st, v))) {
    g_autoptr(TrTensor) t = tf_static_value(st, v);
    if (!t) {
      if (tf_is_tensor(st, v))
        value_for(v, "A shape argument");
      else
        PyErr_SetString(PyExc_TypeError, "A shape argument must be known when the op is built.");
      return false;
    }
    if (t->shape.rank > 1 || !tr_dtype_is_int(t->dtype) ||
        tr_tensor_num_elements(t) > TR_MAX_RANK) {
      PyErr_Format(PyExc_ValueError, "Shape must be rank 1 but is rank %d", t->shape.rank);
      return false;
    }
    int64_t n = t->shape.rank == 0 ? 1 : t->shape.dims[0];
    out->rank = (int)n;
    for (int64_t i = 0; i < n; i++)
      out->dims[i] = tr_tensor_get_i64(t, i);
    return true;
  }
  int64_t d;
  if (int_like(st, v, &d)) {
    *out = tr_shape_make(1, &d);
    return true;
  }
  if (!PyList_Check(v) && !PyTuple_Check(v)) {
    PyErr_Format(PyExc_TypeError,
                 "Failed to convert '%R' to a shape: '%R'could not be converted to a dimension. "
                 "A shape should either be single dimension (e.g. 10), or an iterable of "
                 "dimensions (e.g. [1, 10, None]).",
                 v, v);
    return false;
  }
  /* A dim's __index__ may change a list: its items are read from a tuple of them. */
  PyObject *items = PySequence_Tuple(v); /* owned */
  if (!items)
    return false;
  Py_ssize_t n = PyTuple_GET_SIZE(items);
  bool ok = n <= TR_MAX_RANK;
  if (!ok)
    PyErr_Format(PyExc_ValueError, "shapes may have at most %d dimensions", TR_MAX_RANK);
  out->rank = ok ? (int)n : 0;
  for (Py_ssize_t i = 0; ok && i < n; i++) {
    PyObject *item = PyTuple_GET_ITEM(items, i); /* borrowed */
    if (item == Py_None)
      out->dims[i] = TR_UNKNOWN;
    else if (!(ok = int_like(st, item, &out->dims[i])))
      PyErr_Format(PyExc_TypeError,
                   "Dimension value must be integer or None or have an __index__ method, got "
                   "value '%R' with type '%s'",
                   item, Py_TYPE(item)->tp_name);
  }
  Py_DECREF(items);
  return ok;
}

/* ---- NumPy ---------------------------------------------------------------------------------- */

/* Whether NumPy is usable without importing it: it is in st->numpy already, or the program
 * imported it (then it is taken into the state). With `import`, imports it. False with an
 * exception set only when `import` fails. */
static bool
numpy_ready(TfState *st, bool import)
{
  if (st->numpy)
    return true;
  static PyObject *name; /* "numpy", interned once per process */
  if (!name && !(name = PyUnicode_InternFromString("numpy")))
    return false;
  PyObject *np = import ? PyImport_Import(name) : PyImport_GetModule(name); /* owned */
  if (!np)
    return false;
  st->np_ndarray = PyObject_GetAttrString(np, "ndarray");
  st->np_generic = st->np_ndarray ? PyObject_GetAttrString(np, "generic") : NULL;
  st->np_array = st->np_generic ? PyObject_GetAttrString(np, "array") : NULL;
  if (!st->np_array) {
    Py_CLEAR(st->np_ndarray);
    Py_CLEAR(st->np_generic);
    Py_DECREF(np);
    if (!import)
      PyErr_Clear();
    return false;
  }
  st->numpy = np;
  return true;
}

/* Whether v is a NumPy array or scalar (never imports NumPy). */
static bool
is_numpy(TfState *st, PyObject *v)
{
  if (!numpy_ready(st, false))
    return false;
  return PyObject_TypeCheck(v, (PyTypeObject *)st->np_ndarray) ||
         PyObject_TypeCheck(v, (PyTypeObject *)st->np_generic);
}

bool
tf_is_ndarray(TfState *st, PyObject *v)
{
  return numpy_ready(st, false) && PyObject_TypeCheck(v, (PyTypeObject *)st->np_ndarray);
}

/* Whether v has __array__ (an array-like that NumPy converts). */
static bool
has_array_method(PyObject *v)
{
  static PyObject *name;
  if (!name && !(name = PyUnicode_InternFromString("__array__")))
    return false;
  PyObject *m = PyObject_GetAttr((PyObject *)Py_TYPE(v), name); /* owned */
  if (!m) {
    PyErr_Clear();
    return false;
  }
  Py_DECREF(m);
  return true;
}

/* ---- convert_to_tensor ---------------------------------------------------------------------- */

/* What kind of Python scalar a leaf is. */
typedef enum { KIND_NONE, KIND_BOOL, KIND_INT, KIND_FLOAT, KIND_STR, KIND_COMPLEX } LeafKind;

static LeafKind
leaf_kind(PyObject *v)
{
  if (PyBool_Check(v))
    return KIND_BOOL;
  if (PyLong_Check(v))
    return KIND_INT;
  if (PyFloat_Check(v))
    return KIND_FLOAT;
  if (PyComplex_Check(v))
    return KIND_COMPLEX;
  if (PyUnicode_Check(v) || PyBytes_Check(v))
    return KIND_STR;
  return KIND_NONE;
}

static bool
is_sequence(PyObject *v)
{
  return PyList_Check(v) || PyTuple_Check(v);
}

/* Values inside a list that are converted on their own and stacked (tf.constant([t1, t2])). */
static bool
is_stacked_item(TfState *st, PyObject *v)
{
  return tf_is_tensor(st, v) || (st->Variable && tf_is_variable(st, v)) || is_numpy(st, v);
}

bool
tf_convertible(TfState *st, PyObject *v)
{
  return leaf_kind(v) != KIND_NONE || is_sequence(v) || is_stacked_item(st, v) ||
         has_array_method(v);
}

/* A walk over nested sequences: the shape (fixed by the first leaf) and the leaves in order. */
typedef struct {
  TrShape shape;     /* dims found so far */
  bool fixed;        /* a leaf (or an empty sequence) has fixed the rank */
  GPtrArray *leaves; /* PyObject *, borrowed (the sequences own them; no Python code runs) */
  bool stacked;      /* a tensor or array sits inside the sequence: stack instead */
} Scan;

static bool
raise_non_rectangular(void)
{
  PyErr_SetString(PyExc_ValueError, "Can't convert non-rectangular Python sequence to Tensor.");
  return false;
}

static bool
scan(TfState *st, PyObject *v, int level, Scan *s)
{
  if (!is_sequence(v)) {
    if (is_stacked_item(st, v)) {
      s->stacked = true;
      return true;
    }
    if (!s->fixed)
      s->fixed = true;
    else if (level != s->shape.rank)
      return raise_non_rectangular();
    g_ptr_array_add(s->leaves, v);
    return true;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(v);
  if (!s->fixed && level == s->shape.rank) {
    if (level == TR_MAX_RANK) {
      PyErr_SetString(PyExc_ValueError, "Can't convert Python sequence deeper than 32 to Tensor.");
      return false;
    }
    s->shape.dims[s->shape.rank++] = n;
    if (n == 0)
      s->fixed = true;
  } else if (level >= s->shape.rank || s->shape.dims[level] != n)
    return raise_non_rectangular();
  for (Py_ssize_t i = 0; i < n; i++) {
    if (Py_EnterRecursiveCall(" while converting a nested sequence to a Tensor"))
      return false;
    bool ok = scan(st, PySequence_Fast_GET_ITEM(v, i), level + 1, s);
    Py_LeaveRecursiveCall();
    if (!ok)
      return false;
    if (s->stacked)
      return true;
  }
  return true;
}

static TrTensor *
raise_cannot_convert(PyObject *v, TrDType dtype)
{
  PyErr_Format(PyExc_TypeError, "Cannot convert %R to EagerTensor of dtype %s", v,
               tr_dtype_name(dtype));
  return NULL;
}

static TrTensor *
raise_unsupported(PyObject *v)
{
  PyErr_Format(PyExc_ValueError,
               "Attempt to convert a value (%R) with an unsupported type (%R) to a Tensor.", v,
               (PyObject *)Py_TYPE(v));
  return NULL;
}

/* A leaf int's value; false with OverflowError cleared when it needs more than 64 bits. */
static bool
leaf_int(PyObject *v, int64_t *out)
{
  int overflow;
  *out = PyLong_AsLongLongAndOverflow(v, &overflow);
  return !overflow;
}

/* The dtype TF infers from the leaves' kinds, or INVALID (with an exception) for mixed kinds. */
static TrDType
infer_dtype(PyObject *const *leaves, size_t n)
{
  LeafKind kind = KIND_NONE;
  bool big = false;
  for (size_t i = 0; i < n; i++) {
    PyObject *v = leaves[i];
    LeafKind k = leaf_kind(v);
    if (k == KIND_NONE) {
      raise_unsupported(v);
      return TR_DTYPE_INVALID;
    }
    if (k == KIND_INT) {
      int64_t x;
      if (!leaf_int(v, &x)) {
        PyErr_SetString(PyExc_ValueError,
                        "Can't convert Python sequence with out-of-range integer to int64 Tensor.");
        return TR_DTYPE_INVALID;
      }
      if (x > G_MAXINT32 || x < G_MININT32)
        big = true;
    }
    if (kind == KIND_NONE || kind == k)
      kind = k;
    else if ((kind == KIND_INT && k == KIND_FLOAT) || (kind == KIND_FLOAT && k == KIND_INT))
      kind = KIND_FLOAT;
    else if ((kind == KIND_COMPLEX && (k == KIND_INT || k == KIND_FLOAT)) ||
             (k == KIND_COMPLEX && (kind == KIND_INT || kind == KIND_FLOAT)))
      kind = KIND_COMPLEX;
    else {
      PyErr_SetString(PyExc_TypeError, "Can't convert Python sequence with mixed types to Tensor.");
      return TR_DTYPE_INVALID;
    }
  }
  switch (kind) {
    case KIND_BOOL:
      return TR_BOOL;
    case KIND_INT:
      return big ? TR_INT64 : TR_INT32;
    case KIND_STR:
      return TR_STRING;
    case KIND_COMPLEX:
      return TR_COMPLEX128;
    default:
      return TR_FLOAT32; /* floats, and empty sequences */
  }
}

/* Writes leaf `v` as element i of `data` (of `dtype`); false (no exception) if it does not fit.
 * String elements borrow the leaf's bytes: tr_tensor_new_from_data copies them. */
static bool
store_leaf(PyObject *v, TrDType dtype, void *data, size_t i)
{
  LeafKind k = leaf_kind(v);
  int64_t iv = 0;
  double f = 0;
  if (k == KIND_INT) {
    if (!leaf_int(v, &iv))
      return false;
    f = (double)iv;
  } else if (k == KIND_FLOAT) {
    f = PyFloat_AS_DOUBLE(v);
  }
  bool real = k == KIND_INT || k == KIND_FLOAT;
  switch (dtype) {
    case TR_FLOAT32:
      if (k != KIND_INT && k != KIND_FLOAT)
        return false;
      ((float *)data)[i] = (float)f;
      return true;
    case TR_FLOAT64:
      if (k != KIND_INT && k != KIND_FLOAT)
        return false;
      ((double *)data)[i] = f;
      return true;
    case TR_INT32:
      if (k != KIND_INT || iv > G_MAXINT32 || iv < G_MININT32)
        return false;
      ((int32_t *)data)[i] = (int32_t)iv;
      return true;
    case TR_INT64:
      if (k != KIND_INT)
        return false;
      ((int64_t *)data)[i] = iv;
      return true;
    case TR_BOOL:
      if (k != KIND_BOOL)
        return false;
      ((bool *)data)[i] = v == Py_True;
      return true;
    case TR_STRING: {
      TrString *s = &((TrString *)data)[i];
      if (PyBytes_Check(v)) {
        s->data = PyBytes_AS_STRING(v);
        s->len = (size_t)PyBytes_GET_SIZE(v);
        return true;
      }
      if (!PyUnicode_Check(v))
        return false;
      Py_ssize_t len;
      const char *text = PyUnicode_AsUTF8AndSize(v, &len);
      if (!text) {
        PyErr_Clear();
        return false;
      }
      s->data = (char *)text;
      s->len = (size_t)len;
      return true;
    }
    /* TensorFlow converts Python ints to int32 (int64) and casts that, so narrower integer types
     * wrap (tf.constant(-1, tf.uint8) is 255); floats and complex numbers are refused. */
    case TR_INT8:
    case TR_INT16:
    case TR_UINT8:
    case TR_UINT16:
    case TR_UINT32:
    case TR_UINT64: {
      if (k != KIND_INT)
        return false;
      size_t size = tr_dtype_size(dtype);
      uint64_t bits = (uint64_t)iv;
      if (size == 1)
        ((uint8_t *)data)[i] = (uint8_t)bits;
      else if (size == 2)
        ((uint16_t *)data)[i] = (uint16_t)bits;
      else if (size == 4)
        ((uint32_t *)data)[i] = (uint32_t)bits;
      else
        ((uint64_t *)data)[i] = bits;
      return true;
    }
    case TR_FLOAT16:
      if (!real)
        return false;
      ((TrHalf *)data)[i] = tr_half_from_float((float)f);
      return true;
    case TR_BFLOAT16:
      if (!real)
        return false;
      ((TrBFloat16 *)data)[i] = tr_bfloat16_from_float((float)f);
      return true;
    case TR_COMPLEX64:
    case TR_COMPLEX128: {
      double _Complex z = f;
      if (k == KIND_COMPLEX) {
        Py_complex c = PyComplex_AsCComplex(v);
        z = c.real + c.imag * I;
      } else if (!real) {
        return false;
      }
      if (dtype == TR_COMPLEX64)
        ((float _Complex *)data)[i] = (float _Complex)z;
      else
        ((double _Complex *)data)[i] = z;
      return true;
    }
    default:
      return false;
  }
}

static TrTensor *convert_stacked(TfState *st, PyObject *v, TrDType dtype);

/* Python scalars and nested lists/tuples of them. */
static TrTensor *
convert_python(TfState *st, PyObject *v, TrDType dtype)
{
  if (!is_sequence(v)) {
    /* A scalar: no walk, no temporary arrays. */
    TrDType dt = dtype != TR_DTYPE_INVALID ? dtype : infer_dtype(&v, 1);
    if (dt == TR_DTYPE_INVALID)
      return NULL;
    union {
      float f;
      double d;
      int32_t i;
      int64_t l;
      bool b;
      TrString s;
      double _Complex c;
    } one;
    if (!store_leaf(v, dt, &one, 0))
      return raise_cannot_convert(v, dt);
    TrShape scalar = {.rank = 0};
    return tr_tensor_new_from_data(dt, &scalar, &one);
  }
  Scan s = {.shape = {.rank = 0}, .leaves = g_ptr_array_new()};
  TrTensor *t = NULL;
  if (!scan(st, v, 0, &s))
    goto out;
  if (s.stacked) {
    t = convert_stacked(st, v, dtype);
    goto out;
  }
  size_t n = s.leaves->len;
  TrDType dt = dtype != TR_DTYPE_INVALID ? dtype : infer_dtype((PyObject **)s.leaves->pdata, n);
  if (dt == TR_DTYPE_INVALID)
    goto out;
  void *data = g_try_malloc0(tr_dtype_size(dt) * (n ? n : 1));
  if (!data) {
    PyErr_NoMemory();
    goto out;
  }
  bool ok = true;
  for (size_t i = 0; ok && i < n; i++)
    ok = store_leaf(g_ptr_array_index(s.leaves, i), dt, data, i);
  if (ok)
    t = tr_tensor_new_from_data(dt, &s.shape, data);
  else
    raise_cannot_convert(v, dt);
  g_free(data);
out:
  g_ptr_array_free(s.leaves, TRUE);
  return t;
}

/* A sequence holding tensors or arrays: convert each item and stack them. */
static TrTensor *
convert_stacked(TfState *st, PyObject *v, TrDType dtype)
{
  /* Converting an item may run Python code (__array__) that changes a list: the items are
   * read from a tuple of them. */
  PyObject *seq = PySequence_Tuple(v); /* owned */
  if (!seq)
    return NULL;
  v = seq;
  Py_ssize_t n = PyTuple_GET_SIZE(v);
  TrTensor **items = g_new0(TrTensor *, (gsize)MAX(n, 1));
  TrTensor *t = NULL;
  TrDType dt = dtype;
  bool ok = true;
  /* The first tensor's dtype is the hint for Python items. */
  for (Py_ssize_t i = 0; dt == TR_DTYPE_INVALID && i < n; i++)
    dt = tf_dtype_of(st, PySequence_Fast_GET_ITEM(v, i));
  for (Py_ssize_t i = 0; ok && i < n; i++)
    ok = (items[i] = tf_convert(st, PySequence_Fast_GET_ITEM(v, i), dt, true)) != NULL;
  if (ok) {
    GError *error = NULL;
    t = tr_stack(items, (int)n, 0, &error);
    if (!t)
      tf_raise_error(st, error);
  }
  for (Py_ssize_t i = 0; i < n; i++)
    if (items[i])
      tr_tensor_unref(items[i]);
  g_free(items);
  Py_DECREF(seq);
  return t;
}

/* The dtype of a buffer's elements from its struct-module format ('e' float16, "Zd"
 * complex128 ...), or false for formats Trellis has no dtype for. */
static bool
buffer_elem(const Py_buffer *view, TrDType *natural)
{
  const char *f = view->format ? view->format : "B";
  if (*f == '@' || *f == '=' || *f == '<')
    f++;
  bool is_complex = f[0] == 'Z';
  if (is_complex)
    f++;
  if (f[0] == '\0' || f[1] != '\0')
    return false;
  Py_ssize_t size = view->itemsize;
  if (is_complex) {
    *natural = f[0] == 'f' ? TR_COMPLEX64 : TR_COMPLEX128;
    return (f[0] == 'f' && size == 8) || (f[0] == 'd' && size == 16);
  }
  static const TrDType signed_types[] = {TR_INT8,          TR_INT16,         TR_DTYPE_INVALID,
                                         TR_INT32,         TR_DTYPE_INVALID, TR_DTYPE_INVALID,
                                         TR_DTYPE_INVALID, TR_INT64};
  static const TrDType unsigned_types[] = {TR_UINT8,         TR_UINT16,        TR_DTYPE_INVALID,
                                           TR_UINT32,        TR_DTYPE_INVALID, TR_DTYPE_INVALID,
                                           TR_DTYPE_INVALID, TR_UINT64};
  switch (f[0]) {
    case '?':
      *natural = TR_BOOL;
      return size == 1;
    case 'b':
    case 'h':
    case 'i':
    case 'l':
    case 'q':
      if (size < 1 || size > 8)
        return false;
      *natural = signed_types[size - 1];
      return *natural != TR_DTYPE_INVALID;
    case 'B':
    case 'H':
    case 'I':
    case 'L':
    case 'Q':
      if (size < 1 || size > 8)
        return false;
      *natural = unsigned_types[size - 1];
      return *natural != TR_DTYPE_INVALID;
    case 'e':
      *natural = TR_FLOAT16;
      return size == 2;
    case 'f':
      *natural = TR_FLOAT32;
      return size == 4;
    case 'd':
      *natural = TR_FLOAT64;
      return size == 8;
    default:
      return false;
  }
}

/* TensorFlow's rule for an array given with another dtype (IsCompatible): integers to any
 * integer, float or complex type, floats to float or complex types, complex numbers to complex
 * types; bools and strings only to themselves. */
static bool
compatible(TrDType desired, TrDType natural)
{
  if (desired == natural)
    return true;
  if (tr_dtype_is_int(natural))
    return tr_dtype_is_numeric(desired) || tr_dtype_is_complex(desired);
  if (tr_dtype_is_float(natural))
    return tr_dtype_is_float(desired) || tr_dtype_is_complex(desired);
  return tr_dtype_is_complex(natural) && tr_dtype_is_complex(desired);
}

static TrTensor *
convert_array(TfState *st, PyObject *v, TrDType dtype, bool hint)
{
  Py_buffer view;
  if (PyObject_GetBuffer(v, &view, PyBUF_RECORDS_RO) < 0) {
    PyErr_Clear();
    view.obj = NULL;
  }
  TrDType natural;
  if (!view.obj || !buffer_elem(&view, &natural)) {
    if (view.obj)
      PyBuffer_Release(&view);
    PyObject *list = PyObject_CallMethod(v, "tolist", NULL); /* owned */
    if (!list)
      return NULL;
    TrTensor *t = tf_convert(st, list, dtype, hint);
    Py_DECREF(list);
    return t;
  }
  TrTensor *t = NULL;
  char *copy = NULL; /* a C-contiguous copy of a strided source */
  TrDType dt = natural;
  if (dtype != TR_DTYPE_INVALID && dtype != natural) {
    if (compatible(dtype, natural))
      dt = dtype;
    else if (!hint) {
      PyBuffer_Release(&view);
      return raise_cannot_convert(v, dtype);
    }
  }
  if (view.ndim > TR_MAX_RANK) {
    PyErr_Format(PyExc_ValueError, "Can't convert an array of rank %d to a Tensor.", view.ndim);
    goto out;
  }
  TrShape shape = {.rank = view.ndim};
  for (int i = 0; i < view.ndim; i++)
    shape.dims[i] = view.shape[i];
  GError *error = NULL;
  t = tr_tensor_try_new_uninit(natural, &shape, &error);
  if (!t) {
    tf_raise_error(st, error);
    goto out;
  }
  int64_t n = tr_tensor_num_elements(t);
  char *src = view.buf;
  if (!PyBuffer_IsContiguous(&view, 'C')) {
    copy = g_try_malloc((gsize)MAX(view.len, 1));
    if (!copy || PyBuffer_ToContiguous(copy, &view, view.len, 'C') < 0) {
      if (!copy)
        PyErr_NoMemory();
      g_clear_pointer(&t, tr_tensor_unref);
      goto out;
    }
    src = copy;
  }
  /* The elements are copied as they are, then cast (C's conversions, as TensorFlow's Cast). */
  if (n > 0)
    memcpy(tr_tensor_data(t), src, (size_t)n * tr_dtype_size(natural));
  if (dt != natural) {
    TrTensor *cast = tr_cast(t, dt, &error);
    tr_tensor_unref(t);
    if (!(t = cast))
      tf_raise_error(st, error);
  }
out:
  g_free(copy);
  PyBuffer_Release(&view);
  return t;
}

TrTensor *
tf_convert(TfState *st, PyObject *v, TrDType dtype, bool hint)
{
  if (tf_is_tensor(st, v)) {
    TrTensor *t = value_for(v, "Converting a tensor");
    if (!t)
      return NULL;
    if (dtype != TR_DTYPE_INVALID && t->dtype != dtype && !hint) {
      PyErr_Format(PyExc_ValueError,
                   "Tensor conversion requested dtype %s for Tensor with dtype %s: %R",
                   tr_dtype_name(dtype), tr_dtype_name(t->dtype), v);
      return NULL;
    }
    return tr_tensor_ref(t);
  }
  if (st->Variable && tf_is_variable(st, v)) {
    TrVariable *var = ((TfVariable *)v)->var;
    if (dtype != TR_DTYPE_INVALID && var->dtype != dtype && !hint) {
      PyErr_Format(PyExc_ValueError,
                   "Tensor conversion requested dtype %s for Tensor with dtype %s",
                   tr_dtype_name(dtype), tr_dtype_name(var->dtype));
      return NULL;
    }
    return tr_variable_read(var);
  }
  if (PyFloat_CheckExact(v) || PyLong_CheckExact(v) || PyBool_Check(v) || PyUnicode_Check(v) ||
      PyBytes_Check(v) || is_sequence(v))
    return convert_python(st, v, dtype);
  if (is_numpy(st, v))
    return convert_array(st, v, dtype, hint);
  if (leaf_kind(v) != KIND_NONE) /* int and float subclasses */
    return convert_python(st, v, dtype);
  if (has_array_method(v)) {
    if (!numpy_ready(st, true))
      return NULL;
    PyObject *arr = PyObject_CallMethod(st->numpy, "asarray", "O", v); /* owned */
    if (!arr)
      return NULL;
    TrTensor *t = convert_array(st, arr, dtype, hint);
    Py_DECREF(arr);
    return t;
  }
  return raise_unsupported(v);
}

/* ---- tensor attributes and methods ---------------------------------------------------------- */

static PyObject *
tensor_get_shape(PyObject *self, void *closure)
{
  TfState *st = tf_state();
  TrShape shape;
  tf_shape_of(st, self, &shape);
  return tf_shape_new(st, &shape);
}

static PyObject *
tensor_get_dtype(PyObject *self, void *closure)
{
  TfState *st = tf_state();
  return Py_NewRef(tf_dtype_object(st, tf_dtype_of(st, self)));
}

static PyObject *
tensor_get_ndim(PyObject *self, void *closure)
{
  TrShape shape;
  tf_shape_of(tf_state(), self, &shape);
  if (shape.rank == TR_UNKNOWN)
    Py_RETURN_NONE;
  return PyLong_FromLong(shape.rank);
}

static PyObject *
tensor_get_name(PyObject *self, void *closure)
{
  if (tf_tensor_value(self)) {
    PyErr_SetString(PyExc_AttributeError,
                    "Tensor.name is undefined when eager execution is enabled.");
    return NULL;
  }
  return text_result(symbolic_name(self));
}

static PyObject *
tensor_get_graph(PyObject *self, void *closure)
{
  if (tf_tensor_value(self)) {
    PyErr_SetString(PyExc_AttributeError,
                    "Tensor.graph is undefined when eager execution is enabled.");
    return NULL;
  }
  return tf_graph_object_new(tf_state(), tf_symbolic_graph(self));
}

/* Tensor.op: the Operation that makes a symbolic tensor. */
static PyObject *
tensor_get_op(PyObject *self, void *closure)
{
  if (tf_tensor_value(self)) {
    PyErr_SetString(PyExc_AttributeError,
                    "Tensor.op is undefined when eager execution is enabled.");
    return NULL;
  }
  return tf_operation_new(tf_state(), tf_symbolic_graph(self), tf_symbolic_output(self).node);
}

/* Tensor.value_index: which output of its Operation a symbolic tensor is. */
static PyObject *
tensor_get_value_index(PyObject *self, void *closure)
{
  if (tf_tensor_value(self)) {
    PyErr_SetString(PyExc_AttributeError,
                    "Tensor.value_index is undefined when eager execution is enabled.");
    return NULL;
  }
  return PyLong_FromLong(tf_symbolic_output(self).index);
}

static PyObject *
tensor_get_device(PyObject *self, void *closure)
{
  return PyUnicode_FromString("/job:localhost/replica:0/task:0/device:CPU:0");
}

/* A NumPy array holding a copy of t's elements (object array of bytes for strings). */
static PyObject *
to_ndarray(TfState *st, PyObject *self, TrTensor *t)
{
  if (!numpy_ready(st, true))
    return NULL;
  if (t->dtype == TR_BFLOAT16) {
    /* NumPy has no bfloat16 (TensorFlow brings its own, from ml_dtypes): the values come out
     * as float32, which holds each of them exactly. */
    GError *error = NULL;
    TrTensor *wide = tr_cast(t, TR_FLOAT32, &error); /* owned, then the wrapper's */
    if (!wide)
      return tf_raise_error(st, error);
    PyObject *w = tf_tensor_new(st, wide); /* owned */
    PyObject *r = w ? PyObject_CallOneArg(st->np_array, w) : NULL;
    Py_XDECREF(w);
    return r;
  }
  if (t->dtype != TR_STRING)
    return PyObject_CallOneArg(st->np_array, self); /* copies through the buffer protocol */
  int64_t n = tr_tensor_num_elements(t);
  PyObject *flat = PyList_New((Py_ssize_t)n); /* owned */
  for (int64_t i = 0; flat && i < n; i++) {
    const TrString *s = tr_tensor_get_string(t, i);
    PyObject *b = PyBytes_FromStringAndSize(s->data, (Py_ssize_t)s->len);
    if (!b)
      Py_CLEAR(flat);
    else
      PyList_SET_ITEM(flat, (Py_ssize_t)i, b);
  }
  if (!flat)
    return NULL;
  /* np.empty(n, object) filled item by item: np.array(list of bytes, object) would not make
   * a 1-D object array of bytes when every item has the same length (it still would, but the
   * explicit fill also keeps empty shapes right). */
  PyObject *arr = PyObject_CallMethod(st->numpy, "empty", "(n)s", (Py_ssize_t)n, "object");
  if (arr) {
    PyObject *full = PySlice_New(NULL, NULL, NULL); /* owned */
    if (!full || PyObject_SetItem(arr, full, flat) < 0)
      Py_CLEAR(arr);
    Py_XDECREF(full);
  }
  Py_DECREF(flat);
  if (!arr)
    return NULL;
  PyObject *shape = PyTuple_New(t->shape.rank); /* owned */
  for (int i = 0; shape && i < t->shape.rank; i++)
    PyTuple_SET_ITEM(shape, i, PyLong_FromLongLong(t->shape.dims[i]));
  PyObject *r = shape ? PyObject_CallMethod(arr, "reshape", "(O)", shape) : NULL;
  Py_XDECREF(shape);
  Py_DECREF(arr);
  return r;
}

static PyObject *
tensor_numpy(PyObject *self, PyObject *unused)
{
  TrTensor *t = tf_tensor_value(self);
  if (!t) { /* TensorFlow's graph tensors have no numpy(): the guide's leaked-tensor example */
    PyErr_SetString(PyExc_AttributeError, "'Tensor' object has no attribute 'numpy'");
    return NULL;
  }
  if (t->shape.rank == 0 && t->dtype == TR_STRING) {
    const TrString *s = tr_tensor_get_string(t, 0);
    return PyBytes_FromStringAndSize(s->data, (Py_ssize_t)s->len);
  }
  PyObject *arr = to_ndarray(tf_state(), self, t);
  if (!arr || t->shape.rank != 0)
    return arr;
  /* A scalar tensor gives a NumPy scalar (np.float32(1.0)), as TensorFlow. */
  PyObject *empty = PyTuple_New(0);
  PyObject *r = empty ? PyObject_GetItem(arr, empty) : NULL;
  Py_XDECREF(empty);
  Py_DECREF(arr);
  return r;
}

/* __array__(dtype=None): what np.asarray falls back to when the buffer protocol does not
 * apply (string tensors) and what NumPy calls explicitly. */
static PyObject *
tensor_array(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"dtype", NULL};
  PyObject *dtype;
  if (!tf_parse_args("__array__", args, nargs, kwnames, names, 0, &dtype))
    return NULL;
  TrTensor *t = tf_tensor_value(self);
  if (!t) {
    g_autofree char *name = symbolic_name(self);
    PyErr_Format(PyExc_NotImplementedError,
                 "Cannot convert a symbolic tf.Tensor (%s) to a numpy array. This error may "
                 "indicate that you're trying to pass a Tensor to a NumPy call, which is not "
                 "supported.",
                 name);
    return NULL;
  }
  PyObject *arr = to_ndarray(tf_state(), self, t);
  if (!arr || !dtype || dtype == Py_None)
    return arr;
  PyObject *r = PyObject_CallMethod(arr, "astype", "O", dtype);
  Py_DECREF(arr);
  return r;
}

static PyObject *
tensor_get_shape_method(PyObject *self, PyObject *unused)
{
  return tensor_get_shape(self, NULL);
}

/* Tensor.set_shape: an eager tensor's shape only checked against `shape`; a symbolic tensor's
 * merged with it (what tracing knows of it grows), with shape inference's error texts as
 * ValueError, as TensorFlow's Tensor.set_shape converts them. */
static PyObject *
tensor_set_shape(PyObject *self, PyObject *arg)
{
  TfState *st = tf_state();
  TrShape want, have;
  if (!tf_shape_arg(st, arg, &want))
    return NULL;
  tf_shape_of(st, self, &have);
  TfTensor *t = (TfTensor *)self;
  bool compatible = want.rank == TR_UNKNOWN || have.rank == TR_UNKNOWN || want.rank == have.rank;
  int bad_dim = -1;
  for (int d = 0; compatible && want.rank != TR_UNKNOWN && have.rank != TR_UNKNOWN &&
                  d < want.rank && bad_dim < 0;
       d++)
    if (want.dims[d] != TR_UNKNOWN && have.dims[d] != TR_UNKNOWN && want.dims[d] != have.dims[d])
      bad_dim = d;
  if (t->value) {
    if (compatible && bad_dim < 0)
      Py_RETURN_NONE;
    PyObject *have_obj = tf_shape_new(st, &have); /* owned */
    if (have_obj) /* the supplied shape as given, as TensorFlow's f-string shows it */
      PyErr_Format(PyExc_ValueError, "Tensor's shape %S is not compatible with supplied shape %S.",
                   have_obj, arg);
    Py_XDECREF(have_obj);
    return NULL;
  }
  if (!compatible) {
    PyErr_Format(PyExc_ValueError, "Shapes must be equal rank, but are %d and %d", have.rank,
                 want.rank);
    return NULL;
  }
  if (bad_dim >= 0) {
    g_autofree char *a = tr_shape_to_error_string(&have);
    g_autofree char *b = tr_shape_to_error_string(&want);
    PyErr_Format(PyExc_ValueError,
                 "Dimension %d in both shapes must be equal, but are %" G_GINT64_FORMAT
                 " and %" G_GINT64_FORMAT ". Shapes are %s and %s.",
                 bad_dim, have.dims[bad_dim], want.dims[bad_dim], a, b);
    return NULL;
  }
  TrOutput out = tf_symbolic_output(self);
  if (!tr_node_refine_shape(out.node, out.index, &want, NULL)) {
    PyErr_SetString(PyExc_ValueError, "the shapes are not compatible");
    return NULL;
  }
  Py_RETURN_NONE;
}

/* The one element of a size-1 tensor, or NumPy's error for others. `truth`: bool() asks. */
static TrTensor *
scalar_value(TfState *st, PyObject *self, const char *what, bool truth)
{
  TrTensor *t = tf_tensor_value(self);
  if (!t) {
    if (truth)
      PyErr_SetString(st->OperatorNotAllowedInGraphError,
                      "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed. A Python "
                      "`if`, `while`, `and`, `or` or `not` over a tensor needs its value, which "
                      "exists only when the graph runs; use tf.cond or tf.where, or compare "
                      "Python values instead.");
    else
      value_for(self, what);
    return NULL;
  }
  if (tr_tensor_num_elements(t) != 1) {
    if (truth)
      PyErr_SetString(PyExc_ValueError, "The truth value of an array with more than one element "
                                        "is ambiguous. Use a.any() or a.all()");
    else
      PyErr_SetString(PyExc_TypeError, "only size-1 arrays can be converted to Python scalars");
    return NULL;
  }
  return t;
}

static PyObject *
tensor_int(PyObject *self)
{
  TrTensor *t = scalar_value(tf_state(), self, "int", false);
  if (!t)
    return NULL;
  if (t->dtype == TR_STRING) {
    PyErr_SetString(PyExc_TypeError, "int() argument must be a string, a bytes-like object or a "
                                     "real number, not 'Tensor'");
    return NULL;
  }
  if (tr_dtype_is_float(t->dtype))
    return PyLong_FromDouble(tr_tensor_get_f64(t, 0)); /* NaN and inf raise as int(float) */
  return PyLong_FromLongLong(tr_tensor_get_i64(t, 0));
}

static PyObject *
tensor_float(PyObject *self)
{
  TrTensor *t = scalar_value(tf_state(), self, "float", false);
  if (!t)
    return NULL;
  if (t->dtype == TR_STRING) {
    PyErr_SetString(PyExc_TypeError,
                    "float() argument must be a string or a real number, not 'Tensor'");
    return NULL;
  }
  return PyFloat_FromDouble(tr_tensor_get_f64(t, 0));
}

static PyObject *
tensor_index(PyObject *self)
{
  TrTensor *t = value_for(self, "__index__");
  if (!t)
    return NULL;
  if (t->shape.rank != 0 || !tr_dtype_is_int(t->dtype)) {
    PyErr_SetString(PyExc_TypeError,
                    "only integer scalar arrays can be converted to a scalar index");
    return NULL;
  }
  return PyLong_FromLongLong(tr_tensor_get_i64(t, 0));
}

static int
tensor_bool(PyObject *self)
{
  TrTensor *t = scalar_value(tf_state(), self, "bool", true);
  if (!t)
    return -1;
  if (t->dtype == TR_STRING)
    return tr_tensor_get_string(t, 0)->len != 0;
  return tr_tensor_get_f64(t, 0) != 0;
}

static Py_ssize_t
tensor_len(PyObject *self)
{
  TrTensor *t = tf_tensor_value(self);
  if (!t) {
    g_autofree char *name = symbolic_name(self);
    PyErr_Format(PyExc_TypeError,
                 "len is not well defined for a symbolic Tensor (%s). Please call `x.shape` "
                 "rather than `len(x)` for shape information.",
                 name);
    return -1;
  }
  if (t->shape.rank == 0) {
    PyErr_SetString(PyExc_TypeError, "Scalar tensor has no `len()`");
    return -1;
  }
  return (Py_ssize_t)t->shape.dims[0];
}

/* ---- the buffer protocol ---------------------------------------------------------------- */

/* What a Py_buffer of a tensor keeps alive: the contiguous tensor it points into and the
 * shape and strides arrays it hands out. */
typedef struct {
  TrTensor *t; /* owned */
  Py_ssize_t shape[TR_MAX_RANK];
  Py_ssize_t strides[TR_MAX_RANK];
} TensorView;

static const char *
buffer_format(TrDType dtype)
{
  switch (dtype) {
    case TR_FLOAT32:
      return "f";
    case TR_FLOAT64:
      return "d";
    case TR_INT32:
      return "i";
    case TR_INT64:
      return sizeof(long) == 8 ? "l" : "q"; /* NumPy's int64 is C long where long has 64 bits */
    case TR_BOOL:
      return "?";
    case TR_FLOAT16:
      return "e";
    case TR_INT8:
      return "b";
    case TR_INT16:
      return "h";
    case TR_UINT8:
      return "B";
    case TR_UINT16:
      return "H";
    case TR_UINT32:
      return "I";
    case TR_UINT64:
      return sizeof(long) == 8 ? "L" : "Q";
    case TR_COMPLEX64:
      return "Zf";
    case TR_COMPLEX128:
      return "Zd";
    default: /* strings, and bfloat16 which NumPy has no type for */
      return NULL;
  }
}

static int
tensor_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
  TrTensor *t = tf_tensor_value(self);
  if (!t) {
    g_autofree char *name = symbolic_name(self);
    PyErr_Format(PyExc_BufferError,
                 "A symbolic tf.Tensor (%s) has no buffer: its value exists "
                 "only when its graph runs.",
                 name);
    return -1;
  }
  const char *format = buffer_format(t->dtype);
  if (!format) {
    PyErr_SetString(PyExc_BufferError, "A string tensor has no buffer; use .numpy().");
    return -1;
  }
  if (flags & PyBUF_WRITABLE) {
    PyErr_SetString(PyExc_BufferError, "A tf.Tensor is immutable: its buffer is read-only.");
    return -1;
  }
  if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS && t->shape.rank > 1) {
    PyErr_SetString(PyExc_BufferError, "A tf.Tensor's buffer is C-contiguous.");
    return -1;
  }
  TensorView *tv = g_new(TensorView, 1);
  tv->t = tr_tensor_contiguous(t); /* a copy when t is a non-contiguous view */
  size_t size = tr_dtype_size(t->dtype);
  int64_t stride = (int64_t)size;
  for (int i = t->shape.rank - 1; i >= 0; i--) {
    tv->shape[i] = (Py_ssize_t)t->shape.dims[i];
    tv->strides[i] = (Py_ssize_t)stride;
    stride *= t->shape.dims[i];
  }
  static char empty[8];
  void *data = tr_tensor_data(tv->t);
  view->buf = data ? data : empty;
  view->obj = Py_NewRef(self);
  view->len = (Py_ssize_t)(tr_tensor_num_elements(t) * (int64_t)size);
  view->itemsize = (Py_ssize_t)size;
  view->readonly = 1;
  view->ndim = t->shape.rank;
  view->format = (flags & PyBUF_FORMAT) ? (char *)format : NULL;
  view->shape = (flags & PyBUF_ND) == PyBUF_ND ? tv->shape : NULL;
  view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? tv->strides : NULL;
  view->suboffsets = NULL;
  view->internal = tv;
  return 0;
}

static void
tensor_releasebuffer(PyObject *self, Py_buffer *view)
{
  TensorView *tv = view->internal;
  tr_tensor_unref(tv->t);
  g_free(tv);
}

/* ---- operators -------------------------------------------------------------------------- */

/* Tensors and Variables both take part in Python's operators. */
static bool
is_tensor_like(TfState *st, PyObject *v)
{
  return tf_is_tensor(st, v) || (st->Variable && tf_is_variable(st, v));
}

/* Applies a Python operator's op to two operands. */
static PyObject *
binop_apply(TfState *st, TrOpId op, const TfOperand *a, const TfOperand *b)
{
  TfOperand in[2] = {*a, *b};
  switch (op) {
    case TR_OP_DIV:
      return tf_apply_truediv(st, a, b);
    case TR_OP_MATMUL: {
      /* tf.matmul's choice: MatMul for matrices, BatchMatMulV2 once either has batch dims. */
      bool batch = a->shape.rank > 2 || b->shape.rank > 2 || a->shape.rank == TR_UNKNOWN ||
                   b->shape.rank == TR_UNKNOWN;
      return tf_apply(st, batch ? TR_OP_BATCH_MATMUL : TR_OP_MATMUL, in, 2, NULL, NULL);
    }
    case TR_OP_ADD:
      return tf_apply(st, op, in, 2, NULL, "add");
    case TR_OP_SUB:
      return tf_apply(st, op, in, 2, NULL, "sub");
    case TR_OP_MUL:
      return tf_apply(st, op, in, 2, NULL, "mul");
    case TR_OP_FLOORDIV:
      return tf_apply(st, op, in, 2, NULL, "floordiv");
    case TR_OP_MOD:
      return tf_apply(st, op, in, 2, NULL, "mod");
    case TR_OP_POW:
      return tf_apply(st, op, in, 2, NULL, "pow");
    default:
      return tf_apply(st, op, in, 2, NULL, NULL);
  }
}

/* The reflected method's name of an operator, for TF's deferral rule. */
static const char *
reflected_name(TrOpId op)
{
  switch (op) {
    case TR_OP_ADD:
      return "__radd__";
    case TR_OP_SUB:
      return "__rsub__";
    case TR_OP_MUL:
      return "__rmul__";
    case TR_OP_DIV:
      return "__rtruediv__";
    case TR_OP_FLOORDIV:
      return "__rfloordiv__";
    case TR_OP_MOD:
      return "__rmod__";
    case TR_OP_POW:
      return "__rpow__";
    case TR_OP_MATMUL:
      return "__rmatmul__";
    case TR_OP_LOGICAL_AND:
      return "__rand__";
    case TR_OP_LOGICAL_OR:
      return "__ror__";
    default:
      return "__radd__";
  }
}

PyObject *
tf_binop(TfState *st, TrOpId op, PyObject *a, PyObject *b)
{
  bool a_tensor = is_tensor_like(st, a);
  PyObject *other = a_tensor ? b : a;
  /* TF's wrapper: an operand it cannot convert defers to the operand's reflected method when
   * its type has one, and is a conversion error otherwise. */
  if (!is_tensor_like(st, other) && !tf_convertible(st, other)) {
    if (!a_tensor || PyObject_HasAttrString((PyObject *)Py_TYPE(other), reflected_name(op)))
      Py_RETURN_NOTIMPLEMENTED;
    raise_unsupported(other);
    return NULL;
  }
  TfOperand oa, ob;
  if (!tf_operand_pair(st, a, b, &oa, &ob))
    return NULL;
  PyObject *r = binop_apply(st, op, &oa, &ob);
  tf_operand_clear(&oa);
  tf_operand_clear(&ob);
  return r;
}

PyObject *
tf_truediv(TfState *st, PyObject *a, PyObject *b)
{
  return tf_binop(st, TR_OP_DIV, a, b);
}

#define TENSOR_BINOP(fn, op)                                                                       \
  static PyObject *fn(PyObject *a, PyObject *b)                                                    \
  {                                                                                                \
    return tf_binop(tf_state(), op, a, b);                                                         \
  }
TENSOR_BINOP(tensor_add, TR_OP_ADD)
TENSOR_BINOP(tensor_sub, TR_OP_SUB)
TENSOR_BINOP(tensor_mul, TR_OP_MUL)
TENSOR_BINOP(tensor_truediv, TR_OP_DIV)
TENSOR_BINOP(tensor_floordiv, TR_OP_FLOORDIV)
TENSOR_BINOP(tensor_mod, TR_OP_MOD)
TENSOR_BINOP(tensor_matmul, TR_OP_MATMUL)
TENSOR_BINOP(tensor_and, TR_OP_LOGICAL_AND)
TENSOR_BINOP(tensor_or, TR_OP_LOGICAL_OR)
#undef TENSOR_BINOP

static PyObject *
tensor_pow(PyObject *a, PyObject *b, PyObject *mod)
{
  if (mod != Py_None)
    Py_RETURN_NOTIMPLEMENTED;
  return tf_binop(tf_state(), TR_OP_POW, a, b);
}

static bool
broadcastable(const TrShape *a, const TrShape *b)
{
  if (a->rank == TR_UNKNOWN || b->rank == TR_UNKNOWN)
    return true;
  for (int i = 1; i <= a->rank && i <= b->rank; i++) {
    int64_t x = a->dims[a->rank - i], y = b->dims[b->rank - i];
    if (x != y && x != 1 && y != 1 && x != TR_UNKNOWN && y != TR_UNKNOWN)
      return false;
  }
  return true;
}

/* `<` and friends are elementwise; `==`/`!=` too (TF 2), with None and other values that do not
 * convert giving a plain False / True, and incompatible shapes or dtypes a scalar False / True
 * as TF's equal(incompatible_shape_error=False) does. */
PyObject *
tf_compare(TfState *st, PyObject *a, PyObject *b, int py_op)
{
  static const TrOpId ops[6] = {
      [Py_LT] = TR_OP_LESS,      [Py_LE] = TR_OP_LESS_EQUAL, [Py_EQ] = TR_OP_EQUAL,
      [Py_NE] = TR_OP_NOT_EQUAL, [Py_GT] = TR_OP_GREATER,    [Py_GE] = TR_OP_GREATER_EQUAL,
  };
  bool equality = py_op == Py_EQ || py_op == Py_NE;
  PyObject *other = is_tensor_like(st, a) ? b : a;
  if (!is_tensor_like(st, other) && !tf_convertible(st, other)) {
    if (equality)
      return PyBool_FromLong(py_op == Py_NE);
    Py_RETURN_NOTIMPLEMENTED;
  }
  TfOperand in[2];
  if (!tf_operand_pair(st, a, b, &in[0], &in[1]))
    return NULL;
  PyObject *result;
  if (equality && (!broadcastable(&in[0].shape, &in[1].shape) || in[0].dtype != in[1].dtype)) {
    TfOperand c;
    result = tf_operand_from_tensor(st, tr_tensor_new_bool(py_op == Py_NE), &c)
                 ? tf_operand_to_value(st, &c)
                 : NULL;
  } else {
    result = tf_apply(st, ops[py_op], in, 2, NULL, NULL);
  }
  tf_operands_clear(in, 2);
  return result;
}

static PyObject *
tensor_richcompare(PyObject *self, PyObject *other, int op)
{
  return tf_compare(tf_state(), self, other, op);
}

static PyObject *
unary_op(PyObject *self, TrOpId op)
{
  TfState *st = tf_state();
  TfOperand x;
  if (!tf_operand(st, self, TR_DTYPE_INVALID, true, &x))
    return NULL;
  PyObject *r = tf_apply(st, op, &x, 1, NULL, NULL);
  tf_operand_clear(&x);
  return r;
}

static PyObject *
tensor_neg(PyObject *self)
{
  return unary_op(self, TR_OP_NEG);
}

static PyObject *
tensor_pos(PyObject *self)
{
  return Py_NewRef(self);
}

static PyObject *
tensor_abs(PyObject *self)
{
  return unary_op(self, TR_OP_ABS);
}

static PyObject *
tensor_invert(PyObject *self)
{
  return unary_op(self, TR_OP_LOGICAL_NOT);
}

/* ---- indexing ---------------------------------------------------------------------------- */

static PyObject *
raise_bad_index(PyObject *key)
{
  PyErr_Format(PyExc_TypeError,
               "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
               "tf.int32/tf.int64 tensors are valid indices, got %R",
               key);
  return NULL;
}

static bool
slice_bound(TfState *st, PyObject *v, int64_t *out)
{
  if (int_like(st, v, out))
    return true;
  raise_bad_index(v);
  return false;
}

/* A symbolic scalar integer tensor: an index known only when the graph runs. */
static bool
is_symbolic_index(TfState *st, PyObject *v)
{
  if (!tf_is_symbolic(st, v))
    return false;
  TrOutput out = tf_symbolic_output(v);
  return tr_output_shape(out)->rank == 0 && tr_dtype_is_int(tr_output_dtype(out));
}

/* One bound vector of a StridedSlice whose entries may be symbolic: `sym[i]` (plus `add`) where
 * set, else vals[i]; an int64 Pack of them. */
static bool
bound_operand(TfState *st, const int64_t *vals, PyObject *const *sym, int n, int64_t add,
              TfOperand *out)
{
  TfOperand parts[TR_MAX_RANK];
  int made = 0;
  bool ok = true;
  TrAttrs cast;
  tr_attrs_init(&cast);
  cast.dtype = TR_INT64;
  for (int i = 0; i < n && ok; i++, made++) {
    if (!sym[i]) {
      ok = tf_operand_from_tensor(st, tr_tensor_new_int64(vals[i]), &parts[i]);
      continue;
    }
    TfOperand idx;
    if (!tf_operand(st, sym[i], TR_DTYPE_INVALID, false, &idx)) {
      ok = false;
      break;
    }
    TfOperand in[2];
    ok = tf_apply_operand(st, TR_OP_CAST, &idx, 1, &cast, NULL, &in[0]);
    tf_operand_clear(&idx);
    if (!ok)
      break;
    if (!add) {
      parts[i] = in[0];
      continue;
    }
    ok = tf_operand_from_tensor(st, tr_tensor_new_int64(add), &in[1]) &&
         tf_apply_operand(st, TR_OP_ADD, in, 2, NULL, NULL, &parts[i]);
    tf_operands_clear(in, 2);
    if (!ok)
      break;
  }
  TrAttrs stack;
  tr_attrs_init(&stack);
  stack.axis = 0;
  if (ok)
    ok = tf_apply_operand(st, TR_OP_STACK, parts, n, &stack, NULL, out);
  tf_operands_clear(parts, made);
  return ok;
}

PyObject *
tf_getitem(TfState *st, PyObject *self, PyObject *key)
{
  bool tuple = PyTuple_Check(key);
  Py_ssize_t n = tuple ? PyTuple_GET_SIZE(key) : 1;
  if (n > TR_MAX_RANK) {
    PyErr_SetString(PyExc_ValueError, "too many indices for tensor");
    return NULL;
  }
  int64_t begin[TR_MAX_RANK], end[TR_MAX_RANK], strides[TR_MAX_RANK];
  PyObject *sym[TR_MAX_RANK]; /* symbolic scalar indices, borrowed; NULL elsewhere */
  bool any_sym = false;
  TrAttrs masks;
  tr_attrs_init(&masks);
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *item = tuple ? PyTuple_GET_ITEM(key, i) : key;
    uint32_t bit = 1u << i;
    begin[i] = end[i] = 0;
    strides[i] = 1;
    sym[i] = NULL;
    if (is_symbolic_index(st, item)) {
      sym[i] = item;
      any_sym = true;
      masks.shrink_axis_mask |= bit;
    } else if (item == Py_None) {
      masks.new_axis_mask |= bit;
    } else if (item == Py_Ellipsis) {
      masks.ellipsis_mask |= bit;
    } else if (PySlice_Check(item)) {
      PySliceObject *s = (PySliceObject *)item;
      if (s->start == Py_None)
        masks.begin_mask |= bit;
      else if (!slice_bound(st, s->start, &begin[i]))
        return NULL;
      if (s->stop == Py_None)
        masks.end_mask |= bit;
      else if (!slice_bound(st, s->stop, &end[i]))
        return NULL;
      if (s->step != Py_None && !slice_bound(st, s->step, &strides[i]))
        return NULL;
    } else if (int_like(st, item, &begin[i])) {
      end[i] = begin[i] + 1;
      masks.shrink_axis_mask |= bit;
    } else {
      return raise_bad_index(item);
    }
  }
  TrShape vec = tr_shape_make(1, (int64_t[]){n});
  TfOperand in[4];
  if (!tf_operand(st, self, TR_DTYPE_INVALID, true, &in[0]))
    return NULL;
  bool ok;
  if (any_sym) {
    /* begin and end hold the symbolic indices: packed from scalars in the graph. */
    ok = bound_operand(st, begin, sym, (int)n, 0, &in[1]);
    if (ok && !bound_operand(st, end, sym, (int)n, 1, &in[2])) {
      tf_operand_clear(&in[1]);
      ok = false;
    }
    if (!ok) {
      tf_operand_clear(&in[0]);
      return NULL;
    }
    ok = tf_operand_from_tensor(st, tr_tensor_new_from_data(TR_INT64, &vec, strides), &in[3]);
  } else {
    const int64_t *vals[3] = {begin, end, strides};
    ok = true;
    for (int i = 0; i < 3; i++)
      if (!tf_operand_from_tensor(st, tr_tensor_new_from_data(TR_INT64, &vec, vals[i]), &in[i + 1]))
        g_assert_not_reached(); /* concrete tensors always make operands */
  }
  PyObject *r = ok ? tf_apply(st, TR_OP_STRIDED_SLICE, in, 4, &masks, NULL) : NULL;
  tf_operands_clear(in, 4);
  return r;
}

static PyObject *
tensor_getitem(PyObject *self, PyObject *key)
{
  return tf_getitem(tf_state(), self, key);
}

/* ---- iteration over the first axis ---------------------------------------------------------- */

typedef struct {
  PyObject_HEAD
  PyObject *tensor; /* the tensor (owned); a Tensor holds no objects, so no cycles */
  int64_t index;    /* next row */
  int64_t n;        /* rows */
} TensorIter;

static void
tensor_iter_dealloc(PyObject *self)
{
  PyTypeObject *type = Py_TYPE(self);
  Py_XDECREF(((TensorIter *)self)->tensor);
  type->tp_free(self);
  Py_DECREF(type);
}

static PyObject *
tensor_iter_next(PyObject *self)
{
  TensorIter *it = (TensorIter *)self;
  if (it->index >= it->n)
    return NULL;
  PyObject *key = PyLong_FromLongLong(it->index++);
  if (!key)
    return NULL;
  PyObject *r = tf_getitem(tf_state(), it->tensor, key);
  Py_DECREF(key);
  return r;
}

static PyType_Slot tensor_iter_slots[] = {
    {Py_tp_dealloc, tensor_iter_dealloc},
    {Py_tp_iter, PyObject_SelfIter},
    {Py_tp_iternext, tensor_iter_next},
    {0, NULL},
};

static PyType_Spec tensor_iter_spec = {
    .name = "tensorflow.TensorIterator",
    .basicsize = sizeof(TensorIter),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = tensor_iter_slots,
};

static PyObject *
tensor_iter(PyObject *self)
{
  TfState *st = tf_state();
  TrTensor *t = tf_tensor_value(self);
  if (!t) {
    PyErr_SetString(st->OperatorNotAllowedInGraphError,
                    "Iterating over a symbolic `tf.Tensor` is not allowed: a Python `for` over a "
                    "tensor needs its value, which exists only when the graph runs. Iterate over "
                    "tf.range(n) or a Python range instead.");
    return NULL;
  }
  if (t->shape.rank == 0) {
    PyErr_SetString(PyExc_TypeError, "Cannot iterate over a scalar tensor.");
    return NULL;
  }
  TensorIter *it = PyObject_New(TensorIter, st->TensorIterator);
  if (!it)
    return NULL;
  it->tensor = Py_NewRef(self);
  it->index = 0;
  it->n = t->shape.dims[0];
  return (PyObject *)it;
}

/* ---- Reference: Tensor.ref() ------------------------------------------------------------- */

typedef struct {
  PyObject_HEAD
  PyObject *obj; /* the tensor or Variable (owned) */
} TfReference;

PyObject *
tf_reference_new(TfState *st, PyObject *obj)
{
  TfReference *r = PyObject_GC_New(TfReference, st->Reference);
  if (!r)
    return NULL;
  r->obj = Py_NewRef(obj);
  PyObject_GC_Track(r);
  return (PyObject *)r;
}

static int
reference_traverse(PyObject *self, visitproc visit, void *arg)
{
  Py_VISIT(Py_TYPE(self));
  Py_VISIT(((TfReference *)self)->obj);
  return 0;
}

static int
reference_clear(PyObject *self)
{
  Py_CLEAR(((TfReference *)self)->obj);
  return 0;
}

static void
reference_dealloc(PyObject *self)
{
  PyTypeObject *type = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  reference_clear(self);
  type->tp_free(self);
  Py_DECREF(type);
}

static PyObject *
reference_repr(PyObject *self)
{
  return PyUnicode_FromFormat("<Reference wrapping %R>", ((TfReference *)self)->obj);
}

static Py_hash_t
reference_hash(PyObject *self)
{
  Py_hash_t h = (Py_hash_t)((uintptr_t)((TfReference *)self)->obj >> 4);
  return h == -1 ? -2 : h;
}

/* Two references are equal when they wrap the same object. */
static PyObject *
reference_richcompare(PyObject *self, PyObject *other, int op)
{
  if ((op != Py_EQ && op != Py_NE) || !Py_IS_TYPE(other, Py_TYPE(self)))
    Py_RETURN_NOTIMPLEMENTED;
  bool eq = ((TfReference *)self)->obj == ((TfReference *)other)->obj;
  return PyBool_FromLong(eq == (op == Py_EQ));
}

static PyObject *
reference_deref(PyObject *self, PyObject *unused)
{
  return Py_NewRef(((TfReference *)self)->obj);
}

static PyMethodDef reference_methods[] = {
    {"deref", reference_deref, METH_NOARGS, "The object this reference stands for."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot reference_slots[] = {
    {Py_tp_dealloc, reference_dealloc},
    {Py_tp_traverse, reference_traverse},
    {Py_tp_clear, reference_clear},
    {Py_tp_repr, reference_repr},
    {Py_tp_hash, reference_hash},
    {Py_tp_richcompare, reference_richcompare},
    {Py_tp_methods, reference_methods},
    {Py_tp_doc, "A hashable reference to a Tensor or Variable (x.ref())."},
    {0, NULL},
};

static PyType_Spec reference_spec = {
    .name = "tensorflow.python.util.object_identity.Reference",
    .basicsize = sizeof(TfReference),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE |
             Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = reference_slots,
};

static PyObject *
tensor_ref(PyObject *self, PyObject *unused)
{
  return tf_reference_new(tf_state(), self);
}

/* format(t, spec), f"{t}": an eager tensor formats its NumPy value, as TensorFlow's EagerTensor
 * does (f"{tf.constant([1, 2])}" is "[1 2]", f"{t:.2f}" of a scalar "3.14"); a symbolic one is
 * an object (str(t) for an empty spec, TypeError otherwise). */
static PyObject *
tensor_format(PyObject *self, PyObject *spec)
{
  if (!tf_tensor_value(self)) {
    if (PyUnicode_Check(spec) && PyUnicode_GET_LENGTH(spec) == 0)
      return PyObject_Str(self);
    PyObject *name = PyType_GetName(Py_TYPE(self)); /* owned */
    if (name)
      PyErr_Format(PyExc_TypeError, "unsupported format string passed to %U.__format__", name);
    Py_XDECREF(name);
    return NULL;
  }
  PyObject *v = tensor_numpy(self, NULL); /* owned */
  if (!v)
    return NULL;
  PyObject *r = PyObject_Format(v, spec);
  Py_DECREF(v);
  return r;
}

/* Tensors are immutable: copies are the tensor itself. */
static PyObject *
tensor_copy(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  return Py_NewRef(self);
}

/* ---- the type ---------------------------------------------------------------------------- */

static PyMethodDef tensor_methods[] = {
    {"numpy", tensor_numpy, METH_NOARGS, "The value as a NumPy array or scalar."},
    {"get_shape", tensor_get_shape_method, METH_NOARGS, "The TensorShape of the tensor."},
    {"set_shape", tensor_set_shape, METH_O,
     "Updates the shape of this tensor (checks it for an eager tensor)."},
    {"__array__", (PyCFunction)(void (*)(void))tensor_array, METH_FASTCALL | METH_KEYWORDS,
     "The value as a NumPy array."},
    {"ref", tensor_ref, METH_NOARGS, "A hashable reference to this tensor."},
    {"experimental_ref", tensor_ref, METH_NOARGS, "A hashable reference to this tensor."},
    {"__format__", tensor_format, METH_O, NULL},
    {"__copy__", (PyCFunction)(void (*)(void))tensor_copy, METH_FASTCALL, NULL},
    {"__deepcopy__", (PyCFunction)(void (*)(void))tensor_copy, METH_FASTCALL, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef tensor_getset[] = {
    {"shape", tensor_get_shape, NULL, "The TensorShape of the tensor.", NULL},
    {"dtype", tensor_get_dtype, NULL, "The DType of the elements.", NULL},
    {"ndim", tensor_get_ndim, NULL, "The rank.", NULL},
    {"device", tensor_get_device, NULL, "The device the tensor lives on.", NULL},
    {"name", tensor_get_name, NULL, "The name of a symbolic tensor: 'add:0'.", NULL},
    {"graph", tensor_get_graph, NULL, "The Graph of a symbolic tensor.", NULL},
    {"op", tensor_get_op, NULL, "The Operation that produces a symbolic tensor.", NULL},
    {"value_index", tensor_get_value_index, NULL, "The output index of the tensor in its op.",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef tensor_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(TfTensor, weakreflist), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot tensor_slots[] = {
    {Py_tp_dealloc, tensor_dealloc},
    {Py_tp_repr, tensor_repr},
    {Py_tp_str, tensor_str},
    {Py_tp_hash, tensor_hash},
    {Py_tp_richcompare, tensor_richcompare},
    {Py_tp_iter, tensor_iter},
    {Py_tp_methods, tensor_methods},
    {Py_tp_getset, tensor_getset},
    {Py_tp_members, tensor_members},
    {Py_nb_add, tensor_add},
    {Py_nb_subtract, tensor_sub},
    {Py_nb_multiply, tensor_mul},
    {Py_nb_true_divide, tensor_truediv},
    {Py_nb_floor_divide, tensor_floordiv},
    {Py_nb_remainder, tensor_mod},
    {Py_nb_power, tensor_pow},
    {Py_nb_matrix_multiply, tensor_matmul},
    {Py_nb_and, tensor_and},
    {Py_nb_or, tensor_or},
    {Py_nb_negative, tensor_neg},
    {Py_nb_positive, tensor_pos},
    {Py_nb_absolute, tensor_abs},
    {Py_nb_invert, tensor_invert},
    {Py_nb_bool, tensor_bool},
    {Py_nb_int, tensor_int},
    {Py_nb_float, tensor_float},
    {Py_nb_index, tensor_index},
    {Py_mp_length, tensor_len},
    {Py_mp_subscript, tensor_getitem},
    {Py_bf_getbuffer, tensor_getbuffer},
    {Py_bf_releasebuffer, tensor_releasebuffer},
    {Py_tp_doc, "A multi-dimensional array of elements of a single data type."},
    {0, NULL},
};

static PyType_Spec tensor_spec = {
    .name = "tensorflow.python.framework.tensor.Tensor",
    .basicsize = sizeof(TfTensor),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = tensor_slots,
};

/* The classes tensors are made of, as TensorFlow's: EagerTensor holds a value, SymbolicTensor
 * is a graph's output while a Function traces. Both are tf.Tensor and add nothing to it. */
static PyType_Slot eager_tensor_slots[] = {
    {Py_tp_doc, "Base class for EagerTensor."},
    {0, NULL},
};

static PyType_Spec eager_tensor_spec = {
    .name = "tensorflow.python.framework.ops.EagerTensor",
    .basicsize = sizeof(TfTensor),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = eager_tensor_slots,
};

static PyType_Slot symbolic_tensor_slots[] = {
    {Py_tp_doc, "A symbolic tensor from a graph."},
    {0, NULL},
};

static PyType_Spec symbolic_tensor_spec = {
    .name = "tensorflow.python.framework.ops.SymbolicTensor",
    .basicsize = sizeof(TfTensor),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = symbolic_tensor_slots,
};

/* ---- tf.constant and tf.convert_to_tensor --------------------------------------------------- */

/* A `name=` argument: the text, or NULL for None/absent. False with TypeError otherwise. */
static bool
name_arg(PyObject *v, const char **out)
{
  *out = NULL;
  if (!v || v == Py_None)
    return true;
  if (!PyUnicode_Check(v)) {
    PyErr_Format(PyExc_TypeError, "name must be a string, not %s", Py_TYPE(v)->tp_name);
    return false;
  }
  return (*out = PyUnicode_AsUTF8(v)) != NULL;
}

/* tf.constant's value: `t` (transfer full) cast to `dtype` and given `shape` (a single value is
 * broadcast to it). Transfer full, or NULL with an exception. */
static TrTensor *
constant_tensor(TfState *st, TrTensor *t, TrDType dtype, PyObject *shape)
{
  GError *error = NULL;
  if (dtype != TR_DTYPE_INVALID && t->dtype != dtype) {
    TrTensor *c = tr_cast(t, dtype, &error);
    tr_tensor_unref(t);
    if (!c) {
      tf_raise_error(st, error);
      return NULL;
    }
    t = c;
  }
  if (!shape || shape == Py_None)
    return t;
  TrShape s;
  if (!tf_shape_arg(st, shape, &s)) {
    tr_tensor_unref(t);
    return NULL;
  }
  if (!tr_shape_is_fully_defined(&s)) {
    tr_tensor_unref(t);
    PyErr_Format(PyExc_TypeError,
                 "Eager execution of tf.constant with unsupported shape. "
                 "The shape must be fully defined, got %R.",
                 shape);
    return NULL;
  }
  int64_t n = tr_tensor_num_elements(t), want = tr_shape_num_elements(&s);
  TrTensor *r = NULL;
  if (n == 1)
    r = tr_fill(&s, t, &error);
  else if (n == want)
    r = tr_reshape(t, s.dims, s.rank, &error);
  tr_tensor_unref(t);
  if (n != 1 && n != want) {
    g_autofree char *text = tr_shape_to_string(&s);
    PyErr_Format(PyExc_TypeError,
                 "Eager execution of tf.constant with unsupported shape. Tensor of shape "
                 "(%" G_GINT64_FORMAT ",) cannot be reshaped to shape %s.",
                 n, text);
    return NULL;
  }
  if (!r)
    tf_raise_error(st, error);
  return r;
}

/* A tf.Tensor of a value computed here (transfer full of t; NULL passes an exception on): the
 * tensor itself when eager, a Const node named `name` while tracing. */
static PyObject *
constant_value(TfState *st, TrTensor *t, const char *name)
{
  TfTrace *tr = tf_trace(st);
  if (!t || !tr)
    return tf_tensor_new(st, t);
  TrNode *node = tr_graph_add_const(tr->graph, t, name ? name : "Const");
  tr_tensor_unref(t);
  return tf_symbolic_new(st, tr->graph, tr_node_output(node, 0));
}

/* tf.constant of a symbolic tensor or a Variable while tracing: an Identity of its value, or a
 * Reshape to `shape`, after a Cast to `dtype`. */
static PyObject *
constant_of_graph_value(TfState *st, PyObject *value, TrDType dtype, PyObject *shape,
                        const char *name)
{
  TfOperand o;
  if (!tf_operand(st, value, TR_DTYPE_INVALID, true, &o))
    return NULL;
  if (dtype != TR_DTYPE_INVALID && o.dtype != dtype) {
    TrAttrs cast;
    tr_attrs_init(&cast);
    cast.dtype = dtype;
    TfOperand c;
    bool ok = tf_apply_operand(st, TR_OP_CAST, &o, 1, &cast, NULL, &c);
    tf_operand_clear(&o);
    if (!ok)
      return NULL;
    o = c;
  }
  bool reshape = shape && shape != Py_None;
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  TrShape s;
  PyObject *r = NULL;
  if (!reshape || tf_shape_arg(st, shape, &s)) {
    if (reshape) {
      memcpy(attrs.axes, s.dims, sizeof(int64_t) * (size_t)s.rank);
      attrs.n_axes = s.rank;
    }
    r = tf_apply(st, reshape ? TR_OP_RESHAPE : TR_OP_IDENTITY, &o, 1, &attrs, name);
  }
  tf_operand_clear(&o);
  return r;
}

static PyObject *
tf_constant(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"value", "dtype", "shape", "name", NULL};
  PyObject *a[4];
  if (!tf_parse_args("constant", args, nargs, kwnames, names, 1, a))
    return NULL;
  TfState *st = tf_state();
  TrDType dt;
  const char *name;
  if (!tf_dtype_arg(st, a[1], TR_DTYPE_INVALID, &dt) || !name_arg(a[3], &name))
    return NULL;
  PyObject *value = a[0];
  bool variable = st->Variable && tf_is_variable(st, value);
  if (tf_is_symbolic(st, value) || (variable && tf_trace(st)))
    return constant_of_graph_value(st, value, dt, a[2], name);
  TrTensor *t =
      variable ? tr_variable_read(((TfVariable *)value)->var) : tf_convert(st, value, dt, true);
  if (t)
    t = constant_tensor(st, t, dt, a[2]);
  return constant_value(st, t, name);
}

static PyObject *
tf_convert_to_tensor(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"value", "dtype", "dtype_hint", "name", NULL};
  PyObject *a[4];
  if (!tf_parse_args("convert_to_tensor", args, nargs, kwnames, names, 1, a))
    return NULL;
  TfState *st = tf_state();
  TrDType dt, dh;
  if (!tf_dtype_arg(st, a[1], TR_DTYPE_INVALID, &dt) ||
      !tf_dtype_arg(st, a[2], TR_DTYPE_INVALID, &dh))
    return NULL;
  TfOperand o;
  bool ok;
  if (dt != TR_DTYPE_INVALID)
    ok = tf_operand(st, a[0], dt, false, &o);
  else {
    ok = tf_operand(st, a[0], dh, true, &o);
    /* A hint that does not fit a Python value is dropped (TF tries the hint, then infers). */
    if (!ok && dh != TR_DTYPE_INVALID &&
        (PyErr_ExceptionMatches(PyExc_TypeError) || PyErr_ExceptionMatches(PyExc_ValueError)) &&
        !is_tensor_like(st, a[0])) {
      PyErr_Clear();
      ok = tf_operand(st, a[0], TR_DTYPE_INVALID, true, &o);
    }
  }
  return ok ? tf_operand_to_value(st, &o) : NULL;
}

static PyMethodDef tensor_functions[] = {
    {"constant", (PyCFunction)(void (*)(void))tf_constant, METH_FASTCALL | METH_KEYWORDS,
     "constant(value, dtype=None, shape=None, name='Const')\n--\n\nCreates a constant tensor."},
    {"convert_to_tensor", (PyCFunction)(void (*)(void))tf_convert_to_tensor,
     METH_FASTCALL | METH_KEYWORDS,
     "convert_to_tensor(value, dtype=None, dtype_hint=None, name=None)\n--\n\n"
     "Converts the given value to a Tensor."},
    {NULL, NULL, 0, NULL},
};

/* ---- the part's init ---------------------------------------------------------------------- */

int
tf_tensor_init(PyObject *module, TfState *st)
{
  st->Tensor = (PyTypeObject *)PyType_FromModuleAndSpec(module, &tensor_spec, NULL);
  if (!st->Tensor)
    return -1;
  /* NumPy defers to the tensor's reflected operators (ndarray + tensor is a tensor), as it does
   * for TF's EagerTensor. */
  PyObject *priority = PyFloat_FromDouble(100.0); /* owned */
  int r = priority ? PyObject_SetAttrString((PyObject *)st->Tensor, "__array_priority__", priority)
                   : -1;
  Py_XDECREF(priority);
  if (r < 0)
    return -1;
  st->EagerTensor =
      (PyTypeObject *)PyType_FromModuleAndSpec(module, &eager_tensor_spec, (PyObject *)st->Tensor);
  st->SymbolicTensor = st->EagerTensor ? (PyTypeObject *)PyType_FromModuleAndSpec(
                                             module, &symbolic_tensor_spec, (PyObject *)st->Tensor)
                                       : NULL;
  if (!st->SymbolicTensor)
    return -1;
  st->TensorShape = (PyTypeObject *)PyType_FromModuleAndSpec(module, &shape_spec, NULL);
  st->TensorIterator =
      st->TensorShape ? (PyTypeObject *)PyType_FromModuleAndSpec(module, &tensor_iter_spec, NULL)
                      : NULL;
  st->Reference = st->TensorIterator
                      ? (PyTypeObject *)PyType_FromModuleAndSpec(module, &reference_spec, NULL)
                      : NULL;
  if (!st->Reference)
    return -1;
  if (PyModule_AddObjectRef(module, "Tensor", (PyObject *)st->Tensor) < 0 ||
      PyModule_AddObjectRef(module, "TensorShape", (PyObject *)st->TensorShape) < 0 ||
      PyModule_AddObjectRef(module, "newaxis", Py_None) < 0 ||
      PyModule_AddFunctions(module, tensor_functions) < 0)
    return -1;
  return 0;
}

void
tf_tensor_clear(TfState *st)
{
  Py_CLEAR(st->numpy);
  Py_CLEAR(st->np_ndarray);
  Py_CLEAR(st->np_generic);
  Py_CLEAR(st->np_array);
  Py_CLEAR(st->Reference);
  Py_CLEAR(st->TensorIterator);
  Py_CLEAR(st->TensorShape);
  Py_CLEAR(st->SymbolicTensor);
  Py_CLEAR(st->EagerTensor);
  Py_CLEAR(st->Tensor);
}
