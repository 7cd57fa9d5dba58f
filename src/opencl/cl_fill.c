/* The library's own buffer fills, through cl/fill.cl (see cl_launch.h):
 * clEnqueueFillBuffer is never called, as NVIDIA's driver gets large fills
 * wrong (issue 26). */
#include "cl_launch.h"

#include "cl_errors.h"
#include "internal.h"
#include "cl_kernels.h"
#include "cl_program_cache.h"

#define FILL_BLOCK 256 /* bytes a work item writes: cl/fill.cl's CLB_FILL_BLOCK */

clb_status clb__cl_fill(clb__cl_context *cl, cl_mem mem, size_t offset, size_t nbytes,
                        unsigned char value)
{
    clb_status st = CLB_OK;
    cl_program program = NULL;
    clb__cl_kernel *k = NULL;
    if (nbytes == 0) return CLB_OK;
    CLB_TRY(clb__program_cache_get(cl->programs, CLB__KERNEL_FILL, "", &program));
    CLB_TRY(clb__cl_kernel_for(cl, CLB__KERNEL_FILL, program, 0,
                               clb__kernel_function(CLB__KERNEL_FILL), &k));
    const cl_ulong first = offset, n = nbytes;
    const cl_uchar v = value;
    CLB_TRY(clb__cl_set_mem(k, 0, mem));
    CLB_TRY(clb__cl_set_arg(k, 1, sizeof first, &first));
    CLB_TRY(clb__cl_set_arg(k, 2, sizeof n, &n));
    CLB_TRY(clb__cl_set_arg(k, 3, sizeof v, &v));
    size_t items = (nbytes + FILL_BLOCK - 1) / FILL_BLOCK;
    CLB_CL_CHECK(clEnqueueNDRangeKernel(cl->queue, k->kernel, 1, NULL, &items, NULL, 0, NULL,
                                        NULL),
                 "clEnqueueNDRangeKernel");
cleanup:
    if (k) clb__cl_kernel_unlock(cl);
    return st;
}
