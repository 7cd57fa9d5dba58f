/* The device's float32 FMA peak as `clb bench` measures it (cli/peaks/peaks.cl's
   peak_fma, peak_fma4 and peak_fma16: independent mad chains, 2 flops each, the
   fastest of the three counting), as a harness case, so that a benchmark can
   time it in the same rounds as the library's matmul: raw OpenCL on a context
   of its own, outside the library. Launched as clb bench launches it (the
   driver picks the work-group size), with 2^31 flops a run, the work of
   bench_matmul's GEMMs. On a loaded machine its runs vary more than the
   GEMMs' (PoCL's pick is a few large work-groups, which a core held by
   another process delays): compare fastest runs there. */
#ifndef CLB_BENCH_FMA_REF_H
#define CLB_BENCH_FMA_REF_H

#include "clbroadcast.h"

#include <CL/cl.h>
#include <stddef.h>

typedef struct clbb_fma {
    cl_context context;
    cl_command_queue queue;
    cl_program program;
    cl_kernel kernel; /* the fastest of the three */
    cl_mem out;
    size_t global;    /* work items per run: 2^31 flops */
    double flops;     /* per run */
    char name[32];    /* the kernel's name */
} clbb_fma;

/* Opens the OpenCL device named `device_name` (the library context's), builds
   the peak kernels and picks and calibrates the fastest; 0 on success. */
int clbb_fma_open(const char *device_name, clbb_fma *f);
/* One run, ending with clFinish (a clbb_run_fn taking the clbb_fma). */
clb_status clbb_fma_run(void *fma);
void clbb_fma_close(clbb_fma *f);

#endif /* CLB_BENCH_FMA_REF_H */
