/* Element-wise expressions for clb_eval: the parser, the typing and the
 * rewrites of the tree (core/expr_tree.h holds its types, which the backend
 * table names). A parsed, typed tree that the host
 * interpreter (host_expr.c) and the OpenCL code generator (cl_expr.c) both walk,
 * so the grammar and the type rules exist once.
 *
 * Nodes live in one array in post-order: every node's arguments come before it
 * and the root is last, so evaluating the array front to back is evaluating the
 * tree. Python literals are folded with Python's own arithmetic while parsing
 * (`x * (2 + 3)` holds the constant 5) and stay "weak" until typing gives them
 * the dtype NumPy 2 would (NEP 50). */
#ifndef CLB_EXPR_H
#define CLB_EXPR_H

#include "expr_tree.h"
#include "host_scalar.h"

#include <stdbool.h>
#include <stdint.h>

/* Parses `text` over the input names (n of them, each an identifier). On failure:
   CLB_ERR_INVALID_ARGUMENT with the column and a caret line. *out is heap-allocated;
   free it with clb__expr_free. `fn` names the API function in messages. */
clb_status clb__expr_parse(const char *fn, const char *text, int n, const char *const *names,
                           clb__expr **out);
void clb__expr_free(clb__expr *e); /* NULL-safe */

/* NumPy 2 dtypes through the tree for inputs of `dtypes`: fills every node's
   dtype/compute and resolves weak literals. CLB_ERR_DTYPE (with a caret under the
   operator) for a combination the op does not support; CLB_ERR_INVALID_ARGUMENT for
   a Python int that does not fit the integer dtype it meets (NumPy's OverflowError). */
clb_status clb__expr_type(const char *fn, clb__expr *e, const clb_dtype *dtypes);

/* Called by clb__expr_type: powers with a constant exponent of 0, 1, 2, 3, 4, -1, -2,
   0.5 or -0.5 as products, sqrt and reciprocals (never pow; x ** 2 is x * x bit for
   bit), casts of constants as constants. The tree may become a DAG (a node read by
   two others). */
clb_status clb__expr_rewrite(const char *fn, clb__expr *e);


/* Records `fmt` as the error, followed by the expression and a caret under
   `column`; returns st. */
clb_status clb__expr_fail_at(clb_status st, const char *fn, const char *text, int column,
                             const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* Picks maximal subtrees of e whose inputs broadcast to at most 1/8 of out_numel
   elements (n inputs of ndims/shapes), as many as free input slots allow. Each
   becomes subs[j] (a standalone expression over the same n inputs, of which it
   reads those in masks[j]) and, in e, an input n + j. *count = 0: e unchanged. */
clb_status clb__expr_hoist(clb__expr *e, int n, const int *ndims, const int64_t *const *shapes,
                           int64_t out_numel, clb__expr **subs, uint32_t *masks, int *count);

#endif /* CLB_EXPR_H */
