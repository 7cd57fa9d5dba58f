/* clb_tensor_from_host_memory: a host-backend tensor over the application's memory
 * (a runtime's buffers, StarPU's CPU workers), borrowed, never copied or freed. */
#include "internal.h"
#include "shape.h"

#include <stdint.h>

/* The byte range [lo, hi) the view's elements cover (numel > 0), overflow-checked. */
static clb_status view_range(const char *fn, size_t itemsize, int ndim, const int64_t *shape,
                             const int64_t *strides, int64_t *lo, int64_t *hi)
{
    int64_t low = 0, high = 0;
    for (int d = 0; d < ndim; d++) {
        int64_t reach = 0;
        if (__builtin_mul_overflow(shape[d] - 1, strides[d], &reach))
            return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: strides[%d] = %lld overflows an offset",
                             fn, d, (long long)strides[d]);
        if ((reach < 0 && __builtin_add_overflow(low, reach, &low)) ||
            (reach > 0 && __builtin_add_overflow(high, reach, &high)))
            return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: the strides overflow an offset", fn);
    }
    if (__builtin_mul_overflow(low, (int64_t)itemsize, lo) ||
        __builtin_add_overflow(high, 1, &high) ||
        __builtin_mul_overflow(high, (int64_t)itemsize, hi))
        return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: the view's extent overflows", fn);
    return CLB_OK;
}

clb_status clb_tensor_from_host_memory(clb_context *ctx, void *data, size_t nbytes,
                                       clb_dtype dtype, int ndim, const int64_t *shape,
                                       const int64_t *strides, clb_tensor **out)
{
    static const char fn[] = "clb_tensor_from_host_memory";
    clb_status st = CLB_OK;
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    CLB_TRY(clb__check_context(ctx, "clb_tensor_from_host_memory: ctx"));
    CLB_TRY(clb__check_dtype(dtype, "clb_tensor_from_host_memory: dtype"));
    if (ctx->info.type != CLB_DEVICE_HOST)
        CLB_FAIL(CLB_ERR_UNSUPPORTED,
                 "%s: ctx runs on the OpenCL device \"%s\"; host memory is used in place only "
                 "by the host backend (clb_context_create(\"host\")); on a device wrap a "
                 "CL_MEM_USE_HOST_PTR buffer with clb_tensor_from_cl_buffer",
                 fn, ctx->info.name);
    if (!data) CLB_FAIL(CLB_ERR_INVALID_ARGUMENT, "%s: data is NULL", fn);
    int64_t numel = 0;
    CLB_TRY(clb__shape_check(ndim, shape, "clb_tensor_from_host_memory: shape", &numel));
    size_t itemsize = clb_dtype_size(dtype);
    if ((uintptr_t)data % itemsize != 0)
        CLB_FAIL(CLB_ERR_INVALID_ARGUMENT,
                 "%s: data %p is not aligned to the %s item size (%zu bytes)", fn, data,
                 clb_dtype_name(dtype), itemsize);
    int64_t view_strides[CLB_MAX_DIMS];
    if (strides) {
        for (int d = 0; d < ndim; d++) view_strides[d] = strides[d];
    } else {
        clb__contiguous_strides(ndim, shape, view_strides);
    }
    if (numel > 0) {
        int64_t lo = 0, hi = 0;
        CLB_TRY(view_range(fn, itemsize, ndim, shape, view_strides, &lo, &hi));
        if (lo < 0)
            CLB_FAIL(CLB_ERR_INVALID_ARGUMENT,
                     "%s: negative strides would reach %lld bytes before data; pass data "
                     "pointing at the lowest element and strides from there",
                     fn, (long long)-lo);
        if ((uint64_t)hi > (uint64_t)nbytes)
            CLB_FAIL(CLB_ERR_INVALID_ARGUMENT,
                     "%s: the view's elements end at byte %lld but nbytes is %zu", fn,
                     (long long)hi, nbytes);
    }
    CLB_TRY(clb__tensor_borrow(ctx, data, nbytes, dtype, ndim, shape, view_strides, 0, out));
cleanup:
    return st;
}
