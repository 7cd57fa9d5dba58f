/* clb_eval / clb_eval_into: validate, parse and type the expression, broadcast
 * every input together, plan one strided loop with a stride table per input,
 * and hand it to the host interpreter or the OpenCL code generator. */
#include "backend.h"
#include "dtype.h"
#include "expr.h"
#include "internal.h"
#include "op_eval.h"
#include "shape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

clb_status clb__eval_prepare(const char *fn, clb_context *ctx, const char *text, int n,
                             const char *const *names, const clb_tensor *const *inputs,
                             clb__expr **expr)
{
    clb_status st = CLB_OK;
    clb_dtype dtypes[CLB__EVAL_MAX_INPUTS];
    *expr = NULL;
    CLB_TRY(clb__check_context(ctx, fn));
    if (!text) CLB_FAIL(CLB_ERR_INVALID_ARGUMENT, "%s: expr is NULL", fn);
    if (n < 0 || n > CLB__EVAL_MAX_INPUTS)
        CLB_FAIL(CLB_ERR_INVALID_ARGUMENT, "%s: n = %d inputs; between 0 and %d are supported", fn,
                 n, CLB__EVAL_MAX_INPUTS);
    if (n > 0 && (!names || !inputs))
        CLB_FAIL(CLB_ERR_INVALID_ARGUMENT, "%s: names or inputs is NULL with n = %d", fn, n);
    for (int k = 0; k < n; k++) {
        char what[160];
        snprintf(what, sizeof what, "%s: inputs[%d] (\"%.64s\")", fn, k,
                 names[k] ? names[k] : "(null)");
        CLB_TRY(clb__check_tensor(inputs[k], what));
        if (inputs[k]->storage->ctx != ctx)
            CLB_FAIL(CLB_ERR_INVALID_ARGUMENT,
                     "%s: input %s lives on context \"%s\", not on ctx (\"%s\"); move it with "
                     "clb_tensor_to_context",
                     fn, names[k] ? names[k] : "(null)", inputs[k]->storage->ctx->info.name,
                     ctx->info.name);
        dtypes[k] = inputs[k]->dtype;
    }
    CLB_TRY(clb__expr_parse(fn, text, n, names, expr));
    (*expr)->rules = clb__rules(ctx);
    CLB_TRY(clb__expr_type(fn, *expr, dtypes));
    return CLB_OK;
cleanup:
    clb__expr_free(*expr);
    *expr = NULL;
    return st;
}

/* NumPy's broadcast of the inputs (and out, when given as input n), with
   PyTorch's message naming the two inputs by their names. */
static clb_status broadcast_named(const char *fn, int n, const char *const *names,
                                  const clb_tensor *const *t, int *out_ndim, int64_t *out_shape)
{
    int nd = 0;
    for (int k = 0; k < n; k++)
        if (t[k]->ndim > nd) nd = t[k]->ndim;
    int owner[CLB_MAX_DIMS];
    for (int d = 0; d < nd; d++) {
        out_shape[d] = 1;
        owner[d] = -1;
    }
    for (int k = 0; k < n; k++) {
        int lead = nd - t[k]->ndim;
        for (int i = t[k]->ndim - 1; i >= 0; i--) { /* right to left, as PyTorch reports */
            int d = lead + i;
            int64_t s = t[k]->shape[i];
            if (s == out_shape[d] || s == 1) continue;
            if (out_shape[d] == 1) {
                out_shape[d] = s;
                owner[d] = k;
                continue;
            }
            return clb__fail(CLB_ERR_SHAPE_MISMATCH,
                             "%s: The size of tensor %s (%lld) must match the size of tensor %s "
                             "(%lld) at non-singleton dimension %d",
                             fn, names[owner[d]], (long long)out_shape[d], names[k], (long long)s,
                             d);
        }
    }
    *out_ndim = nd;
    return CLB_OK;
}

/* Plans out = expr(inputs) over out's shape and runs it on out's device. Inputs
   outside `mask` are not read (a precomputed subtree uses only some of them, which
   need not broadcast to its smaller shape): they get zero strides. */
static clb_status run_plan(const clb__expr *e, clb_tensor *out, int n,
                           const clb_tensor *const *in, uint32_t mask)
{
    clb_context *ctx = out->storage->ctx;
    if (out->numel == 0) return CLB_OK;
    clb__plan *plan = malloc(sizeof *plan);
    int64_t(*in_strides)[CLB_MAX_DIMS] = calloc(1, sizeof(int64_t[CLB__EVAL_MAX_INPUTS][CLB_MAX_DIMS]));
    clb_status st = CLB_OK;
    if (!plan || !in_strides)
        CLB_FAIL(CLB_ERR_OUT_OF_MEMORY, "out of host memory for a launch plan");
    const int64_t *strides[CLB__MAX_OPERANDS] = {out->strides};
    int64_t offsets[CLB__MAX_OPERANDS] = {out->offset};
    void *handles[CLB__MAX_OPERANDS] = {out->storage->handle};
    clb_dtype dtypes[CLB__EVAL_MAX_INPUTS];
    for (int k = 0; k < n; k++) {
        if (mask >> k & 1)
            clb__broadcast_strides(in[k]->ndim, in[k]->shape, in[k]->strides, out->ndim,
                                   out->shape, in_strides[k]);
        strides[k + 1] = in_strides[k];
        offsets[k + 1] = in[k]->offset;
        handles[k + 1] = in[k]->storage->handle;
        dtypes[k] = in[k]->dtype;
    }
    clb__plan_make(plan, n + 1, out->ndim, out->shape, strides, offsets);
    st = ctx->backend->eval(ctx, e, plan, handles, out->dtype, dtypes);
cleanup:
    free(plan);
    free(in_strides);
    return st;
}

/* Precomputes the small broadcast subtrees (expr_hoist.c) into temporaries, then
   runs the rest over the inputs and those temporaries. */
static clb_status run(clb__expr *e, clb_tensor *out, int n, const clb_tensor *const *in)
{
    clb_status st = CLB_OK;
    clb__expr *subs[CLB__EVAL_MAX_INPUTS];
    uint32_t masks[CLB__EVAL_MAX_INPUTS];
    const clb_tensor *all[CLB__EVAL_MAX_INPUTS];
    clb_tensor *temps[CLB__EVAL_MAX_INPUTS] = {NULL};
    int ndims[CLB__EVAL_MAX_INPUTS], count = 0;
    const int64_t *shapes[CLB__EVAL_MAX_INPUTS];
    if (out->numel == 0) return CLB_OK;
    for (int k = 0; k < n; k++) {
        ndims[k] = in[k]->ndim;
        shapes[k] = in[k]->shape;
        all[k] = in[k];
    }
    /* A backend property (clb__backend.eval_hoists). */
    clb_context *ctx = out->storage->ctx;
    if (ctx->backend->eval_hoists(ctx))
        CLB_TRY(clb__expr_hoist(e, n, ndims, shapes, out->numel, subs, masks, &count));
    for (int j = 0; j < count; j++) {
        int sub_n = 0, nd = 0;
        int sub_ndims[CLB__EVAL_MAX_INPUTS];
        const int64_t *sub_shapes[CLB__EVAL_MAX_INPUTS];
        int64_t shape[CLB_MAX_DIMS];
        for (int k = 0; k < n; k++) {
            if (!(masks[j] >> k & 1)) continue;
            sub_ndims[sub_n] = ndims[k];
            sub_shapes[sub_n++] = shapes[k];
        }
        CLB_TRY(clb__broadcast(sub_n, sub_ndims, sub_shapes, &nd, shape));
        CLB_TRY(clb__tensor_new(out->storage->ctx, clb__expr_root(subs[j])->dtype, nd, shape,
                                &temps[j]));
        CLB_TRY(run_plan(subs[j], temps[j], n, in, masks[j]));
        all[n + j] = temps[j];
    }
    CLB_TRY(run_plan(e, out, n + count, all, ~0u));
cleanup:
    for (int j = 0; j < count; j++) {
        clb_tensor_release(temps[j]); /* queued work holds the buffers (in-order queue) */
        clb__expr_free(subs[j]);
    }
    return st;
}

clb_status clb__eval_typed(const char *fn, clb_context *ctx, clb__expr *e, int n,
                           const clb_tensor *const *inputs, clb_tensor **out)
{
    static const char *const names[CLB__EVAL_MAX_INPUTS] = {"a", "s"};
    clb_status st = CLB_OK;
    int ndim = 0;
    int64_t shape[CLB_MAX_DIMS];
    *out = NULL;
    CLB_TRY(broadcast_named(fn, n, names, inputs, &ndim, shape));
    CLB_TRY(clb__tensor_new(ctx, clb__expr_root(e)->dtype, ndim, shape, out));
    CLB_TRY(run(e, *out, n, inputs));
    return CLB_OK;
cleanup:
    clb_tensor_release(*out);
    *out = NULL;
    return st;
}

clb_status clb_eval(clb_context *ctx, const char *expr, int n, const char *const *names,
                    const clb_tensor *const *inputs, clb_tensor **out)
{
    static const char fn[] = "clb_eval";
    clb_status st = CLB_OK;
    clb__expr *e = NULL;
    int ndim = 0;
    int64_t shape[CLB_MAX_DIMS];
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_eval: out is NULL");
    *out = NULL;
    CLB_TRY(clb__eval_prepare(fn, ctx, expr, n, names, inputs, &e));
    CLB_TRY(broadcast_named(fn, n, names, inputs, &ndim, shape));
    CLB_TRY(clb__tensor_new(ctx, clb__expr_root(e)->dtype, ndim, shape, out));
    CLB_TRY(run(e, *out, n, inputs));
cleanup:
    if (st != CLB_OK) {
        clb_tensor_release(*out);
        *out = NULL;
    }
    clb__expr_free(e);
    return st;
}

clb_status clb_eval_into(clb_context *ctx, const char *expr, int n, const char *const *names,
                         const clb_tensor *const *inputs, clb_tensor *out)
{
    static const char fn[] = "clb_eval_into";
    clb_status st = CLB_OK;
    clb__expr *e = NULL;
    char want[512], have[512];
    const clb_tensor *all[CLB__EVAL_MAX_INPUTS + 1];
    const char *all_names[CLB__EVAL_MAX_INPUTS + 1];
    int ndim = 0;
    int64_t shape[CLB_MAX_DIMS];
    CLB_TRY(clb__eval_prepare(fn, ctx, expr, n, names, inputs, &e));
    CLB_TRY(clb__check_tensor(out, "clb_eval_into: out"));
    if (out->storage->ctx != ctx)
        CLB_FAIL(CLB_ERR_INVALID_ARGUMENT, "%s: out lives on context \"%s\", not on ctx (\"%s\"); compute on out's "
                 "context (move the inputs with clb_tensor_to_context) or move the result",
                 fn, out->storage->ctx->info.name, ctx->info.name);
    clb__expr_node *root = &e->nodes[e->count - 1];
    if (root->kind == CLB__EXPR_CONST && clb__dtype_kind(out->dtype) >= clb__dtype_kind(root->dtype)) {
        /* A constant folds in the dtype it ends up in: "3.5" into float32 never asks
           the device for float64 (the store would round the same way). */
        root->value = clb__convert(root->value, root->dtype, out->dtype);
        root->dtype = root->compute = out->dtype;
    }
    clb_dtype result = clb__expr_root(e)->dtype;
    if (clb__dtype_kind(out->dtype) < clb__dtype_kind(result))
        CLB_FAIL(CLB_ERR_DTYPE,
                 "%s: cannot store the %s result of the expression into out of dtype %s "
                 "(NumPy's same_kind rule); cast in the expression (e.g. %s(...)) or use clb_eval",
                 fn, clb_dtype_name(result), clb_dtype_name(out->dtype), clb_dtype_name(out->dtype));
    /* As NumPy's out=: the inputs broadcast together with out, and the result must be
       out's own shape (out itself is never broadcast). */
    for (int k = 0; k < n; k++) {
        all[k] = inputs[k];
        all_names[k] = names[k];
    }
    all[n] = out;
    all_names[n] = "out";
    CLB_TRY(broadcast_named(fn, n + 1, all_names, all, &ndim, shape));
    bool same_shape = ndim == out->ndim;
    for (int d = 0; same_shape && d < ndim; d++) same_shape = shape[d] == out->shape[d];
    if (!same_shape)
        CLB_FAIL(CLB_ERR_SHAPE_MISMATCH,
                 "%s: out has shape %s but the inputs and out broadcast to %s; out must hold the "
                 "whole result",
                 fn, clb__shape_str(out->ndim, out->shape, have, sizeof have),
                 clb__shape_str(ndim, shape, want, sizeof want));
    CLB_TRY(clb__check_out_writable(fn, out, n, names, inputs));
    CLB_TRY(run(e, out, n, inputs));
cleanup:
    clb__expr_free(e);
    return st;
}
