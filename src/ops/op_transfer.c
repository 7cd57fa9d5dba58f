/* Tensors from and to host memory: the public entry points that create a
 * tensor from the caller's data, an empty one, and read a tensor's logical
 * values back (materialising any view through the backend's copy). */
#include "backend.h"
#include "dtype.h"
#include "fault.h"
#include "internal.h"
#include "shape.h"

#include <stdlib.h>
#include <string.h>

clb_status clb_tensor_empty(clb_context *ctx, clb_dtype dtype, int ndim, const int64_t *shape,
                            clb_tensor **out)
{
    clb_status st = CLB_OK;
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_tensor_empty: out is NULL");
    *out = NULL;
    CLB_TRY(clb__check_context(ctx, "clb_tensor_empty: ctx"));
    CLB_TRY(clb__check_dtype(dtype, "clb_tensor_empty: dtype"));
    CLB_TRY_IN("clb_tensor_empty", NULL, clb__tensor_new(ctx, dtype, ndim, shape, out));
cleanup:
    return st;
}

clb_status clb_tensor_from_host(clb_context *ctx, clb_dtype dtype, int ndim, const int64_t *shape,
                                const void *data, clb_tensor **out)
{
    clb_status st = CLB_OK;
    clb_tensor *t = NULL;
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_tensor_from_host: out is NULL");
    *out = NULL;
    CLB_TRY(clb__check_context(ctx, "clb_tensor_from_host: ctx"));
    CLB_TRY(clb__check_dtype(dtype, "clb_tensor_from_host: dtype"));
    CLB_TRY_IN("clb_tensor_from_host", NULL, clb__tensor_new(ctx, dtype, ndim, shape, &t));
    if (t->storage->nbytes > 0) {
        if (!data)
            CLB_FAIL(CLB_ERR_INVALID_ARGUMENT,
                     "clb_tensor_from_host: data is NULL for %lld elements", (long long)t->numel);
        CLB_TRY(ctx->backend->write(ctx, t->storage->handle, 0, data, t->storage->nbytes));
    }
    *out = t;
    return CLB_OK;
cleanup:
    clb_tensor_release(t);
    return st;
}

clb_status clb_tensor_to_host(const clb_tensor *t, void *dst, size_t dst_bytes)
{
    clb_status st = CLB_OK;
    clb_tensor *tmp = NULL;
    CLB_TRY(clb__check_tensor(t, "clb_tensor_to_host: t"));
    size_t bytes = (size_t)t->numel * clb_dtype_size(t->dtype);
    if (dst_bytes < bytes)
        CLB_FAIL(CLB_ERR_INVALID_ARGUMENT,
                 "clb_tensor_to_host: dst_bytes is %zu but the tensor needs %zu (%lld x %s)",
                 dst_bytes, bytes, (long long)t->numel, clb_dtype_name(t->dtype));
    if (bytes == 0) return CLB_OK;
    if (!dst) CLB_FAIL(CLB_ERR_INVALID_ARGUMENT, "clb_tensor_to_host: dst is NULL");
    clb_context *ctx = t->storage->ctx;
    const clb_tensor *src = t;
    if (!clb_tensor_is_contiguous(t)) {
        /* Materialize the view (broadcast, permuted, ...) on the device, then one read. */
        CLB_TRY(clb__tensor_new(ctx, t->dtype, t->ndim, t->shape, &tmp));
        CLB_TRY(clb__copy_into(tmp, t));
        src = tmp;
    }
    CLB_TRY(ctx->backend->read(ctx, src->storage->handle,
                               (size_t)src->offset * clb_dtype_size(src->dtype), dst, bytes));
cleanup:
    clb_tensor_release(tmp);
    return st;
}

clb_status clb_tensor_to_context(const clb_tensor *t, clb_context *dst, clb_tensor **out)
{
    clb_status st = CLB_OK;
    clb_tensor *src = NULL, *res = NULL;
    void *staging = NULL;
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_tensor_to_context: out is NULL");
    *out = NULL;
    CLB_TRY(clb__check_tensor(t, "clb_tensor_to_context: t"));
    CLB_TRY(clb__check_context(dst, "clb_tensor_to_context: dst"));
    clb_context *from = t->storage->ctx;
    if (from == dst) return clb_contiguous(t, out);
    /* The logical values, contiguous, on t's own device first (a view moves as what
       it shows: a broadcast axis arrives as repeated values). */
    CLB_TRY(clb_contiguous(t, &src));
    CLB_TRY(clb__tensor_new(dst, t->dtype, t->ndim, t->shape, &res));
    size_t itemsize = clb_dtype_size(t->dtype);
    size_t bytes = (size_t)t->numel * itemsize;
    size_t src_offset = (size_t)src->offset * itemsize;
    if (bytes > 0) {
        bool done = false;
        if (from->backend == dst->backend && dst->backend->copy_from)
            CLB_TRY(dst->backend->copy_from(dst, res->storage->handle, 0, from,
                                            src->storage->handle, src_offset, bytes, &done));
        if (!done) {
            staging = malloc(bytes);
            CLB__FAULT_FREE(staging, CLB__FAULT_HOST_ALLOC);
            if (!staging)
                CLB_FAIL(CLB_ERR_OUT_OF_MEMORY,
                         "clb_tensor_to_context: out of host memory for %zu bytes staged from "
                         "\"%s\" to \"%s\"",
                         bytes, from->info.name, dst->info.name);
            CLB_TRY(from->backend->read(from, src->storage->handle, src_offset, staging, bytes));
            CLB_TRY(dst->backend->write(dst, res->storage->handle, 0, staging, bytes));
        }
    }
    *out = res;
    res = NULL;
cleanup:
    free(staging);
    clb_tensor_release(src);
    clb_tensor_release(res);
    return st;
}
