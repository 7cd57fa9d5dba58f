/* Every worked example of the seed tutorials (shared/seeds/), end to end on
 * every device: every step must work everywhere, except float64 results on a
 * device without float64, which must be refused as the dtype policy says
 * (CLBT_F64). */
#include "testutil.h"

#include <math.h>

/* ---- step helpers ------------------------------------------------------------ */

/* 1 if the op ran; otherwise the test fails (0 then skips the rest of the body). */
static int step_ran(const clb_context *ctx, clb_status s, const char *what)
{
    if (s == CLB_OK) return 1;
    fail_msg("%s on %s -> %s: %s", what, clb_context_device_name(ctx), clb_status_name(s),
             clb_last_error());
    return 0;
}
/* A non-NULL pointer that a failing call must overwrite with NULL. */
#define GARBAGE_INIT() ((clb_tensor *)(uintptr_t)0x5A5A5A5A)

#define STEP(expr)                                                                                 \
    do {                                                                                           \
        if (!step_ran(ctx, (expr), #expr)) goto done;                                              \
    } while (0)

/* 1 if the op failed with `want` (and a message); otherwise the test fails. */
static int step_failed(const clb_context *ctx, clb_status s, clb_status want, const char *what)
{
    if (s == want) {
        if (clb_last_error()[0] == '\0') fail_msg("%s: %s without a message", what, clb_status_name(s));
        return 1;
    }
    fail_msg("%s on %s -> %s, expected %s: %s", what, clb_context_device_name(ctx),
             clb_status_name(s), clb_status_name(want), clb_last_error());
    return 0;
}

/* ---- reference helpers -------------------------------------------------------- */

static int64_t numel_of(int ndim, const int64_t *shape)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    return n;
}

/* The element of an operand of (nd, shape) that output element `i` of
   (ondim, oshape) reads: seed 000's j_k = i_k if a_k = c_k, 0 if a_k = 1. */
static int64_t src_index(int ondim, const int64_t *oshape, int64_t i, int nd, const int64_t *shape)
{
    int64_t src = 0, mult = 1;
    for (int d = ondim - 1; d >= 0; d--) {
        int64_t idx = i % oshape[d];
        i /= oshape[d];
        int sd = d - (ondim - nd);
        if (sd < 0) continue;
        if (shape[sd] != 1) src += idx * mult;
        mult *= shape[sd];
    }
    return src;
}

static float *read_f32(const clb_tensor *t)
{
    assert_int_equal(clb_tensor_dtype(t), CLB_FLOAT32);
    return clbt_read(t);
}

static void assert_close_f32(const clb_tensor *t, const double *want, int64_t n, double rtol,
                             double atol)
{
    assert_int_equal(clb_tensor_numel(t), n);
    float *got = read_f32(t);
    for (int64_t i = 0; i < n; i++) {
        double g = got[i], w = want[i];
        if (!(fabs(g - w) <= atol + rtol * fabs(w)))
            fail_msg("element %lld = %.9g, expected %.9g", (long long)i, g, w);
    }
    free(got);
}

static void assert_exact_f32(const clb_tensor *t, const float *want, int64_t n)
{
    assert_int_equal(clb_tensor_numel(t), n);
    float *got = read_f32(t);
    for (int64_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("element %lld = %g, expected %g", (long long)i, (double)got[i], (double)want[i]);
    free(got);
}

static void assert_exact_i64(const clb_tensor *t, const int64_t *want, int64_t n)
{
    assert_int_equal(clb_tensor_dtype(t), CLB_INT64);
    assert_int_equal(clb_tensor_numel(t), n);
    int64_t *got = clbt_read(t);
    for (int64_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("element %lld = %lld, expected %lld", (long long)i, (long long)got[i],
                     (long long)want[i]);
    free(got);
}

static clb_tensor *f32_tensor(clb_context *ctx, int ndim, const int64_t *shape, const float *v)
{
    return clbt_tensor(ctx, CLB_FLOAT32, ndim, shape, v);
}

static clb_tensor *f32_scalar(clb_context *ctx, float v)
{
    return clbt_tensor(ctx, CLB_FLOAT32, 0, NULL, &v);
}

/* ---- seed 001: the three rules' worked examples --------------------------------- */

/* A = torch.ones(4, 3); B = [10, 20, 30]; A + B = [[11, 21, 31]] * 4 */
static void body_4x3_plus_3(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t s43[2] = {4, 3}, s3[1] = {3};
    float ones[12];
    for (int i = 0; i < 12; i++) ones[i] = 1;
    const float bv[3] = {10, 20, 30};
    clb_tensor *a = f32_tensor(ctx, 2, s43, ones), *b = f32_tensor(ctx, 1, s3, bv);
    clb_tensor *bb = NULL, *r = NULL;
    /* rule 1 + 2 as a view: (3,) -> (1,3) -> (4,3), B's row repeated 4 times */
    CLBT_OK(clb_broadcast_to(b, 2, s43, &bb));
    assert_int_equal(clb_tensor_strides(bb)[0], 0);
    const float brows[12] = {10, 20, 30, 10, 20, 30, 10, 20, 30, 10, 20, 30};
    assert_exact_f32(bb, brows, 12);

    STEP(clb_binary(CLB_ADD, a, b, &r));
    clbt_assert_shape(r, 2, s43);
    const float want[12] = {11, 21, 31, 11, 21, 31, 11, 21, 31, 11, 21, 31};
    assert_exact_f32(r, want, 12);
done:
    clb_tensor_release(r);
    clb_tensor_release(bb);
    clb_tensor_release(a);
    clb_tensor_release(b);
}

static void test_4x3_plus_3(void **state)
{
    (void)state;
    clbt_for_each_device(body_4x3_plus_3);
}

/* A = [[1],[2],[3]]; B = [[10,20,30,40]]; A + B is the outer sum (int64, as torch.tensor). */
static void body_3x1_plus_1x4(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t s31[2] = {3, 1}, s14[2] = {1, 4}, s34[2] = {3, 4};
    const int64_t av[3] = {1, 2, 3}, bv[4] = {10, 20, 30, 40};
    clb_tensor *a = clbt_tensor(ctx, CLB_INT64, 2, s31, av);
    clb_tensor *b = clbt_tensor(ctx, CLB_INT64, 2, s14, bv);
    clb_tensor *r = NULL;
    /* both stretched as views: A along columns, B along rows */
    {
        const clb_tensor *in[2] = {a, b};
        clb_tensor *out[2] = {NULL, NULL};
        size_t m0 = clb_memory_allocated(ctx);
        CLBT_OK(clb_broadcast_tensors(2, in, out));
        assert_int_equal(clb_memory_allocated(ctx), m0);
        const int64_t wa[12] = {1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3};
        const int64_t wb[12] = {10, 20, 30, 40, 10, 20, 30, 40, 10, 20, 30, 40};
        assert_exact_i64(out[0], wa, 12);
        assert_exact_i64(out[1], wb, 12);
        clb_tensor_release(out[0]);
        clb_tensor_release(out[1]);
    }
    STEP(clb_binary(CLB_ADD, a, b, &r));
    clbt_assert_shape(r, 2, s34);
    const int64_t want[12] = {11, 21, 31, 41, 12, 22, 32, 42, 13, 23, 33, 43};
    assert_exact_i64(r, want, 12);
done:
    clb_tensor_release(r);
    clb_tensor_release(a);
    clb_tensor_release(b);
}

static void test_3x1_plus_1x4(void **state)
{
    (void)state;
    clbt_for_each_device(body_3x1_plus_1x4);
}

/* seed 001: tensor([1,2,3]) + tensor(2) = [3,4,5]; seed 004 example 1: tensor(5) +
   randn(3,4) is (3,4); example 2: [1,2,3] + randn(4,3) is (4,3). */
static void body_scalar_plus_vector(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t s3[1] = {3}, s34[2] = {3, 4}, s43[2] = {4, 3};
    const int64_t av[3] = {1, 2, 3}, two = 2, five = 5;
    float mv[12];
    for (int i = 0; i < 12; i++) mv[i] = (float)i * 0.5f - 2.0f;
    clb_tensor *a = clbt_tensor(ctx, CLB_INT64, 1, s3, av);
    clb_tensor *b = clbt_tensor(ctx, CLB_INT64, 0, NULL, &two);
    clb_tensor *s5 = clbt_tensor(ctx, CLB_INT64, 0, NULL, &five);
    clb_tensor *m34 = f32_tensor(ctx, 2, s34, mv), *m43 = f32_tensor(ctx, 2, s43, mv);
    clb_tensor *r = NULL, *r2 = NULL, *r3 = NULL, *c64 = NULL;
    /* the scalar "copied" to [2,2,2] is a view */
    {
        clb_tensor *bb = NULL;
        CLBT_OK(clb_broadcast_to(b, 1, s3, &bb));
        const int64_t w[3] = {2, 2, 2};
        assert_exact_i64(bb, w, 3);
        assert_int_equal(clb_tensor_strides(bb)[0], 0);
        clb_tensor_release(bb);
    }
    STEP(clb_binary(CLB_ADD, a, b, &r));
    clbt_assert_shape(r, 1, s3);
    const int64_t want[3] = {3, 4, 5};
    assert_exact_i64(r, want, 3);

    /* int64 scalar + float32 matrix: NumPy 2 (no value-based casting) promotes by dtype */
    if (!CLBT_F64(ctx, clb_binary(CLB_ADD, s5, m34, &r2))) goto done;
    clbt_assert_shape(r2, 2, s34);
    assert_int_equal(clb_tensor_dtype(r2), clb_promote_types(CLB_INT64, CLB_FLOAT32));
    CLBT_OK(clb_cast(r2, CLB_FLOAT64, &c64));
    {
        double *got = clbt_read(c64);
        for (int i = 0; i < 12; i++)
            if (got[i] != (double)mv[i] + 5.0) fail_msg("5 + m[%d] = %g", i, got[i]);
        free(got);
    }
    clb_tensor_release(c64);
    c64 = NULL;
    if (!CLBT_F64(ctx, clb_binary(CLB_ADD, a, m43, &r3))) goto done;
    clbt_assert_shape(r3, 2, s43);
    CLBT_OK(clb_cast(r3, CLB_FLOAT64, &c64));
    {
        double *got = clbt_read(c64);
        for (int i = 0; i < 12; i++)
            if (got[i] != (double)mv[i] + (double)av[i % 3]) fail_msg("v + m[%d] = %g", i, got[i]);
        free(got);
    }
done:
    clb_tensor_release(c64);
    clb_tensor_release(r);
    clb_tensor_release(r2);
    clb_tensor_release(r3);
    clb_tensor_release(a);
    clb_tensor_release(b);
    clb_tensor_release(s5);
    clb_tensor_release(m34);
    clb_tensor_release(m43);
}

static void test_scalar_plus_vector(void **state)
{
    (void)state;
    clbt_for_each_device(body_scalar_plus_vector);
}

/* ---- seed 004 ----------------------------------------------------------------------- */

/* example 3: (5,1,4,1) * (3,1,1) -> (5,3,4,1) */
static void body_5141_times_311(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t sa[4] = {5, 1, 4, 1}, sb[3] = {3, 1, 1}, so[4] = {5, 3, 4, 1};
    float av[20], bv[3] = {2, -1, 0.5f};
    for (int i = 0; i < 20; i++) av[i] = (float)(i - 7);
    clb_tensor *a = f32_tensor(ctx, 4, sa, av), *b = f32_tensor(ctx, 3, sb, bv), *r = NULL;
    int on = 0;
    int64_t os[CLB_MAX_DIMS];
    const int nd[2] = {4, 3};
    const int64_t *shapes[2] = {sa, sb};
    CLBT_OK(clb_broadcast_shapes(2, nd, shapes, &on, os));
    assert_int_equal(on, 4);
    for (int d = 0; d < 4; d++) assert_int_equal(os[d], so[d]);

    STEP(clb_binary(CLB_MUL, a, b, &r));
    clbt_assert_shape(r, 4, so);
    float want[60];
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 4; k++) want[(i * 3 + j) * 4 + k] = av[i * 4 + k] * bv[j];
    assert_exact_f32(r, want, 60);
done:
    clb_tensor_release(r);
    clb_tensor_release(a);
    clb_tensor_release(b);
}

static void test_5141_times_311(void **state)
{
    (void)state;
    clbt_for_each_device(body_5141_times_311);
}

/* 7.1: broadcast_to([1,2,3], (2,3)) and broadcast_tensors. */
static void body_broadcast_to_and_tensors(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t s3[1] = {3}, s23[2] = {2, 3}, s31[2] = {3, 1}, s2[1] = {2};
    const int64_t tv[3] = {1, 2, 3};
    clb_tensor *t = clbt_tensor(ctx, CLB_INT64, 1, s3, tv), *tb = NULL;
    size_t m0 = clb_memory_allocated(ctx);
    CLBT_OK(clb_broadcast_to(t, 2, s23, &tb));
    assert_int_equal(clb_memory_allocated(ctx), m0);
    const int64_t w[6] = {1, 2, 3, 1, 2, 3};
    clbt_assert_shape(tb, 2, s23);
    assert_exact_i64(tb, w, 6);
    clb_tensor_release(tb);

    /* a = [[1],[2],[3]], b = [4,5], c = [7,8,9] */
    const int64_t av[3] = {1, 2, 3}, bv[2] = {4, 5}, cv[3] = {7, 8, 9};
    clb_tensor *a = clbt_tensor(ctx, CLB_INT64, 2, s31, av);
    clb_tensor *b = clbt_tensor(ctx, CLB_INT64, 1, s2, bv);
    clb_tensor *c = clbt_tensor(ctx, CLB_INT64, 1, s3, cv), *c31 = NULL;
    clb_tensor *out[2] = {NULL, NULL};
    /* the article says (3,1) with (2,) fails: under NumPy's and PyTorch's rules it
       gives (3,2) */
    {
        const clb_tensor *in[2] = {a, b};
        CLBT_OK(clb_broadcast_tensors(2, in, out));
        const int64_t s32[2] = {3, 2};
        clbt_assert_shape(out[0], 2, s32);
        clbt_assert_shape(out[1], 2, s32);
        const int64_t w0[6] = {1, 1, 2, 2, 3, 3}, w1[6] = {4, 5, 4, 5, 4, 5};
        assert_exact_i64(out[0], w0, 6);
        assert_exact_i64(out[1], w1, 6);
        clb_tensor_release(out[0]);
        clb_tensor_release(out[1]);
    }
    /* a with c: (3,3) */
    {
        const clb_tensor *in[2] = {a, c};
        CLBT_OK(clb_broadcast_tensors(2, in, out));
        const int64_t s33[2] = {3, 3};
        clbt_assert_shape(out[0], 2, s33);
        clbt_assert_shape(out[1], 2, s33);
        const int64_t w0[9] = {1, 1, 1, 2, 2, 2, 3, 3, 3}, w1[9] = {7, 8, 9, 7, 8, 9, 7, 8, 9};
        assert_exact_i64(out[0], w0, 9);
        assert_exact_i64(out[1], w1, 9);
        clb_tensor_release(out[0]);
        clb_tensor_release(out[1]);
    }
    /* a with c.reshape(3,1): both (3,1) (the article's "(3,3)" comment is wrong) */
    {
        CLBT_OK(clb_reshape(c, 2, s31, &c31));
        const clb_tensor *in[2] = {a, c31};
        CLBT_OK(clb_broadcast_tensors(2, in, out));
        clbt_assert_shape(out[0], 2, s31);
        clbt_assert_shape(out[1], 2, s31);
        assert_exact_i64(out[0], av, 3);
        assert_exact_i64(out[1], cv, 3);
        clb_tensor_release(out[0]);
        clb_tensor_release(out[1]);
    }
    clb_tensor_release(c31);
    clb_tensor_release(a);
    clb_tensor_release(b);
    clb_tensor_release(c);
    clb_tensor_release(t);
}

static void test_broadcast_to_and_tensors(void **state)
{
    (void)state;
    clbt_for_each_device(body_broadcast_to_and_tensors);
}

/* 2.1: images (100,3,32,32) - channel means (3,1,1). */
static void body_images_minus_mean(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t si[4] = {100, 3, 32, 32}, sm[3] = {3, 1, 1};
    const int64_t n = 100 * 3 * 32 * 32;
    float *img = malloc((size_t)n * sizeof(float));
    assert_non_null(img);
    for (int64_t i = 0; i < n; i++) img[i] = (float)((i * 7 + i / 1024) % 256);
    const float mean[3] = {123.5f, 116.25f, 103.75f};
    clb_tensor *x = f32_tensor(ctx, 4, si, img), *m = f32_tensor(ctx, 3, sm, mean), *r = NULL;
    float *want = NULL;
    STEP(clb_binary(CLB_SUB, x, m, &r));
    clbt_assert_shape(r, 4, si);
    want = malloc((size_t)n * sizeof(float));
    assert_non_null(want);
    for (int64_t i = 0; i < n; i++) want[i] = img[i] - mean[(i / 1024) % 3];
    assert_exact_f32(r, want, n);
done:
    free(want);
    free(img);
    clb_tensor_release(r);
    clb_tensor_release(x);
    clb_tensor_release(m);
}

static void test_images_minus_mean(void **state)
{
    (void)state;
    clbt_for_each_device(body_images_minus_mean);
}

/* 4.1 (and seed 000 section 5): batch normalisation of (128,10) with (10,) statistics:
   (x - mean) / (std + 1e-8) with torch's unbiased std, and (x - mu) / sqrt(var + eps). */
static void body_batch_norm(clb_context *ctx, const char *sel)
{
    (void)sel;
    enum { B = 128, C = 10 };
    const int64_t sx[2] = {B, C};
    float *xv = malloc(B * C * sizeof(float));
    assert_non_null(xv);
    uint64_t rng = 7;
    for (int i = 0; i < B * C; i++)
        xv[i] = (float)((int)(clbt_rand(&rng) % 2001) - 1000) / 100.0f + (float)(i % C);
    /* double reference */
    double mu[C], var_pop[C], std_unb[C];
    for (int c = 0; c < C; c++) {
        double s = 0, ss = 0;
        for (int b = 0; b < B; b++) s += xv[b * C + c];
        mu[c] = s / B;
        for (int b = 0; b < B; b++) ss += (xv[b * C + c] - mu[c]) * (xv[b * C + c] - mu[c]);
        var_pop[c] = ss / B;
        std_unb[c] = sqrt(ss / (B - 1));
    }
    clb_tensor *x = f32_tensor(ctx, 2, sx, xv);
    clb_tensor *eps8 = f32_scalar(ctx, 1e-8f), *eps5 = f32_scalar(ctx, 1e-5f);
    clb_tensor *nm1 = f32_scalar(ctx, (float)(B - 1));
    clb_tensor *mean = NULL, *d = NULL, *sq = NULL, *ssum = NULL, *var_u = NULL, *std = NULL,
               *den = NULL, *norm = NULL, *var_p = NULL, *den2 = NULL, *root = NULL, *norm2 = NULL,
               *check = NULL;
    const int ax0[1] = {0};
    STEP(clb_reduce(CLB_MEAN, x, 1, ax0, 0, &mean));
    clbt_assert_shape(mean, 1, (const int64_t[]){C});
    assert_close_f32(mean, mu, C, 1e-4, 1e-5);
    STEP(clb_binary(CLB_SUB, x, mean, &d));
    clbt_assert_shape(d, 2, sx);
    STEP(clb_binary(CLB_MUL, d, d, &sq));
    STEP(clb_reduce(CLB_SUM, sq, 1, ax0, 0, &ssum));
    STEP(clb_binary(CLB_DIV, ssum, nm1, &var_u));
    assert_int_equal(clb_tensor_dtype(var_u), CLB_FLOAT32);
    STEP(clb_unary(CLB_SQRT, var_u, &std));
    assert_close_f32(std, std_unb, C, 1e-4, 1e-6);
    STEP(clb_binary(CLB_ADD, std, eps8, &den));
    STEP(clb_binary(CLB_DIV, d, den, &norm));
    clbt_assert_shape(norm, 2, sx);
    {
        double *want = malloc(B * C * sizeof(double));
        assert_non_null(want);
        for (int i = 0; i < B * C; i++) want[i] = (xv[i] - mu[i % C]) / (std_unb[i % C] + 1e-8);
        assert_close_f32(norm, want, B * C, 1e-4, 1e-5);
        free(want);
    }
    /* every feature of the result has mean ~0 */
    STEP(clb_reduce(CLB_MEAN, norm, 1, ax0, 0, &check));
    {
        const double zeros[C] = {0};
        assert_close_f32(check, zeros, C, 0, 1e-5);
    }
    /* x_hat = (x - mu) / sqrt(sigma^2 + eps), population variance */
    STEP(clb_reduce(CLB_MEAN, sq, 1, ax0, 0, &var_p));
    STEP(clb_binary(CLB_ADD, var_p, eps5, &den2));
    STEP(clb_unary(CLB_SQRT, den2, &root));
    STEP(clb_binary(CLB_DIV, d, root, &norm2));
    {
        double *want = malloc(B * C * sizeof(double));
        assert_non_null(want);
        for (int i = 0; i < B * C; i++)
            want[i] = (xv[i] - mu[i % C]) / sqrt(var_pop[i % C] + 1e-5);
        assert_close_f32(norm2, want, B * C, 1e-4, 1e-5);
        free(want);
    }
done:
    free(xv);
    clb_tensor *all[] = {x, eps8, eps5, nm1, mean, d, sq, ssum, var_u, std, den, norm,
                         var_p, den2, root, norm2, check};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) clb_tensor_release(all[i]);
}

static void test_batch_norm(void **state)
{
    (void)state;
    clbt_for_each_device(body_batch_norm);
}

/* 6.2: mean over (0,2,3) of (10,3,32,32): keepdim gives (1,3,1,1), which broadcasts;
   without keepdim (3,) does not (32 vs 3 at dimension 3). */
static void body_keepdim(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t sx[4] = {10, 3, 32, 32};
    const int64_t n = 10 * 3 * 32 * 32;
    float *xv = malloc((size_t)n * sizeof(float));
    assert_non_null(xv);
    for (int64_t i = 0; i < n; i++) xv[i] = (float)((i * 37) % 101) * 0.25f + (float)((i / 1024) % 3);
    double mu[3] = {0, 0, 0};
    for (int64_t i = 0; i < n; i++) mu[(i / 1024) % 3] += xv[i];
    for (int c = 0; c < 3; c++) mu[c] /= 10.0 * 32 * 32;
    clb_tensor *x = f32_tensor(ctx, 4, sx, xv);
    clb_tensor *mw = NULL, *mr = NULL, *nr = NULL, *nw = NULL, *chk = NULL;
    const int axes[3] = {0, 2, 3};
    const int neg_axes[3] = {-4, -2, -1};
    STEP(clb_reduce(CLB_MEAN, x, 3, axes, 0, &mw));
    clbt_assert_shape(mw, 1, (const int64_t[]){3});
    assert_close_f32(mw, mu, 3, 1e-4, 1e-5);
    STEP(clb_reduce(CLB_MEAN, x, 3, neg_axes, 1, &mr));
    clbt_assert_shape(mr, 4, (const int64_t[]){1, 3, 1, 1});
    assert_close_f32(mr, mu, 3, 1e-4, 1e-5);
    STEP(clb_binary(CLB_SUB, x, mr, &nr));
    clbt_assert_shape(nr, 4, sx);
    {
        float *mrv = read_f32(mr);
        float *want = malloc((size_t)n * sizeof(float));
        assert_non_null(want);
        for (int64_t i = 0; i < n; i++) want[i] = xv[i] - mrv[(i / 1024) % 3];
        assert_exact_f32(nr, want, n);
        free(want);
        free(mrv);
    }
    /* centred: every channel's mean is ~0 */
    STEP(clb_reduce(CLB_MEAN, nr, 3, axes, 1, &chk));
    {
        const double zeros[3] = {0, 0, 0};
        assert_close_f32(chk, zeros, 3, 0, 1e-3);
    }
    {
        clb_status s = clb_binary(CLB_SUB, x, mw, &nw);
        if (step_failed(ctx, s, CLB_ERR_SHAPE_MISMATCH, "x - mean_wrong")) {
            assert_null(nw);
            const char *want = "The size of tensor a (32) must match the size of tensor b (3) at "
                               "non-singleton dimension 3";
            if (!strstr(clb_last_error(), want))
                fail_msg("message \"%s\" lacks \"%s\"", clb_last_error(), want);
        }
    }
done:
    free(xv);
    clb_tensor_release(x);
    clb_tensor_release(mw);
    clb_tensor_release(mr);
    clb_tensor_release(nr);
    clb_tensor_release(nw);
    clb_tensor_release(chk);
}

static void test_keepdim(void **state)
{
    (void)state;
    clbt_for_each_device(body_keepdim);
}

/* Seed 000 section 4: z = x + y with x broadcast; dL/dx sums dL/dz over the broadcast
   axes back to x's shape (clb_sum_to_shape, torch.Tensor.sum_to_size). */
static void body_gradient(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t s3[1] = {3}, s23[2] = {2, 3};
    const float xv[3] = {1, 2, 3}, yv[6] = {10, 20, 30, 40, 50, 60};
    const float gv[6] = {1, 2, 3, 4, 5, 6};
    clb_tensor *x = f32_tensor(ctx, 1, s3, xv), *y = f32_tensor(ctx, 2, s23, yv);
    clb_tensor *g = f32_tensor(ctx, 2, s23, gv);
    clb_tensor *z = NULL, *gx = NULL, *gy = NULL, *g13 = NULL, *g21 = NULL, *g0 = NULL,
               *big = NULL, *gbig = NULL, *ref = NULL, *bad = NULL;
    STEP(clb_binary(CLB_ADD, x, y, &z));
    const float zw[6] = {11, 22, 33, 41, 52, 63};
    assert_exact_f32(z, zw, 6);
    STEP(clb_sum_to_shape(g, 1, s3, &gx));
    clbt_assert_shape(gx, 1, s3);
    const float gxw[3] = {5, 7, 9};
    assert_exact_f32(gx, gxw, 3);
    STEP(clb_sum_to_shape(g, 2, s23, &gy));
    clbt_assert_shape(gy, 2, s23);
    assert_exact_f32(gy, gv, 6);
    STEP(clb_sum_to_shape(g, 2, (const int64_t[]){1, 3}, &g13));
    clbt_assert_shape(g13, 2, (const int64_t[]){1, 3});
    assert_exact_f32(g13, gxw, 3);
    STEP(clb_sum_to_shape(g, 2, (const int64_t[]){2, 1}, &g21));
    clbt_assert_shape(g21, 2, (const int64_t[]){2, 1});
    const float g21w[2] = {6, 15};
    assert_exact_f32(g21, g21w, 2);
    STEP(clb_sum_to_shape(g, 0, NULL, &g0));
    assert_int_equal(clb_tensor_ndim(g0), 0);
    const float g0w[1] = {21};
    assert_exact_f32(g0, g0w, 1);
    /* (5,3,4) gradient of a (5,1,4) operand equals a keepdim sum over axis 1 */
    {
        const int64_t sb[3] = {5, 3, 4};
        float bv[60];
        for (int i = 0; i < 60; i++) bv[i] = (float)(i % 11) - 5;
        big = f32_tensor(ctx, 3, sb, bv);
        STEP(clb_sum_to_shape(big, 3, (const int64_t[]){5, 1, 4}, &gbig));
        const int ax1[1] = {1};
        STEP(clb_reduce(CLB_SUM, big, 1, ax1, 1, &ref));
        clbt_assert_shape(gbig, 3, (const int64_t[]){5, 1, 4});
        float *r = read_f32(ref);
        assert_exact_f32(gbig, r, 20);
        float want[20];
        for (int i = 0; i < 5; i++)
            for (int k = 0; k < 4; k++)
                want[i * 4 + k] = bv[i * 12 + k] + bv[i * 12 + 4 + k] + bv[i * 12 + 8 + k];
        assert_exact_f32(gbig, want, 20);
        free(r);
    }
    /* a shape grad was not broadcast from */
    {
        clb_status s = clb_sum_to_shape(g, 1, (const int64_t[]){4}, &bad);
        if (step_failed(ctx, s, CLB_ERR_SHAPE_MISMATCH, "sum_to_shape (2,3) -> (4,)"))
            assert_null(bad);
    }
done:
    {
        clb_tensor *all[] = {x, y, g, z, gx, gy, g13, g21, g0, big, gbig, ref, bad};
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) clb_tensor_release(all[i]);
    }
}

static void test_gradient(void **state)
{
    (void)state;
    clbt_for_each_device(body_gradient);
}

/* Reference matmul of small-integer float matrices (exact in float32). */
static void matmul_ref(int64_t batch, int64_t m, int64_t k, int64_t n, const float *a,
                       int64_t a_bstride, const float *b, int64_t b_bstride, float *out)
{
    for (int64_t p = 0; p < batch; p++)
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                float s = 0;
                for (int64_t q = 0; q < k; q++) s += a[p * a_bstride + i * k + q] * b[p * b_bstride + q * n + j];
                out[(p * m + i) * n + j] = s;
            }
}

/* 4.2: output = x @ weight.T + bias with x (32,20), weight (30,20), bias (30,). */
static void body_bias_add(clb_context *ctx, const char *sel)
{
    (void)sel;
    enum { N = 32, IN = 20, OUT = 30 };
    float xv[N * IN], wv[OUT * IN], bv[OUT], wt[IN * OUT];
    for (int i = 0; i < N * IN; i++) xv[i] = (float)((i * 5) % 7 - 3);
    for (int i = 0; i < OUT * IN; i++) wv[i] = (float)((i * 3) % 5 - 2);
    for (int i = 0; i < OUT; i++) bv[i] = (float)(i - 15) * 0.5f;
    for (int o = 0; o < OUT; o++)
        for (int i = 0; i < IN; i++) wt[i * OUT + o] = wv[o * IN + i];
    clb_tensor *x = f32_tensor(ctx, 2, (const int64_t[]){N, IN}, xv);
    clb_tensor *w = f32_tensor(ctx, 2, (const int64_t[]){OUT, IN}, wv);
    clb_tensor *b = f32_tensor(ctx, 1, (const int64_t[]){OUT}, bv);
    clb_tensor *w_t = NULL, *y = NULL, *yb = NULL;
    CLBT_OK(clb_permute(w, (const int[]){1, 0}, &w_t));
    STEP(clb_matmul(x, w_t, &y));
    clbt_assert_shape(y, 2, (const int64_t[]){N, OUT});
    float want[N * OUT];
    matmul_ref(1, N, IN, OUT, xv, 0, wt, 0, want);
    assert_exact_f32(y, want, N * OUT);
    STEP(clb_binary(CLB_ADD, y, b, &yb));
    clbt_assert_shape(yb, 2, (const int64_t[]){N, OUT});
    for (int i = 0; i < N * OUT; i++) want[i] += bv[i % OUT];
    assert_exact_f32(yb, want, N * OUT);
done:
    clb_tensor_release(x);
    clb_tensor_release(w);
    clb_tensor_release(b);
    clb_tensor_release(w_t);
    clb_tensor_release(y);
    clb_tensor_release(yb);
}

static void test_bias_add(void **state)
{
    (void)state;
    clbt_for_each_device(body_bias_add);
}

/* 7.2: batch (10,3,4) @ weights (4,5) == batch @ weights.unsqueeze(0) == einsum. */
static void body_batched_matmul(clb_context *ctx, const char *sel)
{
    (void)sel;
    float av[10 * 3 * 4], wv[4 * 5];
    for (int i = 0; i < 120; i++) av[i] = (float)((i * 7) % 9 - 4);
    for (int i = 0; i < 20; i++) wv[i] = (float)((i * 3) % 7 - 3);
    clb_tensor *a = f32_tensor(ctx, 3, (const int64_t[]){10, 3, 4}, av);
    clb_tensor *w = f32_tensor(ctx, 2, (const int64_t[]){4, 5}, wv);
    clb_tensor *w1 = NULL, *r1 = NULL, *r2 = NULL;
    CLBT_OK(clb_unsqueeze(w, 0, &w1));
    float want[150];
    matmul_ref(10, 3, 4, 5, av, 12, wv, 0, want);
    STEP(clb_matmul(a, w, &r1));
    clbt_assert_shape(r1, 3, (const int64_t[]){10, 3, 5});
    assert_exact_f32(r1, want, 150);
    STEP(clb_matmul(a, w1, &r2));
    clbt_assert_shape(r2, 3, (const int64_t[]){10, 3, 5});
    assert_exact_f32(r2, want, 150);
done:
    clb_tensor_release(a);
    clb_tensor_release(w);
    clb_tensor_release(w1);
    clb_tensor_release(r1);
    clb_tensor_release(r2);
}

static void test_batched_matmul(void **state)
{
    (void)state;
    clbt_for_each_device(body_batched_matmul);
}

/* 3.2 example 4 and 6.1: the errors, and the two fixes of the (5,4) + (3,) trap. */
static void body_errors(clb_context *ctx, const char *sel)
{
    (void)sel;
    float v[20];
    for (int i = 0; i < 20; i++) v[i] = (float)i;
    clb_tensor *c = f32_tensor(ctx, 2, (const int64_t[]){3, 4}, v);
    clb_tensor *d = f32_tensor(ctx, 2, (const int64_t[]){2, 4}, v);
    clb_tensor *A = f32_tensor(ctx, 2, (const int64_t[]){5, 4}, v);
    clb_tensor *B = f32_tensor(ctx, 1, (const int64_t[]){3}, (const float[]){1, 2, 3});
    clb_tensor *B4 = f32_tensor(ctx, 1, (const int64_t[]){4}, (const float[]){1, 2, 3, 4});
    clb_tensor *B5 = f32_tensor(ctx, 1, (const int64_t[]){5}, (const float[]){1, 2, 3, 4, 5});
    clb_tensor *B51 = NULL, *B13 = NULL, *r = GARBAGE_INIT(), *rows = NULL, *cols = NULL;
    size_t m0 = clb_memory_allocated(ctx);
    /* (3,4) + (2,4) */
    if (step_failed(ctx, clb_binary(CLB_ADD, c, d, &r), CLB_ERR_SHAPE_MISMATCH, "(3,4) + (2,4)")) {
        const char *want = "The size of tensor a (3) must match the size of tensor b (2) at "
                           "non-singleton dimension 0";
        if (!strstr(clb_last_error(), want))
            fail_msg("message \"%s\" lacks \"%s\"", clb_last_error(), want);
    }
    assert_null(r);
    assert_int_equal(clb_memory_allocated(ctx), m0);
    /* (5,4) + (3,) */
    r = GARBAGE_INIT();
    if (step_failed(ctx, clb_binary(CLB_ADD, A, B, &r), CLB_ERR_SHAPE_MISMATCH, "(5,4) + (3,)")) {
        const char *want = "The size of tensor a (4) must match the size of tensor b (3) at "
                           "non-singleton dimension 1";
        if (!strstr(clb_last_error(), want))
            fail_msg("message \"%s\" lacks \"%s\"", clb_last_error(), want);
    }
    assert_null(r);
    /* B.reshape(1,3) does not help either */
    CLBT_OK(clb_reshape(B, 2, (const int64_t[]){1, 3}, &B13));
    r = GARBAGE_INIT();
    step_failed(ctx, clb_binary(CLB_ADD, A, B13, &r), CLB_ERR_SHAPE_MISMATCH, "(5,4) + (1,3)");
    assert_null(r);
    assert_int_equal(clb_memory_allocated(ctx), m0);
    /* fix 2: a length-4 vector goes along each row; fix 3: a (5,1) column along each column */
    CLBT_OK(clb_reshape(B5, 2, (const int64_t[]){5, 1}, &B51));
    STEP(clb_binary(CLB_ADD, A, B4, &rows));
    STEP(clb_binary(CLB_ADD, A, B51, &cols));
    clbt_assert_shape(rows, 2, (const int64_t[]){5, 4});
    clbt_assert_shape(cols, 2, (const int64_t[]){5, 4});
    {
        float wr[20], wc[20];
        for (int i = 0; i < 20; i++) {
            wr[i] = v[i] + (float)(i % 4 + 1);
            wc[i] = v[i] + (float)(i / 4 + 1);
        }
        assert_exact_f32(rows, wr, 20);
        assert_exact_f32(cols, wc, 20);
    }
done:
    {
        clb_tensor *all[] = {c, d, A, B, B4, B5, B51, B13, rows, cols};
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) clb_tensor_release(all[i]);
    }
}

static void test_errors(void **state)
{
    (void)state;
    clbt_for_each_device(body_errors);
}

/* 4.3: squared errors of (10,5) predictions, mean over the last axis, then overall. */
static void body_mse(clb_context *ctx, const char *sel)
{
    (void)sel;
    float pv[50], tv[50];
    for (int i = 0; i < 50; i++) {
        pv[i] = (float)((i * 13) % 17) * 0.25f - 2;
        tv[i] = (float)((i * 7) % 11) * 0.5f - 2.5f;
    }
    double per[10], total = 0;
    for (int s = 0; s < 10; s++) {
        double acc = 0;
        for (int j = 0; j < 5; j++) {
            double e = (double)pv[s * 5 + j] - tv[s * 5 + j];
            acc += e * e;
        }
        per[s] = acc / 5;
        total += acc;
    }
    total /= 50;
    const int64_t s105[2] = {10, 5};
    clb_tensor *p = f32_tensor(ctx, 2, s105, pv), *t = f32_tensor(ctx, 2, s105, tv);
    clb_tensor *two = f32_scalar(ctx, 2.0f);
    clb_tensor *diff = NULL, *sq = NULL, *lps = NULL, *loss = NULL, *direct = NULL;
    const int last[1] = {-1};
    STEP(clb_binary(CLB_SUB, p, t, &diff));
    STEP(clb_binary(CLB_POW, diff, two, &sq));
    clbt_assert_shape(sq, 2, s105);
    STEP(clb_reduce(CLB_MEAN, sq, 1, last, 0, &lps));
    clbt_assert_shape(lps, 1, (const int64_t[]){10});
    assert_close_f32(lps, per, 10, 1e-5, 1e-6);
    STEP(clb_reduce(CLB_MEAN, lps, 0, NULL, 0, &loss));
    assert_int_equal(clb_tensor_ndim(loss), 0);
    assert_close_f32(loss, &total, 1, 1e-5, 1e-6);
    STEP(clb_reduce(CLB_MEAN, sq, 0, NULL, 0, &direct));
    assert_int_equal(clb_tensor_ndim(direct), 0);
    assert_close_f32(direct, &total, 1, 1e-5, 1e-6);
done:
    {
        clb_tensor *all[] = {p, t, two, diff, sq, lps, loss, direct};
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) clb_tensor_release(all[i]);
    }
}

static void test_mse(void **state)
{
    (void)state;
    clbt_for_each_device(body_mse);
}

/* 5.1: base + scalar is a new tensor (no shared storage); expand is a view that is. */
static void body_views_vs_results(clb_context *ctx, const char *sel)
{
    (void)sel;
    const float bv[4] = {1, 2, 3, 4};
    clb_tensor *base = f32_tensor(ctx, 2, (const int64_t[]){2, 2}, bv);
    clb_tensor *ten = f32_scalar(ctx, 10.0f);
    clb_tensor *orig = f32_tensor(ctx, 4, (const int64_t[]){1, 5, 1, 1}, (const float[]){1, 2, 3, 4, 5});
    clb_tensor *ex = NULL, *res = NULL;
    size_t m0 = clb_memory_allocated(ctx);
    CLBT_OK(clb_expand(orig, 4, (const int64_t[]){4, 5, 32, 32}, &ex));
    assert_true(clb_tensor_shares_storage(orig, ex));
    assert_int_equal(clb_memory_allocated(ctx), m0);
    STEP(clb_binary(CLB_ADD, base, ten, &res));
    assert_false(clb_tensor_shares_storage(base, res));
    assert_int_equal(clb_memory_allocated(ctx), m0 + 16);
    const float want[4] = {11, 12, 13, 14};
    assert_exact_f32(res, want, 4);
done:
    clb_tensor_release(base);
    clb_tensor_release(ten);
    clb_tensor_release(orig);
    clb_tensor_release(ex);
    clb_tensor_release(res);
}

static void test_views_vs_results(void **state)
{
    (void)state;
    clbt_for_each_device(body_views_vs_results);
}

/* 6.3: the asserted (5,1,4) + (3,1) -> (5,3,4). */
static void body_assert_example(clb_context *ctx, const char *sel)
{
    (void)sel;
    float av[20], bv[3] = {100, 200, 300};
    for (int i = 0; i < 20; i++) av[i] = (float)i;
    clb_tensor *a = f32_tensor(ctx, 3, (const int64_t[]){5, 1, 4}, av);
    clb_tensor *b = f32_tensor(ctx, 2, (const int64_t[]){3, 1}, bv);
    clb_tensor *r = NULL;
    STEP(clb_binary(CLB_ADD, a, b, &r));
    clbt_assert_shape(r, 3, (const int64_t[]){5, 3, 4});
    float want[60];
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 4; k++) want[(i * 3 + j) * 4 + k] = av[i * 4 + k] + bv[j];
    assert_exact_f32(r, want, 60);
done:
    clb_tensor_release(a);
    clb_tensor_release(b);
    clb_tensor_release(r);
}

static void test_assert_example(void **state)
{
    (void)state;
    clbt_for_each_device(body_assert_example);
}

/* ---- the seeds' shape tables end to end -------------------------------------------- */

typedef struct table_row {
    int na;
    int64_t a[4];
    int nb;
    int64_t b[4];
    int ok;
    int nout;
    int64_t out[4];
} table_row;

/* Every row of the tables in seeds 000 and 001 (compatible and incompatible). */
static const table_row seed_rows[] = {
    /* seed 000 */
    {2, {3, 4}, 1, {4}, 1, 2, {3, 4}},
    {2, {3, 4}, 2, {3, 1}, 1, 2, {3, 4}},
    {3, {2, 3, 4}, 2, {3, 4}, 1, 3, {2, 3, 4}},
    {3, {5, 1, 4}, 3, {1, 3, 1}, 1, 3, {5, 3, 4}},
    {2, {3, 4}, 2, {4, 3}, 0, 0, {0}},
    {2, {2, 3}, 2, {2, 4}, 0, 0, {0}},
    /* seed 001 */
    {1, {3}, 1, {3}, 1, 1, {3}},
    {2, {3, 1}, 2, {1, 4}, 1, 2, {3, 4}},
    {3, {2, 3, 4}, 3, {1, 1, 4}, 1, 3, {2, 3, 4}},
    {2, {3, 4}, 2, {3, 5}, 0, 0, {0}},
    {2, {2, 3}, 1, {2}, 0, 0, {0}},
    {3, {2, 3, 4}, 2, {2, 4}, 0, 0, {0}},
};

static void body_tables(clb_context *ctx, const char *sel)
{
    (void)sel;
    for (size_t r = 0; r < sizeof seed_rows / sizeof seed_rows[0]; r++) {
        const table_row *row = &seed_rows[r];
        int64_t na = numel_of(row->na, row->a), nb = numel_of(row->nb, row->b);
        float av[64], bv[64];
        for (int64_t i = 0; i < na; i++) av[i] = (float)(i + 1);
        for (int64_t i = 0; i < nb; i++) bv[i] = (float)(100 * (i + 1));
        clb_tensor *a = f32_tensor(ctx, row->na, row->a, av), *b = f32_tensor(ctx, row->nb, row->b, bv);
        clb_tensor *out[2] = {GARBAGE_INIT(), GARBAGE_INIT()}, *sum = GARBAGE_INIT();
        const clb_tensor *in[2] = {a, b};
        if (!row->ok) {
            CLBT_FAILS(CLB_ERR_SHAPE_MISMATCH, clb_broadcast_tensors(2, in, out));
            assert_null(out[0]);
            assert_null(out[1]);
            step_failed(ctx, clb_binary(CLB_ADD, a, b, &sum), CLB_ERR_SHAPE_MISMATCH, "table row");
            assert_null(sum);
        } else {
            int64_t no = numel_of(row->nout, row->out);
            float wa[64], wb[64], ws[64];
            for (int64_t i = 0; i < no; i++) {
                wa[i] = av[src_index(row->nout, row->out, i, row->na, row->a)];
                wb[i] = bv[src_index(row->nout, row->out, i, row->nb, row->b)];
                ws[i] = wa[i] + wb[i];
            }
            /* views on every device */
            CLBT_OK(clb_broadcast_tensors(2, in, out));
            clbt_assert_shape(out[0], row->nout, row->out);
            clbt_assert_shape(out[1], row->nout, row->out);
            assert_exact_f32(out[0], wa, no);
            assert_exact_f32(out[1], wb, no);
            /* the addition where the device has it */
            sum = NULL;
            if (step_ran(ctx, clb_binary(CLB_ADD, a, b, &sum), "table row a + b")) {
                clbt_assert_shape(sum, row->nout, row->out);
                assert_exact_f32(sum, ws, no);
            }
            clb_tensor_release(out[0]);
            clb_tensor_release(out[1]);
            clb_tensor_release(sum);
        }
        clb_tensor_release(a);
        clb_tensor_release(b);
    }
}

static void test_tables(void **state)
{
    (void)state;
    clbt_for_each_device(body_tables);
}

/* ---- casts and copies the examples rely on (every device) --------------------------- */

static void body_cast_and_copy(clb_context *ctx, const char *sel)
{
    (void)sel;
    /* torch.tensor([1, 2, 3]) is int64; as float32 */
    const int64_t iv[3] = {1, 2, -3};
    clb_tensor *a = clbt_tensor(ctx, CLB_INT64, 1, (const int64_t[]){3}, iv), *f = NULL, *fb = NULL,
               *back = NULL, *rep = NULL;
    size_t m0 = clb_memory_allocated(ctx);
    CLBT_OK(clb_cast(a, CLB_FLOAT32, &f));
    assert_int_equal(clb_memory_allocated(ctx) - m0, 12);
    assert_int_equal(clb_tensor_dtype(f), CLB_FLOAT32);
    const float fw[3] = {1, 2, -3};
    assert_exact_f32(f, fw, 3);
    /* cast of a broadcast view materializes: (3,) -> (2,3) */
    CLBT_OK(clb_broadcast_to(f, 2, (const int64_t[]){2, 3}, &fb));
    CLBT_OK(clb_cast(fb, CLB_INT64, &back));
    clbt_assert_shape(back, 2, (const int64_t[]){2, 3});
    const int64_t bw[6] = {1, 2, -3, 1, 2, -3};
    assert_exact_i64(back, bw, 6);
    /* seed 004 2.2: .contiguous() persists a broadcast view into its own block */
    {
        clb_tensor *dense = NULL;
        size_t mc = clb_memory_allocated(ctx);
        CLBT_OK(clb_contiguous(fb, &dense));
        assert_int_equal(clb_memory_allocated(ctx) - mc, 6 * sizeof(float));
        assert_true(clb_tensor_is_contiguous(dense));
        assert_false(clb_tensor_shares_storage(dense, f));
        const float dw[6] = {1, 2, -3, 1, 2, -3};
        assert_exact_f32(dense, dw, 6);
        clb_tensor_release(dense);
    }
    /* the seed's repeat of [1,2,3]: physical copy, numel * itemsize bytes */
    size_t m1 = clb_memory_allocated(ctx);
    CLBT_OK(clb_repeat(a, 2, (const int64_t[]){2, 2}, &rep));
    assert_int_equal(clb_memory_allocated(ctx) - m1, 12 * 8);
    const int64_t rw[12] = {1, 2, -3, 1, 2, -3, 1, 2, -3, 1, 2, -3};
    assert_exact_i64(rep, rw, 12);
    clb_tensor_release(rep);
    clb_tensor_release(back);
    clb_tensor_release(fb);
    clb_tensor_release(f);
    clb_tensor_release(a);
}

static void test_cast_and_copy(void **state)
{
    (void)state;
    clbt_for_each_device(body_cast_and_copy);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_4x3_plus_3),
        cmocka_unit_test(test_3x1_plus_1x4),
        cmocka_unit_test(test_scalar_plus_vector),
        cmocka_unit_test(test_5141_times_311),
        cmocka_unit_test(test_broadcast_to_and_tensors),
        cmocka_unit_test(test_images_minus_mean),
        cmocka_unit_test(test_batch_norm),
        cmocka_unit_test(test_keepdim),
        cmocka_unit_test(test_gradient),
        cmocka_unit_test(test_bias_add),
        cmocka_unit_test(test_batched_matmul),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_mse),
        cmocka_unit_test(test_views_vs_results),
        cmocka_unit_test(test_assert_example),
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_cast_and_copy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
