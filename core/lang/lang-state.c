/* lang-state.c — interpreter state: allocation and teardown, sinks, interrupts, recursion,
 * native module registry.
 *
 * Teardown frees cycles without a collector: every object of a GC type sits on the state's
 * list; lang_state_free() drops the state's roots, then asks each object still on the list to
 * clear its references (its type's `clear` slot), which breaks every cycle made of tracked
 * containers, so plain refcounting frees the rest.
 */
#define _GNU_SOURCE /* pthread_getattr_np */
#include "lang-runtime-private.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

static void
default_write(void *data, const char *utf8, size_t len)
{
  FILE *f = data;
  fwrite(utf8, 1, len, f);
  fflush(f);
}

static void
gc_link_insert(LangGcLink *head, LangGcLink *link)
{
  link->next = head;
  link->prev = head->prev;
  head->prev->next = link;
  head->prev = link;
}

static void
gc_link_remove(LangGcLink *link)
{
  link->prev->next = link->next;
  link->next->prev = link->prev;
  link->prev = link->next = link;
}

LangObject *
lang_gc_header_object(LangGcLink *link)
{
  return (LangObject *)(link + 1);
}

/* Object memory. Every block starts with a 16-byte header holding its size class, so that small
 * blocks (most objects: ints in containers, short strs, tuples, bound methods) go back to a
 * per-thread free list instead of malloc. The sanitizer build uses plain malloc for every block,
 * so that AddressSanitizer still sees each object's lifetime. */
#define BLOCK_HEADER  16
#define BLOCK_CLASSES 16  /* free lists for blocks of 16, 32, ... 256 bytes */
#define BLOCK_KEEP    256 /* blocks kept per list */

#if defined(__SANITIZE_ADDRESS__)
#define BLOCK_CACHE 0
#else
#define BLOCK_CACHE 1
#endif

typedef struct {
  void *head[BLOCK_CLASSES + 1]; /* free blocks by size class, linked through their first word */
  int count[BLOCK_CLASSES + 1];  /* blocks on each list */
  bool registered;               /* the thread-exit destructor knows this cache */
} BlockCache;

static _Thread_local BlockCache block_cache;
static pthread_key_t block_cache_key;
static pthread_once_t block_cache_once = PTHREAD_ONCE_INIT;

/* A thread that ends returns its cached blocks to malloc. */
static void
block_cache_release(void *data)
{
  BlockCache *cache = data;
  for (int c = 0; c <= BLOCK_CLASSES; c++) {
    while (cache->head[c]) {
      void *raw = cache->head[c];
      cache->head[c] = *(void **)raw;
      g_free(raw);
    }
    cache->count[c] = 0;
  }
}

static void
block_cache_key_create(void)
{
  pthread_key_create(&block_cache_key, block_cache_release);
}

/* A block of `size` usable bytes (after the header) whose first `zeroed` bytes are zero. */
static char *
block_alloc(size_t size, size_t zeroed)
{
  size_t cls = (size + 15) / 16;
  char *raw;
  if (BLOCK_CACHE && cls <= BLOCK_CLASSES && block_cache.head[cls]) {
    raw = block_cache.head[cls];
    block_cache.head[cls] = *(void **)raw;
    block_cache.count[cls]--;
  } else {
    raw = g_malloc(BLOCK_HEADER + (cls <= BLOCK_CLASSES ? cls * 16 : size));
  }
  memset(raw + BLOCK_HEADER, 0, zeroed);
  *(size_t *)raw = cls;
  return raw + BLOCK_HEADER;
}

static void
block_free(char *mem)
{
  char *raw = mem - BLOCK_HEADER;
  size_t cls = *(size_t *)raw;
  if (BLOCK_CACHE && cls <= BLOCK_CLASSES && block_cache.count[cls] < BLOCK_KEEP) {
    if (G_UNLIKELY(!block_cache.registered)) {
      pthread_once(&block_cache_once, block_cache_key_create);
      pthread_setspecific(block_cache_key, &block_cache);
      block_cache.registered = true;
    }
    *(void **)raw = block_cache.head[cls];
    block_cache.head[cls] = raw;
    block_cache.count[cls]++;
    return;
  }
  g_free(raw);
}

LangObject *
lang_object_alloc(LangState *L, LangType *type, size_t size)
{
  return lang_object_alloc_partial(L, type, size, size);
}

LangObject *
lang_object_alloc_partial(LangState *L, LangType *type, size_t size, size_t zeroed)
{
  bool gc = (type->flags & LANG_TYPE_GC) != 0;
  size_t pre = gc ? sizeof(LangGcLink) : 0;
  char *mem = block_alloc(pre + size, pre + MIN(zeroed, size));
  LangObject *o = (LangObject *)(mem + pre);
  o->refcount = 1;
  o->type = type;
  if (type->flags & LANG_TYPE_HEAP)
    type->base.refcount++;
  if (gc) {
    LangGcLink *link = (LangGcLink *)mem;
    link->prev = link->next = link;
    if (L)
      gc_link_insert(&L->gc, link);
  }
  return o;
}

/* Freeing an object frees what it owns, so a long chain ([[[...]]], a linked list of instances)
 * would nest one C frame per link and overflow the stack. Past DEALLOC_NEST_MAX nested frees,
 * objects wait on a per-thread list that the outermost free drains. */
#define DEALLOC_NEST_MAX 200

static _Thread_local int dealloc_nest;           /* lang_object_free() calls in progress */
static _Thread_local GPtrArray *dealloc_pending; /* objects whose free was put off, or NULL */

static void
object_free_now(LangObject *o)
{
  LangType *t = o->type;
  char *mem = (t->flags & LANG_TYPE_GC) ? (char *)((LangGcLink *)o - 1) : (char *)o;
  /* Resurrection guard: a dealloc that passes `o` to code which increfs it must not free it
   * twice; objects being freed have refcount 0 and are never revived by the runtime. */
  if (t->slots.dealloc)
    t->slots.dealloc(o);
  block_free(mem);
}

void
lang_object_free(LangObject *o)
{
  /* Off the state's list at once: teardown must never see an object whose free is pending. */
  if (o->type->flags & LANG_TYPE_GC)
    gc_link_remove((LangGcLink *)o - 1);
  if (dealloc_nest >= DEALLOC_NEST_MAX) {
    if (!dealloc_pending)
      dealloc_pending = g_ptr_array_new();
    g_ptr_array_add(dealloc_pending, o);
    return;
  }
  dealloc_nest++;
  object_free_now(o);
  if (dealloc_nest == 1 && dealloc_pending) {
    while (dealloc_pending->len > 0)
      object_free_now(g_ptr_array_steal_index(dealloc_pending, dealloc_pending->len - 1));
    g_ptr_array_free(dealloc_pending, TRUE);
    dealloc_pending = NULL;
  }
  dealloc_nest--;
}

void
lang_object_immortalize(LangObject *o)
{
  o->refcount = LANG_IMMORTAL_REFCOUNT;
}

/* ---- state ---- */

LangState *
lang_state_new(void)
{
  lang_runtime_init_types();
  LangState *L = g_new0(LangState, 1);
  L->exc = LANG_UNSET;
  L->handled = LANG_UNSET;
  L->recursion_limit = 1000;
  atomic_init(&L->interrupt, 0);
  L->gc.prev = L->gc.next = &L->gc;
  L->out = default_write;
  L->out_data = stdout;
  L->err = default_write;
  L->err_data = stderr;
  L->repr_stack = g_ptr_array_new();
  L->native_modules = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  L->modules = lang_dict_new(L).o;
  L->builtins = lang_dict_new(L).o;
  L->argv = lang_list_new(L, 0).o;
  lang_builtins_install(L);
  lang_register_module(L, "math", lang_math_module_init);
  lang_register_module(L, "time", lang_time_module_init);
  lang_register_module(L, "sys", lang_sys_module_init);
  return L;
}

static void
clear_root(LangObject **slot)
{
  LangObject *o = *slot;
  *slot = NULL;
  if (o)
    lang_decref(lang_obj(o));
}

void
lang_state_free(LangState *L)
{
  if (!L)
    return;
  L->tearing_down = true;
  lang_exc_clear(L);
  if (!lang_is_unset(L->handled)) {
    lang_decref(L->handled);
    L->handled = LANG_UNSET;
  }
  /* Module namespaces first: functions keep them alive through their globals. */
  int64_t pos = 0;
  LangValue key, value;
  while (L->modules && lang_dict_next(L->modules, &pos, &key, &value)) {
    LangObject **d = lang_instance_dict_ptr(value);
    if (d && *d)
      lang_dict_clear(*d);
  }
  clear_root(&L->modules);
  clear_root(&L->builtins);
  clear_root(&L->argv);

  LangGcLink done = {&done, &done};
  while (L->gc.next != &L->gc) {
    LangGcLink *link = L->gc.next;
    LangObject *o = lang_gc_header_object(link);
    gc_link_remove(link);
    gc_link_insert(&done, link);
    o->refcount++;
    if (o->type->slots.clear)
      o->type->slots.clear(o);
    lang_exc_clear(L);
    lang_decref(lang_obj(o));
  }
  int64_t survivors = 0;
  for (LangGcLink *l = done.next; l != &done; l = l->next)
    survivors++;
  if (survivors)
    g_debug("lang_state_free: %" G_GINT64_FORMAT " objects survive (leaked references)", survivors);
  /* Unlink survivors from the stack-allocated list head. */
  while (done.next != &done)
    gc_link_remove(done.next);
  g_ptr_array_unref(L->repr_stack);
  g_hash_table_unref(L->native_modules);
  if (L->tf_free)
    L->tf_free(L->tf);
  if (L->vm.free_data)
    L->vm.free_data(L->vm.data);
  g_free(L);
}

int64_t
lang_state_tracked_objects(LangState *L)
{
  int64_t n = 0;
  for (LangGcLink *l = L->gc.next; l != &L->gc; l = l->next)
    n++;
  return n;
}

void
lang_state_set_stdout(LangState *L, LangWriteFunc out, void *data)
{
  L->out = out ? out : default_write;
  L->out_data = out ? data : stdout;
}

void
lang_state_set_stderr(LangState *L, LangWriteFunc err, void *data)
{
  L->err = err ? err : default_write;
  L->err_data = err ? data : stderr;
}

void
lang_state_set_vm_hooks(LangState *L, const LangVmHooks *hooks)
{
  L->vm = *hooks;
}

void
lang_write_out(LangState *L, const char *utf8, size_t len)
{
  L->out(L->out_data, utf8, len);
}

void
lang_write_err(LangState *L, const char *utf8, size_t len)
{
  L->err(L->err_data, utf8, len);
}

void
lang_state_interrupt(LangState *L)
{
  atomic_store(&L->interrupt, 1);
}

bool
lang_check_interrupt(LangState *L)
{
  if (G_LIKELY(atomic_load_explicit(&L->interrupt, memory_order_relaxed) == 0))
    return true;
  if (atomic_exchange(&L->interrupt, 0) == 0)
    return true;
  lang_raise_value(L, lang_obj(&lang_exc_KeyboardInterrupt));
  return false;
}

/* ---- recursion ----
 *
 * The VM runs Python-to-Python calls without C recursion, but native code that calls back into
 * Python (sorted's key, map, repr of containers, __init__ from a class call, generator resume)
 * nests a C frame per level. The recursion limit alone cannot protect the C stack once a user
 * raises it (sys.setrecursionlimit(100000)), so lang_enter() also refuses to go below a guard
 * near the bottom of the running thread's stack. */

/* Stack left below the guard for the C code between two lang_enter() calls and for unwinding. */
#define C_STACK_RESERVE (256 * 1024)
/* Used when the thread's stack bounds are unknown: how far below the outermost entry to go. */
#define C_STACK_FALLBACK_BUDGET (2 * 1024 * 1024)

/* The lowest frame address this thread may reach while running code. */
static uintptr_t
thread_stack_guard(void)
{
  static _Thread_local uintptr_t guard;
  if (guard)
    return guard;
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void *addr;
    size_t size;
    if (pthread_attr_getstack(&attr, &addr, &size) == 0 && size > 0)
      guard = (uintptr_t)addr + MIN((size_t)C_STACK_RESERVE, size / 4);
    pthread_attr_destroy(&attr);
  }
  if (!guard) {
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    guard = here > C_STACK_FALLBACK_BUDGET ? here - C_STACK_FALLBACK_BUDGET : 1;
  }
  return guard;
}

bool
lang_enter(LangState *L, const char *where)
{
  if (L->depth == 0)
    L->c_stack_guard = thread_stack_guard();
  if (G_UNLIKELY(L->depth >= L->recursion_limit ||
                 (uintptr_t)__builtin_frame_address(0) < L->c_stack_guard)) {
    lang_raise_recursion(L, where);
    return false;
  }
  L->depth++;
  return true;
}

/* ---- modules ---- */

void
lang_register_module(LangState *L, const char *name, LangModuleInit init)
{
  g_hash_table_replace(L->native_modules, g_strdup(name), (gpointer)init);
}

LangValue
lang_import(LangState *L, const char *name)
{
  LangValue m = lang_dict_get_cstr(L->modules, name);
  if (!lang_is_unset(m))
    return lang_incref(m);
  LangModuleInit init = (LangModuleInit)g_hash_table_lookup(L->native_modules, name);
  if (!init) {
    lang_raise(L, &lang_exc_ModuleNotFoundError, "No module named '%s'", name);
    LangValue n = lang_str_cstr(L, name);
    lang_generic_setattr(L, L->exc, lang_intern("name"), n);
    lang_decref(n);
    return LANG_EXC;
  }
  m = init(L);
  if (lang_is_exc(m))
    return m;
  if (!lang_dict_set_cstr(L, L->modules, name, m)) {
    lang_decref(m);
    return LANG_EXC;
  }
  return m;
}
