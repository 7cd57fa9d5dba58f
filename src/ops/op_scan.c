/* numpy.cumsum / numpy.cumprod along one axis: the input made C-contiguous as
 * (outer, len, inner), one backend scan into a new tensor of NumPy's dtype
 * (int64 for bool and signed integers, uint64 for unsigned, floats their own). */
#include "backend.h"
#include "dtype.h"
#include "internal.h"
#include "op_index.h"

static clb_dtype scan_dtype(clb_dtype in)
{
    if (clb__dtype_is_float(in)) return in;
    return clb__dtype_is_unsigned(in) ? CLB_UINT64 : CLB_INT64;
}

static clb_status scan(const char *fn, bool prod, const clb_tensor *t, int axis, clb_tensor **out)
{
    clb_status st = CLB_OK;
    clb_tensor *src = NULL, *r = NULL;
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    CLB_TRY(clb__check_tensor(t, fn));
    int a = 0;
    CLB_TRY(clb__axis_of(fn, axis, t->ndim, &a));
    clb__scan_op op = {.prod = prod, .in = t->dtype, .out = scan_dtype(t->dtype), .outer = 1,
                       .len = t->shape[a], .inner = 1};
    for (int d = 0; d < a; d++) op.outer *= t->shape[d];
    for (int d = a + 1; d < t->ndim; d++) op.inner *= t->shape[d];
    clb_context *ctx = t->storage->ctx;
    CLB_TRY(clb__tensor_new(ctx, op.out, t->ndim, t->shape, &r));
    if (r->numel > 0) {
        CLB_TRY(clb_contiguous(t, &src));
        op.in_offset = src->offset;
        op.out_offset = r->offset;
        void *handles[2] = {r->storage->handle, src->storage->handle};
        CLB_TRY(ctx->backend->scan(ctx, &op, handles));
    }
    *out = r;
    r = NULL;
cleanup:
    clb_tensor_release(src);
    clb_tensor_release(r);
    return st;
}

clb_status clb_cumsum(const clb_tensor *t, int axis, clb_tensor **out)
{
    return scan("clb_cumsum", false, t, axis, out);
}

clb_status clb_cumprod(const clb_tensor *t, int axis, clb_tensor **out)
{
    return scan("clb_cumprod", true, t, axis, out);
}
