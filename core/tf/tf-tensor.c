/* tf-tensor.c — (being ported from core/lang; see tf-private.h for what this part does). */
#include "tf-private.h"

int
tf_tensor_init(PyObject *module, TfState *st)
{
  return 0;
}

void
tf_tensor_clear(TfState *st)
{
}
