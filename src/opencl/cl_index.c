/* Helpers of cl_take.c, cl_scan.c and cl_sort.c (see cl_index.h). */
#include "cl_index.h"

#include "cl_errors.h"
#include "fault.h"

_Atomic int clb__cl_index_runs = -1;
_Atomic int64_t clb__cl_scan_strip_cols = -1;

clb_status clb__cl_index_kernel(clb__cl_context *cl, clb__kernel_id id,
                                const clb__kernel_define *defs, int ndefs, int variant,
                                const char *name, clb__cl_kernel **out)
{
    char options[CLB__KERNEL_OPTIONS_MAX];
    cl_program program = NULL;
    *out = NULL;
    clb_status st = clb__kernel_options(defs, ndefs, options, sizeof options);
    if (st == CLB_OK) st = clb__program_cache_get(cl->programs, id, options, &program);
    if (st == CLB_OK) st = clb__cl_check_args(cl, id, program);
    if (st == CLB_OK) st = clb__cl_kernel_for(cl, id, program, variant, name, out);
    return st;
}

clb_status clb__cl_index_set(clb__cl_kernel *k, clb__kernel_id id, int nmem, const cl_mem *mem,
                             const clb__cl_args *args)
{
    /* Buffers always by clSetKernelArg, never skipped as unchanged: these drivers
       release their scratch buffers after each launch, and a new buffer may get
       the released one's handle while a driver (Oclgrind) resolved the old
       handle when the argument was set. */
    cl_int err = CL_SUCCESS;
    for (int i = 0; i < nmem && err == CL_SUCCESS; i++)
        err = clSetKernelArg(k->kernel, (cl_uint)i, sizeof(cl_mem), &mem[i]);
    if (err != CL_SUCCESS) return clb__cl_fail(err, "clSetKernelArg");
    return clb__cl_set_args(k, id, (cl_uint)nmem, args);
}

clb_status clb__cl_index_launch(clb__cl_context *cl, cl_kernel k, int64_t n)
{
    return cl->loops ? clb__cl_index_launch_ones(cl, k, n) : clb__cl_launch(cl, k, n);
}

clb_status clb__cl_index_launch_ones(clb__cl_context *cl, cl_kernel k, int64_t n)
{
    const size_t local = 1, piece = (size_t)1 << 30;
    for (size_t start = 0; start < (size_t)n; start += piece) {
        size_t global = (size_t)n - start < piece ? (size_t)n - start : piece;
        cl_int err = clEnqueueNDRangeKernel(cl->queue, k, 1, &start, &global, &local, 0, NULL, NULL);
        if (CLB__FAULT(CLB__FAULT_ENQUEUE)) err = CL_OUT_OF_RESOURCES;
        if (err != CL_SUCCESS) return clb__cl_fail(err, "clEnqueueNDRangeKernel");
    }
    return CLB_OK;
}

clb_status clb__cl_index_buffer(clb__cl_context *cl, size_t nbytes, const char *what, cl_mem *out)
{
    return clb__cl_index_buffer_from(cl, nbytes, NULL, what, out);
}

clb_status clb__cl_index_buffer_from(clb__cl_context *cl, size_t nbytes, const void *init,
                                     const char *what, cl_mem *out)
{
    cl_int err = CL_SUCCESS;
    const cl_mem_flags flags = CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0);
    *out = clCreateBuffer(cl->context, flags, nbytes ? nbytes : 1, (void *)init, &err);
    if (CLB__FAULT(CLB__FAULT_BUFFER)) {
        if (*out) clReleaseMemObject(*out);
        *out = NULL;
        err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    }
    if (err == CL_SUCCESS) return CLB_OK;
    *out = NULL;
    return clb__fail(err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES ||
                             err == CL_INVALID_BUFFER_SIZE
                         ? CLB_ERR_OUT_OF_MEMORY
                         : CLB_ERR_OPENCL,
                     "clCreateBuffer of %zu bytes (%s) failed with OpenCL error %d; free some "
                     "tensors or use smaller ones",
                     nbytes, what, (int)err);
}

clb_status clb__cl_index_fp64(clb_context *ctx, const char *fn, clb_dtype dtype)
{
    if (dtype != CLB_FLOAT64 || ctx->info.has_fp64) return CLB_OK;
    return clb__fail(CLB_ERR_DTYPE,
                     "%s of float64 needs float64 arithmetic, which OpenCL device %s does not "
                     "support (no cl_khr_fp64); use the host backend or a float32 input",
                     fn, ctx->info.name);
}
