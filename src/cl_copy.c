/* Driver of cl/copy.cl: strided copy / cast over a plan. */
#include "cl_launch.h"

#include "cl_errors.h"
#include "dtype.h"
#include "kernels.h"

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
    *wide = !clb__cl_fits_int32(plan);
    clb__kernel_define defs[] = {{"CLB_SRC_DTYPE", src},
                                 {"CLB_DST_DTYPE", dst},
                                 {"CLB_NDIM", plan->ndim},
                                 {"CLB_INDEX64", *wide}};
    char options[CLB__KERNEL_OPTIONS_MAX];
    clb_status st = clb__kernel_options(defs, (int)(sizeof defs / sizeof defs[0]), options,
                                        sizeof options);
    if (st != CLB_OK) return st;
    return clb__program_cache_get(clb__cl_impl(ctx)->programs, CLB__KERNEL_COPY, options, program);
}

clb_status clb__cl_copy(clb_context *ctx, const clb__plan *plan, void *const *handles,
                          const clb_dtype *dtypes)
{
    clb_status st = CLB_OK;
    clb__cl_context *cl = clb__cl_impl(ctx);
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
    CLB_TRY(clb__cl_set_table_args(cl, kernel, plan, wide, arg, &table));
    CLB_TRY(clb__cl_launch(cl, kernel, plan->numel));

cleanup:
    /* Queued commands hold their own references: releasing here is safe. */
    if (kernel) clReleaseKernel(kernel);
    if (table) clReleaseMemObject(table);
    return st;
}
