/* datasets.c — tf.data's datasets and iterators at run time, and the iterator graph ops (see
 * tr-dataset.h).
 *
 * A dataset is one struct for every kind; what differs between kinds is how an iterator starts,
 * produces its next element and counts elements, one table row per kind. Iterators over
 * transformations own iterators over their inputs. Slices are views of the dataset's tensors,
 * so producing one copies nothing. Elements held between calls (shuffle's buffer, a window, the
 * cache) are kept flat: n tensors per element in one GPtrArray that owns them.
 *
 * An iterator over a template (a flat_map's inner dataset) carries its slot values, `env`, and
 * hands it to the iterators over its inputs, so sources read their tensors from it at start.
 */
#include "data-private.h"

#include <string.h>

typedef enum {
  DS_SLICES,       /* from_tensor_slices */
  DS_TENSORS,      /* from_tensors */
  DS_RANGE,        /* range */
  DS_BATCH,        /* batch */
  DS_MAP,          /* map */
  DS_CALLBACK,     /* elements from the caller (from_generator) */
  DS_ZIP,          /* zip */
  DS_CONCATENATE,  /* concatenate */
  DS_REPEAT,       /* repeat */
  DS_TAKE,         /* take */
  DS_SKIP,         /* skip */
  DS_FILTER,       /* filter */
  DS_SHUFFLE,      /* shuffle */
  DS_PREFETCH,     /* prefetch: the input as is */
  DS_CACHE,        /* cache */
  DS_UNBATCH,      /* unbatch */
  DS_PADDED_BATCH, /* padded_batch */
  DS_SCAN,         /* scan */
  DS_WINDOW,       /* window */
  DS_LIST,         /* one window's elements */
  DS_FLAT_MAP,     /* flat_map */
  DS_INTERLEAVE,   /* interleave */
  DS_SLOT,         /* a template's dataset read from a slot */
  DS_N_KINDS
} DatasetKind;

struct TrDataset {
  TrVariant base;        /* tr_dataset_class */
  DatasetKind kind;      /* which fields below are used */
  int n;                 /* components per element */
  TrDType *dtypes;       /* per component (owned) */
  TrShape *shapes;       /* per component, possibly partial (owned) */
  TrTensor **tensors;    /* SLICES, TENSORS: the components (owned references, NULL
                          * entries for slots); LIST: count * n of them */
  int *slots;            /* SLICES, TENSORS: per component its slot or -1; SLOT:
                          * slots[0]; RANGE: start, stop, step (NULL: none) */
  int64_t start;         /* RANGE: first value */
  int64_t stop;          /* RANGE: bound (exclusive) */
  int64_t step;          /* RANGE: never 0 unless read from a slot */
  TrDataset *input;      /* transformations: the transformed dataset (owned) */
  TrDataset **inputs;    /* ZIP, CONCATENATE: the inputs (owned references) */
  int n_inputs;          /* ZIP, CONCATENATE: how many */
  int64_t batch_size;    /* BATCH, PADDED_BATCH: elements per batch, > 0 */
  bool drop_remainder;   /* BATCH, PADDED_BATCH, WINDOW: a last short one is dropped */
  int64_t count;         /* REPEAT, TAKE, SKIP (< 0: all); SHUFFLE: buffer size;
                          * WINDOW: size; LIST: elements */
  int64_t shift, stride; /* WINDOW */
  int64_t cycle, block;  /* INTERLEAVE: cycle_length, block_length */
  uint64_t seed;         /* SHUFFLE */
  bool reshuffle;        /* SHUFFLE: each pass a new order */
  uint64_t passes;       /* SHUFFLE: passes started (mutable) */
  GPtrArray *cache;      /* CACHE: recorded elements, n tensors each (mutable) */
  bool cache_complete;   /* CACHE: a pass recorded every element */
  bool cache_writing;    /* CACHE: a pass is recording now */
  TrShape *padded;       /* PADDED_BATCH: per component (owned) */
  TrTensor **padding;    /* PADDED_BATCH: per component (owned references) */
  TrTensor **initial;    /* SCAN: the initial state (owned references) */
  int n_state;           /* SCAN: state components */
  TrPlan *plan;          /* MAP, FILTER, SCAN, FLAT_MAP, INTERLEAVE (owned) */
  TrDataset *inner;      /* FLAT_MAP, INTERLEAVE: the template (owned) */
  const TrDatasetCallbacks *callbacks; /* CALLBACK: how passes are made (static) */
  void *data;                          /* CALLBACK: passed to the callbacks (destroyed with us) */
};

struct TrIterator {
  TrVariant base;      /* tr_iterator_class */
  TrDataset *ds;       /* owned reference */
  GPtrArray *env;      /* slot values of a template's pass (owned reference), or NULL */
  bool done;           /* at the end (or failed): every next() reports the end */
  int64_t pos;         /* SLICES, TENSORS, LIST, cached replay: the next index; RANGE: the next
                        * value; UNBATCH: the next row */
  int64_t k;           /* REPEAT: passes started; TAKE, SKIP: elements counted; CONCATENATE:
                        * the input being read; WINDOW: input elements still to skip */
  TrTensor **tensors;  /* SLICES, TENSORS: the components (owned); UNBATCH: the current element
                        * (owned, NULL when none); SCAN: the state (owned) */
  int64_t stop, step;  /* RANGE: as read at start */
  TrIterator *input;   /* transformations: the pass over the input (owned); FLAT_MAP: the
                        * inner pass, with `inputs[0]` the pass over the input */
  TrIterator **inputs; /* ZIP, CONCATENATE: per input (owned, NULL entries); INTERLEAVE: the
                        * cycle (owned, NULL entries) */
  int n_inputs;        /* length of `inputs` */
  bool input_end;      /* SHUFFLE, WINDOW, INTERLEAVE: the input has ended */
  int64_t cycle_index; /* INTERLEAVE */
  int64_t block_index; /* INTERLEAVE */
  int64_t open;        /* INTERLEAVE: inner passes open */
  TrIterator *outer;   /* FLAT_MAP, INTERLEAVE: the pass over the input (owned) */
  GPtrArray *buffer;   /* SHUFFLE, WINDOW: elements held, n tensors each (owned) */
  GRand *rng;          /* SHUFFLE (owned) */
  bool writer;         /* CACHE: this pass records */
  bool replay;         /* CACHE: this pass replays the record */
  bool got_any;        /* REPEAT: this pass of the input produced an element */
  void *state;         /* CALLBACK: the pass's state */
  bool started;        /* CALLBACK: start() succeeded, so stop() is due */
};

/* ---- the variant classes -------------------------------------------------------------------- */

static void
unref_tensors(TrTensor **tensors, int64_t n)
{
  if (!tensors)
    return;
  for (int64_t i = 0; i < n; i++)
    if (tensors[i])
      tr_tensor_unref(tensors[i]);
  g_free(tensors);
}

static void
dataset_finalize(TrVariant *v)
{
  TrDataset *ds = (TrDataset *)v;
  unref_tensors(ds->tensors, ds->kind == DS_LIST ? ds->count * ds->n : ds->n);
  g_free(ds->slots);
  g_clear_pointer(&ds->input, tr_dataset_unref);
  for (int i = 0; i < ds->n_inputs; i++)
    tr_dataset_unref(ds->inputs[i]);
  g_free(ds->inputs);
  g_clear_pointer(&ds->cache, g_ptr_array_unref);
  g_free(ds->padded);
  unref_tensors(ds->padding, ds->n);
  unref_tensors(ds->initial, ds->n_state);
  g_clear_pointer(&ds->plan, tr_plan_free);
  g_clear_pointer(&ds->inner, tr_dataset_unref);
  if (ds->callbacks && ds->callbacks->destroy)
    ds->callbacks->destroy(ds->data);
  g_free(ds->dtypes);
  g_free(ds->shapes);
  g_free(ds);
}

static void
iterator_finalize(TrVariant *v)
{
  TrIterator *it = (TrIterator *)v;
  TrDataset *ds = it->ds;
  const TrDatasetCallbacks *cb = ds->callbacks;
  if (it->started && cb && cb->stop)
    cb->stop(ds->data, it->state);
  if (it->writer) { /* an unfinished record is no cache */
    ds->cache_writing = false;
    g_ptr_array_set_size(ds->cache, 0);
  }
  unref_tensors(it->tensors, ds->kind == DS_SCAN ? ds->n_state : ds->n);
  g_clear_pointer(&it->input, tr_iterator_unref);
  g_clear_pointer(&it->outer, tr_iterator_unref);
  for (int i = 0; i < it->n_inputs; i++)
    if (it->inputs[i])
      tr_iterator_unref(it->inputs[i]);
  g_free(it->inputs);
  g_clear_pointer(&it->buffer, g_ptr_array_unref);
  g_clear_pointer(&it->rng, g_rand_free);
  g_clear_pointer(&it->env, g_ptr_array_unref);
  tr_dataset_unref(ds);
  g_free(it);
}

const TrVariantClass tr_dataset_class = {"Dataset", dataset_finalize};
const TrVariantClass tr_iterator_class = {"Iterator", iterator_finalize};

TrDataset *
tr_tensor_get_dataset(const TrTensor *t)
{
  return (TrDataset *)tr_tensor_get_variant(t, &tr_dataset_class);
}

TrIterator *
tr_tensor_get_iterator(const TrTensor *t)
{
  return (TrIterator *)tr_tensor_get_variant(t, &tr_iterator_class);
}

/* ---- making datasets ----------------------------------------------------------------------- */

static TrDataset *
dataset_new(DatasetKind kind, int n)
{
  TrDataset *ds = g_new0(TrDataset, 1);
  tr_variant_init(&ds->base, &tr_dataset_class);
  ds->kind = kind;
  ds->n = n;
  ds->dtypes = g_new0(TrDType, MAX(n, 1));
  ds->shapes = g_new0(TrShape, MAX(n, 1));
  return ds;
}

/* A transformation of `input` with the input's element spec. */
static TrDataset *
dataset_new_unary(DatasetKind kind, TrDataset *input)
{
  TrDataset *ds = dataset_new(kind, input->n);
  ds->input = tr_dataset_ref(input);
  memcpy(ds->dtypes, input->dtypes, sizeof(TrDType) * (size_t)input->n);
  memcpy(ds->shapes, input->shapes, sizeof(TrShape) * (size_t)input->n);
  return ds;
}

/* A dataset holding references to `components`, their dtypes as its own. */
static TrDataset *
dataset_of_tensors(DatasetKind kind, TrTensor *const *components, int n)
{
  TrDataset *ds = dataset_new(kind, n);
  ds->tensors = g_new0(TrTensor *, MAX(n, 1));
  for (int i = 0; i < n; i++) {
    ds->tensors[i] = tr_tensor_ref(components[i]);
    ds->dtypes[i] = components[i]->dtype;
  }
  return ds;
}

/* Everything after dim 0 of a shape (unknown stays unknown). */
static TrShape
shape_tail(const TrShape *s)
{
  if (s->rank == TR_UNKNOWN)
    return tr_shape_unknown();
  return tr_shape_make(s->rank - 1, s->dims + 1);
}

/* `s` with a new first dim `dim` (unknown stays unknown). */
static TrShape
shape_with_batch(const TrShape *s, int64_t dim)
{
  if (s->rank == TR_UNKNOWN || s->rank >= TR_MAX_RANK)
    return tr_shape_unknown();
  TrShape r = {.rank = s->rank + 1};
  r.dims[0] = dim;
  memcpy(r.dims + 1, s->dims, sizeof(int64_t) * (size_t)s->rank);
  return r;
}

static void
set_rank0_error(GError **error)
{
  g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_VALUE,
              "Unbatching a tensor is only supported for rank >= 1");
}

TrDataset *
tr_dataset_new_tensor_slices(TrTensor *const *components, int n, GError **error)
{
  g_return_val_if_fail(n >= 1 && components, NULL);
  for (int i = 0; i < n; i++) {
    if (components[i]->shape.rank >= 1 &&
        components[i]->shape.dims[0] == components[0]->shape.dims[0])
      continue;
    if (components[i]->shape.rank == 0)
      set_rank0_error(error);
    else
      g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_VALUE,
                  "Dimensions %" G_GINT64_FORMAT " and %" G_GINT64_FORMAT " are not compatible",
                  components[0]->shape.dims[0], components[i]->shape.dims[0]);
    return NULL;
  }
  TrDataset *ds = dataset_of_tensors(DS_SLICES, components, n);
  for (int i = 0; i < n; i++)
    ds->shapes[i] = shape_tail(&components[i]->shape);
  return ds;
}

TrDataset *
tr_dataset_new_tensors(TrTensor *const *components, int n)
{
  g_return_val_if_fail(n >= 1 && components, NULL);
  TrDataset *ds = dataset_of_tensors(DS_TENSORS, components, n);
  for (int i = 0; i < n; i++)
    ds->shapes[i] = components[i]->shape;
  return ds;
}

TrDataset *
tr_dataset_new_range(int64_t start, int64_t stop, int64_t step, GError **error)
{
  return tr_dataset_new_range_of(start, stop, step, TR_INT64, error);
}

TrDataset *
tr_dataset_new_range_of(int64_t start, int64_t stop, int64_t step, TrDType dtype, GError **error)
{
  g_return_val_if_fail(tr_dtype_is_numeric(dtype), NULL);
  if (step == 0) {
    g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
                "step must be a non-zero integer. [Op:RangeDataset]");
    return NULL;
  }
  TrDataset *ds = dataset_new(DS_RANGE, 1);
  ds->dtypes[0] = dtype;
  ds->shapes[0] = tr_shape_scalar();
  ds->start = start;
  ds->stop = stop;
  ds->step = step;
  return ds;
}

static bool
check_positive(int64_t v, const char *what, const char *op, GError **error)
{
  if (v > 0)
    return true;
  g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT, "%s must be greater than zero. [Op:%s]",
              what, op);
  return false;
}

TrDataset *
tr_dataset_new_batch(TrDataset *input, int64_t batch_size, bool drop_remainder, GError **error)
{
  g_return_val_if_fail(input != NULL, NULL);
  if (!check_positive(batch_size, "Batch size", "BatchDatasetV2", error))
    return NULL;
  TrDataset *ds = dataset_new_unary(DS_BATCH, input);
  ds->batch_size = batch_size;
  ds->drop_remainder = drop_remainder;
  for (int i = 0; i < input->n; i++)
    ds->shapes[i] = shape_with_batch(&input->shapes[i], drop_remainder ? batch_size : TR_UNKNOWN);
  return ds;
}

/* fn's arguments must take n components of `dtypes`. `what` names the function. */
static bool
check_fn_args(const TrGraph *fn, int n, const TrDType *dtypes, const char *what, GError **error)
{
  if (tr_graph_n_inputs(fn) != n) {
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE,
                "The %s function takes %d argument%s, but the dataset's elements have %d "
                "component%s",
                what, tr_graph_n_inputs(fn), tr_graph_n_inputs(fn) == 1 ? "" : "s", n,
                n == 1 ? "" : "s");
    return false;
  }
  for (int i = 0; i < n; i++) {
    const TrNode *arg = tr_graph_input(fn, i);
    if (arg->dtypes[0] == dtypes[i])
      continue;
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE,
                "The %s function's argument %d ('%s') expects dtype %s, but the dataset's "
                "component %d has dtype %s",
                what, i, arg->name, tr_graph_dtype_name(arg->dtypes[0]), i,
                tr_graph_dtype_name(dtypes[i]));
    return false;
  }
  return true;
}

/* fn copied, optimised and planned. Transfer full. */
static TrPlan *
plan_fn(TrGraph *fn, GError **error)
{
  g_autoptr(TrGraph) copy = tr_graph_copy(fn);
  tr_graph_optimize(copy, TR_OPT_ALL, NULL);
  return tr_plan_new(copy, NULL, 0, error);
}

static TrDType
fn_out_dtype(const TrGraph *fn, int i)
{
  return tr_output_dtype(tr_node_output(tr_graph_output(fn, i), 0));
}

static const TrShape *
fn_out_shape(const TrGraph *fn, int i)
{
  return tr_output_shape(tr_node_output(tr_graph_output(fn, i), 0));
}

TrDataset *
tr_dataset_new_map(TrDataset *input, TrGraph *fn, GError **error)
{
  g_return_val_if_fail(input && fn, NULL);
  if (!check_fn_args(fn, input->n, input->dtypes, "map", error))
    return NULL;
  int n = tr_graph_n_outputs(fn);
  if (n == 0) {
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_VALUE,
                "The map function must return at least one tensor");
    return NULL;
  }
  TrPlan *plan = plan_fn(fn, error);
  if (!plan)
    return NULL;
  TrDataset *ds = dataset_new(DS_MAP, n);
  ds->input = tr_dataset_ref(input);
  ds->plan = plan;
  for (int i = 0; i < n; i++) {
    ds->dtypes[i] = fn_out_dtype(fn, i);
    ds->shapes[i] = *fn_out_shape(fn, i);
  }
  return ds;
}

TrDataset *
tr_dataset_new_callback(const TrDatasetCallbacks *callbacks, void *data, int n,
                        const TrDType *dtypes, const TrShape *shapes)
{
  g_return_val_if_fail(callbacks && callbacks->next && n >= 1, NULL);
  TrDataset *ds = dataset_new(DS_CALLBACK, n);
  ds->callbacks = callbacks;
  ds->data = data;
  memcpy(ds->dtypes, dtypes, sizeof(TrDType) * (size_t)n);
  memcpy(ds->shapes, shapes, sizeof(TrShape) * (size_t)n);
  return ds;
}

TrDataset *
tr_dataset_new_zip(TrDataset *const *inputs, int n_inputs)
{
  g_return_val_if_fail(inputs && n_inputs >= 1, NULL);
  int n = 0;
  for (int k = 0; k < n_inputs; k++)
    n += inputs[k]->n;
  TrDataset *ds = dataset_new(DS_ZIP, n);
  ds->inputs = g_new(TrDataset *, n_inputs);
  ds->n_inputs = n_inputs;
  int at = 0;
  for (int k = 0; k < n_inputs; k++) {
    ds->inputs[k] = tr_dataset_ref(inputs[k]);
    memcpy(ds->dtypes + at, inputs[k]->dtypes, sizeof(TrDType) * (size_t)inputs[k]->n);
    memcpy(ds->shapes + at, inputs[k]->shapes, sizeof(TrShape) * (size_t)inputs[k]->n);
    at += inputs[k]->n;
  }
  return ds;
}

TrDataset *
tr_dataset_new_concatenate(TrDataset *a, TrDataset *b, GError **error)
{
  g_return_val_if_fail(a && b, NULL);
  bool same = a->n == b->n;
  for (int i = 0; same && i < a->n; i++)
    same = a->dtypes[i] == b->dtypes[i];
  if (!same) {
    g_set_error_literal(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE,
                        "Incompatible dataset elements: the component counts or dtypes differ");
    return NULL;
  }
  TrDataset *ds = dataset_new(DS_CONCATENATE, a->n);
  ds->inputs = g_new(TrDataset *, 2);
  ds->inputs[0] = tr_dataset_ref(a);
  ds->inputs[1] = tr_dataset_ref(b);
  ds->n_inputs = 2;
  for (int i = 0; i < a->n; i++) {
    ds->dtypes[i] = a->dtypes[i];
    ds->shapes[i] = tr_shape_most_specific_compatible(&a->shapes[i], &b->shapes[i]);
  }
  return ds;
}

static TrDataset *
counted(DatasetKind kind, TrDataset *input, int64_t count)
{
  g_return_val_if_fail(input != NULL, NULL);
  TrDataset *ds = dataset_new_unary(kind, input);
  ds->count = count < 0 ? -1 : count;
  return ds;
}

TrDataset *
tr_dataset_new_repeat(TrDataset *input, int64_t count)
{
  return counted(DS_REPEAT, input, count);
}

TrDataset *
tr_dataset_new_take(TrDataset *input, int64_t count)
{
  return counted(DS_TAKE, input, count);
}

TrDataset *
tr_dataset_new_skip(TrDataset *input, int64_t count)
{
  return counted(DS_SKIP, input, count);
}

TrDataset *
tr_dataset_new_filter(TrDataset *input, TrGraph *predicate, GError **error)
{
  g_return_val_if_fail(input && predicate, NULL);
  if (!check_fn_args(predicate, input->n, input->dtypes, "filter", error))
    return NULL;
  if (tr_graph_n_outputs(predicate) != 1 || fn_out_dtype(predicate, 0) != TR_BOOL ||
      (fn_out_shape(predicate, 0)->rank != 0 && fn_out_shape(predicate, 0)->rank != TR_UNKNOWN)) {
    g_set_error_literal(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_VALUE,
                        "Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor.");
    return NULL;
  }
  TrPlan *plan = plan_fn(predicate, error);
  if (!plan)
    return NULL;
  TrDataset *ds = dataset_new_unary(DS_FILTER, input);
  ds->plan = plan;
  return ds;
}

TrDataset *
tr_dataset_new_shuffle(TrDataset *input, int64_t buffer_size, uint64_t seed, bool reshuffle,
                       GError **error)
{
  g_return_val_if_fail(input != NULL, NULL);
  if (!check_positive(buffer_size, "buffer_size", "ShuffleDatasetV3", error))
    return NULL;
  TrDataset *ds = dataset_new_unary(DS_SHUFFLE, input);
  ds->count = buffer_size;
  ds->seed = seed;
  ds->reshuffle = reshuffle;
  return ds;
}

TrDataset *
tr_dataset_new_prefetch(TrDataset *input, int64_t buffer_size, GError **error)
{
  g_return_val_if_fail(input != NULL, NULL);
  if (buffer_size < -1) {
    g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
                "buffer_size must be >= 0 or set buffer_size to be -1 for auto-tuning. "
                "[Op:PrefetchDataset]");
    return NULL;
  }
  return dataset_new_unary(DS_PREFETCH, input);
}

TrDataset *
tr_dataset_new_cache(TrDataset *input)
{
  g_return_val_if_fail(input != NULL, NULL);
  TrDataset *ds = dataset_new_unary(DS_CACHE, input);
  ds->cache = g_ptr_array_new_with_free_func((GDestroyNotify)tr_tensor_unref);
  return ds;
}

TrDataset *
tr_dataset_new_unbatch(TrDataset *input, GError **error)
{
  g_return_val_if_fail(input != NULL, NULL);
  for (int i = 0; i < input->n; i++) {
    if (input->shapes[i].rank == 0) {
      set_rank0_error(error);
      return NULL;
    }
  }
  TrDataset *ds = dataset_new_unary(DS_UNBATCH, input);
  for (int i = 0; i < input->n; i++)
    ds->shapes[i] = shape_tail(&input->shapes[i]);
  return ds;
}

TrDataset *
tr_dataset_new_padded_batch(TrDataset *input, int64_t batch_size, const TrShape *padded_shapes,
                            TrTensor *const *padding_values, bool drop_remainder, GError **error)
{
  g_return_val_if_fail(input && padded_shapes && padding_values, NULL);
  if (!check_positive(batch_size, "Batch size", "PaddedBatchDatasetV2", error))
    return NULL;
  TrDataset *ds = dataset_new_unary(DS_PADDED_BATCH, input);
  ds->batch_size = batch_size;
  ds->drop_remainder = drop_remainder;
  ds->padded = g_memdup2(padded_shapes, sizeof(TrShape) * (size_t)MAX(input->n, 1));
  ds->padding = g_new0(TrTensor *, MAX(input->n, 1));
  for (int i = 0; i < input->n; i++) {
    ds->padding[i] = tr_tensor_ref(padding_values[i]);
    ds->shapes[i] = shape_with_batch(&padded_shapes[i], drop_remainder ? batch_size : TR_UNKNOWN);
  }
  return ds;
}

TrDataset *
tr_dataset_new_scan(TrDataset *input, TrTensor *const *initial, int n_state, TrGraph *fn,
                    GError **error)
{
  g_return_val_if_fail(input && fn && n_state >= 1, NULL);
  int n_in = n_state + input->n;
  g_autofree TrDType *in_dtypes = g_new(TrDType, n_in);
  for (int i = 0; i < n_state; i++)
    in_dtypes[i] = initial[i]->dtype;
  memcpy(in_dtypes + n_state, input->dtypes, sizeof(TrDType) * (size_t)input->n);
  if (!check_fn_args(fn, n_in, in_dtypes, "scan", error))
    return NULL;
  int n = tr_graph_n_outputs(fn) - n_state;
  bool ok = n >= 1;
  for (int i = 0; ok && i < n_state; i++)
    ok = fn_out_dtype(fn, i) == initial[i]->dtype;
  if (!ok) {
    g_set_error_literal(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE,
                        "The element types for the new state must match the initial state, and "
                        "the scan function must return (new_state, output_element).");
    return NULL;
  }
  TrPlan *plan = plan_fn(fn, error);
  if (!plan)
    return NULL;
  TrDataset *ds = dataset_new(DS_SCAN, n);
  ds->input = tr_dataset_ref(input);
  ds->plan = plan;
  ds->n_state = n_state;
  ds->initial = g_new(TrTensor *, n_state);
  for (int i = 0; i < n_state; i++)
    ds->initial[i] = tr_tensor_ref(initial[i]);
  for (int i = 0; i < n; i++) {
    ds->dtypes[i] = fn_out_dtype(fn, n_state + i);
    ds->shapes[i] = *fn_out_shape(fn, n_state + i);
  }
  return ds;
}

TrDataset *
tr_dataset_new_window(TrDataset *input, int64_t size, int64_t shift, int64_t stride,
                      bool drop_remainder, GError **error)
{
  g_return_val_if_fail(input != NULL, NULL);
  if (!check_positive(size, "Window size", "WindowDataset", error) ||
      !check_positive(shift, "Window shift", "WindowDataset", error) ||
      !check_positive(stride, "Window stride", "WindowDataset", error))
    return NULL;
  TrDataset *ds = dataset_new(DS_WINDOW, input->n);
  ds->input = tr_dataset_ref(input);
  ds->count = size;
  ds->shift = shift;
  ds->stride = stride;
  ds->drop_remainder = drop_remainder;
  for (int i = 0; i < input->n; i++) {
    ds->dtypes[i] = TR_VARIANT;
    ds->shapes[i] = tr_shape_scalar();
  }
  return ds;
}

/* One window's component `i`: the list of tensors elements[k * n + i], k < count. */
static TrDataset *
list_new(const TrDataset *window, int i, TrTensor **elements, int n, int64_t count)
{
  TrDataset *ds = dataset_new(DS_LIST, 1);
  ds->dtypes[0] = window->input->dtypes[i];
  ds->shapes[0] = window->input->shapes[i];
  ds->count = count;
  ds->tensors = g_new0(TrTensor *, MAX(count, 1));
  for (int64_t k = 0; k < count; k++)
    ds->tensors[k] = tr_tensor_ref(elements[k * n + i]);
  return ds;
}

static TrDataset *
nested_new(DatasetKind kind, TrDataset *input, TrGraph *fn, TrDataset *inner, GError **error)
{
  g_return_val_if_fail(input && fn && inner, NULL);
  if (!check_fn_args(fn, input->n, input->dtypes, kind == DS_FLAT_MAP ? "flat_map" : "interleave",
                     error))
    return NULL;
  TrPlan *plan = tr_graph_n_outputs(fn) > 0 ? plan_fn(fn, error) : NULL;
  if (tr_graph_n_outputs(fn) > 0 && !plan)
    return NULL;
  TrDataset *ds = dataset_new(kind, inner->n);
  ds->input = tr_dataset_ref(input);
  ds->inner = tr_dataset_ref(inner);
  ds->plan = plan;
  memcpy(ds->dtypes, inner->dtypes, sizeof(TrDType) * (size_t)inner->n);
  memcpy(ds->shapes, inner->shapes, sizeof(TrShape) * (size_t)inner->n);
  return ds;
}

TrDataset *
tr_dataset_new_flat_map(TrDataset *input, TrGraph *fn, TrDataset *inner, GError **error)
{
  return nested_new(DS_FLAT_MAP, input, fn, inner, error);
}

TrDataset *
tr_dataset_new_interleave(TrDataset *input, TrGraph *fn, TrDataset *inner, int64_t cycle_length,
                          int64_t block_length, GError **error)
{
  if (!check_positive(cycle_length, "cycle_length", "InterleaveDataset", error) ||
      !check_positive(block_length, "block_length", "InterleaveDataset", error))
    return NULL;
  TrDataset *ds = nested_new(DS_INTERLEAVE, input, fn, inner, error);
  if (ds) {
    ds->cycle = cycle_length;
    ds->block = block_length;
  }
  return ds;
}

TrDataset *
tr_dataset_new_slot_dataset(int slot, int n, const TrDType *dtypes, const TrShape *shapes)
{
  g_return_val_if_fail(slot >= 0 && n >= 1, NULL);
  TrDataset *ds = dataset_new(DS_SLOT, n);
  ds->slots = g_new(int, 1);
  ds->slots[0] = slot;
  memcpy(ds->dtypes, dtypes, sizeof(TrDType) * (size_t)n);
  memcpy(ds->shapes, shapes, sizeof(TrShape) * (size_t)n);
  return ds;
}

TrDataset *
tr_dataset_new_slot_tensors(bool slices, const int *slots, int n, const TrDType *dtypes,
                            const TrShape *shapes, GError **error)
{
  g_return_val_if_fail(n >= 1 && slots, NULL);
  for (int i = 0; slices && i < n; i++) {
    if (shapes[i].rank == 0) {
      set_rank0_error(error);
      return NULL;
    }
  }
  TrDataset *ds = dataset_new(slices ? DS_SLICES : DS_TENSORS, n);
  ds->tensors = g_new0(TrTensor *, n);
  ds->slots = g_memdup2(slots, sizeof(int) * (size_t)n);
  memcpy(ds->dtypes, dtypes, sizeof(TrDType) * (size_t)n);
  for (int i = 0; i < n; i++)
    ds->shapes[i] = slices ? shape_tail(&shapes[i]) : shapes[i];
  return ds;
}

TrDataset *
tr_dataset_new_slot_range(const int64_t *values, const int *slots, TrDType dtype)
{
  g_return_val_if_fail(tr_dtype_is_numeric(dtype), NULL);
  TrDataset *ds = dataset_new(DS_RANGE, 1);
  ds->dtypes[0] = dtype;
  ds->shapes[0] = tr_shape_scalar();
  ds->start = values[0];
  ds->stop = values[1];
  ds->step = values[2];
  ds->slots = g_memdup2(slots, sizeof(int) * 3);
  return ds;
}

bool
tr_dataset_is_template(const TrDataset *ds)
{
  if (ds->slots) /* (an inner template of flat_map is not its slots' reader) */
    return true;
  if (ds->input && tr_dataset_is_template(ds->input))
    return true;
  for (int i = 0; i < ds->n_inputs; i++)
    if (tr_dataset_is_template(ds->inputs[i]))
      return true;
  return false;
}

int
tr_dataset_n_components(const TrDataset *ds)
{
  return ds->n;
}

TrDType
tr_dataset_dtype(const TrDataset *ds, int i)
{
  g_return_val_if_fail(i >= 0 && i < ds->n, TR_DTYPE_INVALID);
  return ds->dtypes[i];
}

const TrShape *
tr_dataset_shape(const TrDataset *ds, int i)
{
  g_return_val_if_fail(i >= 0 && i < ds->n, NULL);
  return &ds->shapes[i];
}

/* ---- one row per kind: starting a pass, the next element, the element count ----------------- */

typedef struct {
  /* Sets up a new pass (it->ds and it->env are set; the rest zero). NULL: nothing to do. */
  bool (*start)(TrIterator *it, GError **error);
  /* The next element into out[0..n-1], or *end. */
  bool (*next)(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx, GError **error);
  int64_t (*cardinality)(const TrDataset *ds);
} KindDef;

static TrIterator *iterator_new_env(TrDataset *ds, GPtrArray *env, GError **error);

/* Row k of `t` (rank >= 1) as a view. Transfer full. */
static TrTensor *
row_view(TrTensor *t, int64_t k)
{
  TrShape s = shape_tail(&t->shape);
  return tr_tensor_new_view(t->buf, t->dtype, &s, t->strides + 1, t->offset + k * t->strides[0]);
}

/* Slot `slot` of the pass's values. Borrowed, or NULL with an error. */
static TrTensor *
slot_value(const TrIterator *it, int slot, GError **error)
{
  if (it->env && slot >= 0 && (guint)slot < it->env->len)
    return g_ptr_array_index(it->env, slot);
  g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
              "a dataset made inside a dataset function can only be iterated by that function's "
              "transformation");
  return NULL;
}

/* SLICES, TENSORS: the components, the dataset's or its slots'. */
static bool
tensors_start(TrIterator *it, GError **error)
{
  const TrDataset *ds = it->ds;
  it->tensors = g_new0(TrTensor *, ds->n);
  for (int i = 0; i < ds->n; i++) {
    TrTensor *t = ds->slots ? slot_value(it, ds->slots[i], error) : ds->tensors[i];
    if (!t)
      return false;
    it->tensors[i] = tr_tensor_ref(t);
  }
  if (ds->kind != DS_SLICES || !ds->slots)
    return true;
  for (int i = 0; i < ds->n; i++) {
    const TrShape *s = &it->tensors[i]->shape;
    if (s->rank >= 1 && s->dims[0] == it->tensors[0]->shape.dims[0])
      continue;
    g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
                "All components must have the same size in the 0th dimension");
    return false;
  }
  return true;
}

static bool
slices_next(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx, GError **error)
{
  const TrDataset *ds = it->ds;
  if (it->pos >= it->tensors[0]->shape.dims[0]) {
    *end = true;
    return true;
  }
  for (int i = 0; i < ds->n; i++)
    out[i] = row_view(it->tensors[i], it->pos);
  it->pos++;
  return true;
}

static int64_t
slices_cardinality(const TrDataset *ds)
{
  return ds->slots ? TR_DATASET_UNKNOWN_CARDINALITY : ds->tensors[0]->shape.dims[0];
}

static bool
tensors_next(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx, GError **error)
{
  if (it->pos > 0) {
    *end = true;
    return true;
  }
  for (int i = 0; i < it->ds->n; i++)
    out[i] = tr_tensor_ref(it->tensors[i]);
  it->pos = 1;
  return true;
}

static int64_t
tensors_cardinality(const TrDataset *ds)
{
  return 1;
}

static bool
range_start(TrIterator *it, GError **error)
{
  const TrDataset *ds = it->ds;
  int64_t v[3] = {ds->start, ds->stop, ds->step};
  for (int k = 0; ds->slots && k < 3; k++) {
    if (ds->slots[k] < 0)
      continue;
    TrTensor *t = slot_value(it, ds->slots[k], error);
    if (!t)
      return false;
    v[k] = tr_tensor_get_i64(t, 0);
  }
  if (v[2] == 0) {
    g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
                "step must be a non-zero integer. [Op:RangeDataset]");
    return false;
  }
  it->pos = v[0];
  it->stop = v[1];
  it->step = v[2];
  return true;
}

static bool
range_next(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx, GError **error)
{
  if (it->step > 0 ? it->pos >= it->stop : it->pos <= it->stop) {
    *end = true;
    return true;
  }
  out[0] = tr_tensor_new_int64(it->pos);
  if (it->ds->dtypes[0] != TR_INT64) {
    TrAttrs attrs;
    tr_attrs_init(&attrs);
    attrs.dtype = it->ds->dtypes[0];
    TrTensor *cast = tr_op_run(TR_OP_CAST, out, 1, &attrs, error);
    g_clear_pointer(&out[0], tr_tensor_unref);
    if (!cast)
      return false;
    out[0] = cast;
  }
  /* A step past the stop may overflow: the position then is the stop itself. The distance
   * left is computed unsigned, as it may exceed G_MAXINT64. */
  uint64_t left = it->step > 0 ? (uint64_t)it->stop - (uint64_t)it->pos
                               : (uint64_t)it->pos - (uint64_t)it->stop;
  uint64_t step = it->step > 0 ? (uint64_t)it->step : -(uint64_t)it->step;
  it->pos = left <= step ? it->stop : it->pos + it->step;
  return true;
}

static int64_t
range_cardinality(const TrDataset *ds)
{
  if (ds->slots)
    return TR_DATASET_UNKNOWN_CARDINALITY;
  if (ds->step > 0 ? ds->stop <= ds->start : ds->stop >= ds->start)
    return 0;
  /* In unsigned arithmetic, so that extreme int64 bounds cannot overflow. */
  uint64_t span = ds->step > 0 ? (uint64_t)ds->stop - (uint64_t)ds->start
                               : (uint64_t)ds->start - (uint64_t)ds->stop;
  uint64_t step = ds->step > 0 ? (uint64_t)ds->step : -(uint64_t)ds->step;
  uint64_t n = span / step + (span % step != 0);
  return n > (uint64_t)G_MAXINT64 ? G_MAXINT64 : (int64_t)n;
}

static bool
input_start(TrIterator *it, GError **error)
{
  it->input = iterator_new_env(it->ds->input, it->env, error);
  return it->input != NULL;
}

/* The next element of the input pass. */
static bool
pull(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx, GError **error)
{
  return tr_iterator_next(it->input, out, end, ctx, error);
}

/* Appends an element's n tensors (stolen) to `array`. */
static void
push_element(GPtrArray *array, TrTensor **element, int n)
{
  for (int i = 0; i < n; i++)
    g_ptr_array_add(array, element[i]);
}

/* "[2,3]" */
static bool
check_batch_shapes(TrTensor **items, int n_items, int component, GError **error)
{
  for (int k = 1; k < n_items; k++) {
    if (tr_shape_equal(&items[0]->shape, &items[k]->shape))
      continue;
    g_autofree char *first = tr_shape_to_error_string(&items[0]->shape);
    g_autofree char *other = tr_shape_to_error_string(&items[k]->shape);
    g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
                "Cannot batch tensors with different shapes in component %d. First element had "
                "shape %s and element %d had shape %s.",
                component, first, k, other);
    return false;
  }
  return true;
}

/* Stacks component i of each of `n_items` elements (items[k * n + i]) into out[i]. */
static bool
stack_batch(int n, TrTensor **items, int n_items, TrTensor **out, GError **error)
{
  g_autofree TrTensor **column = g_new(TrTensor *, n_items);
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.axis = 0;
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < n_items; k++)
      column[k] = items[k * n + i];
    if (!check_batch_shapes(column, n_items, i, error))
      goto fail;
    out[i] = tr_op_run(TR_OP_STACK, column, n_items, &attrs, error);
    if (!out[i])
      goto fail;
    continue;
  fail:
    for (int j = 0; j < i; j++)
      g_clear_pointer(&out[j], tr_tensor_unref);
    return false;
  }
  return true;
}

/* Up to batch_size elements of the input into `items`; false on error. *got receives the count;
 * *end is set when there is no batch to make. */
static bool
collect_batch(TrIterator *it, GPtrArray *items, int64_t *got, bool *end, const TrRunContext *ctx,
              GError **error)
{
  const TrDataset *ds = it->ds;
  int n = ds->input->n;
  g_autofree TrTensor **one = g_new0(TrTensor *, n);
  *got = 0;
  while (*got < ds->batch_size) {
    bool input_end = false;
    if (!pull(it, one, &input_end, ctx, error))
      return false;
    if (input_end)
      break;
    push_element(items, one, n);
    (*got)++;
  }
  *end = *got == 0 || (*got < ds->batch_size && ds->drop_remainder);
  return true;
}

static bool
batch_next(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx, GError **error)
{
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func((GDestroyNotify)tr_tensor_unref);
  int64_t got;
  if (!collect_batch(it, items, &got, end, ctx, error))
    return false;
  if (*end)
    return true;
  return stack_batch(it->ds->n, (TrTensor **)items->pdata, (int)got, out, error);
}

static int64_t
batch_cardinality(const TrDataset *ds)
{
  int64_t n = tr_dataset_cardinality(ds->input);
  if (n < 0)
    return n;
  return ds->drop_remainder ? n / ds->batch_size : (n + ds->batch_size - 1) / ds->batch_size;
}

/* Runs `plan` on n_in tensors (borrowed) into out. */
static bool
run_plan(TrPlan *plan, TrTensor **in, int n_in, TrTensor **out, const TrRunContext *ctx,
         GError **error)
{
  return tr_plan_run(plan, in, n_in, out, ctx, error);
}

static bool
map_next(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx, GError **error)
{
  const TrDataset *ds = it->ds;
  int n_in = ds->input->n;
  g_autofree TrTensor **in = g_new0(TrTensor *, n_in);
  if (!pull(it, in, end, ctx, error))
    return false;
  if (*end)
    return true;
  bool ok = run_plan(ds->plan, in, n_in, out, ctx, error);
  for (int i = 0; i < n_in; i++)
    tr_tensor_unref(in[i]);
  return ok;
}

static int64_t
input_cardinality(const TrDataset *ds)
{
  return tr_dataset_cardinality(ds->input);
}

static bool
callback_start(TrIterator *it, GError **error)
{
  bool failed = false;
  it->state =
      it->ds->callbacks->start ? it->ds->callbacks->start(it->ds->data, &failed, error) : NULL;
  it->started = !failed;
  return !failed;
}

/* A component the caller produced must fit the declared spec. */
static bool
check_component(const TrDataset *ds, int i, const TrTensor *t, GError **error)
{
  if (t->dtype != ds->dtypes[i]) {
    g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
                "TypeError: `generator` yielded an element of type %s where an element of type "
                "%s was expected.",
                tr_dtype_name(t->dtype), tr_dtype_name(ds->dtypes[i]));
    return false;
  }
  if (tr_shape_is_compatible_with(&ds->shapes[i], &t->shape))
    return true;
  g_autofree char *got = tr_shape_to_string(&t->shape);
  g_autofree char *want = tr_shape_to_string(&ds->shapes[i]);
  g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
              "`generator` yielded an element of shape %s where an element of shape %s was "
              "expected.",
              got, want);
  return false;
}

static bool
callback_next(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx, GError **error)
{
  const TrDataset *ds = it->ds;
  if (!ds->callbacks->next(ds->data, it->state, out, end, error))
    return false;
  for (int i = 0; !*end && i < ds->n; i++) {
    if (check_component(ds, i, out[i], error))
      continue;
    for (int j = 0; j < ds->n; j++)
      g_clear_pointer(&out[j], tr_tensor_unref);
    return false;
  }
  return true;
}

static int64_t
unknown_cardinality(const TrDataset *ds)
{
  return TR_DATASET_UNKNOWN_CARDINALITY;
}

/* ---- zip and concatenate ---- */

static bool
inputs_start(TrIterator *it, GError **error)
{
  const TrDataset *ds = it->ds;
  it->n_inputs = ds->n_inputs;
  it->inputs = g_new0(TrIterator *, ds->n_inputs);
  /* A concatenation starts its second input once the first has ended. */
  int n_start = ds->kind == DS_ZIP ? ds->n_inputs : 1;
  for (int k = 0; k < n_start; k++) {
    it->inputs[k] = iterator_new_env(ds->inputs[k], it->env, error);
    if (!it->inputs[k])
      return false;
  }
  return true;
}

static bool
zip_next(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx, GError **error)
{
  const TrDataset *ds = it->ds;
  int at = 0;
  for (int k = 0; k < ds->n_inputs; k++) {
    bool ok = tr_iterator_next(it->inputs[k], out + at, end, ctx, error);
    if (!ok || *end) {
      for (int j = 0; j < at; j++)
        g_clear_pointer(&out[j], tr_tensor_unref);
      return ok;
    }
    at += ds->inputs[k]->n;
  }
  return true;
}

static int64_t
zip_cardinality(const TrDataset *ds)
{
  int64_t r = TR_DATASET_INFINITE_CARDINALITY;
  for (int k = 0; k < ds->n_inputs; k++) {
    int64_t n = tr_dataset_cardinality(ds->inputs[k]);
    if (n == TR_DATASET_UNKNOWN_CARDINALITY)
      return n;
    if (n != TR_DATASET_INFINITE_CARDINALITY && (r < 0 || n < r))
      r = n;
  }
  return r;
}

static bool
concatenate_next(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx, GError **error)
{
  if (!tr_iterator_next(it->inputs[it->k], out, end, ctx, error))
    return false;
  if (!*end || it->k == 1)
    return true;
  it->k = 1;
  it->inputs[1] = iterator_new_env(it->ds->inputs[1], it->env, error);
  if (!it->inputs[1])
    return false;
  return tr_iterator_next(it->inputs[1], out, end, ctx, error);
}

static int64_t
concatenate_cardinality(const TrDataset *ds)
{
  int64_t a = tr_dataset_cardinality(ds->inputs[0]), b = tr_dataset_cardinality(ds->inputs[1]);
  if (a == TR_DATASET_UNKNOWN_CARDINALITY || b == TR_DATASET_UNKNOWN_CARDINALITY)
    return TR_DATASET_UNKNOWN_CARDINALITY;
  if (a == TR_DATASET_INFINITE_CARDINALITY || b == TR_DATASET_INFINITE_CARDINALITY)
    return TR_DATASET_INFINITE_CARDINALITY;
  return a + b;
}

/* ---- repeat, take, skip, filter, prefetch ---- */

static bool
repeat_start(TrIterator *it, GError **error)
{
  if (it->ds->count == 0)
    return true;
  it->k = 1;
  return input_start(it, error);
}

static bool
repeat_next(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx, GError **error)
{
  const TrDataset *ds = it->ds;
  for (;;) {
    if (!it->input) {
      *end = true;
      return true;
    }
    if (!pull(it, out, end, ctx, error))
      return false;
    if (!*end) {
      it->got_any = true;
      return true;
    }
    *end = false;
    g_clear_pointer(&it->input, tr_iterator_unref);
    /* An empty input would repeat forever without an element: it ends the repetition too. */
    if (!it->got_any || (ds->count >= 0 && it->k >= ds->count))
      continue;
    it->k++;
    it->got_any = false;
    if (!input_start(it, error))
      return false;
  }
}

static int64_t
repeat_cardinality(const TrDataset *ds)
{
  int64_t n = tr_dataset_cardinality(ds->input);
  if (ds->count < 0)
    return n == 0 ? 0 : TR_DATASET_INFINITE_CARDINALITY;
  if (ds->count == 0 || n == 0)
    return 0;
  if (n < 0)
    return n;
  return n > G_MAXINT64 / ds->count ? G_MAXINT64 : n * ds->count;
}

static bool
take_next(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx, GError **error)
{
  if (it->ds->count >= 0 && it->k >= it->ds->count) {
    *end = true;
    return true;
  }
  it->k++;
  return pull(it, out, end, ctx, error);
}

static int64_t
take_cardinality(const TrDataset *ds)
{
  int64_t n = tr_dataset_cardinality(ds->input);
  if (ds->count < 0)
    return n;
  if (n == TR_DATASET_INFINITE_CARDINALITY)
    return ds->count;
  if (n == TR_DATASET_UNKNOWN_CARDINALITY)
    return n;
  return MIN(n, ds->count);
}

static bool
skip_next(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx, GError **error)
{
  const TrDataset *ds = it->ds;
  while (ds->count < 0 || it->k < ds->count) {
    if (!pull(it, out, end, ctx, error))
      return false;
    if (*end)
      return true;
    for (int i = 0; i < ds->n; i++)
      g_clear_pointer(&out[i], tr_tensor_unref);
    it->k++;
  }
  return pull(it, out, end, ctx, error);
}

static int64_t
skip_cardinality(const TrDataset *ds)
{
  int64_t n = tr_dataset_cardinality(ds->input);
  if (n < 0)
    return n;
  if (ds->count < 0)
    return 0;
  return MAX(0, n - ds->count);
}

static bool
filter_next(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx, GError **error)
{
  const TrDataset *ds = it->ds;
  for (;;) {
    if (!pull(it, out, end, ctx, error))
      return false;
    if (*end)
      return true;
    TrTensor *keep = NULL;
    bool ok = run_plan(ds->plan, out, ds->n, &keep, ctx, error);
    bool yes = ok && tr_tensor_num_elements(keep) == 1 && tr_tensor_get_i64(keep, 0) != 0;
    if (keep)
      tr_tensor_unref(keep);
    if (ok && yes)
      return true;
    for (int i = 0; i < ds->n; i++)
      g_clear_pointer(&out[i], tr_tensor_unref);
    if (!ok)
      return false;
  }
}

static bool
passthrough_next(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx, GError **error)
{
  return pull(it, out, end, ctx, error);
}

/* ---- shuffle ---- */

/* The buffer's free function: a moved-out element leaves NULL behind. */
static void
tensor_unref0(gpointer t)
{
  if (t)
    tr_tensor_unref(t);
}

static bool
shuffle_start(TrIterator *it, GError **error)
{
  TrDataset *ds = it->ds;
  uint64_t pass = ds->reshuffle ? ds->passes++ : 0;
  guint32 seed[4] = {(guint32)ds->seed, (guint32)(ds->seed >> 32), (guint32)pass,
                     (guint32)(pass >> 32)};
  it->rng = g_rand_new_with_seed_array(seed, 4);
  it->buffer = g_ptr_array_new_with_free_func(tensor_unref0);
  return input_start(it, error);
}

static bool
shuffle_next(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx, GError **error)
{
  const TrDataset *ds = it->ds;
  int n = ds->n;
  while (!it->input_end && (int64_t)it->buffer->len / n < ds->count) {
    if (!pull(it, out, &it->input_end, ctx, error))
      return false;
    if (!it->input_end)
      push_element(it->buffer, out, n);
  }
  int64_t held = it->buffer->len / n;
  if (held == 0) {
    *end = true;
    return true;
  }
  int64_t pick = held == 1 ? 0 : g_rand_int_range(it->rng, 0, (gint32)MIN(held, G_MAXINT32));
  TrTensor **slots = (TrTensor **)it->buffer->pdata;
  /* The picked element leaves; the last one takes its place. */
  for (int i = 0; i < n; i++) {
    out[i] = slots[pick * n + i];
    slots[pick * n + i] = slots[(held - 1) * n + i];
    slots[(held - 1) * n + i] = NULL;
  }
  g_ptr_array_set_size(it->buffer, (guint)((held - 1) * n));
  return true;
}

/* ---- cache ---- */

static bool
cache_start(TrIterator *it, GError **error)
{
  TrDataset *ds = it->ds;
  if (ds->cache_complete) {
    it->replay = true;
    return true;
  }
  if (!ds->cache_writing) {
    ds->cache_writing = true;
    it->writer = true;
    g_ptr_array_set_size(ds->cache, 0);
  }
  return input_start(it, error);
}

static bool
cache_next(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx, GError **error)
{
  TrDataset *ds = it->ds;
  int n = ds->n;
  if (it->replay) {
    if (it->pos * n >= (int64_t)ds->cache->len) {
      *end = true;
      return true;
    }
    for (int i = 0; i < n; i++)
      out[i] = tr_tensor_ref(g_ptr_array_index(ds->cache, it->pos * n + i));
    it->pos++;
    return true;
  }
  if (!pull(it, out, end, ctx, error))
    return false;
  if (!it->writer)
    return true;
  if (*end) {
    ds->cache_complete = true;
    ds->cache_writing = false;
    it->writer = false;
    return true;
  }
  for (int i = 0; i < n; i++)
    g_ptr_array_add(ds->cache, tr_tensor_ref(out[i]));
  return true;
}

/* ---- unbatch ---- */

static bool
unbatch_next(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx, GError **error)
{
  const TrDataset *ds = it->ds;
  int n = ds->n;
  while (!it->tensors || it->pos >= it->tensors[0]->shape.dims[0]) {
    if (!it->tensors)
      it->tensors = g_new0(TrTensor *, n);
    for (int i = 0; i < n; i++)
      g_clear_pointer(&it->tensors[i], tr_tensor_unref);
    if (!pull(it, it->tensors, end, ctx, error))
      return false;
    if (*end)
      return true;
    it->pos = 0;
    for (int i = 0; i < n; i++) {
      const TrShape *s = &it->tensors[i]->shape;
      if (s->rank >= 1 && s->dims[0] == it->tensors[0]->shape.dims[0])
        continue;
      g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
                  "Input element must have a non-scalar value in each component and the same "
                  "size in the 0th dimension of each component.");
      return false;
    }
  }
  for (int i = 0; i < n; i++)
    out[i] = row_view(it->tensors[i], it->pos);
  it->pos++;
  return true;
}

/* ---- padded_batch ---- */

/* The padded shape of component i for a batch of `got` elements (items[k * n + i]). */
static bool
padded_shape(const TrDataset *ds, int i, TrTensor **items, int64_t got, TrShape *out,
             GError **error)
{
  int n = ds->n;
  const TrShape *want = &ds->padded[i];
  TrShape s = {.rank = want->rank};
  if (want->rank == TR_UNKNOWN)
    s.rank = items[i]->shape.rank;
  for (int64_t k = 0; k < got; k++) {
    const TrShape *e = &items[k * n + i]->shape;
    if (e->rank != s.rank) {
      g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
                  "All elements in a batch must have the same rank as the padded shape for "
                  "component%d: expected rank %d but got element with rank %d",
                  i, s.rank, e->rank);
      return false;
    }
    for (int d = 0; d < s.rank; d++) {
      int64_t fixed = want->rank == TR_UNKNOWN ? TR_UNKNOWN : want->dims[d];
      if (fixed >= 0 && e->dims[d] > fixed) {
        g_set_error_literal(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
                            "Attempted to pad to a smaller size than the input element.");
        return false;
      }
      s.dims[d] = fixed >= 0 ? fixed : MAX(k == 0 ? 0 : s.dims[d], e->dims[d]);
    }
  }
  *out = s;
  return true;
}

/* Component i of a padded batch: the padding value everywhere, each element in its corner. */
static TrTensor *
pad_component(const TrDataset *ds, int i, TrTensor **items, int64_t got, GError **error)
{
  TrShape elem;
  if (!padded_shape(ds, i, items, got, &elem, error))
    return NULL;
  TrShape shape = shape_with_batch(&elem, got);
  TrTensor *out = tr_tensor_try_new_uninit(ds->dtypes[i], &shape, error);
  if (!out)
    return NULL;
  int64_t zero[TR_MAX_RANK] = {0};
  TrTensor *pad = ds->padding[i];
  g_autoptr(TrTensor) fill = tr_tensor_new_view(pad->buf, pad->dtype, &shape, zero, pad->offset);
  tr_tensor_copy_into(out, fill);
  for (int64_t k = 0; k < got; k++) {
    TrTensor *e = items[k * ds->n + i];
    g_autoptr(TrTensor) corner =
        tr_tensor_new_view(out->buf, out->dtype, &e->shape, out->strides + 1, k * out->strides[0]);
    tr_tensor_copy_into(corner, e);
  }
  return out;
}

static bool
padded_batch_next(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx,
                  GError **error)
{
  const TrDataset *ds = it->ds;
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func((GDestroyNotify)tr_tensor_unref);
  int64_t got;
  if (!collect_batch(it, items, &got, end, ctx, error))
    return false;
  if (*end)
    return true;
  for (int i = 0; i < ds->n; i++) {
    out[i] = pad_component(ds, i, (TrTensor **)items->pdata, got, error);
    if (out[i])
      continue;
    for (int j = 0; j < i; j++)
      g_clear_pointer(&out[j], tr_tensor_unref);
    return false;
  }
  return true;
}

/* ---- scan ---- */

static bool
scan_start(TrIterator *it, GError **error)
{
  const TrDataset *ds = it->ds;
  it->tensors = g_new(TrTensor *, ds->n_state);
  for (int i = 0; i < ds->n_state; i++)
    it->tensors[i] = tr_tensor_ref(ds->initial[i]);
  return input_start(it, error);
}

static bool
scan_next(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx, GError **error)
{
  const TrDataset *ds = it->ds;
  int n_state = ds->n_state, n_in = ds->input->n;
  g_autofree TrTensor **in = g_new0(TrTensor *, n_state + n_in);
  g_autofree TrTensor **res = g_new0(TrTensor *, n_state + ds->n);
  if (!pull(it, in + n_state, end, ctx, error))
    return false;
  if (*end)
    return true;
  memcpy(in, it->tensors, sizeof(TrTensor *) * (size_t)n_state);
  bool ok = run_plan(ds->plan, in, n_state + n_in, res, ctx, error);
  for (int i = 0; i < n_in; i++)
    tr_tensor_unref(in[n_state + i]);
  if (!ok)
    return false;
  for (int i = 0; i < n_state; i++) {
    tr_tensor_unref(it->tensors[i]);
    it->tensors[i] = res[i];
  }
  memcpy(out, res + n_state, sizeof(TrTensor *) * (size_t)ds->n);
  return true;
}

/* ---- window ---- */

static bool
window_start(TrIterator *it, GError **error)
{
  it->buffer = g_ptr_array_new_with_free_func((GDestroyNotify)tr_tensor_unref);
  return input_start(it, error);
}

static bool
window_next(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx, GError **error)
{
  const TrDataset *ds = it->ds;
  int n = ds->n;
  g_autofree TrTensor **one = g_new0(TrTensor *, n);
  /* Input elements a previous shift went past. */
  while (it->k > 0 && !it->input_end) {
    if (!pull(it, one, &it->input_end, ctx, error))
      return false;
    for (int i = 0; !it->input_end && i < n; i++)
      tr_tensor_unref(one[i]);
    it->k--;
  }
  int64_t target = (ds->count - 1) * ds->stride + 1;
  while (!it->input_end && (int64_t)it->buffer->len / n < target) {
    if (!pull(it, one, &it->input_end, ctx, error))
      return false;
    if (!it->input_end)
      push_element(it->buffer, one, n);
  }
  int64_t held = it->buffer->len / n;
  if (held == 0 || (ds->drop_remainder && held < target)) {
    *end = true;
    return true;
  }
  /* Elements 0, stride, 2 * stride... of the buffer, as one dataset per component. */
  int64_t count = (MIN(held, target) - 1) / ds->stride + 1;
  g_autofree TrTensor **picked = g_new(TrTensor *, count * n);
  for (int64_t k = 0; k < count; k++)
    for (int i = 0; i < n; i++)
      picked[k * n + i] = g_ptr_array_index(it->buffer, k * ds->stride * n + i);
  for (int i = 0; i < n; i++) {
    TrDataset *w = list_new(ds, i, picked, n, count);
    out[i] = tr_tensor_new_variant(&w->base);
    tr_dataset_unref(w);
  }
  int64_t drop = MIN(held, ds->shift);
  g_ptr_array_remove_range(it->buffer, 0, (guint)(drop * n));
  it->k = ds->shift - drop;
  return true;
}

static int64_t
window_cardinality(const TrDataset *ds)
{
  int64_t n = tr_dataset_cardinality(ds->input);
  if (n < 0)
    return n;
  if (!ds->drop_remainder)
    return n / ds->shift + (n % ds->shift != 0);
  int64_t rest = n - ((ds->count - 1) * ds->stride + 1);
  return rest < 0 ? 0 : rest / ds->shift + 1;
}

static bool
list_next(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx, GError **error)
{
  const TrDataset *ds = it->ds;
  if (it->pos >= ds->count) {
    *end = true;
    return true;
  }
  for (int i = 0; i < ds->n; i++)
    out[i] = tr_tensor_ref(ds->tensors[it->pos * ds->n + i]);
  it->pos++;
  return true;
}

static int64_t
list_cardinality(const TrDataset *ds)
{
  return ds->count;
}

/* ---- flat_map and interleave ---- */

static bool
nested_start(TrIterator *it, GError **error)
{
  it->outer = iterator_new_env(it->ds->input, it->env, error);
  if (!it->outer)
    return false;
  if (it->ds->kind == DS_INTERLEAVE) {
    it->n_inputs = (int)MIN(it->ds->cycle, G_MAXINT / 2);
    it->inputs = g_new0(TrIterator *, it->n_inputs);
  }
  return true;
}

/* A pass over the inner dataset of the outer pass's next element, or NULL at its end (*end) or
 * on error. */
static TrIterator *
open_inner(TrIterator *it, bool *end, const TrRunContext *ctx, GError **error)
{
  const TrDataset *ds = it->ds;
  int n_in = ds->input->n;
  g_autofree TrTensor **in = g_new0(TrTensor *, n_in);
  *end = false;
  if (!tr_iterator_next(it->outer, in, end, ctx, error) || *end)
    return NULL;
  int n_slots = ds->plan ? tr_plan_n_outputs(ds->plan) : 0;
  GPtrArray *env = g_ptr_array_new_full((guint)n_slots, (GDestroyNotify)tr_tensor_unref);
  g_ptr_array_set_size(env, n_slots);
  bool ok = !ds->plan || run_plan(ds->plan, in, n_in, (TrTensor **)env->pdata, ctx, error);
  for (int i = 0; i < n_in; i++)
    tr_tensor_unref(in[i]);
  TrIterator *r = ok ? iterator_new_env(ds->inner, env, error) : NULL;
  g_ptr_array_unref(env);
  return r;
}

static bool
flat_map_next(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx, GError **error)
{
  for (;;) {
    if (it->input) {
      if (!pull(it, out, end, ctx, error))
        return false;
      if (!*end)
        return true;
      g_clear_pointer(&it->input, tr_iterator_unref);
    }
    it->input = open_inner(it, end, ctx, error);
    if (!it->input)
      return *end;
  }
}

static void
next_in_cycle(TrIterator *it)
{
  it->block_index = 0;
  it->cycle_index = (it->cycle_index + 1) % it->n_inputs;
}

/* TensorFlow's InterleaveDatasetOp: block_length elements from each open pass in turn; an ended
 * pass's place takes the next input element's. */
static bool
interleave_next(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx, GError **error)
{
  while (!it->input_end || it->open > 0) {
    TrIterator **slot = &it->inputs[it->cycle_index];
    if (*slot) {
      if (!tr_iterator_next(*slot, out, end, ctx, error))
        return false;
      if (!*end) {
        if (++it->block_index == it->ds->block)
          next_in_cycle(it);
        return true;
      }
      *end = false;
      g_clear_pointer(slot, tr_iterator_unref);
      it->open--;
      next_in_cycle(it);
    } else if (!it->input_end) {
      *slot = open_inner(it, &it->input_end, ctx, error);
      if (*slot)
        it->open++;
      else if (!it->input_end)
        return false;
    } else {
      next_in_cycle(it);
    }
  }
  *end = true;
  return true;
}

/* ---- a template's dataset from a slot ---- */

static bool
slot_start(TrIterator *it, GError **error)
{
  TrTensor *t = slot_value(it, it->ds->slots[0], error);
  TrDataset *inner = t ? tr_tensor_get_dataset(t) : NULL;
  if (t && !inner)
    g_set_error_literal(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
                        "a dataset function's result is not a dataset");
  if (!inner)
    return false;
  it->input = iterator_new_env(inner, NULL, error);
  return it->input != NULL;
}

static const KindDef kind_defs[] = {
    [DS_SLICES] = {tensors_start, slices_next, slices_cardinality},
    [DS_TENSORS] = {tensors_start, tensors_next, tensors_cardinality},
    [DS_RANGE] = {range_start, range_next, range_cardinality},
    [DS_BATCH] = {input_start, batch_next, batch_cardinality},
    [DS_MAP] = {input_start, map_next, input_cardinality},
    [DS_CALLBACK] = {callback_start, callback_next, unknown_cardinality},
    [DS_ZIP] = {inputs_start, zip_next, zip_cardinality},
    [DS_CONCATENATE] = {inputs_start, concatenate_next, concatenate_cardinality},
    [DS_REPEAT] = {repeat_start, repeat_next, repeat_cardinality},
    [DS_TAKE] = {input_start, take_next, take_cardinality},
    [DS_SKIP] = {input_start, skip_next, skip_cardinality},
    [DS_FILTER] = {input_start, filter_next, unknown_cardinality},
    [DS_SHUFFLE] = {shuffle_start, shuffle_next, input_cardinality},
    [DS_PREFETCH] = {input_start, passthrough_next, input_cardinality},
    [DS_CACHE] = {cache_start, cache_next, input_cardinality},
    [DS_UNBATCH] = {input_start, unbatch_next, unknown_cardinality},
    [DS_PADDED_BATCH] = {input_start, padded_batch_next, batch_cardinality},
    [DS_SCAN] = {scan_start, scan_next, input_cardinality},
    [DS_WINDOW] = {window_start, window_next, window_cardinality},
    [DS_LIST] = {NULL, list_next, list_cardinality},
    [DS_FLAT_MAP] = {nested_start, flat_map_next, unknown_cardinality},
    [DS_INTERLEAVE] = {nested_start, interleave_next, unknown_cardinality},
    [DS_SLOT] = {slot_start, passthrough_next, unknown_cardinality},
};
G_STATIC_ASSERT(G_N_ELEMENTS(kind_defs) == DS_N_KINDS);

int64_t
tr_dataset_cardinality(const TrDataset *ds)
{
  return kind_defs[ds->kind].cardinality(ds);
}

bool
tr_dataset_reduce(TrDataset *ds, TrTensor *const *initial, int n_state, TrGraph *fn, TrTensor **out,
                  const TrRunContext *ctx, GError **error)
{
  g_return_val_if_fail(ds && fn && n_state >= 1, false);
  g_autofree TrDType *dtypes = g_new(TrDType, n_state + ds->n);
  for (int i = 0; i < n_state; i++)
    dtypes[i] = initial[i]->dtype;
  memcpy(dtypes + n_state, ds->dtypes, sizeof(TrDType) * (size_t)ds->n);
  if (!check_fn_args(fn, n_state + ds->n, dtypes, "reduce", error))
    return false;
  bool fits = tr_graph_n_outputs(fn) == n_state;
  for (int i = 0; fits && i < n_state; i++)
    fits = fn_out_dtype(fn, i) == initial[i]->dtype;
  if (!fits) {
    g_set_error_literal(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE,
                        "The element types for the new state must match the initial state.");
    return false;
  }
  g_autoptr(TrPlan) plan = plan_fn(fn, error);
  g_autoptr(TrIterator) it = plan ? tr_iterator_new(ds, error) : NULL;
  if (!it)
    return false;
  g_autofree TrTensor **in = g_new0(TrTensor *, n_state + ds->n);
  for (int i = 0; i < n_state; i++)
    in[i] = tr_tensor_ref(initial[i]);
  bool ok = true;
  for (;;) {
    bool end = false;
    ok = tr_iterator_next(it, in + n_state, &end, ctx, error);
    if (!ok || end)
      break;
    ok = tr_plan_run(plan, in, n_state + ds->n, out, ctx, error);
    for (int i = 0; i < ds->n; i++)
      tr_tensor_unref(in[n_state + i]);
    if (!ok)
      break;
    for (int i = 0; i < n_state; i++) {
      tr_tensor_unref(in[i]);
      in[i] = out[i];
    }
  }
  if (ok)
    memcpy(out, in, sizeof(TrTensor *) * (size_t)n_state);
  else
    unref_tensors(g_steal_pointer(&in), n_state);
  return ok;
}

/* ---- iterators ------------------------------------------------------------------------------ */

static TrIterator *
iterator_new_env(TrDataset *ds, GPtrArray *env, GError **error)
{
  TrIterator *it = g_new0(TrIterator, 1);
  tr_variant_init(&it->base, &tr_iterator_class);
  it->ds = tr_dataset_ref(ds);
  it->env = env ? g_ptr_array_ref(env) : NULL;
  const KindDef *def = &kind_defs[ds->kind];
  if (def->start && !def->start(it, error)) {
    tr_iterator_unref(it);
    return NULL;
  }
  return it;
}

TrIterator *
tr_iterator_new(TrDataset *ds, GError **error)
{
  g_return_val_if_fail(ds != NULL, NULL);
  return iterator_new_env(ds, NULL, error);
}

TrDataset *
tr_iterator_dataset(const TrIterator *it)
{
  return it->ds;
}

bool
tr_iterator_next(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx, GError **error)
{
  g_return_val_if_fail(it && out && end, false);
  *end = false;
  if (it->done) {
    *end = true;
    return true;
  }
  bool ok = kind_defs[it->ds->kind].next(it, out, end, ctx, error);
  if (!ok || *end)
    it->done = true;
  return ok;
}

/* ---- graph ops --------------------------------------------------------------------------------
 */

TrNode *
tr_data_node_new(TrGraph *g, int op, const char *name, const TrOutput *inputs, int n_in, int n_out)
{
  const char *type = tr_gop_def(op)->type;
  const char *unique = tr_graph_unique_name(g, name ? name : type);
  return tr_graph_node_new(g, op, type, unique, inputs, n_in, n_out);
}

bool
tr_data_check_variant(TrOutput in, const char *type, const char *what, GError **error)
{
  const TrShape *shape = tr_output_shape(in);
  if (tr_output_dtype(in) == TR_VARIANT && (shape->rank == 0 || shape->rank == TR_UNKNOWN))
    return true;
  g_autofree char *text = tr_output_to_string(in);
  g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE,
              "Input '%s' of '%s' Op must be a scalar variant (%s), but got %s", what, type, what,
              text);
  return false;
}

TrTensor *
tr_data_zeros(TrDType dtype, const TrShape *shape)
{
  TrShape s = shape->rank == TR_UNKNOWN ? tr_shape_scalar() : *shape;
  for (int d = 0; d < s.rank; d++)
    if (s.dims[d] < 0)
      s.dims[d] = 0;
  return tr_tensor_new(dtype, &s);
}

TrNode *
tr_graph_add_make_iterator(TrGraph *g, TrOutput dataset, const char *name, GError **error)
{
  if (!tr_graph_check_inputs(g, &dataset, 1, error) ||
      !tr_data_check_variant(dataset, "MakeIterator", "dataset", error))
    return NULL;
  TrNode *node = tr_data_node_new(g, TR_GOP_MAKE_ITERATOR, name, &dataset, 1, 1);
  node->dtypes[0] = TR_VARIANT;
  node->shapes[0] = tr_shape_scalar();
  tr_graph_note_stateful(g, node);
  return node;
}

static TrNode *
add_get_next(TrGraph *g, int op, TrOutput iterator, int n, const TrDType *dtypes,
             const TrShape *shapes, const char *name, GError **error)
{
  g_return_val_if_fail(n >= 1 && dtypes && shapes, NULL);
  const char *type = tr_gop_def(op)->type;
  if (!tr_graph_check_inputs(g, &iterator, 1, error) ||
      !tr_data_check_variant(iterator, type, "iterator", error))
    return NULL;
  int first = op == TR_GOP_ITERATOR_GET_NEXT_AS_OPTIONAL ? 1 : 0;
  TrNode *node = tr_data_node_new(g, op, name, &iterator, 1, n + first);
  if (first) {
    node->dtypes[0] = TR_BOOL;
    node->shapes[0] = tr_shape_scalar();
  }
  for (int i = 0; i < n; i++) {
    node->dtypes[first + i] = dtypes[i];
    node->shapes[first + i] = shapes[i];
  }
  tr_graph_note_stateful(g, node);
  return node;
}

TrNode *
tr_graph_add_iterator_get_next(TrGraph *g, TrOutput iterator, int n, const TrDType *dtypes,
                               const TrShape *shapes, const char *name, GError **error)
{
  return add_get_next(g, TR_GOP_ITERATOR_GET_NEXT, iterator, n, dtypes, shapes, name, error);
}

TrNode *
tr_graph_add_iterator_get_next_as_optional(TrGraph *g, TrOutput iterator, int n,
                                           const TrDType *dtypes, const TrShape *shapes,
                                           const char *name, GError **error)
{
  return add_get_next(g, TR_GOP_ITERATOR_GET_NEXT_AS_OPTIONAL, iterator, n, dtypes, shapes, name,
                      error);
}

/* ---- running them ------------------------------------------------------------------------------
 */

bool
tr_data_run_make_iterator(const TrNode *node, TrTensor *const *in, TrTensor **out,
                          const TrRunContext *ctx, GError **error)
{
  TrDataset *ds = tr_tensor_get_dataset(in[0]);
  if (!ds) {
    g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
                "MakeIterator expects a dataset as its input");
    return false;
  }
  g_autoptr(TrIterator) it = tr_iterator_new(ds, error);
  if (!it)
    return false;
  out[0] = tr_tensor_new_variant(&it->base);
  return true;
}

/* The element from the iterator in[0], checked against the node's outputs from `first` on. */
static bool
run_next(const TrNode *node, int first, TrTensor *const *in, TrTensor **out, bool *end,
         const TrRunContext *ctx, GError **error)
{
  TrIterator *it = tr_tensor_get_iterator(in[0]);
  int n = node->n_outputs - first;
  if (!it || it->ds->n != n) {
    g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
                "%s expects an iterator over elements of %d component%s", node->type, n,
                n == 1 ? "" : "s");
    return false;
  }
  if (!tr_iterator_next(it, out + first, end, ctx, error))
    return false;
  for (int i = 0; !*end && i < n; i++) {
    if (out[first + i]->dtype == node->dtypes[first + i])
      continue;
    g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
                "%s: component %d has dtype %s, but the graph expects %s", node->type, i,
                tr_dtype_name(out[first + i]->dtype), tr_dtype_name(node->dtypes[first + i]));
    for (int j = 0; j < n; j++)
      g_clear_pointer(&out[first + j], tr_tensor_unref);
    return false;
  }
  return true;
}

bool
tr_data_run_iterator_get_next(const TrNode *node, TrTensor *const *in, TrTensor **out,
                              const TrRunContext *ctx, GError **error)
{
  bool end = false;
  if (!run_next(node, 0, in, out, &end, ctx, error))
    return false;
  if (end)
    g_set_error_literal(error, TR_ERROR, TR_ERROR_OUT_OF_RANGE, "End of sequence");
  return !end;
}

bool
tr_data_run_iterator_get_next_as_optional(const TrNode *node, TrTensor *const *in, TrTensor **out,
                                          const TrRunContext *ctx, GError **error)
{
  bool end = false;
  if (!run_next(node, 1, in, out, &end, ctx, error))
    return false;
  out[0] = tr_tensor_new_bool(!end);
  for (int i = 1; end && i < node->n_outputs; i++)
    out[i] = tr_data_zeros(node->dtypes[i], &node->shapes[i]);
  return true;
}

/* ---- inlining them -----------------------------------------------------------------------------
 */

TrNode *
tr_data_inline_make_iterator(TrGraph *g, const TrNode *node, const TrOutput *args, GError **error)
{
  return tr_graph_add_make_iterator(g, args[0], node->name, error);
}

TrNode *
tr_data_inline_iterator_get_next(TrGraph *g, const TrNode *node, const TrOutput *args,
                                 GError **error)
{
  return tr_graph_add_iterator_get_next(g, args[0], node->n_outputs, node->dtypes, node->shapes,
                                        node->name, error);
}

TrNode *
tr_data_inline_iterator_get_next_as_optional(TrGraph *g, const TrNode *node, const TrOutput *args,
                                             GError **error)
{
  return tr_graph_add_iterator_get_next_as_optional(
      g, args[0], node->n_outputs - 1, node->dtypes + 1, node->shapes + 1, node->name, error);
}
