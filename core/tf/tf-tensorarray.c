/* tf-tensorarray.c — tf.TensorArray, eagerly and inside traces.
 *
 * Eagerly a TensorArray is a list of tensors changed in place (TensorFlow's _EagerTensorArray:
 * write returns the array itself), with TensorFlow's checks and error texts. Inside a trace it
 * is a tensor list (core/graph's tr-list.h) carried by a symbolic variant tensor, its "flow":
 * each write adds TensorListSetItem and returns a new TensorArray holding the new flow, so that
 * `ta = ta.write(i, v)` in a loop body makes the array a loop variable of the While node
 * (AutoGraph asks tf_tensor_array_flow and tf_tensor_array_with_flow). TensorArrays derived
 * from one another share their element shape, as TensorFlow's graph TensorArrays do: a write in
 * a loop body teaches the array made before the loop its element shape, so stack() after the
 * loop knows it.
 */
#include "tf-private.h"
#include "tr-list.h"

#include <string.h>

/* What TensorArrays derived from one another share. */
typedef struct {
  int refcount;          /* TensorArrays sharing it */
  TrShape element_shape; /* merged with the shape of every value written (infer_shape) */
} SharedShape;

typedef struct {
  PyObject ob_base;      /* PyObject_HEAD */
  TrDType dtype;         /* element dtype */
  SharedShape *shape;    /* the element shape (shared reference) */
  bool dynamic_size;     /* writes past the end grow the array */
  bool clear_after_read; /* eager: a read empties the slot */
  bool infer_shape;      /* writes refine the element shape */
  GPtrArray *items;      /* eager: TrTensor* per slot, NULL when unset (owned); NULL when traced */
  GArray *cleared;       /* eager: per slot, whether a read emptied it (bool) */
  PyObject *flow;        /* traced: the symbolic tensor list (owned); NULL when eager */
  int64_t size;          /* traced: the size when known statically, else -1 */
} TfTensorArray;

bool
tf_is_tensor_array(TfState *st, PyObject *v)
{
  return st->TensorArray && Py_IS_TYPE(v, st->TensorArray);
}

static bool
ta_is_eager(const TfTensorArray *ta)
{
  return ta->items != NULL;
}

static void
ta_dealloc(PyObject *self)
{
  TfTensorArray *ta = (TfTensorArray *)self;
  PyTypeObject *type = Py_TYPE(self);
  if (ta->shape && --ta->shape->refcount == 0)
    g_free(ta->shape);
  if (ta->items)
    g_ptr_array_free(ta->items, TRUE);
  if (ta->cleared)
    g_array_free(ta->cleared, TRUE);
  Py_XDECREF(ta->flow);
  type->tp_free(self);
  Py_DECREF(type);
}

static void
tensor_unref0(gpointer t)
{
  if (t)
    tr_tensor_unref(t);
}

/* A TensorArray with the settings of `like`, sharing its element shape. New reference. */
static TfTensorArray *
ta_alloc_like(TfState *st, const TfTensorArray *like)
{
  TfTensorArray *ta = (TfTensorArray *)st->TensorArray->tp_alloc(st->TensorArray, 0);
  if (!ta)
    return NULL;
  ta->dtype = like->dtype;
  ta->shape = like->shape;
  ta->shape->refcount++;
  ta->dynamic_size = like->dynamic_size;
  ta->clear_after_read = like->clear_after_read;
  ta->infer_shape = like->infer_shape;
  ta->size = like->size;
  return ta;
}

/* The most slots an eager TensorArray holds: its slot table is allocated (and zeroed) at once,
 * so a size or index from a typo must fail rather than exhaust the machine. */
enum { TA_MAX_SLOTS = 1 << 26 };

/* Whether an eager array may hold n slots; ResourceExhaustedError otherwise. */
static bool
check_slots(TfState *st, int64_t n)
{
  if (n <= TA_MAX_SLOTS)
    return true;
  tf_raise_error(st, g_error_new(TR_ERROR, TR_ERROR_RESOURCE_EXHAUSTED,
                                 "OOM when allocating a TensorArray of %" G_GINT64_FORMAT
                                 " elements (at most %d)",
                                 n, TA_MAX_SLOTS));
  return false;
}

static void
ta_make_eager(TfTensorArray *ta, int64_t n)
{
  ta->items = g_ptr_array_new_with_free_func(tensor_unref0);
  g_ptr_array_set_size(ta->items, (guint)n);
  ta->cleared = g_array_new(FALSE, TRUE, sizeof(bool));
  g_array_set_size(ta->cleared, (guint)n);
}

/* ---- arguments --------------------------------------------------------------------------- */

/* An index or size known now: a Python int or an eager integer scalar tensor. */
static bool
eager_int(TfState *st, PyObject *v, int64_t *out)
{
  if (tf_is_tensor(st, v)) {
    TrTensor *t = tf_static_value(st, v);
    bool ok = t && t->shape.rank == 0 && tr_dtype_is_int(t->dtype);
    if (ok)
      *out = tr_tensor_get_i64(t, 0);
    else
      PyErr_SetString(PyExc_TypeError, "expected an integer scalar");
    if (t)
      tr_tensor_unref(t);
    return ok;
  }
  PyObject *index = PyNumber_Index(v);
  if (!index)
    return false;
  long long x = PyLong_AsLongLong(index);
  Py_DECREF(index);
  if (x == -1 && PyErr_Occurred())
    return false;
  *out = x;
  return true;
}

static bool
bool_arg(PyObject *v, bool dflt, bool *out)
{
  if (!v || v == Py_None) {
    *out = dflt;
    return true;
  }
  int t = PyObject_IsTrue(v);
  *out = t > 0;
  return t >= 0;
}

/* Merges `with` into `into`; false when they are incompatible. */
static bool
merge_shape(TrShape *into, const TrShape *with)
{
  if (into->rank == TR_UNKNOWN) {
    *into = *with;
    return true;
  }
  if (with->rank == TR_UNKNOWN)
    return true;
  if (into->rank != with->rank)
    return false;
  for (int d = 0; d < into->rank; d++) {
    if (into->dims[d] == TR_UNKNOWN)
      into->dims[d] = with->dims[d];
    else if (with->dims[d] != TR_UNKNOWN && with->dims[d] != into->dims[d])
      return false;
  }
  return true;
}

/* The element shape check of a write (both paths): ValueError on a mismatch. */
static bool
check_element_shape(TfTensorArray *ta, const TrShape *shape, bool eager)
{
  TrShape merged = ta->shape->element_shape;
  if (merge_shape(&merged, shape)) {
    if (ta->infer_shape)
      ta->shape->element_shape = merged;
    return true;
  }
  g_autofree char *got = tr_shape_to_string(shape);
  g_autofree char *want = tr_shape_to_string(&ta->shape->element_shape);
  if (eager)
    PyErr_Format(PyExc_ValueError, "Incompatible shape for value (%s), expected (%s)", got, want);
  else
    PyErr_Format(PyExc_ValueError, "Inconsistent shapes: saw %s but expected %s ", got, want);
  return false;
}

/* ---- the constructor ------------------------------------------------------------------------ */

/* TensorListReserve of `size` in the trace's graph. */
static bool
ta_start_traced(TfState *st, TfTensorArray *ta, PyObject *size)
{
  TfOperand n;
  if (!tf_operand(st, size, TR_INT32, false, &n))
    return false;
  if (n.out.node->op == TR_GOP_CONST)
    ta->size = tr_tensor_get_i64(n.out.node->value, 0);
  GError *error = NULL;
  TrGraph *g = tf_trace(st)->graph;
  TrNode *node = tr_graph_add_tensor_list_reserve(g, n.out, ta->dtype, NULL, &error);
  tf_operand_clear(&n);
  if (!node) {
    tf_raise_any(st, error);
    return false;
  }
  ta->flow = tf_symbolic_new(st, g, tr_node_output(node, 0));
  return ta->flow != NULL;
}

static PyObject *
ta_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
  static char *kwlist[] = {
      "dtype",  "size", "dynamic_size", "clear_after_read", "tensor_array_name",
      "handle", "flow", "infer_shape",  "element_shape",    "colocate_with_first_write_call",
      "name",   NULL};
  PyObject *dtype_arg, *size = NULL, *dynamic = NULL, *clear = NULL, *ta_name = NULL,
                       *handle = NULL, *flow = NULL, *infer = NULL, *shape_arg = NULL,
                       *colocate = NULL, *name = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OOOOOOOOOO:TensorArray", kwlist, &dtype_arg,
                                   &size, &dynamic, &clear, &ta_name, &handle, &flow, &infer,
                                   &shape_arg, &colocate, &name))
    return NULL;
  TfState *st = tf_state();
  TrDType dtype;
  bool dynamic_size, clear_after_read, infer_shape;
  TrShape element_shape = tr_shape_unknown();
  if (!tf_dtype_arg(st, dtype_arg, TR_FLOAT32, &dtype) ||
      !bool_arg(dynamic, false, &dynamic_size) || !bool_arg(clear, true, &clear_after_read) ||
      !bool_arg(infer, true, &infer_shape))
    return NULL;
  if (shape_arg && shape_arg != Py_None && !tf_shape_arg(st, shape_arg, &element_shape))
    return NULL;
  TfTensorArray *ta = (TfTensorArray *)type->tp_alloc(type, 0); /* owned until returned */
  if (!ta)
    return NULL;
  ta->dtype = dtype;
  ta->shape = g_new0(SharedShape, 1);
  ta->shape->refcount = 1;
  ta->shape->element_shape = element_shape;
  ta->dynamic_size = dynamic_size;
  ta->clear_after_read = clear_after_read;
  ta->infer_shape = infer_shape;
  ta->size = -1;
  PyObject *zero = NULL; /* owned: the size when none is given */
  if (!size || size == Py_None)
    size = zero = PyLong_FromLong(0);
  bool ok = size != NULL;
  if (ok && tf_trace(st)) {
    ok = ta_start_traced(st, ta, size);
  } else if (ok) {
    int64_t n = 0;
    ok = eager_int(st, size, &n);
    if (ok && n < 0) {
      PyErr_Format(PyExc_ValueError, "Size must be non-negative, got %lld", (long long)n);
      ok = false;
    }
    if (ok && !check_slots(st, n))
      ok = false;
    if (ok) {
      ta->size = n;
      ta_make_eager(ta, n);
    }
  }
  Py_XDECREF(zero);
  if (!ok)
    Py_CLEAR(ta);
  return (PyObject *)ta;
}

/* ---- flows: the array as a tensor list ------------------------------------------------------- */

bool
tf_tensor_array_flow(TfState *st, PyObject *v, TfOperand *out)
{
  g_return_val_if_fail(tf_is_tensor_array(st, v), false);
  TfTensorArray *ta = (TfTensorArray *)v;
  if (!ta_is_eager(ta))
    return tf_operand(st, ta->flow, TR_VARIANT, false, out);
  g_autoptr(TrTensorList) list = tr_tensor_list_new_from(
      ta->dtype, (TrTensor *const *)ta->items->pdata, (int64_t)ta->items->len);
  return tf_operand_from_tensor(st, tr_tensor_new_variant((TrVariant *)list), out);
}

PyObject *
tf_tensor_array_with_flow(TfState *st, PyObject *like, PyObject *flow)
{
  g_return_val_if_fail(tf_is_tensor_array(st, like) && tf_is_tensor(st, flow), NULL);
  TrTensor *value = tf_tensor_value(flow);
  TrTensorList *list = value ? tr_tensor_list_from_tensor(value) : NULL;
  if (value && !list) {
    PyErr_SetString(PyExc_TypeError, "a TensorArray's flow must be a tensor list");
    return NULL;
  }
  TfTensorArray *ta = ta_alloc_like(st, (TfTensorArray *)like);
  if (!ta)
    return NULL;
  if (!value) {
    ta->flow = Py_NewRef(flow);
    return (PyObject *)ta;
  }
  int64_t n = tr_tensor_list_length(list);
  ta_make_eager(ta, n);
  for (int64_t i = 0; i < n; i++) {
    TrTensor *t = tr_tensor_list_peek(list, i);
    ta->items->pdata[i] = t ? tr_tensor_ref(t) : NULL;
  }
  ta->size = n;
  return (PyObject *)ta;
}

/* A new traced TensorArray like `ta` whose value is output 0 of `node`. */
static PyObject *
ta_with_output(TfState *st, TfTensorArray *ta, TrNode *node)
{
  TfTensorArray *r = ta_alloc_like(st, ta);
  if (!r)
    return NULL;
  r->flow = tf_symbolic_new(st, node->graph, tr_node_output(node, 0));
  if (!r->flow)
    Py_CLEAR(r);
  return (PyObject *)r;
}

/* Whether an operation adds graph nodes: while tracing, or on an array that is a graph value. */
static bool
use_graph(TfState *st, TfTensorArray *ta)
{
  return tf_trace(st) || !ta_is_eager(ta);
}

/* ---- eager methods -------------------------------------------------------------------------- */

static PyObject *
raise_code(TfState *st, TrErrorCode code, char *text)
{
  GError *error = g_error_new_literal(TR_ERROR, code, text);
  g_free(text);
  return tf_raise_error(st, error);
}

/* The value written, converted with the array's dtype preferred. Transfer full, or NULL. */
static TrTensor *
eager_value(TfState *st, TfTensorArray *ta, PyObject *value)
{
  TrTensor *t = tf_convert(st, value, ta->dtype, true);
  if (!t)
    return NULL;
  if (t->dtype != ta->dtype) {
    char *text = g_strdup_printf("TensorArray dtype is %s but Op is trying to write dtype %s ",
                                 tr_dtype_name(ta->dtype), tr_dtype_name(t->dtype));
    tr_tensor_unref(t);
    raise_code(st, TR_ERROR_INVALID_ARGUMENT, text);
    return NULL;
  }
  return t;
}

static PyObject *
eager_write(TfState *st, PyObject *self, int64_t index, PyObject *value)
{
  TfTensorArray *ta = (TfTensorArray *)self;
  if (index < 0)
    return raise_code(st, TR_ERROR_OUT_OF_RANGE,
                      g_strdup_printf("Writing to negative indices (index %" G_GINT64_FORMAT
                                      ") is not allowed.",
                                      index));
  int64_t size = ta->items->len;
  if (index >= size && !ta->dynamic_size)
    return raise_code(st, TR_ERROR_OUT_OF_RANGE,
                      g_strdup_printf("Tried to write to index %" G_GINT64_FORMAT
                                      " but array is not resizeable and size is: %" G_GINT64_FORMAT
                                      " ",
                                      index, size));
  if (!check_slots(st, index + 1))
    return NULL;
  TrTensor *t = eager_value(st, ta, value);
  if (!t)
    return NULL;
  if (!check_element_shape(ta, &t->shape, true)) {
    tr_tensor_unref(t);
    return NULL;
  }
  if (index >= size) {
    g_ptr_array_set_size(ta->items, (guint)index + 1);
    g_array_set_size(ta->cleared, (guint)index + 1);
  }
  tensor_unref0(ta->items->pdata[index]);
  ta->items->pdata[index] = t;
  return Py_NewRef(self);
}

/* Slot ix, or zeros of the element shape for an unset slot (TensorFlow's _maybe_zero). New
 * reference, or NULL with an exception set. */
static TrTensor *
eager_slot(TfTensorArray *ta, int64_t ix)
{
  TrTensor *t = ta->items->pdata[ix];
  if (t)
    return tr_tensor_ref(t);
  if (!tr_shape_is_fully_defined(&ta->shape->element_shape)) {
    g_autofree char *shape = tr_shape_to_string(&ta->shape->element_shape);
    PyErr_Format(PyExc_ValueError,
                 "Cannot create zeros for unset element %lld of a TensorArray whose element "
                 "shape %s is not fully defined",
                 (long long)ix, shape);
    return NULL;
  }
  /* The element shape may be a user's: running out of memory is an error, not an abort. */
  GError *error = NULL;
  t = tr_tensor_try_new_uninit(ta->dtype, &ta->shape->element_shape, &error);
  if (!t) {
    tf_raise_error(tf_state(), error);
    return NULL;
  }
  if (ta->dtype != TR_STRING)
    memset(tr_tensor_data(t), 0, (size_t)tr_tensor_num_elements(t) * tr_dtype_size(ta->dtype));
  ta->items->pdata[ix] = tr_tensor_ref(t);
  return t;
}

static PyObject *
eager_read(TfState *st, TfTensorArray *ta, int64_t index)
{
  int64_t size = ta->items->len;
  if (index < 0)
    return raise_code(st, TR_ERROR_OUT_OF_RANGE,
                      g_strdup_printf("Reading from negative indices (index %" G_GINT64_FORMAT
                                      ") is not allowed.",
                                      index));
  if (index >= size)
    return raise_code(st, TR_ERROR_OUT_OF_RANGE,
                      g_strdup_printf("Tried to read from index %" G_GINT64_FORMAT
                                      " but array size is: %" G_GINT64_FORMAT " ",
                                      index, size));
  if (!ta->items->pdata[index] && g_array_index(ta->cleared, bool, index))
    return raise_code(st, TR_ERROR_INVALID_ARGUMENT,
                      g_strdup_printf("Could not read index %" G_GINT64_FORMAT
                                      " twice because it was cleared after a previous read "
                                      "(perhaps try setting clear_after_read = false?)",
                                      index));
  TrTensor *t = eager_slot(ta, index);
  if (!t)
    return NULL;
  if (ta->clear_after_read) {
    tensor_unref0(ta->items->pdata[index]);
    ta->items->pdata[index] = NULL;
    g_array_index(ta->cleared, bool, index) = true;
  }
  return tf_tensor_new(st, t);
}

/* `op` (Pack or ConcatV2 along axis 0) over the slots `indices` (every slot when NULL), through
 * the dispatcher so that a GradientTape sees it. */
static PyObject *
eager_combine(TfState *st, TfTensorArray *ta, TrOpId op, const int64_t *indices, int64_t k)
{
  TfOperand *in = g_new0(TfOperand, MAX(k, 1));
  int64_t made = 0;
  PyObject *r = NULL;
  for (; made < k; made++) {
    int64_t ix = indices ? indices[made] : made;
    if (ix < 0 || ix >= (int64_t)ta->items->len) {
      PyErr_SetString(PyExc_IndexError, "list index out of range");
      goto out;
    }
    TrTensor *t = eager_slot(ta, ix);
    if (!t || !tf_operand_from_tensor(st, t, &in[made]))
      goto out;
  }
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.axis = 0;
  r = tf_apply(st, op, in, (int)k, &attrs, NULL);
out:
  tf_operands_clear(in, (int)made);
  g_free(in);
  return r;
}

/* An empty stack: shape (0, element shape...) when the element shape is known, else (0,). */
static PyObject *
eager_empty(TfState *st, TfTensorArray *ta, bool stack)
{
  const TrShape *es = &ta->shape->element_shape;
  int64_t zero = 0;
  TrShape shape = tr_shape_make(1, &zero);
  if (stack && tr_shape_is_fully_defined(es) && es->rank < TR_MAX_RANK) {
    shape.rank = es->rank + 1;
    memcpy(shape.dims + 1, es->dims, sizeof(int64_t) * (size_t)es->rank);
  }
  return tf_tensor_new(st, tr_tensor_new(ta->dtype, &shape));
}

static PyObject *
eager_unstack(TfState *st, PyObject *self, PyObject *value)
{
  TfTensorArray *ta = (TfTensorArray *)self;
  g_autoptr(TrTensor) t = tf_convert(st, value, ta->dtype, true);
  if (!t)
    return NULL;
  if (t->shape.rank == 0)
    return PyErr_Format(PyExc_ValueError, "Cannot unstack a scalar: it has no first dimension");
  int64_t n = t->shape.dims[0];
  if (n > (int64_t)ta->items->len && !ta->dynamic_size)
    return PyErr_Format(PyExc_ValueError,
                        "Cannot unstack %lld tensors into a TensorArray of static size %u ",
                        (long long)n, ta->items->len);
  TrShape row = tr_shape_make(t->shape.rank - 1, t->shape.dims + 1);
  if (!check_slots(st, n) || !check_element_shape(ta, &row, true))
    return NULL;
  g_ptr_array_set_size(ta->items, 0);
  g_ptr_array_set_size(ta->items, (guint)n);
  g_array_set_size(ta->cleared, 0);
  g_array_set_size(ta->cleared, (guint)n);
  for (int64_t i = 0; i < n; i++) {
    TrTensor *view =
        tr_tensor_new_view(t->buf, t->dtype, &row, t->strides + 1, t->offset + i * t->strides[0]);
    ta->items->pdata[i] = tr_tensor_contiguous(view);
    tr_tensor_unref(view);
  }
  return Py_NewRef(self);
}

/* ---- traced methods ------------------------------------------------------------------------- */

static PyObject *
traced_write(TfState *st, PyObject *self, PyObject *index, PyObject *value)
{
  TfTensorArray *ta = (TfTensorArray *)self;
  TfOperand o[3]; /* flow, index, value */
  if (!tf_tensor_array_flow(st, self, &o[0]))
    return NULL;
  if (!tf_operand(st, index, TR_INT32, false, &o[1])) {
    tf_operand_clear(&o[0]);
    return NULL;
  }
  if (!tf_operand(st, value, ta->dtype, true, &o[2])) {
    tf_operands_clear(o, 2);
    return NULL;
  }
  PyObject *r = NULL;
  if (check_element_shape(ta, &o[2].shape, false)) {
    GError *error = NULL;
    TrNode *node = tr_graph_add_tensor_list_set_item(tf_trace(st)->graph, o[0].out, o[1].out,
                                                     o[2].out, ta->dynamic_size, NULL, &error);
    r = node ? ta_with_output(st, ta, node) : tf_raise_any(st, error);
  }
  tf_operands_clear(o, 3);
  return r;
}

/* TensorListGetItem (indices: a scalar) or TensorListGather (a vector). */
static PyObject *
traced_get(TfState *st, PyObject *self, PyObject *indices, bool gather)
{
  TfTensorArray *ta = (TfTensorArray *)self;
  TfOperand o[2]; /* flow, indices */
  if (!tf_tensor_array_flow(st, self, &o[0]))
    return NULL;
  if (!tf_operand(st, indices, TR_INT32, false, &o[1])) {
    tf_operand_clear(&o[0]);
    return NULL;
  }
  GError *error = NULL;
  TrGraph *g = tf_trace(st)->graph;
  const TrShape *es = &ta->shape->element_shape;
  TrNode *node =
      gather
          ? tr_graph_add_tensor_list_gather(g, o[0].out, o[1].out, ta->dtype, es, NULL, &error)
          : tr_graph_add_tensor_list_get_item(g, o[0].out, o[1].out, ta->dtype, es, NULL, &error);
  tf_operands_clear(o, 2);
  if (!node)
    return tf_raise_any(st, error);
  return tf_symbolic_new(st, g, tr_node_output(node, 0));
}

typedef enum { TRACED_STACK, TRACED_CONCAT, TRACED_LENGTH } TracedReduce;

static PyObject *
traced_reduce(TfState *st, PyObject *self, TracedReduce what)
{
  TfTensorArray *ta = (TfTensorArray *)self;
  TfOperand flow;
  if (!tf_tensor_array_flow(st, self, &flow))
    return NULL;
  TrGraph *g = tf_trace(st)->graph;
  const TrShape *es = &ta->shape->element_shape;
  GError *error = NULL;
  TrNode *node = what == TRACED_STACK
                     ? tr_graph_add_tensor_list_stack(g, flow.out, ta->dtype, es, NULL, &error)
                 : what == TRACED_CONCAT
                     ? tr_graph_add_tensor_list_concat(g, flow.out, ta->dtype, es, NULL, &error)
                     : tr_graph_add_tensor_list_length(g, flow.out, NULL, &error);
  tf_operand_clear(&flow);
  if (!node)
    return tf_raise_any(st, error);
  return tf_symbolic_new(st, g, tr_node_output(node, 0));
}

static PyObject *
traced_unstack(TfState *st, PyObject *self, PyObject *value)
{
  TfTensorArray *ta = (TfTensorArray *)self;
  TfOperand v;
  if (!tf_operand(st, value, ta->dtype, true, &v))
    return NULL;
  PyObject *r = NULL;
  TrShape row =
      v.shape.rank > 0 ? tr_shape_make(v.shape.rank - 1, v.shape.dims + 1) : tr_shape_unknown();
  if (check_element_shape(ta, &row, false)) {
    GError *error = NULL;
    TrNode *node = tr_graph_add_tensor_list_from_tensor(tf_trace(st)->graph, v.out, NULL, &error);
    r = node ? ta_with_output(st, ta, node) : tf_raise_any(st, error);
  }
  tf_operand_clear(&v);
  return r;
}

/* ---- the methods ----------------------------------------------------------------------------- */

static PyObject *
ta_write(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"index", "value", "name", NULL};
  PyObject *a[3]; /* the arguments (borrowed), NULL when not given */
  if (!tf_parse_args("write", args, nargs, kwnames, names, 2, a))
    return NULL;
  PyObject *index = a[0], *value = a[1];
  TfState *st = tf_state();
  if (use_graph(st, (TfTensorArray *)self))
    return traced_write(st, self, index, value);
  int64_t ix;
  if (!eager_int(st, index, &ix))
    return NULL;
  return eager_write(st, self, ix, value);
}

static PyObject *
ta_read(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"index", "name", NULL};
  PyObject *a[2]; /* the arguments (borrowed), NULL when not given */
  if (!tf_parse_args("read", args, nargs, kwnames, names, 1, a))
    return NULL;
  PyObject *index = a[0];
  TfState *st = tf_state();
  if (use_graph(st, (TfTensorArray *)self))
    return traced_get(st, self, index, false);
  int64_t ix;
  if (!eager_int(st, index, &ix))
    return NULL;
  return eager_read(st, (TfTensorArray *)self, ix);
}

/* The methods whose only argument is `name`. */
static bool
parse_name_only(const char *fname, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"name", NULL};
  PyObject *name;
  return tf_parse_args(fname, args, nargs, kwnames, names, 0, &name);
}

static PyObject *
ta_stack(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  if (!parse_name_only("stack", args, nargs, kwnames))
    return NULL;
  TfState *st = tf_state();
  TfTensorArray *ta = (TfTensorArray *)self;
  if (use_graph(st, ta))
    return traced_reduce(st, self, TRACED_STACK);
  if (ta->items->len == 0)
    return eager_empty(st, ta, true);
  return eager_combine(st, ta, TR_OP_STACK, NULL, ta->items->len);
}

static PyObject *
ta_concat(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  if (!parse_name_only("concat", args, nargs, kwnames))
    return NULL;
  TfState *st = tf_state();
  TfTensorArray *ta = (TfTensorArray *)self;
  if (use_graph(st, ta))
    return traced_reduce(st, self, TRACED_CONCAT);
  if (ta->items->len == 0)
    return eager_empty(st, ta, false);
  return eager_combine(st, ta, TR_OP_CONCAT, NULL, ta->items->len);
}

static PyObject *
ta_size(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  if (!parse_name_only("size", args, nargs, kwnames))
    return NULL;
  TfState *st = tf_state();
  TfTensorArray *ta = (TfTensorArray *)self;
  if (!use_graph(st, ta))
    return tf_tensor_new(st, tr_tensor_new_int32((int32_t)ta->items->len));
  if (!ta->dynamic_size && ta->size >= 0) {
    TfOperand o;
    if (!tf_operand_from_tensor(st, tr_tensor_new_int32((int32_t)ta->size), &o))
      return NULL;
    return tf_operand_to_value(st, &o);
  }
  return traced_reduce(st, self, TRACED_LENGTH);
}

static PyObject *
ta_gather(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"indices", "name", NULL};
  PyObject *a[2]; /* the arguments (borrowed), NULL when not given */
  if (!tf_parse_args("gather", args, nargs, kwnames, names, 1, a))
    return NULL;
  PyObject *indices = a[0];
  TfState *st = tf_state();
  TfTensorArray *ta = (TfTensorArray *)self;
  if (use_graph(st, ta))
    return traced_get(st, self, indices, true);
  g_autoptr(TrTensor) t = tf_convert(st, indices, TR_INT32, true);
  if (!t)
    return NULL;
  int64_t k = tr_tensor_num_elements(t);
  g_autofree int64_t *ix = g_new(int64_t, MAX(k, 1));
  for (int64_t i = 0; i < k; i++)
    ix[i] = tr_tensor_get_i64(t, i);
  if (k == 0)
    return eager_empty(st, ta, true);
  return eager_combine(st, ta, TR_OP_STACK, ix, k);
}

static PyObject *
ta_unstack(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"value", "name", NULL};
  PyObject *a[2]; /* the arguments (borrowed), NULL when not given */
  if (!tf_parse_args("unstack", args, nargs, kwnames, names, 1, a))
    return NULL;
  PyObject *value = a[0];
  TfState *st = tf_state();
  if (use_graph(st, (TfTensorArray *)self))
    return traced_unstack(st, self, value);
  return eager_unstack(st, self, value);
}

static PyObject *
ta_close(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  if (!parse_name_only("close", args, nargs, kwnames))
    return NULL;
  Py_RETURN_NONE;
}

static PyObject *
ta_get_dtype(PyObject *self, void *closure)
{
  return Py_NewRef(tf_dtype_object(tf_state(), ((TfTensorArray *)self)->dtype));
}

static PyObject *
ta_get_element_shape(PyObject *self, void *closure)
{
  return tf_shape_new(tf_state(), &((TfTensorArray *)self)->shape->element_shape);
}

static PyObject *
ta_get_dynamic_size(PyObject *self, void *closure)
{
  return PyBool_FromLong(((TfTensorArray *)self)->dynamic_size);
}

static PyObject *
ta_get_flow(PyObject *self, void *closure)
{
  TfTensorArray *ta = (TfTensorArray *)self;
  return ta_is_eager(ta) ? Py_NewRef(Py_None) : Py_NewRef(ta->flow);
}

#define FASTCALL_KW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

static PyMethodDef ta_methods[] = {
    {"write", FASTCALL_KW(ta_write),
     "write($self, index, value, name=None)\n--\n\n"
     "Writes value at index; returns the TensorArray to use from now on."},
    {"read", FASTCALL_KW(ta_read), "read($self, index, name=None)\n--\n\nThe element at index."},
    {"stack", FASTCALL_KW(ta_stack),
     "stack($self, name=None)\n--\n\nThe elements stacked into one tensor."},
    {"concat", FASTCALL_KW(ta_concat),
     "concat($self, name=None)\n--\n\nThe elements concatenated along axis 0."},
    {"gather", FASTCALL_KW(ta_gather),
     "gather($self, indices, name=None)\n--\n\nThe elements at indices, stacked."},
    {"unstack", FASTCALL_KW(ta_unstack),
     "unstack($self, value, name=None)\n--\n\nSplits value along axis 0 into the elements."},
    {"size", FASTCALL_KW(ta_size), "size($self, name=None)\n--\n\nThe number of elements."},
    {"close", FASTCALL_KW(ta_close), "close($self, name=None)\n--\n\nDoes nothing."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef ta_getsets[] = {
    {"dtype", ta_get_dtype, NULL, "The element dtype.", NULL},
    {"element_shape", ta_get_element_shape, NULL, "The element shape (partial).", NULL},
    {"dynamic_size", ta_get_dynamic_size, NULL, "Whether writes past the end grow the array.",
     NULL},
    {"flow", ta_get_flow, NULL, "Inside a traced function: the tensor list carrying the value.",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot ta_slots[] = {
    {Py_tp_new, ta_new},
    {Py_tp_dealloc, ta_dealloc},
    {Py_tp_methods, ta_methods},
    {Py_tp_getset, ta_getsets},
    {Py_tp_doc, "Class wrapping dynamic-sized, per-time-step, Tensor arrays."},
    {0, NULL},
};

static PyType_Spec ta_spec = {
    .name = "tensorflow.python.ops.tensor_array_ops.TensorArray",
    .basicsize = sizeof(TfTensorArray),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = ta_slots,
};

int
tf_tensorarray_init(PyObject *module, TfState *st)
{
  st->TensorArray = (PyTypeObject *)PyType_FromModuleAndSpec(module, &ta_spec, NULL);
  if (!st->TensorArray)
    return -1;
  return PyModule_AddObjectRef(module, "TensorArray", (PyObject *)st->TensorArray);
}

void
tf_tensorarray_clear(TfState *st)
{
  Py_CLEAR(st->TensorArray);
}
