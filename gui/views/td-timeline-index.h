/* td-timeline-index.h — what the timeline draws, indexed for drawing only what is visible:
 * one lane per Function holding its calls (and the traces inside misses) sorted by start time,
 * and the cells as spans.
 *
 * Events are added in sequence order as they arrive (td_tl_index_add); a call is indexed when
 * its call_end arrives (start = end - dur_ns), and until then shows as an open call. The
 * visible part of a lane is found by binary search, and calls narrower than a pixel are merged
 * into one box per run of pixel columns (td_tl_lane_boxes), so drawing costs O(width + log n)
 * boxes per lane even with a million events. Zoomed out, runs of such calls are passed over a
 * block of TD_TL_BLOCK calls at a time (their summaries say the block changes nothing but the
 * run's length), so the work per frame is about calls / TD_TL_BLOCK, not calls. Plain C (no
 * GTK), tested without a display.
 *
 * Idle time is shortened: when nothing runs (no cell, no call open) for longer than
 * TD_TL_GAP_MIN_NS, the next event and all after it are moved back so that the gap takes a
 * tenth of the time shown before it (1 ms to 1 s). Otherwise minutes between cells would
 * squash a cell's calls into slivers. Every time the index holds (calls, cells, first and
 * last) is on this "view time" scale; each shortened gap is kept (td_tl_index_get_gaps), so
 * that real times can be told back (td_tl_index_real_ts) and the gaps drawn as such.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>

#include "tr-events.h"

G_BEGIN_DECLS

/* One finished call. */
typedef struct {
  gint64 start_ns;  /* when the call began */
  gint64 end_ns;    /* when it returned */
  gint64 cf_id;     /* the ConcreteFunction that served it (0: none) */
  const char *file; /* call site, interned by the index */
  gint32 line;      /* call site line */
  guint8 outcome;   /* TrOutcome: hit, miss or eager */
  bool ok;          /* returned without an exception */
} TdTlCall;

/* A span of time: a trace inside a miss, or a cell. */
typedef struct {
  gint64 start_ns; /* begin */
  gint64 end_ns;   /* end (for a running cell: the newest time seen) */
  gint64 number;   /* a cell's execution count; 0 for a trace */
  bool running;    /* a cell that has not ended */
} TdTlSpan;

/* A summary of TD_TL_BLOCK consecutive calls of a lane, so that a zoomed-out view passes over
 * a run of sub-pixel calls in one step instead of call by call. Small blocks, because one call
 * of another outcome (an eager run among hits) sends its block back to call by call. */
#define TD_TL_BLOCK 8
typedef struct {
  gint64 max_dur_ns;  /* the longest call */
  gint64 max_step_ns; /* the largest step between consecutive calls' starts */
  guint8 min_outcome; /* the outcomes among them: equal when all calls share one */
  guint8 max_outcome;
} TdTlBlock;

/* One Function's lane. */
typedef struct {
  gint64 fn_id;         /* Function id */
  char *name;           /* its Python name */
  GArray *calls;        /* TdTlCall, sorted by start_ns */
  GArray *blocks;       /* TdTlBlock for each whole TD_TL_BLOCK calls */
  GArray *traces;       /* TdTlSpan, sorted by start_ns */
  gint64 max_call_ns;   /* longest call: how far back a visible call may start */
  gint64 max_trace_ns;  /* longest trace */
  int open;             /* calls begun and not yet ended */
  gint64 open_start_ns; /* start of the oldest open call */
  guint8 open_outcome;  /* its outcome */
} TdTlLane;

/* What one lane draws in a pixel range: a call, or a run of sub-pixel calls merged. */
typedef struct {
  double x0;        /* left, in pixels from the view's left edge */
  double x1;        /* right */
  guint8 outcome;   /* TrOutcome; for merged calls the most notable (miss > eager > hit) */
  guint n_calls;    /* calls it stands for */
  guint first_call; /* index of the first of them in the lane */
} TdTlBox;

/* An idle gap shortened on the view-time scale. */
typedef struct {
  gint64 start_ns; /* view time where it begins (the last event before it) */
  gint64 shown_ns; /* how long it lasts in view time */
  gint64 real_ns;  /* how long it really lasted */
  gint64 shift_ns; /* real minus view time after it: the sum of the shortenings so far */
} TdTlGap;

/* Idle time longer than this is shortened. */
#define TD_TL_GAP_MIN_NS G_GINT64_CONSTANT(1000000000)

typedef struct _TdTlIndex TdTlIndex;

TdTlIndex *td_tl_index_new(void);
void td_tl_index_free(TdTlIndex *index);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TdTlIndex, td_tl_index_free)

/* Forget everything (a store "reset"). */
void td_tl_index_clear(TdTlIndex *index);
/* Index one event (borrowed); events must come in sequence order. */
void td_tl_index_add(TdTlIndex *index, const TrEvent *ev);
/* Forget calls, traces and cells that ended before event time `ts_ns` (the store dropped
 * their events). */
void td_tl_index_drop_before(TdTlIndex *index, gint64 ts_ns);

/* The time of the first and newest event indexed (both 0 when empty). */
gint64 td_tl_index_first_ts(const TdTlIndex *index);
gint64 td_tl_index_last_ts(const TdTlIndex *index);
/* The shortened idle gaps (TdTlGap), in time order. */
const GArray *td_tl_index_get_gaps(const TdTlIndex *index);
/* The event time (real) of view time `t_ns`: inside a gap, the gap's real time pro rata. */
double td_tl_index_real_ts(const TdTlIndex *index, double t_ns);
/* The view time of event time `ts_ns`. */
gint64 td_tl_index_view_ts(const TdTlIndex *index, gint64 ts_ns);
/* Finished calls indexed, all lanes. */
guint64 td_tl_index_n_calls(const TdTlIndex *index);

/* Lanes in order of the Functions' first appearance. */
guint td_tl_index_n_lanes(const TdTlIndex *index);
const TdTlLane *td_tl_index_get_lane(const TdTlIndex *index, guint i);
/* The lane of a Function, or -1. */
int td_tl_index_lane_of(const TdTlIndex *index, gint64 fn_id);
/* Cells (TdTlSpan), in start order. */
const GArray *td_tl_index_get_cells(const TdTlIndex *index);

/* The calls of `lane` overlapping [t0, t1]: indices [*first, *end). */
void td_tl_lane_range(const TdTlLane *lane, gint64 t0, gint64 t1, guint *first, guint *end);
/* The traces of `lane` overlapping [t0, t1]: indices [*first, *end). */
void td_tl_lane_trace_range(const TdTlLane *lane, gint64 t0, gint64 t1, guint *first, guint *end);
/* Replace `boxes` (of TdTlBox) with what `lane` draws in a view starting at `t0_ns`, with
 * `ns_per_px` nanoseconds per pixel, `width_px` pixels wide. */
void td_tl_lane_boxes(const TdTlLane *lane, gint64 t0_ns, double ns_per_px, double width_px,
                      GArray *boxes);
/* The call of `lane` at time `t_ns`, within `slack_ns` of it (the nearest one), or -1. */
int td_tl_lane_call_at(const TdTlLane *lane, gint64 t_ns, gint64 slack_ns);

/* A time axis label for event time `t_ns` on ticks `step_ns` apart: as many decimals as the
 * step needs, so that neighbouring ticks differ ("20.8125 s", "20.813 s"). Transfer full. */
char *td_tl_tick_label(double t_ns, double step_ns);

G_END_DECLS
