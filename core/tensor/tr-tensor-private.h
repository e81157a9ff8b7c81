/* tr-tensor-private.h — helpers shared by the files of core/tensor; not included elsewhere.
 *
 * The op table is filled by one registration function per group of ops (each ops-*.c file owns
 * its group); tr_op_def() runs them once and checks that every op got a definition.
 */
#pragma once

#include "tr-ops.h"

G_BEGIN_DECLS

void tr_ops_register_elementwise(TrOpDef *defs); /* ops-elementwise.c */
void tr_ops_register_reduce(TrOpDef *defs);      /* ops-reduce.c */
void tr_ops_register_linalg(TrOpDef *defs);      /* ops-linalg.c */
void tr_ops_register_shape(TrOpDef *defs);       /* ops-shape.c */
void tr_ops_register_create(TrOpDef *defs);      /* ops-create.c */
void tr_ops_register_strings(TrOpDef *defs);     /* ops-strings.c */

/* The flag tr_set_cancel_flag() set; NULL when none. */
extern const volatile sig_atomic_t *tr_cancel_flag;

/* Whether an interrupt asks the running kernel to stop: one load when no flag is set. */
static inline bool
tr_cancel_requested(void)
{
  const volatile sig_atomic_t *flag = tr_cancel_flag;
  return G_UNLIKELY(flag && *flag);
}

/* TR_ERROR_CANCELLED for a kernel that stopped on tr_cancel_requested(). */
void tr_set_cancelled(GError **error, const char *op_type);

/* Set an InvalidArgumentError (or other code) whose message ends with " [Op:TYPE]", as
 * TensorFlow's eager errors do. `op_type` may be NULL for no suffix. */
void tr_set_op_error(GError **error, TrErrorCode code, const char *op_type, const char *fmt, ...)
    G_GNUC_PRINTF(4, 5);

/* "cannot compute AddV2 as input #1(zero-based) was expected to be a int32 tensor but is a
 * float tensor [Op:AddV2]" */
void tr_set_dtype_mismatch(GError **error, const char *op_type, int input_index, TrDType expected,
                           TrDType got);

/* One type attribute of a TensorFlow op, as its OpDef summary shows it in errors. */
typedef struct {
  const char *attr;    /* attribute name: "T" */
  const char *allowed; /* TF's allowed dtypes, in TF's order ("float, double"); NULL: any */
  const char *summary; /* OpDef summary after "Op<name=X; "; '@' stands for the DT_ list */
} TrTypeRule;

/* "float, int32" -> "DT_FLOAT, DT_INT32". Transfer full. */
char *tr_dt_list(const char *allowed);
/* TensorFlow's error for a dtype an op's type attribute does not accept, with its NodeDef and
 * OpDef summary: "Value for attr 'T' of string is not in the list of allowed values: ..." */
void tr_set_attr_error(GError **error, const char *op_type, const TrTypeRule *rule, TrDType got);

/* A set of dtypes as a bit mask. */
#define TR_DTYPE_BIT(d) (1u << (d))

/* Whether `dtype` is an item of a rule's list (NULL list: any). */
bool tr_rule_allows(const TrTypeRule *rule, TrDType dtype);
/* TensorFlow's error for a dtype an op's OpDef accepts but no kernel implements (RealDiv on
 * integers, Sum on complex): NotFoundError "Could not find device for node: ...", listing the
 * dtypes in `kernels` (a TR_DTYPE_BIT mask) as the registered CPU kernels. */
void tr_set_no_kernel_error(GError **error, const char *op_type, unsigned kernels, TrDType got);
/* Whether `dtype` is in the mask; if not, the short form of the error above, listing the
 * allowed Trellis dtypes. */
bool tr_check_dtype_allowed(TrDType dtype, unsigned allowed, const char *attr, const char *type,
                            GError **error);

/* NumPy broadcasting of two possibly partial shapes; on failure "Incompatible shapes: [2,3] vs.
 * [4]" (with " [Op:TYPE]" when op_type is given). */
bool tr_broadcast_shapes(const TrShape *a, const TrShape *b, TrShape *out, const char *op_type,
                         GError **error);
/* Strides that read `t` as if it had shape `out` (its broadcast result): 0 on stretched dims. */
void tr_broadcast_strides(const TrTensor *t, const TrShape *out, int64_t *strides);

/* Map a possibly negative axis into [0, rank); FALSE if outside [-rank, rank). */
bool tr_axis_normalize(int64_t axis, int rank, int64_t *out);

/* Walks the elements of a shape in row-major order, keeping one element index per operand. */
typedef struct {
  int rank;                        /* dims walked */
  int n_operands;                  /* operands walked together */
  int64_t dims[TR_MAX_RANK];       /* shape walked */
  int64_t index[TR_MAX_RANK];      /* current position */
  int64_t strides[4][TR_MAX_RANK]; /* per operand, in elements */
  int64_t pos[4];                  /* per operand: current element index */
} TrNdIter;

/* Start at element 0; operand k starts at offsets[k] with strides[k]. */
void tr_nd_iter_init(TrNdIter *it, const TrShape *shape, int n_operands, const int64_t *offsets,
                     int64_t (*strides)[TR_MAX_RANK]);
/* Advance one element; FALSE once past the end. */
static inline bool
tr_nd_iter_next(TrNdIter *it)
{
  for (int d = it->rank - 1; d >= 0; d--) {
    for (int k = 0; k < it->n_operands; k++)
      it->pos[k] += it->strides[k][d];
    if (++it->index[d] < it->dims[d])
      return true;
    for (int k = 0; k < it->n_operands; k++)
      it->pos[k] -= it->strides[k][d] * it->dims[d];
    it->index[d] = 0;
  }
  return false;
}

/* Store v, converted to dtype, as element i of the contiguous array `data` (not strings). */
void tr_store_number(void *data, TrDType dtype, int64_t i, double v);
/* Fill n elements of `data` with the bytes of element 0, doubling the filled prefix. */
void tr_splat_first(char *data, size_t size, int64_t n);

/* Set a string element to a copy of `len` bytes, freeing what it held. */
void tr_string_set(TrString *dst, const char *data, size_t len);

G_END_DECLS
