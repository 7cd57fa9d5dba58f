/* Fuzz target: from_host and a random sequence of operations on the host
 * backend, each compared with a naive model of the tensor (a dense array of
 * doubles and a shape). Values stay small integers so every dtype in the mix
 * holds them exactly and the model needs no rounding rules. */
#include "fuzz_input.h"

#include "clbroadcast.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXN 512
#define MAXD 6

typedef struct model {
    int ndim;
    int64_t shape[MAXD];
    int64_t numel;
    double v[MAXN];
} model;

static clb_context *ctx;
static const clb_dtype mix[4] = {CLB_INT32, CLB_INT64, CLB_FLOAT32, CLB_FLOAT64};

static void check(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_ops: %s\n", what);
        abort();
    }
}

static int64_t count(int ndim, const int64_t *shape)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    return n;
}

static void unflatten(int64_t i, int ndim, const int64_t *shape, int64_t *idx)
{
    for (int d = ndim - 1; d >= 0; d--) {
        idx[d] = i % shape[d];
        i /= shape[d];
    }
}

static int64_t flatten(int ndim, const int64_t *shape, const int64_t *idx)
{
    int64_t f = 0;
    for (int d = 0; d < ndim; d++) f = f * shape[d] + idx[d];
    return f;
}

/* The value of m at idx of a shape m broadcasts to (aligned right). */
static double at_broadcast(const model *m, int ndim, const int64_t *idx)
{
    int64_t sub[MAXD];
    for (int d = 0; d < m->ndim; d++) {
        int64_t i = idx[ndim - m->ndim + d];
        sub[d] = m->shape[d] == 1 ? 0 : i;
    }
    return m->v[flatten(m->ndim, m->shape, sub)];
}

/* The library's tensor equals the model: same shape, same values. */
static void compare(const clb_tensor *t, const model *m)
{
    check(clb_tensor_ndim(t) == m->ndim, "ndim differs from the model");
    for (int d = 0; d < m->ndim; d++) check(clb_tensor_shape(t)[d] == m->shape[d], "shape differs");
    clb_tensor *f = NULL;
    static double got[MAXN];
    check(clb_cast(t, CLB_FLOAT64, &f) == CLB_OK, "cast to float64 for the comparison");
    check(clb_tensor_to_host(f, got, sizeof got) == CLB_OK, "to_host");
    clb_tensor_release(f);
    for (int64_t i = 0; i < m->numel; i++) check(got[i] == m->v[i], "value differs from the model");
}

static clb_tensor *random_tensor(fuzz_input *in, model *m, int ndim, const int64_t *shape)
{
    clb_dtype dt = mix[fuzz_u8(in) % 4];
    m->ndim = ndim;
    for (int d = 0; d < ndim; d++) m->shape[d] = shape[d];
    m->numel = count(ndim, shape);
    union { int32_t i32[MAXN]; int64_t i64[MAXN]; float f32[MAXN]; double f64[MAXN]; } buf;
    for (int64_t i = 0; i < m->numel; i++) {
        int v = (int)(fuzz_u8(in) % 7) - 3;
        m->v[i] = v;
        if (dt == CLB_INT32) buf.i32[i] = v;
        else if (dt == CLB_INT64) buf.i64[i] = v;
        else if (dt == CLB_FLOAT32) buf.f32[i] = (float)v;
        else buf.f64[i] = v;
    }
    clb_tensor *t = NULL;
    check(clb_tensor_from_host(ctx, dt, ndim, shape, &buf, &t) == CLB_OK, "from_host");
    return t;
}

static double apply(clb_binary_op op, double a, double b)
{
    switch (op) {
    case CLB_ADD: return a + b;
    case CLB_SUB: return a - b;
    case CLB_MUL: return a * b;
    case CLB_MAXIMUM: return a > b ? a : b;
    default: return a < b ? a : b;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size};
    if (!ctx && clb_context_create("host", &ctx) != CLB_OK) abort();
    static model m, next, other;
    int64_t shape[MAXD], idx[MAXD];
    int ndim = (int)(fuzz_u8(&in) % 4);
    for (int d = 0; d < ndim; d++) shape[d] = 1 + fuzz_u8(&in) % 3;
    clb_tensor *t = random_tensor(&in, &m, ndim, shape), *r = NULL, *o = NULL;
    compare(t, &m);

    for (int step = 0; step < 10 && in.left; step++) {
        unsigned op = fuzz_u8(&in) % 8;
        double biggest = 0;
        for (int64_t i = 0; i < m.numel; i++) biggest = fmax(biggest, fabs(m.v[i]));
        /* Sums and products stay below 2^24, exact in float32, when inputs are small. */
        if ((op == 5 || op == 6) && biggest > 4096) continue;
        next = m;
        clb_status st = CLB_OK;
        r = o = NULL;
        if (op == 0) { /* broadcast_to: size-1 axes grow, maybe one new leading axis */
            int lead = m.ndim < MAXD ? (int)(fuzz_u8(&in) % 2) : 0;
            next.ndim = m.ndim + lead;
            for (int d = 0; d < next.ndim; d++) {
                int64_t s = d < lead ? 1 : m.shape[d - lead];
                next.shape[d] = s == 1 ? 1 + fuzz_u8(&in) % 3 : s;
            }
            next.numel = count(next.ndim, next.shape);
            if (next.numel > MAXN) continue;
            for (int64_t i = 0; i < next.numel; i++) {
                unflatten(i, next.ndim, next.shape, idx);
                next.v[i] = at_broadcast(&m, next.ndim, idx);
            }
            st = clb_broadcast_to(t, next.ndim, next.shape, &r);
        } else if (op == 1) { /* permute */
            int perm[MAXD];
            for (int d = 0; d < m.ndim; d++) perm[d] = d;
            for (int d = m.ndim - 1; d > 0; d--) {
                int j = (int)(fuzz_u8(&in) % (unsigned)(d + 1)), tmp = perm[d];
                perm[d] = perm[j], perm[j] = tmp;
            }
            for (int d = 0; d < m.ndim; d++) next.shape[d] = m.shape[perm[d]];
            for (int64_t i = 0; i < m.numel; i++) {
                int64_t src[MAXD];
                unflatten(i, m.ndim, next.shape, idx);
                for (int d = 0; d < m.ndim; d++) src[perm[d]] = idx[d];
                next.v[i] = m.v[flatten(m.ndim, m.shape, src)];
            }
            st = clb_permute(t, perm, &r);
        } else if (op == 2) {
            st = clb_contiguous(t, &r);
        } else if (op == 3) {
            st = clb_cast(t, mix[fuzz_u8(&in) % 4], &r);
        } else if (op == 4) { /* repeat */
            int64_t reps[MAXD];
            int lead = m.ndim < MAXD ? (int)(fuzz_u8(&in) % 2) : 0;
            next.ndim = m.ndim + lead;
            for (int d = 0; d < next.ndim; d++) {
                reps[d] = 1 + fuzz_u8(&in) % 2;
                next.shape[d] = reps[d] * (d < lead ? 1 : m.shape[d - lead]);
            }
            next.numel = count(next.ndim, next.shape);
            if (next.numel > MAXN) continue;
            for (int64_t i = 0; i < next.numel; i++) {
                int64_t src[MAXD];
                unflatten(i, next.ndim, next.shape, idx);
                for (int d = 0; d < m.ndim; d++) src[d] = idx[d + lead] % m.shape[d];
                next.v[i] = m.v[flatten(m.ndim, m.shape, src)];
            }
            st = clb_repeat(t, next.ndim, reps, &r);
        } else if (op == 5) { /* binary with a tensor that broadcasts against t */
            static const clb_binary_op ops[5] = {CLB_ADD, CLB_SUB, CLB_MUL, CLB_MAXIMUM, CLB_MINIMUM};
            clb_binary_op bop = ops[fuzz_u8(&in) % 5];
            int drop = m.ndim ? (int)(fuzz_u8(&in) % (unsigned)(m.ndim + 1)) : 0;
            int64_t oshape[MAXD];
            for (int d = drop; d < m.ndim; d++)
                oshape[d - drop] = fuzz_u8(&in) % 2 ? 1 : m.shape[d];
            o = random_tensor(&in, &other, m.ndim - drop, oshape);
            for (int64_t i = 0; i < m.numel; i++) {
                unflatten(i, m.ndim, m.shape, idx);
                next.v[i] = apply(bop, m.v[i], at_broadcast(&other, m.ndim, idx));
            }
            st = clb_binary(bop, t, o, &r);
        } else if (op == 6 && m.ndim > 0) { /* sum over one axis */
            int axis = (int)(fuzz_u8(&in) % (unsigned)m.ndim), keep = (int)(fuzz_u8(&in) % 2);
            next.ndim = 0;
            for (int d = 0; d < m.ndim; d++)
                if (d != axis) next.shape[next.ndim++] = m.shape[d];
                else if (keep) next.shape[next.ndim++] = 1;
            next.numel = count(next.ndim, next.shape);
            for (int64_t j = 0; j < next.numel; j++) next.v[j] = 0;
            for (int64_t i = 0; i < m.numel; i++) {
                unflatten(i, m.ndim, m.shape, idx);
                int64_t out = 0;
                for (int d = 0; d < m.ndim; d++)
                    if (d != axis) out = out * m.shape[d] + idx[d];
                next.v[out] += m.v[i];
            }
            st = clb_reduce(CLB_SUM, t, 1, &axis, keep, &r);
        } else { /* flatten through reshape: a view or a copy */
            next.ndim = 1;
            next.shape[0] = m.numel;
            st = clb_reshape(t, 1, (const int64_t[]){-1}, &r);
        }
        clb_tensor_release(o);
        if (st != CLB_OK) {
            fprintf(stderr, "fuzz_ops: op %u: %s\n", op, clb_last_error());
            abort();
        }
        compare(r, &next);
        clb_tensor_release(t);
        t = r;
        m = next;
    }
    clb_tensor_release(t);
    check(clb_memory_allocated(ctx) == 0, "storage leaked");
    return 0;
}
