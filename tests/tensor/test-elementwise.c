/* test-elementwise.c — elementwise ops: values per dtype, broadcasting, strided inputs, partial
 * shape inference and TensorFlow's error messages. Expected values are hand-computed or what
 * NumPy 1.24 prints for the same inputs. */
#include "test-util.h"

#include <math.h>

/* ---- helpers ------------------------------------------------------------------------------ */

/* Run the binary op and compare its output with `vals` (check_binary: within `tol` for floats). */
#define assert_binary(op, a, b, dtype, dims, vals)                                                 \
  check_binary(__FILE__, __LINE__, (op), (a), (b), (dtype), dims, (vals), 0)
static void
check_binary(const char *file, int line, TrOpId op, TrTensor *a, TrTensor *b, TrDType dtype,
             int rank, const int64_t *dims, const double *want, double tol)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) out = tr_binary(op, a, b, &error);
  g_assert_no_error(error);
  tt_check_tensor(file, line, out, dtype, rank, dims, want, tol);
}

#define NAN_ NAN
#define INF  INFINITY

/* TensorFlow's allowed lists as its errors spell them. */
#define ADDV2_T                                                                                    \
  "bfloat16, half, float, double, uint8, uint16, uint32, uint64, int8, int16, int32, int64, "      \
  "complex64, complex128"
#define ADDV2_DT                                                                                   \
  "DT_BFLOAT16, DT_HALF, DT_FLOAT, DT_DOUBLE, DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64, "         \
  "DT_INT8, DT_INT16, DT_INT32, DT_INT64, DT_COMPLEX64, DT_COMPLEX128"
#define SUB_T                                                                                      \
  "bfloat16, half, float, double, uint8, int8, uint16, int16, int32, int64, complex64, "           \
  "complex128, uint32, uint64"
#define SUB_DT                                                                                     \
  "DT_BFLOAT16, DT_HALF, DT_FLOAT, DT_DOUBLE, DT_UINT8, DT_INT8, DT_UINT16, DT_INT16, DT_INT32, "  \
  "DT_INT64, DT_COMPLEX64, DT_COMPLEX128, DT_UINT32, DT_UINT64"
#define MORE_T                                                                                     \
  "bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, uint64, int64, "      \
  "complex64, complex128"
#define MORE_DT                                                                                    \
  "DT_BFLOAT16, DT_HALF, DT_FLOAT, DT_DOUBLE, DT_UINT8, DT_INT8, DT_UINT16, DT_INT16, DT_INT32, "  \
  "DT_UINT32, DT_UINT64, DT_INT64, DT_COMPLEX64, DT_COMPLEX128"
#define FLOORMOD_T                                                                                 \
  "int8, int16, int32, int64, uint8, uint16, uint32, uint64, bfloat16, half, float, double"
#define FLOORMOD_DT                                                                                \
  "DT_INT8, DT_INT16, DT_INT32, DT_INT64, DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64, "             \
  "DT_BFLOAT16, DT_HALF, DT_FLOAT, DT_DOUBLE"
#define POW_T "bfloat16, float, half, double, int8, int16, int32, int64, complex64, complex128"
#define POW_DT                                                                                     \
  "DT_BFLOAT16, DT_FLOAT, DT_HALF, DT_DOUBLE, DT_INT8, DT_INT16, DT_INT32, DT_INT64, "             \
  "DT_COMPLEX64, DT_COMPLEX128"
#define MINMAX_T                                                                                   \
  "bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, int64, uint64"
#define MINMAX_DT                                                                                  \
  "DT_BFLOAT16, DT_HALF, DT_FLOAT, DT_DOUBLE, DT_INT8, DT_UINT8, DT_INT16, DT_UINT16, DT_INT32, "  \
  "DT_UINT32, DT_INT64, DT_UINT64"
#define REAL_T                                                                                     \
  "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64"
#define REAL_DT                                                                                    \
  "DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, DT_INT8, DT_INT64, DT_BFLOAT16, DT_UINT16, " \
  "DT_HALF, DT_UINT32, DT_UINT64"
#define UNARY_T "bfloat16, half, float, double, int8, int16, int32, int64, complex64, complex128"
#define UNARY_DT                                                                                   \
  "DT_BFLOAT16, DT_HALF, DT_FLOAT, DT_DOUBLE, DT_INT8, DT_INT16, DT_INT32, DT_INT64, "             \
  "DT_COMPLEX64, DT_COMPLEX128"
#define UNSIGNED_T                                                                                 \
  "bfloat16, half, float, double, int8, int16, int32, int64, uint8, uint16, uint32, uint64, "      \
  "complex64, complex128"
#define UNSIGNED_DT                                                                                \
  "DT_BFLOAT16, DT_HALF, DT_FLOAT, DT_DOUBLE, DT_INT8, DT_INT16, DT_INT32, DT_INT64, DT_UINT8, "   \
  "DT_UINT16, DT_UINT32, DT_UINT64, DT_COMPLEX64, DT_COMPLEX128"
#define COMPLEX_T  "bfloat16, half, float, double, complex64, complex128"
#define COMPLEX_DT "DT_BFLOAT16, DT_HALF, DT_FLOAT, DT_DOUBLE, DT_COMPLEX64, DT_COMPLEX128"
#define ABS_T      "bfloat16, half, float, double, int8, int16, int32, int64"
#define ABS_DT     "DT_BFLOAT16, DT_HALF, DT_FLOAT, DT_DOUBLE, DT_INT8, DT_INT16, DT_INT32, DT_INT64"

/* "Value for attr 'T' of <got> ..." for an op whose summary is `sig` + T's list + `tail`. */
#define ATTR_ERROR(got, type, list, sig, dts, tail)                                                \
  "Value for attr 'T' of " got " is not in the list of allowed values: " list                      \
  "\n\t; NodeDef: {{node " type "}}; Op<name=" type "; signature=" sig                             \
  "; attr=T:type,allowed=[" dts "]" tail "> [Op:" type "]"
#define BINARY_SIG "x:T, y:T -> z:T"
#define UNARY_SIG  "x:T -> y:T"

/* ---- the op table ------------------------------------------------------------------------- */

static void
test_defs(void)
{
  static const struct {
    TrOpId op;
    const char *name;
    int n_inputs;
    unsigned flags;
  } want[] = {
      {TR_OP_ADD, "add", 2, TR_OP_FLAG_ELEMENTWISE},
      {TR_OP_SUB, "sub", 2, TR_OP_FLAG_ELEMENTWISE},
      {TR_OP_MUL, "mul", 2, TR_OP_FLAG_ELEMENTWISE | TR_OP_FLAG_COMMUTATIVE},
      {TR_OP_DIV, "truediv", 2, TR_OP_FLAG_ELEMENTWISE},
      {TR_OP_FLOORDIV, "floordiv", 2, TR_OP_FLAG_ELEMENTWISE},
      {TR_OP_MOD, "mod", 2, TR_OP_FLAG_ELEMENTWISE},
      {TR_OP_POW, "pow", 2, TR_OP_FLAG_ELEMENTWISE},
      {TR_OP_MAXIMUM, "Maximum", 2, TR_OP_FLAG_ELEMENTWISE},
      {TR_OP_MINIMUM, "Minimum", 2, TR_OP_FLAG_ELEMENTWISE},
      {TR_OP_EQUAL, "Equal", 2, TR_OP_FLAG_ELEMENTWISE | TR_OP_FLAG_COMMUTATIVE},
      {TR_OP_NOT_EQUAL, "NotEqual", 2, TR_OP_FLAG_ELEMENTWISE | TR_OP_FLAG_COMMUTATIVE},
      {TR_OP_GREATER, "Greater", 2, TR_OP_FLAG_ELEMENTWISE},
      {TR_OP_GREATER_EQUAL, "GreaterEqual", 2, TR_OP_FLAG_ELEMENTWISE},
      {TR_OP_LESS, "Less", 2, TR_OP_FLAG_ELEMENTWISE},
      {TR_OP_LESS_EQUAL, "LessEqual", 2, TR_OP_FLAG_ELEMENTWISE},
      {TR_OP_LOGICAL_AND, "LogicalAnd", 2, TR_OP_FLAG_ELEMENTWISE | TR_OP_FLAG_COMMUTATIVE},
      {TR_OP_LOGICAL_OR, "LogicalOr", 2, TR_OP_FLAG_ELEMENTWISE | TR_OP_FLAG_COMMUTATIVE},
      {TR_OP_NEG, "Neg", 1, TR_OP_FLAG_ELEMENTWISE},
      {TR_OP_ABS, "Abs", 1, TR_OP_FLAG_ELEMENTWISE},
      {TR_OP_SQUARE, "Square", 1, TR_OP_FLAG_ELEMENTWISE},
      {TR_OP_SQRT, "Sqrt", 1, TR_OP_FLAG_ELEMENTWISE},
      {TR_OP_EXP, "Exp", 1, TR_OP_FLAG_ELEMENTWISE},
      {TR_OP_LOG, "Log", 1, TR_OP_FLAG_ELEMENTWISE},
      {TR_OP_TANH, "Tanh", 1, TR_OP_FLAG_ELEMENTWISE},
      {TR_OP_SIGMOID, "Sigmoid", 1, TR_OP_FLAG_ELEMENTWISE},
      {TR_OP_SIN, "Sin", 1, TR_OP_FLAG_ELEMENTWISE},
      {TR_OP_COS, "Cos", 1, TR_OP_FLAG_ELEMENTWISE},
      {TR_OP_RELU, "Relu", 1, TR_OP_FLAG_ELEMENTWISE},
      {TR_OP_LOGICAL_NOT, "LogicalNot", 1, TR_OP_FLAG_ELEMENTWISE},
      {TR_OP_IDENTITY, "Identity", 1, TR_OP_FLAG_ELEMENTWISE},
      {TR_OP_CAST, "Cast", 1, TR_OP_FLAG_ELEMENTWISE},
      {TR_OP_SELECT, "SelectV2", 3, TR_OP_FLAG_ELEMENTWISE},
      {TR_OP_CLIP_BY_VALUE, "clip_by_value", 3, TR_OP_FLAG_ELEMENTWISE},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(want); i++) {
    const TrOpDef *def = tt_assert_op_def(want[i].op, want[i].name, want[i].n_inputs);
    g_assert_null(def->view);
    g_assert_cmpuint(def->flags, ==, want[i].flags);
  }
}

/* ---- values, one case per op and dtype ---------------------------------------------------- */

typedef struct {
  const char *path;
  TrOpId op;
  TrDType dtype; /* of the inputs */
  TrDType out;   /* of the output */
  int n;         /* elements per operand, a vector */
  double a[8];
  double b[8];
  double want[8];
  double tol;
} ValueCase;

#define F32  TR_FLOAT32
#define F64  TR_FLOAT64
#define I32  TR_INT32
#define I64  TR_INT64
#define BOOL TR_BOOL

/* clang-format off */
static const ValueCase binary_cases[] = {
    {"/tensor/elementwise/add/float32", TR_OP_ADD, F32, F32, 4, {1.5, -2, 0, 1e30}, {2.25, 2, -0.0, 1e30}, {3.75, 0, 0, 2e30}, 1e-7},
    {"/tensor/elementwise/add/float64", TR_OP_ADD, F64, F64, 3, {0.1, -2, 1e300}, {0.2, 2.5, 1e300}, {0.1 + 0.2, 0.5, 2e300}, 0},
    {"/tensor/elementwise/add/int32", TR_OP_ADD, I32, I32, 3, {1, -7, MAX32}, {2, 3, 1}, {3, -4, MIN32}, 0},
    {"/tensor/elementwise/add/int64", TR_OP_ADD, I64, I64, 3, {1, -7, 5e15}, {2, 3, 5e15}, {3, -4, 1e16}, 0},
    {"/tensor/elementwise/sub/float32", TR_OP_SUB, F32, F32, 3, {1.5, -2, 0}, {2.25, 2, 0}, {-0.75, -4, 0}, 0},
    {"/tensor/elementwise/sub/float64", TR_OP_SUB, F64, F64, 2, {0.3, -2}, {0.1, 2.5}, {0.3 - 0.1, -4.5}, 0},
    {"/tensor/elementwise/sub/int32-wraps", TR_OP_SUB, I32, I32, 3, {1, MIN32, 0}, {2, 1, -5}, {-1, MAX32, 5}, 0},
    {"/tensor/elementwise/sub/int64", TR_OP_SUB, I64, I64, 2, {1, -7}, {2, 3}, {-1, -10}, 0},
    {"/tensor/elementwise/mul/float32", TR_OP_MUL, F32, F32, 3, {1.5, -2, 3}, {2, 2.5, 0}, {3, -5, 0}, 0},
    {"/tensor/elementwise/mul/float64", TR_OP_MUL, F64, F64, 2, {0.1, -2}, {3, 2.5}, {0.1 * 3, -5}, 0},
    {"/tensor/elementwise/mul/int32-wraps", TR_OP_MUL, I32, I32, 3, {6, -7, 65536}, {7, 3, 65536}, {42, -21, 0}, 0},
    {"/tensor/elementwise/mul/int64", TR_OP_MUL, I64, I64, 2, {6, -7e9}, {7, 3}, {42, -21e9}, 0},
    {"/tensor/elementwise/div/float32", TR_OP_DIV, F32, F32, 4, {1, -3, 1, 0}, {4, 2, 0, 0}, {0.25, -1.5, INF, NAN_}, 0},
    {"/tensor/elementwise/div/float64", TR_OP_DIV, F64, F64, 3, {1, -1, 1}, {3, 0, -4}, {1.0 / 3, -INF, -0.25}, 0},
    {"/tensor/elementwise/floordiv/float32", TR_OP_FLOORDIV, F32, F32, 5, {5.5, -5.5, 5.5, -5.5, 1}, {2, 2, -2, -2, 0}, {2, -3, -3, 2, INF}, 0},
    {"/tensor/elementwise/floordiv/float64", TR_OP_FLOORDIV, F64, F64, 4, {5.5, -5.5, 5.5, -5.5}, {2, 2, -2, -2}, {2, -3, -3, 2}, 0},
    {"/tensor/elementwise/floordiv/negative-int", TR_OP_FLOORDIV, I32, I32, 6, {7, -7, 7, -7, 0, MIN32}, {3, 3, -3, -3, 5, -1}, {2, -3, -3, 2, 0, MIN32}, 0},
    {"/tensor/elementwise/floordiv/int64", TR_OP_FLOORDIV, I64, I64, 4, {7, -7, 7, -7}, {3, 3, -3, -3}, {2, -3, -3, 2}, 0},
    {"/tensor/elementwise/floormod/float32", TR_OP_MOD, F32, F32, 5, {5.5, -5.5, 5.5, -5.5, 1}, {2, 2, -2, -2, 0}, {1.5, 0.5, -0.5, -1.5, NAN_}, 0},
    {"/tensor/elementwise/floormod/float64", TR_OP_MOD, F64, F64, 4, {5.5, -5.5, 5.5, -5.5}, {2, 2, -2, -2}, {1.5, 0.5, -0.5, -1.5}, 0},
    {"/tensor/elementwise/floormod/negative-int", TR_OP_MOD, I32, I32, 6, {7, -7, 7, -7, 0, MIN32}, {3, 3, -3, -3, 5, -1}, {1, 2, -2, -1, 0, 0}, 0},
    {"/tensor/elementwise/floormod/int64", TR_OP_MOD, I64, I64, 4, {7, -7, 7, -7}, {3, 3, -3, -3}, {1, 2, -2, -1}, 0},
    {"/tensor/elementwise/pow/float32", TR_OP_POW, F32, F32, 4, {2, -2, 0.5, 4}, {3, 2, -1, 0.5}, {8, 4, 2, 2}, 0},
    {"/tensor/elementwise/pow/float64", TR_OP_POW, F64, F64, 3, {2, -8, 0}, {-2, 3, 0}, {0.25, -512, 1}, 0},
    {"/tensor/elementwise/pow/int32", TR_OP_POW, I32, I32, 5, {2, -3, 7, 0, 2}, {10, 3, 0, 0, 32}, {1024, -27, 1, 1, 0}, 0},
    {"/tensor/elementwise/pow/int64", TR_OP_POW, I64, I64, 2, {2, -1}, {40, 7}, {1099511627776.0, -1}, 0},
    {"/tensor/elementwise/maximum/float32", TR_OP_MAXIMUM, F32, F32, 4, {1, -2, NAN_, 3}, {2, -3, 1, NAN_}, {2, -2, NAN_, NAN_}, 0},
    {"/tensor/elementwise/maximum/float64", TR_OP_MAXIMUM, F64, F64, 2, {1, -INF}, {2, -3}, {2, -3}, 0},
    {"/tensor/elementwise/maximum/int32", TR_OP_MAXIMUM, I32, I32, 3, {1, -2, MIN32}, {2, -3, 0}, {2, -2, 0}, 0},
    {"/tensor/elementwise/maximum/int64", TR_OP_MAXIMUM, I64, I64, 2, {1, -2}, {2, -3}, {2, -2}, 0},
    {"/tensor/elementwise/minimum/float32", TR_OP_MINIMUM, F32, F32, 4, {1, -2, NAN_, 3}, {2, -3, 1, NAN_}, {1, -3, NAN_, NAN_}, 0},
    {"/tensor/elementwise/minimum/float64", TR_OP_MINIMUM, F64, F64, 2, {1, INF}, {2, -3}, {1, -3}, 0},
    {"/tensor/elementwise/minimum/int32", TR_OP_MINIMUM, I32, I32, 3, {1, -2, MAX32}, {2, -3, 0}, {1, -3, 0}, 0},
    {"/tensor/elementwise/minimum/int64", TR_OP_MINIMUM, I64, I64, 2, {1, -2}, {2, -3}, {1, -3}, 0},
    {"/tensor/elementwise/equal/float32", TR_OP_EQUAL, F32, BOOL, 4, {1, 2, NAN_, -0.0}, {1, 3, NAN_, 0}, {1, 0, 0, 1}, 0},
    {"/tensor/elementwise/equal/float64", TR_OP_EQUAL, F64, BOOL, 2, {1, 2}, {1, 3}, {1, 0}, 0},
    {"/tensor/elementwise/equal/int32", TR_OP_EQUAL, I32, BOOL, 2, {1, 2}, {1, 3}, {1, 0}, 0},
    {"/tensor/elementwise/equal/int64", TR_OP_EQUAL, I64, BOOL, 2, {1, 2}, {1, 3}, {1, 0}, 0},
    {"/tensor/elementwise/equal/bool", TR_OP_EQUAL, BOOL, BOOL, 4, {1, 1, 0, 0}, {1, 0, 1, 0}, {1, 0, 0, 1}, 0},
    {"/tensor/elementwise/not-equal/float32", TR_OP_NOT_EQUAL, F32, BOOL, 3, {1, 2, NAN_}, {1, 3, NAN_}, {0, 1, 1}, 0},
    {"/tensor/elementwise/not-equal/float64", TR_OP_NOT_EQUAL, F64, BOOL, 2, {1, 2}, {1, 3}, {0, 1}, 0},
    {"/tensor/elementwise/not-equal/int32", TR_OP_NOT_EQUAL, I32, BOOL, 2, {1, 2}, {1, 3}, {0, 1}, 0},
    {"/tensor/elementwise/not-equal/int64", TR_OP_NOT_EQUAL, I64, BOOL, 2, {1, 2}, {1, 3}, {0, 1}, 0},
    {"/tensor/elementwise/not-equal/bool", TR_OP_NOT_EQUAL, BOOL, BOOL, 4, {1, 1, 0, 0}, {1, 0, 1, 0}, {0, 1, 1, 0}, 0},
    {"/tensor/elementwise/greater/float32", TR_OP_GREATER, F32, BOOL, 4, {1, 2, 3, NAN_}, {2, 2, 2, 0}, {0, 0, 1, 0}, 0},
    {"/tensor/elementwise/greater/float64", TR_OP_GREATER, F64, BOOL, 3, {1, 2, 3}, {2, 2, 2}, {0, 0, 1}, 0},
    {"/tensor/elementwise/greater/int32", TR_OP_GREATER, I32, BOOL, 3, {1, 2, 3}, {2, 2, 2}, {0, 0, 1}, 0},
    {"/tensor/elementwise/greater/int64", TR_OP_GREATER, I64, BOOL, 3, {1, 2, 3}, {2, 2, 2}, {0, 0, 1}, 0},
    {"/tensor/elementwise/greater-equal/float32", TR_OP_GREATER_EQUAL, F32, BOOL, 4, {1, 2, 3, NAN_}, {2, 2, 2, 0}, {0, 1, 1, 0}, 0},
    {"/tensor/elementwise/greater-equal/float64", TR_OP_GREATER_EQUAL, F64, BOOL, 3, {1, 2, 3}, {2, 2, 2}, {0, 1, 1}, 0},
    {"/tensor/elementwise/greater-equal/int32", TR_OP_GREATER_EQUAL, I32, BOOL, 3, {1, 2, 3}, {2, 2, 2}, {0, 1, 1}, 0},
    {"/tensor/elementwise/greater-equal/int64", TR_OP_GREATER_EQUAL, I64, BOOL, 3, {1, 2, 3}, {2, 2, 2}, {0, 1, 1}, 0},
    {"/tensor/elementwise/less/float32", TR_OP_LESS, F32, BOOL, 4, {1, 2, 3, NAN_}, {2, 2, 2, 0}, {1, 0, 0, 0}, 0},
    {"/tensor/elementwise/less/float64", TR_OP_LESS, F64, BOOL, 3, {1, 2, 3}, {2, 2, 2}, {1, 0, 0}, 0},
    {"/tensor/elementwise/less/int32", TR_OP_LESS, I32, BOOL, 3, {1, 2, 3}, {2, 2, 2}, {1, 0, 0}, 0},
    {"/tensor/elementwise/less/int64", TR_OP_LESS, I64, BOOL, 3, {1, 2, 3}, {2, 2, 2}, {1, 0, 0}, 0},
    {"/tensor/elementwise/less-equal/float32", TR_OP_LESS_EQUAL, F32, BOOL, 4, {1, 2, 3, NAN_}, {2, 2, 2, 0}, {1, 1, 0, 0}, 0},
    {"/tensor/elementwise/less-equal/float64", TR_OP_LESS_EQUAL, F64, BOOL, 3, {1, 2, 3}, {2, 2, 2}, {1, 1, 0}, 0},
    {"/tensor/elementwise/less-equal/int32", TR_OP_LESS_EQUAL, I32, BOOL, 3, {1, 2, 3}, {2, 2, 2}, {1, 1, 0}, 0},
    {"/tensor/elementwise/less-equal/int64", TR_OP_LESS_EQUAL, I64, BOOL, 3, {1, 2, 3}, {2, 2, 2}, {1, 1, 0}, 0},
    {"/tensor/elementwise/logical-and/values", TR_OP_LOGICAL_AND, BOOL, BOOL, 4, {1, 1, 0, 0}, {1, 0, 1, 0}, {1, 0, 0, 0}, 0},
    {"/tensor/elementwise/logical-or/values", TR_OP_LOGICAL_OR, BOOL, BOOL, 4, {1, 1, 0, 0}, {1, 0, 1, 0}, {1, 1, 1, 0}, 0},
};
/* clang-format on */

static void
test_binary_case(gconstpointer data)
{
  const ValueCase *c = data;
  g_autoptr(TrTensor) a = tt_tensor(c->dtype, DIMS(c->n), c->a);
  g_autoptr(TrTensor) b = tt_tensor(c->dtype, DIMS(c->n), c->b);
  check_binary(__FILE__, __LINE__, c->op, a, b, c->out, DIMS(c->n), c->want, c->tol);
}

/* clang-format off */
static const ValueCase unary_cases[] = {
    {"/tensor/elementwise/neg/float32", TR_OP_NEG, F32, F32, 3, {1.5, -2, 0}, {0}, {-1.5, 2, -0.0}, 0},
    {"/tensor/elementwise/neg/float64", TR_OP_NEG, F64, F64, 2, {0.1, -INF}, {0}, {-0.1, INF}, 0},
    {"/tensor/elementwise/neg/int32-min-wraps", TR_OP_NEG, I32, I32, 3, {7, -7, MIN32}, {0}, {-7, 7, MIN32}, 0},
    {"/tensor/elementwise/neg/int64", TR_OP_NEG, I64, I64, 2, {7e12, -7}, {0}, {-7e12, 7}, 0},
    {"/tensor/elementwise/abs/float32", TR_OP_ABS, F32, F32, 3, {1.5, -2, -0.0}, {0}, {1.5, 2, 0}, 0},
    {"/tensor/elementwise/abs/float64", TR_OP_ABS, F64, F64, 2, {-0.1, -INF}, {0}, {0.1, INF}, 0},
    {"/tensor/elementwise/abs/int32", TR_OP_ABS, I32, I32, 3, {7, -7, MIN32}, {0}, {7, 7, MIN32}, 0},
    {"/tensor/elementwise/abs/int64", TR_OP_ABS, I64, I64, 2, {-7e12, 7}, {0}, {7e12, 7}, 0},
    {"/tensor/elementwise/square/float32", TR_OP_SQUARE, F32, F32, 2, {1.5, -2.25}, {0}, {2.25, 5.0625}, 0},
    {"/tensor/elementwise/square/float64", TR_OP_SQUARE, F64, F64, 2, {0.1, -3}, {0}, {0.1 * 0.1, 9}, 0},
    {"/tensor/elementwise/square/int32-wraps", TR_OP_SQUARE, I32, I32, 3, {-7, 46341, 65536}, {0}, {49, -2147479015.0, 0}, 0},
    {"/tensor/elementwise/square/int64", TR_OP_SQUARE, I64, I64, 2, {-7, 3e9}, {0}, {49, 9e18}, 0},
    {"/tensor/elementwise/sqrt/float32", TR_OP_SQRT, F32, F32, 5, {0.25, 1, 2, 10, -1}, {0}, {0.5, 1.0, 1.4142135381698608, 3.1622776985168457, NAN_}, 0},
    {"/tensor/elementwise/sqrt/float64", TR_OP_SQRT, F64, F64, 2, {2, INF}, {0}, {1.4142135623730951, INF}, 0},
    {"/tensor/elementwise/exp/float32", TR_OP_EXP, F32, F32, 5, {-2.5, -1, 0, 0.5, 3}, {0}, {0.0820850059390068, 0.3678794205188751, 1.0, 1.6487212181091309, 20.08553695678711}, 1e-6},
    {"/tensor/elementwise/exp/float64", TR_OP_EXP, F64, F64, 2, {1, -INF}, {0}, {M_E, 0}, 1e-15},
    {"/tensor/elementwise/log/float32", TR_OP_LOG, F32, F32, 5, {0.25, 1, 2, 10, 0}, {0}, {-1.3862943649291992, 0.0, 0.6931471824645996, 2.3025851249694824, -INF}, 1e-6},
    {"/tensor/elementwise/log/float64", TR_OP_LOG, F64, F64, 2, {M_E, -1}, {0}, {1, NAN_}, 1e-15},
    {"/tensor/elementwise/tanh/float32", TR_OP_TANH, F32, F32, 5, {-2.5, -1, 0, 0.5, 3}, {0}, {-0.9866142868995667, -0.7615941762924194, 0.0, 0.46211719512939453, 0.9950547814369202}, 1e-6},
    {"/tensor/elementwise/tanh/float64", TR_OP_TANH, F64, F64, 2, {1, -INF}, {0}, {0.7615941559557649, -1}, 1e-15},
    {"/tensor/elementwise/sigmoid/float32", TR_OP_SIGMOID, F32, F32, 5, {-2.5, -1, 0, 0.5, 3}, {0}, {0.07585818002124355, 0.2689414213699951, 0.5, 0.6224593312018546, 0.9525741268224334}, 1e-6},
    {"/tensor/elementwise/sigmoid/float64", TR_OP_SIGMOID, F64, F64, 3, {0, -1000, 1000}, {0}, {0.5, 0, 1}, 0},
    {"/tensor/elementwise/sin/float32", TR_OP_SIN, F32, F32, 5, {-2.5, -1, 0, 0.5, 3}, {0}, {-0.5984721779823303, -0.8414710164070129, 0.0, 0.4794255495071411, 0.14112000167369843}, 1e-6},
    {"/tensor/elementwise/sin/float64", TR_OP_SIN, F64, F64, 2, {M_PI / 2, 0}, {0}, {1, 0}, 1e-15},
    {"/tensor/elementwise/cos/float32", TR_OP_COS, F32, F32, 5, {-2.5, -1, 0, 0.5, 3}, {0}, {-0.8011435866355896, 0.5403022766113281, 1.0, 0.8775825500488281, -0.9899924993515015}, 1e-6},
    {"/tensor/elementwise/cos/float64", TR_OP_COS, F64, F64, 2, {M_PI, 0}, {0}, {-1, 1}, 1e-15},
    {"/tensor/elementwise/relu/float32", TR_OP_RELU, F32, F32, 4, {-1.5, 0, 2.5, NAN_}, {0}, {0, 0, 2.5, NAN_}, 0},
    {"/tensor/elementwise/relu/float64", TR_OP_RELU, F64, F64, 2, {-INF, INF}, {0}, {0, INF}, 0},
    {"/tensor/elementwise/relu/int32", TR_OP_RELU, I32, I32, 3, {-7, 0, 7}, {0}, {0, 0, 7}, 0},
    {"/tensor/elementwise/relu/int64", TR_OP_RELU, I64, I64, 2, {-7e12, 7e12}, {0}, {0, 7e12}, 0},
    {"/tensor/elementwise/logical-not/values", TR_OP_LOGICAL_NOT, BOOL, BOOL, 2, {1, 0}, {0}, {0, 1}, 0},
    {"/tensor/elementwise/identity/float32", TR_OP_IDENTITY, F32, F32, 2, {1.5, NAN_}, {0}, {1.5, NAN_}, 0},
    {"/tensor/elementwise/identity/float64", TR_OP_IDENTITY, F64, F64, 2, {0.1, -INF}, {0}, {0.1, -INF}, 0},
    {"/tensor/elementwise/identity/int32", TR_OP_IDENTITY, I32, I32, 2, {MIN32, MAX32}, {0}, {MIN32, MAX32}, 0},
    {"/tensor/elementwise/identity/int64", TR_OP_IDENTITY, I64, I64, 2, {-7e15, 7}, {0}, {-7e15, 7}, 0},
    {"/tensor/elementwise/identity/bool", TR_OP_IDENTITY, BOOL, BOOL, 2, {1, 0}, {0}, {1, 0}, 0},
};
/* clang-format on */

static void
test_unary_case(gconstpointer data)
{
  const ValueCase *c = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) a = tt_tensor(c->dtype, DIMS(c->n), c->a);
  g_autoptr(TrTensor) out = tr_unary(c->op, a, &error);
  g_assert_no_error(error);
  tt_assert_tensor(out, c->out, DIMS(c->n), c->want, c->tol);
}

/* ---- broadcasting ------------------------------------------------------------------------- */

static void
test_add_broadcast_scalar(void)
{
  g_autoptr(TrTensor) m = TT(TR_FLOAT32, DIMS(2, 2), VALS(1, 2, 3, 4));
  g_autoptr(TrTensor) s = TT_SCALAR(TR_FLOAT32, 10);
  assert_binary(TR_OP_SUB, m, s, TR_FLOAT32, DIMS(2, 2), VALS(-9, -8, -7, -6));
  assert_binary(TR_OP_SUB, s, m, TR_FLOAT32, DIMS(2, 2), VALS(9, 8, 7, 6));
  assert_binary(TR_OP_ADD, s, s, TR_FLOAT32, NODIMS, VALS(20));
}

static void
test_add_broadcast_row(void)
{
  g_autoptr(TrTensor) m = TT(TR_INT32, DIMS(2, 3), VALS(1, 2, 3, 4, 5, 6));
  g_autoptr(TrTensor) row = TT(TR_INT32, DIMS(3), VALS(10, 20, 30));
  assert_binary(TR_OP_ADD, m, row, TR_INT32, DIMS(2, 3), VALS(11, 22, 33, 14, 25, 36));
  assert_binary(TR_OP_SUB, row, m, TR_INT32, DIMS(2, 3), VALS(9, 18, 27, 6, 15, 24));
}

static void
test_add_broadcast_column(void)
{
  g_autoptr(TrTensor) m = TT(TR_FLOAT64, DIMS(2, 3), VALS(1, 2, 3, 4, 5, 6));
  g_autoptr(TrTensor) col = TT(TR_FLOAT64, DIMS(2, 1), VALS(10, 20));
  assert_binary(TR_OP_MUL, m, col, TR_FLOAT64, DIMS(2, 3), VALS(10, 20, 30, 80, 100, 120));
}

static void
test_add_broadcast_outer(void)
{
  g_autoptr(TrTensor) col = TT(TR_INT64, DIMS(3, 1), VALS(0, 10, 20));
  g_autoptr(TrTensor) row = TT(TR_INT64, DIMS(1, 4), VALS(1, 2, 3, 4));
  assert_binary(TR_OP_ADD, col, row, TR_INT64, DIMS(3, 4),
                VALS(1, 2, 3, 4, 11, 12, 13, 14, 21, 22, 23, 24));
}

static void
test_add_broadcast_rank3(void)
{
  g_autoptr(TrTensor) a = TT(TR_FLOAT32, DIMS(2, 1, 3), VALS(1, 2, 3, 4, 5, 6));
  g_autoptr(TrTensor) b = TT(TR_FLOAT32, DIMS(2, 1), VALS(10, 20));
  assert_binary(TR_OP_ADD, a, b, TR_FLOAT32, DIMS(2, 2, 3),
                VALS(11, 12, 13, 21, 22, 23, 14, 15, 16, 24, 25, 26));
}

static void
test_add_empty(void)
{
  g_autoptr(TrTensor) a = tt_zeros(TR_FLOAT32, DIMS(0, 3));
  g_autoptr(TrTensor) b = TT(TR_FLOAT32, DIMS(3), VALS(1, 2, 3));
  assert_binary(TR_OP_ADD, a, b, TR_FLOAT32, DIMS(0, 3), NULL);
}

/* Long enough for the blocked loops and their tail, with the scalar on either side. */
static void
test_add_long_rows(void)
{
  enum { N = 37 };
  double av[N], bv[N], sum[N], left[N], right[N];
  for (int i = 0; i < N; i++) {
    av[i] = i;
    bv[i] = 100 * i;
    sum[i] = 101 * i;
    left[i] = 0.5 - i;
    right[i] = i - 0.5;
  }
  g_autoptr(TrTensor) a = tt_tensor(TR_FLOAT32, DIMS(N), av);
  g_autoptr(TrTensor) b = tt_tensor(TR_FLOAT32, DIMS(N), bv);
  g_autoptr(TrTensor) half = TT_SCALAR(TR_FLOAT32, 0.5);
  assert_binary(TR_OP_ADD, a, b, TR_FLOAT32, DIMS(N), sum);
  assert_binary(TR_OP_SUB, half, a, TR_FLOAT32, DIMS(N), left);
  assert_binary(TR_OP_SUB, a, half, TR_FLOAT32, DIMS(N), right);
}

static void
test_add_string_concat(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) a = tt_strings(DIMS(2, 1), STRS("a", ""));
  g_autoptr(TrTensor) b = tt_strings(DIMS(2), STRS("xy", "z"));
  g_autoptr(TrTensor) out = tr_binary(TR_OP_ADD, a, b, &error);
  g_assert_no_error(error);
  tt_assert_strings(out, DIMS(2, 2), STRS("axy", "az", "xy", "z"));
}

static void
test_add_incompatible_shapes(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) a = tt_zeros(TR_FLOAT32, DIMS(2, 3));
  g_autoptr(TrTensor) b = tt_zeros(TR_FLOAT32, DIMS(4));
  g_assert_null(tr_binary(TR_OP_ADD, a, b, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Incompatible shapes: [2,3] vs. [4] [Op:AddV2]");
  g_autoptr(TrTensor) s = tt_strings(DIMS(2), STRS("a", "b"));
  g_autoptr(TrTensor) t = tt_strings(DIMS(3), STRS("a", "b", "c"));
  g_assert_null(tr_binary(TR_OP_ADD, s, t, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT, "Incompatible shapes: [2] vs. [3] [Op:Add]");
  g_assert_null(tr_binary(TR_OP_LESS, b, a, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Incompatible shapes: [4] vs. [2,3] [Op:Less]");
}

/* ---- strided inputs ----------------------------------------------------------------------- */

static void
test_strided_transposed(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) m = TT(TR_FLOAT32, DIMS(2, 3), VALS(1, 2, 3, 4, 5, 6));
  g_autoptr(TrTensor) t = tt_transposed(m); /* [[1, 4], [2, 5], [3, 6]] */
  g_assert_false(t->contiguous);
  g_autoptr(TrTensor) c = TT(TR_FLOAT32, DIMS(3, 2), VALS(10, 20, 30, 40, 50, 60));
  assert_binary(TR_OP_ADD, t, c, TR_FLOAT32, DIMS(3, 2), VALS(11, 24, 32, 45, 53, 66));
  g_autoptr(TrTensor) row = TT(TR_FLOAT32, DIMS(2), VALS(100, 200));
  assert_binary(TR_OP_SUB, t, row, TR_FLOAT32, DIMS(3, 2), VALS(-99, -196, -98, -195, -97, -194));
  g_autoptr(TrTensor) neg = tr_unary(TR_OP_NEG, t, &error);
  g_assert_no_error(error);
  tt_assert_tensor(neg, TR_FLOAT32, DIMS(3, 2), VALS(-1, -4, -2, -5, -3, -6), 0);
  assert_binary(TR_OP_GREATER, t, t, TR_BOOL, DIMS(3, 2), VALS(0, 0, 0, 0, 0, 0));
}

/* A view starting past the buffer's first element, with a stride of 2. */
static void
test_strided_offset_view(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) v = TT(TR_INT32, DIMS(6), VALS(0, 1, 2, 3, 4, 5));
  TrShape shape = tr_shape_make(DIMS(2));
  g_autoptr(TrTensor) odd = tr_tensor_new_view(v->buf, TR_INT32, &shape, (int64_t[]){2}, 1);
  g_autoptr(TrTensor) one = tr_tensor_new_view(v->buf, TR_INT32, &shape, (int64_t[]){0}, 5);
  assert_binary(TR_OP_MUL, odd, one, TR_INT32, DIMS(2), VALS(5, 15));
  g_autoptr(TrTensor) id = tr_unary(TR_OP_IDENTITY, odd, &error);
  g_assert_no_error(error);
  g_assert_true(id->contiguous);
  tt_assert_tensor(id, TR_INT32, DIMS(2), VALS(1, 3), 0);
}

/* ---- errors ------------------------------------------------------------------------------- */

static void
test_dtype_mismatch(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) i = TT_SCALAR(TR_INT32, 1);
  g_autoptr(TrTensor) f = TT_SCALAR(TR_FLOAT32, 1);
  g_autoptr(TrTensor) s = tt_strings(NODIMS, STRS("a"));
  g_assert_null(tr_binary(TR_OP_ADD, i, f, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "cannot compute AddV2 as input #1(zero-based) was expected to be a int32 tensor "
                  "but is a float tensor [Op:AddV2]");
  g_assert_null(tr_binary(TR_OP_ADD, s, i, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "cannot compute Add as input #1(zero-based) was expected to be a string tensor "
                  "but is a int32 tensor [Op:Add]");
  g_assert_null(tr_binary(TR_OP_EQUAL, f, i, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "cannot compute Equal as input #1(zero-based) was expected to be a float tensor "
                  "but is a int32 tensor [Op:Equal]");
  g_assert_null(tr_binary(TR_OP_POW, i, f, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "cannot compute Pow as input #1(zero-based) was expected to be a int32 tensor "
                  "but is a float tensor [Op:Pow]");
}

static void
test_logical_rejects_non_bool(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) b = TT_SCALAR(TR_BOOL, 1);
  g_autoptr(TrTensor) f = TT_SCALAR(TR_FLOAT32, 1);
  g_assert_null(tr_binary(TR_OP_LOGICAL_AND, f, b, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "cannot compute LogicalAnd as input #0(zero-based) was expected to be a bool "
                  "tensor but is a float tensor [Op:LogicalAnd]");
  g_assert_null(tr_binary(TR_OP_LOGICAL_OR, b, f, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "cannot compute LogicalOr as input #1(zero-based) was expected to be a bool "
                  "tensor but is a float tensor [Op:LogicalOr]");
  g_assert_null(tr_unary(TR_OP_LOGICAL_NOT, f, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "cannot compute LogicalNot as input #0(zero-based) was expected to be a bool "
                  "tensor but is a float tensor [Op:LogicalNot]");
}

static void
test_logical_broadcast(void)
{
  g_autoptr(TrTensor) a = TT(TR_BOOL, DIMS(2, 1), VALS(1, 0));
  g_autoptr(TrTensor) b = TT(TR_BOOL, DIMS(2), VALS(1, 0));
  assert_binary(TR_OP_LOGICAL_AND, a, b, TR_BOOL, DIMS(2, 2), VALS(1, 0, 0, 0));
}

typedef struct {
  const char *path;
  TrOpId op;
  TrDType dtype;
  const char *message;
} RejectCase;

static const RejectCase reject_cases[] = {
    {"/tensor/elementwise/add/bool-rejected", TR_OP_ADD, BOOL,
     ATTR_ERROR("bool", "AddV2", ADDV2_T, BINARY_SIG, ADDV2_DT,
                "; is_commutative=true; is_aggregate=true")},
    {"/tensor/elementwise/sub/string-rejected", TR_OP_SUB, TR_STRING,
     ATTR_ERROR("string", "Sub", SUB_T, BINARY_SIG, SUB_DT, "")},
    {"/tensor/elementwise/mul/bool-rejected", TR_OP_MUL, BOOL,
     ATTR_ERROR("bool", "Mul", MORE_T, BINARY_SIG, MORE_DT, "; is_commutative=true")},
    {"/tensor/elementwise/div/bool-rejected", TR_OP_DIV, BOOL,
     ATTR_ERROR("bool", "RealDiv", MORE_T, BINARY_SIG, MORE_DT, "")},
    {"/tensor/elementwise/floordiv/bool-rejected", TR_OP_FLOORDIV, BOOL,
     ATTR_ERROR("bool", "FloorDiv", MORE_T, BINARY_SIG, MORE_DT, "")},
    {"/tensor/elementwise/floormod/string-rejected", TR_OP_MOD, TR_STRING,
     ATTR_ERROR("string", "FloorMod", FLOORMOD_T, BINARY_SIG, FLOORMOD_DT, "")},
    {"/tensor/elementwise/pow/bool-rejected", TR_OP_POW, BOOL,
     ATTR_ERROR("bool", "Pow", POW_T, BINARY_SIG, POW_DT, "")},
    {"/tensor/elementwise/maximum/bool-rejected", TR_OP_MAXIMUM, BOOL,
     ATTR_ERROR("bool", "Maximum", MINMAX_T, BINARY_SIG, MINMAX_DT, "")},
    {"/tensor/elementwise/minimum/string-rejected", TR_OP_MINIMUM, TR_STRING,
     ATTR_ERROR("string", "Minimum", MINMAX_T, BINARY_SIG, MINMAX_DT, "")},
    {"/tensor/elementwise/greater/string-rejected", TR_OP_GREATER, TR_STRING,
     ATTR_ERROR("string", "Greater", REAL_T, "x:T, y:T -> z:bool", REAL_DT, "")},
    {"/tensor/elementwise/greater-equal/bool-rejected", TR_OP_GREATER_EQUAL, BOOL,
     ATTR_ERROR("bool", "GreaterEqual", REAL_T, "x:T, y:T -> z:bool", REAL_DT, "")},
    {"/tensor/elementwise/less/bool-rejected", TR_OP_LESS, BOOL,
     ATTR_ERROR("bool", "Less", REAL_T, "x:T, y:T -> z:bool", REAL_DT, "")},
    {"/tensor/elementwise/less-equal/string-rejected", TR_OP_LESS_EQUAL, TR_STRING,
     ATTR_ERROR("string", "LessEqual", REAL_T, "x:T, y:T -> z:bool", REAL_DT, "")},
    {"/tensor/elementwise/neg/bool-rejected", TR_OP_NEG, BOOL,
     ATTR_ERROR("bool", "Neg", UNARY_T, UNARY_SIG, UNARY_DT, "")},
    {"/tensor/elementwise/abs/string-rejected", TR_OP_ABS, TR_STRING,
     ATTR_ERROR("string", "Abs", ABS_T, UNARY_SIG, ABS_DT, "")},
    {"/tensor/elementwise/square/bool-rejected", TR_OP_SQUARE, BOOL,
     ATTR_ERROR("bool", "Square", UNSIGNED_T, UNARY_SIG, UNSIGNED_DT, "")},
    {"/tensor/elementwise/sqrt/int-rejected", TR_OP_SQRT, I32,
     ATTR_ERROR("int32", "Sqrt", COMPLEX_T, UNARY_SIG, COMPLEX_DT, "")},
    {"/tensor/elementwise/exp/int64-rejected", TR_OP_EXP, I64,
     ATTR_ERROR("int64", "Exp", COMPLEX_T, UNARY_SIG, COMPLEX_DT, "")},
    {"/tensor/elementwise/log/bool-rejected", TR_OP_LOG, BOOL,
     ATTR_ERROR("bool", "Log", COMPLEX_T, UNARY_SIG, COMPLEX_DT, "")},
    {"/tensor/elementwise/tanh/int-rejected", TR_OP_TANH, I32,
     ATTR_ERROR("int32", "Tanh", COMPLEX_T, UNARY_SIG, COMPLEX_DT, "")},
    {"/tensor/elementwise/sigmoid/int-rejected", TR_OP_SIGMOID, I32,
     ATTR_ERROR("int32", "Sigmoid", COMPLEX_T, UNARY_SIG, COMPLEX_DT, "")},
    {"/tensor/elementwise/sin/int-rejected", TR_OP_SIN, I64,
     ATTR_ERROR("int64", "Sin", COMPLEX_T, UNARY_SIG, COMPLEX_DT, "")},
    {"/tensor/elementwise/cos/string-rejected", TR_OP_COS, TR_STRING,
     ATTR_ERROR("string", "Cos", COMPLEX_T, UNARY_SIG, COMPLEX_DT, "")},
    {"/tensor/elementwise/relu/bool-rejected", TR_OP_RELU, BOOL,
     ATTR_ERROR("bool", "Relu", REAL_T ", qint8", "features:T -> activations:T",
                REAL_DT ", DT_QINT8", "")},
};

static void
test_reject_case(gconstpointer data)
{
  const RejectCase *c = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) x =
      c->dtype == TR_STRING ? tt_strings(NODIMS, STRS("a")) : TT_SCALAR(c->dtype, 1);
  const TrOpDef *def = tr_op_def(c->op);
  TrTensor *in[2] = {x, x};
  g_assert_null(tr_op_run(c->op, in, def->n_inputs, NULL, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT, c->message);
}

static void
test_div_int_has_no_kernel(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) a = TT(TR_INT32, DIMS(2), VALS(1, 2));
  g_assert_null(tr_binary(TR_OP_DIV, a, a, &error));
  tt_assert_error(&error, TR_ERROR_NOT_FOUND,
                  "Could not find device for node: {{node RealDiv}} = RealDiv[T=DT_INT32]\n"
                  "All kernels registered for op RealDiv:\n"
                  "  device='CPU'; T in [DT_FLOAT]\n"
                  "  device='CPU'; T in [DT_DOUBLE]\n"
                  "  device='CPU'; T in [DT_HALF]\n"
                  "  device='CPU'; T in [DT_BFLOAT16]\n"
                  "  device='CPU'; T in [DT_COMPLEX64]\n"
                  "  device='CPU'; T in [DT_COMPLEX128]\n"
                  " [Op:RealDiv]");
}

static void
test_truediv_casts_ints(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) a = TT(TR_INT32, DIMS(3), VALS(1, -7, 0));
  g_autoptr(TrTensor) b = TT(TR_INT32, DIMS(3), VALS(2, 2, 0));
  g_autoptr(TrTensor) q = tr_truediv(a, b, &error);
  g_assert_no_error(error);
  tt_assert_tensor(q, TR_FLOAT64, DIMS(3), VALS(0.5, -3.5, NAN), 0);
  g_autoptr(TrTensor) c = TT(TR_INT64, DIMS(1), VALS(1));
  g_autoptr(TrTensor) d = TT(TR_INT64, DIMS(1), VALS(3));
  g_autoptr(TrTensor) r = tr_truediv(c, d, &error);
  g_assert_no_error(error);
  tt_assert_tensor(r, TR_FLOAT64, DIMS(1), VALS(1.0 / 3), 0);
  g_autoptr(TrTensor) f = TT(TR_FLOAT32, DIMS(1), VALS(1));
  g_autoptr(TrTensor) g = TT(TR_FLOAT32, DIMS(1), VALS(4));
  g_autoptr(TrTensor) s = tr_truediv(f, g, &error);
  g_assert_no_error(error);
  tt_assert_tensor(s, TR_FLOAT32, DIMS(1), VALS(0.25), 0);
  g_assert_null(tr_truediv(a, f, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "cannot compute RealDiv as input #1(zero-based) was expected to be a int32 "
                  "tensor but is a float tensor [Op:RealDiv]");
}

static void
test_int_division_by_zero(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) a = TT(TR_INT32, DIMS(3), VALS(1, 2, 3));
  g_autoptr(TrTensor) b = TT(TR_INT32, DIMS(3), VALS(1, 0, 3));
  g_autoptr(TrTensor) zero = TT_SCALAR(TR_INT64, 0);
  g_autoptr(TrTensor) c = TT(TR_INT64, DIMS(2, 2), VALS(1, 2, 3, 4));
  g_assert_null(tr_binary(TR_OP_FLOORDIV, a, b, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT, "Integer division by zero [Op:FloorDiv]");
  g_assert_null(tr_binary(TR_OP_MOD, a, b, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT, "Integer division by zero [Op:FloorMod]");
  g_assert_null(tr_binary(TR_OP_FLOORDIV, c, zero, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT, "Integer division by zero [Op:FloorDiv]");
}

static void
test_pow_negative_int_exponent(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) a = TT(TR_INT32, DIMS(2), VALS(2, 1));
  g_autoptr(TrTensor) b = TT(TR_INT32, DIMS(2), VALS(2, -1));
  g_assert_null(tr_binary(TR_OP_POW, a, b, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Integers to negative integer powers are not allowed [Op:Pow]");
}

/* ---- strings ------------------------------------------------------------------------------ */

static void
test_string_equality(void)
{
  g_autoptr(TrTensor) a = tt_strings(DIMS(4), STRS("a", "ab", "", "b"));
  g_autoptr(TrTensor) b = tt_strings(DIMS(4), STRS("a", "a", "", "c"));
  assert_binary(TR_OP_EQUAL, a, b, TR_BOOL, DIMS(4), VALS(1, 0, 1, 0));
  assert_binary(TR_OP_NOT_EQUAL, a, b, TR_BOOL, DIMS(4), VALS(0, 1, 0, 1));
}

static void
test_string_identity(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) a = tt_strings(DIMS(2, 2), STRS("a", "b", "c", "d"));
  g_autoptr(TrTensor) t = tt_transposed(a);
  g_autoptr(TrTensor) out = tr_unary(TR_OP_IDENTITY, t, &error);
  g_assert_no_error(error);
  tt_assert_strings(out, DIMS(2, 2), STRS("a", "c", "b", "d"));
  g_assert_true(out->buf != a->buf);
}

/* ---- Cast --------------------------------------------------------------------------------- */

static void
test_cast_every_pair(void)
{
  static const TrDType dtypes[] = {F32, F64, I32, I64, BOOL};
  const double in[] = {0, 1, -2, 3};
  for (size_t i = 0; i < G_N_ELEMENTS(dtypes); i++) {
    for (size_t j = 0; j < G_N_ELEMENTS(dtypes); j++) {
      g_autoptr(GError) error = NULL;
      g_autoptr(TrTensor) x = tt_tensor(dtypes[i], DIMS(4), in);
      g_autoptr(TrTensor) y = tr_cast(x, dtypes[j], &error);
      g_assert_no_error(error);
      bool to_bool = dtypes[j] == BOOL, from_bool = dtypes[i] == BOOL;
      double want[4];
      for (int k = 0; k < 4; k++)
        want[k] = (to_bool || from_bool) ? in[k] != 0 : in[k];
      tt_assert_tensor(y, dtypes[j], DIMS(4), want, 0);
    }
  }
}

static void
test_cast_float_to_int(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) x = TT(TR_FLOAT64, DIMS(6), VALS(2.9, -2.9, 3e9, -3e9, NAN, 1e19));
  g_autoptr(TrTensor) i32 = tr_cast(x, TR_INT32, &error);
  g_assert_no_error(error);
  tt_assert_tensor(i32, TR_INT32, DIMS(6), VALS(2, -2, MIN32, MIN32, MIN32, MIN32), 0);
  g_autoptr(TrTensor) i64 = tr_cast(x, TR_INT64, &error);
  g_assert_no_error(error);
  g_assert_cmpint(tr_tensor_get_i64(i64, 2), ==, 3000000000);
  g_assert_cmpint(tr_tensor_get_i64(i64, 4), ==, INT64_MIN);
  g_assert_cmpint(tr_tensor_get_i64(i64, 5), ==, INT64_MIN);
  g_autoptr(TrTensor) f = TT(TR_FLOAT32, DIMS(2), VALS(0.1, NAN));
  g_autoptr(TrTensor) b = tr_cast(f, TR_BOOL, &error);
  g_assert_no_error(error);
  tt_assert_tensor(b, TR_BOOL, DIMS(2), VALS(1, 1), 0);
  g_autoptr(TrTensor) d = tr_cast(f, TR_FLOAT64, &error);
  g_assert_no_error(error);
  tt_assert_tensor(d, TR_FLOAT64, DIMS(2), VALS(0.10000000149011612, NAN), 0);
}

static void
test_cast_int64_to_int32_wraps(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) x = TT(TR_INT64, DIMS(2), VALS(5000000000.0, 4294967301.0));
  g_autoptr(TrTensor) y = tr_cast(x, TR_INT32, &error);
  g_assert_no_error(error);
  tt_assert_tensor(y, TR_INT32, DIMS(2), VALS(705032704, 5), 0);
}

static void
test_cast_strings(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) s = tt_strings(DIMS(2), STRS("1", "x"));
  g_autoptr(TrTensor) same = tr_cast(s, TR_STRING, &error);
  g_assert_no_error(error);
  tt_assert_strings(same, DIMS(2), STRS("1", "x"));
  g_assert_null(tr_cast(s, TR_FLOAT32, &error));
  tt_assert_error(&error, TR_ERROR_UNIMPLEMENTED,
                  "Cast string to float is not supported [Op:Cast]");
  g_autoptr(TrTensor) b = TT_SCALAR(TR_BOOL, 1);
  g_assert_null(tr_cast(b, TR_STRING, &error));
  tt_assert_error(&error, TR_ERROR_UNIMPLEMENTED, "Cast bool to string is not supported [Op:Cast]");
  g_assert_null(tr_cast(b, TR_DTYPE_INVALID, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "NodeDef missing attr 'DstT' from Op<name=Cast; signature=x:SrcT -> y:DstT; "
                  "attr=SrcT:type; attr=DstT:type; attr=Truncate:bool,default=false> [Op:Cast]");
}

static void
test_cast_strided(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) m = TT(TR_INT32, DIMS(2, 2), VALS(1, 2, 3, 4));
  g_autoptr(TrTensor) t = tt_transposed(m);
  g_autoptr(TrTensor) y = tr_cast(t, TR_FLOAT32, &error);
  g_assert_no_error(error);
  tt_assert_tensor(y, TR_FLOAT32, DIMS(2, 2), VALS(1, 3, 2, 4), 0);
}

/* ---- SelectV2 ----------------------------------------------------------------------------- */

static void
test_where_same_shape(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) c = TT(TR_BOOL, DIMS(4), VALS(1, 0, 0, 1));
  g_autoptr(TrTensor) x = TT(TR_FLOAT64, DIMS(4), VALS(1, 2, 3, 4));
  g_autoptr(TrTensor) y = TT(TR_FLOAT64, DIMS(4), VALS(-1, -2, -3, -4));
  g_autoptr(TrTensor) out = tr_where(c, x, y, &error);
  g_assert_no_error(error);
  tt_assert_tensor(out, TR_FLOAT64, DIMS(4), VALS(1, -2, -3, 4), 0);
}

static void
test_where_every_dtype(void)
{
  static const TrDType dtypes[] = {F32, F64, I32, I64, BOOL};
  for (size_t i = 0; i < G_N_ELEMENTS(dtypes); i++) {
    g_autoptr(GError) error = NULL;
    g_autoptr(TrTensor) c = TT(TR_BOOL, DIMS(2), VALS(0, 1));
    g_autoptr(TrTensor) x = tt_tensor(dtypes[i], DIMS(2), VALS(1, 1));
    g_autoptr(TrTensor) y = tt_tensor(dtypes[i], DIMS(2), VALS(0, 0));
    g_autoptr(TrTensor) out = tr_where(c, x, y, &error);
    g_assert_no_error(error);
    tt_assert_tensor(out, dtypes[i], DIMS(2), VALS(0, 1), 0);
  }
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) c = TT(TR_BOOL, DIMS(2, 1), VALS(1, 0));
  g_autoptr(TrTensor) x = tt_strings(DIMS(2), STRS("a", "b"));
  g_autoptr(TrTensor) y = tt_strings(NODIMS, STRS("-"));
  g_autoptr(TrTensor) out = tr_where(c, x, y, &error);
  g_assert_no_error(error);
  tt_assert_strings(out, DIMS(2, 2), STRS("a", "b", "-", "-"));
}

static void
test_where_broadcast_three_way(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) c = TT(TR_BOOL, DIMS(2, 1), VALS(1, 0));
  g_autoptr(TrTensor) x = TT(TR_INT32, DIMS(1, 3), VALS(1, 2, 3));
  g_autoptr(TrTensor) y = TT_SCALAR(TR_INT32, -1);
  g_autoptr(TrTensor) out = tr_where(c, x, y, &error);
  g_assert_no_error(error);
  tt_assert_tensor(out, TR_INT32, DIMS(2, 3), VALS(1, 2, 3, -1, -1, -1), 0);
  g_autoptr(TrTensor) s = TT_SCALAR(TR_BOOL, 0);
  g_autoptr(TrTensor) z = TT(TR_INT32, DIMS(2, 1), VALS(7, 8));
  g_autoptr(TrTensor) scalar_cond = tr_where(s, x, z, &error);
  g_assert_no_error(error);
  tt_assert_tensor(scalar_cond, TR_INT32, DIMS(2, 3), VALS(7, 7, 7, 8, 8, 8), 0);
}

static void
test_where_errors(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) c = TT(TR_BOOL, DIMS(2, 3), VALS(1, 0, 1, 0, 1, 0));
  g_autoptr(TrTensor) f = TT(TR_FLOAT32, DIMS(2, 3), VALS(1, 2, 3, 4, 5, 6));
  g_autoptr(TrTensor) i = TT(TR_INT32, DIMS(2, 3), VALS(1, 2, 3, 4, 5, 6));
  g_autoptr(TrTensor) v = TT(TR_FLOAT32, DIMS(4), VALS(1, 2, 3, 4));
  g_assert_null(tr_where(f, f, f, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "cannot compute SelectV2 as input #0(zero-based) was expected to be a bool "
                  "tensor but is a float tensor [Op:SelectV2]");
  g_assert_null(tr_where(c, f, i, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "cannot compute SelectV2 as input #2(zero-based) was expected to be a float "
                  "tensor but is a int32 tensor [Op:SelectV2]");
  g_assert_null(tr_where(c, v, f, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "condition [2,3], then [4], and else [2,3] must be broadcastable [Op:SelectV2]");
  g_assert_null(tr_where(c, f, v, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "condition [2,3], then [2,3], and else [4] must be broadcastable [Op:SelectV2]");
}

/* ---- clip_by_value ------------------------------------------------------------------------ */

static void
test_clip_scalar_bounds(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) x = TT(TR_FLOAT32, DIMS(2, 3), VALS(-5, 0, 2, 5, NAN, 10));
  g_autoptr(TrTensor) lo = TT_SCALAR(TR_FLOAT32, -1);
  g_autoptr(TrTensor) hi = TT_SCALAR(TR_FLOAT32, 3);
  g_autoptr(TrTensor) out = tr_clip_by_value(x, lo, hi, &error);
  g_assert_no_error(error);
  tt_assert_tensor(out, TR_FLOAT32, DIMS(2, 3), VALS(-1, 0, 2, 3, NAN, 3), 0);
}

static void
test_clip_broadcast_bounds(void)
{
  static const TrDType dtypes[] = {F32, F64, I32, I64};
  for (size_t i = 0; i < G_N_ELEMENTS(dtypes); i++) {
    g_autoptr(GError) error = NULL;
    g_autoptr(TrTensor) x = tt_tensor(dtypes[i], DIMS(2, 3), VALS(-5, 0, 2, 5, 1, 10));
    g_autoptr(TrTensor) lo = tt_tensor(dtypes[i], DIMS(3), VALS(0, 1, 2));
    g_autoptr(TrTensor) hi = tt_tensor(dtypes[i], DIMS(2, 1), VALS(4, 8));
    g_autoptr(TrTensor) out = tr_clip_by_value(x, lo, hi, &error);
    g_assert_no_error(error);
    tt_assert_tensor(out, dtypes[i], DIMS(2, 3), VALS(0, 1, 2, 5, 1, 8), 0);
  }
}

static void
test_clip_errors(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) x = TT(TR_FLOAT32, DIMS(2), VALS(1, 2));
  g_autoptr(TrTensor) f = TT_SCALAR(TR_FLOAT32, 0);
  g_autoptr(TrTensor) i = TT_SCALAR(TR_INT32, 0);
  g_autoptr(TrTensor) m = TT(TR_FLOAT32, DIMS(2, 2), VALS(1, 2, 3, 4));
  g_autoptr(TrTensor) v3 = TT(TR_FLOAT32, DIMS(3), VALS(1, 2, 3));
  g_autoptr(TrTensor) b = TT(TR_BOOL, DIMS(2), VALS(1, 0));
  g_assert_null(tr_clip_by_value(x, f, i, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "cannot compute Minimum as input #1(zero-based) was expected to be a float "
                  "tensor but is a int32 tensor [Op:Minimum]");
  g_assert_null(tr_clip_by_value(x, i, f, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "cannot compute Maximum as input #1(zero-based) was expected to be a float "
                  "tensor but is a int32 tensor [Op:Maximum]");
  g_assert_null(tr_clip_by_value(x, f, m, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT, "Shapes (2,) and (2, 2) are incompatible");
  g_assert_null(tr_clip_by_value(x, m, f, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT, "Shapes (2,) and (2, 2) are incompatible");
  g_assert_null(tr_clip_by_value(x, f, v3, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Incompatible shapes: [2] vs. [3] [Op:Minimum]");
  g_assert_null(tr_clip_by_value(x, v3, f, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "Incompatible shapes: [2] vs. [3] [Op:Maximum]");
  g_assert_null(tr_clip_by_value(b, b, b, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  ATTR_ERROR("bool", "Minimum", MINMAX_T, BINARY_SIG, MINMAX_DT, ""));
}

/* ---- partial shapes ----------------------------------------------------------------------- */

static void
test_infer_binary_partial(void)
{
  TrTensorInfo in[2] = {tt_symbolic(F32, DIMS(TR_UNKNOWN, 3)), tt_symbolic(F32, DIMS(3))};
  tt_assert_infers(TR_OP_ADD, in, 2, NULL, F32, "(None, 3)");

  in[0] = tt_symbolic(F32, DIMS(TR_UNKNOWN));
  in[1] = tt_symbolic(F32, DIMS(2, 4));
  tt_assert_infers(TR_OP_LESS, in, 2, NULL, BOOL, "(2, 4)");

  in[1] = tt_symbolic(F32, DIMS(1));
  tt_assert_infers(TR_OP_MUL, in, 2, NULL, F32, "(None,)");

  in[0] = tt_symbolic(F32, UNKNOWN_RANK);
  tt_assert_infers(TR_OP_SUB, in, 2, NULL, F32, "<unknown>");

  in[0] = tt_symbolic(F32, DIMS(TR_UNKNOWN, 3));
  in[1] = tt_symbolic(F32, DIMS(4));
  tt_assert_infer_error(TR_OP_ADD, in, 2, NULL, "Incompatible shapes: [?,3] vs. [4] [Op:AddV2]");
  in[1] = tt_symbolic(I32, DIMS(3));
  tt_assert_infer_error(TR_OP_ADD, in, 2, NULL,
                        "cannot compute AddV2 as input #1(zero-based) was expected to be a float "
                        "tensor but is a int32 tensor [Op:AddV2]");
}

static void
test_infer_unary_partial(void)
{
  TrTensorInfo in = tt_symbolic(F64, DIMS(TR_UNKNOWN, 2, TR_UNKNOWN));
  tt_assert_infers(TR_OP_TANH, &in, 1, NULL, F64, "(None, 2, None)");
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.dtype = TR_INT32;
  tt_assert_infers(TR_OP_CAST, &in, 1, &attrs, I32, "(None, 2, None)");
  in = tt_symbolic(I32, UNKNOWN_RANK);
  tt_assert_infers(TR_OP_ABS, &in, 1, NULL, I32, "<unknown>");
  tt_assert_infer_error(TR_OP_EXP, &in, 1, NULL,
                        ATTR_ERROR("int32", "Exp", COMPLEX_T, UNARY_SIG, COMPLEX_DT, ""));
}

static void
test_infer_select_partial(void)
{
  TrTensorInfo in[3] = {tt_symbolic(BOOL, DIMS(TR_UNKNOWN, 1)), tt_symbolic(I64, DIMS(3)),
                        tt_symbolic(I64, NODIMS)};
  tt_assert_infers(TR_OP_SELECT, in, 3, NULL, I64, "(None, 3)");
  in[2] = tt_symbolic(I64, UNKNOWN_RANK);
  tt_assert_infers(TR_OP_SELECT, in, 3, NULL, I64, "<unknown>");
  in[2] = tt_symbolic(I64, DIMS(2));
  tt_assert_infer_error(
      TR_OP_SELECT, in, 3, NULL,
      "condition [?,1], then [3], and else [2] must be broadcastable [Op:SelectV2]");
}

static void
test_infer_clip_partial(void)
{
  TrTensorInfo in[3] = {tt_symbolic(F32, DIMS(TR_UNKNOWN, 3)), tt_symbolic(F32, NODIMS),
                        tt_symbolic(F32, DIMS(3))};
  tt_assert_infers(TR_OP_CLIP_BY_VALUE, in, 3, NULL, F32, "(None, 3)");
  in[0] = tt_symbolic(F32, DIMS(TR_UNKNOWN));
  in[2] = tt_symbolic(F32, DIMS(2, 1));
  tt_assert_infer_error(TR_OP_CLIP_BY_VALUE, in, 3, NULL,
                        "Shapes (None,) and (2, None) are incompatible");
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);

  g_test_add_func("/tensor/elementwise/defs/names-arity-flags", test_defs);
  for (size_t i = 0; i < G_N_ELEMENTS(binary_cases); i++)
    g_test_add_data_func(binary_cases[i].path, &binary_cases[i], test_binary_case);
  for (size_t i = 0; i < G_N_ELEMENTS(unary_cases); i++)
    g_test_add_data_func(unary_cases[i].path, &unary_cases[i], test_unary_case);
  for (size_t i = 0; i < G_N_ELEMENTS(reject_cases); i++)
    g_test_add_data_func(reject_cases[i].path, &reject_cases[i], test_reject_case);

  g_test_add_func("/tensor/elementwise/add/broadcast-scalar", test_add_broadcast_scalar);
  g_test_add_func("/tensor/elementwise/add/broadcast-row", test_add_broadcast_row);
  g_test_add_func("/tensor/elementwise/add/broadcast-column", test_add_broadcast_column);
  g_test_add_func("/tensor/elementwise/add/broadcast-outer", test_add_broadcast_outer);
  g_test_add_func("/tensor/elementwise/add/broadcast-rank3", test_add_broadcast_rank3);
  g_test_add_func("/tensor/elementwise/add/empty", test_add_empty);
  g_test_add_func("/tensor/elementwise/add/long-rows", test_add_long_rows);
  g_test_add_func("/tensor/elementwise/add/string-concat", test_add_string_concat);
  g_test_add_func("/tensor/elementwise/add/incompatible-shapes", test_add_incompatible_shapes);
  g_test_add_func("/tensor/elementwise/strided/transposed-view", test_strided_transposed);
  g_test_add_func("/tensor/elementwise/strided/offset-view", test_strided_offset_view);
  g_test_add_func("/tensor/elementwise/errors/dtype-mismatch", test_dtype_mismatch);
  g_test_add_func("/tensor/elementwise/logical/rejects-non-bool", test_logical_rejects_non_bool);
  g_test_add_func("/tensor/elementwise/logical/broadcast", test_logical_broadcast);
  g_test_add_func("/tensor/elementwise/div/int-has-no-kernel", test_div_int_has_no_kernel);
  g_test_add_func("/tensor/elementwise/truediv/casts-ints", test_truediv_casts_ints);
  g_test_add_func("/tensor/elementwise/floordiv/int-division-by-zero", test_int_division_by_zero);
  g_test_add_func("/tensor/elementwise/pow/negative-int-exponent", test_pow_negative_int_exponent);
  g_test_add_func("/tensor/elementwise/string/equality", test_string_equality);
  g_test_add_func("/tensor/elementwise/string/identity-copies", test_string_identity);
  g_test_add_func("/tensor/elementwise/cast/every-pair", test_cast_every_pair);
  g_test_add_func("/tensor/elementwise/cast/float-to-int", test_cast_float_to_int);
  g_test_add_func("/tensor/elementwise/cast/int64-to-int32-wraps", test_cast_int64_to_int32_wraps);
  g_test_add_func("/tensor/elementwise/cast/strings", test_cast_strings);
  g_test_add_func("/tensor/elementwise/cast/strided", test_cast_strided);
  g_test_add_func("/tensor/elementwise/where/same-shape", test_where_same_shape);
  g_test_add_func("/tensor/elementwise/where/every-dtype", test_where_every_dtype);
  g_test_add_func("/tensor/elementwise/where/broadcast-three-way", test_where_broadcast_three_way);
  g_test_add_func("/tensor/elementwise/where/errors", test_where_errors);
  g_test_add_func("/tensor/elementwise/clip/scalar-bounds", test_clip_scalar_bounds);
  g_test_add_func("/tensor/elementwise/clip/broadcast-bounds", test_clip_broadcast_bounds);
  g_test_add_func("/tensor/elementwise/clip/errors", test_clip_errors);
  g_test_add_func("/tensor/elementwise/infer/binary-partial", test_infer_binary_partial);
  g_test_add_func("/tensor/elementwise/infer/unary-partial", test_infer_unary_partial);
  g_test_add_func("/tensor/elementwise/infer/select-partial", test_infer_select_partial);
  g_test_add_func("/tensor/elementwise/infer/clip-partial", test_infer_clip_partial);
  return g_test_run();
}
