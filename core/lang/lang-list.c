/* lang-list.c — list and tuple: the two array sequences, their iterators, and sorting.
 *
 * Both share the sequence protocol helpers (index normalisation, lexicographic comparison,
 * repr with the `[...]` guard for self-containing lists). Sorting is a stable merge sort over
 * (key, value) pairs that stops comparing after the first exception but always leaves a
 * permutation of the input, so a failing comparison never loses or duplicates items.
 */
#include "lang-runtime-private.h"

#include <string.h>

#define MAX_SEQ_ITEMS ((int64_t)1 << 31)

/* ---- shared helpers ---- */

static bool
index_arg(LangState *L, LangValue key, int64_t *out, const char *what)
{
  if (key.tag == LANG_TAG_INT) {
    *out = key.i;
    return true;
  }
  if (key.tag == LANG_TAG_BOOL) {
    *out = key.b;
    return true;
  }
  if (key.tag == LANG_TAG_OBJ && !lang_is_type(key, &lang_slice_type)) {
    LangValue r = lang_call_dunder(L, key, "__index__", NULL, 0);
    if (lang_is_exc(r))
      return false;
    if (!lang_is_unset(r)) {
      bool ok = lang_to_index(L, r, out);
      lang_decref(r);
      return ok;
    }
  }
  lang_raise(L, &lang_exc_TypeError, "%s indices must be integers or slices, not %s", what,
             lang_type_name(key));
  return false;
}

/* Lexicographic comparison of two arrays with CPython's rules. */
static LangValue
seq_compare(LangState *L, const LangValue *a, int64_t na, const LangValue *b, int64_t nb,
            LangCompareOp op)
{
  if ((op == LANG_EQ || op == LANG_NE) && na != nb)
    return lang_bool(op == LANG_NE);
  int64_t i = 0;
  for (; i < na && i < nb; i++) {
    int eq = lang_eq(L, a[i], b[i]);
    if (eq < 0)
      return LANG_EXC;
    if (!eq)
      break;
  }
  if (i >= na || i >= nb) {
    int c = (na > nb) - (na < nb);
    switch (op) {
      case LANG_LT:
        return lang_bool(c < 0);
      case LANG_LE:
        return lang_bool(c <= 0);
      case LANG_EQ:
        return lang_bool(c == 0);
      case LANG_NE:
        return lang_bool(c != 0);
      case LANG_GT:
        return lang_bool(c > 0);
      default:
        return lang_bool(c >= 0);
    }
  }
  if (op == LANG_EQ)
    return LANG_FALSE;
  if (op == LANG_NE)
    return LANG_TRUE;
  return lang_compare(L, a[i], b[i], op);
}

static bool
seq_repr(LangState *L, GString *out, const LangValue *items, int64_t n)
{
  for (int64_t i = 0; i < n; i++) {
    if (i)
      g_string_append(out, ", ");
    if (!lang_repr_append(L, out, items[i]))
      return false;
  }
  return true;
}

static int64_t
seq_hash_step(uint64_t acc, uint64_t lane)
{
  const uint64_t p1 = 11400714785074694791ull, p2 = 14029467366897019727ull;
  acc += lane * p2;
  acc = (acc << 31) | (acc >> 33);
  acc *= p1;
  return (int64_t)acc;
}

/* ---- tuple ---- */

LangValue
lang_tuple_new(LangState *L, int64_t n)
{
  LangTuple *t = (LangTuple *)lang_object_alloc(L, &lang_tuple_type,
                                                sizeof(LangTuple) + sizeof(LangValue) * n);
  t->n = n;
  for (int64_t i = 0; i < n; i++)
    t->items[i] = LANG_NONE;
  return lang_obj(t);
}

LangValue
lang_tuple_from(LangState *L, const LangValue *items, int64_t n)
{
  LangValue t = lang_tuple_new(L, n);
  for (int64_t i = 0; i < n; i++)
    ((LangTuple *)t.o)->items[i] = lang_incref(items[i]);
  return t;
}

LangValue
lang_tuple_pack(LangState *L, int64_t n, ...)
{
  LangValue t = lang_tuple_new(L, n);
  va_list ap;
  va_start(ap, n);
  for (int64_t i = 0; i < n; i++)
    ((LangTuple *)t.o)->items[i] = lang_incref(va_arg(ap, LangValue));
  va_end(ap);
  return t;
}

void
lang_tuple_set(LangValue tuple, int64_t i, LangValue v)
{
  LangTuple *t = (LangTuple *)tuple.o;
  LangValue old = t->items[i];
  t->items[i] = v;
  lang_decref(old);
}

LangValue
lang_tuple_from_iterable(LangState *L, LangValue iterable)
{
  if (lang_is_type(iterable, &lang_tuple_type))
    return lang_incref(iterable);
  if (lang_is_type(iterable, &lang_list_type)) {
    LangList *l = (LangList *)iterable.o;
    return lang_tuple_from(L, l->items, l->n);
  }
  LangValue list = lang_list_from_iterable(L, iterable);
  if (lang_is_exc(list))
    return list;
  LangList *l = (LangList *)list.o;
  LangValue t = lang_tuple_from(L, l->items, l->n);
  lang_decref(list);
  return t;
}

static void
tuple_dealloc(LangObject *o)
{
  LangTuple *t = (LangTuple *)o;
  for (int64_t i = 0; i < t->n; i++)
    lang_decref(t->items[i]);
}

static LangValue
tuple_construct(LangState *L, LangType *type, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue it = LANG_UNSET;
  if (!lang_parse_args(L, "tuple", args, nargs, kwnames, "iterable=, /", &it))
    return LANG_EXC;
  if (lang_is_unset(it))
    return lang_tuple_new(L, 0);
  return lang_tuple_from_iterable(L, it);
}

static LangValue
tuple_repr(LangState *L, LangValue self)
{
  LangTuple *t = (LangTuple *)self.o;
  if (t->n == 0)
    return lang_str_cstr(L, "()");
  int r = lang_repr_enter(L, self.o);
  if (r)
    return r < 0 ? LANG_EXC : lang_str_cstr(L, "(...)");
  GString *out = g_string_new("(");
  bool ok = seq_repr(L, out, t->items, t->n);
  lang_repr_leave(L, self.o);
  if (!ok) {
    g_string_free(out, TRUE);
    return LANG_EXC;
  }
  g_string_append(out, t->n == 1 ? ",)" : ")");
  return lang_str_from_gstring(L, out);
}

static bool
tuple_hash(LangState *L, LangValue self, int64_t *out)
{
  LangTuple *t = (LangTuple *)self.o;
  uint64_t acc = 2870177450012600261ull;
  if (!lang_enter(L, "")) /* nested tuples hash recursively */
    return false;
  for (int64_t i = 0; i < t->n; i++) {
    int64_t h;
    if (!lang_hash(L, t->items[i], &h)) {
      lang_leave(L);
      return false;
    }
    acc = (uint64_t)seq_hash_step(acc, (uint64_t)h);
  }
  lang_leave(L);
  acc += (uint64_t)t->n ^ (2870177450012600261ull ^ 3527539ull);
  *out = acc == (uint64_t)-1 ? 1546275796 : (int64_t)acc;
  return true;
}

static LangValue
tuple_compare(LangState *L, LangValue a, LangValue b, LangCompareOp op)
{
  if (!lang_instance_of(a, &lang_tuple_type) || !lang_instance_of(b, &lang_tuple_type))
    return LANG_NOTIMPL;
  LangTuple *x = (LangTuple *)a.o, *y = (LangTuple *)b.o;
  return seq_compare(L, x->items, x->n, y->items, y->n, op);
}

static LangValue
repeat_items(LangState *L, const LangValue *items, int64_t n, LangValue count, bool tuple)
{
  int64_t k = count.tag == LANG_TAG_INT ? count.i : count.b;
  if (k < 0)
    k = 0;
  if (n && k > MAX_SEQ_ITEMS / n)
    return lang_raise_value(L, lang_obj(&lang_exc_MemoryError));
  LangValue r = tuple ? lang_tuple_new(L, n * k) : lang_list_new(L, n * k);
  LangValue *dst = tuple ? ((LangTuple *)r.o)->items : ((LangList *)r.o)->items;
  for (int64_t i = 0; i < k; i++)
    for (int64_t j = 0; j < n; j++)
      dst[i * n + j] = lang_incref(items[j]);
  return r;
}

static bool
is_count(LangValue v)
{
  return v.tag == LANG_TAG_INT || v.tag == LANG_TAG_BOOL;
}

static LangValue
tuple_add(LangState *L, LangValue a, LangValue b)
{
  if (!lang_instance_of(a, &lang_tuple_type) || !lang_instance_of(b, &lang_tuple_type))
    return LANG_NOTIMPL;
  LangTuple *x = (LangTuple *)a.o, *y = (LangTuple *)b.o;
  LangValue r = lang_tuple_new(L, x->n + y->n);
  LangTuple *t = (LangTuple *)r.o;
  for (int64_t i = 0; i < x->n; i++)
    t->items[i] = lang_incref(x->items[i]);
  for (int64_t i = 0; i < y->n; i++)
    t->items[x->n + i] = lang_incref(y->items[i]);
  return r;
}

static LangValue
tuple_mul(LangState *L, LangValue a, LangValue b)
{
  if (lang_instance_of(a, &lang_tuple_type) && is_count(b))
    return repeat_items(L, ((LangTuple *)a.o)->items, ((LangTuple *)a.o)->n, b, true);
  if (lang_instance_of(b, &lang_tuple_type) && is_count(a))
    return repeat_items(L, ((LangTuple *)b.o)->items, ((LangTuple *)b.o)->n, a, true);
  return LANG_NOTIMPL;
}

static bool
tuple_len(LangState *L, LangValue self, int64_t *out)
{
  *out = ((LangTuple *)self.o)->n;
  return true;
}

static LangValue
tuple_getitem(LangState *L, LangValue self, LangValue key)
{
  LangTuple *t = (LangTuple *)self.o;
  if (lang_is_type(key, &lang_slice_type)) {
    int64_t start, stop, step, n;
    if (!lang_slice_indices(L, key.o, t->n, &start, &stop, &step, &n))
      return LANG_EXC;
    if (step == 1 && n == t->n && self.o->type == &lang_tuple_type)
      return lang_incref(self);
    LangValue r = lang_tuple_new(L, n);
    for (int64_t i = 0, k = start; i < n; i++, k += step)
      ((LangTuple *)r.o)->items[i] = lang_incref(t->items[k]);
    return r;
  }
  int64_t i;
  if (!index_arg(L, key, &i, "tuple"))
    return LANG_EXC;
  if (i < 0)
    i += t->n;
  if (i < 0 || i >= t->n)
    return lang_raise_index(L, "tuple");
  return lang_incref(t->items[i]);
}

static int
items_contain(LangState *L, const LangValue *items, int64_t n, LangValue x)
{
  for (int64_t i = 0; i < n; i++) {
    int eq = lang_eq(L, items[i], x);
    if (eq)
      return eq;
  }
  return 0;
}

static int
tuple_contains(LangState *L, LangValue self, LangValue x)
{
  LangTuple *t = (LangTuple *)self.o;
  return items_contain(L, t->items, t->n, x);
}

typedef struct {
  LangObject base; /* a sequence iterator type */
  LangValue seq;   /* the list or tuple; None once exhausted */
  int64_t index;   /* next position */
} SeqIter;

static void
seqiter_dealloc(LangObject *o)
{
  lang_decref(((SeqIter *)o)->seq);
}

static LangValue
seqiter_new(LangState *L, LangType *type, LangValue seq, int64_t index)
{
  SeqIter *it = (SeqIter *)lang_object_alloc(L, type, sizeof(SeqIter));
  it->seq = lang_incref(seq);
  it->index = index;
  return lang_obj(it);
}

static LangValue
iter_self(LangState *L, LangValue self)
{
  return lang_incref(self);
}

static void
seqiter_exhaust(SeqIter *it)
{
  LangValue s = it->seq;
  it->seq = LANG_NONE;
  lang_decref(s);
}

static LangValue
tupleiter_next(LangState *L, LangValue self)
{
  SeqIter *it = (SeqIter *)self.o;
  if (it->seq.tag == LANG_TAG_NONE)
    return LANG_UNSET;
  LangTuple *t = (LangTuple *)it->seq.o;
  if (it->index >= t->n) {
    seqiter_exhaust(it);
    return LANG_UNSET;
  }
  return lang_incref(t->items[it->index++]);
}

static LangValue
seqiter_length_hint(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kw)
{
  SeqIter *it = (SeqIter *)self.o;
  if (it->seq.tag == LANG_TAG_NONE)
    return lang_int(0);
  int64_t n;
  if (!lang_len(L, it->seq, &n))
    return LANG_EXC;
  return lang_int(MAX(0, n - it->index));
}

static const LangMethodDef seqiter_methods[] = {
    {"__length_hint__", seqiter_length_hint, "(self, /)", NULL, 0},
    {NULL},
};

LangType lang_tuple_iter_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "tuple_iterator",
    .instance_size = sizeof(SeqIter),
    .flags = LANG_TYPE_ABSTRACT_NEW,
    .slots = {.dealloc = seqiter_dealloc, .iter = iter_self, .next = tupleiter_next},
    .methods = seqiter_methods,
};

static LangValue
tuple_iter(LangState *L, LangValue self)
{
  return seqiter_new(L, &lang_tuple_iter_type, self, 0);
}

static bool
index_bounds(LangState *L, LangValue vstart, LangValue vstop, int64_t n, int64_t *start,
             int64_t *stop)
{
  *start = 0;
  *stop = n;
  if (!lang_is_unset(vstart) && !lang_to_index(L, vstart, start))
    return false;
  if (!lang_is_unset(vstop) && !lang_to_index(L, vstop, stop))
    return false;
  if (*start < 0)
    *start = MAX(0, *start + n);
  if (*stop < 0)
    *stop = MAX(0, *stop + n);
  return true;
}

static LangValue
tuple_index(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kw)
{
  LangValue x, vstart = LANG_UNSET, vstop = LANG_UNSET;
  if (!lang_parse_args(L, "index", args, nargs, kw, "value, start=, stop=, /", &x, &vstart, &vstop))
    return LANG_EXC;
  LangTuple *t = (LangTuple *)self.o;
  int64_t start, stop;
  if (!index_bounds(L, vstart, vstop, t->n, &start, &stop))
    return LANG_EXC;
  for (int64_t i = start; i < stop && i < t->n; i++) {
    int eq = lang_eq(L, t->items[i], x);
    if (eq < 0)
      return LANG_EXC;
    if (eq)
      return lang_int(i);
  }
  return lang_raise_str(L, &lang_exc_ValueError, "tuple.index(x): x not in tuple");
}

static LangValue
count_items(LangState *L, const LangValue *items, int64_t n, LangValue x)
{
  int64_t c = 0;
  for (int64_t i = 0; i < n; i++) {
    int eq = lang_eq(L, items[i], x);
    if (eq < 0)
      return LANG_EXC;
    c += eq;
  }
  return lang_int(c);
}

static LangValue
tuple_count(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kw)
{
  LangValue x;
  if (!lang_parse_args(L, "count", args, nargs, kw, "value, /", &x))
    return LANG_EXC;
  return count_items(L, ((LangTuple *)self.o)->items, ((LangTuple *)self.o)->n, x);
}

static const LangMethodDef tuple_methods[] = {
    {"index", tuple_index, "(self, value, start=0, stop=sys.maxsize, /)",
     "Return first index of value.", 0},
    {"count", tuple_count, "(self, value, /)", "Return number of occurrences of value.", 0},
    {NULL},
};

LangType lang_tuple_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "tuple",
    .instance_size = sizeof(LangTuple),
    .slots =
        {
            .dealloc = tuple_dealloc,
            .construct = tuple_construct,
            .repr = tuple_repr,
            .hash = tuple_hash,
            .compare = tuple_compare,
            .binary = {[LANG_ARITH_ADD] = tuple_add, [LANG_ARITH_MUL] = tuple_mul},
            .len = tuple_len,
            .getitem = tuple_getitem,
            .contains = tuple_contains,
            .iter = tuple_iter,
        },
    .methods = tuple_methods,
    .doc = "Built-in immutable sequence.",
};

/* ---- list ---- */

static void
list_reserve(LangList *l, int64_t n)
{
  if (n <= l->cap)
    return;
  int64_t cap = MAX(n, l->cap + (l->cap >> 1) + 4);
  l->items = g_renew(LangValue, l->items, cap);
  l->cap = cap;
}

LangValue
lang_list_new(LangState *L, int64_t n)
{
  LangList *l = (LangList *)lang_object_alloc(L, &lang_list_type, sizeof(LangList));
  list_reserve(l, n);
  for (int64_t i = 0; i < n; i++)
    l->items[i] = LANG_NONE;
  l->n = n;
  return lang_obj(l);
}

LangValue
lang_list_from(LangState *L, const LangValue *items, int64_t n)
{
  LangValue v = lang_list_new(L, n);
  for (int64_t i = 0; i < n; i++)
    ((LangList *)v.o)->items[i] = lang_incref(items[i]);
  return v;
}

void
lang_list_set(LangObject *list, int64_t i, LangValue v)
{
  LangList *l = (LangList *)list;
  LangValue old = l->items[i];
  l->items[i] = v;
  lang_decref(old);
}

bool
lang_list_append(LangState *L, LangObject *list, LangValue v)
{
  LangList *l = (LangList *)list;
  list_reserve(l, l->n + 1);
  l->items[l->n++] = lang_incref(v);
  return true;
}

bool
lang_list_extend(LangState *L, LangObject *list, LangValue iterable)
{
  LangList *l = (LangList *)list;
  if (lang_is_type(iterable, &lang_list_type) || lang_is_type(iterable, &lang_tuple_type)) {
    bool is_list = lang_is_type(iterable, &lang_list_type);
    int64_t n = is_list ? ((LangList *)iterable.o)->n : ((LangTuple *)iterable.o)->n;
    list_reserve(l, l->n + n);
    /* re-read the source after reserving: `l.extend(l)` */
    const LangValue *src =
        is_list ? ((LangList *)iterable.o)->items : ((LangTuple *)iterable.o)->items;
    for (int64_t i = 0; i < n; i++)
      l->items[l->n + i] = lang_incref(src[i]);
    l->n += n;
    return true;
  }
  LangValue it = lang_iter(L, iterable);
  if (lang_is_exc(it))
    return false;
  for (;;) {
    LangValue x = lang_next(L, it);
    if (lang_is_unset(x))
      break;
    if (lang_is_exc(x)) {
      lang_decref(it);
      return false;
    }
    list_reserve(l, l->n + 1);
    l->items[l->n++] = x;
  }
  lang_decref(it);
  return true;
}

LangValue
lang_list_from_iterable(LangState *L, LangValue iterable)
{
  LangValue l = lang_list_new(L, 0);
  if (!lang_list_extend(L, l.o, iterable)) {
    lang_decref(l);
    return LANG_EXC;
  }
  return l;
}

static void
list_clear_items(LangList *l)
{
  LangValue *items = l->items;
  int64_t n = l->n;
  l->items = NULL;
  l->n = l->cap = 0;
  for (int64_t i = 0; i < n; i++)
    lang_decref(items[i]);
  g_free(items);
}

static void
list_dealloc(LangObject *o)
{
  list_clear_items((LangList *)o);
}

static LangValue
list_construct(LangState *L, LangType *type, const LangValue *args, int nargs, LangObject *kwnames)
{
  return lang_obj(lang_object_alloc(L, type, type->instance_size));
}

static bool
list_init(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue it = LANG_UNSET;
  if (!lang_parse_args(L, "list", args, nargs, kwnames, "iterable=, /", &it))
    return false;
  list_clear_items((LangList *)self.o);
  if (lang_is_unset(it))
    return true;
  return lang_list_extend(L, self.o, it);
}

static LangValue
list_repr(LangState *L, LangValue self)
{
  LangList *l = (LangList *)self.o;
  if (l->n == 0)
    return lang_str_cstr(L, "[]");
  int r = lang_repr_enter(L, self.o);
  if (r)
    return r < 0 ? LANG_EXC : lang_str_cstr(L, "[...]");
  GString *out = g_string_new("[");
  bool ok = true;
  for (int64_t i = 0; ok && i < l->n; i++) {
    if (i)
      g_string_append(out, ", ");
    LangValue x = lang_incref(l->items[i]);
    ok = lang_repr_append(L, out, x);
    lang_decref(x);
  }
  lang_repr_leave(L, self.o);
  if (!ok) {
    g_string_free(out, TRUE);
    return LANG_EXC;
  }
  g_string_append_c(out, ']');
  return lang_str_from_gstring(L, out);
}

static LangValue
list_compare(LangState *L, LangValue a, LangValue b, LangCompareOp op)
{
  if (!lang_instance_of(a, &lang_list_type) || !lang_instance_of(b, &lang_list_type))
    return LANG_NOTIMPL;
  LangList *x = (LangList *)a.o, *y = (LangList *)b.o;
  return seq_compare(L, x->items, x->n, y->items, y->n, op);
}

static LangValue
list_add(LangState *L, LangValue a, LangValue b)
{
  if (!lang_instance_of(a, &lang_list_type) || !lang_instance_of(b, &lang_list_type))
    return LANG_NOTIMPL;
  LangList *x = (LangList *)a.o, *y = (LangList *)b.o;
  LangValue r = lang_list_new(L, 0);
  LangList *l = (LangList *)r.o;
  list_reserve(l, x->n + y->n);
  for (int64_t i = 0; i < x->n; i++)
    l->items[l->n++] = lang_incref(x->items[i]);
  for (int64_t i = 0; i < y->n; i++)
    l->items[l->n++] = lang_incref(y->items[i]);
  return r;
}

static LangValue
list_mul(LangState *L, LangValue a, LangValue b)
{
  if (lang_instance_of(a, &lang_list_type) && is_count(b))
    return repeat_items(L, ((LangList *)a.o)->items, ((LangList *)a.o)->n, b, false);
  if (lang_instance_of(b, &lang_list_type) && is_count(a))
    return repeat_items(L, ((LangList *)b.o)->items, ((LangList *)b.o)->n, a, false);
  return LANG_NOTIMPL;
}

static bool
list_len(LangState *L, LangValue self, int64_t *out)
{
  *out = ((LangList *)self.o)->n;
  return true;
}

static LangValue
list_getitem(LangState *L, LangValue self, LangValue key)
{
  LangList *l = (LangList *)self.o;
  if (key.tag == LANG_TAG_INT) {
    int64_t i = key.i < 0 ? key.i + l->n : key.i;
    if (i < 0 || i >= l->n)
      return lang_raise_index(L, "list");
    return lang_incref(l->items[i]);
  }
  if (lang_is_type(key, &lang_slice_type)) {
    int64_t start, stop, step, n;
    if (!lang_slice_indices(L, key.o, l->n, &start, &stop, &step, &n))
      return LANG_EXC;
    LangValue r = lang_list_new(L, n);
    for (int64_t i = 0, k = start; i < n; i++, k += step)
      ((LangList *)r.o)->items[i] = lang_incref(l->items[k]);
    return r;
  }
  int64_t i;
  if (!index_arg(L, key, &i, "list"))
    return LANG_EXC;
  if (i < 0)
    i += l->n;
  if (i < 0 || i >= l->n)
    return lang_raise_index(L, "list");
  return lang_incref(l->items[i]);
}

/* Replaces l[start:stop] (step 1) by `items`. */
static void
list_splice(LangList *l, int64_t start, int64_t stop, const LangValue *items, int64_t n)
{
  int64_t removed = stop - start;
  LangValue *old = g_new(LangValue, removed > 0 ? removed : 1);
  if (removed > 0)
    memcpy(old, l->items + start, sizeof(LangValue) * removed);
  list_reserve(l, l->n - removed + n);
  if (l->n > stop) /* an empty list may have no storage at all */
    memmove(l->items + start + n, l->items + stop, sizeof(LangValue) * (l->n - stop));
  for (int64_t i = 0; i < n; i++)
    l->items[start + i] = lang_incref(items[i]);
  l->n += n - removed;
  for (int64_t i = 0; i < removed; i++)
    lang_decref(old[i]);
  g_free(old);
}

static bool
list_setslice(LangState *L, LangList *l, LangObject *slice, LangValue value)
{
  int64_t start, stop, step, n;
  if (!lang_slice_indices(L, slice, l->n, &start, &stop, &step, &n))
    return false;
  if (lang_is_unset(value)) {
    if (step == 1) {
      list_splice(l, start, start + n, NULL, 0);
      return true;
    }
    if (step < 0) {
      start = start + step * (n - 1);
      step = -step;
    }
    GArray *dead = g_array_new(FALSE, FALSE, sizeof(LangValue));
    int64_t w = start;
    for (int64_t r = start, k = 0; r < l->n; r++) {
      if (k < n && r == start + k * step) {
        g_array_append_val(dead, l->items[r]);
        k++;
      } else {
        l->items[w++] = l->items[r];
      }
    }
    l->n = w;
    for (guint i = 0; i < dead->len; i++)
      lang_decref(g_array_index(dead, LangValue, i));
    g_array_unref(dead);
    return true;
  }
  LangValue seq = lang_list_from_iterable(L, value);
  if (lang_is_exc(seq)) {
    if (lang_exc_matches(L, &lang_exc_TypeError)) {
      lang_exc_clear(L);
      lang_raise(L, &lang_exc_TypeError, "can only assign an iterable");
    }
    return false;
  }
  LangList *src = (LangList *)seq.o;
  if (step == 1) {
    list_splice(l, start, start + n, src->items, src->n);
  } else if (src->n != n) {
    lang_raise(L, &lang_exc_ValueError,
               "attempt to assign sequence of size %" G_GINT64_FORMAT
               " to extended slice of size %" G_GINT64_FORMAT,
               src->n, n);
    lang_decref(seq);
    return false;
  } else {
    for (int64_t i = 0, k = start; i < n; i++, k += step)
      lang_list_set(&l->base, k, lang_incref(src->items[i]));
  }
  lang_decref(seq);
  return true;
}

static bool
list_setitem(LangState *L, LangValue self, LangValue key, LangValue value)
{
  LangList *l = (LangList *)self.o;
  if (lang_is_type(key, &lang_slice_type))
    return list_setslice(L, l, key.o, value);
  int64_t i;
  if (!index_arg(L, key, &i, "list"))
    return false;
  if (i < 0)
    i += l->n;
  if (i < 0 || i >= l->n) {
    lang_raise_index(L, "list assignment");
    return false;
  }
  if (lang_is_unset(value)) {
    list_splice(l, i, i + 1, NULL, 0);
    return true;
  }
  lang_list_set(&l->base, i, lang_incref(value));
  return true;
}

static int
list_contains(LangState *L, LangValue self, LangValue x)
{
  LangList *l = (LangList *)self.o;
  for (int64_t i = 0; i < l->n; i++) {
    LangValue item = lang_incref(l->items[i]);
    int eq = lang_eq(L, item, x);
    lang_decref(item);
    if (eq)
      return eq;
  }
  return 0;
}

static LangValue
listiter_next(LangState *L, LangValue self)
{
  SeqIter *it = (SeqIter *)self.o;
  if (it->seq.tag == LANG_TAG_NONE)
    return LANG_UNSET;
  LangList *l = (LangList *)it->seq.o;
  if (it->index >= l->n) {
    seqiter_exhaust(it);
    return LANG_UNSET;
  }
  return lang_incref(l->items[it->index++]);
}

static LangValue
listreviter_next(LangState *L, LangValue self)
{
  SeqIter *it = (SeqIter *)self.o;
  if (it->seq.tag == LANG_TAG_NONE)
    return LANG_UNSET;
  LangList *l = (LangList *)it->seq.o;
  if (it->index < 0 || it->index >= l->n) {
    seqiter_exhaust(it);
    return LANG_UNSET;
  }
  return lang_incref(l->items[it->index--]);
}

LangType lang_list_iter_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "list_iterator",
    .instance_size = sizeof(SeqIter),
    .flags = LANG_TYPE_ABSTRACT_NEW,
    .slots = {.dealloc = seqiter_dealloc, .iter = iter_self, .next = listiter_next},
    .methods = seqiter_methods,
};

LangType lang_list_reviter_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "list_reverseiterator",
    .instance_size = sizeof(SeqIter),
    .flags = LANG_TYPE_ABSTRACT_NEW,
    .slots = {.dealloc = seqiter_dealloc, .iter = iter_self, .next = listreviter_next},
};

static LangValue
list_iter(LangState *L, LangValue self)
{
  return seqiter_new(L, &lang_list_iter_type, self, 0);
}

static void
list_clear_slot(LangObject *o)
{
  list_clear_items((LangList *)o);
}

/* methods */

#define SELF ((LangList *)self.o)

static LangValue
m_append(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kw)
{
  LangValue x;
  if (!lang_parse_args(L, "append", args, nargs, kw, "object, /", &x))
    return LANG_EXC;
  lang_list_append(L, self.o, x);
  return LANG_NONE;
}

static LangValue
m_extend(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kw)
{
  LangValue x;
  if (!lang_parse_args(L, "extend", args, nargs, kw, "iterable, /", &x))
    return LANG_EXC;
  return lang_list_extend(L, self.o, x) ? LANG_NONE : LANG_EXC;
}

static LangValue
m_iadd(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kw)
{
  if (!lang_check_nargs(L, "__iadd__", nargs, 1, 1))
    return LANG_EXC;
  if (!lang_list_extend(L, self.o, args[0]))
    return LANG_EXC;
  return lang_incref(self);
}

static LangValue
m_imul(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kw)
{
  if (!lang_check_nargs(L, "__imul__", nargs, 1, 1))
    return LANG_EXC;
  if (!is_count(args[0]))
    return LANG_NOTIMPL;
  LangValue r = repeat_items(L, SELF->items, SELF->n, args[0], false);
  if (lang_is_exc(r))
    return r;
  LangList *src = (LangList *)r.o;
  LangValue *items = SELF->items;
  int64_t n = SELF->n;
  SELF->items = src->items;
  SELF->n = src->n;
  SELF->cap = src->cap;
  src->items = items;
  src->n = n;
  src->cap = n;
  lang_decref(r);
  return lang_incref(self);
}

static LangValue
m_insert(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kw)
{
  LangValue vi, x;
  int64_t i;
  if (!lang_no_kwargs(L, "insert", kw) || !lang_check_nargs(L, "insert", nargs, 2, 2))
    return LANG_EXC;
  vi = args[0];
  x = args[1];
  if (!lang_to_index(L, vi, &i))
    return LANG_EXC;
  LangList *l = SELF;
  if (i < 0)
    i = MAX(0, i + l->n);
  if (i > l->n)
    i = l->n;
  list_splice(l, i, i, &x, 1);
  return LANG_NONE;
}

static LangValue
m_pop(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kw)
{
  LangValue vi = LANG_UNSET;
  int64_t i = -1;
  if (!lang_parse_args(L, "pop", args, nargs, kw, "index=, /", &vi) ||
      (!lang_is_unset(vi) && !lang_to_index(L, vi, &i)))
    return LANG_EXC;
  LangList *l = SELF;
  if (l->n == 0)
    return lang_raise_str(L, &lang_exc_IndexError, "pop from empty list");
  if (i < 0)
    i += l->n;
  if (i < 0 || i >= l->n)
    return lang_raise_str(L, &lang_exc_IndexError, "pop index out of range");
  LangValue v = l->items[i];
  memmove(l->items + i, l->items + i + 1, sizeof(LangValue) * (l->n - i - 1));
  l->n--;
  return v;
}

static LangValue
m_remove(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kw)
{
  LangValue x;
  if (!lang_parse_args(L, "remove", args, nargs, kw, "value, /", &x))
    return LANG_EXC;
  LangList *l = SELF;
  for (int64_t i = 0; i < l->n; i++) {
    int eq = lang_eq(L, l->items[i], x);
    if (eq < 0)
      return LANG_EXC;
    if (eq) {
      list_splice(l, i, i + 1, NULL, 0);
      return LANG_NONE;
    }
  }
  return lang_raise_str(L, &lang_exc_ValueError, "list.remove(x): x not in list");
}

static LangValue
m_index(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kw)
{
  LangValue x, vstart = LANG_UNSET, vstop = LANG_UNSET;
  if (!lang_parse_args(L, "index", args, nargs, kw, "value, start=, stop=, /", &x, &vstart, &vstop))
    return LANG_EXC;
  LangList *l = SELF;
  int64_t start, stop;
  if (!index_bounds(L, vstart, vstop, l->n, &start, &stop))
    return LANG_EXC;
  for (int64_t i = start; i < stop && i < l->n; i++) {
    int eq = lang_eq(L, l->items[i], x);
    if (eq < 0)
      return LANG_EXC;
    if (eq)
      return lang_int(i);
  }
  LangValue r = lang_repr(L, x);
  if (lang_is_exc(r))
    return r;
  lang_raise(L, &lang_exc_ValueError, "%s is not in list", lang_str_data(r.o));
  lang_decref(r);
  return LANG_EXC;
}

static LangValue
m_count(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kw)
{
  LangValue x;
  if (!lang_parse_args(L, "count", args, nargs, kw, "value, /", &x))
    return LANG_EXC;
  return count_items(L, SELF->items, SELF->n, x);
}

static LangValue
m_reverse(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kw)
{
  if (!lang_check_nargs(L, "reverse", nargs, 0, 0))
    return LANG_EXC;
  LangList *l = SELF;
  for (int64_t i = 0, j = l->n - 1; i < j; i++, j--) {
    LangValue t = l->items[i];
    l->items[i] = l->items[j];
    l->items[j] = t;
  }
  return LANG_NONE;
}

static LangValue
m_copy(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kw)
{
  if (!lang_check_nargs(L, "copy", nargs, 0, 0))
    return LANG_EXC;
  return lang_list_from(L, SELF->items, SELF->n);
}

static LangValue
m_clear(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kw)
{
  if (!lang_check_nargs(L, "clear", nargs, 0, 0))
    return LANG_EXC;
  list_clear_items(SELF);
  return LANG_NONE;
}

static LangValue
m_reversed(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kw)
{
  return seqiter_new(L, &lang_list_reviter_type, self, SELF->n - 1);
}

/* ---- sorting ---- */

typedef struct {
  LangState *L; /* for comparisons */
  bool failed;  /* an exception is pending: stop comparing */
} SortCtx;

static bool
sort_less(SortCtx *c, LangValue a, LangValue b)
{
  if (c->failed)
    return false;
  int r = lang_compare_bool(c->L, a, b, LANG_LT);
  if (r < 0) {
    c->failed = true;
    return false;
  }
  return r;
}

/* Stable merge sort of keys[] carrying vals[] along. */
static void
merge_sort(SortCtx *c, LangValue *keys, LangValue *vals, LangValue *tk, LangValue *tv, int64_t n)
{
  if (n < 2)
    return;
  if (n <= 8) {
    for (int64_t i = 1; i < n; i++) {
      LangValue k = keys[i], v = vals[i];
      int64_t j = i;
      while (j > 0 && sort_less(c, k, keys[j - 1])) {
        keys[j] = keys[j - 1];
        vals[j] = vals[j - 1];
        j--;
      }
      keys[j] = k;
      vals[j] = v;
    }
    return;
  }
  int64_t mid = n / 2;
  merge_sort(c, keys, vals, tk, tv, mid);
  merge_sort(c, keys + mid, vals + mid, tk, tv, n - mid);
  memcpy(tk, keys, sizeof(LangValue) * mid);
  memcpy(tv, vals, sizeof(LangValue) * mid);
  int64_t i = 0, j = mid, k = 0;
  while (i < mid && j < n) {
    if (sort_less(c, keys[j], tk[i])) {
      keys[k] = keys[j];
      vals[k++] = vals[j++];
    } else {
      keys[k] = tk[i];
      vals[k++] = tv[i++];
    }
  }
  while (i < mid) {
    keys[k] = tk[i];
    vals[k++] = tv[i++];
  }
}

static void
reverse_values(LangValue *v, int64_t n)
{
  for (int64_t i = 0, j = n - 1; i < j; i++, j--) {
    LangValue t = v[i];
    v[i] = v[j];
    v[j] = t;
  }
}

bool
lang_sort_values(LangState *L, LangValue *items, int64_t n, LangValue key, bool reverse)
{
  bool has_key = !lang_is_unset(key) && key.tag != LANG_TAG_NONE;
  LangValue *keys = items;
  if (has_key) {
    keys = g_new(LangValue, n);
    for (int64_t i = 0; i < n; i++) {
      keys[i] = lang_call(L, key, &items[i], 1, NULL);
      if (lang_is_exc(keys[i])) {
        for (int64_t j = 0; j < i; j++)
          lang_decref(keys[j]);
        g_free(keys);
        return false;
      }
    }
  }
  if (reverse) {
    reverse_values(items, n);
    if (has_key)
      reverse_values(keys, n);
  }
  LangValue *tk = g_new(LangValue, n / 2 + 1), *tv = g_new(LangValue, n / 2 + 1);
  SortCtx c = {L, false};
  if (has_key)
    merge_sort(&c, keys, items, tk, tv, n);
  else {
    /* keys are the items themselves: sort a copy of the handles in step */
    LangValue *k2 = g_memdup2(items, sizeof(LangValue) * n);
    merge_sort(&c, k2, items, tk, tv, n);
    g_free(k2);
  }
  g_free(tk);
  g_free(tv);
  if (reverse)
    reverse_values(items, n);
  if (has_key) {
    for (int64_t i = 0; i < n; i++)
      lang_decref(keys[i]);
    g_free(keys);
  }
  return !c.failed;
}

bool
lang_list_sort(LangState *L, LangObject *list, LangValue key, bool reverse)
{
  LangList *l = (LangList *)list;
  LangValue *items = l->items;
  int64_t n = l->n, cap = l->cap;
  l->items = NULL;
  l->n = l->cap = 0;
  bool ok = lang_sort_values(L, items, n, key, reverse);
  bool modified = l->n != 0;
  list_clear_items(l);
  l->items = items;
  l->n = n;
  l->cap = cap;
  if (ok && modified) {
    lang_raise_str(L, &lang_exc_ValueError, "list modified during sort");
    return false;
  }
  return ok;
}

static LangValue
m_sort(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kw)
{
  LangValue key = LANG_UNSET, rev = LANG_UNSET;
  if (!lang_parse_args(L, "sort", args, nargs, kw, "*, key=, reverse=", &key, &rev))
    return LANG_EXC;
  int r = lang_is_unset(rev) ? 0 : lang_truth(L, rev);
  if (r < 0)
    return LANG_EXC;
  return lang_list_sort(L, self.o, key, r) ? LANG_NONE : LANG_EXC;
}

static const LangMethodDef list_methods[] = {
    {"append", m_append, "(self, object, /)", "Append object to the end of the list.", 0},
    {"extend", m_extend, "(self, iterable, /)",
     "Extend list by appending elements from the iterable.", 0},
    {"insert", m_insert, "(self, index, object, /)", "Insert object before index.", 0},
    {"pop", m_pop, "(self, index=-1, /)", "Remove and return item at index (default last).", 0},
    {"remove", m_remove, "(self, value, /)", "Remove first occurrence of value.", 0},
    {"index", m_index, "(self, value, start=0, stop=sys.maxsize, /)",
     "Return first index of value.", 0},
    {"count", m_count, "(self, value, /)", "Return number of occurrences of value.", 0},
    {"reverse", m_reverse, "(self, /)", "Reverse *IN PLACE*.", 0},
    {"copy", m_copy, "(self, /)", "Return a shallow copy of the list.", 0},
    {"clear", m_clear, "(self, /)", "Remove all items from list.", 0},
    {"sort", m_sort, "(self, /, *, key=None, reverse=False)",
     "Sort the list in ascending order and return None.", 0},
    {"__iadd__", m_iadd, "(self, value, /)", NULL, 0},
    {"__imul__", m_imul, "(self, value, /)", NULL, 0},
    {"__reversed__", m_reversed, "(self, /)", NULL, 0},
    {NULL},
};

LangType lang_list_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "list",
    .instance_size = sizeof(LangList),
    .flags = LANG_TYPE_BASETYPE | LANG_TYPE_GC,
    .slots =
        {
            .dealloc = list_dealloc,
            .clear = list_clear_slot,
            .construct = list_construct,
            .init = list_init,
            .repr = list_repr,
            .compare = list_compare,
            .binary = {[LANG_ARITH_ADD] = list_add, [LANG_ARITH_MUL] = list_mul},
            .len = list_len,
            .getitem = list_getitem,
            .setitem = list_setitem,
            .contains = list_contains,
            .iter = list_iter,
        },
    .methods = list_methods,
    .doc = "Built-in mutable sequence.",
};
