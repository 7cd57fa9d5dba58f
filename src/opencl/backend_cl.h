/* Internal view into an OpenCL context, for white-box tests and tools
 * (clb__cl_context_init itself is declared in backend.h). */
#ifndef CLB_BACKEND_CL_H
#define CLB_BACKEND_CL_H

#include "internal.h"
#include "program_cache.h"

#include <CL/cl.h>

struct clb__cl_context;

/* Fills ctx->backend, ctx->impl and ctx->info over the application's OpenCL objects
   (clb_context_create_from_cl): checks that device belongs to context and queue
   (when not NULL) to both and runs in order, retains all three (queue NULL: creates
   an in-order one). On failure nothing stays retained. */
clb_status clb__cl_context_adopt(clb_context *ctx, cl_context context, cl_device_id device,
                                 cl_command_queue queue);
/* ctx's OpenCL state; NULL for a context that is not OpenCL (host backend). */
struct clb__cl_context *clb__cl_context_of(const clb_context *ctx);

/* The context's program cache; NULL for a context that is not OpenCL. */
clb__program_cache *clb__cl_context_programs(const clb_context *ctx);

#endif /* CLB_BACKEND_CL_H */
