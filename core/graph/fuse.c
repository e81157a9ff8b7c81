/* fuse.c — elementwise fusion: a tree of elementwise ops runs as one loop over the elements
 * (see fuse-private.h for the fused node).
 *
 * Why: a traced chain such as `for _ in range(1000): x = tf.tanh(x * 0.5 + 0.1)` unrolls into
 * thousands of small nodes; run one by one, each pays a step of the executor and a pass over
 * memory. Fused, the whole chain is one step whose instructions run over a block of elements
 * that stays in cache.
 *
 * Grouping: nodes are visited youngest first. A fusable node (an op and dtype of the table
 * below, pure, without control edges) joins the group of its consumers when they all belong to
 * one group whose dtype and static shape it has; otherwise it roots a group of its own. Only a
 * root then has consumers outside its group, so no path leaves a group and comes back into it:
 * replacing the group by one node at the root's place (the group's youngest node) keeps the
 * graph acyclic and insertion order topological.
 *
 * Programs: the members, in id order, become instructions `dst = op(a, b, c)` whose operands are
 * the group's inputs, registers (one block of temporaries each) or the output. A register is
 * recycled once its last reader has been emitted, so a chain of any length needs one.
 *
 * Running: the output is computed in blocks of FUSED_BLOCK elements. Per block, an input is
 * read in place with stride 1 (contiguous and full-size) or 0 (a single element), or gathered
 * into a block buffer (broadcast dims, strided views); then every instruction runs over the
 * block. Each op's scalar function computes exactly what core/tensor's kernel for that op and
 * dtype computes (same C expression in the same type), so the results are bitwise those of the
 * unfused ops: every op combines elements of the same index only, and applying an op to
 * broadcast operands equals broadcasting its result. The ops that can fail at run time (integer
 * division and powers) are not fused, so a fused kernel never fails once its shape is known.
 */
#include "fuse-private.h"

#include <math.h>
#include <string.h>

/* ---- scalar functions ------------------------------------------------------------------------
 * The same expressions as core/tensor's elementwise kernels, op for op and dtype for dtype. */

/* Floats; FN is the <math.h> suffix. Maximum and minimum propagate NaN; FloorMod takes the
 * divisor's sign, as Python does. */
#define FZ_FLOAT_FUNCS(SUF, T, FN)                                                                 \
  static inline T fz_add_##SUF(T a, T b)                                                           \
  {                                                                                                \
    return a + b;                                                                                  \
  }                                                                                                \
  static inline T fz_sub_##SUF(T a, T b)                                                           \
  {                                                                                                \
    return a - b;                                                                                  \
  }                                                                                                \
  static inline T fz_mul_##SUF(T a, T b)                                                           \
  {                                                                                                \
    return a * b;                                                                                  \
  }                                                                                                \
  static inline T fz_div_##SUF(T a, T b)                                                           \
  {                                                                                                \
    return a / b;                                                                                  \
  }                                                                                                \
  static inline T fz_floordiv_##SUF(T a, T b)                                                      \
  {                                                                                                \
    return floor##FN(a / b);                                                                       \
  }                                                                                                \
  static inline T fz_mod_##SUF(T a, T b)                                                           \
  {                                                                                                \
    T r = fmod##FN(a, b);                                                                          \
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;                                           \
  }                                                                                                \
  static inline T fz_pow_##SUF(T a, T b)                                                           \
  {                                                                                                \
    return pow##FN(a, b);                                                                          \
  }                                                                                                \
  static inline T fz_maximum_##SUF(T a, T b)                                                       \
  {                                                                                                \
    T m = a < b ? b : a;                                                                           \
    m = b != b ? b : m;                                                                            \
    return a != a ? a : m;                                                                         \
  }                                                                                                \
  static inline T fz_minimum_##SUF(T a, T b)                                                       \
  {                                                                                                \
    T m = b < a ? b : a;                                                                           \
    m = b != b ? b : m;                                                                            \
    return a != a ? a : m;                                                                         \
  }                                                                                                \
  static inline T fz_neg_##SUF(T a)                                                                \
  {                                                                                                \
    return -a;                                                                                     \
  }                                                                                                \
  static inline T fz_abs_##SUF(T a)                                                                \
  {                                                                                                \
    return fabs##FN(a);                                                                            \
  }                                                                                                \
  static inline T fz_square_##SUF(T a)                                                             \
  {                                                                                                \
    return a * a;                                                                                  \
  }                                                                                                \
  static inline T fz_sqrt_##SUF(T a)                                                               \
  {                                                                                                \
    return sqrt##FN(a);                                                                            \
  }                                                                                                \
  static inline T fz_exp_##SUF(T a)                                                                \
  {                                                                                                \
    return exp##FN(a);                                                                             \
  }                                                                                                \
  static inline T fz_log_##SUF(T a)                                                                \
  {                                                                                                \
    return log##FN(a);                                                                             \
  }                                                                                                \
  static inline T fz_tanh_##SUF(T a)                                                               \
  {                                                                                                \
    return tanh##FN(a);                                                                            \
  }                                                                                                \
  static inline T fz_sigmoid_##SUF(T a)                                                            \
  {                                                                                                \
    return 1 / (1 + exp##FN(-a));                                                                  \
  }                                                                                                \
  static inline T fz_sin_##SUF(T a)                                                                \
  {                                                                                                \
    return sin##FN(a);                                                                             \
  }                                                                                                \
  static inline T fz_cos_##SUF(T a)                                                                \
  {                                                                                                \
    return cos##FN(a);                                                                             \
  }                                                                                                \
  static inline T fz_relu_##SUF(T a)                                                               \
  {                                                                                                \
    return a < 0 ? 0 : a;                                                                          \
  }

/* Integers wrap on overflow, computed in the unsigned type U. */
#define FZ_INT_FUNCS(SUF, T, U)                                                                    \
  static inline T fz_add_##SUF(T a, T b)                                                           \
  {                                                                                                \
    return (T)((U)a + (U)b);                                                                       \
  }                                                                                                \
  static inline T fz_sub_##SUF(T a, T b)                                                           \
  {                                                                                                \
    return (T)((U)a - (U)b);                                                                       \
  }                                                                                                \
  static inline T fz_mul_##SUF(T a, T b)                                                           \
  {                                                                                                \
    return (T)((U)a * (U)b);                                                                       \
  }                                                                                                \
  static inline T fz_maximum_##SUF(T a, T b)                                                       \
  {                                                                                                \
    return a < b ? b : a;                                                                          \
  }                                                                                                \
  static inline T fz_minimum_##SUF(T a, T b)                                                       \
  {                                                                                                \
    return b < a ? b : a;                                                                          \
  }                                                                                                \
  static inline T fz_neg_##SUF(T a)                                                                \
  {                                                                                                \
    return (T)(0 - (U)a);                                                                          \
  }                                                                                                \
  static inline T fz_abs_##SUF(T a)                                                                \
  {                                                                                                \
    return a < 0 ? (T)(0 - (U)a) : a;                                                              \
  }                                                                                                \
  static inline T fz_square_##SUF(T a)                                                             \
  {                                                                                                \
    return (T)((U)a * (U)a);                                                                       \
  }                                                                                                \
  static inline T fz_relu_##SUF(T a)                                                               \
  {                                                                                                \
    return a < 0 ? 0 : a;                                                                          \
  }

FZ_FLOAT_FUNCS(f32, float, f)
FZ_FLOAT_FUNCS(f64, double, )
FZ_INT_FUNCS(i32, int32_t, uint32_t)
FZ_INT_FUNCS(i64, int64_t, uint64_t)

/* ClipByValue is min then max, as tf.clip_by_value computes it. */
#define FZ_CLIP_FUNC(SUF, T)                                                                       \
  static inline T fz_clip_##SUF(T x, T lo, T hi)                                                   \
  {                                                                                                \
    return fz_maximum_##SUF(fz_minimum_##SUF(x, hi), lo);                                          \
  }
FZ_CLIP_FUNC(f32, float)
FZ_CLIP_FUNC(f64, double)
FZ_CLIP_FUNC(i32, int32_t)
FZ_CLIP_FUNC(i64, int64_t)

/* ---- block functions -------------------------------------------------------------------------
 * One instruction over one block: out[i] = f(src0[i * s0], ...) for i < n, where every stride
 * is 1 or 0 (a single element). `out` may be one of the sources (a recycled register): element i
 * is read before it is written. */
typedef void (*FusedFn)(void *out, const void *const *src, const int64_t *stride, int64_t n);

/* Vector versions of a block function: the arithmetic ops (one IEEE operation, or compares and
 * selects, per element) are compiled three times, for baseline x86-64 (SSE2), AVX2 and AVX-512,
 * and the loader picks the widest the CPU has (an ifunc). Vector lanes compute exactly what the
 * scalar expression computes, so results stay bitwise those of core/tensor's kernels;
 * fp-contract=off keeps the compiler from fusing a multiply and an add into one FMA (no block
 * function has both, but the guarantee should not rest on that). The cost model "dynamic" lets
 * the loops vectorize with a scalar tail: -O2's "very cheap" model refuses a length not known to
 * be a multiple of the vector width. Ops that call libm (exp, tanh, ...) gain nothing from it
 * and are compiled once (FZ_SCALAR). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define FZ_VECTOR                                                                                  \
  __attribute__((target_clones("default", "avx2", "avx512f"),                                      \
                 optimize("vect-cost-model=dynamic", "fp-contract=off")))
#else
#define FZ_VECTOR
#endif
#define FZ_SCALAR

/* `o` may be `x` or `y` (a recycled register), but only at the same index, which a vector loop
 * reads before it writes: ivdep says that no other dependence links iterations. */
#define FZ_UNARY_FN(ATTR, name, T, f)                                                              \
  ATTR static void name(void *out, const void *const *src, const int64_t *stride, int64_t n)       \
  {                                                                                                \
    T *o = out;                                                                                    \
    const T *x = src[0];                                                                           \
    if (stride[0] == 0) {                                                                          \
      T v = f(x[0]);                                                                               \
      for (int64_t i = 0; i < n; i++)                                                              \
        o[i] = v;                                                                                  \
      return;                                                                                      \
    }                                                                                              \
    _Pragma("GCC ivdep") for (int64_t i = 0; i < n; i++) o[i] = f(x[i]);                           \
  }

#define FZ_BINARY_FN(ATTR, name, T, f)                                                             \
  ATTR static void name(void *out, const void *const *src, const int64_t *stride, int64_t n)       \
  {                                                                                                \
    T *o = out;                                                                                    \
    const T *x = src[0], *y = src[1];                                                              \
    if (stride[0] && stride[1]) {                                                                  \
      _Pragma("GCC ivdep") for (int64_t i = 0; i < n; i++) o[i] = f(x[i], y[i]);                   \
    } else if (stride[0]) {                                                                        \
      T b = y[0];                                                                                  \
      _Pragma("GCC ivdep") for (int64_t i = 0; i < n; i++) o[i] = f(x[i], b);                      \
    } else if (stride[1]) {                                                                        \
      T a = x[0];                                                                                  \
      _Pragma("GCC ivdep") for (int64_t i = 0; i < n; i++) o[i] = f(a, y[i]);                      \
    } else {                                                                                       \
      T v = f(x[0], y[0]);                                                                         \
      for (int64_t i = 0; i < n; i++)                                                              \
        o[i] = v;                                                                                  \
    }                                                                                              \
  }

#define FZ_TERNARY_FN(ATTR, name, T, f)                                                            \
  ATTR static void name(void *out, const void *const *src, const int64_t *stride, int64_t n)       \
  {                                                                                                \
    T *o = out;                                                                                    \
    const T *x = src[0], *y = src[1], *z = src[2];                                                 \
    for (int64_t i = 0; i < n; i++)                                                                \
      o[i] = f(x[i * stride[0]], y[i * stride[1]], z[i * stride[2]]);                              \
  }

/* Ops every numeric dtype has. */
#define FZ_NUMERIC_FNS(SUF, T)                                                                     \
  FZ_BINARY_FN(FZ_VECTOR, fz_row_add_##SUF, T, fz_add_##SUF)                                       \
  FZ_BINARY_FN(FZ_VECTOR, fz_row_sub_##SUF, T, fz_sub_##SUF)                                       \
  FZ_BINARY_FN(FZ_VECTOR, fz_row_mul_##SUF, T, fz_mul_##SUF)                                       \
  FZ_BINARY_FN(FZ_VECTOR, fz_row_maximum_##SUF, T, fz_maximum_##SUF)                               \
  FZ_BINARY_FN(FZ_VECTOR, fz_row_minimum_##SUF, T, fz_minimum_##SUF)                               \
  FZ_UNARY_FN(FZ_VECTOR, fz_row_neg_##SUF, T, fz_neg_##SUF)                                        \
  FZ_UNARY_FN(FZ_VECTOR, fz_row_abs_##SUF, T, fz_abs_##SUF)                                        \
  FZ_UNARY_FN(FZ_VECTOR, fz_row_square_##SUF, T, fz_square_##SUF)                                  \
  FZ_UNARY_FN(FZ_VECTOR, fz_row_relu_##SUF, T, fz_relu_##SUF)                                      \
  FZ_TERNARY_FN(FZ_SCALAR, fz_row_clip_##SUF, T, fz_clip_##SUF)

/* Ops of floats only (the integer ones can fail, or have no kernel). */
#define FZ_FLOAT_FNS(SUF, T)                                                                       \
  FZ_BINARY_FN(FZ_VECTOR, fz_row_div_##SUF, T, fz_div_##SUF)                                       \
  FZ_BINARY_FN(FZ_SCALAR, fz_row_floordiv_##SUF, T, fz_floordiv_##SUF)                             \
  FZ_BINARY_FN(FZ_SCALAR, fz_row_mod_##SUF, T, fz_mod_##SUF)                                       \
  FZ_BINARY_FN(FZ_SCALAR, fz_row_pow_##SUF, T, fz_pow_##SUF)                                       \
  FZ_UNARY_FN(FZ_SCALAR, fz_row_sqrt_##SUF, T, fz_sqrt_##SUF)                                      \
  FZ_UNARY_FN(FZ_SCALAR, fz_row_exp_##SUF, T, fz_exp_##SUF)                                        \
  FZ_UNARY_FN(FZ_SCALAR, fz_row_log_##SUF, T, fz_log_##SUF)                                        \
  FZ_UNARY_FN(FZ_SCALAR, fz_row_tanh_##SUF, T, fz_tanh_##SUF)                                      \
  FZ_UNARY_FN(FZ_SCALAR, fz_row_sigmoid_##SUF, T, fz_sigmoid_##SUF)                                \
  FZ_UNARY_FN(FZ_SCALAR, fz_row_sin_##SUF, T, fz_sin_##SUF)                                        \
  FZ_UNARY_FN(FZ_SCALAR, fz_row_cos_##SUF, T, fz_cos_##SUF)

FZ_NUMERIC_FNS(f32, float)
FZ_NUMERIC_FNS(f64, double)
FZ_NUMERIC_FNS(i32, int32_t)
FZ_NUMERIC_FNS(i64, int64_t)
FZ_FLOAT_FNS(f32, float)
FZ_FLOAT_FNS(f64, double)

/* The dtypes fusion handles are the first four: float32, float64, int32, int64. */
G_STATIC_ASSERT(TR_FLOAT32 == 0 && TR_FLOAT64 == 1 && TR_INT32 == 2 && TR_INT64 == 3);
#define FZ_N_DTYPES (TR_INT64 + 1)

#define FZ_FLOAT(op)                                                                               \
  {                                                                                                \
    [TR_FLOAT32] = fz_row_##op##_f32, [TR_FLOAT64] = fz_row_##op##_f64                             \
  }
#define FZ_ALL(op)                                                                                 \
  {                                                                                                \
    [TR_FLOAT32] = fz_row_##op##_f32, [TR_FLOAT64] = fz_row_##op##_f64,                            \
    [TR_INT32] = fz_row_##op##_i32, [TR_INT64] = fz_row_##op##_i64,                                \
  }

/* What may be fused: [op][dtype]; NULL entries are not fused. */
static const FusedFn fused_fns[TR_N_OPS][FZ_N_DTYPES] = {
    [TR_OP_ADD] = FZ_ALL(add),
    [TR_OP_SUB] = FZ_ALL(sub),
    [TR_OP_MUL] = FZ_ALL(mul),
    [TR_OP_DIV] = FZ_FLOAT(div),
    [TR_OP_FLOORDIV] = FZ_FLOAT(floordiv),
    [TR_OP_MOD] = FZ_FLOAT(mod),
    [TR_OP_POW] = FZ_FLOAT(pow),
    [TR_OP_MAXIMUM] = FZ_ALL(maximum),
    [TR_OP_MINIMUM] = FZ_ALL(minimum),
    [TR_OP_NEG] = FZ_ALL(neg),
    [TR_OP_ABS] = FZ_ALL(abs),
    [TR_OP_SQUARE] = FZ_ALL(square),
    [TR_OP_SQRT] = FZ_FLOAT(sqrt),
    [TR_OP_EXP] = FZ_FLOAT(exp),
    [TR_OP_LOG] = FZ_FLOAT(log),
    [TR_OP_TANH] = FZ_FLOAT(tanh),
    [TR_OP_SIGMOID] = FZ_FLOAT(sigmoid),
    [TR_OP_SIN] = FZ_FLOAT(sin),
    [TR_OP_COS] = FZ_FLOAT(cos),
    [TR_OP_RELU] = FZ_ALL(relu),
    [TR_OP_CLIP_BY_VALUE] = FZ_ALL(clip),
};

static FusedFn
fused_fn(int op, TrDType dtype)
{
  if (op < 0 || op >= TR_N_OPS || dtype < 0 || dtype >= FZ_N_DTYPES)
    return NULL;
  return fused_fns[op][dtype];
}

/* ---- programs ----------------------------------------------------------------------------------
 * int32 words: a header, then FZ_INSTR_WORDS per instruction. Operand numbers: 0 .. n_inputs-1
 * are the inputs, n_inputs + r is register r; a destination of FZ_OUT is the output. */

enum {
  FZ_MAGIC = 0x46555345, /* "FUSE": a program's first word */
  FZ_HEADER_WORDS = 4,   /* magic, n_inputs, n_regs, n_instrs */
  FZ_INSTR_WORDS = 5,    /* op, dst, a, b, c */
  FZ_OUT = -1,           /* destination: the output */
  FZ_MAX_ARITY = 3,      /* ClipByValue */
};

/* Whether a node may be part of a fused group at all. */
static bool
fusable(const TrNode *node)
{
  if (tr_op_is_graph_level(node->op) || node->stateful || node->n_control > 0 ||
      node->n_outputs != 1 || node->n_children > 0)
    return false;
  const TrOpDef *def = tr_op_def(node->op);
  if (!(def->flags & TR_OP_FLAG_ELEMENTWISE) || (def->flags & TR_OP_FLAG_STATEFUL))
    return false;
  if (!fused_fn(node->op, node->dtypes[0]) || node->shapes[0].rank == TR_UNKNOWN)
    return false;
  if (node->n_inputs != def->n_inputs || node->n_inputs > FZ_MAX_ARITY)
    return false;
  for (int i = 0; i < node->n_inputs; i++) {
    TrOutput in = node->inputs[i];
    if (tr_output_dtype(in) != node->dtypes[0] || tr_output_shape(in)->rank == TR_UNKNOWN)
      return false;
  }
  return true;
}

/* Data consumers of every live node, as one array sliced by node id (CSR). */
typedef struct {
  int *start;    /* per node id: first index in `list`; start[n] ends the last slice */
  TrNode **list; /* consumers (a node reading twice appears twice) */
  bool *control; /* per node id: some live node has it as a control input */
} Consumers;

static void
consumers_init(Consumers *c, const TrGraph *g, const bool *live)
{
  int n = tr_graph_n_nodes(g);
  c->start = g_new0(int, n + 1);
  c->control = g_new0(bool, MAX(n, 1));
  for (int i = 0; i < n; i++) {
    TrNode *node = tr_graph_node(g, i);
    if (!live[i])
      continue;
    for (int k = 0; k < node->n_inputs; k++)
      c->start[node->inputs[k].node->id + 1]++;
    for (int k = 0; k < node->n_control; k++)
      c->control[node->control[k]->id] = true;
  }
  for (int i = 0; i < n; i++)
    c->start[i + 1] += c->start[i];
  c->list = g_new(TrNode *, MAX(c->start[n], 1));
  g_autofree int *fill = g_memdup2(c->start, sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++) {
    TrNode *node = tr_graph_node(g, i);
    if (!live[i])
      continue;
    for (int k = 0; k < node->n_inputs; k++)
      c->list[fill[node->inputs[k].node->id]++] = node;
  }
}

static void
consumers_clear(Consumers *c)
{
  g_free(c->start);
  g_free(c->list);
  g_free(c->control);
}

/* The group all of a node's consumers belong to, or -1 when they are in several, in none, or
 * the node's value is needed elsewhere (a control edge, another output than 0). */
static int
consumers_group(const Consumers *c, const TrNode *node, const int *group)
{
  int first = c->start[node->id], end = c->start[node->id + 1];
  if (first == end || c->control[node->id])
    return -1;
  int gid = group[c->list[first]->id];
  for (int k = first; k < end && gid >= 0; k++) {
    const TrNode *user = c->list[k];
    if (group[user->id] != gid)
      return -1;
    for (int i = 0; i < user->n_inputs; i++)
      if (user->inputs[i].node == node && user->inputs[i].index != 0)
        return -1;
  }
  return gid;
}

/* Builds one group's program. Arrays are indexed by node id and shared by all groups. */
typedef struct {
  const int *group;  /* per node id: the root id of its group, or -1 */
  int *uses_left;    /* per member: reads of its result not yet emitted */
  int *reg_of;       /* per member: the register holding its result */
  int *input_of;     /* per node id: 1 + its output 0's input number in the current group */
  int *input_stamp;  /* per node id: root id + 1 when input_of is for that group */
  GArray *inputs;    /* TrOutput: the current group's inputs */
  GArray *words;     /* int32: the current group's program */
  GArray *free_regs; /* int: registers free for reuse */
  int n_regs;        /* registers used by the current group */
} Builder;

static bool
is_member(const Builder *b, TrOutput out, int root)
{
  return b->group[out.node->id] == root && out.index == 0;
}

/* The input number of an outside value, adding it on first use. Output 0 of a node (nearly
 * every input) is found again by node id; other outputs are simply added again. */
static int
input_number(Builder *b, TrOutput out, int root)
{
  int id = out.node->id;
  if (out.index == 0 && b->input_stamp[id] == root + 1)
    return b->input_of[id] - 1;
  g_array_append_val(b->inputs, out);
  int number = (int)b->inputs->len - 1;
  if (out.index == 0) {
    b->input_stamp[id] = root + 1;
    b->input_of[id] = number + 1;
  }
  return number;
}

static int
take_register(Builder *b)
{
  if (b->free_regs->len == 0)
    return b->n_regs++;
  int r = g_array_index(b->free_regs, int, b->free_regs->len - 1);
  g_array_set_size(b->free_regs, b->free_regs->len - 1);
  return r;
}

static void
emit_instruction(Builder *b, const TrNode *node, int root, int n_inputs)
{
  int32_t w[FZ_INSTR_WORDS] = {node->op, 0, 0, 0, 0};
  for (int i = 0; i < node->n_inputs; i++) {
    TrOutput in = node->inputs[i];
    w[2 + i] =
        is_member(b, in, root) ? n_inputs + b->reg_of[in.node->id] : input_number(b, in, root);
  }
  /* Registers whose last reader this is are free again, possibly for this very result. */
  for (int i = 0; i < node->n_inputs; i++) {
    TrOutput in = node->inputs[i];
    if (is_member(b, in, root) && --b->uses_left[in.node->id] == 0)
      g_array_append_val(b->free_regs, b->reg_of[in.node->id]);
  }
  if (node->id == root) {
    w[1] = FZ_OUT;
  } else {
    b->reg_of[node->id] = take_register(b);
    w[1] = n_inputs + b->reg_of[node->id];
  }
  g_array_append_vals(b->words, w, FZ_INSTR_WORDS);
}

/* The program of a group (`members` in id order, the root last); b->inputs receives its
 * inputs. Transfer full. */
static TrTensor *
build_program(Builder *b, TrNode *const *members, int n_members)
{
  int root = members[n_members - 1]->id;
  g_array_set_size(b->inputs, 0);
  g_array_set_size(b->words, FZ_HEADER_WORDS);
  g_array_set_size(b->free_regs, 0);
  b->n_regs = 0;
  /* Inputs first, so that register operand numbers (after the inputs) are known. */
  for (int m = 0; m < n_members; m++) {
    const TrNode *node = members[m];
    for (int i = 0; i < node->n_inputs; i++) {
      TrOutput in = node->inputs[i];
      if (is_member(b, in, root))
        b->uses_left[in.node->id]++;
      else
        input_number(b, in, root);
    }
  }
  int n_inputs = (int)b->inputs->len;
  for (int m = 0; m < n_members; m++)
    emit_instruction(b, members[m], root, n_inputs);
  int32_t *w = (int32_t *)(void *)b->words->data;
  w[0] = FZ_MAGIC;
  w[1] = n_inputs;
  w[2] = b->n_regs;
  w[3] = n_members;
  int64_t n_words = b->words->len;
  TrShape shape = tr_shape_make(1, &n_words);
  return tr_tensor_new_from_data(TR_INT32, &shape, w);
}

/* The root becomes the fused node, in place: same name, id and output. */
static void
make_fused(TrGraph *g, TrNode *root, TrTensor *program, GArray *inputs)
{
  root->op = TR_GOP_FUSED;
  root->type = tr_gop_def(TR_GOP_FUSED)->type;
  root->attrs = NULL;
  root->n_inputs = (int)inputs->len;
  root->inputs = tr_arena_new(&g->arena, TrOutput, MAX(root->n_inputs, 1));
  memcpy(root->inputs, inputs->data, sizeof(TrOutput) * inputs->len);
  root->value = program;
}

/* Per node id, the root id of its group, or -1; `size` counts each root's members. */
static void
assign_groups(const TrGraph *g, const bool *live, const Consumers *c, int *group, int *size)
{
  for (int i = tr_graph_n_nodes(g) - 1; i >= 0; i--) {
    group[i] = -1;
    TrNode *node = tr_graph_node(g, i);
    if (!live[i] || !fusable(node))
      continue;
    int gid = consumers_group(c, node, group);
    const TrNode *root = gid >= 0 ? tr_graph_node(g, gid) : NULL;
    if (root && root->dtypes[0] == node->dtypes[0] &&
        tr_shape_equal(&root->shapes[0], &node->shapes[0])) {
      group[i] = gid;
      size[gid]++;
    } else {
      group[i] = i;
      size[i] = 1;
    }
  }
}

int
tr_graph_fuse_elementwise(TrGraph *g)
{
  g_return_val_if_fail(g != NULL, 0);
  int n = tr_graph_n_nodes(g);
  g_autofree bool *live = tr_graph_live_set(g);
  Consumers c;
  consumers_init(&c, g, live);
  g_autofree int *group = g_new(int, MAX(n, 1));
  g_autofree int *size = g_new0(int, MAX(n, 1));
  assign_groups(g, live, &c, group, size);
  consumers_clear(&c);

  /* Members of each group in id order, as linked lists through `next`. */
  g_autofree int *next = g_new(int, MAX(n, 1));
  g_autofree int *head = g_new(int, MAX(n, 1));
  g_autofree int *tail = g_new(int, MAX(n, 1));
  for (int i = 0; i < n; i++)
    next[i] = head[i] = -1;
  for (int i = 0; i < n; i++) {
    int gid = group[i];
    if (gid < 0 || size[gid] < 2)
      continue;
    if (head[gid] < 0)
      head[gid] = i;
    else
      next[tail[gid]] = i;
    tail[gid] = i;
  }

  g_autofree int *uses_left = g_new0(int, MAX(n, 1));
  g_autofree int *reg_of = g_new0(int, MAX(n, 1));
  g_autofree int *input_of = g_new0(int, MAX(n, 1));
  g_autofree int *input_stamp = g_new0(int, MAX(n, 1));
  Builder b = {group,
               uses_left,
               reg_of,
               input_of,
               input_stamp,
               g_array_new(FALSE, FALSE, sizeof(TrOutput)),
               g_array_new(FALSE, FALSE, sizeof(int32_t)),
               g_array_new(FALSE, FALSE, sizeof(int)),
               0};
  g_autoptr(GPtrArray) members = g_ptr_array_new();
  int fused = 0;
  for (int r = 0; r < n; r++) {
    if (group[r] != r || size[r] < 2)
      continue;
    g_ptr_array_set_size(members, 0);
    for (int i = head[r]; i >= 0; i = next[i])
      g_ptr_array_add(members, tr_graph_node(g, i));
    TrTensor *program = build_program(&b, (TrNode *const *)members->pdata, (int)members->len);
    make_fused(g, tr_graph_node(g, r), program, b.inputs);
    fused += (int)members->len - 1;
  }
  g_array_free(b.inputs, TRUE);
  g_array_free(b.words, TRUE);
  g_array_free(b.free_regs, TRUE);
  return fused;
}

/* ---- fused nodes built from others (inlining) --------------------------------------------- */

/* Static broadcast of the inputs' shapes: a dim is known when an input has it known and not 1
 * (or all have it 1); unknown ranks give an unknown shape. FALSE on a conflict. */
static bool
broadcast_static(const TrOutput *inputs, int n, TrShape *shape)
{
  shape->rank = 0;
  for (int i = 0; i < n; i++) {
    const TrShape *s = tr_output_shape(inputs[i]);
    if (s->rank == TR_UNKNOWN) {
      *shape = tr_shape_unknown();
      return true;
    }
    shape->rank = MAX(shape->rank, s->rank);
  }
  for (int d = 0; d < shape->rank; d++)
    shape->dims[d] = 1;
  for (int i = 0; i < n; i++) {
    const TrShape *s = tr_output_shape(inputs[i]);
    for (int k = 0; k < s->rank; k++) {
      int64_t *out = &shape->dims[shape->rank - s->rank + k];
      int64_t dim = s->dims[k];
      if (dim == 1 || dim == *out || (dim == TR_UNKNOWN && *out != 1))
        continue; /* an unknown dim against a known one > 1: that one, or an error later */
      if (*out == 1 || *out == TR_UNKNOWN)
        *out = dim;
      else
        return false;
    }
  }
  return true;
}

TrNode *
tr_graph_add_fused_like(TrGraph *g, const TrNode *like, const TrOutput *inputs, const char *name,
                        GError **error)
{
  g_return_val_if_fail(g != NULL && like != NULL && like->op == TR_GOP_FUSED, NULL);
  int n = like->n_inputs;
  if (!tr_graph_check_inputs(g, inputs, n, error))
    return NULL;
  for (int i = 0; i < n; i++) {
    if (tr_output_dtype(inputs[i]) != tr_output_dtype(like->inputs[i])) {
      g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE,
                  "Input %d of fused node '%s' must be %s, not %s", i, like->name,
                  tr_graph_dtype_name(tr_output_dtype(like->inputs[i])),
                  tr_graph_dtype_name(tr_output_dtype(inputs[i])));
      return NULL;
    }
  }
  TrShape shape;
  if (!broadcast_static(inputs, n, &shape)) {
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_VALUE,
                "The inputs of fused node '%s' do not broadcast together", like->name);
    return NULL;
  }
  const char *unique = tr_graph_unique_name(g, name ? name : like->name);
  TrNode *node = tr_graph_node_new(g, TR_GOP_FUSED, like->type, unique, inputs, n, 1);
  node->dtypes[0] = like->dtypes[0];
  node->shapes[0] = shape;
  node->value = tr_tensor_ref(like->value);
  return node;
}

/* ---- kernels ---------------------------------------------------------------------------- */

/* Elements per block: with a few registers, a block of float64 stays in the L1 cache. */
#define FUSED_BLOCK 256

typedef struct {
  FusedFn fn;            /* the op's block function for the kernel's dtype */
  int dst;               /* operand number written */
  int src[FZ_MAX_ARITY]; /* operand numbers read (unused ones are 0) */
} FusedInstr;

struct TrFusedKernel {
  TrDType dtype;      /* of every input, register and the output */
  int n_inputs;       /* operands 0 .. n_inputs - 1 */
  int n_regs;         /* operands n_inputs .. n_inputs + n_regs - 1 */
  int n_instrs;       /* length of instrs */
  FusedInstr *instrs; /* in order; the last one writes the output */
};

const TrFusedKernel *
tr_fused_kernel_new(TrArena *arena, const TrNode *node)
{
  g_return_val_if_fail(node->op == TR_GOP_FUSED && node->value != NULL, NULL);
  const int32_t *w = tr_tensor_data(node->value);
  int64_t n_words = tr_tensor_num_elements(node->value);
  g_return_val_if_fail(n_words >= FZ_HEADER_WORDS && w[0] == FZ_MAGIC, NULL);
  TrFusedKernel *k = tr_arena_new(arena, TrFusedKernel, 1);
  k->dtype = node->dtypes[0];
  k->n_inputs = w[1];
  k->n_regs = w[2];
  k->n_instrs = w[3];
  g_return_val_if_fail(n_words == FZ_HEADER_WORDS + (int64_t)k->n_instrs * FZ_INSTR_WORDS, NULL);
  g_return_val_if_fail(k->n_inputs == node->n_inputs, NULL);
  k->instrs = tr_arena_new(arena, FusedInstr, MAX(k->n_instrs, 1));
  int out = k->n_inputs + k->n_regs;
  for (int i = 0; i < k->n_instrs; i++) {
    const int32_t *iw = w + FZ_HEADER_WORDS + i * FZ_INSTR_WORDS;
    FusedInstr *in = &k->instrs[i];
    in->fn = fused_fn(iw[0], k->dtype);
    g_return_val_if_fail(in->fn != NULL, NULL);
    in->dst = iw[1] == FZ_OUT ? out : iw[1];
    for (int s = 0; s < FZ_MAX_ARITY; s++)
      in->src[s] = iw[2 + s];
  }
  return k;
}

bool
tr_fused_kernel_shape(const TrFusedKernel *k, TrTensor *const *in, TrShape *shape, GError **error)
{
  shape->rank = 0;
  for (int i = 0; i < k->n_inputs; i++)
    shape->rank = MAX(shape->rank, in[i]->shape.rank);
  for (int d = 0; d < shape->rank; d++)
    shape->dims[d] = 1;
  for (int i = 0; i < k->n_inputs; i++) {
    const TrShape *s = &in[i]->shape;
    for (int d = 0; d < s->rank; d++) {
      int64_t *out = &shape->dims[shape->rank - s->rank + d];
      if (s->dims[d] == *out || s->dims[d] == 1)
        continue;
      if (*out != 1) {
        g_autofree char *a = tr_shape_to_error_string(shape);
        g_autofree char *b = tr_shape_to_error_string(s);
        g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT, "Incompatible shapes: %s vs. %s", a,
                    b);
        return false;
      }
      *out = s->dims[d];
    }
  }
  return true;
}

/* How a block reads an input. */
typedef enum {
  READ_FLAT,   /* contiguous and of the output's shape: read in place, stride 1 */
  READ_SCALAR, /* one element: stride 0 */
  READ_GATHER, /* anything else: copied into a block buffer first */
} ReadMode;

typedef struct {
  ReadMode mode;                /* how blocks read it */
  const char *base;             /* its first element */
  int64_t strides[TR_MAX_RANK]; /* READ_GATHER: per output dim, in elements (0: broadcast) */
  char *buf;                    /* READ_GATHER: the block buffer */
} InputRead;

static ReadMode
read_mode(const TrTensor *t, const TrShape *out)
{
  if (tr_tensor_num_elements(t) == 1)
    return READ_SCALAR;
  return t->contiguous && tr_shape_equal(&t->shape, out) ? READ_FLAT : READ_GATHER;
}

static void
input_read_init(InputRead *r, const TrTensor *t, const TrShape *out, size_t esize)
{
  r->mode = read_mode(t, out);
  r->base = (const char *)t->buf->data + t->offset * (int64_t)esize;
  if (r->mode != READ_GATHER)
    return;
  int lead = out->rank - t->shape.rank;
  for (int d = 0; d < out->rank; d++) {
    int k = d - lead;
    r->strides[d] = k < 0 || t->shape.dims[k] == 1 ? 0 : t->strides[k];
  }
}

/* Copy elements start .. start + len - 1 (row-major over `out`) of a broadcast input. */
static void
gather_block(const InputRead *r, const TrShape *out, int64_t start, int64_t len, size_t esize)
{
  int64_t idx[TR_MAX_RANK];
  int64_t rest = start, off = 0;
  for (int d = out->rank - 1; d >= 0; d--) {
    idx[d] = rest % out->dims[d];
    rest /= out->dims[d];
    off += idx[d] * r->strides[d];
  }
  for (int64_t i = 0; i < len; i++) {
    if (esize == 4)
      memcpy(r->buf + i * 4, r->base + off * 4, 4);
    else
      memcpy(r->buf + i * 8, r->base + off * 8, 8);
    for (int d = out->rank - 1; d >= 0; d--) {
      off += r->strides[d];
      if (++idx[d] < out->dims[d])
        break;
      off -= idx[d] * r->strides[d];
      idx[d] = 0;
    }
  }
}

/* A run's scratch: per operand a pointer and a stride, per input how it is read, and one block
 * buffer per register and per gathered input. Small runs keep it on the stack. */
typedef struct {
  const char **ptr; /* per operand: the current block's first element */
  int64_t *stride;  /* per operand: 1, or 0 for a single element */
  InputRead *reads; /* per input */
  char *heap;       /* the allocation, when the stack buffer is too small (owned) */
} RunState;

#define RUN_STACK_BYTES 8192

static size_t
align64(size_t n)
{
  return (n + 63) & ~(size_t)63;
}

/* Carve `mem` into the arrays and block buffers; returns the first byte after them. */
static char *
run_state_layout(RunState *st, const TrFusedKernel *k, size_t buf_bytes, char *mem)
{
  int n_ops = k->n_inputs + k->n_regs + 1;
  st->ptr = (const char **)(void *)mem;
  mem += align64(sizeof(char *) * (size_t)n_ops);
  st->stride = (int64_t *)(void *)mem;
  mem += align64(sizeof(int64_t) * (size_t)n_ops);
  st->reads = (InputRead *)(void *)mem;
  mem += align64(sizeof(InputRead) * (size_t)MAX(k->n_inputs, 1));
  for (int r = 0; r < k->n_regs; r++) {
    st->ptr[k->n_inputs + r] = mem;
    st->stride[k->n_inputs + r] = 1;
    mem += buf_bytes;
  }
  st->stride[n_ops - 1] = 1;
  return mem;
}

static void
run_state_init(RunState *st, const TrFusedKernel *k, TrTensor *const *in, const TrShape *out,
               int64_t block, char *stack)
{
  size_t esize = tr_dtype_size(k->dtype);
  size_t buf_bytes = align64((size_t)block * esize);
  int n_gather = 0;
  for (int i = 0; i < k->n_inputs; i++)
    n_gather += read_mode(in[i], out) == READ_GATHER;
  int n_ops = k->n_inputs + k->n_regs + 1;
  size_t size = align64(sizeof(char *) * (size_t)n_ops) + align64(sizeof(int64_t) * (size_t)n_ops) +
                align64(sizeof(InputRead) * (size_t)MAX(k->n_inputs, 1)) +
                buf_bytes * (size_t)(k->n_regs + n_gather);
  st->heap = size > RUN_STACK_BYTES ? g_malloc(size + 64) : NULL;
  char *mem = st->heap ? (char *)align64((size_t)(uintptr_t)st->heap) : stack;
  char *bufs = run_state_layout(st, k, buf_bytes, mem);
  for (int i = 0; i < k->n_inputs; i++) {
    InputRead *r = &st->reads[i];
    input_read_init(r, in[i], out, esize);
    st->stride[i] = r->mode == READ_SCALAR ? 0 : 1;
    st->ptr[i] = r->base;
    if (r->mode == READ_GATHER) {
      r->buf = bufs;
      bufs += buf_bytes;
    }
  }
}

static void
run_block(const TrFusedKernel *k, RunState *st, const TrShape *shape, char *out, int64_t start,
          int64_t len)
{
  size_t esize = tr_dtype_size(k->dtype);
  for (int i = 0; i < k->n_inputs; i++) {
    const InputRead *r = &st->reads[i];
    if (r->mode == READ_FLAT)
      st->ptr[i] = r->base + start * (int64_t)esize;
    else if (r->mode == READ_GATHER) {
      gather_block(r, shape, start, len, esize);
      st->ptr[i] = r->buf;
    }
  }
  st->ptr[k->n_inputs + k->n_regs] = out + start * (int64_t)esize;
  for (int i = 0; i < k->n_instrs; i++) {
    const FusedInstr *in = &k->instrs[i];
    const void *src[FZ_MAX_ARITY] = {st->ptr[in->src[0]], st->ptr[in->src[1]], st->ptr[in->src[2]]};
    int64_t stride[FZ_MAX_ARITY] = {st->stride[in->src[0]], st->stride[in->src[1]],
                                    st->stride[in->src[2]]};
    in->fn((void *)st->ptr[in->dst], src, stride, len);
  }
}

void
tr_fused_kernel_run(const TrFusedKernel *k, TrTensor *const *in, TrTensor *out)
{
  int64_t n = tr_tensor_num_elements(out);
  if (n == 0)
    return;
  int64_t block = MIN(n, FUSED_BLOCK);
  _Alignas(64) char stack[RUN_STACK_BYTES];
  RunState st;
  run_state_init(&st, k, in, &out->shape, block, stack);
  char *data = tr_tensor_data(out);
  for (int64_t start = 0; start < n; start += block)
    run_block(k, &st, &out->shape, data, start, MIN(block, n - start));
  g_free(st.heap);
}
