/* tp-asan.h — AddressSanitizer's defaults for the programs whose work is running Python code
 * (the command line and the in-process client's test; not the debugger, whose GTK
 * allocations would crawl, nor the kernel, which imports IPython in every process: see
 * kernel-main.c).
 *
 * Allocations made under CPython get whole stacks (libpython has no frame pointers), so that
 * the suppressions in tools/lsan.supp can name the import that leaked; ASAN_OPTIONS still
 * overrides. The header defines the function ASan looks up: include it in one file of a
 * program, its main. */
#pragma once

#if defined(__SANITIZE_ADDRESS__)
const char *__asan_default_options(void);
__attribute__((used, visibility("default"))) const char *
__asan_default_options(void)
{
  return "fast_unwind_on_malloc=0";
}
#endif
