/* kernel-cellfile.h — where a cell's code lives on disk for debuggers (the "dumped path").
 *
 * Jupyter's debuggers (JupyterLab, VS Code) set breakpoints in a cell by a file path that they
 * compute themselves from the cell's code: the prefix, hash method, seed and suffix that the
 * kernel's debugInfo reply announces, and the 32-bit MurmurHash2 of the code's UTF-8 bytes in
 * decimal — `<tmp>/trellis_<pid>/<hash>.py`. The kernel compiles every cell under that same
 * path, so that the frames of a cell's code (and of functions defined in it) carry the file
 * name a breakpoint names; tracebacks still say "Cell In[N]" and trace events "<cell N>". The
 * file itself is written only when a debugger asks (dumpCell), so that the debugger can show it.
 *
 * No Python and no ZeroMQ: the engine's debug protocol (kernel-dap.c) and the interpreter
 * (kernel-py-interp.c) share these functions. Thread-safe.
 */
#pragma once

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

/* The seed of the cell files' hash, announced in debugInfo. */
#define TK_CELL_HASH_SEED 0x54524c53u

/* MurmurHash2 (32-bit) of `len` bytes with `seed`. */
uint32_t tk_murmur2(const void *data, size_t len, uint32_t seed);
/* This process's cell directory, "<tmp>/trellis_<pid>/", with its final separator (the
 * debugInfo tmpFilePrefix). Borrowed, static. */
const char *tk_cell_dir(void);
/* The path of a cell with `code` (UTF-8, NUL-terminated). Transfer full. */
char *tk_cell_path(const char *code);
/* Writes `code` to its path (creating the directory, mode 0700; the file 0600) and returns the
 * path, or NULL with `error`. Transfer full. */
char *tk_cell_dump(const char *code, GError **error);
/* Removes the cell directory and what was dumped in it (at exit). */
void tk_cell_dir_remove(void);

G_END_DECLS
