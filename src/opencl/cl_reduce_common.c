/* What the reduction drivers share (cl_reduce_common.h). */
#include "cl_reduce_common.h"

#include "cl_state.h"
#include "dtype.h"

clb_dtype clb__cl_accumulator(clb_reduce_op op, clb_dtype in, clb_dtype out, bool fp64)
{
    if (op == CLB_MEAN && !clb__dtype_is_float(in) && out == CLB_FLOAT32 && !fp64)
        return CLB_FLOAT32;
    if (in == CLB_FLOAT64 || (op == CLB_MEAN && !clb__dtype_is_float(in))) return CLB_FLOAT64;
    if (clb__dtype_is_float(in)) return CLB_FLOAT32;
    if (op == CLB_SUM || op == CLB_PROD || clb__dtype_is_unsigned(in)) return CLB_UINT64;
    return CLB_INT64;
}

int64_t clb__cl_groups_wanted(const clb_context *ctx)
{
    int64_t cus = ctx->info.compute_units > 0 ? ctx->info.compute_units : 1;
    return clb__cl_impl((clb_context *)ctx)->loops ? 4 * cus : 16 * cus;
}
