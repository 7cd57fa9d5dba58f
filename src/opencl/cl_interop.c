/* OpenCL interop (include/clbroadcast_cl.h): contexts on the application's
 * cl_context / device / queue, tensors over its cl_mem buffers, and the handles
 * of the library's own objects. These entry points live here, not in ops/,
 * because their signatures carry OpenCL types.
 *
 * Ownership: the context adopts retained handles (cl_backend.c releases them
 * with the context); a wrapped buffer is retained once per storage record and
 * released once, by cl_free, when the storage's last view goes; it never enters
 * the storage pool (tensor.c). */
#include "clbroadcast_cl.h"

#include "backend.h"
#include "cl_backend.h"
#include "cl_errors.h"
#include "cl_launch.h"
#include "dtype.h"
#include "internal.h"
#include "shape.h"

#include <stdlib.h>

clb_status clb_context_create_from_cl(cl_context context, cl_device_id device,
                                      cl_command_queue queue, clb_context **out)
{
    clb_status st = CLB_OK;
    clb_context *ctx = NULL;
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_context_create_from_cl: out is NULL");
    *out = NULL;
    CLB_TRY(clb__context_new(&ctx));
    CLB_TRY(clb__cl_context_adopt(ctx, context, device, queue));
    ctx->magic = CLB__CONTEXT_MAGIC;
    *out = ctx;
    return CLB_OK;
cleanup:
    clb__context_discard(ctx);
    return st;
}

clb_status clb_context_get_cl(const clb_context *ctx, cl_context *context, cl_device_id *device,
                              cl_command_queue *queue)
{
    if (context) *context = NULL;
    if (device) *device = NULL;
    if (queue) *queue = NULL;
    clb_status st = clb__check_context(ctx, "clb_context_get_cl: ctx");
    if (st != CLB_OK) return st;
    const clb__cl_context *cl = clb__cl_context_of(ctx);
    if (!cl)
        return clb__fail(CLB_ERR_UNSUPPORTED,
                         "clb_context_get_cl: ctx is on the host backend (\"%s\"), which has no "
                         "OpenCL objects; create it on an OpenCL device",
                         ctx->info.name);
    if (context) *context = cl->context;
    if (device) *device = cl->device;
    if (queue) *queue = cl->queue;
    return CLB_OK;
}

/* The byte range [lo, hi) the view's elements occupy, relative to the buffer's start,
   or CLB_ERR_INVALID_ARGUMENT when it does not fit in int64 or starts before 0. */
static clb_status view_bytes(const char *fn, size_t offset_bytes, size_t itemsize, int ndim,
                             const int64_t *shape, const int64_t *strides, int64_t *lo_out,
                             int64_t *hi_out)
{
    if (offset_bytes > (size_t)INT64_MAX)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: offset_bytes %zu is too large", fn,
                         offset_bytes);
    int64_t lo = 0, hi = 0; /* element offsets relative to element (0, ..., 0) */
    for (int d = 0; d < ndim; d++) {
        int64_t span = 0;
        if (__builtin_mul_overflow(shape[d] - 1, strides[d], &span) ||
            __builtin_add_overflow(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi))
            return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                             "%s: strides[%d] = %lld over %lld elements overflows 64-bit offsets",
                             fn, d, (long long)strides[d], (long long)shape[d]);
    }
    int64_t blo = 0, bhi = 0;
    if (__builtin_mul_overflow(lo, (int64_t)itemsize, &blo) ||
        __builtin_mul_overflow(hi + 1, (int64_t)itemsize, &bhi) ||
        __builtin_add_overflow(blo, (int64_t)offset_bytes, &blo) ||
        __builtin_add_overflow(bhi, (int64_t)offset_bytes, &bhi))
        return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: the view's byte range overflows 64 bits",
                         fn);
    *lo_out = blo;
    *hi_out = bhi;
    return CLB_OK;
}

clb_status clb_tensor_from_cl_buffer(clb_context *ctx, cl_mem buffer, size_t offset_bytes,
                                     clb_dtype dtype, int ndim, const int64_t *shape,
                                     const int64_t *strides, clb_tensor **out)
{
    const char *fn = "clb_tensor_from_cl_buffer";
    clb_status st = CLB_OK;
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    CLB_TRY(clb__check_context(ctx, "clb_tensor_from_cl_buffer: ctx"));
    CLB_TRY(clb__check_dtype(dtype, "clb_tensor_from_cl_buffer: dtype"));
    const clb__cl_context *cl = clb__cl_context_of(ctx);
    if (!cl)
        CLB_FAIL(CLB_ERR_UNSUPPORTED,
                 "%s: ctx is on the host backend (\"%s\"); a cl_mem needs a context on its "
                 "OpenCL device (clb_context_create_from_cl)",
                 fn, ctx->info.name);
    if (!buffer) CLB_FAIL(CLB_ERR_INVALID_ARGUMENT, "%s: buffer is NULL", fn);
    int64_t numel = 0;
    CLB_TRY(clb__shape_check(ndim, shape, "clb_tensor_from_cl_buffer: shape", &numel));

    cl_context owner = NULL;
    size_t size = 0;
    cl_mem_object_type type = 0;
    cl_mem_flags flags = 0;
    cl_mem parent = NULL;
    clb__wrap_memory mem = {0};
    cl_int err = clGetMemObjectInfo(buffer, CL_MEM_TYPE, sizeof type, &type, NULL);
    if (err == CL_SUCCESS) err = clGetMemObjectInfo(buffer, CL_MEM_CONTEXT, sizeof owner, &owner, NULL);
    if (err == CL_SUCCESS) err = clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof size, &size, NULL);
    if (err == CL_SUCCESS) err = clGetMemObjectInfo(buffer, CL_MEM_FLAGS, sizeof flags, &flags, NULL);
    /* A sub-buffer is its parent's memory from CL_MEM_OFFSET on: aliasing is
       decided on the parent's bytes. */
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(buffer, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL);
    if (err == CL_SUCCESS && parent)
        err = clGetMemObjectInfo(buffer, CL_MEM_OFFSET, sizeof mem.base_offset, &mem.base_offset,
                                 NULL);
    if (err != CL_SUCCESS)
        CLB_FAIL(CLB_ERR_INVALID_ARGUMENT, "%s: buffer is not a valid cl_mem (%s)", fn,
                 clb__cl_error_name(err));
    if (type != CL_MEM_OBJECT_BUFFER)
        CLB_FAIL(CLB_ERR_INVALID_ARGUMENT, "%s: buffer is an image or pipe, not a buffer", fn);
    if (owner != cl->context)
        CLB_FAIL(CLB_ERR_INVALID_ARGUMENT,
                 "%s: buffer belongs to another cl_context than ctx (\"%s\"); wrap it in a "
                 "context on its own cl_context (clb_context_create_from_cl)",
                 fn, ctx->info.name);

    size_t itemsize = clb_dtype_size(dtype);
    if (offset_bytes % itemsize != 0)
        CLB_FAIL(CLB_ERR_INVALID_ARGUMENT,
                 "%s: offset_bytes %zu is not a multiple of the %s item size (%zu)", fn,
                 offset_bytes, clb_dtype_name(dtype), itemsize);
    int64_t view_strides[CLB_MAX_DIMS];
    if (strides) {
        for (int d = 0; d < ndim; d++) view_strides[d] = strides[d];
    } else {
        clb__contiguous_strides(ndim, shape, view_strides);
    }
    if (numel > 0) {
        int64_t lo = 0, hi = 0;
        CLB_TRY(view_bytes(fn, offset_bytes, itemsize, ndim, shape, view_strides, &lo, &hi));
        if (lo < 0)
            CLB_FAIL(CLB_ERR_INVALID_ARGUMENT,
                     "%s: the view would reach outside the buffer: its lowest element starts "
                     "%lld bytes before the buffer (offset_bytes %zu, negative strides)",
                     fn, (long long)-lo, offset_bytes);
        if ((uint64_t)hi > (uint64_t)size)
            CLB_FAIL(CLB_ERR_INVALID_ARGUMENT,
                     "%s: the view would reach outside the buffer: its elements end at byte "
                     "%lld but the buffer holds %zu bytes (CL_MEM_SIZE)",
                     fn, (long long)hi, size);
    } else if (offset_bytes > size) {
        CLB_FAIL(CLB_ERR_INVALID_ARGUMENT,
                 "%s: offset_bytes %zu is outside the buffer of %zu bytes (CL_MEM_SIZE)", fn,
                 offset_bytes, size);
    }
    CLB_CL_CHECK(clRetainMemObject(buffer), "clRetainMemObject");
    /* The reference passes to the storage (released by it, also on failure). */
    mem.base = parent;
    mem.read_only = (flags & CL_MEM_READ_ONLY) != 0;
    CLB_TRY(clb__tensor_wrap(ctx, buffer, &mem, size, dtype, ndim, shape, view_strides,
                             (int64_t)(offset_bytes / itemsize), out));
cleanup:
    return st;
}

clb_status clb_tensor_get_cl_buffer(const clb_tensor *t, cl_mem *buffer, size_t *offset_bytes)
{
    if (buffer) *buffer = NULL;
    if (offset_bytes) *offset_bytes = 0;
    clb_status st = clb__check_tensor(t, "clb_tensor_get_cl_buffer: t");
    if (st != CLB_OK) return st;
    if (!buffer) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_tensor_get_cl_buffer: buffer is NULL");
    const clb_context *ctx = t->storage->ctx;
    if (!clb__cl_context_of(ctx))
        return clb__fail(CLB_ERR_UNSUPPORTED,
                         "clb_tensor_get_cl_buffer: t lives on the host backend (\"%s\"), in "
                         "host memory; move it to an OpenCL context with clb_tensor_to_context",
                         ctx->info.name);
    *buffer = (cl_mem)t->storage->handle;
    if (offset_bytes) *offset_bytes = (size_t)t->offset * clb_dtype_size(t->dtype);
    return CLB_OK;
}
