/* tr-event-log.h — a long run of events kept compactly: what the CLI saves at exit, what a
 * bus keeps for late subscribers, and the window of events a TrState (the debugger's data)
 * holds.
 *
 * A TrEvent is a ~220-byte struct with its strings copied; a cached call makes four of them.
 * The log keeps each event as a fixed-size 32-byte record instead: Function (id and name) and
 * call site (file, line, cell) interned once and named by index, sequence number and time as
 * offsets from their chunk's base, numbers that fit in 32 bits as such. An event that does not
 * fit a record (a cell's source, retrace causes, a graph, a duration over 4 s, ...) is kept
 * whole, its record pointing to it; those are rare (cells, traces, warnings), calls and graph
 * runs are not. Nothing is serialised until the log is written or an event is asked for.
 *
 * Records live in chunks, so the log grows without copying what it holds and drops the oldest
 * events (tr_event_log_drop_front) a chunk at a time. Interned names are never dropped: there
 * are few of them (one per Function and per call site).
 *
 * Events are read back either as a borrowed view (tr_event_log_peek: a TrEvent filled in the
 * caller's scratch struct, its strings the log's own) or as a new TrEvent (tr_event_log_get).
 * Not thread-safe: one owner, or the owner's lock.
 */
#pragma once

#include "tr-events.h"

G_BEGIN_DECLS

typedef struct _TrEventLog TrEventLog;

TrEventLog *tr_event_log_new(void);
void tr_event_log_free(TrEventLog *log);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TrEventLog, tr_event_log_free)

/* Keep a copy of `ev` (borrowed; an event or a view) after the others. Events come in
 * sequence order. */
void tr_event_log_append(TrEventLog *log, const TrEvent *ev);
/* A TrEventFunc that appends to `user_data`, a TrEventLog. */
void tr_event_log_event_func(const TrEvent *ev, gpointer user_data);
/* Forget the `n` oldest kept events (at most all of them). */
void tr_event_log_drop_front(TrEventLog *log, guint64 n);

/* Events kept. */
guint64 tr_event_log_length(const TrEventLog *log);
/* Events dropped from the front so far (tr_event_log_drop_front). */
guint64 tr_event_log_dropped(const TrEventLog *log);
/* Bytes the log holds: chunks (their room too), interned names, whole events (allocator
 * aside). */
gsize tr_event_log_bytes(const TrEventLog *log);
/* Bytes the kept events hold: their records and whole events, what dropping them frees (the
 * interned names stay). */
gsize tr_event_log_event_bytes(const TrEventLog *log);
/* How many of the oldest kept events hold at least `bytes` (their records and whole events;
 * all of them when they hold less): what to drop to free that much. */
guint64 tr_event_log_front_for_bytes(const TrEventLog *log, gsize bytes);

/* The kept event `i` (0: the oldest kept), as a view: either the kept event itself or
 * `scratch` filled in. Borrowed: valid until the log changes, and for `scratch`, until it is
 * used again; never ref or unref it (its strings belong to the log). */
const TrEvent *tr_event_log_peek(const TrEventLog *log, guint64 i, TrEvent *scratch);
/* The kept event `i` as a TrEvent of its own. Transfer full. */
TrEvent *tr_event_log_get(const TrEventLog *log, guint64 i);
/* The sequence number of kept event `i`. */
guint64 tr_event_log_seq(const TrEventLog *log, guint64 i);
/* The index of the first kept event numbered above `seq` (the length if none). */
guint64 tr_event_log_index_after(const TrEventLog *log, guint64 seq);

/* Write the kept events as JSON lines (tr_event_append_json each), or as a Chrome/Perfetto
 * trace (tr_events_to_perfetto). `dropped` events said to have come before them: the JSON lines
 * then start with {"kind":"dropped","count":N} and the trace with an instant saying how many;
 * pass tr_event_log_dropped(log), or the count a window says it lost. */
gboolean tr_event_log_write_jsonl(const TrEventLog *log, guint64 dropped, const char *path,
                                  GError **error);
gboolean tr_event_log_write_perfetto(const TrEventLog *log, guint64 dropped, const char *path,
                                     GError **error);
/* The Perfetto text of the kept events into `out` (the file's contents). */
void tr_event_log_append_perfetto(const TrEventLog *log, guint64 dropped, GString *out);

/* Writing events to files while they come: a program's events saved at its exit (trellis
 * --events/--perfetto). The emitting thread gathers events in a log and hands each batch of
 * them to a thread of the writer's own, which writes them (the same text as
 * tr_event_log_write_jsonl/_perfetto) and frees them: the JSON is written on another core while
 * the program runs, and the events are held only until written. The files are opened at once
 * (NULL path: not that file). */
typedef struct _TrEventWriter TrEventWriter;
TrEventWriter *tr_event_writer_new(const char *jsonl_path, const char *perfetto_path);
/* A TrEventFunc that gives the event to `user_data`, a TrEventWriter. Call it from one thread
 * at a time (a bus subscriber is). */
void tr_event_writer_event_func(const TrEvent *ev, gpointer user_data);
/* Write what is left, close the files and free the writer. FALSE with `error` set when a file
 * could not be opened or written (the first such failure). */
gboolean tr_event_writer_finish(TrEventWriter *w, GError **error);

G_END_DECLS
