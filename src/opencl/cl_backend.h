/* The OpenCL backend's interface: its slot functions (one driver file each), the
 * adoption of an application's OpenCL objects, and a view into an OpenCL
 * context for white-box tests and tools (clb__cl_context_init itself is
 * declared in backend.h). Its state is cl_state.h's. */
#ifndef CLB_CL_BACKEND_H
#define CLB_CL_BACKEND_H

#include "backend.h"
#include "cl_program_cache.h"

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

/* The backend's operations, one driver file each. */
clb_status clb__cl_copy(clb_context *ctx, const clb__plan *plan, void *const *handles,
                        const clb_dtype *dtypes);
clb_status clb__cl_map(clb_context *ctx, const clb__map_op *op, const clb__plan *plan,
                       void *const *handles);
clb_status clb__cl_reduce(clb_context *ctx, const clb__reduce_op *op, const clb__plan *plan,
                          void *const *handles);
clb_status clb__cl_matmul(clb_context *ctx, const clb__matmul_op *op, void *const *handles);
clb_status clb__cl_argreduce(clb_context *ctx, const clb__argreduce_op *op, void *const *handles);
/* Drops what the matmul libraries cache for contexts (called when one is destroyed). */
void clb__cl_matmul_forget(void);

/* clb_eval on an OpenCL context (the eval slot; cl_expr.c): one generated kernel
   per (expression, dtypes, rank, index width), cached by the program cache. */
clb_status clb__expr_cl_run(clb_context *ctx, const clb__expr *e, const clb__plan *plan,
                            void *const *handles, clb_dtype out, const clb_dtype *in);
/* clb_matmul_tune's search (backend.h's matmul_tune slot; cl_matmul_search.c). */
clb_status clb__cl_matmul_tune(clb_context *ctx, clb_dtype dtype, int max_candidates,
                               const clb__gemm_timer *timer, clb_matmul_tune_result *out);

#endif /* CLB_CL_BACKEND_H */
