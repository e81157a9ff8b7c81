/* tf-graph.c — (being ported from core/lang; see tf-private.h for what this part does). */
#include "tf-private.h"

int
tf_graph_init(PyObject *module, TfState *st)
{
  return 0;
}

void
tf_graph_clear(TfState *st)
{
}
