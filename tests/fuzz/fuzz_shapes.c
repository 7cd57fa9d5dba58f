/* Fuzz target: clb_broadcast_shapes and the view functions on arbitrary
 * shapes, axes, permutations and slices (negative steps too), chained so that views of views get every
 * stride pattern the API can produce. Checks, beyond "no crash and no
 * sanitizer report":
 *  - broadcast_shapes agrees with a naive reading of the rule;
 *  - every view stays inside its storage (offset and extent);
 *  - a small view reads back, through to_host, exactly the elements its
 *    shape, strides and offset name. */
#include "fuzz_input.h"

#include "clbroadcast.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#define BASE_MAX 81 /* 3^4: the largest base tensor */
#define READ_MAX 4096

static clb_context *ctx; /* one host context for the whole run */

static void check(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_shapes: %s (last error: %s)\n", what, clb_last_error());
        abort();
    }
}

static int fuzz_shape(fuzz_input *in, int64_t *shape)
{
    int ndim = (int)(fuzz_u8(in) % 70); /* past CLB_MAX_DIMS too */
    for (int d = 0; d < ndim && d < 70; d++) shape[d] = fuzz_size(in);
    return ndim;
}

/* broadcast_shapes against the rule read naively: sizes align right, each
   position takes its one non-1 size, distinct non-1 sizes do not broadcast. */
static void check_broadcast_shapes(fuzz_input *in)
{
    int64_t shapes[4][70], out[CLB_MAX_DIMS];
    int ndims[4], n = 1 + (int)(fuzz_u8(in) % 4), out_ndim = -1;
    const int64_t *ptrs[4];
    for (int i = 0; i < n; i++) ndims[i] = fuzz_shape(in, shapes[i]), ptrs[i] = shapes[i];
    clb_status st = clb_broadcast_shapes(n, ndims, ptrs, &out_ndim, out);
    bool valid = true, mismatch = false;
    int max_ndim = 0;
    for (int i = 0; i < n; i++) {
        if (ndims[i] > CLB_MAX_DIMS) valid = false;
        if (ndims[i] > max_ndim) max_ndim = ndims[i];
        for (int d = 0; d < ndims[i] && d < 70; d++)
            if (shapes[i][d] < 0) valid = false;
    }
    if (valid) {
        for (int k = 1; k <= max_ndim; k++) {
            int64_t size = 1;
            for (int i = 0; i < n; i++) {
                if (k > ndims[i]) continue;
                int64_t s = shapes[i][ndims[i] - k];
                if (s == 1) continue;
                if (size != 1 && size != s) mismatch = true;
                size = s;
            }
            if (st == CLB_OK) check(out[out_ndim - k] == size, "broadcast_shapes: wrong size");
        }
    }
    if (st == CLB_OK) {
        check(valid && !mismatch, "broadcast_shapes accepted invalid shapes");
        check(out_ndim == max_ndim, "broadcast_shapes: wrong ndim");
    } else {
        check(!valid || mismatch || st == CLB_ERR_INVALID_ARGUMENT,
              "broadcast_shapes rejected valid shapes");
        check(clb_last_error()[0] != '\0', "broadcast_shapes failed without a message");
    }
}

/* A start, stop or step for clb_slice: small signed values mostly, CLB_NONE and
   64-bit extremes sometimes. */
static int64_t slice_value(fuzz_input *in)
{
    unsigned pick = fuzz_u8(in);
    if (pick < 24) return CLB_NONE;
    if (pick < 32) return (int64_t)fuzz_bytes(in, 8);
    return (int8_t)fuzz_u8(in) % 8;
}

/* len(range(*slice(start, stop, step).indices(n))), written as Python does it. */
static int64_t py_slice_len(int64_t n, int64_t start, int64_t stop, int64_t step)
{
    int64_t *v[2] = {&start, &stop};
    for (int e = 0; e < 2; e++) {
        if (*v[e] == CLB_NONE && e == 0) *v[e] = step < 0 ? n - 1 : 0;
        else if (*v[e] == CLB_NONE) *v[e] = step < 0 ? -1 : n;
        else if (*v[e] < 0) *v[e] = *v[e] + n < 0 ? (step < 0 ? -1 : 0) : *v[e] + n;
        else if (*v[e] >= n) *v[e] = step < 0 ? n - 1 : n;
    }
    if (step > 0) return start < stop ? (stop - start - 1) / step + 1 : 0;
    return stop < start ? (int64_t)((uint64_t)(start - stop - 1) / ((uint64_t)0 - (uint64_t)step)) + 1 : 0;
}

/* The view must stay within base storage and read back what its layout names. */
static void check_view(const clb_tensor *v, const float *base, int64_t base_numel)
{
    int ndim = clb_tensor_ndim(v);
    const int64_t *shape = clb_tensor_shape(v), *strides = clb_tensor_strides(v);
    int64_t numel = 1, lo = clb_tensor_offset(v), hi = lo;
    bool empty = false;
    for (int d = 0; d < ndim; d++) {
        check(shape[d] >= 0, "negative size in a view");
        if (shape[d] == 0) empty = true;
    }
    if (empty) {
        check(clb_tensor_numel(v) == 0, "numel of an empty view");
        return;
    }
    for (int d = 0; d < ndim; d++) {
        check(numel <= INT64_MAX / shape[d], "view numel overflows");
        numel *= shape[d];
        int64_t span = (shape[d] - 1) * strides[d];
        if (span < 0) lo += span;
        else hi += span;
    }
    check(clb_tensor_numel(v) == numel, "numel disagrees with the shape");
    check(lo >= 0 && hi < base_numel, "view reaches outside its storage");
    if (numel > READ_MAX || clb_tensor_dtype(v) != CLB_FLOAT32) return;
    float *got = malloc((size_t)numel * sizeof *got);
    check(got != NULL, "out of memory");
    check(clb_tensor_to_host(v, got, (size_t)numel * sizeof *got) == CLB_OK, "to_host of a view");
    for (int64_t i = 0; i < numel; i++) {
        int64_t rest = i, at = clb_tensor_offset(v);
        for (int d = ndim - 1; d >= 0; d--) {
            at += (rest % shape[d]) * strides[d];
            rest /= shape[d];
        }
        if (got[i] != base[at]) {
            fprintf(stderr, "view ndim %d offset %lld, element %lld: got %g, layout says %g\n", ndim,
                    (long long)clb_tensor_offset(v), (long long)i, got[i], base[at]);
            for (int d = 0; d < ndim; d++)
                fprintf(stderr, "  axis %d: size %lld stride %lld\n", d, (long long)shape[d],
                        (long long)strides[d]);
            check(false, "to_host disagrees with the view's layout");
        }
    }
    free(got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size};
    if (!ctx && clb_context_create("host", &ctx) != CLB_OK) abort();
    check_broadcast_shapes(&in);

    /* A small base tensor whose element i holds i. */
    int64_t bshape[4], bnumel = 1;
    int bndim = (int)(fuzz_u8(&in) % 5);
    for (int d = 0; d < bndim; d++) bshape[d] = fuzz_u8(&in) % 4, bnumel *= bshape[d];
    float base[BASE_MAX];
    for (int64_t i = 0; i < BASE_MAX; i++) base[i] = (float)i; /* the second tensor reads these too */
    clb_tensor *v = NULL;
    check(clb_tensor_from_host(ctx, CLB_FLOAT32, bndim, bshape, base, &v) == CLB_OK, "from_host");

    for (int step = 0; step < 8 && in.left; step++) {
        clb_tensor *next = NULL, *pair[2] = {NULL, NULL};
        int64_t shape[70];
        int perm[70], ndim;
        clb_status st;
        switch (fuzz_u8(&in) % 8) {
        case 7: { /* clb_slice: Python's rules, always a view, negative steps included */
            int axis = (int8_t)fuzz_u8(&in);
            int64_t ends[2], step = slice_value(&in);
            for (int e = 0; e < 2; e++) ends[e] = slice_value(&in);
            size_t before = clb_memory_allocated(ctx);
            st = clb_slice(v, axis, ends[0], ends[1], step, &next);
            bool axis_ok = axis >= -clb_tensor_ndim(v) && axis < clb_tensor_ndim(v);
            check((st == CLB_OK) == (axis_ok && step != 0), "clb_slice: wrong status");
            if (st != CLB_OK) break;
            check(clb_memory_allocated(ctx) == before, "clb_slice allocated");
            int a = axis < 0 ? axis + clb_tensor_ndim(v) : axis;
            check(clb_tensor_shape(next)[a] == py_slice_len(clb_tensor_shape(v)[a], ends[0], ends[1],
                                                             step),
                  "clb_slice: length differs from Python's");
            break;
        }
        case 0:
            ndim = fuzz_shape(&in, shape);
            st = clb_broadcast_to(v, ndim, shape, &next);
            break;
        case 1:
            ndim = fuzz_shape(&in, shape);
            st = clb_expand(v, ndim, shape, &next);
            break;
        case 2: st = clb_unsqueeze(v, (int8_t)fuzz_u8(&in), &next); break;
        case 3: st = clb_squeeze(v, (int8_t)fuzz_u8(&in), &next); break;
        case 4:
            for (int d = 0; d < clb_tensor_ndim(v); d++) perm[d] = (int8_t)fuzz_u8(&in);
            st = clb_permute(v, perm, &next);
            break;
        case 5:
            ndim = fuzz_shape(&in, shape);
            /* A reshape that must copy allocates the view's numel: keep it small. */
            if (clb_tensor_numel(v) > READ_MAX) continue;
            st = clb_reshape(v, ndim, shape, &next);
            break;
        default: {
            ndim = fuzz_shape(&in, shape);
            if (ndim > CLB_MAX_DIMS) continue;
            int64_t n = 1;
            bool zero = false;
            for (int d = 0; d < ndim; d++) zero |= shape[d] == 0;
            for (int d = 0; d < ndim && n >= 0 && n <= BASE_MAX; d++)
                n = shape[d] >= 0 && shape[d] < 4 ? n * shape[d] : -1;
            if (zero && n >= 0) n = 0;
            if (n < 0 || n > BASE_MAX) continue;
            clb_tensor *other = NULL;
            /* An empty shape whose other sizes multiply past int64 is refused: fine. */
            if (clb_tensor_from_host(ctx, CLB_FLOAT32, ndim, shape, base, &other) != CLB_OK) {
                check(n == 0, "from_host of a second tensor");
                continue;
            }
            const clb_tensor *two[2] = {v, other};
            st = clb_broadcast_tensors(2, two, pair);
            if (st == CLB_OK) next = pair[0], check_view(pair[1], base, n ? n : 1);
            else check(pair[0] == NULL && pair[1] == NULL, "broadcast_tensors left outputs");
            clb_tensor_release(pair[1]);
            clb_tensor_release(other);
            break;
        }
        }
        if (st != CLB_OK) {
            check(next == NULL, "a failed view left *out set");
            check(clb_last_error()[0] != '\0', "a failed view left no message");
            continue;
        }
        /* reshape may copy: then the new storage is the reference */
        if (!clb_tensor_shares_storage(next, v)) {
            clb_tensor_release(next);
            continue;
        }
        check_view(next, base, bnumel ? bnumel : 1);
        clb_tensor_release(v);
        v = next;
    }
    clb_tensor_release(v);
    check(clb_memory_allocated(ctx) == 0, "storage leaked");
    return 0;
}
