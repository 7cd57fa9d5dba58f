/* The tree of a clb_eval expression, as the backend table (backend.h) hands it
 * to a backend's eval slots: nodes in one array in post-order, every node's
 * arguments before it and the root last. The types only; parsing, typing and
 * rewriting are the expr floor's (expr/expr.h). */
#ifndef CLB_EXPR_TREE_H
#define CLB_EXPR_TREE_H

#include "clbroadcast.h"
#include "plan.h"
#include "value.h"

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

static inline const clb__expr_node *clb__expr_root(const clb__expr *e)
{
    return &e->nodes[e->count - 1];
}

#endif /* CLB_EXPR_TREE_H */
