/* Shared pieces of the picking, ordering and running-total drivers
 * (cl_take.c, cl_scan.c, cl_sort.c): the kernel of a specialisation, its
 * buffers and launch description, scratch buffers and 1-D launches of one work
 * item per unit. */
#ifndef CLB_CL_INDEX_H
#define CLB_CL_INDEX_H

#include "cl_args.h"
#include "cl_launch.h"
#include "cl_kernels.h"

/* Kernel `name` of program (id, defines), found or built, returned locked; a
   family with a launch description has it checked once per context
   (clb__cl_check_args). */
clb_status clb__cl_index_kernel(clb__cl_context *cl, clb__kernel_id id,
                                const clb__kernel_define *defs, int ndefs, int variant,
                                const char *name, clb__cl_kernel **out);
/* Sets k's nmem buffers (arguments 0..nmem-1), then family id's launch
   description (cl/launch_args.h) after them. */
clb_status clb__cl_index_set(clb__cl_kernel *k, clb__kernel_id id, int nmem, const cl_mem *mem,
                             const clb__cl_args *args);
/* n work items of k (a 1-D launch, pieces of at most 2^30 items). Where a
   work-group is a loop (PoCL) groups of one work item: each then runs its own
   sequential loop as written, rather than being vectorised across neighbours
   whose streams lie far apart (a gather per load). Elsewhere clb__cl_launch. */
clb_status clb__cl_index_launch(clb__cl_context *cl, cl_kernel k, int64_t n);
/* n work items of k in groups of one, on any device (the CPU form's launch). */
clb_status clb__cl_index_launch_ones(clb__cl_context *cl, cl_kernel k, int64_t n);
/* A device buffer of nbytes (at least 1) for scratch; what = its use, in messages. */
clb_status clb__cl_index_buffer(clb__cl_context *cl, size_t nbytes, const char *what,
                                cl_mem *out);
/* The same holding a copy of nbytes (>= 1) at init (NULL: unset), with no
   command of its own (CL_MEM_COPY_HOST_PTR). */
clb_status clb__cl_index_buffer_from(clb__cl_context *cl, size_t nbytes, const void *init,
                                     const char *what, cl_mem *out);
/* Tests set it to force take's and the scans' form on every device: 1 the CPU
   form (runs of units a work item, groups of one), 0 one unit a work item; -1
   (the default) by the device (clb__cl_context.loops). Also topk's kernel: 1 the
   vector form (cl/sort.cl's clb_topk_rows_vec), 0 an element at a time. */
extern _Atomic int clb__cl_index_runs;
/* Tests and benchmarks set it to force the scans' single pass over columns
   (cl/scan.cl's clb_scan_strips, where the float CPU forms run): > 0 in runs of
   that many columns, 0 never; -1 (the default) by the shape (cl_scan.c). */
extern _Atomic int64_t clb__cl_scan_strip_cols;
/* CLB_ERR_DTYPE naming fn when dtype is float64 and the device lacks cl_khr_fp64. */
clb_status clb__cl_index_fp64(clb_context *ctx, const char *fn, clb_dtype dtype);

/* The backend slots (backend.h) these drivers fill. */
clb_status clb__cl_gather(clb_context *ctx, const clb__gather_op *op, void *const *handles,
                          bool *bad);
clb_status clb__cl_scan(clb_context *ctx, const clb__scan_op *op, void *const *handles);
clb_status clb__cl_sort(clb_context *ctx, const clb__sort_op *op, void *const *handles);
clb_status clb__cl_topk(clb_context *ctx, const clb__topk_op *op, void *const *handles,
                        bool *done);
/* clb__cl_topk's levels of chunks (cl_topk.c): rows too long for a work item's
   trip budget, or too few to fill the device; *done false where no chunking fits. */
clb_status clb__cl_topk_chunked(clb_context *ctx, const clb__topk_op *op, void *const *handles,
                                bool *done);
clb_status clb__cl_compact(clb_context *ctx, const clb__compact_op *op, void *const *handles);

#endif /* CLB_CL_INDEX_H */
