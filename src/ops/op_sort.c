/* clb_sort and clb_topk: the axis moved last and made C-contiguous (rows), one
 * backend sort of every row (stable, NaN above every number, -0.0 == 0.0),
 * then the result moved back; topk keeps each row's first k of the sort in the
 * order largest (descending) or smallest asks for. */
#include "backend.h"
#include "internal.h"
#include "op_index.h"

/* Sorts the rows of t along a into fresh rows-layout tensors (either may be
   left out: want_* false). */
static clb_status sort_rows(const clb_tensor *t, int a, bool descending, bool want_values,
                            bool want_indices, clb_tensor **values, clb_tensor **indices)
{
    clb_status st = CLB_OK;
    clb_tensor *rows = NULL;
    clb_context *ctx = t->storage->ctx;
    *values = *indices = NULL;
    CLB_TRY(clb__rows_of(t, a, &rows));
    if (want_values) CLB_TRY(clb__tensor_new(ctx, t->dtype, rows->ndim, rows->shape, values));
    if (want_indices) CLB_TRY(clb__tensor_new(ctx, CLB_INT64, rows->ndim, rows->shape, indices));
    clb__sort_op op = {.in = t->dtype, .descending = descending, .len = t->shape[a],
                       .in_offset = rows->offset,
                       .values_offset = *values ? (*values)->offset : 0,
                       .indices_offset = *indices ? (*indices)->offset : 0};
    if (rows->numel > 0) {
        op.rows = rows->numel / op.len;
        void *handles[3] = {*values ? (*values)->storage->handle : NULL,
                            *indices ? (*indices)->storage->handle : NULL,
                            rows->storage->handle};
        CLB_TRY(ctx->backend->sort(ctx, &op, handles));
    }
    clb_tensor_release(rows);
    return CLB_OK;
cleanup:
    clb_tensor_release(rows);
    clb_tensor_release(*values);
    clb_tensor_release(*indices);
    *values = *indices = NULL;
    return st;
}

/* The backend's topk, where it has one for this case (*done): rows-layout
   (..., k) results. */
static clb_status topk_rows(const clb_tensor *t, int a, int64_t k, bool largest, bool want_values,
                            bool want_indices, clb_tensor **values, clb_tensor **indices,
                            bool *done)
{
    clb_status st = CLB_OK;
    clb_tensor *rows = NULL;
    clb_context *ctx = t->storage->ctx;
    *values = *indices = NULL;
    *done = false;
    if (!ctx->backend->topk || k < 1 || t->numel == 0) return CLB_OK;
    CLB_TRY(clb__rows_of(t, a, &rows));
    int64_t shape[CLB_MAX_DIMS];
    for (int d = 0; d < rows->ndim; d++) shape[d] = rows->shape[d];
    shape[rows->ndim - 1] = k;
    if (want_values) CLB_TRY(clb__tensor_new(ctx, t->dtype, rows->ndim, shape, values));
    if (want_indices) CLB_TRY(clb__tensor_new(ctx, CLB_INT64, rows->ndim, shape, indices));
    clb__topk_op op = {.in = t->dtype, .largest = largest, .len = t->shape[a], .k = k,
                       .rows = rows->numel / t->shape[a], .in_offset = rows->offset,
                       .values_offset = *values ? (*values)->offset : 0,
                       .indices_offset = *indices ? (*indices)->offset : 0};
    void *handles[3] = {*values ? (*values)->storage->handle : NULL,
                        *indices ? (*indices)->storage->handle : NULL, rows->storage->handle};
    CLB_TRY(ctx->backend->topk(ctx, &op, handles, done));
cleanup:
    clb_tensor_release(rows);
    if (st != CLB_OK || !*done) {
        clb_tensor_release(*values);
        clb_tensor_release(*indices);
        *values = *indices = NULL;
    }
    return st;
}

/* The first k of each sorted row (all of it: k < 0), in the original axis order. */
static clb_status finish(clb_tensor *rows, int a, int64_t k, clb_tensor **out)
{
    clb_status st = CLB_OK;
    clb_tensor *cut = NULL;
    if (!rows) return CLB_OK;
    if (k >= 0)
        CLB_TRY(clb_slice(rows, rows->ndim - 1, 0, k, 1, &cut));
    CLB_TRY(clb__rows_restore(cut ? cut : rows, a, out));
cleanup:
    clb_tensor_release(cut);
    return st;
}

static clb_status order(const char *fn, const clb_tensor *t, bool topk, int64_t k, int axis,
                        bool descending, clb_tensor **values, clb_tensor **indices)
{
    clb_status st = CLB_OK;
    clb_tensor *v = NULL, *i = NULL;
    if (values) *values = NULL;
    if (indices) *indices = NULL;
    if (!values && !indices)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: values and indices are both NULL; pass "
                                                   "at least one",
                         fn);
    CLB_TRY(clb__check_tensor(t, fn));
    int a = 0;
    CLB_TRY(clb__axis_of(fn, axis, t->ndim, &a));
    if (topk && (k < 0 || k > t->shape[a]))
        CLB_FAIL(CLB_ERR_INVALID_ARGUMENT,
                 "%s: k (%lld) is out of range for an axis of size %lld (0 <= k <= size)", fn,
                 (long long)k, (long long)t->shape[a]);
    bool done = false;
    if (topk) CLB_TRY(topk_rows(t, a, k, descending, values != NULL, indices != NULL, &v, &i, &done));
    if (done) k = -1; /* the rows hold k elements already */
    if (!done) CLB_TRY(sort_rows(t, a, descending, values != NULL, indices != NULL, &v, &i));
    if (values) CLB_TRY(finish(v, a, topk ? k : -1, values));
    if (indices) CLB_TRY(finish(i, a, topk ? k : -1, indices));
cleanup:
    if (st != CLB_OK && values) {
        clb_tensor_release(*values);
        *values = NULL;
    }
    clb_tensor_release(v);
    clb_tensor_release(i);
    return st;
}

clb_status clb_sort(const clb_tensor *t, int axis, int descending, clb_tensor **values,
                    clb_tensor **indices)
{
    return order("clb_sort", t, false, 0, axis, descending != 0, values, indices);
}

clb_status clb_topk(const clb_tensor *t, int64_t k, int axis, int largest, clb_tensor **values,
                    clb_tensor **indices)
{
    return order("clb_topk", t, true, k, axis, largest != 0, values, indices);
}
