/* The host interpreter's values one position at a time (expr_host.c), for
 * folds over an expression (clb_eval_reduce, backend_host.c). */
#ifndef CLB_EXPR_HOST_H
#define CLB_EXPR_HOST_H

#include "expr.h"

/* Called at every plan position with the operands' offsets and the expression's
   value there (of the root's dtype). */
typedef void (*clb__expr_sink_fn)(const int64_t *offsets, clb__value v, void *user);

/* Evaluates e at every position of the plan (operand 0 is not read; operand k+1
   is input k, dtype in[k]; handles are host pointers) and hands each value to sink. */
clb_status clb__expr_host_each(const clb__expr *e, const clb__plan *plan, void *const *handles,
                               const clb_dtype *in, clb__expr_sink_fn sink, void *user);

#endif /* CLB_EXPR_HOST_H */
