/* Rewrites of a typed expression that keep its values and drop work.
 *
 * Powers with a constant exponent run as NumPy runs them: x ** 2 is x * x (bit
 * for bit, NumPy's square), ** 0.5 is sqrt, ** -1 a reciprocal, ** 0 ones and
 * ** 1 a copy (NumPy's fast_scalar_power), and, past NumPy, ** 3, ** 4, ** -2
 * and ** -0.5 as products, a reciprocal and a square root. OpenCL's pow costs
 * two orders of magnitude more than a product on CPU devices (PoCL: 260 ms
 * against 1.6 ms for 4M float32), so "(x - y) ** 2" must not call it. Integer
 * powers stay exact: products wrap modulo 2^width as the repeated squaring does.
 *
 * A cast of a constant becomes a constant of the cast's dtype, so
 * "float32(3.5)" never asks a device for float64. */
#include "expr.h"

#include "dtype.h"
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct builder {
    clb__expr_node *nodes;
    int count;
    bool full; /* more than CLB__EXPR_MAX_NODES: the rewrite is dropped */
} builder;

static int emit(builder *b, clb__expr_node n)
{
    if (b->count >= CLB__EXPR_MAX_NODES) {
        b->full = true;
        return 0;
    }
    b->nodes[b->count] = n;
    return b->count++;
}

/* A typed constant (small integral values are exact in every dtype). */
static int emit_const(builder *b, double v, clb_dtype t, int column)
{
    clb__value d = {.d = v};
    clb__expr_node n = {.kind = CLB__EXPR_CONST, .lit = CLB__LIT_FLOAT, .fval = v,
                        .column = column, .dtype = t, .compute = t,
                        .value = clb__convert(d, CLB_FLOAT64, t)};
    return emit(b, n);
}

static int emit_op(builder *b, clb__expr_kind kind, int op, int x, int y, clb_dtype compute,
                   clb_dtype dtype, int column)
{
    clb__expr_node n = {.kind = kind, .op = op, .nargs = kind == CLB__EXPR_UNARY ? 1 : 2,
                        .args = {x, y}, .column = column, .dtype = dtype, .compute = compute};
    return emit(b, n);
}

/* The exponent of a power node as a double, when it is a constant. */
static bool const_exponent(const builder *b, const clb__expr_node *n, double *out)
{
    const clb__expr_node *x = &b->nodes[n->args[1]];
    if (x->kind != CLB__EXPR_CONST) return false;
    clb__value v = clb__convert(x->value, x->dtype, n->compute);
    if (clb__dtype_is_float(n->compute)) {
        *out = clb__convert(v, n->compute, CLB_FLOAT64).d;
        return true;
    }
    /* Integer powers: only non-negative exponents have a fast path (a negative one keeps
       the op's own result). */
    clb__value i = clb__convert(v, n->compute, CLB_INT64);
    if (clb__dtype_is_unsigned(n->compute) && v.u > 4) return false;
    *out = (double)i.i;
    return i.i >= 0 && i.i <= 4;
}

/* Emits the fast form of power node n whose base is node `x` (new index), or
   returns -1 when the exponent has none. */
static int fast_power(builder *b, const clb__expr_node *n, int x, double p)
{
    clb_dtype c = n->compute, t = n->dtype;
    /* Intermediate products of float16 stay in float32 (one rounding, as pow). */
    clb_dtype w = c == CLB_FLOAT16 ? CLB_FLOAT32 : c;
    int col = n->column, sq, r, s;
    bool fl = clb__dtype_is_float(c);
    if (p == 0.0) return emit_const(b, 1.0, t, col); /* ones, NaN ** 0 included */
    if (p == 1.0) {
        clb__expr_node k = {.kind = CLB__EXPR_CAST, .nargs = 1, .args = {x}, .column = col,
                            .dtype = t, .compute = t};
        return emit(b, k);
    }
    if (p == 2.0) return emit_op(b, CLB__EXPR_BINARY, CLB_MUL, x, x, c, t, col);
    if (p == 3.0) {
        sq = emit_op(b, CLB__EXPR_BINARY, CLB_MUL, x, x, w, w, col);
        return emit_op(b, CLB__EXPR_BINARY, CLB_MUL, sq, x, w, t, col);
    }
    if (p == 4.0) {
        sq = emit_op(b, CLB__EXPR_BINARY, CLB_MUL, x, x, w, w, col);
        return emit_op(b, CLB__EXPR_BINARY, CLB_MUL, sq, sq, w, t, col);
    }
    if (!fl) return -1;
    if (p == 0.5) return emit_op(b, CLB__EXPR_UNARY, CLB_SQRT, x, 0, c, t, col);
    if (p == -1.0) return emit_op(b, CLB__EXPR_BINARY, CLB_DIV, emit_const(b, 1.0, c, col), x, c, t, col);
    if (p == -2.0) { /* (1/x)^2: no overflow of x*x where x^-2 is still finite */
        r = emit_op(b, CLB__EXPR_BINARY, CLB_DIV, emit_const(b, 1.0, w, col), x, w, w, col);
        return emit_op(b, CLB__EXPR_BINARY, CLB_MUL, r, r, w, t, col);
    }
    if (p == -0.5) {
        /* 1/sqrt(x), with pow's values where they differ: +inf at -0 (1/sqrt(-0) is
           -inf) and 0 at -inf (sqrt gives NaN). Selects, not abs(): a compiler that
           ignores the sign of zero may drop an abs of a square root. */
        s = emit_op(b, CLB__EXPR_UNARY, CLB_SQRT, x, 0, w, w, col);
        r = emit_op(b, CLB__EXPR_BINARY, CLB_DIV, emit_const(b, 1.0, w, col), s, w, w, col);
        int zero = emit_op(b, CLB__EXPR_BINARY, CLB_EQ, x, emit_const(b, 0.0, w, col), w,
                           CLB_BOOL, col);
        clb__expr_node k = {.kind = CLB__EXPR_WHERE, .nargs = 3,
                            .args = {zero, emit_const(b, INFINITY, w, col), r}, .column = col,
                            .dtype = w, .compute = w};
        r = emit(b, k);
        int ninf = emit_op(b, CLB__EXPR_BINARY, CLB_EQ, x, emit_const(b, -INFINITY, w, col), w,
                           CLB_BOOL, col);
        k.args[0] = ninf;
        k.args[1] = emit_const(b, 0.0, w, col);
        k.args[2] = r;
        k.dtype = k.compute = t;
        return emit(b, k);
    }
    return -1;
}

/* A cast of a constant as the constant in the cast's dtype. */
static bool fold_cast(const builder *b, const clb__expr_node *n, clb__expr_node *out)
{
    if (n->kind != CLB__EXPR_CAST) return false;
    const clb__expr_node *a = &b->nodes[n->args[0]];
    if (a->kind != CLB__EXPR_CONST) return false;
    *out = *a;
    out->value = clb__convert(a->value, a->dtype, n->dtype);
    out->dtype = out->compute = n->dtype;
    out->column = n->column;
    return true;
}

/* Keeps the nodes the root reaches, in order. */
static int compact(const clb__expr_node *src, int count, clb__expr_node *dst)
{
    bool live[CLB__EXPR_MAX_NODES] = {false};
    int map[CLB__EXPR_MAX_NODES];
    live[count - 1] = true;
    for (int i = count - 1; i >= 0; i--)
        if (live[i])
            for (int a = 0; a < src[i].nargs; a++) live[src[i].args[a]] = true;
    int m = 0;
    for (int i = 0; i < count; i++) {
        if (!live[i]) continue;
        dst[m] = src[i];
        for (int a = 0; a < dst[m].nargs; a++) dst[m].args[a] = map[dst[m].args[a]];
        map[i] = m++;
    }
    return m;
}

clb_status clb__expr_rewrite(const char *fn, clb__expr *e)
{
    clb__expr_node *nodes = malloc(sizeof *nodes * CLB__EXPR_MAX_NODES);
    int *map = malloc(sizeof *map * CLB__EXPR_MAX_NODES);
    if (!nodes || !map) {
        free(nodes);
        free(map);
        return clb__fail(CLB_ERR_OUT_OF_MEMORY, "%s: out of host memory planning an expression", fn);
    }
    builder b = {.nodes = nodes};
    for (int i = 0; i < e->count && !b.full; i++) {
        clb__expr_node n = e->nodes[i], k;
        for (int a = 0; a < n.nargs; a++) n.args[a] = map[n.args[a]];
        double p = 0;
        int at = -1;
        if (n.kind == CLB__EXPR_BINARY && n.op == CLB_POW && const_exponent(&b, &n, &p))
            at = fast_power(&b, &n, n.args[0], p);
        else if (fold_cast(&b, &n, &k))
            at = emit(&b, k);
        map[i] = at >= 0 ? at : emit(&b, n);
    }
    if (!b.full) e->count = compact(nodes, b.count, e->nodes);
    free(nodes);
    free(map);
    return CLB_OK;
}
