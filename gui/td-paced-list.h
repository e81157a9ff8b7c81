/* td-paced-list.h — a GListModel showing the tail of an append-only list (its last
 * `max_items`), whose growth it announces at a steady pace: a view follows 100,000 new rows a
 * second without redrawing for each batch, and the work a change costs the view does not grow
 * with everything the source keeps.
 *
 * Appends to the source (items-changed at its end, nothing removed) are shown at most every
 * `interval_ms`, the window sliding forward; items the source drops from its front leave the
 * window at once (or silently when they were before it); any other change shows the tail anew.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define TD_TYPE_PACED_LIST (td_paced_list_get_type())
G_DECLARE_FINAL_TYPE(TdPacedList, td_paced_list, TD, PACED_LIST, GObject)

/* A paced view of `source`'s last `max_items` (source may be NULL). Transfer full. */
TdPacedList *td_paced_list_new(GListModel *source, guint interval_ms, guint max_items);
void td_paced_list_set_source(TdPacedList *self, GListModel *source);
/* Show everything the source has now (the window slid to its end). */
void td_paced_list_flush(TdPacedList *self);

G_END_DECLS
