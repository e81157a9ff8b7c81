/* td-functions-view.h — the Functions table: one row per traced Function with its calls,
 * hits, misses, hit rate, tracing time and last retrace cause, sortable by every column and
 * kept live from a TdStore.
 */
#pragma once

#include <gtk/gtk.h>

#include "td-store.h"

G_BEGIN_DECLS

#define TD_TYPE_FUNCTIONS_VIEW (td_functions_view_get_type())
G_DECLARE_FINAL_TYPE(TdFunctionsView, td_functions_view, TD, FUNCTIONS_VIEW, GtkWidget)

GtkWidget *td_functions_view_new(void);
void td_functions_view_set_store(TdFunctionsView *self, TdStore *store);
/* The selected Function's id (0: none). */
gint64 td_functions_view_get_selected(TdFunctionsView *self);
/* Select the row of Function `fn_id` and scroll to it; FALSE when it has no row. */
gboolean td_functions_view_select(TdFunctionsView *self, gint64 fn_id);

/* A sorter for the Functions column `column_id` ("name", "calls", "hits", "misses",
 * "hit-rate", "trace-ms", "last-cause"), ordering TdFunctionItems by that property; NULL for an
 * unknown column. Transfer full. */
GtkSorter *td_functions_sorter_new(const char *column_id);
/* The text the column shows for `item`. Transfer full. */
char *td_functions_format_cell(const char *column_id, GObject *item);

/* Signals:
 *   "function-selected" (gint64 fn_id)   the selection moved (0: nothing selected)
 */

G_END_DECLS
