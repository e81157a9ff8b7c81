/* td-paced-list.h — the event log's rows: the newest events of a list of TdEventItem, shown
 * by rows that keep their places while their content moves.
 *
 * A table following a stream of 100,000 events a second cannot afford new row widgets for
 * every change (GTK 4.8 makes a row's widgets anew for each new item). Here the rows are a
 * fixed set of TdEventItem whose events change ("changed" signal): at most every `interval_ms`
 * row k is pointed at the k-th of the newest `max_items` source items, and the model itself
 * only grows or shrinks when the number of rows does, at its top, so that the bottom rows a
 * following reader sees keep their widgets. A short list (under a tall view's worth of rows)
 * grows a few rows a beat, so that a view never makes a screenful of row widgets in one
 * frame. While paused (a reader scrolled up), the rows stay as they are until flushed.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define TD_TYPE_PACED_LIST (td_paced_list_get_type())
G_DECLARE_FINAL_TYPE(TdPacedList, td_paced_list, TD, PACED_LIST, GObject)

/* Rows for the newest `max_items` of `source` (a GListModel of TdEventItem, may be NULL).
 * Transfer full. */
TdPacedList *td_paced_list_new(GListModel *source, guint interval_ms, guint max_items);
void td_paced_list_set_source(TdPacedList *self, GListModel *source);
/* Point the rows at the source's newest items now (also while paused). */
void td_paced_list_flush(TdPacedList *self);
/* Hold the rows still (TRUE) or let them follow the source again (FALSE: flushes). */
void td_paced_list_set_paused(TdPacedList *self, gboolean paused);

G_END_DECLS
