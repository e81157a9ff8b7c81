/* lists.c — tensor lists and the TensorList graph ops (see tr-list.h).
 *
 * A list never changes once made: TensorListSetItem copies the slot pointers (sharing the
 * tensors) into a new list. The texts of runtime errors are TensorFlow's kernels' texts.
 */
#include "data-private.h"

#include <string.h>

struct TrTensorList {
  TrVariant base;   /* tr_tensor_list_class */
  TrDType dtype;    /* element dtype */
  int64_t n;        /* slots */
  TrTensor **items; /* per slot: a tensor (owned reference) or NULL when unset */
};

static void
list_finalize(TrVariant *v)
{
  TrTensorList *l = (TrTensorList *)v;
  for (int64_t i = 0; i < l->n; i++)
    if (l->items[i])
      tr_tensor_unref(l->items[i]);
  g_free(l->items);
  g_free(l);
}

const TrVariantClass tr_tensor_list_class = {"TensorList", list_finalize};

TrTensorList *
tr_tensor_list_new(TrDType dtype, int64_t n)
{
  g_return_val_if_fail(n >= 0, NULL);
  TrTensorList *l = g_new0(TrTensorList, 1);
  tr_variant_init(&l->base, &tr_tensor_list_class);
  l->dtype = dtype;
  l->n = n;
  l->items = g_new0(TrTensor *, MAX(n, 1));
  return l;
}

TrTensorList *
tr_tensor_list_new_from(TrDType dtype, TrTensor *const *items, int64_t n)
{
  TrTensorList *l = tr_tensor_list_new(dtype, n);
  for (int64_t i = 0; i < n; i++)
    l->items[i] = items[i] ? tr_tensor_ref(items[i]) : NULL;
  return l;
}

TrDType
tr_tensor_list_dtype(const TrTensorList *l)
{
  return l->dtype;
}

int64_t
tr_tensor_list_length(const TrTensorList *l)
{
  return l->n;
}

TrTensor *
tr_tensor_list_peek(const TrTensorList *l, int64_t i)
{
  g_return_val_if_fail(i >= 0 && i < l->n, NULL);
  return l->items[i];
}

TrTensorList *
tr_tensor_list_from_tensor(const TrTensor *t)
{
  return (TrTensorList *)tr_tensor_get_variant(t, &tr_tensor_list_class);
}

/* ---- building the nodes ------------------------------------------------------------------------
 */

static TrAttrs *
list_attrs(TrGraph *g, TrDType dtype, bool resize)
{
  TrAttrs *attrs = tr_arena_new(&g->arena, TrAttrs, 1);
  tr_attrs_init(attrs);
  attrs->dtype = dtype;
  attrs->keepdims = resize;
  return attrs;
}

/* An int32 input that must be a scalar (rank 0) or a vector (rank 1). */
static bool
check_int(TrOutput in, int rank, const char *type, const char *what, GError **error)
{
  const TrShape *shape = tr_output_shape(in);
  if (tr_output_dtype(in) == TR_INT32 && (shape->rank == rank || shape->rank == TR_UNKNOWN))
    return true;
  g_autofree char *text = tr_output_to_string(in);
  g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE,
              "Input '%s' of '%s' Op must be an int32 %s, but got %s", what, type,
              rank == 0 ? "scalar" : "vector", text);
  return false;
}

/* A list op's node: inputs checked to be of g, one output of `dtype` and `shape`. */
static TrNode *
list_node(TrGraph *g, int op, const char *name, const TrOutput *in, int n_in, TrDType dtype,
          const TrShape *shape, TrDType element_dtype, bool resize)
{
  TrNode *node = tr_data_node_new(g, op, name, in, n_in, 1);
  node->attrs = list_attrs(g, element_dtype, resize);
  node->dtypes[0] = dtype;
  node->shapes[0] = *shape;
  return node;
}

static const TrShape scalar_shape = {.rank = 0};

TrNode *
tr_graph_add_tensor_list_reserve(TrGraph *g, TrOutput num_elements, TrDType dtype, const char *name,
                                 GError **error)
{
  if (!tr_graph_check_inputs(g, &num_elements, 1, error) ||
      !check_int(num_elements, 0, "TensorListReserve", "num_elements", error))
    return NULL;
  return list_node(g, TR_GOP_TENSOR_LIST_RESERVE, name, &num_elements, 1, TR_VARIANT, &scalar_shape,
                   dtype, false);
}

TrNode *
tr_graph_add_tensor_list_set_item(TrGraph *g, TrOutput list, TrOutput index, TrOutput item,
                                  bool resize, const char *name, GError **error)
{
  TrOutput in[3] = {list, index, item};
  if (!tr_graph_check_inputs(g, in, 3, error) ||
      !tr_data_check_variant(list, "TensorListSetItem", "input_handle", error) ||
      !check_int(index, 0, "TensorListSetItem", "index", error))
    return NULL;
  TrDType dtype = tr_output_dtype(item);
  if (dtype == TR_VARIANT || dtype == TR_DTYPE_RESOURCE) {
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE,
                "Input 'item' of 'TensorListSetItem' Op has type %s, not a tensor's dtype",
                tr_graph_dtype_name(dtype));
    return NULL;
  }
  return list_node(g, TR_GOP_TENSOR_LIST_SET_ITEM, name, in, 3, TR_VARIANT, &scalar_shape, dtype,
                   resize);
}

TrNode *
tr_graph_add_tensor_list_get_item(TrGraph *g, TrOutput list, TrOutput index, TrDType dtype,
                                  const TrShape *element_shape, const char *name, GError **error)
{
  TrOutput in[2] = {list, index};
  if (!tr_graph_check_inputs(g, in, 2, error) ||
      !tr_data_check_variant(list, "TensorListGetItem", "input_handle", error) ||
      !check_int(index, 0, "TensorListGetItem", "index", error))
    return NULL;
  return list_node(g, TR_GOP_TENSOR_LIST_GET_ITEM, name, in, 2, dtype, element_shape, dtype, false);
}

/* (None,) + element_shape: a stack or gather of an unknown count; unknown when the element's
 * rank is. */
static TrShape
stacked_shape(const TrShape *element_shape, int64_t count)
{
  if (element_shape->rank == TR_UNKNOWN || element_shape->rank >= TR_MAX_RANK)
    return tr_shape_unknown();
  TrShape s = {.rank = element_shape->rank + 1};
  s.dims[0] = count;
  memcpy(s.dims + 1, element_shape->dims, sizeof(int64_t) * (size_t)element_shape->rank);
  return s;
}

TrNode *
tr_graph_add_tensor_list_stack(TrGraph *g, TrOutput list, TrDType dtype,
                               const TrShape *element_shape, const char *name, GError **error)
{
  if (!tr_graph_check_inputs(g, &list, 1, error) ||
      !tr_data_check_variant(list, "TensorListStack", "input_handle", error))
    return NULL;
  TrShape shape = stacked_shape(element_shape, TR_UNKNOWN);
  return list_node(g, TR_GOP_TENSOR_LIST_STACK, name, &list, 1, dtype, &shape, dtype, false);
}

TrNode *
tr_graph_add_tensor_list_gather(TrGraph *g, TrOutput list, TrOutput indices, TrDType dtype,
                                const TrShape *element_shape, const char *name, GError **error)
{
  TrOutput in[2] = {list, indices};
  if (!tr_graph_check_inputs(g, in, 2, error) ||
      !tr_data_check_variant(list, "TensorListGather", "input_handle", error) ||
      !check_int(indices, 1, "TensorListGather", "indices", error))
    return NULL;
  const TrShape *ishape = tr_output_shape(indices);
  TrShape shape = stacked_shape(element_shape, ishape->rank == 1 ? ishape->dims[0] : TR_UNKNOWN);
  return list_node(g, TR_GOP_TENSOR_LIST_GATHER, name, in, 2, dtype, &shape, dtype, false);
}

TrNode *
tr_graph_add_tensor_list_concat(TrGraph *g, TrOutput list, TrDType dtype,
                                const TrShape *element_shape, const char *name, GError **error)
{
  if (!tr_graph_check_inputs(g, &list, 1, error) ||
      !tr_data_check_variant(list, "TensorListConcatV2", "input_handle", error))
    return NULL;
  if (element_shape->rank == 0) {
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_VALUE,
                "Concat requires elements to be at least vectors, found scalars instead.");
    return NULL;
  }
  TrShape shape = *element_shape;
  if (shape.rank != TR_UNKNOWN)
    shape.dims[0] = TR_UNKNOWN;
  return list_node(g, TR_GOP_TENSOR_LIST_CONCAT, name, &list, 1, dtype, &shape, dtype, false);
}

TrNode *
tr_graph_add_tensor_list_length(TrGraph *g, TrOutput list, const char *name, GError **error)
{
  if (!tr_graph_check_inputs(g, &list, 1, error) ||
      !tr_data_check_variant(list, "TensorListLength", "input_handle", error))
    return NULL;
  return list_node(g, TR_GOP_TENSOR_LIST_LENGTH, name, &list, 1, TR_INT32, &scalar_shape,
                   TR_DTYPE_INVALID, false);
}

TrNode *
tr_graph_add_tensor_list_from_tensor(TrGraph *g, TrOutput tensor, const char *name, GError **error)
{
  if (!tr_graph_check_inputs(g, &tensor, 1, error))
    return NULL;
  TrDType dtype = tr_output_dtype(tensor);
  if (tr_output_shape(tensor)->rank == 0 || dtype == TR_VARIANT || dtype == TR_DTYPE_RESOURCE) {
    g_autofree char *text = tr_output_to_string(tensor);
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_VALUE,
                "TensorListFromTensor needs a tensor of rank >= 1, but got %s", text);
    return NULL;
  }
  return list_node(g, TR_GOP_TENSOR_LIST_FROM_TENSOR, name, &tensor, 1, TR_VARIANT, &scalar_shape,
                   dtype, false);
}

/* ---- running them
 * --------------------------------------------------------------------------------
 */

static TrTensorList *
input_list(const TrNode *node, TrTensor *const *in, GError **error)
{
  TrTensorList *l = tr_tensor_list_from_tensor(in[0]);
  if (!l)
    g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
                "%s expects a TensorList as its input_handle", node->type);
  return l;
}

/* The element dtype the node works with must be the list's. */
static bool
check_list_dtype(const TrNode *node, const TrTensorList *l, GError **error)
{
  if (l->dtype == node->attrs->dtype)
    return true;
  g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
              "Invalid data types; op elements %s but list elements %s",
              tr_dtype_tf_name(node->attrs->dtype), tr_dtype_tf_name(l->dtype));
  return false;
}

bool
tr_data_run_tensor_list_reserve(const TrNode *node, TrTensor *const *in, TrTensor **out,
                                const TrRunContext *ctx, GError **error)
{
  int64_t n = tr_tensor_get_i64(in[0], 0);
  if (n < 0) {
    g_set_error(
        error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
        "The num_elements to reserve must be a non negative number, but got %" G_GINT64_FORMAT, n);
    return false;
  }
  g_autoptr(TrTensorList) l = tr_tensor_list_new(node->attrs->dtype, n);
  out[0] = tr_tensor_new_variant(&l->base);
  return true;
}

bool
tr_data_run_tensor_list_set_item(const TrNode *node, TrTensor *const *in, TrTensor **out,
                                 const TrRunContext *ctx, GError **error)
{
  TrTensorList *l = input_list(node, in, error);
  if (!l || !check_list_dtype(node, l, error))
    return false;
  int64_t index = tr_tensor_get_i64(in[1], 0);
  bool resize = node->attrs->keepdims;
  if (index < 0 || (index >= l->n && !resize)) {
    g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
                "Trying to modify element %" G_GINT64_FORMAT " in a list with %" G_GINT64_FORMAT
                " elements.",
                index, l->n);
    return false;
  }
  g_autoptr(TrTensorList) copy = tr_tensor_list_new(l->dtype, MAX(l->n, index + 1));
  for (int64_t i = 0; i < l->n; i++)
    copy->items[i] = l->items[i] ? tr_tensor_ref(l->items[i]) : NULL;
  g_clear_pointer(&copy->items[index], tr_tensor_unref);
  copy->items[index] = tr_tensor_ref(in[2]);
  out[0] = tr_tensor_new_variant(&copy->base);
  return true;
}

/* The shape an unset slot reads as: a set slot's, else the node's static element shape. */
static bool
element_shape_for_zeros(const TrNode *node, const TrShape *static_shape, const TrTensorList *l,
                        TrShape *out, GError **error)
{
  for (int64_t i = 0; i < l->n; i++) {
    if (l->items[i]) {
      *out = l->items[i]->shape;
      return true;
    }
  }
  if (tr_shape_is_fully_defined(static_shape)) {
    *out = *static_shape;
    return true;
  }
  g_autofree char *text = tr_shape_to_error_string(static_shape);
  g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
              "Trying to read an uninitialized tensor but element_shape is not fully defined: %s "
              "and no list element is set.",
              text);
  return false;
}

/* Slot `index`'s tensor, or zeros for an unset slot. Transfer full. */
static TrTensor *
read_slot(const TrNode *node, const TrShape *static_shape, const TrTensorList *l, int64_t index,
          GError **error)
{
  if (l->items[index])
    return tr_tensor_ref(l->items[index]);
  TrShape shape;
  if (!element_shape_for_zeros(node, static_shape, l, &shape, error))
    return NULL;
  return tr_tensor_new(l->dtype, &shape);
}

static bool
check_index(const TrTensorList *l, int64_t index, GError **error)
{
  if (index >= 0 && index < l->n)
    return true;
  g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
              "Trying to access element %" G_GINT64_FORMAT " in a list with %" G_GINT64_FORMAT
              " elements.",
              index, l->n);
  return false;
}

bool
tr_data_run_tensor_list_get_item(const TrNode *node, TrTensor *const *in, TrTensor **out,
                                 const TrRunContext *ctx, GError **error)
{
  TrTensorList *l = input_list(node, in, error);
  if (!l || !check_list_dtype(node, l, error))
    return false;
  int64_t index = tr_tensor_get_i64(in[1], 0);
  if (!check_index(l, index, error))
    return false;
  out[0] = read_slot(node, &node->shapes[0], l, index, error);
  return out[0] != NULL;
}

/* The element shape part of a stacked output's static shape. */
static TrShape
element_of_stacked(const TrShape *stacked)
{
  if (stacked->rank == TR_UNKNOWN)
    return tr_shape_unknown();
  return tr_shape_make(stacked->rank - 1, stacked->dims + 1);
}

/* Slots `indices` (all slots when NULL) stacked along a new axis 0. Transfer full. */
static TrTensor *
stack_slots(const TrNode *node, const TrTensorList *l, const int64_t *indices, int64_t k,
            GError **error)
{
  TrShape element = element_of_stacked(&node->shapes[0]);
  if (k == 0) {
    TrShape shape;
    if (!element_shape_for_zeros(node, &element, l, &shape, error))
      return NULL;
    TrShape empty = stacked_shape(&shape, 0);
    return tr_tensor_new(l->dtype, &empty);
  }
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func((GDestroyNotify)tr_tensor_unref);
  for (int64_t i = 0; i < k; i++) {
    int64_t index = indices ? indices[i] : i;
    if (!check_index(l, index, error))
      return NULL;
    TrTensor *t = read_slot(node, &element, l, index, error);
    if (!t)
      return NULL;
    g_ptr_array_add(items, t);
  }
  for (int64_t i = 1; i < k; i++) {
    TrTensor *a = items->pdata[0], *b = items->pdata[i];
    if (tr_shape_equal(&a->shape, &b->shape))
      continue;
    g_autofree char *sa = tr_shape_to_error_string(&a->shape);
    g_autofree char *sb = tr_shape_to_error_string(&b->shape);
    g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
                "Incompatible shapes during merge: %s vs. %s", sa, sb);
    return NULL;
  }
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.axis = 0;
  return tr_op_run(TR_OP_STACK, (TrTensor **)items->pdata, (int)k, &attrs, error);
}

bool
tr_data_run_tensor_list_stack(const TrNode *node, TrTensor *const *in, TrTensor **out,
                              const TrRunContext *ctx, GError **error)
{
  TrTensorList *l = input_list(node, in, error);
  if (!l || !check_list_dtype(node, l, error))
    return false;
  out[0] = stack_slots(node, l, NULL, l->n, error);
  return out[0] != NULL;
}

bool
tr_data_run_tensor_list_gather(const TrNode *node, TrTensor *const *in, TrTensor **out,
                               const TrRunContext *ctx, GError **error)
{
  TrTensorList *l = input_list(node, in, error);
  if (!l || !check_list_dtype(node, l, error))
    return false;
  int64_t k = tr_tensor_num_elements(in[1]);
  g_autofree int64_t *indices = g_new(int64_t, MAX(k, 1));
  for (int64_t i = 0; i < k; i++)
    indices[i] = tr_tensor_get_i64(in[1], i);
  out[0] = stack_slots(node, l, indices, k, error);
  return out[0] != NULL;
}

bool
tr_data_run_tensor_list_concat(const TrNode *node, TrTensor *const *in, TrTensor **out,
                               const TrRunContext *ctx, GError **error)
{
  TrTensorList *l = input_list(node, in, error);
  if (!l || !check_list_dtype(node, l, error))
    return false;
  if (l->n == 0) {
    TrShape shape = node->shapes[0];
    if (shape.rank == TR_UNKNOWN)
      shape = tr_shape_make(1, (int64_t[]){0});
    out[0] = tr_data_zeros(l->dtype, &shape);
    return true;
  }
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func((GDestroyNotify)tr_tensor_unref);
  TrShape element = node->shapes[0];
  for (int64_t i = 0; i < l->n; i++) {
    TrTensor *t = read_slot(node, &element, l, i, error);
    if (!t)
      return false;
    g_ptr_array_add(items, t);
    if (t->shape.rank == 0) {
      g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
                  "Concat saw a scalar shape at index %" G_GINT64_FORMAT
                  " but requires at least vectors.",
                  i);
      return false;
    }
  }
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.axis = 0;
  out[0] = tr_op_run(TR_OP_CONCAT, (TrTensor **)items->pdata, (int)l->n, &attrs, error);
  return out[0] != NULL;
}

bool
tr_data_run_tensor_list_length(const TrNode *node, TrTensor *const *in, TrTensor **out,
                               const TrRunContext *ctx, GError **error)
{
  TrTensorList *l = input_list(node, in, error);
  if (!l)
    return false;
  out[0] = tr_tensor_new_int32((int32_t)l->n);
  return true;
}

bool
tr_data_run_tensor_list_from_tensor(const TrNode *node, TrTensor *const *in, TrTensor **out,
                                    const TrRunContext *ctx, GError **error)
{
  TrTensor *t = in[0];
  if (t->shape.rank == 0) {
    g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
                "Tensor must be at least a vector, but saw shape: []");
    return false;
  }
  int64_t n = t->shape.dims[0];
  g_autoptr(TrTensorList) l = tr_tensor_list_new(t->dtype, n);
  TrShape row = tr_shape_make(t->shape.rank - 1, t->shape.dims + 1);
  for (int64_t i = 0; i < n; i++)
    l->items[i] =
        tr_tensor_new_view(t->buf, t->dtype, &row, t->strides + 1, t->offset + i * t->strides[0]);
  out[0] = tr_tensor_new_variant(&l->base);
  return true;
}

/* ---- inlining them -----------------------------------------------------------------------------
 */

TrNode *
tr_data_inline_tensor_list_reserve(TrGraph *g, const TrNode *node, const TrOutput *args,
                                   GError **error)
{
  return tr_graph_add_tensor_list_reserve(g, args[0], node->attrs->dtype, node->name, error);
}

TrNode *
tr_data_inline_tensor_list_set_item(TrGraph *g, const TrNode *node, const TrOutput *args,
                                    GError **error)
{
  return tr_graph_add_tensor_list_set_item(g, args[0], args[1], args[2], node->attrs->keepdims,
                                           node->name, error);
}

TrNode *
tr_data_inline_tensor_list_get_item(TrGraph *g, const TrNode *node, const TrOutput *args,
                                    GError **error)
{
  return tr_graph_add_tensor_list_get_item(g, args[0], args[1], node->attrs->dtype,
                                           &node->shapes[0], node->name, error);
}

TrNode *
tr_data_inline_tensor_list_stack(TrGraph *g, const TrNode *node, const TrOutput *args,
                                 GError **error)
{
  TrShape element = element_of_stacked(&node->shapes[0]);
  return tr_graph_add_tensor_list_stack(g, args[0], node->attrs->dtype, &element, node->name,
                                        error);
}

TrNode *
tr_data_inline_tensor_list_gather(TrGraph *g, const TrNode *node, const TrOutput *args,
                                  GError **error)
{
  TrShape element = element_of_stacked(&node->shapes[0]);
  return tr_graph_add_tensor_list_gather(g, args[0], args[1], node->attrs->dtype, &element,
                                         node->name, error);
}

TrNode *
tr_data_inline_tensor_list_concat(TrGraph *g, const TrNode *node, const TrOutput *args,
                                  GError **error)
{
  return tr_graph_add_tensor_list_concat(g, args[0], node->attrs->dtype, &node->shapes[0],
                                         node->name, error);
}

TrNode *
tr_data_inline_tensor_list_length(TrGraph *g, const TrNode *node, const TrOutput *args,
                                  GError **error)
{
  return tr_graph_add_tensor_list_length(g, args[0], node->name, error);
}

TrNode *
tr_data_inline_tensor_list_from_tensor(TrGraph *g, const TrNode *node, const TrOutput *args,
                                       GError **error)
{
  return tr_graph_add_tensor_list_from_tensor(g, args[0], node->name, error);
}
