/* Driver of cl/argreduce.cl: argmax / argmin along contiguous rows, one
 * work-group per segment (a row, or a piece of a long one; groups stride over
 * the segments beyond the launch's), then one merge per row in pieces. */
#include "cl_launch.h"

#include "cl_errors.h"
#include "dtype.h"
#include "fault.h"
#include "cl_kernels.h"

/* At most this many groups per launch; each then takes every n-th segment. */
#define MAX_GROUPS 65536
/* Fewest elements of a piece when rows split to keep the device busy. */
#define PIECE_MIN 16384

/* Enqueues kernel over one group of `local` items per unit of work (n of them),
   at most MAX_GROUPS groups that stride over the rest, except on a loop-limited
   device, where no group may take more than one. */
static clb_status launch(clb__cl_context *cl, cl_kernel kernel, int64_t n, size_t local)
{
    const bool stride = cl->max_trips == INT64_MAX && n > MAX_GROUPS;
    size_t global = (size_t)(stride ? MAX_GROUPS : n) * local;
    cl_int err = clEnqueueNDRangeKernel(cl->queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL);
    if (CLB__FAULT(CLB__FAULT_ENQUEUE)) err = CL_OUT_OF_RESOURCES;
    return err == CL_SUCCESS ? CLB_OK : clb__cl_fail(err, "clEnqueueNDRangeKernel");
}

clb_status clb__cl_argreduce(clb_context *ctx, const clb__argreduce_op *op, void *const *handles)
{
    clb_status st = CLB_OK;
    clb__cl_context *cl = clb__cl_impl(ctx);
    cl_program program = NULL;
    clb__cl_kernel *k = NULL; /* cached; the cache stays locked until the launch is enqueued */
    cl_mem part = NULL;
    cl_int err = CL_SUCCESS;
    const char *fn = op->is_min ? "argmin" : "argmax";
    if (op->rows == 0) return CLB_OK;
    if (op->in == CLB_FLOAT64 && !ctx->info.has_fp64)
        return clb__fail(CLB_ERR_DTYPE,
                         "%s of float64 needs float64 arithmetic, which OpenCL device %s does not "
                         "support (no cl_khr_fp64); use the host backend or a float32 input",
                         fn, ctx->info.name);
    /* Lanes per segment (a power of two up to 64 the kernel and device allow, no
       more than the row, below). Where a work-group is a loop (PoCL): one work
       item per segment, scanning it contiguously (lanes would stride through the
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
    while (lanes & (lanes - 1)) lanes &= lanes - 1; /* a power of two: the tree halves */
    while (lanes > 1 && (lanes > k->wg_max || (int64_t)lanes / 2 >= op->len)) lanes /= 2;

    /* Pieces per row: few rows split into pieces of at least PIECE_MIN elements
       until the segments fill the device; on a loop-limited device
       (CLB__QUIRK_LOOP_LIMIT) no work item scans more than half its budget, and
       each takes one segment (no stride over them) and the merge one row. */
    int64_t cus = clb__cl_compute_units(cl), pieces = 1;
    int64_t want = (cl->loops ? 64 : 16) * (cus > 0 ? cus : 1);
    if (op->rows < want) {
        int64_t p = (want + op->rows - 1) / op->rows, most = op->len / PIECE_MIN;
        pieces = p < most ? p : most > 1 ? most : 1;
    }
    if (cl->max_trips < INT64_MAX) {
        int64_t budget = cl->max_trips / 2, per = vec ? 16 : (int64_t)lanes;
        int64_t need = (op->len + budget * per - 1) / (budget * per);
        if (need > pieces) pieces = need;
        if (pieces > budget)
            CLB_FAIL(CLB_ERR_UNSUPPORTED,
                     "%s of rows of %lld elements on OpenCL device %s: its driver ends a work "
                     "item's loops after %lld iterations (quirk loop-limit), and rows this long "
                     "need more pieces than one work item can merge; reshape the rows shorter "
                     "or use the host backend",
                     fn, (long long)op->len, ctx->info.name, (long long)cl->max_trips);
    }
    int64_t chunk = (op->len + pieces - 1) / pieces;
    chunk = (chunk + 63) / 64 * 64; /* whole vectors of the scan per piece */
    pieces = (op->len + chunk - 1) / chunk;
    const int64_t segments = op->rows * pieces;
    if (pieces > 1) {
        part = clCreateBuffer(cl->context, CL_MEM_READ_WRITE, (size_t)segments * sizeof(cl_long),
                              NULL, &err);
        if (CLB__FAULT(CLB__FAULT_BUFFER)) err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        CLB_CL_CHECK(err, "clCreateBuffer (argreduce pieces)");
    }

    cl_kernel kernel = k->kernel;
    cl_mem dst = pieces > 1 ? part : (cl_mem)handles[0];
    const cl_long scal[6] = {op->in_offset, pieces > 1 ? 0 : op->out_offset, op->rows, op->len,
                             chunk, pieces};
    err = clSetKernelArg(kernel, 0, sizeof(cl_mem), &handles[1]);
    if (err == CL_SUCCESS) err = clSetKernelArg(kernel, 1, sizeof(cl_mem), &dst);
    for (cl_uint i = 0; i < 6 && err == CL_SUCCESS; i++)
        err = clSetKernelArg(kernel, 2 + i, sizeof(cl_long), &scal[i]);
    CLB_CL_CHECK(err, "clSetKernelArg");
    CLB_TRY(launch(cl, kernel, segments, lanes));
    clb__cl_kernel_unlock(cl);
    k = NULL;

    if (pieces > 1) {
        CLB_TRY(clb__cl_kernel_for(cl, CLB__KERNEL_ARGREDUCE, program, 1, "clb_argreduce_merge",
                                   &k));
        kernel = k->kernel;
        const cl_long sm[5] = {op->in_offset, op->out_offset, op->rows, op->len, pieces};
        err = clSetKernelArg(kernel, 0, sizeof(cl_mem), &handles[1]);
        if (err == CL_SUCCESS) err = clSetKernelArg(kernel, 1, sizeof(cl_mem), &handles[0]);
        if (err == CL_SUCCESS) err = clSetKernelArg(kernel, 2, sizeof(cl_mem), &part);
        for (cl_uint i = 0; i < 5 && err == CL_SUCCESS; i++)
            err = clSetKernelArg(kernel, 3 + i, sizeof(cl_long), &sm[i]);
        CLB_CL_CHECK(err, "clSetKernelArg");
        CLB_TRY(launch(cl, kernel, op->rows, 1));
    }
cleanup:
    if (k) clb__cl_kernel_unlock(cl);
    if (part) clReleaseMemObject(part);
    return st;
}
