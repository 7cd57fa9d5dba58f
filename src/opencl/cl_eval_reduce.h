/* clb_eval_reduce on OpenCL (cl_eval_reduce.c over cl/eval_reduce.cl) and the
 * part of clb_eval's code generator (cl_expr.c) it shares. */
#ifndef CLB_CL_EVAL_REDUCE_H
#define CLB_CL_EVAL_REDUCE_H

#include "backend.h"
#include "expr.h"

/* The backend's eval_reduce slot (backend.h). */
clb_status clb__cl_eval_reduce(clb_context *ctx, const clb__expr *e, const clb__reduce_op *op,
                               const clb__plan *plan, void *const *handles, const clb_dtype *in);

/* The backend's eval_moments slot (backend.h). */
clb_status clb__cl_eval_moments(clb_context *ctx, const clb__expr *e, const clb__moments_op *op,
                                const clb__plan *plan, void *const *handles, const clb_dtype *in);

/* The backend's eval_online slot (backend.h). */
clb_status clb__cl_eval_online(clb_context *ctx, const clb__expr *e, const clb__reduce_op *op,
                               const clb__plan *plan, void *const *handles, const clb_dtype *in);

/* The backend's softmax_rows slot (backend.h). */
clb_status clb__cl_softmax_rows(clb_context *ctx, const clb__softmax_rows_op *op,
                                void *const *handles, bool *done);

/* " -DCLB_USE_<dt>=1 ... -DCLB_EVAL_BODY=<statements>" for e: cl/eval.cl's
   statements, ending in CLB_RESULT(value) with the value in the expression's
   dtype; *defines is malloc'd. CLB_ERR_DTYPE (naming fn) for float64 arithmetic
   on a device without cl_khr_fp64. */
clb_status clb__expr_cl_body(clb_context *ctx, const char *fn, const clb__expr *e, char **defines);
/* Loop iterations e's scalar rules may cost per element (clb__cl_op_trips). */
int64_t clb__expr_cl_trips(const clb__expr *e);

#endif /* CLB_CL_EVAL_REDUCE_H */
