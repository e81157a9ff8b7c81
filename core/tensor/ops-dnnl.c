/* ops-dnnl.c — oneDNN's float32 convolutions and SGEMM, where they beat Trellis's own kernels.
 *
 * oneDNN (Debian's libdnnl2; TensorFlow and PyTorch use it for x86 CPU convolutions) generates
 * kernels for the CPU it runs on. Where it is used:
 *  - Conv2D and SGEMM when oneDNN's effective instruction set has AVX-512 (avx512_core and
 *    above). Measured on a 2-core AMD EPYC (Zen 4), alternating rounds on a quiet machine: its
 *    direct NHWC convolution ("brgconv") ran the guide's [1,200,200,100] * [3,3,100,100] at
 *    182 GFLOP/s, Trellis's shifted GEMM at 162 on oneDNN's SGEMM (about 70 on OpenBLAS's, as
 *    issue 19 measured); its SGEMM 1.2-2.4x OpenBLAS's (whose AVX-512 core is Cooperlake) from
 *    64^3 multiply-adds, 0.1-0.7x below. On an AVX2 CPU the
 *    shifted GEMM over OpenBLAS took 0.76x torch's (oneDNN) time (issue 19), so Trellis keeps
 *    its own kernels there.
 *  - Conv2DBackpropInput and Conv2DBackpropFilter on any CPU: the alternative is a direct loop.
 * A convolution whose only oneDNN kernel is the reference one ("ref:any": odd groupings) is
 * declined for Conv2D, whose own GEMM paths are faster.
 *
 * A caveat: on an oversubscribed machine (more runnable threads than cores) an OpenMP team
 * waits at every barrier for whichever of its threads was preempted, and OpenBLAS's threads
 * suffer less from it. Measured on the EPYC above at load 8: 256^3 SGEMM best 0.15 ms on
 * oneDNN, 0.33 on OpenBLAS, but mean 2.3 ms against 0.7. PyTorch's kernels (oneDNN on OpenMP)
 * share this; the choice above is for a machine that is not oversubscribed.
 *
 * The library is opened at the first use, as OpenBLAS is (ops-linalg.c): most programs never
 * convolve, and it is 40 MB with libstdc++ and libgomp behind it. When it cannot be opened
 * everything stays on Trellis's own kernels. Threads: oneDNN (built on OpenMP) runs on
 * omp_get_max_threads() threads, every core unless OMP_NUM_THREADS says otherwise: the same
 * count as OpenBLAS's pool, which Trellis leaves at its default too.
 *
 * Interrupts: the cancel flag is polled between tiles of about tr_dnnl_tile_macs multiply-adds
 * (4 G, as ops-linalg.c's GEMM_CHUNK_MACS): whole images when one image is less work than
 * that, else bands of output rows of one image. An interrupt waits for the tile that runs:
 * measured on the 2-core EPYC above, busy with other work (load 7), flag set 300 ms into a
 * [4,128,128,256] * [3,3,256,256] SAME convolution (39 G multiply-adds), Conv2D returned 10 ms
 * later, Conv2DBackpropFilter 99 ms, Conv2DBackpropInput 164 ms (its kernel is oneDNN's
 * slower "jit" one); a slow AVX2 core would take a few times that. Tiles are convolutions of
 * their own: rows that other tiles need are read twice, never written twice
 * (Conv2DBackpropInput tiles input rows; Conv2DBackpropFilter sums the tiles' filter
 * gradients).
 *
 * Primitive descriptors are made per call (with the filters' reorder, 10-15 us a call);
 * oneDNN's own primitive cache keeps the generated code of the last 1024 shapes, so a shape
 * seen before costs no JIT.
 */
#include "linalg-dnnl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <oneapi/dnnl/dnnl.h>
#include <stdio.h>
#include <string.h>

#define DNNL_LIBRARY "libdnnl.so.2"

/* Multiply-adds of a tile: an interrupt waits at most one tile. */
int64_t tr_dnnl_tile_macs = (int64_t)1 << 32;
/* Conv2D below this many multiply-adds stays on Trellis's kernels: a oneDNN call costs 10-15 us
 * beyond its arithmetic (descriptors, the filters' reorder). Measured on the EPYC above: 37 K
 * multiply-adds 0.2x as fast on oneDNN, 200 K even, 590 K 3.8x, 15-60 M 1.6-4.7x. */
int64_t tr_dnnl_min_macs = (int64_t)1 << 18;
/* SGEMM from 64^3 multiply-adds, where oneDNN's overtook OpenBLAS's (see above). */
#define SGEMM_MIN_MACS ((int64_t)1 << 18)

/* The functions used, loaded by name. */
#define DNNL_FUNCTIONS(X)                                                                          \
  X(dnnl_engine_create)                                                                            \
  X(dnnl_stream_create)                                                                            \
  X(dnnl_stream_wait)                                                                              \
  X(dnnl_stream_destroy)                                                                           \
  X(dnnl_memory_desc_init_by_tag)                                                                  \
  X(dnnl_memory_desc_equal)                                                                        \
  X(dnnl_memory_create)                                                                            \
  X(dnnl_memory_destroy)                                                                           \
  X(dnnl_convolution_forward_desc_init)                                                            \
  X(dnnl_convolution_backward_data_desc_init)                                                      \
  X(dnnl_convolution_backward_weights_desc_init)                                                   \
  X(dnnl_primitive_desc_create)                                                                    \
  X(dnnl_primitive_desc_destroy)                                                                   \
  X(dnnl_primitive_desc_query)                                                                     \
  X(dnnl_primitive_desc_query_md)                                                                  \
  X(dnnl_reorder_primitive_desc_create)                                                            \
  X(dnnl_primitive_create)                                                                         \
  X(dnnl_primitive_destroy)                                                                        \
  X(dnnl_primitive_execute)                                                                        \
  X(dnnl_primitive_attr_create)                                                                    \
  X(dnnl_primitive_attr_destroy)                                                                   \
  X(dnnl_primitive_attr_set_post_ops)                                                              \
  X(dnnl_post_ops_create)                                                                          \
  X(dnnl_post_ops_destroy)                                                                         \
  X(dnnl_post_ops_append_sum)                                                                      \
  X(dnnl_get_effective_cpu_isa)                                                                    \
  X(dnnl_version)                                                                                  \
  X(dnnl_sgemm)

typedef struct {
#define X(name) __typeof__(name) *name;
  DNNL_FUNCTIONS(X)
#undef X
  dnnl_engine_t engine; /* the CPU engine; engines are thread-safe, streams are made per call */
  bool avx512;          /* oneDNN's instruction set includes AVX-512: it takes Conv2D and SGEMM */
  char isa[64];         /* that instruction set, for tr_compute_description() */
} Dnnl;

static const char *
isa_name(dnnl_cpu_isa_t isa)
{
  switch (isa) {
    case dnnl_cpu_isa_sse41:
      return "sse41";
    case dnnl_cpu_isa_avx:
      return "avx";
    case dnnl_cpu_isa_avx2:
      return "avx2";
    case dnnl_cpu_isa_avx2_vnni:
      return "avx2_vnni";
    case dnnl_cpu_isa_avx512_core:
      return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni:
      return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16:
      return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx:
      return "avx512_core_amx";
    default:
      return "other";
  }
}

/* oneDNN's OpenMP threads are made by its first parallel call and live on. A signal sent to
 * the process (Ctrl+C at a terminal, a Jupyter client's SIGINT) goes to any thread that does not
 * block it: on a worker, Python's and Trellis's handlers run off the main thread, where Python
 * 3.11 does not mark the interrupt for the interpreter (a Ctrl+C during a matmul went unnoticed),
 * and a handler may interrupt the worker inside malloc. So the workers are made here, by one
 * parallel SGEMM run with every asynchronous signal blocked, and inherit that mask; signals sent
 * to a given thread (the kernel's wake-ups of its main thread) are not affected. */
/* Every asynchronous signal blocked (synchronous ones, a fault's, cannot be); returns the mask
 * before, for unblock_signals. */
static sigset_t
block_signals(void)
{
  sigset_t block, old;
  sigfillset(&block);
  static const int synchronous[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT, SIGSYS};
  for (size_t i = 0; i < G_N_ELEMENTS(synchronous); i++)
    sigdelset(&block, synchronous[i]);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  return old;
}

static void
unblock_signals(const sigset_t *old)
{
  pthread_sigmask(SIG_SETMASK, old, NULL); /* a signal that came meanwhile is handled now */
}

static void
spawn_workers(const Dnnl *d)
{
  sigset_t old = block_signals();
  enum { N = 512 }; /* large enough that oneDNN runs it on every thread */
  float *a = g_new0(float, N *N), *b = g_new0(float, N *N), *c = g_new0(float, N *N);
  d->dnnl_sgemm('N', 'N', N, N, N, 1.0f, a, N, b, N, 0.0f, c, N);
  g_free(a);
  g_free(b);
  g_free(c);
  unblock_signals(&old);
}

/* NULL when oneDNN cannot be opened: then every caller runs its own kernel. */
static gpointer
dnnl_load(gpointer unused)
{
  static Dnnl d;
  void *lib = dlopen(DNNL_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    g_debug("oneDNN not used: %s", dlerror());
    return NULL;
  }
#define X(name)                                                                                    \
  if (!(d.name = (__typeof__(name) *)dlsym(lib, #name))) {                                         \
    g_debug("oneDNN not used: %s lacks %s", DNNL_LIBRARY, #name);                                  \
    return NULL;                                                                                   \
  }
  DNNL_FUNCTIONS(X)
#undef X
  if (d.dnnl_engine_create(&d.engine, dnnl_cpu, 0) != dnnl_success)
    return NULL;
  dnnl_cpu_isa_t isa = d.dnnl_get_effective_cpu_isa();
  /* The ISA values are bit sets, each including the ones below it. */
  d.avx512 = (isa & dnnl_cpu_isa_avx512_core) == dnnl_cpu_isa_avx512_core;
  const dnnl_version_t *v = d.dnnl_version();
  g_snprintf(d.isa, sizeof d.isa, "oneDNN %d.%d.%d %s", v->major, v->minor, v->patch,
             isa_name(isa));
  spawn_workers(&d);
  return &d;
}

static const Dnnl *
dnnl(void)
{
  static GOnce once = G_ONCE_INIT;
  return g_once(&once, dnnl_load, NULL);
}

/* ---- which kernel ran ------------------------------------------------------------------- */

/* A static string, or conv_kernel below: noting costs a store on the GEMM path. */
static __thread const char *last_kernel = "";
/* "oneDNN IMPL": the name of the convolution kernel oneDNN chose last on this thread. */
static __thread char conv_kernel[96];

void
tr_note_kernel(const char *name)
{
  last_kernel = name;
}

const char *
tr_last_kernel(void)
{
  return last_kernel;
}

const char *
tr_dnnl_description(void)
{
  const Dnnl *d = dnnl();
  if (!d)
    return "oneDNN unavailable";
  return d->isa;
}

/* ---- SGEMM ------------------------------------------------------------------------------ */

bool
tr_dnnl_sgemm_wins(int64_t m, int64_t n, int64_t k)
{
  if ((double)m * (double)n * (double)k < (double)MIN(SGEMM_MIN_MACS, tr_dnnl_min_macs))
    return false;
  const Dnnl *d = dnnl();
  return d && d->avx512;
}

void
tr_dnnl_sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float *a,
              int64_t lda, const float *b, int64_t ldb, float beta, float *c, int64_t ldc)
{
  /* oneDNN checks only the arguments, which ops-linalg.c's layouts satisfy. A SIGINT handled
   * while its JIT-compiled GEMM ran corrupted the heap (Ctrl+C during a 8000x8000 matmul ended
   * the process in malloc's abort, also on one thread); signals now wait for the call's end, a
   * tile of at most ~4 G multiply-adds, so interrupts still land between tiles. */
  sigset_t old = block_signals();
  dnnl_status_t s = dnnl()->dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, 1.0f, a,
                                       lda, b, ldb, beta, c, ldc);
  unblock_signals(&old);
  if (s != dnnl_success)
    g_error("dnnl_sgemm(%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
            ") failed: status %d",
            m, n, k, (int)s);
}

/* ---- convolution tiles ------------------------------------------------------------------ */

/* One tile: a convolution of its own over images [b0, b0 + nb) whose input rows [ih0, ih1)
 * (padded by pad_t and pad_b zero rows) give output rows [oh0, oh1). Tiles of several images
 * have all their rows. */
typedef struct {
  int64_t b0, nb;
  int64_t ih0, ih1;
  int64_t oh0, oh1;
  int64_t pad_t, pad_b;
} Tile;

/* The tile of output rows [oh0, oh1): the input rows their windows read. oneDNN checks
 * out = (in - k + pad_t + pad_b) / stride + 1 in integers, as TensorFlow's VALID size rounds
 * down, so rows past the last window need no negative padding. */
static Tile
tile_for_output_rows(const ConvGeom *g, int64_t b0, int64_t nb, int64_t oh0, int64_t oh1)
{
  int64_t start = oh0 * g->stride_h - g->pad_top;              /* first row read, maybe < 0 */
  int64_t end = (oh1 - 1) * g->stride_h - g->pad_top + g->k_h; /* past the last one */
  Tile t = {.b0 = b0, .nb = nb, .oh0 = oh0, .oh1 = oh1};
  t.ih0 = MAX(0, start);
  t.ih1 = MIN(g->in_h, end);
  if (oh0 == 0 && oh1 == g->out_h)
    t.ih1 = g->in_h; /* whole images, rows past the last window too: they keep images apart */
  t.pad_t = t.ih0 - start;
  t.pad_b = MAX(0, end - t.ih1);
  return t;
}

/* The tile of input rows [ih0, ih1), for the input's gradient: the output rows whose windows
 * reach them. ih0 is 0 or o * stride - pad_top for some output row o, so that no padding is
 * negative (a stride larger than the filter skips rows). */
static Tile
tile_for_input_rows(const ConvGeom *g, int64_t b0, int64_t nb, int64_t ih0, int64_t ih1)
{
  int64_t s = g->stride_h;
  int64_t first = ih0 + g->pad_top - g->k_h + 1; /* o * s must reach this */
  Tile t = {.b0 = b0, .nb = nb, .ih0 = ih0, .ih1 = ih1};
  t.oh0 = first <= 0 ? 0 : (first + s - 1) / s;
  t.oh1 = MIN(g->out_h, (ih1 - 1 + g->pad_top) / s + 1);
  t.pad_t = ih0 + g->pad_top - t.oh0 * s;
  t.pad_b = MAX(0, (t.oh1 - 1) * s - g->pad_top + g->k_h - ih1);
  return t;
}

/* The state of one tr_dnnl_conv call. */
typedef struct {
  const Dnnl *d;
  TrDnnlConvKind kind;
  const ConvGeom *g;
  const float *a, *b; /* the operands, as tr_dnnl_conv describes them */
  float *out;
  dnnl_stream_t stream;
  dnnl_memory_desc_t user_w;  /* the filters as Trellis lays them out (HWIO) */
  dnnl_memory_desc_t inner_w; /* the layout of `w`, oneDNN's choice for the current tiles */
  dnnl_memory_t w;            /* the filters (or their gradient) in that layout; owned */
  bool tile_done;             /* a tile of BACKWARD_WEIGHTS has written `out` (then add) */
  char impl[64];              /* oneDNN's name of the kernel it chose for the last tile */
} Run;

static bool
ok(dnnl_status_t s)
{
  return s == dnnl_success;
}

/* An nhwc memory descriptor of nb images with `rows` rows of width x channels. */
static dnnl_memory_desc_t
image_md(const Dnnl *d, int64_t nb, int64_t channels, int64_t rows, int64_t width)
{
  dnnl_memory_desc_t md;
  d->dnnl_memory_desc_init_by_tag(&md, 4, (dnnl_dims_t){nb, channels, rows, width}, dnnl_f32,
                                  dnnl_nhwc);
  return md;
}

/* The filters' descriptor: `tag` is HWIO's (hwio, or hwigo with groups) or any. */
static dnnl_memory_desc_t
weights_md(const Dnnl *d, const ConvGeom *g, bool any)
{
  dnnl_memory_desc_t md;
  int64_t opg = g->out_c / g->groups;
  if (g->groups == 1)
    d->dnnl_memory_desc_init_by_tag(&md, 4, (dnnl_dims_t){g->out_c, g->k_c, g->k_h, g->k_w},
                                    dnnl_f32, any ? dnnl_format_tag_any : dnnl_hwio);
  else
    d->dnnl_memory_desc_init_by_tag(&md, 5, (dnnl_dims_t){g->groups, opg, g->k_c, g->k_h, g->k_w},
                                    dnnl_f32, any ? dnnl_format_tag_any : dnnl_hwigo);
  return md;
}

/* A memory object over `data` (owned by the caller) described by `md`; NULL on failure. */
static dnnl_memory_t
memory(const Dnnl *d, const dnnl_memory_desc_t *md, const void *data)
{
  dnnl_memory_t m = NULL;
  if (!ok(d->dnnl_memory_create(&m, md, d->engine, (void *)data)))
    return NULL;
  return m;
}

/* Copy `src` (laid out as src_md) to `dst` (dst_md), adding to dst's values when `add`. */
static bool
reorder(Run *run, const dnnl_memory_desc_t *src_md, dnnl_memory_t src,
        const dnnl_memory_desc_t *dst_md, dnnl_memory_t dst, bool add)
{
  const Dnnl *d = run->d;
  dnnl_primitive_attr_t attr = NULL;
  dnnl_post_ops_t ops = NULL;
  dnnl_primitive_desc_t pd = NULL;
  dnnl_primitive_t p = NULL;
  bool good = true;
  if (add)
    good = ok(d->dnnl_primitive_attr_create(&attr)) && ok(d->dnnl_post_ops_create(&ops)) &&
           ok(d->dnnl_post_ops_append_sum(ops, 1.0f)) &&
           ok(d->dnnl_primitive_attr_set_post_ops(attr, ops));
  good =
      good &&
      ok(d->dnnl_reorder_primitive_desc_create(&pd, src_md, d->engine, dst_md, d->engine, attr)) &&
      ok(d->dnnl_primitive_create(&p, pd));
  if (good) {
    dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}};
    sigset_t old = block_signals(); /* as around every oneDNN kernel: see tr_dnnl_sgemm */
    good = ok(d->dnnl_primitive_execute(p, run->stream, 2, args)) &&
           ok(d->dnnl_stream_wait(run->stream));
    unblock_signals(&old);
  }
  d->dnnl_primitive_destroy(p);
  d->dnnl_primitive_desc_destroy(pd);
  d->dnnl_post_ops_destroy(ops);
  d->dnnl_primitive_attr_destroy(attr);
  return good;
}

/* Make run->w a buffer in layout `want` (oneDNN's choice for the filters); for FORWARD and
 * BACKWARD_DATA also fill it with the filters, reordered from Trellis's HWIO. Tiles usually
 * agree on the layout, so this reorders once per call. */
static bool
weights_ready(Run *run, const dnnl_memory_desc_t *want)
{
  const Dnnl *d = run->d;
  if (run->w && d->dnnl_memory_desc_equal(&run->inner_w, want))
    return true;
  if (run->w && run->kind == TR_DNNL_BACKWARD_WEIGHTS)
    return false; /* the gradient summed so far is in the old layout: never seen, decline */
  d->dnnl_memory_destroy(run->w);
  run->w = NULL;
  run->inner_w = *want;
  if (!ok(d->dnnl_memory_create(&run->w, want, d->engine, DNNL_MEMORY_ALLOCATE)))
    return false;
  if (run->kind == TR_DNNL_BACKWARD_WEIGHTS)
    return true;
  const float *filters = run->kind == TR_DNNL_FORWARD ? run->b : run->a;
  dnnl_memory_t user = memory(d, &run->user_w, filters);
  bool good = user && reorder(run, &run->user_w, user, want, run->w, false);
  d->dnnl_memory_destroy(user);
  return good;
}

/* The descriptors of one tile's convolution: the forward one (the hint of the backward ones)
 * and the one that runs. Either may be NULL on return (owned by the caller). */
static bool
tile_primitive_desc(Run *run, const Tile *t, dnnl_primitive_desc_t *fwd_pd,
                    dnnl_primitive_desc_t *pd)
{
  const Dnnl *d = run->d;
  const ConvGeom *g = run->g;
  dnnl_memory_desc_t src = image_md(d, t->nb, g->in_c, t->ih1 - t->ih0, g->in_w);
  dnnl_memory_desc_t dst = image_md(d, t->nb, g->out_c, t->oh1 - t->oh0, g->out_w);
  dnnl_memory_desc_t w = weights_md(d, g, true);
  dnnl_dims_t strides = {g->stride_h, g->stride_w};
  dnnl_dims_t pad_l = {t->pad_t, g->pad_left};
  /* oneDNN checks out = (in - k + pad_l + pad_r) / stride + 1 in integers, as TensorFlow
   * computes VALID sizes: columns past the last window need no negative padding. */
  dnnl_dims_t pad_r = {t->pad_b,
                       MAX(0, (g->out_w - 1) * g->stride_w + g->k_w - g->in_w - g->pad_left)};
  dnnl_convolution_desc_t fwd, bwd;
  dnnl_prop_kind_t prop =
      run->kind == TR_DNNL_FORWARD ? dnnl_forward_inference : dnnl_forward_training;
  *fwd_pd = *pd = NULL;
  if (!ok(d->dnnl_convolution_forward_desc_init(&fwd, prop, dnnl_convolution_direct, &src, &w, NULL,
                                                &dst, strides, pad_l, pad_r)) ||
      !ok(d->dnnl_primitive_desc_create(fwd_pd, &fwd, NULL, d->engine, NULL)))
    return false;
  if (run->kind == TR_DNNL_FORWARD) {
    *pd = *fwd_pd;
    *fwd_pd = NULL;
    return true;
  }
  if (run->kind == TR_DNNL_BACKWARD_DATA) {
    if (!ok(d->dnnl_convolution_backward_data_desc_init(&bwd, dnnl_convolution_direct, &src, &w,
                                                        &dst, strides, pad_l, pad_r)))
      return false;
  } else if (!ok(d->dnnl_convolution_backward_weights_desc_init(
                 &bwd, dnnl_convolution_direct, &src, &w, NULL, &dst, strides, pad_l, pad_r))) {
    return false;
  }
  return ok(d->dnnl_primitive_desc_create(pd, &bwd, NULL, d->engine, *fwd_pd));
}

/* How one tile ended. */
typedef enum { TILE_OK, TILE_FAILED, TILE_SLOW } TileStatus;

static TileStatus
run_tile(Run *run, const Tile *t, bool first)
{
  const Dnnl *d = run->d;
  const ConvGeom *g = run->g;
  dnnl_primitive_desc_t fwd_pd, pd;
  dnnl_primitive_t p = NULL;
  dnnl_memory_t src = NULL, dst = NULL;
  TileStatus status = TILE_FAILED;
  if (!tile_primitive_desc(run, t, &fwd_pd, &pd))
    goto out;
  const char *impl = NULL;
  d->dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
  g_strlcpy(run->impl, impl ? impl : "?", sizeof run->impl);
  if (first && run->kind == TR_DNNL_FORWARD && g_str_has_prefix(run->impl, "ref")) {
    status = TILE_SLOW;
    goto out;
  }
  bool grad_w = run->kind == TR_DNNL_BACKWARD_WEIGHTS;
  const dnnl_memory_desc_t *w_md = d->dnnl_primitive_desc_query_md(
      pd, grad_w ? dnnl_query_diff_weights_md : dnnl_query_weights_md, 0);
  if (!weights_ready(run, w_md))
    goto out;

  /* The tile's rows of the images and of the output (or their gradients). */
  size_t x_off = (size_t)(((t->b0 * g->in_h) + t->ih0) * g->in_w * g->in_c);
  size_t y_off = (size_t)(((t->b0 * g->out_h) + t->oh0) * g->out_w * g->out_c);
  const float *x = run->kind == TR_DNNL_BACKWARD_DATA ? run->out : run->a;
  const float *y = run->kind == TR_DNNL_FORWARD ? run->out : run->b;
  dnnl_memory_desc_t src_md = image_md(d, t->nb, g->in_c, t->ih1 - t->ih0, g->in_w);
  dnnl_memory_desc_t dst_md = image_md(d, t->nb, g->out_c, t->oh1 - t->oh0, g->out_w);
  src = memory(d, &src_md, x + x_off);
  dst = memory(d, &dst_md, y + y_off);
  if (!src || !dst || !ok(d->dnnl_primitive_create(&p, pd)))
    goto out;
  dnnl_exec_arg_t args[3];
  switch (run->kind) {
    case TR_DNNL_FORWARD:
      args[0] = (dnnl_exec_arg_t){DNNL_ARG_SRC, src};
      args[1] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, run->w};
      args[2] = (dnnl_exec_arg_t){DNNL_ARG_DST, dst};
      break;
    case TR_DNNL_BACKWARD_DATA:
      args[0] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_SRC, src};
      args[1] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, run->w};
      args[2] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_DST, dst};
      break;
    case TR_DNNL_BACKWARD_WEIGHTS:
      args[0] = (dnnl_exec_arg_t){DNNL_ARG_SRC, src};
      args[1] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_WEIGHTS, run->w};
      args[2] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_DST, dst};
      break;
  }
  sigset_t old = block_signals(); /* as around every oneDNN kernel: see tr_dnnl_sgemm */
  bool ran = ok(d->dnnl_primitive_execute(p, run->stream, 3, args)) &&
             ok(d->dnnl_stream_wait(run->stream));
  unblock_signals(&old);
  if (!ran)
    goto out;
  if (grad_w) {
    /* This tile's filter gradient, in oneDNN's layout, added into Trellis's. */
    dnnl_memory_t user = memory(d, &run->user_w, run->out);
    bool good = user && reorder(run, &run->inner_w, run->w, &run->user_w, user, run->tile_done);
    d->dnnl_memory_destroy(user);
    if (!good)
      goto out;
    run->tile_done = true;
  }
  status = TILE_OK;
out:
  d->dnnl_memory_destroy(src);
  d->dnnl_memory_destroy(dst);
  d->dnnl_primitive_destroy(p);
  d->dnnl_primitive_desc_destroy(pd);
  d->dnnl_primitive_desc_destroy(fwd_pd);
  return status;
}

/* Every tile of the call in order, polling the cancel flag before each. */
static TrDnnlStatus
run_tiles(Run *run)
{
  const ConvGeom *g = run->g;
  double row_macs = (double)g->out_w * (double)g->out_c * (double)(g->k_h * g->k_w * g->k_c);
  double image_macs = row_macs * (double)g->out_h;
  double budget = (double)MAX(tr_dnnl_tile_macs, 1);
  /* Whole images per tile, or (when one image is more than a tile) output rows per tile. */
  int64_t images = image_macs <= budget ? (int64_t)MIN(budget / image_macs, (double)g->batch) : 1;
  int64_t rows = image_macs <= budget ? g->out_h : (int64_t)MAX(1.0, budget / row_macs);
  bool first = true;
  for (int64_t b0 = 0; b0 < g->batch; b0 += images) {
    int64_t nb = MIN(images, g->batch - b0);
    for (int64_t o = 0; o < g->out_h; o += rows) {
      if (tr_cancel_requested())
        return TR_DNNL_CANCELLED;
      Tile t;
      if (run->kind != TR_DNNL_BACKWARD_DATA) {
        t = tile_for_output_rows(g, b0, nb, o, MIN(o + rows, g->out_h));
      } else {
        /* Input rows from the first one the tile's first output row reads (0 for the first
         * tile) to the first the next tile's reads (the last for the last tile). */
        int64_t ih0 = o == 0 ? 0 : MIN(g->in_h, MAX(0, o * g->stride_h - g->pad_top));
        int64_t o1 = o + rows;
        int64_t ih1 =
            o1 >= g->out_h ? g->in_h : MIN(g->in_h, MAX(0, o1 * g->stride_h - g->pad_top));
        if (ih1 <= ih0)
          continue;
        t = tile_for_input_rows(g, b0, nb, ih0, ih1);
        if (t.oh1 <= t.oh0) { /* rows no window reads: their gradient is zero */
          memset(run->out + ((b0 * g->in_h) + ih0) * g->in_w * g->in_c, 0,
                 sizeof(float) * (size_t)(nb * (ih1 - ih0) * g->in_w * g->in_c));
          continue;
        }
      }
      TileStatus s = run_tile(run, &t, first);
      if (s != TILE_OK) {
        if (s == TILE_FAILED)
          g_debug("oneDNN failed on a convolution tile (%s)", run->impl);
        return TR_DNNL_DECLINED;
      }
      first = false;
    }
  }
  return TR_DNNL_DONE;
}

TrDnnlStatus
tr_dnnl_conv(TrDnnlConvKind kind, const ConvGeom *g, const float *a, const float *b, float *out)
{
  double macs = (double)(g->batch * g->out_h * g->out_w) * (double)g->out_c *
                (double)(g->k_h * g->k_w * g->k_c);
  if (g->groups <= 0 || (kind == TR_DNNL_FORWARD && macs < (double)tr_dnnl_min_macs))
    return TR_DNNL_DECLINED; /* before loading oneDNN: a small Conv2D never needs it */
  const Dnnl *d = dnnl();
  if (!d || (kind == TR_DNNL_FORWARD && !d->avx512))
    return TR_DNNL_DECLINED;
  Run run = {.d = d, .kind = kind, .g = g, .a = a, .b = b, .out = out};
  run.user_w = weights_md(d, g, false);
  if (!ok(d->dnnl_stream_create(&run.stream, d->engine, dnnl_stream_default_flags)))
    return TR_DNNL_DECLINED;
  TrDnnlStatus status = run_tiles(&run);
  d->dnnl_memory_destroy(run.w);
  d->dnnl_stream_destroy(run.stream);
  if (status != TR_DNNL_DECLINED) {
    g_snprintf(conv_kernel, sizeof conv_kernel, "oneDNN %s", run.impl);
    tr_note_kernel(conv_kernel);
  }
  return status;
}
