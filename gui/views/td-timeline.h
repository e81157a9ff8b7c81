/* td-timeline.h — TdTimeline: the live timeline of calls per Function (SPEC §6).
 *
 * One lane per Function, its calls drawn as boxes from call to return, coloured by outcome
 * (cache hit, miss that traced — with the trace's span inside — or eager run), over the cells
 * drawn as alternating bands labelled "In [n]". Ctrl+scroll or pinch zooms, scrolling or
 * dragging pans, hovering a call tells what it was. When focused, keys move it too: +/- zoom,
 * Left/Right pan, Up/Down scroll the lanes, Home/End go to the start/the newest time, 0 or f
 * fits everything. Long idle gaps show shortened, hatched, with their real length. While the newest
 * events are in view the timeline follows them; panning back stops that until the view reaches the
 * end again.
 *
 * It reads a TdStore: indexing only the new events of each batch ("events-changed") and
 * drawing only the visible time range (td-timeline-index.h).
 */
#pragma once

#include <gtk/gtk.h>

#include "td-store.h"
#include "td-timeline-index.h"

G_BEGIN_DECLS

#define TD_TYPE_TIMELINE (td_timeline_get_type())
G_DECLARE_FINAL_TYPE(TdTimeline, td_timeline, TD, TIMELINE, GtkWidget)

GtkWidget *td_timeline_new(void);
/* Show `store`'s events (NULL: none); the timeline keeps a reference. */
void td_timeline_set_store(TdTimeline *self, TdStore *store);

/* The store shown (borrowed), or NULL. */
TdStore *td_timeline_get_store(TdTimeline *self);
/* The index drawn from (borrowed). */
const TdTlIndex *td_timeline_get_index(TdTimeline *self);
/* The visible time range, on the index's view-time scale: the events' ts_ns with long idle
 * gaps shortened (td-timeline-index.h). */
void td_timeline_get_range(TdTimeline *self, gint64 *start_ns, gint64 *end_ns);
/* Show [start_ns, end_ns] (as a user's zoom would: stops fitting everything). */
void td_timeline_set_range(TdTimeline *self, gint64 start_ns, gint64 end_ns);
/* Show everything again (as the "0" or "f" key does); the view then fits as events come. */
void td_timeline_fit_all(TdTimeline *self);
/* Whether the view shows everything (not zoomed in by the user). */
gboolean td_timeline_get_fitted(TdTimeline *self);
/* Whether the view keeps the newest events in sight. */
gboolean td_timeline_get_follow(TdTimeline *self);
/* What the timeline says it does not show, or NULL: when the store's window lacks the
 * session's first events (dropped past its limit, or before a late attach's snapshot),
 * "N earlier events not kept …", drawn at its bottom. Transfer full. */
char *td_timeline_get_notice(TdTimeline *self);
/* The tooltip text for a point of the widget, or NULL. Transfer full. */
char *td_timeline_describe_at(TdTimeline *self, double x, double y);

/* Signals:
 *   "function-activated" (gint64 fn_id)   a lane's label or a call was clicked
 */

G_END_DECLS
