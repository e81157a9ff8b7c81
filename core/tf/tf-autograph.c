/* tf-autograph.c — AutoGraph's converter: a Python function's source rewritten, as TensorFlow
 * rewrites it, into code that calls the operators of tf-control.c (SPEC §3.3, DESIGN "A call of
 * a traced Function").
 *
 * The source comes from inspect (linecache, so notebook cells work too) and is parsed with
 * Python's own `ast` module; the rewriting is done here, node by node, through the C API:
 * - `break` and `continue` become flag variables (`break_ = True`) and the statements after
 *   them run under `if not break_:`; a `return` inside a block becomes `do_return = True;
 *   retval_ = value` and the function ends with `return ag__.retval(retval_)`. Loops that can be
 *   left that way carry the flags into their test (TF's extra_test).
 * - `if`, `while` and `for` become calls of ag__.if_stmt, while_stmt and for_stmt, with their
 *   blocks as nested functions and the names each block assigns as its state: get_state and
 *   set_state closures over them, `nonlocal` in every generated function.
 * - `and`, `or`, `not` and `len()` become ag__.and_, or_, not_ and len_; every other call
 *   becomes ag__.converted_call(f, args, kwargs), which converts user functions when they are
 *   called. `print` stays Python's.
 * The new nodes take the locations of the statements they replace, and the code is compiled
 * under the original file name: tracebacks of converted code show the user's lines (the source
 * map). The converted function shares the original's globals and closure cells, so it sees
 * later rebinding of both; its code object is cached per original code object (st->ag_cache).
 */
#include "tf-private.h"

#include <stdarg.h>
#include <string.h>

/* ---- the converter's context ---------------------------------------------------------------- */

typedef struct {
  TfState *st;
  PyObject *ast;      /* the ast module (owned) */
  PyObject *ast_type; /* ast.AST (owned) */
  PyObject *empty;    /* () (owned) */
  PyObject *load;     /* ast.Load() (owned) */
  PyObject *store;    /* ast.Store() (owned) */
  PyObject *used;     /* set: every identifier of the function and each name made (owned) */
  PyObject *globals;  /* set: names the function being converted declares global (owned) */
} Conv;

static void
conv_clear(Conv *c)
{
  Py_CLEAR(c->ast);
  Py_CLEAR(c->ast_type);
  Py_CLEAR(c->empty);
  Py_CLEAR(c->load);
  Py_CLEAR(c->store);
  Py_CLEAR(c->used);
  Py_CLEAR(c->globals);
}

static bool
conv_init(Conv *c, TfState *st)
{
  memset(c, 0, sizeof *c);
  c->st = st;
  c->ast = PyImport_ImportModule("ast");
  if (!c->ast)
    return false;
  c->ast_type = PyObject_GetAttrString(c->ast, "AST");
  c->empty = PyTuple_New(0);
  c->load = PyObject_CallMethod(c->ast, "Load", NULL);
  c->store = PyObject_CallMethod(c->ast, "Store", NULL);
  c->used = PySet_New(NULL);
  c->globals = PySet_New(NULL);
  if (!c->ast_type || !c->empty || !c->load || !c->store || !c->used || !c->globals) {
    conv_clear(c);
    return false;
  }
  return true;
}

/* ---- node kinds ----------------------------------------------------------------------------- */

static bool
is_node(Conv *c, PyObject *v)
{
  return PyObject_TypeCheck(v, (PyTypeObject *)c->ast_type);
}

/* The class name of an AST node ("If"). */
static const char *
kind(PyObject *node)
{
  const char *name = Py_TYPE(node)->tp_name;
  const char *dot = strrchr(name, '.');
  return dot ? dot + 1 : name;
}

static bool
is(PyObject *node, const char *k)
{
  return strcmp(kind(node), k) == 0;
}

static bool
is_any(PyObject *node, const char *const *kinds)
{
  for (; *kinds; kinds++)
    if (is(node, *kinds))
      return true;
  return false;
}

static const char *const scope_kinds[] = {"FunctionDef", "AsyncFunctionDef", "ClassDef",
                                          "Lambda",      "GeneratorExp",     "ListComp",
                                          "SetComp",     "DictComp",         NULL};
static const char *const loop_kinds[] = {"For", "While", "AsyncFor", NULL};

static bool
is_expr(Conv *c, PyObject *v)
{
  PyObject *expr = PyObject_GetAttrString(c->ast, "expr");
  bool r = expr && PyObject_TypeCheck(v, (PyTypeObject *)expr);
  Py_XDECREF(expr);
  PyErr_Clear();
  return r;
}

static bool
is_stmt(Conv *c, PyObject *v)
{
  PyObject *stmt = PyObject_GetAttrString(c->ast, "stmt");
  bool r = stmt && PyObject_TypeCheck(v, (PyTypeObject *)stmt);
  Py_XDECREF(stmt);
  PyErr_Clear();
  return r;
}

/* ---- building nodes ------------------------------------------------------------------------
 * Every builder steals the references it is given (NULL allowed: an earlier failure, whose
 * exception is set) and returns a new reference or NULL. */

/* ast.<type>(key=value, ...): NULL-terminated key/value pairs, values stolen. */
static PyObject *
mk(Conv *c, const char *type, ...)
{
  va_list ap;
  va_start(ap, type);
  PyObject *kwargs = PyDict_New();
  bool ok = kwargs != NULL;
  for (const char *key; (key = va_arg(ap, const char *));) {
    PyObject *v = va_arg(ap, PyObject *);
    if (ok && (!v || PyDict_SetItemString(kwargs, key, v) < 0))
      ok = false;
    Py_XDECREF(v);
  }
  va_end(ap);
  PyObject *node = NULL;
  if (ok) {
    PyObject *cls = PyObject_GetAttrString(c->ast, type);
    node = cls ? PyObject_Call(cls, c->empty, kwargs) : NULL;
    Py_XDECREF(cls);
  }
  Py_XDECREF(kwargs);
  return node;
}

/* A list of n items (stolen). */
static PyObject *
lst(int n, ...)
{
  va_list ap;
  va_start(ap, n);
  PyObject *l = PyList_New(n);
  bool ok = l != NULL;
  for (int i = 0; i < n; i++) {
    PyObject *v = va_arg(ap, PyObject *);
    if (ok && v)
      PyList_SET_ITEM(l, i, v);
    else {
      ok = false;
      Py_XDECREF(v);
    }
  }
  va_end(ap);
  if (!ok)
    Py_CLEAR(l);
  return l;
}

static PyObject *
str(const char *s)
{
  return PyUnicode_FromString(s);
}

static PyObject *
none(void)
{
  return Py_NewRef(Py_None);
}

static PyObject *
name_obj(Conv *c, PyObject *id, bool store)
{
  return mk(c, "Name", "id", id, "ctx", Py_NewRef(store ? c->store : c->load), NULL);
}

static PyObject *
name(Conv *c, const char *id, bool store)
{
  return name_obj(c, str(id), store);
}

static PyObject *
constant(Conv *c, PyObject *value)
{
  return mk(c, "Constant", "value", value, NULL);
}

/* ag__.<attr> */
static PyObject *
ag_attr(Conv *c, const char *attr)
{
  return mk(c, "Attribute", "value", name(c, "ag__", false), "attr", str(attr), "ctx",
            Py_NewRef(c->load), NULL);
}

static PyObject *
call(Conv *c, PyObject *func, PyObject *args)
{
  return mk(c, "Call", "func", func, "args", args, "keywords", PyList_New(0), NULL);
}

static PyObject *
expr_stmt(Conv *c, PyObject *value)
{
  return mk(c, "Expr", "value", value, NULL);
}

static PyObject *
assign(Conv *c, PyObject *target_id, PyObject *value)
{
  return mk(c, "Assign", "targets", lst(1, name_obj(c, target_id, true)), "value", value,
            "type_comment", none(), NULL);
}

/* arguments() with the positional parameters named in `params` (a list of str, stolen; NULL:
 * none). */
static PyObject *
arguments(Conv *c, PyObject *params)
{
  PyObject *args = PyList_New(0);
  if (params && args) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(params); i++) {
      PyObject *a = mk(c, "arg", "arg", Py_NewRef(PyList_GET_ITEM(params, i)), "annotation", none(),
                       "type_comment", none(), NULL);
      if (!a || PyList_Append(args, a) < 0) {
        Py_XDECREF(a);
        Py_CLEAR(args);
        break;
      }
      Py_DECREF(a);
    }
  }
  Py_XDECREF(params);
  return mk(c, "arguments", "posonlyargs", PyList_New(0), "args", args, "vararg", none(),
            "kwonlyargs", PyList_New(0), "kw_defaults", PyList_New(0), "kwarg", none(), "defaults",
            PyList_New(0), NULL);
}

static PyObject *
lambda0(Conv *c, PyObject *body)
{
  return mk(c, "Lambda", "args", arguments(c, NULL), "body", body, NULL);
}

static PyObject *
func_def(Conv *c, PyObject *fname, PyObject *params, PyObject *body)
{
  return mk(c, "FunctionDef", "name", fname, "args", arguments(c, params), "body", body,
            "decorator_list", PyList_New(0), "returns", none(), "type_comment", none(), NULL);
}

/* `node` (stolen) at the start of `like`'s location. The new node ends where it starts: a
 * method call's line is where its attribute ends, and tracebacks should show the line of the
 * statement the node stands for, not the last line of its block. */
static PyObject *
located(Conv *c, PyObject *node, PyObject *like)
{
  if (!node)
    return NULL;
  PyObject *r = PyObject_CallMethod(c->ast, "copy_location", "OO", node, like);
  Py_DECREF(node);
  /* Generated code spans its first line to the end: a traceback shows the user's line without
   * carets (the extent of `like`, a whole block, would say nothing; an empty one would draw a
   * caret line of blanks). Columns past the line's end stand for its end. */
  PyObject *line = r ? PyObject_GetAttrString(r, "lineno") : NULL;
  PyObject *end = line ? PyLong_FromLong(1L << 20) : NULL;
  if (!end || PyObject_SetAttrString(r, "end_lineno", line) < 0 ||
      PyObject_SetAttrString(r, "end_col_offset", end) < 0)
    PyErr_Clear(); /* a node without a location gets its parent's */
  Py_XDECREF(line);
  Py_XDECREF(end);
  return r;
}

/* Appends `node` (stolen) to `out`. */
static bool
append(PyObject *out, PyObject *node)
{
  if (!node)
    return false;
  int r = PyList_Append(out, node);
  Py_DECREF(node);
  return r == 0;
}

/* A name not used in the function yet, made from `base` as TF makes them ("if_body",
 * "if_body_1"). New reference. */
static PyObject *
unique(Conv *c, const char *base)
{
  for (int i = 0;; i++) {
    PyObject *s = i ? PyUnicode_FromFormat("%s_%d", base, i) : str(base);
    if (!s)
      return NULL;
    int has = PySet_Contains(c->used, s);
    if (has == 0 && PySet_Add(c->used, s) == 0)
      return s;
    Py_DECREF(s);
    if (has < 0)
      return NULL;
  }
}

/* A field of a node (new reference; NULL with an exception when absent). */
static PyObject *
field(PyObject *node, const char *f)
{
  return PyObject_GetAttrString(node, f);
}

/* Sets a field to `v` (stolen). */
static bool
set_field(PyObject *node, const char *f, PyObject *v)
{
  if (!v)
    return false;
  int r = PyObject_SetAttrString(node, f, v);
  Py_DECREF(v);
  return r == 0;
}

/* ---- names ---------------------------------------------------------------------------------- */

/* Every identifier in `tree`, into c->used. */
static bool
collect_identifiers(Conv *c, PyObject *tree)
{
  PyObject *walk = PyObject_CallMethod(c->ast, "walk", "O", tree);
  PyObject *it = walk ? PyObject_GetIter(walk) : NULL;
  Py_XDECREF(walk);
  if (!it)
    return false;
  static const char *const attrs[] = {"id", "arg", "name", "asname", NULL};
  bool ok = true;
  for (PyObject *n; ok && (n = PyIter_Next(it));) {
    for (int i = 0; ok && attrs[i]; i++) {
      PyObject *v = PyObject_GetAttrString(n, attrs[i]);
      if (!v)
        PyErr_Clear();
      else if (PyUnicode_Check(v))
        ok = PySet_Add(c->used, v) == 0;
      Py_XDECREF(v);
    }
    if (ok && (is(n, "Global") || is(n, "Nonlocal"))) {
      PyObject *names = field(n, "names");
      for (Py_ssize_t i = 0; ok && names && i < PyList_GET_SIZE(names); i++)
        ok = PySet_Add(c->used, PyList_GET_ITEM(names, i)) == 0;
      Py_XDECREF(names);
    }
    Py_DECREF(n);
  }
  Py_DECREF(it);
  return ok && !PyErr_Occurred();
}

/* Adds `id` to the ordered set `out` (a dict) unless it is declared global. */
static bool
add_name(Conv *c, PyObject *out, PyObject *id)
{
  int global = PySet_Contains(c->globals, id);
  if (global < 0)
    return false;
  return global || PyDict_SetItem(out, id, Py_None) == 0;
}

static bool assigned_walk(Conv *c, PyObject *node, PyObject *out);

static bool
assigned_fields(Conv *c, PyObject *node, PyObject *out)
{
  PyObject *fields = field(node, "_fields");
  if (!fields)
    return false;
  bool ok = true;
  for (Py_ssize_t i = 0; ok && i < PyTuple_GET_SIZE(fields); i++) {
    PyObject *v = PyObject_GetAttr(node, PyTuple_GET_ITEM(fields, i));
    if (!v) {
      PyErr_Clear();
      continue;
    }
    ok = assigned_walk(c, v, out);
    Py_DECREF(v);
  }
  Py_DECREF(fields);
  return ok;
}

/* Names a statement or expression binds in the function's scope: stores and deletions, nested
 * def and class names, imports, exception names; not inside nested scopes. */
static bool
assigned_walk(Conv *c, PyObject *node, PyObject *out)
{
  if (PyList_Check(node)) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(node); i++)
      if (!assigned_walk(c, PyList_GET_ITEM(node, i), out))
        return false;
    return true;
  }
  if (!is_node(c, node))
    return true;
  if (is(node, "Name")) {
    PyObject *ctx = field(node, "ctx");
    bool binds = ctx && (is(ctx, "Store") || is(ctx, "Del"));
    Py_XDECREF(ctx);
    if (!binds)
      return !PyErr_Occurred();
    PyObject *id = field(node, "id");
    bool ok = id && add_name(c, out, id);
    Py_XDECREF(id);
    return ok;
  }
  if (is(node, "FunctionDef") || is(node, "AsyncFunctionDef") || is(node, "ClassDef")) {
    PyObject *id = field(node, "name");
    bool ok = id && add_name(c, out, id);
    Py_XDECREF(id);
    return ok;
  }
  if (is_any(node, scope_kinds))
    return true;
  if (is(node, "Import") || is(node, "ImportFrom")) {
    PyObject *names = field(node, "names");
    bool ok = names != NULL;
    for (Py_ssize_t i = 0; ok && i < PyList_GET_SIZE(names); i++) {
      PyObject *alias = PyList_GET_ITEM(names, i);
      PyObject *as = field(alias, "asname"), *full = field(alias, "name");
      ok = as && full;
      if (ok && as == Py_None && PyUnicode_CompareWithASCIIString(full, "*") != 0) {
        PyObject *parts = PyUnicode_Split(full, PyUnicode_FromString("."), 1);
        ok = parts && add_name(c, out, PyList_GET_ITEM(parts, 0));
        Py_XDECREF(parts);
      } else if (ok && as != Py_None) {
        ok = add_name(c, out, as);
      }
      Py_XDECREF(as);
      Py_XDECREF(full);
    }
    Py_XDECREF(names);
    return ok;
  }
  if (is(node, "ExceptHandler")) {
    PyObject *id = field(node, "name");
    bool ok = id && (id == Py_None || add_name(c, out, id));
    Py_XDECREF(id);
    if (!ok)
      return false;
  }
  return assigned_fields(c, node, out);
}

/* The names `node` (a statement or a list of them) assigns, as a list in order of appearance.
 * New reference. */
static PyObject *
assigned_names(Conv *c, PyObject *node)
{
  PyObject *out = PyDict_New();
  if (!out)
    return NULL;
  if (!assigned_walk(c, node, out)) {
    Py_DECREF(out);
    return NULL;
  }
  PyObject *l = PyDict_Keys(out);
  Py_DECREF(out);
  return l;
}

/* ---- break, continue and return as flags ---------------------------------------------------- */

/* Whether `node` (statements) contains a statement of kind `what`, outside nested scopes and,
 * unless `into_loops`, outside nested loops. -1 on error. */
static int
contains(Conv *c, PyObject *node, const char *what, bool into_loops)
{
  if (PyList_Check(node)) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(node); i++) {
      int r = contains(c, PyList_GET_ITEM(node, i), what, into_loops);
      if (r)
        return r;
    }
    return 0;
  }
  if (!is_node(c, node) || is_expr(c, node))
    return 0;
  if (is(node, what))
    return 1;
  if (is_any(node, scope_kinds) || (!into_loops && is_any(node, loop_kinds)))
    return 0;
  static const char *const blocks[] = {"body", "orelse", "finalbody", "handlers", "cases", NULL};
  for (int i = 0; blocks[i]; i++) {
    PyObject *v = PyObject_GetAttrString(node, blocks[i]);
    if (!v) {
      PyErr_Clear();
      continue;
    }
    int r = contains(c, v, what, into_loops);
    Py_DECREF(v);
    if (r)
      return r;
  }
  return 0;
}

/* `if not flag: rest` (rest stolen), at rest[0]'s location. */
static PyObject *
guard(Conv *c, PyObject *flag, PyObject *rest)
{
  if (!rest)
    return NULL;
  PyObject *test = mk(c, "UnaryOp", "op", mk(c, "Not", NULL), "operand",
                      name_obj(c, Py_NewRef(flag), false), NULL);
  PyObject *node =
      located(c, mk(c, "If", "test", test, "body", rest, "orelse", PyList_New(0), NULL),
              PyList_GET_ITEM(rest, 0));
  /* Names the guarded statements bind are not needed where the flag is set (the function
   * returned, the iteration ended): if_stmt lets them stay undefined there. */
  if (node && PyObject_SetAttrString(node, "ag_guard", Py_True) < 0)
    Py_CLEAR(node);
  return node;
}

/* Records on a loop node that its test must also check `not flag` (the node's `ag_extra`). */
static bool
add_extra_test(PyObject *loop, PyObject *flag)
{
  PyObject *extra = PyObject_GetAttrString(loop, "ag_extra");
  if (!extra) {
    PyErr_Clear();
    extra = PyList_New(0);
    if (!extra || PyObject_SetAttrString(loop, "ag_extra", extra) < 0) {
      Py_XDECREF(extra);
      return false;
    }
  }
  int r = PyList_Append(extra, flag);
  Py_DECREF(extra);
  return r == 0;
}

static PyObject *lower_block(Conv *c, PyObject *stmts, const char *what, PyObject *flag,
                             PyObject *retval);

/* Lowers `what` inside the blocks of compound statement `s`, in place. */
static bool
lower_inner(Conv *c, PyObject *s, const char *what, PyObject *flag, PyObject *retval)
{
  static const char *const blocks[] = {"body", "orelse", "finalbody", NULL};
  for (int i = 0; blocks[i]; i++) {
    PyObject *v = PyObject_GetAttrString(s, blocks[i]);
    if (!v) {
      PyErr_Clear();
      continue;
    }
    bool ok = !PyList_Check(v) || set_field(s, blocks[i], lower_block(c, v, what, flag, retval));
    Py_DECREF(v);
    if (!ok)
      return false;
  }
  static const char *const lists[] = {"handlers", "cases", NULL};
  for (int i = 0; lists[i]; i++) {
    PyObject *v = PyObject_GetAttrString(s, lists[i]);
    if (!v) {
      PyErr_Clear();
      continue;
    }
    bool ok = true;
    for (Py_ssize_t k = 0; ok && k < PyList_GET_SIZE(v); k++)
      ok = lower_inner(c, PyList_GET_ITEM(v, k), what, flag, retval);
    Py_DECREF(v);
    if (!ok)
      return false;
  }
  /* A return inside a loop ends it: the loop's test checks do_return. */
  if (strcmp(what, "Return") == 0 && is_any(s, loop_kinds))
    return add_extra_test(s, flag);
  return true;
}

/* `stmts` with each `what` statement replaced by setting `flag` (and, for a return, `retval`),
 * and the statements after one that may have set it guarded by `if not flag`. New list. */
static PyObject *
lower_block(Conv *c, PyObject *stmts, const char *what, PyObject *flag, PyObject *retval)
{
  bool is_return = strcmp(what, "Return") == 0;
  PyObject *out = PyList_New(0);
  if (!out)
    return NULL;
  Py_ssize_t n = PyList_GET_SIZE(stmts);
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *s = PyList_GET_ITEM(stmts, i);
    if (is(s, what)) {
      bool ok =
          append(out, located(c, assign(c, Py_NewRef(flag), constant(c, Py_NewRef(Py_True))), s));
      if (ok && is_return) {
        PyObject *value = field(s, "value");
        if (value == Py_None) {
          Py_DECREF(value);
          value = constant(c, none());
        }
        ok = append(out, located(c, assign(c, Py_NewRef(retval), value), s));
      }
      if (!ok)
        Py_CLEAR(out);
      return out; /* what follows cannot run */
    }
    int r = contains(c, s, what, is_return);
    if (r < 0 || PyList_Append(out, s) < 0 || (r && !lower_inner(c, s, what, flag, retval))) {
      Py_DECREF(out);
      return NULL;
    }
    if (r && i + 1 < n) {
      PyObject *rest = PyList_GetSlice(stmts, i + 1, n);
      PyObject *lowered = rest ? lower_block(c, rest, what, flag, retval) : NULL;
      Py_XDECREF(rest);
      bool ok = lowered != NULL;
      if (ok && PyList_GET_SIZE(lowered) > 0)
        ok = append(out, guard(c, flag, lowered));
      else
        Py_XDECREF(lowered);
      if (!ok)
        Py_CLEAR(out);
      return out;
    }
  }
  return out;
}

/* The loops of `stmts` (recursively, not into nested scopes) with break and continue lowered
 * to flags. New list. */
static PyObject *
lower_loops(Conv *c, PyObject *stmts)
{
  PyObject *out = PyList_New(0);
  if (!out)
    return NULL;
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(stmts); i++) {
    PyObject *s = PyList_GET_ITEM(stmts, i);
    bool ok = true;
    if (!is_any(s, scope_kinds) && !is_expr(c, s)) {
      static const char *const blocks[] = {"body", "orelse", "finalbody", NULL};
      for (int k = 0; ok && blocks[k]; k++) {
        PyObject *v = PyObject_GetAttrString(s, blocks[k]);
        if (!v) {
          PyErr_Clear();
          continue;
        }
        ok = !PyList_Check(v) || set_field(s, blocks[k], lower_loops(c, v));
        Py_DECREF(v);
      }
      PyObject *handlers = PyObject_GetAttrString(s, "handlers");
      if (!handlers)
        PyErr_Clear();
      for (Py_ssize_t k = 0; ok && handlers && k < PyList_GET_SIZE(handlers); k++) {
        PyObject *h = PyList_GET_ITEM(handlers, k);
        PyObject *body = field(h, "body");
        ok = body && set_field(h, "body", lower_loops(c, body));
        Py_XDECREF(body);
      }
      Py_XDECREF(handlers);
    }
    PyObject *after = NULL; /* the loop's else part, when break skips it */
    if (ok && is_any(s, loop_kinds) && !is(s, "AsyncFor")) {
      PyObject *body = field(s, "body");
      int cont = body ? contains(c, body, "Continue", false) : -1;
      ok = cont >= 0;
      if (ok && cont) {
        PyObject *flag = unique(c, "continue_");
        PyObject *lowered = flag ? lower_block(c, body, "Continue", flag, NULL) : NULL;
        PyObject *init =
            flag ? located(c, assign(c, Py_NewRef(flag), constant(c, Py_NewRef(Py_False))), s)
                 : NULL;
        ok = lowered && init && PyList_Insert(lowered, 0, init) == 0 &&
             set_field(s, "body", Py_NewRef(lowered));
        Py_XDECREF(lowered);
        Py_XDECREF(init);
        Py_XDECREF(flag);
        Py_XDECREF(body);
        body = ok ? field(s, "body") : NULL;
        ok = body != NULL;
      }
      int brk = ok ? contains(c, body, "Break", false) : -1;
      ok = ok && brk >= 0;
      if (ok && brk) {
        PyObject *flag = unique(c, "break_");
        ok = flag && set_field(s, "body", lower_block(c, body, "Break", flag, NULL)) &&
             add_extra_test(s, flag) &&
             append(out,
                    located(c, assign(c, Py_NewRef(flag), constant(c, Py_NewRef(Py_False))), s));
        PyObject *orelse = ok ? field(s, "orelse") : NULL;
        if (orelse && PyList_GET_SIZE(orelse) > 0) {
          after = guard(c, flag, Py_NewRef(orelse));
          ok = after && set_field(s, "orelse", PyList_New(0));
        }
        Py_XDECREF(orelse);
        Py_XDECREF(flag);
      }
      Py_XDECREF(body);
    }
    if (!ok || PyList_Append(out, s) < 0 || (after && !append(out, after))) {
      if (!ok)
        Py_XDECREF(after);
      Py_DECREF(out);
      return NULL;
    }
  }
  return out;
}

/* The function body with its returns lowered, when one is inside a block. New list. */
static PyObject *
lower_returns(Conv *c, PyObject *body, PyObject *fdef)
{
  bool nested = false;
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(body) && !nested; i++) {
    PyObject *s = PyList_GET_ITEM(body, i);
    int r = is(s, "Return") ? 0 : contains(c, s, "Return", true);
    if (r < 0)
      return NULL;
    nested = r > 0;
  }
  if (!nested)
    return Py_NewRef(body);
  PyObject *flag = unique(c, "do_return"), *retval = unique(c, "retval_");
  PyObject *out = NULL;
  if (flag && retval) {
    out = lst(2, located(c, assign(c, Py_NewRef(flag), constant(c, Py_NewRef(Py_False))), fdef),
              located(c,
                      assign(c, Py_NewRef(retval),
                             call(c, ag_attr(c, "UndefinedReturnValue"), PyList_New(0))),
                      fdef));
  }
  PyObject *lowered = out ? lower_block(c, body, "Return", flag, retval) : NULL;
  PyObject *last =
      PyList_GET_SIZE(body) > 0 ? PyList_GET_ITEM(body, PyList_GET_SIZE(body) - 1) : fdef;
  PyObject *ret =
      lowered
          ? located(c,
                    mk(c, "Return", "value",
                       call(c, ag_attr(c, "retval"), lst(1, name_obj(c, Py_NewRef(retval), false))),
                       NULL),
                    last)
          : NULL;
  bool ok = ret && PyList_SetSlice(out, PyList_GET_SIZE(out), PyList_GET_SIZE(out), lowered) == 0 &&
            append(out, ret);
  Py_XDECREF(lowered);
  Py_XDECREF(flag);
  Py_XDECREF(retval);
  if (!ok)
    Py_CLEAR(out);
  return out;
}

/* ---- expressions ---------------------------------------------------------------------------- */

static PyObject *conv_expr(Conv *c, PyObject *e);

/* Converts, in place, the expressions among the fields of `node`, not its statements. */
static bool
conv_fields(Conv *c, PyObject *node)
{
  PyObject *fields = field(node, "_fields");
  if (!fields)
    return false;
  bool ok = true;
  for (Py_ssize_t i = 0; ok && i < PyTuple_GET_SIZE(fields); i++) {
    PyObject *f = PyTuple_GET_ITEM(fields, i);
    PyObject *v = PyObject_GetAttr(node, f);
    if (!v) {
      PyErr_Clear();
      continue;
    }
    if (PyList_Check(v)) {
      for (Py_ssize_t k = 0; ok && k < PyList_GET_SIZE(v); k++) {
        PyObject *item = PyList_GET_ITEM(v, k);
        if (is_expr(c, item)) {
          PyObject *n = conv_expr(c, item);
          ok = n && PyList_SetItem(v, k, n) == 0;
        } else if (is_node(c, item) && !is_stmt(c, item)) {
          ok = conv_fields(c, item);
        }
      }
    } else if (is_expr(c, v)) {
      PyObject *n = conv_expr(c, v);
      ok = n && PyObject_SetAttr(node, f, n) == 0;
      Py_XDECREF(n);
    } else if (is_node(c, v) && !is_stmt(c, v)) {
      ok = conv_fields(c, v);
    }
    Py_DECREF(v);
  }
  Py_DECREF(fields);
  return ok;
}

/* Calls left as they are: print stays Python's; the others depend on their caller's frame. */
static const char *const direct_calls[] = {"print", "super", "locals", "globals", "vars",
                                           "eval",  "exec",  "dir",    NULL};

static PyObject *
conv_call(Conv *c, PyObject *e)
{
  PyObject *func = field(e, "func"), *args = field(e, "args"), *keywords = field(e, "keywords");
  PyObject *r = NULL;
  if (!func || !args || !keywords)
    goto done;
  if (is(func, "Attribute")) {
    /* ag__'s own operators, called by code this converter made. */
    PyObject *value = field(func, "value");
    PyObject *id = value && is(value, "Name") ? field(value, "id") : NULL;
    bool ours = id && PyUnicode_CompareWithASCIIString(id, "ag__") == 0;
    Py_XDECREF(value);
    Py_XDECREF(id);
    PyErr_Clear();
    if (ours) {
      r = Py_NewRef(e);
      goto done;
    }
  }
  if (is(func, "Name")) {
    PyObject *id = field(func, "id");
    bool direct = false;
    for (int i = 0; id && direct_calls[i]; i++)
      direct = direct || PyUnicode_CompareWithASCIIString(id, direct_calls[i]) == 0;
    bool len = id && PyUnicode_CompareWithASCIIString(id, "len") == 0 &&
               PyList_GET_SIZE(args) == 1 && PyList_GET_SIZE(keywords) == 0 &&
               !is(PyList_GET_ITEM(args, 0), "Starred");
    Py_XDECREF(id);
    if (direct) {
      r = Py_NewRef(e);
      goto done;
    }
    if (len) {
      r = located(c, call(c, ag_attr(c, "len_"), lst(1, Py_NewRef(PyList_GET_ITEM(args, 0)))), e);
      goto done;
    }
  }
  PyObject *kwargs;
  if (PyList_GET_SIZE(keywords) == 0) {
    kwargs = constant(c, none());
  } else {
    PyObject *keys = PyList_New(0), *values = PyList_New(0);
    for (Py_ssize_t i = 0; keys && values && i < PyList_GET_SIZE(keywords); i++) {
      PyObject *kw = PyList_GET_ITEM(keywords, i);
      PyObject *arg = field(kw, "arg");
      PyObject *key = arg == Py_None ? Py_NewRef(Py_None) : constant(c, Py_XNewRef(arg));
      Py_XDECREF(arg);
      if (!append(keys, key) || !append(values, field(kw, "value")))
        Py_CLEAR(keys);
    }
    kwargs = keys && values ? mk(c, "Dict", "keys", keys, "values", values, NULL) : NULL;
    if (!kwargs) {
      Py_XDECREF(keys);
      Py_XDECREF(values);
    }
  }
  PyObject *tuple = mk(c, "Tuple", "elts", Py_NewRef(args), "ctx", Py_NewRef(c->load), NULL);
  r = located(c, call(c, ag_attr(c, "converted_call"), lst(3, Py_NewRef(func), tuple, kwargs)), e);
done:
  Py_XDECREF(func);
  Py_XDECREF(args);
  Py_XDECREF(keywords);
  return r;
}

/* `a and b and c` as ag__.and_(lambda: a, lambda: ag__.and_(lambda: b, lambda: c)). */
static PyObject *
conv_bool_op(Conv *c, PyObject *e)
{
  PyObject *op = field(e, "op"), *values = field(e, "values");
  PyObject *acc = NULL;
  if (op && values && PyList_GET_SIZE(values) > 0) {
    const char *fn = is(op, "And") ? "and_" : "or_";
    Py_ssize_t n = PyList_GET_SIZE(values);
    acc = Py_NewRef(PyList_GET_ITEM(values, n - 1));
    for (Py_ssize_t i = n - 2; acc && i >= 0; i--)
      acc =
          located(c,
                  call(c, ag_attr(c, fn),
                       lst(2, lambda0(c, Py_NewRef(PyList_GET_ITEM(values, i))), lambda0(c, acc))),
                  e);
  }
  Py_XDECREF(op);
  Py_XDECREF(values);
  return acc;
}

/* The converted form of expression `e` (new reference; `e`'s children are converted in
 * place). */
static PyObject *
conv_expr(Conv *c, PyObject *e)
{
  if (!conv_fields(c, e))
    return NULL;
  if (is(e, "BoolOp"))
    return conv_bool_op(c, e);
  if (is(e, "UnaryOp")) {
    PyObject *op = field(e, "op");
    bool not = op && is(op, "Not");
    Py_XDECREF(op);
    if (not )
      return located(c, call(c, ag_attr(c, "not_"), lst(1, field(e, "operand"))), e);
  }
  if (is(e, "Call"))
    return conv_call(c, e);
  return Py_NewRef(e);
}

/* ---- control flow --------------------------------------------------------------------------- */

/* ('a', 'b'): the state's names for error messages. */
static PyObject *
names_tuple(Conv *c, PyObject *names)
{
  PyObject *elts = PyList_New(0);
  for (Py_ssize_t i = 0; elts && i < PyList_GET_SIZE(names); i++)
    if (!append(elts, constant(c, Py_NewRef(PyList_GET_ITEM(names, i)))))
      Py_CLEAR(elts);
  return mk(c, "Tuple", "elts", elts, "ctx", Py_NewRef(c->load), NULL);
}

static PyObject *
names_load(Conv *c, PyObject *names, bool store)
{
  PyObject *elts = PyList_New(0);
  for (Py_ssize_t i = 0; elts && i < PyList_GET_SIZE(names); i++)
    if (!append(elts, name_obj(c, Py_NewRef(PyList_GET_ITEM(names, i)), store)))
      Py_CLEAR(elts);
  return mk(c, "Tuple", "elts", elts, "ctx", Py_NewRef(store ? c->store : c->load), NULL);
}

/* Makes each of `names` bound before a converted block: a name not known to be defined here
 * gets `try: name / except NameError: name = ag__.Undefined('name')`, so that the block's
 * functions can declare it nonlocal and the operators see it is undefined. */
static bool
emit_prelude(Conv *c, PyObject *out, PyObject *names, PyObject *defined, PyObject *like)
{
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(names); i++) {
    PyObject *id = PyList_GET_ITEM(names, i);
    int known = PySet_Contains(defined, id);
    if (known < 0)
      return false;
    if (known)
      continue;
    PyObject *undef = call(c, ag_attr(c, "Undefined"), lst(1, constant(c, Py_NewRef(id))));
    PyObject *handler = mk(c, "ExceptHandler", "type", name(c, "NameError", false), "name", none(),
                           "body", lst(1, assign(c, Py_NewRef(id), undef)), NULL);
    PyObject *try_ =
        mk(c, "Try", "body", lst(1, expr_stmt(c, name_obj(c, Py_NewRef(id), false))), "handlers",
           lst(1, handler), "orelse", PyList_New(0), "finalbody", PyList_New(0), NULL);
    if (!append(out, located(c, try_, like)))
      return false;
  }
  return true;
}

/* The declarations opening a generated function: `global` of the function's globals, `nonlocal`
 * of the state's names. New list. */
static PyObject *
declarations(Conv *c, PyObject *names)
{
  PyObject *out = PyList_New(0);
  if (!out)
    return NULL;
  if (PySet_GET_SIZE(c->globals) > 0) {
    PyObject *g = PySequence_List(c->globals);
    if (!g || PyList_Sort(g) < 0 || !append(out, mk(c, "Global", "names", g, NULL))) {
      Py_DECREF(out);
      return NULL;
    }
  }
  if (names && PyList_GET_SIZE(names) > 0 &&
      !append(out, mk(c, "Nonlocal", "names", PySequence_List(names), NULL))) {
    Py_DECREF(out);
    return NULL;
  }
  return out;
}

/* def fname(params): <declarations>; body — body stolen, `pass` when empty. */
static PyObject *
block_def(Conv *c, PyObject *fname, PyObject *params, PyObject *names, PyObject *body,
          PyObject *like)
{
  PyObject *full = declarations(c, names);
  bool ok = full && body;
  if (ok && PyList_GET_SIZE(body) == 0)
    ok = append(body, located(c, mk(c, "Pass", NULL), like));
  ok = ok && PyList_SetSlice(full, PyList_GET_SIZE(full), PyList_GET_SIZE(full), body) == 0;
  Py_XDECREF(body);
  if (!ok) {
    Py_XDECREF(full);
    Py_XDECREF(params);
    return NULL;
  }
  return located(c, func_def(c, Py_NewRef(fname), params, full), like);
}

/* get_state() and set_state(vars_) over `names`; their generated names in *get and *set. */
static bool
emit_state(Conv *c, PyObject *out, PyObject *names, PyObject *like, PyObject **get, PyObject **set)
{
  *get = unique(c, "get_state");
  *set = unique(c, "set_state");
  PyObject *vars = unique(c, "vars_");
  if (!*get || !*set || !vars) {
    Py_XDECREF(vars);
    return false;
  }
  PyObject *get_body =
      lst(1, located(c, mk(c, "Return", "value", names_load(c, names, false), NULL), like));
  PyObject *set_body;
  if (PyList_GET_SIZE(names) > 0)
    set_body =
        lst(1, located(c,
                       mk(c, "Assign", "targets", lst(1, names_load(c, names, true)), "value",
                          name_obj(c, Py_NewRef(vars), false), "type_comment", none(), NULL),
                       like));
  else
    set_body = PyList_New(0);
  bool ok = append(out, block_def(c, *get, NULL, NULL, get_body, like)) &&
            append(out, block_def(c, *set, lst(1, Py_NewRef(vars)), names, set_body, like));
  Py_DECREF(vars);
  return ok;
}

/* The test of a loop that break or return can end: `not flag` for each of its flags, joined
 * with ag__.and_ before `test` (stolen; NULL: the flags alone). */
static PyObject *
extra_test(Conv *c, PyObject *loop, PyObject *test)
{
  PyObject *extra = PyObject_GetAttrString(loop, "ag_extra");
  if (!extra) {
    PyErr_Clear();
    return test;
  }
  PyObject *acc = NULL;
  for (Py_ssize_t i = PyList_GET_SIZE(extra); i-- > 0;) {
    PyObject *not = call(c, ag_attr(c, "not_"),
                         lst(1, name_obj(c, Py_NewRef(PyList_GET_ITEM(extra, i)), false)));
    if (acc)
      acc = call(c, ag_attr(c, "and_"), lst(2, lambda0(c, not ), lambda0(c, acc)));
    else
      acc = not ;
  }
  Py_DECREF(extra);
  if (test && acc)
    acc = call(c, ag_attr(c, "and_"), lst(2, lambda0(c, acc), lambda0(c, test)));
  else if (test)
    acc = test;
  return located(c, acc, loop);
}

static PyObject *convert_stmts(Conv *c, PyObject *stmts, PyObject *defined);

/* convert_stmts of a block, with a copy of `defined`. */
static PyObject *
convert_block(Conv *c, PyObject *s, const char *f, PyObject *defined)
{
  PyObject *stmts = field(s, f);
  PyObject *copy = PySet_New(defined);
  PyObject *r = stmts && copy ? convert_stmts(c, stmts, copy) : NULL;
  Py_XDECREF(stmts);
  Py_XDECREF(copy);
  return r;
}

static bool
add_all(PyObject *set, PyObject *names)
{
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(names); i++)
    if (PySet_Add(set, PyList_GET_ITEM(names, i)) < 0)
      return false;
  return true;
}

/* if test: body else: orelse  ->  ag__.if_stmt(test, if_body, else_body, get_state, set_state,
 * names, n). */
static bool
convert_if(Conv *c, PyObject *s, PyObject *out, PyObject *defined)
{
  PyObject *names = assigned_names(c, s);
  PyObject *test = names ? field(s, "test") : NULL;
  PyObject *ctest = test ? conv_expr(c, test) : NULL;
  Py_XDECREF(test);
  PyObject *body = ctest ? convert_block(c, s, "body", defined) : NULL;
  PyObject *orelse = body ? convert_block(c, s, "orelse", defined) : NULL;
  PyObject *get = NULL, *set = NULL, *if_body = NULL, *else_body = NULL;
  bool ok = orelse && emit_prelude(c, out, names, defined, s) &&
            emit_state(c, out, names, s, &get, &set) && (if_body = unique(c, "if_body")) &&
            (else_body = unique(c, "else_body"));
  if (ok) {
    ok = append(out, block_def(c, if_body, NULL, names, Py_NewRef(body), s)) &&
         append(out, block_def(c, else_body, NULL, names, Py_NewRef(orelse), s));
  }
  if (ok) {
    PyObject *args =
        lst(7, Py_NewRef(ctest), name_obj(c, Py_NewRef(if_body), false),
            name_obj(c, Py_NewRef(else_body), false), name_obj(c, Py_NewRef(get), false),
            name_obj(c, Py_NewRef(set), false), names_tuple(c, names),
            constant(c, PyLong_FromSsize_t(PyList_GET_SIZE(names))));
    PyObject *is_guard = PyObject_GetAttrString(s, "ag_guard");
    if (!is_guard)
      PyErr_Clear();
    else if (args && !append(args, constant(c, Py_NewRef(Py_True))))
      Py_CLEAR(args);
    Py_XDECREF(is_guard);
    ok = append(out, located(c, expr_stmt(c, call(c, ag_attr(c, "if_stmt"), args)), s)) &&
         add_all(defined, names);
  }
  Py_XDECREF(names);
  Py_XDECREF(ctest);
  Py_XDECREF(body);
  Py_XDECREF(orelse);
  Py_XDECREF(get);
  Py_XDECREF(set);
  Py_XDECREF(if_body);
  Py_XDECREF(else_body);
  return ok;
}

/* A loop's else part, which runs after it (break already guards it by its flag). */
static bool
emit_orelse(Conv *c, PyObject *s, PyObject *out, PyObject *defined)
{
  PyObject *orelse = field(s, "orelse");
  PyObject *conv = orelse ? convert_stmts(c, orelse, defined) : NULL;
  Py_XDECREF(orelse);
  bool ok = conv && PyList_SetSlice(out, PyList_GET_SIZE(out), PyList_GET_SIZE(out), conv) == 0;
  Py_XDECREF(conv);
  return ok;
}

/* while test: body  ->  ag__.while_stmt(loop_test, loop_body, get_state, set_state, names,
 * {}). */
static bool
convert_while(Conv *c, PyObject *s, PyObject *out, PyObject *defined)
{
  PyObject *body_stmts = field(s, "body");
  PyObject *names = body_stmts ? assigned_names(c, body_stmts) : NULL;
  Py_XDECREF(body_stmts);
  PyObject *test = names ? field(s, "test") : NULL;
  PyObject *ctest = test ? conv_expr(c, test) : NULL;
  Py_XDECREF(test);
  ctest = ctest ? extra_test(c, s, ctest) : NULL;
  PyObject *body = ctest ? convert_block(c, s, "body", defined) : NULL;
  PyObject *get = NULL, *set = NULL, *test_fn = NULL, *body_fn = NULL;
  bool ok = body && emit_prelude(c, out, names, defined, s) &&
            emit_state(c, out, names, s, &get, &set) && (test_fn = unique(c, "loop_test")) &&
            (body_fn = unique(c, "loop_body"));
  if (ok) {
    PyObject *ret = located(c, mk(c, "Return", "value", Py_NewRef(ctest), NULL), s);
    ok = append(out, block_def(c, test_fn, NULL, NULL, lst(1, ret), s)) &&
         append(out, block_def(c, body_fn, NULL, names, Py_NewRef(body), s));
  }
  if (ok) {
    PyObject *args = lst(6, name_obj(c, Py_NewRef(test_fn), false),
                         name_obj(c, Py_NewRef(body_fn), false), name_obj(c, Py_NewRef(get), false),
                         name_obj(c, Py_NewRef(set), false), names_tuple(c, names),
                         mk(c, "Dict", "keys", PyList_New(0), "values", PyList_New(0), NULL));
    ok = append(out, located(c, expr_stmt(c, call(c, ag_attr(c, "while_stmt"), args)), s)) &&
         add_all(defined, names) && emit_orelse(c, s, out, defined);
  }
  Py_XDECREF(names);
  Py_XDECREF(ctest);
  Py_XDECREF(body);
  Py_XDECREF(get);
  Py_XDECREF(set);
  Py_XDECREF(test_fn);
  Py_XDECREF(body_fn);
  return ok;
}

/* for target in iter: body  ->  ag__.for_stmt(iter, extra_test, loop_body, get_state,
 * set_state, names, {}), loop_body(itr) starting with `target = itr`. */
static bool
convert_for(Conv *c, PyObject *s, PyObject *out, PyObject *defined)
{
  PyObject *target = field(s, "target"), *body_stmts = field(s, "body");
  PyObject *both = target && body_stmts ? PyList_New(0) : NULL;
  bool ok = both && PyList_Append(both, target) == 0 &&
            PyList_SetSlice(both, 1, 1, body_stmts) == 0 && conv_fields(c, target);
  PyObject *names = ok ? assigned_names(c, both) : NULL;
  Py_XDECREF(both);
  Py_XDECREF(body_stmts);
  PyObject *iter = names ? field(s, "iter") : NULL;
  PyObject *citer = iter ? conv_expr(c, iter) : NULL;
  Py_XDECREF(iter);
  PyObject *itr = citer ? unique(c, "itr") : NULL;
  PyObject *body = itr ? convert_block(c, s, "body", defined) : NULL;
  PyObject *take =
      body ? located(c,
                     mk(c, "Assign", "targets", lst(1, Py_NewRef(target)), "value",
                        name_obj(c, Py_NewRef(itr), false), "type_comment", none(), NULL),
                     s)
           : NULL;
  ok = take && PyList_Insert(body, 0, take) == 0;
  Py_XDECREF(take);
  PyObject *cond = ok ? extra_test(c, s, NULL) : NULL;
  ok = ok && !PyErr_Occurred();
  PyObject *get = NULL, *set = NULL, *body_fn = NULL, *test_fn = NULL;
  ok = ok && emit_prelude(c, out, names, defined, s) && emit_state(c, out, names, s, &get, &set) &&
       (body_fn = unique(c, "loop_body"));
  if (ok && cond) {
    ok = (test_fn = unique(c, "extra_test")) != NULL;
    PyObject *ret = ok ? located(c, mk(c, "Return", "value", Py_NewRef(cond), NULL), s) : NULL;
    ok = ok && append(out, block_def(c, test_fn, NULL, NULL, lst(1, ret), s));
  }
  ok = ok && append(out, block_def(c, body_fn, lst(1, Py_NewRef(itr)), names, Py_NewRef(body), s));
  if (ok) {
    PyObject *args = lst(7, Py_NewRef(citer),
                         test_fn ? name_obj(c, Py_NewRef(test_fn), false) : constant(c, none()),
                         name_obj(c, Py_NewRef(body_fn), false), name_obj(c, Py_NewRef(get), false),
                         name_obj(c, Py_NewRef(set), false), names_tuple(c, names),
                         mk(c, "Dict", "keys", PyList_New(0), "values", PyList_New(0), NULL));
    ok = append(out, located(c, expr_stmt(c, call(c, ag_attr(c, "for_stmt"), args)), s)) &&
         add_all(defined, names) && emit_orelse(c, s, out, defined);
  }
  Py_XDECREF(target);
  Py_XDECREF(names);
  Py_XDECREF(citer);
  Py_XDECREF(itr);
  Py_XDECREF(body);
  Py_XDECREF(cond);
  Py_XDECREF(get);
  Py_XDECREF(set);
  Py_XDECREF(body_fn);
  Py_XDECREF(test_fn);
  return ok;
}

static bool convert_function(Conv *c, PyObject *fdef);

/* Whether a function's own body yields (a generator: left as it is). */
static int
has_yield(Conv *c, PyObject *node)
{
  if (PyList_Check(node)) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(node); i++) {
      int r = has_yield(c, PyList_GET_ITEM(node, i));
      if (r)
        return r;
    }
    return 0;
  }
  if (!is_node(c, node))
    return 0;
  if (is(node, "Yield") || is(node, "YieldFrom") || is(node, "Await"))
    return 1;
  if (is_any(node, scope_kinds))
    return 0;
  PyObject *fields = field(node, "_fields");
  if (!fields)
    return -1;
  int r = 0;
  for (Py_ssize_t i = 0; !r && i < PyTuple_GET_SIZE(fields); i++) {
    PyObject *v = PyObject_GetAttr(node, PyTuple_GET_ITEM(fields, i));
    if (!v) {
      PyErr_Clear();
      continue;
    }
    r = has_yield(c, v);
    Py_DECREF(v);
  }
  Py_DECREF(fields);
  return r;
}

/* A nested def: its decorators and defaults are expressions of this scope; its body is a
 * function of its own. */
static bool
convert_nested_def(Conv *c, PyObject *s)
{
  PyObject *decorators = field(s, "decorator_list"), *args = field(s, "args");
  bool ok = decorators && args && conv_fields(c, args);
  for (Py_ssize_t i = 0; ok && i < PyList_GET_SIZE(decorators); i++) {
    PyObject *d = conv_expr(c, PyList_GET_ITEM(decorators, i));
    ok = d && PyList_SetItem(decorators, i, d) == 0;
  }
  Py_XDECREF(decorators);
  Py_XDECREF(args);
  if (!ok || is(s, "AsyncFunctionDef"))
    return ok;
  PyObject *body = field(s, "body");
  int y = body ? has_yield(c, body) : -1;
  Py_XDECREF(body);
  if (y)
    return y > 0;
  return convert_function(c, s);
}

/* The statements of a block, converted. New list; `defined` (the names certainly bound at the
 * block's start) grows with the names it binds. */
static PyObject *
convert_stmts(Conv *c, PyObject *stmts, PyObject *defined)
{
  PyObject *out = PyList_New(0);
  if (!out)
    return NULL;
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(stmts); i++) {
    PyObject *s = PyList_GET_ITEM(stmts, i);
    bool ok = true;
    bool keep = true; /* s itself stays in the output */
    bool binds = true;
    if (is(s, "If")) {
      ok = convert_if(c, s, out, defined);
      keep = binds = false;
    } else if (is(s, "While")) {
      ok = convert_while(c, s, out, defined);
      keep = binds = false;
    } else if (is(s, "For")) {
      ok = convert_for(c, s, out, defined);
      keep = binds = false;
    } else if (is(s, "FunctionDef") || is(s, "AsyncFunctionDef")) {
      ok = convert_nested_def(c, s);
    } else if (is(s, "ClassDef")) {
      /* Methods are converted when they are called. */
    } else if (is(s, "With") || is(s, "AsyncWith")) {
      ok = conv_fields(c, s) && set_field(s, "body", convert_block(c, s, "body", defined));
    } else if (is(s, "Try") || is(s, "TryStar")) {
      static const char *const blocks[] = {"body", "orelse", "finalbody", NULL};
      for (int k = 0; ok && blocks[k]; k++)
        ok = set_field(s, blocks[k], convert_block(c, s, blocks[k], defined));
      PyObject *handlers = ok ? field(s, "handlers") : NULL;
      ok = handlers != NULL;
      for (Py_ssize_t k = 0; ok && k < PyList_GET_SIZE(handlers); k++) {
        PyObject *h = PyList_GET_ITEM(handlers, k);
        ok = conv_fields(c, h) && set_field(h, "body", convert_block(c, h, "body", defined));
      }
      Py_XDECREF(handlers);
      binds = false;
    } else {
      ok = conv_fields(c, s);
    }
    if (ok && keep)
      ok = PyList_Append(out, s) == 0;
    if (ok && binds) {
      PyObject *names = assigned_names(c, s);
      ok = names && add_all(defined, names);
      Py_XDECREF(names);
    }
    if (!ok) {
      Py_DECREF(out);
      return NULL;
    }
  }
  return out;
}

/* The names of `global` statements of a function body (not of nested scopes), into `set`. */
static bool
collect_globals(Conv *c, PyObject *node, PyObject *set)
{
  if (PyList_Check(node)) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(node); i++)
      if (!collect_globals(c, PyList_GET_ITEM(node, i), set))
        return false;
    return true;
  }
  if (!is_node(c, node) || is_expr(c, node) || is_any(node, scope_kinds))
    return true;
  if (is(node, "Global")) {
    PyObject *names = field(node, "names");
    bool ok = names && add_all(set, names);
    Py_XDECREF(names);
    return ok;
  }
  static const char *const blocks[] = {"body", "orelse", "finalbody", "handlers", NULL};
  for (int i = 0; blocks[i]; i++) {
    PyObject *v = PyObject_GetAttrString(node, blocks[i]);
    if (!v) {
      PyErr_Clear();
      continue;
    }
    bool ok = collect_globals(c, v, set);
    Py_DECREF(v);
    if (!ok)
      return false;
  }
  return true;
}

/* The names certainly bound when a function starts: its parameters and its nonlocals. */
static PyObject *
parameters(Conv *c, PyObject *fdef)
{
  PyObject *set = PySet_New(NULL);
  PyObject *args = set ? field(fdef, "args") : NULL;
  bool ok = args != NULL;
  static const char *const lists[] = {"posonlyargs", "args", "kwonlyargs", NULL};
  for (int i = 0; ok && lists[i]; i++) {
    PyObject *l = field(args, lists[i]);
    ok = l != NULL;
    for (Py_ssize_t k = 0; ok && k < PyList_GET_SIZE(l); k++) {
      PyObject *id = field(PyList_GET_ITEM(l, k), "arg");
      ok = id && PySet_Add(set, id) == 0;
      Py_XDECREF(id);
    }
    Py_XDECREF(l);
  }
  static const char *const singles[] = {"vararg", "kwarg", NULL};
  for (int i = 0; ok && singles[i]; i++) {
    PyObject *a = field(args, singles[i]);
    PyObject *id = a && a != Py_None ? field(a, "arg") : NULL;
    ok = a && (a == Py_None || (id && PySet_Add(set, id) == 0));
    Py_XDECREF(id);
    Py_XDECREF(a);
  }
  Py_XDECREF(args);
  if (!ok)
    Py_CLEAR(set);
  return set;
}

/* Converts a FunctionDef's body in place. */
static bool
convert_function(Conv *c, PyObject *fdef)
{
  PyObject *saved = c->globals;
  c->globals = PySet_New(NULL);
  PyObject *body = field(fdef, "body");
  PyObject *defined = parameters(c, fdef);
  bool ok = c->globals && body && defined && collect_globals(c, body, c->globals);
  PyObject *b1 = ok ? lower_loops(c, body) : NULL;
  PyObject *b2 = b1 ? lower_returns(c, b1, fdef) : NULL;
  ok = b2 && set_field(fdef, "body", convert_stmts(c, b2, defined));
  Py_XDECREF(b1);
  Py_XDECREF(b2);
  Py_XDECREF(body);
  Py_XDECREF(defined);
  Py_XSETREF(c->globals, saved);
  return ok;
}

/* ---- from a function object to converted code ----------------------------------------------- */

/* The path prefixes of the standard library: code there is not converted. */
static PyObject *
library_prefixes(void)
{
  PyObject *sysconfig = PyImport_ImportModule("sysconfig");
  PyObject *paths = sysconfig ? PyObject_CallMethod(sysconfig, "get_paths", NULL) : NULL;
  Py_XDECREF(sysconfig);
  if (!paths)
    return NULL;
  static const char *const keys[] = {"stdlib", "platstdlib", "purelib", "platlib"};
  PyObject *l = PyList_New(0);
  for (size_t i = 0; l && i < G_N_ELEMENTS(keys); i++) {
    PyObject *p = PyDict_GetItemString(paths, keys[i]); /* borrowed */
    if (!p)
      continue;
    PyObject *slash = PyUnicode_FromFormat("%U/", p);
    if (!append(l, slash))
      Py_CLEAR(l);
  }
  Py_DECREF(paths);
  PyObject *t = l ? PyList_AsTuple(l) : NULL;
  Py_XDECREF(l);
  return t;
}

/* Whether `func` is library code: TensorFlow itself (this module and its embedded Python),
 * the standard library, installed packages. Those run as they are (TF's allowlist). */
static int
is_library(TfState *st, PyObject *func)
{
  PyObject *module = PyObject_GetAttrString(func, "__module__");
  if (!module)
    PyErr_Clear();
  else if (PyUnicode_Check(module)) {
    const char *m = PyUnicode_AsUTF8(module);
    bool lib = m && (g_str_has_prefix(m, "tensorflow") || g_str_has_prefix(m, "keras") ||
                     g_str_has_prefix(m, "numpy"));
    Py_DECREF(module);
    if (lib)
      return 1;
  } else {
    Py_DECREF(module);
  }
  PyCodeObject *code = (PyCodeObject *)PyFunction_GET_CODE(func);
  const char *file = PyUnicode_AsUTF8(code->co_filename);
  if (!file)
    return -1;
  if (strstr(file, "/site-packages/") || strstr(file, "/dist-packages/"))
    return 1;
  /* Made on the first conversion, not at import: sysconfig costs a start-up otherwise. */
  if (!st->ag_library_prefixes && !(st->ag_library_prefixes = library_prefixes()))
    return -1;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(st->ag_library_prefixes); i++) {
    const char *p = PyUnicode_AsUTF8(PyTuple_GET_ITEM(st->ag_library_prefixes, i));
    if (p && g_str_has_prefix(file, p))
      return 1;
  }
  return 0;
}

/* Whether do_not_convert marked `func`. */
static bool
marked_do_not_convert(PyObject *func)
{
  PyObject *v = PyObject_GetAttrString(func, "__autograph_do_not_convert__");
  if (!v) {
    PyErr_Clear();
    return false;
  }
  bool r = PyObject_IsTrue(v) > 0;
  Py_DECREF(v);
  PyErr_Clear();
  return r;
}

/* TensorFlow's warning for a function it runs unconverted, on sys.stderr. */
static void
warn_unconverted(PyObject *func, const char *cause)
{
  PyObject *text = PyUnicode_FromFormat(
      "WARNING:tensorflow:AutoGraph could not transform %R and will run it as-is.\n"
      "Cause: %s\n"
      "To silence this warning, decorate the function with "
      "@tf.autograph.experimental.do_not_convert\n",
      func, cause);
  PyObject *err = PySys_GetObject("stderr"); /* borrowed */
  if (text && err && err != Py_None)
    PyFile_WriteObject(text, err, Py_PRINT_RAW);
  Py_XDECREF(text);
  PyErr_Clear();
}

/* The FunctionDef of `func` parsed from its source, its line numbers those of the file. NULL
 * with no exception when the source cannot be had (*cause says why). */
static PyObject *
parse_function(Conv *c, PyObject *func, const char **cause)
{
  *cause = "could not get source code";
  PyObject *inspect = PyImport_ImportModule("inspect");
  PyObject *got = inspect ? PyObject_CallMethod(inspect, "getsourcelines", "O", func) : NULL;
  Py_XDECREF(inspect);
  if (!got) {
    if (PyErr_ExceptionMatches(PyExc_OSError) || PyErr_ExceptionMatches(PyExc_TypeError))
      PyErr_Clear();
    return NULL;
  }
  PyObject *empty = PyUnicode_FromString("");
  PyObject *text = empty ? PyUnicode_Join(empty, PyTuple_GET_ITEM(got, 0)) : NULL;
  long first = PyLong_AsLong(PyTuple_GET_ITEM(got, 1));
  Py_XDECREF(empty);
  Py_DECREF(got);
  if (!text)
    return NULL;
  /* An indented def (a method, a nested function) parses inside `if 1:`, which keeps its
   * columns: tracebacks mark the right characters. */
  Py_UCS4 ch = PyUnicode_GET_LENGTH(text) > 0 ? PyUnicode_READ_CHAR(text, 0) : 'd';
  bool indented = ch == ' ' || ch == '\t';
  if (indented)
    Py_SETREF(text, PyUnicode_FromFormat("if 1:\n%U", text));
  PyObject *tree = text ? PyObject_CallMethod(c->ast, "parse", "O", text) : NULL;
  Py_XDECREF(text);
  if (!tree) {
    if (PyErr_ExceptionMatches(PyExc_SyntaxError)) {
      PyErr_Clear();
      *cause = "could not parse the source code";
    }
    return NULL;
  }
  PyObject *fdef = NULL;
  PyObject *body = field(tree, "body");
  if (body && PyList_GET_SIZE(body) > 0) {
    PyObject *top = PyList_GET_ITEM(body, 0);
    if (indented && is(top, "If")) {
      PyObject *inner = field(top, "body");
      fdef = inner && PyList_GET_SIZE(inner) > 0 ? Py_NewRef(PyList_GET_ITEM(inner, 0)) : NULL;
      Py_XDECREF(inner);
    } else {
      fdef = Py_NewRef(top);
    }
  }
  Py_XDECREF(body);
  if (fdef && !is(fdef, "FunctionDef")) {
    /* A lambda, or a function made by exec: run as it is, quietly as TF does for lambdas. */
    Py_CLEAR(fdef);
    *cause = NULL;
  }
  if (fdef) {
    PyObject *r =
        PyObject_CallMethod(c->ast, "increment_lineno", "Ol", fdef, first - (indented ? 2 : 1));
    if (!r)
      Py_CLEAR(fdef);
    Py_XDECREF(r);
  }
  Py_DECREF(tree);
  return fdef;
}

/* The converted FunctionDef of `func`, decorators removed; NULL (no exception; *cause set, or
 * NULL for a silent fallback) when it cannot be converted. */
static PyObject *
converted_def(Conv *c, PyObject *func, const char **cause)
{
  PyObject *fdef = parse_function(c, func, cause);
  if (!fdef)
    return NULL;
  PyObject *ag = PyUnicode_FromString("ag__");
  bool ok = ag && collect_identifiers(c, fdef) && PySet_Add(c->used, ag) == 0 &&
            set_field(fdef, "decorator_list", PyList_New(0)) && convert_function(c, fdef);
  Py_XDECREF(ag);
  if (!ok)
    Py_CLEAR(fdef);
  return fdef;
}

/* Inserts `global name` at the start of `body`. */
static bool
insert_global(Conv *c, PyObject *body, PyObject *id, PyObject *like)
{
  PyObject *g = located(c, mk(c, "Global", "names", lst(1, Py_NewRef(id)), NULL), like);
  bool ok = g && PyList_Insert(body, 0, g) == 0;
  Py_XDECREF(g);
  return ok;
}

/* The code object of the converted function: `def ag__factory(ag__, <free variables>): <fdef>;
 * return <name>` compiled under the original file name, and the function's code taken from the
 * factory's constants. */
static PyObject *
compile_converted(Conv *c, PyObject *func, PyObject *fdef)
{
  PyCodeObject *code = (PyCodeObject *)PyFunction_GET_CODE(func);
  PyObject *freevars = PyCode_GetFreevars(code);
  PyObject *params = freevars ? PySequence_List(freevars) : NULL;
  Py_XDECREF(freevars);
  PyObject *ag = PyUnicode_FromString("ag__");
  if (!params || !ag || PyList_Insert(params, 0, ag) < 0) {
    Py_XDECREF(params);
    Py_XDECREF(ag);
    return NULL;
  }
  Py_DECREF(ag);
  PyObject *fname = field(fdef, "name");
  /* The def binds its name in the factory; unless the name is a free variable, the function's
   * own references to it (recursion) must stay global, as in the original. */
  int free_name = fname ? PySequence_Contains(params, fname) : -1;
  PyObject *ret =
      located(c, mk(c, "Return", "value", name_obj(c, Py_XNewRef(fname), false), NULL), fdef);
  PyObject *fbody = lst(2, Py_NewRef(fdef), ret);
  if (fbody && (free_name < 0 || (free_name == 0 && !insert_global(c, fbody, fname, fdef))))
    Py_CLEAR(fbody);
  PyObject *factory_name = PyUnicode_FromString("ag__factory");
  PyObject *factory = factory_name && fbody
                          ? located(c, func_def(c, Py_NewRef(factory_name), params, fbody), fdef)
                          : (Py_DECREF(params), Py_XDECREF(fbody), NULL);
  PyObject *module =
      factory ? mk(c, "Module", "body", lst(1, factory), "type_ignores", PyList_New(0), NULL)
              : NULL;
  PyObject *fixed =
      module ? PyObject_CallMethod(c->ast, "fix_missing_locations", "O", module) : NULL;
  Py_XDECREF(fixed);
  PyObject *builtins = PyEval_GetBuiltins();                                       /* borrowed */
  PyObject *compile = builtins ? PyDict_GetItemString(builtins, "compile") : NULL; /* borrowed */
  PyObject *mcode = fixed && compile ? PyObject_CallFunction(compile, "OOsii", module,
                                                             code->co_filename, "exec", 0, 1)
                                     : NULL;
  Py_XDECREF(module);
  PyObject *result = NULL;
  PyObject *fcode = NULL;
  if (mcode) {
    PyObject *consts = ((PyCodeObject *)mcode)->co_consts;
    for (Py_ssize_t i = 0; !fcode && i < PyTuple_GET_SIZE(consts); i++) {
      PyObject *k = PyTuple_GET_ITEM(consts, i);
      if (PyCode_Check(k) && PyUnicode_Compare(((PyCodeObject *)k)->co_name, factory_name) == 0)
        fcode = k;
    }
    PyObject *fconsts = fcode ? ((PyCodeObject *)fcode)->co_consts : NULL;
    for (Py_ssize_t i = 0; fconsts && !result && i < PyTuple_GET_SIZE(fconsts); i++) {
      PyObject *k = PyTuple_GET_ITEM(fconsts, i);
      if (PyCode_Check(k) && PyUnicode_Compare(((PyCodeObject *)k)->co_name, fname) == 0)
        result = Py_NewRef(k);
    }
    if (!result && !PyErr_Occurred())
      PyErr_SetString(PyExc_RuntimeError, "AutoGraph lost the converted function's code");
  }
  Py_XDECREF(mcode);
  Py_XDECREF(fname);
  Py_XDECREF(factory_name);
  return result;
}

/* A function running `code` (converted from func's) with func's globals, defaults and closure
 * cells, and a cell holding the ag__ namespace. */
static PyObject *
instantiate(TfState *st, PyObject *func, PyObject *code)
{
  PyFunctionObject *f = (PyFunctionObject *)func;
  PyObject *names = PyCode_GetFreevars((PyCodeObject *)code);
  PyObject *orig = PyCode_GetFreevars((PyCodeObject *)PyFunction_GET_CODE(func));
  PyObject *closure = names ? PyTuple_New(PyTuple_GET_SIZE(names)) : NULL;
  bool ok = closure && orig;
  for (Py_ssize_t i = 0; ok && i < PyTuple_GET_SIZE(names); i++) {
    PyObject *n = PyTuple_GET_ITEM(names, i);
    PyObject *cell = NULL;
    if (PyUnicode_CompareWithASCIIString(n, "ag__") == 0)
      cell = PyCell_New(st->ag_operators);
    for (Py_ssize_t k = 0; !cell && f->func_closure && k < PyTuple_GET_SIZE(orig); k++)
      if (PyUnicode_Compare(PyTuple_GET_ITEM(orig, k), n) == 0)
        cell = Py_NewRef(PyTuple_GET_ITEM(f->func_closure, k));
    if (!cell)
      cell = PyCell_New(NULL);
    ok = cell != NULL;
    if (ok)
      PyTuple_SET_ITEM(closure, i, cell);
  }
  PyObject *r = ok ? PyFunction_NewWithQualName(code, f->func_globals, f->func_qualname) : NULL;
  if (r && ((f->func_defaults && PyFunction_SetDefaults(r, f->func_defaults) < 0) ||
            (f->func_kwdefaults && PyFunction_SetKwDefaults(r, f->func_kwdefaults) < 0) ||
            (PyTuple_GET_SIZE(closure) > 0 && PyFunction_SetClosure(r, closure) < 0) ||
            (f->func_doc && PyObject_SetAttrString(r, "__doc__", f->func_doc) < 0) ||
            (f->func_module && PyObject_SetAttrString(r, "__module__", f->func_module) < 0)))
    Py_CLEAR(r);
  Py_XDECREF(names);
  Py_XDECREF(orig);
  Py_XDECREF(closure);
  return r;
}

PyObject *
tf_autograph_convert(TfState *st, PyObject *func)
{
  if (PyMethod_Check(func)) {
    PyObject *inner = tf_autograph_convert(st, PyMethod_GET_FUNCTION(func));
    if (!inner || inner == PyMethod_GET_FUNCTION(func)) {
      Py_XDECREF(inner);
      return inner ? Py_NewRef(func) : NULL;
    }
    PyObject *m = PyMethod_New(inner, PyMethod_GET_SELF(func));
    Py_DECREF(inner);
    return m;
  }
  if (!PyFunction_Check(func) || marked_do_not_convert(func))
    return Py_NewRef(func);
  PyObject *code = PyFunction_GET_CODE(func);
  if (((PyCodeObject *)code)->co_flags &
      (CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR | CO_ITERABLE_COROUTINE))
    return Py_NewRef(func);
  PyObject *cached = PyDict_GetItemWithError(st->ag_cache, code); /* borrowed */
  if (!cached && PyErr_Occurred())
    return NULL;
  if (!cached) {
    int lib = is_library(st, func);
    if (lib < 0)
      return NULL;
    PyObject *converted = NULL;
    if (!lib) {
      Conv c;
      if (!conv_init(&c, st))
        return NULL;
      const char *cause = NULL;
      PyObject *fdef = converted_def(&c, func, &cause);
      if (fdef)
        converted = compile_converted(&c, func, fdef);
      Py_XDECREF(fdef);
      conv_clear(&c);
      if (!converted && PyErr_Occurred())
        return NULL;
      if (!converted && cause)
        warn_unconverted(func, cause);
    }
    /* Code that conversion left as it was compares equal to the original: run that as is. */
    int same = converted ? PyObject_RichCompareBool(converted, code, Py_EQ) : 0;
    if (same < 0) {
      Py_DECREF(converted);
      return NULL;
    }
    if (same)
      Py_CLEAR(converted);
    cached = converted ? converted : Py_None;
    if (PyDict_SetItem(st->ag_cache, code, cached) < 0 ||
        (converted && PyDict_SetItem(st->ag_cache, converted, Py_None) < 0)) {
      Py_XDECREF(converted);
      return NULL;
    }
    Py_XDECREF(converted); /* the cache holds it */
  }
  if (cached == Py_None)
    return Py_NewRef(func);
  return instantiate(st, func, cached);
}

/* ---- tf.autograph --------------------------------------------------------------------------- */

/* The Python function behind `entity`: itself, a tf.function's python_function, a method's
 * function. New reference, or NULL with TypeError. */
static PyObject *
entity_function(PyObject *entity)
{
  if (PyFunction_Check(entity) || PyMethod_Check(entity))
    return Py_NewRef(entity);
  PyObject *f = PyObject_GetAttrString(entity, "python_function");
  if (f && (PyFunction_Check(f) || PyMethod_Check(f)))
    return f;
  Py_XDECREF(f);
  PyErr_Clear();
  PyErr_Format(PyExc_TypeError, "Expected a Python function or a tf.function, got %R", entity);
  return NULL;
}

static const char *const entity_kwlist[] = {"entity", "recursive", "experimental_optional_features",
                                            NULL};

/* tf.autograph.to_code(entity, recursive=True, experimental_optional_features=None): the
 * converted source, valid Python. */
static PyObject *
autograph_to_code(PyObject *self, PyObject *args, PyObject *kwargs)
{
  PyObject *entity, *recursive = NULL, *features = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OO:to_code", (char **)entity_kwlist, &entity,
                                   &recursive, &features))
    return NULL;
  PyObject *func = entity_function(entity);
  if (!func)
    return NULL;
  if (PyMethod_Check(func))
    Py_SETREF(func, Py_NewRef(PyMethod_GET_FUNCTION(func)));
  TfState *st = tf_state();
  Conv c;
  if (!conv_init(&c, st)) {
    Py_DECREF(func);
    return NULL;
  }
  const char *cause = NULL;
  PyObject *fdef = converted_def(&c, func, &cause);
  PyObject *src = NULL;
  if (fdef) {
    PyObject *fixed = PyObject_CallMethod(c.ast, "fix_missing_locations", "O", fdef);
    src = fixed ? PyObject_CallMethod(c.ast, "unparse", "O", fdef) : NULL;
    Py_XDECREF(fixed);
    if (src)
      Py_SETREF(src, PyUnicode_FromFormat("%U\n", src));
  } else if (!PyErr_Occurred()) {
    PyErr_Format(PyExc_ValueError, "Unable to locate the source code of %R: %s", func,
                 cause ? cause : "it is not a def statement");
  }
  Py_XDECREF(fdef);
  conv_clear(&c);
  Py_DECREF(func);
  return src;
}

/* tf.autograph.to_graph(entity, recursive=True, experimental_optional_features=None): the
 * converted function. */
static PyObject *
autograph_to_graph(PyObject *self, PyObject *args, PyObject *kwargs)
{
  PyObject *entity, *recursive = NULL, *features = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OO:to_graph", (char **)entity_kwlist, &entity,
                                   &recursive, &features))
    return NULL;
  PyObject *func = entity_function(entity);
  if (!func)
    return NULL;
  PyObject *r = tf_autograph_convert(tf_state(), func);
  Py_DECREF(func);
  return r;
}

/* tf.autograph.experimental.do_not_convert(func=None): marks func to run as it is; without func,
 * the decorator. */
static PyObject *
autograph_do_not_convert(PyObject *self, PyObject *args, PyObject *kwargs)
{
  static const char *kwlist[] = {"func", NULL};
  PyObject *func = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:do_not_convert", (char **)kwlist, &func))
    return NULL;
  if (func == Py_None)
    return PyObject_GetAttrString(tf_state()->mod_autograph_experimental, "do_not_convert");
  PyObject *target = PyMethod_Check(func) ? PyMethod_GET_FUNCTION(func) : func;
  if (PyObject_SetAttrString(target, "__autograph_do_not_convert__", Py_True) < 0)
    PyErr_Clear(); /* a builtin is never converted anyway */
  return Py_NewRef(func);
}

/* tf.autograph.set_verbosity(level, alsologtostdout=False): AutoGraph logs nothing here. */
static PyObject *
autograph_set_verbosity(PyObject *self, PyObject *args, PyObject *kwargs)
{
  static const char *kwlist[] = {"level", "alsologtostdout", NULL};
  PyObject *level, *also = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:set_verbosity", (char **)kwlist, &level,
                                   &also))
    return NULL;
  Py_RETURN_NONE;
}

static PyMethodDef autograph_methods[] = {
    {"to_code", (PyCFunction)(void (*)(void))autograph_to_code, METH_VARARGS | METH_KEYWORDS,
     "to_code(entity, recursive=True, experimental_optional_features=None)\n--\n\n"
     "The source of the function as AutoGraph converts it."},
    {"to_graph", (PyCFunction)(void (*)(void))autograph_to_graph, METH_VARARGS | METH_KEYWORDS,
     "to_graph(entity, recursive=True, experimental_optional_features=None)\n--\n\n"
     "The function as AutoGraph converts it."},
    {"set_verbosity", (PyCFunction)(void (*)(void))autograph_set_verbosity,
     METH_VARARGS | METH_KEYWORDS, "set_verbosity(level, alsologtostdout=False)\n--\n\n"},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef experimental_methods[] = {
    {"do_not_convert", (PyCFunction)(void (*)(void))autograph_do_not_convert,
     METH_VARARGS | METH_KEYWORDS,
     "do_not_convert(func=None)\n--\n\nDecorator that suppresses the conversion of a function."},
    {NULL, NULL, 0, NULL},
};

int
tf_autograph_init(PyObject *module, TfState *st)
{
  st->ag_cache = PyDict_New();
  if (!st->ag_cache)
    return -1;
  if (PyModule_AddFunctions(st->mod_autograph, autograph_methods) < 0 ||
      PyModule_AddFunctions(st->mod_autograph_experimental, experimental_methods) < 0)
    return -1;
  return 0;
}

void
tf_autograph_clear(TfState *st)
{
  Py_CLEAR(st->ag_cache);
  Py_CLEAR(st->ag_library_prefixes);
}
