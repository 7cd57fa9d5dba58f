/* Driver of cl/generate.cl: full, arange, linspace and the random draws, one
 * work item an element, in pieces of at most 2^30 work items. The parameters
 * come from src/ops/op_generate.c as bit patterns (clb__gen_op.a). */
#include "cl_generate.h"

#include "cl_errors.h"
#include "cl_launch.h"
#include "dtype.h"
#include "fault.h"
#include "cl_kernels.h"

#include "../../cl/random.h"

#define PIECE ((int64_t)1 << 30)
/* Units (16-byte stores) a work item writes before its one fence, with
   streaming stores: 4 KiB, few enough for a loop-limited device. */
#define BLOCK 256
/* The same for the 8-call draws' units (128-byte stores): 2 KiB. */
#define BLOCK8 16

/* full writes a bit pattern: one program per item size, not per dtype. */
static clb_dtype program_dtype(const clb__gen_op *op)
{
    if (op->kind != CLB__GEN_FULL) return op->dtype;
    switch (clb_dtype_size(op->dtype)) {
    case 1: return CLB_UINT8;
    case 2: return CLB_UINT16;
    case 4: return CLB_UINT32;
    default: return CLB_UINT64;
    }
}

clb_status clb__cl_generate(clb_context *ctx, const clb__gen_op *op, void *handle)
{
    static const char *const what[] = {"clb_full", "clb_arange", "clb_linspace",
                                       "clb_random_uniform", "clb_random_normal"};
    clb_status st = CLB_OK;
    clb__cl_context *cl = clb__cl_impl(ctx);
    cl_program program = NULL;
    clb__cl_kernel *k = NULL; /* cached; the cache stays locked until the launches are enqueued */
    cl_int err = CL_SUCCESS;
    if (op->numel == 0) return CLB_OK;
    if (op->dtype == CLB_FLOAT64 && op->kind != CLB__GEN_FULL && !ctx->info.has_fp64)
        return clb__fail(CLB_ERR_DTYPE,
                         "%s: float64 values need float64 arithmetic, which OpenCL device %s does "
                         "not support (no cl_khr_fp64); use float32 or the host backend",
                         what[op->kind], ctx->info.name);
    /* 16-byte stores: full always; float32 arange and linspace, and float32 uniform
       draws whose offset keeps the groups aligned, where stores stream. */
    const bool nt = clb__cl_streaming(cl, op->numel * (int64_t)clb_dtype_size(op->dtype));
    /* float32 draws at an offset that keeps the groups aligned: 8 Philox calls
       (32 elements) a work item on uint8 lanes, SIMD on a CPU device. */
    const bool v8 = op->dtype == CLB_FLOAT32 && op->a[1] % 4 == 0 &&
                    (op->kind == CLB__GEN_UNIFORM || op->kind == CLB__GEN_NORMAL);
    const bool vec4 = op->kind == CLB__GEN_FULL ||
                      (nt && op->dtype == CLB_FLOAT32 &&
                       (op->kind == CLB__GEN_ARANGE || op->kind == CLB__GEN_LINSPACE));
    clb__kernel_define defs[] = {{"CLB_GEN", op->kind},
                                 {"CLB_OUT_DTYPE", program_dtype(op)},
                                 {"CLB_GEN_F64", op->kind == CLB__GEN_LINSPACE && op->f64},
                                 {"CLB_GEN_VEC4", vec4},
                                 {"CLB_GEN_V8", v8},
                                 {"CLB_GEN_NT", nt && (vec4 || v8)},
                                 {"CLB_GEN_BLOCK", nt && vec4 ? BLOCK : nt && v8 ? BLOCK8 : 1}};
    char options[CLB__KERNEL_OPTIONS_MAX];
    CLB_TRY(clb__kernel_options(defs, 7, options, sizeof options));
    CLB_TRY(clb__program_cache_get(cl->programs, CLB__KERNEL_GENERATE, options, &program));
    CLB_TRY(clb__cl_kernel_for(cl, CLB__KERNEL_GENERATE, program, 0,
                               clb__kernel_function(CLB__KERNEL_GENERATE), &k));
    cl_kernel kernel = k->kernel;
    err = clSetKernelArg(kernel, 0, sizeof(cl_mem), &handle);
    for (cl_uint i = 0; i < 6 && err == CL_SUCCESS; i++)
        err = clSetKernelArg(kernel, 3 + i, sizeof(cl_ulong), &op->a[i]);
    const cl_ulong total = (cl_ulong)op->numel;
    if (err == CL_SUCCESS) err = clSetKernelArg(kernel, 9, sizeof total, &total);
    CLB_CL_CHECK(err, "clSetKernelArg");
    /* The draws run a work item per group of elements that share a Philox call. */
    int64_t items = op->numel;
    if (op->kind == CLB__GEN_FULL) /* 16-byte chunks and one item for the tail */
        items = op->numel * (int64_t)clb_dtype_size(op->dtype) / 16 + 1;
    else if (vec4)
        items = (op->numel + 3) / 4;
    else if (v8)
        items = (op->numel + 31) / 32;
    else if (op->kind == CLB__GEN_UNIFORM || op->kind == CLB__GEN_NORMAL) {
        int64_t g = clb_rng_group(op->kind == CLB__GEN_NORMAL, op->dtype == CLB_FLOAT64);
        items = ((int64_t)(op->a[1] % (uint64_t)g) + op->numel + g - 1) / g;
    }
    for (int64_t base = 0; base < items; base += PIECE) {
        int64_t left = items - base;
        cl_ulong b = (cl_ulong)base, n = (cl_ulong)(left < PIECE ? left : PIECE);
        const cl_ulong per = nt && vec4 ? BLOCK : nt && v8 ? BLOCK8 : 1;
        size_t global = (size_t)((n + per - 1) / per + 63) / 64 * 64;
        err = clSetKernelArg(kernel, 1, sizeof b, &b);
        if (err == CL_SUCCESS) err = clSetKernelArg(kernel, 2, sizeof n, &n);
        CLB_CL_CHECK(err, "clSetKernelArg");
        err = clEnqueueNDRangeKernel(cl->queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL);
        if (CLB__FAULT(CLB__FAULT_ENQUEUE)) err = CL_OUT_OF_RESOURCES;
        CLB_CL_CHECK(err, "clEnqueueNDRangeKernel");
    }
cleanup:
    if (k) clb__cl_kernel_unlock(cl);
    return st;
}
