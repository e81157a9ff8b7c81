/* lang-tf-variable.c — tf.Variable: mutable state shared by eager code and every graph that
 * captured it.
 *
 * A Variable's value lives in a core/graph TrVariable. Eagerly, reads and assignments act at
 * once. While a Function traces, the graph captures the variable's handle once and each read
 * or assignment becomes a stateful node, so later calls of the trace see and make changes
 * without retracing. Variables may be created while tracing only on a Function's first trace
 * (TensorFlow's singleton rule); their initial value is computed eagerly, as TF lifts variable
 * initialisers out of the function.
 */
#include "lang-tf-private.h"

#include "tr-print.h"

#include <string.h>

#define SINGLETON_MESSAGE                                                                          \
  "tf.function only supports singleton tf.Variables created on the first call. Make sure the "     \
  "tf.Variable is only created once or created outside tf.function. See "                          \
  "https://www.tensorflow.org/guide/function#creating_tfvariables for more information."

static TrVariable *
var_of(LangValue self)
{
  return ((LangTfVariable *)self.o)->var;
}

static void
variable_dealloc(LangObject *o)
{
  tr_variable_unref(((LangTfVariable *)o)->var);
}

static LangValue
variable_wrap(LangState *L, TrVariable *var)
{
  LangTfVariable *o =
      (LangTfVariable *)lang_object_alloc(L, &lang_tf_variable_type, sizeof(LangTfVariable));
  o->var = var;
  return lang_obj(o);
}

static void
emit_created(LangState *L, TrVariable *var)
{
  if (!tr_event_bus_wants(lang_tf_event_bus(L), TR_EVENT_VARIABLE_CREATED))
    return;
  TrEvent *ev = tr_event_new(TR_EVENT_VARIABLE_CREATED);
  ev->cell = lang_tf_get_cell(L);
  ev->var_id = (gint64)var->id;
  ev->name = g_strdup_printf("%s:0", var->name);
  ev->dtype = g_strdup(tr_dtype_name(var->dtype));
  ev->shape = tr_shape_to_string(&var->shape);
  tr_event_bus_emit(lang_tf_event_bus(L), ev);
}

/* The initial value, computed eagerly (outside any trace). Transfer full, or NULL. */
static TrTensor *
initial_value(LangState *L, LangValue v, TrDType dtype)
{
  if (lang_tf_is_symbolic(v)) {
    TrTensor *t = lang_tf_static_value(L, v);
    if (!t) {
      lang_raise_str(L, &lang_exc_ValueError,
                     "A tf.Variable created inside a tf.function needs an initial value that "
                     "does not depend on the function's inputs: pass a Python value or an eager "
                     "tensor, or create the variable outside the function.");
      return NULL;
    }
    if (dtype != TR_DTYPE_INVALID && t->dtype != dtype) {
      GError *error = NULL;
      TrTensor *c = tr_cast(t, dtype, &error);
      tr_tensor_unref(t);
      if (!c)
        lang_tf_raise_error(L, error);
      return c;
    }
    return t;
  }
  LangTfState *st = lang_tf_state(L);
  LangTfTrace *saved = st->trace;
  st->trace = NULL;
  TrTensor *t = NULL;
  if (lang_callable(v) && !lang_tf_convertible(v)) {
    LangValue r = lang_call(L, v, NULL, 0, NULL);
    if (!lang_is_exc(r)) {
      t = lang_tf_convert(L, r, dtype, false);
      lang_decref(r);
    }
  } else {
    t = lang_tf_convert(L, v, dtype, false);
  }
  st->trace = saved;
  return t;
}

static LangValue
variable_construct(LangState *L, LangType *type, const LangValue *args, int nargs,
                   LangObject *kwnames)
{
  LangValue init = LANG_UNSET, trainable = LANG_UNSET, validate = LANG_UNSET, caching = LANG_UNSET,
            name = LANG_UNSET, vdef = LANG_UNSET, dtype = LANG_UNSET, import_scope = LANG_UNSET,
            constraint = LANG_UNSET, sync = LANG_UNSET, aggregation = LANG_UNSET,
            shape = LANG_UNSET;
  if (!lang_parse_args(L, "Variable", args, nargs, kwnames,
                       "initial_value=,trainable=,validate_shape=,caching_device=,name=,"
                       "variable_def=,dtype=,import_scope=,constraint=,synchronization=,"
                       "aggregation=,shape=",
                       &init, &trainable, &validate, &caching, &name, &vdef, &dtype, &import_scope,
                       &constraint, &sync, &aggregation, &shape))
    return LANG_EXC;
  if (lang_is_unset(init) || init.tag == LANG_TAG_NONE)
    return lang_raise_str(L, &lang_exc_ValueError, "initial_value must be specified.");
  TrDType dt;
  if (!lang_tf_dtype_arg(L, dtype, TR_DTYPE_INVALID, &dt))
    return LANG_EXC;
  const char *name_text = NULL;
  if (!lang_is_unset(name) && name.tag != LANG_TAG_NONE) {
    if (!lang_is_str(name))
      return lang_raise_str(L, &lang_exc_TypeError, "Variable name must be a string");
    name_text = lang_str_data(name.o);
  }
  bool is_trainable = true;
  if (!lang_is_unset(trainable) && trainable.tag != LANG_TAG_NONE) {
    int b = lang_truth(L, trainable);
    if (b < 0)
      return LANG_EXC;
    is_trainable = b;
  }
  LangTfTrace *tr = lang_tf_trace(L);
  if (tr) {
    if (!tr->allow_variables)
      return lang_raise_str(L, &lang_exc_ValueError, SINGLETON_MESSAGE);
    tr->variables_created++;
  }
  TrTensor *t = initial_value(L, init, dt);
  if (!t)
    return LANG_EXC;
  TrVariable *var = tr_variable_new(t, name_text);
  tr_tensor_unref(t);
  var->trainable = is_trainable;
  emit_created(L, var);
  (void)type;
  return variable_wrap(L, var);
}

/* ---- reading ---- */

static LangValue
variable_value_text(LangState *L, LangValue self, bool repr)
{
  TrVariable *var = var_of(self);
  g_autoptr(TrTensor) t = tr_variable_read(var);
  g_autofree char *shape = tr_shape_to_string(&var->shape);
  g_autofree char *np = tr_tensor_numpy_repr(t);
  (void)repr;
  return lang_str_printf(L, "<tf.Variable '%s:0' shape=%s dtype=%s, numpy=%s%s>", var->name, shape,
                         tr_dtype_name(var->dtype), strchr(np, '\n') ? "\n" : "", np);
}

static LangValue
variable_repr(LangState *L, LangValue self)
{
  return variable_value_text(L, self, true);
}

/* The variable's value on the current path: the tensor eagerly, a ReadVariableOp in a trace. */
static LangValue
variable_read(LangState *L, LangValue self)
{
  LangTfOperand o;
  if (!lang_tf_operand(L, self, TR_DTYPE_INVALID, true, &o))
    return LANG_EXC;
  return lang_tf_operand_to_value(L, &o);
}

static LangValue
variable_read_value(LangState *L, LangValue self, const LangValue *args, int nargs,
                    LangObject *kwnames)
{
  if (!lang_parse_args(L, "read_value", args, nargs, kwnames, ""))
    return LANG_EXC;
  return variable_read(L, self);
}

static LangValue
variable_numpy(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  if (!lang_parse_args(L, "numpy", args, nargs, kwnames, ""))
    return LANG_EXC;
  LangValue t = lang_tf_tensor_new(L, tr_variable_read(var_of(self)));
  if (lang_is_exc(t))
    return t;
  LangValue r = lang_call_method(L, t, "numpy", NULL, 0, NULL);
  lang_decref(t);
  return r;
}

/* ---- assignments ---- */

static LangValue
variable_update(LangState *L, LangValue self, TrGraphOpId op, const char *fname,
                const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue value, use_locking = LANG_UNSET, name = LANG_UNSET, read_value = LANG_UNSET;
  if (!lang_parse_args(L, fname, args, nargs, kwnames, "value,use_locking=,name=,read_value=",
                       &value, &use_locking, &name, &read_value))
    return LANG_EXC;
  TrVariable *var = var_of(self);
  LangTfTrace *tr = lang_tf_trace(L);
  GError *error = NULL;
  if (!tr) {
    TrTensor *t = lang_tf_convert(L, value, var->dtype, false);
    if (!t)
      return LANG_EXC;
    bool ok = op == TR_GOP_ASSIGN_VARIABLE
                  ? tr_variable_assign(var, t, &error)
                  : tr_variable_assign_update(
                        var, op == TR_GOP_ASSIGN_ADD_VARIABLE ? TR_OP_ADD : TR_OP_SUB, t, &error);
    tr_tensor_unref(t);
    if (!ok)
      return lang_tf_raise_any(L, error);
    return lang_incref(self);
  }
  LangTfOperand v;
  if (!lang_tf_operand(L, value, var->dtype, false, &v))
    return LANG_EXC;
  TrNode *handle = tr_graph_capture_variable(tr->graph, var, var->name);
  TrNode *node =
      tr_graph_add_assign_variable(tr->graph, op, tr_node_output(handle, 0), v.out, NULL, &error);
  lang_tf_operand_clear(&v);
  if (!node)
    return lang_tf_raise_any(L, error);
  /* In a graph the result is the value after the assignment: a read ordered after it. */
  return variable_read(L, self);
}

static LangValue
variable_assign(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  return variable_update(L, self, TR_GOP_ASSIGN_VARIABLE, "assign", args, nargs, kwnames);
}

static LangValue
variable_assign_add(LangState *L, LangValue self, const LangValue *args, int nargs,
                    LangObject *kwnames)
{
  return variable_update(L, self, TR_GOP_ASSIGN_ADD_VARIABLE, "assign_add", args, nargs, kwnames);
}

static LangValue
variable_assign_sub(LangState *L, LangValue self, const LangValue *args, int nargs,
                    LangObject *kwnames)
{
  return variable_update(L, self, TR_GOP_ASSIGN_SUB_VARIABLE, "assign_sub", args, nargs, kwnames);
}

/* ---- attributes ---- */

static LangValue
variable_get_name(LangState *L, LangValue self)
{
  return lang_str_printf(L, "%s:0", var_of(self)->name);
}

static LangValue
variable_get_dtype(LangState *L, LangValue self)
{
  return lang_incref(lang_tf_dtype_object(var_of(self)->dtype));
}

static LangValue
variable_get_shape(LangState *L, LangValue self)
{
  return lang_tf_shape_new(L, &var_of(self)->shape);
}

static LangValue
variable_get_trainable(LangState *L, LangValue self)
{
  return lang_bool(var_of(self)->trainable);
}

static LangValue
variable_get_device(LangState *L, LangValue self)
{
  return lang_str_cstr(L, "/job:localhost/replica:0/task:0/device:CPU:0");
}

static bool
variable_hash(LangState *L, LangValue self, int64_t *out)
{
  lang_raise_str(L, &lang_exc_TypeError,
                 "Variable is unhashable. Instead, use variable.ref() as the key.");
  return false;
}

/* ---- operators: a Variable takes part in ops as its value ---- */

#define VARIABLE_BINOP(id)                                                                         \
  static LangValue variable_binop_##id(LangState *L, LangValue a, LangValue b)                     \
  {                                                                                                \
    return lang_tf_binop(L, LANG_ARITH_##id, a, b);                                                \
  }
VARIABLE_BINOP(ADD)
VARIABLE_BINOP(SUB)
VARIABLE_BINOP(MUL)
VARIABLE_BINOP(TRUEDIV)
VARIABLE_BINOP(FLOORDIV)
VARIABLE_BINOP(MOD)
VARIABLE_BINOP(POW)
VARIABLE_BINOP(MATMUL)
#undef VARIABLE_BINOP

static LangValue
variable_neg(LangState *L, LangValue self)
{
  LangValue t = variable_read(L, self);
  if (lang_is_exc(t))
    return t;
  LangValue r = lang_unary(L, LANG_UNOP_NEG, t);
  lang_decref(t);
  return r;
}

static LangValue
variable_getitem(LangState *L, LangValue self, LangValue key)
{
  LangValue t = variable_read(L, self);
  if (lang_is_exc(t))
    return t;
  LangValue r = lang_tf_getitem(L, t, key);
  lang_decref(t);
  return r;
}

/* float(v), int(v), operator.index(v) and abs(v) act on the current value, as on a Tensor. */
static LangValue
variable_delegate(LangState *L, LangValue self, const char *method)
{
  LangValue t = variable_read(L, self);
  if (lang_is_exc(t))
    return t;
  LangValue r = lang_call_method(L, t, method, NULL, 0, NULL);
  lang_decref(t);
  return r;
}

#define VARIABLE_DELEGATE(name)                                                                    \
  static LangValue variable_##name(LangState *L, LangValue self, const LangValue *args, int nargs, \
                                   LangObject *kwnames)                                            \
  {                                                                                                \
    if (!lang_parse_args(L, #name, args, nargs, kwnames, ""))                                      \
      return LANG_EXC;                                                                             \
    return variable_delegate(L, self, "__" #name "__");                                            \
  }
VARIABLE_DELEGATE(float)
VARIABLE_DELEGATE(int)
VARIABLE_DELEGATE(index)
VARIABLE_DELEGATE(abs)
#undef VARIABLE_DELEGATE

static const LangMethodDef variable_methods[] = {
    {"__float__", variable_float, "(self, /)", NULL, 0},
    {"__int__", variable_int, "(self, /)", NULL, 0},
    {"__index__", variable_index, "(self, /)", NULL, 0},
    {"__abs__", variable_abs, "(self, /)", NULL, 0},
    {"assign", variable_assign, "(self, value, use_locking=False, name=None, read_value=True)",
     "Assigns a new value to the variable.", 0},
    {"assign_add", variable_assign_add,
     "(self, delta, use_locking=False, name=None, read_value=True)",
     "Adds a value to this variable.", 0},
    {"assign_sub", variable_assign_sub,
     "(self, delta, use_locking=False, name=None, read_value=True)",
     "Subtracts a value from this variable.", 0},
    {"read_value", variable_read_value, "(self)", "The current value, as a Tensor.", 0},
    {"value", variable_read_value, "(self)", "The current value, as a Tensor.", 0},
    {"numpy", variable_numpy, "(self)", "The current value as a NumPy-like array or scalar.", 0},
    {NULL, NULL, NULL, NULL, 0},
};

static const LangGetSetDef variable_getsets[] = {
    {"name", variable_get_name, NULL, "The name of the variable: 'Variable:0'."},
    {"dtype", variable_get_dtype, NULL, "The DType of the variable."},
    {"shape", variable_get_shape, NULL, "The TensorShape of the variable."},
    {"trainable", variable_get_trainable, NULL, "Whether optimizers update the variable."},
    {"device", variable_get_device, NULL, "The device the variable lives on."},
    {NULL, NULL, NULL, NULL},
};

LangType lang_tf_variable_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "Variable",
    .instance_size = sizeof(LangTfVariable),
    .slots =
        {
            .dealloc = variable_dealloc,
            .construct = variable_construct,
            .repr = variable_repr,
            .hash = variable_hash,
            .compare = lang_tf_compare,
            .binary =
                {
                    [LANG_ARITH_ADD] = variable_binop_ADD,
                    [LANG_ARITH_SUB] = variable_binop_SUB,
                    [LANG_ARITH_MUL] = variable_binop_MUL,
                    [LANG_ARITH_TRUEDIV] = variable_binop_TRUEDIV,
                    [LANG_ARITH_FLOORDIV] = variable_binop_FLOORDIV,
                    [LANG_ARITH_MOD] = variable_binop_MOD,
                    [LANG_ARITH_POW] = variable_binop_POW,
                    [LANG_ARITH_MATMUL] = variable_binop_MATMUL,
                },
            .unary = {variable_neg, NULL, NULL},
            .getitem = variable_getitem,
        },
    .methods = variable_methods,
    .getsets = variable_getsets,
    .doc = "A variable maintains shared, persistent state manipulated by a program.",
};
