/* test-trace.c — the core/trace test program: shared helpers and main. */
#include "test-trace.h"

#include <stdarg.h>

TrTraceType *
tt_tensor(TrDType dtype, int rank, ...)
{
  TrShape shape = tr_shape_unknown();
  if (rank >= 0) {
    int64_t dims[TR_MAX_RANK];
    va_list ap;
    va_start(ap, rank);
    for (int i = 0; i < rank; i++)
      dims[i] = va_arg(ap, int);
    va_end(ap);
    shape = tr_shape_make(rank, dims);
  }
  return tr_trace_type_new_tensor(dtype, &shape, NULL);
}

TrTraceSig *
tt_sig(const char *name, ...)
{
  const char *names[16];
  TrTraceType *types[16];
  int n = 0;
  va_list ap;
  va_start(ap, name);
  for (const char *nm = name; nm != NULL; nm = va_arg(ap, const char *)) {
    g_assert_cmpint(n, <, 16);
    names[n] = nm;
    types[n] = va_arg(ap, TrTraceType *);
    n++;
  }
  va_end(ap);
  return tr_trace_sig_new(n, names, types);
}

char *
tt_causes_text(const GPtrArray *causes)
{
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < causes->len; i++) {
    const TrRetraceCause *c = g_ptr_array_index(causes, i);
    g_string_append_printf(s, "%s%s", i ? " | " : "", c->text);
  }
  return g_string_free(s, FALSE);
}

static gint64
fake_clock(gpointer data)
{
  return ((TtFixture *)data)->now_ns;
}

static void
record(const TrEvent *ev, gpointer data)
{
  g_ptr_array_add(data, tr_event_ref((TrEvent *)ev));
}

void
tt_fixture_setup(TtFixture *fx, gconstpointer data)
{
  fx->now_ns = 1000000;
  fx->bus = tr_event_bus_new();
  tr_event_bus_set_clock(fx->bus, fake_clock, fx);
  fx->events = g_ptr_array_new_with_free_func((GDestroyNotify)tr_event_unref);
  tr_event_bus_subscribe(fx->bus, record, g_ptr_array_ref(fx->events),
                         (GDestroyNotify)g_ptr_array_unref, false);
  fx->reg = tr_fn_registry_new(fx->bus);
}

void
tt_fixture_teardown(TtFixture *fx, gconstpointer data)
{
  tr_fn_registry_unref(fx->reg);
  tr_event_bus_unref(fx->bus);
  g_ptr_array_unref(fx->events);
}

TrFn *
tt_fn_new(TtFixture *fx, const char *name, guint64 py_key)
{
  g_autofree char *display = g_strdup_printf("<function %s at 0x7f00%04x>", name, (guint)py_key);
  TrFnOptions o = {.name = name, .display = display, .py_function_key = py_key};
  return tr_fn_new(fx->reg, &o);
}

TrOutcome
tt_call(TtFixture *fx, TrFn *fn, TrTraceSig *args, const char *file, int line, int trace_ms,
        guint64 *cf_id)
{
  TrCallSite site = {file, line, 1};
  TrFnCall *call = tr_fn_call_begin(fn, TR_FN_REQUEST_CALL, args, &site);
  TrOutcome outcome = call->outcome;
  fx->now_ns += 1000;
  if (outcome == TR_OUTCOME_MISS) {
    tr_fn_trace_begin(fn, call);
    fx->now_ns += (gint64)trace_ms * 1000000;
    tr_fn_trace_end(fn, call, NULL, NULL, 7, 100 + tr_fn_get_n_concrete(fn), NULL);
  }
  if (cf_id)
    *cf_id = call->concrete ? call->concrete->id : 0;
  fx->now_ns += 1000;
  tr_fn_call_end(fn, call, true);
  return outcome;
}

GPtrArray *
tt_events_of(TtFixture *fx, TrEventKind kind)
{
  GPtrArray *out = g_ptr_array_new();
  for (guint i = 0; i < fx->events->len; i++) {
    TrEvent *ev = g_ptr_array_index(fx->events, i);
    if (ev->kind == kind)
      g_ptr_array_add(out, ev);
  }
  return out;
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  tt_add_type_tests();
  tt_add_cache_tests();
  tt_add_event_tests();
  tt_add_state_tests();
  return g_test_run();
}
