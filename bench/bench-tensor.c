/* bench-tensor.c — Trellis's tensor ops against their peers, measured side by side.
 *
 * First the machine: the CPU's vector features, the thread count every side uses, and the
 * libraries Trellis computes with (tr_compute_description). Then one line per figure, always in
 * the form
 *     NAME: VALUE UNIT [KERNEL] (PEER: VALUE UNIT, ratio R; PEER2: ...)
 * where KERNEL is the kernel Trellis took (tr_last_kernel) and R is Trellis's value divided by
 * the peer's, in the printed unit: for GFLOP/s higher is better (GEMM: >= 0.95 against the best
 * peer), for ns/op and ms lower is better (add: <= 0.5, conv2d: <= 1.0).
 * A side that cannot run prints "unavailable: REASON" in place of its value.
 *
 * The peers: raw cblas_sgemm (OpenBLAS) and dnnl_sgemm (oneDNN) calls on preallocated buffers
 * for GEMM; NumPy and PyTorch through peer-tensor.py, one /usr/bin/python3 process started once
 * and driven over pipes, PyTorch on the same number of threads as Trellis. Each figure
 * alternates rounds of the sides (rotating which goes first) and keeps each side's best round,
 * so background load hits all alike.
 */
#include "tr-ops.h"

#include <cblas.h>
#include <oneapi/dnnl/dnnl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef BENCH_PYTHON
#define BENCH_PYTHON ""
#endif
#ifndef BENCH_PEER_SCRIPT
#define BENCH_PEER_SCRIPT ""
#endif

/* The threads Trellis computes on: OpenBLAS's and oneDNN's (OpenMP) pools both default to
 * every core, and OMP_NUM_THREADS (when set) bounds oneDNN's; the peers get as many. */
static int
bench_threads(void)
{
  const char *omp = g_getenv("OMP_NUM_THREADS");
  int n = omp ? atoi(omp) : 0;
  return n > 0 ? n : (int)g_get_num_processors();
}

/* The CPU's vector features that the kernels choose by. */
static void
print_machine(void)
{
  __builtin_cpu_init();
  GString *f = g_string_new("");
  /* __builtin_cpu_supports takes a literal only. */
#define FEATURE(name)                                                                              \
  if (__builtin_cpu_supports(name))                                                                \
    g_string_append(f, " " name);
  FEATURE("avx")
  FEATURE("fma")
  FEATURE("avx2")
  FEATURE("avx512f")
  FEATURE("avx512bw")
  FEATURE("avx512vl")
  FEATURE("avx512vnni")
  FEATURE("avx512bf16")
#undef FEATURE
  printf("CPU features:%s; %d threads\n", f->str, bench_threads());
  printf("Trellis computes with: %s\n", tr_compute_description());
  fflush(stdout);
  g_string_free(f, TRUE);
}

static double
now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- reporting -------------------------------------------------------------------------- */

/* One side's result: a value in the figure's unit, or why there is none. */
typedef struct {
  double value; /* best round, in the figure's unit */
  char *error;  /* owned; non-NULL when this side could not be measured */
} Result;

static void
result_clear(Result *r)
{
  g_clear_pointer(&r->error, g_free);
}

/* One figure against `n_peers` peers; `kernel` names what Trellis ran (NULL: not shown). */
static void
report_peers(const char *name, const char *unit, const char *kernel, const Result *mine,
             int n_peers, const char *const *peer_names, const Result *theirs)
{
  GString *line = g_string_new(name);
  g_string_append(line, ": ");
  if (mine->error)
    g_string_append_printf(line, "unavailable: %s", mine->error);
  else
    g_string_append_printf(line, "%.1f %s", mine->value, unit);
  if (kernel && *kernel && !mine->error)
    g_string_append_printf(line, " [%s]", kernel);
  g_string_append(line, " (");
  for (int i = 0; i < n_peers; i++) {
    g_string_append_printf(line, "%s%s: ", i ? "; " : "", peer_names[i]);
    if (theirs[i].error)
      g_string_append_printf(line, "unavailable: %s", theirs[i].error);
    else
      g_string_append_printf(line, "%.1f %s", theirs[i].value, unit);
    if (!mine->error && !theirs[i].error)
      g_string_append_printf(line, ", ratio %.2f", mine->value / theirs[i].value);
  }
  g_string_append_c(line, ')');
  puts(line->str);
  fflush(stdout);
  g_string_free(line, TRUE);
}

static void
report(const char *name, const char *unit, const char *peer_name, const Result *mine,
       const Result *theirs)
{
  report_peers(name, unit, NULL, mine, 1, &peer_name, theirs);
}

/* ---- the Python peer -------------------------------------------------------------------- */

/* peer-tensor.py running under /usr/bin/python3, spoken to one line at a time. */
typedef struct {
  GPid pid;    /* the child, reaped by peer_stop */
  FILE *to;    /* its stdin */
  FILE *from;  /* its stdout */
  char *error; /* owned; why the peer is unavailable, or NULL */
} Peer;

static bool
peer_read_line(Peer *p, char *buf, size_t size)
{
  if (p->from && fgets(buf, (int)size, p->from)) {
    buf[strcspn(buf, "\n")] = '\0';
    return true;
  }
  g_free(p->error);
  p->error = g_strdup("the Python peer exited");
  return false;
}

static void
peer_start(Peer *p)
{
  *p = (Peer){0};
  if (!*BENCH_PYTHON || access(BENCH_PYTHON, X_OK) != 0) {
    p->error = g_strdup_printf("%s not found", *BENCH_PYTHON ? BENCH_PYTHON : "python3");
    return;
  }
  char *args[] = {BENCH_PYTHON, BENCH_PEER_SCRIPT, NULL};
  int in_fd, out_fd;
  GError *error = NULL;
  if (!g_spawn_async_with_pipes(NULL, args, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &p->pid,
                                &in_fd, &out_fd, NULL, &error)) {
    p->error = g_strdup(error->message);
    g_error_free(error);
    return;
  }
  p->to = fdopen(in_fd, "w");
  p->from = fdopen(out_fd, "r");
  char line[512];
  if (peer_read_line(p, line, sizeof line) && strcmp(line, "ready") != 0)
    p->error = g_strdup_printf("unexpected greeting \"%s\"", line);
}

/* Send `command`; TRUE with the answer's number (if any) in *value, or FALSE with *why set. */
static bool
peer_ask(Peer *p, const char *command, double *value, char **why)
{
  char line[1024];
  if (!p->error) {
    fprintf(p->to, "%s\n", command);
    fflush(p->to);
    if (peer_read_line(p, line, sizeof line)) {
      if (strncmp(line, "ok", 2) == 0) {
        if (value)
          *value = line[2] ? g_ascii_strtod(line + 3, NULL) : 0;
        return true;
      }
      g_free(*why);
      *why = g_strdup(g_str_has_prefix(line, "unavailable ") ? line + 12 : line);
      return false;
    }
  }
  g_free(*why);
  *why = g_strdup(p->error);
  return false;
}

static void
peer_stop(Peer *p)
{
  if (p->to) {
    fputs("quit\n", p->to);
    fclose(p->to);
  }
  if (p->from)
    fclose(p->from);
  if (p->pid) {
    waitpid(p->pid, NULL, 0);
    g_spawn_close_pid(p->pid);
  }
  g_free(p->error);
  *p = (Peer){0};
}

/* ---- data ------------------------------------------------------------------------------- */

/* A float32 tensor of uniform values in [-1, 1), the same for every run. */
static TrTensor *
random_f32(int rank, const int64_t *dims, GRand *rng)
{
  TrShape shape = tr_shape_make(rank, dims);
  TrTensor *t = tr_tensor_new_uninit(TR_FLOAT32, &shape);
  float *v = tr_tensor_data(t);
  for (int64_t i = 0; i < tr_tensor_num_elements(t); i++)
    v[i] = (float)g_rand_double_range(rng, -1.0, 1.0);
  return t;
}

/* ---- GEMM ------------------------------------------------------------------------------- */

/* Best seconds per tr_matmul call (allocating and freeing the result) over `iters` calls. */
static double
time_trellis_gemm(TrTensor *a, TrTensor *b, int iters, char **why)
{
  double best = INFINITY;
  for (int i = 0; i < iters; i++) {
    GError *error = NULL;
    double t0 = now();
    TrTensor *c = tr_matmul(a, b, false, false, &error);
    tr_tensor_unref(c);
    double dt = now() - t0;
    if (!c) {
      *why = g_strdup(error->message);
      g_error_free(error);
      return INFINITY;
    }
    best = MIN(best, dt);
  }
  return best;
}

/* Best seconds per raw cblas_sgemm (OpenBLAS) or dnnl_sgemm (oneDNN) call into a
 * preallocated C. */
static double
time_raw_gemm(bool onednn, const float *a, const float *b, float *c, int n, int iters)
{
  double best = INFINITY;
  for (int i = 0; i < iters; i++) {
    double t0 = now();
    if (onednn)
      dnnl_sgemm('N', 'N', n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
    else
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
    best = MIN(best, now() - t0);
  }
  return best;
}

static void
bench_gemm(int n, GRand *rng)
{
  g_autoptr(TrTensor) a = random_f32(2, (const int64_t[]){n, n}, rng);
  g_autoptr(TrTensor) b = random_f32(2, (const int64_t[]){n, n}, rng);
  g_autofree float *c = g_new(float, (size_t)n *n);
  const float *ad = tr_tensor_data(a), *bd = tr_tensor_data(b);
  /* Many rounds of one call each: background load comes in bursts, each side keeps its best. */
  int iters = 1;
  int rounds = n <= 256 ? 101 : n <= 1024 ? 41 : 15;
  Result mine = {INFINITY, NULL}, theirs[2] = {{INFINITY, NULL}, {INFINITY, NULL}};

  time_raw_gemm(false, ad, bd, c, n, 1); /* warm up every side */
  time_raw_gemm(true, ad, bd, c, n, 1);
  time_trellis_gemm(a, b, 1, &mine.error);
  for (int r = 0; r < rounds && !mine.error; r++) {
    for (int side = 0; side < 3; side++) {
      int who = (side + r) % 3; /* 0: Trellis, 1: OpenBLAS, 2: oneDNN */
      if (who == 0)
        mine.value = MIN(mine.value, time_trellis_gemm(a, b, iters, &mine.error));
      else
        theirs[who - 1].value =
            MIN(theirs[who - 1].value, time_raw_gemm(who == 2, ad, bd, c, n, iters));
    }
  }
  double flops = 2.0 * n * n * n;
  mine.value = flops / mine.value / 1e9;
  for (int i = 0; i < 2; i++)
    theirs[i].value = flops / theirs[i].value / 1e9;
  g_autofree char *name = g_strdup_printf("GEMM float32 %dx%dx%d", n, n, n);
  const char *peers[] = {"cblas_sgemm", "dnnl_sgemm"};
  report_peers(name, "GFLOP/s", tr_last_kernel(), &mine, 2, peers, theirs);
  result_clear(&mine);
  result_clear(&theirs[0]);
  result_clear(&theirs[1]);
}

/* ---- elementwise add -------------------------------------------------------------------- */

#define ADD_LOOPS 200000

/* Seconds per tr_binary(ADD) on 2x2 tensors, result allocated and freed, over ADD_LOOPS. */
static double
time_trellis_add(TrTensor *a, TrTensor *b)
{
  double t0 = now();
  for (int i = 0; i < ADD_LOOPS; i++)
    tr_tensor_unref(tr_binary(TR_OP_ADD, a, b, NULL));
  return (now() - t0) / ADD_LOOPS;
}

static void
bench_add(Peer *peer)
{
  g_autoptr(TrTensor) a = tr_tensor_new_from_data(TR_FLOAT32, &(TrShape){.rank = 2, .dims = {2, 2}},
                                                  (const float[]){1, 1, 1, 1});
  g_autoptr(TrTensor) b = tr_tensor_new_from_data(TR_FLOAT32, &(TrShape){.rank = 2, .dims = {2, 2}},
                                                  (const float[]){2, 2, 2, 2});
  Result mine = {INFINITY, NULL}, theirs = {INFINITY, NULL};
  GError *error = NULL;
  TrTensor *probe = tr_binary(TR_OP_ADD, a, b, &error);
  if (!probe) {
    mine.error = g_strdup(error->message);
    g_error_free(error);
  }
  tr_tensor_unref(probe);

  g_autofree char *command = g_strdup_printf("add %d", ADD_LOOPS);
  for (int r = 0; r < 5; r++) {
    for (int side = 0; side < 2; side++) {
      double peer_seconds;
      if ((side + r) % 2 == 0 && !mine.error)
        mine.value = MIN(mine.value, time_trellis_add(a, b) * 1e9);
      else if ((side + r) % 2 == 1 && !theirs.error &&
               peer_ask(peer, command, &peer_seconds, &theirs.error))
        theirs.value = MIN(theirs.value, peer_seconds * 1e9);
    }
  }
  report("add 2x2 float32", "ns/op", "NumPy a + b", &mine, &theirs);
  result_clear(&mine);
  result_clear(&theirs);
}

/* ---- conv2d ----------------------------------------------------------------------------- */

static void
bench_conv(Peer *peer, GRand *rng)
{
  g_autoptr(TrTensor) x = random_f32(4, (const int64_t[]){1, 200, 200, 100}, rng);
  g_autoptr(TrTensor) f = random_f32(4, (const int64_t[]){3, 3, 100, 100}, rng);
  const int64_t strides[2] = {1, 1};
  Result mine = {INFINITY, NULL}, theirs = {INFINITY, NULL};
  g_autofree char *setup = g_strdup_printf("conv-setup %d", bench_threads());
  peer_ask(peer, setup, NULL, &theirs.error);

  for (int i = 0; i < 2 && !mine.error; i++) { /* warm up, as the peer did */
    GError *error = NULL;
    TrTensor *y = tr_conv2d(x, f, strides, TR_PADDING_VALID, &error);
    if (!y) {
      mine.error = g_strdup(error->message);
      g_error_free(error);
    }
    tr_tensor_unref(y);
  }
  for (int r = 0; r < 7; r++) {
    for (int side = 0; side < 2; side++) {
      double peer_seconds;
      if ((side + r) % 2 == 0 && !mine.error) {
        double t0 = now();
        tr_tensor_unref(tr_conv2d(x, f, strides, TR_PADDING_VALID, NULL));
        mine.value = MIN(mine.value, (now() - t0) * 1e3);
      } else if ((side + r) % 2 == 1 && !theirs.error &&
                 peer_ask(peer, "conv", &peer_seconds, &theirs.error)) {
        theirs.value = MIN(theirs.value, peer_seconds * 1e3);
      }
    }
  }
  g_autofree char *peer_name = g_strdup_printf("torch conv2d, %d threads", bench_threads());
  const char *peers[] = {peer_name};
  report_peers("conv2d [1,200,200,100] * [3,3,100,100] VALID float32", "ms", tr_last_kernel(),
               &mine, 1, peers, &theirs);
  result_clear(&mine);
  result_clear(&theirs);
}

/* Best milliseconds of one Conv2DBackpropInput (`for_input`) or Conv2DBackpropFilter call. */
static double
time_conv_grad(bool for_input, TrTensor *x, TrTensor *f, TrTensor *dy, char **why)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.n_axes = 4;
  const TrShape *shape = for_input ? &x->shape : &f->shape;
  memcpy(attrs.axes, shape->dims, sizeof(int64_t[4]));
  TrTensor *in[2] = {for_input ? f : x, dy};
  GError *error = NULL;
  double t0 = now();
  TrTensor *r = tr_op_run(for_input ? TR_OP_CONV2D_BACKPROP_INPUT : TR_OP_CONV2D_BACKPROP_FILTER,
                          in, 2, &attrs, &error);
  double ms = (now() - t0) * 1e3;
  if (!r) {
    *why = g_strdup(error->message);
    g_error_free(error);
    return INFINITY;
  }
  tr_tensor_unref(r);
  return ms;
}

/* The gradients of the conv2d case, against torch's (conv-setup already sent). */
static void
bench_conv_grads(Peer *peer, GRand *rng)
{
  g_autoptr(TrTensor) x = random_f32(4, (const int64_t[]){1, 200, 200, 100}, rng);
  g_autoptr(TrTensor) f = random_f32(4, (const int64_t[]){3, 3, 100, 100}, rng);
  g_autoptr(TrTensor) dy = random_f32(4, (const int64_t[]){1, 198, 198, 100}, rng);
  for (int which = 0; which < 2; which++) {
    bool for_input = which == 0;
    Result mine = {INFINITY, NULL}, theirs = {INFINITY, NULL};
    time_conv_grad(for_input, x, f, dy, &mine.error); /* warm up */
    for (int r = 0; r < 5; r++) {
      for (int side = 0; side < 2; side++) {
        double peer_seconds;
        if ((side + r) % 2 == 0 && !mine.error)
          mine.value = MIN(mine.value, time_conv_grad(for_input, x, f, dy, &mine.error));
        else if ((side + r) % 2 == 1 && !theirs.error &&
                 peer_ask(peer, for_input ? "conv-grad-input" : "conv-grad-filter", &peer_seconds,
                          &theirs.error))
          theirs.value = MIN(theirs.value, peer_seconds * 1e3);
      }
    }
    g_autofree char *peer_name =
        g_strdup_printf("torch convolution_backward, %d threads", bench_threads());
    const char *peers[] = {peer_name};
    report_peers(for_input ? "Conv2DBackpropInput of the conv2d case"
                           : "Conv2DBackpropFilter of the conv2d case",
                 "ms", tr_last_kernel(), &mine, 1, peers, &theirs);
    result_clear(&mine);
    result_clear(&theirs);
  }
}

/* Whether the figure group `name` was asked for: all of them when no argument is given. */
static bool
wanted(int argc, char **argv, const char *name)
{
  if (argc < 2)
    return true;
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], name) == 0)
      return true;
  return false;
}

/* Usage: bench-tensor [gemm] [add] [conv] [conv-grad] — the named figure groups, or all of them
 * (conv-grad runs conv first: it sets the peer up). */
int
main(int argc, char **argv)
{
  signal(SIGPIPE, SIG_IGN); /* a dead peer shows as EOF, not as a signal */
  g_autoptr(GRand) rng = g_rand_new_with_seed(20240601);
  print_machine();

  if (wanted(argc, argv, "gemm"))
    for (int n = 256; n <= 2048; n *= 2)
      if (n != 512)
        bench_gemm(n, rng);

  Peer peer;
  peer_start(&peer);
  if (wanted(argc, argv, "add"))
    bench_add(&peer);
  if (wanted(argc, argv, "conv") || wanted(argc, argv, "conv-grad"))
    bench_conv(&peer, rng);
  if (wanted(argc, argv, "conv-grad"))
    bench_conv_grads(&peer, rng);
  peer_stop(&peer);
  return 0;
}
