/* lang-tf-gradient.c — tf.GradientTape: records what ran and differentiates it (core/graph's
 * tr-grad.h does the calculus).
 *
 * Eagerly, a tape entered with `with` is on the session's list of active tapes; the op
 * dispatcher (lang_tf_apply), Variable reads and Function calls report to it, and it keeps a
 * record of every op whose inputs it tracks (watched tensors, trainable Variables read, and what
 * was computed from them). A value's identity is its TrTensor (Variables: their TrVariable): a
 * result that aliases a tensor the tape knows gets a header of its own. A Function called under
 * a tape is one record holding its graph and the values of the variables it reads; gradient()
 * replays the graph to differentiate it. Gradient ops go through the dispatcher again (the
 * builder here), so enclosing tapes record them: higher-order gradients come for free.
 *
 * Inside a trace, the tape remembers which stretches of the graph's nodes were added while it
 * recorded; gradient() differentiates those nodes and adds the gradient nodes to the same graph
 * (under the name scope "gradient_tape"), so they run with every call of the traced function.
 * A While or If among those nodes (AutoGraph's `for`/`while`/`if` on tensors) gets a
 * SymbolicGradient node, which replays it on the values of each call (tr-grad.h); variables read
 * inside it get their gradients through it too.
 */
#include "lang-tf-private.h"

#include "tr-grad.h"

#include <string.h>

/* ---- tapes -------------------------------------------------------------------------------- */

/* A value the tape knows: the operand it was, or a variable. */
typedef struct {
  LangTfOperand o; /* eager: o.value holds a reference; dtype and shape */
  TrVariable *var; /* a variable's handle (owned reference), else NULL */
  bool tracked;    /* watched, or computed from watched values by a record */
} TapeHandle;

struct LangTfTape {
  LangObject base;          /* lang_tf_gradient_tape_type */
  LangTfTape *next;         /* the next active tape (entered earlier), while active */
  bool active;              /* between __enter__ and __exit__ */
  bool paused;              /* inside stop_recording() */
  bool computing;           /* gradient() is running: the tape records nothing of it */
  bool persistent;          /* GradientTape(persistent=) */
  bool watch_accessed;      /* GradientTape(watch_accessed_variables=) */
  bool used;                /* a non-persistent tape computed its gradients */
  TrGraph *graph;           /* the graph being traced when the tape was entered (owned), or NULL */
  GArray *windows;          /* traced: int pairs [first, last) of node ids recorded; last -1 open */
  GHashTable *watched_outs; /* traced: watched outputs (TrOutput, as a key struct, owned) */
  GHashTable *handles;      /* TrTensor* or TrVariable* -> TapeHandle* (owned) */
  GArray *records;          /* eager: TrGradRecord in program order */
  GPtrArray *mem;           /* eager: the records' arrays and attrs (owned) */
  GPtrArray *variables;     /* the Variable objects watched, in order (owned references) */
};

static void
handle_free(gpointer data)
{
  TapeHandle *h = data;
  lang_tf_operand_clear(&h->o);
  if (h->var)
    tr_variable_unref(h->var);
  g_free(h);
}

static void
variable_value_unref(gpointer data)
{
  LangValue v = {.tag = LANG_TAG_OBJ, .o = data};
  lang_decref(v);
}

static guint
output_hash(gconstpointer p)
{
  const TrOutput *o = p;
  return g_direct_hash(o->node) ^ (guint)o->index * 2654435761u;
}

static gboolean
output_equal(gconstpointer a, gconstpointer b)
{
  const TrOutput *x = a, *y = b;
  return x->node == y->node && x->index == y->index;
}

/* Forgets everything recorded (reset(), and after a non-persistent tape's gradient(), which
 * keeps the list of watched variables, as TensorFlow does). */
static void
tape_forget(LangTfTape *t)
{
  g_hash_table_remove_all(t->handles);
  g_array_set_size(t->records, 0);
  g_ptr_array_set_size(t->mem, 0);
  g_array_set_size(t->windows, 0);
  g_hash_table_remove_all(t->watched_outs);
}

static void
tape_unlink(LangState *L, LangTfTape *t)
{
  if (!t->active)
    return;
  for (LangTfTape **p = &lang_tf_state(L)->tapes; *p; p = &(*p)->next) {
    if (*p == t) {
      *p = t->next;
      break;
    }
  }
  t->next = NULL;
  t->active = false;
}

static void
tape_dealloc(LangObject *o)
{
  LangTfTape *t = (LangTfTape *)o; /* never active: the active list holds a reference */
  g_hash_table_unref(t->handles);
  g_array_unref(t->records);
  g_ptr_array_unref(t->mem);
  g_array_unref(t->windows);
  g_hash_table_unref(t->watched_outs);
  g_ptr_array_unref(t->variables);
  if (t->graph)
    tr_graph_unref(t->graph);
}

/* Whether the tape records ops run now on the current path. */
static bool
tape_recording(LangState *L, const LangTfTape *t)
{
  return !t->paused && !t->computing && !t->graph && !lang_tf_trace(L);
}

static TapeHandle *
tape_lookup(LangTfTape *t, const void *key)
{
  return g_hash_table_lookup(t->handles, key);
}

static bool
tape_tracks(LangTfTape *t, const void *key)
{
  TapeHandle *h = tape_lookup(t, key);
  return h && h->tracked;
}

/* The handle of an eager value, made (untracked) on first sight. */
static TapeHandle *
tape_value_handle(LangTfTape *t, TrTensor *value)
{
  TapeHandle *h = tape_lookup(t, value);
  if (h)
    return h;
  h = g_new0(TapeHandle, 1);
  h->o.value = tr_tensor_ref(value);
  h->o.dtype = value->dtype;
  h->o.shape = value->shape;
  g_hash_table_insert(t->handles, value, h);
  return h;
}

static TapeHandle *
tape_variable_handle(LangTfTape *t, TrVariable *var)
{
  TapeHandle *h = tape_lookup(t, var);
  if (h)
    return h;
  h = g_new0(TapeHandle, 1);
  h->var = tr_variable_ref(var);
  h->o.dtype = var->dtype;
  h->o.shape = var->shape;
  g_hash_table_insert(t->handles, var, h);
  return h;
}

/* Appends a record; the handles' arrays and attrs are copied into the tape. */
static void
tape_add_record(LangTfTape *t, int op, const TrAttrs *attrs, TapeHandle *const *in, int n_in,
                TapeHandle *const *out, int n_out, const TrGraph *graph)
{
  void **ins = g_new(void *, MAX(n_in, 1));
  void **outs = g_new(void *, MAX(n_out, 1));
  memcpy(ins, in, sizeof(void *) * (size_t)n_in);
  memcpy(outs, out, sizeof(void *) * (size_t)n_out);
  g_ptr_array_add(t->mem, ins);
  g_ptr_array_add(t->mem, outs);
  TrAttrs *a = NULL;
  if (attrs) {
    a = g_memdup2(attrs, sizeof *attrs);
    g_ptr_array_add(t->mem, a);
  }
  for (int k = 0; k < n_out; k++)
    out[k]->tracked = true;
  TrGradRecord r = {.op = op,
                    .attrs = a,
                    .n_inputs = n_in,
                    .inputs = ins,
                    .n_outputs = n_out,
                    .outputs = outs,
                    .graph = graph};
  g_array_append_val(t->records, r);
}

/* ---- what running code reports ------------------------------------------------------------- */

/* A fresh header for `*t` when an active tape already knows that tensor (an op that returned its
 * input, a variable's shared value): every recorded value must be a value of its own. */
static void
unalias(LangState *L, TrTensor **t)
{
  bool known = false;
  for (LangTfTape *tape = lang_tf_state(L)->tapes; tape && !known; tape = tape->next)
    known = tape_lookup(tape, *t) != NULL;
  if (!known)
    return;
  TrTensor *old = *t;
  *t = tr_tensor_new_view(old->buf, old->dtype, &old->shape, old->strides, old->offset);
  tr_tensor_unref(old);
}

static bool
tracks_any_input(LangTfTape *t, const LangTfOperand *in, int n)
{
  for (int i = 0; i < n; i++)
    if (in[i].value && tape_tracks(t, in[i].value))
      return true;
  return false;
}

void
lang_tf_tape_record_op(LangState *L, TrOpId op, const TrAttrs *attrs, const LangTfOperand *in,
                       int n, LangTfOperand *result)
{
  if (!tr_grad_op_is_differentiable(op))
    return;
  bool any = false;
  for (LangTfTape *t = lang_tf_state(L)->tapes; t && !any; t = t->next)
    any = tape_recording(L, t) && tracks_any_input(t, in, n);
  if (!any)
    return;
  unalias(L, &result->value);
  g_autofree TapeHandle **ins = g_new(TapeHandle *, MAX(n, 1));
  for (LangTfTape *t = lang_tf_state(L)->tapes; t; t = t->next) {
    if (!tape_recording(L, t) || !tracks_any_input(t, in, n))
      continue;
    for (int i = 0; i < n; i++)
      ins[i] = tape_value_handle(t, in[i].value);
    TapeHandle *out = tape_value_handle(t, result->value);
    tape_add_record(t, op, attrs, ins, n, &out, 1, NULL);
  }
}

/* Whether tape `t` watches `var` now: explicitly, or as a trainable variable it reads. */
static bool
tape_watches_variable(LangTfTape *t, TrVariable *var)
{
  return tape_tracks(t, var) ||
         (t->watch_accessed && var->trainable && tr_grad_dtype_is_differentiable(var->dtype));
}

static void
tape_watch_variable(LangTfTape *t, LangValue variable)
{
  TrVariable *var = ((LangTfVariable *)variable.o)->var;
  TapeHandle *h = tape_variable_handle(t, var);
  if (h->tracked)
    return;
  h->tracked = true;
  g_ptr_array_add(t->variables, lang_incref(variable).o);
}

void
lang_tf_tape_read_variable(LangState *L, LangValue variable, TrTensor **value)
{
  TrVariable *var = ((LangTfVariable *)variable.o)->var;
  bool any = false;
  for (LangTfTape *t = lang_tf_state(L)->tapes; t && !any; t = t->next)
    any = tape_recording(L, t) && tape_watches_variable(t, var);
  if (!any)
    return;
  /* Every read is a value of its own: the variable's value object is shared. */
  TrTensor *old = *value;
  *value = tr_tensor_new_view(old->buf, old->dtype, &old->shape, old->strides, old->offset);
  tr_tensor_unref(old);
  for (LangTfTape *t = lang_tf_state(L)->tapes; t; t = t->next) {
    if (!tape_recording(L, t) || !tape_watches_variable(t, var))
      continue;
    tape_watch_variable(t, variable);
    TapeHandle *in = tape_variable_handle(t, var), *out = tape_value_handle(t, *value);
    tape_add_record(t, TR_GOP_READ_VARIABLE, NULL, &in, 1, &out, 1, NULL);
  }
}

/* A call's variables, each read now as a value of its own (transfer full each). */
static TrTensor **
read_call_variables(TrVariable **vars, int n)
{
  TrTensor **values = g_new(TrTensor *, MAX(n, 1));
  for (int k = 0; k < n; k++) {
    g_autoptr(TrTensor) v = tr_variable_read(vars[k]);
    values[k] = tr_tensor_new_view(v->buf, v->dtype, &v->shape, v->strides, v->offset);
  }
  return values;
}

static bool
call_is_tracked(LangTfTape *t, const LangTfOperand *in, int n_in, TrVariable **vars, int n_vars)
{
  if (tracks_any_input(t, in, n_in))
    return true;
  for (int k = 0; k < n_vars; k++)
    if (tape_watches_variable(t, vars[k]))
      return true;
  return false;
}

/* One tape's record of a call: variable reads, then the call on arguments and values read. */
static void
tape_record_call(LangTfTape *t, const TrGraph *graph, const LangTfOperand *in, int n_in,
                 TrVariable **vars, TrTensor **values, int n_vars, TrTensor *const *outs,
                 int n_outs)
{
  int n = n_in + n_vars;
  g_autofree TapeHandle **ins = g_new(TapeHandle *, MAX(n, 1));
  g_autofree TapeHandle **res = g_new(TapeHandle *, MAX(n_outs, 1));
  for (int i = 0; i < n_in; i++)
    ins[i] = tape_value_handle(t, in[i].value);
  for (int k = 0; k < n_vars; k++) {
    TapeHandle *vh = tape_variable_handle(t, vars[k]);
    ins[n_in + k] = tape_value_handle(t, values[k]);
    if (vh->tracked || tape_watches_variable(t, vars[k])) {
      vh->tracked = true;
      tape_add_record(t, TR_GOP_READ_VARIABLE, NULL, &vh, 1, &ins[n_in + k], 1, NULL);
    }
  }
  for (int k = 0; k < n_outs; k++)
    res[k] = tape_value_handle(t, outs[k]);
  tape_add_record(t, TR_GRAD_CALL, NULL, ins, n, res, n_outs, graph);
}

void
lang_tf_tape_record_call(LangState *L, TrGraph *graph, const LangTfOperand *in, int n_in,
                         TrTensor **outs, int n_outs)
{
  int n_vars = tr_grad_graph_variables(graph, NULL, 0);
  g_autofree TrVariable **vars = g_new(TrVariable *, MAX(n_vars, 1));
  tr_grad_graph_variables(graph, vars, n_vars);
  bool any = false;
  for (LangTfTape *t = lang_tf_state(L)->tapes; t && !any; t = t->next)
    any = tape_recording(L, t) && call_is_tracked(t, in, n_in, vars, n_vars);
  if (!any)
    return;
  for (int k = 0; k < n_outs; k++)
    unalias(L, &outs[k]);
  for (int k = 0; k < n_outs; k++)
    for (int i = 0; i < n_in; i++)
      if (outs[k] == in[i].value) {
        TrTensor *old = outs[k];
        outs[k] = tr_tensor_new_view(old->buf, old->dtype, &old->shape, old->strides, old->offset);
        tr_tensor_unref(old);
      }
  TrTensor **values = read_call_variables(vars, n_vars);
  for (LangTfTape *t = lang_tf_state(L)->tapes; t; t = t->next)
    if (tape_recording(L, t) && call_is_tracked(t, in, n_in, vars, n_vars))
      tape_record_call(t, graph, in, n_in, vars, values, n_vars, outs, n_outs);
  for (int k = 0; k < n_vars; k++)
    tr_tensor_unref(values[k]);
  g_free(values);
}

/* ---- the language's builder: ops through the dispatcher ----------------------------------- */

/* An error the builder reports when the dispatcher has raised the Python exception already. */
#define RAISED_QUARK (g_quark_from_static_string("lang-tf-gradient-raised"))

typedef struct {
  LangState *L;     /* where ops run */
  GPtrArray *owned; /* TapeHandle* made while computing (freed with the context) */
} LangBuilder;

static void *
builder_take(LangBuilder *b, LangTfOperand *o)
{
  TapeHandle *h = g_new0(TapeHandle, 1);
  h->o = *o;
  g_ptr_array_add(b->owned, h);
  return h;
}

static void *
builder_apply(void *ctx, TrOpId op, void *const *in, int n, const TrAttrs *attrs, GError **error)
{
  LangBuilder *b = ctx;
  g_autofree LangTfOperand *ops = g_new(LangTfOperand, MAX(n, 1));
  for (int i = 0; i < n; i++)
    ops[i] = ((TapeHandle *)in[i])->o;
  LangTfOperand r;
  if (!lang_tf_apply_operand(b->L, op, ops, n, attrs, NULL, &r)) {
    g_set_error_literal(error, RAISED_QUARK, 0, "raised");
    return NULL;
  }
  return builder_take(b, &r);
}

static void *
builder_constant(void *ctx, TrTensor *value, GError **error)
{
  LangBuilder *b = ctx;
  LangTfOperand o;
  if (!lang_tf_operand_from_tensor(b->L, value, &o)) {
    g_set_error_literal(error, RAISED_QUARK, 0, "raised");
    return NULL;
  }
  return builder_take(b, &o);
}

static void
builder_describe(void *ctx, void *handle, TrDType *dtype, TrShape *shape)
{
  TapeHandle *h = handle;
  *dtype = h->o.dtype;
  *shape = h->o.shape;
}

static TrTensor *
builder_value(void *ctx, void *handle)
{
  return ((TapeHandle *)handle)->o.value;
}

static const TrGradBuilder lang_builder = {
    .apply = builder_apply,
    .constant = builder_constant,
    .describe = builder_describe,
    .value = builder_value,
};

/* Raises a gradient error (unless the dispatcher raised it already) and frees it. */
static LangValue
raise_gradient_error(LangState *L, GError *error)
{
  if (error->domain == RAISED_QUARK) {
    g_error_free(error);
    return LANG_EXC;
  }
  return lang_tf_raise_any(L, error);
}

/* ---- nested structures of tensors ---------------------------------------------------------- */

static bool
is_sequence(LangValue v)
{
  return v.tag == LANG_TAG_OBJ &&
         (lang_instance_of(v, &lang_list_type) || lang_instance_of(v, &lang_tuple_type));
}

static int64_t
sequence_len(LangValue v)
{
  return lang_instance_of(v, &lang_tuple_type) ? lang_tuple_len(v.o) : ((LangList *)v.o)->n;
}

static LangValue
sequence_item(LangValue v, int64_t i)
{
  return lang_instance_of(v, &lang_tuple_type) ? lang_tuple_get(v.o, i)
                                               : ((LangList *)v.o)->items[i];
}

/* The leaves of a nested list/tuple structure, borrowed, in order. */
static void
flatten(LangValue v, GArray *out)
{
  if (!is_sequence(v)) {
    g_array_append_val(out, v);
    return;
  }
  for (int64_t i = 0; i < sequence_len(v); i++)
    flatten(sequence_item(v, i), out);
}

/* `like`'s structure with its leaves replaced by `leaves` (taken over) from *next on. */
static LangValue
unflatten(LangState *L, LangValue like, LangValue *leaves, int *next)
{
  if (!is_sequence(like))
    return leaves[(*next)++];
  int64_t n = sequence_len(like);
  bool tuple = lang_instance_of(like, &lang_tuple_type);
  LangValue r = tuple ? lang_tuple_new(L, n) : lang_list_new(L, n);
  for (int64_t i = 0; i < n; i++) {
    LangValue item = unflatten(L, sequence_item(like, i), leaves, next);
    if (tuple)
      lang_tuple_set(r, i, item);
    else
      lang_list_set(r.o, i, item);
  }
  return r;
}

/* ---- gradient() ---------------------------------------------------------------------------- */

/* Everything one gradient() call works with. */
typedef struct {
  LangState *L;       /* the session */
  LangTfTape *tape;   /* the tape */
  GArray *targets;    /* LangValue leaves of `target` (borrowed) */
  GArray *seeds;      /* LangValue leaves of output_gradients (borrowed), or NULL */
  GArray *sources;    /* LangValue leaves of `sources` (borrowed) */
  LangValue *results; /* per source: a tensor or None (owned) */
} GradCall;

static bool
check_leaf(LangState *L, LangValue v, const char *what)
{
  if (lang_tf_is_tensor(v) || lang_tf_is_variable(v))
    return true;
  lang_raise(L, &lang_exc_TypeError,
             "GradientTape.gradient() %s must be tensors or Variables, not %s", what,
             lang_type_name(v));
  return false;
}

/* Eagerly: the tape's handle of a tensor or Variable, or NULL when it does not track it. */
static TapeHandle *
eager_handle_of(LangTfTape *t, LangValue v)
{
  if (lang_tf_is_variable(v))
    return tape_lookup(t, ((LangTfVariable *)v.o)->var);
  TrTensor *value = lang_tf_tensor_value(v);
  return value ? tape_lookup(t, value) : NULL;
}

static bool
eager_gradient(GradCall *gc)
{
  LangState *L = gc->L;
  LangTfTape *t = gc->tape;
  int n_t = (int)gc->targets->len, n_s = (int)gc->sources->len;
  g_autoptr(GPtrArray) owned = g_ptr_array_new_with_free_func(handle_free);
  LangBuilder b = {L, owned};
  g_autofree void **targets = g_new0(void *, MAX(n_t, 1));
  g_autofree void **seeds = g_new0(void *, MAX(n_t, 1));
  g_autofree void **sources = g_new0(void *, MAX(n_s, 1));
  g_autofree void **grads = g_new0(void *, MAX(n_s, 1));
  int n_known = 0;
  for (int i = 0; i < n_t; i++) {
    TapeHandle *h = eager_handle_of(t, g_array_index(gc->targets, LangValue, i));
    if (!h)
      continue;
    if (gc->seeds) {
      LangTfOperand o;
      if (!lang_tf_operand(L, g_array_index(gc->seeds, LangValue, i), h->o.dtype, false, &o))
        return false;
      seeds[n_known] = builder_take(&b, &o);
    }
    targets[n_known++] = h;
  }
  for (int j = 0; j < n_s; j++) {
    TapeHandle *h = eager_handle_of(t, g_array_index(gc->sources, LangValue, j));
    sources[j] = h && h->tracked ? h : NULL;
  }
  GError *error = NULL;
  t->computing = true;
  bool ok =
      tr_grad_backprop(&lang_builder, &b, (TrGradRecord *)t->records->data, (int)t->records->len,
                       targets, seeds, n_known, sources, n_s, grads, &error);
  t->computing = false;
  if (!ok) {
    raise_gradient_error(L, error);
    return false;
  }
  for (int j = 0; j < n_s; j++) {
    TapeHandle *g = grads[j];
    gc->results[j] = g ? lang_tf_tensor_new(L, tr_tensor_ref(g->o.value)) : LANG_NONE;
  }
  return true;
}

/* Traced: the graph builder's handle of a symbolic tensor or Variable of the tape's graph. */
static void *
traced_handle_of(TrGradGraph *b, LangTfTape *t, LangValue v)
{
  if (lang_tf_is_variable(v))
    return tr_grad_graph_variable_handle(b, ((LangTfVariable *)v.o)->var);
  if (!lang_tf_is_symbolic(v) || lang_tf_symbolic_graph(v) != t->graph)
    return NULL;
  return tr_grad_graph_handle(b, lang_tf_symbolic_output(v));
}

static bool
traced_tracked(LangTfTape *t, GHashTable *tracked, void *h, LangValue v)
{
  if (lang_tf_is_variable(v))
    return tape_watches_variable(t, ((LangTfVariable *)v.o)->var);
  return g_hash_table_contains(tracked, h);
}

/* The records of the nodes added while the tape recorded whose inputs it tracks. */
static GArray *
traced_records(LangTfTape *t, TrGradGraph *b, GHashTable *tracked)
{
  g_autoptr(GArray) all = g_array_new(FALSE, FALSE, sizeof(TrGradRecord));
  for (guint w = 0; w < t->windows->len; w += 2) {
    int first = g_array_index(t->windows, int, w), last = g_array_index(t->windows, int, w + 1);
    tr_grad_graph_records(b, first, last < 0 ? tr_graph_n_nodes(t->graph) : last, all);
  }
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init(&it, t->watched_outs);
  while (g_hash_table_iter_next(&it, &key, NULL))
    g_hash_table_add(tracked, tr_grad_graph_handle(b, *(TrOutput *)key));
  GArray *kept = g_array_new(FALSE, FALSE, sizeof(TrGradRecord));
  for (guint i = 0; i < all->len; i++) {
    TrGradRecord *r = &g_array_index(all, TrGradRecord, i);
    bool hit = false;
    for (int k = 0; k < r->n_inputs && !hit; k++) {
      TrOutput in = tr_grad_graph_output(r->inputs[k]);
      hit = g_hash_table_contains(tracked, r->inputs[k]) ||
            (in.node->variable && tape_watches_variable(t, in.node->variable));
    }
    if (!hit)
      continue;
    for (int k = 0; k < r->n_outputs; k++)
      g_hash_table_add(tracked, r->outputs[k]);
    g_array_append_val(kept, *r);
  }
  return kept;
}

static bool
traced_gradient(GradCall *gc)
{
  LangState *L = gc->L;
  LangTfTape *t = gc->tape;
  int n_t = (int)gc->targets->len, n_s = (int)gc->sources->len;
  g_autoptr(TrGradGraph) b = tr_grad_graph_new(t->graph);
  g_autoptr(GHashTable) tracked = g_hash_table_new(NULL, NULL);
  g_autoptr(GArray) records = traced_records(t, b, tracked);
  g_autofree void **targets = g_new0(void *, MAX(n_t, 1));
  g_autofree void **seeds = g_new0(void *, MAX(n_t, 1));
  g_autofree void **sources = g_new0(void *, MAX(n_s, 1));
  g_autofree void **grads = g_new0(void *, MAX(n_s, 1));
  int n_known = 0;
  for (int i = 0; i < n_t; i++) {
    void *h = traced_handle_of(b, t, g_array_index(gc->targets, LangValue, i));
    if (!h)
      continue;
    if (gc->seeds) {
      TrDType dtype;
      TrShape shape;
      tr_grad_graph_builder.describe(b, h, &dtype, &shape);
      LangTfOperand o;
      if (!lang_tf_operand(L, g_array_index(gc->seeds, LangValue, i), dtype, false, &o))
        return false;
      seeds[n_known] = tr_grad_graph_handle(b, o.out);
    }
    targets[n_known++] = h;
  }
  for (int j = 0; j < n_s; j++) {
    LangValue v = g_array_index(gc->sources, LangValue, j);
    void *h = traced_handle_of(b, t, v);
    sources[j] = h && traced_tracked(t, tracked, h, v) ? h : NULL;
  }
  GError *error = NULL;
  tr_graph_push_name_scope(t->graph, "gradient_tape");
  bool ok =
      tr_grad_backprop(&tr_grad_graph_builder, b, (TrGradRecord *)records->data, (int)records->len,
                       targets, seeds, n_known, sources, n_s, grads, &error);
  tr_graph_pop_name_scope(t->graph);
  if (!ok) {
    raise_gradient_error(L, error);
    return false;
  }
  for (int j = 0; j < n_s; j++)
    gc->results[j] =
        grads[j] ? lang_tf_symbolic_new(L, t->graph, tr_grad_graph_output(grads[j])) : LANG_NONE;
  return true;
}

/* The window of the tape's graph that is open, if any, is closed now (and reopened after). */
static void
close_window(LangTfTape *t)
{
  guint n = t->windows->len;
  if (n >= 2 && g_array_index(t->windows, int, n - 1) < 0)
    g_array_index(t->windows, int, n - 1) = tr_graph_n_nodes(t->graph);
}

static void
open_window(LangTfTape *t)
{
  int start = tr_graph_n_nodes(t->graph), open = -1;
  g_array_append_val(t->windows, start);
  g_array_append_val(t->windows, open);
}

static LangValue
gradient_leaves(LangState *L, LangValue v, const char *what, GArray *out)
{
  flatten(v, out);
  for (guint i = 0; i < out->len; i++)
    if (!check_leaf(L, g_array_index(out, LangValue, i), what))
      return LANG_EXC;
  return LANG_NONE;
}

static LangValue
tape_gradient(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangTfTape *t = (LangTfTape *)self.o;
  LangValue target, sources, output_gradients = LANG_UNSET, unconnected = LANG_UNSET;
  if (!lang_parse_args(L, "gradient", args, nargs, kwnames,
                       "target, sources, output_gradients=, unconnected_gradients=", &target,
                       &sources, &output_gradients, &unconnected))
    return LANG_EXC;
  if (t->used)
    return lang_raise(L, &lang_exc_RuntimeError,
                      "A non-persistent GradientTape can only be used to compute one set of "
                      "gradients (or jacobians)");
  g_autoptr(GArray) tl = g_array_new(FALSE, FALSE, sizeof(LangValue));
  g_autoptr(GArray) sl = g_array_new(FALSE, FALSE, sizeof(LangValue));
  g_autoptr(GArray) gl = NULL;
  if (lang_is_exc(gradient_leaves(L, target, "targets", tl)) ||
      lang_is_exc(gradient_leaves(L, sources, "sources", sl)))
    return LANG_EXC;
  if (output_gradients.tag != LANG_TAG_UNSET && output_gradients.tag != LANG_TAG_NONE) {
    gl = g_array_new(FALSE, FALSE, sizeof(LangValue));
    flatten(output_gradients, gl);
    if (gl->len != tl->len)
      return lang_raise(L, &lang_exc_ValueError,
                        "Length of output_gradients (%u) does not match the number of targets "
                        "(%u)",
                        gl->len, tl->len);
  }
  LangTfTrace *tr = lang_tf_trace(L);
  if (t->graph && (!tr || tr->graph != t->graph))
    return lang_raise(L, &lang_exc_RuntimeError,
                      "GradientTape.gradient() must be called while the function whose trace "
                      "the tape recorded is being traced");
  g_autofree LangValue *results = g_new0(LangValue, MAX(sl->len, 1));
  GradCall gc = {L, t, tl, gl, sl, results};
  if (t->graph)
    close_window(t);
  bool ok = t->graph ? traced_gradient(&gc) : eager_gradient(&gc);
  if (t->graph && t->active && !t->paused)
    open_window(t);
  if (!ok)
    return LANG_EXC;
  if (!t->persistent) {
    t->used = true;
    tape_forget(t);
  }
  int next = 0;
  return unflatten(L, sources, results, &next);
}

/* ---- the rest of the API -------------------------------------------------------------------- */

static LangValue
tape_construct(LangState *L, LangType *type, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue persistent = LANG_FALSE, watch = LANG_TRUE;
  if (!lang_parse_args(L, "GradientTape", args, nargs, kwnames,
                       "persistent=, watch_accessed_variables=", &persistent, &watch))
    return LANG_EXC;
  int p = persistent.tag == LANG_TAG_UNSET ? 0 : lang_truth(L, persistent);
  int w = watch.tag == LANG_TAG_UNSET ? 1 : lang_truth(L, watch);
  if (p < 0 || w < 0)
    return LANG_EXC;
  LangTfTape *t =
      (LangTfTape *)lang_object_alloc(L, &lang_tf_gradient_tape_type, sizeof(LangTfTape));
  t->next = NULL;
  t->active = t->paused = t->computing = t->used = false;
  t->persistent = p;
  t->watch_accessed = w;
  t->graph = NULL;
  t->windows = g_array_new(FALSE, FALSE, sizeof(int));
  t->watched_outs = g_hash_table_new_full(output_hash, output_equal, g_free, NULL);
  t->handles = g_hash_table_new_full(NULL, NULL, NULL, handle_free);
  t->records = g_array_new(FALSE, FALSE, sizeof(TrGradRecord));
  t->mem = g_ptr_array_new_with_free_func(g_free);
  t->variables = g_ptr_array_new_with_free_func(variable_value_unref);
  return lang_obj(t);
}

static LangValue
tape_enter(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangTfTape *t = (LangTfTape *)self.o;
  if (t->active)
    return lang_raise(L, &lang_exc_ValueError,
                      "Tape is still recording, This can happen if "
                      "you try to re-enter an already-active tape.");
  LangTfState *st = lang_tf_state(L);
  LangTfTrace *tr = st->trace;
  if (t->graph)
    tr_graph_unref(t->graph);
  t->graph = tr ? tr_graph_ref(tr->graph) : NULL;
  if (t->graph)
    open_window(t);
  t->next = st->tapes;
  st->tapes = t;
  t->active = true;
  lang_incref(self); /* the active list's reference, dropped by __exit__ */
  return lang_incref(self);
}

static LangValue
tape_exit(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangTfTape *t = (LangTfTape *)self.o;
  if (!t->active)
    return LANG_FALSE;
  if (t->graph)
    close_window(t);
  tape_unlink(L, t);
  lang_decref(self);
  return LANG_FALSE;
}

/* Watches one tensor or Variable. */
static bool
watch_leaf(LangState *L, LangTfTape *t, LangValue v)
{
  if (lang_tf_is_variable(v)) {
    tape_watch_variable(t, v);
    return true;
  }
  if (!lang_tf_is_tensor(v)) {
    LangValue text = lang_str(L, v);
    if (lang_is_exc(text))
      return false;
    lang_raise(L, &lang_exc_ValueError,
               "Passed in object %s of type '%s', not tf.Tensor or tf.Variable or "
               "ExtensionType.",
               lang_str_text(text), lang_type_name(v));
    lang_decref(text);
    return false;
  }
  TrTensor *value = lang_tf_tensor_value(v);
  if (!tr_grad_dtype_is_differentiable(lang_tf_dtype_of(v)))
    return true; /* TensorFlow only warns: such a tensor gets no gradient */
  if (value) {
    tape_value_handle(t, value)->tracked = true;
    return true;
  }
  TrOutput out = lang_tf_symbolic_output(v);
  g_hash_table_add(t->watched_outs, g_memdup2(&out, sizeof out));
  return true;
}

static LangValue
tape_watch(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue tensor;
  if (!lang_parse_args(L, "watch", args, nargs, kwnames, "tensor", &tensor))
    return LANG_EXC;
  g_autoptr(GArray) leaves = g_array_new(FALSE, FALSE, sizeof(LangValue));
  flatten(tensor, leaves);
  for (guint i = 0; i < leaves->len; i++)
    if (!watch_leaf(L, (LangTfTape *)self.o, g_array_index(leaves, LangValue, i)))
      return LANG_EXC;
  return LANG_NONE;
}

static LangValue
tape_watched_variables(LangState *L, LangValue self, const LangValue *args, int nargs,
                       LangObject *kwnames)
{
  if (!lang_parse_args(L, "watched_variables", args, nargs, kwnames, ""))
    return LANG_EXC;
  LangTfTape *t = (LangTfTape *)self.o;
  LangValue r = lang_tuple_new(L, t->variables->len);
  for (guint i = 0; i < t->variables->len; i++)
    lang_tuple_set(r, i,
                   lang_incref((LangValue){.tag = LANG_TAG_OBJ, .o = t->variables->pdata[i]}));
  return r;
}

static LangValue
tape_reset(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  if (!lang_parse_args(L, "reset", args, nargs, kwnames, ""))
    return LANG_EXC;
  LangTfTape *t = (LangTfTape *)self.o;
  tape_forget(t);
  g_ptr_array_set_size(t->variables, 0);
  t->used = false;
  if (t->graph && t->active && !t->paused)
    open_window(t);
  return LANG_NONE;
}

/* stop_recording(): a context manager pausing the tape. */
typedef struct {
  LangObject base; /* stop_recording_type */
  LangValue tape;  /* the tape (owned) */
} StopRecording;

static void
stop_dealloc(LangObject *o)
{
  lang_decref(((StopRecording *)o)->tape);
}

static LangValue
stop_enter(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangTfTape *t = (LangTfTape *)((StopRecording *)self.o)->tape.o;
  if (t->graph)
    close_window(t);
  t->paused = true;
  return LANG_NONE;
}

static LangValue
stop_exit(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangTfTape *t = (LangTfTape *)((StopRecording *)self.o)->tape.o;
  t->paused = false;
  if (t->graph && t->active)
    open_window(t);
  return LANG_FALSE;
}

static const LangMethodDef stop_methods[] = {
    {"__enter__", stop_enter, "(self)", NULL, 0},
    {"__exit__", stop_exit, "(self, *exc)", NULL, 0},
    {NULL, NULL, NULL, NULL, 0},
};

static LangType stop_recording_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "_StopRecording",
    .instance_size = sizeof(StopRecording),
    .flags = LANG_TYPE_ABSTRACT_NEW,
    .slots = {.dealloc = stop_dealloc},
    .methods = stop_methods,
};

static LangValue
tape_stop_recording(LangState *L, LangValue self, const LangValue *args, int nargs,
                    LangObject *kwnames)
{
  if (!lang_parse_args(L, "stop_recording", args, nargs, kwnames, ""))
    return LANG_EXC;
  StopRecording *s =
      (StopRecording *)lang_object_alloc(L, &stop_recording_type, sizeof(StopRecording));
  s->tape = lang_incref(self);
  return lang_obj(s);
}

static const LangMethodDef tape_methods[] = {
    {"__enter__", tape_enter, "(self)", NULL, 0},
    {"__exit__", tape_exit, "(self, *exc)", NULL, 0},
    {"watch", tape_watch, "(self, tensor)", "Ensures that `tensor` is being traced by this tape.",
     0},
    {"gradient", tape_gradient,
     "(self, target, sources, output_gradients=None, unconnected_gradients=None)",
     "Computes the gradient using operations recorded in context of this tape.", 0},
    {"watched_variables", tape_watched_variables, "(self)",
     "Returns variables watched by this tape in order of construction.", 0},
    {"reset", tape_reset, "(self)", "Clears all information stored in this tape.", 0},
    {"stop_recording", tape_stop_recording, "(self)",
     "Temporarily stops recording operations on this tape.", 0},
    {NULL, NULL, NULL, NULL, 0},
};

LangType lang_tf_gradient_tape_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "GradientTape",
    .instance_size = sizeof(LangTfTape),
    .slots =
        {
            .dealloc = tape_dealloc,
            .construct = tape_construct,
        },
    .methods = tape_methods,
    .doc = "Record operations for automatic differentiation.",
};

bool
lang_tf_gradient_module_init(LangState *L, LangValue module)
{
  lang_type_ready(&stop_recording_type, "tensorflow");
  return lang_module_add_type(L, module, &lang_tf_gradient_tape_type);
}
