/* lang-arena.c — a bump allocator with an intern table and cleanups.
 *
 * Chunks start small and double up to 64 KiB: most arenas hold one short cell, and a 64 KiB
 * block allocated and freed per cell makes malloc consolidate its free lists every time. */
#include "lang-arena.h"

#include <string.h>

#define FIRST_CHUNK_SIZE (2 * 1024)
#define CHUNK_SIZE       (64 * 1024)
#define ALIGNMENT        16

typedef struct Chunk Chunk;
struct Chunk {
  Chunk *next; /* the previously filled chunk */
  gsize size;  /* usable bytes in data */
  gsize used;  /* bytes handed out */
  /* the data follows, aligned */
};

typedef struct {
  GDestroyNotify notify; /* what to call */
  gpointer data;         /* on what */
} Cleanup;

struct LangArena {
  Chunk *chunks;       /* the current chunk, then older ones */
  gsize next_size;     /* the size of the next chunk */
  GHashTable *interns; /* const char* -> itself: the canonical names */
  GArray *cleanups;    /* Cleanup, run in reverse order on free */
};

static gsize
chunk_header_size(void)
{
  return (sizeof(Chunk) + ALIGNMENT - 1) & ~(gsize)(ALIGNMENT - 1);
}

static Chunk *
chunk_new(gsize size, Chunk *next)
{
  Chunk *chunk = g_malloc(chunk_header_size() + size);
  chunk->next = next;
  chunk->size = size;
  chunk->used = 0;
  return chunk;
}

LangArena *
lang_arena_new(void)
{
  LangArena *arena = g_new0(LangArena, 1);
  arena->chunks = chunk_new(FIRST_CHUNK_SIZE, NULL);
  arena->next_size = MIN(FIRST_CHUNK_SIZE * 2, CHUNK_SIZE);
  arena->interns = g_hash_table_new(g_str_hash, g_str_equal);
  arena->cleanups = g_array_new(FALSE, FALSE, sizeof(Cleanup));
  return arena;
}

void
lang_arena_free(LangArena *arena)
{
  if (arena == NULL)
    return;
  for (guint i = arena->cleanups->len; i > 0; i--) {
    Cleanup *c = &g_array_index(arena->cleanups, Cleanup, i - 1);
    c->notify(c->data);
  }
  g_array_free(arena->cleanups, TRUE);
  g_hash_table_destroy(arena->interns);
  Chunk *chunk = arena->chunks;
  while (chunk != NULL) {
    Chunk *next = chunk->next;
    g_free(chunk);
    chunk = next;
  }
  g_free(arena);
}

void *
lang_arena_alloc(LangArena *arena, gsize size)
{
  size = (size + ALIGNMENT - 1) & ~(gsize)(ALIGNMENT - 1);
  if (size == 0)
    size = ALIGNMENT;
  Chunk *chunk = arena->chunks;
  if (size > chunk->size - chunk->used) {
    if (size > arena->next_size / 4) {
      /* A big block gets a chunk of its own behind the current one, so the current
       * chunk's free space is not wasted. */
      Chunk *big = chunk_new(size, chunk->next);
      chunk->next = big;
      big->used = size;
      char *mem = (char *)big + chunk_header_size();
      memset(mem, 0, size);
      return mem;
    }
    chunk = chunk_new(arena->next_size, chunk);
    arena->chunks = chunk;
    arena->next_size = MIN(arena->next_size * 2, CHUNK_SIZE);
  }
  char *mem = (char *)chunk + chunk_header_size() + chunk->used;
  chunk->used += size;
  memset(mem, 0, size);
  return mem;
}

char *
lang_arena_strndup(LangArena *arena, const char *s, gsize len)
{
  char *copy = lang_arena_alloc(arena, len + 1);
  if (len > 0)
    memcpy(copy, s, len);
  copy[len] = '\0';
  return copy;
}

const char *
lang_arena_intern(LangArena *arena, const char *s, gsize len)
{
  char stack[64];
  char *key = len < sizeof stack ? stack : g_malloc(len + 1);
  memcpy(key, s, len);
  key[len] = '\0';
  const char *found = g_hash_table_lookup(arena->interns, key);
  if (found == NULL) {
    char *copy = lang_arena_strndup(arena, s, len);
    g_hash_table_add(arena->interns, copy);
    found = copy;
  }
  if (key != stack)
    g_free(key);
  return found;
}

void
lang_arena_add_cleanup(LangArena *arena, GDestroyNotify notify, gpointer data)
{
  Cleanup c = {notify, data};
  g_array_append_val(arena->cleanups, c);
}

void
lang_vec_push(LangArena *arena, LangVec *vec, void *item)
{
  if (vec->len == vec->cap) {
    int cap = vec->cap == 0 ? 4 : vec->cap * 2;
    void **items = lang_arena_alloc(arena, sizeof(void *) * (gsize)cap);
    if (vec->len > 0)
      memcpy(items, vec->items, sizeof(void *) * (gsize)vec->len);
    vec->items = items;
    vec->cap = cap;
  }
  vec->items[vec->len++] = item;
}
