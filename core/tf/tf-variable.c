/* tf-variable.c — (being ported from core/lang; see tf-private.h for what this part does). */
#include "tf-private.h"

int
tf_variable_init(PyObject *module, TfState *st)
{
  return 0;
}

void
tf_variable_clear(TfState *st)
{
}
