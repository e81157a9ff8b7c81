/* lang-compile.c — the bytecode compiler: AST to LangCode.
 *
 * A Unit is one code object under construction. Instructions are emitted with symbolic labels
 * for jump targets and are resolved when the unit is assembled; each instruction also records
 * the exception handler active when it was emitted (the innermost try/with/except block), and
 * assembly turns runs of equal handlers into the code's exception table. The maximum stack
 * depth is computed by walking the instructions with their stack effects (lang-code.h).
 *
 * Blocks that need cleanup when `return`, `break` or `continue` leave them early (loops that
 * keep an iterator on the stack, try/finally, with, except handlers) are kept on a stack of
 * FBlocks, as their cleanup must be emitted inline on those paths.
 */
#include "lang-compile.h"
#include "lang-parser.h"
#include "lang-runtime-private.h"
#include "lang-symtable.h"
#include "lang-vm.h"

#include <string.h>

/* ---- units ------------------------------------------------------------------------------ */

typedef struct {
  uint32_t op;       /* LangOpcode */
  uint32_t arg;      /* argument; a label id for jumps until assembly */
  int line;          /* source line */
  int handler;       /* label id of the active exception handler, or -1 */
  int handler_depth; /* stack depth to keep when that handler runs */
} Instr;

typedef enum {
  FB_WHILE,       /* while loop: continue jumps to its test */
  FB_FOR,         /* for loop: an iterator on the stack */
  FB_TRY_EXCEPT,  /* the body of try/except: nothing to clean up */
  FB_FINALLY_TRY, /* the body of try/finally: run the finally body on the way out */
  FB_FINALLY_END, /* the finally body on the exception path: exc and prev on the stack */
  FB_WITH,        /* a with body: __exit__ on the stack */
  FB_HANDLER,     /* an except body: the previous exception on the stack; maybe a name */
  FB_POP_VALUE,   /* a value to drop (the result of a return being unwound) */
} FBlockKind;

typedef struct {
  FBlockKind kind;               /* what cleanup leaving it needs */
  int start;                     /* loops: label of the continue target */
  int exit;                      /* loops: label after the loop */
  const LangStmtList *finalbody; /* FB_FINALLY_TRY: the statements to run */
  const char *name;              /* FB_HANDLER: the `as` name to clear, or NULL */
  int n_handlers;                /* handler-stack height outside this block */
  int blk;                       /* loops of functions: their LangLoopInfo index, or -1 */
  int brk_slot;                  /* loops: the local `break` sets for AutoGraph, or -1 */
  int cont_slot;                 /* loops: the local `continue` sets for AutoGraph, or -1 */
  int ret_slot;                  /* loops: the local a `return` inside stores its value in */
  int returned_slot;             /* loops: the local a `return` inside sets to True, or -1 */
} FBlock;

typedef struct Unit Unit;
struct Unit {
  Unit *parent;          /* enclosing unit */
  LangScope *scope;      /* from the symtable */
  GArray *instrs;        /* Instr */
  GArray *labels;        /* int: instruction index of each label, -1 until placed */
  GArray *consts;        /* LangValue, owned */
  GPtrArray *names;      /* LangObject* interned */
  GPtrArray *varnames;   /* LangObject* interned */
  GPtrArray *cellnames;  /* cells then free variables */
  int n_cells;           /* cells among cellnames */
  GArray *handlers;      /* active handlers: int pairs (label, depth) */
  GArray *fblocks;       /* FBlock */
  int depth;             /* current stack depth, tracked while emitting */
  int line;              /* current source line */
  int firstlineno;       /* line of the def */
  LangObject *name;      /* str */
  LangObject *qualname;  /* str */
  unsigned flags;        /* LangCodeFlags */
  int argcount;          /* positional parameters */
  int posonlyargcount;   /* positional-only parameters */
  int kwonlyargcount;    /* keyword-only parameters */
  LangObject *doc;       /* str or NULL */
  LangObject *signature; /* str or NULL */
  int comp_depth;        /* comprehensions: iterators stacked above the result */
  GArray *loops;         /* LangLoopInfo of the for/if/while blocks compiled so far */
};

typedef struct {
  LangState *L;         /* for constants and the SyntaxError */
  LangModule *unit;     /* the tree */
  Unit *u;              /* the unit being compiled */
  unsigned flags;       /* LangCompileFlags */
  bool failed;          /* a SyntaxError is pending */
  LangObject *filename; /* str */
} Compiler;

typedef struct {
  int label; /* handler target */
  int depth; /* stack depth it keeps */
} Handler;

static LangObject *
intern(const char *s)
{
  return lang_intern(s);
}

static Unit *
unit_new(Compiler *c, LangScope *scope, const char *name, const char *qualname, int firstlineno)
{
  Unit *u = g_new0(Unit, 1);
  u->parent = c->u;
  u->scope = scope;
  u->instrs = g_array_new(FALSE, FALSE, sizeof(Instr));
  u->labels = g_array_new(FALSE, FALSE, sizeof(int));
  u->consts = g_array_new(FALSE, FALSE, sizeof(LangValue));
  u->names = g_ptr_array_new();
  u->varnames = g_ptr_array_new();
  u->cellnames = g_ptr_array_new();
  u->handlers = g_array_new(FALSE, FALSE, sizeof(Handler));
  u->fblocks = g_array_new(FALSE, FALSE, sizeof(FBlock));
  u->loops = g_array_new(FALSE, FALSE, sizeof(LangLoopInfo));
  u->firstlineno = firstlineno;
  u->line = firstlineno;
  u->name = lang_str_cstr(c->L, name).o;
  u->qualname = lang_str_cstr(c->L, qualname).o;
  return u;
}

static void
unit_free(Unit *u)
{
  for (guint i = 0; i < u->consts->len; i++)
    lang_decref(g_array_index(u->consts, LangValue, i));
  g_array_free(u->instrs, TRUE);
  g_array_free(u->labels, TRUE);
  g_array_free(u->consts, TRUE);
  g_ptr_array_free(u->names, TRUE);
  g_ptr_array_free(u->varnames, TRUE);
  g_ptr_array_free(u->cellnames, TRUE);
  g_array_free(u->handlers, TRUE);
  g_array_free(u->fblocks, TRUE);
  for (guint i = 0; i < u->loops->len; i++)
    g_free(g_array_index(u->loops, LangLoopInfo, i).slots);
  g_array_free(u->loops, TRUE);
  if (u->name)
    lang_decref(lang_obj(u->name));
  if (u->qualname)
    lang_decref(lang_obj(u->qualname));
  if (u->doc)
    lang_decref(lang_obj(u->doc));
  if (u->signature)
    lang_decref(lang_obj(u->signature));
  g_free(u);
}

/* ---- errors ----------------------------------------------------------------------------- */

static void
compile_error(Compiler *c, const LangLoc *loc, const char *msg)
{
  if (c->failed)
    return;
  c->failed = true;
  const char *line = NULL;
  g_autofree char *text = NULL;
  if (c->unit->source && loc->line > 0) {
    const char *p = c->unit->source;
    for (int l = 1; l < loc->line && p; l++) {
      p = strchr(p, '\n');
      if (p)
        p++;
    }
    if (p) {
      const char *end = strchr(p, '\n');
      text = end ? g_strndup(p, (gsize)(end - p)) : g_strdup(p);
      line = text;
    }
  }
  /* As CPython's compiler: the node's range, in 1-based byte offsets. */
  lang_raise_syntax(c->L, &lang_exc_SyntaxError, msg, lang_str_data(c->filename), loc->line,
                    loc->col + 1, loc->end_line, loc->end_col + 1, line);
}

/* ---- emitting --------------------------------------------------------------------------- */

static int
new_label(Compiler *c)
{
  int unset = -1;
  g_array_append_val(c->u->labels, unset);
  return (int)c->u->labels->len - 1;
}

static void
place_label(Compiler *c, int label)
{
  g_array_index(c->u->labels, int, label) = (int)c->u->instrs->len;
}

static void
emit(Compiler *c, LangOpcode op, uint32_t arg)
{
  Unit *u = c->u;
  Instr in = {.op = op, .arg = arg, .line = u->line, .handler = -1};
  if (u->handlers->len > 0) {
    Handler *h = &g_array_index(u->handlers, Handler, u->handlers->len - 1);
    in.handler = h->label;
    in.handler_depth = h->depth;
  }
  g_array_append_val(u->instrs, in);
  /* The depth on the fall-through path (unconditional jumps have no effect). */
  u->depth += lang_opcode_stack_effect(op, arg, false);
}

static void
emit_jump(Compiler *c, LangOpcode op, int label)
{
  emit(c, op, (uint32_t)label);
}

static void
push_handler(Compiler *c, int label, int depth)
{
  Handler h = {label, depth};
  g_array_append_val(c->u->handlers, h);
}

static void
pop_handler(Compiler *c)
{
  g_array_set_size(c->u->handlers, c->u->handlers->len - 1);
}

static bool
const_equal(LangValue a, LangValue b)
{
  if (a.tag != b.tag)
    return false;
  switch (a.tag) {
    case LANG_TAG_NONE:
      return true;
    case LANG_TAG_BOOL:
      return a.b == b.b;
    case LANG_TAG_INT:
      return a.i == b.i;
    case LANG_TAG_FLOAT:
      return memcmp(&a.f, &b.f, sizeof a.f) == 0;
    case LANG_TAG_OBJ:
      if (a.o == b.o)
        return true;
      if (a.o->type != b.o->type)
        return false;
      if (a.o->type == &lang_str_type)
        return lang_str_equal(a.o, b.o);
      return false;
    default:
      return false;
  }
}

/* Index of a constant (the unit takes a reference). */
static uint32_t
add_const(Compiler *c, LangValue v)
{
  GArray *consts = c->u->consts;
  for (guint i = 0; i < consts->len; i++)
    if (const_equal(g_array_index(consts, LangValue, i), v))
      return i;
  lang_incref(v);
  g_array_append_val(consts, v);
  return consts->len - 1;
}

/* Index of a constant, consuming the caller's reference. */
static uint32_t
add_const_steal(Compiler *c, LangValue v)
{
  uint32_t i = add_const(c, v);
  lang_decref(v);
  return i;
}

static void
emit_const(Compiler *c, LangValue v)
{
  emit(c, LANG_OP_LOAD_CONST, add_const(c, v));
}

static uint32_t
name_index(GPtrArray *array, LangObject *name)
{
  for (guint i = 0; i < array->len; i++)
    if (g_ptr_array_index(array, i) == name)
      return i;
  g_ptr_array_add(array, name);
  return array->len - 1;
}

static uint32_t
add_name(Compiler *c, const char *name)
{
  return name_index(c->u->names, intern(name));
}

/* ---- names ------------------------------------------------------------------------------ */

typedef enum { ACCESS_LOAD, ACCESS_STORE, ACCESS_DELETE } Access;

static int
find_ptr(GPtrArray *array, LangObject *name)
{
  for (guint i = 0; i < array->len; i++)
    if (g_ptr_array_index(array, i) == name)
      return (int)i;
  return -1;
}

static void
emit_name(Compiler *c, const char *id, Access access)
{
  static const LangOpcode fast[] = {LANG_OP_LOAD_FAST, LANG_OP_STORE_FAST, LANG_OP_DELETE_FAST};
  static const LangOpcode deref[] = {LANG_OP_LOAD_DEREF, LANG_OP_STORE_DEREF, LANG_OP_DELETE_DEREF};
  static const LangOpcode global[] = {LANG_OP_LOAD_GLOBAL, LANG_OP_STORE_GLOBAL,
                                      LANG_OP_DELETE_GLOBAL};
  static const LangOpcode name[] = {LANG_OP_LOAD_NAME, LANG_OP_STORE_NAME, LANG_OP_DELETE_NAME};
  Unit *u = c->u;
  LangObject *s = intern(id);
  LangSymbolKind kind = lang_scope_symbol(u->scope, id);
  LangScopeKind scope_kind = lang_scope_kind(u->scope);

  if (kind == LANG_SYMBOL_FREE || kind == LANG_SYMBOL_CELL) {
    int index = find_ptr(u->cellnames, s);
    g_assert(index >= 0);
    if (scope_kind == LANG_SCOPE_CLASS && access == ACCESS_LOAD)
      emit(c, LANG_OP_LOAD_CLASSDEREF, (uint32_t)index);
    else
      emit(c, deref[access], (uint32_t)index);
    return;
  }
  if (kind == LANG_SYMBOL_GLOBAL_EXPLICIT ||
      (kind == LANG_SYMBOL_GLOBAL_IMPLICIT && scope_kind != LANG_SCOPE_CLASS) ||
      scope_kind == LANG_SCOPE_MODULE) {
    emit(c, global[access], name_index(u->names, s));
    return;
  }
  if (scope_kind == LANG_SCOPE_CLASS) {
    emit(c, name[access], name_index(u->names, s));
    return;
  }
  int index = find_ptr(u->varnames, s);
  if (index < 0)
    index = (int)name_index(u->varnames, s);
  emit(c, fast[access], (uint32_t)index);
}

/* ---- forward declarations --------------------------------------------------------------- */

static void compile_expr(Compiler *c, const LangExpr *e);
static void compile_stmt(Compiler *c, const LangStmt *s);
static void compile_body(Compiler *c, const LangStmtList *body);
static void compile_store(Compiler *c, const LangExpr *target);
static void compile_jump_if(Compiler *c, const LangExpr *e, int label, bool jump_if_true);
static LangValue assemble(Compiler *c, Unit *u);

/* ---- expressions ------------------------------------------------------------------------ */

static LangValue
constant_value(Compiler *c, const LangConstant *k)
{
  switch (k->kind) {
    case LANG_CONST_NONE:
      return LANG_NONE;
    case LANG_CONST_TRUE:
      return LANG_TRUE;
    case LANG_CONST_FALSE:
      return LANG_FALSE;
    case LANG_CONST_ELLIPSIS:
      return lang_obj(&lang_ellipsis_obj);
    case LANG_CONST_INT:
      return lang_int(k->i);
    case LANG_CONST_FLOAT:
      return lang_float(k->f);
    case LANG_CONST_STR:
      return lang_str_new(c->L, k->str, (int64_t)k->len);
    case LANG_CONST_BYTES:
      return lang_bytes_new(c->L, k->str, (int64_t)k->len);
    case LANG_CONST_BIGINT:
      return LANG_UNSET;
  }
  return LANG_UNSET;
}

/* A literal beyond 64 bits: Trellis's ints are 64-bit, so it raises OverflowError when run. */
static void
compile_bigint(Compiler *c, const LangConstant *k)
{
  emit(c, LANG_OP_PUSH_NULL, 0);
  emit_const(c, lang_obj(&lang_exc_OverflowError));
  LangValue msg = lang_str_printf(c->L, "int literal %s does not fit in 64 bits", k->str);
  emit(c, LANG_OP_LOAD_CONST, add_const_steal(c, msg));
  emit(c, LANG_OP_CALL, 1);
  emit(c, LANG_OP_RAISE_VARARGS, 1);
  emit_const(c, LANG_NONE); /* unreachable: keeps the stack count of an expression */
}

static void
compile_constant(Compiler *c, const LangConstant *k)
{
  if (k->kind == LANG_CONST_BIGINT) {
    compile_bigint(c, k);
    return;
  }
  LangValue v = constant_value(c, k);
  emit(c, LANG_OP_LOAD_CONST, add_const_steal(c, v));
}

static bool
has_starred(const LangExprList *list)
{
  for (int i = 0; i < list->len; i++)
    if (list->items[i]->kind == LANG_EXPR_STARRED)
      return true;
  return false;
}

/* A list or set built from elements with `*x` among them: an empty one, then one add or
 * extend per element. */
static void
compile_incremental(Compiler *c, const LangExprList *elts, LangOpcode build, LangOpcode add,
                    LangOpcode extend)
{
  emit(c, build, 0);
  for (int i = 0; i < elts->len; i++) {
    const LangExpr *e = elts->items[i];
    if (e->kind == LANG_EXPR_STARRED) {
      compile_expr(c, e->v.starred.value);
      emit(c, extend, 1);
    } else {
      compile_expr(c, e);
      emit(c, add, 1);
    }
  }
}

static void
compile_starred_list(Compiler *c, const LangExprList *elts)
{
  compile_incremental(c, elts, LANG_OP_BUILD_LIST, LANG_OP_LIST_APPEND, LANG_OP_LIST_EXTEND);
}

static void
compile_sequence(Compiler *c, const LangExpr *e)
{
  const LangExprList *elts = &e->v.seq.elts;
  if (has_starred(elts)) {
    compile_starred_list(c, elts);
    if (e->kind == LANG_EXPR_TUPLE)
      emit(c, LANG_OP_LIST_TO_TUPLE, 0);
    return;
  }
  for (int i = 0; i < elts->len; i++)
    compile_expr(c, elts->items[i]);
  emit(c, e->kind == LANG_EXPR_TUPLE ? LANG_OP_BUILD_TUPLE : LANG_OP_BUILD_LIST,
       (uint32_t)elts->len);
}

static void
compile_set(Compiler *c, const LangExpr *e)
{
  const LangExprList *elts = &e->v.set.elts;
  if (!has_starred(elts)) {
    for (int i = 0; i < elts->len; i++)
      compile_expr(c, elts->items[i]);
    emit(c, LANG_OP_BUILD_SET, (uint32_t)elts->len);
    return;
  }
  compile_incremental(c, elts, LANG_OP_BUILD_SET, LANG_OP_SET_ADD, LANG_OP_SET_UPDATE);
}

static void
compile_dict(Compiler *c, const LangExpr *e)
{
  const LangExprList *keys = &e->v.dict.keys, *values = &e->v.dict.values;
  bool unpacks = false;
  for (int i = 0; i < keys->len; i++)
    unpacks |= keys->items[i] == NULL;
  if (!unpacks) {
    for (int i = 0; i < keys->len; i++) {
      compile_expr(c, keys->items[i]);
      compile_expr(c, values->items[i]);
    }
    emit(c, LANG_OP_BUILD_MAP, (uint32_t)keys->len);
    return;
  }
  emit(c, LANG_OP_BUILD_MAP, 0);
  for (int i = 0; i < keys->len; i++) {
    if (keys->items[i]) {
      compile_expr(c, keys->items[i]);
      compile_expr(c, values->items[i]);
      emit(c, LANG_OP_MAP_ADD, 1);
    } else {
      compile_expr(c, values->items[i]);
      emit(c, LANG_OP_DICT_UPDATE, 1);
    }
  }
}

/* The runtime's arithmetic slot for each operator of the syntax. */
static const LangArith arith_of_binop[LANG_N_BINOPS] = {
    [LANG_BINOP_ADD] = LANG_ARITH_ADD,           [LANG_BINOP_SUB] = LANG_ARITH_SUB,
    [LANG_BINOP_MULT] = LANG_ARITH_MUL,          [LANG_BINOP_MATMULT] = LANG_ARITH_MATMUL,
    [LANG_BINOP_DIV] = LANG_ARITH_TRUEDIV,       [LANG_BINOP_MOD] = LANG_ARITH_MOD,
    [LANG_BINOP_POW] = LANG_ARITH_POW,           [LANG_BINOP_LSHIFT] = LANG_ARITH_LSHIFT,
    [LANG_BINOP_RSHIFT] = LANG_ARITH_RSHIFT,     [LANG_BINOP_BITOR] = LANG_ARITH_OR,
    [LANG_BINOP_BITXOR] = LANG_ARITH_XOR,        [LANG_BINOP_BITAND] = LANG_ARITH_AND,
    [LANG_BINOP_FLOORDIV] = LANG_ARITH_FLOORDIV,
};

static void
compile_compare_op(Compiler *c, LangCmpOp op)
{
  switch (op) {
    case LANG_CMPOP_EQ:
      emit(c, LANG_OP_COMPARE_OP, LANG_EQ);
      break;
    case LANG_CMPOP_NOTEQ:
      emit(c, LANG_OP_COMPARE_OP, LANG_NE);
      break;
    case LANG_CMPOP_LT:
      emit(c, LANG_OP_COMPARE_OP, LANG_LT);
      break;
    case LANG_CMPOP_LTE:
      emit(c, LANG_OP_COMPARE_OP, LANG_LE);
      break;
    case LANG_CMPOP_GT:
      emit(c, LANG_OP_COMPARE_OP, LANG_GT);
      break;
    case LANG_CMPOP_GTE:
      emit(c, LANG_OP_COMPARE_OP, LANG_GE);
      break;
    case LANG_CMPOP_IS:
      emit(c, LANG_OP_IS_OP, 0);
      break;
    case LANG_CMPOP_ISNOT:
      emit(c, LANG_OP_IS_OP, 1);
      break;
    case LANG_CMPOP_IN:
      emit(c, LANG_OP_CONTAINS_OP, 0);
      break;
    case LANG_CMPOP_NOTIN:
      emit(c, LANG_OP_CONTAINS_OP, 1);
      break;
    case LANG_N_CMPOPS:
      g_assert_not_reached();
  }
}

/* a < b < c: each middle operand is compared twice but evaluated once. */
static void
compile_compare(Compiler *c, const LangExpr *e)
{
  int n = e->v.compare.comparators.len;
  compile_expr(c, e->v.compare.left);
  if (n == 1) {
    compile_expr(c, e->v.compare.comparators.items[0]);
    compile_compare_op(c, e->v.compare.ops[0]);
    return;
  }
  int cleanup = new_label(c), end = new_label(c);
  for (int i = 0; i < n - 1; i++) {
    compile_expr(c, e->v.compare.comparators.items[i]);
    emit(c, LANG_OP_SWAP, 2);
    emit(c, LANG_OP_COPY, 2);
    compile_compare_op(c, e->v.compare.ops[i]);
    emit_jump(c, LANG_OP_JUMP_IF_FALSE_OR_POP, cleanup);
  }
  compile_expr(c, e->v.compare.comparators.items[n - 1]);
  compile_compare_op(c, e->v.compare.ops[n - 1]);
  emit_jump(c, LANG_OP_JUMP_FORWARD, end);
  place_label(c, cleanup);
  c->u->depth += 1; /* reached with [b, result] */
  emit(c, LANG_OP_SWAP, 2);
  emit(c, LANG_OP_POP_TOP, 0);
  place_label(c, end);
}

static bool records_blocks(Compiler *c);

/* An AutoGraph `and`/`or` chain: the chain's identity (True for `and`, False for `or`), then
 * each operand compiled by `operand` followed by AG_AND/AG_OR (as a test: a deciding Python
 * operand leaves its truth) or AG_AND_KEEP/AG_OR_KEEP (as a value: it leaves itself), the last
 * one by AG_BOOL_END. Symbolic tensor operands combine into tf.logical_and/or while tracing. */
static void
compile_ag_chain(Compiler *c, const LangExpr *e, bool as_value,
                 void (*operand)(Compiler *c, const LangExpr *e))
{
  bool is_or = e->v.bool_op.op == LANG_BOOLOP_OR;
  LangOpcode op = as_value ? (is_or ? LANG_OP_AG_OR_KEEP : LANG_OP_AG_AND_KEEP)
                           : (is_or ? LANG_OP_AG_OR : LANG_OP_AG_AND);
  int end = new_label(c);
  emit_const(c, lang_bool(!is_or));
  const LangExprList *values = &e->v.bool_op.values;
  for (int i = 0; i < values->len - 1; i++) {
    operand(c, values->items[i]);
    emit_jump(c, op, end);
  }
  operand(c, values->items[values->len - 1]);
  emit(c, LANG_OP_AG_BOOL_END, is_or);
  place_label(c, end);
}

/* `a and b` / `a or b`; in a function, an AutoGraph chain (compile_ag_chain). */
static void
compile_bool_op(Compiler *c, const LangExpr *e)
{
  if (records_blocks(c)) {
    compile_ag_chain(c, e, true, compile_expr);
    return;
  }
  int end = new_label(c);
  LangOpcode op = e->v.bool_op.op == LANG_BOOLOP_AND ? LANG_OP_JUMP_IF_FALSE_OR_POP
                                                     : LANG_OP_JUMP_IF_TRUE_OR_POP;
  const LangExprList *values = &e->v.bool_op.values;
  for (int i = 0; i < values->len - 1; i++) {
    compile_expr(c, values->items[i]);
    emit_jump(c, op, end);
  }
  compile_expr(c, values->items[values->len - 1]);
  place_label(c, end);
}

static void
compile_if_exp(Compiler *c, const LangExpr *e)
{
  int orelse = new_label(c), end = new_label(c);
  compile_jump_if(c, e->v.if_exp.test, orelse, false);
  compile_expr(c, e->v.if_exp.body);
  emit_jump(c, LANG_OP_JUMP_FORWARD, end);
  c->u->depth -= 1;
  place_label(c, orelse);
  compile_expr(c, e->v.if_exp.orelse);
  place_label(c, end);
}

/* Jumps to `label` when the truth of `e` equals `jump_if_true`, without materialising the
 * intermediate bools of `not`, `and`, `or` and comparisons. */
static void
compile_jump_if(Compiler *c, const LangExpr *e, int label, bool jump_if_true)
{
  if (e->kind == LANG_EXPR_UNARY_OP && e->v.unary_op.op == LANG_UNARYOP_NOT) {
    compile_jump_if(c, e->v.unary_op.operand, label, !jump_if_true);
    return;
  }
  if (e->kind == LANG_EXPR_BOOL_OP) {
    bool is_and = e->v.bool_op.op == LANG_BOOLOP_AND;
    const LangExprList *values = &e->v.bool_op.values;
    if (is_and != jump_if_true) {
      /* and + jump-if-false, or + jump-if-true: any operand decides. */
      for (int i = 0; i < values->len; i++)
        compile_jump_if(c, values->items[i], label, jump_if_true);
      return;
    }
    int skip = new_label(c);
    for (int i = 0; i < values->len - 1; i++)
      compile_jump_if(c, values->items[i], skip, !jump_if_true);
    compile_jump_if(c, values->items[values->len - 1], label, jump_if_true);
    place_label(c, skip);
    return;
  }
  compile_expr(c, e);
  emit_jump(c, jump_if_true ? LANG_OP_POP_JUMP_IF_TRUE : LANG_OP_POP_JUMP_IF_FALSE, label);
}

static void
compile_subscript_index(Compiler *c, const LangExpr *slice)
{
  if (slice->kind == LANG_EXPR_SLICE) {
    const LangExpr *parts[3] = {slice->v.slice.lower, slice->v.slice.upper, slice->v.slice.step};
    int n = parts[2] ? 3 : 2;
    for (int i = 0; i < n; i++) {
      if (parts[i])
        compile_expr(c, parts[i]);
      else
        emit_const(c, LANG_NONE);
    }
    emit(c, LANG_OP_BUILD_SLICE, (uint32_t)n);
    return;
  }
  compile_expr(c, slice);
}

/* Keyword names of a call as a constant tuple. */
static uint32_t
kwnames_const(Compiler *c, const LangKeywordList *kws)
{
  LangValue t = lang_tuple_new(c->L, kws->len);
  for (int i = 0; i < kws->len; i++)
    lang_tuple_set(t, i, lang_incref(lang_obj(intern(kws->items[i]->arg))));
  return add_const_steal(c, t);
}

static bool
call_needs_ex(const LangExpr *e)
{
  if (has_starred(&e->v.call.args))
    return true;
  for (int i = 0; i < e->v.call.keywords.len; i++)
    if (!e->v.call.keywords.items[i]->arg)
      return true;
  return false;
}

/* The arguments of f(*a, **k) as a tuple and a dict. */
static void
compile_call_ex_args(Compiler *c, const LangExpr *e)
{
  compile_starred_list(c, &e->v.call.args);
  emit(c, LANG_OP_LIST_TO_TUPLE, 0);
  const LangKeywordList *kws = &e->v.call.keywords;
  if (kws->len == 0)
    return;
  emit(c, LANG_OP_BUILD_MAP, 0);
  for (int i = 0; i < kws->len; i++) {
    const LangKeyword *kw = kws->items[i];
    if (kw->arg) {
      emit_const(c, lang_obj(intern(kw->arg)));
      compile_expr(c, kw->value);
      emit(c, LANG_OP_BUILD_MAP, 1);
      emit(c, LANG_OP_DICT_MERGE, 1);
    } else {
      compile_expr(c, kw->value);
      emit(c, LANG_OP_DICT_MERGE, 1);
    }
  }
}

/* super() with no arguments is super(__class__, <first parameter>), both taken from the
 * method's frame: the class through the __class__ cell the class body fills. */
static bool
compile_zero_arg_super(Compiler *c, const LangExpr *e)
{
  const LangExpr *func = e->v.call.func;
  Unit *u = c->u;
  if (func->kind != LANG_EXPR_NAME || strcmp(func->v.name.id, "super") != 0 ||
      e->v.call.args.len != 0 || e->v.call.keywords.len != 0 || u->argcount == 0 ||
      find_ptr(u->cellnames, intern("__class__")) < 0)
    return false;
  emit(c, LANG_OP_PUSH_NULL, 0);
  compile_expr(c, func);
  emit_name(c, "__class__", ACCESS_LOAD);
  emit_name(c, lang_str_data(g_ptr_array_index(u->varnames, 0)), ACCESS_LOAD);
  emit(c, LANG_OP_CALL, 2);
  return true;
}

static void
compile_call(Compiler *c, const LangExpr *e)
{
  const LangExpr *func = e->v.call.func;
  bool ex = call_needs_ex(e);
  if (compile_zero_arg_super(c, e))
    return;
  if (func->kind == LANG_EXPR_ATTRIBUTE && !ex) {
    compile_expr(c, func->v.attribute.value);
    int saved = c->u->line;
    c->u->line = func->loc.end_line;
    emit(c, LANG_OP_LOAD_METHOD, add_name(c, func->v.attribute.attr));
    c->u->line = saved;
  } else {
    emit(c, LANG_OP_PUSH_NULL, 0);
    compile_expr(c, func);
  }
  if (ex) {
    compile_call_ex_args(c, e);
    emit(c, LANG_OP_CALL_FUNCTION_EX, e->v.call.keywords.len > 0 ? 1 : 0);
    return;
  }
  for (int i = 0; i < e->v.call.args.len; i++)
    compile_expr(c, e->v.call.args.items[i]);
  const LangKeywordList *kws = &e->v.call.keywords;
  for (int i = 0; i < kws->len; i++)
    compile_expr(c, kws->items[i]->value);
  if (kws->len > 0)
    emit(c, LANG_OP_KW_NAMES, kwnames_const(c, kws));
  emit(c, LANG_OP_CALL, (uint32_t)(e->v.call.args.len + kws->len));
}

static void
compile_joined_str(Compiler *c, const LangExpr *e)
{
  const LangExprList *values = &e->v.joined_str.values;
  if (values->len == 0) {
    emit(c, LANG_OP_LOAD_CONST, add_const_steal(c, lang_str_cstr(c->L, "")));
    return;
  }
  for (int i = 0; i < values->len; i++)
    compile_expr(c, values->items[i]);
  if (values->len > 1 || values->items[0]->kind != LANG_EXPR_FORMATTED_VALUE)
    emit(c, LANG_OP_BUILD_STRING, (uint32_t)values->len);
}

static void
compile_formatted_value(Compiler *c, const LangExpr *e)
{
  compile_expr(c, e->v.formatted_value.value);
  uint32_t flags = 0;
  switch (e->v.formatted_value.conversion) {
    case 's':
      flags = 1;
      break;
    case 'r':
      flags = 2;
      break;
    case 'a':
      flags = 3;
      break;
    default:
      break;
  }
  if (e->v.formatted_value.format_spec) {
    compile_expr(c, e->v.formatted_value.format_spec);
    flags |= 4;
  }
  emit(c, LANG_OP_FORMAT_VALUE, flags);
}

/* ---- functions, lambdas, comprehensions, classes ----------------------------------------- */

static char *
child_qualname(Compiler *c, const char *name)
{
  Unit *u = c->u;
  LangScopeKind kind = lang_scope_kind(u->scope);
  if (kind == LANG_SCOPE_MODULE)
    return g_strdup(name);
  if (kind == LANG_SCOPE_CLASS)
    return g_strdup_printf("%s.%s", lang_str_data(u->qualname), name);
  return g_strdup_printf("%s.<locals>.%s", lang_str_data(u->qualname), name);
}

/* Cells and free variables of the new unit, from its scope. */
static void
unit_setup_names(Unit *u)
{
  const LangNameSet *cells = lang_scope_cellvars(u->scope);
  const LangNameSet *frees = lang_scope_freevars(u->scope);
  for (int i = 0; i < cells->len; i++)
    g_ptr_array_add(u->cellnames, intern(cells->names[i]));
  /* A class body whose methods use super() or __class__ makes the __class__ cell. */
  if (u->scope->kind == LANG_SCOPE_CLASS && u->scope->needs_class_closure)
    name_index(u->cellnames, intern("__class__"));
  u->n_cells = (int)u->cellnames->len;
  for (int i = 0; i < frees->len; i++)
    g_ptr_array_add(u->cellnames, intern(frees->names[i]));
}

static void
add_params(Unit *u, const LangArgList *list)
{
  for (int i = 0; i < list->len; i++)
    name_index(u->varnames, intern(list->items[i]->name));
}

/* Parameters first, in CPython's order: positional, keyword-only, *args, **kwargs. */
static void
unit_setup_params(Unit *u, const LangArguments *args)
{
  add_params(u, &args->posonly);
  add_params(u, &args->args);
  add_params(u, &args->kwonly);
  u->posonlyargcount = args->posonly.len;
  u->argcount = args->posonly.len + args->args.len;
  u->kwonlyargcount = args->kwonly.len;
  if (args->vararg) {
    name_index(u->varnames, intern(args->vararg->name));
    u->flags |= LANG_CODE_VARARGS;
  }
  if (args->kwarg) {
    name_index(u->varnames, intern(args->kwarg->name));
    u->flags |= LANG_CODE_VARKEYWORDS;
  }
}

/* The text of an expression in the source, for signatures ("b=2"). */
static char *
source_text(Compiler *c, const LangExpr *e)
{
  const char *src = c->unit->source;
  if (!src || e->loc.line != e->loc.end_line)
    return g_strdup("...");
  const char *p = src;
  for (int l = 1; l < e->loc.line && p; l++) {
    p = strchr(p, '\n');
    if (p)
      p++;
  }
  if (!p)
    return g_strdup("...");
  return g_strndup(p + e->loc.col, (gsize)(e->loc.end_col - e->loc.col));
}

/* "(a, b=2, *args, c, **kw)" as inspect.signature prints it. */
static LangObject *
signature_of(Compiler *c, const LangArguments *args)
{
  GString *s = g_string_new("(");
  int n_pos = args->posonly.len + args->args.len;
  int first_default = n_pos - args->defaults.len;
  bool first = true;
#define SEP()                                                                                      \
  do {                                                                                             \
    if (!first)                                                                                    \
      g_string_append(s, ", ");                                                                    \
    first = false;                                                                                 \
  } while (0)
  for (int i = 0; i < n_pos; i++) {
    const LangArg *a =
        i < args->posonly.len ? args->posonly.items[i] : args->args.items[i - args->posonly.len];
    SEP();
    g_string_append(s, a->name);
    if (i >= first_default) {
      g_autofree char *d = source_text(c, args->defaults.items[i - first_default]);
      g_string_append_printf(s, "=%s", d);
    }
    if (i == args->posonly.len - 1) {
      SEP();
      g_string_append(s, "/");
    }
  }
  if (args->vararg) {
    SEP();
    g_string_append_printf(s, "*%s", args->vararg->name);
  } else if (args->kwonly.len > 0) {
    SEP();
    g_string_append(s, "*");
  }
  for (int i = 0; i < args->kwonly.len; i++) {
    SEP();
    g_string_append(s, args->kwonly.items[i]->name);
    if (args->kw_defaults.items[i]) {
      g_autofree char *d = source_text(c, args->kw_defaults.items[i]);
      g_string_append_printf(s, "=%s", d);
    }
  }
  if (args->kwarg) {
    SEP();
    g_string_append_printf(s, "**%s", args->kwarg->name);
  }
#undef SEP
  g_string_append_c(s, ')');
  return lang_str_from_gstring(c->L, s).o;
}

/* Pushes the closure tuple for `child` (cells of this unit it captures); false if none. */
static bool
compile_closure(Compiler *c, Unit *child)
{
  int n_free = (int)child->cellnames->len - child->n_cells;
  if (n_free == 0)
    return false;
  for (int i = 0; i < n_free; i++) {
    LangObject *name = g_ptr_array_index(child->cellnames, child->n_cells + i);
    int index = find_ptr(c->u->cellnames, name);
    g_assert(index >= 0);
    emit(c, LANG_OP_LOAD_CLOSURE, (uint32_t)index);
  }
  emit(c, LANG_OP_BUILD_TUPLE, (uint32_t)n_free);
  return true;
}

/* Defaults are evaluated in the enclosing scope, before the function is made. */
static uint32_t
compile_defaults(Compiler *c, const LangArguments *args)
{
  uint32_t flags = 0;
  if (args->defaults.len > 0) {
    for (int i = 0; i < args->defaults.len; i++)
      compile_expr(c, args->defaults.items[i]);
    emit(c, LANG_OP_BUILD_TUPLE, (uint32_t)args->defaults.len);
    flags |= 1;
  }
  int n_kw = 0;
  for (int i = 0; i < args->kwonly.len; i++) {
    if (!args->kw_defaults.items[i])
      continue;
    emit_const(c, lang_obj(intern(args->kwonly.items[i]->name)));
    compile_expr(c, args->kw_defaults.items[i]);
    n_kw++;
  }
  if (n_kw > 0) {
    emit(c, LANG_OP_BUILD_MAP, (uint32_t)n_kw);
    flags |= 2;
  }
  return flags;
}

/* Finishes the child unit and emits MAKE_FUNCTION for it in the current unit. */
static void
make_function(Compiler *c, Unit *child, uint32_t flags)
{
  LangValue code = assemble(c, child);
  if (compile_closure(c, child))
    flags |= 4;
  unit_free(child);
  if (lang_is_exc(code)) {
    emit_const(c, LANG_NONE);
    return;
  }
  emit(c, LANG_OP_LOAD_CONST, add_const_steal(c, code));
  emit(c, LANG_OP_MAKE_FUNCTION, flags);
}

static Unit *
enter_unit(Compiler *c, LangScope *scope, const char *name, int line)
{
  g_autofree char *qualname = child_qualname(c, name);
  Unit *u = unit_new(c, scope, name, qualname, line);
  c->u = u;
  unit_setup_names(u);
  if (lang_scope_is_generator(scope))
    u->flags |= LANG_CODE_GENERATOR;
  return u;
}

static Unit *
leave_unit(Compiler *c)
{
  Unit *u = c->u;
  c->u = u->parent;
  return u;
}

static const LangExpr *
docstring_of(const LangStmtList *body)
{
  if (body->len == 0 || body->items[0]->kind != LANG_STMT_EXPR)
    return NULL;
  const LangExpr *e = body->items[0]->v.expr.value;
  if (e->kind != LANG_EXPR_CONSTANT || e->v.constant.kind != LANG_CONST_STR)
    return NULL;
  return e;
}

static void
apply_decorators_prologue(Compiler *c, const LangExprList *decorators)
{
  for (int i = 0; i < decorators->len; i++) {
    emit(c, LANG_OP_PUSH_NULL, 0);
    compile_expr(c, decorators->items[i]);
  }
}

static void
apply_decorators_epilogue(Compiler *c, const LangExprList *decorators)
{
  for (int i = decorators->len - 1; i >= 0; i--) {
    c->u->line = decorators->items[i]->loc.line;
    emit(c, LANG_OP_CALL, 1);
  }
}

static void
compile_function_def(Compiler *c, const LangStmt *s)
{
  const LangExprList *decorators = &s->v.function_def.decorator_list;
  apply_decorators_prologue(c, decorators);
  const LangArguments *args = s->v.function_def.args;
  uint32_t flags = compile_defaults(c, args);

  Unit *u = enter_unit(c, s->v.function_def.scope, s->v.function_def.name, s->loc.line);
  unit_setup_params(u, args);
  u->signature = signature_of(c, args);
  const LangExpr *doc = docstring_of(&s->v.function_def.body);
  if (doc)
    u->doc = lang_str_new(c->L, doc->v.constant.str, (int64_t)doc->v.constant.len).o;
  compile_body(c, &s->v.function_def.body);
  emit_const(c, LANG_NONE);
  emit(c, LANG_OP_RETURN_VALUE, 0);
  leave_unit(c);

  c->u->line = s->loc.line;
  make_function(c, u, flags);
  apply_decorators_epilogue(c, decorators);
  c->u->line = s->loc.line;
  emit_name(c, s->v.function_def.name, ACCESS_STORE);
}

static void
compile_lambda(Compiler *c, const LangExpr *e)
{
  const LangArguments *args = e->v.lambda.args;
  uint32_t flags = compile_defaults(c, args);
  Unit *u = enter_unit(c, e->v.lambda.scope, "<lambda>", e->loc.line);
  unit_setup_params(u, args);
  u->signature = signature_of(c, args);
  compile_expr(c, e->v.lambda.body);
  if (!(u->flags & LANG_CODE_GENERATOR))
    emit(c, LANG_OP_RETURN_VALUE, 0);
  else {
    emit(c, LANG_OP_POP_TOP, 0);
    emit_const(c, LANG_NONE);
    emit(c, LANG_OP_RETURN_VALUE, 0);
  }
  leave_unit(c);
  make_function(c, u, flags);
}

static void compile_comprehension_generators(Compiler *c, const LangExpr *e, int index);

/* The element step of a comprehension: append, add, or yield. */
static void
compile_comprehension_element(Compiler *c, const LangExpr *e)
{
  int depth = c->u->comp_depth + 1;
  switch (e->kind) {
    case LANG_EXPR_LIST_COMP:
      compile_expr(c, e->v.comp.elt);
      emit(c, LANG_OP_LIST_APPEND, (uint32_t)depth);
      break;
    case LANG_EXPR_SET_COMP:
      compile_expr(c, e->v.comp.elt);
      emit(c, LANG_OP_SET_ADD, (uint32_t)depth);
      break;
    case LANG_EXPR_DICT_COMP:
      compile_expr(c, e->v.comp.elt);
      compile_expr(c, e->v.comp.value);
      emit(c, LANG_OP_MAP_ADD, (uint32_t)depth);
      break;
    default: /* generator expression */
      compile_expr(c, e->v.comp.elt);
      emit(c, LANG_OP_YIELD_VALUE, 0);
      emit(c, LANG_OP_POP_TOP, 0);
      break;
  }
}

static void
compile_comprehension_generators(Compiler *c, const LangExpr *e, int index)
{
  const LangComprehension *gen = e->v.comp.generators.items[index];
  int start = new_label(c), end = new_label(c);
  if (index == 0)
    emit(c, LANG_OP_LOAD_FAST, 0); /* ".0": the outermost iterator, passed in */
  else {
    compile_expr(c, gen->iter);
    emit(c, LANG_OP_GET_ITER, 0);
  }
  c->u->comp_depth++;
  place_label(c, start);
  emit_jump(c, LANG_OP_FOR_ITER, end);
  compile_store(c, gen->target);
  int next = start;
  for (int i = 0; i < gen->ifs.len; i++)
    compile_jump_if(c, gen->ifs.items[i], next, false);
  if (index + 1 < e->v.comp.generators.len)
    compile_comprehension_generators(c, e, index + 1);
  else
    compile_comprehension_element(c, e);
  emit_jump(c, LANG_OP_JUMP_BACKWARD, start);
  place_label(c, end);
  c->u->depth -= 1; /* FOR_ITER's exit pops the iterator */
  c->u->comp_depth--;
}

static void
compile_comprehension(Compiler *c, const LangExpr *e)
{
  static const char *const names[] = {
      [LANG_EXPR_LIST_COMP] = "<listcomp>",
      [LANG_EXPR_SET_COMP] = "<setcomp>",
      [LANG_EXPR_DICT_COMP] = "<dictcomp>",
      [LANG_EXPR_GENERATOR_EXP] = "<genexpr>",
  };
  const LangComprehension *outer = e->v.comp.generators.items[0];
  Unit *u = enter_unit(c, e->v.comp.scope, names[e->kind], e->loc.line);
  u->flags |= LANG_CODE_COMPREHENSION;
  name_index(u->varnames, intern(".0"));
  u->argcount = 1;
  if (e->kind == LANG_EXPR_LIST_COMP)
    emit(c, LANG_OP_BUILD_LIST, 0);
  else if (e->kind == LANG_EXPR_SET_COMP)
    emit(c, LANG_OP_BUILD_SET, 0);
  else if (e->kind == LANG_EXPR_DICT_COMP)
    emit(c, LANG_OP_BUILD_MAP, 0);
  compile_comprehension_generators(c, e, 0);
  if (e->kind == LANG_EXPR_GENERATOR_EXP)
    emit_const(c, LANG_NONE);
  emit(c, LANG_OP_RETURN_VALUE, 0);
  leave_unit(c);

  emit(c, LANG_OP_PUSH_NULL, 0);
  make_function(c, u, 0);
  compile_expr(c, outer->iter);
  emit(c, LANG_OP_GET_ITER, 0);
  emit(c, LANG_OP_CALL, 1);
}

static void
compile_class_def(Compiler *c, const LangStmt *s)
{
  const LangExprList *decorators = &s->v.class_def.decorator_list;
  apply_decorators_prologue(c, decorators);
  if (s->v.class_def.keywords.len > 0) {
    compile_error(c, &s->loc, "class keyword arguments are not supported");
    return;
  }
  emit(c, LANG_OP_PUSH_NULL, 0);
  emit(c, LANG_OP_LOAD_BUILD_CLASS, 0);

  Unit *u = enter_unit(c, s->v.class_def.scope, s->v.class_def.name, s->loc.line);
  u->flags |= LANG_CODE_CLASS_BODY;
  const LangExpr *doc = docstring_of(&s->v.class_def.body);
  if (doc) {
    compile_expr(c, doc);
    emit(c, LANG_OP_STORE_NAME, add_name(c, "__doc__"));
  }
  compile_body(c, &s->v.class_def.body);
  int class_cell = find_ptr(u->cellnames, intern("__class__"));
  if (class_cell >= 0 && class_cell < u->n_cells)
    emit(c, LANG_OP_LOAD_CLOSURE, (uint32_t)class_cell);
  else
    emit_const(c, LANG_NONE);
  emit(c, LANG_OP_RETURN_VALUE, 0);
  leave_unit(c);

  c->u->line = s->loc.line;
  make_function(c, u, 0);
  emit(c, LANG_OP_LOAD_CONST, add_const_steal(c, lang_str_cstr(c->L, s->v.class_def.name)));
  for (int i = 0; i < s->v.class_def.bases.len; i++)
    compile_expr(c, s->v.class_def.bases.items[i]);
  emit(c, LANG_OP_CALL, (uint32_t)(2 + s->v.class_def.bases.len));
  apply_decorators_epilogue(c, decorators);
  c->u->line = s->loc.line;
  emit_name(c, s->v.class_def.name, ACCESS_STORE);
}

static void
compile_yield_from(Compiler *c, const LangExpr *e)
{
  compile_expr(c, e->v.yield.value);
  emit(c, LANG_OP_GET_YIELD_FROM_ITER, 0);
  emit_const(c, LANG_NONE);
  int loop = new_label(c), exit = new_label(c);
  place_label(c, loop);
  emit_jump(c, LANG_OP_SEND, exit);
  emit(c, LANG_OP_YIELD_VALUE, 0);
  emit_jump(c, LANG_OP_JUMP_BACKWARD, loop);
  place_label(c, exit);
  c->u->depth -= 1; /* SEND's exit leaves only the value */
}

static void
compile_expr(Compiler *c, const LangExpr *e)
{
  int saved_line = c->u->line;
  c->u->line = e->loc.line;
  switch (e->kind) {
    case LANG_EXPR_BOOL_OP:
      compile_bool_op(c, e);
      break;
    case LANG_EXPR_NAMED_EXPR:
      compile_expr(c, e->v.named_expr.value);
      emit(c, LANG_OP_COPY, 1);
      compile_store(c, e->v.named_expr.target);
      break;
    case LANG_EXPR_BIN_OP:
      compile_expr(c, e->v.bin_op.left);
      compile_expr(c, e->v.bin_op.right);
      emit(c, LANG_OP_BINARY_OP, arith_of_binop[e->v.bin_op.op]);
      break;
    case LANG_EXPR_UNARY_OP:
      compile_expr(c, e->v.unary_op.operand);
      switch (e->v.unary_op.op) {
        case LANG_UNARYOP_NOT:
          emit(c, LANG_OP_UNARY_NOT, 0);
          break;
        case LANG_UNARYOP_USUB:
          emit(c, LANG_OP_UNARY_OP, LANG_UNOP_NEG);
          break;
        case LANG_UNARYOP_UADD:
          emit(c, LANG_OP_UNARY_OP, LANG_UNOP_POS);
          break;
        case LANG_UNARYOP_INVERT:
          emit(c, LANG_OP_UNARY_OP, LANG_UNOP_INVERT);
          break;
        case LANG_N_UNARYOPS:
          g_assert_not_reached();
      }
      break;
    case LANG_EXPR_LAMBDA:
      compile_lambda(c, e);
      break;
    case LANG_EXPR_IF_EXP:
      compile_if_exp(c, e);
      break;
    case LANG_EXPR_DICT:
      compile_dict(c, e);
      break;
    case LANG_EXPR_SET:
      compile_set(c, e);
      break;
    case LANG_EXPR_LIST_COMP:
    case LANG_EXPR_SET_COMP:
    case LANG_EXPR_DICT_COMP:
    case LANG_EXPR_GENERATOR_EXP:
      compile_comprehension(c, e);
      break;
    case LANG_EXPR_YIELD:
      if (e->v.yield.value)
        compile_expr(c, e->v.yield.value);
      else
        emit_const(c, LANG_NONE);
      emit(c, LANG_OP_YIELD_VALUE, 0);
      break;
    case LANG_EXPR_YIELD_FROM:
      compile_yield_from(c, e);
      break;
    case LANG_EXPR_COMPARE:
      compile_compare(c, e);
      break;
    case LANG_EXPR_CALL:
      compile_call(c, e);
      break;
    case LANG_EXPR_FORMATTED_VALUE:
      compile_formatted_value(c, e);
      break;
    case LANG_EXPR_JOINED_STR:
      compile_joined_str(c, e);
      break;
    case LANG_EXPR_CONSTANT:
      compile_constant(c, &e->v.constant);
      break;
    case LANG_EXPR_ATTRIBUTE:
      compile_expr(c, e->v.attribute.value);
      c->u->line = e->loc.end_line;
      emit(c, LANG_OP_LOAD_ATTR, add_name(c, e->v.attribute.attr));
      break;
    case LANG_EXPR_SUBSCRIPT:
      compile_expr(c, e->v.subscript.value);
      compile_subscript_index(c, e->v.subscript.slice);
      emit(c, LANG_OP_BINARY_SUBSCR, 0);
      break;
    case LANG_EXPR_STARRED:
      compile_error(c, &e->loc, "can't use starred expression here");
      emit_const(c, LANG_NONE);
      break;
    case LANG_EXPR_NAME:
      emit_name(c, e->v.name.id, ACCESS_LOAD);
      break;
    case LANG_EXPR_LIST:
    case LANG_EXPR_TUPLE:
      compile_sequence(c, e);
      break;
    case LANG_EXPR_SLICE:
      compile_subscript_index(c, e);
      break;
    case LANG_N_EXPRS:
      g_assert_not_reached();
  }
  c->u->line = saved_line;
}

/* ---- assignment targets ----------------------------------------------------------------- */

static void
compile_unpack(Compiler *c, const LangExpr *target)
{
  const LangExprList *elts = &target->v.seq.elts;
  int star = -1;
  for (int i = 0; i < elts->len; i++) {
    if (elts->items[i]->kind != LANG_EXPR_STARRED)
      continue;
    if (star >= 0) {
      compile_error(c, &elts->items[i]->loc, "multiple starred expressions in assignment");
      return;
    }
    star = i;
  }
  if (star < 0)
    emit(c, LANG_OP_UNPACK_SEQUENCE, (uint32_t)elts->len);
  else
    emit(c, LANG_OP_UNPACK_EX, (uint32_t)star | ((uint32_t)(elts->len - star - 1) << 12));
  for (int i = 0; i < elts->len; i++) {
    const LangExpr *t = elts->items[i];
    compile_store(c, t->kind == LANG_EXPR_STARRED ? t->v.starred.value : t);
  }
}

/* Stores TOS into `target`. */
static void
compile_store(Compiler *c, const LangExpr *target)
{
  int saved_line = c->u->line;
  c->u->line = target->loc.line;
  switch (target->kind) {
    case LANG_EXPR_NAME:
      emit_name(c, target->v.name.id, ACCESS_STORE);
      break;
    case LANG_EXPR_ATTRIBUTE:
      compile_expr(c, target->v.attribute.value);
      emit(c, LANG_OP_STORE_ATTR, add_name(c, target->v.attribute.attr));
      break;
    case LANG_EXPR_SUBSCRIPT:
      compile_expr(c, target->v.subscript.value);
      compile_subscript_index(c, target->v.subscript.slice);
      emit(c, LANG_OP_STORE_SUBSCR, 0);
      break;
    case LANG_EXPR_TUPLE:
    case LANG_EXPR_LIST:
      compile_unpack(c, target);
      break;
    case LANG_EXPR_STARRED:
      compile_error(c, &target->loc, "starred assignment target must be in a list or tuple");
      break;
    default:
      compile_error(c, &target->loc, "cannot assign to expression");
      break;
  }
  c->u->line = saved_line;
}

static void
compile_delete(Compiler *c, const LangExpr *target)
{
  switch (target->kind) {
    case LANG_EXPR_NAME:
      emit_name(c, target->v.name.id, ACCESS_DELETE);
      break;
    case LANG_EXPR_ATTRIBUTE:
      compile_expr(c, target->v.attribute.value);
      emit(c, LANG_OP_DELETE_ATTR, add_name(c, target->v.attribute.attr));
      break;
    case LANG_EXPR_SUBSCRIPT:
      compile_expr(c, target->v.subscript.value);
      compile_subscript_index(c, target->v.subscript.slice);
      emit(c, LANG_OP_DELETE_SUBSCR, 0);
      break;
    case LANG_EXPR_TUPLE:
    case LANG_EXPR_LIST:
      for (int i = 0; i < target->v.seq.elts.len; i++)
        compile_delete(c, target->v.seq.elts.items[i]);
      break;
    default:
      compile_error(c, &target->loc, "cannot delete expression");
      break;
  }
}

static void
compile_aug_assign(Compiler *c, const LangStmt *s)
{
  const LangExpr *t = s->v.aug_assign.target;
  uint32_t op = arith_of_binop[s->v.aug_assign.op];
  switch (t->kind) {
    case LANG_EXPR_NAME:
      emit_name(c, t->v.name.id, ACCESS_LOAD);
      compile_expr(c, s->v.aug_assign.value);
      emit(c, LANG_OP_INPLACE_OP, op);
      emit_name(c, t->v.name.id, ACCESS_STORE);
      break;
    case LANG_EXPR_ATTRIBUTE: {
      uint32_t name = add_name(c, t->v.attribute.attr);
      compile_expr(c, t->v.attribute.value);
      emit(c, LANG_OP_COPY, 1);
      emit(c, LANG_OP_LOAD_ATTR, name);
      compile_expr(c, s->v.aug_assign.value);
      emit(c, LANG_OP_INPLACE_OP, op);
      emit(c, LANG_OP_SWAP, 2);
      emit(c, LANG_OP_STORE_ATTR, name);
      break;
    }
    case LANG_EXPR_SUBSCRIPT:
      compile_expr(c, t->v.subscript.value);
      compile_subscript_index(c, t->v.subscript.slice);
      emit(c, LANG_OP_COPY, 2);
      emit(c, LANG_OP_COPY, 2);
      emit(c, LANG_OP_BINARY_SUBSCR, 0);
      compile_expr(c, s->v.aug_assign.value);
      emit(c, LANG_OP_INPLACE_OP, op);
      emit(c, LANG_OP_SWAP, 3);
      emit(c, LANG_OP_SWAP, 2);
      emit(c, LANG_OP_STORE_SUBSCR, 0);
      break;
    default:
      compile_error(c, &t->loc, "'expression' is an illegal expression for augmented assignment");
      break;
  }
}

/* ---- blocks that need cleanup ----------------------------------------------------------- */

static FBlock *
push_fblock(Compiler *c, FBlockKind kind)
{
  FBlock b = {.kind = kind,
              .start = -1,
              .exit = -1,
              .n_handlers = (int)c->u->handlers->len,
              .blk = -1,
              .brk_slot = -1,
              .cont_slot = -1,
              .ret_slot = -1,
              .returned_slot = -1};
  g_array_append_val(c->u->fblocks, b);
  return &g_array_index(c->u->fblocks, FBlock, c->u->fblocks->len - 1);
}

static void
pop_fblock(Compiler *c)
{
  g_array_set_size(c->u->fblocks, c->u->fblocks->len - 1);
}

/* Calls the __exit__ on the stack (under `preserved` values) with three Nones. */
static void
emit_with_exit_call(Compiler *c, bool preserve_tos)
{
  if (preserve_tos)
    emit(c, LANG_OP_SWAP, 2);
  emit(c, LANG_OP_PUSH_NULL, 0);
  emit(c, LANG_OP_SWAP, 2);
  emit_const(c, LANG_NONE);
  emit_const(c, LANG_NONE);
  emit_const(c, LANG_NONE);
  emit(c, LANG_OP_CALL, 3);
  emit(c, LANG_OP_POP_TOP, 0);
}

static void
emit_handler_name_clear(Compiler *c, const char *name)
{
  if (!name)
    return;
  emit_const(c, LANG_NONE);
  emit_name(c, name, ACCESS_STORE);
  emit_name(c, name, ACCESS_DELETE);
}

/* Emits what leaving `b` early needs; TOS is kept on top when `preserve_tos`. */
static void
unwind_fblock(Compiler *c, const FBlock *b, bool preserve_tos)
{
  switch (b->kind) {
    case FB_WHILE:
    case FB_TRY_EXCEPT:
      break;
    case FB_FOR:
      if (preserve_tos)
        emit(c, LANG_OP_SWAP, 2);
      emit(c, LANG_OP_POP_TOP, 0);
      break;
    case FB_POP_VALUE:
      if (preserve_tos)
        emit(c, LANG_OP_SWAP, 2);
      emit(c, LANG_OP_POP_TOP, 0);
      break;
    case FB_FINALLY_TRY:
      if (preserve_tos)
        push_fblock(c, FB_POP_VALUE);
      compile_body(c, b->finalbody);
      if (preserve_tos)
        pop_fblock(c);
      break;
    case FB_FINALLY_END:
      if (preserve_tos)
        emit(c, LANG_OP_SWAP, 2);
      emit(c, LANG_OP_POP_TOP, 0); /* the exception */
      if (preserve_tos)
        emit(c, LANG_OP_SWAP, 2);
      emit(c, LANG_OP_POP_EXCEPT, 0);
      break;
    case FB_WITH:
      emit_with_exit_call(c, preserve_tos);
      break;
    case FB_HANDLER:
      if (preserve_tos)
        emit(c, LANG_OP_SWAP, 2);
      emit(c, LANG_OP_POP_EXCEPT, 0);
      emit_handler_name_clear(c, b->name);
      break;
  }
}

/* Unwinds the blocks inside the innermost loop (for break/continue, `loop_out` receives it)
 * or all of them (return). Instructions emitted for a block are covered by the handlers
 * outside that block, as they run after leaving it. */
static const FBlock *
unwind_fblocks(Compiler *c, bool to_loop, bool preserve_tos, bool pop_loop)
{
  Unit *u = c->u;
  guint saved_handlers = u->handlers->len;
  g_autoptr(GArray) saved = g_array_new(FALSE, FALSE, sizeof(Handler));
  g_array_append_vals(saved, u->handlers->data, u->handlers->len);
  const FBlock *loop = NULL;
  for (int i = (int)u->fblocks->len - 1; i >= 0; i--) {
    FBlock b = g_array_index(u->fblocks, FBlock, i);
    if (to_loop && (b.kind == FB_WHILE || b.kind == FB_FOR)) {
      loop = &g_array_index(u->fblocks, FBlock, i);
      if (pop_loop) {
        g_array_set_size(u->handlers, (guint)b.n_handlers);
        unwind_fblock(c, &b, preserve_tos);
      }
      break;
    }
    g_array_set_size(u->handlers, (guint)b.n_handlers);
    /* A finally body runs with the blocks outside it active, so it can itself break out. */
    guint saved_fblocks = u->fblocks->len;
    g_array_set_size(u->fblocks, (guint)i);
    unwind_fblock(c, &b, preserve_tos);
    g_array_set_size(u->fblocks, saved_fblocks);
    g_array_index(u->fblocks, FBlock, i) = b;
  }
  g_array_set_size(u->handlers, 0);
  g_array_append_vals(u->handlers, saved->data, saved->len);
  g_assert(u->handlers->len == saved_handlers);
  return loop;
}

/* ---- statements ------------------------------------------------------------------------- */

static void emit_loop_return(Compiler *c);
static LangLoopInfo *block_info(Compiler *c, int index);
static int here(Compiler *c);

static void
compile_return(Compiler *c, const LangStmt *s)
{
  LangScopeKind kind = lang_scope_kind(c->u->scope);
  if (kind != LANG_SCOPE_FUNCTION) {
    compile_error(c, &s->loc, "'return' outside function");
    return;
  }
  if (s->v.return_.value)
    compile_expr(c, s->v.return_.value);
  else
    emit_const(c, LANG_NONE);
  emit_loop_return(c);
  unwind_fblocks(c, false, true, false);
  emit(c, LANG_OP_RETURN_VALUE, 0);
}

/* A `return` directly in a loop of a function (only `if`s between), its value on the stack:
 * the value and the loop's returned and break flags are stored, so that AutoGraph can end the
 * graph branch and loop it runs in and return after the loop; the plain return follows. */
static void
emit_loop_return(Compiler *c)
{
  Unit *u = c->u;
  if (u->fblocks->len == 0)
    return;
  const FBlock *top = &g_array_index(u->fblocks, FBlock, u->fblocks->len - 1);
  if ((top->kind != FB_WHILE && top->kind != FB_FOR) || top->blk < 0 || top->ret_slot < 0)
    return;
  emit(c, LANG_OP_STORE_FAST, (uint32_t)top->ret_slot);
  emit_const(c, LANG_TRUE);
  emit(c, LANG_OP_STORE_FAST, (uint32_t)top->returned_slot);
  emit_const(c, LANG_TRUE);
  emit(c, LANG_OP_STORE_FAST, (uint32_t)top->brk_slot);
  emit(c, LANG_OP_AG_BREAK, (uint32_t)(top->blk * 2));
  emit(c, LANG_OP_LOAD_FAST, (uint32_t)top->ret_slot);
}

/* A `break` or `continue` directly in a loop of a function (only `if`s between): it sets the
 * loop's flag and gives AutoGraph the chance to end the graph branch it runs in (AG_BREAK falls
 * through to the plain jump when the loop is not traced as a graph loop). */
static void
emit_loop_flag(Compiler *c, bool is_break)
{
  Unit *u = c->u;
  if (u->fblocks->len == 0)
    return;
  const FBlock *top = &g_array_index(u->fblocks, FBlock, u->fblocks->len - 1);
  if ((top->kind != FB_WHILE && top->kind != FB_FOR) || top->blk < 0)
    return;
  int slot = is_break ? top->brk_slot : top->cont_slot;
  if (slot < 0)
    return;
  emit_const(c, LANG_TRUE);
  emit(c, LANG_OP_STORE_FAST, (uint32_t)slot);
  emit(c, LANG_OP_AG_BREAK, (uint32_t)(top->blk * 2 + (is_break ? 0 : 1)));
}

static void
compile_break_continue(Compiler *c, const LangStmt *s, bool is_break)
{
  Unit *u = c->u;
  int depth = u->depth;
  emit_loop_flag(c, is_break);
  const FBlock *loop = unwind_fblocks(c, true, false, is_break);
  if (!loop) {
    compile_error(c, &s->loc,
                  is_break ? "'break' outside loop" : "'continue' not properly in loop");
    return;
  }
  if (is_break)
    emit_jump(c, LANG_OP_JUMP_FORWARD, loop->exit);
  else
    emit_jump(c, LANG_OP_JUMP_BACKWARD, loop->start);
  u->depth = depth;
}

/* Whether the compiler records blocks for AutoGraph: in functions, which Functions trace. */
static bool
records_blocks(Compiler *c)
{
  LangScopeKind kind = lang_scope_kind(c->u->scope);
  return kind == LANG_SCOPE_FUNCTION || kind == LANG_SCOPE_LAMBDA;
}

/* Records a for/if/while block of a function with the fast locals `body` and `orelse` assign
 * (AutoGraph's loop variables and conditional outputs: DESIGN "A call of a traced Function").
 * Returns its index in the unit's block list; the caller fills in the instruction fields. */
static int
record_block(Compiler *c, LangBlockKind kind, const LangStmtList *body, const LangStmtList *orelse)
{
  Unit *u = c->u;
  LangNameSet names = lang_assigned_names(c->unit->arena, *body);
  LangNameSet more = orelse ? lang_assigned_names(c->unit->arena, *orelse)
                            : (LangNameSet){.names = NULL, .len = 0};
  int total = names.len + more.len;
  LangLoopInfo info = {.kind = kind, .instr = (int)u->instrs->len, .n = 0};
  info.start = info.orelse = info.end = info.instr;
  info.slots = g_new(int, total > 0 ? total : 1);
  for (int i = 0; i < total; i++) {
    const char *name = i < names.len ? names.names[i] : more.names[i - names.len];
    if (lang_scope_symbol(u->scope, name) != LANG_SYMBOL_LOCAL)
      continue;
    LangObject *str = intern(name);
    int index = find_ptr(u->varnames, str);
    if (index < 0)
      index = (int)name_index(u->varnames, str);
    bool seen = false;
    for (int k = 0; k < info.n && !seen; k++)
      seen = info.slots[k] == index;
    if (!seen)
      info.slots[info.n++] = index;
  }
  info.brk_slot = info.cont_slot = info.ret_slot = info.returned_slot = -1;
  g_array_append_val(u->loops, info);
  return (int)u->loops->len - 1;
}

static void
emit_store_false(Compiler *c, int slot)
{
  if (slot < 0)
    return;
  emit_const(c, LANG_FALSE);
  emit(c, LANG_OP_STORE_FAST, (uint32_t)slot);
}

/* Adds a local to a block's list (once). */
static void
block_add_slot(LangLoopInfo *info, int slot)
{
  if (slot < 0)
    return;
  for (int k = 0; k < info->n; k++)
    if (info->slots[k] == slot)
      return;
  info->slots = g_renew(int, info->slots, info->n + 1);
  info->slots[info->n++] = slot;
}

/* An `if` inside a loop may set the loop's break and continue flags: they are among its
 * outputs. */
static void
block_add_loop_flags(Compiler *c, LangLoopInfo *info)
{
  Unit *u = c->u;
  for (int i = (int)u->fblocks->len - 1; i >= 0; i--) {
    const FBlock *b = &g_array_index(u->fblocks, FBlock, i);
    if (b->kind == FB_WHILE || b->kind == FB_FOR) {
      block_add_slot(info, b->brk_slot);
      block_add_slot(info, b->cont_slot);
      block_add_slot(info, b->ret_slot);
      block_add_slot(info, b->returned_slot);
      return;
    }
  }
}

/* Whether a loop body breaks, continues or returns directly (through `if`s only). */
static void
scan_loop_exits(const LangStmtList *body, bool *brk, bool *cont, bool *ret)
{
  for (int i = 0; i < body->len; i++) {
    const LangStmt *s = body->items[i];
    if (s->kind == LANG_STMT_BREAK)
      *brk = true;
    else if (s->kind == LANG_STMT_CONTINUE)
      *cont = true;
    else if (s->kind == LANG_STMT_RETURN)
      *ret = true;
    else if (s->kind == LANG_STMT_IF) {
      scan_loop_exits(&s->v.if_.body, brk, cont, ret);
      scan_loop_exits(&s->v.if_.orelse, brk, cont, ret);
    }
  }
}

static int
hidden_local(Compiler *c, const char *what, int blk)
{
  char name[32];
  g_snprintf(name, sizeof name, ".%s%d", what, blk);
  return (int)name_index(c->u->varnames, intern(name));
}

/* The hidden locals of a function loop's `break`, `continue` and `return` (-1: none needed),
 * recorded in the loop's block and its FBlock `b`. */
static void
loop_flag_slots(Compiler *c, int blk, const LangStmtList *body, FBlock *b)
{
  bool brk = false, cont = false, ret = false;
  scan_loop_exits(body, &brk, &cont, &ret);
  b->blk = blk;
  b->brk_slot = brk || ret ? hidden_local(c, "break", blk) : -1;
  b->cont_slot = cont ? hidden_local(c, "continue", blk) : -1;
  b->ret_slot = ret ? hidden_local(c, "retval", blk) : -1;
  b->returned_slot = ret ? hidden_local(c, "returned", blk) : -1;
  LangLoopInfo *info = block_info(c, blk);
  info->brk_slot = b->brk_slot;
  info->cont_slot = b->cont_slot;
  info->ret_slot = b->ret_slot;
  info->returned_slot = b->returned_slot;
  block_add_slot(info, b->brk_slot);
  block_add_slot(info, b->returned_slot);
}

/* Before a loop: its flags start false, its returned value None. */
static void
emit_loop_flags_init(Compiler *c, const FBlock *b)
{
  emit_store_false(c, b->brk_slot);
  emit_store_false(c, b->returned_slot);
  if (b->ret_slot >= 0) {
    emit_const(c, LANG_NONE);
    emit(c, LANG_OP_STORE_FAST, (uint32_t)b->ret_slot);
  }
}

/* After a loop that may return from inside: `if returned: return retval`, a block AutoGraph
 * traces as a conditional return when the loop was a graph loop. */
static void
emit_loop_return_check(Compiler *c, const FBlock *b)
{
  if (b->ret_slot < 0)
    return;
  int skip = new_label(c);
  LangStmtList none = {.items = NULL, .len = 0};
  int blk = record_block(c, LANG_BLOCK_IF, &none, NULL);
  emit(c, LANG_OP_LOAD_FAST, (uint32_t)b->returned_slot);
  block_info(c, blk)->instr = here(c);
  emit_jump(c, LANG_OP_POP_JUMP_IF_FALSE, skip);
  emit(c, LANG_OP_LOAD_FAST, (uint32_t)b->ret_slot);
  unwind_fblocks(c, false, true, false);
  emit(c, LANG_OP_RETURN_VALUE, 0);
  place_label(c, skip);
  LangLoopInfo *info = block_info(c, blk);
  info->orelse = info->end = here(c);
  emit(c, LANG_OP_AG_END, (uint32_t)blk);
}

static LangLoopInfo *
block_info(Compiler *c, int index)
{
  return &g_array_index(c->u->loops, LangLoopInfo, index);
}

/* A test compiled as one conditional jump (no `and` or `or`; `not` inverts the jump), which
 * AutoGraph can turn into a graph conditional. */
static bool
is_single_jump_test(const LangExpr *e)
{
  if (e->kind == LANG_EXPR_UNARY_OP && e->v.unary_op.op == LANG_UNARYOP_NOT)
    return is_single_jump_test(e->v.unary_op.operand); /* `not x`: one inverted jump */
  return e->kind != LANG_EXPR_BOOL_OP;
}

static int
here(Compiler *c)
{
  return (int)c->u->instrs->len;
}

/* An `and`/`or`, possibly under `not`s: a test AutoGraph converts as one value. */
static bool
is_bool_op_test(const LangExpr *e)
{
  while (e->kind == LANG_EXPR_UNARY_OP && e->v.unary_op.op == LANG_UNARYOP_NOT)
    e = e->v.unary_op.operand;
  return e->kind == LANG_EXPR_BOOL_OP;
}

/* The value whose truth a block's test asks for, with `and`/`or` as AG_AND/AG_OR chains: on
 * Python values they short-circuit to a bool (each operand's truth asked once, as jumps would),
 * on symbolic tensors they combine into tf.logical_and/or, so that the block's one jump sees a
 * single condition (AutoGraph's and_/or_).
 *
 *   test_value: test_value ('and' | 'or') test_value ... | 'not' test_value | expr */
static void
compile_test_value(Compiler *c, const LangExpr *e)
{
  if (e->kind == LANG_EXPR_UNARY_OP && e->v.unary_op.op == LANG_UNARYOP_NOT) {
    compile_test_value(c, e->v.unary_op.operand);
    emit(c, LANG_OP_UNARY_NOT, 0);
    return;
  }
  if (e->kind != LANG_EXPR_BOOL_OP) {
    compile_expr(c, e);
    return;
  }
  compile_ag_chain(c, e, false, compile_test_value);
}

/* The test of block `blk` (or of no block: -1): one conditional jump to `label` when false. */
static void
compile_block_test(Compiler *c, int blk, const LangExpr *test, int label)
{
  if (blk >= 0 && is_bool_op_test(test)) {
    compile_test_value(c, test);
    emit_jump(c, LANG_OP_POP_JUMP_IF_FALSE, label);
    return;
  }
  compile_jump_if(c, test, label, false);
}

/* The test just compiled for block `blk` as its one conditional jump, or -1. */
static int
test_jump(Compiler *c, int blk, const LangExpr *test)
{
  int last = here(c) - 1;
  if (!(is_single_jump_test(test) || is_bool_op_test(test)) || last < block_info(c, blk)->start)
    return -1;
  const Instr *in = &g_array_index(c->u->instrs, Instr, last);
  return in->op == LANG_OP_POP_JUMP_IF_FALSE || in->op == LANG_OP_POP_JUMP_IF_TRUE ? last : -1;
}

static void
compile_if(Compiler *c, const LangStmt *s)
{
  int end = new_label(c);
  bool has_else = s->v.if_.orelse.len > 0;
  int orelse = has_else ? new_label(c) : end;
  int blk = records_blocks(c)
                ? record_block(c, LANG_BLOCK_IF, &s->v.if_.body, has_else ? &s->v.if_.orelse : NULL)
                : -1;
  if (blk >= 0)
    block_add_loop_flags(c, block_info(c, blk));
  compile_block_test(c, blk, s->v.if_.test, orelse);
  if (blk >= 0)
    block_info(c, blk)->instr = test_jump(c, blk, s->v.if_.test);
  compile_body(c, &s->v.if_.body);
  if (has_else) {
    emit_jump(c, blk >= 0 ? LANG_OP_AG_ELSE : LANG_OP_JUMP_FORWARD, end);
    place_label(c, orelse);
    if (blk >= 0)
      block_info(c, blk)->orelse = here(c);
    compile_body(c, &s->v.if_.orelse);
  }
  place_label(c, end);
  if (blk >= 0) {
    LangLoopInfo *info = block_info(c, blk);
    if (!has_else)
      info->orelse = here(c);
    info->end = here(c);
    emit(c, LANG_OP_AG_END, (uint32_t)blk);
  }
}

static void
compile_while(Compiler *c, const LangStmt *s)
{
  int start = new_label(c), orelse = new_label(c), end = new_label(c);
  const LangExpr *test = s->v.while_.test;
  bool forever = test->kind == LANG_EXPR_CONSTANT && test->v.constant.kind == LANG_CONST_TRUE;
  FBlock flags = {.blk = -1, .brk_slot = -1, .cont_slot = -1, .ret_slot = -1, .returned_slot = -1};
  int blk = -1;
  if (records_blocks(c) && !forever) {
    blk = record_block(c, LANG_BLOCK_WHILE, &s->v.while_.body, NULL);
    loop_flag_slots(c, blk, &s->v.while_.body, &flags);
    emit_loop_flags_init(c, &flags);
    block_info(c, blk)->start = here(c);
  }
  place_label(c, start);
  if (!forever)
    compile_block_test(c, blk, test, orelse);
  if (blk >= 0) {
    block_info(c, blk)->instr = test_jump(c, blk, test);
    emit_store_false(c, flags.cont_slot);
  }
  FBlock *b = push_fblock(c, FB_WHILE);
  b->start = start;
  b->exit = end;
  b->blk = flags.blk;
  b->brk_slot = flags.brk_slot;
  b->cont_slot = flags.cont_slot;
  b->ret_slot = flags.ret_slot;
  b->returned_slot = flags.returned_slot;
  compile_body(c, &s->v.while_.body);
  pop_fblock(c);
  c->u->line = s->loc.line;
  if (blk >= 0)
    block_info(c, blk)->end = here(c);
  emit_jump(c, blk >= 0 ? LANG_OP_AG_LOOP : LANG_OP_JUMP_BACKWARD, start);
  place_label(c, orelse);
  if (blk >= 0)
    block_info(c, blk)->orelse = here(c);
  compile_body(c, &s->v.while_.orelse);
  place_label(c, end);
  emit_loop_return_check(c, &flags);
}

static void
compile_for(Compiler *c, const LangStmt *s)
{
  int start = new_label(c), cleanup = new_label(c), end = new_label(c);
  FBlock flags = {.blk = -1, .brk_slot = -1, .cont_slot = -1, .ret_slot = -1, .returned_slot = -1};
  int blk = -1;
  if (records_blocks(c)) {
    blk = record_block(c, LANG_BLOCK_FOR, &s->v.for_.body, NULL);
    loop_flag_slots(c, blk, &s->v.for_.body, &flags);
    emit_loop_flags_init(c, &flags);
  }
  compile_expr(c, s->v.for_.iter);
  emit(c, LANG_OP_GET_ITER, 0);
  place_label(c, start);
  c->u->line = s->loc.line;
  if (blk >= 0)
    block_info(c, blk)->instr = block_info(c, blk)->start = here(c);
  emit_jump(c, LANG_OP_FOR_ITER, cleanup);
  FBlock *b = push_fblock(c, FB_FOR);
  b->start = start;
  b->exit = end;
  b->blk = flags.blk;
  b->brk_slot = flags.brk_slot;
  b->cont_slot = flags.cont_slot;
  b->ret_slot = flags.ret_slot;
  b->returned_slot = flags.returned_slot;
  compile_store(c, s->v.for_.target);
  emit_store_false(c, flags.cont_slot);
  compile_body(c, &s->v.for_.body);
  pop_fblock(c);
  c->u->line = s->loc.line;
  if (blk >= 0)
    block_info(c, blk)->end = here(c);
  emit_jump(c, blk >= 0 ? LANG_OP_AG_LOOP : LANG_OP_JUMP_BACKWARD, start);
  place_label(c, cleanup);
  c->u->depth -= 1; /* the exhausted iterator was popped */
  if (blk >= 0)
    block_info(c, blk)->orelse = here(c);
  compile_body(c, &s->v.for_.orelse);
  place_label(c, end);
  emit_loop_return_check(c, &flags);
}

/* The cleanup of an exception handler that raised: reached with the exception that was being
 * handled before (saved by PUSH_EXC_INFO) and the new one on the stack above `depth`; restores
 * the former and re-raises the latter. */
static void
emit_handler_cleanup(Compiler *c, int label, int depth)
{
  place_label(c, label);
  c->u->depth = depth + 2;
  emit(c, LANG_OP_SWAP, 2);
  emit(c, LANG_OP_POP_EXCEPT, 0);
  emit(c, LANG_OP_RERAISE, 0);
}

/* try: body except...: handlers else: orelse */
static void
compile_try_except(Compiler *c, const LangStmt *s)
{
  Unit *u = c->u;
  int handler = new_label(c), cleanup = new_label(c), end = new_label(c);
  int depth = u->depth;

  push_handler(c, handler, depth);
  push_fblock(c, FB_TRY_EXCEPT);
  compile_body(c, &s->v.try_.body);
  pop_fblock(c);
  pop_handler(c);
  compile_body(c, &s->v.try_.orelse);
  emit_jump(c, LANG_OP_JUMP_FORWARD, end);

  /* The exception arrives on the stack; remember the one being handled before it. */
  place_label(c, handler);
  u->depth = depth + 1;
  push_handler(c, cleanup, depth + 1);
  emit(c, LANG_OP_PUSH_EXC_INFO, 0); /* prev exc */
  for (int i = 0; i < s->v.try_.handlers.len; i++) {
    const LangExceptHandler *h = s->v.try_.handlers.items[i];
    int next = new_label(c);
    u->line = h->loc.line;
    if (h->type) {
      compile_expr(c, h->type);
      emit(c, LANG_OP_CHECK_EXC_MATCH, 0);
      emit_jump(c, LANG_OP_POP_JUMP_IF_FALSE, next);
    } else if (i != s->v.try_.handlers.len - 1) {
      compile_error(c, &h->loc, "default 'except:' must be last");
    }
    if (h->name)
      emit_name(c, h->name, ACCESS_STORE);
    else
      emit(c, LANG_OP_POP_TOP, 0);
    /* The body: leaving it early pops the handled exception (and clears the name). */
    int name_cleanup = -1;
    if (h->name) {
      name_cleanup = new_label(c);
      push_handler(c, name_cleanup, depth + 1);
    }
    FBlock *b = push_fblock(c, FB_HANDLER);
    b->name = h->name;
    compile_body(c, &h->body);
    pop_fblock(c);
    if (h->name)
      pop_handler(c);
    emit(c, LANG_OP_POP_EXCEPT, 0);
    emit_handler_name_clear(c, h->name);
    emit_jump(c, LANG_OP_JUMP_FORWARD, end);
    if (h->name) {
      /* An exception inside a named handler: clear the name, then re-raise. */
      place_label(c, name_cleanup);
      u->depth = depth + 2;
      emit_handler_name_clear(c, h->name);
      emit(c, LANG_OP_RERAISE, 0);
    }
    place_label(c, next);
    u->depth = depth + 2;
  }
  /* No handler matched: re-raise, through the cleanup below. */
  emit(c, LANG_OP_RERAISE, 0);
  pop_handler(c);

  /* cleanup: prev exc2 -> restore prev, re-raise exc2 */
  emit_handler_cleanup(c, cleanup, depth);

  place_label(c, end);
  u->depth = depth;
}

static void
compile_try_finally(Compiler *c, const LangStmt *s)
{
  Unit *u = c->u;
  int handler = new_label(c), cleanup = new_label(c), end = new_label(c);
  int depth = u->depth;

  push_handler(c, handler, depth);
  FBlock *b = push_fblock(c, FB_FINALLY_TRY);
  b->finalbody = &s->v.try_.finalbody;
  if (s->v.try_.handlers.len > 0)
    compile_try_except(c, s);
  else {
    compile_body(c, &s->v.try_.body);
    compile_body(c, &s->v.try_.orelse);
  }
  pop_fblock(c);
  pop_handler(c);
  compile_body(c, &s->v.try_.finalbody);
  emit_jump(c, LANG_OP_JUMP_FORWARD, end);

  /* The exception path: run the finally body, then re-raise. */
  place_label(c, handler);
  u->depth = depth + 1;
  push_handler(c, cleanup, depth + 1);
  emit(c, LANG_OP_PUSH_EXC_INFO, 0);
  push_fblock(c, FB_FINALLY_END);
  compile_body(c, &s->v.try_.finalbody);
  pop_fblock(c);
  emit(c, LANG_OP_RERAISE, 0);
  pop_handler(c);

  emit_handler_cleanup(c, cleanup, depth);

  place_label(c, end);
  u->depth = depth;
}

static void
compile_try(Compiler *c, const LangStmt *s)
{
  if (s->v.try_.finalbody.len > 0)
    compile_try_finally(c, s);
  else
    compile_try_except(c, s);
}

/* with a as x, b as y: body — one manager at a time, nested. */
static void
compile_with_item(Compiler *c, const LangStmt *s, int index)
{
  Unit *u = c->u;
  const LangWithItem *item = s->v.with.items.items[index];
  int handler = new_label(c), cleanup = new_label(c), suppress = new_label(c), end = new_label(c);

  compile_expr(c, item->context_expr);
  u->line = item->context_expr->loc.line;
  emit(c, LANG_OP_BEFORE_WITH, 0); /* exit enter_result */
  int depth = u->depth - 1;        /* with `exit` kept */
  push_handler(c, handler, depth);
  push_fblock(c, FB_WITH);
  if (item->optional_vars)
    compile_store(c, item->optional_vars);
  else
    emit(c, LANG_OP_POP_TOP, 0);
  if (index + 1 < s->v.with.items.len)
    compile_with_item(c, s, index + 1);
  else
    compile_body(c, &s->v.with.body);
  pop_fblock(c);
  pop_handler(c);
  u->line = s->loc.line;
  emit_with_exit_call(c, false);
  emit_jump(c, LANG_OP_JUMP_FORWARD, end);

  /* exit exc -> exit prev exc; call exit; a true result suppresses the exception. */
  place_label(c, handler);
  u->depth = depth + 1;
  push_handler(c, cleanup, depth + 1);
  emit(c, LANG_OP_PUSH_EXC_INFO, 0);
  emit(c, LANG_OP_WITH_EXCEPT_START, 0);
  emit_jump(c, LANG_OP_POP_JUMP_IF_TRUE, suppress);
  emit(c, LANG_OP_RERAISE, 0);
  pop_handler(c);

  place_label(c, suppress);
  u->depth = depth + 2;
  emit(c, LANG_OP_POP_TOP, 0);    /* exc */
  emit(c, LANG_OP_POP_EXCEPT, 0); /* prev */
  emit(c, LANG_OP_POP_TOP, 0);    /* exit */
  emit_jump(c, LANG_OP_JUMP_FORWARD, end);

  emit_handler_cleanup(c, cleanup, depth);

  place_label(c, end);
  u->depth = depth - 1; /* back to the depth before the manager */
}

static void
compile_raise(Compiler *c, const LangStmt *s)
{
  uint32_t n = 0;
  if (s->v.raise.exc) {
    compile_expr(c, s->v.raise.exc);
    n = 1;
    if (s->v.raise.cause) {
      compile_expr(c, s->v.raise.cause);
      n = 2;
    }
  }
  emit(c, LANG_OP_RAISE_VARARGS, n);
}

static void
compile_assert(Compiler *c, const LangStmt *s)
{
  int end = new_label(c);
  compile_jump_if(c, s->v.assert_.test, end, true);
  if (s->v.assert_.msg) {
    emit(c, LANG_OP_PUSH_NULL, 0);
    emit(c, LANG_OP_LOAD_ASSERTION_ERROR, 0);
    compile_expr(c, s->v.assert_.msg);
    emit(c, LANG_OP_CALL, 1);
  } else {
    emit(c, LANG_OP_LOAD_ASSERTION_ERROR, 0);
  }
  emit(c, LANG_OP_RAISE_VARARGS, 1);
  place_label(c, end);
}

static void
compile_import(Compiler *c, const LangStmt *s)
{
  const LangAliasList *names = &s->v.import.names;
  for (int i = 0; i < names->len; i++) {
    const LangAlias *a = names->items[i];
    emit_const(c, LANG_NONE);
    emit(c, LANG_OP_IMPORT_NAME, add_name(c, a->name));
    if (a->asname) {
      emit_name(c, a->asname, ACCESS_STORE);
      continue;
    }
    const char *dot = strchr(a->name, '.');
    if (!dot) {
      emit_name(c, a->name, ACCESS_STORE);
      continue;
    }
    /* `import a.b` binds `a`. */
    g_autofree char *top = g_strndup(a->name, (gsize)(dot - a->name));
    emit(c, LANG_OP_POP_TOP, 0);
    emit_const(c, LANG_NONE);
    emit(c, LANG_OP_IMPORT_NAME, add_name(c, top));
    emit_name(c, top, ACCESS_STORE);
  }
}

static void
compile_import_from(Compiler *c, const LangStmt *s)
{
  if (s->v.import_from.level > 0 || !s->v.import_from.module) {
    compile_error(c, &s->loc, "attempted relative import with no known parent package");
    return;
  }
  const LangAliasList *names = &s->v.import_from.names;
  emit_const(c, LANG_NONE);
  emit(c, LANG_OP_IMPORT_NAME, add_name(c, s->v.import_from.module));
  if (names->len == 1 && strcmp(names->items[0]->name, "*") == 0) {
    emit(c, LANG_OP_IMPORT_STAR, 0);
    return;
  }
  for (int i = 0; i < names->len; i++) {
    const LangAlias *a = names->items[i];
    emit(c, LANG_OP_IMPORT_FROM, add_name(c, a->name));
    emit_name(c, a->asname ? a->asname : a->name, ACCESS_STORE);
  }
  emit(c, LANG_OP_POP_TOP, 0);
}

static void
compile_assign(Compiler *c, const LangStmt *s)
{
  compile_expr(c, s->v.assign.value);
  const LangExprList *targets = &s->v.assign.targets;
  for (int i = 0; i < targets->len; i++) {
    if (i < targets->len - 1)
      emit(c, LANG_OP_COPY, 1);
    compile_store(c, targets->items[i]);
  }
}

static bool
is_last_result_stmt(Compiler *c, const LangStmt *s)
{
  if (!(c->flags & LANG_COMPILE_RESULT) || c->u->parent != NULL)
    return false;
  const LangStmtList *body = &c->unit->body;
  return body->len > 0 && body->items[body->len - 1] == s;
}

static void
compile_stmt(Compiler *c, const LangStmt *s)
{
  Unit *u = c->u;
  u->line = s->loc.line;
  switch (s->kind) {
    case LANG_STMT_FUNCTION_DEF:
      compile_function_def(c, s);
      break;
    case LANG_STMT_CLASS_DEF:
      compile_class_def(c, s);
      break;
    case LANG_STMT_RETURN:
      compile_return(c, s);
      break;
    case LANG_STMT_DELETE:
      for (int i = 0; i < s->v.delete_.targets.len; i++)
        compile_delete(c, s->v.delete_.targets.items[i]);
      break;
    case LANG_STMT_ASSIGN:
      compile_assign(c, s);
      break;
    case LANG_STMT_AUG_ASSIGN:
      compile_aug_assign(c, s);
      break;
    case LANG_STMT_ANN_ASSIGN:
      if (s->v.ann_assign.value) {
        compile_expr(c, s->v.ann_assign.value);
        compile_store(c, s->v.ann_assign.target);
      }
      break;
    case LANG_STMT_FOR:
      compile_for(c, s);
      break;
    case LANG_STMT_WHILE:
      compile_while(c, s);
      break;
    case LANG_STMT_IF:
      compile_if(c, s);
      break;
    case LANG_STMT_WITH:
      compile_with_item(c, s, 0);
      break;
    case LANG_STMT_RAISE:
      compile_raise(c, s);
      break;
    case LANG_STMT_TRY:
      compile_try(c, s);
      break;
    case LANG_STMT_ASSERT:
      compile_assert(c, s);
      break;
    case LANG_STMT_IMPORT:
      compile_import(c, s);
      break;
    case LANG_STMT_IMPORT_FROM:
      compile_import_from(c, s);
      break;
    case LANG_STMT_GLOBAL:
    case LANG_STMT_NONLOCAL:
    case LANG_STMT_PASS:
      break;
    case LANG_STMT_EXPR:
      compile_expr(c, s->v.expr.value);
      u->line = s->loc.line;
      emit(c, is_last_result_stmt(c, s) ? LANG_OP_SET_RESULT : LANG_OP_POP_TOP, 0);
      break;
    case LANG_STMT_BREAK:
      compile_break_continue(c, s, true);
      break;
    case LANG_STMT_CONTINUE:
      compile_break_continue(c, s, false);
      break;
    case LANG_N_STMTS:
      g_assert_not_reached();
  }
}

static void
compile_body(Compiler *c, const LangStmtList *body)
{
  for (int i = 0; i < body->len && !c->failed; i++)
    compile_stmt(c, body->items[i]);
}

/* ---- assembly --------------------------------------------------------------------------- */

static bool
falls_through(LangOpcode op)
{
  return op != LANG_OP_JUMP_FORWARD && op != LANG_OP_JUMP_BACKWARD && op != LANG_OP_AG_ELSE &&
         op != LANG_OP_AG_LOOP && op != LANG_OP_RETURN_VALUE && op != LANG_OP_RAISE_VARARGS &&
         op != LANG_OP_RERAISE;
}

/* The deepest the value stack gets, by walking every path with the stack effects. */
static int
compute_stacksize(const Instr *instrs, int n, const int *labels, const LangExcEntry *table,
                  int n_exc)
{
  g_autofree int *depth = g_new(int, n + 1);
  for (int i = 0; i <= n; i++)
    depth[i] = -1;
  g_autoptr(GArray) work = g_array_new(FALSE, FALSE, sizeof(int));
  int max = 0;
#define VISIT(index, d)                                                                            \
  do {                                                                                             \
    int i_ = (index), d_ = (d);                                                                    \
    if (i_ <= n && depth[i_] < d_) {                                                               \
      depth[i_] = d_;                                                                              \
      g_array_append_val(work, i_);                                                                \
    }                                                                                              \
  } while (0)
  VISIT(0, 0);
  for (int e = 0; e < n_exc; e++)
    VISIT((int)table[e].target, (int)table[e].depth + 1);
  while (work->len > 0) {
    int i = g_array_index(work, int, work->len - 1);
    g_array_set_size(work, work->len - 1);
    int d = depth[i];
    for (; i < n; i++) {
      LangOpcode op = instrs[i].op;
      if (d > max)
        max = d;
      if (lang_opcode_is_jump(op)) {
        int target = labels[instrs[i].arg];
        VISIT(target, d + lang_opcode_stack_effect(op, 0, true));
      }
      d += lang_opcode_stack_effect(op, instrs[i].arg, false);
      if (d > max)
        max = d;
      if (!falls_through(op))
        break;
      if (depth[i + 1] >= d)
        break;
      depth[i + 1] = d;
    }
  }
#undef VISIT
  return max;
}

static GArray *
build_exc_table(const Instr *instrs, int n, const int *labels)
{
  GArray *table = g_array_new(FALSE, FALSE, sizeof(LangExcEntry));
  int i = 0;
  while (i < n) {
    if (instrs[i].handler < 0) {
      i++;
      continue;
    }
    int start = i;
    while (i < n && instrs[i].handler == instrs[start].handler &&
           instrs[i].handler_depth == instrs[start].handler_depth)
      i++;
    LangExcEntry e = {.start = (uint32_t)start,
                      .end = (uint32_t)i,
                      .target = (uint32_t)labels[instrs[start].handler],
                      .depth = (uint32_t)instrs[start].handler_depth};
    g_array_append_val(table, e);
  }
  return table;
}

static LangObject **
names_copy(GPtrArray *array)
{
  LangObject **out = g_new(LangObject *, array->len > 0 ? array->len : 1);
  for (guint i = 0; i < array->len; i++)
    out[i] = g_ptr_array_index(array, i);
  return out;
}

/* Turns a finished unit into a code object. Transfer full, or LANG_EXC. */
static LangValue
assemble(Compiler *c, Unit *u)
{
  if (c->failed)
    return LANG_EXC;
  int n = (int)u->instrs->len;
  const Instr *instrs = (const Instr *)u->instrs->data;
  const int *labels = (const int *)u->labels->data;
  LangCode *code = (LangCode *)lang_object_alloc(c->L, &lang_code_type, sizeof(LangCode));
  code->n_code = n;
  code->code = g_new(uint32_t, n > 0 ? n : 1);
  code->lines = g_new(int, n > 0 ? n : 1);
  for (int i = 0; i < n; i++) {
    uint32_t arg = instrs[i].arg;
    if (lang_opcode_is_jump(instrs[i].op)) {
      g_assert(labels[arg] >= 0);
      arg = (uint32_t)labels[arg];
    }
    g_assert(arg <= LANG_INSTR_MAX_ARG);
    code->code[i] = LANG_INSTR(instrs[i].op, arg);
    code->lines[i] = instrs[i].line;
  }
  g_autoptr(GArray) table = build_exc_table(instrs, n, labels);
  code->n_exc = (int)table->len;
  code->exc_table = (LangExcEntry *)g_array_steal(table, NULL);
  code->stacksize = compute_stacksize(instrs, n, labels, code->exc_table, code->n_exc) + 1;

  code->n_consts = (int)u->consts->len;
  code->consts = g_new(LangValue, code->n_consts > 0 ? code->n_consts : 1);
  for (int i = 0; i < code->n_consts; i++)
    code->consts[i] = lang_incref(g_array_index(u->consts, LangValue, i));
  code->n_names = (int)u->names->len;
  code->names = names_copy(u->names);
  code->n_locals = (int)u->varnames->len;
  code->varnames = names_copy(u->varnames);
  code->n_cells = u->n_cells;
  code->n_free = (int)u->cellnames->len - u->n_cells;
  code->cellnames = names_copy(u->cellnames);
  /* A parameter that is also a cell starts the cell with the argument's value. */
  for (int i = 0; i < code->n_cells; i++) {
    int arg = find_ptr(u->varnames, code->cellnames[i]);
    if (arg < 0 || arg >= u->argcount + u->kwonlyargcount +
                              ((u->flags & LANG_CODE_VARARGS) ? 1 : 0) +
                              ((u->flags & LANG_CODE_VARKEYWORDS) ? 1 : 0))
      continue;
    if (!code->cell2arg) {
      code->cell2arg = g_new(int, code->n_cells);
      for (int k = 0; k < code->n_cells; k++)
        code->cell2arg[k] = -1;
    }
    code->cell2arg[i] = arg;
  }
  code->argcount = u->argcount;
  code->posonlyargcount = u->posonlyargcount;
  code->kwonlyargcount = u->kwonlyargcount;
  code->flags = u->flags;
  code->name = lang_incref(lang_obj(u->name)).o;
  code->qualname = lang_incref(lang_obj(u->qualname)).o;
  code->filename = lang_incref(lang_obj(c->filename)).o;
  code->firstlineno = u->firstlineno;
  code->doc = u->doc ? lang_incref(lang_obj(u->doc)).o : NULL;
  code->signature = u->signature ? lang_incref(lang_obj(u->signature)).o : NULL;
  if (u->loops->len > 0) {
    code->n_loops = (int)u->loops->len;
    code->loops = (LangLoopInfo *)g_array_steal(u->loops, NULL);
    u->loops = g_array_new(FALSE, FALSE, sizeof(LangLoopInfo));
  }
  return lang_obj(code);
}

/* ---- entry points ----------------------------------------------------------------------- */

LangValue
lang_compile(LangState *L, LangModule *unit, unsigned flags)
{
  g_return_val_if_fail(unit->mode == LANG_PARSE_EXEC, LANG_EXC);
  Compiler c = {.L = L, .unit = unit, .flags = flags};
  c.filename = lang_str_cstr(L, unit->filename).o;
  Unit *u = unit_new(&c, unit->top, "<module>", "<module>", 1);
  u->flags |= LANG_CODE_MODULE;
  c.u = u;
  compile_body(&c, &unit->body);
  emit_const(&c, LANG_NONE);
  emit(&c, LANG_OP_RETURN_VALUE, 0);
  LangValue code = assemble(&c, u);
  unit_free(u);
  lang_decref(lang_obj(c.filename));
  return code;
}

/* The first syntax error of a failed parse or scope analysis, raised in L. */
static LangValue
raise_syntax_errors(LangState *L, GPtrArray *errors)
{
  const LangSyntaxError *e = g_ptr_array_index(errors, 0);
  static LangType *const types[] = {
      [LANG_SYNTAX_ERROR] = &lang_exc_SyntaxError,
      [LANG_INDENTATION_ERROR] = &lang_exc_IndentationError,
      [LANG_TAB_ERROR] = &lang_exc_TabError,
  };
  return lang_raise_syntax(L, types[e->kind], e->message, e->filename, e->lineno, e->offset,
                           e->end_lineno, e->end_offset, e->text);
}

LangValue
lang_compile_source(LangState *L, const char *source, gssize len, const char *filename,
                    unsigned flags)
{
  GPtrArray *errors = NULL;
  g_autoptr(LangModule) unit = lang_parse(source, len, filename, LANG_PARSE_EXEC, &errors);
  if (!unit || !lang_symtable_build(unit, &errors)) {
    LangValue r = raise_syntax_errors(L, errors);
    g_ptr_array_unref(errors);
    return r;
  }
  lang_vm_add_source(L, filename, unit->source, (gssize)unit->source_len);
  return lang_compile(L, unit, flags);
}
