/* lang-code.c — the opcode table and code objects. */
#include "lang-code.h"
#include "lang-runtime-private.h"

#include <string.h>

typedef struct {
  const char *name; /* "LOAD_FAST" */
  bool is_jump;     /* the argument is an instruction index */
} OpcodeInfo;

static const OpcodeInfo opcode_info[] = {
#define LANG_OPCODE_ROW(name, effect, jump_effect, is_jump) [LANG_OP_##name] = {#name, is_jump},
    LANG_OPCODE_LIST(LANG_OPCODE_ROW)
#undef LANG_OPCODE_ROW
};
G_STATIC_ASSERT(G_N_ELEMENTS(opcode_info) == LANG_N_OPCODES);

const char *
lang_opcode_name(LangOpcode op)
{
  g_return_val_if_fail(op < LANG_N_OPCODES, "?");
  return opcode_info[op].name;
}

bool
lang_opcode_is_jump(LangOpcode op)
{
  g_return_val_if_fail(op < LANG_N_OPCODES, false);
  return opcode_info[op].is_jump;
}

int
lang_opcode_stack_effect(LangOpcode op, uint32_t arg, bool jump)
{
  switch (op) {
#define LANG_OPCODE_EFFECT(name, effect, jump_effect, is_jump)                                     \
  case LANG_OP_##name:                                                                             \
    return jump ? (jump_effect) : (effect);
    LANG_OPCODE_LIST(LANG_OPCODE_EFFECT)
#undef LANG_OPCODE_EFFECT
    default:
      g_return_val_if_reached(0);
  }
}

/* ---- code objects ----------------------------------------------------------------------- */

static void
code_dealloc(LangObject *o)
{
  LangCode *c = (LangCode *)o;
  for (int i = 0; i < c->n_consts; i++)
    lang_decref(c->consts[i]);
  g_free(c->consts);
  g_free(c->code);
  g_free(c->lines);
  g_free(c->names);     /* interned: immortal */
  g_free(c->varnames);  /* interned */
  g_free(c->cellnames); /* interned */
  g_free(c->cell2arg);
  g_free(c->exc_table);
  for (int i = 0; i < c->n_loops; i++)
    g_free(c->loops[i].slots);
  g_free(c->loops);
  if (c->name)
    lang_decref(lang_obj(c->name));
  if (c->qualname)
    lang_decref(lang_obj(c->qualname));
  if (c->filename)
    lang_decref(lang_obj(c->filename));
  if (c->doc)
    lang_decref(lang_obj(c->doc));
  if (c->signature)
    lang_decref(lang_obj(c->signature));
}

static LangValue
code_repr(LangState *L, LangValue self)
{
  LangCode *c = (LangCode *)self.o;
  return lang_str_printf(L, "<code object %s at %p, file \"%s\", line %d>", lang_str_data(c->name),
                         (void *)c, lang_str_data(c->filename), c->firstlineno);
}

LangType lang_code_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "code",
    .instance_size = sizeof(LangCode),
    .flags = LANG_TYPE_ABSTRACT_NEW,
    .slots =
        {
            .dealloc = code_dealloc,
            .repr = code_repr,
        },
};

char *
lang_code_disassemble(const LangCode *code)
{
  GString *out = g_string_new(NULL);
  int last_line = -1;
  for (int i = 0; i < code->n_code; i++) {
    uint32_t word = code->code[i];
    LangOpcode op = LANG_INSTR_OP(word);
    uint32_t arg = LANG_INSTR_ARG(word);
    if (code->lines[i] != last_line) {
      g_string_append_printf(out, "%4d ", code->lines[i]);
      last_line = code->lines[i];
    } else {
      g_string_append(out, "     ");
    }
    g_string_append_printf(out, "%4d %-22s %u", i, lang_opcode_name(op), arg);
    const char *detail = NULL;
    switch (op) {
      case LANG_OP_LOAD_FAST:
      case LANG_OP_STORE_FAST:
      case LANG_OP_DELETE_FAST:
        detail = arg < (uint32_t)code->n_locals ? lang_str_data(code->varnames[arg]) : "?";
        break;
      case LANG_OP_LOAD_DEREF:
      case LANG_OP_STORE_DEREF:
      case LANG_OP_DELETE_DEREF:
      case LANG_OP_LOAD_CLOSURE:
      case LANG_OP_LOAD_CLASSDEREF:
        detail = arg < (uint32_t)(code->n_cells + code->n_free)
                     ? lang_str_data(code->cellnames[arg])
                     : "?";
        break;
      case LANG_OP_LOAD_GLOBAL:
      case LANG_OP_STORE_GLOBAL:
      case LANG_OP_DELETE_GLOBAL:
      case LANG_OP_LOAD_NAME:
      case LANG_OP_STORE_NAME:
      case LANG_OP_DELETE_NAME:
      case LANG_OP_LOAD_ATTR:
      case LANG_OP_STORE_ATTR:
      case LANG_OP_DELETE_ATTR:
      case LANG_OP_LOAD_METHOD:
      case LANG_OP_IMPORT_NAME:
      case LANG_OP_IMPORT_FROM:
        detail = arg < (uint32_t)code->n_names ? lang_str_data(code->names[arg]) : "?";
        break;
      default:
        break;
    }
    if (detail)
      g_string_append_printf(out, " (%s)", detail);
    g_string_append_c(out, '\n');
  }
  for (int i = 0; i < code->n_exc; i++) {
    const LangExcEntry *e = &code->exc_table[i];
    g_string_append_printf(out, "  handler [%u, %u) -> %u depth %u\n", e->start, e->end, e->target,
                           e->depth);
  }
  return g_string_free(out, FALSE);
}
