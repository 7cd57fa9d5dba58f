/* The host backend's fast paths against its own reference rules (issue 30):
 *   - clb_eval in blocks equals the same ops one by one, bit for bit, with the
 *     typed loops on and off, over shapes that take every path of the block
 *     walk (rows longer than a block, several short rows a block, inputs read
 *     in place, gathered, a broadcast row kept; strided and transposed inputs,
 *     a strided output, repeated subexpressions, where/casts/comparisons),
 *     and float math without a typed loop equals the element-by-element rules;
 *   - reductions: the typed sums (eight partial sums per run) against the
 *     element-by-element fold within float64 rounding, integers exactly;
 *     eval_reduce equals reduce(eval);
 *   - matmul through CBLAS against the blocked loop (float32: relative
 *     1e-5 * sqrt(k), both sum k float32 products in different orders), views
 *     as transposes and leading dimensions, broadcast batches; integers exact;
 *     with OpenBLAS, 1 and 2 threads give the same bits.
 * Host backend only, small shapes: a unit test. */
#include "testutil.h"
#include "dtype.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

extern _Atomic int clb__host_loops_enabled; /* src/cpu/host_loops.h */
extern _Atomic int clb__host_blas_enabled;  /* src/host/host_backend.h */
#if CLB_HAVE_CBLAS
void openblas_set_num_threads(int n);
#endif

static clb_context *ctx;

static int setup(void **state)
{
    (void)state;
    return clbt_host_open(&ctx); /* tests/testutil.h */
}

static int teardown(void **state)
{
    (void)state;
    clb__host_loops_enabled = 1;
    clb__host_blas_enabled = 1;
    return clbt_host_close(&ctx, true);
}

/* A tensor of dtype dt and shape s with values from seed (small integers for
   integer dtypes, [-2, 2) for floats). */
static clb_tensor *rnd(clb_dtype dt, int nd, const int64_t *s, uint64_t seed)
{
    int64_t n = 1;
    for (int d = 0; d < nd; d++) n *= s[d];
    double *v = malloc(sizeof *v * (size_t)(n ? n : 1));
    assert_non_null(v);
    for (int64_t i = 0; i < n; i++) v[i] = (double)(clbt_rand(&seed) >> 40) / (double)(1 << 22) - 2.0;
    clb_tensor *f = clbt_tensor(ctx, CLB_FLOAT64, nd, s, v), *t = NULL;
    free(v);
    if (dt != CLB_FLOAT64 && clb__dtype_is_integer(dt)) {
        clb_tensor *g = NULL;
        CLBT_OK(clb_eval(ctx, "x * 7", 1, (const char *const[]){"x"}, (const clb_tensor *const[]){f}, &g));
        CLBT_OK(clb_cast(g, dt, &t));
        clb_tensor_release(g);
    } else {
        CLBT_OK(clb_cast(f, dt, &t));
    }
    clb_tensor_release(f);
    return t;
}

static void assert_same(const clb_tensor *got, const clb_tensor *want, double rtol)
{
    char why[256];
    if (!clbt_matches_host(got, want, rtol, 0, why, sizeof why)) fail_msg("%s", why);
}

/* "(x - y) * (x - y) + where(x > y, x, z)" op by op. */
static clb_tensor *chain(const clb_tensor *x, const clb_tensor *y, const clb_tensor *z)
{
    clb_tensor *d = NULL, *sq = NULL, *gt = NULL, *w = NULL, *r = NULL;
    CLBT_OK(clb_binary(CLB_SUB, x, y, &d));
    CLBT_OK(clb_binary(CLB_MUL, d, d, &sq));
    CLBT_OK(clb_binary(CLB_GT, x, y, &gt));
    CLBT_OK(clb_where(gt, x, z, &w));
    CLBT_OK(clb_binary(CLB_ADD, sq, w, &r));
    clb_tensor_release(d), clb_tensor_release(sq), clb_tensor_release(gt), clb_tensor_release(w);
    return r;
}

static const char *const xyz[3] = {"x", "y", "z"};
static const char expr_text[] = "(x - y) * (x - y) + where(x > y, x, z)";

/* The expression over x, y, z in blocks (loops on and off) equals the chain. */
static void check_eval(const clb_tensor *x, const clb_tensor *y, const clb_tensor *z)
{
    const clb_tensor *in[3] = {x, y, z};
    clb_tensor *want = chain(x, y, z);
    for (int loops = 1; loops >= 0; loops--) {
        clb__host_loops_enabled = loops;
        clb_tensor *got = NULL;
        CLBT_OK(clb_eval(ctx, expr_text, 3, xyz, in, &got));
        assert_same(got, want, CLBT_EXACT);
        clb_tensor_release(got);
    }
    clb__host_loops_enabled = 1;
    clb_tensor_release(want);
}

static void test_eval_shapes(void **state)
{
    (void)state;
    static const clb_dtype dts[] = {CLB_FLOAT32, CLB_FLOAT64, CLB_INT32, CLB_FLOAT16, CLB_UINT8};
    for (size_t t = 0; t < sizeof dts / sizeof dts[0]; t++) {
        clb_dtype dt = dts[t];
        /* rows longer than a block; short rows; a broadcast row; a column */
        const int64_t long_row[1] = {3000}, rows[2] = {37, 5}, row[1] = {5}, col[2] = {37, 1};
        clb_tensor *a = rnd(dt, 1, long_row, 1), *b = rnd(dt, 1, long_row, 2), *c = rnd(dt, 1, long_row, 3);
        check_eval(a, b, c);
        clb_tensor_release(a), clb_tensor_release(b), clb_tensor_release(c);
        a = rnd(dt, 2, rows, 4), b = rnd(dt, 1, row, 5), c = rnd(dt, 2, col, 6);
        check_eval(a, b, c);
        check_eval(c, a, b);
        clb_tensor_release(a), clb_tensor_release(b), clb_tensor_release(c);
        /* 3-D outer broadcast with rows of 700 (blocks cross rows) and a transposed input */
        const int64_t s1[3] = {3, 1, 700}, s2[3] = {1, 4, 700}, sq[2] = {700, 700};
        a = rnd(dt, 3, s1, 7), b = rnd(dt, 3, s2, 8);
        clb_tensor *m = rnd(dt, 2, sq, 9), *mt = NULL;
        CLBT_OK(clb_permute(m, (const int[]){1, 0}, &mt));
        check_eval(a, b, a);
        check_eval(mt, m, mt);
        clb_tensor_release(a), clb_tensor_release(b), clb_tensor_release(m), clb_tensor_release(mt);
        /* rows of 16, 64 a block: b's row is kept for two blocks, then another row */
        const int64_t s3[3] = {4, 128, 16}, s4[3] = {4, 1, 16};
        a = rnd(dt, 3, s3, 10), b = rnd(dt, 3, s4, 11);
        check_eval(a, b, b);
        clb_tensor_release(a), clb_tensor_release(b);
    }
}

/* Float math without a typed loop (exp, sqrt, pow, tanh, floor_divide, %)
   runs the scalar rules without conversions: the same bits as the
   element-by-element path (loops off). */
static void test_eval_float_math(void **state)
{
    (void)state;
    static const char text[] = "exp(x) * sqrt(y + 3) + tanh(x) ** 2 - (x // y) + x % (y + 5)";
    const int64_t s[2] = {13, 1500};
    for (int f64 = 0; f64 < 2; f64++) {
        clb_dtype dt = f64 ? CLB_FLOAT64 : CLB_FLOAT32;
        clb_tensor *x = rnd(dt, 2, s, 61), *y = rnd(dt, 2, s, 62), *fast = NULL, *ref = NULL;
        const clb_tensor *in[2] = {x, y};
        CLBT_OK(clb_eval(ctx, text, 2, xyz, in, &fast));
        clb__host_loops_enabled = 0;
        CLBT_OK(clb_eval(ctx, text, 2, xyz, in, &ref));
        clb__host_loops_enabled = 1;
        assert_same(fast, ref, CLBT_EXACT);
        clb_tensor_release(x), clb_tensor_release(y), clb_tensor_release(fast), clb_tensor_release(ref);
    }
}

/* Every float unary op and the arithmetic binary ones: the typed loops
   (src/cpu/host_loops.c) against the element-by-element rule, bit for bit,
   float16, float32 and float64, on values in [-2, 2) (float16 also with
   values past its range, subnormal results and NaN) and a strided view. */
static clb_tensor *float_operand(clb_dtype dt, uint64_t seed)
{
    const int64_t s[2] = {7, 300};
    if (dt != CLB_FLOAT16) return rnd(dt, 2, s, seed);
    clb_tensor *f = rnd(CLB_FLOAT32, 2, s, seed), *g = NULL, *t = NULL;
    const clb_tensor *in[1] = {f};
    CLBT_OK(clb_eval(ctx, "where(x > 1.9, x * 40000, where(x < -1.9, x * 1e-6, "
                          "where(abs(x) < 1e-3, x / 0, x)))",
                     1, (const char *const[]){"x"}, in, &g));
    CLBT_OK(clb_cast(g, CLB_FLOAT16, &t));
    clb_tensor_release(f), clb_tensor_release(g);
    return t;
}

static void compare_loops(int op, bool binary, const clb_tensor *a, const clb_tensor *b)
{
    clb_tensor *fast = NULL, *ref = NULL;
    for (int loops = 1; loops >= 0; loops--) {
        clb__host_loops_enabled = loops;
        clb_tensor **r = loops ? &fast : &ref;
        clb_status st = binary ? clb_binary((clb_binary_op)op, a, b, r) : clb_unary((clb_unary_op)op, a, r);
        if (st != CLB_OK) break; /* an op the dtype does not take (bitwise_invert) */
    }
    clb__host_loops_enabled = 1;
    if (fast && ref) assert_same(fast, ref, CLBT_EXACT);
    clb_tensor_release(fast), clb_tensor_release(ref);
}

/* float16 reductions: the typed folds (host_reduce.c, a chunk converted at a
   time) against the element-by-element rule, bit for bit, on values in
   [-2, 2), on float_operand's (past the range, subnormal, infinite) and with
   a few NaNs, whole and along each axis, of the tensor and a transposed view. */
static void bytes_equal(const clb_tensor *a, const clb_tensor *b)
{
    const size_t n = (size_t)clb_tensor_numel(a) * clb_dtype_size(clb_tensor_dtype(a));
    assert_int_equal(clb_tensor_numel(a), clb_tensor_numel(b));
    unsigned char *x = malloc(n + 1), *y = malloc(n + 1);
    assert_true(x && y);
    CLBT_OK(clb_tensor_to_host(a, x, n));
    CLBT_OK(clb_tensor_to_host(b, y, n));
    assert_memory_equal(x, y, n);
    free(x), free(y);
}

static void test_half_folds(void **state)
{
    (void)state;
    static const clb_reduce_op ops[] = {CLB_SUM, CLB_MEAN, CLB_MAX, CLB_MIN, CLB_PROD};
    const int64_t s[2] = {300, 7};
    clb_tensor *f = rnd(CLB_FLOAT32, 2, s, 92), *g = NULL, *h = NULL;
    CLBT_OK(clb_eval(ctx, "where(x > 1.95, log(x - 3), x)", 1, (const char *const[]){"x"},
                     (const clb_tensor *const[]){f}, &g)); /* a few NaNs */
    CLBT_OK(clb_cast(g, CLB_FLOAT16, &h));
    clb_tensor_release(f), clb_tensor_release(g);
    clb_tensor *xs[3] = {rnd(CLB_FLOAT16, 2, s, 90), float_operand(CLB_FLOAT16, 91), h};
    for (int k = 0; k < 3; k++) {
        clb_tensor *t = NULL;
        CLBT_OK(clb_swapaxes(xs[k], 0, 1, &t));
        const clb_tensor *ins[2] = {xs[k], t};
        for (int v = 0; v < 2; v++)
            for (int o = 0; o < 5; o++)
                for (int ax = -1; ax < 2; ax++) {
                    clb_tensor *fast = NULL, *ref = NULL;
                    clb__host_loops_enabled = 1;
                    CLBT_OK(clb_reduce(ops[o], ins[v], ax < 0 ? 0 : 1, &ax, 0, &fast));
                    clb__host_loops_enabled = 0;
                    CLBT_OK(clb_reduce(ops[o], ins[v], ax < 0 ? 0 : 1, &ax, 0, &ref));
                    clb__host_loops_enabled = 1;
                    bytes_equal(fast, ref);
                    clb_tensor_release(fast), clb_tensor_release(ref);
                }
        clb_tensor_release(t), clb_tensor_release(xs[k]);
    }
}

static void test_unary_loops(void **state)
{
    (void)state;
    static const clb_dtype dts[3] = {CLB_FLOAT16, CLB_FLOAT32, CLB_FLOAT64};
    static const clb_binary_op bin[6] = {CLB_ADD, CLB_SUB, CLB_MUL, CLB_DIV, CLB_MAXIMUM, CLB_MINIMUM};
    for (int d = 0; d < 3; d++) {
        clb_tensor *x = float_operand(dts[d], 71), *y = float_operand(dts[d], 72), *view = NULL;
        CLBT_OK(clb_slice(x, 1, 1, 300, 3, &view));
        for (int op = 0; op <= (int)CLB_BITWISE_INVERT; op++) {
            compare_loops(op, false, x, NULL);
            compare_loops(op, false, view, NULL);
        }
        for (int k = 0; k < 6; k++) compare_loops(bin[k], true, x, y);
        clb_tensor_release(view), clb_tensor_release(x), clb_tensor_release(y);
    }
}

/* clb_eval_into a strided output (every other column) and one of another dtype. */
static void test_eval_into_views(void **state)
{
    (void)state;
    const int64_t s[2] = {50, 2400}, half[2] = {50, 1200};
    clb_tensor *x = rnd(CLB_FLOAT32, 2, half, 11), *y = rnd(CLB_FLOAT32, 2, half, 12);
    clb_tensor *out = rnd(CLB_FLOAT32, 2, s, 13), *view = NULL, *out64 = NULL;
    CLBT_OK(clb_slice(out, 1, 0, 2400, 2, &view));
    CLBT_OK(clb_tensor_empty(ctx, CLB_FLOAT64, 2, half, &out64));
    const clb_tensor *in[3] = {x, y, x};
    clb_tensor *want = chain(x, y, x), *want64 = NULL;
    CLBT_OK(clb_cast(want, CLB_FLOAT64, &want64));
    for (int loops = 1; loops >= 0; loops--) {
        clb__host_loops_enabled = loops;
        CLBT_OK(clb_eval_into(ctx, expr_text, 3, xyz, in, view));
        assert_same(view, want, CLBT_EXACT);
        CLBT_OK(clb_eval_into(ctx, expr_text, 3, xyz, in, out64));
        assert_same(out64, want64, CLBT_EXACT);
    }
    clb_tensor_release(x), clb_tensor_release(y), clb_tensor_release(out), clb_tensor_release(view);
    clb_tensor_release(out64), clb_tensor_release(want), clb_tensor_release(want64);
}

/* Sums and means over rows, columns and channels: typed partial sums against
   the element-by-element fold (float64 accumulators both: they agree to a few
   float64 ulps, far below float32 rounding); integer sums and max exactly. */
static void test_reductions(void **state)
{
    (void)state;
    const int64_t s[4] = {6, 3, 40, 45};
    static const int axes_sets[4][3] = {{3}, {0}, {0, 2, 3}, {1, 2}};
    static const int naxes[4] = {1, 1, 3, 2};
    static const clb_dtype dts[] = {CLB_FLOAT32, CLB_FLOAT64, CLB_INT32};
    static const clb_reduce_op ops[] = {CLB_SUM, CLB_MEAN, CLB_MAX};
    for (size_t t = 0; t < 3; t++) {
        clb_tensor *x = rnd(dts[t], 4, s, 20 + t);
        for (int a = 0; a < 4; a++)
            for (int o = 0; o < 3; o++) {
                clb_tensor *fast = NULL, *ref = NULL;
                clb__host_loops_enabled = 1;
                CLBT_OK(clb_reduce(ops[o], x, naxes[a], axes_sets[a], 0, &fast));
                clb__host_loops_enabled = 0;
                CLBT_OK(clb_reduce(ops[o], x, naxes[a], axes_sets[a], 0, &ref));
                assert_same(fast, ref, clb__dtype_is_integer(dts[t]) && ops[o] != CLB_MEAN ? CLBT_EXACT : 1e-6);
                clb_tensor_release(fast), clb_tensor_release(ref);
            }
        clb_tensor_release(x);
    }
    clb__host_loops_enabled = 1;
}

/* Pairwise squared distances: eval_reduce against reduce(eval) (the same sums,
   the same typed partial sums: equal bits). */
static void test_eval_reduce(void **state)
{
    (void)state;
    const int64_t sx[3] = {9, 1, 70}, sy[3] = {1, 11, 70};
    clb_tensor *x = rnd(CLB_FLOAT32, 3, sx, 31), *y = rnd(CLB_FLOAT32, 3, sy, 32);
    const clb_tensor *in[2] = {x, y};
    clb_tensor *d = NULL, *want = NULL, *got = NULL;
    CLBT_OK(clb_eval(ctx, "(x - y) * (x - y)", 2, xyz, in, &d));
    CLBT_OK(clb_reduce(CLB_SUM, d, 1, (const int[]){2}, 0, &want));
    CLBT_OK(clb_eval_reduce(ctx, "(x - y) * (x - y)", 2, xyz, in, CLB_SUM, 1, (const int[]){2}, 0, &got));
    assert_same(got, want, CLBT_EXACT);
    clb_tensor_release(x), clb_tensor_release(y), clb_tensor_release(d), clb_tensor_release(want),
        clb_tensor_release(got);
}

/* A sum of an expression that is one node but not the first input (a constant,
   the second input) takes the block walk, not the column loop that reads the first
   input (fuzz_stats found "2/22222222222" summing x's zeros instead). */
static void test_eval_reduce_one_node(void **state)
{
    (void)state;
    const int64_t sh[3] = {3, 2, 2};
    clb_tensor *x = rnd(CLB_FLOAT32, 3, sh, 41), *y = rnd(CLB_FLOAT32, 3, sh, 42);
    const clb_tensor *in[2] = {x, y};
    clb_tensor *c = NULL, *yy = NULL, *want = NULL;
    CLBT_OK(clb_eval_reduce(ctx, "2/3", 2, xyz, in, CLB_SUM, 1, (const int[]){-3}, 0, &c));
    double v[4];
    clb_tensor *c64 = NULL;
    CLBT_OK(clb_cast(c, CLB_FLOAT64, &c64));
    CLBT_OK(clb_tensor_to_host(c64, v, sizeof v));
    for (int k = 0; k < 4; k++) assert_true(fabs(v[k] - 2.0) < 1e-15);
    CLBT_OK(clb_eval_reduce(ctx, "y", 2, xyz, in, CLB_SUM, 1, (const int[]){-3}, 0, &yy));
    CLBT_OK(clb_reduce(CLB_SUM, y, 1, (const int[]){-3}, 0, &want));
    assert_same(yy, want, CLBT_EXACT);
    clb_tensor_release(x), clb_tensor_release(y), clb_tensor_release(c), clb_tensor_release(c64),
        clb_tensor_release(yy), clb_tensor_release(want);
}

/* a @ b through CBLAS and through the blocked loop. */
static void check_matmul(const clb_tensor *a, const clb_tensor *b, int64_t k)
{
    clb_tensor *blas = NULL, *blocked = NULL;
    clb__host_blas_enabled = 1;
    CLBT_OK(clb_matmul(a, b, &blas));
    clb__host_blas_enabled = 0;
    CLBT_OK(clb_matmul(a, b, &blocked));
    clb__host_blas_enabled = 1;
    clb_dtype dt = clb_tensor_dtype(a);
    double rtol = dt == CLB_FLOAT32 ? 1e-5 * sqrt((double)k) : dt == CLB_FLOAT64 ? 1e-13 * sqrt((double)k)
                                                                                : CLBT_EXACT;
    char why[256];
    /* absolute slack for sums that cancel: k products of magnitude <= 4 */
    double atol = dt == CLB_FLOAT32 ? 4e-6 * (double)k : dt == CLB_FLOAT64 ? 1e-14 * (double)k : 0;
    if (!clbt_matches_host(blas, blocked, rtol, atol, why, sizeof why)) fail_msg("%s", why);
    clb_tensor_release(blas), clb_tensor_release(blocked);
}

static void test_matmul_paths(void **state)
{
    (void)state;
    static const clb_dtype dts[] = {CLB_FLOAT32, CLB_FLOAT64, CLB_INT32};
    for (size_t t = 0; t < 3; t++) {
        clb_dtype dt = dts[t];
        const int64_t sa[2] = {37, 300}, sb[2] = {300, 21}, sat[2] = {300, 37}, sbt[2] = {21, 300};
        clb_tensor *a = rnd(dt, 2, sa, 41), *b = rnd(dt, 2, sb, 42);
        check_matmul(a, b, 300);
        /* transposed views: a.T of a (300, 37), b.T of a (21, 300) */
        clb_tensor *at0 = rnd(dt, 2, sat, 43), *bt0 = rnd(dt, 2, sbt, 44), *at = NULL, *bt = NULL;
        CLBT_OK(clb_permute(at0, (const int[]){1, 0}, &at));
        CLBT_OK(clb_permute(bt0, (const int[]){1, 0}, &bt));
        check_matmul(at, bt, 300);
        check_matmul(a, bt, 300);
        /* every other column of a: no flag describes it, packed */
        const int64_t wide[2] = {37, 600};
        clb_tensor *w = rnd(dt, 2, wide, 45), *ws = NULL;
        CLBT_OK(clb_slice(w, 1, 0, 600, 2, &ws));
        check_matmul(ws, b, 300);
        /* batches: b shared (one call of 4 * 37 rows), broadcast both ways */
        const int64_t s3[3] = {4, 37, 300}, s4[4] = {2, 1, 300, 21};
        clb_tensor *a3 = rnd(dt, 3, s3, 46), *b4 = rnd(dt, 4, s4, 47);
        check_matmul(a3, b, 300);
        check_matmul(a3, b4, 300);
        clb_tensor_release(a), clb_tensor_release(b), clb_tensor_release(at0), clb_tensor_release(bt0);
        clb_tensor_release(at), clb_tensor_release(bt), clb_tensor_release(w), clb_tensor_release(ws);
        clb_tensor_release(a3), clb_tensor_release(b4);
    }
}

/* OpenBLAS splits out's rows and columns between threads, never k: 1 and 2
   threads give the same bits. */
static void test_matmul_threads(void **state)
{
    (void)state;
#if CLB_HAVE_CBLAS
    const int64_t s[2] = {256, 256};
    clb_tensor *a = rnd(CLB_FLOAT32, 2, s, 51), *b = rnd(CLB_FLOAT32, 2, s, 52), *one = NULL, *two = NULL;
    openblas_set_num_threads(1);
    CLBT_OK(clb_matmul(a, b, &one));
    openblas_set_num_threads(2);
    CLBT_OK(clb_matmul(a, b, &two));
    assert_same(two, one, CLBT_EXACT);
    clb_tensor_release(a), clb_tensor_release(b), clb_tensor_release(one), clb_tensor_release(two);
#else
    skip();
#endif
}

#define TEST(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        TEST(test_eval_shapes),   TEST(test_eval_float_math), TEST(test_unary_loops), TEST(test_eval_into_views), TEST(test_reductions),
        TEST(test_half_folds),
        TEST(test_eval_reduce),   TEST(test_eval_reduce_one_node), TEST(test_matmul_paths),    TEST(test_matmul_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
