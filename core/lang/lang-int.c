/* lang-int.c — None, NotImplemented, Ellipsis, bool, int and float.
 *
 * Ints are 64-bit and every operation that would leave that range raises OverflowError
 * "integer overflow" instead of wrapping. Float semantics follow CPython: floor division and
 * modulo take the divisor's sign, comparisons between ints and floats are exact, and the
 * hashes are CPython's numeric hashes modulo 2**61 - 1, so equal numbers hash equal and
 * sets of small ints iterate in CPython's order.
 */
#include "lang-runtime-private.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HASH_BITS    61
#define HASH_MODULUS (((uint64_t)1 << HASH_BITS) - 1)
#define HASH_INF     314159

/* ---- hashes ---- */

int64_t
lang_hash_int(int64_t i)
{
  uint64_t a = i < 0 ? (uint64_t)0 - (uint64_t)i : (uint64_t)i;
  int64_t h = (int64_t)(a % HASH_MODULUS);
  if (i < 0)
    h = -h;
  return h == -1 ? -2 : h;
}

int64_t
lang_hash_double(double v)
{
  if (isinf(v))
    return v > 0 ? HASH_INF : -HASH_INF;
  if (isnan(v))
    return 0;
  int e;
  double m = frexp(v, &e);
  int sign = 1;
  if (m < 0) {
    sign = -1;
    m = -m;
  }
  uint64_t x = 0;
  while (m) {
    x = ((x << 28) & HASH_MODULUS) | x >> (HASH_BITS - 28);
    m *= 268435456.0;
    e -= 28;
    uint64_t y = (uint64_t)m;
    m -= (double)y;
    x += y;
    if (x >= HASH_MODULUS)
      x -= HASH_MODULUS;
  }
  e = e >= 0 ? e % HASH_BITS : HASH_BITS - 1 - ((-1 - e) % HASH_BITS);
  x = ((x << e) & HASH_MODULUS) | x >> (HASH_BITS - e);
  int64_t h = (int64_t)x * sign;
  return h == -1 ? -2 : h;
}

/* ---- helpers ---- */

bool
lang_is_number(LangValue v)
{
  return v.tag == LANG_TAG_INT || v.tag == LANG_TAG_FLOAT || v.tag == LANG_TAG_BOOL;
}

static bool
as_int(LangValue v, int64_t *out)
{
  if (v.tag == LANG_TAG_INT) {
    *out = v.i;
    return true;
  }
  if (v.tag == LANG_TAG_BOOL) {
    *out = v.b;
    return true;
  }
  return false;
}

bool
lang_to_index(LangState *L, LangValue v, int64_t *out)
{
  if (as_int(v, out))
    return true;
  if (v.tag == LANG_TAG_OBJ) {
    LangValue r = lang_call_dunder(L, v, "__index__", NULL, 0);
    if (lang_is_exc(r))
      return false;
    if (!lang_is_unset(r)) {
      if (as_int(r, out))
        return true;
      lang_raise(L, &lang_exc_TypeError, "__index__ returned non-int (type %s)", lang_type_name(r));
      lang_decref(r);
      return false;
    }
  }
  lang_raise(L, &lang_exc_TypeError, "'%s' object cannot be interpreted as an integer",
             lang_type_name(v));
  return false;
}

bool
lang_to_double(LangState *L, LangValue v, double *out)
{
  switch (v.tag) {
    case LANG_TAG_FLOAT:
      *out = v.f;
      return true;
    case LANG_TAG_INT:
      *out = (double)v.i;
      return true;
    case LANG_TAG_BOOL:
      *out = v.b;
      return true;
    default:
      break;
  }
  if (v.tag == LANG_TAG_OBJ) {
    LangValue r = lang_call_dunder(L, v, "__float__", NULL, 0);
    if (lang_is_unset(r))
      r = lang_call_dunder(L, v, "__index__", NULL, 0);
    if (lang_is_exc(r))
      return false;
    if (!lang_is_unset(r)) {
      bool ok = lang_is_number(r);
      if (ok)
        lang_to_double(L, r, out);
      else
        lang_raise(L, &lang_exc_TypeError, "__float__ returned non-float (type %s)",
                   lang_type_name(r));
      lang_decref(r);
      return ok;
    }
  }
  lang_raise(L, &lang_exc_TypeError, "must be real number, not %s", lang_type_name(v));
  return false;
}

static LangValue
float_overflow(LangState *L)
{
  LangValue args[2] = {lang_int(34), lang_str_cstr(L, "Numerical result out of range")};
  LangValue e = lang_exc_new(L, &lang_exc_OverflowError, args, 2);
  lang_decref(args[1]);
  lang_exc_set(L, e);
  lang_decref(e);
  return LANG_EXC;
}

/* ---- int arithmetic ---- */

bool
lang_int_pow(LangState *L, int64_t base, int64_t exp, int64_t *out)
{
  int64_t result = 1;
  while (exp > 0) {
    if (exp & 1) {
      if (__builtin_mul_overflow(result, base, &result)) {
        lang_raise_overflow(L);
        return false;
      }
    }
    exp >>= 1;
    if (exp && __builtin_mul_overflow(base, base, &base)) {
      lang_raise_overflow(L);
      return false;
    }
  }
  *out = result;
  return true;
}

static double
int_truediv(int64_t a, int64_t b)
{
  if (llabs(a) < ((int64_t)1 << 53) && llabs(b) < ((int64_t)1 << 53))
    return (double)a / (double)b;
  return (double)((long double)a / (long double)b);
}

LangValue
lang_int_binary(LangState *L, LangArith op, int64_t a, int64_t b)
{
  int64_t r;
  switch (op) {
    case LANG_ARITH_ADD:
      if (__builtin_add_overflow(a, b, &r))
        return lang_raise_overflow(L);
      return lang_int(r);
    case LANG_ARITH_SUB:
      if (__builtin_sub_overflow(a, b, &r))
        return lang_raise_overflow(L);
      return lang_int(r);
    case LANG_ARITH_MUL:
      if (__builtin_mul_overflow(a, b, &r))
        return lang_raise_overflow(L);
      return lang_int(r);
    case LANG_ARITH_TRUEDIV:
      if (b == 0)
        return lang_raise_zero_div(L, "division by zero");
      return lang_float(int_truediv(a, b));
    case LANG_ARITH_FLOORDIV:
      if (b == 0)
        return lang_raise_zero_div(L, "integer division or modulo by zero");
      if (a == INT64_MIN && b == -1)
        return lang_raise_overflow(L);
      r = a / b;
      if (a % b != 0 && ((a < 0) != (b < 0)))
        r--;
      return lang_int(r);
    case LANG_ARITH_MOD:
      if (b == 0)
        return lang_raise_zero_div(L, "integer modulo by zero");
      if (b == -1)
        return lang_int(0);
      r = a % b;
      if (r != 0 && ((r < 0) != (b < 0)))
        r += b;
      return lang_int(r);
    case LANG_ARITH_POW:
      if (b < 0) {
        if (a == 0)
          return lang_raise_zero_div(L, "0.0 cannot be raised to a negative power");
        return lang_float(pow((double)a, (double)b));
      }
      if (!lang_int_pow(L, a, b, &r))
        return LANG_EXC;
      return lang_int(r);
    case LANG_ARITH_LSHIFT:
      if (b < 0)
        return lang_raise_str(L, &lang_exc_ValueError, "negative shift count");
      if (a == 0)
        return lang_int(0);
      if (b >= 64)
        return lang_raise_overflow(L);
      r = (int64_t)((uint64_t)a << b);
      if ((r >> b) != a)
        return lang_raise_overflow(L);
      return lang_int(r);
    case LANG_ARITH_RSHIFT:
      if (b < 0)
        return lang_raise_str(L, &lang_exc_ValueError, "negative shift count");
      if (b >= 64)
        return lang_int(a < 0 ? -1 : 0);
      return lang_int(a >> b);
    case LANG_ARITH_AND:
      return lang_int(a & b);
    case LANG_ARITH_OR:
      return lang_int(a | b);
    case LANG_ARITH_XOR:
      return lang_int(a ^ b);
    default:
      return LANG_NOTIMPL;
  }
}

double
lang_float_mod(double a, double b)
{
  double mod = fmod(a, b);
  if (mod != 0.0) {
    if ((b < 0) != (mod < 0))
      mod += b;
  } else {
    mod = copysign(0.0, b);
  }
  return mod;
}

double
lang_float_floordiv(double a, double b)
{
  double mod = fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0.0 && ((b < 0) != (mod < 0)))
    div -= 1.0;
  if (div == 0.0)
    return copysign(0.0, a / b);
  double fl = floor(div);
  if (div - fl > 0.5)
    fl += 1.0;
  return fl;
}

static bool
is_odd_integer(double b)
{
  return fmod(fabs(b), 2.0) == 1.0;
}

static LangValue
float_pow(LangState *L, double a, double b)
{
  if (b == 0.0)
    return lang_float(1.0);
  if (isnan(a))
    return lang_float(a);
  if (isnan(b))
    return lang_float(a == 1.0 ? 1.0 : b);
  if (isinf(b)) {
    double aa = fabs(a);
    if (aa == 1.0)
      return lang_float(1.0);
    if ((b > 0) == (aa > 1.0))
      return lang_float(INFINITY);
    return lang_float(0.0);
  }
  if (isinf(a)) {
    bool odd = is_odd_integer(b);
    if (b > 0)
      return lang_float(odd ? a : fabs(a));
    return lang_float(odd ? copysign(0.0, a) : 0.0);
  }
  if (a == 0.0) {
    if (b < 0)
      return lang_raise_zero_div(L, "0.0 cannot be raised to a negative power");
    return lang_float(is_odd_integer(b) ? a : 0.0);
  }
  if (a < 0 && b != floor(b))
    return lang_raise_str(L, &lang_exc_ValueError,
                          "negative number cannot be raised to a fractional power");
  errno = 0;
  double r = pow(a, b);
  if (isinf(r))
    return float_overflow(L);
  return lang_float(r);
}

LangValue
lang_float_binary(LangState *L, LangArith op, double a, double b)
{
  switch (op) {
    case LANG_ARITH_ADD:
      return lang_float(a + b);
    case LANG_ARITH_SUB:
      return lang_float(a - b);
    case LANG_ARITH_MUL:
      return lang_float(a * b);
    case LANG_ARITH_TRUEDIV:
      if (b == 0.0)
        return lang_raise_zero_div(L, "float division by zero");
      return lang_float(a / b);
    case LANG_ARITH_FLOORDIV:
      if (b == 0.0)
        return lang_raise_zero_div(L, "float floor division by zero");
      return lang_float(lang_float_floordiv(a, b));
    case LANG_ARITH_MOD:
      if (b == 0.0)
        return lang_raise_zero_div(L, "float modulo");
      return lang_float(lang_float_mod(a, b));
    case LANG_ARITH_POW:
      return float_pow(L, a, b);
    default:
      return LANG_NOTIMPL;
  }
}

/* Mixed-type arithmetic slot shared by int, bool and float. */
static LangValue
number_binary(LangState *L, LangArith op, LangValue a, LangValue b)
{
  if (!lang_is_number(a) || !lang_is_number(b))
    return LANG_NOTIMPL;
  int64_t x, y;
  if (as_int(a, &x) && as_int(b, &y)) {
    if (a.tag == LANG_TAG_BOOL && b.tag == LANG_TAG_BOOL &&
        (op == LANG_ARITH_AND || op == LANG_ARITH_OR || op == LANG_ARITH_XOR)) {
      LangValue r = lang_int_binary(L, op, x, y);
      return lang_bool(r.i != 0);
    }
    return lang_int_binary(L, op, x, y);
  }
  double fa, fb;
  lang_to_double(L, a, &fa);
  lang_to_double(L, b, &fb);
  return lang_float_binary(L, op, fa, fb);
}

#define NUMBER_SLOT(id, sym, fwd, rev)                                                             \
  static LangValue number_##id(LangState *L, LangValue a, LangValue b)                             \
  {                                                                                                \
    return number_binary(L, LANG_ARITH_##id, a, b);                                                \
  }
LANG_ARITH_LIST(NUMBER_SLOT)
#undef NUMBER_SLOT

#define NUMBER_SLOT_REF(id, sym, fwd, rev) number_##id,
#define NUMBER_BINARY_SLOTS                                                                        \
  {                                                                                                \
    LANG_ARITH_LIST(NUMBER_SLOT_REF)                                                               \
  }

/* Exact comparison of an int with a double: -1, 0, 1, or 2 for NaN. */
static int
compare_int_double(int64_t i, double f)
{
  if (isnan(f))
    return 2;
  if (llabs(i) < ((int64_t)1 << 53) || i == INT64_MIN) {
    double d = (double)i;
    if (llabs(i) < ((int64_t)1 << 53))
      return (d > f) - (d < f);
  }
  if (f >= 9223372036854775808.0)
    return -1;
  if (f < -9223372036854775808.0)
    return 1;
  double t = trunc(f);
  int64_t fi = (int64_t)t;
  if (i != fi)
    return (i > fi) - (i < fi);
  double frac = f - t;
  return frac > 0 ? -1 : (frac < 0 ? 1 : 0);
}

static LangValue
number_compare(LangState *L, LangValue a, LangValue b, LangCompareOp op)
{
  if (!lang_is_number(a) || !lang_is_number(b))
    return LANG_NOTIMPL;
  int c;
  int64_t x = 0, y = 0;
  if (as_int(a, &x) && as_int(b, &y)) {
    c = (x > y) - (x < y);
  } else if (a.tag == LANG_TAG_FLOAT && b.tag == LANG_TAG_FLOAT) {
    if (isnan(a.f) || isnan(b.f))
      c = 2;
    else
      c = (a.f > b.f) - (a.f < b.f);
  } else if (a.tag == LANG_TAG_FLOAT) {
    as_int(b, &y);
    c = compare_int_double(y, a.f);
    if (c != 2)
      c = -c;
  } else {
    as_int(a, &x);
    c = compare_int_double(x, b.f);
  }
  if (c == 2)
    return lang_bool(op == LANG_NE);
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

static bool
number_hash(LangState *L, LangValue v, int64_t *out)
{
  return lang_hash(L, v, out);
}

static int
number_truth(LangState *L, LangValue v)
{
  return lang_truth(L, v);
}

/* ---- int ---- */

int
lang_int_decimal(int64_t v, char buf[24])
{
  /* Digits from the right, in unsigned arithmetic so that INT64_MIN needs no special case. */
  char tmp[24];
  int n = 0;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  do {
    tmp[n++] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  int len = 0;
  if (v < 0)
    buf[len++] = '-';
  while (n)
    buf[len++] = tmp[--n];
  buf[len] = 0;
  return len;
}

static LangValue
int_repr(LangState *L, LangValue v)
{
  if (v.tag == LANG_TAG_BOOL)
    return lang_str_cstr(L, v.b ? "True" : "False");
  char buf[24];
  int len = lang_int_decimal(v.i, buf);
  return lang_str_new(L, buf, len);
}

static LangValue
int_neg(LangState *L, LangValue a)
{
  int64_t x = 0;
  if (!as_int(a, &x))
    return LANG_NOTIMPL;
  if (x == INT64_MIN)
    return lang_raise_overflow(L);
  return lang_int(-x);
}

static LangValue
int_pos(LangState *L, LangValue a)
{
  int64_t x = 0;
  if (!as_int(a, &x))
    return LANG_NOTIMPL;
  return lang_int(x);
}

static LangValue
int_invert(LangState *L, LangValue a)
{
  int64_t x = 0;
  if (!as_int(a, &x))
    return LANG_NOTIMPL;
  return lang_int(~x);
}

static bool
is_space(char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static int
digit_value(char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z')
    return c - 'A' + 10;
  return 99;
}

/* Parses text as an int; false if the syntax is invalid, *overflow if it does not fit. */
static bool
parse_int(const char *p, const char *end, int base, int64_t *out, bool *overflow)
{
  while (p < end && is_space(*p))
    p++;
  while (end > p && is_space(end[-1]))
    end--;
  bool neg = false;
  if (p < end && (*p == '+' || *p == '-'))
    neg = *p++ == '-';
  if (p >= end)
    return false;
  bool prefixed = false;
  if (end - p >= 2 && p[0] == '0') {
    char c = (char)(p[1] | 0x20);
    int pb = c == 'x' ? 16 : c == 'o' ? 8 : c == 'b' ? 2 : 0;
    if (pb && (base == 0 || base == pb)) {
      base = pb;
      p += 2;
      prefixed = true;
    }
  }
  if (base == 0) {
    base = 10;
    /* "010" is not allowed in base 0, but "000" is. */
    if (*p == '0') {
      for (const char *q = p; q < end; q++)
        if (*q != '0' && *q != '_')
          return false;
    }
  }
  uint64_t acc = 0;
  uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
  bool any = false, last_us = prefixed;
  *overflow = false;
  for (; p < end; p++) {
    if (*p == '_') {
      if (last_us || !any) {
        if (!(prefixed && !any && !last_us))
          return false;
      }
      if (last_us)
        return false;
      last_us = true;
      continue;
    }
    int d = digit_value(*p);
    if (d >= base)
      return false;
    last_us = false;
    any = true;
    if (!*overflow) {
      if (acc > (limit - (uint64_t)d) / (uint64_t)base)
        *overflow = true;
      else
        acc = acc * (uint64_t)base + (uint64_t)d;
    }
  }
  if (!any || last_us)
    return false;
  *out = neg ? (int64_t)(0 - acc) : (int64_t)acc;
  return true;
}

LangValue
lang_int_from_string(LangState *L, const char *text, int64_t size, int base)
{
  if (base != 0 && (base < 2 || base > 36))
    return lang_raise_str(L, &lang_exc_ValueError, "int() base must be >= 2 and <= 36, or 0");
  int64_t v;
  bool overflow = false;
  if (!parse_int(text, text + size, base, &v, &overflow)) {
    GString *msg = g_string_new(NULL);
    g_string_append_printf(msg, "invalid literal for int() with base %d: ", base);
    lang_str_repr_into(msg, text, size, false);
    LangValue e = lang_raise_str(L, &lang_exc_ValueError, msg->str);
    g_string_free(msg, TRUE);
    return e;
  }
  if (overflow)
    return lang_raise_overflow(L);
  return lang_int(v);
}

static LangValue
double_to_int(LangState *L, double f)
{
  if (isnan(f))
    return lang_raise_str(L, &lang_exc_ValueError, "cannot convert float NaN to integer");
  if (isinf(f))
    return lang_raise_str(L, &lang_exc_OverflowError, "cannot convert float infinity to integer");
  double t = trunc(f);
  if (t >= 9223372036854775808.0 || t < -9223372036854775808.0)
    return lang_raise_overflow(L);
  return lang_int((int64_t)t);
}

static LangValue
int_construct(LangState *L, LangType *type, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue x = LANG_UNSET, base = LANG_UNSET;
  if (!lang_parse_args(L, "int", args, nargs, kwnames, "x=, /, base=", &x, &base))
    return LANG_EXC;
  if (lang_is_unset(x)) {
    if (!lang_is_unset(base))
      return lang_raise_str(L, &lang_exc_TypeError, "int() missing string argument");
    return lang_int(0);
  }
  if (!lang_is_unset(base)) {
    int64_t b;
    if (!lang_to_index(L, base, &b))
      return LANG_EXC;
    if (lang_is_str(x))
      return lang_int_from_string(L, lang_str_data(x.o), lang_str_size(x.o), (int)b);
    if (lang_is_type(x, &lang_bytes_type))
      return lang_int_from_string(L, (const char *)((LangBytes *)x.o)->data,
                                  ((LangBytes *)x.o)->size, (int)b);
    return lang_raise_str(L, &lang_exc_TypeError,
                          "int() can't convert non-string with explicit base");
  }
  switch (x.tag) {
    case LANG_TAG_INT:
      return x;
    case LANG_TAG_BOOL:
      return lang_int(x.b);
    case LANG_TAG_FLOAT:
      return double_to_int(L, x.f);
    default:
      break;
  }
  if (lang_is_str(x))
    return lang_int_from_string(L, lang_str_data(x.o), lang_str_size(x.o), 10);
  if (lang_is_type(x, &lang_bytes_type))
    return lang_int_from_string(L, (const char *)((LangBytes *)x.o)->data, ((LangBytes *)x.o)->size,
                                10);
  if (x.tag == LANG_TAG_OBJ) {
    static const char *const dunders[] = {"__int__", "__index__", "__trunc__"};
    for (size_t i = 0; i < G_N_ELEMENTS(dunders); i++) {
      LangValue r = lang_call_dunder(L, x, dunders[i], NULL, 0);
      if (lang_is_exc(r))
        return r;
      if (lang_is_unset(r))
        continue;
      if (r.tag == LANG_TAG_INT)
        return r;
      if (r.tag == LANG_TAG_BOOL)
        return lang_int(r.b);
      LangValue e = lang_raise(L, &lang_exc_TypeError, "%s returned non-int (type %s)", dunders[i],
                               lang_type_name(r));
      lang_decref(r);
      return e;
    }
  }
  return lang_raise(L, &lang_exc_TypeError,
                    "int() argument must be a string, a bytes-like object or a real number, not "
                    "'%s'",
                    lang_type_name(x));
}

static LangValue int_format_method(LangState *L, LangValue self, const LangValue *args, int nargs,
                                   LangObject *kw);

static LangValue
int_bit_length(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kw)
{
  int64_t x = 0;
  as_int(self, &x);
  uint64_t a = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
  return lang_int(a ? 64 - __builtin_clzll(a) : 0);
}

static LangValue
int_self(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kw)
{
  int64_t x = 0;
  as_int(self, &x);
  return lang_int(x);
}

static LangValue
int_to_float(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kw)
{
  int64_t x = 0;
  as_int(self, &x);
  return lang_float((double)x);
}

static LangValue
int_round(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kw)
{
  LangValue nd = LANG_UNSET;
  if (!lang_parse_args(L, "__round__", args, nargs, kw, "ndigits=", &nd))
    return LANG_EXC;
  int64_t x = 0, n;
  as_int(self, &x);
  if (lang_is_unset(nd) || nd.tag == LANG_TAG_NONE)
    return lang_int(x);
  if (!lang_to_index(L, nd, &n))
    return LANG_EXC;
  if (n >= 0)
    return lang_int(x);
  if (n < -19)
    return lang_int(0);
  int64_t p = 1;
  lang_int_pow(L, 10, -n, &p);
  int64_t q = x / p, r = x % p;
  if (r < 0) {
    r += p;
    q--;
  }
  /* half to even */
  if (2 * (uint64_t)r > (uint64_t)p || (2 * (uint64_t)r == (uint64_t)p && (q & 1)))
    q++;
  int64_t out;
  if (__builtin_mul_overflow(q, p, &out))
    return lang_raise_overflow(L);
  return lang_int(out);
}

static LangValue
int_get_real(LangState *L, LangValue self)
{
  int64_t x = 0;
  as_int(self, &x);
  return lang_int(x);
}

static LangValue
int_get_zero(LangState *L, LangValue self)
{
  return lang_int(0);
}

static LangValue
int_get_one(LangState *L, LangValue self)
{
  return lang_int(1);
}

static const LangMethodDef int_methods[] = {
    {"bit_length", int_bit_length, "(self, /)",
     "Number of bits necessary to represent self in binary.", 0},
    {"conjugate", int_self, "(self, /)", "Returns self, the complex conjugate of any int.", 0},
    {"__int__", int_self, "(self, /)", NULL, 0},
    {"__index__", int_self, "(self, /)", NULL, 0},
    {"__trunc__", int_self, "(self, /)", NULL, 0},
    {"__floor__", int_self, "(self, /)", NULL, 0},
    {"__ceil__", int_self, "(self, /)", NULL, 0},
    {"__float__", int_to_float, "(self, /)", NULL, 0},
    {"__round__", int_round, "(self, ndigits=None, /)", NULL, 0},
    {"__format__", int_format_method, "(self, format_spec, /)", NULL, 0},
    {NULL},
};

static const LangGetSetDef int_getsets[] = {
    {"real", int_get_real, NULL, NULL},
    {"imag", int_get_zero, NULL, NULL},
    {"numerator", int_get_real, NULL, NULL},
    {"denominator", int_get_one, NULL, NULL},
    {NULL},
};

static LangValue
int_format_method(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kw)
{
  LangValue spec;
  if (!lang_parse_args(L, "__format__", args, nargs, kw, "format_spec, /", &spec))
    return LANG_EXC;
  if (!lang_is_str(spec))
    return lang_raise(L, &lang_exc_TypeError, "__format__() argument must be str, not %s",
                      lang_type_name(spec));
  return lang_format(L, self, spec.o);
}

LangType lang_int_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "int",
    .slots =
        {
            .construct = int_construct,
            .repr = int_repr,
            .hash = number_hash,
            .compare = number_compare,
            .binary = NUMBER_BINARY_SLOTS,
            .unary = {int_neg, int_pos, int_invert},
            .truth = number_truth,
        },
    .methods = int_methods,
    .getsets = int_getsets,
    .doc = "int([x]) -> integer\nint(x, base=10) -> integer",
};

/* ---- bool ---- */

static LangValue
bool_construct(LangState *L, LangType *type, const LangValue *args, int nargs, LangObject *kwnames)
{
  if (!lang_no_kwargs(L, "bool", kwnames))
    return LANG_EXC;
  if (nargs > 1)
    return lang_raise(L, &lang_exc_TypeError, "bool expected at most 1 argument, got %d", nargs);
  if (nargs == 0)
    return LANG_FALSE;
  int t = lang_truth(L, args[0]);
  return t < 0 ? LANG_EXC : lang_bool(t);
}

LangType lang_bool_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "bool",
    .base_type = &lang_int_type,
    .slots = {.construct = bool_construct, .repr = int_repr},
    .doc = "Returns True when the argument is true, False otherwise.",
};

/* ---- float ---- */

static LangValue
float_repr(LangState *L, LangValue v)
{
  char buf[32];
  lang_float_repr(v.f, buf);
  return lang_str_cstr(L, buf);
}

static LangValue
float_neg(LangState *L, LangValue a)
{
  return a.tag == LANG_TAG_FLOAT ? lang_float(-a.f) : LANG_NOTIMPL;
}

static LangValue
float_pos(LangState *L, LangValue a)
{
  return a.tag == LANG_TAG_FLOAT ? a : LANG_NOTIMPL;
}

static bool
float_chars_ok(const char *p, const char *end)
{
  for (; p < end; p++)
    if (!g_ascii_isdigit(*p) && *p != '.' && *p != 'e' && *p != 'E' && *p != '+' && *p != '-')
      return false;
  return true;
}

LangValue
lang_float_from_string(LangState *L, const char *text, int64_t size)
{
  const char *p = text, *end = text + size;
  while (p < end && is_space(*p))
    p++;
  while (end > p && is_space(end[-1]))
    end--;
  GString *clean = g_string_sized_new(end - p);
  bool ok = p < end;
  /* Underscores only between digits. */
  for (const char *q = p; q < end && ok; q++) {
    if (*q == '_') {
      if (q == p || q + 1 >= end || !g_ascii_isdigit(q[-1]) || !g_ascii_isdigit(q[1]))
        ok = false;
      continue;
    }
    g_string_append_c(clean, *q);
  }
  double v = 0;
  if (ok) {
    const char *s = clean->str;
    const char *body = s + (*s == '+' || *s == '-');
    bool neg = *s == '-';
    if (g_ascii_strcasecmp(body, "inf") == 0 || g_ascii_strcasecmp(body, "infinity") == 0)
      v = neg ? -INFINITY : INFINITY;
    else if (g_ascii_strcasecmp(body, "nan") == 0)
      v = neg ? -NAN : NAN;
    else if (!float_chars_ok(s, s + clean->len) || !*body)
      ok = false;
    else {
      char *stop = NULL;
      v = g_ascii_strtod(s, &stop);
      ok = stop == s + clean->len &&
           (g_ascii_isdigit(*body) || (*body == '.' && g_ascii_isdigit(body[1])));
    }
  }
  g_string_free(clean, TRUE);
  if (!ok) {
    GString *msg = g_string_new("could not convert string to float: ");
    lang_str_repr_into(msg, text, size, false);
    LangValue e = lang_raise_str(L, &lang_exc_ValueError, msg->str);
    g_string_free(msg, TRUE);
    return e;
  }
  return lang_float(v);
}

static LangValue
float_construct(LangState *L, LangType *type, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue x = LANG_UNSET;
  if (!lang_parse_args(L, "float", args, nargs, kwnames, "x=, /", &x))
    return LANG_EXC;
  if (lang_is_unset(x))
    return lang_float(0.0);
  if (lang_is_str(x))
    return lang_float_from_string(L, lang_str_data(x.o), lang_str_size(x.o));
  if (lang_is_type(x, &lang_bytes_type))
    return lang_float_from_string(L, (const char *)((LangBytes *)x.o)->data,
                                  ((LangBytes *)x.o)->size);
  double d;
  if (lang_is_number(x))
    return lang_to_double(L, x, &d) ? lang_float(d) : LANG_EXC;
  if (x.tag == LANG_TAG_OBJ) {
    /* An exception raised by __float__ or __index__ is the caller's to see, as in CPython;
     * only their absence makes the generic TypeError below. */
    LangValue r = lang_call_dunder(L, x, "__float__", NULL, 0);
    if (lang_is_unset(r))
      r = lang_call_dunder(L, x, "__index__", NULL, 0);
    if (lang_is_exc(r))
      return LANG_EXC;
    if (!lang_is_unset(r)) {
      bool ok = lang_is_number(r) && lang_to_double(L, r, &d);
      if (!ok && !lang_is_number(r))
        lang_raise(L, &lang_exc_TypeError, "%s.__float__ returned non-float (type %s)",
                   lang_type_name(x), lang_type_name(r));
      lang_decref(r);
      return ok ? lang_float(d) : LANG_EXC;
    }
  }
  return lang_raise(L, &lang_exc_TypeError,
                    "float() argument must be a string or a real number, not '%s'",
                    lang_type_name(x));
}

static LangValue
float_is_integer(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kw)
{
  return lang_bool(isfinite(self.f) && self.f == floor(self.f));
}

static LangValue
float_int(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kw)
{
  return double_to_int(L, self.f);
}

static LangValue
float_self(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kw)
{
  return self;
}

static LangValue
float_floor(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kw)
{
  return double_to_int(L, floor(self.f));
}

static LangValue
float_ceil(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kw)
{
  return double_to_int(L, ceil(self.f));
}

/* Decimal rounding of x to `ndigits` places, correctly rounded with ties to even, by working
 * on x's exact decimal expansion (glibc prints doubles exactly). */
double
lang_float_round(double x, int64_t ndigits)
{
  if (!isfinite(x) || x == 0.0 || ndigits > 330)
    return x;
  if (ndigits < -330)
    return copysign(0.0, x);
  if (ndigits >= 0) {
    char *buf = g_strdup_printf("%.*f", (int)ndigits, x);
    double r = g_ascii_strtod(buf, NULL);
    g_free(buf);
    return r;
  }
  /* Round the integer part at 10**-ndigits. */
  char *s = g_strdup_printf("%.1100f", fabs(x));
  char *dot = strchr(s, '.');
  int64_t intlen = dot - s;
  int64_t keep = intlen + ndigits; /* digits kept */
  double r;
  if (keep < 0) {
    r = 0.0;
  } else {
    /* is the rest above, at or below half? */
    int cmp;
    char first = keep < intlen ? s[keep] : '0';
    if (first > '5')
      cmp = 1;
    else if (first < '5')
      cmp = -1;
    else {
      cmp = 0;
      for (const char *q = s + keep + 1; *q; q++)
        if (*q != '0' && *q != '.') {
          cmp = 1;
          break;
        }
    }
    GString *digits = g_string_new_len(s, keep);
    if (digits->len == 0)
      g_string_append_c(digits, '0');
    bool odd = (digits->str[digits->len - 1] - '0') & 1;
    if (cmp > 0 || (cmp == 0 && odd)) {
      int64_t i = (int64_t)digits->len - 1;
      for (; i >= 0; i--) {
        if (digits->str[i] == '9')
          digits->str[i] = '0';
        else {
          digits->str[i]++;
          break;
        }
      }
      if (i < 0)
        g_string_prepend_c(digits, '1');
    }
    g_string_append_printf(digits, "e%d", (int)-ndigits);
    r = g_ascii_strtod(digits->str, NULL);
    g_string_free(digits, TRUE);
  }
  g_free(s);
  return copysign(r, x);
}

static LangValue
float_round(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kw)
{
  LangValue nd = LANG_UNSET;
  if (!lang_parse_args(L, "__round__", args, nargs, kw, "ndigits=", &nd))
    return LANG_EXC;
  if (lang_is_unset(nd) || nd.tag == LANG_TAG_NONE)
    return double_to_int(L, nearbyint(self.f));
  int64_t n;
  if (!lang_to_index(L, nd, &n))
    return LANG_EXC;
  double r = lang_float_round(self.f, n);
  if (isinf(r) && isfinite(self.f))
    return lang_raise_str(L, &lang_exc_OverflowError, "rounded value too large to represent");
  return lang_float(r);
}

static LangValue
float_get_real(LangState *L, LangValue self)
{
  return self;
}

static LangValue
float_get_imag(LangState *L, LangValue self)
{
  return lang_float(0.0);
}

static const LangMethodDef float_methods[] = {
    {"is_integer", float_is_integer, "(self, /)", "Return True if the float is an integer.", 0},
    {"conjugate", float_self, "(self, /)", NULL, 0},
    {"__int__", float_int, "(self, /)", NULL, 0},
    {"__trunc__", float_int, "(self, /)", NULL, 0},
    {"__floor__", float_floor, "(self, /)", NULL, 0},
    {"__ceil__", float_ceil, "(self, /)", NULL, 0},
    {"__float__", float_self, "(self, /)", NULL, 0},
    {"__round__", float_round, "(self, ndigits=None, /)", NULL, 0},
    {"__format__", int_format_method, "(self, format_spec, /)", NULL, 0},
    {NULL},
};

static const LangGetSetDef float_getsets[] = {
    {"real", float_get_real, NULL, NULL},
    {"imag", float_get_imag, NULL, NULL},
    {NULL},
};

LangType lang_float_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "float",
    .slots =
        {
            .construct = float_construct,
            .repr = float_repr,
            .hash = number_hash,
            .compare = number_compare,
            .binary = NUMBER_BINARY_SLOTS,
            .unary = {float_neg, float_pos, NULL},
            .truth = number_truth,
        },
    .methods = float_methods,
    .getsets = float_getsets,
    .doc = "Convert a string or number to a floating point number, if possible.",
};

/* ---- None, NotImplemented, Ellipsis ---- */

static LangValue
none_repr(LangState *L, LangValue v)
{
  return lang_str_cstr(L, "None");
}

static LangValue
none_construct(LangState *L, LangType *type, const LangValue *args, int nargs, LangObject *kwnames)
{
  if (nargs || lang_nkw(kwnames))
    return lang_raise_str(L, &lang_exc_TypeError, "NoneType takes no arguments");
  return LANG_NONE;
}

static int
none_truth(LangState *L, LangValue v)
{
  return 0;
}

LangType lang_none_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "NoneType",
    .slots = {.construct = none_construct, .repr = none_repr, .truth = none_truth},
};

static LangValue
notimpl_repr(LangState *L, LangValue v)
{
  return lang_str_cstr(L, "NotImplemented");
}

LangType lang_notimplemented_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "NotImplementedType",
    .flags = LANG_TYPE_ABSTRACT_NEW,
    .slots = {.repr = notimpl_repr},
};

LangObject lang_notimplemented_obj = {LANG_IMMORTAL_REFCOUNT, &lang_notimplemented_type};

static LangValue
ellipsis_repr(LangState *L, LangValue v)
{
  return lang_str_cstr(L, "Ellipsis");
}

LangType lang_ellipsis_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "ellipsis",
    .flags = LANG_TYPE_ABSTRACT_NEW,
    .slots = {.repr = ellipsis_repr},
};

LangObject lang_ellipsis_obj = {LANG_IMMORTAL_REFCOUNT, &lang_ellipsis_type};
