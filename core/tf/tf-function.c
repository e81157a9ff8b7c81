/* tf-function.c — (being ported from core/lang; see tf-private.h for what this part does). */
#include "tf-private.h"

int
tf_function_init(PyObject *module, TfState *st)
{
  return 0;
}

void
tf_function_clear(TfState *st)
{
}
