/* Broadcast reductions without the intermediate (clb_eval_reduce) and the
 * statistics built on the existing ops: var/std, softmax, log_softmax,
 * logsumexp. argmax/argmin dispatch to the backends' argreduce slot.
 *
 * clb_eval_reduce is one fused pass: the backend's eval_reduce slot evaluates
 * the expression at each broadcast position and folds it into the output's
 * accumulator (clb_reduce's accumulation rules), so the memory used is the
 * output plus small scratch, never the broadcast result. */
#include "backend.h"
#include "dtype.h"
#include "expr.h"
#include "internal.h"
#include "op_eval.h"
#include "shape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static clb_status check_keepdim(const char *fn, int keepdim)
{
    if (keepdim != 0 && keepdim != 1)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: keepdim must be 0 or 1, not %d", fn,
                         keepdim);
    return CLB_OK;
}

/* ---- clb_eval_reduce ---------------------------------------------------------- */

/* The fused pass: a plan over the broadcast shape (nd axes, `shape`) whose
   operand 0 is the output (stride 0 on the reduced axes) and whose operands 1..n
   are the inputs, run by the backend's eval_reduce slot (rop) or eval_moments
   slot (mop, whose count is filled in here). */
static clb_status fused(clb_context *ctx, const char *fn, const clb__expr *e, int n,
                        const clb_tensor *const *inputs, int nd, const int64_t *shape,
                        const bool *reduced, int keepdim, clb_dtype rdt, clb__reduce_op *rop,
                        clb__moments_op *mop, bool online, clb_tensor **out)
{
    clb_status st = CLB_OK;
    clb__plan *plan = NULL;
    int64_t(*in_strides)[CLB_MAX_DIMS] = NULL;
    int64_t keep_shape[CLB_MAX_DIMS] = {0}, out_shape[CLB_MAX_DIMS], out_strides[CLB_MAX_DIMS];
    int out_nd = 0;
    int64_t count = 1;
    for (int d = 0; d < nd; d++) {
        keep_shape[d] = reduced[d] ? 1 : shape[d];
        if (reduced[d]) count *= shape[d];
        if (keepdim || !reduced[d]) out_shape[out_nd++] = keep_shape[d];
    }
    if (online) { /* the pairs, flat: (m, s) for each kept position, in C order; a
                     shape with a last axis of 2 would need nd + 1 <= CLB_MAX_DIMS */
        out_shape[0] = 2;
        for (int d = 0; d < nd; d++) out_shape[0] *= keep_shape[d];
        out_nd = 1;
    }
    clb__contiguous_strides(nd, keep_shape, out_strides);
    for (int d = 0; d < nd; d++)
        if (reduced[d]) out_strides[d] = 0;
    CLB_TRY(clb__tensor_new(ctx, rdt, out_nd, out_shape, out));

    plan = malloc(sizeof *plan);
    in_strides = calloc(1, sizeof(int64_t[CLB__EVAL_MAX_INPUTS][CLB_MAX_DIMS]));
    if (!plan || !in_strides) CLB_FAIL(CLB_ERR_OUT_OF_MEMORY, "%s: out of host memory for a plan", fn);
    const int64_t *strides[CLB__MAX_OPERANDS] = {out_strides};
    int64_t offsets[CLB__MAX_OPERANDS] = {(*out)->offset};
    void *handles[CLB__MAX_OPERANDS] = {(*out)->storage->handle};
    clb_dtype dtypes[CLB__EVAL_MAX_INPUTS];
    for (int k = 0; k < n; k++) {
        clb__broadcast_strides(inputs[k]->ndim, inputs[k]->shape, inputs[k]->strides, nd, shape,
                               in_strides[k]);
        strides[k + 1] = in_strides[k];
        offsets[k + 1] = inputs[k]->offset;
        handles[k + 1] = inputs[k]->storage->handle;
        dtypes[k] = inputs[k]->dtype;
    }
    clb__plan_make(plan, n + 1, nd, shape, strides, offsets);
    if (rop) {
        rop->count = count;
        rop->out_numel = online ? (*out)->numel / 2 : (*out)->numel;
        CLB_TRY(online ? ctx->backend->eval_online(ctx, e, rop, plan, handles, dtypes)
                       : ctx->backend->eval_reduce(ctx, e, rop, plan, handles, dtypes));
    } else {
        mop->count = count;
        mop->out_numel = (*out)->numel;
        CLB_TRY(ctx->backend->eval_moments(ctx, e, mop, plan, handles, dtypes));
    }
cleanup:
    if (st != CLB_OK) {
        clb_tensor_release(*out);
        *out = NULL;
    }
    free(plan);
    free(in_strides);
    return st;
}

/* Ends e with bool(root), typed (the expression is typed already). */
static clb_status append_bool_cast(const char *fn, clb__expr *e)
{
    if (clb__expr_root(e)->dtype == CLB_BOOL) return CLB_OK;
    if (e->count >= CLB__EXPR_MAX_NODES)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                         "%s: expression has more than %d operations and operands", fn,
                         CLB__EXPR_MAX_NODES - 1);
    clb__expr_node c = {.kind = CLB__EXPR_CAST, .nargs = 1, .args = {e->count - 1}, .column = 1,
                        .dtype = CLB_BOOL, .compute = CLB_BOOL};
    e->nodes[e->count++] = c;
    return CLB_OK;
}

/* An empty broadcast result has nothing to evaluate: clb_eval of it is empty
   too, and clb_reduce gives the identities (or NumPy's error for max/min). */
clb_status clb_eval_reduce(clb_context *ctx, const char *expr, int n, const char *const *names,
                           const clb_tensor *const *inputs, clb_reduce_op op, int naxes,
                           const int *axes, int keepdim, clb_tensor **out)
{
    static const char fn[] = "clb_eval_reduce";
    clb_status st = CLB_OK;
    clb__expr *e = NULL;
    clb_tensor *part = NULL;
    int ndims[CLB__EVAL_MAX_INPUTS];
    const int64_t *shapes[CLB__EVAL_MAX_INPUTS];
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    CLB_TRY(clb__check_context(ctx, fn));
    if ((unsigned)op > (unsigned)CLB_ANY)
        CLB_FAIL(CLB_ERR_INVALID_ARGUMENT, "%s: op %d is not a clb_reduce_op", fn, (int)op);
    CLB_TRY(check_keepdim(fn, keepdim));
    CLB_TRY(clb__eval_prepare(fn, ctx, expr, n, names, inputs, &e));
    clb_reduce_op asked = op;
    if (op == CLB_ALL || op == CLB_ANY) { /* min / max of bool(expr) */
        CLB_TRY(append_bool_cast(fn, e));
        op = op == CLB_ALL ? CLB_MIN : CLB_MAX;
    }
    for (int k = 0; k < n; k++) {
        ndims[k] = inputs[k]->ndim;
        shapes[k] = inputs[k]->shape;
    }
    clb_dtype edt = clb__expr_root(e)->dtype, rdt = edt;
    CLB_TRY(clb__reduce_types_r(clb__rules(ctx), op, edt, &rdt));

    int nd = 0, nred = 0, red[CLB_MAX_DIMS];
    int64_t shape[CLB_MAX_DIMS];
    bool reduced[CLB_MAX_DIMS];
    CLB_TRY(clb__broadcast(n, ndims, shapes, &nd, shape));
    CLB_TRY(clb__reduced_axes(fn, nd, naxes, axes, reduced, &nred, red));
    int64_t numel = 1;
    for (int d = 0; d < nd; d++) numel *= shape[d];
    if (numel == 0 || n == 0) {
        CLB_TRY(clb_eval(ctx, expr, n, names, inputs, &part));
        CLB_TRY(clb_reduce(asked, part, nred, red, keepdim, out));
        goto cleanup;
    }
    clb__reduce_op r = {.op = op, .in = edt, .out = rdt};
    CLB_TRY(fused(ctx, fn, e, n, inputs, nd, shape, reduced, keepdim, rdt, &r, NULL, false, out));
cleanup:
    if (st != CLB_OK) {
        clb_tensor_release(*out);
        *out = NULL;
    }
    clb__expr_free(e);
    clb_tensor_release(part);
    return st;
}

/* ---- var / std ------------------------------------------------------------------ */

/* One pass (the backend's eval_moments slot) over the values of "x", or of
   "float64(x)" for integer and bool inputs (NumPy's float64 result; no cast
   copy). An empty input gives NaN per output (NumPy): its mean. */
static clb_status var_std(const char *fn, const clb_tensor *t, int naxes, const int *axes,
                          int correction, int keepdim, bool root, clb_tensor **out)
{
    clb_status st = CLB_OK;
    clb__expr *e = NULL;
    int nred = 0, red[CLB_MAX_DIMS];
    bool reduced[CLB_MAX_DIMS];
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    CLB_TRY(clb__check_tensor(t, fn));
    CLB_TRY(check_keepdim(fn, keepdim));
    CLB_TRY(clb__reduced_axes(fn, t->ndim, naxes, axes, reduced, &nred, red));
    clb_context *ctx = t->storage->ctx;
    bool is_float = clb__dtype_is_float(t->dtype);
    bool torch = clb__rules(ctx) == CLB_PROMOTE_TORCH; /* integers give float32 */
    if (!is_float && !torch && !ctx->info.has_fp64)
        CLB_FAIL(CLB_ERR_DTYPE,
                 "%s: the result for %s input is float64 under NumPy 2's rules "
                 "(CLB_PROMOTE_NUMPY), which device %s does not support (no cl_khr_fp64); cast "
                 "the input to float32 first, or use clb_context_set_promotion(ctx, "
                 "CLB_PROMOTE_TORCH)",
                 fn, clb_dtype_name(t->dtype), ctx->info.name);
    if (t->numel == 0) {
        CLB_TRY(clb_reduce(CLB_MEAN, t, nred, red, keepdim, out));
        goto cleanup;
    }
    const char *xn[1] = {"x"};
    CLB_TRY(clb__eval_prepare(fn, ctx, is_float ? "x" : torch ? "float32(x)" : "float64(x)", 1, xn,
                              &t, &e));
    clb_dtype rdt = is_float ? t->dtype : torch ? CLB_FLOAT32 : CLB_FLOAT64;
    clb__moments_op m = {.in = rdt, .out = rdt, .correction = correction, .root = root};
    CLB_TRY(fused(ctx, fn, e, 1, &t, t->ndim, t->shape, reduced, keepdim, rdt, NULL, &m, false, out));
cleanup:
    if (st != CLB_OK) {
        clb_tensor_release(*out);
        *out = NULL;
    }
    clb__expr_free(e);
    return st;
}

clb_status clb_var(const clb_tensor *t, int naxes, const int *axes, int correction, int keepdim,
                   clb_tensor **out)
{
    return var_std("clb_var", t, naxes, axes, correction, keepdim, false, out);
}

clb_status clb_std(const clb_tensor *t, int naxes, const int *axes, int correction, int keepdim,
                   clb_tensor **out)
{
    return var_std("clb_std", t, naxes, axes, correction, keepdim, true, out);
}

/* ---- softmax, log_softmax, logsumexp --------------------------------------------- */

enum { SOFTMAX, LOG_SOFTMAX, LOGSUMEXP };

/* softmax / log_softmax (log) along the last axis of t in the backend's
   one-launch row form, where it has one and t is C-contiguous: *done false
   (nothing made, no error) otherwise. */
static clb_status softmax_rows(clb_context *ctx, bool log, const clb_tensor *t, bool *done,
                               clb_tensor **out)
{
    clb_status st = CLB_OK;
    clb_tensor *r = NULL;
    *done = false;
    if (!ctx->backend->softmax_rows || !clb_tensor_is_contiguous(t)) return CLB_OK;
    int64_t len = t->shape[t->ndim - 1];
    CLB_TRY(clb__tensor_new(ctx, t->dtype, t->ndim, t->shape, &r));
    clb__softmax_rows_op sr = {.in = t->dtype, .log = log, .rows = t->numel / len, .len = len,
                               .in_offset = t->offset, .out_offset = r->offset};
    void *h[2] = {r->storage->handle, t->storage->handle};
    CLB_TRY(ctx->backend->softmax_rows(ctx, &sr, h, done));
    if (*done) {
        *out = r;
        r = NULL;
    }
cleanup:
    clb_tensor_release(r);
    return st;
}

/* Softmax of nothing is empty, logsumexp of nothing is log(0) = -inf. */
static clb_status softmax_empty(int kind, const clb_tensor *t, int nred, const int *red,
                                int keepdim, clb_tensor **out)
{
    clb_context *ctx = t->storage->ctx;
    if (kind != LOGSUMEXP) {
        const char *xn[1] = {"x"};
        return clb_eval(ctx, "x", 1, xn, &t, out);
    }
    clb_tensor *s = NULL;
    const char *sn[1] = {"s"};
    clb_status st = clb_reduce(CLB_SUM, t, nred, red, keepdim, &s);
    if (st == CLB_OK) st = clb_eval(ctx, "log(s)", 1, sn, (const clb_tensor *const *)&s, out);
    clb_tensor_release(s);
    return st;
}

/* Two passes over the data at most. Where the backend has a row kernel
   (softmax_rows: CPU devices, C-contiguous rows along the last axis), one
   launch does it all with the row in the core's cache after its first read.
   Otherwise one pass (the backend's eval_online slot, online softmax) gives
   each row's m = max and s = sum of exp(x - m), as pairs in the accumulator
   dtype (float32, float64 for float64); softmax and log_softmax then write
   exp(x - m) / s and (x - m) - log(s) (one clb_eval over x and the pairs'
   strided views), logsumexp is m + log(s) over the pairs alone. x - m is exact
   for large inputs (no inf or nan at +-1e4); a row of -inf has m = -inf and
   gives NaN (softmax) and -inf (logsumexp), a +inf gives NaN at its place
   (NumPy / SciPy). */
static clb_status softmax_like(const char *fn, int kind, const clb_tensor *t, int naxes,
                               const int *axes, int keepdim, clb_tensor **out)
{
    clb_status st = CLB_OK;
    clb__expr *e = NULL;
    clb_tensor *pair = NULL, *m = NULL, *s = NULL, *r = NULL;
    int nred = 0, red[CLB_MAX_DIMS];
    bool reduced[CLB_MAX_DIMS];
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    CLB_TRY(clb__check_tensor(t, fn));
    if (!clb__dtype_is_float(t->dtype))
        CLB_FAIL(CLB_ERR_DTYPE, "%s: input of dtype %s; only float16, float32 and float64 are "
                                "supported (cast it first)",
                 fn, clb_dtype_name(t->dtype));
    CLB_TRY(check_keepdim(fn, keepdim));
    CLB_TRY(clb__reduced_axes(fn, t->ndim, naxes, axes, reduced, &nred, red));
    clb_context *ctx = t->storage->ctx;
    const char *xn[1] = {"x"};
    const char *xms[3] = {"x", "m", "s"};
    const char *ms[2] = {"m", "s"};
    if (t->numel == 0) {
        st = softmax_empty(kind, t, nred, red, keepdim, out);
        goto cleanup;
    }
    /* C-contiguous rows along the last axis: the backend's one-launch row
       kernel, where it has one. */
    if (kind != LOGSUMEXP && nred == 1 && red[0] == t->ndim - 1) {
        bool done = false;
        CLB_TRY(softmax_rows(ctx, kind == LOG_SOFTMAX, t, &done, out));
        if (done) goto cleanup;
    }
    CLB_TRY(clb__eval_prepare(fn, ctx, "x", 1, xn, &t, &e));
    clb_dtype acc = t->dtype == CLB_FLOAT64 ? CLB_FLOAT64 : CLB_FLOAT32;
    clb__reduce_op rop = {.op = CLB_MAX, .in = t->dtype, .out = acc};
    CLB_TRY(fused(ctx, fn, e, 1, &t, t->ndim, t->shape, reduced, 1, acc, &rop, NULL, true, &pair));
    /* m and s: views of the flat pairs with the kept shape (size 1 on reduced
       axes) and twice the contiguous strides, offsets 0 and 1. */
    int64_t kshape[CLB_MAX_DIMS], kstrides[CLB_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++) kshape[d] = reduced[d] ? 1 : t->shape[d];
    clb__contiguous_strides(t->ndim, kshape, kstrides);
    for (int d = 0; d < t->ndim; d++) kstrides[d] *= 2;
    CLB_TRY(clb__tensor_view(pair, t->ndim, kshape, kstrides, pair->offset, &m));
    CLB_TRY(clb__tensor_view(pair, t->ndim, kshape, kstrides, pair->offset + 1, &s));
    const clb_tensor *xms_in[3] = {t, m, s};
    const clb_tensor *ms_in[2] = {m, s};
    bool half = t->dtype == CLB_FLOAT16;
    if (kind == SOFTMAX)
        CLB_TRY(clb_eval(ctx, half ? "float16(exp(x - m) / s)" : "exp(x - m) / s", 3, xms, xms_in,
                         out));
    else if (kind == LOG_SOFTMAX)
        CLB_TRY(clb_eval(ctx, half ? "float16((x - m) - log(s))" : "(x - m) - log(s)", 3, xms,
                         xms_in, out));
    else {
        CLB_TRY(clb_eval(ctx, half ? "float16(m + log(s))" : "m + log(s)", 2, ms, ms_in, &r));
        if (keepdim) {
            *out = r;
            r = NULL;
        } else {
            int64_t out_shape[CLB_MAX_DIMS];
            int out_nd = 0;
            for (int d = 0; d < t->ndim; d++)
                if (!reduced[d]) out_shape[out_nd++] = t->shape[d];
            CLB_TRY(clb_reshape(r, out_nd, out_shape, out));
        }
    }
cleanup:
    if (st != CLB_OK) {
        clb_tensor_release(*out);
        *out = NULL;
    }
    clb__expr_free(e);
    clb_tensor_release(pair);
    clb_tensor_release(m);
    clb_tensor_release(s);
    clb_tensor_release(r);
    return st;
}

clb_status clb_softmax(const clb_tensor *t, int axis, clb_tensor **out)
{
    return softmax_like("clb_softmax", SOFTMAX, t, 1, &axis, 1, out);
}

clb_status clb_log_softmax(const clb_tensor *t, int axis, clb_tensor **out)
{
    return softmax_like("clb_log_softmax", LOG_SOFTMAX, t, 1, &axis, 1, out);
}

clb_status clb_logsumexp(const clb_tensor *t, int naxes, const int *axes, int keepdim,
                         clb_tensor **out)
{
    return softmax_like("clb_logsumexp", LOGSUMEXP, t, naxes, axes, keepdim, out);
}

/* ---- argmax / argmin ----------------------------------------------------------------- */

/* The axis moved last and made contiguous (a copy unless it already is), then one
   backend launch over its rows. */
static clb_status argreduce(const char *fn, bool is_min, const clb_tensor *t, int axis,
                            int keepdim, clb_tensor **out)
{
    clb_status st = CLB_OK;
    clb_tensor *moved = NULL, *rows = NULL, *r = NULL;
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    CLB_TRY(clb__check_tensor(t, fn));
    CLB_TRY(check_keepdim(fn, keepdim));
    int a = 0;
    CLB_TRY_IN(fn, NULL, clb__normalize_axis(axis, t->ndim, &a));
    if (t->shape[a] == 0)
        CLB_FAIL(CLB_ERR_INVALID_ARGUMENT,
                 "%s: attempt to get %s of an empty sequence (axis %d has size 0)", fn,
                 is_min ? "argmin" : "argmax", axis);
    int perm[CLB_MAX_DIMS], nd = 0;
    int64_t out_shape[CLB_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++) {
        if (d != a) perm[nd] = d;
        if (d != a) out_shape[nd++] = t->shape[d];
    }
    perm[nd] = a;
    CLB_TRY(clb_permute(t, perm, &moved));
    CLB_TRY(clb_contiguous(moved, &rows));
    if (keepdim) {
        nd = 0;
        for (int d = 0; d < t->ndim; d++) out_shape[nd++] = d == a ? 1 : t->shape[d];
    }
    clb_context *ctx = t->storage->ctx;
    CLB_TRY(clb__tensor_new(ctx, CLB_INT64, nd, out_shape, &r));
    clb__argreduce_op op = {.is_min = is_min, .in = t->dtype, .len = t->shape[a],
                            .in_offset = rows->offset, .out_offset = r->offset};
    op.rows = r->numel;
    void *handles[2] = {r->storage->handle, rows->storage->handle};
    if (op.rows > 0) CLB_TRY(ctx->backend->argreduce(ctx, &op, handles));
    *out = r;
    r = NULL;
cleanup:
    clb_tensor_release(moved);
    clb_tensor_release(rows);
    clb_tensor_release(r);
    return st;
}

clb_status clb_argmax(const clb_tensor *t, int axis, int keepdim, clb_tensor **out)
{
    return argreduce("clb_argmax", false, t, axis, keepdim, out);
}

clb_status clb_argmin(const clb_tensor *t, int axis, int keepdim, clb_tensor **out)
{
    return argreduce("clb_argmin", true, t, axis, keepdim, out);
}
