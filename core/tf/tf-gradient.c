/* tf-gradient.c — tf.GradientTape: records what ran and differentiates it (core/graph's
 * tr-grad.h does the calculus).
 *
 * Eagerly, a tape inside its `with` is on the state's list of active tapes (st->tapes); the
 * dispatcher, Variable reads and ConcreteFunction calls report to it through the hooks of
 * tf-private.h, and it keeps a record of every op whose inputs it tracks (watched tensors,
 * trainable Variables read, and what was computed from them). A value's identity is its TrTensor
 * (a Variable's: its TrVariable): a result that aliases a tensor a tape knows gets a header of
 * its own. A Function called under a tape is one record holding its graph and the values of the
 * variables it reads; gradient() replays the graph to differentiate it. Gradient ops go through
 * the dispatcher again (the builder here), so enclosing tapes record them: higher-order
 * gradients come for free.
 *
 * Inside a trace, the tape remembers which stretches ("windows") of the graph's nodes were added
 * while it recorded; gradient() differentiates those nodes and adds the gradient nodes to the
 * same graph (under the name scope "gradient_tape"), so they run with every call of the traced
 * function. A While or If among those nodes (AutoGraph's `for`/`while`/`if` on tensors) gets a
 * SymbolicGradient node, which replays it on the values of each call (tr-grad.h); variables read
 * inside it get their gradients through it too.
 *
 * The hooks are called only while st->tapes is set, so code that never enters a tape pays one
 * pointer test per op.
 */
#include "tf-private.h"

#include "tr-grad.h"

#include <string.h>

/* ---- tapes -------------------------------------------------------------------------------- */

/* A value a tape knows: the operand it was, or a variable. */
typedef struct {
  TfOperand o;     /* eager: o.value holds a reference; dtype and shape */
  TrVariable *var; /* a variable's state (owned reference), else NULL */
  bool tracked;    /* watched, or computed from watched values by a record */
} TapeHandle;

struct TfTape {
  PyObject_HEAD
  TfTape *next;             /* the next active tape (entered earlier), while active */
  bool active;              /* between __enter__ and __exit__ */
  bool paused;              /* inside stop_recording() */
  bool computing;           /* gradient() is running: the tape records nothing of it */
  bool persistent;          /* GradientTape(persistent=) */
  bool watch_accessed;      /* GradientTape(watch_accessed_variables=) */
  bool used;                /* a non-persistent tape computed its gradients */
  TrGraph *graph;           /* the graph being traced when the tape was entered (owned), or NULL */
  GArray *windows;          /* traced: int pairs [first, last) of node ids recorded; last -1 open */
  GHashTable *watched_outs; /* traced: watched outputs (TrOutput *, owned keys) */
  GHashTable *handles;      /* TrTensor* or TrVariable* -> TapeHandle* (owned) */
  GArray *records;          /* eager: TrGradRecord in program order */
  GPtrArray *mem;           /* eager: the records' arrays and attrs (owned) */
  GPtrArray *graphs;   /* eager: references on the call records' graphs (the Function may go) */
  PyObject *variables; /* list of the Variable objects watched, in order (owned) */
};

static void
handle_free(gpointer data)
{
  TapeHandle *h = data;
  tf_operand_clear(&h->o);
  if (h->var)
    tr_variable_unref(h->var);
  g_free(h);
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
tape_forget(TfTape *t)
{
  g_hash_table_remove_all(t->handles);
  g_array_set_size(t->records, 0);
  g_ptr_array_set_size(t->mem, 0);
  g_ptr_array_set_size(t->graphs, 0);
  g_array_set_size(t->windows, 0);
  g_hash_table_remove_all(t->watched_outs);
}

/* Takes the tape off the active list and drops the list's reference to it. */
static void
tape_unlink(TfState *st, TfTape *t)
{
  if (!t->active)
    return;
  for (TfTape **p = &st->tapes; *p; p = &(*p)->next) {
    if (*p == t) {
      *p = t->next;
      break;
    }
  }
  t->next = NULL;
  t->active = false;
  Py_DECREF(t);
}

/* Whether the tape records ops run now on the current path. */
static bool
tape_recording(TfState *st, const TfTape *t)
{
  return !t->paused && !t->computing && !t->graph && !tf_trace(st);
}

static TapeHandle *
tape_lookup(TfTape *t, const void *key)
{
  return g_hash_table_lookup(t->handles, key);
}

static bool
tape_tracks(TfTape *t, const void *key)
{
  TapeHandle *h = tape_lookup(t, key);
  return h && h->tracked;
}

/* The handle of an eager value, made (untracked) on first sight. */
static TapeHandle *
tape_value_handle(TfTape *t, TrTensor *value)
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
tape_variable_handle(TfTape *t, TrVariable *var)
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
tape_add_record(TfTape *t, int op, const TrAttrs *attrs, TapeHandle *const *in, int n_in,
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
  if (graph)
    g_ptr_array_add(t->graphs, tr_graph_ref((TrGraph *)graph));
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

/* A new header on the same buffer: a value of its own (transfer full; `*t`'s reference is
 * dropped). */
static void
fresh_header(TrTensor **t)
{
  TrTensor *old = *t;
  *t = tr_tensor_new_view(old->buf, old->dtype, &old->shape, old->strides, old->offset);
  tr_tensor_unref(old);
}

/* A fresh header for `*t` when an active tape already knows that tensor (an op that returned its
 * input, a variable's shared value): every recorded value must be a value of its own. */
static void
unalias(TfState *st, TrTensor **t)
{
  for (TfTape *tape = st->tapes; tape; tape = tape->next) {
    if (tape_lookup(tape, *t)) {
      fresh_header(t);
      return;
    }
  }
}

/* Whether every input has a concrete value (what a record can name). */
static bool
all_concrete(const TfOperand *in, int n)
{
  for (int i = 0; i < n; i++)
    if (!in[i].value)
      return false;
  return true;
}

static bool
tracks_any_input(TfTape *t, const TfOperand *in, int n)
{
  for (int i = 0; i < n; i++)
    if (in[i].value && tape_tracks(t, in[i].value))
      return true;
  return false;
}

void
tf_tape_record_op(TfState *st, TrOpId op, const TrAttrs *attrs, const TfOperand *in, int n,
                  TfOperand *result)
{
  if (!result->value || !tr_grad_op_is_differentiable(op))
    return;
  bool any = false;
  for (TfTape *t = st->tapes; t && !any; t = t->next)
    any = tape_recording(st, t) && tracks_any_input(t, in, n);
  if (!any || !all_concrete(in, n))
    return;
  unalias(st, &result->value);
  g_autofree TapeHandle **ins = g_new(TapeHandle *, MAX(n, 1));
  for (TfTape *t = st->tapes; t; t = t->next) {
    if (!tape_recording(st, t) || !tracks_any_input(t, in, n))
      continue;
    for (int i = 0; i < n; i++)
      ins[i] = tape_value_handle(t, in[i].value);
    TapeHandle *out = tape_value_handle(t, result->value);
    tape_add_record(t, op, attrs, ins, n, &out, 1, NULL);
  }
}

/* Whether tape `t` watches `var` now: explicitly, or as a trainable variable it reads. */
static bool
tape_watches_variable(TfTape *t, TrVariable *var)
{
  return tape_tracks(t, var) ||
         (t->watch_accessed && var->trainable && tr_grad_dtype_is_differentiable(var->dtype));
}

/* Marks a Variable object watched. False with MemoryError set. */
static bool
tape_watch_variable(TfTape *t, PyObject *variable)
{
  TapeHandle *h = tape_variable_handle(t, ((TfVariable *)variable)->var);
  if (h->tracked)
    return true;
  h->tracked = true;
  return PyList_Append(t->variables, variable) == 0;
}

void
tf_tape_read_variable(TfState *st, PyObject *variable, TrTensor **value)
{
  TrVariable *var = ((TfVariable *)variable)->var;
  bool any = false;
  for (TfTape *t = st->tapes; t && !any; t = t->next)
    any = tape_recording(st, t) && tape_watches_variable(t, var);
  if (!any)
    return;
  /* Every read is a value of its own: the variable's value tensor is shared. */
  fresh_header(value);
  for (TfTape *t = st->tapes; t; t = t->next) {
    if (!tape_recording(st, t) || !tape_watches_variable(t, var))
      continue;
    if (!tape_watch_variable(t, variable))
      PyErr_Clear(); /* only watched_variables() misses it; the gradient is still right */
    TapeHandle *in = tape_variable_handle(t, var), *out = tape_value_handle(t, *value);
    tape_add_record(t, TR_GOP_READ_VARIABLE, NULL, &in, 1, &out, 1, NULL);
  }
}

static bool
call_is_tracked(TfTape *t, const TfOperand *in, int n_in, TrVariable **vars, int n_vars)
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
tape_record_call(TfTape *t, const TrGraph *graph, const TfOperand *in, int n_in, TrVariable **vars,
                 TrTensor **values, int n_vars, TrTensor *const *outs, int n_outs)
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
tf_tape_record_call(TfState *st, TrGraph *graph, const TfOperand *in, int n_in, TrTensor **outs,
                    int n_outs)
{
  int n_vars = tr_grad_graph_variables(graph, NULL, 0);
  g_autofree TrVariable **vars = g_new(TrVariable *, MAX(n_vars, 1));
  tr_grad_graph_variables(graph, vars, n_vars);
  bool any = false;
  for (TfTape *t = st->tapes; t && !any; t = t->next)
    any = tape_recording(st, t) && call_is_tracked(t, in, n_in, vars, n_vars);
  if (!any || !all_concrete(in, n_in))
    return;
  for (int k = 0; k < n_outs; k++) {
    unalias(st, &outs[k]);
    for (int i = 0; i < n_in; i++)
      if (outs[k] == in[i].value) /* a function returning its argument */
        fresh_header(&outs[k]);
  }
  /* The values the call read, each a value of its own (owned here). */
  g_autofree TrTensor **values = g_new(TrTensor *, MAX(n_vars, 1));
  for (int k = 0; k < n_vars; k++) {
    values[k] = tr_variable_read(vars[k]);
    fresh_header(&values[k]);
  }
  for (TfTape *t = st->tapes; t; t = t->next)
    if (tape_recording(st, t) && call_is_tracked(t, in, n_in, vars, n_vars))
      tape_record_call(t, graph, in, n_in, vars, values, n_vars, outs, n_outs);
  for (int k = 0; k < n_vars; k++)
    tr_tensor_unref(values[k]);
}

/* ---- the eager builder: ops through the dispatcher ----------------------------------------- */

/* The error a builder reports when the dispatcher has set the Python exception already. */
#define RAISED_QUARK (g_quark_from_static_string("tf-gradient-raised"))

typedef struct {
  TfState *st;      /* where ops run */
  GPtrArray *owned; /* TapeHandle* made while computing (freed with the context) */
} Builder;

/* A handle for `o` (taken over). */
static void *
builder_take(Builder *b, TfOperand *o)
{
  TapeHandle *h = g_new0(TapeHandle, 1);
  h->o = *o;
  g_ptr_array_add(b->owned, h);
  return h;
}

static void *
builder_apply(void *ctx, TrOpId op, void *const *in, int n, const TrAttrs *attrs, GError **error)
{
  Builder *b = ctx;
  g_autofree TfOperand *ops = g_new(TfOperand, MAX(n, 1));
  for (int i = 0; i < n; i++)
    ops[i] = ((TapeHandle *)in[i])->o; /* borrowed copies: tf_apply_operand keeps none */
  TfOperand r;
  if (!tf_apply_operand(b->st, op, ops, n, attrs, NULL, &r)) {
    g_set_error_literal(error, RAISED_QUARK, 0, "raised");
    return NULL;
  }
  return builder_take(b, &r);
}

static void *
builder_constant(void *ctx, TrTensor *value, GError **error)
{
  Builder *b = ctx;
  TfOperand o;
  if (!tf_operand_from_tensor(b->st, value, &o)) {
    g_set_error_literal(error, RAISED_QUARK, 0, "raised");
    return NULL;
  }
  return builder_take(b, &o);
}

static void
builder_describe(void *ctx, void *handle, TrDType *dtype, TrShape *shape)
{
  const TapeHandle *h = handle;
  *dtype = h->o.dtype;
  *shape = h->o.shape;
}

static TrTensor *
builder_value(void *ctx, void *handle)
{
  return ((TapeHandle *)handle)->o.value;
}

static const TrGradBuilder eager_builder = {
    .apply = builder_apply,
    .constant = builder_constant,
    .describe = builder_describe,
    .value = builder_value,
};

/* Raises a gradient error (unless the dispatcher raised it already) and frees it. */
static void
raise_gradient_error(TfState *st, GError *error)
{
  if (error->domain == RAISED_QUARK) {
    g_error_free(error);
    return;
  }
  tf_raise_any(st, error);
}

/* ---- nested structures of tensors ---------------------------------------------------------- *
 * gradient() and watch() take what tf.nest takes: lists, tuples (named ones too) and dicts
 * (their values in sorted key order), nested; anything else is a leaf. */

static bool
is_structure(PyObject *v)
{
  return PyList_Check(v) || PyTuple_Check(v) || PyDict_Check(v);
}

/* A dict's keys, sorted (new reference), or NULL. */
static PyObject *
sorted_keys(PyObject *dict)
{
  PyObject *keys = PyDict_Keys(dict);
  if (keys && PyList_Sort(keys) < 0)
    Py_CLEAR(keys);
  return keys;
}

/* Appends the leaves of `v` to `out` (a list). False with an exception set. */
static bool
flatten(PyObject *v, PyObject *out)
{
  if (!is_structure(v))
    return PyList_Append(out, v) == 0;
  if (Py_EnterRecursiveCall(" while flattening a structure"))
    return false;
  bool ok = true;
  if (PyDict_Check(v)) {
    PyObject *keys = sorted_keys(v);
    ok = keys != NULL;
    for (Py_ssize_t i = 0; ok && i < PyList_GET_SIZE(keys); i++) {
      PyObject *item = PyDict_GetItemWithError(v, PyList_GET_ITEM(keys, i)); /* borrowed */
      ok = item && flatten(item, out);
    }
    Py_XDECREF(keys);
  } else {
    PyObject *seq = PySequence_Fast(v, "a structure"); /* new reference: v or a copy */
    ok = seq != NULL;
    for (Py_ssize_t i = 0; ok && i < PySequence_Fast_GET_SIZE(seq); i++)
      ok = flatten(PySequence_Fast_GET_ITEM(seq, i), out);
    Py_XDECREF(seq);
  }
  Py_LeaveRecursiveCall();
  return ok;
}

/* `like`'s structure with its leaves replaced by the items of `leaves` from *next on. Returns a
 * new reference, or NULL. */
static PyObject *
unflatten(PyObject *like, PyObject *leaves, Py_ssize_t *next)
{
  if (!is_structure(like)) {
    PyObject *leaf = PyList_GET_ITEM(leaves, *next);
    (*next)++;
    return Py_NewRef(leaf);
  }
  if (PyDict_Check(like)) {
    PyObject *keys = sorted_keys(like);
    PyObject *r = keys ? PyDict_New() : NULL;
    for (Py_ssize_t i = 0; r && i < PyList_GET_SIZE(keys); i++) {
      PyObject *key = PyList_GET_ITEM(keys, i);
      PyObject *item = PyDict_GetItemWithError(like, key); /* borrowed */
      PyObject *value = item ? unflatten(item, leaves, next) : NULL;
      if (!value || PyDict_SetItem(r, key, value) < 0)
        Py_CLEAR(r);
      Py_XDECREF(value);
    }
    Py_XDECREF(keys);
    return r;
  }
  Py_ssize_t n = PySequence_Size(like);
  PyObject *items = n >= 0 ? PyList_New(n) : NULL;
  for (Py_ssize_t i = 0; items && i < n; i++) {
    PyObject *item = PySequence_GetItem(like, i);
    PyObject *value = item ? unflatten(item, leaves, next) : NULL;
    Py_XDECREF(item);
    if (!value) {
      Py_CLEAR(items);
      break;
    }
    PyList_SET_ITEM(items, i, value);
  }
  if (!items || PyList_Check(like))
    return items;
  PyObject *r = PyList_AsTuple(items);
  Py_DECREF(items);
  if (r && !PyTuple_CheckExact(like) && PyObject_HasAttrString(like, "_fields")) {
    /* a namedtuple: its type called on the fields in order */
    Py_SETREF(r, PyObject_Call((PyObject *)Py_TYPE(like), r, NULL));
  }
  return r;
}

/* ---- gradient() ---------------------------------------------------------------------------- */

/* Everything one gradient() call works with. */
typedef struct {
  TfState *st;        /* the module's state */
  TfTape *tape;       /* the tape */
  PyObject *targets;  /* list: leaves of `target` (owned by the caller) */
  PyObject *seeds;    /* list: leaves of output_gradients, or NULL */
  PyObject *sources;  /* list: leaves of `sources` */
  PyObject **results; /* per source: a tensor, or NULL for None (owned) */
} GradCall;

static bool
check_leaf(TfState *st, PyObject *v, const char *what)
{
  if (tf_is_tensor(st, v) || tf_is_variable(st, v))
    return true;
  PyErr_Format(PyExc_TypeError, "GradientTape.gradient() %s must be tensors or Variables, not %s",
               what, Py_TYPE(v)->tp_name);
  return false;
}

/* The seed of a Variable target without output_gradients: ones shaped like it (a builder's
 * ones_like cannot follow a variable's handle). A handle of `b`, or NULL with `error` set. */
static void *
variable_seed(const TrGradBuilder *b, void *ctx, TrVariable *var, GError **error)
{
  g_autoptr(TrTensor) value = tr_variable_read(var);
  TrTensor *ones = tr_op_run(TR_OP_ONES_LIKE, &value, 1, NULL, error);
  return ones ? b->constant(ctx, ones, error) : NULL;
}

/* Eagerly: the tape's handle of a tensor or Variable, or NULL when it does not know it. */
static TapeHandle *
eager_handle_of(TfState *st, TfTape *t, PyObject *v)
{
  if (tf_is_variable(st, v))
    return tape_lookup(t, ((TfVariable *)v)->var);
  TrTensor *value = tf_tensor_value(v);
  return value ? tape_lookup(t, value) : NULL;
}

static bool
eager_gradient(GradCall *gc)
{
  TfState *st = gc->st;
  TfTape *t = gc->tape;
  int n_t = (int)PyList_GET_SIZE(gc->targets), n_s = (int)PyList_GET_SIZE(gc->sources);
  g_autoptr(GPtrArray) owned = g_ptr_array_new_with_free_func(handle_free);
  Builder b = {st, owned};
  g_autofree void **targets = g_new0(void *, MAX(n_t, 1));
  g_autofree void **seeds = g_new0(void *, MAX(n_t, 1));
  g_autofree void **sources = g_new0(void *, MAX(n_s, 1));
  g_autofree void **grads = g_new0(void *, MAX(n_s, 1));
  int n_known = 0;
  for (int i = 0; i < n_t; i++) {
    TapeHandle *h = eager_handle_of(st, t, PyList_GET_ITEM(gc->targets, i));
    if (!h)
      continue;
    if (gc->seeds) {
      TfOperand o;
      if (!tf_operand(st, PyList_GET_ITEM(gc->seeds, i), h->o.dtype, false, &o))
        return false;
      seeds[n_known] = builder_take(&b, &o);
    } else if (h->var) {
      GError *error = NULL;
      if (!(seeds[n_known] = variable_seed(&eager_builder, &b, h->var, &error))) {
        raise_gradient_error(st, error);
        return false;
      }
    }
    targets[n_known++] = h;
  }
  for (int j = 0; j < n_s; j++) {
    TapeHandle *h = eager_handle_of(st, t, PyList_GET_ITEM(gc->sources, j));
    sources[j] = h && h->tracked ? h : NULL;
  }
  GError *error = NULL;
  t->computing = true;
  bool ok =
      tr_grad_backprop(&eager_builder, &b, (TrGradRecord *)t->records->data, (int)t->records->len,
                       targets, seeds, n_known, sources, n_s, grads, &error);
  t->computing = false;
  if (!ok) {
    raise_gradient_error(st, error);
    return false;
  }
  for (int j = 0; j < n_s; j++) {
    const TapeHandle *g = grads[j];
    if (!g)
      continue;
    gc->results[j] = tf_tensor_new(st, tr_tensor_ref(g->o.value));
    if (!gc->results[j])
      return false;
  }
  return true;
}

/* Traced: the graph builder's handle of a symbolic tensor of the tape's graph or of a Variable,
 * or NULL. */
static void *
traced_handle_of(TfState *st, TrGradGraph *b, TfTape *t, PyObject *v)
{
  if (tf_is_variable(st, v))
    return tr_grad_graph_variable_handle(b, ((TfVariable *)v)->var);
  if (!tf_is_symbolic(st, v) || tf_symbolic_graph(v) != t->graph)
    return NULL;
  return tr_grad_graph_handle(b, tf_symbolic_output(v));
}

static bool
traced_tracked(TfState *st, TfTape *t, GHashTable *tracked, void *h, PyObject *v)
{
  if (tf_is_variable(st, v))
    return tape_watches_variable(t, ((TfVariable *)v)->var);
  return g_hash_table_contains(tracked, h);
}

/* The records of the nodes added while the tape recorded whose inputs it tracks. Adds the
 * handles tracked to `tracked`. */
static GArray *
traced_records(TfTape *t, TrGradGraph *b, GHashTable *tracked)
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
  TfState *st = gc->st;
  TfTape *t = gc->tape;
  int n_t = (int)PyList_GET_SIZE(gc->targets), n_s = (int)PyList_GET_SIZE(gc->sources);
  g_autoptr(TrGradGraph) b = tr_grad_graph_new(t->graph);
  g_autoptr(GHashTable) tracked = g_hash_table_new(NULL, NULL);
  g_autoptr(GArray) records = traced_records(t, b, tracked);
  g_autofree void **targets = g_new0(void *, MAX(n_t, 1));
  g_autofree void **seeds = g_new0(void *, MAX(n_t, 1));
  g_autofree void **sources = g_new0(void *, MAX(n_s, 1));
  g_autofree void **grads = g_new0(void *, MAX(n_s, 1));
  int n_known = 0;
  for (int i = 0; i < n_t; i++) {
    PyObject *target = PyList_GET_ITEM(gc->targets, i);
    void *h = traced_handle_of(st, b, t, target);
    if (!h)
      continue;
    if (!gc->seeds && tf_is_variable(st, target)) {
      GError *error = NULL;
      if (!(seeds[n_known] =
                variable_seed(&tr_grad_graph_builder, b, ((TfVariable *)target)->var, &error))) {
        raise_gradient_error(st, error);
        return false;
      }
    } else if (gc->seeds) {
      TrDType dtype;
      TrShape shape;
      tr_grad_graph_builder.describe(b, h, &dtype, &shape);
      TfOperand o;
      if (!tf_operand(st, PyList_GET_ITEM(gc->seeds, i), dtype, false, &o))
        return false;
      seeds[n_known] = tr_grad_graph_handle(b, o.out);
      tf_operand_clear(&o);
    }
    targets[n_known++] = h;
  }
  for (int j = 0; j < n_s; j++) {
    PyObject *v = PyList_GET_ITEM(gc->sources, j);
    void *h = traced_handle_of(st, b, t, v);
    sources[j] = h && traced_tracked(st, t, tracked, h, v) ? h : NULL;
  }
  GError *error = NULL;
  tr_graph_push_name_scope(t->graph, "gradient_tape");
  bool ok =
      tr_grad_backprop(&tr_grad_graph_builder, b, (TrGradRecord *)records->data, (int)records->len,
                       targets, seeds, n_known, sources, n_s, grads, &error);
  tr_graph_pop_name_scope(t->graph);
  if (!ok) {
    raise_gradient_error(st, error);
    return false;
  }
  for (int j = 0; j < n_s; j++) {
    if (!grads[j])
      continue;
    gc->results[j] = tf_symbolic_new(st, t->graph, tr_grad_graph_output(grads[j]));
    if (!gc->results[j])
      return false;
  }
  return true;
}

/* The tape's open window of graph nodes, if any, is closed now (and reopened after). */
static void
close_window(TfTape *t)
{
  guint n = t->windows->len;
  if (n >= 2 && g_array_index(t->windows, int, n - 1) < 0)
    g_array_index(t->windows, int, n - 1) = tr_graph_n_nodes(t->graph);
}

static void
open_window(TfTape *t)
{
  int start = tr_graph_n_nodes(t->graph), open = -1;
  g_array_append_val(t->windows, start);
  g_array_append_val(t->windows, open);
}

/* The leaves of a gradient() argument (new list), each checked; NULL with an exception set. */
static PyObject *
gradient_leaves(TfState *st, PyObject *v, const char *what)
{
  PyObject *out = PyList_New(0);
  if (!out || !flatten(v, out))
    goto fail;
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(out); i++)
    if (!check_leaf(st, PyList_GET_ITEM(out, i), what))
      goto fail;
  return out;
fail:
  Py_XDECREF(out);
  return NULL;
}

/* Whether unconnected_gradients= asks for zeros: "none" (the default) or "zero", as a string or
 * a tf.UnconnectedGradients member (whose .value is the string). -1 with ValueError. */
static int
wants_zeros(PyObject *unconnected)
{
  if (!unconnected || unconnected == Py_None)
    return 0;
  PyObject *value = PyUnicode_Check(unconnected) ? Py_NewRef(unconnected)
                                                 : PyObject_GetAttrString(unconnected, "value");
  if (!value) {
    PyErr_Clear();
    value = Py_NewRef(unconnected);
  }
  int r = -1;
  if (PyUnicode_Check(value) && PyUnicode_CompareWithASCIIString(value, "none") == 0)
    r = 0;
  else if (PyUnicode_Check(value) && PyUnicode_CompareWithASCIIString(value, "zero") == 0)
    r = 1;
  else
    PyErr_Format(PyExc_ValueError, "Unknown value for unconnected_gradients: %R", unconnected);
  Py_DECREF(value);
  return r;
}

/* zeros_like(source) on the current path: the gradient of an unconnected source with
 * unconnected_gradients="zero". */
static PyObject *
zeros_like(TfState *st, PyObject *source)
{
  TfOperand o;
  if (!tf_operand(st, source, TR_DTYPE_INVALID, false, &o))
    return NULL;
  PyObject *r = tf_apply(st, TR_OP_ZEROS_LIKE, &o, 1, NULL, NULL);
  tf_operand_clear(&o);
  return r;
}

/* ---- the GradientTape type ------------------------------------------------------------------ */

static PyObject *
tape_gradient(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"target", "sources", "output_gradients",
                                      "unconnected_gradients", NULL};
  PyObject *a[4];
  if (!tf_parse_args("gradient", args, nargs, kwnames, names, 2, a))
    return NULL;
  PyObject *target = a[0], *source_arg = a[1], *output_gradients = a[2];
  TfState *st = tf_state();
  TfTape *t = (TfTape *)self;
  if (t->used) {
    PyErr_SetString(PyExc_RuntimeError,
                    "A non-persistent GradientTape can only be used to compute one set of "
                    "gradients (or jacobians)");
    return NULL;
  }
  int zeros = wants_zeros(a[3]);
  if (zeros < 0)
    return NULL;
  TfTrace *tr = tf_trace(st);
  if (t->graph && (!tr || tr->graph != t->graph)) {
    PyErr_SetString(PyExc_RuntimeError,
                    "GradientTape.gradient() must be called while the function whose trace the "
                    "tape recorded is being traced");
    return NULL;
  }
  PyObject *result = NULL;
  PyObject *seeds = NULL, *leaves = NULL;
  PyObject **results = NULL;
  Py_ssize_t n_s = 0;
  PyObject *targets = gradient_leaves(st, target, "targets");
  PyObject *sources = targets ? gradient_leaves(st, source_arg, "sources") : NULL;
  if (!sources)
    goto done;
  if (output_gradients && output_gradients != Py_None) {
    seeds = PyList_New(0);
    if (!seeds || !flatten(output_gradients, seeds))
      goto done;
    if (PyList_GET_SIZE(seeds) != PyList_GET_SIZE(targets)) {
      PyErr_Format(PyExc_ValueError,
                   "Length of output_gradients (%zd) does not match the number of targets (%zd)",
                   PyList_GET_SIZE(seeds), PyList_GET_SIZE(targets));
      goto done;
    }
  }
  n_s = PyList_GET_SIZE(sources);
  results = g_new0(PyObject *, MAX(n_s, 1)); /* each an owned tensor or NULL */
  GradCall gc = {st, t, targets, seeds, sources, results};
  if (t->graph)
    close_window(t);
  bool ok = t->graph ? traced_gradient(&gc) : eager_gradient(&gc);
  if (t->graph && t->active && !t->paused)
    open_window(t);
  if (!ok)
    goto done;
  if (!t->persistent) {
    t->used = true;
    tape_forget(t);
  }
  leaves = PyList_New(n_s);
  for (Py_ssize_t j = 0; leaves && j < n_s; j++) {
    PyObject *g = results[j];
    results[j] = NULL;
    if (!g && zeros && !(g = zeros_like(st, PyList_GET_ITEM(sources, j))))
      goto done;
    PyList_SET_ITEM(leaves, j, g ? g : Py_NewRef(Py_None));
  }
  Py_ssize_t next = 0;
  if (leaves)
    result = unflatten(source_arg, leaves, &next);
done:
  for (Py_ssize_t j = 0; results && j < n_s; j++)
    Py_XDECREF(results[j]);
  g_free(results);
  Py_XDECREF(leaves);
  Py_XDECREF(seeds);
  Py_XDECREF(sources);
  Py_XDECREF(targets);
  return result;
}

/* GradientTape(): the containers; __init__ sets the options, so subclasses may call it. */
static PyObject *
tape_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
  TfTape *t = (TfTape *)type->tp_alloc(type, 0);
  if (!t)
    return NULL;
  t->watch_accessed = true;
  t->windows = g_array_new(FALSE, FALSE, sizeof(int));
  t->watched_outs = g_hash_table_new_full(output_hash, output_equal, g_free, NULL);
  t->handles = g_hash_table_new_full(NULL, NULL, NULL, handle_free);
  t->records = g_array_new(FALSE, FALSE, sizeof(TrGradRecord));
  t->mem = g_ptr_array_new_with_free_func(g_free);
  t->graphs = g_ptr_array_new_with_free_func((GDestroyNotify)tr_graph_unref);
  t->variables = PyList_New(0);
  if (!t->variables) {
    Py_DECREF(t);
    return NULL;
  }
  return (PyObject *)t;
}

static int
tape_init(PyObject *self, PyObject *args, PyObject *kwargs)
{
  static char *kwlist[] = {"persistent", "watch_accessed_variables", NULL};
  int persistent = 0, watch = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|pp:GradientTape", kwlist, &persistent, &watch))
    return -1;
  TfTape *t = (TfTape *)self;
  t->persistent = persistent;
  t->watch_accessed = watch;
  return 0;
}

static int
tape_traverse(PyObject *self, visitproc visit, void *arg)
{
  Py_VISIT(Py_TYPE(self));
  Py_VISIT(((TfTape *)self)->variables);
  return 0;
}

static int
tape_clear(PyObject *self)
{
  Py_CLEAR(((TfTape *)self)->variables);
  return 0;
}

static void
tape_dealloc(PyObject *self)
{
  TfTape *t = (TfTape *)self; /* never active: the active list holds a reference */
  PyTypeObject *type = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  tape_clear(self);
  g_clear_pointer(&t->handles, g_hash_table_unref);
  g_clear_pointer(&t->records, g_array_unref);
  g_clear_pointer(&t->mem, g_ptr_array_unref);
  g_clear_pointer(&t->graphs, g_ptr_array_unref);
  g_clear_pointer(&t->windows, g_array_unref);
  g_clear_pointer(&t->watched_outs, g_hash_table_unref);
  g_clear_pointer(&t->graph, tr_graph_unref);
  type->tp_free(self);
  Py_DECREF(type);
}

static PyObject *
tape_enter(PyObject *self, PyObject *unused)
{
  TfTape *t = (TfTape *)self;
  if (t->active) {
    PyErr_SetString(PyExc_ValueError, "Tape is still recording, This can happen if you try to "
                                      "re-enter an already-active tape.");
    return NULL;
  }
  TfState *st = tf_state();
  TfTrace *tr = tf_trace(st);
  g_clear_pointer(&t->graph, tr_graph_unref);
  t->graph = tr ? tr_graph_ref(tr->graph) : NULL;
  if (t->graph)
    open_window(t);
  t->next = st->tapes;
  st->tapes = t;
  t->active = true;
  Py_INCREF(self); /* the active list's reference, dropped by __exit__ */
  return Py_NewRef(self);
}

static PyObject *
tape_exit(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  TfTape *t = (TfTape *)self;
  if (t->active) {
    if (t->graph)
      close_window(t);
    tape_unlink(tf_state(), t);
  }
  Py_RETURN_FALSE;
}

/* Watches one tensor or Variable. */
static bool
watch_leaf(TfState *st, TfTape *t, PyObject *v)
{
  if (tf_is_variable(st, v))
    return tape_watch_variable(t, v);
  if (!tf_is_tensor(st, v)) {
    PyErr_Format(PyExc_ValueError,
                 "Passed in object %S of type '%s', not tf.Tensor or tf.Variable or "
                 "ExtensionType.",
                 v, Py_TYPE(v)->tp_name);
    return false;
  }
  if (!tr_grad_dtype_is_differentiable(tf_dtype_of(st, v)))
    return true; /* TensorFlow only warns: such a tensor gets no gradient */
  TrTensor *value = tf_tensor_value(v);
  if (value) {
    tape_value_handle(t, value)->tracked = true;
    return true;
  }
  TrOutput out = tf_symbolic_output(v);
  g_hash_table_add(t->watched_outs, g_memdup2(&out, sizeof out));
  return true;
}

static PyObject *
tape_watch(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"tensor", NULL};
  PyObject *tensor;
  if (!tf_parse_args("watch", args, nargs, kwnames, names, 1, &tensor))
    return NULL;
  TfState *st = tf_state();
  PyObject *leaves = PyList_New(0);
  if (!leaves || !flatten(tensor, leaves))
    goto fail;
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(leaves); i++)
    if (!watch_leaf(st, (TfTape *)self, PyList_GET_ITEM(leaves, i)))
      goto fail;
  Py_DECREF(leaves);
  Py_RETURN_NONE;
fail:
  Py_XDECREF(leaves);
  return NULL;
}

static PyObject *
tape_watched_variables(PyObject *self, PyObject *unused)
{
  return PyList_AsTuple(((TfTape *)self)->variables);
}

static PyObject *
tape_reset(PyObject *self, PyObject *unused)
{
  TfTape *t = (TfTape *)self;
  tape_forget(t);
  if (PyList_SetSlice(t->variables, 0, PyList_GET_SIZE(t->variables), NULL) < 0)
    return NULL;
  t->used = false;
  if (t->graph && t->active && !t->paused)
    open_window(t);
  Py_RETURN_NONE;
}

/* stop_recording(): a context manager pausing the tape. */
typedef struct {
  PyObject_HEAD
  PyObject *tape; /* the GradientTape (owned) */
} StopRecording;

static PyObject *
tape_stop_recording(PyObject *self, PyObject *unused)
{
  TfState *st = tf_state();
  StopRecording *s = PyObject_GC_New(StopRecording, st->StopRecording);
  if (!s)
    return NULL;
  s->tape = Py_NewRef(self);
  PyObject_GC_Track(s);
  return (PyObject *)s;
}

static PyObject *
stop_enter(PyObject *self, PyObject *unused)
{
  TfTape *t = (TfTape *)((StopRecording *)self)->tape;
  if (t->graph)
    close_window(t);
  t->paused = true;
  Py_RETURN_NONE;
}

static PyObject *
stop_exit(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  TfTape *t = (TfTape *)((StopRecording *)self)->tape;
  t->paused = false;
  if (t->graph && t->active)
    open_window(t);
  Py_RETURN_FALSE;
}

static int
stop_traverse(PyObject *self, visitproc visit, void *arg)
{
  Py_VISIT(Py_TYPE(self));
  Py_VISIT(((StopRecording *)self)->tape);
  return 0;
}

static int
stop_clear(PyObject *self)
{
  Py_CLEAR(((StopRecording *)self)->tape);
  return 0;
}

static void
stop_dealloc(PyObject *self)
{
  PyTypeObject *type = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  stop_clear(self);
  PyObject_GC_Del(self);
  Py_DECREF(type);
}

static PyMethodDef stop_methods[] = {
    {"__enter__", stop_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)(void (*)(void))stop_exit, METH_FASTCALL, NULL},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot stop_slots[] = {
    {Py_tp_dealloc, stop_dealloc},
    {Py_tp_traverse, stop_traverse},
    {Py_tp_clear, stop_clear},
    {Py_tp_methods, stop_methods},
    {0, NULL},
};

static PyType_Spec stop_spec = {
    .name = "tensorflow._StopRecording",
    .basicsize = sizeof(StopRecording),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = stop_slots,
};

static PyMethodDef tape_methods[] = {
    {"__enter__", tape_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)(void (*)(void))tape_exit, METH_FASTCALL, NULL},
    {"watch", (PyCFunction)(void (*)(void))tape_watch, METH_FASTCALL | METH_KEYWORDS,
     PyDoc_STR("watch($self, /, tensor)\n--\n\nEnsures that `tensor` is being traced by this "
               "tape.")},
    {"gradient", (PyCFunction)(void (*)(void))tape_gradient, METH_FASTCALL | METH_KEYWORDS,
     PyDoc_STR("gradient($self, /, target, sources, output_gradients=None,\n"
               "         unconnected_gradients='none')\n--\n\n"
               "Computes the gradient using operations recorded in context of this tape.")},
    {"watched_variables", tape_watched_variables, METH_NOARGS,
     PyDoc_STR("watched_variables($self, /)\n--\n\nReturns variables watched by this tape in "
               "order of construction.")},
    {"reset", tape_reset, METH_NOARGS,
     PyDoc_STR("reset($self, /)\n--\n\nClears all information stored in this tape.")},
    {"stop_recording", tape_stop_recording, METH_NOARGS,
     PyDoc_STR("stop_recording($self, /)\n--\n\nTemporarily stops recording operations on this "
               "tape.")},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot tape_slots[] = {
    {Py_tp_new, tape_new},
    {Py_tp_init, tape_init},
    {Py_tp_dealloc, tape_dealloc},
    {Py_tp_traverse, tape_traverse},
    {Py_tp_clear, tape_clear},
    {Py_tp_methods, tape_methods},
    {Py_tp_doc, PyDoc_STR("GradientTape(persistent=False, watch_accessed_variables=True)\n--\n\n"
                          "Record operations for automatic differentiation.")},
    {0, NULL},
};

static PyType_Spec tape_spec = {
    .name = "tensorflow.GradientTape",
    .basicsize = sizeof(TfTape),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE,
    .slots = tape_slots,
};

int
tf_gradient_init(PyObject *module, TfState *st)
{
  st->StopRecording = (PyTypeObject *)PyType_FromModuleAndSpec(module, &stop_spec, NULL);
  if (!st->StopRecording)
    return -1;
  st->GradientTape = (PyTypeObject *)PyType_FromModuleAndSpec(module, &tape_spec, NULL);
  if (!st->GradientTape)
    return -1;
  return PyModule_AddType(module, st->GradientTape);
}

void
tf_gradient_clear(TfState *st)
{
  while (st->tapes) /* tapes left inside their `with` (an abandoned generator, a cell killed) */
    tape_unlink(st, st->tapes);
  Py_CLEAR(st->GradientTape);
  Py_CLEAR(st->StopRecording);
}
