/* OpenCL driver for matmul. */
#include "cl_launch.h"

clb_status clb__cl_matmul(clb_context *ctx, const clb__matmul_op *op, void *const *handles)
{
    (void)op, (void)handles;
    return clb__fail(CLB_ERR_UNSUPPORTED,
                     "matmul is not yet available on OpenCL device %s in this version; use the "
                     "host backend (selector \"host\")",
                     ctx->info.name);
}
