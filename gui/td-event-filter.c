/* td-event-filter.c — the event log's filter (see td-event-filter.h). */
#include "td-event-filter.h"

#include <string.h>

#include "td-format.h"
#include "td-store.h"

struct _TdEventFilter {
  GtkFilter parent_instance;
  TrEventKind kind;   /* kind shown, or TR_EVENT_N_KINDS for all */
  TdEventGroup group; /* group shown, or TD_EVENT_GROUP_ALL */
  char *text;         /* search text as typed */
  char *folded;       /* the search text case-folded, "" when empty */
};

G_DEFINE_FINAL_TYPE(TdEventFilter, td_event_filter, GTK_TYPE_FILTER)

static gboolean
td_event_filter_match(GtkFilter *filter, gpointer item)
{
  TdEventFilter *self = TD_EVENT_FILTER(filter);
  if (!TD_IS_EVENT_ITEM(item))
    return FALSE;
  const TrEvent *ev = td_event_item_get_event(TD_EVENT_ITEM(item));
  return ev != NULL && td_event_in_group(ev, self->group) &&
         td_event_matches(ev, self->kind, self->folded);
}

static GtkFilterMatch
td_event_filter_get_strictness(GtkFilter *filter)
{
  TdEventFilter *self = TD_EVENT_FILTER(filter);
  if (self->kind == TR_EVENT_N_KINDS && self->group == TD_EVENT_GROUP_ALL && *self->folded == '\0')
    return GTK_FILTER_MATCH_ALL;
  return GTK_FILTER_MATCH_SOME;
}

static void
td_event_filter_finalize(GObject *object)
{
  TdEventFilter *self = TD_EVENT_FILTER(object);
  g_free(self->text);
  g_free(self->folded);
  G_OBJECT_CLASS(td_event_filter_parent_class)->finalize(object);
}

static void
td_event_filter_class_init(TdEventFilterClass *klass)
{
  GtkFilterClass *filter_class = GTK_FILTER_CLASS(klass);
  filter_class->match = td_event_filter_match;
  filter_class->get_strictness = td_event_filter_get_strictness;
  G_OBJECT_CLASS(klass)->finalize = td_event_filter_finalize;
}

static void
td_event_filter_init(TdEventFilter *self)
{
  self->kind = TR_EVENT_N_KINDS;
  self->text = g_strdup("");
  self->folded = g_strdup("");
}

TdEventFilter *
td_event_filter_new(void)
{
  return g_object_new(TD_TYPE_EVENT_FILTER, NULL);
}

void
td_event_filter_set_kind(TdEventFilter *self, TrEventKind kind)
{
  g_return_if_fail(TD_IS_EVENT_FILTER(self));
  g_return_if_fail(kind >= 0 && kind <= TR_EVENT_N_KINDS);
  if (kind == self->kind)
    return;
  GtkFilterChange change = GTK_FILTER_CHANGE_DIFFERENT;
  if (self->kind == TR_EVENT_N_KINDS)
    change = GTK_FILTER_CHANGE_MORE_STRICT;
  else if (kind == TR_EVENT_N_KINDS)
    change = GTK_FILTER_CHANGE_LESS_STRICT;
  self->kind = kind;
  gtk_filter_changed(GTK_FILTER(self), change);
}

TrEventKind
td_event_filter_get_kind(TdEventFilter *self)
{
  g_return_val_if_fail(TD_IS_EVENT_FILTER(self), TR_EVENT_N_KINDS);
  return self->kind;
}

void
td_event_filter_set_group(TdEventFilter *self, TdEventGroup group)
{
  g_return_if_fail(TD_IS_EVENT_FILTER(self));
  g_return_if_fail(group >= 0 && group < TD_EVENT_N_GROUPS);
  if (group == self->group)
    return;
  GtkFilterChange change = GTK_FILTER_CHANGE_DIFFERENT;
  if (self->group == TD_EVENT_GROUP_ALL)
    change = GTK_FILTER_CHANGE_MORE_STRICT;
  else if (group == TD_EVENT_GROUP_ALL)
    change = GTK_FILTER_CHANGE_LESS_STRICT;
  self->group = group;
  gtk_filter_changed(GTK_FILTER(self), change);
}

TdEventGroup
td_event_filter_get_group(TdEventFilter *self)
{
  g_return_val_if_fail(TD_IS_EVENT_FILTER(self), TD_EVENT_GROUP_ALL);
  return self->group;
}

GtkFilterChange
td_event_filter_text_change(const char *before, const char *after)
{
  if (strstr(after, before) != NULL)
    return GTK_FILTER_CHANGE_MORE_STRICT; /* every match of `after` contains `before` */
  if (strstr(before, after) != NULL)
    return GTK_FILTER_CHANGE_LESS_STRICT;
  return GTK_FILTER_CHANGE_DIFFERENT;
}

void
td_event_filter_set_text(TdEventFilter *self, const char *text)
{
  g_return_if_fail(TD_IS_EVENT_FILTER(self));
  if (text == NULL)
    text = "";
  g_autofree char *folded = g_utf8_casefold(text, -1);
  if (strcmp(folded, self->folded) == 0) {
    g_free(self->text);
    self->text = g_strdup(text);
    return;
  }
  GtkFilterChange change = td_event_filter_text_change(self->folded, folded);
  g_free(self->text);
  self->text = g_strdup(text);
  g_free(self->folded);
  self->folded = g_steal_pointer(&folded);
  gtk_filter_changed(GTK_FILTER(self), change);
}

const char *
td_event_filter_get_text(TdEventFilter *self)
{
  g_return_val_if_fail(TD_IS_EVENT_FILTER(self), "");
  return self->text;
}
