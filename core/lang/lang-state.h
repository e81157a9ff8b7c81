/* lang-state.h — one interpreter of the cell language.
 *
 * A LangState owns everything a running program can reach: the pending exception, the
 * builtins and modules dicts, the output sinks, the recursion counter and the interrupt flag.
 * Built-in types and interned strings are static and shared by every state; everything a
 * state allocates is freed by lang_state_free(), including reference cycles (every object of
 * a LANG_TYPE_GC type is linked into the state's list and cleared at teardown), so a kernel can
 * restart its interpreter many times in one process.
 *
 * The VM plugs in through LangVmHooks: the type of its function objects, how to call them
 * from native code, and how to read a source line for tracebacks.
 */
#pragma once

#include "lang-object.h"

#include <stdatomic.h>

G_BEGIN_DECLS

/* Where print() and sys.stdout/sys.stderr write: `len` bytes of UTF-8 at `utf8`. */
typedef void (*LangWriteFunc)(void *data, const char *utf8, size_t len);

/* input(prompt): returns a newly allocated line without its newline, or NULL at EOF. */
typedef char *(*LangReadLineFunc)(void *data, const char *prompt);

/* Creates a native module's object; returns a new reference or LANG_EXC. */
typedef LangValue (*LangModuleInit)(LangState *L);

/* What the VM lends the runtime. Every member may be NULL. */
typedef struct {
  LangType *function_type; /* the type of Python functions (for callable(), descriptors) */
  LangCallFunc call;       /* calls a Python function when its type has no call slot */
  /* The text of line `lineno` of `filename` (borrowed, no newline), or NULL if unknown. */
  const char *(*source_line)(void *data, const char *filename, int lineno);
  void *data;                    /* passed to source_line */
  void (*free_data)(void *data); /* frees `data` when the state is freed, or NULL */
} LangVmHooks;

/* One list node before every object of a LANG_TYPE_GC type. */
typedef struct LangGcLink LangGcLink;
struct LangGcLink {
  LangGcLink *prev; /* previous tracked object, or the state's list head */
  LangGcLink *next; /* next tracked object, or the state's list head */
};

struct LangState {
  LangValue exc;              /* the pending exception instance, or LANG_UNSET */
  LangValue handled;          /* the exception being handled (sys.exc_info, bare raise), or UNSET */
  int depth;                  /* nested calls and reprs in progress */
  int recursion_limit;        /* RecursionError when depth would exceed it; default 1000 */
  uintptr_t c_stack_guard;    /* RecursionError below this C stack address (set at depth 0) */
  atomic_int interrupt;       /* set to 1 by a signal handler / other thread: KeyboardInterrupt */
  LangObject *builtins;       /* dict: the `builtins` namespace */
  LangObject *modules;        /* dict: name -> module, as sys.modules */
  GHashTable *native_modules; /* char* name -> LangModuleInit, importable on demand */
  LangWriteFunc out;          /* stdout sink */
  void *out_data;             /* passed to `out` */
  LangWriteFunc err;          /* stderr sink */
  void *err_data;             /* passed to `err` */
  LangVmHooks vm;             /* what the VM provides */
  GPtrArray *repr_stack;      /* containers whose repr is in progress (prints `[...]`) */
  LangGcLink gc;              /* list head of tracked (LANG_TYPE_GC) objects */
  int64_t n_tracked;          /* objects on the `gc` list */
  bool tearing_down;          /* lang_state_free() is running */
  LangObject *argv;           /* list: sys.argv */
  void *host;                 /* the embedding session (a LangInterp), or NULL */
  LangReadLineFunc input;     /* input(): reads a line (without newline); NULL reads stdin */
  void *input_data;           /* passed to `input` */
  void *tf;                   /* the tensorflow module's session state, or NULL */
  void (*tf_free)(void *tf);  /* frees `tf` when the state is freed */
};

/* Creates an interpreter with the builtins and the native modules (math, time, sys)
 * registered. Transfer full: free with lang_state_free(). */
LangState *lang_state_new(void);
/* Frees the state and everything it owns, cycles included. */
void lang_state_free(LangState *L);
/* Objects of GC types still alive (tests assert 0 after dropping their references). */
int64_t lang_state_tracked_objects(LangState *L);

void lang_state_set_stdout(LangState *L, LangWriteFunc out, void *data);
void lang_state_set_stderr(LangState *L, LangWriteFunc err, void *data);
void lang_state_set_vm_hooks(LangState *L, const LangVmHooks *hooks);
/* Writes to the sinks. */
void lang_write_out(LangState *L, const char *utf8, size_t len);
void lang_write_err(LangState *L, const char *utf8, size_t len);

/* Async-signal-safe: asks the running code to raise KeyboardInterrupt soon. */
void lang_state_interrupt(LangState *L);
/* If an interrupt was requested, clears the request, raises KeyboardInterrupt and returns
 * false. The VM calls it at loop back-edges and calls; long native loops call it too. */
bool lang_check_interrupt(LangState *L);

/* Recursion accounting for everything that may re-enter user code. `where` is CPython's
 * suffix (" while calling a Python object", " while getting the repr of an object", or "").
 * Returns false with RecursionError raised when the limit is reached, or when the C stack of
 * the running thread is nearly used up (native code re-entering Python under a huge limit). */
bool lang_enter(LangState *L, const char *where);
static inline void
lang_leave(LangState *L)
{
  L->depth--;
}

/* Registers a native module by name: `import name` calls `init` once per state. */
void lang_register_module(LangState *L, const char *name, LangModuleInit init);
/* The module `name`: from L->modules, else created by its registered init. New reference,
 * or LANG_EXC with ModuleNotFoundError "No module named 'name'". */
LangValue lang_import(LangState *L, const char *name);

/* Allocation. `size` includes the LangObject header. GC types are linked into L's list
 * (L may be NULL only for immortal objects made once per process). The object starts with
 * refcount 1 and zeroed memory; heap types are incref'd. */
LangObject *lang_object_alloc(LangState *L, LangType *type, size_t size);
/* The same with only the first `zeroed` bytes of the object zeroed: for objects whose payload
 * the caller writes at once (the bytes of a str). */
LangObject *lang_object_alloc_partial(LangState *L, LangType *type, size_t size, size_t zeroed);
/* Makes an object immortal (static singletons, interned strings). */
void lang_object_immortalize(LangObject *o);

G_END_DECLS
