/* lang-tf-private.h — what the files of the `tensorflow` module share: the session state, the
 * trace in progress, and the op dispatcher that runs an op eagerly or adds it to a graph.
 *
 * One op, two paths (DESIGN): every function of the module turns its tensor arguments into
 * operands with lang_tf_operand() and calls lang_tf_apply(). Outside a trace an operand is a
 * concrete tensor and the op runs at once; while a Function traces, an operand is an output of
 * the graph being built (concrete tensors and Python values become Const nodes, Variables a
 * ReadVariableOp of their captured handle) and the op adds a node.
 */
#pragma once

#include "lang-runtime-private.h"
#include "lang-tf.h"
#include "tr-fn.h"
#include "tr-graph.h"
#include "tr-plan.h"

G_BEGIN_DECLS

/* ---- traces ------------------------------------------------------------------------------ */

typedef struct LangTfTrace LangTfTrace;

/* A graph being built while a Function's Python body runs on symbolic tensors. */
struct LangTfTrace {
  TrGraph *graph;        /* being built (owned reference) */
  LangTfTrace *outer;    /* the trace this one runs inside (a Function called while tracing) */
  GHashTable *consts;    /* TrTensor* -> TrNode*: eager tensors captured as constants */
  bool allow_variables;  /* the Function's first trace: tf.Variable() may run */
  int variables_created; /* tf.Variable() calls while this trace ran */
  const char *fn_name;   /* the Function being traced, for errors */
  GArray *captures;      /* loop bodies: LangTfCapture, outer tensors they take as inputs */
  char *error;           /* set when a loop body was left unfinished (break, return) */
};

/* A tensor of an enclosing graph used inside a loop body: the body takes it as an input. */
typedef struct {
  TrOutput outer; /* in the enclosing trace's graph */
  TrNode *inner;  /* the body's placeholder */
} LangTfCapture;

/* State of the module in one LangState. */
typedef struct {
  LangTfTrace *trace;       /* innermost trace in progress; NULL while eager (also in init_scope) */
  TrEventBus *bus;          /* the session's event bus (owned) */
  TrFnRegistry *registry;   /* Functions of this session (owned) */
  gint64 cell;              /* execution count of the running cell, for events (0: none) */
  bool warnings_subscribed; /* the retracing warning is printed to the session's stderr */
  TrFn *eager_fn;           /* the Function whose body runs eagerly now (its tf.print events) */
  struct LangTfTape *tapes; /* GradientTapes inside their `with`, innermost first (borrowed) */
} LangTfState;

/* The module state of `L`, made on first use. */
LangTfState *lang_tf_state(LangState *L);

/* The graph being built, or NULL when ops run eagerly. */
static inline LangTfTrace *
lang_tf_trace(LangState *L)
{
  return lang_tf_state(L)->trace;
}

/* ---- symbolic tensors --------------------------------------------------------------------- */

/* A tf.Tensor naming output `out` of `graph` (a reference on graph is taken). */
LangValue lang_tf_symbolic_new(LangState *L, TrGraph *graph, TrOutput out);
static inline bool
lang_tf_is_symbolic(LangValue v)
{
  return lang_tf_is_tensor(v) && ((LangTfTensor *)v.o)->value == NULL;
}
/* The graph and output of a symbolic tensor. */
TrGraph *lang_tf_symbolic_graph(LangValue v);
TrOutput lang_tf_symbolic_output(LangValue v);

/* The dtype of a tensor or Variable (concrete or symbolic), or TR_DTYPE_INVALID for anything
 * else: the hint Python values next to it are converted with. */
TrDType lang_tf_dtype_of(LangValue v);
/* The (possibly partial) static shape of a tensor or Variable; false for other values. */
bool lang_tf_shape_of(LangValue v, TrShape *out);

/* ---- operands and the dispatcher ----------------------------------------------------------- */

/* One input of an op: a concrete tensor (eager) or a graph output (tracing). */
typedef struct {
  TrTensor *value; /* eager: the value (owned reference); NULL while tracing */
  TrOutput out;    /* tracing: the output in the trace's graph */
  TrDType dtype;   /* the operand's dtype, either way */
  TrShape shape;   /* its static shape (partial while tracing) */
} LangTfOperand;

/* convert_to_tensor(v) as an operand of the current path. `dtype` (TR_DTYPE_INVALID: infer)
 * is required, or with `hint` only preferred, as lang_tf_convert. Accepts tensors (symbolic
 * ones of the current trace only: any other is a leaked tensor, a TypeError), Variables, and
 * Python values. False with an exception raised. */
bool lang_tf_operand(LangState *L, LangValue v, TrDType dtype, bool hint, LangTfOperand *out);
/* Two operands that take each other's dtype as a hint (x + 1.0, tf.add(x, 2)). */
bool lang_tf_operand_pair(LangState *L, LangValue x, LangValue y, LangTfOperand *ox,
                          LangTfOperand *oy);
/* An operand from a concrete tensor (transfer full of t), for the current path. */
bool lang_tf_operand_from_tensor(LangState *L, TrTensor *t, LangTfOperand *out);
void lang_tf_operand_clear(LangTfOperand *o);
void lang_tf_operands_clear(LangTfOperand *o, int n);

/* Applies `op` to `in`: runs it (eager) or adds a node named after `name` (NULL: the op's
 * default) to the trace's graph. Returns the new tf.Tensor, or LANG_EXC with TensorFlow's
 * error raised. The operands stay owned by the caller. */
LangValue lang_tf_apply(LangState *L, TrOpId op, const LangTfOperand *in, int n,
                        const TrAttrs *attrs, const char *name);
/* As lang_tf_apply, but the result is an operand (for functions that chain several ops). */
bool lang_tf_apply_operand(LangState *L, TrOpId op, const LangTfOperand *in, int n,
                           const TrAttrs *attrs, const char *name, LangTfOperand *result);
/* The tf.Tensor for an operand (eager: takes over its value). */
LangValue lang_tf_operand_to_value(LangState *L, LangTfOperand *o);
/* Python's `/` on two operands: integers are cast to float64 first (TensorFlow's truediv). */
LangValue lang_tf_apply_truediv(LangState *L, const LangTfOperand *a, const LangTfOperand *b);

/* A concrete value needed at trace time (a static axis, a shape): the eager value of v, or of
 * a Const node when v is symbolic; NULL (no exception) when it is not known statically.
 * Transfer full. */
TrTensor *lang_tf_static_value(LangState *L, LangValue v);

/* Raises a TR_GRAPH_ERROR (graph construction) as its Python class and frees it. */
LangValue lang_tf_raise_graph_error(LangState *L, GError *error);
/* Raises any GError of core/tensor or core/graph as its Python class and frees it. */
LangValue lang_tf_raise_any(LangState *L, GError *error);

/* Python's operators on tensors and Variables (either side may be a Python value). */
LangValue lang_tf_binop(LangState *L, LangArith op, LangValue a, LangValue b);
LangValue lang_tf_compare(LangState *L, LangValue a, LangValue b, LangCompareOp op);
/* NumPy-style indexing of a tensor (one StridedSlice). */
LangValue lang_tf_getitem(LangState *L, LangValue self, LangValue key);

/* `for x in t` over a symbolic tensor while tracing: an iterator that traces the loop body
 * once into a While node (AutoGraph). */
LangValue lang_tf_loop_new(LangState *L, LangValue tensor);

/* Where the elements of an AutoGraph `for` loop come from inside a trace: loop variables that
 * carry the source's state, and graph code that tests for, produces and advances to the next
 * element. A tf.range, a tensor and a tf.data.Dataset are sources. */
typedef struct {
  int n_state;              /* state loop variables, 1..LANG_TF_LOOP_MAX_STATE */
  const char *const *names; /* their placeholder names in the body and cond graphs */
  /* The state's initial values, added to `g` (the enclosing graph of the loop). */
  bool (*init)(LangState *L, void *data, TrGraph *g, TrOutput *state, GError **error);
  /* In the cond graph: a scalar bool, true while there is an element. */
  bool (*test)(void *data, TrGraph *cond, const TrOutput *state, TrOutput *more, GError **error);
  /* In the body graph, before the body runs: the value the loop target receives (a new
   * reference: a symbolic tensor of `body`, or a tuple of them), or LANG_EXC. */
  LangValue (*element)(LangState *L, void *data, TrGraph *body, const TrOutput *state);
  /* In the body graph, after the body ran: the state's next values. */
  bool (*step)(void *data, TrGraph *body, const TrOutput *state, TrOutput *next, GError **error);
  void (*free)(void *data); /* data's destructor, or NULL */
} LangTfLoopSource;

enum { LANG_TF_LOOP_MAX_STATE = 16 };

/* The loop iterator of lang_tf_loop_new for any source; takes over `data`. */
LangValue lang_tf_loop_new_source(LangState *L, const LangTfLoopSource *source, void *data);

/* Adds tf.autograph (to_code) to the module. */
bool lang_tf_autograph_module_init(LangState *L, LangValue module);

extern LangType lang_tf_exc_OperatorNotAllowedInGraphError;

/* ---- Variables ----------------------------------------------------------------------------- */

typedef struct {
  LangObject base; /* lang_tf_variable_type */
  TrVariable *var; /* the shared state (owned reference) */
} LangTfVariable;

extern LangType lang_tf_variable_type;

static inline bool
lang_tf_is_variable(LangValue v)
{
  return v.tag == LANG_TAG_OBJ && v.o->type == &lang_tf_variable_type;
}

/* ---- tf.function ------------------------------------------------------------------------- */

extern LangType lang_tf_function_type;          /* Function */
extern LangType lang_tf_concrete_function_type; /* ConcreteFunction */
extern LangType lang_tf_tensor_spec_type;       /* TensorSpec */
extern LangType lang_tf_graph_type;             /* Graph (FuncGraph) */

/* A Graph object showing `graph` (a reference is taken). */
LangValue lang_tf_graph_new(LangState *L, TrGraph *graph);

/* Adds tf.function, tf.TensorSpec, tf.Variable, tf.init_scope, tf.print, tf.config and the
 * Python-source parts (tf.Module) to the module. */
bool lang_tf_function_module_init(LangState *L, LangValue module);

/* ---- tf.keras (lang-tf-keras.c) ----------------------------------------------------------- */

/* The `tensorflow.keras` module: empty until one of its attributes is read, when it runs
 * core/lang/py/keras.py (layers, optimizers) in its namespace. A new reference. */
LangValue lang_tf_keras_module_new(LangState *L);

/* ---- tf.GradientTape (lang-tf-gradient.c) --------------------------------------------------- */

typedef struct LangTfTape LangTfTape;
extern LangType lang_tf_gradient_tape_type;

/* Hooks of the eager path, each a no-op unless a tape records (check `lang_tf_state(L)->tapes`
 * first: they are called on every op). An op just run eagerly: `result->value` may be replaced
 * by a header of its own when a tape knows that tensor already. */
void lang_tf_tape_record_op(LangState *L, TrOpId op, const TrAttrs *attrs, const LangTfOperand *in,
                            int n, LangTfOperand *result);
/* A Variable (the language object) read eagerly into `*value` (may be replaced likewise). */
void lang_tf_tape_read_variable(LangState *L, LangValue variable, TrTensor **value);
/* A ConcreteFunction's `graph` ran eagerly on `in`, giving `outs` (each may be replaced). */
void lang_tf_tape_record_call(LangState *L, TrGraph *graph, const LangTfOperand *in, int n_in,
                              TrTensor **outs, int n_outs);
/* Adds tf.GradientTape to the module. */
bool lang_tf_gradient_module_init(LangState *L, LangValue module);

/* ---- tf.data and tf.TensorArray (lang-tf-data.c, lang-tf-tensorarray.c) -------------------- */

extern LangType lang_tf_dataset_type;      /* tf.data.Dataset (DatasetV2) */
extern LangType lang_tf_iterator_type;     /* its iterators (OwnedIterator) */
extern LangType lang_tf_tensor_array_type; /* tf.TensorArray */

/* The `tensorflow.data` module (Dataset, Iterator, AUTOTUNE). A new reference. */
LangValue lang_tf_data_module_new(LangState *L);

bool lang_tf_is_dataset(LangValue v);
bool lang_tf_is_dataset_iterator(LangValue v);
/* `for x in dataset` inside a trace: the AutoGraph loop over a new iterator of the dataset
 * (MakeIterator, then IteratorGetNextAsOptional in a While: the graph does not grow with the
 * dataset). Iterating a Dataset object inside a trace does this by itself on the `for`
 * statement's first next(). */
LangValue lang_tf_dataset_loop_new(LangState *L, LangValue dataset);

/* A dataset or iterator passed to a Function (lang-tf-function.c): its trace type (a namedtuple
 * "DatasetSpec"/"IteratorSpec" of its element spec: datasets of one spec share a trace); the
 * stand-in the body sees while tracing (the same kind of object on a variant Placeholder of `g`
 * named `name`); and the variant tensor fed to that placeholder at call time. */
TrTraceType *lang_tf_data_trace_type(LangState *L, LangValue v);
LangValue lang_tf_data_placeholder(LangState *L, TrGraph *g, LangValue v, const char *name);
bool lang_tf_data_operand(LangState *L, LangValue v, LangTfOperand *out);

/* TensorArrays as AutoGraph loop variables: whether v is one; the variant tensor carrying its
 * value on the current path (a tensor list; an eager array becomes a Const while tracing); and a
 * TensorArray like `ta` (dtype, shared element shape, flags) whose value is `flow` (a symbolic
 * variant tensor, e.g. a While output; or a concrete tensor list). */
bool lang_tf_is_tensor_array(LangValue v);
bool lang_tf_tensor_array_flow(LangState *L, LangValue ta, LangTfOperand *out);
LangValue lang_tf_tensor_array_with_flow(LangState *L, LangValue ta, LangValue flow);

G_END_DECLS
