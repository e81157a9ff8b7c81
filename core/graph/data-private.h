/* data-private.h — the dataset and tensor-list ops' functions, for the tables of gops.c
 * (run_<ID>) and inline.c (inline_<ID>), which name them after their TR_GRAPH_OP_LIST ids.
 * Their code lives in datasets.c and lists.c. Not included outside core/graph.
 */
#pragma once

#include "graph-private.h"
#include "tr-dataset.h"
#include "tr-list.h"

G_BEGIN_DECLS

/* id, function suffix: one row per graph-level op of datasets.c and lists.c. */
#define TR_DATA_GOP_LIST(X)                                                                        \
  X(MAKE_ITERATOR, make_iterator)                                                                  \
  X(ITERATOR_GET_NEXT, iterator_get_next)                                                          \
  X(ITERATOR_GET_NEXT_AS_OPTIONAL, iterator_get_next_as_optional)                                  \
  X(TENSOR_LIST_RESERVE, tensor_list_reserve)                                                      \
  X(TENSOR_LIST_SET_ITEM, tensor_list_set_item)                                                    \
  X(TENSOR_LIST_GET_ITEM, tensor_list_get_item)                                                    \
  X(TENSOR_LIST_STACK, tensor_list_stack)                                                          \
  X(TENSOR_LIST_GATHER, tensor_list_gather)                                                        \
  X(TENSOR_LIST_CONCAT, tensor_list_concat)                                                        \
  X(TENSOR_LIST_LENGTH, tensor_list_length)                                                        \
  X(TENSOR_LIST_FROM_TENSOR, tensor_list_from_tensor)

#define TR_DATA_DECLARE(id, fn)                                                                    \
  bool tr_data_run_##fn(const TrNode *node, TrTensor *const *in, TrTensor **out,                   \
                        const TrRunContext *ctx, GError **error);                                  \
  TrNode *tr_data_inline_##fn(TrGraph *g, const TrNode *node, const TrOutput *args, GError **error);
TR_DATA_GOP_LIST(TR_DATA_DECLARE)
#undef TR_DATA_DECLARE

/* The names the tables of gops.c and inline.c use. */
#define run_MAKE_ITERATOR                    tr_data_run_make_iterator
#define run_ITERATOR_GET_NEXT                tr_data_run_iterator_get_next
#define run_ITERATOR_GET_NEXT_AS_OPTIONAL    tr_data_run_iterator_get_next_as_optional
#define run_TENSOR_LIST_RESERVE              tr_data_run_tensor_list_reserve
#define run_TENSOR_LIST_SET_ITEM             tr_data_run_tensor_list_set_item
#define run_TENSOR_LIST_GET_ITEM             tr_data_run_tensor_list_get_item
#define run_TENSOR_LIST_STACK                tr_data_run_tensor_list_stack
#define run_TENSOR_LIST_GATHER               tr_data_run_tensor_list_gather
#define run_TENSOR_LIST_CONCAT               tr_data_run_tensor_list_concat
#define run_TENSOR_LIST_LENGTH               tr_data_run_tensor_list_length
#define run_TENSOR_LIST_FROM_TENSOR          tr_data_run_tensor_list_from_tensor
#define inline_MAKE_ITERATOR                 tr_data_inline_make_iterator
#define inline_ITERATOR_GET_NEXT             tr_data_inline_iterator_get_next
#define inline_ITERATOR_GET_NEXT_AS_OPTIONAL tr_data_inline_iterator_get_next_as_optional
#define inline_TENSOR_LIST_RESERVE           tr_data_inline_tensor_list_reserve
#define inline_TENSOR_LIST_SET_ITEM          tr_data_inline_tensor_list_set_item
#define inline_TENSOR_LIST_GET_ITEM          tr_data_inline_tensor_list_get_item
#define inline_TENSOR_LIST_STACK             tr_data_inline_tensor_list_stack
#define inline_TENSOR_LIST_GATHER            tr_data_inline_tensor_list_gather
#define inline_TENSOR_LIST_CONCAT            tr_data_inline_tensor_list_concat
#define inline_TENSOR_LIST_LENGTH            tr_data_inline_tensor_list_length
#define inline_TENSOR_LIST_FROM_TENSOR       tr_data_inline_tensor_list_from_tensor

/* A node of a graph-level op with `n_out` outputs, named from `name` (NULL: the op type), whose
 * inputs were checked to belong to g. */
TrNode *tr_data_node_new(TrGraph *g, int op, const char *name, const TrOutput *inputs, int n_in,
                         int n_out);
/* Whether input `what` of op `type` is a scalar variant; else TensorFlow-like TypeError. */
bool tr_data_check_variant(TrOutput in, const char *type, const char *what, GError **error);
/* Zeros of `shape` (unknown dims as 0; an unknown rank as a scalar). Transfer full. */
TrTensor *tr_data_zeros(TrDType dtype, const TrShape *shape);

G_END_DECLS
