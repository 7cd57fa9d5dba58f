/* Host evaluation of a typed expression: an interpreter over the node array,
 * element by element, with host_scalar's semantics. Each node's value is
 * rounded to the node's dtype, exactly what the op-by-op chain stores in its
 * temporaries, so the result equals clb_binary/clb_unary/... bit for bit. */
#include "expr_host.h"

#include "internal.h"

#include <stdlib.h>

typedef struct eval_state {
    const clb__expr *e;
    char *base[CLB__MAX_OPERANDS];
    size_t itemsize[CLB__MAX_OPERANDS];
    clb__load_fn load[CLB__MAX_OPERANDS];
    clb__store_fn store;
    clb_dtype out;
    clb__value *vals; /* one per node */
} eval_state;

static clb__value node_value(const eval_state *s, const clb__expr_node *n, const int64_t *offsets)
{
    const clb__expr *e = s->e;
    const clb__value *v = s->vals;
    const clb__expr_node *a = n->nargs > 0 ? &e->nodes[n->args[0]] : NULL;
    const clb__expr_node *b = n->nargs > 1 ? &e->nodes[n->args[1]] : NULL;
    clb__value r;
    switch (n->kind) {
    case CLB__EXPR_INPUT: {
        int k = n->op + 1;
        return s->load[k](s->base[k] + offsets[k] * (int64_t)s->itemsize[k]);
    }
    case CLB__EXPR_CONST:
        return n->value;
    case CLB__EXPR_UNARY: {
        clb_unary_op op = (clb_unary_op)n->op;
        r = clb__unary_eval(op, n->compute, clb__convert(v[n->args[0]], a->dtype, n->compute));
        return clb__convert(r, clb__unary_eval_dtype(op, n->compute), n->dtype);
    }
    case CLB__EXPR_BINARY: {
        clb_binary_op op = (clb_binary_op)n->op;
        r = clb__binary_eval(op, n->compute, clb__convert(v[n->args[0]], a->dtype, n->compute),
                             clb__convert(v[n->args[1]], b->dtype, n->compute));
        return clb__convert(r, clb__binary_eval_dtype(op, n->compute), n->dtype);
    }
    case CLB__EXPR_WHERE: {
        int pick = clb__convert(v[n->args[0]], a->dtype, CLB_BOOL).i ? 1 : 2;
        return clb__convert(v[n->args[pick]], e->nodes[n->args[pick]].dtype, n->dtype);
    }
    case CLB__EXPR_CAST:
        return clb__convert(v[n->args[0]], a->dtype, n->dtype);
    case CLB__EXPR_INVERT:
        if (n->dtype == CLB_BOOL) return clb__unary_eval(CLB_LOGICAL_NOT, CLB_BOOL, v[n->args[0]]);
        /* All bits flipped: xor with -1 wrapped to the width (all ones). */
        r.i = -1;
        return clb__binary_eval(CLB_BITWISE_XOR, n->dtype, v[n->args[0]],
                                clb__convert(r, CLB_INT64, n->dtype));
    }
    r.u = 0;
    return r;
}

static void eval_visit(const int64_t *offsets, void *user)
{
    const eval_state *s = user;
    const clb__expr *e = s->e;
    for (int i = 0; i < e->count; i++) s->vals[i] = node_value(s, &e->nodes[i], offsets);
    clb__value r = clb__convert(s->vals[e->count - 1], e->nodes[e->count - 1].dtype, s->out);
    s->store(s->base[0] + offsets[0] * (int64_t)s->itemsize[0], r);
}

clb_status clb__expr_host_run(const clb__expr *e, const clb__plan *plan, void *const *handles,
                              clb_dtype out, const clb_dtype *in)
{
    eval_state s = {.e = e, .store = clb__storer(out), .out = out};
    s.base[0] = handles[0];
    s.itemsize[0] = clb_dtype_size(out);
    for (int k = 1; k < plan->nops; k++) {
        s.base[k] = handles[k];
        s.itemsize[k] = clb_dtype_size(in[k - 1]);
        s.load[k] = clb__loader(in[k - 1]);
    }
    s.vals = malloc(sizeof *s.vals * (size_t)e->count);
    if (!s.vals) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory evaluating an expression");
    clb__plan_for_each(plan, eval_visit, &s);
    free(s.vals);
    return CLB_OK;
}

/* ---- the values one at a time (clb_eval_reduce's fold, backend_host.c) ---------- */

typedef struct each_state {
    eval_state s;
    clb__expr_sink_fn sink;
    void *user;
} each_state;

static void each_visit(const int64_t *offsets, void *user)
{
    const each_state *es = user;
    const clb__expr *e = es->s.e;
    for (int i = 0; i < e->count; i++) es->s.vals[i] = node_value(&es->s, &e->nodes[i], offsets);
    es->sink(offsets, es->s.vals[e->count - 1], es->user);
}

clb_status clb__expr_host_each(const clb__expr *e, const clb__plan *plan, void *const *handles,
                               const clb_dtype *in, clb__expr_sink_fn sink, void *user)
{
    each_state es = {.s = {.e = e}, .sink = sink, .user = user};
    for (int k = 1; k < plan->nops; k++) {
        es.s.base[k] = handles[k];
        es.s.itemsize[k] = clb_dtype_size(in[k - 1]);
        es.s.load[k] = clb__loader(in[k - 1]);
    }
    es.s.vals = malloc(sizeof *es.s.vals * (size_t)e->count);
    if (!es.s.vals)
        return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory evaluating an expression");
    clb__plan_for_each(plan, each_visit, &es);
    free(es.s.vals);
    return CLB_OK;
}
