/* tf-control.c — (being ported from core/lang; see tf-private.h for what this part does). */
#include "tf-private.h"

int
tf_control_init(PyObject *module, TfState *st)
{
  return 0;
}

void
tf_control_clear(TfState *st)
{
}
