/* Driver of cl/sort.cl: tiles sorted in local memory (bitonic), then merge
 * passes over global memory until a run covers the row, then the values and
 * indices written from the sorted pairs. */
#include "cl_index.h"

#include "cl_errors.h"
#include "dtype.h"
#include "fault.h"

/* Most pairs a tile (a power of two): the bitonic network's cost grows with
   log2(tile)^2, the merge passes' with log2(len / tile). */
#define SORT_MAX_TILE 2048
#define SORT_MAX_GROUPS ((int64_t)1 << 20)

/* The tile: a power of two covering the row where it can, within local memory. */
static int64_t tile_of(const clb__cl_context *cl, int64_t len, size_t pair_bytes)
{
    /* The CPU form (cl->loops) keeps two tiles, sorts with merges whose cost
       grows with log2(tile) only: tiles up to 8192 pairs. */
    const int64_t most = cl->loops ? 4 * SORT_MAX_TILE : SORT_MAX_TILE;
    const uint64_t copies = cl->loops ? 2 : 1;
    int64_t tile = 2;
    while (tile < len && tile < most) tile *= 2;
    while (tile > 2 && (uint64_t)tile * pair_bytes * copies > cl->local_mem_bytes / 2) tile /= 2;
    return tile;
}

/* The sort's launch description (cl/launch_args.h's CLB_SORT_*): the input's
   offset and row length, each output's offset where it is wanted (else -1),
   and count work items; the pass fills in the rest. */
static clb__cl_args sort_args(const clb__sort_op *op, bool values, bool indices, int64_t count)
{
    clb__cl_args a = {{0}};
    a.v[CLB_SORT_IN_OFFSET] = op->in_offset;
    a.v[CLB_SORT_VALUES_OFFSET] = values ? op->values_offset : -1;
    a.v[CLB_SORT_INDICES_OFFSET] = indices ? op->indices_offset : -1;
    a.v[CLB_SORT_LEN] = op->len, a.v[CLB_SORT_COUNT] = count;
    return a;
}

static clb_status tile_pass(clb__cl_context *cl, clb__cl_kernel *k, const clb__sort_op *op,
                            const cl_mem *mem, int64_t tile, size_t key_bytes, bool direct)
{
    const int64_t tiles = (op->len + tile - 1) / tile, groups = op->rows * tiles;
    size_t lsz = cl->loops ? 1 : k->wg_max < 256 ? k->wg_max : 256;
    while (lsz > 1 && (int64_t)lsz > tile / 2) lsz /= 2;
    const size_t copies = cl->loops ? 2 : 1; /* the CPU form merges between two tiles */
    cl_int err = clSetKernelArg(k->kernel, 5, copies * (size_t)tile * key_bytes, NULL);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(k->kernel, 6, copies * (size_t)tile * sizeof(cl_uint), NULL);
    if (err != CL_SUCCESS) return clb__cl_fail(err, "clSetKernelArg");
    clb__cl_args args = sort_args(op, mem[3] != NULL, mem[4] != NULL, 0);
    args.v[CLB_SORT_TILE] = tile, args.v[CLB_SORT_TILES] = tiles, args.v[CLB_SORT_DIRECT] = direct;
    cl_mem m[5] = {mem[0], mem[1], mem[2], mem[3] ? mem[3] : mem[0], mem[4] ? mem[4] : mem[0]};
    /* The buffers, two local arrays (set above), then the description. */
    for (cl_uint i = 0; i < 5 && err == CL_SUCCESS; i++)
        err = clSetKernelArg(k->kernel, i, sizeof(cl_mem), &m[i]);
    clb_status st = err == CL_SUCCESS ? CLB_OK : clb__cl_fail(err, "clSetKernelArg");
    if (st == CLB_OK) st = clb__cl_set_args(k, CLB__KERNEL_SORT, 7, &args);
    for (int64_t first = 0; st == CLB_OK && first < groups; first += SORT_MAX_GROUPS) {
        size_t off = (size_t)first * lsz, n = (size_t)(groups - first < SORT_MAX_GROUPS
                                                           ? groups - first
                                                           : SORT_MAX_GROUPS);
        size_t global = n * lsz;
        err = clEnqueueNDRangeKernel(cl->queue, k->kernel, 1, &off, &global, &lsz, 0, NULL, NULL);
        if (CLB__FAULT(CLB__FAULT_ENQUEUE)) err = CL_OUT_OF_RESOURCES;
        if (err != CL_SUCCESS) st = clb__cl_fail(err, "clEnqueueNDRangeKernel (sort tiles)");
    }
    return st;
}

clb_status clb__cl_sort(clb_context *ctx, const clb__sort_op *op, void *const *handles)
{
    clb_status st = CLB_OK;
    clb__cl_context *cl = clb__cl_impl(ctx);
    clb__cl_kernel *k = NULL;
    cl_mem keys[2] = {NULL, NULL}, idx[2] = {NULL, NULL};
    if (op->len >= (int64_t)UINT32_MAX)
        return clb__fail(CLB_ERR_UNSUPPORTED,
                         "sort of rows of %lld elements on an OpenCL device: rows of at most "
                         "%lld elements are supported; use the host backend",
                         (long long)op->len, (long long)UINT32_MAX - 1);
    const size_t key_bytes = clb_dtype_size(op->in) == 8 ? 8 : 4;
    const int64_t tile = tile_of(cl, op->len, key_bytes + sizeof(cl_uint));
    const bool direct = op->len <= tile;
    const size_t n = (size_t)(op->rows * op->len);
    clb__kernel_define defs[] = {{"CLB_IN_DTYPE", op->in}, {"CLB_DESCENDING", op->descending}};
    if (!direct)
        for (int b = 0; b < 2; b++) {
            CLB_TRY(clb__cl_index_buffer(cl, n * key_bytes, "the sort's keys", &keys[b]));
            CLB_TRY(clb__cl_index_buffer(cl, n * sizeof(cl_uint), "the sort's indices", &idx[b]));
        }
    const cl_mem in = (cl_mem)handles[2];
    CLB_TRY(clb__cl_index_kernel(cl, CLB__KERNEL_SORT, defs, 2, cl->loops ? 4 : 0,
                                 cl->loops ? "clb_sort_tile_seq" : "clb_sort_tile", &k));
    const cl_mem tmem[5] = {in, keys[0] ? keys[0] : in, idx[0] ? idx[0] : in,
                            (cl_mem)handles[0], (cl_mem)handles[1]};
    CLB_TRY(tile_pass(cl, k, op, tmem, tile, key_bytes, direct));
    clb__cl_kernel_unlock(cl);
    k = NULL;
    if (direct) return CLB_OK;
    int cur = 0;
    for (int64_t width = tile; width < op->len; width *= 2, cur ^= 1) {
        CLB_TRY(clb__cl_index_kernel(cl, CLB__KERNEL_SORT, defs, 2, 1, "clb_sort_merge", &k));
        const cl_mem mem[4] = {keys[cur], idx[cur], keys[cur ^ 1], idx[cur ^ 1]};
        clb__cl_args args = sort_args(op, false, false, (int64_t)n);
        args.v[CLB_SORT_WIDTH] = width;
        CLB_TRY(clb__cl_index_set(k, CLB__KERNEL_SORT, 4, mem, &args));
        CLB_TRY(clb__cl_launch(cl, k->kernel, (int64_t)n));
        clb__cl_kernel_unlock(cl);
        k = NULL;
    }
    CLB_TRY(clb__cl_index_kernel(cl, CLB__KERNEL_SORT, defs, 2, 2, "clb_sort_finish", &k));
    const cl_mem fmem[4] = {in, idx[cur], handles[0] ? (cl_mem)handles[0] : in,
                            handles[1] ? (cl_mem)handles[1] : in};
    const clb__cl_args fargs = sort_args(op, handles[0] != NULL, handles[1] != NULL, (int64_t)n);
    CLB_TRY(clb__cl_index_set(k, CLB__KERNEL_SORT, 4, fmem, &fargs));
    CLB_TRY(clb__cl_launch(cl, k->kernel, (int64_t)n));
cleanup:
    if (k) clb__cl_kernel_unlock(cl);
    for (int b = 0; b < 2; b++) {
        if (keys[b]) clReleaseMemObject(keys[b]);
        if (idx[b]) clReleaseMemObject(idx[b]);
    }
    return st;
}

/* Most k the private top-k list of cl/sort.cl's clb_topk_rows holds. */
#define TOPK_MAX 64

clb_status clb__cl_topk(clb_context *ctx, const clb__topk_op *op, void *const *handles, bool *done)
{
    clb_status st = CLB_OK;
    clb__cl_context *cl = clb__cl_impl(ctx);
    clb__cl_kernel *k = NULL;
    *done = false;
    /* One work item a row: worth it for small k over enough rows to fill the
       device; a loop-limited work item must also be able to finish a row whose
       every element enters the list (len * (k + 1) iterations). */
    const int64_t units = (int64_t)clb__cl_compute_units(cl);
    if (op->k > TOPK_MAX || op->len >= (int64_t)UINT32_MAX) return CLB_OK;
    if (op->rows < (cl->loops ? 4 * units : 1024) ||
        (cl->max_trips < INT64_MAX && op->len * (op->k + 2) > cl->max_trips / 2))
        return clb__cl_topk_chunked(ctx, op, handles, done); /* cl_topk.c */
    /* The sort's own program (cl/sort.cl's CLB_TOPK_MAX is TOPK_MAX); where a
       work-group is a loop (PoCL; or forced by clb__cl_index_runs) the form that
       tests 16 elements with one vector compare (a work item's vectors are the
       CPU's), else one element at a time (work items across lanes). */
    const int forced = clb__cl_index_runs;
    const bool vec = forced >= 0 ? forced != 0 : cl->loops;
    clb__kernel_define defs[] = {{"CLB_IN_DTYPE", op->in}, {"CLB_DESCENDING", op->largest}};
    /* Kernel slots of the sort's program: 0 1 2 4 the sort, 3 6 here, 5 7 cl_topk.c. */
    CLB_TRY(clb__cl_index_kernel(cl, CLB__KERNEL_SORT, defs, 2, vec ? 6 : 3,
                                 vec ? "clb_topk_rows_vec" : "clb_topk_rows", &k));
    const cl_mem in = (cl_mem)handles[2];
    const cl_mem mem[3] = {in, handles[0] ? (cl_mem)handles[0] : in,
                           handles[1] ? (cl_mem)handles[1] : in};
    /* Rows a work item: on a CPU about 64 work items a compute unit in groups of
       one (each scans its rows in order); one row a work item elsewhere. */
    const int64_t per = cl->loops ? (op->rows + 64 * units - 1) / (64 * units) : 1;
    clb__cl_args args = {{0}};
    args.v[CLB_SORT_IN_OFFSET] = op->in_offset;
    args.v[CLB_SORT_VALUES_OFFSET] = handles[0] ? op->values_offset : -1;
    args.v[CLB_SORT_INDICES_OFFSET] = handles[1] ? op->indices_offset : -1;
    args.v[CLB_SORT_LEN] = op->len, args.v[CLB_SORT_K] = op->k;
    args.v[CLB_SORT_ROWS] = op->rows, args.v[CLB_SORT_PER] = per;
    CLB_TRY(clb__cl_index_set(k, CLB__KERNEL_SORT, 3, mem, &args));
    CLB_TRY(clb__cl_index_launch(cl, k->kernel, (op->rows + per - 1) / per));
    *done = true;
cleanup:
    if (k) clb__cl_kernel_unlock(cl);
    return st;
}
