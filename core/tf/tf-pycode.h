/* The modules of Trellis written in Python (core/tf/py, kernel/py), as the build embeds them:
 * their text and their code compiled at build time (core/tf/py/embed.py generates one
 * `static const TfPyCode` per file). */
#pragma once

#include <Python.h>
#include <stddef.h>

typedef struct {
  const char *file; /* the name the code runs under ("<tensorflow/keras.py>") */
  const char *text; /* the source, NUL-terminated (linecache entries, the fallback) */
  const char *code; /* the code object compiled from `text`, marshalled */
  size_t code_len;  /* bytes of `code` */
  long magic;       /* the bytecode magic number `code` was compiled for */
} TfPyCode;

/* `src`'s code object: the marshalled code when this Python's bytecode magic number is the
 * one it was compiled for, else `text` compiled now. New reference, or NULL with an exception
 * set. */
PyObject *tf_py_code(const TfPyCode *src);
