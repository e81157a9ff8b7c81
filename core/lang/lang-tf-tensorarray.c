/* lang-tf-tensorarray.c — tf.TensorArray, eagerly and inside traces.
 *
 * Eagerly a TensorArray is a list of tensors changed in place (TensorFlow's _EagerTensorArray:
 * write returns the array itself), with TF's checks and error texts. Inside a trace it is a
 * tensor list (core/graph's tr-list.h) carried by a symbolic variant tensor, its "flow": each
 * write adds TensorListSetItem and returns a new TensorArray holding the new flow, so that
 * `ta = ta.write(i, v)` in a loop body makes the array a loop variable of the While node
 * (AutoGraph asks lang_tf_tensor_array_flow and lang_tf_tensor_array_with_flow). TensorArrays
 * derived from one another share their element shape, as TF's graph TensorArrays do: a write in
 * a loop body teaches the array made before the loop its element shape, so stack() after the
 * loop knows it.
 */
#include "lang-tf-private.h"
#include "tr-list.h"

#include <string.h>

/* What TensorArrays derived from one another share. */
typedef struct {
  int refcount;          /* TensorArrays sharing it */
  TrShape element_shape; /* merged with the shape of every value written (infer_shape) */
} SharedShape;

typedef struct {
  LangObject base;       /* lang_tf_tensor_array_type */
  TrDType dtype;         /* element dtype */
  SharedShape *shape;    /* the element shape (shared reference) */
  bool dynamic_size;     /* writes past the end grow the array */
  bool clear_after_read; /* eager: a read empties the slot */
  bool infer_shape;      /* writes refine the element shape */
  GPtrArray *items;      /* eager: TrTensor* per slot, NULL when unset (owned); NULL when traced */
  GArray *cleared;       /* eager: per slot, whether a read emptied it (bool) */
  LangValue flow;        /* traced: the symbolic tensor list (owned); UNSET when eager */
  int64_t size;          /* traced: the size when known statically, else -1 */
} LangTfTensorArray;

LangType lang_tf_tensor_array_type;

bool
lang_tf_is_tensor_array(LangValue v)
{
  return v.tag == LANG_TAG_OBJ && v.o->type == &lang_tf_tensor_array_type;
}

static LangTfTensorArray *
ta_of(LangValue v)
{
  return (LangTfTensorArray *)v.o;
}

static bool
ta_is_eager(const LangTfTensorArray *ta)
{
  return ta->items != NULL;
}

static void
shared_shape_unref(SharedShape *s)
{
  if (s && --s->refcount == 0)
    g_free(s);
}

static void
ta_dealloc(LangObject *o)
{
  LangTfTensorArray *ta = (LangTfTensorArray *)o;
  shared_shape_unref(ta->shape);
  if (ta->items)
    g_ptr_array_free(ta->items, TRUE);
  if (ta->cleared)
    g_array_free(ta->cleared, TRUE);
  lang_decref(ta->flow);
}

static void
tensor_unref0(gpointer t)
{
  if (t)
    tr_tensor_unref(t);
}

/* A TensorArray with the settings of `like` (or defaults), sharing its element shape. */
static LangTfTensorArray *
ta_alloc(LangState *L, const LangTfTensorArray *like)
{
  LangTfTensorArray *ta = (LangTfTensorArray *)lang_object_alloc(L, &lang_tf_tensor_array_type,
                                                                 sizeof(LangTfTensorArray));
  ta->flow = LANG_UNSET;
  ta->size = -1;
  if (like) {
    ta->dtype = like->dtype;
    ta->shape = like->shape;
    ta->shape->refcount++;
    ta->dynamic_size = like->dynamic_size;
    ta->clear_after_read = like->clear_after_read;
    ta->infer_shape = like->infer_shape;
    ta->size = like->size;
  }
  return ta;
}

static void
ta_make_eager(LangTfTensorArray *ta, int64_t n)
{
  ta->items = g_ptr_array_new_with_free_func(tensor_unref0);
  g_ptr_array_set_size(ta->items, (guint)n);
  ta->cleared = g_array_new(FALSE, TRUE, sizeof(bool));
  g_array_set_size(ta->cleared, (guint)n);
}

/* ---- arguments --------------------------------------------------------------------------- */

/* An index or size known now: a Python int or an eager scalar tensor. */
static bool
eager_int(LangState *L, LangValue v, int64_t *out)
{
  if (lang_tf_is_tensor(v)) {
    TrTensor *t = lang_tf_static_value(L, v);
    if (!t || t->shape.rank != 0 || !tr_dtype_is_int(t->dtype)) {
      if (t)
        tr_tensor_unref(t);
      lang_raise_str(L, &lang_exc_TypeError, "expected an integer scalar");
      return false;
    }
    *out = tr_tensor_get_i64(t, 0);
    tr_tensor_unref(t);
    return true;
  }
  return lang_to_index(L, v, out);
}

static bool
bool_arg(LangState *L, LangValue v, bool dflt, bool *out)
{
  if (lang_is_unset(v) || v.tag == LANG_TAG_NONE) {
    *out = dflt;
    return true;
  }
  int t = lang_truth(L, v);
  *out = t > 0;
  return t >= 0;
}

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

/* ---- the constructor ------------------------------------------------------------------------ */

/* TensorListReserve of `size` in the trace's graph. */
static bool
ta_start_traced(LangState *L, LangTfTensorArray *ta, LangValue size)
{
  LangTfOperand n;
  if (!lang_tf_operand(L, size, TR_INT32, false, &n))
    return false;
  if (n.out.node->op == TR_GOP_CONST)
    ta->size = tr_tensor_get_i64(n.out.node->value, 0);
  GError *error = NULL;
  TrGraph *g = lang_tf_trace(L)->graph;
  TrNode *node = tr_graph_add_tensor_list_reserve(g, n.out, ta->dtype, NULL, &error);
  lang_tf_operand_clear(&n);
  if (!node) {
    lang_tf_raise_any(L, error);
    return false;
  }
  ta->flow = lang_tf_symbolic_new(L, g, tr_node_output(node, 0));
  return true;
}

static LangValue
ta_construct(LangState *L, LangType *type, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue dtype_arg, size = LANG_UNSET, dynamic = LANG_UNSET, clear = LANG_UNSET,
                       ta_name = LANG_UNSET, handle = LANG_UNSET, flow = LANG_UNSET,
                       infer = LANG_UNSET, shape_arg = LANG_UNSET, colocate = LANG_UNSET,
                       name = LANG_UNSET;
  if (!lang_parse_args(L, "TensorArray", args, nargs, kwnames,
                       "dtype,size=,dynamic_size=,clear_after_read=,tensor_array_name=,handle=,"
                       "flow=,infer_shape=,element_shape=,colocate_with_first_write_call=,name=",
                       &dtype_arg, &size, &dynamic, &clear, &ta_name, &handle, &flow, &infer,
                       &shape_arg, &colocate, &name))
    return LANG_EXC;
  TrDType dtype;
  bool dynamic_size, clear_after_read, infer_shape;
  TrShape element_shape = tr_shape_unknown();
  if (!lang_tf_dtype_arg(L, dtype_arg, TR_FLOAT32, &dtype) ||
      !bool_arg(L, dynamic, false, &dynamic_size) || !bool_arg(L, clear, true, &clear_after_read) ||
      !bool_arg(L, infer, true, &infer_shape))
    return LANG_EXC;
  if (!lang_is_unset(shape_arg) && shape_arg.tag != LANG_TAG_NONE &&
      !lang_tf_shape_arg(L, shape_arg, &element_shape))
    return LANG_EXC;
  LangValue size_value = lang_is_unset(size) || size.tag == LANG_TAG_NONE ? lang_int(0) : size;
  LangTfTensorArray *ta = ta_alloc(L, NULL);
  LangValue self = lang_obj(ta);
  ta->dtype = dtype;
  ta->shape = g_new0(SharedShape, 1);
  ta->shape->refcount = 1;
  ta->shape->element_shape = element_shape;
  ta->dynamic_size = dynamic_size;
  ta->clear_after_read = clear_after_read;
  ta->infer_shape = infer_shape;
  if (lang_tf_trace(L)) {
    if (!ta_start_traced(L, ta, size_value)) {
      lang_decref(self);
      return LANG_EXC;
    }
    return self;
  }
  int64_t n;
  if (!eager_int(L, size_value, &n)) {
    lang_decref(self);
    return LANG_EXC;
  }
  if (n < 0) {
    lang_decref(self);
    return lang_raise(L, &lang_exc_ValueError, "Size must be non-negative, got %" G_GINT64_FORMAT,
                      n);
  }
  ta->size = n;
  ta_make_eager(ta, n);
  return self;
}

/* ---- flows: the array as a tensor list --------------------------------------------------------
 */

bool
lang_tf_tensor_array_flow(LangState *L, LangValue v, LangTfOperand *out)
{
  g_return_val_if_fail(lang_tf_is_tensor_array(v), false);
  LangTfTensorArray *ta = ta_of(v);
  if (!ta_is_eager(ta))
    return lang_tf_operand(L, ta->flow, TR_VARIANT, false, out);
  g_autoptr(TrTensorList) list = tr_tensor_list_new_from(
      ta->dtype, (TrTensor *const *)ta->items->pdata, (int64_t)ta->items->len);
  return lang_tf_operand_from_tensor(L, tr_tensor_new_variant((TrVariant *)list), out);
}

LangValue
lang_tf_tensor_array_with_flow(LangState *L, LangValue like, LangValue flow)
{
  g_return_val_if_fail(lang_tf_is_tensor_array(like) && lang_tf_is_tensor(flow), LANG_EXC);
  LangTfTensorArray *ta = ta_alloc(L, ta_of(like));
  TrTensor *value = lang_tf_tensor_value(flow);
  if (!value) {
    ta->flow = lang_incref(flow);
    return lang_obj(ta);
  }
  TrTensorList *list = tr_tensor_list_from_tensor(value);
  if (!list) {
    lang_decref(lang_obj(ta));
    return lang_raise_str(L, &lang_exc_TypeError, "a TensorArray's flow must be a tensor list");
  }
  int64_t n = tr_tensor_list_length(list);
  ta_make_eager(ta, n);
  for (int64_t i = 0; i < n; i++) {
    TrTensor *t = tr_tensor_list_peek(list, i);
    ta->items->pdata[i] = t ? tr_tensor_ref(t) : NULL;
  }
  ta->size = n;
  return lang_obj(ta);
}

/* A new traced TensorArray like `ta` whose value is output `out` of the trace's graph. */
static LangValue
ta_with_output(LangState *L, LangTfTensorArray *ta, TrNode *node)
{
  LangTfTensorArray *r = ta_alloc(L, ta);
  r->flow = lang_tf_symbolic_new(L, node->graph, tr_node_output(node, 0));
  return lang_obj(r);
}

/* The array's flow in the current trace; raises for a traced array used outside its trace. */
static bool
traced_flow(LangState *L, LangValue self, LangTfOperand *out)
{
  return lang_tf_tensor_array_flow(L, self, out);
}

static bool
use_graph(LangState *L, LangTfTensorArray *ta)
{
  return lang_tf_trace(L) || !ta_is_eager(ta);
}

/* ---- eager methods -----------------------------------------------------------------------------
 */

static LangValue
raise_out_of_range(LangState *L, char *text)
{
  GError *error = g_error_new_literal(TR_ERROR, TR_ERROR_OUT_OF_RANGE, text);
  g_free(text);
  return lang_tf_raise_error(L, error);
}

static LangValue
raise_invalid(LangState *L, const char *text)
{
  return lang_tf_raise_error(L, g_error_new_literal(TR_ERROR, TR_ERROR_INVALID_ARGUMENT, text));
}

/* The value written, converted with the array's dtype preferred. Transfer full, or NULL. */
static TrTensor *
eager_value(LangState *L, LangTfTensorArray *ta, LangValue value)
{
  TrTensor *t = lang_tf_convert(L, value, ta->dtype, true);
  if (!t)
    return NULL;
  if (t->dtype != ta->dtype) {
    g_autofree char *text =
        g_strdup_printf("TensorArray dtype is %s but Op is trying to write dtype %s ",
                        tr_dtype_name(ta->dtype), tr_dtype_name(t->dtype));
    tr_tensor_unref(t);
    raise_invalid(L, text);
    return NULL;
  }
  return t;
}

/* The element shape check of a write (both paths): ValueError on a mismatch. */
static bool
check_element_shape(LangState *L, LangTfTensorArray *ta, const TrShape *shape, bool eager)
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
    lang_raise(L, &lang_exc_ValueError, "Incompatible shape for value (%s), expected (%s)", got,
               want);
  else
    lang_raise(L, &lang_exc_ValueError, "Inconsistent shapes: saw %s but expected %s ", got, want);
  return false;
}

static LangValue
eager_write(LangState *L, LangValue self, int64_t index, LangValue value)
{
  LangTfTensorArray *ta = ta_of(self);
  if (index < 0)
    return raise_out_of_range(
        L, g_strdup_printf(
               "Writing to negative indices (index %" G_GINT64_FORMAT ") is not allowed.", index));
  int64_t size = ta->items->len;
  if (index >= size && !ta->dynamic_size)
    return raise_out_of_range(L, g_strdup_printf("Tried to write to index %" G_GINT64_FORMAT
                                                 " but array is not resizeable and size is: "
                                                 "%" G_GINT64_FORMAT " ",
                                                 index, size));
  TrTensor *t = eager_value(L, ta, value);
  if (!t)
    return LANG_EXC;
  if (!check_element_shape(L, ta, &t->shape, true)) {
    tr_tensor_unref(t);
    return LANG_EXC;
  }
  if (index >= size) {
    g_ptr_array_set_size(ta->items, (guint)index + 1);
    g_array_set_size(ta->cleared, (guint)index + 1);
  }
  tensor_unref0(ta->items->pdata[index]);
  ta->items->pdata[index] = t;
  return lang_incref(self);
}

/* Slot ix, or zeros of the element shape for an unset slot (TF's _maybe_zero). New reference. */
static TrTensor *
eager_slot(LangState *L, LangTfTensorArray *ta, int64_t ix)
{
  TrTensor *t = ta->items->pdata[ix];
  if (t)
    return tr_tensor_ref(t);
  if (!tr_shape_is_fully_defined(&ta->shape->element_shape)) {
    g_autofree char *shape = tr_shape_to_string(&ta->shape->element_shape);
    lang_raise(L, &lang_exc_ValueError,
               "Cannot create zeros for unset element %" G_GINT64_FORMAT
               " of a TensorArray whose element shape %s is not fully defined",
               ix, shape);
    return NULL;
  }
  t = tr_tensor_new(ta->dtype, &ta->shape->element_shape);
  ta->items->pdata[ix] = tr_tensor_ref(t);
  return t;
}

static LangValue
eager_read(LangState *L, LangTfTensorArray *ta, int64_t index)
{
  int64_t size = ta->items->len;
  if (index < 0)
    return raise_out_of_range(
        L, g_strdup_printf("Reading from negative indices (index %" G_GINT64_FORMAT
                           ") is not allowed.",
                           index));
  if (index >= size)
    return raise_out_of_range(L, g_strdup_printf("Tried to read from index %" G_GINT64_FORMAT
                                                 " but array size is: %" G_GINT64_FORMAT " ",
                                                 index, size));
  if (!ta->items->pdata[index] && g_array_index(ta->cleared, bool, index)) {
    g_autofree char *text = g_strdup_printf(
        "Could not read index %" G_GINT64_FORMAT " twice because it was cleared after a "
        "previous read (perhaps try setting clear_after_read = false?)",
        index);
    return raise_invalid(L, text);
  }
  TrTensor *t = eager_slot(L, ta, index);
  if (!t)
    return LANG_EXC;
  if (ta->clear_after_read) {
    tensor_unref0(ta->items->pdata[index]);
    ta->items->pdata[index] = NULL;
    g_array_index(ta->cleared, bool, index) = true;
  }
  return lang_tf_tensor_new(L, t);
}

/* tf.stack of slots `indices` (every slot when NULL). */
static LangValue
eager_stack(LangState *L, LangTfTensorArray *ta, const int64_t *indices, int64_t k)
{
  if (k == 0) {
    const TrShape *es = &ta->shape->element_shape;
    TrShape shape = tr_shape_make(1, (int64_t[]){0});
    if (tr_shape_is_fully_defined(es) && es->rank < TR_MAX_RANK) {
      shape.rank = es->rank + 1;
      memcpy(shape.dims + 1, es->dims, sizeof(int64_t) * (size_t)es->rank);
    }
    return lang_tf_tensor_new(L, tr_tensor_new(ta->dtype, &shape));
  }
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func((GDestroyNotify)tr_tensor_unref);
  for (int64_t i = 0; i < k; i++) {
    int64_t ix = indices ? indices[i] : i;
    if (ix < 0 || ix >= (int64_t)ta->items->len)
      return lang_raise(L, &lang_exc_IndexError, "list index out of range");
    TrTensor *t = eager_slot(L, ta, ix);
    if (!t)
      return LANG_EXC;
    g_ptr_array_add(parts, t);
  }
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.axis = 0;
  GError *error = NULL;
  TrTensor *r = tr_op_run(TR_OP_STACK, (TrTensor **)parts->pdata, (int)k, &attrs, &error);
  return r ? lang_tf_tensor_new(L, r) : lang_tf_raise_error(L, error);
}

static LangValue
eager_concat(LangState *L, LangTfTensorArray *ta)
{
  int64_t n = ta->items->len;
  if (n == 0)
    return lang_tf_tensor_new(L, tr_tensor_new(ta->dtype, &(TrShape){.rank = 1, .dims = {0}}));
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func((GDestroyNotify)tr_tensor_unref);
  for (int64_t i = 0; i < n; i++) {
    TrTensor *t = eager_slot(L, ta, i);
    if (!t)
      return LANG_EXC;
    g_ptr_array_add(parts, t);
  }
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.axis = 0;
  GError *error = NULL;
  TrTensor *r = tr_op_run(TR_OP_CONCAT, (TrTensor **)parts->pdata, (int)n, &attrs, &error);
  return r ? lang_tf_tensor_new(L, r) : lang_tf_raise_error(L, error);
}

static LangValue
eager_unstack(LangState *L, LangValue self, LangValue value)
{
  LangTfTensorArray *ta = ta_of(self);
  TrTensor *t = lang_tf_convert(L, value, ta->dtype, true);
  if (!t)
    return LANG_EXC;
  g_autoptr(TrTensor) owned = t;
  if (t->shape.rank == 0)
    return lang_raise_str(L, &lang_exc_ValueError,
                          "Cannot unstack a scalar: it has no first dimension");
  int64_t n = t->shape.dims[0];
  if (n > (int64_t)ta->items->len && !ta->dynamic_size)
    return lang_raise(L, &lang_exc_ValueError,
                      "Cannot unstack %" G_GINT64_FORMAT
                      " tensors into a TensorArray of static size %u ",
                      n, ta->items->len);
  TrShape row = tr_shape_make(t->shape.rank - 1, t->shape.dims + 1);
  if (!check_element_shape(L, ta, &row, true))
    return LANG_EXC;
  g_ptr_array_set_size(ta->items, 0);
  g_ptr_array_set_size(ta->items, (guint)n);
  g_array_set_size(ta->cleared, 0);
  g_array_set_size(ta->cleared, (guint)n);
  g_autoptr(TrTensor) contiguous = tr_tensor_contiguous(t);
  for (int64_t i = 0; i < n; i++) {
    TrTensor *view = tr_tensor_new_view(contiguous->buf, t->dtype, &row, contiguous->strides + 1,
                                        i * contiguous->strides[0]);
    ta->items->pdata[i] = tr_tensor_contiguous(view);
    tr_tensor_unref(view);
  }
  return lang_incref(self);
}

/* ---- traced methods ----------------------------------------------------------------------------
 */

static LangValue
raise_node_error(LangState *L, GError *error)
{
  return lang_tf_raise_any(L, error);
}

static LangValue
traced_write(LangState *L, LangValue self, LangValue index, LangValue value)
{
  LangTfTensorArray *ta = ta_of(self);
  LangTfOperand flow, ix, v;
  if (!traced_flow(L, self, &flow))
    return LANG_EXC;
  if (!lang_tf_operand(L, index, TR_INT32, false, &ix)) {
    lang_tf_operand_clear(&flow);
    return LANG_EXC;
  }
  if (!lang_tf_operand(L, value, ta->dtype, true, &v)) {
    lang_tf_operands_clear((LangTfOperand[]){flow, ix}, 2);
    return LANG_EXC;
  }
  LangValue r = LANG_EXC;
  if (check_element_shape(L, ta, &v.shape, false)) {
    GError *error = NULL;
    TrNode *node = tr_graph_add_tensor_list_set_item(lang_tf_trace(L)->graph, flow.out, ix.out,
                                                     v.out, ta->dynamic_size, NULL, &error);
    r = node ? ta_with_output(L, ta, node) : raise_node_error(L, error);
  }
  lang_tf_operands_clear((LangTfOperand[]){flow, ix, v}, 3);
  return r;
}

static LangValue
traced_read(LangState *L, LangValue self, LangValue index)
{
  LangTfTensorArray *ta = ta_of(self);
  LangTfOperand flow, ix;
  if (!traced_flow(L, self, &flow))
    return LANG_EXC;
  if (!lang_tf_operand(L, index, TR_INT32, false, &ix)) {
    lang_tf_operand_clear(&flow);
    return LANG_EXC;
  }
  GError *error = NULL;
  TrNode *node =
      tr_graph_add_tensor_list_get_item(lang_tf_trace(L)->graph, flow.out, ix.out, ta->dtype,
                                        &ta->shape->element_shape, NULL, &error);
  lang_tf_operands_clear((LangTfOperand[]){flow, ix}, 2);
  if (!node)
    return raise_node_error(L, error);
  return lang_tf_symbolic_new(L, node->graph, tr_node_output(node, 0));
}

typedef enum { TRACED_STACK, TRACED_CONCAT, TRACED_LENGTH } TracedReduce;

static LangValue
traced_reduce(LangState *L, LangValue self, TracedReduce what)
{
  LangTfTensorArray *ta = ta_of(self);
  LangTfOperand flow;
  if (!traced_flow(L, self, &flow))
    return LANG_EXC;
  TrGraph *g = lang_tf_trace(L)->graph;
  const TrShape *es = &ta->shape->element_shape;
  GError *error = NULL;
  TrNode *node = what == TRACED_STACK
                     ? tr_graph_add_tensor_list_stack(g, flow.out, ta->dtype, es, NULL, &error)
                 : what == TRACED_CONCAT
                     ? tr_graph_add_tensor_list_concat(g, flow.out, ta->dtype, es, NULL, &error)
                     : tr_graph_add_tensor_list_length(g, flow.out, NULL, &error);
  lang_tf_operand_clear(&flow);
  if (!node)
    return raise_node_error(L, error);
  return lang_tf_symbolic_new(L, g, tr_node_output(node, 0));
}

static LangValue
traced_gather(LangState *L, LangValue self, LangValue indices)
{
  LangTfTensorArray *ta = ta_of(self);
  LangTfOperand flow, ix;
  if (!traced_flow(L, self, &flow))
    return LANG_EXC;
  if (!lang_tf_operand(L, indices, TR_INT32, false, &ix)) {
    lang_tf_operand_clear(&flow);
    return LANG_EXC;
  }
  GError *error = NULL;
  TrNode *node =
      tr_graph_add_tensor_list_gather(lang_tf_trace(L)->graph, flow.out, ix.out, ta->dtype,
                                      &ta->shape->element_shape, NULL, &error);
  lang_tf_operands_clear((LangTfOperand[]){flow, ix}, 2);
  if (!node)
    return raise_node_error(L, error);
  return lang_tf_symbolic_new(L, node->graph, tr_node_output(node, 0));
}

static LangValue
traced_unstack(LangState *L, LangValue self, LangValue value)
{
  LangTfTensorArray *ta = ta_of(self);
  LangTfOperand v;
  if (!lang_tf_operand(L, value, ta->dtype, true, &v))
    return LANG_EXC;
  LangValue r = LANG_EXC;
  TrShape row =
      v.shape.rank > 0 ? tr_shape_make(v.shape.rank - 1, v.shape.dims + 1) : tr_shape_unknown();
  if (check_element_shape(L, ta, &row, false)) {
    GError *error = NULL;
    TrNode *node =
        tr_graph_add_tensor_list_from_tensor(lang_tf_trace(L)->graph, v.out, NULL, &error);
    r = node ? ta_with_output(L, ta, node) : raise_node_error(L, error);
  }
  lang_tf_operand_clear(&v);
  return r;
}

/* ---- the methods --------------------------------------------------------------------------- */

static LangValue
ta_write(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue index, value, name = LANG_UNSET;
  if (!lang_parse_args(L, "write", args, nargs, kwnames, "index,value,name=", &index, &value,
                       &name))
    return LANG_EXC;
  if (use_graph(L, ta_of(self)))
    return traced_write(L, self, index, value);
  int64_t ix;
  if (!eager_int(L, index, &ix))
    return LANG_EXC;
  return eager_write(L, self, ix, value);
}

static LangValue
ta_read(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue index, name = LANG_UNSET;
  if (!lang_parse_args(L, "read", args, nargs, kwnames, "index,name=", &index, &name))
    return LANG_EXC;
  if (use_graph(L, ta_of(self)))
    return traced_read(L, self, index);
  int64_t ix;
  if (!eager_int(L, index, &ix))
    return LANG_EXC;
  return eager_read(L, ta_of(self), ix);
}

static LangValue
ta_stack(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue name = LANG_UNSET;
  if (!lang_parse_args(L, "stack", args, nargs, kwnames, "name=", &name))
    return LANG_EXC;
  if (use_graph(L, ta_of(self)))
    return traced_reduce(L, self, TRACED_STACK);
  return eager_stack(L, ta_of(self), NULL, ta_of(self)->items->len);
}

static LangValue
ta_concat(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue name = LANG_UNSET;
  if (!lang_parse_args(L, "concat", args, nargs, kwnames, "name=", &name))
    return LANG_EXC;
  if (use_graph(L, ta_of(self)))
    return traced_reduce(L, self, TRACED_CONCAT);
  return eager_concat(L, ta_of(self));
}

static LangValue
ta_size(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue name = LANG_UNSET;
  if (!lang_parse_args(L, "size", args, nargs, kwnames, "name=", &name))
    return LANG_EXC;
  LangTfTensorArray *ta = ta_of(self);
  if (!use_graph(L, ta))
    return lang_tf_tensor_new(L, tr_tensor_new_int32((int32_t)ta->items->len));
  if (!ta->dynamic_size && ta->size >= 0) {
    LangTfOperand o;
    if (!lang_tf_operand_from_tensor(L, tr_tensor_new_int32((int32_t)ta->size), &o))
      return LANG_EXC;
    return lang_tf_operand_to_value(L, &o);
  }
  return traced_reduce(L, self, TRACED_LENGTH);
}

static LangValue
ta_gather(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue indices, name = LANG_UNSET;
  if (!lang_parse_args(L, "gather", args, nargs, kwnames, "indices,name=", &indices, &name))
    return LANG_EXC;
  if (use_graph(L, ta_of(self)))
    return traced_gather(L, self, indices);
  TrTensor *t = lang_tf_convert(L, indices, TR_INT32, true);
  if (!t)
    return LANG_EXC;
  int64_t k = tr_tensor_num_elements(t);
  g_autofree int64_t *ix = g_new(int64_t, MAX(k, 1));
  for (int64_t i = 0; i < k; i++)
    ix[i] = tr_tensor_get_i64(t, i);
  tr_tensor_unref(t);
  return eager_stack(L, ta_of(self), ix, k);
}

static LangValue
ta_unstack(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue value, name = LANG_UNSET;
  if (!lang_parse_args(L, "unstack", args, nargs, kwnames, "value,name=", &value, &name))
    return LANG_EXC;
  if (use_graph(L, ta_of(self)))
    return traced_unstack(L, self, value);
  return eager_unstack(L, self, value);
}

static LangValue
ta_close(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue name = LANG_UNSET;
  if (!lang_parse_args(L, "close", args, nargs, kwnames, "name=", &name))
    return LANG_EXC;
  return LANG_NONE;
}

static LangValue
ta_get_dtype(LangState *L, LangValue self)
{
  return lang_tf_dtype_object(ta_of(self)->dtype);
}

static LangValue
ta_get_element_shape(LangState *L, LangValue self)
{
  return lang_tf_shape_new(L, &ta_of(self)->shape->element_shape);
}

static LangValue
ta_get_dynamic_size(LangState *L, LangValue self)
{
  return lang_bool(ta_of(self)->dynamic_size);
}

static LangValue
ta_get_flow(LangState *L, LangValue self)
{
  LangTfTensorArray *ta = ta_of(self);
  return ta_is_eager(ta) ? LANG_NONE : lang_incref(ta->flow);
}

static LangValue
ta_repr(LangState *L, LangValue self)
{
  return lang_str_printf(
      L, "<tensorflow.python.ops.tensor_array_ops.TensorArray object at %#" G_GINT64_MODIFIER "x>",
      (gint64)lang_id(self));
}

static const LangMethodDef ta_methods[] = {
    {"write", ta_write, "(self, index, value, name=None)",
     "Writes value at index; returns the TensorArray to use from now on.", 0},
    {"read", ta_read, "(self, index, name=None)", "The element at index.", 0},
    {"stack", ta_stack, "(self, name=None)", "The elements stacked into one tensor.", 0},
    {"concat", ta_concat, "(self, name=None)", "The elements concatenated along axis 0.", 0},
    {"gather", ta_gather, "(self, indices, name=None)", "The elements at indices, stacked.", 0},
    {"unstack", ta_unstack, "(self, value, name=None)",
     "Splits value along axis 0 into the elements.", 0},
    {"size", ta_size, "(self, name=None)", "The number of elements.", 0},
    {"close", ta_close, "(self, name=None)", "Does nothing.", 0},
    {NULL, NULL, NULL, NULL, 0},
};

static const LangGetSetDef ta_getsets[] = {
    {"dtype", ta_get_dtype, NULL, "The element dtype."},
    {"element_shape", ta_get_element_shape, NULL, "The element shape (partial)."},
    {"dynamic_size", ta_get_dynamic_size, NULL, "Whether writes past the end grow the array."},
    {"flow", ta_get_flow, NULL, "Inside a traced function: the tensor list carrying the value."},
    {NULL, NULL, NULL, NULL},
};

LangType lang_tf_tensor_array_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "TensorArray",
    .instance_size = sizeof(LangTfTensorArray),
    .slots = {.dealloc = ta_dealloc, .construct = ta_construct, .repr = ta_repr},
    .methods = ta_methods,
    .getsets = ta_getsets,
    .doc = "Class wrapping dynamic-sized, per-time-step, Tensor arrays.",
};
