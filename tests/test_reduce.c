/* Reductions and sum_to_shape on every device against the host backend:
 * random cases (fixed seed) over every op and dtype, shapes up to 5-D with
 * permuted and broadcast views, zero-size and 0-d tensors, keepdim, negative
 * axes; the seed's per-channel statistics and batch-norm; the float32
 * accuracy bound on 2^24 elements; sum_to_shape against its definition; the
 * CPU fast paths' edge shapes and accuracy, forced on every device. */
#include "testutil.h"

#include <math.h>
#include <stdbool.h>

#define NUM_RANDOM 2000

/* ---- values ------------------------------------------------------------------ */

static uint16_t double_to_half(double v) /* for the small exact values the tests use */
{
    if (isnan(v)) return 0x7E00;
    uint16_t sign = v < 0 ? 0x8000 : 0;
    v = fabs(v);
    if (v == 0) return sign;
    int e;
    double f = frexp(v, &e); /* v = f * 2^e, f in [0.5, 1) */
    int m = (int)lrint((f * 2 - 1) * 1024);
    if (m == 1024) m = 0, e++;
    return (uint16_t)(sign | ((e + 14) << 10) | m);
}

/* Fills n random elements of dtype t. op decides the range: products stay near 1,
   and for floats some NaN go in (MAX/MIN must propagate them). */
static void fill_random(void *buf, clb_dtype t, int64_t n, clb_reduce_op op, uint64_t *rng)
{
    bool nan_ok = (clbt_rand(rng) % 8) == 0;
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = clbt_rand(rng);
        int64_t small = op == CLB_PROD ? (int64_t)(r % 3) - 1 : (int64_t)(r % 201) - 100;
        double f = op == CLB_PROD ? 0.75 + (double)(r % 1024) / 2048.0
                                  : ((double)(r % 4096) - 2048.0) / 512.0;
        if (nan_ok && r % 97 == 0) f = NAN;
        switch (t) {
        case CLB_BOOL: ((uint8_t *)buf)[i] = (uint8_t)((r >> 7) & 1); break;
        case CLB_INT8: ((int8_t *)buf)[i] = (int8_t)small; break;
        case CLB_UINT8: ((uint8_t *)buf)[i] = (uint8_t)(r >> 20); break;
        case CLB_INT16: ((int16_t *)buf)[i] = (int16_t)(small * 37); break;
        case CLB_UINT16: ((uint16_t *)buf)[i] = (uint16_t)(r >> 30); break;
        case CLB_INT32: ((int32_t *)buf)[i] = (int32_t)(r >> 33) - (1 << 30); break; /* wraps in products */
        case CLB_UINT32: ((uint32_t *)buf)[i] = (uint32_t)(r >> 32); break;
        case CLB_INT64: ((int64_t *)buf)[i] = (int64_t)r; break;
        case CLB_UINT64: ((uint64_t *)buf)[i] = r; break;
        case CLB_FLOAT16: ((uint16_t *)buf)[i] = double_to_half(f); break;
        case CLB_FLOAT32: ((float *)buf)[i] = (float)f; break;
        default: ((double *)buf)[i] = f; break;
        }
    }
}

/* Compares device result d with host result h (same shape and dtype). For float
   sums the bound scales with the number of elements folded. */
static void assert_matches(const clb_tensor *d, const clb_tensor *h, int64_t count,
                           const char *what)
{
    clb_dtype t = clb_tensor_dtype(h);
    double rtol = t == CLB_FLOAT16 ? 2e-3 : t == CLB_FLOAT32 ? 2e-6 : 1e-12;
    double atol = t == CLB_FLOAT16 ? 1e-2 : t == CLB_FLOAT32 ? 1e-6 * (double)count : 1e-12 * (double)count;
    clbt_assert_matches_host(d, h, rtol, atol, what);
}

static int device_has_fp64(clb_context *ctx)
{
    clb_device_info info;
    CLBT_OK(clb_context_get_info(ctx, &info));
    return info.has_fp64;
}

/* ---- one random case ------------------------------------------------------------ */

typedef struct rcase {
    int ndim;
    int64_t shape[5];
    clb_dtype dtype;
    clb_reduce_op op;
    int view;      /* 0 contiguous, 1 permuted, 2 broadcast */
    int naxes;     /* -1: axes NULL */
    int axes[5];
    int keepdim;
    int perm[5];
    int64_t base_shape[5]; /* view 2: shape before expanding (1 on broadcast axes) */
} rcase;

static void make_case(rcase *c, uint64_t *rng)
{
    static const int64_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 13, 16, 33};
    memset(c, 0, sizeof *c);
    c->ndim = (int)(clbt_rand(rng) % 6);
    int64_t numel = 1;
    for (int d = 0; d < c->ndim; d++) {
        int64_t s = sizes[clbt_rand(rng) % 10];
        if (clbt_rand(rng) % 40 == 0) s = 0;
        if (numel * s > 6000) s = 1;
        c->shape[d] = s;
        numel *= s > 0 ? s : 1;
    }
    c->dtype = (clb_dtype)(clbt_rand(rng) % 12);
    c->op = (clb_reduce_op)(clbt_rand(rng) % 5);
    c->view = c->ndim >= 2 ? (int)(clbt_rand(rng) % 3) : (int)(clbt_rand(rng) % 2) * 2;
    if (c->ndim == 0) c->view = 0;
    c->keepdim = (int)(clbt_rand(rng) % 2);
    if (clbt_rand(rng) % 6 == 0) {
        c->naxes = -1;
    } else {
        for (int d = 0; d < c->ndim; d++)
            if (clbt_rand(rng) % 2) c->axes[c->naxes++] = clbt_rand(rng) % 2 ? d : d - c->ndim;
    }
    for (int d = 0; d < c->ndim; d++) c->perm[d] = d;
    for (int d = c->ndim - 1; d > 0; d--) {
        int j = (int)(clbt_rand(rng) % (uint64_t)(d + 1)), t = c->perm[d];
        c->perm[d] = c->perm[j], c->perm[j] = t;
    }
    for (int d = 0; d < c->ndim; d++)
        c->base_shape[d] = clbt_rand(rng) % 2 ? 1 : c->shape[d];
}

/* The case's input on ctx: a view of the requested kind over data. */
static clb_tensor *make_input(clb_context *ctx, const rcase *c, const void *data)
{
    clb_tensor *base = NULL, *v = NULL;
    if (c->view == 0) return clbt_tensor(ctx, c->dtype, c->ndim, c->shape, data);
    if (c->view == 1) {
        /* Stored as the permuted shape, then viewed back: a transposed layout. */
        int64_t stored[5];
        int inv[5];
        for (int d = 0; d < c->ndim; d++) stored[d] = c->shape[c->perm[d]], inv[c->perm[d]] = d;
        base = clbt_tensor(ctx, c->dtype, c->ndim, stored, data);
        CLBT_OK(clb_permute(base, inv, &v));
    } else {
        base = clbt_tensor(ctx, c->dtype, c->ndim, c->base_shape, data);
        CLBT_OK(clb_expand(base, c->ndim, c->shape, &v));
    }
    clb_tensor_release(base);
    return v;
}

static int64_t case_count(const rcase *c)
{
    int64_t count = 1;
    bool red[5] = {false};
    for (int i = 0; i < c->naxes; i++) red[(c->axes[i] + c->ndim) % (c->ndim ? c->ndim : 1)] = true;
    for (int d = 0; d < c->ndim; d++)
        if (c->naxes < 0 || red[d]) count *= c->shape[d];
    return count;
}

static void run_case(clb_context *ctx, clb_context *host, const rcase *c, uint64_t *rng, int idx)
{
    int64_t numel = 1;
    for (int d = 0; d < c->ndim; d++) numel *= c->view == 2 ? c->base_shape[d] : c->shape[d];
    size_t bytes = (size_t)(numel > 0 ? numel : 1) * clb_dtype_size(c->dtype);
    void *data = malloc(bytes);
    assert_non_null(data);
    fill_random(data, c->dtype, numel, c->op, rng);
    clb_tensor *xd = make_input(ctx, c, data), *xh = make_input(host, c, data);
    clb_tensor *rd = NULL, *rh = NULL;
    const int *axes = c->naxes < 0 ? NULL : c->axes;
    int naxes = c->naxes < 0 ? 0 : c->naxes;
    clb_status sh = clb_reduce(c->op, xh, naxes, axes, c->keepdim, &rh);
    clb_status sd = clb_reduce(c->op, xd, naxes, axes, c->keepdim, &rd);
    char what[160];
    snprintf(what, sizeof what, "case %d: %s of %s, ndim %d, view %d, naxes %d, keepdim %d", idx,
             clb_reduce_op_name(c->op), clb_dtype_name(c->dtype), c->ndim, c->view, c->naxes,
             c->keepdim);
    if (sd == CLB_ERR_DTYPE && !device_has_fp64(ctx)) {
        /* float64 results on a device without cl_khr_fp64: refused with a message. */
        assert_true(strstr(clb_last_error(), "fp64") != NULL);
    } else if (sh != CLB_OK) {
        if (sd != sh) fail_msg("%s: host %s, device %s", what, clb_status_name(sh), clb_status_name(sd));
    } else {
        if (sd != CLB_OK) fail_msg("%s: %s: %s", what, clb_status_name(sd), clb_last_error());
        assert_matches(rd, rh, case_count(c), what);
    }
    clb_tensor_release(rd);
    clb_tensor_release(rh);
    clb_tensor_release(xd);
    clb_tensor_release(xh);
    free(data);
}

static void body_random(clb_context *ctx, const char *sel)
{
    (void)sel;
    clb_context *host = clbt_host();
    uint64_t rng = 20240601;
    int cases = clbt_is_simulator(ctx) ? NUM_RANDOM / 20 : NUM_RANDOM;
    for (int i = 0; i < cases; i++) {
        rcase c;
        make_case(&c, &rng);
        run_case(ctx, host, &c, &rng, i);
    }
    clb_context_release(host);
}

static void test_random(void **state)
{
    (void)state;
    clbt_for_each_device(body_random);
}

/* ---- larger reductions: two passes, row/column fast paths ---------------------------- */

static void compare_op(clb_context *ctx, clb_context *host, clb_reduce_op op, clb_dtype dt,
                       int ndim, const int64_t *shape, int naxes, const int *axes, int keepdim,
                       uint64_t *rng)
{
    rcase c = {.ndim = ndim, .dtype = dt, .op = op, .naxes = naxes, .keepdim = keepdim};
    memcpy(c.shape, shape, (size_t)ndim * sizeof *shape);
    memcpy(c.axes, axes, (size_t)naxes * sizeof *axes);
    run_case(ctx, host, &c, rng, -1);
}

static void body_large(clb_context *ctx, const char *sel)
{
    (void)sel;
    if (clbt_is_simulator(ctx)) return; /* the accuracy case reaches the second pass there */
    clb_context *host = clbt_host();
    uint64_t rng = 7;
    const int64_t rows[2] = {300, 1000}, cols[2] = {1000, 300}, chan[4] = {16, 3, 40, 40};
    const int ax1[1] = {1}, ax0[1] = {0}, ax023[3] = {0, 2, 3};
    for (int op = 0; op < 5; op++) {
        compare_op(ctx, host, (clb_reduce_op)op, CLB_FLOAT32, 2, rows, 1, ax1, 0, &rng);
        compare_op(ctx, host, (clb_reduce_op)op, CLB_FLOAT32, 2, cols, 1, ax0, 1, &rng);
        compare_op(ctx, host, (clb_reduce_op)op, CLB_INT32, 4, chan, 3, ax023, 1, &rng);
        compare_op(ctx, host, (clb_reduce_op)op, CLB_FLOAT16, 4, chan, 0, ax0, 0, &rng);
    }
    /* Shapes the CPU fast paths take (contiguous rows / 16-wide columns), float dtypes. */
    const int64_t wide_rows[2] = {40, 4096}, tall[2] = {1000, 64}, img[4] = {8, 3, 64, 64};
    const clb_dtype floats[3] = {CLB_FLOAT32, CLB_FLOAT64, CLB_FLOAT16};
    for (int f = 0; f < 3; f++) {
        for (int op = 0; op < 2; op++) {
            compare_op(ctx, host, (clb_reduce_op)op, floats[f], 2, wide_rows, 1, ax1, 1, &rng);
            compare_op(ctx, host, (clb_reduce_op)op, floats[f], 2, tall, 1, ax0, 0, &rng);
            compare_op(ctx, host, (clb_reduce_op)op, floats[f], 4, img, 3, ax023, 1, &rng);
        }
    }
    clb_context_release(host);
}

/* More than 8 kept or reduced axes after coalescing: the stride tables travel
   in a buffer instead of by value. A permuted 10-D tensor of 2s keeps its axes. */
static void body_high_rank(clb_context *ctx, const char *sel)
{
    (void)sel;
    clb_context *host = clbt_host();
    uint64_t rng = 11;
    const int64_t shape[10] = {2, 2, 2, 2, 2, 2, 2, 2, 2, 2};
    const int perm[10] = {9, 0, 8, 1, 7, 2, 6, 3, 5, 4};
    float data[1024];
    for (int i = 0; i < 1024; i++) data[i] = (float)(clbt_rand(&rng) % 64) / 8.0f;
    clb_context *ctxs[2] = {ctx, host};
    clb_tensor *r[2][2] = {{NULL, NULL}, {NULL, NULL}};
    const int odd[5] = {1, 3, 5, 7, 9};
    for (int q = 0; q < 2; q++) {
        clb_tensor *t = clbt_tensor(ctxs[q], CLB_FLOAT32, 10, shape, data), *p = NULL;
        CLBT_OK(clb_permute(t, perm, &p));
        CLBT_OK(clb_reduce(CLB_MAX, p, 5, odd, 1, &r[q][0]));  /* 5 kept, 5 reduced */
        CLBT_OK(clb_reduce(CLB_SUM, p, 0, odd, 0, &r[q][1]));  /* 10 kept: table in a buffer */
        clb_tensor_release(p);
        clb_tensor_release(t);
    }
    assert_matches(r[0][0], r[1][0], 32, "max over 5 of 10 permuted axes");
    assert_matches(r[0][1], r[1][1], 1, "sum over no axis of 10 permuted axes");
    for (int q = 0; q < 2; q++) clb_tensor_release(r[q][0]), clb_tensor_release(r[q][1]);
    clb_context_release(host);
}

static void test_high_rank(void **state)
{
    (void)state;
    clbt_for_each_device(body_high_rank);
}

static void test_large(void **state)
{
    (void)state;
    clbt_for_each_device(body_large);
}

/* float32 sum of 2^24 elements within 1e-5 relative of the float64 sum. */
static void body_accuracy(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t n = (int64_t)1 << (clbt_is_simulator(ctx) ? 16 : 24);
    float *x = malloc((size_t)n * sizeof *x);
    assert_non_null(x);
    uint64_t rng = 99;
    double exact = 0;
    for (int64_t i = 0; i < n; i++) {
        x[i] = (float)(clbt_rand(&rng) >> 40) / (float)(1 << 24) + 0.5f;
        exact += x[i];
    }
    clb_tensor *t = clbt_tensor(ctx, CLB_FLOAT32, 1, &n, x), *s = NULL;
    CLBT_OK(clb_reduce(CLB_SUM, t, 0, NULL, 0, &s));
    float *got = clbt_read(s);
    double rel = fabs(got[0] - exact) / exact;
    if (rel > 1e-5) fail_msg("sum = %.9g, float64 sum %.9g: relative error %.3g", got[0], exact, rel);
    free(got);
    clb_tensor_release(s);
    clb_tensor_release(t);
    free(x);
}

static void test_accuracy(void **state)
{
    (void)state;
    clbt_for_each_device(body_accuracy);
}

/* ---- CPU fast paths: contiguous rows, tiled columns ----------------------------------- */

/* CLB_REDUCE_FAST forces the CPU fast paths of src/opencl/cl_reduce.c on (1) or off (0)
   on any device; NULL restores the default (CPU devices only). */
static void force_fast(const char *v)
{
    if (v) setenv("CLB_REDUCE_FAST", v, 1);
    else unsetenv("CLB_REDUCE_FAST");
}

/* Shapes each fast path takes, with their edges: one row, fewer rows than a
   block of eight, row tails, several bands (two passes), tiles of 4096 with a
   16-wide last tile, several kept and reduced axes (the row walk wraps inside a
   block), long rows, permuted and broadcast (stride-0 rows) views; every op and float
   dtype (the fast paths take SUM and MEAN, the rest must still be right). */
static void body_fast_paths(clb_context *ctx, const char *sel)
{
    (void)sel;
    clb_context *host = clbt_host();
    uint64_t rng = 515;
    bool sim = clbt_is_simulator(ctx);
    static const struct {
        int ndim;
        int64_t shape[4];
        int naxes;
        int axes[3];
        int view;           /* 0 contiguous, 1 permuted (perm), 2 broadcast (base) */
        int perm[4];
        int64_t base[4];
        bool big;           /* skipped on the simulator */
    } cases[] = {
        /* columns: kept innermost contiguous */
        {2, {1, 16}, 1, {0}, 0, {0}, {0}, false},
        {2, {7, 32}, 1, {0}, 0, {0}, {0}, false},
        {2, {9, 48}, 1, {-2}, 0, {0}, {0}, false},
        {2, {130, 16}, 1, {0}, 0, {0}, {0}, false},
        {2, {1000, 64}, 1, {0}, 0, {0}, {0}, true},
        {2, {77, 4112}, 1, {0}, 0, {0}, {0}, true},
        {4, {4, 3, 5, 32}, 2, {0, 2}, 0, {0}, {0}, false},
        {2, {64, 40}, 1, {1}, 1, {1, 0}, {0}, false},
        {2, {100, 64}, 1, {0}, 2, {0}, {1, 64}, false},
        {3, {6, 20, 32}, 1, {1}, 2, {0}, {6, 1, 32}, false},
        /* rows: innermost reduced axis contiguous */
        {2, {3, 64}, 1, {1}, 0, {0}, {0}, false},
        {2, {1, 80}, 1, {-1}, 0, {0}, {0}, false},
        {3, {5, 7, 80}, 2, {0, 2}, 0, {0}, {0}, false},
        {4, {6, 3, 8, 64}, 3, {0, 2, 3}, 0, {0}, {0}, true},
        {3, {4, 3, 64}, 2, {0, 2}, 2, {0}, {1, 3, 64}, false},
        {2, {300, 128}, 1, {1}, 0, {0}, {0}, true},
        /* long rows (one item each), with a 128-block and a 16-tail */
        {2, {2, 20624}, 1, {1}, 0, {0}, {0}, true},
        /* long rows, three to an output: one row an item, partials folded after */
        {3, {3, 2, 16400}, 2, {0, 2}, 0, {0}, {0}, true},
        /* one row too few for the items: split into 40 rows of 4112 */
        {1, {164480}, 1, {0}, 0, {0}, {0}, true},
    };
    const clb_dtype floats[3] = {CLB_FLOAT32, CLB_FLOAT16, CLB_FLOAT64};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        if (sim && cases[k].big) continue;
        for (int f = 0; f < 3; f++) {
            for (int op = 0; op < 5; op++) {
                /* On the simulator: SUM and MEAN only (one program family). */
                if (sim && op > CLB_MEAN) continue;
                /* The fast paths take SUM and MEAN, on each float dtype; MAX, MIN and
                   PROD take the general kernels, checked here on float32 and on
                   every dtype by test_random's 2000 cases (each op and dtype is a
                   program to compile, three times over). */
                if (f > 0 && op > CLB_MEAN) continue;
                rcase c = {.ndim = cases[k].ndim, .dtype = floats[f], .op = (clb_reduce_op)op,
                           .naxes = cases[k].naxes, .keepdim = (int)((k + (size_t)op) % 2),
                           .view = cases[k].view};
                memcpy(c.shape, cases[k].shape, sizeof c.shape);
                memcpy(c.axes, cases[k].axes, sizeof c.axes);
                memcpy(c.perm, cases[k].perm, sizeof c.perm);
                memcpy(c.base_shape, cases[k].base, sizeof c.base_shape);
                run_case(ctx, host, &c, &rng, (int)k);
            }
        }
    }
    clb_context_release(host);
}

/* The fast paths on every device (forced on), the other kernels on the same
   shapes (forced off), then each device's default. */
static void test_fast_paths(void **state)
{
    (void)state;
    force_fast("1");
    clbt_for_each_device(body_fast_paths);
    force_fast("0");
    clbt_for_each_device(body_fast_paths);
    force_fast(NULL);
    clbt_for_each_device(body_fast_paths);
}

/* The fast paths read with plain vector loads where a row starts aligned for
   them (the column path: all eight rows of a block), else with the unaligned
   form (cl/reduce.cl). Columns 4.. of (20, 100) rows start 16 (float32) or 32
   (float64) bytes past an aligned address in even rows and aligned in odd
   ones, so each launch takes both forms: row sums of columns 4..67, column
   sums of columns 4..35 (two blocks of eight rows and a tail of four), sums
   and means, fast paths forced on. */
static void body_fast_rows_unaligned(clb_context *ctx, const char *sel)
{
    (void)sel;
    clb_context *host = clbt_host();
    const int64_t shape[2] = {20, 100};
    double xd[2000];
    float xf[2000];
    uint64_t rng = 77;
    for (int i = 0; i < 2000; i++)
        xf[i] = (float)(xd[i] = (double)(clbt_rand(&rng) >> 40) / (double)(1 << 24) - 0.25);
    for (int f = 0; f < 2; f++) {
        clb_dtype dt = f ? CLB_FLOAT64 : CLB_FLOAT32;
        if (f && !clbt_has_fp64(ctx)) continue;
        for (int k = 0; k < 4; k++) {
            const int axis[1] = {k < 2 ? 1 : 0};
            clb_reduce_op op = k % 2 ? CLB_MEAN : CLB_SUM;
            clb_tensor *t[2], *v[2] = {NULL, NULL}, *r[2] = {NULL, NULL};
            clb_context *on[2] = {ctx, host};
            for (int d = 0; d < 2; d++) {
                t[d] = clbt_tensor(on[d], dt, 2, shape, f ? (const void *)xd : (const void *)xf);
                CLBT_OK(clb_slice(t[d], 1, 4, k < 2 ? 68 : 36, 1, &v[d]));
                CLBT_OK(clb_reduce(op, v[d], 1, axis, 0, &r[d]));
            }
            clbt_assert_matches_host(r[0], r[1], f ? 1e-12 : 1e-5, 1e-6,
                                     k < 2 ? "unaligned rows" : "unaligned columns");
            for (int d = 0; d < 2; d++) {
                clb_tensor_release(r[d]);
                clb_tensor_release(v[d]);
                clb_tensor_release(t[d]);
            }
        }
    }
    clb_context_release(host);
}

static void test_fast_rows_unaligned(void **state)
{
    (void)state;
    force_fast("1");
    clbt_for_each_device(body_fast_rows_unaligned);
    force_fast(NULL);
}

/* The accuracy bound through the fast paths: float32 column sums of (2^20, 16)
   and per-channel sums of (16, 4, 2^18), 2^24 elements each, every output
   within 1e-5 relative of the float64 sum. */
static void body_fast_accuracy(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t n = (int64_t)1 << (clbt_is_simulator(ctx) ? 14 : 24);
    float *x = malloc((size_t)n * sizeof *x);
    double exact[16];
    assert_non_null(x);
    uint64_t rng = 1234;
    for (int64_t i = 0; i < n; i++) x[i] = (float)(clbt_rand(&rng) >> 40) / (float)(1 << 24) + 0.5f;
    for (int layout = 0; layout < 2; layout++) {
        /* layout 0: (n / 16, 16) over axis 0; 1: (16, 4, n / 64) over axes (0, 2). */
        const int64_t cols_shape[2] = {n / 16, 16}, chan_shape[3] = {16, 4, n / 64};
        const int ax0[1] = {0}, ax02[2] = {0, 2};
        int outputs = layout == 0 ? 16 : 4;
        for (int o = 0; o < outputs; o++) exact[o] = 0;
        for (int64_t i = 0; i < n; i++) exact[layout == 0 ? i % 16 : (i / (n / 64)) % 4] += x[i];
        clb_tensor *t = layout == 0 ? clbt_tensor(ctx, CLB_FLOAT32, 2, cols_shape, x)
                                    : clbt_tensor(ctx, CLB_FLOAT32, 3, chan_shape, x);
        clb_tensor *s = NULL;
        CLBT_OK(clb_reduce(CLB_SUM, t, layout == 0 ? 1 : 2, layout == 0 ? ax0 : ax02, 0, &s));
        float *got = clbt_read(s);
        for (int o = 0; o < outputs; o++) {
            double rel = fabs(got[o] - exact[o]) / exact[o];
            if (rel > 1e-5)
                fail_msg("layout %d output %d: sum = %.9g, float64 sum %.9g: relative error %.3g",
                         layout, o, got[o], exact[o], rel);
        }
        free(got);
        clb_tensor_release(s);
        clb_tensor_release(t);
    }
    free(x);
}

static void test_fast_accuracy(void **state)
{
    (void)state;
    force_fast("1");
    clbt_for_each_device(body_fast_accuracy);
    force_fast(NULL);
}

/* ---- empty reductions -------------------------------------------------------------- */

static void body_empty(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t shape[2] = {3, 0};
    clb_tensor *x = NULL, *r = NULL;
    CLBT_OK(clb_tensor_empty(ctx, CLB_FLOAT32, 2, shape, &x));
    const int ax[1] = {-1};
    const float want[3] = {0, 1, NAN};
    const clb_reduce_op ops[3] = {CLB_SUM, CLB_PROD, CLB_MEAN};
    for (int i = 0; i < 3; i++) {
        CLBT_OK(clb_reduce(ops[i], x, 1, ax, 0, &r));
        float *v = clbt_read(r);
        for (int j = 0; j < 3; j++)
            if (!(v[j] == want[i] || (isnan(want[i]) && isnan(v[j]))))
                fail_msg("%s of an empty axis gave %g", clb_reduce_op_name(ops[i]), (double)v[j]);
        free(v);
        clb_tensor_release(r);
    }
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_reduce(CLB_MAX, x, 1, ax, 0, &r));
    assert_null(r);
    assert_non_null(strstr(clb_last_error(), "zero-size array to reduction operation maximum"));
    clb_tensor_release(x);
}

static void test_empty(void **state)
{
    (void)state;
    clbt_for_each_device(body_empty);
}

/* ---- seeds: per-channel statistics and batch-norm ---------------------------------------- */

/* x (10,3,32,32): mean over (0,2,3) keepdim -> (1,3,1,1), then x - mean. */
static void body_channel_stats(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t shape[4] = {10, 3, 32, 32}, n = 10 * 3 * 32 * 32;
    float *x = malloc((size_t)n * sizeof *x);
    assert_non_null(x);
    double sums[3] = {0};
    for (int64_t i = 0; i < n; i++) {
        int c = (int)((i / 1024) % 3);
        x[i] = (float)c * 10.0f + (float)(i % 17) * 0.25f;
        sums[c] += x[i];
    }
    clb_tensor *t = clbt_tensor(ctx, CLB_FLOAT32, 4, shape, x), *m = NULL, *centred = NULL;
    const int axes[3] = {0, 2, 3};
    CLBT_OK(clb_reduce(CLB_MEAN, t, 3, axes, 1, &m));
    const int64_t want_shape[4] = {1, 3, 1, 1};
    clbt_assert_shape(m, 4, want_shape);
    float *mv = clbt_read(m);
    for (int c = 0; c < 3; c++) assert_float_equal(mv[c], sums[c] / (n / 3), 1e-4);
    clb_status s = clb_binary(CLB_SUB, t, m, &centred);
    if (s == CLB_OK) {
        clbt_assert_shape(centred, 4, shape);
        float *cv = clbt_read(centred);
        for (int64_t i = 0; i < n; i += 97)
            assert_float_equal(cv[i], x[i] - mv[(i / 1024) % 3], 1e-4);
        free(cv);
    } else {
        fail_msg("x - mean: %s: %s", clb_status_name(s), clb_last_error());
    }
    free(mv);
    clb_tensor_release(centred);
    clb_tensor_release(m);
    clb_tensor_release(t);
    free(x);
}

static void test_channel_stats(void **state)
{
    (void)state;
    clbt_for_each_device(body_channel_stats);
}

/* Batch-norm statistics: x (B, C), mu and var of shape (C,) over axis 0, then
   (x - mu) / sqrt(var + eps) where element-wise ops are available. */
static void body_batch_norm(clb_context *ctx, const char *sel)
{
    (void)sel;
    enum { B = 64, C = 5 };
    const int64_t shape[2] = {B, C};
    float x[B * C];
    for (int i = 0; i < B * C; i++) x[i] = (float)((i * 7919) % 101) / 10.0f + (float)(i % C);
    clb_tensor *t = clbt_tensor(ctx, CLB_FLOAT32, 2, shape, x);
    clb_tensor *mu = NULL, *d = NULL, *sq = NULL, *var = NULL;
    const int ax[1] = {0};
    CLBT_OK(clb_reduce(CLB_MEAN, t, 1, ax, 0, &mu));
    const int64_t cshape[1] = {C};
    clbt_assert_shape(mu, 1, cshape);
    float *m = clbt_read(mu);
    double want_var[C] = {0};
    for (int c = 0; c < C; c++) {
        double s = 0;
        for (int b = 0; b < B; b++) s += x[b * C + c];
        assert_float_equal(m[c], s / B, 1e-4);
        for (int b = 0; b < B; b++) want_var[c] += (x[b * C + c] - s / B) * (x[b * C + c] - s / B) / B;
    }
    clb_status s = clb_binary(CLB_SUB, t, mu, &d);
    if (s == CLB_OK) s = clb_binary(CLB_MUL, d, d, &sq);
    if (s == CLB_OK) {
        CLBT_OK(clb_reduce(CLB_MEAN, sq, 1, ax, 0, &var));
        float *v = clbt_read(var);
        for (int c = 0; c < C; c++) assert_float_equal(v[c], want_var[c], 1e-3);
        free(v);
    } else {
        fail_msg("x - mu: %s: %s", clb_status_name(s), clb_last_error());
    }
    free(m);
    clb_tensor_release(var);
    clb_tensor_release(sq);
    clb_tensor_release(d);
    clb_tensor_release(mu);
    clb_tensor_release(t);
}

static void test_batch_norm(void **state)
{
    (void)state;
    clbt_for_each_device(body_batch_norm);
}

/* ---- sum_to_shape --------------------------------------------------------------------- */

/* Random (S, s) pairs where s broadcasts to S: the result must equal the
   definition, computed here on the host buffer, for int64 (exact) and float32. */
static void body_sum_to_shape(clb_context *ctx, const char *sel)
{
    (void)sel;
    uint64_t rng = 4242;
    int cases = clbt_is_simulator(ctx) ? 40 : 200;
    for (int it = 0; it < cases; it++) {
        int nd = 1 + (int)(clbt_rand(&rng) % 5), snd = (int)(clbt_rand(&rng) % (uint64_t)(nd + 1));
        int64_t S[5], s[5], n = 1;
        for (int d = 0; d < nd; d++) {
            S[d] = 1 + (int64_t)(clbt_rand(&rng) % 5);
            n *= S[d];
        }
        int lead = nd - snd;
        for (int d = 0; d < snd; d++) s[d] = clbt_rand(&rng) % 2 ? 1 : S[lead + d];
        clb_dtype dt = it % 2 ? CLB_FLOAT32 : CLB_INT64;
        int64_t *gi = malloc((size_t)n * sizeof *gi);
        float *gf = malloc((size_t)n * sizeof *gf);
        int64_t sn = 1;
        for (int d = 0; d < snd; d++) sn *= s[d];
        double *want = calloc((size_t)sn, sizeof *want);
        assert_true(gi && gf && want);
        for (int64_t i = 0; i < n; i++) {
            gi[i] = (int64_t)(clbt_rand(&rng) % 1000) - 500;
            gf[i] = (float)gi[i] / 8.0f;
            /* Definition: the element of s that element i of S was broadcast from. */
            int64_t rem = i, src = 0, mult = 1;
            for (int d = nd - 1; d >= 0; d--) {
                int64_t idx = rem % S[d];
                rem /= S[d];
                int sd = d - lead;
                if (sd < 0) continue;
                if (s[sd] != 1) src += idx * mult;
                mult *= s[sd];
            }
            want[src] += dt == CLB_FLOAT32 ? (double)gf[i] : (double)gi[i];
        }
        clb_tensor *g = clbt_tensor(ctx, dt, nd, S, dt == CLB_FLOAT32 ? (void *)gf : (void *)gi);
        clb_tensor *r = NULL;
        CLBT_OK(clb_sum_to_shape(g, snd, s, &r));
        clbt_assert_shape(r, snd, s);
        void *got = clbt_read(r);
        for (int64_t j = 0; j < sn; j++) {
            double v = dt == CLB_FLOAT32 ? ((float *)got)[j] : (double)((int64_t *)got)[j];
            if (fabs(v - want[j]) > 1e-3)
                fail_msg("sum_to_shape case %d element %lld = %g, expected %g", it, (long long)j, v,
                         want[j]);
        }
        free(got);
        clb_tensor_release(r);
        clb_tensor_release(g);
        free(gi);
        free(gf);
        free(want);
    }
}

static void test_sum_to_shape(void **state)
{
    (void)state;
    clbt_for_each_device(body_sum_to_shape);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random),         cmocka_unit_test(test_large),
        cmocka_unit_test(test_high_rank),
        cmocka_unit_test(test_accuracy),       cmocka_unit_test(test_empty),
        cmocka_unit_test(test_channel_stats),  cmocka_unit_test(test_batch_norm),
        cmocka_unit_test(test_sum_to_shape),   cmocka_unit_test(test_fast_paths),
        cmocka_unit_test(test_fast_rows_unaligned),
        cmocka_unit_test(test_fast_accuracy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
