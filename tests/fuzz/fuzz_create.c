/* Fuzz target: the everyday API of issue 28 on the host backend: clb_full (and
 * zeros / ones / *_like), clb_arange, clb_linspace, both random draws,
 * clb_swapaxes, clb_tensor_format of views of arbitrary bit patterns (NaN
 * payloads, subnormals, every dtype), and the new element-wise ops and all /
 * any on fuzzed dtypes. A call either fails with a message and *out NULL, or
 * its result holds: full's elements all equal, arange's and linspace's length,
 * draws inside [low, high) and a draw of 2n equal to n then n more at offset n,
 * format's *needed the text's length + 1 however small the buffer. No storage
 * outlives an input. */
#include "fuzz_input.h"

#include "clbroadcast.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXN 512

static clb_context *ctx;

static void check(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_create: %s\n", what);
        abort();
    }
}

static void check_failure(clb_status st, const clb_tensor *out)
{
    check(st != CLB_OK && out == NULL, "a failed call left *out set");
    check(clb_last_error()[0] != '\0', "a failed call left no message");
}

static double fuzz_double(fuzz_input *in)
{
    unsigned tag = fuzz_u8(in);
    if (tag < 160) return (double)((int)(tag % 41) - 20) / (tag & 1 ? 4 : 1);
    uint64_t bits = fuzz_bytes(in, 8);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* A small shape (0..3 dims of 0..5, rarely -1); returns its numel (-1: invalid). */
static int fuzz_shape(fuzz_input *in, int64_t *shape, int *ndim)
{
    *ndim = (int)(fuzz_u8(in) % 4);
    int64_t n = 1;
    for (int d = 0; d < *ndim; d++) {
        unsigned v = fuzz_u8(in);
        shape[d] = v == 255 ? -1 : (int64_t)(v % 6);
        n = shape[d] < 0 || n < 0 ? -1 : n * shape[d];
    }
    return (int)n;
}

static void values(const clb_tensor *t, double *v)
{
    clb_tensor *f = NULL;
    check(clb_tensor_numel(t) <= MAXN, "result too large");
    check(clb_cast(t, CLB_FLOAT64, &f) == CLB_OK, "cast to float64");
    check(clb_tensor_to_host(f, v, MAXN * sizeof *v) == CLB_OK, "to_host");
    clb_tensor_release(f);
}

static void try_format(const clb_tensor *t, fuzz_input *in)
{
    size_t need = 0, again = 0, cap = fuzz_u8(in);
    char small[256], *full = NULL;
    check(clb_tensor_format(t, cap ? small : NULL, cap, &need) == CLB_OK, "format");
    check(need > 0, "format: needed");
    if (cap) check(strlen(small) == (need - 1 < cap - 1 ? need - 1 : cap - 1), "format: truncation");
    full = malloc(need);
    check(full && clb_tensor_format(t, full, need, &again) == CLB_OK && again == need &&
              strlen(full) + 1 == need, "format: full text");
    free(full);
}

static void made(fuzz_input *in, unsigned which)
{
    static double v[MAXN], w[MAXN];
    int64_t shape[4];
    int ndim = 0;
    int n = fuzz_shape(in, shape, &ndim);
    clb_dtype dt = (clb_dtype)(fuzz_u8(in) % 13); /* 12: invalid */
    clb_tensor *r = NULL, *a = NULL, *b = NULL;
    clb_status st;
    if (which == 0) {
        clb_scalar s = {.kind = (clb_scalar_kind)(fuzz_u8(in) % 4), .i = (int64_t)fuzz_bytes(in, 2) - 32768,
                        .f = fuzz_double(in)};
        if (fuzz_u8(in) & 1) s.i = (int64_t)fuzz_bytes(in, 8);
        st = clb_full(ctx, dt, ndim, shape, s, &r);
        if (st != CLB_OK) return check_failure(st, r);
        check(n >= 0 && clb_tensor_numel(r) == n && clb_tensor_dtype(r) == dt, "full: shape");
        values(r, v);
        for (int i = 1; i < n; i++) check(v[i] == v[0] || (isnan(v[i]) && isnan(v[0])), "full: values");
        try_format(r, in);
        check(clb_ones_like(r, &a) == CLB_OK, "ones_like");
    } else if (which == 1) {
        double start = fuzz_double(in), stop = fuzz_double(in), step = fuzz_double(in);
        double len = ceil((stop - start) / step);
        if (isfinite(len) && len > MAXN) return; /* too long to check here */
        st = clb_arange(ctx, dt, start, stop, step, &r);
        if (st != CLB_OK) return check_failure(st, r);
        check(clb_tensor_numel(r) == (len > 0 ? (int64_t)len : 0), "arange: length");
        try_format(r, in);
    } else if (which == 2) {
        int64_t num = (int64_t)(fuzz_u8(in) % 40) - 3;
        st = clb_linspace(ctx, dt, fuzz_double(in), fuzz_double(in), num, (int)(fuzz_u8(in) % 3), &r);
        if (st != CLB_OK) return check_failure(st, r);
        check(clb_tensor_numel(r) == num, "linspace: length");
        try_format(r, in);
    } else {
        bool normal = which == 4;
        uint64_t seed = fuzz_bytes(in, 8), off = fuzz_bytes(in, 8);
        double lo = fuzz_double(in), hi = fuzz_double(in);
        st = normal ? clb_random_normal(ctx, dt, ndim, shape, seed, off, lo, hi, &r)
                    : clb_random_uniform(ctx, dt, ndim, shape, seed, off, lo, hi, &r);
        if (st != CLB_OK) return check_failure(st, r);
        check(n >= 0 && clb_tensor_numel(r) == n, "random: shape");
        values(r, v);
        /* [lo, hi) before the value is rounded to dt: rounding is monotonic, so each
           value lies in [lo, hi] as dt rounds them (float16 bounds between two halves) */
        double rlo = lo, rhi = hi;
        if (!normal && dt != CLB_FLOAT64) {
            clb_tensor *bound = NULL;
            if (clb_full(ctx, dt, 0, NULL, (clb_scalar){.kind = CLB_SCALAR_FLOAT, .f = lo}, &bound) == CLB_OK)
                values(bound, w), rlo = w[0];
            clb_tensor_release(bound);
            bound = NULL;
            if (clb_full(ctx, dt, 0, NULL, (clb_scalar){.kind = CLB_SCALAR_FLOAT, .f = hi}, &bound) == CLB_OK)
                values(bound, w), rhi = w[0];
            clb_tensor_release(bound);
        }
        for (int i = 0; i < n && !normal; i++)
            check(v[i] >= rlo && (v[i] < hi || v[i] <= rhi), "uniform: range");
        int64_t half = n / 2, whole = 2 * half;
        if (half > 0) { /* 2n at offset off == n at off, then n at off + n */
            check(clb_random_uniform(ctx, dt, 1, &whole, seed, off, lo, hi, &a) == CLB_OK ||
                      normal, "uniform: flat draw");
            if (a) {
                check(clb_random_uniform(ctx, dt, 1, &half, seed, off + (uint64_t)half, lo, hi, &b) == CLB_OK,
                      "uniform: second half");
                values(a, v);
                values(b, w);
                for (int64_t i = 0; i < half; i++) check(v[half + i] == w[i], "uniform: offsets");
            }
        }
        try_format(r, in);
    }
    clb_tensor_release(r);
    clb_tensor_release(a);
    clb_tensor_release(b);
}

/* A tensor of dtype dt holding the fuzzer's bytes, viewed swapped and reversed. */
static void views_and_ops(fuzz_input *in)
{
    int64_t shape[4];
    int ndim = 0;
    int n = fuzz_shape(in, shape, &ndim);
    if (n < 0) return;
    clb_dtype dt = (clb_dtype)(fuzz_u8(in) % 12);
    static unsigned char bytes[MAXN * 8];
    for (size_t i = 0; i < (size_t)n * clb_dtype_size(dt); i++) bytes[i] = (unsigned char)fuzz_u8(in);
    clb_tensor *t = NULL, *s = NULL, *rv = NULL, *r = NULL;
    check(clb_tensor_from_host(ctx, dt, ndim, shape, bytes, &t) == CLB_OK, "from_host");
    int a1 = (int)(fuzz_u8(in) % 9) - 4, a2 = (int)(fuzz_u8(in) % 9) - 4;
    clb_status st = clb_swapaxes(t, a1, a2, &s);
    if (st != CLB_OK) {
        check_failure(st, s);
        check(a1 >= ndim || a1 < -ndim || a2 >= ndim || a2 < -ndim, "swapaxes refused valid axes");
    } else {
        check(clb_tensor_shares_storage(s, t), "swapaxes: a view");
        try_format(s, in);
    }
    if (ndim > 0 && clb_slice(t, 0, CLB_NONE, CLB_NONE, -1, &rv) == CLB_OK) try_format(rv, in);
    unsigned op = fuzz_u8(in);
    if (op & 1) st = clb_unary((clb_unary_op)(14 + (op >> 1) % 23), t, &r);
    else st = clb_binary((clb_binary_op)(21 + (op >> 1) % 7), t, t, &r);
    if (st != CLB_OK) check_failure(st, r);
    else try_format(r, in);
    clb_tensor_release(r);
    r = NULL;
    st = clb_reduce((clb_reduce_op)(5 + fuzz_u8(in) % 3), t, 0, NULL, (int)(fuzz_u8(in) % 2), &r);
    if (st != CLB_OK) check_failure(st, r);
    else check(clb_tensor_dtype(r) == CLB_BOOL, "all / any: bool");
    clb_tensor_release(r);
    clb_tensor_release(t);
    clb_tensor_release(s);
    clb_tensor_release(rv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size};
    if (!ctx && clb_context_create("host", &ctx) != CLB_OK) abort();
    unsigned which = fuzz_u8(&in) % 6;
    if (which < 5) made(&in, which);
    else views_and_ops(&in);
    check(clb_memory_allocated(ctx) == 0, "storage outlived the input");
    return 0;
}
