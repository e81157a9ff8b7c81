/* kernel-cellfile.c — cells' paths for debuggers: see kernel-cellfile.h. */
#include "kernel-cellfile.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

/* MurmurHash2's mixing constants. */
#define MURMUR_M 0x5bd1e995u
#define MURMUR_R 24

uint32_t
tk_murmur2(const void *data, size_t len, uint32_t seed)
{
  const unsigned char *p = data;
  uint32_t h = seed ^ (uint32_t)len;
  for (; len >= 4; p += 4, len -= 4) {
    uint32_t k = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    k *= MURMUR_M;
    k ^= k >> MURMUR_R;
    k *= MURMUR_M;
    h = h * MURMUR_M ^ k;
  }
  switch (len) {
    case 3:
      h ^= (uint32_t)p[2] << 16;
      /* fall through */
    case 2:
      h ^= (uint32_t)p[1] << 8;
      /* fall through */
    case 1:
      h ^= p[0];
      h *= MURMUR_M;
      break;
    default:
      break;
  }
  h ^= h >> 13;
  h *= MURMUR_M;
  h ^= h >> 15;
  return h;
}

const char *
tk_cell_dir(void)
{
  static gsize made;
  static char *dir;
  if (g_once_init_enter(&made)) {
    dir = g_strdup_printf("%s%strellis_%ld%s", g_get_tmp_dir(), G_DIR_SEPARATOR_S, (long)getpid(),
                          G_DIR_SEPARATOR_S);
    g_once_init_leave(&made, 1);
  }
  return dir;
}

char *
tk_cell_path(const char *code)
{
  return g_strdup_printf("%s%" PRIu32 ".py", tk_cell_dir(),
                         tk_murmur2(code, strlen(code), TK_CELL_HASH_SEED));
}

char *
tk_cell_dump(const char *code, GError **error)
{
  if (g_mkdir_with_parents(tk_cell_dir(), 0700) < 0) {
    int saved = errno;
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(saved), "cannot create %s: %s",
                tk_cell_dir(), g_strerror(saved));
    return NULL;
  }
  g_autofree char *path = tk_cell_path(code);
  if (!g_file_set_contents_full(path, code, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0600, error))
    return NULL;
  return g_steal_pointer(&path);
}

void
tk_cell_dir_remove(void)
{
  g_autoptr(GDir) dir = g_dir_open(tk_cell_dir(), 0, NULL);
  if (!dir)
    return;
  const char *name;
  while ((name = g_dir_read_name(dir))) {
    g_autofree char *path = g_build_filename(tk_cell_dir(), name, NULL);
    g_unlink(path);
  }
  g_rmdir(tk_cell_dir());
}
