/* Quirk "tanh-inf" (src/opencl/cl_quirks.c). PoCL 3.1's float tanh gives
 * +-0.99999994 for +-inf (and for every |x| past about 9, where the float
 * nearest tanh(x) is 1): IEEE 754, C99 Annex F and the array API standard want
 * tanh(+-inf) = +-1. The library's kernels return copysign(1, x) for |x| > 20
 * (cl/scalar_ops.cl), so the entry has no build option.
 *
 * usage: tanh_inf PLATFORM   (exit 0 absent, 1 present, 77 no device) */
#include "repro.h"

#include <math.h>

static const char *source =
    "__kernel void k(__global float *out, __global const float *x)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    out[i] = tanh(x[i]);\n"
    "}\n";

static int check(repro *r)
{
    const float in[2] = {INFINITY, -INFINITY}, want[2] = {1.0f, -1.0f};
    float got[2] = {0};
    cl_mem x = repro_buffer(r, sizeof in, in), out = repro_buffer(r, sizeof got, NULL);
    size_t n = 2;
    clSetKernelArg(r->kernel, 0, sizeof out, &out);
    clSetKernelArg(r->kernel, 1, sizeof x, &x);
    if (clEnqueueNDRangeKernel(r->queue, r->kernel, 1, NULL, &n, NULL, 0, NULL, NULL) != CL_SUCCESS ||
        clEnqueueReadBuffer(r->queue, out, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL) != CL_SUCCESS)
        return 1;
    printf("tanh(+-inf) = %.9g, %.9g\n", got[0], got[1]);
    return got[0] != want[0] || got[1] != want[1];
}

int main(int argc, char **argv)
{
    puts("quirk: tanh-inf");
    repro_run(argc > 1 ? argv[1] : "", source, "float tanh(+-inf) is +-1", check);
}
