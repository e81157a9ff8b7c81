/* tr-list.h — tensor lists: what a tf.TensorArray is inside a traced function.
 *
 * A TrTensorList is an immutable variant (tr-tensor.h) holding n slots of tensors of one dtype,
 * each set or not; a graph carries it as a scalar TR_VARIANT value (TensorFlow's DT_VARIANT
 * TensorList). Every op that changes a list returns a new one, so a list can be a loop variable
 * of a While node: TensorArray.write(i, v) is TensorListSetItem(list, i, v) and the array's next
 * value is the node's output. Slots share their tensors between lists; setting one copies only
 * the slot pointers.
 *
 * Graph ops (core/graph's TR_GRAPH_OP_LIST), with TensorFlow's names and error texts:
 * TensorListReserve, TensorListSetItem, TensorListGetItem, TensorListStack, TensorListLength,
 * TensorListGather, TensorListConcatV2 and TensorListFromTensor. A node keeps the element dtype
 * in attrs.dtype; TensorListSetItem's resize_if_index_out_of_bounds is attrs.keepdims (TrAttrs
 * has no better-named flag). Reading an unset slot gives zeros of the element shape: the one of
 * the list's set tensors, else the node's static element shape when fully known; else it is
 * TensorFlow's error.
 */
#pragma once

#include "tr-graph.h"

G_BEGIN_DECLS

typedef struct TrTensorList TrTensorList;

extern const TrVariantClass tr_tensor_list_class;

/* A list of `n` unset slots for tensors of `dtype`. Transfer full. */
TrTensorList *tr_tensor_list_new(TrDType dtype, int64_t n);
/* A list whose slots hold `items` (NULL entries are unset; new references are taken). */
TrTensorList *tr_tensor_list_new_from(TrDType dtype, TrTensor *const *items, int64_t n);
static inline TrTensorList *
tr_tensor_list_ref(TrTensorList *l)
{
  return (TrTensorList *)tr_variant_ref((TrVariant *)l);
}
static inline void
tr_tensor_list_unref(TrTensorList *l)
{
  tr_variant_unref((TrVariant *)l);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TrTensorList, tr_tensor_list_unref)

TrDType tr_tensor_list_dtype(const TrTensorList *l);
int64_t tr_tensor_list_length(const TrTensorList *l);
/* Slot i's tensor, or NULL when unset. Borrowed. */
TrTensor *tr_tensor_list_peek(const TrTensorList *l, int64_t i);
/* The list a scalar variant tensor holds, or NULL. Borrowed. */
TrTensorList *tr_tensor_list_from_tensor(const TrTensor *t);

/* ---- graph ops -------------------------------------------------------------------------------
 * Each returns the new node (borrowed) or NULL with `error` set; `name` NULL means the op type
 * ("TensorListReserve"). `element_shape` is the static element shape (partial). */

/* TensorListReserve: a list of `num_elements` (a scalar int32) unset slots. */
TrNode *tr_graph_add_tensor_list_reserve(TrGraph *g, TrOutput num_elements, TrDType dtype,
                                         const char *name, GError **error);
/* TensorListSetItem: the list with slot `index` set to `item` (of the list's dtype). Past the end
 * the list grows when `resize`, else TensorFlow's InvalidArgumentError. */
TrNode *tr_graph_add_tensor_list_set_item(TrGraph *g, TrOutput list, TrOutput index, TrOutput item,
                                          bool resize, const char *name, GError **error);
/* TensorListGetItem: slot `index`. */
TrNode *tr_graph_add_tensor_list_get_item(TrGraph *g, TrOutput list, TrOutput index, TrDType dtype,
                                          const TrShape *element_shape, const char *name,
                                          GError **error);
/* TensorListStack: every slot stacked along a new axis 0. */
TrNode *tr_graph_add_tensor_list_stack(TrGraph *g, TrOutput list, TrDType dtype,
                                       const TrShape *element_shape, const char *name,
                                       GError **error);
/* TensorListGather: the slots `indices` (1-D int32) stacked. */
TrNode *tr_graph_add_tensor_list_gather(TrGraph *g, TrOutput list, TrOutput indices, TrDType dtype,
                                        const TrShape *element_shape, const char *name,
                                        GError **error);
/* TensorListConcatV2: every slot concatenated along axis 0 (elements of rank >= 1). */
TrNode *tr_graph_add_tensor_list_concat(TrGraph *g, TrOutput list, TrDType dtype,
                                        const TrShape *element_shape, const char *name,
                                        GError **error);
/* TensorListLength: a scalar int32. */
TrNode *tr_graph_add_tensor_list_length(TrGraph *g, TrOutput list, const char *name,
                                        GError **error);
/* TensorListFromTensor: one slot per row of `tensor` (rank >= 1). */
TrNode *tr_graph_add_tensor_list_from_tensor(TrGraph *g, TrOutput tensor, const char *name,
                                             GError **error);

G_END_DECLS
