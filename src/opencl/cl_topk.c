/* Driver of cl/sort.cl's clb_topk_chunks: the top-k of rows that one work item
 * a row cannot serve, in levels. Each level splits every row into chunks, keeps
 * the k best of each chunk (in order, with their original indices), and so
 * leaves rows of chunks * k candidates; the last level (one chunk a row) writes
 * the results. Two cases need it: a loop-limited driver (llvmpipe ends a work
 * item's loops after 65535 iterations), where a chunk must fit the trip budget,
 * and too few rows to fill the device, where chunks add work items. Either
 * way it reads the input once, where a sort of whole rows would read it
 * log2(len) times. */
#include "cl_index.h"

#include "cl_errors.h"
#include "dtype.h"

/* Work items that fill a device: a CPU device's work items are sequential
   loops (a few a compute unit); a GPU wants thousands. */
static int64_t fill_items(const clb__cl_context *cl)
{
    return cl->loops ? 4 * (int64_t)clb__cl_compute_units(cl) : 16384;
}

/* Chunks a row for a level over rows of len: enough for the trip budget
   (len * (k + 2) iterations a row at most, as clb_topk_row), and for the
   device's work items where rows are few, each chunk at least 4 k long so
   such a level shrinks the rows at least fourfold (a budget-bound one at
   least twofold). 0: no chunking fits. */
static int64_t chunks_of(const clb__cl_context *cl, int64_t rows, int64_t len, int64_t k)
{
    int64_t need = 1;
    if (cl->max_trips < INT64_MAX) {
        const int64_t most = cl->max_trips / 2 / (k + 2); /* elements a work item */
        if (most < 2 * k) return 0;
        need = (len + most - 1) / most;
    }
    const int64_t want = fill_items(cl), cap = len / (4 * k);
    int64_t par = rows >= want ? 1 : (want + rows - 1) / rows;
    if (par > cap) par = cap;
    return par > need ? par : need;
}

/* One level: the k best of each of `chunks` chunks of every row of in (len
   elements a row from in_offset; indices from cand where it is set) into
   values / indices at the given offsets (-1: not written). */
static clb_status level(clb__cl_context *cl, const clb__topk_op *op, int64_t len, int64_t chunks,
                        const cl_mem io[4], const int64_t off[3])
{
    clb__cl_kernel *k = NULL;
    const clb__kernel_define defs[] = {{"CLB_IN_DTYPE", op->in}, {"CLB_DESCENDING", op->largest}};
    /* The vector scan where a work-group is a loop (or clb__cl_index_runs forces it). */
    const int forced = clb__cl_index_runs;
    const bool vec = forced >= 0 ? forced != 0 : cl->loops;
    clb_status st = clb__cl_index_kernel(cl, CLB__KERNEL_SORT, defs, 2, vec ? 7 : 5,
                                         vec ? "clb_topk_chunks_vec" : "clb_topk_chunks", &k);
    if (st != CLB_OK) {
        if (k) clb__cl_kernel_unlock(cl);
        return st;
    }
    clb__cl_args args = {{0}};
    args.v[CLB_SORT_IN_OFFSET] = off[0];
    args.v[CLB_SORT_VALUES_OFFSET] = off[1];
    args.v[CLB_SORT_INDICES_OFFSET] = off[2];
    args.v[CLB_SORT_LEN] = len, args.v[CLB_SORT_K] = op->k, args.v[CLB_SORT_ROWS] = op->rows;
    args.v[CLB_SORT_CHUNKS] = chunks, args.v[CLB_SORT_CAND] = io[1] != io[0];
    st = clb__cl_index_set(k, CLB__KERNEL_SORT, 4, io, &args);
    if (st == CLB_OK) st = clb__cl_index_launch(cl, k->kernel, op->rows * chunks);
    clb__cl_kernel_unlock(cl);
    return st;
}

clb_status clb__cl_topk_chunked(clb_context *ctx, const clb__topk_op *op, void *const *handles,
                                bool *done)
{
    clb_status st = CLB_OK;
    clb__cl_context *cl = clb__cl_impl(ctx);
    cl_mem vbuf[2] = {NULL, NULL}, ibuf[2] = {NULL, NULL};
    const size_t esize = clb_dtype_size(op->in);
    cl_mem in = (cl_mem)handles[2], cand = NULL;
    int64_t len = op->len, in_offset = op->in_offset;
    *done = false;
    for (int cur = 0;; cur ^= 1) {
        const int64_t chunks = chunks_of(cl, op->rows, len, op->k);
        if (chunks == 0) goto cleanup; /* not done: the rows are sorted instead */
        if (chunks == 1) {
            const cl_mem io[4] = {in, cand ? cand : in, handles[0] ? (cl_mem)handles[0] : in,
                                  handles[1] ? (cl_mem)handles[1] : in};
            const int64_t off[3] = {in_offset, handles[0] ? op->values_offset : -1,
                                    handles[1] ? op->indices_offset : -1};
            CLB_TRY(level(cl, op, len, 1, io, off));
            break;
        }
        const size_t n = (size_t)(op->rows * chunks * op->k);
        CLB_TRY(clb__cl_index_buffer(cl, n * esize, "the top-k's candidates", &vbuf[cur]));
        CLB_TRY(clb__cl_index_buffer(cl, n * sizeof(cl_long), "the top-k's candidate indices",
                                     &ibuf[cur]));
        const cl_mem io[4] = {in, cand ? cand : in, vbuf[cur], ibuf[cur]};
        const int64_t off[3] = {in_offset, 0, 0};
        CLB_TRY(level(cl, op, len, chunks, io, off));
        /* The level before is read by this launch only: released now, freed by
           the driver once the launch is done. */
        if (vbuf[cur ^ 1]) clReleaseMemObject(vbuf[cur ^ 1]), vbuf[cur ^ 1] = NULL;
        if (ibuf[cur ^ 1]) clReleaseMemObject(ibuf[cur ^ 1]), ibuf[cur ^ 1] = NULL;
        in = vbuf[cur], cand = ibuf[cur], in_offset = 0, len = chunks * op->k;
    }
    *done = true;
cleanup:
    for (int b = 0; b < 2; b++) {
        if (vbuf[b]) clReleaseMemObject(vbuf[b]);
        if (ibuf[b]) clReleaseMemObject(ibuf[b]);
    }
    return st;
}
