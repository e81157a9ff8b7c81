/* td-format.h — the debugger's text: how durations, counts, hit rates, call sites and events
 * read in its tables and log. Plain GLib, no widgets, so the tests check it without a display.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>

#include "tr-events.h"

G_BEGIN_DECLS

/* "850 ns", "12.5 µs", "3.40 ms", "1.25 s". Transfer full. */
char *td_format_duration_ns(gint64 ns);
/* A count with thin-space thousands separators: "1 234 567". Transfer full. */
char *td_format_count(guint64 n);
/* "66.7 %", or "—" when the Function never ran a graph (no hits and no misses). */
char *td_format_hit_rate(double rate, guint64 hits, guint64 misses);
/* Seconds since the session began, for the log: "12.345678". Transfer full. */
char *td_format_event_time(gint64 ts_ns);
/* The kind as the log shows it: "retrace cause", "call end". Borrowed, static. */
const char *td_format_kind_label(TrEventKind kind);
/* The call site: "<cell 3>:5", "script.py:12", or "" when the event has none. */
char *td_format_site(const char *file, gint64 line);
/* Retrace causes joined with `sep` ("arg 'x': …; first call"); "" when there are none. */
char *td_format_causes(GPtrArray *causes, const char *sep);
/* Where and why a debugger holds the kernel paused, from its debugger_stopped event: "Paused at
 * <cell 3>, line 2, in f (breakpoint) — while tracing f: its tensors are symbolic". Transfer
 * full. */
char *td_format_pause(const TrEvent *stopped);
/* One line saying what the event carries, for the log's last column. Transfer full. */
char *td_format_event_details(const TrEvent *ev);

/* Whether the event belongs to `kind` (TR_EVENT_N_KINDS: every kind) and, when `needle` is
 * not empty, whether its kind, Function, call site or details contain `needle`, which must
 * already be case-folded (g_utf8_casefold). */
bool td_event_matches(const TrEvent *ev, TrEventKind kind, const char *needle);

/* Groups of events the log filters by, across kinds. */
typedef enum {
  TD_EVENT_GROUP_ALL,      /* every event */
  TD_EVENT_GROUP_ERRORS,   /* error events, and calls, traces, cells and graph runs that raised */
  TD_EVENT_GROUP_WARNINGS, /* retracing warnings, and breakpoints a cached graph bypassed */
  TD_EVENT_N_GROUPS
} TdEventGroup;
/* Whether the event belongs to `group`. */
bool td_event_in_group(const TrEvent *ev, TdEventGroup group);
/* The group as the log's filter lists it. Borrowed, static. */
const char *td_format_group_label(TdEventGroup group);

G_END_DECLS
