/* lang-tf-graph.c — the op dispatcher of the tensorflow module: one op, two paths.
 *
 * Outside a trace, operands are concrete tensors and lang_tf_apply() runs the op's kernel.
 * While a Function traces, operands are outputs of the graph being built and lang_tf_apply()
 * adds a node: concrete tensors met on the way (globals, Python numbers) become Const nodes,
 * Variables a ReadVariableOp of their captured handle. A symbolic tensor of any other graph is a
 * leaked tensor, and using it is TensorFlow's TypeError.
 */
#include "lang-tf-private.h"

#include <string.h>

/* ---- session state ---------------------------------------------------------------------- */

static void
tf_state_free(void *data)
{
  LangTfState *st = data;
  tr_fn_registry_unref(st->registry);
  tr_event_bus_unref(st->bus);
  g_free(st);
}

LangTfState *
lang_tf_state(LangState *L)
{
  if (G_UNLIKELY(!L->tf)) {
    LangTfState *st = g_new0(LangTfState, 1);
    st->bus = tr_event_bus_new();
    /* Nothing is kept unless a host asks (the command line's --events, the kernel's
     * publisher): events nobody receives are not even made. */
    tr_event_bus_set_history_limit(st->bus, 0);
    st->registry = tr_fn_registry_new(st->bus);
    L->tf = st;
    L->tf_free = tf_state_free;
  }
  return L->tf;
}

bool
lang_tf_use_event_bus(LangState *L, TrEventBus *bus)
{
  g_return_val_if_fail(bus != NULL, false);
  if (L->tf)
    return false;
  LangTfState *st = g_new0(LangTfState, 1);
  st->bus = tr_event_bus_ref(bus);
  st->registry = tr_fn_registry_new(st->bus);
  L->tf = st;
  L->tf_free = tf_state_free;
  return true;
}

TrEventBus *
lang_tf_event_bus(LangState *L)
{
  return lang_tf_state(L)->bus;
}

TrFnRegistry *
lang_tf_registry(LangState *L)
{
  return lang_tf_state(L)->registry;
}

void
lang_tf_set_cell(LangState *L, gint64 cell)
{
  lang_tf_state(L)->cell = cell;
}

gint64
lang_tf_get_cell(LangState *L)
{
  return lang_tf_state(L)->cell;
}

/* ---- symbolic tensors -------------------------------------------------------------------- */

LangValue
lang_tf_symbolic_new(LangState *L, TrGraph *graph, TrOutput out)
{
  LangTfTensor *o =
      (LangTfTensor *)lang_object_alloc(L, &lang_tf_tensor_type, sizeof(LangTfTensor));
  o->value = NULL;
  o->graph = tr_graph_ref(graph);
  o->out = out;
  return lang_obj(o);
}

TrGraph *
lang_tf_symbolic_graph(LangValue v)
{
  return ((LangTfTensor *)v.o)->graph;
}

TrOutput
lang_tf_symbolic_output(LangValue v)
{
  return ((LangTfTensor *)v.o)->out;
}

TrDType
lang_tf_dtype_of(LangValue v)
{
  if (lang_tf_is_tensor(v)) {
    LangTfTensor *t = (LangTfTensor *)v.o;
    return t->value ? t->value->dtype : tr_output_dtype(t->out);
  }
  if (lang_tf_is_variable(v))
    return ((LangTfVariable *)v.o)->var->dtype;
  return TR_DTYPE_INVALID;
}

bool
lang_tf_shape_of(LangValue v, TrShape *out)
{
  if (lang_tf_is_tensor(v)) {
    LangTfTensor *t = (LangTfTensor *)v.o;
    *out = t->value ? t->value->shape : *tr_output_shape(t->out);
    return true;
  }
  if (lang_tf_is_variable(v)) {
    *out = ((LangTfVariable *)v.o)->var->shape;
    return true;
  }
  return false;
}

/* ---- errors ------------------------------------------------------------------------------ */

LangValue
lang_tf_raise_graph_error(LangState *L, GError *error)
{
  LangType *type = error->code == TR_GRAPH_ERROR_VALUE ? &lang_exc_ValueError : &lang_exc_TypeError;
  lang_raise_str(L, type, error->message);
  g_error_free(error);
  return LANG_EXC;
}

LangValue
lang_tf_raise_any(LangState *L, GError *error)
{
  if (error->domain == TR_GRAPH_ERROR)
    return lang_tf_raise_graph_error(L, error);
  return lang_tf_raise_error(L, error);
}

/* A symbolic tensor used where its graph is not being built. */
static bool
raise_leaked(LangState *L, LangValue v)
{
  TrOutput out = lang_tf_symbolic_output(v);
  g_autofree char *name = tr_output_name(out);
  if (!lang_tf_trace(L)) {
    lang_raise(L, &lang_exc_TypeError,
               "An op outside of the function building code is being passed a \"Graph\" "
               "tensor. It is possible to have Graph tensors leak out of the function building "
               "context by including a tf.init_scope in your function building code, or by "
               "storing a tensor of a traced function in a global, a list or an attribute. "
               "Return it from the function instead.\nThe graph tensor has name: %s",
               name);
    return false;
  }
  lang_raise(L, &lang_exc_TypeError,
             "tf.Graph captured an external symbolic tensor. The symbolic tensor '%s' created "
             "by node '%s' is captured by the tf.Graph being built as an input. But a tf.Graph "
             "is not allowed to take symbolic tensors from another graph as its inputs. Make "
             "sure all captured inputs of the tf.Graph are not symbolic tensors. Use return "
             "values, explicit Python locals or TensorFlow collections to access it. Please "
             "see https://www.tensorflow.org/guide/"
             "function#all_outputs_of_a_tffunction_must_be_return_values for more information.",
             name, out.node->name);
  return false;
}

/* ---- operands ---------------------------------------------------------------------------- */

void
lang_tf_operand_clear(LangTfOperand *o)
{
  if (o->value)
    tr_tensor_unref(o->value);
  o->value = NULL;
}

void
lang_tf_operands_clear(LangTfOperand *o, int n)
{
  for (int i = 0; i < n; i++)
    lang_tf_operand_clear(&o[i]);
}

/* Copies the used part of a shape (operands are made on every op: no 264-byte copies). */
static inline void
shape_copy(TrShape *dst, const TrShape *src)
{
  dst->rank = src->rank;
  if (src->rank > 0)
    memcpy(dst->dims, src->dims, sizeof(int64_t) * (size_t)src->rank);
}

static void
operand_from_output(LangTfOperand *o, TrOutput out)
{
  o->value = NULL;
  o->out = out;
  o->dtype = tr_output_dtype(out);
  shape_copy(&o->shape, tr_output_shape(out));
}

static inline void
operand_clear_fields(LangTfOperand *o)
{
  o->value = NULL;
  o->out.node = NULL;
  o->out.index = 0;
  o->dtype = TR_DTYPE_INVALID;
  o->shape.rank = 0;
}

bool
lang_tf_operand_from_tensor(LangState *L, TrTensor *t, LangTfOperand *out)
{
  LangTfTrace *tr = lang_tf_trace(L);
  operand_clear_fields(out);
  if (!tr) {
    out->value = t;
    out->dtype = t->dtype;
    shape_copy(&out->shape, &t->shape);
    return true;
  }
  TrNode *node = g_hash_table_lookup(tr->consts, t);
  if (!node) {
    node = tr_graph_add_const(tr->graph, t, NULL);
    g_hash_table_insert(tr->consts, t, node);
  }
  tr_tensor_unref(t); /* the Const node holds it */
  operand_from_output(out, tr_node_output(node, 0));
  return true;
}

static bool
check_requested_dtype(LangState *L, LangValue v, TrDType have, TrDType dtype, bool hint)
{
  if (dtype == TR_DTYPE_INVALID || hint || have == dtype)
    return true;
  LangValue r = lang_repr(L, v);
  if (!lang_is_exc(r)) {
    lang_raise(L, &lang_exc_ValueError,
               "Tensor conversion requested dtype %s for Tensor with dtype %s: %s",
               tr_dtype_name(dtype), tr_dtype_name(have), lang_str_text(r));
    lang_decref(r);
  }
  return false;
}

/* `*out`, an output of `g`, as a tensor of trace `tr`'s graph: a loop body takes a tensor of an
 * enclosing graph through a placeholder (recursively through nested loop bodies). False when
 * `g` is not an enclosing graph of tr (a leaked tensor). */
static bool
capture(LangTfTrace *tr, TrGraph *g, TrOutput *out)
{
  if (tr->graph == g)
    return true;
  if (!tr->captures || !tr->outer)
    return false;
  TrOutput outer = *out;
  if (!capture(tr->outer, g, &outer))
    return false;
  for (guint i = 0; i < tr->captures->len; i++) {
    LangTfCapture *c = &g_array_index(tr->captures, LangTfCapture, i);
    if (c->outer.node == outer.node && c->outer.index == outer.index) {
      *out = tr_node_output(c->inner, 0);
      return true;
    }
  }
  LangTfCapture c = {outer, tr_graph_add_placeholder(tr->graph, tr_output_dtype(outer),
                                                     tr_output_shape(outer), outer.node->name)};
  g_array_append_val(tr->captures, c);
  *out = tr_node_output(c.inner, 0);
  return true;
}

bool
lang_tf_operand(LangState *L, LangValue v, TrDType dtype, bool hint, LangTfOperand *out)
{
  LangTfTrace *tr = lang_tf_trace(L);
  operand_clear_fields(out);
  if (!tr && lang_tf_is_tensor(v) && ((LangTfTensor *)v.o)->value) {
    /* The common eager case: a concrete tensor. */
    TrTensor *t = ((LangTfTensor *)v.o)->value;
    if (!check_requested_dtype(L, v, t->dtype, dtype, hint))
      return false;
    out->value = tr_tensor_ref(t);
    out->dtype = t->dtype;
    shape_copy(&out->shape, &t->shape);
    return true;
  }
  if (lang_tf_is_variable(v)) {
    TrVariable *var = ((LangTfVariable *)v.o)->var;
    if (!check_requested_dtype(L, v, var->dtype, dtype, hint))
      return false;
    if (!tr) {
      TrTensor *value = tr_variable_read(var);
      if (G_UNLIKELY(lang_tf_state(L)->tapes))
        lang_tf_tape_read_variable(L, v, &value);
      return lang_tf_operand_from_tensor(L, value, out);
    }
    TrNode *handle = tr_graph_capture_variable(tr->graph, var, var->name);
    GError *error = NULL;
    TrNode *read = tr_graph_add_read_variable(tr->graph, tr_node_output(handle, 0), NULL, &error);
    if (!read) {
      lang_tf_raise_graph_error(L, error);
      return false;
    }
    operand_from_output(out, tr_node_output(read, 0));
    return true;
  }
  if (lang_tf_is_symbolic(v)) {
    TrOutput o = lang_tf_symbolic_output(v);
    if (!tr ||
        (lang_tf_symbolic_graph(v) != tr->graph && !capture(tr, lang_tf_symbolic_graph(v), &o)))
      return raise_leaked(L, v);
    if (!check_requested_dtype(L, v, tr_output_dtype(o), dtype, hint))
      return false;
    operand_from_output(out, o);
    return true;
  }
  TrTensor *t = lang_tf_convert(L, v, dtype, hint);
  return t && lang_tf_operand_from_tensor(L, t, out);
}

bool
lang_tf_operand_pair(LangState *L, LangValue x, LangValue y, LangTfOperand *ox, LangTfOperand *oy)
{
  TrDType hx = lang_tf_dtype_of(x), hy = lang_tf_dtype_of(y);
  if (!lang_tf_operand(L, x, hx != TR_DTYPE_INVALID ? hx : hy, true, ox))
    return false;
  if (!lang_tf_operand(L, y, ox->dtype, true, oy)) {
    lang_tf_operand_clear(ox);
    return false;
  }
  return true;
}

/* ---- applying ops ------------------------------------------------------------------------ */

bool
lang_tf_apply_operand(LangState *L, TrOpId op, const LangTfOperand *in, int n, const TrAttrs *attrs,
                      const char *name, LangTfOperand *result)
{
  LangTfTrace *tr = lang_tf_trace(L);
  GError *error = NULL;
  operand_clear_fields(result);
  if (!tr) {
    TrTensor *vals[TR_MAX_RANK + 8];
    g_autofree TrTensor **heap = n > (int)G_N_ELEMENTS(vals) ? g_new(TrTensor *, n) : NULL;
    TrTensor **v = heap ? heap : vals;
    for (int i = 0; i < n; i++)
      v[i] = in[i].value;
    TrTensor *r = tr_op_run(op, v, n, attrs, &error);
    if (!r) {
      lang_tf_raise_error(L, error);
      return false;
    }
    result->value = r;
    result->dtype = r->dtype;
    shape_copy(&result->shape, &r->shape);
    if (G_UNLIKELY(lang_tf_state(L)->tapes))
      lang_tf_tape_record_op(L, op, attrs, in, n, result);
    return true;
  }
  TrOutput outs[TR_MAX_RANK + 8];
  g_autofree TrOutput *heap = n > (int)G_N_ELEMENTS(outs) ? g_new(TrOutput, n) : NULL;
  TrOutput *o = heap ? heap : outs;
  for (int i = 0; i < n; i++)
    o[i] = in[i].out;
  TrNode *node = tr_graph_add_op(tr->graph, op, o, n, attrs, name, &error);
  if (!node) {
    lang_tf_raise_any(L, error);
    return false;
  }
  operand_from_output(result, tr_node_output(node, 0));
  return true;
}

LangValue
lang_tf_operand_to_value(LangState *L, LangTfOperand *o)
{
  if (o->value) {
    TrTensor *t = o->value;
    o->value = NULL;
    return lang_tf_tensor_new(L, t);
  }
  return lang_tf_symbolic_new(L, o->out.node->graph, o->out);
}

LangValue
lang_tf_apply(LangState *L, TrOpId op, const LangTfOperand *in, int n, const TrAttrs *attrs,
              const char *name)
{
  LangTfOperand r;
  if (!lang_tf_apply_operand(L, op, in, n, attrs, name, &r))
    return LANG_EXC;
  return lang_tf_operand_to_value(L, &r);
}

LangValue
lang_tf_apply_truediv(LangState *L, const LangTfOperand *a, const LangTfOperand *b)
{
  if (!tr_dtype_is_int(a->dtype))
    return lang_tf_apply(L, TR_OP_DIV, (LangTfOperand[]){*a, *b}, 2, NULL, "truediv");
  TrAttrs cast;
  tr_attrs_init(&cast);
  cast.dtype = TR_FLOAT64;
  LangTfOperand c[2];
  if (!lang_tf_apply_operand(L, TR_OP_CAST, a, 1, &cast, NULL, &c[0]))
    return LANG_EXC;
  if (!lang_tf_apply_operand(L, TR_OP_CAST, b, 1, &cast, NULL, &c[1])) {
    lang_tf_operand_clear(&c[0]);
    return LANG_EXC;
  }
  LangValue r = lang_tf_apply(L, TR_OP_DIV, c, 2, NULL, "truediv");
  lang_tf_operands_clear(c, 2);
  return r;
}

TrTensor *
lang_tf_static_value(LangState *L, LangValue v)
{
  (void)L;
  if (lang_tf_is_tensor(v)) {
    LangTfTensor *t = (LangTfTensor *)v.o;
    if (t->value)
      return tr_tensor_ref(t->value);
    if (t->out.node->op == TR_GOP_CONST)
      return tr_tensor_ref(t->out.node->value);
  }
  return NULL;
}
