/* The launch descriptions of cl/launch_args.h: the host's type, and the check
 * that a device receives them as the host writes them. */
#ifndef CLB_CL_ARGS_H
#define CLB_CL_ARGS_H

#include "cl_launch.h"

#include "cl/launch_args.h"

#include <CL/cl.h>

/* Room for the longest description (eval's: six long16 and a long8). */
#define CLB__CL_ARGS_MAX_SLOTS (16 * CLB_EVAL_ARGS_VECS + 8 * CLB_EVAL_ARGS_TAIL)
typedef struct clb__cl_args {
    cl_long v[CLB__CL_ARGS_MAX_SLOTS];
} clb__cl_args;

/* long16 arguments of kernel family id's description (0: the family has none). */
int clb__cl_args_vecs(clb__kernel_id id);
/* Slots of kernel family id's description: its long16 arguments, and the long8
   after them where it has one (cl/launch_args.h's CLB_<F>_ARGS_TAIL). */
int clb__cl_args_slots(clb__kernel_id id);

/* The description of one plan piece for a family of `ops` operands (operands
   the plan lacks get offset and strides 0): a 0-d plan as one axis of size 1,
   the by-value tables unless the kernel takes them from a buffer (`tables`
   false). *rows and *inner receive the launch's two extents. */
void clb__cl_args_fill(clb__cl_args *args, const clb__plan *p, int ops, bool tables,
                       int64_t *rows, int64_t *inner);

/* Sets the description's vectors (and its long8) as arguments first, first + 1,
   ... of k. */
clb_status clb__cl_set_args(clb__cl_kernel *k, clb__kernel_id id, cl_uint first,
                            const clb__cl_args *args);

/* Once per context and family: runs `program`'s clb_args_probe kernel
   (cl/common.cl) and compares what the device received with what was sent.
   A device that receives the description altered, or whose driver refuses
   its size, gets CLB_ERR_UNSUPPORTED naming the device and the family, never
   a launch with misread arguments. */
clb_status clb__cl_check_args(clb__cl_context *cl, clb__kernel_id id, cl_program program);

/* The kernel object of a family with a launch description (copy, map, eval) for
   `options`: the program from the program cache, its description checked
   (clb__cl_check_args), then its kernel `name` (NULL, or a name the program
   does not define: the family's function) added to the kernel cache under
   `key`, which it returns locked as clb__cl_kernel_named does. */
clb_status clb__cl_kernel_build_checked(clb__cl_context *cl, clb__kernel_id id, uint64_t key,
                                        const char *options, const char *name,
                                        clb__cl_kernel **out);

#endif /* CLB_CL_ARGS_H */
