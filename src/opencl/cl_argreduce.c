/* Driver of cl/argreduce.cl: argmax / argmin along contiguous rows, one
 * work-group per segment (a row, or a piece of a long one; groups stride over
 * the segments beyond the launch's), then one merge per row in pieces. Both
 * ops of a dtype are kernels of one program: the second op a process uses
 * costs a kernel, not another program build. */
#include "cl_launch.h"

#include "cl_args.h"
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

/* Lanes per segment (a power of two up to 64 the kernel and device allow, no
   more than the row: clb__cl_argreduce narrows it). Where a work-group is a
   loop (PoCL): one work item per segment, scanning it contiguously (lanes would
   stride through the row). Where work items run across SIMD lanes: on a CPU
   (llvmpipe) CLB__CL_CPU_ROW_LANES, on other devices 64. CLB_ARGREDUCE_LANES
   forces a count (the tests cover the 64-lane tree on CPUs). */
static size_t lanes_wanted(const clb_context *ctx)
{
    return ctx->options.argreduce_lanes         ? (size_t)ctx->options.argreduce_lanes
           : clb__cl_impl((clb_context *)ctx)->loops ? 1
           : ctx->info.type == CLB_DEVICE_CPU    ? CLB__CL_CPU_ROW_LANES
                                                 : 64;
}

/* Pieces per row: few rows split into pieces of at least PIECE_MIN elements
   until the segments fill the device; on a loop-limited device
   (CLB__QUIRK_LOOP_LIMIT) no work item scans more than half its budget, and
   each takes one segment (no stride over them) and the merge one row. *chunk
   receives the elements of a piece (whole vectors of the scan). */
static clb_status row_pieces(clb_context *ctx, const clb__argreduce_op *op, size_t lanes, bool vec,
                             int64_t *pieces, int64_t *chunk)
{
    clb__cl_context *cl = clb__cl_impl(ctx);
    int64_t cus = clb__cl_compute_units(cl), n = 1;
    int64_t want = (cl->loops ? 64 : 16) * (cus > 0 ? cus : 1);
    if (op->rows < want) {
        int64_t p = (want + op->rows - 1) / op->rows, most = op->len / PIECE_MIN;
        n = p < most ? p : most > 1 ? most : 1;
    }
    if (cl->max_trips < INT64_MAX) {
        int64_t budget = cl->max_trips / 2, per = vec ? 16 : (int64_t)lanes;
        int64_t need = (op->len + budget * per - 1) / (budget * per);
        if (need > n) n = need;
        if (n > budget)
            return clb__fail(CLB_ERR_UNSUPPORTED,
                             "%s of rows of %lld elements on OpenCL device %s: its driver ends a "
                             "work item's loops after %lld iterations (quirk loop-limit), and rows "
                             "this long need more pieces than one work item can merge; reshape the "
                             "rows shorter or use the host backend",
                             op->is_min ? "argmin" : "argmax", (long long)op->len, ctx->info.name,
                             (long long)cl->max_trips);
    }
    *chunk = (op->len + n - 1) / n;
    *chunk = (*chunk + 63) / 64 * 64; /* whole vectors of the scan per piece */
    *pieces = (op->len + *chunk - 1) / *chunk;
    return CLB_OK;
}

/* Sets the kernel's buffers (nbuf of them) and its launch description (out_offset
   the one its output gets) and enqueues it over n units of `local` items. Called
   with the kernel cache locked. */
static clb_status run_kernel(clb__cl_context *cl, const clb__argreduce_op *op, clb__cl_kernel *k,
                             const cl_mem *bufs, int nbuf, int64_t out_offset, int64_t chunk,
                             int64_t pieces, int64_t n, size_t local)
{
    clb__cl_args args = {{0}};
    args.v[CLB_ARGRED_IN_OFFSET] = op->in_offset;
    args.v[CLB_ARGRED_OUT_OFFSET] = out_offset;
    args.v[CLB_ARGRED_ROWS] = op->rows;
    args.v[CLB_ARGRED_LEN] = op->len;
    args.v[CLB_ARGRED_CHUNK] = chunk;
    args.v[CLB_ARGRED_PIECES] = pieces;
    for (int b = 0; b < nbuf; b++) {
        clb_status st = clb__cl_set_mem(k, (cl_uint)b, bufs[b]);
        if (st != CLB_OK) return st;
    }
    clb_status st = clb__cl_set_args(k, CLB__KERNEL_ARGREDUCE, (cl_uint)nbuf, &args);
    return st == CLB_OK ? launch(cl, k->kernel, n, local) : st;
}

clb_status clb__cl_argreduce(clb_context *ctx, const clb__argreduce_op *op, void *const *handles)
{
    clb_status st = CLB_OK;
    clb__cl_context *cl = clb__cl_impl(ctx);
    cl_program program = NULL;
    clb__cl_kernel *k = NULL; /* cached; the cache stays locked until the launch is enqueued */
    cl_mem part = NULL;
    cl_int err = CL_SUCCESS;
    /* The program's kernels: 0 clb_argmax, 1 its merge, 2 clb_argmin, 3 its merge. */
    const int first = op->is_min ? 2 : 0;
    if (op->rows == 0) return CLB_OK;
    if (op->in == CLB_FLOAT64 && !ctx->info.has_fp64)
        return clb__fail(CLB_ERR_DTYPE,
                         "%s of float64 needs float64 arithmetic, which OpenCL device %s does not "
                         "support (no cl_khr_fp64); use the host backend or a float32 input",
                         op->is_min ? "argmin" : "argmax", ctx->info.name);
    /* float16 / float32 rows of one-lane segments get the 16-wide vector scan
       (cl/argreduce.cl's CLB_ARG_VEC). */
    size_t lanes = lanes_wanted(ctx);
    bool vec = lanes == 1 && (op->in == CLB_FLOAT32 || op->in == CLB_FLOAT16) &&
               op->len <= INT32_MAX - 16;
    clb__kernel_define defs[] = {{"CLB_IN_DTYPE", op->in}, {"CLB_ARG_VEC", vec}};
    char options[CLB__KERNEL_OPTIONS_MAX];
    CLB_TRY(clb__kernel_options(defs, 2, options, sizeof options));
    CLB_TRY(clb__program_cache_get(cl->programs, CLB__KERNEL_ARGREDUCE, options, &program));
    CLB_TRY(clb__cl_check_args(cl, CLB__KERNEL_ARGREDUCE, program));
    CLB_TRY(clb__cl_kernel_for(cl, CLB__KERNEL_ARGREDUCE, program, first,
                               op->is_min ? "clb_argmin" : "clb_argmax", &k));
    while (lanes & (lanes - 1)) lanes &= lanes - 1; /* a power of two: the tree halves */
    while (lanes > 1 && (lanes > k->wg_max || (int64_t)lanes / 2 >= op->len)) lanes /= 2;

    int64_t pieces = 1, chunk = 0;
    CLB_TRY(row_pieces(ctx, op, lanes, vec, &pieces, &chunk));
    if (pieces > 1) {
        part = clCreateBuffer(cl->context, CL_MEM_READ_WRITE,
                              (size_t)(op->rows * pieces) * sizeof(cl_long), NULL, &err);
        if (CLB__FAULT(CLB__FAULT_BUFFER)) err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        CLB_CL_CHECK(err, "clCreateBuffer (argreduce pieces)");
    }
    cl_mem bufs[3] = {(cl_mem)handles[1], pieces > 1 ? part : (cl_mem)handles[0], NULL};
    CLB_TRY(run_kernel(cl, op, k, bufs, 2, pieces > 1 ? 0 : op->out_offset, chunk, pieces,
                       op->rows * pieces, lanes));
    clb__cl_kernel_unlock(cl);
    k = NULL;

    if (pieces > 1) {
        CLB_TRY(clb__cl_kernel_for(cl, CLB__KERNEL_ARGREDUCE, program, first + 1,
                                   op->is_min ? "clb_argmin_merge" : "clb_argmax_merge", &k));
        bufs[1] = (cl_mem)handles[0], bufs[2] = part;
        CLB_TRY(run_kernel(cl, op, k, bufs, 3, op->out_offset, chunk, pieces, op->rows, 1));
    }
cleanup:
    if (k) clb__cl_kernel_unlock(cl);
    if (part) clReleaseMemObject(part);
    return st;
}
