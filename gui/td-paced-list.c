/* td-paced-list.c — a paced window on the tail of an append-only list model (see
 * td-paced-list.h).
 *
 * The window is the source's items [base, base + shown). Appends are announced at the next
 * beat, when the window also slides to keep at most `max_items`; items the source drops from
 * its front are forgotten silently while they lie before the window.
 */
#include "td-paced-list.h"

struct _TdPacedList {
  GObject parent;
  GListModel *source; /* owned, or NULL */
  gulong handler;     /* its items-changed handler */
  guint base;         /* source position of this model's first item */
  guint shown;        /* items this model has announced */
  guint max_items;    /* the most it shows */
  guint interval_ms;  /* the pace */
  guint timeout_id;   /* pending beat, or 0 */
};

static GType
paced_get_item_type(GListModel *model)
{
  TdPacedList *self = TD_PACED_LIST(model);
  return self->source ? g_list_model_get_item_type(self->source) : G_TYPE_OBJECT;
}

static guint
paced_get_n_items(GListModel *model)
{
  return TD_PACED_LIST(model)->shown;
}

static gpointer
paced_get_item(GListModel *model, guint position)
{
  TdPacedList *self = TD_PACED_LIST(model);
  if (!self->source || position >= self->shown)
    return NULL;
  return g_list_model_get_item(self->source, self->base + position);
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

static guint
source_n(TdPacedList *self)
{
  return self->source ? g_list_model_get_n_items(self->source) : 0;
}

/* Everything anew: the last max_items of the source. */
static void
reset_window(TdPacedList *self)
{
  g_clear_handle_id(&self->timeout_id, g_source_remove);
  guint n = source_n(self), old = self->shown;
  self->base = n > self->max_items ? n - self->max_items : 0;
  self->shown = n - self->base;
  if (old || self->shown)
    g_list_model_items_changed(G_LIST_MODEL(self), 0, old, self->shown);
}

void
td_paced_list_flush(TdPacedList *self)
{
  g_return_if_fail(TD_IS_PACED_LIST(self));
  g_clear_handle_id(&self->timeout_id, g_source_remove);
  guint n = source_n(self);
  if (n < self->base + self->shown) { /* not an append after all */
    reset_window(self);
    return;
  }
  guint total = n - self->base;
  if (total > self->max_items) { /* slide: the oldest leave the front */
    guint slide = total - self->max_items;
    guint gone = MIN(slide, self->shown);
    self->base += slide;
    self->shown -= gone;
    if (gone)
      g_list_model_items_changed(G_LIST_MODEL(self), 0, gone, 0);
  }
  guint before = self->shown;
  self->shown = n - self->base;
  if (self->shown > before)
    g_list_model_items_changed(G_LIST_MODEL(self), before, 0, self->shown - before);
}

static gboolean
on_beat(gpointer user_data)
{
  TdPacedList *self = TD_PACED_LIST(user_data);
  self->timeout_id = 0;
  td_paced_list_flush(self);
  return G_SOURCE_REMOVE;
}

static void
on_source_changed(GListModel *source, guint position, guint removed, guint added,
                  gpointer user_data)
{
  TdPacedList *self = TD_PACED_LIST(user_data);
  if (removed == 0 && position >= self->base + self->shown) { /* appended: at the next beat */
    if (self->timeout_id == 0)
      self->timeout_id = g_timeout_add(self->interval_ms, on_beat, self);
    return;
  }
  if (added == 0 && position == 0 && removed <= self->base + self->shown) { /* dropped oldest */
    guint before_window = MIN(removed, self->base);
    guint gone = removed - before_window;
    self->base -= before_window;
    if (gone) {
      self->base = 0;
      self->shown -= gone;
      g_list_model_items_changed(G_LIST_MODEL(self), 0, gone, 0);
    }
    return;
  }
  reset_window(self);
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
  reset_window(self);
}

static void
td_paced_list_dispose(GObject *object)
{
  TdPacedList *self = TD_PACED_LIST(object);
  g_clear_handle_id(&self->timeout_id, g_source_remove);
  if (self->source)
    g_clear_signal_handler(&self->handler, self->source);
  g_clear_object(&self->source);
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
