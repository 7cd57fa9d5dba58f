/* Element-wise operations with broadcasting: validate, promote, plan, run. */
#include "backend.h"
#include "dtype.h"
#include "internal.h"
#include "shape.h"


/* Plans out = f(inputs) over out's shape, each input broadcast to it, and runs it. */
static clb_status run_map(const clb__map_op *op, clb_tensor *out, int nin,
                          const clb_tensor *const *in)
{
    clb_context *ctx = out->storage->ctx;
    /* A plan is ~10 KB: too big for the stack of a caller's thread, and a malloc per
       call shows in tiny launches. Backends never call back into the op layer, so
       one plan per thread is never in use twice. */
    static _Thread_local clb__plan thread_plan;
    clb__plan *plan = &thread_plan;
    int64_t in_strides[3][CLB_MAX_DIMS];
    const int64_t *strides[CLB__MAX_OPERANDS] = {out->strides};
    int64_t offsets[CLB__MAX_OPERANDS] = {out->offset};
    void *handles[CLB__MAX_OPERANDS] = {out->storage->handle};
    for (int k = 0; k < nin; k++) {
        clb__broadcast_strides(in[k]->ndim, in[k]->shape, in[k]->strides, out->ndim, out->shape,
                               in_strides[k]);
        strides[k + 1] = in_strides[k];
        offsets[k + 1] = in[k]->offset;
        handles[k + 1] = in[k]->storage->handle;
    }
    clb__plan_make(plan, nin + 1, out->ndim, out->shape, strides, offsets);
    clb__plan_flip_inputs(plan); /* reversed inputs are read ascending */
    return plan->numel > 0 ? ctx->backend->map(ctx, op, plan, handles) : CLB_OK;
}

/* The broadcast shape of the inputs, with PyTorch's message naming them a, b, c. */
static clb_status broadcast_inputs(int nin, const clb_tensor *const *in, int *ndim, int64_t *shape)
{
    int ndims[3];
    const int64_t *shapes[3];
    for (int k = 0; k < nin; k++) {
        ndims[k] = in[k]->ndim;
        shapes[k] = in[k]->shape;
    }
    return clb__broadcast(nin, ndims, shapes, ndim, shape);
}

/* Common body of the ops that return a new tensor. */
static clb_status map_new(const char *fn, const clb__map_op *op, int nin,
                          const clb_tensor *const *in, clb_tensor **out)
{
    clb_status st = CLB_OK;
    int ndim = 0;
    int64_t shape[CLB_MAX_DIMS];
    for (int k = 1; k < nin; k++) CLB_TRY(clb__check_same_context(fn, in[0], in[k]));
    CLB_TRY_IN(fn, NULL, broadcast_inputs(nin, in, &ndim, shape));
    CLB_TRY(clb__tensor_new(in[0]->storage->ctx, op->out, ndim, shape, out));
    CLB_TRY(run_map(op, *out, nin, in));
    return CLB_OK;
cleanup:
    clb_tensor_release(*out);
    *out = NULL;
    return st;
}

clb_status clb_binary(clb_binary_op op, const clb_tensor *a, const clb_tensor *b, clb_tensor **out)
{
    clb_status st = CLB_OK;
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_binary: out is NULL");
    *out = NULL;
    CLB_TRY(clb__check_tensor(a, "clb_binary: a"));
    CLB_TRY(clb__check_tensor(b, "clb_binary: b"));
    clb__map_op m = {.kind = CLB__MAP_BINARY, .op = (int)op, .in = {a->dtype, b->dtype}};
    clb_context *ctx = a->storage->ctx;
    CLB_TRY_IN("clb_binary", NULL,
               clb__binary_types_r(clb__rules(ctx), op, a->dtype, b->dtype, &m.compute, &m.out));
    CLB_TRY(clb__check_promoted_f64("clb_binary", ctx, clb_binary_op_name(op), a->dtype, b->dtype,
                                    m.compute));
    const clb_tensor *in[2] = {a, b};
    CLB_TRY(map_new("clb_binary", &m, 2, in, out));
cleanup:
    return st;
}

clb_status clb_unary(clb_unary_op op, const clb_tensor *a, clb_tensor **out)
{
    clb_status st = CLB_OK;
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_unary: out is NULL");
    *out = NULL;
    CLB_TRY(clb__check_tensor(a, "clb_unary: a"));
    clb__map_op m = {.kind = CLB__MAP_UNARY, .op = (int)op, .in = {a->dtype}};
    CLB_TRY_IN("clb_unary", NULL,
               clb__unary_types_r(clb__rules(a->storage->ctx), op, a->dtype, &m.compute, &m.out));
    CLB_TRY(clb__check_promoted_f64("clb_unary", a->storage->ctx, clb_unary_op_name(op), a->dtype,
                                    (clb_dtype)-1, m.compute));
    const clb_tensor *in[1] = {a};
    CLB_TRY(map_new("clb_unary", &m, 1, in, out));
cleanup:
    return st;
}

clb_status clb_where(const clb_tensor *cond, const clb_tensor *a, const clb_tensor *b,
                     clb_tensor **out)
{
    clb_status st = CLB_OK;
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_where: out is NULL");
    *out = NULL;
    CLB_TRY(clb__check_tensor(cond, "clb_where: cond"));
    CLB_TRY(clb__check_tensor(a, "clb_where: a"));
    CLB_TRY(clb__check_tensor(b, "clb_where: b"));
    clb__map_op m = {.kind = CLB__MAP_WHERE, .in = {cond->dtype, a->dtype, b->dtype}};
    CLB_TRY_IN("clb_where", NULL,
               clb__where_types_r(clb__rules(a->storage->ctx), cond->dtype, a->dtype, b->dtype,
                                  &m.out));
    m.compute = m.out;
    const clb_tensor *in[3] = {cond, a, b};
    CLB_TRY(map_new("clb_where", &m, 3, in, out));
cleanup:
    return st;
}

clb_status clb_binary_into(clb_binary_op op, const clb_tensor *a, const clb_tensor *b, clb_tensor *out)
{
    clb_status st = CLB_OK;
    char want[512], have[512];
    CLB_TRY(clb__check_tensor(a, "clb_binary_into: a"));
    CLB_TRY(clb__check_tensor(b, "clb_binary_into: b"));
    CLB_TRY(clb__check_tensor(out, "clb_binary_into: out"));
    CLB_TRY(clb__check_same_context("clb_binary_into", a, b));
    CLB_TRY(clb__check_same_context("clb_binary_into", a, out));
    clb__map_op m = {.kind = CLB__MAP_BINARY, .op = (int)op, .in = {a->dtype, b->dtype}};
    CLB_TRY_IN("clb_binary_into", NULL,
               clb__binary_types_r(clb__rules(out->storage->ctx), op, a->dtype, b->dtype,
                                   &m.compute, &m.out));
    CLB_TRY(clb__check_promoted_f64("clb_binary_into", out->storage->ctx, clb_binary_op_name(op),
                                    a->dtype, b->dtype, m.compute));
    if (clb__dtype_kind(out->dtype) < clb__dtype_kind(m.out))
        CLB_FAIL(CLB_ERR_DTYPE,
                 "clb_binary_into: cannot store the %s result of %s into out of dtype %s (NumPy's "
                 "same_kind rule); cast first or use clb_binary",
                 clb_dtype_name(m.out), clb_binary_op_name(op), clb_dtype_name(out->dtype));
    m.out = out->dtype;
    /* As NumPy's out=: the inputs broadcast together with out, and the result must
       be out's own shape (out itself is never broadcast). */
    const clb_tensor *in[2] = {a, b};
    const clb_tensor *all[3] = {a, b, out};
    int ndim = 0;
    int64_t shape[CLB_MAX_DIMS];
    CLB_TRY_IN("clb_binary_into", "c", broadcast_inputs(3, all, &ndim, shape));
    bool same_shape = ndim == out->ndim;
    for (int d = 0; same_shape && d < ndim; d++) same_shape = shape[d] == out->shape[d];
    if (!same_shape)
        CLB_FAIL(CLB_ERR_SHAPE_MISMATCH,
                 "clb_binary_into: out has shape %s but the inputs and out broadcast to %s; out "
                 "must hold the whole result",
                 clb__shape_str(out->ndim, out->shape, have, sizeof have),
                 clb__shape_str(ndim, shape, want, sizeof want));
    static const char *const names[2] = {"a", "b"};
    CLB_TRY(clb__check_out_writable("clb_binary_into", out, 2, names, in));
    CLB_TRY(run_map(&m, out, 2, in));
cleanup:
    return st;
}
