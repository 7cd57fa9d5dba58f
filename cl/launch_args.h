/* Launch descriptions of the copy and map kernels, shared by the host
 * (src/opencl/cl_copy.c, src/opencl/cl_map.c) and the kernels (prepended to every program).
 *
 * Everything about a launch but the buffers is an array of 64-bit integers
 * whose slots are named here once. It travels as a few long16 arguments
 * (CLB_*_ARGS_VECS of them): the OpenCL specification fixes the size and
 * layout of a vector type for every compiler, which it does not do for a
 * struct, and a kernel copies them into a private array with constant offsets
 * (cl/common.cl). Two defects of Mesa 22.3's rusticl met the struct this
 * replaces: it sizes a struct holding a 2-D array as if it held one row, and
 * its llvmpipe compiler crashes on a by-value struct indexed by a loop
 * variable (tests/quirks/). Every context still checks, the first time it
 * builds each family, that the device receives the array as the host wrote it
 * (src/opencl/cl_args.c).
 *
 * Valid C and OpenCL C: only #defines. */
#ifndef CLB_LAUNCH_ARGS_H
#define CLB_LAUNCH_ARGS_H

/* Stride tables of up to this many axes go by value; longer ones in a
   __constant buffer, beyond the 1 KiB of arguments every device must accept. */
#define CLB_BYVAL_DIMS 8

/* clb_copy (cl/copy.cl): operand 0 is dst, 1 is src. */
#define CLB_COPY_OPS 2
#define CLB_COPY_OFFSET(o) (o)                    /* element offset of the first element */
#define CLB_COPY_ROWS 2                           /* product of the outer extents */
#define CLB_COPY_INNER 3                          /* the inner extent */
#define CLB_COPY_INNER_STRIDE(o) (4 + (o))
#define CLB_COPY_RANK 6                           /* >= 1; a 0-d plan is one axis of size 1 */
#define CLB_COPY_SHAPE(d) (7 + (d))
#define CLB_COPY_STRIDE(o, d) (7 + CLB_BYVAL_DIMS * (1 + (o)) + (d))
#define CLB_COPY_ARGS_LEN (7 + CLB_BYVAL_DIMS * (1 + CLB_COPY_OPS))
#define CLB_COPY_ARGS_VECS 2                      /* long16 arguments: 32 slots */

/* clb_map (cl/elementwise.cl): operand 0 is out, 1..3 the inputs. */
#define CLB_MAP_OPS 4
#define CLB_MAP_OFFSET(o) (o)
#define CLB_MAP_ROWS 4
#define CLB_MAP_INNER 5
#define CLB_MAP_INNER_STRIDE(o) (6 + (o))
#define CLB_MAP_RANK 10
#define CLB_MAP_SHAPE(d) (11 + (d))
#define CLB_MAP_STRIDE(o, d) (11 + CLB_BYVAL_DIMS * (1 + (o)) + (d))
#define CLB_MAP_ARGS_LEN (11 + CLB_BYVAL_DIMS * (1 + CLB_MAP_OPS))
#define CLB_MAP_ARGS_VECS 4                       /* long16 arguments: 64 slots */

#endif /* CLB_LAUNCH_ARGS_H */
