/* lang-tf.h — the `tensorflow` module of the cell language: eager tensors over core/tensor.
 *
 * A tf.Tensor object stands for one tensor. In eager mode it holds a concrete TrTensor; the
 * traced-function layer will add symbolic tensors (a graph output with a partial shape), so
 * code that needs values goes through lang_tf_tensor_value(), which is NULL for symbolic ones.
 * Python values become tensors by TensorFlow's convert_to_tensor rules (lang_tf_convert), and
 * every TR_ERROR from core/tensor is raised as the tf.errors class of its code.
 */
#pragma once

#include "lang-runtime.h"
#include "tr-fn.h"
#include "tr-graph.h"
#include "tr-tensor.h"

G_BEGIN_DECLS

typedef struct {
  LangObject base; /* type is lang_tf_tensor_type */
  TrTensor *value; /* eager value (owned); NULL for a symbolic tensor */
  TrGraph *graph;  /* symbolic: the graph it belongs to (owned reference); else NULL */
  TrOutput out;    /* symbolic: the node output it names */
} LangTfTensor;

extern LangType lang_tf_tensor_type;       /* tf.Tensor (EagerTensor) */
extern LangType lang_tf_tensor_shape_type; /* tf.TensorShape */
extern LangType lang_tf_dtype_type;        /* tf.dtypes.DType */
extern LangType lang_tf_ndarray_type;      /* what Tensor.numpy() returns for arrays */

/* tf.errors classes; OpError derives from Exception, the others from OpError. */
#define LANG_TF_ERROR_LIST(X)                                                                      \
  X(INVALID_ARGUMENT, InvalidArgumentError)                                                        \
  X(OUT_OF_RANGE, OutOfRangeError)                                                                 \
  X(UNIMPLEMENTED, UnimplementedError)                                                             \
  X(RESOURCE_EXHAUSTED, ResourceExhaustedError)                                                    \
  X(FAILED_PRECONDITION, FailedPreconditionError)                                                  \
  X(NOT_FOUND, NotFoundError)

extern LangType lang_tf_exc_OpError;
#define LANG_TF_EXC_DECLARE(code, name) extern LangType lang_tf_exc_##name;
LANG_TF_ERROR_LIST(LANG_TF_EXC_DECLARE)
#undef LANG_TF_EXC_DECLARE

/* `import tensorflow`: registered by lang_interp_new(). lang_tf_module_init makes the eager
 * part; lang_tf_module_new adds tf.function, Variable, tf.print and the rest. */
LangValue lang_tf_module_init(LangState *L);
LangValue lang_tf_module_new(LangState *L);

/* A tf.Tensor wrapping `t` (transfer full of t). Returns LANG_EXC when t is NULL (for chaining
 * after a failed op whose error was already raised). */
LangValue lang_tf_tensor_new(LangState *L, TrTensor *t);
static inline bool
lang_tf_is_tensor(LangValue v)
{
  return v.tag == LANG_TAG_OBJ && v.o->type == &lang_tf_tensor_type;
}
/* The eager value of a tensor object (borrowed), NULL when symbolic. */
static inline TrTensor *
lang_tf_tensor_value(LangValue v)
{
  return ((LangTfTensor *)v.o)->value;
}

/* convert_to_tensor(v, dtype): tensors pass through (a different `dtype` is a ValueError);
 * Python scalars and nested lists follow TF's inference, or become `dtype` when it is not
 * TR_DTYPE_INVALID. With `hint` the dtype is only preferred: a tensor keeps its own. Transfer
 * full, or NULL with an exception raised. */
TrTensor *lang_tf_convert(LangState *L, LangValue v, TrDType dtype, bool hint);
/* Whether convert_to_tensor would accept v's type (tensor, number, str, bytes, list, tuple). */
bool lang_tf_convertible(LangValue v);

/* Raises the tf.errors class of a TR_ERROR (its message as the text) and frees it. Returns
 * LANG_EXC. */
LangValue lang_tf_raise_error(LangState *L, GError *error);
/* The tensor object for an op result: the tensor, or the GError raised. */
LangValue lang_tf_result(LangState *L, TrTensor *t, GError *error);

/* The TrDType a `dtype=` argument names: a DType object or a name ("float32"); None/UNSET give
 * `dflt`. Returns false with TypeError raised otherwise. */
bool lang_tf_dtype_arg(LangState *L, LangValue v, TrDType dflt, TrDType *out);
/* The immortal DType object of a dtype (borrowed). */
LangValue lang_tf_dtype_object(TrDType dtype);
/* A shape argument: a list/tuple of ints, a TensorShape or a 1-D int tensor. */
bool lang_tf_shape_arg(LangState *L, LangValue v, TrShape *out);
/* A new TensorShape object. */
LangValue lang_tf_shape_new(LangState *L, const TrShape *shape);

/* ---- traced functions: what hosts (the command line, the kernel, the debugger) use ---- */

/* The session's event bus (SPEC §4): every Function, call, trace and tf.print of `L` emits on
 * it. Borrowed; lives as long as L. */
TrEventBus *lang_tf_event_bus(LangState *L);
/* Make `L` emit on `bus` (a reference is taken) instead of a bus of its own, so that a host
 * keeps one numbered stream across sessions (the kernel across restarts). Call before the
 * session first uses the tensorflow module; returns FALSE (and changes nothing) after. */
bool lang_tf_use_event_bus(LangState *L, TrEventBus *bus);
/* The session's Functions and the "run functions eagerly" switch. Borrowed. */
TrFnRegistry *lang_tf_registry(LangState *L);
/* The running cell's execution count (0: none), carried by call events. */
void lang_tf_set_cell(LangState *L, gint64 cell);
gint64 lang_tf_get_cell(LangState *L);

/* Readies the types defined in lang-tf-tensor.c. */
void lang_tf_tensor_types_ready(const char *module);

G_END_DECLS
