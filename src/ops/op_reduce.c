/* Reductions and sum_to_shape, planned as a write operand with stride 0 on the
   reduced axes (one representation for every backend). */
#include "backend.h"
#include "dtype.h"
#include "internal.h"
#include "shape.h"

#include <stdlib.h>
#include <string.h>

/* out_strides: the output's strides over the input's shape (0 on reduced axes). */
static clb_status run_reduce(const clb__reduce_op *op, clb_tensor *out, const clb_tensor *in,
                             const int64_t *out_strides)
{
    clb_context *ctx = in->storage->ctx;
    clb__plan *plan = malloc(sizeof *plan);
    if (!plan) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory for a launch plan");
    const int64_t *strides[2] = {out_strides, in->strides};
    const int64_t offsets[2] = {out->offset, in->offset};
    clb__plan_make(plan, 2, in->ndim, in->shape, strides, offsets);
    void *handles[2] = {out->storage->handle, in->storage->handle};
    /* An empty input still defines every output element (0, 1 or NaN). */
    clb_status st = op->out_numel > 0 ? ctx->backend->reduce(ctx, op, plan, handles) : CLB_OK;
    free(plan);
    return st;
}

static const char *numpy_reduce_name(clb_reduce_op op)
{
    return op == CLB_MAX ? "maximum" : "minimum";
}

/* all / any: an empty reduction gives True / False everywhere (clb_full); other
   inputs are min / max of their truth values (a bool copy first for other
   dtypes; clb_eval_reduce of "x" with CLB_ALL / CLB_ANY folds them without it). */
static clb_status all_any(clb_reduce_op op, const clb_tensor *t, int naxes, const int *axes,
                          int keepdim, int64_t count, int out_ndim, const int64_t *out_shape,
                          clb_tensor **out)
{
    clb_context *ctx = t->storage->ctx;
    clb_tensor *b = NULL;
    if (count == 0 || t->numel == 0) {
        clb_scalar v = {.kind = CLB_SCALAR_BOOL, .i = op == CLB_ALL};
        return clb_full(ctx, CLB_BOOL, out_ndim, out_shape, v, out);
    }
    clb_status st = clb_cast(t, CLB_BOOL, &b);
    if (st == CLB_OK) st = clb_reduce(op == CLB_ALL ? CLB_MIN : CLB_MAX, b, naxes, axes, keepdim, out);
    clb_tensor_release(b);
    return st;
}

clb_status clb_reduce(clb_reduce_op op, const clb_tensor *t, int naxes, const int *axes,
                      int keepdim, clb_tensor **out)
{
    clb_status st = CLB_OK;
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_reduce: out is NULL");
    *out = NULL;
    CLB_TRY(clb__check_tensor(t, "clb_reduce: t"));
    clb__reduce_op r = {.op = op, .in = t->dtype, .count = 1};
    CLB_TRY_IN("clb_reduce", NULL, clb__reduce_types_r(clb__rules(t->storage->ctx), op, t->dtype, &r.out));
    CLB_TRY(clb__check_promoted_f64("clb_reduce", t->storage->ctx, "mean", t->dtype,
                                    (clb_dtype)-1, r.out));
    if (keepdim != 0 && keepdim != 1)
        CLB_FAIL(CLB_ERR_INVALID_ARGUMENT, "clb_reduce: keepdim must be 0 or 1, not %d", keepdim);
    bool reduced[CLB_MAX_DIMS] = {false};
    int nred = 0, red[CLB_MAX_DIMS];
    CLB_TRY(clb__reduced_axes("clb_reduce", t->ndim, naxes, axes, reduced, &nred, red));
    int64_t kept_shape[CLB_MAX_DIMS], out_shape[CLB_MAX_DIMS], out_strides[CLB_MAX_DIMS];
    int out_ndim = 0;
    for (int d = 0; d < t->ndim; d++) {
        kept_shape[d] = reduced[d] ? 1 : t->shape[d];
        if (reduced[d]) {
            r.count *= t->shape[d];
            if (t->shape[d] == 0 && (op == CLB_MAX || op == CLB_MIN))
                CLB_FAIL(CLB_ERR_INVALID_ARGUMENT,
                         "zero-size array to reduction operation %s which has no identity "
                         "(axis %d has size 0)",
                         numpy_reduce_name(op), d);
        }
        if (keepdim || !reduced[d]) out_shape[out_ndim++] = kept_shape[d];
    }
    if (op == CLB_ALL || op == CLB_ANY)
        return all_any(op, t, naxes, axes, keepdim, r.count, out_ndim, out_shape, out);
    clb__contiguous_strides(t->ndim, kept_shape, out_strides);
    for (int d = 0; d < t->ndim; d++)
        if (reduced[d]) out_strides[d] = 0;
    CLB_TRY(clb__tensor_new(t->storage->ctx, r.out, out_ndim, out_shape, out));
    r.out_numel = (*out)->numel;
    CLB_TRY(run_reduce(&r, *out, t, out_strides));
    return CLB_OK;
cleanup:
    clb_tensor_release(*out);
    *out = NULL;
    return st;
}

clb_status clb_sum_to_shape(const clb_tensor *grad, int ndim, const int64_t *shape, clb_tensor **out)
{
    clb_status st = CLB_OK;
    char have[512], want[512];
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_sum_to_shape: out is NULL");
    *out = NULL;
    CLB_TRY(clb__check_tensor(grad, "clb_sum_to_shape: grad"));
    CLB_TRY(clb__shape_check(ndim, shape, "clb_sum_to_shape: shape", NULL));
    clb__reduce_op r = {.op = CLB_SUM, .in = grad->dtype, .count = 1};
    CLB_TRY(clb__reduce_types(CLB_SUM, grad->dtype, &r.out));
    int lead = grad->ndim - ndim;
    bool fits = lead >= 0;
    for (int i = 0; fits && i < ndim; i++) fits = shape[i] == 1 || shape[i] == grad->shape[lead + i];
    if (!fits)
        CLB_FAIL(CLB_ERR_SHAPE_MISMATCH,
                 "clb_sum_to_shape: shape %s does not broadcast to the gradient's shape %s, so "
                 "it cannot be the shape the gradient was broadcast from",
                 clb__shape_str(ndim, shape, want, sizeof want),
                 clb__shape_str(grad->ndim, grad->shape, have, sizeof have));
    CLB_TRY(clb__tensor_new(grad->storage->ctx, r.out, ndim, shape, out));
    /* The output seen over the gradient's shape: stride 0 where broadcasting expanded. */
    int64_t out_strides[CLB_MAX_DIMS];
    clb__broadcast_strides(ndim, shape, (*out)->strides, grad->ndim, grad->shape, out_strides);
    r.out_numel = (*out)->numel;
    r.count = r.out_numel > 0 ? grad->numel / r.out_numel : 0;
    CLB_TRY(run_reduce(&r, *out, grad, out_strides));
    return CLB_OK;
cleanup:
    clb_tensor_release(*out);
    *out = NULL;
    return st;
}
