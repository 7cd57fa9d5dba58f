/* Launch helpers shared by the OpenCL kernels' drivers (copy, map, ...). */
#include "cl_launch.h"

#include "cl_errors.h"

#include <stdlib.h>

/* Whether every element id and every offset the kernel computes fits in 32 bits. */
bool clb__cl_fits_int32(const clb__plan *plan)
{
    if (plan->numel > INT32_MAX) return false;
    for (int k = 0; k < plan->nops; k++) {
        int64_t lo = plan->offsets[k], hi = plan->offsets[k];
        for (int d = 0; d < plan->ndim; d++) {
            int64_t span = (plan->shape[d] - 1) * plan->strides[k][d];
            if (span > 0) hi += span;
            else lo += span;
        }
        if (lo < 0 || hi > INT32_MAX) return false;
    }
    return true;
}

/* Work-group size: a few times the kernel's SIMD width (so each compute unit
   has several warps/wavefronts to switch between), within what the kernel and
   the device allow, and no larger than the work rounded up to that width. */
clb_status clb__cl_pick_local_size(const clb__cl_context *cl, cl_kernel kernel, int64_t numel,
                                  size_t *out)
{
    size_t multiple = 1, kernel_max = 1;
    cl_int err = clGetKernelWorkGroupInfo(kernel, cl->device,
                                          CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                          sizeof multiple, &multiple, NULL);
    if (err != CL_SUCCESS)
        return clb__cl_fail(err, "clGetKernelWorkGroupInfo(CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE)");
    err = clGetKernelWorkGroupInfo(kernel, cl->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kernel_max,
                                   &kernel_max, NULL);
    if (err != CL_SUCCESS)
        return clb__cl_fail(err, "clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE)");
    if (multiple == 0) multiple = 1;
    size_t limit = kernel_max < cl->max_item_size ? kernel_max : cl->max_item_size;
    if (limit == 0) limit = 1;
    size_t local = multiple * 8;
    size_t needed = ((size_t)numel + multiple - 1) / multiple * multiple;
    if (local > needed) local = needed;
    if (local > limit) local = limit >= multiple ? limit / multiple * multiple : limit;
    *out = local ? local : 1;
    return CLB_OK;
}

/* Sets the shape/stride table arguments from `arg` on (see cl/copy.cl for why
   two ways). *table receives the buffer of the large-rank way, for the caller
   to release. */
clb_status clb__cl_set_table_args(clb__cl_context *cl, cl_kernel kernel, const clb__plan *plan,
                                 bool wide, cl_uint arg, cl_mem *table)
{
    clb_status st = CLB_OK;
    cl_int err = CL_SUCCESS;
    int ndim = plan->ndim;
    void *host_table = NULL;
    if (ndim <= CLB__CL_BYVAL_DIMS) {
        /* Three 8-lane vectors; unused lanes are an empty axis (size 1, stride 0). */
        cl_long8 v64[3];
        cl_int8 v32[3];
        for (int d = 0; d < CLB__CL_BYVAL_DIMS; d++) {
            cl_long vals[3] = {d < ndim ? plan->shape[d] : 1, d < ndim ? plan->strides[0][d] : 0,
                               d < ndim ? plan->strides[1][d] : 0};
            for (int t = 0; t < 3; t++) {
                v64[t].s[d] = vals[t];
                v32[t].s[d] = (cl_int)vals[t];
            }
        }
        for (int t = 0; t < 3 && err == CL_SUCCESS; t++)
            err = wide ? clSetKernelArg(kernel, arg++, sizeof(cl_long8), &v64[t])
                       : clSetKernelArg(kernel, arg++, sizeof(cl_int8), &v32[t]);
        CLB_CL_CHECK(err, "clSetKernelArg");
        return CLB_OK;
    }
    /* [shape | dst strides | src strides] in the kernel's index type. */
    size_t n = 3 * (size_t)ndim, isz = wide ? sizeof(cl_long) : sizeof(cl_int);
    host_table = malloc(n * isz);
    if (!host_table) CLB_FAIL(CLB_ERR_OUT_OF_MEMORY, "out of host memory for a copy launch");
    for (int d = 0; d < ndim; d++) {
        int64_t vals[3] = {plan->shape[d], plan->strides[0][d], plan->strides[1][d]};
        for (int t = 0; t < 3; t++) {
            size_t at = (size_t)t * (size_t)ndim + (size_t)d;
            if (wide) ((cl_long *)host_table)[at] = vals[t];
            else ((cl_int *)host_table)[at] = (cl_int)vals[t];
        }
    }
    *table = clCreateBuffer(cl->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * isz,
                            host_table, &err);
    CLB_CL_CHECK(err, "clCreateBuffer");
    CLB_CL_CHECK(clSetKernelArg(kernel, arg, sizeof(cl_mem), table), "clSetKernelArg");
cleanup:
    free(host_table);
    return st;
}

/* Enqueues numel work items in pieces of at most 2^30, so no device's global-size
   limit is met; get_global_id includes the piece's offset. */
clb_status clb__cl_launch(clb__cl_context *cl, cl_kernel kernel, int64_t numel)
{
    size_t local = 0;
    clb_status st = clb__cl_pick_local_size(cl, kernel, numel, &local);
    if (st != CLB_OK) return st;
    size_t piece = ((size_t)1 << 30) / local * local;
    size_t total = ((size_t)numel + local - 1) / local * local;
    for (size_t start = 0; start < total; start += piece) {
        size_t global = total - start < piece ? total - start : piece;
        cl_int err =
            clEnqueueNDRangeKernel(cl->queue, kernel, 1, &start, &global, &local, 0, NULL, NULL);
        if (err != CL_SUCCESS) return clb__cl_fail(err, "clEnqueueNDRangeKernel");
    }
    return CLB_OK;
}
