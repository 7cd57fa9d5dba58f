/* numpy.take and numpy.take_along_axis: the source made C-contiguous as
 * (outer, n, inner), the indices as int64, one backend gather. Index range is
 * checked by the backend as it gathers (on OpenCL devices a flag read with the
 * result), never by reading the indices back first. */
#include "backend.h"
#include "dtype.h"
#include "internal.h"
#include "op_index.h"
#include "shape.h"

#include <stdio.h>

static clb_status check_indices(const char *fn, const clb_tensor *t, const clb_tensor *indices)
{
    clb_status st = clb__check_tensor(indices, fn);
    if (st == CLB_OK) st = clb__check_same_context(fn, t, indices);
    if (st == CLB_OK && !clb__dtype_is_integer(indices->dtype))
        st = clb__fail(CLB_ERR_DTYPE,
                       "%s: indices must have an integer dtype (int8..int64, uint8..uint64), "
                       "not dtype %d; cast them with clb_cast",
                       fn, (int)indices->dtype);
    return st;
}

/* The indices as a C-contiguous int64 tensor (a cast keeps uint64's bits, which
   the gather then reads as unsigned). */
static clb_status int64_indices(const clb_tensor *indices, clb_tensor **out)
{
    if (indices->dtype == CLB_INT64) return clb_contiguous(indices, out);
    return clb_cast(indices, CLB_INT64, out);
}

/* Runs the gather into a new tensor of (ndim, shape) and reports a bad index. */
static clb_status gather(const char *fn, clb__gather_op *op, const clb_tensor *src,
                         const clb_tensor *idx, int ndim, const int64_t *shape, clb_tensor **out)
{
    clb_status st = CLB_OK;
    clb_tensor *r = NULL;
    clb_context *ctx = src->storage->ctx;
    bool bad = false;
    CLB_TRY(clb__tensor_new(ctx, src->dtype, ndim, shape, &r));
    if (op->m > 0 && op->n == 0 && op->outer > 0 && op->inner > 0)
        CLB_FAIL(CLB_ERR_INVALID_ARGUMENT,
                 "%s: cannot take from an empty axis (size 0): every index is out of range", fn);
    op->src_offset = src->offset;
    op->idx_offset = idx->offset;
    op->out_offset = r->offset;
    void *handles[3] = {r->storage->handle, src->storage->handle, idx->storage->handle};
    if (r->numel > 0) CLB_TRY(ctx->backend->gather(ctx, op, handles, &bad));
    if (bad)
        CLB_FAIL(CLB_ERR_INVALID_ARGUMENT,
                 "%s: an index is out of bounds for an axis of size %lld (valid: %lld..%lld); "
                 "check the indices",
                 fn, (long long)op->n, (long long)-op->n, (long long)op->n - 1);
    *out = r;
    r = NULL;
cleanup:
    clb_tensor_release(r);
    return st;
}

clb_status clb_take(const clb_tensor *t, const clb_tensor *indices, int axis, clb_tensor **out)
{
    const char *fn = "clb_take";
    clb_status st = CLB_OK;
    clb_tensor *src = NULL, *idx = NULL;
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    CLB_TRY(clb__check_tensor(t, fn));
    CLB_TRY(check_indices(fn, t, indices));
    int a = 0;
    CLB_TRY(clb__axis_of(fn, axis, t->ndim, &a));
    const int ndim = t->ndim - 1 + indices->ndim;
    if (ndim > CLB_MAX_DIMS)
        CLB_FAIL(CLB_ERR_INVALID_ARGUMENT, "%s: the result would have %d dimensions (at most %d)",
                 fn, ndim, CLB_MAX_DIMS);
    int64_t shape[CLB_MAX_DIMS];
    clb__gather_op op = {.dtype = t->dtype, .idx_unsigned = indices->dtype == CLB_UINT64,
                         .outer = 1, .n = t->shape[a], .m = indices->numel, .inner = 1,
                         .idx_strides = {0, 1, 0}};
    int nd = 0;
    for (int d = 0; d < a; d++) op.outer *= (shape[nd++] = t->shape[d]);
    for (int d = 0; d < indices->ndim; d++) shape[nd++] = indices->shape[d];
    for (int d = a + 1; d < t->ndim; d++) op.inner *= (shape[nd++] = t->shape[d]);
    CLB_TRY(clb_contiguous(t, &src));
    CLB_TRY(int64_indices(indices, &idx));
    CLB_TRY(gather(fn, &op, src, idx, ndim, shape, out));
cleanup:
    clb_tensor_release(src);
    clb_tensor_release(idx);
    return st;
}

/* The broadcast shape of t and indices off `a` (PyTorch's message on a mismatch). */
static clb_status along_shape(const char *fn, const clb_tensor *t, const clb_tensor *indices,
                              int a, int64_t *shape)
{
    for (int d = 0; d < t->ndim; d++) {
        const int64_t x = t->shape[d], y = indices->shape[d];
        if (d == a || x == y || y == 1) {
            shape[d] = x;
        } else if (x == 1) {
            shape[d] = y;
        } else {
            return clb__fail(CLB_ERR_SHAPE_MISMATCH,
                             "%s: The size of tensor a (%lld) must match the size of tensor b "
                             "(%lld) at non-singleton dimension %d",
                             fn, (long long)x, (long long)y, d);
        }
    }
    return CLB_OK;
}

clb_status clb_take_along_axis(const clb_tensor *t, const clb_tensor *indices, int axis,
                               clb_tensor **out)
{
    const char *fn = "clb_take_along_axis";
    clb_status st = CLB_OK;
    clb_tensor *tb = NULL, *ib = NULL, *src = NULL, *idx = NULL;
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    CLB_TRY(clb__check_tensor(t, fn));
    CLB_TRY(check_indices(fn, t, indices));
    if (indices->ndim != t->ndim)
        CLB_FAIL(CLB_ERR_INVALID_ARGUMENT,
                 "%s: indices and t must have the same number of dimensions (%d and %d)", fn,
                 indices->ndim, t->ndim);
    int a = 0;
    CLB_TRY(clb__axis_of(fn, axis, t->ndim, &a));
    int64_t shape[CLB_MAX_DIMS];
    CLB_TRY(along_shape(fn, t, indices, a, shape));
    clb__gather_op op = {.dtype = t->dtype, .idx_unsigned = indices->dtype == CLB_UINT64,
                         .outer = 1, .n = t->shape[a], .m = indices->shape[a], .inner = 1};
    for (int d = 0; d < a; d++) op.outer *= shape[d];
    for (int d = a + 1; d < t->ndim; d++) op.inner *= shape[d];
    CLB_TRY(clb_broadcast_to(t, t->ndim, shape, &tb));
    shape[a] = op.m;
    CLB_TRY(clb_broadcast_to(indices, t->ndim, shape, &ib));
    CLB_TRY(clb_contiguous(tb, &src));
    CLB_TRY(int64_indices(ib, &idx));
    op.idx_strides[0] = op.m * op.inner;
    op.idx_strides[1] = op.inner;
    op.idx_strides[2] = 1;
    CLB_TRY(gather(fn, &op, src, idx, t->ndim, shape, out));
cleanup:
    clb_tensor_release(tb);
    clb_tensor_release(ib);
    clb_tensor_release(src);
    clb_tensor_release(idx);
    return st;
}
