/* test-data.c — tf.data datasets and iterators (tr-dataset.h), tensor lists (tr-list.h) and
 * their graph ops run by the planned executor; the variant dtype they travel as (tr-tensor.h). */
#include "../tensor/test-util.h"
#include "tr-dataset.h"
#include "tr-list.h"
#include "tr-plan.h"

#include <string.h>

#define OUT(node) tr_node_output((node), 0)

static const TrShape scalar = {.rank = 0};

/* Every element of a one-component dataset of scalars, as int64s. */
static GArray *
drain(TrDataset *ds, GError **error)
{
  g_autoptr(TrIterator) it = tr_iterator_new(ds, error);
  if (!it)
    return NULL;
  GArray *values = g_array_new(FALSE, FALSE, sizeof(int64_t));
  for (;;) {
    TrTensor *out[1] = {NULL};
    bool end = false;
    if (!tr_iterator_next(it, out, &end, NULL, error)) {
      g_array_free(values, TRUE);
      return NULL;
    }
    if (end)
      return values;
    g_assert_cmpint(out[0]->shape.rank, ==, 0);
    int64_t v = tr_tensor_get_i64(out[0], 0);
    g_array_append_val(values, v);
    tr_tensor_unref(out[0]);
  }
}

static void
check_values(GArray *values, const int64_t *want, int n)
{
  g_assert_nonnull(values);
  g_assert_cmpint(values->len, ==, n);
  for (int i = 0; i < n; i++)
    g_assert_cmpint(g_array_index(values, int64_t, i), ==, want[i]);
  g_array_free(values, TRUE);
}

/* ---- variants ------------------------------------------------------------------------------ */

static int finalized;

static void
count_finalize(TrVariant *v)
{
  finalized++;
  g_free(v);
}

static const TrVariantClass counting_class = {"Counting", count_finalize};

static void
test_variant_tensor_owns_its_object(void)
{
  finalized = 0;
  TrVariant *v = g_new0(TrVariant, 1);
  tr_variant_init(v, &counting_class);
  TrTensor *t = tr_tensor_new_variant(v);
  tr_variant_unref(v);
  g_assert_cmpint(finalized, ==, 0);
  g_assert_true(tr_tensor_get_variant(t, &counting_class) == v);
  g_assert_null(tr_tensor_get_variant(t, &tr_dataset_class));
  g_assert_cmpstr(tr_dtype_name(t->dtype), ==, "variant");
  /* A copy holds its own reference. */
  TrTensor *copy = tr_tensor_new(TR_VARIANT, &scalar);
  tr_tensor_copy_into(copy, t);
  tr_tensor_unref(t);
  g_assert_cmpint(finalized, ==, 0);
  tr_tensor_unref(copy);
  g_assert_cmpint(finalized, ==, 1);
}

static void
test_variant_rejected_by_tensor_ops(void)
{
  g_autoptr(TrTensorList) l = tr_tensor_list_new(TR_INT32, 1);
  g_autoptr(TrTensor) t = tr_tensor_new_variant((TrVariant *)l);
  GError *error = NULL;
  g_assert_null(tr_binary(TR_OP_ADD, t, t, &error));
  g_assert_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(error->message, "variant"));
  g_clear_error(&error);
  g_assert_null(tr_unary(TR_OP_IDENTITY, t, &error));
  g_assert_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT);
  g_clear_error(&error);
  /* In a graph Identity passes it through; other ops are TensorFlow's graph-time error. */
  g_autoptr(TrGraph) g = tr_graph_new("f");
  TrNode *c = tr_graph_add_const(g, t, NULL);
  TrNode *id = tr_graph_add_output(g, OUT(c), &error);
  g_assert_no_error(error);
  g_assert_cmpint(id->dtypes[0], ==, TR_VARIANT);
  TrOutput in[2] = {OUT(c), OUT(c)};
  g_assert_null(tr_graph_add_op(g, TR_OP_MUL, in, 2, NULL, NULL, &error));
  g_assert_nonnull(error);
  g_clear_error(&error);
}

/* ---- datasets -------------------------------------------------------------------------------- */

static void
test_dataset_slices_and_tensors(void)
{
  g_autoptr(TrTensor) a = tt_arange(TR_INT32, 2, (int64_t[]){3, 2});
  g_autoptr(TrTensor) b = tt_arange(TR_FLOAT32, 1, (int64_t[]){3});
  TrTensor *parts[2] = {a, b};
  GError *error = NULL;
  g_autoptr(TrDataset) ds = tr_dataset_new_tensor_slices(parts, 2, &error);
  g_assert_no_error(error);
  g_assert_cmpint(tr_dataset_n_components(ds), ==, 2);
  g_assert_cmpint(tr_dataset_shape(ds, 0)->rank, ==, 1);
  g_assert_cmpint(tr_dataset_shape(ds, 0)->dims[0], ==, 2);
  g_assert_cmpint(tr_dataset_cardinality(ds), ==, 3);
  g_autoptr(TrIterator) it = tr_iterator_new(ds, &error);
  TrTensor *out[2];
  bool end = false;
  for (int k = 0; k < 3; k++) {
    g_assert_true(tr_iterator_next(it, out, &end, NULL, &error));
    g_assert_false(end);
    tt_check_tensor(__FILE__, __LINE__, out[0], TR_INT32, 1, (int64_t[]){2},
                    (double[]){2 * k, 2 * k + 1}, 0);
    tt_check_tensor(__FILE__, __LINE__, out[1], TR_FLOAT32, 0, NULL, (double[]){k}, 0);
    tr_tensor_unref(out[0]);
    tr_tensor_unref(out[1]);
  }
  g_assert_true(tr_iterator_next(it, out, &end, NULL, &error));
  g_assert_true(end);
  /* An iterator at its end stays there. */
  g_assert_true(tr_iterator_next(it, out, &end, NULL, &error));
  g_assert_true(end);

  g_autoptr(TrTensor) c = tt_arange(TR_INT32, 1, (int64_t[]){2});
  parts[1] = c;
  g_assert_null(tr_dataset_new_tensor_slices(parts, 2, &error));
  g_assert_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_VALUE);
  g_assert_cmpstr(error->message, ==, "Dimensions 3 and 2 are not compatible");
  g_clear_error(&error);

  g_autoptr(TrDataset) once = tr_dataset_new_tensors(&a, 1);
  g_assert_cmpint(tr_dataset_cardinality(once), ==, 1);
  g_assert_cmpint(tr_dataset_shape(once, 0)->rank, ==, 2);
}

static void
test_dataset_range(void)
{
  GError *error = NULL;
  g_autoptr(TrDataset) up = tr_dataset_new_range(2, 9, 3, &error);
  g_assert_cmpint(tr_dataset_cardinality(up), ==, 3);
  check_values(drain(up, &error), (int64_t[]){2, 5, 8}, 3);
  g_autoptr(TrDataset) down = tr_dataset_new_range(5, 0, -2, &error);
  g_assert_cmpint(tr_dataset_cardinality(down), ==, 3);
  check_values(drain(down, &error), (int64_t[]){5, 3, 1}, 3);
  g_autoptr(TrDataset) empty = tr_dataset_new_range(4, 1, 1, &error);
  check_values(drain(empty, &error), NULL, 0);
  g_assert_null(tr_dataset_new_range(0, 1, 0, &error));
  g_assert_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT);
  g_clear_error(&error);
}

static void
test_dataset_batch(void)
{
  GError *error = NULL;
  g_autoptr(TrDataset) r = tr_dataset_new_range(0, 7, 1, &error);
  g_autoptr(TrDataset) keep = tr_dataset_new_batch(r, 3, false, &error);
  g_autoptr(TrDataset) drop = tr_dataset_new_batch(r, 3, true, &error);
  g_assert_cmpint(tr_dataset_shape(keep, 0)->dims[0], ==, TR_UNKNOWN);
  g_assert_cmpint(tr_dataset_shape(drop, 0)->dims[0], ==, 3);
  g_assert_cmpint(tr_dataset_cardinality(keep), ==, 3);
  g_assert_cmpint(tr_dataset_cardinality(drop), ==, 2);
  g_autoptr(TrIterator) it = tr_iterator_new(keep, &error);
  int64_t sizes[3];
  for (int k = 0; k < 3; k++) {
    TrTensor *out[1];
    bool end = false;
    g_assert_true(tr_iterator_next(it, out, &end, NULL, &error));
    g_assert_false(end);
    sizes[k] = out[0]->shape.dims[0];
    g_assert_cmpint(tr_tensor_get_i64(out[0], 0), ==, 3 * k);
    tr_tensor_unref(out[0]);
  }
  g_assert_cmpint(sizes[0], ==, 3);
  g_assert_cmpint(sizes[2], ==, 1);
  g_assert_null(tr_dataset_new_batch(r, 0, false, &error));
  g_assert_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT);
  g_clear_error(&error);
}

static void
test_dataset_counted_transformations(void)
{
  GError *error = NULL;
  g_autoptr(TrDataset) r = tr_dataset_new_range(0, 5, 1, &error);
  g_autoptr(TrDataset) take = tr_dataset_new_take(r, 2);
  g_autoptr(TrDataset) skip = tr_dataset_new_skip(r, 3);
  g_autoptr(TrDataset) twice = tr_dataset_new_repeat(take, 2);
  g_autoptr(TrDataset) forever = tr_dataset_new_repeat(r, -1);
  g_autoptr(TrDataset) head = tr_dataset_new_take(forever, 7);
  check_values(drain(take, &error), (int64_t[]){0, 1}, 2);
  check_values(drain(skip, &error), (int64_t[]){3, 4}, 2);
  check_values(drain(twice, &error), (int64_t[]){0, 1, 0, 1}, 4);
  check_values(drain(head, &error), (int64_t[]){0, 1, 2, 3, 4, 0, 1}, 7);
  g_assert_cmpint(tr_dataset_cardinality(skip), ==, 2);
  g_assert_cmpint(tr_dataset_cardinality(twice), ==, 4);
  g_assert_cmpint(tr_dataset_cardinality(forever), ==, TR_DATASET_INFINITE_CARDINALITY);
  g_assert_cmpint(tr_dataset_cardinality(head), ==, 7);
  /* Repeating an empty dataset forever ends at once. */
  g_autoptr(TrDataset) none = tr_dataset_new_take(r, 0);
  g_autoptr(TrDataset) none_forever = tr_dataset_new_repeat(none, -1);
  check_values(drain(none_forever, &error), NULL, 0);
}

static void
test_dataset_zip_concatenate_shuffle(void)
{
  GError *error = NULL;
  g_autoptr(TrDataset) a = tr_dataset_new_range(0, 3, 1, &error);
  g_autoptr(TrDataset) b = tr_dataset_new_range(10, 20, 1, &error);
  TrDataset *both[2] = {a, b};
  g_autoptr(TrDataset) zip = tr_dataset_new_zip(both, 2);
  g_assert_cmpint(tr_dataset_n_components(zip), ==, 2);
  g_assert_cmpint(tr_dataset_cardinality(zip), ==, 3);
  g_autoptr(TrDataset) cat = tr_dataset_new_concatenate(a, b, &error);
  g_assert_cmpint(tr_dataset_cardinality(cat), ==, 13);
  g_autoptr(GArray) values = drain(cat, &error);
  g_assert_cmpint(values->len, ==, 13);
  g_assert_cmpint(g_array_index(values, int64_t, 3), ==, 10);
  g_assert_null(tr_dataset_new_concatenate(a, zip, &error));
  g_assert_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE);
  g_clear_error(&error);
  /* A shuffle is a permutation; without reshuffling every pass has the same order. */
  g_autoptr(TrDataset) sh = tr_dataset_new_shuffle(b, 4, 7, false, &error);
  g_autoptr(GArray) first = drain(sh, &error);
  g_autoptr(GArray) second = drain(sh, &error);
  int64_t sum = 0;
  for (guint i = 0; i < first->len; i++) {
    sum += g_array_index(first, int64_t, i);
    g_assert_cmpint(g_array_index(first, int64_t, i), ==, g_array_index(second, int64_t, i));
  }
  g_assert_cmpint(first->len, ==, 10);
  g_assert_cmpint(sum, ==, 145);
  g_assert_null(tr_dataset_new_shuffle(b, 0, 7, false, &error));
  g_assert_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT);
  g_clear_error(&error);
}

static void
test_dataset_window_of_datasets(void)
{
  GError *error = NULL;
  g_autoptr(TrDataset) r = tr_dataset_new_range(0, 5, 1, &error);
  g_autoptr(TrDataset) w = tr_dataset_new_window(r, 2, 2, 1, false, &error);
  g_assert_cmpint(tr_dataset_dtype(w, 0), ==, TR_VARIANT);
  g_assert_cmpint(tr_dataset_cardinality(w), ==, 3);
  g_autoptr(TrIterator) it = tr_iterator_new(w, &error);
  const int64_t want[3][2] = {{0, 1}, {2, 3}, {4, -1}};
  for (int k = 0; k < 3; k++) {
    TrTensor *out[1];
    bool end = false;
    g_assert_true(tr_iterator_next(it, out, &end, NULL, &error));
    g_assert_false(end);
    g_autoptr(GArray) got = drain(tr_tensor_get_dataset(out[0]), &error);
    g_assert_cmpint(got->len, ==, k < 2 ? 2 : 1);
    for (guint i = 0; i < got->len; i++)
      g_assert_cmpint(g_array_index(got, int64_t, i), ==, want[k][i]);
    tr_tensor_unref(out[0]);
  }
  g_assert_null(tr_dataset_new_window(r, 0, 1, 1, false, &error));
  g_assert_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT);
  g_clear_error(&error);
}

static void
test_dataset_map_runs_its_graph(void)
{
  GError *error = NULL;
  g_autoptr(TrDataset) r = tr_dataset_new_range(0, 4, 1, &error);
  g_autoptr(TrGraph) fn = tr_graph_new("map_fn");
  TrNode *x = tr_graph_add_placeholder(fn, TR_INT64, &scalar, "args_0");
  TrOutput in[2] = {OUT(x), OUT(x)};
  TrNode *sq = tr_graph_add_op(fn, TR_OP_MUL, in, 2, NULL, NULL, &error);
  tr_graph_add_output(fn, OUT(sq), &error);
  g_assert_no_error(error);
  g_autoptr(TrDataset) m = tr_dataset_new_map(r, fn, &error);
  g_assert_no_error(error);
  g_assert_cmpint(tr_dataset_cardinality(m), ==, 4);
  check_values(drain(m, &error), (int64_t[]){0, 1, 4, 9}, 4);
  /* The function must take the input's components. */
  g_autoptr(TrGraph) bad = tr_graph_new("bad");
  TrNode *f = tr_graph_add_placeholder(bad, TR_FLOAT32, &scalar, "args_0");
  tr_graph_add_output(bad, OUT(f), &error);
  g_assert_null(tr_dataset_new_map(r, bad, &error));
  g_assert_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE);
  g_clear_error(&error);
}

/* A callback dataset counting up to *limit, recording its calls. */
typedef struct {
  int limit;  /* elements per pass */
  int starts; /* passes started */
  int stops;  /* passes stopped */
  bool freed; /* destroy ran */
} Counter;

static void *
counter_start(void *data, bool *failed, GError **error)
{
  ((Counter *)data)->starts++;
  return g_new0(int, 1);
}

static bool
counter_next(void *data, void *state, TrTensor **out, bool *end, GError **error)
{
  int *pos = state;
  if (*pos >= ((Counter *)data)->limit) {
    *end = true;
    return true;
  }
  out[0] = tr_tensor_new_int32((*pos)++);
  return true;
}

static void
counter_stop(void *data, void *state)
{
  ((Counter *)data)->stops++;
  g_free(state);
}

static void
counter_destroy(void *data)
{
  ((Counter *)data)->freed = true;
}

static const TrDatasetCallbacks counter_callbacks = {counter_start, counter_next, counter_stop,
                                                     counter_destroy};

static void
test_dataset_callbacks(void)
{
  Counter c = {.limit = 3};
  TrDType dtype = TR_INT32;
  TrShape unknown = tr_shape_unknown();
  TrDataset *ds = tr_dataset_new_callback(&counter_callbacks, &c, 1, &dtype, &unknown);
  g_assert_cmpint(tr_dataset_cardinality(ds), ==, TR_DATASET_UNKNOWN_CARDINALITY);
  GError *error = NULL;
  check_values(drain(ds, &error), (int64_t[]){0, 1, 2}, 3);
  check_values(drain(ds, &error), (int64_t[]){0, 1, 2}, 3);
  g_assert_cmpint(c.starts, ==, 2);
  g_assert_cmpint(c.stops, ==, 2);
  g_assert_false(c.freed);
  tr_dataset_unref(ds);
  g_assert_true(c.freed);

  /* A component of another dtype than declared is TensorFlow's error. */
  Counter c2 = {.limit = 1};
  TrDType f32 = TR_FLOAT32;
  g_autoptr(TrDataset) wrong = tr_dataset_new_callback(&counter_callbacks, &c2, 1, &f32, &unknown);
  g_assert_null(drain(wrong, &error));
  g_assert_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT);
  g_clear_error(&error);
}

/* ---- iterator ops in graphs ---------------------------------------------------------------- */

static void
test_iterator_get_next_advances_each_run(void)
{
  GError *error = NULL;
  g_autoptr(TrGraph) g = tr_graph_new("consume");
  TrNode *ph = tr_graph_add_placeholder(g, TR_VARIANT, &scalar, "iterator");
  TrDType dtype = TR_INT64;
  TrNode *next = tr_graph_add_iterator_get_next(g, OUT(ph), 1, &dtype, &scalar, NULL, &error);
  g_assert_no_error(error);
  g_assert_true(next->stateful);
  g_assert_cmpstr(next->type, ==, "IteratorGetNext");
  tr_graph_add_output(g, OUT(next), &error);
  g_autoptr(TrPlan) plan = tr_plan_new(g, NULL, 0, &error);
  g_assert_no_error(error);

  g_autoptr(TrDataset) ds = tr_dataset_new_range(1, 4, 1, &error);
  g_autoptr(TrIterator) it = tr_iterator_new(ds, &error);
  g_autoptr(TrTensor) feed = tr_tensor_new_variant((TrVariant *)it);
  for (int k = 1; k <= 3; k++) {
    TrTensor *out = NULL;
    g_assert_true(tr_plan_run(plan, &feed, 1, &out, NULL, &error));
    g_assert_cmpint(tr_tensor_get_i64(out, 0), ==, k);
    tr_tensor_unref(out);
  }
  TrTensor *out = NULL;
  g_assert_false(tr_plan_run(plan, &feed, 1, &out, NULL, &error));
  g_assert_error(error, TR_ERROR, TR_ERROR_OUT_OF_RANGE);
  g_assert_true(g_str_has_prefix(error->message, "End of sequence"));
  g_clear_error(&error);
  /* A non-variant input is refused while building. */
  TrNode *x = tr_graph_add_placeholder(g, TR_INT32, &scalar, "x");
  g_assert_null(tr_graph_add_make_iterator(g, OUT(x), NULL, &error));
  g_assert_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE);
  g_clear_error(&error);
}

/* sum(dataset) as AutoGraph builds `for x in dataset`: While over (iterator, has_value, x, sum).
 * The graph is the same whatever the dataset's length. */
static TrGraph *
sum_graph(void)
{
  GError *error = NULL;
  TrDType i64 = TR_INT64;
  TrGraph *g = tr_graph_new("sum");
  TrNode *ds = tr_graph_add_placeholder(g, TR_VARIANT, &scalar, "dataset");
  TrNode *it = tr_graph_add_make_iterator(g, OUT(ds), NULL, &error);
  TrNode *first =
      tr_graph_add_iterator_get_next_as_optional(g, OUT(it), 1, &i64, &scalar, NULL, &error);
  g_autoptr(TrTensor) zero = tr_tensor_new_int64(0);
  TrNode *init = tr_graph_add_const(g, zero, NULL);

  TrGraph *cond = tr_graph_new("cond");
  TrNode *cph[4];
  TrGraph *body = tr_graph_new("body");
  TrNode *bph[4];
  const TrDType dtypes[4] = {TR_VARIANT, TR_BOOL, TR_INT64, TR_INT64};
  for (int i = 0; i < 4; i++) {
    cph[i] = tr_graph_add_placeholder(cond, dtypes[i], &scalar, NULL);
    bph[i] = tr_graph_add_placeholder(body, dtypes[i], &scalar, NULL);
  }
  tr_graph_add_output(cond, OUT(cph[1]), &error);
  TrOutput add_in[2] = {OUT(bph[3]), OUT(bph[2])};
  TrNode *sum = tr_graph_add_op(body, TR_OP_ADD, add_in, 2, NULL, NULL, &error);
  TrNode *step =
      tr_graph_add_iterator_get_next_as_optional(body, OUT(bph[0]), 1, &i64, &scalar, NULL, &error);
  tr_graph_add_output(body, OUT(bph[0]), &error);
  tr_graph_add_output(body, tr_node_output(step, 0), &error);
  tr_graph_add_output(body, tr_node_output(step, 1), &error);
  tr_graph_add_output(body, OUT(sum), &error);
  TrOutput in[4] = {OUT(it), tr_node_output(first, 0), tr_node_output(first, 1), OUT(init)};
  TrNode *loop = tr_graph_add_while(g, cond, body, in, 4, NULL, &error);
  g_assert_no_error(error);
  tr_graph_unref(cond);
  tr_graph_unref(body);
  tr_graph_add_output(g, tr_node_output(loop, 3), &error);
  g_assert_no_error(error);
  return g;
}

static int64_t
run_sum(TrPlan *plan, TrDataset *ds)
{
  GError *error = NULL;
  g_autoptr(TrTensor) feed = tr_tensor_new_variant((TrVariant *)ds);
  TrTensor *out = NULL;
  g_assert_true(tr_plan_run(plan, &feed, 1, &out, NULL, &error));
  g_assert_no_error(error);
  int64_t v = tr_tensor_get_i64(out, 0);
  tr_tensor_unref(out);
  return v;
}

static void
test_dataset_loop_in_a_while(void)
{
  g_autoptr(TrGraph) g = sum_graph();
  g_assert_cmpint(tr_graph_n_nodes(g), ==, 6);
  GError *error = NULL;
  g_autoptr(TrPlan) plan = tr_plan_new(g, NULL, 0, &error);
  g_assert_no_error(error);
  g_autoptr(TrDataset) small = tr_dataset_new_range(0, 4, 1, &error);
  g_autoptr(TrDataset) big = tr_dataset_new_range(0, 101, 1, &error);
  g_autoptr(TrDataset) empty = tr_dataset_new_range(0, 0, 1, &error);
  /* Every run makes a fresh iterator: the same dataset gives the same sum again. */
  g_assert_cmpint(run_sum(plan, small), ==, 6);
  g_assert_cmpint(run_sum(plan, small), ==, 6);
  g_assert_cmpint(run_sum(plan, big), ==, 5050);
  g_assert_cmpint(run_sum(plan, empty), ==, 0);
  /* Inlined into another graph, the loop still works. */
  g_autoptr(TrGraph) outer = tr_graph_new("outer");
  TrNode *ph = tr_graph_add_placeholder(outer, TR_VARIANT, &scalar, "d");
  TrOutput in = OUT(ph), result;
  g_assert_true(tr_graph_inline(outer, g, &in, 1, &result, 1, "sum", &error));
  tr_graph_add_output(outer, result, &error);
  g_autoptr(TrPlan) outer_plan = tr_plan_new(outer, NULL, 0, &error);
  g_assert_no_error(error);
  g_assert_cmpint(run_sum(outer_plan, big), ==, 5050);
}

/* ---- tensor lists --------------------------------------------------------------------------- */

/* write(i, v) three times into a fixed list of `size`, then stack, length and read(1). */
static TrGraph *
list_graph(bool resize)
{
  GError *error = NULL;
  TrGraph *g = tr_graph_new("lists");
  TrNode *n = tr_graph_add_placeholder(g, TR_INT32, &scalar, "n");
  TrShape row = {.rank = 1, .dims = {2}};
  TrNode *v = tr_graph_add_placeholder(g, TR_FLOAT32, &row, "v");
  TrNode *list = tr_graph_add_tensor_list_reserve(g, OUT(n), TR_FLOAT32, NULL, &error);
  for (int i = 0; i < 3; i++) {
    g_autoptr(TrTensor) ix = tr_tensor_new_int32(i == 2 ? 3 : i);
    TrNode *c = tr_graph_add_const(g, ix, NULL);
    list = tr_graph_add_tensor_list_set_item(g, OUT(list), OUT(c), OUT(v), resize, NULL, &error);
    g_assert_no_error(error);
  }
  TrNode *stack = tr_graph_add_tensor_list_stack(g, OUT(list), TR_FLOAT32, &row, NULL, &error);
  g_assert_cmpint(stack->shapes[0].rank, ==, 2);
  g_assert_cmpint(stack->shapes[0].dims[0], ==, TR_UNKNOWN);
  TrNode *len = tr_graph_add_tensor_list_length(g, OUT(list), NULL, &error);
  g_autoptr(TrTensor) one = tr_tensor_new_int32(1);
  TrNode *c1 = tr_graph_add_const(g, one, NULL);
  TrNode *read =
      tr_graph_add_tensor_list_get_item(g, OUT(list), OUT(c1), TR_FLOAT32, &row, NULL, &error);
  tr_graph_add_output(g, OUT(stack), &error);
  tr_graph_add_output(g, OUT(len), &error);
  tr_graph_add_output(g, OUT(read), &error);
  g_assert_no_error(error);
  return g;
}

static void
test_tensor_list_ops(void)
{
  GError *error = NULL;
  g_autoptr(TrGraph) g = list_graph(true);
  g_autoptr(TrPlan) plan = tr_plan_new(g, NULL, 0, &error);
  g_assert_no_error(error);
  g_autoptr(TrTensor) n = tr_tensor_new_int32(2);
  g_autoptr(TrTensor) v = tt_tensor(TR_FLOAT32, 1, (int64_t[]){2}, (double[]){1, 2});
  TrTensor *in[2] = {n, v}, *out[3];
  /* Slot 2 was never set: it reads as zeros; index 3 grew the list to 4. */
  g_assert_true(tr_plan_run(plan, in, 2, out, NULL, &error));
  g_assert_no_error(error);
  tt_check_tensor(__FILE__, __LINE__, out[0], TR_FLOAT32, 2, (int64_t[]){4, 2},
                  (double[]){1, 2, 1, 2, 0, 0, 1, 2}, 0);
  tt_check_tensor(__FILE__, __LINE__, out[1], TR_INT32, 0, NULL, (double[]){4}, 0);
  tt_check_tensor(__FILE__, __LINE__, out[2], TR_FLOAT32, 1, (int64_t[]){2}, (double[]){1, 2}, 0);
  for (int i = 0; i < 3; i++)
    tr_tensor_unref(out[i]);

  /* A fixed-size list refuses a write past its end, with TensorFlow's text. */
  g_autoptr(TrGraph) fixed = list_graph(false);
  g_autoptr(TrPlan) fixed_plan = tr_plan_new(fixed, NULL, 0, &error);
  g_assert_false(tr_plan_run(fixed_plan, in, 2, out, NULL, &error));
  g_assert_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT);
  g_assert_true(g_str_has_prefix(error->message, "Trying to modify element 3 in a list with 2 "
                                                 "elements."));
  g_clear_error(&error);
}

static void
test_tensor_list_is_immutable(void)
{
  GError *error = NULL;
  g_autoptr(TrGraph) g = tr_graph_new("cow");
  TrNode *l = tr_graph_add_placeholder(g, TR_VARIANT, &scalar, "l");
  TrNode *x = tr_graph_add_placeholder(g, TR_INT32, &scalar, "x");
  g_autoptr(TrTensor) zero = tr_tensor_new_int32(0);
  TrNode *c0 = tr_graph_add_const(g, zero, NULL);
  TrNode *set = tr_graph_add_tensor_list_set_item(g, OUT(l), OUT(c0), OUT(x), false, NULL, &error);
  tr_graph_add_output(g, OUT(set), &error);
  g_assert_no_error(error);
  g_autoptr(TrPlan) plan = tr_plan_new(g, NULL, 0, &error);
  g_autoptr(TrTensorList) list = tr_tensor_list_new(TR_INT32, 2);
  g_autoptr(TrTensor) feed = tr_tensor_new_variant((TrVariant *)list);
  g_autoptr(TrTensor) seven = tr_tensor_new_int32(7);
  TrTensor *in[2] = {feed, seven}, *out = NULL;
  g_assert_true(tr_plan_run(plan, in, 2, &out, NULL, &error));
  TrTensorList *written = tr_tensor_list_from_tensor(out);
  g_assert_nonnull(written);
  g_assert_null(tr_tensor_list_peek(list, 0));
  g_assert_cmpint(tr_tensor_get_i64(tr_tensor_list_peek(written, 0), 0), ==, 7);
  tr_tensor_unref(out);

  /* A list of another dtype is TensorFlow's runtime error. */
  g_autoptr(TrTensorList) floats = tr_tensor_list_new(TR_FLOAT32, 2);
  g_autoptr(TrTensor) ffeed = tr_tensor_new_variant((TrVariant *)floats);
  in[0] = ffeed;
  g_assert_false(tr_plan_run(plan, in, 2, &out, NULL, &error));
  g_assert_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT);
  g_assert_true(g_str_has_prefix(error->message,
                                 "Invalid data types; op elements int32 but list elements float"));
  g_clear_error(&error);
}

static void
test_tensor_list_from_tensor_gather_concat(void)
{
  GError *error = NULL;
  g_autoptr(TrGraph) g = tr_graph_new("gather");
  TrShape shape = {.rank = 2, .dims = {3, 2}};
  TrNode *t = tr_graph_add_placeholder(g, TR_INT32, &shape, "t");
  TrNode *l = tr_graph_add_tensor_list_from_tensor(g, OUT(t), NULL, &error);
  g_autoptr(TrTensor) ix = tt_tensor(TR_INT32, 1, (int64_t[]){2}, (double[]){2, 0});
  TrNode *c = tr_graph_add_const(g, ix, NULL);
  TrShape row = {.rank = 1, .dims = {2}};
  TrNode *gather = tr_graph_add_tensor_list_gather(g, OUT(l), OUT(c), TR_INT32, &row, NULL, &error);
  TrNode *concat = tr_graph_add_tensor_list_concat(g, OUT(l), TR_INT32, &row, NULL, &error);
  g_assert_cmpint(gather->shapes[0].dims[0], ==, 2);
  tr_graph_add_output(g, OUT(gather), &error);
  tr_graph_add_output(g, OUT(concat), &error);
  g_assert_no_error(error);
  g_autoptr(TrPlan) plan = tr_plan_new(g, NULL, 0, &error);
  g_autoptr(TrTensor) value = tt_arange(TR_INT32, 2, (int64_t[]){3, 2});
  TrTensor *out[2];
  g_assert_true(tr_plan_run(plan, &value, 1, out, NULL, &error));
  tt_check_tensor(__FILE__, __LINE__, out[0], TR_INT32, 2, (int64_t[]){2, 2},
                  (double[]){4, 5, 0, 1}, 0);
  tt_check_tensor(__FILE__, __LINE__, out[1], TR_INT32, 1, (int64_t[]){6},
                  (double[]){0, 1, 2, 3, 4, 5}, 0);
  tr_tensor_unref(out[0]);
  tr_tensor_unref(out[1]);
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/data/variant/tensor-owns-its-object", test_variant_tensor_owns_its_object);
  g_test_add_func("/data/variant/rejected-by-tensor-ops", test_variant_rejected_by_tensor_ops);
  g_test_add_func("/data/dataset/slices-and-tensors", test_dataset_slices_and_tensors);
  g_test_add_func("/data/dataset/range", test_dataset_range);
  g_test_add_func("/data/dataset/batch", test_dataset_batch);
  g_test_add_func("/data/dataset/map-runs-its-graph", test_dataset_map_runs_its_graph);
  g_test_add_func("/data/dataset/take-skip-repeat", test_dataset_counted_transformations);
  g_test_add_func("/data/dataset/zip-concatenate-shuffle", test_dataset_zip_concatenate_shuffle);
  g_test_add_func("/data/dataset/window-elements-are-datasets", test_dataset_window_of_datasets);
  g_test_add_func("/data/dataset/callbacks", test_dataset_callbacks);
  g_test_add_func("/data/iterator/get-next-advances-each-run",
                  test_iterator_get_next_advances_each_run);
  g_test_add_func("/data/iterator/loop-in-a-while", test_dataset_loop_in_a_while);
  g_test_add_func("/data/list/ops", test_tensor_list_ops);
  g_test_add_func("/data/list/is-immutable", test_tensor_list_is_immutable);
  g_test_add_func("/data/list/from-tensor-gather-concat",
                  test_tensor_list_from_tensor_gather_concat);
  return g_test_run();
}
