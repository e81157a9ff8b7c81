/* lang-tf-data.c — tf.data.Dataset and its iterators, eagerly and inside traces.
 *
 * A Dataset object is a variant tensor (core/graph's TrDataset, tr-dataset.h) plus the
 * structure of its elements: the nesting of tuples and dicts around the flat components that
 * core/graph produces, with the components' dtypes and shapes (the element spec). Outside a
 * trace the tensor is concrete and the dataset can be iterated at once. Inside a trace it may be
 * symbolic: a Dataset passed to a Function becomes a Placeholder of dtype variant (its trace key
 * is its element spec, so two datasets of one spec share a trace) and is fed at call time; an
 * eager dataset used inside a trace becomes a Const holding it.
 *
 * Iterators: iter(ds) outside a trace starts a core/graph TrIterator; next() advances it.
 * Inside a trace, iterating gives an iterator object whose first next() decides what it is:
 * called by a `for` statement it becomes an AutoGraph loop (the dataset loop source below: a
 * While over (iterator, has_value, components...) fed by MakeIterator and
 * IteratorGetNextAsOptional, so the graph does not grow with the dataset); called by next() it
 * adds IteratorGetNext, which advances the iterator each time the graph runs (the guide's
 * good_consume_next). An iterator passed to a Function is fed like a dataset.
 *
 * Dataset.map traces its function once into a graph on placeholders of the element spec, as
 * TensorFlow does (a Python print inside runs once), and core/graph runs that graph per
 * element. from_generator calls the generator through core/graph's callbacks while iterating,
 * in eager code and in graph runs alike.
 */
#include "lang-tf-private.h"
#include "lang-vm.h"
#include "tr-dataset.h"

#include <string.h>

/* ---- element structures ------------------------------------------------------------------ */

/* An element structure is a value like the element with every component replaced by its index in
 * the flat list: tuples stay tuples, dicts stay dicts (keys sorted, as tf.nest sorts them),
 * everything else is a component. */

static LangValue
sorted_keys(LangState *L, LangValue dict)
{
  LangValue keys = lang_list_from_iterable(L, dict);
  if (lang_is_exc(keys))
    return keys;
  if (!lang_list_sort(L, keys.o, LANG_NONE, false)) {
    lang_decref(keys);
    return LANG_EXC;
  }
  return keys;
}

/* The structure of `v`; its components (borrowed) are appended to `leaves`. */
static LangValue
structure_flatten(LangState *L, LangValue v, GArray *leaves)
{
  if (lang_is_type(v, &lang_tuple_type)) {
    int64_t n = lang_tuple_len(v.o);
    LangValue t = lang_tuple_new(L, n);
    for (int64_t i = 0; i < n; i++) {
      LangValue s = structure_flatten(L, lang_tuple_get(v.o, i), leaves);
      if (lang_is_exc(s)) {
        lang_decref(t);
        return s;
      }
      lang_tuple_set(t, i, s);
    }
    return t;
  }
  if (lang_is_type(v, &lang_dict_type)) {
    LangValue keys = sorted_keys(L, v);
    if (lang_is_exc(keys))
      return keys;
    LangValue d = lang_dict_new(L);
    LangList *kl = (LangList *)keys.o;
    for (int64_t i = 0; i < kl->n; i++) {
      LangValue item = lang_getitem(L, v, kl->items[i]);
      LangValue s = lang_is_exc(item) ? item : structure_flatten(L, item, leaves);
      lang_decref(item);
      if (lang_is_exc(s) || !lang_dict_set(L, d.o, kl->items[i], s)) {
        lang_decref(s);
        lang_decref(d);
        lang_decref(keys);
        return LANG_EXC;
      }
      lang_decref(s);
    }
    lang_decref(keys);
    return d;
  }
  g_array_append_val(leaves, v);
  return lang_int((int64_t)leaves->len - 1);
}

/* The components of `v` laid out as `structure` says: v's tuples and dicts must match it; what
 * stands at a component's place is appended to `leaves` (borrowed) whatever it is (so a shape
 * (2, 3) can stand for one component). */
static bool
structure_flatten_up_to(LangState *L, LangValue structure, LangValue v, GArray *leaves,
                        const char *what)
{
  if (structure.tag == LANG_TAG_INT) {
    g_array_append_val(leaves, v);
    return true;
  }
  if (lang_is_type(structure, &lang_tuple_type)) {
    int64_t n = lang_tuple_len(structure.o), len = 0;
    bool seq = lang_is_type(v, &lang_tuple_type) || lang_is_type(v, &lang_list_type);
    if (!seq || !lang_len(L, v, &len) || len != n) {
      if (!lang_exc_pending(L))
        lang_raise(
            L, &lang_exc_TypeError,
            "%s does not match the element structure: expected a sequence of %" G_GINT64_FORMAT
            " values, got a %s",
            what, n, lang_type_name(v));
      return false;
    }
    for (int64_t i = 0; i < n; i++) {
      LangValue item = lang_getitem(L, v, lang_int(i));
      if (lang_is_exc(item))
        return false;
      bool ok = structure_flatten_up_to(L, lang_tuple_get(structure.o, i), item, leaves, what);
      lang_decref(item); /* `leaves` borrows: the container keeps the item alive */
      if (!ok)
        return false;
    }
    return true;
  }
  int64_t pos = 0;
  LangValue key, sub;
  while (lang_dict_next(structure.o, &pos, &key, &sub)) {
    LangValue item = lang_getitem(L, v, key);
    if (lang_is_exc(item))
      return false;
    bool ok = structure_flatten_up_to(L, sub, item, leaves, what);
    lang_decref(item);
    if (!ok)
      return false;
  }
  return true;
}

/* The value of `structure` with component k replaced by items[k] (borrowed). New reference. */
static LangValue
structure_pack(LangState *L, LangValue structure, const LangValue *items)
{
  if (structure.tag == LANG_TAG_INT)
    return lang_incref(items[structure.i]);
  if (lang_is_type(structure, &lang_tuple_type)) {
    int64_t n = lang_tuple_len(structure.o);
    LangValue t = lang_tuple_new(L, n);
    for (int64_t i = 0; i < n; i++)
      lang_tuple_set(t, i, structure_pack(L, lang_tuple_get(structure.o, i), items));
    return t;
  }
  LangValue d = lang_dict_new(L);
  int64_t pos = 0;
  LangValue key, sub;
  while (lang_dict_next(structure.o, &pos, &key, &sub)) {
    LangValue v = structure_pack(L, sub, items);
    bool ok = lang_dict_set(L, d.o, key, v);
    lang_decref(v);
    if (!ok) {
      lang_decref(d);
      return LANG_EXC;
    }
  }
  return d;
}

/* ---- TensorSpec objects -------------------------------------------------------------------- */

static LangValue
tensor_spec_new(LangState *L, TrDType dtype, const TrShape *shape)
{
  LangValue args[2] = {lang_tf_shape_new(L, shape), lang_tf_dtype_object(dtype)};
  LangValue spec = lang_call(L, lang_obj(&lang_tf_tensor_spec_type), args, 2, NULL);
  lang_decref(args[0]);
  return spec;
}

/* The element spec: `structure` with TensorSpecs for the components. */
static LangValue
element_spec_of(LangState *L, LangValue structure, int n, const TrDType *dtypes,
                const TrShape *shapes)
{
  g_autofree LangValue *specs = g_new0(LangValue, MAX(n, 1));
  LangValue r = LANG_EXC;
  for (int i = 0; i < n; i++) {
    specs[i] = tensor_spec_new(L, dtypes[i], &shapes[i]);
    if (lang_is_exc(specs[i]))
      goto out;
  }
  r = structure_pack(L, structure, specs);
out:
  for (int i = 0; i < n; i++)
    if (!lang_is_exc(specs[i]) && specs[i].tag != LANG_TAG_UNSET)
      lang_decref(specs[i]);
  return r;
}

/* ---- Dataset objects --------------------------------------------------------------------------
 */

typedef struct {
  LangObject base;     /* lang_tf_dataset_type */
  LangValue variant;   /* tf.Tensor holding the TrDataset (concrete), or a symbolic one (owned) */
  LangValue structure; /* the element structure (owned) */
  int n;               /* components */
  TrDType *dtypes;     /* per component (owned) */
  TrShape *shapes;     /* per component, possibly partial (owned) */
  const char *kind;    /* the class name TensorFlow shows: "_TensorSliceDataset" (static) */
} LangTfDataset;

LangType lang_tf_dataset_type;

bool
lang_tf_is_dataset(LangValue v)
{
  return v.tag == LANG_TAG_OBJ && v.o->type == &lang_tf_dataset_type;
}

static LangTfDataset *
dataset_of(LangValue v)
{
  return (LangTfDataset *)v.o;
}

static void
dataset_dealloc(LangObject *o)
{
  LangTfDataset *d = (LangTfDataset *)o;
  lang_decref(d->variant);
  lang_decref(d->structure);
  g_free(d->dtypes);
  g_free(d->shapes);
}

/* A Dataset object for `variant` (a tf.Tensor, taken over) whose elements are laid out as
 * `structure` (taken over), with the given spec (copied). */
static LangValue
dataset_new(LangState *L, LangValue variant, LangValue structure, int n, const TrDType *dtypes,
            const TrShape *shapes, const char *kind)
{
  LangTfDataset *d =
      (LangTfDataset *)lang_object_alloc(L, &lang_tf_dataset_type, sizeof(LangTfDataset));
  d->variant = variant;
  d->structure = structure;
  d->n = n;
  d->dtypes = g_memdup2(dtypes, sizeof(TrDType) * (size_t)MAX(n, 1));
  d->shapes = g_memdup2(shapes, sizeof(TrShape) * (size_t)MAX(n, 1));
  d->kind = kind;
  return lang_obj(d);
}

/* A Dataset object for the eager dataset `ds` (transfer full). */
static LangValue
dataset_wrap(LangState *L, TrDataset *ds, LangValue structure, const char *kind)
{
  int n = tr_dataset_n_components(ds);
  g_autofree TrDType *dtypes = g_new(TrDType, n);
  g_autofree TrShape *shapes = g_new(TrShape, n);
  for (int i = 0; i < n; i++) {
    dtypes[i] = tr_dataset_dtype(ds, i);
    shapes[i] = *tr_dataset_shape(ds, i);
  }
  LangValue variant = lang_tf_tensor_new(L, tr_tensor_new_variant((TrVariant *)ds));
  tr_dataset_unref(ds);
  return dataset_new(L, variant, structure, n, dtypes, shapes, kind);
}

/* The eager dataset of a Dataset object, or NULL when it is symbolic. Borrowed. */
static TrDataset *
dataset_value(LangValue self)
{
  TrTensor *t = lang_tf_tensor_value(dataset_of(self)->variant);
  return t ? tr_tensor_get_dataset(t) : NULL;
}

/* Transformations are built eagerly: a dataset that exists only inside a graph cannot be. */
static TrDataset *
eager_dataset_or_raise(LangState *L, LangValue self, const char *method)
{
  TrDataset *ds = dataset_value(self);
  if (!ds)
    lang_raise(L, &lang_exc_NotImplementedError,
               "Dataset.%s() on a dataset that is a traced function's argument is not supported "
               "yet; apply it before passing the dataset to the function",
               method);
  return ds;
}

static LangValue
dataset_get_element_spec(LangState *L, LangValue self)
{
  LangTfDataset *d = dataset_of(self);
  return element_spec_of(L, d->structure, d->n, d->dtypes, d->shapes);
}

static LangValue
dataset_repr(LangState *L, LangValue self)
{
  LangValue spec = dataset_get_element_spec(L, self);
  if (lang_is_exc(spec))
    return spec;
  LangValue text = lang_repr(L, spec);
  lang_decref(spec);
  if (lang_is_exc(text))
    return text;
  LangValue r =
      lang_str_printf(L, "<%s element_spec=%s>", dataset_of(self)->kind, lang_str_text(text));
  lang_decref(text);
  return r;
}

/* ---- making datasets ------------------------------------------------------------------------ */

/* The components of `value` as eager tensors (transfer full each), and its structure. */
static LangValue
eager_components(LangState *L, LangValue value, const char *method, GPtrArray *tensors)
{
  g_autoptr(GArray) leaves = g_array_new(FALSE, FALSE, sizeof(LangValue));
  LangValue structure = structure_flatten(L, value, leaves);
  if (lang_is_exc(structure))
    return structure;
  for (guint i = 0; i < leaves->len; i++) {
    LangValue leaf = g_array_index(leaves, LangValue, i);
    if (lang_tf_is_symbolic(leaf)) {
      lang_decref(structure);
      return lang_raise(L, &lang_exc_NotImplementedError,
                        "Dataset.%s() of a symbolic tensor inside a traced function is not "
                        "supported yet; make the dataset outside the function and pass it in",
                        method);
    }
    TrTensor *t = lang_tf_convert(L, leaf, TR_DTYPE_INVALID, false);
    if (!t) {
      lang_decref(structure);
      return LANG_EXC;
    }
    g_ptr_array_add(tensors, t);
  }
  return structure;
}

static LangValue
data_from_tensor_slices(LangState *L, LangValue self, const LangValue *args, int nargs,
                        LangObject *kwnames)
{
  LangValue tensors, name = LANG_UNSET;
  if (!lang_parse_args(L, "from_tensor_slices", args, nargs, kwnames, "tensors,name=", &tensors,
                       &name))
    return LANG_EXC;
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func((GDestroyNotify)tr_tensor_unref);
  LangValue structure = eager_components(L, tensors, "from_tensor_slices", parts);
  if (lang_is_exc(structure))
    return structure;
  GError *error = NULL;
  TrDataset *ds = tr_dataset_new_tensor_slices((TrTensor **)parts->pdata, (int)parts->len, &error);
  if (!ds) {
    lang_decref(structure);
    return lang_tf_raise_any(L, error);
  }
  return dataset_wrap(L, ds, structure, "_TensorSliceDataset");
}

static LangValue
data_from_tensors(LangState *L, LangValue self, const LangValue *args, int nargs,
                  LangObject *kwnames)
{
  LangValue tensors, name = LANG_UNSET;
  if (!lang_parse_args(L, "from_tensors", args, nargs, kwnames, "tensors,name=", &tensors, &name))
    return LANG_EXC;
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func((GDestroyNotify)tr_tensor_unref);
  LangValue structure = eager_components(L, tensors, "from_tensors", parts);
  if (lang_is_exc(structure))
    return structure;
  TrDataset *ds = tr_dataset_new_tensors((TrTensor **)parts->pdata, (int)parts->len);
  return dataset_wrap(L, ds, structure, "_TensorDataset");
}

static bool
range_int(LangState *L, LangValue v, int64_t *out)
{
  if (lang_tf_is_tensor(v)) {
    TrTensor *t = lang_tf_static_value(L, v);
    if (!t) {
      lang_raise_str(L, &lang_exc_TypeError, "expected a Python int or an eager scalar tensor");
      return false;
    }
    *out = tr_tensor_get_i64(t, 0);
    tr_tensor_unref(t);
    return true;
  }
  return lang_to_index(L, v, out);
}

static LangValue
data_range(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  const LangValue *pos;
  int npos;
  LangValue output_type = LANG_UNSET, name = LANG_UNSET;
  if (!lang_parse_args(L, "range", args, nargs, kwnames, "*args,output_type=,name=", &pos, &npos,
                       &output_type, &name))
    return LANG_EXC;
  TrDType dtype;
  if (!lang_tf_dtype_arg(L, output_type, TR_INT64, &dtype))
    return LANG_EXC;
  if (npos < 1 || npos > 3)
    return lang_raise(L, &lang_exc_TypeError,
                      "range() takes 1 to 3 positional arguments (start, stop, step), %d given",
                      npos);
  if (dtype != TR_INT64)
    return lang_raise_str(L, &lang_exc_NotImplementedError,
                          "Dataset.range(output_type=...) supports tf.int64 only");
  int64_t v[3] = {0, 0, 1};
  for (int i = 0; i < npos; i++)
    if (!range_int(L, pos[i], &v[npos == 1 ? 1 : i]))
      return LANG_EXC;
  GError *error = NULL;
  TrDataset *ds = tr_dataset_new_range(v[0], v[1], v[2], &error);
  if (!ds)
    return lang_tf_raise_any(L, error);
  return dataset_wrap(L, ds, lang_int(0), "_RangeDataset");
}

/* ---- from_generator: elements from Python, through core/graph's callbacks ----------------- */

typedef struct {
  LangState *L;        /* the session the generator runs in */
  LangValue generator; /* callable returning an iterable (owned) */
  LangValue args;      /* a tuple of its arguments (owned) */
  LangValue structure; /* the element structure (owned) */
  int n;               /* components */
  TrDType *dtypes;     /* per component (owned) */
} Generator;

/* The pending Python exception as TensorFlow reports an error inside a dataset: an
 * InvalidArgumentError naming the Python exception. Clears it. */
static void
exception_to_error(LangState *L, GError **error)
{
  LangValue exc = lang_exc_fetch(L);
  LangValue text = lang_is_unset(exc) ? LANG_UNSET : lang_str(L, exc);
  if (lang_is_exc(text)) {
    lang_exc_clear(L);
    text = LANG_UNSET;
  }
  g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT, "%s: %s",
              lang_is_unset(exc) ? "Error" : lang_type_name(exc),
              lang_is_unset(text) ? "" : lang_str_text(text));
  lang_decref(text);
  lang_decref(exc);
}

static void *
generator_start(void *data, bool *failed, GError **error)
{
  Generator *gen = data;
  LangState *L = gen->L;
  LangTuple *targs = (LangTuple *)gen->args.o;
  LangValue iterable = lang_call(L, gen->generator, targs->items, (int)targs->n, NULL);
  LangValue it = lang_is_exc(iterable) ? iterable : lang_iter(L, iterable);
  lang_decref(iterable);
  if (lang_is_exc(it)) {
    *failed = true;
    exception_to_error(L, error);
    return NULL;
  }
  LangValue *state = g_new(LangValue, 1);
  *state = it;
  return state;
}

static bool
generator_next(void *data, void *state, TrTensor **out, bool *end, GError **error)
{
  Generator *gen = data;
  LangState *L = gen->L;
  LangValue v = lang_next(L, *(LangValue *)state);
  if (lang_is_unset(v)) {
    *end = true;
    return true;
  }
  if (lang_is_exc(v)) {
    exception_to_error(L, error);
    return false;
  }
  g_autoptr(GArray) leaves = g_array_new(FALSE, FALSE, sizeof(LangValue));
  bool ok =
      structure_flatten_up_to(L, gen->structure, v, leaves, "`generator` yielded an element that");
  for (int i = 0; ok && i < gen->n; i++) {
    out[i] = lang_tf_convert(L, g_array_index(leaves, LangValue, i), gen->dtypes[i], false);
    if (!out[i]) {
      for (int j = 0; j < i; j++)
        g_clear_pointer(&out[j], tr_tensor_unref);
      ok = false;
    }
  }
  lang_decref(v);
  if (!ok)
    exception_to_error(L, error);
  return ok;
}

static void
generator_stop(void *data, void *state)
{
  if (!state)
    return;
  lang_decref(*(LangValue *)state);
  g_free(state);
}

static void
generator_destroy(void *data)
{
  Generator *gen = data;
  lang_decref(gen->generator);
  lang_decref(gen->args);
  lang_decref(gen->structure);
  g_free(gen->dtypes);
  g_free(gen);
}

static const TrDatasetCallbacks generator_callbacks = {
    generator_start,
    generator_next,
    generator_stop,
    generator_destroy,
};

/* A shape from output_shapes: None is an unknown shape. */
static bool
shape_or_unknown(LangState *L, LangValue v, TrShape *out)
{
  if (v.tag == LANG_TAG_NONE || lang_is_unset(v)) {
    *out = tr_shape_unknown();
    return true;
  }
  return lang_tf_shape_arg(L, v, out);
}

/* output_signature: a structure of TensorSpecs. */
static LangValue
signature_spec(LangState *L, LangValue signature, GArray *dtypes, GArray *shapes)
{
  g_autoptr(GArray) leaves = g_array_new(FALSE, FALSE, sizeof(LangValue));
  LangValue structure = structure_flatten(L, signature, leaves);
  if (lang_is_exc(structure))
    return structure;
  for (guint i = 0; i < leaves->len; i++) {
    LangValue spec = g_array_index(leaves, LangValue, i);
    if (!lang_is_type(spec, &lang_tf_tensor_spec_type)) {
      lang_decref(structure);
      return lang_raise(L, &lang_exc_TypeError,
                        "output_signature must contain objects that are subclass of "
                        "`tf.TypeSpec` but found %s which is not.",
                        lang_type_name(spec));
    }
    LangValue dt = lang_getattr_cstr(L, spec, "dtype");
    LangValue sh = lang_is_exc(dt) ? dt : lang_getattr_cstr(L, spec, "shape");
    TrDType dtype = TR_DTYPE_INVALID;
    TrShape shape;
    bool ok = !lang_is_exc(sh) && lang_tf_dtype_arg(L, dt, TR_FLOAT32, &dtype) &&
              shape_or_unknown(L, sh, &shape);
    lang_decref(dt);
    lang_decref(sh);
    if (!ok) {
      lang_decref(structure);
      return LANG_EXC;
    }
    g_array_append_val(dtypes, dtype);
    g_array_append_val(shapes, shape);
  }
  return structure;
}

/* output_types and output_shapes (of the same structure, shapes optional). */
static LangValue
types_spec(LangState *L, LangValue types, LangValue shapes_arg, GArray *dtypes, GArray *shapes)
{
  g_autoptr(GArray) leaves = g_array_new(FALSE, FALSE, sizeof(LangValue));
  LangValue structure = structure_flatten(L, types, leaves);
  if (lang_is_exc(structure))
    return structure;
  g_autoptr(GArray) shape_leaves = g_array_new(FALSE, FALSE, sizeof(LangValue));
  bool has_shapes = !lang_is_unset(shapes_arg) && shapes_arg.tag != LANG_TAG_NONE;
  if (has_shapes &&
      !structure_flatten_up_to(L, structure, shapes_arg, shape_leaves, "`output_shapes`")) {
    lang_decref(structure);
    return LANG_EXC;
  }
  for (guint i = 0; i < leaves->len; i++) {
    TrDType dtype;
    TrShape shape = tr_shape_unknown();
    if (!lang_tf_dtype_arg(L, g_array_index(leaves, LangValue, i), TR_FLOAT32, &dtype) ||
        (has_shapes && !shape_or_unknown(L, g_array_index(shape_leaves, LangValue, i), &shape))) {
      lang_decref(structure);
      return LANG_EXC;
    }
    g_array_append_val(dtypes, dtype);
    g_array_append_val(shapes, shape);
  }
  return structure;
}

static LangValue
data_from_generator(LangState *L, LangValue self, const LangValue *args, int nargs,
                    LangObject *kwnames)
{
  LangValue generator, output_types = LANG_UNSET, output_shapes = LANG_UNSET, gargs = LANG_UNSET,
                       output_signature = LANG_UNSET, name = LANG_UNSET;
  if (!lang_parse_args(L, "from_generator", args, nargs, kwnames,
                       "generator,output_types=,output_shapes=,args=,output_signature=,name=",
                       &generator, &output_types, &output_shapes, &gargs, &output_signature, &name))
    return LANG_EXC;
  if (!lang_callable(generator))
    return lang_raise_str(L, &lang_exc_TypeError, "`generator` must be a Python callable.");
  bool has_types = !lang_is_unset(output_types) && output_types.tag != LANG_TAG_NONE;
  bool has_sig = !lang_is_unset(output_signature) && output_signature.tag != LANG_TAG_NONE;
  if (has_types == has_sig)
    return lang_raise_str(L, &lang_exc_TypeError,
                          has_sig
                              ? "The `output_types` argument can not be used together with the "
                                "`output_signature` argument."
                              : "Missing required argument `output_signature` or `output_types`.");
  g_autoptr(GArray) dtypes = g_array_new(FALSE, FALSE, sizeof(TrDType));
  g_autoptr(GArray) shapes = g_array_new(FALSE, FALSE, sizeof(TrShape));
  LangValue structure = has_sig ? signature_spec(L, output_signature, dtypes, shapes)
                                : types_spec(L, output_types, output_shapes, dtypes, shapes);
  if (lang_is_exc(structure))
    return structure;
  LangValue targs = lang_is_unset(gargs) || gargs.tag == LANG_TAG_NONE
                        ? lang_tuple_new(L, 0)
                        : lang_tuple_from_iterable(L, gargs);
  if (lang_is_exc(targs)) {
    lang_decref(structure);
    return targs;
  }
  Generator *gen = g_new0(Generator, 1);
  gen->L = L;
  gen->generator = lang_incref(generator);
  gen->args = targs;
  gen->structure = lang_incref(structure);
  gen->n = (int)dtypes->len;
  gen->dtypes = g_memdup2(dtypes->data, sizeof(TrDType) * dtypes->len);
  TrDataset *ds = tr_dataset_new_callback(&generator_callbacks, gen, (int)dtypes->len,
                                          (TrDType *)dtypes->data, (TrShape *)shapes->data);
  return dataset_wrap(L, ds, structure, "_FlatMapDataset");
}

/* ---- transformations --------------------------------------------------------------------------
 */

static LangValue
dataset_batch(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue size, drop = LANG_UNSET, parallel = LANG_UNSET, deterministic = LANG_UNSET,
                  name = LANG_UNSET;
  if (!lang_parse_args(L, "batch", args, nargs, kwnames,
                       "batch_size,drop_remainder=,num_parallel_calls=,deterministic=,name=", &size,
                       &drop, &parallel, &deterministic, &name))
    return LANG_EXC;
  int64_t batch_size;
  int drop_remainder = lang_is_unset(drop) ? 0 : lang_truth(L, drop);
  if (!range_int(L, size, &batch_size) || drop_remainder < 0)
    return LANG_EXC;
  TrDataset *input = eager_dataset_or_raise(L, self, "batch");
  if (!input)
    return LANG_EXC;
  GError *error = NULL;
  TrDataset *ds = tr_dataset_new_batch(input, batch_size, drop_remainder != 0, &error);
  if (!ds)
    return lang_tf_raise_any(L, error);
  return dataset_wrap(L, ds, lang_incref(dataset_of(self)->structure), "_BatchDataset");
}

/* Runs fn on placeholders of the element spec in a trace of its own; the graph's results are
 * fn's components, laid out as *structure. */
typedef struct {
  LangTfTrace trace;   /* the map function's graph */
  LangTfTrace *saved;  /* the trace that was current */
  LangValue structure; /* the result's structure (owned), or UNSET */
} MapTrace;

static LangValue
call_map_fn(LangState *L, LangTfDataset *d, LangValue fn, TrGraph *g)
{
  g_autofree LangValue *items = g_new0(LangValue, MAX(d->n, 1));
  for (int i = 0; i < d->n; i++) {
    g_autofree char *name = g_strdup_printf("args_%d", i);
    TrNode *ph = tr_graph_add_placeholder(g, d->dtypes[i], &d->shapes[i], name);
    items[i] = lang_tf_symbolic_new(L, g, tr_node_output(ph, 0));
  }
  LangValue element = structure_pack(L, d->structure, items);
  for (int i = 0; i < d->n; i++)
    lang_decref(items[i]);
  if (lang_is_exc(element))
    return element;
  /* A tuple element is spread over the function's parameters, as tf.data does. */
  bool spread = lang_is_type(element, &lang_tuple_type);
  LangValue r = spread ? lang_call(L, fn, ((LangTuple *)element.o)->items,
                                   (int)lang_tuple_len(element.o), NULL)
                       : lang_call(L, fn, &element, 1, NULL);
  lang_decref(element);
  return r;
}

/* The results of the map function as the graph's outputs; lists count as tuples. */
static bool
map_outputs(LangState *L, MapTrace *mt, LangValue result)
{
  LangValue r = lang_is_type(result, &lang_list_type) ? lang_tuple_from_iterable(L, result)
                                                      : lang_incref(result);
  if (lang_is_exc(r))
    return false;
  g_autoptr(GArray) leaves = g_array_new(FALSE, FALSE, sizeof(LangValue));
  mt->structure = structure_flatten(L, r, leaves);
  bool ok = !lang_is_exc(mt->structure);
  for (guint i = 0; ok && i < leaves->len; i++) {
    LangTfOperand o;
    ok = lang_tf_operand(L, g_array_index(leaves, LangValue, i), TR_DTYPE_INVALID, false, &o);
    GError *error = NULL;
    if (ok && !tr_graph_add_output(mt->trace.graph, o.out, &error)) {
      lang_tf_raise_any(L, error);
      ok = false;
    }
    if (ok)
      lang_tf_operand_clear(&o);
  }
  lang_decref(r);
  return ok;
}

static TrGraph *
trace_map_fn(LangState *L, LangTfDataset *d, LangValue fn, LangValue *structure)
{
  LangTfState *st = lang_tf_state(L);
  MapTrace mt = {.saved = st->trace, .structure = LANG_UNSET};
  mt.trace.graph = tr_graph_new("Dataset_map_fn");
  mt.trace.consts = g_hash_table_new(NULL, NULL);
  mt.trace.fn_name = "Dataset.map";
  st->trace = &mt.trace;
  LangValue result = call_map_fn(L, d, fn, mt.trace.graph);
  bool ok = !lang_is_exc(result) && map_outputs(L, &mt, result);
  st->trace = mt.saved;
  if (!lang_is_exc(result))
    lang_decref(result);
  if (ok && mt.trace.error) {
    lang_raise_str(L, &lang_exc_ValueError, mt.trace.error);
    ok = false;
  }
  g_free(mt.trace.error);
  g_hash_table_unref(mt.trace.consts);
  if (!ok) {
    if (!lang_is_unset(mt.structure) && !lang_is_exc(mt.structure))
      lang_decref(mt.structure);
    tr_graph_unref(mt.trace.graph);
    return NULL;
  }
  *structure = mt.structure;
  return mt.trace.graph;
}

static LangValue
dataset_map(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue fn, parallel = LANG_UNSET, deterministic = LANG_UNSET, name = LANG_UNSET;
  if (!lang_parse_args(L, "map", args, nargs, kwnames,
                       "map_func,num_parallel_calls=,deterministic=,name=", &fn, &parallel,
                       &deterministic, &name))
    return LANG_EXC;
  TrDataset *input = eager_dataset_or_raise(L, self, "map");
  if (!input)
    return LANG_EXC;
  LangValue structure;
  g_autoptr(TrGraph) graph = trace_map_fn(L, dataset_of(self), fn, &structure);
  if (!graph)
    return LANG_EXC;
  GError *error = NULL;
  TrDataset *ds = tr_dataset_new_map(input, graph, &error);
  if (!ds) {
    lang_decref(structure);
    return lang_tf_raise_any(L, error);
  }
  bool parallel_given = !lang_is_unset(parallel) && parallel.tag != LANG_TAG_NONE;
  return dataset_wrap(L, ds, structure, parallel_given ? "_ParallelMapDataset" : "_MapDataset");
}

static LangValue
dataset_cardinality(LangState *L, LangValue self, const LangValue *args, int nargs,
                    LangObject *kwnames)
{
  if (!lang_check_nargs(L, "cardinality", nargs, 0, 0))
    return LANG_EXC;
  TrDataset *ds = eager_dataset_or_raise(L, self, "cardinality");
  if (!ds)
    return LANG_EXC;
  return lang_tf_tensor_new(L, tr_tensor_new_int64(tr_dataset_cardinality(ds)));
}

static bool
dataset_len(LangState *L, LangValue self, int64_t *out)
{
  TrDataset *ds = dataset_value(self);
  if (!ds) {
    lang_raise_str(L, &lang_exc_TypeError,
                   "`tf.data.Dataset` only supports `len` in eager mode. Use "
                   "`tf.data.Dataset.cardinality()` instead.");
    return false;
  }
  int64_t n = tr_dataset_cardinality(ds);
  if (n < 0) {
    lang_raise_str(L, &lang_exc_TypeError, "The dataset length is unknown.");
    return false;
  }
  *out = n;
  return true;
}

/* ---- iterators --------------------------------------------------------------------------------
 */

typedef struct {
  LangObject base;   /* lang_tf_iterator_type */
  LangValue dataset; /* the Dataset iterated (owned): its structure and spec */
  LangValue handle;  /* tf.Tensor holding the TrIterator (concrete or symbolic), or UNSET until a
                      * traced iterator is first used (owned) */
  LangValue loop;    /* the AutoGraph loop a `for` over it became (owned), or UNSET */
  bool numpy;        /* as_numpy_iterator(): components come out as NumPy-like values */
  int traced_nexts;  /* IteratorGetNext nodes made by next() while tracing */
} LangTfIterator;

/* Python iteration that is not a `for` statement (list(ds), a comprehension) would add
 * IteratorGetNext nodes forever inside a trace: it stops with an error after this many. */
enum { MAX_TRACED_NEXTS = 10000 };

LangType lang_tf_iterator_type;

bool
lang_tf_is_dataset_iterator(LangValue v)
{
  return v.tag == LANG_TAG_OBJ && v.o->type == &lang_tf_iterator_type;
}

static LangTfIterator *
iterator_of(LangValue v)
{
  return (LangTfIterator *)v.o;
}

static void
iterator_dealloc(LangObject *o)
{
  LangTfIterator *it = (LangTfIterator *)o;
  lang_decref(it->dataset);
  lang_decref(it->handle);
  lang_decref(it->loop);
}

static LangValue
iterator_new(LangState *L, LangValue dataset, LangValue handle)
{
  LangTfIterator *it =
      (LangTfIterator *)lang_object_alloc(L, &lang_tf_iterator_type, sizeof(LangTfIterator));
  it->dataset = lang_incref(dataset);
  it->handle = handle;
  it->loop = LANG_UNSET;
  return lang_obj(it);
}

/* tf.print inside a map function writes to the session's stdout while iterating eagerly. */
static void
eager_print(const char *text, size_t len, bool to_stderr, void *user)
{
  if (to_stderr)
    lang_write_err(user, text, len);
  else
    lang_write_out(user, text, len);
}

static LangValue
dataset_iter(LangState *L, LangValue self)
{
  if (lang_tf_trace(L) || !dataset_value(self))
    return iterator_new(L, self, LANG_UNSET);
  GError *error = NULL;
  TrIterator *it = tr_iterator_new(dataset_value(self), &error);
  if (!it)
    return lang_tf_raise_any(L, error);
  LangValue handle = lang_tf_tensor_new(L, tr_tensor_new_variant((TrVariant *)it));
  tr_iterator_unref(it);
  return iterator_new(L, self, handle);
}

/* A component as the iterator hands it out. */
static LangValue
component_value(LangState *L, TrTensor *t, bool numpy)
{
  LangValue v = lang_tf_tensor_new(L, t);
  if (!numpy || lang_is_exc(v))
    return v;
  LangValue r = lang_call_method(L, v, "numpy", NULL, 0, NULL);
  lang_decref(v);
  return r;
}

static LangValue
eager_next(LangState *L, LangTfIterator *it)
{
  LangTfDataset *d = dataset_of(it->dataset);
  TrIterator *ti = tr_tensor_get_iterator(lang_tf_tensor_value(it->handle));
  g_autofree TrTensor **out = g_new0(TrTensor *, MAX(d->n, 1));
  bool end = false;
  GError *error = NULL;
  TrRunContext ctx = {eager_print, L};
  if (!tr_iterator_next(ti, out, &end, &ctx, &error))
    return lang_tf_raise_any(L, error);
  if (end)
    return LANG_UNSET;
  g_autofree LangValue *items = g_new0(LangValue, MAX(d->n, 1));
  bool ok = true;
  for (int i = 0; i < d->n; i++) {
    items[i] = ok ? component_value(L, out[i], it->numpy) : LANG_UNSET;
    if (!ok)
      tr_tensor_unref(out[i]);
    ok = ok && !lang_is_exc(items[i]);
  }
  LangValue r = ok ? structure_pack(L, d->structure, items) : LANG_EXC;
  for (int i = 0; i < d->n; i++)
    if (!lang_is_unset(items[i]) && !lang_is_exc(items[i]))
      lang_decref(items[i]);
  return r;
}

/* The symbolic element a node's outputs first.. stand for, in `g`. */
static LangValue
symbolic_element(LangState *L, LangTfDataset *d, TrGraph *g, TrNode *node, int first)
{
  g_autofree LangValue *items = g_new0(LangValue, MAX(d->n, 1));
  for (int i = 0; i < d->n; i++)
    items[i] = lang_tf_symbolic_new(L, g, tr_node_output(node, first + i));
  LangValue r = structure_pack(L, d->structure, items);
  for (int i = 0; i < d->n; i++)
    lang_decref(items[i]);
  return r;
}

/* A traced iterator's handle: a MakeIterator node over its dataset, made on first use. */
static bool
traced_handle(LangState *L, LangTfIterator *it, LangTfOperand *out)
{
  if (!lang_is_unset(it->handle))
    return lang_tf_operand(L, it->handle, TR_VARIANT, false, out);
  LangTfOperand ds;
  if (!lang_tf_operand(L, dataset_of(it->dataset)->variant, TR_VARIANT, false, &ds))
    return false;
  GError *error = NULL;
  LangTfTrace *tr = lang_tf_trace(L);
  TrNode *node = tr_graph_add_make_iterator(tr->graph, ds.out, NULL, &error);
  lang_tf_operand_clear(&ds);
  if (!node) {
    lang_tf_raise_any(L, error);
    return false;
  }
  it->handle = lang_tf_symbolic_new(L, tr->graph, tr_node_output(node, 0));
  return lang_tf_operand(L, it->handle, TR_VARIANT, false, out);
}

/* next(it) inside a trace: an IteratorGetNext node, advancing the iterator when the graph runs. */
static LangValue
traced_next(LangState *L, LangTfIterator *it)
{
  LangTfDataset *d = dataset_of(it->dataset);
  if (++it->traced_nexts > MAX_TRACED_NEXTS)
    return lang_raise_str(L, &lang_tf_exc_OperatorNotAllowedInGraphError,
                          "Iterating over a tf.data iterator inside a traced function with Python "
                          "iteration (list(), a comprehension) does not end: use a `for` "
                          "statement, which becomes a dataset loop, or next() a known number of "
                          "times.");
  LangTfOperand h;
  if (!traced_handle(L, it, &h))
    return LANG_EXC;
  TrGraph *g = lang_tf_trace(L)->graph;
  GError *error = NULL;
  TrNode *node = tr_graph_add_iterator_get_next(g, h.out, d->n, d->dtypes, d->shapes, NULL, &error);
  lang_tf_operand_clear(&h);
  if (!node)
    return lang_tf_raise_any(L, error);
  return symbolic_element(L, d, g, node, 0);
}

static LangValue data_loop_new(LangState *L, LangValue dataset, LangValue handle);

/* Called by a `for` statement of the function being traced. */
static bool
called_by_for(LangState *L)
{
  const int *slots;
  int n_slots;
  LangObject *const *varnames;
  const LangLoopInfo *info;
  return lang_vm_loop_locals(L, &slots, &n_slots, &varnames, &info) != NULL;
}

static LangValue
iterator_next(LangState *L, LangValue self)
{
  LangTfIterator *it = iterator_of(self);
  if (!lang_is_unset(it->loop))
    return lang_type_of(it->loop)->slots.next(L, it->loop);
  bool concrete = !lang_is_unset(it->handle) && lang_tf_tensor_value(it->handle);
  if (!lang_tf_trace(L)) {
    if (!concrete)
      return lang_raise_str(L, &lang_exc_RuntimeError,
                            "This iterator belongs to a traced function and cannot be used "
                            "outside of it.");
    return eager_next(L, it);
  }
  if (called_by_for(L)) {
    it->loop = data_loop_new(L, it->dataset, it->handle);
    if (lang_is_exc(it->loop)) {
      it->loop = LANG_UNSET;
      return LANG_EXC;
    }
    return lang_type_of(it->loop)->slots.next(L, it->loop);
  }
  return traced_next(L, it);
}

static LangValue
iterator_iter(LangState *L, LangValue self)
{
  return lang_incref(self);
}

static LangValue
iterator_get_next(LangState *L, LangValue self, const LangValue *args, int nargs,
                  LangObject *kwnames)
{
  if (!lang_check_nargs(L, "get_next", nargs, 0, 0))
    return LANG_EXC;
  return lang_next_or_stop(L, self);
}

static LangValue
iterator_get_element_spec(LangState *L, LangValue self)
{
  return dataset_get_element_spec(L, iterator_of(self)->dataset);
}

static LangValue
iterator_repr(LangState *L, LangValue self)
{
  if (iterator_of(self)->numpy)
    return lang_str_printf(L,
                           "<tensorflow.python.data.ops.dataset_ops._NumpyIterator object at "
                           "%#" G_GINT64_MODIFIER "x>",
                           (gint64)lang_id(self));
  return lang_str_printf(L,
                         "<tensorflow.python.data.ops.iterator_ops.OwnedIterator object at "
                         "%#" G_GINT64_MODIFIER "x>",
                         (gint64)lang_id(self));
}

static LangValue
dataset_as_numpy_iterator(LangState *L, LangValue self, const LangValue *args, int nargs,
                          LangObject *kwnames)
{
  if (!lang_check_nargs(L, "as_numpy_iterator", nargs, 0, 0))
    return LANG_EXC;
  if (lang_tf_trace(L) || !dataset_value(self))
    return lang_raise_str(L, &lang_exc_RuntimeError,
                          "`tf.data.Dataset.as_numpy_iterator()` is only supported in eager mode.");
  LangValue it = dataset_iter(L, self);
  if (!lang_is_exc(it))
    iterator_of(it)->numpy = true;
  return it;
}

/* ---- the `for` loop source: a While over (iterator, has_value, components...) --------------- */

typedef struct {
  LangTfLoopSource source; /* this source (n_state = 2 + n) */
  bool make;               /* `handle` is a dataset: the loop makes its iterator */
  TrOutput handle;         /* the dataset or iterator, in the enclosing graph */
  int n;                   /* components */
  TrDType *dtypes;         /* per component (owned) */
  TrShape *shapes;         /* per component (owned) */
  LangValue structure;     /* the element structure (owned) */
  char **names;            /* state placeholder names (owned, NULL-terminated) */
} DataLoop;

static bool
data_loop_init(LangState *L, void *data, TrGraph *g, TrOutput *state, GError **error)
{
  DataLoop *dl = data;
  TrOutput it = dl->handle;
  if (dl->make) {
    TrNode *make = tr_graph_add_make_iterator(g, dl->handle, NULL, error);
    if (!make)
      return false;
    it = tr_node_output(make, 0);
  }
  TrNode *first =
      tr_graph_add_iterator_get_next_as_optional(g, it, dl->n, dl->dtypes, dl->shapes, NULL, error);
  if (!first)
    return false;
  state[0] = it;
  for (int i = 0; i <= dl->n; i++)
    state[1 + i] = tr_node_output(first, i);
  return true;
}

static bool
data_loop_test(void *data, TrGraph *cond, const TrOutput *state, TrOutput *more, GError **error)
{
  *more = state[1];
  return true;
}

static LangValue
data_loop_element(LangState *L, void *data, TrGraph *body, const TrOutput *state)
{
  DataLoop *dl = data;
  g_autofree LangValue *items = g_new0(LangValue, MAX(dl->n, 1));
  for (int i = 0; i < dl->n; i++)
    items[i] = lang_tf_symbolic_new(L, body, state[2 + i]);
  LangValue r = structure_pack(L, dl->structure, items);
  for (int i = 0; i < dl->n; i++)
    lang_decref(items[i]);
  return r;
}

static bool
data_loop_step(void *data, TrGraph *body, const TrOutput *state, TrOutput *next, GError **error)
{
  DataLoop *dl = data;
  TrNode *node = tr_graph_add_iterator_get_next_as_optional(body, state[0], dl->n, dl->dtypes,
                                                            dl->shapes, NULL, error);
  if (!node)
    return false;
  next[0] = state[0];
  for (int i = 0; i <= dl->n; i++)
    next[1 + i] = tr_node_output(node, i);
  return true;
}

static void
data_loop_free(void *data)
{
  DataLoop *dl = data;
  g_free(dl->dtypes);
  g_free(dl->shapes);
  lang_decref(dl->structure);
  g_strfreev(dl->names);
  g_free(dl);
}

/* The loop over `handle` (an iterator tensor) or, when it is UNSET, over a new iterator of
 * `dataset`. */
static LangValue
data_loop_new(LangState *L, LangValue dataset, LangValue handle)
{
  LangTfDataset *d = dataset_of(dataset);
  if (d->n + 2 > LANG_TF_LOOP_MAX_STATE)
    return lang_raise(L, &lang_exc_NotImplementedError,
                      "a `for` loop over a dataset inside a traced function supports elements of "
                      "at most %d components",
                      LANG_TF_LOOP_MAX_STATE - 2);
  bool make = lang_is_unset(handle);
  LangTfOperand h;
  if (!lang_tf_operand(L, make ? d->variant : handle, TR_VARIANT, false, &h))
    return LANG_EXC;
  lang_tf_operand_clear(&h);
  DataLoop *dl = g_new0(DataLoop, 1);
  dl->make = make;
  dl->handle = h.out;
  dl->n = d->n;
  dl->dtypes = g_memdup2(d->dtypes, sizeof(TrDType) * (size_t)MAX(d->n, 1));
  dl->shapes = g_memdup2(d->shapes, sizeof(TrShape) * (size_t)MAX(d->n, 1));
  dl->structure = lang_incref(d->structure);
  dl->names = g_new0(char *, d->n + 3);
  dl->names[0] = g_strdup("iterator");
  dl->names[1] = g_strdup("has_value");
  for (int i = 0; i < d->n; i++)
    dl->names[2 + i] = g_strdup_printf("element_%d", i);
  dl->source = (LangTfLoopSource){
      .n_state = d->n + 2,
      .names = (const char *const *)dl->names,
      .init = data_loop_init,
      .test = data_loop_test,
      .element = data_loop_element,
      .step = data_loop_step,
      .free = data_loop_free,
  };
  return lang_tf_loop_new_source(L, &dl->source, dl);
}

LangValue
lang_tf_dataset_loop_new(LangState *L, LangValue dataset)
{
  g_return_val_if_fail(lang_tf_is_dataset(dataset), LANG_EXC);
  return data_loop_new(L, dataset, LANG_UNSET);
}

/* ---- datasets and iterators as Function arguments ------------------------------------------- */

/* The element spec as trace types: TensorSpecs laid out as the structure. */
static TrTraceType *
spec_trace_type(LangState *L, LangValue structure, const LangTfDataset *d)
{
  if (structure.tag == LANG_TAG_INT)
    return tr_trace_type_new_tensor(d->dtypes[structure.i], &d->shapes[structure.i], NULL);
  if (lang_is_type(structure, &lang_tuple_type)) {
    int n = (int)lang_tuple_len(structure.o);
    g_autofree TrTraceType **items = g_new(TrTraceType *, MAX(n, 1));
    for (int i = 0; i < n; i++)
      items[i] = spec_trace_type(L, lang_tuple_get(structure.o, i), d);
    return tr_trace_type_new_tuple(n, items);
  }
  int n = (int)((LangDict *)structure.o)->used, i = 0;
  g_autofree TrTraceType **keys = g_new(TrTraceType *, MAX(n, 1));
  g_autofree TrTraceType **vals = g_new(TrTraceType *, MAX(n, 1));
  int64_t pos = 0;
  LangValue key, sub;
  while (lang_dict_next(structure.o, &pos, &key, &sub) && i < n) {
    keys[i] = lang_is_str(key) ? tr_trace_type_new_str(lang_str_data(key.o))
                               : tr_trace_type_new_int(key.tag == LANG_TAG_INT ? key.i : 0);
    vals[i++] = spec_trace_type(L, sub, d);
  }
  return tr_trace_type_new_dict(i, keys, vals);
}

TrTraceType *
lang_tf_data_trace_type(LangState *L, LangValue v)
{
  bool iterator = lang_tf_is_dataset_iterator(v);
  LangTfDataset *d = dataset_of(iterator ? iterator_of(v)->dataset : v);
  static const char *const fields[] = {"element_spec"};
  TrTraceType *spec = spec_trace_type(L, d->structure, d);
  return tr_trace_type_new_namedtuple(iterator ? "IteratorSpec" : "DatasetSpec", 1, fields, &spec);
}

LangValue
lang_tf_data_placeholder(LangState *L, TrGraph *g, LangValue v, const char *name)
{
  TrShape scalar = tr_shape_scalar();
  TrNode *ph = tr_graph_add_placeholder(g, TR_VARIANT, &scalar, name);
  LangValue handle = lang_tf_symbolic_new(L, g, tr_node_output(ph, 0));
  if (lang_tf_is_dataset_iterator(v))
    return iterator_new(L, iterator_of(v)->dataset, handle);
  LangTfDataset *d = dataset_of(v);
  return dataset_new(L, handle, lang_incref(d->structure), d->n, d->dtypes, d->shapes, d->kind);
}

bool
lang_tf_data_operand(LangState *L, LangValue v, LangTfOperand *out)
{
  if (lang_tf_is_dataset(v))
    return lang_tf_operand(L, dataset_of(v)->variant, TR_VARIANT, false, out);
  LangTfIterator *it = iterator_of(v);
  if (lang_tf_trace(L))
    return traced_handle(L, it, out);
  if (lang_is_unset(it->handle)) {
    lang_raise_str(L, &lang_exc_RuntimeError,
                   "This iterator belongs to a traced function and cannot be used outside of it.");
    return false;
  }
  return lang_tf_operand(L, it->handle, TR_VARIANT, false, out);
}

/* ---- types and the module -------------------------------------------------------------------- */

static const LangMethodDef dataset_methods[] = {
    {"from_tensor_slices", data_from_tensor_slices, "(tensors, name=None)",
     "A dataset whose elements are slices of the given tensors along their first dimension.",
     LANG_METH_STATIC},
    {"from_tensors", data_from_tensors, "(tensors, name=None)",
     "A dataset of one element, the given tensors.", LANG_METH_STATIC},
    {"from_generator", data_from_generator,
     "(generator, output_types=None, output_shapes=None, args=None, output_signature=None, "
     "name=None)",
     "A dataset whose elements the Python generator yields.", LANG_METH_STATIC},
    {"range", data_range, "(*args, output_type=tf.int64, name=None)",
     "A dataset of a step-separated range of int64 values.", LANG_METH_STATIC},
    {"batch", dataset_batch,
     "(self, batch_size, drop_remainder=False, num_parallel_calls=None, deterministic=None, "
     "name=None)",
     "Combines consecutive elements into batches.", 0},
    {"map", dataset_map, "(self, map_func, num_parallel_calls=None, deterministic=None, name=None)",
     "Maps map_func (traced once into a graph) across the elements.", 0},
    {"cardinality", dataset_cardinality, "(self)", "The number of elements, or -2 when unknown.",
     0},
    {"as_numpy_iterator", dataset_as_numpy_iterator, "(self)",
     "An iterator giving the elements' NumPy values.", 0},
    {NULL, NULL, NULL, NULL, 0},
};

static const LangGetSetDef dataset_getsets[] = {
    {"element_spec", dataset_get_element_spec, NULL, "The type specification of an element."},
    {NULL, NULL, NULL, NULL},
};

LangType lang_tf_dataset_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "DatasetV2",
    .instance_size = sizeof(LangTfDataset),
    .flags = LANG_TYPE_ABSTRACT_NEW,
    .slots = {.dealloc = dataset_dealloc,
              .repr = dataset_repr,
              .iter = dataset_iter,
              .len = dataset_len},
    .methods = dataset_methods,
    .getsets = dataset_getsets,
    .doc = "Represents a potentially large set of elements.",
};

static const LangMethodDef iterator_methods[] = {
    {"get_next", iterator_get_next, "(self)", "The next element.", 0},
    {NULL, NULL, NULL, NULL, 0},
};

static const LangGetSetDef iterator_getsets[] = {
    {"element_spec", iterator_get_element_spec, NULL, "The type specification of an element."},
    {NULL, NULL, NULL, NULL},
};

LangType lang_tf_iterator_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "OwnedIterator",
    .instance_size = sizeof(LangTfIterator),
    .flags = LANG_TYPE_ABSTRACT_NEW,
    .slots = {.dealloc = iterator_dealloc,
              .repr = iterator_repr,
              .iter = iterator_iter,
              .next = iterator_next},
    .methods = iterator_methods,
    .getsets = iterator_getsets,
};

LangValue
lang_tf_data_module_new(LangState *L)
{
  lang_type_ready(&lang_tf_dataset_type, "tensorflow.python.data.ops.dataset_ops");
  lang_type_ready(&lang_tf_iterator_type, "tensorflow.python.data.ops.iterator_ops");
  LangValue m = lang_module_new(L, "tensorflow.data", "tf.data: input pipelines.");
  lang_module_add(L, m, "Dataset", lang_obj(&lang_tf_dataset_type));
  lang_module_add(L, m, "Iterator", lang_obj(&lang_tf_iterator_type));
  lang_module_add(L, m, "AUTOTUNE", lang_int(-1));
  return m;
}
