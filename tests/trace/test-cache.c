/* test-cache.c — the Function cache: dispatch, retrace causes, input_signature,
 * reduce_retracing, eager mode and the retracing warning. */
#include "test-trace.h"

#define FX(path, fn) g_test_add(path, TtFixture, NULL, tt_fixture_setup, fn, tt_fixture_teardown)

static TrTraceSig *
sig_x(TrTraceType *x)
{
  return tt_sig("x", x, NULL);
}

/* Call fn once with `args` (stolen) and return the causes text of the miss, or "" on a hit. */
static char *
miss_text(TtFixture *fx, TrFn *fn, TrTraceSig *args)
{
  guint before = fx->events->len;
  tt_call(fx, fn, args, "<cell 1>", 1, 1, NULL);
  tr_trace_sig_unref(args);
  for (guint i = before; i < fx->events->len; i++) {
    TrEvent *ev = g_ptr_array_index(fx->events, i);
    if (ev->kind == TR_EVENT_RETRACE_CAUSE)
      return tt_causes_text(ev->causes);
  }
  return g_strdup("");
}

static void
test_hit_same_key(TtFixture *fx, gconstpointer data)
{
  g_autoptr(TrFn) fn = tt_fn_new(fx, "double", 1);
  g_autoptr(TrTraceSig) a = sig_x(tt_tensor(TR_INT32, 0));
  g_autoptr(TrTraceSig) b = sig_x(tt_tensor(TR_INT32, 0));
  guint64 id1, id2;
  g_assert_cmpint(tt_call(fx, fn, a, "<cell 1>", 1, 1, &id1), ==, TR_OUTCOME_MISS);
  g_assert_cmpint(tt_call(fx, fn, b, "<cell 1>", 2, 1, &id2), ==, TR_OUTCOME_HIT);
  g_assert_cmpuint(id1, ==, id2);
  const TrFnStats *st = tr_fn_get_stats(fn);
  g_assert_cmpuint(st->calls, ==, 2);
  g_assert_cmpuint(st->hits, ==, 1);
  g_assert_cmpuint(st->misses, ==, 1);
  g_assert_cmpuint(st->traces, ==, 1);
  g_assert_cmpint(st->tracing_ns, ==, 1000000);
}

static void
test_retrace_on_dtype(TtFixture *fx, gconstpointer data)
{
  g_autoptr(TrFn) fn = tt_fn_new(fx, "double", 1);
  g_autofree char *t1 = miss_text(fx, fn, tt_sig("a", tt_tensor(TR_INT32, 0), NULL));
  g_assert_cmpstr(t1, ==, "first call");
  g_autofree char *t2 = miss_text(fx, fn, tt_sig("a", tt_tensor(TR_FLOAT32, 0), NULL));
  g_assert_cmpstr(t2, ==, "arg 'a': dtype float32, traces have int32");
  g_autofree char *t3 = miss_text(fx, fn, tt_sig("a", tt_tensor(TR_STRING, 0), NULL));
  g_assert_cmpstr(t3, ==, "arg 'a': dtype string, traces have int32");
  g_autofree char *t4 = miss_text(fx, fn, tt_sig("a", tt_tensor(TR_STRING, 0), NULL));
  g_assert_cmpstr(t4, ==, "");
  g_assert_cmpuint(tr_fn_get_n_concrete(fn), ==, 3);
}

static void
test_most_specific(TtFixture *fx, gconstpointer data)
{
  g_autoptr(TrFn) fn = tt_fn_new(fx, "f", 1);
  TrCallSite site = {"<cell 2>", 3, 2};
  /* Traces for (3,), then (None,), then an unknown shape, as get_concrete_function makes
   * them (each is a miss: none of them fits an earlier, more specific trace). */
  TrTraceType *specs[] = {tt_tensor(TR_INT32, 1, 3), tt_tensor(TR_INT32, 1, -1),
                          tt_tensor(TR_INT32, -1)};
  guint64 ids[3];
  for (int i = 0; i < 3; i++) {
    g_autoptr(TrTraceSig) s = sig_x(specs[i]);
    TrFnCall *call = tr_fn_call_begin(fn, TR_FN_REQUEST_GET_CONCRETE, s, &site);
    g_assert_cmpint(call->outcome, ==, TR_OUTCOME_MISS);
    tr_fn_trace_begin(fn, call);
    ids[i] = tr_fn_trace_end(fn, call, g_strdup("graph"), g_free, 3, i, NULL)->id;
    tr_fn_call_end(fn, call, true);
  }
  g_assert_cmpuint(tr_fn_get_stats(fn)->calls, ==, 0);
  g_assert_cmpuint(tr_fn_get_stats(fn)->traces, ==, 3);

  guint64 served;
  g_autoptr(TrTraceSig) c3 = sig_x(tt_tensor(TR_INT32, 1, 3));
  g_assert_cmpint(tt_call(fx, fn, c3, "<cell 2>", 4, 0, &served), ==, TR_OUTCOME_HIT);
  g_assert_cmpuint(served, ==, ids[0]);
  g_autoptr(GPtrArray) calls = tt_events_of(fx, TR_EVENT_CALL);
  TrEvent *ev = g_ptr_array_index(calls, calls->len - 1);
  g_assert_cmpint(ev->candidates, ==, 3);
  g_assert_cmpstr(ev->reason, ==,
                  "arg 'x': shape (None,) is less specific than (3,); "
                  "arg 'x': shape <unknown> is less specific than (3,)");

  g_autoptr(TrTraceSig) c5 = sig_x(tt_tensor(TR_INT32, 1, 5));
  g_assert_cmpint(tt_call(fx, fn, c5, "<cell 2>", 5, 0, &served), ==, TR_OUTCOME_HIT);
  g_assert_cmpuint(served, ==, ids[1]);
  char *reason = NULL;
  int n = 0;
  g_assert_nonnull(tr_fn_lookup(fn, c5, &reason, &n));
  g_assert_cmpint(n, ==, 2);
  g_assert_cmpstr(reason, ==, "arg 'x': shape <unknown> is less specific than (None,)");
  g_free(reason);

  g_autoptr(TrTraceSig) c22 = sig_x(tt_tensor(TR_INT32, 2, 2, 2));
  g_assert_cmpint(tt_call(fx, fn, c22, "<cell 2>", 6, 0, &served), ==, TR_OUTCOME_HIT);
  g_assert_cmpuint(served, ==, ids[2]);
  g_assert_null(((TrEvent *)g_ptr_array_index(fx->events, fx->events->len - 2))->reason);
}

static void
test_reduce_retracing(TtFixture *fx, gconstpointer data)
{
  g_autofree char *display = g_strdup("<function g at 0x1>");
  TrFnOptions o = {.name = "g", .display = display, .py_function_key = 9, .reduce_retracing = true};
  g_autoptr(TrFn) fn = tr_fn_new(fx->reg, &o);
  g_autoptr(TrTraceSig) s1 =
      tt_sig("x", tt_tensor(TR_INT32, 2, 2, 3), "n", tr_trace_type_new_int(1), NULL);
  g_autoptr(TrTraceSig) s2 =
      tt_sig("x", tt_tensor(TR_INT32, 2, 4, 3), "n", tr_trace_type_new_int(1), NULL);
  g_autoptr(TrTraceSig) s3 =
      tt_sig("x", tt_tensor(TR_INT32, 2, 7, 3), "n", tr_trace_type_new_int(1), NULL);
  g_autoptr(TrTraceSig) s4 =
      tt_sig("x", tt_tensor(TR_INT32, 2, 7, 3), "n", tr_trace_type_new_int(2), NULL);
  g_assert_cmpint(tt_call(fx, fn, s1, "a.py", 1, 1, NULL), ==, TR_OUTCOME_MISS);
  g_assert_cmpint(tt_call(fx, fn, s2, "a.py", 2, 1, NULL), ==, TR_OUTCOME_MISS);
  g_autofree char *sig2 = tr_trace_sig_to_string(tr_fn_get_concrete(fn, 1)->sig);
  g_assert_cmpstr(sig2, ==, "(x: TensorSpec(shape=(None, 3), dtype=tf.int32, name=None), n: 1)");
  /* The generalised trace now serves every batch size. */
  g_assert_cmpint(tt_call(fx, fn, s3, "a.py", 3, 1, NULL), ==, TR_OUTCOME_HIT);
  /* A miss caused by a Python value is not generalised. */
  g_assert_cmpint(tt_call(fx, fn, s4, "a.py", 4, 1, NULL), ==, TR_OUTCOME_MISS);
  g_autofree char *sig3 = tr_trace_sig_to_string(tr_fn_get_concrete(fn, 2)->sig);
  g_assert_cmpstr(sig3, ==, "(x: TensorSpec(shape=(7, 3), dtype=tf.int32, name=None), n: 2)");
}

static void
test_input_signature(TtFixture *fx, gconstpointer data)
{
  g_autoptr(TrTraceSig) spec = sig_x(tt_tensor(TR_INT32, 1, -1));
  TrFnOptions o = {
      .name = "next_collatz", .display = "<function next_collatz at 0x1>", .input_signature = spec};
  g_autoptr(TrFn) fn = tr_fn_new(fx->reg, &o);
  g_autoptr(TrTraceSig) c2 = sig_x(tt_tensor(TR_INT32, 1, 2));
  g_autoptr(TrTraceSig) c5 = sig_x(tt_tensor(TR_INT32, 1, 5));
  g_assert_cmpint(tt_call(fx, fn, c2, "<cell 1>", 1, 1, NULL), ==, TR_OUTCOME_MISS);
  g_autofree char *traced = tr_trace_sig_to_string(tr_fn_get_concrete(fn, 0)->sig);
  g_assert_cmpstr(traced, ==, "(x: TensorSpec(shape=(None,), dtype=tf.int32, name=None))");
  g_assert_cmpint(tt_call(fx, fn, c5, "<cell 1>", 2, 1, NULL), ==, TR_OUTCOME_HIT);

  g_autoptr(TrTraceSig) bad = sig_x(tt_tensor(TR_INT32, 2, 2, 2));
  guint before = fx->events->len;
  TrFnCall *call = tr_fn_call_begin(fn, TR_FN_REQUEST_CALL, bad, NULL);
  g_assert_true(call->incompatible);
  const char *input = "tf.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)";
  g_autofree char *msg = tr_fn_incompatible_message(fn, &input, 1);
  g_assert_cmpstr(msg, ==,
                  "Python inputs incompatible with input_signature:\n"
                  "  inputs: (\n"
                  "    tf.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32))\n"
                  "  input_signature: (\n"
                  "    TensorSpec(shape=(None,), dtype=tf.int32, name=None)).");
  tr_fn_call_end(fn, call, false);
  g_assert_cmpuint(fx->events->len, ==, before);
  g_autoptr(TrTraceSig) flt = sig_x(tt_tensor(TR_FLOAT32, 1, 2));
  call = tr_fn_call_begin(fn, TR_FN_REQUEST_CALL, flt, NULL);
  g_assert_true(call->incompatible);
  tr_fn_call_end(fn, call, false);
  g_assert_cmpuint(tr_fn_get_n_concrete(fn), ==, 1);
}

static void
test_separate_functions(TtFixture *fx, gconstpointer data)
{
  g_autoptr(TrFn) f1 = tt_fn_new(fx, "f", 42);
  g_autoptr(TrFn) f2 = tt_fn_new(fx, "f", 42);
  g_autofree char *t1 = miss_text(fx, f1, sig_x(tr_trace_type_new_int(1)));
  g_autofree char *t2 = miss_text(fx, f2, sig_x(tr_trace_type_new_int(1)));
  g_assert_cmpstr(t1, ==, "first call");
  g_assert_cmpstr(t2, ==, "new Function object");
  g_assert_cmpuint(tr_fn_get_n_concrete(f2), ==, 1);
}

static void
test_eager(TtFixture *fx, gconstpointer data)
{
  g_autoptr(TrFn) fn = tt_fn_new(fx, "f", 1);
  g_autoptr(TrTraceSig) s = sig_x(tr_trace_type_new_int(1));
  tr_fn_registry_set_run_eagerly(fx->reg, true);
  tr_fn_registry_set_run_eagerly(fx->reg, true);
  g_assert_cmpint(tt_call(fx, fn, s, "<cell 1>", 1, 1, NULL), ==, TR_OUTCOME_EAGER);
  g_assert_cmpint(tt_call(fx, fn, s, "<cell 1>", 1, 1, NULL), ==, TR_OUTCOME_EAGER);
  tr_fn_registry_set_run_eagerly(fx->reg, false);
  g_assert_cmpint(tt_call(fx, fn, s, "<cell 1>", 1, 1, NULL), ==, TR_OUTCOME_MISS);
  g_assert_cmpuint(tr_fn_get_stats(fn)->eager_calls, ==, 2);
  g_assert_cmpuint(tr_fn_get_stats(fn)->calls, ==, 3);
  g_autoptr(GPtrArray) toggles = tt_events_of(fx, TR_EVENT_EAGER_TOGGLED);
  g_assert_cmpuint(toggles->len, ==, 2);
}

static void
test_release_weak_object(TtFixture *fx, gconstpointer data)
{
  g_autoptr(TrFn) fn = tt_fn_new(fx, "evaluate", 1);
  g_autoptr(TrTraceSig) s =
      tt_sig("model", tr_trace_type_new_identity(77, "<SimpleModel at 0x77>", true), NULL);
  tt_call(fx, fn, s, "<cell 1>", 1, 1, NULL);
  g_assert_cmpuint(tr_fn_release_object(fn, 78), ==, 0);
  g_assert_cmpuint(tr_fn_release_object(fn, 77), ==, 1);
  g_assert_cmpuint(tr_fn_get_n_concrete(fn), ==, 0);
}

/* ---- causes ---- */

static void
test_cause_shape(TtFixture *fx, gconstpointer data)
{
  g_autoptr(TrFn) fn = tt_fn_new(fx, "f", 1);
  g_free(miss_text(fx, fn, sig_x(tt_tensor(TR_INT32, 1, 2))));
  g_autofree char *t = miss_text(fx, fn, sig_x(tt_tensor(TR_INT32, 1, 3)));
  g_assert_cmpstr(t, ==, "arg 'x': shape (3,) does not match (2,)");
}

static void
test_cause_python_value(TtFixture *fx, gconstpointer data)
{
  g_autoptr(TrFn) fn = tt_fn_new(fx, "train", 1);
  g_autofree char *t1 = miss_text(fx, fn, tt_sig("num_steps", tr_trace_type_new_int(10), NULL));
  g_autofree char *t2 = miss_text(fx, fn, tt_sig("num_steps", tr_trace_type_new_int(20), NULL));
  g_assert_cmpstr(t1, ==, "first call");
  g_assert_cmpstr(t2, ==, "arg 'num_steps': Python value 20, traces have 10");
  /* Then a tensor: the kind of value changed. */
  g_autofree char *t3 = miss_text(fx, fn, tt_sig("num_steps", tt_tensor(TR_INT32, 0), NULL));
  g_assert_cmpstr(t3, ==, "arg 'num_steps': int32 Tensor, shape=(), traces have Python value 10");
  g_autoptr(GPtrArray) evs = tt_events_of(fx, TR_EVENT_RETRACE_CAUSE);
  TrEvent *ev = g_ptr_array_index(evs, 1);
  TrRetraceCause *c = g_ptr_array_index(ev->causes, 0);
  g_assert_cmpstr(c->arg, ==, "num_steps");
  g_assert_cmpint(c->kind, ==, TR_CAUSE_PYTHON_VALUE);
  ev = g_ptr_array_index(evs, 2);
  g_assert_cmpint(((TrRetraceCause *)g_ptr_array_index(ev->causes, 0))->kind, ==, TR_CAUSE_TYPE);
}

static void
test_cause_new_object(TtFixture *fx, gconstpointer data)
{
  g_autoptr(TrFn) fn = tt_fn_new(fx, "evaluate", 1);
  g_free(miss_text(fx, fn,
                   tt_sig("model", tr_trace_type_new_identity(1, "<Model at 0x1>", true), "x",
                          tt_tensor(TR_FLOAT32, 0), NULL)));
  g_autofree char *t =
      miss_text(fx, fn,
                tt_sig("model", tr_trace_type_new_identity(2, "<Model at 0x7f3a>", true), "x",
                       tt_tensor(TR_FLOAT32, 0), NULL));
  g_assert_cmpstr(t, ==, "arg 'model': new object <Model at 0x7f3a>");
}

static TrTraceType *
int_list(int n)
{
  TrTraceType *items[16];
  for (int i = 0; i < n; i++) {
    TrTraceType *pair[] = {tr_trace_type_new_int(1), tr_trace_type_new_int(1)};
    items[i] = tr_trace_type_new_tuple(2, pair);
  }
  return tr_trace_type_new_list(n, items);
}

static void
test_cause_structure(TtFixture *fx, gconstpointer data)
{
  g_autoptr(TrFn) fn = tt_fn_new(fx, "train", 1);
  g_free(miss_text(fx, fn, tt_sig("xs", int_list(3), NULL)));
  g_autofree char *t = miss_text(fx, fn, tt_sig("xs", int_list(10), NULL));
  g_assert_cmpstr(t, ==, "structure of arg 'xs' changed: list of 3 \u2192 list of 10");

  /* Same skeleton, one leaf differs: the cause names the path inside the argument. */
  TrTraceType *a[] = {tt_tensor(TR_INT32, 0), tr_trace_type_new_int(5)};
  g_autofree char *t2 = miss_text(fx, fn, tt_sig("xs", tr_trace_type_new_list(2, a), NULL));
  g_assert_cmpstr(t2, ==, "structure of arg 'xs' changed: list of 3 \u2192 list of 2");
  TrTraceType *b[] = {tt_tensor(TR_INT32, 0), tr_trace_type_new_int(6)};
  g_autofree char *t3 = miss_text(fx, fn, tt_sig("xs", tr_trace_type_new_list(2, b), NULL));
  g_assert_cmpstr(t3, ==, "arg 'xs[1]': Python value 6, traces have 5");

  /* Dict keys changed. */
  TrTraceType *k1[] = {tr_trace_type_new_str("a")};
  TrTraceType *v1[] = {tr_trace_type_new_int(1)};
  TrTraceType *k2[] = {tr_trace_type_new_str("b"), tr_trace_type_new_str("a")};
  TrTraceType *v2[] = {tr_trace_type_new_int(1), tr_trace_type_new_int(1)};
  g_autoptr(TrFn) g = tt_fn_new(fx, "g", 2);
  g_free(miss_text(fx, g, tt_sig("d", tr_trace_type_new_dict(1, k1, v1), NULL)));
  g_autofree char *t4 = miss_text(fx, g, tt_sig("d", tr_trace_type_new_dict(2, k2, v2), NULL));
  g_assert_cmpstr(t4, ==,
                  "structure of arg 'd' changed: dict with keys ['a'] \u2192 dict with keys "
                  "['a', 'b']");
}

static void
test_cause_variable(TtFixture *fx, gconstpointer data)
{
  g_autoptr(TrFn) fn = tt_fn_new(fx, "f", 1);
  TrShape s = tr_shape_scalar();
  g_free(miss_text(fx, fn, tt_sig("v", tr_trace_type_new_variable(3, TR_FLOAT32, &s, NULL), NULL)));
  g_autofree char *t =
      miss_text(fx, fn, tt_sig("v", tr_trace_type_new_variable(4, TR_FLOAT32, &s, NULL), NULL));
  g_assert_cmpstr(t, ==,
                  "arg 'v': float32 Variable #4, shape=(), traces have float32 Variable #3, "
                  "shape=()");
}

static void
test_cause_closest_trace(TtFixture *fx, gconstpointer data)
{
  g_autoptr(TrFn) fn = tt_fn_new(fx, "f", 1);
  /* Trace A differs from the call in two arguments, trace B in one: B is the closest. */
  g_free(
      miss_text(fx, fn, tt_sig("a", tt_tensor(TR_INT32, 0), "b", tr_trace_type_new_int(1), NULL)));
  g_free(miss_text(fx, fn,
                   tt_sig("a", tt_tensor(TR_FLOAT32, 0), "b", tr_trace_type_new_int(2), NULL)));
  g_autofree char *t =
      miss_text(fx, fn, tt_sig("a", tt_tensor(TR_FLOAT32, 0), "b", tr_trace_type_new_int(3), NULL));
  g_assert_cmpstr(t, ==, "arg 'b': Python value 3, traces have 2");
  /* Two differences in one argument are both reported. */
  g_autofree char *t2 = miss_text(
      fx, fn, tt_sig("a", tt_tensor(TR_FLOAT64, 1, 4), "b", tr_trace_type_new_int(3), NULL));
  g_assert_cmpstr(t2, ==,
                  "arg 'a': dtype float64, traces have float32 | arg 'a': shape (4,) does not "
                  "match ()");
  /* Different bound parameters (**kwargs). */
  g_autofree char *t3 =
      miss_text(fx, fn, tt_sig("a", tt_tensor(TR_FLOAT32, 0), "c", tr_trace_type_new_int(3), NULL));
  g_assert_cmpstr(t3, ==, "arguments changed: (a, b) \u2192 (a, c)");
}

/* A trace made by get_concrete_function for `args` (stolen); returns its id. */
static guint64
trace_concrete(TrFn *fn, TrTraceSig *args)
{
  TrFnCall *call = tr_fn_call_begin(fn, TR_FN_REQUEST_GET_CONCRETE, args, NULL);
  g_assert_cmpint(call->outcome, ==, TR_OUTCOME_MISS);
  tr_fn_trace_begin(fn, call);
  guint64 id = tr_fn_trace_end(fn, call, NULL, NULL, 3, 0, NULL)->id;
  tr_fn_call_end(fn, call, true);
  tr_trace_sig_unref(args);
  return id;
}

static TrTraceSig *
sig_xy(gint64 x, TrTraceType *y)
{
  return tt_sig("x", tr_trace_type_new_int(x), "y", y, NULL);
}

/* Hundreds of traces (a Python value per call), more than a miss compares with one by one:
 * dispatch, the choice among several traces, the closest trace and released objects give
 * what they give with a few traces. */
static void
test_many_traces(TtFixture *fx, gconstpointer data)
{
  g_autoptr(TrFn) fn = tt_fn_new(fx, "f", 1);
  guint64 ids[300];
  for (int i = 0; i < 300; i++) {
    g_autoptr(TrTraceSig) s = sig_xy(i < 150 ? i : 1000 + i, tt_tensor(TR_INT32, 1, 3));
    g_assert_cmpint(tt_call(fx, fn, s, "<cell 1>", 1, 1, &ids[i]), ==, TR_OUTCOME_MISS);
  }
  /* Each value finds its own trace. */
  for (int i = 0; i < 300; i += 37) {
    g_autoptr(TrTraceSig) s = sig_xy(i < 150 ? i : 1000 + i, tt_tensor(TR_INT32, 1, 3));
    guint64 served = 0;
    g_assert_cmpint(tt_call(fx, fn, s, "<cell 1>", 2, 1, &served), ==, TR_OUTCOME_HIT);
    g_assert_cmpuint(served, ==, ids[i]);
  }
  /* A new value: every trace differs in one Python value; the oldest is the closest. */
  g_autofree char *t1 = miss_text(fx, fn, sig_xy(5000, tt_tensor(TR_INT32, 1, 3)));
  g_assert_cmpstr(t1, ==, "arg 'x': Python value 5000, traces have 0");

  /* A trace with a partial shape in the middle, then more traces after it. */
  guint64 partial = trace_concrete(fn, sig_xy(77, tt_tensor(TR_INT32, 1, -1)));
  for (int i = 0; i < 100; i++) {
    g_autoptr(TrTraceSig) s = sig_xy(2000 + i, tt_tensor(TR_INT32, 1, 3));
    tt_call(fx, fn, s, "<cell 1>", 3, 1, NULL);
  }
  /* (3,) fits both the exact trace for 77 and the partial one: the exact one is more specific. */
  g_autoptr(TrTraceSig) c3 = sig_xy(77, tt_tensor(TR_INT32, 1, 3));
  char *reason = NULL;
  int n = 0;
  g_assert_true(tr_fn_lookup(fn, c3, &reason, &n)->id == ids[77]);
  g_assert_cmpint(n, ==, 2);
  g_assert_cmpstr(reason, ==, "arg 'y': shape (None,) is less specific than (3,)");
  g_free(reason);
  g_autoptr(TrTraceSig) c5 = sig_xy(77, tt_tensor(TR_INT32, 1, 5));
  g_assert_true(tr_fn_lookup(fn, c5, &reason, &n)->id == partial);
  g_assert_cmpint(n, ==, 1);
  g_assert_null(reason);
  /* The closest trace is neither among the oldest nor among the newest: the one for 150+1000
   * differs only in its shape. */
  g_autofree char *t2 = miss_text(fx, fn, sig_xy(1150, tt_tensor(TR_INT32, 1, 4)));
  g_assert_cmpstr(t2, ==, "arg 'y': shape (4,) does not match (3,)");
  /* A float32 tensor for 1150: the trace for 1150 differs in dtype alone. */
  g_autofree char *t3 = miss_text(fx, fn, sig_xy(1150, tt_tensor(TR_FLOAT32, 1, 3)));
  g_assert_cmpstr(t3, ==, "arg 'y': dtype float32, traces have int32");

  /* reduce_retracing widens against the traces of the call's family only, as before. */
  TrFnOptions o = {.name = "g", .display = "<function g at 0x1>", .reduce_retracing = true};
  g_autoptr(TrFn) g = tr_fn_new(fx->reg, &o);
  for (int i = 0; i < 200; i++) {
    g_autoptr(TrTraceSig) s = sig_xy(i, tt_tensor(TR_INT32, 1, 3));
    tt_call(fx, g, s, "<cell 2>", 1, 1, NULL);
  }
  g_autoptr(TrTraceSig) w = sig_xy(150, tt_tensor(TR_INT32, 1, 9));
  g_assert_cmpint(tt_call(fx, g, w, "<cell 2>", 2, 1, NULL), ==, TR_OUTCOME_MISS);
  g_autofree char *widened = tr_trace_sig_to_string(tr_fn_get_concrete(g, 200)->sig);
  g_assert_cmpstr(widened, ==, "(x: 150, y: TensorSpec(shape=(None,), dtype=tf.int32, name=None))");

  /* Traces keyed on a dead object go from the index too. */
  for (int i = 0; i < 3; i++) {
    g_autoptr(TrTraceSig) s =
        tt_sig("x", tr_trace_type_new_identity(500 + i, "<Model at 0x1>", true), "y",
               tt_tensor(TR_INT32, 1, i == 1 ? -1 : 3), NULL);
    tt_call(fx, fn, s, "<cell 4>", 1, 1, NULL);
  }
  guint before = tr_fn_get_n_concrete(fn);
  g_assert_cmpuint(tr_fn_release_object(fn, 501), ==, 1);
  g_assert_cmpuint(tr_fn_release_object(fn, 500), ==, 1);
  g_assert_cmpuint(tr_fn_get_n_concrete(fn), ==, before - 2);
  g_autoptr(TrTraceSig) gone = tt_sig("x", tr_trace_type_new_identity(501, "<Model at 0x1>", true),
                                      "y", tt_tensor(TR_INT32, 1, 8), NULL);
  g_assert_null(tr_fn_lookup(fn, gone, NULL, NULL));
  g_autoptr(TrTraceSig) kept = tt_sig("x", tr_trace_type_new_identity(502, "<Model at 0x1>", true),
                                      "y", tt_tensor(TR_INT32, 1, 3), NULL);
  g_assert_nonnull(tr_fn_lookup(fn, kept, NULL, NULL));
}

/* ---- the retracing warning ---- */

static const char *const WARNING_5_OF_5 =
    "5 out of the last 5 calls to <function f at 0x7f000001> triggered tf.function retracing. "
    "Tracing is expensive and the excessive number of tracings could be due to (1) creating "
    "@tf.function repeatedly in a loop, (2) passing tensors with different shapes, (3) passing "
    "Python objects instead of tensors. For (1), please define your @tf.function outside of the "
    "loop. For (2), @tf.function has reduce_retracing=True option that can avoid unnecessary "
    "retracing. For (3), please refer to "
    "https://www.tensorflow.org/guide/function#controlling_retracing and "
    "https://www.tensorflow.org/api_docs/python/tf/function for  more details.";

static void
test_warning_five_of_five(TtFixture *fx, gconstpointer data)
{
  g_autoptr(TrFn) fn = tt_fn_new(fx, "f", 1);
  for (int i = 1; i <= 8; i++) {
    g_autoptr(TrTraceSig) s = sig_x(tr_trace_type_new_int(i));
    tt_call(fx, fn, s, "<cell 1>", 3, 1, NULL);
    g_autoptr(GPtrArray) w = tt_events_of(fx, TR_EVENT_RETRACING_WARNING);
    g_assert_cmpuint(w->len, ==, i < 5 ? 0 : 1);
  }
  g_autoptr(GPtrArray) w = tt_events_of(fx, TR_EVENT_RETRACING_WARNING);
  TrEvent *ev = g_ptr_array_index(w, 0);
  g_assert_cmpstr(ev->text, ==, WARNING_5_OF_5);
  g_assert_cmpuint(tr_fn_get_stats(fn)->warnings, ==, 1);
}

static void
test_warning_hits_between(TtFixture *fx, gconstpointer data)
{
  g_autoptr(TrFn) fn = tt_fn_new(fx, "f", 1);
  for (int i = 1; i <= 5; i++) {
    g_autoptr(TrTraceSig) s = sig_x(tr_trace_type_new_int(i));
    tt_call(fx, fn, s, "<cell 1>", 3, 1, NULL);
    if (i == 2)
      tt_call(fx, fn, s, "<cell 1>", 3, 1, NULL); /* a hit */
  }
  g_autoptr(GPtrArray) w = tt_events_of(fx, TR_EVENT_RETRACING_WARNING);
  g_assert_cmpuint(w->len, ==, 1);
  g_assert_true(g_str_has_prefix(((TrEvent *)g_ptr_array_index(w, 0))->text,
                                 "5 out of the last 6 calls to <function f at"));
}

static void
test_warning_functions_in_loop(TtFixture *fx, gconstpointer data)
{
  /* tf.function(f) created anew in a loop: the detector follows the Python function. */
  for (int i = 0; i < 6; i++) {
    g_autoptr(TrFn) fn = tt_fn_new(fx, "f", 1);
    g_autoptr(TrTraceSig) s = sig_x(tr_trace_type_new_int(1));
    tt_call(fx, fn, s, "<cell 1>", 3, 1, NULL);
  }
  g_autoptr(GPtrArray) w = tt_events_of(fx, TR_EVENT_RETRACING_WARNING);
  g_assert_cmpuint(w->len, ==, 1);
  g_autofree char *msg = tr_fn_retracing_warning_text(5, 5, "<function f at 0x7f000001>");
  g_assert_cmpstr(msg, ==, WARNING_5_OF_5);
}

void
tt_add_cache_tests(void)
{
  FX("/trace/cache/hit-same-key", test_hit_same_key);
  FX("/trace/cache/retrace-on-dtype", test_retrace_on_dtype);
  FX("/trace/cache/most-specific", test_most_specific);
  FX("/trace/cache/reduce-retracing", test_reduce_retracing);
  FX("/trace/cache/input-signature", test_input_signature);
  FX("/trace/cache/separate-functions", test_separate_functions);
  FX("/trace/cache/eager", test_eager);
  FX("/trace/cache/release-weak-object", test_release_weak_object);
  FX("/trace/cause/shape", test_cause_shape);
  FX("/trace/cause/python-value", test_cause_python_value);
  FX("/trace/cause/new-object", test_cause_new_object);
  FX("/trace/cause/structure", test_cause_structure);
  FX("/trace/cause/variable", test_cause_variable);
  FX("/trace/cause/closest-trace", test_cause_closest_trace);
  FX("/trace/cache/many-traces", test_many_traces);
  FX("/trace/warning/five-of-five", test_warning_five_of_five);
  FX("/trace/warning/hits-between", test_warning_hits_between);
  FX("/trace/warning/functions-in-loop", test_warning_functions_in_loop);
}
