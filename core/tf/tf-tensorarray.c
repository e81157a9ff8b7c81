/* tf-tensorarray.c — (being ported from core/lang; see tf-private.h for what this part does). */
#include "tf-private.h"

int
tf_tensorarray_init(PyObject *module, TfState *st)
{
  return 0;
}

void
tf_tensorarray_clear(TfState *st)
{
}

bool
tf_is_tensor_array(TfState *st, PyObject *v)
{
  return false;
}
