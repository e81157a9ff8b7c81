/* tr-graph.h — dataflow graphs: the IR that traced functions build, show and run.
 *
 * A TrGraph is a list of nodes in insertion order. Each node has a unique name chosen as
 * TensorFlow chooses them ("add", "add_1", ...), an op type as GraphDef shows it ("AddV2"),
 * data inputs (a producing node and its output index), control inputs, and per output a dtype
 * and a possibly partial shape inferred when the node is added. Every node's inputs are older
 * than the node, so insertion order is a topological order.
 *
 * Ops are core/tensor's TrOpId (their inference runs at construction, their kernels in the
 * executor, tr-plan.h) plus the graph-level ops of TR_GRAPH_OP_LIST: placeholders, constants,
 * variable reads and writes, tf.print's StringFormat/PrintV2, NoOp, and While (tf.while_loop);
 * optimised graphs also have _FusedElementwise nodes (the optimiser's elementwise fusion).
 * Stateful nodes are chained by control edges in program order as they are added (TensorFlow's
 * automatic control dependencies). A node may own child graphs (the branches of a `cond`, the
 * cond and body of a While); the exporters draw them as clusters.
 *
 * A graph's nodes, names and attributes live in one arena freed with the graph. Graphs are
 * refcounted because symbolic tensors (TrOutput) of the language layer keep theirs alive.
 *
 * Errors while building are the errors TensorFlow raises while tracing: TR_GRAPH_ERROR codes
 * name the Python class (ValueError for failed shape inference, TypeError for dtype mismatches).
 */
#pragma once

#include "tr-ops.h"

G_BEGIN_DECLS

/* ---- graph-level ops -------------------------------------------------------------------- */

/* Ops that exist only in graphs. Their ids follow core/tensor's, so one int names any op. */
#define TR_GRAPH_OP_LIST(X)                                                                        \
  /* id, GraphDef op type (also the default node name; "while" for While), always stateful. */     \
  /* A While is stateful per node, when its cond or body has one (see TrNode.stateful). */         \
  X(PLACEHOLDER, "Placeholder", false)                                                             \
  X(CONST, "Const", false)                                                                         \
  X(READ_VARIABLE, "ReadVariableOp", true)                                                         \
  X(ASSIGN_VARIABLE, "AssignVariableOp", true)                                                     \
  X(ASSIGN_ADD_VARIABLE, "AssignAddVariableOp", true)                                              \
  X(ASSIGN_SUB_VARIABLE, "AssignSubVariableOp", true)                                              \
  X(STRING_FORMAT, "StringFormat", false)                                                          \
  X(PRINT, "PrintV2", true)                                                                        \
  X(NO_OP, "NoOp", false)                                                                          \
  X(WHILE, "While", false)                                                                         \
  X(IF, "StatelessIf", false)                                                                      \
  /* The gradients of a While or If node's inputs, by replaying it at run time (tr-grad.h). */     \
  X(SYMBOLIC_GRADIENT, "SymbolicGradient", false)                                                  \
  /* Only in optimised graphs: a tree of elementwise ops run as one loop (fuse-private.h). */      \
  X(FUSED, "_FusedElementwise", false)                                                             \
  /* tf.data iterators (tr-dataset.h) and TensorArray's tensor lists (tr-list.h). */               \
  X(MAKE_ITERATOR, "MakeIterator", true)                                                           \
  X(ITERATOR_GET_NEXT, "IteratorGetNext", true)                                                    \
  X(ITERATOR_GET_NEXT_AS_OPTIONAL, "IteratorGetNextAsOptional", true)                              \
  X(TENSOR_LIST_RESERVE, "TensorListReserve", false)                                               \
  X(TENSOR_LIST_SET_ITEM, "TensorListSetItem", false)                                              \
  X(TENSOR_LIST_GET_ITEM, "TensorListGetItem", false)                                              \
  X(TENSOR_LIST_STACK, "TensorListStack", false)                                                   \
  X(TENSOR_LIST_GATHER, "TensorListGather", false)                                                 \
  X(TENSOR_LIST_CONCAT, "TensorListConcatV2", false)                                               \
  X(TENSOR_LIST_LENGTH, "TensorListLength", false)                                                 \
  X(TENSOR_LIST_FROM_TENSOR, "TensorListFromTensor", false)                                        \
  /* tf.debugging: Assert (a condition and the data it prints) and CheckNumerics (no outputs   */  \
  /* here: the language layer returns an Identity of its input, which differentiates as one). */   \
  X(ASSERT, "Assert", true)                                                                        \
  X(CHECK_NUMERICS, "CheckNumerics", true)                                                         \
  /* tf.py_function: a function of the host language called when the node runs (TrHostCall). */    \
  X(PY_FUNC, "EagerPyFunc", true)

typedef enum {
  TR_GOP_BEFORE_FIRST_ = TR_N_OPS - 1,
#define TR_GOP_ENUM(id, type, stateful) TR_GOP_##id,
  TR_GRAPH_OP_LIST(TR_GOP_ENUM)
#undef TR_GOP_ENUM
      TR_N_NODE_OPS /* count of TrOpId and graph-level ops together */
} TrGraphOpId;

/* The dtype of a resource handle (a captured variable); never passed to core/tensor. */
#define TR_DTYPE_RESOURCE ((TrDType)TR_N_DTYPES)
/* "int32", "resource". */
const char *tr_graph_dtype_name(TrDType dtype);

/* ---- errors ----------------------------------------------------------------------------- */

/* Errors of graph construction, coded by the Python exception TensorFlow raises while tracing.
 * Errors while running a graph are core/tensor's TR_ERROR (tf.errors.*). */
#define TR_GRAPH_ERROR (tr_graph_error_quark())
GQuark tr_graph_error_quark(void);
typedef enum {
  TR_GRAPH_ERROR_VALUE,        /* ValueError: shape inference failed, bad assignment shape */
  TR_GRAPH_ERROR_TYPE,         /* TypeError: dtypes of inputs do not fit the op */
  TR_GRAPH_ERROR_INACCESSIBLE, /* a tensor of another graph was used (a leaked tensor) */
} TrGraphErrorCode;

/* ---- variables -------------------------------------------------------------------------- */

/* A tf.Variable's state: shared by eager code and every graph that captured it. */
typedef struct {
  int refcount;    /* owners */
  uint64_t id;     /* unique per process, from 1: the trace key of a variable */
  char *name;      /* "Variable" unless named (owned) */
  TrDType dtype;   /* fixed at creation */
  TrShape shape;   /* fixed at creation; assignments must match */
  TrTensor *value; /* current value (owned); replaced, never mutated while shared */
  bool trainable;  /* tf.Variable(trainable=) */
} TrVariable;

/* A variable holding `initial` (a new reference is taken). name may be NULL. Transfer full. */
TrVariable *tr_variable_new(TrTensor *initial, const char *name);
TrVariable *tr_variable_ref(TrVariable *var);
void tr_variable_unref(TrVariable *var);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TrVariable, tr_variable_unref)
/* The current value. Transfer full (a new reference). */
TrTensor *tr_variable_read(TrVariable *var);
/* Replace the value; the dtype must equal and the shape match the variable's, else TF's
 * ValueError text ("Cannot assign value to variable ' Variable:0': Shape mismatch...") in
 * TR_GRAPH_ERROR_VALUE. A new reference to `value` is taken. */
bool tr_variable_assign(TrVariable *var, TrTensor *value, GError **error);
/* value += delta (op TR_OP_ADD) or -= (TR_OP_SUB), in place when nothing else shares it. */
bool tr_variable_assign_update(TrVariable *var, TrOpId op, TrTensor *delta, GError **error);

/* ---- graphs and nodes ------------------------------------------------------------------- */

typedef struct TrGraph TrGraph;
typedef struct TrNode TrNode;

/* One output of a node: what a symbolic tensor is. */
typedef struct {
  TrNode *node; /* producer (borrowed from its graph) */
  int index;    /* output index */
} TrOutput;

/* tf.print's formatting, for StringFormat and PrintV2 nodes. */
typedef struct {
  const char *template_text; /* StringFormat: literal text with "{}" for each input */
  int n_segments;            /* StringFormat: inputs + 1 */
  const char **segments;     /* StringFormat: the literal text around each input (arena) */
  int summarize;             /* StringFormat: first and last elements shown per dim; < 0: all */
  const char *end;           /* PrintV2: appended after the text ("\n") */
  bool to_stderr;            /* PrintV2: output_stream is sys.stderr */
  const char *message;       /* CheckNumerics: the text its error starts with */
} TrPrintAttrs;

/* A function of the embedding program that an EagerPyFunc node calls each time it runs
 * (tf.py_function): `func` gets the node's input values and fills `out` with its n_out results
 * (transfer full), or sets `error` and returns FALSE. Reference-counted: every copy of the node
 * (graph copies, inlined calls) shares it; the last unref calls `destroy` on `user`. */
typedef bool (*TrHostFunc)(void *user, TrTensor *const *in, int n_in, TrTensor **out, int n_out,
                           GError **error);
typedef struct TrHostCall TrHostCall;
TrHostCall *tr_host_call_new(TrHostFunc func, void *user, GDestroyNotify destroy);
TrHostCall *tr_host_call_ref(TrHostCall *call);
void tr_host_call_unref(TrHostCall *call);

/* A node. Read its fields freely; change them only through the functions below. */
struct TrNode {
  TrGraph *graph;            /* owner (borrowed) */
  int id;                    /* index in the graph's insertion order */
  int op;                    /* a TrOpId, or a TrGraphOpId */
  const char *name;          /* unique in its graph (arena) */
  const char *type;          /* GraphDef op type: "AddV2", "Add" for strings (static) */
  int n_inputs;              /* data inputs */
  TrOutput *inputs;          /* (arena) */
  int n_control;             /* control inputs: this node runs after them */
  int cap_control;           /* allocated length of `control` */
  TrNode **control;          /* (arena) */
  int n_outputs;             /* 0 or 1, but one per loop variable for While */
  TrDType *dtypes;           /* per output (arena) */
  TrShape *shapes;           /* per output, possibly partial (arena) */
  const TrAttrs *attrs;      /* core/tensor ops: static parameters, never NULL (arena) */
  TrTensor *value;           /* Const: the value; _FusedElementwise: its program (owned) */
  TrVariable *variable;      /* resource Placeholder: the captured variable (owned) */
  const TrPrintAttrs *print; /* StringFormat, PrintV2 (arena); else NULL */
  TrHostCall *host;          /* EagerPyFunc: the function it calls (owned); else NULL */
  int n_children;            /* child graphs (cond branches; a While's cond and body) */
  TrGraph **children;        /* (owned references, arena array); While: {cond, body} */
  bool stateful;             /* keeps program order; never folded, merged or dropped. A While is
                              * stateful when a child graph has a stateful node */
  const char *site_file;     /* where the node was made (the Python file of the line that made
                              * it, "<cell 3>"; interned: lives as long as the process), or NULL */
  int site_line;             /* that line, 1-based; 0 when not known */
};

/* Where nodes are made, asked for every node a graph adds (TensorFlow keeps each op's creation
 * stack trace for its errors and tools): fills `file` (a string that lives as long as the
 * process, such as one of g_intern_string) and `line`, or returns FALSE when it cannot tell. One
 * function for the process: core/tf's, which reads the running Python line while it traces.
 * NULL (the default): nodes carry no site. */
typedef bool (*TrSiteFunc)(void *data, const char **file, int *line);
void tr_graph_set_site_func(TrSiteFunc func, void *data);

/* An empty graph. `name` (may be NULL) is the function's name used in runtime errors, e.g.
 * "__inference_double_12". Transfer full. */
TrGraph *tr_graph_new(const char *name);
TrGraph *tr_graph_ref(TrGraph *g);
void tr_graph_unref(TrGraph *g);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TrGraph, tr_graph_unref)

const char *tr_graph_name(const TrGraph *g);
int tr_graph_n_nodes(const TrGraph *g);
/* Node `i` in insertion order. Borrowed. */
TrNode *tr_graph_node(const TrGraph *g, int i);
/* The node named `name`, or NULL. Borrowed. */
TrNode *tr_graph_find_node(const TrGraph *g, const char *name);
/* The graph's arguments: its non-resource placeholders, in creation order. Borrowed. */
int tr_graph_n_inputs(const TrGraph *g);
TrNode *tr_graph_input(const TrGraph *g, int i);
/* The graph's results: the Identity nodes made by tr_graph_add_output, in order. Borrowed. */
int tr_graph_n_outputs(const TrGraph *g);
TrNode *tr_graph_output(const TrGraph *g, int i);
/* The graph a child graph belongs to, or NULL. Borrowed. */
TrGraph *tr_graph_parent(const TrGraph *g);

/* A name not used yet in `g`, made from `hint` as TensorFlow's Graph.unique_name does: "add",
 * then "add_1", "add_2" (case-insensitively), inside the current name scope ("outer/add").
 * Marks it used. Borrowed (arena). */
const char *tr_graph_unique_name(TrGraph *g, const char *hint);
/* Enter a name scope (itself made unique: "scope", "scope_1"), or with a trailing "/" the
 * absolute scope named ("dense/": entered as it is, again and again, as TensorFlow's
 * name_scope_v2); pop to leave it. */
void tr_graph_push_name_scope(TrGraph *g, const char *name);
void tr_graph_pop_name_scope(TrGraph *g);
/* The innermost name scope as made unique ("outer/inner"), or NULL outside every scope. Borrowed
 * (arena). */
const char *tr_graph_name_scope(const TrGraph *g);

/* ---- building ----------------------------------------------------------------------------
 * Every function returns the new node (borrowed from the graph), or NULL with `error` set.
 * `name` is a name hint made unique; NULL means the op's default ("add" for AddV2).
 * Inputs must be outputs of nodes of `g`. */

/* A function argument. dtype may be TR_DTYPE_RESOURCE only through tr_graph_capture_variable. */
TrNode *tr_graph_add_placeholder(TrGraph *g, TrDType dtype, const TrShape *shape, const char *name);
/* A constant holding `value` (a new reference is taken). */
TrNode *tr_graph_add_const(TrGraph *g, TrTensor *value, const char *name);
/* A core/tensor op. Inference runs on the inputs' (possibly partial) shapes and on the values of
 * Const inputs; a failure is TensorFlow's graph-mode error, e.g. TR_GRAPH_ERROR_VALUE
 * "Dimensions must be equal, but are 3 and 2 for '{{node add}} = AddV2[T=DT_INT32](x, y)' with
 * input shapes: [3], [2]." `attrs` may be NULL for defaults; it is copied. */
TrNode *tr_graph_add_op(TrGraph *g, TrOpId op, const TrOutput *inputs, int n_inputs,
                        const TrAttrs *attrs, const char *name, GError **error);
/* The resource handle of `var` in `g`: one resource Placeholder per variable, made on first use
 * (name hint `name`, NULL for "resource"). */
TrNode *tr_graph_capture_variable(TrGraph *g, TrVariable *var, const char *name);
/* ReadVariableOp of a captured variable's handle. */
TrNode *tr_graph_add_read_variable(TrGraph *g, TrOutput handle, const char *name, GError **error);
/* AssignVariableOp (TR_GOP_ASSIGN_VARIABLE), AssignAddVariableOp or AssignSubVariableOp:
 * `value` must have the variable's dtype and a compatible shape. No outputs. */
TrNode *tr_graph_add_assign_variable(TrGraph *g, TrGraphOpId op, TrOutput handle, TrOutput value,
                                     const char *name, GError **error);
/* StringFormat: a scalar string from `template_text` with each "{}" replaced by one input,
 * formatted as tf.print formats tensors. summarize < 0 shows every element. */
TrNode *tr_graph_add_string_format(TrGraph *g, const char *template_text, const TrOutput *inputs,
                                   int n_inputs, int summarize, const char *name, GError **error);
/* PrintV2 of a scalar string, followed by `end` (NULL for "\n"). No outputs. */
TrNode *tr_graph_add_print(TrGraph *g, TrOutput text, const char *end, bool to_stderr,
                           const char *name, GError **error);

/* One argument of tf.print: literal text, or a tensor. */
typedef struct {
  const char *text; /* literal text (a Python value already formatted), or NULL */
  TrOutput tensor;  /* used when text is NULL */
} TrPrintArg;
/* tf.print(*args, sep=sep, end=end) as TensorFlow builds it: literals go into the template,
 * tensors become "{}", joined by `sep` (NULL: " "); then StringFormat and PrintV2. Returns the
 * PrintV2 node. */
TrNode *tr_graph_add_tf_print(TrGraph *g, const TrPrintArg *args, int n_args, const char *sep,
                              const char *end, GError **error);
/* Assert: inputs[0] is a scalar bool condition, the rest the data its error shows when it is
 * false at run time ("assertion failed: [data0] [data1]", each with at most `summarize`
 * entries; < 0 shows all), as TensorFlow's Assert kernel. No outputs; stateful. */
TrNode *tr_graph_add_assert(TrGraph *g, const TrOutput *inputs, int n_inputs, int summarize,
                            const char *name, GError **error);
/* CheckNumerics of a float tensor: fails the run with "MESSAGE : Tensor had NaN values" (Inf,
 * "Inf and NaN") as TensorFlow's kernel. No outputs here; stateful. */
TrNode *tr_graph_add_check_numerics(TrGraph *g, TrOutput x, const char *message, const char *name,
                                    GError **error);
/* An EagerPyFunc node: `call` (a reference is taken) runs on the inputs' values when the node
 * runs; its n_outputs results must have `out_dtypes` (shapes unknown until then), else the run
 * fails with TensorFlow's InvalidArgumentError. Stateful: it runs once per run, in program
 * order, even with no consumer. */
TrNode *tr_graph_add_host_call(TrGraph *g, TrHostCall *call, const TrOutput *inputs, int n_inputs,
                               const TrDType *out_dtypes, int n_outputs, const char *name,
                               GError **error);
/* A while loop (tf.while_loop): `cond` and `body` are finished child graphs that both take the
 * loop variables as their non-resource placeholders, in order (n of them, matching `inputs` in
 * dtype, shapes compatible). `cond` has one output, a scalar bool; `body` has n outputs, the next
 * values of the loop variables (same dtypes; shapes compatible with the placeholders', which are
 * the loop's shape invariants). The node has n outputs ("while:1"): the loop variables' final
 * values; an output's static shape is the input shape relaxed against the body output shape
 * (dims that differ become None; a differing rank becomes unknown). The children are attached to
 * the node ({cond, body}; a new reference is taken on each, and neither may belong to another
 * graph yet); the exporters draw them as clusters. Variables the children touch are captured by
 * the children themselves (tr_graph_capture_variable): resource placeholders are not loop
 * variables. The node is stateful, and ordered with g's other stateful nodes, when either child
 * has a stateful node (tf.print, variable reads or writes); otherwise it is pure and may be
 * dropped when unused. Runs cond, then body while cond is true. `name` NULL means "while", as
 * tf.while_loop names it. Errors: TR_GRAPH_ERROR_TYPE for argument counts and dtypes, _VALUE for
 * shapes, output counts and an empty `inputs`; _INACCESSIBLE for inputs of another graph. */
TrNode *tr_graph_add_while(TrGraph *g, TrGraph *cond, TrGraph *body, const TrOutput *inputs, int n,
                           const char *name, GError **error);
/* A conditional (tf.cond, AutoGraph's `if` on a tensor): `pred` is a scalar bool of g;
 * `then_branch` and `else_branch` are finished child graphs taking their own arguments
 * (then_inputs, else_inputs: tensors of g, matching each branch's non-resource placeholders in
 * dtype and shape) and returning the same number of results with equal dtypes. The node's inputs
 * are pred, then_inputs, else_inputs; its outputs one per result, shapes relaxed over both
 * branches. Its type is "StatelessIf", or "If" (stateful, ordered) when a branch has a stateful
 * node. The branches become its children {then, else}. `name` NULL means "cond".
 * Errors: TR_GRAPH_ERROR_TYPE for a non-bool pred, argument and dtype mismatches; _VALUE for a
 * non-scalar pred and differing result counts. */
TrNode *tr_graph_add_cond(TrGraph *g, TrOutput pred, TrGraph *then_branch, TrGraph *else_branch,
                          const TrOutput *then_inputs, int n_then, const TrOutput *else_inputs,
                          int n_else, const char *name, GError **error);
/* NoOp (a target for control dependencies). */
TrNode *tr_graph_add_no_op(TrGraph *g, const char *name);
/* Mark `value` as the graph's next result through an Identity node ("Identity", "Identity_1"). */
TrNode *tr_graph_add_output(TrGraph *g, TrOutput value, GError **error);
/* Make `node` run after `dep` (both of the same graph; dep older than node). */
void tr_node_add_control_input(TrNode *node, TrNode *dep);
/* Merges `shape` into what is known of output `index` of `node`, as TensorFlow's
 * Tensor.set_shape: dims unknown in either stay or become the other's. FALSE with
 * TR_ERROR_INVALID_ARGUMENT, and nothing changed, when the two are not compatible. */
bool tr_node_refine_shape(TrNode *node, int index, const TrShape *shape, GError **error);
/* Attach a child graph to `node` (a new reference is taken); for cond and while_loop. */
void tr_node_add_child(TrNode *node, TrGraph *child);

/* Inline `body` (a finished graph: its placeholders are its arguments, its outputs the Identity
 * nodes of tr_graph_add_output) into `g`, as a call of a traced function from another builds it:
 * - every node of body is added to g under a fresh unique name made from its name in body,
 *   inside name scope `scope` ("add" in scope "double" becomes "double/add"; a second inlining
 *   in the same scope name gets "double_1/add", as tr_graph_push_name_scope makes scopes
 *   unique); NULL: no scope;
 * - body's argument i (non-resource placeholder, tr_graph_input) is replaced by inputs[i]:
 *   n_inputs must equal tr_graph_n_inputs(body) and each input's dtype must equal the
 *   placeholder's (else TR_GRAPH_ERROR_TYPE) and its shape be compatible with it (else
 *   TR_GRAPH_ERROR_VALUE); inputs must be outputs of g's nodes (else _INACCESSIBLE);
 * - resource placeholders become g's handle of the same TrVariable (tr_graph_capture_variable);
 * - core/tensor ops are rebuilt with the node's attrs and their shapes re-inferred from the new
 *   inputs, which may be more specific than body's; Consts share their value; tf.print's
 *   StringFormat and PrintV2 keep their formatting;
 * - body's output Identity nodes become ordinary Identity nodes of g (not outputs of g), and
 *   outputs[i] receives the one standing for body's output i; n_outputs must equal
 *   tr_graph_n_outputs(body);
 * - control inputs are mapped; stateful nodes keep their order and follow g's earlier stateful
 *   nodes (the usual automatic control dependencies);
 * - child graphs are copied (tr_graph_copy): a child graph belongs to one parent; a While is
 *   rebuilt by tr_graph_add_while on copies of its cond and body, its shapes relaxed anew.
 * Returns false with `error` set, leaving g's nodes as they were (names tried stay used). */
bool tr_graph_inline(TrGraph *g, const TrGraph *body, const TrOutput *inputs, int n_inputs,
                     TrOutput *outputs, int n_outputs, const char *scope, GError **error);

/* Output `index` of a node. */
static inline TrOutput
tr_node_output(TrNode *node, int index)
{
  return (TrOutput){node, index};
}
TrDType tr_output_dtype(TrOutput out);
const TrShape *tr_output_shape(TrOutput out);
/* "add:0". Transfer full. */
char *tr_output_name(TrOutput out);
/* The GraphDef input string: "add", "x:1". Transfer full. */
char *tr_output_input_string(TrOutput out);
/* What Python prints for a symbolic tensor: Tensor("a:0", shape=(), dtype=int32). Transfer
 * full. */
char *tr_output_to_string(TrOutput out);

/* ---- introspection and export ------------------------------------------------------------ */

/* One node as GraphDef shows it. */
typedef struct {
  const char *name; /* borrowed from the node */
  const char *op;   /* GraphDef op type */
  char **inputs;    /* "add", "x:1", "^name" for control inputs; NULL-terminated */
  int n_inputs;
} TrNodeDef;
/* as_graph_def().node: every node in insertion order. Free with tr_graph_def_free. */
TrNodeDef *tr_graph_as_graph_def(const TrGraph *g, int *n_nodes);
void tr_graph_def_free(TrNodeDef *defs, int n_nodes);
/* "['a', 'a'] -> add\n" lines, the guide's listing of a graph. Transfer full. */
char *tr_graph_def_listing(const TrGraph *g);

/* Graphviz DOT text: each node labelled with name, op, dtype and shape; control edges dashed;
 * child graphs as clusters titled "node / child graph name"; layout attributes for big graphs.
 * Transfer full. */
char *tr_graph_to_dot(const TrGraph *g);
/* JSON: {"name", "nodes": [{"name","op","inputs","outputs":[{"dtype","shape"}],...}],
 * "inputs", "outputs"}; unknown dims are null, an unknown rank is a null shape. Transfer full. */
char *tr_graph_to_json(const TrGraph *g);
/* An SVG drawing laid out by Graphviz's dot, or NULL with `error` set. Transfer full. */
char *tr_graph_to_svg(const TrGraph *g, GError **error);
/* The process's one Graphviz context (dot layout and the core renderers built in), locked:
 * Graphviz is not thread-safe, so every use of it (here and in the debugger's layout) holds
 * this lock. Call tr_graph_gvc_unlock when done; the context is borrowed. */
struct GVC_s *tr_graph_gvc_lock(void);
void tr_graph_gvc_unlock(void);

/* ---- optimisation ------------------------------------------------------------------------ */

typedef enum {
  TR_OPT_CSE = 1 << 0,              /* common-subexpression elimination */
  TR_OPT_CONSTANT_FOLDING = 1 << 1, /* pure subgraphs of constants become one Const */
  TR_OPT_DEAD_NODES = 1 << 2,       /* drop nodes no output or stateful node needs */
  TR_OPT_FUSION = 1 << 3,           /* trees of elementwise ops become one _FusedElementwise */
  TR_OPT_ALL = 0xf,
} TrOptPass;

/* What one pass did. */
typedef struct {
  const char *pass; /* "constant-folding", "cse", "fusion", "dead-nodes" */
  int nodes_before; /* live nodes (needed by an output, a stateful node or an input) before */
  int nodes_after;  /* live nodes after */
  int changed;      /* nodes folded, merged or removed */
} TrOptPassReport;

typedef struct {
  int n_passes;              /* entries used */
  TrOptPassReport passes[6]; /* in the order they ran */
} TrOptReport;

/* A deep copy: same nodes, names and ids; constants and variables shared by reference.
 * Optimise a copy so that the traced graph stays as the user wrote it (TensorFlow's
 * as_graph_def shows the unoptimised graph too). Transfer full. */
TrGraph *tr_graph_copy(const TrGraph *g);
/* Run the chosen passes, in place, in the order CSE, constant folding, CSE, fusion, dead nodes;
 * then the same passes on every child graph (a While's cond and body), which `report` does not
 * count. `report` may be NULL. A fused graph is for running: its _FusedElementwise nodes are
 * not TensorFlow ops (tr_graph_inline and tr_graph_copy handle them; the exporters show them). */
void tr_graph_optimize(TrGraph *g, unsigned passes, TrOptReport *report);
/* Live nodes: those an output, a stateful node or an input needs. */
int tr_graph_n_live_nodes(const TrGraph *g);

G_END_DECLS
