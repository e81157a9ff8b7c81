/* td-store.c — the debugger's data with signals and list models (see td-store.h).
 *
 * The Functions model is a GListStore of TdFunctionItem; each item caches the values it shows
 * and notifies only those that a batch changed. The events model is a GListModel of its own,
 * a window over the state's kept events whose items are made when a view asks for them. */
#include "td-store.h"

#include <gio/gio.h>
#include <jansson.h>

#include <string.h>

/* ---- TdFunctionItem ----------------------------------------------------------------------- */

struct _TdFunctionItem {
  GObject parent;
  const TrStateFn *fn; /* borrowed from the store's state */
  guint64 calls;       /* the values last notified */
  guint64 hits;
  guint64 misses;
  guint64 eager;
  guint64 warnings;
  gint64 trace_ns;
  char *last_cause; /* owned, may be NULL */
  char *label;      /* owned: how the table names it among Functions of the same name */
  guint64 seen_seq; /* fn->changed_seq when last refreshed */
};

enum {
  FN_PROP_0,
  FN_PROP_ID,
  FN_PROP_NAME,
  FN_PROP_CALLS,
  FN_PROP_HITS,
  FN_PROP_MISSES,
  FN_PROP_EAGER,
  FN_PROP_HIT_RATE,
  FN_PROP_TRACE_MS,
  FN_PROP_LAST_CAUSE,
  FN_PROP_LABEL,
  FN_PROP_WARNINGS,
  FN_N_PROPS
};
static GParamSpec *fn_props[FN_N_PROPS];

G_DEFINE_FINAL_TYPE(TdFunctionItem, td_function_item, G_TYPE_OBJECT)

static void
td_function_item_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  TdFunctionItem *self = TD_FUNCTION_ITEM(object);
  switch (id) {
    case FN_PROP_ID:
      g_value_set_int64(value, self->fn->id);
      break;
    case FN_PROP_NAME:
      g_value_set_string(value, self->fn->name);
      break;
    case FN_PROP_CALLS:
      g_value_set_uint64(value, self->calls);
      break;
    case FN_PROP_HITS:
      g_value_set_uint64(value, self->hits);
      break;
    case FN_PROP_MISSES:
      g_value_set_uint64(value, self->misses);
      break;
    case FN_PROP_EAGER:
      g_value_set_uint64(value, self->eager);
      break;
    case FN_PROP_HIT_RATE:
      g_value_set_double(value, tr_state_fn_hit_rate(self->fn));
      break;
    case FN_PROP_TRACE_MS:
      g_value_set_double(value, (double)self->trace_ns / 1e6);
      break;
    case FN_PROP_LAST_CAUSE:
      g_value_set_string(value, self->last_cause);
      break;
    case FN_PROP_LABEL:
      g_value_set_string(value, self->label ? self->label : self->fn->name);
      break;
    case FN_PROP_WARNINGS:
      g_value_set_uint64(value, self->warnings);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
  }
}

static void
td_function_item_finalize(GObject *object)
{
  TdFunctionItem *self = TD_FUNCTION_ITEM(object);
  g_free(self->last_cause);
  g_free(self->label);
  G_OBJECT_CLASS(td_function_item_parent_class)->finalize(object);
}

static void
td_function_item_class_init(TdFunctionItemClass *klass)
{
  GObjectClass *oc = G_OBJECT_CLASS(klass);
  oc->get_property = td_function_item_get_property;
  oc->finalize = td_function_item_finalize;
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;
  fn_props[FN_PROP_ID] = g_param_spec_int64("id", NULL, NULL, 0, G_MAXINT64, 0, ro);
  fn_props[FN_PROP_NAME] = g_param_spec_string("name", NULL, NULL, NULL, ro);
  fn_props[FN_PROP_CALLS] = g_param_spec_uint64("calls", NULL, NULL, 0, G_MAXUINT64, 0, ro);
  fn_props[FN_PROP_HITS] = g_param_spec_uint64("hits", NULL, NULL, 0, G_MAXUINT64, 0, ro);
  fn_props[FN_PROP_MISSES] = g_param_spec_uint64("misses", NULL, NULL, 0, G_MAXUINT64, 0, ro);
  fn_props[FN_PROP_EAGER] = g_param_spec_uint64("eager", NULL, NULL, 0, G_MAXUINT64, 0, ro);
  fn_props[FN_PROP_WARNINGS] = g_param_spec_uint64("warnings", NULL, NULL, 0, G_MAXUINT64, 0, ro);
  fn_props[FN_PROP_HIT_RATE] = g_param_spec_double("hit-rate", NULL, NULL, 0, 1, 0, ro);
  fn_props[FN_PROP_TRACE_MS] = g_param_spec_double("trace-ms", NULL, NULL, 0, G_MAXDOUBLE, 0, ro);
  fn_props[FN_PROP_LAST_CAUSE] = g_param_spec_string("last-cause", NULL, NULL, NULL, ro);
  fn_props[FN_PROP_LABEL] = g_param_spec_string("label", NULL, NULL, NULL, ro);
  g_object_class_install_properties(oc, FN_N_PROPS, fn_props);
}

static void
td_function_item_init(TdFunctionItem *self)
{
}

const TrStateFn *
td_function_item_get_fn(TdFunctionItem *item)
{
  g_return_val_if_fail(TD_IS_FUNCTION_ITEM(item), NULL);
  return item->fn;
}

static TdFunctionItem *
function_item_new(const TrStateFn *fn)
{
  TdFunctionItem *item = g_object_new(TD_TYPE_FUNCTION_ITEM, NULL);
  item->fn = fn;
  return item;
}

#define REFRESH(field, prop)                                                                       \
  if (item->field != fn->field) {                                                                  \
    item->field = fn->field;                                                                       \
    g_object_notify_by_pspec(G_OBJECT(item), fn_props[prop]);                                      \
  }

/* Copies what changed from the Function and notifies it. Returns whether anything did. */
static bool
function_item_refresh(TdFunctionItem *item)
{
  const TrStateFn *fn = item->fn;
  if (item->seen_seq == fn->changed_seq && item->seen_seq != 0)
    return false;
  item->seen_seq = fn->changed_seq;
  g_object_freeze_notify(G_OBJECT(item));
  bool graph_calls_changed = item->hits != fn->hits || item->misses != fn->misses;
  REFRESH(calls, FN_PROP_CALLS);
  REFRESH(hits, FN_PROP_HITS);
  REFRESH(misses, FN_PROP_MISSES);
  REFRESH(eager, FN_PROP_EAGER);
  if (item->warnings != fn->warnings) { /* the name's badge shows them: its cell follows "label" */
    item->warnings = fn->warnings;
    g_object_notify_by_pspec(G_OBJECT(item), fn_props[FN_PROP_WARNINGS]);
    g_object_notify_by_pspec(G_OBJECT(item), fn_props[FN_PROP_LABEL]);
  }
  REFRESH(trace_ns, FN_PROP_TRACE_MS);
  if (graph_calls_changed)
    g_object_notify_by_pspec(G_OBJECT(item), fn_props[FN_PROP_HIT_RATE]);
  g_autofree char *cause = tr_state_fn_last_cause(fn);
  if (g_strcmp0(cause, item->last_cause) != 0) {
    g_free(item->last_cause);
    item->last_cause = g_steal_pointer(&cause);
    g_object_notify_by_pspec(G_OBJECT(item), fn_props[FN_PROP_LAST_CAUSE]);
  }
  g_object_thaw_notify(G_OBJECT(item));
  return true;
}

/* ---- TdEventItem -------------------------------------------------------------------------- */

struct _TdEventItem {
  GObject parent;
  TrEvent *event; /* owned reference */
};

G_DEFINE_FINAL_TYPE(TdEventItem, td_event_item, G_TYPE_OBJECT)

static guint event_item_changed_signal;

static void
td_event_item_finalize(GObject *object)
{
  tr_event_unref(TD_EVENT_ITEM(object)->event);
  G_OBJECT_CLASS(td_event_item_parent_class)->finalize(object);
}

static void
td_event_item_class_init(TdEventItemClass *klass)
{
  G_OBJECT_CLASS(klass)->finalize = td_event_item_finalize;
  /* "changed" (): the item shows another event. */
  event_item_changed_signal = g_signal_new("changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST,
                                           0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

TdEventItem *
td_event_item_new(const TrEvent *ev)
{
  TdEventItem *item = g_object_new(TD_TYPE_EVENT_ITEM, NULL);
  item->event = ev ? tr_event_ref((TrEvent *)ev) : NULL;
  return item;
}

void
td_event_item_set_event(TdEventItem *item, const TrEvent *ev)
{
  g_return_if_fail(TD_IS_EVENT_ITEM(item));
  /* The store makes a new TrEvent each time it is asked for one (tr_event_log_get): the same
   * event shown again is no change. */
  if (item->event == ev || (item->event && ev && item->event->seq == ev->seq &&
                            item->event->ts_ns == ev->ts_ns && item->event->kind == ev->kind))
    return;
  tr_event_unref(item->event);
  item->event = ev ? tr_event_ref((TrEvent *)ev) : NULL;
  g_signal_emit(item, event_item_changed_signal, 0);
}

static void
td_event_item_init(TdEventItem *self)
{
}

const TrEvent *
td_event_item_get_event(TdEventItem *item)
{
  g_return_val_if_fail(TD_IS_EVENT_ITEM(item), NULL);
  return item->event;
}

/* ---- the events model: a GListModel over the state's kept events ------------------------- */

#define TD_TYPE_EVENT_LIST (td_event_list_get_type())
G_DECLARE_FINAL_TYPE(TdEventList, td_event_list, TD, EVENT_LIST, GObject)

struct _TdEventList {
  GObject parent;
  TdStore *store; /* borrowed: the store owns this model */
};

static GType
event_list_get_item_type(GListModel *model)
{
  return TD_TYPE_EVENT_ITEM;
}

static guint event_list_get_n_items(GListModel *model);
static gpointer event_list_get_item(GListModel *model, guint position);

static void
event_list_model_init(GListModelInterface *iface)
{
  iface->get_item_type = event_list_get_item_type;
  iface->get_n_items = event_list_get_n_items;
  iface->get_item = event_list_get_item;
}

G_DEFINE_FINAL_TYPE_WITH_CODE(TdEventList, td_event_list, G_TYPE_OBJECT,
                              G_IMPLEMENT_INTERFACE(G_TYPE_LIST_MODEL, event_list_model_init))

static void
td_event_list_class_init(TdEventListClass *klass)
{
}

static void
td_event_list_init(TdEventList *self)
{
}

/* ---- TdStore ------------------------------------------------------------------------------ */

/* The most Functions a paced refresh (td_store_set_function_interval) adds at once: a table
 * makes a row of widgets for each visible one, and fifty rows at once stall a frame. */
#define FUNCTIONS_PER_BEAT 4

struct _TdStore {
  GObject parent;
  TrState *state;        /* owned */
  guint keep;            /* events kept by a state this store makes */
  GListStore *functions; /* TdFunctionItem, one per Function of `state` */
  TdEventList *events;   /* the events model */
  guint n_events_shown;  /* length of the events model as last announced */
  bool eager;            /* last eager value announced */
  guint64 paused_seq;    /* sequence number of the stop last announced (0: running) */
  guint fn_interval_ms;  /* refresh Functions at most this often (0: every batch) */
  guint fn_timeout_id;   /* pending refresh, or 0 */
};

enum {
  SIG_RESET,
  SIG_EVENTS_CHANGED,
  SIG_FUNCTION_CHANGED,
  SIG_EAGER_CHANGED,
  SIG_PAUSED_CHANGED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE(TdStore, td_store, G_TYPE_OBJECT)

static guint
event_list_get_n_items(GListModel *model)
{
  TdEventList *self = TD_EVENT_LIST(model);
  return self->store->n_events_shown;
}

static gpointer
event_list_get_item(GListModel *model, guint position)
{
  TdEventList *self = TD_EVENT_LIST(model);
  const TrEventLog *events = tr_state_event_log(self->store->state);
  if (position >= self->store->n_events_shown || position >= tr_event_log_length(events))
    return NULL;
  /* Events are kept as compact records: an item holds an event made for it. */
  g_autoptr(TrEvent) ev = tr_event_log_get(events, position);
  return td_event_item_new(ev);
}

static void
td_store_dispose(GObject *object)
{
  TdStore *self = TD_STORE(object);
  g_clear_handle_id(&self->fn_timeout_id, g_source_remove);
  g_clear_object(&self->functions);
  g_clear_object(&self->events);
  g_clear_pointer(&self->state, tr_state_free);
  G_OBJECT_CLASS(td_store_parent_class)->dispose(object);
}

static void
td_store_class_init(TdStoreClass *klass)
{
  GObjectClass *oc = G_OBJECT_CLASS(klass);
  oc->dispose = td_store_dispose;
  signals[SIG_RESET] = g_signal_new("reset", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                    NULL, NULL, G_TYPE_NONE, 0);
  signals[SIG_EVENTS_CHANGED] =
      g_signal_new("events-changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                   NULL, G_TYPE_NONE, 2, G_TYPE_UINT, G_TYPE_UINT);
  signals[SIG_FUNCTION_CHANGED] =
      g_signal_new("function-changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                   NULL, G_TYPE_NONE, 1, G_TYPE_INT64);
  signals[SIG_EAGER_CHANGED] =
      g_signal_new("eager-changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                   NULL, G_TYPE_NONE, 1, G_TYPE_BOOLEAN);
  signals[SIG_PAUSED_CHANGED] =
      g_signal_new("paused-changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                   NULL, G_TYPE_NONE, 1, G_TYPE_BOOLEAN);
}

static void
td_store_init(TdStore *self)
{
  self->functions = g_list_store_new(TD_TYPE_FUNCTION_ITEM);
  self->events = g_object_new(TD_TYPE_EVENT_LIST, NULL);
  self->events->store = self;
}

TdStore *
td_store_new(guint keep_events)
{
  TdStore *self = g_object_new(TD_TYPE_STORE, NULL);
  self->keep = keep_events;
  self->state = tr_state_new(keep_events);
  return self;
}

/* The qualified name in a Function's repr ("<function Model.__call__ at 0x…>"), or its name.
 * Transfer full. */
static char *
qualified_name(const TrStateFn *fn)
{
  const char *text = fn->text;
  const char *prefix = "<function ";
  if (text && g_str_has_prefix(text, prefix)) {
    const char *start = text + strlen(prefix), *end = strstr(start, " at ");
    if (end && end > start)
      return g_strndup(start, (gsize)(end - start));
  }
  return g_strdup(fn->name ? fn->name : "?");
}

/* Labels that tell Functions of one name apart (methods, `__call__`): the name while it is
 * unique, else the qualified name, and the id after it while even that is shared. */
static void
relabel_functions(TdStore *self)
{
  GListModel *model = G_LIST_MODEL(self->functions);
  guint n = g_list_model_get_n_items(model);
  g_autoptr(GHashTable) names = g_hash_table_new(g_str_hash, g_str_equal);
  g_autoptr(GHashTable) quals = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) qual_of = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; i < n; i++) {
    g_autoptr(TdFunctionItem) item = g_list_model_get_item(model, i);
    const char *name = item->fn->name ? item->fn->name : "?";
    g_hash_table_insert(names, (gpointer)name,
                        GUINT_TO_POINTER(GPOINTER_TO_UINT(g_hash_table_lookup(names, name)) + 1));
    char *qual = qualified_name(item->fn);
    g_ptr_array_add(qual_of, qual);
    g_hash_table_insert(quals, g_strdup(qual),
                        GUINT_TO_POINTER(GPOINTER_TO_UINT(g_hash_table_lookup(quals, qual)) + 1));
  }
  for (guint i = 0; i < n; i++) {
    g_autoptr(TdFunctionItem) item = g_list_model_get_item(model, i);
    const char *name = item->fn->name ? item->fn->name : "?";
    const char *qual = qual_of->pdata[i];
    g_autofree char *label = GPOINTER_TO_UINT(g_hash_table_lookup(names, name)) < 2 ? g_strdup(name)
                             : GPOINTER_TO_UINT(g_hash_table_lookup(quals, qual)) < 2
                                 ? g_strdup(qual)
                                 : g_strdup_printf("%s #%" G_GINT64_FORMAT, qual, item->fn->id);
    if (g_strcmp0(label, item->label) == 0)
      continue;
    g_free(item->label);
    item->label = g_steal_pointer(&label);
    g_object_notify_by_pspec(G_OBJECT(item), fn_props[FN_PROP_LABEL]);
  }
}

/* Items for Functions the model does not list yet. */
static void
append_new_functions(TdStore *self, guint limit)
{
  GPtrArray *fns = tr_state_functions(self->state);
  guint have = g_list_model_get_n_items(G_LIST_MODEL(self->functions));
  if (have >= fns->len)
    return;
  guint end = limit ? MIN(fns->len, have + limit) : fns->len;
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func(g_object_unref);
  for (guint i = have; i < end; i++) {
    TdFunctionItem *item = function_item_new(fns->pdata[i]);
    function_item_refresh(item);
    g_ptr_array_add(items, item);
  }
  g_list_store_splice(self->functions, have, 0, items->pdata, items->len);
  relabel_functions(self);
}

static void
announce_eager(TdStore *self)
{
  bool eager = tr_state_eager(self->state);
  if (eager == self->eager)
    return;
  self->eager = eager;
  g_signal_emit(self, signals[SIG_EAGER_CHANGED], 0, eager);
}

/* A new stop (another place after a step) is announced as well as a change of paused. */
static void
announce_paused(TdStore *self)
{
  const TrEvent *paused = tr_state_paused(self->state);
  guint64 seq = paused ? paused->seq : 0;
  if (seq == self->paused_seq)
    return;
  self->paused_seq = seq;
  g_signal_emit(self, signals[SIG_PAUSED_CHANGED], 0, paused != NULL);
}

void
td_store_load(TdStore *store, TrState *state)
{
  g_return_if_fail(TD_IS_STORE(store) && state != NULL);
  guint old_events = store->n_events_shown;
  tr_state_free(store->state);
  store->state = state;
  g_clear_handle_id(&store->fn_timeout_id, g_source_remove);
  guint n_fns = g_list_model_get_n_items(G_LIST_MODEL(store->functions));
  g_list_store_splice(store->functions, 0, n_fns, NULL, 0);
  append_new_functions(store, 0);
  store->n_events_shown = (guint)tr_event_log_length(tr_state_event_log(state));
  g_list_model_items_changed(G_LIST_MODEL(store->events), 0, old_events, store->n_events_shown);
  g_signal_emit(store, signals[SIG_RESET], 0);
  announce_eager(store);
  announce_paused(store);
}

/* New Functions listed (at most `limit`, 0: all), changed ones notified. */
static void
refresh_functions(TdStore *store, guint limit)
{
  guint known = g_list_model_get_n_items(G_LIST_MODEL(store->functions));
  append_new_functions(store, limit);
  guint n = g_list_model_get_n_items(G_LIST_MODEL(store->functions));
  for (guint i = 0; i < n; i++) {
    g_autoptr(TdFunctionItem) item = g_list_model_get_item(G_LIST_MODEL(store->functions), i);
    if (function_item_refresh(item) || i >= known)
      g_signal_emit(store, signals[SIG_FUNCTION_CHANGED], 0, item->fn->id);
  }
}

static gboolean
on_function_beat(gpointer user_data)
{
  TdStore *store = TD_STORE(user_data);
  store->fn_timeout_id = 0;
  refresh_functions(store, FUNCTIONS_PER_BEAT);
  /* The rest on the next beats. */
  if (g_list_model_get_n_items(G_LIST_MODEL(store->functions)) <
      tr_state_functions(store->state)->len)
    store->fn_timeout_id = g_timeout_add(store->fn_interval_ms, on_function_beat, store);
  return G_SOURCE_REMOVE;
}

void
td_store_set_function_interval(TdStore *store, guint interval_ms)
{
  g_return_if_fail(TD_IS_STORE(store));
  store->fn_interval_ms = interval_ms;
  if (interval_ms == 0 && store->fn_timeout_id) {
    g_clear_handle_id(&store->fn_timeout_id, g_source_remove);
    refresh_functions(store, 0);
  }
}

void
td_store_apply_events(TdStore *store, GPtrArray *events)
{
  g_return_if_fail(TD_IS_STORE(store) && events != NULL);
  guint64 dropped_before = tr_state_events_dropped(store->state);
  guint applied = 0;
  for (guint i = 0; i < events->len; i++)
    applied += tr_state_apply(store->state, events->pdata[i]);
  if (applied == 0)
    return;

  guint old_shown = store->n_events_shown;
  guint now = (guint)tr_event_log_length(tr_state_event_log(store->state));
  guint removed = (guint)(tr_state_events_dropped(store->state) - dropped_before);
  /* Two announcements, the model consistent at each: the oldest events went (the rest moved
   * to the front), then the new ones came at the end. */
  if (removed > 0) {
    store->n_events_shown = old_shown - removed;
    g_list_model_items_changed(G_LIST_MODEL(store->events), 0, removed, 0);
  }
  guint kept = store->n_events_shown;
  store->n_events_shown = now;
  g_list_model_items_changed(G_LIST_MODEL(store->events), kept, 0, now - kept);
  g_signal_emit(store, signals[SIG_EVENTS_CHANGED], 0, removed, now - (old_shown - removed));

  if (store->fn_interval_ms == 0)
    refresh_functions(store, 0);
  else if (store->fn_timeout_id == 0)
    store->fn_timeout_id = g_timeout_add(store->fn_interval_ms, on_function_beat, store);
  announce_eager(store);
  announce_paused(store);
}

const TrEvent *
td_store_get_paused(TdStore *store)
{
  g_return_val_if_fail(TD_IS_STORE(store), NULL);
  return tr_state_paused(store->state);
}

TrState *
td_store_get_state(TdStore *store)
{
  g_return_val_if_fail(TD_IS_STORE(store), NULL);
  return store->state;
}

GListModel *
td_store_get_functions(TdStore *store)
{
  g_return_val_if_fail(TD_IS_STORE(store), NULL);
  return G_LIST_MODEL(store->functions);
}

GListModel *
td_store_get_events(TdStore *store)
{
  g_return_val_if_fail(TD_IS_STORE(store), NULL);
  return G_LIST_MODEL(store->events);
}

gboolean
td_store_save_events(TdStore *store, const char *path, GError **error)
{
  g_return_val_if_fail(TD_IS_STORE(store) && path != NULL, FALSE);
  return tr_event_log_write_jsonl(tr_state_event_log(store->state),
                                  tr_state_events_missing(store->state), path, error);
}

gboolean
td_store_load_events_file(TdStore *store, const char *path, GError **error)
{
  g_return_val_if_fail(TD_IS_STORE(store) && path != NULL, FALSE);
  g_autofree char *text = NULL;
  if (!g_file_get_contents(path, &text, NULL, error))
    return FALSE;
  g_autoptr(GPtrArray) batch = g_ptr_array_new_with_free_func((GDestroyNotify)tr_event_unref);
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  gboolean ok = TRUE;
  for (int i = 0; ok && lines[i]; i++) {
    if (!*g_strstrip(lines[i]))
      continue;
    json_error_t jerr;
    json_t *obj = json_loads(lines[i], 0, &jerr); /* owned */
    /* The line saying how many earlier events a saved window had dropped is not an event. */
    if (obj && g_strcmp0(json_string_value(json_object_get(obj, "kind")), "dropped") == 0) {
      json_decref(obj);
      continue;
    }
    g_autoptr(GError) inner = NULL;
    TrEvent *ev = obj ? tr_event_from_json(obj, &inner) : NULL;
    json_decref(obj);
    if (!ev) {
      g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s, line %d: %s", path, i + 1,
                  inner ? inner->message : jerr.text);
      ok = FALSE;
      break;
    }
    g_ptr_array_add(batch, ev);
  }
  td_store_apply_events(store, batch);
  return ok;
}

gboolean
td_store_export_perfetto(TdStore *store, const char *path, GError **error)
{
  g_return_val_if_fail(TD_IS_STORE(store) && path != NULL, FALSE);
  return tr_event_log_write_perfetto(tr_state_event_log(store->state),
                                     tr_state_events_missing(store->state), path, error);
}
