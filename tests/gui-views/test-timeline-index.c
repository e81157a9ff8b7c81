/* test-timeline-index.c — the timeline's index without a display: lanes per Function, calls in
 * start order, visible ranges by binary search, sub-pixel calls merged per pixel column,
 * cells, and forgetting what the store dropped.
 */
#include "td-timeline-index.h"

#include <math.h>

/* An event at `ts` as the bus would stamp it. Transfer full. */
static TrEvent *
event(TrEventKind kind, gint64 ts, gint64 fn_id)
{
  TrEvent *ev = tr_event_new(kind);
  ev->ts_ns = ts;
  ev->fn_id = fn_id;
  if (fn_id)
    ev->fn_name = g_strdup_printf("f%" G_GINT64_FORMAT, fn_id);
  return ev;
}

/* A call of `fn_id` from `start` to `end`: its call and call_end events. */
static void
add_call(TdTlIndex *index, gint64 fn_id, gint64 start, gint64 end, TrOutcome outcome)
{
  g_autoptr(TrEvent) call = event(TR_EVENT_CALL, start, fn_id);
  call->outcome = outcome;
  td_tl_index_add(index, call);
  g_autoptr(TrEvent) done = event(TR_EVENT_CALL_END, end, fn_id);
  done->outcome = outcome;
  done->dur_ns = end - start;
  done->cf_id = 7;
  tr_event_set_site(done, "<cell 3>", 2, 3);
  td_tl_index_add(index, done);
}

static void
test_lanes(void)
{
  g_autoptr(TdTlIndex) index = td_tl_index_new();
  g_autoptr(TrEvent) created = event(TR_EVENT_FUNCTION_CREATED, 5, 2);
  td_tl_index_add(index, created);
  add_call(index, 1, 10, 20, TR_OUTCOME_MISS);
  add_call(index, 2, 30, 35, TR_OUTCOME_HIT);
  add_call(index, 1, 40, 41, TR_OUTCOME_EAGER);

  g_assert_cmpuint(td_tl_index_n_lanes(index), ==, 2);
  g_assert_cmpint(td_tl_index_lane_of(index, 2), ==, 0); /* created first */
  g_assert_cmpint(td_tl_index_lane_of(index, 1), ==, 1);
  g_assert_cmpint(td_tl_index_lane_of(index, 99), ==, -1);
  const TdTlLane *f1 = td_tl_index_get_lane(index, 1);
  g_assert_cmpstr(f1->name, ==, "f1");
  g_assert_cmpuint(f1->calls->len, ==, 2);
  const TdTlCall *c0 = &g_array_index(f1->calls, TdTlCall, 0);
  g_assert_cmpint(c0->start_ns, ==, 10);
  g_assert_cmpint(c0->end_ns, ==, 20);
  g_assert_cmpint(c0->outcome, ==, TR_OUTCOME_MISS);
  g_assert_cmpint(c0->cf_id, ==, 7);
  g_assert_cmpstr(c0->file, ==, "<cell 3>");
  g_assert_cmpint(c0->line, ==, 2);
  g_assert_cmpint(g_array_index(f1->calls, TdTlCall, 1).outcome, ==, TR_OUTCOME_EAGER);
  g_assert_cmpint(f1->open, ==, 0);
  g_assert_cmpuint(td_tl_index_n_calls(index), ==, 3);
  g_assert_cmpint(td_tl_index_first_ts(index), ==, 5);
  g_assert_cmpint(td_tl_index_last_ts(index), ==, 41);
  /* both files share one interned string */
  g_assert_true(c0->file == g_array_index(f1->calls, TdTlCall, 1).file);

  td_tl_index_clear(index);
  g_assert_cmpuint(td_tl_index_n_lanes(index), ==, 0);
  g_assert_cmpuint(td_tl_index_n_calls(index), ==, 0);
}

/* A call begun and not ended is open; a recursive call ends first and is put before. */
static void
test_open_and_nested_calls(void)
{
  g_autoptr(TdTlIndex) index = td_tl_index_new();
  g_autoptr(TrEvent) outer = event(TR_EVENT_CALL, 100, 1);
  outer->outcome = TR_OUTCOME_MISS;
  td_tl_index_add(index, outer);
  const TdTlLane *lane = td_tl_index_get_lane(index, 0);
  g_assert_cmpint(lane->open, ==, 1);
  g_assert_cmpint(lane->open_start_ns, ==, 100);
  g_assert_cmpint(lane->open_outcome, ==, TR_OUTCOME_MISS);
  add_call(index, 1, 150, 160, TR_OUTCOME_HIT); /* inner */
  g_assert_cmpint(lane->open, ==, 1);
  g_autoptr(TrEvent) trace = event(TR_EVENT_TRACE_END, 180, 1);
  trace->dur_ns = 70;
  td_tl_index_add(index, trace);
  g_autoptr(TrEvent) end = event(TR_EVENT_CALL_END, 200, 1);
  end->dur_ns = 100;
  end->outcome = TR_OUTCOME_MISS;
  td_tl_index_add(index, end);
  g_assert_cmpint(lane->open, ==, 0);
  g_assert_cmpuint(lane->calls->len, ==, 2);
  g_assert_cmpint(g_array_index(lane->calls, TdTlCall, 0).start_ns, ==, 100);
  g_assert_cmpint(g_array_index(lane->calls, TdTlCall, 1).start_ns, ==, 150);
  g_assert_cmpuint(lane->traces->len, ==, 1);
  g_assert_cmpint(g_array_index(lane->traces, TdTlSpan, 0).start_ns, ==, 110);
  /* the innermost call is the one under the pointer */
  g_assert_cmpint(td_tl_lane_call_at(lane, 155, 0), ==, 1);
  g_assert_cmpint(td_tl_lane_call_at(lane, 120, 0), ==, 0);
  g_assert_cmpint(td_tl_lane_call_at(lane, 205, 10), ==, 0);
  g_assert_cmpint(td_tl_lane_call_at(lane, 250, 10), ==, -1);
  guint first, endi;
  td_tl_lane_trace_range(lane, 0, 105, &first, &endi);
  g_assert_cmpuint(endi - first, ==, 0);
  td_tl_lane_trace_range(lane, 170, 300, &first, &endi);
  g_assert_cmpuint(endi - first, ==, 1);
}

/* 100 calls of 10 ns, one every 100 ns: a range sees exactly the calls overlapping it, and a
 * long call that began far before the range is still seen. */
static void
test_visible_range(void)
{
  g_autoptr(TdTlIndex) index = td_tl_index_new();
  for (int i = 0; i < 100; i++)
    add_call(index, 1, i * 100, i * 100 + 10, TR_OUTCOME_HIT);
  const TdTlLane *lane = td_tl_index_get_lane(index, 0);
  guint first, end;
  td_tl_lane_range(lane, 450, 1050, &first, &end);
  g_assert_cmpuint(first, ==, 5); /* call 4 ended at 410 */
  g_assert_cmpuint(end, ==, 11);  /* call 10 starts at 1000 */
  td_tl_lane_range(lane, 405, 405, &first, &end);
  g_assert_cmpuint(first, ==, 4);
  g_assert_cmpuint(end, ==, 5);
  td_tl_lane_range(lane, 20000, 30000, &first, &end);
  g_assert_cmpuint(end - first, ==, 0);
  td_tl_lane_range(lane, -50, -10, &first, &end);
  g_assert_cmpuint(end - first, ==, 0);

  add_call(index, 2, 50, 9000, TR_OUTCOME_MISS);
  for (int i = 0; i < 100; i++)
    add_call(index, 2, 10000 + i * 100, 10000 + i * 100 + 10, TR_OUTCOME_HIT);
  const TdTlLane *lane2 = td_tl_index_get_lane(index, 1);
  td_tl_lane_range(lane2, 8000, 10150, &first, &end);
  g_assert_cmpuint(first, ==, 0); /* the long call */
  g_assert_cmpuint(end, ==, 3);
}

/* 1,000 hits 1 ns long every 2 ns at 100 ns a pixel: one merged box 20 px wide, not 1,000;
 * a miss among them keeps its own pixel column in the miss colour. */
static void
test_merge_subpixel(void)
{
  g_autoptr(TdTlIndex) index = td_tl_index_new();
  for (int i = 0; i < 1000; i++)
    add_call(index, 1, i * 2, i * 2 + 1, i == 500 ? TR_OUTCOME_MISS : TR_OUTCOME_HIT);
  add_call(index, 1, 3000, 3500, TR_OUTCOME_EAGER); /* 5 px: its own box */
  const TdTlLane *lane = td_tl_index_get_lane(index, 0);
  g_autoptr(GArray) boxes = g_array_new(FALSE, FALSE, sizeof(TdTlBox));
  td_tl_lane_boxes(lane, 0, 100.0, 800, boxes);
  g_assert_cmpuint(boxes->len, ==, 4);
  const TdTlBox *b = (const TdTlBox *)boxes->data;
  /* hits in columns 0..9, the miss's column 10, hits from column 10 on… merged after it */
  g_assert_cmpint(b[0].outcome, ==, TR_OUTCOME_HIT);
  g_assert_cmpfloat(b[0].x0, ==, 0);
  g_assert_cmpfloat(b[0].x1, ==, 10);
  g_assert_cmpint(b[1].outcome, ==, TR_OUTCOME_MISS);
  g_assert_cmpfloat(b[1].x0, ==, 10);
  g_assert_cmpfloat(b[1].x1, ==, 11);
  g_assert_cmpint(b[2].outcome, ==, TR_OUTCOME_HIT);
  g_assert_cmpfloat(b[2].x0, ==, 11);
  g_assert_cmpfloat(b[2].x1, ==, 20);
  g_assert_cmpuint(b[0].n_calls + b[1].n_calls + b[2].n_calls, ==, 1000);
  g_assert_cmpint(b[3].outcome, ==, TR_OUTCOME_EAGER);
  g_assert_cmpfloat(b[3].x0, ==, 30);
  g_assert_cmpfloat(b[3].x1, ==, 35);
  g_assert_cmpuint(b[3].n_calls, ==, 1);

  /* zoomed in, every call is its own box; a view starting later skips the early ones */
  td_tl_lane_boxes(lane, 0, 0.1, 190, boxes);
  g_assert_cmpuint(boxes->len, ==, 10);
  g_assert_cmpuint(g_array_index(boxes, TdTlBox, 9).n_calls, ==, 1);
  td_tl_lane_boxes(lane, 3100, 1.0, 100, boxes);
  g_assert_cmpuint(boxes->len, ==, 1);
  g_assert_cmpfloat(g_array_index(boxes, TdTlBox, 0).x0, ==, -1); /* clipped at the left */
}

/* A million calls: the visible boxes come from a binary search, not a scan. */
static void
test_million_calls(void)
{
  g_autoptr(TdTlIndex) index = td_tl_index_new();
  for (int i = 0; i < 1000000; i++)
    add_call(index, 1 + i % 50, (gint64)i * 1000, (gint64)i * 1000 + 500, TR_OUTCOME_HIT);
  g_assert_cmpuint(td_tl_index_n_calls(index), ==, 1000000);
  g_autoptr(GArray) boxes = g_array_new(FALSE, FALSE, sizeof(TdTlBox));
  gint64 start = g_get_monotonic_time();
  guint drawn = 0;
  for (int frame = 0; frame < 100; frame++)
    for (guint l = 0; l < td_tl_index_n_lanes(index); l++) {
      td_tl_lane_boxes(td_tl_index_get_lane(index, l), 500000000 + frame * 1000, 50.0, 1000, boxes);
      drawn += boxes->len;
    }
  double ms = (g_get_monotonic_time() - start) / 1000.0 / 100;
  g_test_message("50 lanes of 20,000 calls: %.3f ms a frame", ms);
  g_assert_cmpuint(drawn, >, 0);
  g_assert_cmpfloat(ms, <, 5.0);
}

static void
test_cells(void)
{
  g_autoptr(TdTlIndex) index = td_tl_index_new();
  g_autoptr(TrEvent) s1 = event(TR_EVENT_CELL_START, 0, 0);
  s1->cell = 1;
  td_tl_index_add(index, s1);
  add_call(index, 1, 10, 20, TR_OUTCOME_HIT);
  const GArray *cells = td_tl_index_get_cells(index);
  g_assert_cmpuint(cells->len, ==, 1);
  g_assert_true(g_array_index(cells, TdTlSpan, 0).running);
  g_assert_cmpint(g_array_index(cells, TdTlSpan, 0).end_ns, ==, 20); /* grows while running */
  g_autoptr(TrEvent) e1 = event(TR_EVENT_CELL_END, 30, 0);
  e1->cell = 1;
  e1->dur_ns = 30;
  td_tl_index_add(index, e1);
  g_autoptr(TrEvent) s2 = event(TR_EVENT_CELL_START, 40, 0);
  s2->cell = 2;
  td_tl_index_add(index, s2);
  g_assert_cmpuint(cells->len, ==, 2);
  g_assert_false(g_array_index(cells, TdTlSpan, 0).running);
  g_assert_cmpint(g_array_index(cells, TdTlSpan, 0).end_ns, ==, 30);
  g_assert_cmpint(g_array_index(cells, TdTlSpan, 1).number, ==, 2);
  /* a cell_end whose cell_start was dropped still makes a band */
  g_autoptr(TrEvent) e9 = event(TR_EVENT_CELL_END, 100, 0);
  e9->cell = 9;
  e9->dur_ns = 10;
  td_tl_index_add(index, e9);
  g_assert_cmpuint(cells->len, ==, 3);
  g_assert_cmpint(g_array_index(cells, TdTlSpan, 2).start_ns, ==, 90);
}

/* When the store drops its oldest events, the calls and cells that ended before the oldest
 * kept one go too. */
static void
test_drop_front(void)
{
  g_autoptr(TdTlIndex) index = td_tl_index_new();
  g_autoptr(TrEvent) s1 = event(TR_EVENT_CELL_START, 0, 0);
  s1->cell = 1;
  td_tl_index_add(index, s1);
  for (int i = 0; i < 10; i++)
    add_call(index, 1, i * 100, i * 100 + 50, TR_OUTCOME_HIT);
  g_autoptr(TrEvent) e1 = event(TR_EVENT_CELL_END, 1000, 0);
  e1->cell = 1;
  e1->dur_ns = 1000;
  td_tl_index_add(index, e1);
  td_tl_index_drop_before(index, 420);
  const TdTlLane *lane = td_tl_index_get_lane(index, 0);
  g_assert_cmpuint(lane->calls->len, ==, 6);
  g_assert_cmpint(g_array_index(lane->calls, TdTlCall, 0).start_ns, ==, 400);
  g_assert_cmpuint(td_tl_index_n_calls(index), ==, 6);
  g_assert_cmpuint(td_tl_index_get_cells(index)->len, ==, 1);
  g_assert_cmpint(td_tl_index_first_ts(index), ==, 420);
  td_tl_index_drop_before(index, 2000);
  g_assert_cmpuint(lane->calls->len, ==, 0);
  g_assert_cmpuint(td_tl_index_get_cells(index)->len, ==, 0);
}

/* Zoomed out, whole blocks of sub-pixel calls are passed over in one step: the boxes are the
 * same as call by call, for runs of hits broken by misses, eager runs, wide calls and gaps. */
static void
test_block_skips_match_calls(void)
{
  g_autoptr(TdTlIndex) index = td_tl_index_new();
  GRand *rand = g_rand_new_with_seed(7);
  gint64 t = 0;
  for (int i = 0; i < 20000; i++) {
    gint64 step = g_rand_int_range(rand, 0, 100) < 97 ? g_rand_int_range(rand, 1, 20)
                                                      : g_rand_int_range(rand, 100, 3000);
    t += step;
    gint64 dur = g_rand_int_range(rand, 0, 1000) < 995 ? g_rand_int_range(rand, 0, 8)
                                                       : g_rand_int_range(rand, 50, 800);
    int r = g_rand_int_range(rand, 0, 1000);
    TrOutcome o = r < 990 ? TR_OUTCOME_HIT : r < 995 ? TR_OUTCOME_MISS : TR_OUTCOME_EAGER;
    add_call(index, 1, t, t + dur, o);
  }
  g_rand_free(rand);
  TdTlLane *lane = (TdTlLane *)td_tl_index_get_lane(index, 0);
  g_assert_cmpuint(lane->blocks->len, ==, 20000 / TD_TL_BLOCK);

  static const double scales[] = {0.5, 3, 10, 25, 60, 200, 1000, 5000};
  static const gint64 starts[] = {0, 12345, 99999};
  GPtrArray *fast = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
  for (guint s = 0; s < G_N_ELEMENTS(scales); s++)
    for (guint k = 0; k < G_N_ELEMENTS(starts); k++) {
      GArray *boxes = g_array_new(FALSE, FALSE, sizeof(TdTlBox));
      td_tl_lane_boxes(lane, starts[k], scales[s], 1000, boxes);
      g_ptr_array_add(fast, boxes);
    }
  /* Without summaries, the same views call by call. */
  g_array_set_size(lane->blocks, 0);
  guint n = 0, skipped_views = 0;
  for (guint s = 0; s < G_N_ELEMENTS(scales); s++)
    for (guint k = 0; k < G_N_ELEMENTS(starts); k++) {
      g_autoptr(GArray) slow = g_array_new(FALSE, FALSE, sizeof(TdTlBox));
      td_tl_lane_boxes(lane, starts[k], scales[s], 1000, slow);
      GArray *quick = fast->pdata[n++];
      g_assert_cmpuint(quick->len, ==, slow->len);
      for (guint b = 0; b < slow->len; b++) {
        const TdTlBox *x = &g_array_index(quick, TdTlBox, b), *y = &g_array_index(slow, TdTlBox, b);
        g_assert_cmpfloat(x->x0, ==, y->x0);
        g_assert_cmpfloat(x->x1, ==, y->x1);
        g_assert_cmpint(x->outcome, ==, y->outcome);
        g_assert_cmpuint(x->n_calls, ==, y->n_calls);
        g_assert_cmpuint(x->first_call, ==, y->first_call);
      }
      skipped_views += slow->len > 0 && slow->len < 200;
    }
  g_assert_cmpuint(skipped_views, >, 0); /* some views were zoomed out enough to merge */
  g_ptr_array_unref(fast);
}

/* A cell from `start` to `end` (its start and end events). */
static void
add_cell(TdTlIndex *index, gint64 number, gint64 start, gint64 end, gboolean ends)
{
  g_autoptr(TrEvent) s = event(TR_EVENT_CELL_START, start, 0);
  s->cell = number;
  td_tl_index_add(index, s);
  add_call(index, 1, start + 1000, start + 2000, TR_OUTCOME_HIT);
  if (!ends)
    return;
  g_autoptr(TrEvent) e = event(TR_EVENT_CELL_END, end, 0);
  e->cell = number;
  e->dur_ns = end - start;
  td_tl_index_add(index, e);
}

/* A minute of idle time between two 10 ms cells is shortened to a tenth of what came before
 * (at least 1 ms): the second cell's call lands 11 ms after the first's, not 60 s; real times
 * are told back; a pause inside a running cell is not shortened. */
static void
test_idle_gaps(void)
{
  const gint64 ms = 1000000, s = 1000 * ms;
  g_autoptr(TdTlIndex) index = td_tl_index_new();
  add_cell(index, 1, 0, 10 * ms, TRUE);
  add_cell(index, 2, 60 * s, 60 * s + 10 * ms, TRUE);
  const GArray *gaps = td_tl_index_get_gaps(index);
  g_assert_cmpuint(gaps->len, ==, 1);
  const TdTlGap *gap = &g_array_index(gaps, TdTlGap, 0);
  g_assert_cmpint(gap->start_ns, ==, 10 * ms);
  g_assert_cmpint(gap->shown_ns, ==, 1 * ms);
  g_assert_cmpint(gap->real_ns, ==, 60 * s - 10 * ms);
  const GArray *cells = td_tl_index_get_cells(index);
  g_assert_cmpint(g_array_index(cells, TdTlSpan, 1).start_ns, ==, 11 * ms);
  g_assert_cmpint(g_array_index(cells, TdTlSpan, 1).end_ns, ==, 21 * ms);
  const TdTlLane *lane = td_tl_index_get_lane(index, 0);
  g_assert_cmpint(g_array_index(lane->calls, TdTlCall, 1).start_ns, ==, 11 * ms + 1000);
  g_assert_cmpint(td_tl_index_last_ts(index) - td_tl_index_first_ts(index), ==, 21 * ms);
  /* back and forth between the two scales */
  g_assert_cmpfloat(td_tl_index_real_ts(index, 5 * ms), ==, 5 * ms);
  g_assert_cmpfloat(td_tl_index_real_ts(index, 11 * ms + 1000), ==, 60 * s + 1000);
  g_assert_cmpint(td_tl_index_view_ts(index, 60 * s + 1000), ==, 11 * ms + 1000);
  g_assert_cmpint(td_tl_index_view_ts(index, 3 * ms), ==, 3 * ms);
  double mid = td_tl_index_real_ts(index, 10.5 * ms); /* inside the gap: pro rata */
  g_assert_cmpfloat(mid, >, 29 * s);
  g_assert_cmpfloat(mid, <, 31 * s);
  /* the store dropping events up to the second cell (real time) drops the first cell */
  td_tl_index_drop_before(index, 60 * s);
  g_assert_cmpuint(cells->len, ==, 1);
  g_assert_cmpint(td_tl_index_first_ts(index), ==, 11 * ms);

  /* a cell that sleeps 5 s between two calls keeps its real length */
  g_autoptr(TdTlIndex) busy = td_tl_index_new();
  add_cell(busy, 1, 0, 0, FALSE);
  add_call(busy, 1, 5 * s, 5 * s + 1000, TR_OUTCOME_HIT);
  g_assert_cmpuint(td_tl_index_get_gaps(busy)->len, ==, 0);
  g_assert_cmpint(td_tl_index_last_ts(busy), ==, 5 * s + 1000);
  /* nor is a second of idle time */
  g_autoptr(TdTlIndex) short_idle = td_tl_index_new();
  add_cell(short_idle, 1, 0, 10 * ms, TRUE);
  add_cell(short_idle, 2, 1 * s, 1 * s + 10 * ms, TRUE);
  g_assert_cmpuint(td_tl_index_get_gaps(short_idle)->len, ==, 0);
  /* clearing forgets the gaps */
  td_tl_index_clear(index);
  g_assert_cmpuint(td_tl_index_get_gaps(index)->len, ==, 0);
  g_assert_cmpint(td_tl_index_view_ts(index, 60 * s), ==, 60 * s);
}

/* Tick labels 20.8 s into a session tell neighbouring ticks apart at every zoom (they all read
 * "20.8 s" with three significant digits). */
static void
test_tick_labels(void)
{
  static const double steps[] = {1, 20, 500, 1e4, 2e5, 1e6, 5e7, 1e8, 2e9};
  for (guint i = 0; i < G_N_ELEMENTS(steps); i++) {
    double t = ceil(20.8e9 / steps[i]) * steps[i];
    g_autofree char *a = td_tl_tick_label(t, steps[i]);
    g_autofree char *b = td_tl_tick_label(t + steps[i], steps[i]);
    g_assert_cmpstr(a, !=, b);
  }
  g_autofree char *s = td_tl_tick_label(20.8125e9, 5e5);
  g_assert_cmpstr(s, ==, "20.8125 s");
  g_autofree char *whole = td_tl_tick_label(22e9, 2e9);
  g_assert_cmpstr(whole, ==, "22 s");
  g_autofree char *small = td_tl_tick_label(1500, 500);
  g_assert_cmpstr(small, ==, "1.5 µs");
  g_autofree char *zero = td_tl_tick_label(0, 1e6);
  g_assert_cmpstr(zero, ==, "0 ns");
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/views/timeline-index/lanes-per-function", test_lanes);
  g_test_add_func("/views/timeline-index/open-and-nested-calls", test_open_and_nested_calls);
  g_test_add_func("/views/timeline-index/visible-range", test_visible_range);
  g_test_add_func("/views/timeline-index/merge-subpixel-calls", test_merge_subpixel);
  g_test_add_func("/views/timeline-index/million-calls", test_million_calls);
  g_test_add_func("/views/timeline-index/block-skips-match-calls", test_block_skips_match_calls);
  g_test_add_func("/views/timeline-index/cells", test_cells);
  g_test_add_func("/views/timeline-index/drop-front", test_drop_front);
  g_test_add_func("/views/timeline-index/idle-gaps-shortened", test_idle_gaps);
  g_test_add_func("/views/timeline-index/tick-labels-differ", test_tick_labels);
  return g_test_run();
}
