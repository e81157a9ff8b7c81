/* Loading the embedded Python modules (tf-pycode.h). */
#include "tf-pycode.h"

#include <marshal.h>

PyObject *
tf_py_code(const TfPyCode *src)
{
  /* A build whose Python differs from the one it runs on (another minor version) has other
   * bytecode: its marshalled code would not load, or would misbehave. */
  if (src->magic == PyImport_GetMagicNumber()) {
    PyObject *code = PyMarshal_ReadObjectFromString(src->code, (Py_ssize_t)src->code_len);
    if (code && PyCode_Check(code))
      return code;
    Py_XDECREF(code);
    PyErr_Clear();
  }
  return Py_CompileString(src->text, src->file, Py_file_input);
}
