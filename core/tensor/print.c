/* print.c — NumPy 1.24's text for arrays and scalars, inside TensorFlow's tensor wrappers.
 *
 * Printing follows NumPy's pipeline with its default options. First the shown elements are
 * picked: all of them, or only the first and last three along every long axis once the tensor
 * has more than 1000 elements. One element format is built from the shown elements alone (a
 * common width for ints; positional or scientific notation, digits and padding for floats),
 * each shown element becomes a word, and the words are laid out in nested brackets, wrapping
 * rows at 75 columns.
 *
 * Float digits come from a Dragon4 digit generator working on exact big integers, so every
 * digit and every rounding decision is the one NumPy makes: shortest digits that identify the
 * float32 or float64 value, optionally cut after a number of digits or extended to a minimum
 * with the exact digits of the binary value.
 */
#include "tr-print.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

enum {
  PRINT_THRESHOLD = 1000, /* arrays with more elements than this are summarised */
  PRINT_EDGE_ITEMS = 3,   /* elements kept at each end of a summarised axis */
  PRINT_LINE_WIDTH = 75,  /* columns a row may fill before it wraps */
  PRINT_PRECISION = 8,    /* most fractional digits of a float in an array */
};

/* ---- exact big integers ------------------------------------------------------------------ */

/* Enough for the largest intermediate: a float64 denormal scaled by 10^324, times 10 per digit. */
enum { BIG_BLOCKS = 48 };

typedef struct {
  int len;                /* blocks in use, no leading zero blocks; 0 for the value zero */
  uint32_t b[BIG_BLOCKS]; /* base-2^32 digits, least significant first */
} Big;

static void
big_set(Big *x, uint64_t v)
{
  x->len = 0;
  for (; v != 0; v >>= 32)
    x->b[x->len++] = (uint32_t)v;
}

static void
big_trim(Big *x)
{
  while (x->len > 0 && x->b[x->len - 1] == 0)
    x->len--;
}

static void
big_shl(Big *x, int bits)
{
  if (x->len == 0 || bits == 0)
    return;
  int blocks = bits / 32, shift = bits % 32;
  g_assert(x->len + blocks + 1 <= BIG_BLOCKS);
  uint32_t out[BIG_BLOCKS] = {0};
  for (int i = 0; i < x->len; i++) {
    uint64_t w = (uint64_t)x->b[i] << shift;
    out[i + blocks] |= (uint32_t)w;
    out[i + blocks + 1] |= (uint32_t)(w >> 32);
  }
  x->len += blocks + 1;
  memcpy(x->b, out, sizeof(uint32_t) * (size_t)x->len);
  big_trim(x);
}

static void
big_mul_small(Big *x, uint32_t m)
{
  uint64_t carry = 0;
  for (int i = 0; i < x->len; i++) {
    uint64_t w = (uint64_t)x->b[i] * m + carry;
    x->b[i] = (uint32_t)w;
    carry = w >> 32;
  }
  if (carry != 0) {
    g_assert(x->len < BIG_BLOCKS);
    x->b[x->len++] = (uint32_t)carry;
  }
}

static void
big_mul_pow10(Big *x, int n)
{
  static const uint32_t pow10[] = {1,      10,      100,      1000,      10000,
                                   100000, 1000000, 10000000, 100000000, 1000000000};
  for (; n >= 9; n -= 9)
    big_mul_small(x, pow10[9]);
  big_mul_small(x, pow10[n]);
}

static int
big_cmp(const Big *a, const Big *b)
{
  if (a->len != b->len)
    return a->len < b->len ? -1 : 1;
  for (int i = a->len - 1; i >= 0; i--)
    if (a->b[i] != b->b[i])
      return a->b[i] < b->b[i] ? -1 : 1;
  return 0;
}

/* out = a + b; out must not alias a or b. */
static void
big_add(Big *out, const Big *a, const Big *b)
{
  int n = MAX(a->len, b->len);
  uint64_t carry = 0;
  for (int i = 0; i < n; i++) {
    uint64_t w = carry + (i < a->len ? a->b[i] : 0) + (i < b->len ? b->b[i] : 0);
    out->b[i] = (uint32_t)w;
    carry = w >> 32;
  }
  out->len = n;
  if (carry != 0) {
    g_assert(n < BIG_BLOCKS);
    out->b[out->len++] = (uint32_t)carry;
  }
}

/* a -= b, for a >= b. */
static void
big_sub(Big *a, const Big *b)
{
  int64_t borrow = 0;
  for (int i = 0; i < a->len; i++) {
    int64_t w = (int64_t)a->b[i] - (i < b->len ? b->b[i] : 0) - borrow;
    borrow = w < 0;
    a->b[i] = (uint32_t)(w + (borrow << 32));
  }
  g_assert(borrow == 0);
  big_trim(a);
}

/* The quotient r / s, known to be below 10; leaves the remainder in r. */
static uint32_t
big_div_digit(Big *r, const Big *s)
{
  uint32_t q = 0;
  while (big_cmp(r, s) >= 0) {
    big_sub(r, s);
    q++;
  }
  g_assert(q < 10);
  return q;
}

/* ---- decimal digits of a float ----------------------------------------------------------- */

/* The binary layout of the two float formats Trellis prints. */
typedef struct {
  int mantissa_bits; /* stored fraction bits */
  int exponent_bits; /* stored exponent bits */
  int bias;          /* exponent bias */
} FloatLayout;

static const FloatLayout float32_layout = {23, 8, 127};
static const FloatLayout float64_layout = {52, 11, 1023};

/* |v| = mantissa * 2^exponent, with the gaps to the neighbouring floats. */
typedef struct {
  uint64_t mantissa;    /* integer significand; 0 for zero */
  int exponent;         /* power of two of the significand's last bit */
  bool unequal_margins; /* a power of two: the gap below is half the gap above */
} FloatParts;

/* The layout of a float dtype's elements. */
static const FloatLayout *
layout_of(TrDType dtype)
{
  static const FloatLayout float16_layout = {10, 5, 15};
  static const FloatLayout bfloat16_layout = {7, 8, 127};
  switch (dtype) {
    case TR_FLOAT32:
    case TR_COMPLEX64:
      return &float32_layout;
    case TR_FLOAT16:
      return &float16_layout;
    case TR_BFLOAT16:
      return &bfloat16_layout;
    default:
      return &float64_layout;
  }
}

static FloatParts
float_parts(double v, const FloatLayout *layout)
{
  uint64_t bits;
  if (layout == &float32_layout) {
    float f = fabsf((float)v);
    uint32_t b32;
    memcpy(&b32, &f, sizeof b32);
    bits = b32;
  } else if (layout == &float64_layout) {
    double d = fabs(v);
    memcpy(&bits, &d, sizeof bits);
  } else {
    /* The narrow formats, from the exact value: v = f * 2^e with f in [0.5, 1). */
    int e;
    double f = frexp(fabs(v), &e);
    int min_exponent = 1 - layout->bias - layout->mantissa_bits;
    int exponent = MAX(e - 1 - layout->mantissa_bits, min_exponent);
    uint64_t mantissa = f == 0 ? 0 : (uint64_t)ldexp(fabs(v), -exponent);
    bool normal = mantissa >> layout->mantissa_bits;
    return (FloatParts){mantissa, exponent,
                        normal && exponent > min_exponent &&
                            mantissa == (UINT64_C(1) << layout->mantissa_bits)};
  }
  uint64_t fraction = bits & ((UINT64_C(1) << layout->mantissa_bits) - 1);
  int biased = (int)(bits >> layout->mantissa_bits);
  int min_exponent = 1 - layout->bias - layout->mantissa_bits;
  if (biased == 0)
    return (FloatParts){fraction, min_exponent, false};
  return (FloatParts){fraction | (UINT64_C(1) << layout->mantissa_bits),
                      biased - layout->bias - layout->mantissa_bits, biased != 1 && fraction == 0};
}

typedef enum {
  CUTOFF_TOTAL,    /* digit limits count significant digits */
  CUTOFF_FRACTION, /* digit limits count digits after the decimal point */
} CutoffMode;

enum { DIGITS_MAX = 48 };

typedef struct {
  char d[DIGITS_MAX]; /* decimal digits, most significant first; not NUL-terminated */
  int n;              /* digits in d */
  int exp10;          /* power of ten of d[0] */
} Digits;

static void
digits_round_up(Digits *out)
{
  while (out->n > 0 && out->d[out->n - 1] == '9')
    out->n--;
  if (out->n == 0) {
    out->d[out->n++] = '1';
    out->exp10++;
  } else {
    out->d[out->n - 1]++;
  }
}

/* Dragon4's working values, all scaled so the next digit is floor(r / s). */
typedef struct {
  Big r;        /* the value still to print, times s */
  Big s;        /* the scale */
  Big low;      /* half the gap to the float below, times s */
  Big high;     /* half the gap to the float above, times s */
  bool unequal; /* high is twice low (the value is a power of two) */
} DigitState;

static void
digit_state_set_high(DigitState *st)
{
  st->high = st->low;
  if (st->unequal)
    big_shl(&st->high, 1);
}

static void
digit_state_shift(DigitState *st)
{
  big_mul_small(&st->r, 10);
  big_mul_small(&st->low, 10);
  digit_state_set_high(st);
}

/* Scale a nonzero value for its first digit; returns k, the first digit being at 10^(k-1). A
 * fraction cutoff below the value's first digit starts the digits at the cutoff instead. */
static int
digit_state_init(DigitState *st, const FloatParts *p, CutoffMode mode, int max_cut)
{
  int scale_bits = p->unequal_margins ? 2 : 1;
  st->unequal = p->unequal_margins;
  big_set(&st->r, p->mantissa);
  big_set(&st->low, 1);
  if (p->exponent > 0) {
    big_shl(&st->r, p->exponent + scale_bits);
    big_set(&st->s, UINT64_C(1) << scale_bits);
    big_shl(&st->low, p->exponent);
  } else {
    big_shl(&st->r, scale_bits);
    big_set(&st->s, 1);
    big_shl(&st->s, -p->exponent + scale_bits);
  }

  /* An estimate of floor(log10(value)) + 1 from the top bit: right or one too small. */
  int top_bit = 63 - __builtin_clzll(p->mantissa);
  int k = (int)ceil((top_bit + p->exponent) * 0.30102999566398119521 - 0.69);
  if (max_cut >= 0 && mode == CUTOFF_FRACTION && k <= -max_cut)
    k = -max_cut + 1;
  if (k > 0) {
    big_mul_pow10(&st->s, k);
  } else if (k < 0) {
    big_mul_pow10(&st->r, -k);
    big_mul_pow10(&st->low, -k);
  }
  digit_state_set_high(st);
  if (big_cmp(&st->r, &st->s) >= 0)
    return k + 1;
  digit_state_shift(st);
  return k;
}

/* Decimal digits of |v| as NumPy's Dragon4 makes them: stop at the first digit that tells the
 * value apart from its float32 (or float64) neighbours once at least `min_cut` digits are out,
 * and never go past `max_cut` digits (each -1 for no limit, counted as `mode` says). The last
 * digit is rounded on the exact binary value; a value on a rounding boundary counts as inside
 * when its significand is even, which is also how strtod reads decimal text back. */
static void
digits_generate(double v, const FloatLayout *layout, CutoffMode mode, int max_cut, int min_cut,
                Digits *out)
{
  FloatParts p = float_parts(v, layout);
  out->n = 0;
  if (p.mantissa == 0) {
    out->d[out->n++] = '0';
    out->exp10 = 0;
    return;
  }
  DigitState st;
  int k = digit_state_init(&st, &p, mode, max_cut);
  out->exp10 = k - 1;

  /* The power of ten of the last digit allowed, and the one before which we may not stop. */
  int max_exp = k - DIGITS_MAX + 1;
  if (max_cut >= 0)
    max_exp = MAX(max_exp, mode == CUTOFF_TOTAL ? k - max_cut : -max_cut);
  int min_exp = k;
  if (min_cut >= 0)
    min_exp = MIN(min_exp, mode == CUTOFF_TOTAL ? k - min_cut : -min_cut);

  bool even = (p.mantissa & 1) == 0, can_round_down = false, can_round_up = false;
  uint32_t digit = 0;
  for (int digit_exp = k - 1;; digit_exp--) {
    digit = big_div_digit(&st.r, &st.s);
    Big r_high;
    big_add(&r_high, &st.r, &st.high);
    int c_low = big_cmp(&st.r, &st.low), c_high = big_cmp(&r_high, &st.s);
    can_round_down = even ? c_low <= 0 : c_low < 0;
    can_round_up = even ? c_high >= 0 : c_high > 0;
    if (((can_round_down || can_round_up) && digit_exp <= min_exp) || digit_exp == max_exp)
      break;
    out->d[out->n++] = (char)('0' + digit);
    digit_state_shift(&st);
  }

  /* Both directions allowed (or neither): round to nearest on the exact remainder, ties to an
   * even digit. */
  bool round_down = can_round_down;
  if (can_round_down == can_round_up) {
    big_shl(&st.r, 1);
    int c = big_cmp(&st.r, &st.s);
    round_down = c < 0 || (c == 0 && (digit & 1) == 0);
  }
  if (round_down || digit < 9)
    out->d[out->n++] = (char)('0' + digit + (round_down ? 0 : 1));
  else
    digits_round_up(out);
}

/* ---- float text -------------------------------------------------------------------------- */

/* How trailing zeros after the decimal point are treated (NumPy's trim modes). */
typedef enum {
  TRIM_NONE,     /* 'k': keep them, pad with zeros up to the minimum fraction length */
  TRIM_ZEROS,    /* '.': drop them, keep the point: "2." */
  TRIM_ONE_ZERO, /* '0': drop them but one: "2.0" */
  TRIM_POINT,    /* '-': drop them and a bare point: "2" */
} TrimMode;

static void
append_spaces(GString *out, int n)
{
  for (int i = 0; i < n; i++)
    g_string_append_c(out, ' ');
}

/* Trim (or pad) the fraction digits as `trim` says; FALSE when the point goes too. */
static bool
trim_fraction(GString *frac, TrimMode trim, int min_frac)
{
  if (trim == TRIM_NONE) {
    while ((int)frac->len < min_frac)
      g_string_append_c(frac, '0');
    return true;
  }
  while (frac->len > 0 && frac->str[frac->len - 1] == '0')
    g_string_truncate(frac, frac->len - 1);
  if (frac->len == 0 && trim == TRIM_ONE_ZERO)
    g_string_append_c(frac, '0');
  return frac->len > 0 || trim != TRIM_POINT;
}

/* "ddd.ddd", padded with spaces to `pad_left` columns before the point (sign included) and
 * `pad_right` after it (-1: no padding). */
static void
append_positional(GString *out, const Digits *dg, char sign, TrimMode trim, int min_frac,
                  int pad_left, int pad_right)
{
  g_autoptr(GString) whole = g_string_new(NULL);
  if (sign)
    g_string_append_c(whole, sign);
  g_autoptr(GString) frac = g_string_new(NULL);
  if (dg->exp10 >= 0) {
    int n_whole = dg->exp10 + 1;
    g_string_append_len(whole, dg->d, MIN(dg->n, n_whole));
    for (int i = dg->n; i < n_whole; i++)
      g_string_append_c(whole, '0');
    if (dg->n > n_whole)
      g_string_append_len(frac, dg->d + n_whole, dg->n - n_whole);
  } else {
    g_string_append_c(whole, '0');
    for (int i = 0; i < -(dg->exp10 + 1); i++)
      g_string_append_c(frac, '0');
    g_string_append_len(frac, dg->d, dg->n);
  }
  bool point = trim_fraction(frac, trim, min_frac);

  append_spaces(out, pad_left - (int)whole->len);
  g_string_append_len(out, whole->str, (gssize)whole->len);
  if (point)
    g_string_append_c(out, '.');
  g_string_append_len(out, frac->str, (gssize)frac->len);
  append_spaces(out, pad_right - (int)frac->len);
}

/* "d.ddde+XX", padded with spaces to `pad_left` columns before the point, the exponent written
 * with at least `exp_digits` digits. */
static void
append_scientific(GString *out, const Digits *dg, char sign, TrimMode trim, int min_frac,
                  int pad_left, int exp_digits)
{
  g_autoptr(GString) frac = g_string_new_len(dg->d + 1, dg->n - 1);
  bool point = trim_fraction(frac, trim, min_frac);

  append_spaces(out, pad_left - (sign ? 2 : 1));
  if (sign)
    g_string_append_c(out, sign);
  g_string_append_c(out, dg->d[0]);
  if (point)
    g_string_append_c(out, '.');
  g_string_append_len(out, frac->str, (gssize)frac->len);
  g_string_append_printf(out, "e%c%0*d", dg->exp10 < 0 ? '-' : '+', MAX(exp_digits, 2),
                         ABS(dg->exp10));
}

/* The sign written before a number: '-' when negative, '+' for the others with `plus` (NumPy's
 * sign='+', which complex numbers' imaginary parts use), else none. */
static char
sign_of(double v, bool plus)
{
  return signbit(v) ? '-' : plus ? '+' : 0;
}

/* "nan", "inf", "-inf": NumPy never prints a sign on nan. */
static const char *
nonfinite_text(double v)
{
  if (isnan(v))
    return "nan";
  return v < 0 ? "-inf" : "inf";
}

/* The shortest text of a scalar that reads back as the same value of its layout, positional
 * for magnitudes in [1e-4, 1e16): NumPy's scalar repr. `trim` is what positional text does with
 * trailing zeros; `plus` writes '+' on non-negative values. */
static void
append_scalar_float(GString *out, double v, const FloatLayout *layout, TrimMode trim, bool plus)
{
  Digits dg;
  digits_generate(v, layout, CUTOFF_TOTAL, -1, -1, &dg);
  double a = fabs(v);
  if (a == 0 || (a >= 1e-4 && a < 1e16))
    append_positional(out, &dg, sign_of(v, plus), trim, -1, -1, -1);
  else
    append_scientific(out, &dg, sign_of(v, plus), TRIM_POINT, -1, -1, -1);
}

char *
tr_format_float(double v, bool is_float32)
{
  if (is_float32)
    v = (float)v;
  if (!isfinite(v))
    return g_strdup(nonfinite_text(v));
  GString *out = g_string_new(NULL);
  append_scalar_float(out, v, is_float32 ? &float32_layout : &float64_layout, TRIM_ONE_ZERO, false);
  return g_string_free(out, FALSE);
}

/* ---- element formats --------------------------------------------------------------------- */

/* One column format for floats, shared by the shown elements (NumPy's FloatingFormat). */
typedef struct {
  bool exp_format; /* scientific notation */
  int precision;   /* scientific: the fraction digits every element gets */
  int pad_left;    /* columns before the decimal point, sign included */
  int pad_right;   /* columns after the point (scientific: through the exponent) */
  int exp_size;    /* scientific: exponent digits */
  bool plus;       /* every value carries a sign (complex numbers' imaginary parts) */
} FloatFormat;

/* One format shared by every element of an array, built from the shown elements. */
typedef struct {
  FloatFormat real; /* floats, and complex numbers' real parts */
  FloatFormat imag; /* complex numbers' imaginary parts */
  int int_width;    /* ints: columns of the widest shown value */
} ElemFormat;

/* Element `pos` of a float or complex buffer, widened; `imag` picks a complex's imaginary part. */
static double
read_float_part(const TrTensor *t, int64_t pos, bool imag)
{
  const void *data = t->buf->data;
  switch (t->dtype) {
    case TR_FLOAT32:
      return ((const float *)data)[pos];
    case TR_FLOAT16:
      return tr_half_to_float(((const TrHalf *)data)[pos]);
    case TR_BFLOAT16:
      return tr_bfloat16_to_float(((const TrBFloat16 *)data)[pos]);
    case TR_COMPLEX64:
      return ((const float *)data)[2 * pos + imag];
    case TR_COMPLEX128:
      return ((const double *)data)[2 * pos + imag];
    default:
      return ((const double *)data)[pos];
  }
}

static double
read_float(const TrTensor *t, int64_t pos)
{
  return read_float_part(t, pos, false);
}

/* NumPy switches a whole array to scientific notation when its nonzero finite magnitudes reach
 * 1e8, go below 1e-4, or span more than three decades; the ratio is taken in the array's own
 * precision. */
static bool
float_needs_exp(const double *vals, size_t n, const FloatLayout *layout)
{
  double max = 0, min = INFINITY;
  for (size_t i = 0; i < n; i++) {
    double a = fabs(vals[i]);
    if (!isfinite(a) || a == 0)
      continue;
    max = MAX(max, a);
    min = MIN(min, a);
  }
  if (max == 0)
    return false;
  double ratio = layout == &float64_layout ? max / min : (double)((float)max / (float)min);
  return max >= 1e8 || min < 1e-4 || ratio > 1000.0;
}

/* Measure one finite value in the shortest form NumPy uses to size the columns. */
static void
float_measure(FloatFormat *f, double v, const FloatLayout *layout)
{
  Digits dg;
  g_autoptr(GString) text = g_string_new(NULL);
  if (f->exp_format) {
    digits_generate(v, layout, CUTOFF_TOTAL, PRINT_PRECISION + 1, -1, &dg);
    append_scientific(text, &dg, sign_of(v, f->plus), TRIM_ZEROS, -1, -1, -1);
  } else {
    digits_generate(v, layout, CUTOFF_FRACTION, PRINT_PRECISION, -1, &dg);
    append_positional(text, &dg, sign_of(v, f->plus), TRIM_ZEROS, -1, -1, -1);
  }
  const char *point = strchr(text->str, '.');
  const char *e = strchr(text->str, 'e');
  const char *frac_end = e ? e : text->str + text->len;
  f->pad_left = MAX(f->pad_left, (int)(point - text->str));
  f->pad_right = MAX(f->pad_right, (int)(frac_end - point - 1));
  if (e)
    f->exp_size = MAX(f->exp_size, (int)strlen(e + 2));
}

/* Fill `f` from the shown values (NumPy's FloatingFormat.fillFormat). */
static void
float_prepare_values(FloatFormat *f, const double *vals, size_t n, const FloatLayout *layout)
{
  bool any_nonfinite = false, neg_inf = f->plus;
  f->exp_format = float_needs_exp(vals, n, layout);
  for (size_t i = 0; i < n; i++) {
    double v = vals[i];
    if (isfinite(v)) {
      float_measure(f, v, layout);
      continue;
    }
    any_nonfinite = true;
    neg_inf |= isinf(v) && v < 0;
  }
  if (f->exp_format) {
    f->precision = f->pad_right;
    f->pad_right = f->exp_size + 2 + f->precision;
  }
  if (any_nonfinite) {
    int offset = f->pad_right + 1;
    f->pad_left = MAX(f->pad_left, MAX(3 - offset, 3 + neg_inf - offset));
  }
}

static void
float_format_value(const FloatFormat *f, double v, const FloatLayout *layout, GString *out)
{
  Digits dg;
  if (!isfinite(v)) {
    const char *text = nonfinite_text(v);
    bool plus = f->plus && !(isinf(v) && v < 0);
    append_spaces(out, f->pad_left + f->pad_right + 1 - (int)strlen(text) - plus);
    if (plus)
      g_string_append_c(out, '+');
    g_string_append(out, text);
  } else if (f->exp_format) {
    digits_generate(v, layout, CUTOFF_TOTAL, f->precision + 1, f->precision + 1, &dg);
    append_scientific(out, &dg, sign_of(v, f->plus), TRIM_NONE, f->precision, f->pad_left,
                      f->exp_size);
  } else {
    /* A minimum of 0 fraction digits: every digit before the point is exact. */
    digits_generate(v, layout, CUTOFF_FRACTION, PRINT_PRECISION, 0, &dg);
    append_positional(out, &dg, sign_of(v, f->plus), TRIM_ZEROS, -1, f->pad_left, f->pad_right);
  }
}

/* The shown values of one part, widened. Transfer full. */
static double *
shown_values(const TrTensor *t, const int64_t *pos, size_t n, bool imag)
{
  double *vals = g_new(double, MAX(n, 1));
  for (size_t i = 0; i < n; i++)
    vals[i] = read_float_part(t, pos[i], imag);
  return vals;
}

static void
float_prepare(ElemFormat *f, const TrTensor *t, const int64_t *pos, size_t n)
{
  g_autofree double *vals = shown_values(t, pos, n, false);
  float_prepare_values(&f->real, vals, n, layout_of(t->dtype));
}

static void
float_format(const ElemFormat *f, const TrTensor *t, int64_t pos, GString *out)
{
  float_format_value(&f->real, read_float(t, pos), layout_of(t->dtype), out);
}

static char *
float_scalar(const TrTensor *t, int64_t pos)
{
  double v = read_float(t, pos);
  if (!isfinite(v))
    return g_strdup(nonfinite_text(v));
  GString *out = g_string_new(NULL);
  append_scalar_float(out, v, layout_of(t->dtype), TRIM_ONE_ZERO, false);
  return g_string_free(out, FALSE);
}

/* Complex numbers: real and imaginary parts in columns of their own, the imaginary part always
 * signed and followed by "j" before its padding (NumPy's ComplexFloatingFormat). */
static void
complex_prepare(ElemFormat *f, const TrTensor *t, const int64_t *pos, size_t n)
{
  const FloatLayout *layout = layout_of(t->dtype);
  g_autofree double *re = shown_values(t, pos, n, false);
  g_autofree double *im = shown_values(t, pos, n, true);
  f->imag.plus = true;
  float_prepare_values(&f->real, re, n, layout);
  float_prepare_values(&f->imag, im, n, layout);
}

static void
complex_format(const ElemFormat *f, const TrTensor *t, int64_t pos, GString *out)
{
  const FloatLayout *layout = layout_of(t->dtype);
  float_format_value(&f->real, read_float_part(t, pos, false), layout, out);
  g_autoptr(GString) im = g_string_new(NULL);
  float_format_value(&f->imag, read_float_part(t, pos, true), layout, im);
  gsize end = im->len;
  while (end > 0 && im->str[end - 1] == ' ')
    end--;
  g_string_insert_c(im, (gssize)end, 'j');
  g_string_append_len(out, im->str, (gssize)im->len);
}

/* The scalar: "(1+2j)", or "2j" when the real part is +0; parts as Python writes floats but
 * without a trailing ".0". */
static char *
complex_scalar(const TrTensor *t, int64_t pos)
{
  const FloatLayout *layout = layout_of(t->dtype);
  double re = read_float_part(t, pos, false), im = read_float_part(t, pos, true);
  GString *out = g_string_new(NULL);
  bool bare = re == 0 && !signbit(re);
  if (!bare) {
    g_string_append_c(out, '(');
    if (isfinite(re))
      append_scalar_float(out, re, layout, TRIM_POINT, false);
    else
      g_string_append(out, nonfinite_text(re));
  }
  if (isfinite(im))
    append_scalar_float(out, im, layout, TRIM_POINT, !bare);
  else
    g_string_append_printf(out, "%s%s", !bare && !(isinf(im) && im < 0) ? "+" : "",
                           nonfinite_text(im));
  g_string_append(out, bare ? "j" : "j)");
  return g_string_free(out, FALSE);
}

/* An integer element's decimal text. */
static int
int_text(const TrTensor *t, int64_t pos, char *buf, size_t size)
{
  const void *data = t->buf->data;
  switch (t->dtype) {
    case TR_UINT64:
      return g_snprintf(buf, size, "%" PRIu64, ((const uint64_t *)data)[pos]);
    case TR_INT32:
      return g_snprintf(buf, size, "%" PRId32, ((const int32_t *)data)[pos]);
    case TR_INT8:
      return g_snprintf(buf, size, "%d", ((const int8_t *)data)[pos]);
    case TR_INT16:
      return g_snprintf(buf, size, "%d", ((const int16_t *)data)[pos]);
    case TR_UINT8:
      return g_snprintf(buf, size, "%u", ((const uint8_t *)data)[pos]);
    case TR_UINT16:
      return g_snprintf(buf, size, "%u", ((const uint16_t *)data)[pos]);
    case TR_UINT32:
      return g_snprintf(buf, size, "%" PRIu32, ((const uint32_t *)data)[pos]);
    default:
      return g_snprintf(buf, size, "%" PRId64, ((const int64_t *)data)[pos]);
  }
}

static void
int_prepare(ElemFormat *f, const TrTensor *t, const int64_t *pos, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    char buf[32];
    f->int_width = MAX(f->int_width, int_text(t, pos[i], buf, sizeof buf));
  }
}

static void
int_format(const ElemFormat *f, const TrTensor *t, int64_t pos, GString *out)
{
  char buf[32];
  int len = int_text(t, pos, buf, sizeof buf);
  append_spaces(out, f->int_width - len);
  g_string_append(out, buf);
}

static char *
int_scalar(const TrTensor *t, int64_t pos)
{
  char buf[32];
  int_text(t, pos, buf, sizeof buf);
  return g_strdup(buf);
}

static bool
read_bool(const TrTensor *t, int64_t pos)
{
  return ((const bool *)t->buf->data)[pos];
}

/* Bools and strings need no shared format. */
static void
no_prepare(ElemFormat *f, const TrTensor *t, const int64_t *pos, size_t n)
{
  (void)f, (void)t, (void)pos, (void)n;
}

/* In arrays " True" lines up with "False". */
static void
bool_format(const ElemFormat *f, const TrTensor *t, int64_t pos, GString *out)
{
  (void)f;
  g_string_append(out, read_bool(t, pos) ? " True" : "False");
}

static char *
bool_scalar(const TrTensor *t, int64_t pos)
{
  return g_strdup(read_bool(t, pos) ? "True" : "False");
}

/* Python's repr of bytes: b'..' unless only a single quote occurs inside, then b"..". */
static void
append_bytes_repr(GString *out, const TrString *s)
{
  bool single = memchr(s->data, '\'', s->len) != NULL;
  bool dbl = memchr(s->data, '"', s->len) != NULL;
  char quote = single && !dbl ? '"' : '\'';
  g_string_append_c(out, 'b');
  g_string_append_c(out, quote);
  for (size_t i = 0; i < s->len; i++) {
    unsigned char c = (unsigned char)s->data[i];
    if (c == quote || c == '\\')
      g_string_append_printf(out, "\\%c", c);
    else if (c == '\t')
      g_string_append(out, "\\t");
    else if (c == '\n')
      g_string_append(out, "\\n");
    else if (c == '\r')
      g_string_append(out, "\\r");
    else if (c < 0x20 || c >= 0x7f)
      g_string_append_printf(out, "\\x%02x", c);
    else
      g_string_append_c(out, (char)c);
  }
  g_string_append_c(out, quote);
}

static const TrString *
read_string(const TrTensor *t, int64_t pos)
{
  return &((const TrString *)t->buf->data)[pos];
}

/* Object arrays print each element's repr, unpadded. */
static void
string_format(const ElemFormat *f, const TrTensor *t, int64_t pos, GString *out)
{
  (void)f;
  append_bytes_repr(out, read_string(t, pos));
}

static char *
string_scalar(const TrTensor *t, int64_t pos)
{
  GString *out = g_string_new(NULL);
  append_bytes_repr(out, read_string(t, pos));
  return g_string_free(out, FALSE);
}

/* How each dtype prints. */
typedef struct {
  /* Fill the shared format from the shown elements (buffer positions). */
  void (*prepare)(ElemFormat *f, const TrTensor *t, const int64_t *pos, size_t n);
  /* Append one element of an array. */
  void (*format)(const ElemFormat *f, const TrTensor *t, int64_t pos, GString *out);
  /* The NumPy scalar's str and repr (they agree for every dtype here). Transfer full. */
  char *(*scalar)(const TrTensor *t, int64_t pos);
  /* Whether repr omits ", dtype=..." for nonempty arrays (NumPy's default int, float, bool). */
  bool dtype_implied;
} ElemKind;

static const ElemKind elem_kinds[] = {
    [TR_FLOAT32] = {float_prepare, float_format, float_scalar, false},
    [TR_FLOAT64] = {float_prepare, float_format, float_scalar, true},
    [TR_INT32] = {int_prepare, int_format, int_scalar, false},
    [TR_INT64] = {int_prepare, int_format, int_scalar, true},
    [TR_BOOL] = {no_prepare, bool_format, bool_scalar, true},
    [TR_STRING] = {no_prepare, string_format, string_scalar, false},
    [TR_FLOAT16] = {float_prepare, float_format, float_scalar, false},
    [TR_BFLOAT16] = {float_prepare, float_format, float_scalar, false},
    [TR_INT8] = {int_prepare, int_format, int_scalar, false},
    [TR_INT16] = {int_prepare, int_format, int_scalar, false},
    [TR_UINT8] = {int_prepare, int_format, int_scalar, false},
    [TR_UINT16] = {int_prepare, int_format, int_scalar, false},
    [TR_UINT32] = {int_prepare, int_format, int_scalar, false},
    [TR_UINT64] = {int_prepare, int_format, int_scalar, false},
    [TR_COMPLEX64] = {complex_prepare, complex_format, complex_scalar, false},
    [TR_COMPLEX128] = {complex_prepare, complex_format, complex_scalar, true},
};
G_STATIC_ASSERT(G_N_ELEMENTS(elem_kinds) == TR_N_DTYPES);

/* ---- layout ------------------------------------------------------------------------------ */

static bool
axis_is_cut(const TrShape *shape, bool summarise, int axis)
{
  return summarise && shape->dims[axis] > 2 * PRINT_EDGE_ITEMS;
}

/* Buffer positions of the shown elements, in print order. */
static void
gather_shown(const TrTensor *t, bool summarise, int axis, int64_t pos, GArray *out)
{
  if (axis == t->shape.rank) {
    g_array_append_val(out, pos);
    return;
  }
  int64_t n = t->shape.dims[axis];
  bool cut = axis_is_cut(&t->shape, summarise, axis);
  for (int64_t i = 0; i < n; i++) {
    if (cut && i == PRINT_EDGE_ITEMS)
      i = n - PRINT_EDGE_ITEMS;
    gather_shown(t, summarise, axis + 1, pos + i * t->strides[axis], out);
  }
}

/* The state of laying words out in brackets. */
typedef struct {
  const TrShape *shape; /* the array's shape */
  bool summarise;       /* long axes show only their edges */
  const char *sep;      /* between elements: " " (str) or ", " (repr) */
  GPtrArray *words;     /* formatted shown elements, in print order */
  guint next;           /* the next word to place */
  GString *out;         /* text so far */
} Layout;

/* Put `word` on the current line of a row, or on a fresh line indented by `indent` when it would
 * pass `width` (never when the line holds nothing but the indent). */
static void
layout_word(Layout *l, const char *word, int indent, int width, int *line)
{
  int len = (int)strlen(word);
  if (*line + len > width && *line > indent) {
    while (l->out->len > 0 && l->out->str[l->out->len - 1] == ' ')
      g_string_truncate(l->out, l->out->len - 1);
    g_string_append_c(l->out, '\n');
    append_spaces(l->out, indent);
    *line = indent;
  }
  g_string_append(l->out, word);
  *line += len;
}

static void
layout_row(Layout *l, int axis, int indent, int width)
{
  int64_t n = l->shape->dims[axis];
  bool cut = axis_is_cut(l->shape, l->summarise, axis);
  int sep_len = (int)strlen(l->sep);
  int line = indent;
  for (int64_t i = 0; i < n; i++) {
    if (cut && i == PRINT_EDGE_ITEMS) {
      layout_word(l, "...", indent, width - 1, &line);
      g_string_append(l->out, l->sep);
      line += sep_len;
      i = n - PRINT_EDGE_ITEMS;
    }
    layout_word(l, g_ptr_array_index(l->words, l->next++), indent, width - 1, &line);
    if (i < n - 1) {
      g_string_append(l->out, l->sep);
      line += sep_len;
    }
  }
}

/* Append the bracketed block of `axis`. The current line already holds `indent` - 1 columns;
 * continuation lines are indented by `indent`, and rows end before column `width`. */
static void
layout_block(Layout *l, int axis, int indent, int width)
{
  g_string_append_c(l->out, '[');
  int axes_left = l->shape->rank - axis;
  if (axes_left == 1) {
    layout_row(l, axis, indent, width);
    g_string_append_c(l->out, ']');
    return;
  }
  /* Blocks of rank r are separated by r - 1 newlines, after the separator's comma if any. */
  g_autoptr(GString) line_sep = g_string_new(l->sep);
  while (line_sep->len > 0 && line_sep->str[line_sep->len - 1] == ' ')
    g_string_truncate(line_sep, line_sep->len - 1);
  for (int i = 1; i < axes_left; i++)
    g_string_append_c(line_sep, '\n');

  int64_t n = l->shape->dims[axis];
  bool cut = axis_is_cut(l->shape, l->summarise, axis);
  for (int64_t i = 0; i < n; i++) {
    if (i > 0)
      append_spaces(l->out, indent);
    if (cut && i == PRINT_EDGE_ITEMS) {
      g_string_append(l->out, "...");
      g_string_append(l->out, line_sep->str);
      append_spaces(l->out, indent);
      i = n - PRINT_EDGE_ITEMS;
    }
    layout_block(l, axis + 1, indent + 1, width - 1);
    if (i < n - 1)
      g_string_append(l->out, line_sep->str);
  }
  g_string_append_c(l->out, ']');
}

/* The bracketed text of a nonempty array of rank >= 1 (NumPy's array2string), appended to `out`
 * whose last line holds `indent` - 1 columns. */
static void
append_array(GString *out, const TrTensor *t, const char *sep, int indent, int width)
{
  bool summarise = tr_tensor_num_elements(t) > PRINT_THRESHOLD;
  g_autoptr(GArray) shown = g_array_new(FALSE, FALSE, sizeof(int64_t));
  gather_shown(t, summarise, 0, t->offset, shown);

  const ElemKind *kind = &elem_kinds[t->dtype];
  ElemFormat format = {0};
  kind->prepare(&format, t, (const int64_t *)shown->data, shown->len);

  g_autoptr(GPtrArray) words = g_ptr_array_new_full(shown->len, g_free);
  g_autoptr(GString) word = g_string_new(NULL);
  for (guint i = 0; i < shown->len; i++) {
    g_string_truncate(word, 0);
    kind->format(&format, t, g_array_index(shown, int64_t, i), word);
    g_ptr_array_add(words, g_strndup(word->str, word->len));
  }

  Layout layout = {&t->shape, summarise, sep, words, 0, out};
  layout_block(&layout, 0, indent, width);
  g_assert(layout.next == words->len);
}

/* ---- public API -------------------------------------------------------------------------- */

char *
tr_tensor_numpy_str(const TrTensor *t)
{
  g_return_val_if_fail(t != NULL, NULL);
  if (t->shape.rank == 0)
    return elem_kinds[t->dtype].scalar(t, t->offset);
  if (tr_tensor_num_elements(t) == 0)
    return g_strdup("[]");
  GString *out = g_string_new(NULL);
  append_array(out, t, " ", 1, PRINT_LINE_WIDTH);
  return g_string_free(out, FALSE);
}

char *
tr_tensor_numpy_repr(const TrTensor *t)
{
  g_return_val_if_fail(t != NULL, NULL);
  if (t->shape.rank == 0)
    return elem_kinds[t->dtype].scalar(t, t->offset);

  static const char prefix[] = "array(";
  int64_t n = tr_tensor_num_elements(t);
  bool show_dtype = !elem_kinds[t->dtype].dtype_implied || n == 0;
  GString *out = g_string_new(prefix);
  if (n > 0) {
    /* The closing ")" or "," counts against the line width. */
    append_array(out, t, ", ", (int)strlen(prefix) + 1, PRINT_LINE_WIDTH - 1);
  } else if (t->shape.rank == 1) {
    g_string_append(out, "[]");
  } else {
    g_autofree char *shape = tr_shape_to_string(&t->shape);
    g_string_append_printf(out, "[], shape=%s", shape);
  }
  if (!show_dtype) {
    g_string_append_c(out, ')');
    return g_string_free(out, FALSE);
  }

  /* ", dtype=...)" moves to its own line when it would pass the line width. */
  g_autofree char *dtype = g_strdup_printf("dtype=%s)", tr_dtype_np_name(t->dtype));
  g_string_append_c(out, ',');
  const char *last_nl = strrchr(out->str, '\n');
  size_t last_line = out->len - (last_nl ? (size_t)(last_nl - out->str) + 1 : 0);
  if (last_line + strlen(dtype) + 1 > PRINT_LINE_WIDTH) {
    g_string_append_c(out, '\n');
    append_spaces(out, (int)strlen(prefix));
  } else {
    g_string_append_c(out, ' ');
  }
  g_string_append(out, dtype);
  return g_string_free(out, FALSE);
}

/* TensorFlow starts multi-line NumPy text on a line of its own. */
static const char *
numpy_text_break(const char *text)
{
  return strchr(text, '\n') ? "\n" : "";
}

char *
tr_tensor_to_string(const TrTensor *t)
{
  g_return_val_if_fail(t != NULL, NULL);
  g_autofree char *text = tr_tensor_numpy_str(t);
  g_autofree char *shape = tr_shape_to_string(&t->shape);
  return g_strdup_printf("tf.Tensor(%s%s, shape=%s, dtype=%s)", numpy_text_break(text), text, shape,
                         tr_dtype_name(t->dtype));
}

char *
tr_tensor_repr(const TrTensor *t)
{
  g_return_val_if_fail(t != NULL, NULL);
  g_autofree char *text = tr_tensor_numpy_repr(t);
  g_autofree char *shape = tr_shape_to_string(&t->shape);
  return g_strdup_printf("<tf.Tensor: shape=%s, dtype=%s, numpy=%s%s>", shape,
                         tr_dtype_name(t->dtype), numpy_text_break(text), text);
}
