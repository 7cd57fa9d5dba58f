/* Every kernel specialization the library generates, once each, on tiny
 * shapes: the set ./dev test runs under the Oclgrind simulator (which reports
 * out-of-bounds, uninitialized and racy accesses), with the 32-bit and the
 * 64-bit index path (CLB_TEST_INDEX64=1 in a fault-injection build). Too many
 * program builds for a real compiler in CI time, so it is not in the normal
 * suite: `meson test --suite oclgrind` runs it on any device.
 *
 *  - copy/cast: all 12 x 12 dtype pairs from a non-contiguous view; bit copies
 *    of every width at ranks 0..10 after coalescing (above 8 the stride table
 *    goes through a buffer), from permuted and broadcast views;
 *  - element-wise: every binary op on each dtype class (bool, signed, unsigned,
 *    each float), with broadcasting and a permuted input; every unary op;
 *    where with three broadcast operands;
 *  - reduce: every op on each dtype class, over an inner, an outer, a middle
 *    and all axes; sum_to_shape; the CPU row/column fast paths (forced on
 *    with CLB_REDUCE_FAST=1) for each float dtype, one and two passes;
 *  - matmul on float32, float64 and int32 with a broadcast batch;
 *  - fused broadcast reductions (cl/eval_reduce.cl): clb_eval_reduce (float
 *    sum, max, int32 sum), var, softmax, log_softmax and logsumexp over rows,
 *    columns and everything, with partials, in the lane-tree form and in the
 *    CPU forms (forced with CLB_REDUCE_FAST=1); argmax's vector scan (forced
 *    with CLB_ARGREDUCE_LANES=1);
 *  - take_along_axis for each element width (int32 and uint64 indices), sort and
 *    cumsum for each dtype class (rows in one local-memory tile, and float32 rows
 *    of tiles and merge passes), cumprod in several scan blocks, nonzero and
 *    masked_select;
 *  - streaming stores (forced on): copies, a repeat, a cast and adds;
 *  - made on the device (issue 28): full of every item size, arange and
 *    linspace on each dtype class, both random draws on each float dtype,
 *    clb_tensor_format's edge reads of a summarised swapaxes view;
 *  - negative strides (clb_slice): reversed and stepped views through copies,
 *    a cast, adds, an _into with a negative-stride out, reductions, eval and
 *    matmul; clb_concat and clb_stack with a reversed input and a cast.
 * Each result is compared with the host backend's. A dtype the simulated
 * device lacks (CLB_ERR_DTYPE) is counted and skipped; every other failure,
 * CLB_ERR_UNSUPPORTED included, fails the run. */
#include "testutil.h"

#include <math.h>
#include <stdbool.h>

#define NDTYPES 12
static const clb_dtype all_dtypes[NDTYPES] = {
    CLB_BOOL,   CLB_INT8,   CLB_UINT8,  CLB_INT16,   CLB_UINT16,  CLB_INT32,
    CLB_UINT32, CLB_INT64,  CLB_UINT64, CLB_FLOAT16, CLB_FLOAT32, CLB_FLOAT64,
};
/* One dtype per kernel class of the element-wise and reduction kernels. */
#define NCLASSES 7
static const clb_dtype class_dtypes[NCLASSES] = {CLB_BOOL,    CLB_INT8,    CLB_INT64,  CLB_UINT32,
                                                 CLB_FLOAT16, CLB_FLOAT32, CLB_FLOAT64};

static clb_context *host;
static int checked, skipped;

static int setup(void **state)
{
    (void)state;
    return clbt_host_open(&host); /* tests/testutil.h */
}

static int teardown(void **state)
{
    (void)state;
    clb_context_release(host);
    print_message("  %d specializations checked, %d not supported by the device\n", checked,
                  skipped);
    return 0;
}

/* Small valid values for any dtype: 0..6 shifted to -3..3 where signed. */
static clb_tensor *make(clb_context *ctx, clb_dtype dt, int ndim, const int64_t *shape,
                        uint64_t seed)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    clb_tensor *f = NULL, *t = NULL;
    double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    assert_non_null(v);
    bool is_unsigned = dt == CLB_UINT8 || dt == CLB_UINT16 || dt == CLB_UINT32 || dt == CLB_UINT64;
    for (int64_t i = 0; i < n; i++) {
        double x = (double)(clbt_rand(&seed) % 7);
        v[i] = dt == CLB_BOOL ? (double)((int)x & 1) : is_unsigned ? x : x - 3;
        if (dt >= CLB_FLOAT16) v[i] = v[i] / 2 + 0.25; /* fractions too, all exact in float16 */
    }
    CLBT_OK(clb_tensor_from_host(ctx, CLB_FLOAT64, ndim, shape, v, &f));
    CLBT_OK(clb_cast(f, dt, &t));
    clb_tensor_release(f);
    free(v);
    return t;
}

/* A copy of t on the host context (same layout of values). */
static clb_tensor *to_host_ctx(const clb_tensor *t)
{
    void *bytes = clbt_read(t);
    clb_tensor *h = clbt_tensor(host, clb_tensor_dtype(t), clb_tensor_ndim(t), clb_tensor_shape(t),
                                bytes);
    free(bytes);
    return h;
}

/* The device's result against the host's (tests/testutil.h): same shape and
   dtype, values equal (floats within 1e-3, the float16 resolution). */
static void compare(const clb_tensor *dev, const clb_tensor *ref, const char *what)
{
    /* Read through the host context so only the kernel under test differs. */
    clb_tensor *h = to_host_ctx(dev);
    clbt_assert_matches_host(h, ref, 1e-3, 1e-3, what);
    clb_tensor_release(h);
    checked++;
}

/* Whether a device status is a decline to count, rather than a failure. */
static bool declined(clb_status st, const char *what)
{
    if (st == CLB_ERR_DTYPE) {
        skipped++;
        return true;
    }
    if (st != CLB_OK) fail_msg("%s: %s: %s", what, clb_status_name(st), clb_last_error());
    return false;
}

/* The same tensor on the device context. */
static clb_tensor *on(clb_context *ctx, const clb_tensor *h)
{
    void *bytes = clbt_read(h);
    clb_tensor *t = clbt_tensor(ctx, clb_tensor_dtype(h), clb_tensor_ndim(h), clb_tensor_shape(h), bytes);
    free(bytes);
    return t;
}

/* ---- copies ------------------------------------------------------------------ */

static void copies(clb_context *ctx)
{
    char what[128];
    /* every cast pair, from a transposed (non-contiguous) source */
    for (int s = 0; s < NDTYPES; s++) {
        clb_tensor *hs = make(host, all_dtypes[s], 2, (const int64_t[]){3, 2}, 7u + (unsigned)s);
        clb_tensor *ds = on(ctx, hs), *hv = NULL, *dv = NULL;
        CLBT_OK(clb_permute(hs, (const int[]){1, 0}, &hv));
        CLBT_OK(clb_permute(ds, (const int[]){1, 0}, &dv));
        for (int d = 0; d < NDTYPES; d++) {
            clb_tensor *hr = NULL, *dr = NULL;
            snprintf(what, sizeof what, "cast %s -> %s", clb_dtype_name(all_dtypes[s]),
                     clb_dtype_name(all_dtypes[d]));
            CLBT_OK(clb_cast(hv, all_dtypes[d], &hr));
            if (!declined(clb_cast(dv, all_dtypes[d], &dr), what)) compare(dr, hr, what);
            clb_tensor_release(hr);
            clb_tensor_release(dr);
        }
        clb_tensor_release(hv);
        clb_tensor_release(dv);
        clb_tensor_release(hs);
        clb_tensor_release(ds);
    }
    /* bit copies of each width at every rank: a reversed permutation of
       (2, 3, 2, 3, ...) keeps every axis after coalescing */
    static const clb_dtype widths[4] = {CLB_UINT8, CLB_INT16, CLB_FLOAT32, CLB_INT64};
    for (int w = 0; w < 4; w++) {
        for (int rank = 0; rank <= 10; rank++) {
            int64_t shape[10];
            int perm[10];
            for (int d = 0; d < rank; d++) shape[d] = 2 + d % 2, perm[d] = rank - 1 - d;
            clb_tensor *hs = make(host, widths[w], rank, shape, 99u + (unsigned)rank);
            clb_tensor *ds = on(ctx, hs), *hv = NULL, *dv = NULL, *hr = NULL, *dr = NULL;
            CLBT_OK(clb_permute(hs, perm, &hv));
            CLBT_OK(clb_permute(ds, perm, &dv));
            snprintf(what, sizeof what, "%s copy at rank %d", clb_dtype_name(widths[w]), rank);
            CLBT_OK(clb_contiguous(hv, &hr));
            if (!declined(clb_contiguous(dv, &dr), what)) compare(dr, hr, what);
            clb_tensor_release(hr);
            clb_tensor_release(dr);
            hr = dr = NULL;
            /* a broadcast source: a new leading axis and repeat */
            int64_t reps[11] = {2};
            for (int d = 1; d <= rank; d++) reps[d] = 1 + (d == rank);
            snprintf(what, sizeof what, "%s repeat at rank %d", clb_dtype_name(widths[w]), rank + 1);
            CLBT_OK(clb_repeat(hv, rank + 1, reps, &hr));
            if (!declined(clb_repeat(dv, rank + 1, reps, &dr), what)) compare(dr, hr, what);
            clb_tensor_release(hr);
            clb_tensor_release(dr);
            clb_tensor_release(hv);
            clb_tensor_release(dv);
            clb_tensor_release(hs);
            clb_tensor_release(ds);
        }
    }
}

/* ---- element-wise ------------------------------------------------------------------- */

static void elementwise(clb_context *ctx)
{
    char what[128];
    for (int c = 0; c < NCLASSES; c++) {
        clb_dtype dt = class_dtypes[c];
        /* (3, 1) against a transposed (4, 3) -> broadcast and non-contiguous */
        clb_tensor *ha = make(host, dt, 2, (const int64_t[]){3, 1}, 5u + (unsigned)c);
        clb_tensor *hb0 = make(host, dt, 2, (const int64_t[]){4, 3}, 9u + (unsigned)c), *hb = NULL;
        clb_tensor *da = on(ctx, ha), *db0 = on(ctx, hb0), *db = NULL;
        CLBT_OK(clb_permute(hb0, (const int[]){1, 0}, &hb));
        CLBT_OK(clb_permute(db0, (const int[]){1, 0}, &db));
        for (int op = CLB_ADD; op <= CLB_RIGHT_SHIFT; op++) {
            clb_tensor *hr = NULL, *dr = NULL;
            snprintf(what, sizeof what, "%s on %s", clb_binary_op_name((clb_binary_op)op), clb_dtype_name(dt));
            clb_status hs = clb_binary((clb_binary_op)op, ha, hb, &hr);
            if (hs == CLB_OK && !declined(clb_binary((clb_binary_op)op, da, db, &dr), what))
                compare(dr, hr, what);
            clb_tensor_release(hr);
            clb_tensor_release(dr);
        }
        for (int op = CLB_NEG; op <= CLB_BITWISE_INVERT; op++) {
            clb_tensor *hr = NULL, *dr = NULL;
            snprintf(what, sizeof what, "%s on %s", clb_unary_op_name((clb_unary_op)op), clb_dtype_name(dt));
            clb_status hs = clb_unary((clb_unary_op)op, hb, &hr);
            if (hs == CLB_OK && !declined(clb_unary((clb_unary_op)op, db, &dr), what))
                compare(dr, hr, what);
            clb_tensor_release(hr);
            clb_tensor_release(dr);
        }
        {
            clb_tensor *hc = make(host, CLB_BOOL, 1, (const int64_t[]){4}, 77), *dc = on(ctx, hc);
            clb_tensor *hr = NULL, *dr = NULL;
            snprintf(what, sizeof what, "where on %s", clb_dtype_name(dt));
            CLBT_OK(clb_where(hc, ha, hb, &hr));
            if (!declined(clb_where(dc, da, db, &dr), what)) compare(dr, hr, what);
            clb_tensor_release(hr);
            clb_tensor_release(dr);
            clb_tensor_release(hc);
            clb_tensor_release(dc);
        }
        clb_tensor_release(ha);
        clb_tensor_release(hb0);
        clb_tensor_release(hb);
        clb_tensor_release(da);
        clb_tensor_release(db0);
        clb_tensor_release(db);
    }
}

/* ---- reductions and matmul ---------------------------------------------------------- */

/* (2,rows,4) @ (4,cols) of dtype dt on ctx against the host backend; with
   `bt`, the second operand a transposed view of a (cols,4) tensor. */
static void matmul_case(clb_context *ctx, clb_dtype dt, int64_t rows, int64_t cols, bool bt,
                        const char *label)
{
    char what[96];
    clb_tensor *ha = make(host, dt, 3, (const int64_t[]){2, rows, 4}, 3), *da = on(ctx, ha);
    clb_tensor *hb = NULL, *db = NULL;
    if (bt) {
        clb_tensor *hs = make(host, dt, 2, (const int64_t[]){cols, 4}, 4), *ds = on(ctx, hs);
        CLBT_OK(clb_permute(hs, (const int[]){1, 0}, &hb));
        CLBT_OK(clb_permute(ds, (const int[]){1, 0}, &db));
        clb_tensor_release(hs);
        clb_tensor_release(ds);
    } else {
        hb = make(host, dt, 2, (const int64_t[]){4, cols}, 4);
        db = on(ctx, hb);
    }
    clb_tensor *hr = NULL, *dr = NULL;
    snprintf(what, sizeof what, "%s of %s", label, clb_dtype_name(dt));
    CLBT_OK(clb_matmul(ha, hb, &hr));
    if (!declined(clb_matmul(da, db, &dr), what)) compare(dr, hr, what);
    clb_tensor_release(hr);
    clb_tensor_release(dr);
    clb_tensor_release(ha);
    clb_tensor_release(da);
    clb_tensor_release(hb);
    clb_tensor_release(db);
}

static void reductions(clb_context *ctx, const char *selector)
{
    char what[128];
    static const int axes_sets[4][2] = {{2, 0}, {0, 0}, {1, 0}, {0, 2}};
    static const int naxes[4] = {1, 1, 1, 2};
    for (int c = 0; c < NCLASSES; c++) {
        clb_dtype dt = class_dtypes[c];
        clb_tensor *h = make(host, dt, 3, (const int64_t[]){3, 4, 5}, 31u + (unsigned)c), *d = on(ctx, h);
        for (int op = CLB_SUM; op <= CLB_ANY; op++) {
            for (int a = 0; a <= 4; a++) {
                clb_tensor *hr = NULL, *dr = NULL;
                snprintf(what, sizeof what, "%s of %s over axis set %d", clb_reduce_op_name((clb_reduce_op)op),
                         clb_dtype_name(dt), a);
                const int *axes = a < 4 ? axes_sets[a] : NULL;
                int n = a < 4 ? naxes[a] : 0;
                clb_status hs = clb_reduce((clb_reduce_op)op, h, n, axes, a == 1, &hr);
                if (hs == CLB_OK && !declined(clb_reduce((clb_reduce_op)op, d, n, axes, a == 1, &dr), what))
                    compare(dr, hr, what);
                clb_tensor_release(hr);
                clb_tensor_release(dr);
            }
        }
        clb_tensor *hr = NULL, *dr = NULL;
        snprintf(what, sizeof what, "sum_to_shape of %s", clb_dtype_name(dt));
        clb_status hs = clb_sum_to_shape(h, 2, (const int64_t[]){4, 1}, &hr);
        if (hs == CLB_OK && !declined(clb_sum_to_shape(d, 2, (const int64_t[]){4, 1}, &dr), what))
            compare(dr, hr, what);
        clb_tensor_release(hr);
        clb_tensor_release(dr);
        clb_tensor_release(h);
        clb_tensor_release(d);
    }
    /* The CPU fast paths (float SUM/MEAN), forced on: columns in one pass and in
       two bands, rows in one pass and in partials (then the general kernel), and
       one row too few for the items, read as two rows of 4096 (split_long_rows). */
    static const struct {
        int ndim;
        int64_t shape[3];
        int naxes, axes[2];
    } fast[5] = {{2, {9, 32}, 1, {0, 0}}, {2, {130, 16}, 1, {0, 0}},
                 {2, {1, 64}, 1, {1, 0}}, {3, {3, 2, 64}, 2, {0, 2}}, {1, {8192}, 1, {0, 0}}};
    static const clb_dtype fast_dtypes[3] = {CLB_FLOAT16, CLB_FLOAT32, CLB_FLOAT64};
    /* Options are read when a context is created: one made under the variable. */
    setenv("CLB_REDUCE_FAST", "1", 1);
    clb_context *forced = NULL;
    CLBT_OK(clb_context_create(selector, &forced));
    unsetenv("CLB_REDUCE_FAST");
    for (int f = 0; f < 3; f++) {
        for (int k = 0; k < 5; k++) {
            clb_tensor *h = make(host, fast_dtypes[f], fast[k].ndim, fast[k].shape, 57u + (unsigned)k);
            clb_tensor *d = on(forced, h);
            for (int op = CLB_SUM; op <= CLB_MEAN; op++) {
                clb_tensor *hr = NULL, *dr = NULL;
                snprintf(what, sizeof what, "fast-path %s of %s, case %d",
                         clb_reduce_op_name((clb_reduce_op)op), clb_dtype_name(fast_dtypes[f]), k);
                clb_status hs = clb_reduce((clb_reduce_op)op, h, fast[k].naxes, fast[k].axes, 0, &hr);
                if (hs == CLB_OK &&
                    !declined(clb_reduce((clb_reduce_op)op, d, fast[k].naxes, fast[k].axes, 0, &dr), what))
                    compare(dr, hr, what);
                clb_tensor_release(hr);
                clb_tensor_release(dr);
            }
            clb_tensor_release(h);
            clb_tensor_release(d);
        }
    }
    clb_context_release(forced);
    static const clb_dtype mm[3] = {CLB_FLOAT32, CLB_FLOAT64, CLB_INT32};
    for (int m = 0; m < 3; m++) matmul_case(ctx, mm[m], 3, 5, false, "matmul");
    /* The register-blocked float kernel, whose last tile of m = 7 rows lies
       partly past the end (reads clamped, stores skipped). */
    setenv("CLB_MATMUL_IMPL", "kernel", 1);
    CLBT_OK(clb_context_create(selector, &forced));
    unsetenv("CLB_MATMUL_IMPL");
    for (int m = 0; m < 2; m++) matmul_case(forced, mm[m], 7, 16, false, "blocked matmul");
    /* clb_matmul_nt: a transposed b read in place, m = 7 and n = 5 past its
       4 x 4 tile, k = 4 below its 8-wide runs (lane 0 only). */
    for (int m = 0; m < 2; m++) matmul_case(forced, mm[m], 7, 5, true, "transposed-b matmul");
    clb_context_release(forced);
}

#if CLB_HAVE_OPENCL
extern _Atomic int64_t clb__cl_streaming_min_bytes; /* src/opencl/cl_launch.h */

/* Streaming stores forced on: contiguous and broadcast bit copies of each
   width, a cast, and float32/int64 adds, on rows that are multiples of the
   vector width (the vector store) and rows that are not (the plain store). */
static void streaming(clb_context *ctx)
{
    char what[128];
    clb__cl_streaming_min_bytes = 0;
    static const clb_dtype dts[4] = {CLB_UINT8, CLB_INT16, CLB_FLOAT32, CLB_INT64};
    for (int w = 0; w < 4; w++) {
        for (int64_t inner = 16; inner <= 19; inner += 3) {
            const int64_t shape[2] = {3, inner};
            clb_tensor *hs = make(host, dts[w], 2, shape, 3u + (unsigned)w), *ds = on(ctx, hs);
            clb_tensor *hr = NULL, *dr = NULL;
            snprintf(what, sizeof what, "streaming %s repeat, rows of %lld", clb_dtype_name(dts[w]),
                     (long long)inner);
            CLBT_OK(clb_repeat(hs, 2, (const int64_t[]){2, 1}, &hr));
            if (!declined(clb_repeat(ds, 2, (const int64_t[]){2, 1}, &dr), what)) compare(dr, hr, what);
            clb_tensor_release(hr);
            clb_tensor_release(dr);
            hr = dr = NULL;
            /* (3, 1) -> (3, inner): the broadcast path */
            clb_tensor *hc = make(host, dts[w], 2, (const int64_t[]){3, 1}, 5u), *dc = on(ctx, hc);
            clb_tensor *he = NULL, *de = NULL;
            CLBT_OK(clb_expand(hc, 2, shape, &he));
            CLBT_OK(clb_expand(dc, 2, shape, &de));
            snprintf(what, sizeof what, "streaming %s expand copy", clb_dtype_name(dts[w]));
            CLBT_OK(clb_contiguous(he, &hr));
            if (!declined(clb_contiguous(de, &dr), what)) compare(dr, hr, what);
            clb_tensor_release(hr);
            clb_tensor_release(dr);
            hr = dr = NULL;
            snprintf(what, sizeof what, "streaming %s cast to float32", clb_dtype_name(dts[w]));
            CLBT_OK(clb_cast(hs, CLB_FLOAT32, &hr));
            if (!declined(clb_cast(ds, CLB_FLOAT32, &dr), what)) compare(dr, hr, what);
            clb_tensor_release(hr);
            clb_tensor_release(dr);
            hr = dr = NULL;
            snprintf(what, sizeof what, "streaming %s add, rows of %lld", clb_dtype_name(dts[w]),
                     (long long)inner);
            CLBT_OK(clb_binary(CLB_ADD, hs, hc, &hr));
            if (!declined(clb_binary(CLB_ADD, ds, dc, &dr), what)) compare(dr, hr, what);
            clb_tensor_release(hr);
            clb_tensor_release(dr);
            clb_tensor_release(he);
            clb_tensor_release(de);
            clb_tensor_release(hc);
            clb_tensor_release(dc);
            clb_tensor_release(hs);
            clb_tensor_release(ds);
        }
    }
    clb__cl_streaming_min_bytes = -1;
}
#endif

/* ---- negative strides, slices and assembling ----------------------------------------- */

/* Reversed and stepped views (negative strides, offsets counted down from the
   view's first element) through copies, a cast, element-wise ops, an _into with
   a negative-stride out, reductions, eval and matmul; then concat and stack. */
static void slices(clb_context *ctx)
{
    char what[128];
    clb_tensor *hx = make(host, CLB_FLOAT32, 2, (const int64_t[]){5, 6}, 31), *dx = on(ctx, hx);
    /* x[::-1, :], x[:, ::-1], x[4:0:-2, 5::-3] */
    const int64_t sl[3][6] = {{0, CLB_NONE, CLB_NONE, -1, 1, 1},
                              {1, CLB_NONE, CLB_NONE, -1, 0, 1},
                              {0, 4, 0, -2, 1, -3}};
    for (int v = 0; v < 3; v++) {
        clb_tensor *h0 = NULL, *d0 = NULL, *hv = NULL, *dv = NULL;
        CLBT_OK(clb_slice(hx, (int)sl[v][0], sl[v][1], sl[v][2], sl[v][3], &h0));
        CLBT_OK(clb_slice(dx, (int)sl[v][0], sl[v][1], sl[v][2], sl[v][3], &d0));
        int64_t step2 = sl[v][5];
        CLBT_OK(clb_slice(h0, (int)sl[v][4], step2 < 0 ? 5 : CLB_NONE, CLB_NONE, step2, &hv));
        CLBT_OK(clb_slice(d0, (int)sl[v][4], step2 < 0 ? 5 : CLB_NONE, CLB_NONE, step2, &dv));
        clb_tensor *hr = NULL, *dr = NULL;
        snprintf(what, sizeof what, "contiguous of negative-stride view %d", v);
        CLBT_OK(clb_contiguous(hv, &hr));
        if (!declined(clb_contiguous(dv, &dr), what)) compare(dr, hr, what);
        clb_tensor_release(hr), clb_tensor_release(dr), hr = dr = NULL;
        snprintf(what, sizeof what, "cast to float16 of negative-stride view %d", v);
        CLBT_OK(clb_cast(hv, CLB_FLOAT16, &hr));
        if (!declined(clb_cast(dv, CLB_FLOAT16, &dr), what)) compare(dr, hr, what);
        clb_tensor_release(hr), clb_tensor_release(dr), hr = dr = NULL;
        snprintf(what, sizeof what, "add of negative-stride view %d", v);
        CLBT_OK(clb_binary(CLB_ADD, hv, hv, &hr));
        if (!declined(clb_binary(CLB_ADD, dv, dv, &dr), what)) compare(dr, hr, what);
        clb_tensor_release(hr), clb_tensor_release(dr), hr = dr = NULL;
        if (v == 1) { /* x[:, ::-1] beside a forward x: the reversed-input vector paths */
            for (int side = 0; side < 2; side++) {
                snprintf(what, sizeof what, "sub with a reversed input on side %d", side);
                CLBT_OK(clb_binary(CLB_SUB, side ? hx : hv, side ? hv : hx, &hr));
                if (!declined(clb_binary(CLB_SUB, side ? dx : dv, side ? dv : dx, &dr), what))
                    compare(dr, hr, what);
                clb_tensor_release(hr), clb_tensor_release(dr), hr = dr = NULL;
            }
        }
        for (int ax = -1; ax <= 1; ax++) {
            const int axes[1] = {ax};
            snprintf(what, sizeof what, "sum over %d of negative-stride view %d", ax, v);
            CLBT_OK(clb_reduce(CLB_SUM, hv, ax == 1 ? 0 : 1, ax == 1 ? NULL : axes, 0, &hr));
            if (!declined(clb_reduce(CLB_SUM, dv, ax == 1 ? 0 : 1, ax == 1 ? NULL : axes, 0, &dr), what))
                compare(dr, hr, what);
            clb_tensor_release(hr), clb_tensor_release(dr), hr = dr = NULL;
        }
        {
            const char *names[1] = {"x"};
            const clb_tensor *hi[1] = {hv}, *di[1] = {dv};
            snprintf(what, sizeof what, "eval of negative-stride view %d", v);
            CLBT_OK(clb_eval(host, "x * x - 1", 1, names, hi, &hr));
            if (!declined(clb_eval(ctx, "x * x - 1", 1, names, di, &dr), what)) compare(dr, hr, what);
            clb_tensor_release(hr), clb_tensor_release(dr), hr = dr = NULL;
        }
        clb_tensor_release(hv), clb_tensor_release(dv), clb_tensor_release(h0), clb_tensor_release(d0);
    }
    /* an _into writing through out = base[::-1, ::-2] */
    {
        clb_tensor *hb = make(host, CLB_FLOAT32, 2, (const int64_t[]){5, 12}, 3), *db = on(ctx, hb);
        clb_tensor *h0 = NULL, *d0 = NULL, *ho = NULL, *dout = NULL;
        CLBT_OK(clb_slice(hb, 0, CLB_NONE, CLB_NONE, -1, &h0));
        CLBT_OK(clb_slice(db, 0, CLB_NONE, CLB_NONE, -1, &d0));
        CLBT_OK(clb_slice(h0, 1, CLB_NONE, CLB_NONE, -2, &ho));
        CLBT_OK(clb_slice(d0, 1, CLB_NONE, CLB_NONE, -2, &dout));
        CLBT_OK(clb_binary_into(CLB_MUL, hx, hx, ho));
        if (!declined(clb_binary_into(CLB_MUL, dx, dx, dout), "binary_into a negative-stride out"))
            compare(db, hb, "binary_into a negative-stride out");
        clb_tensor_release(ho), clb_tensor_release(dout), clb_tensor_release(h0), clb_tensor_release(d0);
        clb_tensor_release(hb), clb_tensor_release(db);
    }
    /* matmul of x[::-1] (5, 6) @ x[:, ::-1]^T (6, 5) */
    {
        clb_tensor *ha = NULL, *da = NULL, *h1 = NULL, *d1 = NULL, *hbt = NULL, *dbt = NULL, *hr = NULL, *dr = NULL;
        CLBT_OK(clb_slice(hx, 0, CLB_NONE, CLB_NONE, -1, &ha));
        CLBT_OK(clb_slice(dx, 0, CLB_NONE, CLB_NONE, -1, &da));
        CLBT_OK(clb_slice(hx, 1, CLB_NONE, CLB_NONE, -1, &h1));
        CLBT_OK(clb_slice(dx, 1, CLB_NONE, CLB_NONE, -1, &d1));
        CLBT_OK(clb_permute(h1, (const int[]){1, 0}, &hbt));
        CLBT_OK(clb_permute(d1, (const int[]){1, 0}, &dbt));
        CLBT_OK(clb_matmul(ha, hbt, &hr));
        if (!declined(clb_matmul(da, dbt, &dr), "matmul of negative-stride views"))
            compare(dr, hr, "matmul of negative-stride views");
        clb_tensor_release(hr), clb_tensor_release(dr), clb_tensor_release(hbt), clb_tensor_release(dbt);
        clb_tensor_release(h1), clb_tensor_release(d1), clb_tensor_release(ha), clb_tensor_release(da);
    }
    /* concat along 0 and -1 and stack, with a reversed input and a cast */
    {
        clb_tensor *hi = make(host, CLB_INT16, 2, (const int64_t[]){5, 6}, 8), *di = on(ctx, hi);
        clb_tensor *hr0 = NULL, *dr0 = NULL;
        CLBT_OK(clb_slice(hi, 0, CLB_NONE, CLB_NONE, -1, &hr0));
        CLBT_OK(clb_slice(di, 0, CLB_NONE, CLB_NONE, -1, &dr0));
        const clb_tensor *hin[3] = {hx, hr0, hx}, *din[3] = {dx, dr0, dx};
        for (int k = 0; k < 3; k++) {
            clb_tensor *hr = NULL, *dr = NULL;
            int axis = k == 0 ? 0 : -1;
            snprintf(what, sizeof what, "%s along %d", k < 2 ? "concat" : "stack", axis);
            CLBT_OK(k < 2 ? clb_concat(3, hin, axis, &hr) : clb_stack(3, hin, axis, &hr));
            if (!declined(k < 2 ? clb_concat(3, din, axis, &dr) : clb_stack(3, din, axis, &dr), what))
                compare(dr, hr, what);
            clb_tensor_release(hr), clb_tensor_release(dr);
        }
        clb_tensor_release(hr0), clb_tensor_release(dr0), clb_tensor_release(hi), clb_tensor_release(di);
    }
    clb_tensor_release(hx);
    clb_tensor_release(dx);
}

/* ---- argmax / argmin (cl/argreduce.cl): one program per dtype class, both ops ---- */

static void argreductions(clb_context *ctx)
{
    char what[128];
    for (int c = 0; c < NCLASSES; c++) {
        clb_dtype dt = class_dtypes[c];
        /* Rows shorter and longer than the 64 lanes, one of a single element, and
           (one class) rows long enough to split into pieces and their merge. */
        static const int64_t shapes[4][2] = {{3, 5}, {2, 130}, {4, 1}, {2, 33000}};
        for (int k = 0; k < (c == 0 ? 4 : 3); k++) {
            clb_tensor *h = make(host, dt, 2, shapes[k], 71u + (unsigned)c), *d = on(ctx, h);
            for (int is_min = 0; is_min < 2; is_min++) {
                clb_tensor *hr = NULL, *dr = NULL;
                snprintf(what, sizeof what, "%s of %s (%lld, %lld)", is_min ? "argmin" : "argmax",
                         clb_dtype_name(dt), (long long)shapes[k][0], (long long)shapes[k][1]);
                clb_status hs = is_min ? clb_argmin(h, 1, 0, &hr) : clb_argmax(h, 1, 0, &hr);
                if (hs == CLB_OK &&
                    !declined(is_min ? clb_argmin(d, 1, 0, &dr) : clb_argmax(d, 1, 0, &dr), what))
                    compare(dr, hr, what);
                clb_tensor_release(hr);
                clb_tensor_release(dr);
            }
            clb_tensor_release(h);
            clb_tensor_release(d);
        }
    }
}

/* ---- take, sort, scans, nonzero / masked_select (cl/take.cl, sort.cl, scan.cl,
   select.cl): each element width of the gather, the sort's local-memory tile
   (one tile a row, and tiles then merge passes) for each dtype class, the
   blocked scan in one and in several levels, both scatters ---- */

static void indexing(clb_context *ctx)
{
    char what[128];
    static const clb_dtype widths[4] = {CLB_BOOL, CLB_INT16, CLB_FLOAT32, CLB_FLOAT64};
    for (int w = 0; w < 4; w++) {
        const int64_t ts[2] = {4, 5}, is[2] = {4, 2};
        clb_tensor *h = make(host, widths[w], 2, ts, 5u), *d = on(ctx, h);
        clb_tensor *hi0 = make(host, CLB_UINT8, 2, is, 9u), *hi = NULL, *di = NULL;
        CLBT_OK(clb_cast(hi0, w == 1 ? CLB_UINT64 : CLB_INT32, &hi));
        di = on(ctx, hi);
        clb_tensor *hr = NULL, *dr = NULL;
        snprintf(what, sizeof what, "take_along_axis of %s", clb_dtype_name(widths[w]));
        if (clb_take_along_axis(h, hi, 1, &hr) == CLB_OK &&
            !declined(clb_take_along_axis(d, di, 1, &dr), what))
            compare(dr, hr, what);
        clb_tensor_release(hr), clb_tensor_release(dr);
        clb_tensor_release(h), clb_tensor_release(d), clb_tensor_release(hi0);
        clb_tensor_release(hi), clb_tensor_release(di);
    }
    for (int c = 0; c < NCLASSES; c++) {
        clb_dtype dt = class_dtypes[c];
        static const int64_t shapes[3][2] = {{3, 7}, {2, 1}, {2, 2100}};
        for (int k = 0; k < (c == 5 ? 3 : 2); k++) {
            clb_tensor *h = make(host, dt, 2, shapes[k], 31u + (unsigned)c), *d = on(ctx, h);
            clb_tensor *hv = NULL, *hx = NULL, *dv = NULL, *dx = NULL;
            snprintf(what, sizeof what, "sort of %s (%lld, %lld)", clb_dtype_name(dt),
                     (long long)shapes[k][0], (long long)shapes[k][1]);
            if (clb_sort(h, 1, k == 0, &hv, &hx) == CLB_OK &&
                !declined(clb_sort(d, 1, k == 0, &dv, &dx), what)) {
                compare(dv, hv, what);
                compare(dx, hx, what);
            }
            clb_tensor_release(hv), clb_tensor_release(hx);
            clb_tensor_release(dv), clb_tensor_release(dx);
            snprintf(what, sizeof what, "cumsum of %s (%lld, %lld)", clb_dtype_name(dt),
                     (long long)shapes[k][0], (long long)shapes[k][1]);
            if (clb_cumsum(h, 1, &hv) == CLB_OK && !declined(clb_cumsum(d, 1, &dv), what))
                compare(dv, hv, what);
            clb_tensor_release(hv), clb_tensor_release(dv);
            clb_tensor_release(h), clb_tensor_release(d);
        }
    }
    /* topk in one pass (a work item a row: rows enough for every device's rule) */
    {
        clb_tensor *h = make(host, CLB_FLOAT32, 2, (const int64_t[]){1030, 6}, 8u), *d = on(ctx, h);
        clb_tensor *hv = NULL, *hx = NULL, *dv = NULL, *dx = NULL;
        if (clb_topk(h, 3, 1, 1, &hv, &hx) == CLB_OK &&
            !declined(clb_topk(d, 3, 1, 1, &dv, &dx), "topk")) {
            compare(dv, hv, "topk (1030, 6) k=3");
            compare(dx, hx, "topk (1030, 6) k=3 indices");
        }
        clb_tensor_release(hv), clb_tensor_release(hx), clb_tensor_release(dv);
        clb_tensor_release(dx), clb_tensor_release(h), clb_tensor_release(d);
    }
    /* topk in levels of chunks (cl_topk.c: rows too few for a work item a row) */
    {
        clb_tensor *h = make(host, CLB_FLOAT32, 2, (const int64_t[]){3, 700}, 9u), *d = on(ctx, h);
        clb_tensor *hv = NULL, *hx = NULL, *dv = NULL, *dx = NULL;
        if (clb_topk(h, 4, 1, 0, &hv, &hx) == CLB_OK &&
            !declined(clb_topk(d, 4, 1, 0, &dv, &dx), "topk in chunks")) {
            compare(dv, hv, "topk (3, 700) k=4 smallest");
            compare(dx, hx, "topk (3, 700) k=4 smallest indices");
        }
        clb_tensor_release(hv), clb_tensor_release(hx), clb_tensor_release(dv);
        clb_tensor_release(dx), clb_tensor_release(h), clb_tensor_release(d);
    }
    /* cumprod over a middle axis in several blocks; nonzero; masked_select */
    const int64_t ms[3] = {2, 300, 3};
    clb_tensor *h = make(host, CLB_FLOAT32, 3, ms, 3u), *d = on(ctx, h), *hr = NULL, *dr = NULL;
    if (clb_cumprod(h, 1, &hr) == CLB_OK && !declined(clb_cumprod(d, 1, &dr), "cumprod"))
        compare(dr, hr, "cumprod (2, 300, 3) axis 1");
    clb_tensor_release(hr), clb_tensor_release(dr);
    if (clb_nonzero(h, &hr) == CLB_OK && !declined(clb_nonzero(d, &dr), "nonzero"))
        compare(dr, hr, "nonzero");
    clb_tensor_release(hr), clb_tensor_release(dr);
    clb_tensor *hm = make(host, CLB_BOOL, 2, (const int64_t[]){300, 3}, 4u), *dm = on(ctx, hm);
    if (clb_masked_select(h, hm, &hr) == CLB_OK &&
        !declined(clb_masked_select(d, dm, &dr), "masked_select"))
        compare(dr, hr, "masked_select");
    clb_tensor_release(hr), clb_tensor_release(dr);
    clb_tensor_release(h), clb_tensor_release(d), clb_tensor_release(hm), clb_tensor_release(dm);
}

#if CLB_HAVE_OPENCL
extern _Atomic int clb__cl_index_runs;          /* src/opencl/cl_index.h */
extern _Atomic int64_t clb__cl_scan_strip_cols; /* src/opencl/cl_index.h */

/* take's, the scans' and topk's CPU forms (PoCL's), forced on every device with
   streaming stores: take of rows (whole and cut into chunks), take_along_axis's
   batched gather, the float row scan, the whole-row column scan (one and
   several levels, a tail of columns past the last 16, cumprod) and the single pass over
   runs of columns (runs of 80: vectors of 64 and 16 columns and a tail). */
/* Host int64 indices v[j] = (7 * j + 3) % n - (j % 3 == 0 ? n : 0) (some negative). */
static clb_tensor *some_indices(int ndim, const int64_t *shape, int64_t n)
{
    int64_t v[64], count = 1;
    for (int d = 0; d < ndim; d++) count *= shape[d];
    for (int64_t j = 0; j < count && j < 64; j++) v[j] = (7 * j + 3) % n - (j % 3 == 0 ? n : 0);
    return clbt_tensor(host, CLB_INT64, ndim, shape, v);
}

static void indexing_cpu_forms(clb_context *ctx)
{
    char what[128];
    clb__cl_index_runs = 1;
    clb__cl_streaming_min_bytes = 0;
    static const struct {
        clb_dtype dt;
        int64_t t[2], i;
    } takes[3] = {{CLB_FLOAT32, {37, 40}, 9}, {CLB_INT8, {5, 300}, 2}, {CLB_INT64, {6, 20}, 7}};
    for (int c = 0; c < 3; c++) {
        clb_tensor *h = make(host, takes[c].dt, 2, takes[c].t, 61u + (unsigned)c), *d = on(ctx, h);
        clb_tensor *hi = some_indices(1, &takes[c].i, takes[c].t[0]), *di = on(ctx, hi);
        clb_tensor *hr = NULL, *dr = NULL;
        snprintf(what, sizeof what, "take (CPU form) of %s", clb_dtype_name(takes[c].dt));
        if (clb_take(h, hi, 0, &hr) == CLB_OK && !declined(clb_take(d, di, 0, &dr), what))
            compare(dr, hr, what);
        clb_tensor_release(hr), clb_tensor_release(dr);
        clb_tensor_release(hi), clb_tensor_release(di), clb_tensor_release(h), clb_tensor_release(d);
    }
    {
        clb_tensor *h = make(host, CLB_FLOAT32, 2, (const int64_t[]){6, 9}, 63u), *d = on(ctx, h);
        clb_tensor *hi = some_indices(2, (const int64_t[]){6, 4}, 9), *di = on(ctx, hi);
        clb_tensor *hr = NULL, *dr = NULL;
        if (clb_take_along_axis(h, hi, 1, &hr) == CLB_OK &&
            !declined(clb_take_along_axis(d, di, 1, &dr), "take_along_axis (CPU form)"))
            compare(dr, hr, "take_along_axis (CPU form)");
        clb_tensor_release(hr), clb_tensor_release(dr);
        clb_tensor_release(hi), clb_tensor_release(di), clb_tensor_release(h), clb_tensor_release(d);
    }
    static const struct {
        clb_dtype dt;
        int64_t s[3];
        bool prod;
    } scans[4] = {{CLB_FLOAT32, {2, 300, 1}, false}, {CLB_FLOAT32, {2, 150, 100}, false},
                  {CLB_FLOAT64, {1, 9, 33}, false},  {CLB_FLOAT32, {3, 70, 17}, true}};
    for (int c = 0; c < 8; c++) {
        clb__cl_scan_strip_cols = c < 4 ? 0 : 80;
        clb_tensor *h = make(host, scans[c % 4].dt, 3, scans[c % 4].s, 65u + (unsigned)c), *d = on(ctx, h);
        clb_tensor *hr = NULL, *dr = NULL;
        snprintf(what, sizeof what, "%s (CPU form, %s) of %s (%lld, %lld, %lld)",
                 scans[c % 4].prod ? "cumprod" : "cumsum", c < 4 ? "blocked" : "single pass",
                 clb_dtype_name(scans[c % 4].dt), (long long)scans[c % 4].s[0],
                 (long long)scans[c % 4].s[1], (long long)scans[c % 4].s[2]);
        clb_status (*f)(const clb_tensor *, int, clb_tensor **) = scans[c % 4].prod ? clb_cumprod : clb_cumsum;
        if (f(h, 1, &hr) == CLB_OK && !declined(f(d, 1, &dr), what)) compare(dr, hr, what);
        clb_tensor_release(hr), clb_tensor_release(dr), clb_tensor_release(h), clb_tensor_release(d);
    }
    clb__cl_scan_strip_cols = -1;
    /* topk's vector form (cl/sort.cl's clb_topk_rows_vec): a chunk of 16, the
       bound of k <= 16 and a tail of 5 */
    {
        clb_tensor *h = make(host, CLB_FLOAT32, 2, (const int64_t[]){1030, 21}, 9u), *d = on(ctx, h);
        clb_tensor *hv = NULL, *hx = NULL, *dv = NULL, *dx = NULL;
        if (clb_topk(h, 3, 1, 1, &hv, &hx) == CLB_OK &&
            !declined(clb_topk(d, 3, 1, 1, &dv, &dx), "topk (vector form)")) {
            compare(dv, hv, "topk (vector form) (1030, 21) k=3");
            compare(dx, hx, "topk (vector form) (1030, 21) k=3 indices");
        }
        clb_tensor_release(hv), clb_tensor_release(hx), clb_tensor_release(dv);
        clb_tensor_release(dx), clb_tensor_release(h), clb_tensor_release(d);
    }
    clb__cl_index_runs = -1;
    clb__cl_streaming_min_bytes = -1;
}
#endif

/* ---- fused broadcast reductions (cl/eval_reduce.cl) ---------------------------------- */

#if CLB_HAVE_OPENCL
static void fused_on(clb_context *ctx, const char *form)
{
    char what[160];
    static const struct {
        int64_t x[2], y[2];
        int naxes, axis;
    } cases[5] = {{{3, 40}, {1, 40}, 1, 1},     /* rows with a tail */
                  {{5, 64}, {1, 64}, 1, 0},     /* columns: lanes over outputs */
                  {{2, 9000}, {2, 1}, 1, 1},    /* long rows: partials (CPU form) */
                  {{1, 20000}, {1, 1}, 1, 1},   /* one long row: partials (tree form) */
                  {{6, 7}, {6, 1}, 0, 0}};      /* everything */
    const char *names[2] = {"x", "y"};
    for (int c = 0; c < 5; c++) {
        const int ax[1] = {cases[c].axis};
        const int *axes = cases[c].naxes ? ax : NULL;
        for (int k = 0; k < 4; k++) {
            clb_dtype dt = k == 3 ? CLB_INT32 : CLB_FLOAT32;
            clb_tensor *hx = make(host, dt, 2, cases[c].x, 81u + (unsigned)c), *dx = on(ctx, hx);
            clb_tensor *hy = make(host, dt, 2, cases[c].y, 91u + (unsigned)c), *dy = on(ctx, hy);
            const clb_tensor *hin[2] = {hx, hy}, *din[2] = {dx, dy};
            clb_tensor *hr = NULL, *dr = NULL;
            clb_status hs = CLB_OK, ds = CLB_OK;
            const char *e = k == 1 ? "x * y - x" : "(x - y) * (x - y)";
            clb_reduce_op op = k == 2 ? CLB_MAX : CLB_SUM;
            snprintf(what, sizeof what, "%s: eval_reduce %s %s %s, case %d", form, e,
                     clb_reduce_op_name(op), clb_dtype_name(dt), c);
            hs = clb_eval_reduce(host, e, 2, names, hin, op, cases[c].naxes, axes, 0, &hr);
            ds = clb_eval_reduce(ctx, e, 2, names, din, op, cases[c].naxes, axes, 0, &dr);
            if (hs == CLB_OK && !declined(ds, what)) compare(dr, hr, what);
            clb_tensor_release(hr), clb_tensor_release(dr);
            hr = dr = NULL;
            if (k == 0) { /* the statistics of x */
                for (int s = 0; s < 4; s++) {
                    static const char *const fns[4] = {"var", "softmax", "log_softmax",
                                                       "logsumexp"};
                    snprintf(what, sizeof what, "%s: %s, case %d", form, fns[s], c);
                    int a = cases[c].axis;
                    switch (s) {
                    case 0:
                        hs = clb_var(hx, cases[c].naxes, axes, 1, 0, &hr);
                        ds = clb_var(dx, cases[c].naxes, axes, 1, 0, &dr);
                        break;
                    case 1:
                        hs = clb_softmax(hx, a, &hr);
                        ds = clb_softmax(dx, a, &dr);
                        break;
                    case 2:
                        hs = clb_log_softmax(hx, a, &hr);
                        ds = clb_log_softmax(dx, a, &dr);
                        break;
                    default:
                        hs = clb_logsumexp(hx, cases[c].naxes, axes, 0, &hr);
                        ds = clb_logsumexp(dx, cases[c].naxes, axes, 0, &dr);
                    }
                    if (hs == CLB_OK && !declined(ds, what)) compare(dr, hr, what);
                    clb_tensor_release(hr), clb_tensor_release(dr);
                    hr = dr = NULL;
                }
            }
            clb_tensor_release(hx), clb_tensor_release(dx);
            clb_tensor_release(hy), clb_tensor_release(dy);
        }
    }
}
#endif

#if CLB_HAVE_OPENCL
static void fused(const char *selector)
{
    /* The device's own form, then the other one (options are read when a context is
       created: one made under each setting). */
    for (int f = 0; f < 2; f++) {
        setenv("CLB_REDUCE_FAST", f ? "1" : "0", 1);
        if (f == 1) setenv("CLB_ARGREDUCE_LANES", "1", 1);
        clb_context *forced = NULL;
        CLBT_OK(clb_context_create(selector, &forced));
        unsetenv("CLB_REDUCE_FAST");
        unsetenv("CLB_ARGREDUCE_LANES");
        fused_on(forced, f ? "CPU form" : "tree form");
        if (f == 1) {
            /* argmax's vector scan, float32 and float16: rows of one chain of 16
               lanes and a tail (37), of the four chains, chain 0's vectors after
               them and a tail (211), and (float32) in pieces (33000) */
            for (int k = 0; k < 5; k++) {
                clb_dtype dt = k % 2 ? CLB_FLOAT16 : CLB_FLOAT32;
                const int64_t shape[2] = {k < 4 ? 3 : 2, k < 2 ? 37 : k < 4 ? 211 : 33000};
                clb_tensor *h = make(host, dt, 2, shape, 7u), *d = on(forced, h), *hr = NULL,
                           *dr = NULL;
                char what[64];
                snprintf(what, sizeof what, "argmax vector scan of %s (%lld)", clb_dtype_name(dt),
                         (long long)shape[1]);
                clb_status hs = clb_argmax(h, 1, 0, &hr);
                if (hs == CLB_OK && !declined(clb_argmax(d, 1, 0, &dr), what)) compare(dr, hr, what);
                clb_tensor_release(hr), clb_tensor_release(dr);
                clb_tensor_release(h), clb_tensor_release(d);
            }
        }
        clb_context_release(forced);
    }
}
#endif

/* ---- made on the device (cl/generate.cl) ------------------------------------------ */

static void made(clb_context *ctx)
{
    char what[128];
    const int64_t shape[2] = {3, 7};
    for (size_t k = 0; k < NDTYPES; k++) {
        clb_dtype dt = all_dtypes[k];
        clb_tensor *h[5] = {NULL}, *d[5] = {NULL};
        const clb_scalar one = {.kind = CLB_SCALAR_INT, .i = 1};
        clb_status hs[5], ds[5];
        hs[0] = clb_full(host, dt, 2, shape, one, &h[0]);
        ds[0] = clb_full(ctx, dt, 2, shape, one, &d[0]);
        hs[1] = clb_arange(host, dt, 0, dt == CLB_BOOL ? 2 : 21, 1, &h[1]);
        ds[1] = clb_arange(ctx, dt, 0, dt == CLB_BOOL ? 2 : 21, 1, &d[1]);
        hs[2] = clb_linspace(host, dt, 0, 100, 13, 1, &h[2]);
        ds[2] = clb_linspace(ctx, dt, 0, 100, 13, 1, &d[2]);
        hs[3] = clb_random_uniform(host, dt, 2, shape, 5, 3, -1, 1, &h[3]);
        ds[3] = clb_random_uniform(ctx, dt, 2, shape, 5, 3, -1, 1, &d[3]);
        hs[4] = clb_random_normal(host, dt, 2, shape, 5, 3, 0, 1, &h[4]);
        ds[4] = clb_random_normal(ctx, dt, 2, shape, 5, 3, 0, 1, &d[4]);
        for (int i = 0; i < 5; i++) {
            snprintf(what, sizeof what, "generate %d on %s", i, clb_dtype_name(dt));
            if (hs[i] == CLB_OK && !declined(ds[i], what)) compare(d[i], h[i], what);
            clb_tensor_release(h[i]);
            clb_tensor_release(d[i]);
        }
    }
    clb_tensor *a = NULL, *r = NULL, *s = NULL;
    CLBT_OK(clb_arange(ctx, CLB_INT32, 0, 40 * 50, 1, &a));
    CLBT_OK(clb_reshape(a, 2, (const int64_t[]){40, 50}, &r));
    CLBT_OK(clb_swapaxes(r, 0, 1, &s));
    size_t need = 0;
    CLBT_OK(clb_tensor_format(s, NULL, 0, &need));
    assert_true(need > 100);
    clb_tensor_release(a);
    clb_tensor_release(r);
    clb_tensor_release(s);
}

#if CLB_HAVE_OPENCL
extern _Atomic int clb__cl_map_blocked; /* src/opencl/cl_launch.h */

/* generate.cl's CPU forms on any device: full, float32 arange and linspace
   with streaming stores (64-byte units, a tail), and float32 draws in both
   forms (a call a work item, a block on vector lanes) over whole and partial
   blocks. */
static void made_forced(clb_context *ctx)
{
    char what[128];
    const int64_t n = 203;
    const clb_scalar v = {.kind = CLB_SCALAR_FLOAT, .f = 2.5};
    for (int k = 0; k < 7; k++) {
        clb_tensor *h = NULL, *d = NULL;
        clb__cl_streaming_min_bytes = k < 3 ? 0 : -1;
        clb__cl_map_blocked = k < 3 ? -1 : (k - 3) % 2;
        const bool normal = k >= 5;
        for (int side = 0; side < 2; side++) {
            clb_context *c = side ? ctx : host;
            clb_tensor **t = side ? &d : &h;
            if (k == 0) CLBT_OK(clb_full(c, CLB_FLOAT32, 1, &n, v, t));
            else if (k == 1) CLBT_OK(clb_arange(c, CLB_FLOAT32, 1, 1 + (double)n, 1, t));
            else if (k == 2) CLBT_OK(clb_linspace(c, CLB_FLOAT32, 0, 1, n, 1, t));
            else if (normal) CLBT_OK(clb_random_normal(c, CLB_FLOAT32, 1, &n, 5, 3, 0, 1, t));
            else CLBT_OK(clb_random_uniform(c, CLB_FLOAT32, 1, &n, 5, 3, -1, 1, t));
        }
        snprintf(what, sizeof what, "generate, CPU form %d", k);
        compare(d, h, what);
        clb_tensor_release(h);
        clb_tensor_release(d);
    }
    clb__cl_streaming_min_bytes = -1;
    clb__cl_map_blocked = -1;
}
#endif

static void all(clb_context *ctx, const char *selector)
{
    slices(ctx);
    copies(ctx);
    elementwise(ctx);
#if CLB_HAVE_OPENCL
    streaming(ctx);
#endif
    reductions(ctx, selector);
    argreductions(ctx);
    made(ctx);
#if CLB_HAVE_OPENCL
    made_forced(ctx);
#endif
    indexing(ctx);
#if CLB_HAVE_OPENCL
    indexing_cpu_forms(ctx);
    fused(selector);
#endif
}

static void test_set(void **state)
{
    (void)state;
    clbt_for_each_device(all);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
