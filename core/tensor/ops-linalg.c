/* ops-linalg.c — MatMul, BatchMatMulV2 and Conv2D on top of one GEMM entry point.
 *
 * Every kernel here reduces to gemm_run(): C (+)= A·B on matrices described by a base pointer
 * and a row and a column stride. float32 and float64 go to OpenBLAS (cblas_?gemm) whenever the
 * strides form a row- or column-major layout, so a transposed view costs a flag, not a copy;
 * float32 from 64^3 multiply-adds goes to oneDNN's SGEMM instead where ops-dnnl.c finds it
 * faster (AVX-512); integers use a plain loop, as BLAS has no integer GEMM.
 *
 * float32 Conv2D and both of its gradients first ask oneDNN (ops-dnnl.c), which takes them
 * where its kernels are faster; what it declines runs on the paths below.
 *
 * Conv2D (NHWC input, HWIO filters) has three GEMM formulations, picked by shape:
 *  - 1x1 filters at stride 1: the input already is the [pixels, channels] matrix;
 *  - stride 1 with deep inputs: the "shifted GEMM". For each filter tap (kh, kw), the input
 *    pixels it meets form a matrix whose rows are C apart, so BLAS reads them in place; the
 *    KH*KW products accumulate (beta = 1) into an output whose rows keep the input's width,
 *    block by block so it stays in cache, and the valid columns are copied out. SAME padding
 *    first copies the image into a zero border;
 *  - anything else (strides > 1, shallow inputs): im2col in blocks of rows that fit in cache,
 *    one GEMM per block.
 * Grouped convolution (input depth a multiple of the filter depth) runs one GEMM per group on
 * column slices, as TensorFlow's CPU kernel allows it.
 *
 * Error texts are those of TensorFlow's eager kernels (batch_matmul_op_impl.h, conv_ops.cc).
 */
#include "linalg-dnnl.h"

#include <cblas.h>
#include <dlfcn.h>
#include <limits.h>
#include <string.h>

/* OpenBLAS is loaded on the first GEMM, not with the program: its thread pool starts when the
 * library loads and spins for a while, which would take a core from code that never multiplies
 * matrices (the interpreter, the kernel). The header gives the functions' types. */
typedef struct {
  __typeof__(cblas_sgemm) *sgemm; /* float32 GEMM */
  __typeof__(cblas_dgemm) *dgemm; /* float64 GEMM */
  char description[96];           /* "OpenBLAS 0.3.21 Cooperlake": version and kernel family */
} Blas;

static gpointer
blas_load(gpointer unused)
{
  static Blas blas;
  void *lib = dlopen(TR_OPENBLAS_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    g_error("cannot load OpenBLAS from %s: %s", TR_OPENBLAS_LIBRARY, dlerror());
  blas.sgemm = (__typeof__(cblas_sgemm) *)dlsym(lib, "cblas_sgemm");
  blas.dgemm = (__typeof__(cblas_dgemm) *)dlsym(lib, "cblas_dgemm");
  if (!blas.sgemm || !blas.dgemm)
    g_error("%s lacks cblas_sgemm or cblas_dgemm", TR_OPENBLAS_LIBRARY);
  /* Both optional: they only describe the library. The configuration starts "OpenBLAS X.Y.Z". */
  char *(*config)(void) = (char *(*)(void))dlsym(lib, "openblas_get_config");
  char *(*corename)(void) = (char *(*)(void))dlsym(lib, "openblas_get_corename");
  g_autofree char *version = NULL;
  if (config) {
    g_auto(GStrv) words = g_strsplit(config(), " ", 3);
    if (words[0] && words[1])
      version = g_strdup_printf("%s %s", words[0], words[1]);
  }
  g_snprintf(blas.description, sizeof blas.description, "%s %s", version ? version : "OpenBLAS",
             corename ? corename() : "");
  return &blas;
}

static const Blas *
blas(void)
{
  static GOnce once = G_ONCE_INIT;
  return g_once(&once, blas_load, NULL);
}

/* Input depth from which the shifted GEMM beats im2col (measured: equal near 32 channels). */
#define SHIFT_MIN_DEPTH 48
/* Bytes of accumulated output per shifted-GEMM block; measured best at 1-4 MB. */
#define SHIFT_BLOCK_BYTES (2u << 20)
/* Bytes of one im2col block; measured best at 4 MB. */
#define IM2COL_BLOCK_BYTES (4u << 20)
/* Multiply-adds of a GEMM between two polls of the cancel flag (tr_cancel_requested): a larger
 * GEMM runs in tiles of C of about this much work, 20-150 ms on a 2-core machine, so an
 * interrupt stops it well within a second. Measured: tiles of 1 G multiply-adds cost a 2048^3
 * GEMM 9% against one cblas_sgemm call; of 4 G, nothing measurable. */
#define GEMM_CHUNK_MACS ((int64_t)1 << 32)
/* The smallest side of such a tile: BLAS loses speed on thinner ones. */
#define GEMM_MIN_TILE 256

/* ---- GEMM ------------------------------------------------------------------------------- */

/* C = A·B (or C += A·B) with A m x k, B k x n and C m x n, each given by strides in elements. */
typedef struct {
  int64_t m, n, k;    /* C's rows and columns; the inner dimension */
  const void *a;      /* element (0, 0) of A */
  int64_t a_rs, a_cs; /* A's row and column strides */
  const void *b;      /* element (0, 0) of B */
  int64_t b_rs, b_cs; /* B's row and column strides */
  void *c;            /* element (0, 0) of C, whose column stride is 1 */
  int64_t c_rs;       /* C's row stride */
  bool accumulate;    /* add to C (beta = 1) instead of overwriting it (beta = 0) */
} Gemm;

/* How BLAS can read a rows x cols matrix with strides (rs, cs): row-major with leading
 * dimension *ld, or (when *trans) column-major. FALSE if neither, or if *ld overflows int. */
static bool
blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool *trans, int64_t *ld)
{
  bool rs_free = rows <= 1, cs_free = cols <= 1; /* a stride of a 0/1-long dim is never used */
  if (cs_free || cs == 1) {
    int64_t r = rs_free ? MAX(cols, 1) : rs;
    if (r >= MAX(cols, 1) && r <= INT_MAX) {
      *trans = false;
      *ld = r;
      return true;
    }
  }
  if (rs_free || rs == 1) {
    int64_t c = cs_free ? MAX(rows, 1) : cs;
    if (c >= MAX(rows, 1) && c <= INT_MAX) {
      *trans = true;
      *ld = c;
      return true;
    }
  }
  return false;
}

static bool
gemm_blas_dims_fit(const Gemm *g)
{
  return g->m <= INT_MAX && g->n <= INT_MAX && g->k <= INT_MAX && g->c_rs <= INT_MAX;
}

/* Whether BLAS can read both operands of `g` in place. */
static bool
gemm_blas_ok(const Gemm *g)
{
  bool t;
  int64_t ld;
  return gemm_blas_dims_fit(g) && blas_layout(g->m, g->k, g->a_rs, g->a_cs, &t, &ld) &&
         blas_layout(g->k, g->n, g->b_rs, g->b_cs, &t, &ld);
}

static void
gemm_blas(TrDType dtype, const Gemm *g)
{
  bool ta, tb;
  int64_t lda, ldb;
  blas_layout(g->m, g->k, g->a_rs, g->a_cs, &ta, &lda);
  blas_layout(g->k, g->n, g->b_rs, g->b_cs, &tb, &ldb);
  if (dtype == TR_FLOAT32 && tr_dnnl_sgemm_wins(g->m, g->n, g->k)) {
    tr_dnnl_sgemm(ta, tb, g->m, g->n, g->k, g->a, lda, g->b, ldb, g->accumulate ? 1.0f : 0.0f, g->c,
                  MAX(g->c_rs, 1));
    tr_note_kernel("oneDNN sgemm");
    return;
  }
  tr_note_kernel(dtype == TR_FLOAT32 ? "OpenBLAS sgemm" : "OpenBLAS dgemm");
  enum CBLAS_TRANSPOSE opa = ta ? CblasTrans : CblasNoTrans;
  enum CBLAS_TRANSPOSE opb = tb ? CblasTrans : CblasNoTrans;
  int m = (int)g->m, n = (int)g->n, k = (int)g->k, ldc = (int)MAX(g->c_rs, 1);
  if (dtype == TR_FLOAT32)
    blas()->sgemm(CblasRowMajor, opa, opb, m, n, k, 1.0f, g->a, (int)lda, g->b, (int)ldb,
                  g->accumulate ? 1.0f : 0.0f, g->c, ldc);
  else
    blas()->dgemm(CblasRowMajor, opa, opb, m, n, k, 1.0, g->a, (int)lda, g->b, (int)ldb,
                  g->accumulate ? 1.0 : 0.0, g->c, ldc);
}

/* The plain loop, for integers and for layouts BLAS cannot take. Integers accumulate in the
 * unsigned type of their width, so overflow wraps as TensorFlow's Eigen kernels do. */
#define GEMM_LOOP(name, T, ACC)                                                                    \
  static void name(const Gemm *g)                                                                  \
  {                                                                                                \
    const T *a = g->a, *b = g->b;                                                                  \
    for (int64_t i = 0; i < g->m; i++) {                                                           \
      ACC *crow = (ACC *)((T *)g->c + i * g->c_rs);                                                \
      if (!g->accumulate)                                                                          \
        for (int64_t j = 0; j < g->n; j++)                                                         \
          crow[j] = 0;                                                                             \
      for (int64_t p = 0; p < g->k; p++) {                                                         \
        ACC av = (ACC)a[i * g->a_rs + p * g->a_cs];                                                \
        const T *brow = b + p * g->b_rs;                                                           \
        for (int64_t j = 0; j < g->n; j++)                                                         \
          crow[j] += av * (ACC)brow[j * g->b_cs];                                                  \
      }                                                                                            \
    }                                                                                              \
  }
GEMM_LOOP(gemm_loop_f32, float, float)
GEMM_LOOP(gemm_loop_f64, double, double)
GEMM_LOOP(gemm_loop_i32, int32_t, uint32_t)
GEMM_LOOP(gemm_loop_i64, int64_t, uint64_t)
GEMM_LOOP(gemm_loop_c64, float _Complex, float _Complex)
GEMM_LOOP(gemm_loop_c128, double _Complex, double _Complex)
#undef GEMM_LOOP

/* int16 (BatchMatMulV2 has a kernel for it): products and sums in uint32_t, which cannot
 * overflow int the way uint16_t operands promoted to int would, stored back modulo 2^16 as
 * Eigen's int16 arithmetic wraps. */
static void
gemm_loop_i16(const Gemm *g)
{
  const int16_t *a = g->a, *b = g->b;
  for (int64_t i = 0; i < g->m; i++) {
    int16_t *crow = (int16_t *)g->c + i * g->c_rs;
    for (int64_t j = 0; j < g->n; j++) {
      uint32_t acc = g->accumulate ? (uint32_t)(uint16_t)crow[j] : 0;
      for (int64_t p = 0; p < g->k; p++)
        acc += (uint32_t)(uint16_t)a[i * g->a_rs + p * g->a_cs] *
               (uint32_t)(uint16_t)b[p * g->b_rs + j * g->b_cs];
      crow[j] = (int16_t)(uint16_t)acc;
    }
  }
}

/* float16 and bfloat16: each row of C summed in float, then rounded once to the storage
 * type. */
#define GEMM_LOOP_NARROW(name, T, TO_F, FROM_F)                                                    \
  static void name(const Gemm *g)                                                                  \
  {                                                                                                \
    const T *a = g->a, *b = g->b;                                                                  \
    float *acc = g_new(float, MAX(g->n, 1));                                                       \
    for (int64_t i = 0; i < g->m; i++) {                                                           \
      T *crow = (T *)g->c + i * g->c_rs;                                                           \
      for (int64_t j = 0; j < g->n; j++)                                                           \
        acc[j] = g->accumulate ? TO_F(crow[j]) : 0.0f;                                             \
      for (int64_t p = 0; p < g->k; p++) {                                                         \
        float av = TO_F(a[i * g->a_rs + p * g->a_cs]);                                             \
        const T *brow = b + p * g->b_rs;                                                           \
        for (int64_t j = 0; j < g->n; j++)                                                         \
          acc[j] += av * TO_F(brow[j * g->b_cs]);                                                  \
      }                                                                                            \
      for (int64_t j = 0; j < g->n; j++)                                                           \
        crow[j] = FROM_F(acc[j]);                                                                  \
    }                                                                                              \
    g_free(acc);                                                                                   \
  }
GEMM_LOOP_NARROW(gemm_loop_f16, TrHalf, tr_half_to_float, tr_half_from_float)
GEMM_LOOP_NARROW(gemm_loop_bf16, TrBFloat16, tr_bfloat16_to_float, tr_bfloat16_from_float)
#undef GEMM_LOOP_NARROW

static void
gemm_zero(TrDType dtype, const Gemm *g)
{
  size_t row_bytes = (size_t)g->n * tr_dtype_size(dtype);
  for (int64_t i = 0; i < g->m; i++)
    memset((char *)g->c + (size_t)(i * g->c_rs) * tr_dtype_size(dtype), 0, row_bytes);
}

static void
gemm_tile(TrDType dtype, const Gemm *g)
{
  switch (dtype) {
    case TR_FLOAT32:
      if (gemm_blas_ok(g)) {
        gemm_blas(dtype, g);
      } else {
        tr_note_kernel("GEMM loop");
        gemm_loop_f32(g);
      }
      break;
    case TR_FLOAT64:
      if (gemm_blas_ok(g)) {
        gemm_blas(dtype, g);
      } else {
        tr_note_kernel("GEMM loop");
        gemm_loop_f64(g);
      }
      break;
    case TR_INT32:
      tr_note_kernel("GEMM loop");
      gemm_loop_i32(g);
      break;
    case TR_INT64:
      tr_note_kernel("GEMM loop");
      gemm_loop_i64(g);
      break;
    case TR_INT16:
      gemm_loop_i16(g);
      break;
    case TR_FLOAT16:
      gemm_loop_f16(g);
      break;
    case TR_BFLOAT16:
      gemm_loop_bf16(g);
      break;
    case TR_COMPLEX64:
      gemm_loop_c64(g);
      break;
    case TR_COMPLEX128:
      gemm_loop_c128(g);
      break;
    default:
      g_assert_not_reached();
  }
}

/* The rows x cols tile of `g` at (i0, j0) of C. */
static Gemm
gemm_sub(const Gemm *g, size_t esize, int64_t i0, int64_t j0, int64_t rows, int64_t cols)
{
  Gemm t = *g;
  t.m = rows;
  t.n = cols;
  t.a = (const char *)g->a + (size_t)(i0 * g->a_rs) * esize;
  t.b = (const char *)g->b + (size_t)(j0 * g->b_cs) * esize;
  t.c = (char *)g->c + (size_t)(i0 * g->c_rs + j0) * esize;
  return t;
}

/* C = A·B, in tiles of C when it is large, polling the cancel flag between tiles: false when an
 * interrupt stopped it (C is then partly written). */
static bool
gemm_run(TrDType dtype, const Gemm *g)
{
  if (g->m == 0 || g->n == 0)
    return true;
  if (g->k == 0) {
    if (!g->accumulate)
      gemm_zero(dtype, g);
    return true;
  }
  if ((double)g->m * (double)g->n * (double)g->k <= (double)GEMM_CHUNK_MACS) {
    gemm_tile(dtype, g);
    return true;
  }
  int64_t rows = CLAMP(GEMM_CHUNK_MACS / (g->n * g->k), MIN(GEMM_MIN_TILE, g->m), g->m);
  int64_t cols = g->n;
  if ((double)rows * (double)g->n * (double)g->k > 4.0 * (double)GEMM_CHUNK_MACS)
    cols = CLAMP(GEMM_CHUNK_MACS / (rows * g->k), MIN(GEMM_MIN_TILE, g->n), g->n);
  size_t esize = tr_dtype_size(dtype);
  for (int64_t i0 = 0; i0 < g->m; i0 += rows) {
    for (int64_t j0 = 0; j0 < g->n; j0 += cols) {
      if (tr_cancel_requested())
        return false;
      Gemm t = gemm_sub(g, esize, i0, j0, MIN(rows, g->m - i0), MIN(cols, g->n - j0));
      gemm_tile(dtype, &t);
    }
  }
  return true;
}

const char *
tr_compute_description(void)
{
  static char text[256];
  static gsize done;
  if (g_once_init_enter(&done)) {
    const char *dnnl = tr_dnnl_description();
    bool sgemm = tr_dnnl_sgemm_wins(INT32_MAX, 1, 1);
    bool conv = sgemm; /* both follow oneDNN's instruction set (ops-dnnl.c) */
    g_snprintf(text, sizeof text, "%s; %s: %s", blas()->description, dnnl,
               conv ? "float32 Conv2D, its gradients and SGEMM from 64^3"
               : g_str_has_suffix(dnnl, "unavailable") ? "not used"
                                                       : "float32 Conv2D gradients");
    g_once_init_leave(&done, 1);
  }
  return text;
}

/* ---- shared checks ---------------------------------------------------------------------- */

/* TensorFlow's allowed lists for the "T" attr, as its errors print them. */
#define MATMUL_ALLOWED "bfloat16, half, float, double, int32, int64, complex64, complex128"
#define BATCH_MATMUL_ALLOWED                                                                       \
  "bfloat16, half, float, double, int16, int32, int64, complex64, complex128"
#define CONV2D_ALLOWED "half, bfloat16, float, double, int32"

/* Both inputs of one dtype, and that dtype one the op has a kernel for. */
static bool
check_dtypes(const TrTensorInfo *in, const char *op_type, bool (*supported)(TrDType),
             const char *allowed, GError **error)
{
  if (in[1].dtype != in[0].dtype) {
    tr_set_dtype_mismatch(error, op_type, 1, in[0].dtype, in[1].dtype);
    return false;
  }
  if (supported(in[0].dtype))
    return true;
  tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, op_type,
                  "Value for attr 'T' of %s is not in the list of allowed values: %s",
                  tr_dtype_tf_name(in[0].dtype), allowed);
  return false;
}

/* MatMul's and BatchMatMulV2's dtypes: their allowed lists, all of which have kernels here
 * (gemm_tile); the lists are TensorFlow's OpDefs (math_ops.cc). */
static bool
matmul_dtype_supported(TrDType dtype)
{
  return dtype == TR_FLOAT32 || dtype == TR_FLOAT64 || dtype == TR_FLOAT16 ||
         dtype == TR_BFLOAT16 || dtype == TR_INT32 || dtype == TR_INT64 || dtype == TR_COMPLEX64 ||
         dtype == TR_COMPLEX128;
}

static bool
batch_matmul_dtype_supported(TrDType dtype)
{
  return matmul_dtype_supported(dtype) || dtype == TR_INT16;
}

static bool
conv_dtype_supported(TrDType dtype)
{
  return tr_dtype_is_float(dtype) || dtype == TR_INT32;
}

/* Dim `i` of a possibly unknown-rank shape. */
static int64_t
shape_dim(const TrShape *s, int i)
{
  return s->rank == TR_UNKNOWN ? TR_UNKNOWN : s->dims[i];
}

static bool
dims_conflict(int64_t a, int64_t b)
{
  return a != TR_UNKNOWN && b != TR_UNKNOWN && a != b;
}

static void
set_size_incompatible(GError **error, const char *op_type, const TrShape *a, const TrShape *b)
{
  g_autofree char *sa = tr_shape_to_error_string(a);
  g_autofree char *sb = tr_shape_to_error_string(b);
  tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, op_type,
                  "Matrix size-incompatible: In[0]: %s, In[1]: %s", sa, sb);
}

/* ---- MatMul and BatchMatMulV2 ------------------------------------------------------------ */

static bool
matmul_infer(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype, TrShape *shape,
             GError **error)
{
  const char *op = "MatMul";
  if (!check_dtypes(in, op, matmul_dtype_supported, MATMUL_ALLOWED, error))
    return false;
  const TrShape *a = &in[0].shape, *b = &in[1].shape;
  if (a->rank != TR_UNKNOWN && b->rank != TR_UNKNOWN && a->rank != b->rank) {
    g_autofree char *sa = tr_shape_to_error_string(a);
    g_autofree char *sb = tr_shape_to_error_string(b);
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, op,
                    "In[0] and In[1] has different ndims: %s vs. %s", sa, sb);
    return false;
  }
  int rank = a->rank != TR_UNKNOWN ? a->rank : b->rank;
  if (rank != TR_UNKNOWN && rank != 2) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, op, "In[0] and In[1] ndims must be == 2: %d",
                    rank);
    return false;
  }
  int ta = attrs->transpose_a, tb = attrs->transpose_b;
  if (dims_conflict(shape_dim(a, 1 - ta), shape_dim(b, tb))) {
    set_size_incompatible(error, op, a, b);
    return false;
  }
  *dtype = in[0].dtype;
  shape->rank = 2;
  shape->dims[0] = shape_dim(a, ta);
  shape->dims[1] = shape_dim(b, 1 - tb);
  return true;
}

/* The leading (batch) dims of a known-rank matrix stack. */
static TrShape
batch_shape(const TrShape *s)
{
  return tr_shape_make(s->rank - 2, s->dims);
}

static bool
batch_matmul_infer(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,
                   TrShape *shape, GError **error)
{
  const char *op = "BatchMatMulV2";
  if (!check_dtypes(in, op, batch_matmul_dtype_supported, BATCH_MATMUL_ALLOWED, error))
    return false;
  const TrShape *a = &in[0].shape, *b = &in[1].shape;
  for (int i = 0; i < 2; i++) {
    int r = in[i].shape.rank;
    if (r != TR_UNKNOWN && r < 2) {
      tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, op, "In[%d] ndims must be >= 2: %d", i, r);
      return false;
    }
  }
  *dtype = in[0].dtype;
  if (a->rank == TR_UNKNOWN || b->rank == TR_UNKNOWN) {
    *shape = tr_shape_unknown();
    return true;
  }
  TrShape ab = batch_shape(a), bb = batch_shape(b);
  if (!tr_broadcast_shapes(&ab, &bb, shape, NULL, NULL)) {
    g_autofree char *sa = tr_shape_to_error_string(a);
    g_autofree char *sb = tr_shape_to_error_string(b);
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, op,
                    "In[0] and In[1] must have compatible batch dimensions: %s vs. %s", sa, sb);
    return false;
  }
  int ta = attrs->transpose_a, tb = attrs->transpose_b;
  int ra = a->rank, rb = b->rank;
  if (dims_conflict(a->dims[ra - 1 - ta], b->dims[rb - 2 + tb])) {
    set_size_incompatible(error, op, a, b);
    return false;
  }
  shape->dims[shape->rank++] = a->dims[ra - 2 + ta];
  shape->dims[shape->rank++] = b->dims[rb - 1 - tb];
  return true;
}

/* One operand of a (batched) matmul as the kernel reads it: the matrix op(X) of each batch. */
typedef struct {
  TrTensor *t;                        /* owned: the input, or a contiguous copy of it */
  int64_t rs, cs;                     /* op(X)'s row and column strides */
  int64_t batch_strides[TR_MAX_RANK]; /* per output batch dim; 0 where broadcast */
} MatOperand;

/* Describe input `x` (transposed when `trans`) for an output with `out_batch_rank` batch dims,
 * copying it to a contiguous tensor when BLAS could not read its matrices in place. */
static void
mat_operand_init(MatOperand *op, TrTensor *x, bool trans, int out_batch_rank)
{
  int r = x->shape.rank;
  op->t = tr_tensor_ref(x);
  int64_t rows = x->shape.dims[r - 2], cols = x->shape.dims[r - 1];
  bool t;
  int64_t ld;
  if (tr_dtype_is_float(x->dtype) &&
      !blas_layout(rows, cols, x->strides[r - 2], x->strides[r - 1], &t, &ld)) {
    tr_tensor_unref(op->t);
    op->t = tr_tensor_contiguous(x);
  }
  const int64_t *st = op->t->strides;
  op->rs = trans ? st[r - 1] : st[r - 2];
  op->cs = trans ? st[r - 2] : st[r - 1];
  int shift = out_batch_rank - (r - 2);
  for (int i = 0; i < out_batch_rank; i++) {
    int ix = i - shift;
    op->batch_strides[i] = (ix < 0 || x->shape.dims[ix] == 1) ? 0 : st[ix];
  }
}

/* Whether the batches of `a` can fold into its rows: one GEMM of (batch*m) x k. True when `b`
 * is shared by every batch and `a`'s batches and rows step by one uniform stride. */
static bool
matmul_can_fold(const MatOperand *a, const MatOperand *b, const TrShape *out_batch, int64_t m)
{
  int64_t expect = a->rs * m;
  for (int i = out_batch->rank - 1; i >= 0; i--) {
    if (b->batch_strides[i] != 0)
      return false;
    if (out_batch->dims[i] == 1)
      continue;
    if (a->batch_strides[i] != expect)
      return false;
    expect *= out_batch->dims[i];
  }
  return true;
}

static bool
matmul_kernel(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  int out_rank = out->shape.rank;
  TrShape out_batch = tr_shape_make(out_rank - 2, out->shape.dims);
  int64_t m = out->shape.dims[out_rank - 2], n = out->shape.dims[out_rank - 1];
  if (tr_tensor_num_elements(out) == 0)
    return true;
  const TrShape *as = &in[0]->shape;
  int64_t k = as->dims[as->rank - (attrs->transpose_a ? 2 : 1)];

  MatOperand a, b;
  mat_operand_init(&a, in[0], attrs->transpose_a, out_batch.rank);
  mat_operand_init(&b, in[1], attrs->transpose_b, out_batch.rank);
  size_t esize = tr_dtype_size(out->dtype);
  char *abase = (char *)a.t->buf->data, *bbase = (char *)b.t->buf->data;
  Gemm g = {
      .m = m, .n = n, .k = k, .a_rs = a.rs, .a_cs = a.cs, .b_rs = b.rs, .b_cs = b.cs, .c_rs = n};

  Gemm folded = g;
  folded.m = tr_shape_num_elements(&out_batch) * m;
  folded.a = abase + a.t->offset * esize;
  folded.b = bbase + b.t->offset * esize;
  folded.c = out->buf->data;
  bool done = true;
  if (matmul_can_fold(&a, &b, &out_batch, m) &&
      (!tr_dtype_is_float(out->dtype) || gemm_blas_ok(&folded))) {
    done = gemm_run(out->dtype, &folded);
  } else {
    int64_t strides[2][TR_MAX_RANK];
    memcpy(strides[0], a.batch_strides, sizeof strides[0]);
    memcpy(strides[1], b.batch_strides, sizeof strides[1]);
    int64_t offsets[2] = {a.t->offset, b.t->offset};
    TrNdIter it;
    tr_nd_iter_init(&it, &out_batch, 2, offsets, strides);
    char *c = out->buf->data;
    do {
      g.a = abase + it.pos[0] * esize;
      g.b = bbase + it.pos[1] * esize;
      g.c = c;
      done = gemm_run(out->dtype, &g);
      c += m * n * esize;
    } while (done && tr_nd_iter_next(&it));
  }
  tr_tensor_unref(a.t);
  tr_tensor_unref(b.t);
  if (!done)
    tr_set_cancelled(error, "MatMul");
  return done;
}

TrTensor *
tr_matmul(TrTensor *a, TrTensor *b, bool transpose_a, bool transpose_b, GError **error)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.transpose_a = transpose_a;
  attrs.transpose_b = transpose_b;
  TrTensor *in[2] = {a, b};
  /* tf.matmul's choice: MatMul for matrices, BatchMatMulV2 once either input has batch dims. */
  TrOpId op = (a->shape.rank > 2 || b->shape.rank > 2) ? TR_OP_BATCH_MATMUL : TR_OP_MATMUL;
  return tr_op_run(op, in, 2, &attrs, error);
}

/* ---- Conv2D ----------------------------------------------------------------------------- */

/* TensorFlow's windowed output size; SAME puts the odd padding at the bottom/right. */
static bool
conv_output_size(int64_t in, int64_t k, int64_t stride, TrPadding padding, int64_t *out,
                 int64_t *pad_before, GError **error)
{
  *pad_before = 0;
  if (in == TR_UNKNOWN || k == TR_UNKNOWN) {
    *out = TR_UNKNOWN;
    return true;
  }
  if (padding == TR_PADDING_VALID) {
    *out = (in - k + stride) / stride;
  } else {
    *out = (in + stride - 1) / stride;
    *pad_before = MAX(0, (*out - 1) * stride + k - in) / 2;
  }
  if (*out >= 0)
    return true;
  tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, "Conv2D",
                  "Computed output size would be negative: %" G_GINT64_FORMAT
                  " [input_size: %" G_GINT64_FORMAT ", effective_filter_size: %" G_GINT64_FORMAT
                  ", stride: %" G_GINT64_FORMAT "]",
                  *out, in, k, stride);
  return false;
}

static bool
conv_check_ranks(const TrShape *x, const TrShape *f, GError **error)
{
  if (x->rank != TR_UNKNOWN && x->rank != 4) {
    g_autofree char *s = tr_shape_to_error_string(x);
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, "Conv2D", "input must be 4-dimensional%s", s);
    return false;
  }
  if (f->rank != TR_UNKNOWN && f->rank != 4) {
    g_autofree char *s = tr_shape_to_error_string(f);
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, "Conv2D", "filter must be 4-dimensional: %s",
                    s);
    return false;
  }
  return true;
}

static bool
conv_check_depths(ConvGeom *g, GError **error)
{
  g->groups = 0;
  if (g->k_c == TR_UNKNOWN)
    return true;
  if (g->k_c <= 0) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, "Conv2D",
                    "filter depth must be stricly positive, got %" G_GINT64_FORMAT, g->k_c);
    return false;
  }
  if (g->in_c == TR_UNKNOWN)
    return true;
  if (g->in_c % g->k_c != 0) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, "Conv2D",
                    "input depth must be evenly divisible by filter depth: %" G_GINT64_FORMAT
                    " vs %" G_GINT64_FORMAT,
                    g->in_c, g->k_c);
    return false;
  }
  g->groups = g->in_c / g->k_c;
  return true;
}

/* TensorFlow checks the groups only when there is something to compute. */
static bool
conv_check_groups(const ConvGeom *g, GError **error)
{
  bool empty = g->batch == 0 || g->out_h == 0 || g->out_w == 0 || g->out_c == 0 || g->in_h == 0 ||
               g->in_w == 0 || g->in_c == 0;
  if (empty || g->groups <= 0 || g->out_c == TR_UNKNOWN)
    return true;
  if (g->out_c % g->groups == 0 && g->out_c >= g->groups)
    return true;
  tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, "Conv2D",
                  "output depth must be evenly divisible by number of groups: %" G_GINT64_FORMAT
                  " vs %" G_GINT64_FORMAT,
                  g->out_c, g->groups);
  return false;
}

/* Validate the shapes and attrs of a Conv2D, in the order TensorFlow's kernel does. */
static bool
conv_geometry(const TrShape *x, const TrShape *f, const TrAttrs *attrs, ConvGeom *g, GError **error)
{
  if (attrs->strides[0] <= 0 || attrs->strides[1] <= 0) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, "Conv2D",
                    "Row and column strides should be larger than 0.");
    return false;
  }
  if (!conv_check_ranks(x, f, error))
    return false;
  *g = (ConvGeom){
      .batch = shape_dim(x, 0),
      .in_h = shape_dim(x, 1),
      .in_w = shape_dim(x, 2),
      .in_c = shape_dim(x, 3),
      .k_h = shape_dim(f, 0),
      .k_w = shape_dim(f, 1),
      .k_c = shape_dim(f, 2),
      .out_c = shape_dim(f, 3),
      .stride_h = attrs->strides[0],
      .stride_w = attrs->strides[1],
  };
  return conv_check_depths(g, error) &&
         conv_output_size(g->in_h, g->k_h, g->stride_h, attrs->padding, &g->out_h, &g->pad_top,
                          error) &&
         conv_output_size(g->in_w, g->k_w, g->stride_w, attrs->padding, &g->out_w, &g->pad_left,
                          error) &&
         conv_check_groups(g, error);
}

static bool
conv2d_infer(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype, TrShape *shape,
             GError **error)
{
  if (!check_dtypes(in, "Conv2D", conv_dtype_supported, CONV2D_ALLOWED, error))
    return false;
  ConvGeom g;
  if (!conv_geometry(&in[0].shape, &in[1].shape, attrs, &g, error))
    return false;
  *dtype = in[0].dtype;
  *shape = tr_shape_make(4, (const int64_t[]){g.batch, g.out_h, g.out_w, g.out_c});
  return true;
}

/* Data of one convolution: contiguous input and filters, the output, and their geometry. */
typedef struct {
  ConvGeom g;    /* shapes */
  TrDType dtype; /* element type of all three */
  size_t esize;  /* bytes per element */
  const char *x; /* input, NHWC, contiguous */
  const char *f; /* filters, HWIO, contiguous */
  char *out;     /* output, NHWC, contiguous */
} Conv;

/* 1x1 filters at stride 1: the input is the [pixels, in_c] matrix already. False when an
 * interrupt stopped it, as for every conv_* below. */
static bool
conv_pointwise(const Conv *cv)
{
  const ConvGeom *g = &cv->g;
  int64_t opg = g->out_c / g->groups;
  for (int64_t gr = 0; gr < g->groups; gr++) {
    Gemm gm = {.m = g->batch * g->in_h * g->in_w,
               .n = opg,
               .k = g->k_c,
               .a = cv->x + gr * g->k_c * cv->esize,
               .a_rs = g->in_c,
               .a_cs = 1,
               .b = cv->f + gr * opg * cv->esize,
               .b_rs = g->out_c,
               .b_cs = 1,
               .c = cv->out + gr * opg * cv->esize,
               .c_rs = g->out_c};
    if (!gemm_run(cv->dtype, &gm))
      return false;
  }
  return true;
}

/* One image of a stride-1 VALID convolution (padding already applied to `x`, which is h x w),
 * by shifted GEMMs. Output rows are computed at the input's width w into `acc` (or straight
 * into `out` when the filter is one column wide, where the widths agree). */
static bool
conv_shifted_image(const Conv *cv, const char *x, int64_t h, int64_t w, char *out, char *acc)
{
  const ConvGeom *g = &cv->g;
  int64_t out_h = h - g->k_h + 1, out_w = w - g->k_w + 1;
  int64_t opg = g->out_c / g->groups;
  size_t es = cv->esize;
  int64_t block = MAX(1, (int64_t)(SHIFT_BLOCK_BYTES / ((size_t)w * g->out_c * es)));
  for (int64_t r0 = 0; r0 < out_h; r0 += block) {
    if (tr_cancel_requested())
      return false;
    int64_t r1 = MIN(out_h, r0 + block);
    char *dst = g->k_w == 1 ? out + r0 * out_w * g->out_c * es : acc;
    for (int64_t gr = 0; gr < g->groups; gr++) {
      for (int64_t kh = 0; kh < g->k_h; kh++) {
        for (int64_t kw = 0; kw < g->k_w; kw++) {
          int64_t tap = kh * g->k_w + kw;
          Gemm gm = {.m = (r1 - r0 - 1) * w + out_w,
                     .n = opg,
                     .k = g->k_c,
                     .a = x + (((r0 + kh) * w + kw) * g->in_c + gr * g->k_c) * es,
                     .a_rs = g->in_c,
                     .a_cs = 1,
                     .b = cv->f + (tap * g->k_c * g->out_c + gr * opg) * es,
                     .b_rs = g->out_c,
                     .b_cs = 1,
                     .c = dst + gr * opg * es,
                     .c_rs = g->out_c,
                     .accumulate = tap > 0};
          if (!gemm_run(cv->dtype, &gm))
            return false;
        }
      }
    }
    if (dst != acc)
      continue;
    for (int64_t r = r0; r < r1; r++)
      memcpy(out + r * out_w * g->out_c * es, acc + (r - r0) * w * g->out_c * es,
             (size_t)(out_w * g->out_c) * es);
  }
  return true;
}

/* Copy image `x` into `dst`, a zeroed (h + pads) x (w + pads) canvas, at (pad_top, pad_left). */
static void
conv_pad_image(const Conv *cv, const char *x, char *dst, int64_t padded_w)
{
  const ConvGeom *g = &cv->g;
  size_t row = (size_t)(g->in_w * g->in_c) * cv->esize;
  for (int64_t r = 0; r < g->in_h; r++)
    memcpy(dst + ((r + g->pad_top) * padded_w + g->pad_left) * g->in_c * cv->esize,
           x + r * g->in_w * g->in_c * cv->esize, row);
}

/* Stride 1, any padding: the shifted GEMM, image by image. */
static bool
conv_shifted(const Conv *cv)
{
  const ConvGeom *g = &cv->g;
  size_t es = cv->esize;
  int64_t h = g->out_h + g->k_h - 1, w = g->out_w + g->k_w - 1; /* padded input size */
  bool padded = h != g->in_h || w != g->in_w;
  int64_t block = MAX(1, (int64_t)(SHIFT_BLOCK_BYTES / ((size_t)w * g->out_c * es)));
  g_autofree char *acc = g_malloc((size_t)(MIN(block, g->out_h) * w * g->out_c) * es);
  g_autofree char *canvas = padded ? g_malloc0((size_t)(h * w * g->in_c) * es) : NULL;
  for (int64_t b = 0; b < g->batch; b++) {
    const char *x = cv->x + b * g->in_h * g->in_w * g->in_c * es;
    if (padded) {
      conv_pad_image(cv, x, canvas, w);
      x = canvas;
    }
    if (!conv_shifted_image(cv, x, h, w, cv->out + b * g->out_h * g->out_w * g->out_c * es, acc))
      return false;
  }
  return true;
}

/* Fill `row` (k_h * k_w * k_c elements) with the patch of group `gr` under output pixel
 * (b, oh, ow); taps falling in the padding are zeros. */
static void
im2col_row(const Conv *cv, int64_t b, int64_t oh, int64_t ow, int64_t gr, char *row)
{
  const ConvGeom *g = &cv->g;
  size_t es = cv->esize;
  size_t tap_bytes = (size_t)g->k_c * es;
  int64_t ih0 = oh * g->stride_h - g->pad_top, iw0 = ow * g->stride_w - g->pad_left;
  bool whole_rows = g->groups == 1 && iw0 >= 0 && iw0 + g->k_w <= g->in_w;
  for (int64_t kh = 0; kh < g->k_h; kh++, row += g->k_w * tap_bytes) {
    int64_t ih = ih0 + kh;
    if (ih < 0 || ih >= g->in_h) {
      memset(row, 0, g->k_w * tap_bytes);
      continue;
    }
    const char *src = cv->x + (((b * g->in_h + ih) * g->in_w) * g->in_c + gr * g->k_c) * es;
    if (whole_rows) {
      memcpy(row, src + iw0 * g->in_c * es, g->k_w * tap_bytes);
      continue;
    }
    for (int64_t kw = 0; kw < g->k_w; kw++) {
      int64_t iw = iw0 + kw;
      if (iw < 0 || iw >= g->in_w)
        memset(row + kw * tap_bytes, 0, tap_bytes);
      else
        memcpy(row + kw * tap_bytes, src + iw * g->in_c * es, tap_bytes);
    }
  }
}

/* The general path: im2col over blocks of output pixels (all images in one sequence), one GEMM
 * per block and group. */
static bool
conv_im2col(const Conv *cv)
{
  const ConvGeom *g = &cv->g;
  size_t es = cv->esize;
  int64_t k = g->k_h * g->k_w * g->k_c, opg = g->out_c / g->groups;
  int64_t pixels = g->batch * g->out_h * g->out_w;
  int64_t block = MIN(pixels, MAX(1, (int64_t)(IM2COL_BLOCK_BYTES / ((size_t)k * es))));
  g_autofree char *col = g_malloc((size_t)(block * k) * es);
  for (int64_t p0 = 0; p0 < pixels; p0 += block) {
    if (tr_cancel_requested())
      return false;
    int64_t p1 = MIN(pixels, p0 + block);
    for (int64_t gr = 0; gr < g->groups; gr++) {
      for (int64_t p = p0; p < p1; p++) {
        int64_t ow = p % g->out_w, oh = (p / g->out_w) % g->out_h, b = p / (g->out_w * g->out_h);
        im2col_row(cv, b, oh, ow, gr, col + (p - p0) * k * es);
      }
      Gemm gm = {.m = p1 - p0,
                 .n = opg,
                 .k = k,
                 .a = col,
                 .a_rs = k,
                 .a_cs = 1,
                 .b = cv->f + gr * opg * es,
                 .b_rs = g->out_c,
                 .b_cs = 1,
                 .c = cv->out + (p0 * g->out_c + gr * opg) * es,
                 .c_rs = g->out_c};
      if (!gemm_run(cv->dtype, &gm))
        return false;
    }
  }
  return true;
}

/* Note "FORMULATION: GEMM" after one of Trellis's own Conv2D paths, whose GEMMs noted theirs. */
static void
conv_note_kernel(const char *formulation)
{
  static __thread char name[96];
  g_snprintf(name, sizeof name, "%s: %s", formulation, tr_last_kernel());
  tr_note_kernel(name);
}

static bool
conv2d_kernel(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out, GError **error)
{
  Conv cv = {.dtype = out->dtype, .esize = tr_dtype_size(out->dtype)};
  if (!conv_geometry(&in[0]->shape, &in[1]->shape, attrs, &cv.g, error))
    return false;
  const ConvGeom *g = &cv.g;
  if (tr_tensor_num_elements(out) == 0)
    return true;
  if (tr_tensor_num_elements(in[0]) == 0) {
    memset(out->buf->data, 0, (size_t)tr_tensor_num_elements(out) * cv.esize);
    return true;
  }
  if (tr_tensor_num_elements(in[1]) == 0) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, "Conv2D",
                    "filter must not have zero elements (i.e. all dimensions must be non-zero)");
    return false;
  }
  g_autoptr(TrTensor) x = tr_tensor_contiguous(in[0]);
  g_autoptr(TrTensor) f = tr_tensor_contiguous(in[1]);
  cv.x = tr_tensor_data(x);
  cv.f = tr_tensor_data(f);
  cv.out = tr_tensor_data(out);

  if (cv.dtype == TR_FLOAT32) {
    TrDnnlStatus s =
        tr_dnnl_conv(TR_DNNL_FORWARD, g, (const float *)cv.x, (const float *)cv.f, (float *)cv.out);
    if (s == TR_DNNL_CANCELLED)
      tr_set_cancelled(error, "Conv2D");
    if (s != TR_DNNL_DECLINED)
      return s == TR_DNNL_DONE;
  }
  /* The kernel notes name the GEMM under the formulation: "shifted GEMM: OpenBLAS sgemm". */
  bool unit_stride = g->stride_h == 1 && g->stride_w == 1, done;
  const char *formulation;
  if (unit_stride && g->k_h == 1 && g->k_w == 1) {
    formulation = "pointwise GEMM";
    done = conv_pointwise(&cv);
  } else if (unit_stride && g->k_c >= SHIFT_MIN_DEPTH) {
    formulation = "shifted GEMM";
    done = conv_shifted(&cv);
  } else {
    formulation = "im2col GEMM";
    done = conv_im2col(&cv);
  }
  conv_note_kernel(formulation);
  if (!done)
    tr_set_cancelled(error, "Conv2D");
  return done;
}

TrTensor *
tr_conv2d(TrTensor *input, TrTensor *filters, const int64_t strides[2], TrPadding padding,
          GError **error)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.strides[0] = strides[0];
  attrs.strides[1] = strides[1];
  attrs.padding = padding;
  TrTensor *in[2] = {input, filters};
  return tr_op_run(TR_OP_CONV2D, in, 2, &attrs, error);
}

/* ---- Conv2D's gradients ------------------------------------------------------------------
 * Conv2DBackpropInput(filter, out_backprop) and Conv2DBackpropFilter(input, out_backprop): the
 * gradients of Conv2D's input and filter, for core/graph/grad.c. The shape of the result (the
 * input's or the filter's) is the attr `axes`, since TensorFlow's shape operand is static here.
 * Both walk every (output pixel, tap) pair once, accumulating in the output's dtype. */

/* The Conv2D geometry a backprop op is the gradient of: `known` (the filter or the input) and
 * the attr shape of the other, in Conv2D's argument order, checked against out_backprop. */
static bool
conv_backprop_geometry(TrOpId op, const TrShape *known, const TrShape *dy, const TrAttrs *attrs,
                       ConvGeom *g, GError **error)
{
  const char *type = tr_op_def(op)->type;
  if (attrs->n_axes != 4) {
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type, "%s needs a 4-d result shape", type);
    return false;
  }
  TrShape attr_shape = tr_shape_make(4, attrs->axes);
  bool for_input = op == TR_OP_CONV2D_BACKPROP_INPUT;
  if (!conv_geometry(for_input ? &attr_shape : known, for_input ? known : &attr_shape, attrs, g,
                     error))
    return false;
  TrShape want = tr_shape_make(4, (const int64_t[]){g->batch, g->out_h, g->out_w, g->out_c});
  if (dy->rank != TR_UNKNOWN && !tr_shape_is_compatible_with(&want, dy)) {
    g_autofree char *a = tr_shape_to_error_string(&want);
    g_autofree char *b = tr_shape_to_error_string(dy);
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, type,
                    "Conv2D output shape %s does not match out_backprop shape %s", a, b);
    return false;
  }
  return true;
}

static bool
conv_backprop_infer(TrOpId op, const TrTensorInfo *in, const TrAttrs *attrs, TrDType *dtype,
                    TrShape *shape, GError **error)
{
  if (!check_dtypes(in, tr_op_def(op)->type, tr_dtype_is_float, "half, bfloat16, float, double",
                    error))
    return false;
  ConvGeom g;
  if (!conv_backprop_geometry(op, &in[0].shape, &in[1].shape, attrs, &g, error))
    return false;
  *dtype = in[0].dtype;
  *shape = tr_shape_make(4, attrs->axes);
  return true;
}

static bool
conv_backprop_input_infer(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,
                          TrShape *shape, GError **error)
{
  return conv_backprop_infer(TR_OP_CONV2D_BACKPROP_INPUT, in, attrs, dtype, shape, error);
}

static bool
conv_backprop_filter_infer(const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,
                           TrShape *shape, GError **error)
{
  return conv_backprop_infer(TR_OP_CONV2D_BACKPROP_FILTER, in, attrs, dtype, shape, error);
}

/* One (output pixel, tap) pair: `xi` indexes the input, `fi` the filter, `yi` out_backprop.
 * The cancel flag is polled once per output row; false when an interrupt stopped it. */
#define CONV_BACKPROP(NAME, T)                                                                     \
  static bool NAME(const ConvGeom *g, bool for_input, const T *known, const T *dy, T *out)         \
  {                                                                                                \
    int64_t opg = g->out_c / g->groups;                                                            \
    for (int64_t row = 0; row < g->batch * g->out_h; row++) {                                      \
      if (tr_cancel_requested())                                                                   \
        return false;                                                                              \
      int64_t b = row / g->out_h, oh = row % g->out_h;                                             \
      for (int64_t ow = 0; ow < g->out_w; ow++)                                                    \
        for (int64_t kh = 0; kh < g->k_h; kh++) {                                                  \
          int64_t ih = oh * g->stride_h - g->pad_top + kh;                                         \
          if (ih < 0 || ih >= g->in_h)                                                             \
            continue;                                                                              \
          for (int64_t kw = 0; kw < g->k_w; kw++) {                                                \
            int64_t iw = ow * g->stride_w - g->pad_left + kw;                                      \
            if (iw < 0 || iw >= g->in_w)                                                           \
              continue;                                                                            \
            const T *d = dy + ((b * g->out_h + oh) * g->out_w + ow) * g->out_c;                    \
            int64_t x0 = ((b * g->in_h + ih) * g->in_w + iw) * g->in_c;                            \
            int64_t f0 = (kh * g->k_w + kw) * g->k_c * g->out_c;                                   \
            for (int64_t oc = 0; oc < g->out_c; oc++) {                                            \
              int64_t base = (oc / opg) * g->k_c;                                                  \
              for (int64_t c = 0; c < g->k_c; c++) {                                               \
                int64_t xi = x0 + base + c, fi = f0 + c * g->out_c + oc;                           \
                if (for_input)                                                                     \
                  out[xi] += known[fi] * d[oc];                                                    \
                else                                                                               \
                  out[fi] += known[xi] * d[oc];                                                    \
              }                                                                                    \
            }                                                                                      \
          }                                                                                        \
        }                                                                                          \
    }                                                                                              \
    return true;                                                                                   \
  }
CONV_BACKPROP(conv_backprop_f32, float)
CONV_BACKPROP(conv_backprop_f64, double)
#undef CONV_BACKPROP

static bool
conv_backprop_kernel(TrOpId op, TrTensor *const *in, const TrAttrs *attrs, TrTensor *out,
                     GError **error)
{
  ConvGeom g;
  if (!conv_backprop_geometry(op, &in[0]->shape, &in[1]->shape, attrs, &g, error))
    return false;
  int64_t n = tr_tensor_num_elements(out);
  if (n == 0)
    return true;
  memset(tr_tensor_data(out), 0, (size_t)n * tr_dtype_size(out->dtype));
  if (tr_tensor_num_elements(in[1]) == 0 || g.groups <= 0)
    return true;
  g_autoptr(TrTensor) known = tr_tensor_contiguous(in[0]);
  g_autoptr(TrTensor) dy = tr_tensor_contiguous(in[1]);
  bool for_input = op == TR_OP_CONV2D_BACKPROP_INPUT, done;
  if (out->dtype == TR_FLOAT32 && tr_tensor_num_elements(known) > 0) {
    TrDnnlStatus s = tr_dnnl_conv(for_input ? TR_DNNL_BACKWARD_DATA : TR_DNNL_BACKWARD_WEIGHTS, &g,
                                  tr_tensor_data(known), tr_tensor_data(dy), tr_tensor_data(out));
    if (s == TR_DNNL_CANCELLED)
      tr_set_cancelled(error, tr_op_def(op)->type);
    if (s != TR_DNNL_DECLINED)
      return s == TR_DNNL_DONE;
    /* A tile may have written part of it: the loop below adds into zeros. */
    memset(tr_tensor_data(out), 0, (size_t)n * tr_dtype_size(out->dtype));
  }
  tr_note_kernel("direct loop");
  if (out->dtype == TR_FLOAT64) {
    done = conv_backprop_f64(&g, for_input, tr_tensor_data(known), tr_tensor_data(dy),
                             tr_tensor_data(out));
  } else if (out->dtype == TR_FLOAT32) {
    done = conv_backprop_f32(&g, for_input, tr_tensor_data(known), tr_tensor_data(dy),
                             tr_tensor_data(out));
  } else {
    tr_set_op_error(error, TR_ERROR_UNIMPLEMENTED, tr_op_def(op)->type,
                    "%s is implemented for float and double only", tr_op_def(op)->type);
    return false;
  }
  if (!done)
    tr_set_cancelled(error, tr_op_def(op)->type);
  return done;
}

static bool
conv_backprop_input_kernel(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out,
                           GError **error)
{
  return conv_backprop_kernel(TR_OP_CONV2D_BACKPROP_INPUT, in, attrs, out, error);
}

static bool
conv_backprop_filter_kernel(TrTensor *const *in, int n_in, const TrAttrs *attrs, TrTensor *out,
                            GError **error)
{
  return conv_backprop_kernel(TR_OP_CONV2D_BACKPROP_FILTER, in, attrs, out, error);
}

/* ---- registration ----------------------------------------------------------------------- */

void
tr_ops_register_linalg(TrOpDef *defs)
{
  defs[TR_OP_MATMUL] =
      (TrOpDef){.name = "MatMul", .n_inputs = 2, .infer = matmul_infer, .kernel = matmul_kernel};
  /* tf.matmul names its node MatMul whichever op it picks. */
  defs[TR_OP_BATCH_MATMUL] = (TrOpDef){
      .name = "MatMul", .n_inputs = 2, .infer = batch_matmul_infer, .kernel = matmul_kernel};
  defs[TR_OP_CONV2D] =
      (TrOpDef){.name = "Conv2D", .n_inputs = 2, .infer = conv2d_infer, .kernel = conv2d_kernel};
  defs[TR_OP_CONV2D_BACKPROP_INPUT] = (TrOpDef){.name = "Conv2DBackpropInput",
                                                .n_inputs = 2,
                                                .infer = conv_backprop_input_infer,
                                                .kernel = conv_backprop_input_kernel};
  defs[TR_OP_CONV2D_BACKPROP_FILTER] = (TrOpDef){.name = "Conv2DBackpropFilter",
                                                 .n_inputs = 2,
                                                 .infer = conv_backprop_filter_infer,
                                                 .kernel = conv_backprop_filter_kernel};
}
