/* Views: new shape/strides/offset over the same storage; never allocate storage. */
#include "internal.h"
#include "shape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Starts every view function: *out = NULL, then the usual checks. */
#define VIEW_PROLOGUE(fn, t, out)                                                                  \
    if (!(out)) return clb__fail(CLB_ERR_INVALID_ARGUMENT, fn ": out is NULL");                    \
    *(out) = NULL;                                                                                 \
    {                                                                                              \
        clb_status st_ = clb__check_tensor((t), fn ": t");                                        \
        if (st_ != CLB_OK) return st_;                                                             \
    }

/* Strides of t broadcast to (ndim, shape), or a message saying which dimension of
   which shape is in the way. `fn` names the public function. */
static clb_status broadcast_view(const char *fn, const clb_tensor *t, int ndim,
                                 const int64_t *shape, clb_tensor **out)
{
    char have[512], want[512];
    clb_status st = clb__shape_check(ndim, shape, fn, NULL);
    if (st != CLB_OK) return st;
    if (ndim < t->ndim)
        return clb__fail(CLB_ERR_SHAPE_MISMATCH,
                         "%s: cannot broadcast shape %s to %s: the target has fewer dimensions "
                         "(%d) than the tensor (%d)",
                         fn, clb__shape_str(t->ndim, t->shape, have, sizeof have),
                         clb__shape_str(ndim, shape, want, sizeof want), ndim, t->ndim);
    int lead = ndim - t->ndim;
    for (int i = 0; i < t->ndim; i++) {
        if (t->shape[i] == shape[lead + i] || t->shape[i] == 1) continue;
        return clb__fail(CLB_ERR_SHAPE_MISMATCH,
                         "%s: cannot broadcast shape %s to %s: dimension %d of the tensor has "
                         "size %lld, which is neither 1 nor the size %lld of dimension %d of the "
                         "target shape",
                         fn, clb__shape_str(t->ndim, t->shape, have, sizeof have),
                         clb__shape_str(ndim, shape, want, sizeof want), i,
                         (long long)t->shape[i], (long long)shape[lead + i], lead + i);
    }
    int64_t strides[CLB_MAX_DIMS];
    clb__broadcast_strides(t->ndim, t->shape, t->strides, ndim, shape, strides);
    return clb__tensor_view(t, ndim, shape, strides, t->offset, out);
}

clb_status clb_broadcast_to(const clb_tensor *t, int ndim, const int64_t *shape, clb_tensor **out)
{
    VIEW_PROLOGUE("clb_broadcast_to", t, out);
    return broadcast_view("clb_broadcast_to", t, ndim, shape, out);
}

clb_status clb_broadcast_tensors(int n, const clb_tensor *const *in, clb_tensor **out)
{
    clb_status st = CLB_OK;
    int *ndims = NULL;
    const int64_t **shapes = NULL;
    if (n < 0) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_broadcast_tensors: n is %d", n);
    if (n == 0) return CLB_OK;
    /* Every out slot is NULL on every failure, whichever argument is bad. */
    if (out)
        for (int k = 0; k < n; k++) out[k] = NULL;
    if (!in || !out)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_broadcast_tensors: %s is NULL",
                         !in ? "in" : "out");
    for (int k = 0; k < n; k++) {
        char what[64];
        snprintf(what, sizeof what, "clb_broadcast_tensors: in[%d]", k);
        CLB_TRY(clb__check_tensor(in[k], what));
    }
    ndims = malloc((size_t)n * sizeof *ndims);
    shapes = malloc((size_t)n * sizeof *shapes);
    if (!ndims || !shapes) CLB_FAIL(CLB_ERR_OUT_OF_MEMORY, "clb_broadcast_tensors: out of host memory");
    for (int k = 0; k < n; k++) {
        ndims[k] = in[k]->ndim;
        shapes[k] = in[k]->shape;
    }
    int nd = 0;
    int64_t shape[CLB_MAX_DIMS];
    CLB_TRY(clb__broadcast(n, ndims, shapes, &nd, shape));
    for (int k = 0; k < n; k++)
        CLB_TRY(broadcast_view("clb_broadcast_tensors", in[k], nd, shape, &out[k]));
    free(ndims);
    free(shapes);
    return CLB_OK;
cleanup:
    for (int k = 0; k < n; k++) {
        clb_tensor_release(out[k]);
        out[k] = NULL;
    }
    free(ndims);
    free(shapes);
    return st;
}

clb_status clb_expand(const clb_tensor *t, int ndim, const int64_t *shape, clb_tensor **out)
{
    VIEW_PROLOGUE("clb_expand", t, out);
    if (ndim < 0 || ndim > CLB_MAX_DIMS || (ndim > 0 && !shape))
        return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_expand: ndim %d (or shape NULL) is invalid",
                         ndim);
    if (ndim < t->ndim)
        return clb__fail(CLB_ERR_SHAPE_MISMATCH,
                         "clb_expand: the number of sizes provided (%d) must be greater or equal "
                         "to the number of dimensions in the tensor (%d)",
                         ndim, t->ndim);
    int64_t target[CLB_MAX_DIMS];
    int lead = ndim - t->ndim;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] == -1) {
            if (d < lead)
                return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                                 "clb_expand: -1 is not allowed in a leading, non-existing "
                                 "dimension (%d)",
                                 d);
            target[d] = t->shape[d - lead];
        } else if (shape[d] < 0) {
            return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_expand: size %lld at dimension %d is invalid",
                             (long long)shape[d], d);
        } else {
            target[d] = shape[d];
        }
    }
    return broadcast_view("clb_expand", t, ndim, target, out);
}

clb_status clb_unsqueeze(const clb_tensor *t, int axis, clb_tensor **out)
{
    VIEW_PROLOGUE("clb_unsqueeze", t, out);
    if (t->ndim >= CLB_MAX_DIMS)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                         "clb_unsqueeze: the tensor already has CLB_MAX_DIMS (%d) dimensions",
                         CLB_MAX_DIMS);
    int a = 0;
    clb_status st = clb__normalize_axis(axis, t->ndim + 1, &a);
    if (st != CLB_OK) return clb__fail_in("clb_unsqueeze", st, NULL);
    int64_t shape[CLB_MAX_DIMS], strides[CLB_MAX_DIMS];
    for (int d = 0, s = 0; d <= t->ndim; d++) {
        if (d == a) {
            shape[d] = 1;
            strides[d] = a < t->ndim ? (int64_t)((uint64_t)t->shape[a] * (uint64_t)t->strides[a]) : 1; /* never stepped: wrap, not UB */
        } else {
            shape[d] = t->shape[s];
            strides[d] = t->strides[s];
            s++;
        }
    }
    return clb__tensor_view(t, t->ndim + 1, shape, strides, t->offset, out);
}

clb_status clb_squeeze(const clb_tensor *t, int axis, clb_tensor **out)
{
    VIEW_PROLOGUE("clb_squeeze", t, out);
    int a = 0;
    clb_status st = clb__normalize_axis(axis, t->ndim, &a);
    if (st != CLB_OK) return clb__fail_in("clb_squeeze", st, NULL);
    if (t->shape[a] != 1) {
        char have[512];
        return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                         "clb_squeeze: cannot squeeze axis %d of shape %s: its size is %lld, not 1",
                         axis, clb__shape_str(t->ndim, t->shape, have, sizeof have),
                         (long long)t->shape[a]);
    }
    int64_t shape[CLB_MAX_DIMS], strides[CLB_MAX_DIMS];
    for (int d = 0, s = 0; d < t->ndim; d++) {
        if (d == a) continue;
        shape[s] = t->shape[d];
        strides[s] = t->strides[d];
        s++;
    }
    return clb__tensor_view(t, t->ndim - 1, shape, strides, t->offset, out);
}

clb_status clb_permute(const clb_tensor *t, const int *perm, clb_tensor **out)
{
    VIEW_PROLOGUE("clb_permute", t, out);
    if (t->ndim > 0 && !perm) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_permute: perm is NULL");
    bool seen[CLB_MAX_DIMS] = {false};
    int64_t shape[CLB_MAX_DIMS], strides[CLB_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++) {
        int a = 0;
        clb_status st = clb__normalize_axis(perm[d], t->ndim, &a);
        if (st != CLB_OK) return clb__fail_in("clb_permute", st, NULL);
        if (seen[a])
            return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                             "clb_permute: axis %d appears twice in perm (it must be a "
                             "permutation of 0..%d)",
                             perm[d], t->ndim - 1);
        seen[a] = true;
        shape[d] = t->shape[a];
        strides[d] = t->strides[a];
    }
    return clb__tensor_view(t, t->ndim, shape, strides, t->offset, out);
}

/* Resolves one -1 and checks the element count against the tensor's. */
static clb_status reshape_target(const clb_tensor *t, int ndim, const int64_t *shape, int64_t *target)
{
    char have[512], want[512];
    if (ndim < 0 || ndim > CLB_MAX_DIMS || (ndim > 0 && !shape))
        return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_reshape: ndim %d (or shape NULL) is invalid",
                         ndim);
    int infer = -1;
    int64_t known = 1;
    for (int d = 0; d < ndim; d++) {
        target[d] = shape[d];
        if (shape[d] == -1) {
            if (infer >= 0)
                return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                                 "clb_reshape: only one dimension can be inferred (-1 at %d and %d)",
                                 infer, d);
            infer = d;
        } else if (shape[d] < 0) {
            return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_reshape: invalid size %lld at dimension %d",
                             (long long)shape[d], d);
        } else {
            if (shape[d] != 0 && known > INT64_MAX / shape[d])
                return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                                 "clb_reshape: the element count of the target shape overflows");
            known *= shape[d];
        }
    }
    if (infer >= 0) {
        if (known == 0)
            return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                             "clb_reshape: cannot reshape a tensor of %lld elements into shape %s "
                             "because the -1 could be any size",
                             (long long)t->numel, clb__shape_str(ndim, shape, want, sizeof want));
        target[infer] = t->numel / known;
        known *= target[infer];
    }
    if (known != t->numel)
        return clb__fail(CLB_ERR_SHAPE_MISMATCH,
                         "clb_reshape: shape %s is invalid for a tensor of shape %s (%lld elements)",
                         clb__shape_str(ndim, shape, want, sizeof want),
                         clb__shape_str(t->ndim, t->shape, have, sizeof have), (long long)t->numel);
    return CLB_OK;
}

clb_status clb_reshape(const clb_tensor *t, int ndim, const int64_t *shape, clb_tensor **out)
{
    VIEW_PROLOGUE("clb_reshape", t, out);
    int64_t target[CLB_MAX_DIMS], strides[CLB_MAX_DIMS];
    clb_status st = reshape_target(t, ndim, shape, target);
    if (st != CLB_OK) return st;
    if (clb__view_strides(t->ndim, t->shape, t->strides, ndim, target, strides))
        return clb__tensor_view(t, ndim, target, strides, t->offset, out);
    /* Not expressible as strides over this storage (PyTorch's view() would fail):
       copy into a fresh contiguous tensor, then view that. */
    clb_tensor *dense = NULL;
    st = clb_contiguous(t, &dense);
    if (st != CLB_OK) return st;
    clb__contiguous_strides(ndim, target, strides);
    st = clb__tensor_view(dense, ndim, target, strides, dense->offset, out);
    clb_tensor_release(dense);
    return st;
}

/* Python's slice(start, stop, step).indices(n) for step != 0 (CLB_NONE as a None
   start or stop; a step is always a number, INT64_MIN included):
   the first index and the number of elements the slice takes. */
static void slice_indices(int64_t n, int64_t start, int64_t stop, int64_t step, int64_t *first,
                          int64_t *len)
{
    const int64_t lower = step < 0 ? -1 : 0, upper = step < 0 ? n - 1 : n;
    int64_t *ends[2] = {&start, &stop};
    for (int e = 0; e < 2; e++) {
        int64_t *v = ends[e];
        if (*v == CLB_NONE) {
            *v = (e == 0) == (step < 0) ? upper : lower;
            continue;
        }
        if (*v < 0) {
            *v += n; /* no overflow: *v > INT64_MIN and n >= 0 */
            if (*v < 0) *v = lower;
        } else if (*v >= n) {
            *v = upper;
        }
    }
    /* Both ends now lie in [-1, n]: the differences cannot overflow, and the
       magnitude of step is taken unsigned (step may be INT64_MIN). */
    uint64_t mag = step < 0 ? (uint64_t)0 - (uint64_t)step : (uint64_t)step;
    int64_t gap = step < 0 ? start - stop : stop - start;
    *first = start;
    *len = gap > 0 ? (int64_t)(((uint64_t)gap - 1) / mag + 1) : 0;
}

clb_status clb_slice(const clb_tensor *t, int axis, int64_t start, int64_t stop, int64_t step,
                     clb_tensor **out)
{
    VIEW_PROLOGUE("clb_slice", t, out);
    int a = 0;
    clb_status st = clb__normalize_axis(axis, t->ndim, &a);
    if (st != CLB_OK)
        return clb__fail(st, "clb_slice: %s", clb_last_error());
    if (step == 0)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                         "clb_slice: slice step cannot be zero (axis %d); use a positive step to "
                         "walk forwards, a negative one to walk backwards, or clb_expand to "
                         "repeat one element",
                         axis);
    int64_t first = 0, len = 0;
    slice_indices(t->shape[a], start, stop, step, &first, &len);
    int64_t shape[CLB_MAX_DIMS], strides[CLB_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++) shape[d] = t->shape[d], strides[d] = t->strides[d];
    shape[a] = len;
    /* In a tensor with elements, the first element's distance and a stepped
       stride (len >= 2: |step| < size) both lie within the storage, so the
       products fit. An empty tensor's strides bound nothing (another axis is 0),
       so it keeps its strides and offset, as does an empty result; a single
       element keeps its stride (never stepped); a broadcast axis keeps 0. */
    int64_t offset = t->offset;
    if (t->numel > 0 && len > 0) {
        if (len >= 2) strides[a] = t->strides[a] * step;
        offset += first * t->strides[a];
    }
    return clb__tensor_view(t, t->ndim, shape, strides, offset, out);
}

/* numpy.swapaxes: the view with axes axis1 and axis2 exchanged (negative axes
   count from the end; equal axes give a view of the same layout). */
clb_status clb_swapaxes(const clb_tensor *t, int axis1, int axis2, clb_tensor **out)
{
    VIEW_PROLOGUE("clb_swapaxes", t, out);
    int a = 0, b = 0;
    clb_status st = clb__normalize_axis(axis1, t->ndim, &a);
    if (st == CLB_OK) st = clb__normalize_axis(axis2, t->ndim, &b);
    if (st != CLB_OK) return clb__fail_in("clb_swapaxes", st, NULL);
    int64_t shape[CLB_MAX_DIMS], strides[CLB_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++) {
        int from = d == a ? b : d == b ? a : d;
        shape[d] = t->shape[from];
        strides[d] = t->strides[from];
    }
    return clb__tensor_view(t, t->ndim, shape, strides, t->offset, out);
}
