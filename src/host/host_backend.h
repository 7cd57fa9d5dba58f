/* The host backend's slots that live in files of their own (host_backend.c
 * holds the table): the reductions (host_reduce.c) and matmul (host_matmul.c). */
#ifndef CLB_BACKEND_HOST_H
#define CLB_BACKEND_HOST_H

#include "backend.h"

struct clb__expr;

clb_status clb__host_reduce(clb_context *ctx, const clb__reduce_op *op, const clb__plan *plan,
                            void *const *handles);
clb_status clb__host_eval_reduce(clb_context *ctx, const struct clb__expr *e,
                                 const clb__reduce_op *op, const clb__plan *plan,
                                 void *const *handles, const clb_dtype *in);
clb_status clb__host_eval_moments(clb_context *ctx, const struct clb__expr *e,
                                  const clb__moments_op *op, const clb__plan *plan,
                                  void *const *handles, const clb_dtype *in);
clb_status clb__host_eval_online(clb_context *ctx, const struct clb__expr *e,
                                 const clb__reduce_op *op, const clb__plan *plan,
                                 void *const *handles, const clb_dtype *in);
/* 1 (default): float32/float64 matmul through CBLAS where the build has it;
   tests set 0 to run the blocked loop instead and compare the two. */
extern _Atomic int clb__host_blas_enabled;
clb_status clb__host_matmul(clb_context *ctx, const clb__matmul_op *op, void *const *handles);

#endif /* CLB_BACKEND_HOST_H */
