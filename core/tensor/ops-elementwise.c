/* ops-elementwise.c — elementwise ops: arithmetic, comparisons, logic, math functions, casts,
 * where and clip_by_value, all with NumPy broadcasting.
 *
 * Every kernel is a row function applied along the innermost dimension of a broadcast walk:
 * out[i] = f(in0[i * s0], in1[i * s1], ...). Row functions are instantiated by macros, one per
 * (op, dtype), with separate loops for the strides that matter (1: contiguous, 0: a broadcast
 * scalar); those loops run in fixed-size blocks so that gcc -O2 vectorises them. A kernel first
 * tries the flat case (every input contiguous and full-size, or a single element: one call of
 * the row function) and otherwise folds the broadcast geometry into as few dimensions as it
 * can and walks the outer ones.
 *
 * Dtype rules are TensorFlow's: inputs must have the same dtype, each op accepts the dtypes its
 * OpDef lists, and errors quote TensorFlow's text. The allowed lists below are copied from
 * TensorFlow's op registrations for that reason, which is why they name dtypes Trellis does
 * not have. Whether Trellis runs an op on a dtype is decided by the row table alone; the lists
 * only choose between the two errors TensorFlow gives when it cannot.
 */
#include "tr-tensor-private.h"

#include <complex.h>
#include <float.h>
#include <math.h>
#include <string.h>

/* ---- row functions ------------------------------------------------------------------------ */

/* One row of an elementwise kernel: n elements; operand k starts at p[k] and advances s[k]
 * elements per step. Operand 0 is the output (contiguous, s[0] == 1), never aliasing an input.
 * Returns false when an element hits a runtime error (integer division by zero...). */
typedef bool (*RowFunc)(char *const *p, const int64_t *s, int64_t n);

/* Output plus at most three inputs (SelectV2, ClipByValue). */
#define MAX_OPERANDS 4

/* Elements of a flat run between two polls of the cancel flag: about a millisecond of work. */
#define CANCEL_CHUNK ((int64_t)1 << 20)

/* How applying a row function to a whole tensor ended. */
typedef enum {
  ROWS_DONE,
  ROWS_FAILED,    /* a row function returned false */
  ROWS_CANCELLED, /* an interrupt stopped it (tr_cancel_requested) */
} RowsResult;

/* Loops over blocks of ROW_BLOCK elements have a trip count gcc -O2 accepts to vectorise; the
 * pragma tells it the operands do not overlap. */
#define ROW_BLOCK 16
#if defined(__GNUC__) && !defined(__clang__)
#define IVDEP _Pragma("GCC ivdep")
#else
#define IVDEP
#endif

/* Run the statements for every i in [0, n): in blocks, then the tail. */
#define FOR_BLOCKED(i, n, ...)                                                                     \
  do {                                                                                             \
    int64_t i##_0 = 0;                                                                             \
    for (; i##_0 + ROW_BLOCK <= (n); i##_0 += ROW_BLOCK)                                           \
      IVDEP for (int i##_l = 0; i##_l < ROW_BLOCK; i##_l++)                                        \
      {                                                                                            \
        int64_t i = i##_0 + i##_l;                                                                 \
        __VA_ARGS__;                                                                               \
      }                                                                                            \
    for (int64_t i = i##_0; i < (n); i++) {                                                        \
      __VA_ARGS__;                                                                                 \
    }                                                                                              \
  } while (0)

/* out = f(x, y, &bad): contiguous, scalar-x, scalar-y and strided loops. */
#define BINARY_ROW(name, TI, TO, f)                                                                \
  static bool name(char *const *p, const int64_t *s, int64_t n)                                    \
  {                                                                                                \
    TO *o = (TO *)p[0];                                                                            \
    const TI *x = (const TI *)p[1], *y = (const TI *)p[2];                                         \
    const int64_t sx = s[1], sy = s[2];                                                            \
    bool bad = false;                                                                              \
    if (sx == 1 && sy == 1)                                                                        \
      FOR_BLOCKED(i, n, o[i] = f(x[i], y[i], &bad));                                               \
    else if (sx == 1 && sy == 0)                                                                   \
      FOR_BLOCKED(i, n, o[i] = f(x[i], y[0], &bad));                                               \
    else if (sx == 0 && sy == 1)                                                                   \
      FOR_BLOCKED(i, n, o[i] = f(x[0], y[i], &bad));                                               \
    else                                                                                           \
      for (int64_t i = 0; i < n; i++)                                                              \
        o[i] = f(x[i * sx], y[i * sy], &bad);                                                      \
    return !bad;                                                                                   \
  }

/* out = f(x). A unary row only sees stride 0 when it has one element. */
#define UNARY_ROW(name, TI, TO, f)                                                                 \
  static bool name(char *const *p, const int64_t *s, int64_t n)                                    \
  {                                                                                                \
    TO *o = (TO *)p[0];                                                                            \
    const TI *x = (const TI *)p[1];                                                                \
    const int64_t sx = s[1];                                                                       \
    if (sx == 1)                                                                                   \
      FOR_BLOCKED(i, n, o[i] = f(x[i]));                                                           \
    else                                                                                           \
      for (int64_t i = 0; i < n; i++)                                                              \
        o[i] = f(x[i * sx]);                                                                       \
    return true;                                                                                   \
  }

/* out = cond ? x : y, the chosen element passed through copy(). */
#define SELECT_ROW(name, T, copy)                                                                  \
  static bool name(char *const *p, const int64_t *s, int64_t n)                                    \
  {                                                                                                \
    T *o = (T *)p[0];                                                                              \
    const bool *c = (const bool *)p[1];                                                            \
    const T *x = (const T *)p[2], *y = (const T *)p[3];                                            \
    const int64_t sc = s[1], sx = s[2], sy = s[3];                                                 \
    if (sc == 1 && sx == 1 && sy == 1)                                                             \
      FOR_BLOCKED(i, n, T a = x[i]; T b = y[i]; o[i] = copy(c[i] ? a : b));                        \
    else                                                                                           \
      for (int64_t i = 0; i < n; i++)                                                              \
        o[i] = copy(c[i * sc] ? x[i * sx] : y[i * sy]);                                            \
    return true;                                                                                   \
  }

/* out = max(min(x, hi), lo), as tf.clip_by_value computes it; inputs are x, lo, hi. */
#define CLIP_ROW(name, T, SUF)                                                                     \
  static bool name(char *const *p, const int64_t *s, int64_t n)                                    \
  {                                                                                                \
    T *o = (T *)p[0];                                                                              \
    const T *x = (const T *)p[1], *lo = (const T *)p[2], *hi = (const T *)p[3];                    \
    const int64_t sx = s[1], sl = s[2], sh = s[3];                                                 \
    if (sx == 1 && sl == 0 && sh == 0)                                                             \
      FOR_BLOCKED(i, n, o[i] = maximum_##SUF(minimum_##SUF(x[i], hi[0], NULL), lo[0], NULL));      \
    else                                                                                           \
      for (int64_t i = 0; i < n; i++)                                                              \
        o[i] = maximum_##SUF(minimum_##SUF(x[i * sx], hi[i * sh], NULL), lo[i * sl], NULL);        \
    return true;                                                                                   \
  }

/* ---- scalar functions ------------------------------------------------------------------- */

/* Binary functions take `bad` so that those that can fail share one signature; the others
 * ignore it and vectorise. */

/* Floats: FN is the <math.h> suffix (f for float, nothing for double). FloorDiv and FloorMod
 * round towards negative infinity, as Python does; Maximum and Minimum propagate NaN. */
#define FLOAT_FUNCS(SUF, T, FN)                                                                    \
  static inline T add_##SUF(T a, T b, bool *bad)                                                   \
  {                                                                                                \
    return a + b;                                                                                  \
  }                                                                                                \
  static inline T sub_##SUF(T a, T b, bool *bad)                                                   \
  {                                                                                                \
    return a - b;                                                                                  \
  }                                                                                                \
  static inline T mul_##SUF(T a, T b, bool *bad)                                                   \
  {                                                                                                \
    return a * b;                                                                                  \
  }                                                                                                \
  static inline T div_##SUF(T a, T b, bool *bad)                                                   \
  {                                                                                                \
    return a / b;                                                                                  \
  }                                                                                                \
  static inline T floordiv_##SUF(T a, T b, bool *bad)                                              \
  {                                                                                                \
    return floor##FN(a / b);                                                                       \
  }                                                                                                \
  static inline T mod_##SUF(T a, T b, bool *bad)                                                   \
  {                                                                                                \
    T r = fmod##FN(a, b);                                                                          \
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;                                           \
  }                                                                                                \
  static inline T pow_##SUF(T a, T b, bool *bad)                                                   \
  {                                                                                                \
    return pow##FN(a, b);                                                                          \
  }                                                                                                \
  static inline T maximum_##SUF(T a, T b, bool *bad)                                               \
  {                                                                                                \
    T m = a < b ? b : a;                                                                           \
    m = b != b ? b : m;                                                                            \
    return a != a ? a : m;                                                                         \
  }                                                                                                \
  static inline T minimum_##SUF(T a, T b, bool *bad)                                               \
  {                                                                                                \
    T m = b < a ? b : a;                                                                           \
    m = b != b ? b : m;                                                                            \
    return a != a ? a : m;                                                                         \
  }                                                                                                \
  static inline T neg_##SUF(T a)                                                                   \
  {                                                                                                \
    return -a;                                                                                     \
  }                                                                                                \
  static inline T abs_##SUF(T a)                                                                   \
  {                                                                                                \
    return fabs##FN(a);                                                                            \
  }                                                                                                \
  static inline T square_##SUF(T a)                                                                \
  {                                                                                                \
    return a * a;                                                                                  \
  }                                                                                                \
  static inline T sqrt_##SUF(T a)                                                                  \
  {                                                                                                \
    return sqrt##FN(a);                                                                            \
  }                                                                                                \
  static inline T exp_##SUF(T a)                                                                   \
  {                                                                                                \
    return exp##FN(a);                                                                             \
  }                                                                                                \
  static inline T log_##SUF(T a)                                                                   \
  {                                                                                                \
    return log##FN(a);                                                                             \
  }                                                                                                \
  static inline T tanh_##SUF(T a)                                                                  \
  {                                                                                                \
    return tanh##FN(a);                                                                            \
  }                                                                                                \
  static inline T sigmoid_##SUF(T a)                                                               \
  {                                                                                                \
    return 1 / (1 + exp##FN(-a));                                                                  \
  }                                                                                                \
  static inline T sin_##SUF(T a)                                                                   \
  {                                                                                                \
    return sin##FN(a);                                                                             \
  }                                                                                                \
  static inline T cos_##SUF(T a)                                                                   \
  {                                                                                                \
    return cos##FN(a);                                                                             \
  }                                                                                                \
  static inline T relu_##SUF(T a)                                                                  \
  {                                                                                                \
    return a < 0 ? 0 : a;                                                                          \
  }                                                                                                \
  static inline T relu6_##SUF(T a)                                                                 \
  {                                                                                                \
    return a < 0 ? 0 : a > 6 ? 6 : a;                                                              \
  }                                                                                                \
  /* log(1 + e^a) as TensorFlow's softplus computes it: a itself where e^a would swamp the 1,      \
   * e^a where the 1 would swamp it (threshold log(epsilon) + 2). */                               \
  static inline T softplus_##SUF(T a)                                                              \
  {                                                                                                \
    const T threshold = log##FN(sizeof(T) == sizeof(float) ? FLT_EPSILON : DBL_EPSILON) + 2;       \
    if (a > -threshold)                                                                            \
      return a;                                                                                    \
    if (a < threshold)                                                                             \
      return exp##FN(a);                                                                           \
    return log1p##FN(exp##FN(a));                                                                  \
  }

/* Integers wrap on overflow, as TensorFlow's do, by computing in the unsigned type U. Division
 * by zero and negative powers are errors; MIN // -1 wraps to MIN instead of trapping. */
#define INT_FUNCS(SUF, T, U)                                                                       \
  static inline T add_##SUF(T a, T b, bool *bad)                                                   \
  {                                                                                                \
    return (T)((U)a + (U)b);                                                                       \
  }                                                                                                \
  static inline T sub_##SUF(T a, T b, bool *bad)                                                   \
  {                                                                                                \
    return (T)((U)a - (U)b);                                                                       \
  }                                                                                                \
  static inline T mul_##SUF(T a, T b, bool *bad)                                                   \
  {                                                                                                \
    return (T)((U)a * (U)b);                                                                       \
  }                                                                                                \
  static inline T floordiv_##SUF(T a, T b, bool *bad)                                              \
  {                                                                                                \
    if (b == 0) {                                                                                  \
      *bad = true;                                                                                 \
      return 0;                                                                                    \
    }                                                                                              \
    if (b == -1)                                                                                   \
      return (T)(0 - (U)a);                                                                        \
    T q = a / b;                                                                                   \
    return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;                                       \
  }                                                                                                \
  static inline T mod_##SUF(T a, T b, bool *bad)                                                   \
  {                                                                                                \
    if (b == 0) {                                                                                  \
      *bad = true;                                                                                 \
      return 0;                                                                                    \
    }                                                                                              \
    if (b == -1)                                                                                   \
      return 0;                                                                                    \
    T r = a % b;                                                                                   \
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;                                           \
  }                                                                                                \
  static inline T pow_##SUF(T a, T b, bool *bad)                                                   \
  {                                                                                                \
    if (b < 0) {                                                                                   \
      *bad = true;                                                                                 \
      return 0;                                                                                    \
    }                                                                                              \
    U r = 1, base = (U)a;                                                                          \
    for (; b; b >>= 1, base *= base)                                                               \
      if (b & 1)                                                                                   \
        r *= base;                                                                                 \
    return (T)r;                                                                                   \
  }                                                                                                \
  static inline T maximum_##SUF(T a, T b, bool *bad)                                               \
  {                                                                                                \
    return a < b ? b : a;                                                                          \
  }                                                                                                \
  static inline T minimum_##SUF(T a, T b, bool *bad)                                               \
  {                                                                                                \
    return b < a ? b : a;                                                                          \
  }                                                                                                \
  static inline T neg_##SUF(T a)                                                                   \
  {                                                                                                \
    return (T)(0 - (U)a);                                                                          \
  }                                                                                                \
  static inline T abs_##SUF(T a)                                                                   \
  {                                                                                                \
    return a < 0 ? (T)(0 - (U)a) : a;                                                              \
  }                                                                                                \
  static inline T square_##SUF(T a)                                                                \
  {                                                                                                \
    return (T)((U)a * (U)a);                                                                       \
  }                                                                                                \
  static inline T relu_##SUF(T a)                                                                  \
  {                                                                                                \
    return a < 0 ? 0 : a;                                                                          \
  }                                                                                                \
  static inline T relu6_##SUF(T a)                                                                 \
  {                                                                                                \
    return a < 0 ? 0 : a > 6 ? 6 : a;                                                              \
  }

#define COMPARE_FUNCS(SUF, T)                                                                      \
  static inline bool equal_##SUF(T a, T b, bool *bad)                                              \
  {                                                                                                \
    return a == b;                                                                                 \
  }                                                                                                \
  static inline bool not_equal_##SUF(T a, T b, bool *bad)                                          \
  {                                                                                                \
    return a != b;                                                                                 \
  }                                                                                                \
  static inline bool greater_##SUF(T a, T b, bool *bad)                                            \
  {                                                                                                \
    return a > b;                                                                                  \
  }                                                                                                \
  static inline bool greater_equal_##SUF(T a, T b, bool *bad)                                      \
  {                                                                                                \
    return a >= b;                                                                                 \
  }                                                                                                \
  static inline bool less_##SUF(T a, T b, bool *bad)                                               \
  {                                                                                                \
    return a < b;                                                                                  \
  }                                                                                                \
  static inline bool less_equal_##SUF(T a, T b, bool *bad)                                         \
  {                                                                                                \
    return a <= b;                                                                                 \
  }                                                                                                \
  static inline T identity_##SUF(T a)                                                              \
  {                                                                                                \
    return a;                                                                                      \
  }

/* Unsigned integers: as INT_FUNCS, computing in W (at least unsigned int, so that uint8 and
 * uint16 products do not overflow a promoted int). */
#define UINT_FUNCS(SUF, T, W)                                                                      \
  static inline T add_##SUF(T a, T b, bool *bad)                                                   \
  {                                                                                                \
    return (T)((W)a + (W)b);                                                                       \
  }                                                                                                \
  static inline T sub_##SUF(T a, T b, bool *bad)                                                   \
  {                                                                                                \
    return (T)((W)a - (W)b);                                                                       \
  }                                                                                                \
  static inline T mul_##SUF(T a, T b, bool *bad)                                                   \
  {                                                                                                \
    return (T)((W)a * (W)b);                                                                       \
  }                                                                                                \
  static inline T floordiv_##SUF(T a, T b, bool *bad)                                              \
  {                                                                                                \
    if (b == 0) {                                                                                  \
      *bad = true;                                                                                 \
      return 0;                                                                                    \
    }                                                                                              \
    return a / b;                                                                                  \
  }                                                                                                \
  static inline T mod_##SUF(T a, T b, bool *bad)                                                   \
  {                                                                                                \
    if (b == 0) {                                                                                  \
      *bad = true;                                                                                 \
      return 0;                                                                                    \
    }                                                                                              \
    return a % b;                                                                                  \
  }                                                                                                \
  static inline T pow_##SUF(T a, T b, bool *bad)                                                   \
  {                                                                                                \
    W r = 1, base = a;                                                                             \
    for (; b; b >>= 1, base *= base)                                                               \
      if (b & 1)                                                                                   \
        r *= base;                                                                                 \
    return (T)r;                                                                                   \
  }                                                                                                \
  static inline T maximum_##SUF(T a, T b, bool *bad)                                               \
  {                                                                                                \
    return a < b ? b : a;                                                                          \
  }                                                                                                \
  static inline T minimum_##SUF(T a, T b, bool *bad)                                               \
  {                                                                                                \
    return b < a ? b : a;                                                                          \
  }                                                                                                \
  static inline T square_##SUF(T a)                                                                \
  {                                                                                                \
    return (T)((W)a * (W)a);                                                                       \
  }                                                                                                \
  static inline T relu_##SUF(T a)                                                                  \
  {                                                                                                \
    return a;                                                                                      \
  }                                                                                                \
  static inline T relu6_##SUF(T a)                                                                 \
  {                                                                                                \
    return a > 6 ? 6 : a;                                                                          \
  }

/* float16 and bfloat16: the float32 function on the widened values, rounded back. */
#define HALF_UNARY(SUF, T, op)                                                                     \
  static inline T op##_##SUF(T a)                                                                  \
  {                                                                                                \
    return FROM_##SUF(op##_f32(TO_F32_##SUF(a)));                                                  \
  }
#define HALF_BINARY(SUF, T, op)                                                                    \
  static inline T op##_##SUF(T a, T b, bool *bad)                                                  \
  {                                                                                                \
    return FROM_##SUF(op##_f32(TO_F32_##SUF(a), TO_F32_##SUF(b), bad));                            \
  }
#define HALF_COMPARE(SUF, T, op)                                                                   \
  static inline bool op##_##SUF(T a, T b, bool *bad)                                               \
  {                                                                                                \
    return op##_f32(TO_F32_##SUF(a), TO_F32_##SUF(b), bad);                                        \
  }
#define HALF_FUNCS(SUF, T)                                                                         \
  HALF_BINARY(SUF, T, add)                                                                         \
  HALF_BINARY(SUF, T, sub)                                                                         \
  HALF_BINARY(SUF, T, mul)                                                                         \
  HALF_BINARY(SUF, T, div)                                                                         \
  HALF_BINARY(SUF, T, floordiv)                                                                    \
  HALF_BINARY(SUF, T, mod)                                                                         \
  HALF_BINARY(SUF, T, pow)                                                                         \
  HALF_BINARY(SUF, T, maximum)                                                                     \
  HALF_BINARY(SUF, T, minimum)                                                                     \
  HALF_UNARY(SUF, T, neg)                                                                          \
  HALF_UNARY(SUF, T, abs)                                                                          \
  HALF_UNARY(SUF, T, square)                                                                       \
  HALF_UNARY(SUF, T, sqrt)                                                                         \
  HALF_UNARY(SUF, T, exp)                                                                          \
  HALF_UNARY(SUF, T, log)                                                                          \
  HALF_UNARY(SUF, T, tanh)                                                                         \
  HALF_UNARY(SUF, T, sigmoid)                                                                      \
  HALF_UNARY(SUF, T, sin)                                                                          \
  HALF_UNARY(SUF, T, cos)                                                                          \
  HALF_UNARY(SUF, T, relu)                                                                         \
  HALF_UNARY(SUF, T, relu6)                                                                        \
  HALF_UNARY(SUF, T, softplus)                                                                     \
  HALF_COMPARE(SUF, T, equal)                                                                      \
  HALF_COMPARE(SUF, T, not_equal)                                                                  \
  HALF_COMPARE(SUF, T, greater)                                                                    \
  HALF_COMPARE(SUF, T, greater_equal)                                                              \
  HALF_COMPARE(SUF, T, less)                                                                       \
  HALF_COMPARE(SUF, T, less_equal)                                                                 \
  static inline T identity_##SUF(T a)                                                              \
  {                                                                                                \
    return a;                                                                                      \
  }

#define TO_F32_f16(a)  tr_half_to_float(a)
#define FROM_f16(a)    tr_half_from_float(a)
#define TO_F32_bf16(a) tr_bfloat16_to_float(a)
#define FROM_bf16(a)   tr_bfloat16_from_float(a)

/* Complex numbers: C's arithmetic (C99 Annex G division), as std::complex computes. */
#define COMPLEX_FUNCS(SUF, T)                                                                      \
  static inline T add_##SUF(T a, T b, bool *bad)                                                   \
  {                                                                                                \
    return a + b;                                                                                  \
  }                                                                                                \
  static inline T sub_##SUF(T a, T b, bool *bad)                                                   \
  {                                                                                                \
    return a - b;                                                                                  \
  }                                                                                                \
  static inline T mul_##SUF(T a, T b, bool *bad)                                                   \
  {                                                                                                \
    return a * b;                                                                                  \
  }                                                                                                \
  static inline T div_##SUF(T a, T b, bool *bad)                                                   \
  {                                                                                                \
    return a / b;                                                                                  \
  }                                                                                                \
  static inline T neg_##SUF(T a)                                                                   \
  {                                                                                                \
    return -a;                                                                                     \
  }                                                                                                \
  static inline bool equal_##SUF(T a, T b, bool *bad)                                              \
  {                                                                                                \
    return a == b;                                                                                 \
  }                                                                                                \
  static inline bool not_equal_##SUF(T a, T b, bool *bad)                                          \
  {                                                                                                \
    return a != b;                                                                                 \
  }                                                                                                \
  static inline T identity_##SUF(T a)                                                              \
  {                                                                                                \
    return a;                                                                                      \
  }

FLOAT_FUNCS(f32, float, f)
FLOAT_FUNCS(f64, double, )
INT_FUNCS(i32, int32_t, uint32_t)
INT_FUNCS(i64, int64_t, uint64_t)
INT_FUNCS(i8, int8_t, uint32_t)
INT_FUNCS(i16, int16_t, uint32_t)
UINT_FUNCS(u8, uint8_t, uint32_t)
UINT_FUNCS(u16, uint16_t, uint32_t)
UINT_FUNCS(u32, uint32_t, uint32_t)
UINT_FUNCS(u64, uint64_t, uint64_t)
COMPARE_FUNCS(f32, float)
COMPARE_FUNCS(f64, double)
COMPARE_FUNCS(i32, int32_t)
COMPARE_FUNCS(i64, int64_t)
COMPARE_FUNCS(i8, int8_t)
COMPARE_FUNCS(i16, int16_t)
COMPARE_FUNCS(u8, uint8_t)
COMPARE_FUNCS(u16, uint16_t)
COMPARE_FUNCS(u32, uint32_t)
COMPARE_FUNCS(u64, uint64_t)
COMPARE_FUNCS(b, bool)
HALF_FUNCS(f16, TrHalf)
HALF_FUNCS(bf16, TrBFloat16)
COMPLEX_FUNCS(c64, float _Complex)
COMPLEX_FUNCS(c128, double _Complex)

/* |z| of a complex: TensorFlow's ComplexAbs, whose output is the real dtype. */
static inline float
cabs_c64(float _Complex a)
{
  return cabsf(a);
}

static inline double
cabs_c128(double _Complex a)
{
  return cabs(a);
}

/* The parts of a complex number (TensorFlow's Real, Imag, Angle and Conj kernels); Angle is
 * atan2(imag, real). */
static inline float
real_c64(float _Complex a)
{
  return crealf(a);
}

static inline double
real_c128(double _Complex a)
{
  return creal(a);
}

static inline float
imag_c64(float _Complex a)
{
  return cimagf(a);
}

static inline double
imag_c128(double _Complex a)
{
  return cimag(a);
}

static inline float
angle_c64(float _Complex a)
{
  return cargf(a);
}

static inline double
angle_c128(double _Complex a)
{
  return carg(a);
}

static inline float _Complex conj_c64(float _Complex a)
{
  return conjf(a);
}

static inline double _Complex conj_c128(double _Complex a)
{
  return conj(a);
}

/* Complex(real, imag): CMPLX keeps a signed zero or an infinity in either part, as
 * std::complex's constructor does. */
static inline float _Complex complex_f32(float re, float im, bool *bad)
{
  (void)bad;
  return CMPLXF(re, im);
}

static inline double _Complex complex_f64(double re, double im, bool *bad)
{
  (void)bad;
  return CMPLX(re, im);
}

static inline bool
logical_and_b(bool a, bool b, bool *bad)
{
  return a && b;
}

static inline bool
logical_or_b(bool a, bool b, bool *bad)
{
  return a || b;
}

static inline bool
logical_not_b(bool a)
{
  return !a;
}

/* Strings: output elements start empty, so these return fresh copies the output then owns. */
static inline TrString
identity_s(TrString a)
{
  TrString r = {g_malloc(a.len + 1), a.len};
  if (a.len)
    memcpy(r.data, a.data, a.len);
  r.data[a.len] = '\0';
  return r;
}

static inline TrString
add_s(TrString a, TrString b, bool *bad)
{
  TrString r = {g_malloc(a.len + b.len + 1), a.len + b.len};
  if (a.len)
    memcpy(r.data, a.data, a.len);
  if (b.len)
    memcpy(r.data + a.len, b.data, b.len);
  r.data[r.len] = '\0';
  return r;
}

static inline bool
equal_s(TrString a, TrString b, bool *bad)
{
  return a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0);
}

static inline bool
not_equal_s(TrString a, TrString b, bool *bad)
{
  return !equal_s(a, b, bad);
}

/* Casts follow C's conversions, as TensorFlow's do (a complex loses its imaginary part, a float
 * is truncated towards zero, integers wrap), except where C leaves a float out of an integer's
 * range undefined: there the result is what x86's conversion instructions give, as on
 * TensorFlow's CPUs — the integer's minimum for int32 and int64 (and NaN), and for the narrower
 * types the low bits of the int32 conversion (uint32: of the int64 one). */
static inline int32_t
float_to_i32(double a)
{
  return (a > -2147483649.0 && a < 2147483648.0) ? (int32_t)a : INT32_MIN;
}

static inline int64_t
float_to_i64(double a)
{
  return (a >= -9223372036854775808.0 && a < 9223372036854775808.0) ? (int64_t)a : INT64_MIN;
}

/* Above INT64_MAX the unsigned conversion; below, the signed one's bits (-1.0 -> 2^64 - 1). */
static inline uint64_t
float_to_u64(double a)
{
  if (a >= 9223372036854775808.0 && a < 18446744073709551616.0)
    return (uint64_t)a;
  return (uint64_t)float_to_i64(a);
}

static inline int32_t
int_to_i32(int64_t a)
{
  return (int32_t)a;
}

static inline int64_t
int_to_i64(int64_t a)
{
  return a;
}

static inline uint64_t
int_to_u64(uint64_t a)
{
  return a;
}

static inline int64_t
complex_to_i64(double _Complex a)
{
  return float_to_i64(creal(a));
}

static inline int32_t
complex_to_i32(double _Complex a)
{
  return float_to_i32(creal(a));
}

static inline uint64_t
complex_to_u64(double _Complex a)
{
  return float_to_u64(creal(a));
}

/* A source element widened so that the conversions below apply: half types become float. */
#define LOAD_f32(a)  (a)
#define LOAD_f64(a)  (a)
#define LOAD_i32(a)  (a)
#define LOAD_i64(a)  (a)
#define LOAD_b(a)    (a)
#define LOAD_f16(a)  tr_half_to_float(a)
#define LOAD_bf16(a) tr_bfloat16_to_float(a)
#define LOAD_i8(a)   (a)
#define LOAD_i16(a)  (a)
#define LOAD_u8(a)   (a)
#define LOAD_u16(a)  (a)
#define LOAD_u32(a)  (a)
#define LOAD_u64(a)  (a)
#define LOAD_c64(a)  (a)
#define LOAD_c128(a) (a)

#define TO_f32(a) ((float)(a))
#define TO_f64(a) ((double)(a))
#define TO_i32(a)                                                                                  \
  _Generic((a), float                                                                              \
           : float_to_i32, double                                                                  \
           : float_to_i32, float _Complex                                                          \
           : complex_to_i32, double _Complex                                                       \
           : complex_to_i32, default                                                               \
           : int_to_i32)(a)
#define TO_i64(a)                                                                                  \
  _Generic((a), float                                                                              \
           : float_to_i64, double                                                                  \
           : float_to_i64, float _Complex                                                          \
           : complex_to_i64, double _Complex                                                       \
           : complex_to_i64, default                                                               \
           : int_to_i64)(a)
#define TO_u64(a)                                                                                  \
  _Generic((a), float                                                                              \
           : float_to_u64, double                                                                  \
           : float_to_u64, float _Complex                                                          \
           : complex_to_u64, double _Complex                                                       \
           : complex_to_u64, default                                                               \
           : int_to_u64)(a)
#define TO_b(a)    ((a) != 0)
#define TO_i8(a)   ((int8_t)TO_i32(a))
#define TO_i16(a)  ((int16_t)TO_i32(a))
#define TO_u8(a)   ((uint8_t)TO_i32(a))
#define TO_u16(a)  ((uint16_t)TO_i32(a))
#define TO_u32(a)  ((uint32_t)TO_i64(a))
#define TO_f16(a)  tr_half_from_float((float)(a))
#define TO_bf16(a) tr_bfloat16_from_float((float)(a))
#define TO_c64(a)  ((float _Complex)(a))
#define TO_c128(a) ((double _Complex)(a))

/* ---- row instances ---------------------------------------------------------------------- */

#define ARITH_ROWS(SUF, T)                                                                         \
  BINARY_ROW(row_add_##SUF, T, T, add_##SUF)                                                       \
  BINARY_ROW(row_sub_##SUF, T, T, sub_##SUF)                                                       \
  BINARY_ROW(row_mul_##SUF, T, T, mul_##SUF)                                                       \
  BINARY_ROW(row_floordiv_##SUF, T, T, floordiv_##SUF)                                             \
  BINARY_ROW(row_mod_##SUF, T, T, mod_##SUF)                                                       \
  BINARY_ROW(row_pow_##SUF, T, T, pow_##SUF)                                                       \
  BINARY_ROW(row_maximum_##SUF, T, T, maximum_##SUF)                                               \
  BINARY_ROW(row_minimum_##SUF, T, T, minimum_##SUF)                                               \
  UNARY_ROW(row_neg_##SUF, T, T, neg_##SUF)                                                        \
  UNARY_ROW(row_abs_##SUF, T, T, abs_##SUF)                                                        \
  UNARY_ROW(row_square_##SUF, T, T, square_##SUF)                                                  \
  UNARY_ROW(row_relu_##SUF, T, T, relu_##SUF)                                                      \
  UNARY_ROW(row_relu6_##SUF, T, T, relu6_##SUF)                                                    \
  CLIP_ROW(row_clip_##SUF, T, SUF)

#define FLOAT_ROWS(SUF, T)                                                                         \
  BINARY_ROW(row_div_##SUF, T, T, div_##SUF)                                                       \
  UNARY_ROW(row_sqrt_##SUF, T, T, sqrt_##SUF)                                                      \
  UNARY_ROW(row_exp_##SUF, T, T, exp_##SUF)                                                        \
  UNARY_ROW(row_log_##SUF, T, T, log_##SUF)                                                        \
  UNARY_ROW(row_tanh_##SUF, T, T, tanh_##SUF)                                                      \
  UNARY_ROW(row_sigmoid_##SUF, T, T, sigmoid_##SUF)                                                \
  UNARY_ROW(row_softplus_##SUF, T, T, softplus_##SUF)                                              \
  UNARY_ROW(row_sin_##SUF, T, T, sin_##SUF)                                                        \
  UNARY_ROW(row_cos_##SUF, T, T, cos_##SUF)

#define ORDER_ROWS(SUF, T)                                                                         \
  BINARY_ROW(row_greater_##SUF, T, bool, greater_##SUF)                                            \
  BINARY_ROW(row_greater_equal_##SUF, T, bool, greater_equal_##SUF)                                \
  BINARY_ROW(row_less_##SUF, T, bool, less_##SUF)                                                  \
  BINARY_ROW(row_less_equal_##SUF, T, bool, less_equal_##SUF)

/* Equality, identity and select exist for every dtype. */
#define ANY_ROWS(SUF, T)                                                                           \
  BINARY_ROW(row_equal_##SUF, T, bool, equal_##SUF)                                                \
  BINARY_ROW(row_not_equal_##SUF, T, bool, not_equal_##SUF)                                        \
  UNARY_ROW(row_identity_##SUF, T, T, identity_##SUF)                                              \
  SELECT_ROW(row_select_##SUF, T, identity_##SUF)

/* Casts from one numeric or bool dtype to each of the others. */
#define CAST_ROW(SUF, T, DSUF, DT)                                                                 \
  static inline DT cast_##SUF##_##DSUF(T a)                                                        \
  {                                                                                                \
    return TO_##DSUF(LOAD_##SUF(a));                                                               \
  }                                                                                                \
  UNARY_ROW(row_cast_##SUF##_##DSUF, T, DT, cast_##SUF##_##DSUF)
#define CAST_ROWS(SUF, T)                                                                          \
  CAST_ROW(SUF, T, f32, float)                                                                     \
  CAST_ROW(SUF, T, f64, double)                                                                    \
  CAST_ROW(SUF, T, i32, int32_t)                                                                   \
  CAST_ROW(SUF, T, i64, int64_t)                                                                   \
  CAST_ROW(SUF, T, b, bool)                                                                        \
  CAST_ROW(SUF, T, f16, TrHalf)                                                                    \
  CAST_ROW(SUF, T, bf16, TrBFloat16)                                                               \
  CAST_ROW(SUF, T, i8, int8_t)                                                                     \
  CAST_ROW(SUF, T, i16, int16_t)                                                                   \
  CAST_ROW(SUF, T, u8, uint8_t)                                                                    \
  CAST_ROW(SUF, T, u16, uint16_t)                                                                  \
  CAST_ROW(SUF, T, u32, uint32_t)                                                                  \
  CAST_ROW(SUF, T, u64, uint64_t)                                                                  \
  CAST_ROW(SUF, T, c64, float _Complex)                                                            \
  CAST_ROW(SUF, T, c128, double _Complex)

/* Arithmetic without Neg and Abs, which unsigned types lack. */
#define UARITH_ROWS(SUF, T)                                                                        \
  BINARY_ROW(row_add_##SUF, T, T, add_##SUF)                                                       \
  BINARY_ROW(row_sub_##SUF, T, T, sub_##SUF)                                                       \
  BINARY_ROW(row_mul_##SUF, T, T, mul_##SUF)                                                       \
  BINARY_ROW(row_floordiv_##SUF, T, T, floordiv_##SUF)                                             \
  BINARY_ROW(row_mod_##SUF, T, T, mod_##SUF)                                                       \
  BINARY_ROW(row_pow_##SUF, T, T, pow_##SUF)                                                       \
  BINARY_ROW(row_maximum_##SUF, T, T, maximum_##SUF)                                               \
  BINARY_ROW(row_minimum_##SUF, T, T, minimum_##SUF)                                               \
  UNARY_ROW(row_square_##SUF, T, T, square_##SUF)                                                  \
  UNARY_ROW(row_relu_##SUF, T, T, relu_##SUF)                                                      \
  UNARY_ROW(row_relu6_##SUF, T, T, relu6_##SUF)                                                    \
  CLIP_ROW(row_clip_##SUF, T, SUF)

ARITH_ROWS(f32, float)
ARITH_ROWS(f64, double)
ARITH_ROWS(i32, int32_t)
ARITH_ROWS(i64, int64_t)
ARITH_ROWS(i8, int8_t)
ARITH_ROWS(i16, int16_t)
ARITH_ROWS(f16, TrHalf)
ARITH_ROWS(bf16, TrBFloat16)
UARITH_ROWS(u8, uint8_t)
UARITH_ROWS(u16, uint16_t)
UARITH_ROWS(u32, uint32_t)
UARITH_ROWS(u64, uint64_t)
FLOAT_ROWS(f32, float)
FLOAT_ROWS(f64, double)
FLOAT_ROWS(f16, TrHalf)
FLOAT_ROWS(bf16, TrBFloat16)
ORDER_ROWS(f32, float)
ORDER_ROWS(f64, double)
ORDER_ROWS(i32, int32_t)
ORDER_ROWS(i64, int64_t)
ORDER_ROWS(i8, int8_t)
ORDER_ROWS(i16, int16_t)
ORDER_ROWS(u8, uint8_t)
ORDER_ROWS(u16, uint16_t)
ORDER_ROWS(u32, uint32_t)
ORDER_ROWS(u64, uint64_t)
ORDER_ROWS(f16, TrHalf)
ORDER_ROWS(bf16, TrBFloat16)
ANY_ROWS(f32, float)
ANY_ROWS(f64, double)
ANY_ROWS(i32, int32_t)
ANY_ROWS(i64, int64_t)
ANY_ROWS(b, bool)
ANY_ROWS(s, TrString)
ANY_ROWS(i8, int8_t)
ANY_ROWS(i16, int16_t)
ANY_ROWS(u8, uint8_t)
ANY_ROWS(u16, uint16_t)
ANY_ROWS(u32, uint32_t)
ANY_ROWS(u64, uint64_t)
ANY_ROWS(f16, TrHalf)
ANY_ROWS(bf16, TrBFloat16)
ANY_ROWS(c64, float _Complex)
ANY_ROWS(c128, double _Complex)
CAST_ROWS(f32, float)
CAST_ROWS(f64, double)
CAST_ROWS(i32, int32_t)
CAST_ROWS(i64, int64_t)
CAST_ROWS(b, bool)
CAST_ROWS(f16, TrHalf)
CAST_ROWS(bf16, TrBFloat16)
CAST_ROWS(i8, int8_t)
CAST_ROWS(i16, int16_t)
CAST_ROWS(u8, uint8_t)
CAST_ROWS(u16, uint16_t)
CAST_ROWS(u32, uint32_t)
CAST_ROWS(u64, uint64_t)
CAST_ROWS(c64, float _Complex)
CAST_ROWS(c128, double _Complex)
BINARY_ROW(row_add_s, TrString, TrString, add_s)
BINARY_ROW(row_logical_and_b, bool, bool, logical_and_b)
BINARY_ROW(row_logical_or_b, bool, bool, logical_or_b)
UNARY_ROW(row_logical_not_b, bool, bool, logical_not_b)
BINARY_ROW(row_add_c64, float _Complex, float _Complex, add_c64)
BINARY_ROW(row_add_c128, double _Complex, double _Complex, add_c128)
BINARY_ROW(row_sub_c64, float _Complex, float _Complex, sub_c64)
BINARY_ROW(row_sub_c128, double _Complex, double _Complex, sub_c128)
BINARY_ROW(row_mul_c64, float _Complex, float _Complex, mul_c64)
BINARY_ROW(row_mul_c128, double _Complex, double _Complex, mul_c128)
BINARY_ROW(row_div_c64, float _Complex, float _Complex, div_c64)
BINARY_ROW(row_div_c128, double _Complex, double _Complex, div_c128)
UNARY_ROW(row_neg_c64, float _Complex, float _Complex, neg_c64)
UNARY_ROW(row_neg_c128, double _Complex, double _Complex, neg_c128)
UNARY_ROW(row_abs_c64, float _Complex, float, cabs_c64)
UNARY_ROW(row_abs_c128, double _Complex, double, cabs_c128)
UNARY_ROW(row_real_c64, float _Complex, float, real_c64)
UNARY_ROW(row_real_c128, double _Complex, double, real_c128)
UNARY_ROW(row_imag_c64, float _Complex, float, imag_c64)
UNARY_ROW(row_imag_c128, double _Complex, double, imag_c128)
UNARY_ROW(row_angle_c64, float _Complex, float, angle_c64)
UNARY_ROW(row_angle_c128, double _Complex, double, angle_c128)
UNARY_ROW(row_conj_c64, float _Complex, float _Complex, conj_c64)
UNARY_ROW(row_conj_c128, double _Complex, double _Complex, conj_c128)
BINARY_ROW(row_complex_f32, float, float _Complex, complex_f32)
BINARY_ROW(row_complex_f64, double, double _Complex, complex_f64)

/* Designated initialisers for a row table: [dtype] = row_<op>_<suffix>. */
#define ROWS_FLOAT(op)                                                                             \
  [TR_FLOAT32] = row_##op##_f32, [TR_FLOAT64] = row_##op##_f64, [TR_FLOAT16] = row_##op##_f16,     \
  [TR_BFLOAT16] = row_##op##_bf16
#define ROWS_SINT(op)                                                                              \
  [TR_INT32] = row_##op##_i32, [TR_INT64] = row_##op##_i64, [TR_INT8] = row_##op##_i8,             \
  [TR_INT16] = row_##op##_i16
#define ROWS_UINT(op)                                                                              \
  [TR_UINT8] = row_##op##_u8, [TR_UINT16] = row_##op##_u16, [TR_UINT32] = row_##op##_u32,          \
  [TR_UINT64] = row_##op##_u64
#define ROWS_COMPLEX(op) [TR_COMPLEX64] = row_##op##_c64, [TR_COMPLEX128] = row_##op##_c128
#define ROWS_INT(op)     ROWS_SINT(op), ROWS_UINT(op)
#define ROWS_NUMERIC(op) ROWS_FLOAT(op), ROWS_INT(op)
#define ROWS_SIGNED(op)  ROWS_FLOAT(op), ROWS_SINT(op)
#define ROWS_ALL(op)                                                                               \
  ROWS_NUMERIC(op), ROWS_COMPLEX(op), [TR_BOOL] = row_##op##_b, [TR_STRING] = row_##op##_s
#define CAST_FROM(SUF)                                                                             \
  {                                                                                                \
    [TR_FLOAT32] = row_cast_##SUF##_f32, [TR_FLOAT64] = row_cast_##SUF##_f64,                      \
    [TR_INT32] = row_cast_##SUF##_i32, [TR_INT64] = row_cast_##SUF##_i64,                          \
    [TR_BOOL] = row_cast_##SUF##_b, [TR_FLOAT16] = row_cast_##SUF##_f16,                           \
    [TR_BFLOAT16] = row_cast_##SUF##_bf16, [TR_INT8] = row_cast_##SUF##_i8,                        \
    [TR_INT16] = row_cast_##SUF##_i16, [TR_UINT8] = row_cast_##SUF##_u8,                           \
    [TR_UINT16] = row_cast_##SUF##_u16, [TR_UINT32] = row_cast_##SUF##_u32,                        \
    [TR_UINT64] = row_cast_##SUF##_u64, [TR_COMPLEX64] = row_cast_##SUF##_c64,                     \
    [TR_COMPLEX128] = row_cast_##SUF##_c128,                                                       \
  }

/* [source][destination]; strings only cast to strings. */
static const RowFunc cast_rows[TR_N_DTYPES][TR_N_DTYPES] = {
    [TR_FLOAT32] = CAST_FROM(f32),   [TR_FLOAT64] = CAST_FROM(f64),
    [TR_INT32] = CAST_FROM(i32),     [TR_INT64] = CAST_FROM(i64),
    [TR_BOOL] = CAST_FROM(b),        [TR_STRING] = {[TR_STRING] = row_identity_s},
    [TR_FLOAT16] = CAST_FROM(f16),   [TR_BFLOAT16] = CAST_FROM(bf16),
    [TR_INT8] = CAST_FROM(i8),       [TR_INT16] = CAST_FROM(i16),
    [TR_UINT8] = CAST_FROM(u8),      [TR_UINT16] = CAST_FROM(u16),
    [TR_UINT32] = CAST_FROM(u32),    [TR_UINT64] = CAST_FROM(u64),
    [TR_COMPLEX64] = CAST_FROM(c64), [TR_COMPLEX128] = CAST_FROM(c128),
};

static const RowFunc select_rows[TR_N_DTYPES] = {ROWS_ALL(select)};
static const RowFunc clip_rows[TR_N_DTYPES] = {ROWS_NUMERIC(clip)};

/* ---- TensorFlow's type constraints, for error messages ---------------------------------- */

#define X_T "; attr=T:type,allowed=[@]"
#define REAL_NUMBER                                                                                \
  "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64"

static const TrTypeRule rule_add_v2 = {
    "T",
    "bfloat16, half, float, double, uint8, uint16, uint32, uint64, int8, int16, int32, int64, "
    "complex64, complex128",
    "signature=x:T, y:T -> z:T" X_T "; is_commutative=true; is_aggregate=true"};
static const TrTypeRule rule_add = {"T",
                                    "bfloat16, half, float, double, uint8, int8, int16, int32, "
                                    "int64, complex64, complex128, string",
                                    "signature=x:T, y:T -> z:T" X_T};
static const TrTypeRule rule_sub = {"T",
                                    "bfloat16, half, float, double, uint8, int8, uint16, int16, "
                                    "int32, int64, complex64, complex128, uint32, uint64",
                                    "signature=x:T, y:T -> z:T" X_T};
#define BINARY_MORE                                                                                \
  "bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, uint64, int64, "      \
  "complex64, complex128"
static const TrTypeRule rule_mul = {"T", BINARY_MORE,
                                    "signature=x:T, y:T -> z:T" X_T "; is_commutative=true"};
static const TrTypeRule rule_binary_more = {"T", BINARY_MORE, "signature=x:T, y:T -> z:T" X_T};
static const TrTypeRule rule_floor_mod = {"T",
                                          "int8, int16, int32, int64, uint8, uint16, uint32, "
                                          "uint64, bfloat16, half, float, double",
                                          "signature=x:T, y:T -> z:T" X_T};
static const TrTypeRule rule_pow = {"T",
                                    "bfloat16, float, half, double, int8, int16, int32, int64, "
                                    "complex64, complex128",
                                    "signature=x:T, y:T -> z:T" X_T};
static const TrTypeRule rule_min_max = {
    "T",
    "bfloat16, half, float, double, int8, uint8, int16, uint16, "
    "int32, uint32, int64, uint64",
    "signature=x:T, y:T -> z:T" X_T};
static const TrTypeRule rule_equality = {
    "T",
    "bfloat16, half, float, double, uint8, int8, int16, int32, int64, uint16, uint32, uint64, "
    "complex64, quint8, qint8, qint32, string, bool, complex128",
    "signature=x:T, y:T -> z:bool" X_T
    "; attr=incompatible_shape_error:bool,default=true; is_commutative=true"};
static const TrTypeRule rule_comparison = {"T", REAL_NUMBER, "signature=x:T, y:T -> z:bool" X_T};
static const TrTypeRule rule_unary = {"T",
                                      "bfloat16, half, float, double, int8, int16, int32, int64, "
                                      "complex64, complex128",
                                      "signature=x:T -> y:T" X_T};
static const TrTypeRule rule_unary_unsigned = {
    "T",
    "bfloat16, half, float, double, int8, int16, int32, int64, uint8, uint16, uint32, uint64, "
    "complex64, complex128",
    "signature=x:T -> y:T" X_T};
static const TrTypeRule rule_unary_complex = {
    "T", "bfloat16, half, float, double, complex64, complex128", "signature=x:T -> y:T" X_T};
static const TrTypeRule rule_abs = {"T", "bfloat16, half, float, double, int8, int16, int32, int64",
                                    "signature=x:T -> y:T" X_T};
static const TrTypeRule rule_relu = {"T", REAL_NUMBER ", qint8",
                                     "signature=features:T -> activations:T" X_T};
static const TrTypeRule rule_relu6 = {"T", REAL_NUMBER,
                                      "signature=features:T -> activations:T" X_T};
static const TrTypeRule rule_softplus = {"T", "half, bfloat16, float, double",
                                         "signature=features:T -> activations:T" X_T};
static const TrTypeRule rule_identity = {"T", NULL, "signature=input:T -> output:T; attr=T:type"};
static const TrTypeRule rule_complex_part = {
    "T", "complex64, complex128",
    "signature=input:T -> output:Tout; attr=T:type,default=DT_COMPLEX64,allowed=[@]; "
    "attr=Tout:type,default=DT_FLOAT,allowed=[DT_FLOAT, DT_DOUBLE]"};
static const TrTypeRule rule_conj = {
    "T", "complex64, complex128, variant",
    "signature=input:T -> output:T; attr=T:type,default=DT_COMPLEX64,allowed=[@]"};
static const TrTypeRule rule_complex = {
    "T", "float, double",
    "signature=real:T, imag:T -> out:Tout; attr=T:type,default=DT_FLOAT,allowed=[@]; "
    "attr=Tout:type,default=DT_COMPLEX64,allowed=[DT_COMPLEX64, DT_COMPLEX128]"};

/* ---- the op table ------------------------------------------------------------------------ */

static const char *const op_types[] = {
#define OP_TYPE(id, tf) [TR_OP_##id] = tf,
    TR_OP_LIST(OP_TYPE)
#undef OP_TYPE
};

/* The unary and binary ops share one infer and one kernel, driven by this table. */
typedef struct {
  const char *name;          /* default node name, as TensorFlow's Python API names it */
  int n_inputs;              /* 1 or 2 */
  unsigned flags;            /* TrOpFlags */
  const TrTypeRule *rule;    /* TensorFlow's constraint on T; NULL: every input is bool */
  bool to_bool;              /* the output is bool (comparisons) */
  const char *runtime_error; /* message when a row function fails */
  RowFunc rows[TR_N_DTYPES]; /* kernel per input dtype; NULL: none */
} EwOp;

#define EW          TR_OP_FLAG_ELEMENTWISE
#define COMM        TR_OP_FLAG_COMMUTATIVE
#define DIV_BY_ZERO "Integer division by zero"
#define NEG_POWER   "Integers to negative integer powers are not allowed"

/* ADD is not marked commutative: on strings it concatenates. */
static const EwOp ew_ops[] = {
    [TR_OP_ADD] = {"add",
                   2,
                   EW,
                   &rule_add_v2,
                   false,
                   NULL,
                   {ROWS_NUMERIC(add), ROWS_COMPLEX(add), [TR_STRING] = row_add_s}},
    [TR_OP_SUB] = {"sub", 2, EW, &rule_sub, false, NULL, {ROWS_NUMERIC(sub), ROWS_COMPLEX(sub)}},
    [TR_OP_MUL] =
        {"mul", 2, EW | COMM, &rule_mul, false, NULL, {ROWS_NUMERIC(mul), ROWS_COMPLEX(mul)}},
    [TR_OP_DIV] =
        {"truediv", 2, EW, &rule_binary_more, false, NULL, {ROWS_FLOAT(div), ROWS_COMPLEX(div)}},
    [TR_OP_FLOORDIV] =
        {"floordiv", 2, EW, &rule_binary_more, false, DIV_BY_ZERO, {ROWS_NUMERIC(floordiv)}},
    [TR_OP_MOD] = {"mod", 2, EW, &rule_floor_mod, false, DIV_BY_ZERO, {ROWS_NUMERIC(mod)}},
    [TR_OP_POW] = {"pow", 2, EW, &rule_pow, false, NEG_POWER, {ROWS_NUMERIC(pow)}},
    [TR_OP_MAXIMUM] = {"Maximum", 2, EW, &rule_min_max, false, NULL, {ROWS_NUMERIC(maximum)}},
    [TR_OP_MINIMUM] = {"Minimum", 2, EW, &rule_min_max, false, NULL, {ROWS_NUMERIC(minimum)}},
    [TR_OP_EQUAL] = {"Equal", 2, EW | COMM, &rule_equality, true, NULL, {ROWS_ALL(equal)}},
    [TR_OP_NOT_EQUAL] =
        {"NotEqual", 2, EW | COMM, &rule_equality, true, NULL, {ROWS_ALL(not_equal)}},
    [TR_OP_GREATER] = {"Greater", 2, EW, &rule_comparison, true, NULL, {ROWS_NUMERIC(greater)}},
    [TR_OP_GREATER_EQUAL] =
        {"GreaterEqual", 2, EW, &rule_comparison, true, NULL, {ROWS_NUMERIC(greater_equal)}},
    [TR_OP_LESS] = {"Less", 2, EW, &rule_comparison, true, NULL, {ROWS_NUMERIC(less)}},
    [TR_OP_LESS_EQUAL] =
        {"LessEqual", 2, EW, &rule_comparison, true, NULL, {ROWS_NUMERIC(less_equal)}},
    [TR_OP_LOGICAL_AND] =
        {"LogicalAnd", 2, EW | COMM, NULL, false, NULL, {[TR_BOOL] = row_logical_and_b}},
    [TR_OP_LOGICAL_OR] =
        {"LogicalOr", 2, EW | COMM, NULL, false, NULL, {[TR_BOOL] = row_logical_or_b}},
    [TR_OP_NEG] = {"Neg", 1, EW, &rule_unary, false, NULL, {ROWS_SIGNED(neg), ROWS_COMPLEX(neg)}},
    [TR_OP_ABS] = {"Abs", 1, EW, &rule_abs, false, NULL, {ROWS_SIGNED(abs), ROWS_COMPLEX(abs)}},
    [TR_OP_SQUARE] = {"Square", 1, EW, &rule_unary_unsigned, false, NULL, {ROWS_NUMERIC(square)}},
    [TR_OP_SQRT] = {"Sqrt", 1, EW, &rule_unary_complex, false, NULL, {ROWS_FLOAT(sqrt)}},
    [TR_OP_EXP] = {"Exp", 1, EW, &rule_unary_complex, false, NULL, {ROWS_FLOAT(exp)}},
    [TR_OP_LOG] = {"Log", 1, EW, &rule_unary_complex, false, NULL, {ROWS_FLOAT(log)}},
    [TR_OP_TANH] = {"Tanh", 1, EW, &rule_unary_complex, false, NULL, {ROWS_FLOAT(tanh)}},
    [TR_OP_SIGMOID] = {"Sigmoid", 1, EW, &rule_unary_complex, false, NULL, {ROWS_FLOAT(sigmoid)}},
    [TR_OP_SIN] = {"Sin", 1, EW, &rule_unary_complex, false, NULL, {ROWS_FLOAT(sin)}},
    [TR_OP_COS] = {"Cos", 1, EW, &rule_unary_complex, false, NULL, {ROWS_FLOAT(cos)}},
    [TR_OP_RELU] = {"Relu", 1, EW, &rule_relu, false, NULL, {ROWS_NUMERIC(relu)}},
    [TR_OP_RELU6] = {"Relu6", 1, EW, &rule_relu6, false, NULL, {ROWS_NUMERIC(relu6)}},
    [TR_OP_SOFTPLUS] = {"Softplus", 1, EW, &rule_softplus, false, NULL, {ROWS_FLOAT(softplus)}},
    [TR_OP_LOGICAL_NOT] = {"LogicalNot", 1, EW, NULL, false, NULL, {[TR_BOOL] = row_logical_not_b}},
    [TR_OP_IDENTITY] = {"Identity", 1, EW, &rule_identity, false, NULL, {ROWS_ALL(identity)}},
    [TR_OP_REAL] = {"Real", 1, EW, &rule_complex_part, false, NULL, {ROWS_COMPLEX(real)}},
    [TR_OP_IMAG] = {"Imag", 1, EW, &rule_complex_part, false, NULL, {ROWS_COMPLEX(imag)}},
    [TR_OP_ANGLE] = {"Angle", 1, EW, &rule_complex_part, false, NULL, {ROWS_COMPLEX(angle)}},
    [TR_OP_CONJ] = {"Conj", 1, EW, &rule_conj, false, NULL, {ROWS_COMPLEX(conj)}},
    [TR_OP_COMPLEX] = {"Complex",
                       2,
                       EW,
                       &rule_complex,
                       false,
                       NULL,
                       {[TR_FLOAT32] = row_complex_f32, [TR_FLOAT64] = row_complex_f64}},
};

/* The op type errors name: string addition is TensorFlow's Add, not AddV2. */
static const char *
ew_type(TrOpId op, TrDType dtype)
{
  return op == TR_OP_ADD && dtype == TR_STRING ? "Add" : op_types[op];
}

static const TrTypeRule *
ew_rule(TrOpId op, TrDType dtype)
{
  return op == TR_OP_ADD && dtype == TR_STRING ? &rule_add : ew_ops[op].rule;
}

/* ---- the broadcast walk ------------------------------------------------------------------- */

static char *
first_element(const TrTensor *t)
{
  char *data = t->buf->data;
  return t->offset ? data + t->offset * (int64_t)tr_dtype_size(t->dtype) : data;
}

/* Element count of a concrete shape; inline, for the short path of small tensors. */
static inline int64_t
count_elements(const TrShape *shape)
{
  int64_t n = 1;
  for (int d = 0; d < shape->rank; d++)
    n *= shape->dims[d];
  return n;
}

/* Fold `out`'s shape into few dimensions: size-1 dimensions go, and a dimension merges into
 * the one before when every operand steps through both as through one. Returns the rank. */
static int
fold_geometry(const TrTensor *out, TrTensor *const *in, int n_in, int64_t *dims,
              int64_t (*st)[TR_MAX_RANK])
{
  int64_t full[MAX_OPERANDS][TR_MAX_RANK];
  tr_shape_contiguous_strides(&out->shape, full[0]);
  for (int k = 0; k < n_in; k++)
    tr_broadcast_strides(in[k], &out->shape, full[k + 1]);

  int rank = 0;
  for (int d = 0; d < out->shape.rank; d++) {
    int64_t len = out->shape.dims[d];
    if (len == 1)
      continue;
    bool merge = rank > 0;
    for (int k = 0; merge && k <= n_in; k++)
      merge = st[k][rank - 1] == full[k][d] * len;
    if (merge)
      dims[rank - 1] *= len;
    else
      dims[rank++] = len;
    for (int k = 0; k <= n_in; k++)
      st[k][rank - 1] = full[k][d];
  }
  return rank;
}

/* Apply `row` along the innermost folded dimension, walking the others; the cancel flag is
 * polled before every row. */
static RowsResult
walk_rows(TrTensor *out, TrTensor *const *in, int n_in, RowFunc row)
{
  int64_t dims[TR_MAX_RANK], st[MAX_OPERANDS][TR_MAX_RANK];
  int rank = fold_geometry(out, in, n_in, dims, st);
  char *base[MAX_OPERANDS], *p[MAX_OPERANDS];
  size_t size[MAX_OPERANDS];
  int64_t s[MAX_OPERANDS] = {0}, pos[MAX_OPERANDS] = {0}, index[TR_MAX_RANK] = {0};

  base[0] = out->buf->data;
  size[0] = tr_dtype_size(out->dtype);
  for (int k = 0; k < n_in; k++) {
    base[k + 1] = first_element(in[k]);
    size[k + 1] = tr_dtype_size(in[k]->dtype);
  }
  if (rank == 0)
    return row(base, s, 1) ? ROWS_DONE : ROWS_FAILED;
  for (int k = 0; k <= n_in; k++)
    s[k] = st[k][rank - 1];

  for (;;) {
    if (tr_cancel_requested())
      return ROWS_CANCELLED;
    for (int k = 0; k <= n_in; k++)
      p[k] = base[k] + pos[k] * (int64_t)size[k];
    if (!row(p, s, dims[rank - 1]))
      return ROWS_FAILED;
    int d = rank - 2;
    for (; d >= 0; d--) {
      for (int k = 0; k <= n_in; k++)
        pos[k] += st[k][d];
      if (++index[d] < dims[d])
        break;
      for (int k = 0; k <= n_in; k++)
        pos[k] -= st[k][d] * dims[d];
      index[d] = 0;
    }
    if (d < 0)
      return ROWS_DONE;
  }
}

/* Fill `out` (contiguous) from `in` broadcast to its shape. The flat case — every input
 * contiguous with out's element count, or a single element — is one run of `row`, called in
 * chunks of CANCEL_CHUNK elements. */
static RowsResult
apply_rows(TrTensor *out, TrTensor *const *in, int n_in, RowFunc row)
{
  int64_t n = count_elements(&out->shape);
  if (n == 0)
    return ROWS_DONE;
  char *p[MAX_OPERANDS];
  int64_t s[MAX_OPERANDS];
  size_t size[MAX_OPERANDS];
  p[0] = out->buf->data;
  s[0] = 1;
  size[0] = tr_dtype_size(out->dtype);
  for (int k = 0; k < n_in; k++) {
    int64_t m = count_elements(&in[k]->shape);
    if (m != 1 && !(m == n && in[k]->contiguous))
      return walk_rows(out, in, n_in, row);
    p[k + 1] = first_element(in[k]);
    s[k + 1] = m == 1 ? 0 : 1;
    size[k + 1] = tr_dtype_size(in[k]->dtype);
  }
  for (int64_t done = 0;;) {
    int64_t chunk = MIN(CANCEL_CHUNK, n - done);
    if (!row(p, s, chunk))
      return ROWS_FAILED;
    if ((done += chunk) == n)
      return ROWS_DONE;
    if (tr_cancel_requested())
      return ROWS_CANCELLED;
    for (int k = 0; k <= n_in; k++)
      p[k] += chunk * s[k] * (int64_t)size[k];
  }
}

/* A kernel's ending from apply_rows(): TR_ERROR_CANCELLED when interrupted, `runtime_error`
 * (NULL for row functions that never fail) when a row failed. */
static bool
rows_finish(RowsResult r, const char *op_type, const char *runtime_error, GError **error)
{
  if (r == ROWS_DONE)
    return true;
  if (r == ROWS_CANCELLED)
    tr_set_cancelled(error, op_type);
  else
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, op_type, "%s",
                    runtime_error ? runtime_error : "the kernel failed");
  return false;
}

/* ---- unary and binary ops ----------------------------------------------------------------- */

static bool
check_dtypes(TrOpId op, const TrTensorInfo *in, int n_in, GError **error)
{
  const EwOp *e = &ew_ops[op];
  TrDType want = e->rule ? in[0].dtype : TR_BOOL;
  for (int k = e->rule ? 1 : 0; k < n_in; k++) {
    if (in[k].dtype != want) {
      tr_set_dtype_mismatch(error, ew_type(op, in[0].dtype), k, want, in[k].dtype);
      return false;
    }
  }
  return true;
}

static bool
check_kernel(TrOpId op, TrDType dtype, GError **error)
{
  const EwOp *e = &ew_ops[op];
  if (e->rows[dtype])
    return true;
  const TrTypeRule *rule = ew_rule(op, dtype);
  if (tr_rule_allows(rule, dtype)) {
    unsigned kernels = 0;
    for (int d = 0; d < TR_N_DTYPES; d++)
      if (e->rows[d])
        kernels |= TR_DTYPE_BIT(d);
    tr_set_no_kernel_error(error, ew_type(op, dtype), kernels, dtype);
  } else
    tr_set_attr_error(error, ew_type(op, dtype), rule, dtype);
  return false;
}

static bool
ew_infer(TrOpId op, const TrTensorInfo *in, int n_in, TrDType *dtype, TrShape *shape,
         GError **error)
{
  const EwOp *e = &ew_ops[op];
  TrDType t = in[0].dtype;
  if (!check_dtypes(op, in, n_in, error) || !check_kernel(op, t, error))
    return false;
  if (n_in == 1)
    *shape = in[0].shape;
  else if (!tr_broadcast_shapes(&in[0].shape, &in[1].shape, shape, ew_type(op, t), error))
    return false;
  /* tf.abs of a complex is ComplexAbs, whose output is real, as are Real's, Imag's and
   * Angle's; Complex makes the complex dtype of its parts */
  if (e->to_bool)
    *dtype = TR_BOOL;
  else if (op == TR_OP_ABS || op == TR_OP_REAL || op == TR_OP_IMAG || op == TR_OP_ANGLE)
    *dtype = tr_dtype_real(t);
  else if (op == TR_OP_COMPLEX)
    *dtype = t == TR_FLOAT64 ? TR_COMPLEX128 : TR_COMPLEX64;
  else
    *dtype = t;
  return true;
}

static bool
ew_kernel(TrOpId op, TrTensor *const *in, int n_in, TrTensor *out, GError **error)
{
  const EwOp *e = &ew_ops[op];
  RowFunc row = e->rows[in[0]->dtype];
  g_return_val_if_fail(row != NULL, false);
  return rows_finish(apply_rows(out, in, n_in, row), ew_type(op, in[0]->dtype), e->runtime_error,
                     error);
}

/* One infer and one kernel function per table op, since those callbacks get no op id. */
#define EW_TABLE_OPS(X)                                                                            \
  X(ADD)                                                                                           \
  X(SUB)                                                                                           \
  X(MUL)                                                                                           \
  X(DIV)                                                                                           \
  X(FLOORDIV)                                                                                      \
  X(MOD)                                                                                           \
  X(POW)                                                                                           \
  X(MAXIMUM)                                                                                       \
  X(MINIMUM)                                                                                       \
  X(EQUAL)                                                                                         \
  X(NOT_EQUAL)                                                                                     \
  X(GREATER)                                                                                       \
  X(GREATER_EQUAL)                                                                                 \
  X(LESS)                                                                                          \
  X(LESS_EQUAL)                                                                                    \
  X(LOGICAL_AND)                                                                                   \
  X(LOGICAL_OR)                                                                                    \
  X(NEG)                                                                                           \
  X(ABS)                                                                                           \
  X(SQUARE)                                                                                        \
  X(SQRT)                                                                                          \
  X(EXP)                                                                                           \
  X(LOG)                                                                                           \
  X(TANH)                                                                                          \
  X(SIGMOID)                                                                                       \
  X(SIN)                                                                                           \
  X(COS)                                                                                           \
  X(RELU)                                                                                          \
  X(RELU6)                                                                                         \
  X(SOFTPLUS)                                                                                      \
  X(LOGICAL_NOT)                                                                                   \
  X(IDENTITY)                                                                                      \
  X(REAL)                                                                                          \
  X(IMAG)                                                                                          \
  X(ANGLE)                                                                                         \
  X(CONJ)                                                                                          \
  X(COMPLEX)

#define EW_CALLBACKS(ID)                                                                           \
  static bool infer_##ID(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,   \
                         TrShape *shape, GError **error)                                           \
  {                                                                                                \
    return ew_infer(TR_OP_##ID, in, n_in, dtype, shape, error);                                    \
  }                                                                                                \
  static bool kernel_##ID(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out,      \
                          GError **error)                                                          \
  {                                                                                                \
    return ew_kernel(TR_OP_##ID, in, n_in, out, error);                                            \
  }
EW_TABLE_OPS(EW_CALLBACKS)
#undef EW_CALLBACKS

/* ---- Cast --------------------------------------------------------------------------------- */

static bool
cast_infer(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype, TrShape *shape,
           GError **error)
{
  TrDType src = in[0].dtype, dst = attrs->dtype;
  if (dst < 0 || dst >= TR_N_DTYPES) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, "Cast",
                    "NodeDef missing attr 'DstT' from Op<name=Cast; signature=x:SrcT -> y:DstT; "
                    "attr=SrcT:type; attr=DstT:type; attr=Truncate:bool,default=false>");
    return false;
  }
  if (!cast_rows[src][dst]) {
    tr_set_op_error(error, TR_ERROR_UNIMPLEMENTED, "Cast", "Cast %s to %s is not supported",
                    tr_dtype_tf_name(src), tr_dtype_tf_name(dst));
    return false;
  }
  *dtype = dst;
  *shape = in[0].shape;
  return true;
}

static bool
cast_kernel(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  RowFunc row = cast_rows[in[0]->dtype][out->dtype];
  g_return_val_if_fail(row != NULL, false);
  return rows_finish(apply_rows(out, in, 1, row), "Cast", NULL, error);
}

/* ---- SelectV2 ----------------------------------------------------------------------------- */

static bool
select_infer(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype, TrShape *shape,
             GError **error)
{
  if (in[0].dtype != TR_BOOL) {
    tr_set_dtype_mismatch(error, "SelectV2", 0, TR_BOOL, in[0].dtype);
    return false;
  }
  if (in[2].dtype != in[1].dtype) {
    tr_set_dtype_mismatch(error, "SelectV2", 2, in[1].dtype, in[2].dtype);
    return false;
  }
  TrShape then_else;
  if (!tr_broadcast_shapes(&in[1].shape, &in[2].shape, &then_else, NULL, NULL) ||
      !tr_broadcast_shapes(&in[0].shape, &then_else, shape, NULL, NULL)) {
    g_autofree char *c = tr_shape_to_error_string(&in[0].shape);
    g_autofree char *t = tr_shape_to_error_string(&in[1].shape);
    g_autofree char *e = tr_shape_to_error_string(&in[2].shape);
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, "SelectV2",
                    "condition %s, then %s, and else %s must be broadcastable", c, t, e);
    return false;
  }
  *dtype = in[1].dtype;
  return true;
}

static bool
select_kernel(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  return rows_finish(apply_rows(out, in, 3, select_rows[out->dtype]), "SelectV2", NULL, error);
}

/* ---- clip_by_value ------------------------------------------------------------------------ */

/* TensorShape.is_compatible_with: same rank (or one unknown) and dims equal where both known. */
static bool
shapes_compatible(const TrShape *a, const TrShape *b)
{
  if (a->rank == TR_UNKNOWN || b->rank == TR_UNKNOWN)
    return true;
  if (a->rank != b->rank)
    return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != TR_UNKNOWN && b->dims[i] != TR_UNKNOWN && a->dims[i] != b->dims[i])
      return false;
  return true;
}

/* tf.clip_by_value refuses bounds that would broadcast `t` to a bigger shape (a ValueError). */
static bool
check_clip_shape(const TrShape *t, const TrShape *result, GError **error)
{
  if (shapes_compatible(t, result))
    return true;
  g_autofree char *a = tr_shape_to_string(t);
  g_autofree char *b = tr_shape_to_string(result);
  tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, NULL, "Shapes %s and %s are incompatible", a,
                  b);
  return false;
}

/* tf.clip_by_value(t, lo, hi) is maximum(minimum(t, hi), lo): its errors are Minimum's, then
 * Maximum's. Inputs are t, lo, hi. */
static bool
clip_infer(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype, TrShape *shape,
           GError **error)
{
  TrDType t = in[0].dtype;
  TrShape lower;
  if (in[2].dtype != t) {
    tr_set_dtype_mismatch(error, "Minimum", 1, t, in[2].dtype);
    return false;
  }
  if (!clip_rows[t]) {
    tr_set_attr_error(error, "Minimum", &rule_min_max, t);
    return false;
  }
  if (!tr_broadcast_shapes(&in[0].shape, &in[2].shape, &lower, "Minimum", error) ||
      !check_clip_shape(&in[0].shape, &lower, error))
    return false;
  if (in[1].dtype != t) {
    tr_set_dtype_mismatch(error, "Maximum", 1, t, in[1].dtype);
    return false;
  }
  if (!tr_broadcast_shapes(&lower, &in[1].shape, shape, "Maximum", error) ||
      !check_clip_shape(&in[0].shape, shape, error))
    return false;
  *dtype = t;
  return true;
}

static bool
clip_kernel(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  return rows_finish(apply_rows(out, in, 3, clip_rows[out->dtype]), "ClipByValue", NULL, error);
}

/* ---- registration ------------------------------------------------------------------------- */

void
tr_ops_register_elementwise(TrOpDef *defs)
{
#define EW_DEF(ID)                                                                                 \
  defs[TR_OP_##ID] = (TrOpDef){                                                                    \
      .name = ew_ops[TR_OP_##ID].name,                                                             \
      .n_inputs = ew_ops[TR_OP_##ID].n_inputs,                                                     \
      .flags = ew_ops[TR_OP_##ID].flags,                                                           \
      .infer = infer_##ID,                                                                         \
      .kernel = kernel_##ID,                                                                       \
  };
  EW_TABLE_OPS(EW_DEF)
#undef EW_DEF
  defs[TR_OP_CAST] = (TrOpDef){
      .name = "Cast", .n_inputs = 1, .flags = EW, .infer = cast_infer, .kernel = cast_kernel};
  defs[TR_OP_SELECT] = (TrOpDef){.name = "SelectV2",
                                 .n_inputs = 3,
                                 .flags = EW,
                                 .infer = select_infer,
                                 .kernel = select_kernel};
  defs[TR_OP_CLIP_BY_VALUE] = (TrOpDef){.name = "clip_by_value",
                                        .n_inputs = 3,
                                        .flags = EW,
                                        .infer = clip_infer,
                                        .kernel = clip_kernel};
}

/* ---- convenience wrappers ----------------------------------------------------------------- */

TrTensor *
tr_cast(TrTensor *x, TrDType dtype, GError **error)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.dtype = dtype;
  return tr_op_run(TR_OP_CAST, &x, 1, &attrs, error);
}

TrTensor *
tr_truediv(TrTensor *a, TrTensor *b, GError **error)
{
  if (a->dtype != b->dtype || !tr_dtype_is_int(a->dtype))
    return tr_binary(TR_OP_DIV, a, b, error);
  /* TensorFlow's _TRUEDIV_TABLE: 8- and 16-bit integers divide as float32, wider as float64 */
  TrDType to = tr_dtype_size(a->dtype) <= 2 ? TR_FLOAT32 : TR_FLOAT64;
  g_autoptr(TrTensor) fa = tr_cast(a, to, error);
  g_autoptr(TrTensor) fb = fa ? tr_cast(b, to, error) : NULL;
  if (!fb)
    return NULL;
  return tr_binary(TR_OP_DIV, fa, fb, error);
}

TrTensor *
tr_where(TrTensor *cond, TrTensor *x, TrTensor *y, GError **error)
{
  TrTensor *in[3] = {cond, x, y};
  return tr_op_run(TR_OP_SELECT, in, 3, NULL, error);
}

TrTensor *
tr_clip_by_value(TrTensor *x, TrTensor *lo, TrTensor *hi, GError **error)
{
  TrTensor *in[3] = {x, lo, hi};
  return tr_op_run(TR_OP_CLIP_BY_VALUE, in, 3, NULL, error);
}
