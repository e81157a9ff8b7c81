/* bench-debugger.c — the debugger's two costs that grow with a program's size, against their
 * targets (it prints; it does not assert):
 *
 *  1. graph layout: a 1,000-node, ~1,000-edge graph JSON laid out by TdGraphLayout (target
 *     under 1 s);
 *  2. live ingest: 100,000 events a second (call/call_end pairs across 50 Functions, and
 *     cells) fed to a TdStore in batches as the client delivers them, with a TdTimeline in a
 *     window drawing them, until a million events are kept. Measured: the events per second
 *     sustained and the longest main-loop stall (the largest gap between ticks of a 5 ms
 *     timeout; target under 50 ms). Run three times: the timeline alone, then the whole
 *     debugger window (Functions table and timeline fed by its store) as it opens, on its
 *     Traces page, then with its Events page showing, where the event log follows the stream
 *     too.
 *
 *  3. a million calls kept: 1,000,000 cached calls as a program makes them (call, graph run
 *     start and end, call_end: 4,000,000 events), fed as fast as the store takes them in
 *     batches of 4,000 events to a TdStore with a TdTimeline drawing it. Measured: the memory
 *     the process grew by (resident set, freed heap given back first) and the store's own count
 *     (target under 300 MB), events per second, the longest batch and main-loop stall (target
 *     under 50 ms), and that every call is kept.
 *
 * Parts 2 and 3 need a display: `meson test --benchmark` runs them under xvfb-run. Usage:
 * bench-debugger [SECONDS] [CALLS] (defaults 10: a million events at 100,000 a second, and
 * 1,000,000 calls).
 */
#include "td-graph-layout.h"
#include "td-timeline.h"
#include "td-window.h"

#include <glib/gstdio.h>
#include <malloc.h>
#include <unistd.h>

#define N_FUNCTIONS    50
#define EVENTS_PER_SEC 100000
#define BATCH_MS       10 /* how often the client hands over a batch */
#define TICK_MS        5  /* the stall probe's period */
#define CELL_EVERY_NS  G_GINT64_CONSTANT(1000000000)

/* ---- 1. layout ------------------------------------------------------------------------------ */

/* 1,000 ops: a chain, every tenth op also reading the first. Transfer full. */
static char *
thousand_node_json(void)
{
  GString *s = g_string_new("{\"name\":\"bench\",\"nodes\":[");
  for (int i = 0; i < 1000; i++) {
    g_string_append_printf(s, "%s{\"name\":\"op_%d\",\"op\":\"%s\",\"inputs\":[", i ? "," : "", i,
                           i == 0   ? "Placeholder"
                           : i % 10 ? "Tanh"
                                    : "AddV2");
    if (i > 0)
      g_string_append_printf(s, "\"op_%d\"%s", i - 1, i % 10 == 0 ? ",\"op_0\"" : "");
    g_string_append(s, "],\"outputs\":[{\"dtype\":\"float32\",\"shape\":[2,2]}]}");
  }
  g_string_append(s, "]}");
  return g_string_free(s, FALSE);
}

static void
bench_layout(void)
{
  g_autofree char *json = thousand_node_json();
  gint64 start = g_get_monotonic_time();
  g_autoptr(GError) error = NULL;
  g_autoptr(TdGraphLayout) layout = td_graph_layout_new_from_json(json, &error);
  double seconds = (g_get_monotonic_time() - start) / 1e6;
  if (!layout) {
    g_print("layout: failed: %s\n", error->message);
    return;
  }
  g_print("layout: 1,000 nodes, %u edges (%u boxes with proxies): %.3f s "
          "(Graphviz %.3f s); target < 1 s: %s\n",
          td_graph_layout_n_edges(layout), td_graph_layout_n_nodes(layout), seconds,
          td_graph_layout_get_seconds(layout), seconds < 1.0 ? "met" : "MISSED");
}

/* ---- 2. ingest ------------------------------------------------------------------------------ */

/* The synthetic session. */
typedef struct {
  TdStore *store;          /* fed */
  GMainLoop *loop;         /* quit when done */
  guint64 seq;             /* last sequence number */
  gint64 ts;               /* synthetic clock, ns */
  gint64 next_cell_ts;     /* when the next cell starts */
  gint64 cell;             /* current cell number */
  guint64 n_events;        /* events fed */
  guint64 target;          /* events to feed */
  gint64 start_us;         /* wall clock at the start */
  gint64 last_tick_us;     /* the stall probe's last tick */
  gint64 max_gap_us;       /* the longest gap between its ticks */
  gint64 max_gap_at_us;    /* when it ended, from the start */
  gint64 apply_us;         /* time inside td_store_apply_events */
  gint64 max_apply_us;     /* the longest batch */
  guint frames;            /* frames the timeline drew */
  guint fn_turn;           /* which Function calls next */
  guint n_batches;         /* batches fed */
  bool redraw_every_frame; /* draw the widget every frame (else it redraws when it changes) */
} Session;

static TrEvent *
next_event(Session *s, TrEventKind kind)
{
  TrEvent *ev = tr_event_new(kind);
  ev->seq = ++s->seq;
  ev->ts_ns = s->ts;
  return ev;
}

static void
set_fn(TrEvent *ev, guint fn)
{
  ev->fn_id = fn + 1;
  ev->fn_name = g_strdup_printf("fn_%02u", fn);
}

static void
add_cell_events(Session *s, GPtrArray *batch)
{
  if (s->cell > 0) {
    TrEvent *end = next_event(s, TR_EVENT_CELL_END);
    end->cell = s->cell;
    end->dur_ns = CELL_EVERY_NS;
    g_ptr_array_add(batch, end);
  }
  TrEvent *start = next_event(s, TR_EVENT_CELL_START);
  start->cell = ++s->cell;
  g_ptr_array_add(batch, start);
  s->next_cell_ts += CELL_EVERY_NS;
}

/* One call: a miss the first time a Function is called, hits after, now and then eager. */
static void
add_call(Session *s, GPtrArray *batch, gint64 gap_ns)
{
  guint fn = s->fn_turn++ % N_FUNCTIONS;
  TrOutcome outcome = s->fn_turn <= N_FUNCTIONS ? TR_OUTCOME_MISS
                      : s->fn_turn % 97 == 0    ? TR_OUTCOME_EAGER
                                                : TR_OUTCOME_HIT;
  gint64 dur = gap_ns / 2;
  TrEvent *call = next_event(s, TR_EVENT_CALL);
  set_fn(call, fn);
  call->outcome = outcome;
  call->cf_id = fn + 1;
  tr_event_set_site(call, "<cell 1>", (int)fn + 1, s->cell);
  g_ptr_array_add(batch, call);
  s->ts += dur;
  TrEvent *end = next_event(s, TR_EVENT_CALL_END);
  set_fn(end, fn);
  end->outcome = outcome;
  end->cf_id = fn + 1;
  end->dur_ns = dur;
  tr_event_set_site(end, "<cell 1>", (int)fn + 1, s->cell);
  g_ptr_array_add(batch, end);
  s->ts += gap_ns - dur;
}

/* Every BATCH_MS, the events that arrived since the last batch (all of them, however late the
 * main loop is: a client drains its socket), at EVENTS_PER_SEC from the start. */
static gboolean
feed_batch(gpointer data)
{
  Session *s = data;
  g_autoptr(GPtrArray) batch = g_ptr_array_new_with_free_func((GDestroyNotify)tr_event_unref);
  double arrived = (g_get_monotonic_time() - s->start_us) / 1e6 * EVENTS_PER_SEC;
  guint64 due = MIN((guint64)arrived, s->target);
  guint per_batch = due > s->n_events ? (guint)(due - s->n_events) : 0;
  gint64 gap_ns = G_GINT64_CONSTANT(1000000000) / (EVENTS_PER_SEC / 2);
  while (batch->len < per_batch) {
    if (s->ts >= s->next_cell_ts)
      add_cell_events(s, batch);
    add_call(s, batch, gap_ns);
  }
  gint64 t = g_get_monotonic_time();
  td_store_apply_events(s->store, batch);
  gint64 took = g_get_monotonic_time() - t;
  s->apply_us += took;
  s->max_apply_us = MAX(s->max_apply_us, took);
  if (g_getenv("BENCH_DEBUGGER_GAPS") && took > 5000)
    g_printerr("batch of %u events: %.1f ms at %.2f s\n", batch->len, took / 1000.0,
               (g_get_monotonic_time() - s->start_us) / 1e6);
  s->n_events += batch->len;
  s->n_batches++;
  if (s->n_events >= s->target) {
    g_main_loop_quit(s->loop);
    return G_SOURCE_REMOVE;
  }
  return G_SOURCE_CONTINUE;
}

static gboolean
stall_probe(gpointer data)
{
  Session *s = data;
  gint64 now = g_get_monotonic_time();
  if (s->last_tick_us && now - s->last_tick_us > s->max_gap_us) {
    s->max_gap_us = now - s->last_tick_us;
    s->max_gap_at_us = now - s->start_us;
  }
  if (g_getenv("BENCH_DEBUGGER_GAPS") && s->last_tick_us && now - s->last_tick_us > 30000)
    g_printerr("gap %.1f ms at %.2f s (%" G_GUINT64_FORMAT " events)\n",
               (now - s->last_tick_us) / 1000.0, (now - s->start_us) / 1e6, s->n_events);
  s->last_tick_us = now;
  return G_SOURCE_CONTINUE;
}

static gboolean
count_frame(GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  Session *s = data;
  s->frames++;
  if (s->redraw_every_frame)
    gtk_widget_queue_draw(widget); /* the timeline alone: keep drawing, as a live view does */
  return G_SOURCE_CONTINUE;
}

static void
add_function_events(Session *s)
{
  g_autoptr(GPtrArray) batch = g_ptr_array_new_with_free_func((GDestroyNotify)tr_event_unref);
  for (guint fn = 0; fn < N_FUNCTIONS; fn++) {
    TrEvent *ev = next_event(s, TR_EVENT_FUNCTION_CREATED);
    set_fn(ev, fn);
    g_ptr_array_add(batch, ev);
  }
  td_store_apply_events(s->store, batch);
  s->n_events += batch->len;
}

/* The whole debugger window, running an empty script in-process, whose store the synthetic
 * events are then fed to (its Functions table, event log and timeline all live). */
static TdWindow *
open_debugger_window(GtkApplication *app, char **script_path)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp("bench-debugger-XXXXXX", &error);
  *script_path = dir ? g_build_filename(dir, "empty.py", NULL) : NULL;
  if (!*script_path || !g_file_set_contents(*script_path, "pass\n", -1, &error)) {
    g_print("ingest (window): skipped: %s\n", error ? error->message : "no temporary directory");
    return NULL;
  }
  TdWindow *win = td_window_new(app);
  gtk_window_set_default_size(GTK_WINDOW(win), 1400, 900);
  gtk_window_present(GTK_WINDOW(win));
  if (!td_window_open_file(win, *script_path, &error)) {
    g_print("ingest (window): skipped: %s\n", error->message);
    gtk_window_destroy(GTK_WINDOW(win));
    return NULL;
  }
  while (td_window_get_status(win, NULL) != TD_CLIENT_FINISHED)
    g_main_context_iteration(NULL, TRUE);
  return win;
}

/* Feeds `s` (its store set) for its target, with `drawn` redrawn every frame, and prints. */
static void
run_ingest(Session *s, GtkWidget *drawn, const char *what)
{
  while (!gtk_widget_get_mapped(drawn))
    g_main_context_iteration(NULL, TRUE);
  gtk_widget_add_tick_callback(drawn, count_frame, s, NULL);
  add_function_events(s);

  s->start_us = g_get_monotonic_time();
  g_timeout_add(BATCH_MS, feed_batch, s); /* removes itself */
  guint probe = g_timeout_add(TICK_MS, stall_probe, s);
  g_main_loop_run(s->loop);
  double elapsed = (g_get_monotonic_time() - s->start_us) / 1e6;
  g_source_remove(probe);

  double rate = s->n_events / elapsed;
  g_print("ingest (%s): %" G_GUINT64_FORMAT " events in %.2f s = %.0f events/s (target %d: %s)\n",
          what, s->n_events, elapsed, rate, EVENTS_PER_SEC,
          rate >= EVENTS_PER_SEC * 0.95 ? "met" : "MISSED");
  g_print("ingest (%s): longest main-loop stall %.1f ms at %.2f s (gap between %d ms ticks; "
          "target < 50 ms: %s); store per %d ms batch: mean %.2f ms, max %.2f ms; %u frames "
          "(%.0f/s)\n",
          what, s->max_gap_us / 1000.0, s->max_gap_at_us / 1e6, TICK_MS,
          s->max_gap_us < 50000 ? "met" : "MISSED", BATCH_MS,
          s->apply_us / 1000.0 / MAX(s->n_batches, 1), s->max_apply_us / 1000.0, s->frames,
          s->frames / elapsed);
}

/* One frame of the timeline with everything kept, zoomed out: its snapshot, then rendering. */
static void
time_one_frame(GtkWidget *timeline, TdStore *store)
{
  int w = gtk_widget_get_width(timeline), h = gtk_widget_get_height(timeline);
  gint64 t = g_get_monotonic_time();
  GtkSnapshot *snapshot = gtk_snapshot_new();
  GTK_WIDGET_GET_CLASS(timeline)->snapshot(timeline, snapshot); /* what a frame calls */
  GskRenderNode *node = gtk_snapshot_free_to_node(snapshot);
  double snapshot_ms = (g_get_monotonic_time() - t) / 1000.0;
  t = g_get_monotonic_time();
  if (node) {
    GskRenderer *renderer = gtk_native_get_renderer(gtk_widget_get_native(timeline));
    g_autoptr(GdkTexture) texture =
        gsk_renderer_render_texture(renderer, node, &GRAPHENE_RECT_INIT(0, 0, w, h));
    gsk_render_node_unref(node);
  }
  double render_ms = (g_get_monotonic_time() - t) / 1000.0;
  const TdTlIndex *index = td_timeline_get_index(TD_TIMELINE(timeline));
  g_print("ingest: one frame of the timeline (%dx%d) with %u events kept (%" G_GUINT64_FORMAT
          " calls in %u lanes), zoomed out: snapshot %.2f ms, rendering %.2f ms (%s)\n",
          w, h, (guint)tr_event_log_length(tr_state_event_log(td_store_get_state(store))),
          td_tl_index_n_calls(index), td_tl_index_n_lanes(index), snapshot_ms, render_ms,
          G_OBJECT_TYPE_NAME(gtk_native_get_renderer(gtk_widget_get_native(timeline))));
}

static void
bench_ingest_timeline(double seconds)
{
  Session s = {.store = td_store_new(G_MAXUINT),
               .loop = g_main_loop_new(NULL, FALSE),
               .redraw_every_frame = true};
  s.target = (guint64)(seconds * EVENTS_PER_SEC);
  GtkWidget *timeline = td_timeline_new();
  td_timeline_set_store(TD_TIMELINE(timeline), s.store);
  GtkWidget *window = gtk_window_new();
  gtk_window_set_default_size(GTK_WINDOW(window), 1200, 800);
  gtk_window_set_child(GTK_WINDOW(window), timeline);
  gtk_window_present(GTK_WINDOW(window));
  run_ingest(&s, timeline, "timeline alone");
  time_one_frame(timeline, s.store);
  gtk_window_destroy(GTK_WINDOW(window));
  g_main_loop_unref(s.loop);
  g_object_unref(s.store);
}

static void
bench_ingest_window(double seconds, gboolean show_log)
{
  g_autoptr(GtkApplication) app =
      gtk_application_new("org.trellis.Debugger.Bench", G_APPLICATION_NON_UNIQUE);
  if (!g_application_register(G_APPLICATION(app), NULL, NULL))
    return;
  g_autofree char *script = NULL;
  TdWindow *win = open_debugger_window(app, &script);
  if (!win)
    return;
  TdStore *store = td_window_get_store(win);
  Session s = {.store = g_object_ref(store), .loop = g_main_loop_new(NULL, FALSE)};
  s.seq = tr_state_last_seq(td_store_get_state(store));
  s.ts = tr_state_last_ts(td_store_get_state(store)) + 1;
  s.next_cell_ts = s.ts;
  s.cell = 1;
  s.target = (guint64)(seconds * EVENTS_PER_SEC);
  if (show_log) /* Ctrl+F: the Events page, its search entry focused */
    gtk_widget_activate_action(GTK_WIDGET(win), "win.search", NULL);
  run_ingest(&s, GTK_WIDGET(win),
             show_log ? "debugger window, Events page: timeline, Functions, event log"
                      : "debugger window, Traces page: timeline, Functions, traces");
  gtk_window_destroy(GTK_WINDOW(win));
  while (g_main_context_iteration(NULL, FALSE))
    ;
  g_main_loop_unref(s.loop);
  g_object_unref(s.store);
  g_autofree char *dir = g_path_get_dirname(script);
  g_unlink(script);
  g_rmdir(dir);
}

/* ---- 3. a million calls kept ------------------------------------------------------------- */

#define MEMORY_BATCH 4000 /* events per batch: 10 ms of a client at 400,000 events a second */

/* Resident bytes of this process, after the heap gave back what is free. */
static gsize
resident_bytes(void)
{
  malloc_trim(0);
  g_autofree char *statm = NULL;
  if (!g_file_get_contents("/proc/self/statm", &statm, NULL, NULL))
    return 0;
  guint64 size = 0, resident = 0;
  if (sscanf(statm, "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT, &size, &resident) != 2)
    return 0;
  return (gsize)resident * (gsize)sysconf(_SC_PAGESIZE);
}

typedef struct {
  TdStore *store;
  GMainLoop *loop;
  guint64 seq;
  gint64 ts;
  guint64 calls;       /* calls fed */
  guint64 target;      /* calls to feed */
  gint64 last_tick_us; /* the stall probe */
  gint64 max_gap_us;
  gint64 max_apply_us; /* the longest batch */
} MemorySession;

static TrEvent *
memory_event(MemorySession *m, TrEventKind kind, guint fn)
{
  TrEvent *ev = tr_event_new(kind);
  ev->seq = ++m->seq;
  ev->ts_ns = m->ts;
  ev->fn_id = fn + 1;
  ev->fn_name = g_strdup_printf("fn_%02u", fn);
  ev->cf_id = fn + 1;
  return ev;
}

/* One batch of whole calls, as a client delivers them. */
static gboolean
memory_feed(gpointer data)
{
  MemorySession *m = data;
  g_autoptr(GPtrArray) batch = g_ptr_array_new_with_free_func((GDestroyNotify)tr_event_unref);
  while (batch->len + 4 <= MEMORY_BATCH && m->calls < m->target) {
    guint fn = (guint)(m->calls % N_FUNCTIONS);
    gint64 graph = G_GINT64_CONSTANT(0x55d1c0ffee00) + fn * 4096; /* a Graph's address */
    TrEvent *call = memory_event(m, TR_EVENT_CALL, fn);
    call->outcome = TR_OUTCOME_HIT;
    tr_event_set_site(call, "<cell 2>", (int)fn + 3, 2);
    g_ptr_array_add(batch, call);
    m->ts += 200;
    TrEvent *run = memory_event(m, TR_EVENT_GRAPH_EXEC_START, fn);
    run->graph_id = graph;
    g_ptr_array_add(batch, run);
    m->ts += 600;
    run = memory_event(m, TR_EVENT_GRAPH_EXEC_END, fn);
    run->graph_id = graph;
    run->dur_ns = 600;
    g_ptr_array_add(batch, run);
    m->ts += 200;
    TrEvent *end = memory_event(m, TR_EVENT_CALL_END, fn);
    end->outcome = TR_OUTCOME_HIT;
    end->dur_ns = 1000;
    tr_event_set_site(end, "<cell 2>", (int)fn + 3, 2);
    g_ptr_array_add(batch, end);
    m->ts += 300;
    m->calls++;
  }
  gint64 t = g_get_monotonic_time();
  td_store_apply_events(m->store, batch);
  m->max_apply_us = MAX(m->max_apply_us, g_get_monotonic_time() - t);
  if (m->calls >= m->target) {
    g_main_loop_quit(m->loop);
    return G_SOURCE_REMOVE;
  }
  return G_SOURCE_CONTINUE;
}

static gboolean
memory_probe(gpointer data)
{
  MemorySession *m = data;
  gint64 now = g_get_monotonic_time();
  if (m->last_tick_us)
    m->max_gap_us = MAX(m->max_gap_us, now - m->last_tick_us);
  m->last_tick_us = now;
  return G_SOURCE_CONTINUE;
}

static void
bench_memory(guint64 calls)
{
  GtkWidget *timeline = td_timeline_new();
  GtkWidget *window = gtk_window_new();
  gtk_window_set_default_size(GTK_WINDOW(window), 1200, 800);
  gtk_window_set_child(GTK_WINDOW(window), timeline);
  gtk_window_present(GTK_WINDOW(window));
  while (!gtk_widget_get_mapped(timeline))
    g_main_context_iteration(NULL, TRUE);
  while (g_main_context_iteration(NULL, FALSE))
    ;
  gsize before = resident_bytes();
  MemorySession m = {.store = td_store_new(TD_CLIENT_KEEP_EVENTS),
                     .loop = g_main_loop_new(NULL, FALSE),
                     .target = calls};
  td_timeline_set_store(TD_TIMELINE(timeline), m.store);
  gint64 start = g_get_monotonic_time();
  g_idle_add(memory_feed, &m);
  guint probe = g_timeout_add(TICK_MS, memory_probe, &m);
  g_main_loop_run(m.loop);
  double seconds = (g_get_monotonic_time() - start) / 1e6;
  g_source_remove(probe);
  while (g_main_context_iteration(NULL, FALSE)) /* the last frame */
    ;
  gsize after = resident_bytes();
  TrState *state = td_store_get_state(m.store);
  const TrEventLog *log = tr_state_event_log(state);
  guint64 n_events = tr_event_log_length(log);
  const TdTlIndex *index = td_timeline_get_index(TD_TIMELINE(timeline));
  double grew_mb = (double)(after > before ? after - before : 0) / (1 << 20);
  g_print("memory: %" G_GUINT64_FORMAT " calls (%" G_GUINT64_FORMAT
          " events) kept, %" G_GUINT64_FORMAT " in the timeline, %" G_GUINT64_FORMAT
          " missing; store's log %.1f MB (%.1f bytes/event); process grew %.1f MB "
          "(%.0f bytes/call; target < 300 MB: %s)\n",
          m.calls, n_events, td_tl_index_n_calls(index), tr_state_events_missing(state),
          tr_event_log_bytes(log) / 1048576.0, (double)tr_event_log_bytes(log) / MAX(n_events, 1),
          grew_mb, grew_mb * 1048576.0 / MAX(m.calls, 1), grew_mb < 300 ? "met" : "MISSED");
  g_print("memory: ingest of %" G_GUINT64_FORMAT " events in %.2f s = %.0f events/s, batches of "
          "%d; longest batch %.1f ms, longest main-loop stall %.1f ms (target < 50 ms: %s)\n",
          n_events, seconds, n_events / seconds, MEMORY_BATCH, m.max_apply_us / 1000.0,
          m.max_gap_us / 1000.0, m.max_gap_us < 50000 ? "met" : "MISSED");
  gtk_window_destroy(GTK_WINDOW(window));
  g_main_loop_unref(m.loop);
  g_object_unref(m.store);
}

int
main(int argc, char **argv)
{
  double seconds = argc > 1 ? g_ascii_strtod(argv[1], NULL) : 10.0;
  guint64 calls = argc > 2 ? g_ascii_strtoull(argv[2], NULL, 10) : 1000000;
  bench_layout();
  if (!gtk_init_check()) {
    g_print("ingest: skipped (no display; run under xvfb-run)\n");
    return 0;
  }
  g_log_set_always_fatal(G_LOG_LEVEL_CRITICAL);
  if (g_getenv("BENCH_DEBUGGER_MEMORY_ONLY")) {
    bench_memory(calls);
    return 0;
  }
  if (!g_getenv("BENCH_DEBUGGER_WINDOW_ONLY"))
    bench_ingest_timeline(seconds > 0 ? seconds : 10.0);
  bench_ingest_window(seconds > 0 ? seconds : 10.0, FALSE);
  bench_ingest_window(seconds > 0 ? seconds : 10.0, TRUE);
  bench_memory(calls);
  return 0;
}
