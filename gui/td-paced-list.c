/* td-paced-list.c — the event log's rows (see td-paced-list.h). */
#include "td-paced-list.h"

#include "td-store.h"

/* A list shorter than this grows RAMP_STEP rows every RAMP_MS (a tall window's view). */
#define RAMP_ROWS 208
#define RAMP_STEP 6
#define RAMP_MS   25

struct _TdPacedList {
  GObject parent;
  GListModel *source; /* of TdEventItem; owned, or NULL */
  gulong handler;     /* its items-changed handler */
  GPtrArray *rows;    /* TdEventItem*, owned: what this model lists */
  guint max_items;    /* the most rows */
  guint interval_ms;  /* the pace */
  guint timeout_id;   /* pending beat, or 0 */
  gboolean paused;    /* rows held still */
  gboolean dirty;     /* the source changed while paused */
};

static GType
paced_get_item_type(GListModel *model)
{
  return TD_TYPE_EVENT_ITEM;
}

static guint
paced_get_n_items(GListModel *model)
{
  return TD_PACED_LIST(model)->rows->len;
}

static gpointer
paced_get_item(GListModel *model, guint position)
{
  TdPacedList *self = TD_PACED_LIST(model);
  return position < self->rows->len ? g_object_ref(self->rows->pdata[position]) : NULL;
}

static void
paced_model_init(GListModelInterface *iface)
{
  iface->get_item_type = paced_get_item_type;
  iface->get_n_items = paced_get_n_items;
  iface->get_item = paced_get_item;
}

G_DEFINE_FINAL_TYPE_WITH_CODE(TdPacedList, td_paced_list, G_TYPE_OBJECT,
                              G_IMPLEMENT_INTERFACE(G_TYPE_LIST_MODEL, paced_model_init))

/* The event of source item `position` (borrowed while the source keeps it), or NULL. */
static const TrEvent *
source_event(TdPacedList *self, guint position, TdEventItem **holder)
{
  *holder = g_list_model_get_item(self->source, position);
  return *holder && TD_IS_EVENT_ITEM(*holder) ? td_event_item_get_event(*holder) : NULL;
}

/* Show the newest rows of the source, adding at most `grow_limit` rows (0: no limit). TRUE
 * when the rows are all there. */
static gboolean
sync_rows(TdPacedList *self, guint grow_limit)
{
  g_clear_handle_id(&self->timeout_id, g_source_remove);
  self->dirty = FALSE;
  guint n_source = self->source ? g_list_model_get_n_items(self->source) : 0;
  guint n = MIN(n_source, self->max_items), old = self->rows->len;
  if (grow_limit && n > old + grow_limit)
    n = old + grow_limit;
  /* New rows go in at the top: the rows a following reader sees, at the bottom, stay the same
   * objects (and widgets); rows that go leave from the top too. */
  if (n > old) {
    for (guint i = 0; i < n - old; i++)
      g_ptr_array_insert(self->rows, 0, td_event_item_new(NULL));
  } else if (n < old)
    g_ptr_array_remove_range(self->rows, 0, old - n);
  for (guint i = 0; i < n; i++) {
    g_autoptr(TdEventItem) holder = NULL;
    td_event_item_set_event(self->rows->pdata[i], source_event(self, n_source - n + i, &holder));
  }
  if (n > old)
    g_list_model_items_changed(G_LIST_MODEL(self), 0, 0, n - old);
  else if (n < old)
    g_list_model_items_changed(G_LIST_MODEL(self), 0, old - n, 0);
  return n == MIN(n_source, self->max_items);
}

void
td_paced_list_flush(TdPacedList *self)
{
  g_return_if_fail(TD_IS_PACED_LIST(self));
  sync_rows(self, 0);
}

static gboolean
on_beat(gpointer user_data)
{
  TdPacedList *self = TD_PACED_LIST(user_data);
  self->timeout_id = 0;
  /* While the list is short, every new row is in view and gets its widgets made at once: it
   * grows a few rows a beat, on a quicker beat, until it fills a view. */
  gboolean short_list = self->rows->len < RAMP_ROWS;
  if (!sync_rows(self, short_list ? RAMP_STEP : 0) && short_list)
    self->timeout_id = g_timeout_add(RAMP_MS, on_beat, self);
  return G_SOURCE_REMOVE;
}

static void
on_source_changed(GListModel *source, guint position, guint removed, guint added,
                  gpointer user_data)
{
  TdPacedList *self = TD_PACED_LIST(user_data);
  if (self->paused)
    self->dirty = TRUE;
  else if (self->timeout_id == 0)
    self->timeout_id = g_timeout_add(self->interval_ms, on_beat, self);
}

void
td_paced_list_set_paused(TdPacedList *self, gboolean paused)
{
  g_return_if_fail(TD_IS_PACED_LIST(self));
  self->paused = paused;
  if (!paused && self->dirty)
    td_paced_list_flush(self);
}

void
td_paced_list_set_source(TdPacedList *self, GListModel *source)
{
  g_return_if_fail(TD_IS_PACED_LIST(self));
  if (self->source) {
    g_clear_signal_handler(&self->handler, self->source);
    g_clear_object(&self->source);
  }
  self->source = source ? g_object_ref(source) : NULL;
  if (source)
    self->handler = g_signal_connect(source, "items-changed", G_CALLBACK(on_source_changed), self);
  td_paced_list_flush(self);
}

static void
td_paced_list_dispose(GObject *object)
{
  TdPacedList *self = TD_PACED_LIST(object);
  g_clear_handle_id(&self->timeout_id, g_source_remove);
  if (self->source)
    g_clear_signal_handler(&self->handler, self->source);
  g_clear_object(&self->source);
  g_clear_pointer(&self->rows, g_ptr_array_unref);
  G_OBJECT_CLASS(td_paced_list_parent_class)->dispose(object);
}

static void
td_paced_list_class_init(TdPacedListClass *klass)
{
  G_OBJECT_CLASS(klass)->dispose = td_paced_list_dispose;
}

static void
td_paced_list_init(TdPacedList *self)
{
  self->rows = g_ptr_array_new_with_free_func(g_object_unref);
}

TdPacedList *
td_paced_list_new(GListModel *source, guint interval_ms, guint max_items)
{
  TdPacedList *self = g_object_new(TD_TYPE_PACED_LIST, NULL);
  self->interval_ms = MAX(interval_ms, 1);
  self->max_items = MAX(max_items, 1);
  td_paced_list_set_source(self, source);
  return self;
}
