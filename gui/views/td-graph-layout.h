/* td-graph-layout.h — a traced graph laid out for drawing: the graph JSON that core/graph
 * exports (tr_graph_to_json) parsed into nodes, edges and nested clusters (the bodies of cond
 * and while_loop nodes), laid out by Graphviz's dot, and read back as boxes and bezier curves.
 *
 * Plain C (GLib, jansson, Graphviz; no GTK), so the graph view can lay out in a worker thread
 * and the tests can check geometry without a display. Graphviz is used under core/graph's
 * lock (tr_graph_gvc_lock), since it is not thread-safe.
 *
 * Coordinates are in points with the origin at the top left of the drawing and y growing
 * downwards. A layout is immutable once made; everything it returns is borrowed from it.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>

G_BEGIN_DECLS

#define TD_GRAPH_LAYOUT_ERROR (td_graph_layout_error_quark())
GQuark td_graph_layout_error_quark(void);
typedef enum {
  TD_GRAPH_LAYOUT_ERROR_INVALID, /* the JSON is not a graph */
  TD_GRAPH_LAYOUT_ERROR_FAILED,  /* Graphviz could not lay it out */
} TdGraphLayoutError;

/* An axis-aligned box: top-left corner and size. */
typedef struct {
  double x;      /* left */
  double y;      /* top */
  double width;  /* extent to the right */
  double height; /* extent downwards */
} TdGraphBox;

typedef struct {
  double x; /* right of the drawing's left edge */
  double y; /* below the drawing's top edge */
} TdGraphPoint;

/* One node, or a proxy: a small copy of a producer drawn beside a consumer far from it or
 * when the producer feeds many nodes (as TensorBoard draws auxiliary nodes); dot's passes
 * take time quadratic in such edges' spans. */
typedef struct {
  char *name;     /* node name, unique within its graph (not across nested graphs) */
  char *op;       /* op type: "AddV2", "While", … */
  char *outputs;  /* one "dtype shape" line per output ("float32 (2, None)"), or "" */
  char *value;    /* a Const's value as printed, or NULL */
  char *site;     /* the line that made the node ("<cell 3>, line 4"), or NULL */
  guint group;    /* a collapsed name scope: how many nodes it holds (name is "scope/"); 0 */
  char *members;  /* a collapsed scope's nodes, "op name" a line (search looks in them) */
  char **inputs;  /* the JSON inputs ("add", "x:1", "^init"), NULL-terminated */
  bool stateful;  /* the node has side effects */
  int cluster;    /* innermost cluster holding it, or -1 at top level */
  int proxy_of;   /* for a proxy: the node it stands for; -1 for a real node */
  TdGraphBox box; /* where it is drawn */
} TdGraphNode;

/* One edge: a data or control input of `to`, drawn as a cubic bezier spline. */
typedef struct {
  int from;               /* producer (or its proxy) */
  int to;                 /* consumer */
  int output;             /* the producer's output index (0 for control edges) */
  bool control;           /* a control dependency ("^name") */
  int n_points;           /* 1 + 3k bezier points */
  TdGraphPoint *points;   /* start, then (control, control, end) per segment */
  bool has_arrow;         /* an arrowhead from the last point to arrow_tip */
  TdGraphPoint arrow_tip; /* where the arrowhead points */
} TdGraphEdge;

/* One child graph of a node (a cond branch, a while loop's cond or body), drawn as a box
 * around its nodes. */
typedef struct {
  char *title;    /* "while body", "cond true", … or the child graph's name */
  char *owner;    /* name of the node the child graph belongs to */
  int owner_node; /* that node's index */
  int parent;     /* enclosing cluster, or -1 */
  int depth;      /* 0 for a cluster at top level */
  TdGraphBox box; /* where it is drawn */
} TdGraphCluster;

typedef struct _TdGraphLayout TdGraphLayout;

/* Parse `json` (tr_graph_to_json's form) and lay it out. A malformed graph is a
 * TD_GRAPH_LAYOUT_ERROR, never a crash: the JSON comes from another process. Transfer full. */
TdGraphLayout *td_graph_layout_new_from_json(const char *json, GError **error);
/* The same, showing name scopes as TensorBoard does: in a graph of more than 300 nodes, the
 * nodes of a scope ("gradient_tape/Mul_3") are one box ("gradient_tape/", group > 0) unless the
 * scope is in `expanded` (NULL-terminated scope names without the final "/"; NULL: no scope is
 * collapsed, as td_graph_layout_new_from_json); within an expanded scope its own scopes are
 * boxes in turn. A scope of one node shows it. */
TdGraphLayout *td_graph_layout_new_from_json_scoped(const char *json, const char *const *expanded,
                                                    GError **error);
/* Whether some name scope of the graph was shown as one box. */
bool td_graph_layout_has_groups(const TdGraphLayout *layout);
void td_graph_layout_free(TdGraphLayout *layout);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TdGraphLayout, td_graph_layout_free)

/* The graph's name ("" when it has none). */
const char *td_graph_layout_get_name(const TdGraphLayout *layout);
/* The drawing's size in points. */
void td_graph_layout_get_size(const TdGraphLayout *layout, double *width, double *height);
/* The DOT text that was laid out (for debugging); NULL for a quick layout. */
const char *td_graph_layout_get_dot(const TdGraphLayout *layout);
/* Seconds spent in Graphviz (reading the DOT, laying out, reading back), or in the quick
 * layout. */
double td_graph_layout_get_seconds(const TdGraphLayout *layout);
/* Whether the graph was too big for Graphviz (over 2,000 boxes) and was laid out by Trellis's
 * own layered layout: layers and order only, edges as single curves (the view says so). */
bool td_graph_layout_is_quick(const TdGraphLayout *layout);

guint td_graph_layout_n_nodes(const TdGraphLayout *layout);
const TdGraphNode *td_graph_layout_get_node(const TdGraphLayout *layout, guint i);
guint td_graph_layout_n_edges(const TdGraphLayout *layout);
const TdGraphEdge *td_graph_layout_get_edge(const TdGraphLayout *layout, guint i);
guint td_graph_layout_n_clusters(const TdGraphLayout *layout);
const TdGraphCluster *td_graph_layout_get_cluster(const TdGraphLayout *layout, guint i);

/* The first real node named `name` (outer graphs first), or -1. */
int td_graph_layout_find_node(const TdGraphLayout *layout, const char *name);
/* The node whose box holds (x, y), or -1. */
int td_graph_layout_node_at(const TdGraphLayout *layout, double x, double y);
/* Whether a real node's name or op contains `text`, ignoring case (`text` already folded with
 * g_utf8_casefold). Proxies never match. */
bool td_graph_layout_node_matches(const TdGraphLayout *layout, guint i, const char *folded);

G_END_DECLS
