/* Device buffers. The strategy follows one capability flag (cl_device.c's
 * host_unified_memory): where the device works on host RAM (CPU devices,
 * integrated GPUs) buffers are allocated host-visible with
 * CL_MEM_ALLOC_HOST_PTR and data moves by map + memcpy + unmap, which costs a
 * single copy and lets the driver skip its staging buffer; on discrete devices
 * explicit clEnqueueWrite/ReadBuffer lets the driver use DMA.
 *
 * CPU devices with fine-grained buffer SVM (PoCL) get SVM storage wrapped in a
 * CL_MEM_USE_HOST_PTR buffer: kernels, CLBlast and transfers see an ordinary
 * cl_mem, and the host may work on the same bytes directly once the queue has
 * drained (cl_map.c runs tiny maps that way). */
#include "cl_buffer.h"

#include "cl_errors.h"
#include "fault.h"
#include "huge_pages.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* What the destructor callback needs to give an SVM block back. */
typedef struct svm_block {
    cl_context context;
    void *ptr;
} svm_block;

/* Runs once the buffer is really gone, after the last command using it. */
static void CL_CALLBACK free_svm_block(cl_mem mem, void *user)
{
    (void)mem;
    svm_block *b = user;
    clSVMFree(b->context, b->ptr);
    free(b);
}

/* An SVM block of nbytes wrapped in a buffer that frees it when destroyed. */
static clb_status alloc_svm(const clb__buffer_env *env, size_t nbytes, cl_mem *out)
{
    svm_block *b = malloc(sizeof *b);
    if (!b) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory allocating a buffer");
    b->context = env->context;
    b->ptr = CLB__FAULT(CLB__FAULT_BUFFER)
                 ? NULL
                 : clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER,
                              nbytes, 0);
    if (!b->ptr) {
        free(b);
        return clb__fail(CLB_ERR_OUT_OF_MEMORY, "cannot allocate %zu bytes on %s (clSVMAlloc failed)",
                         nbytes, env->device_name);
    }
    /* Host memory the device streams through: 2 MiB pages before the first
       touch (huge_pages.h). */
    if (env->huge_pages) clb__huge_pages_advise(b->ptr, nbytes);
    cl_int err = CL_SUCCESS;
    cl_mem mem = clCreateBuffer(env->context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, nbytes,
                                b->ptr, &err);
    if (err == CL_SUCCESS && mem) err = clSetMemObjectDestructorCallback(mem, free_svm_block, b);
    if (err != CL_SUCCESS || !mem) {
        if (mem) clReleaseMemObject(mem);
        clSVMFree(b->context, b->ptr);
        free(b);
        return clb__cl_fail(err != CL_SUCCESS ? err : CL_OUT_OF_RESOURCES, "clCreateBuffer");
    }
    *out = mem;
    return CLB_OK;
}

void *clb__buffer_host_ptr(const clb__buffer_env *env, cl_mem mem)
{
    void *ptr = NULL;
    if (!env->svm || clGetMemObjectInfo(mem, CL_MEM_HOST_PTR, sizeof ptr, &ptr, NULL) != CL_SUCCESS)
        return NULL;
    return ptr;
}

clb_status clb__buffer_alloc(const clb__buffer_env *env, size_t nbytes, cl_mem *out)
{
    *out = NULL;
    if ((uint64_t)nbytes > env->max_alloc)
        return clb__fail(CLB_ERR_OUT_OF_MEMORY,
                         "cannot allocate %zu bytes on %s: its largest single allocation "
                         "(CL_DEVICE_MAX_MEM_ALLOC_SIZE) is %llu bytes",
                         nbytes, env->device_name, (unsigned long long)env->max_alloc);
    /* Zero-byte storage is legal for tensors but not for OpenCL buffers; kernels
       never touch it because a plan over zero elements launches nothing. */
    if (env->svm) return alloc_svm(env, nbytes ? nbytes : 1, out);
    cl_mem_flags flags = CL_MEM_READ_WRITE | (env->zero_copy ? CL_MEM_ALLOC_HOST_PTR : 0);
    cl_int err = CL_SUCCESS;
    cl_mem mem = clCreateBuffer(env->context, flags, nbytes ? nbytes : 1, NULL, &err);
    if (CLB__FAULT(CLB__FAULT_BUFFER)) err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    if (err != CL_SUCCESS || !mem) {
        if (mem) clReleaseMemObject(mem);
        return clb__cl_fail(err != CL_SUCCESS ? err : CL_OUT_OF_RESOURCES, "clCreateBuffer");
    }
    *out = mem;
    return CLB_OK;
}

void clb__buffer_free(cl_mem mem)
{
    if (mem) clReleaseMemObject(mem);
}

/* Maps [offset, offset + nbytes) for the host, blocking until queued work is done. */
static clb_status map_region(const clb__buffer_env *env, cl_mem mem, cl_map_flags flags,
                             size_t offset, size_t nbytes, void **ptr)
{
    cl_int err = CL_SUCCESS;
    *ptr = clEnqueueMapBuffer(env->queue, mem, CL_TRUE, flags, offset, nbytes, 0, NULL, NULL, &err);
    CLB__FAULT_MAP_HOOK(env->queue, mem, *ptr, err);
    if (err != CL_SUCCESS || !*ptr)
        return clb__cl_fail(err != CL_SUCCESS ? err : CL_MAP_FAILURE, "clEnqueueMapBuffer");
    return CLB_OK;
}

/* The unmap is queued, not waited for: later commands on the in-order queue see
   the data, and the host side is already finished with the pointer. */
static clb_status unmap_region(const clb__buffer_env *env, cl_mem mem, void *ptr)
{
    cl_int err = clEnqueueUnmapMemObject(env->queue, mem, ptr, 0, NULL, NULL);
    return err == CL_SUCCESS ? CLB_OK : clb__cl_fail(err, "clEnqueueUnmapMemObject");
}

/* The host address of mem's bytes once every queued command is done, or NULL
   where the host does not share them. Transfers of such buffers copy through it
   instead of mapping: PoCL 3.1 crashes when threads map parts of one
   CL_MEM_USE_HOST_PTR buffer at once (quirk concurrent-map), and a map costs the
   same wait for the queue anyway. */
static clb_status drained_host_ptr(const clb__buffer_env *env, cl_mem mem, unsigned char **ptr)
{
    *ptr = clb__buffer_host_ptr(env, mem);
    if (!*ptr) return CLB_OK;
    cl_int err = clFinish(env->queue);
    return err == CL_SUCCESS ? CLB_OK : clb__cl_fail(err, "clFinish");
}

clb_status clb__buffer_write(const clb__buffer_env *env, cl_mem mem, size_t offset,
                             const void *src, size_t nbytes)
{
    if (nbytes == 0) return CLB_OK;
    unsigned char *host = NULL;
    clb_status hs = drained_host_ptr(env, mem, &host);
    if (hs != CLB_OK || host) {
        if (host && hs == CLB_OK) memcpy(host + offset, src, nbytes);
        return hs;
    }
    if (!env->zero_copy) {
        cl_int err =
            clEnqueueWriteBuffer(env->queue, mem, CL_TRUE, offset, nbytes, src, 0, NULL, NULL);
        return err == CL_SUCCESS ? CLB_OK : clb__cl_fail(err, "clEnqueueWriteBuffer");
    }
    void *ptr = NULL;
    clb_status st = map_region(env, mem, CL_MAP_WRITE_INVALIDATE_REGION, offset, nbytes, &ptr);
    if (st != CLB_OK) return st;
    memcpy(ptr, src, nbytes);
    return unmap_region(env, mem, ptr);
}

clb_status clb__buffer_read(const clb__buffer_env *env, cl_mem mem, size_t offset, void *dst,
                            size_t nbytes)
{
    if (nbytes == 0) return CLB_OK;
    unsigned char *host = NULL;
    clb_status hs = drained_host_ptr(env, mem, &host);
    if (hs != CLB_OK || host) {
        if (host && hs == CLB_OK) memcpy(dst, host + offset, nbytes);
        return hs;
    }
    if (!env->zero_copy) {
        cl_int err =
            clEnqueueReadBuffer(env->queue, mem, CL_TRUE, offset, nbytes, dst, 0, NULL, NULL);
        return err == CL_SUCCESS ? CLB_OK : clb__cl_fail(err, "clEnqueueReadBuffer");
    }
    void *ptr = NULL;
    clb_status st = map_region(env, mem, CL_MAP_READ, offset, nbytes, &ptr);
    if (st != CLB_OK) return st;
    memcpy(dst, ptr, nbytes);
    return unmap_region(env, mem, ptr);
}
