/* td-timeline.c — TdTimeline: lanes of calls over cell bands (see td-timeline.h).
 *
 * The widget is a label column at the left, a header row on top (cell labels and time ticks),
 * and the lanes. Time maps to x in the lanes area as `x = label_w + (t - t0) / ns_per_px`.
 * Until the user zooms the view fits everything; while `follow` holds, the newest time stays
 * at the right edge.
 */
#include "td-timeline.h"

#include <math.h>

#define LABEL_W       130.0 /* label column */
#define HEADER_H      34.0  /* cell labels, then time ticks */
#define LANE_H        22.0  /* one Function */
#define BOX_PAD       3.0   /* space above and below a call's box */
#define MIN_NS_PER_PX 0.01
#define MAX_NS_PER_PX 1e12

struct _TdTimeline {
  GtkWidget parent_instance;

  TdStore *store;       /* read from, owned */
  gulong reset_id;      /* its "reset" handler */
  gulong events_id;     /* its "events-changed" handler */
  TdTlIndex *index;     /* lanes and cells */
  GArray *boxes;        /* TdTlBox scratch for drawing */
  PangoLayout *text;    /* scratch for labels */
  GskRenderNode *names; /* the lanes' names as last drawn, or NULL */
  guint names_key;      /* what they were drawn for (lanes, names, scroll, size, colour) */

  double t0;              /* time at the lanes' left edge, ns */
  double ns_per_px;       /* zoom */
  double lane_scroll;     /* pixels of lanes scrolled off the top */
  bool fitted;            /* the user has not zoomed: show everything */
  bool follow;            /* keep the newest time at the right edge */
  double drag_t0;         /* t0 when a drag began */
  double drag_scroll;     /* lane_scroll when a drag began */
  double pinch_ns_per_px; /* zoom when a pinch began */
  double pointer_x;       /* last pointer position */
};

G_DEFINE_FINAL_TYPE(TdTimeline, td_timeline, GTK_TYPE_WIDGET)

enum { SIG_FUNCTION_ACTIVATED, N_SIGNALS };
static guint signals[N_SIGNALS];

/* ---- colours -------------------------------------------------------------------------------- */

/* Call colours by outcome, light and dark theme. */
static const char *const outcome_colour[TR_OUTCOME_N][2] = {
    [TR_OUTCOME_NONE] = {"#9a9996", "#77767b"},
    [TR_OUTCOME_HIT] = {"#26a269", "#33d17a"},
    [TR_OUTCOME_MISS] = {"#e66100", "#ffa348"},
    [TR_OUTCOME_EAGER] = {"#1c71d8", "#62a0ea"},
};
static const char *const trace_colour[2] = {"#a51d2d", "#f66151"};

static GdkRGBA
rgba(const char *spec, float alpha)
{
  GdkRGBA c;
  gdk_rgba_parse(&c, spec);
  c.alpha *= alpha;
  return c;
}

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

/* ---- geometry ------------------------------------------------------------------------------- */

static double
lanes_width(TdTimeline *self)
{
  return MAX(gtk_widget_get_width(GTK_WIDGET(self)) - LABEL_W, 1.0);
}

static double
max_lane_scroll(TdTimeline *self)
{
  double content = td_tl_index_n_lanes(self->index) * LANE_H;
  return MAX(0.0, content - (gtk_widget_get_height(GTK_WIDGET(self)) - HEADER_H));
}

/* The lane at widget y, or -1. */
static int
lane_at(TdTimeline *self, double y)
{
  if (y < HEADER_H)
    return -1;
  int lane = (int)floor((y - HEADER_H + self->lane_scroll) / LANE_H);
  return lane >= 0 && (guint)lane < td_tl_index_n_lanes(self->index) ? lane : -1;
}

static double
time_at(TdTimeline *self, double x)
{
  return self->t0 + (x - LABEL_W) * self->ns_per_px;
}

/* The zoom that shows everything: as far out as the view goes. */
static double
fit_ns_per_px(TdTimeline *self)
{
  gint64 first = td_tl_index_first_ts(self->index), last = td_tl_index_last_ts(self->index);
  return CLAMP((last - first) * 1.02 / lanes_width(self), MIN_NS_PER_PX, MAX_NS_PER_PX);
}

/* Fit everything, or follow the newest time, as the view's mode says. */
static void
update_view(TdTimeline *self)
{
  double width = lanes_width(self);
  gint64 first = td_tl_index_first_ts(self->index), last = td_tl_index_last_ts(self->index);
  if (self->fitted) {
    self->t0 = first;
    self->ns_per_px = fit_ns_per_px(self);
  } else if (self->follow && last > self->t0 + width * self->ns_per_px) {
    self->t0 = last - width * self->ns_per_px;
  }
  self->lane_scroll = CLAMP(self->lane_scroll, 0, max_lane_scroll(self));
}

/* After the user moved the view: no further out than everything and no earlier than the
 * first event (zooming out at the left edge went to negative time); follow again once the
 * newest time is back in sight. */
static void
user_moved(TdTimeline *self)
{
  double fit = fit_ns_per_px(self);
  self->fitted = self->ns_per_px >= fit;
  if (self->fitted)
    self->ns_per_px = fit;
  self->t0 = MAX(self->t0, (double)td_tl_index_first_ts(self->index));
  self->follow = self->t0 + lanes_width(self) * self->ns_per_px >= td_tl_index_last_ts(self->index);
  gtk_widget_queue_draw(GTK_WIDGET(self));
}

static void
zoom_at(TdTimeline *self, double factor, double x)
{
  x = MAX(x, LABEL_W);
  double t = time_at(self, x);
  self->ns_per_px = CLAMP(self->ns_per_px * factor, MIN_NS_PER_PX, MAX_NS_PER_PX);
  self->t0 = t - (x - LABEL_W) * self->ns_per_px;
  user_moved(self);
}

void
td_timeline_get_range(TdTimeline *self, gint64 *start_ns, gint64 *end_ns)
{
  g_return_if_fail(TD_IS_TIMELINE(self));
  update_view(self);
  if (start_ns)
    *start_ns = (gint64)self->t0;
  if (end_ns)
    *end_ns = (gint64)(self->t0 + lanes_width(self) * self->ns_per_px);
}

void
td_timeline_set_range(TdTimeline *self, gint64 start_ns, gint64 end_ns)
{
  g_return_if_fail(TD_IS_TIMELINE(self) && end_ns > start_ns);
  self->t0 = start_ns;
  self->ns_per_px = CLAMP((end_ns - start_ns) / lanes_width(self), MIN_NS_PER_PX, MAX_NS_PER_PX);
  user_moved(self);
}

void
td_timeline_fit_all(TdTimeline *self)
{
  g_return_if_fail(TD_IS_TIMELINE(self));
  self->fitted = true;
  self->follow = true;
  gtk_widget_queue_draw(GTK_WIDGET(self));
}

gboolean
td_timeline_get_fitted(TdTimeline *self)
{
  g_return_val_if_fail(TD_IS_TIMELINE(self), FALSE);
  return self->fitted;
}

gboolean
td_timeline_get_follow(TdTimeline *self)
{
  g_return_val_if_fail(TD_IS_TIMELINE(self), FALSE);
  return self->follow;
}

char *
td_timeline_get_notice(TdTimeline *self)
{
  g_return_val_if_fail(TD_IS_TIMELINE(self), NULL);
  if (!self->store)
    return NULL;
  guint64 missing = tr_state_events_missing(td_store_get_state(self->store));
  if (missing == 0)
    return NULL;
  return g_strdup_printf("%" G_GUINT64_FORMAT " earlier event%s not kept (not shown, not exported)",
                         missing, missing == 1 ? "" : "s");
}

TdStore *
td_timeline_get_store(TdTimeline *self)
{
  g_return_val_if_fail(TD_IS_TIMELINE(self), NULL);
  return self->store;
}

const TdTlIndex *
td_timeline_get_index(TdTimeline *self)
{
  g_return_val_if_fail(TD_IS_TIMELINE(self), NULL);
  return self->index;
}

/* ---- the store ------------------------------------------------------------------------------ */

static void
reindex(TdTimeline *self)
{
  td_tl_index_clear(self->index);
  if (self->store) {
    const TrEventLog *events = tr_state_event_log(td_store_get_state(self->store));
    TrEvent scratch;
    for (guint64 i = 0, n = tr_event_log_length(events); i < n; i++)
      td_tl_index_add(self->index, tr_event_log_peek(events, i, &scratch));
  }
  self->fitted = true;
  self->follow = true;
  self->lane_scroll = 0;
  gtk_widget_queue_draw(GTK_WIDGET(self));
}

static void
on_reset(TdStore *store, gpointer user_data)
{
  reindex(TD_TIMELINE(user_data));
}

static void
on_events_changed(TdStore *store, guint n_removed_front, guint n_added_back, gpointer user_data)
{
  TdTimeline *self = TD_TIMELINE(user_data);
  const TrEventLog *events = tr_state_event_log(td_store_get_state(store));
  guint64 len = tr_event_log_length(events);
  guint64 n = MIN(n_added_back, len);
  TrEvent scratch;
  for (guint64 i = len - n; i < len; i++)
    td_tl_index_add(self->index, tr_event_log_peek(events, i, &scratch));
  if (n_removed_front > 0 && len > 0)
    td_tl_index_drop_before(self->index, tr_event_log_peek(events, 0, &scratch)->ts_ns);
  gtk_widget_queue_draw(GTK_WIDGET(self));
}

static void
disconnect_store(TdTimeline *self)
{
  if (!self->store)
    return;
  g_clear_signal_handler(&self->reset_id, self->store);
  g_clear_signal_handler(&self->events_id, self->store);
  g_clear_object(&self->store);
}

void
td_timeline_set_store(TdTimeline *self, TdStore *store)
{
  g_return_if_fail(TD_IS_TIMELINE(self));
  g_return_if_fail(store == NULL || TD_IS_STORE(store));
  if (store == self->store)
    return;
  disconnect_store(self);
  if (store) {
    self->store = g_object_ref(store);
    self->reset_id = g_signal_connect(store, "reset", G_CALLBACK(on_reset), self);
    self->events_id =
        g_signal_connect(store, "events-changed", G_CALLBACK(on_events_changed), self);
  }
  reindex(self);
}

/* ---- descriptions --------------------------------------------------------------------------- */

/* "12 ns", "0.5 µs", "3.2 ms", "1.50 s". Transfer full. */
static char *
format_duration(double ns)
{
  static const struct {
    double scale;     /* ns per unit */
    const char *unit; /* its name */
  } units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}};
  for (size_t i = 0; i < G_N_ELEMENTS(units); i++)
    if (fabs(ns) >= units[i].scale)
      return g_strdup_printf("%.3g %s", ns / units[i].scale, units[i].unit);
  if (fabs(ns) >= 100 || ns == 0)
    return g_strdup_printf("%.0f ns", ns);
  return g_strdup_printf("%.2g µs", ns / 1e3);
}

static char *
describe_call(const TdTlLane *lane, const TdTlCall *call)
{
  g_autofree char *dur = format_duration((double)(call->end_ns - call->start_ns));
  GString *s = g_string_new(NULL);
  g_string_append_printf(s, "%s: %s, %s", lane->name, tr_outcome_name(call->outcome), dur);
  if (call->file)
    g_string_append_printf(s, ", %s line %d", call->file, call->line);
  if (call->cf_id)
    g_string_append_printf(s, ", concrete #%" G_GINT64_FORMAT, call->cf_id);
  if (!call->ok)
    g_string_append(s, ", raised");
  return g_string_free(s, FALSE);
}

static char *
describe_gap(TdTimeline *self, double t)
{
  const GArray *gaps = td_tl_index_get_gaps(self->index);
  for (guint i = 0; i < gaps->len; i++) {
    const TdTlGap *gap = &g_array_index(gaps, TdTlGap, i);
    if (t >= gap->start_ns && t <= gap->start_ns + gap->shown_ns) {
      g_autofree char *dur = format_duration((double)gap->real_ns);
      return g_strdup_printf("Idle for %s (shortened)", dur);
    }
  }
  return NULL;
}

static char *
describe_cell(TdTimeline *self, double t)
{
  const GArray *cells = td_tl_index_get_cells(self->index);
  for (guint i = 0; i < cells->len; i++) {
    const TdTlSpan *cell = &g_array_index(cells, TdTlSpan, i);
    if (t < cell->start_ns || t > cell->end_ns)
      continue;
    g_autofree char *dur = format_duration((double)(cell->end_ns - cell->start_ns));
    return g_strdup_printf("In [%" G_GINT64_FORMAT "]: %s%s", cell->number, dur,
                           cell->running ? " so far" : "");
  }
  return NULL;
}

char *
td_timeline_describe_at(TdTimeline *self, double x, double y)
{
  g_return_val_if_fail(TD_IS_TIMELINE(self), NULL);
  update_view(self);
  if (y < HEADER_H) {
    if (x < LABEL_W)
      return NULL;
    char *gap = describe_gap(self, time_at(self, x));
    return gap ? gap : describe_cell(self, time_at(self, x));
  }
  int l = lane_at(self, y);
  if (l < 0)
    return NULL;
  const TdTlLane *lane = td_tl_index_get_lane(self->index, (guint)l);
  if (x < LABEL_W)
    return g_strdup_printf("%s: %u calls shown", lane->name, lane->calls->len);
  int call = td_tl_lane_call_at(lane, (gint64)time_at(self, x), (gint64)(2 * self->ns_per_px));
  if (call < 0)
    return NULL;
  return describe_call(lane, &g_array_index(lane->calls, TdTlCall, call));
}

static gboolean
on_query_tooltip(GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip,
                 gpointer user_data)
{
  g_autofree char *text = td_timeline_describe_at(TD_TIMELINE(widget), x, y);
  if (!text)
    return FALSE;
  gtk_tooltip_set_text(tooltip, text);
  return TRUE;
}

/* ---- input ---------------------------------------------------------------------------------- */

static void
on_click(GtkGestureClick *gesture, int n_press, double x, double y, gpointer user_data)
{
  TdTimeline *self = TD_TIMELINE(user_data);
  gtk_widget_grab_focus(GTK_WIDGET(self));
  int l = lane_at(self, y);
  if (l < 0)
    return;
  const TdTlLane *lane = td_tl_index_get_lane(self->index, (guint)l);
  bool on_call = x >= LABEL_W && td_tl_lane_call_at(lane, (gint64)time_at(self, x),
                                                    (gint64)(2 * self->ns_per_px)) >= 0;
  if (x < LABEL_W || on_call)
    g_signal_emit(self, signals[SIG_FUNCTION_ACTIVATED], 0, lane->fn_id);
}

static void
on_drag_begin(GtkGestureDrag *gesture, double x, double y, gpointer user_data)
{
  TdTimeline *self = TD_TIMELINE(user_data);
  update_view(self);
  self->drag_t0 = self->t0;
  self->drag_scroll = self->lane_scroll;
}

static void
on_drag_update(GtkGestureDrag *gesture, double dx, double dy, gpointer user_data)
{
  TdTimeline *self = TD_TIMELINE(user_data);
  if (fabs(dx) < 3 && fabs(dy) < 3)
    return; /* a click, not a drag */
  self->t0 = self->drag_t0 - dx * self->ns_per_px;
  self->lane_scroll = CLAMP(self->drag_scroll - dy, 0, max_lane_scroll(self));
  user_moved(self);
}

static gboolean
on_scroll(GtkEventControllerScroll *scroll, double dx, double dy, gpointer user_data)
{
  TdTimeline *self = TD_TIMELINE(user_data);
  update_view(self);
  GdkModifierType mods = gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(scroll));
  if (mods & GDK_CONTROL_MASK) {
    zoom_at(self, pow(1.2, dy), self->pointer_x);
    return TRUE;
  }
  double step = gtk_event_controller_scroll_get_unit(scroll) == GDK_SCROLL_UNIT_WHEEL ? 40 : 1;
  if (mods & GDK_SHIFT_MASK || max_lane_scroll(self) == 0) {
    dx += dy; /* no lanes to scroll: vertical wheels pan in time */
    dy = 0;
  }
  self->t0 += dx * step * self->ns_per_px;
  self->lane_scroll = CLAMP(self->lane_scroll + dy * step, 0, max_lane_scroll(self));
  user_moved(self);
  return TRUE;
}

static void
on_motion(GtkEventControllerMotion *motion, double x, double y, gpointer user_data)
{
  TD_TIMELINE(user_data)->pointer_x = x;
}

static void
on_pinch_begin(GtkGesture *gesture, GdkEventSequence *sequence, gpointer user_data)
{
  TdTimeline *self = TD_TIMELINE(user_data);
  update_view(self);
  self->pinch_ns_per_px = self->ns_per_px;
}

static void
on_pinch(GtkGestureZoom *gesture, double scale, gpointer user_data)
{
  TdTimeline *self = TD_TIMELINE(user_data);
  double x, y;
  if (!gtk_gesture_get_bounding_box_center(GTK_GESTURE(gesture), &x, &y))
    x = LABEL_W + lanes_width(self) / 2;
  zoom_at(self, self->pinch_ns_per_px / MAX(scale, 1e-3) / self->ns_per_px, x);
}

/* Keyboard: the actions the class binds to keys (td_timeline_class_init). */
static void
action_zoom(GtkWidget *widget, const char *name, GVariant *param)
{
  TdTimeline *self = TD_TIMELINE(widget);
  update_view(self);
  zoom_at(self, g_variant_get_double(param), LABEL_W + lanes_width(self) / 2);
}

static void
action_pan(GtkWidget *widget, const char *name, GVariant *param)
{
  TdTimeline *self = TD_TIMELINE(widget);
  update_view(self);
  /* an eighth of the view per press */
  self->t0 += g_variant_get_int32(param) * lanes_width(self) * self->ns_per_px / 8;
  user_moved(self);
}

static void
action_scroll_lanes(GtkWidget *widget, const char *name, GVariant *param)
{
  TdTimeline *self = TD_TIMELINE(widget);
  update_view(self);
  self->lane_scroll =
      CLAMP(self->lane_scroll + g_variant_get_int32(param) * LANE_H, 0, max_lane_scroll(self));
  gtk_widget_queue_draw(widget);
}

static void
action_home(GtkWidget *widget, const char *name, GVariant *param)
{
  TdTimeline *self = TD_TIMELINE(widget);
  update_view(self);
  self->t0 = td_tl_index_first_ts(self->index);
  user_moved(self);
}

static void
action_end(GtkWidget *widget, const char *name, GVariant *param)
{
  TdTimeline *self = TD_TIMELINE(widget);
  update_view(self);
  self->t0 = td_tl_index_last_ts(self->index) - lanes_width(self) * self->ns_per_px;
  user_moved(self);
}

static void
action_fit_all(GtkWidget *widget, const char *name, GVariant *param)
{
  td_timeline_fit_all(TD_TIMELINE(widget));
}

static void
add_key_bindings(GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action(widget_class, "timeline.zoom", "d", action_zoom);
  gtk_widget_class_install_action(widget_class, "timeline.pan", "i", action_pan);
  gtk_widget_class_install_action(widget_class, "timeline.scroll-lanes", "i", action_scroll_lanes);
  gtk_widget_class_install_action(widget_class, "timeline.home", NULL, action_home);
  gtk_widget_class_install_action(widget_class, "timeline.end", NULL, action_end);
  gtk_widget_class_install_action(widget_class, "timeline.fit-all", NULL, action_fit_all);
  static const struct {
    guint key;          /* keyval */
    const char *action; /* what it does */
    const char *param;  /* its parameter, GVariant text */
  } keys[] = {
      {GDK_KEY_plus, "timeline.zoom", "0.5"},        {GDK_KEY_equal, "timeline.zoom", "0.5"},
      {GDK_KEY_KP_Add, "timeline.zoom", "0.5"},      {GDK_KEY_minus, "timeline.zoom", "2.0"},
      {GDK_KEY_KP_Subtract, "timeline.zoom", "2.0"}, {GDK_KEY_Left, "timeline.pan", "-1"},
      {GDK_KEY_Right, "timeline.pan", "1"},          {GDK_KEY_Up, "timeline.scroll-lanes", "-1"},
      {GDK_KEY_Down, "timeline.scroll-lanes", "1"},  {GDK_KEY_Home, "timeline.home", NULL},
      {GDK_KEY_End, "timeline.end", NULL},           {GDK_KEY_0, "timeline.fit-all", NULL},
      {GDK_KEY_f, "timeline.fit-all", NULL},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(keys); i++) {
    GtkShortcut *shortcut = gtk_shortcut_new(gtk_keyval_trigger_new(keys[i].key, 0),
                                             gtk_named_action_new(keys[i].action));
    if (keys[i].param)
      gtk_shortcut_set_arguments(shortcut, g_variant_parse(NULL, keys[i].param, NULL, NULL, NULL));
    gtk_widget_class_add_shortcut(widget_class, shortcut); /* takes a reference */
    g_object_unref(shortcut);
  }
}

static void
add_controllers(TdTimeline *self)
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
  gtk_widget_set_has_tooltip(widget, TRUE);
  g_signal_connect(widget, "query-tooltip", G_CALLBACK(on_query_tooltip), NULL);
}

/* ---- drawing -------------------------------------------------------------------------------- */

/* What one frame draws with. */
typedef struct {
  GtkSnapshot *snapshot; /* target */
  double width;          /* widget size */
  double height;         /* widget size */
  gint64 t0;             /* visible time range */
  gint64 t1;             /* visible time range */
  GdkRGBA fg;            /* text */
  int dark;              /* 1 in a dark theme: the colour tables' column */
  bool cairo;            /* drawn by GskCairoRenderer: a lane's boxes go in one cairo node */
} Frame;

static double
x_of(TdTimeline *self, double t)
{
  return LABEL_W + (t - self->t0) / self->ns_per_px;
}

static void
fill(Frame *f, double x, double y, double w, double h, const GdkRGBA *colour)
{
  gtk_snapshot_append_color(f->snapshot, colour, &GRAPHENE_RECT_INIT(x, y, w, h));
}

static void
draw_text(TdTimeline *self, Frame *f, const char *text, double x, double y, double max_w,
          float alpha)
{
  pango_layout_set_text(self->text, text, -1);
  pango_layout_set_width(self->text, max_w > 0 ? (int)(max_w * PANGO_SCALE) : -1);
  GdkRGBA fg = f->fg;
  fg.alpha *= alpha;
  gtk_snapshot_save(f->snapshot);
  gtk_snapshot_translate(f->snapshot, &GRAPHENE_POINT_INIT(x, y));
  gtk_snapshot_append_layout(f->snapshot, self->text, &fg);
  gtk_snapshot_restore(f->snapshot);
}

static void
draw_cells(TdTimeline *self, Frame *f)
{
  const GArray *cells = td_tl_index_get_cells(self->index);
  GdkRGBA band = f->fg;
  band.alpha *= 0.06f;
  for (guint i = 0; i < cells->len; i++) {
    const TdTlSpan *cell = &g_array_index(cells, TdTlSpan, i);
    if (cell->end_ns < f->t0 || cell->start_ns > f->t1)
      continue;
    double x0 = MAX(x_of(self, cell->start_ns), LABEL_W);
    double x1 = MIN(x_of(self, cell->end_ns), f->width);
    if (cell->number % 2)
      fill(f, x0, 0, MAX(x1 - x0, 1), f->height, &band);
    fill(f, x0, 0, 1, f->height, &band);
    g_autofree char *label = g_strdup_printf("In [%" G_GINT64_FORMAT "]", cell->number);
    if (x1 - x0 > 30)
      draw_text(self, f, label, x0 + 3, 2, x1 - x0 - 4, 0.7f);
  }
}

/* Ticks at a round step of real time about 120 px apart, labelled with their time, in each
 * stretch of view time between shortened idle gaps [v0, v1) where real = view + shift. */
static void
draw_ticks_between(TdTimeline *self, Frame *f, double v0, double v1, double shift, double step)
{
  GdkRGBA tick = f->fg;
  tick.alpha *= 0.25f;
  v0 = MAX(v0, (double)f->t0);
  v1 = MIN(v1, (double)f->t1);
  int n = 0; /* at most a screenful: a guard against a step lost in rounding */
  for (double t = ceil((v0 + shift) / step) * step; t - shift <= v1 && n < 1000; t += step, n++) {
    double x = x_of(self, t - shift);
    fill(f, x, HEADER_H - 5, 1, 5, &tick);
    g_autofree char *label = td_tl_tick_label(t, step);
    draw_text(self, f, label, x + 2, HEADER_H - 14, 0, 0.45f);
  }
}

/* A shortened idle gap: hatched across the lanes, its real length in the header. */
static void
draw_gap(TdTimeline *self, Frame *f, const TdTlGap *gap)
{
  double x0 = MAX(x_of(self, gap->start_ns), LABEL_W),
         x1 = x_of(self, gap->start_ns + gap->shown_ns);
  if (x1 < LABEL_W || x0 > f->width)
    return;
  GdkRGBA shade = f->fg;
  shade.alpha *= 0.10f;
  fill(f, x0, 0, MAX(x1 - x0, 2), f->height, &shade);
  GdkRGBA edge = f->fg;
  edge.alpha *= 0.35f;
  for (double y = 0; y < f->height; y += 6) { /* dashed edges: a cut in time */
    fill(f, x0, y, 1, 3, &edge);
    fill(f, MAX(x1 - 1, x0), y, 1, 3, &edge);
  }
  if (x1 - x0 > 30) {
    g_autofree char *dur = format_duration((double)gap->real_ns);
    g_autofree char *label = g_strdup_printf("idle %s", dur);
    draw_text(self, f, label, x0 + 3, HEADER_H - 14, x1 - x0 - 4, 0.6f);
  }
}

static void
draw_ticks(TdTimeline *self, Frame *f)
{
  double step = pow(10, floor(log10(120 * self->ns_per_px)));
  while (step / self->ns_per_px < 60)
    step *= 2;
  const GArray *gaps = td_tl_index_get_gaps(self->index);
  double from = -INFINITY, shift = 0;
  for (guint i = 0; i < gaps->len; i++) {
    const TdTlGap *gap = &g_array_index(gaps, TdTlGap, i);
    draw_ticks_between(self, f, from, (double)gap->start_ns, shift, step);
    draw_gap(self, f, gap);
    from = (double)(gap->start_ns + gap->shown_ns);
    shift = (double)gap->shift_ns;
  }
  draw_ticks_between(self, f, from, INFINITY, shift, step);
}

static void
draw_lane_calls(TdTimeline *self, Frame *f, const TdTlLane *lane, double y)
{
  td_tl_lane_boxes(lane, f->t0, self->ns_per_px, f->width - LABEL_W, self->boxes);
  double top = y + BOX_PAD, h = LANE_H - 2 * BOX_PAD;
  GdkRGBA colours[TR_OUTCOME_N];
  for (int o = 0; o < TR_OUTCOME_N; o++)
    colours[o] = rgba(outcome_colour[o][f->dark], 1);
  if (f->cairo && self->boxes->len > 8) {
    /* Software rendering fills node by node: a zoomed-out lane of thousands of boxes is
     * drawn as one path per colour instead. GPU renderers batch colour nodes themselves. */
    cairo_t *cr = gtk_snapshot_append_cairo(
        f->snapshot, &GRAPHENE_RECT_INIT(LABEL_W - 1, top, f->width - LABEL_W + 2, h));
    for (int o = 0; o < TR_OUTCOME_N; o++) {
      bool any = false;
      for (guint i = 0; i < self->boxes->len; i++) {
        const TdTlBox *b = &g_array_index(self->boxes, TdTlBox, i);
        if ((b->outcome < TR_OUTCOME_N ? b->outcome : 0) != o)
          continue;
        cairo_rectangle(cr, LABEL_W + b->x0, top, MAX(b->x1 - b->x0, 1), h);
        any = true;
      }
      if (any) {
        gdk_cairo_set_source_rgba(cr, &colours[o]);
        cairo_fill(cr);
      }
    }
    cairo_destroy(cr);
  } else {
    for (guint i = 0; i < self->boxes->len; i++) {
      const TdTlBox *b = &g_array_index(self->boxes, TdTlBox, i);
      fill(f, LABEL_W + b->x0, top, MAX(b->x1 - b->x0, 1), h,
           &colours[b->outcome < TR_OUTCOME_N ? b->outcome : 0]);
    }
  }
  GdkRGBA trace = rgba(trace_colour[f->dark], 0.9f);
  guint first, end;
  td_tl_lane_trace_range(lane, f->t0, f->t1, &first, &end);
  for (guint i = first; i < end; i++) { /* the trace inside its miss: the box's lower half */
    const TdTlSpan *s = &g_array_index(lane->traces, TdTlSpan, i);
    double x0 = MAX(x_of(self, s->start_ns), LABEL_W - 1),
           x1 = MIN(x_of(self, s->end_ns), f->width);
    fill(f, x0, top + h / 2, MAX(x1 - x0, 1), h / 2, &trace);
  }
  if (lane->open > 0) { /* a call still running */
    GdkRGBA open = rgba(outcome_colour[lane->open_outcome % TR_OUTCOME_N][f->dark], 0.45f);
    double x0 = MAX(x_of(self, lane->open_start_ns), LABEL_W - 1);
    double x1 = MIN(x_of(self, td_tl_index_last_ts(self->index)), f->width);
    fill(f, x0, top, MAX(x1 - x0, 1), h, &open);
  }
}

/* What the lanes' names look like: drawing them is half a frame's work (shaping), and they
 * rarely change. */
static guint
names_key(TdTimeline *self, Frame *f)
{
  guint key = g_int_hash(&(int){(int)self->lane_scroll}) * 31 + (guint)f->height;
  key = key * 31 + gdk_rgba_hash(&f->fg);
  guint n = td_tl_index_n_lanes(self->index);
  for (guint l = 0; l < n; l++)
    key = key * 31 + g_str_hash(td_tl_index_get_lane(self->index, l)->name);
  return key * 31 + n;
}

static void
draw_names(TdTimeline *self, Frame *f)
{
  guint key = names_key(self, f);
  if (!self->names || key != self->names_key) {
    g_clear_pointer(&self->names, gsk_render_node_unref);
    GtkSnapshot *frame_snapshot = f->snapshot;
    f->snapshot = gtk_snapshot_new();
    guint n = td_tl_index_n_lanes(self->index);
    for (guint l = 0; l < n; l++) {
      double y = HEADER_H + l * LANE_H - self->lane_scroll;
      if (y + LANE_H >= HEADER_H && y <= f->height)
        draw_text(self, f, td_tl_index_get_lane(self->index, l)->name, 6, y + 3, LABEL_W - 10,
                  0.9f);
    }
    self->names = gtk_snapshot_free_to_node(f->snapshot);
    self->names_key = key;
    f->snapshot = frame_snapshot;
  }
  if (self->names)
    gtk_snapshot_append_node(f->snapshot, self->names);
}

static void
draw_lanes(TdTimeline *self, Frame *f)
{
  GdkRGBA rule = f->fg;
  rule.alpha *= 0.08f;
  guint n = td_tl_index_n_lanes(self->index);
  for (guint l = 0; l < n; l++) {
    double y = HEADER_H + l * LANE_H - self->lane_scroll;
    if (y + LANE_H < HEADER_H || y > f->height)
      continue;
    fill(f, 0, y + LANE_H - 1, f->width, 1, &rule);
    const TdTlLane *lane = td_tl_index_get_lane(self->index, l);
    gtk_snapshot_push_clip(f->snapshot, &GRAPHENE_RECT_INIT(LABEL_W, HEADER_H, f->width - LABEL_W,
                                                            f->height - HEADER_H));
    draw_lane_calls(self, f, lane, y);
    gtk_snapshot_pop(f->snapshot);
  }
  draw_names(self, f);
}

static void
td_timeline_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
  TdTimeline *self = TD_TIMELINE(widget);
  update_view(self);
  Frame f = {
      .snapshot = snapshot,
      .width = gtk_widget_get_width(widget),
      .height = gtk_widget_get_height(widget),
      .fg = foreground(widget),
  };
  f.dark = 0.299 * f.fg.red + 0.587 * f.fg.green + 0.114 * f.fg.blue > 0.5;
  GtkNative *native = gtk_widget_get_native(widget);
  f.cairo = native && GSK_IS_CAIRO_RENDERER(gtk_native_get_renderer(native));
  f.t0 = (gint64)floor(self->t0);
  f.t1 = (gint64)ceil(self->t0 + (f.width - LABEL_W) * self->ns_per_px);
  gtk_snapshot_push_clip(snapshot, &GRAPHENE_RECT_INIT(0, 0, f.width, f.height));
  draw_cells(self, &f);
  draw_ticks(self, &f);
  GdkRGBA column = f.fg;
  column.alpha *= 0.04f;
  fill(&f, 0, HEADER_H, LABEL_W, f.height - HEADER_H, &column);
  draw_lanes(self, &f);
  if (td_tl_index_n_lanes(self->index) == 0)
    draw_text(self, &f, "No calls of traced functions yet", LABEL_W + 8, HEADER_H + 6, 0, 0.6f);
  g_autofree char *notice = td_timeline_get_notice(self);
  if (notice) /* what is not shown, at the bottom: the window's limit was reached */
    draw_text(self, &f, notice, LABEL_W + 8, f.height - 20, f.width - LABEL_W - 16, 0.75f);
  gtk_snapshot_pop(snapshot);
}

/* ---- the widget ----------------------------------------------------------------------------- */

static void
td_timeline_measure(GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum,
                    int *natural, int *minimum_baseline, int *natural_baseline)
{
  TdTimeline *self = TD_TIMELINE(widget);
  if (orientation == GTK_ORIENTATION_HORIZONTAL) {
    *minimum = (int)LABEL_W + 50;
    *natural = 600;
  } else {
    *minimum = (int)(HEADER_H + LANE_H);
    *natural = (int)(HEADER_H + MAX(td_tl_index_n_lanes(self->index), 3) * LANE_H);
  }
}

static void
td_timeline_dispose(GObject *object)
{
  TdTimeline *self = TD_TIMELINE(object);
  disconnect_store(self);
  g_clear_object(&self->text);
  g_clear_pointer(&self->names, gsk_render_node_unref);
  G_OBJECT_CLASS(td_timeline_parent_class)->dispose(object);
}

static void
td_timeline_finalize(GObject *object)
{
  TdTimeline *self = TD_TIMELINE(object);
  td_tl_index_free(self->index);
  g_array_unref(self->boxes);
  G_OBJECT_CLASS(td_timeline_parent_class)->finalize(object);
}

static void
td_timeline_css_changed(GtkWidget *widget, GtkCssStyleChange *change)
{
  TdTimeline *self = TD_TIMELINE(widget);
  GTK_WIDGET_CLASS(td_timeline_parent_class)->css_changed(widget, change);
  g_clear_pointer(&self->names, gsk_render_node_unref); /* the font may have changed */
  g_clear_object(&self->text);
  self->text = gtk_widget_create_pango_layout(widget, NULL);
  pango_layout_set_ellipsize(self->text, PANGO_ELLIPSIZE_END);
  pango_layout_set_single_paragraph_mode(self->text, TRUE);
  gtk_widget_queue_draw(widget);
}

static void
td_timeline_class_init(TdTimelineClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS(klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
  object_class->dispose = td_timeline_dispose;
  object_class->finalize = td_timeline_finalize;
  widget_class->snapshot = td_timeline_snapshot;
  widget_class->measure = td_timeline_measure;
  widget_class->css_changed = td_timeline_css_changed;
  gtk_widget_class_set_css_name(widget_class, "timeline");
  add_key_bindings(widget_class);
  signals[SIG_FUNCTION_ACTIVATED] =
      g_signal_new("function-activated", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                   NULL, G_TYPE_NONE, 1, G_TYPE_INT64);
}

static void
td_timeline_init(TdTimeline *self)
{
  self->index = td_tl_index_new();
  self->boxes = g_array_new(FALSE, FALSE, sizeof(TdTlBox));
  self->text = gtk_widget_create_pango_layout(GTK_WIDGET(self), NULL);
  pango_layout_set_ellipsize(self->text, PANGO_ELLIPSIZE_END);
  pango_layout_set_single_paragraph_mode(self->text, TRUE);
  self->ns_per_px = 1000;
  self->fitted = true;
  self->follow = true;
  gtk_widget_set_focusable(GTK_WIDGET(self), TRUE);
  gtk_widget_set_overflow(GTK_WIDGET(self), GTK_OVERFLOW_HIDDEN);
  add_controllers(self);
}

GtkWidget *
td_timeline_new(void)
{
  return g_object_new(TD_TYPE_TIMELINE, NULL);
}
