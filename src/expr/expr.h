/* Element-wise expressions for clb_eval: a parsed, typed tree that the host
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

#include "clbroadcast.h"
#include "host_scalar.h"
#include "plan.h"

#include <stdbool.h>
#include <stdint.h>

#define CLB__EVAL_MAX_INPUTS CLB_EVAL_MAX_INPUTS /* plan operands: the output + these */
_Static_assert(CLB__EVAL_MAX_INPUTS + 1 <= CLB__MAX_OPERANDS, "a plan must hold every input");
#define CLB__EXPR_MAX_NODES 512
/* The longest expression text, in bytes: positions and columns are ints, and
   512 nodes never need more (issue 26, finding 3: a text past INT_MAX bytes
   once made the parser read out of bounds). */
#define CLB__EXPR_MAX_TEXT (1 << 20)
#define CLB__EXPR_MAX_DEPTH 100 /* parentheses, calls and prefix operators nest at most this deep */

typedef enum clb__expr_kind {
    CLB__EXPR_INPUT = 0, /* input `index` */
    CLB__EXPR_CONST,     /* a literal or folded constant */
    CLB__EXPR_UNARY,     /* clb_unary_op `op` of args[0] */
    CLB__EXPR_BINARY,    /* clb_binary_op `op` of args[0], args[1] */
    CLB__EXPR_WHERE,     /* args[0] ? args[1] : args[2] */
    CLB__EXPR_CAST,      /* clb_cast of args[0] to `dtype` */
    CLB__EXPR_INVERT     /* NumPy's invert (~): logical not of bool, all bits flipped of integers */
} clb__expr_kind;

/* Kind of a literal before typing: Python's bool, int and float. */
typedef enum clb__lit_kind { CLB__LIT_BOOL = 0, CLB__LIT_INT, CLB__LIT_FLOAT } clb__lit_kind;

typedef struct clb__expr_node {
    clb__expr_kind kind;
    int op;        /* clb_unary_op / clb_binary_op; the input index for INPUT */
    int nargs;
    int args[3];   /* node indices, all smaller than this node's */
    int column;    /* 1-based column in the text, for messages */
    /* CONST before typing: the Python value */
    clb__lit_kind lit;
    int64_t ival;  /* LIT_BOOL (0/1) and LIT_INT */
    double fval;   /* LIT_FLOAT */
    /* after clb__expr_type */
    bool weak;         /* an untyped Python int/float: its dtype comes from its neighbour */
    clb_dtype dtype;   /* the node's value is of this dtype (what op-by-op would store) */
    clb_dtype compute; /* UNARY/BINARY: operands are converted to this first */
    clb__value value;  /* CONST: the value as dtype */
} clb__expr_node;

typedef struct clb__expr {
    char *text; /* a copy of the source, for messages */
    clb_promotion rules; /* the context's promotion rules, set before clb__expr_type */
    int count;
    clb__expr_node nodes[CLB__EXPR_MAX_NODES];
} clb__expr;

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

static inline const clb__expr_node *clb__expr_root(const clb__expr *e)
{
    return &e->nodes[e->count - 1];
}

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

/* Host evaluation over a plan: operand 0 is the output (dtype out), operand k+1 is
   input k (dtype in[k]); handles are host pointers. */
clb_status clb__expr_host_run(const clb__expr *e, const clb__plan *plan, void *const *handles,
                              clb_dtype out, const clb_dtype *in);

#if CLB_HAVE_OPENCL
/* The same on an OpenCL context: one generated kernel per (expression, dtypes,
   rank, index width), cached by the context's program cache. */
clb_status clb__expr_cl_run(clb_context *ctx, const clb__expr *e, const clb__plan *plan,
                            void *const *handles, clb_dtype out, const clb_dtype *in);
#endif

#endif /* CLB_EXPR_H */
