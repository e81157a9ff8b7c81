/* lang-tf-tensor.c — tf.Tensor, tf.TensorShape, the ndarray that numpy() returns, and
 * convert_to_tensor: how Python values become TrTensors and tensors behave as Python objects.
 *
 * Operators follow TensorFlow's tensor overloads: the other operand is converted with the
 * tensor's dtype as a hint (so `x + 1` stays float32 for a float32 x), `/` is truediv, `==` is
 * elementwise and hashing is refused. Indexing builds one StridedSlice with TF's masks.
 */
#include "lang-tf-private.h"
#include "tr-ops.h"
#include "tr-print.h"

#include <math.h>
#include <string.h>

/* ---- tensor objects ------------------------------------------------------------------- */

LangValue
lang_tf_tensor_new(LangState *L, TrTensor *t)
{
  if (!t)
    return LANG_EXC;
  LangTfTensor *o =
      (LangTfTensor *)lang_object_alloc(L, &lang_tf_tensor_type, sizeof(LangTfTensor));
  o->value = t;
  return lang_obj(o);
}

LangValue
lang_tf_result(LangState *L, TrTensor *t, GError *error)
{
  if (!t)
    return lang_tf_raise_error(L, error);
  return lang_tf_tensor_new(L, t);
}

static void
tensor_dealloc(LangObject *o)
{
  LangTfTensor *t = (LangTfTensor *)o;
  if (t->value)
    tr_tensor_unref(t->value);
  if (t->graph)
    tr_graph_unref(t->graph);
}

/* TensorFlow's OperatorNotAllowedInGraphError: Python control over a symbolic tensor. */
LangType lang_tf_exc_OperatorNotAllowedInGraphError = {
    LANG_STATIC_TYPE_HEAD,
    .name = "OperatorNotAllowedInGraphError",
    .base_type = &lang_exc_TypeError,
    .instance_size = sizeof(LangExc),
    .dict_offset = offsetof(LangExc, dict),
    .flags = LANG_TYPE_BASETYPE | LANG_TYPE_EXCEPTION | LANG_TYPE_GC,
};

/* The text of a symbolic tensor's name: "add:0". */
static char *
symbolic_name(LangValue self)
{
  return tr_output_name(lang_tf_symbolic_output(self));
}

/* The eager value of self; for a symbolic tensor, TypeError saying `what` needs a value. */
static TrTensor *
self_value_for(LangState *L, LangValue self, const char *what)
{
  TrTensor *t = lang_tf_tensor_value(self);
  if (!t) {
    g_autofree char *name = symbolic_name(self);
    lang_raise(L, &lang_exc_TypeError,
               "%s needs the value of a symbolic tensor (%s), which exists only when its graph "
               "runs. Return the tensor from the tf.function instead.",
               what, name);
  }
  return t;
}

static TrTensor *
self_value(LangState *L, LangValue self)
{
  return self_value_for(L, self, "This operation");
}

static LangValue
text_result(LangState *L, char *text)
{
  LangValue s = lang_str_cstr(L, text);
  g_free(text);
  return s;
}

static LangValue
tensor_repr(LangState *L, LangValue self)
{
  TrTensor *t = lang_tf_tensor_value(self);
  if (t)
    return text_result(L, tr_tensor_repr(t));
  TrOutput out = lang_tf_symbolic_output(self);
  g_autofree char *name = tr_output_name(out);
  g_autofree char *shape = tr_shape_to_string(tr_output_shape(out));
  return lang_str_printf(L, "<tf.Tensor '%s' shape=%s dtype=%s>", name, shape,
                         tr_dtype_name(tr_output_dtype(out)));
}

static LangValue
tensor_str(LangState *L, LangValue self)
{
  TrTensor *t = lang_tf_tensor_value(self);
  if (t)
    return text_result(L, tr_tensor_to_string(t));
  return text_result(L, tr_output_to_string(lang_tf_symbolic_output(self)));
}

static bool
tensor_hash(LangState *L, LangValue self, int64_t *out)
{
  lang_raise_str(L, &lang_exc_TypeError,
                 "Tensor is unhashable. Instead, use tensor.ref() as the key.");
  return false;
}

/* One element as a Python value: int, float, bool or bytes. */
static LangValue
element_value(LangState *L, const TrTensor *t, int64_t i)
{
  switch (t->dtype) {
    case TR_FLOAT32:
    case TR_FLOAT64:
      return lang_float(tr_tensor_get_f64(t, i));
    case TR_INT32:
    case TR_INT64:
      return lang_int(tr_tensor_get_i64(t, i));
    case TR_BOOL:
      return lang_bool(tr_tensor_get_i64(t, i) != 0);
    case TR_STRING: {
      const TrString *s = tr_tensor_get_string(t, i);
      return lang_bytes_new(L, s->data, (int64_t)s->len);
    }
    default:
      g_assert_not_reached();
  }
}

/* ---- ndarray: what numpy() returns for arrays ---- */

typedef struct {
  LangObject base; /* lang_tf_ndarray_type */
  TrTensor *value; /* owned; never 0-d */
} LangTfNdarray;

static LangValue
ndarray_new(LangState *L, TrTensor *t)
{
  LangTfNdarray *o =
      (LangTfNdarray *)lang_object_alloc(L, &lang_tf_ndarray_type, sizeof(LangTfNdarray));
  o->value = tr_tensor_ref(t);
  return lang_obj(o);
}

static void
ndarray_dealloc(LangObject *o)
{
  tr_tensor_unref(((LangTfNdarray *)o)->value);
}

static LangValue
ndarray_repr(LangState *L, LangValue self)
{
  return text_result(L, tr_tensor_numpy_repr(((LangTfNdarray *)self.o)->value));
}

static LangValue
ndarray_str(LangState *L, LangValue self)
{
  return text_result(L, tr_tensor_numpy_str(((LangTfNdarray *)self.o)->value));
}

/* Nested lists of the elements from flat index *pos on, for dims from `level` on. */
static LangValue
tolist_level(LangState *L, const TrTensor *t, int level, int64_t *pos)
{
  if (level == t->shape.rank)
    return element_value(L, t, (*pos)++);
  int64_t n = t->shape.dims[level];
  LangValue list = lang_list_new(L, n);
  for (int64_t i = 0; i < n; i++) {
    LangValue item = tolist_level(L, t, level + 1, pos);
    if (lang_is_exc(item)) {
      lang_decref(list);
      return item;
    }
    lang_list_set(list.o, i, item);
  }
  return list;
}

static LangValue
ndarray_tolist(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  if (!lang_parse_args(L, "tolist", args, nargs, kwnames, ""))
    return LANG_EXC;
  int64_t pos = 0;
  return tolist_level(L, ((LangTfNdarray *)self.o)->value, 0, &pos);
}

static LangValue
shape_tuple(LangState *L, const TrShape *shape)
{
  LangValue tuple = lang_tuple_new(L, shape->rank);
  for (int i = 0; i < shape->rank; i++)
    lang_tuple_set(tuple, i, shape->dims[i] < 0 ? LANG_NONE : lang_int(shape->dims[i]));
  return tuple;
}

static LangValue
ndarray_get_shape(LangState *L, LangValue self)
{
  return shape_tuple(L, &((LangTfNdarray *)self.o)->value->shape);
}

static LangValue
ndarray_get_ndim(LangState *L, LangValue self)
{
  return lang_int(((LangTfNdarray *)self.o)->value->shape.rank);
}

static LangValue
ndarray_get_dtype(LangState *L, LangValue self)
{
  return lang_str_cstr(L, tr_dtype_np_name(((LangTfNdarray *)self.o)->value->dtype));
}

static bool
ndarray_len(LangState *L, LangValue self, int64_t *out)
{
  *out = ((LangTfNdarray *)self.o)->value->shape.dims[0];
  return true;
}

static LangValue
ndarray_iter(LangState *L, LangValue self)
{
  int64_t pos = 0;
  LangValue list = tolist_level(L, ((LangTfNdarray *)self.o)->value, 0, &pos);
  if (lang_is_exc(list))
    return list;
  LangValue it = lang_iter(L, list);
  lang_decref(list);
  return it;
}

static const LangMethodDef ndarray_methods[] = {
    {"tolist", ndarray_tolist, "(self, /)", "The array as nested Python lists.", 0},
    {NULL, NULL, NULL, NULL, 0},
};

static const LangGetSetDef ndarray_getsets[] = {
    {"shape", ndarray_get_shape, NULL, "Tuple of array dimensions."},
    {"ndim", ndarray_get_ndim, NULL, "Number of array dimensions."},
    {"dtype", ndarray_get_dtype, NULL, "Data-type of the array's elements."},
    {NULL, NULL, NULL, NULL},
};

LangType lang_tf_ndarray_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "ndarray",
    .instance_size = sizeof(LangTfNdarray),
    .flags = LANG_TYPE_ABSTRACT_NEW,
    .slots = {.dealloc = ndarray_dealloc,
              .repr = ndarray_repr,
              .str = ndarray_str,
              .len = ndarray_len,
              .iter = ndarray_iter},
    .methods = ndarray_methods,
    .getsets = ndarray_getsets,
};

/* ---- TensorShape ---- */

typedef struct {
  LangObject base; /* lang_tf_tensor_shape_type */
  TrShape shape;   /* possibly partial */
} LangTfShape;

LangValue
lang_tf_shape_new(LangState *L, const TrShape *shape)
{
  LangTfShape *o =
      (LangTfShape *)lang_object_alloc(L, &lang_tf_tensor_shape_type, sizeof(LangTfShape));
  o->shape = *shape;
  return lang_obj(o);
}

static const TrShape *
shape_of(LangValue self)
{
  return &((LangTfShape *)self.o)->shape;
}

static LangValue
shape_str(LangState *L, LangValue self)
{
  return text_result(L, tr_shape_to_string(shape_of(self)));
}

/* TensorShape([2, None]) / TensorShape(None) */
static LangValue
shape_repr(LangState *L, LangValue self)
{
  const TrShape *s = shape_of(self);
  if (s->rank < 0)
    return lang_str_cstr(L, "TensorShape(None)");
  GString *out = g_string_new("TensorShape([");
  for (int i = 0; i < s->rank; i++) {
    if (i)
      g_string_append(out, ", ");
    if (s->dims[i] < 0)
      g_string_append(out, "None");
    else
      g_string_append_printf(out, "%" G_GINT64_FORMAT, s->dims[i]);
  }
  g_string_append(out, "])");
  return lang_str_from_gstring(L, out);
}

static LangValue
shape_as_list(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  if (!lang_parse_args(L, "as_list", args, nargs, kwnames, ""))
    return LANG_EXC;
  const TrShape *s = shape_of(self);
  if (s->rank < 0)
    return lang_raise_str(L, &lang_exc_ValueError,
                          "as_list() is not defined on an unknown TensorShape.");
  LangValue list = lang_list_new(L, s->rank);
  for (int i = 0; i < s->rank; i++)
    lang_list_set(list.o, i, s->dims[i] < 0 ? LANG_NONE : lang_int(s->dims[i]));
  return list;
}

static LangValue
shape_num_elements(LangState *L, LangValue self, const LangValue *args, int nargs,
                   LangObject *kwnames)
{
  if (!lang_parse_args(L, "num_elements", args, nargs, kwnames, ""))
    return LANG_EXC;
  int64_t n = tr_shape_num_elements(shape_of(self));
  return n < 0 ? LANG_NONE : lang_int(n);
}

static LangValue
shape_is_fully_defined(LangState *L, LangValue self, const LangValue *args, int nargs,
                       LangObject *kwnames)
{
  if (!lang_parse_args(L, "is_fully_defined", args, nargs, kwnames, ""))
    return LANG_EXC;
  return lang_bool(tr_shape_is_fully_defined(shape_of(self)));
}

static LangValue
shape_get_rank(LangState *L, LangValue self)
{
  int rank = shape_of(self)->rank;
  return rank < 0 ? LANG_NONE : lang_int(rank);
}

static bool
shape_len(LangState *L, LangValue self, int64_t *out)
{
  int rank = shape_of(self)->rank;
  if (rank < 0) {
    lang_raise_str(L, &lang_exc_ValueError, "Cannot take the length of shape with unknown rank.");
    return false;
  }
  *out = rank;
  return true;
}

static LangValue
shape_getitem(LangState *L, LangValue self, LangValue key)
{
  const TrShape *s = shape_of(self);
  if (lang_is_type(key, &lang_slice_type)) {
    if (s->rank < 0)
      return lang_tf_shape_new(L, s);
    int64_t start, stop, step, count;
    if (!lang_slice_indices(L, key.o, s->rank, &start, &stop, &step, &count))
      return LANG_EXC;
    TrShape r = {.rank = (int)count};
    for (int64_t i = 0; i < count; i++)
      r.dims[i] = s->dims[start + i * step];
    return lang_tf_shape_new(L, &r);
  }
  int64_t i;
  if (!lang_to_index(L, key, &i))
    return LANG_EXC;
  if (s->rank < 0)
    return LANG_NONE;
  if (i < 0)
    i += s->rank;
  if (i < 0 || i >= s->rank)
    return lang_raise_index(L, "list index out of range");
  return s->dims[i] < 0 ? LANG_NONE : lang_int(s->dims[i]);
}

static LangValue
shape_iter(LangState *L, LangValue self)
{
  LangValue list = shape_as_list(L, self, NULL, 0, NULL);
  if (lang_is_exc(list))
    return list;
  LangValue it = lang_iter(L, list);
  lang_decref(list);
  return it;
}

/* TensorShape == TensorShape / list / tuple: equal dims (None only equals None). */
static LangValue
shape_compare(LangState *L, LangValue a, LangValue b, LangCompareOp op)
{
  if ((op != LANG_EQ && op != LANG_NE) || !lang_is_type(a, &lang_tf_tensor_shape_type))
    return LANG_NOTIMPL;
  TrShape other;
  if (lang_is_type(b, &lang_tf_tensor_shape_type))
    other = *shape_of(b);
  else if (lang_is_type(b, &lang_list_type) || lang_is_type(b, &lang_tuple_type)) {
    if (!lang_tf_shape_arg(L, b, &other)) {
      lang_exc_clear(L);
      return lang_bool(op == LANG_NE);
    }
  } else
    return LANG_NOTIMPL;
  const TrShape *s = shape_of(a);
  bool eq = s->rank == other.rank;
  for (int i = 0; eq && i < s->rank; i++)
    eq = s->dims[i] == other.dims[i];
  return lang_bool(eq == (op == LANG_EQ));
}

static const LangMethodDef shape_methods[] = {
    {"as_list", shape_as_list, "(self)", "The dimensions as a list of ints (None if unknown).", 0},
    {"num_elements", shape_num_elements, "(self)", "The element count, or None.", 0},
    {"is_fully_defined", shape_is_fully_defined, "(self)", "Whether every dim is known.", 0},
    {NULL, NULL, NULL, NULL, 0},
};

static const LangGetSetDef shape_getsets[] = {
    {"rank", shape_get_rank, NULL, "The number of dimensions, or None."},
    {"ndims", shape_get_rank, NULL, "The number of dimensions, or None."},
    {NULL, NULL, NULL, NULL},
};

LangType lang_tf_tensor_shape_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "TensorShape",
    .instance_size = sizeof(LangTfShape),
    .flags = LANG_TYPE_ABSTRACT_NEW,
    .slots = {.repr = shape_repr,
              .str = shape_str,
              .len = shape_len,
              .getitem = shape_getitem,
              .iter = shape_iter,
              .compare = shape_compare},
    .methods = shape_methods,
    .getsets = shape_getsets,
};

bool
lang_tf_shape_arg(LangState *L, LangValue v, TrShape *out)
{
  if (lang_is_type(v, &lang_tf_tensor_shape_type)) {
    *out = *shape_of(v);
    return true;
  }
  if (lang_tf_is_tensor(v)) {
    g_autoptr(TrTensor) t = lang_tf_static_value(L, v);
    if (!t) {
      self_value_for(L, v, "A shape argument");
      return false;
    }
    if (t->shape.rank > 1 || !tr_dtype_is_int(t->dtype) ||
        tr_tensor_num_elements(t) > TR_MAX_RANK) {
      lang_raise_str(L, &lang_exc_ValueError, "Shape must be rank 1 but is rank 2");
      return false;
    }
    int64_t n = t->shape.rank == 0 ? 1 : t->shape.dims[0];
    out->rank = (int)n;
    for (int64_t i = 0; i < n; i++)
      out->dims[i] = tr_tensor_get_i64(t, i);
    return true;
  }
  if (v.tag == LANG_TAG_INT) {
    *out = tr_shape_make(1, &v.i);
    return true;
  }
  if (!lang_is_type(v, &lang_list_type) && !lang_is_type(v, &lang_tuple_type)) {
    LangValue r = lang_repr(L, v);
    if (!lang_is_exc(r)) {
      lang_raise(L, &lang_exc_TypeError,
                 "Failed to convert '%s' to a shape: '%s'could not be converted to a dimension. A "
                 "shape should either be single dimension (e.g. 10), or an iterable of dimensions "
                 "(e.g. [1, 10, None]).",
                 lang_str_text(r), lang_str_text(r));
      lang_decref(r);
    }
    return false;
  }
  bool is_list = lang_is_type(v, &lang_list_type);
  int64_t n = is_list ? ((LangList *)v.o)->n : lang_tuple_len(v.o);
  if (n > TR_MAX_RANK) {
    lang_raise(L, &lang_exc_ValueError, "shapes may have at most %d dimensions", TR_MAX_RANK);
    return false;
  }
  out->rank = (int)n;
  for (int64_t i = 0; i < n; i++) {
    LangValue d = is_list ? ((LangList *)v.o)->items[i] : lang_tuple_get(v.o, i);
    if (d.tag == LANG_TAG_NONE)
      out->dims[i] = TR_UNKNOWN;
    else if (lang_tf_is_tensor(d) && lang_tf_tensor_value(d) &&
             lang_tf_tensor_value(d)->shape.rank == 0 &&
             tr_dtype_is_int(lang_tf_tensor_value(d)->dtype))
      out->dims[i] = tr_tensor_get_i64(lang_tf_tensor_value(d), 0);
    else if (!lang_to_index(L, d, &out->dims[i]))
      return false;
  }
  return true;
}

/* ---- convert_to_tensor ---- */

/* What kind of Python scalar a leaf is; ordered so that int+float widen to float. */
typedef enum { KIND_NONE, KIND_BOOL, KIND_INT, KIND_FLOAT, KIND_STR } LeafKind;

static LeafKind
leaf_kind(LangValue v)
{
  switch (v.tag) {
    case LANG_TAG_BOOL:
      return KIND_BOOL;
    case LANG_TAG_INT:
      return KIND_INT;
    case LANG_TAG_FLOAT:
      return KIND_FLOAT;
    case LANG_TAG_OBJ:
      if (v.o->type == &lang_str_type || v.o->type == &lang_bytes_type)
        return KIND_STR;
      return KIND_NONE;
    default:
      return KIND_NONE;
  }
}

static bool
is_sequence(LangValue v)
{
  return lang_is_type(v, &lang_list_type) || lang_is_type(v, &lang_tuple_type);
}

static int64_t
seq_len(LangValue v)
{
  return lang_is_type(v, &lang_list_type) ? ((LangList *)v.o)->n : lang_tuple_len(v.o);
}

static LangValue
seq_item(LangValue v, int64_t i)
{
  return lang_is_type(v, &lang_list_type) ? ((LangList *)v.o)->items[i] : lang_tuple_get(v.o, i);
}

bool
lang_tf_convertible(LangValue v)
{
  return leaf_kind(v) != KIND_NONE || is_sequence(v) || lang_tf_is_tensor(v) ||
         lang_tf_is_variable(v) || lang_is_type(v, &lang_tf_ndarray_type);
}

/* A walk over nested sequences: the shape (fixed by the first leaf) and the leaves in order. */
typedef struct {
  TrShape shape;   /* dims found so far */
  bool fixed;      /* a leaf (or an empty sequence) has fixed the rank */
  GArray *leaves;  /* LangValue, borrowed */
  bool has_tensor; /* a tensor or ndarray sits inside the sequence: stack instead */
} Scan;

static bool
scan(LangState *L, LangValue v, int level, Scan *s)
{
  if (lang_tf_is_tensor(v) || lang_is_type(v, &lang_tf_ndarray_type)) {
    s->has_tensor = true;
    return true;
  }
  if (!is_sequence(v)) {
    if (!s->fixed) {
      s->fixed = true;
    } else if (level != s->shape.rank) {
      lang_raise_str(L, &lang_exc_ValueError,
                     "Can't convert non-rectangular Python sequence to Tensor.");
      return false;
    }
    g_array_append_val(s->leaves, v);
    return true;
  }
  int64_t n = seq_len(v);
  if (!s->fixed && level == s->shape.rank) {
    if (level == TR_MAX_RANK) {
      lang_raise_str(L, &lang_exc_ValueError,
                     "Can't convert Python sequence deeper than 32 to Tensor.");
      return false;
    }
    s->shape.dims[s->shape.rank++] = n;
    if (n == 0)
      s->fixed = true;
  } else if (level >= s->shape.rank || s->shape.dims[level] != n) {
    lang_raise_str(L, &lang_exc_ValueError,
                   "Can't convert non-rectangular Python sequence to Tensor.");
    return false;
  }
  for (int64_t i = 0; i < n; i++) {
    if (!scan(L, seq_item(v, i), level + 1, s))
      return false;
    if (s->has_tensor)
      return true;
  }
  return true;
}

static TrTensor *
raise_cannot_convert(LangState *L, LangValue v, TrDType dtype)
{
  LangValue r = lang_repr(L, v);
  if (!lang_is_exc(r)) {
    lang_raise(L, &lang_exc_TypeError, "Cannot convert %s to EagerTensor of dtype %s",
               lang_str_text(r), tr_dtype_name(dtype));
    lang_decref(r);
  }
  return NULL;
}

static TrTensor *
raise_unsupported(LangState *L, LangValue v)
{
  LangValue r = lang_repr(L, v);
  if (!lang_is_exc(r)) {
    lang_raise(
        L, &lang_exc_ValueError,
        "Attempt to convert a value (%s) with an unsupported type (<class '%s'>) to a Tensor.",
        lang_str_text(r), lang_type_name(v));
    lang_decref(r);
  }
  return NULL;
}

/* The dtype TF infers from the leaves' kinds, or INVALID (with ValueError) for mixed kinds. */
static TrDType
infer_dtype(LangState *L, const Scan *s)
{
  LeafKind kind = KIND_NONE;
  bool big = false;
  for (guint i = 0; i < s->leaves->len; i++) {
    LangValue v = g_array_index(s->leaves, LangValue, i);
    LeafKind k = leaf_kind(v);
    if (k == KIND_INT && (v.i > G_MAXINT32 || v.i < G_MININT32))
      big = true;
    if (kind == KIND_NONE || kind == k)
      kind = k;
    else if ((kind == KIND_INT && k == KIND_FLOAT) || (kind == KIND_FLOAT && k == KIND_INT))
      kind = KIND_FLOAT;
    else {
      lang_raise_str(L, &lang_exc_TypeError,
                     "Can't convert Python sequence with mixed types to Tensor.");
      return TR_DTYPE_INVALID;
    }
  }
  switch (kind) {
    case KIND_BOOL:
      return TR_BOOL;
    case KIND_INT:
      return big ? TR_INT64 : TR_INT32;
    case KIND_STR:
      return TR_STRING;
    default:
      return TR_FLOAT32; /* floats, and empty sequences */
  }
}

/* Writes leaf `v` as element i of `data` (of `dtype`); false if it does not fit. */
static bool
store_leaf(LangValue v, TrDType dtype, void *data, int64_t i)
{
  LeafKind k = leaf_kind(v);
  double f = k == KIND_FLOAT ? v.f : k == KIND_INT ? (double)v.i : k == KIND_BOOL ? v.b : 0;
  switch (dtype) {
    case TR_FLOAT32:
      if (k != KIND_INT && k != KIND_FLOAT)
        return false;
      ((float *)data)[i] = (float)f;
      return true;
    case TR_FLOAT64:
      if (k != KIND_INT && k != KIND_FLOAT)
        return false;
      ((double *)data)[i] = f;
      return true;
    case TR_INT32:
      if (k != KIND_INT || v.i > G_MAXINT32 || v.i < G_MININT32)
        return false;
      ((int32_t *)data)[i] = (int32_t)v.i;
      return true;
    case TR_INT64:
      if (k != KIND_INT)
        return false;
      ((int64_t *)data)[i] = v.i;
      return true;
    case TR_BOOL:
      if (k != KIND_BOOL)
        return false;
      ((bool *)data)[i] = v.b;
      return true;
    case TR_STRING: {
      if (k != KIND_STR)
        return false;
      TrString *s = &((TrString *)data)[i];
      if (v.o->type == &lang_str_type) {
        s->data = (char *)lang_str_data(v.o);
        s->len = (size_t)lang_str_size(v.o);
      } else {
        s->data = (char *)((LangBytes *)v.o)->data;
        s->len = (size_t)((LangBytes *)v.o)->size;
      }
      return true;
    }
    default:
      return false;
  }
}

static TrTensor *convert_stacked(LangState *L, LangValue v, TrDType dtype);

static TrTensor *
convert_python(LangState *L, LangValue v, TrDType dtype)
{
  Scan s = {.shape = {.rank = 0}, .leaves = g_array_new(FALSE, FALSE, sizeof(LangValue))};
  TrTensor *t = NULL;
  if (!scan(L, v, 0, &s))
    goto out;
  if (s.has_tensor) {
    t = convert_stacked(L, v, dtype);
    goto out;
  }
  TrDType dt = dtype != TR_DTYPE_INVALID ? dtype : infer_dtype(L, &s);
  if (dt == TR_DTYPE_INVALID)
    goto out;
  size_t n = s.leaves->len;
  void *data = g_malloc0(tr_dtype_size(dt) * (n ? n : 1));
  bool ok = true;
  for (size_t i = 0; ok && i < n; i++)
    ok = store_leaf(g_array_index(s.leaves, LangValue, i), dt, data, (int64_t)i);
  if (ok)
    t = tr_tensor_new_from_data(dt, &s.shape, data);
  else
    raise_cannot_convert(L, v, dt);
  g_free(data);
out:
  g_array_free(s.leaves, TRUE);
  return t;
}

/* A sequence holding tensors: convert each item and stack them (tf.constant([t1, t2])). */
static TrTensor *
convert_stacked(LangState *L, LangValue v, TrDType dtype)
{
  int64_t n = seq_len(v);
  TrTensor **items = g_new0(TrTensor *, (gsize)MAX(n, 1));
  TrTensor *t = NULL;
  TrDType dt = dtype;
  bool ok = true;
  /* The first tensor's dtype is the hint for Python items. */
  for (int64_t i = 0; dt == TR_DTYPE_INVALID && i < n; i++) {
    LangValue item = seq_item(v, i);
    if (lang_tf_is_tensor(item) && lang_tf_tensor_value(item))
      dt = lang_tf_tensor_value(item)->dtype;
  }
  for (int64_t i = 0; ok && i < n; i++)
    ok = (items[i] = lang_tf_convert(L, seq_item(v, i), dt, false)) != NULL;
  if (ok) {
    GError *error = NULL;
    t = tr_stack(items, (int)n, 0, &error);
    if (!t)
      lang_tf_raise_error(L, error);
  }
  for (int64_t i = 0; i < n; i++)
    if (items[i])
      tr_tensor_unref(items[i]);
  g_free(items);
  return t;
}

TrTensor *
lang_tf_convert(LangState *L, LangValue v, TrDType dtype, bool hint)
{
  if (lang_tf_is_variable(v)) {
    TrVariable *var = ((LangTfVariable *)v.o)->var;
    if (dtype != TR_DTYPE_INVALID && var->dtype != dtype && !hint) {
      lang_raise(L, &lang_exc_ValueError,
                 "Tensor conversion requested dtype %s for Tensor with dtype %s",
                 tr_dtype_name(dtype), tr_dtype_name(var->dtype));
      return NULL;
    }
    return tr_variable_read(var);
  }
  if (lang_tf_is_tensor(v) || lang_is_type(v, &lang_tf_ndarray_type)) {
    TrTensor *t = lang_tf_is_tensor(v) ? self_value(L, v) : ((LangTfNdarray *)v.o)->value;
    if (!t)
      return NULL;
    if (dtype != TR_DTYPE_INVALID && t->dtype != dtype && !hint) {
      char *r = tr_tensor_repr(t);
      lang_raise(L, &lang_exc_ValueError,
                 "Tensor conversion requested dtype %s for Tensor with dtype %s: %s",
                 tr_dtype_name(dtype), tr_dtype_name(t->dtype), r);
      g_free(r);
      return NULL;
    }
    return tr_tensor_ref(t);
  }
  if (!lang_tf_convertible(v))
    return raise_unsupported(L, v);
  return convert_python(L, v, dtype);
}

/* ---- tensor attributes and methods ---- */

static LangValue
tensor_get_shape(LangState *L, LangValue self)
{
  TrShape shape;
  lang_tf_shape_of(self, &shape);
  return lang_tf_shape_new(L, &shape);
}

static LangValue
tensor_get_dtype(LangState *L, LangValue self)
{
  return lang_incref(lang_tf_dtype_object(lang_tf_dtype_of(self)));
}

static LangValue
tensor_get_ndim(LangState *L, LangValue self)
{
  TrShape shape;
  lang_tf_shape_of(self, &shape);
  return shape.rank == TR_UNKNOWN ? LANG_NONE : lang_int(shape.rank);
}

static LangValue
tensor_get_name(LangState *L, LangValue self)
{
  if (lang_tf_tensor_value(self))
    return lang_raise_str(L, &lang_exc_AttributeError,
                          "Tensor.name is undefined when eager execution is enabled.");
  return text_result(L, symbolic_name(self));
}

static LangValue
tensor_get_graph(LangState *L, LangValue self)
{
  if (lang_tf_tensor_value(self))
    return lang_raise_str(L, &lang_exc_AttributeError,
                          "Tensor.graph is undefined when eager execution is enabled.");
  return lang_tf_graph_new(L, lang_tf_symbolic_graph(self));
}

static LangValue
tensor_get_device(LangState *L, LangValue self)
{
  return lang_str_cstr(L, "/job:localhost/replica:0/task:0/device:CPU:0");
}

static LangValue
tensor_numpy(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  if (!lang_parse_args(L, "numpy", args, nargs, kwnames, ""))
    return LANG_EXC;
  TrTensor *t = lang_tf_tensor_value(self);
  if (!t) /* TensorFlow's graph tensors have no numpy(): the guide's leaked-tensor example */
    return lang_raise_str(L, &lang_exc_AttributeError, "'Tensor' object has no attribute 'numpy'");
  if (t->shape.rank == 0)
    return element_value(L, t, 0);
  return ndarray_new(L, t);
}

static LangValue
tensor_get_shape_method(LangState *L, LangValue self, const LangValue *args, int nargs,
                        LangObject *kwnames)
{
  if (!lang_parse_args(L, "get_shape", args, nargs, kwnames, ""))
    return LANG_EXC;
  return tensor_get_shape(L, self);
}

/* The one element of a size-1 tensor, or NumPy's error for others. */
static TrTensor *
scalar_value(LangState *L, LangValue self, const char *what)
{
  if (!lang_tf_tensor_value(self)) {
    if (strcmp(what, "bool") == 0)
      lang_raise_str(L, &lang_tf_exc_OperatorNotAllowedInGraphError,
                     "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed. A Python "
                     "`if`, `while`, `and`, `or` or `not` over a tensor needs its value, which "
                     "exists only when the graph runs; use tf.cond or tf.where, or compare "
                     "Python values instead.");
    else
      self_value_for(L, self, what);
    return NULL;
  }
  TrTensor *t = lang_tf_tensor_value(self);
  if (!t)
    return NULL;
  if (tr_tensor_num_elements(t) != 1) {
    if (strcmp(what, "bool") == 0)
      lang_raise_str(L, &lang_exc_ValueError,
                     "The truth value of an array with more than one element is ambiguous. Use "
                     "a.any() or a.all()");
    else
      lang_raise_str(L, &lang_exc_TypeError,
                     "only size-1 arrays can be converted to Python scalars");
    return NULL;
  }
  return t;
}

static LangValue
tensor_int(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  TrTensor *t = scalar_value(L, self, "int");
  if (!t)
    return LANG_EXC;
  if (t->dtype == TR_STRING)
    return lang_raise_str(
        L, &lang_exc_TypeError,
        "int() argument must be a string, a bytes-like object or a real number, not 'Tensor'");
  if (tr_dtype_is_float(t->dtype)) {
    double f = tr_tensor_get_f64(t, 0);
    if (isnan(f))
      return lang_raise_str(L, &lang_exc_ValueError, "cannot convert float NaN to integer");
    if (isinf(f))
      return lang_raise_str(L, &lang_exc_OverflowError, "cannot convert float infinity to integer");
    return lang_int((int64_t)f);
  }
  return lang_int(tr_tensor_get_i64(t, 0));
}

static LangValue
tensor_float(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  TrTensor *t = scalar_value(L, self, "float");
  if (!t)
    return LANG_EXC;
  if (t->dtype == TR_STRING)
    return lang_raise_str(L, &lang_exc_TypeError,
                          "float() argument must be a string or a real number, not 'Tensor'");
  return lang_float(tr_tensor_get_f64(t, 0));
}

static LangValue
tensor_index(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  TrTensor *t = self_value_for(L, self, "__index__");
  if (!t)
    return LANG_EXC;
  if (t->shape.rank != 0 || !tr_dtype_is_int(t->dtype))
    return lang_raise_str(L, &lang_exc_TypeError,
                          "only integer scalar arrays can be converted to a scalar index");
  return lang_int(tr_tensor_get_i64(t, 0));
}

static int
tensor_truth(LangState *L, LangValue self)
{
  TrTensor *t = scalar_value(L, self, "bool");
  if (!t)
    return -1;
  if (t->dtype == TR_STRING)
    return tr_tensor_get_string(t, 0)->len != 0;
  return tr_tensor_get_f64(t, 0) != 0;
}

static bool
tensor_len(LangState *L, LangValue self, int64_t *out)
{
  TrTensor *t = lang_tf_tensor_value(self);
  if (!t) {
    g_autofree char *name = symbolic_name(self);
    lang_raise(L, &lang_exc_TypeError,
               "len is not well defined for a symbolic Tensor (%s). Please call `x.shape` rather "
               "than `len(x)` for shape information.",
               name);
    return false;
  }
  if (t->shape.rank == 0) {
    lang_raise_str(L, &lang_exc_TypeError, "Scalar tensor has no `len()`");
    return false;
  }
  *out = t->shape.dims[0];
  return true;
}

static LangValue tensor_unary_op(LangState *L, LangValue self, TrOpId op);

static LangValue
tensor_abs(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  return tensor_unary_op(L, self, TR_OP_ABS);
}

/* ---- operators ---- */

/* Applies a Python operator to two operands. */
static LangValue
arith_apply(LangState *L, LangArith op, const LangTfOperand *a, const LangTfOperand *b)
{
  static const char *const names[] = {
      [LANG_ARITH_ADD] = "add",           [LANG_ARITH_SUB] = "sub",      [LANG_ARITH_MUL] = "mul",
      [LANG_ARITH_FLOORDIV] = "floordiv", [LANG_ARITH_MOD] = "mod",      [LANG_ARITH_POW] = "pow",
      [LANG_ARITH_AND] = "LogicalAnd",    [LANG_ARITH_OR] = "LogicalOr",
  };
  TrOpId id;
  LangTfOperand in[2] = {*a, *b};
  switch (op) {
    case LANG_ARITH_ADD:
      id = TR_OP_ADD;
      break;
    case LANG_ARITH_SUB:
      id = TR_OP_SUB;
      break;
    case LANG_ARITH_MUL:
      id = TR_OP_MUL;
      break;
    case LANG_ARITH_TRUEDIV:
      return lang_tf_apply_truediv(L, a, b);
    case LANG_ARITH_FLOORDIV:
      id = TR_OP_FLOORDIV;
      break;
    case LANG_ARITH_MOD:
      id = TR_OP_MOD;
      break;
    case LANG_ARITH_POW:
      id = TR_OP_POW;
      break;
    case LANG_ARITH_MATMUL: {
      TrAttrs attrs;
      tr_attrs_init(&attrs);
      /* tf.matmul's choice: MatMul for matrices, BatchMatMulV2 once either has batch dims. */
      bool batch = a->shape.rank > 2 || b->shape.rank > 2 || a->shape.rank == TR_UNKNOWN ||
                   b->shape.rank == TR_UNKNOWN;
      return lang_tf_apply(L, batch ? TR_OP_BATCH_MATMUL : TR_OP_MATMUL, in, 2, &attrs, NULL);
    }
    case LANG_ARITH_AND:
      id = TR_OP_LOGICAL_AND;
      break;
    case LANG_ARITH_OR:
      id = TR_OP_LOGICAL_OR;
      break;
    default:
      g_assert_not_reached();
  }
  return lang_tf_apply(L, id, in, 2, NULL, names[op]);
}

/* Tensors and Variables both take part in Python's operators. */
static bool
is_tensor_like(LangValue v)
{
  return lang_tf_is_tensor(v) || lang_tf_is_variable(v);
}

LangValue
lang_tf_binop(LangState *L, LangArith op, LangValue a, LangValue b)
{
  LangValue other = is_tensor_like(a) ? b : a;
  /* TF's wrapper: an operand it cannot convert defers to the operand's reflected method when
   * its type has one, and is a conversion error otherwise. */
  if (!lang_tf_convertible(other)) {
    if (is_tensor_like(a) && other.tag == LANG_TAG_OBJ &&
        !lang_is_unset(lang_type_lookup(other.o->type, lang_intern(lang_binop_rdunders[op]))))
      return LANG_NOTIMPL;
    if (!is_tensor_like(a))
      return LANG_NOTIMPL;
    raise_unsupported(L, other);
    return LANG_EXC;
  }
  LangTfOperand oa, ob;
  if (!lang_tf_operand_pair(L, a, b, &oa, &ob))
    return LANG_EXC;
  LangValue r = arith_apply(L, op, &oa, &ob);
  lang_tf_operand_clear(&oa);
  lang_tf_operand_clear(&ob);
  return r;
}

static LangValue
tensor_binop(LangState *L, LangArith op, LangValue a, LangValue b)
{
  return lang_tf_binop(L, op, a, b);
}

#define TENSOR_BINOP(id)                                                                           \
  static LangValue tensor_binop_##id(LangState *L, LangValue a, LangValue b)                       \
  {                                                                                                \
    return tensor_binop(L, LANG_ARITH_##id, a, b);                                                 \
  }
TENSOR_BINOP(ADD)
TENSOR_BINOP(SUB)
TENSOR_BINOP(MUL)
TENSOR_BINOP(TRUEDIV)
TENSOR_BINOP(FLOORDIV)
TENSOR_BINOP(MOD)
TENSOR_BINOP(POW)
TENSOR_BINOP(MATMUL)
TENSOR_BINOP(AND)
TENSOR_BINOP(OR)
#undef TENSOR_BINOP

static bool
broadcastable(const TrShape *a, const TrShape *b)
{
  if (a->rank == TR_UNKNOWN || b->rank == TR_UNKNOWN)
    return true;
  for (int i = 1; i <= a->rank && i <= b->rank; i++) {
    int64_t x = a->dims[a->rank - i], y = b->dims[b->rank - i];
    if (x != y && x != 1 && y != 1 && x != TR_UNKNOWN && y != TR_UNKNOWN)
      return false;
  }
  return true;
}

/* `<` and friends are elementwise; `==`/`!=` too (TF 2), with None and incompatible shapes
 * giving a plain False / True as TF's equal(incompatible_shape_error=False) does. */
LangValue
lang_tf_compare(LangState *L, LangValue a, LangValue b, LangCompareOp op)
{
  static const TrOpId ops[6] = {TR_OP_LESS,      TR_OP_LESS_EQUAL, TR_OP_EQUAL,
                                TR_OP_NOT_EQUAL, TR_OP_GREATER,    TR_OP_GREATER_EQUAL};
  bool equality = op == LANG_EQ || op == LANG_NE;
  LangValue other = is_tensor_like(a) ? b : a;
  if (!lang_tf_convertible(other))
    return equality ? lang_bool(op == LANG_NE) : LANG_NOTIMPL;
  LangTfOperand in[2];
  if (!lang_tf_operand_pair(L, a, b, &in[0], &in[1]))
    return LANG_EXC;
  LangValue result;
  if (equality && (!broadcastable(&in[0].shape, &in[1].shape) || in[0].dtype != in[1].dtype)) {
    LangTfOperand c;
    result = lang_tf_operand_from_tensor(L, tr_tensor_new_bool(op == LANG_NE), &c)
                 ? lang_tf_operand_to_value(L, &c)
                 : LANG_EXC;
  } else {
    result = lang_tf_apply(L, ops[op], in, 2, NULL, NULL);
  }
  lang_tf_operands_clear(in, 2);
  return result;
}

static LangValue
tensor_compare(LangState *L, LangValue a, LangValue b, LangCompareOp op)
{
  return lang_tf_compare(L, a, b, op);
}

static LangValue
tensor_unary_op(LangState *L, LangValue self, TrOpId op)
{
  LangTfOperand x;
  if (!lang_tf_operand(L, self, TR_DTYPE_INVALID, true, &x))
    return LANG_EXC;
  LangValue r = lang_tf_apply(L, op, &x, 1, NULL, NULL);
  lang_tf_operand_clear(&x);
  return r;
}

static LangValue
tensor_neg(LangState *L, LangValue self)
{
  return tensor_unary_op(L, self, TR_OP_NEG);
}

static LangValue
tensor_pos(LangState *L, LangValue self)
{
  return lang_incref(self);
}

static LangValue
tensor_invert(LangState *L, LangValue self)
{
  return tensor_unary_op(L, self, TR_OP_LOGICAL_NOT);
}

/* ---- indexing ---- */

static LangValue
raise_bad_index(LangState *L, LangValue key)
{
  LangValue r = lang_repr(L, key);
  if (!lang_is_exc(r)) {
    lang_raise(L, &lang_exc_TypeError,
               "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
               "tf.int32/tf.int64 tensors are valid indices, got %s",
               lang_str_text(r));
    lang_decref(r);
  }
  return LANG_EXC;
}

/* A scalar index: an int, a bool-free __index__, or a scalar int tensor. */
static bool
index_value(LangState *L, LangValue v, int64_t *out, bool *ok)
{
  *ok = true;
  if (v.tag == LANG_TAG_INT) {
    *out = v.i;
    return true;
  }
  if (lang_tf_is_tensor(v)) {
    TrTensor *t = lang_tf_tensor_value(v);
    if (t && t->shape.rank == 0 && tr_dtype_is_int(t->dtype)) {
      *out = tr_tensor_get_i64(t, 0);
      return true;
    }
  }
  *ok = false;
  return false;
}

static bool
slice_bound(LangState *L, LangValue v, int64_t *out)
{
  bool ok;
  if (index_value(L, v, out, &ok))
    return true;
  raise_bad_index(L, v);
  return false;
}

/* A symbolic scalar integer tensor: an index known only when the graph runs. */
static bool
is_symbolic_index(LangValue v)
{
  if (!lang_tf_is_symbolic(v))
    return false;
  TrOutput out = lang_tf_symbolic_output(v);
  return tr_output_shape(out)->rank == 0 && tr_dtype_is_int(tr_output_dtype(out));
}

/* One bound vector of a StridedSlice whose entries may be symbolic: `sym[i]` (plus `add`) where
 * set, else vals[i]; an int64 Pack of them. */
static bool
bound_operand(LangState *L, const int64_t *vals, const LangValue *sym, int n, int64_t add,
              LangTfOperand *out)
{
  LangTfOperand parts[TR_MAX_RANK];
  int made = 0;
  bool ok = true;
  TrAttrs cast;
  tr_attrs_init(&cast);
  cast.dtype = TR_INT64;
  for (int i = 0; i < n && ok; i++, made++) {
    if (sym[i].tag == LANG_TAG_UNSET) {
      ok = lang_tf_operand_from_tensor(L, tr_tensor_new_int64(vals[i]), &parts[i]);
      continue;
    }
    LangTfOperand idx;
    if (!lang_tf_operand(L, sym[i], TR_DTYPE_INVALID, false, &idx)) {
      ok = false;
      break;
    }
    LangTfOperand in[2];
    ok = lang_tf_apply_operand(L, TR_OP_CAST, &idx, 1, &cast, NULL, &in[0]);
    lang_tf_operand_clear(&idx);
    if (!ok)
      break;
    if (!add) {
      parts[i] = in[0];
      continue;
    }
    ok = lang_tf_operand_from_tensor(L, tr_tensor_new_int64(add), &in[1]) &&
         lang_tf_apply_operand(L, TR_OP_ADD, in, 2, NULL, NULL, &parts[i]);
    lang_tf_operands_clear(in, 2);
    if (!ok)
      break;
  }
  TrAttrs stack;
  tr_attrs_init(&stack);
  stack.axis = 0;
  if (ok)
    ok = lang_tf_apply_operand(L, TR_OP_STACK, parts, n, &stack, NULL, out);
  lang_tf_operands_clear(parts, made);
  return ok;
}

LangValue
lang_tf_getitem(LangState *L, LangValue self, LangValue key)
{
  bool tuple = lang_is_type(key, &lang_tuple_type);
  int64_t n = tuple ? lang_tuple_len(key.o) : 1;
  if (n > TR_MAX_RANK)
    return lang_raise_str(L, &lang_exc_ValueError, "too many indices for tensor");
  int64_t begin[TR_MAX_RANK], end[TR_MAX_RANK], strides[TR_MAX_RANK];
  LangValue sym[TR_MAX_RANK]; /* symbolic scalar indices, borrowed; UNSET elsewhere */
  bool any_sym = false;
  TrAttrs masks;
  tr_attrs_init(&masks);
  for (int64_t i = 0; i < n; i++) {
    LangValue item = tuple ? lang_tuple_get(key.o, i) : key;
    uint32_t bit = 1u << i;
    begin[i] = end[i] = 0;
    strides[i] = 1;
    sym[i] = LANG_UNSET;
    bool ok;
    if (is_symbolic_index(item)) {
      sym[i] = item;
      any_sym = true;
      masks.shrink_axis_mask |= bit;
    } else if (item.tag == LANG_TAG_NONE) {
      masks.new_axis_mask |= bit;
    } else if (item.tag == LANG_TAG_OBJ && item.o == &lang_ellipsis_obj) {
      masks.ellipsis_mask |= bit;
    } else if (lang_is_type(item, &lang_slice_type)) {
      LangSlice *s = (LangSlice *)item.o;
      if (s->start.tag == LANG_TAG_NONE)
        masks.begin_mask |= bit;
      else if (!slice_bound(L, s->start, &begin[i]))
        return LANG_EXC;
      if (s->stop.tag == LANG_TAG_NONE)
        masks.end_mask |= bit;
      else if (!slice_bound(L, s->stop, &end[i]))
        return LANG_EXC;
      if (s->step.tag != LANG_TAG_NONE && !slice_bound(L, s->step, &strides[i]))
        return LANG_EXC;
    } else if (index_value(L, item, &begin[i], &ok)) {
      end[i] = begin[i] + 1;
      masks.shrink_axis_mask |= bit;
    } else {
      return raise_bad_index(L, item);
    }
  }
  TrShape vec = tr_shape_make(1, (int64_t[]){n});
  LangTfOperand in[4];
  if (!lang_tf_operand(L, self, TR_DTYPE_INVALID, true, &in[0]))
    return LANG_EXC;
  const int64_t *vals[3] = {begin, end, strides};
  if (any_sym) {
    /* begin and end hold the symbolic indices: packed from scalars in the graph. */
    if (!bound_operand(L, begin, sym, (int)n, 0, &in[1])) {
      lang_tf_operand_clear(&in[0]);
      return LANG_EXC;
    }
    if (!bound_operand(L, end, sym, (int)n, 1, &in[2])) {
      lang_tf_operands_clear(in, 2);
      return LANG_EXC;
    }
    lang_tf_operand_from_tensor(L, tr_tensor_new_from_data(TR_INT64, &vec, strides), &in[3]);
    LangValue r = lang_tf_apply(L, TR_OP_STRIDED_SLICE, in, 4, &masks, NULL);
    lang_tf_operands_clear(in, 4);
    return r;
  }
  for (int i = 0; i < 3; i++)
    lang_tf_operand_from_tensor(L, tr_tensor_new_from_data(TR_INT64, &vec, vals[i]), &in[i + 1]);
  LangValue r = lang_tf_apply(L, TR_OP_STRIDED_SLICE, in, 4, &masks, NULL);
  lang_tf_operands_clear(in, 4);
  return r;
}

static LangValue
tensor_getitem(LangState *L, LangValue self, LangValue key)
{
  return lang_tf_getitem(L, self, key);
}

/* ---- iteration over the first axis ---- */

typedef struct {
  LangObject base;  /* tensor iterator */
  LangValue tensor; /* the tensor, owned */
  int64_t index;    /* next row */
} TensorIter;

static void
tensor_iter_dealloc(LangObject *o)
{
  lang_decref(((TensorIter *)o)->tensor);
}

static LangValue
tensor_iter_next(LangState *L, LangValue self)
{
  TensorIter *it = (TensorIter *)self.o;
  TrTensor *t = lang_tf_tensor_value(it->tensor);
  if (it->index >= t->shape.dims[0])
    return LANG_UNSET;
  LangValue key = lang_int(it->index++);
  return tensor_getitem(L, it->tensor, key);
}

static LangValue
iter_self(LangState *L, LangValue self)
{
  return lang_incref(self);
}

static LangType tensor_iter_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "tensor_iterator",
    .instance_size = sizeof(TensorIter),
    .flags = LANG_TYPE_ABSTRACT_NEW,
    .slots = {.dealloc = tensor_iter_dealloc, .iter = iter_self, .next = tensor_iter_next},
};

static LangValue
tensor_iter(LangState *L, LangValue self)
{
  TrTensor *t = lang_tf_tensor_value(self);
  LangTfTrace *tr = lang_tf_trace(L);
  if (!t && tr && tr->graph == lang_tf_symbolic_graph(self))
    return lang_tf_loop_new(L, self);
  if (!t)
    return lang_raise_str(L, &lang_tf_exc_OperatorNotAllowedInGraphError,
                          "Iterating over a symbolic `tf.Tensor` is not allowed: a Python `for` "
                          "over a tensor needs its value, which exists only when the graph runs. "
                          "Iterate over tf.range(n) or a Python range instead.");
  if (t->shape.rank == 0)
    return lang_raise_str(L, &lang_exc_TypeError, "Cannot iterate over a scalar tensor.");
  TensorIter *it = (TensorIter *)lang_object_alloc(L, &tensor_iter_type, sizeof(TensorIter));
  it->tensor = lang_incref(self);
  return lang_obj(it);
}

static const LangMethodDef tensor_methods[] = {
    {"numpy", tensor_numpy, "(self)", "The value as a NumPy-like array or a Python scalar.", 0},
    {"get_shape", tensor_get_shape_method, "(self)", "The TensorShape of the tensor.", 0},
    {"__int__", tensor_int, "(self, /)", NULL, 0},
    {"__float__", tensor_float, "(self, /)", NULL, 0},
    {"__index__", tensor_index, "(self, /)", NULL, 0},
    {"__abs__", tensor_abs, "(self, /)", NULL, 0},
    {NULL, NULL, NULL, NULL, 0},
};

static const LangGetSetDef tensor_getsets[] = {
    {"shape", tensor_get_shape, NULL, "The TensorShape of the tensor."},
    {"dtype", tensor_get_dtype, NULL, "The DType of the elements."},
    {"ndim", tensor_get_ndim, NULL, "The rank."},
    {"device", tensor_get_device, NULL, "The device the tensor lives on."},
    {"name", tensor_get_name, NULL, "The name of a symbolic tensor: 'add:0'."},
    {"graph", tensor_get_graph, NULL, "The Graph of a symbolic tensor."},
    {NULL, NULL, NULL, NULL},
};

LangType lang_tf_tensor_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "Tensor",
    .instance_size = sizeof(LangTfTensor),
    .flags = LANG_TYPE_ABSTRACT_NEW,
    .slots =
        {
            .dealloc = tensor_dealloc,
            .repr = tensor_repr,
            .str = tensor_str,
            .hash = tensor_hash,
            .compare = tensor_compare,
            .binary =
                {
                    [LANG_ARITH_ADD] = tensor_binop_ADD,
                    [LANG_ARITH_SUB] = tensor_binop_SUB,
                    [LANG_ARITH_MUL] = tensor_binop_MUL,
                    [LANG_ARITH_TRUEDIV] = tensor_binop_TRUEDIV,
                    [LANG_ARITH_FLOORDIV] = tensor_binop_FLOORDIV,
                    [LANG_ARITH_MOD] = tensor_binop_MOD,
                    [LANG_ARITH_POW] = tensor_binop_POW,
                    [LANG_ARITH_MATMUL] = tensor_binop_MATMUL,
                    [LANG_ARITH_AND] = tensor_binop_AND,
                    [LANG_ARITH_OR] = tensor_binop_OR,
                },
            .unary = {tensor_neg, tensor_pos, tensor_invert},
            .truth = tensor_truth,
            .len = tensor_len,
            .getitem = tensor_getitem,
            .iter = tensor_iter,
        },
    .methods = tensor_methods,
    .getsets = tensor_getsets,
    .doc = "A multi-dimensional array of elements of a single data type.",
};

void
lang_tf_tensor_types_ready(const char *module)
{
  lang_type_ready(&tensor_iter_type, module);
  lang_type_ready(&lang_tf_exc_OperatorNotAllowedInGraphError,
                  "tensorflow.python.framework.errors_impl");
  lang_type_ready(&lang_tf_ndarray_type, "numpy");
}
