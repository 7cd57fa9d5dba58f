/* Everything a task could fail on, checked when it is submitted: a task that
 * fails inside a worker can only report at clb_starpu_wait. The library itself
 * decides dtypes, names, axes and the expression, in a dry run on one-element
 * stand-ins (host backend, memory on the stack); the shapes are compared here. */
#include "sp_internal.h"

#include <string.h>

/* The library's message, prefixed with fn, kept as the thread's error. */
static clb_status relay(clb_status st, const char *fn)
{
    char inner[1024];
    snprintf(inner, sizeof inner, "%s", clb_last_error());
    return clb_sp_fail(st, "%s: %s", fn, inner);
}

static int same_shape(int na, const int64_t *a, int nb, const int64_t *b)
{
    if (na != nb) return 0;
    for (int d = 0; d < na; d++)
        if (a[d] != b[d]) return 0;
    return 1;
}

static clb_status shape_differs(const char *fn, const char *what, int nexp, const int64_t *exp,
                                const clb_sp_desc *out)
{
    char want[256], have[256];
    return clb_sp_fail(CLB_ERR_SHAPE_MISMATCH, "%s: %s has shape %s, but out's shape is %s", fn, what,
                       clb_sp_shape_text(nexp, exp, want, sizeof want),
                       clb_sp_shape_text(out->ndim, out->shape, have, sizeof have));
}

/* The broadcast shape of descs [0, n). */
static clb_status broadcast(const char *fn, const clb_sp_desc *desc, int n, int *ndim, int64_t *shape)
{
    int ndims[CLB_EVAL_MAX_INPUTS + 1];
    const int64_t *shapes[CLB_EVAL_MAX_INPUTS + 1];
    for (int i = 0; i < n; i++) ndims[i] = desc[i].ndim, shapes[i] = desc[i].shape;
    clb_status st = clb_broadcast_shapes(n, ndims, shapes, ndim, shape);
    return st == CLB_OK ? CLB_OK : relay(st, fn);
}

/* The shape a reduction over axes of an (ndim, shape) broadcast result has. The
   dry run has already refused bad axes. */
static int reduced_shape(const clb_sp_args *a, int ndim, const int64_t *shape, int64_t *out)
{
    int reduced[CLB_MAX_DIMS] = {0}, n = 0;
    for (int i = 0; i < (a->naxes < 0 ? ndim : a->naxes); i++)
        reduced[a->naxes < 0 ? i : (a->axes[i] + ndim) % (ndim ? ndim : 1)] = 1;
    for (int d = 0; d < ndim; d++)
        if (!reduced[d]) out[n++] = shape[d];
        else if (a->keepdim) out[n++] = 1;
    return n;
}

/* numpy.matmul's result shape, or CLB_ERR_SHAPE_MISMATCH. */
static clb_status matmul_shape(const char *fn, const clb_sp_desc *a, const clb_sp_desc *b, int *ndim,
                               int64_t *shape)
{
    int64_t k_a = a->shape[a->ndim - 1], k_b = b->shape[b->ndim > 1 ? b->ndim - 2 : 0];
    if (k_a != k_b)
        return clb_sp_fail(CLB_ERR_SHAPE_MISMATCH, "%s: matmul: a's last axis (%lld) must match "
                           "b's %s axis (%lld)", fn, (long long)k_a,
                           b->ndim > 1 ? "second to last" : "only", (long long)k_b);
    clb_sp_desc batch[2] = {{.ndim = a->ndim > 2 ? a->ndim - 2 : 0},
                            {.ndim = b->ndim > 2 ? b->ndim - 2 : 0}};
    memcpy(batch[0].shape, a->shape, sizeof(int64_t) * (size_t)batch[0].ndim);
    memcpy(batch[1].shape, b->shape, sizeof(int64_t) * (size_t)batch[1].ndim);
    clb_status st = broadcast(fn, batch, 2, ndim, shape);
    if (st != CLB_OK) return st;
    if (a->ndim > 1) shape[(*ndim)++] = a->shape[a->ndim - 2];
    if (b->ndim > 1) shape[(*ndim)++] = b->shape[b->ndim - 1];
    return CLB_OK;
}

/* The dry run: the op on one-element tensors of the same dtypes and ranks. */
static clb_status dry_run(clb_starpu *sp, const char *fn, const clb_sp_args *a, clb_dtype *dtype)
{
    static const int64_t ones[CLB_MAX_DIMS] = {
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    uint64_t zeros = 0, scratch = 0;
    clb_tensor *in[CLB_EVAL_MAX_INPUTS] = {0}, *out = NULL, *r = NULL;
    const char *names[CLB_EVAL_MAX_INPUTS];
    const clb_sp_desc *o = &a->desc[a->n];
    clb_status st = CLB_OK;
    for (int i = 0; i < a->n && st == CLB_OK; i++) {
        st = clb_tensor_from_host_memory(sp->host, &zeros, sizeof zeros, a->desc[i].dtype,
                                         a->desc[i].ndim, ones, NULL, &in[i]);
        names[i] = a->text + a->name_at[i];
    }
    if (st == CLB_OK)
        st = clb_tensor_from_host_memory(sp->host, &scratch, sizeof scratch, o->dtype, o->ndim, ones,
                                         NULL, &out);
    const clb_tensor *const *cin = (const clb_tensor *const *)in;
    if (st == CLB_OK) switch (a->kind) {
        case CLB_SP_EVAL:
            st = clb_eval_into(sp->host, a->text, a->n, names, cin, out);
            break;
        case CLB_SP_EVAL_REDUCE:
            st = clb_eval_reduce(sp->host, a->text, a->n, names, cin, a->op, a->naxes < 0 ? 0 : a->naxes,
                                 a->naxes < 0 ? NULL : a->axes, a->keepdim, &r);
            break;
        case CLB_SP_REDUCE:
            st = clb_reduce(a->op, in[0], a->naxes < 0 ? 0 : a->naxes, a->naxes < 0 ? NULL : a->axes,
                            a->keepdim, &r);
            break;
        case CLB_SP_SUM_TO_SHAPE:
            st = clb_sum_to_shape(in[0], o->ndim, ones, &r);
            break;
        default:
            st = clb_matmul(in[0], in[1], &r);
            break;
        }
    if (st == CLB_OK) *dtype = r ? clb_tensor_dtype(r) : o->dtype;
    else st = relay(st, fn);
    for (int i = 0; i < a->n; i++) clb_tensor_release(in[i]);
    clb_tensor_release(out);
    clb_tensor_release(r);
    return st;
}

clb_status clb_sp_check_args(clb_starpu *sp, const char *fn, const clb_sp_args *a)
{
    clb_dtype dtype = CLB_FLOAT32;
    clb_status st = dry_run(sp, fn, a, &dtype);
    if (st != CLB_OK) return st;
    const clb_sp_desc *o = &a->desc[a->n];
    if (dtype != o->dtype)
        return clb_sp_fail(CLB_ERR_DTYPE, "%s: the result is %s but out is %s; register out with "
                           "the result's dtype", fn, clb_dtype_name(dtype), clb_dtype_name(o->dtype));
    int ndim = 0;
    int64_t shape[CLB_MAX_DIMS];
    switch (a->kind) {
    case CLB_SP_EVAL:
        st = broadcast(fn, a->desc, a->n + 1, &ndim, shape);
        if (st == CLB_OK && !same_shape(ndim, shape, o->ndim, o->shape))
            st = shape_differs(fn, "the inputs broadcast with out", ndim, shape, o);
        return st;
    case CLB_SP_EVAL_REDUCE:
    case CLB_SP_REDUCE: {
        int64_t r[CLB_MAX_DIMS];
        st = broadcast(fn, a->desc, a->n, &ndim, shape);
        if (st != CLB_OK) return st;
        int nr = reduced_shape(a, ndim, shape, r);
        return same_shape(nr, r, o->ndim, o->shape) ? CLB_OK : shape_differs(fn, "the result", nr, r, o);
    }
    case CLB_SP_SUM_TO_SHAPE: {
        const clb_sp_desc pair[2] = {a->desc[0], *o};
        st = broadcast(fn, pair, 2, &ndim, shape);
        if (st == CLB_OK && !same_shape(ndim, shape, a->desc[0].ndim, a->desc[0].shape))
            st = shape_differs(fn, "out does not broadcast to grad's shape: grad", a->desc[0].ndim,
                               a->desc[0].shape, o);
        return st;
    }
    default:
        st = matmul_shape(fn, &a->desc[0], &a->desc[1], &ndim, shape);
        if (st == CLB_OK && !same_shape(ndim, shape, o->ndim, o->shape))
            st = shape_differs(fn, "a @ b", ndim, shape, o);
        return st;
    }
}
