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

#include <stdarg.h>
#include <string.h>

#include <structmember.h> /* PyMemberDef's T_PYSSIZET */

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
  PyObject *pyrefs;    /* list: what custom-gradient records point to (owned) */
  GArray *customs;     /* traced: TracedCustom, tf.custom_gradient calls while recording */
};

/* A tf.custom_gradient call made while the tape recorded a trace: the gradients of its outputs
 * (Identity nodes no window holds) come from its grad_fn, not from the nodes in between. */
typedef struct {
  int n_inputs, n_outputs;
  TrOutput *inputs;  /* the flat arguments, then the values of the variables read (owned) */
  TrOutput *outputs; /* (owned) */
  PyObject *info;    /* the grad_fn and what it needs (borrowed: the tape's pyrefs hold it) */
} TracedCustom;

static void
traced_custom_clear(gpointer data)
{
  TracedCustom *c = data;
  g_free(c->inputs);
  g_free(c->outputs);
}

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
  g_array_set_size(t->customs, 0);
  if (t->pyrefs && PyList_SetSlice(t->pyrefs, 0, PyList_GET_SIZE(t->pyrefs), NULL) < 0)
    PyErr_Clear(); /* deleting list items cannot fail; nothing is lost if it did */
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
  /* A persistent tape asked inside its `with` records its own gradient ops, as TensorFlow's
   * does (a second gradient() then differentiates them); the walk goes over a copy of the
   * records, which grow meanwhile. */
  int n_records = (int)t->records->len;
  g_autofree TrGradRecord *records =
      g_memdup2(t->records->data, sizeof(TrGradRecord) * (size_t)MAX(n_records, 1));
  t->computing = !t->active;
  bool ok = tr_grad_backprop(&eager_builder, &b, records, n_records, targets, seeds, n_known,
                             sources, n_s, grads, &error);
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

/* An eager tensor `v` used by a tape that records the graph being traced: the ops read it as
 * the graph's capture of it, so the tape watches (or differentiates with respect to) that
 * capture, as TensorFlow's tape does inside a FuncGraph. Sets *out to the capture's output, or
 * out->node to NULL when the tape is an eager one. False with an exception set on failure. */
static bool
capture_in_tape_graph(TfState *st, TfTape *t, PyObject *v, TrOutput *out)
{
  out->node = NULL;
  TfTrace *tr = tf_trace(st);
  if (!t->graph || !tr || tr->graph != t->graph)
    return true;
  TfOperand o;
  if (!tf_operand(st, v, TR_DTYPE_INVALID, false, &o))
    return false;
  *out = o.out;
  tf_operand_clear(&o);
  return true;
}

/* Traced: the graph builder's handle of a symbolic tensor of the tape's graph or of a Variable,
 * or NULL. */
static void *
traced_handle_of(TfState *st, TrGradGraph *b, TfTape *t, PyObject *v)
{
  if (tf_is_variable(st, v))
    return tr_grad_graph_variable_handle(b, ((TfVariable *)v)->var);
  if (tf_is_tensor(st, v) && tf_tensor_value(v)) {
    TrOutput out;
    if (!capture_in_tape_graph(st, t, v, &out) || !out.node) {
      PyErr_Clear(); /* not capturable: no gradient, as for any tensor the tape did not see */
      return NULL;
    }
    return tr_grad_graph_handle(b, out);
  }
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
static bool custom_traced(void *ctx, const TrGradRecord *r, void *const *dy, void **dx,
                          GError **error);

/* The node id a record of the graph builder stands at: its first output's node. */
static int
record_position(const TrGradRecord *r)
{
  return r->n_outputs > 0 ? tr_grad_graph_output(r->outputs[0]).node->id : G_MAXINT;
}

/* `all` with the tape's custom-gradient calls merged in at their outputs' place; their handle
 * arrays go to `mem`. */
static GArray *
merge_customs(TfTape *t, TrGradGraph *b, GArray *all, GPtrArray *mem)
{
  GArray *merged = g_array_new(FALSE, FALSE, sizeof(TrGradRecord));
  guint i = 0;
  for (guint k = 0; k < t->customs->len; k++) {
    const TracedCustom *c = &g_array_index(t->customs, TracedCustom, k);
    void **ins = g_new(void *, MAX(c->n_inputs, 1));
    void **outs = g_new(void *, MAX(c->n_outputs, 1));
    g_ptr_array_add(mem, ins);
    g_ptr_array_add(mem, outs);
    for (int j = 0; j < c->n_inputs; j++)
      ins[j] = tr_grad_graph_handle(b, c->inputs[j]);
    for (int j = 0; j < c->n_outputs; j++)
      outs[j] = tr_grad_graph_handle(b, c->outputs[j]);
    TrGradRecord r = {.op = TR_GRAD_CUSTOM,
                      .n_inputs = c->n_inputs,
                      .inputs = ins,
                      .n_outputs = c->n_outputs,
                      .outputs = outs,
                      .custom = custom_traced,
                      .custom_data = c->info};
    int at = record_position(&r);
    for (; i < all->len && record_position(&g_array_index(all, TrGradRecord, i)) < at; i++)
      g_array_append_val(merged, g_array_index(all, TrGradRecord, i));
    g_array_append_val(merged, r);
  }
  for (; i < all->len; i++)
    g_array_append_val(merged, g_array_index(all, TrGradRecord, i));
  return merged;
}

static GArray *
traced_records(TfTape *t, TrGradGraph *b, GHashTable *tracked, GPtrArray *mem)
{
  g_autoptr(GArray) windowed = g_array_new(FALSE, FALSE, sizeof(TrGradRecord));
  for (guint w = 0; w < t->windows->len; w += 2) {
    int first = g_array_index(t->windows, int, w), last = g_array_index(t->windows, int, w + 1);
    tr_grad_graph_records(b, first, last < 0 ? tr_graph_n_nodes(t->graph) : last, windowed);
  }
  g_autoptr(GArray) all = merge_customs(t, b, windowed, mem);
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
  g_autoptr(GPtrArray) mem = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GArray) records = traced_records(t, b, tracked, mem);
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

/* Prints a line of TensorFlow's logger, "WARNING:tensorflow:<text>", to sys.stderr. An
 * exception being raised stays set; a failed write is dropped. */
static void
warn(const char *fmt, ...)
{
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  va_list ap;
  va_start(ap, fmt);
  PyObject *text = PyUnicode_FromFormatV(fmt, ap); /* owned */
  va_end(ap);
  PyObject *stream = PySys_GetObject("stderr"); /* borrowed */
  if (text && stream && stream != Py_None) {
    PyObject *line = PyUnicode_FromFormat("WARNING:tensorflow:%U\n", text);
    PyObject *r = line ? PyObject_CallMethod(stream, "write", "O", line) : NULL;
    Py_XDECREF(r);
    Py_XDECREF(line);
  }
  Py_XDECREF(text);
  PyErr_Clear();
  PyErr_Restore(type, value, tb);
}

/* TensorFlow's warnings for targets or sources that cannot carry gradients (integers, strings):
 * `what` is "target" or "source". */
static void
warn_not_trainable(TfState *st, PyObject *leaves, const char *what)
{
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(leaves); i++) {
    TrDType dtype = tf_dtype_of(st, PyList_GET_ITEM(leaves, i));
    if (dtype != TR_DTYPE_INVALID && !tr_grad_dtype_is_differentiable(dtype))
      warn("The dtype of the %s tensor must be floating (e.g. tf.float32) when calling "
           "GradientTape.gradient, got %R",
           what, tf_dtype_object(st, dtype));
  }
}

/* What gradient(), jacobian() and batch_jacobian() check and do first. A non-persistent tape
 * used inside its `with` stops recording there (its gradients are the only ones it gives); a
 * persistent one keeps recording its own gradient ops, which TensorFlow warns about once. False
 * with an exception set. */
static bool
tape_begin_use(TfState *st, TfTape *t)
{
  if (t->used) {
    PyErr_SetString(PyExc_RuntimeError,
                    "A non-persistent GradientTape can only be used to compute one set of "
                    "gradients (or jacobians)");
    return false;
  }
  TfTrace *tr = tf_trace(st);
  if (t->graph && (!tr || tr->graph != t->graph)) {
    PyErr_SetString(PyExc_RuntimeError,
                    "GradientTape.gradient() must be called while the function whose trace the "
                    "tape recorded is being traced");
    return false;
  }
  if (t->active && !t->persistent) {
    if (t->graph)
      close_window(t);
    tape_unlink(st, t);
  } else if (t->active && !st->persistent_warned) {
    st->persistent_warned = true;
    warn("Calling GradientTape.gradient on a persistent tape inside its context is "
         "significantly less efficient than calling it outside the context (it causes the "
         "gradient ops to be recorded on the tape, leading to increased CPU and memory usage). "
         "Only call GradientTape.gradient inside the context if you actually want to trace the "
         "gradient in order to compute higher order derivatives.");
  }
  return true;
}

/* After a successful use: a non-persistent tape forgets everything. */
static void
tape_end_use(TfTape *t)
{
  if (!t->persistent) {
    t->used = true;
    tape_forget(t);
  }
}

/* One backward pass over the tape: results[j] receives an owned tensor or NULL (unconnected).
 * While tracing, the tape's open window is closed around it so the gradient nodes stay out. */
static bool
tape_compute(TfState *st, TfTape *t, PyObject *targets, PyObject *seeds, PyObject *sources,
             PyObject **results)
{
  GradCall gc = {st, t, targets, seeds, sources, results};
  if (!t->graph)
    return eager_gradient(&gc);
  close_window(t);
  bool ok = traced_gradient(&gc);
  if (t->active && !t->paused)
    open_window(t);
  return ok;
}

/* The leaves of a result: each gradient, or zeros (unconnected_gradients="zero"), or None.
 * Takes over results[]. A new list, or NULL. */
static PyObject *
result_leaves(TfState *st, PyObject **results, PyObject *sources, int zeros)
{
  Py_ssize_t n_s = PyList_GET_SIZE(sources);
  PyObject *leaves = PyList_New(n_s);
  for (Py_ssize_t j = 0; leaves && j < n_s; j++) {
    PyObject *g = results[j];
    results[j] = NULL;
    if (!g && zeros && !(g = zeros_like(st, PyList_GET_ITEM(sources, j))))
      Py_CLEAR(leaves);
    else
      PyList_SET_ITEM(leaves, j, g ? g : Py_NewRef(Py_None));
  }
  return leaves;
}

static void
results_free(PyObject **results, Py_ssize_t n)
{
  for (Py_ssize_t j = 0; results && j < n; j++)
    Py_XDECREF(results[j]);
  g_free(results);
}

/* Eagerly, a Variable target is read with the tape recording (TensorFlow converts it to a
 * tensor inside `with tape:`), so `result = v0; tape.gradient(result, v0)` is 1 when the tape
 * watches v0. Replaces such targets in `targets` by the values read. */
static bool
read_variable_targets(TfState *st, TfTape *t, PyObject *targets)
{
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(targets); i++) {
    PyObject *v = PyList_GET_ITEM(targets, i);
    if (!tf_is_variable(st, v))
      continue;
    bool pushed = !t->active, paused = t->paused;
    if (pushed) { /* the active list's reference, dropped by tape_unlink */
      t->next = st->tapes;
      st->tapes = (TfTape *)Py_NewRef(t);
      t->active = true;
    }
    t->paused = false;
    TfOperand o;
    bool ok = tf_operand(st, v, TR_DTYPE_INVALID, false, &o);
    t->paused = paused;
    if (pushed)
      tape_unlink(st, t);
    PyObject *value = ok ? tf_operand_to_value(st, &o) : NULL;
    if (!value)
      return false;
    PyList_SetItem(targets, i, value); /* steals value */
  }
  return true;
}

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
  int zeros = wants_zeros(a[3]);
  if (zeros < 0 || !tape_begin_use(st, t))
    return NULL;
  if (target == Py_None) {
    PyErr_SetString(PyExc_TypeError,
                    "Argument `target` should be a list or nested structure of Tensors, "
                    "Variables or CompositeTensors to be differentiated, but received None.");
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
  warn_not_trainable(st, targets, "target");
  warn_not_trainable(st, sources, "source");
  if (!t->graph && !read_variable_targets(st, t, targets))
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
  if (!tape_compute(st, t, targets, seeds, sources, results))
    goto done;
  tape_end_use(t);
  leaves = result_leaves(st, results, sources, zeros);
  Py_ssize_t next = 0;
  if (leaves)
    result = unflatten(source_arg, leaves, &next);
done:
  results_free(results, n_s);
  Py_XDECREF(leaves);
  Py_XDECREF(seeds);
  Py_XDECREF(sources);
  Py_XDECREF(targets);
  return result;
}

/* ---- jacobian() and batch_jacobian() -------------------------------------------------------- *
 * Both differentiate one element (or one column of a batch) at a time, seeding the target with a
 * one-hot tensor, and stack the rows: what TensorFlow's pfor computes at once. The rows go
 * through the dispatcher, so an enclosing tape records them (a Hessian is the jacobian of a
 * gradient). */

/* The target's static shape; false with an exception when it is not fully known. */
static bool
target_shape(TfState *st, PyObject *target, TrShape *shape)
{
  if (!tf_shape_of(st, target, shape))
    return false;
  if (!tr_shape_is_fully_defined(shape)) {
    PyErr_SetString(st->errors[TF_ERROR_UNIMPLEMENTED],
                    "jacobian() needs the target's shape to be fully known while tracing");
    return false;
  }
  return true;
}

/* A seed tensor: `hot` (num_elements, shape [n] or [b, n]) of one-hots reshaped to `shape`. */
static PyObject *
seed_tensor(TfState *st, TrTensor *indices, int64_t depth, TrDType dtype, const TrShape *shape)
{
  GError *error = NULL;
  TrAttrs a;
  tr_attrs_init(&a);
  a.axis = -1;
  a.depth = depth;
  a.dtype = dtype;
  g_autoptr(TrTensor) hot = tr_op_run(TR_OP_ONE_HOT, &indices, 1, &a, &error);
  if (!hot)
    return tf_raise_error(st, error);
  TrTensor *seed = tr_reshape(hot, shape->dims, shape->rank, &error);
  return tf_result(st, seed, error);
}

/* Stacks `rows` (n tensors or NULLs) along `axis` and reshapes to `shape`: a new tensor, or
 * None when every row is NULL (unless `zeros`: NULL rows are zeros like `source`). NULL with an
 * exception set. */
static PyObject *
stack_rows(TfState *st, PyObject **rows, Py_ssize_t n, int64_t axis, const TrShape *shape,
           PyObject *source, bool zeros)
{
  bool any = zeros;
  for (Py_ssize_t i = 0; i < n; i++)
    any |= rows[i] != NULL;
  if (!any || n == 0)
    return Py_NewRef(Py_None);
  g_autofree TfOperand *ops = g_new0(TfOperand, MAX(n, 1));
  bool ok = true;
  Py_ssize_t done = 0;
  for (; ok && done < n; done++) {
    if (rows[done]) {
      ok = tf_operand(st, rows[done], TR_DTYPE_INVALID, false, &ops[done]);
    } else { /* a row no gradient reached, among rows that had one */
      PyObject *z = zeros_like(st, source);
      ok = z && tf_operand(st, z, TR_DTYPE_INVALID, false, &ops[done]);
      Py_XDECREF(z);
    }
  }
  if (!ok) {
    tf_operands_clear(ops, done - 1);
    return NULL;
  }
  TrAttrs a;
  tr_attrs_init(&a);
  a.axis = axis;
  TfOperand stacked;
  ok = tf_apply_operand(st, TR_OP_STACK, ops, (int)n, &a, NULL, &stacked);
  tf_operands_clear(ops, (int)n);
  if (!ok)
    return NULL;
  tr_attrs_init(&a);
  a.n_axes = shape->rank;
  memcpy(a.axes, shape->dims, sizeof(int64_t) * (size_t)shape->rank);
  PyObject *r = tf_apply(st, TR_OP_RESHAPE, &stacked, 1, &a, NULL);
  tf_operand_clear(&stacked);
  return r;
}

/* `a` followed by `b` (from b's dimension `skip` on); false with ValueError past the rank limit. */
static bool
concat_shapes(const TrShape *a, const TrShape *b, int skip, TrShape *out)
{
  if (a->rank + b->rank - skip > TR_MAX_RANK) {
    PyErr_Format(PyExc_ValueError, "The jacobian would have rank %d; at most %d is supported",
                 a->rank + b->rank - skip, TR_MAX_RANK);
    return false;
  }
  *out = *a;
  for (int i = skip; i < b->rank; i++)
    out->dims[out->rank++] = b->dims[i];
  return true;
}

static PyObject *
tape_jacobian(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {
      "target", "sources", "unconnected_gradients", "parallel_iterations", "experimental_use_pfor",
      NULL};
  PyObject *a[5];
  if (!tf_parse_args("jacobian", args, nargs, kwnames, names, 2, a))
    return NULL;
  PyObject *target = a[0], *source_arg = a[1];
  TfState *st = tf_state();
  TfTape *t = (TfTape *)self;
  int zeros = wants_zeros(a[2]);
  if (zeros < 0)
    return NULL;
  int use_pfor = a[4] ? PyObject_IsTrue(a[4]) : 1;
  if (use_pfor < 0)
    return NULL;
  if (!use_pfor && !tf_trace(st) && !t->persistent) {
    PyErr_SetString(PyExc_RuntimeError,
                    "GradientTape must be created with persistent=True to compute the jacobian "
                    "with eager execution enabled and with  experimental_use_pfor set to False.");
    return NULL;
  }
  if (!check_leaf(st, target, "targets") || !tape_begin_use(st, t))
    return NULL;
  TrShape tshape;
  if (!target_shape(st, target, &tshape))
    return NULL;
  int64_t n = tr_shape_num_elements(&tshape);
  TrDType dtype = tf_dtype_of(st, target);
  PyObject *result = NULL, *leaves = NULL, *targets = NULL, *seeds = NULL;
  PyObject *sources = gradient_leaves(st, source_arg, "sources");
  Py_ssize_t n_s = sources ? PyList_GET_SIZE(sources) : 0;
  PyObject ***rows = g_new0(PyObject **, MAX(n_s, 1)); /* per source: n rows (owned) */
  for (Py_ssize_t j = 0; j < n_s; j++)
    rows[j] = g_new0(PyObject *, MAX(n, 1));
  g_autofree PyObject **results = g_new0(PyObject *, MAX(n_s, 1));
  if (!sources || !(targets = PyList_New(1)) || !(seeds = PyList_New(1)))
    goto done;
  PyList_SET_ITEM(targets, 0, Py_NewRef(target));
  bool ok = true;
  for (int64_t i = 0; ok && i < n; i++) {
    g_autoptr(TrTensor) index = tr_tensor_new_int64(i);
    PyObject *seed = seed_tensor(st, index, n, dtype, &tshape);
    if (!seed)
      goto done;
    PyList_SetItem(seeds, 0, seed); /* steals seed, drops the previous one */
    ok = tape_compute(st, t, targets, seeds, sources, results);
    for (Py_ssize_t j = 0; j < n_s; j++) {
      rows[j][i] = results[j];
      results[j] = NULL;
    }
  }
  if (!ok)
    goto done;
  tape_end_use(t);
  leaves = PyList_New(n_s);
  for (Py_ssize_t j = 0; leaves && j < n_s; j++) {
    PyObject *source = PyList_GET_ITEM(sources, j);
    TrShape sshape, full;
    PyObject *jac = NULL;
    if (tf_shape_of(st, source, &sshape) && concat_shapes(&tshape, &sshape, 0, &full))
      jac = stack_rows(st, rows[j], n, 0, &full, source, zeros);
    if (!jac) {
      Py_CLEAR(leaves);
      break;
    }
    PyList_SET_ITEM(leaves, j, jac);
  }
  Py_ssize_t next = 0;
  if (leaves)
    result = unflatten(source_arg, leaves, &next);
done:
  for (Py_ssize_t j = 0; j < n_s; j++) {
    for (int64_t i = 0; i < n; i++)
      Py_XDECREF(rows[j][i]);
    g_free(rows[j]);
  }
  g_free(rows);
  for (Py_ssize_t j = 0; j < n_s; j++)
    Py_XDECREF(results[j]);
  Py_XDECREF(leaves);
  Py_XDECREF(seeds);
  Py_XDECREF(targets);
  Py_XDECREF(sources);
  return result;
}

/* TensorShape.with_rank_at_least(2)'s error. */
static bool
check_rank_at_least_2(const TrShape *shape)
{
  if (shape->rank != TR_UNKNOWN && shape->rank < 2) {
    g_autofree char *text = tr_shape_to_string(shape);
    PyErr_Format(PyExc_ValueError, "Shape %s must have rank at least 2", text);
    return false;
  }
  return true;
}

static PyObject *
tape_batch_jacobian(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {
      "target", "source", "unconnected_gradients", "parallel_iterations", "experimental_use_pfor",
      NULL};
  PyObject *a[5];
  if (!tf_parse_args("batch_jacobian", args, nargs, kwnames, names, 2, a))
    return NULL;
  PyObject *target = a[0], *source = a[1];
  TfState *st = tf_state();
  TfTape *t = (TfTape *)self;
  int zeros = wants_zeros(a[2]);
  if (zeros < 0)
    return NULL;
  int use_pfor = a[4] ? PyObject_IsTrue(a[4]) : 1;
  if (use_pfor < 0)
    return NULL;
  if (!check_leaf(st, target, "targets") || !check_leaf(st, source, "sources"))
    return NULL;
  TrShape tshape, sshape;
  if (!tf_shape_of(st, target, &tshape) || !tf_shape_of(st, source, &sshape))
    return NULL;
  if (!check_rank_at_least_2(&tshape) || !check_rank_at_least_2(&sshape))
    return NULL;
  if (tshape.rank != TR_UNKNOWN && sshape.rank != TR_UNKNOWN && tshape.dims[0] != TR_UNKNOWN &&
      sshape.dims[0] != TR_UNKNOWN && tshape.dims[0] != sshape.dims[0]) {
    g_autofree char *ts = tr_shape_to_string(&tshape);
    g_autofree char *ss = tr_shape_to_string(&sshape);
    PyErr_Format(PyExc_ValueError,
                 "Need first dimension of target shape (%s) and source shape (%s) to match.", ts,
                 ss);
    return NULL;
  }
  if (!use_pfor && !tf_trace(st) && !t->persistent) {
    PyErr_SetString(PyExc_RuntimeError,
                    "GradientTape must be created with persistent=True to compute the "
                    "batch_jacobian with eager execution enabled and  with experimental_use_pfor "
                    "set to False.");
    return NULL;
  }
  if (!tape_begin_use(st, t) || !target_shape(st, target, &tshape) ||
      !target_shape(st, source, &sshape))
    return NULL;
  int64_t batch = tshape.dims[0];
  int64_t row = batch > 0 ? tr_shape_num_elements(&tshape) / batch : 0;
  TrShape full;
  if (!concat_shapes(&tshape, &sshape, 1, &full))
    return NULL;
  TrDType dtype = tf_dtype_of(st, target);
  PyObject *result = NULL, *targets = PyList_New(1), *seeds = PyList_New(1),
           *sources = PyList_New(1);
  PyObject **rows = g_new0(PyObject *, MAX(row, 1)); /* owned */
  g_autofree int64_t *column = g_new(int64_t, MAX(batch, 1));
  if (!targets || !seeds || !sources)
    goto done;
  PyList_SET_ITEM(targets, 0, Py_NewRef(target));
  PyList_SET_ITEM(sources, 0, Py_NewRef(source));
  bool ok = true;
  for (int64_t j = 0; ok && j < row; j++) {
    for (int64_t i = 0; i < batch; i++)
      column[i] = j;
    TrShape ishape = tr_shape_make(1, &batch);
    g_autoptr(TrTensor) indices = tr_tensor_new_from_data(TR_INT64, &ishape, column);
    PyObject *seed = seed_tensor(st, indices, row, dtype, &tshape);
    if (!seed)
      goto done;
    PyList_SetItem(seeds, 0, seed); /* steals seed, drops the previous one */
    ok = tape_compute(st, t, targets, seeds, sources, &rows[j]);
  }
  if (!ok)
    goto done;
  tape_end_use(t);
  result = stack_rows(st, rows, row, 1, &full, source, zeros);
  if (result == Py_None) { /* TensorFlow's answer when no row is connected: float32 zeros */
    Py_DECREF(result);
    TfOperand o;
    result = tf_operand_from_tensor(st, tr_tensor_new(TR_FLOAT32, &full), &o)
                 ? tf_operand_to_value(st, &o)
                 : NULL;
  }
done:
  for (int64_t j = 0; j < row; j++)
    Py_XDECREF(rows[j]);
  g_free(rows);
  Py_XDECREF(targets);
  Py_XDECREF(seeds);
  Py_XDECREF(sources);
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
  t->customs = g_array_new(FALSE, FALSE, sizeof(TracedCustom));
  g_array_set_clear_func(t->customs, traced_custom_clear);
  t->variables = PyList_New(0);
  t->pyrefs = PyList_New(0);
  if (!t->variables || !t->pyrefs) {
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
  Py_VISIT(((TfTape *)self)->pyrefs);
  return 0;
}

static int
tape_clear(PyObject *self)
{
  Py_CLEAR(((TfTape *)self)->variables);
  Py_CLEAR(((TfTape *)self)->pyrefs);
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
  g_clear_pointer(&t->customs, g_array_unref);
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
  TrDType dtype = tf_dtype_of(st, v);
  if (!tr_grad_dtype_is_differentiable(dtype)) {
    /* TensorFlow only warns (its first five times): such a tensor gets no gradient */
    if (st->watch_warnings < 5) {
      st->watch_warnings++;
      warn("The dtype of the watched tensor must be floating (e.g. tf.float32), got %R",
           tf_dtype_object(st, dtype));
    }
    return true;
  }
  TrOutput out;
  if (!tf_tensor_value(v))
    out = tf_symbolic_output(v);
  else if (!capture_in_tape_graph(st, t, v, &out))
    return !PyErr_Occurred();
  if (out.node) {
    g_hash_table_add(t->watched_outs, g_memdup2(&out, sizeof out));
    return true;
  }
  tape_value_handle(t, tf_tensor_value(v))->tracked = true;
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
    {"jacobian", (PyCFunction)(void (*)(void))tape_jacobian, METH_FASTCALL | METH_KEYWORDS,
     PyDoc_STR("jacobian($self, /, target, sources, unconnected_gradients='none',\n"
               "         parallel_iterations=None, experimental_use_pfor=True)\n--\n\n"
               "Computes the jacobian using operations recorded in context of this tape.")},
    {"batch_jacobian", (PyCFunction)(void (*)(void))tape_batch_jacobian,
     METH_FASTCALL | METH_KEYWORDS,
     PyDoc_STR("batch_jacobian($self, /, target, source, unconnected_gradients='none',\n"
               "               parallel_iterations=None, experimental_use_pfor=True)\n--\n\n"
               "Computes and stacks per-example jacobians.")},
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

/* ---- tf.stop_gradient --------------------------------------------------------------------- */

static PyObject *
stop_gradient(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"input", "name", NULL};
  PyObject *a[2];
  if (!tf_parse_args("stop_gradient", args, nargs, kwnames, names, 1, a))
    return NULL;
  const char *name = a[1] && a[1] != Py_None ? PyUnicode_AsUTF8(a[1]) : NULL;
  if (!name && PyErr_Occurred())
    return NULL;
  TfState *st = tf_state();
  TfOperand o;
  if (!tf_operand(st, a[0], TR_DTYPE_INVALID, false, &o))
    return NULL;
  PyObject *r = tf_apply(st, TR_OP_STOP_GRADIENT, &o, 1, NULL, name);
  tf_operand_clear(&o);
  return r;
}

/* ---- tf.custom_gradient ---------------------------------------------------------------------
 * The decorated function returns (y, grad_fn). Its outputs become values of their own (fresh
 * tensors eagerly, Identity nodes while tracing) that every tape recording it gets one record
 * for: inputs the flat arguments and the values of the trainable variables the function read,
 * outputs those values, gradient grad_fn. grad_fn is called with one upstream gradient per
 * output (zeros where none flows) and, when the function read variables, `variables=`; it
 * returns one gradient per flat argument (and then one per variable). The operations inside the
 * function are recorded as usual, but no gradient reaches them through the outputs. */

void
tf_watch_variable_read(TfState *st, PyObject *variable)
{
  if (!((TfVariable *)variable)->var->trainable)
    return;
  int found = PySequence_Contains(st->variable_watch, variable);
  if (found == 0 && PyList_Append(st->variable_watch, variable) < 0)
    found = -1;
  if (found < 0)
    PyErr_Clear(); /* only grad_fn's `variables` misses it */
}

/* What a custom record's gradient needs: (grad_fn, [variables], number of flat arguments). */
enum { INFO_GRAD_FN, INFO_VARIABLES, INFO_N_ARGS };

/* Calls grad_fn on `upstream` (a list): a new list of n_inputs gradients (tensors or None), or
 * NULL with an exception set. */
static PyObject *
call_grad_fn(PyObject *info, PyObject *upstream, int n_inputs)
{
  PyObject *grad_fn = PyTuple_GET_ITEM(info, INFO_GRAD_FN);
  PyObject *variables = PyTuple_GET_ITEM(info, INFO_VARIABLES);
  Py_ssize_t n_args = PyLong_AsSsize_t(PyTuple_GET_ITEM(info, INFO_N_ARGS));
  Py_ssize_t n_vars = PyList_GET_SIZE(variables);
  PyObject *args = PyList_AsTuple(upstream), *kwargs = NULL, *ret = NULL, *flat = NULL;
  PyObject *input_grads = NULL, *var_grads = NULL;
  if (!args)
    goto fail;
  if (n_vars > 0) {
    kwargs = Py_BuildValue("{sO}", "variables", variables);
    if (!kwargs || !(ret = PyObject_Call(grad_fn, args, kwargs)))
      goto fail;
    PyObject *pair = PySequence_Fast(ret, "cannot unpack the result of grad_fn"); /* owned */
    if (!pair)
      goto fail;
    if (PySequence_Fast_GET_SIZE(pair) != 2) {
      PyErr_Format(PyExc_ValueError, "%s values to unpack (expected 2)",
                   PySequence_Fast_GET_SIZE(pair) < 2 ? "not enough" : "too many");
      Py_DECREF(pair);
      goto fail;
    }
    input_grads = Py_NewRef(PySequence_Fast_GET_ITEM(pair, 0));
    var_grads = PySequence_List(PySequence_Fast_GET_ITEM(pair, 1));
    Py_DECREF(pair);
    if (!var_grads)
      goto fail;
    if (PyList_GET_SIZE(var_grads) != n_vars) {
      PyErr_SetString(PyExc_ValueError,
                      "Must return gradient for each variable from @custom_gradient grad_fn.");
      goto fail;
    }
  } else {
    if (!(input_grads = PyObject_Call(grad_fn, args, NULL)))
      goto fail;
    var_grads = PyList_New(0);
  }
  flat = PyList_New(0);
  if (!flat || !var_grads || !flatten(input_grads, flat))
    goto fail;
  if (PyList_GET_SIZE(flat) != n_args) {
    PyErr_Format(PyExc_ValueError,
                 "custom_gradient function expected to return %zd gradients, but returned %zd "
                 "instead.",
                 n_args, PyList_GET_SIZE(flat));
    goto fail;
  }
  if (PyList_SetSlice(flat, n_args, n_args, var_grads) < 0)
    goto fail;
  if (PyList_GET_SIZE(flat) != n_inputs) {
    PyErr_SetString(PyExc_ValueError, "custom_gradient: the gradients do not match the inputs");
    goto fail;
  }
  Py_DECREF(args);
  Py_XDECREF(kwargs);
  Py_XDECREF(ret);
  Py_DECREF(input_grads);
  Py_DECREF(var_grads);
  return flat;
fail:
  Py_XDECREF(args);
  Py_XDECREF(kwargs);
  Py_XDECREF(ret);
  Py_XDECREF(input_grads);
  Py_XDECREF(var_grads);
  Py_XDECREF(flat);
  return NULL;
}

/* The gradient of an eager custom record: ctx is the eager Builder. */
static bool
custom_eager(void *ctx, const TrGradRecord *r, void *const *dy, void **dx, GError **error)
{
  Builder *b = ctx;
  TfState *st = b->st;
  PyObject *upstream = PyList_New(r->n_outputs), *grads = NULL;
  for (int k = 0; upstream && k < r->n_outputs; k++) {
    const TapeHandle *h = dy[k];
    if (!h && !(h = builder_apply(ctx, TR_OP_ZEROS_LIKE, &r->outputs[k], 1, NULL, error)))
      goto fail;
    PyObject *g = tf_tensor_new(st, tr_tensor_ref(h->o.value));
    if (!g)
      goto raised;
    PyList_SET_ITEM(upstream, k, g);
  }
  if (!upstream || !(grads = call_grad_fn(r->custom_data, upstream, r->n_inputs)))
    goto raised;
  for (int i = 0; i < r->n_inputs; i++) {
    PyObject *g = PyList_GET_ITEM(grads, i);
    dx[i] = NULL;
    if (g == Py_None)
      continue;
    TfOperand o;
    if (!tf_operand(st, g, TR_DTYPE_INVALID, false, &o))
      goto raised;
    dx[i] = builder_take(b, &o);
  }
  Py_DECREF(upstream);
  Py_DECREF(grads);
  return true;
raised:
  g_set_error_literal(error, RAISED_QUARK, 0, "raised");
fail:
  Py_XDECREF(upstream);
  Py_XDECREF(grads);
  return false;
}

/* The gradient of a traced custom record: ctx is the graph builder of the tape's graph, which is
 * being traced; grad_fn's ops join it. */
static bool
custom_traced(void *ctx, const TrGradRecord *r, void *const *dy, void **dx, GError **error)
{
  TfState *st = tf_state();
  PyObject *upstream = PyList_New(r->n_outputs), *grads = NULL;
  for (int k = 0; upstream && k < r->n_outputs; k++) {
    void *h = dy[k];
    if (!h &&
        !(h = tr_grad_graph_builder.apply(ctx, TR_OP_ZEROS_LIKE, &r->outputs[k], 1, NULL, error)))
      goto fail;
    TrOutput out = tr_grad_graph_output(h);
    PyObject *g = tf_symbolic_new(st, out.node->graph, out);
    if (!g)
      goto raised;
    PyList_SET_ITEM(upstream, k, g);
  }
  if (!upstream || !(grads = call_grad_fn(r->custom_data, upstream, r->n_inputs)))
    goto raised;
  for (int i = 0; i < r->n_inputs; i++) {
    PyObject *g = PyList_GET_ITEM(grads, i);
    dx[i] = NULL;
    if (g == Py_None)
      continue;
    TfOperand o;
    if (!tf_operand(st, g, TR_DTYPE_INVALID, false, &o))
      goto raised;
    dx[i] = tr_grad_graph_handle(ctx, o.out);
    tf_operand_clear(&o);
  }
  Py_DECREF(upstream);
  Py_DECREF(grads);
  return true;
raised:
  g_set_error_literal(error, RAISED_QUARK, 0, "raised");
fail:
  Py_XDECREF(upstream);
  Py_XDECREF(grads);
  return false;
}

/* Whether grad_fn takes `variables` (a parameter of that name, or **kwargs). -1 with an
 * exception. */
static int
takes_variables(PyObject *grad_fn)
{
  PyObject *inspect = PyImport_ImportModule("inspect");
  PyObject *spec = inspect ? PyObject_CallMethod(inspect, "getfullargspec", "O", grad_fn) : NULL;
  Py_XDECREF(inspect);
  if (!spec)
    return -1;
  int r = -1;
  PyObject *args = PyObject_GetAttrString(spec, "args");
  PyObject *kwonly = args ? PyObject_GetAttrString(spec, "kwonlyargs") : NULL;
  PyObject *varkw = kwonly ? PyObject_GetAttrString(spec, "varkw") : NULL;
  PyObject *key = varkw ? PyUnicode_FromString("variables") : NULL;
  if (key) {
    r = varkw != Py_None;
    if (!r)
      r = PySequence_Contains(args, key);
    if (r == 0)
      r = PySequence_Contains(kwonly, key);
  }
  Py_XDECREF(key);
  Py_XDECREF(varkw);
  Py_XDECREF(kwonly);
  Py_XDECREF(args);
  Py_DECREF(spec);
  return r;
}

/* The flat arguments of a call: positional ones, then keyword ones in sorted key order (as
 * tf.nest flattens a dict). A new list, or NULL. */
static PyObject *
flat_arguments(PyObject *args, PyObject *kwargs)
{
  PyObject *flat = PyList_New(0);
  if (flat && !flatten(args, flat))
    Py_CLEAR(flat);
  if (flat && kwargs && PyDict_GET_SIZE(kwargs) > 0 && !flatten(kwargs, flat))
    Py_CLEAR(flat);
  return flat;
}

/* The variables among those read that are not arguments themselves (new list), or NULL. */
static PyObject *
variables_not_arguments(PyObject *watched, PyObject *flat_args)
{
  PyObject *vars = PyList_New(0);
  for (Py_ssize_t i = 0; vars && i < PyList_GET_SIZE(watched); i++) {
    PyObject *v = PyList_GET_ITEM(watched, i);
    bool is_arg = false;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(flat_args) && !is_arg; k++)
      is_arg = PyList_GET_ITEM(flat_args, k) == v;
    if (!is_arg && PyList_Append(vars, v) < 0)
      Py_CLEAR(vars);
  }
  return vars;
}

/* Eagerly: the outputs as tensors of their own, and a record on every tape that tracks an
 * input. `outs` receives the new output tensors (a list). */
static bool
record_custom_eager(TfState *st, PyObject *info, const TfOperand *in, int n_in, PyObject *flat_res,
                    PyObject *outs)
{
  int n_out = (int)PyList_GET_SIZE(flat_res);
  g_autofree TrTensor **values = g_new0(TrTensor *, MAX(n_out, 1)); /* borrowed from outs */
  for (int k = 0; k < n_out; k++) {
    TfOperand o;
    if (!tf_operand(st, PyList_GET_ITEM(flat_res, k), TR_DTYPE_INVALID, false, &o))
      return false;
    TrTensor *v = o.value; /* taken over */
    fresh_header(&v);
    PyObject *t = tf_tensor_new(st, v);
    if (!t || PyList_Append(outs, t) < 0) {
      Py_XDECREF(t);
      return false;
    }
    Py_DECREF(t);
    values[k] = v;
  }
  g_autofree TapeHandle **ins = g_new(TapeHandle *, MAX(n_in, 1));
  g_autofree TapeHandle **res = g_new(TapeHandle *, MAX(n_out, 1));
  for (TfTape *t = st->tapes; t; t = t->next) {
    if (!tape_recording(st, t) || !tracks_any_input(t, in, n_in))
      continue;
    if (PyList_Append(t->pyrefs, info) < 0)
      return false;
    for (int i = 0; i < n_in; i++)
      ins[i] = tape_value_handle(t, in[i].value);
    for (int k = 0; k < n_out; k++)
      res[k] = tape_value_handle(t, values[k]);
    tape_add_record(t, TR_GRAD_CUSTOM, NULL, ins, n_in, res, n_out, NULL);
    TrGradRecord *r = &g_array_index(t->records, TrGradRecord, t->records->len - 1);
    r->custom = custom_eager;
    r->custom_data = info;
  }
  return true;
}

/* Whether tape `t` records the graph being traced now. */
static bool
tape_records_trace(TfTape *t, TfTrace *tr)
{
  return t->active && !t->paused && !t->computing && t->graph == tr->graph;
}

/* While tracing: the outputs as Identity nodes outside every tape's windows, and a custom
 * record on every tape recording this graph. */
static bool
record_custom_traced(TfState *st, TfTrace *tr, PyObject *info, const TfOperand *in, int n_in,
                     PyObject *flat_res, PyObject *outs)
{
  int n_out = (int)PyList_GET_SIZE(flat_res);
  for (TfTape *t = st->tapes; t; t = t->next)
    if (tape_records_trace(t, tr))
      close_window(t);
  bool ok = true;
  for (int k = 0; ok && k < n_out; k++) {
    TfOperand o;
    ok = tf_operand(st, PyList_GET_ITEM(flat_res, k), TR_DTYPE_INVALID, false, &o);
    PyObject *id = ok ? tf_apply(st, TR_OP_IDENTITY, &o, 1, NULL, "IdentityN") : NULL;
    if (ok)
      tf_operand_clear(&o);
    ok = id && PyList_Append(outs, id) == 0;
    Py_XDECREF(id);
  }
  for (TfTape *t = st->tapes; t; t = t->next) {
    if (!tape_records_trace(t, tr))
      continue;
    open_window(t);
    if (!ok)
      continue;
    if (PyList_Append(t->pyrefs, info) < 0) {
      ok = false;
      continue;
    }
    TracedCustom c = {n_in, n_out, g_new(TrOutput, MAX(n_in, 1)), g_new(TrOutput, MAX(n_out, 1)),
                      info};
    for (int i = 0; i < n_in; i++)
      c.inputs[i] = in[i].out;
    for (int k = 0; k < n_out; k++)
      c.outputs[k] = tf_symbolic_output(PyList_GET_ITEM(outs, k));
    g_array_append_val(t->customs, c);
  }
  return ok;
}

/* Calls a custom-gradient function `f` (see above). A new reference, or NULL. */
static PyObject *
custom_gradient_call(TfState *st, PyObject *f, PyObject *args, PyObject *kwargs)
{
  TfTrace *tr = tf_trace(st);
  if (tr && kwargs && PyDict_GET_SIZE(kwargs) > 0) {
    PyErr_SetString(PyExc_ValueError, "The custom_gradient decorator currently supports keywords "
                                      "arguments only when eager execution is enabled.");
    return NULL;
  }
  PyObject *watched = PyList_New(0);
  if (!watched)
    return NULL;
  /* The state holds a reference on the innermost list (its m_traverse visits it); the outer
   * list's reference is kept here while f runs and handed back after. */
  PyObject *outer_watch = st->variable_watch;
  st->variable_watch = Py_NewRef(watched);
  PyObject *pair = PyObject_Call(f, args, kwargs);
  Py_DECREF(st->variable_watch);
  st->variable_watch = outer_watch;
  /* An enclosing custom_gradient's function read them too. */
  for (Py_ssize_t i = 0; outer_watch && i < PyList_GET_SIZE(watched); i++)
    tf_watch_variable_read(st, PyList_GET_ITEM(watched, i));
  PyObject *result = NULL, *flat_args = NULL, *vars = NULL, *flat_res = NULL, *outs = NULL;
  PyObject *info = NULL, *seq = NULL;
  TfOperand *in = NULL;
  int n_in = 0, n_converted = 0;
  if (!pair)
    goto done;
  if (!PyTuple_Check(pair) && !PyList_Check(pair)) {
    PyErr_Format(PyExc_TypeError, "cannot unpack non-iterable %s object", Py_TYPE(pair)->tp_name);
    goto done;
  }
  seq = PySequence_Fast(pair, "");
  if (!seq)
    goto done;
  if (PySequence_Fast_GET_SIZE(seq) != 2) {
    if (PySequence_Fast_GET_SIZE(seq) < 2)
      PyErr_Format(PyExc_ValueError, "not enough values to unpack (expected 2, got %zd)",
                   PySequence_Fast_GET_SIZE(seq));
    else
      PyErr_SetString(PyExc_ValueError, "too many values to unpack (expected 2)");
    goto done;
  }
  PyObject *res = PySequence_Fast_GET_ITEM(seq, 0), *grad_fn = PySequence_Fast_GET_ITEM(seq, 1);
  if (!(flat_args = flat_arguments(args, kwargs)) ||
      !(vars = variables_not_arguments(watched, flat_args)))
    goto done;
  if (PyList_GET_SIZE(vars) > 0) {
    int ok = takes_variables(grad_fn);
    if (ok < 0)
      goto done;
    if (!ok) {
      PyErr_Format(PyExc_TypeError,
                   "@tf.custom_gradient grad_fn must accept keyword argument 'variables', since "
                   "function uses variables: %R",
                   vars);
      goto done;
    }
  }
  Py_ssize_t n_args = PyList_GET_SIZE(flat_args);
  n_in = (int)(n_args + PyList_GET_SIZE(vars));
  in = g_new0(TfOperand, MAX(n_in, 1));
  for (; n_converted < n_in; n_converted++) {
    PyObject *v = n_converted < n_args ? PyList_GET_ITEM(flat_args, n_converted)
                                       : PyList_GET_ITEM(vars, n_converted - n_args);
    if (!tf_operand(st, v, TR_DTYPE_INVALID, false, &in[n_converted]))
      goto done;
  }
  info = Py_BuildValue("(OOn)", grad_fn, vars, n_args);
  flat_res = PyList_New(0);
  outs = PyList_New(0);
  if (!info || !flat_res || !outs || !flatten(res, flat_res))
    goto done;
  bool ok = tr ? record_custom_traced(st, tr, info, in, n_in, flat_res, outs)
               : record_custom_eager(st, info, in, n_in, flat_res, outs);
  Py_ssize_t next = 0;
  if (ok)
    result = unflatten(res, outs, &next);
done:
  if (in)
    tf_operands_clear(in, n_converted);
  g_free(in);
  Py_XDECREF(info);
  Py_XDECREF(outs);
  Py_XDECREF(flat_res);
  Py_XDECREF(vars);
  Py_XDECREF(flat_args);
  Py_XDECREF(seq);
  Py_XDECREF(pair);
  Py_DECREF(watched);
  return result;
}

/* What tf.custom_gradient(f) returns: calling it calls f as above; as a class attribute it binds
 * like a function; functools.update_wrapper gives it f's name and docstring. */
typedef struct {
  PyObject_HEAD
  PyObject *f;    /* the decorated function (owned) */
  PyObject *dict; /* __dict__ (owned, or NULL until used) */
} CustomGradient;

static PyObject *
cg_call(PyObject *self, PyObject *args, PyObject *kwargs)
{
  return custom_gradient_call(tf_state(), ((CustomGradient *)self)->f, args, kwargs);
}

static PyObject *
cg_descr_get(PyObject *self, PyObject *obj, PyObject *type)
{
  if (!obj || obj == Py_None)
    return Py_NewRef(self);
  return PyMethod_New(self, obj);
}

static int
cg_traverse(PyObject *self, visitproc visit, void *arg)
{
  Py_VISIT(Py_TYPE(self));
  Py_VISIT(((CustomGradient *)self)->f);
  Py_VISIT(((CustomGradient *)self)->dict);
  return 0;
}

static int
cg_clear(PyObject *self)
{
  Py_CLEAR(((CustomGradient *)self)->f);
  Py_CLEAR(((CustomGradient *)self)->dict);
  return 0;
}

static void
cg_dealloc(PyObject *self)
{
  PyTypeObject *type = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  cg_clear(self);
  PyObject_GC_Del(self);
  Py_DECREF(type);
}

static PyMemberDef cg_members[] = {
    {"__dictoffset__", T_PYSSIZET, offsetof(CustomGradient, dict), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot cg_slots[] = {
    {Py_tp_call, cg_call},
    {Py_tp_descr_get, cg_descr_get},
    {Py_tp_dealloc, cg_dealloc},
    {Py_tp_traverse, cg_traverse},
    {Py_tp_clear, cg_clear},
    {Py_tp_members, cg_members},
    {0, NULL},
};

static PyType_Spec cg_spec = {
    .name = "tensorflow._CustomGradient",
    .basicsize = sizeof(CustomGradient),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = cg_slots,
};

static PyObject *
custom_gradient(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"f", NULL};
  PyObject *f;
  if (!tf_parse_args("custom_gradient", args, nargs, kwnames, names, 0, &f))
    return NULL;
  if (!f || f == Py_None) { /* @tf.custom_gradient(): a decorator */
    PyObject *functools = PyImport_ImportModule("functools");
    PyObject *self = functools ? PyObject_GetAttrString(module, "custom_gradient") : NULL;
    PyObject *r = self ? PyObject_CallMethod(functools, "partial", "O", self) : NULL;
    Py_XDECREF(self);
    Py_XDECREF(functools);
    return r;
  }
  if (!PyCallable_Check(f)) {
    PyErr_Format(PyExc_TypeError, "'%s' object is not callable", Py_TYPE(f)->tp_name);
    return NULL;
  }
  TfState *st = tf_state();
  CustomGradient *cg = PyObject_GC_New(CustomGradient, st->CustomGradient);
  if (!cg)
    return NULL;
  cg->f = Py_NewRef(f);
  cg->dict = NULL;
  PyObject_GC_Track(cg);
  PyObject *functools = PyImport_ImportModule("functools");
  PyObject *r =
      functools ? PyObject_CallMethod(functools, "update_wrapper", "OO", (PyObject *)cg, f) : NULL;
  Py_XDECREF(functools);
  if (!r)
    PyErr_Clear(); /* a callable without a name: the wrapper works unnamed */
  Py_XDECREF(r);
  return (PyObject *)cg;
}

/* ---- tf.UnconnectedGradients ---------------------------------------------------------------- */

/* The enum TensorFlow defines in Python: NONE = "none", ZERO = "zero". A new reference. */
static PyObject *
make_unconnected_gradients(void)
{
  PyObject *enum_mod = PyImport_ImportModule("enum");
  PyObject *members = Py_BuildValue("[(ss)(ss)]", "NONE", "none", "ZERO", "zero");
  PyObject *cls = enum_mod && members
                      ? PyObject_CallMethod(enum_mod, "Enum", "sO", "UnconnectedGradients", members)
                      : NULL;
  Py_XDECREF(members);
  Py_XDECREF(enum_mod);
  if (cls) {
    PyObject *doc = PyUnicode_FromString(
        "Controls how gradient computation behaves when y does not depend on x.\n\n"
        "The gradient of y with respect to x can be zero in two different ways: there could be "
        "no differentiable path in the graph connecting x to y (and so we can statically prove "
        "that the gradient is zero) or it could be that runtime values of tensors in a "
        "particular execution lead to a gradient of zero (say, if a relu unit happens to not be "
        "activated). To allow you to distinguish between these two cases you can choose what "
        "value gets returned for the gradient when there is no path in the graph from x to y:\n\n"
        "* `NONE`: Indicates that [None] will be returned if there is no path from x to y\n"
        "* `ZERO`: Indicates that a zero tensor will be returned in the shape of x.");
    PyObject *module = PyUnicode_FromString("tensorflow");
    if (!doc || !module || PyObject_SetAttrString(cls, "__doc__", doc) < 0 ||
        PyObject_SetAttrString(cls, "__module__", module) < 0)
      PyErr_Clear(); /* only the class's help text and repr are affected */
    Py_XDECREF(module);
    Py_XDECREF(doc);
  }
  return cls;
}

static PyMethodDef gradient_functions[] = {
    {"stop_gradient", (PyCFunction)(void (*)(void))stop_gradient, METH_FASTCALL | METH_KEYWORDS,
     PyDoc_STR("stop_gradient(input, name=None)\n--\n\nStops gradient computation.")},
    {"custom_gradient", (PyCFunction)(void (*)(void))custom_gradient, METH_FASTCALL | METH_KEYWORDS,
     PyDoc_STR("custom_gradient(f=None)\n--\n\nDecorator to define a function with a custom "
               "gradient.")},
    {NULL, NULL, 0, NULL},
};

int
tf_gradient_init(PyObject *module, TfState *st)
{
  st->StopRecording = (PyTypeObject *)PyType_FromModuleAndSpec(module, &stop_spec, NULL);
  if (!st->StopRecording)
    return -1;
  st->CustomGradient = (PyTypeObject *)PyType_FromModuleAndSpec(module, &cg_spec, NULL);
  if (!st->CustomGradient)
    return -1;
  st->GradientTape = (PyTypeObject *)PyType_FromModuleAndSpec(module, &tape_spec, NULL);
  if (!st->GradientTape || PyModule_AddType(module, st->GradientTape) < 0)
    return -1;
  st->UnconnectedGradients = make_unconnected_gradients();
  if (!st->UnconnectedGradients ||
      PyModule_AddObjectRef(module, "UnconnectedGradients", st->UnconnectedGradients) < 0)
    return -1;
  return PyModule_AddFunctions(module, gradient_functions);
}

void
tf_gradient_clear(TfState *st)
{
  while (st->tapes) /* tapes left inside their `with` (an abandoned generator, a cell killed) */
    tape_unlink(st, st->tapes);
  Py_CLEAR(st->GradientTape);
  Py_CLEAR(st->StopRecording);
  Py_CLEAR(st->CustomGradient);
  Py_CLEAR(st->UnconnectedGradients);
  Py_CLEAR(st->variable_watch);
}
