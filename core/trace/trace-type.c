/* trace-type.c — construction, equality, hashing, subtyping, generalisation and printing of
 * trace types (see tr-trace-type.h). */
#include "tr-trace-type.h"
#include "trace-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = {
#define TR_TRACE_KIND_NAME(id, name) name,
    TR_TRACE_KIND_LIST(TR_TRACE_KIND_NAME)
#undef TR_TRACE_KIND_NAME
};
G_STATIC_ASSERT(G_N_ELEMENTS(kind_names) == TR_TRACE_N_KINDS);

const char *
tr_trace_kind_name(TrTraceKind kind)
{
  g_return_val_if_fail(kind >= 0 && kind < TR_TRACE_N_KINDS, "?");
  return kind_names[kind];
}

/* ---- hashing ---- */

static guint
hash_mix(guint h, guint v)
{
  return (h ^ v) * 16777619u + 0x9e3779b9u;
}

static guint
hash_i64(gint64 v)
{
  return g_int64_hash(&v);
}

static guint
hash_shape(const TrShape *s)
{
  guint h = hash_i64(s->rank);
  for (int i = 0; i < s->rank; i++)
    h = hash_mix(h, hash_i64(s->dims[i]));
  return h;
}

/* Numbers that Python calls equal hash equally: an integral float hashes as its int. */
static guint
hash_number(const TrTraceType *t)
{
  if (t->prim.py != TR_PY_FLOAT)
    return hash_i64(t->prim.i);
  double f = t->prim.f;
  if (isnan(f))
    return 0x7ff8u;
  if (f == floor(f) && f >= -9223372036854775808.0 && f < 9223372036854775808.0)
    return hash_i64((gint64)f);
  return g_double_hash(&f);
}

static guint
compute_hash(const TrTraceType *t)
{
  guint h = hash_i64(t->kind);
  switch (t->kind) {
    case TR_TRACE_TENSOR:
      return hash_mix(hash_mix(h, t->tensor.dtype), hash_shape(&t->tensor.shape));
    case TR_TRACE_VARIABLE:
      return hash_mix(hash_mix(h, hash_i64((gint64)t->variable.id)), t->variable.dtype);
    case TR_TRACE_PRIMITIVE:
      if (t->prim.py == TR_PY_STR)
        return hash_mix(h, g_str_hash(t->prim.s));
      if (t->prim.py == TR_PY_NONE)
        return hash_mix(h, 0x4e4fu);
      return hash_mix(h, hash_number(t));
    case TR_TRACE_IDENTITY:
      return hash_mix(h, hash_i64((gint64)t->identity.id));
    default:
      break;
  }
  /* Structures. */
  h = hash_mix(h, t->seq.n);
  if (t->seq.type_name)
    h = hash_mix(h, g_str_hash(t->seq.type_name));
  for (int i = 0; i < t->seq.n; i++) {
    if (t->seq.keys)
      h = hash_mix(h, t->seq.keys[i]->hash);
    if (t->seq.fields)
      h = hash_mix(h, g_str_hash(t->seq.fields[i]));
    h = hash_mix(h, t->seq.items[i]->hash);
  }
  return h;
}

/* ---- construction ---- */

static TrTraceType *
type_alloc(TrTraceKind kind)
{
  TrTraceType *t = g_new0(TrTraceType, 1);
  t->refcount = 1;
  t->kind = kind;
  return t;
}

static TrTraceType *
type_finish(TrTraceType *t)
{
  t->hash = compute_hash(t);
  return t;
}

TrTraceType *
tr_trace_type_new_tensor(TrDType dtype, const TrShape *shape, const char *name)
{
  g_return_val_if_fail(shape != NULL, NULL);
  TrTraceType *t = type_alloc(TR_TRACE_TENSOR);
  t->tensor.dtype = dtype;
  t->tensor.shape = *shape;
  t->tensor.name = g_strdup(name);
  return type_finish(t);
}

TrTraceType *
tr_trace_type_new_variable(guint64 id, TrDType dtype, const TrShape *shape, const char *name)
{
  g_return_val_if_fail(shape != NULL, NULL);
  TrTraceType *t = type_alloc(TR_TRACE_VARIABLE);
  t->variable.id = id;
  t->variable.dtype = dtype;
  t->variable.shape = *shape;
  t->variable.name = g_strdup(name);
  return type_finish(t);
}

static TrTraceType *
prim_new(TrPyKind py)
{
  TrTraceType *t = type_alloc(TR_TRACE_PRIMITIVE);
  t->prim.py = py;
  return t;
}

TrTraceType *
tr_trace_type_new_none(void)
{
  return type_finish(prim_new(TR_PY_NONE));
}

TrTraceType *
tr_trace_type_new_bool(bool v)
{
  TrTraceType *t = prim_new(TR_PY_BOOL);
  t->prim.i = v ? 1 : 0;
  return type_finish(t);
}

TrTraceType *
tr_trace_type_new_int(gint64 v)
{
  TrTraceType *t = prim_new(TR_PY_INT);
  t->prim.i = v;
  return type_finish(t);
}

TrTraceType *
tr_trace_type_new_float(double v)
{
  TrTraceType *t = prim_new(TR_PY_FLOAT);
  t->prim.f = v;
  return type_finish(t);
}

TrTraceType *
tr_trace_type_new_str(const char *utf8)
{
  g_return_val_if_fail(utf8 != NULL, NULL);
  TrTraceType *t = prim_new(TR_PY_STR);
  t->prim.s = g_strdup(utf8);
  return type_finish(t);
}

static TrTraceType *
seq_new(TrTraceKind kind, int n, TrTraceType **items)
{
  TrTraceType *t = type_alloc(kind);
  t->seq.n = n;
  t->seq.items = g_new0(TrTraceType *, MAX(n, 1));
  for (int i = 0; i < n; i++)
    t->seq.items[i] = items[i];
  return t;
}

TrTraceType *
tr_trace_type_new_list(int n, TrTraceType **items)
{
  g_return_val_if_fail(n == 0 || items != NULL, NULL);
  return type_finish(seq_new(TR_TRACE_LIST, n, items));
}

TrTraceType *
tr_trace_type_new_tuple(int n, TrTraceType **items)
{
  g_return_val_if_fail(n == 0 || items != NULL, NULL);
  return type_finish(seq_new(TR_TRACE_TUPLE, n, items));
}

static double
number_value(const TrTraceType *t)
{
  return t->prim.py == TR_PY_FLOAT ? t->prim.f : (double)t->prim.i;
}

/* Python's == between numbers, exact for int64 against double; NaN equals NaN as in TF. */
static bool
numbers_equal(const TrTraceType *a, const TrTraceType *b)
{
  if (a->prim.py != TR_PY_FLOAT && b->prim.py != TR_PY_FLOAT)
    return a->prim.i == b->prim.i;
  if (a->prim.py == TR_PY_FLOAT && b->prim.py == TR_PY_FLOAT)
    return a->prim.f == b->prim.f || (isnan(a->prim.f) && isnan(b->prim.f));
  const TrTraceType *fl = a->prim.py == TR_PY_FLOAT ? a : b;
  const TrTraceType *in = fl == a ? b : a;
  double f = fl->prim.f;
  if (!(f >= -9223372036854775808.0 && f < 9223372036854775808.0) || f != floor(f))
    return false;
  return (gint64)f == in->prim.i;
}

/* Sort rank of a dict key: None < numbers < strings. */
static int
key_rank(const TrTraceType *k)
{
  if (k->prim.py == TR_PY_NONE)
    return 0;
  return k->prim.py == TR_PY_STR ? 2 : 1;
}

static int
key_compare(const TrTraceType *a, const TrTraceType *b)
{
  int ra = key_rank(a), rb = key_rank(b);
  if (ra != rb)
    return ra < rb ? -1 : 1;
  if (ra == 2)
    return strcmp(a->prim.s, b->prim.s);
  if (ra == 0 || numbers_equal(a, b))
    return 0;
  return number_value(a) < number_value(b) ? -1 : 1;
}

TrTraceType *
tr_trace_type_new_dict(int n, TrTraceType **keys, TrTraceType **values)
{
  g_return_val_if_fail(n == 0 || (keys != NULL && values != NULL), NULL);
  TrTraceType *t = seq_new(TR_TRACE_DICT, n, values);
  t->seq.keys = g_new0(TrTraceType *, MAX(n, 1));
  for (int i = 0; i < n; i++) {
    g_return_val_if_fail(keys[i]->kind == TR_TRACE_PRIMITIVE, NULL);
    t->seq.keys[i] = keys[i];
  }
  /* Insertion sort keeps the pairs together; dicts in calls are small. */
  for (int i = 1; i < n; i++) {
    for (int j = i; j > 0 && key_compare(t->seq.keys[j - 1], t->seq.keys[j]) > 0; j--) {
      TrTraceType *k = t->seq.keys[j], *v = t->seq.items[j];
      t->seq.keys[j] = t->seq.keys[j - 1];
      t->seq.items[j] = t->seq.items[j - 1];
      t->seq.keys[j - 1] = k;
      t->seq.items[j - 1] = v;
    }
  }
  for (int i = 1; i < n; i++)
    g_assert(key_compare(t->seq.keys[i - 1], t->seq.keys[i]) != 0);
  return type_finish(t);
}

TrTraceType *
tr_trace_type_new_namedtuple(const char *type_name, int n, const char *const *fields,
                             TrTraceType **items)
{
  g_return_val_if_fail(type_name != NULL, NULL);
  g_return_val_if_fail(n == 0 || (fields != NULL && items != NULL), NULL);
  TrTraceType *t = seq_new(TR_TRACE_NAMEDTUPLE, n, items);
  t->seq.type_name = g_strdup(type_name);
  t->seq.fields = g_new0(char *, n + 1);
  for (int i = 0; i < n; i++)
    t->seq.fields[i] = g_strdup(fields[i]);
  return type_finish(t);
}

TrTraceType *
tr_trace_type_new_identity(guint64 id, const char *display, bool weak)
{
  TrTraceType *t = type_alloc(TR_TRACE_IDENTITY);
  t->identity.id = id;
  t->identity.display = g_strdup(display ? display : "<object>");
  t->identity.weak = weak;
  return type_finish(t);
}

TrTraceType *
tr_trace_type_ref(TrTraceType *t)
{
  g_return_val_if_fail(t != NULL, NULL);
  g_atomic_int_inc(&t->refcount);
  return t;
}

void
tr_trace_type_unref(TrTraceType *t)
{
  if (t == NULL || !g_atomic_int_dec_and_test(&t->refcount))
    return;
  switch (t->kind) {
    case TR_TRACE_TENSOR:
      g_free(t->tensor.name);
      break;
    case TR_TRACE_VARIABLE:
      g_free(t->variable.name);
      break;
    case TR_TRACE_PRIMITIVE:
      g_free(t->prim.s);
      break;
    case TR_TRACE_IDENTITY:
      g_free(t->identity.display);
      break;
    default:
      for (int i = 0; i < t->seq.n; i++) {
        tr_trace_type_unref(t->seq.items[i]);
        if (t->seq.keys)
          tr_trace_type_unref(t->seq.keys[i]);
      }
      g_free(t->seq.items);
      g_free(t->seq.keys);
      g_strfreev(t->seq.fields);
      g_free(t->seq.type_name);
      break;
  }
  g_free(t);
}

bool
tr_trace_type_is_structure(const TrTraceType *t)
{
  return t->kind == TR_TRACE_LIST || t->kind == TR_TRACE_TUPLE || t->kind == TR_TRACE_DICT ||
         t->kind == TR_TRACE_NAMEDTUPLE;
}

/* ---- equality and subtyping ---- */

static bool
prim_equal(const TrTraceType *a, const TrTraceType *b)
{
  if (a->prim.py == TR_PY_STR || b->prim.py == TR_PY_STR)
    return a->prim.py == b->prim.py && strcmp(a->prim.s, b->prim.s) == 0;
  if (a->prim.py == TR_PY_NONE || b->prim.py == TR_PY_NONE)
    return a->prim.py == b->prim.py;
  return numbers_equal(a, b);
}

/* Whether two structures have the same skeleton (kind, length, keys, type and field names). */
bool
tr_trace_type_same_skeleton(const TrTraceType *a, const TrTraceType *b)
{
  if (a->kind != b->kind || a->seq.n != b->seq.n)
    return false;
  if (a->kind == TR_TRACE_NAMEDTUPLE && strcmp(a->seq.type_name, b->seq.type_name) != 0)
    return false;
  for (int i = 0; i < a->seq.n; i++) {
    if (a->seq.keys && !prim_equal(a->seq.keys[i], b->seq.keys[i]))
      return false;
    if (a->seq.fields && strcmp(a->seq.fields[i], b->seq.fields[i]) != 0)
      return false;
  }
  return true;
}

typedef enum { CMP_EQUAL, CMP_SUBTYPE } CmpMode;

static bool
type_compare(const TrTraceType *a, const TrTraceType *b, CmpMode mode)
{
  if (a == b)
    return true;
  if (a->kind != b->kind)
    return false;
  if (mode == CMP_EQUAL && a->hash != b->hash)
    return false;
  switch (a->kind) {
    case TR_TRACE_TENSOR:
      if (a->tensor.dtype != b->tensor.dtype)
        return false;
      return mode == CMP_EQUAL ? tr_shape_equal(&a->tensor.shape, &b->tensor.shape)
                               : tr_shape_is_subtype(&a->tensor.shape, &b->tensor.shape);
    case TR_TRACE_VARIABLE:
      return a->variable.id == b->variable.id && a->variable.dtype == b->variable.dtype &&
             tr_shape_equal(&a->variable.shape, &b->variable.shape);
    case TR_TRACE_PRIMITIVE:
      return prim_equal(a, b);
    case TR_TRACE_IDENTITY:
      return a->identity.id == b->identity.id;
    default:
      break;
  }
  if (!tr_trace_type_same_skeleton(a, b))
    return false;
  for (int i = 0; i < a->seq.n; i++)
    if (!type_compare(a->seq.items[i], b->seq.items[i], mode))
      return false;
  return true;
}

bool
tr_shape_is_subtype(const TrShape *a, const TrShape *b)
{
  if (b->rank == TR_UNKNOWN)
    return true;
  if (a->rank != b->rank)
    return false;
  for (int i = 0; i < a->rank; i++) {
    if (b->dims[i] == TR_UNKNOWN)
      continue;
    if (a->dims[i] != b->dims[i])
      return false;
  }
  return true;
}

bool
tr_trace_type_equal(const TrTraceType *a, const TrTraceType *b)
{
  g_return_val_if_fail(a != NULL && b != NULL, false);
  return type_compare(a, b, CMP_EQUAL);
}

guint
tr_trace_type_hash(const TrTraceType *t)
{
  return t->hash;
}

bool
tr_trace_type_is_subtype_of(const TrTraceType *a, const TrTraceType *b)
{
  g_return_val_if_fail(a != NULL && b != NULL, false);
  return type_compare(a, b, CMP_SUBTYPE);
}

TrTraceType *
tr_trace_type_common_supertype(const TrTraceType *a, const TrTraceType *b)
{
  g_return_val_if_fail(a != NULL && b != NULL, NULL);
  if (a->kind != b->kind)
    return NULL;
  if (a->kind == TR_TRACE_TENSOR) {
    if (a->tensor.dtype != b->tensor.dtype)
      return NULL;
    TrShape s = tr_shape_most_specific_compatible(&a->tensor.shape, &b->tensor.shape);
    return tr_trace_type_new_tensor(a->tensor.dtype, &s, a->tensor.name);
  }
  if (!tr_trace_type_is_structure(a))
    return tr_trace_type_equal(a, b) ? tr_trace_type_ref((TrTraceType *)a) : NULL;
  if (!tr_trace_type_same_skeleton(a, b))
    return NULL;
  int n = a->seq.n;
  g_autofree TrTraceType **items = g_new0(TrTraceType *, MAX(n, 1));
  for (int i = 0; i < n; i++) {
    items[i] = tr_trace_type_common_supertype(a->seq.items[i], b->seq.items[i]);
    if (items[i] == NULL) {
      for (int j = 0; j < i; j++)
        tr_trace_type_unref(items[j]);
      return NULL;
    }
  }
  switch (a->kind) {
    case TR_TRACE_LIST:
      return tr_trace_type_new_list(n, items);
    case TR_TRACE_TUPLE:
      return tr_trace_type_new_tuple(n, items);
    case TR_TRACE_NAMEDTUPLE:
      return tr_trace_type_new_namedtuple(a->seq.type_name, n, (const char *const *)a->seq.fields,
                                          items);
    default: {
      g_autofree TrTraceType **keys = g_new0(TrTraceType *, MAX(n, 1));
      for (int i = 0; i < n; i++)
        keys[i] = tr_trace_type_ref(a->seq.keys[i]);
      return tr_trace_type_new_dict(n, keys, items);
    }
  }
}

/* ---- printing ---- */

/* Python's repr of a float: the shortest digits that round-trip, positional for exponents
 * -4..15, else d.ddde±XX. */
static void
append_float_repr(GString *out, double v)
{
  if (isnan(v)) {
    g_string_append(out, "nan");
    return;
  }
  if (isinf(v)) {
    g_string_append(out, v < 0 ? "-inf" : "inf");
    return;
  }
  char buf[64];
  for (int prec = 1; prec <= 17; prec++) {
    g_snprintf(buf, sizeof buf, "%.*e", prec - 1, v);
    if (g_ascii_strtod(buf, NULL) == v)
      break;
  }
  /* buf is "-d.ddde±XX": split into sign, digits and exponent. */
  const char *p = buf;
  bool neg = *p == '-';
  if (neg)
    p++;
  char digits[32];
  int nd = 0;
  for (; *p && *p != 'e'; p++)
    if (g_ascii_isdigit(*p))
      digits[nd++] = *p;
  digits[nd] = '\0';
  int exp = atoi(p + 1);
  while (nd > 1 && digits[nd - 1] == '0')
    digits[--nd] = '\0';
  if (neg)
    g_string_append_c(out, '-');
  if (exp < -4 || exp >= 16) {
    g_string_append_c(out, digits[0]);
    if (nd > 1)
      g_string_append_printf(out, ".%s", digits + 1);
    g_string_append_printf(out, "e%c%02d", exp < 0 ? '-' : '+', ABS(exp));
    return;
  }
  if (exp < 0) {
    g_string_append(out, "0.");
    for (int i = -1; i > exp; i--)
      g_string_append_c(out, '0');
    g_string_append(out, digits);
    return;
  }
  for (int i = 0; i <= exp; i++)
    g_string_append_c(out, i < nd ? digits[i] : '0');
  g_string_append_c(out, '.');
  g_string_append(out, nd > exp + 1 ? digits + exp + 1 : "0");
}

/* Python's repr of a str: single quotes unless the text holds ' and no ". */
static void
append_str_repr(GString *out, const char *s)
{
  char q = (strchr(s, '\'') && !strchr(s, '"')) ? '"' : '\'';
  g_string_append_c(out, q);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == q || *p == '\\')
      g_string_append_printf(out, "\\%c", *p);
    else if (*p == '\n')
      g_string_append(out, "\\n");
    else if (*p == '\r')
      g_string_append(out, "\\r");
    else if (*p == '\t')
      g_string_append(out, "\\t");
    else if (*p < 0x20 || *p == 0x7f)
      g_string_append_printf(out, "\\x%02x", *p);
    else
      g_string_append_c(out, (char)*p);
  }
  g_string_append_c(out, q);
}

static void
append_prim_repr(GString *out, const TrTraceType *t)
{
  switch (t->prim.py) {
    case TR_PY_NONE:
      g_string_append(out, "None");
      break;
    case TR_PY_BOOL:
      g_string_append(out, t->prim.i ? "True" : "False");
      break;
    case TR_PY_INT:
      g_string_append_printf(out, "%" G_GINT64_FORMAT, t->prim.i);
      break;
    case TR_PY_FLOAT:
      append_float_repr(out, t->prim.f);
      break;
    case TR_PY_STR:
      append_str_repr(out, t->prim.s);
      break;
  }
}

char *
tr_trace_type_primitive_repr(const TrTraceType *t)
{
  g_return_val_if_fail(t != NULL && t->kind == TR_TRACE_PRIMITIVE, NULL);
  GString *s = g_string_new(NULL);
  append_prim_repr(s, t);
  return g_string_free(s, FALSE);
}

const char *
tr_trace_type_py_type_name(const TrTraceType *t)
{
  static const char *const names[] = {"NoneType", "bool", "int", "float", "str"};
  g_return_val_if_fail(t != NULL && t->kind == TR_TRACE_PRIMITIVE, "object");
  return names[t->prim.py];
}

static void
append_shape(GString *out, const TrShape *shape)
{
  g_autofree char *s = tr_shape_to_string(shape);
  g_string_append(out, s);
}

static void append_type(GString *out, const TrTraceType *t);

static void
append_items(GString *out, const TrTraceType *t)
{
  for (int i = 0; i < t->seq.n; i++) {
    if (i > 0)
      g_string_append(out, ", ");
    if (t->kind == TR_TRACE_DICT) {
      append_prim_repr(out, t->seq.keys[i]);
      g_string_append(out, ": ");
    } else if (t->kind == TR_TRACE_NAMEDTUPLE) {
      g_string_append_printf(out, "%s=", t->seq.fields[i]);
    }
    append_type(out, t->seq.items[i]);
  }
}

static void
append_type(GString *out, const TrTraceType *t)
{
  switch (t->kind) {
    case TR_TRACE_TENSOR:
      g_string_append(out, "TensorSpec(shape=");
      append_shape(out, &t->tensor.shape);
      g_string_append_printf(out, ", dtype=tf.%s, name=", tr_dtype_name(t->tensor.dtype));
      if (t->tensor.name)
        append_str_repr(out, t->tensor.name);
      else
        g_string_append(out, "None");
      g_string_append_c(out, ')');
      return;
    case TR_TRACE_VARIABLE:
      g_string_append(out, "VariableSpec(shape=");
      append_shape(out, &t->variable.shape);
      g_string_append_printf(out, ", dtype=tf.%s, id=%" G_GUINT64_FORMAT ")",
                             tr_dtype_name(t->variable.dtype), t->variable.id);
      return;
    case TR_TRACE_PRIMITIVE:
      append_prim_repr(out, t);
      return;
    case TR_TRACE_IDENTITY:
      g_string_append(out, t->identity.display);
      return;
    case TR_TRACE_LIST:
      g_string_append_c(out, '[');
      append_items(out, t);
      g_string_append_c(out, ']');
      return;
    case TR_TRACE_TUPLE:
      g_string_append_c(out, '(');
      append_items(out, t);
      g_string_append(out, t->seq.n == 1 ? ",)" : ")");
      return;
    case TR_TRACE_DICT:
      g_string_append_c(out, '{');
      append_items(out, t);
      g_string_append_c(out, '}');
      return;
    case TR_TRACE_NAMEDTUPLE:
      g_string_append_printf(out, "%s(", t->seq.type_name);
      append_items(out, t);
      g_string_append_c(out, ')');
      return;
    case TR_TRACE_N_KINDS:
      break;
  }
  g_assert_not_reached();
}

char *
tr_trace_type_to_string(const TrTraceType *t)
{
  g_return_val_if_fail(t != NULL, NULL);
  GString *s = g_string_new(NULL);
  append_type(s, t);
  return g_string_free(s, FALSE);
}

char *
tr_trace_type_describe(const TrTraceType *t)
{
  g_return_val_if_fail(t != NULL, NULL);
  GString *s = g_string_new(NULL);
  switch (t->kind) {
    case TR_TRACE_TENSOR:
      g_string_append_printf(s, "%s Tensor, shape=", tr_dtype_name(t->tensor.dtype));
      append_shape(s, &t->tensor.shape);
      break;
    case TR_TRACE_VARIABLE:
      g_string_append_printf(s, "%s Variable #%" G_GUINT64_FORMAT ", shape=",
                             tr_dtype_name(t->variable.dtype), t->variable.id);
      append_shape(s, &t->variable.shape);
      break;
    case TR_TRACE_PRIMITIVE:
      g_string_append(s, "Python value ");
      append_prim_repr(s, t);
      break;
    case TR_TRACE_IDENTITY:
      g_string_append_printf(s, "object %s", t->identity.display);
      break;
    case TR_TRACE_DICT:
      g_string_append(s, "dict with keys [");
      for (int i = 0; i < t->seq.n; i++) {
        if (i > 0)
          g_string_append(s, ", ");
        append_prim_repr(s, t->seq.keys[i]);
      }
      g_string_append_c(s, ']');
      break;
    case TR_TRACE_NAMEDTUPLE:
      g_string_append_printf(s, "%s(", t->seq.type_name);
      for (int i = 0; i < t->seq.n; i++)
        g_string_append_printf(s, "%s%s", i > 0 ? ", " : "", t->seq.fields[i]);
      g_string_append_c(s, ')');
      break;
    default:
      g_string_append_printf(s, "%s of %d", tr_trace_kind_name(t->kind), t->seq.n);
      break;
  }
  return g_string_free(s, FALSE);
}

/* ---- signatures ---- */

TrTraceSig *
tr_trace_sig_new(int n, const char *const *names, TrTraceType **types)
{
  g_return_val_if_fail(n >= 0, NULL);
  g_return_val_if_fail(n == 0 || (names != NULL && types != NULL), NULL);
  TrTraceSig *sig = g_new0(TrTraceSig, 1);
  sig->refcount = 1;
  sig->n = n;
  sig->names = g_new0(char *, n + 1);
  sig->types = g_new0(TrTraceType *, MAX(n, 1));
  guint h = 0x5167u;
  for (int i = 0; i < n; i++) {
    sig->names[i] = g_strdup(names[i]);
    sig->types[i] = types[i];
    h = hash_mix(hash_mix(h, g_str_hash(names[i])), types[i]->hash);
  }
  sig->hash = h;
  return sig;
}

TrTraceSig *
tr_trace_sig_ref(TrTraceSig *sig)
{
  g_return_val_if_fail(sig != NULL, NULL);
  g_atomic_int_inc(&sig->refcount);
  return sig;
}

void
tr_trace_sig_unref(TrTraceSig *sig)
{
  if (sig == NULL || !g_atomic_int_dec_and_test(&sig->refcount))
    return;
  for (int i = 0; i < sig->n; i++)
    tr_trace_type_unref(sig->types[i]);
  g_free(sig->types);
  g_strfreev(sig->names);
  g_free(sig);
}

static bool
same_names(const TrTraceSig *a, const TrTraceSig *b)
{
  if (a->n != b->n)
    return false;
  for (int i = 0; i < a->n; i++)
    if (strcmp(a->names[i], b->names[i]) != 0)
      return false;
  return true;
}

bool
tr_trace_sig_equal(const TrTraceSig *a, const TrTraceSig *b)
{
  g_return_val_if_fail(a != NULL && b != NULL, false);
  if (a->hash != b->hash || !same_names(a, b))
    return false;
  for (int i = 0; i < a->n; i++)
    if (!tr_trace_type_equal(a->types[i], b->types[i]))
      return false;
  return true;
}

guint
tr_trace_sig_hash(const TrTraceSig *sig)
{
  return sig->hash;
}

bool
tr_trace_sig_is_subtype_of(const TrTraceSig *a, const TrTraceSig *b)
{
  g_return_val_if_fail(a != NULL && b != NULL, false);
  if (!same_names(a, b))
    return false;
  for (int i = 0; i < a->n; i++)
    if (!tr_trace_type_is_subtype_of(a->types[i], b->types[i]))
      return false;
  return true;
}

TrTraceSig *
tr_trace_sig_common_supertype(const TrTraceSig *a, const TrTraceSig *b)
{
  g_return_val_if_fail(a != NULL && b != NULL, NULL);
  if (!same_names(a, b))
    return NULL;
  g_autofree TrTraceType **types = g_new0(TrTraceType *, MAX(a->n, 1));
  for (int i = 0; i < a->n; i++) {
    types[i] = tr_trace_type_common_supertype(a->types[i], b->types[i]);
    if (types[i] == NULL) {
      for (int j = 0; j < i; j++)
        tr_trace_type_unref(types[j]);
      return NULL;
    }
  }
  return tr_trace_sig_new(a->n, (const char *const *)a->names, types);
}

static guint
shape_blind_hash(const TrTraceType *t)
{
  if (t->kind == TR_TRACE_TENSOR)
    return hash_mix(hash_i64(t->kind), t->tensor.dtype);
  if (!tr_trace_type_is_structure(t))
    return t->hash;
  /* Coarser than the skeleton (keys, fields and type name left out): still equal for any two
   * structures of which one is a subtype of the other. */
  guint h = hash_mix(hash_i64(t->kind), t->seq.n);
  for (int i = 0; i < t->seq.n; i++)
    h = hash_mix(h, shape_blind_hash(t->seq.items[i]));
  return h;
}

guint
tr_trace_sig_shape_blind_hash(const TrTraceSig *sig)
{
  guint h = 0x5167u;
  for (int i = 0; i < sig->n; i++)
    h = hash_mix(hash_mix(h, g_str_hash(sig->names[i])), shape_blind_hash(sig->types[i]));
  return h;
}

guint
tr_trace_sig_hash_without(const TrTraceSig *sig, int j)
{
  guint h = hash_mix(0x5168u, (guint)j);
  for (int i = 0; i < sig->n; i++)
    h = hash_mix(hash_mix(h, g_str_hash(sig->names[i])), i == j ? 0x2a2au : sig->types[i]->hash);
  return h;
}

static bool
type_is_exact(const TrTraceType *t)
{
  if (t->kind == TR_TRACE_TENSOR) {
    if (t->tensor.shape.rank == TR_UNKNOWN)
      return false;
    for (int i = 0; i < t->tensor.shape.rank; i++)
      if (t->tensor.shape.dims[i] == TR_UNKNOWN)
        return false;
    return true;
  }
  if (!tr_trace_type_is_structure(t))
    return true;
  for (int i = 0; i < t->seq.n; i++)
    if (!type_is_exact(t->seq.items[i]))
      return false;
  return true;
}

bool
tr_trace_sig_is_exact(const TrTraceSig *sig)
{
  for (int i = 0; i < sig->n; i++)
    if (!type_is_exact(sig->types[i]))
      return false;
  return true;
}

char *
tr_trace_sig_to_string(const TrTraceSig *sig)
{
  g_return_val_if_fail(sig != NULL, NULL);
  GString *s = g_string_new("(");
  for (int i = 0; i < sig->n; i++) {
    g_string_append_printf(s, "%s%s: ", i > 0 ? ", " : "", sig->names[i]);
    append_type(s, sig->types[i]);
  }
  g_string_append_c(s, ')');
  return g_string_free(s, FALSE);
}

int
tr_trace_sig_find(const TrTraceSig *sig, const char *name)
{
  for (int i = 0; i < sig->n; i++)
    if (strcmp(sig->names[i], name) == 0)
      return i;
  return -1;
}
