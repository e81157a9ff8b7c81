/* lang-vm.h — the bytecode VM: functions, cells, generators, and running code.
 *
 * Python-to-Python calls do not recurse in C: the VM pushes a frame and continues in the same
 * loop, so deep recursion is bounded only by the recursion limit (RecursionError), never by the
 * C stack. Native code calls back into Python through lang_call(), which re-enters the loop and
 * counts against the same limit. Generators own their frame and resume it with a nested run.
 * Those nested runs do use C stack; lang_enter() (lang-state.h) turns a C stack near its end into
 * RecursionError, so even a huge sys.setrecursionlimit() cannot crash the process. The module
 * frame counts against the limit too, as in CPython.
 *
 * Interrupts (KeyboardInterrupt) are checked at backward jumps and calls.
 */
#pragma once

#include "lang-code.h"

G_BEGIN_DECLS

/* A closure cell: one variable shared between a scope and the functions nested in it. */
typedef struct {
  LangObject base; /* type is lang_cell_type */
  LangValue ref;   /* the value, or UNSET while unbound */
} LangCell;

typedef struct {
  LangObject base;        /* type is lang_function_type */
  LangCode *code;         /* owned */
  LangObject *globals;    /* dict, owned: the module namespace the def ran in */
  LangObject *defaults;   /* tuple or NULL: defaults of the last positional parameters */
  LangObject *kwdefaults; /* dict or NULL: defaults of keyword-only parameters */
  LangObject *closure;    /* tuple of LangCell or NULL: the free variables' cells */
  LangObject *name;       /* str: __name__ (settable) */
  LangObject *qualname;   /* str: __qualname__ */
  LangObject *module;     /* str or NULL: __module__ */
  LangValue doc;          /* __doc__: str or None */
  LangObject *dict;       /* __dict__: attributes set on the function, or NULL */
} LangFunction;

typedef struct LangFrame LangFrame;

typedef struct {
  LangObject base;      /* type is lang_generator_type */
  LangFrame *frame;     /* suspended frame, owned; NULL once finished */
  bool running;         /* a resume is in progress ("generator already executing") */
  bool started;         /* the frame has run up to its first yield */
  LangObject *name;     /* str: __name__ */
  LangObject *qualname; /* str: __qualname__ */
} LangGenerator;

extern LangType lang_function_type;
extern LangType lang_cell_type;
extern LangType lang_generator_type;

/* Makes `L` able to run bytecode: installs the VM hooks (calling Python functions from native
 * code, source lines for tracebacks) and the built-ins that need the VM (__build_class__).
 * Called once per LangState, before running anything. */
void lang_vm_install(LangState *L);

/* Registers the source of `filename` ("<cell 3>", a script path) so that tracebacks can show
 * its lines. The text is copied. */
void lang_vm_add_source(LangState *L, const char *filename, const char *source, gssize len);

/* Runs a module-level code object (a cell or script) in `globals` (a dict). Returns None, or
 * LANG_EXC with the exception pending. When `result` is not NULL it receives the value of the
 * unit's last expression statement (new reference; UNSET when there is none or it is None). */
LangValue lang_vm_run_module(LangState *L, LangCode *code, LangObject *globals, LangValue *result);

/* Calls a Python function (the function type's call slot). */
LangValue lang_function_call(LangState *L, LangValue func, const LangValue *args, int nargs,
                             LangObject *kwnames);

/* Generator protocol: send(value) (None for next()), throw(exc), close(). send returns the
 * yielded value, LANG_UNSET with *returned set (new reference) when the generator finished
 * (StopIteration is not raised here), or LANG_EXC. */
LangValue lang_generator_send(LangState *L, LangValue gen, LangValue value, LangValue *returned);
LangValue lang_generator_throw(LangState *L, LangValue gen, LangValue exc, LangValue *returned);
bool lang_generator_close(LangState *L, LangValue gen);

/* Where the innermost running Python frame is: its filename ("<cell 3>", a path; borrowed)
 * and the line of the instruction that called into native code. False when no Python code
 * runs. */
bool lang_vm_current_location(LangState *L, const char **filename, int *line);

/* For an iterator called by FOR_ITER: the innermost frame's fast locals (borrowed; the caller
 * may replace entries, owning the references it stores), the slots the running `for` loop's
 * body assigns, and the code's local names. NULL when the loop is not in a function. */
LangValue *lang_vm_loop_locals(LangState *L, const int **slots, int *n_slots,
                               LangObject *const **varnames, const LangLoopInfo **info);

/* ---- AutoGraph (lang-tf-autograph.c) --------------------------------------------------------
 * An `if` or `while` of a function whose test is a symbolic tensor is traced as a graph
 * conditional or loop: the interpreter runs both branches (or the body once) on symbolic values.
 * It calls these hooks at the block's instructions (LangLoopInfo); they return an instruction
 * index to go to, or one of: */
enum {
  LANG_AG_PLAIN = -1, /* nothing to do: run the instruction as usual */
  LANG_AG_RAISE = -2, /* an exception is set */
  LANG_AG_NEXT = -3,  /* go on with the next instruction (do not jump) */
};

/* The test of block instruction `instr` gave `v` (borrowed); `depth` is the stack depth. */
int lang_ag_test(LangState *L, LangFrame *f, int instr, LangValue v, int depth);
/* AG_ELSE at `instr`: the end of an if's true part. */
int lang_ag_else(LangState *L, LangFrame *f, int instr);
/* AG_END of block `block`: the end of an if. LANG_AG_PLAIN or LANG_AG_RAISE. */
int lang_ag_end(LangState *L, LangFrame *f, int block);
/* AG_BREAK: `break` (arg even) or `continue` of loop block arg / 2 set its flag; a target
 * means the graph branch it runs in ends there (LANG_AG_NEXT: the plain break follows). */
int lang_ag_break(LangState *L, LangFrame *f, int arg);
/* The innermost running Python frame, or NULL. */
LangFrame *lang_vm_top_frame(LangState *L);
/* AG_LOOP at `instr`: a while's or for's back edge. */
int lang_ag_loop(LangState *L, LangFrame *f, int instr);
/* RETURN_VALUE of `*r` (owned; may be replaced) while blocks are traced. A target means: cut the
 * stack to `*depth` and go on there (the returned value was kept as a branch's result). */
int lang_ag_return(LangState *L, LangFrame *f, int instr, LangValue *r, int *depth);
/* Whether `v` is a symbolic tensor of the trace in progress (an AutoGraph operand). */
bool lang_ag_symbolic(LangState *L, LangValue v);
/* `acc and x` / `acc or x` in a converted test, `acc` symbolic: the tensor (or deciding Python
 * bool) the test goes on with. Transfer full; LANG_EXC with an exception set. */
LangValue lang_ag_bool_op(LangState *L, bool is_or, LangValue acc, LangValue x);
/* `not v` for a symbolic `v`: tf.logical_not. Transfer full. */
LangValue lang_ag_not(LangState *L, LangValue v);
/* An exception leaves the frame: drop its blocks and resume the enclosing trace. */
void lang_ag_abort(LangState *L, LangFrame *f);

LangCode *lang_frame_code(LangFrame *f);
LangValue *lang_frame_locals(LangFrame *f);
/* The frame's AutoGraph state (NULL when no block is traced). */
void **lang_frame_ag(LangFrame *f);

/* A new empty cell (ref UNSET) or one holding `v` (borrowed). Transfer full. */
LangValue lang_cell_new(LangState *L, LangValue v);

G_END_DECLS
