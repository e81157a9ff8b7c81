/* tf-dtype.c — tf.DType and its objects (tf.float32 ...), the tf.errors classes, and the
 * translation of core/tensor's and core/graph's GErrors into those Python exceptions.
 *
 * A DType object stands for one TrDType; there is exactly one per dtype (st->dtypes), so
 * `x.dtype is tf.float32` holds. `dtype=` arguments go through tf_dtype_arg, which also takes
 * TensorFlow's names ("float32", "float") and NumPy's dtypes and scalar types; NumPy is only
 * consulted when the program imported it already (a NumPy object cannot exist otherwise).
 *
 * The error classes follow TensorFlow's errors_impl: OpError derives from Exception and takes
 * either TF's (node_def, op, message, *args) or just a message; the subclasses derive from
 * OpError alone (TensorFlow's InvalidArgumentError is not a ValueError, and neither was the old
 * engine's). Their str() is the message.
 */
#include "tf-private.h"

#define ERRORS_MODULE "tensorflow.python.framework.errors_impl"

/* ---- DType ---------------------------------------------------------------------------------- */

typedef struct {
  PyObject_HEAD
  TrDType dtype; /* the element type it names */
} TfDType;

static TrDType
dtype_of(PyObject *self)
{
  return ((TfDType *)self)->dtype;
}

static PyObject *
dtype_repr(PyObject *self)
{
  return PyUnicode_FromFormat("tf.%s", tr_dtype_name(dtype_of(self)));
}

/* str(): TensorFlow's DType.__str__, "<dtype: 'float32'>" (print(t.dtype) shows it). */
static PyObject *
dtype_str(PyObject *self)
{
  return PyUnicode_FromFormat("<dtype: '%s'>", tr_dtype_name(dtype_of(self)));
}

static PyObject *
dtype_get_name(PyObject *self, void *closure)
{
  return PyUnicode_FromString(tr_dtype_name(dtype_of(self)));
}

static PyObject *
dtype_get_is_floating(PyObject *self, void *closure)
{
  return PyBool_FromLong(tr_dtype_is_float(dtype_of(self)));
}

static PyObject *
dtype_get_is_integer(PyObject *self, void *closure)
{
  return PyBool_FromLong(tr_dtype_is_int(dtype_of(self)));
}

static PyObject *
dtype_get_is_bool(PyObject *self, void *closure)
{
  return PyBool_FromLong(dtype_of(self) == TR_BOOL);
}

static PyObject *
dtype_get_is_complex(PyObject *self, void *closure)
{
  return PyBool_FromLong(tr_dtype_is_complex(dtype_of(self)));
}

static PyObject *
dtype_get_is_unsigned(PyObject *self, void *closure)
{
  return PyBool_FromLong(tr_dtype_is_unsigned(dtype_of(self)));
}

/* Trellis has no quantized dtypes (qint8 ...). */
static PyObject *
dtype_get_false(PyObject *self, void *closure)
{
  Py_RETURN_FALSE;
}

static PyObject *
dtype_get_is_numpy_compatible(PyObject *self, void *closure)
{
  return PyBool_FromLong(dtype_of(self) != TR_BFLOAT16);
}

/* TensorFlow's DataType enum value. */
static PyObject *
dtype_get_enum(PyObject *self, void *closure)
{
  return PyLong_FromLong(tr_dtype_enum(dtype_of(self)));
}

/* Bytes per element, NumPy's itemsize (8 for strings: an object pointer, as TensorFlow says). */
static PyObject *
dtype_get_size(PyObject *self, void *closure)
{
  TrDType d = dtype_of(self);
  return PyLong_FromSize_t(d == TR_STRING ? sizeof(void *) : tr_dtype_size(d));
}

/* base_dtype: every dtype here is its own base (no reference dtypes). */
static PyObject *
dtype_get_self(PyObject *self, void *closure)
{
  return Py_NewRef(self);
}

/* real_dtype: complex64 -> float32, complex128 -> float64, any other dtype itself. */
static PyObject *
dtype_get_real(PyObject *self, void *closure)
{
  return Py_NewRef(tf_dtype_object(tf_state(), tr_dtype_real(dtype_of(self))));
}

/* DType.min and DType.max as TensorFlow computes them: NumPy's finfo (a NumPy scalar) for
 * floats, iinfo (a Python int) for integers, bool 0/1 is refused like strings and complex
 * numbers. bfloat16 has no NumPy type here: its limits are Python floats. */
static PyObject *
dtype_limit(PyObject *self, bool max)
{
  TrDType d = dtype_of(self);
  const char *which = max ? "max" : "min";
  if (d == TR_BOOL || d == TR_STRING || tr_dtype_is_complex(d)) {
    PyObject *str = PyObject_Str(self); /* owned */
    if (!str)
      return NULL;
    PyErr_Format(PyExc_TypeError, "Cannot find %s value of %U with type %U.",
                 max ? "maximum" : "minimum", str, str);
    Py_DECREF(str);
    return NULL;
  }
  if (d == TR_BFLOAT16) /* the largest finite bfloat16: 0x1.FEp127 */
    return PyFloat_FromDouble(max ? 0x1.FEp127 : -0x1.FEp127);
  PyObject *np = PyImport_ImportModule("numpy"); /* owned */
  if (!np)
    return NULL;
  PyObject *info = PyObject_CallMethod(np, tr_dtype_is_float(d) ? "finfo" : "iinfo", "s",
                                       tr_dtype_np_name(d)); /* owned */
  Py_DECREF(np);
  if (!info)
    return NULL;
  PyObject *v = PyObject_GetAttrString(info, which);
  Py_DECREF(info);
  return v;
}

static PyObject *
dtype_get_min(PyObject *self, void *closure)
{
  return dtype_limit(self, false);
}

static PyObject *
dtype_get_max(PyObject *self, void *closure)
{
  return dtype_limit(self, true);
}

/* DType.limits: (min, max), (0, 1) for bool. */
static PyObject *
dtype_get_limits(PyObject *self, void *closure)
{
  if (dtype_of(self) == TR_BOOL)
    return Py_BuildValue("(ii)", 0, 1);
  PyObject *lo = dtype_get_min(self, NULL); /* owned */
  PyObject *hi = lo ? dtype_get_max(self, NULL) : NULL;
  PyObject *r = hi ? PyTuple_Pack(2, lo, hi) : NULL;
  Py_XDECREF(lo);
  Py_XDECREF(hi);
  return r;
}

/* The NumPy scalar type of the dtype (numpy.float32, ...; `object` for strings, as TF). Imports
 * NumPy: only reached when a program asks. */
static PyObject *
dtype_get_as_numpy_dtype(PyObject *self, void *closure)
{
  PyObject *np = PyImport_ImportModule("numpy"); /* owned */
  if (!np)
    return NULL;
  /* bfloat16 has no NumPy type without TensorFlow's ml_dtypes: its values convert to float32,
   * as tensor.numpy() gives them (see tf-tensor.c). */
  TrDType d = dtype_of(self);
  PyObject *dt =
      PyObject_CallMethod(np, "dtype", "s", d == TR_BFLOAT16 ? "float32" : tr_dtype_np_name(d));
  Py_DECREF(np);
  if (!dt)
    return NULL;
  PyObject *type = PyObject_GetAttrString(dt, "type");
  Py_DECREF(dt);
  return type;
}

/* DType == DType, or == anything tf_dtype_arg accepts ("float32", np.float32): TF's __eq__
 * converts the other side with as_dtype, and a failed conversion is simply unequal. */
static PyObject *
dtype_richcompare(PyObject *self, PyObject *other, int op)
{
  if (op != Py_EQ && op != Py_NE)
    Py_RETURN_NOTIMPLEMENTED;
  TfState *st = tf_state();
  TrDType d;
  bool eq;
  if (other == Py_None)
    eq = false;
  else if (!tf_dtype_arg(st, other, TR_DTYPE_INVALID, &d)) {
    PyErr_Clear();
    eq = false;
  } else
    eq = d == dtype_of(self);
  return PyBool_FromLong(eq == (op == Py_EQ));
}

static Py_hash_t
dtype_hash(PyObject *self)
{
  return (Py_hash_t)dtype_of(self) + 1;
}

static PyGetSetDef dtype_getset[] = {
    {"name", dtype_get_name, NULL, "The dtype's name: 'float32'.", NULL},
    {"is_floating", dtype_get_is_floating, NULL, "Whether this is a floating point type.", NULL},
    {"is_integer", dtype_get_is_integer, NULL, "Whether this is an integer type.", NULL},
    {"is_bool", dtype_get_is_bool, NULL, "Whether this is the boolean type.", NULL},
    {"is_complex", dtype_get_is_complex, NULL, "Whether this is a complex type.", NULL},
    {"is_unsigned", dtype_get_is_unsigned, NULL, "Whether this is an unsigned integer type.", NULL},
    {"is_quantized", dtype_get_false, NULL, "Whether this is a quantized type.", NULL},
    {"is_numpy_compatible", dtype_get_is_numpy_compatible, NULL, "Whether NumPy has this type.",
     NULL},
    {"as_datatype_enum", dtype_get_enum, NULL, "TensorFlow's DataType enum value.", NULL},
    {"min", dtype_get_min, NULL, "The smallest value of the type.", NULL},
    {"max", dtype_get_max, NULL, "The largest value of the type.", NULL},
    {"limits", dtype_get_limits, NULL, "(min, max) of the type.", NULL},
    {"size", dtype_get_size, NULL, "Bytes per element.", NULL},
    {"base_dtype", dtype_get_self, NULL, "The dtype itself.", NULL},
    {"real_dtype", dtype_get_real, NULL, "The real type of a complex type, else the dtype.", NULL},
    {"as_numpy_dtype", dtype_get_as_numpy_dtype, NULL, "The NumPy scalar type.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot dtype_slots[] = {
    {Py_tp_repr, dtype_repr},
    {Py_tp_str, dtype_str},
    {Py_tp_hash, dtype_hash},
    {Py_tp_richcompare, dtype_richcompare},
    {Py_tp_getset, dtype_getset},
    {Py_tp_doc, "Represents the type of the elements in a Tensor."},
    {0, NULL},
};

static PyType_Spec dtype_spec = {
    .name = "tensorflow.python.framework.dtypes.DType",
    .basicsize = sizeof(TfDType),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = dtype_slots,
};

PyObject *
tf_dtype_object(TfState *st, TrDType dtype)
{
  g_return_val_if_fail(dtype >= 0 && dtype < TR_N_DTYPES, Py_None);
  return st->dtypes[dtype];
}

/* The dtype NumPy calls `np_dtype` (a numpy.dtype), or TR_DTYPE_INVALID. */
static TrDType
dtype_from_numpy(PyObject *np_dtype)
{
  PyObject *kind = PyObject_GetAttrString(np_dtype, "kind"); /* owned */
  PyObject *name = kind ? PyObject_GetAttrString(np_dtype, "name") : NULL;
  TrDType d = TR_DTYPE_INVALID;
  if (kind && name && PyUnicode_Check(kind) && PyUnicode_Check(name)) {
    const char *k = PyUnicode_AsUTF8(kind), *n = PyUnicode_AsUTF8(name);
    if (k && n && (strcmp(k, "O") == 0 || strcmp(k, "S") == 0 || strcmp(k, "U") == 0))
      d = TR_STRING;
    else if (k && n && strcmp(n, "float") != 0)
      d = tr_dtype_from_name(n);
  }
  Py_XDECREF(kind);
  Py_XDECREF(name);
  PyErr_Clear();
  return d;
}

static PyObject *
numpy_module_if_loaded(void)
{
  static PyObject *name; /* interned "numpy", immortal for the process */
  if (!name && !(name = PyUnicode_InternFromString("numpy")))
    return NULL;
  return PyImport_GetModule(name); /* new reference, or NULL without error */
}

bool
tf_dtype_arg(TfState *st, PyObject *v, TrDType dflt, TrDType *out)
{
  if (v == NULL || v == Py_None) {
    *out = dflt;
    return true;
  }
  if (Py_IS_TYPE(v, st->DType)) {
    *out = dtype_of(v);
    return true;
  }
  if (PyUnicode_Check(v)) {
    const char *name = PyUnicode_AsUTF8(v);
    if (!name)
      return false;
    if ((*out = tr_dtype_from_name(name)) != TR_DTYPE_INVALID)
      return true;
  } else if (PyLong_CheckExact(v) || PyBool_Check(v)) {
    /* TensorFlow's DataType enum values (as_dtype(1) is tf.float32) */
    int overflow;
    long e = PyLong_AsLongAndOverflow(v, &overflow);
    for (int d = 0; !overflow && d < TR_N_DTYPES; d++) {
      if (tr_dtype_enum(d) == e) {
        *out = d;
        return true;
      }
    }
  } else if (v == (PyObject *)&PyFloat_Type) {
    *out = TR_FLOAT32;
    return true;
  } else if (v == (PyObject *)&PyBool_Type) {
    *out = TR_BOOL;
    return true;
  } else if (v == (PyObject *)&PyBaseObject_Type) {
    *out = TR_STRING;
    return true;
  } else {
    PyObject *np = numpy_module_if_loaded(); /* owned */
    if (np) {
      TrDType d = TR_DTYPE_INVALID;
      PyObject *np_dtype_type = PyObject_GetAttrString(np, "dtype"); /* owned */
      PyObject *generic = PyObject_GetAttrString(np, "generic");     /* owned */
      if (np_dtype_type && generic) {
        PyObject *np_dtype = NULL; /* owned */
        if (PyObject_TypeCheck(v, (PyTypeObject *)np_dtype_type))
          np_dtype = Py_NewRef(v);
        else if (PyType_Check(v) && PyType_IsSubtype((PyTypeObject *)v, (PyTypeObject *)generic))
          np_dtype = PyObject_CallOneArg(np_dtype_type, v);
        if (np_dtype)
          d = dtype_from_numpy(np_dtype);
        Py_XDECREF(np_dtype);
      }
      Py_XDECREF(np_dtype_type);
      Py_XDECREF(generic);
      Py_DECREF(np);
      PyErr_Clear();
      if (d != TR_DTYPE_INVALID) {
        *out = d;
        return true;
      }
    }
  }
  PyErr_Format(PyExc_TypeError,
               "Cannot convert the argument `type_value`: %R to a TensorFlow DType.", v);
  return false;
}

/* tf.as_dtype(type_value) */
static PyObject *
tf_as_dtype(PyObject *module, PyObject *arg)
{
  TfState *st = tf_state();
  TrDType d;
  if (!tf_dtype_arg(st, arg, TR_DTYPE_INVALID, &d))
    return NULL;
  if (d == TR_DTYPE_INVALID)
    return PyErr_Format(PyExc_TypeError,
                        "Cannot convert the argument `type_value`: %R to a TensorFlow DType.", arg);
  return Py_NewRef(tf_dtype_object(st, d));
}

static PyMethodDef as_dtype_def = {"as_dtype", tf_as_dtype, METH_O,
                                   "Converts the given type_value to a DType."};

/* tensorflow.dtypes' module __getattr__ (PEP 562): the functions tf.dtypes shares with the
 * top-level module (tf.dtypes.cast is tf.cast), which other parts define after this one. */
static PyObject *
dtypes_getattr(PyObject *unused, PyObject *name)
{
  static const char *const shared[] = {"cast"};
  const char *n = PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : NULL;
  for (size_t i = 0; n && i < G_N_ELEMENTS(shared); i++)
    if (strcmp(n, shared[i]) == 0)
      return PyObject_GetAttr(tf_state()->module, name);
  PyErr_Format(PyExc_AttributeError, "module 'tensorflow.dtypes' has no attribute %R", name);
  return NULL;
}

static PyMethodDef dtypes_getattr_def = {"__getattr__", dtypes_getattr, METH_O,
                                         "The functions shared with the tensorflow module."};

/* ---- tf.errors ------------------------------------------------------------------------------ */

/* OpError(node_def, op, message, *args) as TensorFlow, or OpError(message): the exception's
 * args become (message,), so str() is the message; node_def and op are kept as attributes. */
static int
op_error_init(PyObject *self, PyObject *args, PyObject *kwargs)
{
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  if (kwargs && PyDict_GET_SIZE(kwargs)) {
    PyErr_SetString(PyExc_TypeError, "OpError() takes no keyword arguments");
    return -1;
  }
  if (n != 1 && n < 3) {
    PyErr_Format(PyExc_TypeError,
                 "%s.__init__() takes (node_def, op, message, *args) or (message), got %zd "
                 "arguments",
                 Py_TYPE(self)->tp_name, n);
    return -1;
  }
  PyObject *message = PyTuple_GET_ITEM(args, n == 1 ? 0 : 2); /* borrowed */
  PyObject *node_def = n == 1 ? Py_None : PyTuple_GET_ITEM(args, 0);
  PyObject *op = n == 1 ? Py_None : PyTuple_GET_ITEM(args, 1);
  PyObject *margs = PyTuple_Pack(1, message); /* owned */
  if (!margs)
    return -1;
  int r = ((PyTypeObject *)PyExc_Exception)->tp_init(self, margs, NULL);
  Py_DECREF(margs);
  if (r < 0 || PyObject_SetAttrString(self, "_node_def", node_def) < 0 ||
      PyObject_SetAttrString(self, "_op", op) < 0)
    return -1;
  return 0;
}

static PyObject *
op_error_get_message(PyObject *self, void *closure)
{
  PyObject *args = ((PyBaseExceptionObject *)self)->args; /* borrowed */
  if (args && PyTuple_GET_SIZE(args) >= 1)
    return PyObject_Str(PyTuple_GET_ITEM(args, 0));
  return PyUnicode_FromString("");
}

/* node_def and op: what the constructor was given, None when raised by Trellis. */
static PyObject *
op_error_get_stored(PyObject *self, void *closure)
{
  PyObject *dict = PyObject_GenericGetDict(self, NULL); /* owned */
  if (!dict)
    return NULL;
  PyObject *v = PyDict_GetItemString(dict, closure); /* borrowed */
  Py_DECREF(dict);
  return Py_NewRef(v ? v : Py_None);
}

static PyGetSetDef op_error_getset[] = {
    {"message", op_error_get_message, NULL, "The error message.", NULL},
    {"node_def", op_error_get_stored, NULL, "The NodeDef of the failed op, or None.", "_node_def"},
    {"op", op_error_get_stored, NULL, "The failed op, or None.", "_op"},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot op_error_slots[] = {
    {Py_tp_init, op_error_init},
    {Py_tp_getset, op_error_getset},
    {Py_tp_doc, "The base class for TensorFlow exceptions: an op failed."},
    {0, NULL},
};

static PyType_Spec op_error_spec = {
    .name = ERRORS_MODULE ".OpError",
    .basicsize = 0,
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .slots = op_error_slots,
};

/* TensorFlow's error_codes_pb2 values, the `error_code` class attribute. */
static const struct {
  const char *name;
  int code;
} error_classes[TF_N_ERRORS] = {
#define ERROR_NAME(code, nm) [TF_ERROR_##code] = {#nm, 0},
    TF_ERROR_LIST(ERROR_NAME)
#undef ERROR_NAME
};

/* The codes' names as tf.errors constants. */
static const char *const error_constants[TF_N_ERRORS] = {
#define ERROR_CONSTANT(code, nm) [TF_ERROR_##code] = #code,
    TF_ERROR_LIST(ERROR_CONSTANT)
#undef ERROR_CONSTANT
};

/* TensorFlow's error classes beyond TF_ERROR_LIST, with their codes. */
static const struct {
  const char *name, *constant;
  int code;
} other_error_classes[] = {
    {"CancelledError", "CANCELLED", 1},
    {"DeadlineExceededError", "DEADLINE_EXCEEDED", 4},
    {"AlreadyExistsError", "ALREADY_EXISTS", 6},
    {"PermissionDeniedError", "PERMISSION_DENIED", 7},
    {"AbortedError", "ABORTED", 10},
    {"InternalError", "INTERNAL", 13},
    {"UnavailableError", "UNAVAILABLE", 14},
    {"DataLossError", "DATA_LOSS", 15},
    {"UnauthenticatedError", "UNAUTHENTICATED", 16},
};

static int
error_code_of(TfErrorKind kind)
{
  switch (kind) {
    case TF_ERROR_INVALID_ARGUMENT:
      return 3;
    case TF_ERROR_OUT_OF_RANGE:
      return 11;
    case TF_ERROR_UNIMPLEMENTED:
      return 12;
    case TF_ERROR_RESOURCE_EXHAUSTED:
      return 8;
    case TF_ERROR_FAILED_PRECONDITION:
      return 9;
    case TF_ERROR_NOT_FOUND:
      return 5;
    case TF_ERROR_UNKNOWN:
      return 2;
    default:
      return 2; /* UNKNOWN */
  }
}

/* A class `name` of errors_impl deriving from `base`. Returns a new reference, or NULL. */
static PyObject *
new_error_class(PyObject *module, const char *name, PyObject *base)
{
  g_autofree char *qualified = g_strconcat(ERRORS_MODULE ".", name, NULL);
  PyType_Slot slots[] = {{0, NULL}};
  PyType_Spec spec = {
      .name = qualified,
      .basicsize = 0,
      .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
      .slots = slots,
  };
  /* PyType_FromSpec copies the name into the type (tp_name points into it for heap types
   * only after copying), so `qualified` may be freed afterwards. */
  return PyType_FromModuleAndSpec(module, &spec, base);
}

/* A graph run stopped by tf_interrupt_request(): the interrupt becomes KeyboardInterrupt where
 * Python would raise it. The host also called PyErr_SetInterrupt, so running the pending signal
 * handlers raises it (or whatever the program's SIGINT handler does); without one pending (an
 * interrupt of core/tf alone), KeyboardInterrupt is raised directly. */
static PyObject *
raise_interrupt(void)
{
  tf_interrupt_clear();
  if (PyErr_CheckSignals() < 0)
    return NULL;
  PyErr_SetNone(PyExc_KeyboardInterrupt);
  return NULL;
}

PyObject *
tf_raise_error(TfState *st, GError *error)
{
  g_return_val_if_fail(error != NULL, NULL);
  PyObject *type = st->errors[TF_ERROR_INVALID_ARGUMENT]; /* borrowed */
  if (error->domain == TR_ERROR) {
    switch ((TrErrorCode)error->code) {
      case TR_ERROR_CANCELLED:
        g_error_free(error);
        return raise_interrupt();
#define ERROR_CASE(code, nm)                                                                       \
  case TR_ERROR_##code:                                                                            \
    type = st->errors[TF_ERROR_##code];                                                            \
    break;
        TF_ERROR_LIST(ERROR_CASE)
#undef ERROR_CASE
    }
  }
  PyErr_SetString(type, error->message);
  g_error_free(error);
  return NULL;
}

PyObject *
tf_raise_graph_error(TfState *st, GError *error)
{
  g_return_val_if_fail(error != NULL, NULL);
  PyErr_SetString(error->code == TR_GRAPH_ERROR_VALUE ? PyExc_ValueError : PyExc_TypeError,
                  error->message);
  g_error_free(error);
  return NULL;
}

PyObject *
tf_raise_any(TfState *st, GError *error)
{
  if (error->domain == TR_GRAPH_ERROR)
    return tf_raise_graph_error(st, error);
  return tf_raise_error(st, error);
}

/* ---- the part's init ------------------------------------------------------------------------ */

static int
add_errors(PyObject *module, TfState *st)
{
  st->OpError = PyType_FromModuleAndSpec(module, &op_error_spec, PyExc_Exception);
  if (!st->OpError || PyModule_AddObjectRef(st->mod_errors, "OpError", st->OpError) < 0)
    return -1;
  for (int i = 0; i < TF_N_ERRORS; i++) {
    st->errors[i] = new_error_class(module, error_classes[i].name, st->OpError);
    if (!st->errors[i])
      return -1;
    PyObject *code = PyLong_FromLong(error_code_of(i)); /* owned */
    int r = code ? PyObject_SetAttrString(st->errors[i], "error_code", code) : -1;
    Py_XDECREF(code);
    if (r < 0 || PyModule_AddObjectRef(st->mod_errors, error_classes[i].name, st->errors[i]) < 0)
      return -1;
  }
  /* TensorFlow's other classes, which Trellis never raises but programs may name in `except`
   * (the module's attributes own them), and the code constants (tf.errors.INVALID_ARGUMENT). */
  for (size_t i = 0; i < G_N_ELEMENTS(other_error_classes); i++) {
    PyObject *cls = new_error_class(module, other_error_classes[i].name, st->OpError);
    PyObject *code = cls ? PyLong_FromLong(other_error_classes[i].code) : NULL;
    int r = code ? PyObject_SetAttrString(cls, "error_code", code) : -1;
    if (r == 0)
      r = PyModule_AddObjectRef(st->mod_errors, other_error_classes[i].name, cls);
    if (r == 0)
      r = PyModule_AddObjectRef(st->mod_errors, other_error_classes[i].constant, code);
    Py_XDECREF(cls);
    Py_XDECREF(code);
    if (r < 0)
      return -1;
  }
  for (int i = 0; i < TF_N_ERRORS; i++)
    if (PyModule_AddIntConstant(st->mod_errors, error_constants[i], error_code_of(i)) < 0)
      return -1;
  st->OperatorNotAllowedInGraphError =
      new_error_class(module, "OperatorNotAllowedInGraphError", PyExc_TypeError);
  if (!st->OperatorNotAllowedInGraphError)
    return -1;
  return 0;
}

int
tf_dtype_init(PyObject *module, TfState *st)
{
  st->DType = (PyTypeObject *)PyType_FromModuleAndSpec(module, &dtype_spec, NULL);
  if (!st->DType)
    return -1;
  if (PyModule_AddObjectRef(module, "DType", (PyObject *)st->DType) < 0 ||
      PyModule_AddObjectRef(st->mod_dtypes, "DType", (PyObject *)st->DType) < 0)
    return -1;
  for (int d = 0; d < TR_N_DTYPES; d++) {
    TfDType *o = PyObject_New(TfDType, st->DType);
    if (!o)
      return -1;
    o->dtype = d;
    st->dtypes[d] = (PyObject *)o;
    if (PyModule_AddObjectRef(module, tr_dtype_name(d), st->dtypes[d]) < 0 ||
        PyModule_AddObjectRef(st->mod_dtypes, tr_dtype_name(d), st->dtypes[d]) < 0)
      return -1;
  }
  /* TensorFlow's aliases: tf.half is tf.float16, tf.double is tf.float64. */
  static const struct {
    const char *name;
    TrDType dtype;
  } aliases[] = {{"half", TR_FLOAT16}, {"double", TR_FLOAT64}};
  for (size_t i = 0; i < G_N_ELEMENTS(aliases); i++)
    if (PyModule_AddObjectRef(module, aliases[i].name, st->dtypes[aliases[i].dtype]) < 0 ||
        PyModule_AddObjectRef(st->mod_dtypes, aliases[i].name, st->dtypes[aliases[i].dtype]) < 0)
      return -1;
  PyObject *as_dtype = PyCFunction_NewEx(&as_dtype_def, NULL, NULL); /* owned */
  int r = as_dtype ? PyModule_AddObjectRef(module, "as_dtype", as_dtype) : -1;
  if (r == 0)
    r = PyModule_AddObjectRef(st->mod_dtypes, "as_dtype", as_dtype);
  Py_XDECREF(as_dtype);
  if (r < 0)
    return -1;
  PyObject *getattr = PyCFunction_NewEx(&dtypes_getattr_def, NULL, NULL); /* owned */
  r = getattr ? PyModule_AddObjectRef(st->mod_dtypes, "__getattr__", getattr) : -1;
  Py_XDECREF(getattr);
  if (r < 0)
    return -1;
  return add_errors(module, st);
}

void
tf_dtype_clear(TfState *st)
{
  for (int d = 0; d < TR_N_DTYPES; d++)
    Py_CLEAR(st->dtypes[d]);
  for (int i = 0; i < TF_N_ERRORS; i++)
    Py_CLEAR(st->errors[i]);
  Py_CLEAR(st->OpError);
  Py_CLEAR(st->OperatorNotAllowedInGraphError);
  Py_CLEAR(st->DType);
}
