/* td-traces-view.h — the selected Function's traces: each ConcreteFunction's signature, node
 * counts, tracing cost and calls served, and the retrace that made it with every cause in full
 * and its call site. Follows the store live.
 */
#pragma once

#include <gtk/gtk.h>

#include "td-store.h"

G_BEGIN_DECLS

#define TD_TYPE_TRACES_VIEW (td_traces_view_get_type())
G_DECLARE_FINAL_TYPE(TdTracesView, td_traces_view, TD, TRACES_VIEW, GtkWidget)

GtkWidget *td_traces_view_new(void);
void td_traces_view_set_store(TdTracesView *self, TdStore *store);
/* Show Function `fn_id` (0: none). */
void td_traces_view_set_function(TdTracesView *self, gint64 fn_id);
/* Select the row of trace `cf_id`. */
void td_traces_view_select_trace(TdTracesView *self, gint64 cf_id);
/* The selected trace (0: none). */
gint64 td_traces_view_get_selected_trace(TdTracesView *self);

/* Signals:
 *   "trace-selected"  (gint64 cf_id)  a trace row was selected
 *   "trace-activated" (gint64 cf_id)  a trace row was activated (double click, Enter)
 */

G_END_DECLS
