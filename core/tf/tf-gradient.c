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

/* Minimal hooks until tf.GradientTape is ported: no tape ever records (st->tapes stays NULL). */
void
tf_tape_record_op(TfState *st, TrOpId op, const TrAttrs *attrs, const TfOperand *in, int n,
                  TfOperand *result)
{
}

void
tf_tape_read_variable(TfState *st, PyObject *variable, TrTensor **value)
{
}

void
tf_tape_record_call(TfState *st, TrGraph *graph, const TfOperand *in, int n_in, TrTensor **outs,
                    int n_outs)
{
}
