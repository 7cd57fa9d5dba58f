/* Internal view into an OpenCL context, for white-box tests and tools
 * (clb__cl_context_init itself is declared in backend.h). */
#ifndef CLB_BACKEND_CL_H
#define CLB_BACKEND_CL_H

#include "internal.h"
#include "program_cache.h"

/* The context's program cache; NULL for a context that is not OpenCL. */
clb__program_cache *clb__cl_context_programs(const clb_context *ctx);

#endif /* CLB_BACKEND_CL_H */
