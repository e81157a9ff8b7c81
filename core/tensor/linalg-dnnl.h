/* linalg-dnnl.h — oneDNN's kernels as ops-linalg.c calls them (private to core/tensor).
 *
 * ops-dnnl.c loads oneDNN on first use and decides, from the instruction set oneDNN finds,
 * which float32 work it takes: SGEMM and Conv2D on CPUs with AVX-512, Conv2D's gradients on any
 * CPU. ops-linalg.c asks before each kernel and runs its own path when the answer is no.
 */
#pragma once

#include "tr-tensor-private.h"

G_BEGIN_DECLS

/* Everything a Conv2D kernel needs to know about its shapes; dims may be TR_UNKNOWN in infer. */
typedef struct {
  int64_t batch, in_h, in_w, in_c; /* input [batch, in_h, in_w, in_c] */
  int64_t k_h, k_w, k_c, out_c;    /* filters [k_h, k_w, k_c, out_c]; k_c is depth per group */
  int64_t stride_h, stride_w;      /* window steps */
  int64_t out_h, out_w;            /* output rows and columns */
  int64_t pad_top, pad_left;       /* zeros before the first row / column (SAME) */
  int64_t groups;                  /* in_c / k_c; 0 when unknown */
} ConvGeom;

/* Which convolution a call computes: Conv2D, Conv2DBackpropInput or Conv2DBackpropFilter. */
typedef enum {
  TR_DNNL_FORWARD,
  TR_DNNL_BACKWARD_DATA,
  TR_DNNL_BACKWARD_WEIGHTS,
} TrDnnlConvKind;

/* How a oneDNN call ended. */
typedef enum {
  TR_DNNL_DONE,      /* the result is written */
  TR_DNNL_DECLINED,  /* not taken (no oneDNN, or only its slow reference kernel): nothing written */
  TR_DNNL_CANCELLED, /* an interrupt stopped it between two tiles: the result is partial */
} TrDnnlStatus;

/* Whether float32 GEMMs of m x n x k go to tr_dnnl_sgemm rather than OpenBLAS. */
bool tr_dnnl_sgemm_wins(int64_t m, int64_t n, int64_t k);

/* Row-major C = op(A)·op(B) + beta·C, as cblas_sgemm without the layout argument. */
void tr_dnnl_sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float *a,
                   int64_t lda, const float *b, int64_t ldb, float beta, float *c, int64_t ldc);

/* One float32 convolution of geometry `g` (batch, in_*, out_* and filters as Conv2D's), all
 * tensors contiguous (NHWC images, HWIO filters):
 *   FORWARD:          out = conv(x = a, filters = b)          [batch, out_h, out_w, out_c]
 *   BACKWARD_DATA:    out = d conv / d x, filters a, dy b    [batch, in_h, in_w, in_c]
 *   BACKWARD_WEIGHTS: out = d conv / d filters, x a, dy b    [k_h, k_w, k_c, out_c]
 * The work runs in tiles of whole images or of output rows, with the cancel flag polled
 * between tiles. */
TrDnnlStatus tr_dnnl_conv(TrDnnlConvKind kind, const ConvGeom *g, const float *a, const float *b,
                          float *out);

/* Multiply-adds of one convolution tile (between two cancel polls); tests lower it to make
 * small convolutions run in many tiles. */
extern int64_t tr_dnnl_tile_macs;
/* Multiply-adds from which Conv2D and SGEMM take oneDNN (where it is chosen at all): below,
 * creating its primitives costs more than it saves. Tests set 0 to run small cases on it. */
extern int64_t tr_dnnl_min_macs;

/* Record the kernel the current thread's last MatMul or Conv2D ran (tr_last_kernel()): a string
 * that stays valid until the thread's next note. */
void tr_note_kernel(const char *name);

/* "oneDNN 2.6.3 avx512_core_bf16" (version, instruction set it uses), or why it is not used. */
const char *tr_dnnl_description(void);

G_END_DECLS
