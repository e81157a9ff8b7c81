/* td-timeline-index.c — the timeline's lanes, calls and cells, indexed by time (see
 * td-timeline-index.h).
 */
#include "td-timeline-index.h"

#include <math.h>
#include <string.h>

struct _TdTlIndex {
  GPtrArray *lanes;  /* TdTlLane*, owned, in order of first appearance */
  GHashTable *by_fn; /* fn_id (gint64* into the lane) → lane index + 1 */
  GArray *cells;     /* TdTlSpan, in start order */
  GHashTable *files; /* interned call-site strings (owned keys) */
  GArray *gaps;      /* TdTlGap, in time order */
  gint64 shift;      /* real minus view time for new events */
  int n_open;        /* calls open, all lanes */
  gint64 first_ts;   /* first event's view time */
  gint64 last_ts;    /* newest event's view time */
  guint64 n_calls;   /* finished calls indexed */
  bool empty;        /* nothing indexed since the last clear */
};

/* ---- lanes --------------------------------------------------------------------------------- */

static void
lane_free(gpointer data)
{
  TdTlLane *lane = data;
  g_free(lane->name);
  g_array_unref(lane->calls);
  g_array_unref(lane->blocks);
  g_array_unref(lane->traces);
  g_free(lane);
}

static TdTlLane *
lane_for(TdTlIndex *index, gint64 fn_id, const char *name)
{
  guint i = GPOINTER_TO_UINT(g_hash_table_lookup(index->by_fn, &fn_id));
  if (i) {
    TdTlLane *lane = index->lanes->pdata[i - 1];
    if (name && (!lane->name || strcmp(lane->name, name) != 0)) {
      g_free(lane->name);
      lane->name = g_strdup(name);
    }
    return lane;
  }
  TdTlLane *lane = g_new0(TdTlLane, 1);
  lane->fn_id = fn_id;
  lane->name = g_strdup(name ? name : "?");
  lane->calls = g_array_new(FALSE, FALSE, sizeof(TdTlCall));
  lane->blocks = g_array_new(FALSE, FALSE, sizeof(TdTlBlock));
  lane->traces = g_array_new(FALSE, FALSE, sizeof(TdTlSpan));
  g_ptr_array_add(index->lanes, lane);
  g_hash_table_insert(index->by_fn, &lane->fn_id, GUINT_TO_POINTER(index->lanes->len));
  return lane;
}

static const char *
intern_file(TdTlIndex *index, const char *file)
{
  if (!file)
    return NULL;
  gpointer key;
  if (g_hash_table_lookup_extended(index->files, file, &key, NULL))
    return key;
  char *copy = g_strdup(file);
  g_hash_table_add(index->files, copy);
  return copy;
}

/* Which outcome a merged box shows: misses stand out most, then eager runs. */
static int
outcome_rank(guint8 outcome)
{
  static const int rank[TR_OUTCOME_N] = {
      [TR_OUTCOME_NONE] = 0, [TR_OUTCOME_HIT] = 1, [TR_OUTCOME_EAGER] = 2, [TR_OUTCOME_MISS] = 3};
  return outcome < TR_OUTCOME_N ? rank[outcome] : 0;
}

/* Summaries of the whole blocks from block `from` on (the calls there changed). */
static void
summarize_blocks(TdTlLane *lane, guint from)
{
  g_array_set_size(lane->blocks, MIN(from, lane->blocks->len));
  const TdTlCall *calls = (const TdTlCall *)(void *)lane->calls->data;
  for (guint k = lane->blocks->len; (k + 1) * TD_TL_BLOCK <= lane->calls->len; k++) {
    const TdTlCall *c = calls + k * TD_TL_BLOCK;
    TdTlBlock b = {.max_dur_ns = 0, .min_outcome = c[0].outcome, .max_outcome = c[0].outcome};
    for (guint j = 0; j < TD_TL_BLOCK; j++) {
      b.max_dur_ns = MAX(b.max_dur_ns, c[j].end_ns - c[j].start_ns);
      if (j > 0)
        b.max_step_ns = MAX(b.max_step_ns, c[j].start_ns - c[j - 1].start_ns);
      if (outcome_rank(c[j].outcome) < outcome_rank(b.min_outcome))
        b.min_outcome = c[j].outcome;
      if (outcome_rank(c[j].outcome) > outcome_rank(b.max_outcome))
        b.max_outcome = c[j].outcome;
    }
    g_array_append_val(lane->blocks, b);
  }
}

/* Insert keeping start order: events end in order, so a call starts after the calls before
 * it except when nested (recursion), when it goes a few places back. */
static void
insert_call(TdTlLane *lane, const TdTlCall *call)
{
  guint i = lane->calls->len;
  while (i > 0 && g_array_index(lane->calls, TdTlCall, i - 1).start_ns > call->start_ns)
    i--;
  g_array_insert_val(lane->calls, i, *call);
  lane->max_call_ns = MAX(lane->max_call_ns, call->end_ns - call->start_ns);
  if (i / TD_TL_BLOCK < lane->blocks->len || lane->calls->len % TD_TL_BLOCK == 0)
    summarize_blocks(lane, i / TD_TL_BLOCK);
}

static void
insert_trace(TdTlLane *lane, gint64 start, gint64 end)
{
  TdTlSpan span = {.start_ns = start, .end_ns = end};
  guint i = lane->traces->len;
  while (i > 0 && g_array_index(lane->traces, TdTlSpan, i - 1).start_ns > start)
    i--;
  g_array_insert_val(lane->traces, i, span);
  lane->max_trace_ns = MAX(lane->max_trace_ns, end - start);
}

/* ---- events -------------------------------------------------------------------------------- */

static void
on_call(TdTlIndex *index, const TrEvent *ev)
{
  TdTlLane *lane = lane_for(index, ev->fn_id, ev->fn_name);
  index->n_open++;
  if (lane->open++ == 0) {
    lane->open_start_ns = ev->ts_ns;
    lane->open_outcome = ev->outcome;
  }
}

static void
on_call_end(TdTlIndex *index, const TrEvent *ev)
{
  TdTlLane *lane = lane_for(index, ev->fn_id, ev->fn_name);
  if (lane->open > 0) {
    lane->open--;
    index->n_open--;
  }
  TdTlCall call = {
      .start_ns = ev->ts_ns - MAX(ev->dur_ns, 0),
      .end_ns = ev->ts_ns,
      .cf_id = ev->cf_id,
      .file = intern_file(index, ev->file),
      .line = (gint32)CLAMP(ev->line, 0, G_MAXINT32),
      .outcome = ev->outcome,
      .ok = ev->ok,
  };
  insert_call(lane, &call);
  index->n_calls++;
}

static void
on_trace_end(TdTlIndex *index, const TrEvent *ev)
{
  TdTlLane *lane = lane_for(index, ev->fn_id, ev->fn_name);
  insert_trace(lane, ev->ts_ns - MAX(ev->dur_ns, 0), ev->ts_ns);
}

static void
on_function(TdTlIndex *index, const TrEvent *ev)
{
  lane_for(index, ev->fn_id, ev->fn_name);
}

static TdTlSpan *
find_cell(TdTlIndex *index, gint64 number)
{
  for (guint i = index->cells->len; i-- > 0;) {
    TdTlSpan *cell = &g_array_index(index->cells, TdTlSpan, i);
    if (cell->number == number)
      return cell;
  }
  return NULL;
}

static void
on_cell_start(TdTlIndex *index, const TrEvent *ev)
{
  TdTlSpan cell = {.start_ns = ev->ts_ns, .end_ns = ev->ts_ns, .number = ev->cell, .running = 1};
  g_array_append_val(index->cells, cell);
}

static void
on_cell_end(TdTlIndex *index, const TrEvent *ev)
{
  TdTlSpan *cell = find_cell(index, ev->cell);
  if (!cell) {
    TdTlSpan added = {.start_ns = ev->ts_ns - MAX(ev->dur_ns, 0), .number = ev->cell};
    g_array_append_val(index->cells, added);
    cell = &g_array_index(index->cells, TdTlSpan, index->cells->len - 1);
  }
  cell->end_ns = ev->ts_ns;
  cell->running = false;
}

typedef void (*EventHandler)(TdTlIndex *index, const TrEvent *ev);

/* What each kind does to the index; kinds not listed only move the clock. */
static const struct {
  TrEventKind kind;     /* event kind */
  EventHandler handler; /* what it does */
} handlers[] = {
    {TR_EVENT_CALL, on_call},
    {TR_EVENT_CALL_END, on_call_end},
    {TR_EVENT_TRACE_END, on_trace_end},
    {TR_EVENT_FUNCTION_CREATED, on_function},
    {TR_EVENT_CELL_START, on_cell_start},
    {TR_EVENT_CELL_END, on_cell_end},
};

static void
extend_running_cells(TdTlIndex *index)
{
  for (guint i = index->cells->len; i-- > 0;) {
    TdTlSpan *cell = &g_array_index(index->cells, TdTlSpan, i);
    if (cell->running)
      cell->end_ns = index->last_ts;
    else
      break;
  }
}

/* Nothing runs: no call open, no cell running. */
static bool
is_idle(const TdTlIndex *index)
{
  if (index->n_open > 0)
    return false;
  return index->cells->len == 0 ||
         !g_array_index(index->cells, TdTlSpan, index->cells->len - 1).running;
}

/* Before indexing an event at real time `ts`: shorten the idle time since the last event. */
static void
shorten_idle(TdTlIndex *index, gint64 ts)
{
  gint64 idle = ts - index->shift - index->last_ts;
  if (index->empty || idle <= TD_TL_GAP_MIN_NS || !is_idle(index))
    return;
  gint64 shown = CLAMP((index->last_ts - index->first_ts) / 10, G_GINT64_CONSTANT(1000000),
                       G_GINT64_CONSTANT(1000000000));
  index->shift += idle - shown;
  TdTlGap gap = {
      .start_ns = index->last_ts, .shown_ns = shown, .real_ns = idle, .shift_ns = index->shift};
  g_array_append_val(index->gaps, gap);
}

void
td_tl_index_add(TdTlIndex *index, const TrEvent *ev)
{
  g_return_if_fail(index != NULL && ev != NULL);
  shorten_idle(index, ev->ts_ns);
  /* the handlers see the event on the view-time scale (a shallow copy: they only borrow) */
  TrEvent shifted = *ev;
  shifted.ts_ns = ev->ts_ns - index->shift;
  if (index->empty)
    index->first_ts = shifted.ts_ns;
  index->empty = false;
  index->first_ts = MIN(index->first_ts, shifted.ts_ns - MAX(ev->dur_ns, 0));
  index->last_ts = MAX(index->last_ts, shifted.ts_ns);
  for (size_t i = 0; i < G_N_ELEMENTS(handlers); i++)
    if (handlers[i].kind == ev->kind)
      handlers[i].handler(index, &shifted);
  extend_running_cells(index);
}

const GArray *
td_tl_index_get_gaps(const TdTlIndex *index)
{
  g_return_val_if_fail(index != NULL, NULL);
  return index->gaps;
}

double
td_tl_index_real_ts(const TdTlIndex *index, double t_ns)
{
  g_return_val_if_fail(index != NULL, t_ns);
  double shift = 0;
  for (guint i = 0; i < index->gaps->len; i++) {
    const TdTlGap *g = &g_array_index(index->gaps, TdTlGap, i);
    if (t_ns < g->start_ns)
      break;
    if (t_ns < g->start_ns + g->shown_ns) /* inside: pro rata */
      return g->start_ns + shift + (t_ns - g->start_ns) * g->real_ns / (double)g->shown_ns;
    shift = (double)g->shift_ns;
  }
  return t_ns + shift;
}

gint64
td_tl_index_view_ts(const TdTlIndex *index, gint64 ts_ns)
{
  g_return_val_if_fail(index != NULL, ts_ns);
  gint64 shift = 0;
  for (guint i = 0; i < index->gaps->len; i++) {
    const TdTlGap *g = &g_array_index(index->gaps, TdTlGap, i);
    gint64 real_start = g->start_ns + shift;
    if (ts_ns < real_start)
      break;
    if (ts_ns < real_start + g->real_ns)
      return g->start_ns + (gint64)((double)(ts_ns - real_start) * g->shown_ns / g->real_ns);
    shift = g->shift_ns;
  }
  return ts_ns - shift;
}

/* ---- the index ----------------------------------------------------------------------------- */

TdTlIndex *
td_tl_index_new(void)
{
  TdTlIndex *index = g_new0(TdTlIndex, 1);
  index->lanes = g_ptr_array_new_with_free_func(lane_free);
  index->by_fn = g_hash_table_new(g_int64_hash, g_int64_equal);
  index->cells = g_array_new(FALSE, FALSE, sizeof(TdTlSpan));
  index->files = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  index->gaps = g_array_new(FALSE, FALSE, sizeof(TdTlGap));
  index->empty = true;
  return index;
}

void
td_tl_index_clear(TdTlIndex *index)
{
  g_return_if_fail(index != NULL);
  g_hash_table_remove_all(index->by_fn);
  g_ptr_array_set_size(index->lanes, 0);
  g_array_set_size(index->cells, 0);
  g_hash_table_remove_all(index->files);
  g_array_set_size(index->gaps, 0);
  index->shift = 0;
  index->n_open = 0;
  index->first_ts = index->last_ts = 0;
  index->n_calls = 0;
  index->empty = true;
}

void
td_tl_index_free(TdTlIndex *index)
{
  if (!index)
    return;
  g_hash_table_unref(index->by_fn);
  g_ptr_array_unref(index->lanes);
  g_array_unref(index->cells);
  g_hash_table_unref(index->files);
  g_array_unref(index->gaps);
  g_free(index);
}

/* How many leading entries ended before `ts`; entries are TdTlCall or TdTlSpan, both starting
 * with start_ns, end_ns. */
static guint
count_ended_before(GArray *array, gsize stride, gint64 ts)
{
  guint n = 0;
  while (n < array->len) {
    const gint64 *times = (const gint64 *)(array->data + n * stride);
    if (times[1] >= ts)
      break;
    n++;
  }
  return n;
}

void
td_tl_index_drop_before(TdTlIndex *index, gint64 ts_ns)
{
  g_return_if_fail(index != NULL);
  ts_ns = td_tl_index_view_ts(index, ts_ns);
  for (guint i = 0; i < index->lanes->len; i++) {
    TdTlLane *lane = index->lanes->pdata[i];
    guint n = count_ended_before(lane->calls, sizeof(TdTlCall), ts_ns);
    g_array_remove_range(lane->calls, 0, n);
    if (n > 0)
      summarize_blocks(lane, 0);
    index->n_calls -= n;
    g_array_remove_range(lane->traces, 0,
                         count_ended_before(lane->traces, sizeof(TdTlSpan), ts_ns));
  }
  g_array_remove_range(index->cells, 0, count_ended_before(index->cells, sizeof(TdTlSpan), ts_ns));
  index->first_ts = MAX(index->first_ts, ts_ns);
}

gint64
td_tl_index_first_ts(const TdTlIndex *index)
{
  g_return_val_if_fail(index != NULL, 0);
  return index->first_ts;
}

gint64
td_tl_index_last_ts(const TdTlIndex *index)
{
  g_return_val_if_fail(index != NULL, 0);
  return index->last_ts;
}

guint64
td_tl_index_n_calls(const TdTlIndex *index)
{
  g_return_val_if_fail(index != NULL, 0);
  return index->n_calls;
}

guint
td_tl_index_n_lanes(const TdTlIndex *index)
{
  g_return_val_if_fail(index != NULL, 0);
  return index->lanes->len;
}

const TdTlLane *
td_tl_index_get_lane(const TdTlIndex *index, guint i)
{
  g_return_val_if_fail(index != NULL && i < index->lanes->len, NULL);
  return index->lanes->pdata[i];
}

int
td_tl_index_lane_of(const TdTlIndex *index, gint64 fn_id)
{
  g_return_val_if_fail(index != NULL, -1);
  return (int)GPOINTER_TO_UINT(g_hash_table_lookup(index->by_fn, &fn_id)) - 1;
}

const GArray *
td_tl_index_get_cells(const TdTlIndex *index)
{
  g_return_val_if_fail(index != NULL, NULL);
  return index->cells;
}

/* ---- visible ranges ------------------------------------------------------------------------ */

/* First entry whose start is >= `t` (entries start with start_ns). */
static guint
lower_bound(GArray *array, gsize stride, gint64 t)
{
  guint lo = 0, hi = array->len;
  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;
    if (*(const gint64 *)(array->data + mid * stride) < t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Entries overlapping [t0, t1]: those starting after t0 - longest, up to t1, minus those at
 * the front that ended before t0. */
static void
range(GArray *array, gsize stride, gint64 longest, gint64 t0, gint64 t1, guint *first, guint *end)
{
  guint lo = lower_bound(array, stride, t0 - longest);
  guint hi = lower_bound(array, stride, t1 + 1);
  while (lo < hi && ((const gint64 *)(array->data + lo * stride))[1] < t0)
    lo++;
  *first = lo;
  *end = MAX(lo, hi);
}

void
td_tl_lane_range(const TdTlLane *lane, gint64 t0, gint64 t1, guint *first, guint *end)
{
  g_return_if_fail(lane != NULL && first != NULL && end != NULL);
  range(lane->calls, sizeof(TdTlCall), lane->max_call_ns, t0, t1, first, end);
}

void
td_tl_lane_trace_range(const TdTlLane *lane, gint64 t0, gint64 t1, guint *first, guint *end)
{
  g_return_if_fail(lane != NULL && first != NULL && end != NULL);
  range(lane->traces, sizeof(TdTlSpan), lane->max_trace_ns, t0, t1, first, end);
}

/* Add a sub-pixel call in pixel column `col` to the boxes, merging it with the last box. */
static void
merge_narrow(GArray *boxes, double col, guint8 outcome, guint call)
{
  TdTlBox *last = boxes->len ? &g_array_index(boxes, TdTlBox, boxes->len - 1) : NULL;
  /* only boxes made of narrow calls take more of them */
  bool merged = last && (last->n_calls > 1 || last->x1 - last->x0 <= 1.0);
  if (last && merged && last->x1 > col && last->x0 <= col) {
    last->n_calls++;
    if (outcome_rank(outcome) <= outcome_rank(last->outcome))
      return;
    if (last->x1 - last->x0 <= 1.0) {
      last->outcome = outcome;
      return;
    }
    last->x1 = col; /* split off this column in the more notable colour */
    last->n_calls--;
  } else if (last && merged && last->x1 == col && last->outcome == outcome) {
    last->x1 = col + 1;
    last->n_calls++;
    return;
  }
  TdTlBox box = {.x0 = col, .x1 = col + 1, .outcome = outcome, .n_calls = 1, .first_call = call};
  g_array_append_val(boxes, box);
}

/* Merge the block of calls starting at `i` into the last box in one step, when doing it call by
 * call would give the same boxes: every call sub-pixel, and either all inside the box's columns
 * with no more notable outcome, or all of the box's outcome with no column skipped between
 * consecutive starts (so each call extends the run by at most the next column). */
static bool
skip_block(const TdTlLane *lane, guint i, gint64 t0_ns, double ns_per_px, GArray *boxes)
{
  if (boxes->len == 0 || i / TD_TL_BLOCK >= lane->blocks->len)
    return false;
  const TdTlBlock *b = &g_array_index(lane->blocks, TdTlBlock, i / TD_TL_BLOCK);
  if ((double)b->max_dur_ns >= ns_per_px)
    return false;
  TdTlBox *last = &g_array_index(boxes, TdTlBox, boxes->len - 1);
  if (!(last->n_calls > 1 || last->x1 - last->x0 <= 1.0))
    return false; /* a wide call's box takes no narrow ones */
  const TdTlCall *calls = (const TdTlCall *)(void *)lane->calls->data;
  double col0 = floor((double)(calls[i].start_ns - t0_ns) / ns_per_px);
  double col1 = floor((double)(calls[i + TD_TL_BLOCK - 1].start_ns - t0_ns) / ns_per_px);
  if (col0 < last->x0)
    return false;
  if (col1 < last->x1 && outcome_rank(b->max_outcome) <= outcome_rank(last->outcome)) {
    last->n_calls += TD_TL_BLOCK; /* all inside the box, none more notable */
    return true;
  }
  if (b->min_outcome == last->outcome && b->max_outcome == last->outcome &&
      (double)b->max_step_ns < ns_per_px && col0 <= last->x1) {
    last->x1 = MAX(last->x1, col1 + 1); /* the run goes on, column by column */
    last->n_calls += TD_TL_BLOCK;
    return true;
  }
  return false;
}

void
td_tl_lane_boxes(const TdTlLane *lane, gint64 t0_ns, double ns_per_px, double width_px,
                 GArray *boxes)
{
  g_return_if_fail(lane != NULL && boxes != NULL && ns_per_px > 0);
  g_array_set_size(boxes, 0);
  gint64 t1_ns = t0_ns + (gint64)ceil(width_px * ns_per_px);
  guint first, end;
  td_tl_lane_range(lane, t0_ns, t1_ns, &first, &end);
  for (guint i = first; i < end; i++) {
    if (i % TD_TL_BLOCK == 0 && i + TD_TL_BLOCK <= end &&
        skip_block(lane, i, t0_ns, ns_per_px, boxes)) {
      i += TD_TL_BLOCK - 1;
      continue;
    }
    const TdTlCall *call = &g_array_index(lane->calls, TdTlCall, i);
    double x0 = (double)(call->start_ns - t0_ns) / ns_per_px;
    double x1 = (double)(call->end_ns - t0_ns) / ns_per_px;
    if (x1 - x0 < 1.0) {
      merge_narrow(boxes, floor(x0), call->outcome, i);
      continue;
    }
    TdTlBox box = {.x0 = MAX(x0, -1.0),
                   .x1 = MIN(x1, width_px + 1.0),
                   .outcome = call->outcome,
                   .n_calls = 1,
                   .first_call = i};
    g_array_append_val(boxes, box);
  }
}

int
td_tl_lane_call_at(const TdTlLane *lane, gint64 t_ns, gint64 slack_ns)
{
  g_return_val_if_fail(lane != NULL, -1);
  guint first, end;
  td_tl_lane_range(lane, t_ns - slack_ns, t_ns + slack_ns, &first, &end);
  int best = -1;
  gint64 best_distance = G_MAXINT64;
  for (guint i = first; i < end; i++) {
    const TdTlCall *call = &g_array_index(lane->calls, TdTlCall, i);
    gint64 distance = t_ns < call->start_ns ? call->start_ns - t_ns
                      : t_ns > call->end_ns ? t_ns - call->end_ns
                                            : 0;
    /* among calls containing t, the innermost (shortest) one */
    if (distance < best_distance ||
        (distance == 0 && best >= 0 &&
         call->end_ns - call->start_ns < g_array_index(lane->calls, TdTlCall, best).end_ns -
                                             g_array_index(lane->calls, TdTlCall, best).start_ns)) {
      best = (int)i;
      best_distance = distance;
    }
  }
  return best;
}

/* ---- labels -------------------------------------------------------------------------------- */

char *
td_tl_tick_label(double t_ns, double step_ns)
{
  static const struct {
    double scale;     /* ns per unit */
    const char *unit; /* its name */
  } units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}};
  size_t u = 0;
  while (u + 1 < G_N_ELEMENTS(units) && fabs(t_ns) < units[u].scale)
    u++;
  /* the step in this unit: 0.0005 needs 4 decimals, 0.002 needs 3, 5 needs none */
  double rel = step_ns > 0 ? step_ns / units[u].scale : 1;
  int decimals = rel >= 1 ? 0 : (int)CLAMP(ceil(-log10(rel) - 1e-9), 0, 9);
  return g_strdup_printf("%.*f %s", decimals, t_ns / units[u].scale, units[u].unit);
}
