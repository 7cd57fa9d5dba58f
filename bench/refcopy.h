/* Raw OpenCL reference kernels of the benchmarks (bench/ref_kernels.cl): what
   "the device's copy bandwidth" and "a bare kernel launch" mean in their
   reports, BabelStream-style, outside the library. Two copies: a plain float4
   copy, and the same with streaming (non-temporal) stores where the compiler
   has them, the device's true streaming limit on a CPU. */
#ifndef CLB_BENCH_REFCOPY_H
#define CLB_BENCH_REFCOPY_H

#include "clbroadcast.h"

#include <CL/cl.h>
#include <stddef.h>

typedef struct clbb_ref {
    cl_context context;
    cl_command_queue queue;
    cl_program program;
    cl_kernel copy, copy_stream, empty, empty_args;
    cl_mem arg_buffer; /* the buffer empty_args gets for all four of its buffers */
} clbb_ref;

/* Opens the first OpenCL device whose name is `device_name` (the library
   context's device) and builds the reference kernels; 0 on success. */
int clbb_ref_open(const char *device_name, clbb_ref *r);
void clbb_ref_close(clbb_ref *r);

/* One reference copy kernel over two buffers of `bytes` bytes, as a harness case
   (clbb_ref_copy_run is a clbb_run_fn taking the clbb_ref_copy). */
typedef struct clbb_ref_copy {
    clbb_ref *r;
    cl_kernel kernel;
    cl_mem src, dst;
    size_t global;
} clbb_ref_copy;
int clbb_ref_copy_setup(clbb_ref *r, cl_kernel kernel, size_t bytes, clbb_ref_copy *c);
clb_status clbb_ref_copy_run(void *copy);
void clbb_ref_copy_close(clbb_ref_copy *c);

/* Seconds per call of `calls` empty-kernel enqueues followed by one clFinish:
   with_args 0 a kernel without arguments, 1 one with clb_map's argument list
   (set once) launched as clb_map launches a small tensor (2-D, one item). */
double clbb_ref_empty_per_call(clbb_ref *r, int calls, int with_args);

#endif /* CLB_BENCH_REFCOPY_H */
