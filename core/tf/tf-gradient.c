/* tf-gradient.c — (being ported from core/lang; see tf-private.h for what this part does). */
#include "tf-private.h"

int
tf_gradient_init(PyObject *module, TfState *st)
{
  return 0;
}

void
tf_gradient_clear(TfState *st)
{
}
