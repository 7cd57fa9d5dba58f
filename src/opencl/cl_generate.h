/* The OpenCL backend's generate slot (backend.h's clb__gen_op, cl/generate.cl). */
#ifndef CLB_CL_GENERATE_H
#define CLB_CL_GENERATE_H

#include "backend.h"

clb_status clb__cl_generate(clb_context *ctx, const clb__gen_op *op, void *handle);

#endif /* CLB_CL_GENERATE_H */
