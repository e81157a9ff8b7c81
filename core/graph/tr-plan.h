/* tr-plan.h — the planned executor: run a graph many times at little cost per run.
 *
 * A TrPlan is made once per graph and set of requested outputs. Planning walks the graph from
 * the outputs and from every stateful node (so dead nodes never run, and tf.print or variable
 * writes run even when nothing consumes them), orders the live nodes topologically (data and
 * control edges), gives every value a slot, and computes after which step each slot dies.
 * Running binds the inputs to the placeholders and executes the steps: kernels write into
 * buffers recycled from values that died earlier in this run or in earlier runs, so a warm plan
 * allocates nothing but the tensors it returns. Shapes are re-inferred at run time only for
 * nodes whose traced shape was partial. A While node's cond and body get plans of their own,
 * made with the outer plan and owned by it; they run with the outer run's context (tf.print's
 * sink), and an error inside them fails the outer run, naming the inner node and the loop.
 *
 * A plan is not thread-safe; a reentrant run (a graph running itself) uses fresh slots.
 */
#pragma once

#include "tr-graph.h"

#include <signal.h>

G_BEGIN_DECLS

typedef struct TrPlan TrPlan;

/* Where tf.print writes: `write` gets each PrintV2's text (with its `end`); NULL writes to the
 * process's stdout or stderr, as the node asks. `cancel`, when set, is polled before every step
 * and every round of a While: once it reads non-zero, the run stops with TR_ERROR_CANCELLED
 * (a signal handler or another thread sets it: an interrupt). */
typedef struct {
  void (*write)(const char *text, size_t len, bool to_stderr, void *user); /* tf.print sink */
  void *user;                                                              /* passed to write */
  const volatile sig_atomic_t *cancel; /* non-zero: stop the run; NULL: never stop */
} TrRunContext;

/* Counters of a plan, for tests and the debugger. */
typedef struct {
  int n_steps;         /* nodes that run */
  int n_slots;         /* values held during a run */
  int64_t runs;        /* completed runs */
  int64_t allocations; /* output buffers allocated, over all runs */
  int64_t reuses;      /* output buffers taken from recycled values, over all runs */
  int peak_live;       /* most intermediate buffers alive at once, in the last run */
  int pooled;          /* buffers kept for reuse between runs */
} TrPlanStats;

/* Plan `g` for `outputs` (NULL: the graph's outputs, tr_graph_output). The plan holds a
 * reference on `g`; the graph must not change afterwards. Transfer full, or NULL with error. */
TrPlan *tr_plan_new(TrGraph *g, const TrOutput *outputs, int n_outputs, GError **error);
void tr_plan_free(TrPlan *plan);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TrPlan, tr_plan_free)

int tr_plan_n_outputs(const TrPlan *plan);
/* The scheduled nodes in run order. Borrowed. */
int tr_plan_n_steps(const TrPlan *plan);
TrNode *tr_plan_step_node(const TrPlan *plan, int i);

/* Run once. `inputs` bind to tr_graph_input(g, 0..n_inputs-1) (dtype and shape are checked:
 * TensorFlow's "cannot compute ... as input #0(zero-based) was expected to be a string tensor
 * but is a int32 tensor"); `outputs` receives n_outputs tensors (transfer full each). `ctx` may
 * be NULL. Runtime errors are TR_ERROR with TensorFlow's text and the failing node. */
bool tr_plan_run(TrPlan *plan, TrTensor *const *inputs, int n_inputs, TrTensor **outputs,
                 const TrRunContext *ctx, GError **error);

void tr_plan_get_stats(const TrPlan *plan, TrPlanStats *stats);
/* Free the buffers kept for reuse between runs. */
void tr_plan_trim(TrPlan *plan);

/* tf.print's text of one tensor: "[1 2 3]", "10", "hello" for a scalar string, "[\"a\" \"b\"]"
 * inside arrays, first and last `summarize` elements per dim (< 0: all). Transfer full. */
char *tr_format_print_tensor(const TrTensor *t, int summarize);

G_END_DECLS
