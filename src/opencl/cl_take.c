/* Driver of cl/take.cl: take / take_along_axis as one gather launch, the index
 * range checked by the kernel into a flag read back once with the result. */
#include "cl_index.h"

#include "cl_errors.h"
#include "dtype.h"

/* The split of a runs launch (cl/take.cl, CLB_TAKE_RUNS): units of `chunk`
   elements of an output row, `per` units a work item. */
typedef struct take_geometry {
    int64_t chunk, chunks, units, per;
} take_geometry;

/* Whole rows when there are enough of them to give each compute unit about 64
   work items (a group of one work item costs PoCL one dispatch; 64 a compute
   unit share the rows evenly on a loaded machine); otherwise rows cut into
   chunks of a multiple of 16 elements (the kernel's vectors) until there are. */
static take_geometry runs_geometry(const clb__cl_context *cl, const clb__gather_op *op, bool row)
{
    const int64_t rows = op->outer * op->m, want = 64 * (int64_t)clb__cl_compute_units(cl);
    take_geometry g = {.chunk = op->inner, .chunks = 1};
    if (!row) {
        g.chunk = 1, g.chunks = op->inner;
    } else if (rows < want && op->inner > 16) {
        int64_t cut = (want + rows - 1) / rows, most = (op->inner + 15) / 16;
        if (cut > most) cut = most;
        g.chunk = ((op->inner + cut - 1) / cut + 15) / 16 * 16;
        g.chunks = (op->inner + g.chunk - 1) / g.chunk;
    }
    g.units = rows * g.chunks;
    g.per = (g.units + want - 1) / want;
    /* Single elements: at least 1024 a work item, whose batches then keep misses
       in flight, rather than dispatches of a few. */
    if (!row && g.per < 1024) g.per = 1024;
    return g;
}

/* Whether a work item of the runs form stays within the device's loop budget
   (every loop counted as if it ran its full length). */
static bool runs_fit(const clb__cl_context *cl, const take_geometry *g, bool row)
{
    const int64_t trips = row ? g->chunk / 16 + 16 + 2 : 4;
    return cl->max_trips == INT64_MAX || g->per <= cl->max_trips / trips;
}

clb_status clb__cl_gather(clb_context *ctx, const clb__gather_op *op, void *const *handles,
                          bool *bad)
{
    clb_status st = CLB_OK;
    clb__cl_context *cl = clb__cl_impl(ctx);
    clb__cl_kernel *k = NULL;
    cl_mem flag = NULL;
    cl_int zero = 0, got = 0, err = CL_SUCCESS;
    *bad = false;
    const bool row = op->idx_strides[2] == 0;
    const int64_t rows = op->outer * op->m, esize = (int64_t)clb_dtype_size(op->dtype);
    take_geometry g = runs_geometry(cl, op, row);
    const int forced = clb__cl_index_runs;
    const bool runs = (forced >= 0 ? forced != 0 : cl->loops) && runs_fit(cl, &g, row);
    if (!runs) /* one element a work item */
        g = (take_geometry){.chunk = 1, .chunks = op->inner, .units = rows * op->inner, .per = 1};
    clb__kernel_define defs[] = {
        {"CLB_ELEM_BYTES", esize},
        {"CLB_IDX_UNSIGNED", op->idx_unsigned},
        {"CLB_TAKE_ROW", row},
        {"CLB_TAKE_RUNS", runs},
        {"CLB_TAKE_NT", runs && row && clb__cl_streaming(cl, rows * op->inner * esize)},
        {"CLB_TAKE_PREFETCH", runs && cl->loops}};
    /* The flag starts as zero without a command of its own. */
    CLB_TRY(clb__cl_index_buffer_from(cl, sizeof zero, &zero, "take's index check", &flag));
    CLB_TRY(clb__cl_index_kernel(cl, CLB__KERNEL_TAKE, defs, 6, 0, "clb_take", &k));
    const cl_mem mem[4] = {(cl_mem)handles[0], (cl_mem)handles[1], (cl_mem)handles[2], flag};
    clb__cl_args args = {{0}};
    args.v[CLB_TAKE_N] = op->n, args.v[CLB_TAKE_M] = op->m, args.v[CLB_TAKE_INNER] = op->inner;
    args.v[CLB_TAKE_CHUNK] = g.chunk, args.v[CLB_TAKE_CHUNKS] = g.chunks;
    for (int d = 0; d < 3; d++) args.v[CLB_TAKE_IS(d)] = op->idx_strides[d];
    args.v[CLB_TAKE_SRC_OFFSET] = op->src_offset, args.v[CLB_TAKE_IDX_OFFSET] = op->idx_offset;
    args.v[CLB_TAKE_OUT_OFFSET] = op->out_offset;
    args.v[CLB_TAKE_UNITS] = g.units, args.v[CLB_TAKE_PER] = g.per;
    CLB_TRY(clb__cl_index_set(k, CLB__KERNEL_TAKE, 4, mem, &args));
    if (runs)
        CLB_TRY(clb__cl_index_launch_ones(cl, k->kernel, (g.units + g.per - 1) / g.per));
    else
        CLB_TRY(clb__cl_launch(cl, k->kernel, g.units));
    clb__cl_kernel_unlock(cl);
    k = NULL;
    err = clEnqueueReadBuffer(cl->queue, flag, CL_TRUE, 0, sizeof got, &got, 0, NULL, NULL);
    CLB_CL_CHECK(err, "clEnqueueReadBuffer (take's index check)");
    *bad = got != 0;
cleanup:
    if (k) clb__cl_kernel_unlock(cl);
    if (flag) clReleaseMemObject(flag);
    return st;
}
