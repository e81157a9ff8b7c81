/* graph.c — graphs and nodes: the arena, TensorFlow's naming, building nodes with inference,
 * automatic control dependencies, copies and compaction.
 */
#include "graph-private.h"
#include "tr-print.h"

#include <string.h>

G_DEFINE_QUARK(tr-graph-error-quark, tr_graph_error);

/* ---- arena --------------------------------------------------------------------------------- */

struct TrArenaChunk {
  TrArenaChunk *next; /* older chunk */
  size_t size;        /* usable bytes after the header */
  max_align_t data[]; /* the memory handed out */
};

/* Chunks double from ARENA_FIRST up to ARENA_CHUNK bytes: a Function keeps every trace's graph,
 * its optimised copy and its plan, so a one-op graph must cost about what it holds (a kilobyte
 * or so), while a large graph still allocates in a handful of big chunks. */
#define ARENA_FIRST 256
#define ARENA_CHUNK (64 * 1024)
#define ARENA_ALIGN 16

void
tr_arena_init(TrArena *arena)
{
  memset(arena, 0, sizeof *arena);
}

void
tr_arena_clear(TrArena *arena)
{
  TrArenaChunk *c = arena->head;
  while (c) {
    TrArenaChunk *next = c->next;
    g_free(c);
    c = next;
  }
  tr_arena_init(arena);
}

void *
tr_arena_alloc(TrArena *arena, size_t size)
{
  size = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
  if (!arena->head || arena->used + size > arena->size) {
    size_t chunk = MAX(size, CLAMP(arena->total, ARENA_FIRST, ARENA_CHUNK));
    TrArenaChunk *c = g_malloc0(sizeof(TrArenaChunk) + chunk);
    c->size = chunk;
    c->next = arena->head;
    arena->head = c;
    arena->used = 0;
    arena->size = chunk;
    arena->total += chunk;
  }
  void *p = (char *)arena->head->data + arena->used;
  arena->used += size;
  return p;
}

char *
tr_arena_strdup(TrArena *arena, const char *s)
{
  size_t len = strlen(s);
  char *p = tr_arena_alloc(arena, len + 1);
  memcpy(p, s, len);
  return p;
}

/* ---- dtypes ---------------------------------------------------------------------------------- */

const char *
tr_graph_dtype_name(TrDType dtype)
{
  if (dtype == TR_DTYPE_RESOURCE)
    return "resource";
  if (dtype == TR_VARIANT)
    return "variant";
  if (dtype < 0 || dtype > TR_N_DTYPES)
    return "invalid";
  return tr_dtype_name(dtype);
}

/* ---- graph lifecycle ----------------------------------------------------------------------- */

TrGraph *
tr_graph_new(const char *name)
{
  TrGraph *g = g_new0(TrGraph, 1);
  g->refcount = 1;
  g->name = g_strdup(name);
  tr_arena_init(&g->arena);
  g->nodes = g_ptr_array_new();
  g->inputs = g_ptr_array_new();
  g->outputs = g_ptr_array_new();
  g->names_in_use = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g->by_name = g_hash_table_new(g_str_hash, g_str_equal);
  g->scopes = g_ptr_array_new();
  return g;
}

TrGraph *
tr_graph_ref(TrGraph *g)
{
  g_return_val_if_fail(g != NULL, NULL);
  g->refcount++;
  return g;
}

/* What a node owns outside the arena. */
static void
node_release(TrNode *node)
{
  g_clear_pointer(&node->value, tr_tensor_unref);
  g_clear_pointer(&node->variable, tr_variable_unref);
  g_clear_pointer(&node->host, tr_host_call_unref);
  for (int i = 0; i < node->n_children; i++)
    g_clear_pointer(&node->children[i], tr_graph_unref);
  node->n_children = 0;
}

void
tr_graph_unref(TrGraph *g)
{
  if (!g || --g->refcount > 0)
    return;
  for (guint i = 0; i < g->nodes->len; i++)
    node_release(g->nodes->pdata[i]);
  g_ptr_array_free(g->nodes, TRUE);
  g_ptr_array_free(g->inputs, TRUE);
  g_ptr_array_free(g->outputs, TRUE);
  g_hash_table_destroy(g->names_in_use);
  g_hash_table_destroy(g->by_name);
  g_clear_pointer(&g->captures, g_hash_table_destroy);
  g_ptr_array_free(g->scopes, TRUE);
  tr_arena_clear(&g->arena);
  g_free(g->name);
  g_free(g);
}

const char *
tr_graph_name(const TrGraph *g)
{
  return g->name;
}

int
tr_graph_n_nodes(const TrGraph *g)
{
  return (int)g->nodes->len;
}

TrNode *
tr_graph_node(const TrGraph *g, int i)
{
  g_return_val_if_fail(i >= 0 && i < (int)g->nodes->len, NULL);
  return g->nodes->pdata[i];
}

TrNode *
tr_graph_find_node(const TrGraph *g, const char *name)
{
  return g_hash_table_lookup(g->by_name, name);
}

int
tr_graph_n_inputs(const TrGraph *g)
{
  return (int)g->inputs->len;
}

TrNode *
tr_graph_input(const TrGraph *g, int i)
{
  g_return_val_if_fail(i >= 0 && i < (int)g->inputs->len, NULL);
  return g->inputs->pdata[i];
}

int
tr_graph_n_outputs(const TrGraph *g)
{
  return (int)g->outputs->len;
}

TrNode *
tr_graph_output(const TrGraph *g, int i)
{
  g_return_val_if_fail(i >= 0 && i < (int)g->outputs->len, NULL);
  return g->outputs->pdata[i];
}

TrGraph *
tr_graph_parent(const TrGraph *g)
{
  return g->parent;
}

/* ---- names ------------------------------------------------------------------------------------
 */

/* TensorFlow's node names match [A-Za-z0-9.][A-Za-z0-9_.\-/]*; anything else becomes '_'. */
static char *
sanitize_name(const char *hint)
{
  if (!hint || !*hint)
    return g_strdup("unnamed");
  char *s = g_strdup(hint);
  for (char *p = s; *p; p++) {
    bool ok = g_ascii_isalnum(*p) || *p == '.' || (p > s && (*p == '_' || *p == '-' || *p == '/'));
    if (!ok)
      *p = '_';
  }
  return s;
}

static int
names_in_use_get(TrGraph *g, const char *key)
{
  return GPOINTER_TO_INT(g_hash_table_lookup(g->names_in_use, key));
}

static void
names_in_use_set(TrGraph *g, const char *key, int count)
{
  g_hash_table_insert(g->names_in_use, g_strdup(key), GINT_TO_POINTER(count));
}

/* A unique name for `hint` in name scope `scope` (NULL: the top). */
static const char *
unique_name_in(TrGraph *g, const char *scope, const char *hint)
{
  g_autofree char *base = sanitize_name(hint);
  g_autofree char *name = scope ? g_strconcat(scope, "/", base, NULL) : g_strdup(base);
  g_autofree char *key = g_ascii_strdown(name, -1);
  int i = names_in_use_get(g, key);
  names_in_use_set(g, key, i + 1);
  if (i == 0)
    return tr_arena_strdup(&g->arena, name);
  /* Taken: the first "name_i" (i counting on from the uses so far) that is free. */
  g_autofree char *candidate = NULL;
  do {
    g_free(candidate);
    candidate = g_strdup_printf("%s_%d", key, i++);
  } while (g_hash_table_contains(g->names_in_use, candidate));
  names_in_use_set(g, candidate, 1);
  g_autofree char *unique = g_strdup_printf("%s_%d", name, i - 1);
  return tr_arena_strdup(&g->arena, unique);
}

const char *
tr_graph_unique_name(TrGraph *g, const char *hint)
{
  return unique_name_in(g, tr_graph_name_scope(g), hint);
}

void
tr_graph_push_name_scope(TrGraph *g, const char *name)
{
  size_t n = strlen(name);
  if (n > 1 && name[n - 1] == '/') { /* absolute ("dense/"): entered as it is, again and again */
    char *scope = tr_arena_strdup(&g->arena, name);
    scope[n - 1] = '\0';
    g_ptr_array_add(g->scopes, scope);
    return;
  }
  g_ptr_array_add(g->scopes, (gpointer)tr_graph_unique_name(g, name));
}

const char *
tr_graph_name_scope(const TrGraph *g)
{
  return g->scopes->len ? g->scopes->pdata[g->scopes->len - 1] : NULL;
}

void
tr_graph_pop_name_scope(TrGraph *g)
{
  g_return_if_fail(g->scopes->len > 0);
  g_ptr_array_remove_index(g->scopes, g->scopes->len - 1);
}

/* Records the resource Placeholder of a captured variable; the table is made with the first
 * capture, as most graphs capture none. */
static void
graph_add_capture(TrGraph *g, TrVariable *var, TrNode *node)
{
  if (!g->captures)
    g->captures = g_hash_table_new(g_direct_hash, g_direct_equal);
  g_hash_table_insert(g->captures, var, node);
}

/* ---- nodes ---------------------------------------------------------------------------------- */

static TrSiteFunc site_func;
static void *site_data;

void
tr_graph_set_site_func(TrSiteFunc func, void *data)
{
  site_func = func;
  site_data = data;
}

TrNode *
tr_graph_node_new(TrGraph *g, int op, const char *type, const char *name, const TrOutput *inputs,
                  int n_inputs, int n_outputs)
{
  TrNode *node = tr_arena_new(&g->arena, TrNode, 1);
  node->graph = g;
  node->id = (int)g->nodes->len;
  node->op = op;
  node->type = type;
  node->name = name;
  node->n_inputs = n_inputs;
  node->inputs = tr_arena_new(&g->arena, TrOutput, MAX(n_inputs, 1));
  if (n_inputs)
    memcpy(node->inputs, inputs, sizeof(TrOutput) * (size_t)n_inputs);
  node->n_outputs = n_outputs;
  node->dtypes = tr_arena_new(&g->arena, TrDType, MAX(n_outputs, 1));
  node->shapes = tr_arena_new(&g->arena, TrShape, MAX(n_outputs, 1));
  if (site_func && !site_func(site_data, &node->site_file, &node->site_line)) {
    node->site_file = NULL;
    node->site_line = 0;
  }
  g_ptr_array_add(g->nodes, node);
  g_hash_table_insert(g->by_name, (gpointer)name, node);
  return node;
}

static bool
has_data_input(const TrNode *node, const TrNode *producer)
{
  for (int i = 0; i < node->n_inputs; i++)
    if (node->inputs[i].node == producer)
      return true;
  return false;
}

void
tr_node_add_control_input(TrNode *node, TrNode *dep)
{
  g_return_if_fail(node && dep && node->graph == dep->graph && dep->id < node->id);
  for (int i = 0; i < node->n_control; i++)
    if (node->control[i] == dep)
      return;
  if (node->n_control == node->cap_control) {
    int cap = MAX(4, node->cap_control * 2);
    TrNode **grown = tr_arena_new(&node->graph->arena, TrNode *, cap);
    if (node->n_control)
      memcpy(grown, node->control, sizeof(TrNode *) * (size_t)node->n_control);
    node->control = grown;
    node->cap_control = cap;
  }
  node->control[node->n_control++] = dep;
}

bool
tr_node_refine_shape(TrNode *node, int index, const TrShape *shape, GError **error)
{
  g_return_val_if_fail(node && index >= 0 && index < node->n_outputs && shape, false);
  TrShape *have = &node->shapes[index];
  if (shape->rank == TR_UNKNOWN)
    return true;
  bool compatible = have->rank == TR_UNKNOWN || have->rank == shape->rank;
  for (int d = 0; compatible && have->rank != TR_UNKNOWN && d < shape->rank; d++)
    compatible = have->dims[d] == TR_UNKNOWN || shape->dims[d] == TR_UNKNOWN ||
                 have->dims[d] == shape->dims[d];
  if (!compatible) {
    g_autofree char *a = tr_shape_to_string(have);
    g_autofree char *b = tr_shape_to_string(shape);
    g_set_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT, "Shapes %s and %s are incompatible", a,
                b);
    return false;
  }
  TrShape merged = *shape;
  for (int d = 0; have->rank != TR_UNKNOWN && d < merged.rank; d++)
    if (merged.dims[d] == TR_UNKNOWN)
      merged.dims[d] = have->dims[d];
  *have = merged;
  return true;
}

void
tr_node_add_child(TrNode *node, TrGraph *child)
{
  g_return_if_fail(node && child && !child->parent);
  TrArena *arena = &node->graph->arena;
  TrGraph **grown = tr_arena_new(arena, TrGraph *, node->n_children + 1);
  if (node->n_children)
    memcpy(grown, node->children, sizeof(TrGraph *) * (size_t)node->n_children);
  grown[node->n_children++] = tr_graph_ref(child);
  node->children = grown;
  child->parent = node->graph;
}

void
tr_graph_note_stateful(TrGraph *g, TrNode *node)
{
  node->stateful = true;
  if (g->last_stateful && !has_data_input(node, g->last_stateful))
    tr_node_add_control_input(node, g->last_stateful);
  g->last_stateful = node;
}

TrDType
tr_output_dtype(TrOutput out)
{
  g_return_val_if_fail(out.node && out.index >= 0 && out.index < out.node->n_outputs,
                       TR_DTYPE_INVALID);
  return out.node->dtypes[out.index];
}

const TrShape *
tr_output_shape(TrOutput out)
{
  g_return_val_if_fail(out.node && out.index >= 0 && out.index < out.node->n_outputs, NULL);
  return &out.node->shapes[out.index];
}

char *
tr_output_name(TrOutput out)
{
  return g_strdup_printf("%s:%d", out.node->name, out.index);
}

char *
tr_output_input_string(TrOutput out)
{
  if (out.index == 0)
    return g_strdup(out.node->name);
  return g_strdup_printf("%s:%d", out.node->name, out.index);
}

char *
tr_output_to_string(TrOutput out)
{
  g_autofree char *shape = tr_shape_to_string(tr_output_shape(out));
  return g_strdup_printf("Tensor(\"%s:%d\", shape=%s, dtype=%s)", out.node->name, out.index, shape,
                         tr_graph_dtype_name(tr_output_dtype(out)));
}

/* ---- building ---------------------------------------------------------------------------------
 */

bool
tr_graph_check_inputs(TrGraph *g, const TrOutput *inputs, int n_inputs, GError **error)
{
  for (int i = 0; i < n_inputs; i++) {
    TrNode *producer = inputs[i].node;
    g_return_val_if_fail(producer != NULL, false);
    g_return_val_if_fail(inputs[i].index >= 0 && inputs[i].index < producer->n_outputs, false);
    if (producer->graph == g)
      continue;
    g_autofree char *t = tr_output_to_string(inputs[i]);
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_INACCESSIBLE,
                "The tensor '%s' cannot be accessed here: it is defined in another function or "
                "code block. Use return values, explicit Python locals or TensorFlow collections "
                "to access it. Defined in: FuncGraph(name=%s); accessed from: FuncGraph(name=%s).",
                t, producer->graph->name ? producer->graph->name : "?", g->name ? g->name : "?");
    return false;
  }
  return true;
}

TrNode *
tr_graph_add_placeholder(TrGraph *g, TrDType dtype, const TrShape *shape, const char *name)
{
  g_return_val_if_fail(g && shape, NULL);
  g_return_val_if_fail((dtype >= 0 && dtype < TR_N_DTYPES) || dtype == TR_VARIANT, NULL);
  const char *unique = tr_graph_unique_name(g, name ? name : "Placeholder");
  TrNode *node = tr_graph_node_new(g, TR_GOP_PLACEHOLDER, "Placeholder", unique, NULL, 0, 1);
  node->dtypes[0] = dtype;
  node->shapes[0] = *shape;
  g_ptr_array_add(g->inputs, node);
  return node;
}

TrNode *
tr_graph_add_const(TrGraph *g, TrTensor *value, const char *name)
{
  g_return_val_if_fail(g && value, NULL);
  const char *unique = tr_graph_unique_name(g, name ? name : "Const");
  TrNode *node = tr_graph_node_new(g, TR_GOP_CONST, "Const", unique, NULL, 0, 1);
  node->value = tr_tensor_ref(value);
  node->dtypes[0] = value->dtype;
  node->shapes[0] = value->shape;
  return node;
}

/* What inference may know of an input: its dtype, shape, and its value if it is a Const. */
static void
describe_input(TrOutput in, TrTensorInfo *info)
{
  info->dtype = tr_output_dtype(in);
  info->shape = *tr_output_shape(in);
  info->value = in.node->op == TR_GOP_CONST ? in.node->value : NULL;
}

static bool
check_no_resource(const char *type, const TrTensorInfo *in, int n_in, GError **error)
{
  for (int i = 0; i < n_in; i++) {
    if (in[i].dtype != TR_DTYPE_RESOURCE)
      continue;
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE,
                "Input %d of '%s' Op has type resource that is not a tensor; read the variable "
                "first",
                i, type);
    return false;
  }
  return true;
}

/* A node's attrs: most ops keep the defaults, which all nodes share (static, never written:
 * node->attrs is const) rather than each holding a copy of the large TrAttrs in its arena. */
static const TrAttrs *
node_attrs(TrGraph *g, const TrAttrs *attrs)
{
  static TrAttrs defaults;
  static gsize once;
  if (g_once_init_enter(&once)) {
    tr_attrs_init(&defaults);
    g_once_init_leave(&once, 1);
  }
  if (attrs == &defaults || memcmp(attrs, &defaults, sizeof defaults) == 0)
    return &defaults;
  TrAttrs *copy = tr_arena_new(&g->arena, TrAttrs, 1);
  memcpy(copy, attrs, sizeof *copy);
  return copy;
}

/* Identity passes a variant (a dataset, iterator or tensor list) through: results and loop
 * variables go through Identity nodes. No other core/tensor op takes one (tr_op_infer says so). */
static TrNode *
add_variant_identity(TrGraph *g, const TrOutput *input, const char *unique)
{
  TrNode *node = tr_graph_node_new(g, TR_OP_IDENTITY, "Identity", unique, input, 1, 1);
  TrAttrs attrs;
  tr_attrs_init(&attrs);
  node->attrs = node_attrs(g, &attrs);
  node->dtypes[0] = TR_VARIANT;
  node->shapes[0] = *tr_output_shape(*input);
  return node;
}

const char *
tr_graph_op_type(TrOpId op, const TrTensorInfo *in, int n_in)
{
  /* String concatenation is TensorFlow's Add, not AddV2. */
  if (op == TR_OP_ADD && n_in > 0 && in[0].dtype == TR_STRING)
    return "Add";
  return tr_op_def(op)->type;
}

TrNode *
tr_graph_add_op(TrGraph *g, TrOpId op, const TrOutput *inputs, int n_inputs, const TrAttrs *attrs,
                const char *name, GError **error)
{
  g_return_val_if_fail(g != NULL, NULL);
  g_return_val_if_fail(op >= 0 && op < TR_N_OPS, NULL);
  g_return_val_if_fail(n_inputs >= 0 && (n_inputs == 0 || inputs), NULL);
  if (!tr_graph_check_inputs(g, inputs, n_inputs, error))
    return NULL;
  const TrOpDef *def = tr_op_def(op);
  /* TensorFlow picks the name before inference, so a failed op still uses up its name. */
  const char *unique = tr_graph_unique_name(g, name ? name : def->name);

  g_autofree TrTensorInfo *in = g_new0(TrTensorInfo, MAX(n_inputs, 1));
  for (int i = 0; i < n_inputs; i++)
    describe_input(inputs[i], &in[i]);
  if (!check_no_resource(def->type, in, n_inputs, error))
    return NULL;
  if (op == TR_OP_IDENTITY && n_inputs == 1 && in[0].dtype == TR_VARIANT)
    return add_variant_identity(g, inputs, unique);

  /* Inference may fill attrs in (a copy: the caller's stay as given). */
  TrAttrs copy;
  if (attrs)
    memcpy(&copy, attrs, sizeof copy);
  else
    tr_attrs_init(&copy);

  TrDType dtype;
  TrShape shape;
  GError *eager = NULL;
  if (!tr_op_infer(op, in, n_inputs, &copy, &dtype, &shape, &eager)) {
    tr_graph_set_infer_error(error, eager, op, unique, in, inputs, n_inputs, &copy);
    return NULL;
  }
  const char *type = tr_graph_op_type(op, in, n_inputs);
  TrNode *node = tr_graph_node_new(g, op, type, unique, inputs, n_inputs, 1);
  node->attrs = node_attrs(g, &copy);
  node->dtypes[0] = dtype;
  node->shapes[0] = shape;
  if (def->flags & TR_OP_FLAG_STATEFUL)
    tr_graph_note_stateful(g, node);
  return node;
}

TrNode *
tr_graph_add_output(TrGraph *g, TrOutput value, GError **error)
{
  TrNode *node = tr_graph_add_op(g, TR_OP_IDENTITY, &value, 1, NULL, "Identity", error);
  if (node) {
    /* The graph's, not a line's: the line running now is the caller's, after the body. */
    node->site_file = NULL;
    node->site_line = 0;
    g_ptr_array_add(g->outputs, node);
  }
  return node;
}

TrNode *
tr_graph_add_no_op(TrGraph *g, const char *name)
{
  const char *unique = tr_graph_unique_name(g, name ? name : "NoOp");
  return tr_graph_node_new(g, TR_GOP_NO_OP, "NoOp", unique, NULL, 0, 0);
}

/* ---- variables --------------------------------------------------------------------------------
 */

static gint last_variable_id;

TrVariable *
tr_variable_new(TrTensor *initial, const char *name)
{
  g_return_val_if_fail(initial != NULL, NULL);
  TrVariable *var = g_new0(TrVariable, 1);
  var->refcount = 1;
  var->id = (uint64_t)g_atomic_int_add(&last_variable_id, 1) + 1;
  var->name = g_strdup(name ? name : "Variable");
  var->dtype = initial->dtype;
  var->shape = initial->shape;
  var->value = tr_tensor_ref(initial);
  var->trainable = true;
  return var;
}

TrVariable *
tr_variable_ref(TrVariable *var)
{
  g_return_val_if_fail(var != NULL, NULL);
  g_atomic_int_inc(&var->refcount);
  return var;
}

void
tr_variable_unref(TrVariable *var)
{
  if (!var || !g_atomic_int_dec_and_test(&var->refcount))
    return;
  tr_tensor_unref(var->value);
  g_free(var->name);
  g_free(var);
}

TrTensor *
tr_variable_read(TrVariable *var)
{
  return tr_tensor_ref(var->value);
}

/* TensorShape.is_compatible_with: unknown ranks and dims on either side match anything. */
bool
tr_graph_shapes_compatible(const TrShape *a, const TrShape *b)
{
  if (a->rank == TR_UNKNOWN || b->rank == TR_UNKNOWN)
    return true;
  if (a->rank != b->rank)
    return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] >= 0 && b->dims[i] >= 0 && a->dims[i] != b->dims[i])
      return false;
  return true;
}

/* TensorFlow's texts for a value that does not fit a variable (ValueError in Python). */
static bool
check_assignable(const TrVariable *var, TrDType dtype, const TrShape *shape, const char *what,
                 GError **error)
{
  if (dtype != var->dtype) {
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_VALUE,
                "Tensor conversion requested dtype %s for Tensor with dtype %s: %s",
                tr_dtype_name(var->dtype), tr_graph_dtype_name(dtype), what);
    return false;
  }
  if (tr_graph_shapes_compatible(&var->shape, shape))
    return true;
  g_autofree char *vs = tr_shape_to_string(&var->shape);
  g_autofree char *s = tr_shape_to_string(shape);
  g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_VALUE,
              "Cannot assign value to variable ' %s:0': Shape mismatch.The variable shape %s, "
              "and the assigned value shape %s are incompatible.",
              var->name, vs, s);
  return false;
}

bool
tr_variable_assign(TrVariable *var, TrTensor *value, GError **error)
{
  g_return_val_if_fail(var && value, false);
  if (value->dtype != var->dtype || !tr_shape_equal(&var->shape, &value->shape)) {
    g_autofree char *repr = tr_tensor_repr(value);
    if (!check_assignable(var, value->dtype, &value->shape, repr, error))
      return false;
  }
  TrTensor *old = var->value;
  var->value = tr_tensor_ref(value);
  tr_tensor_unref(old);
  return true;
}

bool
tr_variable_assign_update(TrVariable *var, TrOpId op, TrTensor *delta, GError **error)
{
  g_return_val_if_fail(var && delta && (op == TR_OP_ADD || op == TR_OP_SUB), false);
  TrTensor *value = var->value;
  bool exclusive = value->refcount == 1 && value->buf->refcount == 1 && value->contiguous;
  bool same_shape = tr_shape_equal(&value->shape, &delta->shape) || delta->shape.rank == 0;
  if (exclusive && same_shape && delta->dtype == value->dtype && value->dtype != TR_STRING) {
    TrTensor *in[2] = {value, delta};
    /* Elementwise kernels read element i before writing it, so out may alias in[0]. */
    return tr_op_def(op)->kernel(in, 2, NULL, value, error);
  }
  if (delta->dtype != var->dtype) {
    g_autofree char *repr = tr_tensor_repr(delta);
    return check_assignable(var, delta->dtype, &delta->shape, repr, error);
  }
  g_autoptr(TrTensor) updated = tr_binary(op, value, delta, error);
  return updated && tr_variable_assign(var, updated, error);
}

TrNode *
tr_graph_capture_variable(TrGraph *g, TrVariable *var, const char *name)
{
  g_return_val_if_fail(g && var, NULL);
  TrNode *node = g->captures ? g_hash_table_lookup(g->captures, var) : NULL;
  if (node)
    return node;
  /* A capture belongs to the whole function, wherever the variable is first read: at the top,
   * under the variable's own name ("dense/kernel", not "dense/dense/kernel"). */
  const char *unique = unique_name_in(g, NULL, name ? name : "resource");
  node = tr_graph_node_new(g, TR_GOP_PLACEHOLDER, "Placeholder", unique, NULL, 0, 1);
  node->dtypes[0] = TR_DTYPE_RESOURCE;
  node->shapes[0] = tr_shape_scalar();
  node->variable = tr_variable_ref(var);
  graph_add_capture(g, var, node);
  return node;
}

static bool
check_handle(TrGraph *g, TrOutput handle, GError **error)
{
  if (!tr_graph_check_inputs(g, &handle, 1, error))
    return false;
  g_return_val_if_fail(handle.node->variable != NULL, false);
  return true;
}

TrNode *
tr_graph_add_read_variable(TrGraph *g, TrOutput handle, const char *name, GError **error)
{
  if (!check_handle(g, handle, error))
    return NULL;
  const TrVariable *var = handle.node->variable;
  const char *unique = tr_graph_unique_name(g, name ? name : "ReadVariableOp");
  TrNode *node =
      tr_graph_node_new(g, TR_GOP_READ_VARIABLE, "ReadVariableOp", unique, &handle, 1, 1);
  node->dtypes[0] = var->dtype;
  node->shapes[0] = var->shape;
  tr_graph_note_stateful(g, node);
  return node;
}

TrNode *
tr_graph_add_assign_variable(TrGraph *g, TrGraphOpId op, TrOutput handle, TrOutput value,
                             const char *name, GError **error)
{
  g_return_val_if_fail(op == TR_GOP_ASSIGN_VARIABLE || op == TR_GOP_ASSIGN_ADD_VARIABLE ||
                           op == TR_GOP_ASSIGN_SUB_VARIABLE,
                       NULL);
  if (!check_handle(g, handle, error) || !tr_graph_check_inputs(g, &value, 1, error))
    return NULL;
  const TrVariable *var = handle.node->variable;
  g_autofree char *shape = tr_shape_to_string(tr_output_shape(value));
  g_autofree char *what =
      g_strdup_printf("<tf.Tensor '%s:%d' shape=%s dtype=%s>", value.node->name, value.index, shape,
                      tr_graph_dtype_name(tr_output_dtype(value)));
  if (!check_assignable(var, tr_output_dtype(value), tr_output_shape(value), what, error))
    return NULL;
  const char *type = tr_gop_def(op)->type;
  const char *unique = tr_graph_unique_name(g, name ? name : type);
  TrOutput in[2] = {handle, value};
  TrNode *node = tr_graph_node_new(g, op, type, unique, in, 2, 0);
  tr_graph_note_stateful(g, node);
  return node;
}

/* ---- tf.print ---------------------------------------------------------------------------- */

TrNode *
tr_graph_add_string_format_segments(TrGraph *g, const char **segments, const TrOutput *inputs,
                                    int n_inputs, int summarize, const char *name, GError **error)
{
  if (!tr_graph_check_inputs(g, inputs, n_inputs, error))
    return NULL;
  for (int i = 0; i < n_inputs; i++) {
    if (tr_output_dtype(inputs[i]) != TR_DTYPE_RESOURCE)
      continue;
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE,
                "Input %d of 'StringFormat' Op has type resource; read the variable first", i);
    return NULL;
  }
  const char *unique = tr_graph_unique_name(g, name ? name : "StringFormat");
  TrNode *node =
      tr_graph_node_new(g, TR_GOP_STRING_FORMAT, "StringFormat", unique, inputs, n_inputs, 1);
  TrPrintAttrs *pa = tr_arena_new(&g->arena, TrPrintAttrs, 1);
  GString *text = g_string_new(NULL);
  pa->n_segments = n_inputs + 1;
  pa->segments = tr_arena_new(&g->arena, const char *, n_inputs + 1);
  for (int i = 0; i <= n_inputs; i++) {
    pa->segments[i] = tr_arena_strdup(&g->arena, segments[i]);
    g_string_append(text, segments[i]);
    if (i < n_inputs)
      g_string_append(text, "{}");
  }
  pa->template_text = tr_arena_strdup(&g->arena, text->str);
  g_string_free(text, TRUE);
  pa->summarize = summarize;
  node->print = pa;
  node->dtypes[0] = TR_STRING;
  node->shapes[0] = tr_shape_scalar();
  return node;
}

TrNode *
tr_graph_add_string_format(TrGraph *g, const char *template_text, const TrOutput *inputs,
                           int n_inputs, int summarize, const char *name, GError **error)
{
  g_return_val_if_fail(g && template_text, NULL);
  g_auto(GStrv) parts = g_strsplit(template_text, "{}", -1);
  int n_parts = (int)g_strv_length(parts);
  if (n_parts != n_inputs + 1) {
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_VALUE,
                "num placeholders in template and num inputs must match: %d vs. %d", n_parts - 1,
                n_inputs);
    return NULL;
  }
  return tr_graph_add_string_format_segments(g, (const char **)parts, inputs, n_inputs, summarize,
                                             name, error);
}

TrNode *
tr_graph_add_print(TrGraph *g, TrOutput text, const char *end, bool to_stderr, const char *name,
                   GError **error)
{
  if (!tr_graph_check_inputs(g, &text, 1, error))
    return NULL;
  if (tr_output_dtype(text) != TR_STRING) {
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_TYPE,
                "Input 'input' of 'PrintV2' Op has type %s that does not match expected type of "
                "string.",
                tr_graph_dtype_name(tr_output_dtype(text)));
    return NULL;
  }
  const char *unique = tr_graph_unique_name(g, name ? name : "PrintV2");
  int rank = tr_output_shape(text)->rank;
  if (rank != 0 && rank != TR_UNKNOWN) {
    g_autofree char *input = tr_output_input_string(text);
    g_autofree char *shape = tr_graph_shape_error_string(tr_output_shape(text));
    g_set_error(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_VALUE,
                "Shape must be rank 0 but is rank %d for '{{node %s}} = PrintV2[end=\"%s\", "
                "output_stream=\"%s\"](%s)' with input shapes: %s.",
                rank, unique, end && strcmp(end, "\n") ? end : "\\n",
                to_stderr ? "stderr" : "stdout", input, shape);
    return NULL;
  }
  TrNode *node = tr_graph_node_new(g, TR_GOP_PRINT, "PrintV2", unique, &text, 1, 0);
  TrPrintAttrs *pa = tr_arena_new(&g->arena, TrPrintAttrs, 1);
  pa->end = tr_arena_strdup(&g->arena, end ? end : "\n");
  pa->to_stderr = to_stderr;
  pa->summarize = 3;
  node->print = pa;
  tr_graph_note_stateful(g, node);
  return node;
}

TrNode *
tr_graph_add_tf_print(TrGraph *g, const TrPrintArg *args, int n_args, const char *sep,
                      const char *end, GError **error)
{
  g_return_val_if_fail(g && (n_args == 0 || args), NULL);
  if (!sep)
    sep = " ";
  g_autoptr(GPtrArray) segments = g_ptr_array_new_with_free_func(g_free);
  g_autofree TrOutput *tensors = g_new0(TrOutput, MAX(n_args, 1));
  int n_tensors = 0;
  GString *literal = g_string_new(NULL);
  for (int i = 0; i < n_args; i++) {
    if (i > 0)
      g_string_append(literal, sep);
    if (args[i].text) {
      g_string_append(literal, args[i].text);
      continue;
    }
    g_ptr_array_add(segments, g_string_free(literal, FALSE));
    literal = g_string_new(NULL);
    tensors[n_tensors++] = args[i].tensor;
  }
  g_ptr_array_add(segments, g_string_free(literal, FALSE));
  TrNode *format = tr_graph_add_string_format_segments(g, (const char **)segments->pdata, tensors,
                                                       n_tensors, 3, "StringFormat", error);
  if (!format)
    return NULL;
  return tr_graph_add_print(g, tr_node_output(format, 0), end, false, "PrintV2", error);
}

bool
tr_graph_has_stateful_node(const TrGraph *g)
{
  for (int i = 0; i < tr_graph_n_nodes(g); i++)
    if (tr_graph_node(g, i)->stateful)
      return true;
  return false;
}

/* ---- copies, liveness, compaction ------------------------------------------------------------ */

static TrOutput
map_output(TrGraph *copy, TrOutput out)
{
  return (TrOutput){copy->nodes->pdata[out.node->id], out.index};
}

static void copy_node(TrGraph *copy, const TrNode *src);

TrGraph *
tr_graph_copy(const TrGraph *g)
{
  g_return_val_if_fail(g != NULL, NULL);
  TrGraph *copy = tr_graph_new(g->name);
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, g->names_in_use);
  while (g_hash_table_iter_next(&it, &key, &value))
    g_hash_table_insert(copy->names_in_use, g_strdup(key), value);
  for (guint i = 0; i < g->nodes->len; i++)
    copy_node(copy, g->nodes->pdata[i]);
  for (guint i = 0; i < g->inputs->len; i++)
    g_ptr_array_add(copy->inputs, copy->nodes->pdata[((TrNode *)g->inputs->pdata[i])->id]);
  for (guint i = 0; i < g->outputs->len; i++)
    g_ptr_array_add(copy->outputs, copy->nodes->pdata[((TrNode *)g->outputs->pdata[i])->id]);
  if (g->last_stateful)
    copy->last_stateful = copy->nodes->pdata[g->last_stateful->id];
  return copy;
}

static void
copy_node(TrGraph *copy, const TrNode *src)
{
  TrArena *arena = &copy->arena;
  g_autofree TrOutput *inputs = g_new(TrOutput, MAX(src->n_inputs, 1));
  for (int i = 0; i < src->n_inputs; i++)
    inputs[i] = map_output(copy, src->inputs[i]);
  TrNode *node = tr_graph_node_new(copy, src->op, src->type, tr_arena_strdup(arena, src->name),
                                   inputs, src->n_inputs, src->n_outputs);
  for (int i = 0; i < src->n_control; i++)
    tr_node_add_control_input(node, copy->nodes->pdata[src->control[i]->id]);
  memcpy(node->dtypes, src->dtypes, sizeof(TrDType) * (size_t)src->n_outputs);
  memcpy(node->shapes, src->shapes, sizeof(TrShape) * (size_t)src->n_outputs);
  node->site_file = src->site_file;
  node->site_line = src->site_line;
  if (src->attrs)
    node->attrs = node_attrs(copy, src->attrs);
  if (src->value)
    node->value = tr_tensor_ref(src->value);
  if (src->variable) {
    node->variable = tr_variable_ref(src->variable);
    graph_add_capture(copy, src->variable, node);
  }
  if (src->host)
    node->host = tr_host_call_ref(src->host);
  if (src->print) {
    TrPrintAttrs *pa = tr_arena_new(arena, TrPrintAttrs, 1);
    *pa = *src->print;
    pa->template_text = pa->template_text ? tr_arena_strdup(arena, pa->template_text) : NULL;
    pa->end = pa->end ? tr_arena_strdup(arena, pa->end) : NULL;
    pa->message = pa->message ? tr_arena_strdup(arena, pa->message) : NULL;
    if (pa->n_segments) {
      pa->segments = tr_arena_new(arena, const char *, pa->n_segments);
      for (int i = 0; i < pa->n_segments; i++)
        pa->segments[i] = tr_arena_strdup(arena, src->print->segments[i]);
    }
    node->print = pa;
  }
  for (int i = 0; i < src->n_children; i++) {
    g_autoptr(TrGraph) child = tr_graph_copy(src->children[i]);
    tr_node_add_child(node, child);
  }
  node->stateful = src->stateful;
}

bool *
tr_graph_live_set(const TrGraph *g)
{
  int n = (int)g->nodes->len;
  bool *live = g_new0(bool, MAX(n, 1));
  g_autofree TrNode **stack = g_new(TrNode *, MAX(n, 1));
  int top = 0;
  for (int i = 0; i < n; i++) {
    TrNode *node = g->nodes->pdata[i];
    bool root = node->stateful || (node->op == TR_GOP_PLACEHOLDER && !node->variable);
    if (root) {
      live[i] = true;
      stack[top++] = node;
    }
  }
  for (guint i = 0; i < g->outputs->len; i++) {
    TrNode *node = g->outputs->pdata[i];
    if (!live[node->id]) {
      live[node->id] = true;
      stack[top++] = node;
    }
  }
  while (top > 0) {
    TrNode *node = stack[--top];
    for (int i = 0; i < node->n_inputs + node->n_control; i++) {
      TrNode *dep = i < node->n_inputs ? node->inputs[i].node : node->control[i - node->n_inputs];
      if (!live[dep->id]) {
        live[dep->id] = true;
        stack[top++] = dep;
      }
    }
  }
  return live;
}

int
tr_graph_n_live_nodes(const TrGraph *g)
{
  g_autofree bool *live = tr_graph_live_set(g);
  int count = 0;
  for (guint i = 0; i < g->nodes->len; i++)
    count += live[i];
  return count;
}

static bool
keep_ptr(GPtrArray *list, const bool *keep)
{
  guint j = 0;
  for (guint i = 0; i < list->len; i++) {
    TrNode *node = list->pdata[i];
    if (keep[node->id])
      list->pdata[j++] = node;
  }
  g_ptr_array_set_size(list, j);
  return true;
}

void
tr_graph_compact(TrGraph *g, const bool *keep)
{
  keep_ptr(g->inputs, keep);
  keep_ptr(g->outputs, keep);
  if (g->last_stateful && !keep[g->last_stateful->id])
    g->last_stateful = NULL;
  guint j = 0;
  for (guint i = 0; i < g->nodes->len; i++) {
    TrNode *node = g->nodes->pdata[i];
    if (!keep[i]) {
      g_hash_table_remove(g->by_name, node->name);
      if (node->variable && g->captures)
        g_hash_table_remove(g->captures, node->variable);
      node_release(node);
      continue;
    }
    g->nodes->pdata[j++] = node;
  }
  g_ptr_array_set_size(g->nodes, j);
  for (guint i = 0; i < g->nodes->len; i++)
    ((TrNode *)g->nodes->pdata[i])->id = (int)i;
}
