/* kernel-lang-interp.c — the cell language (core/lang) behind the kernel's interface.
 *
 * One LangInterp session per kernel: every cell runs in its __main__ namespace as "<cell N>"
 * (N the execution count) with LANG_COMPILE_RESULT, so that the cell's trailing expression is
 * its Out[N]. While a cell runs, `io` is the engine's TkCellIO and the session's hooks forward
 * to it one call at a time (no batching): stdout/stderr writes become stream messages,
 * display() display_data, clear_output() clear_output, input() an input_request. Outside a
 * cell (user_expressions, completion, inspection) `io` is NULL and every output is dropped.
 * Each execute, the repr of its result and its pager request included, is one cell of the
 * session's trace events, numbered by the execution count (lang_interp_cell_begin/_end).
 *
 * IPython's notebook helpers live here, not in core/lang: `obj?` / `obj??` (recognised before
 * compiling: a last line ending in `?` whose rest is an expression) and the `help` builtin
 * both send the object's description to the pager; the description is IPython's layout
 * ("Signature:", "Docstring:", "Type:" ...) built from a Python function's code signature or a
 * native function's LangMethodDef signature (its __text_signature__) and __doc__.
 */
#include "kernel-interp.h"
#include "lang-compile.h"
#include "lang-interp.h"
#include "lang-parser.h"
#include "lang-tf.h"
#include "lang-runtime.h"
#include "lang-vm.h"

#include <string.h>

typedef struct {
  LangInterp *interp; /* the session; re-created by reset */
  LangState *L;       /* its state; `interrupt` reads it from any thread (never during reset) */
  const TkCellIO *io; /* the running cell's outputs, or NULL: outputs are dropped */
  TrEventBus *bus;    /* every session's event bus (owned), or NULL: each has its own */
  GMutex lock;        /* held while `L` changes, and by set_eager (debug thread) while it uses L */
} TkLang;

/* ---- sessions ------------------------------------------------------------------------- */

/* The help builtin is a plain native function: it finds its TkLang through the state. Only
 * the main thread touches this map. */
static GHashTable *sessions; /* LangState* -> TkLang* */

static TkLang *
session_of(LangState *L)
{
  return sessions ? g_hash_table_lookup(sessions, L) : NULL;
}

static void
write_stdout(void *data, const char *utf8, size_t len)
{
  TkLang *tk = data;
  if (tk->io && len > 0)
    tk->io->stream(tk->io->ctx, TK_STREAM_STDOUT, utf8, len);
}

static void
write_stderr(void *data, const char *utf8, size_t len)
{
  TkLang *tk = data;
  if (tk->io && len > 0)
    tk->io->stream(tk->io->ctx, TK_STREAM_STDERR, utf8, len);
}

/* input(prompt): NULL is EOF (EOFError, as CPython without a stdin); an interrupt while waiting
 * sets the state's flag, so that input() raises KeyboardInterrupt. */
static char *
read_line(void *data, const char *prompt)
{
  TkLang *tk = data;
  if (!tk->io || !tk->io->input)
    return NULL;
  g_autofree char *ename = NULL;
  g_autofree char *evalue = NULL;
  char *line = tk->io->input(tk->io->ctx, prompt, false, &ename, &evalue);
  if (!line && g_strcmp0(ename, "KeyboardInterrupt") == 0)
    lang_state_interrupt(tk->L);
  return line;
}

/* ---- MIME bundles --------------------------------------------------------------------- */

/* IPython's rich representations: obj._repr_html_() and friends, when defined. */
static const struct {
  const char *method;
  const char *mime;
} rich_reprs[] = {
    {"_repr_html_", "text/html"},
    {"_repr_markdown_", "text/markdown"},
    {"_repr_svg_", "image/svg+xml"},
    {"_repr_latex_", "text/latex"},
};

/* A JSON string of a str's text; a lone surrogate ("\ud800") is not valid UTF-8 and becomes
 * U+FFFD, as Jupyter would show it. */
static json_t *
json_text(LangObject *str)
{
  json_t *j = json_stringn(lang_str_data(str), (size_t)lang_str_size(str));
  if (!j) {
    g_autofree char *valid = g_utf8_make_valid(lang_str_data(str), lang_str_size(str));
    j = json_string(valid);
  }
  return j;
}

/* {"text/plain": repr(obj), ...}, or NULL with an exception pending. Transfer full. */
static json_t *
mime_bundle(LangState *L, LangValue obj)
{
  LangValue text = lang_repr(L, obj);
  if (lang_is_exc(text))
    return NULL;
  g_autoptr(json_t) bundle = json_object();
  json_object_set_new(bundle, "text/plain", json_text(text.o));
  lang_decref(text);
  if (lang_instance_of(obj, &lang_type_type))
    return g_steal_pointer(&bundle); /* a class: its _repr_*_ are unbound functions */
  for (size_t i = 0; i < G_N_ELEMENTS(rich_reprs); i++) {
    LangValue method = lang_getattr_opt(L, obj, lang_intern(rich_reprs[i].method));
    if (lang_is_exc(method))
      return NULL;
    if (lang_is_unset(method))
      continue;
    LangValue r = lang_callable(method) ? lang_call(L, method, NULL, 0, NULL) : LANG_NONE;
    lang_decref(method);
    if (lang_is_exc(r))
      return NULL;
    if (lang_is_str(r))
      json_object_set_new(bundle, rich_reprs[i].mime, json_text(r.o));
    lang_decref(r);
  }
  return g_steal_pointer(&bundle);
}

static bool
frontend_display(void *data, LangState *L, LangValue obj)
{
  TkLang *tk = data;
  g_autoptr(json_t) bundle = mime_bundle(L, obj);
  if (!bundle)
    return false;
  if (tk->io)
    tk->io->display(tk->io->ctx, bundle, NULL);
  return true;
}

static void
frontend_clear_output(void *data, bool wait)
{
  TkLang *tk = data;
  if (tk->io)
    tk->io->clear_output(tk->io->ctx, wait);
}

/* ---- exceptions ----------------------------------------------------------------------- */

/* The pending exception's class name and str(), clearing it. Transfer full. */
static void
take_exception(LangState *L, char **ename, char **evalue, GString *traceback)
{
  LangValue exc = lang_exc_fetch(L);
  *ename = g_strdup(lang_type_name(exc));
  LangValue s = lang_str(L, exc);
  if (lang_is_str(s)) {
    *evalue = g_strndup(lang_str_data(s.o), (gsize)lang_str_size(s.o));
  } else {
    lang_exc_clear(L);
    *evalue = g_strdup("<exception str() failed>");
  }
  lang_decref(s);
  if (traceback) {
    lang_exc_format(L, exc, traceback);
    lang_exc_clear(L);
  }
  lang_decref(exc);
}

/* Reports the pending exception through io->error: its traceback split into lines (the
 * SyntaxError form of a cell that does not compile comes out of the same function). */
static void
report_exception(TkLang *tk, const TkCellIO *io)
{
  g_autofree char *ename = NULL;
  g_autofree char *evalue = NULL;
  g_autoptr(GString) text = g_string_new(NULL);
  take_exception(tk->L, &ename, &evalue, text);
  while (text->len > 0 && text->str[text->len - 1] == '\n')
    g_string_truncate(text, text->len - 1);
  g_auto(GStrv) lines = g_strsplit(text->str, "\n", -1);
  io->error(io->ctx, ename, evalue, (const char *const *)lines, g_strv_length(lines));
}

/* ---- names and expressions ------------------------------------------------------------ */

static bool
is_ident_byte(char c)
{
  return g_ascii_isalnum(c) || c == '_' || (unsigned char)c >= 0x80;
}

/* `text` is NAME(.NAME)* */
static bool
is_dotted_name(const char *text)
{
  if (!*text)
    return false;
  for (const char *p = text; *p;) {
    if (g_ascii_isdigit(*p) || !is_ident_byte(*p))
      return false;
    while (is_ident_byte(*p))
      p++;
    if (*p == '.')
      p++;
    if (*p == '\0' && p[-1] == '.')
      return false;
    if (*p && !is_ident_byte(*p))
      return false;
  }
  return true;
}

/* v.names[0].names[1]...: new reference, or LANG_UNSET (no exception pending) when an attribute
 * is missing or raises. Takes over the reference to `v`. */
static LangValue
getattr_chain(LangState *L, LangValue v, char **names)
{
  for (char **p = names; *p; p++) {
    LangValue name = lang_str_cstr(L, *p); /* not interned: user text, not worth keeping */
    LangValue next = lang_getattr_opt(L, v, name.o);
    lang_decref(name);
    lang_decref(v);
    if (lang_is_exc(next)) {
      lang_exc_clear(L);
      return LANG_UNSET;
    }
    if (lang_is_unset(next))
      return LANG_UNSET;
    v = next;
  }
  return v;
}

/* The value of a dotted name in __main__ (then builtins), by attribute lookups only. New
 * reference, or LANG_UNSET (no exception pending) when it does not resolve. */
static LangValue
resolve_dotted(TkLang *tk, const char *text)
{
  if (!is_dotted_name(text))
    return LANG_UNSET;
  g_auto(GStrv) parts = g_strsplit(text, ".", -1);
  LangValue v = lang_dict_get_cstr(lang_interp_globals(tk->interp), parts[0]);
  if (lang_is_unset(v))
    v = lang_dict_get_cstr(tk->L->builtins, parts[0]);
  if (lang_is_unset(v))
    return LANG_UNSET;
  return getattr_chain(tk->L, lang_incref(v), parts + 1);
}

/* Whether `text` parses as one expression. */
static bool
is_expression(const char *text)
{
  g_autoptr(GPtrArray) errors = NULL;
  g_autoptr(LangModule) unit = lang_parse(text, -1, "<string>", LANG_PARSE_EVAL, &errors);
  return unit != NULL;
}

/* Evaluates one expression in __main__ (user_expressions, `expr?`). Returns false with the
 * exception pending (a SyntaxError when `text` is not an expression). *out: new reference. */
static bool
eval_expression(TkLang *tk, const char *text, LangValue *out)
{
  *out = LANG_UNSET;
  g_autoptr(GPtrArray) errors = NULL;
  g_autoptr(LangModule) unit = lang_parse(text, -1, "<string>", LANG_PARSE_EVAL, &errors);
  if (!unit) {
    const LangSyntaxError *e = errors->pdata[0];
    lang_raise_syntax(
        tk->L, e->kind == LANG_SYNTAX_ERROR ? &lang_exc_SyntaxError : &lang_exc_IndentationError,
        e->message, e->filename, e->lineno, e->offset, e->end_lineno, e->end_offset, e->text);
    return false;
  }
  LangValue result = LANG_UNSET;
  if (!lang_interp_run(tk->interp, text, -1, "<string>", LANG_COMPILE_RESULT, &result)) {
    lang_decref(result);
    return false;
  }
  *out = lang_is_unset(result) ? LANG_NONE : result;
  return true;
}

/* ---- descriptions (inspect, `obj?`, help) --------------------------------------------- */

/* "(self, a, b=2)" -> "(a, b=2)": the signature of a bound method. */
static char *
drop_first_param(const char *sig)
{
  if (sig[0] != '(' || sig[1] == '*' || sig[1] == ')')
    return g_strdup(sig);
  int depth = 0;
  char quote = 0;
  const char *p = sig + 1;
  for (; *p; p++) {
    if (quote) {
      if (*p == '\\' && p[1])
        p++;
      else if (*p == quote)
        quote = 0;
    } else if (*p == '\'' || *p == '"') {
      quote = *p;
    } else if (*p == '(' || *p == '[' || *p == '{') {
      depth++;
    } else if (*p == ')' || *p == ']' || *p == '}') {
      if (depth-- == 0)
        return g_strdup("()");
    } else if (*p == ',' && depth == 0) {
      break;
    }
  }
  if (!*p)
    return g_strdup(sig);
  p++;
  while (*p == ' ')
    p++;
  if (p[0] == '/' && (p[1] == ',' || p[1] == ')')) /* "(self, /, x)": nothing positional-only */
    for (p++; *p == ',' || *p == ' ';)
      p++;
  return g_strconcat("(", p, NULL);
}

/* The last source line of a code object (its nested functions included). */
static int
code_last_line(const LangCode *code)
{
  int last = code->firstlineno;
  for (int i = 0; i < code->n_code; i++)
    last = MAX(last, code->lines[i]);
  for (int i = 0; i < code->n_consts; i++)
    if (lang_is_type(code->consts[i], &lang_code_type))
      last = MAX(last, code_last_line((const LangCode *)code->consts[i].o));
  return last;
}

/* A function's source, from the lines the VM keeps for tracebacks; NULL when unknown. */
static char *
function_source(LangState *L, const LangFunction *fn)
{
  const LangCode *code = fn->code;
  if (!L->vm.source_line)
    return NULL;
  const char *file = lang_str_data(code->filename);
  GString *out = g_string_new(NULL);
  for (int line = code->firstlineno; line <= code_last_line(code); line++) {
    const char *text = L->vm.source_line(L->vm.data, file, line);
    if (!text)
      break;
    g_string_append_printf(out, "%s%s", out->len ? "\n" : "", text);
  }
  return g_string_free(out, out->len == 0);
}

/* A str attribute of `v` (its text, transfer full), or NULL. Never leaves an exception. */
static char *
str_attr(LangState *L, LangValue v, const char *name)
{
  LangValue a = lang_getattr_opt(L, v, lang_intern(name));
  if (lang_is_exc(a)) {
    lang_exc_clear(L);
    return NULL;
  }
  char *text = lang_is_str(a) ? g_strdup(lang_str_data(a.o)) : NULL;
  lang_decref(a);
  return text;
}

/* str(v), shortened as IPython's "String form:". Never leaves an exception. */
static char *
string_form(LangState *L, LangValue v)
{
  LangValue s = lang_str(L, v);
  if (lang_is_exc(s)) {
    lang_exc_clear(L);
    return g_strdup("<str() failed>");
  }
  const char *text = lang_str_data(s.o);
  char *r;
  if (g_utf8_strlen(text, -1) > 200) {
    g_autofree char *head = g_utf8_substring(text, 0, 100);
    g_autofree char *tail =
        g_utf8_substring(text, g_utf8_strlen(text, -1) - 100, g_utf8_strlen(text, -1));
    r = g_strconcat(head, " <...> ", tail, NULL);
  } else {
    r = g_strdup(text);
  }
  lang_decref(s);
  return r;
}

/* The signature of a callable as "(a, b=2)", or NULL: a Python function's code signature, a
 * native function's (its LangMethodDef's) text signature; bound methods lose their first
 * parameter. */
static char *
signature_of(LangState *L, LangValue v)
{
  if (lang_is_type(v, &lang_function_type)) {
    LangObject *sig = ((LangFunction *)v.o)->code->signature;
    return sig ? g_strdup(lang_str_data(sig)) : NULL;
  }
  if (lang_is_type(v, &lang_method_type)) {
    g_autofree char *sig = signature_of(L, ((LangMethod *)v.o)->func);
    return sig ? drop_first_param(sig) : NULL;
  }
  if (lang_is_type(v, &lang_builtin_function_type) || lang_is_type(v, &lang_method_descr_type)) {
    g_autofree char *sig = str_attr(L, v, "__text_signature__");
    if (!sig)
      return NULL;
    LangValue self = lang_getattr_opt(L, v, lang_intern("__self__"));
    bool bound = !lang_is_exc(self) && !lang_is_unset(self) && self.tag != LANG_TAG_NONE &&
                 !lang_is_type(self, &lang_module_type);
    if (lang_is_exc(self))
      lang_exc_clear(L);
    lang_decref(self);
    return bound ? drop_first_param(sig) : g_steal_pointer(&sig);
  }
  return NULL;
}

/* A field of the description: IPython aligns the values after the longest label and puts a
 * multi-line value on the lines after its label. */
typedef struct {
  const char *label;
  char *value; /* owned */
} Field;

static void
field_add(GArray *fields, const char *label, char *value)
{
  if (value) {
    Field f = {label, value};
    g_array_append_val(fields, f);
  }
}

static void
field_clear(gpointer p)
{
  g_free(((Field *)p)->value);
}

/* The pager / inspect text of `v`, named `name` in the code: IPython's layout. */
static char *
describe(LangState *L, const char *name, LangValue v, int detail_level)
{
  g_autoptr(GArray) fields = g_array_new(FALSE, FALSE, sizeof(Field));
  g_array_set_clear_func(fields, field_clear);
  LangType *type = lang_type_of(v);
  bool is_class = lang_instance_of(v, &lang_type_type);
  g_autofree char *doc = str_attr(L, v, "__doc__");
  if (is_class) {
    /* A class: the signature of its __init__ without self (Python classes). */
    LangValue init = lang_type_lookup((LangType *)v.o, lang_intern("__init__"));
    if (!lang_is_unset(init) && lang_is_type(init, &lang_function_type)) {
      g_autofree char *sig = signature_of(L, init);
      if (sig) {
        g_autofree char *params = drop_first_param(sig);
        field_add(fields, "Init signature", g_strconcat(name, params, NULL));
      }
    }
    field_add(fields, "Docstring", g_strdup(doc ? doc : "<no docstring>"));
    field_add(fields, "Type", g_strdup(type->name));
  } else if (lang_callable(v) && !lang_is_type(v, &lang_module_type)) {
    g_autofree char *sig = signature_of(L, v);
    LangValue fn = lang_is_type(v, &lang_method_type) ? ((LangMethod *)v.o)->func : v;
    if (!sig && !lang_is_type(v, &lang_builtin_function_type)) {
      /* An instance with __call__. */
      LangValue call = lang_type_lookup(type, lang_intern("__call__"));
      if (!lang_is_unset(call) && lang_is_type(call, &lang_function_type)) {
        g_autofree char *call_sig = signature_of(L, call);
        g_autofree char *params = call_sig ? drop_first_param(call_sig) : NULL;
        if (params)
          field_add(fields, "Call signature", g_strconcat(name, params, NULL));
      }
      field_add(fields, "Type", g_strdup(type->name));
      field_add(fields, "String form", string_form(L, v));
      field_add(fields, "Docstring", g_strdup(doc ? doc : "<no docstring>"));
    } else {
      if (sig)
        field_add(fields, "Signature", g_strconcat(name, sig, NULL));
      field_add(fields, "Docstring", g_strdup(doc ? doc : "<no docstring>"));
      if (lang_is_type(fn, &lang_function_type)) {
        const LangFunction *f = (const LangFunction *)fn.o;
        if (detail_level > 0)
          field_add(fields, "Source", function_source(L, f));
        field_add(fields, "File", g_strdup(lang_str_data(f->code->filename)));
      }
      field_add(fields, "Type", g_strdup(type->name));
    }
  } else {
    field_add(fields, "Type", g_strdup(type->name));
    field_add(fields, "String form", string_form(L, v));
    int64_t n;
    if ((lang_is_str(v) || lang_instance_of(v, &lang_list_type) ||
         lang_instance_of(v, &lang_tuple_type) || lang_instance_of(v, &lang_dict_type) ||
         lang_is_set(v)) &&
        lang_len(L, v, &n))
      field_add(fields, "Length", g_strdup_printf("%" G_GINT64_FORMAT, n));
    if (lang_exc_pending(L))
      lang_exc_clear(L);
    field_add(fields, "Docstring", g_strdup(doc ? doc : "<no docstring>"));
  }
  size_t width = 0;
  for (guint i = 0; i < fields->len; i++)
    width = MAX(width, strlen(g_array_index(fields, Field, i).label) + 1);
  GString *out = g_string_new(NULL);
  for (guint i = 0; i < fields->len; i++) {
    const Field *f = &g_array_index(fields, Field, i);
    if (out->len)
      g_string_append_c(out, '\n');
    if (strchr(f->value, '\n'))
      g_string_append_printf(out, "%s:\n%s", f->label, f->value);
    else
      g_string_append_printf(out, "%s:%*s%s", f->label, (int)(width - strlen(f->label)), "",
                             f->value);
  }
  return g_string_free(out, FALSE);
}

/* Sends the description of `v` to the pager. */
static void
page_value(TkLang *tk, const char *name, LangValue v, int detail_level)
{
  g_autofree char *text = describe(tk->L, name, v, detail_level);
  g_autoptr(json_t) bundle = json_pack("{s:s}", "text/plain", text);
  if (tk->io && tk->io->page)
    tk->io->page(tk->io->ctx, bundle);
}

/* `expr?`: a dotted name is looked up, any other expression evaluated. False with the
 * exception pending when the evaluation raised. */
static bool
page_expression(TkLang *tk, const char *expr, int detail_level)
{
  LangValue v = resolve_dotted(tk, expr);
  if (lang_is_unset(v) && !is_dotted_name(expr) && !eval_expression(tk, expr, &v))
    return false;
  if (lang_is_unset(v)) {
    g_autofree char *msg = g_strdup_printf("Object `%s` not found.\n", expr);
    write_stdout(tk, msg, strlen(msg));
    return true;
  }
  page_value(tk, expr, v, detail_level);
  lang_decref(v);
  return true;
}

/* help(obj): the description of obj in the pager; help('name') looks the name up. */
static LangValue
builtin_help(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue obj = LANG_UNSET;
  if (!lang_parse_args(L, "help", args, nargs, kwnames, "request=, /", &obj))
    return LANG_EXC;
  TkLang *tk = session_of(L);
  if (!tk)
    return LANG_NONE;
  if (lang_is_unset(obj)) {
    static const char intro[] = "Type help(object) or object? for help about object.\n";
    lang_write_out(L, intro, sizeof intro - 1);
    return LANG_NONE;
  }
  if (lang_is_str(obj)) {
    const char *name = lang_str_data(obj.o);
    LangValue v = resolve_dotted(tk, name);
    if (lang_is_unset(v) && is_dotted_name(name)) {
      v = lang_import(L, name);
      if (lang_is_exc(v)) {
        lang_exc_clear(L);
        v = LANG_UNSET;
      }
    }
    if (lang_is_unset(v)) {
      g_autofree char *msg = g_strdup_printf("No Python documentation found for '%s'.\n", name);
      lang_write_out(L, msg, strlen(msg));
      return LANG_NONE;
    }
    page_value(tk, name, v, 0);
    lang_decref(v);
    return LANG_NONE;
  }
  /* The name a Signature line shows: a bound method's own name, else the qualified one. */
  g_autofree char *name =
      str_attr(L, obj, lang_is_type(obj, &lang_method_type) ? "__name__" : "__qualname__");
  page_value(tk, name ? name : lang_type_name(obj), obj, 0);
  return LANG_NONE;
}

static const LangMethodDef help_def = {
    "help", builtin_help, "(request=None, /)",
    "Show the signature and documentation of an object in the pager (as `object?`).", 0};

/* ---- cells ---------------------------------------------------------------------------- */

/* A cell whose last line is `expr?` or `expr??` (or `?expr`): the line's start, the
 * expression (transfer full) and the detail level; false for any other cell. */
static bool
find_pinfo(const char *code, size_t *line_start, char **expr, int *detail_level)
{
  size_t end = strlen(code);
  while (end > 0 && g_ascii_isspace(code[end - 1]))
    end--;
  size_t start = end;
  while (start > 0 && code[start - 1] != '\n')
    start--;
  if (start > 0 && (code[start] == ' ' || code[start] == '\t'))
    return false; /* inside a block: an ordinary (invalid) line */
  size_t b = start, e = end;
  int marks = 0;
  while (e > b && code[e - 1] == '?')
    e--, marks++;
  if (marks == 0)
    while (b < e && code[b] == '?')
      b++, marks++;
  if (marks == 0 || marks > 2)
    return false;
  g_autofree char *text = g_strstrip(g_strndup(code + b, e - b));
  if (!*text || !is_expression(text))
    return false;
  *line_start = start;
  *expr = g_steal_pointer(&text);
  *detail_level = marks - 1;
  return true;
}

static TkExecStatus
lang_execute(void *self, const TkCell *cell, const TkCellIO *io)
{
  TkLang *tk = self;
  LangState *L = tk->L;
  atomic_store(&L->interrupt, 0); /* one that raced with the end of the last cell is stale */
  tk->io = io;
  g_autofree char *filename = g_strdup_printf("<cell %d>", cell->execution_count);
  size_t pinfo_start = 0;
  g_autofree char *pinfo = NULL;
  int detail_level = 0;
  bool ok;
  lang_interp_cell_begin(tk->interp, cell->execution_count, cell->code, -1);
  if (find_pinfo(cell->code, &pinfo_start, &pinfo, &detail_level)) {
    ok = true;
    if (pinfo_start > 0)
      ok = lang_interp_run(tk->interp, cell->code, (gssize)pinfo_start, filename, 0, NULL);
    ok = ok && page_expression(tk, pinfo, detail_level);
  } else {
    LangValue result = LANG_UNSET;
    ok = lang_interp_run(tk->interp, cell->code, -1, filename, LANG_COMPILE_RESULT, &result);
    if (ok && !lang_is_unset(result) && result.tag != LANG_TAG_NONE) {
      g_autoptr(json_t) bundle = mime_bundle(L, result);
      if (bundle)
        io->result(io->ctx, bundle, NULL);
      ok = bundle != NULL;
    }
    lang_decref(result);
  }
  if (!ok)
    report_exception(tk, io);
  lang_interp_cell_end(tk->interp, ok);
  tk->io = NULL;
  return ok ? TK_EXEC_OK : TK_EXEC_ERROR;
}

static json_t *
lang_evaluate(void *self, const char *expression, char **ename, char **evalue)
{
  TkLang *tk = self;
  atomic_store(&tk->L->interrupt, 0);
  const TkCellIO *saved = tk->io;
  tk->io = NULL; /* must not print */
  LangValue v;
  json_t *bundle = NULL;
  if (eval_expression(tk, expression, &v)) {
    bundle = mime_bundle(tk->L, v);
    lang_decref(v);
  }
  if (!bundle)
    take_exception(tk->L, ename, evalue, NULL);
  tk->io = saved;
  return bundle;
}

/* ---- completion ----------------------------------------------------------------------- */

static const char *const keywords[] = {
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield",
};

static void
add_dict_keys(GPtrArray *names, LangObject *dict)
{
  if (!dict)
    return;
  int64_t pos = 0;
  LangValue key, value;
  while (lang_dict_next(dict, &pos, &key, &value))
    if (lang_is_str(key))
      g_ptr_array_add(names, g_strdup(lang_str_data(key.o)));
}

static void
add_type_names(GPtrArray *names, LangType *t)
{
  for (; t; t = t->base_type)
    add_dict_keys(names, t->dict);
}

/* The attribute names of `obj`: its instance dict (a module's namespace) and the dicts of its
 * type's MRO; for a class, its own MRO's dicts too. */
static void
add_attribute_names(GPtrArray *names, LangValue obj)
{
  if (lang_is_type(obj, &lang_module_type)) {
    add_dict_keys(names, lang_module_dict(obj));
    return;
  }
  LangObject **dict = lang_instance_dict_ptr(obj);
  if (dict)
    add_dict_keys(names, *dict);
  if (lang_instance_of(obj, &lang_type_type))
    add_type_names(names, (LangType *)obj.o);
  add_type_names(names, lang_type_of(obj));
}

static void
add_module_names(GPtrArray *names, LangState *L)
{
  add_dict_keys(names, L->modules);
  if (L->native_modules) {
    GHashTableIter it;
    gpointer key;
    g_hash_table_iter_init(&it, L->native_modules);
    while (g_hash_table_iter_next(&it, &key, NULL))
      g_ptr_array_add(names, g_strdup(key));
  }
}

/* `module.attr` in a cell that imports the module but has not run yet: the module's members
 * (importing it, as the cell will). New reference or LANG_UNSET. */
static LangValue
resolve_imported(TkLang *tk, const char *code, const char *dotted)
{
  if (!is_dotted_name(dotted))
    return LANG_UNSET;
  g_auto(GStrv) parts = g_strsplit(dotted, ".", -1);
  g_autofree char *pattern = g_strdup_printf("(^|[\\s;])import\\s+%s\\s*($|[\\s;,])", parts[0]);
  if (!g_regex_match_simple(pattern, code, G_REGEX_MULTILINE, 0))
    return LANG_UNSET;
  LangValue v = lang_import(tk->L, parts[0]);
  if (lang_is_exc(v)) {
    lang_exc_clear(tk->L);
    return LANG_UNSET;
  }
  return getattr_chain(tk->L, v, parts + 1);
}

static int
compare_names(gconstpointer a, gconstpointer b)
{
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void
lang_complete(void *self, const char *code, size_t cursor, TkCompletion *out)
{
  TkLang *tk = self;
  LangState *L = tk->L;
  size_t start = cursor;
  while (start > 0 && is_ident_byte(code[start - 1]))
    start--;
  out->start = start;
  out->end = cursor;
  if (g_ascii_isdigit(code[start]))
    return; /* a number */
  g_autofree char *prefix = g_strndup(code + start, cursor - start);
  size_t line = start;
  while (line > 0 && code[line - 1] != '\n')
    line--;
  g_autofree char *before = g_strndup(code + line, start - line);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GMatchInfo) from = NULL;
  static GRegex *from_import, *import;
  if (!from_import) {
    from_import = g_regex_new("^\\s*from\\s+([\\w.]+)\\s+import\\s+([\\w]+\\s*,\\s*)*$",
                              G_REGEX_OPTIMIZE, 0, NULL);
    import = g_regex_new("^\\s*(import\\s+([\\w.]+(\\s+as\\s+\\w+)?\\s*,\\s*)*|from\\s+)$",
                         G_REGEX_OPTIMIZE, 0, NULL);
  }
  if (g_regex_match(from_import, before, 0, &from)) {
    /* from MODULE import NAME */
    g_autofree char *module = g_match_info_fetch(from, 1);
    LangValue m = lang_import(L, module);
    if (lang_is_exc(m))
      lang_exc_clear(L);
    else
      add_attribute_names(names, m);
    lang_decref(m);
  } else if (g_regex_match(import, before, 0, NULL)) {
    add_module_names(names, L); /* import NAME, from NAME */
  } else if (start > 0 && code[start - 1] == '.') {
    /* obj.NAME: the dotted name before the dot, looked up (no calls, no subscripts) */
    size_t s = start - 1;
    while (s > 0 && (is_ident_byte(code[s - 1]) || code[s - 1] == '.'))
      s--;
    g_autofree char *base = g_strndup(code + s, start - 1 - s);
    LangValue obj = resolve_dotted(tk, base);
    if (lang_is_unset(obj))
      obj = resolve_imported(tk, code, base);
    if (!lang_is_unset(obj))
      add_attribute_names(names, obj);
    lang_decref(obj);
  } else {
    add_dict_keys(names, lang_interp_globals(tk->interp));
    add_dict_keys(names, L->builtins);
    for (size_t i = 0; i < G_N_ELEMENTS(keywords); i++)
      g_ptr_array_add(names, g_strdup(keywords[i]));
  }
  g_ptr_array_sort(names, compare_names);
  const char *last = NULL;
  for (guint i = 0; i < names->len; i++) {
    const char *name = names->pdata[i];
    if (!g_str_has_prefix(name, prefix) || (name[0] == '_' && prefix[0] != '_') ||
        g_strcmp0(name, last) == 0)
      continue;
    g_ptr_array_add(out->matches, g_strdup(name));
    last = name;
  }
}

/* ---- inspection ----------------------------------------------------------------------- */

/* The dotted name around byte `cursor`, or the callable of the innermost call the cursor is in
 * (IPython's token_at_cursor gives calls the priority). Transfer full; NULL if none. */
static char *
name_at_cursor(const char *code, size_t cursor)
{
  int depth = 0;
  for (size_t i = cursor; i > 0; i--) {
    char c = code[i - 1];
    if (c == ')' || c == ']' || c == '}') {
      depth++;
    } else if (c == '[' || c == '{') {
      depth--;
    } else if (c == '(' && depth-- == 0) {
      size_t e = i - 1;
      while (e > 0 && (code[e - 1] == ' ' || code[e - 1] == '\t'))
        e--;
      size_t s = e;
      while (s > 0 && (is_ident_byte(code[s - 1]) || code[s - 1] == '.'))
        s--;
      if (s < e && !g_ascii_isdigit(code[s]))
        return g_strndup(code + s, e - s);
      break;
    }
    if (depth < 0)
      break;
  }
  size_t s = cursor, e = cursor;
  while (s > 0 && (is_ident_byte(code[s - 1]) || code[s - 1] == '.'))
    s--;
  while (is_ident_byte(code[e]))
    e++;
  while (s < e && code[s] == '.')
    s++;
  return s < e ? g_strndup(code + s, e - s) : NULL;
}

static json_t *
lang_inspect(void *self, const char *code, size_t cursor, int detail_level)
{
  TkLang *tk = self;
  g_autofree char *name = name_at_cursor(code, cursor);
  if (!name)
    return NULL;
  LangValue v = resolve_dotted(tk, name);
  if (lang_is_unset(v))
    return NULL;
  g_autofree char *text = describe(tk->L, name, v, detail_level);
  lang_decref(v);
  return json_pack("{s:s}", "text/plain", text);
}

static TkCompleteness
lang_is_complete(void *self, const char *code, char **indent)
{
  int n = 0;
  switch (lang_parse_is_complete(code, -1, &n)) {
    case LANG_COMPLETE:
      return TK_COMPLETE;
    case LANG_INCOMPLETE:
      *indent = g_strnfill((gsize)MAX(n, 0), ' ');
      return TK_INCOMPLETE;
    case LANG_INVALID: {
      size_t start;
      g_autofree char *expr = NULL;
      int detail;
      if (find_pinfo(code, &start, &expr, &detail)) /* `obj?` */
        return TK_COMPLETE;
      return TK_INVALID;
    }
  }
  return TK_UNKNOWN;
}

/* ---- the session ---------------------------------------------------------------------- */

static void
session_start(TkLang *tk)
{
  LangInterp *interp = lang_interp_new(NULL);
  LangState *L = lang_interp_state(interp);
  /* Before anything touches tf: the session emits on the kernel's bus. */
  if (tk->bus)
    lang_tf_use_event_bus(L, tk->bus);
  g_mutex_lock(&tk->lock);
  tk->interp = interp;
  tk->L = L;
  g_mutex_unlock(&tk->lock);
  lang_state_set_stdout(L, write_stdout, tk);
  lang_state_set_stderr(L, write_stderr, tk);
  L->input = read_line;
  L->input_data = tk;
  lang_interp_set_frontend(tk->interp, &(LangFrontend){.display = frontend_display,
                                                       .clear_output = frontend_clear_output,
                                                       .data = tk});
  LangValue help = lang_native_function_new(L, &help_def, LANG_UNSET, "builtins");
  lang_dict_set_cstr(L, L->builtins, "help", help);
  lang_decref(help);
  if (!sessions)
    sessions = g_hash_table_new(NULL, NULL);
  g_hash_table_insert(sessions, L, tk);
}

static void
session_stop(TkLang *tk)
{
  g_hash_table_remove(sessions, tk->L);
  if (g_hash_table_size(sessions) == 0)
    g_clear_pointer(&sessions, g_hash_table_unref);
  g_mutex_lock(&tk->lock);
  LangInterp *interp = tk->interp;
  tk->interp = NULL;
  tk->L = NULL;
  g_mutex_unlock(&tk->lock);
  lang_interp_free(interp);
}

static void
lang_interrupt(void *self)
{
  TkLang *tk = self;
  lang_state_interrupt(tk->L);
}

static void
lang_reset(void *self)
{
  TkLang *tk = self;
  /* run_functions_eagerly is the process's setting in TensorFlow: it survives the reset. */
  bool eager = tk->bus && tr_fn_registry_get_run_eagerly(lang_tf_registry(tk->L));
  session_stop(tk);
  session_start(tk);
  if (eager)
    tr_fn_registry_set_run_eagerly(lang_tf_registry(tk->L), true);
}

static void
lang_use_events(void *self, TrEventBus *bus)
{
  TkLang *tk = self;
  g_return_if_fail(tk->bus == NULL);
  tk->bus = tr_event_bus_ref(bus);
  if (!lang_tf_use_event_bus(tk->L, bus))
    g_warning("trellis-kernel: the session used tf before the kernel's event bus was set");
}

static void
lang_set_eager(void *self, bool on)
{
  TkLang *tk = self;
  g_mutex_lock(&tk->lock);
  if (tk->L)
    tr_fn_registry_set_run_eagerly(lang_tf_registry(tk->L), on);
  g_mutex_unlock(&tk->lock);
}

static void
lang_free(void *self)
{
  TkLang *tk = self;
  session_stop(tk);
  if (tk->bus)
    tr_event_bus_unref(tk->bus);
  g_mutex_clear(&tk->lock);
  g_free(tk);
}

gboolean
tk_lang_interp_init(TkInterp *interp, GError **error)
{
  TkLang *tk = g_new0(TkLang, 1);
  g_mutex_init(&tk->lock);
  session_start(tk);
  *interp = (TkInterp){
      .self = tk,
      .language_version = "3.11",
      .implementation_version = TK_VERSION,
      .banner = "Trellis " TK_VERSION " — traced functions, shown (a Python 3.11 subset)",
      .execute = lang_execute,
      .evaluate = lang_evaluate,
      .complete = lang_complete,
      .inspect = lang_inspect,
      .is_complete = lang_is_complete,
      .interrupt = lang_interrupt,
      .reset = lang_reset,
      .use_events = lang_use_events,
      .set_eager = lang_set_eager,
      .free = lang_free,
  };
  return TRUE;
}
