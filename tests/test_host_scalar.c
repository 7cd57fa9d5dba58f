/* Scalar semantics of the host backend (pure, no device): float16 conversions,
 * casts, and the per-element result of every op family in its corner cases.
 * Expected values were checked with /usr/bin/python3 and numpy where NumPy
 * defines them; where it does not (out-of-range float->int, negative integer
 * powers) the documented clbroadcast rule is checked. */
#include "testutil.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "dtype.h"
#include "half.h"
#include "host_scalar.h"

static clb__value I(int64_t x)
{
    clb__value v;
    v.i = x;
    return v;
}

static clb__value U(uint64_t x)
{
    clb__value v;
    v.u = x;
    return v;
}

static clb__value F(float x)
{
    clb__value v;
    v.f = x;
    return v;
}

static clb__value D(double x)
{
    clb__value v;
    v.d = x;
    return v;
}

/* Equal including the sign of zero; any NaN equals any NaN. */
static void assert_same(double got, double want, const char *what)
{
    if (isnan(want) && isnan(got)) return;
    if (got != want || signbit(got) != signbit(want))
        fail_msg("%s: got %.17g, expected %.17g", what, got, want);
}

/* ---- float16 ----------------------------------------------------------------- */

/* Independent oracle: binary search for the half just below x (x >= 0, finite),
   then pick the nearer neighbour, ties to the even bit pattern. */
static uint16_t nearest_half(double x)
{
    uint16_t lo = 0, hi = 0x7bff; /* largest finite half: 65504 */
    while (lo < hi) {
        uint16_t mid = (uint16_t)((lo + hi + 1) / 2);
        if ((double)clb__half_to_float(mid) <= x)
            lo = mid;
        else
            hi = (uint16_t)(mid - 1);
    }
    double below = clb__half_to_float(lo);
    /* Past 65504 the next step (to 65536) is infinity. */
    double above = lo == 0x7bff ? 65536.0 : (double)clb__half_to_float((uint16_t)(lo + 1));
    double dlo = x - below, dhi = above - x; /* exact (Sterbenz) */
    if (dlo < dhi) return lo;
    if (dlo > dhi) return (uint16_t)(lo + 1);
    return (lo & 1) ? (uint16_t)(lo + 1) : lo;
}

static void test_half_round_trip(void **state)
{
    (void)state;
    for (uint32_t h = 0; h <= 0xffff; h++) {
        float f = clb__half_to_float((uint16_t)h);
        uint16_t back = clb__half_from_float(f);
        bool is_nan = (h & 0x7c00) == 0x7c00 && (h & 0x03ff);
        if (is_nan) {
            if (!isnan(f) || (back & 0x7c00) != 0x7c00 || !(back & 0x03ff) || (back & 0x8000) != (h & 0x8000))
                fail_msg("NaN 0x%04x -> %g -> 0x%04x", h, (double)f, back);
            continue;
        }
        if (back != h) fail_msg("0x%04x -> %.9g -> 0x%04x", h, (double)f, back);
        if (clb__half_from_double((double)f) != h) fail_msg("0x%04x via double", h);
    }
}

static void test_half_values(void **state)
{
    (void)state;
    assert_true(clb__half_to_float(0x3c00) == 1.0f);
    assert_true(clb__half_to_float(0xc000) == -2.0f);
    assert_true(clb__half_to_float(0x7bff) == 65504.0f);
    assert_true(clb__half_to_float(0x0001) == 0x1p-24f); /* smallest subnormal */
    assert_true(clb__half_to_float(0x03ff) == 1023 * 0x1p-24f);
    assert_true(clb__half_to_float(0x0400) == 0x1p-14f); /* smallest normal */
    assert_true(isinf(clb__half_to_float(0x7c00)) && clb__half_to_float(0x7c00) > 0);
    assert_true(isinf(clb__half_to_float(0xfc00)) && clb__half_to_float(0xfc00) < 0);
    assert_true(isnan(clb__half_to_float(0x7e00)));
    assert_true(signbit(clb__half_to_float(0x8000)) && clb__half_to_float(0x8000) == 0.0f);
}

static void test_half_rounding(void **state)
{
    (void)state;
    static const struct { double x; uint16_t h; } cases[] = {
        {0.0, 0x0000},
        {-0.0, 0x8000},
        {1.0, 0x3c00},
        {65504.0, 0x7bff},
        {65519.99, 0x7bff},             /* just under the midpoint to 65536 */
        {65520.0, 0x7c00},              /* midpoint, odd mantissa below: up, to inf */
        {1e300, 0x7c00},
        {-1e300, 0xfc00},
        {INFINITY, 0x7c00},
        {-INFINITY, 0xfc00},
        {0x1p-24, 0x0001},
        {0x1p-25, 0x0000},              /* half the smallest subnormal: tie, to even 0 */
        {-0x1p-25, 0x8000},
        {0x1.8p-25, 0x0001},            /* above the tie */
        {0x1p-26, 0x0000},
        {0x1.8p-24, 0x0002},            /* 1.5 subnormal units: tie, to even 2 */
        {0x1.4p-23, 0x0002},            /* 2.5 units: tie, to even 2 */
        {0x1.ffcp-15, 0x0400},          /* 1023.5 units: tie, up to the smallest normal */
        {1.0 + 0x1p-11, 0x3c00},        /* tie between 1 and 1+2^-10: even */
        {1.0 + 3 * 0x1p-11, 0x3c02},    /* tie: up to even */
        {1.0 + 0x1p-11 + 0x1p-40, 0x3c01}, /* float would round this to the tie first */
        {2049.0, 0x6800},               /* 2048: tie to even */
        {2051.0, 0x6802},
        {5e-324, 0x0000},               /* double subnormal */
        {-5e-324, 0x8000},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint16_t got = clb__half_from_double(cases[i].x);
        if (got != cases[i].h)
            fail_msg("half_from_double(%a) = 0x%04x, expected 0x%04x", cases[i].x, got, cases[i].h);
    }
    /* No double rounding from double: the float path sees the tie, double does not. */
    assert_int_equal(clb__half_from_float((float)(1.0 + 0x1p-11 + 0x1p-40)), 0x3c00);
    uint16_t nan = clb__half_from_double(NAN);
    assert_true((nan & 0x7c00) == 0x7c00 && (nan & 0x03ff) != 0);
    assert_true((clb__half_from_double(-NAN) & 0x8000) != 0);
    assert_int_equal(clb__half_from_float(65520.0f), 0x7c00);
    assert_int_equal(clb__half_from_float(-0x1p-24f), 0x8001);
}

static void test_half_against_oracle(void **state)
{
    (void)state;
    uint64_t seed = 12345;
    for (int i = 0; i < 200000; i++) {
        uint64_t r = clbt_rand(&seed);
        double x;
        if (i % 3 == 0) {
            /* an exact midpoint between two neighbouring halves (or to 65536) */
            uint16_t h = (uint16_t)(r % 0x7bff);
            x = ((double)clb__half_to_float(h) + (double)clb__half_to_float((uint16_t)(h + 1))) / 2;
        } else {
            /* random mantissa, exponent spanning zero-rounding .. overflow */
            int e = (int)((r >> 52) % 45) - 28;
            x = ldexp(1.0 + (double)(r & ((UINT64_C(1) << 52) - 1)) * 0x1p-52, e);
        }
        uint16_t want = nearest_half(x);
        uint16_t got = clb__half_from_double(x);
        if (got != want) fail_msg("half_from_double(%a) = 0x%04x, oracle 0x%04x", x, got, want);
        if (clb__half_from_double(-x) != (uint16_t)(want | 0x8000)) fail_msg("sign of %a", -x);
        float f = (float)x;
        if ((double)f == x && clb__half_from_float(f) != want) fail_msg("half_from_float(%a)", x);
    }
}

/* half.h's branch-free conversions (the host's float16 loops, draws and
   folds) against the reference ones, bit for bit: every half, and floats of
   every sign and exponent with the low bits that decide the rounding (ties,
   just below and above them, the subnormal range's sticky bits) and random
   ones. All 2^32 floats were checked once (12 s). */
static void test_half_branch_free(void **state)
{
    (void)state;
    for (uint32_t h = 0; h <= 0xffff; h++) {
        const float a = clb__h2f((uint16_t)h), b = clb__half_to_float((uint16_t)h);
        if (memcmp(&a, &b, sizeof a)) fail_msg("h2f(0x%04x)", h);
    }
    static const uint32_t low[] = {0, 1, 0xfff, 0x1000, 0x1001, 0x1fff, 0x0800, 0x17ff};
    uint64_t seed = 777;
    for (uint32_t top = 0; top < (1u << 19); top++)
        for (unsigned k = 0; k <= sizeof low / sizeof *low; k++) {
            const uint32_t lo = k < sizeof low / sizeof *low ? low[k] : (uint32_t)clbt_rand(&seed) & 0x1fff;
            const uint32_t u = top << 13 | lo;
            float f;
            memcpy(&f, &u, sizeof f);
            if (clb__f2h(f) != clb__half_from_float(f)) fail_msg("f2h(0x%08x)", u);
        }
}

/* ---- casts --------------------------------------------------------------------- */

static void test_cast_integer_wrap(void **state)
{
    (void)state;
    assert_int_equal(clb__convert(I(300), CLB_INT64, CLB_INT8).i, 44);
    assert_int_equal(clb__convert(I(-1), CLB_INT64, CLB_INT8).i, -1);
    assert_int_equal(clb__convert(I(-129), CLB_INT64, CLB_INT8).i, 127);
    assert_int_equal(clb__convert(I(-1), CLB_INT64, CLB_UINT8).u, 255);
    assert_int_equal(clb__convert(I(-1), CLB_INT8, CLB_UINT64).u, UINT64_MAX);
    assert_int_equal(clb__convert(U(65535), CLB_UINT16, CLB_INT16).i, -1);
    assert_true(clb__convert(U(UINT64_C(1) << 63), CLB_UINT64, CLB_INT64).i == INT64_MIN);
    assert_int_equal(clb__convert(U(UINT64_MAX), CLB_UINT64, CLB_UINT32).u, UINT32_MAX);
    assert_int_equal(clb__convert(I(INT64_MIN), CLB_INT64, CLB_INT32).i, 0);
    assert_int_equal(clb__convert(I(-128), CLB_INT8, CLB_INT16).i, -128);
}

static void test_cast_float_to_int_saturates(void **state)
{
    (void)state;
    assert_int_equal(clb__convert(F(1e10f), CLB_FLOAT32, CLB_INT32).i, INT32_MAX);
    assert_int_equal(clb__convert(F(-1e10f), CLB_FLOAT32, CLB_INT32).i, INT32_MIN);
    assert_int_equal(clb__convert(F(NAN), CLB_FLOAT32, CLB_INT32).i, 0);
    assert_int_equal(clb__convert(D(NAN), CLB_FLOAT64, CLB_UINT64).u, 0);
    assert_int_equal(clb__convert(F(-1.5f), CLB_FLOAT32, CLB_UINT8).u, 0);
    assert_int_equal(clb__convert(F(-0.5f), CLB_FLOAT32, CLB_UINT8).u, 0);
    assert_int_equal(clb__convert(F(300.7f), CLB_FLOAT32, CLB_UINT8).u, 255);
    assert_int_equal(clb__convert(F(255.9f), CLB_FLOAT32, CLB_UINT8).u, 255);
    assert_int_equal(clb__convert(F(-3.9f), CLB_FLOAT32, CLB_INT8).i, -3); /* toward zero */
    assert_int_equal(clb__convert(F(3.9f), CLB_FLOAT16, CLB_INT8).i, 3);
    assert_int_equal(clb__convert(F(-128.9f), CLB_FLOAT32, CLB_INT8).i, -128);
    assert_int_equal(clb__convert(F(-129.0f), CLB_FLOAT32, CLB_INT8).i, -128);
    assert_int_equal(clb__convert(F(INFINITY), CLB_FLOAT32, CLB_INT16).i, INT16_MAX);
    assert_true(clb__convert(D(1e300), CLB_FLOAT64, CLB_INT64).i == INT64_MAX);
    assert_true(clb__convert(D(0x1p63), CLB_FLOAT64, CLB_INT64).i == INT64_MAX);
    assert_true(clb__convert(D(-0x1p63), CLB_FLOAT64, CLB_INT64).i == INT64_MIN);
    assert_true(clb__convert(D(-INFINITY), CLB_FLOAT64, CLB_INT64).i == INT64_MIN);
    assert_true(clb__convert(D(0x1p64), CLB_FLOAT64, CLB_UINT64).u == UINT64_MAX);
    assert_true(clb__convert(D(0x1.fffffffffffffp63), CLB_FLOAT64, CLB_UINT64).u ==
                UINT64_C(0xfffffffffffff800));
    assert_int_equal(clb__convert(D(4294967295.7), CLB_FLOAT64, CLB_UINT32).u, UINT32_MAX);
}

static void test_cast_bool(void **state)
{
    (void)state;
    assert_int_equal(clb__convert(F(2.0f), CLB_FLOAT32, CLB_BOOL).i, 1);
    assert_int_equal(clb__convert(F(NAN), CLB_FLOAT32, CLB_BOOL).i, 1);
    assert_int_equal(clb__convert(F(-0.0f), CLB_FLOAT16, CLB_BOOL).i, 0);
    assert_int_equal(clb__convert(D(0x1p-1074), CLB_FLOAT64, CLB_BOOL).i, 1);
    assert_int_equal(clb__convert(I(256), CLB_INT16, CLB_BOOL).i, 1); /* x != 0, not a wrap */
    assert_int_equal(clb__convert(U(0), CLB_UINT64, CLB_BOOL).i, 0);
    assert_true(clb__convert(I(1), CLB_BOOL, CLB_FLOAT32).f == 1.0f);
    assert_true(clb__convert(I(1), CLB_BOOL, CLB_FLOAT64).d == 1.0);
    assert_int_equal(clb__convert(I(1), CLB_BOOL, CLB_UINT64).u, 1);
    assert_int_equal(clb__convert(I(0), CLB_BOOL, CLB_INT8).i, 0);
    /* a bool byte other than 0/1 reads as true */
    uint8_t byte = 7;
    assert_int_equal(clb__loader(CLB_BOOL)(&byte).i, 1);
}

static void test_cast_to_float(void **state)
{
    (void)state;
    /* float16: one rounding from every source */
    assert_true(clb__convert(D(1.0 + 0x1p-11 + 0x1p-40), CLB_FLOAT64, CLB_FLOAT16).f == 1.0f + 0x1p-10f);
    assert_true(clb__convert(I(2049), CLB_INT64, CLB_FLOAT16).f == 2048.0f);
    assert_true(isinf(clb__convert(I(65520), CLB_INT32, CLB_FLOAT16).f));
    assert_true(clb__convert(I(65519), CLB_INT32, CLB_FLOAT16).f == 65504.0f);
    assert_true(isinf(clb__convert(U(UINT64_MAX), CLB_UINT64, CLB_FLOAT16).f));
    assert_true(clb__convert(F(0.1f), CLB_FLOAT32, CLB_FLOAT16).f == clb__half_to_float(0x2e66));
    assert_true(clb__convert(F(0.1f), CLB_FLOAT16, CLB_FLOAT32).f == 0.1f); /* widening: exact */
    /* float32 and float64 from integers: round to nearest even */
    assert_true(clb__convert(I(16777217), CLB_INT32, CLB_FLOAT32).f == 16777216.0f);
    assert_true(clb__convert(U(UINT64_MAX), CLB_UINT64, CLB_FLOAT32).f == 0x1p64f);
    assert_true(clb__convert(I(INT64_MIN), CLB_INT64, CLB_FLOAT64).d == -0x1p63);
    assert_true(clb__convert(D(0.1), CLB_FLOAT64, CLB_FLOAT32).f == 0.1f);
    assert_true(isinf(clb__convert(D(1e300), CLB_FLOAT64, CLB_FLOAT32).f));
}

static void test_load_store(void **state)
{
    (void)state;
    /* Every dtype stores what it loads. */
    unsigned char buf[8];
    const clb__value vals[CLB__NUM_DTYPES] = {I(1), I(-5), U(200), I(-30000), U(60000),
                                              I(-2000000000), U(4000000000u), I(INT64_MIN),
                                              U(UINT64_MAX), F(-1.5f), F(3.25f), D(-0.1)};
    for (int t = 0; t < CLB__NUM_DTYPES; t++) {
        memset(buf, 0xAB, sizeof buf);
        clb__storer((clb_dtype)t)(buf, vals[t]);
        clb__value back = clb__loader((clb_dtype)t)(buf);
        assert_memory_equal(&back, &vals[t], t == CLB_FLOAT16 || t == CLB_FLOAT32 ? sizeof(float) : 8);
        for (size_t b = clb_dtype_size((clb_dtype)t); b < sizeof buf; b++)
            assert_int_equal(buf[b], 0xAB); /* nothing past the element */
    }
    assert_null(clb__loader((clb_dtype)12));
    assert_null(clb__storer((clb_dtype)-1));
}

/* ---- integer ops ------------------------------------------------------------------ */

static int64_t bin_i(clb_binary_op op, clb_dtype t, int64_t a, int64_t b)
{
    return clb__binary_eval(op, t, I(a), I(b)).i;
}

static uint64_t bin_u(clb_binary_op op, clb_dtype t, uint64_t a, uint64_t b)
{
    return clb__binary_eval(op, t, U(a), U(b)).u;
}

static void test_int_floor_div_mod(void **state)
{
    (void)state;
    /* numpy int32: [7,-7,7,-7,5,0,-1,1,-1] // and % [2,2,-2,-2,0,0,3,-3,-3] */
    static const int64_t a[] = {7, -7, 7, -7, 5, 0, -1, 1, -1};
    static const int64_t b[] = {2, 2, -2, -2, 0, 0, 3, -3, -3};
    static const int64_t q[] = {3, -4, -4, 3, 0, 0, -1, -1, 0};
    static const int64_t r[] = {1, 1, -1, -1, 0, 0, 2, -2, -1};
    static const clb_dtype types[] = {CLB_INT8, CLB_INT16, CLB_INT32, CLB_INT64};
    for (size_t t = 0; t < 4; t++)
        for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) {
            assert_int_equal(bin_i(CLB_FLOOR_DIV, types[t], a[i], b[i]), q[i]);
            assert_int_equal(bin_i(CLB_MOD, types[t], a[i], b[i]), r[i]);
        }
    /* INT_MIN // -1 wraps to INT_MIN; INT_MIN % -1 is 0 (numpy) */
    assert_int_equal(bin_i(CLB_FLOOR_DIV, CLB_INT8, -128, -1), -128);
    assert_int_equal(bin_i(CLB_MOD, CLB_INT8, -128, -1), 0);
    assert_int_equal(bin_i(CLB_FLOOR_DIV, CLB_INT32, INT32_MIN, -1), INT32_MIN);
    assert_true(bin_i(CLB_FLOOR_DIV, CLB_INT64, INT64_MIN, -1) == INT64_MIN);
    assert_int_equal(bin_i(CLB_MOD, CLB_INT64, INT64_MIN, -1), 0);
    assert_true(bin_i(CLB_FLOOR_DIV, CLB_INT64, INT64_MIN, 1) == INT64_MIN);
    assert_int_equal(bin_i(CLB_MOD, CLB_INT64, INT64_MIN, INT64_MAX), INT64_MAX - 1);
    assert_int_equal(bin_i(CLB_FLOOR_DIV, CLB_INT64, INT64_MIN, INT64_MAX), -2);
    /* unsigned: plain division, by zero 0 */
    assert_int_equal(bin_u(CLB_FLOOR_DIV, CLB_UINT8, 7, 0), 0);
    assert_int_equal(bin_u(CLB_MOD, CLB_UINT8, 7, 0), 0);
    assert_int_equal(bin_u(CLB_FLOOR_DIV, CLB_UINT64, UINT64_MAX, 2), UINT64_MAX / 2);
    assert_int_equal(bin_u(CLB_MOD, CLB_UINT32, 10, 4), 2);
}

static void test_int_wrap(void **state)
{
    (void)state;
    assert_int_equal(bin_i(CLB_ADD, CLB_INT8, 127, 1), -128);
    assert_int_equal(bin_i(CLB_SUB, CLB_INT8, -128, 1), 127);
    assert_int_equal(bin_i(CLB_MUL, CLB_INT16, 300, 300), 24464);
    assert_true(bin_i(CLB_ADD, CLB_INT64, INT64_MAX, 1) == INT64_MIN);
    assert_true(bin_i(CLB_MUL, CLB_INT64, INT64_MIN, -1) == INT64_MIN);
    assert_int_equal(bin_u(CLB_SUB, CLB_UINT8, 0, 1), 255);
    assert_int_equal(bin_u(CLB_ADD, CLB_UINT16, 65535, 2), 1);
    assert_int_equal(bin_u(CLB_MUL, CLB_UINT64, UINT64_MAX, UINT64_MAX), 1);
    assert_int_equal(clb__unary_eval(CLB_NEG, CLB_INT8, I(-128)).i, -128);
    assert_int_equal(clb__unary_eval(CLB_ABS, CLB_INT8, I(-128)).i, -128);
    assert_int_equal(clb__unary_eval(CLB_ABS, CLB_INT32, I(-7)).i, 7);
    assert_int_equal(clb__unary_eval(CLB_NEG, CLB_UINT8, U(1)).u, 255);
    assert_int_equal(clb__unary_eval(CLB_NEG, CLB_UINT64, U(1)).u, UINT64_MAX);
    assert_int_equal(clb__unary_eval(CLB_ABS, CLB_UINT8, U(200)).u, 200);
    assert_int_equal(clb__unary_eval(CLB_RELU, CLB_INT16, I(-3)).i, 0);
    assert_int_equal(clb__unary_eval(CLB_RELU, CLB_INT16, I(3)).i, 3);
    assert_int_equal(clb__unary_eval(CLB_FLOOR, CLB_INT32, I(-3)).i, -3);
    assert_int_equal(clb__unary_eval(CLB_CEIL, CLB_UINT8, U(9)).u, 9);
    assert_int_equal(clb__unary_eval(CLB_LOGICAL_NOT, CLB_BOOL, I(0)).i, 1);
    assert_int_equal(clb__unary_eval(CLB_LOGICAL_NOT, CLB_BOOL, I(1)).i, 0);
}

static void test_int_pow(void **state)
{
    (void)state;
    assert_int_equal(bin_i(CLB_POW, CLB_INT8, 2, 7), -128);
    assert_int_equal(bin_u(CLB_POW, CLB_UINT8, 2, 8), 0);
    assert_int_equal(bin_u(CLB_POW, CLB_UINT8, 3, 5), 243);
    assert_true(bin_i(CLB_POW, CLB_INT64, 3, 40) == -6289078614652622815ll); /* numpy, wrapped */
    assert_int_equal(bin_i(CLB_POW, CLB_INT32, 0, 0), 1);
    assert_int_equal(bin_i(CLB_POW, CLB_INT32, -3, 3), -27);
    /* negative exponents (numpy raises): truncated toward zero */
    assert_int_equal(bin_i(CLB_POW, CLB_INT32, 3, -1), 0);
    assert_int_equal(bin_i(CLB_POW, CLB_INT32, 1, -5), 1);
    assert_int_equal(bin_i(CLB_POW, CLB_INT32, -1, -3), -1);
    assert_int_equal(bin_i(CLB_POW, CLB_INT32, -1, -2), 1);
    assert_int_equal(bin_i(CLB_POW, CLB_INT64, -1, INT64_MIN), 1);
    assert_int_equal(bin_i(CLB_POW, CLB_INT8, 0, -1), 0);
}

static void test_int_misc(void **state)
{
    (void)state;
    assert_int_equal(bin_i(CLB_MAXIMUM, CLB_INT8, -5, 3), 3);
    assert_int_equal(bin_i(CLB_MINIMUM, CLB_INT8, -5, 3), -5);
    assert_int_equal(bin_u(CLB_MAXIMUM, CLB_UINT64, UINT64_MAX, 1), UINT64_MAX);
    assert_int_equal(bin_i(CLB_BITWISE_AND, CLB_INT8, -1, 0x5a), 0x5a);
    assert_int_equal(bin_i(CLB_BITWISE_OR, CLB_INT8, -128, 1), -127);
    assert_int_equal(bin_i(CLB_BITWISE_XOR, CLB_INT16, -1, 0), -1);
    assert_int_equal(bin_u(CLB_BITWISE_XOR, CLB_UINT8, 0xff, 0x0f), 0xf0);
    /* comparisons in the compute type return bool */
    assert_int_equal(bin_i(CLB_LT, CLB_INT64, INT64_MIN, INT64_MAX), 1);
    assert_int_equal(bin_u(CLB_GT, CLB_UINT64, UINT64_MAX, 0), 1);
    assert_int_equal(bin_i(CLB_EQ, CLB_INT8, -1, -1), 1);
    assert_int_equal(bin_i(CLB_NE, CLB_INT8, -1, -1), 0);
    assert_int_equal(bin_i(CLB_LE, CLB_INT32, 2, 2), 1);
    assert_int_equal(bin_i(CLB_GE, CLB_INT32, 1, 2), 0);
    assert_int_equal(clb__binary_eval_dtype(CLB_LT, CLB_INT64), CLB_BOOL);
    assert_int_equal(clb__binary_eval_dtype(CLB_LOGICAL_OR, CLB_BOOL), CLB_BOOL);
    assert_int_equal(clb__binary_eval_dtype(CLB_ADD, CLB_INT16), CLB_INT16);
    assert_int_equal(clb__unary_eval_dtype(CLB_LOGICAL_NOT, CLB_BOOL), CLB_BOOL);
    assert_int_equal(clb__unary_eval_dtype(CLB_EXP, CLB_FLOAT16), CLB_FLOAT16);
}

static void test_bool_ops(void **state)
{
    (void)state;
    for (int a = 0; a <= 1; a++)
        for (int b = 0; b <= 1; b++) {
            assert_int_equal(bin_i(CLB_ADD, CLB_BOOL, a, b), a | b);
            assert_int_equal(bin_i(CLB_MUL, CLB_BOOL, a, b), a & b);
            assert_int_equal(bin_i(CLB_MAXIMUM, CLB_BOOL, a, b), a | b);
            assert_int_equal(bin_i(CLB_MINIMUM, CLB_BOOL, a, b), a & b);
            assert_int_equal(bin_i(CLB_BITWISE_XOR, CLB_BOOL, a, b), a ^ b);
            assert_int_equal(bin_i(CLB_LOGICAL_AND, CLB_BOOL, a, b), a && b);
            assert_int_equal(bin_i(CLB_LOGICAL_OR, CLB_BOOL, a, b), a || b);
            assert_int_equal(bin_i(CLB_LOGICAL_XOR, CLB_BOOL, a, b), a != b);
            assert_int_equal(bin_i(CLB_LT, CLB_BOOL, a, b), a < b);
        }
    /* bool floor_divide/remainder/power run in int8 (NumPy's 'bb' loop) */
    assert_int_equal(bin_i(CLB_FLOOR_DIV, CLB_INT8, 1, 0), 0);
    assert_int_equal(bin_i(CLB_POW, CLB_INT8, 0, 0), 1);
    /* logical ops read truthiness: float operands cast to bool first */
    clb__value nan_truth = clb__convert(F(NAN), CLB_FLOAT32, CLB_BOOL);
    clb__value zero_truth = clb__convert(D(-0.0), CLB_FLOAT64, CLB_BOOL);
    assert_int_equal(clb__binary_eval(CLB_LOGICAL_AND, CLB_BOOL, nan_truth, I(1)).i, 1);
    assert_int_equal(clb__binary_eval(CLB_LOGICAL_OR, CLB_BOOL, zero_truth, I(0)).i, 0);
}

/* ---- float ops ---------------------------------------------------------------------- */

static double bin_d(clb_binary_op op, double a, double b)
{
    return clb__binary_eval(op, CLB_FLOAT64, D(a), D(b)).d;
}

static float bin_f(clb_binary_op op, clb_dtype t, float a, float b)
{
    return clb__binary_eval(op, t, F(a), F(b)).f;
}

static void test_float_floor_div_mod(void **state)
{
    (void)state;
    /* numpy float64 floor_divide / remainder (npy_divmod) */
    static const struct { double a, b, q, r; } cases[] = {
        {7.5, 2.0, 3.0, 1.5},
        {-7.5, 2.0, -4.0, 0.5},
        {7.5, -2.0, -4.0, -0.5},
        {-7.5, -2.0, 3.0, -1.5},
        {1.0, 0.0, INFINITY, NAN},
        {-1.0, 0.0, -INFINITY, NAN},
        {0.0, 0.0, NAN, NAN},
        {0.0, 3.0, 0.0, 0.0},
        {-0.0, 3.0, -0.0, 0.0},
        {1.0, -3.0, -1.0, -2.0},
        {0.0, -2.0, -0.0, -0.0},
        {6.0, -3.0, -2.0, -0.0},
        {-6.0, 3.0, -2.0, 0.0},
        {INFINITY, 1.0, NAN, NAN},
        {1.0, INFINITY, 0.0, 1.0},
        {-1.0, INFINITY, -1.0, INFINITY},
        {NAN, 1.0, NAN, NAN},
        {1.0, NAN, NAN, NAN},
        {5.0, 0.1, 49.0, 0.09999999999999973},
        {-5.0, 0.1, -50.0, 2.7755575615628914e-16},
        {1e308, 1e-308, INFINITY, 3.498445546245627e-309},
        /* (a - fmod(a, b)) / b lands just below the integer: the quotient is snapped */
        {539.6174484497787, 0.04044548683894549, 13341.0, 0.03420853140693773},
        {-0.38655710476146987, 0.025842083326549595, -15.0, 0.001074145136774049},
    };
    char what[128];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(what, sizeof what, "float64 %g // %g", cases[i].a, cases[i].b);
        assert_same(bin_d(CLB_FLOOR_DIV, cases[i].a, cases[i].b), cases[i].q, what);
        snprintf(what, sizeof what, "float64 %g %% %g", cases[i].a, cases[i].b);
        assert_same(bin_d(CLB_MOD, cases[i].a, cases[i].b), cases[i].r, what);
        /* the exactly representable rows hold in float32 and float16 too */
        if (i < 18) {
            float a = (float)cases[i].a, b = (float)cases[i].b;
            snprintf(what, sizeof what, "float32 row %zu", i);
            assert_same(bin_f(CLB_FLOOR_DIV, CLB_FLOAT32, a, b), cases[i].q, what);
            assert_same(bin_f(CLB_MOD, CLB_FLOAT32, a, b), cases[i].r, what);
            snprintf(what, sizeof what, "float16 row %zu", i);
            assert_same(bin_f(CLB_FLOOR_DIV, CLB_FLOAT16, a, b), cases[i].q, what);
            assert_same(bin_f(CLB_MOD, CLB_FLOAT16, a, b), cases[i].r, what);
        }
    }
}

static void test_float_nan_propagation(void **state)
{
    (void)state;
    assert_true(isnan(bin_d(CLB_MAXIMUM, NAN, 1.0)));
    assert_true(isnan(bin_d(CLB_MAXIMUM, 1.0, NAN)));
    assert_true(isnan(bin_d(CLB_MINIMUM, NAN, 1.0)));
    assert_true(isnan(bin_d(CLB_MINIMUM, -INFINITY, NAN)));
    assert_true(isnan(bin_f(CLB_MAXIMUM, CLB_FLOAT32, 1.0f, NAN)));
    assert_true(isnan(bin_f(CLB_MINIMUM, CLB_FLOAT16, NAN, 1.0f)));
    assert_true(bin_d(CLB_MAXIMUM, -1.0, 2.0) == 2.0);
    assert_true(bin_f(CLB_MINIMUM, CLB_FLOAT32, -1.0f, 2.0f) == -1.0f);
    /* ties return the second operand: numpy maximum(-0.0, 0.0) = 0.0, maximum(0.0, -0.0) = -0.0 */
    assert_same(bin_d(CLB_MAXIMUM, -0.0, 0.0), 0.0, "maximum(-0, 0)");
    assert_same(bin_d(CLB_MAXIMUM, 0.0, -0.0), -0.0, "maximum(0, -0)");
    assert_same(bin_f(CLB_MINIMUM, CLB_FLOAT32, 0.0f, -0.0f), -0.0, "minimum(0, -0)");
    assert_same(bin_f(CLB_MINIMUM, CLB_FLOAT16, -0.0f, 0.0f), 0.0, "minimum(-0, 0)");
    assert_same(clb__unary_eval(CLB_RELU, CLB_FLOAT32, F(-0.0f)).f, 0.0, "relu(-0)");
    assert_true(isnan(clb__unary_eval(CLB_RELU, CLB_FLOAT32, F(NAN)).f));
    assert_true(isnan(clb__unary_eval(CLB_RELU, CLB_FLOAT64, D(NAN)).d));
    assert_true(clb__unary_eval(CLB_RELU, CLB_FLOAT64, D(-3.0)).d == 0.0);
    assert_true(clb__unary_eval(CLB_RELU, CLB_FLOAT16, F(2.5f)).f == 2.5f);
    /* comparisons with NaN: only != holds */
    assert_int_equal(clb__binary_eval(CLB_EQ, CLB_FLOAT32, F(NAN), F(NAN)).i, 0);
    assert_int_equal(clb__binary_eval(CLB_NE, CLB_FLOAT32, F(NAN), F(NAN)).i, 1);
    assert_int_equal(clb__binary_eval(CLB_LT, CLB_FLOAT64, D(NAN), D(1.0)).i, 0);
    assert_int_equal(clb__binary_eval(CLB_GE, CLB_FLOAT64, D(1.0), D(NAN)).i, 0);
    assert_int_equal(clb__binary_eval(CLB_LE, CLB_FLOAT16, F(-0.0f), F(0.0f)).i, 1);
    assert_true(isnan(bin_d(CLB_ADD, INFINITY, -INFINITY)));
    assert_true(bin_d(CLB_DIV, 1.0, -0.0) == -INFINITY);
    assert_true(isnan(bin_d(CLB_DIV, 0.0, 0.0)));
}

static void test_float_precision(void **state)
{
    (void)state;
    /* float32 is computed in float (what a kernel does), not in double */
    float third = bin_f(CLB_DIV, CLB_FLOAT32, 1.0f, 3.0f);
    assert_true(third == 1.0f / 3.0f);
    assert_true(bin_f(CLB_POW, CLB_FLOAT32, 2.0f, 0.5f) == powf(2.0f, 0.5f));
    assert_true(clb__unary_eval(CLB_SQRT, CLB_FLOAT32, F(2.0f)).f == sqrtf(2.0f));
    assert_true(clb__unary_eval(CLB_EXP, CLB_FLOAT32, F(1.5f)).f == expf(1.5f));
    assert_true(clb__unary_eval(CLB_RSQRT, CLB_FLOAT32, F(4.0f)).f == 0.5f);
    assert_true(clb__unary_eval(CLB_RSQRT, CLB_FLOAT64, D(0.0)).d == INFINITY);
    assert_true(clb__unary_eval(CLB_SQRT, CLB_FLOAT64, D(2.0)).d == sqrt(2.0));
    assert_true(isnan(clb__unary_eval(CLB_LOG, CLB_FLOAT64, D(-1.0)).d));
    assert_true(clb__unary_eval(CLB_LOG, CLB_FLOAT32, F(0.0f)).f == -INFINITY);
    /* float16 results are rounded to half: numpy exp(float16(1)) = 2.719 (0x4170) */
    assert_true(clb__unary_eval(CLB_EXP, CLB_FLOAT16, F(1.0f)).f == clb__half_to_float(0x4170));
    assert_true(clb__unary_eval(CLB_SQRT, CLB_FLOAT16, F(2.0f)).f == clb__half_to_float(15784));
    assert_true(bin_f(CLB_DIV, CLB_FLOAT16, 1.0f, 3.0f) == clb__half_to_float(clb__half_from_float(1.0f / 3.0f)));
    assert_true(isinf(bin_f(CLB_MUL, CLB_FLOAT16, 300.0f, 300.0f))); /* 90000 > 65504 */
    assert_true(bin_f(CLB_ADD, CLB_FLOAT16, 2048.0f, 1.0f) == 2048.0f);
    /* floor, ceil, abs, neg */
    assert_true(clb__unary_eval(CLB_FLOOR, CLB_FLOAT32, F(-1.5f)).f == -2.0f);
    assert_true(clb__unary_eval(CLB_CEIL, CLB_FLOAT64, D(-1.5)).d == -1.0);
    assert_same(clb__unary_eval(CLB_CEIL, CLB_FLOAT64, D(-0.5)).d, -0.0, "ceil(-0.5)");
    assert_same(clb__unary_eval(CLB_NEG, CLB_FLOAT64, D(0.0)).d, -0.0, "neg(0)");
    assert_same(clb__unary_eval(CLB_ABS, CLB_FLOAT16, F(-0.0f)).f, 0.0, "abs(-0)");
    assert_true(clb__unary_eval(CLB_TANH, CLB_FLOAT64, D(0.5)).d == tanh(0.5));
    assert_true(clb__unary_eval(CLB_SIN, CLB_FLOAT32, F(0.5f)).f == sinf(0.5f));
    assert_true(clb__unary_eval(CLB_COS, CLB_FLOAT32, F(0.5f)).f == cosf(0.5f));
}

static void test_sigmoid(void **state)
{
    (void)state;
    assert_true(clb__unary_eval(CLB_SIGMOID, CLB_FLOAT64, D(0.0)).d == 0.5);
    assert_true(clb__unary_eval(CLB_SIGMOID, CLB_FLOAT64, D(1000.0)).d == 1.0);
    assert_true(clb__unary_eval(CLB_SIGMOID, CLB_FLOAT64, D(-1000.0)).d == 0.0);
    assert_true(clb__unary_eval(CLB_SIGMOID, CLB_FLOAT32, F(-100.0f)).f > 0.0f); /* no underflow to 0 yet */
    assert_true(clb__unary_eval(CLB_SIGMOID, CLB_FLOAT32, F(INFINITY)).f == 1.0f);
    assert_true(clb__unary_eval(CLB_SIGMOID, CLB_FLOAT32, F(-INFINITY)).f == 0.0f);
    assert_true(isnan(clb__unary_eval(CLB_SIGMOID, CLB_FLOAT32, F(NAN)).f));
    double s = clb__unary_eval(CLB_SIGMOID, CLB_FLOAT64, D(-2.0)).d;
    assert_true(fabs(s - 1.0 / (1.0 + exp(2.0))) < 1e-16);
    assert_true(clb__unary_eval(CLB_SIGMOID, CLB_FLOAT16, F(0.0f)).f == 0.5f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_half_round_trip),
        cmocka_unit_test(test_half_values),
        cmocka_unit_test(test_half_rounding),
        cmocka_unit_test(test_half_against_oracle),
        cmocka_unit_test(test_half_branch_free),
        cmocka_unit_test(test_cast_integer_wrap),
        cmocka_unit_test(test_cast_float_to_int_saturates),
        cmocka_unit_test(test_cast_bool),
        cmocka_unit_test(test_cast_to_float),
        cmocka_unit_test(test_load_store),
        cmocka_unit_test(test_int_floor_div_mod),
        cmocka_unit_test(test_int_wrap),
        cmocka_unit_test(test_int_pow),
        cmocka_unit_test(test_int_misc),
        cmocka_unit_test(test_bool_ops),
        cmocka_unit_test(test_float_floor_div_mod),
        cmocka_unit_test(test_float_nan_propagation),
        cmocka_unit_test(test_float_precision),
        cmocka_unit_test(test_sigmoid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
