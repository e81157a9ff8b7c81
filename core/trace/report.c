/* report.c — folding the event stream into the per-Function, per-call-site report
 * (see tr-report.h). */
#include "tr-report.h"

/* Counters shared by a Function and each of its call sites. */
typedef struct {
  guint64 calls;    /* call events */
  guint64 hits;     /* … served by a trace */
  guint64 misses;   /* … that traced */
  guint64 eager;    /* … run eagerly */
  guint64 rejected; /* calls refused before they ran (an error event marked "rejected") */
  guint64 traces;   /* successful traces */
  gint64 trace_ns;  /* time spent tracing, failed traces included */
} Counts;

typedef struct {
  char *file;                  /* call site file */
  int line;                    /* call site line */
  guint order;                 /* first appearance, to break ties */
  Counts counts;               /* what happened here */
  GPtrArray *causes;           /* char*: distinct cause texts, first-seen order */
  GHashTable *counts_by_cause; /* cause text (borrowed from causes) → count */
} Site;

typedef struct {
  gint64 id;        /* Function id */
  char *name;       /* Python name */
  char *display;    /* repr of the Python function */
  Counts counts;    /* totals */
  GPtrArray *sites; /* Site*, owned, first-seen order */
} FnEntry;

struct _TrReport {
  GPtrArray *fns;    /* FnEntry*, owned, creation order */
  GHashTable *by_id; /* gint64* id → FnEntry* (borrowed) */
};

static void
site_free(Site *s)
{
  g_free(s->file);
  g_ptr_array_unref(s->causes);
  g_hash_table_unref(s->counts_by_cause);
  g_free(s);
}

static void
fn_entry_free(FnEntry *f)
{
  g_free(f->name);
  g_free(f->display);
  g_ptr_array_unref(f->sites);
  g_free(f);
}

TrReport *
tr_report_new(void)
{
  TrReport *r = g_new0(TrReport, 1);
  r->fns = g_ptr_array_new_with_free_func((GDestroyNotify)fn_entry_free);
  r->by_id = g_hash_table_new(g_int64_hash, g_int64_equal);
  return r;
}

void
tr_report_free(TrReport *report)
{
  if (report == NULL)
    return;
  g_hash_table_unref(report->by_id);
  g_ptr_array_unref(report->fns);
  g_free(report);
}

static FnEntry *
get_fn(TrReport *r, const TrEvent *ev)
{
  FnEntry *f = g_hash_table_lookup(r->by_id, &ev->fn_id);
  if (f)
    return f;
  f = g_new0(FnEntry, 1);
  f->id = ev->fn_id;
  f->name = g_strdup(ev->fn_name ? ev->fn_name : "?");
  f->sites = g_ptr_array_new_with_free_func((GDestroyNotify)site_free);
  g_ptr_array_add(r->fns, f);
  g_hash_table_insert(r->by_id, &f->id, f);
  return f;
}

static Site *
get_site(FnEntry *f, const TrEvent *ev)
{
  const char *file = ev->file ? ev->file : "<unknown>";
  for (guint i = 0; i < f->sites->len; i++) {
    Site *s = g_ptr_array_index(f->sites, i);
    if (s->line == ev->line && g_strcmp0(s->file, file) == 0)
      return s;
  }
  Site *s = g_new0(Site, 1);
  s->file = g_strdup(file);
  s->line = (int)ev->line;
  s->order = f->sites->len;
  s->causes = g_ptr_array_new_with_free_func(g_free);
  s->counts_by_cause = g_hash_table_new(g_str_hash, g_str_equal);
  g_ptr_array_add(f->sites, s);
  return s;
}

static void
count_call(Counts *c, TrOutcome outcome)
{
  c->calls++;
  c->hits += outcome == TR_OUTCOME_HIT;
  c->misses += outcome == TR_OUTCOME_MISS;
  c->eager += outcome == TR_OUTCOME_EAGER;
}

static void
count_trace(Counts *c, const TrEvent *ev)
{
  c->traces += ev->ok;
  c->trace_ns += ev->dur_ns;
}

static void
add_causes(Site *s, const GPtrArray *causes)
{
  for (guint i = 0; causes && i < causes->len; i++) {
    const char *text = ((const TrRetraceCause *)g_ptr_array_index(causes, i))->text;
    gpointer n = NULL;
    char *key = NULL;
    if (!g_hash_table_lookup_extended(s->counts_by_cause, text, (gpointer *)&key, &n)) {
      key = g_strdup(text);
      g_ptr_array_add(s->causes, key);
    }
    g_hash_table_insert(s->counts_by_cause, key, GUINT_TO_POINTER(GPOINTER_TO_UINT(n) + 1));
  }
}

void
tr_report_add_event(TrReport *report, const TrEvent *ev)
{
  g_return_if_fail(report != NULL && ev != NULL);
  switch (ev->kind) {
    case TR_EVENT_FUNCTION_CREATED: {
      FnEntry *f = get_fn(report, ev);
      g_free(f->display);
      f->display = g_strdup(ev->text);
      return;
    }
    case TR_EVENT_CALL: {
      FnEntry *f = get_fn(report, ev);
      count_call(&f->counts, ev->outcome);
      count_call(&get_site(f, ev)->counts, ev->outcome);
      return;
    }
    case TR_EVENT_TRACE_END: {
      FnEntry *f = get_fn(report, ev);
      count_trace(&f->counts, ev);
      count_trace(&get_site(f, ev)->counts, ev);
      return;
    }
    case TR_EVENT_RETRACE_CAUSE:
      add_causes(get_site(get_fn(report, ev), ev), ev->causes);
      return;
    case TR_EVENT_ERROR:
      if (ev->fn_id && g_strcmp0(ev->reason, "rejected") == 0) {
        FnEntry *f = get_fn(report, ev);
        Counts *at = &get_site(f, ev)->counts;
        f->counts.calls++;
        f->counts.rejected++;
        at->calls++;
        at->rejected++;
      }
      return;
    default:
      return;
  }
}

void
tr_report_event_func(const TrEvent *ev, gpointer user_data)
{
  tr_report_add_event(user_data, ev);
}

static void
append_counts(GString *out, const Counts *c)
{
  g_autofree char *rejected =
      c->rejected ? g_strdup_printf(", %" G_GUINT64_FORMAT " rejected", c->rejected) : g_strdup("");
  g_string_append_printf(out,
                         "%" G_GUINT64_FORMAT " call%s: %" G_GUINT64_FORMAT
                         " hit%s, %" G_GUINT64_FORMAT " miss%s, %" G_GUINT64_FORMAT
                         " eager%s; %" G_GUINT64_FORMAT " trace%s, %.3f ms tracing\n",
                         c->calls, c->calls == 1 ? "" : "s", c->hits, c->hits == 1 ? "" : "s",
                         c->misses, c->misses == 1 ? "" : "es", c->eager, rejected, c->traces,
                         c->traces == 1 ? "" : "s", (double)c->trace_ns / 1e6);
}

/* Most expensive site first; ties in first-seen order. */
static gint
site_compare(gconstpointer pa, gconstpointer pb)
{
  const Site *a = *(Site *const *)pa, *b = *(Site *const *)pb;
  if (a->counts.trace_ns != b->counts.trace_ns)
    return a->counts.trace_ns > b->counts.trace_ns ? -1 : 1;
  return a->order < b->order ? -1 : a->order > b->order;
}

char *
tr_report_to_string(const TrReport *report)
{
  g_return_val_if_fail(report != NULL, NULL);
  GString *out = g_string_new(NULL);
  for (guint i = 0; i < report->fns->len; i++) {
    FnEntry *f = g_ptr_array_index(report->fns, i);
    g_string_append_printf(out, "Function %s (%s)\n  ", f->name, f->display ? f->display : "?");
    append_counts(out, &f->counts);
    g_ptr_array_sort(f->sites, site_compare);
    for (guint j = 0; j < f->sites->len; j++) {
      const Site *s = g_ptr_array_index(f->sites, j);
      g_string_append_printf(out, "  %s, line %d: ", s->file, s->line);
      append_counts(out, &s->counts);
      for (guint k = 0; k < s->causes->len; k++) {
        const char *text = g_ptr_array_index(s->causes, k);
        guint n = GPOINTER_TO_UINT(g_hash_table_lookup(s->counts_by_cause, text));
        if (n > 1)
          g_string_append_printf(out, "    %s  (x%u)\n", text, n);
        else
          g_string_append_printf(out, "    %s\n", text);
      }
    }
  }
  return g_string_free(out, FALSE);
}

char *
tr_report_from_events(GPtrArray *events)
{
  g_return_val_if_fail(events != NULL, NULL);
  g_autoptr(TrReport) report = tr_report_new();
  for (guint i = 0; i < events->len; i++)
    tr_report_add_event(report, g_ptr_array_index(events, i));
  return tr_report_to_string(report);
}
