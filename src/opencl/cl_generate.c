/* Driver of cl/generate.cl: full, arange and linspace a work item an element
 * (or 64 bytes), in pieces of at most 2^30 work items; the random draws a
 * work item a Philox call (or a block of 16 on vector lanes), on a (lanes,
 * blocks) grid. The parameters come from src/ops/op_generate.c as bit patterns
 * (clb__gen_op.a). */
#include "cl_generate.h"

#include "cl_args.h"
#include "cl_errors.h"
#include "cl_launch.h"
#include "dtype.h"
#include "fault.h"
#include "cl_kernels.h"

#include "../../cl/random.h"

#define PIECE ((int64_t)1 << 30)
/* Units (64-byte stores) a work item writes before its one fence, with
   streaming stores: 16 KiB, few enough for a loop-limited device. */
#define BLOCK 256
/* Blocks of draws a work-group row takes at most (cl/random.h's lanes): 256
   blocks of 16 lanes are 4096 work items, PoCL's work-group limit. */
#define DRAW_ROWS 256

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

/* full, arange, linspace: a work item a unit (an element, or 64 bytes). */
static clb_status launch_units(clb__cl_context *cl, clb__cl_kernel *k, clb__cl_args *args,
                               const clb__gen_op *op, bool nt, bool vec4)
{
    clb_status st = CLB_OK;
    cl_int err = CL_SUCCESS;
    int64_t items = op->numel;
    if (op->kind == CLB__GEN_FULL) /* 64-byte chunks and one item for the tail */
        items = op->numel * (int64_t)clb_dtype_size(op->dtype) / 64 + 1;
    else if (vec4)
        items = (op->numel + 15) / 16;
    const cl_ulong per = nt && vec4 ? BLOCK : 1;
    for (int64_t base = 0; base < items; base += PIECE) {
        int64_t left = items - base;
        cl_ulong n = (cl_ulong)(left < PIECE ? left : PIECE);
        size_t global = (size_t)((n + per - 1) / per + 63) / 64 * 64;
        args->v[CLB_GEN_BASE] = base, args->v[CLB_GEN_N] = (cl_long)n;
        CLB_TRY(clb__cl_set_args(k, CLB__KERNEL_GENERATE, 1, args));
        /* streaming blocks: work-groups of 64 items, so a core that falls behind
           (a shared machine) leaves many groups to the others, not half the work */
        size_t local = 64;
        err = clEnqueueNDRangeKernel(cl->queue, k->kernel, 1, NULL, &global,
                                     per > 1 && k->wg_max >= 64 ? &local : NULL, 0, NULL, NULL);
        if (CLB__FAULT(CLB__FAULT_ENQUEUE)) err = CL_OUT_OF_RESOURCES;
        CLB_CL_CHECK(err, "clEnqueueNDRangeKernel");
    }
cleanup:
    return st;
}

/* The draws: work item (l, t) runs lane l of block t (cl/random.h), a
   work-group (LANES, rows) with as many rows as the kernel's work-group limit
   allows (at most DRAW_ROWS), the blocks padded to whole rows; with `lanes`
   (clb_random_v), work item t runs blocks 2t and 2t + 1, the work-group the
   runtime's. */
static clb_status launch_draw(clb__cl_context *cl, clb__cl_kernel *k, clb__cl_args *args,
                              const clb__gen_op *op, bool lanes)
{
    clb_status st = CLB_OK;
    cl_int err = CL_SUCCESS;
    const int64_t per = (int64_t)CLB_RNG_LANES *
                        clb_rng_group(op->kind == CLB__GEN_NORMAL, op->dtype == CLB_FLOAT64);
    /* the blocks from the one holding the first element to the one holding the last */
    const int64_t blocks = (int64_t)((op->a[1] + (uint64_t)op->numel - 1) / (uint64_t)per -
                                     op->a[1] / (uint64_t)per) + 1;
    size_t rows = k->wg_max / CLB_RNG_LANES;
    if (rows > DRAW_ROWS) rows = DRAW_ROWS;
    if (!lanes && rows < 1)
        return clb__fail(CLB_ERR_OPENCL, "clb_random_*: the device's work-group limit (%zu) "
                                   "is below the %d lanes of a draw", k->wg_max, CLB_RNG_LANES);
    for (int64_t base = 0; base < blocks; base += PIECE) {
        int64_t left = blocks - base;
        cl_ulong n = (cl_ulong)(left < PIECE ? left : PIECE);
        size_t global[2] = {CLB_RNG_LANES, (size_t)(n + rows - 1) / rows * rows};
        size_t local[2] = {CLB_RNG_LANES, rows};
        if (lanes) global[0] = (size_t)((n + 1) / 2 + 63) / 64 * 64;
        args->v[CLB_GEN_BASE] = base, args->v[CLB_GEN_N] = (cl_long)n;
        CLB_TRY(clb__cl_set_args(k, CLB__KERNEL_GENERATE, 1, args));
        err = clEnqueueNDRangeKernel(cl->queue, k->kernel, lanes ? 1 : 2, NULL, global,
                                     lanes ? NULL : local, 0, NULL, NULL);
        if (CLB__FAULT(CLB__FAULT_ENQUEUE)) err = CL_OUT_OF_RESOURCES;
        CLB_CL_CHECK(err, "clEnqueueNDRangeKernel");
    }
cleanup:
    return st;
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
    /* Wide stores: full (64 bytes) always; float32 arange and linspace (64) where stores stream. */
    const bool nt = clb__cl_streaming(cl, op->numel * (int64_t)clb_dtype_size(op->dtype));
    const bool draw = op->kind == CLB__GEN_UNIFORM || op->kind == CLB__GEN_NORMAL;
    /* float32 and float16 draws where a work-group is a loop on one core
       (PoCL's CPU devices): two blocks a work item on 16 vector lanes
       (clb_random_v; float16 2^24 uniform 83 -> ~4 ms); elsewhere a call a work
       item (clb_random; on llvmpipe, which runs work items on SIMD lanes
       itself, 1.3x faster than the lanes form). Tests force either form
       through clb__cl_map_blocked. */
    const bool lanes = draw && (op->dtype == CLB_FLOAT32 || op->dtype == CLB_FLOAT16) &&
                       (clb__cl_map_blocked >= 0 ? clb__cl_map_blocked != 0 : cl->loops);
    const bool vec4 = op->kind == CLB__GEN_FULL ||
                      (nt && op->dtype == CLB_FLOAT32 &&
                       (op->kind == CLB__GEN_ARANGE || op->kind == CLB__GEN_LINSPACE));
    /* 32-bit element indices in the vector forms (cl/generate.cl's CLB_GEN_IDX32)
       unless the last vector's last index needs 64 (clb__cl_index64). */
    clb__cl_reach reach = {0, 0};
    clb__cl_reach_add(&reach, op->numel + 15);
    const bool idx32 = vec4 && !clb__cl_index64(&reach, 0);
    clb__kernel_define defs[] = {{"CLB_GEN", op->kind},
                                 {"CLB_OUT_DTYPE", program_dtype(op)},
                                 {"CLB_GEN_F64", op->kind == CLB__GEN_LINSPACE && op->f64},
                                 {"CLB_GEN_VEC4", vec4},
                                 {"CLB_GEN_NT", nt && vec4},
                                 {"CLB_GEN_BLOCK", nt && vec4 ? BLOCK : 1},
                                 {"CLB_GEN_IDX32", idx32},
                                 {"CLB_RNG_BUILTIN_SQRT", draw && cl->loops},
                                 /* float16: unfused, the host's bits after rounding */
                                 {"CLB_V_FMA", draw && cl->loops && op->dtype == CLB_FLOAT32},
                                 {"CLB_OWN_MATH", cl->own_math && op->dtype == CLB_FLOAT16}};
    char options[CLB__KERNEL_OPTIONS_MAX];
    CLB_TRY(clb__kernel_options(defs, (int)(sizeof defs / sizeof defs[0]), options, sizeof options));
    CLB_TRY(clb__program_cache_get(cl->programs, CLB__KERNEL_GENERATE, options, &program));
    CLB_TRY(clb__cl_check_args(cl, CLB__KERNEL_GENERATE, program));
    CLB_TRY(clb__cl_kernel_for(cl, CLB__KERNEL_GENERATE, program, draw + lanes,
                               lanes  ? "clb_random_v"
                               : draw ? "clb_random"
                                      : clb__kernel_function(CLB__KERNEL_GENERATE),
                               &k));
    /* The output by clSetKernelArg every call (a new buffer may reuse a released
       one's handle); the description, set per piece, after it. */
    err = clSetKernelArg(k->kernel, 0, sizeof(cl_mem), &handle);
    CLB_CL_CHECK(err, "clSetKernelArg");
    clb__cl_args args = {{0}};
    for (int i = 0; i < 6; i++) args.v[CLB_GEN_A(i)] = (cl_long)op->a[i];
    args.v[CLB_GEN_TOTAL] = op->numel;
    if (draw) CLB_TRY(launch_draw(cl, k, &args, op, lanes));
    else CLB_TRY(launch_units(cl, k, &args, op, nt, vec4));
cleanup:
    if (k) clb__cl_kernel_unlock(cl);
    return st;
}
