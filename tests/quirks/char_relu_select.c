/* Avoided by design (cl/scalar_ops.cl writes integer relu as `x > 0 ? x : 0`).
 * llvmpipe (Mesa 22.3.6 rusticl, LLVM 15) crashes (SIGSEGV in LLVM's type
 * legalization) compiling the select of a char against 0, `x < 0 ? (char)0 : x`
 * (int8 relu). The same select on short, int or uchar works, and so do
 * `x > 0 ? x : 0`, `x >= 0 ? x : 0` and max(x, (char)0). Found by
 * tests/test_scalar_rules.c.
 *
 * usage: char_relu_select PLATFORM   (exit 0 absent, 1 present, 77 no device) */
#include "repro.h"

static const char *source =
    "__kernel void k(__global char *out, __global const char *x)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    char v = x[i];\n"
    "    out[i] = v < 0 ? (char)0 : v;\n"
    "}\n";

static int check(repro *r)
{
    const signed char in[4] = {-128, -1, 0, 127};
    const signed char want[4] = {0, 0, 0, 127};
    signed char got[4] = {1, 1, 1, 1};
    cl_mem x = repro_buffer(r, sizeof in, (void *)in), out = repro_buffer(r, sizeof got, NULL);
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
    puts("quirk: none (avoided by design)");
    repro_run(argc > 1 ? argv[1] : "", source, "char selected against 0 (int8 relu)", check);
}
