/* The OpenCL backend: one cl_context and one in-order queue per clb_context.
 * The in-order queue is what makes the library's ordering model simple:
 * kernels, transfers and maps run in submission order, so no events are
 * created or waited on anywhere, and blocking reads see all earlier work.
 *
 * This file holds the context's lifetime and storage; each operation has its
 * own driver (cl_copy.c, cl_map.c, cl_reduce.c, cl_matmul.c) over the launch
 * helpers of cl_launch.c. */
#include "backend.h"

#include "cl_backend.h"
#include "cl_launch.h"
#include "cl_buffer.h"
#include "cl_errors.h"
#include "cl_generate.h"
#include "cl_eval_reduce.h"
#include "cl_index.h"
#include "cl_park.h"
#include "cl_quirks.h"
#include "cl_device.h"
#include "expr.h"
#include "cl_kernels.h"
#include "cl_program_cache.h"
#include "cl_slab.h"

#include <stdlib.h>
#include <string.h>

static const clb__backend cl_backend;

static clb__cl_context *impl_of(clb_context *ctx)
{
    return clb__cl_impl(ctx);
}

clb__program_cache *clb__cl_context_programs(const clb_context *ctx)
{
    return ctx && ctx->backend == &cl_backend ? ((clb__cl_context *)ctx->impl)->programs : NULL;
}

/* ---- lifetime ------------------------------------------------------------------ */

static void release_impl(clb__cl_context *cl)
{
    if (!cl) return;
    clb__cl_kernel_cache_destroy(cl->kernels); /* kernels hold their programs */
    clb__program_cache_destroy(cl->programs);
    if (cl->queue) {
        clFinish(cl->queue);
        clReleaseCommandQueue(cl->queue);
    }
    clb__cl_matmul_forget();
    clb__slabs_destroy(cl->slabs); /* every block came back with the pool */
    if (cl->device_retained) clReleaseDevice(cl->device);
    if (cl->context && !(cl->parkable && clb__cl_park_put(cl->device, cl->context)))
        clReleaseContext(cl->context);
    free(cl);
}

/* Everything after the context, device and queue are in cl, from the device's
   facts (gathered once, when it was resolved or adopted): work-item limits,
   buffer strategy, program and kernel caches, quirks. */
static clb_status setup(clb_context *ctx, clb__cl_context *cl, const clb__cl_caps *dev)
{
    clb_status st = CLB_OK;
    cl->max_item_size = dev->max_item_size;
    cl->local_mem_bytes = dev->local_mem_bytes;
    cl->buffers.context = cl->context;
    cl->buffers.queue = cl->queue;
    cl->buffers.zero_copy = ctx->info.host_unified_memory != 0;
    cl->buffers.svm = dev->fine_grain_svm;
    cl->buffers.huge_pages = ctx->options.huge_pages;
    /* The largest map cl_map.c runs on the calling thread instead of launching
       a kernel: CLB_HOST_TINY elements (0 turns it off; the tests do, to
       exercise the kernels on small shapes), by default 8192, where a typed
       host loop takes about as long as the ~2 us a launch costs PoCL. */
    cl->host_tiny_max = cl->buffers.svm ? ctx->options.host_tiny : 0;
    cl->buffers.max_alloc = ctx->info.max_alloc_bytes;
    cl->buffers.device_name = ctx->info.name; /* ctx outlives its impl */
    /* SVM storage: small blocks from slabs (cl_slab.h; PoCL 3.1 slows down with
       every SVM block that lives, quirk svm-lookup). Without the memory for the
       set, every block is a buffer of its own. */
    cl_uint align_bits = 0;
    if (cl->buffers.svm &&
        clGetDeviceInfo(cl->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits,
                        NULL) == CL_SUCCESS)
        cl->slabs = clb__slabs_create(align_bits / 8 ? align_bits / 8 : 1);
    CLB_TRY(clb__program_cache_create(cl->context, cl->device, &ctx->info, &cl->programs));
    cl->quirks = dev->quirks;
    cl->loops = clb__cl_launch_style(ctx->info.type, ctx->info.platform, cl->quirks);
    cl->own_math = ctx->info.type == CLB_DEVICE_CPU;
    cl->max_trips = cl->quirks & CLB__QUIRK_LOOP_LIMIT ? CLB__QUIRK_LOOP_TRIPS / 2 : INT64_MAX;
    CLB_TRY(clb__cl_kernel_cache_create(cl->device, cl->loops, &cl->kernels));
cleanup:
    return st;
}

clb_status clb__cl_context_init(clb_context *ctx, const clb__device *device)
{
    const clb__cl_caps *dev = clb__cl_caps_of(device);
    clb_status st = CLB_OK;
    cl_int err = CL_SUCCESS;
    clb__cl_context *cl = calloc(1, sizeof *cl);
    if (!cl) CLB_FAIL(CLB_ERR_OUT_OF_MEMORY, "out of host memory creating an OpenCL context");
    ctx->info = dev->info;
    cl->device = dev->device;

    cl->parkable = clb__cl_park_wanted(ctx->info.platform);
    if (cl->parkable) cl->context = clb__cl_park_take(cl->device);
    if (!cl->context) {
        cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)dev->platform, 0};
        cl->context = clCreateContext(props, 1, &cl->device, NULL, NULL, &err);
        CLB_CL_CHECK(err, "clCreateContext");
    }
    cl->queue = clCreateCommandQueue(cl->context, cl->device, 0, &err);
    CLB_CL_CHECK(err, "clCreateCommandQueue");
    CLB_TRY(setup(ctx, cl, dev));

    ctx->backend = &cl_backend;
    ctx->impl = cl;
    cl = NULL;

cleanup:
    release_impl(cl);
    return st;
}

/* Whether device is one of context's devices. */
static clb_status check_device_in(cl_context context, cl_device_id device, const char *fn)
{
    cl_uint n = 0;
    cl_int err = clGetContextInfo(context, CL_CONTEXT_NUM_DEVICES, sizeof n, &n, NULL);
    if (err != CL_SUCCESS)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: context is not a valid cl_context (%s)", fn,
                         clb__cl_error_name(err));
    cl_device_id *devs = calloc(n ? n : 1, sizeof *devs);
    if (!devs) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory in %s", fn);
    err = clGetContextInfo(context, CL_CONTEXT_DEVICES, n * sizeof *devs, devs, NULL);
    bool found = false;
    for (cl_uint i = 0; err == CL_SUCCESS && i < n; i++) found = found || devs[i] == device;
    free(devs);
    if (err != CL_SUCCESS) return clb__cl_fail(err, "clGetContextInfo(CL_CONTEXT_DEVICES)");
    if (!found)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                         "%s: device is not one of context's %u device(s); pass a device the "
                         "cl_context was created with",
                         fn, n);
    return CLB_OK;
}

/* queue must belong to (context, device) and run in order. */
static clb_status check_queue(cl_context context, cl_device_id device, cl_command_queue queue,
                              const char *fn)
{
    cl_context qctx = NULL;
    cl_device_id qdev = NULL;
    cl_command_queue_properties props = 0;
    cl_int err = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof qctx, &qctx, NULL);
    if (err != CL_SUCCESS)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: queue is not a valid cl_command_queue (%s)",
                         fn, clb__cl_error_name(err));
    err = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof qdev, &qdev, NULL);
    if (err == CL_SUCCESS)
        err = clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
    if (err != CL_SUCCESS) return clb__cl_fail(err, "clGetCommandQueueInfo");
    if (qctx != context)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                         "%s: queue belongs to another cl_context than context", fn);
    if (qdev != device)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: queue runs on another device than device",
                         fn);
    if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
        return clb__fail(CLB_ERR_UNSUPPORTED,
                         "%s: queue is out of order (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE); the "
                         "library orders its commands by an in-order queue: pass an in-order "
                         "queue, or NULL to let the library create one",
                         fn);
    return CLB_OK;
}

clb_status clb__cl_context_adopt(clb_context *ctx, cl_context context, cl_device_id device,
                                 cl_command_queue queue)
{
    const char *fn = "clb_context_create_from_cl";
    clb_status st = CLB_OK;
    clb__cl_caps dev;
    cl_int err = CL_SUCCESS;
    clb__cl_context *cl = NULL;
    if (!context) CLB_FAIL(CLB_ERR_INVALID_ARGUMENT, "%s: context is NULL", fn);
    if (!device) CLB_FAIL(CLB_ERR_INVALID_ARGUMENT, "%s: device is NULL", fn);
    CLB_TRY(check_device_in(context, device, fn));
    if (queue) CLB_TRY(check_queue(context, device, queue, fn));
    cl = calloc(1, sizeof *cl);
    if (!cl) CLB_FAIL(CLB_ERR_OUT_OF_MEMORY, "out of host memory creating an OpenCL context");
    CLB_TRY(clb__cl_device_adopt(device, &dev));
    ctx->info = dev.info;
    /* Retained one by one, so release_impl gives back exactly what was taken. */
    CLB_CL_CHECK(clRetainContext(context), "clRetainContext");
    cl->context = context;
    CLB_CL_CHECK(clRetainDevice(device), "clRetainDevice");
    cl->device = device;
    cl->device_retained = true;
    if (queue) {
        CLB_CL_CHECK(clRetainCommandQueue(queue), "clRetainCommandQueue");
        cl->queue = queue;
    } else {
        cl->queue = clCreateCommandQueue(context, device, 0, &err);
        CLB_CL_CHECK(err, "clCreateCommandQueue");
    }
    CLB_TRY(setup(ctx, cl, &dev));
    ctx->backend = &cl_backend;
    ctx->impl = cl;
    cl = NULL;
cleanup:
    release_impl(cl);
    return st;
}

clb__cl_context *clb__cl_context_of(const clb_context *ctx)
{
    return ctx && ctx->backend == &cl_backend ? (clb__cl_context *)ctx->impl : NULL;
}

static void cl_destroy(clb_context *ctx)
{
    release_impl(impl_of(ctx));
    ctx->impl = NULL;
}

static clb_status cl_finish(clb_context *ctx)
{
    cl_int err = clFinish(impl_of(ctx)->queue);
    return err == CL_SUCCESS ? CLB_OK : clb__cl_fail(err, "clFinish");
}

/* ---- storage ------------------------------------------------------------------------ */

/* Small SVM blocks from the slabs (cl_slab.h), the rest a buffer each. */
static clb_status cl_alloc(clb_context *ctx, size_t nbytes, void **handle)
{
    clb__cl_context *cl = impl_of(ctx);
    cl_mem mem = NULL;
    clb_status st = cl->slabs && nbytes <= CLB__SLAB_MAX
                        ? clb__slab_alloc(cl->slabs, &cl->buffers, nbytes, &mem)
                        : clb__buffer_alloc(&cl->buffers, nbytes, &mem);
    *handle = mem;
    return st;
}

static void cl_free(clb_context *ctx, void *handle)
{
    if (!clb__slab_free(impl_of(ctx)->slabs, (cl_mem)handle)) clb__buffer_free((cl_mem)handle);
}

/* A slab's sub-buffer is the slab's memory from its origin on (cl_slab.h): wraps
   of it and of its neighbours are then told apart by their bytes. */
static void cl_memory_of(clb_context *ctx, void *handle, const void **base, size_t *offset)
{
    (void)ctx;
    cl_mem parent = NULL;
    size_t origin = 0;
    if (clGetMemObjectInfo((cl_mem)handle, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent,
                           NULL) != CL_SUCCESS ||
        !parent ||
        clGetMemObjectInfo((cl_mem)handle, CL_MEM_OFFSET, sizeof origin, &origin, NULL) !=
            CL_SUCCESS)
        return;
    *base = parent;
    *offset = origin;
}

/* The application's buffer: one reference given back, never to a slab (a wrap
   of a tensor's sub-buffer is still the tensor's block). */
static void cl_free_wrapped(clb_context *ctx, void *handle)
{
    clb__cl_kernels_forget(impl_of(ctx), (cl_mem)handle);
    clReleaseMemObject((cl_mem)handle);
}

static clb_status cl_write(clb_context *ctx, void *handle, size_t offset, const void *src,
                           size_t nbytes)
{
    return clb__buffer_write(&impl_of(ctx)->buffers, (cl_mem)handle, offset, src, nbytes);
}

static clb_status cl_read(clb_context *ctx, void *handle, size_t offset, void *dst, size_t nbytes)
{
    return clb__buffer_read(&impl_of(ctx)->buffers, (cl_mem)handle, offset, dst, nbytes);
}

/* The library's copy kernel on dst's queue from smem (a buffer of dst's cl_context)
   into dmem: words of 4 bytes where the offsets allow, else bytes. */
static clb_status kernel_copy(clb_context *dst, cl_mem dmem, size_t dst_offset, cl_mem smem,
                              size_t src_offset, size_t nbytes)
{
    size_t unit = nbytes % 4 == 0 && dst_offset % 4 == 0 && src_offset % 4 == 0 ? 4 : 1;
    clb_dtype dt = unit == 4 ? CLB_UINT32 : CLB_UINT8;
    clb__plan *plan = malloc(sizeof *plan);
    if (!plan) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory for a copy plan");
    int64_t shape[1] = {(int64_t)(nbytes / unit)}, one[1] = {1};
    const int64_t *strides[2] = {one, one};
    int64_t offsets[2] = {(int64_t)(dst_offset / unit), (int64_t)(src_offset / unit)};
    clb__plan_make(plan, 2, 1, shape, strides, offsets);
    void *handles[2] = {dmem, smem};
    clb_dtype dtypes[2] = {dt, dt};
    clb_status st = clb__cl_copy(dst, plan, handles, dtypes);
    free(plan);
    return st;
}

/* Two cl_contexts on CPU devices that share host memory (two clb_contexts on
   one PoCL device): the source's host bytes wrapped in a buffer of dst's
   cl_context (CL_MEM_USE_HOST_PTR, no copy) and dst's copy kernel from there,
   on every core: 44 -> ~90 % of the device's copy bandwidth against one
   memcpy on the calling thread (issue 32, bench_interop). Blocking, as the
   memcpy was: the source may be released or overwritten once this returns.
   *done stays false when dst cannot wrap the bytes (the caller then copies on
   the host). */
static clb_status wrapped_copy(clb_context *dst, cl_mem dmem, size_t dst_offset,
                               unsigned char *host, size_t nbytes, bool *done)
{
    clb__cl_context *d = impl_of(dst);
    cl_int err = CL_SUCCESS;
    cl_mem wrap = clCreateBuffer(d->context, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, nbytes, host,
                                 &err);
    if (err != CL_SUCCESS || !wrap) return CLB_OK;
    clb_status st = kernel_copy(dst, dmem, dst_offset, wrap, 0, nbytes);
    if (st == CLB_OK) {
        err = clFinish(d->queue);
        if (err != CL_SUCCESS) st = clb__cl_fail(err, "clFinish");
    }
    clReleaseMemObject(wrap);
    *done = st == CLB_OK;
    return st;
}

/* Bytes from another OpenCL context's storage. One cl_context (two clb_contexts on
   the application's context): the copy kernel on dst's queue after a marker of
   src's queue, and src's queue waits for the copy before its later commands
   (which may overwrite the source). Otherwise, when the host can
   read the source in place (SVM storage of a CPU device, or a mapping of
   host-visible memory): dst's copy kernel from the wrapped bytes where dst's
   storage is host memory too (wrapped_copy), else one blocking write into dst
   from there. */
static clb_status cl_copy_from(clb_context *dst, void *dst_handle, size_t dst_offset,
                               clb_context *src, void *src_handle, size_t src_offset,
                               size_t nbytes, bool *done)
{
    clb__cl_context *d = impl_of(dst), *s = impl_of(src);
    cl_mem dmem = (cl_mem)dst_handle, smem = (cl_mem)src_handle;
    clb_status st = CLB_OK;
    cl_int err = CL_SUCCESS;
    cl_event marker = NULL, copied = NULL;
    *done = false;
    if (nbytes == 0) {
        *done = true;
        return CLB_OK;
    }
    if (d->context == s->context) {
        /* The library's copy kernel on dst's queue reads the source buffer directly
           (one cl_context): faster than clEnqueueCopyBuffer on PoCL (55 % of the
           device's copy bandwidth against the kernel's ~90 %, bench_interop). */
        if (d->queue != s->queue) {
            /* dst's queue waits for what src's queue has so far (the source's writes) */
            err = clEnqueueMarkerWithWaitList(s->queue, 0, NULL, &marker);
            /* flushed before anything waits on it: an unflushed marker never completes */
            if (err == CL_SUCCESS) err = clFlush(s->queue);
            if (err == CL_SUCCESS) err = clEnqueueBarrierWithWaitList(d->queue, 1, &marker, NULL);
            CLB_CL_CHECK(err, "clEnqueueMarkerWithWaitList / clEnqueueBarrierWithWaitList");
        }
        CLB_TRY(kernel_copy(dst, dmem, dst_offset, smem, src_offset, nbytes));
        if (d->queue != s->queue) {
            /* and src's later commands (which may overwrite the source) wait for the copy */
            CLB_CL_CHECK(clEnqueueMarkerWithWaitList(d->queue, 0, NULL, &copied),
                         "clEnqueueMarkerWithWaitList");
            CLB_CL_CHECK(clFlush(d->queue), "clFlush");
            CLB_CL_CHECK(clEnqueueBarrierWithWaitList(s->queue, 1, &copied, NULL),
                         "clEnqueueBarrierWithWaitList");
            CLB_CL_CHECK(clFlush(s->queue), "clFlush");
        }
        *done = true;
        goto cleanup;
    }
    unsigned char *host = clb__buffer_host_ptr(&s->buffers, smem);
    if (host) {
        CLB_CL_CHECK(clFinish(s->queue), "clFinish");
        if (d->buffers.svm) CLB_TRY(wrapped_copy(dst, dmem, dst_offset, host + src_offset, nbytes, done));
        if (!*done) CLB_TRY(clb__buffer_write(&d->buffers, dmem, dst_offset, host + src_offset, nbytes));
        *done = true;
        goto cleanup;
    }
    if (s->buffers.zero_copy) {
        void *ptr = clEnqueueMapBuffer(s->queue, smem, CL_TRUE, CL_MAP_READ, src_offset, nbytes, 0,
                                       NULL, NULL, &err);
        CLB_CL_CHECK(err, "clEnqueueMapBuffer");
        st = clb__buffer_write(&d->buffers, dmem, dst_offset, ptr, nbytes);
        err = clEnqueueUnmapMemObject(s->queue, smem, ptr, 0, NULL, NULL);
        if (st != CLB_OK) goto cleanup;
        CLB_CL_CHECK(err, "clEnqueueUnmapMemObject");
        *done = true;
    }
cleanup:
    if (marker) clReleaseEvent(marker);
    if (copied) clReleaseEvent(copied);
    return st;
}

static bool cl_eval_hoists(const clb_context *ctx)
{
    return ctx->info.type == CLB_DEVICE_CPU;
}

static const clb__backend cl_backend = {
    .name = "opencl",
    .destroy = cl_destroy,
    .finish = cl_finish,
    .alloc = cl_alloc,
    .free = cl_free,
    .free_wrapped = cl_free_wrapped,
    .memory_of = cl_memory_of,
    .write = cl_write,
    .read = cl_read,
    .copy = clb__cl_copy,
    .map = clb__cl_map,
    .reduce = clb__cl_reduce,
    .argreduce = clb__cl_argreduce,
    .matmul = clb__cl_matmul,
    .eval = clb__expr_cl_run,
    .eval_hoists = cl_eval_hoists,
    .eval_reduce = clb__cl_eval_reduce,
    .eval_moments = clb__cl_eval_moments,
    .eval_online = clb__cl_eval_online,
    .softmax_rows = clb__cl_softmax_rows,
    .copy_from = cl_copy_from,
    .generate = clb__cl_generate,
    .gather = clb__cl_gather,
    .scan = clb__cl_scan,
    .sort = clb__cl_sort,
    .topk = clb__cl_topk,
    .compact = clb__cl_compact,
#if CLB_HAVE_CLBLAST
    .matmul_tune = clb__cl_matmul_tune,
#endif
};
