/* Fuzz target: the statistics and einsum entry points on the host backend
 * (clb_argmax / clb_argmin, clb_var / clb_std, clb_softmax / clb_log_softmax,
 * clb_logsumexp, clb_einsum, clb_eval_reduce) with fuzzed shapes (0-size
 * included), dtypes, axes, subscripts and expressions. A call either fails
 * with a message and *out NULL, or its result holds against a direct
 * computation along the axis: argmax / argmin's first extreme, var and std by
 * two passes, softmax rows summing to 1, logsumexp, and clb_eval_reduce equal
 * to clb_reduce of clb_eval. No storage outlives an input. */
#include "fuzz_input.h"

#include "clbroadcast.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXN 256

static clb_context *ctx;
static const clb_dtype mix[4] = {CLB_INT32, CLB_INT64, CLB_FLOAT32, CLB_FLOAT64};

static void check(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_stats: %s\n", what);
        abort();
    }
}

/* A failed call: a message, and nothing handed out. */
static void check_failure(clb_status st, const clb_tensor *out)
{
    check(st != CLB_OK && out == NULL, "a failed call left *out set");
    check(clb_last_error()[0] != '\0', "a failed call left no message");
}

/* t's values as doubles (at most MAXN). */
static void values(const clb_tensor *t, double *v)
{
    clb_tensor *f = NULL;
    check(clb_tensor_numel(t) <= MAXN, "result larger than the input");
    check(clb_cast(t, CLB_FLOAT64, &f) == CLB_OK, "cast to float64");
    check(clb_tensor_to_host(f, v, MAXN * sizeof *v) == CLB_OK, "to_host");
    clb_tensor_release(f);
}

/* A C-contiguous tensor of small integers (-3..3) as v holds them. */
static clb_tensor *fuzz_tensor(fuzz_input *in, int ndim, const int64_t *shape, double *v)
{
    clb_dtype dt = mix[fuzz_u8(in) % 4];
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    union { int32_t i32[MAXN]; int64_t i64[MAXN]; float f32[MAXN]; double f64[MAXN]; } buf;
    for (int64_t i = 0; i < n; i++) {
        int x = (int)(fuzz_u8(in) % 7) - 3;
        v[i] = x;
        if (dt == CLB_INT32) buf.i32[i] = x;
        else if (dt == CLB_INT64) buf.i64[i] = x;
        else if (dt == CLB_FLOAT32) buf.f32[i] = (float)x;
        else buf.f64[i] = x;
    }
    clb_tensor *t = NULL;
    check(clb_tensor_from_host(ctx, dt, ndim, shape, &buf, &t) == CLB_OK, "from_host");
    return t;
}

/* One axis of a C-contiguous shape: outputs k = o * inner + i (the kept
   positions in order), element j along the axis at (o * n + j) * inner + i. */
typedef struct along {
    int64_t outer, n, inner;
} along;

static along split(int ndim, const int64_t *shape, int axis)
{
    along a = {1, ndim ? shape[axis] : 1, 1};
    for (int d = 0; d < axis; d++) a.outer *= shape[d];
    for (int d = axis + 1; d < ndim; d++) a.inner *= shape[d];
    return a;
}

static double at(const double *v, along a, int64_t k, int64_t j)
{
    return v[(k / a.inner * a.n + j) * a.inner + k % a.inner];
}

static bool near(double got, double want, double rel)
{
    if (isnan(want) || isnan(got)) return isnan(want) && isnan(got);
    if (isinf(want) || isinf(got)) return got == want;
    return fabs(got - want) <= rel * (1 + fabs(want));
}

/* A short string over alphabet, of fuzzed length (at most cap - 1 characters). */
static void fuzz_text(fuzz_input *in, const char *alphabet, int alen, char *s, int cap)
{
    int n = (int)(fuzz_u8(in) % (unsigned)cap);
    for (int i = 0; i < n; i++) s[i] = alphabet[fuzz_u8(in) % (unsigned)alen];
    s[n] = '\0';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size};
    if (!ctx && clb_context_create("host", &ctx) != CLB_OK) abort();
    static double xv[MAXN], yv[MAXN], got[MAXN];
    int64_t xs[3], ys[3];
    int xd = (int)(fuzz_u8(&in) % 4), yd = (int)(fuzz_u8(&in) % 4);
    for (int d = 0; d < xd; d++) xs[d] = (int64_t)(fuzz_u8(&in) % 5);
    for (int d = 0; d < yd; d++) ys[d] = (int64_t)(fuzz_u8(&in) % 4);
    clb_tensor *x = fuzz_tensor(&in, xd, xs, xv), *y = fuzz_tensor(&in, yd, ys, yv), *r = NULL;
    const bool xfloat = clb_tensor_dtype(x) == CLB_FLOAT32 || clb_tensor_dtype(x) == CLB_FLOAT64;
    const int axis = (int)(fuzz_u8(&in) % 9) - 4, keep = (int)(fuzz_u8(&in) % 2);
    /* A valid axis of x; a 0-d x has none (NumPy's AxisError), but an op may take
       axis 0 or -1 there as its one element (PyTorch's rule): either is fine. */
    const int ax = axis < 0 ? axis + xd : axis;
    const bool axis_ok = ax >= 0 && ax < xd, scalar_ok = xd == 0 && (axis == 0 || axis == -1);
    const along a = split(xd, xs, axis_ok ? ax : 0);
    const int64_t kept = a.outer * a.inner;
    clb_status st;
    switch (fuzz_u8(&in) % 7) {
    case 0: { /* argmax / argmin: the first extreme along the axis */
        const bool is_min = fuzz_u8(&in) % 2;
        st = is_min ? clb_argmin(x, axis, keep, &r) : clb_argmax(x, axis, keep, &r);
        if (st != CLB_OK) {
            check_failure(st, r);
            check(!axis_ok || a.n == 0, "argmax / argmin refused a valid axis");
            break;
        }
        check((axis_ok || scalar_ok) && a.n > 0 && clb_tensor_dtype(r) == CLB_INT64,
              "argmax / argmin result");
        check(clb_tensor_numel(r) == kept, "argmax / argmin: one index per kept position");
        values(r, got);
        for (int64_t k = 0; k < kept; k++) {
            int64_t best = 0;
            for (int64_t j = 1; j < a.n; j++)
                if (is_min ? at(xv, a, k, j) < at(xv, a, k, best) : at(xv, a, k, j) > at(xv, a, k, best))
                    best = j;
            check(got[k] == (double)best, "argmax / argmin is not the first extreme");
        }
        break;
    }
    case 1: { /* var / std along the axis, two passes */
        const bool root = fuzz_u8(&in) % 2;
        const int corr = (int)(fuzz_u8(&in) % 3);
        const int axes[1] = {axis};
        st = root ? clb_std(x, 1, axes, corr, keep, &r) : clb_var(x, 1, axes, corr, keep, &r);
        if (st != CLB_OK) {
            check_failure(st, r);
            check(!axis_ok, "var / std refused a valid axis");
            break;
        }
        check((axis_ok || scalar_ok) && clb_tensor_numel(r) == kept,
              "var / std: one value per kept position");
        values(r, got);
        for (int64_t k = 0; k < kept; k++) {
            double s = 0, m2 = 0;
            for (int64_t j = 0; j < a.n; j++) s += at(xv, a, k, j);
            for (int64_t j = 0; j < a.n; j++) m2 += pow(at(xv, a, k, j) - s / (double)a.n, 2);
            double want = m2 / (double)(a.n - corr > 0 ? a.n - corr : 0);
            if (a.n == 0) want = NAN;
            if (root) want = sqrt(want);
            check(near(got[k], want, 1e-5), "var / std differs from two passes");
        }
        break;
    }
    case 2: { /* softmax / log_softmax: every row along the axis sums to 1 */
        const bool log_ = fuzz_u8(&in) % 2;
        st = log_ ? clb_log_softmax(x, axis, &r) : clb_softmax(x, axis, &r);
        if (st != CLB_OK) {
            check_failure(st, r);
            check(!axis_ok || !xfloat, "softmax refused a valid float input");
            break;
        }
        check((axis_ok || scalar_ok) && xfloat && clb_tensor_numel(r) == clb_tensor_numel(x),
              "softmax result");
        values(r, got);
        for (int64_t k = 0; k < kept && a.n > 0; k++) {
            double s = 0;
            for (int64_t j = 0; j < a.n; j++) s += log_ ? exp(at(got, a, k, j)) : at(got, a, k, j);
            check(near(s, 1, 1e-5), "softmax row does not sum to 1");
        }
        break;
    }
    case 3: { /* logsumexp along the axis */
        const int axes[1] = {axis};
        st = clb_logsumexp(x, 1, axes, keep, &r);
        if (st != CLB_OK) {
            check_failure(st, r);
            check(!axis_ok || !xfloat, "logsumexp refused a valid float input");
            break;
        }
        check((axis_ok || scalar_ok) && xfloat && clb_tensor_numel(r) == kept, "logsumexp result");
        values(r, got);
        for (int64_t k = 0; k < kept; k++) {
            double s = 0;
            for (int64_t j = 0; j < a.n; j++) s += exp(at(xv, a, k, j));
            check(near(got[k], log(s), 1e-5), "logsumexp differs");
        }
        break;
    }
    case 4: { /* einsum: fuzzed subscripts over one or two operands */
        char sub[16];
        fuzz_text(&in, "ij,k.->Iij", 10, sub, (int)sizeof sub);
        const clb_tensor *ops[2] = {x, y};
        st = clb_einsum(sub, 1 + (int)(fuzz_u8(&in) % 2), ops, &r);
        if (st != CLB_OK) check_failure(st, r);
        else check(r != NULL && clb_tensor_numel(r) <= MAXN * MAXN, "einsum result");
        break;
    }
    default: { /* eval_reduce equals clb_reduce of clb_eval */
        char expr[16];
        fuzz_text(&in, "xy+-*/()2 <&~", 13, expr, (int)sizeof expr);
        static const clb_reduce_op rops[5] = {CLB_SUM, CLB_MEAN, CLB_MAX, CLB_MIN, CLB_PROD};
        const clb_reduce_op op = rops[fuzz_u8(&in) % 5];
        const char *names[2] = {"x", "y"};
        const clb_tensor *inputs[2] = {x, y};
        const int axes[1] = {axis};
        clb_tensor *e = NULL, *want = NULL;
        st = clb_eval_reduce(ctx, expr, 2, names, inputs, op, 1, axes, keep, &r);
        clb_status se = clb_eval(ctx, expr, 2, names, inputs, &e);
        if (se == CLB_OK) se = clb_reduce(op, e, 1, axes, keep, &want);
        check((st == CLB_OK) == (se == CLB_OK), "eval_reduce and reduce(eval) disagree on success");
        if (st != CLB_OK) {
            check_failure(st, r);
        } else {
            check(clb_tensor_numel(r) == clb_tensor_numel(want) &&
                      clb_tensor_dtype(r) == clb_tensor_dtype(want) && clb_tensor_numel(r) <= MAXN,
                  "eval_reduce result's shape or dtype");
            static double w[MAXN];
            values(r, got);
            values(want, w);
            for (int64_t k = 0; k < clb_tensor_numel(r); k++)
                check(near(got[k], w[k], 1e-5), "eval_reduce differs from reduce(eval)");
        }
        clb_tensor_release(e);
        clb_tensor_release(want);
        break;
    }
    }
    clb_tensor_release(r);
    clb_tensor_release(x);
    clb_tensor_release(y);
    check(clb_memory_allocated(ctx) == 0, "storage leaked");
    return 0;
}
