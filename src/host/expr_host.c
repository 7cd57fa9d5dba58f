/* Host evaluation of a typed expression in blocks (numexpr's design): the plan
 * is cut into blocks of up to BLOCK positions, and each node of the expression
 * runs one loop over the whole block into a buffer of its own dtype, small
 * enough to stay in cache. A node's buffer holds exactly what the op-by-op
 * chain would store in its temporary (its value rounded to the node's dtype),
 * so the result equals clb_binary/clb_unary/... bit for bit.
 *
 * Each node runs the typed loop of host_loops.c where one exists (plain
 * arithmetic with one dtype throughout), else the element-by-element rule of
 * host_scalar.c (clb__binary_eval, clb__unary_eval, clb__convert): every op
 * there works here without an edit. Inputs are read in place when a block lies
 * within one row of the plan; rows shorter than a block are gathered, several
 * to a block, so short rows cost no more per element than long ones. */
#include "expr_host.h"

#include "host_loops.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define BLOCK 4096          /* positions a block: buffers of 16 KiB (float32) stay in cache */
#define ROW_MIN (BLOCK / 4) /* shorter rows are gathered, several to a block */

typedef struct slot {
    char *p;   /* the node's first value in this block */
    int64_t s; /* stride in elements (0: one value for the whole block) */
} slot;

typedef struct block_eval {
    const clb__expr *e;
    const clb__plan *plan;
    char *base[CLB__MAX_OPERANDS];
    size_t isz[CLB__EXPR_MAX_NODES];              /* each node's itemsize */
    int same[CLB__EXPR_MAX_NODES];                /* INPUT: the first node of the same input */
    clb__host_loop_fn fast[CLB__EXPR_MAX_NODES];  /* typed loop, or NULL */
    clb__load_fn load[CLB__EXPR_MAX_NODES];       /* reads a value of the node's dtype */
    clb__store_fn store[CLB__EXPR_MAX_NODES];
    slot at[CLB__EXPR_MAX_NODES];
    char *buf;                                    /* BLOCK values of every node */
    char konst[CLB__EXPR_MAX_NODES][8];           /* CONST values as stored elements */
    int64_t rows_off[BLOCK * CLB__MAX_OPERANDS];  /* short rows: each row's offsets */
} block_eval;

/* One element of node n from its arguments' values (of their dtypes): the
   scalar rules, exactly as op by op. */
static clb__value node_apply(const clb__expr *e, const clb__expr_node *n, const clb__value *v)
{
    const clb__expr_node *a = n->nargs > 0 ? &e->nodes[n->args[0]] : NULL;
    clb__value r;
    switch (n->kind) {
    case CLB__EXPR_UNARY: {
        clb_unary_op op = (clb_unary_op)n->op;
        r = clb__unary_eval(op, n->compute, clb__convert(v[0], a->dtype, n->compute));
        return clb__convert(r, clb__unary_eval_dtype(op, n->compute), n->dtype);
    }
    case CLB__EXPR_BINARY: {
        clb_binary_op op = (clb_binary_op)n->op;
        r = clb__binary_eval(op, n->compute, clb__convert(v[0], a->dtype, n->compute),
                             clb__convert(v[1], e->nodes[n->args[1]].dtype, n->compute));
        return clb__convert(r, clb__binary_eval_dtype(op, n->compute), n->dtype);
    }
    case CLB__EXPR_WHERE: {
        int pick = clb__convert(v[0], a->dtype, CLB_BOOL).i ? 1 : 2;
        return clb__convert(v[pick], e->nodes[n->args[pick]].dtype, n->dtype);
    }
    case CLB__EXPR_CAST: return clb__convert(v[0], a->dtype, n->dtype);
    case CLB__EXPR_INVERT:
        if (n->dtype == CLB_BOOL) return clb__unary_eval(CLB_LOGICAL_NOT, CLB_BOOL, v[0]);
        /* All bits flipped: xor with -1 wrapped to the width (all ones). */
        r.i = -1;
        return clb__binary_eval(CLB_BITWISE_XOR, n->dtype, v[0], clb__convert(r, CLB_INT64, n->dtype));
    default: return n->value; /* INPUT and CONST never get here */
    }
}

/* Node i over the n positions of the block, into its buffer. */
static void node_run(block_eval *b, int i, int64_t n)
{
    const clb__expr_node *nd = &b->e->nodes[i];
    slot out = {b->buf + (size_t)i * BLOCK * 8, 1};
    slot a[3];
    for (int k = 0; k < nd->nargs; k++) a[k] = b->at[nd->args[k]];
    b->at[i] = out;
    if (b->fast[i]) {
        b->fast[i](n, out.p, 1, a[0].p, a[0].s, nd->nargs > 1 ? a[1].p : a[0].p,
                   nd->nargs > 1 ? a[1].s : 0);
        return;
    }
    for (int64_t j = 0; j < n; j++) {
        clb__value v[3];
        for (int k = 0; k < nd->nargs; k++) {
            int arg = nd->args[k];
            v[k] = b->load[arg](a[k].p + j * a[k].s * (int64_t)b->isz[arg]);
        }
        b->store[i](out.p + j * (int64_t)b->isz[i], node_apply(b->e, nd, v));
    }
}

/* The typed loop of a UNARY or BINARY node whose operands, compute and result
   share one dtype, or NULL. */
static clb__host_loop_fn fast_loop(const clb__expr *e, const clb__expr_node *n)
{
    if (!clb__host_loops_enabled || (n->kind != CLB__EXPR_UNARY && n->kind != CLB__EXPR_BINARY))
        return NULL;
    clb__map_op op = {n->kind == CLB__EXPR_UNARY ? CLB__MAP_UNARY : CLB__MAP_BINARY, n->op,
                      {CLB_BOOL, CLB_BOOL, CLB_BOOL}, n->compute, n->dtype};
    for (int k = 0; k < n->nargs; k++) op.in[k] = e->nodes[n->args[k]].dtype;
    return clb__host_loop_find(&op);
}

static clb_status block_init(block_eval *b, const clb__expr *e, const clb__plan *plan,
                             void *const *handles)
{
    b->e = e;
    b->plan = plan;
    for (int k = 1; k < plan->nops; k++) b->base[k] = handles[k];
    for (int i = 0; i < e->count; i++) {
        const clb__expr_node *n = &e->nodes[i];
        b->isz[i] = clb_dtype_size(n->dtype);
        b->load[i] = clb__loader(n->dtype);
        b->store[i] = clb__storer(n->dtype);
        b->fast[i] = fast_loop(e, n);
        b->same[i] = i;
        for (int j = 0; n->kind == CLB__EXPR_INPUT && j < i; j++)
            if (e->nodes[j].kind == CLB__EXPR_INPUT && e->nodes[j].op == n->op) {
                b->same[i] = j;
                break;
            }
        if (n->kind == CLB__EXPR_CONST) {
            b->store[i](b->konst[i], n->value);
            b->at[i] = (slot){b->konst[i], 0};
        }
    }
    b->buf = malloc((size_t)e->count * BLOCK * 8);
    if (!b->buf) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory evaluating an expression");
    return CLB_OK;
}

/* Evaluates every computed node over n positions (the leaves are in place). */
static void block_nodes(block_eval *b, int64_t n)
{
    const clb__expr *e = b->e;
    for (int i = 0; i < e->count; i++) {
        clb__expr_kind k = e->nodes[i].kind;
        if (k == CLB__EXPR_INPUT) b->at[i] = b->at[b->same[i]];
        else if (k != CLB__EXPR_CONST) node_run(b, i, n);
    }
}

/* A block within one row: n positions from offsets off, inputs read in place. */
static void block_in_row(block_eval *b, const int64_t *off, const int64_t *inner, int64_t n)
{
    const clb__expr *e = b->e;
    for (int i = 0; i < e->count; i++) {
        const clb__expr_node *nd = &e->nodes[i];
        if (nd->kind != CLB__EXPR_INPUT || b->same[i] != i) continue;
        int k = nd->op + 1;
        b->at[i] = (slot){b->base[k] + off[k] * (int64_t)b->isz[i], inner[k]};
    }
    block_nodes(b, n);
}

/* rows whole rows of n positions each, from the row offsets off[r * nops + k]:
   the inputs gathered into their nodes' buffers, one row after another. */
static void block_of_rows(block_eval *b, const int64_t *off, int rows, const int64_t *inner,
                          int64_t n)
{
    const clb__expr *e = b->e;
    const int nops = b->plan->nops;
    for (int i = 0; i < e->count; i++) {
        const clb__expr_node *nd = &e->nodes[i];
        if (nd->kind != CLB__EXPR_INPUT || b->same[i] != i) continue;
        int k = nd->op + 1;
        size_t isz = b->isz[i];
        clb__host_loop_fn copy = clb__host_copy_loop(isz);
        char *dst = b->buf + (size_t)i * BLOCK * 8;
        for (int r = 0; r < rows; r++)
            copy(n, dst + (size_t)(r * n) * isz, 1, b->base[k] + off[r * nops + k] * (int64_t)isz,
                 inner[k], NULL, 0);
        b->at[i] = (slot){dst, 1};
    }
    block_nodes(b, (int64_t)rows * n);
}

/* Steps the odometer over the plan's outer axes (all but the innermost) to the
   next row; false after the last. */
static bool next_row(const clb__plan *p, int64_t *idx, int64_t *off)
{
    for (int d = p->ndim - 2; d >= 0; d--) {
        for (int k = 0; k < p->nops; k++) off[k] += p->strides[k][d];
        if (++idx[d] < p->shape[d]) return true;
        for (int k = 0; k < p->nops; k++) off[k] -= p->strides[k][d] * p->shape[d];
        idx[d] = 0;
    }
    return false;
}

clb_status clb__expr_host_blocks(const clb__expr *e, const clb__plan *plan, void *const *handles,
                                 clb__expr_sink_fn sink, void *user)
{
    if (plan->numel == 0) return CLB_OK;
    block_eval *b = calloc(1, sizeof *b);
    if (!b) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory evaluating an expression");
    clb_status st = block_init(b, e, plan, handles);
    if (st != CLB_OK) {
        free(b);
        return st;
    }
    const int nops = plan->nops, root = e->count - 1;
    const int64_t n = plan->ndim > 0 ? plan->shape[plan->ndim - 1] : 1;
    int64_t inner[CLB__MAX_OPERANDS], off[CLB__MAX_OPERANDS], idx[CLB__PLAN_MAX_DIMS] = {0};
    for (int k = 0; k < nops; k++) {
        inner[k] = plan->ndim > 0 ? plan->strides[k][plan->ndim - 1] : 0;
        off[k] = plan->offsets[k];
    }
    if (n >= ROW_MIN) {
        do {
            int64_t o[CLB__MAX_OPERANDS];
            for (int64_t start = 0; start < n; start += BLOCK) {
                int64_t len = n - start < BLOCK ? n - start : BLOCK;
                for (int k = 0; k < nops; k++) o[k] = off[k] + start * inner[k];
                block_in_row(b, o, inner, len);
                sink(user, o[0], inner[0], len, b->at[root].p, b->at[root].s);
            }
        } while (next_row(plan, idx, off));
    } else {
        int64_t *rows_off = b->rows_off;
        const int per = (int)(BLOCK / n); /* rows a block */
        bool more = true;
        while (more) {
            int rows = 0;
            for (; rows < per && more; rows++) {
                memcpy(&rows_off[rows * nops], off, sizeof(int64_t) * (size_t)nops);
                more = next_row(plan, idx, off);
            }
            block_of_rows(b, rows_off, rows, inner, n);
            slot v = b->at[root];
            for (int r = 0; r < rows; r++)
                sink(user, rows_off[r * nops], inner[0], n,
                     v.p + (size_t)(r * n * v.s) * b->isz[root], v.s);
        }
    }
    free(b->buf);
    free(b);
    return CLB_OK;
}

/* ---- clb_eval: the root's values stored into operand 0 ------------------------------ */

typedef struct store_state {
    char *out;
    size_t osz, vsz;
    clb_dtype out_dtype, value_dtype;
    clb__host_loop_fn copy; /* same dtype: a bit copy */
    clb__load_fn load;
    clb__store_fn store;
} store_state;

static void store_sink(void *user, int64_t off, int64_t stride, int64_t n, const char *v,
                       int64_t vs)
{
    const store_state *s = user;
    char *o = s->out + off * (int64_t)s->osz;
    if (s->copy) {
        s->copy(n, o, stride, v, vs, NULL, 0);
        return;
    }
    for (int64_t j = 0; j < n; j++)
        s->store(o + j * stride * (int64_t)s->osz,
                 clb__convert(s->load(v + j * vs * (int64_t)s->vsz), s->value_dtype, s->out_dtype));
}

clb_status clb__expr_host_run(const clb__expr *e, const clb__plan *plan, void *const *handles,
                              clb_dtype out, const clb_dtype *in)
{
    (void)in; /* each INPUT node carries its input's dtype */
    clb_dtype vt = clb__expr_root(e)->dtype;
    store_state s = {handles[0], clb_dtype_size(out), clb_dtype_size(vt), out, vt,
                     vt == out && clb__host_loops_enabled ? clb__host_copy_loop(clb_dtype_size(out))
                                                          : NULL,
                     clb__loader(vt), clb__storer(out)};
    return clb__expr_host_blocks(e, plan, handles, store_sink, &s);
}
