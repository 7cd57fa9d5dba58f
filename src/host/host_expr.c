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
 * there works here without an edit. A block is a piece of one row of the plan
 * or several whole rows; an input is read in place where the block's rows
 * follow each other in its storage, else gathered (a row broadcast to every
 * row is gathered once and kept), so short rows cost no more per element than
 * long ones. clb_eval's root is written straight into the output where it can
 * be; identical subexpressions are computed once. */
#include "host_expr.h"

#include "host_loops.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* Positions a block: 4 KiB buffers (float32). Measured here (EPYC, 32 KiB L1):
   1024 and 512 ran "(x - mu) * rstd" 1.5x faster than op by op, 2048 and more
   2x slower than 1024. */
#define BLOCK 1024

/* Node buffers lie BUF_STRIDE bytes apart: a block of float64 and a few cache
   lines more, so that the buffers of one loop do not share cache sets. */
#define BUF_STRIDE (BLOCK * 8 + 320)

typedef struct slot {
    char *p;   /* the node's first value in this block */
    int64_t s; /* stride in elements (0: one value for the whole block) */
} slot;

typedef struct block_eval {
    const clb__expr *e;
    const clb__plan *plan;
    int root;
    char *base[CLB__MAX_OPERANDS];
    size_t isz[CLB__EXPR_MAX_NODES];              /* each node's itemsize */
    int same[CLB__EXPR_MAX_NODES];                /* an earlier node computing the same, or itself */
    clb__host_loop_fn fast[CLB__EXPR_MAX_NODES];  /* typed loop, or NULL */
    bool plain[CLB__EXPR_MAX_NODES];              /* float32/float64 throughout: no conversions */
    clb__load_fn load[CLB__EXPR_MAX_NODES];       /* reads a value of the node's dtype */
    clb__store_fn store[CLB__EXPR_MAX_NODES];
    slot at[CLB__EXPR_MAX_NODES];
    char *buf;                                    /* BLOCK values of every node */
    char konst[CLB__EXPR_MAX_NODES][8];           /* CONST values as stored elements */
    int64_t tile_off[CLB__EXPR_MAX_NODES];        /* INPUT gathered from one offset each row: */
    int tile_rows[CLB__EXPR_MAX_NODES];           /* that offset and how many rows (0: none) */
    bool direct;                                  /* clb_eval: root may go straight to operand 0 */
    char *out;
    size_t osz;
    slot out_slot;                                /* this block's root: operand 0 itself */
    bool to_out;
    int64_t rows_off[BLOCK * CLB__MAX_OPERANDS];  /* the block's rows: each one's offsets */
} block_eval;

static char *node_buf(const block_eval *b, int i)
{
    return b->buf + (size_t)i * BUF_STRIDE;
}

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

/* A UNARY or BINARY node whose operands, compute dtype and result are all
   float32 or all float64 (and no typed loop): the scalar rule per element
   without the conversions, which are identities there. */
static bool plain_float(const clb__expr *e, const clb__expr_node *n)
{
    clb_dtype t = n->dtype;
    if ((n->kind != CLB__EXPR_UNARY && n->kind != CLB__EXPR_BINARY) || n->compute != t ||
        (t != CLB_FLOAT32 && t != CLB_FLOAT64))
        return false;
    clb_dtype r = n->kind == CLB__EXPR_UNARY ? clb__unary_eval_dtype((clb_unary_op)n->op, t)
                                             : clb__binary_eval_dtype((clb_binary_op)n->op, t);
    for (int k = 0; k < n->nargs; k++)
        if (e->nodes[n->args[k]].dtype != t) return false;
    return r == t;
}

#define DEFINE_PLAIN(NAME, T, M, DT)                                                               \
    static void NAME(const clb__expr_node *nd, int64_t n, slot out, const slot *a)                 \
    {                                                                                              \
        const T *x = (const T *)a[0].p, *y = (const T *)a[nd->nargs > 1].p;                        \
        const int64_t sx = a[0].s, sy = a[nd->nargs > 1].s;                                        \
        T *o = (T *)out.p;                                                                         \
        clb__value u, w;                                                                           \
        for (int64_t j = 0; j < n; j++) {                                                          \
            u.M = x[j * sx];                                                                       \
            w.M = y[j * sy];                                                                       \
            o[j * out.s] = (nd->nargs == 1 ? clb__unary_eval((clb_unary_op)nd->op, DT, u)          \
                                           : clb__binary_eval((clb_binary_op)nd->op, DT, u, w))    \
                               .M;                                                                 \
        }                                                                                          \
    }
DEFINE_PLAIN(plain_f32, float, f, CLB_FLOAT32)
DEFINE_PLAIN(plain_f64, double, d, CLB_FLOAT64)

static void plain_run(const clb__expr_node *nd, int64_t n, slot out, const slot *a)
{
    if (nd->dtype == CLB_FLOAT32) plain_f32(nd, n, out, a);
    else plain_f64(nd, n, out, a);
}

/* Node i over the n positions of the block, into its buffer (the root of a
   clb_eval block whose output runs as one strided line: into the output). */
static void node_run(block_eval *b, int i, int64_t n)
{
    const clb__expr_node *nd = &b->e->nodes[i];
    slot out = i == b->root && b->to_out ? b->out_slot : (slot){node_buf(b, i), 1};
    slot a[3];
    for (int k = 0; k < nd->nargs; k++) a[k] = b->at[nd->args[k]];
    b->at[i] = out;
    if (b->fast[i]) {
        b->fast[i](n, out.p, out.s, a[0].p, a[0].s, nd->nargs > 1 ? a[1].p : a[0].p,
                   nd->nargs > 1 ? a[1].s : 0);
        return;
    }
    if (b->plain[i]) {
        plain_run(nd, n, out, a);
        return;
    }
    for (int64_t j = 0; j < n; j++) {
        clb__value v[3];
        for (int k = 0; k < nd->nargs; k++) {
            int arg = nd->args[k];
            v[k] = b->load[arg](a[k].p + j * a[k].s * (int64_t)b->isz[arg]);
        }
        b->store[i](out.p + j * out.s * (int64_t)b->isz[i], node_apply(b->e, nd, v));
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

/* The first node before i that computes the same values (same kind, op, dtypes
   and arguments), or i: "(x - y) * (x - y)" subtracts once. */
static int same_as(const block_eval *b, int i)
{
    const clb__expr_node *n = &b->e->nodes[i];
    if (n->kind == CLB__EXPR_CONST) return i;
    for (int j = 0; j < i; j++) {
        const clb__expr_node *m = &b->e->nodes[j];
        bool eq = b->same[j] == j && m->kind == n->kind && m->op == n->op && m->nargs == n->nargs &&
                  m->dtype == n->dtype && (n->kind == CLB__EXPR_INPUT || m->compute == n->compute);
        for (int k = 0; eq && k < n->nargs; k++) eq = b->same[m->args[k]] == b->same[n->args[k]];
        if (eq) return j;
    }
    return i;
}

static clb_status block_init(block_eval *b, const clb__expr *e, const clb__plan *plan,
                             void *const *handles)
{
    b->e = e;
    b->plan = plan;
    b->root = e->count - 1;
    for (int k = 1; k < plan->nops; k++) b->base[k] = handles[k];
    for (int i = 0; i < e->count; i++) {
        const clb__expr_node *n = &e->nodes[i];
        b->isz[i] = clb_dtype_size(n->dtype);
        b->load[i] = clb__loader(n->dtype);
        b->store[i] = clb__storer(n->dtype);
        b->fast[i] = fast_loop(e, n);
        b->plain[i] = !b->fast[i] && clb__host_loops_enabled && plain_float(e, n);
        b->same[i] = same_as(b, i);
        if (n->kind == CLB__EXPR_CONST) {
            b->store[i](b->konst[i], n->value);
            b->at[i] = (slot){b->konst[i], 0};
        }
    }
    b->buf = malloc((size_t)e->count * BUF_STRIDE);
    if (!b->buf) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory evaluating an expression");
    return CLB_OK;
}

/* Whether operand k's rows of the block follow each other as one strided line. */
static bool rows_in_line(const block_eval *b, int k, int rows, int64_t n, const int64_t *inner)
{
    const int nops = b->plan->nops;
    const int64_t *o = b->rows_off;
    for (int r = 1; r < rows; r++)
        if (o[r * nops + k] != o[k] + r * n * inner[k]) return false;
    return true;
}

/* Where INPUT node i's values for the block are: in place where its rows form one
   line, else gathered into its buffer (kept for the next block when every row
   reads the same row: a broadcast row is copied once). */
static void place_input(block_eval *b, int i, int rows, int64_t n, const int64_t *inner)
{
    const int nops = b->plan->nops, k = b->e->nodes[i].op + 1;
    const int64_t *o = b->rows_off;
    const size_t isz = b->isz[i];
    if (rows_in_line(b, k, rows, n, inner)) {
        b->at[i] = (slot){b->base[k] + o[k] * (int64_t)isz, inner[k]};
        return;
    }
    char *dst = node_buf(b, i);
    b->at[i] = (slot){dst, 1};
    bool one_row = true;
    for (int r = 1; r < rows && one_row; r++) one_row = o[r * nops + k] == o[k];
    if (one_row && b->tile_rows[i] >= rows && b->tile_off[i] == o[k]) return;
    clb__host_loop_fn copy = clb__host_copy_loop(isz);
    for (int r = 0; r < rows; r++)
        copy(n, dst + (size_t)(r * n) * isz, 1, b->base[k] + o[r * nops + k] * (int64_t)isz, inner[k],
             NULL, 0);
    b->tile_rows[i] = one_row ? rows : 0;
    b->tile_off[i] = o[k];
}

/* One block: rows rows of n positions each (their offsets in rows_off). Every
   node runs once over the block; the root's values go to the output directly
   or to the sink, row by row. */
static void run_block(block_eval *b, int rows, int64_t n, const int64_t *inner,
                      clb__expr_sink_fn sink, void *user)
{
    const clb__expr *e = b->e;
    for (int i = 0; i < e->count; i++)
        if (e->nodes[i].kind == CLB__EXPR_INPUT && b->same[i] == i) place_input(b, i, rows, n, inner);
    b->to_out = b->direct && rows_in_line(b, 0, rows, n, inner);
    if (b->to_out) b->out_slot = (slot){b->out + b->rows_off[0] * (int64_t)b->osz, inner[0]};
    for (int i = 0; i < e->count; i++) {
        clb__expr_kind k = e->nodes[i].kind;
        if (b->same[i] != i) b->at[i] = b->at[b->same[i]];
        else if (k != CLB__EXPR_INPUT && k != CLB__EXPR_CONST) node_run(b, i, (int64_t)rows * n);
    }
    if (b->to_out) return;
    const int nops = b->plan->nops;
    slot v = b->at[b->root];
    for (int r = 0; r < rows; r++)
        sink(user, b->rows_off[r * nops], inner[0], n, v.p + r * n * v.s * (int64_t)b->isz[b->root], v.s);
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

/* The walk: rows of at least BLOCK positions in pieces of BLOCK, shorter rows
   several to a block. out: operand 0's storage where the root (of out's dtype)
   may be stored there directly, NULL for folds. */
static clb_status walk(const clb__expr *e, const clb__plan *plan, void *const *handles, char *out,
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
    clb__expr_kind rk = e->nodes[b->root].kind;
    b->direct = out && b->same[b->root] == b->root && rk != CLB__EXPR_INPUT && rk != CLB__EXPR_CONST;
    b->out = out;
    b->osz = b->isz[b->root];
    const int nops = plan->nops;
    const int64_t n = plan->ndim > 0 ? plan->shape[plan->ndim - 1] : 1;
    int64_t inner[CLB__MAX_OPERANDS], off[CLB__MAX_OPERANDS], idx[CLB__PLAN_MAX_DIMS] = {0};
    for (int k = 0; k < nops; k++) {
        inner[k] = plan->ndim > 0 ? plan->strides[k][plan->ndim - 1] : 0;
        off[k] = plan->offsets[k];
    }
    const int per = n >= BLOCK ? 1 : (int)(BLOCK / n); /* rows a block */
    bool more = true;
    while (more) {
        if (n >= BLOCK) {
            for (int64_t start = 0; start < n; start += BLOCK) {
                for (int k = 0; k < nops; k++) b->rows_off[k] = off[k] + start * inner[k];
                run_block(b, 1, n - start < BLOCK ? n - start : BLOCK, inner, sink, user);
            }
            more = next_row(plan, idx, off);
            continue;
        }
        int rows = 0;
        for (; rows < per && more; rows++) {
            memcpy(&b->rows_off[rows * nops], off, sizeof(int64_t) * (size_t)nops);
            more = next_row(plan, idx, off);
        }
        run_block(b, rows, n, inner, sink, user);
    }
    free(b->buf);
    free(b);
    return CLB_OK;
}

clb_status clb__expr_host_blocks(const clb__expr *e, const clb__plan *plan, void *const *handles,
                                 clb__expr_sink_fn sink, void *user)
{
    return walk(e, plan, handles, NULL, sink, user);
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
    return walk(e, plan, handles, vt == out && clb__host_loops_enabled ? handles[0] : NULL,
                store_sink, &s);
}
