/* perfetto.c — the event stream as a Chrome/Perfetto trace-event JSON document.
 *
 * Spans are written as complete ("X") events when they end: an *_end event carries its
 * duration, so its start is ts - dur and no pairing state is needed. Lane (tid) 0 holds cells;
 * each Function gets the lane of its id, named by a thread_name metadata event (from its
 * function_created event, or from its first event when a window dropped that one). Times are
 * in microseconds, as the format requires, written with the nanoseconds as three decimals. A
 * debugger's pause is a slice on the cells' lane. When a window dropped events before the
 * first one written, an instant on the cells' lane says how many.
 *
 * The text is written directly (a million calls make a document of a hundred megabytes: a
 * jansson tree of it would take gigabytes); tr_events_to_perfetto parses that text. */
#include "trace-private.h"

#include <string.h>

#define PERFETTO_PID 1
#define CELL_LANE    0

struct _TrPerfetto {
  GString *out;      /* borrowed */
  GHashTable *lanes; /* fn_id (gint64*) of the lanes named so far */
};

/* ts_ns as microseconds with three decimals. */
static void
append_us(GString *out, gint64 ns)
{
  if (ns < 0) {
    tr_put_c(out, '-');
    ns = -ns;
  }
  tr_json_append_int(out, ns / 1000);
  char frac[5] = {'.', (char)('0' + ns % 1000 / 100), (char)('0' + ns % 100 / 10),
                  (char)('0' + ns % 10), 0};
  tr_put(out, frac, 4);
}

/* Opens one trace event: {"name":…,"cat":…,"ph":…,"ts":…,"pid":1,"tid":…; the caller adds
 * what else it has and closes it with '}'. */
static void
open_event(TrPerfetto *p, const char *ph, const char *name, const char *cat, gint64 ts_ns,
           gint64 tid)
{
  GString *out = p->out;
  TR_PUT_LITERAL(out, ",\n{\"name\":");
  tr_json_append_string(out, name);
  TR_PUT_LITERAL(out, ",\"cat\":");
  tr_json_append_string(out, cat);
  TR_PUT_LITERAL(out, ",\"ph\":\"");
  tr_put(out, ph, strlen(ph));
  TR_PUT_LITERAL(out, "\",\"ts\":");
  append_us(out, ts_ns);
  TR_PUT_LITERAL(out, ",\"pid\":");
  tr_json_append_int(out, PERFETTO_PID);
  TR_PUT_LITERAL(out, ",\"tid\":");
  tr_json_append_int(out, tid);
}

static void
open_complete(TrPerfetto *p, const TrEvent *ev, const char *name, const char *cat, gint64 tid)
{
  open_event(p, "X", name, cat, ev->ts_ns - ev->dur_ns, tid);
  TR_PUT_LITERAL(p->out, ",\"dur\":");
  append_us(p->out, ev->dur_ns);
}

static void
open_instant(TrPerfetto *p, const TrEvent *ev, const char *name, const char *cat, gint64 tid)
{
  open_event(p, "i", name, cat, ev->ts_ns, tid);
  TR_PUT_LITERAL(p->out, ",\"s\":\"t\"");
}

static void
lane_name(TrPerfetto *p, gint64 tid, const char *name)
{
  open_event(p, "M", "thread_name", "__metadata", 0, tid);
  TR_PUT_LITERAL(p->out, ",\"args\":{\"name\":");
  tr_json_append_string(p->out, name);
  TR_PUT_LITERAL(p->out, "}}");
}

static void
name_fn_lane(TrPerfetto *p, const TrEvent *ev)
{
  if (g_hash_table_contains(p->lanes, &ev->fn_id))
    return;
  g_hash_table_add(p->lanes, g_memdup2(&ev->fn_id, sizeof ev->fn_id));
  g_autofree char *name =
      g_strdup_printf("%s #%" G_GINT64_FORMAT, ev->fn_name ? ev->fn_name : "?", ev->fn_id);
  lane_name(p, ev->fn_id, name);
}

/* ,"key":"text" */
static void
arg_string(GString *out, const char *key, const char *text)
{
  TR_PUT_LITERAL(out, ",\"");
  tr_put(out, key, strlen(key));
  TR_PUT_LITERAL(out, "\":");
  tr_json_append_string(out, text);
}

/* ,"key":n */
static void
arg_int(GString *out, const char *key, gint64 n)
{
  TR_PUT_LITERAL(out, ",\"");
  tr_put(out, key, strlen(key));
  TR_PUT_LITERAL(out, "\":");
  tr_json_append_int(out, n);
}

/* ,"site":"file:line" when the event has a file. */
static void
arg_site(GString *out, const TrEvent *ev)
{
  if (!ev->file)
    return;
  TR_PUT_LITERAL(out, ",\"site\":");
  g_autofree char *site = g_strdup_printf("%s:%" G_GINT64_FORMAT, ev->file, ev->line);
  tr_json_append_string(out, site);
}

/* Opens the event's args: each arg_* call writes its own leading comma, and close_args takes
 * the first one back out. Returns where the args start. */
static gsize
open_args(GString *out)
{
  TR_PUT_LITERAL(out, ",\"args\":{");
  return out->len;
}

static void
close_args(GString *out, gsize start)
{
  if (out->len > start && out->str[start] == ',')
    g_string_erase(out, (gssize)start, 1);
  tr_put_c(out, '}');
}

TrPerfetto *
tr_perfetto_begin(GString *out, guint64 dropped, gint64 first_ts_ns)
{
  TrPerfetto *p = g_new0(TrPerfetto, 1);
  p->out = out;
  p->lanes = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  g_string_append(out, "{\"traceEvents\":[\n{\"name\":\"process_name\",\"cat\":\"__metadata\","
                       "\"ph\":\"M\",\"ts\":0.000,\"pid\":1,\"tid\":0,"
                       "\"args\":{\"name\":\"trellis\"}}");
  lane_name(p, CELL_LANE, "cells");
  if (dropped > 0) {
    g_autofree char *name =
        g_strdup_printf("%" G_GUINT64_FORMAT " earlier events dropped", dropped);
    open_event(p, "i", name, "dropped", first_ts_ns, CELL_LANE);
    TR_PUT_LITERAL(out, ",\"s\":\"g\",\"args\":{\"dropped_events\":");
    tr_json_append_int(out, (gint64)dropped);
    TR_PUT_LITERAL(out, "}}");
  }
  return p;
}

void
tr_perfetto_add(TrPerfetto *p, const TrEvent *ev)
{
  const char *fn = ev->fn_name ? ev->fn_name : "?";
  if (ev->kind == TR_EVENT_FUNCTION_CREATED) {
    name_fn_lane(p, ev);
    return;
  }
  if ((tr_event_kind_fields(ev->kind) & TR_EF(fn_id)) && ev->fn_id > 0)
    name_fn_lane(p, ev);
  GString *a = p->out;
  gsize args = 0; /* where the event's args start (0: it has none) */
  bool any = true;
  switch (ev->kind) {
    case TR_EVENT_CELL_END: {
      char name[32];
      g_snprintf(name, sizeof name, "cell %" G_GINT64_FORMAT, ev->cell);
      open_complete(p, ev, name, "cell", CELL_LANE);
      break;
    }
    case TR_EVENT_CALL_END: {
      g_autofree char *name = g_strconcat(fn, " (", tr_outcome_name(ev->outcome), ")", NULL);
      open_complete(p, ev, name, "call", ev->fn_id);
      args = open_args(a);
      arg_string(a, "outcome", tr_outcome_name(ev->outcome));
      arg_int(a, "concrete_id", ev->cf_id);
      arg_site(a, ev);
      break;
    }
    case TR_EVENT_TRACE_END: {
      g_autofree char *name = g_strconcat("trace ", fn, NULL);
      open_complete(p, ev, name, "trace", ev->fn_id);
      args = open_args(a);
      arg_int(a, "nodes", ev->nodes);
      arg_int(a, "nodes_optimized", ev->nodes_optimized);
      arg_int(a, "concrete_id", ev->cf_id);
      arg_site(a, ev);
      break;
    }
    case TR_EVENT_GRAPH_EXEC_END: {
      char name[48];
      g_snprintf(name, sizeof name, "run graph %" G_GINT64_FORMAT, ev->graph_id);
      open_complete(p, ev, name, "graph", ev->fn_id);
      break;
    }
    case TR_EVENT_RETRACE_CAUSE: {
      open_instant(p, ev, "retrace", "cause", ev->fn_id);
      args = open_args(a);
      TR_PUT_LITERAL(a, ",\"causes\":[");
      for (guint i = 0; ev->causes && i < ev->causes->len; i++) {
        if (i)
          tr_put_c(a, ',');
        tr_json_append_string(a, ((TrRetraceCause *)g_ptr_array_index(ev->causes, i))->text);
      }
      tr_put_c(a, ']');
      break;
    }
    case TR_EVENT_RETRACING_WARNING:
      open_instant(p, ev, "retracing warning", "warning", ev->fn_id);
      args = open_args(a);
      arg_string(a, "text", ev->text);
      break;
    case TR_EVENT_ERROR:
      open_instant(p, ev, ev->name ? ev->name : "error", "error", ev->fn_id);
      args = open_args(a);
      arg_string(a, "text", ev->text ? ev->text : "");
      break;
    case TR_EVENT_TF_PRINT:
      open_instant(p, ev, "tf.print", "print", ev->fn_id);
      args = open_args(a);
      arg_string(a, "text", ev->text ? ev->text : "");
      break;
    case TR_EVENT_EAGER_TOGGLED:
      open_instant(p, ev, ev->enabled ? "eager on" : "eager off", "eager", CELL_LANE);
      break;
    case TR_EVENT_DEBUGGER_STOPPED:
      open_instant(p, ev, "debugger stopped", "debugger", CELL_LANE);
      args = open_args(a);
      arg_string(a, "reason", ev->reason ? ev->reason : "");
      g_string_append(a, ev->tracing ? ",\"tracing\":true" : ",\"tracing\":false");
      arg_site(a, ev);
      break;
    case TR_EVENT_DEBUGGER_CONTINUED:
      /* The pause as a slice on the cells' lane, when its length is known. */
      if (ev->dur_ns > 0)
        open_complete(p, ev, "paused", "debugger", CELL_LANE);
      else
        open_instant(p, ev, "debugger continued", "debugger", CELL_LANE);
      break;
    case TR_EVENT_BREAKPOINT_BYPASSED:
      open_instant(p, ev, "breakpoint bypassed", "debugger", ev->fn_id);
      args = open_args(a);
      arg_string(a, "text", ev->text ? ev->text : "");
      arg_site(a, ev);
      break;
    default:
      any = false;
      break;
  }
  if (args)
    close_args(a, args);
  if (any)
    tr_put_c(a, '}');
}

void
tr_perfetto_end(TrPerfetto *p)
{
  TR_PUT_LITERAL(p->out, "\n],\"displayTimeUnit\":\"ms\"}\n");
  g_hash_table_unref(p->lanes);
  g_free(p);
}

json_t *
tr_events_to_perfetto(GPtrArray *events)
{
  g_return_val_if_fail(events != NULL, NULL);
  g_autoptr(GString) out = g_string_new(NULL);
  TrPerfetto *p = tr_perfetto_begin(out, 0, 0);
  for (guint i = 0; i < events->len; i++)
    tr_perfetto_add(p, g_ptr_array_index(events, i));
  tr_perfetto_end(p);
  json_error_t jerr;
  json_t *doc = json_loadb(out->str, out->len, 0, &jerr);
  g_assert(doc != NULL); /* the writer's own text */
  return doc;
}
