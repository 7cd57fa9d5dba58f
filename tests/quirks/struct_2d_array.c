/* Avoided by design (cl/launch_args.h: launch descriptions are long16
 * vectors, not structs). rusticl (Mesa 22.3.6) takes a by-value struct that
 * holds a 2-D array as if the array had one row: clSetKernelArg accepts only
 * a smaller size than the host's sizeof, and the kernel reads zeros for the
 * later rows.
 *
 * usage: struct_2d_array PLATFORM   (exit 0 absent, 1 present, 77 no device) */
#include "repro.h"

typedef struct s2 {
    cl_long head;
    cl_long table[4][8];
} s2;

static const char *source =
    "typedef struct s2 { long head; long table[4][8]; } s2;\n"
    "__kernel void k(__global long *out, s2 a)\n"
    "{\n"
    "    out[0] = a.head;\n"
    "    out[1] = a.table[3][7];\n"
    "    out[2] = (long)sizeof(s2);\n"
    "}\n";

static int check(repro *r)
{
    s2 a;
    a.head = 7;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++) a.table[i][j] = 100 + 8 * i + j;
    cl_long got[3] = {0};
    cl_mem out = repro_buffer(r, sizeof got, NULL);
    size_t n = 1;
    clSetKernelArg(r->kernel, 0, sizeof out, &out);
    cl_int err = clSetKernelArg(r->kernel, 1, sizeof a, &a);
    if (err != CL_SUCCESS) {
        printf("clSetKernelArg(%zu bytes) -> %d; ", sizeof a, err);
        return 1;
    }
    if (clEnqueueNDRangeKernel(r->queue, r->kernel, 1, NULL, &n, NULL, 0, NULL, NULL) != CL_SUCCESS ||
        clEnqueueReadBuffer(r->queue, out, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL) != CL_SUCCESS)
        return 1;
    return !(got[0] == 7 && got[1] == 131 && got[2] == (cl_long)sizeof a);
}

int main(int argc, char **argv)
{
    puts("quirk: none (avoided by design)");
    repro_run(argc > 1 ? argv[1] : "", source, "by-value struct holding a 2-D array", check);
}
