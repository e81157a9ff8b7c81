/* test-graph-layout.c — TdGraphLayout: graph JSON laid out by Graphviz into boxes, splines and
 * nested clusters, and malformed JSON refused with an error.
 */
#include "td-graph-layout.h"

#include <math.h>
#include <string.h>

/* A node's JSON: name, op, inputs (a JSON list's inside) and one float32 output. */
static void
append_node(GString *s, const char *name, const char *op, const char *inputs)
{
  g_string_append_printf(s,
                         "%s{\"name\":\"%s\",\"op\":\"%s\",\"inputs\":[%s],"
                         "\"outputs\":[{\"dtype\":\"float32\",\"shape\":[2,null]}]}",
                         s->str[s->len - 1] == '[' ? "" : ",", name, op, inputs);
}

static const TdGraphNode *
node_named(const TdGraphLayout *layout, const char *name)
{
  int i = td_graph_layout_find_node(layout, name);
  g_assert_cmpint(i, >=, 0);
  return td_graph_layout_get_node(layout, (guint)i);
}

static double
distance_to_box(const TdGraphBox *b, TdGraphPoint p)
{
  double dx = MAX(MAX(b->x - p.x, 0), p.x - (b->x + b->width));
  double dy = MAX(MAX(b->y - p.y, 0), p.y - (b->y + b->height));
  return sqrt(dx * dx + dy * dy);
}

static void
assert_box_inside(const TdGraphBox *inner, const TdGraphBox *outer)
{
  g_assert_cmpfloat(inner->x, >=, outer->x - 0.5);
  g_assert_cmpfloat(inner->y, >=, outer->y - 0.5);
  g_assert_cmpfloat(inner->x + inner->width, <=, outer->x + outer->width + 0.5);
  g_assert_cmpfloat(inner->y + inner->height, <=, outer->y + outer->height + 0.5);
}

/* Every edge starts at its producer's box and ends (with its arrow) at its consumer's. */
static void
assert_edges_touch_boxes(const TdGraphLayout *layout)
{
  for (guint i = 0; i < td_graph_layout_n_edges(layout); i++) {
    const TdGraphEdge *e = td_graph_layout_get_edge(layout, i);
    g_assert_cmpint(e->n_points, >=, 4);
    g_assert_cmpint((e->n_points - 1) % 3, ==, 0);
    const TdGraphBox *from = &td_graph_layout_get_node(layout, e->from)->box;
    const TdGraphBox *to = &td_graph_layout_get_node(layout, e->to)->box;
    g_assert_cmpfloat(distance_to_box(from, e->points[0]), <, 2.0);
    TdGraphPoint end = e->has_arrow ? e->arrow_tip : e->points[e->n_points - 1];
    g_assert_cmpfloat(distance_to_box(to, end), <, 2.0);
  }
}

static void
test_small_graph(void)
{
  g_autoptr(GString) s = g_string_new("{\"name\":\"__inference_f_4\",\"nodes\":[");
  append_node(s, "x", "Placeholder", "");
  append_node(s, "y", "Placeholder", "");
  append_node(s, "add", "AddV2", "\"x\",\"y\"");
  append_node(s, "mul", "Mul", "\"add\",\"x:0\"");
  append_node(s, "Identity", "Identity", "\"mul\",\"^add\"");
  g_string_append(s, "],\"inputs\":[\"x\",\"y\"],\"outputs\":[\"Identity\"]}");

  g_autoptr(GError) error = NULL;
  g_autoptr(TdGraphLayout) layout = td_graph_layout_new_from_json(s->str, &error);
  g_assert_no_error(error);
  g_assert_cmpstr(td_graph_layout_get_name(layout), ==, "__inference_f_4");
  g_assert_cmpuint(td_graph_layout_n_nodes(layout), ==, 5);
  g_assert_cmpuint(td_graph_layout_n_clusters(layout), ==, 0);
  double width, height;
  td_graph_layout_get_size(layout, &width, &height);
  g_assert_cmpfloat(width, >, 0);
  g_assert_cmpfloat(height, >, 0);
  for (guint i = 0; i < 5; i++) {
    const TdGraphNode *n = td_graph_layout_get_node(layout, i);
    g_assert_cmpint(n->proxy_of, ==, -1);
    g_assert_cmpint(n->cluster, ==, -1);
    g_assert_cmpfloat(n->box.width, >, 10);
    g_assert_cmpfloat(n->box.height, >, 10);
    assert_box_inside(&n->box, &(TdGraphBox){0, 0, width, height});
  }
  g_assert_cmpstr(node_named(layout, "add")->outputs, ==, "float32 (2, None)");

  /* x→add, y→add, add→mul, x→mul, mul→Identity, ^add→Identity (control) */
  g_assert_cmpuint(td_graph_layout_n_edges(layout), ==, 6);
  static const struct {
    const char *from, *to;
    bool control;
  } expected[] = {{"x", "add", false}, {"y", "add", false},        {"add", "mul", false},
                  {"x", "mul", false}, {"mul", "Identity", false}, {"add", "Identity", true}};
  for (guint i = 0; i < G_N_ELEMENTS(expected); i++) {
    const TdGraphEdge *e = td_graph_layout_get_edge(layout, i);
    g_assert_cmpstr(td_graph_layout_get_node(layout, e->from)->name, ==, expected[i].from);
    g_assert_cmpstr(td_graph_layout_get_node(layout, e->to)->name, ==, expected[i].to);
    g_assert_cmpint(e->control, ==, expected[i].control);
  }
  assert_edges_touch_boxes(layout);
  /* top to bottom: a producer is drawn above its consumer */
  g_assert_cmpfloat(node_named(layout, "add")->box.y, >, node_named(layout, "x")->box.y);
  g_assert_cmpfloat(node_named(layout, "Identity")->box.y, >, node_named(layout, "mul")->box.y);

  const TdGraphNode *mul = node_named(layout, "mul");
  g_assert_cmpint(td_graph_layout_node_at(layout, mul->box.x + mul->box.width / 2,
                                          mul->box.y + mul->box.height / 2),
                  ==, td_graph_layout_find_node(layout, "mul"));
  g_assert_cmpint(td_graph_layout_node_at(layout, -5, -5), ==, -1);
  g_assert_true(td_graph_layout_node_matches(layout, 2, "addv"));
  g_assert_false(td_graph_layout_node_matches(layout, 2, "mul"));
}

/* A While whose body holds a StatelessIf: clusters nest, and each holds its nodes. */
static const char nested_json[] =
    "{\"name\":\"g\",\"nodes\":["
    "{\"name\":\"x\",\"op\":\"Placeholder\",\"inputs\":[],\"outputs\":[{\"dtype\":\"int32\","
    "\"shape\":[]}]},"
    "{\"name\":\"while\",\"op\":\"While\",\"inputs\":[\"x\"],\"outputs\":[{\"dtype\":\"int32\","
    "\"shape\":[]}],\"children\":["
    "  {\"name\":\"while_cond\",\"nodes\":["
    "    {\"name\":\"i\",\"op\":\"Placeholder\",\"inputs\":[],\"outputs\":[]},"
    "    {\"name\":\"Less\",\"op\":\"Less\",\"inputs\":[\"i\"],\"outputs\":[]}]},"
    "  {\"name\":\"while_body\",\"nodes\":["
    "    {\"name\":\"i\",\"op\":\"Placeholder\",\"inputs\":[],\"outputs\":[]},"
    "    {\"name\":\"cond\",\"op\":\"StatelessIf\",\"inputs\":[\"i\"],\"outputs\":[],"
    "     \"children\":["
    "       {\"name\":\"cond_true\",\"nodes\":[{\"name\":\"a\",\"op\":\"Placeholder\"},"
    "         {\"name\":\"neg\",\"op\":\"Neg\",\"inputs\":[\"a\"]}]},"
    "       {\"name\":\"cond_false\",\"nodes\":[{\"name\":\"a\",\"op\":\"Placeholder\"},"
    "         {\"name\":\"c\",\"op\":\"Const\",\"value\":\"1\"},"
    "         {\"name\":\"add\",\"op\":\"AddV2\",\"inputs\":[\"a\",\"c\"]}]}]},"
    "    {\"name\":\"add\",\"op\":\"AddV2\",\"inputs\":[\"cond\",\"i\"],\"outputs\":[]}]}]},"
    "{\"name\":\"Identity\",\"op\":\"Identity\",\"inputs\":[\"while\"],\"outputs\":[]}]}";

static void
test_nested_clusters(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TdGraphLayout) layout = td_graph_layout_new_from_json(nested_json, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(td_graph_layout_n_nodes(layout), ==, 3 + 2 + 3 + 2 + 3);
  g_assert_cmpuint(td_graph_layout_n_clusters(layout), ==, 4);
  static const struct {
    const char *title, *owner;
    int parent, depth;
  } expected[] = {{"while cond", "while", -1, 0},
                  {"while body", "while", -1, 0},
                  {"cond true", "cond", 1, 1},
                  {"cond false", "cond", 1, 1}};
  for (guint c = 0; c < 4; c++) {
    const TdGraphCluster *cl = td_graph_layout_get_cluster(layout, c);
    g_assert_cmpstr(cl->title, ==, expected[c].title);
    g_assert_cmpstr(cl->owner, ==, expected[c].owner);
    g_assert_cmpint(cl->parent, ==, expected[c].parent);
    g_assert_cmpint(cl->depth, ==, expected[c].depth);
    g_assert_cmpfloat(cl->box.width, >, 0);
    g_assert_cmpfloat(cl->box.height, >, 0);
    if (cl->parent >= 0)
      assert_box_inside(&cl->box, &td_graph_layout_get_cluster(layout, cl->parent)->box);
  }
  /* every node lies inside its own cluster and every enclosing one */
  guint in_clusters = 0;
  for (guint i = 0; i < td_graph_layout_n_nodes(layout); i++) {
    const TdGraphNode *n = td_graph_layout_get_node(layout, i);
    for (int c = n->cluster; c >= 0; c = td_graph_layout_get_cluster(layout, c)->parent)
      assert_box_inside(&n->box, &td_graph_layout_get_cluster(layout, c)->box);
    in_clusters += n->cluster >= 0;
  }
  g_assert_cmpuint(in_clusters, ==, 10);
  /* inputs resolve within their own graph: the body's add reads the body's i and cond */
  guint body_edges = 0;
  for (guint i = 0; i < td_graph_layout_n_edges(layout); i++) {
    const TdGraphEdge *e = td_graph_layout_get_edge(layout, i);
    g_assert_cmpint(td_graph_layout_get_node(layout, e->from)->cluster, ==,
                    td_graph_layout_get_node(layout, e->to)->cluster);
    body_edges += td_graph_layout_get_node(layout, e->to)->cluster == 1;
  }
  g_assert_cmpuint(body_edges, ==, 3); /* i→cond, cond→add, i→add */
  g_assert_cmpuint(td_graph_layout_n_edges(layout), ==, 2 + 1 + 3 + 1 + 2);
  assert_edges_touch_boxes(layout);
  /* the top-level name wins when nested graphs reuse it */
  g_assert_cmpint(node_named(layout, "x")->cluster, ==, -1);
  g_assert_cmpint(node_named(layout, "add")->cluster, ==, 1);
  g_assert_cmpstr(node_named(layout, "c")->value, ==, "1");
}

static void
test_malformed(void)
{
  static const char *const bad[] = {
      "",
      "{",
      "[]",
      "null",
      "{\"nodes\": 3}",
      "{\"nodes\": [3]}",
      "{\"nodes\": [{\"name\": \"a\"}]}",
      "{\"nodes\": [{\"name\": 1, \"op\": \"X\"}]}",
      "{\"nodes\": [{\"name\": \"a\", \"op\": \"X\", \"inputs\": \"b\"}]}",
      "{\"nodes\": [{\"name\": \"a\", \"op\": \"X\", \"inputs\": [1]}]}",
      "{\"nodes\": [{\"name\": \"a\", \"op\": \"X\", \"outputs\": {}}]}",
      "{\"nodes\": [{\"name\": \"a\", \"op\": \"X\", \"children\": {}}]}",
      "{\"nodes\": [{\"name\": \"a\", \"op\": \"X\", \"children\": [7]}]}",
      "{\"nodes\": [], \"nodes\": []}",
  };
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_autoptr(GError) error = NULL;
    TdGraphLayout *layout = td_graph_layout_new_from_json(bad[i], &error);
    g_assert_null(layout);
    g_assert_error(error, TD_GRAPH_LAYOUT_ERROR, TD_GRAPH_LAYOUT_ERROR_INVALID);
  }
  /* 40 nested child graphs: refused before the layout recurses that deep */
  g_autoptr(GString) deep = g_string_new(NULL);
  for (int d = 0; d < 40; d++)
    g_string_append(deep, "{\"nodes\":[{\"name\":\"w\",\"op\":\"While\",\"children\":[");
  g_string_append(deep, "{\"nodes\":[]}");
  for (int d = 0; d < 40; d++)
    g_string_append(deep, "]}]}");
  g_autoptr(GError) error = NULL;
  g_assert_null(td_graph_layout_new_from_json(deep->str, &error));
  g_assert_error(error, TD_GRAPH_LAYOUT_ERROR, TD_GRAPH_LAYOUT_ERROR_INVALID);
}

/* Inputs naming no node of the graph are left out, and odd names are escaped in DOT. */
static void
test_odd_names(void)
{
  const char *json = "{\"nodes\":[{\"name\":\"a \\\"q\\\" \\\\ }\\n\",\"op\":\"X\"},"
                     "{\"name\":\"b\",\"op\":\"Y\",\"inputs\":[\"nope\",\"^\",\":\",\"a:x\"]},"
                     "{\"name\":\"c\",\"op\":\"Z\",\"inputs\":[\"a \\\"q\\\" \\\\ }\\n:0\"]}]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(TdGraphLayout) layout = td_graph_layout_new_from_json(json, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(td_graph_layout_n_nodes(layout), ==, 3);
  g_assert_cmpuint(td_graph_layout_n_edges(layout), ==, 1);
  g_assert_cmpint(td_graph_layout_get_edge(layout, 0)->from, ==, 0);
  g_assert_cmpint(td_graph_layout_get_edge(layout, 0)->to, ==, 2);
  g_assert_cmpstr(td_graph_layout_get_node(layout, 1)->outputs, ==, "");
}

/* A chain of 1,000 ops where every tenth also reads the first: proxies stand in for the
 * busy producer, and the whole layout takes well under a second. */
static void
test_thousand_nodes(void)
{
  g_autoptr(GString) s = g_string_new("{\"name\":\"big\",\"nodes\":[");
  append_node(s, "x", "Placeholder", "");
  for (int i = 1; i < 1000; i++) {
    g_autofree char *name = g_strdup_printf("op_%d", i);
    g_autofree char *prev = i == 1 ? g_strdup("x") : g_strdup_printf("op_%d", i - 1);
    g_autofree char *inputs =
        i % 10 == 0 ? g_strdup_printf("\"%s\",\"x\"", prev) : g_strdup_printf("\"%s\"", prev);
    append_node(s, name, i % 10 == 0 ? "AddV2" : "Tanh", inputs);
  }
  g_string_append(s, "]}");

  gint64 start = g_get_monotonic_time();
  g_autoptr(GError) error = NULL;
  g_autoptr(TdGraphLayout) layout = td_graph_layout_new_from_json(s->str, &error);
  double seconds = (g_get_monotonic_time() - start) / 1e6;
  g_assert_no_error(error);
  g_test_message("1,000-node chain+fan laid out in %.3f s (Graphviz %.3f s)", seconds,
                 td_graph_layout_get_seconds(layout));
  /* The 1 s bound is for an optimised build; under the sanitizers (with full stacks on every
   * allocation) the layout only has to finish. */
  if (g_strcmp0(g_getenv("TRELLIS_SANITIZED"), "1") == 0)
    g_test_message("sanitizer build: the 1 s bound is not asserted");
  else
    g_assert_cmpfloat(seconds, <, 1.0);

  guint proxies = 0;
  for (guint i = 0; i < td_graph_layout_n_nodes(layout); i++) {
    const TdGraphNode *n = td_graph_layout_get_node(layout, i);
    g_assert_cmpfloat(n->box.width, >, 0);
    if (n->proxy_of >= 0) {
      g_assert_cmpint(n->proxy_of, ==, 0);
      g_assert_cmpstr(n->name, ==, "x");
      proxies++;
    }
  }
  g_assert_cmpuint(proxies, ==, 100); /* x feeds 100 nodes, each through its own proxy */
  g_assert_cmpuint(td_graph_layout_n_nodes(layout), ==, 1000 + proxies);
  g_assert_cmpuint(td_graph_layout_n_edges(layout), ==, 999 + 99);
  assert_edges_touch_boxes(layout);
  /* searching skips proxies */
  g_assert_cmpint(td_graph_layout_find_node(layout, "x"), ==, 0);
}

/* A training step's size: 6,000 nodes in 40 chains of dense-layer shapes (reads feeding
 * products feeding sums), with a While whose body is a cluster. Graphviz took a minute on such
 * a graph; the quick layout takes well under a second, and its boxes never overlap. */
static void
test_six_thousand_nodes(void)
{
  g_autoptr(GString) s = g_string_new("{\"name\":\"step\",\"nodes\":[");
  append_node(s, "x", "Placeholder", "");
  int n = 1;
  for (int chain = 0; chain < 40; chain++) {
    g_autofree char *prev = g_strdup("x");
    for (int k = 0; k < 50; k++, n += 3) {
      g_autofree char *var = g_strdup_printf("v_%d", n);
      g_autofree char *read = g_strdup_printf("ReadVariableOp_%d", n);
      g_autofree char *mul = g_strdup_printf("MatMul_%d", n);
      g_autofree char *read_in = g_strdup_printf("\"%s\"", var);
      g_autofree char *mul_in = g_strdup_printf("\"%s\",\"%s\"", prev, read);
      append_node(s, var, "Placeholder", "");
      append_node(s, read, "ReadVariableOp", read_in);
      append_node(s, mul, "MatMul", mul_in);
      g_free(prev);
      prev = g_strdup(mul);
    }
  }
  g_string_append(s, ",{\"name\":\"while\",\"op\":\"While\",\"inputs\":[\"x\"],\"children\":["
                     "{\"name\":\"while_cond\",\"nodes\":[{\"name\":\"i\",\"op\":\"Placeholder\"},"
                     "{\"name\":\"Less\",\"op\":\"Less\",\"inputs\":[\"i\"]}]},"
                     "{\"name\":\"while_body\",\"nodes\":[{\"name\":\"i\",\"op\":\"Placeholder\"},"
                     "{\"name\":\"add\",\"op\":\"AddV2\",\"inputs\":[\"i\"]}]}]}");
  g_string_append(s, "]}");

  gint64 start = g_get_monotonic_time();
  g_autoptr(GError) error = NULL;
  g_autoptr(TdGraphLayout) layout = td_graph_layout_new_from_json(s->str, &error);
  double seconds = (g_get_monotonic_time() - start) / 1e6;
  g_assert_no_error(error);
  g_assert_true(td_graph_layout_is_quick(layout));
  g_assert_null(td_graph_layout_get_dot(layout));
  g_test_message("%u boxes, quick layout in %.3f s", td_graph_layout_n_nodes(layout), seconds);
  if (g_strcmp0(g_getenv("TRELLIS_SANITIZED"), "1") != 0)
    g_assert_cmpfloat(seconds, <, 1.0);
  g_assert_cmpuint(td_graph_layout_n_nodes(layout), >=, 6000);
  assert_edges_touch_boxes(layout);

  /* no two boxes overlap; every box lies in the drawing */
  double width, height;
  td_graph_layout_get_size(layout, &width, &height);
  guint count = td_graph_layout_n_nodes(layout);
  for (guint i = 0; i < count; i++) {
    const TdGraphBox *b = &td_graph_layout_get_node(layout, i)->box;
    g_assert_cmpfloat(b->x, >=, -0.5);
    g_assert_cmpfloat(b->y, >=, -0.5);
    g_assert_cmpfloat(b->x + b->width, <=, width + 0.5);
    g_assert_cmpfloat(b->y + b->height, <=, height + 0.5);
  }
  for (guint i = 0; i < count; i++)
    for (guint j = i + 1; j < count; j++) {
      const TdGraphBox *a = &td_graph_layout_get_node(layout, i)->box;
      const TdGraphBox *b = &td_graph_layout_get_node(layout, j)->box;
      bool apart = a->x + a->width <= b->x + 0.01 || b->x + b->width <= a->x + 0.01 ||
                   a->y + a->height <= b->y + 0.01 || b->y + b->height <= a->y + 0.01;
      g_assert_true(apart);
    }
  /* a product sits below the read it uses and below the product before it */
  const TdGraphNode *read = node_named(layout, "ReadVariableOp_4");
  const TdGraphNode *mul = node_named(layout, "MatMul_4");
  const TdGraphNode *before = node_named(layout, "MatMul_1");
  g_assert_cmpfloat(read->box.y + read->box.height, <, mul->box.y);
  g_assert_cmpfloat(before->box.y + before->box.height, <, mul->box.y);
  /* the While's body is a cluster holding its nodes, beside the top level */
  g_assert_cmpuint(td_graph_layout_n_clusters(layout), ==, 2);
  for (guint c = 0; c < td_graph_layout_n_clusters(layout); c++) {
    const TdGraphCluster *cluster = td_graph_layout_get_cluster(layout, c);
    for (guint i = 0; i < count; i++)
      if (td_graph_layout_get_node(layout, i)->cluster == (int)c)
        assert_box_inside(&td_graph_layout_get_node(layout, i)->box, &cluster->box);
  }
}

/* Name scopes of a big graph are boxes: "grad/" holds 300 nodes (two of them in "grad/inner/"),
 * "w/" a variable's two nodes; a node outside reads from inside a scope through the scope's box,
 * once; search finds a node inside a box; opening "grad" shows its nodes with "grad/inner/" a
 * box in turn; a scope of one node shows that node. */
static void
test_name_scopes(void)
{
  g_autoptr(GString) s = g_string_new("{\"name\":\"step\",\"nodes\":[");
  append_node(s, "x", "Placeholder", "");
  append_node(s, "w/kernel", "Placeholder", "");
  append_node(s, "w/read", "ReadVariableOp", "\"w/kernel\"");
  append_node(s, "solo/only", "Relu", "\"x\"");
  for (int i = 0; i < 298; i++) {
    g_autofree char *name = g_strdup_printf("grad/Mul_%d", i);
    g_autofree char *in =
        i ? g_strdup_printf("\"grad/Mul_%d\",\"x\"", i - 1) : g_strdup("\"x\",\"w/read\"");
    append_node(s, name, "Mul", in);
  }
  append_node(s, "grad/inner/a", "Neg", "\"grad/Mul_297\"");
  append_node(s, "grad/inner/b", "Neg", "\"grad/inner/a\"");
  append_node(s, "out", "AddV2", "\"grad/inner/b:0\",\"grad/Mul_5\",\"solo/only\"");
  g_string_append(s, "]}");

  const char *const closed[] = {NULL};
  g_autoptr(GError) error = NULL;
  g_autoptr(TdGraphLayout) layout = td_graph_layout_new_from_json_scoped(s->str, closed, &error);
  g_assert_no_error(error);
  g_assert_true(td_graph_layout_has_groups(layout));
  const TdGraphNode *grad = node_named(layout, "grad/");
  g_assert_cmpuint(grad->group, ==, 300);
  g_assert_cmpstr(grad->inputs[0], ==, "x");
  g_assert_cmpstr(grad->inputs[1], ==, "w/"); /* the variable's scope, a box too */
  g_assert_null(grad->inputs[2]);
  g_assert_cmpuint(node_named(layout, "w/")->group, ==, 2);
  g_assert_cmpuint(node_named(layout, "solo/only")->group, ==, 0); /* one node: itself */
  const TdGraphNode *out = node_named(layout, "out");
  g_assert_cmpstr(out->inputs[0], ==, "grad/"); /* two inputs from the scope, one edge */
  g_assert_cmpstr(out->inputs[1], ==, "solo/only");
  g_assert_null(out->inputs[2]);
  g_assert_cmpint(td_graph_layout_find_node(layout, "grad/Mul_5"), ==, -1);
  g_assert_cmpuint(td_graph_layout_n_nodes(layout), ==, 5); /* x, w/, solo/only, grad/, out */
  g_autofree char *folded = g_utf8_casefold("mul_17", -1);
  g_assert_true(td_graph_layout_node_matches(
      layout, (guint)td_graph_layout_find_node(layout, "grad/"), folded));
  assert_edges_touch_boxes(layout);

  const char *const open_grad[] = {"grad", NULL};
  g_autoptr(TdGraphLayout) opened = td_graph_layout_new_from_json_scoped(s->str, open_grad, &error);
  g_assert_no_error(error);
  g_assert_cmpint(td_graph_layout_find_node(opened, "grad/Mul_5"), >=, 0);
  g_assert_cmpuint(node_named(opened, "grad/inner/")->group, ==, 2);
  g_assert_cmpstr(node_named(opened, "out")->inputs[0], ==, "grad/inner/");
  g_assert_cmpstr(node_named(opened, "out")->inputs[1], ==, "grad/Mul_5");

  /* without a list of open scopes (and in small graphs) nothing is a box */
  g_autoptr(TdGraphLayout) plain = td_graph_layout_new_from_json(s->str, &error);
  g_assert_no_error(error);
  g_assert_false(td_graph_layout_has_groups(plain));
  g_assert_cmpint(td_graph_layout_find_node(plain, "grad/Mul_5"), >=, 0);
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/views/layout/small-graph", test_small_graph);
  g_test_add_func("/views/layout/nested-clusters", test_nested_clusters);
  g_test_add_func("/views/layout/malformed-json-is-an-error", test_malformed);
  g_test_add_func("/views/layout/odd-names-and-unknown-inputs", test_odd_names);
  g_test_add_func("/views/layout/thousand-nodes-under-a-second", test_thousand_nodes);
  g_test_add_func("/views/layout/six-thousand-nodes-quick", test_six_thousand_nodes);
  g_test_add_func("/views/layout/name-scopes-as-boxes", test_name_scopes);
  return g_test_run();
}
