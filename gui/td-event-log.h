/* td-event-log.h — the event log: every kept event in a table (sequence number, time, kind,
 * Function, call site, details), filtered by kind or group (errors, retracing warnings) and by
 * a search text, following the newest events while scrolled to the bottom. A click on a row
 * says which Function and trace its event refers to ("event-activated").
 */
#pragma once

#include <gtk/gtk.h>

#include "td-format.h"
#include "td-store.h"

G_BEGIN_DECLS

#define TD_TYPE_EVENT_LOG (td_event_log_get_type())
G_DECLARE_FINAL_TYPE(TdEventLog, td_event_log, TD, EVENT_LOG, GtkWidget)

GtkWidget *td_event_log_new(void);
void td_event_log_set_store(TdEventLog *self, TdStore *store);
/* Filter to a group of events (errors, retracing warnings), or to one kind (TR_EVENT_N_KINDS:
 * all), as choosing it in the log's menu does. */
void td_event_log_show_group(TdEventLog *self, TdEventGroup group);
void td_event_log_show_kind(TdEventLog *self, TrEventKind kind);
/* Move the keyboard focus to the search entry. */
void td_event_log_focus_search(TdEventLog *self);

/* Signals:
 *   "event-activated" (gint64 fn_id, gint64 cf_id)   a row was clicked: its event's Function and
 *                                                     trace (0: none)
 */

G_END_DECLS
