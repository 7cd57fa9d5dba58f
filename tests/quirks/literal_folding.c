/* Quirk "literal-folding" (src/opencl/cl_quirks.c). llvmpipe (Mesa 22.3.6 rusticl,
 * LLVM 15) folds float operations on literal constants as if there were no
 * infinities and no signed zeros: `x / 0.0f` gives 0 where IEEE 754 gives +-inf,
 * and `0.0f * x` gives +0 for a negative x (IEEE: -0). The same operations on
 * values known only at run time are right. Found by clb_var's count -
 * correction = 0 case (tests/test_stats.c) and tests/test_scalar_rules.c.
 *
 * usage: literal_folding PLATFORM   (exit 0 absent, 1 present, 77 no device) */
#include "repro.h"

#include <math.h>
static const char *source =
    "__kernel void k(__global float *out, __global const float *x)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    float v = x[i];\n"
    "    out[i] = v / as_float(0x00000000U);\n"
    "    out[4 + i] = as_float(0x00000000U) * v;\n"
    "}\n";
static int check(repro *r)
{
    float in[4] = {1.0f, -2.0f, 0.25f, 3.0f};
    float got[8] = {0};
    cl_mem x = repro_buffer(r, sizeof in, in), out = repro_buffer(r, sizeof got, NULL);
    size_t n = 4;
    clSetKernelArg(r->kernel, 0, sizeof out, &out);
    clSetKernelArg(r->kernel, 1, sizeof x, &x);
    if (clEnqueueNDRangeKernel(r->queue, r->kernel, 1, NULL, &n, NULL, 0, NULL, NULL) != CL_SUCCESS ||
        clEnqueueReadBuffer(r->queue, out, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL) != CL_SUCCESS)
        return 1;
    printf("x / 0 = %g %g %g %g, 0 * -2 = %g; ", got[0], got[1], got[2], got[3], got[5]);
    return !(isinf(got[0]) && got[0] > 0 && isinf(got[1]) && got[1] < 0 && signbit(got[5]));
}
int main(int argc, char **argv)
{
    puts("quirk: literal-folding");
    repro_run(argc > 1 ? argv[1] : "", source, "float operations folded on literals", check);
}
