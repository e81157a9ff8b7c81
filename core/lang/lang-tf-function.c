/* lang-tf-function.c — tf.function: Function, ConcreteFunction, TensorSpec, Graph, tf.print,
 * tf.init_scope and tf.config, on core/trace's cache and core/graph's graphs and plans.
 *
 * A call of a Function binds its arguments to the Python function's parameters, builds the
 * call's trace key (SPEC §3.1) and asks core/trace which ConcreteFunction serves it:
 *  - hit: the trace's plan runs on the call's tensors; the interpreter is not entered;
 *  - miss: the body runs once on symbolic tensors (placeholders named after the parameters)
 *    while a LangTfTrace is current, so every op adds a node; the returned structure becomes
 *    the graph's outputs and a template to rebuild results from; the graph is optimised (on a
 *    copy, so the user sees what was traced), planned, stored, and run;
 *  - eager: tf.config.run_functions_eagerly(True) runs the body directly.
 * A Function called while another traces inlines its ConcreteFunction's graph into the outer
 * graph. Every step emits core/trace's events with the call site of the Python caller.
 */
#include "lang-compile.h"
#include "lang-tf-private.h"
#include "lang-vm.h"

#include <string.h>

static const char tf_python_source[] =
    "class NodeDef:\n"
    "    def __init__(self, name, op, input):\n"
    "        self.name = name\n"
    "        self.op = op\n"
    "        self.input = input\n"
    "    def __repr__(self):\n"
    "        text = 'name: \"%s\"\\nop: \"%s\"\\n' % (self.name, self.op)\n"
    "        for i in self.input:\n"
    "            text += 'input: \"%s\"\\n' % i\n"
    "        return text\n"
    "\n"
    "class GraphDef:\n"
    "    def __init__(self, node):\n"
    "        self.node = node\n"
    "    def __repr__(self):\n"
    "        text = ''\n"
    "        for n in self.node:\n"
    "            text += 'node {\\n'\n"
    "            for line in repr(n).splitlines():\n"
    "                text += '  ' + line + '\\n'\n"
    "            text += '}\\n'\n"
    "        return text\n"
    "\n"
    "def _snake_case(name):\n"
    "    out = ''\n"
    "    for i, c in enumerate(name):\n"
    "        if c.isupper() and i > 0 and not name[i - 1].isupper():\n"
    "            out += '_'\n"
    "        out += c.lower()\n"
    "    return out\n"
    "\n"
    "def _collect_variables(value, trainable_only, seen, out):\n"
    "    if isinstance(value, Variable):\n"
    "        if id(value) not in seen and (value.trainable or not trainable_only):\n"
    "            seen.add(id(value))\n"
    "            out.append(value)\n"
    "    elif isinstance(value, Module):\n"
    "        if id(value) not in seen:\n"
    "            seen.add(id(value))\n"
    "            for key in sorted(vars(value)):\n"
    "                _collect_variables(vars(value)[key], trainable_only, seen, out)\n"
    "    elif isinstance(value, (list, tuple)):\n"
    "        for item in value:\n"
    "            _collect_variables(item, trainable_only, seen, out)\n"
    "    elif isinstance(value, dict):\n"
    "        for key in sorted(value):\n"
    "            _collect_variables(value[key], trainable_only, seen, out)\n"
    "\n"
    "class Module:\n"
    "    \"\"\"Base class for neural network modules: names and tracks variables.\"\"\"\n"
    "    def __init__(self, name=None):\n"
    "        self._name = name\n"
    "    @property\n"
    "    def name(self):\n"
    "        name = vars(self).get('_name')\n"
    "        return name if name is not None else _snake_case(type(self).__name__)\n"
    "    @property\n"
    "    def variables(self):\n"
    "        out = []\n"
    "        seen = {id(self)}\n"
    "        for key in sorted(vars(self)):\n"
    "            _collect_variables(vars(self)[key], False, seen, out)\n"
    "        return tuple(out)\n"
    "    @property\n"
    "    def trainable_variables(self):\n"
    "        out = []\n"
    "        seen = {id(self)}\n"
    "        for key in sorted(vars(self)):\n"
    "            _collect_variables(vars(self)[key], True, seen, out)\n"
    "        return tuple(out)\n"
    "    @property\n"
    "    def submodules(self):\n"
    "        return tuple(v for k, v in sorted(vars(self).items()) if isinstance(v, Module))\n";

/* ---- TensorSpec ---------------------------------------------------------------------------- */

typedef struct {
  LangObject base; /* lang_tf_tensor_spec_type */
  TrShape shape;   /* possibly partial */
  TrDType dtype;   /* element type */
  char *name;      /* or NULL */
} TensorSpec;

static void
spec_dealloc(LangObject *o)
{
  g_free(((TensorSpec *)o)->name);
}

static LangValue
spec_new(LangState *L, const TrShape *shape, TrDType dtype, const char *name)
{
  TensorSpec *s = (TensorSpec *)lang_object_alloc(L, &lang_tf_tensor_spec_type, sizeof(TensorSpec));
  s->shape = *shape;
  s->dtype = dtype;
  s->name = g_strdup(name);
  return lang_obj(s);
}

static LangValue
spec_construct(LangState *L, LangType *type, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue shape, dtype = LANG_UNSET, name = LANG_UNSET;
  if (!lang_parse_args(L, "TensorSpec", args, nargs, kwnames, "shape,dtype=,name=", &shape, &dtype,
                       &name))
    return LANG_EXC;
  TrShape s = tr_shape_unknown();
  if (shape.tag != LANG_TAG_NONE && !lang_tf_shape_arg(L, shape, &s))
    return LANG_EXC;
  TrDType dt;
  if (!lang_tf_dtype_arg(L, dtype, TR_FLOAT32, &dt))
    return LANG_EXC;
  if (!lang_is_unset(name) && name.tag != LANG_TAG_NONE && !lang_is_str(name))
    return lang_raise_str(L, &lang_exc_TypeError, "TensorSpec name must be a string or None");
  (void)type;
  return spec_new(L, &s, dt, lang_is_str(name) ? lang_str_data(name.o) : NULL);
}

static LangValue
spec_repr(LangState *L, LangValue self)
{
  TensorSpec *s = (TensorSpec *)self.o;
  TrTraceType *t = tr_trace_type_new_tensor(s->dtype, &s->shape, s->name);
  char *text = tr_trace_type_to_string(t);
  tr_trace_type_unref(t);
  LangValue r = lang_str_cstr(L, text);
  g_free(text);
  return r;
}

static LangValue
spec_get_shape(LangState *L, LangValue self)
{
  return lang_tf_shape_new(L, &((TensorSpec *)self.o)->shape);
}

static LangValue
spec_get_dtype(LangState *L, LangValue self)
{
  return lang_incref(lang_tf_dtype_object(((TensorSpec *)self.o)->dtype));
}

static LangValue
spec_get_name(LangState *L, LangValue self)
{
  const char *name = ((TensorSpec *)self.o)->name;
  return name ? lang_str_cstr(L, name) : LANG_NONE;
}

static LangValue
spec_compare(LangState *L, LangValue a, LangValue b, LangCompareOp op)
{
  if ((op != LANG_EQ && op != LANG_NE) || !lang_is_type(b, &lang_tf_tensor_spec_type))
    return LANG_NOTIMPL;
  TensorSpec *x = (TensorSpec *)a.o, *y = (TensorSpec *)b.o;
  bool eq = x->dtype == y->dtype && tr_shape_equal(&x->shape, &y->shape) &&
            g_strcmp0(x->name, y->name) == 0;
  return lang_bool(op == LANG_EQ ? eq : !eq);
}

static const LangGetSetDef spec_getsets[] = {
    {"shape", spec_get_shape, NULL, "The TensorShape of the described tensors."},
    {"dtype", spec_get_dtype, NULL, "The DType of the described tensors."},
    {"name", spec_get_name, NULL, "The name of the described tensor, or None."},
    {NULL, NULL, NULL, NULL},
};

LangType lang_tf_tensor_spec_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "TensorSpec",
    .instance_size = sizeof(TensorSpec),
    .slots = {.dealloc = spec_dealloc,
              .construct = spec_construct,
              .repr = spec_repr,
              .compare = spec_compare},
    .getsets = spec_getsets,
    .doc = "Describes the type of a tf.Tensor: its shape, dtype and name.",
};

/* ---- Graph --------------------------------------------------------------------------------- */

typedef struct {
  LangObject base; /* lang_tf_graph_type */
  TrGraph *graph;  /* owned reference */
} GraphObject;

static void
graph_dealloc(LangObject *o)
{
  tr_graph_unref(((GraphObject *)o)->graph);
}

LangValue
lang_tf_graph_new(LangState *L, TrGraph *graph)
{
  GraphObject *g = (GraphObject *)lang_object_alloc(L, &lang_tf_graph_type, sizeof(GraphObject));
  g->graph = tr_graph_ref(graph);
  return lang_obj(g);
}

/* An instance of a class defined by the module's Python source. */
static LangValue
call_module_class(LangState *L, const char *name, const LangValue *args, int nargs)
{
  LangValue tf = lang_import(L, "tensorflow");
  if (lang_is_exc(tf))
    return tf;
  LangValue cls = lang_getattr_cstr(L, tf, name);
  lang_decref(tf);
  if (lang_is_exc(cls))
    return cls;
  LangValue r = lang_call(L, cls, args, nargs, NULL);
  lang_decref(cls);
  return r;
}

static LangValue
graph_as_graph_def(LangState *L, LangValue self, const LangValue *args, int nargs,
                   LangObject *kwnames)
{
  LangValue add_shapes = LANG_UNSET;
  if (!lang_parse_args(L, "as_graph_def", args, nargs, kwnames, "add_shapes=", &add_shapes))
    return LANG_EXC;
  int n;
  TrNodeDef *defs = tr_graph_as_graph_def(((GraphObject *)self.o)->graph, &n);
  LangValue nodes = lang_list_new(L, n);
  for (int i = 0; i < n; i++) {
    LangValue inputs = lang_list_new(L, defs[i].n_inputs);
    for (int k = 0; k < defs[i].n_inputs; k++)
      lang_list_set(inputs.o, k, lang_str_cstr(L, defs[i].inputs[k]));
    LangValue fields[3] = {lang_str_cstr(L, defs[i].name), lang_str_cstr(L, defs[i].op), inputs};
    LangValue node = call_module_class(L, "NodeDef", fields, 3);
    for (int k = 0; k < 3; k++)
      lang_decref(fields[k]);
    if (lang_is_exc(node)) {
      tr_graph_def_free(defs, n);
      lang_decref(nodes);
      return node;
    }
    lang_list_set(nodes.o, i, node);
  }
  tr_graph_def_free(defs, n);
  LangValue r = call_module_class(L, "GraphDef", &nodes, 1);
  lang_decref(nodes);
  return r;
}

static LangValue
graph_text_method(LangState *L, char *text)
{
  LangValue r = lang_str_cstr(L, text);
  g_free(text);
  return r;
}

static LangValue
graph_to_dot(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  if (!lang_parse_args(L, "to_dot", args, nargs, kwnames, ""))
    return LANG_EXC;
  return graph_text_method(L, tr_graph_to_dot(((GraphObject *)self.o)->graph));
}

static LangValue
graph_to_json(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  if (!lang_parse_args(L, "to_json", args, nargs, kwnames, ""))
    return LANG_EXC;
  return graph_text_method(L, tr_graph_to_json(((GraphObject *)self.o)->graph));
}

static LangValue
svg_of(LangState *L, TrGraph *graph)
{
  GError *error = NULL;
  char *svg = tr_graph_to_svg(graph, &error);
  if (!svg) {
    lang_raise_str(L, &lang_exc_RuntimeError, error->message);
    g_error_free(error);
    return LANG_EXC;
  }
  return graph_text_method(L, svg);
}

static LangValue
graph_repr_svg(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  if (!lang_parse_args(L, "_repr_svg_", args, nargs, kwnames, ""))
    return LANG_EXC;
  return svg_of(L, ((GraphObject *)self.o)->graph);
}

static LangValue
graph_repr(LangState *L, LangValue self)
{
  TrGraph *g = ((GraphObject *)self.o)->graph;
  return lang_str_printf(L, "<FuncGraph name=%s, %d nodes>", tr_graph_name(g), tr_graph_n_nodes(g));
}

static LangValue
graph_get_name(LangState *L, LangValue self)
{
  return lang_str_cstr(L, tr_graph_name(((GraphObject *)self.o)->graph));
}

static const LangMethodDef graph_methods[] = {
    {"as_graph_def", graph_as_graph_def, "(self, add_shapes=False)",
     "The graph as a GraphDef: .node lists every node with its name, op and inputs.", 0},
    {"to_dot", graph_to_dot, "(self)", "The graph in Graphviz's DOT language.", 0},
    {"to_json", graph_to_json, "(self)", "The graph as JSON.", 0},
    {"_repr_svg_", graph_repr_svg, "(self)", "An SVG drawing of the graph (Graphviz).", 0},
    {NULL, NULL, NULL, NULL, 0},
};

static const LangGetSetDef graph_getsets[] = {
    {"name", graph_get_name, NULL, "The name of the function the graph was traced for."},
    {NULL, NULL, NULL, NULL},
};

LangType lang_tf_graph_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "FuncGraph",
    .instance_size = sizeof(GraphObject),
    .flags = LANG_TYPE_ABSTRACT_NEW,
    .slots = {.dealloc = graph_dealloc, .repr = graph_repr},
    .methods = graph_methods,
    .getsets = graph_getsets,
    .doc = "A dataflow graph traced from a Python function.",
};

/* ---- output templates -------------------------------------------------------------------- */

/* In a result template, the place of the graph's output `index`. */
typedef struct {
  LangObject base; /* output_slot_type */
  int index;       /* graph output */
} OutputSlot;

static LangType output_slot_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "OutputSlot",
    .instance_size = sizeof(OutputSlot),
    .flags = LANG_TYPE_ABSTRACT_NEW,
};

/* The template of a traced function's result: tensors and Variables become graph outputs
 * (Identity nodes) and slots; lists, tuples and dicts are walked; other values stay. */
static LangValue
make_template(LangState *L, TrGraph *g, LangValue v, int *n_outputs)
{
  /* Python numbers, strings and bools are returned as tensors, as TensorFlow converts them. */
  bool scalar = v.tag == LANG_TAG_BOOL || v.tag == LANG_TAG_INT || v.tag == LANG_TAG_FLOAT ||
                lang_is_str(v) || lang_is_type(v, &lang_bytes_type);
  if (lang_tf_is_tensor(v) || lang_tf_is_variable(v) || scalar) {
    LangTfOperand o;
    if (!lang_tf_operand(L, v, TR_DTYPE_INVALID, true, &o))
      return LANG_EXC;
    GError *error = NULL;
    if (!tr_graph_add_output(g, o.out, &error))
      return lang_tf_raise_any(L, error);
    OutputSlot *s = (OutputSlot *)lang_object_alloc(L, &output_slot_type, sizeof(OutputSlot));
    s->index = (*n_outputs)++;
    return lang_obj(s);
  }
  bool list = lang_is_type(v, &lang_list_type), tuple = lang_is_type(v, &lang_tuple_type);
  if (list || tuple) {
    int64_t n = list ? ((LangList *)v.o)->n : lang_tuple_len(v.o);
    LangValue r = list ? lang_list_new(L, n) : lang_tuple_new(L, n);
    for (int64_t i = 0; i < n; i++) {
      LangValue item = list ? ((LangList *)v.o)->items[i] : lang_tuple_get(v.o, i);
      LangValue t = make_template(L, g, item, n_outputs);
      if (lang_is_exc(t)) {
        lang_decref(r);
        return t;
      }
      if (list)
        lang_list_set(r.o, i, t);
      else
        lang_tuple_set(r, i, t);
    }
    return r;
  }
  if (lang_is_type(v, &lang_dict_type)) {
    LangValue r = lang_dict_new(L);
    int64_t pos = 0;
    LangValue key, value;
    while (lang_dict_next(v.o, &pos, &key, &value)) {
      LangValue t = make_template(L, g, value, n_outputs);
      if (lang_is_exc(t) || !lang_dict_set(L, r.o, key, t)) {
        lang_decref(t);
        lang_decref(r);
        return LANG_EXC;
      }
      lang_decref(t);
    }
    return r;
  }
  return lang_incref(v);
}

/* The result of one run: the template with each slot replaced by `make(index)`. */
typedef LangValue (*SlotFunc)(LangState *L, int index, void *user);

static LangValue
fill_template(LangState *L, LangValue t, SlotFunc make, void *user)
{
  if (lang_is_type(t, &output_slot_type))
    return make(L, ((OutputSlot *)t.o)->index, user);
  bool list = lang_is_type(t, &lang_list_type), tuple = lang_is_type(t, &lang_tuple_type);
  if (list || tuple) {
    int64_t n = list ? ((LangList *)t.o)->n : lang_tuple_len(t.o);
    LangValue r = list ? lang_list_new(L, n) : lang_tuple_new(L, n);
    for (int64_t i = 0; i < n; i++) {
      LangValue item = list ? ((LangList *)t.o)->items[i] : lang_tuple_get(t.o, i);
      LangValue v = fill_template(L, item, make, user);
      if (lang_is_exc(v)) {
        lang_decref(r);
        return v;
      }
      if (list)
        lang_list_set(r.o, i, v);
      else
        lang_tuple_set(r, i, v);
    }
    return r;
  }
  if (lang_is_type(t, &lang_dict_type)) {
    LangValue r = lang_dict_new(L);
    int64_t pos = 0;
    LangValue key, value;
    while (lang_dict_next(t.o, &pos, &key, &value)) {
      LangValue v = fill_template(L, value, make, user);
      if (lang_is_exc(v) || !lang_dict_set(L, r.o, key, v)) {
        lang_decref(v);
        lang_decref(r);
        return LANG_EXC;
      }
      lang_decref(v);
    }
    return r;
  }
  return lang_incref(t);
}

/* ---- traces ------------------------------------------------------------------------------ */

/* What core/trace keeps for one ConcreteFunction (TrConcreteFn.data). */
typedef struct {
  TrGraph *graph;    /* as traced: what users see (owned) */
  TrGraph *exec;     /* the optimised copy the plan runs (owned) */
  TrPlan *plan;      /* planned once (owned) */
  LangValue outputs; /* result template (owned) */
  int n_outputs;     /* graph outputs */
  char *name;        /* the Python function's name */
  char *signature;   /* "double(a)\n  Args:\n ..." */
  TrOptReport opt;   /* what the optimiser did */
} Concrete;

static void
concrete_free(gpointer data)
{
  Concrete *c = data;
  tr_plan_free(c->plan);
  tr_graph_unref(c->exec);
  tr_graph_unref(c->graph);
  lang_decref(c->outputs);
  g_free(c->name);
  g_free(c->signature);
  g_free(c);
}

/* The parameters a Function binds: the Python function's, after `self` for methods. */
typedef struct {
  int first;          /* index of the first bound parameter in varnames (1 for methods) */
  int n_pos;          /* positional-or-keyword parameters bound */
  int n_kwonly;       /* keyword-only parameters */
  bool varargs;       /* *args */
  bool varkw;         /* **kwargs */
  int n;              /* all bound parameters */
  const char **names; /* interned names (borrowed from the code) */
} Params;

typedef struct TfFunction TfFunction;
struct TfFunction {
  LangObject base;           /* lang_tf_function_type */
  TrFn *fn;                  /* the trace cache (owned) */
  LangValue python_function; /* the decorated function (owned) */
  LangValue self;            /* the bound instance (owned), or UNSET */
  LangObject *bound;         /* dict id(instance) -> bound Function, or NULL */
  LangValue input_signature; /* the specs given (owned), or None */
  bool reduce_retracing;     /* tf.function(reduce_retracing=) */
  Params params;             /* what calls bind */
  /* The last call's key and the trace that served it: a call with the same key is a hit on
   * it without building a key, while no trace has been added since. */
  TrTraceSig *last_args; /* owned, or NULL */
  TrConcreteFn *last_cf; /* owned, or NULL */
  guint last_n_concrete; /* traces the Function had then */
  char *last_reason;     /* the lookup's reason for it, or NULL */
  int last_candidates;   /* the lookup's candidate count */
};

static void
forget_last(TfFunction *f)
{
  g_clear_pointer(&f->last_args, tr_trace_sig_unref);
  g_clear_pointer(&f->last_cf, tr_concrete_fn_unref);
  g_clear_pointer(&f->last_reason, g_free);
}

/* Whether bound argument `v` has exactly the trace type `t`, decided without making one. */
static bool
same_key(LangValue v, const TrTraceType *t)
{
  switch (t->kind) {
    case TR_TRACE_TENSOR: {
      if (!lang_tf_is_tensor(v) || t->tensor.name)
        return false;
      LangTfTensor *x = (LangTfTensor *)v.o;
      if (x->value)
        return x->value->dtype == t->tensor.dtype &&
               tr_shape_equal(&x->value->shape, &t->tensor.shape);
      return tr_output_dtype(x->out) == t->tensor.dtype &&
             tr_shape_equal(tr_output_shape(x->out), &t->tensor.shape);
    }
    case TR_TRACE_VARIABLE:
      return lang_tf_is_variable(v) && ((LangTfVariable *)v.o)->var->id == t->variable.id;
    case TR_TRACE_PRIMITIVE:
      switch (t->prim.py) {
        case TR_PY_NONE:
          return v.tag == LANG_TAG_NONE;
        case TR_PY_BOOL:
          return v.tag == LANG_TAG_BOOL && (v.i != 0) == (t->prim.i != 0);
        case TR_PY_INT:
          return v.tag == LANG_TAG_INT && v.i == t->prim.i;
        case TR_PY_FLOAT:
          return v.tag == LANG_TAG_FLOAT && v.f == t->prim.f;
        case TR_PY_STR:
          return lang_is_str(v) && strcmp(lang_str_data(v.o), t->prim.s) == 0;
      }
      return false;
    case TR_TRACE_IDENTITY:
      return v.tag == LANG_TAG_OBJ && (guint64)lang_id(v) == t->identity.id &&
             !lang_tf_is_tensor(v) && !lang_tf_is_variable(v) && !lang_is_str(v) &&
             !lang_is_type(v, &lang_list_type) && !lang_is_type(v, &lang_tuple_type) &&
             !lang_is_type(v, &lang_dict_type) && !lang_is_type(v, &lang_tf_tensor_spec_type);
    default:
      return false; /* structures take the general path */
  }
}

static LangFunction *
py_function(TfFunction *f)
{
  return (LangFunction *)f->python_function.o;
}

static bool
params_init(LangState *L, Params *p, LangValue func, bool method)
{
  if (!lang_is_type(func, &lang_function_type)) {
    lang_raise(L, &lang_exc_TypeError,
               "tf.function needs a Python function defined with def or lambda, got %s",
               lang_type_name(func));
    return false;
  }
  LangCode *code = ((LangFunction *)func.o)->code;
  p->first = method ? 1 : 0;
  if (method && code->argcount < 1) {
    lang_raise_str(L, &lang_exc_TypeError, "a tf.function method needs a `self` parameter");
    return false;
  }
  p->n_pos = code->argcount - p->first;
  p->n_kwonly = code->kwonlyargcount;
  p->varargs = (code->flags & LANG_CODE_VARARGS) != 0;
  p->varkw = (code->flags & LANG_CODE_VARKEYWORDS) != 0;
  p->n = p->n_pos + p->n_kwonly + p->varargs + p->varkw;
  p->names = g_new(const char *, p->n > 0 ? p->n : 1);
  int k = 0;
  for (int i = p->first; i < code->argcount; i++)
    p->names[k++] = lang_str_data(code->varnames[i]);
  int after = code->argcount + code->kwonlyargcount;
  int star = after;
  if (p->varargs)
    p->names[p->n_pos] = lang_str_data(code->varnames[star++]);
  for (int i = 0; i < p->n_kwonly; i++)
    p->names[p->n_pos + p->varargs + i] = lang_str_data(code->varnames[code->argcount + i]);
  if (p->varkw)
    p->names[p->n - 1] = lang_str_data(code->varnames[star]);
  (void)k;
  return true;
}

static int
param_index(const Params *p, const char *name)
{
  for (int i = 0; i < p->n; i++)
    if (strcmp(p->names[i], name) == 0)
      return i;
  return -1;
}

/* Binds a call to the parameters as Python does (defaults applied; *args a tuple, **kwargs a
 * dict). `out` receives p->n new references. */
static bool
bind_call(LangState *L, TfFunction *f, const LangValue *args, int nargs, LangObject *kwnames,
          LangValue *out)
{
  const Params *p = &f->params;
  LangFunction *func = py_function(f);
  const char *fname = lang_str_data(func->name);
  int n_kw = kwnames ? (int)lang_tuple_len(kwnames) : 0;
  int n_posargs = nargs; /* keyword values follow the positional ones */
  for (int i = 0; i < p->n; i++)
    out[i] = LANG_UNSET;
  int vararg_slot = p->varargs ? p->n_pos : -1;
  int kw_slot = p->varkw ? p->n - 1 : -1;
  if (n_posargs > p->n_pos && !p->varargs) {
    lang_raise(L, &lang_exc_TypeError, "%s() takes %d positional argument%s but %d %s given", fname,
               p->n_pos + p->first, p->n_pos + p->first == 1 ? "" : "s", n_posargs + p->first,
               n_posargs + p->first == 1 ? "was" : "were");
    return false;
  }
  for (int i = 0; i < n_posargs && i < p->n_pos; i++)
    out[i] = lang_incref(args[i]);
  if (p->varargs) {
    int extra = n_posargs > p->n_pos ? n_posargs - p->n_pos : 0;
    out[vararg_slot] = lang_tuple_from(L, args + p->n_pos, extra);
  }
  LangValue kwdict = p->varkw ? lang_dict_new(L) : LANG_UNSET;
  for (int k = 0; k < n_kw; k++) {
    LangValue key = lang_tuple_get(kwnames, k);
    const char *name = lang_str_data(key.o);
    int i = param_index(p, name);
    if (i >= 0 && i != vararg_slot && i != kw_slot) {
      if (!lang_is_unset(out[i])) {
        lang_raise(L, &lang_exc_TypeError, "%s() got multiple values for argument '%s'", fname,
                   name);
        goto fail;
      }
      out[i] = lang_incref(args[n_posargs + k]);
    } else if (p->varkw) {
      if (!lang_dict_set(L, kwdict.o, key, args[n_posargs + k]))
        goto fail;
    } else {
      lang_raise(L, &lang_exc_TypeError, "%s() got an unexpected keyword argument '%s'", fname,
                 name);
      goto fail;
    }
  }
  if (p->varkw)
    out[kw_slot] = kwdict;
  kwdict = LANG_UNSET;
  /* Defaults: the last positional parameters, then keyword-only ones. */
  int n_defaults = func->defaults ? (int)lang_tuple_len(func->defaults) : 0;
  int first_default = p->first + p->n_pos - n_defaults; /* in the code's numbering */
  for (int i = 0; i < p->n; i++) {
    if (!lang_is_unset(out[i]))
      continue;
    bool positional = i < p->n_pos;
    LangValue d = LANG_UNSET;
    if (positional && i + p->first >= first_default)
      d = lang_tuple_get(func->defaults, i + p->first - first_default);
    else if (!positional && func->kwdefaults)
      d = lang_dict_get_str(func->kwdefaults, lang_intern(p->names[i]));
    if (lang_is_unset(d)) {
      lang_raise(L, &lang_exc_TypeError, "%s() missing 1 required %s argument: '%s'", fname,
                 positional ? "positional" : "keyword-only", p->names[i]);
      goto fail;
    }
    out[i] = lang_incref(d);
  }
  return true;
fail:
  lang_decref(kwdict);
  for (int i = 0; i < p->n; i++) {
    lang_decref(out[i]);
    out[i] = LANG_UNSET;
  }
  return false;
}

/* Calls the Python function with bound values (self first for methods). */
static LangValue
call_python(LangState *L, TfFunction *f, const LangValue *bound)
{
  const Params *p = &f->params;
  GPtrArray *argv = g_ptr_array_new();
  GArray *vals = g_array_new(FALSE, FALSE, sizeof(LangValue));
  if (!lang_is_unset(f->self))
    g_array_append_val(vals, f->self);
  for (int i = 0; i < p->n_pos; i++)
    g_array_append_val(vals, bound[i]);
  if (p->varargs) {
    LangValue t = bound[p->n_pos];
    for (int64_t i = 0; i < lang_tuple_len(t.o); i++) {
      LangValue item = lang_tuple_get(t.o, i);
      g_array_append_val(vals, item);
    }
  }
  int n_pos = (int)vals->len;
  int n_kw = p->n_kwonly;
  if (p->varkw)
    n_kw += (int)((LangDict *)bound[p->n - 1].o)->used;
  LangValue kwnames = n_kw > 0 ? lang_tuple_new(L, n_kw) : LANG_UNSET;
  int k = 0;
  for (int i = 0; i < p->n_kwonly; i++) {
    lang_tuple_set(kwnames, k++, lang_str_cstr(L, p->names[p->n_pos + p->varargs + i]));
    g_array_append_val(vals, bound[p->n_pos + p->varargs + i]);
  }
  if (p->varkw) {
    int64_t pos = 0;
    LangValue key, value;
    while (lang_dict_next(bound[p->n - 1].o, &pos, &key, &value)) {
      lang_tuple_set(kwnames, k++, lang_incref(key));
      g_array_append_val(vals, value);
    }
  }
  LangValue r =
      lang_call(L, f->python_function, (LangValue *)vals->data, n_pos, n_kw > 0 ? kwnames.o : NULL);
  lang_decref(kwnames);
  g_array_free(vals, TRUE);
  g_ptr_array_free(argv, TRUE);
  return r;
}

/* ---- trace keys -------------------------------------------------------------------------- */

static char *
object_display(LangState *L, LangValue v)
{
  return g_strdup_printf("<%s.%s object at %#" G_GINT64_MODIFIER "x>",
                         lang_type_of(v)->module ? lang_str_data(lang_type_of(v)->module)
                                                 : "builtins",
                         lang_type_name(v), (gint64)lang_id(v));
  (void)L;
}

/* The trace type of one argument (SPEC §3.1). Transfer full; NULL with an exception. */
static TrTraceType *
arg_type(LangState *L, LangValue v)
{
  switch (v.tag) {
    case LANG_TAG_NONE:
      return tr_trace_type_new_none();
    case LANG_TAG_BOOL:
      return tr_trace_type_new_bool(v.i != 0);
    case LANG_TAG_INT:
      return tr_trace_type_new_int(v.i);
    case LANG_TAG_FLOAT:
      return tr_trace_type_new_float(v.f);
    default:
      break;
  }
  if (lang_tf_is_tensor(v)) {
    TrShape shape;
    lang_tf_shape_of(v, &shape);
    return tr_trace_type_new_tensor(lang_tf_dtype_of(v), &shape, NULL);
  }
  if (lang_tf_is_dataset(v) || lang_tf_is_dataset_iterator(v))
    return lang_tf_data_trace_type(L, v); /* its element spec (lang-tf-data.c) */
  if (lang_is_type(v, &lang_tf_tensor_spec_type)) {
    TensorSpec *s = (TensorSpec *)v.o;
    return tr_trace_type_new_tensor(s->dtype, &s->shape, s->name);
  }
  if (lang_tf_is_variable(v)) {
    TrVariable *var = ((LangTfVariable *)v.o)->var;
    g_autofree char *name = g_strdup_printf("%s:0", var->name);
    return tr_trace_type_new_variable(var->id, var->dtype, &var->shape, name);
  }
  if (lang_is_str(v))
    return tr_trace_type_new_str(lang_str_data(v.o));
  bool list = lang_is_type(v, &lang_list_type), tuple = lang_is_type(v, &lang_tuple_type);
  if (list || tuple) {
    int64_t n = list ? ((LangList *)v.o)->n : lang_tuple_len(v.o);
    TrTraceType **items = g_new(TrTraceType *, n > 0 ? n : 1);
    for (int64_t i = 0; i < n; i++) {
      items[i] = arg_type(L, list ? ((LangList *)v.o)->items[i] : lang_tuple_get(v.o, i));
      if (!items[i]) {
        for (int64_t j = 0; j < i; j++)
          tr_trace_type_unref(items[j]);
        g_free(items);
        return NULL;
      }
    }
    TrTraceType *t =
        list ? tr_trace_type_new_list((int)n, items) : tr_trace_type_new_tuple((int)n, items);
    g_free(items);
    return t;
  }
  if (lang_is_type(v, &lang_dict_type)) {
    int64_t n = ((LangDict *)v.o)->used, i = 0, pos = 0;
    TrTraceType **keys = g_new(TrTraceType *, n > 0 ? n : 1);
    TrTraceType **vals = g_new(TrTraceType *, n > 0 ? n : 1);
    LangValue key, value;
    bool ok = true;
    while (ok && lang_dict_next(v.o, &pos, &key, &value)) {
      bool prim = key.tag == LANG_TAG_NONE || key.tag == LANG_TAG_BOOL || key.tag == LANG_TAG_INT ||
                  key.tag == LANG_TAG_FLOAT || lang_is_str(key);
      keys[i] = prim ? arg_type(L, key) : NULL;
      vals[i] = keys[i] ? arg_type(L, value) : NULL;
      if (!keys[i] || !vals[i]) {
        if (keys[i])
          tr_trace_type_unref(keys[i]);
        ok = false;
        break;
      }
      i++;
    }
    if (!ok) {
      for (int64_t j = 0; j < i; j++) {
        tr_trace_type_unref(keys[j]);
        tr_trace_type_unref(vals[j]);
      }
      g_free(keys);
      g_free(vals);
      if (!lang_exc_pending(L))
        goto identity;
      return NULL;
    }
    TrTraceType *t = tr_trace_type_new_dict((int)n, keys, vals);
    g_free(keys);
    g_free(vals);
    return t;
  }
identity : {
  char *display = object_display(L, v);
  TrTraceType *t = tr_trace_type_new_identity((guint64)lang_id(v), display, false);
  g_free(display);
  return t;
}
}

static TrTraceSig *
call_sig(LangState *L, TfFunction *f, const LangValue *bound)
{
  const Params *p = &f->params;
  TrTraceType *types[64];
  g_autofree TrTraceType **heap = p->n > 64 ? g_new(TrTraceType *, p->n) : NULL;
  TrTraceType **t = heap ? heap : types;
  for (int i = 0; i < p->n; i++) {
    t[i] = arg_type(L, bound[i]);
    if (!t[i]) {
      for (int j = 0; j < i; j++)
        tr_trace_type_unref(t[j]);
      return NULL;
    }
  }
  return tr_trace_sig_new(p->n, p->names, t);
}

/* A Python primitive for a primitive trace type (dict keys). New reference. */
static LangValue
primitive_value(LangState *L, const TrTraceType *t)
{
  switch (t->prim.py) {
    case TR_PY_NONE:
      return LANG_NONE;
    case TR_PY_BOOL:
      return lang_bool(t->prim.i != 0);
    case TR_PY_INT:
      return lang_int(t->prim.i);
    case TR_PY_FLOAT:
      return lang_float(t->prim.f);
    case TR_PY_STR:
      return lang_str_cstr(L, t->prim.s);
  }
  return LANG_NONE;
}

/* The argument for the body while tracing: `v` with every tensor leaf of type `t` replaced by
 * a placeholder of t's dtype and shape named after `name`. Transfer full. */
static LangValue
placeholder_args(LangState *L, TrGraph *g, const TrTraceType *t, LangValue v, const char *name)
{
  if (lang_tf_is_dataset(v) || lang_tf_is_dataset_iterator(v))
    return lang_tf_data_placeholder(L, g, v, name); /* one variant placeholder */
  switch (t->kind) {
    case TR_TRACE_TENSOR: {
      const char *pname = t->tensor.name ? t->tensor.name : name;
      TrNode *node = tr_graph_add_placeholder(g, t->tensor.dtype, &t->tensor.shape, pname);
      return lang_tf_symbolic_new(L, g, tr_node_output(node, 0));
    }
    case TR_TRACE_LIST:
    case TR_TRACE_TUPLE: {
      bool list = t->kind == TR_TRACE_LIST;
      LangValue r = list ? lang_list_new(L, t->seq.n) : lang_tuple_new(L, t->seq.n);
      for (int i = 0; i < t->seq.n; i++) {
        LangValue item = lang_getitem(L, v, lang_int(i));
        if (lang_is_exc(item)) {
          lang_decref(r);
          return item;
        }
        LangValue a = placeholder_args(L, g, t->seq.items[i], item, name);
        lang_decref(item);
        if (lang_is_exc(a)) {
          lang_decref(r);
          return a;
        }
        if (list)
          lang_list_set(r.o, i, a);
        else
          lang_tuple_set(r, i, a);
      }
      return r;
    }
    case TR_TRACE_DICT: {
      LangValue r = lang_dict_new(L);
      for (int i = 0; i < t->seq.n; i++) {
        LangValue key = primitive_value(L, t->seq.keys[i]);
        LangValue item = lang_getitem(L, v, key);
        LangValue a =
            lang_is_exc(item) ? LANG_EXC : placeholder_args(L, g, t->seq.items[i], item, name);
        lang_decref(item);
        if (lang_is_exc(a) || !lang_dict_set(L, r.o, key, a)) {
          lang_decref(key);
          lang_decref(r);
          return LANG_EXC;
        }
        lang_decref(key);
        lang_decref(a);
      }
      return r;
    }
    default:
      return lang_incref(v);
  }
}

/* Operands in placeholder order; small calls keep them on the stack. */
typedef struct {
  LangTfOperand *data; /* `small` or heap */
  int len;             /* operands held */
  int cap;             /* room in data */
  LangTfOperand small[4];
} OperandVec;

static void
operand_vec_init(OperandVec *v)
{
  v->data = v->small;
  v->len = 0;
  v->cap = (int)G_N_ELEMENTS(v->small);
}

static void
operand_vec_push(OperandVec *v, const LangTfOperand *o)
{
  if (v->len == v->cap) {
    LangTfOperand *d = g_new(LangTfOperand, v->cap * 2);
    memcpy(d, v->data, sizeof *d * (size_t)v->len);
    if (v->data != v->small)
      g_free(v->data);
    v->data = d;
    v->cap *= 2;
  }
  v->data[v->len++] = *o;
}

static void
operand_vec_clear(OperandVec *v)
{
  lang_tf_operands_clear(v->data, v->len);
  if (v->data != v->small)
    g_free(v->data);
  operand_vec_init(v);
}

/* The call's tensors in placeholder order, as operands of the current path. */
static bool
collect_inputs(LangState *L, const TrTraceType *t, LangValue v, OperandVec *out)
{
  if (lang_tf_is_dataset(v) || lang_tf_is_dataset_iterator(v)) {
    LangTfOperand o;
    if (!lang_tf_data_operand(L, v, &o))
      return false;
    operand_vec_push(out, &o);
    return true;
  }
  switch (t->kind) {
    case TR_TRACE_TENSOR: {
      LangTfOperand o;
      if (!lang_tf_operand(L, v, TR_DTYPE_INVALID, true, &o))
        return false;
      operand_vec_push(out, &o);
      return true;
    }
    case TR_TRACE_LIST:
    case TR_TRACE_TUPLE:
      for (int i = 0; i < t->seq.n; i++) {
        LangValue item = lang_getitem(L, v, lang_int(i));
        if (lang_is_exc(item))
          return false;
        bool ok = collect_inputs(L, t->seq.items[i], item, out);
        lang_decref(item);
        if (!ok)
          return false;
      }
      return true;
    case TR_TRACE_DICT:
      for (int i = 0; i < t->seq.n; i++) {
        LangValue key = primitive_value(L, t->seq.keys[i]);
        LangValue item = lang_getitem(L, v, key);
        lang_decref(key);
        if (lang_is_exc(item))
          return false;
        bool ok = collect_inputs(L, t->seq.items[i], item, out);
        lang_decref(item);
        if (!ok)
          return false;
      }
      return true;
    default:
      return true;
  }
}

/* ---- signatures as text ------------------------------------------------------------------- */

static void
describe_output(GString *s, TrGraph *g, LangValue t)
{
  if (lang_is_type(t, &output_slot_type)) {
    TrNode *node = tr_graph_output(g, ((OutputSlot *)t.o)->index);
    TrOutput out = tr_node_output(node, 0);
    g_autofree char *shape = tr_shape_to_string(tr_output_shape(out));
    g_string_append_printf(s, "%s Tensor, shape=%s", tr_dtype_name(tr_output_dtype(out)), shape);
    return;
  }
  bool list = lang_is_type(t, &lang_list_type), tuple = lang_is_type(t, &lang_tuple_type);
  if (list || tuple) {
    int64_t n = list ? ((LangList *)t.o)->n : lang_tuple_len(t.o);
    g_string_append_c(s, list ? '[' : '(');
    for (int64_t i = 0; i < n; i++) {
      if (i > 0)
        g_string_append(s, ", ");
      describe_output(s, g, list ? ((LangList *)t.o)->items[i] : lang_tuple_get(t.o, i));
    }
    if (tuple && n == 1)
      g_string_append_c(s, ',');
    g_string_append_c(s, list ? ']' : ')');
    return;
  }
  if (t.tag == LANG_TAG_NONE) {
    g_string_append(s, "NoneTensorSpec()");
    return;
  }
  if (lang_is_type(t, &lang_dict_type)) {
    g_string_append_c(s, '{');
    int64_t pos = 0;
    LangValue key, value;
    bool first = true;
    while (lang_dict_next(t.o, &pos, &key, &value)) {
      if (!first)
        g_string_append(s, ", ");
      first = false;
      if (lang_is_str(key))
        g_string_append_printf(s, "'%s': ", lang_str_data(key.o));
      describe_output(s, g, value);
    }
    g_string_append_c(s, '}');
    return;
  }
  g_string_append(s, lang_type_name(t));
}

/* TensorFlow's pretty-printed signature of a trace:
 *   double(a)
 *     Args:
 *       a: int32 Tensor, shape=()
 *     Returns:
 *       int32 Tensor, shape=()
 * Python-valued parameters appear as `b=2` in the header and not under Args. */
static char *
signature_text(const char *name, const TrTraceSig *sig, TrGraph *g, LangValue outputs)
{
  GString *s = g_string_new(name);
  g_string_append_c(s, '(');
  for (int i = 0; i < sig->n; i++) {
    if (i > 0)
      g_string_append(s, ", ");
    g_string_append(s, sig->names[i]);
    if (sig->types[i]->kind == TR_TRACE_PRIMITIVE) {
      g_autofree char *v = tr_trace_type_primitive_repr(sig->types[i]);
      g_string_append_printf(s, "=%s", v);
    }
  }
  g_string_append(s, ")\n  Args:\n");
  for (int i = 0; i < sig->n; i++) {
    const TrTraceType *t = sig->types[i];
    if (t->kind == TR_TRACE_PRIMITIVE)
      continue;
    if (t->kind == TR_TRACE_TENSOR) {
      g_autofree char *shape = tr_shape_to_string(&t->tensor.shape);
      g_string_append_printf(s, "    %s: %s Tensor, shape=%s\n", sig->names[i],
                             tr_dtype_name(t->tensor.dtype), shape);
    } else {
      g_autofree char *d = tr_trace_type_describe(t);
      g_string_append_printf(s, "    %s: %s\n", sig->names[i], d);
    }
  }
  g_string_append(s, "  Returns:\n    ");
  describe_output(s, g, outputs);
  return g_string_free(s, FALSE);
}

/* ---- tf.print's sink and events ------------------------------------------------------------ */

typedef struct {
  LangState *L;
  TrFn *fn; /* the Function whose graph prints, or NULL */
} PrintSink;

static void
emit_print(LangState *L, TrFn *fn, const char *text, size_t len)
{
  if (!tr_event_bus_wants(lang_tf_event_bus(L), TR_EVENT_TF_PRINT))
    return;
  TrEvent *ev = tr_event_new(TR_EVENT_TF_PRINT);
  ev->cell = lang_tf_get_cell(L);
  if (fn) {
    ev->fn_id = (gint64)tr_fn_get_id(fn);
    ev->fn_name = g_strdup(tr_fn_get_name(fn));
  }
  ev->text = g_strndup(text, len);
  tr_event_bus_emit(lang_tf_event_bus(L), ev);
}

static void
print_sink_write(const char *text, size_t len, bool to_stderr, void *user)
{
  PrintSink *sink = user;
  if (to_stderr)
    lang_write_err(sink->L, text, len);
  else
    lang_write_out(sink->L, text, len);
  emit_print(sink->L, sink->fn, text, len);
}

/* Runs a ConcreteFunction's plan on concrete operands; returns the result structure. */
static LangValue
make_output_tensor(LangState *L, int index, void *user)
{
  TrTensor **outs = user;
  TrTensor *t = outs[index];
  outs[index] = NULL;
  return lang_tf_tensor_new(L, t);
}

static LangValue
run_concrete(LangState *L, TrFn *fn, TrConcreteFn *cf, const LangTfOperand *in, int n_in)
{
  Concrete *c = cf->data;
  TrTensor *inputs[32];
  TrTensor *outputs[32];
  g_autofree TrTensor **heap_in = n_in > 32 ? g_new(TrTensor *, n_in) : NULL;
  g_autofree TrTensor **heap_out = c->n_outputs > 32 ? g_new0(TrTensor *, c->n_outputs) : NULL;
  TrTensor **ins = heap_in ? heap_in : inputs;
  TrTensor **outs = heap_out ? heap_out : outputs;
  for (int i = 0; i < n_in; i++)
    ins[i] = in[i].value;
  PrintSink sink = {L, fn};
  TrRunContext ctx = {print_sink_write, &sink};
  GError *error = NULL;
  if (!tr_plan_run(c->plan, ins, n_in, outs, &ctx, &error))
    return lang_tf_raise_any(L, error);
  if (G_UNLIKELY(lang_tf_state(L)->tapes))
    lang_tf_tape_record_call(L, c->graph, in, n_in, outs, c->n_outputs);
  LangValue r = fill_template(L, c->outputs, make_output_tensor, outs);
  for (int i = 0; i < c->n_outputs; i++)
    if (outs[i])
      tr_tensor_unref(outs[i]);
  return r;
}

/* Inlines a ConcreteFunction into the graph being traced (a Function called while tracing). */
typedef struct {
  TrGraph *g;
  TrOutput *outs;
} InlineOutputs;

static LangValue
make_inline_output(LangState *L, int index, void *user)
{
  InlineOutputs *io = user;
  return lang_tf_symbolic_new(L, io->g, io->outs[index]);
}

static LangValue
inline_concrete(LangState *L, TrConcreteFn *cf, const LangTfOperand *in, int n_in)
{
  Concrete *c = cf->data;
  LangTfTrace *tr = lang_tf_trace(L);
  g_autofree TrOutput *ins = g_new(TrOutput, n_in > 0 ? n_in : 1);
  g_autofree TrOutput *outs = g_new(TrOutput, c->n_outputs > 0 ? c->n_outputs : 1);
  for (int i = 0; i < n_in; i++)
    ins[i] = in[i].out;
  GError *error = NULL;
  if (!tr_graph_inline(tr->graph, c->graph, ins, n_in, outs, c->n_outputs, c->name, &error))
    return lang_tf_raise_any(L, error);
  InlineOutputs io = {tr->graph, outs};
  return fill_template(L, c->outputs, make_inline_output, &io);
}

/* ---- tracing ------------------------------------------------------------------------------ */

/* Runs the body once on placeholders for `sig`. On success *graph_out and *outputs_out hold
 * the traced graph and the result template. */
static bool
trace_once(LangState *L, TfFunction *f, const TrTraceSig *sig, const LangValue *bound,
           bool allow_variables, TrGraph **graph_out, LangValue *outputs_out, int *n_outputs,
           int *n_created)
{
  LangTfState *st = lang_tf_state(L);
  g_autofree char *gname =
      g_strdup_printf("__inference_%s_%" G_GUINT64_FORMAT, lang_str_data(py_function(f)->name),
                      tr_fn_get_id(f->fn) * 1000 + tr_fn_get_stats(f->fn)->traces);
  TrGraph *g = tr_graph_new(gname);
  const Params *p = &f->params;
  LangValue *args = g_new(LangValue, p->n > 0 ? p->n : 1);
  int made = 0;
  bool ok = true;
  for (int i = 0; i < p->n; i++) {
    args[i] = placeholder_args(L, g, sig->types[i], bound[i], p->names[i]);
    if (lang_is_exc(args[i])) {
      ok = false;
      break;
    }
    made++;
  }
  LangValue result = LANG_EXC;
  LangTfTrace trace = {
      .graph = g,
      .outer = st->trace,
      .consts = g_hash_table_new(NULL, NULL),
      .allow_variables = allow_variables,
      .fn_name = tr_fn_get_name(f->fn),
  };
  if (ok) {
    st->trace = &trace;
    result = call_python(L, f, args);
    st->trace = &trace; /* a loop body left by an exception has already handed it back */
    if (trace.error) {
      if (!lang_is_exc(result)) {
        lang_decref(result);
        result = lang_raise_str(L, &lang_tf_exc_OperatorNotAllowedInGraphError, trace.error);
      }
      g_free(trace.error);
    }
    if (!lang_is_exc(result)) {
      *n_outputs = 0;
      LangValue t = make_template(L, g, result, n_outputs);
      lang_decref(result);
      result = t;
    }
    st->trace = trace.outer;
  }
  g_hash_table_unref(trace.consts);
  for (int i = 0; i < made; i++)
    lang_decref(args[i]);
  g_free(args);
  if (lang_is_exc(result)) {
    tr_graph_unref(g);
    return false;
  }
  *graph_out = g;
  *outputs_out = result;
  *n_created = trace.variables_created;
  return true;
}

/* A miss: traces, plans and stores a ConcreteFunction for call->trace_sig. */
static TrConcreteFn *
trace_call(LangState *L, TfFunction *f, TrFnCall *call, const LangValue *bound)
{
  tr_fn_trace_begin(f->fn, call);
  bool first = tr_fn_get_stats(f->fn)->traces == 0;
  TrGraph *g = NULL;
  LangValue outputs = LANG_UNSET;
  int n_outputs = 0, n_created = 0;
  bool ok = trace_once(L, f, call->trace_sig, bound, first, &g, &outputs, &n_outputs, &n_created);
  if (ok && n_created > 0) {
    /* TensorFlow's check: a body that created variables is traced again, and this second
     * trace must create none (the singleton rule); its graph is the one kept. */
    tr_graph_unref(g);
    lang_decref(outputs);
    ok = trace_once(L, f, call->trace_sig, bound, false, &g, &outputs, &n_outputs, &n_created);
  }
  if (!ok) {
    tr_fn_trace_abort(f->fn, call);
    return NULL;
  }
  Concrete *c = g_new0(Concrete, 1);
  c->graph = g;
  c->outputs = outputs;
  c->n_outputs = n_outputs;
  c->name = g_strdup(lang_str_data(py_function(f)->name));
  c->exec = tr_graph_copy(g);
  tr_graph_optimize(c->exec, TR_OPT_ALL, &c->opt);
  tr_fn_trace_set_optimized(call, tr_graph_n_nodes(c->exec));
  if (tr_event_bus_carries_graphs(lang_tf_event_bus(L)))
    tr_fn_trace_set_graph_json(call, tr_graph_to_json(g));
  GError *error = NULL;
  c->plan = tr_plan_new(c->exec, NULL, 0, &error);
  if (!c->plan) {
    concrete_free(c);
    tr_fn_trace_abort(f->fn, call);
    lang_tf_raise_any(L, error);
    return NULL;
  }
  c->signature = signature_text(c->name, call->trace_sig, g, outputs);
  return tr_fn_trace_end(f->fn, call, c, concrete_free, tr_graph_n_nodes(g), (guint64)(uintptr_t)g,
                         c->signature);
}

static void
call_site(LangState *L, TrCallSite *site)
{
  site->file = "<unknown>";
  site->line = 0;
  site->cell = lang_tf_get_cell(L);
  lang_vm_current_location(L, &site->file, &site->line);
}

/* Runs (or inlines) `cf` for the call's bound arguments. */
static LangValue
execute(LangState *L, TfFunction *f, TrConcreteFn *cf, const LangValue *bound)
{
  const TrTraceSig *sig = cf->sig;
  OperandVec vec;
  OperandVec *in = &vec;
  operand_vec_init(in);
  for (int i = 0; i < sig->n; i++) {
    if (!collect_inputs(L, sig->types[i], bound[i], in)) {
      operand_vec_clear(in);
      return LANG_EXC;
    }
  }
  LangValue r;
  if (lang_tf_trace(L)) {
    r = inline_concrete(L, cf, in->data, in->len);
  } else if (!tr_event_bus_wants(lang_tf_event_bus(L), TR_EVENT_GRAPH_EXEC_START)) {
    r = run_concrete(L, f->fn, cf, in->data, in->len);
  } else {
    TrEventBus *bus = lang_tf_event_bus(L);
    Concrete *c = cf->data;
    TrEvent *ev = tr_event_new(TR_EVENT_GRAPH_EXEC_START);
    ev->fn_id = (gint64)tr_fn_get_id(f->fn);
    ev->fn_name = g_strdup(tr_fn_get_name(f->fn));
    ev->cf_id = (gint64)cf->id;
    ev->graph_id = (gint64)cf->graph_id;
    gint64 start = tr_event_bus_now(bus);
    tr_event_bus_emit(bus, ev);
    r = run_concrete(L, f->fn, cf, in->data, in->len);
    ev = tr_event_new(TR_EVENT_GRAPH_EXEC_END);
    ev->fn_id = (gint64)tr_fn_get_id(f->fn);
    ev->fn_name = g_strdup(tr_fn_get_name(f->fn));
    ev->cf_id = (gint64)cf->id;
    ev->graph_id = (gint64)cf->graph_id;
    ev->dur_ns = tr_event_bus_now(bus) - start;
    ev->ok = !lang_is_exc(r);
    tr_event_bus_emit(bus, ev);
    (void)c;
  }
  operand_vec_clear(in);
  return r;
}

/* str() of each argument, for input_signature's ValueError. */
static LangValue
raise_incompatible(LangState *L, TfFunction *f, const LangValue *args, int nargs)
{
  char **texts = g_new0(char *, nargs + 1);
  for (int i = 0; i < nargs; i++) {
    LangValue s = lang_str(L, args[i]);
    if (lang_is_exc(s)) {
      g_strfreev(texts);
      return LANG_EXC;
    }
    texts[i] = g_strdup(lang_str_data(s.o));
    lang_decref(s);
  }
  char *msg = tr_fn_incompatible_message(f->fn, (const char *const *)texts, nargs);
  lang_raise_str(L, &lang_exc_ValueError, msg);
  g_free(msg);
  g_strfreev(texts);
  return LANG_EXC;
}

/* One request (a call or get_concrete_function): returns the result, or with `concrete` the
 * serving ConcreteFunction (a new reference) and None. */
static LangValue
function_request(LangState *L, TfFunction *f, TrFnRequest request, const LangValue *args, int nargs,
                 LangObject *kwnames, TrConcreteFn **concrete)
{
  const Params *p = &f->params;
  LangValue stack[16];
  g_autofree LangValue *heap = p->n > 16 ? g_new(LangValue, p->n) : NULL;
  LangValue *bound = heap ? heap : stack;
  if (!bind_call(L, f, args, nargs, kwnames, bound))
    return LANG_EXC;
  LangValue r = LANG_EXC;
  if (request == TR_FN_REQUEST_CALL && f->last_cf &&
      f->last_n_concrete == tr_fn_get_n_concrete(f->fn) &&
      !tr_fn_registry_get_run_eagerly(lang_tf_registry(L))) {
    bool same = true;
    for (int i = 0; i < p->n && same; i++)
      same = same_key(bound[i], f->last_args->types[i]);
    if (same) {
      TrCallSite site;
      call_site(L, &site);
      TrConcreteFn *cf = f->last_cf;
      gint64 start = tr_fn_hit_begin(f->fn, cf, &site, f->last_reason, f->last_candidates);
      r = execute(L, f, cf, bound);
      tr_fn_hit_end(f->fn, cf, &site, start, !lang_is_exc(r));
      goto out;
    }
  }
  TrTraceSig *sig = call_sig(L, f, bound);
  if (!sig)
    goto out;
  TrCallSite site;
  call_site(L, &site);
  TrFnCall *call = tr_fn_call_begin(f->fn, request, sig, &site);
  tr_trace_sig_unref(sig);
  TrConcreteFn *cf = NULL;
  switch (call->outcome) {
    case TR_OUTCOME_HIT:
      cf = call->concrete;
      break;
    case TR_OUTCOME_MISS:
      cf = trace_call(L, f, call, bound);
      break;
    case TR_OUTCOME_EAGER: {
      /* tf.print in the body reports this Function, as it does from a graph. */
      LangTfState *st = lang_tf_state(L);
      TrFn *outer_fn = st->eager_fn;
      st->eager_fn = f->fn;
      r = call_python(L, f, bound);
      st->eager_fn = outer_fn;
    }
      tr_fn_call_end(f->fn, call, !lang_is_exc(r));
      goto out;
    default:
      raise_incompatible(L, f, args, nargs + (kwnames ? (int)lang_tuple_len(kwnames) : 0));
      tr_fn_call_end(f->fn, call, false);
      goto out;
  }
  if (cf && concrete) {
    *concrete = tr_concrete_fn_ref(cf);
    r = LANG_NONE;
  } else if (cf && call->outcome == TR_OUTCOME_HIT) {
    forget_last(f);
    f->last_args = tr_trace_sig_ref(call->args);
    f->last_cf = tr_concrete_fn_ref(cf);
    f->last_n_concrete = tr_fn_get_n_concrete(f->fn);
    f->last_reason = g_strdup(call->reason);
    f->last_candidates = call->n_candidates;
    r = execute(L, f, cf, bound);
  } else if (cf) {
    r = execute(L, f, cf, bound);
  }
  tr_fn_call_end(f->fn, call, !lang_is_exc(r));
out:
  for (int i = 0; i < p->n; i++)
    lang_decref(bound[i]);
  return r;
}

/* ---- ConcreteFunction ---------------------------------------------------------------------- */

typedef struct {
  LangObject base;    /* lang_tf_concrete_function_type */
  TrConcreteFn *cf;   /* owned reference */
  LangValue function; /* the Function that traced it (owned) */
} ConcreteObject;

static Concrete *
concrete_of(LangValue self)
{
  return ((ConcreteObject *)self.o)->cf->data;
}

static void
concrete_dealloc(LangObject *o)
{
  ConcreteObject *c = (ConcreteObject *)o;
  tr_concrete_fn_unref(c->cf);
  lang_decref(c->function);
}

static void
concrete_clear(LangObject *o)
{
  ConcreteObject *c = (ConcreteObject *)o;
  LangValue fn = c->function;
  c->function = LANG_NONE;
  lang_decref(fn);
}

static LangValue
concrete_new(LangState *L, TrConcreteFn *cf, LangValue function)
{
  ConcreteObject *c = (ConcreteObject *)lang_object_alloc(L, &lang_tf_concrete_function_type,
                                                          sizeof(ConcreteObject));
  c->cf = cf;
  c->function = lang_incref(function);
  return lang_obj(c);
}

/* A baked Python value given again with another value: TensorFlow's TypeError. */
static bool
check_baked(LangState *L, ConcreteObject *c, int i, LangValue v)
{
  const TrTraceSig *sig = c->cf->sig;
  const TrTraceType *t = sig->types[i];
  TrTraceType *given = arg_type(L, v);
  if (!given)
    return false;
  bool same = tr_trace_type_equal(given, t);
  if (!same) {
    GString *params = g_string_new(NULL);
    for (int k = 0; k < sig->n; k++)
      g_string_append_printf(params, "%s%s", k ? ", " : "", sig->names[k]);
    g_autofree char *was = tr_trace_type_primitive_repr(t);
    g_autofree char *now =
        given->kind == TR_TRACE_PRIMITIVE ? tr_trace_type_primitive_repr(given) : NULL;
    lang_raise(L, &lang_exc_TypeError,
               "ConcreteFunction %s(%s) was constructed with %s value %s in %s, but was called "
               "with %s value %s.",
               concrete_of(lang_obj(c))->name, params->str, tr_trace_type_py_type_name(t), was,
               sig->names[i],
               given->kind == TR_TRACE_PRIMITIVE ? tr_trace_type_py_type_name(given)
                                                 : lang_type_name(v),
               now ? now : "(not a Python value)");
    g_string_free(params, TRUE);
  }
  tr_trace_type_unref(given);
  return same;
}

/* ConcreteFunction.__call__: positional arguments fill the tensor parameters in order,
 * keywords any parameter; Python-valued parameters keep their traced value. */
static LangValue
concrete_call(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  ConcreteObject *c = (ConcreteObject *)self.o;
  const TrTraceSig *sig = c->cf->sig;
  int n_kw = kwnames ? (int)lang_tuple_len(kwnames) : 0;
  int n_pos = nargs; /* keyword values follow the positional ones */
  LangValue *bound = g_new(LangValue, sig->n > 0 ? sig->n : 1);
  for (int i = 0; i < sig->n; i++)
    bound[i] = LANG_UNSET;
  LangValue r = LANG_EXC;
  /* Variables may be given positionally (checked to be the traced ones) or left out. */
  int n_tensor = 0;
  for (int i = 0; i < sig->n; i++)
    n_tensor += sig->types[i]->kind != TR_TRACE_PRIMITIVE &&
                sig->types[i]->kind != TR_TRACE_IDENTITY &&
                sig->types[i]->kind != TR_TRACE_VARIABLE;
  bool skip_variables = n_pos <= n_tensor;
  int next = 0;
  for (int a = 0; a < n_pos; a++) {
    while (next < sig->n && (sig->types[next]->kind == TR_TRACE_PRIMITIVE ||
                             sig->types[next]->kind == TR_TRACE_IDENTITY ||
                             (skip_variables && sig->types[next]->kind == TR_TRACE_VARIABLE)))
      next++;
    if (next >= sig->n) {
      lang_raise(L, &lang_exc_TypeError, "%s() takes %d positional arguments but %d were given",
                 concrete_of(self)->name, next, n_pos);
      goto out;
    }
    bound[next++] = args[a];
  }
  for (int k = 0; k < n_kw; k++) {
    const char *name = lang_str_data(lang_tuple_get(kwnames, k).o);
    int i = tr_trace_sig_find(sig, name);
    if (i < 0) {
      lang_raise(L, &lang_exc_TypeError, "%s() got an unexpected keyword argument '%s'",
                 concrete_of(self)->name, name);
      goto out;
    }
    if (!lang_is_unset(bound[i])) {
      lang_raise(L, &lang_exc_TypeError, "%s() got multiple values for argument '%s'",
                 concrete_of(self)->name, name);
      goto out;
    }
    bound[i] = args[n_pos + k];
  }
  OperandVec vec;
  OperandVec *in = &vec;
  operand_vec_init(in);
  for (int i = 0; i < sig->n; i++) {
    const TrTraceType *t = sig->types[i];
    if (t->kind == TR_TRACE_PRIMITIVE || t->kind == TR_TRACE_IDENTITY ||
        t->kind == TR_TRACE_VARIABLE) {
      if (!lang_is_unset(bound[i]) && !check_baked(L, c, i, bound[i])) {
        operand_vec_clear(in);
        goto out;
      }
      continue;
    }
    if (lang_is_unset(bound[i])) {
      lang_raise(L, &lang_exc_TypeError, "%s() missing required argument: '%s'",
                 concrete_of(self)->name, sig->names[i]);
      operand_vec_clear(in);
      goto out;
    }
    if (!collect_inputs(L, t, bound[i], in)) {
      operand_vec_clear(in);
      goto out;
    }
  }
  if (lang_tf_trace(L))
    r = inline_concrete(L, c->cf, in->data, in->len);
  else
    r = run_concrete(L, NULL, c->cf, in->data, in->len);
  operand_vec_clear(in);
out:
  g_free(bound);
  return r;
}

static LangValue
concrete_str(LangState *L, LangValue self)
{
  return lang_str_printf(L, "ConcreteFunction %s", concrete_of(self)->signature);
}

static LangValue
concrete_repr(LangState *L, LangValue self)
{
  /* TensorFlow's: the signature's summary line, e.g. <ConcreteFunction double(a) at 0x7F…>. */
  const char *sig = concrete_of(self)->signature;
  int len = (int)strcspn(sig, "\n");
  return lang_str_printf(L, "<ConcreteFunction %.*s at 0x%" G_GINT64_MODIFIER "X>", len, sig,
                         (gint64)lang_id(self));
}

static LangValue
concrete_get_graph(LangState *L, LangValue self)
{
  return lang_tf_graph_new(L, concrete_of(self)->graph);
}

static LangValue
concrete_get_name(LangState *L, LangValue self)
{
  return lang_str_cstr(L, tr_graph_name(concrete_of(self)->graph));
}

static LangValue
make_symbolic_output(LangState *L, int index, void *user)
{
  TrGraph *g = user;
  return lang_tf_symbolic_new(L, g, tr_node_output(tr_graph_output(g, index), 0));
}

static LangValue
concrete_get_structured_outputs(LangState *L, LangValue self)
{
  Concrete *c = concrete_of(self);
  return fill_template(L, c->outputs, make_symbolic_output, c->graph);
}

static LangValue
concrete_get_outputs(LangState *L, LangValue self)
{
  Concrete *c = concrete_of(self);
  LangValue list = lang_list_new(L, c->n_outputs);
  for (int i = 0; i < c->n_outputs; i++)
    lang_list_set(list.o, i, make_symbolic_output(L, i, c->graph));
  return list;
}

static LangValue
concrete_get_inputs(LangState *L, LangValue self)
{
  Concrete *c = concrete_of(self);
  int n = tr_graph_n_inputs(c->graph);
  LangValue list = lang_list_new(L, n);
  for (int i = 0; i < n; i++)
    lang_list_set(
        list.o, i,
        lang_tf_symbolic_new(L, c->graph, tr_node_output(tr_graph_input(c->graph, i), 0)));
  return list;
}

/* A structured input signature leaf: TensorSpec(name=parameter) for tensors, the value for
 * Python values, the spec structure for lists and dicts. */
static LangValue
input_spec(LangState *L, const TrTraceType *t, const char *name)
{
  switch (t->kind) {
    case TR_TRACE_TENSOR:
      return spec_new(L, &t->tensor.shape, t->tensor.dtype, t->tensor.name ? t->tensor.name : name);
    case TR_TRACE_VARIABLE:
      return spec_new(L, &t->variable.shape, t->variable.dtype, name);
    case TR_TRACE_PRIMITIVE:
      return primitive_value(L, t);
    case TR_TRACE_LIST:
    case TR_TRACE_TUPLE: {
      bool list = t->kind == TR_TRACE_LIST;
      LangValue r = list ? lang_list_new(L, t->seq.n) : lang_tuple_new(L, t->seq.n);
      for (int i = 0; i < t->seq.n; i++) {
        LangValue v = input_spec(L, t->seq.items[i], name);
        if (list)
          lang_list_set(r.o, i, v);
        else
          lang_tuple_set(r, i, v);
      }
      return r;
    }
    case TR_TRACE_DICT: {
      LangValue r = lang_dict_new(L);
      for (int i = 0; i < t->seq.n; i++) {
        LangValue k = primitive_value(L, t->seq.keys[i]);
        LangValue v = input_spec(L, t->seq.items[i], name);
        lang_dict_set(L, r.o, k, v);
        lang_decref(k);
        lang_decref(v);
      }
      return r;
    }
    default: {
      g_autofree char *text = tr_trace_type_to_string(t);
      return lang_str_cstr(L, text);
    }
  }
}

static LangValue
concrete_get_structured_input_signature(LangState *L, LangValue self)
{
  const TrTraceSig *sig = ((ConcreteObject *)self.o)->cf->sig;
  LangValue args = lang_tuple_new(L, sig->n);
  for (int i = 0; i < sig->n; i++)
    lang_tuple_set(args, i, input_spec(L, sig->types[i], sig->names[i]));
  LangValue kwargs = lang_dict_new(L);
  LangValue r = lang_tuple_pack(L, 2, args, kwargs);
  lang_decref(args);
  lang_decref(kwargs);
  return r;
}

static LangValue
concrete_pretty_printed_signature(LangState *L, LangValue self, const LangValue *args, int nargs,
                                  LangObject *kwnames)
{
  LangValue verbose = LANG_UNSET;
  if (!lang_parse_args(L, "pretty_printed_signature", args, nargs, kwnames, "verbose=", &verbose))
    return LANG_EXC;
  return lang_str_cstr(L, concrete_of(self)->signature);
}

static LangValue
concrete_repr_svg(LangState *L, LangValue self, const LangValue *args, int nargs,
                  LangObject *kwnames)
{
  if (!lang_parse_args(L, "_repr_svg_", args, nargs, kwnames, ""))
    return LANG_EXC;
  return svg_of(L, concrete_of(self)->graph);
}

static const LangMethodDef concrete_methods[] = {
    {"pretty_printed_signature", concrete_pretty_printed_signature, "(self, verbose=True)",
     "The trace's signature as text.", 0},
    {"_repr_svg_", concrete_repr_svg, "(self)", "An SVG drawing of the trace's graph.", 0},
    {NULL, NULL, NULL, NULL, 0},
};

static const LangGetSetDef concrete_getsets[] = {
    {"graph", concrete_get_graph, NULL, "The Graph traced for this signature."},
    {"name", concrete_get_name, NULL, "The graph's function name."},
    {"structured_outputs", concrete_get_structured_outputs, NULL,
     "The returned structure, with the graph's output tensors."},
    {"structured_input_signature", concrete_get_structured_input_signature, NULL,
     "((TensorSpec or value per parameter), {}) the trace was made for."},
    {"inputs", concrete_get_inputs, NULL, "The graph's placeholders."},
    {"outputs", concrete_get_outputs, NULL, "The graph's output tensors."},
    {NULL, NULL, NULL, NULL},
};

LangType lang_tf_concrete_function_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "ConcreteFunction",
    .instance_size = sizeof(ConcreteObject),
    .flags = LANG_TYPE_ABSTRACT_NEW | LANG_TYPE_GC,
    .slots = {.dealloc = concrete_dealloc,
              .clear = concrete_clear,
              .repr = concrete_repr,
              .str = concrete_str,
              .call = concrete_call},
    .methods = concrete_methods,
    .getsets = concrete_getsets,
    .doc = "A Graph traced for one signature, with its executor.",
};

/* ---- Function ------------------------------------------------------------------------------- */

static void
function_dealloc(LangObject *o)
{
  TfFunction *f = (TfFunction *)o;
  forget_last(f);
  if (f->fn)
    tr_fn_unref(f->fn);
  lang_decref(f->python_function);
  lang_decref(f->self);
  if (f->bound)
    lang_decref(lang_obj(f->bound));
  lang_decref(f->input_signature);
  g_free(f->params.names);
}

static void
function_clear(LangObject *o)
{
  TfFunction *f = (TfFunction *)o;
  LangValue self = f->self;
  f->self = LANG_UNSET;
  lang_decref(self);
  if (f->bound) {
    LangObject *b = f->bound;
    f->bound = NULL;
    lang_decref(lang_obj(b));
  }
  forget_last(f);
  if (f->fn) {
    TrFn *fn = f->fn;
    f->fn = NULL;
    tr_fn_unref(fn);
  }
}

/* The TrTraceSig of an input_signature: one TensorSpec per positional parameter. */
static TrTraceSig *
input_signature_sig(LangState *L, TfFunction *f, LangValue specs)
{
  LangValue t = lang_tuple_from_iterable(L, specs);
  if (lang_is_exc(t))
    return NULL;
  int64_t n = lang_tuple_len(t.o);
  if (n > f->params.n_pos) {
    lang_raise(L, &lang_exc_TypeError,
               "input_signature has %" G_GINT64_FORMAT " specs but the function takes %d "
               "positional arguments",
               n, f->params.n_pos);
    lang_decref(t);
    return NULL;
  }
  TrTraceType **types = g_new(TrTraceType *, n > 0 ? n : 1);
  for (int64_t i = 0; i < n; i++) {
    LangValue s = lang_tuple_get(t.o, i);
    if (!lang_is_type(s, &lang_tf_tensor_spec_type) && !lang_is_type(s, &lang_list_type) &&
        !lang_is_type(s, &lang_tuple_type)) {
      for (int64_t j = 0; j < i; j++)
        tr_trace_type_unref(types[j]);
      g_free(types);
      lang_decref(t);
      lang_raise_str(L, &lang_exc_TypeError,
                     "input_signature must be a possibly nested sequence of TensorSpec objects");
      return NULL;
    }
    types[i] = arg_type(L, s);
  }
  TrTraceSig *sig = tr_trace_sig_new((int)n, f->params.names, types);
  g_free(types);
  lang_decref(t);
  return sig;
}

static LangValue
function_new(LangState *L, LangValue func, LangValue self, LangValue input_signature,
             bool reduce_retracing)
{
  TfFunction *f = (TfFunction *)lang_object_alloc(L, &lang_tf_function_type, sizeof(TfFunction));
  f->python_function = lang_incref(func);
  f->self = lang_is_unset(self) ? LANG_UNSET : lang_incref(self);
  f->input_signature = lang_incref(input_signature);
  f->reduce_retracing = reduce_retracing;
  f->bound = NULL;
  f->fn = NULL;
  LangValue obj = lang_obj(f);
  if (!params_init(L, &f->params, func, !lang_is_unset(self))) {
    lang_decref(obj);
    return LANG_EXC;
  }
  LangFunction *pf = py_function(f);
  g_autofree char *display = g_strdup_printf("<function %s at %#" G_GINT64_MODIFIER "x>",
                                             lang_str_data(pf->qualname), (gint64)lang_id(func));
  TrTraceSig *isig = NULL;
  if (input_signature.tag != LANG_TAG_NONE && !lang_is_unset(input_signature)) {
    isig = input_signature_sig(L, f, input_signature);
    if (!isig) {
      lang_decref(obj);
      return LANG_EXC;
    }
  }
  TrFnOptions options = {
      .name = lang_str_data(pf->name),
      .display = display,
      .py_function_key = (guint64)lang_id(func),
      .reduce_retracing = reduce_retracing,
      .input_signature = isig,
  };
  f->fn = tr_fn_new(lang_tf_registry(L), &options);
  if (isig)
    tr_trace_sig_unref(isig);
  return obj;
}

static LangValue
function_call(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  TfFunction *f = (TfFunction *)self.o;
  if (!f->fn)
    return lang_raise_str(L, &lang_exc_RuntimeError, "the Function was torn down");
  LangValue r = function_request(L, f, TR_FN_REQUEST_CALL, args, nargs, kwnames, NULL);
  if (lang_is_exc(r) && tr_event_bus_wants(lang_tf_event_bus(L), TR_EVENT_ERROR)) {
    /* The call raised: an error event with the exception's last traceback line. */
    LangValue exc = lang_exc_fetch(L);
    GString *text = g_string_new(NULL);
    lang_exc_format_only(L, exc, text);
    lang_exc_clear(L);
    TrCallSite site;
    call_site(L, &site);
    TrEvent *ev = tr_event_new(TR_EVENT_ERROR);
    tr_event_set_site(ev, site.file, site.line, site.cell);
    ev->fn_id = (gint64)tr_fn_get_id(f->fn);
    ev->fn_name = g_strdup(tr_fn_get_name(f->fn));
    ev->name = g_strdup(lang_type_name(exc));
    ev->text = g_strchomp(g_string_free(text, FALSE));
    tr_event_bus_emit(lang_tf_event_bus(L), ev);
    lang_exc_set(L, exc);
    lang_decref(exc);
  }
  return r;
}

/* A method decorated with tf.function: one Function per instance, as TensorFlow keeps them. */
static LangValue
function_descr_get(LangState *L, LangValue descr, LangValue obj, LangType *owner)
{
  TfFunction *f = (TfFunction *)descr.o;
  if (lang_is_unset(obj) || obj.tag == LANG_TAG_NONE || !lang_is_unset(f->self))
    return lang_incref(descr);
  if (!f->bound)
    f->bound = lang_dict_new(L).o;
  LangValue key = lang_int(lang_id(obj));
  LangValue have;
  int found = lang_dict_lookup(L, f->bound, key, &have);
  if (found < 0)
    return LANG_EXC;
  if (found)
    return lang_incref(have);
  LangValue b = function_new(L, f->python_function, obj, f->input_signature, f->reduce_retracing);
  if (lang_is_exc(b))
    return b;
  if (!lang_dict_set(L, f->bound, key, b)) {
    lang_decref(b);
    return LANG_EXC;
  }
  (void)owner;
  return b;
}

static LangValue
function_get_concrete_function(LangState *L, LangValue self, const LangValue *args, int nargs,
                               LangObject *kwnames)
{
  TfFunction *f = (TfFunction *)self.o;
  TrConcreteFn *cf = NULL;
  LangValue r;
  if (nargs == 0 && tr_fn_get_input_signature(f->fn) && tr_fn_get_n_concrete(f->fn) > 0) {
    cf = tr_concrete_fn_ref(tr_fn_get_concrete(f->fn, 0));
  } else if (nargs == 0 && tr_fn_get_input_signature(f->fn)) {
    /* Trace the input_signature: build specs as the arguments. */
    TrTraceSig *isig = tr_fn_get_input_signature(f->fn);
    LangValue *specs = g_new(LangValue, isig->n > 0 ? isig->n : 1);
    for (int i = 0; i < isig->n; i++)
      specs[i] = input_spec(L, isig->types[i], NULL);
    r = function_request(L, f, TR_FN_REQUEST_GET_CONCRETE, specs, isig->n, NULL, &cf);
    for (int i = 0; i < isig->n; i++)
      lang_decref(specs[i]);
    g_free(specs);
    if (lang_is_exc(r))
      return r;
  } else {
    r = function_request(L, f, TR_FN_REQUEST_GET_CONCRETE, args, nargs, kwnames, &cf);
    if (lang_is_exc(r))
      return r;
  }
  return concrete_new(L, cf, self);
}

static LangValue
function_pretty_printed(LangState *L, LangValue self, const LangValue *args, int nargs,
                        LangObject *kwnames)
{
  LangValue verbose = LANG_UNSET;
  if (!lang_parse_args(L, "pretty_printed_concrete_signatures", args, nargs, kwnames,
                       "verbose=", &verbose))
    return LANG_EXC;
  TfFunction *f = (TfFunction *)self.o;
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < tr_fn_get_n_concrete(f->fn); i++) {
    Concrete *c = tr_fn_get_concrete(f->fn, i)->data;
    if (i > 0)
      g_string_append(s, "\n\n");
    g_string_append(s, c->signature);
  }
  LangValue r = lang_str_cstr(L, s->str);
  g_string_free(s, TRUE);
  return r;
}

static LangValue
function_tracing_count(LangState *L, LangValue self, const LangValue *args, int nargs,
                       LangObject *kwnames)
{
  if (!lang_parse_args(L, "experimental_get_tracing_count", args, nargs, kwnames, ""))
    return LANG_EXC;
  return lang_int((int64_t)tr_fn_get_stats(((TfFunction *)self.o)->fn)->traces);
}

static LangValue
function_get_python_function(LangState *L, LangValue self)
{
  return lang_incref(((TfFunction *)self.o)->python_function);
}

static LangValue
function_get_name(LangState *L, LangValue self)
{
  return lang_incref(lang_obj(py_function((TfFunction *)self.o)->name));
}

static LangValue
function_get_doc(LangState *L, LangValue self)
{
  return lang_incref(py_function((TfFunction *)self.o)->doc);
}

static LangValue
function_get_input_signature(LangState *L, LangValue self)
{
  LangValue s = ((TfFunction *)self.o)->input_signature;
  return lang_is_unset(s) ? LANG_NONE : lang_incref(s);
}

static LangValue
function_repr(LangState *L, LangValue self)
{
  return lang_str_printf(L,
                         "<tensorflow.python.eager.polymorphic_function.polymorphic_function."
                         "Function object at %#" G_GINT64_MODIFIER "x>",
                         (gint64)lang_id(self));
}

static const LangMethodDef function_methods[] = {
    {"get_concrete_function", function_get_concrete_function, "(self, *args, **kwargs)",
     "The ConcreteFunction for these arguments or TensorSpecs, tracing if needed.", 0},
    {"pretty_printed_concrete_signatures", function_pretty_printed, "(self, verbose=True)",
     "Every trace's signature as text.", 0},
    {"experimental_get_tracing_count", function_tracing_count, "(self)",
     "How many times the Function has traced.", 0},
    {NULL, NULL, NULL, NULL, 0},
};

static const LangGetSetDef function_getsets[] = {
    {"python_function", function_get_python_function, NULL, "The decorated Python function."},
    {"__name__", function_get_name, NULL, "The Python function's name."},
    {"__doc__", function_get_doc, NULL, "The Python function's docstring."},
    {"input_signature", function_get_input_signature, NULL, "The input_signature, or None."},
    {NULL, NULL, NULL, NULL},
};

LangType lang_tf_function_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "Function",
    .instance_size = sizeof(TfFunction),
    .flags = LANG_TYPE_ABSTRACT_NEW | LANG_TYPE_GC,
    .slots = {.dealloc = function_dealloc,
              .clear = function_clear,
              .repr = function_repr,
              .call = function_call,
              .descr_get = function_descr_get},
    .methods = function_methods,
    .getsets = function_getsets,
    .doc = "A callable that traces a Python function into graphs, one per input signature.",
};

/* ---- tf.function ----------------------------------------------------------------------------- */

/* tf.function(input_signature=...) without a function: the decorator it returns. */
typedef struct {
  LangObject base;           /* decorator_type */
  LangValue input_signature; /* owned */
  bool reduce_retracing;
} Decorator;

static void
decorator_dealloc(LangObject *o)
{
  lang_decref(((Decorator *)o)->input_signature);
}

static LangValue
decorator_call(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue func;
  if (!lang_parse_args(L, "function", args, nargs, kwnames, "func", &func))
    return LANG_EXC;
  Decorator *d = (Decorator *)self.o;
  return function_new(L, func, LANG_UNSET, d->input_signature, d->reduce_retracing);
}

static LangType decorator_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "function_decorator",
    .instance_size = sizeof(Decorator),
    .flags = LANG_TYPE_ABSTRACT_NEW,
    .slots = {.dealloc = decorator_dealloc, .call = decorator_call},
};

static LangValue
tf_function(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue func = LANG_UNSET, isig = LANG_UNSET, autograph = LANG_UNSET, jit = LANG_UNSET,
            reduce = LANG_UNSET, relax = LANG_UNSET, impl = LANG_UNSET, types = LANG_UNSET;
  if (!lang_parse_args(L, "function", args, nargs, kwnames,
                       "func=,input_signature=,autograph=,jit_compile=,reduce_retracing=,"
                       "experimental_relax_shapes=,experimental_implements=,"
                       "experimental_follow_type_hints=",
                       &func, &isig, &autograph, &jit, &reduce, &relax, &impl, &types))
    return LANG_EXC;
  bool reduce_retracing = false;
  LangValue r_opt = !lang_is_unset(reduce) ? reduce : relax;
  if (!lang_is_unset(r_opt)) {
    int b = lang_truth(L, r_opt);
    if (b < 0)
      return LANG_EXC;
    reduce_retracing = b;
  }
  LangValue sig = lang_is_unset(isig) ? LANG_NONE : isig;
  if (lang_is_unset(func) || func.tag == LANG_TAG_NONE) {
    Decorator *d = (Decorator *)lang_object_alloc(L, &decorator_type, sizeof(Decorator));
    d->input_signature = lang_incref(sig);
    d->reduce_retracing = reduce_retracing;
    return lang_obj(d);
  }
  return function_new(L, func, LANG_UNSET, sig, reduce_retracing);
}

/* ---- tf.print ------------------------------------------------------------------------------ */

static LangValue
tf_print(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  const LangValue *inputs;
  int n;
  LangValue stream = LANG_UNSET, summarize = LANG_UNSET, sep = LANG_UNSET, end = LANG_UNSET,
            name = LANG_UNSET;
  if (!lang_parse_args(L, "print", args, nargs, kwnames,
                       "*inputs,output_stream=,summarize=,sep=,end=,name=", &inputs, &n, &stream,
                       &summarize, &sep, &end, &name))
    return LANG_EXC;
  int64_t sum = 3;
  if (!lang_is_unset(summarize) && summarize.tag != LANG_TAG_NONE &&
      !lang_to_index(L, summarize, &sum))
    return LANG_EXC;
  const char *sep_text = lang_is_str(sep) ? lang_str_data(sep.o) : " ";
  const char *end_text = lang_is_str(end) ? lang_str_data(end.o) : "\n";
  bool to_stderr = false;
  if (!lang_is_unset(stream) && stream.tag != LANG_TAG_NONE) {
    LangValue r = lang_repr(L, stream);
    if (lang_is_exc(r))
      return r;
    to_stderr = strstr(lang_str_data(r.o), "stderr") != NULL;
    lang_decref(r);
  }
  LangTfTrace *tr = lang_tf_trace(L);
  GPtrArray *texts = g_ptr_array_new_with_free_func(g_free);
  TrPrintArg *pargs = g_new0(TrPrintArg, n > 0 ? n : 1);
  LangTfOperand *ops = g_new0(LangTfOperand, n > 0 ? n : 1);
  LangValue result = LANG_EXC;
  for (int i = 0; i < n; i++) {
    LangValue v = inputs[i];
    if (lang_tf_is_tensor(v) || lang_tf_is_variable(v)) {
      if (!lang_tf_operand(L, v, TR_DTYPE_INVALID, true, &ops[i]))
        goto out;
      if (tr) {
        pargs[i].tensor = ops[i].out;
      } else {
        char *t = tr_format_print_tensor(ops[i].value, (int)sum);
        g_ptr_array_add(texts, t);
        pargs[i].text = t;
      }
    } else {
      LangValue s = lang_str(L, v);
      if (lang_is_exc(s))
        goto out;
      char *t = g_strdup(lang_str_data(s.o));
      lang_decref(s);
      g_ptr_array_add(texts, t);
      pargs[i].text = t;
    }
  }
  if (tr) {
    GError *error = NULL;
    if (!tr_graph_add_tf_print(tr->graph, pargs, n, sep_text, end_text, &error)) {
      lang_tf_raise_any(L, error);
      goto out;
    }
  } else {
    GString *s = g_string_new(NULL);
    for (int i = 0; i < n; i++) {
      if (i > 0)
        g_string_append(s, sep_text);
      g_string_append(s, pargs[i].text);
    }
    g_string_append(s, end_text);
    if (to_stderr)
      lang_write_err(L, s->str, s->len);
    else
      lang_write_out(L, s->str, s->len);
    emit_print(L, lang_tf_state(L)->eager_fn, s->str, s->len);
    g_string_free(s, TRUE);
  }
  result = LANG_NONE;
out:
  lang_tf_operands_clear(ops, n);
  g_free(ops);
  g_free(pargs);
  g_ptr_array_unref(texts);
  return result;
}

/* ---- tf.init_scope ----------------------------------------------------------------------------
 */

typedef struct {
  LangObject base;    /* init_scope_type */
  LangTfTrace *saved; /* the trace suspended by __enter__ */
  bool entered;       /* between __enter__ and __exit__ */
} InitScope;

static LangValue
init_scope_enter(LangState *L, LangValue self, const LangValue *args, int nargs,
                 LangObject *kwnames)
{
  InitScope *s = (InitScope *)self.o;
  LangTfState *st = lang_tf_state(L);
  s->saved = st->trace;
  s->entered = true;
  st->trace = NULL;
  return LANG_NONE;
}

static LangValue
init_scope_exit(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  InitScope *s = (InitScope *)self.o;
  if (s->entered) {
    lang_tf_state(L)->trace = s->saved;
    s->entered = false;
  }
  return LANG_FALSE;
}

static const LangMethodDef init_scope_methods[] = {
    {"__enter__", init_scope_enter, "(self)", NULL, 0},
    {"__exit__", init_scope_exit, "(self, *exc)", NULL, 0},
    {NULL, NULL, NULL, NULL, 0},
};

static LangType init_scope_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "init_scope",
    .instance_size = sizeof(InitScope),
    .flags = LANG_TYPE_ABSTRACT_NEW,
    .methods = init_scope_methods,
};

static LangValue
tf_init_scope(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  if (!lang_parse_args(L, "init_scope", args, nargs, kwnames, ""))
    return LANG_EXC;
  InitScope *s = (InitScope *)lang_object_alloc(L, &init_scope_type, sizeof(InitScope));
  s->saved = NULL;
  s->entered = false;
  return lang_obj(s);
}

/* ---- tf.config ------------------------------------------------------------------------------ */

static LangValue
config_run_functions_eagerly(LangState *L, LangValue self, const LangValue *args, int nargs,
                             LangObject *kwnames)
{
  LangValue run;
  if (!lang_parse_args(L, "run_functions_eagerly", args, nargs, kwnames, "run_eagerly", &run))
    return LANG_EXC;
  int b = lang_truth(L, run);
  if (b < 0)
    return LANG_EXC;
  tr_fn_registry_set_run_eagerly(lang_tf_registry(L), b);
  return LANG_NONE;
}

static LangValue
config_functions_run_eagerly(LangState *L, LangValue self, const LangValue *args, int nargs,
                             LangObject *kwnames)
{
  if (!lang_parse_args(L, "functions_run_eagerly", args, nargs, kwnames, ""))
    return LANG_EXC;
  return lang_bool(tr_fn_registry_get_run_eagerly(lang_tf_registry(L)));
}

static const LangMethodDef config_functions[] = {
    {"run_functions_eagerly", config_run_functions_eagerly, "(run_eagerly)",
     "Enables or disables running every tf.function's Python body directly.", 0},
    {"functions_run_eagerly", config_functions_run_eagerly, "()",
     "Whether tf.functions run eagerly.", 0},
    {NULL, NULL, NULL, NULL, 0},
};

static const LangMethodDef module_functions[] = {
    {"function", tf_function,
     "(func=None, input_signature=None, autograph=True, jit_compile=None, "
     "reduce_retracing=False)",
     "Compiles a function into a callable TensorFlow graph.", 0},
    {"print", tf_print, "(*inputs, output_stream=sys.stdout, summarize=3, sep=' ', end='\\n')",
     "Prints tensors; inside a tf.function it is an op that prints on every execution.", 0},
    {"init_scope", tf_init_scope, "()",
     "A context manager that runs its block eagerly, outside the graph being traced.", 0},
    {NULL, NULL, NULL, NULL, 0},
};

/* The retracing warning on stderr, as TensorFlow's logger prints it. */
static void
print_warnings(const TrEvent *ev, gpointer user)
{
  if (ev->kind != TR_EVENT_RETRACING_WARNING || !ev->text)
    return;
  LangState *L = user;
  g_autofree char *line = g_strdup_printf("WARNING:tensorflow:%s\n", ev->text);
  lang_write_err(L, line, strlen(line));
}

bool
lang_tf_function_module_init(LangState *L, LangValue module)
{
  lang_type_ready(&lang_tf_tensor_spec_type, "tensorflow");
  lang_type_ready(&lang_tf_graph_type, "tensorflow.python.framework.func_graph");
  lang_type_ready(&lang_tf_function_type,
                  "tensorflow.python.eager.polymorphic_function.polymorphic_function");
  lang_type_ready(&lang_tf_concrete_function_type,
                  "tensorflow.python.eager.polymorphic_function.concrete_function");
  lang_type_ready(&lang_tf_variable_type, "tensorflow");
  lang_type_ready(&output_slot_type, "tensorflow");
  lang_type_ready(&decorator_type, "tensorflow");
  lang_type_ready(&init_scope_type, "tensorflow");
  LangTfState *st = lang_tf_state(L);
  if (!st->warnings_subscribed) {
    tr_event_bus_subscribe_kinds(st->bus, G_GUINT64_CONSTANT(1) << TR_EVENT_RETRACING_WARNING,
                                 print_warnings, L, NULL, false);
    st->warnings_subscribed = true;
  }
  if (!lang_module_add_functions(L, module, module_functions) ||
      !lang_module_add_type(L, module, &lang_tf_tensor_spec_type) ||
      !lang_module_add_type(L, module, &lang_tf_variable_type) ||
      !lang_tf_gradient_module_init(L, module) || !lang_tf_autograph_module_init(L, module))
    return false;
  LangValue config = lang_module_new(L, "tensorflow.config", "Configuration.");
  lang_module_add_functions(L, config, config_functions);
  lang_module_add(L, module, "config", config);
  lang_decref(config);

  LangValue code = lang_compile_source(L, tf_python_source, -1, "tensorflow.py", 0);
  if (lang_is_exc(code))
    return false;
  LangValue r = lang_vm_run_module(L, (LangCode *)code.o, lang_module_dict(module), NULL);
  lang_decref(code);
  if (lang_is_exc(r))
    return false;
  lang_decref(r);
  return true;
}

LangValue
lang_tf_module_new(LangState *L)
{
  LangValue m = lang_tf_module_init(L);
  if (lang_is_exc(m))
    return m;
  if (!lang_tf_function_module_init(L, m)) {
    lang_decref(m);
    return LANG_EXC;
  }
  return m;
}
