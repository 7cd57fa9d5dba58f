/* Avoided by design (cl/launch_args.h: kernels copy their launch description
 * into a private array with constant offsets). llvmpipe (Mesa 22.3.6 rusticl,
 * LLVM 15) crashes (SIGSEGV in LLVMBuildExtractElement) running a kernel that
 * indexes a by-value struct argument with a loop variable.
 *
 * usage: struct_arg_index PLATFORM   (exit 0 absent, 1 present, 77 no device) */
#include "repro.h"

typedef struct s1 {
    cl_long v[8];
} s1;

static const char *source =
    "typedef struct s1 { long v[8]; } s1;\n"
    "__kernel void k(__global long *out, s1 a, int n)\n"
    "{\n"
    "    for (int i = 0; i < n; i++) out[i] = a.v[i];\n"
    "}\n";

static int check(repro *r)
{
    s1 a;
    for (int i = 0; i < 8; i++) a.v[i] = 100 + i;
    cl_long got[8] = {0};
    cl_int n = 8;
    cl_mem out = repro_buffer(r, sizeof got, NULL);
    size_t one = 1;
    clSetKernelArg(r->kernel, 0, sizeof out, &out);
    clSetKernelArg(r->kernel, 1, sizeof a, &a);
    clSetKernelArg(r->kernel, 2, sizeof n, &n);
    if (clEnqueueNDRangeKernel(r->queue, r->kernel, 1, NULL, &one, NULL, 0, NULL, NULL) != CL_SUCCESS ||
        clEnqueueReadBuffer(r->queue, out, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL) != CL_SUCCESS)
        return 1;
    return memcmp(got, a.v, sizeof got) != 0;
}

int main(int argc, char **argv)
{
    puts("quirk: none (avoided by design)");
    repro_run(argc > 1 ? argv[1] : "", source, "by-value struct argument indexed by a loop variable", check);
}
