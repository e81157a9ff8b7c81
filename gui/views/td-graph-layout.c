/* td-graph-layout.c — graph JSON → nodes, edges and clusters → DOT → Graphviz dot → boxes and
 * splines (see td-graph-layout.h).
 *
 * Each graph (the top one and every child graph) is a scope: inputs name nodes of the same
 * graph. Nodes, edges and clusters go into flat arrays in the order they are met; DOT ids are
 * their indices ("n12", "e40", "cluster_3"), so no user text ends up in an id.
 */
#include "td-graph-layout.h"

#include "tr-graph.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <jansson.h>
#include <string.h>

/* Child graphs nested deeper than this are refused (the JSON comes from outside). */
#define MAX_DEPTH 32
/* When an input is drawn from a proxy of its producer; as core/graph's DOT export does. */
#define PROXY_FANOUT 8
#define PROXY_SPAN   48
/* Graphviz's sizes are in inches. */
#define TD_POINTS_PER_INCH 72.0

struct _TdGraphLayout {
  char *name;       /* the graph's name, "" when none */
  GArray *nodes;    /* TdGraphNode */
  GArray *edges;    /* TdGraphEdge */
  GArray *clusters; /* TdGraphCluster */
  char *dot;        /* what was laid out */
  double width;     /* drawing size in points */
  double height;    /* drawing size in points */
  double seconds;   /* time in Graphviz */
};

G_DEFINE_QUARK(td-graph-layout-error-quark, td_graph_layout_error);

/* Titles of a control-flow node's child graphs, by op and child index. */
static const struct {
  const char *op;        /* op type */
  const char *titles[2]; /* first and second child */
} cluster_titles[] = {
    {"While", {"while cond", "while body"}},
    {"StatelessWhile", {"while cond", "while body"}},
    {"If", {"cond true", "cond false"}},
    {"StatelessIf", {"cond true", "cond false"}},
};

/* ---- parsing ---------------------------------------------------------------------------------
 */

static void
node_clear(gpointer data)
{
  TdGraphNode *node = data;
  g_free(node->name);
  g_free(node->op);
  g_free(node->outputs);
  g_free(node->value);
  g_free(node->site);
  g_strfreev(node->inputs);
}

static void
edge_clear(gpointer data)
{
  g_free(((TdGraphEdge *)data)->points);
}

static void
cluster_clear(gpointer data)
{
  TdGraphCluster *cluster = data;
  g_free(cluster->title);
  g_free(cluster->owner);
}

static gboolean
invalid(GError **error, const char *what, const char *where)
{
  g_set_error(error, TD_GRAPH_LAYOUT_ERROR, TD_GRAPH_LAYOUT_ERROR_INVALID, "%s%s%s", what,
              where ? " in node " : "", where ? where : "");
  return FALSE;
}

/* "(2, None)", "(3,)", "()", or "<unknown>" for a null shape. */
static void
append_shape(GString *s, json_t *shape)
{
  if (!json_is_array(shape)) {
    g_string_append(s, "<unknown>");
    return;
  }
  g_string_append_c(s, '(');
  for (size_t i = 0; i < json_array_size(shape); i++) {
    json_t *dim = json_array_get(shape, i);
    if (i)
      g_string_append(s, ", ");
    if (json_is_integer(dim))
      g_string_append_printf(s, "%" G_GINT64_FORMAT, (gint64)json_integer_value(dim));
    else
      g_string_append(s, "None");
  }
  g_string_append(s, json_array_size(shape) == 1 ? ",)" : ")");
}

static char *
outputs_text(json_t *outputs)
{
  GString *s = g_string_new(NULL);
  for (size_t i = 0; json_is_array(outputs) && i < json_array_size(outputs); i++) {
    json_t *out = json_array_get(outputs, i);
    const char *dtype = json_string_value(json_object_get(out, "dtype"));
    if (i)
      g_string_append_c(s, '\n');
    g_string_append_printf(s, "%s ", dtype ? dtype : "?");
    append_shape(s, json_object_get(out, "shape"));
  }
  return g_string_free(s, FALSE);
}

static char **
inputs_strv(json_t *inputs, const char *where, GError **error)
{
  if (inputs && !json_is_array(inputs)) {
    invalid(error, "\"inputs\" is not a list", where);
    return NULL;
  }
  GStrvBuilder *b = g_strv_builder_new();
  for (size_t i = 0; i < json_array_size(inputs); i++) {
    const char *text = json_string_value(json_array_get(inputs, i));
    if (!text) {
      g_strv_builder_unref(b);
      invalid(error, "an input is not a string", where);
      return NULL;
    }
    g_strv_builder_add(b, text);
  }
  char **strv = g_strv_builder_end(b);
  g_strv_builder_unref(b);
  return strv;
}

static int
add_node(TdGraphLayout *layout, json_t *obj, int cluster, GError **error)
{
  const char *name = json_string_value(json_object_get(obj, "name"));
  const char *op = json_string_value(json_object_get(obj, "op"));
  if (!json_is_object(obj) || !name || !op) {
    invalid(error, "a node without a name or an op", NULL);
    return -1;
  }
  char **inputs = inputs_strv(json_object_get(obj, "inputs"), name, error);
  if (!inputs)
    return -1;
  json_t *outputs = json_object_get(obj, "outputs");
  if (outputs && !json_is_array(outputs)) {
    g_strfreev(inputs);
    invalid(error, "\"outputs\" is not a list", name);
    return -1;
  }
  const char *file = json_string_value(json_object_get(obj, "file"));
  json_int_t line = json_integer_value(json_object_get(obj, "line"));
  TdGraphNode node = {
      .site =
          file && line > 0 ? g_strdup_printf("%s, line %" JSON_INTEGER_FORMAT, file, line) : NULL,
      .name = g_strdup(name),
      .op = g_strdup(op),
      .outputs = outputs_text(outputs),
      .value = g_strdup(json_string_value(json_object_get(obj, "value"))),
      .inputs = inputs,
      .stateful = json_is_true(json_object_get(obj, "stateful")),
      .cluster = cluster,
      .proxy_of = -1,
  };
  g_array_append_val(layout->nodes, node);
  return (int)layout->nodes->len - 1;
}

/* Split "name:1" / "^name" / "name" into the producer's name (transfer full) and its
 * output. */
static char *
split_input(const char *text, int *output, bool *control)
{
  *control = text[0] == '^';
  if (*control)
    text++;
  *output = 0;
  const char *colon = strrchr(text, ':');
  if (!colon || !colon[1] || strspn(colon + 1, "0123456789") != strlen(colon + 1))
    return g_strdup(text);
  *output = (int)g_ascii_strtoll(colon + 1, NULL, 10);
  return g_strndup(text, colon - text);
}

/* One scope's edge before proxies are decided: indices into the scope's node list. */
typedef struct {
  int producer; /* position in the scope */
  int consumer; /* position in the scope */
  int output;   /* producer's output */
  bool control; /* control dependency */
} PendingEdge;

static void
add_proxy_edge(TdGraphLayout *layout, const int *scope, const PendingEdge *p, const int *fanout)
{
  int from = scope[p->producer];
  int to = scope[p->consumer];
  if (fanout[p->producer] > PROXY_FANOUT || p->consumer - p->producer > PROXY_SPAN) {
    const TdGraphNode *src = &g_array_index(layout->nodes, TdGraphNode, from);
    TdGraphNode proxy = {
        .name = g_strdup(src->name),
        .op = g_strdup(src->op),
        .outputs = g_strdup(src->outputs),
        .value = g_strdup(src->value),
        .site = g_strdup(src->site),
        .inputs = g_new0(char *, 1),
        .stateful = src->stateful,
        .cluster = g_array_index(layout->nodes, TdGraphNode, to).cluster,
        .proxy_of = from,
    };
    g_array_append_val(layout->nodes, proxy);
    from = (int)layout->nodes->len - 1;
  }
  TdGraphEdge edge = {.from = from, .to = to, .output = p->output, .control = p->control};
  g_array_append_val(layout->edges, edge);
}

/* The edges among one scope's nodes (inputs naming unknown nodes are skipped). */
static void
add_scope_edges(TdGraphLayout *layout, GArray *scope)
{
  const int *ids = (const int *)scope->data;
  g_autoptr(GHashTable) by_name = g_hash_table_new(g_str_hash, g_str_equal);
  for (guint i = 0; i < scope->len; i++) {
    const TdGraphNode *node = &g_array_index(layout->nodes, TdGraphNode, ids[i]);
    g_hash_table_insert(by_name, node->name, GINT_TO_POINTER(i + 1));
  }
  g_autoptr(GArray) pending = g_array_new(FALSE, FALSE, sizeof(PendingEdge));
  g_autofree int *fanout = g_new0(int, MAX(scope->len, 1));
  for (guint i = 0; i < scope->len; i++) {
    char **inputs = g_array_index(layout->nodes, TdGraphNode, ids[i]).inputs;
    for (int k = 0; inputs[k]; k++) {
      PendingEdge p = {.consumer = (int)i};
      g_autofree char *name = split_input(inputs[k], &p.output, &p.control);
      p.producer = GPOINTER_TO_INT(g_hash_table_lookup(by_name, name)) - 1;
      if (p.producer < 0)
        continue;
      fanout[p.producer]++;
      g_array_append_val(pending, p);
    }
  }
  for (guint i = 0; i < pending->len; i++)
    add_proxy_edge(layout, ids, &g_array_index(pending, PendingEdge, i), fanout);
}

static gboolean parse_graph(TdGraphLayout *layout, json_t *graph, int cluster, int depth,
                            GError **error);

static const char *
cluster_title(const char *op, size_t child)
{
  for (size_t i = 0; i < G_N_ELEMENTS(cluster_titles); i++)
    if (child < 2 && strcmp(op, cluster_titles[i].op) == 0)
      return cluster_titles[i].titles[child];
  return NULL;
}

static gboolean
parse_children(TdGraphLayout *layout, int owner, json_t *children, int parent, int depth,
               GError **error)
{
  const TdGraphNode *node = &g_array_index(layout->nodes, TdGraphNode, owner);
  if (!json_is_array(children))
    return invalid(error, "\"children\" is not a list", node->name);
  for (size_t c = 0; c < json_array_size(children); c++) {
    json_t *child = json_array_get(children, c);
    node = &g_array_index(layout->nodes, TdGraphNode, owner);
    const char *title = cluster_title(node->op, c);
    const char *child_name = json_string_value(json_object_get(child, "name"));
    TdGraphCluster cluster = {
        .title = title        ? g_strdup(title)
                 : child_name ? g_strdup(child_name)
                              : g_strdup_printf("body %zu", c),
        .owner = g_strdup(node->name),
        .owner_node = owner,
        .parent = parent,
        .depth = depth,
    };
    g_array_append_val(layout->clusters, cluster);
    if (!parse_graph(layout, child, (int)layout->clusters->len - 1, depth + 1, error))
      return FALSE;
  }
  return TRUE;
}

static gboolean
parse_graph(TdGraphLayout *layout, json_t *graph, int cluster, int depth, GError **error)
{
  if (depth > MAX_DEPTH)
    return invalid(error, "graphs nested too deeply", NULL);
  json_t *nodes = json_object_get(graph, "nodes");
  if (!json_is_object(graph) || !json_is_array(nodes))
    return invalid(error, "a graph without a \"nodes\" list", NULL);
  g_autoptr(GArray) scope = g_array_new(FALSE, FALSE, sizeof(int));
  for (size_t i = 0; i < json_array_size(nodes); i++) {
    json_t *obj = json_array_get(nodes, i);
    int id = add_node(layout, obj, cluster, error);
    if (id < 0)
      return FALSE;
    g_array_append_val(scope, id);
    json_t *children = json_object_get(obj, "children");
    if (children && !parse_children(layout, id, children, cluster, depth, error))
      return FALSE;
  }
  add_scope_edges(layout, scope);
  return TRUE;
}

/* ---- DOT -------------------------------------------------------------------------------------
 */

static void
append_escaped(GString *s, const char *text)
{
  for (const char *p = text; *p; p++) {
    if (*p == '"' || *p == '\\')
      g_string_append_c(s, '\\');
    if (*p == '\n')
      g_string_append(s, "\\n");
    else
      g_string_append_c(s, *p);
  }
}

/* The label dot sizes the box by: what the view draws in it (op, name, outputs). */
static void
append_dot_node(GString *s, const TdGraphNode *node, int id)
{
  g_string_append_printf(s, "n%d [label=\"", id);
  if (node->proxy_of >= 0) {
    append_escaped(s, node->name);
    g_string_append(s, "\", fontsize=8, height=0.2, width=0.3, style=dashed];\n");
    return;
  }
  append_escaped(s, node->op);
  g_string_append(s, "\\n");
  append_escaped(s, node->name);
  if (node->outputs[0]) {
    g_string_append(s, "\\n");
    append_escaped(s, node->outputs);
  }
  g_string_append(s, "\"];\n");
}

/* Nodes and clusters directly inside `cluster` (-1: top level), recursively. */
static void
append_dot_scope(GString *s, const TdGraphLayout *layout, int cluster, GArray **members)
{
  GArray *ids = members[cluster + 1];
  for (guint i = 0; i < ids->len; i++) {
    int id = g_array_index(ids, int, i);
    append_dot_node(s, &g_array_index(layout->nodes, TdGraphNode, id), id);
  }
  for (guint c = 0; c < layout->clusters->len; c++) {
    const TdGraphCluster *sub = &g_array_index(layout->clusters, TdGraphCluster, c);
    if (sub->parent != cluster)
      continue;
    g_string_append_printf(s, "subgraph cluster_%u {\nlabel=\"", c);
    append_escaped(s, sub->title); /* as the view labels it, so the box is wide enough */
    g_string_append(s, " · ");
    append_escaped(s, sub->owner);
    g_string_append(s, "\";\n");
    append_dot_scope(s, layout, (int)c, members);
    g_string_append(s, "}\n");
  }
}

static char *
build_dot(const TdGraphLayout *layout)
{
  GString *s = g_string_new(
      "digraph G {\n"
      /* nslimit/mclimit bound dot's network-simplex and crossing passes (DESIGN "Programs") */
      "graph [rankdir=TB, nslimit=2, nslimit1=2, mclimit=1, ranksep=0.3, nodesep=0.25, "
      "fontname=\"Helvetica\", fontsize=10, labeljust=l];\n"
      "node [shape=box, fontname=\"Helvetica\", fontsize=10, margin=\"0.12,0.05\"];\n"
      "edge [arrowsize=0.6];\n");
  guint n_groups = layout->clusters->len + 1;
  GArray **members = g_new0(GArray *, n_groups);
  for (guint i = 0; i < n_groups; i++)
    members[i] = g_array_new(FALSE, FALSE, sizeof(int));
  for (guint i = 0; i < layout->nodes->len; i++) {
    int id = (int)i;
    g_array_append_val(members[g_array_index(layout->nodes, TdGraphNode, i).cluster + 1], id);
  }
  append_dot_scope(s, layout, -1, members);
  for (guint i = 0; i < n_groups; i++)
    g_array_unref(members[i]);
  g_free(members);
  for (guint i = 0; i < layout->edges->len; i++) {
    const TdGraphEdge *e = &g_array_index(layout->edges, TdGraphEdge, i);
    g_string_append_printf(s, "n%d -> n%d [key=\"e%u\"%s];\n", e->from, e->to, i,
                           e->control ? ", style=dashed" : "");
  }
  g_string_append(s, "}\n");
  return g_string_free(s, FALSE);
}

/* ---- reading the layout back ------------------------------------------------------------------
 */

/* Graphviz points (origin bottom left) → drawing points (origin top left). */
static TdGraphPoint
flip(const TdGraphLayout *layout, boxf bb, pointf p)
{
  return (TdGraphPoint){p.x - bb.LL.x, layout->height - (p.y - bb.LL.y)};
}

static TdGraphBox
flip_box(const TdGraphLayout *layout, boxf bb, boxf box)
{
  return (TdGraphBox){box.LL.x - bb.LL.x, layout->height - (box.UR.y - bb.LL.y),
                      box.UR.x - box.LL.x, box.UR.y - box.LL.y};
}

static void
read_nodes(TdGraphLayout *layout, Agraph_t *g, boxf bb)
{
  for (guint i = 0; i < layout->nodes->len; i++) {
    char id[32];
    g_snprintf(id, sizeof id, "n%u", i);
    Agnode_t *n = agnode(g, id, 0);
    if (!n)
      continue;
    double w = ND_width(n) * TD_POINTS_PER_INCH, h = ND_height(n) * TD_POINTS_PER_INCH;
    TdGraphPoint c = flip(layout, bb, ND_coord(n));
    g_array_index(layout->nodes, TdGraphNode, i).box = (TdGraphBox){c.x - w / 2, c.y - h / 2, w, h};
  }
}

static void
read_edge(TdGraphLayout *layout, Agedge_t *e, boxf bb)
{
  const char *key = agnameof(e);
  guint64 i;
  if (!key || key[0] != 'e' || !g_ascii_string_to_unsigned(key + 1, 10, 0, G_MAXUINT, &i, NULL) ||
      i >= layout->edges->len || !ED_spl(e) || ED_spl(e)->size < 1)
    return;
  TdGraphEdge *edge = &g_array_index(layout->edges, TdGraphEdge, i);
  const bezier *bz = &ED_spl(e)->list[0];
  edge->n_points = bz->size;
  edge->points = g_new(TdGraphPoint, MAX(bz->size, 1));
  for (int k = 0; k < bz->size; k++)
    edge->points[k] = flip(layout, bb, bz->list[k]);
  edge->has_arrow = bz->eflag != 0;
  if (edge->has_arrow)
    edge->arrow_tip = flip(layout, bb, bz->ep);
}

static void
read_clusters(TdGraphLayout *layout, Agraph_t *g, boxf bb)
{
  g_autofree Agraph_t **graphs = g_new0(Agraph_t *, MAX(layout->clusters->len, 1));
  for (guint c = 0; c < layout->clusters->len; c++) {
    TdGraphCluster *cluster = &g_array_index(layout->clusters, TdGraphCluster, c);
    char id[32];
    g_snprintf(id, sizeof id, "cluster_%u", c);
    Agraph_t *parent = cluster->parent < 0 ? g : graphs[cluster->parent];
    graphs[c] = parent ? agsubg(parent, id, 0) : NULL;
    if (graphs[c])
      cluster->box = flip_box(layout, bb, GD_bb(graphs[c]));
  }
}

static void
read_layout(TdGraphLayout *layout, Agraph_t *g)
{
  boxf bb = GD_bb(g);
  layout->width = bb.UR.x - bb.LL.x;
  layout->height = bb.UR.y - bb.LL.y;
  read_nodes(layout, g, bb);
  for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n))
    for (Agedge_t *e = agfstout(g, n); e; e = agnxtout(g, e))
      read_edge(layout, e, bb);
  read_clusters(layout, g, bb);
}

static gboolean
run_dot(TdGraphLayout *layout, GError **error)
{
  gint64 start = g_get_monotonic_time();
  GVC_t *gvc = tr_graph_gvc_lock();
  Agraph_t *g = agmemread(layout->dot);
  gboolean ok = g && gvLayout(gvc, g, "dot") == 0;
  if (ok) {
    read_layout(layout, g);
    gvFreeLayout(gvc, g);
  }
  if (g)
    agclose(g);
  tr_graph_gvc_unlock();
  layout->seconds = (g_get_monotonic_time() - start) / 1e6;
  if (!ok)
    g_set_error_literal(error, TD_GRAPH_LAYOUT_ERROR, TD_GRAPH_LAYOUT_ERROR_FAILED,
                        "Graphviz could not lay out the graph");
  return ok;
}

/* ---- public ------------------------------------------------------------------------------------
 */

TdGraphLayout *
td_graph_layout_new_from_json(const char *json, GError **error)
{
  g_return_val_if_fail(json != NULL, NULL);
  json_error_t jerr;
  json_t *root = json_loads(json, JSON_REJECT_DUPLICATES, &jerr);
  if (!root) {
    g_set_error(error, TD_GRAPH_LAYOUT_ERROR, TD_GRAPH_LAYOUT_ERROR_INVALID,
                "graph JSON: %s (line %d)", jerr.text, jerr.line);
    return NULL;
  }
  g_autoptr(TdGraphLayout) layout = g_new0(TdGraphLayout, 1);
  layout->nodes = g_array_new(FALSE, TRUE, sizeof(TdGraphNode));
  g_array_set_clear_func(layout->nodes, node_clear);
  layout->edges = g_array_new(FALSE, TRUE, sizeof(TdGraphEdge));
  g_array_set_clear_func(layout->edges, edge_clear);
  layout->clusters = g_array_new(FALSE, TRUE, sizeof(TdGraphCluster));
  g_array_set_clear_func(layout->clusters, cluster_clear);
  const char *name = json_string_value(json_object_get(root, "name"));
  layout->name = g_strdup(name ? name : "");
  gboolean ok = parse_graph(layout, root, -1, 0, error);
  json_decref(root);
  if (!ok)
    return NULL;
  layout->dot = build_dot(layout);
  if (!run_dot(layout, error))
    return NULL;
  return g_steal_pointer(&layout);
}

void
td_graph_layout_free(TdGraphLayout *layout)
{
  if (!layout)
    return;
  g_free(layout->name);
  g_array_unref(layout->nodes);
  g_array_unref(layout->edges);
  g_array_unref(layout->clusters);
  g_free(layout->dot);
  g_free(layout);
}

const char *
td_graph_layout_get_name(const TdGraphLayout *layout)
{
  g_return_val_if_fail(layout != NULL, NULL);
  return layout->name;
}

void
td_graph_layout_get_size(const TdGraphLayout *layout, double *width, double *height)
{
  g_return_if_fail(layout != NULL);
  if (width)
    *width = layout->width;
  if (height)
    *height = layout->height;
}

const char *
td_graph_layout_get_dot(const TdGraphLayout *layout)
{
  g_return_val_if_fail(layout != NULL, NULL);
  return layout->dot;
}

double
td_graph_layout_get_seconds(const TdGraphLayout *layout)
{
  g_return_val_if_fail(layout != NULL, 0);
  return layout->seconds;
}

guint
td_graph_layout_n_nodes(const TdGraphLayout *layout)
{
  g_return_val_if_fail(layout != NULL, 0);
  return layout->nodes->len;
}

const TdGraphNode *
td_graph_layout_get_node(const TdGraphLayout *layout, guint i)
{
  g_return_val_if_fail(layout != NULL && i < layout->nodes->len, NULL);
  return &g_array_index(layout->nodes, TdGraphNode, i);
}

guint
td_graph_layout_n_edges(const TdGraphLayout *layout)
{
  g_return_val_if_fail(layout != NULL, 0);
  return layout->edges->len;
}

const TdGraphEdge *
td_graph_layout_get_edge(const TdGraphLayout *layout, guint i)
{
  g_return_val_if_fail(layout != NULL && i < layout->edges->len, NULL);
  return &g_array_index(layout->edges, TdGraphEdge, i);
}

guint
td_graph_layout_n_clusters(const TdGraphLayout *layout)
{
  g_return_val_if_fail(layout != NULL, 0);
  return layout->clusters->len;
}

const TdGraphCluster *
td_graph_layout_get_cluster(const TdGraphLayout *layout, guint i)
{
  g_return_val_if_fail(layout != NULL && i < layout->clusters->len, NULL);
  return &g_array_index(layout->clusters, TdGraphCluster, i);
}

int
td_graph_layout_find_node(const TdGraphLayout *layout, const char *name)
{
  g_return_val_if_fail(layout != NULL && name != NULL, -1);
  int best = -1, best_depth = G_MAXINT;
  for (guint i = 0; i < layout->nodes->len; i++) {
    const TdGraphNode *node = &g_array_index(layout->nodes, TdGraphNode, i);
    if (node->proxy_of >= 0 || strcmp(node->name, name) != 0)
      continue;
    int depth = node->cluster < 0
                    ? -1
                    : g_array_index(layout->clusters, TdGraphCluster, node->cluster).depth;
    if (depth < best_depth) {
      best = (int)i;
      best_depth = depth;
    }
  }
  return best;
}

static bool
box_contains(const TdGraphBox *box, double x, double y)
{
  return x >= box->x && x <= box->x + box->width && y >= box->y && y <= box->y + box->height;
}

int
td_graph_layout_node_at(const TdGraphLayout *layout, double x, double y)
{
  g_return_val_if_fail(layout != NULL, -1);
  for (guint i = layout->nodes->len; i-- > 0;)
    if (box_contains(&g_array_index(layout->nodes, TdGraphNode, i).box, x, y))
      return (int)i;
  return -1;
}

static bool
contains_folded(const char *text, const char *folded)
{
  g_autofree char *haystack = g_utf8_casefold(text, -1);
  return strstr(haystack, folded) != NULL;
}

bool
td_graph_layout_node_matches(const TdGraphLayout *layout, guint i, const char *folded)
{
  g_return_val_if_fail(layout != NULL && i < layout->nodes->len && folded != NULL, false);
  const TdGraphNode *node = &g_array_index(layout->nodes, TdGraphNode, i);
  if (node->proxy_of >= 0 || !folded[0])
    return false;
  return contains_folded(node->name, folded) || contains_folded(node->op, folded);
}
