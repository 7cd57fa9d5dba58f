/* The OpenCL backend's side of matmul tuning (cl_matmul_tune.c): CLBlast's
 * library name, the cached tuning applied on a device's first float matmul,
 * and what the search (op_matmul_tune.c) hands CLBlast. The file format and
 * the types are cl_tuning_file.h's. */
#ifndef CLB_CL_MATMUL_TUNE_H
#define CLB_CL_MATMUL_TUNE_H

#include "cl_tuning_file.h"

/* The CLBlast library in use ("libclblast.so.1.5.3"), for identities. */
const char *clb__mm_clblast_version(void);

/* The dispatcher's question, for a float GEMM on an OpenCL context: on the first
   call per device and dtype in this process it loads the cached tuning and hands
   its overrides to CLBlast; CLB__MM_CHOICE_NONE without one, or when the
   context's CLB_MATMUL_TUNING is "off". Thread-safe. */
clb__mm_choice clb__mm_tuning_choice(clb_context *ctx, clb_dtype dtype);
/* Makes the next call per device and dtype read the cache file again (tests).
   That CLBlast holds parameters of ours is remembered: it keeps them. */
void clb__mm_tuning_forget(void);

#if CLB_HAVE_OPENCL && CLB_HAVE_CLBLAST
/* For the search, on an OpenCL context: whether this process already replaced
   CLBlast's defaults for the device and dtype; */
clb_status clb__mm_overridden(clb_context *ctx, clb_dtype dtype, bool *overridden);
/* hands CLBlast a candidate (0, or CLBlast's status code when it refuses); */
int clb__mm_override(clb_context *ctx, clb_dtype dtype, const clb__mm_params *p);
/* and records its verdict: the winner's parameters stay applied (best may be
   NULL), and the device's matmuls follow `choice` from now on. */
void clb__mm_settle(clb_context *ctx, clb_dtype dtype, const clb__mm_params *best,
                    clb__mm_choice choice);
#endif

#endif /* CLB_CL_MATMUL_TUNE_H */
