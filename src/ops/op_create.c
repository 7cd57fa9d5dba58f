/* Tensors made on their device: clb_full (and zeros / ones / *_like),
 * clb_arange, clb_linspace, clb_random_uniform and clb_random_normal. Each
 * validates, lets src/ops/op_generate.c turn the arguments into the parameters
 * every backend reads alike, allocates the result and hands it to the
 * backend's generate slot: a kernel on OpenCL devices, never a host buffer of
 * the result's size nor clEnqueueFillBuffer. */
#include "backend.h"
#include "op_generate.h"
#include "internal.h"

#include <stdio.h>

/* Allocates *out (ndim, shape) and runs op over it; *out NULL on failure. */
static clb_status make(clb_context *ctx, clb__gen_op *op, int ndim, const int64_t *shape,
                       clb_tensor **out)
{
    clb_status st = CLB_OK;
    CLB_TRY(clb__tensor_new(ctx, op->dtype, ndim, shape, out));
    op->numel = (*out)->numel;
    CLB_TRY(ctx->backend->generate(ctx, op, (*out)->storage->handle));
    return CLB_OK;
cleanup:
    clb_tensor_release(*out);
    *out = NULL;
    return st;
}

/* clb_full, clb_zeros and clb_ones, whose messages name `fn`. */
static clb_status full(const char *fn, clb_context *ctx, clb_dtype dtype, int ndim,
                       const int64_t *shape, clb_scalar value, clb_tensor **out)
{
    clb_status st = CLB_OK;
    clb__gen_op op;
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    CLB_TRY_IN(fn, NULL, clb__check_context(ctx, "ctx"));
    CLB_TRY(clb__gen_full(fn, dtype, value, &op));
    CLB_TRY_IN(fn, NULL, make(ctx, &op, ndim, shape, out));
cleanup:
    return st;
}

clb_status clb_full(clb_context *ctx, clb_dtype dtype, int ndim, const int64_t *shape,
                    clb_scalar value, clb_tensor **out)
{
    return full("clb_full", ctx, dtype, ndim, shape, value, out);
}

clb_status clb_zeros(clb_context *ctx, clb_dtype dtype, int ndim, const int64_t *shape,
                     clb_tensor **out)
{
    const clb_scalar zero = {.kind = CLB_SCALAR_INT, .i = 0};
    return full("clb_zeros", ctx, dtype, ndim, shape, zero, out);
}

clb_status clb_ones(clb_context *ctx, clb_dtype dtype, int ndim, const int64_t *shape,
                    clb_tensor **out)
{
    const clb_scalar one = {.kind = CLB_SCALAR_INT, .i = 1};
    return full("clb_ones", ctx, dtype, ndim, shape, one, out);
}

static clb_status full_like(const char *fn, const clb_tensor *t, int64_t v, clb_tensor **out)
{
    clb_status st = CLB_OK;
    const clb_scalar value = {.kind = CLB_SCALAR_INT, .i = v};
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    CLB_TRY(clb__check_tensor(t, fn));
    CLB_TRY(clb_full(t->storage->ctx, t->dtype, t->ndim, t->shape, value, out));
cleanup:
    return st;
}

clb_status clb_zeros_like(const clb_tensor *t, clb_tensor **out)
{
    return full_like("clb_zeros_like: t", t, 0, out);
}

clb_status clb_ones_like(const clb_tensor *t, clb_tensor **out)
{
    return full_like("clb_ones_like: t", t, 1, out);
}

clb_status clb_arange(clb_context *ctx, clb_dtype dtype, double start, double stop, double step,
                      clb_tensor **out)
{
    clb_status st = CLB_OK;
    clb__gen_op op;
    int64_t n = 0;
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_arange: out is NULL");
    *out = NULL;
    CLB_TRY(clb__check_context(ctx, "clb_arange: ctx"));
    CLB_TRY(clb__gen_arange("clb_arange", dtype, start, stop, step, &n, &op));
    CLB_TRY(make(ctx, &op, 1, &n, out));
cleanup:
    return st;
}

clb_status clb_linspace(clb_context *ctx, clb_dtype dtype, double start, double stop, int64_t num,
                        int endpoint, clb_tensor **out)
{
    clb_status st = CLB_OK;
    clb__gen_op op;
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_linspace: out is NULL");
    *out = NULL;
    CLB_TRY(clb__check_context(ctx, "clb_linspace: ctx"));
    CLB_TRY(clb__gen_linspace("clb_linspace", dtype, start, stop, num, endpoint,
                              ctx->info.has_fp64 != 0, &op));
    CLB_TRY(make(ctx, &op, 1, &num, out));
cleanup:
    return st;
}

static clb_status draw(const char *fn, clb_context *ctx, clb_dtype dtype, int ndim,
                       const int64_t *shape, uint64_t seed, uint64_t offset, bool normal,
                       double a, double b, clb_tensor **out)
{
    clb_status st = CLB_OK;
    clb__gen_op op;
    char what[64];
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    snprintf(what, sizeof what, "%s: ctx", fn);
    CLB_TRY(clb__check_context(ctx, what));
    CLB_TRY(clb__gen_random(fn, dtype, normal, seed, offset, a, b, &op));
    CLB_TRY_IN(fn, NULL, make(ctx, &op, ndim, shape, out));
cleanup:
    return st;
}

clb_status clb_random_uniform(clb_context *ctx, clb_dtype dtype, int ndim, const int64_t *shape,
                              uint64_t seed, uint64_t offset, double low, double high,
                              clb_tensor **out)
{
    return draw("clb_random_uniform", ctx, dtype, ndim, shape, seed, offset, false, low, high, out);
}

clb_status clb_random_normal(clb_context *ctx, clb_dtype dtype, int ndim, const int64_t *shape,
                             uint64_t seed, uint64_t offset, double mean, double std,
                             clb_tensor **out)
{
    return draw("clb_random_normal", ctx, dtype, ndim, shape, seed, offset, true, mean, std, out);
}
