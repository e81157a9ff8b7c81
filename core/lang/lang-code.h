/* lang-code.h — bytecode: the instruction set, code objects and their exception tables.
 *
 * The compiler (lang-compile.c) turns each function body, lambda, comprehension, class body and
 * cell into a LangCode; the VM (lang-vm.c) runs them. Instructions are 32-bit words: the opcode in
 * the low 8 bits and an argument in the high 24. The VM is a stack machine; each opcode's stack
 * effect is listed once below, and the compiler derives each code object's maximum stack depth
 * from that list.
 *
 * Exceptions use a table rather than block-setup instructions: a try body costs nothing until
 * something raises, then the VM finds the innermost entry covering the faulting instruction,
 * pops the value stack to the entry's depth, pushes the exception and jumps to the handler.
 */
#pragma once

#include "lang-runtime.h"

G_BEGIN_DECLS

/* Every opcode: name, stack effect when it falls through, stack effect when it jumps (only
 * for jumping opcodes), and whether its argument is a jump target. `arg` is the argument. The
 * stack layouts are in the comments; "TOS" is the top of the stack. */
#define LANG_OPCODE_LIST(X)                                                                        \
  X(NOP, 0, 0, false)                                                                              \
  X(POP_TOP, -1, 0, false)                                                                         \
  X(PUSH_NULL, 1, 0, false)  /* push UNSET (the "no self" marker of CALL) */                       \
  X(COPY, 1, 0, false)       /* push stack[-arg] (arg >= 1) */                                     \
  X(SWAP, 0, 0, false)       /* swap TOS and stack[-arg] */                                        \
  X(LOAD_CONST, 1, 0, false) /* consts[arg] */                                                     \
  X(LOAD_FAST, 1, 0, false)  /* locals[arg]; UnboundLocalError if unset */                         \
  X(STORE_FAST, -1, 0, false)                                                                      \
  X(DELETE_FAST, 0, 0, false)                                                                      \
  X(LOAD_DEREF, 1, 0, false) /* the value in cell arg (cells, then free vars) */                   \
  X(STORE_DEREF, -1, 0, false)                                                                     \
  X(DELETE_DEREF, 0, 0, false)                                                                     \
  X(LOAD_CLOSURE, 1, 0, false) /* the cell object arg itself */                                    \
  X(LOAD_GLOBAL, 1, 0, false)  /* names[arg] in globals, then builtins */                          \
  X(STORE_GLOBAL, -1, 0, false)                                                                    \
  X(DELETE_GLOBAL, 0, 0, false)                                                                    \
  X(LOAD_NAME, 1, 0, false) /* class bodies: namespace, globals, builtins */                       \
  X(STORE_NAME, -1, 0, false)                                                                      \
  X(DELETE_NAME, 0, 0, false)                                                                      \
  X(LOAD_CLASSDEREF, 1, 0, false) /* class bodies: namespace, then cell arg */                     \
  X(LOAD_ATTR, 0, 0, false)       /* obj -> obj.names[arg] */                                      \
  X(STORE_ATTR, -2, 0, false)     /* value obj -> ; obj.names[arg] = value */                      \
  X(DELETE_ATTR, -1, 0, false)                                                                     \
  X(LOAD_METHOD, 1, 0, false) /* obj -> meth obj | UNSET attr */                                   \
  X(BINARY_OP, -1, 0, false)  /* a b -> a op b; arg: LangArith */                                  \
  X(INPLACE_OP, -1, 0, false) /* a b -> a op= b; arg: LangArith */                                 \
  X(UNARY_OP, 0, 0, false)    /* arg: LangUnaryArith */                                            \
  X(UNARY_NOT, 0, 0, false)                                                                        \
  X(COMPARE_OP, -1, 0, false)    /* arg: LangCompareOp */                                          \
  X(IS_OP, -1, 0, false)         /* arg 1: `is not` */                                             \
  X(CONTAINS_OP, -1, 0, false)   /* a b -> a in b; arg 1: `not in` */                              \
  X(BINARY_SUBSCR, -1, 0, false) /* obj key -> obj[key] */                                         \
  X(STORE_SUBSCR, -3, 0, false)  /* value obj key -> */                                            \
  X(DELETE_SUBSCR, -2, 0, false) /* obj key -> */                                                  \
  X(BUILD_TUPLE, 1 - (int)arg, 0, false)                                                           \
  X(BUILD_LIST, 1 - (int)arg, 0, false)                                                            \
  X(BUILD_SET, 1 - (int)arg, 0, false)                                                             \
  X(BUILD_MAP, 1 - 2 * (int)arg, 0, false)     /* k1 v1 ... kn vn -> dict */                       \
  X(BUILD_SLICE, 1 - (int)arg, 0, false)       /* 2 or 3 parts */                                  \
  X(BUILD_STRING, 1 - (int)arg, 0, false)      /* concatenates arg strs */                         \
  X(FORMAT_VALUE, -((arg & 4) != 0), 0, false) /* value [spec] -> str; arg&3: 0 - 1 s 2 r 3 a */   \
  X(LIST_APPEND, -1, 0, false)                 /* v -> ; stack[-arg].append(v) (after the pop) */  \
  X(SET_ADD, -1, 0, false)                                                                         \
  X(MAP_ADD, -2, 0, false)     /* k v -> ; stack[-arg][k] = v */                                   \
  X(LIST_EXTEND, -1, 0, false) /* it -> ; stack[-arg].extend(it) */                                \
  X(SET_UPDATE, -1, 0, false)                                                                      \
  X(DICT_UPDATE, -1, 0, false) /* {**m} */                                                         \
  X(DICT_MERGE, -1, 0, false)  /* f(**m): duplicate keys are an error */                           \
  X(LIST_TO_TUPLE, 0, 0, false)                                                                    \
  X(JUMP_FORWARD, 0, 0, true)                                                                      \
  X(JUMP_BACKWARD, 0, 0, true) /* also checks for an interrupt */                                  \
  X(POP_JUMP_IF_FALSE, -1, -1, true)                                                               \
  X(POP_JUMP_IF_TRUE, -1, -1, true)                                                                \
  X(POP_JUMP_IF_NONE, -1, -1, true)                                                                \
  X(POP_JUMP_IF_NOT_NONE, -1, -1, true)                                                            \
  X(JUMP_IF_FALSE_OR_POP, -1, 0, true) /* `and`: keeps TOS when jumping */                         \
  X(JUMP_IF_TRUE_OR_POP, -1, 0, true)  /* `or` */                                                  \
  X(GET_ITER, 0, 0, false)                                                                         \
  X(FOR_ITER, 1, -1, true) /* it -> it next | (exhausted: pops it, jumps) */                       \
  X(UNPACK_SEQUENCE, (int)arg - 1, 0, false)                                                       \
  X(UNPACK_EX, (int)(arg & 0xfff) + (int)(arg >> 12), 0, false) /* before | after << 12 */         \
  X(KW_NAMES, 0, 0, false)         /* the next CALL's keyword names: consts[arg] */                \
  X(CALL, -1 - (int)arg, 0, false) /* A B args*arg -> result (see lang-vm.c) */                    \
  X(CALL_FUNCTION_EX, -2 - (int)(arg & 1), 0, false)       /* A B argtuple [kwdict] -> result */   \
  X(MAKE_FUNCTION, -__builtin_popcount(arg & 7), 0, false) /* [defs] [kwdefs] [cells] code */      \
  X(LOAD_BUILD_CLASS, 1, 0, false)                                                                 \
  X(RETURN_VALUE, -1, 0, false)                                                                    \
  X(YIELD_VALUE, 0, 0, false) /* v -> sent */                                                      \
  X(GET_YIELD_FROM_ITER, 0, 0, false)                                                              \
  X(SEND, 0, -1, true)                  /* it v -> it r | (done: it v -> value, jumps) */          \
  X(RAISE_VARARGS, -(int)arg, 0, false) /* 0: re-raise, 1: raise exc, 2: raise exc from cause */   \
  X(RERAISE, -1, 0, false)              /* exc -> (raised again) */                                \
  X(PUSH_EXC_INFO, 1, 0, false)         /* exc -> previous_handled exc */                          \
  X(POP_EXCEPT, -1, 0, false)           /* previous_handled -> (restored) */                       \
  X(CHECK_EXC_MATCH, 0, 0, false)       /* exc cls -> exc bool */                                  \
  X(BEFORE_WITH, 1, 0, false)           /* mgr -> exit enter_result */                             \
  X(WITH_EXCEPT_START, 1, 0, false)     /* exit prev exc -> exit prev exc exit(type, exc, tb) */   \
  X(LOAD_ASSERTION_ERROR, 1, 0, false)                                                             \
  X(IMPORT_NAME, 0, 0, false) /* fromlist -> module names[arg] */                                  \
  X(IMPORT_FROM, 1, 0, false) /* module -> module module.names[arg] */                             \
  X(IMPORT_STAR, -1, 0, false)                                                                     \
  X(SET_RESULT, -1, 0, false) /* a cell's last expression: its execute_result */                   \
  /* AutoGraph (lang-tf-autograph.c): plain jumps and a no-op, unless the frame is tracing */      \
  /* an `if` or `while` on a symbolic tensor */                                                    \
  X(AG_ELSE, 0, 0, true)   /* end of an if's true part: JUMP_FORWARD */                            \
  X(AG_LOOP, 0, 0, true)   /* a while's back edge: JUMP_BACKWARD */                                \
  X(AG_END, 0, 0, false)   /* end of an if; arg: its block index */                                \
  X(AG_BREAK, 0, 0, false) /* break/continue of loop arg/2 (arg&1: continue) in a graph loop */    \
  /* `and`/`or` in an if's or while's test: acc x -> acc (x symbolic: acc combined with it; x  */  \
  /* neither symbolic nor deciding: dropped) | deciding Python x: -> False/True, jumps */          \
  X(AG_AND, -1, -1, true)                                                                          \
  X(AG_OR, -1, -1, true)                                                                           \
  X(AG_BOOL_END, -1, 0, false) /* acc x -> x, or acc combined with x; arg 1: `or` */               \
  /* the same in a function's `and`/`or` values: a deciding Python x is kept (-> x, jumps) */      \
  X(AG_AND_KEEP, -1, -1, true)                                                                     \
  X(AG_OR_KEEP, -1, -1, true)

typedef enum {
#define LANG_OPCODE_ENUM(name, effect, jump_effect, is_jump) LANG_OP_##name,
  LANG_OPCODE_LIST(LANG_OPCODE_ENUM)
#undef LANG_OPCODE_ENUM
      LANG_N_OPCODES
} LangOpcode;

G_STATIC_ASSERT(LANG_N_OPCODES <= 256);

#define LANG_INSTR(op, arg)  ((uint32_t)(op) | ((uint32_t)(arg) << 8))
#define LANG_INSTR_OP(word)  ((LangOpcode)((word)&0xff))
#define LANG_INSTR_ARG(word) ((word) >> 8)
#define LANG_INSTR_MAX_ARG   0xffffffu

const char *lang_opcode_name(LangOpcode op);
bool lang_opcode_is_jump(LangOpcode op);
/* Stack effect of one instruction; `jump` selects the effect when it takes its jump. */
int lang_opcode_stack_effect(LangOpcode op, uint32_t arg, bool jump);

/* One entry of a code object's exception table: instructions [start, end) jump to `target`
 * when they raise, with the value stack cut to `depth` and the exception pushed. Entries are
 * sorted by `start` and do not overlap: each instruction has at most one handler, the innermost
 * that was active when the compiler emitted it. */
typedef struct {
  uint32_t start;  /* first covered instruction */
  uint32_t end;    /* one past the last */
  uint32_t target; /* handler */
  uint32_t depth;  /* stack depth to keep */
} LangExcEntry;

typedef enum {
  LANG_CODE_GENERATOR = 1 << 0,     /* calling it makes a generator */
  LANG_CODE_VARARGS = 1 << 1,       /* has *args */
  LANG_CODE_VARKEYWORDS = 1 << 2,   /* has **kwargs */
  LANG_CODE_CLASS_BODY = 1 << 3,    /* runs with a namespace dict (LOAD_NAME and friends) */
  LANG_CODE_MODULE = 1 << 4,        /* a cell or script: names are globals */
  LANG_CODE_COMPREHENSION = 1 << 5, /* inlined into tracebacks as "<listcomp>" etc. */
} LangCodeFlags;

/* A `for`, `if` or `while` of a function, with the fast locals its blocks assign: what the
 * interpreter needs to trace it as a graph loop or conditional (AutoGraph) when it meets a
 * symbolic tensor there. Instruction indices are final (labels never move instructions). */
typedef enum {
  LANG_BLOCK_FOR,   /* instr: its FOR_ITER */
  LANG_BLOCK_IF,    /* instr: the test's POP_JUMP_IF_FALSE (_TRUE for `not`); orelse, end */
  LANG_BLOCK_WHILE, /* instr: the test's POP_JUMP_IF_FALSE; start, end (AG_LOOP), orelse */
} LangBlockKind;

typedef struct {
  int kind;          /* LangBlockKind */
  int instr;         /* see LangBlockKind; -1 when the test is not one jump (`and`, `or`, `not`) */
  int start;         /* WHILE: the test's first instruction (the loop's top); else instr */
  int orelse;        /* IF: first instruction of the else part (== end without one); WHILE: first
                      * instruction after the loop's back edge (its else part, then the exit) */
  int end;           /* IF: its AG_END; WHILE and FOR: its AG_LOOP back edge */
  int n;             /* how many locals the blocks assign (a for loop's target excluded) */
  int *slots;        /* their fast-local indices */
  int brk_slot;      /* loops: the hidden local `break` sets to True, or -1 */
  int cont_slot;     /* loops: the hidden local `continue` sets to True, or -1 */
  int ret_slot;      /* loops: the hidden local a `return` inside stores its value in, or -1 */
  int returned_slot; /* loops: the hidden local a `return` inside sets to True, or -1 */
} LangLoopInfo;

typedef struct {
  LangObject base;         /* type is lang_code_type */
  uint32_t *code;          /* instructions */
  int n_code;              /* number of instructions */
  int *lines;              /* source line of each instruction */
  LangValue *consts;       /* constants (owned), incl. nested code objects */
  int n_consts;            /* how many */
  LangObject **names;      /* interned strs: globals, attributes, imports */
  int n_names;             /* how many */
  LangObject **varnames;   /* interned strs: parameters first, then other locals */
  int n_locals;            /* fast locals (parameters included) */
  LangObject **cellnames;  /* cells this code creates, then free variables it receives */
  int n_cells;             /* cells it creates */
  int n_free;              /* free variables (closure cells), after the cells */
  int *cell2arg;           /* per cell: the parameter it starts from, or -1; NULL when none */
  int argcount;            /* positional parameters (positional-only included) */
  int posonlyargcount;     /* positional-only parameters */
  int kwonlyargcount;      /* keyword-only parameters */
  unsigned flags;          /* LangCodeFlags */
  int stacksize;           /* maximum value-stack depth */
  LangExcEntry *exc_table; /* handlers, sorted by start */
  int n_exc;               /* how many */
  LangObject *name;        /* str: the function's name, "<module>", "<lambda>", "<listcomp>" */
  LangObject *qualname;    /* str: "Model.__call__", "f.<locals>.g" */
  LangObject *filename;    /* str: "<cell 3>" or a path */
  int firstlineno;         /* line of the def (or 1) */
  LangObject *doc;         /* str or NULL: the docstring */
  LangObject *signature;   /* str: "(a, b=2, *args, c, **kw)" for help() and inspect */
  LangLoopInfo *loops;     /* the function's for/if/while blocks, in order; NULL when none */
  int n_loops;             /* how many */
} LangCode;

extern LangType lang_code_type;

/* The source line of instruction `index`. */
static inline int
lang_code_line(const LangCode *code, int index)
{
  if (index < 0)
    index = 0;
  if (index >= code->n_code)
    index = code->n_code - 1;
  return code->n_code > 0 ? code->lines[index] : code->firstlineno;
}

/* A readable listing of the instructions (tests and debugging). Transfer full. */
char *lang_code_disassemble(const LangCode *code);

G_END_DECLS
