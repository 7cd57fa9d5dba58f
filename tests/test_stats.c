/* clb_var / clb_std, clb_argmax / clb_argmin, clb_softmax / clb_log_softmax /
 * clb_logsumexp and clb_eval_reduce on every device: values computed by hand
 * (NumPy's), accuracy against float64 references computed here, every device
 * against the host backend, the errors, and clb_eval_reduce's memory on a
 * problem whose broadcast intermediate exceeds the device's largest allocation. */
#include "testutil.h"

/* One host-backend context for references, shared by every test. */
static clb_context *g_host;
static clb_context *clbt_host_shared(void)
{
    if (!g_host) g_host = clbt_host();
    return g_host;
}
static void clbt_host_shared_release(void)
{
    clb_context_release(g_host);
    g_host = NULL;
}

#define GARBAGE ((clb_tensor *)(uintptr_t)0x5A5A5A5A)
/* A failing call: the status, *out NULL, nothing allocated. */
#define EXPECT_FAIL(ctx, status, call_with_out)                                                    \
    do {                                                                                           \
        size_t m_before_ = clb_memory_allocated(ctx);                                              \
        clb_tensor *out_ = GARBAGE;                                                                \
        clb_tensor **outp_ = &out_;                                                                \
        (void)outp_;                                                                               \
        CLBT_FAILS(status, call_with_out);                                                         \
        assert_null(out_);                                                                         \
        assert_int_equal(clb_memory_allocated(ctx), m_before_);                                    \
    } while (0)

static clb_tensor *f32(clb_context *ctx, int ndim, const int64_t *shape, const float *data)
{
    return clbt_tensor(ctx, CLB_FLOAT32, ndim, shape, data);
}

/* Reads t (float32, float64 or int64) as doubles into v (n entries). */
static void read_doubles(const clb_tensor *t, double *v, int64_t n)
{
    assert_int_equal(clb_tensor_numel(t), n);
    void *buf = clbt_read(t);
    for (int64_t i = 0; i < n; i++)
        v[i] = clb_tensor_dtype(t) == CLB_INT64 ? (double)((int64_t *)buf)[i]
                                                : clbt_value_at(buf, clb_tensor_dtype(t), i);
    free(buf);
}

static void expect_values(const clb_tensor *t, const double *want, int64_t n, double rtol,
                          const char *what, const char *sel)
{
    double got[64];
    assert_true(n <= 64);
    read_doubles(t, got, n);
    for (int64_t i = 0; i < n; i++) {
        bool ok = isnan(want[i]) ? isnan(got[i])
                  : isinf(want[i]) ? got[i] == want[i]
                                   : fabs(got[i] - want[i]) <= rtol * fabs(want[i]) + 1e-30;
        if (!ok)
            fail_msg("%s on %s: element %lld is %.9g, expected %.9g", what, sel, (long long)i,
                     got[i], want[i]);
    }
}

/* A random tensor of dtype dt with values drawn from a few small integers (ties)
   or U(-2, 2), built on the host backend and copied to ctx the same way. */
static clb_tensor *random_tensor(clb_context *ctx, clb_dtype dt, int ndim, const int64_t *shape,
                                 uint64_t seed, bool ties)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    assert_non_null(v);
    uint64_t s = seed;
    for (int64_t i = 0; i < n; i++) {
        double u = (double)(clbt_rand(&s) >> 11) / 9007199254740992.0;
        v[i] = ties ? floor(u * 5.0) : u * 4.0 - 2.0;
    }
    clb_tensor *d64 = clbt_tensor(clbt_host_shared(), CLB_FLOAT64, ndim, shape, v);
    free(v);
    clb_tensor *c = NULL;
    CLBT_OK(clb_cast(d64, dt, &c));
    size_t bytes = (size_t)n * clb_dtype_size(dt);
    void *buf = clbt_read(c);
    clb_tensor *t = clbt_tensor(ctx, dt, ndim, shape, buf);
    free(buf);
    clb_tensor_release(c);
    clb_tensor_release(d64);
    (void)bytes;
    return t;
}

/* A tensor of ctx copied to the host backend (for reference results there). */
static clb_tensor *on_host(const clb_tensor *t)
{
    void *buf = clbt_read(t);
    clb_tensor *h = clbt_tensor(clbt_host_shared(), clb_tensor_dtype(t), clb_tensor_ndim(t),
                                clb_tensor_shape(t), buf);
    free(buf);
    return h;
}

/* ---- var / std ------------------------------------------------------------------ */

static void var_values_body(clb_context *ctx, const char *sel)
{
    const int64_t shape[2] = {2, 4};
    const float x[8] = {1, 2, 3, 4, 2, 4, 6, 8};
    clb_tensor *t = f32(ctx, 2, shape, x), *r = NULL;
    const int ax1[1] = {1}, ax0[1] = {0};

    CLBT_OK(clb_var(t, 1, ax1, 0, 0, &r)); /* np.var(x, axis=1) */
    const double v0[2] = {1.25, 5.0};
    assert_int_equal(clb_tensor_dtype(r), CLB_FLOAT32);
    expect_values(r, v0, 2, 1e-6, "var axis 1", sel);
    clb_tensor_release(r);

    CLBT_OK(clb_var(t, 1, ax1, 1, 1, &r)); /* np.var(x, axis=1, ddof=1, keepdims=True) */
    const double v1[2] = {5.0 / 3.0, 20.0 / 3.0};
    const int64_t kshape[2] = {2, 1};
    clbt_assert_shape(r, 2, kshape);
    expect_values(r, v1, 2, 1e-6, "var ddof 1", sel);
    clb_tensor_release(r);

    CLBT_OK(clb_std(t, 1, ax0, 0, 0, &r)); /* np.std(x, axis=0) */
    const double s0[4] = {0.5, 1.0, 1.5, 2.0};
    expect_values(r, s0, 4, 1e-6, "std axis 0", sel);
    clb_tensor_release(r);

    CLBT_OK(clb_var(t, 0, NULL, 0, 0, &r)); /* np.var(x) */
    const double all[1] = {4.6875};
    assert_int_equal(clb_tensor_ndim(r), 0);
    expect_values(r, all, 1, 1e-6, "var all", sel);
    clb_tensor_release(r);

    /* ddof >= count: NumPy divides by max(count - ddof, 0). */
    CLBT_OK(clb_var(t, 1, ax0, 2, 0, &r));
    const double inf4[4] = {INFINITY, INFINITY, INFINITY, INFINITY};
    expect_values(r, inf4, 4, 0, "var ddof = count", sel);
    clb_tensor_release(r);
    const float c[2] = {3, 3};
    const int64_t cshape[1] = {2};
    clb_tensor *ct = f32(ctx, 1, cshape, c);
    CLBT_OK(clb_var(ct, 0, NULL, 5, 0, &r));
    const double nan1[1] = {NAN};
    expect_values(r, nan1, 1, 0, "var 0/0", sel);
    clb_tensor_release(r);
    clb_tensor_release(ct);

    /* Integer input: float64 (NumPy), where the device has it. */
    const int32_t xi[8] = {1, 2, 3, 4, 2, 4, 6, 8};
    clb_tensor *ti = clbt_tensor(ctx, CLB_INT32, 2, shape, xi);
    if (CLBT_F64(ctx, clb_var(ti, 1, ax1, 0, 0, &r))) {
        assert_int_equal(clb_tensor_dtype(r), CLB_FLOAT64);
        expect_values(r, v0, 2, 1e-12, "var int32", sel);
        clb_tensor_release(r);
        r = NULL;
    }
    assert_null(r);

    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_var(t, 1, ax1, 0, 2, outp_));
    const int bad[1] = {2};
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_std(t, 1, bad, 0, 0, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_std(NULL, 0, NULL, 0, 0, outp_));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_var(t, 0, NULL, 0, 0, NULL));
    clb_tensor_release(ti);
    clb_tensor_release(t);
}

static void test_var_values(void **state)
{
    (void)state;
    clbt_for_each_device(var_values_body);
}

/* Values 1e4 + U(0, 1) in float32: relative error <= 1e-4 against float64. */
static void var_accuracy_body(clb_context *ctx, const char *sel)
{
    enum { ROWS = 16, COLS = 65536 };
    const int64_t shape[2] = {ROWS, COLS};
    float *x = malloc(sizeof(float) * ROWS * COLS);
    assert_non_null(x);
    uint64_t s = 7;
    for (int64_t i = 0; i < (int64_t)ROWS * COLS; i++)
        x[i] = (float)(1e4 + (double)(clbt_rand(&s) >> 11) / 9007199254740992.0);
    double want[ROWS], got[ROWS], sum_all = 0, sq_all = 0;
    for (int r = 0; r < ROWS; r++) {
        double m = 0, q = 0;
        for (int c = 0; c < COLS; c++) m += x[(int64_t)r * COLS + c];
        sum_all += m;
        m /= COLS;
        for (int c = 0; c < COLS; c++) {
            double d = x[(int64_t)r * COLS + c] - m;
            q += d * d;
        }
        want[r] = q / (COLS - 1);
    }
    double mean_all = sum_all / ((double)ROWS * COLS);
    for (int64_t i = 0; i < (int64_t)ROWS * COLS; i++) sq_all += (x[i] - mean_all) * (x[i] - mean_all);
    clb_tensor *t = f32(ctx, 2, shape, x), *r = NULL;
    const int ax1[1] = {1};
    CLBT_OK(clb_var(t, 1, ax1, 1, 0, &r));
    read_doubles(r, got, ROWS);
    double worst = 0;
    for (int i = 0; i < ROWS; i++) worst = fmax(worst, fabs(got[i] - want[i]) / want[i]);
    clb_tensor_release(r);
    CLBT_OK(clb_var(t, 0, NULL, 0, 0, &r));
    double g1 = 0, w1 = sq_all / ((double)ROWS * COLS);
    read_doubles(r, &g1, 1);
    worst = fmax(worst, fabs(g1 - w1) / w1);
    clb_tensor_release(r);
    print_message("var of 1e4 + U(0,1) float32 on %s: worst relative error %.3g\n", sel, worst);
    if (!(worst <= 1e-4)) fail_msg("var on %s: relative error %.3g > 1e-4", sel, worst);
    clb_tensor_release(t);
    free(x);
}

static void test_var_accuracy(void **state)
{
    (void)state;
    clbt_for_each_device(var_accuracy_body);
}

/* Every float dtype, several axis sets, against the host backend. */
static void var_host_body(clb_context *ctx, const char *sel)
{
    const int64_t shape[3] = {3, 5, 37};
    const clb_dtype dts[3] = {CLB_FLOAT16, CLB_FLOAT32, CLB_FLOAT64};
    const int sets[4][2] = {{0, 0}, {2, 0}, {0, 2}, {1, 0}};
    const int nsets[4] = {1, 1, 2, 0};
    for (int k = 0; k < 3; k++) {
        clb_tensor *t = random_tensor(ctx, dts[k], 3, shape, 11 + (uint64_t)k, false);
        clb_tensor *h = on_host(t);
        for (int a = 0; a < 4; a++) {
            const int *axes = nsets[a] ? sets[a] : NULL;
            for (int root = 0; root < 2; root++) {
                clb_tensor *got = NULL, *want = NULL;
                clb_status st = root ? clb_std(t, nsets[a], axes, 1, a & 1, &got)
                                     : clb_var(t, nsets[a], axes, 1, a & 1, &got);
                if (dts[k] == CLB_FLOAT64 && !CLBT_F64(ctx, st)) continue;
                CLBT_OK(st);
                CLBT_OK(root ? clb_std(h, nsets[a], axes, 1, a & 1, &want)
                             : clb_var(h, nsets[a], axes, 1, a & 1, &want));
                char what[128];
                snprintf(what, sizeof what, "%s %s axes set %d on %s", root ? "std" : "var",
                         clb_dtype_name(dts[k]), a, sel);
                clbt_assert_matches_host(got, want, dts[k] == CLB_FLOAT16 ? 2e-3 : 1e-5, 0, what);
                clb_tensor_release(got);
                clb_tensor_release(want);
            }
        }
        clb_tensor_release(h);
        clb_tensor_release(t);
    }
}

static void test_var_vs_host(void **state)
{
    (void)state;
    clbt_for_each_device(var_host_body);
}

/* ---- argmax / argmin ------------------------------------------------------------- */

/* argmax and argmin of t along axis (no keepdim) against the expected indices. */
static void expect_args(const clb_tensor *t, int axis, const double *imax, const double *imin,
                        int64_t n, const char *what, const char *sel)
{
    clb_tensor *r = NULL;
    char msg[96];
    CLBT_OK(clb_argmax(t, axis, 0, &r));
    snprintf(msg, sizeof msg, "argmax %s", what);
    expect_values(r, imax, n, 0, msg, sel);
    clb_tensor_release(r);
    CLBT_OK(clb_argmin(t, axis, 0, &r));
    snprintf(msg, sizeof msg, "argmin %s", what);
    expect_values(r, imin, n, 0, msg, sel);
    clb_tensor_release(r);
}

static void arg_values_body(clb_context *ctx, const char *sel)
{
    const int64_t shape[2] = {3, 4};
    const float x[12] = {1, 5, 5, 0, /* tie: first */ NAN, 2, NAN, 9, /* first NaN */ -1, -1, 3, 3};
    clb_tensor *t = f32(ctx, 2, shape, x), *r = NULL;
    CLBT_OK(clb_argmax(t, 1, 0, &r));
    assert_int_equal(clb_tensor_dtype(r), CLB_INT64);
    const double am1[3] = {1, 0, 2};
    expect_values(r, am1, 3, 0, "argmax axis 1", sel);
    clb_tensor_release(r);
    CLBT_OK(clb_argmin(t, -1, 1, &r));
    const int64_t kshape[2] = {3, 1};
    clbt_assert_shape(r, 2, kshape);
    const double an1[3] = {3, 0, 0};
    expect_values(r, an1, 3, 0, "argmin axis -1", sel);
    clb_tensor_release(r);
    const double am0[4] = {1, 0, 1, 1}, an0[4] = {1, 2, 1, 0};
    expect_args(t, 0, am0, an0, 4, "axis 0", sel);

    /* Rows long enough for the vector scan of CPU devices (16 lanes, then a tail):
       ties across lanes, the first NaN, and a NaN in the tail. */
    float lx[3 * 40];
    for (int i = 0; i < 3 * 40; i++) lx[i] = (float)(i % 7);
    lx[5] = lx[21] = 9, lx[17] = lx[2] = -3;          /* row 0: max at 5 and 21, min at 2 and 17 */
    lx[40 + 30] = lx[40 + 33] = NAN, lx[40 + 3] = 9; /* row 1: NaN at 30 (lane 14) and 33 */
    lx[80 + 38] = NAN, lx[80 + 4] = -9;              /* row 2: NaN in the tail */
    clb_tensor *tl = f32(ctx, 2, (int64_t[]){3, 40}, lx);
    const double lm[3] = {5, 30, 38}, ln[3] = {2, 30, 38};
    expect_args(tl, 1, lm, ln, 3, "of long rows", sel);
    clb_tensor_release(tl);

    /* Rows long enough for the four chains of the vector scan (vectors 4 k + c
       of a row in chain c, the first vector in every chain, the vectors after
       the last whole group of four in chain 0, then the scalar tail): ties
       in one lane (index mod 16) of several chains, where the chains' merge
       must keep the first index, NaNs in one lane of two chains, a NaN in the
       tail, a tie between chain 0's last vector and the tail. */
    float cx[4 * 200];
    for (int i = 0; i < 4 * 200; i++) cx[i] = (float)(i % 7);
    cx[69] = cx[37] = cx[117] = cx[149] = cx[198] = 9; /* row 0, lane 5: chains 3, 1, 2, 0; tail */
    cx[92] = cx[108] = cx[60] = cx[172] = -3;           /* lane 12: chains 0, 1, 2, 0 */
    cx[200 + 88] = cx[200 + 40] = NAN, cx[200 + 3] = 9; /* row 1, lane 8: chains 0 and 1 */
    cx[400 + 199] = NAN, cx[400 + 4] = -9;              /* row 2: NaN in the tail */
    cx[600 + 180] = cx[600 + 196] = 9, cx[600] = -1;    /* row 3: chain 0's last vector, tail */
    clb_tensor *tc = f32(ctx, 2, (int64_t[]){4, 200}, cx);
    const double cm[4] = {37, 40, 199, 180}, cn[4] = {60, 40, 199, 0};
    expect_args(tc, 1, cm, cn, 4, "across the scan's chains", sel);
    clb_tensor_release(tc);

    /* Few long rows: split into pieces (cl_argreduce.c's PIECE_MIN, 4 of about
       17500 here) whose results merge per row, the first best winning across
       pieces; on a loop-limited device the pieces also keep each work item's
       scan within its budget. */
    const int64_t plen = 70000;
    float *px = malloc((size_t)(2 * plen) * sizeof *px);
    assert_non_null(px);
    for (int64_t i = 0; i < 2 * plen; i++) px[i] = (float)(i % 7);
    px[100] = px[17600] = px[69990] = 9, px[35000] = px[52600] = -3; /* row 0: pieces 0, 1, 3; 1, 2 */
    px[plen + 60000] = NAN, px[plen + 5] = 9, px[plen + 6] = -9;     /* row 1: NaN in piece 3 */
    clb_tensor *tp = f32(ctx, 2, (int64_t[]){2, plen}, px);
    free(px);
    const double pm[2] = {100, 60000}, pn[2] = {35000, 60000};
    expect_args(tp, 1, pm, pn, 2, "of rows in pieces", sel);
    clb_tensor_release(tp);

    const int64_t zshape[2] = {3, 0};
    clb_tensor *z = NULL;
    CLBT_OK(clb_tensor_empty(ctx, CLB_FLOAT32, 2, zshape, &z));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_argmax(z, 1, 0, outp_));
    CLBT_OK(clb_argmax(z, 0, 0, &r)); /* (0,) of int64 */
    assert_int_equal(clb_tensor_numel(r), 0);
    clb_tensor_release(r);
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_argmax(t, 2, 0, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_argmin(t, 0, 3, outp_));
    clb_tensor_release(z);
    clb_tensor_release(t);
}

static void test_arg_values(void **state)
{
    (void)state;
    clbt_for_each_device(arg_values_body);
}

/* The second form of the scan (CLB_ARGREDUCE_LANES=64) runs on a sample of the
   dtypes: its tree merge compares as the first form does (every dtype above);
   each dtype is a program to compile. */
static bool arg_sampled_dtypes;

static bool arg_dtype_sampled(int dt)
{
    return dt == CLB_BOOL || dt == CLB_INT8 || dt == CLB_UINT64 || dt == CLB_FLOAT16 ||
           dt == CLB_FLOAT32;
}

/* Every dtype, with ties, along each axis of a permuted (non-contiguous) view. */
static void arg_host_body(clb_context *ctx, const char *sel)
{
    const int64_t shape[3] = {4, 3, 131};
    for (int dt = CLB_BOOL; dt <= CLB_FLOAT64; dt++) {
        if (arg_sampled_dtypes && !arg_dtype_sampled(dt)) continue;
        clb_tensor *t = random_tensor(ctx, (clb_dtype)dt, 3, shape, 5 + (uint64_t)dt, true);
        clb_tensor *h = on_host(t);
        for (int axis = 0; axis < 3; axis++) {
            for (int is_min = 0; is_min < 2; is_min++) {
                clb_tensor *got = NULL, *want = NULL;
                clb_status st = is_min ? clb_argmin(t, axis, 0, &got) : clb_argmax(t, axis, 0, &got);
                if (dt == CLB_FLOAT64 && !CLBT_F64(ctx, st)) continue;
                CLBT_OK(st);
                CLBT_OK(is_min ? clb_argmin(h, axis, 0, &want) : clb_argmax(h, axis, 0, &want));
                char what[128];
                snprintf(what, sizeof what, "%s %s axis %d on %s", is_min ? "argmin" : "argmax",
                         clb_dtype_name((clb_dtype)dt), axis, sel);
                clbt_assert_matches_host(got, want, CLBT_EXACT, 0, what);
                clb_tensor_release(got);
                clb_tensor_release(want);
            }
        }
        clb_tensor_release(h);
        clb_tensor_release(t);
    }
    /* Long rows of ties in pieces, the vector scan's dtype and an integer one. */
    const clb_dtype pdt[2] = {CLB_FLOAT32, CLB_INT32};
    for (int k = 0; k < 2; k++) {
        clb_tensor *t = random_tensor(ctx, pdt[k], 2, (int64_t[]){3, 40000}, 77 + (uint64_t)k, true);
        clb_tensor *h = on_host(t);
        for (int is_min = 0; is_min < 2; is_min++) {
            clb_tensor *got = NULL, *want = NULL;
            CLBT_OK(is_min ? clb_argmin(t, 1, 0, &got) : clb_argmax(t, 1, 0, &got));
            CLBT_OK(is_min ? clb_argmin(h, 1, 0, &want) : clb_argmax(h, 1, 0, &want));
            char what[128];
            snprintf(what, sizeof what, "%s of %s rows in pieces on %s", is_min ? "argmin" : "argmax",
                     clb_dtype_name(pdt[k]), sel);
            clbt_assert_matches_host(got, want, CLBT_EXACT, 0, what);
            clb_tensor_release(got);
            clb_tensor_release(want);
        }
        clb_tensor_release(h);
        clb_tensor_release(t);
    }
    /* A permuted view: argmax along its axis 0 is along the storage's last axis. */
    const int64_t s2[2] = {64, 300};
    clb_tensor *t = random_tensor(ctx, CLB_FLOAT32, 2, s2, 99, false), *p = NULL, *got = NULL;
    const int perm[2] = {1, 0};
    CLBT_OK(clb_permute(t, perm, &p));
    clb_tensor *hp = on_host(p), *want = NULL;
    CLBT_OK(clb_argmax(p, 0, 1, &got));
    CLBT_OK(clb_argmax(hp, 0, 1, &want));
    clbt_assert_matches_host(got, want, CLBT_EXACT, 0, "argmax of a permuted view");
    clb_tensor_release(got);
    clb_tensor_release(want);
    clb_tensor_release(hp);
    clb_tensor_release(p);
    clb_tensor_release(t);
}

static void test_arg_vs_host(void **state)
{
    (void)state;
    clbt_for_each_device(arg_host_body);
    /* The GPU form (64 lanes per row, merged by a tree) on every device. */
    setenv("CLB_ARGREDUCE_LANES", "64", 1);
    arg_sampled_dtypes = true;
    clbt_for_each_device(arg_host_body);
    arg_sampled_dtypes = false;
    setenv("CLB_ARGREDUCE_LANES", "7", 1); /* rounded down to 4 */
    clbt_for_each_device(arg_values_body);
    unsetenv("CLB_ARGREDUCE_LANES");
}

/* ---- softmax family ----------------------------------------------------------------- */

static void softmax_values_body(clb_context *ctx, const char *sel)
{
    const int64_t shape[2] = {3, 3};
    const float x[9] = {1, 2, 3, 1e4f, -1e4f, 0, -INFINITY, -INFINITY, -INFINITY};
    clb_tensor *t = f32(ctx, 2, shape, x), *r = NULL;
    CLBT_OK(clb_softmax(t, 1, &r));
    /* scipy.special.softmax([1, 2, 3]); the +-1e4 row; a row of -inf: nan (PyTorch). */
    const double sm[9] = {0.09003057317038046, 0.24472847105479764, 0.6652409557748219, 1, 0, 0,
                          NAN, NAN, NAN};
    expect_values(r, sm, 9, 1e-6, "softmax", sel);
    clb_tensor_release(r);
    CLBT_OK(clb_log_softmax(t, -1, &r));
    const double lsm[9] = {-2.4076059644443806, -1.4076059644443806, -0.4076059644443806, 0,
                           -2e4, -1e4, NAN, NAN, NAN};
    expect_values(r, lsm, 9, 1e-6, "log_softmax", sel);
    clb_tensor_release(r);
    const int ax1[1] = {1};
    CLBT_OK(clb_logsumexp(t, 1, ax1, 0, &r));
    const double lse[3] = {3.4076059644443806, 1e4, -INFINITY};
    expect_values(r, lse, 3, 1e-6, "logsumexp", sel);
    clb_tensor_release(r);
    CLBT_OK(clb_logsumexp(t, 0, NULL, 1, &r));
    const int64_t one[2] = {1, 1};
    clbt_assert_shape(r, 2, one);
    const double lall[1] = {1e4};
    expect_values(r, lall, 1, 1e-6, "logsumexp all", sel);
    clb_tensor_release(r);

    const int32_t xi[3] = {1, 2, 3};
    const int64_t s1[1] = {3};
    clb_tensor *ti = clbt_tensor(ctx, CLB_INT32, 1, s1, xi);
    EXPECT_FAIL(ctx, CLB_ERR_DTYPE, clb_softmax(ti, 0, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_DTYPE, clb_log_softmax(ti, 0, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_DTYPE, clb_logsumexp(ti, 0, NULL, 0, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_softmax(t, 2, outp_));
    clb_tensor_release(ti);
    clb_tensor_release(t);
}

/* CLB_MAX_DIMS dimensions (issue 26, finding 1): the (max, sum) pairs of the
   online pass once took one axis more than the input and overflowed a stack
   array. A (3, 1, ..., 1, 4) tensor, reduced along its first, its last and all
   its axes, against values computed here. */
static void softmax_max_dims_body(clb_context *ctx, const char *sel)
{
    int64_t shape[CLB_MAX_DIMS];
    for (int d = 0; d < CLB_MAX_DIMS; d++) shape[d] = 1;
    shape[0] = 3;
    shape[CLB_MAX_DIMS - 1] = 4;
    float x[12];
    for (int i = 0; i < 12; i++) x[i] = (float)((i * 7) % 5) - 1.5f;
    clb_tensor *t = f32(ctx, CLB_MAX_DIMS, shape, x), *r = NULL;
    const int axes[3] = {0, CLB_MAX_DIMS - 1, -1};
    for (int k = 0; k < 2; k++) {
        int ax = axes[k];
        double sm[12], lsm[12], lse[12];
        for (int i = 0; i < 12; i++) {
            int row = ax == 0 ? i % 4 : i / 4, step = ax == 0 ? 4 : 1, n = ax == 0 ? 3 : 4;
            int first = ax == 0 ? row : row * 4;
            double m = -INFINITY, sum = 0;
            for (int j = 0; j < n; j++) m = fmax(m, x[first + j * step]);
            for (int j = 0; j < n; j++) sum += exp(x[first + j * step] - m);
            sm[i] = exp(x[i] - m) / sum;
            lsm[i] = x[i] - m - log(sum);
            lse[ax == 0 ? i % 4 : i / 4] = m + log(sum);
        }
        CLBT_OK(clb_softmax(t, ax, &r));
        clbt_assert_shape(r, CLB_MAX_DIMS, shape);
        expect_values(r, sm, 12, 1e-5, "softmax of 64 dimensions", sel);
        clb_tensor_release(r);
        CLBT_OK(clb_log_softmax(t, ax, &r));
        expect_values(r, lsm, 12, 1e-5, "log_softmax of 64 dimensions", sel);
        clb_tensor_release(r);
        for (int keep = 0; keep < 2; keep++) {
            CLBT_OK(clb_logsumexp(t, 1, &ax, keep, &r));
            assert_int_equal(clb_tensor_ndim(r), keep ? CLB_MAX_DIMS : CLB_MAX_DIMS - 1);
            expect_values(r, lse, ax == 0 ? 4 : 3, 1e-5, "logsumexp of 64 dimensions", sel);
            clb_tensor_release(r);
        }
    }
    CLBT_OK(clb_logsumexp(t, 0, NULL, 0, &r));
    double m = -INFINITY, sum = 0;
    for (int i = 0; i < 12; i++) m = fmax(m, x[i]);
    for (int i = 0; i < 12; i++) sum += exp(x[i] - m);
    const double all[1] = {m + log(sum)};
    expect_values(r, all, 1, 1e-5, "logsumexp of all 64 dimensions", sel);
    clb_tensor_release(r);
    clb_tensor_release(t);
}

static void test_softmax_max_dims(void **state)
{
    (void)state;
    clbt_for_each_device(softmax_max_dims_body);
}

static void test_softmax_values(void **state)
{
    (void)state;
    clbt_for_each_device(softmax_values_body);
}

static void softmax_host_body(clb_context *ctx, const char *sel)
{
    const int64_t shape[2] = {6, 70};
    const clb_dtype dts[3] = {CLB_FLOAT16, CLB_FLOAT32, CLB_FLOAT64};
    for (int k = 0; k < 3; k++) {
        clb_tensor *t = random_tensor(ctx, dts[k], 2, shape, 21 + (uint64_t)k, false);
        clb_tensor *h = on_host(t);
        for (int kind = 0; kind < 3; kind++) {
            for (int axis = 0; axis < 2; axis++) {
                clb_tensor *got = NULL, *want = NULL;
                clb_status st = kind == 0   ? clb_softmax(t, axis, &got)
                                : kind == 1 ? clb_log_softmax(t, axis, &got)
                                            : clb_logsumexp(t, 1, &axis, 0, &got);
                if (dts[k] == CLB_FLOAT64 && !CLBT_F64(ctx, st)) continue;
                CLBT_OK(st);
                CLBT_OK(kind == 0   ? clb_softmax(h, axis, &want)
                        : kind == 1 ? clb_log_softmax(h, axis, &want)
                                    : clb_logsumexp(h, 1, &axis, 0, &want));
                char what[128];
                snprintf(what, sizeof what, "softmax kind %d %s axis %d on %s", kind,
                         clb_dtype_name(dts[k]), axis, sel);
                clbt_assert_matches_host(got, want, dts[k] == CLB_FLOAT16 ? 4e-3 : 1e-5, 1e-7, what);
                clb_tensor_release(got);
                clb_tensor_release(want);
            }
        }
        clb_tensor_release(h);
        clb_tensor_release(t);
    }
}

/* The CPU row kernel's forms (cl/eval_reduce.cl, clb_softmax_rows): items of
   several rows with a partial last one, and rows longer than its scratch (the
   exps stored to the output, or computed twice for float16). */
static void softmax_rows_body(clb_context *ctx, const char *sel)
{
    const int64_t shapes[2][2] = {{600, 37}, {3, 20000}};
    const clb_dtype dts[3] = {CLB_FLOAT16, CLB_FLOAT32, CLB_FLOAT64};
    for (int sh = 0; sh < 2; sh++) {
        for (int k = 0; k < 3; k++) {
            clb_tensor *t = random_tensor(ctx, dts[k], 2, shapes[sh], 31 + (uint64_t)k, false);
            clb_tensor *h = on_host(t);
            for (int kind = 0; kind < 2; kind++) {
                clb_tensor *got = NULL, *want = NULL;
                clb_status st = kind == 0 ? clb_softmax(t, 1, &got) : clb_log_softmax(t, 1, &got);
                if (dts[k] == CLB_FLOAT64 && !CLBT_F64(ctx, st)) continue;
                CLBT_OK(st);
                CLBT_OK(kind == 0 ? clb_softmax(h, 1, &want) : clb_log_softmax(h, 1, &want));
                char what[128];
                snprintf(what, sizeof what, "softmax rows kind %d %s (%lld, %lld) on %s", kind,
                         clb_dtype_name(dts[k]), (long long)shapes[sh][0],
                         (long long)shapes[sh][1], sel);
                clbt_assert_matches_host(got, want, dts[k] == CLB_FLOAT16 ? 4e-3 : 1e-5, 1e-7, what);
                clb_tensor_release(got);
                clb_tensor_release(want);
            }
            clb_tensor_release(h);
            clb_tensor_release(t);
        }
    }
}

static void test_softmax_rows(void **state)
{
    (void)state;
    clbt_for_each_device(softmax_rows_body);
}

static void test_softmax_vs_host(void **state)
{
    (void)state;
    clbt_for_each_device(softmax_host_body);
}

/* ---- clb_eval_reduce ---------------------------------------------------------------- */

/* clb_eval_reduce against clb_reduce of clb_eval, for every op, on the same device. */
static void eval_reduce_body(clb_context *ctx, const char *sel)
{
    const int64_t xs[3] = {5, 1, 3}, ys[3] = {1, 4, 3};
    clb_tensor *x = random_tensor(ctx, CLB_FLOAT32, 3, xs, 3, false);
    clb_tensor *y = random_tensor(ctx, CLB_FLOAT32, 3, ys, 4, false);
    const char *names[2] = {"x", "y"};
    const clb_tensor *in[2] = {x, y};
    const int axsets[3][2] = {{-1, 0}, {0, 2}, {1, 0}};
    const int nax[3] = {1, 2, 1};
    for (int op = CLB_SUM; op <= CLB_PROD; op++) {
        for (int a = 0; a < 4; a++) {
            const int *axes = a < 3 ? axsets[a] : NULL;
            int na = a < 3 ? nax[a] : 0;
            clb_tensor *got = NULL, *full = NULL, *want = NULL;
            CLBT_OK(clb_eval_reduce(ctx, "(x - y) * (x - y)", 2, names, in, (clb_reduce_op)op,
                                    na, axes, a & 1, &got));
            CLBT_OK(clb_eval(ctx, "(x - y) * (x - y)", 2, names, in, &full));
            CLBT_OK(clb_reduce((clb_reduce_op)op, full, na, axes, a & 1, &want));
            char what[128];
            snprintf(what, sizeof what, "eval_reduce %s axes %d on %s",
                     clb_reduce_op_name((clb_reduce_op)op), a, sel);
            clbt_assert_matches_host(got, want, 1e-6, 0, what);
            clb_tensor_release(got);
            clb_tensor_release(full);
            clb_tensor_release(want);
        }
    }
    /* Integer expression: sum gives int64 as clb_reduce. */
    clb_tensor *got = NULL;
    CLBT_OK(clb_eval_reduce(ctx, "int32(x > y)", 2, names, in, CLB_SUM, 0, NULL, 0, &got));
    assert_int_equal(clb_tensor_dtype(got), CLB_INT64);
    clb_tensor_release(got);
    const int bad[1] = {3};
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT,
                clb_eval_reduce(ctx, "x + y", 2, names, in, CLB_SUM, 1, bad, 0, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT,
                clb_eval_reduce(ctx, "x + ", 2, names, in, CLB_SUM, 0, NULL, 0, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT,
                clb_eval_reduce(ctx, "x + y", 2, names, in, (clb_reduce_op)9, 0, NULL, 0, outp_));
    const int64_t zs[1] = {2};
    clb_tensor *z = random_tensor(ctx, CLB_FLOAT32, 1, zs, 5, false);
    const clb_tensor *in2[2] = {x, z};
    EXPECT_FAIL(ctx, CLB_ERR_SHAPE_MISMATCH,
                clb_eval_reduce(ctx, "x + y", 2, names, in2, CLB_SUM, 0, NULL, 0, outp_));
    clb_tensor_release(z);
    clb_tensor_release(x);
    clb_tensor_release(y);
}

static void test_eval_reduce(void **state)
{
    (void)state;
    clbt_for_each_device(eval_reduce_body);
}

/* Shapes that take each decomposition of the fused kernels (cl/eval_reduce.cl):
   few long outputs (the reduced range split into chunks whose partials a second
   pass folds), many short columns (lanes over neighbouring outputs, with and
   without chunks), odd extents (tails), everything reduced; for clb_eval_reduce
   (float sums, max with NaN, exact int32 sums) and clb_var, against the host. */
static void eval_reduce_paths_body(clb_context *ctx, const char *sel)
{
    const int64_t shapes[4][2] = {{3, 40000}, {20000, 64}, {33, 7}, {64, 192}};
    const int axes_of[4] = {1, 0, 0, 0};
    const char *names[2] = {"x", "y"};
    for (int c = 0; c < 5; c++) {
        const int64_t *sh = shapes[c < 4 ? c : 0];
        const int64_t ysh[2] = {1, sh[1]};
        const int ax[1] = {c < 4 ? axes_of[c] : 0};
        int na = c < 4 ? 1 : 0;
        const int *axes = c < 4 ? ax : NULL;
        for (int dt = 0; dt < 2; dt++) {
            clb_dtype d = dt ? CLB_INT32 : CLB_FLOAT32;
            clb_tensor *x = random_tensor(ctx, d, 2, sh, 51 + (uint64_t)c, dt == 1);
            clb_tensor *y = random_tensor(ctx, d, 2, ysh, 61 + (uint64_t)c, dt == 1);
            clb_tensor *hx = on_host(x), *hy = on_host(y);
            const clb_tensor *in[2] = {x, y}, *hin[2] = {hx, hy};
            for (int k = 0; k < (dt ? 1 : 3); k++) {
                static const clb_reduce_op ops[3] = {CLB_SUM, CLB_MAX, CLB_MEAN};
                /* MEAN is SUM's walk with a final scale: on the column and
                   whole-tensor paths only (each op and path is a program). */
                if (k == 2 && c != 1 && c != 4) continue;
                const char *e = dt ? "x * y - x" : k == 1 ? "where(x > 1.9, (x - x) / (x - x), x - y)"
                                                          : "x * x - y";
                clb_tensor *got = NULL, *want = NULL;
                CLBT_OK(clb_eval_reduce(ctx, e, 2, names, in, ops[k], na, axes, 0, &got));
                CLBT_OK(clb_eval_reduce(clbt_host_shared(), e, 2, names, hin, ops[k], na, axes, 0,
                                        &want));
                char what[160];
                snprintf(what, sizeof what, "eval_reduce %s %s %s case %d on %s", e,
                         clb_dtype_name(d), clb_reduce_op_name(ops[k]), c, sel);
                clbt_assert_matches_host(got, want, 1e-5, 1e-5, what);
                clb_tensor_release(got);
                clb_tensor_release(want);
            }
            if (dt == 0) {
                clb_tensor *got = NULL, *want = NULL;
                CLBT_OK(clb_std(x, na, axes, 1, 1, &got));
                CLBT_OK(clb_std(hx, na, axes, 1, 1, &want));
                char what[160];
                snprintf(what, sizeof what, "std case %d on %s", c, sel);
                clbt_assert_matches_host(got, want, 1e-5, 1e-6, what);
                clb_tensor_release(got);
                clb_tensor_release(want);
            }
            clb_tensor_release(x);
            clb_tensor_release(y);
            clb_tensor_release(hx);
            clb_tensor_release(hy);
        }
    }
}

/* Column reductions of loads-only expressions on CPU devices: the tiled walk of
   cl/eval_reduce.cl (runs of 64 outputs, eight rows at a time; 1024 columns are
   16 runs, 256 are 4, 2048 are 32, 4096 are 64), with a tail of rows, chunks of
   64 rows or more read as eight far-apart streams with single rows left over
   (203 and 70 rows, 4500 in each of two chunks), and with the rows split into
   chunks whose partials merge (9000 rows). */
static void column_tiles_body(clb_context *ctx, const char *sel)
{
    if (clbt_is_simulator(ctx)) return;
    const int64_t shapes[5][2] = {{50, 1024}, {9000, 256}, {21, 320}, {203, 4096}, {70, 2048}};
    const char *names[1] = {"x"};
    const clb_dtype dts[2] = {CLB_FLOAT32, CLB_FLOAT64};
    const int ax[1] = {0};
    for (int c = 0; c < 5; c++) {
        for (int k = 0; k < 2; k++) {
            clb_tensor *x = random_tensor(ctx, dts[k], 2, shapes[c], 71 + (uint64_t)c, false);
            clb_tensor *hx = on_host(x);
            const clb_tensor *in[1] = {x}, *hin[1] = {hx};
            for (int f = 0; f < 3; f++) {
                clb_tensor *got = NULL, *want = NULL;
                clb_status st = f == 2 ? clb_var(x, 1, ax, 1, 0, &got)
                                       : clb_eval_reduce(ctx, "x", 1, names, in,
                                                         f ? CLB_MEAN : CLB_SUM, 1, ax, 0, &got);
                if (dts[k] == CLB_FLOAT64 && !CLBT_F64(ctx, st)) break;
                CLBT_OK(st);
                CLBT_OK(f == 2 ? clb_var(hx, 1, ax, 1, 0, &want)
                               : clb_eval_reduce(clbt_host_shared(), "x", 1, names, hin,
                                                 f ? CLB_MEAN : CLB_SUM, 1, ax, 0, &want));
                char what[160];
                snprintf(what, sizeof what, "column %s of (%lld, %lld) %s on %s",
                         f == 2 ? "var" : f ? "mean" : "sum", (long long)shapes[c][0],
                         (long long)shapes[c][1], clb_dtype_name(dts[k]), sel);
                clbt_assert_matches_host(got, want, 1e-5, 1e-5, what);
                clb_tensor_release(got);
                clb_tensor_release(want);
            }
            clb_tensor_release(x);
            clb_tensor_release(hx);
        }
    }
}

static void test_eval_reduce_paths(void **state)
{
    (void)state;
    clbt_for_each_device(eval_reduce_paths_body);
    clbt_for_each_device(column_tiles_body);
}

/* The CPU walks of clb_eval_reduce (cl/eval_reduce.cl, CLB_TREE=0), forced on
   every device (CLB_REDUCE_FAST=1, read when the context is created), with a
   broadcast row: few rows of 16 to 1000 (one output per work item; where
   llvmpipe ran them one item per work-group, quirk partial-vector-loops, every
   output but the last summed only part of its lanes), and 1100 rows of 64
   columns (lanes over outputs; under quirk loop-limit each row cost 64 of the
   item's loop budget, so the sums stopped near row 1000). Two programs per
   device. */
static void cpu_form_body(clb_context *ctx, const char *sel)
{
    const int64_t shapes[8][2] = {{1, 40},  {2, 40},   {3, 16},  {3, 33},
                                  {3, 1000}, {8, 40}, {16, 100}, {1100, 64}};
    const char *names[2] = {"x", "y"};
    for (int c = 0; c < 8; c++) {
        const int64_t ysh[2] = {1, shapes[c][1]};
        const int ax[1] = {c == 7 ? 0 : 1};
        clb_tensor *x = random_tensor(ctx, CLB_FLOAT32, 2, shapes[c], 81 + (uint64_t)c, false);
        clb_tensor *y = random_tensor(ctx, CLB_FLOAT32, 2, ysh, 91 + (uint64_t)c, false);
        clb_tensor *hx = on_host(x), *hy = on_host(y), *got = NULL, *want = NULL;
        const clb_tensor *in[2] = {x, y}, *hin[2] = {hx, hy};
        const char *e = "(x - y) * (x - y)";
        CLBT_OK(clb_eval_reduce(ctx, e, 2, names, in, CLB_SUM, 1, ax, 0, &got));
        CLBT_OK(clb_eval_reduce(clbt_host_shared(), e, 2, names, hin, CLB_SUM, 1, ax, 0, &want));
        char what[160];
        snprintf(what, sizeof what, "CPU form: eval_reduce %s over axis %d of (%lld, %lld) on %s",
                 e, ax[0], (long long)shapes[c][0], (long long)shapes[c][1], sel);
        clbt_assert_matches_host(got, want, 1e-5, 1e-5, what);
        clb_tensor_release(got);
        clb_tensor_release(want);
        clb_tensor_release(x);
        clb_tensor_release(y);
        clb_tensor_release(hx);
        clb_tensor_release(hy);
    }
}

static void test_eval_reduce_cpu_form(void **state)
{
    (void)state;
    setenv("CLB_REDUCE_FAST", "1", 1);
    clbt_for_each_device(cpu_form_body);
    unsetenv("CLB_REDUCE_FAST");
}

/* 2^24-element float32 sums (clb_eval_reduce and clb_reduce) against float64:
   values 1 + U(0, 1) / 1024, whose plain float32 running sum stops growing at
   2^24 (each addition rounds away); Kahan or pairwise sums stay within a few ulps. */
static void sum_accuracy_body(clb_context *ctx, const char *sel)
{
    if (clbt_is_simulator(ctx)) return;
    const int64_t n = (int64_t)1 << 24;
    float *x = malloc(sizeof(float) * (size_t)n);
    assert_non_null(x);
    uint64_t s = 99;
    double want = 0;
    for (int64_t i = 0; i < n; i++) {
        x[i] = (float)(1.0 + (double)(clbt_rand(&s) >> 11) / 9007199254740992.0 / 1024.0);
        want += x[i];
    }
    clb_tensor *t = f32(ctx, 1, (int64_t[]){n}, x), *r = NULL;
    free(x);
    const char *names[1] = {"x"};
    const clb_tensor *in[1] = {t};
    double got = 0;
    CLBT_OK(clb_eval_reduce(ctx, "x", 1, names, in, CLB_SUM, 0, NULL, 0, &r));
    read_doubles(r, &got, 1);
    clb_tensor_release(r);
    double err1 = fabs(got - want) / want;
    CLBT_OK(clb_reduce(CLB_SUM, t, 0, NULL, 0, &r));
    read_doubles(r, &got, 1);
    clb_tensor_release(r);
    double err2 = fabs(got - want) / want;
    print_message("sum of 2^24 float32 on %s: relative error eval_reduce %.3g, reduce %.3g\n", sel,
                  err1, err2);
    if (!(err1 <= 1e-6 && err2 <= 1e-6))
        fail_msg("2^24-element float32 sum on %s: relative errors %.3g (eval_reduce), %.3g "
                 "(reduce) > 1e-6",
                 sel, err1, err2);
    clb_tensor_release(t);
}

static void test_sum_accuracy(void **state)
{
    (void)state;
    clbt_for_each_device(sum_accuracy_body);
}

/* Pairwise squared distances whose (N, M, D) intermediate exceeds the device's
   largest allocation (the host backend: 2^26 elements): the memory reserved
   stays far below it, and the values match a float64 computation here. */
static void eval_reduce_memory_body(clb_context *ctx, const char *sel)
{
    clb_device_info info;
    CLBT_OK(clb_context_get_info(ctx, &info));
    if (clbt_is_simulator(ctx)) return;
    bool f64 = info.has_fp64 != 0;
    clb_dtype dt = f64 ? CLB_FLOAT64 : CLB_FLOAT32;
    size_t item = clb_dtype_size(dt);
    uint64_t limit = info.type == CLB_DEVICE_HOST ? ((uint64_t)1 << 26) * item : info.max_alloc_bytes;
    const int64_t D = 64;
    int64_t N = (int64_t)ceil(sqrt((double)limit / (double)item / (double)D)) + 4;
    double *xv = malloc(sizeof(double) * (size_t)(N * D));
    assert_non_null(xv);
    for (int64_t i = 0; i < N * D; i++) xv[i] = (double)(i % 97) * 0.125;
    clb_tensor *h = clbt_tensor(clbt_host_shared(), CLB_FLOAT64, 1, (int64_t[]){N * D}, xv);
    clb_tensor *hc = NULL, *x = NULL, *y = NULL, *r = NULL;
    CLBT_OK(clb_cast(h, dt, &hc));
    void *buf = clbt_read(hc);
    const int64_t xs[3] = {N, 1, D}, ys[3] = {1, N, D};
    x = clbt_tensor(ctx, dt, 3, xs, buf);
    y = clbt_tensor(ctx, dt, 3, ys, buf);
    free(buf);
    CLBT_OK(clb_empty_cache(ctx));
    size_t before = clb_memory_reserved(ctx);
    const char *names[2] = {"x", "y"};
    const clb_tensor *in[2] = {x, y};
    const int ax[1] = {-1};
    CLBT_OK(clb_eval_reduce(ctx, "(x - y) * (x - y)", 2, names, in, CLB_SUM, 1, ax, 0, &r));
    CLBT_OK(clb_finish(ctx));
    size_t used = clb_memory_reserved(ctx) - before;
    uint64_t intermediate = (uint64_t)N * (uint64_t)N * (uint64_t)D * item;
    print_message("eval_reduce (%lld,1,%lld) x (1,%lld,%lld) %s on %s: intermediate %.2f GiB "
                  "(max alloc %.2f GiB), memory used %.1f MiB\n",
                  (long long)N, (long long)D, (long long)N, (long long)D, clb_dtype_name(dt), sel,
                  (double)intermediate / 1073741824.0, (double)info.max_alloc_bytes / 1073741824.0,
                  (double)used / 1048576.0);
    assert_true(intermediate > limit);
    uint64_t out_bytes = (uint64_t)N * (uint64_t)N * item;
    if (used > out_bytes + ((uint64_t)64 << 20))
        fail_msg("eval_reduce on %s reserved %zu bytes: more than the output (%llu) + 64 MiB", sel,
                 used, (unsigned long long)out_bytes);
    /* Spot checks against float64. */
    double *got = clbt_read(r);
    const int64_t probes[4][2] = {{0, 0}, {1, 2}, {N - 1, 3}, {N / 2, N - 1}};
    for (int p = 0; p < 4; p++) {
        int64_t i = probes[p][0], j = probes[p][1];
        double want = 0;
        for (int64_t d = 0; d < D; d++) {
            double a = xv[i * D + d], b = xv[j * D + d];
            want += (a - b) * (a - b);
        }
        double g = clbt_value_at(got, dt, i * N + j);
        if (fabs(g - want) > 1e-5 * fabs(want) + 1e-9)
            fail_msg("eval_reduce on %s: [%lld, %lld] is %.9g, expected %.9g", sel, (long long)i,
                     (long long)j, g, want);
    }
    free(got);
    free(xv);
    clb_tensor_release(r);
    clb_tensor_release(x);
    clb_tensor_release(y);
    clb_tensor_release(hc);
    clb_tensor_release(h);
}

static void test_eval_reduce_memory(void **state)
{
    (void)state;
    clbt_for_each_device(eval_reduce_memory_body);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_var_values),          cmocka_unit_test(test_var_accuracy),
        cmocka_unit_test(test_var_vs_host),         cmocka_unit_test(test_arg_values),
        cmocka_unit_test(test_arg_vs_host),         cmocka_unit_test(test_softmax_values),
        cmocka_unit_test(test_softmax_max_dims),
        cmocka_unit_test(test_softmax_vs_host),     cmocka_unit_test(test_softmax_rows),
        cmocka_unit_test(test_eval_reduce),         cmocka_unit_test(test_eval_reduce_paths),
        cmocka_unit_test(test_eval_reduce_cpu_form),
        cmocka_unit_test(test_sum_accuracy),        cmocka_unit_test(test_eval_reduce_memory),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    clbt_host_shared_release();
    return rc;
}
