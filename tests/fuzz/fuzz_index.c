/* Fuzz target: picking, ordering and running totals on the host backend
 * (clb_take, clb_take_along_axis, clb_sort, clb_topk, clb_cumsum, clb_cumprod,
 * clb_nonzero, clb_masked_select) with fuzzed shapes (0-size included), dtypes,
 * axes, k and indices (out of range and negative included). A call either fails
 * with a message and *out NULL, or its result holds against a direct
 * computation: take's elements, a sort that is ordered, stable and a
 * permutation, topk equal to the sort's head, exact integer running sums, and
 * the selections' counts and values. No storage outlives an input. */
#include "fuzz_input.h"

#include "clbroadcast.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXN 256

static clb_context *ctx;
static const clb_dtype mix[4] = {CLB_INT8, CLB_INT64, CLB_FLOAT32, CLB_FLOAT64};

static void check(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_index: %s\n", what);
        abort();
    }
}

static void check_failure(clb_status st, const clb_tensor *out)
{
    check(st != CLB_OK && out == NULL, "a failed call left *out set");
    check(clb_last_error()[0] != '\0', "a failed call left no message");
}

static void values(const clb_tensor *t, double *v)
{
    clb_tensor *f = NULL;
    check(clb_tensor_numel(t) <= MAXN * MAXN, "result too large");
    check(clb_cast(t, CLB_FLOAT64, &f) == CLB_OK, "cast to float64");
    check(clb_tensor_to_host(f, v, (size_t)clb_tensor_numel(t) * sizeof *v) == CLB_OK, "to_host");
    clb_tensor_release(f);
}

/* A C-contiguous tensor of small values (-3..3; floats may be NaN) as v holds them. */
static clb_tensor *fuzz_tensor(fuzz_input *in, clb_dtype dt, int ndim, const int64_t *shape,
                               double *v)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    union { int8_t i8[MAXN]; int64_t i64[MAXN]; float f32[MAXN]; double f64[MAXN]; } buf;
    for (int64_t i = 0; i < n; i++) {
        unsigned b = fuzz_u8(in);
        double x = (double)((int)(b % 7) - 3);
        if ((dt == CLB_FLOAT32 || dt == CLB_FLOAT64) && b % 11 == 10) x = NAN;
        v[i] = x;
        if (dt == CLB_INT8) buf.i8[i] = (int8_t)x;
        else if (dt == CLB_INT64) buf.i64[i] = (int64_t)x;
        else if (dt == CLB_FLOAT32) buf.f32[i] = (float)x;
        else buf.f64[i] = x;
    }
    clb_tensor *t = NULL;
    check(clb_tensor_from_host(ctx, dt, ndim, shape, &buf, &t) == CLB_OK, "from_host");
    return t;
}

typedef struct along {
    int64_t outer, n, inner;
} along;

static along split(int ndim, const int64_t *shape, int axis)
{
    along a = {1, shape[axis], 1};
    for (int d = 0; d < axis; d++) a.outer *= shape[d];
    for (int d = axis + 1; d < ndim; d++) a.inner *= shape[d];
    return a;
}

/* Position of element j along the axis for kept position k. */
static int64_t pos(along a, int64_t k, int64_t j)
{
    return (k / a.inner * a.n + j) * a.inner + k % a.inner;
}

/* clb_sort's order: NaN above every number. */
static bool before(double x, double y, bool descending)
{
    if (isnan(x) || isnan(y)) return descending ? isnan(x) && !isnan(y) : !isnan(x) && isnan(y);
    return descending ? x > y : x < y;
}

static void check_sorted(const double *x, along a, const double *sv, const double *si, int64_t m,
                         bool descending)
{
    const int64_t kept = a.outer * a.inner;
    for (int64_t k = 0; k < kept; k++) {
        bool seen[MAXN] = {false};
        for (int64_t j = 0; j < m; j++) {
            const double v = sv[pos((along){a.outer, m, a.inner}, k, j)];
            const double i = si[pos((along){a.outer, m, a.inner}, k, j)];
            check(i >= 0 && i < (double)a.n && !seen[(int64_t)i], "sort: indices not a permutation");
            seen[(int64_t)i] = true;
            const double src = x[pos(a, k, (int64_t)i)];
            check(isnan(v) ? isnan(src) : v == src, "sort: value is not t at its index");
            if (j > 0) {
                const double pv = sv[pos((along){a.outer, m, a.inner}, k, j - 1)];
                const double pi = si[pos((along){a.outer, m, a.inner}, k, j - 1)];
                check(!before(v, pv, descending), "sort: out of order");
                if (!before(pv, v, descending)) check(pi < i, "sort: not stable");
            }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size};
    if (!ctx && clb_context_create("host", &ctx) != CLB_OK) abort();
    static double xv[MAXN], iv[MAXN], got[MAXN * MAXN], got2[MAXN * MAXN];
    int64_t xs[3], is[3];
    const int xd = (int)(fuzz_u8(&in) % 4);
    for (int d = 0; d < xd; d++) xs[d] = (int64_t)(fuzz_u8(&in) % 5);
    const clb_dtype dt = mix[fuzz_u8(&in) % 4];
    clb_tensor *x = fuzz_tensor(&in, dt, xd, xs, xv), *r = NULL, *r2 = NULL, *idx = NULL;
    const int axis = (int)(fuzz_u8(&in) % 9) - 4, ax = axis < 0 ? axis + xd : axis;
    const bool axis_ok = ax >= 0 && ax < xd;
    const along a = axis_ok ? split(xd, xs, ax) : (along){1, 1, 1};
    const int64_t kept = a.outer * a.inner;
    clb_status st;
    switch (fuzz_u8(&in) % 6) {
    case 0: { /* take along axis with 1-d indices, some out of range */
        const int64_t m = (int64_t)(fuzz_u8(&in) % 4);
        int64_t raw[4];
        for (int64_t j = 0; j < m; j++) raw[j] = (int64_t)(fuzz_u8(&in) % 13) - 6;
        check(clb_tensor_from_host(ctx, CLB_INT64, 1, &m, raw, &idx) == CLB_OK, "indices");
        st = clb_take(x, idx, axis, &r);
        bool in_range = true;
        for (int64_t j = 0; j < m; j++) in_range &= axis_ok && raw[j] >= -a.n && raw[j] < a.n;
        if (st != CLB_OK) {
            check_failure(st, r);
            check(!axis_ok || !in_range, "take refused valid indices");
            break;
        }
        check(axis_ok && (in_range || kept == 0), "take accepted a bad axis or index");
        values(r, got);
        const along o = {a.outer, m, a.inner};
        for (int64_t k = 0; k < kept; k++)
            for (int64_t j = 0; j < m; j++) {
                const double want = xv[pos(a, k, raw[j] < 0 ? raw[j] + a.n : raw[j])];
                const double g = got[pos(o, k, j)];
                check(isnan(want) ? isnan(g) : g == want, "take: wrong element");
            }
        break;
    }
    case 1: { /* take_along_axis with indices of x's ndim, broadcast on the other axes */
        for (int d = 0; d < xd; d++) is[d] = (int64_t)(fuzz_u8(&in) % 3);
        clb_tensor *i8 = fuzz_tensor(&in, CLB_INT8, xd, is, iv);
        st = clb_take_along_axis(x, i8, axis, &r);
        if (st != CLB_OK) check_failure(st, r);
        clb_tensor_release(i8);
        break;
    }
    case 2: case 3: { /* sort, topk */
        const bool desc = fuzz_u8(&in) % 2, topk = fuzz_u8(&in) % 4 == 0 ? false : true;
        const int64_t k = (int64_t)(fuzz_u8(&in) % 6) - 1;
        st = topk ? clb_topk(x, k, axis, desc, &r, &r2) : clb_sort(x, axis, desc, &r, &r2);
        if (st != CLB_OK) {
            check(r == NULL && r2 == NULL && clb_last_error()[0], "failed sort left outputs");
            check(!axis_ok || (topk && (k < 0 || k > a.n)), "sort / topk refused a valid call");
            break;
        }
        check(axis_ok && (!topk || (k >= 0 && k <= a.n)), "sort / topk accepted a bad call");
        values(r, got);
        values(r2, got2);
        check_sorted(xv, a, got, got2, topk ? k : a.n, desc);
        break;
    }
    case 4: { /* cumsum / cumprod: integers exactly */
        const bool prod = fuzz_u8(&in) % 2;
        st = prod ? clb_cumprod(x, axis, &r) : clb_cumsum(x, axis, &r);
        if (st != CLB_OK) {
            check_failure(st, r);
            check(!axis_ok, "cumsum / cumprod refused a valid axis");
            break;
        }
        check(axis_ok, "cumsum / cumprod accepted a bad axis");
        values(r, got);
        for (int64_t k = 0; k < kept; k++) {
            double acc = prod ? 1 : 0;
            for (int64_t j = 0; j < a.n; j++) {
                acc = prod ? acc * xv[pos(a, k, j)] : acc + xv[pos(a, k, j)];
                const double g = got[pos(a, k, j)];
                check(isnan(acc) ? isnan(g) : fabs(g - acc) <= 1e-6 * (1 + fabs(acc)),
                      "cumsum / cumprod: wrong running total");
            }
        }
        break;
    }
    default: { /* nonzero, masked_select with a mask of x's last axis */
        int64_t count = 0, n = clb_tensor_numel(x);
        for (int64_t i = 0; i < n; i++) count += xv[i] != 0;
        check(clb_nonzero(x, &r) == CLB_OK, "nonzero");
        check(clb_tensor_shape(r)[0] == count && clb_tensor_shape(r)[1] == xd, "nonzero shape");
        const int64_t ms = xd ? xs[xd - 1] : 1;
        clb_tensor *mask = NULL;
        uint8_t mb[8];
        for (int64_t i = 0; i < ms && i < 8; i++) mb[i] = fuzz_u8(&in) % 2;
        if (ms <= 8) {
            check(clb_tensor_from_host(ctx, CLB_BOOL, xd ? 1 : 0, &ms, mb, &mask) == CLB_OK, "mask");
            check(clb_masked_select(x, mask, &r2) == CLB_OK, "masked_select");
            int64_t sel = 0;
            for (int64_t i = 0; i < n; i++) sel += mb[i % ms];
            check(clb_tensor_numel(r2) == sel, "masked_select count");
            clb_tensor_release(mask);
        }
        break;
    }
    }
    clb_tensor_release(r);
    clb_tensor_release(r2);
    clb_tensor_release(idx);
    clb_tensor_release(x);
    check(clb_memory_allocated(ctx) == 0, "storage outlived its tensors");
    return 0;
}
