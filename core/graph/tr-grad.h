/* tr-grad.h — reverse-mode gradients: each op's gradient written once, emitted anywhere.
 *
 * A gradient function never touches tensors or graphs itself: it emits ops through a
 * TrGradBuilder, whose values are opaque handles. The tensor builder here runs every op at once
 * (handles hold concrete tensors); the graph builder adds nodes to a TrGraph (handles stand for
 * node outputs); the language layer has its own that goes through its op dispatcher, so that the
 * same code computes a GradientTape's gradients eagerly and inside a traced function.
 *
 * What is differentiated is a list of records in program order (a tape): one per op applied,
 * naming its input and output handles. A handle is the identity of a value: two records that
 * share a value share the handle. tr_grad_backprop() walks the records backwards from the
 * targets, summing each value's gradient over its uses, and returns the gradients of the
 * sources (NULL for a source the targets do not depend on). Only floating-point values carry
 * gradients, as in TensorFlow.
 *
 * Beyond core/tensor's ops, a record may be a ReadVariableOp (input: the variable's handle,
 * output: the value read; the gradient passes through), a call of a whole graph (a traced
 * function: inputs are its arguments then the value of each variable it reads, see
 * tr_grad_graph_variables), or a While / If node of a graph being differentiated. A call's
 * gradient is computed by replaying its graph with the builder, recording the replay, and
 * back-propagating through that: loops then run on concrete values, and the taken branch of a
 * conditional is the one recorded. Where values are not concrete (a graph builder), a loop's
 * gradient, or a conditional's whose predicate is not known, needs the builder's
 * symbolic_gradient hook; the graph builder's adds a SymbolicGradient node, which does that
 * replay when the graph runs (tr_grad_add_symbolic_gradient).
 *
 * A While or If record of a graph builder (tr_grad_graph_records) takes, after the node's inputs,
 * the handles of the variables its child graphs use (tr_grad_graph_variables order over the
 * children), so that gradients reach variables read inside a loop or branch.
 */
#pragma once

#include "tr-graph.h"

G_BEGIN_DECLS

/* How gradient code emits ops. Handles are owned by the builder's context and stay valid until
 * it is destroyed; every call that makes a value returns a handle no other value has. */
typedef struct {
  /* Applies a core/tensor op to `n` handles: a new handle, or NULL with `error` set. */
  void *(*apply)(void *ctx, TrOpId op, void *const *in, int n, const TrAttrs *attrs,
                 GError **error);
  /* A constant (takes over `value`): a new handle, or NULL with `error` set. */
  void *(*constant)(void *ctx, TrTensor *value, GError **error);
  /* The dtype and (possibly partial) static shape of a handle. */
  void (*describe)(void *ctx, void *handle, TrDType *dtype, TrShape *shape);
  /* The handle's value when it is known now (eager, or a constant), else NULL. Borrowed. */
  TrTensor *(*value)(void *ctx, void *handle);
  /* Optional: the gradients of a While or If node's inputs, emitted as a node that computes
   * them when it runs. `inputs` are the record's n_inputs handles (the node's inputs, then its
   * children's variables); grad_outputs one per node output (NULL: zero). grad_inputs receives
   * one handle per input, or NULL for none. NULL hook: an UnimplementedError. */
  bool (*symbolic_gradient)(void *ctx, const TrNode *node, void *const *inputs, int n_inputs,
                            void *const *grad_outputs, void **grad_inputs, GError **error);
} TrGradBuilder;

/* What a record's op is, beyond core/tensor's TrOpId and core/graph's TrGraphOpId
 * (TR_GOP_READ_VARIABLE, TR_GOP_WHILE, TR_GOP_IF): a call of a traced function, or a stretch of
 * computation whose gradient the language layer supplies (tf.custom_gradient). */
enum { TR_GRAD_CALL = TR_N_NODE_OPS, TR_GRAD_CUSTOM };

struct TrGradRecord;
/* A TR_GRAD_CUSTOM record's gradient: dy holds one handle per output (NULL: no gradient flows
 * into it); dx receives one handle per input, or NULL for none. It emits its ops through the
 * same builder context `ctx`. False with `error` set. */
typedef bool (*TrGradCustomFunc)(void *ctx, const struct TrGradRecord *r, void *const *dy,
                                 void **dx, GError **error);

/* One op as it ran: the unit of a tape. Everything is borrowed. */
typedef struct TrGradRecord {
  int op;               /* a TrOpId, TR_GOP_READ_VARIABLE, TR_GOP_WHILE, TR_GOP_IF, TR_GRAD_CALL or
                         * TR_GRAD_CUSTOM */
  const TrAttrs *attrs; /* core/tensor ops: the static parameters (NULL: defaults) */
  int n_inputs;         /* handles in `inputs` */
  void *const *inputs;  /* per input; a variable's handle for ReadVariableOp */
  int n_outputs;        /* handles in `outputs` */
  void *const *outputs; /* per output */
  const TrNode *node;   /* While, If: the node (children, inputs' layout) */
  const TrGraph *graph; /* TR_GRAD_CALL: the function graph that ran */
  TrGradCustomFunc custom; /* TR_GRAD_CUSTOM: its gradient */
  void *custom_data;       /* TR_GRAD_CUSTOM: for `custom` */
} TrGradRecord;

/* The gradients of `targets` with respect to `sources`, through `records` (program order).
 * seeds[i] is the gradient flowing into targets[i] (NULL: ones like the target; `seeds` itself
 * may be NULL). grads[j] receives a handle, or NULL when sources[j] is not connected to any
 * target through floating-point values. A source may also be a target. False with `error` set
 * when the builder fails or a gradient cannot be built (symbolic loops without the hook). */
bool tr_grad_backprop(const TrGradBuilder *b, void *ctx, const TrGradRecord *records, int n_records,
                      void *const *targets, void *const *seeds, int n_targets, void *const *sources,
                      int n_sources, void **grads, GError **error);

/* The variables a graph reads or writes, its children's included, in the order a call record
 * passes their values: the first use in node order, depth first. Returns how many; `vars`
 * (may be NULL) receives up to `max` of them (borrowed). */
int tr_grad_graph_variables(const TrGraph *g, TrVariable **vars, int max);

/* Whether gradients flow through values of this dtype (the floating-point ones). */
bool tr_grad_dtype_is_differentiable(TrDType dtype);

/* Whether an op (a TrOpId or graph-level op) has a gradient; ops without one (comparisons,
 * ArgMax, creation ops) give their inputs none. */
bool tr_grad_op_is_differentiable(int op);

/* ---- SymbolicGradient --------------------------------------------------------------------
 * A graph-level node (TR_GOP_SYMBOLIC_GRADIENT, TensorFlow's "SymbolicGradient") computing the
 * gradients of a While or If node's inputs when it runs. Its one child graph ("forward", named
 * after the forward node) holds a copy of the forward node on placeholders standing for its
 * inputs. Inputs: the forward node's inputs, then one upstream gradient per forward output (for
 * an output that is not floating point, any tensor of its dtype: it is ignored). Outputs: one per
 * forward input, its gradient (zeros when unconnected; an input that is not floating point gets
 * its own value back, which nothing should use), then one per variable the forward node's
 * children use (tr_grad_graph_variables of the child), the gradient of the value read. At run
 * time it replays the forward node eagerly on the concrete inputs and the variables' current
 * values, and back-propagates through the replay, exactly as an eager tape differentiates a
 * called function. The node is stateful (ordered) when the children use variables, whose values
 * it reads as it runs. The optimiser leaves its child alone; the exporters draw it as a cluster. */

/* Adds a SymbolicGradient of `forward` (a While or If node of any graph: its children are
 * copied) to `g`, on `inputs` (forward->n_inputs outputs of g) and `grad_outputs`
 * (forward->n_outputs). `name` NULL: "SymbolicGradient". NULL with `error` set when an input
 * does not fit. */
TrNode *tr_grad_add_symbolic_gradient(TrGraph *g, const TrNode *forward, const TrOutput *inputs,
                                      const TrOutput *grad_outputs, const char *name,
                                      GError **error);
/* The forward While or If node a SymbolicGradient node replays (in its child graph). */
const TrNode *tr_grad_symbolic_forward(const TrNode *node);
/* The node's kernel: out[k] receives transfer-full gradients; false with a TR_ERROR. */
bool tr_grad_run_symbolic_gradient(const TrNode *node, TrTensor *const *in, TrTensor **out,
                                   GError **error);

/* ---- builders ----------------------------------------------------------------------------- */

/* Runs every op at once: handles hold concrete tensors. */
typedef struct TrGradEager TrGradEager;
extern const TrGradBuilder tr_grad_eager_builder;
TrGradEager *tr_grad_eager_new(void);
void tr_grad_eager_free(TrGradEager *e);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TrGradEager, tr_grad_eager_free)
/* A handle for `t` (a new reference is taken). */
void *tr_grad_eager_handle(TrGradEager *e, TrTensor *t);
/* The tensor of a handle. Borrowed. */
TrTensor *tr_grad_eager_tensor(void *handle);

/* Adds nodes to a graph: handles stand for outputs of its nodes. Loops and conditionals whose
 * values are not known get SymbolicGradient nodes (its symbolic_gradient hook). */
typedef struct TrGradGraph TrGradGraph;
extern const TrGradBuilder tr_grad_graph_builder;
/* Builds into `g` (borrowed: it must outlive the builder). */
TrGradGraph *tr_grad_graph_new(TrGraph *g);
void tr_grad_graph_free(TrGradGraph *b);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TrGradGraph, tr_grad_graph_free)
/* The handle of an output of the graph's node (the same handle for the same output). */
void *tr_grad_graph_handle(TrGradGraph *b, TrOutput out);
/* The output a handle stands for. */
TrOutput tr_grad_graph_output(void *handle);

/* The handle of a variable: the output of its resource Placeholder in the graph (made when the
 * graph has none), whose dtype and shape describe() reports as the variable's. */
void *tr_grad_graph_variable_handle(TrGradGraph *b, TrVariable *var);
/* Appends to `records` (an array of TrGradRecord, whose arrays live in `b`) one record per node
 * of the graph with an id in [first, last) that has a gradient or may pass one on (core/tensor
 * ops, ReadVariableOp, While, If, SymbolicGradient), in node order. A While or If record's
 * inputs end with its children's variables' handles (tr_grad_graph_variable_handle, which may
 * capture a variable in the graph). */
void tr_grad_graph_records(TrGradGraph *b, int first, int last, GArray *records);

G_END_DECLS
