/* Physical copies: contiguous, cast, repeat, and the strided copy under them. */
#include "backend.h"
#include "dtype.h"
#include "internal.h"
#include "shape.h"

#include <stdlib.h>

/* Runs the backend's strided copy over a plan built from two stride tables. */
static clb_status run_copy(clb_context *ctx, clb_tensor *dst, const clb_tensor *src, int ndim,
                           const int64_t *shape, const int64_t *dst_strides,
                           const int64_t *src_strides)
{
    clb__plan *plan = malloc(sizeof *plan); /* ~2 KB per operand: keep it off the stack */
    if (!plan) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory for a copy plan");
    const int64_t *strides[2] = {dst_strides, src_strides};
    const int64_t offsets[2] = {dst->offset, src->offset};
    clb__plan_make(plan, 2, ndim, shape, strides, offsets);
    clb__plan_flip_inputs(plan); /* a reversed source is read ascending */
    clb_status st = CLB_OK;
    if (plan->numel > 0) {
        void *handles[2] = {dst->storage->handle, src->storage->handle};
        const clb_dtype dtypes[2] = {dst->dtype, src->dtype};
        st = ctx->backend->copy(ctx, plan, handles, dtypes);
    }
    free(plan);
    return st;
}

clb_status clb__copy_into(clb_tensor *dst, const clb_tensor *src)
{
    return run_copy(dst->storage->ctx, dst, src, dst->ndim, dst->shape, dst->strides, src->strides);
}

clb_status clb_contiguous(const clb_tensor *t, clb_tensor **out)
{
    clb_status st = CLB_OK;
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_contiguous: out is NULL");
    *out = NULL;
    CLB_TRY(clb__check_tensor(t, "clb_contiguous: t"));
    if (clb_tensor_is_contiguous(t)) {
        clb_tensor_retain((clb_tensor *)t);
        *out = (clb_tensor *)t;
        return CLB_OK;
    }
    CLB_TRY(clb__tensor_new(t->storage->ctx, t->dtype, t->ndim, t->shape, out));
    CLB_TRY(clb__copy_into(*out, t));
    return CLB_OK;
cleanup:
    if (out) {
        clb_tensor_release(*out);
        *out = NULL;
    }
    return st;
}

clb_status clb_cast(const clb_tensor *t, clb_dtype dtype, clb_tensor **out)
{
    clb_status st = CLB_OK;
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_cast: out is NULL");
    *out = NULL;
    CLB_TRY(clb__check_tensor(t, "clb_cast: t"));
    CLB_TRY(clb__check_dtype(dtype, "clb_cast: dtype"));
    CLB_TRY(clb__tensor_new(t->storage->ctx, dtype, t->ndim, t->shape, out));
    CLB_TRY(clb__copy_into(*out, t));
    return CLB_OK;
cleanup:
    clb_tensor_release(*out);
    *out = NULL;
    return st;
}

clb_status clb_repeat(const clb_tensor *t, int ndim, const int64_t *reps, clb_tensor **out)
{
    clb_status st = CLB_OK;
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_repeat: out is NULL");
    *out = NULL;
    CLB_TRY(clb__check_tensor(t, "clb_repeat: t"));
    CLB_TRY(clb__shape_check(ndim, reps, "clb_repeat: reps", NULL));
    if (ndim < t->ndim)
        CLB_FAIL(CLB_ERR_INVALID_ARGUMENT,
                 "clb_repeat: the number of repeats (%d) can not be smaller than the number of "
                 "dimensions of the tensor (%d)",
                 ndim, t->ndim);
    /* Output axis d of size reps[d] * size[d] is walked as two axes (copy r, element i):
       the source steps only with i, the output with both. */
    int64_t shape[CLB_MAX_DIMS], src_strides[CLB_MAX_DIMS];
    int lead = ndim - t->ndim;
    for (int d = 0; d < ndim; d++) {
        int64_t size = d < lead ? 1 : t->shape[d - lead];
        src_strides[d] = d < lead ? 0 : t->strides[d - lead];
        if (size != 0 && reps[d] > INT64_MAX / size)
            CLB_FAIL(CLB_ERR_INVALID_ARGUMENT, "clb_repeat: the repeated size overflows int64");
        shape[d] = reps[d] * size;
    }
    CLB_TRY(clb__tensor_new(t->storage->ctx, t->dtype, ndim, shape, out));
    int64_t tiled_shape[2 * CLB_MAX_DIMS], tiled_dst[2 * CLB_MAX_DIMS], tiled_src[2 * CLB_MAX_DIMS];
    for (int d = 0; d < ndim; d++) {
        int64_t size = d < lead ? 1 : t->shape[d - lead];
        tiled_shape[2 * d] = reps[d];
        tiled_shape[2 * d + 1] = size;
        tiled_dst[2 * d] = (*out)->strides[d] * size;
        tiled_dst[2 * d + 1] = (*out)->strides[d];
        tiled_src[2 * d] = 0;
        tiled_src[2 * d + 1] = src_strides[d];
    }
    CLB_TRY(run_copy(t->storage->ctx, *out, t, 2 * ndim, tiled_shape, tiled_dst, tiled_src));
    return CLB_OK;
cleanup:
    clb_tensor_release(*out);
    *out = NULL;
    return st;
}
