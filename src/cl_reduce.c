/* OpenCL driver for reductions. */
#include "cl_launch.h"

clb_status clb__cl_reduce(clb_context *ctx, const clb__reduce_op *op, const clb__plan *plan,
                            void *const *handles)
{
    (void)op, (void)plan, (void)handles;
    return clb__fail(CLB_ERR_UNSUPPORTED,
                     "reductions are not yet available on OpenCL device %s in this version; use "
                     "the host backend (selector \"host\")",
                     ctx->info.name);
}
