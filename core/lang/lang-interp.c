/* lang-interp.c — a session: state, __main__, and the modules built on the VM.
 *
 * contextlib is written in the cell language itself (it needs generators and classes, which is
 * what the language is for); traceback and timeit are native. Their sources are registered
 * under their own filenames so that tracebacks through them show their lines.
 */
#include "lang-interp.h"
#include "lang-compile.h"
#include "lang-runtime-private.h"
#include "lang-tf.h"

#include <string.h>

struct LangInterp {
  LangState *L;          /* owned */
  LangObject *main;      /* dict: __main__'s namespace */
  LangFrontend frontend; /* display / clear_output hooks */
  bool in_cell;          /* between lang_interp_cell_begin and _end */
  gint64 cell;           /* the open cell's execution count */
  gint64 cell_start_ns;  /* bus time of the open cell's cell_start */
};

/* ---- contextlib ------------------------------------------------------------------------- */

static const char contextlib_source[] =
    "\"\"\"Utilities for with-statement contexts.\"\"\"\n"
    "\n"
    "class _GeneratorContextManager:\n"
    "    \"\"\"A with-statement context made from a generator that yields once.\"\"\"\n"
    "\n"
    "    def __init__(self, gen):\n"
    "        self._gen = gen\n"
    "\n"
    "    def __enter__(self):\n"
    "        try:\n"
    "            return next(self._gen)\n"
    "        except StopIteration:\n"
    "            raise RuntimeError(\"generator didn't yield\") from None\n"
    "\n"
    "    def __exit__(self, kind, exc, tb):\n"
    "        if kind is None:\n"
    "            try:\n"
    "                next(self._gen)\n"
    "            except StopIteration:\n"
    "                return False\n"
    "            raise RuntimeError(\"generator didn't stop\")\n"
    "        if exc is None:\n"
    "            exc = kind()\n"
    "        try:\n"
    "            self._gen.throw(exc)\n"
    "        except StopIteration as stop:\n"
    "            return stop is not exc\n"
    "        except BaseException as raised:\n"
    "            # A StopIteration that crossed the generator comes out as RuntimeError.\n"
    "            if raised is not exc and not (isinstance(exc, StopIteration)\n"
    "                                          and raised.__cause__ is exc):\n"
    "                raise\n"
    "            # The generator let it through: the frames it crossed (this one, the\n"
    "            # generator's) are dropped, as if the with block had raised it directly.\n"
    "            exc.__traceback__ = tb\n"
    "            return False\n"
    "        raise RuntimeError(\"generator didn't stop after throw()\")\n"
    "\n"
    "\n"
    "def contextmanager(func):\n"
    "    \"\"\"@contextmanager decorator: the generator's code before its yield runs on entry,\n"
    "    the code after it on exit; an exception in the block is raised at the yield.\"\"\"\n"
    "    def helper(*args, **kwargs):\n"
    "        return _GeneratorContextManager(func(*args, **kwargs))\n"
    "    helper.__name__ = func.__name__\n"
    "    helper.__qualname__ = func.__qualname__\n"
    "    helper.__doc__ = func.__doc__\n"
    "    return helper\n";

/* A module whose code is cell-language source. */
static LangValue
source_module(LangState *L, const char *name, const char *filename, const char *source)
{
  LangValue code = lang_compile_source(L, source, -1, filename, 0);
  if (lang_is_exc(code))
    return LANG_EXC;
  LangValue module = lang_module_new(L, name, NULL);
  LangValue r = lang_vm_run_module(L, (LangCode *)code.o, lang_module_dict(module), NULL);
  lang_decref(code);
  if (lang_is_exc(r)) {
    lang_decref(module);
    return LANG_EXC;
  }
  return module;
}

static LangValue
contextlib_init(LangState *L)
{
  return source_module(L, "contextlib", "contextlib.py", contextlib_source);
}

/* ---- traceback -------------------------------------------------------------------------- */

/* The exception being handled, as traceback.print_exc() shows it. */
static bool
format_handled(LangState *L, LangValue limit_arg, GString *out)
{
  int limit = LANG_EXC_ALL_FRAMES;
  if (limit_arg.tag != LANG_TAG_UNSET && limit_arg.tag != LANG_TAG_NONE) {
    int64_t n;
    if (!lang_to_index(L, limit_arg, &n))
      return false;
    limit = (int)CLAMP(n, -G_MAXINT, G_MAXINT); /* negative: the innermost -n frames */
  }
  if (L->handled.tag == LANG_TAG_UNSET) {
    g_string_append(out, "NoneType: None\n");
    return true;
  }
  lang_exc_format_limited(L, L->handled, limit, out);
  return true;
}

static LangValue
traceback_print_exc(LangState *L, LangValue self, const LangValue *args, int nargs,
                    LangObject *kwnames)
{
  LangValue limit = LANG_UNSET, file = LANG_UNSET, chain = LANG_UNSET;
  if (!lang_parse_args(L, "print_exc", args, nargs, kwnames, "limit=, file=, chain=", &limit, &file,
                       &chain))
    return LANG_EXC;
  g_autoptr(GString) out = g_string_new(NULL);
  if (!format_handled(L, limit, out))
    return LANG_EXC;
  if (file.tag == LANG_TAG_UNSET || file.tag == LANG_TAG_NONE) {
    lang_write_err(L, out->str, out->len);
    return LANG_NONE;
  }
  LangValue text = lang_str_new(L, out->str, (int64_t)out->len);
  LangValue r = lang_call_method(L, file, "write", &text, 1, NULL);
  lang_decref(text);
  if (lang_is_exc(r))
    return LANG_EXC;
  lang_decref(r);
  return LANG_NONE;
}

static LangValue
traceback_format_exc(LangState *L, LangValue self, const LangValue *args, int nargs,
                     LangObject *kwnames)
{
  LangValue limit = LANG_UNSET, chain = LANG_UNSET;
  if (!lang_parse_args(L, "format_exc", args, nargs, kwnames, "limit=, chain=", &limit, &chain))
    return LANG_EXC;
  GString *out = g_string_new(NULL);
  if (!format_handled(L, limit, out)) {
    g_string_free(out, TRUE);
    return LANG_EXC;
  }
  return lang_str_from_gstring(L, out);
}

static const LangMethodDef traceback_functions[] = {
    {"print_exc", traceback_print_exc, "(limit=None, file=None, chain=True)",
     "Print the exception being handled and its traceback to sys.stderr (or `file`).", 0},
    {"format_exc", traceback_format_exc, "(limit=None, chain=True)",
     "Like print_exc() but return the text as a string.", 0},
    {NULL, NULL, NULL, NULL, 0},
};

static LangValue
traceback_init(LangState *L)
{
  LangValue m = lang_module_new(L, "traceback", "Print or format exceptions and tracebacks.");
  if (!lang_module_add_functions(L, m, traceback_functions)) {
    lang_decref(m);
    return LANG_EXC;
  }
  return m;
}

/* ---- timeit ----------------------------------------------------------------------------- */

static LangValue
timeit_timeit(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue stmt = LANG_UNSET, setup = LANG_UNSET, timer = LANG_UNSET, number = LANG_UNSET,
            globals = LANG_UNSET;
  if (!lang_parse_args(L, "timeit", args, nargs, kwnames,
                       "stmt=, setup=, timer=, number=, globals=", &stmt, &setup, &timer, &number,
                       &globals))
    return LANG_EXC;
  int64_t n = 1000000;
  if (number.tag != LANG_TAG_UNSET && !lang_to_index(L, number, &n))
    return LANG_EXC;
  if (stmt.tag == LANG_TAG_UNSET || !lang_callable(stmt))
    return lang_raise_str(L, &lang_exc_ValueError,
                          "timeit() in Trellis takes a callable stmt (strings are not supported)");
  if (setup.tag != LANG_TAG_UNSET && lang_callable(setup)) {
    LangValue r = lang_call(L, setup, NULL, 0, NULL);
    if (lang_is_exc(r))
      return LANG_EXC;
    lang_decref(r);
  }
  gint64 start = g_get_monotonic_time();
  for (int64_t i = 0; i < n; i++) {
    LangValue r = lang_call(L, stmt, NULL, 0, NULL);
    if (lang_is_exc(r))
      return LANG_EXC;
    lang_decref(r);
  }
  return lang_float((double)(g_get_monotonic_time() - start) / 1e6);
}

static LangValue
timeit_default_timer(LangState *L, LangValue self, const LangValue *args, int nargs,
                     LangObject *kwnames)
{
  if (!lang_no_kwargs(L, "perf_counter", kwnames) ||
      !lang_check_nargs(L, "perf_counter", nargs, 0, 0))
    return LANG_EXC;
  return lang_float((double)g_get_monotonic_time() / 1e6);
}

static const LangMethodDef timeit_functions[] = {
    {"timeit", timeit_timeit,
     "(stmt='pass', setup='pass', timer=<built-in function perf_counter>, number=1000000, "
     "globals=None)",
     "Time `number` calls of the callable `stmt`; return the total in seconds.", 0},
    {"default_timer", timeit_default_timer, "()", "perf_counter() -> float", 0},
    {NULL, NULL, NULL, NULL, 0},
};

static LangValue
timeit_init(LangState *L)
{
  LangValue m = lang_module_new(L, "timeit", "Measure the execution time of small callables.");
  if (!lang_module_add_functions(L, m, timeit_functions)) {
    lang_decref(m);
    return LANG_EXC;
  }
  return m;
}

/* ---- notebook helpers ------------------------------------------------------------------- */

static LangValue
builtin_display(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangInterp *interp = (LangInterp *)L->host;
  for (int i = 0; i < nargs; i++) {
    if (interp && interp->frontend.display) {
      if (!interp->frontend.display(interp->frontend.data, L, args[i]))
        return LANG_EXC;
      continue;
    }
    LangValue text = lang_repr(L, args[i]);
    if (lang_is_exc(text))
      return LANG_EXC;
    lang_write_out(L, lang_str_data(text.o), (size_t)lang_str_size(text.o));
    lang_write_out(L, "\n", 1);
    lang_decref(text);
  }
  return LANG_NONE;
}

static LangValue
builtin_clear_output(LangState *L, LangValue self, const LangValue *args, int nargs,
                     LangObject *kwnames)
{
  LangValue wait = LANG_UNSET;
  if (!lang_parse_args(L, "clear_output", args, nargs, kwnames, "wait=", &wait))
    return LANG_EXC;
  int w = wait.tag == LANG_TAG_UNSET ? 0 : lang_truth(L, wait);
  if (w < 0)
    return LANG_EXC;
  LangInterp *interp = (LangInterp *)L->host;
  if (interp && interp->frontend.clear_output)
    interp->frontend.clear_output(interp->frontend.data, w != 0);
  return LANG_NONE;
}

/* The text of an attribute that is a str, or NULL. Transfer full. */
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

/* help(obj) outside a notebook: the signature and the docstring on stdout, as pydoc's first
 * lines show them. (The kernel replaces this builtin with one that uses the pager.) */
static LangValue
builtin_help(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  LangValue obj = LANG_UNSET;
  if (!lang_parse_args(L, "help", args, nargs, kwnames, "request=, /", &obj))
    return LANG_EXC;
  GString *out = g_string_new(NULL);
  if (lang_is_unset(obj)) {
    g_string_append(out, "Type help(object) for help about object.\n");
  } else {
    g_autofree char *name = str_attr(L, obj, "__qualname__");
    g_autofree char *doc = str_attr(L, obj, "__doc__");
    const char *signature = NULL;
    if (lang_is_type(obj, &lang_function_type)) {
      LangCode *code = ((LangFunction *)obj.o)->code;
      signature = code->signature ? lang_str_data(code->signature) : "(...)";
    } else if (lang_is_type(obj, &lang_builtin_function_type)) {
      signature = ((LangNative *)obj.o)->def->signature;
    }
    if (signature)
      g_string_append_printf(out, "Help on function %s:\n\n%s%s\n", name ? name : "?",
                             name ? name : "?", signature);
    else
      g_string_append_printf(out, "Help on %s object:\n\n", lang_type_name(obj));
    if (doc) {
      g_auto(GStrv) lines = g_strsplit(doc, "\n", -1);
      for (char **l = lines; *l; l++)
        g_string_append_printf(out, "    %s\n", g_strstrip(*l));
    }
  }
  lang_write_out(L, out->str, out->len);
  g_string_free(out, TRUE);
  return LANG_NONE;
}

static const LangMethodDef notebook_builtins[] = {
    {"help", builtin_help, "(request=None, /)",
     "Show the signature and documentation of an object.", 0},
    {"display", builtin_display, "(*objs)", "Display each object in the front end.", 0},
    {"clear_output", builtin_clear_output, "(wait=False)", "Clear the output of the current cell.",
     0},
    {NULL, NULL, NULL, NULL, 0},
};

/* ---- sessions --------------------------------------------------------------------------- */

LangInterp *
lang_interp_new(const char *const *argv)
{
  LangInterp *interp = g_new0(LangInterp, 1);
  LangState *L = lang_state_new();
  interp->L = L;
  L->host = interp;
  lang_vm_install(L);
  lang_register_module(L, "contextlib", contextlib_init);
  lang_register_module(L, "traceback", traceback_init);
  lang_register_module(L, "timeit", timeit_init);
  lang_register_module(L, "tensorflow", lang_tf_module_new);
  for (const LangMethodDef *def = notebook_builtins; def->name; def++) {
    LangValue fn = lang_native_function_new(L, def, LANG_UNSET, "builtins");
    lang_dict_set_cstr(L, L->builtins, def->name, fn);
    lang_decref(fn);
  }
  if (argv) {
    for (const char *const *a = argv; *a; a++) {
      LangValue s = lang_str_cstr(L, *a);
      lang_list_append(L, L->argv, s);
      lang_decref(s);
    }
  } else {
    LangValue s = lang_str_cstr(L, "");
    lang_list_append(L, L->argv, s);
    lang_decref(s);
  }
  LangValue main = lang_module_new(L, "__main__", NULL);
  interp->main = lang_incref(lang_obj(lang_module_dict(main))).o;
  lang_dict_set_cstr(L, L->modules, "__main__", main);
  lang_dict_set_cstr(L, interp->main, "__builtins__", lang_obj(L->builtins));
  lang_decref(main);
  return interp;
}

void
lang_interp_free(LangInterp *interp)
{
  if (!interp)
    return;
  lang_decref(lang_obj(interp->main));
  lang_state_free(interp->L);
  g_free(interp);
}

LangState *
lang_interp_state(LangInterp *interp)
{
  return interp->L;
}

LangObject *
lang_interp_globals(LangInterp *interp)
{
  return interp->main;
}

void
lang_interp_set_frontend(LangInterp *interp, const LangFrontend *frontend)
{
  interp->frontend = *frontend;
}

bool
lang_interp_run(LangInterp *interp, const char *source, gssize len, const char *filename,
                unsigned flags, LangValue *result)
{
  LangState *L = interp->L;
  if (result)
    *result = LANG_UNSET;
  /* An interrupt that arrived while nothing ran was meant for code that has finished. */
  atomic_store(&L->interrupt, 0);
  LangValue code = lang_compile_source(L, source, len, filename, flags);
  if (lang_is_exc(code))
    return false;
  LangValue r = lang_vm_run_module(L, (LangCode *)code.o, interp->main,
                                   (flags & LANG_COMPILE_RESULT) ? result : NULL);
  lang_decref(code);
  if (lang_is_exc(r))
    return false;
  lang_decref(r);
  return true;
}

/* ---- cells ------------------------------------------------------------------------------ */

void
lang_interp_cell_begin(LangInterp *interp, gint64 cell, const char *source, gssize len)
{
  g_return_if_fail(!interp->in_cell);
  TrEventBus *bus = lang_tf_event_bus(interp->L);
  interp->in_cell = true;
  interp->cell = cell;
  lang_tf_set_cell(interp->L, cell);
  TrEvent *ev = tr_event_new(TR_EVENT_CELL_START);
  ev->cell = cell;
  ev->text = len < 0 ? g_strdup(source) : g_strndup(source, (gsize)len);
  interp->cell_start_ns = tr_event_bus_now(bus);
  tr_event_bus_emit(bus, ev);
}

void
lang_interp_cell_end(LangInterp *interp, bool ok)
{
  g_return_if_fail(interp->in_cell);
  TrEventBus *bus = lang_tf_event_bus(interp->L);
  TrEvent *ev = tr_event_new(TR_EVENT_CELL_END);
  ev->cell = interp->cell;
  ev->dur_ns = tr_event_bus_now(bus) - interp->cell_start_ns;
  ev->ok = ok;
  tr_event_bus_emit(bus, ev);
  interp->in_cell = false;
  lang_tf_set_cell(interp->L, 0);
}

bool
lang_interp_run_cell(LangInterp *interp, const char *source, gssize len, const char *filename,
                     gint64 cell, unsigned flags, LangValue *result)
{
  lang_interp_cell_begin(interp, cell, source, len);
  bool ok = lang_interp_run(interp, source, len, filename, flags, result);
  lang_interp_cell_end(interp, ok);
  return ok;
}
