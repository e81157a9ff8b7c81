/* td-format.c — the debugger's text (see td-format.h). The log's details are one formatter
 * per event kind, listed in a table indexed by kind. */
#include "td-format.h"

#include <string.h>

#define THOUSANDS_SEP "\u202f" /* narrow no-break space */

char *
td_format_duration_ns(gint64 ns)
{
  double v = (double)ns;
  if (ns < 0)
    return g_strdup("—");
  if (ns < 1000)
    return g_strdup_printf("%" G_GINT64_FORMAT " ns", ns);
  if (ns < 1000000)
    return g_strdup_printf("%.1f µs", v / 1e3);
  if (ns < G_GINT64_CONSTANT(1000000000))
    return g_strdup_printf("%.2f ms", v / 1e6);
  return g_strdup_printf("%.2f s", v / 1e9);
}

char *
td_format_count(guint64 n)
{
  g_autofree char *digits = g_strdup_printf("%" G_GUINT64_FORMAT, n);
  gsize len = strlen(digits);
  GString *out = g_string_sized_new(len + len / 3 * 3);
  for (gsize i = 0; i < len; i++) {
    if (i > 0 && (len - i) % 3 == 0)
      g_string_append(out, THOUSANDS_SEP);
    g_string_append_c(out, digits[i]);
  }
  return g_string_free(out, FALSE);
}

char *
td_format_hit_rate(double rate, guint64 hits, guint64 misses)
{
  if (hits + misses == 0)
    return g_strdup("—");
  return g_strdup_printf("%.1f %%", CLAMP(rate, 0.0, 1.0) * 100.0);
}

char *
td_format_event_time(gint64 ts_ns)
{
  return g_strdup_printf("%.6f", (double)ts_ns / 1e9);
}

/* The kinds' labels: the JSON names with spaces. */
static const char *const kind_labels[] = {
    [TR_EVENT_CELL_START] = "cell start",
    [TR_EVENT_CELL_END] = "cell end",
    [TR_EVENT_FUNCTION_CREATED] = "function created",
    [TR_EVENT_CALL] = "call",
    [TR_EVENT_CALL_END] = "call end",
    [TR_EVENT_TRACE_START] = "trace start",
    [TR_EVENT_TRACE_END] = "trace end",
    [TR_EVENT_RETRACE_CAUSE] = "retrace cause",
    [TR_EVENT_CONCRETE_ADDED] = "concrete function",
    [TR_EVENT_GRAPH_EXEC_START] = "graph run start",
    [TR_EVENT_GRAPH_EXEC_END] = "graph run end",
    [TR_EVENT_TF_PRINT] = "tf.print",
    [TR_EVENT_VARIABLE_CREATED] = "variable created",
    [TR_EVENT_EAGER_TOGGLED] = "eager mode",
    [TR_EVENT_RETRACING_WARNING] = "retracing warning",
    [TR_EVENT_ERROR] = "error",
    [TR_EVENT_DEBUGGER_STOPPED] = "debugger stopped",
    [TR_EVENT_DEBUGGER_CONTINUED] = "debugger continued",
    [TR_EVENT_BREAKPOINT_BYPASSED] = "breakpoint bypassed",
};
G_STATIC_ASSERT(G_N_ELEMENTS(kind_labels) == TR_EVENT_N_KINDS);

const char *
td_format_kind_label(TrEventKind kind)
{
  if (kind < 0 || kind >= TR_EVENT_N_KINDS || kind_labels[kind] == NULL)
    return "event";
  return kind_labels[kind];
}

char *
td_format_site(const char *file, gint64 line)
{
  if (file == NULL || *file == '\0')
    return g_strdup("");
  if (line <= 0)
    return g_strdup(file);
  return g_strdup_printf("%s:%" G_GINT64_FORMAT, file, line);
}

char *
td_format_causes(GPtrArray *causes, const char *sep)
{
  GString *out = g_string_new(NULL);
  for (guint i = 0; causes && i < causes->len; i++) {
    const TrRetraceCause *c = g_ptr_array_index(causes, i);
    if (out->len > 0)
      g_string_append(out, sep);
    g_string_append(out, c->text ? c->text : tr_cause_kind_name(c->kind));
  }
  return g_string_free(out, FALSE);
}

/* ---- one formatter per kind ---- */

typedef char *(*DetailsFunc)(const TrEvent *ev);

/* The first line of a text, marked when more follows. */
static char *
first_line(const char *text)
{
  if (text == NULL)
    return g_strdup("");
  const char *nl = strchr(text, '\n');
  if (nl == NULL)
    return g_strdup(text);
  return g_strdup_printf("%.*s …", (int)(nl - text), text);
}

static char *
details_cell_start(const TrEvent *ev)
{
  g_autofree char *src = first_line(ev->text);
  return g_strdup_printf("In [%" G_GINT64_FORMAT "]  %s", ev->cell, src);
}

static char *
details_span_end(const TrEvent *ev)
{
  g_autofree char *dur = td_format_duration_ns(ev->dur_ns);
  return g_strdup_printf("%s%s", dur, ev->ok ? "" : ", raised");
}

static char *
details_text(const TrEvent *ev)
{
  return first_line(ev->text);
}

static char *
details_call(const TrEvent *ev)
{
  GString *out = g_string_new(tr_outcome_name(ev->outcome));
  if (ev->cf_id > 0)
    g_string_append_printf(out, " → concrete #%" G_GINT64_FORMAT, ev->cf_id);
  if (ev->candidates > 1)
    g_string_append_printf(out, " (%" G_GINT64_FORMAT " candidates%s%s)", ev->candidates,
                           ev->reason ? ": " : "", ev->reason ? ev->reason : "");
  return g_string_free(out, FALSE);
}

static char *
details_call_end(const TrEvent *ev)
{
  g_autofree char *dur = td_format_duration_ns(ev->dur_ns);
  return g_strdup_printf("%s, %s%s", tr_outcome_name(ev->outcome), dur, ev->ok ? "" : ", raised");
}

static char *
details_trace_end(const TrEvent *ev)
{
  g_autofree char *dur = td_format_duration_ns(ev->dur_ns);
  if (!ev->ok)
    return g_strdup_printf("failed after %s", dur);
  return g_strdup_printf("concrete #%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT " nodes, %s",
                         ev->cf_id, ev->nodes, dur);
}

static char *
details_retrace(const TrEvent *ev)
{
  return td_format_causes(ev->causes, "; ");
}

static char *
details_concrete(const TrEvent *ev)
{
  g_autofree char *head = first_line(ev->signature);
  return g_strdup_printf("#%" G_GINT64_FORMAT " %s", ev->cf_id, head);
}

/* A graph run names the trace it runs (its graph_id is an address, meaningless to a
 * reader); the Function is in its own column. */
static char *
details_graph_run(const TrEvent *ev)
{
  GString *out = g_string_new(NULL);
  if (ev->cf_id > 0)
    g_string_append_printf(out, "concrete #%" G_GINT64_FORMAT, ev->cf_id);
  else
    g_string_append(out, "a graph outside any trace");
  if (ev->kind == TR_EVENT_GRAPH_EXEC_END) {
    g_autofree char *dur = td_format_duration_ns(ev->dur_ns);
    g_string_append_printf(out, ", %s%s", dur, ev->ok ? "" : ", raised");
  }
  return g_string_free(out, FALSE);
}

static char *
details_variable(const TrEvent *ev)
{
  return g_strdup_printf("%s %s %s", ev->name ? ev->name : "?", ev->dtype ? ev->dtype : "",
                         ev->shape ? ev->shape : "");
}

static char *
details_eager(const TrEvent *ev)
{
  return g_strdup(ev->enabled ? "functions run eagerly" : "functions run as graphs");
}

/* "ValueError: message": the class once, whether or not the message already starts with it
 * (an exception's text as Python formats it does). */
static char *
details_error(const TrEvent *ev)
{
  g_autofree char *text = first_line(ev->text);
  const char *name = ev->name && *ev->name ? ev->name : "Error";
  size_t n = strlen(name);
  if (strncmp(text, name, n) == 0 && (text[n] == ':' || text[n] == '\0'))
    return g_steal_pointer(&text);
  return *text ? g_strdup_printf("%s: %s", name, text) : g_strdup(name);
}

char *
td_format_pause(const TrEvent *stopped)
{
  g_return_val_if_fail(stopped != NULL, g_strdup(""));
  GString *out = g_string_new("Paused");
  if (stopped->file && *stopped->file)
    g_string_append_printf(out, " at %s", stopped->file);
  if (stopped->line > 0)
    g_string_append_printf(out, ", line %" G_GINT64_FORMAT, stopped->line);
  if (stopped->name && *stopped->name)
    g_string_append_printf(out, ", in %s", stopped->name);
  if (stopped->reason && *stopped->reason) {
    g_autofree char *text = first_line(stopped->text);
    g_string_append_printf(out, " (%s%s%s)", stopped->reason, *text ? ": " : "", text);
  }
  if (stopped->fn_name && stopped->tracing)
    g_string_append_printf(out, " — while tracing %s: its tensors are symbolic", stopped->fn_name);
  else if (stopped->fn_name)
    g_string_append_printf(out, " — in %s, run eagerly", stopped->fn_name);
  return g_string_free(out, FALSE);
}

static char *
details_continued(const TrEvent *ev)
{
  if (ev->dur_ns <= 0)
    return g_strdup("running again");
  g_autofree char *dur = td_format_duration_ns(ev->dur_ns);
  return g_strdup_printf("running again after %s paused", dur);
}

static const DetailsFunc details_funcs[TR_EVENT_N_KINDS] = {
    [TR_EVENT_CELL_START] = details_cell_start,
    [TR_EVENT_CELL_END] = details_span_end,
    [TR_EVENT_FUNCTION_CREATED] = details_text,
    [TR_EVENT_CALL] = details_call,
    [TR_EVENT_CALL_END] = details_call_end,
    [TR_EVENT_TRACE_END] = details_trace_end,
    [TR_EVENT_RETRACE_CAUSE] = details_retrace,
    [TR_EVENT_CONCRETE_ADDED] = details_concrete,
    [TR_EVENT_GRAPH_EXEC_START] = details_graph_run,
    [TR_EVENT_GRAPH_EXEC_END] = details_graph_run,
    [TR_EVENT_TF_PRINT] = details_text,
    [TR_EVENT_VARIABLE_CREATED] = details_variable,
    [TR_EVENT_EAGER_TOGGLED] = details_eager,
    [TR_EVENT_RETRACING_WARNING] = details_text,
    [TR_EVENT_ERROR] = details_error,
    [TR_EVENT_DEBUGGER_STOPPED] = td_format_pause,
    [TR_EVENT_DEBUGGER_CONTINUED] = details_continued,
    [TR_EVENT_BREAKPOINT_BYPASSED] = details_text,
};

char *
td_format_event_details(const TrEvent *ev)
{
  g_return_val_if_fail(ev != NULL, g_strdup(""));
  if (ev->kind < 0 || ev->kind >= TR_EVENT_N_KINDS || details_funcs[ev->kind] == NULL)
    return g_strdup("");
  return details_funcs[ev->kind](ev);
}

/* Whether the case-folded `hay` contains `needle`. */
static bool
contains_folded(const char *hay, const char *needle)
{
  if (hay == NULL || *hay == '\0')
    return false;
  g_autofree char *folded = g_utf8_casefold(hay, -1);
  return strstr(folded, needle) != NULL;
}

bool
td_event_in_group(const TrEvent *ev, TdEventGroup group)
{
  g_return_val_if_fail(ev != NULL, false);
  switch (group) {
    case TD_EVENT_GROUP_ERRORS: /* errors, and the spans they ended */
      return ev->kind == TR_EVENT_ERROR ||
             (!ev->ok && (ev->kind == TR_EVENT_CALL_END || ev->kind == TR_EVENT_TRACE_END ||
                          ev->kind == TR_EVENT_CELL_END || ev->kind == TR_EVENT_GRAPH_EXEC_END));
    case TD_EVENT_GROUP_WARNINGS:
      return ev->kind == TR_EVENT_RETRACING_WARNING || ev->kind == TR_EVENT_BREAKPOINT_BYPASSED;
    case TD_EVENT_GROUP_ALL:
    default:
      return true;
  }
}

const char *
td_format_group_label(TdEventGroup group)
{
  switch (group) {
    case TD_EVENT_GROUP_ERRORS:
      return "Errors (and what they ended)";
    case TD_EVENT_GROUP_WARNINGS:
      return "Retracing warnings (and bypassed breakpoints)";
    case TD_EVENT_GROUP_ALL:
    default:
      return "All events";
  }
}

bool
td_event_matches(const TrEvent *ev, TrEventKind kind, const char *needle)
{
  g_return_val_if_fail(ev != NULL, false);
  if (kind != TR_EVENT_N_KINDS && ev->kind != kind)
    return false;
  if (needle == NULL || *needle == '\0')
    return true;
  if (strstr(td_format_kind_label(ev->kind), needle) || contains_folded(ev->fn_name, needle))
    return true;
  g_autofree char *site = td_format_site(ev->file, ev->line);
  if (contains_folded(site, needle))
    return true;
  g_autofree char *details = td_format_event_details(ev);
  return contains_folded(details, needle);
}
