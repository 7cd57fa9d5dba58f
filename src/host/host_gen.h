/* The host backend's generate slot (backend.h's clb__gen_op). */
#ifndef CLB_GEN_HOST_H
#define CLB_GEN_HOST_H

#include "backend.h"

clb_status clb__host_generate(clb_context *ctx, const clb__gen_op *op, void *handle);

#endif /* CLB_GEN_HOST_H */
