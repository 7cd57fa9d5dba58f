/* clbroadcast_cl.h: OpenCL interop for clbroadcast (fixed by shared/API-CONTRACT.md,
 * "More of the fixed core"). Use the library on an application's own cl_context,
 * device and queue, and hand cl_mem buffers in and out without copies.
 *
 * Only builds of clbroadcast with OpenCL provide these functions (clbroadcast.h
 * stays free of OpenCL headers for the others).
 *
 * Ownership: every handle given to the library is retained, and released exactly
 * once, when the last context, tensor view or storage using it goes (in any order
 * of release). Every handle handed out is borrowed: valid while the context or
 * tensor it came from lives; clRetain* it to keep it longer.
 *
 * Ordering: all of a context's commands go, in call order, to its one in-order
 * queue. On the application's queue, its own kernels enqueued after a library call
 * see that call's results, and a library call sees what the application enqueued
 * before it, without clFinish. Out-of-order queues are refused (CLB_ERR_UNSUPPORTED)
 * rather than ordered with events: pass an in-order queue, or NULL.
 * Calls that return host data (clb_tensor_to_host) wait for the queue, so they also
 * wait for the application's earlier commands on it. */
#ifndef CLBROADCAST_CL_H
#define CLBROADCAST_CL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include "clbroadcast.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A context on the application's own OpenCL objects. The library retains all three
   and releases them with the context. queue NULL: the library creates an in-order
   queue on (context, device). With the application's queue, every library command
   is enqueued on it in call order, so the application's own kernels enqueued on the
   same queue see the library's results (and the other way round) without a finish.
   An out-of-order queue is refused with CLB_ERR_UNSUPPORTED. device must be one of
   context's devices and queue (when given) on that context and device, else
   CLB_ERR_INVALID_ARGUMENT saying which. The context's clb_device_info describes the
   device (index -1 and selector "" for a device clb_device_count does not list,
   a sub-device say). */
CLB_API clb_status clb_context_create_from_cl(cl_context context, cl_device_id device,
                                              cl_command_queue queue, clb_context **out);
/* The OpenCL objects a context uses (borrowed: valid while ctx lives; retain them to
   keep them longer). Any of the three pointers may be NULL. The host backend:
   CLB_ERR_UNSUPPORTED (and NULL in each). */
CLB_API clb_status clb_context_get_cl(const clb_context *ctx, cl_context *context,
                                      cl_device_id *device, cl_command_queue *queue);
/* A tensor over the application's buffer, without copying: element (i0, i1, ...) lives
   at offset_bytes + sum(ik * strides[k]) * itemsize. strides NULL: C-contiguous;
   strides in elements, 0 and negative allowed. The buffer is retained while any view
   of it lives. CLB_ERR_INVALID_ARGUMENT when the buffer belongs to another cl_context
   or any element would fall outside it. offset_bytes must be a multiple of the
   dtype's size. clb_memory_allocated does not count the buffer. Such tensors work as
   inputs of every op and as out of the _into ops (a stride-0 out is refused there,
   as for any tensor). */
CLB_API clb_status clb_tensor_from_cl_buffer(clb_context *ctx, cl_mem buffer, size_t offset_bytes,
                                             clb_dtype dtype, int ndim, const int64_t *shape,
                                             const int64_t *strides, clb_tensor **out);
/* The buffer holding t's storage (borrowed) and the byte offset of t's first element
   (clb_tensor_offset * itemsize); t's strides say how the rest is laid out. Host
   backend tensors: CLB_ERR_UNSUPPORTED. Storage the library keeps in SVM (CPU
   devices with fine-grained SVM) is an ordinary cl_mem over that memory
   (CL_MEM_USE_HOST_PTR), usable as any buffer of the context. offset_bytes may be
   NULL. */
CLB_API clb_status clb_tensor_get_cl_buffer(const clb_tensor *t, cl_mem *buffer,
                                            size_t *offset_bytes);

#ifdef __cplusplus
}
#endif

#endif /* CLBROADCAST_CL_H */
