/* test-trace.h — helpers shared by the core/trace tests: terse trace-type builders and a
 * fixture with a bus on a fake clock that records every event. */
#pragma once

#include "tr-events.h"
#include "tr-fn.h"
#include "tr-report.h"
#include "tr-trace-type.h"

/* A tensor type; rank -1 is an unknown rank, a dim of -1 is None. */
TrTraceType *tt_tensor(TrDType dtype, int rank, ...);
/* A signature from name/type pairs ended by NULL; the types are stolen. */
TrTraceSig *tt_sig(const char *name, ...) G_GNUC_NULL_TERMINATED;
/* The text of every cause, joined by " | ". Transfer full. */
char *tt_causes_text(const GPtrArray *causes);

typedef struct {
  TrEventBus *bus;   /* on the fake clock */
  TrFnRegistry *reg; /* Functions' registry */
  GPtrArray *events; /* TrEvent*: everything emitted */
  gint64 now_ns;     /* the fake clock */
} TtFixture;

void tt_fixture_setup(TtFixture *fx, gconstpointer data);
void tt_fixture_teardown(TtFixture *fx, gconstpointer data);
TrFn *tt_fn_new(TtFixture *fx, const char *name, guint64 py_key);
/* One call at `file:line`: traces (taking `trace_ms` of fake time) when it misses. Returns
 * the outcome; `cf_id` gets the serving trace's id. */
TrOutcome tt_call(TtFixture *fx, TrFn *fn, TrTraceSig *args, const char *file, int line,
                  int trace_ms, guint64 *cf_id);
/* Events of a kind, in order (borrowed). */
GPtrArray *tt_events_of(TtFixture *fx, TrEventKind kind);

void tt_add_type_tests(void);
void tt_add_cache_tests(void);
void tt_add_event_tests(void);
void tt_add_state_tests(void);
