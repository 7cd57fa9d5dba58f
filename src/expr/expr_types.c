/* NumPy 2 dtypes through an expression tree. Every operator node takes the
 * dtype rules of the op it stands for (dtype.c), so an expression gives what the
 * same chain of clb_binary/clb_unary/clb_where/clb_cast calls gives.
 *
 * Python literals are weak (NEP 50): next to a typed operand an int takes that
 * operand's dtype (bool excepted: int + bool is int64) and must fit it; a float
 * takes a float operand's dtype and is float64 next to integers and bools. With
 * no typed partner (an argument of a function, or the whole expression) a
 * literal is int64 or float64, as NumPy gives for np.sqrt(2). */
#include "expr.h"

#include "dtype.h"
#include "internal.h"

#include <stdio.h>
#include <string.h>

/* A literal alone: int64, or the rules' default float (float64; PyTorch: float32). */
static clb_dtype default_dtype(const clb__expr *e, clb__lit_kind lit)
{
    return lit == CLB__LIT_BOOL ? CLB_BOOL
           : lit == CLB__LIT_INT ? CLB_INT64
                                 : clb__default_float(e->rules);
}

/* The dtype NEP 50 gives a weak literal of kind `lit` next to dtype `other`. */
static clb_dtype weak_next_to(const clb__expr *e, clb__lit_kind lit, clb_dtype other)
{
    if (lit == CLB__LIT_FLOAT) return clb__dtype_is_float(other) ? other : clb__default_float(e->rules);
    if (lit == CLB__LIT_INT) return other == CLB_BOOL ? CLB_INT64 : other;
    return CLB_BOOL;
}

/* Gives the constant node n (weak or strong) the dtype t and its value as t. */
static clb_status settle(const char *fn, const clb__expr *e, clb__expr_node *n, clb_dtype t)
{
    clb__value v;
    clb_dtype from;
    if (n->lit == CLB__LIT_FLOAT) {
        v.d = n->fval;
        from = CLB_FLOAT64;
    } else {
        if (n->lit == CLB__LIT_INT && n->weak && !clb__int_fits(n->ival, t))
            return clb__expr_fail_at(CLB_ERR_INVALID_ARGUMENT, fn, e->text, n->column,
                                     "Python integer %lld out of bounds for %s (NumPy 2 raises "
                                     "OverflowError); write a cast such as int64(x)",
                                     (long long)n->ival, clb_dtype_name(t));
        v.i = n->ival;
        from = n->lit == CLB__LIT_BOOL ? CLB_BOOL : CLB_INT64;
    }
    n->value = clb__convert(v, from, t);
    n->dtype = n->compute = t;
    n->weak = false;
    return CLB_OK;
}

/* Settles a still-weak argument to its default dtype. */
static clb_status settle_default(const char *fn, clb__expr *e, int arg)
{
    clb__expr_node *a = &e->nodes[arg];
    return a->weak ? settle(fn, e, a, default_dtype(e, a->lit)) : CLB_OK;
}

/* For two value operands: a weak one takes its partner's dtype; two weak ones
   their defaults. */
static clb_status settle_pair(const char *fn, clb__expr *e, int ia, int ib)
{
    clb__expr_node *a = &e->nodes[ia], *b = &e->nodes[ib];
    clb_status st = CLB_OK;
    if (a->weak && !b->weak) return settle(fn, e, a, weak_next_to(e, a->lit, b->dtype));
    if (b->weak && !a->weak) return settle(fn, e, b, weak_next_to(e, b->lit, a->dtype));
    if ((st = settle_default(fn, e, ia)) != CLB_OK) return st;
    return settle_default(fn, e, ib);
}

/* Re-issues the op layer's dtype message with the expression and a caret. */
static clb_status at_node(const char *fn, const clb__expr *e, const clb__expr_node *n,
                          clb_status st)
{
    char msg[512];
    snprintf(msg, sizeof msg, "%s", clb_last_error());
    return clb__expr_fail_at(st, fn, e->text, n->column, "%s", msg);
}

static clb_status type_node(const char *fn, clb__expr *e, clb__expr_node *n, const clb_dtype *dtypes)
{
    clb_status st = CLB_OK;
    const clb__expr_node *a = n->nargs > 0 ? &e->nodes[n->args[0]] : NULL;
    switch (n->kind) {
    case CLB__EXPR_INPUT:
        n->dtype = n->compute = dtypes[n->op];
        return CLB_OK;
    case CLB__EXPR_CONST:
        /* Weak literals wait for their parent; strong ones (bools) are typed now. */
        n->dtype = n->compute = default_dtype(e, n->lit);
        return n->weak ? CLB_OK : settle(fn, e, n, CLB_BOOL);
    case CLB__EXPR_UNARY:
        if ((st = settle_default(fn, e, n->args[0])) != CLB_OK) return st;
        st = clb__unary_types_r(e->rules, (clb_unary_op)n->op, a->dtype, &n->compute, &n->dtype);
        return st == CLB_OK ? CLB_OK : at_node(fn, e, n, st);
    case CLB__EXPR_BINARY:
        if ((st = settle_pair(fn, e, n->args[0], n->args[1])) != CLB_OK) return st;
        st = clb__binary_types_r(e->rules, (clb_binary_op)n->op, a->dtype, e->nodes[n->args[1]].dtype,
                               &n->compute, &n->dtype);
        return st == CLB_OK ? CLB_OK : at_node(fn, e, n, st);
    case CLB__EXPR_WHERE:
        if ((st = settle_default(fn, e, n->args[0])) != CLB_OK) return st;
        if ((st = settle_pair(fn, e, n->args[1], n->args[2])) != CLB_OK) return st;
        st = clb__where_types_r(e->rules, a->dtype, e->nodes[n->args[1]].dtype, e->nodes[n->args[2]].dtype,
                              &n->dtype);
        n->compute = n->dtype;
        return st == CLB_OK ? CLB_OK : at_node(fn, e, n, st);
    case CLB__EXPR_CAST:
        n->compute = n->dtype; /* the target, set by the parser */
        return settle_default(fn, e, n->args[0]);
    case CLB__EXPR_INVERT:
        if ((st = settle_default(fn, e, n->args[0])) != CLB_OK) return st;
        if (clb__dtype_is_float(a->dtype))
            return clb__expr_fail_at(CLB_ERR_DTYPE, fn, e->text, n->column,
                                     "invert (~) is not supported for %s: it needs integers or "
                                     "bool (NumPy's bitwise_not)",
                                     clb_dtype_name(a->dtype));
        n->dtype = n->compute = a->dtype;
        return CLB_OK;
    }
    return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: malformed expression node", fn);
}

clb_status clb__expr_type(const char *fn, clb__expr *e, const clb_dtype *dtypes)
{
    clb_status st = CLB_OK;
    for (int i = 0; i < e->count; i++)
        if ((st = type_node(fn, e, &e->nodes[i], dtypes)) != CLB_OK) return st;
    if ((st = settle_default(fn, e, e->count - 1)) != CLB_OK) /* a bare literal: int64 or float64 */
        return st;
    return clb__expr_rewrite(fn, e); /* constant powers without pow (expr_rewrite.c) */
}
