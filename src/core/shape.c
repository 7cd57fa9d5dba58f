/* Shape algebra: validation, NumPy broadcasting with PyTorch-style messages,
   strides and PyTorch's view-compatibility rule. */
#include "shape.h"

#include "internal.h"

#include <stdio.h>
#include <string.h>

clb_status clb__shape_check(int ndim, const int64_t *shape, const char *what, int64_t *numel)
{
    if (ndim < 0 || ndim > CLB_MAX_DIMS)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: ndim %d is outside 0..%d (CLB_MAX_DIMS)",
                         what, ndim, CLB_MAX_DIMS);
    if (ndim > 0 && !shape)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: shape is NULL but ndim is %d", what, ndim);
    int64_t n = 1;
    bool empty = false;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0)
            return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: size %lld at dimension %d is negative",
                             what, (long long)shape[i], i);
        if (shape[i] == 0) empty = true;
    }
    /* A zero anywhere makes the count 0, but the other sizes must still not overflow
       when something (strides, byte sizes) multiplies them out. */
    for (int i = 0; i < ndim; i++) {
        int64_t s = shape[i] == 0 ? 1 : shape[i];
        if (n > INT64_MAX / s)
            return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                             "%s: the element count of this shape overflows int64", what);
        n *= s;
    }
    if (numel) *numel = empty ? 0 : n;
    return CLB_OK;
}

clb_status clb__byte_size(int64_t numel, size_t itemsize, size_t *bytes)
{
    if (numel < 0 || (itemsize && (uint64_t)numel > SIZE_MAX / itemsize))
        return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                         "%lld elements of %zu bytes overflow the addressable byte count",
                         (long long)numel, itemsize);
    *bytes = (size_t)numel * itemsize;
    return CLB_OK;
}

void clb__contiguous_strides(int ndim, const int64_t *shape, int64_t *strides)
{
    int64_t s = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        strides[i] = s;
        s *= shape[i] > 1 && s <= INT64_MAX / shape[i] ? shape[i] : 1; /* only a 0-size shape can overflow */
    }
}

const char *clb__shape_str(int ndim, const int64_t *shape, char *buf, size_t cap)
{
    size_t used = 0;
    used += (size_t)snprintf(buf, cap, "(");
    for (int i = 0; i < ndim && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, i ? ", %lld" : "%lld", (long long)shape[i]);
    if (used < cap) snprintf(buf + used, cap - used, ndim == 1 ? ",)" : ")");
    return buf;
}

/* "a".."z", then "#27", ... for the n-th (0-based) tensor of a broadcast. */
static const char *tensor_label(int i, char *buf, size_t cap)
{
    if (i < 26)
        snprintf(buf, cap, "%c", 'a' + i);
    else
        snprintf(buf, cap, "#%d", i + 1);
    return buf;
}

clb_status clb__broadcast(int n, const int *ndims, const int64_t *const *shapes, int *out_ndim,
                          int64_t *out_shape)
{
    if (n < 0) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "broadcast: negative tensor count %d", n);
    if (n > 0 && (!ndims || !shapes))
        return clb__fail(CLB_ERR_INVALID_ARGUMENT, "broadcast: ndims or shapes is NULL");
    if (!out_ndim || !out_shape)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT, "broadcast: out_ndim or out_shape is NULL");
    int nd = 0;
    for (int k = 0; k < n; k++) {
        if (clb__shape_check(ndims[k], shapes[k], "broadcast", NULL) != CLB_OK) {
            /* Only now name the tensor: formatting on every call costs tiny launches. */
            char what[48];
            snprintf(what, sizeof what, "broadcast: shape of tensor %d", k);
            return clb__shape_check(ndims[k], shapes[k], what, NULL);
        }
        if (ndims[k] > nd) nd = ndims[k];
    }
    /* owner[d]: which tensor fixed the size of output axis d (-1: none yet, size 1). */
    int64_t result[CLB_MAX_DIMS];
    int owner[CLB_MAX_DIMS];
    for (int d = 0; d < nd; d++) {
        result[d] = 1;
        owner[d] = -1;
    }
    for (int k = 0; k < n; k++) {
        int lead = nd - ndims[k];
        for (int i = ndims[k] - 1; i >= 0; i--) { /* right to left, as PyTorch reports */
            int d = lead + i;
            int64_t s = shapes[k][i];
            if (s == result[d] || s == 1) continue;
            if (result[d] == 1) {
                result[d] = s;
                owner[d] = k;
                continue;
            }
            char la[16], lb[16];
            return clb__fail(CLB_ERR_SHAPE_MISMATCH,
                             "The size of tensor %s (%lld) must match the size of tensor %s (%lld) "
                             "at non-singleton dimension %d",
                             tensor_label(owner[d], la, sizeof la), (long long)result[d],
                             tensor_label(k, lb, sizeof lb), (long long)s, d);
        }
    }
    clb_status st = clb__shape_check(nd, result, "broadcast result", NULL);
    if (st != CLB_OK) return st;
    *out_ndim = nd;
    memcpy(out_shape, result, (size_t)nd * sizeof *result);
    return CLB_OK;
}

void clb__broadcast_strides(int ndim, const int64_t *shape, const int64_t *strides, int out_ndim,
                            const int64_t *out_shape, int64_t *out_strides)
{
    int lead = out_ndim - ndim;
    for (int d = 0; d < out_ndim; d++) {
        int i = d - lead;
        if (i < 0 || (shape[i] == 1 && out_shape[d] != 1))
            out_strides[d] = 0;
        else
            out_strides[d] = strides[i];
    }
}

clb_status clb__normalize_axis(int axis, int ndim, int *out)
{
    if (axis < -ndim || axis >= ndim) {
        if (ndim == 0)
            return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                             "axis %d is out of bounds for a 0-d tensor (it has no axes)", axis);
        return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                         "axis %d is out of bounds for a tensor of dimension %d (valid: %d..%d)",
                         axis, ndim, -ndim, ndim - 1);
    }
    *out = axis < 0 ? axis + ndim : axis;
    return CLB_OK;
}

/* Marks the reduced axes of an ndim-dimensional shape (axes NULL: all) and
   returns how many there are in *nred (their indices, ascending, in red). */
clb_status clb__reduced_axes(const char *fn, int ndim, int naxes, const int *axes, bool *reduced,
                             int *nred, int *red)
{
    clb_status st = CLB_OK;
    if (!axes && naxes > 0)
        CLB_FAIL(CLB_ERR_INVALID_ARGUMENT,
                 "%s: naxes is %d but axes is NULL; pass the axes, or naxes 0 with axes NULL to "
                 "reduce every axis",
                 fn, naxes);
    for (int d = 0; d < ndim; d++) reduced[d] = axes == NULL;
    if (axes) {
        if (naxes < 0 || naxes > ndim)
            CLB_FAIL(CLB_ERR_INVALID_ARGUMENT, "%s: naxes is %d but the tensor has %d dimensions",
                     fn, naxes, ndim);
        for (int i = 0; i < naxes; i++) {
            int a = 0;
            CLB_TRY_IN(fn, NULL, clb__normalize_axis(axes[i], ndim, &a));
            if (reduced[a])
                CLB_FAIL(CLB_ERR_INVALID_ARGUMENT, "%s: duplicate value in axes (%d)", fn, axes[i]);
            reduced[a] = true;
        }
    }
    *nred = 0;
    for (int d = 0; d < ndim; d++)
        if (reduced[d]) red[(*nred)++] = d;
cleanup:
    return st;
}

bool clb__view_strides(int ndim, const int64_t *shape, const int64_t *strides, int new_ndim,
                       const int64_t *new_shape, int64_t *new_strides)
{
    if (ndim == 0) {
        for (int d = 0; d < new_ndim; d++) new_strides[d] = 1;
        return true;
    }
    int64_t numel = 1;
    for (int d = 0; d < ndim; d++) numel *= shape[d];
    if (numel == 0) {
        clb__contiguous_strides(new_ndim, new_shape, new_strides);
        return true;
    }
    /* Walk both shapes from the innermost axis. The old shape splits into chunks of
       axes that are contiguous with each other; every chunk must be covered exactly
       by a run of new axes, which then get strides inside that chunk. */
    int v = new_ndim - 1;
    int64_t chunk_stride = strides[ndim - 1];
    int64_t chunk_numel = 1, view_numel = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        chunk_numel *= shape[d];
        bool chunk_ends = d == 0 || (shape[d - 1] != 1 && strides[d - 1] != chunk_numel * chunk_stride);
        if (!chunk_ends) continue;
        while (v >= 0 && (view_numel < chunk_numel || new_shape[v] == 1)) {
            new_strides[v] = view_numel * chunk_stride;
            view_numel *= new_shape[v];
            v--;
        }
        if (view_numel != chunk_numel) return false;
        if (d > 0) {
            chunk_stride = strides[d - 1];
            chunk_numel = 1;
            view_numel = 1;
        }
    }
    return v == -1;
}

clb_status clb_broadcast_shapes(int n, const int *ndims, const int64_t *const *shapes, int *out_ndim,
                                int64_t *out_shape)
{
    /* Both outputs are cleared on every failure, whichever argument is bad. */
    clb_status st = clb__broadcast(n, ndims, shapes, out_ndim, out_shape);
    if (st != CLB_OK) st = clb__fail_in("clb_broadcast_shapes", st, NULL);
    if (st != CLB_OK && out_ndim) *out_ndim = 0;
    return st;
}
