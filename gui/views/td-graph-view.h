/* td-graph-view.h — TdGraphView: one ConcreteFunction's graph, laid out and drawn (SPEC §6).
 *
 * Nodes are rounded boxes showing op (bold), name and each output's dtype and shape; edges are
 * bezier curves; the bodies of cond and while_loop nodes are labelled tinted boxes. The layout
 * (td-graph-layout.h) runs in a worker thread and is cached per ConcreteFunction id, so
 * selecting a trace again shows it at once. Zoom with Ctrl+scroll, pinch, +/- and 0 (fit);
 * pan by dragging or scrolling; search highlights matching nodes and centres the first; a
 * click on a node shows its details (op, name, inputs, dtype and shape per output, a Const's
 * value) in a popover and emits "node-activated".
 */
#pragma once

#include <gtk/gtk.h>

#include "td-graph-layout.h"

G_BEGIN_DECLS

#define TD_TYPE_GRAPH_VIEW (td_graph_view_get_type())
G_DECLARE_FINAL_TYPE(TdGraphView, td_graph_view, TD, GRAPH_VIEW, GtkWidget)

GtkWidget *td_graph_view_new(void);
/* Show the graph of ConcreteFunction `cf_id` (its tr_graph_to_json text, copied; NULL: show
 * nothing). Laid out in a worker thread unless cached; zooms to fit when it arrives. */
void td_graph_view_set_trace(TdGraphView *self, gint64 cf_id, const char *graph_json);
/* Highlight nodes whose name or op contains `text` (case-insensitive) and centre the first;
 * NULL or "" clears. */
void td_graph_view_search(TdGraphView *self, const char *text);
void td_graph_view_zoom_fit(TdGraphView *self);
/* Zoom by `factor` (> 1: in) around the view's centre. */
void td_graph_view_zoom(TdGraphView *self, double factor);
/* Whether the graph asked for last is still being laid out. */
gboolean td_graph_view_is_busy(TdGraphView *self);

/* The layout shown (borrowed), or NULL. */
const TdGraphLayout *td_graph_view_get_layout(TdGraphView *self);
/* Nodes matching the current search. */
guint td_graph_view_get_n_matches(TdGraphView *self);
/* Shows the next match after the one shown last (or the previous, `backwards`), wrapping
 * around; returns its place among the matches (1 for the first), 0 when none match. */
int td_graph_view_next_match(TdGraphView *self, gboolean backwards);
/* The place among the matches of the one shown last (1 for the first), or 0. */
int td_graph_view_get_current_match(TdGraphView *self);
/* A big graph's name scopes are boxes (td_graph_layout_new_from_json_scoped): opens `scope`
 * ("gradient_tape"; a double-click on its box does it) and lays the graph out again. */
void td_graph_view_open_scope(TdGraphView *self, const char *scope);
/* Closes every scope opened (the C key), as the graph was first shown. */
void td_graph_view_close_scopes(TdGraphView *self);
/* The part of the graph in view, in graph points. */
void td_graph_view_get_visible(TdGraphView *self, double *x, double *y, double *width,
                               double *height);
/* Why the last layout failed, or NULL. */
const char *td_graph_view_get_error(TdGraphView *self);
/* The node at widget point (x, y), or -1. */
int td_graph_view_node_at(TdGraphView *self, double x, double y);
/* Select a node by index (-1: none) as a click would: emits "node-activated", shows details. */
void td_graph_view_select_node(TdGraphView *self, int node);

/* Signals:
 *   "node-activated" (const char *node_name)   a node was clicked (not a drag that began on it)
 *   "matches-changed" (guint n_matches)        the search's matches changed: a new search text,
 *                                              or another trace (or its layout) shown
 */

G_END_DECLS
