/* Every op family through the public API on the host backend (selector "host"),
 * against values worked out by hand or with numpy: element-wise ops with
 * broadcasting and promotion, where, casts and copies of strided views,
 * reductions (keepdim, negative axes, empty axes), sum_to_shape and matmul
 * (1-D operands, broadcast batches). Each test gets a fresh context and must
 * release every byte it allocated. */
#include "testutil.h"

#include <math.h>
#include <stdbool.h>

static clb_context *ctx;

static int setup(void **state)
{
    (void)state;
    return clbt_host_open(&ctx); /* tests/testutil.h */
}

static int teardown(void **state)
{
    (void)state;
    return clbt_host_close(&ctx, true);
}

static clb_tensor *make(clb_dtype dtype, int ndim, const int64_t *shape, const void *data)
{
    return clbt_tensor(ctx, dtype, ndim, shape, data);
}

/* Checks dtype, shape and values (|got - want| <= tol, NaN matches NaN), then
   releases t. */
static void expect(clb_tensor *t, clb_dtype dtype, int ndim, const int64_t *shape,
                   const double *want, double tol)
{
    assert_non_null(t);
    if (clb_tensor_dtype(t) != dtype)
        fail_msg("dtype %s, expected %s", clb_dtype_name(clb_tensor_dtype(t)), clb_dtype_name(dtype));
    clbt_assert_shape(t, ndim, shape);
    void *buf = clbt_read(t);
    for (int64_t i = 0; i < clb_tensor_numel(t); i++) {
        double got = clbt_value_at(buf, dtype, i);
        bool ok = isnan(want[i]) ? isnan(got) : (got == want[i] || fabs(got - want[i]) <= tol);
        if (!ok) fail_msg("element %lld: got %.17g, expected %.17g", (long long)i, got, want[i]);
    }
    free(buf);
    clb_tensor_release(t);
}

/* Runs a binary op and checks it as expect() does. */
static void expect_binary(clb_binary_op op, clb_tensor *a, clb_tensor *b, clb_dtype dtype, int ndim,
                          const int64_t *shape, const double *want)
{
    clb_tensor *r = NULL;
    CLBT_OK(clb_binary(op, a, b, &r));
    expect(r, dtype, ndim, shape, want, 0);
}

static void expect_unary(clb_unary_op op, clb_tensor *a, clb_dtype dtype, const double *want,
                         double tol)
{
    clb_tensor *r = NULL;
    CLBT_OK(clb_unary(op, a, &r));
    expect(r, dtype, clb_tensor_ndim(a), clb_tensor_shape(a), want, tol);
}

/* ---- binary ------------------------------------------------------------------------- */

static void test_binary_broadcast_promote(void **state)
{
    (void)state;
    const int64_t sa[] = {3, 1}, sb[] = {4}, so[] = {3, 4};
    const int32_t da[] = {1, 2, 3};
    const int8_t db[] = {10, -20, 30, -40};
    clb_tensor *a = make(CLB_INT32, 2, sa, da), *b = make(CLB_INT8, 1, sb, db);
    const double add[] = {11, -19, 31, -39, 12, -18, 32, -38, 13, -17, 33, -37};
    expect_binary(CLB_ADD, a, b, CLB_INT32, 2, so, add);
    const double sub[] = {-9, 21, -29, 41, -8, 22, -28, 42, -7, 23, -27, 43};
    expect_binary(CLB_SUB, a, b, CLB_INT32, 2, so, sub);
    const double mul[] = {10, -20, 30, -40, 20, -40, 60, -80, 30, -60, 90, -120};
    expect_binary(CLB_MUL, a, b, CLB_INT32, 2, so, mul);
    /* true division of integers gives float64 */
    const double div[] = {0.1, -0.05, 1.0 / 30, -0.025, 0.2, -0.1, 2.0 / 30, -0.05,
                          0.3, -0.15, 0.1, -0.075};
    expect_binary(CLB_DIV, a, b, CLB_FLOAT64, 2, so, div);
    const double gt[] = {0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1};
    expect_binary(CLB_GT, a, b, CLB_BOOL, 2, so, gt);
    clb_tensor_release(a);
    clb_tensor_release(b);

    /* int8 + uint8 -> int16; uint64 + int64 -> float64 (NumPy 2) */
    const int64_t s2[] = {2};
    const int8_t i8[] = {-1, 127};
    const uint8_t u8[] = {255, 255};
    a = make(CLB_INT8, 1, s2, i8), b = make(CLB_UINT8, 1, s2, u8);
    const double sum16[] = {254, 382};
    expect_binary(CLB_ADD, a, b, CLB_INT16, 1, s2, sum16);
    clb_tensor_release(a);
    clb_tensor_release(b);
    const uint64_t u64[] = {1, 4};
    const int64_t i64[] = {-2, 2};
    a = make(CLB_UINT64, 1, s2, u64), b = make(CLB_INT64, 1, s2, i64);
    const double mixed[] = {-1, 6};
    expect_binary(CLB_ADD, a, b, CLB_FLOAT64, 1, s2, mixed);
    clb_tensor_release(a);
    clb_tensor_release(b);
}

static void test_binary_integer_rules(void **state)
{
    (void)state;
    const int64_t s[] = {6};
    const int16_t da[] = {7, -7, 7, -7, 5, -32768};
    const int16_t db[] = {2, 2, -2, -2, 0, -1};
    clb_tensor *a = make(CLB_INT16, 1, s, da), *b = make(CLB_INT16, 1, s, db);
    const double fdiv[] = {3, -4, -4, 3, 0, -32768};
    expect_binary(CLB_FLOOR_DIV, a, b, CLB_INT16, 1, s, fdiv);
    const double mod[] = {1, 1, -1, -1, 0, 0};
    expect_binary(CLB_MOD, a, b, CLB_INT16, 1, s, mod);
    const double maxv[] = {7, 2, 7, -2, 5, -1};
    expect_binary(CLB_MAXIMUM, a, b, CLB_INT16, 1, s, maxv);
    const double minv[] = {2, -7, -2, -7, 0, -32768};
    expect_binary(CLB_MINIMUM, a, b, CLB_INT16, 1, s, minv);
    const double band[] = {2, 0, 6, -8, 0, -32768};
    expect_binary(CLB_BITWISE_AND, a, b, CLB_INT16, 1, s, band);
    const double bxor[] = {5, -5, -7, 7, 5, 32767};
    expect_binary(CLB_BITWISE_XOR, a, b, CLB_INT16, 1, s, bxor);
    clb_tensor_release(a);
    clb_tensor_release(b);

    /* wrap-around */
    const int64_t s3[] = {3};
    const uint8_t ua[] = {250, 0, 16}, ub[] = {10, 1, 2};
    a = make(CLB_UINT8, 1, s3, ua), b = make(CLB_UINT8, 1, s3, ub);
    const double uadd[] = {4, 1, 18};
    expect_binary(CLB_ADD, a, b, CLB_UINT8, 1, s3, uadd);
    const double usub[] = {240, 255, 14};
    expect_binary(CLB_SUB, a, b, CLB_UINT8, 1, s3, usub);
    const double upow[] = {0, 0, 0}; /* 250^10, 0^1, 16^2 = 256: all wrap to 0 mod 256 */
    expect_binary(CLB_POW, a, b, CLB_UINT8, 1, s3, upow);
    clb_tensor_release(a);
    clb_tensor_release(b);
}

static void test_binary_float(void **state)
{
    (void)state;
    const int64_t s[] = {4};
    const float da[] = {1.0f, NAN, 3.0f, -7.5f};
    const float db[] = {2.0f, 2.0f, 2.0f, 2.0f};
    clb_tensor *a = make(CLB_FLOAT32, 1, s, da), *b = make(CLB_FLOAT32, 1, s, db);
    const double lt[] = {1, 0, 0, 1};
    expect_binary(CLB_LT, a, b, CLB_BOOL, 1, s, lt);
    const double ne[] = {1, 1, 1, 1};
    expect_binary(CLB_NE, a, b, CLB_BOOL, 1, s, ne);
    const double maxv[] = {2, NAN, 3, 2};
    expect_binary(CLB_MAXIMUM, a, b, CLB_FLOAT32, 1, s, maxv);
    const double minv[] = {1, NAN, 2, -7.5};
    expect_binary(CLB_MINIMUM, a, b, CLB_FLOAT32, 1, s, minv);
    const double pw[] = {1, NAN, 9, 56.25};
    expect_binary(CLB_POW, a, b, CLB_FLOAT32, 1, s, pw);
    const double fdiv[] = {0, NAN, 1, -4};
    expect_binary(CLB_FLOOR_DIV, a, b, CLB_FLOAT32, 1, s, fdiv);
    const double mod[] = {1, NAN, 1, 0.5};
    expect_binary(CLB_MOD, a, b, CLB_FLOAT32, 1, s, mod);
    const double land[] = {1, 1, 1, 1}; /* NaN is true */
    expect_binary(CLB_LOGICAL_AND, a, b, CLB_BOOL, 1, s, land);
    clb_tensor *r = NULL;
    CLBT_FAILS(CLB_ERR_DTYPE, clb_binary(CLB_BITWISE_OR, a, b, &r));
    assert_null(r);
    assert_non_null(strstr(clb_last_error(), "float32"));

    /* float32 with int32 promotes to float64 */
    const int32_t di[] = {1, 2, 3, 16777217};
    clb_tensor *c = make(CLB_INT32, 1, s, di);
    const double sum[] = {2, NAN, 6, 16777217 - 7.5};
    expect_binary(CLB_ADD, a, c, CLB_FLOAT64, 1, s, sum);
    clb_tensor_release(a);
    clb_tensor_release(b);
    clb_tensor_release(c);
}

static void test_binary_float16(void **state)
{
    (void)state;
    const int64_t s[] = {4};
    /* 1.0, 2048, 65504, -0.5 and 0.5, 1, 65504, 0.25 (bit patterns) */
    const uint16_t ha[] = {0x3c00, 0x6800, 0x7bff, 0xb800};
    const uint16_t hb[] = {0x3800, 0x3c00, 0x7bff, 0x3400};
    clb_tensor *a = make(CLB_FLOAT16, 1, s, ha), *b = make(CLB_FLOAT16, 1, s, hb), *r = NULL;
    CLBT_OK(clb_binary(CLB_ADD, a, b, &r));
    assert_int_equal(clb_tensor_dtype(r), CLB_FLOAT16);
    uint16_t *got = clbt_read(r);
    /* 1.5, 2048 (2049 ties to even), inf, -0.25 */
    const uint16_t want[] = {0x3e00, 0x6800, 0x7c00, 0xb400};
    assert_memory_equal(got, want, sizeof want);
    free(got);
    clb_tensor_release(r);
    /* float16 with int8 stays float16; with int16 becomes float32 */
    const int8_t i8[] = {1, 1, 1, 1};
    const int16_t i16[] = {1, 1, 1, 1};
    clb_tensor *c8 = make(CLB_INT8, 1, s, i8), *c16 = make(CLB_INT16, 1, s, i16);
    CLBT_OK(clb_binary(CLB_MUL, a, c8, &r));
    assert_int_equal(clb_tensor_dtype(r), CLB_FLOAT16);
    clb_tensor_release(r);
    const double prod[] = {1, 2048, 65504, -0.5};
    expect_binary(CLB_MUL, a, c16, CLB_FLOAT32, 1, s, prod);
    clb_tensor_release(a);
    clb_tensor_release(b);
    clb_tensor_release(c8);
    clb_tensor_release(c16);
}

static void test_binary_bool(void **state)
{
    (void)state;
    const int64_t s[] = {4};
    const uint8_t da[] = {0, 0, 1, 1}, db[] = {0, 1, 0, 1};
    clb_tensor *a = make(CLB_BOOL, 1, s, da), *b = make(CLB_BOOL, 1, s, db), *r = NULL;
    const double or_[] = {0, 1, 1, 1}, and_[] = {0, 0, 0, 1}, xor_[] = {0, 1, 1, 0};
    expect_binary(CLB_ADD, a, b, CLB_BOOL, 1, s, or_);
    expect_binary(CLB_MUL, a, b, CLB_BOOL, 1, s, and_);
    expect_binary(CLB_MAXIMUM, a, b, CLB_BOOL, 1, s, or_);
    expect_binary(CLB_BITWISE_XOR, a, b, CLB_BOOL, 1, s, xor_);
    expect_binary(CLB_LOGICAL_XOR, a, b, CLB_BOOL, 1, s, xor_);
    const double fdiv[] = {0, 0, 0, 1};
    expect_binary(CLB_FLOOR_DIV, a, b, CLB_INT8, 1, s, fdiv);
    const double pw[] = {1, 0, 1, 1};
    expect_binary(CLB_POW, a, b, CLB_INT8, 1, s, pw);
    CLBT_FAILS(CLB_ERR_DTYPE, clb_binary(CLB_SUB, a, b, &r));
    assert_null(r);
    assert_non_null(strstr(clb_last_error(), "logical_xor"));
    clb_tensor_release(a);
    clb_tensor_release(b);
}

static void test_binary_into(void **state)
{
    (void)state;
    const int64_t s[] = {2, 3}, srow[] = {3};
    const float da[] = {1, 2, 3, 4, 5, 6}, drow[] = {10, 20, 30};
    clb_tensor *a = make(CLB_FLOAT32, 2, s, da), *row = make(CLB_FLOAT32, 1, srow, drow);
    CLBT_OK(clb_binary_into(CLB_ADD, a, row, a)); /* in place */
    const double want[] = {11, 22, 33, 14, 25, 36};
    clb_tensor_retain(a);
    expect(a, CLB_FLOAT32, 2, s, want, 0);
    /* comparison result stored into float64 (same_kind allows bool -> float) */
    clb_tensor *out = NULL;
    CLBT_OK(clb_tensor_empty(ctx, CLB_FLOAT64, 2, s, &out));
    CLBT_OK(clb_binary_into(CLB_GT, a, row, out));
    const double gt[] = {1, 1, 1, 1, 1, 1};
    expect(out, CLB_FLOAT64, 2, s, gt, 0);
    clb_tensor_release(a);
    clb_tensor_release(row);
}

/* ---- unary --------------------------------------------------------------------------- */

static void test_unary(void **state)
{
    (void)state;
    const int64_t s[] = {5};
    const double dx[] = {-2.5, -0.0, 0.25, 4.0, NAN};
    clb_tensor *x = make(CLB_FLOAT64, 1, s, dx);
    const double neg[] = {2.5, 0.0, -0.25, -4.0, NAN};
    expect_unary(CLB_NEG, x, CLB_FLOAT64, neg, 0);
    const double absv[] = {2.5, 0.0, 0.25, 4.0, NAN};
    expect_unary(CLB_ABS, x, CLB_FLOAT64, absv, 0);
    const double sq[] = {NAN, -0.0, 0.5, 2.0, NAN};
    expect_unary(CLB_SQRT, x, CLB_FLOAT64, sq, 0);
    const double rs[] = {NAN, -INFINITY, 2.0, 0.5, NAN};
    expect_unary(CLB_RSQRT, x, CLB_FLOAT64, rs, 0);
    const double relu[] = {0, 0, 0.25, 4.0, NAN};
    expect_unary(CLB_RELU, x, CLB_FLOAT64, relu, 0);
    const double fl[] = {-3, -0.0, 0, 4, NAN};
    expect_unary(CLB_FLOOR, x, CLB_FLOAT64, fl, 0);
    const double ce[] = {-2, -0.0, 1, 4, NAN};
    expect_unary(CLB_CEIL, x, CLB_FLOAT64, ce, 0);
    const double sig[] = {1 / (1 + exp(2.5)), 0.5, 1 / (1 + exp(-0.25)), 1 / (1 + exp(-4.0)), NAN};
    expect_unary(CLB_SIGMOID, x, CLB_FLOAT64, sig, 1e-15);
    const double ex[] = {exp(-2.5), 1, exp(0.25), exp(4.0), NAN};
    expect_unary(CLB_EXP, x, CLB_FLOAT64, ex, 0);
    const double th[] = {tanh(-2.5), -0.0, tanh(0.25), tanh(4.0), NAN};
    expect_unary(CLB_TANH, x, CLB_FLOAT64, th, 0);
    const double lnot[] = {0, 1, 0, 0, 0};
    expect_unary(CLB_LOGICAL_NOT, x, CLB_BOOL, lnot, 0);
    clb_tensor_release(x);

    const int64_t s3[] = {3};
    const int32_t di[] = {-3, 0, 16};
    clb_tensor *i = make(CLB_INT32, 1, s3, di);
    const double isq[] = {NAN, 0, 4}; /* int32 -> float64 */
    expect_unary(CLB_SQRT, i, CLB_FLOAT64, isq, 0);
    const double ifl[] = {-3, 0, 16}; /* floor keeps integers */
    expect_unary(CLB_FLOOR, i, CLB_INT32, ifl, 0);
    const double irelu[] = {0, 0, 16};
    expect_unary(CLB_RELU, i, CLB_INT32, irelu, 0);
    clb_tensor_release(i);

    const int8_t d8[] = {-128, -1, 4};
    clb_tensor *i8 = make(CLB_INT8, 1, s3, d8), *r = NULL;
    const double iabs[] = {-128, 1, 4};
    expect_unary(CLB_ABS, i8, CLB_INT8, iabs, 0);
    CLBT_OK(clb_unary(CLB_EXP, i8, &r)); /* int8 -> float16 */
    assert_int_equal(clb_tensor_dtype(r), CLB_FLOAT16);
    clb_tensor_release(r);
    clb_tensor_release(i8);

    const uint8_t db[] = {0, 1, 1};
    clb_tensor *b = make(CLB_BOOL, 1, s3, db);
    CLBT_FAILS(CLB_ERR_DTYPE, clb_unary(CLB_NEG, b, &r));
    assert_null(r);
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_unary((clb_unary_op)99, b, &r));
    assert_null(r);
    clb_tensor_release(b);
}

/* ---- where, casts, copies --------------------------------------------------------------- */

static void test_where(void **state)
{
    (void)state;
    const int64_t sc[] = {3}, sb[] = {2, 1}, so[] = {2, 3};
    const int32_t dc[] = {0, 1, 2};
    const float da = 1.5f;
    const int64_t db[] = {10, 20};
    clb_tensor *c = make(CLB_INT32, 1, sc, dc), *a = make(CLB_FLOAT32, 0, NULL, &da),
               *b = make(CLB_INT64, 2, sb, db), *r = NULL;
    CLBT_OK(clb_where(c, a, b, &r));
    const double want[] = {10, 1.5, 1.5, 20, 1.5, 1.5};
    expect(r, CLB_FLOAT64, 2, so, want, 0);
    clb_tensor_release(c);
    clb_tensor_release(a);
    clb_tensor_release(b);
}

static void test_cast_and_copy(void **state)
{
    (void)state;
    const int64_t s[] = {5};
    const float df[] = {1e10f, -1.5f, NAN, 2.75f, -1e10f};
    clb_tensor *f = make(CLB_FLOAT32, 1, s, df), *r = NULL;
    CLBT_OK(clb_cast(f, CLB_INT32, &r)); /* saturating, NaN -> 0, toward zero */
    const double i32[] = {2147483647.0, -1, 0, 2, -2147483648.0};
    expect(r, CLB_INT32, 1, s, i32, 0);
    CLBT_OK(clb_cast(f, CLB_UINT8, &r));
    const double u8[] = {255, 0, 0, 2, 0};
    expect(r, CLB_UINT8, 1, s, u8, 0);
    CLBT_OK(clb_cast(f, CLB_BOOL, &r));
    const double bl[] = {1, 1, 1, 1, 1};
    expect(r, CLB_BOOL, 1, s, bl, 0);
    clb_tensor_release(f);

    /* a permuted view copied to contiguous memory */
    const int64_t s23[] = {2, 3}, s32[] = {3, 2};
    const int16_t d[] = {1, 2, 3, 4, 5, 6};
    clb_tensor *t = make(CLB_INT16, 2, s23, d), *p = NULL;
    const int perm[] = {1, 0};
    CLBT_OK(clb_permute(t, perm, &p));
    CLBT_OK(clb_contiguous(p, &r));
    assert_true(clb_tensor_is_contiguous(r));
    const double tr[] = {1, 4, 2, 5, 3, 6};
    expect(r, CLB_INT16, 2, s32, tr, 0);
    /* and cast on the way (int16 -> int8 wraps) */
    const int16_t big[] = {300, -129, 127, 128, 0, -1};
    clb_tensor *bt = make(CLB_INT16, 2, s23, big);
    CLBT_OK(clb_cast(bt, CLB_INT8, &r));
    const double wrapped[] = {44, 127, 127, -128, 0, -1};
    expect(r, CLB_INT8, 2, s23, wrapped, 0);
    clb_tensor_release(bt);
    clb_tensor_release(p);
    clb_tensor_release(t);
}

/* ---- reductions -------------------------------------------------------------------------- */

/* t: float32 (2, 3, 4) holding 0..23 */
static clb_tensor *iota_234(void)
{
    const int64_t s[] = {2, 3, 4};
    float d[24];
    for (int i = 0; i < 24; i++) d[i] = (float)i;
    return make(CLB_FLOAT32, 3, s, d);
}

static void test_reduce_axes(void **state)
{
    (void)state;
    clb_tensor *t = iota_234(), *r = NULL;
    const int last[] = {-1};
    CLBT_OK(clb_reduce(CLB_SUM, t, 1, last, 0, &r));
    const int64_t s23[] = {2, 3};
    const double rows[] = {6, 22, 38, 54, 70, 86};
    expect(r, CLB_FLOAT32, 2, s23, rows, 0);

    CLBT_OK(clb_reduce(CLB_SUM, t, 1, last, 1, &r));
    const int64_t s231[] = {2, 3, 1};
    expect(r, CLB_FLOAT32, 3, s231, rows, 0);

    const int outer[] = {2, -3}; /* axes 2 and 0 */
    CLBT_OK(clb_reduce(CLB_MAX, t, 2, outer, 0, &r));
    const int64_t s3[] = {3};
    const double maxv[] = {15, 19, 23};
    expect(r, CLB_FLOAT32, 1, s3, maxv, 0);
    CLBT_OK(clb_reduce(CLB_MIN, t, 2, outer, 1, &r));
    const int64_t s131[] = {1, 3, 1};
    const double minv[] = {0, 4, 8};
    expect(r, CLB_FLOAT32, 3, s131, minv, 0);

    const int mid[] = {1};
    CLBT_OK(clb_reduce(CLB_MEAN, t, 1, mid, 0, &r));
    const int64_t s24[] = {2, 4};
    const double mean[] = {4, 5, 6, 7, 16, 17, 18, 19};
    expect(r, CLB_FLOAT32, 2, s24, mean, 0);

    CLBT_OK(clb_reduce(CLB_SUM, t, 0, NULL, 0, &r)); /* all axes -> 0-d */
    const double total[] = {276};
    expect(r, CLB_FLOAT32, 0, NULL, total, 0);
    CLBT_OK(clb_reduce(CLB_PROD, t, 0, NULL, 1, &r));
    const int64_t s111[] = {1, 1, 1};
    const double zero[] = {0};
    expect(r, CLB_FLOAT32, 3, s111, zero, 0);

    /* a permuted (non-contiguous) input */
    clb_tensor *p = NULL;
    const int perm[] = {2, 0, 1};
    CLBT_OK(clb_permute(t, perm, &p)); /* (4, 2, 3) */
    const int first[] = {0};
    CLBT_OK(clb_reduce(CLB_SUM, p, 1, first, 0, &r));
    expect(r, CLB_FLOAT32, 2, s23, rows, 0);
    clb_tensor_release(p);

    const int dup[] = {0, -3}, bad[] = {3};
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_reduce(CLB_SUM, t, 2, dup, 0, &r));
    assert_null(r);
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_reduce(CLB_SUM, t, 1, bad, 0, &r));
    assert_null(r);
    clb_tensor_release(t);
}

static void test_reduce_dtypes(void **state)
{
    (void)state;
    const int64_t s[] = {4};
    const uint8_t db[] = {1, 0, 1, 1};
    clb_tensor *b = make(CLB_BOOL, 1, s, db), *r = NULL;
    CLBT_OK(clb_reduce(CLB_SUM, b, 0, NULL, 0, &r)); /* bool sum counts, in int64 */
    const double three[] = {3};
    expect(r, CLB_INT64, 0, NULL, three, 0);
    CLBT_OK(clb_reduce(CLB_MAX, b, 0, NULL, 0, &r));
    const double one[] = {1};
    expect(r, CLB_BOOL, 0, NULL, one, 0);
    CLBT_OK(clb_reduce(CLB_MEAN, b, 0, NULL, 0, &r));
    const double frac[] = {0.75};
    expect(r, CLB_FLOAT64, 0, NULL, frac, 0);
    clb_tensor_release(b);

    const uint8_t du[] = {200, 200, 200, 2};
    clb_tensor *u = make(CLB_UINT8, 1, s, du);
    CLBT_OK(clb_reduce(CLB_SUM, u, 0, NULL, 0, &r)); /* no wrap at 8 bits: uint64 */
    const double usum[] = {602};
    expect(r, CLB_UINT64, 0, NULL, usum, 0);
    CLBT_OK(clb_reduce(CLB_PROD, u, 0, NULL, 0, &r));
    const double uprod[] = {16000000};
    expect(r, CLB_UINT64, 0, NULL, uprod, 0);
    clb_tensor_release(u);

    const int8_t di[] = {-128, -128, 7, 1};
    clb_tensor *i = make(CLB_INT8, 1, s, di);
    CLBT_OK(clb_reduce(CLB_SUM, i, 0, NULL, 0, &r));
    const double isum[] = {-248};
    expect(r, CLB_INT64, 0, NULL, isum, 0);
    CLBT_OK(clb_reduce(CLB_MEAN, i, 0, NULL, 0, &r));
    const double imean[] = {-62};
    expect(r, CLB_FLOAT64, 0, NULL, imean, 0);
    CLBT_OK(clb_reduce(CLB_MIN, i, 0, NULL, 0, &r));
    const double imin[] = {-128};
    expect(r, CLB_INT8, 0, NULL, imin, 0);
    clb_tensor_release(i);

    const int64_t dl[] = {INT64_MAX, 1};
    const int64_t s2[] = {2};
    clb_tensor *l = make(CLB_INT64, 1, s2, dl);
    CLBT_OK(clb_reduce(CLB_SUM, l, 0, NULL, 0, &r)); /* int64 sum wraps */
    int64_t *got = clbt_read(r);
    assert_true(got[0] == INT64_MIN);
    free(got);
    clb_tensor_release(r);
    clb_tensor_release(l);

    const double dn[] = {1, NAN, 3, 2};
    clb_tensor *n = make(CLB_FLOAT64, 1, s, dn);
    CLBT_OK(clb_reduce(CLB_MAX, n, 0, NULL, 0, &r));
    const double nan1[] = {NAN};
    expect(r, CLB_FLOAT64, 0, NULL, nan1, 0);
    CLBT_OK(clb_reduce(CLB_MIN, n, 0, NULL, 0, &r));
    expect(r, CLB_FLOAT64, 0, NULL, nan1, 0);
    clb_tensor_release(n);

    /* float16 sum accumulates in double and rounds once: 2048 + 1 + 1 = 2050 */
    const uint16_t dh[] = {0x6800, 0x3c00, 0x3c00, 0x0000};
    clb_tensor *h = make(CLB_FLOAT16, 1, s, dh);
    CLBT_OK(clb_reduce(CLB_SUM, h, 0, NULL, 0, &r));
    uint16_t *hs = clbt_read(r);
    assert_int_equal(hs[0], 0x6801);
    free(hs);
    clb_tensor_release(r);
    clb_tensor_release(h);
}

static void test_reduce_empty(void **state)
{
    (void)state;
    const int64_t s[] = {0, 3}, s3[] = {3}, s0[] = {0};
    clb_tensor *t = NULL, *r = NULL;
    CLBT_OK(clb_tensor_empty(ctx, CLB_FLOAT32, 2, s, &t));
    const int first[] = {0}, second[] = {1};
    CLBT_OK(clb_reduce(CLB_SUM, t, 1, first, 0, &r));
    const double zeros[] = {0, 0, 0}, ones[] = {1, 1, 1}, nans[] = {NAN, NAN, NAN};
    expect(r, CLB_FLOAT32, 1, s3, zeros, 0);
    CLBT_OK(clb_reduce(CLB_PROD, t, 1, first, 0, &r));
    expect(r, CLB_FLOAT32, 1, s3, ones, 0);
    CLBT_OK(clb_reduce(CLB_MEAN, t, 1, first, 0, &r));
    expect(r, CLB_FLOAT32, 1, s3, nans, 0);
    CLBT_OK(clb_reduce(CLB_SUM, t, 1, second, 0, &r)); /* reducing the non-empty axis */
    expect(r, CLB_FLOAT32, 1, s0, zeros, 0);
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_reduce(CLB_MAX, t, 1, first, 0, &r));
    assert_null(r);
    clb_tensor_release(t);

    CLBT_OK(clb_tensor_empty(ctx, CLB_INT32, 2, s, &t));
    CLBT_OK(clb_reduce(CLB_SUM, t, 0, NULL, 0, &r));
    expect(r, CLB_INT64, 0, NULL, zeros, 0);
    CLBT_OK(clb_reduce(CLB_MEAN, t, 0, NULL, 0, &r));
    expect(r, CLB_FLOAT64, 0, NULL, nans, 0);
    clb_tensor_release(t);
}

static void test_sum_to_shape(void **state)
{
    (void)state;
    const int64_t s[] = {2, 3};
    const double d[] = {1, 2, 3, 4, 5, 6};
    clb_tensor *g = make(CLB_FLOAT64, 2, s, d), *r = NULL;
    const int64_t cols[] = {3}, rows[] = {2, 1}, keep[] = {1, 3};
    CLBT_OK(clb_sum_to_shape(g, 1, cols, &r));
    const double colsum[] = {5, 7, 9};
    expect(r, CLB_FLOAT64, 1, cols, colsum, 0);
    CLBT_OK(clb_sum_to_shape(g, 2, rows, &r));
    const double rowsum[] = {6, 15};
    expect(r, CLB_FLOAT64, 2, rows, rowsum, 0);
    CLBT_OK(clb_sum_to_shape(g, 2, keep, &r));
    expect(r, CLB_FLOAT64, 2, keep, colsum, 0);
    CLBT_OK(clb_sum_to_shape(g, 0, NULL, &r));
    const double total[] = {21};
    expect(r, CLB_FLOAT64, 0, NULL, total, 0);
    CLBT_OK(clb_sum_to_shape(g, 2, s, &r));
    expect(r, CLB_FLOAT64, 2, s, d, 0);
    const int64_t bad[] = {2};
    CLBT_FAILS(CLB_ERR_SHAPE_MISMATCH, clb_sum_to_shape(g, 1, bad, &r));
    assert_null(r);
    clb_tensor_release(g);
}

/* ---- matmul -------------------------------------------------------------------------------- */

static void test_matmul_2d_1d(void **state)
{
    (void)state;
    const int64_t s23[] = {2, 3}, s32[] = {3, 2}, s3[] = {3}, s2[] = {2}, s22[] = {2, 2};
    const float da[] = {1, 2, 3, 4, 5, 6}, db[] = {7, 8, 9, 10, 11, 12}, dv[] = {1, 0, -1};
    clb_tensor *a = make(CLB_FLOAT32, 2, s23, da), *b = make(CLB_FLOAT32, 2, s32, db),
               *v = make(CLB_FLOAT32, 1, s3, dv), *r = NULL;
    CLBT_OK(clb_matmul(a, b, &r));
    const double ab[] = {58, 64, 139, 154};
    expect(r, CLB_FLOAT32, 2, s22, ab, 0);
    CLBT_OK(clb_matmul(a, v, &r)); /* (2,3) @ (3,) -> (2,) */
    const double av[] = {-2, -2};
    expect(r, CLB_FLOAT32, 1, s2, av, 0);
    CLBT_OK(clb_matmul(v, b, &r)); /* (3,) @ (3,2) -> (2,) */
    const double vb[] = {-4, -4};
    expect(r, CLB_FLOAT32, 1, s2, vb, 0);
    CLBT_OK(clb_matmul(v, v, &r)); /* (3,) @ (3,) -> () */
    const double vv[] = {2};
    expect(r, CLB_FLOAT32, 0, NULL, vv, 0);
    CLBT_FAILS(CLB_ERR_SHAPE_MISMATCH, clb_matmul(a, a, &r));
    assert_null(r);

    /* transposed operand (strided rows/columns) */
    clb_tensor *at = NULL;
    const int perm[] = {1, 0};
    CLBT_OK(clb_permute(a, perm, &at)); /* (3,2) */
    CLBT_OK(clb_matmul(a, at, &r));
    const double aat[] = {14, 32, 32, 77};
    expect(r, CLB_FLOAT32, 2, s22, aat, 0);
    clb_tensor_release(at);

    /* mixed dtypes promote: int32 @ float32 -> float64 */
    const int32_t di[] = {1, 1, 1, 2, 2, 2};
    clb_tensor *ai = make(CLB_INT32, 2, s23, di);
    CLBT_OK(clb_matmul(ai, b, &r));
    const double mixed[] = {27, 30, 54, 60};
    expect(r, CLB_FLOAT64, 2, s22, mixed, 0);
    clb_tensor_release(ai);
    clb_tensor_release(a);
    clb_tensor_release(b);
    clb_tensor_release(v);
}

static void test_matmul_integer_bool_empty(void **state)
{
    (void)state;
    const int64_t s12[] = {1, 2}, s21[] = {2, 1}, s11[] = {1, 1};
    const int8_t da[] = {100, 100}, db[] = {2, 1};
    clb_tensor *a = make(CLB_INT8, 2, s12, da), *b = make(CLB_INT8, 2, s21, db), *r = NULL;
    CLBT_OK(clb_matmul(a, b, &r));
    const double wrapped[] = {44}; /* 300 wraps in int8 */
    expect(r, CLB_INT8, 2, s11, wrapped, 0);
    clb_tensor_release(a);
    clb_tensor_release(b);

    const int64_t s22[] = {2, 2};
    const uint8_t ba[] = {1, 0, 0, 0}, bb[] = {0, 1, 1, 0};
    a = make(CLB_BOOL, 2, s22, ba), b = make(CLB_BOOL, 2, s22, bb);
    CLBT_OK(clb_matmul(a, b, &r));
    const double ors[] = {0, 1, 0, 0};
    expect(r, CLB_BOOL, 2, s22, ors, 0);
    clb_tensor_release(a);
    clb_tensor_release(b);

    /* k = 0: every output element is an empty sum */
    const int64_t s20[] = {2, 0}, s03[] = {0, 3}, s23[] = {2, 3};
    CLBT_OK(clb_tensor_empty(ctx, CLB_FLOAT64, 2, s20, &a));
    CLBT_OK(clb_tensor_empty(ctx, CLB_FLOAT64, 2, s03, &b));
    CLBT_OK(clb_matmul(a, b, &r));
    const double zeros[] = {0, 0, 0, 0, 0, 0};
    expect(r, CLB_FLOAT64, 2, s23, zeros, 0);
    clb_tensor_release(a);
    clb_tensor_release(b);
}

static void test_matmul_batch_broadcast(void **state)
{
    (void)state;
    /* (2,1,5,6) @ (3,6,7) -> (2,3,5,7), against a naive triple loop */
    enum { B0 = 2, B1 = 3, M = 5, K = 6, N = 7 };
    const int64_t sa[] = {B0, 1, M, K}, sb[] = {B1, K, N}, so[] = {B0, B1, M, N};
    static double da[B0 * M * K], db[B1 * K * N], want[B0 * B1 * M * N];
    uint64_t seed = 7;
    for (int i = 0; i < B0 * M * K; i++) da[i] = (double)(clbt_rand(&seed) % 19) - 9;
    for (int i = 0; i < B1 * K * N; i++) db[i] = (double)(clbt_rand(&seed) % 19) - 9;
    for (int x = 0; x < B0; x++)
        for (int y = 0; y < B1; y++)
            for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j++) {
                    double acc = 0;
                    for (int p = 0; p < K; p++)
                        acc += da[(x * M + i) * K + p] * db[(y * K + p) * N + j];
                    want[((x * B1 + y) * M + i) * N + j] = acc;
                }
    clb_tensor *a = make(CLB_FLOAT64, 4, sa, da), *b = make(CLB_FLOAT64, 3, sb, db), *r = NULL;
    CLBT_OK(clb_matmul(a, b, &r));
    expect(r, CLB_FLOAT64, 4, so, want, 0);

    /* 1-D left operand with a batched right: (6,) @ (3,6,7) -> (3,7) */
    const int64_t sv[] = {K}, s37[] = {B1, N};
    double vwant[B1 * N];
    for (int y = 0; y < B1; y++)
        for (int j = 0; j < N; j++) {
            double acc = 0;
            for (int p = 0; p < K; p++) acc += da[p] * db[(y * K + p) * N + j];
            vwant[y * N + j] = acc;
        }
    clb_tensor *v = make(CLB_FLOAT64, 1, sv, da);
    CLBT_OK(clb_matmul(v, b, &r));
    expect(r, CLB_FLOAT64, 2, s37, vwant, 0);
    clb_tensor_release(v);

    /* batch dims that do not broadcast */
    const int64_t sc[] = {4, 6, 7};
    clb_tensor *c = NULL;
    CLBT_OK(clb_tensor_empty(ctx, CLB_FLOAT64, 3, sc, &c));
    clb_tensor *a3 = NULL;
    const int64_t sa3[] = {3, M, K};
    CLBT_OK(clb_tensor_empty(ctx, CLB_FLOAT64, 3, sa3, &a3));
    CLBT_FAILS(CLB_ERR_SHAPE_MISMATCH, clb_matmul(a3, c, &r));
    assert_null(r);
    clb_tensor_release(a3);
    clb_tensor_release(c);
    clb_tensor_release(a);
    clb_tensor_release(b);
}

static void test_context_info(void **state)
{
    (void)state;
    clb_device_info info;
    CLBT_OK(clb_context_get_info(ctx, &info));
    assert_string_equal(info.selector, "host");
    assert_int_equal(info.index, -1);
    assert_int_equal(info.type, CLB_DEVICE_HOST);
    assert_string_equal(info.name, "host (C reference backend)");
    assert_string_equal(info.vendor, "clbroadcast");
    assert_string_equal(info.platform, "host");
    assert_string_equal(info.driver_version, clb_version_string());
    assert_string_equal(info.opencl_c_version, "");
    assert_int_equal(info.compute_units, 1);
    assert_true(info.global_mem_bytes > 0);
    assert_true(info.max_alloc_bytes > 0 && info.max_alloc_bytes <= info.global_mem_bytes);
    assert_true(info.has_fp16 && info.has_fp64 && info.host_unified_memory);
    assert_string_equal(clb_context_device_name(ctx), "host (C reference backend)");

    /* zero-size storage is valid and accounted as zero bytes */
    const int64_t s0[] = {0};
    clb_tensor *t = NULL;
    CLBT_OK(clb_tensor_empty(ctx, CLB_FLOAT32, 1, s0, &t));
    assert_int_equal(clb_memory_allocated(ctx), 0);
    clb_tensor_release(t);
}

#define TEST(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        TEST(test_binary_broadcast_promote),
        TEST(test_binary_integer_rules),
        TEST(test_binary_float),
        TEST(test_binary_float16),
        TEST(test_binary_bool),
        TEST(test_binary_into),
        TEST(test_unary),
        TEST(test_where),
        TEST(test_cast_and_copy),
        TEST(test_reduce_axes),
        TEST(test_reduce_dtypes),
        TEST(test_reduce_empty),
        TEST(test_sum_to_shape),
        TEST(test_matmul_2d_1d),
        TEST(test_matmul_integer_bool_empty),
        TEST(test_matmul_batch_broadcast),
        TEST(test_context_info),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
