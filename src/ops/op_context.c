/* clb_context_create: the selector resolved to a device, the context set up
 * and handed to the backend that drives that device (the one place above the
 * backends that names them). */
#include "backend.h"
#include "device.h"
#include "internal.h"

#include <stdlib.h>

clb_status clb_context_create(const char *selector, clb_context **out)
{
    clb_status st = CLB_OK;
    clb_context *ctx = NULL;
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_context_create: out is NULL");
    *out = NULL;
    clb__device *device = NULL;
    CLB_TRY(clb__device_resolve(selector, &device));
    CLB_TRY(clb__context_new(&ctx));
    if (!device) {
        CLB_TRY(clb__host_context_init(ctx));
    } else {
#if CLB_HAVE_OPENCL
        CLB_TRY(clb__cl_context_init(ctx, device));
#else
        CLB_FAIL(CLB_ERR_NO_DEVICE, "this build of clbroadcast has no OpenCL support");
#endif
    }
    clb__device_free(device);
    ctx->magic = CLB__CONTEXT_MAGIC;
    *out = ctx;
    return CLB_OK;
cleanup:
    clb__device_free(device);
    clb__context_discard(ctx);
    return st;
}
