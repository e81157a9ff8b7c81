/* tf-data.c — (being ported from core/lang; see tf-private.h for what this part does). */
#include "tf-private.h"

int
tf_data_init(PyObject *module, TfState *st)
{
  return 0;
}

void
tf_data_clear(TfState *st)
{
}

bool
tf_is_dataset(TfState *st, PyObject *v)
{
  return false;
}

bool
tf_is_dataset_iterator(TfState *st, PyObject *v)
{
  return false;
}
