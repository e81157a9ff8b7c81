/* lang-tf-autograph.c — AutoGraph inside the interpreter: `for`, `if` and `while` on symbolic
 * tensors become While and If nodes of the graph being traced (SPEC §3.3, DESIGN "A call of a
 * traced Function").
 *
 * The compiler lists, for every for/if/while block of a function, the fast locals the block
 * assigns (LangLoopInfo). When a block meets a symbolic tensor, its code is run on symbolic
 * values inside child graphs, and what it assigned is wired through a node of the enclosing
 * graph:
 * - `for x in <tensor, tf.range, dataset>`: iterating gives a loop iterator. Its first next()
 *   starts the body graph: every local the body assigns that holds a tensor or a number becomes
 *   a loop variable, replaced in the frame by a placeholder, and the target receives the
 *   source's element. The body runs once; the second next() closes it, builds the condition
 *   from the source, adds the While node and rebinds the loop variables to its outputs.
 * - `if t:` runs the true part into one branch graph and then, with the assigned locals put
 *   back, the else part into another; an If node merges the values each part left (both parts
 *   must leave a value, of one dtype). A `return` in both parts returns the merged value.
 * - `while t:` evaluates its test again into a cond graph on placeholders of the loop
 *   variables, then runs the body once into a body graph; the back edge adds the While node.
 * Tensors of enclosing graphs used inside become inputs of the node (captures). The `if` and
 * `while` blocks under way live on their frame (lang_frame_ag), driven by the interpreter's
 * hooks (lang-vm.h); `for` loops keep their state in their iterator.
 */
#include "lang-tf-private.h"
#include "lang-vm.h"

#include <string.h>

/* ---- child traces -------------------------------------------------------------------------- */

/* A trace for a branch, body or cond graph inside `parent`. */
static void
child_trace_init(LangTfTrace *t, LangTfTrace *parent, const char *graph_name)
{
  memset(t, 0, sizeof *t);
  t->graph = tr_graph_new(graph_name);
  t->outer = parent;
  t->consts = g_hash_table_new(NULL, NULL);
  t->captures = g_array_new(FALSE, FALSE, sizeof(LangTfCapture));
  t->fn_name = parent->fn_name;
}

/* Drops what a child trace holds; an error it recorded goes to its parent. */
static void
child_trace_clear(LangTfTrace *t)
{
  if (t->error && t->outer && !t->outer->error)
    t->outer->error = g_steal_pointer(&t->error);
  g_clear_pointer(&t->error, g_free);
  g_clear_pointer(&t->graph, tr_graph_unref);
  g_clear_pointer(&t->consts, g_hash_table_unref);
  if (t->captures) {
    g_array_free(t->captures, TRUE);
    t->captures = NULL;
  }
}

static int
n_captures(const LangTfTrace *t)
{
  return (int)t->captures->len;
}

static TrOutput
capture_outer(const LangTfTrace *t, int i)
{
  return g_array_index(t->captures, LangTfCapture, i).outer;
}

static TrOutput
capture_inner(const LangTfTrace *t, int i)
{
  return tr_node_output(g_array_index(t->captures, LangTfCapture, i).inner, 0);
}

/* A value that can be a loop variable or a conditional's output. */
static bool
is_tensor_like(LangValue v)
{
  return lang_tf_is_tensor(v) || lang_tf_is_variable(v) || lang_tf_is_tensor_array(v) ||
         v.tag == LANG_TAG_INT || v.tag == LANG_TAG_FLOAT || v.tag == LANG_TAG_BOOL;
}

static bool
loop_var_candidate(LangValue v)
{
  return lang_tf_is_tensor(v) || lang_tf_is_tensor_array(v) || v.tag == LANG_TAG_INT ||
         v.tag == LANG_TAG_FLOAT || v.tag == LANG_TAG_BOOL;
}

/* The tensor carrying a loop variable's or an if output's value on the current path: the value
 * itself, or a TensorArray's tensor list. */
static bool
value_operand(LangState *L, LangValue v, TrDType dtype, bool hint, LangTfOperand *out)
{
  if (lang_tf_is_tensor_array(v))
    return lang_tf_tensor_array_flow(L, v, out);
  return lang_tf_operand(L, v, dtype, hint, out);
}

/* The value for `out` of a node in its graph, shaped like `like` (a TensorArray stays one). */
static LangValue
value_wrap(LangState *L, LangValue like, TrGraph *g, TrOutput out)
{
  LangValue t = lang_tf_symbolic_new(L, g, out);
  if (!lang_tf_is_tensor_array(like))
    return t;
  LangValue ta = lang_tf_tensor_array_with_flow(L, like, t);
  lang_decref(t);
  return ta;
}

static const char *
slot_name(LangCode *code, int slot)
{
  return lang_str_data(code->varnames[slot]);
}

/* ---- loop variables -------------------------------------------------------------------------- */

/* The loop variables of a `for` or `while` block: the assigned locals that hold tensors or
 * numbers when the loop starts. */
typedef struct {
  int n;              /* how many */
  int *slots;         /* their frame slots */
  const char **names; /* their names (interned) */
  TrOutput *init;     /* their values before the loop, in the enclosing graph */
  LangValue *saved;   /* their frame values before the loop (owned) */
  TrShape *shapes;    /* their shape invariants once relaxed, or NULL: the initial shapes */
} LoopVars;

static void
loop_vars_clear(LoopVars *lv)
{
  if (lv->saved)
    for (int k = 0; k < lv->n; k++)
      lang_decref(lv->saved[k]);
  g_clear_pointer(&lv->saved, g_free);
  g_clear_pointer(&lv->slots, g_free);
  g_clear_pointer(&lv->names, g_free);
  g_clear_pointer(&lv->init, g_free);
  g_clear_pointer(&lv->shapes, g_free);
  lv->n = 0;
}

/* Collects the loop variables among `slots` of `locals`, as operands of the current trace. */
static bool
loop_vars_collect(LangState *L, LoopVars *lv, LangValue *locals, const int *slots, int n_slots,
                  LangObject *const *varnames)
{
  int cap = n_slots > 0 ? n_slots : 1;
  lv->slots = g_new(int, cap);
  lv->names = g_new(const char *, cap);
  lv->init = g_new(TrOutput, cap);
  lv->saved = g_new(LangValue, cap);
  for (int i = 0; i < cap; i++)
    lv->saved[i] = LANG_UNSET;
  for (int i = 0; i < n_slots; i++) {
    LangValue v = locals[slots[i]];
    if (!loop_var_candidate(v))
      continue;
    LangTfOperand o;
    if (!value_operand(L, v, TR_DTYPE_INVALID, true, &o))
      return false;
    int k = lv->n++;
    lv->slots[k] = slots[i];
    lv->names[k] = lang_str_data(varnames[slots[i]]);
    lv->init[k] = o.out;
  }
  return true;
}

/* Replaces each loop variable in the frame by a placeholder of `g`, saving its old value. */
static void
loop_vars_bind(LangState *L, LoopVars *lv, LangValue *locals, TrGraph *g, TrNode **ph)
{
  for (int k = 0; k < lv->n; k++) {
    ph[k] = tr_graph_add_placeholder(g, tr_output_dtype(lv->init[k]),
                                     lv->shapes ? &lv->shapes[k] : tr_output_shape(lv->init[k]),
                                     lv->names[k]);
    LangValue old = locals[lv->slots[k]];
    if (lv->saved[k].tag == LANG_TAG_UNSET && old.tag != LANG_TAG_UNSET)
      lv->saved[k] = old;
    else
      lang_decref(old);
    locals[lv->slots[k]] = value_wrap(L, lv->saved[k], g, tr_node_output(ph[k], 0));
  }
}

/* Puts the loop variables' values from before the loop back into the frame. */
static void
loop_vars_restore(LoopVars *lv, LangValue *locals)
{
  for (int k = 0; k < lv->n; k++) {
    LangValue cur = locals[lv->slots[k]];
    locals[lv->slots[k]] = lv->saved[k];
    lv->saved[k] = LANG_UNSET;
    lang_decref(cur);
  }
}

/* The loop variables' values after one pass of the body, as outputs of the body graph. */
static bool
loop_vars_next(LangState *L, LoopVars *lv, LangValue *locals, TrNode *const *ph, TrOutput *next)
{
  for (int k = 0; k < lv->n; k++) {
    LangValue v = locals[lv->slots[k]];
    TrDType want = ph[k]->dtypes[0];
    if (!loop_var_candidate(v) && !lang_tf_is_variable(v)) {
      lang_raise(L, &lang_exc_TypeError,
                 "'%s' holds a %s before the loop and a %s after one iteration; a loop "
                 "variable must stay a tensor",
                 lv->names[k], tr_dtype_name(want), lang_type_name(v));
      return false;
    }
    if (lang_tf_is_tensor_array(lv->saved[k]) != lang_tf_is_tensor_array(v)) {
      lang_raise(L, &lang_exc_TypeError,
                 "'%s' is a %s before the loop and a %s after one iteration", lv->names[k],
                 lang_type_name(lv->saved[k]), lang_type_name(v));
      return false;
    }
    LangTfOperand o;
    if (!value_operand(L, v, want, true, &o))
      return false;
    if (o.dtype != want) {
      lang_raise(L, &lang_exc_TypeError,
                 "'%s' has dtype %s before the loop, but dtype %s after one iteration",
                 lv->names[k], tr_dtype_name(want), tr_dtype_name(o.dtype));
      return false;
    }
    next[k] = o.out;
  }
  return true;
}

/* When a loop variable's shape after one pass does not fit the shape it entered with, the
 * shapes to trace the loop again with (the differing dims relaxed to None); false when every
 * shape fits. */
static bool
loop_vars_relax(LoopVars *lv, TrNode *const *ph, const TrOutput *next)
{
  bool relax = false;
  for (int k = 0; k < lv->n && !relax; k++)
    relax = !tr_shape_is_compatible_with(&ph[k]->shapes[0], tr_output_shape(next[k]));
  if (!relax)
    return false;
  if (!lv->shapes)
    lv->shapes = g_new(TrShape, lv->n);
  for (int k = 0; k < lv->n; k++)
    lv->shapes[k] = tr_shape_most_specific_compatible(&ph[k]->shapes[0], tr_output_shape(next[k]));
  return true;
}

/* A loop with a `return` inside carries the returned value as a loop variable from the first
 * pass that set it: zeros of its dtype and shape enter the loop. Sets *restart when the value
 * became a loop variable now (the loop is then traced again); `parent` is the loop's graph. */
static bool
loop_vars_take_return(LangState *L, LoopVars *lv, LangValue *locals, const LangLoopInfo *info,
                      TrGraph *parent, TrOutput *zeros_out)
{
  int slot = info ? info->ret_slot : -1;
  zeros_out->node = NULL;
  if (slot < 0 || !is_tensor_like(locals[slot]) || lang_tf_is_tensor_array(locals[slot]))
    return true;
  for (int k = 0; k < lv->n; k++)
    if (lv->slots[k] == slot)
      return true;
  LangTfOperand o;
  if (!lang_tf_operand(L, locals[slot], TR_DTYPE_INVALID, true, &o))
    return false;
  if (!tr_shape_is_fully_defined(&o.shape) || o.dtype >= TR_N_DTYPES) {
    lang_raise_str(L, &lang_tf_exc_OperatorNotAllowedInGraphError,
                   "A `return` inside a loop on a symbolic tensor needs a value of known shape");
    return false;
  }
  g_autoptr(TrTensor) zeros = tr_tensor_new(o.dtype, &o.shape);
  *zeros_out = tr_node_output(tr_graph_add_const(parent, zeros, "zeros"), 0);
  return true;
}

/* Appends the returned value as a loop variable entering with `init` (after the others were
 * put back: it was None before the loop). */
static void
loop_vars_append_return(LoopVars *lv, LangValue *locals, int slot, TrOutput init)
{
  int k = lv->n++;
  lv->slots = g_renew(int, lv->slots, lv->n);
  lv->names = g_renew(const char *, lv->names, lv->n);
  lv->init = g_renew(TrOutput, lv->init, lv->n);
  lv->saved = g_renew(LangValue, lv->saved, lv->n);
  if (lv->shapes) {
    lv->shapes = g_renew(TrShape, lv->shapes, lv->n);
    lv->shapes[k] = *tr_output_shape(init);
  }
  lv->slots[k] = slot;
  lv->names[k] = "retval";
  lv->init[k] = init;
  lv->saved[k] = LANG_UNSET;
  lang_decref(locals[slot]);
  locals[slot] = LANG_NONE;
}

/* Rebinds the loop variables to outputs first.. of the While node. */
static void
loop_vars_rebind(LangState *L, LoopVars *lv, LangValue *locals, TrNode *node, int first)
{
  for (int k = 0; k < lv->n; k++) {
    LangValue cur = locals[lv->slots[k]];
    locals[lv->slots[k]] =
        value_wrap(L, lv->saved[k], node->graph, tr_node_output(node, first + k));
    lang_decref(cur);
  }
}

/* ---- `for` over a source --------------------------------------------------------------------- */

enum { LOOP_START, LOOP_BODY, LOOP_DONE };

typedef struct {
  LangObject base;                       /* loop_type */
  LangState *L;                          /* the session (dealloc restores its trace) */
  const LangTfLoopSource *source;        /* where the elements come from */
  void *data;                            /* the source's state (owned) */
  int state;                             /* LOOP_START, LOOP_BODY, LOOP_DONE */
  LangTfTrace body;                      /* the body's trace, current while state is LOOP_BODY */
  LangTfTrace *parent;                   /* the trace the loop belongs to */
  TrOutput init[LANG_TF_LOOP_MAX_STATE]; /* the source's state before the loop, parent graph */
  LoopVars vars;                         /* the user's loop variables */
  LangValue *locals;                     /* the frame's fast locals (borrowed) */
  TrNode **ph;              /* body placeholders: the source's state, then the loop variables */
  const LangLoopInfo *info; /* the loop's code */
  LangFrame *frame;         /* the frame running it */
  struct AgBlock *marker;   /* its block on the frame while the body runs, or NULL */
} Loop;

static void marker_push(Loop *lp);
static void marker_drop(Loop *lp);

static void
loop_free_parts(Loop *lp)
{
  if (lp->body.graph)
    child_trace_clear(&lp->body);
  loop_vars_clear(&lp->vars);
  g_clear_pointer(&lp->ph, g_free);
}

static void
loop_dealloc(LangObject *o)
{
  Loop *lp = (Loop *)o;
  marker_drop(lp);
  if (lp->state == LOOP_BODY) {
    /* Left by break, return or an exception: the body graph is dropped, the enclosing trace
     * resumes and is told, so the Function raises instead of keeping a half-built loop. */
    LangTfState *st = lang_tf_state(lp->L);
    if (st->trace == &lp->body)
      st->trace = lp->parent;
    if (!lp->parent->error)
      lp->parent->error =
          g_strdup("`break`, `return` and `continue` inside a `for` loop over a tensor are not "
                   "supported yet; compute a mask or use tf.where instead");
    loop_vars_restore(&lp->vars, lp->locals);
  }
  loop_free_parts(lp);
  if (lp->source->free)
    lp->source->free(lp->data);
}

static LangValue loop_body(LangState *L, Loop *lp);

/* First next(): finds the loop variables, starts the body graph and yields the element. */
static LangValue
loop_start(LangState *L, Loop *lp)
{
  const int *slots;
  int n_slots;
  LangObject *const *varnames;
  LangValue *locals = lang_vm_loop_locals(L, &slots, &n_slots, &varnames, &lp->info);
  if (!locals)
    return lang_raise_str(L, &lang_tf_exc_OperatorNotAllowedInGraphError,
                          "Iterating over a symbolic `tf.Tensor` is supported in `for` statements "
                          "of a function body only, not in comprehensions.");
  LangTfState *st = lang_tf_state(L);
  const LangTfLoopSource *src = lp->source;
  GError *error = NULL;
  lp->parent = st->trace;
  lp->locals = locals;
  lp->frame = lang_vm_top_frame(L);
  if (!src->init(L, lp->data, lp->parent->graph, lp->init, &error))
    return error ? lang_tf_raise_any(L, error) : LANG_EXC;
  if (!loop_vars_collect(L, &lp->vars, locals, slots, n_slots, varnames))
    return LANG_EXC;
  return loop_body(L, lp);
}

/* Starts (or restarts) the body graph and yields the element. */
static LangValue
loop_body(LangState *L, Loop *lp)
{
  LangTfState *st = lang_tf_state(L);
  const LangTfLoopSource *src = lp->source;
  child_trace_init(&lp->body, lp->parent, "while_body");
  g_free(lp->ph);
  lp->ph = g_new(TrNode *, src->n_state + lp->vars.n + 1);
  for (int i = 0; i < src->n_state; i++)
    lp->ph[i] = tr_graph_add_placeholder(lp->body.graph, tr_output_dtype(lp->init[i]),
                                         tr_output_shape(lp->init[i]), src->names[i]);
  loop_vars_bind(L, &lp->vars, lp->locals, lp->body.graph, lp->ph + src->n_state);
  st->trace = &lp->body;
  lp->state = LOOP_BODY;
  marker_push(lp);

  TrOutput state[LANG_TF_LOOP_MAX_STATE];
  for (int i = 0; i < src->n_state; i++)
    state[i] = tr_node_output(lp->ph[i], 0);
  return src->element(L, lp->data, lp->body.graph, state);
}

/* *pred = *pred && !flag, in `g`. */
static bool
and_not(TrGraph *g, TrOutput *pred, TrOutput flag, GError **error)
{
  if (tr_output_dtype(flag) != TR_BOOL)
    return true;
  TrNode *neg = tr_graph_add_op(g, TR_OP_LOGICAL_NOT, &flag, 1, NULL, NULL, error);
  TrOutput in[2] = {*pred, neg ? tr_node_output(neg, 0) : flag};
  TrNode *both = neg ? tr_graph_add_op(g, TR_OP_LOGICAL_AND, in, 2, NULL, NULL, error) : NULL;
  if (both)
    *pred = tr_node_output(both, 0);
  return both != NULL;
}

/* The cond graph of a While over `body`'s arguments, from `test` (the source's test). */
static TrGraph *
loop_cond_graph(const Loop *lp, TrGraph *body, GError **error)
{
  TrGraph *cond = tr_graph_new("while_cond");
  int n = tr_graph_n_inputs(body);
  g_autofree TrOutput *cph = g_new(TrOutput, n > 0 ? n : 1);
  for (int i = 0; i < n; i++) {
    TrNode *src = tr_graph_input(body, i);
    cph[i] = tr_node_output(
        tr_graph_add_placeholder(cond, src->dtypes[0], &src->shapes[0], src->name), 0);
  }
  TrOutput more;
  bool ok = lp->source->test(lp->data, cond, cph, &more, error);
  /* A loop that can `break` goes on only while its flag is false. */
  for (int k = 0; ok && k < lp->vars.n; k++)
    if (lp->info && lp->vars.slots[k] == lp->info->brk_slot)
      ok = and_not(cond, &more, cph[lp->source->n_state + k], error);
  if (!ok || !tr_graph_add_output(cond, more, error)) {
    tr_graph_unref(cond);
    return NULL;
  }
  return cond;
}

/* Second next(): closes the body, builds cond and the While node, rebinds the variables. */
static LangValue
loop_finish(LangState *L, Loop *lp)
{
  LangTfState *st = lang_tf_state(L);
  const LangTfLoopSource *src = lp->source;
  TrGraph *body = lp->body.graph;
  GError *error = NULL;
  marker_drop(lp);
  int ns = src->n_state, nv = lp->vars.n, nc = n_captures(&lp->body);
  int n = ns + nv + nc;
  g_autofree TrOutput *outs = g_new(TrOutput, n > 0 ? n : 1);
  TrOutput state[LANG_TF_LOOP_MAX_STATE];
  for (int i = 0; i < ns; i++)
    state[i] = tr_node_output(lp->ph[i], 0);
  bool ok = loop_vars_next(L, &lp->vars, lp->locals, lp->ph + ns, outs + ns);
  if (ok && !lp->vars.shapes && loop_vars_relax(&lp->vars, lp->ph + ns, outs + ns)) {
    /* A shape changed across the iteration: run the body again on relaxed shapes. */
    st->trace = lp->parent;
    loop_vars_restore(&lp->vars, lp->locals);
    child_trace_clear(&lp->body);
    return loop_body(L, lp);
  }
  TrOutput ret_init;
  if (ok &&
      !loop_vars_take_return(L, &lp->vars, lp->locals, lp->info, lp->parent->graph, &ret_init))
    ok = false;
  if (ok && ret_init.node) {
    /* A `return` inside set a value: run the body again with it as a loop variable. */
    st->trace = lp->parent;
    loop_vars_restore(&lp->vars, lp->locals);
    loop_vars_append_return(&lp->vars, lp->locals, lp->info->ret_slot, ret_init);
    child_trace_clear(&lp->body);
    return loop_body(L, lp);
  }
  if (ok && !src->step(lp->data, body, state, outs, &error))
    ok = false;
  for (int c = 0; c < nc; c++)
    outs[ns + nv + c] = capture_inner(&lp->body, c);
  for (int i = 0; ok && i < n; i++)
    ok = tr_graph_add_output(body, outs[i], &error) != NULL;
  st->trace = lp->parent;
  lp->state = LOOP_DONE;
  TrNode *node = NULL;
  if (ok) {
    g_autoptr(TrGraph) cond = loop_cond_graph(lp, body, &error);
    g_autofree TrOutput *inputs = g_new(TrOutput, n > 0 ? n : 1);
    for (int i = 0; i < ns; i++)
      inputs[i] = lp->init[i];
    for (int k = 0; k < nv; k++)
      inputs[ns + k] = lp->vars.init[k];
    for (int c = 0; c < nc; c++)
      inputs[ns + nv + c] = capture_outer(&lp->body, c);
    if (cond)
      node = tr_graph_add_while(lp->parent->graph, cond, body, inputs, n, "while", &error);
  }
  if (!node) {
    loop_vars_restore(&lp->vars, lp->locals);
    loop_free_parts(lp);
    return error ? lang_tf_raise_any(L, error) : LANG_EXC;
  }
  loop_vars_rebind(L, &lp->vars, lp->locals, node, ns);
  loop_free_parts(lp);
  return LANG_UNSET;
}

static LangValue
loop_next(LangState *L, LangValue self)
{
  Loop *lp = (Loop *)self.o;
  switch (lp->state) {
    case LOOP_START:
      return loop_start(L, lp);
    case LOOP_BODY:
      if (lang_tf_state(L)->trace != &lp->body)
        return lang_raise_str(L, &lang_exc_RuntimeError, "a tensor loop was resumed out of order");
      return loop_finish(L, lp);
    default:
      return LANG_UNSET;
  }
}

static LangValue
loop_iter(LangState *L, LangValue self)
{
  return lang_incref(self);
}

static LangType loop_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "tensor_loop_iterator",
    .instance_size = sizeof(Loop),
    .flags = LANG_TYPE_ABSTRACT_NEW,
    .slots = {.dealloc = loop_dealloc, .iter = loop_iter, .next = loop_next},
};

LangValue
lang_tf_loop_new_source(LangState *L, const LangTfLoopSource *source, void *data)
{
  g_return_val_if_fail(source->n_state >= 1 && source->n_state <= LANG_TF_LOOP_MAX_STATE, LANG_EXC);
  lang_type_ready(&loop_type, "tensorflow");
  Loop *lp = (Loop *)lang_object_alloc(L, &loop_type, sizeof(Loop));
  memset((char *)lp + sizeof(LangObject), 0, sizeof(Loop) - sizeof(LangObject));
  lp->L = L;
  lp->source = source;
  lp->data = data;
  lp->state = LOOP_START;
  return lang_obj(lp);
}

/* ---- sources: tf.range and tensors ------------------------------------------------------------
 */

/* tf.range(start, limit, delta): the counter is the element; state (i, limit, delta). */
static bool
range_init(LangState *L, void *data, TrGraph *g, TrOutput *state, GError **error)
{
  TrNode *range = data;
  for (int i = 0; i < 3; i++)
    state[i] = range->inputs[i];
  return true;
}

static bool
range_test(void *data, TrGraph *cond, const TrOutput *state, TrOutput *more, GError **error)
{
  /* tf.range counts down for a negative delta. */
  TrNode *delta = ((TrNode *)data)->inputs[2].node;
  bool down = delta->op == TR_GOP_CONST && tr_tensor_get_f64(delta->value, 0) < 0;
  TrOutput in[2] = {state[0], state[1]};
  TrNode *test = tr_graph_add_op(cond, down ? TR_OP_GREATER : TR_OP_LESS, in, 2, NULL, NULL, error);
  if (test)
    *more = tr_node_output(test, 0);
  return test != NULL;
}

static LangValue
range_element(LangState *L, void *data, TrGraph *body, const TrOutput *state)
{
  return lang_tf_symbolic_new(L, body, state[0]);
}

static bool
range_step(void *data, TrGraph *body, const TrOutput *state, TrOutput *next, GError **error)
{
  TrOutput in[2] = {state[0], state[2]};
  TrNode *step = tr_graph_add_op(body, TR_OP_ADD, in, 2, NULL, NULL, error);
  if (!step)
    return false;
  next[0] = tr_node_output(step, 0);
  next[1] = state[1];
  next[2] = state[2];
  return true;
}

static const char *const range_names[] = {"i", "limit", "delta"};
static const LangTfLoopSource range_source = {
    .n_state = 3,
    .names = range_names,
    .init = range_init,
    .test = range_test,
    .element = range_element,
    .step = range_step,
};

/* A tensor: its rows t[k] in order; state (k, t). */
static bool
tensor_init(LangState *L, void *data, TrGraph *g, TrOutput *state, GError **error)
{
  g_autoptr(TrTensor) zero = tr_tensor_new_int32(0);
  state[0] = tr_node_output(tr_graph_add_const(g, zero, NULL), 0);
  state[1] = *(TrOutput *)data;
  return true;
}

static bool
tensor_test(void *data, TrGraph *cond, const TrOutput *state, TrOutput *more, GError **error)
{
  int64_t len = tr_output_shape(*(TrOutput *)data)->dims[0];
  g_autoptr(TrTensor) limit = tr_tensor_new_int32((int32_t)len);
  TrOutput in[2] = {state[0], tr_node_output(tr_graph_add_const(cond, limit, NULL), 0)};
  TrNode *test = tr_graph_add_op(cond, TR_OP_LESS, in, 2, NULL, NULL, error);
  if (test)
    *more = tr_node_output(test, 0);
  return test != NULL;
}

static LangValue
tensor_element(LangState *L, void *data, TrGraph *body, const TrOutput *state)
{
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.axis = 0;
  TrOutput in[2] = {state[1], state[0]};
  GError *error = NULL;
  TrNode *elem = tr_graph_add_op(body, TR_OP_GATHER, in, 2, &attrs, NULL, &error);
  if (!elem)
    return lang_tf_raise_any(L, error);
  return lang_tf_symbolic_new(L, body, tr_node_output(elem, 0));
}

static bool
tensor_step(void *data, TrGraph *body, const TrOutput *state, TrOutput *next, GError **error)
{
  g_autoptr(TrTensor) one = tr_tensor_new_int32(1);
  TrOutput in[2] = {state[0], tr_node_output(tr_graph_add_const(body, one, NULL), 0)};
  TrNode *step = tr_graph_add_op(body, TR_OP_ADD, in, 2, NULL, NULL, error);
  if (!step)
    return false;
  next[0] = tr_node_output(step, 0);
  next[1] = state[1];
  return true;
}

static const char *const tensor_names[] = {"k", "elems"};
static const LangTfLoopSource tensor_source = {
    .n_state = 2,
    .names = tensor_names,
    .init = tensor_init,
    .test = tensor_test,
    .element = tensor_element,
    .step = tensor_step,
    .free = g_free,
};

LangValue
lang_tf_loop_new(LangState *L, LangValue tensor)
{
  TrOutput t = lang_tf_symbolic_output(tensor);
  if (t.node->op == TR_OP_RANGE)
    return lang_tf_loop_new_source(L, &range_source, t.node);
  const TrShape *shape = tr_output_shape(t);
  if (shape->rank == 0)
    return lang_raise_str(L, &lang_exc_TypeError, "Cannot iterate over a scalar tensor.");
  if (shape->rank == TR_UNKNOWN || shape->dims[0] == TR_UNKNOWN)
    return lang_raise_str(L, &lang_tf_exc_OperatorNotAllowedInGraphError,
                          "Iterating over a tensor whose first dimension is unknown is not "
                          "supported yet; iterate over tf.range(n) and index the tensor.");
  TrOutput *data = g_new(TrOutput, 1);
  *data = t;
  return lang_tf_loop_new_source(L, &tensor_source, data);
}

/* ---- `if` and `while` blocks of a frame --------------------------------------------------- */

enum { AG_THEN, AG_ELSE, AG_COND, AG_BODY };

/* What a block of the frame is: an `if`, a `while`, the body of a `for` over a tensor (a
 * marker: the loop itself lives in its iterator), or a guard — the rest of a graph loop's body
 * after an `if` that may have run `break` or `continue`, traced as an `if not flag`. */
enum { AGK_IF, AGK_WHILE, AGK_FOR, AGK_GUARD, AGK_FGUARD };

/* A function guard's code: the rest of the function after an `if` on a tensor that returned in
 * one branch only, traced as `if not returned:` up to the next `return`. */
static const LangLoopInfo fguard_info = {.kind = LANG_BLOCK_IF, .start = 0, .end = G_MAXINT};

typedef struct AgBlock AgBlock;
struct AgBlock {
  AgBlock *outer;           /* the enclosing block traced in the same frame, or NULL */
  int kind;                 /* AGK_IF, AGK_WHILE, AGK_FOR, AGK_GUARD */
  int end_instr;            /* guard: the instruction where it ends */
  const LangLoopInfo *info; /* the block's code (a guard: the block it guards a part of) */
  int phase;                /* AG_THEN, AG_ELSE (if); AG_COND, AG_BODY (while) */
  int depth;                /* value-stack depth at the block's start */
  LangTfTrace *parent;      /* the trace the block belongs to */
  LangTfTrace part;         /* the part being traced: a branch, the cond or the body */
  LangTfTrace done;         /* if: the finished true branch; while: the finished cond */
  LangValue *saved;         /* if: the assigned locals before the block (owned) */
  LangValue *then_vals;     /* if: their values after the true part (owned) */
  LangValue then_ret;       /* if: what the true part returned (owned), or UNSET */
  TrOutput pred;            /* if: the condition, in the parent graph */
  LangValue ret_value;      /* function guard: what was returned when pred is false (owned) */
  LoopVars vars;            /* while: the loop variables */
  TrNode **cond_ph;         /* while: the cond graph's placeholders for them */
  TrNode **body_ph;         /* while: the body graph's placeholders: variables, cond captures */
};

static AgBlock *
top_block(LangFrame *f)
{
  return *lang_frame_ag(f);
}

static void
block_free_values(AgBlock *b, int n)
{
  for (int k = 0; b->saved && k < n; k++)
    lang_decref(b->saved[k]);
  for (int k = 0; b->then_vals && k < n; k++)
    lang_decref(b->then_vals[k]);
  g_clear_pointer(&b->saved, g_free);
  g_clear_pointer(&b->then_vals, g_free);
  lang_decref(b->then_ret);
  b->then_ret = LANG_UNSET;
}

/* Pops the innermost block; the trace goes back to its parent. */
static void
block_pop(LangState *L, LangFrame *f)
{
  AgBlock *b = top_block(f);
  *lang_frame_ag(f) = b->outer;
  lang_tf_state(L)->trace = b->parent;
  if (b->part.graph)
    child_trace_clear(&b->part);
  if (b->done.graph)
    child_trace_clear(&b->done);
  block_free_values(b, b->info->n);
  if (b->kind == AGK_FGUARD)
    lang_decref(b->ret_value);
  loop_vars_clear(&b->vars);
  g_free(b->cond_ph);
  g_free(b->body_ph);
  g_free(b);
}

/* Abandons the innermost block, putting the locals of before it back. */
static void
block_abandon(LangState *L, LangFrame *f)
{
  AgBlock *b = top_block(f);
  LangValue *locals = lang_frame_locals(f);
  if (b->saved) {
    for (int k = 0; k < b->info->n; k++) {
      LangValue cur = locals[b->info->slots[k]];
      locals[b->info->slots[k]] = b->saved[k];
      b->saved[k] = LANG_UNSET;
      lang_decref(cur);
    }
  }
  loop_vars_restore(&b->vars, locals);
  block_pop(L, f);
}

void
lang_ag_abort(LangState *L, LangFrame *f)
{
  while (top_block(f))
    block_abandon(L, f);
}

static const LangLoopInfo *
find_block(LangCode *code, int kind, int instr)
{
  for (int i = 0; i < code->n_loops; i++)
    if (code->loops[i].kind == kind && code->loops[i].instr == instr)
      return &code->loops[i];
  return NULL;
}

/* `break` or `continue` left the innermost block without passing its end. */
static bool
check_inside(LangState *L, LangFrame *f, int instr)
{
  AgBlock *b = top_block(f);
  if (!b || (instr >= b->info->start && instr <= b->info->end))
    return true;
  bool loop = b->kind != AGK_IF;
  lang_ag_abort(L, f);
  lang_raise(L, &lang_tf_exc_OperatorNotAllowedInGraphError,
             "`break` and `continue` out of %s on a symbolic tensor are not supported yet; "
             "carry a flag in a loop variable instead",
             loop ? "a `while` loop" : "an `if`");
  return false;
}

/* ---- if ------------------------------------------------------------------------------------ */

/* A test written `not x` jumps when x is true: the block's condition is `not x`. */
static bool
test_negated(LangFrame *f, const LangLoopInfo *info)
{
  return LANG_INSTR_OP(lang_frame_code(f)->code[info->instr]) == LANG_OP_POP_JUMP_IF_TRUE;
}

static bool
negate(LangState *L, LangTfOperand *pred)
{
  LangTfOperand out;
  if (!lang_tf_apply_operand(L, TR_OP_LOGICAL_NOT, pred, 1, NULL, NULL, &out))
    return false;
  *pred = out;
  return true;
}

static int
if_begin(LangState *L, LangFrame *f, const LangLoopInfo *info, LangValue v, int depth)
{
  LangTfState *st = lang_tf_state(L);
  LangTfOperand pred;
  if (!lang_tf_operand(L, v, TR_DTYPE_INVALID, false, &pred))
    return LANG_AG_RAISE;
  if (pred.dtype != TR_BOOL) {
    lang_raise(L, &lang_exc_TypeError,
               "The condition of an `if` on a tensor must be a bool tensor, but is a %s tensor; "
               "compare it (`x != 0`) or cast it with tf.cast",
               tr_dtype_name(pred.dtype));
    return LANG_AG_RAISE;
  }
  if (pred.shape.rank != 0 && pred.shape.rank != TR_UNKNOWN) {
    g_autofree char *shape = tr_shape_to_string(&pred.shape);
    lang_raise(L, &lang_exc_ValueError,
               "The condition of an `if` on a tensor must be a scalar, but has shape %s; reduce "
               "it with tf.reduce_all or tf.reduce_any",
               shape);
    return LANG_AG_RAISE;
  }
  if (test_negated(f, info) && !negate(L, &pred))
    return LANG_AG_RAISE;
  AgBlock *b = g_new0(AgBlock, 1);
  b->kind = AGK_IF;
  b->info = info;
  b->phase = AG_THEN;
  b->depth = depth;
  b->parent = st->trace;
  b->pred = pred.out;
  b->then_ret = LANG_UNSET;
  LangValue *locals = lang_frame_locals(f);
  b->saved = g_new(LangValue, info->n > 0 ? info->n : 1);
  for (int k = 0; k < info->n; k++)
    b->saved[k] = lang_incref(locals[info->slots[k]]);
  child_trace_init(&b->part, b->parent, "cond_true");
  b->outer = *lang_frame_ag(f);
  *lang_frame_ag(f) = b;
  st->trace = &b->part;
  return LANG_AG_NEXT;
}

/* The true part is done: keep its values and start the else part on the values of before. */
static void
if_switch(LangState *L, LangFrame *f, AgBlock *b)
{
  LangValue *locals = lang_frame_locals(f);
  int n = b->info->n;
  b->then_vals = g_new(LangValue, n > 0 ? n : 1);
  for (int k = 0; k < n; k++) {
    b->then_vals[k] = locals[b->info->slots[k]];
    locals[b->info->slots[k]] = lang_incref(b->saved[k]);
  }
  b->done = b->part;
  child_trace_init(&b->part, b->parent, "cond_false");
  lang_tf_state(L)->trace = &b->part;
  b->phase = AG_ELSE;
}

/* One value of the if as an output of a branch graph (that branch's trace made current). */
static bool
branch_operand(LangState *L, LangTfTrace *branch, LangValue v, TrDType dtype, TrOutput *out)
{
  LangTfState *st = lang_tf_state(L);
  LangTfTrace *cur = st->trace;
  st->trace = branch;
  LangTfOperand o;
  bool ok = value_operand(L, v, dtype, dtype != TR_DTYPE_INVALID, &o);
  st->trace = cur;
  if (ok)
    *out = o.out;
  return ok;
}

/* The outputs of both branches for one value the if assigns (or returns). */
static bool
merge_value(LangState *L, AgBlock *b, const char *name, LangValue a, LangValue e, TrOutput *ta,
            TrOutput *te)
{
  if (!is_tensor_like(a) || !is_tensor_like(e)) {
    lang_raise(L, &lang_exc_TypeError,
               "'%s' is a %s in the main branch and a %s in the else branch of an `if` on a "
               "tensor; values an `if` on a tensor sets in a branch must be tensors or numbers",
               name, lang_type_name(a), lang_type_name(e));
    return false;
  }
  if (lang_tf_is_tensor_array(a) != lang_tf_is_tensor_array(e)) {
    lang_raise(L, &lang_exc_TypeError,
               "'%s' is a %s in the main branch and a %s in the else branch", name,
               lang_type_name(a), lang_type_name(e));
    return false;
  }
  TrDType hint = lang_tf_dtype_of(a);
  if (hint == TR_DTYPE_INVALID)
    hint = lang_tf_dtype_of(e);
  if (!branch_operand(L, &b->done, a, hint, ta) || !branch_operand(L, &b->part, e, hint, te))
    return false;
  TrDType da = tr_output_dtype(*ta), de = tr_output_dtype(*te);
  if (da != de) {
    lang_raise(L, &lang_exc_TypeError,
               "'%s' has dtype %s in the main branch, but dtype %s in the else branch", name,
               tr_dtype_name(da), tr_dtype_name(de));
    return false;
  }
  return true;
}

/* The returned value of the branch that returned, and zeros of its dtype and shape from the
 * other: an `if` that returns in one branch only returns through an output of the If. */
static bool
partial_return(LangState *L, AgBlock *b, LangValue v, bool in_then, TrOutput *ta, TrOutput *te)
{
  LangTfTrace *mine = in_then ? &b->done : &b->part;
  LangTfTrace *other = in_then ? &b->part : &b->done;
  TrOutput out;
  if (!is_tensor_like(v) || lang_tf_is_tensor_array(v) ||
      !branch_operand(L, mine, v, TR_DTYPE_INVALID, &out)) {
    if (lang_is_unset(L->exc))
      lang_raise(L, &lang_exc_TypeError,
                 "A `return` in one branch of an `if` on a symbolic tensor must return a tensor "
                 "or a number, not %s",
                 lang_type_name(v));
    return false;
  }
  const TrShape *shape = tr_output_shape(out);
  TrDType dtype = tr_output_dtype(out);
  if (!tr_shape_is_fully_defined(shape) || dtype >= TR_N_DTYPES) {
    lang_raise_str(L, &lang_tf_exc_OperatorNotAllowedInGraphError,
                   "A `return` in one branch of an `if` on a symbolic tensor needs a value of "
                   "known shape; return from both branches instead");
    return false;
  }
  g_autoptr(TrTensor) zeros = tr_tensor_new(dtype, shape);
  TrOutput z = tr_node_output(tr_graph_add_const(other->graph, zeros, "zeros"), 0);
  *ta = in_then ? out : z;
  *te = in_then ? z : out;
  return true;
}

static bool fguard_begin(LangState *L, LangFrame *f, LangValue returned, LangValue value);
static AgBlock *innermost_loop(LangFrame *f);

/* Both parts are done: the If node, and the assigned locals rebound to its outputs. `ret` is
 * the else part's returned value (owned) when the true part returned too; *ret_out gets the
 * merged one. */
static bool
if_finish(LangState *L, LangFrame *f, LangValue else_ret, LangValue *ret_out)
{
  AgBlock *b = top_block(f);
  LangCode *code = lang_frame_code(f);
  LangValue *locals = lang_frame_locals(f);
  const LangLoopInfo *info = b->info;
  int n = info->n;
  bool then_r = b->then_ret.tag != LANG_TAG_UNSET, else_r = else_ret.tag != LANG_TAG_UNSET;
  bool partial = then_r != else_r;
  if (partial && ((b->outer && b->outer->kind != AGK_FGUARD) || b->kind != AGK_IF)) {
    lang_decref(else_ret);
    block_abandon(L, f);
    lang_raise_str(L, &lang_tf_exc_OperatorNotAllowedInGraphError,
                   "A `return` in only one branch of an `if` on a symbolic tensor is not "
                   "supported yet; return from both branches, or assign a variable and return "
                   "it after the `if`");
    return false;
  }
  /* Per output: its slot index; -1: the return value; -2: whether the branch returned. */
  g_autofree int *outs = g_new(int, n + 2);
  g_autofree TrOutput *ta = g_new(TrOutput, n + 2);
  g_autofree TrOutput *te = g_new(TrOutput, n + 2);
  int n_out = 0;
  bool ok = true;
  for (int k = 0; k < n && ok; k++) {
    LangValue a = b->then_vals[k], e = locals[info->slots[k]];
    const char *name = slot_name(code, info->slots[k]);
    if (a.tag == LANG_TAG_UNSET && e.tag == LANG_TAG_UNSET)
      continue;
    if (a.tag == e.tag && a.tag == LANG_TAG_OBJ && a.o == e.o)
      continue;
    if (a.tag == LANG_TAG_UNSET || e.tag == LANG_TAG_UNSET) {
      lang_raise(L, &lang_exc_ValueError,
                 "'%s' must also be initialized in the %s branch: an `if` on a symbolic tensor "
                 "runs both branches, and each must leave '%s' defined",
                 name, a.tag == LANG_TAG_UNSET ? "main" : "else", name);
      ok = false;
      break;
    }
    AgBlock *loop = innermost_loop(f);
    if (loop && info->slots[k] == loop->info->ret_slot &&
        (a.tag == LANG_TAG_NONE) != (e.tag == LANG_TAG_NONE))
      /* The value a `return` in the loop stored, and None where none ran yet. */
      ok = partial_return(L, b, a.tag == LANG_TAG_NONE ? e : a, a.tag != LANG_TAG_NONE, &ta[n_out],
                          &te[n_out]);
    else
      ok = merge_value(L, b, name, a, e, &ta[n_out], &te[n_out]);
    outs[n_out++] = k;
  }
  if (ok && then_r && else_r) {
    ok = merge_value(L, b, "the return value", b->then_ret, else_ret, &ta[n_out], &te[n_out]);
    outs[n_out++] = -1;
  } else if (ok && partial) {
    ok = partial_return(L, b, then_r ? b->then_ret : else_ret, then_r, &ta[n_out], &te[n_out]) &&
         branch_operand(L, &b->done, lang_bool(then_r), TR_BOOL, &ta[n_out + 1]) &&
         branch_operand(L, &b->part, lang_bool(else_r), TR_BOOL, &te[n_out + 1]);
    outs[n_out++] = -1;
    outs[n_out++] = -2;
  }
  LangValue ret_like = then_r ? b->then_ret : else_ret;
  GError *error = NULL;
  for (int i = 0; ok && i < n_out; i++)
    ok = tr_graph_add_output(b->done.graph, ta[i], &error) &&
         tr_graph_add_output(b->part.graph, te[i], &error);
  TrNode *node = NULL;
  if (ok) {
    int n_then = n_captures(&b->done), n_else = n_captures(&b->part);
    g_autofree TrOutput *then_in = g_new(TrOutput, n_then + 1);
    g_autofree TrOutput *else_in = g_new(TrOutput, n_else + 1);
    for (int i = 0; i < n_then; i++)
      then_in[i] = capture_outer(&b->done, i);
    for (int i = 0; i < n_else; i++)
      else_in[i] = capture_outer(&b->part, i);
    node = tr_graph_add_cond(b->parent->graph, b->pred, b->done.graph, b->part.graph, then_in,
                             n_then, else_in, n_else, "cond", &error);
  }
  if (!node) {
    lang_decref(else_ret);
    if (error)
      lang_tf_raise_any(L, error);
    block_abandon(L, f);
    return false;
  }
  TrGraph *g = b->parent->graph;
  LangValue returned = LANG_UNSET;
  for (int i = 0; i < n_out; i++) {
    LangValue like = outs[i] < 0 ? ret_like : b->then_vals[outs[i]];
    LangValue v = value_wrap(L, like, g, tr_node_output(node, i));
    if (outs[i] == -1) {
      *ret_out = v;
      continue;
    }
    if (outs[i] == -2) {
      returned = v;
      continue;
    }
    int slot = info->slots[outs[i]];
    lang_decref(locals[slot]);
    locals[slot] = v;
  }
  lang_decref(else_ret);
  block_pop(L, f);
  if (!partial)
    return true;
  /* One branch returned: the rest of the function runs under `if not returned`. */
  LangValue value = *ret_out;
  *ret_out = LANG_UNSET;
  bool guarded = fguard_begin(L, f, returned, value);
  lang_decref(returned);
  return guarded;
}

/* ---- while --------------------------------------------------------------------------------- */

/* Starts (or restarts) the cond graph: the test runs again on its placeholders. */
static int
while_cond(LangState *L, LangFrame *f, AgBlock *b)
{
  child_trace_init(&b->part, b->parent, "while_cond");
  g_free(b->cond_ph);
  b->cond_ph = g_new(TrNode *, b->vars.n + 1);
  loop_vars_bind(L, &b->vars, lang_frame_locals(f), b->part.graph, b->cond_ph);
  lang_tf_state(L)->trace = &b->part;
  b->phase = AG_COND;
  return b->info->start;
}

static int
while_begin(LangState *L, LangFrame *f, const LangLoopInfo *info, int depth)
{
  LangTfState *st = lang_tf_state(L);
  LangCode *code = lang_frame_code(f);
  LangValue *locals = lang_frame_locals(f);
  AgBlock *b = g_new0(AgBlock, 1);
  b->kind = AGK_WHILE;
  b->info = info;
  b->phase = AG_COND;
  b->depth = depth;
  b->parent = st->trace;
  b->then_ret = LANG_UNSET;
  b->outer = *lang_frame_ag(f);
  *lang_frame_ag(f) = b;
  if (!loop_vars_collect(L, &b->vars, locals, info->slots, info->n, code->varnames)) {
    block_pop(L, f);
    return LANG_AG_RAISE;
  }
  return while_cond(L, f, b);
}

/* The test in the cond graph gave `v`: the cond is done, the body starts. */
static int
while_body(LangState *L, LangFrame *f, AgBlock *b, LangValue v)
{
  LangTfState *st = lang_tf_state(L);
  LangValue *locals = lang_frame_locals(f);
  LangTfOperand pred;
  GError *error = NULL;
  if (!lang_tf_operand(L, v, TR_DTYPE_INVALID, false, &pred))
    goto fail;
  if (pred.dtype != TR_BOOL) {
    lang_raise(L, &lang_exc_TypeError,
               "The condition of a `while` on a tensor must be a bool tensor, but is a %s tensor",
               tr_dtype_name(pred.dtype));
    goto fail;
  }
  if (test_negated(f, b->info) && !negate(L, &pred))
    goto fail;
  TrOutput test = pred.out;
  if (b->info->brk_slot >= 0) {
    LangTfOperand flag;
    if (!lang_tf_operand(L, locals[b->info->brk_slot], TR_BOOL, false, &flag))
      goto fail;
    if (!and_not(b->part.graph, &test, flag.out, &error)) {
      lang_tf_raise_any(L, error);
      goto fail;
    }
  }
  if (!tr_graph_add_output(b->part.graph, test, &error)) {
    lang_tf_raise_any(L, error);
    goto fail;
  }
  b->done = b->part;
  child_trace_init(&b->part, b->parent, "while_body");
  int nv = b->vars.n, nc = n_captures(&b->done);
  b->body_ph = g_new(TrNode *, nv + nc + 1);
  loop_vars_bind(L, &b->vars, locals, b->part.graph, b->body_ph);
  for (int c = 0; c < nc; c++) {
    TrNode *src = tr_node_output(g_array_index(b->done.captures, LangTfCapture, c).inner, 0).node;
    b->body_ph[nv + c] =
        tr_graph_add_placeholder(b->part.graph, src->dtypes[0], &src->shapes[0], src->name);
  }
  st->trace = &b->part;
  b->phase = AG_BODY;
  return LANG_AG_NEXT;

fail:
  block_abandon(L, f);
  return LANG_AG_RAISE;
}

/* The back edge: the body is done; add the While node and go on after the loop. */
static int
while_finish(LangState *L, LangFrame *f, AgBlock *b)
{
  LangValue *locals = lang_frame_locals(f);
  GError *error = NULL;
  int nv = b->vars.n, ncc = n_captures(&b->done), nbc = n_captures(&b->part);
  int n = nv + ncc + nbc;
  g_autofree TrOutput *outs = g_new(TrOutput, n + 1);
  if (!loop_vars_next(L, &b->vars, locals, b->body_ph, outs)) {
    block_abandon(L, f);
    return LANG_AG_RAISE;
  }
  if (!b->vars.shapes && loop_vars_relax(&b->vars, b->body_ph, outs)) {
    /* A shape changed across the iteration: trace cond and body again on relaxed shapes. */
    loop_vars_restore(&b->vars, locals);
    child_trace_clear(&b->part);
    child_trace_clear(&b->done);
    g_clear_pointer(&b->body_ph, g_free);
    return while_cond(L, f, b);
  }
  TrOutput ret_init;
  if (!loop_vars_take_return(L, &b->vars, locals, b->info, b->parent->graph, &ret_init)) {
    block_abandon(L, f);
    return LANG_AG_RAISE;
  }
  if (ret_init.node) {
    /* A `return` inside set a value: trace cond and body again with it as a loop variable. */
    loop_vars_restore(&b->vars, locals);
    loop_vars_append_return(&b->vars, locals, b->info->ret_slot, ret_init);
    child_trace_clear(&b->part);
    child_trace_clear(&b->done);
    g_clear_pointer(&b->body_ph, g_free);
    return while_cond(L, f, b);
  }
  for (int c = 0; c < ncc; c++)
    outs[nv + c] = tr_node_output(b->body_ph[nv + c], 0);
  for (int c = 0; c < nbc; c++)
    outs[nv + ncc + c] = capture_inner(&b->part, c);
  bool ok = true;
  for (int i = 0; ok && i < n; i++)
    ok = tr_graph_add_output(b->part.graph, outs[i], &error) != NULL;
  /* The cond takes the body's captures too, unused. */
  for (int c = 0; ok && c < nbc; c++) {
    TrNode *src = tr_node_output(g_array_index(b->part.captures, LangTfCapture, c).inner, 0).node;
    tr_graph_add_placeholder(b->done.graph, src->dtypes[0], &src->shapes[0], src->name);
  }
  TrNode *node = NULL;
  if (ok) {
    g_autofree TrOutput *inputs = g_new(TrOutput, n + 1);
    for (int k = 0; k < nv; k++)
      inputs[k] = b->vars.init[k];
    for (int c = 0; c < ncc; c++)
      inputs[nv + c] = capture_outer(&b->done, c);
    for (int c = 0; c < nbc; c++)
      inputs[nv + ncc + c] = capture_outer(&b->part, c);
    node = tr_graph_add_while(b->parent->graph, b->done.graph, b->part.graph, inputs, n, "while",
                              &error);
  }
  if (!node) {
    lang_tf_raise_any(L, error);
    block_abandon(L, f);
    return LANG_AG_RAISE;
  }
  loop_vars_rebind(L, &b->vars, locals, node, 0);
  int to = b->info->orelse;
  block_pop(L, f);
  return to;
}

/* ---- for-loop markers and guards ----------------------------------------------------------- */

/* Removes `b` from the frame's block list, wherever it is; the trace is left alone. */
static void
block_unlink(LangFrame *f, AgBlock *b)
{
  for (AgBlock **p = (AgBlock **)lang_frame_ag(f); *p; p = &(*p)->outer) {
    if (*p == b) {
      *p = b->outer;
      return;
    }
  }
}

/* A `for` over a tensor's body is running: the frame knows, so `break`, `continue` and
 * conditionals inside it find their loop. */
static void
marker_push(Loop *lp)
{
  if (!lp->frame || !lp->info)
    return;
  AgBlock *b = g_new0(AgBlock, 1);
  b->kind = AGK_FOR;
  b->info = lp->info;
  b->phase = AG_BODY;
  b->parent = &lp->body;
  b->then_ret = LANG_UNSET;
  b->outer = *lang_frame_ag(lp->frame);
  *lang_frame_ag(lp->frame) = b;
  lp->marker = b;
}

static void
marker_drop(Loop *lp)
{
  if (!lp->marker)
    return;
  block_unlink(lp->frame, lp->marker);
  g_free(lp->marker);
  lp->marker = NULL;
}

/* The instruction where the part of `b` being traced ends. */
static int
part_end(const AgBlock *b)
{
  switch (b->kind) {
    case AGK_IF:
      if (b->phase == AG_THEN && b->info->orelse != b->info->end)
        return b->info->orelse - 1; /* its AG_ELSE */
      return b->info->end;
    case AGK_GUARD:
      return b->end_instr;
    default:
      return b->info->end; /* the loop's back edge */
  }
}

/* The innermost graph loop whose body is being traced in the frame, or NULL. */
static AgBlock *
innermost_loop(LangFrame *f)
{
  for (AgBlock *b = top_block(f); b; b = b->outer)
    if (b->kind == AGK_FOR || (b->kind == AGK_WHILE && b->phase == AG_BODY))
      return b;
  return NULL;
}

/* After an `if` on a tensor inside a graph loop that can break or continue: when a flag may now
 * be set, the rest of the part is traced under `if not (break or continue)` (a guard). */
static bool
maybe_guard(LangState *L, LangFrame *f)
{
  AgBlock *loop = innermost_loop(f);
  if (!loop)
    return true;
  LangValue *locals = lang_frame_locals(f);
  int flags[2] = {loop->info->brk_slot, loop->info->cont_slot};
  LangTfOperand stop = {0};
  bool have = false;
  for (int i = 0; i < 2; i++) {
    if (flags[i] < 0 || !lang_tf_is_symbolic(locals[flags[i]]))
      continue;
    LangTfOperand o;
    if (!lang_tf_operand(L, locals[flags[i]], TR_BOOL, false, &o))
      return false;
    if (!have) {
      stop = o;
      have = true;
      continue;
    }
    LangTfOperand in[2] = {stop, o};
    if (!lang_tf_apply_operand(L, TR_OP_LOGICAL_OR, in, 2, NULL, NULL, &stop))
      return false;
  }
  if (!have)
    return true;
  LangTfOperand go;
  if (!lang_tf_apply_operand(L, TR_OP_LOGICAL_NOT, &stop, 1, NULL, NULL, &go))
    return false;
  AgBlock *container = top_block(f);
  AgBlock *b = g_new0(AgBlock, 1);
  b->kind = AGK_GUARD;
  b->info = container->info;
  b->end_instr = part_end(container);
  b->phase = AG_THEN;
  b->depth = container->depth;
  b->parent = lang_tf_trace(L);
  b->pred = go.out;
  b->then_ret = LANG_UNSET;
  int n = b->info->n;
  b->saved = g_new(LangValue, n > 0 ? n : 1);
  for (int k = 0; k < n; k++)
    b->saved[k] = lang_incref(locals[b->info->slots[k]]);
  child_trace_init(&b->part, b->parent, "cond_true");
  b->outer = *lang_frame_ag(f);
  *lang_frame_ag(f) = b;
  lang_tf_state(L)->trace = &b->part;
  return true;
}

/* After an `if` that returned in one branch: `value` (owned) is what it returned, `returned`
 * whether it did; the rest of the function is traced under `if not returned`. */
static bool
fguard_begin(LangState *L, LangFrame *f, LangValue returned, LangValue value)
{
  LangTfOperand flag, go;
  if (!lang_tf_operand(L, returned, TR_BOOL, false, &flag) ||
      !lang_tf_apply_operand(L, TR_OP_LOGICAL_NOT, &flag, 1, NULL, NULL, &go)) {
    lang_decref(value);
    return false;
  }
  AgBlock *b = g_new0(AgBlock, 1);
  b->kind = AGK_FGUARD;
  b->info = &fguard_info;
  b->phase = AG_THEN;
  b->parent = lang_tf_trace(L);
  b->pred = go.out;
  b->then_ret = LANG_UNSET;
  b->ret_value = value;
  child_trace_init(&b->part, b->parent, "cond_true");
  b->outer = *lang_frame_ag(f);
  *lang_frame_ag(f) = b;
  lang_tf_state(L)->trace = &b->part;
  return true;
}

/* Guards end where the part they guard ends: before `instr` runs. */
static bool
finish_guards(LangState *L, LangFrame *f, int instr)
{
  for (AgBlock *b = top_block(f); b && b->kind == AGK_GUARD && b->end_instr == instr;
       b = top_block(f)) {
    if_switch(L, f, b);
    LangValue unused = LANG_UNSET;
    if (!if_finish(L, f, LANG_UNSET, &unused))
      return false;
  }
  return true;
}

/* ---- the interpreter's hooks --------------------------------------------------------------- */

int
lang_ag_test(LangState *L, LangFrame *f, int instr, LangValue v, int depth)
{
  if (!lang_tf_is_symbolic(v) || !lang_tf_trace(L))
    return LANG_AG_PLAIN;
  LangCode *code = lang_frame_code(f);
  AgBlock *b = top_block(f);
  if (b && b->kind == AGK_WHILE && b->info->instr == instr && b->phase == AG_COND)
    return while_body(L, f, b, v);
  if (!check_inside(L, f, instr))
    return LANG_AG_RAISE;
  const LangLoopInfo *info = find_block(code, LANG_BLOCK_IF, instr);
  if (info)
    return if_begin(L, f, info, v, depth);
  info = find_block(code, LANG_BLOCK_WHILE, instr);
  if (info) {
    if (b && b->info == info)
      return check_inside(L, f, -1) ? LANG_AG_PLAIN : LANG_AG_RAISE;
    return while_begin(L, f, info, depth);
  }
  return LANG_AG_PLAIN;
}

int
lang_ag_else(LangState *L, LangFrame *f, int instr)
{
  if (!check_inside(L, f, instr) || !finish_guards(L, f, instr))
    return LANG_AG_RAISE;
  AgBlock *b = top_block(f);
  if (b && b->kind == AGK_IF && b->phase == AG_THEN && b->info->orelse == instr + 1) {
    if_switch(L, f, b);
    return LANG_AG_NEXT;
  }
  return LANG_AG_PLAIN;
}

int
lang_ag_end(LangState *L, LangFrame *f, int block)
{
  const LangLoopInfo *info = &lang_frame_code(f)->loops[block];
  if (!check_inside(L, f, info->end) || !finish_guards(L, f, info->end))
    return LANG_AG_RAISE;
  AgBlock *b = top_block(f);
  if (!b || b->kind != AGK_IF || b->info != info)
    return LANG_AG_PLAIN;
  if (b->phase == AG_THEN)
    if_switch(L, f, b);
  LangValue unused = LANG_UNSET;
  if (!if_finish(L, f, LANG_UNSET, &unused) || !maybe_guard(L, f))
    return LANG_AG_RAISE;
  return LANG_AG_PLAIN;
}

int
lang_ag_loop(LangState *L, LangFrame *f, int instr)
{
  if (!check_inside(L, f, instr) || !finish_guards(L, f, instr))
    return LANG_AG_RAISE;
  AgBlock *b = top_block(f);
  if (!b || b->info->end != instr)
    return LANG_AG_PLAIN;
  if (b->kind == AGK_WHILE && b->phase == AG_BODY)
    return while_finish(L, f, b);
  if (b->kind == AGK_FOR) {
    /* The body is done; the loop's iterator closes it on its next next(). */
    *lang_frame_ag(f) = b->outer;
    b->outer = NULL;
  }
  return LANG_AG_PLAIN;
}

int
lang_ag_break(LangState *L, LangFrame *f, int arg)
{
  const LangLoopInfo *info = &lang_frame_code(f)->loops[arg / 2];
  AgBlock *loop = innermost_loop(f);
  if (!loop || loop->info != info)
    return LANG_AG_NEXT; /* a Python loop: the plain break or continue follows */
  return part_end(top_block(f));
}

int
lang_ag_return(LangState *L, LangFrame *f, int instr, LangValue *r, int *depth)
{
  if (!check_inside(L, f, instr)) {
    lang_decref(*r);
    *r = LANG_UNSET;
    return LANG_AG_RAISE;
  }
  for (;;) {
    AgBlock *b = top_block(f);
    if (!b)
      return LANG_AG_PLAIN;
    if (b->kind == AGK_FGUARD) {
      /* The rest of the function returned: merge with what the earlier `if` returned. */
      b->then_ret = *r;
      *r = LANG_UNSET;
      if_switch(L, f, b);
      LangValue merged = LANG_UNSET;
      if (!if_finish(L, f, lang_incref(b->ret_value), &merged))
        return LANG_AG_RAISE;
      *r = merged;
      continue;
    }
    if (b->kind != AGK_IF || innermost_loop(f)) {
      lang_decref(*r);
      *r = LANG_UNSET;
      lang_ag_abort(L, f);
      lang_raise_str(L, &lang_tf_exc_OperatorNotAllowedInGraphError,
                     "A `return` inside a loop on a symbolic tensor is not supported yet; set a "
                     "variable, stop the loop with `break` or through its condition, and return "
                     "after it");
      return LANG_AG_RAISE;
    }
    if (b->phase == AG_THEN) {
      /* The true part returned: its value is kept, the else part runs next. */
      b->then_ret = *r;
      *r = LANG_UNSET;
      *depth = b->depth;
      if_switch(L, f, b);
      return b->info->orelse;
    }
    LangValue merged = LANG_UNSET;
    LangValue else_ret = *r;
    *r = LANG_UNSET;
    int after = b->info->end + 1, at_depth = b->depth;
    if (!if_finish(L, f, else_ret, &merged))
      return LANG_AG_RAISE;
    if (merged.tag == LANG_TAG_UNSET) {
      /* Only the else part returned: the function goes on after the `if`, guarded. */
      *depth = at_depth;
      return after;
    }
    /* Both parts returned: the If's result is returned, maybe from an enclosing branch. */
    *r = merged;
  }
}

/* ---- tf.autograph -------------------------------------------------------------------------- */

/* The note shown beside a block by to_code. */
static void
append_block_note(GString *s, LangCode *code, const LangLoopInfo *b)
{
  static const char *const what[] = {
      [LANG_BLOCK_FOR] = "over a tensor, tf.range or a dataset: a While node",
      [LANG_BLOCK_IF] = "on a tensor: an If node, both branches traced",
      [LANG_BLOCK_WHILE] = "on a tensor: a While node, the body traced once",
  };
  g_string_append_printf(s, "  # AutoGraph: %s", what[b->kind]);
  if (b->kind != LANG_BLOCK_FOR && b->instr < 0) {
    g_string_append(s, " (not for this test: `and` and `or` stay Python)");
    return;
  }
  g_string_append(s, b->kind == LANG_BLOCK_IF ? "; outputs: " : "; loop variables: ");
  if (b->n == 0)
    g_string_append(s, "none");
  for (int k = 0; k < b->n; k++)
    g_string_append_printf(s, "%s%s", k ? ", " : "", slot_name(code, b->slots[k]));
}

/* tf.autograph.to_code(f): the function's source with the blocks AutoGraph converts noted. */
static LangValue
autograph_to_code(LangState *L, LangValue self, const LangValue *args, int nargs,
                  LangObject *kwnames)
{
  LangValue entity, recursive = LANG_UNSET, experimental_optional_features = LANG_UNSET;
  if (!lang_parse_args(L, "to_code", args, nargs, kwnames,
                       "entity,recursive=,experimental_optional_features=", &entity, &recursive,
                       &experimental_optional_features))
    return LANG_EXC;
  LangValue fn = lang_incref(entity);
  if (!(fn.tag == LANG_TAG_OBJ && fn.o->type == &lang_function_type)) {
    lang_decref(fn);
    fn = lang_getattr_cstr(L, entity, "python_function");
    if (lang_is_exc(fn) || !(fn.tag == LANG_TAG_OBJ && fn.o->type == &lang_function_type)) {
      lang_exc_clear(L);
      lang_decref(fn);
      return lang_raise(L, &lang_exc_TypeError,
                        "to_code expects a Python function or a tf.function, not %s",
                        lang_type_name(entity));
    }
  }
  LangCode *code = ((LangFunction *)fn.o)->code;
  const char *filename = lang_str_data(code->filename);
  int first = code->firstlineno, last = first;
  for (int i = 0; i < code->n_code; i++)
    last = MAX(last, lang_code_line(code, i));
  GString *s = g_string_new(NULL);
  g_string_append_printf(s,
                         "# %s as Trellis runs it in a trace. Nothing is rewritten: the "
                         "interpreter turns\n# these blocks into graph nodes when their test "
                         "or iterable is a symbolic tensor.\n",
                         lang_str_data(code->qualname));
  for (int line = first; line <= last; line++) {
    const char *text = L->vm.source_line ? L->vm.source_line(L->vm.data, filename, line) : NULL;
    g_string_append(s, text ? text : "");
    for (int i = 0; i < code->n_loops; i++) {
      const LangLoopInfo *b = &code->loops[i];
      if (lang_code_line(code, b->kind == LANG_BLOCK_FOR ? b->instr : b->start) == line)
        append_block_note(s, code, b);
    }
    g_string_append_c(s, '\n');
  }
  lang_decref(fn);
  LangValue r = lang_str_new(L, s->str, (int64_t)s->len);
  g_string_free(s, TRUE);
  return r;
}

static const LangMethodDef autograph_functions[] = {
    {"to_code", autograph_to_code, "(entity, recursive=True, experimental_optional_features=None)",
     "The function's source, with the blocks AutoGraph turns into graph nodes noted.", 0},
    {NULL, NULL, NULL, NULL, 0},
};

bool
lang_tf_autograph_module_init(LangState *L, LangValue module)
{
  LangValue ag = lang_module_new(L, "tensorflow.autograph",
                                 "AutoGraph: Python control flow on "
                                 "tensors, converted while tracing.");
  bool ok = lang_module_add_functions(L, ag, autograph_functions);
  lang_module_add(L, module, "autograph", ag);
  lang_decref(ag);
  return ok;
}

/* ---- `and`, `or` and `not` in converted tests ------------------------------------------------ */

bool
lang_ag_symbolic(LangState *L, LangValue v)
{
  return lang_tf_is_symbolic(v) && lang_tf_trace(L) != NULL;
}

/* tf.logical_and / tf.logical_or of two tensors: bool operands, as AutoGraph's and_/or_ need. */
static LangValue
logical(LangState *L, TrOpId op, LangValue a, LangValue b)
{
  LangTfOperand in[2];
  if (!lang_tf_operand(L, a, TR_BOOL, false, &in[0]))
    return LANG_EXC;
  if (!lang_tf_operand(L, b, TR_BOOL, false, &in[1])) {
    lang_tf_operand_clear(&in[0]);
    return LANG_EXC;
  }
  LangValue r = lang_tf_apply(L, op, in, 2, NULL, NULL);
  lang_tf_operands_clear(in, 2);
  return r;
}

LangValue
lang_ag_bool_op(LangState *L, bool is_or, LangValue acc, LangValue x)
{
  if (lang_ag_symbolic(L, x))
    return logical(L, is_or ? TR_OP_LOGICAL_OR : TR_OP_LOGICAL_AND, acc, x);
  /* A Python value after a tensor: it decides, or the tensor does. */
  int t = lang_truth(L, x);
  if (t < 0)
    return LANG_EXC;
  if ((t != 0) == is_or)
    return lang_bool(is_or);
  return lang_incref(acc);
}

LangValue
lang_ag_not(LangState *L, LangValue v)
{
  LangTfOperand in;
  if (!lang_tf_operand(L, v, TR_BOOL, false, &in))
    return LANG_EXC;
  LangValue r = lang_tf_apply(L, TR_OP_LOGICAL_NOT, &in, 1, NULL, NULL);
  lang_tf_operand_clear(&in);
  return r;
}
