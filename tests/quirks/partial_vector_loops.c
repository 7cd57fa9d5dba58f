/* Quirk "partial-vector-loops" (src/opencl/cl_quirks.c). llvmpipe (Mesa 22.3.6
 * rusticl, LLVM 15) runs the work items of a work-group as the lanes of 8-wide
 * SIMD vectors. In a vector that the group fills only in part (a group of 1,
 * 2, 3 or 12 items: the last vector of every group whose size is not a
 * multiple of 8), once a loop's exit has depended on a value read from memory
 * (here a step from a __constant buffer), every later loop of the work item
 * stops after its first iteration: below, b counts n iterations of a plain
 * loop and comes back 1. Groups of 8, 16 or 24 items are right, and so is an
 * early `return` of some items of a full group. The same kernel with the step
 * as a kernel argument, or with no loop before, is right.
 *
 * clb_eval_reduce's CPU walks (cl/eval_reduce.cl, CLB_TREE=0) read the reduced
 * extent from their __constant stride table and ran one work item per group
 * where forced on llvmpipe: every output but the last few summed only the
 * first of its lanes' pairwise steps. The library launches them there in
 * groups of whole vectors (src/opencl/cl_eval_reduce.c).
 *
 * usage: partial_vector_loops PLATFORM   (exit 0 absent, 1 present, 77 no device) */
#include "repro.h"

static const char *source =
    "__kernel void k(__global int *out, __constant const int *step, int n)\n"
    "{\n"
    "    int a = 0, b = 0;\n"
    "    for (int i = 0; i < n; i += step[0]) a++;\n"
    "    for (int i = 0; i < n; i++) b++;\n"
    "    out[get_global_id(0)] = a * 1000 + b;\n"
    "}\n";

/* The kernel over `items` work items in groups of `group`: whether every one
   counted 1 step of 16 and 16 plain iterations. */
static int run(repro *r, size_t items, size_t group)
{
    const cl_int step = 16, n = 16;
    cl_int got[24] = {0};
    cl_mem s = repro_buffer(r, sizeof step, &step), out = repro_buffer(r, sizeof got, NULL);
    clSetKernelArg(r->kernel, 0, sizeof out, &out);
    clSetKernelArg(r->kernel, 1, sizeof s, &s);
    clSetKernelArg(r->kernel, 2, sizeof n, &n);
    if (clEnqueueNDRangeKernel(r->queue, r->kernel, 1, NULL, &items, &group, 0, NULL, NULL) !=
            CL_SUCCESS ||
        clEnqueueReadBuffer(r->queue, out, CL_TRUE, 0, items * sizeof got[0], got, 0, NULL,
                            NULL) != CL_SUCCESS)
        return 1;
    int bad = 0;
    for (size_t i = 0; i < items; i++) bad += got[i] != 1016;
    printf("groups of %zu: %d of %zu work items wrong (item 0: %d, want 1016); ", group, bad,
           items, got[0]);
    clReleaseMemObject(s);
    clReleaseMemObject(out);
    return bad != 0;
}

static int check(repro *r)
{
    int full = run(r, 24, 8), part = run(r, 3, 1);
    return full || part;
}

int main(int argc, char **argv)
{
    puts("quirk: partial-vector-loops");
    repro_run(argc > 1 ? argv[1] : "", source,
              "loops after a loop with a memory-dependent exit, in a partly filled SIMD vector",
              check);
}
