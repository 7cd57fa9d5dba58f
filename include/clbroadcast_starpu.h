/* clbroadcast_starpu.h: clbroadcast operations as StarPU tasks (the optional
 * adapter library libclbroadcast_starpu, built when StarPU 1.3 is found).
 *
 * StarPU (https://starpu.gitlabpages.inria.fr) schedules tasks over CPU cores,
 * OpenCL devices and, with StarPU-MPI, several processes, and moves the data
 * between them. This adapter gives it clbroadcast tensors and operations:
 *
 *   - a clb_starpu_tensor is a StarPU data handle (a matrix handle: shape[0]
 *     rows of the remaining axes' elements; one element for a scalar) plus the
 *     dtype and shape that StarPU 1.3 cannot hold itself (its N-dimensional
 *     interface arrives in 1.4): they travel as the codelet's argument;
 *   - clb_starpu_eval, clb_starpu_eval_reduce, clb_starpu_reduce,
 *     clb_starpu_sum_to_shape and clb_starpu_matmul submit one task each. Its
 *     OpenCL implementation runs the library on StarPU's own cl_context and
 *     queue (one clbroadcast context per OpenCL worker, made once with
 *     clb_context_create_from_cl), over StarPU's buffers
 *     (clb_tensor_from_cl_buffer); its CPU implementation runs the host backend
 *     on StarPU's memory (clb_tensor_from_host_memory). Nothing StarPU placed
 *     is copied; the results of reductions and matmul, which the library has no
 *     _into form for, are written into the task's output handle by one copy on
 *     the worker's device.
 *
 * Errors: the submit functions check everything a task could trip on (shapes,
 * dtypes, axes, the expression) before submitting and return the library's
 * usual statuses and messages. A failure inside a running task (out of device
 * memory, say) is recorded and returned by clb_starpu_wait.
 *
 * Ownership: clb_starpu_register makes a handle the caller later gives to
 * clb_starpu_unregister; clb_starpu_describe only describes a handle the
 * caller keeps owning. Outputs are written whole (STARPU_W); inputs are read
 * (STARPU_R) and may be partitioned, replicated or shared by many tasks. */
#ifndef CLBROADCAST_STARPU_H
#define CLBROADCAST_STARPU_H

#include <starpu.h>

#include "clbroadcast.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && defined(CLB_STARPU_BUILDING)
#define CLB_STARPU_API __attribute__((visibility("default")))
#else
#define CLB_STARPU_API
#endif

/* The adapter's state: one clbroadcast context per StarPU OpenCL worker, one
   host-backend context for the CPU workers, task counts, the first task failure. */
typedef struct clb_starpu clb_starpu;

/* After starpu_init (or starpu_mpi_init_conf): makes the workers' contexts.
   Without StarPU running: CLB_ERR_INVALID_ARGUMENT. */
CLB_STARPU_API clb_status clb_starpu_create(clb_starpu **out);
/* Waits for every task (starpu_task_wait_for_all), then releases the contexts.
   Call it before starpu_shutdown. NULL-safe. */
CLB_STARPU_API void clb_starpu_release(clb_starpu *sp);
/* starpu_task_wait_for_all, then the status of the first task of this adapter that
   failed since the last call (CLB_OK if none), its message naming the worker, in
   clb_last_error(). */
CLB_STARPU_API clb_status clb_starpu_wait(clb_starpu *sp);

/* The clbroadcast context of StarPU worker `workerid` (borrowed: valid while sp
   lives): its OpenCL device's for an OpenCL worker, the host backend's for a CPU
   worker; other kinds of worker: CLB_ERR_UNSUPPORTED. */
CLB_STARPU_API clb_status clb_starpu_worker_context(clb_starpu *sp, int workerid, clb_context **out);
/* Tasks of this adapter that worker `workerid` ran so far (0 for an unknown id). */
CLB_STARPU_API unsigned long clb_starpu_worker_tasks(const clb_starpu *sp, int workerid);

/* Pins the tasks sp submits from now on to worker `workerid` (STARPU_EXECUTE_ON_WORKER);
   -1 gives the choice back to StarPU's scheduler. For tests and measurements; one
   setting per sp (not per thread); ignored under StarPU-MPI. A workerid that is not a
   CPU or OpenCL worker: CLB_ERR_INVALID_ARGUMENT. */
CLB_STARPU_API clb_status clb_starpu_pin(clb_starpu *sp, int workerid);

/* ---- data ---------------------------------------------------------------- */
typedef struct clb_starpu_tensor {
    starpu_data_handle_t handle;
    clb_dtype dtype;
    int ndim;
    int64_t shape[CLB_MAX_DIMS];
} clb_starpu_tensor;

/* Registers C-contiguous host memory `data` (numel * itemsize bytes; NULL: StarPU
   allocates it where it is first written, as for a handle registered with home node
   -1) as a matrix handle of shape[0] rows (1 for a scalar). StarPU 1.3 counts rows
   and row lengths in 32 bits: larger ones, and zero-size tensors, are
   CLB_ERR_UNSUPPORTED. Unregister with clb_starpu_unregister (which brings the
   data back into `data`). */
CLB_STARPU_API clb_status clb_starpu_register(void *data, clb_dtype dtype, int ndim,
                                              const int64_t *shape, clb_starpu_tensor *out);
/* Describes the caller's own vector or matrix handle as a tensor: the handle's
   element size must be the dtype's, a vector must hold numel elements, a matrix
   shape[0] rows of the other axes' elements (1 x 1 for a scalar); otherwise
   CLB_ERR_INVALID_ARGUMENT saying what the handle holds. */
CLB_STARPU_API clb_status clb_starpu_describe(starpu_data_handle_t handle, clb_dtype dtype, int ndim,
                                              const int64_t *shape, clb_starpu_tensor *out);
/* starpu_data_unregister (the data goes back to its home) and clears *t. NULL-safe. */
CLB_STARPU_API void clb_starpu_unregister(clb_starpu_tensor *t);

/* Partitions t along its first axis into nparts blocks of consecutive rows
   (starpu_data_partition; sizes differ by at most one row) and describes them in
   parts[0 .. nparts-1]. 1 <= nparts <= shape[0]. Tasks then use the parts; t
   itself again after clb_starpu_unpartition, which gathers them into t's home
   (a task given a partitioned t, or partitioning it twice: CLB_ERR_INVALID_ARGUMENT;
   unpartitioning a tensor that is not partitioned does nothing). */
CLB_STARPU_API clb_status clb_starpu_partition(const clb_starpu_tensor *t, int nparts,
                                               clb_starpu_tensor *parts);
CLB_STARPU_API void clb_starpu_unpartition(const clb_starpu_tensor *t);

/* ---- tasks --------------------------------------------------------------- */
/* out = expr(inputs...), as clb_eval_into: the n inputs (n <= CLB_EVAL_MAX_INPUTS)
   broadcast with out to out's shape, the result cast to out's dtype (same_kind).
   out must not be one of the inputs (StarPU's W and R modes on one handle). */
CLB_STARPU_API clb_status clb_starpu_eval(clb_starpu *sp, const char *expr, int n,
                                          const char *const *names,
                                          const clb_starpu_tensor *const *inputs,
                                          const clb_starpu_tensor *out);
/* out = clb_eval_reduce(expr, inputs, op, axes, keepdim): out's shape and dtype must
   be the result's. */
CLB_STARPU_API clb_status clb_starpu_eval_reduce(clb_starpu *sp, const char *expr, int n,
                                                 const char *const *names,
                                                 const clb_starpu_tensor *const *inputs,
                                                 clb_reduce_op op, int naxes, const int *axes,
                                                 int keepdim, const clb_starpu_tensor *out);
/* out = clb_reduce(op, in, axes, keepdim). */
CLB_STARPU_API clb_status clb_starpu_reduce(clb_starpu *sp, clb_reduce_op op,
                                            const clb_starpu_tensor *in, int naxes, const int *axes,
                                            int keepdim, const clb_starpu_tensor *out);
/* out = clb_sum_to_shape(grad, out's shape). */
CLB_STARPU_API clb_status clb_starpu_sum_to_shape(clb_starpu *sp, const clb_starpu_tensor *grad,
                                                  const clb_starpu_tensor *out);
/* out = clb_matmul(a, b). */
CLB_STARPU_API clb_status clb_starpu_matmul(clb_starpu *sp, const clb_starpu_tensor *a,
                                            const clb_starpu_tensor *b,
                                            const clb_starpu_tensor *out);

/* ---- inside the application's own codelets ---------------------------------- */
/* The context of the worker running the calling codelet (borrowed). Outside a
   worker of sp: CLB_ERR_INVALID_ARGUMENT. */
CLB_STARPU_API clb_status clb_starpu_current_context(clb_starpu *sp, clb_context **out);
/* A tensor of dtype and shape over the codelet's buffer `buffer` (an element of its
   buffers[] array: a vector, or a matrix of shape[0] rows), without copying, on
   ctx. ctx must be the calling worker's context (the tensor would otherwise live
   on another device than the memory): CLB_ERR_INVALID_ARGUMENT naming both. A
   buffer whose element size, element count or rows differ from dtype and shape's:
   CLB_ERR_INVALID_ARGUMENT. Release the tensor before the codelet returns. */
CLB_STARPU_API clb_status clb_starpu_buffer_tensor(clb_starpu *sp, clb_context *ctx, void *buffer,
                                                   clb_dtype dtype, int ndim, const int64_t *shape,
                                                   clb_tensor **out);

#ifdef __cplusplus
}
#endif

#endif /* CLBROADCAST_STARPU_H */
