/* Quirk "loop-limit" (src/opencl/cl_quirks.c). llvmpipe (Mesa 22.3.6 rusticl) stops
 * the loops of a work item after 65535 iterations in all, without any error:
 * one work item summing 2^20 ones returns 65535, and two loops of 40000 in a row
 * run 65535 iterations between them (the second stops after 25535). Nested
 * loops count every inner iteration, library loops included (libclc's fmod
 * loops once per bit of exponent difference).
 *
 * usage: loop_limit PLATFORM   (exit 0 absent, 1 present, 77 no device) */
#include "repro.h"

static const char *source =
    "__kernel void k(__global float *out, __global const float *x, int n)\n"
    "{\n"
    "    float s = 0;\n"
    "    for (int i = 0; i < n; i++) s += x[i];\n"
    "    out[0] = s;\n"
    "    float t = 0;\n"
    "    for (int i = 0; i < 40000; i++) t += x[i];\n"
    "    for (int i = 0; i < 40000; i++) t += x[i];\n"
    "    out[1] = t;\n"
    "}\n";

static int check(repro *r)
{
    enum { N = 1 << 20 };
    static float ones[N];
    for (int i = 0; i < N; i++) ones[i] = 1.0f;
    float got[2] = {0, 0};
    cl_int n = N;
    cl_mem x = repro_buffer(r, sizeof ones, ones), out = repro_buffer(r, sizeof got, NULL);
    size_t one = 1;
    clSetKernelArg(r->kernel, 0, sizeof out, &out);
    clSetKernelArg(r->kernel, 1, sizeof x, &x);
    clSetKernelArg(r->kernel, 2, sizeof n, &n);
    if (clEnqueueNDRangeKernel(r->queue, r->kernel, 1, NULL, &one, NULL, 0, NULL, NULL) != CL_SUCCESS ||
        clEnqueueReadBuffer(r->queue, out, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL) != CL_SUCCESS)
        return 1;
    printf("sum of %d ones in one work item = %.0f, two loops of 40000 = %.0f; ", N, got[0], got[1]);
    return got[0] != (float)N || got[1] != 80000.0f;
}

int main(int argc, char **argv)
{
    puts("quirk: loop-limit");
    repro_run(argc > 1 ? argv[1] : "", source, "loops of more than 65535 iterations", check);
}
