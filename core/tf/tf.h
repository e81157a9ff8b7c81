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
/* Call sites in code compiled under `filename` are named `name` in events (the kernel compiles
 * cells under paths a debugger computes, and names them "<cell N>"). False with an exception
 * set when out of memory. */
bool tf_module_name_file(PyObject *tf, const char *filename, const char *name);
gint64 tf_module_get_cell(PyObject *tf);
/* The retracing warning goes to Python's sys.stderr once this is called (hosts call it at
 * start-up; tests of core/tf alone may not). */
void tf_module_print_warnings(PyObject *tf);

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
