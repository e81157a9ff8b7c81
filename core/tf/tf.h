/* tf.h — what the programs embedding Python (core/py, the kernel, the debugger) use of the
 * `tensorflow` module.
 *
 * The module is a CPython extension in C over core/tensor, core/graph and core/trace. A host
 * registers it as a built-in module before Python starts, so `import tensorflow` finds it
 * before any TensorFlow installed on the machine:
 *
 *   PyImport_AppendInittab("tensorflow", PyInit_tensorflow);
 *   Py_InitializeFromConfig(&config);
 *   PyObject *tf = PyImport_ImportModule("tensorflow");   // cheap: no NumPy, no Keras yet
 *   tf_module_use_event_bus(tf, bus);                      // the host's one numbered stream
 *
 * Every function below takes the imported module object (borrowed) and must be called with the
 * GIL held, except tf_module_get_registry's result, whose run-eagerly switch is thread-safe.
 */
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <signal.h>
#include <stdbool.h>

#include "tr-events.h"
#include "tr-fn.h"

G_BEGIN_DECLS

/* The module's init function (single-phase: one module per interpreter). */
PyMODINIT_FUNC PyInit_tensorflow(void);

/* The module's event bus (SPEC §4): every Function, call, trace and tf.print emits on it.
 * Borrowed; lives as long as the module. */
TrEventBus *tf_module_get_event_bus(PyObject *tf);
/* Emit on `bus` (a reference is taken) instead of the module's own bus, so that a host keeps
 * one numbered stream. Returns false, changing nothing, once a Function exists. */
bool tf_module_use_event_bus(PyObject *tf, TrEventBus *bus);
/* The Functions of this interpreter and the "run functions eagerly" switch. Borrowed. */
TrFnRegistry *tf_module_get_registry(PyObject *tf);
/* The running cell's execution count (0: none), carried by call events. */
void tf_module_set_cell(PyObject *tf, gint64 cell);
/* Call sites in code compiled under a file name that `names` (a dict, kept by the module) maps
 * to an int N are named "<cell N>" in events, or to a str, that str. The kernel compiles cells
 * under paths a debugger computes and passes IPython's own map of them to execution counts, so
 * naming costs nothing per cell. Replaces the mapping given before; NULL removes it. */
void tf_module_name_files(PyObject *tf, PyObject *names);
gint64 tf_module_get_cell(PyObject *tf);
/* The retracing warning goes to Python's sys.stderr once this is called (hosts call it at
 * start-up; tests of core/tf alone may not). */
void tf_module_print_warnings(PyObject *tf);

/* ---- a debugger in the host (the kernel's Jupyter debug protocol; issue 15) ----------------
 *
 * A breakpoint in a Function's Python body stops while the Function traces, and on every call
 * when functions run eagerly, but a cached call runs the graph and no Python: the breakpoint
 * cannot stop it. So that users learn why, such a call emits breakpoint_bypassed (tr-events.h)
 * when breakpoints sit in the Function's body. The host tells the module its debugger's
 * breakpoints, and reports its stops and continues through the module, which knows whether a
 * Function was tracing at the stop:
 *
 *  - setBreakpoints {source.path, breakpoints[].line}: tf_module_set_breakpoints(tf, path, ...);
 *  - the client disconnects (its breakpoints go): tf_module_set_breakpoints(tf, NULL, NULL, 0);
 *  - debugpy's "stopped" {reason, description}, with the top frame of the stopped thread's
 *    stackTrace {source.path, line, name}: tf_module_emit_debugger_stopped(...);
 *  - debugpy's "continued", a continue/next/stepIn/stepOut request (DAP sends no "continued"
 *    for those), or a disconnect while paused: tf_module_emit_debugger_continued(tf).
 *
 * All three need the GIL (the paused main thread waits inside debugpy with the GIL released,
 * so the control thread can take it with PyGILState_Ensure).
 */

/* The breakpoints of code file `filename` (a code object's co_filename, such as the path the
 * kernel compiles a cell under, "/tmp/trellis_123/456.py") are now `lines` (1-based, any order,
 * duplicates allowed): they replace the file's previous ones; n == 0 clears them; `filename`
 * NULL with n == 0 clears every file's. Setting the same lines again changes nothing. After a
 * change, the next cached call of each Function whose Python body (its first statement's line to
 * its last line, nested functions included) holds one of the lines emits breakpoint_bypassed
 * once; further cached calls stay silent until the breakpoints change again. Nothing is checked
 * on cached calls while no breakpoint was ever set. False (a critical logged, nothing changed)
 * only for a misuse: lines without a file. */
bool tf_module_set_breakpoints(PyObject *tf, const char *filename, const int *lines, size_t n);
/* Emit debugger_stopped: the kernel is paused. `reason`: the Debug Adapter Protocol's stopped
 * reason ("breakpoint", "step", "exception", "pause", ...); `filename` (a co_filename: events
 * name it as tf_module_name_file said, "<cell 3>"), `line` and `function` (the frame's function
 * name, "<module>" for a cell's top level) the top user frame of the stopped thread; any may be
 * NULL/0 when unknown. `description` (may be NULL): the stop's text, an exception's message. The
 * module adds the running cell, and the Function whose Python body was running at the stop
 * (traced, with "tracing" true; or eagerly), if any. */
void tf_module_emit_debugger_stopped(PyObject *tf, const char *reason, const char *filename,
                                     int line, const char *function, const char *description);
/* Emit debugger_continued (with how long the kernel was paused), when a debugger_stopped was
 * emitted since the last one; otherwise nothing. */
void tf_module_emit_debugger_continued(PyObject *tf);

/* Interrupts. The host's SIGINT path (or the kernel's control thread) sets the flag with
 * tf_interrupt_request() next to PyErr_SetInterrupt(); graph executors and long kernels poll
 * tf_interrupt_pending() and stop with KeyboardInterrupt; the host clears it when a cell
 * starts. Async-signal-safe. */
void tf_interrupt_request(void);
bool tf_interrupt_pending(void);
void tf_interrupt_clear(void);
/* The flag itself, for TrRunContext.cancel: graph runs stop when it is set. */
const volatile sig_atomic_t *tf_interrupt_flag(void);

G_END_DECLS
