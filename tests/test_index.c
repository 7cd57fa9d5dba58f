/* clb_take, clb_take_along_axis, clb_sort, clb_topk, clb_cumsum, clb_cumprod,
 * clb_nonzero and clb_masked_select on the host backend and every OpenCL
 * device: expectations written down from NumPy 2 / PyTorch (the literals below
 * are what numpy.take, numpy.take_along_axis, numpy.sort(kind="stable"),
 * torch.topk, numpy.cumsum, numpy.argwhere and x[mask] print), the errors, and
 * random cases (ties, NaNs, rows longer than a tile and local memory, axes not
 * last, views with stride 0 and negative strides) against the host backend.
 * With CLBT_SLOW: the full-size cases (rows of 2^20 and 2^24). */
#include "testutil.h"

#ifndef CLBT_SLOW
#define CLBT_SLOW 0
#endif

static clb_context *g_host;

#define GARBAGE ((clb_tensor *)(uintptr_t)0x5A5A5A5A)

static void expect_i64(const clb_tensor *t, const int64_t *want, int64_t n, const char *what)
{
    assert_int_equal(clb_tensor_numel(t), n);
    assert_int_equal(clb_tensor_dtype(t), CLB_INT64);
    int64_t *got = clbt_read(t);
    for (int64_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("%s: element %lld is %lld, expected %lld", what, (long long)i,
                     (long long)got[i], (long long)want[i]);
    free(got);
}

/* Values as doubles; NaN matches NaN; signbit compared where want is zero. */
static void expect_f(const clb_tensor *t, const double *want, int64_t n, const char *what)
{
    assert_int_equal(clb_tensor_numel(t), n);
    void *got = clbt_read(t);
    for (int64_t i = 0; i < n; i++) {
        double g = clbt_value_at(got, clb_tensor_dtype(t), i);
        bool ok = isnan(want[i]) ? isnan(g) : g == want[i] && signbit(g) == signbit(want[i]);
        if (!ok)
            fail_msg("%s: element %lld is %.17g, expected %.17g", what, (long long)i, g, want[i]);
    }
    free(got);
}

static void expect_error_(clb_status got, clb_status want, const char *fn, clb_tensor *out)
{
    if (got != want)
        fail_msg("%s gave %s, expected %s: %s", fn, clb_status_name(got), clb_status_name(want),
                 clb_last_error());
    assert_null(out);
    if (!strstr(clb_last_error(), fn)) fail_msg("message does not name %s: %s", fn, clb_last_error());
}
/* The call runs before its out slot is read. */
#define expect_error(call, want, fn, out)                                                          \
    do {                                                                                           \
        clb_status got_ = (call);                                                                  \
        expect_error_(got_, (want), (fn), (out));                                                  \
    } while (0)

/* A copy of t on the host backend. */
static clb_tensor *on_host(const clb_tensor *t)
{
    clb_tensor *h = NULL;
    CLBT_OK(clb_tensor_to_context(t, g_host, &h));
    return h;
}

/* ---- take / take_along_axis ------------------------------------------------------ */

static void take_literals(clb_context *ctx, const char *sel)
{
    (void)sel;
    const float a[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    const int64_t s34[2] = {3, 4};
    clb_tensor *t = clbt_tensor(ctx, CLB_FLOAT32, 2, s34, a), *r = NULL, *rev = NULL, *b = NULL;
    /* numpy.take(a, np.int8([2, -1, 0]), 0) -> rows 2, 2, 0 */
    const int8_t i8[3] = {2, -1, 0};
    const int64_t s3[1] = {3};
    clb_tensor *ix = clbt_tensor(ctx, CLB_INT8, 1, s3, i8);
    CLBT_OK(clb_take(t, ix, 0, &r));
    clbt_assert_shape(r, 2, (int64_t[]){3, 4});
    expect_f(r, (double[]){8, 9, 10, 11, 8, 9, 10, 11, 0, 1, 2, 3}, 12, "take axis 0");
    clb_tensor_release(r);
    /* numpy.take(a, np.int16([[3, 0], [-4, 1]]), 1) -> shape (3, 2, 2) */
    const int16_t i16[4] = {3, 0, -4, 1};
    const int64_t s22[2] = {2, 2};
    clb_tensor *ix2 = clbt_tensor(ctx, CLB_INT16, 2, s22, i16);
    CLBT_OK(clb_take(t, ix2, -1, &r));
    clbt_assert_shape(r, 3, (int64_t[]){3, 2, 2});
    expect_f(r, (double[]){3, 0, 0, 1, 7, 4, 4, 5, 11, 8, 8, 9}, 12, "take axis 1");
    clb_tensor_release(r);
    /* a[:, ::-1] (negative stride) and a broadcast row (stride 0) as sources */
    CLBT_OK(clb_slice(t, 1, CLB_NONE, CLB_NONE, -1, &rev));
    CLBT_OK(clb_take(rev, ix2, 1, &r));
    expect_f(r, (double[]){0, 3, 3, 2, 4, 7, 7, 6, 8, 11, 11, 10}, 12, "take of a[:, ::-1]");
    clb_tensor_release(r);
    const uint64_t u64[2] = {1, 0};
    const int64_t s2[1] = {2};
    clb_tensor *iu = clbt_tensor(ctx, CLB_UINT64, 1, s2, u64);
    CLBT_OK(clb_broadcast_to(ix, 2, (int64_t[]){4, 3}, &b)); /* stride-0 indices */
    CLBT_OK(clb_take(t, b, 1, &r));
    clbt_assert_shape(r, 3, (int64_t[]){3, 4, 3});
    clb_tensor_release(r);
    CLBT_OK(clb_take(t, iu, 0, &r));
    expect_f(r, (double[]){4, 5, 6, 7, 0, 1, 2, 3}, 8, "take with uint64 indices");
    clb_tensor_release(r);
    /* errors: out of range both ways, uint64 beyond int64, bool indices, bad axis */
    const int32_t bad32[2] = {0, 4};
    const int64_t bad64[2] = {-5, 0};
    const uint64_t badu[2] = {0, UINT64_MAX};
    clb_tensor *e1 = clbt_tensor(ctx, CLB_INT32, 1, s2, bad32);
    clb_tensor *e2 = clbt_tensor(ctx, CLB_INT64, 1, s2, bad64);
    clb_tensor *e3 = clbt_tensor(ctx, CLB_UINT64, 1, s2, badu);
    clb_tensor *eb = clbt_tensor(ctx, CLB_BOOL, 1, s2, (uint8_t[]){1, 0});
    r = GARBAGE;
    expect_error(clb_take(t, e1, 1, &r), CLB_ERR_INVALID_ARGUMENT, "clb_take", r);
    r = GARBAGE;
    expect_error(clb_take(t, e2, 1, &r), CLB_ERR_INVALID_ARGUMENT, "clb_take", r);
    r = GARBAGE;
    expect_error(clb_take(t, e3, 0, &r), CLB_ERR_INVALID_ARGUMENT, "clb_take", r);
    r = GARBAGE;
    expect_error(clb_take(t, eb, 0, &r), CLB_ERR_DTYPE, "clb_take", r);
    r = GARBAGE;
    expect_error(clb_take(t, ix, 2, &r), CLB_ERR_INVALID_ARGUMENT, "clb_take", r);
    r = GARBAGE;
    expect_error(clb_take_along_axis(t, e2, 0, &r), CLB_ERR_INVALID_ARGUMENT,
                 "clb_take_along_axis", r);
    clb_tensor *tr[] = {t, ix, ix2, rev, iu, b, e1, e2, e3, eb};
    for (size_t i = 0; i < sizeof tr / sizeof *tr; i++) clb_tensor_release(tr[i]);
}

static void along_literals(clb_context *ctx, const char *sel)
{
    (void)sel;
    /* numpy: a = [[10, 30, 20], [60, 40, 50]]; take_along_axis(a, argsort(a, 1), 1) */
    const int32_t a[6] = {10, 30, 20, 60, 40, 50};
    const int64_t s23[2] = {2, 3}, s21[2] = {2, 1}, s14[2] = {1, 4}, s31[2] = {3, 1};
    clb_tensor *t = clbt_tensor(ctx, CLB_INT32, 2, s23, a), *r = NULL, *order = NULL;
    CLBT_OK(clb_sort(t, 1, 0, NULL, &order));
    expect_i64(order, (int64_t[]){0, 2, 1, 1, 2, 0}, 6, "argsort");
    CLBT_OK(clb_take_along_axis(t, order, 1, &r));
    expect_f(r, (double[]){10, 20, 30, 40, 50, 60}, 6, "take_along_axis(argsort)");
    clb_tensor_release(r);
    /* one index per row (argmax's keepdim result), negative: [[-2], [0]] -> [[30], [60]] */
    clb_tensor *one = clbt_tensor(ctx, CLB_INT64, 2, s21, (int64_t[]){-2, 0});
    CLBT_OK(clb_take_along_axis(t, one, 1, &r));
    clbt_assert_shape(r, 2, s21);
    expect_f(r, (double[]){30, 60}, 2, "one index per row");
    clb_tensor_release(r);
    /* broadcasting (NumPy 2): t (3, 1) along 0 with indices (1, 4) -> (1, 4) */
    clb_tensor *col = clbt_tensor(ctx, CLB_FLOAT32, 2, s31, (float[]){5, 6, 7});
    clb_tensor *i14 = clbt_tensor(ctx, CLB_UINT8, 2, s14, (uint8_t[]){2, 0, 1, 2});
    CLBT_OK(clb_take_along_axis(col, i14, 0, &r));
    clbt_assert_shape(r, 2, s14);
    expect_f(r, (double[]){7, 5, 6, 7}, 4, "broadcast t");
    clb_tensor_release(r);
    /* indices (2, 1) along 1 of t (2, 3) broadcast against ... t (2, 3) and idx (1, 2)
       along 1: idx rows broadcast -> [[30, 10], [40, 60]] */
    clb_tensor *i12 = clbt_tensor(ctx, CLB_INT16, 2, (int64_t[]){1, 2}, (int16_t[]){1, 0});
    CLBT_OK(clb_take_along_axis(t, i12, 1, &r));
    expect_f(r, (double[]){30, 10, 40, 60}, 4, "broadcast indices");
    clb_tensor_release(r);
    r = GARBAGE;
    clb_tensor *i3 = clbt_tensor(ctx, CLB_INT64, 1, (int64_t[]){1}, (int64_t[]){0});
    expect_error(clb_take_along_axis(t, i3, 1, &r), CLB_ERR_INVALID_ARGUMENT,
                 "clb_take_along_axis", r);
    clb_tensor *i33 = clbt_tensor(ctx, CLB_INT64, 2, (int64_t[]){3, 1}, (int64_t[]){0, 0, 0});
    r = GARBAGE;
    expect_error(clb_take_along_axis(t, i33, 1, &r), CLB_ERR_SHAPE_MISMATCH,
                 "clb_take_along_axis", r);
    clb_tensor *tr[] = {t, order, one, col, i14, i12, i3, i33};
    for (size_t i = 0; i < sizeof tr / sizeof *tr; i++) clb_tensor_release(tr[i]);
}

/* ---- cumsum / cumprod ----------------------------------------------------------------- */

static void scan_literals(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t s3[1] = {3}, s2[1] = {2}, s23[2] = {2, 3};
    clb_tensor *r = NULL;
    /* numpy.cumsum(np.int8([100, 100, 100])) -> int64 [100, 200, 300] */
    clb_tensor *i8 = clbt_tensor(ctx, CLB_INT8, 1, s3, (int8_t[]){100, 100, -128});
    CLBT_OK(clb_cumsum(i8, 0, &r));
    expect_i64(r, (int64_t[]){100, 200, 72}, 3, "cumsum int8");
    clb_tensor_release(r);
    clb_tensor *bo = clbt_tensor(ctx, CLB_BOOL, 1, s3, (uint8_t[]){1, 0, 1});
    CLBT_OK(clb_cumsum(bo, 0, &r));
    expect_i64(r, (int64_t[]){1, 1, 2}, 3, "cumsum bool");
    clb_tensor_release(r);
    clb_tensor *u8 = clbt_tensor(ctx, CLB_UINT8, 1, s3, (uint8_t[]){200, 200, 255});
    CLBT_OK(clb_cumsum(u8, 0, &r));
    assert_int_equal(clb_tensor_dtype(r), CLB_UINT64);
    expect_f(r, (double[]){200, 400, 655}, 3, "cumsum uint8");
    clb_tensor_release(r);
    /* int64 wraps as NumPy: [INT64_MAX, 1] -> [INT64_MAX, INT64_MIN] */
    clb_tensor *i64 = clbt_tensor(ctx, CLB_INT64, 1, s2, (int64_t[]){INT64_MAX, 1});
    CLBT_OK(clb_cumsum(i64, 0, &r));
    expect_i64(r, (int64_t[]){INT64_MAX, INT64_MIN}, 2, "cumsum int64 wraps");
    clb_tensor_release(r);
    clb_tensor *i32 = clbt_tensor(ctx, CLB_INT32, 1, s3, (int32_t[]){-2, 3, 4});
    CLBT_OK(clb_cumprod(i32, 0, &r));
    expect_i64(r, (int64_t[]){-2, -6, -24}, 3, "cumprod int32");
    clb_tensor_release(r);
    /* float32 (2, 3): cumsum axis 0 and 1, cumprod axis 1 */
    clb_tensor *f = clbt_tensor(ctx, CLB_FLOAT32, 2, s23, (float[]){1, 2, 3, 4, 5, NAN});
    CLBT_OK(clb_cumsum(f, 0, &r));
    assert_int_equal(clb_tensor_dtype(r), CLB_FLOAT32);
    expect_f(r, (double[]){1, 2, 3, 5, 7, NAN}, 6, "cumsum axis 0");
    clb_tensor_release(r);
    CLBT_OK(clb_cumsum(f, -1, &r));
    expect_f(r, (double[]){1, 3, 6, 4, 9, NAN}, 6, "cumsum axis 1");
    clb_tensor_release(r);
    CLBT_OK(clb_cumprod(f, 1, &r));
    expect_f(r, (double[]){1, 2, 6, 4, 20, NAN}, 6, "cumprod axis 1");
    clb_tensor_release(r);
    clb_tensor *h = clbt_tensor(ctx, CLB_FLOAT16, 1, s3, (uint16_t[]){0x3c00, 0x4000, 0xbc00});
    CLBT_OK(clb_cumsum(h, 0, &r));
    assert_int_equal(clb_tensor_dtype(r), CLB_FLOAT16);
    expect_f(r, (double[]){1, 3, 2}, 3, "cumsum float16");
    clb_tensor_release(r);
    r = GARBAGE;
    expect_error(clb_cumsum(f, 2, &r), CLB_ERR_INVALID_ARGUMENT, "clb_cumsum", r);
    clb_tensor *tr[] = {i8, bo, u8, i64, i32, f, h};
    for (size_t i = 0; i < sizeof tr / sizeof *tr; i++) clb_tensor_release(tr[i]);
}

/* n rows of `cols` float32 values, summed along axis 0 (one row of n where cols
   is 1): every column's running sums stay within a few eps * log2 n of the
   float64 running sum (relative to the sum of magnitudes). */
static void scan_accuracy(clb_context *ctx, int64_t n, int64_t cols)
{
    const int64_t count = n * cols, shape[2] = {n, cols};
    float *x = malloc((size_t)count * sizeof *x), *got = malloc((size_t)count * sizeof *got);
    double *acc = calloc((size_t)cols, sizeof *acc);
    assert_non_null(x);
    assert_non_null(got);
    assert_non_null(acc);
    uint64_t rs = 7;
    for (int64_t i = 0; i < count; i++) x[i] = (float)((clbt_rand(&rs) >> 11) * 0x1.0p-53) + 0.5f;
    clb_tensor *t = clbt_tensor(ctx, CLB_FLOAT32, cols > 1 ? 2 : 1, cols > 1 ? shape : &n, x), *r = NULL;
    CLBT_OK(clb_cumsum(t, 0, &r));
    CLBT_OK(clb_tensor_to_host(r, got, (size_t)count * sizeof *got));
    double worst = 0;
    for (int64_t i = 0; i < count; i++) {
        acc[i % cols] += x[i];
        double e = fabs(got[i] - acc[i % cols]) / acc[i % cols];
        if (e > worst) worst = e;
    }
    const double bound = 4 * 0x1.0p-24 * log2((double)n);
    if (worst > bound)
        fail_msg("%s: cumsum of (%lld, %lld) float32 along axis 0: relative error %.3g > %.3g "
                 "(4 eps log2 n)",
                 clb_context_device_name(ctx), (long long)n, (long long)cols, worst, bound);
    clb_tensor_release(t);
    clb_tensor_release(r);
    free(x);
    free(got);
    free(acc);
}

/* ---- sort / topk -------------------------------------------------------------------------- */

static void sort_literals(clb_context *ctx, const char *sel)
{
    (void)sel;
    /* numpy.sort(kind="stable") / argsort of [3, -0., nan, 1, 0., 3, -5, nan, 2, 1] */
    const float v[10] = {3, -0.0f, NAN, 1, 0.0f, 3, -5, NAN, 2, 1};
    const int64_t s10[1] = {10};
    clb_tensor *t = clbt_tensor(ctx, CLB_FLOAT32, 1, s10, v), *sv = NULL, *si = NULL;
    CLBT_OK(clb_sort(t, 0, 0, &sv, &si));
    expect_f(sv, (double[]){-5, -0.0, 0, 1, 1, 2, 3, 3, NAN, NAN}, 10, "sort ascending");
    expect_i64(si, (int64_t[]){6, 1, 4, 3, 9, 8, 0, 5, 2, 7}, 10, "argsort ascending");
    clb_tensor_release(sv);
    clb_tensor_release(si);
    /* descending: NaN first, equal values in index order (torch.sort(stable=True)) */
    CLBT_OK(clb_sort(t, 0, 1, &sv, &si));
    expect_f(sv, (double[]){NAN, NAN, 3, 3, 2, 1, 1, -0.0, 0, -5}, 10, "sort descending");
    expect_i64(si, (int64_t[]){2, 7, 0, 5, 8, 3, 9, 1, 4, 6}, 10, "argsort descending");
    clb_tensor_release(sv);
    clb_tensor_release(si);
    /* integers: int8 with negatives, axis 0 of (3, 2); uint16; bool; int64 extremes */
    clb_tensor *i8 = clbt_tensor(ctx, CLB_INT8, 2, (int64_t[]){3, 2},
                                 (int8_t[]){5, -128, -1, 127, 5, 0});
    CLBT_OK(clb_sort(i8, 0, 0, &sv, &si));
    expect_f(sv, (double[]){-1, -128, 5, 0, 5, 127}, 6, "sort int8 axis 0");
    expect_i64(si, (int64_t[]){1, 0, 0, 2, 2, 1}, 6, "argsort int8 axis 0");
    clb_tensor_release(sv);
    clb_tensor_release(si);
    clb_tensor *u16 = clbt_tensor(ctx, CLB_UINT16, 1, (int64_t[]){4},
                                  (uint16_t[]){65535, 0, 32768, 1});
    CLBT_OK(clb_sort(u16, 0, 1, &sv, NULL));
    expect_f(sv, (double[]){65535, 32768, 1, 0}, 4, "sort uint16 descending");
    clb_tensor_release(sv);
    clb_tensor *bo = clbt_tensor(ctx, CLB_BOOL, 1, (int64_t[]){4}, (uint8_t[]){1, 0, 1, 0});
    CLBT_OK(clb_sort(bo, 0, 0, NULL, &si));
    expect_i64(si, (int64_t[]){1, 3, 0, 2}, 4, "argsort bool");
    clb_tensor_release(si);
    clb_tensor *i64 = clbt_tensor(ctx, CLB_INT64, 1, (int64_t[]){3},
                                  (int64_t[]){INT64_MAX, INT64_MIN, -1});
    CLBT_OK(clb_sort(i64, 0, 0, NULL, &si));
    expect_i64(si, (int64_t[]){1, 2, 0}, 3, "argsort int64");
    clb_tensor_release(si);
    /* a row of one */
    clb_tensor *one = clbt_tensor(ctx, CLB_FLOAT32, 2, (int64_t[]){2, 1}, (float[]){4, 3});
    CLBT_OK(clb_sort(one, 1, 0, &sv, &si));
    expect_f(sv, (double[]){4, 3}, 2, "rows of one");
    expect_i64(si, (int64_t[]){0, 0}, 2, "rows of one (indices)");
    clb_tensor_release(sv);
    clb_tensor_release(si);
    /* errors */
    sv = si = GARBAGE;
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_sort(t, 0, 0, NULL, NULL));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_sort(t, 1, 0, &sv, &si));
    assert_null(sv);
    assert_null(si);
    clb_tensor *tr[] = {t, i8, u16, bo, i64, one};
    for (size_t i = 0; i < sizeof tr / sizeof *tr; i++) clb_tensor_release(tr[i]);
}

static void topk_literals(clb_context *ctx, const char *sel)
{
    (void)sel;
    /* torch.topk(torch.tensor([1., 3., 3., 2., nan]), 2) -> ([nan, 3.], [4, 1]) */
    clb_tensor *t = clbt_tensor(ctx, CLB_FLOAT32, 1, (int64_t[]){5}, (float[]){1, 3, 3, 2, NAN});
    clb_tensor *v = NULL, *i = NULL;
    CLBT_OK(clb_topk(t, 2, 0, 1, &v, &i));
    expect_f(v, (double[]){NAN, 3}, 2, "topk largest");
    expect_i64(i, (int64_t[]){4, 1}, 2, "topk largest (indices)");
    clb_tensor_release(v);
    clb_tensor_release(i);
    /* torch.topk(..., 3, largest=False) -> ([1., 2., 3.], [0, 3, 1]) */
    CLBT_OK(clb_topk(t, 3, -1, 0, &v, &i));
    expect_f(v, (double[]){1, 2, 3}, 3, "topk smallest");
    expect_i64(i, (int64_t[]){0, 3, 1}, 3, "topk smallest (indices)");
    clb_tensor_release(v);
    clb_tensor_release(i);
    /* axis 0 of (3, 2): k = 2 -> shape (2, 2) */
    clb_tensor *m = clbt_tensor(ctx, CLB_INT32, 2, (int64_t[]){3, 2},
                                (int32_t[]){1, 9, 7, 9, 7, 0});
    CLBT_OK(clb_topk(m, 2, 0, 1, &v, &i));
    clbt_assert_shape(v, 2, (int64_t[]){2, 2});
    expect_f(v, (double[]){7, 9, 7, 9}, 4, "topk axis 0");
    expect_i64(i, (int64_t[]){1, 0, 2, 1}, 4, "topk axis 0 (indices)");
    clb_tensor_release(v);
    clb_tensor_release(i);
    CLBT_OK(clb_topk(m, 0, 0, 1, &v, NULL));
    clbt_assert_shape(v, 2, (int64_t[]){0, 2});
    clb_tensor_release(v);
    v = i = GARBAGE;
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_topk(m, 4, 0, 1, &v, &i));
    assert_null(v);
    assert_null(i);
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_topk(m, -1, 0, 1, &v, NULL));
    clb_tensor_release(t);
    clb_tensor_release(m);
}

/* ---- nonzero / masked_select ---------------------------------------------------------------- */

static void select_literals(clb_context *ctx, const char *sel)
{
    (void)sel;
    /* numpy.argwhere([[0, 1.5, nan], [0, 0, -2]]) -> [[0, 1], [0, 2], [1, 2]] */
    clb_tensor *t = clbt_tensor(ctx, CLB_FLOAT32, 2, (int64_t[]){2, 3},
                                (float[]){0, 1.5f, NAN, 0, -0.0f, -2});
    clb_tensor *r = NULL;
    CLBT_OK(clb_nonzero(t, &r));
    clbt_assert_shape(r, 2, (int64_t[]){3, 2});
    expect_i64(r, (int64_t[]){0, 1, 0, 2, 1, 2}, 6, "nonzero");
    clb_tensor_release(r);
    /* x[mask] with a mask (3,) broadcast over x's rows */
    clb_tensor *mask = clbt_tensor(ctx, CLB_BOOL, 1, (int64_t[]){3}, (uint8_t[]){1, 0, 1});
    CLBT_OK(clb_masked_select(t, mask, &r));
    clbt_assert_shape(r, 1, (int64_t[]){4});
    expect_f(r, (double[]){0, NAN, 0, -2}, 4, "masked_select");
    clb_tensor_release(r);
    /* empty results: zero-size tensors of the right shape */
    clb_tensor *z = clbt_tensor(ctx, CLB_INT16, 2, (int64_t[]){2, 2}, (int16_t[]){0, 0, 0, 0});
    CLBT_OK(clb_nonzero(z, &r));
    clbt_assert_shape(r, 2, (int64_t[]){0, 2});
    clb_tensor_release(r);
    clb_tensor *none = clbt_tensor(ctx, CLB_BOOL, 1, (int64_t[]){3}, (uint8_t[]){0, 0, 0});
    CLBT_OK(clb_masked_select(t, none, &r));
    clbt_assert_shape(r, 1, (int64_t[]){0});
    clb_tensor_release(r);
    clb_tensor *empty = NULL;
    CLBT_OK(clb_tensor_empty(ctx, CLB_FLOAT32, 2, (int64_t[]){0, 3}, &empty));
    CLBT_OK(clb_nonzero(empty, &r));
    clbt_assert_shape(r, 2, (int64_t[]){0, 2});
    clb_tensor_release(r);
    r = GARBAGE;
    expect_error(clb_masked_select(t, z, &r), CLB_ERR_DTYPE, "clb_masked_select", r);
    clb_tensor *tr[] = {t, mask, z, none, empty};
    for (size_t i = 0; i < sizeof tr / sizeof *tr; i++) clb_tensor_release(tr[i]);
}

#if CLB_HAVE_OPENCL
extern _Atomic int clb__cl_index_runs;              /* src/opencl/cl_index.h */
extern _Atomic int64_t clb__cl_scan_strip_cols;     /* src/opencl/cl_index.h */
extern _Atomic int64_t clb__cl_streaming_min_bytes; /* src/opencl/cl_launch.h */
#endif

/* ---- random cases against the host backend ------------------------------------------------- */

/* Values with many ties (and NaNs, -0.0 for floats) of dtype dt. */
static clb_tensor *random_tensor(clb_context *ctx, clb_dtype dt, int ndim, const int64_t *shape,
                                 uint64_t seed)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    size_t sz = clb_dtype_size(dt);
    unsigned char *buf = malloc((size_t)(n ? n : 1) * sz);
    assert_non_null(buf);
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = clbt_rand(&seed);
        int v = (int)(r % 41) - 20;
        if (dt == CLB_FLOAT32) {
            float f = (r >> 40) % 97 == 0 ? NAN : v == 0 && (r & 64) ? -0.0f : (float)v * 0.25f;
            memcpy(buf + i * sz, &f, sz);
        } else if (dt == CLB_FLOAT64) {
            double f = (r >> 40) % 97 == 0 ? NAN : (double)v * 0.125;
            memcpy(buf + i * sz, &f, sz);
        } else if (dt == CLB_FLOAT16) {
            uint16_t h = (r >> 40) % 97 == 0 ? 0x7e00 : (uint16_t)(0x3c00 + (r % 13) * 64);
            if (r & 128) h |= 0x8000;
            memcpy(buf + i * sz, &h, sz);
        } else {
            int64_t x = v;
            memcpy(buf + i * sz, &x, sz); /* little-endian: the low bytes */
        }
    }
    clb_tensor *t = clbt_tensor(ctx, dt, ndim, shape, buf);
    free(buf);
    return t;
}

static void sort_random_case(clb_context *ctx, clb_dtype dt, int64_t rows, int64_t len, int axis,
                             bool descending, uint64_t seed)
{
    const int64_t shape[2] = {axis == 1 ? rows : len, axis == 1 ? len : rows};
    clb_tensor *t = random_tensor(ctx, dt, 2, shape, seed), *th = on_host(t);
    clb_tensor *v = NULL, *i = NULL, *hv = NULL, *hi = NULL;
    CLBT_OK(clb_sort(t, axis, descending, &v, &i));
    CLBT_OK(clb_sort(th, axis, descending, &hv, &hi));
    char what[128];
    snprintf(what, sizeof what, "%s: sort dtype %d (%lld, %lld) axis %d%s",
             clb_context_device_name(ctx), (int)dt, (long long)shape[0], (long long)shape[1],
             axis, descending ? " descending" : "");
    clbt_assert_matches_host(v, hv, CLBT_EXACT, 0, what);
    clbt_assert_matches_host(i, hi, CLBT_EXACT, 0, what);
    /* topk of the same rows is the sort's head */
    clb_tensor *kv = NULL, *ki = NULL, *hk = NULL, *hki = NULL;
    int64_t k = len < 8 ? len : 8;
    CLBT_OK(clb_topk(t, k, axis, descending, &kv, &ki));
    CLBT_OK(clb_topk(th, k, axis, descending, &hk, &hki));
    clbt_assert_matches_host(kv, hk, CLBT_EXACT, 0, what);
    clbt_assert_matches_host(ki, hki, CLBT_EXACT, 0, what);
    /* the host's own top-k (a scan keeping k) against the head of its sort */
    clb_tensor *sv = NULL, *si = NULL;
    CLBT_OK(clb_slice(hv, axis, 0, k, 1, &sv));
    CLBT_OK(clb_slice(hi, axis, 0, k, 1, &si));
    clbt_assert_matches_host(hk, sv, CLBT_EXACT, 0, what);
    clbt_assert_matches_host(hki, si, CLBT_EXACT, 0, what);
    clb_tensor *tr[] = {t, th, v, i, hv, hi, kv, ki, hk, hki, sv, si};
    for (size_t j = 0; j < sizeof tr / sizeof *tr; j++) clb_tensor_release(tr[j]);
}

/* rows of len elements (1100 rows: enough for every device's one-pass top-k, a
   work item a row): the device's top-k against the host's. */
static void topk_random_case(clb_context *ctx, clb_dtype dt, int64_t rows, int64_t len, int64_t k,
                             bool largest)
{
    const int64_t shape[2] = {rows, len};
    clb_tensor *t = random_tensor(ctx, dt, 2, shape, 77 + (uint64_t)len), *th = on_host(t);
    clb_tensor *v = NULL, *i = NULL, *hv = NULL, *hi = NULL;
    CLBT_OK(clb_topk(t, k, 1, largest, &v, &i));
    CLBT_OK(clb_topk(th, k, 1, largest, &hv, &hi));
    char what[128];
    snprintf(what, sizeof what, "%s: topk k=%lld of dtype %d, rows of %lld%s",
             clb_context_device_name(ctx), (long long)k, (int)dt, (long long)len,
             largest ? " (largest)" : "");
    clbt_assert_matches_host(v, hv, CLBT_EXACT, 0, what);
    clbt_assert_matches_host(i, hi, CLBT_EXACT, 0, what);
    clb_tensor *tr[] = {t, th, v, i, hv, hi};
    for (size_t j = 0; j < sizeof tr / sizeof *tr; j++) clb_tensor_release(tr[j]);
}

/* The top-k in both forms on every device (cl/sort.cl's clb_topk_rows / _chunks and
   clb_topk_rows_vec / _chunks_vec: chunks of 16, the bound for k <= 16, the tail past the last
   chunk, a list that ends the row early when its last key is the least key: bool
   smallest, NaN largest), on values with many ties. The dtypes are the sorts' above
   (their programs built already) and a few of the vector keys' other cases. */
static void topk_random(clb_context *ctx, bool sim)
{
    static const struct {
        clb_dtype dt;
        int64_t len, k;
        bool largest;
    } cases[] = {
        {CLB_FLOAT32, 37, 5, true},   {CLB_INT16, 37, 37, false},   {CLB_FLOAT32, 301, 16, true},
        {CLB_FLOAT32, 301, 3, false}, {CLB_FLOAT32, 301, 20, true}, {CLB_FLOAT16, 64, 16, false},
        {CLB_FLOAT64, 70, 7, true},   {CLB_INT64, 50, 16, false},   {CLB_INT8, 100, 9, true},
        {CLB_BOOL, 40, 4, false},     {CLB_UINT16, 33, 5, true},    {CLB_INT32, 33, 2, false},
    };
    const size_t ncases = sim ? 2 : sizeof cases / sizeof *cases;
    for (int form = 0; form < (CLB_HAVE_OPENCL ? 2 : 1); form++) {
#if CLB_HAVE_OPENCL
        clb__cl_index_runs = form;
#endif
        for (size_t c = 0; c < ncases; c++)
            topk_random_case(ctx, cases[c].dt, 1100, cases[c].len, cases[c].k, cases[c].largest);
        /* rows too few for a work item a row: levels of chunks (src/opencl/cl_topk.c) */
        if (!sim) {
            topk_random_case(ctx, CLB_FLOAT32, 3, 5003, 16, true);
            topk_random_case(ctx, CLB_FLOAT32, 2, 4099, 3, false);
        }
    }
#if CLB_HAVE_OPENCL
    clb__cl_index_runs = -1;
#endif
}

static void sort_random(clb_context *ctx, const char *sel)
{
    (void)sel;
    const bool sim = clbt_is_simulator(ctx);
    /* rows of 1, a prime, a prime past one tile (2048) and past one work-group */
    sort_random_case(ctx, CLB_FLOAT32, 3, 1, 1, false, 1);
    sort_random_case(ctx, CLB_FLOAT32, 5, 7, 1, false, 2);
    sort_random_case(ctx, CLB_FLOAT32, 2, sim ? 67 : 4099, 1, true, 3);
    sort_random_case(ctx, CLB_FLOAT32, 33, sim ? 13 : 257, 0, false, 4);
    sort_random_case(ctx, CLB_INT8, 4, sim ? 31 : 2053, 1, true, 5);
    topk_random(ctx, sim);
    if (!sim) {
        sort_random_case(ctx, CLB_FLOAT32, 1, 100003, 1, false, 6); /* > local memory */
        sort_random_case(ctx, CLB_FLOAT16, 3, 3001, 1, false, 7);
        sort_random_case(ctx, CLB_FLOAT64, 3, 1001, 1, true, 8);
        sort_random_case(ctx, CLB_INT64, 7, 999, 0, false, 9);
    }
    if (CLBT_SLOW && !sim) /* a row of 2^20: eight merge passes past the largest tile */
        sort_random_case(ctx, CLB_FLOAT32, 1, (int64_t)1 << 20, 1, true, 10);
}


static void scan_random(clb_context *ctx, const char *sel)
{
    (void)sel;
    const bool sim = clbt_is_simulator(ctx);
    const struct {
        clb_dtype dt;
        int64_t shape[3];
        int axis;
        bool prod;
    } cases[] = {
        {CLB_FLOAT32, {3, 5000, 1}, 1, false}, {CLB_FLOAT32, {7, 300, 5}, 1, false},
        {CLB_INT8, {2, 70001, 1}, 1, false},   {CLB_FLOAT32, {4, 9, 200}, 0, true},
        {CLB_FLOAT32, {2, 1, 3}, 2, false},    {CLB_FLOAT32, {3, 70, 1}, 1, true},
        {CLB_FLOAT64, {2, 3000, 1}, 1, false},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        if (cases[c].dt == CLB_FLOAT64 && !clbt_has_fp64(ctx)) {
            /* the float64 policy: refused with CLB_ERR_DTYPE where the device has none */
            clb_tensor *t = random_tensor(ctx, CLB_FLOAT64, 1, (int64_t[]){3}, 1), *r = NULL;
            CLBT_F64(ctx, clb_cumsum(t, 0, &r));
            clb_tensor_release(t);
            continue;
        }
        int64_t shape[3];
        for (int d = 0; d < 3; d++) shape[d] = sim ? (cases[c].shape[d] > 9 ? 9 : cases[c].shape[d]) : cases[c].shape[d];
        clb_tensor *t = random_tensor(ctx, cases[c].dt, 3, shape, 11 + c), *th = on_host(t);
        clb_tensor *r = NULL, *hr = NULL, *rev = NULL, *rr = NULL, *hrr = NULL, *hrev = NULL;
        clb_status (*f)(const clb_tensor *, int, clb_tensor **) = cases[c].prod ? clb_cumprod : clb_cumsum;
        CLBT_OK(f(t, cases[c].axis, &r));
        CLBT_OK(f(th, cases[c].axis, &hr));
        char what[96];
        snprintf(what, sizeof what, "%s: scan case %zu", clb_context_device_name(ctx), c);
        clbt_assert_matches_host(r, hr, 1e-5, 1e-5, what);
        /* a negative-stride view along the axis */
        CLBT_OK(clb_slice(t, cases[c].axis, CLB_NONE, CLB_NONE, -1, &rev));
        CLBT_OK(clb_slice(th, cases[c].axis, CLB_NONE, CLB_NONE, -1, &hrev));
        CLBT_OK(f(rev, cases[c].axis, &rr));
        CLBT_OK(f(hrev, cases[c].axis, &hrr));
        clbt_assert_matches_host(rr, hrr, 1e-5, 1e-5, what);
        clb_tensor *tr[] = {t, th, r, hr, rev, rr, hrr, hrev};
        for (size_t j = 0; j < sizeof tr / sizeof *tr; j++) clb_tensor_release(tr[j]);
    }
    if (sim) return;
    scan_accuracy(ctx, CLBT_SLOW ? (int64_t)1 << 24 : (int64_t)1 << 18, 1);
    /* columns: the form the shape picks, and the single pass in runs of 16 */
    for (int form = 0; form < 2; form++) {
#if CLB_HAVE_OPENCL
        clb__cl_scan_strip_cols = form ? 16 : -1;
#endif
        scan_accuracy(ctx, CLBT_SLOW ? (int64_t)1 << 24 : (int64_t)1 << 16, CLBT_SLOW ? 2 : 32);
    }
#if CLB_HAVE_OPENCL
    clb__cl_scan_strip_cols = -1;
#endif
}


/* Indices of dtype dt in [-n, n) (non-negative for unsigned dt); element bad_at
   (if >= 0) set to n, out of range. */
static clb_tensor *index_tensor(clb_context *ctx, clb_dtype dt, int ndim, const int64_t *shape,
                                int64_t n, uint64_t seed, int64_t bad_at)
{
    int64_t count = 1;
    for (int d = 0; d < ndim; d++) count *= shape[d];
    int64_t *v = malloc((size_t)count * sizeof *v);
    assert_non_null(v);
    const bool neg = dt == CLB_INT8 || dt == CLB_INT16 || dt == CLB_INT32 || dt == CLB_INT64;
    for (int64_t i = 0; i < count; i++) {
        uint64_t r = clbt_rand(&seed);
        v[i] = neg ? (int64_t)(r % (uint64_t)(2 * n)) - n : (int64_t)(r % (uint64_t)n);
    }
    if (bad_at >= 0) v[bad_at] = n;
    clb_tensor *t64 = clbt_tensor(ctx, CLB_INT64, ndim, shape, v), *t = NULL;
    CLBT_OK(clb_cast(t64, dt, &t));
    clb_tensor_release(t64);
    free(v);
    return t;
}

/* take (or take_along_axis) of a random (ts) tensor of dtype dt against the host
   backend, then the same with one index out of range. */
static void take_case(clb_context *ctx, clb_dtype dt, const int64_t *ts, int axis, int indim,
                      const int64_t *is, bool along, clb_dtype idt, uint64_t seed)
{
    clb_status (*f)(const clb_tensor *, const clb_tensor *, int, clb_tensor **) =
        along ? clb_take_along_axis : clb_take;
    const char *fn = along ? "clb_take_along_axis" : "clb_take";
    clb_tensor *t = random_tensor(ctx, dt, 2, ts, seed), *th = on_host(t);
    clb_tensor *ix = index_tensor(ctx, idt, indim, is, ts[axis], seed + 1, -1), *ixh = on_host(ix);
    clb_tensor *r = NULL, *hr = NULL;
    CLBT_OK(f(t, ix, axis, &r));
    CLBT_OK(f(th, ixh, axis, &hr));
    char what[160];
    snprintf(what, sizeof what, "%s: %s of %s (%lld, %lld) axis %d, %s indices",
             clb_context_device_name(ctx), fn, clb_dtype_name(dt), (long long)ts[0],
             (long long)ts[1], axis, clb_dtype_name(idt));
    clbt_assert_matches_host(r, hr, CLBT_EXACT, 0, what);
    clb_tensor_release(r);
    clb_tensor_release(ix);
    int64_t count = 1;
    for (int d = 0; d < indim; d++) count *= is[d];
    ix = index_tensor(ctx, idt, indim, is, ts[axis], seed + 2, count / 2);
    r = GARBAGE;
    expect_error(f(t, ix, axis, &r), CLB_ERR_INVALID_ARGUMENT, fn, r);
    clb_tensor *tr[] = {t, th, ix, ixh, hr};
    for (size_t j = 0; j < sizeof tr / sizeof *tr; j++) clb_tensor_release(tr[j]);
}

/* take's kernel forms on every device (cl/take.cl): the CPU form (runs of rows
   or of elements a work item, whole rows and rows cut into chunks, streaming
   stores on aligned and unaligned rows) and the one-element form, forced both
   ways; element widths 1, 4 and 8 bytes, signed and unsigned indices. */
static void take_forms(clb_context *ctx, const char *sel)
{
    (void)sel;
    for (int form = 0; form < 2; form++) {
#if CLB_HAVE_OPENCL
        clb__cl_index_runs = form;
        clb__cl_streaming_min_bytes = form ? 0 : -1;
#endif
        take_case(ctx, CLB_FLOAT32, (int64_t[]){37, 100}, 0, 1, (int64_t[]){50}, false, CLB_INT64, 31);
        take_case(ctx, CLB_FLOAT32, (int64_t[]){3, 5000}, 0, 1, (int64_t[]){2}, false, CLB_INT32, 32);
        take_case(ctx, CLB_FLOAT32, (int64_t[]){6, 40}, 1, 1, (int64_t[]){7}, false, CLB_INT16, 33);
        take_case(ctx, CLB_FLOAT32, (int64_t[]){40, 30}, 1, 2, (int64_t[]){40, 5}, true, CLB_INT64, 34);
        take_case(ctx, CLB_FLOAT32, (int64_t[]){9, 30}, 0, 2, (int64_t[]){7, 30}, true, CLB_UINT64, 35);
        /* 1200 elements: two work items of the CPU form (1024 a work item), the
           second starting mid-row and ending on a partial batch of 16. */
        take_case(ctx, CLB_FLOAT32, (int64_t[]){40, 37}, 1, 2, (int64_t[]){40, 30}, true, CLB_INT64, 38);
        if (form) {
            take_case(ctx, CLB_INT8, (int64_t[]){200, 48}, 0, 1, (int64_t[]){300}, false, CLB_UINT8, 36);
            take_case(ctx, CLB_INT64, (int64_t[]){40, 64}, 0, 1, (int64_t[]){130}, false, CLB_INT16, 37);
        }
    }
#if CLB_HAVE_OPENCL
    clb__cl_index_runs = -1;
    clb__cl_streaming_min_bytes = -1;
#endif
}

/* The scans' kernel forms on every device (cl/scan.cl): the CPU forms (float
   rows as vectors of 8, float columns over runs of whole rows, with a tail of
   columns past the last 16 and several block levels, and the single pass over
   runs of columns, chosen by the shape, never, or forced in runs of 80 (runs
   of 64, 16 and single columns); streaming stores) and the element loops,
   forced both ways, against the host backend. */
static void scan_forms(clb_context *ctx, const char *sel)
{
    (void)sel;
    const bool sim = clbt_is_simulator(ctx);
    const struct {
        clb_dtype dt;
        int64_t shape[3];
        bool prod;
    } cases[] = {
        {CLB_FLOAT32, {3, 700, 40}, false}, {CLB_FLOAT32, {2, 9000, 16}, false},
        {CLB_FLOAT32, {5, 200, 3}, true},   {CLB_FLOAT32, {3, 5000, 1}, false},
        {CLB_FLOAT64, {2, 300, 17}, false}, {CLB_FLOAT32, {2, 90, 150}, false},
    };
    for (int form = 0; form < 4; form++) {
#if CLB_HAVE_OPENCL
        clb__cl_index_runs = form > 0;
        clb__cl_streaming_min_bytes = form > 0 ? 0 : -1;
        clb__cl_scan_strip_cols = form == 2 ? 0 : form == 3 ? 80 : -1;
#else
        if (form > 1) break;
#endif
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
            if (cases[c].dt == CLB_FLOAT64 && !clbt_has_fp64(ctx)) continue;
            int64_t shape[3];
            for (int d = 0; d < 3; d++) shape[d] = sim && d == 1 ? 70 : cases[c].shape[d];
            clb_tensor *t = random_tensor(ctx, cases[c].dt, 3, shape, 41 + c), *th = on_host(t);
            clb_tensor *r = NULL, *hr = NULL;
            clb_status (*f)(const clb_tensor *, int, clb_tensor **) = cases[c].prod ? clb_cumprod : clb_cumsum;
            CLBT_OK(f(t, 1, &r));
            CLBT_OK(f(th, 1, &hr));
            char what[96];
            snprintf(what, sizeof what, "%s: scan form %d, case %zu", clb_context_device_name(ctx),
                     form, c);
            clbt_assert_matches_host(r, hr, 1e-5, 1e-5, what);
            clb_tensor *tr[] = {t, th, r, hr};
            for (size_t j = 0; j < sizeof tr / sizeof *tr; j++) clb_tensor_release(tr[j]);
        }
    }
#if CLB_HAVE_OPENCL
    clb__cl_index_runs = -1;
    clb__cl_streaming_min_bytes = -1;
    clb__cl_scan_strip_cols = -1;
#endif
}

static void take_random(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t ts[3] = {5, 37, 6}, is[3] = {5, 11, 1};
    clb_tensor *t = random_tensor(ctx, CLB_FLOAT32, 3, ts, 21), *th = on_host(t);
    int64_t idx[55];
    uint64_t rs = 5;
    for (int i = 0; i < 55; i++) idx[i] = (int64_t)(clbt_rand(&rs) % 74) - 37;
    clb_tensor *ix = clbt_tensor(ctx, CLB_INT64, 3, is, idx), *ixh = on_host(ix);
    clb_tensor *r = NULL, *hr = NULL;
    CLBT_OK(clb_take_along_axis(t, ix, 1, &r));
    CLBT_OK(clb_take_along_axis(th, ixh, 1, &hr));
    clbt_assert_matches_host(r, hr, CLBT_EXACT, 0, "take_along_axis random");
    clb_tensor_release(r);
    clb_tensor_release(hr);
    CLBT_OK(clb_take(t, ix, 1, &r));
    CLBT_OK(clb_take(th, ixh, 1, &hr));
    clbt_assert_matches_host(r, hr, CLBT_EXACT, 0, "take random");
    clb_tensor *tr[] = {t, th, ix, ixh, r, hr};
    for (size_t j = 0; j < sizeof tr / sizeof *tr; j++) clb_tensor_release(tr[j]);
}

/* NULL arguments: a status naming the function, every out slot NULL. */
static void test_null_arguments(void **state)
{
    (void)state;
    clb_tensor *t = clbt_tensor(g_host, CLB_FLOAT32, 1, (int64_t[]){2}, (float[]){1, 2});
    clb_tensor *r = GARBAGE, *r2 = GARBAGE;
    expect_error(clb_take(NULL, t, 0, &r), CLB_ERR_INVALID_ARGUMENT, "clb_take", r);
    r = GARBAGE;
    expect_error(clb_take(t, NULL, 0, &r), CLB_ERR_INVALID_ARGUMENT, "clb_take", r);
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_take(t, t, 0, NULL));
    r = GARBAGE;
    expect_error(clb_take_along_axis(t, NULL, 0, &r), CLB_ERR_INVALID_ARGUMENT,
                 "clb_take_along_axis", r);
    r = GARBAGE;
    expect_error(clb_sort(NULL, 0, 0, &r, &r2), CLB_ERR_INVALID_ARGUMENT, "clb_sort", r);
    assert_null(r2);
    r = r2 = GARBAGE;
    expect_error(clb_topk(NULL, 1, 0, 1, &r, &r2), CLB_ERR_INVALID_ARGUMENT, "clb_topk", r);
    assert_null(r2);
    r = GARBAGE;
    expect_error(clb_cumsum(NULL, 0, &r), CLB_ERR_INVALID_ARGUMENT, "clb_cumsum", r);
    r = GARBAGE;
    expect_error(clb_cumprod(NULL, 0, &r), CLB_ERR_INVALID_ARGUMENT, "clb_cumprod", r);
    r = GARBAGE;
    expect_error(clb_nonzero(NULL, &r), CLB_ERR_INVALID_ARGUMENT, "clb_nonzero", r);
    r = GARBAGE;
    expect_error(clb_masked_select(t, NULL, &r), CLB_ERR_INVALID_ARGUMENT, "clb_masked_select", r);
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_nonzero(t, NULL));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_cumsum(t, 0, NULL));
    clb_tensor_release(t);
}

#define DEVICE_TEST(name)                                                                          \
    static void test_##name(void **state)                                                          \
    {                                                                                              \
        (void)state;                                                                               \
        clbt_for_each_device(name);                                                                \
    }
DEVICE_TEST(take_literals)
DEVICE_TEST(along_literals)
DEVICE_TEST(scan_literals)
DEVICE_TEST(sort_literals)
DEVICE_TEST(topk_literals)
DEVICE_TEST(select_literals)
DEVICE_TEST(sort_random)
DEVICE_TEST(scan_random)
DEVICE_TEST(take_random)
DEVICE_TEST(take_forms)
DEVICE_TEST(scan_forms)

int main(void)
{
    g_host = clbt_host();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_take_literals),  cmocka_unit_test(test_along_literals),
        cmocka_unit_test(test_scan_literals),  cmocka_unit_test(test_sort_literals),
        cmocka_unit_test(test_topk_literals),  cmocka_unit_test(test_select_literals),
        cmocka_unit_test(test_sort_random),    cmocka_unit_test(test_scan_random),
        cmocka_unit_test(test_take_random),    cmocka_unit_test(test_take_forms),
        cmocka_unit_test(test_scan_forms),     cmocka_unit_test(test_null_arguments),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    clb_context_release(g_host);
    return rc;
}
