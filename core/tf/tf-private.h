/* tf-private.h — what the files of the `tensorflow` module share: the module state, tensor
 * objects, the op dispatcher that runs an op eagerly or adds it to the graph being traced, and
 * each part's entry points. Not included outside core/tf.
 *
 * One op, two paths (DESIGN): every function of the module turns its tensor arguments into
 * operands with tf_operand() and calls tf_apply(). Outside a trace an operand is a concrete
 * tensor and the op runs at once; while a Function traces, an operand is an output of the graph
 * being built (concrete tensors and Python values become Const nodes, Variables a
 * ReadVariableOp of their captured handle) and the op adds a node.
 *
 * Conventions (CPython's): a function returning PyObject * returns a new reference, or NULL with
 * an exception set; a `bool` function returns false with an exception set; arguments are
 * borrowed. The state is found with tf_state() (PyState_FindModule: one module per
 * interpreter), or passed down from the caller that already has it.
 *
 * Parts, each a file with an init function called by tf-module.c in this order:
 *   tf-dtype.c       DType objects, tf.errors classes, TR_ERROR -> Python exception
 *   tf-tensor.c      Tensor, TensorShape, convert_to_tensor, operators, indexing, NumPy interop
 *   tf-graph.c       operands and the dispatcher (eager or traced), static values
 *   tf-ops.c         the tf.*, tf.math.*, tf.nn.*, tf.random.* functions over ops
 *   tf-variable.c    tf.Variable
 *   tf-function.c    tf.function: Function, ConcreteFunction, TensorSpec, Graph, tf.print,
 *                    init_scope, tf.config
 *   tf-control.c     AutoGraph's operators (if_stmt, while_stmt, for_stmt) on symbolic values
 *   tf-autograph.c   AutoGraph's converter (source to source, over Python's ast), to_code
 *   tf-data.c        tf.data
 *   tf-tensorarray.c tf.TensorArray
 *   tf-gradient.c    tf.GradientTape
 *   tf-keras.c       tf.keras (py/keras.py, run on first use)
 *   tf-strings.c     tf.strings, tf.ragged, tf.sparse (py/ragged.py, sparse.py, strings.py)
 */
#pragma once

#include "tf.h"
#include "tr-fn.h"
#include "tr-graph.h"
#include "tr-ops.h"
#include "tr-plan.h"
#include "tr-tensor.h"

G_BEGIN_DECLS

typedef struct TfTrace TfTrace;
typedef struct TfTape TfTape;

/* tf.errors classes; OpError derives from Exception, the others from OpError only (as in
 * TensorFlow and the old engine: InvalidArgumentError is not a ValueError). */
#define TF_ERROR_LIST(X)                                                                           \
  X(INVALID_ARGUMENT, InvalidArgumentError)                                                        \
  X(OUT_OF_RANGE, OutOfRangeError)                                                                 \
  X(UNIMPLEMENTED, UnimplementedError)                                                             \
  X(RESOURCE_EXHAUSTED, ResourceExhaustedError)                                                    \
  X(FAILED_PRECONDITION, FailedPreconditionError)                                                  \
  X(NOT_FOUND, NotFoundError)                                                                      \
  X(UNKNOWN, UnknownError)

typedef enum {
#define TF_ERROR_ENUM(code, name) TF_ERROR_##code,
  TF_ERROR_LIST(TF_ERROR_ENUM)
#undef TF_ERROR_ENUM
      TF_N_ERRORS
} TfErrorKind;

/* ---- module state -------------------------------------------------------------------------
 * One per interpreter, the module's m_size block. Each part owns the fields of its section:
 * its init fills them, its clear function drops them. A part adds fields only in its section. */
typedef struct {
  /* tf-module.c: the module and its submodules (borrowed: sys.modules and the module's
   * attributes own them) */
  PyObject *module;
  PyObject *mod_math, *mod_nn, *mod_random, *mod_config, *mod_errors, *mod_dtypes;
  PyObject *mod_autograph, *mod_autograph_experimental, *mod_linalg, *mod_experimental;

  /* tf-dtype.c */
  PyTypeObject *DType;
  PyObject *dtypes[TR_N_DTYPES];            /* the DType objects (owned) */
  PyObject *OpError;                        /* tf.errors.OpError (owned) */
  PyObject *errors[TF_N_ERRORS];            /* its subclasses (owned) */
  PyObject *OperatorNotAllowedInGraphError; /* a TypeError (owned) */

  /* tf-tensor.c */
  PyTypeObject *Tensor;
  PyTypeObject *EagerTensor;    /* what eager values are made of: a subclass of Tensor */
  PyTypeObject *SymbolicTensor; /* what graph outputs are made of, while tracing */
  PyTypeObject *TensorShape;
  PyTypeObject *TensorIterator; /* iter() of an eager tensor */
  PyTypeObject *Reference;      /* Tensor.ref(): a hashable key standing for a tensor */
  PyObject *numpy;              /* the numpy module, once the program or .numpy() loaded it */
  PyObject *np_ndarray, *np_generic, *np_array; /* numpy.ndarray, .generic, .array (owned) */

  /* tf-graph.c and tf-function.c: traces and events */
  TfTrace *trace;           /* innermost trace in progress; NULL while eager (also in init_scope) */
  TrEventBus *bus;          /* the interpreter's event bus (owned) */
  TrFnRegistry *registry;   /* Functions of this interpreter (owned) */
  gint64 cell;              /* execution count of the running cell, for events (0: none) */
  PyObject *file_names;     /* the host's dict: a code file name -> its cell number or name */
  PyObject *cell_names;     /* dict: cell number -> "<cell N>", made as events need them */
  PyObject *site_filename;  /* the co_filename whose name graph nodes were last given (owned) */
  const char *site_file;    /* that name, interned (node_site in tf-module.c) */
  bool warnings_subscribed; /* the retracing warning is printed to sys.stderr */
  TrFn *eager_fn;           /* the Function whose body runs eagerly now (its tf.print events) */
  /* The last call site's line (call_site): a loop's calls come from one instruction, and
   * finding a line walks the code's line table. The code is held so its address stays its. */
  PyObject *site_code;
  int site_lasti;
  int site_line;

  /* tf-module.c: breakpoints a host's debugger set (tf_module_set_breakpoints) */
  GHashTable *breakpoints; /* code file name (char *, owned) -> TfBreakpoints (owned), or NULL */
  guint64 bp_generation;   /* bumped whenever any file's breakpoints change; 0: never set */
  bool stopped;            /* a debugger_stopped was emitted, no debugger_continued since */
  gint64 stopped_ns;       /* its bus time */

  /* tf-ops.c: the Python callable that serves tf functions called with composite arguments
   * (RaggedTensor, SparseTensor: types with a `_tf_api_dispatch` attribute), or NULL */
  PyObject *api_dispatcher;
  /* tf-ops.c: tf.random's global seed and op counter */
  bool random_seeded;
  int64_t random_seed;
  int64_t random_counter;

  /* tf-debugging.c: tf.name_scope's scope while eager ("outer/inner/"; NULL: none), which
   * prefixes the names of variables made there, as TensorFlow's eager name scopes do */
  char *eager_name_scope;

  /* tf-variable.c */
  PyTypeObject *Variable;
  PyTypeObject *ResourceVariable; /* what tf.Variable(...) makes: a subclass of Variable */

  /* tf-function.c */
  PyTypeObject *Function;
  PyTypeObject *ConcreteFunction;
  PyTypeObject *TensorSpec;
  PyTypeObject *Graph;
  PyTypeObject *Operation;
  PyTypeObject *InitScope; /* what tf.init_scope() returns */
  PyObject *py_support;    /* namespace of py/function.py: NodeDef, GraphDef, Module... (owned) */
  bool functions_created;  /* a Function exists: the registry and bus may no longer change */
  guint warning_subscription; /* the bus subscription printing the retracing warning, or 0 */

  /* tf-control.c and tf-autograph.c */
  PyObject *ag_operators;        /* the `ag__` namespace converted code calls (owned) */
  PyObject *ag_cache;            /* original code -> converted code, or None: run as is (owned) */
  PyObject *ag_library_prefixes; /* paths of code never converted (owned) */
  PyTypeObject *AgUndefined;     /* ag__.Undefined: a name not bound yet */
  PyTypeObject *AgUndefinedReturnValue; /* ag__.UndefinedReturnValue: no return ran yet */

  /* tf-data.c */
  PyTypeObject *Dataset;
  PyTypeObject *Iterator;
  PyObject *DatasetSpec; /* tf.data.DatasetSpec (owned) */
  void *data_fn;         /* the flat_map/interleave function being traced (a DataFn), or NULL */

  /* tf-tensorarray.c */
  PyTypeObject *TensorArray;

  /* tf-gradient.c */
  PyTypeObject *GradientTape;
  PyTypeObject *StopRecording; /* what GradientTape.stop_recording() returns */
  TfTape *tapes; /* GradientTapes inside their `with`, innermost first (each holds a reference
                  * to itself while on the list) */
  PyTypeObject *CustomGradient;   /* what tf.custom_gradient(f) returns */
  PyObject *UnconnectedGradients; /* the tf.UnconnectedGradients enum class (owned) */
  PyObject *variable_watch;       /* while a custom_gradient's function runs: the list of trainable
                                   * Variables it read (owned), else NULL */
  int watch_warnings;     /* "dtype of the watched tensor" warnings printed (TF: at most 5) */
  bool persistent_warned; /* the persistent-tape-gradient-in-context warning was printed */

  /* tf-keras.c */
  PyObject *keras;   /* the tensorflow.keras module (owned) */
  bool keras_loaded; /* py/keras.py has run (or is running) in it */
} TfState;

/* Every single object the state owns, for the module's m_traverse (the arrays dtypes and errors
 * are visited apart). The module's types hold the module (PyType_FromModuleAndSpec), so module
 * -> state -> type -> module is a cycle the collector can only free by seeing these. A part that
 * adds an owned field adds it here too. */
/* clang-format off */
#define TF_STATE_OBJECTS(X)                                                                        \
  X(DType) X(OpError) X(OperatorNotAllowedInGraphError)                                            \
  X(Tensor) X(EagerTensor) X(SymbolicTensor) X(TensorShape) X(TensorIterator) X(Reference)                                          \
  X(numpy) X(np_ndarray) X(np_generic) X(np_array)                                                 \
  X(Variable) X(ResourceVariable)                                                                 \
  X(Function) X(ConcreteFunction) X(TensorSpec) X(Graph) X(InitScope) X(py_support)                \
  X(ag_operators) X(ag_cache) X(ag_library_prefixes) X(AgUndefined) X(AgUndefinedReturnValue)      \
  X(Dataset) X(Iterator)                                                                           \
  X(TensorArray)                                                                                   \
  X(GradientTape) X(StopRecording) X(CustomGradient) X(UnconnectedGradients) X(variable_watch)     \
  X(keras) X(file_names) X(cell_names) X(api_dispatcher)
/* clang-format on */

/* The state of the imported module of this interpreter (never NULL once imported). */
TfState *tf_state(void);

/* The breakpoints of one code file (tf-module.c). */
typedef struct {
  int *lines;         /* 1-based, ascending, no duplicates (owned) */
  size_t n;           /* at least 1 */
  guint64 generation; /* st->bp_generation when they were set */
} TfBreakpoints;

/* The breakpoints set in code file `filename` (a co_filename), or NULL. Borrowed: valid until
 * the next tf_module_set_breakpoints. */
const TfBreakpoints *tf_breakpoints_of(TfState *st, const char *filename);
/* The name events give code file `filename` (a co_filename str): "<cell N>" or the name the
 * host's mapping gives it (tf_module_name_files), or its UTF-8 form. Borrowed from a str the
 * state keeps or from `filename`; NULL with an exception set when it cannot be encoded. */
const char *tf_event_file_name(TfState *st, PyObject *filename);

/* ---- tf-dtype.c ------------------------------------------------------------------------------ */

int tf_dtype_init(PyObject *module, TfState *st);
void tf_dtype_clear(TfState *st);
/* The DType object of a dtype (borrowed). */
PyObject *tf_dtype_object(TfState *st, TrDType dtype);
/* The TrDType a `dtype=` argument names: a DType object, a name ("float32"), a NumPy dtype or
 * scalar type; NULL/None give `dflt`. Returns false with TypeError set otherwise. */
bool tf_dtype_arg(TfState *st, PyObject *v, TrDType dflt, TrDType *out);
/* Raises the tf.errors class of a TR_ERROR (its message as the text) and frees it. Returns
 * NULL. */
PyObject *tf_raise_error(TfState *st, GError *error);
/* Raises a TR_GRAPH_ERROR (graph construction) as its Python class and frees it. */
PyObject *tf_raise_graph_error(TfState *st, GError *error);
/* Raises any GError of core/tensor or core/graph as its Python class and frees it. */
PyObject *tf_raise_any(TfState *st, GError *error);

/* ---- tf-tensor.c: tensor objects ------------------------------------------------------------- */

typedef struct {
  PyObject_HEAD
  TrTensor *value; /* eager value (owned); NULL for a symbolic tensor */
  TrGraph *graph;  /* symbolic: the graph it belongs to (owned reference); else NULL */
  TrOutput out;    /* symbolic: the node output it names */
  PyObject *weakreflist;
} TfTensor;

int tf_tensor_init(PyObject *module, TfState *st);
void tf_tensor_clear(TfState *st);

/* The one argument parser of the module's METH_FASTCALL | METH_KEYWORDS functions: `names` is
 * NULL-terminated, the first `n_required` are required; out[i] receives argument i (borrowed)
 * or NULL when it was not given. False with CPython's TypeError texts ("constant() missing
 * required argument 'value' (pos 1)"). */
bool tf_parse_args(const char *fname, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                   const char *const *names, int n_required, PyObject **out);

static inline bool
tf_is_tensor(TfState *st, PyObject *v)
{
  return Py_IS_TYPE(v, st->EagerTensor) || Py_IS_TYPE(v, st->SymbolicTensor);
}
static inline bool
tf_is_symbolic(TfState *st, PyObject *v)
{
  return Py_IS_TYPE(v, st->SymbolicTensor);
}
/* The eager value of a tensor object (borrowed), NULL when symbolic. */
static inline TrTensor *
tf_tensor_value(PyObject *v)
{
  return ((TfTensor *)v)->value;
}
/* A tf.Tensor wrapping `t` (transfer full of t). NULL in, NULL out (for chaining after a
 * failed op whose error was already raised). */
PyObject *tf_tensor_new(TfState *st, TrTensor *t);
/* The tensor object for an op result: the tensor, or the GError raised. */
PyObject *tf_result(TfState *st, TrTensor *t, GError *error);
/* A tf.Tensor naming output `out` of `graph` (a reference on graph is taken). */
PyObject *tf_symbolic_new(TfState *st, TrGraph *graph, TrOutput out);
static inline TrGraph *
tf_symbolic_graph(PyObject *v)
{
  return ((TfTensor *)v)->graph;
}
static inline TrOutput
tf_symbolic_output(PyObject *v)
{
  return ((TfTensor *)v)->out;
}

/* convert_to_tensor(v, dtype): tensors pass through (a different `dtype` is a ValueError);
 * Python scalars, nested lists/tuples, NumPy arrays and scalars and objects with __array__
 * follow TF's inference, or become `dtype` when it is not TR_DTYPE_INVALID. With `hint` the
 * dtype is only preferred: a tensor keeps its own. Transfer full, or NULL with an exception. */
TrTensor *tf_convert(TfState *st, PyObject *v, TrDType dtype, bool hint);
/* Whether v is a numpy.ndarray (never imports NumPy: without it loaded, nothing is one). */
bool tf_is_ndarray(TfState *st, PyObject *v);
/* Whether convert_to_tensor would accept v's type. */
bool tf_convertible(TfState *st, PyObject *v);

/* The dtype of a tensor or Variable (concrete or symbolic), or TR_DTYPE_INVALID for anything
 * else: the hint Python values next to it are converted with. */
TrDType tf_dtype_of(TfState *st, PyObject *v);
/* The (possibly partial) static shape of a tensor or Variable; false (no exception) for other
 * values. */
bool tf_shape_of(TfState *st, PyObject *v, TrShape *out);

/* A shape argument: a list/tuple of ints (None: unknown), a TensorShape or a 1-D int tensor. */
bool tf_shape_arg(TfState *st, PyObject *v, TrShape *out);
/* A new TensorShape object. */
PyObject *tf_shape_new(TfState *st, const TrShape *shape);
/* x.ref(): TensorFlow's Reference to `obj` (a tensor or Variable), hashable by identity. */
PyObject *tf_reference_new(TfState *st, PyObject *obj);

/* Python's operators on tensors and Variables (either side may be a Python value); `op` is
 * the TrOpId of the binary op (TR_OP_ADD...), `reflected` swaps the operands. */
PyObject *tf_binop(TfState *st, TrOpId op, PyObject *a, PyObject *b);
PyObject *tf_truediv(TfState *st, PyObject *a, PyObject *b);
PyObject *tf_compare(TfState *st, PyObject *a, PyObject *b, int py_op);
/* NumPy-style indexing of a tensor (one StridedSlice). */
PyObject *tf_getitem(TfState *st, PyObject *self, PyObject *key);

/* ---- tf-graph.c: operands and the dispatcher ------------------------------------------------- */

/* A graph being built while a Function's Python body runs on symbolic tensors. */
struct TfTrace {
  TrGraph *graph;        /* being built (owned reference) */
  TfTrace *outer;        /* the trace this one runs inside (a Function called while tracing) */
  GHashTable *consts;    /* TrTensor* -> TrNode*: eager tensors captured as constants */
  bool allow_variables;  /* the Function's first trace: tf.Variable() may run */
  int variables_created; /* tf.Variable() calls while this trace ran */
  const char *fn_name;   /* the Function being traced, for errors */
  guint64 fn_id;         /* its id, for a debugger's stop; 0 in branch and loop bodies */
  GArray *captures;      /* branch and loop bodies: TfCapture, outer tensors they take */
  char *error;           /* set when a loop body was left unfinished (break, return) */
};

/* A tensor of an enclosing graph used inside a branch or loop body: the body takes it as an
 * input. */
typedef struct {
  TrOutput outer; /* in the enclosing trace's graph */
  TrNode *inner;  /* the body's placeholder */
} TfCapture;

/* The graph being built, or NULL when ops run eagerly. */
static inline TfTrace *
tf_trace(TfState *st)
{
  return st->trace;
}

int tf_graph_init(PyObject *module, TfState *st);
void tf_graph_clear(TfState *st);

/* One input of an op: a concrete tensor (eager) or a graph output (tracing). */
typedef struct {
  TrTensor *value; /* eager: the value (owned reference); NULL while tracing */
  TrOutput out;    /* tracing: the output in the trace's graph */
  TrDType dtype;   /* the operand's dtype, either way */
  TrShape shape;   /* its static shape (partial while tracing) */
} TfOperand;

/* convert_to_tensor(v) as an operand of the current path. `dtype` (TR_DTYPE_INVALID: infer) is
 * required, or with `hint` only preferred, as tf_convert. Accepts tensors (symbolic ones of the
 * current trace only, or of an enclosing trace, which are captured; any other is a leaked
 * tensor, a TypeError), Variables, and Python values. False with an exception set. */
bool tf_operand(TfState *st, PyObject *v, TrDType dtype, bool hint, TfOperand *out);
/* Two operands that take each other's dtype as a hint (x + 1.0, tf.add(x, 2)). */
bool tf_operand_pair(TfState *st, PyObject *x, PyObject *y, TfOperand *ox, TfOperand *oy);
/* An operand from a concrete tensor (transfer full of t), for the current path. */
bool tf_operand_from_tensor(TfState *st, TrTensor *t, TfOperand *out);
void tf_operand_clear(TfOperand *o);
void tf_operands_clear(TfOperand *o, int n);

/* Applies `op` to `in`: runs it (eager) or adds a node named after `name` (NULL: the op's
 * default) to the trace's graph. Returns the new tf.Tensor, or NULL with TensorFlow's error
 * set. The operands stay owned by the caller. */
PyObject *tf_apply(TfState *st, TrOpId op, const TfOperand *in, int n, const TrAttrs *attrs,
                   const char *name);
/* As tf_apply, but the result is an operand (for functions that chain several ops). */
bool tf_apply_operand(TfState *st, TrOpId op, const TfOperand *in, int n, const TrAttrs *attrs,
                      const char *name, TfOperand *result);
/* The tf.Tensor for an operand (eager: takes over its value). */
PyObject *tf_operand_to_value(TfState *st, TfOperand *o);
/* Python's `/` on two operands: integers are cast to float64 first (TensorFlow's truediv). */
PyObject *tf_apply_truediv(TfState *st, const TfOperand *a, const TfOperand *b);

/* A concrete value needed at trace time (a static axis, a shape): the eager value of v, or of a
 * Const node when v is symbolic; NULL (no exception) when it is not known statically. Transfer
 * full. */
TrTensor *tf_static_value(TfState *st, PyObject *v);

/* ---- tf-ops.c -------------------------------------------------------------------------------- */

int tf_ops_init(PyObject *module, TfState *st);
void tf_ops_clear(TfState *st);

/* ---- tf-variable.c --------------------------------------------------------------------------- */

typedef struct {
  PyObject ob_base; /* PyObject_HEAD */
  TrVariable *var;  /* the shared state (owned reference) */
  PyObject *weakreflist;
} TfVariable;

int tf_variable_init(PyObject *module, TfState *st);
void tf_variable_clear(TfState *st);

static inline bool
tf_is_variable(TfState *st, PyObject *v)
{
  return PyObject_TypeCheck(v, st->Variable);
}

/* ---- tf-function.c --------------------------------------------------------------------------- */

int tf_function_init(PyObject *module, TfState *st);
void tf_function_clear(TfState *st);
/* A Graph object showing `graph` (a reference is taken). */
PyObject *tf_graph_object_new(TfState *st, TrGraph *graph);
/* A tf.Operation for `node` of `graph` (Tensor.op, Graph.get_operations). New reference. */
PyObject *tf_operation_new(TfState *st, TrGraph *graph, TrNode *node);

/* ---- tf-control.c: AutoGraph's operators ----------------------------------------------------- */

/* Where the elements of an AutoGraph `for` loop come from inside a trace: loop variables that
 * carry the source's state, and graph code that tests for, produces and advances to the next
 * element. A tf.range, a tensor and a tf.data.Dataset are sources. */
typedef struct {
  int n_state;              /* state loop variables, 1..TF_LOOP_MAX_STATE */
  const char *const *names; /* their placeholder names in the body and cond graphs */
  /* The state's initial values, added to `g` (the enclosing graph of the loop). */
  bool (*init)(TfState *st, void *data, TrGraph *g, TrOutput *state, GError **error);
  /* In the cond graph: a scalar bool, true while there is an element. */
  bool (*test)(void *data, TrGraph *cond, const TrOutput *state, TrOutput *more, GError **error);
  /* In the body graph, before the body runs: the value the loop target receives (a new
   * reference: a symbolic tensor of `body`, or a tuple of them), or NULL. */
  PyObject *(*element)(TfState *st, void *data, TrGraph *body, const TrOutput *state);
  /* In the body graph, after the body ran: the state's next values. */
  bool (*step)(void *data, TrGraph *body, const TrOutput *state, TrOutput *next, GError **error);
  void (*free)(void *data); /* data's destructor, or NULL */
} TfLoopSource;

enum { TF_LOOP_MAX_STATE = 16 };

int tf_control_init(PyObject *module, TfState *st);
void tf_control_clear(TfState *st);

/* ---- tf-autograph.c -------------------------------------------------------------------------- */

int tf_autograph_init(PyObject *module, TfState *st);
void tf_autograph_clear(TfState *st);
/* The converted form of Python function `func` (cached per function object), or `func` itself
 * (a new reference) when it must not be converted (library code, do_not_convert); NULL with an
 * exception set on a conversion error. When the source cannot be found, prints TensorFlow's
 * warning and returns `func`. */
PyObject *tf_autograph_convert(TfState *st, PyObject *func);

/* ---- tf-data.c and tf-tensorarray.c ---------------------------------------------------------- */

int tf_data_init(PyObject *module, TfState *st);
void tf_data_clear(TfState *st);
bool tf_is_dataset(TfState *st, PyObject *v);
bool tf_is_dataset_iterator(TfState *st, PyObject *v);
/* A dataset or iterator passed to a Function: its trace type (datasets of one element spec
 * share a trace); the stand-in the body sees while tracing (the same kind of object on a
 * variant Placeholder of `g` named `name`); and the variant tensor fed to that placeholder at
 * call time. */
TrTraceType *tf_data_trace_type(TfState *st, PyObject *v);
PyObject *tf_data_placeholder(TfState *st, TrGraph *g, PyObject *v, const char *name);
bool tf_data_operand(TfState *st, PyObject *v, TfOperand *out);
/* The loop source of `for x in dataset` inside a trace (MakeIterator, then
 * IteratorGetNextAsOptional in a While). `dataset` may also be a tf.data iterator: the loop then
 * advances that iterator. Fills `source` and `*data` (freed by source->free). */
bool tf_dataset_loop_source(TfState *st, PyObject *dataset, TfLoopSource *source, void **data);

int tf_tensorarray_init(PyObject *module, TfState *st);
void tf_tensorarray_clear(TfState *st);
/* TensorArrays as AutoGraph loop variables: whether v is one; the variant tensor carrying its
 * value on the current path (a tensor list; an eager array becomes a Const while tracing); and
 * a TensorArray like `ta` whose value is `flow` (a symbolic variant tensor, e.g. a While
 * output; or a concrete tensor list). */
bool tf_is_tensor_array(TfState *st, PyObject *v);
bool tf_tensor_array_flow(TfState *st, PyObject *ta, TfOperand *out);
PyObject *tf_tensor_array_with_flow(TfState *st, PyObject *ta, PyObject *flow);

/* ---- tf-gradient.c --------------------------------------------------------------------------- */

int tf_gradient_init(PyObject *module, TfState *st);
void tf_gradient_clear(TfState *st);
/* Hooks of the eager path, each a no-op unless a tape records (check `st->tapes` first: they
 * are called on every op). An op just run eagerly: `result->value` may be replaced by a header
 * of its own when a tape knows that tensor already. */
void tf_tape_record_op(TfState *st, TrOpId op, const TrAttrs *attrs, const TfOperand *in, int n,
                       TfOperand *result);
/* A Variable read eagerly into `*value` (may be replaced likewise). */
void tf_tape_read_variable(TfState *st, PyObject *variable, TrTensor **value);
/* A Variable read (eagerly or while tracing) while a tf.custom_gradient function runs
 * (st->variable_watch is set): its grad_fn gets the trainable ones as `variables`. */
void tf_watch_variable_read(TfState *st, PyObject *variable);
/* A ConcreteFunction's `graph` ran eagerly on `in`, giving `outs` (each may be replaced). */
void tf_tape_record_call(TfState *st, TrGraph *graph, const TfOperand *in, int n_in,
                         TrTensor **outs, int n_outs);

/* ---- tf-keras.c ------------------------------------------------------------------------------ */

int tf_keras_init(PyObject *module, TfState *st);
void tf_keras_clear(TfState *st);
int tf_strings_init(PyObject *module, TfState *st); /* tf-strings.c */
void tf_strings_clear(TfState *st);

/* tf-numpy.c: tf.experimental.numpy (py/tnp.py, run on first use) */
int tf_numpy_init(PyObject *module, TfState *st);
void tf_numpy_clear(TfState *st);

/* ---- tf-debugging.c: tf.debugging, tf.nest, tf.name_scope, tf.device, tf.Graph ------------- */

int tf_debugging_init(PyObject *module, TfState *st);
void tf_debugging_clear(TfState *st);

G_END_DECLS
