/* The OpenCL backend: one cl_context and one in-order queue per clb_context.
 * The in-order queue is what makes the library's ordering model simple:
 * kernels, transfers and maps run in submission order, so no events are
 * created or waited on anywhere, and blocking reads see all earlier work.
 *
 * This file holds the context's lifetime and storage; each operation has its
 * own driver (cl_copy.c, cl_map.c, cl_reduce.c, cl_matmul.c) over the launch
 * helpers of cl_launch.c. */
#include "backend.h"

#include "backend_cl.h"
#include "cl_launch.h"
#include "buffer.h"
#include "cl_errors.h"
#include "cl_quirks.h"
#include "device_cl.h"
#include "expr.h"
#include "kernels.h"
#include "program_cache.h"

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
    if (cl->context) clReleaseContext(cl->context);
    free(cl);
}

/* A CPU device that shares fine-grained SVM buffers with the host: its storage
   can be host memory both sides use (buffer.c). */
static bool has_fine_grain_svm(const clb_context *ctx, cl_device_id device)
{
    cl_device_svm_capabilities caps = 0;
    if (ctx->info.type != CLB_DEVICE_CPU ||
        clGetDeviceInfo(device, CL_DEVICE_SVM_CAPABILITIES, sizeof caps, &caps, NULL) != CL_SUCCESS)
        return false;
    return (caps & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) != 0;
}


clb_status clb__cl_context_init(clb_context *ctx, int device_index)
{
    clb_status st = CLB_OK;
    cl_platform_id platform = NULL;
    cl_int err = CL_SUCCESS;
    clb__cl_context *cl = calloc(1, sizeof *cl);
    if (!cl) CLB_FAIL(CLB_ERR_OUT_OF_MEMORY, "out of host memory creating an OpenCL context");
    CLB_TRY(clb__cl_device_lookup(device_index, &platform, &cl->device, &ctx->info));

    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    cl->context = clCreateContext(props, 1, &cl->device, NULL, NULL, &err);
    CLB_CL_CHECK(err, "clCreateContext");
    cl->queue = clCreateCommandQueue(cl->context, cl->device, 0, &err);
    CLB_CL_CHECK(err, "clCreateCommandQueue");

    /* One entry per work-item dimension (at least 3); only the first is used. */
    size_t sizes[16] = {0}, sizes_len = 0;
    err = clGetDeviceInfo(cl->device, CL_DEVICE_MAX_WORK_ITEM_SIZES, 0, NULL, &sizes_len);
    if (err == CL_SUCCESS && (sizes_len == 0 || sizes_len > sizeof sizes)) err = CL_INVALID_VALUE;
    if (err == CL_SUCCESS)
        err = clGetDeviceInfo(cl->device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizes_len, sizes, NULL);
    CLB_CL_CHECK(err, "clGetDeviceInfo(CL_DEVICE_MAX_WORK_ITEM_SIZES)");
    cl->max_item_size = sizes[0] ? sizes[0] : 1;

    cl->buffers.context = cl->context;
    cl->buffers.queue = cl->queue;
    cl->buffers.zero_copy = ctx->info.host_unified_memory != 0;
    cl->buffers.svm = has_fine_grain_svm(ctx, cl->device);
    /* The largest map cl_map.c runs on the calling thread instead of launching
       a kernel: CLB_HOST_TINY elements (0 turns it off; the tests do, to
       exercise the kernels on small shapes), by default 8192, where a typed
       host loop takes about as long as the ~2 us a launch costs PoCL. */
    cl->host_tiny_max = cl->buffers.svm ? ctx->options.host_tiny : 0;
    cl->buffers.max_alloc = ctx->info.max_alloc_bytes;
    cl->buffers.device_name = ctx->info.name; /* ctx outlives its impl */
    CLB_TRY(clb__program_cache_create(cl->context, cl->device, &ctx->info, &cl->programs));
    cl->quirks = clb__quirk_mask(ctx->info.platform, ctx->info.driver_version);
    cl->loops = clb__cl_launch_style(ctx->info.type, ctx->info.platform, cl->quirks);
    cl->max_trips = cl->quirks & CLB__QUIRK_LOOP_LIMIT ? CLB__QUIRK_LOOP_TRIPS / 2 : INT64_MAX;
    CLB_TRY(clb__cl_kernel_cache_create(cl->device, cl->loops, &cl->kernels));

    ctx->backend = &cl_backend;
    ctx->impl = cl;
    cl = NULL;

cleanup:
    release_impl(cl);
    return st;
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

static clb_status cl_alloc(clb_context *ctx, size_t nbytes, void **handle)
{
    cl_mem mem = NULL;
    clb_status st = clb__buffer_alloc(&impl_of(ctx)->buffers, nbytes, &mem);
    *handle = mem;
    return st;
}

static void cl_free(clb_context *ctx, void *handle)
{
    (void)ctx;
    clb__buffer_free((cl_mem)handle);
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
    .write = cl_write,
    .read = cl_read,
    .copy = clb__cl_copy,
    .map = clb__cl_map,
    .reduce = clb__cl_reduce,
    .argreduce = clb__cl_argreduce,
    .matmul = clb__cl_matmul,
    .eval = clb__expr_cl_run,
    .eval_hoists = cl_eval_hoists,
};
