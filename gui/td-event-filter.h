/* td-event-filter.h — the event log's filter: a GtkFilter over TdEventItems by kind, by group
 * (errors, warnings) and by text. It tells its GtkFilterListModel how a change relates to the last
 * one (a longer search text only removes rows, a shorter one only adds), so the model refilters
 * incrementally.
 */
#pragma once

#include <gtk/gtk.h>

#include "td-format.h"
#include "tr-events.h"

G_BEGIN_DECLS

#define TD_TYPE_EVENT_FILTER (td_event_filter_get_type())
G_DECLARE_FINAL_TYPE(TdEventFilter, td_event_filter, TD, EVENT_FILTER, GtkFilter)

/* A filter that lets every event through. */
TdEventFilter *td_event_filter_new(void);
/* Only events of `kind` (TR_EVENT_N_KINDS: every kind). */
void td_event_filter_set_kind(TdEventFilter *self, TrEventKind kind);
TrEventKind td_event_filter_get_kind(TdEventFilter *self);
/* Only events of `group` (TD_EVENT_GROUP_ALL: no group condition); the kind condition holds
 * too. */
void td_event_filter_set_group(TdEventFilter *self, TdEventGroup group);
TdEventGroup td_event_filter_get_group(TdEventFilter *self);
/* Only events whose text contains `text`, ignoring case ("" or NULL: no text condition). */
void td_event_filter_set_text(TdEventFilter *self, const char *text);
const char *td_event_filter_get_text(TdEventFilter *self);

/* How going from search text `before` to `after` (both case-folded) changes the matches. */
GtkFilterChange td_event_filter_text_change(const char *before, const char *after);

G_END_DECLS
