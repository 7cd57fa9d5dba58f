/* Driver of cl/argreduce.cl: argmax / argmin along contiguous rows, one
 * work-group per row (groups stride over the rows beyond the launch's). */
#include "cl_launch.h"

#include "cl_errors.h"
#include "dtype.h"
#include "fault.h"
#include "kernels.h"

/* At most this many groups per launch; each then takes every n-th row. */
#define MAX_GROUPS 65536

clb_status clb__cl_argreduce(clb_context *ctx, const clb__argreduce_op *op, void *const *handles)
{
    clb_status st = CLB_OK;
    clb__cl_context *cl = clb__cl_impl(ctx);
    cl_program program = NULL;
    clb__cl_kernel *k = NULL; /* cached; the cache stays locked until the launch is enqueued */
    cl_int err = CL_SUCCESS;
    if (op->rows == 0) return CLB_OK;
    if (op->in == CLB_FLOAT64 && !ctx->info.has_fp64)
        return clb__fail(CLB_ERR_DTYPE,
                         "%s of float64 needs float64 arithmetic, which OpenCL device %s does not "
                         "support (no cl_khr_fp64); use the host backend or a float32 input",
                         op->is_min ? "argmin" : "argmax", ctx->info.name);
    /* Lanes per row (a power of two up to 64 the kernel and device allow, no
       more than the row, below). Where a work-group is a loop (PoCL): one work
       item per row, scanning it contiguously (lanes would stride through the
       row), and float16 / float32 rows get the 16-wide vector scan
       (cl/argreduce.cl's CLB_ARG_VEC). Where work items run across SIMD lanes:
       on a CPU (llvmpipe) CLB__CL_CPU_ROW_LANES, on other devices 64.
       CLB_ARGREDUCE_LANES forces a count (the tests cover the 64-lane tree on CPUs). */
    size_t lanes = ctx->options.argreduce_lanes     ? (size_t)ctx->options.argreduce_lanes
                   : cl->loops                      ? 1
                   : ctx->info.type == CLB_DEVICE_CPU ? CLB__CL_CPU_ROW_LANES
                                                      : 64;
    bool vec = lanes == 1 && (op->in == CLB_FLOAT32 || op->in == CLB_FLOAT16) &&
               op->len <= INT32_MAX - 16;
    clb__kernel_define defs[] = {{"CLB_IN_DTYPE", op->in}, {"CLB_ARGMIN", op->is_min},
                                 {"CLB_ARG_VEC", vec}};
    char options[CLB__KERNEL_OPTIONS_MAX];
    CLB_TRY(clb__kernel_options(defs, 3, options, sizeof options));
    CLB_TRY(clb__program_cache_get(cl->programs, CLB__KERNEL_ARGREDUCE, options, &program));
    CLB_TRY(clb__cl_kernel_for(cl, CLB__KERNEL_ARGREDUCE, program, 0,
                               clb__kernel_function(CLB__KERNEL_ARGREDUCE), &k));
    cl_kernel kernel = k->kernel;
    const cl_long scal[4] = {op->in_offset, op->out_offset, op->rows, op->len};
    err = clSetKernelArg(kernel, 0, sizeof(cl_mem), &handles[1]);
    if (err == CL_SUCCESS) err = clSetKernelArg(kernel, 1, sizeof(cl_mem), &handles[0]);
    for (cl_uint i = 0; i < 4 && err == CL_SUCCESS; i++)
        err = clSetKernelArg(kernel, 2 + i, sizeof(cl_long), &scal[i]);
    CLB_CL_CHECK(err, "clSetKernelArg");
    while (lanes & (lanes - 1)) lanes &= lanes - 1; /* a power of two: the tree halves */
    while (lanes > 1 && (lanes > k->wg_max || (int64_t)lanes / 2 >= op->len)) lanes /= 2;
    size_t groups = op->rows < MAX_GROUPS ? (size_t)op->rows : MAX_GROUPS;
    size_t local = lanes, global = groups * lanes;
    err = clEnqueueNDRangeKernel(cl->queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL);
    if (CLB__FAULT(CLB__FAULT_ENQUEUE)) err = CL_OUT_OF_RESOURCES;
    CLB_CL_CHECK(err, "clEnqueueNDRangeKernel");
cleanup:
    if (k) clb__cl_kernel_unlock(cl);
    return st;
}
