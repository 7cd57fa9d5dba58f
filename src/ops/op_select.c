/* numpy.nonzero (as argwhere) and t[mask]: the mask made a C-contiguous bool
 * tensor, its running count by the backend's scan (int64), one count read back
 * (the last running total), then the backend's compaction scatters each
 * selected position to its slot. Nothing else crosses to the host. */
#include "backend.h"
#include "internal.h"

/* The running count of a C-contiguous bool mask (numel > 0) and its total. */
static clb_status count_mask(const clb_tensor *mask, clb_tensor **scan, int64_t *count)
{
    clb_status st = CLB_OK;
    clb_context *ctx = mask->storage->ctx;
    const int64_t n = mask->numel;
    *scan = NULL;
    CLB_TRY(clb__tensor_new(ctx, CLB_INT64, 1, &n, scan));
    clb__scan_op op = {.in = CLB_BOOL, .out = CLB_INT64, .outer = 1, .len = n, .inner = 1,
                       .in_offset = mask->offset, .out_offset = (*scan)->offset};
    void *handles[2] = {(*scan)->storage->handle, mask->storage->handle};
    CLB_TRY(ctx->backend->scan(ctx, &op, handles));
    CLB_TRY(ctx->backend->read(ctx, (*scan)->storage->handle,
                               (size_t)((*scan)->offset + n - 1) * sizeof(int64_t), count,
                               sizeof *count));
    return CLB_OK;
cleanup:
    clb_tensor_release(*scan);
    *scan = NULL;
    return st;
}

/* Counts mask, allocates out (count rows of `row` elements of dtype, ndim 1 or 2)
   and scatters into it. src: masked_select's values, or NULL for nonzero. */
static clb_status select_into(const clb_tensor *mask, const clb_tensor *src, clb_dtype dtype,
                              int ndim_of_coords, const int64_t *shape, clb_tensor **out)
{
    clb_status st = CLB_OK;
    clb_tensor *scan = NULL, *r = NULL;
    clb_context *ctx = mask->storage->ctx;
    int64_t count = 0;
    if (mask->numel > 0) CLB_TRY(count_mask(mask, &scan, &count));
    const int64_t rshape[2] = {count, ndim_of_coords};
    CLB_TRY(clb__tensor_new(ctx, dtype, src ? 1 : 2, rshape, &r));
    if (r->numel > 0) {
        clb__compact_op op = {.coords = src == NULL, .dtype = dtype, .n = mask->numel,
                              .ndim = ndim_of_coords, .scan_offset = scan->offset,
                              .src_offset = src ? src->offset : 0, .out_offset = r->offset};
        for (int d = 0; d < ndim_of_coords; d++) op.shape[d] = shape[d];
        void *handles[3] = {r->storage->handle, scan->storage->handle,
                            src ? src->storage->handle : NULL};
        CLB_TRY(ctx->backend->compact(ctx, &op, handles));
    }
    *out = r;
    r = NULL;
cleanup:
    clb_tensor_release(scan);
    clb_tensor_release(r);
    return st;
}

clb_status clb_nonzero(const clb_tensor *t, clb_tensor **out)
{
    clb_status st = CLB_OK;
    clb_tensor *mask = NULL;
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_nonzero: out is NULL");
    *out = NULL;
    CLB_TRY(clb__check_tensor(t, "clb_nonzero"));
    CLB_TRY(clb_cast(t, CLB_BOOL, &mask)); /* x != 0, NaN true: NumPy's truth */
    CLB_TRY(select_into(mask, NULL, CLB_INT64, t->ndim, t->shape, out));
cleanup:
    clb_tensor_release(mask);
    return st;
}

clb_status clb_masked_select(const clb_tensor *t, const clb_tensor *mask, clb_tensor **out)
{
    const char *fn = "clb_masked_select";
    clb_status st = CLB_OK;
    clb_tensor *mb = NULL, *mc = NULL, *src = NULL;
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    CLB_TRY(clb__check_tensor(t, fn));
    CLB_TRY(clb__check_tensor(mask, fn));
    CLB_TRY(clb__check_same_context(fn, t, mask));
    if (mask->dtype != CLB_BOOL)
        CLB_FAIL(CLB_ERR_DTYPE,
                 "%s: mask must have dtype bool; make one with a comparison (clb_binary with "
                 "CLB_NE ...) or clb_cast",
                 fn);
    CLB_TRY(clb_broadcast_to(mask, t->ndim, t->shape, &mb));
    CLB_TRY(clb_contiguous(mb, &mc));
    CLB_TRY(clb_contiguous(t, &src));
    CLB_TRY(select_into(mc, src, t->dtype, 0, NULL, out));
cleanup:
    clb_tensor_release(mb);
    clb_tensor_release(mc);
    clb_tensor_release(src);
    return st;
}
