/* export.c — a graph as others see it: GraphDef node listings, Graphviz DOT, JSON, and an SVG
 * drawing laid out by Graphviz (for the notebook's image/svg+xml and the debugger).
 */
#include "graph-private.h"
#include "tr-print.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <graphviz/gvplugin.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* ---- GraphDef ------------------------------------------------------------------------------- */

/* The node's GraphDef inputs: data inputs, then "^name" per control input. Transfer full. */
static char **
node_input_strings(const TrNode *node, int *n)
{
  *n = node->n_inputs + node->n_control;
  char **inputs = g_new0(char *, *n + 1);
  for (int i = 0; i < node->n_inputs; i++)
    inputs[i] = tr_output_input_string(node->inputs[i]);
  for (int i = 0; i < node->n_control; i++)
    inputs[node->n_inputs + i] = g_strconcat("^", node->control[i]->name, NULL);
  return inputs;
}

TrNodeDef *
tr_graph_as_graph_def(const TrGraph *g, int *n_nodes)
{
  g_return_val_if_fail(g && n_nodes, NULL);
  *n_nodes = tr_graph_n_nodes(g);
  TrNodeDef *defs = g_new0(TrNodeDef, MAX(*n_nodes, 1));
  for (int i = 0; i < *n_nodes; i++) {
    const TrNode *node = tr_graph_node(g, i);
    defs[i].name = node->name;
    defs[i].op = node->type;
    defs[i].inputs = node_input_strings(node, &defs[i].n_inputs);
  }
  return defs;
}

void
tr_graph_def_free(TrNodeDef *defs, int n_nodes)
{
  for (int i = 0; i < n_nodes; i++)
    g_strfreev(defs[i].inputs);
  g_free(defs);
}

char *
tr_graph_def_listing(const TrGraph *g)
{
  int n;
  TrNodeDef *defs = tr_graph_as_graph_def(g, &n);
  GString *s = g_string_new(NULL);
  for (int i = 0; i < n; i++) {
    g_string_append_c(s, '[');
    for (int k = 0; k < defs[i].n_inputs; k++)
      g_string_append_printf(s, "%s'%s'", k ? ", " : "", defs[i].inputs[k]);
    g_string_append_printf(s, "] -> %s\n", defs[i].name);
  }
  tr_graph_def_free(defs, n);
  return g_string_free(s, FALSE);
}

/* ---- DOT --------------------------------------------------------------------------------------
 */

static void
append_dot_escaped(GString *s, const char *text)
{
  for (const char *p = text; *p; p++) {
    if (*p == '"' || *p == '\\')
      g_string_append_c(s, '\\');
    if (*p == '\n') {
      g_string_append(s, "\\n");
      continue;
    }
    g_string_append_c(s, *p);
  }
}

/* "int32 (None,)" for each output. */
static void
append_output_summary(GString *s, const TrNode *node)
{
  for (int i = 0; i < node->n_outputs; i++) {
    g_autofree char *shape = tr_shape_to_string(&node->shapes[i]);
    g_string_append_printf(s, "\n%s %s", tr_graph_dtype_name(node->dtypes[i]), shape);
  }
}

/* Fill colours by kind, so that arguments, constants and state stand out. */
static const char *
node_colour(const TrNode *node)
{
  if (node->op == TR_GOP_PLACEHOLDER)
    return node->variable ? "#f6d6a8" : "#cfe3f7";
  if (node->op == TR_GOP_CONST)
    return "#e4e4e4";
  if (node->stateful)
    return "#f7c9c9";
  if (node->n_children)
    return "#e2d5f2";
  return "#ffffff";
}

static void append_dot_graph(GString *s, const TrGraph *g, const char *prefix, int depth);

/* An input drawn as an edge from its producer, or from a small copy of the producer beside the
 * consumer: edges from a node feeding many others, or spanning much of the graph, cost dot's
 * layout passes time quadratic in the graph's size (a placeholder used by 1,000 ops takes
 * minutes), and a proxy draws them as TensorBoard does its auxiliary nodes. */
#define PROXY_FANOUT 8
#define PROXY_SPAN   48

static bool
draw_as_proxy(const TrNode *producer, const TrNode *consumer, const int *fanout)
{
  return fanout[producer->id] > PROXY_FANOUT || consumer->id - producer->id > PROXY_SPAN;
}

static void
append_dot_edge(GString *s, const TrNode *producer, const TrNode *consumer, int k, bool control,
                const char *prefix, int depth, const int *fanout)
{
  int indent = depth * 2;
  g_autofree char *from = g_strdup_printf("%sn%d", prefix, producer->id);
  if (draw_as_proxy(producer, consumer, fanout)) {
    g_free(from);
    from = g_strdup_printf("%sp%d_%d", prefix, consumer->id, k);
    g_string_append_printf(s, "%*s%s [label=\"", indent, "", from);
    append_dot_escaped(s, producer->name);
    g_string_append_printf(s,
                           "\", style=\"rounded,dashed,filled\", fillcolor=\"%s\", "
                           "fontsize=8];\n",
                           node_colour(producer));
  }
  g_string_append_printf(s, "%*s%s -> %sn%d", indent, "", from, prefix, consumer->id);
  if (control)
    g_string_append(s, " [style=dashed, arrowhead=odot]");
  else if (consumer->inputs[k].index > 0)
    g_string_append_printf(s, " [taillabel=\"%d\"]", consumer->inputs[k].index);
  g_string_append(s, ";\n");
}

static void
append_dot_node(GString *s, const TrNode *node, const char *prefix, int depth, const int *fanout)
{
  g_string_append_printf(s, "%*s%sn%d [label=\"", depth * 2, "", prefix, node->id);
  GString *label = g_string_new(node->name);
  g_string_append_printf(label, "\n%s", node->type);
  append_output_summary(label, node);
  append_dot_escaped(s, label->str);
  g_string_free(label, TRUE);
  g_string_append_printf(s, "\", fillcolor=\"%s\"];\n", node_colour(node));
  for (int i = 0; i < node->n_inputs; i++)
    append_dot_edge(s, node->inputs[i].node, node, i, false, prefix, depth, fanout);
  for (int i = 0; i < node->n_control; i++)
    append_dot_edge(s, node->control[i], node, node->n_inputs + i, true, prefix, depth, fanout);
  for (int c = 0; c < node->n_children; c++) {
    g_autofree char *child_prefix = g_strdup_printf("%sn%dc%d_", prefix, node->id, c);
    g_string_append_printf(s, "%*ssubgraph \"cluster_%s\" {\n", depth * 2, "", child_prefix);
    g_string_append_printf(s, "%*s  label=\"", depth * 2, "");
    const char *child_name = tr_graph_name(node->children[c]);
    g_autofree char *title = child_name ? g_strdup_printf("%s / %s", node->name, child_name)
                                        : g_strdup_printf("%s / %d", node->name, c);
    append_dot_escaped(s, title);
    g_string_append(s, "\"; style=\"rounded,dashed\";\n");
    append_dot_graph(s, node->children[c], child_prefix, depth + 1);
    g_string_append_printf(s, "%*s}\n", depth * 2, "");
  }
}

static void
append_dot_graph(GString *s, const TrGraph *g, const char *prefix, int depth)
{
  int n = tr_graph_n_nodes(g);
  g_autofree int *fanout = g_new0(int, MAX(n, 1));
  for (int i = 0; i < n; i++) {
    const TrNode *node = tr_graph_node(g, i);
    for (int k = 0; k < node->n_inputs + node->n_control; k++)
      fanout[k < node->n_inputs ? node->inputs[k].node->id
                                : node->control[k - node->n_inputs]->id]++;
  }
  for (int i = 0; i < n; i++)
    append_dot_node(s, tr_graph_node(g, i), prefix, depth + 1, fanout);
}

char *
tr_graph_to_dot(const TrGraph *g)
{
  g_return_val_if_fail(g != NULL, NULL);
  GString *s = g_string_new("digraph \"");
  append_dot_escaped(s, g->name ? g->name : "graph");
  /* nslimit/mclimit bound dot's network-simplex and crossing-minimisation passes: a 1,000-node
   * graph then lays out in a fraction of a second instead of many seconds. */
  g_string_append(s, "\" {\n"
                     "  graph [rankdir=TB, nslimit=2, nslimit1=2, mclimit=1, ranksep=0.3, "
                     "nodesep=0.25, fontname=\"Helvetica\", fontsize=10];\n"
                     "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", "
                     "fontsize=10, margin=\"0.08,0.03\"];\n"
                     "  edge [arrowsize=0.6];\n");
  append_dot_graph(s, g, "", 0);
  g_string_append(s, "}\n");
  return g_string_free(s, FALSE);
}

/* ---- JSON --------------------------------------------------------------------------------------
 */

static json_t *
shape_json(const TrShape *shape)
{
  if (shape->rank == TR_UNKNOWN)
    return json_null();
  json_t *dims = json_array();
  for (int i = 0; i < shape->rank; i++)
    json_array_append_new(dims, shape->dims[i] < 0 ? json_null() : json_integer(shape->dims[i]));
  return dims;
}

static json_t *graph_json(const TrGraph *g);

static json_t *
node_json(const TrNode *node)
{
  json_t *obj = json_object();
  json_object_set_new(obj, "name", json_string(node->name));
  json_object_set_new(obj, "op", json_string(node->type));
  if (node->site_file) { /* where the node was made: the user's line */
    json_object_set_new(obj, "file", json_string(node->site_file));
    json_object_set_new(obj, "line", json_integer(node->site_line));
  }
  int n;
  char **inputs = node_input_strings(node, &n);
  json_t *in = json_array();
  for (int i = 0; i < n; i++)
    json_array_append_new(in, json_string(inputs[i]));
  g_strfreev(inputs);
  json_object_set_new(obj, "inputs", in);
  json_t *outs = json_array();
  for (int i = 0; i < node->n_outputs; i++) {
    json_t *o = json_object();
    json_object_set_new(o, "dtype", json_string(tr_graph_dtype_name(node->dtypes[i])));
    json_object_set_new(o, "shape", shape_json(&node->shapes[i]));
    json_array_append_new(outs, o);
  }
  json_object_set_new(obj, "outputs", outs);
  if (node->stateful)
    json_object_set_new(obj, "stateful", json_true());
  if (node->value) {
    g_autofree char *text = tr_format_print_tensor(node->value, 3);
    json_object_set_new(obj, "value", json_string(text));
  }
  if (node->variable)
    json_object_set_new(obj, "variable", json_string(node->variable->name));
  if (node->print && node->print->template_text)
    json_object_set_new(obj, "template", json_string(node->print->template_text));
  if (node->n_children) {
    json_t *children = json_array();
    for (int i = 0; i < node->n_children; i++)
      json_array_append_new(children, graph_json(node->children[i]));
    json_object_set_new(obj, "children", children);
  }
  return obj;
}

static json_t *
node_names_json(GPtrArray *nodes)
{
  json_t *names = json_array();
  for (guint i = 0; i < nodes->len; i++)
    json_array_append_new(names, json_string(((TrNode *)nodes->pdata[i])->name));
  return names;
}

static json_t *
graph_json(const TrGraph *g)
{
  json_t *obj = json_object();
  json_object_set_new(obj, "name", g->name ? json_string(g->name) : json_null());
  json_t *nodes = json_array();
  for (int i = 0; i < tr_graph_n_nodes(g); i++)
    json_array_append_new(nodes, node_json(tr_graph_node(g, i)));
  json_object_set_new(obj, "nodes", nodes);
  json_object_set_new(obj, "inputs", node_names_json(g->inputs));
  json_object_set_new(obj, "outputs", node_names_json(g->outputs));
  return obj;
}

char *
tr_graph_to_json(const TrGraph *g)
{
  g_return_val_if_fail(g != NULL, NULL);
  json_t *root = graph_json(g);
  char *text = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(root);
  char *copy = g_strdup(text);
  free(text);
  return copy;
}

/* ---- SVG through Graphviz ------------------------------------------------------------------ */

/* Graphviz 2.42's dot layout leaks the virtual edges it builds for a cluster spanning two ranks
 * or more (build_skeleton, a few KB per layout of a graph with a While or cond); later Graphviz
 * releases do not. Nothing here can free them, so the sanitizer tests draw no such graph. */

/* The plugins linked in (see meson.build): dot's layout and the core renderers (SVG). */
extern gvplugin_library_t gvplugin_dot_layout_LTX_library;
extern gvplugin_library_t gvplugin_core_LTX_library;
static lt_symlist_t gv_builtins[] = {
    {"gvplugin_dot_layout_LTX_library", &gvplugin_dot_layout_LTX_library},
    {"gvplugin_core_LTX_library", &gvplugin_core_LTX_library},
    {NULL, NULL},
};

/* One Graphviz context for the process, made on first use and used under a lock (Graphviz is
 * not thread-safe). Without demand loading, the installed text-layout plugin (pango) is never
 * loaded: its font cache outlives the context that owns it in Graphviz 2.43, a use-after-free
 * once a second context is made. */
static GMutex gvc_lock;

static GVC_t *
shared_gvc(void)
{
  static GVC_t *gvc;
  if (!gvc)
    gvc = gvContextPlugins(gv_builtins, 0);
  return gvc;
}

GVC_t *
tr_graph_gvc_lock(void)
{
  g_mutex_lock(&gvc_lock);
  return shared_gvc();
}

void
tr_graph_gvc_unlock(void)
{
  g_mutex_unlock(&gvc_lock);
}

static char *
render_svg(const char *dot, GError **error)
{
  GVC_t *gvc = shared_gvc();
  Agraph_t *graph = agmemread(dot);
  if (!graph) {
    g_set_error_literal(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_VALUE,
                        "Graphviz could not read the graph");
    return NULL;
  }
  char *data = NULL;
  unsigned int len = 0; /* Graphviz 2.43's type */
  bool ok = gvLayout(gvc, graph, "dot") == 0;
  ok = ok && gvRenderData(gvc, graph, "svg", &data, &len) == 0 && data;
  char *svg = ok ? g_strndup(data, len) : NULL;
  if (data)
    gvFreeRenderData(data);
  gvFreeLayout(gvc, graph);
  agclose(graph);
  if (!svg)
    g_set_error_literal(error, TR_GRAPH_ERROR, TR_GRAPH_ERROR_VALUE,
                        "Graphviz could not lay out the graph");
  return svg;
}

char *
tr_graph_to_svg(const TrGraph *g, GError **error)
{
  g_return_val_if_fail(g != NULL, NULL);
  g_autofree char *dot = tr_graph_to_dot(g);
  tr_graph_gvc_lock();
  char *svg = render_svg(dot, error);
  tr_graph_gvc_unlock();
  return svg;
}
