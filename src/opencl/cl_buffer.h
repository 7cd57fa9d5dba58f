/* Device buffers and the blocking transfers between them and host memory.
 * The storage handle of an OpenCL context is the cl_mem itself. */
#ifndef CLB_BUFFER_H
#define CLB_BUFFER_H

#include "clbroadcast.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <CL/cl.h>

/* What cl_buffer.c needs to know about the device it allocates on. */
typedef struct clb__buffer_env {
    cl_context context;
    cl_command_queue queue; /* in-order: transfers are ordered after queued kernels */
    bool zero_copy;         /* device reads host RAM: allocate host-visible, move data by map */
    bool svm;               /* CPU device with fine-grained buffer SVM: storage is SVM that the
                               host may touch directly once the queue has drained */
    bool huge_pages;        /* advise 2 MiB pages on large SVM storage (huge_pages.h) */
    uint64_t max_alloc;     /* CL_DEVICE_MAX_MEM_ALLOC_SIZE */
    const char *device_name;
} clb__buffer_env;

/* A buffer of nbytes (0 allowed: OpenCL forbids empty buffers, so a minimal one
   stands in; the caller accounts nbytes, not what was allocated).
   CLB_ERR_OUT_OF_MEMORY, naming both sizes, above the device's largest allocation.
   (The backend takes small SVM blocks from slabs instead: cl_slab.h.) */
clb_status clb__buffer_alloc(const clb__buffer_env *env, size_t nbytes, cl_mem *out);
void clb__buffer_free(cl_mem mem); /* NULL-safe; pending commands keep it alive until done */

/* The host address of mem's bytes when it was allocated as SVM (env->svm), else
   NULL. Valid for host access only while no queued command uses the buffer. */
void *clb__buffer_host_ptr(const clb__buffer_env *env, cl_mem mem);

/* Blocking: on return src may be reused / dst holds the bytes. nbytes 0 is a no-op. */
clb_status clb__buffer_write(const clb__buffer_env *env, cl_mem mem, size_t offset,
                             const void *src, size_t nbytes);
clb_status clb__buffer_read(const clb__buffer_env *env, cl_mem mem, size_t offset, void *dst,
                            size_t nbytes);

#endif /* CLB_BUFFER_H */
