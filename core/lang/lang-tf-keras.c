/* lang-tf-keras.c — tf.keras: the module object that runs core/lang/py/keras.py on first use.
 *
 * Keras is written in the cell language (core/lang/py/keras.py, compiled into the binary as a
 * string by core/lang/py/embed.py): its layers are tf.Module subclasses and its optimizers
 * make tf.Variables, so it needs the finished `tensorflow` module, which does not exist yet
 * while lang_tf_module_init() registers `keras` on it. The `tf.keras` object is therefore a
 * module whose namespace is filled the first time an attribute of it is looked up: keras.py
 * then runs in that namespace and its own `import tensorflow` finds the finished module.
 * Sessions that never touch Keras never compile it.
 */
#include "keras-py.h"
#include "lang-compile.h"
#include "lang-tf-private.h"
#include "lang-vm.h"

#define KERAS_MODULE_NAME "tensorflow.keras"

/* A module that runs keras.py into its namespace on the first attribute lookup. */
typedef struct {
  LangModuleObject base; /* the module: its namespace dict */
  bool loaded;           /* keras.py has run (or is running) in the namespace */
} KerasModule;

/* Runs keras.py in the namespace of `self` unless it ran already. False with the exception
 * raised. */
static bool
keras_ensure_loaded(LangState *L, LangValue self)
{
  KerasModule *m = (KerasModule *)self.o;
  if (m->loaded)
    return true;
  /* Set first: keras.py reading its own module while it runs must not start it again. */
  m->loaded = true;
  LangValue code = lang_compile_source(L, lang_tf_keras_source, -1, "keras.py", 0);
  if (lang_is_exc(code))
    return false;
  LangValue r = lang_vm_run_module(L, (LangCode *)code.o, lang_module_dict(self), NULL);
  lang_decref(code);
  if (lang_is_exc(r))
    return false;
  lang_decref(r);
  return true;
}

static LangValue
keras_getattr(LangState *L, LangValue self, LangObject *name)
{
  LangValue r = lang_generic_getattr(L, self, name);
  if (!lang_is_unset(r))
    return r;
  if (!((KerasModule *)self.o)->loaded) {
    if (!keras_ensure_loaded(L, self))
      return LANG_EXC;
    r = lang_generic_getattr(L, self, name);
    if (!lang_is_unset(r))
      return r;
  }
  return lang_raise(L, &lang_exc_AttributeError, "module '%s' has no attribute '%s'",
                    KERAS_MODULE_NAME, lang_str_data(name));
}

/* dir(tf.keras): the names of the namespace, as for any module, once Keras is loaded. */
static LangValue
keras_dir(LangState *L, LangValue self, const LangValue *args, int nargs, LangObject *kwnames)
{
  if (!lang_parse_args(L, "__dir__", args, nargs, kwnames, "") || !keras_ensure_loaded(L, self))
    return LANG_EXC;
  return lang_list_from_iterable(L, lang_obj(lang_module_dict(self)));
}

static const LangMethodDef keras_methods[] = {
    {"__dir__", keras_dir, "(self, /)", "The names defined by tf.keras.", 0},
    {NULL, NULL, NULL, NULL, 0},
};

static LangType keras_module_type = {
    LANG_STATIC_TYPE_HEAD,
    .name = "module",
    .base_type = &lang_module_type,
    .instance_size = sizeof(KerasModule),
    .dict_offset = offsetof(LangModuleObject, dict),
    .flags = LANG_TYPE_ABSTRACT_NEW,
    .slots = {.getattr = keras_getattr},
    .methods = keras_methods,
};

LangValue
lang_tf_keras_module_new(LangState *L)
{
  lang_type_ready(&keras_module_type, "builtins");
  KerasModule *m = (KerasModule *)lang_object_alloc(L, &keras_module_type, sizeof(KerasModule));
  m->base.dict = lang_dict_new(L).o;
  m->loaded = false;
  LangValue name = lang_str_cstr(L, KERAS_MODULE_NAME);
  lang_dict_set_cstr(L, m->base.dict, "__name__", name);
  lang_decref(name);
  LangValue doc = lang_str_cstr(L, "Keras: layers (Dense, Conv2D, Sequential) and optimizers "
                                   "(SGD, Adam), loaded on first use.");
  lang_dict_set_cstr(L, m->base.dict, "__doc__", doc);
  lang_decref(doc);
  return lang_obj(m);
}
