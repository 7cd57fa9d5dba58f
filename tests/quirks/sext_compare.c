/* Quirk "sext-compare" (src/opencl/cl_quirks.c). llvmpipe (Mesa 22.3.6 rusticl,
 * LLVM 15) miscompiles a signed ordering comparison with a constant of a 64-bit
 * value sign-extended from 32 bits: for long x = (long)a[i] with a[i] = -7,
 * `x < 0` is false and `x > 0` true, as if x had been zero-extended; `x == -7`,
 * `x < y` against another variable, `x % y`, `x / y` and `(x ^ y) < 0` are
 * right. Python's floor division -7 // 2 written the usual way,
 * `q = x / y; if (x % y != 0 && (x < 0) != (y < 0)) q--;`, gives -3. The
 * library's kernels test signs as `(x ^ y) < 0` and `(~y >> 63) & 1` instead
 * (cl/scalar_ops.cl), which every device computes right, so the entry has no
 * build option.
 *
 * usage: sext_compare PLATFORM   (exit 0 absent, 1 present, 77 no device) */
#include "repro.h"

static const char *source =
    "__kernel void k(__global long *out, __global const int *a, __global const long *b)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    long x = (long)a[i], y = b[i];\n"
    "    long q = x / y;\n"
    "    if ((x % y) != 0 && ((x < 0) != (y < 0))) q--;\n"
    "    out[i] = q;\n"
    "}\n";

static int check(repro *r)
{
    const cl_int a[4] = {-7, 7, -8, 9};
    const cl_long b[4] = {2, -2, 3, 4};
    const cl_long want[4] = {-4, -4, -3, 2}; /* Python: -7 // 2, 7 // -2, -8 // 3, 9 // 4 */
    cl_long got[4] = {0};
    cl_mem ma = repro_buffer(r, sizeof a, a), mb = repro_buffer(r, sizeof b, b);
    cl_mem out = repro_buffer(r, sizeof got, NULL);
    size_t n = 4;
    clSetKernelArg(r->kernel, 0, sizeof out, &out);
    clSetKernelArg(r->kernel, 1, sizeof ma, &ma);
    clSetKernelArg(r->kernel, 2, sizeof mb, &mb);
    if (clEnqueueNDRangeKernel(r->queue, r->kernel, 1, NULL, &n, NULL, 0, NULL, NULL) != CL_SUCCESS ||
        clEnqueueReadBuffer(r->queue, out, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL) != CL_SUCCESS)
        return 1;
    printf("(long)int // long: got %lld %lld %lld %lld, want -4 -4 -3 2\n", (long long)got[0],
           (long long)got[1], (long long)got[2], (long long)got[3]);
    return memcmp(got, want, sizeof want) != 0;
}

int main(int argc, char **argv)
{
    puts("quirk: sext-compare");
    repro_run(argc > 1 ? argv[1] : "", source,
              "signed comparison with a constant of a value sign-extended from 32 to 64 bits",
              check);
}
