/* td-event-log.h — the event log: every kept event in a table (sequence number, time, kind,
 * Function, call site, details), filtered by kind and by a search text, following the newest
 * events while scrolled to the bottom.
 */
#pragma once

#include <gtk/gtk.h>

#include "td-store.h"

G_BEGIN_DECLS

#define TD_TYPE_EVENT_LOG (td_event_log_get_type())
G_DECLARE_FINAL_TYPE(TdEventLog, td_event_log, TD, EVENT_LOG, GtkWidget)

GtkWidget *td_event_log_new(void);
void td_event_log_set_store(TdEventLog *self, TdStore *store);
/* Move the keyboard focus to the search entry. */
void td_event_log_focus_search(TdEventLog *self);

G_END_DECLS
