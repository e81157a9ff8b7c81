/* td-graph-view.c — TdGraphView: a traced graph drawn from its TdGraphLayout (see
 * td-graph-view.h).
 *
 * The view maps graph points to widget pixels as `widget = graph * scale + offset`. Layouts
 * come from GTasks run in GLib's worker pool; each finished one goes into a small LRU cache
 * keyed by ConcreteFunction id (with a hash of its JSON, in case an id is reused after a
 * kernel restart), and is shown if it is still the one asked for.
 */
#include "td-graph-view.h"

#include <math.h>

/* Layouts kept for instant re-selection. */
#define CACHE_SIZE 64
/* Zoom limits, and the margin around a fitted graph, in pixels. */
#define MIN_SCALE  0.02
#define MAX_SCALE  4.0
#define FIT_MARGIN 16.0
/* Below this scale node text is unreadable and is not drawn. */
#define TEXT_MIN_SCALE 0.3

/* One cached layout. */
typedef struct {
  gint64 cf_id;          /* ConcreteFunction id */
  guint hash;            /* g_str_hash of its JSON */
  TdGraphLayout *layout; /* owned */
} CacheEntry;

/* What a worker lays out. */
typedef struct {
  gint64 cf_id;    /* for the cache */
  guint hash;      /* for the cache */
  char *json;      /* the graph */
  char **expanded; /* the name scopes shown open */
} LayoutJob;

struct _TdGraphView {
  GtkWidget parent_instance;

  GQueue cache;                /* CacheEntry*, most recently used first */
  const TdGraphLayout *layout; /* shown, borrowed from the cache */
  gint64 cf_id;                /* asked for */
  guint hash;                  /* its JSON's hash */
  bool waiting;                /* the graph asked for is being laid out */
  char *error;                 /* why the last layout failed, or NULL */
  GCancellable *cancellable;   /* cancelled on dispose, so late layouts are dropped */
  GPtrArray *texts;            /* PangoLayout* per node, made when first drawn */

  double scale;      /* pixels per graph point */
  double ox, oy;     /* widget position of the graph's origin */
  bool fit_wanted;   /* zoom to fit once the widget has a size */
  double drag_ox;    /* offset when a drag began */
  double drag_oy;    /* offset when a drag began */
  bool dragged;      /* the press moved beyond a click: its release selects nothing */
  bool minimap_drag; /* the press was on the minimap: a drag moves the view there */
  double drag_x;     /* where the drag began, in widget pixels */
  double drag_y;
  double pinch_scale; /* scale when a pinch began */
  double pointer_x;   /* last pointer position, for zooming around it */
  double pointer_y;   /* last pointer position */

  char *json;          /* the shown trace's graph, for laying it out with other scopes open */
  GPtrArray *expanded; /* the name scopes shown open (char *), for this trace */
  guint json_hash;     /* g_str_hash of json; self->hash mixes in the open scopes */

  char *search;       /* casefolded search text, or NULL */
  guint8 *matches;    /* per node: matches the search */
  guint n_matches;    /* how many do */
  int current;        /* the match shown last (next/previous go on from it), or -1 */
  int selected;       /* selected node, or -1 */
  GtkWidget *popover; /* node details */
  GtkWidget *details; /* the popover's label */
};

G_DEFINE_FINAL_TYPE(TdGraphView, td_graph_view, GTK_TYPE_WIDGET)

enum { SIG_NODE_ACTIVATED, SIG_MATCHES_CHANGED, N_SIGNALS };

/* Pixels a press may move and still be a click. */
#define DRAG_SLOP 3.0
static guint signals[N_SIGNALS];

/* ---- colours -------------------------------------------------------------------------------- */

/* Node fills by kind, light and dark. */
typedef enum {
  KIND_OP,
  KIND_ARG,
  KIND_CONST,
  KIND_STATE,
  KIND_FLOW,
  KIND_PROXY,
  KIND_GROUP,
  N_KINDS
} Kind;
static const char *const kind_fill[N_KINDS][2] = {
    [KIND_OP] = {"#ffffff", "#303034"},    [KIND_ARG] = {"#cfe3f7", "#24405c"},
    [KIND_CONST] = {"#e8e8e8", "#3d3d40"}, [KIND_STATE] = {"#f7c9c9", "#5c2a2a"},
    [KIND_GROUP] = {"#e2d6f0", "#3f3352"}, [KIND_FLOW] = {"#e2d5f2", "#3f3257"},
    [KIND_PROXY] = {"#f4f4f4", "#2a2a2d"},
};

static Kind
node_kind(const TdGraphNode *node)
{
  if (node->proxy_of >= 0)
    return KIND_PROXY;
  if (node->group)
    return KIND_GROUP;
  if (g_str_equal(node->op, "Placeholder"))
    return KIND_ARG;
  if (g_str_equal(node->op, "Const"))
    return KIND_CONST;
  if (node->stateful)
    return KIND_STATE;
  if (g_str_has_suffix(node->op, "While") || g_str_has_suffix(node->op, "If"))
    return KIND_FLOW;
  return KIND_OP;
}

static GdkRGBA
rgba(const char *spec, float alpha)
{
  GdkRGBA c;
  gdk_rgba_parse(&c, spec);
  c.alpha *= alpha;
  return c;
}

/* The widget's foreground colour: light text means a dark theme. */
static GdkRGBA
foreground(GtkWidget *widget)
{
  GdkRGBA fg;
#if GTK_CHECK_VERSION(4, 10, 0)
  gtk_widget_get_color(widget, &fg);
#else
  gtk_style_context_get_color(gtk_widget_get_style_context(widget), &fg);
#endif
  return fg;
}

static bool
is_dark(const GdkRGBA *fg)
{
  return 0.299 * fg->red + 0.587 * fg->green + 0.114 * fg->blue > 0.5;
}

/* ---- the cache ------------------------------------------------------------------------------ */

static void
cache_entry_free(gpointer data)
{
  CacheEntry *entry = data;
  td_graph_layout_free(entry->layout);
  g_free(entry);
}

/* The cached layout of (cf_id, hash), moved to the front; NULL when not cached. */
static const TdGraphLayout *
cache_lookup(TdGraphView *self, gint64 cf_id, guint hash)
{
  for (GList *l = self->cache.head; l; l = l->next) {
    CacheEntry *entry = l->data;
    if (entry->cf_id != cf_id || entry->hash != hash)
      continue;
    g_queue_unlink(&self->cache, l);
    g_queue_push_head_link(&self->cache, l);
    return entry->layout;
  }
  return NULL;
}

/* Add a layout (transfer full) at the front, dropping the least recently used beyond the
 * bound; the shown layout is never dropped (it is always among the newest). */
static void
cache_add(TdGraphView *self, gint64 cf_id, guint hash, TdGraphLayout *layout)
{
  CacheEntry *entry = g_new(CacheEntry, 1);
  *entry = (CacheEntry){cf_id, hash, layout};
  g_queue_push_head(&self->cache, entry);
  while (self->cache.length > CACHE_SIZE) {
    CacheEntry *old = g_queue_peek_tail(&self->cache);
    if (old->layout == self->layout)
      break;
    cache_entry_free(g_queue_pop_tail(&self->cache));
  }
}

/* ---- showing a layout ----------------------------------------------------------------------- */

static void
clear_search_marks(TdGraphView *self)
{
  self->current = -1;
  g_clear_pointer(&self->matches, g_free);
  self->n_matches = 0;
}

static void centre_on_node(TdGraphView *self, int node);
static void reset_texts(TdGraphView *self);

static void mark_matches_in_layout(TdGraphView *self);

/* The matches of the search in the layout shown; whoever shows their count hears of every
 * change (a new trace or layout changes them as a new search text does). */
static void
mark_matches(TdGraphView *self)
{
  mark_matches_in_layout(self);
  g_signal_emit(self, signals[SIG_MATCHES_CHANGED], 0, self->n_matches);
}

static void
mark_matches_in_layout(TdGraphView *self)
{
  clear_search_marks(self);
  if (!self->layout || !self->search)
    return;
  guint n = td_graph_layout_n_nodes(self->layout);
  self->matches = g_new0(guint8, MAX(n, 1));
  int first = -1;
  for (guint i = 0; i < n; i++) {
    self->matches[i] = td_graph_layout_node_matches(self->layout, i, self->search);
    self->n_matches += self->matches[i];
    if (self->matches[i] && first < 0)
      first = (int)i;
  }
  self->current = first;
  if (first >= 0)
    centre_on_node(self, first);
}

int
td_graph_view_next_match(TdGraphView *self, gboolean backwards)
{
  g_return_val_if_fail(TD_IS_GRAPH_VIEW(self), 0);
  if (!self->layout || !self->matches || self->n_matches == 0)
    return 0;
  int n = (int)td_graph_layout_n_nodes(self->layout);
  int at = self->current < 0 ? (backwards ? 0 : n - 1) : self->current;
  for (int step = 1; step <= n; step++) {
    int i = ((at + (backwards ? -step : step)) % n + n) % n;
    if (self->matches[i]) {
      self->current = i;
      break;
    }
  }
  centre_on_node(self, self->current);
  gtk_widget_queue_draw(GTK_WIDGET(self));
  return td_graph_view_get_current_match(self);
}

int
td_graph_view_get_current_match(TdGraphView *self)
{
  g_return_val_if_fail(TD_IS_GRAPH_VIEW(self), 0);
  if (!self->matches || self->current < 0)
    return 0;
  int ordinal = 0;
  for (int i = 0; i <= self->current; i++)
    ordinal += self->matches[i];
  return ordinal;
}

static void
show_layout(TdGraphView *self, const TdGraphLayout *layout)
{
  self->layout = layout;
  self->selected = -1;
  reset_texts(self);
  gtk_popover_popdown(GTK_POPOVER(self->popover));
  td_graph_view_zoom_fit(self);
  mark_matches(self);
  gtk_widget_queue_draw(GTK_WIDGET(self));
}

static void
layout_job_free(gpointer data)
{
  LayoutJob *job = data;
  g_free(job->json);
  g_strfreev(job->expanded);
  g_free(job);
}

static void
layout_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  LayoutJob *job = data;
  GError *error = NULL;
  TdGraphLayout *layout =
      td_graph_layout_new_from_json_scoped(job->json, (const char *const *)job->expanded, &error);
  if (layout)
    g_task_return_pointer(task, layout, (GDestroyNotify)td_graph_layout_free);
  else
    g_task_return_error(task, error);
}

static void
layout_done(GObject *source, GAsyncResult *result, gpointer user_data)
{
  TdGraphView *self = TD_GRAPH_VIEW(source);
  LayoutJob *job = g_task_get_task_data(G_TASK(result));
  g_autoptr(GError) error = NULL;
  TdGraphLayout *layout = g_task_propagate_pointer(G_TASK(result), &error);
  if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  bool wanted = self->waiting && job->cf_id == self->cf_id && job->hash == self->hash;
  if (layout)
    cache_add(self, job->cf_id, job->hash, layout);
  if (!wanted)
    return;
  self->waiting = false;
  g_free(self->error);
  self->error = error ? g_strdup(error->message) : NULL;
  show_layout(self, layout);
}

/* The cache's key for the shown JSON with the open scopes (an open scope changes the drawing). */
static guint
expanded_hash(TdGraphView *self, guint json_hash)
{
  guint h = json_hash;
  for (guint i = 0; i < self->expanded->len; i++)
    h ^= g_str_hash(self->expanded->pdata[i]) * 2654435761u;
  return h;
}

static void lay_out(TdGraphView *self, gint64 cf_id, guint hash, const char *graph_json);

void
td_graph_view_set_trace(TdGraphView *self, gint64 cf_id, const char *graph_json)
{
  g_return_if_fail(TD_IS_GRAPH_VIEW(self));
  guint json_hash = graph_json ? g_str_hash(graph_json) : 0;
  if (cf_id != self->cf_id || json_hash != self->json_hash)
    g_ptr_array_set_size(self->expanded, 0); /* another graph: its scopes start closed */
  guint hash = expanded_hash(self, json_hash);
  bool same = cf_id == self->cf_id && hash == self->hash && (self->layout || self->waiting);
  if (same && graph_json)
    return;
  self->json_hash = json_hash;
  g_free(self->json);
  self->json = g_strdup(graph_json);
  lay_out(self, cf_id, hash, graph_json);
}

/* Shows (cf_id, hash)'s layout, from the cache or laid out in a worker. */
static void
lay_out(TdGraphView *self, gint64 cf_id, guint hash, const char *graph_json)
{
  self->cf_id = cf_id;
  self->hash = hash;
  self->waiting = false;
  g_clear_pointer(&self->error, g_free);
  const TdGraphLayout *cached = graph_json ? cache_lookup(self, cf_id, hash) : NULL;
  if (cached || !graph_json) {
    show_layout(self, cached);
    return;
  }
  show_layout(self, NULL);
  self->waiting = true;
  LayoutJob *job = g_new(LayoutJob, 1);
  g_ptr_array_add(self->expanded, NULL);
  *job = (LayoutJob){cf_id, hash, g_strdup(graph_json), g_strdupv((char **)self->expanded->pdata)};
  g_ptr_array_set_size(self->expanded, self->expanded->len - 1);
  g_autoptr(GTask) task = g_task_new(self, self->cancellable, layout_done, NULL);
  g_task_set_task_data(task, job, layout_job_free);
  g_task_run_in_thread(task, layout_thread);
}

gboolean
td_graph_view_is_busy(TdGraphView *self)
{
  g_return_val_if_fail(TD_IS_GRAPH_VIEW(self), FALSE);
  return self->waiting;
}

const TdGraphLayout *
td_graph_view_get_layout(TdGraphView *self)
{
  g_return_val_if_fail(TD_IS_GRAPH_VIEW(self), NULL);
  return self->layout;
}

const char *
td_graph_view_get_error(TdGraphView *self)
{
  g_return_val_if_fail(TD_IS_GRAPH_VIEW(self), NULL);
  return self->error;
}

/* ---- zoom, pan, search ---------------------------------------------------------------------- */

static void
set_view(TdGraphView *self, double scale, double ox, double oy)
{
  self->scale = CLAMP(scale, MIN_SCALE, MAX_SCALE);
  self->ox = ox;
  self->oy = oy;
  gtk_widget_queue_allocate(GTK_WIDGET(self)); /* the popover follows its node */
  gtk_widget_queue_draw(GTK_WIDGET(self));
}

/* Zoom by `factor` keeping the graph point under widget position (x, y) in place. */
static void
zoom_at(TdGraphView *self, double factor, double x, double y)
{
  double scale = CLAMP(self->scale * factor, MIN_SCALE, MAX_SCALE);
  double gx = (x - self->ox) / self->scale, gy = (y - self->oy) / self->scale;
  set_view(self, scale, x - gx * scale, y - gy * scale);
}

void
td_graph_view_zoom(TdGraphView *self, double factor)
{
  g_return_if_fail(TD_IS_GRAPH_VIEW(self) && factor > 0);
  if (!self->layout)
    return;
  zoom_at(self, factor, gtk_widget_get_width(GTK_WIDGET(self)) / 2.0,
          gtk_widget_get_height(GTK_WIDGET(self)) / 2.0);
}

void
td_graph_view_zoom_fit(TdGraphView *self)
{
  g_return_if_fail(TD_IS_GRAPH_VIEW(self));
  int w = gtk_widget_get_width(GTK_WIDGET(self)), h = gtk_widget_get_height(GTK_WIDGET(self));
  self->fit_wanted = w <= 0 || h <= 0;
  if (!self->layout || self->fit_wanted)
    return;
  double gw, gh;
  td_graph_layout_get_size(self->layout, &gw, &gh);
  double scale = MIN((w - 2 * FIT_MARGIN) / MAX(gw, 1), (h - 2 * FIT_MARGIN) / MAX(gh, 1));
  if (scale < TEXT_MIN_SCALE / 2) {
    /* Too big to see whole (a training step is thousands of layers deep): its width, from the
     * top, where the inputs are; where even the width is too wide to read, the first node at
     * a readable scale. The minimap shows the rest. */
    scale = MIN((w - 2 * FIT_MARGIN) / MAX(gw, 1), 1.0);
    if (scale >= TEXT_MIN_SCALE) {
      set_view(self, scale, MAX((w - gw * scale) / 2, FIT_MARGIN), FIT_MARGIN);
      return;
    }
    const TdGraphBox *first = &td_graph_layout_get_node(self->layout, 0)->box;
    scale = 0.8;
    set_view(self, scale, w / 2.0 - (first->x + first->width / 2) * scale,
             FIT_MARGIN - first->y * scale);
    return;
  }
  scale = CLAMP(MIN(scale, 1.5), MIN_SCALE, MAX_SCALE);
  set_view(self, scale, (w - gw * scale) / 2, (h - gh * scale) / 2);
}

static void
centre_on_node(TdGraphView *self, int node)
{
  const TdGraphBox *b = &td_graph_layout_get_node(self->layout, (guint)node)->box;
  double scale = MAX(self->scale, 0.8);
  int w = gtk_widget_get_width(GTK_WIDGET(self)), h = gtk_widget_get_height(GTK_WIDGET(self));
  self->fit_wanted = false;
  set_view(self, scale, w / 2.0 - (b->x + b->width / 2) * scale,
           h / 2.0 - (b->y + b->height / 2) * scale);
}

void
td_graph_view_search(TdGraphView *self, const char *text)
{
  g_return_if_fail(TD_IS_GRAPH_VIEW(self));
  g_clear_pointer(&self->search, g_free);
  if (text && text[0])
    self->search = g_utf8_casefold(text, -1);
  mark_matches(self);
  gtk_widget_queue_draw(GTK_WIDGET(self));
}

guint
td_graph_view_get_n_matches(TdGraphView *self)
{
  g_return_val_if_fail(TD_IS_GRAPH_VIEW(self), 0);
  return self->n_matches;
}

/* ---- details -------------------------------------------------------------------------------- */

static char *
details_markup(const TdGraphNode *node)
{
  if (node->group)
    return g_markup_printf_escaped("<b>%s</b>  a name scope of %'u nodes\n"
                                   "Double-click to open it; C closes every scope again.",
                                   node->name, node->group);
  GString *s = g_string_new(NULL);
  g_autofree char *head = g_markup_printf_escaped("<b>%s</b>  %s", node->op, node->name);
  g_string_append(s, head);
  if (node->proxy_of >= 0)
    g_string_append(s, "  <i>(another use of this node)</i>");
  g_autofree char *inputs = node->inputs[0] ? g_strjoinv(", ", node->inputs) : g_strdup("none");
  g_autofree char *in = g_markup_printf_escaped("\n<b>Inputs</b>: %s", inputs);
  g_string_append(s, in);
  g_string_append(s, "\n<b>Outputs</b>:");
  g_auto(GStrv) outs = g_strsplit(node->outputs, "\n", -1);
  for (int i = 0; outs[i] && outs[i][0]; i++) {
    g_autofree char *line = g_markup_printf_escaped("\n  %d: %s", i, outs[i]);
    g_string_append(s, line);
  }
  if (!node->outputs[0])
    g_string_append(s, " none");
  if (node->site) {
    g_autofree char *site = g_markup_printf_escaped("\n<b>Made at</b>: %s", node->site);
    g_string_append(s, site);
  }
  if (node->value) {
    g_autofree char *value = g_markup_printf_escaped("\n<b>Value</b>:\n<tt>%s</tt>", node->value);
    g_string_append(s, value);
  }
  return g_string_free(s, FALSE);
}

void
td_graph_view_select_node(TdGraphView *self, int node)
{
  g_return_if_fail(TD_IS_GRAPH_VIEW(self));
  if (!self->layout || node < 0 || (guint)node >= td_graph_layout_n_nodes(self->layout)) {
    self->selected = -1;
    gtk_popover_popdown(GTK_POPOVER(self->popover));
    gtk_widget_queue_draw(GTK_WIDGET(self));
    return;
  }
  self->selected = node;
  const TdGraphNode *n = td_graph_layout_get_node(self->layout, (guint)node);
  g_autofree char *markup = details_markup(n);
  gtk_label_set_markup(GTK_LABEL(self->details), markup);
  gtk_popover_popup(GTK_POPOVER(self->popover));
  gtk_widget_queue_allocate(GTK_WIDGET(self));
  gtk_widget_queue_draw(GTK_WIDGET(self));
  g_signal_emit(self, signals[SIG_NODE_ACTIVATED], 0, n->name);
}

/* ---- input ---------------------------------------------------------------------------------- */

int
td_graph_view_node_at(TdGraphView *self, double x, double y)
{
  g_return_val_if_fail(TD_IS_GRAPH_VIEW(self), -1);
  if (!self->layout)
    return -1;
  return td_graph_layout_node_at(self->layout, (x - self->ox) / self->scale,
                                 (y - self->oy) / self->scale);
}

/* ---- the minimap: the whole graph, small, in a corner, with the part in view marked ---------- */

#define MINIMAP_W      180.0 /* largest size, pixels */
#define MINIMAP_H      140.0
#define MINIMAP_MARGIN 10.0

/* Where the minimap is (widget pixels) and its points per graph point; FALSE when the graph is
 * all in view (no minimap then). */
static bool
minimap_frame(TdGraphView *self, graphene_rect_t *frame, double *scale)
{
  if (!self->layout)
    return false;
  int w = gtk_widget_get_width(GTK_WIDGET(self)), h = gtk_widget_get_height(GTK_WIDGET(self));
  double gw, gh;
  td_graph_layout_get_size(self->layout, &gw, &gh);
  bool all_in_view = self->ox >= -1 && self->oy >= -1 && self->ox + gw * self->scale <= w + 1 &&
                     self->oy + gh * self->scale <= h + 1;
  if (all_in_view || gw <= 0 || gh <= 0 || w < 3 * MINIMAP_W || h < 2 * MINIMAP_H)
    return false;
  *scale = MIN(MINIMAP_W / gw, MINIMAP_H / gh);
  double mw = MAX(gw * *scale, 8), mh = MAX(gh * *scale, 8);
  *frame = GRAPHENE_RECT_INIT(w - mw - MINIMAP_MARGIN, h - mh - MINIMAP_MARGIN, mw, mh);
  return true;
}

/* A press at (x, y) on the minimap centres the view on that place of the graph; FALSE when
 * (x, y) is not on it. */
static bool
minimap_centre(TdGraphView *self, double x, double y)
{
  graphene_rect_t frame;
  double mscale;
  if (!minimap_frame(self, &frame, &mscale) ||
      !graphene_rect_contains_point(&frame, &GRAPHENE_POINT_INIT(x, y)))
    return false;
  double gx = (x - frame.origin.x) / mscale, gy = (y - frame.origin.y) / mscale;
  int w = gtk_widget_get_width(GTK_WIDGET(self)), h = gtk_widget_get_height(GTK_WIDGET(self));
  self->fit_wanted = false;
  set_view(self, self->scale, w / 2.0 - gx * self->scale, h / 2.0 - gy * self->scale);
  return true;
}

static void
draw_minimap(TdGraphView *self, GtkSnapshot *snapshot, GdkRGBA fg, bool dark)
{
  graphene_rect_t frame;
  double mscale;
  if (!minimap_frame(self, &frame, &mscale))
    return;
  GdkRGBA paper = rgba(dark ? "#242424" : "#fafafa", 0.92f);
  GdkRGBA ink = fg;
  ink.alpha *= 0.45f;
  gtk_snapshot_append_color(snapshot, &paper, &frame);
  for (guint i = 0; i < td_graph_layout_n_nodes(self->layout); i++) {
    const TdGraphBox *b = &td_graph_layout_get_node(self->layout, i)->box;
    gtk_snapshot_append_color(
        snapshot, &ink,
        &GRAPHENE_RECT_INIT(frame.origin.x + b->x * mscale, frame.origin.y + b->y * mscale,
                            MAX(b->width * mscale, 1), MAX(b->height * mscale, 1)));
  }
  /* the part in view */
  int w = gtk_widget_get_width(GTK_WIDGET(self)), h = gtk_widget_get_height(GTK_WIDGET(self));
  graphene_rect_t seen = GRAPHENE_RECT_INIT(frame.origin.x - self->ox / self->scale * mscale,
                                            frame.origin.y - self->oy / self->scale * mscale,
                                            w / self->scale * mscale, h / self->scale * mscale);
  graphene_rect_intersection(&seen, &frame, &seen);
  GdkRGBA accent = rgba(dark ? "#78aeed" : "#1c71d8", 1);
  GskRoundedRect outline;
  gsk_rounded_rect_init_from_rect(&outline, &seen, 0);
  gtk_snapshot_append_border(snapshot, &outline, (float[4]){1.5f, 1.5f, 1.5f, 1.5f},
                             (GdkRGBA[4]){accent, accent, accent, accent});
  GskRoundedRect border;
  gsk_rounded_rect_init_from_rect(&border, &frame, 0);
  gtk_snapshot_append_border(snapshot, &border, (float[4]){1, 1, 1, 1},
                             (GdkRGBA[4]){ink, ink, ink, ink});
}

static void
on_click(GtkGestureClick *gesture, int n_press, double x, double y, gpointer user_data)
{
  TdGraphView *self = TD_GRAPH_VIEW(user_data);
  gtk_widget_grab_focus(GTK_WIDGET(self));
  if (!self->layout || self->dragged || self->minimap_drag || minimap_centre(self, x, y))
    return;
  int node = td_graph_view_node_at(self, x, y);
  const TdGraphNode *n = node >= 0 ? td_graph_layout_get_node(self->layout, (guint)node) : NULL;
  if (n_press == 2 && n && n->group) {
    g_autofree char *scope = g_strndup(n->name, strlen(n->name) - 1); /* without the "/" */
    td_graph_view_open_scope(self, scope);
    return;
  }
  td_graph_view_select_node(self, node);
}

static void
on_drag_begin(GtkGestureDrag *gesture, double x, double y, gpointer user_data)
{
  TdGraphView *self = TD_GRAPH_VIEW(user_data);
  self->drag_ox = self->ox;
  self->drag_oy = self->oy;
  self->drag_x = x;
  self->drag_y = y;
  self->dragged = false;
  self->minimap_drag = minimap_centre(self, x, y);
}

static void
on_drag_update(GtkGestureDrag *gesture, double dx, double dy, gpointer user_data)
{
  TdGraphView *self = TD_GRAPH_VIEW(user_data);
  if (!self->dragged && fabs(dx) < DRAG_SLOP && fabs(dy) < DRAG_SLOP)
    return; /* a click, not yet a drag */
  self->dragged = true;
  if (self->minimap_drag)
    minimap_centre(self, self->drag_x + dx, self->drag_y + dy);
  else
    set_view(self, self->scale, self->drag_ox + dx, self->drag_oy + dy);
}

static gboolean
on_scroll(GtkEventControllerScroll *scroll, double dx, double dy, gpointer user_data)
{
  TdGraphView *self = TD_GRAPH_VIEW(user_data);
  GdkModifierType mods = gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(scroll));
  if (mods & GDK_CONTROL_MASK) {
    zoom_at(self, pow(1.15, -dy), self->pointer_x, self->pointer_y);
    return TRUE;
  }
  double step = gtk_event_controller_scroll_get_unit(scroll) == GDK_SCROLL_UNIT_WHEEL ? 40 : 1;
  if (mods & GDK_SHIFT_MASK) {
    dx = dy;
    dy = 0;
  }
  set_view(self, self->scale, self->ox - dx * step, self->oy - dy * step);
  return TRUE;
}

static void
on_motion(GtkEventControllerMotion *motion, double x, double y, gpointer user_data)
{
  TdGraphView *self = TD_GRAPH_VIEW(user_data);
  self->pointer_x = x;
  self->pointer_y = y;
}

static void
on_pinch_begin(GtkGesture *gesture, GdkEventSequence *sequence, gpointer user_data)
{
  TdGraphView *self = TD_GRAPH_VIEW(user_data);
  self->pinch_scale = self->scale;
}

static void
on_pinch(GtkGestureZoom *gesture, double scale, gpointer user_data)
{
  TdGraphView *self = TD_GRAPH_VIEW(user_data);
  double x, y;
  if (!gtk_gesture_get_bounding_box_center(GTK_GESTURE(gesture), &x, &y)) {
    x = gtk_widget_get_width(GTK_WIDGET(self)) / 2.0;
    y = gtk_widget_get_height(GTK_WIDGET(self)) / 2.0;
  }
  zoom_at(self, self->pinch_scale * scale / self->scale, x, y);
}

/* Keys: what each does (zoom factor, or 0 for fit). */
static const struct {
  guint keyval;  /* GDK key */
  double factor; /* zoom factor; 0: fit */
} zoom_keys[] = {
    {GDK_KEY_plus, 1.25},       {GDK_KEY_equal, 1.25}, {GDK_KEY_KP_Add, 1.25}, {GDK_KEY_minus, 0.8},
    {GDK_KEY_KP_Subtract, 0.8}, {GDK_KEY_0, 0},        {GDK_KEY_KP_0, 0},
};

static gboolean
on_key(GtkEventControllerKey *key, guint keyval, guint keycode, GdkModifierType state,
       gpointer user_data)
{
  TdGraphView *self = TD_GRAPH_VIEW(user_data);
  for (size_t i = 0; i < G_N_ELEMENTS(zoom_keys); i++) {
    if (zoom_keys[i].keyval != keyval)
      continue;
    if (zoom_keys[i].factor == 0)
      td_graph_view_zoom_fit(self);
    else
      zoom_at(self, zoom_keys[i].factor, gtk_widget_get_width(GTK_WIDGET(self)) / 2.0,
              gtk_widget_get_height(GTK_WIDGET(self)) / 2.0);
    return TRUE;
  }
  if (keyval == GDK_KEY_Escape && self->selected >= 0) {
    td_graph_view_select_node(self, -1);
    return TRUE;
  }
  if ((keyval == GDK_KEY_c || keyval == GDK_KEY_C) && self->expanded->len > 0) {
    td_graph_view_close_scopes(self);
    return TRUE;
  }
  return FALSE;
}

void
td_graph_view_open_scope(TdGraphView *self, const char *scope)
{
  g_return_if_fail(TD_IS_GRAPH_VIEW(self) && scope != NULL);
  if (!self->json)
    return;
  for (guint i = 0; i < self->expanded->len; i++)
    if (g_str_equal(self->expanded->pdata[i], scope))
      return;
  g_ptr_array_add(self->expanded, g_strdup(scope));
  lay_out(self, self->cf_id, expanded_hash(self, self->json_hash), self->json);
}

void
td_graph_view_get_visible(TdGraphView *self, double *x, double *y, double *width, double *height)
{
  g_return_if_fail(TD_IS_GRAPH_VIEW(self));
  *x = -self->ox / self->scale;
  *y = -self->oy / self->scale;
  *width = gtk_widget_get_width(GTK_WIDGET(self)) / self->scale;
  *height = gtk_widget_get_height(GTK_WIDGET(self)) / self->scale;
}

void
td_graph_view_close_scopes(TdGraphView *self)
{
  g_return_if_fail(TD_IS_GRAPH_VIEW(self));
  if (!self->json || self->expanded->len == 0)
    return;
  g_ptr_array_set_size(self->expanded, 0);
  lay_out(self, self->cf_id, expanded_hash(self, self->json_hash), self->json);
}

static void
add_controllers(TdGraphView *self)
{
  GtkWidget *widget = GTK_WIDGET(self);
  GtkGesture *click = gtk_gesture_click_new();
  g_signal_connect(click, "released", G_CALLBACK(on_click), self);
  gtk_widget_add_controller(widget, GTK_EVENT_CONTROLLER(click));
  GtkGesture *drag = gtk_gesture_drag_new();
  g_signal_connect(drag, "drag-begin", G_CALLBACK(on_drag_begin), self);
  g_signal_connect(drag, "drag-update", G_CALLBACK(on_drag_update), self);
  gtk_widget_add_controller(widget, GTK_EVENT_CONTROLLER(drag));
  GtkEventController *scroll =
      gtk_event_controller_scroll_new(GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  g_signal_connect(scroll, "scroll", G_CALLBACK(on_scroll), self);
  gtk_widget_add_controller(widget, scroll);
  GtkEventController *motion = gtk_event_controller_motion_new();
  g_signal_connect(motion, "motion", G_CALLBACK(on_motion), self);
  gtk_widget_add_controller(widget, motion);
  GtkGesture *pinch = gtk_gesture_zoom_new();
  g_signal_connect(pinch, "begin", G_CALLBACK(on_pinch_begin), self);
  g_signal_connect(pinch, "scale-changed", G_CALLBACK(on_pinch), self);
  gtk_widget_add_controller(widget, GTK_EVENT_CONTROLLER(pinch));
  GtkEventController *key = gtk_event_controller_key_new();
  g_signal_connect(key, "key-pressed", G_CALLBACK(on_key), self);
  gtk_widget_add_controller(widget, key);
}

/* ---- drawing -------------------------------------------------------------------------------- */

/* What one frame draws with. */
typedef struct {
  GtkSnapshot *snapshot;   /* target, in graph points */
  graphene_rect_t visible; /* the visible part of the graph, in graph points */
  GdkRGBA fg;              /* text and outlines */
  bool dark;               /* dark theme */
  bool text;               /* scale large enough for text */
} Frame;

static graphene_rect_t
box_rect(const TdGraphBox *b)
{
  return GRAPHENE_RECT_INIT(b->x, b->y, b->width, b->height);
}

static void
draw_text(TdGraphView *self, Frame *f, PangoLayout *text, double x, double y)
{
  gtk_snapshot_save(f->snapshot);
  gtk_snapshot_translate(f->snapshot, &GRAPHENE_POINT_INIT(x, y));
  gtk_snapshot_append_layout(f->snapshot, text, &f->fg);
  gtk_snapshot_restore(f->snapshot);
}

static void
draw_rounded(Frame *f, const graphene_rect_t *r, float radius, const GdkRGBA *fill,
             const GdkRGBA *border, float width)
{
  GskRoundedRect rr;
  gsk_rounded_rect_init_from_rect(&rr, r, radius);
  gtk_snapshot_push_rounded_clip(f->snapshot, &rr);
  gtk_snapshot_append_color(f->snapshot, fill, r);
  gtk_snapshot_pop(f->snapshot);
  const float widths[4] = {width, width, width, width};
  const GdkRGBA colors[4] = {*border, *border, *border, *border};
  gtk_snapshot_append_border(f->snapshot, &rr, widths, colors);
}

static void
draw_clusters(TdGraphView *self, Frame *f)
{
  g_autoptr(PangoLayout) text = gtk_widget_create_pango_layout(GTK_WIDGET(self), NULL);
  for (guint c = 0; c < td_graph_layout_n_clusters(self->layout); c++) {
    const TdGraphCluster *cl = td_graph_layout_get_cluster(self->layout, c);
    graphene_rect_t r = box_rect(&cl->box);
    if (!graphene_rect_intersection(&r, &f->visible, NULL))
      continue;
    static const char *const tints[] = {"#7a5cc7", "#3b8f6a", "#c7803b"};
    GdkRGBA fill = rgba(tints[cl->depth % 3], f->dark ? 0.16f : 0.09f);
    GdkRGBA border = rgba(tints[cl->depth % 3], 0.6f);
    draw_rounded(f, &r, 6, &fill, &border, 1);
    if (!f->text)
      continue;
    g_autofree char *markup =
        g_markup_printf_escaped("<small><b>%s</b> · %s</small>", cl->title, cl->owner);
    pango_layout_set_markup(text, markup, -1);
    pango_layout_set_width(text, (int)MAX(cl->box.width - 10, 1) * PANGO_SCALE);
    pango_layout_set_ellipsize(text, PANGO_ELLIPSIZE_END);
    draw_text(self, f, text, cl->box.x + 6, cl->box.y + 3);
  }
}

static void
draw_edge(cairo_t *cr, const TdGraphEdge *e)
{
  if (e->n_points < 1)
    return;
  cairo_set_dash(cr, (double[]){4, 3}, e->control ? 2 : 0, 0);
  cairo_move_to(cr, e->points[0].x, e->points[0].y);
  for (int k = 1; k + 2 < e->n_points; k += 3)
    cairo_curve_to(cr, e->points[k].x, e->points[k].y, e->points[k + 1].x, e->points[k + 1].y,
                   e->points[k + 2].x, e->points[k + 2].y);
  cairo_stroke(cr);
  if (!e->has_arrow)
    return;
  TdGraphPoint from = e->points[e->n_points - 1], tip = e->arrow_tip;
  double dx = tip.x - from.x, dy = tip.y - from.y, len = MAX(hypot(dx, dy), 1e-6);
  double nx = -dy / len * 3, ny = dx / len * 3;
  cairo_set_dash(cr, NULL, 0, 0);
  cairo_move_to(cr, tip.x, tip.y);
  cairo_line_to(cr, from.x + nx, from.y + ny);
  cairo_line_to(cr, from.x - nx, from.y - ny);
  cairo_close_path(cr);
  cairo_fill(cr);
}

static bool
edge_touches_selected(TdGraphView *self, const TdGraphEdge *e)
{
  return self->selected >= 0 && (e->from == self->selected || e->to == self->selected);
}

/* Edges go through cairo in widget coordinates, with the view's transform applied by cairo
 * itself: GTK 4.8 places cairo drawing made under a scaled snapshot at the wrong offset. */
/* Whether any of the edge's curve can be in `visible`: its control points' bounds meet it (a
 * graph of thousands of edges draws only those in view). */
static bool
edge_visible(const TdGraphEdge *e, const graphene_rect_t *visible)
{
  if (e->n_points < 1)
    return false;
  double x0 = e->points[0].x, x1 = x0, y0 = e->points[0].y, y1 = y0;
  for (int k = 1; k < e->n_points; k++) {
    x0 = MIN(x0, e->points[k].x);
    x1 = MAX(x1, e->points[k].x);
    y0 = MIN(y0, e->points[k].y);
    y1 = MAX(y1, e->points[k].y);
  }
  if (e->has_arrow) {
    x0 = MIN(x0, e->arrow_tip.x);
    x1 = MAX(x1, e->arrow_tip.x);
    y0 = MIN(y0, e->arrow_tip.y);
    y1 = MAX(y1, e->arrow_tip.y);
  }
  graphene_rect_t r = GRAPHENE_RECT_INIT(x0 - 4, y0 - 4, x1 - x0 + 8, y1 - y0 + 8);
  return graphene_rect_intersection(&r, visible, NULL);
}

static void
draw_edges(TdGraphView *self, Frame *f, double width, double height)
{
  cairo_t *cr = gtk_snapshot_append_cairo(f->snapshot, &GRAPHENE_RECT_INIT(0, 0, width, height));
  cairo_translate(cr, self->ox, self->oy);
  cairo_scale(cr, self->scale, self->scale);
  cairo_set_line_width(cr, 1.0);
  for (int pass = 0; pass < 2; pass++) { /* the selected node's edges on top, in colour */
    GdkRGBA colour = pass ? rgba(f->dark ? "#78aeed" : "#1c71d8", 1) : f->fg;
    if (!pass)
      colour.alpha *= 0.55f;
    gdk_cairo_set_source_rgba(cr, &colour);
    for (guint i = 0; i < td_graph_layout_n_edges(self->layout); i++) {
      const TdGraphEdge *e = td_graph_layout_get_edge(self->layout, i);
      if (edge_touches_selected(self, e) == (pass == 1) && edge_visible(e, &f->visible))
        draw_edge(cr, e);
    }
  }
  cairo_destroy(cr);
}

/* The node's text, made once per layout shown. */
static PangoLayout *
node_text(TdGraphView *self, guint i, const TdGraphNode *node)
{
  PangoLayout *text = self->texts->pdata[i];
  if (text)
    return text;
  g_autofree char *markup =
      node->proxy_of >= 0 ? g_markup_printf_escaped("<small>%s</small>", node->name)
      : node->group
          ? g_markup_printf_escaped("<b>%s</b>\n%'u nodes", node->name, node->group)
          : g_markup_printf_escaped("<b>%s</b>\n%s%s<small>%s</small>", node->op, node->name,
                                    node->outputs[0] ? "\n" : "", node->outputs);
  text = gtk_widget_create_pango_layout(GTK_WIDGET(self), NULL);
  pango_layout_set_markup(text, markup, -1);
  pango_layout_set_alignment(text, PANGO_ALIGN_CENTER);
  self->texts->pdata[i] = text;
  return text;
}

static void
draw_node_text(TdGraphView *self, Frame *f, guint i, const TdGraphNode *node)
{
  PangoLayout *text = node_text(self, i, node);
  int tw, th;
  pango_layout_get_pixel_size(text, &tw, &th);
  const TdGraphBox *b = &node->box;
  /* boxes are sized by Graphviz's estimate of this text: shrink it when it does not fit */
  double fit = MIN(1.0, MIN((b->width - 4) / MAX(tw, 1), (b->height - 2) / MAX(th, 1)));
  gtk_snapshot_save(f->snapshot);
  gtk_snapshot_translate(f->snapshot, &GRAPHENE_POINT_INIT(b->x + (b->width - tw * fit) / 2,
                                                           b->y + (b->height - th * fit) / 2));
  gtk_snapshot_scale(f->snapshot, fit, fit);
  gtk_snapshot_append_layout(f->snapshot, text, &f->fg);
  gtk_snapshot_restore(f->snapshot);
}

static void
draw_nodes(TdGraphView *self, Frame *f)
{
  GdkRGBA accent = rgba(f->dark ? "#78aeed" : "#1c71d8", 1);
  GdkRGBA found = rgba(f->dark ? "#c88800" : "#f6d32d", 1);
  for (guint i = 0; i < td_graph_layout_n_nodes(self->layout); i++) {
    const TdGraphNode *node = td_graph_layout_get_node(self->layout, i);
    graphene_rect_t r = box_rect(&node->box);
    if (!graphene_rect_intersection(&r, &f->visible, NULL))
      continue;
    bool match = self->matches && self->matches[i];
    GdkRGBA fill = match ? found : rgba(kind_fill[node_kind(node)][f->dark], 1);
    GdkRGBA border = f->fg;
    border.alpha *= node->proxy_of >= 0 ? 0.35f : 0.7f;
    float width = 1;
    if ((int)i == self->selected || (match && (int)i == self->current)) {
      border = accent; /* the selected node, or the match shown last */
      width = 2.5f;
    }
    draw_rounded(f, &r, node->proxy_of >= 0 ? 8 : 4, &fill, &border, width);
    if (f->text)
      draw_node_text(self, f, i, node);
  }
}

static void
draw_message(TdGraphView *self, GtkSnapshot *snapshot, const char *message)
{
  g_autoptr(PangoLayout) text = gtk_widget_create_pango_layout(GTK_WIDGET(self), message);
  int tw, th;
  pango_layout_get_pixel_size(text, &tw, &th);
  GdkRGBA fg = foreground(GTK_WIDGET(self));
  fg.alpha *= 0.6f;
  gtk_snapshot_save(snapshot);
  gtk_snapshot_translate(
      snapshot, &GRAPHENE_POINT_INIT((gtk_widget_get_width(GTK_WIDGET(self)) - tw) / 2.0,
                                     (gtk_widget_get_height(GTK_WIDGET(self)) - th) / 2.0));
  gtk_snapshot_append_layout(snapshot, text, &fg);
  gtk_snapshot_restore(snapshot);
}

/* A graph too big for Graphviz says, in a corner, that its drawing is the quick one. */
static void
draw_note(TdGraphView *self, GtkSnapshot *snapshot, guint boxes)
{
  g_autofree char *note = g_strdup_printf(
      "%'u boxes: too many for Graphviz, laid out in layers (edges may cross)", boxes);
  g_autoptr(PangoLayout) text = gtk_widget_create_pango_layout(GTK_WIDGET(self), note);
  GdkRGBA fg = foreground(GTK_WIDGET(self));
  fg.alpha *= 0.7f;
  gtk_snapshot_save(snapshot);
  gtk_snapshot_translate(snapshot, &GRAPHENE_POINT_INIT(8, 6));
  gtk_snapshot_append_layout(snapshot, text, &fg);
  gtk_snapshot_restore(snapshot);
}

static void
td_graph_view_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
  TdGraphView *self = TD_GRAPH_VIEW(widget);
  int w = gtk_widget_get_width(widget), h = gtk_widget_get_height(widget);
  if (!self->layout) {
    g_autofree char *why =
        self->error ? g_strdup_printf("Could not lay out the graph: %s", self->error) : NULL;
    draw_message(self, snapshot,
                 why             ? why
                 : self->waiting ? "Laying out the graph…"
                                 : "No graph to show");
    return;
  }
  Frame f = {.snapshot = snapshot, .fg = foreground(widget), .text = self->scale >= TEXT_MIN_SCALE};
  f.dark = is_dark(&f.fg);
  f.visible = GRAPHENE_RECT_INIT(-self->ox / self->scale, -self->oy / self->scale, w / self->scale,
                                 h / self->scale);
  gtk_snapshot_push_clip(snapshot, &GRAPHENE_RECT_INIT(0, 0, w, h));
  gtk_snapshot_save(snapshot);
  gtk_snapshot_translate(snapshot, &GRAPHENE_POINT_INIT(self->ox, self->oy));
  gtk_snapshot_scale(snapshot, self->scale, self->scale);
  draw_clusters(self, &f);
  gtk_snapshot_restore(snapshot);
  draw_edges(self, &f, w, h);
  gtk_snapshot_save(snapshot);
  gtk_snapshot_translate(snapshot, &GRAPHENE_POINT_INIT(self->ox, self->oy));
  gtk_snapshot_scale(snapshot, self->scale, self->scale);
  draw_nodes(self, &f);
  gtk_snapshot_restore(snapshot);
  if (td_graph_layout_is_quick(self->layout))
    draw_note(self, snapshot, td_graph_layout_n_nodes(self->layout));
  draw_minimap(self, snapshot, f.fg, f.dark);
  gtk_snapshot_pop(snapshot);
}

/* ---- the widget ----------------------------------------------------------------------------- */

static void
td_graph_view_measure(GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum,
                      int *natural, int *minimum_baseline, int *natural_baseline)
{
  *minimum = 50;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 400 : 300;
}

static void
td_graph_view_size_allocate(GtkWidget *widget, int width, int height, int baseline)
{
  TdGraphView *self = TD_GRAPH_VIEW(widget);
  if (self->fit_wanted && width > 0 && height > 0)
    td_graph_view_zoom_fit(self);
  if (self->layout && self->selected >= 0) {
    const TdGraphBox *b = &td_graph_layout_get_node(self->layout, (guint)self->selected)->box;
    GdkRectangle at = {(int)(b->x * self->scale + self->ox), (int)(b->y * self->scale + self->oy),
                       MAX(1, (int)(b->width * self->scale)),
                       MAX(1, (int)(b->height * self->scale))};
    gtk_popover_set_pointing_to(GTK_POPOVER(self->popover), &at);
  }
  gtk_popover_present(GTK_POPOVER(self->popover));
}

/* Forget the nodes' text layouts (a new layout, or new fonts). */
static void
reset_texts(TdGraphView *self)
{
  g_ptr_array_set_size(self->texts, 0);
  if (self->layout)
    g_ptr_array_set_size(self->texts, td_graph_layout_n_nodes(self->layout));
}

static void
unref_text(gpointer text)
{
  if (text)
    g_object_unref(text);
}

static void
td_graph_view_css_changed(GtkWidget *widget, GtkCssStyleChange *change)
{
  GTK_WIDGET_CLASS(td_graph_view_parent_class)->css_changed(widget, change);
  reset_texts(TD_GRAPH_VIEW(widget));
  gtk_widget_queue_draw(widget);
}

static void
td_graph_view_dispose(GObject *object)
{
  TdGraphView *self = TD_GRAPH_VIEW(object);
  g_cancellable_cancel(self->cancellable);
  g_clear_pointer(&self->popover, gtk_widget_unparent);
  self->layout = NULL;
  g_queue_clear_full(&self->cache, cache_entry_free);
  g_clear_pointer(&self->texts, g_ptr_array_unref);
  G_OBJECT_CLASS(td_graph_view_parent_class)->dispose(object);
}

static void
td_graph_view_finalize(GObject *object)
{
  TdGraphView *self = TD_GRAPH_VIEW(object);
  g_clear_object(&self->cancellable);
  g_free(self->error);
  g_free(self->search);
  g_free(self->matches);
  g_free(self->json);
  g_ptr_array_unref(self->expanded);
  G_OBJECT_CLASS(td_graph_view_parent_class)->finalize(object);
}

static void
td_graph_view_class_init(TdGraphViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS(klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
  object_class->dispose = td_graph_view_dispose;
  object_class->finalize = td_graph_view_finalize;
  widget_class->snapshot = td_graph_view_snapshot;
  widget_class->measure = td_graph_view_measure;
  widget_class->size_allocate = td_graph_view_size_allocate;
  widget_class->css_changed = td_graph_view_css_changed;
  gtk_widget_class_set_css_name(widget_class, "graphview");
  signals[SIG_NODE_ACTIVATED] =
      g_signal_new("node-activated", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                   NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[SIG_MATCHES_CHANGED] =
      g_signal_new("matches-changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                   NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
}

static void
td_graph_view_init(TdGraphView *self)
{
  g_queue_init(&self->cache);
  self->cancellable = g_cancellable_new();
  self->texts = g_ptr_array_new_with_free_func(unref_text);
  self->expanded = g_ptr_array_new_with_free_func(g_free);
  self->scale = 1.0;
  self->selected = -1;
  self->details = gtk_label_new(NULL);
  gtk_label_set_selectable(GTK_LABEL(self->details), TRUE);
  gtk_label_set_wrap(GTK_LABEL(self->details), TRUE);
  gtk_label_set_max_width_chars(GTK_LABEL(self->details), 60);
  gtk_label_set_xalign(GTK_LABEL(self->details), 0);
  self->popover = gtk_popover_new();
  gtk_popover_set_child(GTK_POPOVER(self->popover), self->details);
  gtk_popover_set_autohide(GTK_POPOVER(self->popover), TRUE);
  gtk_widget_set_parent(self->popover, GTK_WIDGET(self));
  gtk_widget_set_focusable(GTK_WIDGET(self), TRUE);
  gtk_widget_set_overflow(GTK_WIDGET(self), GTK_OVERFLOW_HIDDEN);
  add_controllers(self);
}

GtkWidget *
td_graph_view_new(void)
{
  return g_object_new(TD_TYPE_GRAPH_VIEW, NULL);
}
