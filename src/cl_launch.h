/* The OpenCL backend's private state and the launch helpers its kernel
 * drivers (cl_copy.c, cl_map.c, cl_reduce.c, cl_matmul.c) share. */
#ifndef CLB_CL_LAUNCH_H
#define CLB_CL_LAUNCH_H

#include "backend.h"
#include "buffer.h"
#include "program_cache.h"

#include <CL/cl.h>
#include <stdbool.h>

typedef struct clb__cl_context {
    cl_context context;
    cl_command_queue queue;
    cl_device_id device;
    size_t max_item_size; /* CL_DEVICE_MAX_WORK_ITEM_SIZES[0] */
    clb__buffer_env buffers;
    clb__program_cache *programs;
} clb__cl_context;


static inline clb__cl_context *clb__cl_impl(clb_context *ctx)
{
    return (clb__cl_context *)ctx->impl;
}

/* Stride tables of up to this many axes go by value (see cl/copy.cl). */
#define CLB__CL_BYVAL_DIMS 8

/* Whether every element id and every offset a kernel computes over the plan fits in 32 bits. */
bool clb__cl_fits_int32(const clb__plan *plan);
/* Work-group size for a 1-D launch of numel items of `kernel`. */
clb_status clb__cl_pick_local_size(const clb__cl_context *cl, cl_kernel kernel, int64_t numel,
                                   size_t *out);
/* Sets the shape + two stride tables of a two-operand plan as kernel arguments from
   `arg` on; *table receives a buffer (large ranks) that the caller releases. */
clb_status clb__cl_set_table_args(clb__cl_context *cl, cl_kernel kernel, const clb__plan *plan,
                                  bool wide, cl_uint arg, cl_mem *table);
/* Enqueues numel work items (in pieces of at most 2^30). */
clb_status clb__cl_launch(clb__cl_context *cl, cl_kernel kernel, int64_t numel);

/* The backend's operations, one driver file each. */
clb_status clb__cl_copy(clb_context *ctx, const clb__plan *plan, void *const *handles,
                        const clb_dtype *dtypes);
clb_status clb__cl_map(clb_context *ctx, const clb__map_op *op, const clb__plan *plan,
                       void *const *handles);
clb_status clb__cl_reduce(clb_context *ctx, const clb__reduce_op *op, const clb__plan *plan,
                          void *const *handles);
clb_status clb__cl_matmul(clb_context *ctx, const clb__matmul_op *op, void *const *handles);

#endif /* CLB_CL_LAUNCH_H */
