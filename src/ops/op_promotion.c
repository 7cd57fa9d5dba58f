/* clb_context_set_promotion: the rules every op of a context follows when it
 * decides a result dtype (dtype.c's *_r functions), and the one message for a
 * result that the rules put in float64 on a device without it. */
#include "dtype.h"
#include "internal.h"

clb_status clb_context_set_promotion(clb_context *ctx, clb_promotion rules)
{
    clb_status st = clb__check_context(ctx, "clb_context_set_promotion: ctx");
    if (st != CLB_OK) return st;
    if (rules != CLB_PROMOTE_NUMPY && rules != CLB_PROMOTE_TORCH)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                         "clb_context_set_promotion: rules = %d; use CLB_PROMOTE_NUMPY (0) or "
                         "CLB_PROMOTE_TORCH (1)",
                         (int)rules);
    atomic_store(&ctx->promotion, (int)rules);
    return CLB_OK;
}

clb_promotion clb__rules(const clb_context *ctx)
{
    return (clb_promotion)atomic_load(&((clb_context *)ctx)->promotion);
}

clb_status clb__check_promoted_f64(const char *fn, const clb_context *ctx, const char *what,
                                   clb_dtype a, clb_dtype b, clb_dtype result)
{
    if (ctx->info.has_fp64 || result != CLB_FLOAT64 || a == CLB_FLOAT64 || b == CLB_FLOAT64)
        return CLB_OK;
    clb_promotion rules = clb__rules(ctx);
    bool torch = rules == CLB_PROMOTE_TORCH;
    const char *narrow = clb__dtype_is_float(a) ? clb_dtype_name(b) : clb_dtype_name(a);
    return clb__fail(CLB_ERR_DTYPE,
                     "%s: %s of %s%s%s promotes to float64 under %s's rules (%s); device %s has "
                     "no float64 (no cl_khr_fp64): cast the %s operand to float32%s",
                     fn, what, clb_dtype_name(a), (int)b >= 0 ? " and " : "",
                     (int)b >= 0 ? clb_dtype_name(b) : "", torch ? "PyTorch" : "NumPy 2",
                     clb__promotion_name(rules), ctx->info.name, narrow,
                     torch ? "" : ", or use clb_context_set_promotion(ctx, CLB_PROMOTE_TORCH)");
}
