/* ops.c — the op table and the eager path: infer, allocate, run (or view). */
#include "tr-tensor-private.h"

#include <string.h>

static const char *const op_types[] = {
#define TR_OP_TYPE(id, tf) [TR_OP_##id] = tf,
    TR_OP_LIST(TR_OP_TYPE)
#undef TR_OP_TYPE
};
G_STATIC_ASSERT(G_N_ELEMENTS(op_types) == TR_N_OPS);

static TrOpDef op_defs[TR_N_OPS];

static gpointer
op_table_init(gpointer unused)
{
  (void)unused;
  tr_ops_register_elementwise(op_defs);
  tr_ops_register_reduce(op_defs);
  tr_ops_register_linalg(op_defs);
  tr_ops_register_shape(op_defs);
  tr_ops_register_create(op_defs);
  tr_ops_register_strings(op_defs);
  for (int i = 0; i < TR_N_OPS; i++) {
    op_defs[i].type = op_types[i];
    if (!op_defs[i].name)
      op_defs[i].name = op_types[i];
  }
  return NULL;
}

const TrOpDef *
tr_op_def(TrOpId op)
{
  static GOnce once = G_ONCE_INIT;
  g_once(&once, op_table_init, NULL);
  g_return_val_if_fail(op >= 0 && op < TR_N_OPS, NULL);
  return &op_defs[op];
}

int
tr_op_lookup(const char *type)
{
  for (int i = 0; i < TR_N_OPS; i++)
    if (strcmp(op_types[i], type) == 0)
      return i;
  return -1;
}

void
tr_attrs_init(TrAttrs *attrs)
{
  memset(attrs, 0, sizeof *attrs);
  attrs->n_axes = -1;
  attrs->dtype = TR_DTYPE_INVALID;
  attrs->strides[0] = attrs->strides[1] = 1;
  attrs->padding = TR_PADDING_VALID;
  attrs->on_value = 1.0;
  attrs->num_columns = -1;
  attrs->maxval = 1.0;
}

/* The test suite checks that every op is defined; this guards a C caller all the same. */
static bool
check_defined(const TrOpDef *def, GError **error)
{
  if (def->infer && def->kernel)
    return true;
  tr_set_op_error(error, TR_ERROR_UNIMPLEMENTED, def->type, "%s has no kernel", def->type);
  return false;
}

/* The defaults of tr_attrs_init(), made once: eager calls without attrs are the common case. */
static const TrAttrs *
default_attrs(void)
{
  static TrAttrs defaults;
  static gsize done = 0;
  if (g_once_init_enter(&done)) {
    tr_attrs_init(&defaults);
    g_once_init_leave(&done, 1);
  }
  return &defaults;
}

static bool
check_arity(const TrOpDef *def, int n_in, GError **error)
{
  if (def->n_inputs >= 0 ? n_in == def->n_inputs : n_in >= 1)
    return true;
  tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, def->type, "%s expects %d inputs, got %d",
                  def->type, def->n_inputs, n_in);
  return false;
}

/* Variants (datasets, tensor lists) have no row in any op's per-dtype tables: no core/tensor op
 * takes one. */
static bool
check_no_variant(const TrOpDef *def, const TrTensorInfo *in, int n_in, GError **error)
{
  for (int i = 0; i < n_in; i++) {
    if (in[i].dtype != TR_VARIANT)
      continue;
    tr_set_op_error(error, TR_ERROR_INVALID_ARGUMENT, def->type,
                    "%s cannot take input #%d(zero-based): it is a variant tensor (a dataset, "
                    "iterator or tensor list), not a tensor of numbers or strings",
                    def->type, i);
    return false;
  }
  return true;
}

bool
tr_op_infer(TrOpId op, const TrTensorInfo *in, int n_in, const TrAttrs *attrs, TrDType *dtype,
            TrShape *shape, GError **error)
{
  const TrOpDef *def = tr_op_def(op);
  if (!attrs)
    attrs = default_attrs();
  if (!check_defined(def, error) || !check_arity(def, n_in, error) ||
      !check_no_variant(def, in, n_in, error))
    return false;
  return def->infer(in, n_in, attrs, dtype, shape, error);
}

TrTensor *
tr_op_run(TrOpId op, TrTensor *const *in, int n_in, const TrAttrs *attrs, GError **error)
{
  const TrOpDef *def = tr_op_def(op);
  if (!attrs)
    attrs = default_attrs();
  if (!check_defined(def, error) || !check_arity(def, n_in, error))
    return NULL;

  TrTensorInfo stack_infos[8];
  g_autofree TrTensorInfo *heap_infos = n_in > 8 ? g_new(TrTensorInfo, n_in) : NULL;
  TrTensorInfo *infos = heap_infos ? heap_infos : stack_infos;
  for (int i = 0; i < n_in; i++) {
    /* Copy only the dims in use: a whole TrShape is large, and this is every eager op's path. */
    infos[i].dtype = in[i]->dtype;
    infos[i].value = in[i];
    infos[i].shape.rank = in[i]->shape.rank;
    memcpy(infos[i].shape.dims, in[i]->shape.dims, sizeof(int64_t) * (size_t)in[i]->shape.rank);
  }

  TrDType dtype;
  TrShape shape;
  if (!check_no_variant(def, infos, n_in, error) ||
      !def->infer(infos, n_in, attrs, &dtype, &shape, error))
    return NULL;
  g_return_val_if_fail(tr_shape_is_fully_defined(&shape), NULL);

  if (def->view) {
    TrTensor *view = def->view(in, n_in, attrs, &shape);
    if (view)
      return view;
  }
  TrTensor *out = tr_tensor_try_new_uninit(dtype, &shape, error);
  if (!out)
    return NULL;
  if (!def->kernel(in, n_in, attrs, out, error)) {
    tr_tensor_unref(out);
    return NULL;
  }
  return out;
}

TrTensor *
tr_unary(TrOpId op, TrTensor *x, GError **error)
{
  return tr_op_run(op, &x, 1, NULL, error);
}

TrTensor *
tr_binary(TrOpId op, TrTensor *a, TrTensor *b, GError **error)
{
  TrTensor *in[2] = {a, b};
  return tr_op_run(op, in, 2, NULL, error);
}
