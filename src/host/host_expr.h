/* The host's block evaluator (host_expr.c) for folds over an expression
 * (clb_eval_reduce, var/std, softmax's statistics, clb_reduce: host_reduce.c). */
#ifndef CLB_EXPR_HOST_H
#define CLB_EXPR_HOST_H

#include "expr.h"

/* A run of n values of the expression (of the root's dtype): value j is stored
   at vals + j * vstride elements and belongs to the plan position whose operand
   0 offset is out_offset + j * out_stride. Runs come in plan order. */
typedef void (*clb__expr_sink_fn)(void *user, int64_t out_offset, int64_t out_stride, int64_t n,
                                  const char *vals, int64_t vstride);

/* Evaluates e in blocks over the plan (operand 0 is not read; operand k+1 is
   input k, whose dtype its INPUT nodes carry; handles are host pointers) and
   hands the values to sink, run by run. */
clb_status clb__expr_host_blocks(const clb__expr *e, const clb__plan *plan, void *const *handles,
                                 clb__expr_sink_fn sink, void *user);

/* Host evaluation over a plan: operand 0 is the output (dtype out), operand k+1 is
   input k (dtype in[k]); handles are host pointers. */
clb_status clb__expr_host_run(const clb__expr *e, const clb__plan *plan, void *const *handles,
                              clb_dtype out, const clb_dtype *in);

#endif /* CLB_EXPR_HOST_H */
