/* graph-private.h — what the files of core/graph share; not included outside core/graph.
 *
 * The arena that holds a graph's nodes, the graph struct itself, the table of graph-level ops
 * (type, flags and how each one runs), tf.print's formatting, and graph-mode error texts.
 */
#pragma once

#include "tr-plan.h"

G_BEGIN_DECLS

/* ---- arena: bump allocation in chunks, all freed at once ------------------------------- */

typedef struct TrArenaChunk TrArenaChunk;
typedef struct {
  TrArenaChunk *head; /* newest chunk; chunks link to older ones */
  size_t used;        /* bytes used in head */
  size_t size;        /* bytes available in head */
  size_t total;       /* bytes allocated over all chunks */
} TrArena;

void tr_arena_init(TrArena *arena);
void tr_arena_clear(TrArena *arena);
/* Zeroed memory, 16-byte aligned, living until tr_arena_clear. */
void *tr_arena_alloc(TrArena *arena, size_t size);
char *tr_arena_strdup(TrArena *arena, const char *s);
#define tr_arena_new(arena, type, n) ((type *)tr_arena_alloc((arena), sizeof(type) * (size_t)(n)))

/* ---- the graph ---------------------------------------------------------------------------- */

struct TrGraph {
  int refcount;             /* owners */
  char *name;               /* function name for runtime errors, or NULL (owned) */
  TrGraph *parent;          /* the graph whose node owns this one, or NULL (borrowed) */
  TrArena arena;            /* nodes, names, inputs, attrs */
  GPtrArray *nodes;         /* TrNode*, insertion order */
  GPtrArray *inputs;        /* argument Placeholders, in creation order */
  GPtrArray *outputs;       /* result Identity nodes, in order */
  GHashTable *names_in_use; /* lowercased name -> count, as Graph._names_in_use (owned keys) */
  GHashTable *by_name;      /* node name -> TrNode* */
  GHashTable *captures;     /* TrVariable* -> resource Placeholder; NULL until the first */
  GPtrArray *scopes;        /* name scope stack, each the full prefix (arena strings) */
  TrNode *last_stateful;    /* newest stateful node: the next one depends on it */
};

/* A node with room for its inputs and outputs, named `name` (already unique), appended. */
TrNode *tr_graph_node_new(TrGraph *g, int op, const char *type, const char *name,
                          const TrOutput *inputs, int n_inputs, int n_outputs);
/* Whether a node of `g` is stateful (a child graph's While or If is, when its children are). */
bool tr_graph_has_stateful_node(const TrGraph *g);
/* Chain a new stateful node after the previous one (automatic control dependencies). */
void tr_graph_note_stateful(TrGraph *g, TrNode *node);
/* Drop nodes whose `keep` entry is false, renumbering ids; outputs and inputs lists follow. */
void tr_graph_compact(TrGraph *g, const bool *keep);
/* Per node id: whether an output, a stateful node or an argument needs it. Transfer full. */
bool *tr_graph_live_set(const TrGraph *g);

/* Whether every input is an output of a node of `g`; else TensorFlow's "cannot be accessed
 * here" text in TR_GRAPH_ERROR_INACCESSIBLE. */
bool tr_graph_check_inputs(TrGraph *g, const TrOutput *inputs, int n_inputs, GError **error);
/* TensorShape.is_compatible_with: unknown ranks and dims on either side match anything. */
bool tr_graph_shapes_compatible(const TrShape *a, const TrShape *b);
/* StringFormat from the literal text around each input (n_inputs + 1 `segments`, copied), so a
 * literal "{}" in tf.print's text survives (tr_graph_add_string_format splits its template). */
TrNode *tr_graph_add_string_format_segments(TrGraph *g, const char **segments,
                                            const TrOutput *inputs, int n_inputs, int summarize,
                                            const char *name, GError **error);

/* The GraphDef type of a core/tensor op on these inputs: "AddV2", or "Add" for strings. */
const char *tr_graph_op_type(TrOpId op, const TrTensorInfo *in, int n_in);

/* ---- graph-level ops ---------------------------------------------------------------------- */

/* Runs one graph-level node on concrete inputs: out[k] gets transfer-full tensors. */
typedef bool (*TrGopRunFunc)(const TrNode *node, TrTensor *const *in, TrTensor **out,
                             const TrRunContext *ctx, GError **error);

typedef struct {
  const char *type; /* GraphDef op type */
  bool stateful;    /* keeps program order */
  TrGopRunFunc run; /* never called for Placeholder and While: the executor runs those itself */
} TrGopDef;

/* The definition of a graph-level op. Borrowed, static. */
const TrGopDef *tr_gop_def(int op);
static inline bool
tr_op_is_graph_level(int op)
{
  return op >= TR_N_OPS;
}

/* ---- graph-mode errors -------------------------------------------------------------------- */

/* Turn core/tensor's eager inference error into TensorFlow's graph-mode error for a node being
 * built (named `name`, not yet in the graph), set in TR_GRAPH_ERROR. Takes `eager`. */
void tr_graph_set_infer_error(GError **error, GError *eager, TrOpId op, const char *name,
                              const TrTensorInfo *in, const TrOutput *inputs, int n_inputs,
                              const TrAttrs *attrs);
/* "[2,?]", "?" for an unknown rank: shapes in graph-mode errors. Transfer full. */
char *tr_graph_shape_error_string(const TrShape *shape);

G_END_DECLS
