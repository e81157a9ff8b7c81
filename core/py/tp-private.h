/* tp-private.h — what the files of core/py share: the text writer that stands for sys.stdout
 * and sys.stderr when the host captures output (tp-writer.c), and the sources of units kept
 * for linecache (tp-source.c). Not included outside core/py. */
#pragma once

#include "tp.h"

G_BEGIN_DECLS

/* The writer type (a heap type; strong reference), or NULL with an exception set. */
PyObject *tp_writer_type_new(void);
/* A writer of `type` calling `write(data, stream, ...)` for each write(). New reference, or
 * NULL with an exception set. */
PyObject *tp_writer_new(PyObject *type, TpStream stream, TpWriteFunc write, void *data);

/* Starts keeping units' sources for linecache: they go into linecache.cache at once when
 * linecache is imported, else when it is (so that start-up does not import it). Returns false
 * with an exception set. */
bool tp_source_init(void);
void tp_source_clear(void);

G_END_DECLS
