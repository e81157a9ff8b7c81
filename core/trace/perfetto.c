/* perfetto.c — the event stream as a Chrome/Perfetto trace-event JSON document.
 *
 * Spans are written as complete ("X") events when they end: an *_end event carries its
 * duration, so its start is ts - dur and no pairing state is needed. Lane (tid) 0 holds cells;
 * each Function gets the lane of its id, named by a thread_name metadata event. Times are in
 * microseconds, as the format requires. A debugger's pause is a slice on the cells' lane. */
#include "tr-events.h"

#define PERFETTO_PID 1
#define CELL_LANE    0

static json_t *
base_event(const char *ph, const char *name, const char *cat, gint64 ts_ns, gint64 tid)
{
  json_t *o = json_object();
  json_object_set_new(o, "name", json_string(name));
  json_object_set_new(o, "cat", json_string(cat));
  json_object_set_new(o, "ph", json_string(ph));
  json_object_set_new(o, "ts", json_real((double)ts_ns / 1000.0));
  json_object_set_new(o, "pid", json_integer(PERFETTO_PID));
  json_object_set_new(o, "tid", json_integer(tid));
  return o;
}

static json_t *
complete_event(const TrEvent *ev, const char *name, const char *cat, gint64 tid)
{
  json_t *o = base_event("X", name, cat, ev->ts_ns - ev->dur_ns, tid);
  json_object_set_new(o, "dur", json_real((double)ev->dur_ns / 1000.0));
  return o;
}

static json_t *
instant_event(const TrEvent *ev, const char *name, const char *cat, gint64 tid)
{
  json_t *o = base_event("i", name, cat, ev->ts_ns, tid);
  json_object_set_new(o, "s", json_string("t"));
  return o;
}

static json_t *
lane_name(gint64 tid, const char *name)
{
  json_t *o = base_event("M", "thread_name", "__metadata", 0, tid);
  json_t *args = json_object();
  json_object_set_new(args, "name", json_string(name));
  json_object_set_new(o, "args", args);
  return o;
}

static void
set_site_args(json_t *args, const TrEvent *ev)
{
  if (ev->file) {
    g_autofree char *site = g_strdup_printf("%s:%" G_GINT64_FORMAT, ev->file, ev->line);
    json_object_set_new(args, "site", json_string(site));
  }
}

/* The Perfetto event for one Trellis event, or NULL for kinds that only open a span. */
static json_t *
convert(const TrEvent *ev)
{
  const char *fn = ev->fn_name ? ev->fn_name : "?";
  json_t *o = NULL;
  json_t *args = json_object();
  switch (ev->kind) {
    case TR_EVENT_CELL_END: {
      g_autofree char *name = g_strdup_printf("cell %" G_GINT64_FORMAT, ev->cell);
      o = complete_event(ev, name, "cell", CELL_LANE);
      break;
    }
    case TR_EVENT_CALL_END: {
      g_autofree char *name = g_strdup_printf("%s (%s)", fn, tr_outcome_name(ev->outcome));
      o = complete_event(ev, name, "call", ev->fn_id);
      json_object_set_new(args, "outcome", json_string(tr_outcome_name(ev->outcome)));
      json_object_set_new(args, "concrete_id", json_integer(ev->cf_id));
      set_site_args(args, ev);
      break;
    }
    case TR_EVENT_TRACE_END: {
      g_autofree char *name = g_strdup_printf("trace %s", fn);
      o = complete_event(ev, name, "trace", ev->fn_id);
      json_object_set_new(args, "nodes", json_integer(ev->nodes));
      json_object_set_new(args, "nodes_optimized", json_integer(ev->nodes_optimized));
      json_object_set_new(args, "concrete_id", json_integer(ev->cf_id));
      set_site_args(args, ev);
      break;
    }
    case TR_EVENT_GRAPH_EXEC_END: {
      g_autofree char *name = g_strdup_printf("run graph %" G_GINT64_FORMAT, ev->graph_id);
      o = complete_event(ev, name, "graph", ev->fn_id);
      break;
    }
    case TR_EVENT_RETRACE_CAUSE: {
      o = instant_event(ev, "retrace", "cause", ev->fn_id);
      json_t *texts = json_array();
      for (guint i = 0; ev->causes && i < ev->causes->len; i++)
        json_array_append_new(
            texts, json_string(((TrRetraceCause *)g_ptr_array_index(ev->causes, i))->text));
      json_object_set_new(args, "causes", texts);
      break;
    }
    case TR_EVENT_RETRACING_WARNING:
      o = instant_event(ev, "retracing warning", "warning", ev->fn_id);
      json_object_set_new(args, "text", json_string(ev->text));
      break;
    case TR_EVENT_ERROR:
      o = instant_event(ev, ev->name ? ev->name : "error", "error", ev->fn_id);
      json_object_set_new(args, "text", json_string(ev->text ? ev->text : ""));
      break;
    case TR_EVENT_TF_PRINT:
      o = instant_event(ev, "tf.print", "print", ev->fn_id);
      json_object_set_new(args, "text", json_string(ev->text ? ev->text : ""));
      break;
    case TR_EVENT_EAGER_TOGGLED:
      o = instant_event(ev, ev->enabled ? "eager on" : "eager off", "eager", CELL_LANE);
      break;
    case TR_EVENT_DEBUGGER_STOPPED:
      o = instant_event(ev, "debugger stopped", "debugger", CELL_LANE);
      json_object_set_new(args, "reason", json_string(ev->reason ? ev->reason : ""));
      json_object_set_new(args, "tracing", json_boolean(ev->tracing));
      set_site_args(args, ev);
      break;
    case TR_EVENT_DEBUGGER_CONTINUED:
      /* The pause as a slice on the cells' lane, when its length is known. */
      if (ev->dur_ns > 0)
        o = complete_event(ev, "paused", "debugger", CELL_LANE);
      else
        o = instant_event(ev, "debugger continued", "debugger", CELL_LANE);
      break;
    case TR_EVENT_BREAKPOINT_BYPASSED:
      o = instant_event(ev, "breakpoint bypassed", "debugger", ev->fn_id);
      json_object_set_new(args, "text", json_string(ev->text ? ev->text : ""));
      set_site_args(args, ev);
      break;
    default:
      break;
  }
  if (o && json_object_size(args) > 0)
    json_object_set_new(o, "args", args);
  else
    json_decref(args);
  return o;
}

json_t *
tr_events_to_perfetto(GPtrArray *events)
{
  g_return_val_if_fail(events != NULL, NULL);
  json_t *list = json_array();
  json_t *proc = base_event("M", "process_name", "__metadata", 0, CELL_LANE);
  json_t *pargs = json_object();
  json_object_set_new(pargs, "name", json_string("trellis"));
  json_object_set_new(proc, "args", pargs);
  json_array_append_new(list, proc);
  json_array_append_new(list, lane_name(CELL_LANE, "cells"));
  for (guint i = 0; i < events->len; i++) {
    const TrEvent *ev = g_ptr_array_index(events, i);
    if (ev->kind == TR_EVENT_FUNCTION_CREATED) {
      g_autofree char *name =
          g_strdup_printf("%s #%" G_GINT64_FORMAT, ev->fn_name ? ev->fn_name : "?", ev->fn_id);
      json_array_append_new(list, lane_name(ev->fn_id, name));
      continue;
    }
    json_t *o = convert(ev);
    if (o)
      json_array_append_new(list, o);
  }
  json_t *doc = json_object();
  json_object_set_new(doc, "traceEvents", list);
  json_object_set_new(doc, "displayTimeUnit", json_string("ms"));
  return doc;
}
