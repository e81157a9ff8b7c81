/* tp-source.c — the sources of the units run, kept for linecache.
 *
 * Tracebacks show a unit's lines and inspect.getsource finds functions defined in a cell (the
 * AutoGraph converter needs it) only when linecache knows the unit's text: "<cell 3>" is no
 * file. Importing linecache costs more than the rest of start-up together (tokenize, re, enum),
 * and most programs never need it, so the sources are kept here and given to linecache when
 * it is imported: a finder first on sys.meta_path sees that import, lets the real finder load
 * the module, and fills its cache before anyone else sees it. Entries have linecache's shape,
 * (size, None, lines, filename); the None mtime keeps linecache.checkcache from dropping them.
 */
#include "tp-private.h"

/* filename -> linecache entry, for every unit run (strong; NULL before tp_source_init). */
static PyObject *sources;

static const char filler_source[] =
    "import sys\n"
    "\n"
    "class LinecacheFiller:\n"
    "    '''Fills linecache.cache with the units' sources when linecache is imported.'''\n"
    "\n"
    "    def __init__(self, sources):\n"
    "        self.sources = sources\n"
    "\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name != 'linecache':\n"
    "            return None\n"
    "        sys.meta_path.remove(self)\n"
    "        for finder in sys.meta_path:\n"
    "            find_spec = getattr(finder, 'find_spec', None)\n"
    "            spec = find_spec(name, path, target) if find_spec else None\n"
    "            if spec is not None:\n"
    "                break\n"
    "        else:\n"
    "            return None\n"
    "        load = spec.loader.exec_module\n"
    "        sources = self.sources\n"
    "        def exec_module(module):\n"
    "            load(module)\n"
    "            module.cache.update(sources)\n"
    "        spec.loader.exec_module = exec_module\n"
    "        return spec\n";

/* Puts the filler first on sys.meta_path. */
static bool
install_filler(void)
{
  PyObject *ns = PyDict_New(); /* owned */
  if (!ns)
    return false;
  bool ok = false;
  PyObject *filler = NULL;
  if (PyDict_SetItemString(ns, "__builtins__", PyEval_GetBuiltins()) < 0)
    goto done;
  PyObject *r = PyRun_String(filler_source, Py_file_input, ns, ns); /* owned */
  if (!r)
    goto done;
  Py_DECREF(r);
  PyObject *cls = PyDict_GetItemString(ns, "LinecacheFiller"); /* borrowed */
  filler = cls ? PyObject_CallOneArg(cls, sources) : NULL;     /* owned */
  PyObject *meta_path = PySys_GetObject("meta_path");          /* borrowed */
  if (!filler || !meta_path || PyList_Insert(meta_path, 0, filler) < 0)
    goto done;
  ok = true;
done:
  if (!ok && !PyErr_Occurred())
    PyErr_SetString(PyExc_RuntimeError, "core/py: can't install the linecache filler");
  Py_XDECREF(filler);
  Py_DECREF(ns);
  return ok;
}

bool
tp_source_init(void)
{
  g_return_val_if_fail(sources == NULL, false);
  sources = PyDict_New();
  if (!sources)
    return false;
  PyObject *modules = PyImport_GetModuleDict(); /* borrowed */
  if (PyDict_GetItemString(modules, "linecache"))
    return true; /* already there: tp_register_source writes into it */
  return install_filler();
}

void
tp_source_clear(void)
{
  Py_CLEAR(sources);
}

/* linecache's entry for `text`: its lines keep their ends, and the last gets one. New
 * reference. */
static PyObject *
make_entry(PyObject *filename, PyObject *text)
{
  PyObject *lines = PyUnicode_Splitlines(text, 1); /* owned */
  if (!lines)
    return NULL;
  Py_ssize_t n = PyList_GET_SIZE(lines);
  if (n > 0) {
    PyObject *last = PyList_GET_ITEM(lines, n - 1); /* borrowed */
    Py_ssize_t len = PyUnicode_GET_LENGTH(last);
    if (len == 0 || PyUnicode_READ_CHAR(last, len - 1) != '\n') {
      PyObject *ended = PyUnicode_FromFormat("%U\n", last); /* owned, moved into the list */
      if (!ended || PyList_SetItem(lines, n - 1, ended) < 0) {
        Py_DECREF(lines);
        return NULL;
      }
    }
  }
  PyObject *entry = Py_BuildValue("(nOOO)", PyUnicode_GET_LENGTH(text), Py_None, lines, filename);
  Py_DECREF(lines);
  return entry;
}

bool
tp_register_source(const char *filename, const char *source, gssize len)
{
  g_return_val_if_fail(sources != NULL, false);
  PyObject *name = PyUnicode_DecodeFSDefault(filename); /* owned */
  PyObject *text =                                      /* owned */
      PyUnicode_DecodeUTF8(source, len < 0 ? (Py_ssize_t)strlen(source) : len, "replace");
  PyObject *entry = name && text ? make_entry(name, text) : NULL; /* owned */
  bool ok = entry && PyDict_SetItem(sources, name, entry) == 0;
  if (ok) {
    PyObject *modules = PyImport_GetModuleDict();                                    /* borrowed */
    PyObject *linecache = PyDict_GetItemString(modules, "linecache");                /* borrowed */
    PyObject *cache = linecache ? PyObject_GetAttrString(linecache, "cache") : NULL; /* owned */
    if (cache && PyDict_Check(cache))
      ok = PyDict_SetItem(cache, name, entry) == 0;
    else
      PyErr_Clear(); /* linecache not yet (fully) imported: the filler fills it */
    Py_XDECREF(cache);
  }
  Py_XDECREF(entry);
  Py_XDECREF(text);
  Py_XDECREF(name);
  return ok;
}
