/* matmul on every device against the host backend: random cases (fixed seed)
 * with 1-D operands, broadcast batches, transposed and broadcast views and
 * zero-size dimensions, every dtype, and the shapes.
 *
 * CLBlast compiles each GEMM routine x precision for 14-26 s on PoCL and keeps
 * it in memory only, so the default build of this file (suite 'device') keeps
 * float matrices to float32 and to sizes CLBlast runs with its direct kernel;
 * built with CLBT_SLOW=1 (suite 'slow') it adds float64 and large shapes. */
#include "testutil.h"

#include <math.h>
#include <stdbool.h>

#ifndef CLBT_SLOW
#define CLBT_SLOW 0
#endif
#define NUM_RANDOM 320

/* Small exact values: integers wrap identically on both sides anyway, floats
   are multiples of 1/8 in [-4, 4) (exact in float16 too). */
static void fill_random(void *buf, clb_dtype t, int64_t n, uint64_t *rng)
{
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = clbt_rand(rng);
        int v = (int)(r % 64) - 32;
        switch (t) {
        case CLB_BOOL: ((uint8_t *)buf)[i] = (uint8_t)(r >> 9 & 1); break;
        case CLB_INT8: ((int8_t *)buf)[i] = (int8_t)v; break;
        case CLB_UINT8: ((uint8_t *)buf)[i] = (uint8_t)(r >> 40); break;
        case CLB_INT16: ((int16_t *)buf)[i] = (int16_t)(v * 100); break;
        case CLB_UINT16: ((uint16_t *)buf)[i] = (uint16_t)(r >> 40); break;
        case CLB_INT32: ((int32_t *)buf)[i] = (int32_t)(r >> 32); break;
        case CLB_UINT32: ((uint32_t *)buf)[i] = (uint32_t)(r >> 32); break;
        case CLB_INT64: case CLB_UINT64: ((uint64_t *)buf)[i] = r; break;
        case CLB_FLOAT16: {
            /* v/8 as a half: sign, exponent and 10-bit mantissa of |v| / 8. */
            int a = v < 0 ? -v : v;
            uint16_t h = 0;
            if (a) {
                int e = 0;
                while ((a >> e) > 1) e++;
                h = (uint16_t)(((e - 3 + 15) << 10) | (((a << 10) >> e) & 1023));
            }
            ((uint16_t *)buf)[i] = (uint16_t)(h | (v < 0 ? 0x8000 : 0));
            break;
        }
        case CLB_FLOAT32: ((float *)buf)[i] = (float)v / 8.0f; break;
        default: ((double *)buf)[i] = (double)v / 8.0; break;
        }
    }
}

/* The device's product against the host's: a float bound that grows with the
   inner dimension k. The two add in other orders: the host's float32/float64
   go through OpenBLAS (issue 30), which sums in the operands' precision in its
   own blocked order (before, the host summed in double), the device kernels
   in theirs; the inputs here are multiples of 1/8, so most sums are exact. */
static void assert_matches(const clb_tensor *d, const clb_tensor *h, int64_t k, const char *what)
{
    clb_dtype t = clb_tensor_dtype(h);
    double rtol = t == CLB_FLOAT16 ? 2e-3 : t == CLB_FLOAT32 ? 1e-5 : 1e-12;
    double atol = (t == CLB_FLOAT16 ? 1e-3 : t == CLB_FLOAT32 ? 1e-5 : 1e-12) * (double)(k + 1);
    clbt_assert_matches_host(d, h, rtol, atol, what);
}

/* One operand: its logical shape, how it is stored (transposed inner axes,
   broadcast batch axes) and its data. */
typedef struct operand {
    int ndim;
    int64_t shape[12];
    bool transposed;      /* stored as (..., cols, rows) and permuted back */
    bool broadcast_batch; /* batch axes stored with size 1 and expanded */
} operand;

static clb_tensor *make_operand(clb_context *ctx, clb_dtype dt, const operand *o, const void *data)
{
    int64_t stored[12];
    memcpy(stored, o->shape, sizeof stored);
    if (o->broadcast_batch)
        for (int d = 0; d < o->ndim - 2; d++) stored[d] = 1;
    if (o->transposed) {
        int64_t t = stored[o->ndim - 1];
        stored[o->ndim - 1] = stored[o->ndim - 2], stored[o->ndim - 2] = t;
    }
    clb_tensor *t = clbt_tensor(ctx, dt, o->ndim, stored, data), *v = NULL;
    if (o->transposed) {
        int perm[12];
        for (int d = 0; d < o->ndim; d++) perm[d] = d;
        perm[o->ndim - 1] = o->ndim - 2, perm[o->ndim - 2] = o->ndim - 1;
        CLBT_OK(clb_permute(t, perm, &v));
        clb_tensor_release(t);
        t = v;
    }
    if (o->broadcast_batch) {
        CLBT_OK(clb_expand(t, o->ndim, o->shape, &v));
        clb_tensor_release(t);
        t = v;
    }
    return t;
}

static int64_t stored_numel(const operand *o)
{
    int64_t n = 1;
    for (int d = 0; d < o->ndim; d++) n *= (o->broadcast_batch && d < o->ndim - 2) ? 1 : o->shape[d];
    return n;
}

static void compare(clb_context *ctx, clb_context *host, clb_dtype dt, const operand *a,
                    const operand *b, uint64_t *rng, const char *what)
{
    int64_t na = stored_numel(a), nb = stored_numel(b);
    size_t esz = clb_dtype_size(dt);
    void *da = malloc((size_t)(na ? na : 1) * esz), *db = malloc((size_t)(nb ? nb : 1) * esz);
    assert_true(da && db);
    fill_random(da, dt, na, rng);
    fill_random(db, dt, nb, rng);
    clb_tensor *ad = make_operand(ctx, dt, a, da), *bd = make_operand(ctx, dt, b, db);
    clb_tensor *ah = make_operand(host, dt, a, da), *bh = make_operand(host, dt, b, db);
    clb_tensor *rd = NULL, *rh = NULL;
    clb_status sh = clb_matmul(ah, bh, &rh), sd = clb_matmul(ad, bd, &rd);
    clb_device_info info;
    CLBT_OK(clb_context_get_info(ctx, &info));
    if (sd == CLB_ERR_DTYPE && dt == CLB_FLOAT64 && !info.has_fp64) {
        assert_non_null(strstr(clb_last_error(), "fp64"));
    } else if (sh != CLB_OK) {
        if (sd != sh) fail_msg("%s: host %s, device %s", what, clb_status_name(sh), clb_status_name(sd));
    } else {
        if (sd != CLB_OK) fail_msg("%s on %s: %s: %s", what, info.name, clb_status_name(sd), clb_last_error());
        assert_matches(rd, rh, a->shape[a->ndim - 1], what);
    }
    clb_tensor_release(rd);
    clb_tensor_release(rh);
    clb_tensor_release(ad);
    clb_tensor_release(bd);
    clb_tensor_release(ah);
    clb_tensor_release(bh);
    free(da);
    free(db);
}

/* ---- random cases ----------------------------------------------------------------- */

static clb_dtype random_dtype(uint64_t *rng)
{
    /* float32 is CLBlast's; float64 (a second CLBlast precision to compile) only
       in the slow suite. */
    static const clb_dtype dts[] = {CLB_FLOAT32, CLB_FLOAT32, CLB_FLOAT32, CLB_INT32,
                                    CLB_INT8,    CLB_UINT8,   CLB_INT16,   CLB_UINT16,
                                    CLB_UINT32,  CLB_INT64,   CLB_UINT64,  CLB_BOOL,
                                    CLB_FLOAT16, CLB_FLOAT64};
    int n = CLBT_SLOW ? 14 : 13;
    return dts[clbt_rand(rng) % (uint64_t)n];
}

static void body_random(clb_context *ctx, const char *sel)
{
    (void)sel;
    clb_context *host = clbt_host();
    uint64_t rng = 31337;
    static const int64_t sizes[] = {1, 2, 3, 5, 8, 13, 17};
    int cases = clbt_is_simulator(ctx) ? NUM_RANDOM / 8 : NUM_RANDOM;
    for (int it = 0; it < cases; it++) {
        int64_t m = sizes[clbt_rand(&rng) % 7], n = sizes[clbt_rand(&rng) % 7];
        int64_t k = clbt_rand(&rng) % 25 == 0 ? 0 : sizes[clbt_rand(&rng) % 7];
        operand a = {.ndim = 1 + (int)(clbt_rand(&rng) % 4)}, b = {.ndim = 1 + (int)(clbt_rand(&rng) % 4)};
        if (clbt_rand(&rng) % 30 == 0) m = 0;
        /* Batch: the longer one's leading axes; the other gets 1s or matching sizes. */
        int batch = (a.ndim > b.ndim ? a.ndim : b.ndim) - 2;
        int64_t bshape[3];
        for (int d = 0; d < batch; d++) bshape[d] = 1 + (int64_t)(clbt_rand(&rng) % 3);
        operand *ops[2] = {&a, &b};
        for (int q = 0; q < 2; q++) {
            operand *o = ops[q];
            int ob = o->ndim - 2;
            for (int d = 0; d < ob; d++)
                o->shape[d] = clbt_rand(&rng) % 3 == 0 ? 1 : bshape[batch - ob + d];
            if (o->ndim == 1) o->shape[0] = k;
            else if (q == 0) o->shape[o->ndim - 2] = m, o->shape[o->ndim - 1] = k;
            else o->shape[o->ndim - 2] = k, o->shape[o->ndim - 1] = n;
            o->transposed = o->ndim >= 2 && clbt_rand(&rng) % 3 == 0;
            o->broadcast_batch = o->ndim >= 3 && clbt_rand(&rng) % 3 == 0;
        }
        char what[128];
        clb_dtype dt = random_dtype(&rng);
        snprintf(what, sizeof what, "case %d (%s, a %dd%s%s, b %dd%s%s)", it, clb_dtype_name(dt),
                 a.ndim, a.transposed ? " T" : "", a.broadcast_batch ? " B" : "", b.ndim,
                 b.transposed ? " T" : "", b.broadcast_batch ? " B" : "");
        compare(ctx, host, dt, &a, &b, &rng, what);
    }
    clb_context_release(host);
}

static void test_random(void **state)
{
    (void)state;
    clbt_for_each_device(body_random);
}

/* ---- the shapes ------------------------------------------------------------- */

static void body_shapes(clb_context *ctx, const char *sel)
{
    (void)sel;
    clb_context *host = clbt_host();
    uint64_t rng = 5;
    /* (2,1,5,6) @ (3,6,7) -> (2,3,5,7): a pattern GemmBatched serves. */
    operand a = {4, {2, 1, 5, 6}, false, false}, b = {3, {3, 6, 7}, false, false};
    compare(ctx, host, CLB_FLOAT32, &a, &b, &rng, "(2,1,5,6)@(3,6,7)");
    compare(ctx, host, CLB_INT32, &a, &b, &rng, "(2,1,5,6)@(3,6,7) int32");
    /* (B,N,N) @ (N,N): a broadcast operand with batch stride 0. */
    int64_t side = CLBT_SLOW ? 256 : 24, batch = CLBT_SLOW ? 64 : 4;
    operand c = {3, {batch, side, side}, false, false}, d = {2, {side, side}, false, false};
    compare(ctx, host, CLB_FLOAT32, &c, &d, &rng, "(B,N,N)@(N,N)");
    d.transposed = true;
    compare(ctx, host, CLB_FLOAT32, &c, &d, &rng, "(B,N,N)@(N,N)^T");
    /* The register-blocked kernel (n % 16 == 0): six-row float tiles, the last
       of m = 32 or 7 partly past the end; a transposed and a batch-broadcast a. */
    operand e = {3, {3, 32, 20}, false, false}, f = {2, {20, 48}, false, false};
    compare(ctx, host, CLB_FLOAT32, &e, &f, &rng, "(3,32,20)@(20,48)");
    operand e7 = {2, {7, 20}, false, false};
    compare(ctx, host, CLB_FLOAT32, &e7, &f, &rng, "(7,20)@(20,48)");
    /* A batch against a shared b folds into m (cl_matmul.c's kernel_plan): m = 7
       rows a matrix, so six-row tiles straddle two matrices; int32 on the plain
       kernel, folded the same way. */
    operand e57 = {3, {5, 7, 20}, false, false};
    compare(ctx, host, CLB_FLOAT32, &e57, &f, &rng, "(5,7,20)@(20,48)");
    compare(ctx, host, CLB_INT32, &e57, &f, &rng, "(5,7,20)@(20,48) int32");
    e.transposed = true;
    compare(ctx, host, CLB_FLOAT32, &e, &f, &rng, "(3,32,20)^T@(20,48)");
    e.broadcast_batch = true;
    compare(ctx, host, CLB_FLOAT32, &e, &f, &rng, "expand(1,32,20)^T@(20,48)");
    /* Nine batch axes that do not coalesce (a and b broadcast alternately): the
       batch table travels in a buffer; float32 takes GemmBatched, int32 our kernel. */
    operand g = {11, {2, 1, 2, 1, 2, 1, 2, 1, 2, 3, 4}, false, false};
    operand h = {11, {1, 2, 1, 2, 1, 2, 1, 2, 1, 4, 5}, false, false};
    compare(ctx, host, CLB_FLOAT32, &g, &h, &rng, "9 batch axes float32");
    compare(ctx, host, CLB_INT32, &g, &h, &rng, "9 batch axes int32");
    /* 1-D operands on either side and both. */
    operand v = {1, {6}, false, false}, m6 = {2, {6, 4}, false, false}, m5 = {2, {5, 6}, false, false};
    compare(ctx, host, CLB_FLOAT32, &v, &m6, &rng, "(6)@(6,4)");
    compare(ctx, host, CLB_FLOAT32, &m5, &v, &rng, "(5,6)@(6)");
    compare(ctx, host, CLB_FLOAT32, &v, &v, &rng, "(6)@(6)");
#if CLBT_SLOW
    compare(ctx, host, CLB_FLOAT64, &a, &b, &rng, "(2,1,5,6)@(3,6,7) float64");
    compare(ctx, host, CLB_FLOAT64, &c, &d, &rng, "(B,N,N)@(N,N)^T float64");
    d.transposed = false;
    compare(ctx, host, CLB_FLOAT64, &c, &d, &rng, "(B,N,N)@(N,N) float64");
    compare(ctx, host, CLB_FLOAT64, &e, &f, &rng, "expand(1,32,20)^T@(20,48) float64");
#endif
    clb_context_release(host);
}

/* Inner dimension 0: every element an empty sum, 0. The output reuses a released
   block of the same size full of non-zero bytes, so the fill (cl/fill.cl, never
   clEnqueueFillBuffer) must write every byte, int16's odd sizes included. */
static void body_empty_sum(clb_context *ctx, const char *sel)
{
    const clb_dtype dts[2] = {CLB_INT16, CLB_FLOAT32};
    for (int k = 0; k < 2; k++) {
        size_t esz = clb_dtype_size(dts[k]);
        const int64_t as[3] = {2, 3, 0}, bs[2] = {0, 701}, os[3] = {2, 3, 701};
        unsigned char *junk = malloc(2 * 3 * 701 * esz);
        assert_non_null(junk);
        memset(junk, 0x7f, 2 * 3 * 701 * esz);
        clb_tensor *j = clbt_tensor(ctx, dts[k], 3, os, junk), *a = NULL, *b = NULL, *r = NULL;
        clb_tensor_release(j); /* its block goes to the pool, and back to r */
        CLBT_OK(clb_tensor_from_host(ctx, dts[k], 3, as, NULL, &a));
        CLBT_OK(clb_tensor_from_host(ctx, dts[k], 2, bs, NULL, &b));
        CLBT_OK(clb_matmul(a, b, &r));
        clbt_assert_shape(r, 3, os);
        CLBT_OK(clb_tensor_to_host(r, junk, 2 * 3 * 701 * esz));
        for (size_t i = 0; i < 2 * 3 * 701 * esz; i++)
            if (junk[i] != 0) fail_msg("%s: %s empty sum, byte %zu is %d", sel,
                                       clb_dtype_name(dts[k]), i, junk[i]);
        free(junk);
        clb_tensor_release(a);
        clb_tensor_release(b);
        clb_tensor_release(r);
    }
}

static void test_empty_sum(void **state)
{
    (void)state;
    clbt_for_each_device(body_empty_sum);
}

/* An inner dimension longer than a loop-limited driver's budget (rusticl, quirk
   loop-limit): the library splits it and adds the pieces (issue 26, finding 13: an
   int64 matmul with k = 48,000 was refused there as CLB_ERR_UNSUPPORTED). */
static void body_long_inner(clb_context *ctx, const char *sel)
{
    enum { K = 70001 };
    const int64_t as[2] = {2, K}, bs[2] = {K, 3};
    int64_t *a = malloc(2 * K * sizeof *a), *b = malloc(3 * K * sizeof *b);
    assert_true(a && b);
    for (int64_t i = 0; i < 2 * K; i++) a[i] = (i * 7) % 11 - 5;
    for (int64_t i = 0; i < 3 * K; i++) b[i] = (i * 5) % 13 - 6;
    clb_tensor *ta = clbt_tensor(ctx, CLB_INT64, 2, as, a), *tb = clbt_tensor(ctx, CLB_INT64, 2, bs, b);
    clb_tensor *r = NULL;
    CLBT_OK(clb_matmul(ta, tb, &r));
    int64_t got[6], want[6] = {0};
    CLBT_OK(clb_tensor_to_host(r, got, sizeof got));
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            for (int64_t p = 0; p < K; p++) want[i * 3 + j] += a[i * K + p] * b[p * 3 + j];
    for (int i = 0; i < 6; i++)
        if (got[i] != want[i])
            fail_msg("%s: int64 (2, %d) @ (%d, 3): element %d is %lld, expected %lld", sel, K, K,
                     i, (long long)got[i], (long long)want[i]);
    clb_tensor_release(r);
    clb_tensor_release(ta);
    clb_tensor_release(tb);
    free(a);
    free(b);
}

static void test_long_inner(void **state)
{
    (void)state;
    clbt_for_each_device(body_long_inner);
}

static void test_shapes(void **state)
{
    (void)state;
    clbt_for_each_device(body_shapes);
}

/* The own kernels' layouts (docs/pitfalls.md, "Layouts and the matmul paths"),
   on every device with CLB_MATMUL_IMPL=kernel (PoCL's default): a transposed b
   read in place by clb_matmul_nt, m, n past its 4 x 4 tile and k % 8 left over;
   then, above 2^21 multiply-adds, the layouts it reaches through copies: a
   transposed a with n = 120 (a copied row-major, b column-major, then
   clb_matmul_nt) and both transposed with n = 128 (b copied row-major, then the
   blocked kernel). */
static void body_own_layouts(clb_context *ctx, const char *sel)
{
    (void)sel;
    clb_context *host = clbt_host();
    uint64_t rng = 77;
    operand q = {3, {2, 13, 21}, false, false}, kt = {3, {2, 21, 10}, true, false};
    compare(ctx, host, CLB_FLOAT32, &q, &kt, &rng, "(2,13,21)@(2,21,10)^T");
    kt.broadcast_batch = true;
    compare(ctx, host, CLB_FLOAT32, &q, &kt, &rng, "(2,13,21)@expand(1,21,10)^T");
    operand at = {3, {2, 100, 96}, true, false}, b = {2, {96, 120}, false, false};
    compare(ctx, host, CLB_FLOAT32, &at, &b, &rng, "(2,100,96)^T@(96,120)");
    operand bt = {2, {96, 128}, true, false};
    compare(ctx, host, CLB_FLOAT32, &at, &bt, &rng, "(2,100,96)^T@(96,128)^T");
    clb_context_release(host);
}

static void test_own_layouts(void **state)
{
    (void)state;
    setenv("CLB_MATMUL_IMPL", "kernel", 1); /* read when a context is made */
    clbt_for_each_device(body_own_layouts);
    unsetenv("CLB_MATMUL_IMPL");
}

/* An operand CLBlast cannot read in place (a broadcast inner axis: stride 0
   along columns) goes through a contiguous copy. */
static void body_broadcast_inner(clb_context *ctx, const char *sel)
{
    (void)sel;
    clb_context *host = clbt_host();
    const int64_t col[2] = {5, 1}, full[2] = {5, 6}, bs[2] = {6, 7};
    float av[5] = {1, -2, 3, 0.5f, 4}, bv[42];
    for (int i = 0; i < 42; i++) bv[i] = (float)(i % 7) - 3.0f;
    clb_context *ctxs[2] = {ctx, host};
    clb_tensor *r[2] = {NULL, NULL};
    for (int q = 0; q < 2; q++) {
        clb_tensor *a = clbt_tensor(ctxs[q], CLB_FLOAT32, 2, col, av), *ae = NULL;
        clb_tensor *b = clbt_tensor(ctxs[q], CLB_FLOAT32, 2, bs, bv);
        CLBT_OK(clb_expand(a, 2, full, &ae));
        CLBT_OK(clb_matmul(ae, b, &r[q]));
        clb_tensor_release(a);
        clb_tensor_release(ae);
        clb_tensor_release(b);
    }
    assert_matches(r[0], r[1], 6, "expand((5,1)->(5,6)) @ (6,7)");
    clb_tensor_release(r[0]);
    clb_tensor_release(r[1]);
    clb_context_release(host);
}

static void test_broadcast_inner(void **state)
{
    (void)state;
    clbt_for_each_device(body_broadcast_inner);
}

/* ---- errors --------------------------------------------------------------------------- */

static void body_errors(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t sa[2] = {2, 3}, sb[2] = {4, 5};
    clb_tensor *a = NULL, *b = NULL, *r = NULL;
    CLBT_OK(clb_tensor_empty(ctx, CLB_FLOAT32, 2, sa, &a));
    CLBT_OK(clb_tensor_empty(ctx, CLB_FLOAT32, 2, sb, &b));
    CLBT_FAILS(CLB_ERR_SHAPE_MISMATCH, clb_matmul(a, b, &r));
    assert_null(r);
    assert_non_null(strstr(clb_last_error(), "3"));
    assert_non_null(strstr(clb_last_error(), "4"));
    clb_tensor_release(a);
    clb_tensor_release(b);
}

static void test_errors(void **state)
{
    (void)state;
    clbt_for_each_device(body_errors);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_own_layouts),
        cmocka_unit_test(test_broadcast_inner),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_empty_sum),
        cmocka_unit_test(test_long_inner),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
