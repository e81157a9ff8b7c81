/* tp-writer.c — the text stream that stands for sys.stdout and sys.stderr when the host
 * captures output (the kernel publishes it as stream messages, the debugger shows it).
 *
 * It implements what print(), tf.print, traceback and logging use of a text file: write(str)
 * hands the UTF-8 text to the host's callback at once (no buffering, so output interleaves
 * with the host's own in order), flush() does nothing, isatty() is False, and the attributes
 * libraries look at (encoding, errors, closed, name, mode). It has no file descriptor:
 * fileno() raises io.UnsupportedOperation as io.StringIO's does.
 */
#include "tp-private.h"

typedef struct {
  PyObject_HEAD
  TpStream stream;   /* which stream the callback is told */
  TpWriteFunc write; /* the host's callback */
  void *data;        /* its argument */
} TpWriter;

static PyObject *
writer_write(PyObject *self, PyObject *arg)
{
  TpWriter *w = (TpWriter *)self;
  if (!PyUnicode_Check(arg)) {
    PyErr_Format(PyExc_TypeError, "write() argument must be str, not %.100s",
                 Py_TYPE(arg)->tp_name);
    return NULL;
  }
  Py_ssize_t size;
  const char *text = PyUnicode_AsUTF8AndSize(arg, &size);
  if (text) {
    if (size > 0)
      w->write(w->data, w->stream, text, (gsize)size);
  } else {
    /* Lone surrogates (e.g. undecodable file names) are written escaped, not refused. */
    PyErr_Clear();
    PyObject *bytes = PyUnicode_AsEncodedString(arg, "utf-8", "backslashreplace"); /* owned */
    if (!bytes)
      return NULL;
    w->write(w->data, w->stream, PyBytes_AS_STRING(bytes), (gsize)PyBytes_GET_SIZE(bytes));
    Py_DECREF(bytes);
  }
  return PyLong_FromSsize_t(PyUnicode_GET_LENGTH(arg));
}

static PyObject *
writer_none(PyObject *self, PyObject *unused)
{
  Py_RETURN_NONE;
}

static PyObject *
writer_false(PyObject *self, PyObject *unused)
{
  Py_RETURN_FALSE;
}

static PyObject *
writer_true(PyObject *self, PyObject *unused)
{
  Py_RETURN_TRUE;
}

static PyObject *
writer_fileno(PyObject *self, PyObject *unused)
{
  PyObject *io = PyImport_ImportModule("io"); /* owned */
  if (!io)
    return NULL;
  PyObject *unsupported = PyObject_GetAttrString(io, "UnsupportedOperation"); /* owned */
  Py_DECREF(io);
  if (!unsupported)
    return NULL;
  PyErr_SetString(unsupported, "fileno");
  Py_DECREF(unsupported);
  return NULL;
}

static PyObject *
writer_writelines(PyObject *self, PyObject *lines)
{
  PyObject *it = PyObject_GetIter(lines); /* owned */
  if (!it)
    return NULL;
  PyObject *line;
  while ((line = PyIter_Next(it))) {
    PyObject *r = writer_write(self, line);
    Py_DECREF(line);
    if (!r) {
      Py_DECREF(it);
      return NULL;
    }
    Py_DECREF(r);
  }
  Py_DECREF(it);
  if (PyErr_Occurred())
    return NULL;
  Py_RETURN_NONE;
}

static PyObject *
writer_get_name(PyObject *self, void *closure)
{
  return PyUnicode_FromString(((TpWriter *)self)->stream == TP_STDOUT ? "<stdout>" : "<stderr>");
}

static PyObject *
writer_get_false(PyObject *self, void *closure)
{
  Py_RETURN_FALSE;
}

static PyObject *
writer_get_none(PyObject *self, void *closure)
{
  Py_RETURN_NONE;
}

static PyObject *
writer_get_string(PyObject *self, void *closure)
{
  return PyUnicode_FromString(closure);
}

static PyMethodDef writer_methods[] = {
    {"write", writer_write, METH_O, "Write a string to the host; returns its length."},
    {"writelines", writer_writelines, METH_O, "Write each string of an iterable."},
    {"flush", writer_none, METH_NOARGS, "Does nothing: every write reaches the host at once."},
    {"close", writer_none, METH_NOARGS, "Does nothing: the host's stream stays open."},
    {"isatty", writer_false, METH_NOARGS, "False: not a terminal."},
    {"readable", writer_false, METH_NOARGS, "False."},
    {"seekable", writer_false, METH_NOARGS, "False."},
    {"writable", writer_true, METH_NOARGS, "True."},
    {"fileno", writer_fileno, METH_NOARGS, "Raises io.UnsupportedOperation: no descriptor."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef writer_getset[] = {
    {"name", writer_get_name, NULL, "<stdout> or <stderr>", NULL},
    {"closed", writer_get_false, NULL, "False", NULL},
    {"line_buffering", writer_get_false, NULL, "False", NULL},
    {"newlines", writer_get_none, NULL, "None", NULL},
    {"encoding", writer_get_string, NULL, "utf-8", "utf-8"},
    {"errors", writer_get_string, NULL, "strict", "strict"},
    {"mode", writer_get_string, NULL, "w", "w"},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot writer_slots[] = {
    {Py_tp_doc, "A text stream whose writes go to the program running Python."},
    {Py_tp_methods, writer_methods},
    {Py_tp_getset, writer_getset},
    {0, NULL},
};

static PyType_Spec writer_spec = {
    .name = "trellis.StreamWriter",
    .basicsize = sizeof(TpWriter),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = writer_slots,
};

PyObject *
tp_writer_type_new(void)
{
  return PyType_FromSpec(&writer_spec);
}

PyObject *
tp_writer_new(PyObject *type, TpStream stream, TpWriteFunc write, void *data)
{
  g_return_val_if_fail(PyType_Check(type) && write != NULL, NULL);
  TpWriter *w = PyObject_New(TpWriter, (PyTypeObject *)type);
  if (!w)
    return NULL;
  w->stream = stream;
  w->write = write;
  w->data = data;
  return (PyObject *)w;
}
