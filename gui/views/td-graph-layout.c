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
#include <math.h>
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
  char *dot;        /* what was laid out (NULL for the quick layout) */
  bool groups;      /* some name scope is one box */
  double width;     /* drawing size in points */
  double height;    /* drawing size in points */
  double seconds;   /* time in Graphviz, or in the quick layout */
  bool quick;       /* laid out by quick_layout, not by dot */
};

/* Above this many boxes a graph is laid out by quick_layout: dot's positioning grows about
 * cubically with the graph (a 6,000-node training step took a minute, 2,900 nodes 3.4 s). */
#define QUICK_LAYOUT_BOXES 2000

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
  g_free(node->members);
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
      .group = (guint)MAX(json_integer_value(json_object_get(obj, "group")), 0),
      .members = g_strdup(json_string_value(json_object_get(obj, "members"))),
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
  if (node->group) { /* as the view draws it: the scope, then its size */
    append_escaped(s, node->name);
    g_string_append_printf(s, "\\n%u nodes\", style=rounded];\n", node->group);
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

/* ---- the quick layout: layers without dot ----------------------------------------------------
 *
 * For graphs too big for dot: each scope (the top level, each child graph) is laid out alone
 * as layers, a node one layer below the deepest of its inputs; a few barycenter sweeps order
 * each layer; layers are packed left to right and centred. Edges are single curves. The top
 * level comes first; child graphs follow in a column to its right, each in its box. Node sizes
 * are dot's for the same labels: Helvetica's advance widths (Adobe's metrics, 1/1000 em). */

static const unsigned short helvetica_widths[95] = {
    278,  278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, /* ' '-'/' */
    556,  556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, /* '0'-'?' */
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, /* '@'-'O' */
    667,  778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, /* 'P'-'_' */
    333,  556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, /* '`'-'o' */
    556,  556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,      /* 'p'-'~' */
};

/* The width in points of the widest line of `text` in Helvetica at `size` points. */
static double
text_width(const char *text, double size)
{
  double widest = 0, line = 0;
  for (const char *p = text; *p; p = g_utf8_next_char(p)) {
    if (*p == '\n') {
      widest = MAX(widest, line);
      line = 0;
      continue;
    }
    unsigned char c = (unsigned char)*p;
    line += (c >= 32 && c < 127 ? helvetica_widths[c - 32] : 556) * size / 1000;
  }
  return MAX(widest, line);
}

/* A node's box size as dot gives it for append_dot_node's label. */
static void
quick_node_size(const TdGraphNode *node, double *w, double *h)
{
  if (node->proxy_of >= 0) {
    *w = MAX(0.3 * TD_POINTS_PER_INCH, text_width(node->name, 8) + 12);
    *h = 0.2 * TD_POINTS_PER_INCH;
    return;
  }
  double tw = MAX(text_width(node->op, 10), text_width(node->name, 10));
  int lines = 2;
  if (node->group) { /* the scope and its size: "1,760 nodes" is never the wider */
    tw = MAX(text_width(node->name, 10), text_width("000,000 nodes", 10));
    node = &(TdGraphNode){.outputs = ""};
  }
  if (node->outputs[0]) {
    tw = MAX(tw, text_width(node->outputs, 10));
    for (const char *p = node->outputs; *p; p++)
      lines += *p == '\n';
    lines++;
  }
  *w = MAX(0.75 * TD_POINTS_PER_INCH, tw + 2 * 0.12 * TD_POINTS_PER_INCH + 1);
  *h = MAX(0.5 * TD_POINTS_PER_INCH, lines * 12.0 + 2 * 0.05 * TD_POINTS_PER_INCH + 0.8);
}

/* Orders `layer` (node ids) by the mean position of each node's neighbours in `pos` (a node's
 * place in its layer, 0 to 1); a node without neighbours keeps its place. */
typedef struct {
  double key; /* mean place of the neighbours */
  guint at;   /* place now: ties keep their order */
  int id;
} Placed;

static int
placed_compare(const void *a, const void *b)
{
  const Placed *x = a, *y = b;
  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return (x->at > y->at) - (x->at < y->at);
}

static void
quick_order_layer(GArray *layer, double *pos, GPtrArray *neighbours)
{
  guint n = layer->len;
  g_autofree Placed *placed = g_new(Placed, MAX(n, 1));
  for (guint i = 0; i < n; i++) {
    int v = g_array_index(layer, int, i);
    GArray *nb = neighbours->pdata[v];
    double sum = 0;
    for (guint k = 0; nb && k < nb->len; k++)
      sum += pos[g_array_index(nb, int, k)];
    placed[i] = (Placed){nb && nb->len ? sum / nb->len : pos[v], i, v};
  }
  qsort(placed, n, sizeof *placed, placed_compare);
  for (guint i = 0; i < n; i++) {
    g_array_index(layer, int, i) = placed[i].id;
    pos[placed[i].id] = n > 1 ? (double)i / (n - 1) : 0.5;
  }
}

static void
free_neighbours(gpointer list)
{
  if (list)
    g_array_unref(list);
}

static void
add_neighbour(GPtrArray *lists, int v, int u)
{
  if (!lists->pdata[v])
    lists->pdata[v] = g_array_new(FALSE, FALSE, sizeof(int));
  g_array_append_val(lists->pdata[v], u);
}

/* Lays out the nodes of scope `cluster` (-1: top level) with their top left at (x0, y0); returns
 * the block's size in *w and *h. */
static void
quick_scope(TdGraphLayout *layout, int cluster, double x0, double y0, double *w, double *h)
{
  guint n = layout->nodes->len;
  g_autofree int *rank = g_new0(int, n);
  g_autofree int *indegree = g_new0(int, n);
  g_autofree double *pos = g_new0(double, n);
  g_autoptr(GPtrArray) succ = g_ptr_array_new_with_free_func(free_neighbours);
  g_autoptr(GPtrArray) preds = g_ptr_array_new_with_free_func(free_neighbours);
  g_ptr_array_set_size(succ, (int)n);
  g_ptr_array_set_size(preds, (int)n);
#define IN_SCOPE(v) (g_array_index(layout->nodes, TdGraphNode, (v)).cluster == cluster)
  for (guint i = 0; i < layout->edges->len; i++) {
    const TdGraphEdge *e = &g_array_index(layout->edges, TdGraphEdge, i);
    if (e->from == e->to || !IN_SCOPE(e->from) || !IN_SCOPE(e->to))
      continue;
    add_neighbour(succ, e->from, e->to);
    add_neighbour(preds, e->to, e->from);
    indegree[e->to]++;
  }
  /* Layers by longest path (Kahn's order); nodes on a cycle, if any, after their known inputs */
  g_autoptr(GArray) queue = g_array_new(FALSE, FALSE, sizeof(int));
  for (guint v = 0; v < n; v++)
    if (IN_SCOPE(v) && indegree[v] == 0)
      g_array_append_val(queue, v);
  g_autofree bool *done = g_new0(bool, n);
  for (guint head = 0;; head++) {
    if (head == queue->len) { /* a cycle: take its first node */
      guint v = 0;
      while (v < n && (!IN_SCOPE(v) || done[v]))
        v++;
      if (v == n)
        break;
      indegree[v] = 0;
      g_array_append_val(queue, v);
    }
    int v = g_array_index(queue, int, head);
    if (done[v])
      continue;
    done[v] = true;
    GArray *out = succ->pdata[v];
    for (guint k = 0; out && k < out->len; k++) {
      int u = g_array_index(out, int, k);
      rank[u] = MAX(rank[u], rank[v] + 1);
      if (--indegree[u] == 0)
        g_array_append_val(queue, u);
    }
  }
  /* Then as late as its first consumer allows: a variable's read sits above its use, not in a
   * first layer holding every source of the graph. */
  for (guint i = queue->len; i-- > 0;) {
    int v = g_array_index(queue, int, i);
    GArray *out = succ->pdata[v];
    int first = G_MAXINT;
    for (guint k = 0; out && k < out->len; k++)
      first = MIN(first, rank[g_array_index(out, int, k)]);
    if (out && out->len && first - 1 > rank[v])
      rank[v] = first - 1;
  }
  int n_ranks = 0;
  for (guint v = 0; v < n; v++)
    if (IN_SCOPE(v))
      n_ranks = MAX(n_ranks, rank[v] + 1);
  g_autoptr(GPtrArray) layers = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
  for (int r = 0; r < n_ranks; r++)
    g_ptr_array_add(layers, g_array_new(FALSE, FALSE, sizeof(int)));
  for (guint v = 0; v < n; v++)
    if (IN_SCOPE(v))
      g_array_append_val(layers->pdata[rank[v]], v);
#undef IN_SCOPE
  for (int r = 0; r < n_ranks; r++) {
    GArray *layer = layers->pdata[r];
    for (guint i = 0; i < layer->len; i++)
      pos[g_array_index(layer, int, i)] = layer->len > 1 ? (double)i / (layer->len - 1) : 0.5;
  }
  for (int sweep = 0; sweep < 4; sweep++) { /* down by inputs, then up by consumers */
    for (int r = 1; r < n_ranks; r++)
      quick_order_layer(layers->pdata[r], pos, preds);
    for (int r = n_ranks - 2; r >= 0; r--)
      quick_order_layer(layers->pdata[r], pos, succ);
  }
  /* Pack each layer, then centre the layers on the widest */
  const double nodesep = 0.25 * TD_POINTS_PER_INCH, ranksep = 0.3 * TD_POINTS_PER_INCH;
  g_autofree double *row_w = g_new0(double, MAX(n_ranks, 1));
  double widest = 0, y = y0;
  for (int r = 0; r < n_ranks; r++) {
    GArray *layer = layers->pdata[r];
    double x = 0, tallest = 0;
    for (guint i = 0; i < layer->len; i++) {
      TdGraphNode *node = &g_array_index(layout->nodes, TdGraphNode, g_array_index(layer, int, i));
      double bw, bh;
      quick_node_size(node, &bw, &bh);
      node->box = (TdGraphBox){x, y, bw, bh};
      x += bw + nodesep;
      tallest = MAX(tallest, bh);
    }
    row_w[r] = layer->len ? x - nodesep : 0;
    widest = MAX(widest, row_w[r]);
    for (guint i = 0; i < layer->len; i++) { /* centred vertically in the row, as dot does */
      TdGraphNode *node = &g_array_index(layout->nodes, TdGraphNode, g_array_index(layer, int, i));
      node->box.y += (tallest - node->box.height) / 2;
    }
    y += tallest + ranksep;
  }
  for (int r = 0; r < n_ranks; r++) {
    GArray *layer = layers->pdata[r];
    double shift = x0 + (widest - row_w[r]) / 2;
    for (guint i = 0; i < layer->len; i++)
      g_array_index(layout->nodes, TdGraphNode, g_array_index(layer, int, i)).box.x += shift;
  }
  *w = widest;
  *h = n_ranks ? y - ranksep - y0 : 0;
}

/* An edge as one curve from the bottom of its producer to the top of its consumer. */
static void
quick_edge(TdGraphLayout *layout, TdGraphEdge *e)
{
  const TdGraphBox *a = &g_array_index(layout->nodes, TdGraphNode, e->from).box;
  const TdGraphBox *b = &g_array_index(layout->nodes, TdGraphNode, e->to).box;
  TdGraphPoint start = {a->x + a->width / 2, a->y + a->height};
  TdGraphPoint tip = {b->x + b->width / 2, b->y};
  TdGraphPoint end = {tip.x, tip.y - 6}; /* the arrowhead takes the last points */
  double bend = MAX(fabs(end.y - start.y) / 2, 12);
  g_free(e->points);
  e->n_points = 4;
  e->points = g_new(TdGraphPoint, 4);
  e->points[0] = start;
  e->points[1] = (TdGraphPoint){start.x, start.y + bend};
  e->points[2] = (TdGraphPoint){end.x, end.y - bend};
  e->points[3] = end;
  e->has_arrow = true;
  e->arrow_tip = tip;
}

static void
quick_layout(TdGraphLayout *layout)
{
  gint64 start = g_get_monotonic_time();
  const double gap = 0.5 * TD_POINTS_PER_INCH, title = 16, pad = 8;
  double w, h;
  quick_scope(layout, -1, 0, 0, &w, &h);
  double width = w, height = h, column_x = w + gap, column_y = 0;
  for (guint c = 0; c < layout->clusters->len; c++) {
    TdGraphCluster *cluster = &g_array_index(layout->clusters, TdGraphCluster, c);
    quick_scope(layout, (int)c, column_x + pad, column_y + title + pad, &w, &h);
    double bw = MAX(w, text_width(cluster->title, 10) + text_width(cluster->owner, 10) + 20);
    cluster->box = (TdGraphBox){column_x, column_y, bw + 2 * pad, h + title + 2 * pad};
    width = MAX(width, column_x + cluster->box.width);
    column_y += cluster->box.height + gap;
    height = MAX(height, column_y - gap);
  }
  for (guint i = 0; i < layout->edges->len; i++)
    quick_edge(layout, &g_array_index(layout->edges, TdGraphEdge, i));
  layout->width = width;
  layout->height = height;
  layout->quick = true;
  layout->seconds = (g_get_monotonic_time() - start) / 1e6;
}

/* ---- name scopes ------------------------------------------------------------------------------
 *
 * Before parsing, a big graph's JSON is rewritten: the nodes of a collapsed scope become one
 * node named "scope/" (at the place of the first), taking their inputs from outside the scope;
 * inputs naming a collapsed node name its scope's node instead, once. */

/* Graphs of more nodes than this show their scopes collapsed. */
#define COLLAPSE_ABOVE 300

static size_t
count_json_nodes(json_t *graph, int depth)
{
  json_t *nodes = json_object_get(graph, "nodes");
  if (depth > MAX_DEPTH || !json_is_array(nodes))
    return 0;
  size_t n = json_array_size(nodes);
  for (size_t i = 0; i < json_array_size(nodes); i++) {
    json_t *children = json_object_get(json_array_get(nodes, i), "children");
    for (size_t c = 0; json_is_array(children) && c < json_array_size(children); c++)
      n += count_json_nodes(json_array_get(children, c), depth + 1);
  }
  return n;
}

/* The scope node `name` is shown in: its shortest prefix ("a", then "a/b") that is not
 * expanded; NULL when every prefix is. Transfer full. */
static char *
collapsed_scope(const char *name, GHashTable *expanded)
{
  for (const char *slash = strchr(name, '/'); slash; slash = strchr(slash + 1, '/')) {
    char *prefix = g_strndup(name, (gsize)(slash - name));
    if (prefix[0] && !g_hash_table_contains(expanded, prefix))
      return prefix;
    g_free(prefix);
  }
  return NULL;
}

/* `input` ("name", "name:1", "^name") with its producer renamed per `renamed` (a collapsed
 * node's name -> its scope node's name). Transfer full. */
static char *
rename_input(const char *input, GHashTable *renamed, const char **producer_out)
{
  int output;
  bool control;
  g_autofree char *producer = split_input(input, &output, &control);
  const char *group = g_hash_table_lookup(renamed, producer);
  *producer_out = group;
  if (!group)
    return g_strdup(input);
  return g_strdup_printf("%s%s", control ? "^" : "", group);
}

static bool collapse_graph(json_t *graph, GHashTable *expanded, int depth);

static void
free_gstring(gpointer s)
{
  g_string_free(s, TRUE);
}

/* Adds `input` to `list` (a JSON array) unless `seen` has it. */
static void
add_input_once(json_t *list, GHashTable *seen, char *input)
{
  if (g_hash_table_contains(seen, input)) {
    g_free(input);
    return;
  }
  g_hash_table_add(seen, input);
  json_array_append_new(list, json_string(input));
}

static bool
collapse_graph(json_t *graph, GHashTable *expanded, int depth)
{
  json_t *nodes = json_object_get(graph, "nodes");
  if (depth > MAX_DEPTH || !json_is_array(nodes))
    return false;
  size_t n = json_array_size(nodes);
  g_autoptr(GHashTable) size = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) scope_of = g_ptr_array_new_full((guint)n, g_free);
  for (size_t i = 0; i < n; i++) {
    const char *name = json_string_value(json_object_get(json_array_get(nodes, i), "name"));
    char *scope = name ? collapsed_scope(name, expanded) : NULL;
    g_ptr_array_add(scope_of, scope);
    if (scope)
      g_hash_table_insert(size, g_strdup(scope),
                          GINT_TO_POINTER(GPOINTER_TO_INT(g_hash_table_lookup(size, scope)) + 1));
  }
  /* collapsed nodes' new names; a scope of one node stays that node */
  g_autoptr(GHashTable) renamed = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
  bool any = false;
  for (size_t i = 0; i < n; i++) {
    const char *scope = scope_of->pdata[i];
    if (!scope || GPOINTER_TO_INT(g_hash_table_lookup(size, scope)) < 2) {
      g_free(g_steal_pointer(&scope_of->pdata[i]));
      continue;
    }
    const char *name = json_string_value(json_object_get(json_array_get(nodes, i), "name"));
    g_hash_table_insert(renamed, (gpointer)name, g_strdup_printf("%s/", scope));
    any = true;
  }
  json_t *out = json_array();
  g_autoptr(GHashTable) groups = g_hash_table_new(g_str_hash, g_str_equal); /* scope -> node */
  g_autoptr(GHashTable) group_seen = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
                                                           (GDestroyNotify)g_hash_table_unref);
  g_autoptr(GHashTable) group_members =
      g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, free_gstring);
  for (size_t i = 0; i < n; i++) {
    json_t *obj = json_array_get(nodes, i);
    const char *scope = scope_of->pdata[i];
    json_t *inputs = json_object_get(obj, "inputs");
    if (!scope) {
      json_t *children = json_object_get(obj, "children");
      for (size_t c = 0; json_is_array(children) && c < json_array_size(children); c++)
        any |= collapse_graph(json_array_get(children, c), expanded, depth + 1);
      if (json_is_array(inputs) && g_hash_table_size(renamed) > 0) {
        json_t *rewritten = json_array();
        g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        for (size_t k = 0; k < json_array_size(inputs); k++) {
          const char *text = json_string_value(json_array_get(inputs, k));
          const char *group;
          if (text)
            add_input_once(rewritten, seen, rename_input(text, renamed, &group));
        }
        json_object_set_new(obj, "inputs", rewritten);
      }
      json_array_append(out, obj);
      continue;
    }
    json_t *group = g_hash_table_lookup(groups, scope);
    const char *name = json_string_value(json_object_get(obj, "name"));
    const char *group_name = g_hash_table_lookup(renamed, name);
    if (!group) {
      group = json_pack("{s:s, s:s, s:i, s:[]}", "name", group_name, "op", "NameScope", "group",
                        GPOINTER_TO_INT(g_hash_table_lookup(size, scope)), "inputs");
      json_array_append_new(out, group);
      g_hash_table_insert(groups, (gpointer)scope, group);
      g_hash_table_insert(group_seen, group,
                          g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL));
      g_hash_table_insert(group_members, group, g_string_new(NULL));
    }
    const char *op = json_string_value(json_object_get(obj, "op"));
    g_string_append_printf(g_hash_table_lookup(group_members, group), "%s %s\n", op ? op : "",
                           name);
    for (size_t k = 0; json_is_array(inputs) && k < json_array_size(inputs); k++) {
      const char *text = json_string_value(json_array_get(inputs, k));
      const char *producer_group;
      char *input = text ? rename_input(text, renamed, &producer_group) : NULL;
      if (!input || g_strcmp0(producer_group, group_name) == 0) { /* inside the scope */
        g_free(input);
        continue;
      }
      add_input_once(json_object_get(group, "inputs"), g_hash_table_lookup(group_seen, group),
                     input);
    }
  }
  GHashTableIter it;
  gpointer group, members;
  g_hash_table_iter_init(&it, group_members);
  while (g_hash_table_iter_next(&it, &group, &members))
    json_object_set_new(group, "members", json_string(((GString *)members)->str));
  json_object_set_new(graph, "nodes", out);
  return any;
}

/* ---- public ------------------------------------------------------------------------------------
 */

TdGraphLayout *
td_graph_layout_new_from_json(const char *json, GError **error)
{
  return td_graph_layout_new_from_json_scoped(json, NULL, error);
}

TdGraphLayout *
td_graph_layout_new_from_json_scoped(const char *json, const char *const *expanded, GError **error)
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
  if (expanded && count_json_nodes(root, 0) > COLLAPSE_ABOVE) {
    g_autoptr(GHashTable) open = g_hash_table_new(g_str_hash, g_str_equal);
    for (int i = 0; expanded[i]; i++)
      g_hash_table_add(open, (gpointer)expanded[i]);
    layout->groups = collapse_graph(root, open, 0);
  }
  gboolean ok = parse_graph(layout, root, -1, 0, error);
  json_decref(root);
  if (!ok)
    return NULL;
  if (layout->nodes->len > QUICK_LAYOUT_BOXES) {
    quick_layout(layout);
    return g_steal_pointer(&layout);
  }
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

bool
td_graph_layout_has_groups(const TdGraphLayout *layout)
{
  g_return_val_if_fail(layout != NULL, false);
  return layout->groups;
}

bool
td_graph_layout_is_quick(const TdGraphLayout *layout)
{
  g_return_val_if_fail(layout != NULL, false);
  return layout->quick;
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
  return contains_folded(node->name, folded) || contains_folded(node->op, folded) ||
         (node->members && contains_folded(node->members, folded));
}
