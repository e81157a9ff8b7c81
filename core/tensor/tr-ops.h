/* tr-ops.h — the op table: every tensor op defined once, usable eagerly and by the graph layer.
 *
 * Each op has an inference function (output dtype and shape from input dtypes, shapes and,
 * when known, values) and a kernel that fills a preallocated contiguous output. Eager calls go
 * through tr_op_run(): infer, allocate, run (or make a view, for ops that can). The graph layer
 * (core/graph) builds nodes from the same table, inferring partial shapes while tracing and
 * running the kernels from its executor; it adds the gradient of each op by TrOpId.
 *
 * Static parameters (axes, perms, shapes, dtypes) are attributes; parameters that may be
 * symbolic in a graph (range bounds, slice bounds, fill values) are inputs.
 */
#pragma once

#include "tr-tensor.h"

G_BEGIN_DECLS

/* Every op: id, TensorFlow op type (as GraphDef shows it). */
#define TR_OP_LIST(X)                                                                              \
  /* elementwise binary, NumPy broadcasting */                                                     \
  X(ADD, "AddV2")                                                                                  \
  X(SUB, "Sub")                                                                                    \
  X(MUL, "Mul")                                                                                    \
  X(DIV, "RealDiv")                                                                                \
  X(FLOORDIV, "FloorDiv")                                                                          \
  X(MOD, "FloorMod")                                                                               \
  X(POW, "Pow")                                                                                    \
  X(MAXIMUM, "Maximum")                                                                            \
  X(MINIMUM, "Minimum")                                                                            \
  X(EQUAL, "Equal")                                                                                \
  X(NOT_EQUAL, "NotEqual")                                                                         \
  X(GREATER, "Greater")                                                                            \
  X(GREATER_EQUAL, "GreaterEqual")                                                                 \
  X(LESS, "Less")                                                                                  \
  X(LESS_EQUAL, "LessEqual")                                                                       \
  X(LOGICAL_AND, "LogicalAnd")                                                                     \
  X(LOGICAL_OR, "LogicalOr")                                                                       \
  /* real and imaginary parts (float, double) into complex64, complex128 */                        \
  X(COMPLEX, "Complex")                                                                            \
  /* elementwise unary */                                                                          \
  X(NEG, "Neg")                                                                                    \
  X(ABS, "Abs")                                                                                    \
  X(SQUARE, "Square")                                                                              \
  X(SQRT, "Sqrt")                                                                                  \
  X(EXP, "Exp")                                                                                    \
  X(LOG, "Log")                                                                                    \
  X(TANH, "Tanh")                                                                                  \
  X(SIGMOID, "Sigmoid")                                                                            \
  X(SIN, "Sin")                                                                                    \
  X(COS, "Cos")                                                                                    \
  X(RELU, "Relu")                                                                                  \
  X(RELU6, "Relu6")                                                                                \
  X(SOFTPLUS, "Softplus")                                                                          \
  X(LOGICAL_NOT, "LogicalNot")                                                                     \
  X(IDENTITY, "Identity")                                                                          \
  /* of complex64 and complex128 only; Real, Imag and Angle give the real dtype */                 \
  X(REAL, "Real")                                                                                  \
  X(IMAG, "Imag")                                                                                  \
  X(ANGLE, "Angle")                                                                                \
  X(CONJ, "Conj")                                                                                  \
  X(CAST, "Cast")                                                                                  \
  /* elementwise, more inputs */                                                                   \
  X(SELECT, "SelectV2")                                                                            \
  X(CLIP_BY_VALUE, "ClipByValue")                                                                  \
  /* reductions over attrs.axes (all axes when n_axes < 0) */                                      \
  X(SUM, "Sum")                                                                                    \
  X(MEAN, "Mean")                                                                                  \
  X(MAX, "Max")                                                                                    \
  X(MIN, "Min")                                                                                    \
  X(PROD, "Prod")                                                                                  \
  X(ALL, "All")                                                                                    \
  X(ANY, "Any")                                                                                    \
  X(ARGMAX, "ArgMax")                                                                              \
  X(ARGMIN, "ArgMin")                                                                              \
  X(SOFTMAX, "Softmax")                                                                            \
  /* sorting along attrs.axis, attrs.descending (tf.sort and tf.argsort) */                        \
  X(SORT, "Sort")                                                                                  \
  X(ARGSORT, "ArgSort")                                                                            \
  /* linear algebra */                                                                             \
  X(MATMUL, "MatMul")                                                                              \
  X(BATCH_MATMUL, "BatchMatMulV2")                                                                 \
  X(CONV2D, "Conv2D")                                                                              \
  /* shape and layout */                                                                           \
  X(TRANSPOSE, "Transpose")                                                                        \
  X(RESHAPE, "Reshape")                                                                            \
  X(CONCAT, "ConcatV2")                                                                            \
  X(STACK, "Pack")                                                                                 \
  X(SQUEEZE, "Squeeze")                                                                            \
  X(EXPAND_DIMS, "ExpandDims")                                                                     \
  X(GATHER, "GatherV2")                                                                            \
  X(ONE_HOT, "OneHot")                                                                             \
  X(STRIDED_SLICE, "StridedSlice")                                                                 \
  X(TILE, "Tile")                                                                                  \
  X(BROADCAST_TO, "BroadcastTo")                                                                   \
  X(REVERSE, "ReverseV2")                                                                          \
  /* creation */                                                                                   \
  X(RANGE, "Range")                                                                                \
  X(FILL, "Fill")                                                                                  \
  X(EYE, "Eye")                                                                                    \
  X(LINSPACE, "LinSpace")                                                                          \
  X(ZEROS_LIKE, "ZerosLike")                                                                       \
  X(ONES_LIKE, "OnesLike")                                                                         \
  X(RANDOM_UNIFORM, "RandomUniform")                                                               \
  X(RANDOM_NORMAL, "RandomStandardNormal")                                                         \
  X(STATELESS_RANDOM_UNIFORM, "StatelessRandomUniformV2")                                          \
  X(STATELESS_RANDOM_NORMAL, "StatelessRandomNormalV2")                                            \
  /* gradients (core/graph/grad.c emits them) */                                                   \
  X(CONV2D_BACKPROP_INPUT, "Conv2DBackpropInput")                                                  \
  X(CONV2D_BACKPROP_FILTER, "Conv2DBackpropFilter")                                                \
  X(STRIDED_SLICE_GRAD, "StridedSliceGrad")                                                        \
  /* an identity that gradients do not pass (tf.stop_gradient) */                                  \
  X(STOP_GRADIENT, "StopGradient")                                                                 \
  /* a tensor's shape, element count and rank as values (attrs.dtype: int32 or int64), for         \
   * graphs where they are known only at run time; eager code and known shapes make constants */   \
  X(SHAPE, "Shape")                                                                                \
  X(SIZE, "Size")                                                                                  \
  X(RANK, "Rank")                                                                                  \
  /* tf.where(condition): the int64 coordinates of the non-zero elements, [count, rank] */         \
  X(WHERE, "Where")                                                                                \
  /* strings (ops-strings.c): TensorFlow's string attrs are scalar string inputs here */           \
  X(STRING_LENGTH, "StringLength")                                                                 \
  X(STRING_UPPER, "StringUpper")                                                                   \
  X(STRING_LOWER, "StringLower")                                                                   \
  X(STRING_STRIP, "StringStrip")                                                                   \
  X(SUBSTR, "Substr")                                                                              \
  X(STRING_TO_NUMBER, "StringToNumber")                                                            \
  X(AS_STRING, "AsString")                                                                         \
  X(REGEX_FULL_MATCH, "RegexFullMatch")                                                            \
  X(REGEX_REPLACE, "RegexReplace")                                                                 \
  X(REDUCE_JOIN, "ReduceJoin")                                                                     \
  X(STRING_SPLIT, "StringSplitV2")

typedef enum {
#define TR_OP_ENUM(id, tf) TR_OP_##id,
  TR_OP_LIST(TR_OP_ENUM)
#undef TR_OP_ENUM
      TR_N_OPS
} TrOpId;

typedef enum {
  TR_PADDING_VALID,
  TR_PADDING_SAME,
} TrPadding;

/* Static parameters of one op application; each op reads the fields its comment names. */
typedef struct {
  int64_t axes[TR_MAX_RANK]; /* reductions, squeeze, reverse: axes; transpose: perm; reshape,
                              * broadcast_to: shape; tile: multiples; Conv2DBackprop*,
                              * StridedSliceGrad: the shape of the result */
  int n_axes;                /* count of axes; < 0 means "all axes" / "reverse" / unset */
  int64_t axis;              /* concat, stack, gather, one_hot, expand_dims, arg*, softmax, sort */
  bool descending;           /* sort, argsort: largest first */
  bool keepdims;             /* reductions */
  bool transpose_a;          /* matmul */
  bool transpose_b;          /* matmul */
  TrDType dtype;             /* cast, range, eye, fill, random, one_hot, arg* output */
  int64_t strides[2];        /* conv2d: height and width strides */
  TrPadding padding;         /* conv2d */
  int64_t depth;             /* one_hot */
  double on_value;           /* one_hot */
  double off_value;          /* one_hot */
  int64_t num_rows;          /* eye */
  int64_t num_columns;       /* eye; < 0 means num_rows */
  double minval;             /* random_uniform: low bound; random_normal: mean */
  double maxval;             /* random_uniform: high bound; random_normal: stddev */
  uint64_t seed;             /* random: op seed */
  uint64_t seed2;            /* random: graph seed */
  uint64_t counter;          /* random: how many times this seed pair has drawn before */
  uint32_t begin_mask;       /* strided_slice: bit i ignores begin[i] */
  uint32_t end_mask;         /* strided_slice: bit i ignores end[i] */
  uint32_t ellipsis_mask;    /* strided_slice: bit i is `...` */
  uint32_t new_axis_mask;    /* strided_slice: bit i is `tf.newaxis` */
  uint32_t shrink_axis_mask; /* strided_slice: bit i is an integer index */
  int str_mode;  /* strings: StringLength/Substr unit (0 BYTE, 1 UTF8_CHAR), StringSplitV2 kind */
  bool str_flag; /* strings: RegexReplace replace_global; StringSplitV2 gives its row_splits */
} TrAttrs;

/* Defaults: no axes given (n_axes = -1), dtype invalid, VALID padding, stride 1. */
void tr_attrs_init(TrAttrs *attrs);

/* What inference knows of one input: dtype, a possibly partial shape, and its value when it is
 * a constant or the op runs eagerly. */
typedef struct {
  TrDType dtype;         /* element type */
  TrShape shape;         /* possibly partial */
  const TrTensor *value; /* borrowed; NULL when unknown (symbolic) */
} TrTensorInfo;

/* Output dtype and (possibly partial) shape, or FALSE with a TR_ERROR. */
typedef bool (*TrOpInferFunc)(const TrTensorInfo *in, int n_in, const TrAttrs *attrs,
                              TrDType *dtype, TrShape *shape, GError **error);
/* Fill `out` (contiguous, of the inferred dtype and shape) from concrete inputs. Runtime errors
 * (an index out of range, integer division by zero) return FALSE with a TR_ERROR. */
typedef bool (*TrOpKernelFunc)(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out,
                               GError **error);
/* Optional: the output as a view of in[0], when the op only changes geometry; NULL when this
 * input's layout allows no view (the kernel then copies). Transfer full. */
typedef TrTensor *(*TrOpViewFunc)(TrTensor *const *in, int n_in, const TrAttrs *attrs,
                                  const TrShape *out_shape);

typedef enum {
  TR_OP_FLAG_ELEMENTWISE = 1 << 0, /* output[i] depends only on inputs[i] (after broadcasting) */
  TR_OP_FLAG_STATEFUL = 1 << 1,    /* must not be folded, merged or reordered */
  TR_OP_FLAG_COMMUTATIVE = 1 << 2, /* binary, inputs may swap */
} TrOpFlags;

typedef struct {
  const char *type;      /* TensorFlow op type: "AddV2" */
  const char *name;      /* default node name: "add" */
  int n_inputs;          /* fixed arity, or -1 for any number >= 1 (ConcatV2, Pack) */
  unsigned flags;        /* TrOpFlags */
  TrOpInferFunc infer;   /* required */
  TrOpKernelFunc kernel; /* required */
  TrOpViewFunc view;     /* optional */
} TrOpDef;

/* The definition of an op. Borrowed, static. */
const TrOpDef *tr_op_def(TrOpId op);
/* The op with TensorFlow type `type`, or -1. */
int tr_op_lookup(const char *type);

/* Infer an op's output from inputs described by `in`. */
bool tr_op_infer(TrOpId op, const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,
                 TrShape *shape, GError **error);
/* Run an op eagerly on concrete inputs. `attrs` may be NULL for defaults. Transfer full, or NULL
 * with `error` set. */
TrTensor *tr_op_run(TrOpId op, TrTensor *const *in, int n_in, const TrAttrs *attrs, GError **error);

/* Convenience wrappers over tr_op_run. All return transfer full, or NULL with `error` set. */
TrTensor *tr_unary(TrOpId op, TrTensor *x, GError **error);
TrTensor *tr_binary(TrOpId op, TrTensor *a, TrTensor *b, GError **error);
/* Python's `/`: integers are cast to float64 first (TensorFlow's truediv). */
TrTensor *tr_truediv(TrTensor *a, TrTensor *b, GError **error);
TrTensor *tr_reduce(TrOpId op, TrTensor *x, const int64_t *axes, int n_axes, bool keepdims,
                    GError **error);
TrTensor *tr_arg_reduce(TrOpId op, TrTensor *x, int64_t axis, TrDType out_dtype, GError **error);
TrTensor *tr_softmax(TrTensor *x, int64_t axis, GError **error);
TrTensor *tr_matmul(TrTensor *a, TrTensor *b, bool transpose_a, bool transpose_b, GError **error);
TrTensor *tr_conv2d(TrTensor *input, TrTensor *filters, const int64_t strides[2], TrPadding padding,
                    GError **error);
TrTensor *tr_transpose(TrTensor *x, const int64_t *perm, int n_perm, GError **error);
TrTensor *tr_reshape(TrTensor *x, const int64_t *shape, int rank, GError **error);
TrTensor *tr_concat(TrTensor *const *xs, int n, int64_t axis, GError **error);
TrTensor *tr_stack(TrTensor *const *xs, int n, int64_t axis, GError **error);
TrTensor *tr_squeeze(TrTensor *x, const int64_t *axes, int n_axes, GError **error);
TrTensor *tr_expand_dims(TrTensor *x, int64_t axis, GError **error);
TrTensor *tr_gather(TrTensor *params, TrTensor *indices, int64_t axis, GError **error);
TrTensor *tr_one_hot(TrTensor *indices, int64_t depth, double on_value, double off_value,
                     int64_t axis, TrDType dtype, GError **error);
TrTensor *tr_where(TrTensor *cond, TrTensor *x, TrTensor *y, GError **error);
TrTensor *tr_cast(TrTensor *x, TrDType dtype, GError **error);
TrTensor *tr_clip_by_value(TrTensor *x, TrTensor *lo, TrTensor *hi, GError **error);
/* NumPy-style basic indexing in StridedSlice form; begin/end/strides have n entries. */
TrTensor *tr_strided_slice(TrTensor *x, const int64_t *begin, const int64_t *end,
                           const int64_t *strides, int n, const TrAttrs *masks, GError **error);
TrTensor *tr_range(TrTensor *start, TrTensor *limit, TrTensor *delta, GError **error);
TrTensor *tr_fill(const TrShape *shape, TrTensor *value, GError **error);
TrTensor *tr_eye(int64_t num_rows, int64_t num_columns, TrDType dtype, GError **error);
TrTensor *tr_linspace(TrTensor *start, TrTensor *stop, TrTensor *num, GError **error);
TrTensor *tr_random_uniform(const TrShape *shape, TrDType dtype, double minval, double maxval,
                            uint64_t seed, uint64_t seed2, uint64_t counter, GError **error);
TrTensor *tr_random_normal(const TrShape *shape, TrDType dtype, double mean, double stddev,
                           uint64_t seed, uint64_t seed2, uint64_t counter, GError **error);

/* For benchmarks and diagnostics: the kernel the calling thread's last MatMul, Conv2D or
 * Conv2D gradient ran ("oneDNN brgconv:avx512_core", "OpenBLAS sgemm", "shifted GEMM", ...;
 * "" before any), valid until the thread's next such op; and the compute libraries in use
 * ("OpenBLAS 0.3.21 Cooperlake; oneDNN 2.6.3 avx512_core_bf16: float32 Conv2D and SGEMM").
 * Both transfer none. */
const char *tr_last_kernel(void);
const char *tr_compute_description(void);

G_END_DECLS
