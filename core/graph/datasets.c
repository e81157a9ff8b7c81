/* datasets.c — tf.data's datasets and iterators at run time, and the iterator graph ops (see
 * tr-dataset.h).
 *
 * A dataset is one struct for every kind; what differs between kinds is how an iterator starts,
 * produces its next element and counts elements, one table row per kind. Iterators over
 * transformations (batch, map) own an iterator over their input. Slices are views of the
 * dataset's tensors, so producing one copies nothing.
 */
#include "data-private.h"

#include <string.h>

typedef enum {
  DS_SLICES,   /* from_tensor_slices */
  DS_TENSORS,  /* from_tensors */
  DS_RANGE,    /* range */
  DS_BATCH,    /* batch */
  DS_MAP,      /* map */
  DS_CALLBACK, /* elements from the caller (from_generator) */
  DS_N_KINDS
} DatasetKind;

struct TrDataset {
  TrVariant base;                      /* tr_dataset_class */
  DatasetKind kind;                    /* which fields below are used */
  int n;                               /* components per element */
  TrDType *dtypes;                     /* per component (owned) */
  TrShape *shapes;                     /* per component, possibly partial (owned) */
  TrTensor **tensors;                  /* SLICES, TENSORS: the components (owned references) */
  int64_t start;                       /* RANGE: first value */
  int64_t stop;                        /* RANGE: bound (exclusive) */
  int64_t step;                        /* RANGE: never 0 */
  TrDataset *input;                    /* BATCH, MAP: the transformed dataset (owned) */
  int64_t batch_size;                  /* BATCH: elements per batch, > 0 */
  bool drop_remainder;                 /* BATCH: a last short batch is dropped */
  TrPlan *plan;                        /* MAP: the function's plan (owned) */
  const TrDatasetCallbacks *callbacks; /* CALLBACK: how passes are made (static) */
  void *data;                          /* CALLBACK: passed to the callbacks (destroyed with us) */
};

struct TrIterator {
  TrVariant base;    /* tr_iterator_class */
  TrDataset *ds;     /* owned reference */
  bool done;         /* at the end (or failed): every next() reports the end */
  int64_t pos;       /* SLICES, TENSORS: the next index; RANGE: the next value */
  TrIterator *input; /* BATCH, MAP: the pass over the input (owned) */
  void *state;       /* CALLBACK: the pass's state */
  bool started;      /* CALLBACK: start() succeeded, so stop() is due */
};

/* ---- the variant classes -------------------------------------------------------------------- */

static void
dataset_finalize(TrVariant *v)
{
  TrDataset *ds = (TrDataset *)v;
  if (ds->tensors)
    for (int i = 0; i < ds->n; i++)
      tr_tensor_unref(ds->tensors[i]);
  g_free(ds->tensors);
  g_clear_pointer(&ds->input, tr_dataset_unref);
  g_clear_pointer(&ds->plan, tr_plan_free);
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
  const TrDatasetCallbacks *cb = it->ds->callbacks;
  if (it->started && cb && cb->stop)
    cb->stop(it->ds->data, it->state);
  g_clear_pointer(&it->input, tr_iterator_unref);
  tr_dataset_unref(it->ds);
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

/* Everything after dim 0 of a shape. */
static TrShape
shape_tail(const TrShape *s)
{
  return tr_shape_make(s->rank - 1, s->dims + 1);
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
      g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_VALUE,
                  "Unbatching a tensor is only supported for rank >= 1");
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
  if (step == 0) {
    g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
                "step must be a non-zero integer. [Op:RangeDataset]");
    return NULL;
  }
  TrDataset *ds = dataset_new(DS_RANGE, 1);
  ds->dtypes[0] = TR_INT64;
  ds->shapes[0] = tr_shape_scalar();
  ds->start = start;
  ds->stop = stop;
  ds->step = step;
  return ds;
}

TrDataset *
tr_dataset_new_batch(TrDataset *input, int64_t batch_size, bool drop_remainder, GError **error)
{
  g_return_val_if_fail(input != NULL, NULL);
  if (batch_size <= 0) {
    g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
                "Batch size must be greater than zero. [Op:BatchDatasetV2]");
    return NULL;
  }
  TrDataset *ds = dataset_new(DS_BATCH, input->n);
  ds->input = tr_dataset_ref(input);
  ds->batch_size = batch_size;
  ds->drop_remainder = drop_remainder;
  for (int i = 0; i < input->n; i++) {
    const TrShape *in = &input->shapes[i];
    ds->dtypes[i] = input->dtypes[i];
    if (in->rank == TR_UNKNOWN || in->rank >= TR_MAX_RANK) {
      ds->shapes[i] = tr_shape_unknown();
      continue;
    }
    ds->shapes[i].rank = in->rank + 1;
    ds->shapes[i].dims[0] = drop_remainder ? batch_size : TR_UNKNOWN;
    memcpy(ds->shapes[i].dims + 1, in->dims, sizeof(int64_t) * (size_t)in->rank);
  }
  return ds;
}

/* fn's arguments must take the input's components. */
static bool
check_map_fn(const TrDataset *input, const TrGraph *fn, GError **error)
{
  if (tr_graph_n_inputs(fn) != input->n) {
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE,
                "The map function takes %d argument%s, but the dataset's elements have %d "
                "component%s",
                tr_graph_n_inputs(fn), tr_graph_n_inputs(fn) == 1 ? "" : "s", input->n,
                input->n == 1 ? "" : "s");
    return false;
  }
  for (int i = 0; i < input->n; i++) {
    const TrNode *arg = tr_graph_input(fn, i);
    if (arg->dtypes[0] == input->dtypes[i])
      continue;
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE,
                "The map function's argument %d ('%s') expects dtype %s, but the dataset's "
                "component %d has dtype %s",
                i, arg->name, tr_graph_dtype_name(arg->dtypes[0]), i,
                tr_graph_dtype_name(input->dtypes[i]));
    return false;
  }
  if (tr_graph_n_outputs(fn) == 0) {
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_VALUE,
                "The map function must return at least one tensor");
    return false;
  }
  return true;
}

TrDataset *
tr_dataset_new_map(TrDataset *input, TrGraph *fn, GError **error)
{
  g_return_val_if_fail(input && fn, NULL);
  if (!check_map_fn(input, fn, error))
    return NULL;
  g_autoptr(TrGraph) copy = tr_graph_copy(fn);
  tr_graph_optimize(copy, TR_OPT_ALL, NULL);
  TrPlan *plan = tr_plan_new(copy, NULL, 0, error);
  if (!plan)
    return NULL;
  int n = tr_graph_n_outputs(fn);
  TrDataset *ds = dataset_new(DS_MAP, n);
  ds->input = tr_dataset_ref(input);
  ds->plan = plan;
  for (int i = 0; i < n; i++) {
    TrOutput out = tr_node_output(tr_graph_output(fn, i), 0);
    ds->dtypes[i] = tr_output_dtype(out);
    ds->shapes[i] = *tr_output_shape(out);
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
  /* Sets up a new pass (it->ds is set; the rest zero). NULL: nothing to do. */
  bool (*start)(TrIterator *it, GError **error);
  /* The next element into out[0..n-1], or *end. */
  bool (*next)(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx, GError **error);
  int64_t (*cardinality)(const TrDataset *ds);
} KindDef;

/* Row k of `t` (rank >= 1) as a view. Transfer full. */
static TrTensor *
row_view(TrTensor *t, int64_t k)
{
  TrShape s = shape_tail(&t->shape);
  return tr_tensor_new_view(t->buf, t->dtype, &s, t->strides + 1, t->offset + k * t->strides[0]);
}

static bool
slices_next(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx, GError **error)
{
  const TrDataset *ds = it->ds;
  if (it->pos >= ds->tensors[0]->shape.dims[0]) {
    *end = true;
    return true;
  }
  for (int i = 0; i < ds->n; i++)
    out[i] = row_view(ds->tensors[i], it->pos);
  it->pos++;
  return true;
}

static int64_t
slices_cardinality(const TrDataset *ds)
{
  return ds->tensors[0]->shape.dims[0];
}

static bool
tensors_next(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx, GError **error)
{
  if (it->pos > 0) {
    *end = true;
    return true;
  }
  for (int i = 0; i < it->ds->n; i++)
    out[i] = tr_tensor_ref(it->ds->tensors[i]);
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
  it->pos = it->ds->start;
  return true;
}

static bool
range_next(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx, GError **error)
{
  const TrDataset *ds = it->ds;
  if (ds->step > 0 ? it->pos >= ds->stop : it->pos <= ds->stop) {
    *end = true;
    return true;
  }
  out[0] = tr_tensor_new_int64(it->pos);
  /* A step past the stop may overflow: the position then is the stop itself. The distance
   * left is computed unsigned, as it may exceed G_MAXINT64. */
  uint64_t left = ds->step > 0 ? (uint64_t)ds->stop - (uint64_t)it->pos
                               : (uint64_t)it->pos - (uint64_t)ds->stop;
  uint64_t step = ds->step > 0 ? (uint64_t)ds->step : -(uint64_t)ds->step;
  it->pos = left <= step ? ds->stop : it->pos + ds->step;
  return true;
}

static int64_t
range_cardinality(const TrDataset *ds)
{
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
  it->input = tr_iterator_new(it->ds->input, error);
  return it->input != NULL;
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

static bool
batch_next(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx, GError **error)
{
  const TrDataset *ds = it->ds;
  int n = ds->n;
  int64_t size = ds->batch_size;
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func((GDestroyNotify)tr_tensor_unref);
  g_autofree TrTensor **one = g_new0(TrTensor *, n);
  int64_t got = 0;
  while (got < size) {
    bool input_end = false;
    if (!tr_iterator_next(it->input, one, &input_end, ctx, error))
      return false;
    if (input_end)
      break;
    for (int i = 0; i < n; i++)
      g_ptr_array_add(items, one[i]);
    got++;
  }
  if (got == 0 || (got < size && ds->drop_remainder)) {
    *end = true;
    return true;
  }
  return stack_batch(n, (TrTensor **)items->pdata, (int)got, out, error);
}

static int64_t
batch_cardinality(const TrDataset *ds)
{
  int64_t n = tr_dataset_cardinality(ds->input);
  if (n < 0)
    return n;
  return ds->drop_remainder ? n / ds->batch_size : (n + ds->batch_size - 1) / ds->batch_size;
}

static bool
map_next(TrIterator *it, TrTensor **out, bool *end, const TrRunContext *ctx, GError **error)
{
  const TrDataset *ds = it->ds;
  int n_in = ds->input->n;
  g_autofree TrTensor **in = g_new0(TrTensor *, n_in);
  if (!tr_iterator_next(it->input, in, end, ctx, error))
    return false;
  if (*end)
    return true;
  bool ok = tr_plan_run(ds->plan, in, n_in, out, ctx, error);
  for (int i = 0; i < n_in; i++)
    tr_tensor_unref(in[i]);
  return ok;
}

static int64_t
map_cardinality(const TrDataset *ds)
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

static const KindDef kind_defs[] = {
    [DS_SLICES] = {NULL, slices_next, slices_cardinality},
    [DS_TENSORS] = {NULL, tensors_next, tensors_cardinality},
    [DS_RANGE] = {range_start, range_next, range_cardinality},
    [DS_BATCH] = {input_start, batch_next, batch_cardinality},
    [DS_MAP] = {input_start, map_next, map_cardinality},
    [DS_CALLBACK] = {callback_start, callback_next, unknown_cardinality},
};
G_STATIC_ASSERT(G_N_ELEMENTS(kind_defs) == DS_N_KINDS);

int64_t
tr_dataset_cardinality(const TrDataset *ds)
{
  return kind_defs[ds->kind].cardinality(ds);
}

/* ---- iterators ------------------------------------------------------------------------------ */

TrIterator *
tr_iterator_new(TrDataset *ds, GError **error)
{
  g_return_val_if_fail(ds != NULL, NULL);
  TrIterator *it = g_new0(TrIterator, 1);
  tr_variant_init(&it->base, &tr_iterator_class);
  it->ds = tr_dataset_ref(ds);
  const KindDef *def = &kind_defs[ds->kind];
  if (def->start && !def->start(it, error)) {
    tr_iterator_unref(it);
    return NULL;
  }
  return it;
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
