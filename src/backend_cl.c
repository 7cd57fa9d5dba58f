/* The OpenCL backend: one cl_context and one in-order queue per clb_context.
 * The in-order queue is what makes the library's ordering model simple:
 * kernels, transfers and maps run in submission order, so no events are
 * created or waited on anywhere, and blocking reads see all earlier work.
 *
 * In this milestone the backend copies and casts (cl/copy.cl); element-wise
 * maps, reductions and matmul answer CLB_ERR_UNSUPPORTED with a message
 * instead of computing anything. */
#include "backend.h"

#include "backend_cl.h"
#include "buffer.h"
#include "cl_errors.h"
#include "device_cl.h"
#include "kernels.h"
#include "program_cache.h"

#include <stdlib.h>
#include <string.h>

typedef struct clb__cl_context {
    cl_context context;
    cl_command_queue queue;
    cl_device_id device;
    size_t max_item_size; /* CL_DEVICE_MAX_WORK_ITEM_SIZES[0] */
    clb__buffer_env buffers;
    clb__program_cache *programs;
} clb__cl_context;

static const clb__backend cl_backend;

static clb__cl_context *impl_of(clb_context *ctx)
{
    return (clb__cl_context *)ctx->impl;
}

clb__program_cache *clb__cl_context_programs(const clb_context *ctx)
{
    return ctx && ctx->backend == &cl_backend ? ((clb__cl_context *)ctx->impl)->programs : NULL;
}

/* ---- lifetime ------------------------------------------------------------------ */

static void release_impl(clb__cl_context *cl)
{
    if (!cl) return;
    clb__program_cache_destroy(cl->programs);
    if (cl->queue) {
        clFinish(cl->queue);
        clReleaseCommandQueue(cl->queue);
    }
    if (cl->context) clReleaseContext(cl->context);
    free(cl);
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
    cl->buffers.max_alloc = ctx->info.max_alloc_bytes;
    cl->buffers.device_name = ctx->info.name; /* ctx outlives its impl */
    CLB_TRY(clb__program_cache_create(cl->context, cl->device, &ctx->info, &cl->programs));

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

/* ---- copy --------------------------------------------------------------------------- */

#define BYVAL_DIMS 8 /* must equal CLB_BYVAL_DIMS in cl/copy.cl */

/* Copies without a value conversion move bits: same dtype, or integers of one
   width (narrowing/sign changes wrap, which is bit identity). They run as the
   unsigned integer of that width, so four programs serve all of them, NaN
   payloads survive, and float64 views can be materialised even on devices
   without cl_khr_fp64. */
static bool is_bit_copy(clb_dtype dst, clb_dtype src)
{
    bool dst_int = dst >= CLB_INT8 && dst <= CLB_UINT64;
    bool src_int = src >= CLB_INT8 && src <= CLB_UINT64;
    return dst == src || (dst_int && src_int && clb_dtype_size(dst) == clb_dtype_size(src));
}

static clb_dtype bits_dtype(size_t size)
{
    return size == 1 ? CLB_UINT8 : size == 2 ? CLB_UINT16 : size == 4 ? CLB_UINT32 : CLB_UINT64;
}

/* Whether every element id and every offset the kernel computes fits in 32 bits. */
static bool fits_int32(const clb__plan *plan)
{
    if (plan->numel > INT32_MAX) return false;
    for (int k = 0; k < plan->nops; k++) {
        int64_t lo = plan->offsets[k], hi = plan->offsets[k];
        for (int d = 0; d < plan->ndim; d++) {
            int64_t span = (plan->shape[d] - 1) * plan->strides[k][d];
            if (span > 0) hi += span;
            else lo += span;
        }
        if (lo < 0 || hi > INT32_MAX) return false;
    }
    return true;
}

/* Work-group size: a few times the kernel's SIMD width (so each compute unit
   has several warps/wavefronts to switch between), within what the kernel and
   the device allow, and no larger than the work rounded up to that width. */
static clb_status pick_local_size(const clb__cl_context *cl, cl_kernel kernel, int64_t numel,
                                  size_t *out)
{
    size_t multiple = 1, kernel_max = 1;
    cl_int err = clGetKernelWorkGroupInfo(kernel, cl->device,
                                          CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                          sizeof multiple, &multiple, NULL);
    if (err != CL_SUCCESS)
        return clb__cl_fail(err, "clGetKernelWorkGroupInfo(CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE)");
    err = clGetKernelWorkGroupInfo(kernel, cl->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kernel_max,
                                   &kernel_max, NULL);
    if (err != CL_SUCCESS)
        return clb__cl_fail(err, "clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE)");
    if (multiple == 0) multiple = 1;
    size_t limit = kernel_max < cl->max_item_size ? kernel_max : cl->max_item_size;
    if (limit == 0) limit = 1;
    size_t local = multiple * 8;
    size_t needed = ((size_t)numel + multiple - 1) / multiple * multiple;
    if (local > needed) local = needed;
    if (local > limit) local = limit >= multiple ? limit / multiple * multiple : limit;
    *out = local ? local : 1;
    return CLB_OK;
}

/* The program for a copy from dtypes[1] to dtypes[0] over `plan`, and whether it
   indexes in 64 bits. */
static clb_status copy_program(clb_context *ctx, const clb__plan *plan, const clb_dtype *dtypes,
                               cl_program *program, bool *wide)
{
    clb_dtype dst = dtypes[0], src = dtypes[1];
    if (is_bit_copy(dst, src)) {
        dst = src = bits_dtype(clb_dtype_size(dtypes[0]));
    } else if ((dst == CLB_FLOAT64 || src == CLB_FLOAT64) && !ctx->info.has_fp64) {
        return clb__fail(CLB_ERR_DTYPE,
                         "casting %s to %s needs float64 arithmetic, which OpenCL device %s does "
                         "not support (no cl_khr_fp64)",
                         clb_dtype_name(dtypes[1]), clb_dtype_name(dtypes[0]), ctx->info.name);
    }
    *wide = !fits_int32(plan);
    clb__kernel_define defs[] = {{"CLB_SRC_DTYPE", src},
                                 {"CLB_DST_DTYPE", dst},
                                 {"CLB_NDIM", plan->ndim},
                                 {"CLB_INDEX64", *wide}};
    char options[CLB__KERNEL_OPTIONS_MAX];
    clb_status st = clb__kernel_options(defs, (int)(sizeof defs / sizeof defs[0]), options,
                                        sizeof options);
    if (st != CLB_OK) return st;
    return clb__program_cache_get(impl_of(ctx)->programs, CLB__KERNEL_COPY, options, program);
}

/* Sets the shape/stride table arguments from `arg` on (see cl/copy.cl for why
   two ways). *table receives the buffer of the large-rank way, for the caller
   to release. */
static clb_status set_table_args(clb__cl_context *cl, cl_kernel kernel, const clb__plan *plan,
                                 bool wide, cl_uint arg, cl_mem *table)
{
    clb_status st = CLB_OK;
    cl_int err = CL_SUCCESS;
    int ndim = plan->ndim;
    void *host_table = NULL;
    if (ndim <= BYVAL_DIMS) {
        /* Three 8-lane vectors; unused lanes are an empty axis (size 1, stride 0). */
        cl_long8 v64[3];
        cl_int8 v32[3];
        for (int d = 0; d < BYVAL_DIMS; d++) {
            cl_long vals[3] = {d < ndim ? plan->shape[d] : 1, d < ndim ? plan->strides[0][d] : 0,
                               d < ndim ? plan->strides[1][d] : 0};
            for (int t = 0; t < 3; t++) {
                v64[t].s[d] = vals[t];
                v32[t].s[d] = (cl_int)vals[t];
            }
        }
        for (int t = 0; t < 3 && err == CL_SUCCESS; t++)
            err = wide ? clSetKernelArg(kernel, arg++, sizeof(cl_long8), &v64[t])
                       : clSetKernelArg(kernel, arg++, sizeof(cl_int8), &v32[t]);
        CLB_CL_CHECK(err, "clSetKernelArg");
        return CLB_OK;
    }
    /* [shape | dst strides | src strides] in the kernel's index type. */
    size_t n = 3 * (size_t)ndim, isz = wide ? sizeof(cl_long) : sizeof(cl_int);
    host_table = malloc(n * isz);
    if (!host_table) CLB_FAIL(CLB_ERR_OUT_OF_MEMORY, "out of host memory for a copy launch");
    for (int d = 0; d < ndim; d++) {
        int64_t vals[3] = {plan->shape[d], plan->strides[0][d], plan->strides[1][d]};
        for (int t = 0; t < 3; t++) {
            size_t at = (size_t)t * (size_t)ndim + (size_t)d;
            if (wide) ((cl_long *)host_table)[at] = vals[t];
            else ((cl_int *)host_table)[at] = (cl_int)vals[t];
        }
    }
    *table = clCreateBuffer(cl->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * isz,
                            host_table, &err);
    CLB_CL_CHECK(err, "clCreateBuffer");
    CLB_CL_CHECK(clSetKernelArg(kernel, arg, sizeof(cl_mem), table), "clSetKernelArg");
cleanup:
    free(host_table);
    return st;
}

/* Enqueues numel work items in pieces of at most 2^30, so no device's global-size
   limit is met; get_global_id includes the piece's offset. */
static clb_status launch(clb__cl_context *cl, cl_kernel kernel, int64_t numel)
{
    size_t local = 0;
    clb_status st = pick_local_size(cl, kernel, numel, &local);
    if (st != CLB_OK) return st;
    size_t piece = ((size_t)1 << 30) / local * local;
    size_t total = ((size_t)numel + local - 1) / local * local;
    for (size_t start = 0; start < total; start += piece) {
        size_t global = total - start < piece ? total - start : piece;
        cl_int err =
            clEnqueueNDRangeKernel(cl->queue, kernel, 1, &start, &global, &local, 0, NULL, NULL);
        if (err != CL_SUCCESS) return clb__cl_fail(err, "clEnqueueNDRangeKernel");
    }
    return CLB_OK;
}

static clb_status cl_copy(clb_context *ctx, const clb__plan *plan, void *const *handles,
                          const clb_dtype *dtypes)
{
    clb_status st = CLB_OK;
    clb__cl_context *cl = impl_of(ctx);
    cl_program program = NULL;
    cl_kernel kernel = NULL;
    cl_mem table = NULL;
    cl_int err = CL_SUCCESS;
    bool wide = false;
    if (plan->numel == 0) return CLB_OK;

    CLB_TRY(copy_program(ctx, plan, dtypes, &program, &wide));
    /* A kernel object per launch: setting arguments is not thread-safe on a
       shared kernel, and creating one from a built program is cheap. */
    kernel = clCreateKernel(program, clb__kernel_function(CLB__KERNEL_COPY), &err);
    CLB_CL_CHECK(err, "clCreateKernel");

    /* dst, src, then numel and the two offsets in the kernel's index type. */
    cl_mem mems[2] = {(cl_mem)handles[0], (cl_mem)handles[1]};
    cl_long scalars[3] = {plan->numel, plan->offsets[0], plan->offsets[1]};
    cl_uint arg = 0;
    err = clSetKernelArg(kernel, arg++, sizeof(cl_mem), &mems[0]);
    if (err == CL_SUCCESS) err = clSetKernelArg(kernel, arg++, sizeof(cl_mem), &mems[1]);
    for (int i = 0; i < 3 && err == CL_SUCCESS; i++) {
        cl_int narrow = (cl_int)scalars[i];
        err = wide ? clSetKernelArg(kernel, arg++, sizeof(cl_long), &scalars[i])
                   : clSetKernelArg(kernel, arg++, sizeof(cl_int), &narrow);
    }
    CLB_CL_CHECK(err, "clSetKernelArg");
    CLB_TRY(set_table_args(cl, kernel, plan, wide, arg, &table));
    CLB_TRY(launch(cl, kernel, plan->numel));

cleanup:
    /* Queued commands hold their own references: releasing here is safe. */
    if (kernel) clReleaseKernel(kernel);
    if (table) clReleaseMemObject(table);
    return st;
}

/* ---- not in this milestone ----------------------------------------------------------------- */

static clb_status cl_map(clb_context *ctx, const clb__map_op *op, const clb__plan *plan,
                         void *const *handles)
{
    (void)op, (void)plan, (void)handles;
    return clb__fail(CLB_ERR_UNSUPPORTED,
                     "element-wise operations are not yet available on OpenCL device %s in this "
                     "version; use the host backend (selector \"host\")",
                     ctx->info.name);
}

static clb_status cl_reduce(clb_context *ctx, const clb__reduce_op *op, const clb__plan *plan,
                            void *const *handles)
{
    (void)op, (void)plan, (void)handles;
    return clb__fail(CLB_ERR_UNSUPPORTED,
                     "reductions are not yet available on OpenCL device %s in this version; use "
                     "the host backend (selector \"host\")",
                     ctx->info.name);
}

static clb_status cl_matmul(clb_context *ctx, const clb__matmul_op *op, void *const *handles)
{
    (void)op, (void)handles;
    return clb__fail(CLB_ERR_UNSUPPORTED,
                     "matmul is not yet available on OpenCL device %s in this version; use the "
                     "host backend (selector \"host\")",
                     ctx->info.name);
}

static const clb__backend cl_backend = {
    .name = "opencl",
    .destroy = cl_destroy,
    .finish = cl_finish,
    .alloc = cl_alloc,
    .free = cl_free,
    .write = cl_write,
    .read = cl_read,
    .copy = cl_copy,
    .map = cl_map,
    .reduce = cl_reduce,
    .matmul = cl_matmul,
};
