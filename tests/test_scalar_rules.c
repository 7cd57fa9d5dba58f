/* The scalar rule of every element-wise op on every dtype it takes, at the edge
 * values the rules single out (0, +-1, MIN, MAX; +-0.0, +-inf, NaN, the largest
 * finite value), on every device against the host backend.
 *
 * The kernels' rules live in cl/scalar_ops.cl and the host's in
 * src/cpu/host_scalar.c; this table is what keeps the two from drifting. To
 * stay at one program per dtype and device, the ops of a dtype run in one fused
 * expression: with a (E,1,1) and b (1,E,1) holding the edge values and k
 * (1,1,K) the op index, where(k == 0, op0(a, b), where(k == 1, op1(a, b), ...))
 * evaluates every op on every pair (a, b). The branches are the op's own result
 * (dtype T) or a comparison's bool, which the where chain widens exactly; the
 * host computes the same expression with host_scalar.c's rules. */
#include "testutil.h"

#include <float.h>
#include <math.h>

static clb_context *host;

static int setup(void **state)
{
    (void)state;
    return clbt_host_open(&host); /* tests/testutil.h */
}

static int teardown(void **state)
{
    (void)state;
    return clbt_host_close(&host, true);
}

/* ---- the ops of each dtype ----------------------------------------------------- */

/* NOT_I8: isnan/isinf/isfinite of an integer are constants, and a where chain
   over int8 that folds to `cond ? a : (char)0` crashes llvmpipe's LLVM 15 (the
   select of tests/quirks/char_relu_select.c, reachable through clb_eval on main
   as where(k == 0, a, 0) on int8 too): int8 leaves them out of the chain. */
enum { ANY = 0, NOT_BOOL = 1, INTEGRAL = 2, FLOATS = 4, NUMBERS_ONLY = 8, NOT_I8 = 16 };

typedef struct op_case {
    const char *text; /* in a and b */
    int only;         /* which dtypes take it (flags above; 0: all) */
} op_case;

static const op_case ops[] = {
    /* binary */
    {"a + b", ANY},
    {"a - b", NOT_BOOL},
    {"a * b", ANY},
    {"a / b", FLOATS}, /* integers divide in float64: the float64 row covers it */
    {"a // b", ANY},
    {"a % b", ANY},
    {"a ** b", ANY},
    {"maximum(a, b)", ANY},
    {"minimum(a, b)", ANY},
    {"a == b", ANY},
    {"a != b", ANY},
    {"a < b", ANY},
    {"a <= b", ANY},
    {"a > b", ANY},
    {"a >= b", ANY},
    {"logical_and(a, b)", ANY},
    {"logical_or(a, b)", ANY},
    {"logical_xor(a, b)", ANY},
    {"a & b", INTEGRAL},
    {"a | b", INTEGRAL},
    {"a ^ b", INTEGRAL},
    {"arctan2(a, b)", FLOATS},
    {"hypot(a, b)", FLOATS},
    {"logaddexp(a, b)", FLOATS},
    {"copysign(a, b)", FLOATS},
    {"a << b", INTEGRAL},
    {"a >> b", INTEGRAL},
    /* unary */
    {"-a", NOT_BOOL},
    {"abs(a)", ANY},
    {"relu(a)", NOT_BOOL},
    {"floor(a)", ANY},
    {"ceil(a)", ANY},
    {"logical_not(a)", ANY},
    {"~a", INTEGRAL},
    {"sqrt(a)", FLOATS},
    {"rsqrt(a)", FLOATS},
    {"exp(a)", FLOATS},
    {"log(a)", FLOATS},
    {"sin(a)", FLOATS},
    {"cos(a)", FLOATS},
    {"tanh(a)", FLOATS},
    {"sigmoid(a)", FLOATS},
    {"tan(a)", FLOATS},
    {"arcsin(a)", FLOATS},
    {"arccos(a)", FLOATS},
    {"arctan(a)", FLOATS},
    {"sinh(a)", FLOATS},
    {"cosh(a)", FLOATS},
    {"arcsinh(a)", FLOATS},
    {"arccosh(a)", FLOATS},
    {"arctanh(a)", FLOATS},
    {"expm1(a)", FLOATS},
    {"log1p(a)", FLOATS},
    {"log2(a)", FLOATS},
    {"log10(a)", FLOATS},
    {"round(a)", ANY},
    {"trunc(a)", ANY},
    {"sign(a)", NOT_BOOL},
    {"square(a)", ANY},
    {"isnan(a)", NOT_I8},
    {"isinf(a)", NOT_I8},
    {"isfinite(a)", NOT_I8},
    {"erf(a)", FLOATS},
    {"bitwise_invert(a)", INTEGRAL},
};
#define NOPS ((int)(sizeof ops / sizeof ops[0]))

static bool is_float(clb_dtype t)
{
    return t == CLB_FLOAT16 || t == CLB_FLOAT32 || t == CLB_FLOAT64;
}

/* The ops run in two expressions per dtype (PoCL's compile time grows faster
   than the expression): group 0 the original set, group 1 the array API
   standard's functions (issue 28), from the first of them on. */
static int group;
static int group_of(const op_case *o)
{
    int i = (int)(o - ops), binary = 0, unary = 0;
    while (strcmp(ops[binary].text, "arctan2(a, b)") != 0) binary++;
    while (strcmp(ops[unary].text, "tan(a)") != 0) unary++;
    return (i >= binary && i < binary + 6) || i >= unary;
}

static bool takes(const op_case *o, clb_dtype t)
{
    if (group_of(o) != group) return false;
    if ((o->only & NOT_BOOL) && t == CLB_BOOL) return false;
    if ((o->only & NOT_I8) && t == CLB_INT8) return false;
    if ((o->only & INTEGRAL) && is_float(t)) return false;
    if ((o->only & FLOATS) && !is_float(t)) return false;
    return true;
}

/* where(k == 0, op0, where(k == 1, op1, ... opN)) over the ops t takes; returns
   how many. */
static int chain(clb_dtype t, char *buf, size_t cap)
{
    const op_case *use[NOPS];
    int n = 0;
    for (int i = 0; i < NOPS; i++)
        if (takes(&ops[i], t)) use[n++] = &ops[i];
    size_t at = 0;
    for (int i = 0; i < n - 1; i++)
        at += (size_t)snprintf(buf + at, cap - at, "where(k == %d, %s, ", i, use[i]->text);
    at += (size_t)snprintf(buf + at, cap - at, "%s", use[n - 1]->text);
    for (int i = 0; i < n - 1; i++) at += (size_t)snprintf(buf + at, cap - at, ")");
    assert_true(at < cap);
    return n;
}

/* ---- the edge values of each dtype --------------------------------------------- */

#define MAX_EDGES 16

/* The edge values of t as doubles (exactly representable in t, so clb_cast puts
   them in unchanged); returns how many. The last three of a 64-bit integer
   dtype are placeholders for its extremes, which edge_tensor writes as bits. */
static int edges(clb_dtype t, double *v)
{
    int n = 0;
    if (t == CLB_BOOL) {
        v[n++] = 0, v[n++] = 1;
        return n;
    }
    if (is_float(t)) {
        double big = t == CLB_FLOAT16 ? 65504.0 : t == CLB_FLOAT32 ? FLT_MAX : DBL_MAX;
        double small = t == CLB_FLOAT16 ? 0x1p-14 : t == CLB_FLOAT32 ? 0x1p-126 : 0x1p-1022;
        const double f[] = {0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 7.0, big, -big, small,
                            INFINITY, -INFINITY, NAN};
        for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) v[n++] = f[i];
        return n;
    }
    int bits = (int)clb_dtype_size(t) * 8;
    bool is_signed = t == CLB_INT8 || t == CLB_INT16 || t == CLB_INT32 || t == CLB_INT64;
    const double small[] = {0, 1, 2, 3, 7, 100};
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) v[n++] = small[i];
    if (is_signed) {
        v[n++] = -1, v[n++] = -2, v[n++] = -7;
        if (bits < 64) {
            double max = ldexp(1, bits - 1) - 1;
            v[n++] = max, v[n++] = max - 1, v[n++] = -max - 1, v[n++] = -max;
        }
    } else if (bits < 64) {
        double max = ldexp(1, bits) - 1;
        v[n++] = max, v[n++] = max - 1, v[n++] = ldexp(1, bits - 1);
    }
    if (bits == 64) v[n++] = 0, v[n++] = 0, v[n++] = 0;
    return n;
}

/* A (n) tensor of dtype t on ctx with the edge values; 64-bit integers get their
   MIN/MAX (not doubles) as raw bits. */
static clb_tensor *edge_tensor(clb_context *ctx, clb_dtype t, int ndim, const int64_t *shape)
{
    double v[MAX_EDGES];
    int n = edges(t, v);
    int64_t count = n;
    clb_tensor *d = clbt_tensor(host, CLB_FLOAT64, 1, &count, v), *c = NULL;
    CLBT_OK(clb_cast(d, t, &c));
    clb_tensor_release(d);
    void *bytes = clbt_read(c);
    clb_tensor_release(c);
    if (t == CLB_INT64 || t == CLB_UINT64) {
        /* The three placeholders become the 64-bit extremes. */
        uint64_t *u = bytes;
        if (t == CLB_INT64) {
            u[n - 1] = (uint64_t)INT64_MIN, u[n - 2] = (uint64_t)INT64_MAX;
            u[n - 3] = (uint64_t)(INT64_MIN + 1);
        } else {
            u[n - 1] = UINT64_MAX, u[n - 2] = UINT64_MAX - 1, u[n - 3] = UINT64_C(1) << 63;
        }
    }
    clb_tensor *flat = clbt_tensor(ctx, t, 1, &count, bytes), *shaped = NULL;
    free(bytes);
    CLBT_OK(clb_reshape(flat, ndim, shape, &shaped));
    clb_tensor_release(flat);
    return shaped;
}

/* ---- the table ------------------------------------------------------------------ */

static const clb_dtype all_dtypes[] = {CLB_BOOL,  CLB_INT8,   CLB_UINT8,   CLB_INT16,
                                       CLB_UINT16, CLB_INT32,  CLB_UINT32,  CLB_INT64,
                                       CLB_UINT64, CLB_FLOAT16, CLB_FLOAT32, CLB_FLOAT64};

static int compared; /* (op, dtype) pairs compared, over all devices */

static void eval_all(clb_context *ctx, clb_dtype t, clb_tensor **out, int *nops)
{
    char expr[4096];
    *nops = chain(t, expr, sizeof expr);
    double dummy[MAX_EDGES];
    int64_t e = edges(t, dummy);
    const int64_t sa[3] = {e, 1, 1}, sb[3] = {1, e, 1}, sk[3] = {1, 1, *nops};
    int32_t kv[NOPS];
    for (int i = 0; i < *nops; i++) kv[i] = i;
    clb_tensor *small[3] = {edge_tensor(ctx, t, 3, sa), edge_tensor(ctx, t, 3, sb),
                            clbt_tensor(ctx, CLB_INT32, 3, sk, kv)};
    /* Stride-0 views of the whole (e, e, nops) shape: no subtree's inputs span
       fewer elements than the output, so clb_eval hoists none of them into a
       program of its own (src/expr/expr_hoist.c) and each dtype stays at one
       program. */
    const int64_t full[3] = {e, e, *nops};
    clb_tensor *in[3];
    for (int i = 0; i < 3; i++) {
        CLBT_OK(clb_broadcast_to(small[i], 3, full, &in[i]));
        clb_tensor_release(small[i]);
    }
    const char *names[3] = {"a", "b", "k"};
    clb_status st = clb_eval(ctx, expr, 3, names, (const clb_tensor *const *)in, out);
    for (int i = 0; i < 3; i++) clb_tensor_release(in[i]);
    if (t != CLB_FLOAT64) CLBT_OK(st);
    else if (!CLBT_F64(ctx, st)) *out = NULL; /* refused, as the float64 policy says */
}

static void table_body(clb_context *ctx, const char *selector)
{
    int dtypes = 0;
    for (size_t gi = 0; gi < 2 * sizeof all_dtypes / sizeof all_dtypes[0]; gi++) {
        size_t i = gi / 2;
        group = (int)(gi % 2);
        clb_dtype t = all_dtypes[i];
        clb_tensor *got = NULL, *want = NULL;
        int nops = 0;
        eval_all(ctx, t, &got, &nops);
        if (!got) continue; /* float64 on a device without it: refused as the policy says */
        eval_all(host, t, &want, &nops);
        /* Integers and bools exactly; floats within a few ulp of the dtype (the
           device's exp, sin, pow... need not round as the host's libm). */
        clb_dtype rt = clb_tensor_dtype(want);
        double rtol = rt == CLB_FLOAT16 ? 2e-3 : rt == CLB_FLOAT32 ? 2e-5 : 1e-12;
        double atol = rt == CLB_FLOAT16 ? 1e-4 : rt == CLB_FLOAT32 ? 1e-6 : 1e-13;
        char why[256], what[128];
        if (!clbt_matches_host(got, want, rtol, atol, why, sizeof why)) {
            /* Name the op and the operands of the first element that differs. */
            int64_t first = atoll(strstr(why, "element ") + 8);
            int64_t e = clb_tensor_shape(want)[0];
            int k = (int)(first % nops), bi = (int)(first / nops % e), ai = (int)(first / nops / e);
            char expr[4096];
            chain(t, expr, sizeof expr);
            int seen = 0;
            const char *op = "?";
            for (int j = 0; j < NOPS; j++)
                if (takes(&ops[j], t) && seen++ == k) op = ops[j].text;
            snprintf(what, sizeof what, "%s on %s, %s with a = edge %d, b = edge %d", op, selector,
                     clb_dtype_name(t), ai, bi);
            fail_msg("%s: %s", what, why);
        }
        compared += nops;
        dtypes++;
        clb_tensor_release(got);
        clb_tensor_release(want);
    }
    /* Every dtype ran (both groups), float64 only where the device has it. */
    assert_int_equal(dtypes, clbt_has_fp64(ctx) ? 24 : 22);
}

static void test_every_op_dtype_edge(void **state)
{
    (void)state;
    compared = 0;
    clbt_for_each_device(table_body);
    /* The host alone compares 497 (op, dtype) pairs; each device adds its own. */
    assert_true(compared >= 497);
}

/* The chain really holds every op of the public enums: 27 binary and 36 unary,
   with invert and true division of floats on top. */
static void test_table_covers_every_op(void **state)
{
    (void)state;
    int binary = 0, unary = 0;
    for (int i = 0; i < NOPS; i++) {
        group = group_of(&ops[i]);
        if (strstr(ops[i].text, " b")) binary++;
        else unary++;
    }
    assert_int_equal(binary, CLB_RIGHT_SHIFT + 1);
    assert_int_equal(unary, CLB_BITWISE_INVERT + 1 + 1 /* invert */);
}

/* Divisors the kernel compiler sees as constants (clb_eval's literals), which
   a compiler may fold (quirk div-literal-zero): the IEEE results, bit for bit. */
static void literal_body(clb_context *ctx, const char *selector)
{
    static const char *const exprs[] = {"a / 0", "a / -0.0", "a // 0", "a % 0", "a / 0 + 1",
                                        "rsqrt(a - a)", "1 / (a - a)", "0 * a"};
    const int64_t n = 8;
    const float v[8] = {1.0f, -2.0f, 0.0f, -0.0f, 0.5f, 3e38f, -1e-30f, 7.0f};
    for (size_t i = 0; i < sizeof exprs / sizeof exprs[0]; i++) {
        clb_tensor *a = clbt_tensor(ctx, CLB_FLOAT32, 1, &n, v), *ha = clbt_tensor(host, CLB_FLOAT32, 1, &n, v);
        const char *names[1] = {"a"};
        clb_tensor *got = NULL, *want = NULL;
        CLBT_OK(clb_eval(ctx, exprs[i], 1, names, (const clb_tensor *const *)&a, &got));
        CLBT_OK(clb_eval(host, exprs[i], 1, names, (const clb_tensor *const *)&ha, &want));
        char what[96];
        snprintf(what, sizeof what, "%s on %s", exprs[i], selector);
        clbt_assert_matches_host(got, want, CLBT_EXACT, 0, what);
        clb_tensor_release(a);
        clb_tensor_release(ha);
        clb_tensor_release(got);
        clb_tensor_release(want);
    }
}

static void test_literal_zero_divisors(void **state)
{
    (void)state;
    clbt_for_each_device(literal_body);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_covers_every_op),
        cmocka_unit_test(test_every_op_dtype_edge),
        cmocka_unit_test(test_literal_zero_divisors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
