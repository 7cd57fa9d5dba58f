/* OpenCL driver for element-wise maps. */
#include "cl_launch.h"

clb_status clb__cl_map(clb_context *ctx, const clb__map_op *op, const clb__plan *plan,
                         void *const *handles)
{
    (void)op, (void)plan, (void)handles;
    return clb__fail(CLB_ERR_UNSUPPORTED,
                     "element-wise operations are not yet available on OpenCL device %s in this "
                     "version; use the host backend (selector \"host\")",
                     ctx->info.name);
}
