/* plan.c — the planned executor (see tr-plan.h).
 *
 * Planning: mark the nodes the requested outputs and the stateful nodes need (a visited-set walk
 * over data and control edges); since every node is younger than its inputs, the marked nodes
 * in id order are a topological schedule. Each value gets a slot; a slot's last reader decides
 * the step after which it is released. Placeholders become bindings, Identity a reference.
 *
 * Running: every step reads its inputs from slots and writes its output into a slot. A kernel
 * output comes from the pool of released buffers when one of the same dtype and element count
 * is there (its shape is rewritten in place, which is safe because nothing else references it),
 * else from a fresh allocation; released values that nothing else references go back to the
 * pool, which outlives the run. A warm plan therefore allocates only what it returns.
 *
 * A While step owns plans of its cond and body, made with the outer plan. It runs cond on the
 * loop values, then body while cond holds, feeding body's results back as the next values; the
 * values a round is done with go to the body plan's pool, so a loop over fixed shapes reuses
 * its buffers from round to round.
 *
 * A fused elementwise node (fuse.c) is a kernel step of its own: its program is decoded once, at
 * planning, and each run writes into a pooled or fresh buffer of the inputs' broadcast shape.
 */
#include "fuse-private.h"
#include "graph-private.h"

#include <string.h>

typedef enum {
  STEP_KERNEL,   /* a core/tensor op: view, or kernel into a pooled or fresh buffer */
  STEP_IDENTITY, /* a new reference to the input */
  STEP_BIND,     /* a placeholder: a reference to the caller's input */
  STEP_GOP,      /* a graph-level op's run function */
  STEP_WHILE,    /* a While: its cond and body plans, run until cond is false */
  STEP_IF,       /* an If: the plans of its branches, one run per execution */
  STEP_FUSED,    /* a fused elementwise tree: its kernel into a pooled or fresh buffer */
} StepKind;

typedef struct {
  TrNode *node;         /* what runs */
  StepKind kind;        /* how it runs */
  const TrOpDef *def;   /* STEP_KERNEL: the op */
  TrGopRunFunc run;     /* STEP_GOP: the run function */
  const TrAttrs *attrs; /* STEP_KERNEL: the node's attrs, or `own_attrs` for random ops */
  TrAttrs *own_attrs;   /* stateful kernels: a copy whose counter advances per run */
  int n_in;             /* data inputs */
  int *in_slots;        /* per input: its slot, or -1 for a resource handle */
  int n_out;            /* outputs: slots out_slot .. out_slot + n_out - 1 */
  int out_slot;         /* the first output's slot, or -1 */
  int n_release;        /* slots that die after this step */
  int *release;         /* (plan arena) */
  bool reinfer;         /* a traced shape was partial: infer again from the inputs (checks) */
  bool counts_buffer;   /* the output is a buffer the plan accounts for (kernel outputs) */
  int input_index;      /* STEP_BIND: which graph input */
  TrPlan *cond;         /* STEP_WHILE: the plan of the cond graph; STEP_IF: the true branch's */
  TrPlan *body;         /* STEP_WHILE: the plan of the body graph; STEP_IF: the false branch's */
  const TrFusedKernel *fused; /* STEP_FUSED: the decoded program (plan arena) */
} Step;

#define POOL_MAX 64

struct TrPlan {
  TrGraph *graph;     /* owned reference */
  TrArena arena;      /* steps and their arrays */
  Step *steps;        /* in run order */
  int n_steps;        /* length of steps */
  int n_slots;        /* values alive in a run */
  TrTensor **slots;   /* the values of the current run; all NULL between runs */
  bool *slot_counted; /* per slot: holds a buffer counted in live/peak */
  int n_outputs;      /* requested outputs */
  int *output_slots;  /* their slots */
  TrTensor **pool;    /* released buffers kept for reuse (owned array and references);
                       * grown on the first release, so a plan that never pools a buffer
                       * (most small graphs) does not pay for POOL_MAX entries */
  int n_pool;         /* entries used in pool */
  int cap_pool;       /* entries allocated in pool, at most POOL_MAX */
  bool running;       /* a run is under way (a nested run uses fresh slots) */
  int live;           /* counted buffers alive now */
  TrPlanStats stats;  /* counters */
};

/* ---- planning ---------------------------------------------------------------------------- */

/* The nodes that must run: those the outputs need, and every stateful node with its inputs. */
static bool *
mark_needed(const TrGraph *g, const TrOutput *outputs, int n_outputs)
{
  int n = tr_graph_n_nodes(g);
  bool *mark = g_new0(bool, MAX(n, 1));
  g_autofree TrNode **stack = g_new(TrNode *, MAX(n, 1));
  int top = 0;
  for (int i = 0; i < n + n_outputs; i++) {
    TrNode *node = i < n ? tr_graph_node(g, i) : outputs[i - n].node;
    if ((i >= n || node->stateful) && !mark[node->id]) {
      mark[node->id] = true;
      stack[top++] = node;
    }
  }
  while (top > 0) {
    TrNode *node = stack[--top];
    for (int i = 0; i < node->n_inputs + node->n_control; i++) {
      TrNode *dep = i < node->n_inputs ? node->inputs[i].node : node->control[i - node->n_inputs];
      if (!mark[dep->id]) {
        mark[dep->id] = true;
        stack[top++] = dep;
      }
    }
  }
  return mark;
}

static int
graph_input_index(const TrGraph *g, const TrNode *node)
{
  for (int i = 0; i < tr_graph_n_inputs(g); i++)
    if (tr_graph_input(g, i) == node)
      return i;
  return -1;
}

/* A While's cond and body plans, for their graphs' results. */
static bool
init_while_step(Step *step, GError **error)
{
  TrNode *node = step->node;
  step->kind = STEP_WHILE;
  step->cond = tr_plan_new(node->children[0], NULL, 0, error);
  step->body = step->cond ? tr_plan_new(node->children[1], NULL, 0, error) : NULL;
  return step->body != NULL;
}

/* Whether a kernel step must infer its shape again at run time: its traced output shape was
 * partial, or an input's was (the traced output may be fully known while the input it must fit
 * is not: Reshape of a [None] vector to [2, 2] checks the element count when it runs). */
static bool
needs_reinfer(const TrNode *node)
{
  if (!tr_shape_is_fully_defined(&node->shapes[0]))
    return true;
  for (int i = 0; i < node->n_inputs; i++) {
    const TrOutput *in = &node->inputs[i];
    if (!tr_shape_is_fully_defined(&in->node->shapes[in->index]))
      return true;
  }
  return false;
}

static bool
init_step(TrPlan *plan, Step *step, TrNode *node, const int *slot_of, GError **error)
{
  step->node = node;
  step->n_in = node->n_inputs;
  step->in_slots = tr_arena_new(&plan->arena, int, MAX(node->n_inputs, 1));
  for (int i = 0; i < node->n_inputs; i++) {
    const TrOutput *in = &node->inputs[i];
    bool resource = in->node->dtypes[in->index] == TR_DTYPE_RESOURCE;
    step->in_slots[i] = resource ? -1 : slot_of[in->node->id] + in->index;
  }
  step->n_out = node->n_outputs;
  step->out_slot = node->n_outputs > 0 ? slot_of[node->id] : -1;
  if (node->op == TR_GOP_WHILE)
    return init_while_step(step, error);
  if (node->op == TR_GOP_IF) {
    if (!init_while_step(step, error))
      return false;
    step->kind = STEP_IF;
    return true;
  }
  if (node->op == TR_GOP_FUSED) {
    step->kind = STEP_FUSED;
    step->fused = tr_fused_kernel_new(&plan->arena, node);
    step->counts_buffer = true;
    if (!step->fused)
      g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_VALUE,
                  "Node '%s' does not hold a valid fused program", node->name);
    return step->fused != NULL;
  }
  if (node->op == TR_GOP_PLACEHOLDER) {
    step->kind = STEP_BIND;
    step->input_index = graph_input_index(plan->graph, node);
  } else if (tr_op_is_graph_level(node->op)) {
    step->kind = STEP_GOP;
    step->run = tr_gop_def(node->op)->run;
  } else if (node->op == TR_OP_IDENTITY) {
    step->kind = STEP_IDENTITY;
  } else {
    step->kind = STEP_KERNEL;
    step->def = tr_op_def(node->op);
    step->attrs = node->attrs;
    if (step->def->flags & TR_OP_FLAG_STATEFUL) {
      step->own_attrs = tr_arena_new(&plan->arena, TrAttrs, 1);
      memcpy(step->own_attrs, node->attrs, sizeof(TrAttrs));
      step->attrs = step->own_attrs;
    }
    step->reinfer = needs_reinfer(node);
    step->counts_buffer = true;
  }
  return true;
}

/* Per slot, the last step reading it; outputs live to the end, unread values die at once. */
static void
plan_releases(TrPlan *plan)
{
  g_autofree int *last = g_new(int, MAX(plan->n_slots, 1));
  for (int s = 0; s < plan->n_slots; s++)
    last[s] = -1;
  for (int i = 0; i < plan->n_steps; i++) {
    const Step *step = &plan->steps[i];
    for (int k = 0; k < step->n_out; k++)
      last[step->out_slot + k] = i;
    for (int k = 0; k < step->n_in; k++)
      if (step->in_slots[k] >= 0)
        last[step->in_slots[k]] = i;
  }
  for (int k = 0; k < plan->n_outputs; k++)
    last[plan->output_slots[k]] = -1;
  g_autofree int *count = g_new0(int, MAX(plan->n_steps, 1));
  for (int s = 0; s < plan->n_slots; s++)
    if (last[s] >= 0)
      count[last[s]]++;
  for (int i = 0; i < plan->n_steps; i++) {
    plan->steps[i].release = tr_arena_new(&plan->arena, int, MAX(count[i], 1));
    plan->steps[i].n_release = 0;
  }
  for (int s = 0; s < plan->n_slots; s++)
    if (last[s] >= 0) {
      Step *step = &plan->steps[last[s]];
      step->release[step->n_release++] = s;
    }
}

TrPlan *
tr_plan_new(TrGraph *g, const TrOutput *outputs, int n_outputs, GError **error)
{
  g_return_val_if_fail(g != NULL, NULL);
  g_autofree TrOutput *graph_outputs = NULL;
  if (!outputs) {
    n_outputs = tr_graph_n_outputs(g);
    graph_outputs = g_new(TrOutput, MAX(n_outputs, 1));
    for (int i = 0; i < n_outputs; i++)
      graph_outputs[i] = tr_node_output(tr_graph_output(g, i), 0);
    outputs = graph_outputs;
  }
  for (int i = 0; i < n_outputs; i++) {
    g_return_val_if_fail(outputs[i].node && outputs[i].node->graph == g, NULL);
    g_return_val_if_fail(outputs[i].index < outputs[i].node->n_outputs, NULL);
    if (tr_output_dtype(outputs[i]) == TR_DTYPE_RESOURCE) {
      g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE,
                  "A resource handle cannot be a result: read the variable first");
      return NULL;
    }
  }

  TrPlan *plan = g_new0(TrPlan, 1);
  plan->graph = tr_graph_ref(g);
  tr_arena_init(&plan->arena);
  g_autofree bool *mark = mark_needed(g, outputs, n_outputs);
  int n = tr_graph_n_nodes(g);
  g_autofree int *slot_of = g_new0(int, MAX(n, 1));
  for (int i = 0; i < n; i++) {
    TrNode *node = tr_graph_node(g, i);
    bool resource = node->op == TR_GOP_PLACEHOLDER && node->variable;
    if (!mark[i] || resource)
      continue;
    slot_of[i] = plan->n_slots;
    plan->n_slots += node->n_outputs;
    plan->n_steps++;
  }
  plan->steps = tr_arena_new(&plan->arena, Step, MAX(plan->n_steps, 1));
  int k = 0;
  for (int i = 0; i < n; i++) {
    TrNode *node = tr_graph_node(g, i);
    if (!mark[i] || (node->op == TR_GOP_PLACEHOLDER && node->variable))
      continue;
    if (!init_step(plan, &plan->steps[k++], node, slot_of, error)) {
      tr_plan_free(plan);
      return NULL;
    }
  }
  plan->n_outputs = n_outputs;
  plan->output_slots = tr_arena_new(&plan->arena, int, MAX(n_outputs, 1));
  for (int i = 0; i < n_outputs; i++)
    plan->output_slots[i] = slot_of[outputs[i].node->id] + outputs[i].index;
  plan->slots = tr_arena_new(&plan->arena, TrTensor *, MAX(plan->n_slots, 1));
  plan->slot_counted = tr_arena_new(&plan->arena, bool, MAX(plan->n_slots, 1));
  plan_releases(plan);
  plan->stats.n_steps = plan->n_steps;
  plan->stats.n_slots = plan->n_slots;
  return plan;
}

void
tr_plan_trim(TrPlan *plan)
{
  for (int i = 0; i < plan->n_pool; i++)
    tr_tensor_unref(plan->pool[i]);
  plan->n_pool = 0;
  for (int i = 0; i < plan->n_steps; i++) {
    if (plan->steps[i].cond)
      tr_plan_trim(plan->steps[i].cond);
    if (plan->steps[i].body)
      tr_plan_trim(plan->steps[i].body);
  }
}

void
tr_plan_free(TrPlan *plan)
{
  if (!plan)
    return;
  g_return_if_fail(!plan->running);
  tr_plan_trim(plan);
  for (int i = 0; i < plan->n_steps; i++) {
    g_clear_pointer(&plan->steps[i].cond, tr_plan_free);
    g_clear_pointer(&plan->steps[i].body, tr_plan_free);
  }
  tr_arena_clear(&plan->arena);
  tr_graph_unref(plan->graph);
  g_free(plan->pool);
  g_free(plan);
}

int
tr_plan_n_outputs(const TrPlan *plan)
{
  return plan->n_outputs;
}

int
tr_plan_n_steps(const TrPlan *plan)
{
  return plan->n_steps;
}

TrNode *
tr_plan_step_node(const TrPlan *plan, int i)
{
  g_return_val_if_fail(i >= 0 && i < plan->n_steps, NULL);
  return plan->steps[i].node;
}

void
tr_plan_get_stats(const TrPlan *plan, TrPlanStats *stats)
{
  *stats = plan->stats;
  stats->pooled = plan->n_pool;
}

/* ---- buffers --------------------------------------------------------------------------------- */

/* A released value nothing else shares, as a plain contiguous buffer, can be written again. */
static bool
poolable(const TrTensor *t)
{
  return t->refcount == 1 && t->buf->refcount == 1 && t->dtype != TR_STRING &&
         t->dtype != TR_VARIANT && t->buf->n_elems > 0;
}

static void
release_value(TrPlan *plan, TrTensor *t)
{
  if (plan->n_pool == POOL_MAX || !poolable(t)) {
    tr_tensor_unref(t);
    return;
  }
  if (plan->n_pool == plan->cap_pool) {
    plan->cap_pool = MIN(POOL_MAX, MAX(4, plan->cap_pool * 2));
    plan->pool = g_renew(TrTensor *, plan->pool, plan->cap_pool);
  }
  plan->pool[plan->n_pool++] = t;
}

static TrTensor *
take_buffer(TrPlan *plan, TrDType dtype, const TrShape *shape, GError **error)
{
  int64_t n = tr_shape_num_elements(shape);
  for (int i = plan->n_pool - 1; i >= 0; i--) {
    TrTensor *t = plan->pool[i];
    if (t->dtype != dtype || t->buf->n_elems != n)
      continue;
    plan->pool[i] = plan->pool[--plan->n_pool];
    t->shape.rank = shape->rank;
    memcpy(t->shape.dims, shape->dims, sizeof(int64_t) * (size_t)shape->rank);
    tr_shape_contiguous_strides(&t->shape, t->strides);
    t->offset = 0;
    t->contiguous = true;
    plan->stats.reuses++;
    return t;
  }
  plan->stats.allocations++;
  return tr_tensor_try_new_uninit(dtype, shape, error);
}

/* ---- running ----------------------------------------------------------------------------------
 */

static const char *
graph_label(const TrPlan *plan)
{
  const char *name = tr_graph_name(plan->graph);
  return name ? name : "graph";
}

/* A runtime error as TensorFlow reports it from a function: the kernel's text, the node, the
 * function. Always TR_ERROR (tf.errors.*), whatever domain the cause had. */
static void
set_node_error(GError **error, const TrPlan *plan, const TrNode *node, GError *cause)
{
  if (g_error_matches(cause, TR_ERROR, TR_ERROR_CANCELLED)) {
    g_propagate_error(error, cause); /* not a failure of the node: no node to name */
    return;
  }
  g_autoptr(GError) owned = cause;
  const char *suffix = g_strrstr(cause->message, " [Op:");
  g_autofree char *message = suffix ? g_strndup(cause->message, (gsize)(suffix - cause->message))
                                    : g_strdup(cause->message);
  int code = cause->domain == TR_ERROR ? cause->code : TR_ERROR_INVALID_ARGUMENT;
  g_set_error(error, TR_ERROR, code, "%s\n\t [[{{node %s}}]] [Op:%s]", message, node->name,
              graph_label(plan));
}

static bool
check_feed(const TrPlan *plan, TrTensor *const *inputs, int n_inputs, GError **error)
{
  const TrGraph *g = plan->graph;
  const char *label = graph_label(plan);
  if (n_inputs != tr_graph_n_inputs(g)) {
    g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
                "Expects arguments to be %d tensors, but %d were given [Op:%s]",
                tr_graph_n_inputs(g), n_inputs, label);
    return false;
  }
  for (int i = 0; i < n_inputs; i++) {
    const TrNode *ph = tr_graph_input(g, i);
    g_return_val_if_fail(inputs[i] != NULL, false);
    if (inputs[i]->dtype != ph->dtypes[0]) {
      g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
                  "cannot compute %s as input #%d(zero-based) was expected to be a %s tensor but "
                  "is a %s tensor [Op:%s]",
                  label, i, tr_dtype_tf_name(ph->dtypes[0]), tr_dtype_tf_name(inputs[i]->dtype),
                  label);
      return false;
    }
    if (!tr_shape_is_compatible_with(&ph->shapes[0], &inputs[i]->shape)) {
      g_autofree char *want = tr_shape_to_string(&ph->shapes[0]);
      g_autofree char *got = tr_shape_to_string(&inputs[i]->shape);
      g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
                  "input #%d(zero-based) of %s was expected to have shape %s but has shape %s "
                  "[Op:%s]",
                  i, label, want, got, label);
      return false;
    }
  }
  return true;
}

/* A step's inputs or outputs up to this many live on the stack. */
#define MAX_STACK_VALUES 8

static TrTensor *
run_kernel(TrPlan *plan, const Step *step, TrTensor *const *in, GError **error)
{
  const TrNode *node = step->node;
  const TrShape *shape = &node->shapes[0];
  TrDType dtype = node->dtypes[0];
  TrShape runtime_shape;
  if (step->reinfer) {
    TrTensorInfo stack_infos[MAX_STACK_VALUES];
    g_autofree TrTensorInfo *heap =
        step->n_in > MAX_STACK_VALUES ? g_new(TrTensorInfo, step->n_in) : NULL;
    TrTensorInfo *infos = heap ? heap : stack_infos;
    for (int i = 0; i < step->n_in; i++) {
      infos[i].dtype = in[i]->dtype;
      infos[i].shape = in[i]->shape;
      infos[i].value = in[i];
    }
    if (!step->def->infer(infos, step->n_in, step->attrs, &dtype, &runtime_shape, error))
      return NULL;
    shape = &runtime_shape;
  }
  if (step->def->view) {
    TrTensor *view = step->def->view(in, step->n_in, step->attrs, shape);
    if (view)
      return view;
  }
  TrTensor *out = take_buffer(plan, dtype, shape, error);
  if (!out)
    return NULL;
  if (!step->def->kernel(in, step->n_in, step->attrs, out, error)) {
    release_value(plan, out);
    return NULL;
  }
  return out;
}

/* A fused step: the output's shape comes from the inputs (they broadcast together), its buffer
 * from the pool when one fits. */
static TrTensor *
run_fused(TrPlan *plan, const Step *step, TrTensor *const *in, GError **error)
{
  TrShape shape;
  if (!tr_fused_kernel_shape(step->fused, in, &shape, error))
    return NULL;
  TrTensor *out = take_buffer(plan, step->node->dtypes[0], &shape, error);
  if (out)
    tr_fused_kernel_run(step->fused, in, out);
  return out;
}

/* Whether the loop goes on: cond's result must be a scalar bool (its traced rank may have been
 * unknown). */
static bool
loop_goes_on(const TrTensor *pred, bool *go, GError **error)
{
  if (pred->shape.rank != 0) {
    g_autofree char *shape = tr_shape_to_string(&pred->shape);
    g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT,
                "The while loop's cond must return a scalar bool, but returned shape %s", shape);
    return false;
  }
  *go = tr_tensor_get_i64(pred, 0) != 0;
  return true;
}

/* Whether the run may go on; false with TR_ERROR_CANCELLED once the context's flag is set. */
static bool
check_cancel(const TrRunContext *ctx, GError **error)
{
  if (G_LIKELY(!ctx || !ctx->cancel || !*ctx->cancel))
    return true;
  g_set_error_literal(error, TR_ERROR, TR_ERROR_CANCELLED, "The graph's run was cancelled");
  return false;
}

/* Rounds of cond and body: `vals` holds the loop values (owned references) and ends holding the
 * final ones; `next` is room for body's results. A value a round is done with goes to the body
 * plan's pool, where body's kernels find it in the next round. */
static bool
run_loop(const Step *step, TrTensor **vals, TrTensor **next, const TrRunContext *ctx,
         GError **error)
{
  int n = step->n_in;
  for (;;) {
    if (!check_cancel(ctx, error))
      return false;
    TrTensor *pred = NULL;
    if (!tr_plan_run(step->cond, vals, n, &pred, ctx, error))
      return false;
    bool go = false;
    bool ok = loop_goes_on(pred, &go, error);
    release_value(step->cond, pred);
    if (!ok || !go)
      return ok;
    if (!tr_plan_run(step->body, vals, n, next, ctx, error))
      return false;
    for (int k = 0; k < n; k++) {
      release_value(step->body, vals[k]);
      vals[k] = next[k];
    }
  }
}

/* A While step: out[k] starts as input k and ends as the loop variable's final value. */
static bool
run_while(const Step *step, TrTensor *const *in, TrTensor **out, const TrRunContext *ctx,
          GError **error)
{
  int n = step->n_in;
  TrTensor *stack_next[MAX_STACK_VALUES];
  g_autofree TrTensor **heap_next = n > MAX_STACK_VALUES ? g_new(TrTensor *, n) : NULL;
  for (int k = 0; k < n; k++)
    out[k] = tr_tensor_ref(in[k]);
  if (run_loop(step, out, heap_next ? heap_next : stack_next, ctx, error))
    return true;
  for (int k = 0; k < n; k++)
    g_clear_pointer(&out[k], tr_tensor_unref);
  return false;
}

/* An If step: in[0] chooses the branch, which runs on its slice of the other inputs. */
static bool
run_if(const Step *step, TrTensor *const *in, TrTensor **out, const TrRunContext *ctx,
       GError **error)
{
  bool go = false;
  if (!loop_goes_on(in[0], &go, error))
    return false;
  int n_then = tr_graph_n_inputs(step->node->children[0]);
  if (go)
    return tr_plan_run(step->cond, in + 1, n_then, out, ctx, error);
  return tr_plan_run(step->body, in + 1 + n_then, step->n_in - 1 - n_then, out, ctx, error);
}

static void
store_outputs(TrPlan *plan, const Step *step, TrTensor **slots, TrTensor **out)
{
  for (int k = 0; k < step->n_out; k++)
    slots[step->out_slot + k] = out[k];
  if (step->counts_buffer && out[0]->buf->refcount == 1) {
    plan->slot_counted[step->out_slot] = true;
    plan->live++;
    plan->stats.peak_live = MAX(plan->stats.peak_live, plan->live);
  }
}

static bool
run_step(TrPlan *plan, const Step *step, TrTensor **slots, TrTensor *const *feed,
         const TrRunContext *ctx, GError **error)
{
  TrTensor *stack_in[MAX_STACK_VALUES];
  g_autofree TrTensor **heap_in =
      step->n_in > MAX_STACK_VALUES ? g_new(TrTensor *, step->n_in) : NULL;
  TrTensor **in = heap_in ? heap_in : stack_in;
  for (int i = 0; i < step->n_in; i++)
    in[i] = step->in_slots[i] >= 0 ? slots[step->in_slots[i]] : NULL;
  TrTensor *stack_out[MAX_STACK_VALUES];
  g_autofree TrTensor **heap_out =
      step->n_out > MAX_STACK_VALUES ? g_new(TrTensor *, step->n_out) : NULL;
  TrTensor **out = heap_out ? heap_out : stack_out;

  switch (step->kind) {
    case STEP_BIND:
      out[0] = tr_tensor_ref(feed[step->input_index]);
      break;
    case STEP_IDENTITY:
      out[0] = tr_tensor_ref(in[0]);
      break;
    case STEP_KERNEL:
      if (step->own_attrs)
        step->own_attrs->counter = step->node->attrs->counter + (uint64_t)plan->stats.runs;
      out[0] = run_kernel(plan, step, in, error);
      if (!out[0])
        return false;
      break;
    case STEP_GOP:
      if (!step->run(step->node, in, out, ctx, error))
        return false;
      break;
    case STEP_WHILE:
      if (!run_while(step, in, out, ctx, error))
        return false;
      break;
    case STEP_IF:
      if (!run_if(step, in, out, ctx, error))
        return false;
      break;
    case STEP_FUSED:
      out[0] = run_fused(plan, step, in, error);
      if (!out[0])
        return false;
      break;
  }
  store_outputs(plan, step, slots, out);
  return true;
}

static void
drop_slot(TrPlan *plan, TrTensor **slots, int s)
{
  if (!slots[s])
    return;
  if (plan->slot_counted[s]) {
    plan->slot_counted[s] = false;
    plan->live--;
  }
  release_value(plan, slots[s]);
  slots[s] = NULL;
}

bool
tr_plan_run(TrPlan *plan, TrTensor *const *inputs, int n_inputs, TrTensor **outputs,
            const TrRunContext *ctx, GError **error)
{
  g_return_val_if_fail(plan && (n_inputs == 0 || inputs) && (plan->n_outputs == 0 || outputs),
                       false);
  if (!check_feed(plan, inputs, n_inputs, error))
    return false;
  bool nested = plan->running;
  g_autofree TrTensor **own_slots = nested ? g_new0(TrTensor *, plan->n_slots) : NULL;
  TrTensor **slots = nested ? own_slots : plan->slots;
  plan->running = true;
  if (!nested)
    plan->stats.peak_live = plan->live = 0;

  bool ok = true;
  for (int i = 0; i < plan->n_steps && ok; i++) {
    const Step *step = &plan->steps[i];
    GError *cause = NULL;
    ok = check_cancel(ctx, &cause) && run_step(plan, step, slots, inputs, ctx, &cause);
    if (!ok) {
      set_node_error(error, plan, step->node, cause);
      break;
    }
    for (int r = 0; r < step->n_release; r++)
      drop_slot(plan, slots, step->release[r]);
  }
  for (int k = 0; k < plan->n_outputs; k++)
    outputs[k] = ok ? tr_tensor_ref(slots[plan->output_slots[k]]) : NULL;
  for (int s = 0; s < plan->n_slots; s++) {
    if (slots[s] && plan->slot_counted[s]) {
      plan->slot_counted[s] = false;
      plan->live--;
    }
    g_clear_pointer(&slots[s], tr_tensor_unref);
  }
  plan->running = nested;
  if (ok)
    plan->stats.runs++;
  return ok;
}
