/* td-store.h — the debugger's data: one TrState (core/trace/tr-state.h) fed from a TdClient,
 * with GObject signals and list models for the views.
 *
 * Everything here runs on the GTK main thread. Events arrive in batches (td_store_apply_events)
 * and each batch ends in one round of signals, not one per event, so that 100,000 events a
 * second do not flood the views: "events-changed" once per batch, "function-changed" once per
 * Function the batch touched, "eager-changed" when the switch moved, "paused-changed" when a
 * debugger paused the kernel or let it run, "reset" when a snapshot
 * replaced everything (attach, re-sync after a gap, kernel restart).
 *
 * Models: td_store_get_functions() is a GListModel of TdFunctionItem (one per Function, in
 * creation order; an item's properties notify when its Function changes, so a sorted
 * GtkColumnView re-sorts). td_store_get_events() is a GListModel of TdEventItem over the
 * state's kept events (items made on demand).
 */
#pragma once

#include <gio/gio.h>

#include "tr-state.h"

G_BEGIN_DECLS

/* One Function as a list item. Properties (read-only, notified when they change): "id",
 * "name", "calls", "hits", "misses", "eager", "hit-rate" (double), "trace-ms" (double),
 * "last-cause" (string), "label" (string: the name while no other Function has it, else the
 * qualified name, "Model.__call__", with " #id" after it while that too is shared). */
#define TD_TYPE_FUNCTION_ITEM (td_function_item_get_type())
G_DECLARE_FINAL_TYPE(TdFunctionItem, td_function_item, TD, FUNCTION_ITEM, GObject)
/* The Function behind the item (borrowed from the store's state; valid while the store lives
 * and no "reset" happened). */
const TrStateFn *td_function_item_get_fn(TdFunctionItem *item);

/* One event as a list item. */
#define TD_TYPE_EVENT_ITEM (td_event_item_get_type())
G_DECLARE_FINAL_TYPE(TdEventItem, td_event_item, TD, EVENT_ITEM, GObject)
const TrEvent *td_event_item_get_event(TdEventItem *item); /* borrowed */
/* A new item showing `ev` (a reference is taken; may be NULL). Transfer full. */
TdEventItem *td_event_item_new(const TrEvent *ev);
/* Show another event (a reference is taken); emits "changed" when it differs. An item used as a
 * row that keeps its place while its content moves (see td-paced-list.h). */
void td_event_item_set_event(TdEventItem *item, const TrEvent *ev);

#define TD_TYPE_STORE (td_store_get_type())
G_DECLARE_FINAL_TYPE(TdStore, td_store, TD, STORE, GObject)

/* An empty store keeping up to `keep_events` events (G_MAXUINT: all). */
TdStore *td_store_new(guint keep_events);
/* Replace everything with `state` (transfer full); emits "reset". */
void td_store_load(TdStore *store, TrState *state);
/* Apply a batch of TrEvent* in sequence order (borrowed); emits the signals above. */
void td_store_apply_events(TdStore *store, GPtrArray *events);
/* The debugger_stopped event in force while a debugger holds the kernel paused, or NULL when it
 * runs (tr_state_paused). Borrowed: valid until the next batch or snapshot. */
const TrEvent *td_store_get_paused(TdStore *store);
/* The state (borrowed; replaced on "reset"). */
TrState *td_store_get_state(TdStore *store);
GListModel *td_store_get_functions(TdStore *store); /* of TdFunctionItem, borrowed */
GListModel *td_store_get_events(TdStore *store);    /* of TdEventItem, borrowed */
/* Refresh the Functions' items and emit "function-changed" at most every `interval_ms` (0,
 * the default: after each batch). A window showing a live stream sets a short interval: its
 * table need not redraw a hundred times a second. Paced, new Functions join the list a few
 * at a time, one group a beat. */
void td_store_set_function_interval(TdStore *store, guint interval_ms);
/* The kept events as a Perfetto trace (tr_events_to_perfetto); when the window lacks the
 * session's first events (tr_state_events_missing), the trace starts by saying how many. */
gboolean td_store_export_perfetto(TdStore *store, const char *path, GError **error);
/* A session saved: the kept events as JSON lines, the format of `trellis --events` and of the
 * kernel's `--events` (the first line says how many earlier events were not kept, if any). */
gboolean td_store_save_events(TdStore *store, const char *path, GError **error);
/* A saved session (or an --events file) reopened: its events applied in order. FALSE with
 * `error` naming the first line that is not an event (the events before it are applied). */
gboolean td_store_load_events_file(TdStore *store, const char *path, GError **error);

/* Signals:
 *   "reset"            ()
 *   "events-changed"   (guint n_removed_front, guint n_added_back)
 *   "function-changed" (gint64 fn_id)   after its TdFunctionItem notified
 *   "eager-changed"    (gboolean enabled)
 *   "paused-changed"   (gboolean paused)   paused, running again, or paused elsewhere (a step)
 */

G_END_DECLS
