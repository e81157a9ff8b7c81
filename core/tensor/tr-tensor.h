/* tr-tensor.h — dtypes, shapes, buffers and tensors: the bottom layer of Trellis.
 *
 * A TrTensor is a refcounted, strided view of a refcounted TrBuffer. Views (reshape of a
 * contiguous tensor, transpose, slices) share the buffer and only change shape, strides and
 * offset; ops read any strides and always write fresh contiguous outputs. Shapes double as
 * partial shapes for the graph layer: a dimension of -1 is unknown ("None"), a rank of -1 is
 * an unknown rank. A concrete tensor always has a fully known shape.
 *
 * Errors a user can cause come back as a GError in the TR_ERROR domain whose message is
 * TensorFlow's text; programmer errors are g_return_val_if_fail checks.
 */
#pragma once

#include <glib.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

G_BEGIN_DECLS

/* The most dimensions a shape may have (NumPy 1.24's NPY_MAXDIMS). */
#define TR_MAX_RANK 32
/* A dimension or rank that is not known yet (TensorFlow's None). */
#define TR_UNKNOWN (-1)

/* Element types, in TensorFlow's names. */
#define TR_DTYPE_LIST(X)                                                                           \
  /* id, python name, TF DataTypeString, NumPy name, element size */                               \
  X(FLOAT32, "float32", "float", "float32", sizeof(float))                                         \
  X(FLOAT64, "float64", "double", "float64", sizeof(double))                                       \
  X(INT32, "int32", "int32", "int32", sizeof(int32_t))                                             \
  X(INT64, "int64", "int64", "int64", sizeof(int64_t))                                             \
  X(BOOL, "bool", "bool", "bool", sizeof(bool))                                                    \
  X(STRING, "string", "string", "object", sizeof(TrString))                                        \
  /* the others of TensorFlow's numeric dtypes, after the first six so that their values and       \
   * the code written for those stay as they were */                                               \
  X(FLOAT16, "float16", "half", "float16", sizeof(TrHalf))                                         \
  X(BFLOAT16, "bfloat16", "bfloat16", "bfloat16", sizeof(TrBFloat16))                              \
  X(INT8, "int8", "int8", "int8", sizeof(int8_t))                                                  \
  X(INT16, "int16", "int16", "int16", sizeof(int16_t))                                             \
  X(UINT8, "uint8", "uint8", "uint8", sizeof(uint8_t))                                             \
  X(UINT16, "uint16", "uint16", "uint16", sizeof(uint16_t))                                        \
  X(UINT32, "uint32", "uint32", "uint32", sizeof(uint32_t))                                        \
  X(UINT64, "uint64", "uint64", "uint64", sizeof(uint64_t))                                        \
  X(COMPLEX64, "complex64", "complex64", "complex64", sizeof(float _Complex))                      \
  X(COMPLEX128, "complex128", "complex128", "complex128", sizeof(double _Complex))

/* IEEE binary16 (tf.float16, TensorFlow's "half") and bfloat16 (the top half of a float32),
 * stored as their bits. Distinct struct types, so that C never mixes them up with uint16 or
 * with each other; arithmetic converts them to float32 per element, as TensorFlow's CPU kernels
 * effectively compute. */
typedef struct {
  uint16_t bits;
} TrHalf;
typedef struct {
  uint16_t bits;
} TrBFloat16;

static inline float
tr_half_to_float(TrHalf h)
{
  uint32_t sign = (uint32_t)(h.bits & 0x8000) << 16, exp = (h.bits >> 10) & 0x1f,
           frac = h.bits & 0x3ff, bits;
  if (exp == 0x1f) /* inf, nan */
    bits = sign | 0x7f800000u | (frac << 13);
  else if (exp != 0)
    bits = sign | ((exp + 112) << 23) | (frac << 13);
  else if (frac == 0)
    bits = sign;
  else { /* a subnormal half is a normal float: shift its fraction up to the implicit bit */
    int e = -1;
    do {
      frac <<= 1;
      e++;
    } while (!(frac & 0x400));
    bits = sign | ((uint32_t)(112 - e) << 23) | ((frac & 0x3ff) << 13);
  }
  float f;
  __builtin_memcpy(&f, &bits, sizeof f);
  return f;
}

/* Round to nearest, ties to even, as Eigen's half conversion does; NaN stays NaN. */
static inline TrHalf
tr_half_from_float(float f)
{
  uint32_t bits;
  __builtin_memcpy(&bits, &f, sizeof bits);
  uint16_t sign = (uint16_t)((bits >> 16) & 0x8000);
  uint32_t abs = bits & 0x7fffffffu;
  if (abs >= 0x7f800000u) /* inf or nan */
    return (TrHalf){(uint16_t)(sign | 0x7c00 | (abs > 0x7f800000u ? 0x200 : 0))};
  if (abs >= 0x477ff000u) /* rounds to beyond 65504 */
    return (TrHalf){(uint16_t)(sign | 0x7c00)};
  if (abs < 0x38800000u) { /* below the smallest normal half: a subnormal or zero */
    if (abs < 0x33000000u) /* below half the smallest subnormal: rounds to zero */
      return (TrHalf){sign};
    int e = (int)(abs >> 23);
    uint32_t mant = (abs & 0x7fffff) | 0x800000;
    int shift = 126 - e; /* the value is mant * 2^(e - 150); the half's unit is 2^-24 */
    uint32_t q = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1)))
      q++;
    return (TrHalf){(uint16_t)(sign | q)};
  }
  uint32_t r = abs + 0xfffu + ((abs >> 13) & 1); /* round the 13 dropped bits, ties to even */
  return (TrHalf){(uint16_t)(sign | ((r - 0x38000000u) >> 13))};
}

static inline float
tr_bfloat16_to_float(TrBFloat16 b)
{
  uint32_t bits = (uint32_t)b.bits << 16;
  float f;
  __builtin_memcpy(&f, &bits, sizeof f);
  return f;
}

/* Round to nearest, ties to even (TensorFlow's bfloat16 conversion); NaN stays a quiet NaN. */
static inline TrBFloat16
tr_bfloat16_from_float(float f)
{
  uint32_t bits;
  __builtin_memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return (TrBFloat16){(uint16_t)((bits >> 16) | 0x40)};
  bits += 0x7fffu + ((bits >> 16) & 1);
  return (TrBFloat16){(uint16_t)(bits >> 16)};
}

/* One element of a string tensor: immutable bytes owned by the buffer. */
typedef struct {
  char *data; /* NUL-terminated copy; may contain NULs before len */
  size_t len; /* byte count, without the terminator */
} TrString;

typedef enum {
#define TR_DTYPE_ENUM(id, py, tf, np, size) TR_##id,
  TR_DTYPE_LIST(TR_DTYPE_ENUM)
#undef TR_DTYPE_ENUM
      TR_N_DTYPES,
  TR_VARIANT = TR_N_DTYPES + 1, /* opaque handles, outside the list: see "variants" below */
  TR_DTYPE_INVALID = -1
} TrDType;

const char *tr_dtype_name(TrDType dtype);    /* "float32": Python's tf.float32.name */
const char *tr_dtype_tf_name(TrDType dtype); /* "float": TF's DataTypeString, used in errors */
const char *tr_dtype_np_name(TrDType dtype); /* "float32": NumPy's dtype name */
size_t tr_dtype_size(TrDType dtype);
TrDType tr_dtype_from_name(const char *name); /* accepts "float32" and "float"; else INVALID */
bool tr_dtype_is_float(TrDType dtype);        /* float16, bfloat16, float32, float64 */
bool tr_dtype_is_int(TrDType dtype);          /* signed or unsigned, any width */
bool tr_dtype_is_unsigned(TrDType dtype);     /* uint8 ... uint64 */
bool tr_dtype_is_complex(TrDType dtype);      /* complex64, complex128 */
bool tr_dtype_is_numeric(TrDType dtype);      /* float or int (not complex) */
/* The real dtype of a complex one (complex64 -> float32); any other dtype itself. */
TrDType tr_dtype_real(TrDType dtype);
/* TensorFlow's DataType enum value (float32 = 1 ... uint64 = 23). */
int tr_dtype_enum(TrDType dtype);

/* A shape, possibly partial: rank TR_UNKNOWN, or dims that may be TR_UNKNOWN. */
typedef struct {
  int rank;                  /* number of dims, or TR_UNKNOWN */
  int64_t dims[TR_MAX_RANK]; /* sizes; TR_UNKNOWN for None */
} TrShape;

TrShape tr_shape_make(int rank, const int64_t *dims);
TrShape tr_shape_scalar(void);
TrShape tr_shape_unknown(void);
bool tr_shape_is_fully_defined(const TrShape *shape);
/* TR_UNKNOWN if not fully defined; G_MAXINT64 when the count does not fit in an int64 (no
 * tensor of that shape can exist) */
int64_t tr_shape_num_elements(const TrShape *shape);
bool tr_shape_equal(const TrShape *a, const TrShape *b);
/* TensorShape.most_specific_compatible_shape: the shape both fit, dims that differ become None
 * and a differing rank makes the rank unknown. */
TrShape tr_shape_most_specific_compatible(const TrShape *a, const TrShape *b);
/* Whether a concrete or partial shape `b` fits the pattern `a` (None matches anything). */
bool tr_shape_is_compatible_with(const TrShape *pattern, const TrShape *b);
/* "(2, 3)", "(None,)", "()", "<unknown>": TensorShape's str. Transfer full. */
char *tr_shape_to_string(const TrShape *shape);
/* "[2,3]": the form TF uses inside error messages. Transfer full. */
char *tr_shape_to_error_string(const TrShape *shape);

/* The error domain for mistakes in user input, with TensorFlow's error classes as codes. */
#define TR_ERROR (tr_error_quark())
GQuark tr_error_quark(void);
typedef enum {
  TR_ERROR_INVALID_ARGUMENT, /* tf.errors.InvalidArgumentError */
  TR_ERROR_OUT_OF_RANGE,     /* tf.errors.OutOfRangeError */
  TR_ERROR_UNIMPLEMENTED,    /* tf.errors.UnimplementedError */
  TR_ERROR_RESOURCE_EXHAUSTED,
  TR_ERROR_FAILED_PRECONDITION,
  TR_ERROR_NOT_FOUND, /* tf.errors.NotFoundError: no kernel for these dtypes */
  TR_ERROR_CANCELLED, /* a run stopped on request (TrRunContext.cancel): an interrupt */
  TR_ERROR_UNKNOWN,   /* tf.errors.UnknownError: an exception of a host function (py_function) */
} TrErrorCode;

/* Interrupts reach long kernels: GEMM, convolutions, elementwise ops and reductions over large
 * tensors poll `flag` between chunks of a few milliseconds of work and fail with
 * TR_ERROR_CANCELLED once it reads non-zero (the work done so far is thrown away). One flag for
 * the process, set once by the host (core/tf passes tf_interrupt_flag()); NULL, the default,
 * never cancels. A signal handler or any thread may set the flag. */
void tr_set_cancel_flag(const volatile sig_atomic_t *flag);

/* Refcounted storage shared by a tensor and its views. */
typedef struct {
  int refcount;    /* owners: tensors viewing this buffer */
  TrDType dtype;   /* element type; TR_STRING elements are owned TrStrings */
  int64_t n_elems; /* element count */
  void *data;      /* 64-byte aligned; NULL when n_elems is 0 */
} TrBuffer;

/* Zero-filled storage, or NULL when memory runs out. Transfer full. */
TrBuffer *tr_buffer_new(TrDType dtype, int64_t n_elems);
/* Storage whose elements are not initialised (string elements are empty), or NULL. */
TrBuffer *tr_buffer_new_uninit(TrDType dtype, int64_t n_elems);
TrBuffer *tr_buffer_ref(TrBuffer *buf);
void tr_buffer_unref(TrBuffer *buf);

typedef struct {
  int refcount;                 /* owners */
  TrDType dtype;                /* element type */
  TrShape shape;                /* always fully defined */
  int64_t strides[TR_MAX_RANK]; /* per dim, in elements (0 for broadcast dims) */
  int64_t offset;               /* first element's index in buf */
  TrBuffer *buf;                /* owned reference */
  bool contiguous;              /* row-major, offset-free layout (strides derive from shape) */
} TrTensor;

/* ---- variants ------------------------------------------------------------------------- */

/* TR_VARIANT: opaque handles that flow through graphs: datasets, iterators, tensor lists
 * (TensorFlow's DT_VARIANT). Each element points to a refcounted TrVariant owned by the buffer.
 * Kept out of TR_DTYPE_LIST so that no op's per-dtype table has a row for it: only Identity and
 * core/graph's dataset and list ops accept it. Its value leaves TR_N_DTYPES to core/graph's
 * resource dtype. */

typedef struct TrVariant TrVariant;

/* What kind of object a variant is, and how it is freed. */
typedef struct {
  const char *type_name;          /* "Dataset", "Iterator", "TensorList" (static) */
  void (*finalize)(TrVariant *v); /* frees the object once its last reference is gone */
} TrVariantClass;

/* The header of every variant object (the first member of a larger struct). */
struct TrVariant {
  int refcount;                /* owners: buffers and the objects' users */
  const TrVariantClass *klass; /* static */
};

/* Start `v`'s life with one reference. */
void tr_variant_init(TrVariant *v, const TrVariantClass *klass);
TrVariant *tr_variant_ref(TrVariant *v);
void tr_variant_unref(TrVariant *v);
/* A scalar variant tensor holding a new reference to `v`. Transfer full. */
TrTensor *tr_tensor_new_variant(TrVariant *v);
/* The object of a scalar variant tensor whose class is `klass` (NULL: any), borrowed; NULL when
 * t is not one. */
TrVariant *tr_tensor_get_variant(const TrTensor *t, const TrVariantClass *klass);

/* ---- tensors ---------------------------------------------------------------------------- */

/* A new contiguous tensor, zero-filled (empty strings for TR_STRING); aborts when memory runs
 * out, so it is for sizes Trellis chose, not sizes a user asked for. Transfer full. */
TrTensor *tr_tensor_new(TrDType dtype, const TrShape *shape);
/* A new contiguous tensor whose elements are not initialised (string elements are empty):
 * for kernels that write every element. Transfer full. */
TrTensor *tr_tensor_new_uninit(TrDType dtype, const TrShape *shape);
/* As tr_tensor_new_uninit, but running out of memory is TensorFlow's ResourceExhaustedError
 * ("OOM when allocating tensor with shape[...]"): for sizes a user asked for. */
TrTensor *tr_tensor_try_new_uninit(TrDType dtype, const TrShape *shape, GError **error);
/* A view of `buf` with the given geometry; takes a new reference on buf. Transfer full. */
TrTensor *tr_tensor_new_view(TrBuffer *buf, TrDType dtype, const TrShape *shape,
                             const int64_t *strides, int64_t offset);
TrTensor *tr_tensor_ref(TrTensor *t);
void tr_tensor_unref(TrTensor *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TrTensor, tr_tensor_unref)

/* Scalars and literals. Transfer full. */
TrTensor *tr_tensor_new_float32(float v);
TrTensor *tr_tensor_new_float64(double v);
TrTensor *tr_tensor_new_int32(int32_t v);
TrTensor *tr_tensor_new_int64(int64_t v);
TrTensor *tr_tensor_new_bool(bool v);
TrTensor *tr_tensor_new_string(const char *data, size_t len);
/* A contiguous tensor holding a copy of `n` elements of `data` (row-major; for TR_STRING an
 * array of TrString whose bytes are copied). Transfer full. */
TrTensor *tr_tensor_new_from_data(TrDType dtype, const TrShape *shape, const void *data);

int64_t tr_tensor_num_elements(const TrTensor *t);
/* A contiguous tensor with the same values: `t` itself (new reference) when it already is. */
TrTensor *tr_tensor_contiguous(TrTensor *t);
/* Copy every element of `src` into `dst` (same dtype and shape, any strides on either side):
 * dims are merged where both layouts allow, runs are memcpy'd, transposed blocks are tiled.
 * String elements are duplicated. */
void tr_tensor_copy_into(TrTensor *dst, const TrTensor *src);
/* Pointer to the first element of a contiguous tensor. Borrowed. */
void *tr_tensor_data(const TrTensor *t);
/* Element at a flat row-major index, widened; any layout. */
double tr_tensor_get_f64(const TrTensor *t, int64_t flat_index);
int64_t tr_tensor_get_i64(const TrTensor *t, int64_t flat_index);
const TrString *tr_tensor_get_string(const TrTensor *t, int64_t flat_index);
/* Byte offset of the element at a flat row-major index, in buf->data units of elements. */
int64_t tr_tensor_element_index(const TrTensor *t, int64_t flat_index);
/* Whether two tensors hold equal dtypes, shapes and values. */
bool tr_tensor_equal(const TrTensor *a, const TrTensor *b);

/* Row-major strides of a shape, in elements. */
void tr_shape_contiguous_strides(const TrShape *shape, int64_t *strides);

G_END_DECLS
