/* lang-tf-autograph.c — `for x in tensor` inside a trace becomes a While node (AutoGraph).
 *
 * Iterating a symbolic tensor of the graph being traced gives a loop iterator instead of
 * Python iteration. Its first next() starts a child graph for the body: every local the loop
 * body assigns (the compiler lists them per loop) that already holds a tensor or a Python number
 * becomes a loop variable, replaced in the frame by a placeholder of the body graph, and the
 * iterator yields the element (a Range's counter, or t[k]). The body then runs once, on
 * symbolic values. The second next() closes the body graph with the loop variables' new values
 * as its outputs, builds the condition graph, adds the While node to the enclosing graph,
 * rebinds the loop variables to its outputs and ends the Python loop. Tensors of the enclosing
 * graph used in the body become extra, unchanged loop variables (captures).
 */
#include "lang-tf-private.h"
#include "lang-vm.h"

#include <string.h>

enum { LOOP_START, LOOP_BODY, LOOP_DONE };

typedef struct {
  LangObject base;     /* loop_type */
  LangState *L;        /* the session (dealloc restores its trace) */
  LangValue iterated;  /* the symbolic tensor (owned) */
  int state;           /* LOOP_START, LOOP_BODY, LOOP_DONE */
  LangTfTrace body;    /* the body's trace, current while state is LOOP_BODY */
  LangTfTrace *parent; /* the trace the loop belongs to */
  bool is_range;       /* iterating a Range node: the counter is the element */
  int n_fixed;         /* loop variables before the user's: (i, limit, delta) or (k, t) */
  TrOutput init[3];    /* their values in the parent graph */
  int n_vars;          /* user loop variables */
  int *slots;          /* their frame slots */
  const char **names;  /* their names (interned) */
  TrOutput *var_init;  /* their values before the loop, in the parent graph */
  LangValue *saved;    /* their frame values before the loop (owned) */
  LangValue *locals;   /* the frame's fast locals (borrowed) */
  TrNode **ph;         /* body placeholders: fixed, then user variables */
} Loop;

static void
loop_free_parts(Loop *lp)
{
  if (lp->body.graph) {
    tr_graph_unref(lp->body.graph);
    lp->body.graph = NULL;
  }
  if (lp->body.consts) {
    g_hash_table_unref(lp->body.consts);
    lp->body.consts = NULL;
  }
  if (lp->body.captures) {
    g_array_free(lp->body.captures, TRUE);
    lp->body.captures = NULL;
  }
  if (lp->saved) {
    for (int i = 0; i < lp->n_vars; i++)
      lang_decref(lp->saved[i]);
  }
  g_clear_pointer(&lp->saved, g_free);
  g_clear_pointer(&lp->slots, g_free);
  g_clear_pointer(&lp->names, g_free);
  g_clear_pointer(&lp->var_init, g_free);
  g_clear_pointer(&lp->ph, g_free);
}

static void
loop_dealloc(LangObject *o)
{
  Loop *lp = (Loop *)o;
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
  }
  loop_free_parts(lp);
  lang_decref(lp->iterated);
}

static LangType loop_type;

static bool
loop_var_candidate(LangValue v)
{
  return lang_tf_is_tensor(v) || v.tag == LANG_TAG_INT || v.tag == LANG_TAG_FLOAT;
}

static LangValue
raise_graph(LangState *L, GError *error)
{
  return lang_tf_raise_any(L, error);
}

/* First next(): starts the body graph and yields the element. */
static LangValue
loop_start(LangState *L, Loop *lp)
{
  const int *slots;
  int n_slots;
  LangObject *const *varnames;
  LangValue *locals = lang_vm_loop_locals(L, &slots, &n_slots, &varnames);
  if (!locals)
    return lang_raise_str(L, &lang_tf_exc_OperatorNotAllowedInGraphError,
                          "Iterating over a symbolic `tf.Tensor` is supported in `for` statements "
                          "of a function body only, not in comprehensions.");
  LangTfState *st = lang_tf_state(L);
  LangTfTrace *parent = st->trace;
  TrGraph *pg = parent->graph;
  TrOutput t = lang_tf_symbolic_output(lp->iterated);
  GError *error = NULL;

  lp->parent = parent;
  lp->locals = locals;
  lp->is_range = t.node->op == TR_OP_RANGE;
  if (lp->is_range) {
    lp->n_fixed = 3;
    for (int i = 0; i < 3; i++)
      lp->init[i] = t.node->inputs[i];
  } else {
    const TrShape *shape = tr_output_shape(t);
    if (shape->rank == 0)
      return lang_raise_str(L, &lang_exc_TypeError, "Cannot iterate over a scalar tensor.");
    if (shape->rank == TR_UNKNOWN || shape->dims[0] == TR_UNKNOWN)
      return lang_raise_str(L, &lang_tf_exc_OperatorNotAllowedInGraphError,
                            "Iterating over a tensor whose first dimension is unknown is not "
                            "supported yet; iterate over tf.range(n) and index the tensor.");
    lp->n_fixed = 2;
    g_autoptr(TrTensor) zero = tr_tensor_new_int32(0);
    lp->init[0] = tr_node_output(tr_graph_add_const(pg, zero, NULL), 0);
    lp->init[1] = t;
  }

  /* Loop variables: locals the body assigns that hold tensors or numbers before the loop. */
  lp->slots = g_new(int, n_slots > 0 ? n_slots : 1);
  lp->names = g_new(const char *, n_slots > 0 ? n_slots : 1);
  lp->var_init = g_new(TrOutput, n_slots > 0 ? n_slots : 1);
  lp->saved = g_new0(LangValue, n_slots > 0 ? n_slots : 1);
  for (int i = 0; i < n_slots; i++) {
    LangValue v = locals[slots[i]];
    if (!loop_var_candidate(v))
      continue;
    LangTfOperand o;
    if (!lang_tf_operand(L, v, TR_DTYPE_INVALID, true, &o))
      return LANG_EXC;
    int k = lp->n_vars++;
    lp->slots[k] = slots[i];
    lp->names[k] = lang_str_data(varnames[slots[i]]);
    lp->var_init[k] = o.out;
  }

  /* The body graph: placeholders for the fixed variables, then the user's. */
  lp->body.graph = tr_graph_new("while_body");
  lp->body.outer = parent;
  lp->body.consts = g_hash_table_new(NULL, NULL);
  lp->body.captures = g_array_new(FALSE, FALSE, sizeof(LangTfCapture));
  lp->body.allow_variables = false;
  lp->body.fn_name = parent->fn_name;
  lp->ph = g_new(TrNode *, lp->n_fixed + lp->n_vars);
  static const char *const range_names[] = {"i", "limit", "delta"};
  static const char *const tensor_names[] = {"k", "elems"};
  for (int i = 0; i < lp->n_fixed; i++)
    lp->ph[i] = tr_graph_add_placeholder(lp->body.graph, tr_output_dtype(lp->init[i]),
                                         tr_output_shape(lp->init[i]),
                                         lp->is_range ? range_names[i] : tensor_names[i]);
  for (int k = 0; k < lp->n_vars; k++) {
    TrNode *ph = tr_graph_add_placeholder(lp->body.graph, tr_output_dtype(lp->var_init[k]),
                                          tr_output_shape(lp->var_init[k]), lp->names[k]);
    lp->ph[lp->n_fixed + k] = ph;
    lp->saved[k] = locals[lp->slots[k]];
    locals[lp->slots[k]] = lang_tf_symbolic_new(L, lp->body.graph, tr_node_output(ph, 0));
  }
  st->trace = &lp->body;
  lp->state = LOOP_BODY;

  if (lp->is_range)
    return lang_tf_symbolic_new(L, lp->body.graph, tr_node_output(lp->ph[0], 0));
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  attrs.axis = 0;
  TrOutput in[2] = {tr_node_output(lp->ph[1], 0), tr_node_output(lp->ph[0], 0)};
  TrNode *elem = tr_graph_add_op(lp->body.graph, TR_OP_GATHER, in, 2, &attrs, NULL, &error);
  if (!elem)
    return raise_graph(L, error);
  return lang_tf_symbolic_new(L, lp->body.graph, tr_node_output(elem, 0));
}

/* Puts the loop variables' values from before the loop back into the frame. */
static void
restore_locals(Loop *lp)
{
  for (int k = 0; k < lp->n_vars; k++) {
    LangValue cur = lp->locals[lp->slots[k]];
    lp->locals[lp->slots[k]] = lp->saved[k];
    lp->saved[k] = LANG_UNSET;
    lang_decref(cur);
  }
}

/* Second next(): closes the body, builds cond and the While node, rebinds the variables. */
static LangValue
loop_finish(LangState *L, Loop *lp)
{
  LangTfState *st = lang_tf_state(L);
  TrGraph *body = lp->body.graph;
  GError *error = NULL;
  int n_user = lp->n_vars;
  LangValue result = LANG_EXC;

  /* Body outputs: the fixed variables' next values, the user's, then captures unchanged. */
  TrOutput next_fixed[3];
  for (int i = 0; i < lp->n_fixed; i++)
    next_fixed[i] = tr_node_output(lp->ph[i], 0);
  TrNode *step;
  if (lp->is_range) {
    TrOutput in[2] = {tr_node_output(lp->ph[0], 0), tr_node_output(lp->ph[2], 0)};
    step = tr_graph_add_op(body, TR_OP_ADD, in, 2, NULL, NULL, &error);
  } else {
    g_autoptr(TrTensor) one = tr_tensor_new_int32(1);
    TrOutput in[2] = {tr_node_output(lp->ph[0], 0),
                      tr_node_output(tr_graph_add_const(body, one, NULL), 0)};
    step = tr_graph_add_op(body, TR_OP_ADD, in, 2, NULL, NULL, &error);
  }
  if (!step) {
    st->trace = lp->parent;
    restore_locals(lp);
    return raise_graph(L, error);
  }
  next_fixed[0] = tr_node_output(step, 0);
  TrOutput *next_vars = g_new(TrOutput, n_user > 0 ? n_user : 1);
  for (int k = 0; k < n_user; k++) {
    LangValue v = lp->locals[lp->slots[k]];
    TrDType want = tr_output_dtype(tr_node_output(lp->ph[lp->n_fixed + k], 0));
    LangTfOperand o;
    if (!loop_var_candidate(v) && !lang_tf_is_variable(v)) {
      lang_raise(L, &lang_exc_TypeError,
                 "'%s' holds a %s before the loop and a %s after one iteration; a loop "
                 "variable must stay a tensor",
                 lp->names[k], tr_dtype_name(want), lang_type_name(v));
      goto fail;
    }
    if (!lang_tf_operand(L, v, want, true, &o))
      goto fail;
    if (o.dtype != want) {
      lang_raise(L, &lang_exc_TypeError,
                 "'%s' has dtype %s before the loop, but dtype %s after one iteration",
                 lp->names[k], tr_dtype_name(want), tr_dtype_name(o.dtype));
      goto fail;
    }
    next_vars[k] = o.out;
  }
  int n_caps = (int)lp->body.captures->len;
  int n = lp->n_fixed + n_user + n_caps;
  for (int i = 0; i < lp->n_fixed; i++)
    if (!tr_graph_add_output(body, next_fixed[i], &error))
      goto graph_fail;
  for (int k = 0; k < n_user; k++)
    if (!tr_graph_add_output(body, next_vars[k], &error))
      goto graph_fail;
  for (int c = 0; c < n_caps; c++) {
    LangTfCapture *cap = &g_array_index(lp->body.captures, LangTfCapture, c);
    if (!tr_graph_add_output(body, tr_node_output(cap->inner, 0), &error))
      goto graph_fail;
  }
  st->trace = lp->parent;

  /* The condition, over the same loop variables. */
  TrGraph *cond = tr_graph_new("while_cond");
  TrNode **cph = g_new(TrNode *, n);
  for (int i = 0; i < n; i++) {
    TrNode *src = tr_graph_input(body, i);
    cph[i] = tr_graph_add_placeholder(cond, src->dtypes[0], &src->shapes[0], src->name);
  }
  TrNode *test;
  if (lp->is_range) {
    /* tf.range counts down for a negative delta. */
    TrNode *delta = lp->init[2].node;
    bool down = delta->op == TR_GOP_CONST && tr_tensor_get_f64(delta->value, 0) < 0;
    TrOutput in[2] = {tr_node_output(cph[0], 0), tr_node_output(cph[1], 0)};
    test = tr_graph_add_op(cond, down ? TR_OP_GREATER : TR_OP_LESS, in, 2, NULL, NULL, &error);
  } else {
    int64_t len = tr_output_shape(lp->init[1])->dims[0];
    g_autoptr(TrTensor) limit = tr_tensor_new_int32((int32_t)len);
    TrOutput in[2] = {tr_node_output(cph[0], 0),
                      tr_node_output(tr_graph_add_const(cond, limit, NULL), 0)};
    test = tr_graph_add_op(cond, TR_OP_LESS, in, 2, NULL, NULL, &error);
  }
  g_free(cph);
  if (!test || !tr_graph_add_output(cond, tr_node_output(test, 0), &error)) {
    tr_graph_unref(cond);
    restore_locals(lp);
    g_free(next_vars);
    return raise_graph(L, error);
  }

  /* The While node in the enclosing graph. */
  TrOutput *inputs = g_new(TrOutput, n);
  for (int i = 0; i < lp->n_fixed; i++)
    inputs[i] = lp->init[i];
  for (int k = 0; k < n_user; k++)
    inputs[lp->n_fixed + k] = lp->var_init[k];
  for (int c = 0; c < n_caps; c++)
    inputs[lp->n_fixed + n_user + c] = g_array_index(lp->body.captures, LangTfCapture, c).outer;
  TrNode *node = tr_graph_add_while(lp->parent->graph, cond, body, inputs, n, "while", &error);
  g_free(inputs);
  tr_graph_unref(cond);
  if (!node) {
    restore_locals(lp);
    g_free(next_vars);
    return raise_graph(L, error);
  }
  for (int k = 0; k < n_user; k++) {
    LangValue cur = lp->locals[lp->slots[k]];
    lp->locals[lp->slots[k]] =
        lang_tf_symbolic_new(L, lp->parent->graph, tr_node_output(node, lp->n_fixed + k));
    lang_decref(cur);
  }
  lp->state = LOOP_DONE;
  g_free(next_vars);
  loop_free_parts(lp);
  return LANG_UNSET;

graph_fail:
  lang_tf_raise_any(L, error);
fail:
  st->trace = lp->parent;
  restore_locals(lp);
  g_free(next_vars);
  lp->state = LOOP_DONE;
  return result;
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
lang_tf_loop_new(LangState *L, LangValue tensor)
{
  lang_type_ready(&loop_type, "tensorflow");
  Loop *lp = (Loop *)lang_object_alloc(L, &loop_type, sizeof(Loop));
  memset((char *)lp + sizeof(LangObject), 0, sizeof(Loop) - sizeof(LangObject));
  lp->L = L;
  lp->iterated = lang_incref(tensor);
  lp->state = LOOP_START;
  return lang_obj(lp);
}
