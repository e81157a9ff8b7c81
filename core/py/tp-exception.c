/* tp-exception.c — an exception that escaped a unit, as hosts report it: CPython's traceback
 * text (traceback.format_exception), the name and message the kernel's error reply carries,
 * and what SystemExit asks the command line to do. */
#include "tp-private.h"

/* Takes the pending exception, normalised, its traceback attached. New reference, or NULL
 * when none is pending. (Python 3.12's PyErr_GetRaisedException.) */
static PyObject *
take_pending(void)
{
  PyObject *type, *value, *tb; /* owned */
  PyErr_Fetch(&type, &value, &tb);
  if (!type)
    return NULL;
  PyErr_NormalizeException(&type, &value, &tb);
  if (tb && value)
    PyException_SetTraceback(value, tb);
  if (!value)
    value = Py_NewRef(Py_None);
  Py_DECREF(type);
  Py_XDECREF(tb);
  return value;
}

/* The name of an exception's type as tracebacks show it: "ZeroDivisionError". */
static const char *
type_name(PyObject *value)
{
  const char *name = Py_TYPE(value)->tp_name;
  const char *dot = strrchr(name, '.');
  return dot ? dot + 1 : name;
}

/* str(obj) as UTF-8, never failing: "<unprintable NAME object>" as CPython prints. */
static char *
safe_str(PyObject *obj)
{
  PyObject *s = PyObject_Str(obj); /* owned */
  const char *text = s ? PyUnicode_AsUTF8(s) : NULL;
  char *copy =
      text ? g_strdup(text) : g_strdup_printf("<unprintable %s object>", Py_TYPE(obj)->tp_name);
  if (!text)
    PyErr_Clear();
  Py_XDECREF(s);
  return copy;
}

/* traceback.format_exception(value) joined, or NULL with an exception set. Transfer full. */
static char *
format_traceback(PyObject *value)
{
  PyObject *traceback = PyImport_ImportModule("traceback"); /* owned */
  PyObject *chunks =                                        /* owned */
      traceback ? PyObject_CallMethod(traceback, "format_exception", "O", value) : NULL;
  Py_XDECREF(traceback);
  if (!chunks)
    return NULL;
  PyObject *empty = PyUnicode_FromString("");                      /* owned */
  PyObject *joined = empty ? PyUnicode_Join(empty, chunks) : NULL; /* owned */
  const char *text = joined ? PyUnicode_AsUTF8(joined) : NULL;
  char *copy = text ? g_strdup(text) : NULL;
  Py_XDECREF(joined);
  Py_XDECREF(empty);
  Py_DECREF(chunks);
  return copy;
}

/* SystemExit's code as CPython's _Py_HandleSystemExit reads it. */
static void
read_system_exit(TpException *exc)
{
  PyObject *code = PyObject_GetAttrString(exc->value, "code"); /* owned */
  if (!code) {
    PyErr_Clear();
    exc->exit_status = 1;
    return;
  }
  if (code == Py_None) {
    exc->exit_status = 0;
  } else if (PyLong_Check(code)) {
    int overflow = 0;
    long status = PyLong_AsLongAndOverflow(code, &overflow);
    exc->exit_status = overflow || (status == -1 && PyErr_Occurred()) ? -1 : (int)status;
    PyErr_Clear();
  } else {
    exc->exit_message = safe_str(code);
    exc->exit_status = 1;
  }
  Py_DECREF(code);
}

TpException *
tp_exception_fetch(void)
{
  PyObject *value = take_pending();
  if (!value)
    return NULL;
  TpException *exc = g_new0(TpException, 1);
  exc->value = value; /* the reference fetched */
  exc->name = g_strdup(type_name(value));
  exc->message = safe_str(value);
  exc->exit_status = 1;
  exc->system_exit = PyErr_GivenExceptionMatches(value, PyExc_SystemExit);
  if (exc->system_exit) {
    read_system_exit(exc);
    exc->lines = g_new0(char *, 1);
    return exc;
  }
  g_autofree char *text = format_traceback(value);
  if (!text) {
    PyErr_Clear();
    text = *exc->message ? g_strdup_printf("%s: %s", exc->name, exc->message) : g_strdup(exc->name);
  }
  gsize len = strlen(text);
  if (len > 0 && text[len - 1] == '\n')
    text[len - 1] = '\0';
  exc->lines = g_strsplit(text, "\n", -1);
  return exc;
}

void
tp_exception_free(TpException *exc)
{
  if (!exc)
    return;
  Py_XDECREF(exc->value);
  g_free(exc->name);
  g_free(exc->message);
  g_strfreev(exc->lines);
  g_free(exc->exit_message);
  g_free(exc);
}

/* Writes `text` and a newline on sys.stderr, or on fd 2 when there is none. */
static void
write_stderr_line(const char *text)
{
  PyObject *err = PySys_GetObject("stderr"); /* borrowed */
  if (err && err != Py_None && PyFile_WriteString(text, err) == 0 &&
      PyFile_WriteString("\n", err) == 0)
    return;
  PyErr_Clear();
  fprintf(stderr, "%s\n", text);
}

int
tp_report_uncaught(void)
{
  if (!PyErr_Occurred())
    return 0;
  if (PyErr_ExceptionMatches(PyExc_SystemExit)) {
    g_autoptr(TpException) exc = tp_exception_fetch();
    if (exc->exit_message)
      write_stderr_line(exc->exit_message);
    return exc->exit_status;
  }
  PyObject *value = take_pending();               /* owned */
  PyObject *tb = PyException_GetTraceback(value); /* owned, may be NULL */
  PyObject *hook = PySys_GetObject("excepthook"); /* borrowed */
  PyObject *r = hook ? PyObject_CallFunctionObjArgs(hook, (PyObject *)Py_TYPE(value), value,
                                                    tb ? tb : Py_None, NULL)
                     : NULL; /* owned */
  if (!r) {
    /* No hook, or it raised: CPython's own printing of the original exception. */
    PyErr_Clear();
    PyErr_Display((PyObject *)Py_TYPE(value), value, tb ? tb : Py_None);
  }
  Py_XDECREF(r);
  Py_XDECREF(tb);
  Py_DECREF(value);
  return 1;
}
