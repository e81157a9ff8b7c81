/* tr-events.h — the trace event bus: what the debugger, the kernel's publisher, the CLI report
 * and the tests see of traced functions (SPEC §4).
 *
 * An event is a refcounted value: a kind, a sequence number and a timestamp given by the bus
 * when it is emitted, and the fields its kind carries. Fields are listed once below
 * (TR_EVENT_FIELD_LIST) and each kind names the fields it carries (TR_EVENT_KIND_LIST); the
 * struct, JSON serialisation and parsing are all generated from these two lists.
 *
 * A bus delivers each event to its subscribers synchronously, in sequence order, on the thread
 * that emitted it (emission is serialised by a lock, so sequence numbers and delivery order
 * agree across threads). The bus keeps every event it has emitted (or the last `limit`), in a
 * TrEventLog (tr-event-log.h), so a subscriber that attaches late can replay them first.
 */
#pragma once

#include <glib.h>
#include <jansson.h>
#include <stdbool.h>

G_BEGIN_DECLS

/* Why a call missed the cache: one difference from the closest existing trace. */
#define TR_CAUSE_KIND_LIST(X)                                                                      \
  X(FIRST_CALL, "first_call")     /* the Function had no trace */                                  \
  X(NEW_FUNCTION, "new_function") /* another Function of the same Python function had traces */    \
  X(DTYPE, "dtype")               /* a tensor's dtype differs */                                   \
  X(SHAPE, "shape")               /* a tensor's shape is not accepted */                           \
  X(PYTHON_VALUE, "python_value") /* a Python primitive has another value */                       \
  X(NEW_OBJECT, "new_object")     /* another object identity */                                    \
  X(VARIABLE, "variable")         /* another tf.Variable */                                        \
  X(STRUCTURE, "structure")       /* list/tuple/dict/namedtuple skeleton changed */                \
  X(TYPE, "type")                 /* the kind of value changed (tensor → Python value, …) */   \
  X(ARGUMENTS, "arguments")       /* the bound parameters differ (e.g. **kwargs keys) */           \
  X(OTHER, "other")               /* no describable difference */

typedef enum {
#define TR_CAUSE_ENUM(id, name) TR_CAUSE_##id,
  TR_CAUSE_KIND_LIST(TR_CAUSE_ENUM)
#undef TR_CAUSE_ENUM
      TR_CAUSE_N_KINDS
} TrCauseKind;

/* One retrace cause. Owned by the array that holds it. */
typedef struct {
  char *arg;        /* top-level parameter name, or NULL for whole-call causes */
  TrCauseKind kind; /* what differed */
  char *text;       /* SPEC §4 text: "arg 'x': shape (3,) does not match (2,)" */
} TrRetraceCause;

TrRetraceCause *tr_retrace_cause_new(const char *arg, TrCauseKind kind, const char *text);
void tr_retrace_cause_free(TrRetraceCause *cause);
const char *tr_cause_kind_name(TrCauseKind kind);
TrCauseKind tr_cause_kind_from_name(const char *name); /* TR_CAUSE_OTHER if unknown */
/* A new empty GPtrArray of causes that frees its elements. Transfer full. */
GPtrArray *tr_retrace_causes_new(void);

/* How a call was served. */
#define TR_OUTCOME_LIST(X)                                                                         \
  X(NONE, "none")   /* field unused */                                                             \
  X(HIT, "hit")     /* an existing ConcreteFunction ran */                                         \
  X(MISS, "miss")   /* the call traced a new ConcreteFunction */                                   \
  X(EAGER, "eager") /* functions run eagerly: the Python body ran */

typedef enum {
#define TR_OUTCOME_ENUM(id, name) TR_OUTCOME_##id,
  TR_OUTCOME_LIST(TR_OUTCOME_ENUM)
#undef TR_OUTCOME_ENUM
      TR_OUTCOME_N
} TrOutcome;

const char *tr_outcome_name(TrOutcome outcome);

/* Every field an event may carry: type, C member, JSON key, meaning. Types: INT (gint64),
 * STR (char *, owned, may be NULL), BOOL, OUTCOME (TrOutcome), CAUSES (GPtrArray of
 * TrRetraceCause, owned, may be NULL). */
#define TR_EVENT_FIELD_LIST(F)                                                                     \
  F(INT, cell, "cell")             /* execution count of the running cell (0: none) */             \
  F(STR, file, "file")             /* call site: "<cell 3>" or a script path */                    \
  F(INT, line, "line")             /* call site line, 1-based */                                   \
  F(INT, fn_id, "function_id")     /* Function id, unique per process */                           \
  F(STR, fn_name, "function")      /* Function's Python name */                                    \
  F(OUTCOME, outcome, "outcome")   /* hit, miss or eager */                                        \
  F(INT, cf_id, "concrete_id")     /* ConcreteFunction id (0: none) */                             \
  F(INT, candidates, "candidates") /* traces that would have accepted a hit */                     \
  F(STR, reason, "reason")       /* why the candidate won; a debugger stopped; "rejected" call */  \
  F(INT, dur_ns, "dur_ns")       /* duration of the span an *_end (or continued) event closes */   \
  F(INT, nodes, "nodes")         /* node count of a traced graph */                                \
  F(INT, graph_id, "graph_id")   /* Graph id (core/graph) */                                       \
  F(STR, signature, "signature") /* signature text of a trace or input_signature */                \
  F(CAUSES, causes, "causes")    /* retrace causes */                                              \
  F(STR, text, "text")           /* printed text, message, or cell source */                       \
  F(STR, name, "name")           /* Variable name; error class; stopped frame's function */        \
  F(INT, var_id, "variable_id")  /* Variable id */                                                 \
  F(STR, dtype, "dtype")         /* Variable dtype */                                              \
  F(STR, shape, "shape")         /* Variable shape */                                              \
  F(BOOL, enabled, "enabled")    /* eager mode now on; reduce_retracing on a Function */           \
  F(BOOL, ok, "ok")              /* the span ended without an exception */                         \
  /* nodes_optimized: node count of the optimised graph that runs */                               \
  F(INT, nodes_optimized, "nodes_optimized")                                                       \
  F(STR, graph, "graph") /* the traced graph's JSON (tr_graph_to_json), when the bus carries it */ \
  F(STR, bp_file, "breakpoint_file") /* a breakpoint's file, named as call sites are */            \
  F(INT, bp_line, "breakpoint_line") /* its line, 1-based */                                       \
  F(BOOL, tracing, "tracing")        /* a debugger stopped while a Function traced */

typedef enum {
#define TR_EVENT_FIELD_BIT(type, member, key) TR_EVENT_FIELD_BIT_##member,
  TR_EVENT_FIELD_LIST(TR_EVENT_FIELD_BIT)
#undef TR_EVENT_FIELD_BIT
      TR_EVENT_N_FIELDS
} TrEventFieldBit;

#define TR_EF(member) (1u << TR_EVENT_FIELD_BIT_##member)
#define TR_EF_SITE    (TR_EF(cell) | TR_EF(file) | TR_EF(line))
#define TR_EF_FN      (TR_EF(fn_id) | TR_EF(fn_name))

/* Every event kind once: id, JSON name, fields carried.
 *
 * The debugger's kinds (issue 15: a kernel paused by the Jupyter debug protocol):
 *  - debugger_stopped: the kernel is paused (a breakpoint, a step, an exception, a pause
 *    request). `reason` is the Debug Adapter Protocol's stopped reason ("breakpoint", "step",
 *    "exception", "pause", "entry", ...); `file`/`line` where it stopped, the file named as call
 *    sites are ("<cell 3>", or a path); `name` the Python function of that frame ("<module>" at
 *    a cell's top level); `cell` the running cell; `fn_id`/`fn_name` the Function whose Python
 *    body was running (0/NULL: none); `tracing` whether that body was being traced (its
 *    tensors are symbolic) rather than run eagerly; `text` the stop's description (an
 *    exception's message), or NULL. Hosts with the tensorflow module emit it through
 *    tf_module_emit_debugger_stopped (tf.h), which fills the Function fields.
 *  - debugger_continued: the kernel runs again; `dur_ns` how long it was paused (0: unknown).
 *  - breakpoint_bypassed: a call of Function `fn_id` ran its cached graph (ConcreteFunction
 *    `cf_id`; no Python ran) while a breakpoint sits in the Function's Python body, so the
 *    breakpoint could not stop. The site fields are the call's; `bp_file`/`bp_line` the
 *    breakpoint (the first one in the body); `text` says so in words and how to make it stop.
 *    core/tf emits it once per Function after the breakpoints change (not per call). */
#define TR_EVENT_KIND_LIST(X)                                                                      \
  X(CELL_START, "cell_start", TR_EF(cell) | TR_EF(text))                                           \
  X(CELL_END, "cell_end", TR_EF(cell) | TR_EF(dur_ns) | TR_EF(ok))                                 \
  X(FUNCTION_CREATED, "function_created",                                                          \
    TR_EF_FN | TR_EF(text) | TR_EF(signature) | TR_EF(enabled))                                    \
  X(CALL, "call",                                                                                  \
    TR_EF_FN | TR_EF_SITE | TR_EF(outcome) | TR_EF(cf_id) | TR_EF(candidates) | TR_EF(reason))     \
  X(CALL_END, "call_end",                                                                          \
    TR_EF_FN | TR_EF_SITE | TR_EF(outcome) | TR_EF(cf_id) | TR_EF(dur_ns) | TR_EF(ok))             \
  X(TRACE_START, "trace_start", TR_EF_FN | TR_EF_SITE)                                             \
  X(TRACE_END, "trace_end",                                                                        \
    TR_EF_FN | TR_EF_SITE | TR_EF(cf_id) | TR_EF(dur_ns) | TR_EF(nodes) | TR_EF(nodes_optimized) | \
        TR_EF(ok))                                                                                 \
  X(RETRACE_CAUSE, "retrace_cause", TR_EF_FN | TR_EF_SITE | TR_EF(causes))                         \
  X(CONCRETE_ADDED, "concrete_function_added",                                                     \
    TR_EF_FN | TR_EF(cf_id) | TR_EF(signature) | TR_EF(graph_id) | TR_EF(nodes) |                  \
        TR_EF(nodes_optimized) | TR_EF(graph))                                                     \
  X(GRAPH_EXEC_START, "graph_execution_start", TR_EF_FN | TR_EF(cf_id) | TR_EF(graph_id))          \
  X(GRAPH_EXEC_END, "graph_execution_end",                                                         \
    TR_EF_FN | TR_EF(cf_id) | TR_EF(graph_id) | TR_EF(dur_ns) | TR_EF(ok))                         \
  X(TF_PRINT, "tf_print", TR_EF(cell) | TR_EF_FN | TR_EF(text))                                    \
  X(VARIABLE_CREATED, "variable_created",                                                          \
    TR_EF(cell) | TR_EF(var_id) | TR_EF(name) | TR_EF(dtype) | TR_EF(shape))                       \
  X(EAGER_TOGGLED, "eager_mode", TR_EF(enabled))                                                   \
  X(RETRACING_WARNING, "retracing_warning", TR_EF_FN | TR_EF_SITE | TR_EF(text))                   \
  X(ERROR, "error", TR_EF_SITE | TR_EF_FN | TR_EF(name) | TR_EF(text) | TR_EF(reason))             \
  X(DEBUGGER_STOPPED, "debugger_stopped",                                                          \
    TR_EF_SITE | TR_EF_FN | TR_EF(name) | TR_EF(reason) | TR_EF(tracing) | TR_EF(text))            \
  X(DEBUGGER_CONTINUED, "debugger_continued", TR_EF(dur_ns))                                       \
  X(BREAKPOINT_BYPASSED, "breakpoint_bypassed",                                                    \
    TR_EF_FN | TR_EF_SITE | TR_EF(cf_id) | TR_EF(bp_file) | TR_EF(bp_line) | TR_EF(text))

typedef enum {
#define TR_EVENT_KIND_ENUM(id, name, fields) TR_EVENT_##id,
  TR_EVENT_KIND_LIST(TR_EVENT_KIND_ENUM)
#undef TR_EVENT_KIND_ENUM
      TR_EVENT_N_KINDS
} TrEventKind;

#define TR_EVENT_CTYPE_INT     gint64
#define TR_EVENT_CTYPE_STR     char *
#define TR_EVENT_CTYPE_BOOL    bool
#define TR_EVENT_CTYPE_OUTCOME TrOutcome
#define TR_EVENT_CTYPE_CAUSES  GPtrArray *

typedef struct {
  int refcount;     /* owners */
  TrEventKind kind; /* what happened */
  guint64 seq;      /* 1, 2, 3, … per bus; 0 until emitted */
  gint64 ts_ns;     /* monotonic time since the bus was created; set on emission */
#define TR_EVENT_MEMBER(type, member, key) TR_EVENT_CTYPE_##type member;
  TR_EVENT_FIELD_LIST(TR_EVENT_MEMBER)
#undef TR_EVENT_MEMBER
} TrEvent;

/* A blank event of a kind (strings NULL, numbers 0, ok TRUE). Transfer full. */
TrEvent *tr_event_new(TrEventKind kind);
TrEvent *tr_event_ref(TrEvent *ev);
/* A new event with the same fields, its strings and causes copied (from an event or a view).
 * Transfer full. */
TrEvent *tr_event_copy(const TrEvent *ev);
void tr_event_unref(TrEvent *ev);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TrEvent, tr_event_unref)

const char *tr_event_kind_name(TrEventKind kind);
TrEventKind tr_event_kind_from_name(const char *name); /* TR_EVENT_N_KINDS if unknown */
guint tr_event_kind_fields(TrEventKind kind);          /* TR_EF() bits */
/* Bytes the event holds: the struct, its strings and causes (allocator overhead aside). */
gsize tr_event_size(const TrEvent *ev);
/* Fill the call-site fields. Copies `file`. */
void tr_event_set_site(TrEvent *ev, const char *file, int line, gint64 cell);

/* One JSON object: {"seq":…, "ts_ns":…, "kind":"call", <the kind's fields>}. Transfer full. */
json_t *tr_event_to_json(const TrEvent *ev);
/* One line of JSON, without the newline. Transfer full. */
char *tr_event_to_json_line(const TrEvent *ev);
/* Append the same line to `out`: the text of tr_event_to_json written without building a JSON
 * tree (what a saved or published stream of a million events needs). */
void tr_event_append_json(GString *out, const TrEvent *ev);
/* JSON values as that writer writes them: an integer; a string (NULL: null), escaped with
 * non-ASCII characters as \uXXXX. */
void tr_json_append_int(GString *out, gint64 v);
void tr_json_append_string(GString *out, const char *s);
/* Errors in event JSON that came from outside (another process, a file). */
#define TR_EVENTS_ERROR (tr_events_error_quark())
GQuark tr_events_error_quark(void);
typedef enum { TR_EVENTS_ERROR_INVALID } TrEventsError;

/* Parse what tr_event_to_json wrote; a malformed object is a TR_EVENTS_ERROR, since it may
 * come from another process. Transfer full. */
TrEvent *tr_event_from_json(json_t *obj, GError **error);

typedef struct _TrEventBus TrEventBus;

/* Called for every event, in sequence order. `ev` is borrowed: ref it to keep it. */
typedef void (*TrEventFunc)(const TrEvent *ev, gpointer user_data);
/* Nanoseconds from an arbitrary monotonic origin; tests install a fake clock. */
typedef gint64 (*TrClockFunc)(gpointer user_data);

TrEventBus *tr_event_bus_new(void);
TrEventBus *tr_event_bus_ref(TrEventBus *bus);
void tr_event_bus_unref(TrEventBus *bus);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TrEventBus, tr_event_bus_unref)

/* Replace the clock (NULL restores the monotonic clock). */
void tr_event_bus_set_clock(TrEventBus *bus, TrClockFunc clock, gpointer user_data);
/* The bus's current time, on the same scale as events' ts_ns. */
gint64 tr_event_bus_now(TrEventBus *bus);
/* Keep at most `limit` past events for replay (0: keep none; G_MAXUINT: all, the default). */
void tr_event_bus_set_history_limit(TrEventBus *bus, guint limit);
/* Events kept for replay, oldest first: a new array holding new references. Transfer full. */
GPtrArray *tr_event_bus_get_history(TrEventBus *bus);

/* Register a subscriber; with `replay`, it first receives every kept event. Returns an id for
 * tr_event_bus_unsubscribe. `destroy` runs on user_data when unsubscribed or the bus dies. */
guint tr_event_bus_subscribe(TrEventBus *bus, TrEventFunc func, gpointer user_data,
                             GDestroyNotify destroy, bool replay);
/* As tr_event_bus_subscribe, for the kinds whose bit (1 << kind) is set in `kinds`. */
guint tr_event_bus_subscribe_kinds(TrEventBus *bus, guint64 kinds, TrEventFunc func,
                                   gpointer user_data, GDestroyNotify destroy, bool replay);
/* As tr_event_bus_subscribe_kinds, for a subscriber that keeps (refs) only events of the kinds
 * set in `keeps`: it may be given views of the others (see tr_event_bus_emit_view). */
guint tr_event_bus_subscribe_full(TrEventBus *bus, guint64 kinds, guint64 keeps, TrEventFunc func,
                                  gpointer user_data, GDestroyNotify destroy, bool replay);
void tr_event_bus_unsubscribe(TrEventBus *bus, guint id);
/* Whether an event of `kind` would be kept or delivered: emitters may skip making events
 * nobody wants (no history kept, no subscriber for the kind). Lock-free. */
bool tr_event_bus_wants(TrEventBus *bus, TrEventKind kind);

/* Whether concrete_function_added events carry their graph's JSON (off by default: a graph
 * is exported only for a host that shows it, such as the debugger or the kernel's publisher). */
void tr_event_bus_set_carry_graphs(TrEventBus *bus, bool carry);
bool tr_event_bus_carries_graphs(TrEventBus *bus);

/* Stamp `ev` with the next sequence number and the time, keep it, deliver it. Takes ownership
 * of the caller's reference. Returns the sequence number. */
guint64 tr_event_bus_emit(TrEventBus *bus, TrEvent *ev);
/* As tr_event_bus_emit for a view: an event the caller owns (on its stack, say, its refcount
 * 0 and its strings borrowed), stamped here and delivered as it is to subscribers that do not
 * keep its kind, so that emitting a call's events allocates nothing when nobody keeps them. A
 * subscriber that may keep it gets a copy (tr_event_copy). A view's ts_ns may be set to a
 * tr_event_bus_now() the emitter has just read (the end of the span it closes), else 0. */
guint64 tr_event_bus_emit_view(TrEventBus *bus, TrEvent *view);

/* Chrome/Perfetto trace-event JSON ({"traceEvents": [...]}) for a list of events: cells as
 * slices on lane 0, calls, traces and graph executions as complete ("X") events on one lane
 * per Function, warnings, errors, causes and tf.print as instants, a debugger's pauses as slices
 * on lane 0. Transfer full. */
json_t *tr_events_to_perfetto(GPtrArray *events);
/* Write events as JSON lines, or as a Perfetto file. */
gboolean tr_events_write_jsonl(GPtrArray *events, const char *path, GError **error);
gboolean tr_events_write_perfetto(GPtrArray *events, const char *path, GError **error);

G_END_DECLS
