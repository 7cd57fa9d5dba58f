/* Quirk "nan-sat-select" (src/opencl/cl_quirks.c). llvmpipe (Mesa 22.3.6 rusticl,
 * LLVM 15) crashes compiling a float -> char saturating conversion that is
 * selected against NaN: `isnan(x) ? (char)0 : convert_char_sat(x)`. The same
 * conversion without the select, or to short or uchar, works.
 *
 * usage: nan_sat_select PLATFORM   (exit 0 absent, 1 present, 77 no device) */
#include "repro.h"

static const char *source =
    "__kernel void k(__global char *out, __global const float *x)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    float v = x[i];\n"
    "    out[i] = isnan(v) ? (char)0 : convert_char_sat(v);\n"
    "}\n";

static int check(repro *r)
{
    float in[4] = {-300.0f, 1.75f, 200.0f, 0.0f};
    in[3] = in[3] / in[3]; /* NaN */
    const signed char want[4] = {-128, 1, 127, 0};
    signed char got[4] = {0};
    cl_mem x = repro_buffer(r, sizeof in, in), out = repro_buffer(r, sizeof got, NULL);
    size_t n = 4;
    clSetKernelArg(r->kernel, 0, sizeof out, &out);
    clSetKernelArg(r->kernel, 1, sizeof x, &x);
    if (clEnqueueNDRangeKernel(r->queue, r->kernel, 1, NULL, &n, NULL, 0, NULL, NULL) != CL_SUCCESS ||
        clEnqueueReadBuffer(r->queue, out, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL) != CL_SUCCESS)
        return 1;
    return memcmp(got, want, sizeof want) != 0;
}

int main(int argc, char **argv)
{
    puts("quirk: nan-sat-select");
    repro_run(argc > 1 ? argv[1] : "", source, "float -> char saturating conversion selected against NaN", check);
}
