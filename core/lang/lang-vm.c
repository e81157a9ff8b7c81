/* lang-vm.c — the interpreter loop, frames, argument binding, functions, cells, generators.
 *
 * One vm_run() call executes an entry frame and every Python frame it calls, pushing and
 * popping frames without C recursion; it returns when the entry frame returns or yields.
 * Frames live in one malloc'd block each (locals, cells, free variables, then the value stack)
 * and are recycled through a small per-state cache, so a call costs no allocation in steady
 * state. Generator frames belong to their generator.
 *
 * Exceptions: a failing instruction jumps to `error`, which adds this frame to the
 * exception's traceback and looks the faulting instruction up in the code's exception table;
 * without a handler the frame is popped and the search continues in its caller.
 */
#include "lang-vm.h"
#include "lang-runtime-private.h"

#include <string.h>

struct LangFrame {
  LangCode *code;           /* owned reference */
  LangFunction *func;       /* owned reference, or NULL for module code */
  LangObject *globals;      /* dict, owned reference */
  LangObject *ns;           /* class bodies: the namespace dict (owned); else NULL */
  LangFrame *back;          /* the caller within the same vm_run(), or NULL */
  const uint32_t *ip;       /* next instruction */
  LangValue *sp;            /* one past the top of the value stack */
  LangValue *result;        /* module frames: where SET_RESULT stores, or NULL */
  struct FrameCache *cache; /* the state's cache, where the memory goes back */
  bool in_generator;        /* owned by a LangGenerator (never recycled while suspended) */
  bool depth_counted;       /* entered through lang_enter(): lang_leave() when popped */
  void *ag;                 /* AutoGraph: the if/while blocks being traced (LangAgHooks), or NULL */
  int capacity;             /* values[] entries allocated */
  LangValue values[];       /* locals, cells, free variables, then the value stack */
};

/* ---- frames ----------------------------------------------------------------------------- */

#define FRAME_CACHE_BUCKETS 8  /* capacities 16, 32, ... 2048 values */
#define FRAME_CACHE_DEPTH   32 /* frames kept per bucket */

/* Free frame memory of one state, by size (frames never move between states, so a kernel that
 * runs cells on different threads needs no locking, and teardown frees the cache). */
typedef struct FrameCache {
  LangFrame *frames[FRAME_CACHE_BUCKETS][FRAME_CACHE_DEPTH]; /* free frames by bucket */
  int count[FRAME_CACHE_BUCKETS];                            /* how many in each */
} FrameCache;

/* What the VM keeps per state (LangVmHooks.data). */
typedef struct {
  GHashTable *sources; /* filename -> GPtrArray of lines (char *) */
  FrameCache frames;   /* recycled frame memory */
  LangFrame *top;      /* the innermost running Python frame, or NULL */
} VmData;

static VmData *
vm_data(LangState *L)
{
  return L->vm.data;
}

static int
frame_bucket(int needed, int *capacity)
{
  int cap = 16;
  for (int b = 0; b < FRAME_CACHE_BUCKETS; b++, cap *= 2) {
    if (needed <= cap) {
      *capacity = cap;
      return b;
    }
  }
  *capacity = needed;
  return -1;
}

static LangFrame *
frame_alloc(FrameCache *cache, int needed)
{
  int capacity;
  int b = frame_bucket(needed, &capacity);
  LangFrame *f;
  if (b >= 0 && cache->count[b] > 0) {
    f = cache->frames[b][--cache->count[b]];
  } else {
    f = g_malloc(sizeof(LangFrame) + sizeof(LangValue) * (size_t)capacity);
    f->capacity = capacity;
  }
  f->cache = cache;
  return f;
}

static void
frame_release_memory(LangFrame *f)
{
  FrameCache *cache = f->cache;
  int capacity;
  int b = frame_bucket(f->capacity, &capacity);
  if (b >= 0 && capacity == f->capacity && cache->count[b] < FRAME_CACHE_DEPTH) {
    cache->frames[b][cache->count[b]++] = f;
    return;
  }
  g_free(f);
}

static void
frame_cache_clear(FrameCache *cache)
{
  for (int b = 0; b < FRAME_CACHE_BUCKETS; b++) {
    while (cache->count[b] > 0)
      g_free(cache->frames[b][--cache->count[b]]);
  }
}

static inline int
frame_n_slots(const LangCode *code)
{
  return code->n_locals + code->n_cells + code->n_free;
}

static inline LangValue *
frame_stack_base(LangFrame *f)
{
  return f->values + frame_n_slots(f->code);
}

/* A frame for `code` with every slot UNSET; takes references to code, func and globals. */
static LangFrame *
frame_new(LangState *L, LangCode *code, LangFunction *func, LangObject *globals)
{
  int slots = frame_n_slots(code);
  LangFrame *f = frame_alloc(&vm_data(L)->frames, slots + code->stacksize);
  f->code = code;
  code->base.refcount++;
  f->func = func;
  if (func)
    func->base.refcount++;
  f->globals = globals;
  globals->refcount++;
  f->ns = NULL;
  f->back = NULL;
  f->ip = code->code;
  f->result = NULL;
  f->in_generator = false;
  f->depth_counted = false;
  f->ag = NULL;
  for (int i = 0; i < slots; i++)
    f->values[i] = LANG_UNSET;
  f->sp = f->values + slots;
  return f;
}

/* Drops everything the frame holds and recycles its memory. */
static void
frame_free(LangFrame *f)
{
  for (LangValue *v = f->values; v < f->sp; v++)
    lang_decref(*v);
  lang_decref(lang_obj(f->code));
  if (f->func)
    lang_decref(lang_obj(f->func));
  lang_decref(lang_obj(f->globals));
  if (f->ns)
    lang_decref(lang_obj(f->ns));
  frame_release_memory(f);
}

/* ---- cells ------------------------------------------------------------------------------ */

static void
cell_dealloc(LangObject *o)
{
  lang_decref(((LangCell *)o)->ref);
}

static void
cell_clear(LangObject *o)
{
  LangCell *c = (LangCell *)o;
  LangValue v = c->ref;
  c->ref = LANG_UNSET;
  lang_decref(v);
}

static LangValue
cell_repr(LangState *L, LangValue self)
{
  LangCell *c = (LangCell *)self.o;
  if (c->ref.tag == LANG_TAG_UNSET)
    return lang_str_printf(L, "<cell at %p: empty>", (void *)c);
  return lang_str_printf(L, "<cell at %p: %s object at %p>", (void *)c, lang_type_name(c->ref),
                         (void *)c->ref.o);
}

LangType lang_cell_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "cell",
    .instance_size = sizeof(LangCell),
    .flags = LANG_TYPE_GC | LANG_TYPE_ABSTRACT_NEW,
    .slots = {.dealloc = cell_dealloc, .clear = cell_clear, .repr = cell_repr},
};

LangValue
lang_cell_new(LangState *L, LangValue v)
{
  LangCell *c = (LangCell *)lang_object_alloc(L, &lang_cell_type, sizeof(LangCell));
  c->ref = lang_incref(v);
  return lang_obj(c);
}

/* ---- source lines for tracebacks -------------------------------------------------------- */

static void
vm_data_free(gpointer data)
{
  VmData *vd = data;
  g_hash_table_unref(vd->sources);
  frame_cache_clear(&vd->frames);
  g_free(vd);
}

void
lang_vm_add_source(LangState *L, const char *filename, const char *source, gssize len)
{
  VmData *vd = vm_data(L);
  g_return_if_fail(vd != NULL);
  g_autofree char *copy = len < 0 ? g_strdup(source) : g_strndup(source, (gsize)len);
  GPtrArray *lines = g_ptr_array_new_with_free_func(g_free);
  char **parts = g_strsplit(copy, "\n", -1);
  for (char **p = parts; *p; p++) {
    size_t n = strlen(*p);
    if (n > 0 && (*p)[n - 1] == '\r')
      (*p)[n - 1] = '\0';
    g_ptr_array_add(lines, *p);
  }
  g_free(parts); /* the strings moved into `lines` */
  g_hash_table_replace(vd->sources, g_strdup(filename), lines);
}

static const char *
vm_source_line(void *data, const char *filename, int lineno)
{
  VmData *vd = data;
  GPtrArray *lines = g_hash_table_lookup(vd->sources, filename);
  if (!lines || lineno < 1 || (guint)lineno > lines->len)
    return NULL;
  return g_ptr_array_index(lines, lineno - 1);
}

/* ---- argument binding ------------------------------------------------------------------- */

static const char *
func_display_name(LangFunction *fn)
{
  return lang_str_data(fn->qualname);
}

/* Index of keyword `name` among the parameters that accept keywords, or -1. */
static int
find_keyword_param(LangCode *code, LangObject *name)
{
  int end = code->argcount + code->kwonlyargcount;
  for (int i = code->posonlyargcount; i < end; i++)
    if (code->varnames[i] == name)
      return i;
  for (int i = code->posonlyargcount; i < end; i++)
    if (lang_str_equal(code->varnames[i], name))
      return i;
  return -1;
}

/* CPython's report when keywords name positional-only parameters: every such parameter, in
 * parameter order ("f() got some positional-only arguments passed as keyword arguments:
 * 'a, b'"). Returns false when no keyword names one. */
static bool
raise_posonly_as_keyword(LangState *L, LangFunction *fn, LangObject *kwnames)
{
  LangCode *code = fn->code;
  GString *names = NULL;
  for (int i = 0; i < code->posonlyargcount; i++) {
    for (int64_t k = 0; k < lang_tuple_len(kwnames); k++) {
      if (!lang_str_equal(code->varnames[i], lang_tuple_get(kwnames, k).o))
        continue;
      if (!names)
        names = g_string_new(NULL);
      else
        g_string_append(names, ", ");
      g_string_append(names, lang_str_data(code->varnames[i]));
      break;
    }
  }
  if (!names)
    return false;
  lang_raise(L, &lang_exc_TypeError,
             "%s() got some positional-only arguments passed as keyword arguments: '%s'",
             func_display_name(fn), names->str);
  g_string_free(names, TRUE);
  return true;
}

/* Binds a call's arguments into the frame's locals as CPython does, with its error texts. */
static bool
bind_arguments(LangState *L, LangFrame *f, LangFunction *fn, const LangValue *args, int nargs,
               LangObject *kwnames)
{
  LangCode *code = fn->code;
  LangValue *locals = f->values;
  int n_kw = kwnames ? (int)lang_tuple_len(kwnames) : 0;
  int total_params = code->argcount + code->kwonlyargcount;
  LangObject *kwdict = NULL;

  if (code->flags & LANG_CODE_VARKEYWORDS) {
    LangValue d = lang_dict_new(L);
    kwdict = d.o;
    locals[total_params + ((code->flags & LANG_CODE_VARARGS) ? 1 : 0)] = d;
  }

  int n_pos = MIN(nargs, code->argcount);
  for (int i = 0; i < n_pos; i++)
    locals[i] = lang_incref(args[i]);

  if (code->flags & LANG_CODE_VARARGS) {
    int extra = nargs > code->argcount ? nargs - code->argcount : 0;
    LangValue t = lang_tuple_from(L, args + n_pos, extra);
    locals[total_params] = t;
  }

  for (int k = 0; k < n_kw; k++) {
    LangObject *name = lang_tuple_get(kwnames, k).o;
    LangValue value = args[nargs + k];
    int index = find_keyword_param(code, name);
    if (index < 0) {
      if (kwdict) {
        if (!lang_dict_set(L, kwdict, lang_obj(name), value))
          return false;
        continue;
      }
      if (raise_posonly_as_keyword(L, fn, kwnames))
        return false;
      lang_raise_unexpected_kwarg(L, func_display_name(fn), lang_str_data(name));
      return false;
    }
    if (locals[index].tag != LANG_TAG_UNSET) {
      lang_raise_multiple_values(L, func_display_name(fn), lang_str_data(name));
      return false;
    }
    locals[index] = lang_incref(value);
  }

  if (nargs > code->argcount && !(code->flags & LANG_CODE_VARARGS)) {
    int n_defaults = fn->defaults ? (int)lang_tuple_len(fn->defaults) : 0;
    int kwonly_given = 0;
    for (int i = code->argcount; i < total_params; i++)
      if (locals[i].tag != LANG_TAG_UNSET)
        kwonly_given++;
    lang_raise_too_many_positional(L, func_display_name(fn), code->argcount - n_defaults,
                                   code->argcount, nargs, kwonly_given);
    return false;
  }

  /* Missing positional parameters take their defaults, or are reported all at once. */
  int n_defaults = fn->defaults ? (int)lang_tuple_len(fn->defaults) : 0;
  int first_default = code->argcount - n_defaults;
  const char *missing[64];
  int n_missing = 0;
  for (int i = nargs; i < code->argcount; i++) {
    if (locals[i].tag != LANG_TAG_UNSET)
      continue;
    if (i >= first_default)
      locals[i] = lang_incref(lang_tuple_get(fn->defaults, i - first_default));
    else if (n_missing < (int)G_N_ELEMENTS(missing))
      missing[n_missing++] = lang_str_data(code->varnames[i]);
  }
  if (n_missing > 0) {
    lang_raise_missing_args(L, func_display_name(fn), "positional", missing, n_missing);
    return false;
  }
  for (int i = code->argcount; i < total_params; i++) {
    if (locals[i].tag != LANG_TAG_UNSET)
      continue;
    LangValue dflt =
        fn->kwdefaults ? lang_dict_get_str(fn->kwdefaults, code->varnames[i]) : LANG_UNSET;
    if (dflt.tag != LANG_TAG_UNSET)
      locals[i] = lang_incref(dflt);
    else if (n_missing < (int)G_N_ELEMENTS(missing))
      missing[n_missing++] = lang_str_data(code->varnames[i]);
  }
  if (n_missing > 0) {
    lang_raise_missing_args(L, func_display_name(fn), "keyword-only", missing, n_missing);
    return false;
  }
  return true;
}

/* Cells for the code's cell variables (a parameter that is also a cell moves into its cell)
 * and the closure's cells for its free variables. */
static void
setup_cells(LangState *L, LangFrame *f, LangFunction *fn)
{
  LangCode *code = f->code;
  LangValue *cells = f->values + code->n_locals;
  for (int i = 0; i < code->n_cells; i++) {
    int arg = code->cell2arg ? code->cell2arg[i] : -1;
    if (arg >= 0) {
      cells[i] = lang_cell_new(L, f->values[arg]);
      lang_decref(f->values[arg]);
      f->values[arg] = LANG_UNSET;
    } else {
      cells[i] = lang_cell_new(L, LANG_UNSET);
    }
  }
  for (int i = 0; i < code->n_free; i++)
    cells[code->n_cells + i] = lang_incref(lang_tuple_get(fn->closure, i));
}

/* A frame ready to run `fn` on these arguments, or NULL with the exception raised. */
static LangFrame *
frame_for_call(LangState *L, LangFunction *fn, const LangValue *args, int nargs,
               LangObject *kwnames)
{
  LangFrame *f = frame_new(L, fn->code, fn, fn->globals);
  if (!bind_arguments(L, f, fn, args, nargs, kwnames)) {
    f->sp = f->values + frame_n_slots(f->code);
    frame_free(f);
    return NULL;
  }
  setup_cells(L, f, fn);
  return f;
}

/* ---- the loop --------------------------------------------------------------------------- */

typedef enum {
  RUN_RETURNED, /* the entry frame returned: the result is its value */
  RUN_YIELDED,  /* the entry frame (a generator's) yielded: the result is the value */
  RUN_RAISED,   /* an exception escaped the entry frame */
} RunStatus;

static LangValue vm_run(LangState *L, LangFrame *entry, bool throwing, RunStatus *status);
static LangValue vm_run_frames(LangState *L, LangFrame *entry, bool throwing, RunStatus *status);
static LangValue generator_new(LangState *L, LangFrame *f, LangFunction *fn);

static LangValue
raise_name_error(LangState *L, LangObject *name)
{
  return lang_raise(L, &lang_exc_NameError, "name '%s' is not defined", lang_str_data(name));
}

static LangValue
raise_unbound_local(LangState *L, LangObject *name)
{
  return lang_raise(L, &lang_exc_UnboundLocalError,
                    "cannot access local variable '%s' where it is not associated with a value",
                    lang_str_data(name));
}

static LangValue
raise_unbound_free(LangState *L, LangCode *code, int index)
{
  LangObject *name = code->cellnames[index];
  if (index < code->n_cells)
    return raise_unbound_local(L, name);
  return lang_raise(L, &lang_exc_NameError,
                    "cannot access free variable '%s' where it is not associated with a value in "
                    "enclosing scope",
                    lang_str_data(name));
}

/* globals, then builtins; borrowed or UNSET. */
static LangValue
lookup_global(LangState *L, LangObject *globals, LangObject *name)
{
  LangValue v = lang_dict_get_str(globals, name);
  if (v.tag != LANG_TAG_UNSET)
    return v;
  return lang_dict_get_str(L->builtins, name);
}

/* The handler covering instruction `index`, or NULL. */
static const LangExcEntry *
find_handler(const LangCode *code, uint32_t index)
{
  int lo = 0, hi = code->n_exc - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    const LangExcEntry *e = &code->exc_table[mid];
    if (index < e->start)
      hi = mid - 1;
    else if (index >= e->end)
      lo = mid + 1;
    else
      return e;
  }
  return NULL;
}

/* A call made from the loop to anything that is not inlined. */
static LangValue
call_other(LangState *L, LangValue callable, const LangValue *args, int nargs, LangObject *kwnames)
{
  return lang_call(L, callable, args, nargs, kwnames);
}

static bool
is_iterable(LangValue v)
{
  LangType *t = lang_type_of(v);
  return t->slots.iter != NULL || t->slots.getitem != NULL;
}

/* f(*args, **kwargs): flattens the tuple and dict into one argument vector. */
static LangValue
call_ex(LangState *L, LangValue callable, LangValue self, LangValue argtuple, LangValue kwdict)
{
  int64_t n_pos = lang_tuple_len(argtuple.o);
  int64_t n_kw = kwdict.tag == LANG_TAG_OBJ ? ((LangDict *)kwdict.o)->used : 0;
  bool has_self = self.tag != LANG_TAG_UNSET;
  int64_t total = (has_self ? 1 : 0) + n_pos + n_kw;
  g_autofree LangValue *argv = g_new(LangValue, total > 0 ? total : 1);
  int64_t k = 0;
  if (has_self)
    argv[k++] = self;
  for (int64_t i = 0; i < n_pos; i++)
    argv[k++] = lang_tuple_get(argtuple.o, i);
  LangValue kwnames = LANG_UNSET;
  if (n_kw > 0) {
    kwnames = lang_tuple_new(L, n_kw);
    int64_t pos = 0, i = 0;
    LangValue key, value;
    while (lang_dict_next(kwdict.o, &pos, &key, &value)) {
      if (!lang_is_str(key)) {
        lang_decref(kwnames);
        return lang_raise_str(L, &lang_exc_TypeError, "keywords must be strings");
      }
      lang_tuple_set(kwnames, i++, lang_incref(key));
      argv[k++] = value;
    }
  }
  LangValue result =
      call_other(L, callable, argv, (int)(total - n_kw), n_kw > 0 ? kwnames.o : NULL);
  lang_decref(kwnames);
  return result;
}

static LangValue
format_value(LangState *L, LangValue v, int conversion, LangValue spec)
{
  LangValue converted;
  switch (conversion) {
    case 1:
      converted = lang_str(L, v);
      break;
    case 2:
      converted = lang_repr(L, v);
      break;
    case 3:
      converted = lang_ascii(L, v);
      break;
    default:
      converted = lang_incref(v);
  }
  if (lang_is_exc(converted))
    return LANG_EXC;
  LangValue out;
  if (spec.tag == LANG_TAG_UNSET && lang_is_str(converted))
    out = lang_incref(converted);
  else
    out = lang_format(L, converted, spec.tag == LANG_TAG_OBJ ? spec.o : NULL);
  lang_decref(converted);
  return out;
}

static LangValue
build_string(LangState *L, const LangValue *parts, int n)
{
  int64_t size = 0;
  for (int i = 0; i < n; i++)
    size += lang_str_size(parts[i].o);
  char *data;
  LangValue s = lang_str_alloc(L, size, &data);
  for (int i = 0; i < n; i++) {
    int64_t k = lang_str_size(parts[i].o);
    memcpy(data, lang_str_data(parts[i].o), (size_t)k);
    data += k;
  }
  lang_str_seal(s);
  return s;
}

static LangValue
build_map(LangState *L, const LangValue *items, int n)
{
  LangValue d = lang_dict_new(L);
  for (int i = 0; i < n; i++) {
    if (!lang_dict_set(L, d.o, items[2 * i], items[2 * i + 1])) {
      lang_decref(d);
      return LANG_EXC;
    }
  }
  return d;
}

/* f(**m) into the dict being built: keys must be str and not repeat. */
static bool
dict_merge(LangState *L, LangObject *dict, LangValue mapping, LangValue func)
{
  if (!lang_is_dict(mapping)) {
    LangValue copy = lang_dict_new(L);
    if (!lang_dict_update(L, copy.o, mapping)) {
      lang_decref(copy);
      if (lang_exc_matches(L, &lang_exc_AttributeError) ||
          lang_exc_matches(L, &lang_exc_TypeError)) {
        lang_exc_clear(L);
        lang_raise(L, &lang_exc_TypeError, "%s argument after ** must be a mapping, not %s",
                   "function", lang_type_name(mapping));
      }
      return false;
    }
    bool ok = dict_merge(L, dict, copy, func);
    lang_decref(copy);
    return ok;
  }
  int64_t pos = 0;
  LangValue key, value;
  while (lang_dict_next(mapping.o, &pos, &key, &value)) {
    if (!lang_is_str(key)) {
      lang_raise_str(L, &lang_exc_TypeError, "keywords must be strings");
      return false;
    }
    LangValue existing;
    int found = lang_dict_lookup(L, dict, key, &existing);
    if (found < 0)
      return false;
    if (found) {
      lang_raise(L, &lang_exc_TypeError, "got multiple values for keyword argument '%s'",
                 lang_str_data(key.o));
      return false;
    }
    if (!lang_dict_set(L, dict, key, value))
      return false;
  }
  return true;
}

static LangValue
before_with(LangState *L, LangValue mgr, LangValue *exit_out)
{
  LangValue enter = lang_getattr_opt(L, mgr, lang_intern("__enter__"));
  if (lang_is_exc(enter))
    return LANG_EXC;
  LangValue exit = lang_getattr_opt(L, mgr, lang_intern("__exit__"));
  if (lang_is_exc(exit)) {
    lang_decref(enter);
    return LANG_EXC;
  }
  if (enter.tag == LANG_TAG_UNSET || exit.tag == LANG_TAG_UNSET) {
    lang_decref(enter);
    lang_decref(exit);
    if (enter.tag == LANG_TAG_UNSET)
      return lang_raise(L, &lang_exc_TypeError,
                        "'%s' object does not support the context manager protocol",
                        lang_type_name(mgr));
    return lang_raise(L, &lang_exc_TypeError,
                      "'%s' object does not support the context manager protocol (missed "
                      "__exit__ method)",
                      lang_type_name(mgr));
  }
  LangValue result = lang_call(L, enter, NULL, 0, NULL);
  lang_decref(enter);
  if (lang_is_exc(result)) {
    lang_decref(exit);
    return LANG_EXC;
  }
  *exit_out = exit;
  return result;
}

static LangValue
import_from(LangState *L, LangValue module, LangObject *name)
{
  LangValue v = lang_getattr_opt(L, module, name);
  if (v.tag != LANG_TAG_UNSET)
    return v;
  LangValue modname = lang_getattr_opt(L, module, lang_intern("__name__"));
  const char *mod = lang_is_str(modname) ? lang_str_data(modname.o) : "?";
  lang_raise(L, &lang_exc_ImportError, "cannot import name '%s' from '%s' (unknown location)",
             lang_str_data(name), mod);
  lang_decref(modname);
  return LANG_EXC;
}

static bool
import_star(LangState *L, LangObject *globals, LangValue module)
{
  LangObject *dict = lang_module_dict(module);
  int64_t pos = 0;
  LangValue key, value;
  while (lang_dict_next(dict, &pos, &key, &value)) {
    if (lang_is_str(key) && lang_str_data(key.o)[0] == '_')
      continue;
    if (!lang_dict_set(L, globals, key, value))
      return false;
  }
  return true;
}

/* Pushes the function it creates from the code object and the parts MAKE_FUNCTION pops. */
static LangValue
make_function(LangState *L, LangCode *code, LangObject *globals, LangValue defaults,
              LangValue kwdefaults, LangValue closure)
{
  LangFunction *fn =
      (LangFunction *)lang_object_alloc(L, &lang_function_type, sizeof(LangFunction));
  fn->code = code;
  code->base.refcount++;
  fn->globals = globals;
  globals->refcount++;
  fn->defaults = defaults.tag == LANG_TAG_OBJ ? lang_incref(defaults).o : NULL;
  fn->kwdefaults = kwdefaults.tag == LANG_TAG_OBJ ? lang_incref(kwdefaults).o : NULL;
  fn->closure = closure.tag == LANG_TAG_OBJ ? lang_incref(closure).o : NULL;
  fn->name = lang_incref(lang_obj(code->name)).o;
  fn->qualname = lang_incref(lang_obj(code->qualname)).o;
  LangValue modname = lang_dict_get_cstr(globals, "__name__");
  fn->module = lang_is_str(modname) ? lang_incref(modname).o : NULL;
  fn->doc = code->doc ? lang_incref(lang_obj(code->doc)) : LANG_NONE;
  fn->dict = NULL;
  return lang_obj(fn);
}

/* Runs `entry` (and everything it calls) until it returns, yields or raises. With `throwing`
 * the pending exception is raised at the frame's current instruction first (generator.throw). */
/* Runs `entry` and the frames it calls; keeps VmData.top on the innermost one so that native
 * code can ask where it was called from (lang_vm_current_location). */
static LangValue
vm_run(LangState *L, LangFrame *entry, bool throwing, RunStatus *status)
{
  VmData *d = vm_data(L);
  LangFrame *outer = d->top;
  d->top = entry;
  LangValue r = vm_run_frames(L, entry, throwing, status);
  d->top = outer;
  return r;
}

static LangValue
vm_run_frames(LangState *L, LangFrame *entry, bool throwing, RunStatus *status)
{
  static const void *const labels[] = {
#define LANG_OPCODE_LABEL(name, effect, jump_effect, is_jump) &&op_##name,
      LANG_OPCODE_LIST(LANG_OPCODE_LABEL)
#undef LANG_OPCODE_LABEL
  };

  LangFrame *f = entry;
  LangCode *code;
  const uint32_t *ip;
  LangValue *sp;
  LangValue *locals;
  LangObject *kwnames = NULL;
  uint32_t word, arg;
  bool reraise = false; /* the exception being unwound was re-raised: no new traceback entry */

#define LOAD_FRAME()                                                                               \
  do {                                                                                             \
    code = f->code;                                                                                \
    ip = f->ip;                                                                                    \
    sp = f->sp;                                                                                    \
    locals = f->values;                                                                            \
  } while (0)
#define SAVE_FRAME()                                                                               \
  do {                                                                                             \
    f->ip = ip;                                                                                    \
    f->sp = sp;                                                                                    \
  } while (0)
#define DISPATCH()                                                                                 \
  do {                                                                                             \
    word = *ip++;                                                                                  \
    arg = LANG_INSTR_ARG(word);                                                                    \
    goto *labels[LANG_INSTR_OP(word)];                                                             \
  } while (0)
#define PUSH(v) (*sp++ = (v))
#define POP()   (*--sp)
#define TOP()   (sp[-1])
#define PEEK(n) (sp[-(ptrdiff_t)(n)])
#define FAIL()  goto error
#define CHECK(v)                                                                                   \
  do {                                                                                             \
    if (lang_is_exc(v))                                                                            \
      goto error;                                                                                  \
  } while (0)

  LOAD_FRAME();
  if (throwing) {
    ip++; /* the error path reads the faulting instruction as ip - 1 */
    goto error;
  }
  DISPATCH();

op_NOP:
  DISPATCH();

op_POP_TOP:
  lang_decref(POP());
  DISPATCH();

op_PUSH_NULL:
  PUSH(LANG_UNSET);
  DISPATCH();

op_COPY : {
  LangValue v = lang_incref(PEEK(arg));
  PUSH(v);
  DISPATCH();
}

op_SWAP : {
  LangValue t = TOP();
  TOP() = PEEK(arg);
  PEEK(arg) = t;
  DISPATCH();
}

op_LOAD_CONST:
  PUSH(lang_incref(code->consts[arg]));
  DISPATCH();

op_LOAD_FAST : {
  LangValue v = locals[arg];
  if (G_UNLIKELY(v.tag == LANG_TAG_UNSET)) {
    raise_unbound_local(L, code->varnames[arg]);
    FAIL();
  }
  PUSH(lang_incref(v));
  DISPATCH();
}

op_STORE_FAST : {
  LangValue old = locals[arg];
  locals[arg] = POP();
  lang_decref(old);
  DISPATCH();
}

op_DELETE_FAST : {
  LangValue old = locals[arg];
  if (old.tag == LANG_TAG_UNSET) {
    raise_unbound_local(L, code->varnames[arg]);
    FAIL();
  }
  locals[arg] = LANG_UNSET;
  lang_decref(old);
  DISPATCH();
}

op_LOAD_DEREF : {
  LangCell *cell = (LangCell *)locals[code->n_locals + arg].o;
  if (cell->ref.tag == LANG_TAG_UNSET) {
    raise_unbound_free(L, code, (int)arg);
    FAIL();
  }
  PUSH(lang_incref(cell->ref));
  DISPATCH();
}

op_STORE_DEREF : {
  LangCell *cell = (LangCell *)locals[code->n_locals + arg].o;
  LangValue old = cell->ref;
  cell->ref = POP();
  lang_decref(old);
  DISPATCH();
}

op_DELETE_DEREF : {
  LangCell *cell = (LangCell *)locals[code->n_locals + arg].o;
  LangValue old = cell->ref;
  if (old.tag == LANG_TAG_UNSET) {
    raise_unbound_free(L, code, (int)arg);
    FAIL();
  }
  cell->ref = LANG_UNSET;
  lang_decref(old);
  DISPATCH();
}

op_LOAD_CLOSURE:
  PUSH(lang_incref(locals[code->n_locals + arg]));
  DISPATCH();

op_LOAD_GLOBAL : {
  LangValue v = lookup_global(L, f->globals, code->names[arg]);
  if (G_UNLIKELY(v.tag == LANG_TAG_UNSET)) {
    raise_name_error(L, code->names[arg]);
    FAIL();
  }
  PUSH(lang_incref(v));
  DISPATCH();
}

op_STORE_GLOBAL : {
  LangValue v = POP();
  bool ok = lang_dict_set(L, f->globals, lang_obj(code->names[arg]), v);
  lang_decref(v);
  if (!ok)
    FAIL();
  DISPATCH();
}

op_DELETE_GLOBAL : {
  int r = lang_dict_del(L, f->globals, lang_obj(code->names[arg]));
  if (r < 0)
    FAIL();
  if (r == 0) {
    raise_name_error(L, code->names[arg]);
    FAIL();
  }
  DISPATCH();
}

op_LOAD_NAME : {
  LangValue v = f->ns ? lang_dict_get_str(f->ns, code->names[arg]) : LANG_UNSET;
  if (v.tag == LANG_TAG_UNSET)
    v = lookup_global(L, f->globals, code->names[arg]);
  if (v.tag == LANG_TAG_UNSET) {
    raise_name_error(L, code->names[arg]);
    FAIL();
  }
  PUSH(lang_incref(v));
  DISPATCH();
}

op_STORE_NAME : {
  LangValue v = POP();
  bool ok = lang_dict_set(L, f->ns ? f->ns : f->globals, lang_obj(code->names[arg]), v);
  lang_decref(v);
  if (!ok)
    FAIL();
  DISPATCH();
}

op_DELETE_NAME : {
  int r = lang_dict_del(L, f->ns ? f->ns : f->globals, lang_obj(code->names[arg]));
  if (r < 0)
    FAIL();
  if (r == 0) {
    raise_name_error(L, code->names[arg]);
    FAIL();
  }
  DISPATCH();
}

op_LOAD_CLASSDEREF : {
  LangObject *name = code->cellnames[arg];
  LangValue v = f->ns ? lang_dict_get_str(f->ns, name) : LANG_UNSET;
  if (v.tag == LANG_TAG_UNSET) {
    LangCell *cell = (LangCell *)locals[code->n_locals + arg].o;
    v = cell->ref;
    if (v.tag == LANG_TAG_UNSET) {
      raise_unbound_free(L, code, (int)arg);
      FAIL();
    }
  }
  PUSH(lang_incref(v));
  DISPATCH();
}

op_LOAD_ATTR : {
  LangValue obj = TOP();
  LangValue v = lang_getattr(L, obj, code->names[arg]);
  CHECK(v);
  TOP() = v;
  lang_decref(obj);
  DISPATCH();
}

op_STORE_ATTR : {
  LangValue obj = POP();
  LangValue v = POP();
  bool ok = lang_setattr(L, obj, code->names[arg], v);
  lang_decref(obj);
  lang_decref(v);
  if (!ok)
    FAIL();
  DISPATCH();
}

op_DELETE_ATTR : {
  LangValue obj = POP();
  bool ok = lang_delattr(L, obj, code->names[arg]);
  lang_decref(obj);
  if (!ok)
    FAIL();
  DISPATCH();
}

op_LOAD_METHOD : {
  /* A plain function found on the type is pushed unbound with the object as its first
   * argument, saving the bound-method object; anything else is an ordinary attribute. */
  LangValue obj = TOP();
  LangType *type = lang_type_of(obj);
  LangObject **dictp = lang_instance_dict_ptr(obj);
  LangValue attr = LANG_UNSET;
  bool shadowed =
      dictp && *dictp && lang_dict_get_str(*dictp, code->names[arg]).tag != LANG_TAG_UNSET;
  if (!shadowed && !(type->flags & LANG_TYPE_HEAP && type->slots.getattr != NULL &&
                     type->slots.getattr != lang_generic_getattr))
    attr = lang_type_lookup(type, code->names[arg]);
  bool plain_method =
      attr.tag == LANG_TAG_OBJ &&
      (attr.o->type == &lang_function_type ||
       (attr.o->type == &lang_method_descr_type &&
        !(((LangNative *)attr.o)->def->flags & (LANG_METH_CLASS | LANG_METH_STATIC))));
  if (plain_method) {
    TOP() = lang_incref(attr);
    PUSH(obj);
    DISPATCH();
  }
  LangValue v = lang_getattr(L, obj, code->names[arg]);
  CHECK(v);
  TOP() = LANG_UNSET;
  PUSH(v);
  lang_decref(obj);
  DISPATCH();
}

op_BINARY_OP : {
  LangValue b = POP();
  LangValue a = TOP();
  LangValue r;
  if (a.tag == LANG_TAG_INT && b.tag == LANG_TAG_INT) {
    int64_t x;
    switch (arg) {
      case LANG_ARITH_ADD:
        if (!__builtin_add_overflow(a.i, b.i, &x)) {
          TOP() = lang_int(x);
          DISPATCH();
        }
        break;
      case LANG_ARITH_SUB:
        if (!__builtin_sub_overflow(a.i, b.i, &x)) {
          TOP() = lang_int(x);
          DISPATCH();
        }
        break;
      case LANG_ARITH_MUL:
        if (!__builtin_mul_overflow(a.i, b.i, &x)) {
          TOP() = lang_int(x);
          DISPATCH();
        }
        break;
      default:
        break;
    }
  } else if (a.tag == LANG_TAG_FLOAT && b.tag == LANG_TAG_FLOAT) {
    switch (arg) {
      case LANG_ARITH_ADD:
        TOP() = lang_float(a.f + b.f);
        DISPATCH();
      case LANG_ARITH_SUB:
        TOP() = lang_float(a.f - b.f);
        DISPATCH();
      case LANG_ARITH_MUL:
        TOP() = lang_float(a.f * b.f);
        DISPATCH();
      default:
        break;
    }
  }
  r = lang_binary(L, (LangArith)arg, a, b);
  lang_decref(b);
  if (lang_is_exc(r)) {
    lang_decref(POP());
    FAIL();
  }
  TOP() = r;
  lang_decref(a);
  DISPATCH();
}

op_INPLACE_OP : {
  LangValue b = POP();
  LangValue a = TOP();
  if (a.tag == LANG_TAG_INT && b.tag == LANG_TAG_INT && arg == LANG_ARITH_ADD) {
    int64_t x;
    if (!__builtin_add_overflow(a.i, b.i, &x)) {
      TOP() = lang_int(x);
      DISPATCH();
    }
  }
  LangValue r = lang_inplace(L, (LangArith)arg, a, b);
  lang_decref(b);
  if (lang_is_exc(r)) {
    lang_decref(POP());
    FAIL();
  }
  TOP() = r;
  lang_decref(a);
  DISPATCH();
}

op_UNARY_OP : {
  LangValue a = TOP();
  LangValue r = lang_unary(L, (LangUnaryArith)arg, a);
  CHECK(r);
  TOP() = r;
  lang_decref(a);
  DISPATCH();
}

op_UNARY_NOT : {
  LangValue a = TOP();
  if (a.tag == LANG_TAG_OBJ && lang_ag_symbolic(L, a)) {
    LangValue r = lang_ag_not(L, a);
    CHECK(r);
    TOP() = r;
    lang_decref(a);
    DISPATCH();
  }
  int t = lang_truth(L, a);
  if (t < 0)
    FAIL();
  TOP() = lang_bool(!t);
  lang_decref(a);
  DISPATCH();
}

op_COMPARE_OP : {
  LangValue b = POP();
  LangValue a = TOP();
  if (a.tag == LANG_TAG_INT && b.tag == LANG_TAG_INT) {
    bool r;
    switch ((LangCompareOp)arg) {
      case LANG_LT:
        r = a.i < b.i;
        break;
      case LANG_LE:
        r = a.i <= b.i;
        break;
      case LANG_EQ:
        r = a.i == b.i;
        break;
      case LANG_NE:
        r = a.i != b.i;
        break;
      case LANG_GT:
        r = a.i > b.i;
        break;
      default:
        r = a.i >= b.i;
        break;
    }
    TOP() = lang_bool(r);
    DISPATCH();
  }
  LangValue r = lang_compare(L, a, b, (LangCompareOp)arg);
  lang_decref(b);
  if (lang_is_exc(r)) {
    lang_decref(POP());
    FAIL();
  }
  TOP() = r;
  lang_decref(a);
  DISPATCH();
}

op_IS_OP : {
  LangValue b = POP();
  LangValue a = TOP();
  bool r = lang_is(a, b) != (arg != 0);
  TOP() = lang_bool(r);
  lang_decref(a);
  lang_decref(b);
  DISPATCH();
}

op_CONTAINS_OP : {
  LangValue container = POP();
  LangValue item = TOP();
  int r = lang_contains(L, container, item);
  lang_decref(container);
  if (r < 0) {
    lang_decref(POP());
    FAIL();
  }
  TOP() = lang_bool((r != 0) != (arg != 0));
  lang_decref(item);
  DISPATCH();
}

op_BINARY_SUBSCR : {
  LangValue key = POP();
  LangValue obj = TOP();
  LangValue r = lang_getitem(L, obj, key);
  lang_decref(key);
  if (lang_is_exc(r)) {
    lang_decref(POP());
    FAIL();
  }
  TOP() = r;
  lang_decref(obj);
  DISPATCH();
}

op_STORE_SUBSCR : {
  LangValue key = POP();
  LangValue obj = POP();
  LangValue v = POP();
  bool ok = lang_setitem(L, obj, key, v);
  lang_decref(key);
  lang_decref(obj);
  lang_decref(v);
  if (!ok)
    FAIL();
  DISPATCH();
}

op_DELETE_SUBSCR : {
  LangValue key = POP();
  LangValue obj = POP();
  bool ok = lang_delitem(L, obj, key);
  lang_decref(key);
  lang_decref(obj);
  if (!ok)
    FAIL();
  DISPATCH();
}

op_BUILD_TUPLE : {
  LangValue t = lang_tuple_new(L, arg);
  for (uint32_t i = 0; i < arg; i++)
    lang_tuple_set(t, i, sp[-(int)arg + (int)i]);
  sp -= arg;
  PUSH(t);
  DISPATCH();
}

op_BUILD_LIST : {
  LangValue l = lang_list_new(L, arg);
  for (uint32_t i = 0; i < arg; i++)
    lang_list_set(l.o, i, sp[-(int)arg + (int)i]);
  sp -= arg;
  PUSH(l);
  DISPATCH();
}

op_BUILD_SET : {
  LangValue s = lang_set_new(L);
  bool ok = true;
  for (uint32_t i = 0; i < arg; i++) {
    LangValue item = sp[-(int)arg + (int)i];
    if (ok)
      ok = lang_set_add(L, s.o, item);
    lang_decref(item);
  }
  sp -= arg;
  if (!ok) {
    lang_decref(s);
    FAIL();
  }
  PUSH(s);
  DISPATCH();
}

op_BUILD_MAP : {
  LangValue d = build_map(L, sp - 2 * arg, (int)arg);
  for (uint32_t i = 0; i < 2 * arg; i++)
    lang_decref(POP());
  CHECK(d);
  PUSH(d);
  DISPATCH();
}

op_BUILD_SLICE : {
  LangValue step = arg == 3 ? POP() : LANG_NONE;
  LangValue stop = POP();
  LangValue start = POP();
  LangValue s = lang_slice_new(L, start, stop, step);
  lang_decref(start);
  lang_decref(stop);
  lang_decref(step);
  CHECK(s);
  PUSH(s);
  DISPATCH();
}

op_BUILD_STRING : {
  LangValue s = build_string(L, sp - arg, (int)arg);
  for (uint32_t i = 0; i < arg; i++)
    lang_decref(POP());
  PUSH(s);
  DISPATCH();
}

op_FORMAT_VALUE : {
  LangValue spec = (arg & 4) ? POP() : LANG_UNSET;
  LangValue v = TOP();
  LangValue s = format_value(L, v, (int)(arg & 3), spec);
  lang_decref(spec);
  CHECK(s);
  TOP() = s;
  lang_decref(v);
  DISPATCH();
}

op_LIST_APPEND : {
  LangValue v = POP();
  bool ok = lang_list_append(L, PEEK(arg).o, v);
  lang_decref(v);
  if (!ok)
    FAIL();
  DISPATCH();
}

op_SET_ADD : {
  LangValue v = POP();
  bool ok = lang_set_add(L, PEEK(arg).o, v);
  lang_decref(v);
  if (!ok)
    FAIL();
  DISPATCH();
}

op_MAP_ADD : {
  LangValue v = POP();
  LangValue k = POP();
  bool ok = lang_dict_set(L, PEEK(arg).o, k, v);
  lang_decref(k);
  lang_decref(v);
  if (!ok)
    FAIL();
  DISPATCH();
}

op_LIST_EXTEND : {
  LangValue it = POP();
  bool ok = lang_list_extend(L, PEEK(arg).o, it);
  if (!ok && lang_exc_matches(L, &lang_exc_TypeError) && !is_iterable(it)) {
    lang_exc_clear(L);
    lang_raise(L, &lang_exc_TypeError, "Value after * must be an iterable, not %s",
               lang_type_name(it));
  }
  lang_decref(it);
  if (!ok)
    FAIL();
  DISPATCH();
}

op_SET_UPDATE : {
  LangValue it = POP();
  LangValue iter = lang_iter(L, it);
  lang_decref(it);
  CHECK(iter);
  for (;;) {
    LangValue item = lang_next(L, iter);
    if (item.tag == LANG_TAG_UNSET)
      break;
    if (lang_is_exc(item) || !lang_set_add(L, PEEK(arg).o, item)) {
      lang_decref(item);
      lang_decref(iter);
      FAIL();
    }
    lang_decref(item);
  }
  lang_decref(iter);
  DISPATCH();
}

op_DICT_UPDATE : {
  LangValue m = POP();
  bool ok = lang_dict_update(L, PEEK(arg).o, m);
  if (!ok && lang_exc_matches(L, &lang_exc_AttributeError)) {
    lang_exc_clear(L);
    lang_raise(L, &lang_exc_TypeError, "'%s' object is not a mapping", lang_type_name(m));
  }
  lang_decref(m);
  if (!ok)
    FAIL();
  DISPATCH();
}

op_DICT_MERGE : {
  LangValue m = POP();
  bool ok = dict_merge(L, PEEK(arg).o, m, LANG_UNSET);
  lang_decref(m);
  if (!ok)
    FAIL();
  DISPATCH();
}

op_LIST_TO_TUPLE : {
  LangValue l = TOP();
  LangList *list = (LangList *)l.o;
  LangValue t = lang_tuple_from(L, list->items, list->n);
  TOP() = t;
  lang_decref(l);
  DISPATCH();
}

op_JUMP_FORWARD:
  ip = code->code + arg;
  DISPATCH();

op_AG_ELSE:
  if (G_UNLIKELY(f->ag != NULL)) {
    f->ip = ip;
    int to = lang_ag_else(L, f, (int)(ip - code->code) - 1);
    if (to == LANG_AG_RAISE)
      FAIL();
    if (to == LANG_AG_NEXT)
      DISPATCH();
  }
  ip = code->code + arg;
  DISPATCH();

op_AG_BREAK:
  if (G_UNLIKELY(f->ag != NULL)) {
    /* A break or continue of a graph loop ends the graph branch it is in. */
    f->ip = ip;
    int to = lang_ag_break(L, f, (int)arg);
    if (to == LANG_AG_RAISE)
      FAIL();
    if (to >= 0) {
      ip = code->code + to;
      DISPATCH();
    }
  }
  DISPATCH();

op_AG_END:
  if (G_UNLIKELY(f->ag != NULL)) {
    f->ip = ip;
    if (lang_ag_end(L, f, (int)arg) == LANG_AG_RAISE)
      FAIL();
  }
  DISPATCH();

op_AG_LOOP:
  if (G_UNLIKELY(f->ag != NULL)) {
    f->ip = ip;
    int to = lang_ag_loop(L, f, (int)(ip - code->code) - 1);
    if (to == LANG_AG_RAISE)
      FAIL();
    if (to >= 0) {
      ip = code->code + to;
      DISPATCH();
    }
  }
  /* fall through: the plain back edge */
op_JUMP_BACKWARD:
  ip = code->code + arg;
  if (G_UNLIKELY(atomic_load_explicit(&L->interrupt, memory_order_relaxed)) &&
      !lang_check_interrupt(L))
    FAIL();
  DISPATCH();

op_POP_JUMP_IF_FALSE:
op_POP_JUMP_IF_TRUE : {
  LangValue v = POP();
  int t;
  if (v.tag == LANG_TAG_BOOL)
    t = v.b;
  else {
    if (code->n_loops > 0 && v.tag == LANG_TAG_OBJ) {
      /* A symbolic tensor tested by an if or while of a function: AutoGraph. */
      f->ip = ip;
      int to = lang_ag_test(L, f, (int)(ip - code->code) - 1, v, (int)(sp - frame_stack_base(f)));
      if (to != LANG_AG_PLAIN) {
        lang_decref(v);
        if (to == LANG_AG_RAISE)
          FAIL();
        if (to >= 0)
          ip = code->code + to;
        DISPATCH();
      }
    }
    t = lang_truth(L, v);
    lang_decref(v);
    if (t < 0)
      FAIL();
  }
  if ((t != 0) == (LANG_INSTR_OP(word) == LANG_OP_POP_JUMP_IF_TRUE))
    ip = code->code + arg;
  DISPATCH();
}

op_POP_JUMP_IF_NONE:
op_POP_JUMP_IF_NOT_NONE : {
  LangValue v = POP();
  bool is_none = v.tag == LANG_TAG_NONE;
  lang_decref(v);
  if (is_none == (LANG_INSTR_OP(word) == LANG_OP_POP_JUMP_IF_NONE))
    ip = code->code + arg;
  DISPATCH();
}

op_JUMP_IF_FALSE_OR_POP:
op_JUMP_IF_TRUE_OR_POP : {
  int t = lang_truth(L, TOP());
  if (t < 0)
    FAIL();
  if ((t != 0) == (LANG_INSTR_OP(word) == LANG_OP_JUMP_IF_TRUE_OR_POP))
    ip = code->code + arg;
  else
    lang_decref(POP());
  DISPATCH();
}

op_AG_AND:
op_AG_OR:
op_AG_AND_KEEP:
op_AG_OR_KEEP : {
  LangOpcode op = LANG_INSTR_OP(word);
  bool is_or = op == LANG_OP_AG_OR || op == LANG_OP_AG_OR_KEEP;
  bool keep = op == LANG_OP_AG_AND_KEEP || op == LANG_OP_AG_OR_KEEP;
  LangValue x = POP();
  if (x.tag == LANG_TAG_OBJ && lang_ag_symbolic(L, x)) {
    LangValue acc = TOP();
    LangValue r = acc.tag == LANG_TAG_BOOL ? lang_incref(x) : lang_ag_bool_op(L, is_or, acc, x);
    lang_decref(x);
    CHECK(r);
    TOP() = r;
    lang_decref(acc);
    DISPATCH();
  }
  int t = x.tag == LANG_TAG_BOOL ? x.b : lang_truth(L, x);
  if (t < 0) {
    lang_decref(x);
    FAIL();
  }
  if ((t != 0) == is_or) { /* decided by a Python value: the value (or its truth in a test) */
    lang_decref(TOP());
    TOP() = keep ? x : lang_bool(is_or);
    if (!keep)
      lang_decref(x);
    ip = code->code + arg;
    DISPATCH();
  }
  lang_decref(x);
  DISPATCH();
}

op_AG_BOOL_END : {
  LangValue x = POP();
  LangValue acc = TOP();
  if (acc.tag == LANG_TAG_BOOL) {
    TOP() = x;
    DISPATCH();
  }
  LangValue r = lang_ag_bool_op(L, arg != 0, acc, x);
  lang_decref(x);
  CHECK(r);
  TOP() = r;
  lang_decref(acc);
  DISPATCH();
}

op_GET_ITER : {
  LangValue o = TOP();
  LangValue it = lang_iter(L, o);
  CHECK(it);
  TOP() = it;
  lang_decref(o);
  DISPATCH();
}

op_FOR_ITER : {
  LangValue it = TOP();
  f->ip = ip; /* a tensor loop's iterator asks for the loop's locals */
  LangValue v = lang_next(L, it);
  if (v.tag == LANG_TAG_UNSET) {
    lang_decref(POP());
    ip = code->code + arg;
    DISPATCH();
  }
  CHECK(v);
  PUSH(v);
  DISPATCH();
}

op_UNPACK_SEQUENCE : {
  LangValue seq = POP();
  LangValue *out = sp;
  bool ok = lang_unpack(L, seq, arg, out);
  lang_decref(seq);
  if (!ok)
    FAIL();
  /* lang_unpack fills in order; the stack wants the first item on top. */
  for (uint32_t i = 0; i < arg / 2; i++) {
    LangValue t = out[i];
    out[i] = out[arg - 1 - i];
    out[arg - 1 - i] = t;
  }
  sp += arg;
  DISPATCH();
}

op_UNPACK_EX : {
  int before = (int)(arg & 0xfff), after = (int)(arg >> 12);
  int n = before + 1 + after;
  LangValue seq = POP();
  LangValue *out = sp;
  bool ok = lang_unpack_ex(L, seq, before, after, out);
  lang_decref(seq);
  if (!ok)
    FAIL();
  for (int i = 0; i < n / 2; i++) {
    LangValue t = out[i];
    out[i] = out[n - 1 - i];
    out[n - 1 - i] = t;
  }
  sp += n;
  DISPATCH();
}

op_KW_NAMES:
  kwnames = code->consts[arg].o;
  DISPATCH();

op_CALL : {
  /* Stack: A B arg1..argN. A is UNSET for a plain call of B; otherwise A is called with B as
   * its first argument (a method found by LOAD_METHOD). */
  int n = (int)arg;
  LangValue *a_slot = sp - n - 2;
  LangObject *kw = kwnames;
  kwnames = NULL;
  if (a_slot[0].tag == LANG_TAG_UNSET && lang_is_type(a_slot[1], &lang_method_type)) {
    LangMethod *m = (LangMethod *)a_slot[1].o;
    LangValue bound = a_slot[1];
    a_slot[0] = lang_incref(m->func);
    a_slot[1] = lang_incref(m->self);
    lang_decref(bound);
  }
  bool has_self = a_slot[0].tag != LANG_TAG_UNSET;
  LangValue callable = has_self ? a_slot[0] : a_slot[1];
  LangValue *argv = has_self ? a_slot + 1 : a_slot + 2;
  int argc = n + (has_self ? 1 : 0);
  int n_kw = kw ? (int)lang_tuple_len(kw) : 0;

  if (G_UNLIKELY(atomic_load_explicit(&L->interrupt, memory_order_relaxed)) &&
      !lang_check_interrupt(L))
    FAIL();

  if (callable.tag == LANG_TAG_OBJ && callable.o->type == &lang_function_type &&
      !(((LangFunction *)callable.o)->code->flags & LANG_CODE_GENERATOR)) {
    LangFunction *fn = (LangFunction *)callable.o;
    LangCode *callee = fn->code;
    if (!lang_enter(L, ""))
      FAIL();
    LangFrame *nf;
    if (n_kw == 0 && argc == callee->argcount && callee->kwonlyargcount == 0 &&
        callee->n_cells == 0 && callee->n_free == 0 &&
        !(callee->flags & (LANG_CODE_VARARGS | LANG_CODE_VARKEYWORDS))) {
      /* The common call: exactly the positional parameters, nothing to bind by name. The
       * arguments' references move from this stack into the new frame's locals. */
      nf = frame_new(L, callee, fn, fn->globals);
      memcpy(nf->values, argv, sizeof(LangValue) * (size_t)argc);
      lang_decref(callable);
    } else {
      nf = frame_for_call(L, fn, argv, argc - n_kw, kw);
      if (!nf) {
        lang_leave(L);
        FAIL();
      }
      for (LangValue *v = a_slot; v < sp; v++)
        lang_decref(*v);
    }
    nf->depth_counted = true;
    sp = a_slot;
    SAVE_FRAME();
    nf->back = f;
    f = nf;
    vm_data(L)->top = f;
    LOAD_FRAME();
    DISPATCH();
  }

  f->ip = ip; /* natives may ask for the call site */
  LangValue r = call_other(L, callable, argv, argc - n_kw, kw);
  for (LangValue *v = a_slot; v < sp; v++)
    lang_decref(*v);
  sp = a_slot;
  CHECK(r);
  PUSH(r);
  DISPATCH();
}

op_CALL_FUNCTION_EX : {
  LangValue kwdict = (arg & 1) ? POP() : LANG_UNSET;
  LangValue argtuple = POP();
  LangValue b = POP();
  LangValue a = POP();
  LangValue r;
  if (!lang_is_type(argtuple, &lang_tuple_type)) {
    LangValue t = lang_tuple_from_iterable(L, argtuple);
    lang_decref(argtuple);
    argtuple = t;
  }
  f->ip = ip; /* natives may ask for the call site */
  if (lang_is_exc(argtuple)) {
    r = LANG_EXC;
  } else if (a.tag == LANG_TAG_UNSET) {
    r = call_ex(L, b, LANG_UNSET, argtuple, kwdict);
  } else {
    r = call_ex(L, a, b, argtuple, kwdict);
  }
  lang_decref(kwdict);
  lang_decref(argtuple);
  lang_decref(a);
  lang_decref(b);
  CHECK(r);
  PUSH(r);
  DISPATCH();
}

op_MAKE_FUNCTION : {
  LangValue codev = POP();
  LangValue closure = (arg & 4) ? POP() : LANG_UNSET;
  LangValue kwdefaults = (arg & 2) ? POP() : LANG_UNSET;
  LangValue defaults = (arg & 1) ? POP() : LANG_UNSET;
  LangValue fn = make_function(L, (LangCode *)codev.o, f->globals, defaults, kwdefaults, closure);
  lang_decref(codev);
  lang_decref(closure);
  lang_decref(kwdefaults);
  lang_decref(defaults);
  PUSH(fn);
  DISPATCH();
}

op_LOAD_BUILD_CLASS : {
  LangValue bc = lang_dict_get_cstr(L->builtins, "__build_class__");
  if (bc.tag == LANG_TAG_UNSET) {
    lang_raise_str(L, &lang_exc_NameError, "__build_class__ not found");
    FAIL();
  }
  PUSH(lang_incref(bc));
  DISPATCH();
}

op_RETURN_VALUE : {
  LangValue r = POP();
  if (G_UNLIKELY(f->ag != NULL)) {
    /* A return inside a branch of an `if` on a tensor: the branch's result. */
    f->ip = ip;
    int depth = 0;
    int to = lang_ag_return(L, f, (int)(ip - code->code) - 1, &r, &depth);
    if (to == LANG_AG_RAISE)
      FAIL();
    if (to >= 0) {
      while (sp > frame_stack_base(f) + depth)
        lang_decref(POP());
      ip = code->code + to;
      DISPATCH();
    }
  }
  if (f == entry) {
    SAVE_FRAME();
    *status = RUN_RETURNED;
    return r;
  }
  LangFrame *done = f;
  done->sp = sp;
  f = f->back;
  vm_data(L)->top = f;
  if (done->depth_counted)
    lang_leave(L);
  frame_free(done);
  LOAD_FRAME();
  PUSH(r);
  DISPATCH();
}

op_YIELD_VALUE : {
  g_assert(f == entry && f->in_generator);
  LangValue v = POP();
  SAVE_FRAME();
  *status = RUN_YIELDED;
  return v;
}

op_GET_YIELD_FROM_ITER : {
  LangValue o = TOP();
  if (lang_is_type(o, &lang_generator_type))
    DISPATCH();
  LangValue it = lang_iter(L, o);
  CHECK(it);
  TOP() = it;
  lang_decref(o);
  DISPATCH();
}

op_SEND : {
  LangValue v = POP();
  LangValue it = TOP();
  LangValue r;
  LangValue returned = LANG_UNSET;
  if (lang_is_type(it, &lang_generator_type)) {
    r = lang_generator_send(L, it, v, &returned);
  } else {
    r = v.tag == LANG_TAG_NONE ? lang_next_or_stop(L, it)
                               : lang_call_method(L, it, "send", &v, 1, NULL);
    if (lang_is_exc(r) && lang_exc_matches(L, &lang_exc_StopIteration)) {
      /* The iterator is done: its StopIteration's value is the `yield from` result. */
      LangValue stop = lang_exc_fetch(L);
      returned = lang_getattr_cstr(L, stop, "value");
      lang_decref(stop);
      r = lang_is_exc(returned) ? LANG_EXC : LANG_UNSET;
    }
  }
  lang_decref(v);
  CHECK(r);
  if (r.tag == LANG_TAG_UNSET) {
    lang_decref(POP());
    PUSH(returned);
    ip = code->code + arg;
    DISPATCH();
  }
  PUSH(r);
  DISPATCH();
}

op_RAISE_VARARGS : {
  if (arg == 0) {
    if (L->handled.tag == LANG_TAG_UNSET) {
      lang_raise_str(L, &lang_exc_RuntimeError, "No active exception to reraise");
      FAIL();
    }
    lang_exc_set(L, L->handled);
    reraise = true;
    goto unwind;
  }
  LangValue cause = arg == 2 ? POP() : LANG_UNSET;
  LangValue exc = POP();
  lang_raise_value(L, exc);
  lang_decref(exc);
  if (cause.tag != LANG_TAG_UNSET && lang_is_exception(L->exc)) {
    LangExc *e = (LangExc *)L->exc.o;
    LangValue c = cause;
    if (lang_is_obj(cause) && cause.o->type == &lang_type_type &&
        lang_is_subtype((LangType *)cause.o, &lang_exc_BaseException)) {
      c = lang_call(L, cause, NULL, 0, NULL);
      if (lang_is_exc(c)) {
        lang_decref(cause);
        FAIL();
      }
    } else {
      lang_incref(c);
    }
    if (c.tag != LANG_TAG_NONE && !lang_is_exception(c)) {
      lang_decref(c);
      lang_decref(cause);
      lang_raise_str(L, &lang_exc_TypeError, "exception causes must derive from BaseException");
      FAIL();
    }
    lang_decref(e->cause);
    e->cause = c;
    e->suppress_context = true;
  }
  lang_decref(cause);
  FAIL();
}

op_RERAISE : {
  LangValue exc = POP();
  lang_exc_clear(L);
  L->exc = exc; /* takes the reference; context was set when first raised */
  reraise = true;
  goto unwind;
}

op_PUSH_EXC_INFO : {
  LangValue exc = TOP();
  LangValue prev = L->handled;
  L->handled = lang_incref(exc);
  TOP() = prev.tag == LANG_TAG_UNSET ? LANG_NONE : prev;
  PUSH(exc);
  DISPATCH();
}

op_POP_EXCEPT : {
  LangValue prev = POP();
  LangValue cur = L->handled;
  L->handled = prev.tag == LANG_TAG_NONE ? LANG_UNSET : prev;
  lang_decref(cur);
  DISPATCH();
}

op_CHECK_EXC_MATCH : {
  LangValue cls = POP();
  int r = lang_exc_match_value(L, TOP(), cls);
  lang_decref(cls);
  if (r < 0)
    FAIL();
  PUSH(lang_bool(r != 0));
  DISPATCH();
}

op_BEFORE_WITH : {
  LangValue mgr = TOP();
  LangValue exit = LANG_UNSET;
  LangValue entered = before_with(L, mgr, &exit);
  CHECK(entered);
  TOP() = exit;
  lang_decref(mgr);
  PUSH(entered);
  DISPATCH();
}

op_WITH_EXCEPT_START : {
  /* Stack: exit prev exc. Calls exit(type(exc), exc, exc.__traceback__). */
  LangValue exc = TOP();
  LangValue exit = PEEK(3);
  LangValue tb = lang_is_exception(exc) ? lang_exc_traceback(L, exc) : LANG_NONE;
  LangValue argv[3] = {lang_obj(lang_type_of(exc)), exc, tb};
  LangValue r = lang_call(L, exit, argv, 3, NULL);
  lang_decref(tb);
  CHECK(r);
  PUSH(r);
  DISPATCH();
}

op_LOAD_ASSERTION_ERROR:
  PUSH(lang_obj(&lang_exc_AssertionError));
  DISPATCH();

op_IMPORT_NAME : {
  LangValue fromlist = POP();
  LangValue m = lang_import(L, lang_str_data(code->names[arg]));
  lang_decref(fromlist);
  CHECK(m);
  PUSH(m);
  DISPATCH();
}

op_IMPORT_FROM : {
  LangValue v = import_from(L, TOP(), code->names[arg]);
  CHECK(v);
  PUSH(v);
  DISPATCH();
}

op_IMPORT_STAR : {
  LangValue m = POP();
  bool ok = import_star(L, f->ns ? f->ns : f->globals, m);
  lang_decref(m);
  if (!ok)
    FAIL();
  DISPATCH();
}

op_SET_RESULT : {
  LangValue v = POP();
  if (f->result && v.tag != LANG_TAG_NONE) {
    lang_decref(*f->result);
    *f->result = v;
  } else {
    lang_decref(v);
  }
  DISPATCH();
}

error:
  reraise = false;
unwind : {
  uint32_t index = (uint32_t)(ip - code->code) - 1;
  if (!reraise && lang_is_exception(L->exc))
    lang_exc_push_frame(L->exc, lang_str_data(code->filename), lang_str_data(code->name),
                        lang_code_line(code, (int)index));
  reraise = false;
  kwnames = NULL;
  if (G_UNLIKELY(f->ag != NULL))
    lang_ag_abort(L, f); /* the traced if/while blocks end here, handled or not */
  const LangExcEntry *handler = find_handler(code, index);
  if (handler) {
    LangValue *keep = frame_stack_base(f) + handler->depth;
    while (sp > keep)
      lang_decref(POP());
    PUSH(lang_exc_fetch(L));
    ip = code->code + handler->target;
    DISPATCH();
  }
  /* No handler here: pop the frame and look in its caller. */
  while (sp > frame_stack_base(f))
    lang_decref(POP());
  if (f == entry) {
    SAVE_FRAME();
    *status = RUN_RAISED;
    return LANG_EXC;
  }
  LangFrame *done = f;
  f = f->back;
  vm_data(L)->top = f;
  if (done->depth_counted)
    lang_leave(L);
  done->sp = sp;
  frame_free(done);
  LOAD_FRAME();
  goto unwind;
}

#undef LOAD_FRAME
#undef SAVE_FRAME
#undef DISPATCH
#undef PUSH
#undef POP
#undef TOP
#undef PEEK
#undef FAIL
#undef CHECK
}

/* ---- calling functions from native code ------------------------------------------------- */

LangValue
lang_function_call(LangState *L, LangValue func, const LangValue *args, int nargs,
                   LangObject *kwnames)
{
  LangFunction *fn = (LangFunction *)func.o;
  LangFrame *f = frame_for_call(L, fn, args, nargs, kwnames);
  if (!f)
    return LANG_EXC;
  if (fn->code->flags & LANG_CODE_GENERATOR)
    return generator_new(L, f, fn);
  RunStatus status;
  LangValue r = vm_run(L, f, false, &status);
  frame_free(f);
  return r;
}

LangValue
lang_vm_run_module(LangState *L, LangCode *code, LangObject *globals, LangValue *result)
{
  if (result)
    *result = LANG_UNSET;
  /* The module's frame counts against the recursion limit, as in CPython. */
  if (!lang_enter(L, ""))
    return LANG_EXC;
  LangFrame *f = frame_new(L, code, NULL, globals);
  f->result = result;
  RunStatus status;
  LangValue r = vm_run(L, f, false, &status);
  frame_free(f);
  lang_leave(L);
  if (lang_is_exc(r) && result) {
    lang_decref(*result);
    *result = LANG_UNSET;
  }
  return r;
}

/* __build_class__(body, name, *bases): runs the class body in a fresh namespace and makes
 * the class; the body returns the __class__ cell when methods use super() or __class__. */
static LangValue
build_class(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  if (nargs < 2 || !lang_is_type(args[0], &lang_function_type) || !lang_is_str(args[1]))
    return lang_raise_str(L, &lang_exc_TypeError, "__build_class__: func and name required");
  if (kwnames && lang_tuple_len(kwnames) > 0)
    return lang_raise_str(L, &lang_exc_TypeError,
                          "class keyword arguments (metaclass=...) are not supported");
  if (nargs > 3)
    return lang_raise_str(L, &lang_exc_TypeError, "multiple inheritance is not supported");
  LangType *base = NULL;
  if (nargs == 3) {
    if (!lang_is_obj(args[2]) || args[2].o->type != &lang_type_type)
      return lang_raise(L, &lang_exc_TypeError, "bases must be types");
    base = (LangType *)args[2].o;
  }
  LangFunction *body = (LangFunction *)args[0].o;
  if (!lang_enter(L, "")) /* the class body is a frame too */
    return LANG_EXC;
  LangFrame *f = frame_new(L, body->code, body, body->globals);
  setup_cells(L, f, body);
  LangValue ns = lang_dict_new(L);
  f->ns = lang_incref(ns).o;
  LangValue modname = lang_dict_get_cstr(body->globals, "__name__");
  if (modname.tag != LANG_TAG_UNSET)
    lang_dict_set_cstr(L, ns.o, "__module__", modname);
  lang_dict_set_cstr(L, ns.o, "__qualname__", lang_obj(body->code->qualname));
  RunStatus status;
  LangValue cell = vm_run(L, f, false, &status);
  frame_free(f);
  lang_leave(L);
  if (lang_is_exc(cell)) {
    lang_decref(ns);
    return LANG_EXC;
  }
  LangValue cls =
      lang_class_new(L, lang_str_data(args[1].o), lang_str_data(body->code->qualname),
                     lang_is_str(modname) ? lang_str_data(modname.o) : NULL, base, ns.o);
  lang_decref(ns);
  if (!lang_is_exc(cls) && lang_is_type(cell, &lang_cell_type)) {
    LangCell *c = (LangCell *)cell.o;
    lang_decref(c->ref);
    c->ref = lang_incref(cls);
  }
  lang_decref(cell);
  return cls;
}

static const LangMethodDef vm_builtins[] = {
    {"__build_class__", build_class, "(func, name, /, *bases)",
     "Internal helper used by the class statement.", 0},
    {NULL},
};

/* ---- function objects ------------------------------------------------------------------- */

static void
function_dealloc(LangObject *o)
{
  LangFunction *fn = (LangFunction *)o;
  lang_decref(lang_obj(fn->code));
  if (fn->globals)
    lang_decref(lang_obj(fn->globals));
  if (fn->defaults)
    lang_decref(lang_obj(fn->defaults));
  if (fn->kwdefaults)
    lang_decref(lang_obj(fn->kwdefaults));
  if (fn->closure)
    lang_decref(lang_obj(fn->closure));
  lang_decref(lang_obj(fn->name));
  lang_decref(lang_obj(fn->qualname));
  if (fn->module)
    lang_decref(lang_obj(fn->module));
  lang_decref(fn->doc);
  if (fn->dict)
    lang_decref(lang_obj(fn->dict));
}

static void
function_clear(LangObject *o)
{
  LangFunction *fn = (LangFunction *)o;
  LangObject *globals = fn->globals, *defaults = fn->defaults, *kwdefaults = fn->kwdefaults;
  LangObject *closure = fn->closure, *dict = fn->dict;
  fn->globals = fn->defaults = fn->kwdefaults = fn->closure = fn->dict = NULL;
  LangValue doc = fn->doc;
  fn->doc = LANG_NONE;
  if (globals)
    lang_decref(lang_obj(globals));
  if (defaults)
    lang_decref(lang_obj(defaults));
  if (kwdefaults)
    lang_decref(lang_obj(kwdefaults));
  if (closure)
    lang_decref(lang_obj(closure));
  if (dict)
    lang_decref(lang_obj(dict));
  lang_decref(doc);
}

static LangValue
function_repr(LangState *L, LangValue self)
{
  LangFunction *fn = (LangFunction *)self.o;
  return lang_str_printf(L, "<function %s at 0x%" G_GINT64_MODIFIER "x>",
                         lang_str_data(fn->qualname), (gint64)(gintptr)fn);
}

static LangValue
function_get_name(LangState *L, LangValue self)
{
  return lang_incref(lang_obj(((LangFunction *)self.o)->name));
}

/* Replaces a str field of a function: __name__ and __qualname__ accept only str. */
static bool
set_str_field(LangState *L, LangObject **field, LangValue v, const char *attr)
{
  if (!lang_is_str(v)) {
    lang_raise(L, &lang_exc_TypeError, "%s must be set to a string object", attr);
    return false;
  }
  LangObject *old = *field;
  *field = lang_incref(v).o;
  lang_decref(lang_obj(old));
  return true;
}

static bool
function_set_name(LangState *L, LangValue self, LangValue v)
{
  return set_str_field(L, &((LangFunction *)self.o)->name, v, "__name__");
}

static LangValue
function_get_qualname(LangState *L, LangValue self)
{
  return lang_incref(lang_obj(((LangFunction *)self.o)->qualname));
}

static bool
function_set_qualname(LangState *L, LangValue self, LangValue v)
{
  return set_str_field(L, &((LangFunction *)self.o)->qualname, v, "__qualname__");
}

static LangValue
function_get_doc(LangState *L, LangValue self)
{
  return lang_incref(((LangFunction *)self.o)->doc);
}

static bool
function_set_doc(LangState *L, LangValue self, LangValue v)
{
  LangFunction *fn = (LangFunction *)self.o;
  LangValue old = fn->doc;
  fn->doc = v.tag == LANG_TAG_UNSET ? LANG_NONE : lang_incref(v);
  lang_decref(old);
  return true;
}

static LangValue
function_get_module(LangState *L, LangValue self)
{
  LangFunction *fn = (LangFunction *)self.o;
  return fn->module ? lang_incref(lang_obj(fn->module)) : LANG_NONE;
}

static LangValue
function_get_code(LangState *L, LangValue self)
{
  return lang_incref(lang_obj(((LangFunction *)self.o)->code));
}

static LangValue
function_get_defaults(LangState *L, LangValue self)
{
  LangFunction *fn = (LangFunction *)self.o;
  return fn->defaults ? lang_incref(lang_obj(fn->defaults)) : LANG_NONE;
}

static LangValue
function_get_globals(LangState *L, LangValue self)
{
  return lang_incref(lang_obj(((LangFunction *)self.o)->globals));
}

static LangValue
function_get_dict(LangState *L, LangValue self)
{
  LangFunction *fn = (LangFunction *)self.o;
  if (!fn->dict)
    fn->dict = lang_dict_new(L).o;
  return lang_incref(lang_obj(fn->dict));
}

static const LangGetSetDef function_getsets[] = {
    {"__name__", function_get_name, function_set_name, NULL},
    {"__qualname__", function_get_qualname, function_set_qualname, NULL},
    {"__doc__", function_get_doc, function_set_doc, NULL},
    {"__module__", function_get_module, NULL, NULL},
    {"__code__", function_get_code, NULL, NULL},
    {"__defaults__", function_get_defaults, NULL, NULL},
    {"__globals__", function_get_globals, NULL, NULL},
    {"__dict__", function_get_dict, NULL, NULL},
    {NULL},
};

LangType lang_function_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "function",
    .instance_size = sizeof(LangFunction),
    .flags = LANG_TYPE_GC | LANG_TYPE_ABSTRACT_NEW,
    .dict_offset = offsetof(LangFunction, dict),
    .getsets = function_getsets,
    .slots =
        {
            .dealloc = function_dealloc,
            .clear = function_clear,
            .repr = function_repr,
            .call = lang_function_call,
            .descr_get = lang_function_descr_get,
        },
};

/* ---- generators ------------------------------------------------------------------------- */

static LangValue
generator_new(LangState *L, LangFrame *f, LangFunction *fn)
{
  LangGenerator *g =
      (LangGenerator *)lang_object_alloc(L, &lang_generator_type, sizeof(LangGenerator));
  f->in_generator = true;
  g->frame = f;
  g->name = lang_incref(lang_obj(fn->name)).o;
  g->qualname = lang_incref(lang_obj(fn->qualname)).o;
  return lang_obj(g);
}

static void
generator_finish(LangGenerator *g)
{
  if (g->frame) {
    frame_free(g->frame);
    g->frame = NULL;
  }
}

/* Resumes the generator: with `value` sent in, or with the pending exception thrown in. */
static LangValue
generator_resume(LangState *L, LangGenerator *g, LangValue value, bool throwing,
                 LangValue *returned)
{
  *returned = LANG_UNSET;
  if (g->running)
    return lang_raise_str(L, &lang_exc_ValueError, "generator already executing");
  if (!g->frame) {
    if (throwing)
      return LANG_EXC;
    *returned = LANG_NONE;
    return LANG_UNSET;
  }
  if (!g->started && !throwing && value.tag != LANG_TAG_NONE)
    return lang_raise_str(L, &lang_exc_TypeError,
                          "can't send non-None value to a just-started generator");
  if (!lang_enter(L, "")) {
    if (throwing)
      lang_exc_clear(L);
    return LANG_EXC;
  }
  LangFrame *f = g->frame;
  if (g->started && !throwing)
    *f->sp++ = lang_incref(value);
  g->started = true;
  g->running = true;
  RunStatus status;
  LangValue r = vm_run(L, f, throwing, &status);
  g->running = false;
  lang_leave(L);
  if (status == RUN_YIELDED)
    return r;
  generator_finish(g);
  if (status == RUN_RETURNED) {
    *returned = r;
    return LANG_UNSET;
  }
  /* A StopIteration escaping the body becomes RuntimeError, as PEP 479 says. */
  if (lang_exc_matches(L, &lang_exc_StopIteration)) {
    LangValue cause = lang_exc_fetch(L);
    lang_raise_str(L, &lang_exc_RuntimeError, "generator raised StopIteration");
    LangExc *e = (LangExc *)L->exc.o;
    lang_decref(e->cause);
    e->cause = cause;
  }
  return LANG_EXC;
}

LangValue
lang_generator_send(LangState *L, LangValue gen, LangValue value, LangValue *returned)
{
  return generator_resume(L, (LangGenerator *)gen.o, value, false, returned);
}

LangValue
lang_generator_throw(LangState *L, LangValue gen, LangValue exc, LangValue *returned)
{
  LangGenerator *g = (LangGenerator *)gen.o;
  lang_raise_value(L, exc);
  if (!g->started) {
    /* Thrown before the first resume: raised at the def line, the frame never runs. */
    generator_finish(g);
    *returned = LANG_UNSET;
    return LANG_EXC;
  }
  return generator_resume(L, g, LANG_NONE, true, returned);
}

bool
lang_generator_close(LangState *L, LangValue gen)
{
  LangGenerator *g = (LangGenerator *)gen.o;
  if (!g->frame)
    return true;
  if (!g->started) {
    generator_finish(g);
    return true;
  }
  LangValue exc = lang_call(L, lang_obj(&lang_exc_GeneratorExit), NULL, 0, NULL);
  if (lang_is_exc(exc))
    return false;
  LangValue returned;
  LangValue r = lang_generator_throw(L, gen, exc, &returned);
  lang_decref(exc);
  lang_decref(returned);
  if (lang_is_exc(r)) {
    if (lang_exc_matches(L, &lang_exc_GeneratorExit) ||
        lang_exc_matches(L, &lang_exc_StopIteration)) {
      lang_exc_clear(L);
      return true;
    }
    return false;
  }
  if (r.tag != LANG_TAG_UNSET) {
    lang_decref(r);
    lang_raise_str(L, &lang_exc_RuntimeError, "generator ignored GeneratorExit");
    return false;
  }
  return true;
}

static LangValue
generator_iter(LangState *L, LangValue self)
{
  return lang_incref(self);
}

/* The next slot: a return value other than None travels in StopIteration(value), as CPython
 * reports it; a bare return is plain exhaustion. */
static LangValue
generator_next(LangState *L, LangValue self)
{
  LangValue returned;
  LangValue r = lang_generator_send(L, self, LANG_NONE, &returned);
  if (!lang_is_unset(r) || returned.tag == LANG_TAG_NONE || lang_is_unset(returned))
    return r;
  lang_raise_arg(L, &lang_exc_StopIteration, returned);
  lang_decref(returned);
  return LANG_EXC;
}

/* For the methods: a finished generator's return value becomes StopIteration(value). */
static LangValue
stop_iteration_from(LangState *L, LangValue r, LangValue returned)
{
  if (r.tag != LANG_TAG_UNSET)
    return r;
  if (returned.tag == LANG_TAG_NONE || returned.tag == LANG_TAG_UNSET)
    lang_raise_str(L, &lang_exc_StopIteration, "");
  else
    lang_raise_arg(L, &lang_exc_StopIteration, returned);
  if (returned.tag == LANG_TAG_NONE || returned.tag == LANG_TAG_UNSET) {
    LangExc *e = (LangExc *)L->exc.o;
    LangValue empty = lang_tuple_new(L, 0);
    lang_decref(lang_obj(e->args));
    e->args = empty.o;
  }
  lang_decref(returned);
  return LANG_EXC;
}

static LangValue
generator_send_method(LangState *L, LangValue self, const LangValue *args, int nargs,
                      LangObject *kwnames)
{
  if (!lang_no_kwargs(L, "send", kwnames) || !lang_check_nargs(L, "send", nargs, 1, 1))
    return LANG_EXC;
  LangValue returned;
  LangValue r = lang_generator_send(L, self, args[0], &returned);
  return stop_iteration_from(L, r, returned);
}

static LangValue
generator_throw_method(LangState *L, LangValue self, const LangValue *args, int nargs,
                       LangObject *kwnames)
{
  if (!lang_no_kwargs(L, "throw", kwnames) || !lang_check_nargs(L, "throw", nargs, 1, 3))
    return LANG_EXC;
  LangValue exc = args[0];
  LangValue made = LANG_UNSET;
  if (nargs >= 2 && args[1].tag != LANG_TAG_NONE && lang_is_exception(args[1]))
    exc = args[1];
  else if (nargs >= 2 && args[1].tag != LANG_TAG_NONE) {
    made = lang_call(L, args[0], &args[1], 1, NULL);
    if (lang_is_exc(made))
      return LANG_EXC;
    exc = made;
  }
  LangValue returned;
  LangValue r = lang_generator_throw(L, self, exc, &returned);
  lang_decref(made);
  return stop_iteration_from(L, r, returned);
}

static LangValue
generator_close_method(LangState *L, LangValue self, const LangValue *args, int nargs,
                       LangObject *kwnames)
{
  if (!lang_no_kwargs(L, "close", kwnames) || !lang_check_nargs(L, "close", nargs, 0, 0))
    return LANG_EXC;
  return lang_generator_close(L, self) ? LANG_NONE : LANG_EXC;
}

static const LangMethodDef generator_methods[] = {
    {"send", generator_send_method, "(value, /)", "send(arg) -> send 'arg' into generator", 0},
    {"throw", generator_throw_method, "(typ, val=None, tb=None, /)",
     "throw(value) -> raise exception in generator", 0},
    {"close", generator_close_method, "()", "close() -> raise GeneratorExit inside generator.", 0},
    {NULL},
};

static void
generator_dealloc(LangObject *o)
{
  LangGenerator *g = (LangGenerator *)o;
  generator_finish(g);
  lang_decref(lang_obj(g->name));
  lang_decref(lang_obj(g->qualname));
}

static void
generator_clear(LangObject *o)
{
  generator_finish((LangGenerator *)o);
}

static LangValue
generator_repr(LangState *L, LangValue self)
{
  LangGenerator *g = (LangGenerator *)self.o;
  return lang_str_printf(L, "<generator object %s at 0x%" G_GINT64_MODIFIER "x>",
                         lang_str_data(g->qualname), (gint64)(gintptr)g);
}

static LangValue
generator_get_name(LangState *L, LangValue self)
{
  return lang_incref(lang_obj(((LangGenerator *)self.o)->name));
}

static const LangGetSetDef generator_getsets[] = {
    {"__name__", generator_get_name, NULL, NULL},
    {NULL},
};

LangType lang_generator_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "generator",
    .instance_size = sizeof(LangGenerator),
    .flags = LANG_TYPE_GC | LANG_TYPE_ABSTRACT_NEW,
    .methods = generator_methods,
    .getsets = generator_getsets,
    .slots =
        {
            .dealloc = generator_dealloc,
            .clear = generator_clear,
            .repr = generator_repr,
            .iter = generator_iter,
            .next = generator_next,
        },
};

/* ---- installation ----------------------------------------------------------------------- */

void
lang_vm_install(LangState *L)
{
  static gsize types_ready = 0;
  if (g_once_init_enter(&types_ready)) {
    lang_type_ready(&lang_code_type, NULL);
    lang_type_ready(&lang_cell_type, NULL);
    lang_type_ready(&lang_function_type, NULL);
    lang_type_ready(&lang_generator_type, NULL);
    g_once_init_leave(&types_ready, 1);
  }
  VmData *vd = g_new0(VmData, 1);
  vd->sources =
      g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_ptr_array_unref);
  LangVmHooks hooks = {
      .function_type = &lang_function_type,
      .call = lang_function_call,
      .source_line = vm_source_line,
      .data = vd,
      .free_data = vm_data_free,
  };
  lang_state_set_vm_hooks(L, &hooks);
  for (const LangMethodDef *def = vm_builtins; def->name; def++) {
    LangValue fn = lang_native_function_new(L, def, LANG_UNSET, "builtins");
    lang_dict_set_cstr(L, L->builtins, def->name, fn);
    lang_decref(fn);
  }
}

bool
lang_vm_current_location(LangState *L, const char **filename, int *line)
{
  VmData *d = L->vm.data;
  if (!d || !d->top)
    return false;
  LangFrame *f = d->top;
  *filename = lang_str_data(f->code->filename);
  *line = lang_code_line(f->code, (int)(f->ip - f->code->code) - 1);
  return true;
}

LangValue *
lang_vm_loop_locals(LangState *L, const int **slots, int *n_slots, LangObject *const **varnames,
                    const LangLoopInfo **info)
{
  VmData *d = L->vm.data;
  if (!d || !d->top)
    return NULL;
  LangFrame *f = d->top;
  int instr = (int)(f->ip - f->code->code) - 1;
  for (int i = 0; i < f->code->n_loops; i++) {
    if (f->code->loops[i].kind == LANG_BLOCK_FOR && f->code->loops[i].instr == instr) {
      *slots = f->code->loops[i].slots;
      *n_slots = f->code->loops[i].n;
      *varnames = f->code->varnames;
      *info = &f->code->loops[i];
      return f->values;
    }
  }
  return NULL;
}

/* ---- frames for AutoGraph ------------------------------------------------------------------- */

LangCode *
lang_frame_code(LangFrame *f)
{
  return f->code;
}

LangValue *
lang_frame_locals(LangFrame *f)
{
  return f->values;
}

void **
lang_frame_ag(LangFrame *f)
{
  return &f->ag;
}

LangFrame *
lang_vm_top_frame(LangState *L)
{
  VmData *d = L->vm.data;
  return d ? d->top : NULL;
}
