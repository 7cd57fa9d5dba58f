/* Assembling tensors: numpy.concatenate (clb_concat) and numpy.stack (clb_stack).
   The result is allocated once in the promoted dtype; each non-empty input is then
   copied (and cast) into its slice-view of the result through the strided copy,
   one backend copy per input, never a loop over rows. */
#include "dtype.h"
#include "internal.h"
#include "shape.h"

#include <stdio.h>

/* Common checks: n >= 1, every tensor live and on in[0]'s context. */
static clb_status check_inputs(const char *fn, int n, const clb_tensor *const *in)
{
    if (n < 1)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: n is %d; at least one tensor is needed",
                         fn, n);
    if (!in) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: in is NULL", fn);
    for (int k = 0; k < n; k++) {
        char what[64];
        snprintf(what, sizeof what, "%s: in[%d]", fn, k);
        clb_status st = clb__check_tensor(in[k], what);
        if (st != CLB_OK) return st;
        if (k > 0) {
            st = clb__check_same_context(fn, in[0], in[k]);
            if (st != CLB_OK) return st;
        }
    }
    return CLB_OK;
}

/* dst = cast(src), dst being the view (ndim, shape, strides, offset) of out's storage. */
static clb_status copy_into_view(clb_tensor *out, int ndim, const int64_t *shape,
                                 const int64_t *strides, int64_t offset, const clb_tensor *src)
{
    clb_tensor *view = NULL;
    clb_status st = clb__tensor_view(out, ndim, shape, strides, offset, &view);
    if (st != CLB_OK) return st;
    st = clb__copy_into(view, src);
    clb_tensor_release(view);
    return st;
}

clb_status clb_concat(int n, const clb_tensor *const *in, int axis, clb_tensor **out)
{
    clb_status st = CLB_OK;
    char s0[512], sk[512];
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_concat: out is NULL");
    *out = NULL;
    CLB_TRY(check_inputs("clb_concat", n, in));
    const clb_tensor *t0 = in[0];
    if (t0->ndim == 0)
        CLB_FAIL(CLB_ERR_INVALID_ARGUMENT,
                 "clb_concat: in[0] is 0-d; zero-dimensional tensors cannot be concatenated "
                 "(clb_stack joins them along a new axis)");
    int a = 0;
    if (clb__normalize_axis(axis, t0->ndim, &a) != CLB_OK)
        CLB_FAIL(CLB_ERR_INVALID_ARGUMENT, "clb_concat: %s", clb_last_error());
    int64_t shape[CLB_MAX_DIMS];
    for (int d = 0; d < t0->ndim; d++) shape[d] = t0->shape[d];
    shape[a] = 0;
    clb_dtype dtype = t0->dtype;
    for (int k = 0; k < n; k++) {
        const clb_tensor *t = in[k];
        if (t->ndim != t0->ndim)
            CLB_FAIL(CLB_ERR_SHAPE_MISMATCH,
                     "clb_concat: in[%d] %s has %d dimensions but in[0] %s has %d; every tensor "
                     "needs the same number of dimensions",
                     k, clb__shape_str(t->ndim, t->shape, sk, sizeof sk), t->ndim,
                     clb__shape_str(t0->ndim, t0->shape, s0, sizeof s0), t0->ndim);
        for (int d = 0; d < t->ndim; d++) {
            if (d == a || t->shape[d] == t0->shape[d]) continue;
            CLB_FAIL(CLB_ERR_SHAPE_MISMATCH,
                     "clb_concat: in[%d] %s has size %lld on dimension %d but in[0] %s has "
                     "%lld; sizes must agree on every dimension except the concatenation "
                     "axis %d",
                     k, clb__shape_str(t->ndim, t->shape, sk, sizeof sk), (long long)t->shape[d], d,
                     clb__shape_str(t0->ndim, t0->shape, s0, sizeof s0), (long long)t0->shape[d], a);
        }
        if (t->shape[a] > INT64_MAX - shape[a])
            CLB_FAIL(CLB_ERR_INVALID_ARGUMENT, "clb_concat: the size of axis %d overflows int64", a);
        shape[a] += t->shape[a];
        dtype = clb__promote(clb__rules(t0->storage->ctx), dtype, t->dtype);
    }
    CLB_TRY(clb__shape_check(t0->ndim, shape, "clb_concat: the result", NULL));
    CLB_TRY(clb__tensor_new(t0->storage->ctx, dtype, t0->ndim, shape, out));
    int64_t at = 0; /* where the next input starts along the axis */
    for (int k = 0; k < n; k++) {
        const clb_tensor *t = in[k];
        if (t->numel > 0) {
            int64_t part[CLB_MAX_DIMS];
            for (int d = 0; d < t->ndim; d++) part[d] = shape[d];
            part[a] = t->shape[a];
            CLB_TRY(copy_into_view(*out, t->ndim, part, (*out)->strides,
                                   (*out)->offset + at * (*out)->strides[a], t));
        }
        at += t->shape[a];
    }
    return CLB_OK;
cleanup:
    clb_tensor_release(*out);
    *out = NULL;
    return st;
}

clb_status clb_stack(int n, const clb_tensor *const *in, int axis, clb_tensor **out)
{
    clb_status st = CLB_OK;
    char s0[512], sk[512];
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_stack: out is NULL");
    *out = NULL;
    CLB_TRY(check_inputs("clb_stack", n, in));
    const clb_tensor *t0 = in[0];
    const int nd = t0->ndim;
    if (nd >= CLB_MAX_DIMS)
        CLB_FAIL(CLB_ERR_INVALID_ARGUMENT,
                 "clb_stack: the tensors already have CLB_MAX_DIMS (%d) dimensions; the result "
                 "would have one more",
                 CLB_MAX_DIMS);
    int a = 0;
    if (clb__normalize_axis(axis, nd + 1, &a) != CLB_OK)
        CLB_FAIL(CLB_ERR_INVALID_ARGUMENT, "clb_stack: %s", clb_last_error());
    clb_dtype dtype = t0->dtype;
    for (int k = 0; k < n; k++) {
        const clb_tensor *t = in[k];
        if (t->ndim != nd)
            CLB_FAIL(CLB_ERR_SHAPE_MISMATCH,
                     "clb_stack: in[%d] %s has %d dimensions but in[0] %s has %d; every tensor "
                     "needs the same shape",
                     k, clb__shape_str(t->ndim, t->shape, sk, sizeof sk), t->ndim,
                     clb__shape_str(nd, t0->shape, s0, sizeof s0), nd);
        for (int d = 0; d < nd; d++) {
            if (t->shape[d] == t0->shape[d]) continue;
            CLB_FAIL(CLB_ERR_SHAPE_MISMATCH,
                     "clb_stack: in[%d] %s has size %lld on dimension %d but in[0] %s has %lld; "
                     "every tensor needs the same shape",
                     k, clb__shape_str(nd, t->shape, sk, sizeof sk), (long long)t->shape[d], d,
                     clb__shape_str(nd, t0->shape, s0, sizeof s0), (long long)t0->shape[d]);
        }
        dtype = clb__promote(clb__rules(t0->storage->ctx), dtype, t->dtype);
    }
    int64_t shape[CLB_MAX_DIMS];
    for (int d = 0, s = 0; d <= nd; d++) shape[d] = d == a ? n : t0->shape[s++];
    CLB_TRY(clb__shape_check(nd + 1, shape, "clb_stack: the result", NULL));
    CLB_TRY(clb__tensor_new(t0->storage->ctx, dtype, nd + 1, shape, out));
    if ((*out)->numel == 0) return CLB_OK;
    /* Input k lands in out[..., k, ...]: out's layout without the stacking axis. */
    int64_t strides[CLB_MAX_DIMS];
    for (int d = 0, s = 0; d <= nd; d++)
        if (d != a) strides[s++] = (*out)->strides[d];
    for (int k = 0; k < n; k++)
        CLB_TRY(copy_into_view(*out, nd, t0->shape, strides,
                               (*out)->offset + k * (*out)->strides[a], in[k]));
    return CLB_OK;
cleanup:
    clb_tensor_release(*out);
    *out = NULL;
    return st;
}
