/* What the expression entry points share (op_eval.c): clb_eval, clb_eval_into
 * and clb_eval_reduce (op_stats.c). */
#ifndef CLB_OP_EVAL_H
#define CLB_OP_EVAL_H

#include "expr.h"

/* Checks ctx, the expression text and the n named inputs (each a valid tensor
   on ctx), then parses and types the expression into *expr (NULL on failure;
   the message names fn). */
clb_status clb__eval_prepare(const char *fn, clb_context *ctx, const char *text, int n,
                             const char *const *names, const clb_tensor *const *inputs,
                             clb__expr **expr);

/* A typed expression over n inputs on ctx into a new tensor of the inputs' broadcast
   shape (clb_binary_scalar's power with a constant exponent). */
clb_status clb__eval_typed(const char *fn, clb_context *ctx, clb__expr *e, int n,
                           const clb_tensor *const *inputs, clb_tensor **out);

#endif /* CLB_OP_EVAL_H */
