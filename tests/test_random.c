/* clb_random_uniform / clb_random_normal: the Philox4x32-10 known answer
 * (Random123's kat_vectors), one stream on every device (uniform bit for bit,
 * normal within a few ulp of the host's), offsets (n then n more at offset n
 * == 2n), ranges, statistics of large draws (mean, variance, Kolmogorov-Smirnov,
 * chi-square, neighbouring elements and seeds uncorrelated) and the errors. */
#include "testutil.h"

#include <math.h>

#include "../cl/random.h"

static void test_philox_known_answer(void **state)
{
    (void)state;
    clb_u32 w[4];
    clb_philox(0, 0, w); /* philox4x32 10 rounds, counter 0, key 0 */
    assert_true(w[0] == 0x6627e8d5u && w[1] == 0xe169c58du && w[2] == 0xbc57ac4cu &&
                w[3] == 0x9b00dbd8u);
}

static float *draw_f32(clb_context *ctx, bool normal, int64_t n, uint64_t seed, uint64_t offset,
                       double a, double b)
{
    clb_tensor *t = NULL;
    CLBT_OK(normal ? clb_random_normal(ctx, CLB_FLOAT32, 1, &n, seed, offset, a, b, &t)
                   : clb_random_uniform(ctx, CLB_FLOAT32, 1, &n, seed, offset, a, b, &t));
    float *v = clbt_read(t);
    clb_tensor_release(t);
    return v;
}

/* The host's element i is the map of the words of its Philox call, G elements
   sharing one call, the calls in lanes of 16 (cl/random.h): slot k of call
   (lane) l of block b is element b * 64 + k * 16 + l. */
static void test_host_is_the_formula(void **state)
{
    (void)state;
    clb_context *h = clbt_host();
    const int64_t n = 150; /* from inside block 0 across blocks 1 and 2 */
    float *u = draw_f32(h, false, n, 42, 7, 0, 1), *z = draw_f32(h, true, n, 42, 7, 0, 1);
    for (int i = 0; i < n; i++) {
        uint64_t j = 7 + (uint64_t)i, counter; /* one Philox call per 4 uniforms or 4 normals */
        const int k = clb_rng_locate(j, 4, &counter);
        assert_true(counter == j / 64 * 16 + j % 16 && k == (int)(j % 64 / 16));
        clb_u32 w[4];
        clb_philox(counter, 42, w);
        assert_true(u[i] == (float)(w[k] >> 8) * 0x1p-24f);
        assert_true(z[i] == clb_rng_normalf(w[k & 2], w[(k & 2) + 1], k & 1));
    }
    free(u);
    free(z);
    clb_context_release(h);
}

/* The float32 normal's own log and sine/cosine (cl/random.h) against libm's in
   double: within 2 ulp of float over every angle's quadrant and the range of u1. */
static void test_normal_formula_accuracy(void **state)
{
    (void)state;
    double worst_log = 0, worst_trig = 0;
    for (clb_u32 m = 1; m <= (1u << 24); m += (m < 4096 ? 1u : 4093u)) {
        const double want = -2.0 * log((double)m * 0x1p-24);
        const float got = clb_rng_m2log(m);
        const double ulp = want > 0 ? nextafterf((float)want, INFINITY) - (float)want : 0x1p-149;
        const double err = fabs(got - want) / ulp;
        if (err > worst_log) worst_log = err;
    }
    assert_true(clb_rng_m2log(1u << 24) == 0.0f);
    for (clb_u32 t = 0; t < (1u << 24); t += 997u) {
        float c, s;
        clb_rng_sincos(t, &c, &s);
        const double a = 6.283185307179586476925 * (double)t * 0x1p-24;
        const double ec = fabs(c - cos(a)) / 0x1p-24, es = fabs(s - sin(a)) / 0x1p-24;
        if (ec > worst_trig) worst_trig = ec;
        if (es > worst_trig) worst_trig = es;
    }
    print_message("normal formula: -2 ln(u1) within %.2f ulp, cos/sin within %.2f x 2^-24\n",
                  worst_log, worst_trig);
    assert_true(worst_log <= 2.0);
    assert_true(worst_trig <= 2.0);
}

#if CLB_HAVE_OPENCL
extern _Atomic int clb__cl_map_blocked; /* src/opencl/cl_launch.h: 1 CPU form, 0 GPU form */
/* src/opencl/cl_launch.h: whether the device runs a work-group as a loop (PoCL's
   CPU devices), where the float32 draws' vector lanes fuse the normal's
   multiply-adds (cl/generate.cl's CLB_V_FMA) */
bool clb__cl_launch_style(clb_device_type type, const char *platform, unsigned quirks);
#endif

/* Units in the last place between float32 tensors a and b, the most over
   their elements (0 where every bit agrees). */
static int64_t max_ulp_f32(const clb_tensor *a, const clb_tensor *b)
{
    const int64_t n = clb_tensor_numel(a);
    float *x = clbt_read(a), *y = clbt_read(b);
    int64_t worst = 0;
    for (int64_t i = 0; i < n; i++) {
        int32_t u, v;
        memcpy(&u, &x[i], sizeof u);
        memcpy(&v, &y[i], sizeof v);
        /* the bit patterns on one monotonic integer line */
        const int64_t p = u < 0 ? -(int64_t)(u & 0x7fffffff) : u;
        const int64_t q = v < 0 ? -(int64_t)(v & 0x7fffffff) : v;
        const int64_t d = p > q ? p - q : q - p;
        if (d > worst) worst = d;
    }
    free(x);
    free(y);
    return worst;
}

/* Every device draws the host's stream. */
static void devices_body(clb_context *ctx, const char *selector)
{
    clb_context *h = clbt_host();
    const int64_t shape[2] = {317, 129};
    const clb_dtype dts[3] = {CLB_FLOAT16, CLB_FLOAT32, CLB_FLOAT64};
    /* offset 99: a block begun; float16/32 also at an offset whose counters
       cross 2^32 (the vector lanes' carry), with a 64-bit seed, [0, 1) and the
       standard normal (the lanes' shortcuts) and whole 64-byte stores; float16
       and float32 each in both of the device's forms too (a call a work item,
       a block on vector lanes) */
    const uint64_t offs[2] = {99, ((uint64_t)1 << 34) - 16}, seeds[2] = {1234, 0x123456789abcULL};
    const double ua[2] = {-1.0, 0.0}, ub[2] = {3.0, 1.0}, na[2] = {1.5, 0.0}, nb[2] = {2.0, 1.0};
    clb_device_info info;
    CLBT_OK(clb_context_get_info(ctx, &info));
    const bool cpu = info.type == CLB_DEVICE_CPU;
#if CLB_HAVE_OPENCL
    const bool fuses = clb__cl_launch_style(info.type, info.platform, 0);
#else
    const bool fuses = false;
#endif
    for (int j = 0; j < 10; j++) {
        /* j % 5: the three dtypes in the device's own form, then the two forms
           forced: float16 at offset 99, float32 at the second offset */
        const int o = j / 5, k = j % 5 < 3 ? j % 5 : o;
        if (o == 1 && dts[k] == CLB_FLOAT64) continue;
#if CLB_HAVE_OPENCL
        clb__cl_map_blocked = j % 5 < 3 ? -1 : j % 5 - 3;
#endif
        for (int normal = 0; normal < 2; normal++) {
            clb_tensor *g = NULL, *w = NULL;
            const uint64_t off = offs[o], seed = seeds[o];
            const double a = normal ? na[o] : ua[o], b = normal ? nb[o] : ub[o];
            clb_status st = normal ? clb_random_normal(ctx, dts[k], 2, shape, seed, off, a, b, &g)
                                   : clb_random_uniform(ctx, dts[k], 2, shape, seed, off, a, b, &g);
            if (dts[k] == CLB_FLOAT64 && !CLBT_F64(ctx, st)) continue;
            CLBT_OK(st);
            CLBT_OK(normal ? clb_random_normal(h, dts[k], 2, shape, seed, off, a, b, &w)
                           : clb_random_uniform(h, dts[k], 2, shape, seed, off, a, b, &w));
            char what[96];
            snprintf(what, sizeof what, "%s %s at offset %llu on %s", normal ? "normal" : "uniform",
                     clb_dtype_name(dts[k]), (unsigned long long)off, selector);
            /* uniform: bit for bit; normal float16/32 (cl/random.h's own log and
               sin/cos) too where sqrt rounds correctly, as on CPU devices, except
               float32 on PoCL's vector lanes (fused multiply-adds); float64 (the
               device's log/cos) and other devices' float32: a few ulp */
            const bool fused = dts[k] == CLB_FLOAT32 && fuses && j % 5 != 3;
            const bool exact_normal = cpu && dts[k] != CLB_FLOAT64 && !fused;
            double rtol = dts[k] == CLB_FLOAT16 ? 1e-3 : dts[k] == CLB_FLOAT32 ? 1e-6 : 1e-14;
            clbt_assert_matches_host(g, w, normal && !exact_normal ? rtol : CLBT_EXACT,
                                     normal && !exact_normal ? rtol : 0, what);
            /* the standard normal (o == 1): within 4 ulp of the host's where the
               arithmetic is IEEE's (CPU devices; measured: 3 at most over 2^24
               values on PoCL, 99 % of them exact) */
            if (normal && cpu && o == 1 && dts[k] == CLB_FLOAT32) {
                const int64_t ulp = max_ulp_f32(g, w);
                if (ulp > 4) fail_msg("%s: %lld ulp from the host's", what, (long long)ulp);
            }
            clb_tensor_release(g);
            clb_tensor_release(w);
        }
    }
#if CLB_HAVE_OPENCL
    clb__cl_map_blocked = -1;
#endif
    /* n then n more at offset n is one draw of 2n */
    const int64_t n = 1000, n2 = 2000;
    clb_tensor *a = NULL, *b = NULL, *ab = NULL, *both = NULL;
    CLBT_OK(clb_random_uniform(ctx, CLB_FLOAT32, 1, &n, 5, 0, 0, 1, &a));
    CLBT_OK(clb_random_uniform(ctx, CLB_FLOAT32, 1, &n, 5, 1000, 0, 1, &b));
    CLBT_OK(clb_random_uniform(ctx, CLB_FLOAT32, 1, &n2, 5, 0, 0, 1, &ab));
    const clb_tensor *parts[2] = {a, b};
    CLBT_OK(clb_concat(2, parts, 0, &both));
    clbt_assert_matches_host(both, ab, CLBT_EXACT, 0, "offsets");
    clb_tensor_release(a);
    clb_tensor_release(b);
    clb_tensor_release(ab);
    clb_tensor_release(both);
    clb_context_release(h);
}

static void test_devices_draw_the_host_stream(void **state)
{
    (void)state;
    clbt_for_each_device(devices_body);
}

static int cmp_float(const void *x, const void *y)
{
    float a = *(const float *)x, b = *(const float *)y;
    return (a > b) - (a < b);
}

/* Kolmogorov-Smirnov distance of sorted v from cdf. */
static double ks(float *v, int64_t n, double (*cdf)(double))
{
    qsort(v, (size_t)n, sizeof *v, cmp_float);
    double d = 0;
    for (int64_t i = 0; i < n; i++) {
        double f = cdf(v[i]), lo = f - (double)i / n, hi = (double)(i + 1) / n - f;
        d = fmax(d, fmax(lo, hi));
    }
    return d;
}

static double uniform_cdf(double x) { return x < 0 ? 0 : x > 1 ? 1 : x; }
static double normal_cdf(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

static double corr(const float *a, const float *b, int64_t n)
{
    double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;
    for (int64_t i = 0; i < n; i++) ma += a[i], mb += b[i];
    ma /= n, mb /= n;
    for (int64_t i = 0; i < n; i++) {
        sab += (a[i] - ma) * (b[i] - mb);
        saa += (a[i] - ma) * (a[i] - ma);
        sbb += (b[i] - mb) * (b[i] - mb);
    }
    return sab / sqrt(saa * sbb);
}

static void moments(const float *v, int64_t n, double *mean, double *var)
{
    double m = 0, s = 0;
    for (int64_t i = 0; i < n; i++) m += v[i];
    m /= n;
    for (int64_t i = 0; i < n; i++) s += (v[i] - m) * (v[i] - m);
    *mean = m;
    *var = s / (n - 1);
}

/* 2^20 draws (fixed seeds, so the bounds below are checked once, not flaky):
   mean and variance within 6 standard errors, the KS distance under the 1 %
   critical value 1.63 / sqrt(n), chi-square of 100 bins under its 0.1 % point,
   lag-1 and neighbouring-seed correlations under 5 / sqrt(n). */
static void test_statistics(void **state)
{
    (void)state;
    clb_context *h = clbt_host();
    const int64_t n = 1 << 20;
    const double se = 1.0 / sqrt((double)n);
    float *u = draw_f32(h, false, n, 2024, 0, 0, 1), *u2 = draw_f32(h, false, n, 2025, 0, 0, 1);
    double mean, var;
    moments(u, n, &mean, &var);
    assert_true(fabs(mean - 0.5) < 6 * sqrt(1.0 / 12) * se);
    assert_true(fabs(var - 1.0 / 12) < 6 * sqrt(1.0 / 180) * se);
    int64_t bins[100] = {0};
    for (int64_t i = 0; i < n; i++) {
        assert_true(u[i] >= 0 && u[i] < 1);
        bins[(int)(u[i] * 100)]++;
    }
    double chi2 = 0, e = n / 100.0;
    for (int b = 0; b < 100; b++) chi2 += (bins[b] - e) * (bins[b] - e) / e;
    assert_true(chi2 < 148.2); /* chi-square(99) at 0.1 % */
    assert_true(fabs(corr(u, u + 1, n - 1)) < 5 * se);
    assert_true(fabs(corr(u, u2, n)) < 5 * se);
    assert_true(ks(u, n, uniform_cdf) < 1.63 * se);

    float *z = draw_f32(h, true, n, 7, 0, 0, 1), *z2 = draw_f32(h, true, n, 8, 0, 0, 1);
    moments(z, n, &mean, &var);
    assert_true(fabs(mean) < 6 * se);
    assert_true(fabs(var - 1) < 6 * sqrt(2.0) * se);
    assert_true(fabs(corr(z, z + 1, n - 1)) < 5 * se);
    assert_true(fabs(corr(z, z2, n)) < 5 * se);
    assert_true(ks(z, n, normal_cdf) < 1.63 * se);
    free(u);
    free(u2);
    free(z);
    free(z2);
    clb_context_release(h);
}

static void test_ranges_and_errors(void **state)
{
    (void)state;
    clb_context *h = clbt_host();
    const int64_t n = 4096;
    clb_tensor *t = NULL;
    /* float16 over a narrow range: every value in [low, high) */
    CLBT_OK(clb_random_uniform(h, CLB_FLOAT16, 1, &n, 3, 0, 1.0, 1.01, &t));
    uint16_t *hv = clbt_read(t);
    for (int64_t i = 0; i < n; i++) {
        double x = clbt_half_to_double(hv[i]);
        assert_true(x >= 1.0 && x < 1.01);
    }
    free(hv);
    clb_tensor_release(t);
    CLBT_OK(clb_random_normal(h, CLB_FLOAT64, 0, NULL, 3, 0, 0, 0, &t)); /* 0-d, std 0 */
    double *dv = clbt_read(t);
    assert_true(dv[0] == 0);
    free(dv);
    clb_tensor_release(t);
    t = (clb_tensor *)h;
    CLBT_FAILS(CLB_ERR_DTYPE, clb_random_uniform(h, CLB_INT32, 1, &n, 0, 0, 0, 1, &t));
    assert_null(t);
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_random_uniform(h, CLB_FLOAT32, 1, &n, 0, 0, 1, 1, &t));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_random_uniform(h, CLB_FLOAT32, 1, &n, 0, 0, 0, NAN, &t));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_random_normal(h, CLB_FLOAT32, 1, &n, 0, 0, 0, -1, &t));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_random_normal(NULL, CLB_FLOAT32, 1, &n, 0, 0, 0, 1, &t));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_random_normal(h, CLB_FLOAT32, 1, &n, 0, 0, 0, 1, NULL));
    assert_null(t);
    assert_int_equal(clb_memory_allocated(h), 0);
    clb_context_release(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_philox_known_answer),
        cmocka_unit_test(test_host_is_the_formula),
        cmocka_unit_test(test_normal_formula_accuracy),
        cmocka_unit_test(test_statistics),
        cmocka_unit_test(test_ranges_and_errors),
        cmocka_unit_test(test_devices_draw_the_host_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
