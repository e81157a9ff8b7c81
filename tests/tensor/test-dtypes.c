/* test-dtypes.c — the dtypes beyond float32/float64/int32/int64/bool/string: the float16 and
 * bfloat16 conversions against independent references, TensorFlow's cast rules (truncation,
 * wrapping, out-of-range floats), arithmetic, reductions and printing of each new dtype, and
 * the errors for the ops that have no kernel for them. */
#include "test-util.h"

#include <complex.h>
#include <math.h>
#include <string.h>

/* ---- float16 and bfloat16 conversions ---------------------------------------------------- */

/* Every half converts to the float GCC's _Float16 gives (x86-64 has it in hardware or libgcc). */
static void
test_half_to_float_exhaustive(void)
{
  for (uint32_t bits = 0; bits < 0x10000; bits++) {
    _Float16 h;
    uint16_t b = (uint16_t)bits;
    memcpy(&h, &b, sizeof h);
    float want = (float)h, got = tr_half_to_float((TrHalf){b});
    if (isnan(want))
      g_assert_true(isnan(got));
    else
      g_assert_cmpmem(&got, sizeof got, &want, sizeof want);
  }
}

/* Floats round to the half _Float16 rounds them to (nearest, ties to even), sampled across
 * every exponent, plus the boundaries of overflow and underflow. */
static void
test_float_to_half_rounding(void)
{
  const uint32_t edges[] = {0x477fefffu, 0x477ff000u, 0x477ff001u, 0x33000000u, 0x33000001u,
                            0x32ffffffu, 0x387fc000u, 0x387fe000u, 0x38800000u, 0x7f800000u};
  for (uint64_t bits = 0; bits < 0x100000000u; bits += 4093) {
    for (int k = -1; k < (int)G_N_ELEMENTS(edges); k++) {
      uint32_t b = k < 0 ? (uint32_t)bits : edges[k] | (uint32_t)(bits & 0x80000000u);
      float f;
      memcpy(&f, &b, sizeof f);
      _Float16 h = (_Float16)f;
      uint16_t want;
      memcpy(&want, &h, sizeof want);
      TrHalf got = tr_half_from_float(f);
      if (isnan(f))
        g_assert_true(isnan(tr_half_to_float(got)));
      else if (got.bits != want)
        g_error("float bits 0x%08x: half 0x%04x, want 0x%04x", b, got.bits, want);
    }
  }
}

/* bfloat16 keeps a float's top 16 bits after rounding to nearest, ties to even: checked against
 * the nearer of the two candidates, computed in double. */
static void
test_bfloat16_rounding(void)
{
  for (uint64_t bits = 0; bits < 0x100000000u; bits += 3001) {
    uint32_t b = (uint32_t)bits;
    float f;
    memcpy(&f, &b, sizeof f);
    TrBFloat16 got = tr_bfloat16_from_float(f);
    if (isnan(f)) {
      g_assert_true(isnan(tr_bfloat16_to_float(got)));
      continue;
    }
    uint32_t lo_bits = b & 0xffff0000u, hi_bits = lo_bits + 0x10000u;
    float lo, hi;
    memcpy(&lo, &lo_bits, sizeof lo);
    memcpy(&hi, &hi_bits, sizeof hi);
    double dlo = fabs((double)f - (double)lo),
           dhi = isinf(hi) || isnan(hi) ? INFINITY : fabs((double)hi - (double)f);
    if ((hi_bits & 0x7f800000u) == 0x7f800000u && (lo_bits & 0x7f800000u) != 0x7f800000u) {
      /* rounding up reaches infinity: the halfway point is that of the next binade */
      dhi = fabs(ldexp(1.0, 128) - fabs((double)f));
    }
    bool up = dhi < dlo || (dhi == dlo && ((lo_bits >> 16) & 1));
    uint16_t want = (uint16_t)((up ? hi_bits : lo_bits) >> 16);
    if (got.bits != want)
      g_error("float bits 0x%08x: bfloat16 0x%04x, want 0x%04x", b, got.bits, want);
  }
}

/* ---- casts -------------------------------------------------------------------------------- */

static char *
text_of(TrTensor *t)
{
  return tr_tensor_numpy_str(t);
}

static void
check_cast(TrDType from, const double *vals, int n, TrDType to, const char *want)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) x = tt_tensor(from, 1, (const int64_t[]){n}, vals);
  g_autoptr(TrTensor) y = tr_cast(x, to, &error);
  g_assert_no_error(error);
  g_assert_cmpint(y->dtype, ==, to);
  g_autofree char *got = text_of(y);
  g_assert_cmpstr(got, ==, want);
}

/* tf.cast truncates floats towards zero and wraps integers; floats out of an integer's range
 * give what x86's conversion gives (the narrow types: the low bits of the int32 conversion). */
static void
test_cast_rules(void)
{
  const double f[] = {1.8, -2.2, 300.0, -1.0};
  check_cast(TR_FLOAT32, f, 4, TR_UINT8, "[  1 254  44 255]");
  check_cast(TR_FLOAT32, f, 4, TR_INT8, "[ 1 -2 44 -1]");
  check_cast(TR_FLOAT32, f, 4, TR_INT16, "[  1  -2 300  -1]");
  check_cast(TR_FLOAT64, f, 4, TR_UINT16, "[    1 65534   300 65535]");
  check_cast(TR_FLOAT64, f, 4, TR_UINT32, "[         1 4294967294        300 4294967295]");
  check_cast(TR_FLOAT64, f, 4, TR_UINT64,
             "[                   1 18446744073709551614                  300\n"
             " 18446744073709551615]");
  const double big[] = {3e9, -3e9, NAN};
  check_cast(TR_FLOAT64, big, 3, TR_INT32, "[-2147483648 -2147483648 -2147483648]");
  const double ints[] = {-1, 255, 256, 65537};
  check_cast(TR_INT32, ints, 4, TR_UINT8, "[255 255   0   1]");
  check_cast(TR_INT64, ints, 4, TR_INT16, "[ -1 255 256   1]");
  check_cast(TR_INT32, ints, 4, TR_FLOAT16, "[ -1. 255. 256.  inf]");
  check_cast(TR_INT32, ints, 4, TR_BOOL, "[ True  True  True  True]");
  check_cast(TR_INT8, ints, 4, TR_COMPLEX64, "[-1.+0.j -1.+0.j  0.+0.j  1.+0.j]");
  /* The Introduction to Tensors guide: float64 -> float16 -> uint8 */
  const double g[] = {2.2, 3.3, 4.4};
  check_cast(TR_FLOAT64, g, 3, TR_FLOAT16, "[2.2 3.3 4.4]");
  check_cast(TR_FLOAT16, g, 3, TR_UINT8, "[2 3 4]");
  check_cast(TR_FLOAT32, g, 3, TR_BFLOAT16, "[2.2 3.3 4.4]");
}

/* A complex number loses its imaginary part when cast to a real type. */
static void
test_cast_complex_to_real(void)
{
  g_autoptr(GError) error = NULL;
  double _Complex z[] = {1.5 + 2.0 * _Complex_I, -3.0 - 1.0 * _Complex_I};
  g_autoptr(TrTensor) x = tr_tensor_new_from_data(TR_COMPLEX128, &(TrShape){1, {2}}, z);
  g_autoptr(TrTensor) f = tr_cast(x, TR_FLOAT32, &error);
  g_assert_no_error(error);
  g_autofree char *text = text_of(f);
  g_assert_cmpstr(text, ==, "[ 1.5 -3. ]");
  g_autoptr(TrTensor) i = tr_cast(x, TR_INT8, &error);
  g_assert_no_error(error);
  g_autofree char *itext = text_of(i);
  g_assert_cmpstr(itext, ==, "[ 1 -3]");
}

/* ---- arithmetic, reductions ------------------------------------------------------------- */

static char *
binary_text(TrOpId op, TrDType dtype, const double *a, const double *b, int n)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) x = tt_tensor(dtype, 1, (const int64_t[]){n}, a);
  g_autoptr(TrTensor) y = tt_tensor(dtype, 1, (const int64_t[]){n}, b);
  g_autoptr(TrTensor) r = tr_binary(op, x, y, &error);
  g_assert_no_error(error);
  return text_of(r);
}

static void
test_integer_arithmetic_wraps(void)
{
  const double a[] = {100, -128, 7, -7}, b[] = {100, -1, 2, 2};
  g_autofree char *add = binary_text(TR_OP_ADD, TR_INT8, a, b, 4);
  g_assert_cmpstr(add, ==, "[-56 127   9  -5]");
  g_autofree char *mul = binary_text(TR_OP_MUL, TR_INT8, a, b, 4);
  g_assert_cmpstr(mul, ==, "[  16 -128   14  -14]");
  g_autofree char *fdiv = binary_text(TR_OP_FLOORDIV, TR_INT16, a, b, 4);
  g_assert_cmpstr(fdiv, ==, "[  1 128   3  -4]");
  const double u[] = {250, 3, 0, 200}, v[] = {10, 5, 1, 200};
  g_autofree char *uadd = binary_text(TR_OP_ADD, TR_UINT8, u, v, 4);
  g_assert_cmpstr(uadd, ==, "[  4   8   1 144]");
  g_autofree char *usub = binary_text(TR_OP_SUB, TR_UINT8, u, v, 4);
  g_assert_cmpstr(usub, ==, "[240 254 255   0]");
  g_autofree char *umul = binary_text(TR_OP_MUL, TR_UINT16, u, v, 4);
  g_assert_cmpstr(umul, ==, "[ 2500    15     0 40000]");
  g_autofree char *upow = binary_text(TR_OP_POW, TR_UINT32, u, (const double[]){4, 2, 0, 3}, 4);
  g_assert_cmpstr(upow, ==, "[3906250000          9          1    8000000]");
  g_autofree char *umod = binary_text(TR_OP_MOD, TR_UINT64, u, v, 4);
  g_assert_cmpstr(umod, ==, "[0 3 0 0]");
  g_autofree char *less = binary_text(TR_OP_LESS, TR_UINT32, u, v, 4);
  g_assert_cmpstr(less, ==, "[False  True  True False]");
}

static void
test_half_arithmetic(void)
{
  const double a[] = {1, 2, 65504, 0.1}, b[] = {3, 3, 65504, 0.2};
  g_autofree char *div = binary_text(TR_OP_DIV, TR_FLOAT16, a, b, 4);
  g_assert_cmpstr(div, ==, "[0.3333 0.6665 1.     0.5   ]");
  g_autofree char *add = binary_text(TR_OP_ADD, TR_FLOAT16, a, b, 4);
  g_assert_cmpstr(add, ==, "[4.     5.        inf 0.2998]");
  g_autofree char *mul = binary_text(TR_OP_MUL, TR_BFLOAT16, a, b, 4);
  g_assert_cmpstr(mul, ==, "[3.0e+00 6.0e+00 4.3e+09 2.0e-02]");
}

static char *
reduce_text(TrOpId op, TrDType dtype, const double *vals, int n)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) x = tt_tensor(dtype, 1, (const int64_t[]){n}, vals);
  g_autoptr(TrTensor) r = tr_reduce(op, x, NULL, -1, false, &error);
  g_assert_no_error(error);
  g_assert_cmpint(r->dtype, ==, dtype);
  return text_of(r);
}

static void
test_reductions(void)
{
  const double a[] = {100, 100, 50, 7};
  g_autofree char *sum8 = reduce_text(TR_OP_SUM, TR_INT8, a, 4);
  g_assert_cmpstr(sum8, ==, "1"); /* 257 wraps */
  g_autofree char *mean8 = reduce_text(TR_OP_MEAN, TR_INT8, a, 4);
  g_assert_cmpstr(mean8, ==, "64"); /* the mean of the true sum */
  g_autofree char *sumu8 = reduce_text(TR_OP_SUM, TR_UINT8, a, 4);
  g_assert_cmpstr(sumu8, ==, "1");
  g_autofree char *max16 = reduce_text(TR_OP_MAX, TR_UINT16, a, 4);
  g_assert_cmpstr(max16, ==, "100");
  g_autofree char *min64 = reduce_text(TR_OP_MIN, TR_UINT64, a, 4);
  g_assert_cmpstr(min64, ==, "7");
  g_autofree char *prod16 = reduce_text(TR_OP_PROD, TR_INT16, a, 4);
  g_assert_cmpstr(prod16, ==, "26592"); /* 3500000 wraps */
  const double h[] = {0.1, 0.2, 0.3, 2048};
  g_autofree char *sumh = reduce_text(TR_OP_SUM, TR_FLOAT16, h, 4);
  g_assert_cmpstr(sumh, ==, "2048.0"); /* summed in float, rounded once */
  g_autofree char *meanb = reduce_text(TR_OP_MEAN, TR_BFLOAT16, h, 4);
  g_assert_cmpstr(meanb, ==, "512.0");
  g_autoptr(GError) error = NULL;
  g_autoptr(TrTensor) x = tt_tensor(TR_FLOAT16, 1, (const int64_t[]){4}, h);
  g_autoptr(TrTensor) am = tr_arg_reduce(TR_OP_ARGMAX, x, 0, TR_INT64, &error);
  g_assert_no_error(error);
  g_assert_cmpint(tr_tensor_get_i64(am, 0), ==, 3);
}

/* ---- printing ----------------------------------------------------------------------------- */

static void
test_printing(void)
{
  g_autoptr(TrTensor) h = TT(TR_FLOAT16, DIMS(3), VALS(2.2, 3.3, 4.4));
  g_autofree char *hs = tr_tensor_to_string(h);
  g_assert_cmpstr(hs, ==, "tf.Tensor([2.2 3.3 4.4], shape=(3,), dtype=float16)");
  g_autofree char *hr = tr_tensor_repr(h);
  g_assert_cmpstr(hr, ==,
                  "<tf.Tensor: shape=(3,), dtype=float16, numpy=array([2.2, 3.3, 4.4], "
                  "dtype=float16)>");
  /* the docs' tf.cast(tf.constant(3.14), tf.bfloat16) */
  g_autoptr(TrTensor) b = TT_SCALAR(TR_BFLOAT16, 3.14);
  g_autofree char *br = tr_tensor_repr(b);
  g_assert_cmpstr(br, ==, "<tf.Tensor: shape=(), dtype=bfloat16, numpy=3.14>");
  const uint64_t u64[] = {1, UINT64_MAX};
  g_autoptr(TrTensor) u = tr_tensor_new_from_data(TR_UINT64, &(TrShape){1, {2}}, u64);
  g_autofree char *ur = tr_tensor_numpy_repr(u);
  g_assert_cmpstr(ur, ==, "array([                   1, 18446744073709551615], dtype=uint64)");
  double _Complex z[] = {1 + 2 * _Complex_I, 3.5 - 4 * _Complex_I};
  g_autoptr(TrTensor) c = tr_tensor_new_from_data(TR_COMPLEX128, &(TrShape){1, {2}}, z);
  g_autofree char *cs = tr_tensor_to_string(c);
  g_assert_cmpstr(cs, ==, "tf.Tensor([1. +2.j 3.5-4.j], shape=(2,), dtype=complex128)");
  g_autofree char *cr = tr_tensor_numpy_repr(c);
  g_assert_cmpstr(cr, ==, "array([1. +2.j, 3.5-4.j])");
  float _Complex w = 2 * _Complex_I;
  g_autoptr(TrTensor) cw = tr_tensor_new_from_data(TR_COMPLEX64, &(TrShape){0, {0}}, &w);
  g_autofree char *cws = tr_tensor_to_string(cw);
  g_assert_cmpstr(cws, ==, "tf.Tensor(2j, shape=(), dtype=complex64)");
}

/* ---- complex parts, matmul and sort of the narrower types ---------------------------------- */

/* Real, Imag, Angle give the real dtype; Conj keeps it; Complex joins two float tensors. */
static void
test_complex_parts(void)
{
  g_autoptr(GError) error = NULL;
  double _Complex z[] = {3 + 4 * _Complex_I, -1 - 0.0 * _Complex_I};
  g_autoptr(TrTensor) x = tr_tensor_new_from_data(TR_COMPLEX128, &(TrShape){1, {2}}, z);
  const struct {
    TrOpId op;
    TrDType dtype;
    const char *text;
  } cases[] = {
      {TR_OP_REAL, TR_FLOAT64, "[ 3. -1.]"},
      {TR_OP_IMAG, TR_FLOAT64, "[ 4. -0.]"},
      {TR_OP_ANGLE, TR_FLOAT64, "[ 0.92729522 -3.14159265]"},
      {TR_OP_CONJ, TR_COMPLEX128, "[ 3.-4.j -1.+0.j]"},
      {TR_OP_ABS, TR_FLOAT64, "[5. 1.]"},
  };
  for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autoptr(TrTensor) r = tr_unary(cases[i].op, x, &error);
    g_assert_no_error(error);
    g_assert_cmpint(r->dtype, ==, cases[i].dtype);
    g_autofree char *text = text_of(r);
    g_assert_cmpstr(text, ==, cases[i].text);
  }
  g_autoptr(TrTensor) re = TT(TR_FLOAT32, DIMS(2), VALS(1, 2));
  g_autoptr(TrTensor) im = TT(TR_FLOAT32, DIMS(1), VALS(-1));
  g_autoptr(TrTensor) c = tr_binary(TR_OP_COMPLEX, re, im, &error);
  g_assert_no_error(error);
  g_assert_cmpint(c->dtype, ==, TR_COMPLEX64);
  g_autofree char *ctext = text_of(c);
  g_assert_cmpstr(ctext, ==, "[1.-1.j 2.-1.j]");
  /* of a real input, these ops have no kernel: TensorFlow's attr error */
  g_assert_null(tr_unary(TR_OP_REAL, re, &error));
  g_assert_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT);
  g_clear_error(&error);
  g_autoptr(TrTensor) ints = TT(TR_INT32, DIMS(1), VALS(1));
  g_assert_null(tr_binary(TR_OP_COMPLEX, ints, ints, &error));
  g_assert_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT);
}

/* MatMul of float16, bfloat16 and complex64, BatchMatMulV2 of int16 (wrapping), against the
 * float64 product; an integer type MatMul does not allow is an error, not a crash. */
static void
test_matmul_dtypes(void)
{
  g_autoptr(GError) error = NULL;
  const double a[] = {1, 2, 3, 4, 5, 6}, b[] = {0.5, -1, 2, 1, 3, 0.25};
  const TrDType types[] = {TR_FLOAT16, TR_BFLOAT16, TR_COMPLEX64};
  for (gsize i = 0; i < G_N_ELEMENTS(types); i++) {
    g_autoptr(TrTensor) x = tt_tensor(types[i], 2, (const int64_t[]){2, 3}, a);
    g_autoptr(TrTensor) y = tt_tensor(types[i], 2, (const int64_t[]){3, 2}, b);
    g_autoptr(TrTensor) r = tr_matmul(x, y, false, false, &error);
    g_assert_no_error(error);
    g_autoptr(TrTensor) rd = tr_cast(r, TR_FLOAT64, &error);
    g_assert_no_error(error);
    /* [[1*0.5+2*2+3*3, 1*-1+2*1+3*0.25], [4*0.5+5*2+6*3, 4*-1+5*1+6*0.25]] */
    tt_assert_tensor(rd, TR_FLOAT64, DIMS(2, 2), VALS(13.5, 1.75, 30, 2.5), 0);
  }
  const double big[] = {200, 300, 400, 500};
  g_autoptr(TrTensor) s = tt_tensor(TR_INT16, 3, (const int64_t[]){1, 2, 2}, big);
  g_autoptr(TrTensor) p = tr_matmul(s, s, false, false, &error);
  g_assert_no_error(error);
  /* 200*200+300*400 = 160000 = 28928 mod 65536; 400*300+500*500 = 370000 is 42320, -23216 as
   * int16 */
  g_autofree char *ptext = text_of(p);
  g_assert_cmpstr(ptext, ==, "[[[ 28928  13392]\n  [ 17856 -23216]]]");
  g_autoptr(TrTensor) i8 = tt_tensor(TR_INT8, 2, (const int64_t[]){2, 2}, a);
  g_assert_null(tr_matmul(i8, i8, false, false, &error));
  g_assert_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT);
}

/* ---- errors ------------------------------------------------------------------------------- */

static void
test_missing_kernels(void)
{
  g_autoptr(GError) error = NULL;
  double _Complex z = 1;
  g_autoptr(TrTensor) c = tr_tensor_new_from_data(TR_COMPLEX64, &(TrShape){0, {0}}, &z);
  /* ArgMax allows every number type but TF registers CPU kernels for the real ones only */
  g_autoptr(TrTensor) cv = tr_reshape(c, (int64_t[]){1}, 1, NULL);
  g_assert_null(tr_arg_reduce(TR_OP_ARGMAX, cv, 0, TR_INT64, &error));
  g_assert_error(error, TR_ERROR, TR_ERROR_NOT_FOUND);
  g_assert_true(g_str_has_prefix(error->message, "Could not find device for node: {{node ArgMax}} "
                                                 "= ArgMax[T=DT_COMPLEX64]\n"));
  g_clear_error(&error);
  g_assert_null(tr_unary(TR_OP_EXP, c, &error));
  g_assert_error(error, TR_ERROR, TR_ERROR_NOT_FOUND);
  g_clear_error(&error);
  /* Neg has no unsigned types in its OpDef: the attr error */
  g_autoptr(TrTensor) u = TT_SCALAR(TR_UINT8, 1);
  g_assert_null(tr_unary(TR_OP_NEG, u, &error));
  g_assert_error(error, TR_ERROR, TR_ERROR_INVALID_ARGUMENT);
  g_assert_true(g_str_has_prefix(error->message, "Value for attr 'T' of uint8 is not in the list "
                                                 "of allowed values: bfloat16, half, float, "));
  g_clear_error(&error);
  /* no promotion between dtypes */
  g_autoptr(TrTensor) i8 = TT_SCALAR(TR_INT8, 1);
  g_autoptr(TrTensor) i32 = TT_SCALAR(TR_INT32, 1);
  g_assert_null(tr_binary(TR_OP_ADD, i8, i32, &error));
  tt_assert_error(&error, TR_ERROR_INVALID_ARGUMENT,
                  "cannot compute AddV2 as input #1(zero-based) was expected to be a int8 "
                  "tensor but is a int32 tensor [Op:AddV2]");
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/tensor/dtypes/half-to-float-exhaustive", test_half_to_float_exhaustive);
  g_test_add_func("/tensor/dtypes/float-to-half-rounding", test_float_to_half_rounding);
  g_test_add_func("/tensor/dtypes/bfloat16-rounding", test_bfloat16_rounding);
  g_test_add_func("/tensor/dtypes/cast-rules", test_cast_rules);
  g_test_add_func("/tensor/dtypes/cast-complex-to-real", test_cast_complex_to_real);
  g_test_add_func("/tensor/dtypes/integer-arithmetic-wraps", test_integer_arithmetic_wraps);
  g_test_add_func("/tensor/dtypes/half-arithmetic", test_half_arithmetic);
  g_test_add_func("/tensor/dtypes/reductions", test_reductions);
  g_test_add_func("/tensor/dtypes/printing", test_printing);
  g_test_add_func("/tensor/dtypes/complex-parts", test_complex_parts);
  g_test_add_func("/tensor/dtypes/matmul-dtypes", test_matmul_dtypes);
  g_test_add_func("/tensor/dtypes/missing-kernels", test_missing_kernels);
  return g_test_run();
}
