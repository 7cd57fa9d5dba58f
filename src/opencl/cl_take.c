/* Driver of cl/take.cl: take / take_along_axis as one gather launch, the index
 * range checked by the kernel into a flag read back once with the result. */
#include "cl_index.h"

#include "cl_errors.h"
#include "dtype.h"

clb_status clb__cl_gather(clb_context *ctx, const clb__gather_op *op, void *const *handles,
                          bool *bad)
{
    clb_status st = CLB_OK;
    clb__cl_context *cl = clb__cl_impl(ctx);
    clb__cl_kernel *k = NULL;
    cl_mem flag = NULL;
    cl_int zero = 0, got = 0, err = CL_SUCCESS;
    *bad = false;
    /* CPU devices that loop over a work-group copy runs; elsewhere one element a work item. */
    const int64_t chunk = cl->loops ? 1024 : 1;
    const bool row = op->idx_strides[2] == 0;
    const int64_t chunks = (op->inner + chunk - 1) / chunk, rows = op->outer * op->m;
    clb__kernel_define defs[] = {{"CLB_ELEM_BYTES", (int64_t)clb_dtype_size(op->dtype)},
                                 {"CLB_IDX_UNSIGNED", op->idx_unsigned},
                                 {"CLB_TAKE_CHUNK", chunk}, {"CLB_TAKE_ROW", row}};
    CLB_TRY(clb__cl_index_buffer(cl, sizeof zero, "take's index check", &flag));
    err = clEnqueueWriteBuffer(cl->queue, flag, CL_FALSE, 0, sizeof zero, &zero, 0, NULL, NULL);
    CLB_CL_CHECK(err, "clEnqueueWriteBuffer (take's index check)");
    CLB_TRY(clb__cl_index_kernel(cl, CLB__KERNEL_TAKE, defs, 4, 0, "clb_take", &k));
    const cl_mem mem[4] = {(cl_mem)handles[0], (cl_mem)handles[1], (cl_mem)handles[2], flag};
    /* Units a work item: on a CPU enough that about 64 work items a compute unit
       share the rows (a group of one work item costs PoCL a dispatch each). */
    const int64_t units = rows * chunks, cus = (int64_t)clb__cl_compute_units(cl);
    const int64_t per = cl->loops ? (units + 64 * cus - 1) / (64 * cus) : 1;
    const int64_t longs[12] = {op->n,          op->m,          op->inner,      chunks,
                               op->idx_strides[0], op->idx_strides[1], op->idx_strides[2],
                               op->src_offset, op->idx_offset, op->out_offset, units, per};
    CLB_TRY(clb__cl_index_args(k, 0, 4, mem, 12, longs));
    CLB_TRY(clb__cl_index_launch(cl, k->kernel, (units + per - 1) / per));
    clb__cl_kernel_unlock(cl);
    k = NULL;
    err = clEnqueueReadBuffer(cl->queue, flag, CL_TRUE, 0, sizeof got, &got, 0, NULL, NULL);
    CLB_CL_CHECK(err, "clEnqueueReadBuffer (take's index check)");
    *bad = got != 0;
cleanup:
    if (k) clb__cl_kernel_unlock(cl);
    if (flag) {
        if (st != CLB_OK) clFinish(cl->queue); /* the write may still read `zero` */
        clReleaseMemObject(flag);
    }
    return st;
}
