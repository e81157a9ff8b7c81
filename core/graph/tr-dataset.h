/* tr-dataset.h — tf.data at run time: datasets, iterators over them, and the graph ops that make
 * and advance iterators inside a traced function.
 *
 * A TrDataset is an immutable recipe for a stream of elements; each element is a fixed number of
 * tensors (its components) whose dtypes and (possibly partial) shapes the dataset declares: its
 * element spec, flattened. Datasets are variants (tr-tensor.h), so a scalar TR_VARIANT tensor can
 * carry one into a graph, as a function argument or a Const. A TrIterator is one pass over a
 * dataset: it holds the position, so every user of the same iterator (eager next() and any graph
 * run it was fed to) advances the same stream, as TensorFlow's iterator resources do.
 *
 * Datasets made from tensors, ranges and transformations never call back into the language;
 * tr_dataset_new_callback lets the language layer supply elements itself (from_generator).
 * A function of a transformation (map, filter, scan, reduce, flat_map) is a traced graph (its
 * placeholders are the input components, its results the output components) run per element by
 * its own plan.
 *
 * Templates: flat_map and interleave make a dataset per input element. Their function's graph
 * computes the values that dataset depends on (its "slots": tensors, or variant tensors holding
 * datasets); the dataset itself is a template, a recipe like any other whose sources read slots
 * (tr_dataset_new_slot_*) instead of holding tensors. Each input element runs the graph and then
 * a pass over the template with those slot values. A template cannot be iterated on its own.
 *
 * A dataset is immutable but for two caches of its own: cache()'s recorded elements and
 * shuffle()'s count of passes (a new order per pass). Neither is thread-safe, as datasets are
 * used from the language's thread only.
 *
 * Graph ops (core/graph's TR_GRAPH_OP_LIST): MakeIterator (a fresh iterator from a dataset),
 * IteratorGetNext (the next element; OutOfRangeError "End of sequence" at the end) and
 * IteratorGetNextAsOptional (a scalar bool "has value" then the components, zeros at the end):
 * the last is what a `for` loop over a dataset runs inside a While. All three are stateful.
 */
#pragma once

#include "tr-graph.h"
#include "tr-plan.h"

G_BEGIN_DECLS

typedef struct TrDataset TrDataset;
typedef struct TrIterator TrIterator;

/* The variant classes, for tr_tensor_get_variant. */
extern const TrVariantClass tr_dataset_class;
extern const TrVariantClass tr_iterator_class;

/* Dataset.cardinality() for a dataset whose length is not known ahead (TensorFlow's -2), and for
 * one that never ends (-1). */
#define TR_DATASET_UNKNOWN_CARDINALITY  (-2)
#define TR_DATASET_INFINITE_CARDINALITY (-1)

/* ---- datasets ------------------------------------------------------------------------------ */

/* from_tensor_slices: element k is component[k] of every component along axis 0. Every component
 * must have rank >= 1 and the same first dimension, else TensorFlow's ValueError text in
 * TR_GRAPH_ERROR_VALUE. New references are taken. Transfer full. */
TrDataset *tr_dataset_new_tensor_slices(TrTensor *const *components, int n, GError **error);
/* from_tensors: one element, the components themselves. Transfer full. */
TrDataset *tr_dataset_new_tensors(TrTensor *const *components, int n);
/* Dataset.range(start, stop, step): int64 scalars. step 0 is TensorFlow's InvalidArgumentError
 * ("step must be a non-zero integer."). Transfer full. */
TrDataset *tr_dataset_new_range(int64_t start, int64_t stop, int64_t step, GError **error);
/* The same range of values as `dtype` (a numeric dtype) scalars. */
TrDataset *tr_dataset_new_range_of(int64_t start, int64_t stop, int64_t step, TrDType dtype,
                                   GError **error);
/* input.batch(batch_size, drop_remainder): each component stacked along a new axis 0; the last
 * short batch is dropped or kept. batch_size must be > 0 (InvalidArgumentError). Elements of
 * different shapes in one batch fail at iteration with TensorFlow's InvalidArgumentError. A new
 * reference to input is taken. Transfer full. */
TrDataset *tr_dataset_new_batch(TrDataset *input, int64_t batch_size, bool drop_remainder,
                                GError **error);
/* input.map(fn): `fn` is a finished graph whose arguments (non-resource placeholders) match the
 * input's components in count and dtype and whose results are the new components. It is copied,
 * optimised and planned once; a runtime error of fn fails the iteration. Transfer full. */
TrDataset *tr_dataset_new_map(TrDataset *input, TrGraph *fn, GError **error);

/* zip: element k is the components of element k of every input, in order; it ends with the
 * shortest input. New references to the inputs are taken (as by every transformation below).
 * Transfer full. */
TrDataset *tr_dataset_new_zip(TrDataset *const *inputs, int n_inputs);
/* a.concatenate(b): a's elements then b's. The component counts and dtypes must be equal
 * (TR_GRAPH_ERROR_TYPE); each shape is the most specific one both fit. Transfer full. */
TrDataset *tr_dataset_new_concatenate(TrDataset *a, TrDataset *b, GError **error);
/* repeat(count): the input `count` times; count < 0 forever. Transfer full. */
TrDataset *tr_dataset_new_repeat(TrDataset *input, int64_t count);
/* take(count), skip(count): the first `count` elements, or all but them; count < 0 means all
 * of them. Transfer full. */
TrDataset *tr_dataset_new_take(TrDataset *input, int64_t count);
TrDataset *tr_dataset_new_skip(TrDataset *input, int64_t count);
/* filter(predicate): `predicate` (a graph as for map) must have one scalar bool result; elements
 * for which it is false are left out. Transfer full. */
TrDataset *tr_dataset_new_filter(TrDataset *input, TrGraph *predicate, GError **error);
/* shuffle(buffer_size): elements drawn at random from a buffer of the next `buffer_size` ones.
 * The order is fixed by `seed`; with `reshuffle` each pass draws a new order, else every pass
 * has the same one. buffer_size must be > 0 (InvalidArgumentError). Transfer full. */
TrDataset *tr_dataset_new_shuffle(TrDataset *input, int64_t buffer_size, uint64_t seed,
                                  bool reshuffle, GError **error);
/* prefetch(buffer_size): the input unchanged (elements are produced when asked for; there is no
 * background thread to prefetch with). buffer_size must be >= 0 or -1 (AUTOTUNE). */
TrDataset *tr_dataset_new_prefetch(TrDataset *input, int64_t buffer_size, GError **error);
/* cache(): the first complete pass records the elements; later passes replay them without
 * running the input again. Transfer full. */
TrDataset *tr_dataset_new_cache(TrDataset *input);
/* unbatch(): every element's components split along their first dimension (which must agree,
 * else InvalidArgumentError at iteration). Components of rank 0 are TR_GRAPH_ERROR_VALUE. */
TrDataset *tr_dataset_new_unbatch(TrDataset *input, GError **error);
/* padded_batch: as batch, each component padded with padding_values[i] (a scalar of its dtype)
 * up to padded_shapes[i], whose unknown dims mean the longest in the batch. Elements larger than
 * the padded shape, or of another rank, fail at iteration with TensorFlow's
 * InvalidArgumentError. New references to the padding values are taken. Transfer full. */
TrDataset *tr_dataset_new_padded_batch(TrDataset *input, int64_t batch_size,
                                       const TrShape *padded_shapes,
                                       TrTensor *const *padding_values, bool drop_remainder,
                                       GError **error);
/* scan(initial, fn): `fn` takes the n_state state components then the element's and returns the
 * new state (the dtypes of `initial`) then the output element. Transfer full. */
TrDataset *tr_dataset_new_scan(TrDataset *input, TrTensor *const *initial, int n_state, TrGraph *fn,
                               GError **error);
/* window(size, shift, stride, drop_remainder): elements are windows, one dataset per input
 * component (a scalar variant component) holding input elements start, start + stride, ... (at
 * most `size` of them), with start advancing by `shift`. Short windows at the end are dropped or
 * kept. size, shift and stride must be > 0 (InvalidArgumentError). Transfer full. */
TrDataset *tr_dataset_new_window(TrDataset *input, int64_t size, int64_t shift, int64_t stride,
                                 bool drop_remainder, GError **error);
/* flat_map(fn): `fn` (a graph as for map) computes the slots of the template `inner` from an
 * element; the elements of every such dataset, in turn. Transfer full. */
TrDataset *tr_dataset_new_flat_map(TrDataset *input, TrGraph *fn, TrDataset *inner, GError **error);
/* interleave(fn, cycle_length, block_length): as flat_map, but `cycle_length` of the inner
 * datasets are open at once and `block_length` elements are taken from each in turn, as
 * TensorFlow's InterleaveDataset does. Both must be > 0 (InvalidArgumentError). */
TrDataset *tr_dataset_new_interleave(TrDataset *input, TrGraph *fn, TrDataset *inner,
                                     int64_t cycle_length, int64_t block_length, GError **error);
/* reduce(initial, fn): runs `fn` (as for scan, its results only the new state) over every
 * element; out[0..n_state-1] receive the final state (transfer full). */
bool tr_dataset_reduce(TrDataset *ds, TrTensor *const *initial, int n_state, TrGraph *fn,
                       TrTensor **out, const TrRunContext *ctx, GError **error);

/* ---- templates: sources that read a function's slots ------------------------------------------
 * Each returns transfer full. */

/* The dataset held by slot `slot` (a scalar variant), of the given element spec. */
TrDataset *tr_dataset_new_slot_dataset(int slot, int n, const TrDType *dtypes,
                                       const TrShape *shapes);
/* from_tensor_slices (`slices`) or from_tensors of slot tensors slots[0..n-1] of the given
 * dtypes and (possibly partial) shapes. Slices of a rank-0 shape are TR_GRAPH_ERROR_VALUE. */
TrDataset *tr_dataset_new_slot_tensors(bool slices, const int *slots, int n, const TrDType *dtypes,
                                       const TrShape *shapes, GError **error);
/* range(values[0], values[1], values[2]) of `dtype`, each read from slot slots[k] (an integer
 * scalar) unless slots[k] < 0. */
TrDataset *tr_dataset_new_slot_range(const int64_t *values, const int *slots, TrDType dtype);
/* Whether ds (or a dataset it transforms) reads slots. */
bool tr_dataset_is_template(const TrDataset *ds);

/* Elements supplied by the caller (the language layer's from_generator). */
typedef struct {
  /* A new pass: its state (may be NULL), or NULL with `error` set when `*failed` is set. */
  void *(*start)(void *data, bool *failed, GError **error);
  /* The next element of a pass: out[0..n-1] transfer full, or *end set at the end. Components
   * must have the dtypes and compatible shapes the dataset declared. */
  bool (*next)(void *data, void *state, TrTensor **out, bool *end, GError **error);
  void (*stop)(void *data, void *state); /* the pass is over (may be NULL) */
  void (*destroy)(void *data);           /* the dataset is freed (may be NULL) */
} TrDatasetCallbacks;

/* A dataset of n components of the given dtypes and shapes whose passes `callbacks` make; `data`
 * is passed to each callback and destroyed with the dataset. `callbacks` must be static.
 * Transfer full. */
TrDataset *tr_dataset_new_callback(const TrDatasetCallbacks *callbacks, void *data, int n,
                                   const TrDType *dtypes, const TrShape *shapes);

static inline TrDataset *
tr_dataset_ref(TrDataset *ds)
{
  return (TrDataset *)tr_variant_ref((TrVariant *)ds);
}
static inline void
tr_dataset_unref(TrDataset *ds)
{
  tr_variant_unref((TrVariant *)ds);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TrDataset, tr_dataset_unref)

/* The element spec, flattened: component count, dtypes and (partial) shapes. */
int tr_dataset_n_components(const TrDataset *ds);
TrDType tr_dataset_dtype(const TrDataset *ds, int i);
const TrShape *tr_dataset_shape(const TrDataset *ds, int i);
/* The number of elements, or TR_DATASET_UNKNOWN_CARDINALITY or _INFINITE_CARDINALITY. */
int64_t tr_dataset_cardinality(const TrDataset *ds);
/* The dataset a scalar variant tensor holds, or NULL. Borrowed. */
TrDataset *tr_tensor_get_dataset(const TrTensor *t);

/* ---- iterators ------------------------------------------------------------------------------ */

/* A pass over `ds` from its first element (a reference to ds is taken). Transfer full, or NULL
 * with `error` set (a callback dataset's start failed). */
TrIterator *tr_iterator_new(TrDataset *ds, GError **error);
static inline TrIterator *
tr_iterator_ref(TrIterator *it)
{
  return (TrIterator *)tr_variant_ref((TrVariant *)it);
}
static inline void
tr_iterator_unref(TrIterator *it)
{
  tr_variant_unref((TrVariant *)it);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TrIterator, tr_iterator_unref)

/* The dataset being iterated. Borrowed. */
TrDataset *tr_iterator_dataset(const TrIterator *it);
/* The next element: out[0..n-1] (n = the dataset's component count) receive transfer-full
 * tensors, or *end is set and out is untouched; an iterator at its end stays there. `ctx`
 * (may be NULL) is where tf.print inside a map function writes. False with `error` set when
 * producing the element failed; the iterator then stays at its end. */
bool tr_iterator_next(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx,
                      GError **error);
/* The iterator a scalar variant tensor holds, or NULL. Borrowed. */
TrIterator *tr_tensor_get_iterator(const TrTensor *t);

/* ---- graph ops -------------------------------------------------------------------------------
 * Each returns the new node (borrowed) or NULL with `error` set; `name` NULL means the op type.
 * Dataset and iterator values are scalar TR_VARIANT outputs. */

/* MakeIterator: a new iterator over `dataset` each time the node runs. */
TrNode *tr_graph_add_make_iterator(TrGraph *g, TrOutput dataset, const char *name, GError **error);
/* IteratorGetNext: n outputs with the element spec's dtypes and shapes. */
TrNode *tr_graph_add_iterator_get_next(TrGraph *g, TrOutput iterator, int n, const TrDType *dtypes,
                                       const TrShape *shapes, const char *name, GError **error);
/* IteratorGetNextAsOptional: output 0 a scalar bool (an element was there), outputs 1..n the
 * components, or zeros of their static shapes (unknown dims as 0) at the end. */
TrNode *tr_graph_add_iterator_get_next_as_optional(TrGraph *g, TrOutput iterator, int n,
                                                   const TrDType *dtypes, const TrShape *shapes,
                                                   const char *name, GError **error);

G_END_DECLS
