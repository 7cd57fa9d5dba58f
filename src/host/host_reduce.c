/* The host backend's reductions: clb_reduce, clb_eval_reduce, var/std and
 * softmax's statistics, all folds over the values the block evaluator
 * (host_expr.c) hands over run by run; clb_reduce's values are its input,
 * an expression of one INPUT node read in place.
 *
 * Accumulation: floats (float16 too) and every MEAN in double; signed integers
 * and bool in int64, unsigned in uint64, wrapping. A float32/float64 sum along
 * a run adds into eight double partial sums, combined pairwise at the run's end
 * (a fixed order: the same bits on every call, at least as accurate as one
 * running sum); every other fold (float16 sums too) goes element by element in
 * plan order. */

/* The sums below vectorise at -O3; half.h's conversions only without trapping
   math (it changes no value): before the includes, for half.h's functions. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3", "no-trapping-math")
#endif

#include "host_backend.h"

#include "dtype.h"
#include "half.h"
#include "host_expr.h"
#include "host_loops.h"
#include "host_map.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the walk: axes ordered for reading the inputs ------------------------------- */

/* The inputs' step along axis d: the axis they move fastest along goes innermost,
   so a column sum reads rows (adding each into its column's accumulator) rather
   than walking down columns. Any axis order folds the same elements. */
static int64_t input_step(const clb__plan *p, int d)
{
    int64_t s = 0;
    for (int k = 1; k < p->nops; k++) s += clb__abs64(p->strides[k][d]);
    return s;
}

static void reorder_for_inputs(clb__plan *p)
{
    for (int i = 1; i < p->ndim; i++)
        for (int j = i; j > 0 && input_step(p, j) > input_step(p, j - 1); j--) {
            int64_t t = p->shape[j];
            p->shape[j] = p->shape[j - 1];
            p->shape[j - 1] = t;
            for (int k = 0; k < p->nops; k++) {
                t = p->strides[k][j];
                p->strides[k][j] = p->strides[k][j - 1];
                p->strides[k][j - 1] = t;
            }
        }
    int merged = 0; /* merge neighbours contiguous for every operand (as clb__plan_make) */
    for (int d = 0; d < p->ndim; d++) {
        bool fits = merged > 0;
        for (int k = 0; k < p->nops && fits; k++)
            fits = p->strides[k][merged - 1] == p->strides[k][d] * p->shape[d];
        if (fits) {
            p->shape[merged - 1] *= p->shape[d];
            for (int k = 0; k < p->nops; k++) p->strides[k][merged - 1] = p->strides[k][d];
            continue;
        }
        p->shape[merged] = p->shape[d];
        for (int k = 0; k < p->nops; k++) p->strides[k][merged] = p->strides[k][d];
        merged++;
    }
    p->ndim = merged;
}

/* Runs sink over the values of e on a copy of plan reordered for its inputs. */
static clb_status fold_walk(const clb__expr *e, const clb__plan *plan, void *const *handles,
                            clb__expr_sink_fn sink, void *user)
{
    clb__plan *p = malloc(sizeof *p);
    if (!p) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "host backend: out of host memory for a reduction plan");
    memcpy(p, plan, sizeof *p);
    reorder_for_inputs(p);
    clb_status st = clb__expr_host_blocks(e, p, handles, sink, user);
    free(p);
    return st;
}

/* ---- folds ------------------------------------------------------------------------ */

static clb_dtype accumulator_dtype(clb_reduce_op op, clb_dtype in)
{
    if (op == CLB_MEAN || clb__dtype_is_float(in)) return CLB_FLOAT64;
    return clb__dtype_is_unsigned(in) ? CLB_UINT64 : CLB_INT64;
}

/* Each reduction is a fold with a binary op (whose NaN and wrap rules it inherits). */
static clb_binary_op fold_op(clb_reduce_op op)
{
    switch (op) {
    case CLB_PROD: return CLB_MUL;
    case CLB_MAX: return CLB_MAXIMUM;
    case CLB_MIN: return CLB_MINIMUM;
    default: return CLB_ADD; /* CLB_SUM, CLB_MEAN */
    }
}

/* The fold's starting value: 0, 1, or the extreme that any element replaces. */
static clb__value fold_identity(clb_reduce_op op, clb_dtype acc)
{
    clb__value v;
    bool is_max = op == CLB_MAX, is_min = op == CLB_MIN;
    if (acc == CLB_FLOAT64)
        v.d = op == CLB_PROD ? 1.0 : is_max ? -INFINITY : is_min ? INFINITY : 0.0;
    else if (acc == CLB_UINT64)
        v.u = op == CLB_PROD ? 1 : is_min ? UINT64_MAX : 0;
    else
        v.i = op == CLB_PROD ? 1 : is_max ? INT64_MIN : is_min ? INT64_MAX : 0;
    return v;
}

/* float16 values folded into double accumulators: converted a chunk at a time
   (half.h's branch-free conversion, vectorised), then folded one by one in
   order with host_scalar.c's rule for the op (a the accumulator, x the value),
   the same bits as element by element through clb__binary_eval. */
typedef void (*half_fold_fn)(double *acc, int64_t sa, const uint16_t *h, int64_t vs, int64_t n);
#define HALF_CHUNK 256
#define DEFINE_HALF_FOLD(NAME, EXPR)                                                               \
    static void NAME(double *acc, int64_t sa, const uint16_t *h, int64_t vs, int64_t n)           \
    {                                                                                              \
        float f[HALF_CHUNK];                                                                       \
        for (int64_t i = 0; i < n; i += HALF_CHUNK) {                                              \
            const int m = n - i < HALF_CHUNK ? (int)(n - i) : HALF_CHUNK;                          \
            if (vs == 1)                                                                           \
                for (int j = 0; j < m; j++) f[j] = clb__h2f(h[i + j]);                             \
            else                                                                                   \
                for (int j = 0; j < m; j++) f[j] = clb__h2f(h[(i + j) * vs]);                      \
            if (sa == 0) {                                                                         \
                double a = *acc;                                                                   \
                for (int j = 0; j < m; j++) {                                                      \
                    const double x = f[j];                                                         \
                    a = (EXPR);                                                                    \
                }                                                                                  \
                *acc = a;                                                                          \
            } else {                                                                               \
                double *restrict ai = acc + i * sa;                                                \
                for (int j = 0; j < m; j++) {                                                      \
                    const double a = ai[j * sa], x = f[j];                                         \
                    ai[j * sa] = (EXPR);                                                           \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }
DEFINE_HALF_FOLD(half_sum, a + x)
DEFINE_HALF_FOLD(half_prod, a * x)
DEFINE_HALF_FOLD(half_max, isnan(a) || a > x ? a : x)
DEFINE_HALF_FOLD(half_min, isnan(a) || a < x ? a : x)

/* The typed fold of float16 values into double accumulators, or NULL. */
static half_fold_fn half_fold(clb_binary_op fold, clb_dtype value, clb_dtype acc)
{
    if (!clb__host_loops_enabled || value != CLB_FLOAT16 || acc != CLB_FLOAT64) return NULL;
    switch (fold) {
    case CLB_ADD: return half_sum;
    case CLB_MUL: return half_prod;
    case CLB_MAXIMUM: return half_max;
    case CLB_MINIMUM: return half_min;
    default: return NULL;
    }
}

typedef struct fold_state {
    clb_binary_op fold;
    clb_dtype acc_dtype, value_dtype;
    clb__value *acc; /* one per output element */
    int64_t out_start;
    size_t vsz;
    clb__load_fn load;
    bool typed_sum;         /* float32/float64 values summed in double */
    half_fold_fn half_fold; /* float16 values: their typed fold, or NULL */
} fold_state;

/* Eight partial sums along a contiguous run, combined pairwise; or each value
   into its own accumulator (the float64 in a clb__value, so a plain double array). */
_Static_assert(sizeof(clb__value) == sizeof(double), "accumulators are read as doubles");
#define DEFINE_RUN_SUM(NAME, T)                                                                    \
    static double NAME(const T *x, int64_t n)                                                      \
    {                                                                                              \
        double p[8] = {0, 0, 0, 0, 0, 0, 0, 0};                                                    \
        int64_t i = 0;                                                                             \
        for (; i + 8 <= n; i += 8)                                                                 \
            for (int l = 0; l < 8; l++) p[l] += (double)x[i + l];                                  \
        for (int l = 0; i < n; i++, l++) p[l] += (double)x[i];                                     \
        return ((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]));                  \
    }                                                                                              \
    static void NAME##_into(double *restrict acc, int64_t sa, const T *restrict x, int64_t n)      \
    {                                                                                              \
        if (sa == 1)                                                                               \
            for (int64_t i = 0; i < n; i++) acc[i] += (double)x[i];                                \
        else                                                                                       \
            for (int64_t i = 0; i < n; i++) acc[i * sa] += (double)x[i];                           \
    }
DEFINE_RUN_SUM(run_sum_f32, float)
DEFINE_RUN_SUM(run_sum_f64, double)

static void fold_sink(void *user, int64_t off, int64_t so, int64_t n, const char *v, int64_t vs)
{
    const fold_state *s = user;
    clb__value *acc = s->acc + (off - s->out_start);
    if (s->half_fold) {
        s->half_fold(&acc->d, so, (const uint16_t *)(const void *)v, vs, n);
        return;
    }
    if (s->typed_sum && vs == 1) {
        bool f32 = s->value_dtype == CLB_FLOAT32;
        if (so == 0)
            acc->d += f32 ? run_sum_f32((const float *)v, n) : run_sum_f64((const double *)v, n);
        else if (f32)
            run_sum_f32_into(&acc->d, so, (const float *)v, n);
        else
            run_sum_f64_into(&acc->d, so, (const double *)v, n);
        return;
    }
    for (int64_t j = 0; j < n; j++) {
        clb__value x = clb__convert(s->load(v + j * vs * (int64_t)s->vsz), s->value_dtype, s->acc_dtype);
        acc[j * so] = clb__binary_eval(s->fold, s->acc_dtype, acc[j * so], x);
    }
}

/* A column sum: a row-major (rows, n) input, the rows folded into one row of
   n accumulators, four rows a pass, each accumulator taking them in row order
   (the same bits as one row at a time, a quarter of the accumulator traffic). */
#define DEFINE_COLUMN_SUM(NAME, T)                                                                 \
    static void NAME(double *restrict acc, const T *x, int64_t rows, int64_t rs, int64_t n)       \
    {                                                                                              \
        int64_t r = 0;                                                                             \
        for (; r + 4 <= rows; r += 4) {                                                            \
            const T *restrict x0 = x + r * rs, *restrict x1 = x0 + rs, *restrict x2 = x1 + rs,     \
                              *restrict x3 = x2 + rs;                                              \
            for (int64_t j = 0; j < n; j++)                                                        \
                acc[j] = (((acc[j] + (double)x0[j]) + (double)x1[j]) + (double)x2[j]) +            \
                         (double)x3[j];                                                            \
        }                                                                                          \
        for (; r < rows; r++)                                                                      \
            for (int64_t j = 0; j < n; j++) acc[j] += (double)x[r * rs + j];                       \
    }
DEFINE_COLUMN_SUM(column_sum_f32, float)
DEFINE_COLUMN_SUM(column_sum_f64, double)

/* clb_reduce's float sums: a plan that is one column sum after reordering runs
   the loop above, any other the block walk. */
static clb_status sum_walk(const clb__expr *e, const clb__plan *plan, void *const *handles,
                           fold_state *s)
{
    clb__plan *p = malloc(sizeof *p);
    if (!p) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "host backend: out of host memory for a reduction plan");
    memcpy(p, plan, sizeof *p);
    reorder_for_inputs(p);
    clb_status st = CLB_OK;
    if (p->ndim == 2 && p->strides[0][0] == 0 && p->strides[0][1] == 1 && p->strides[1][1] == 1) {
        double *acc = &s->acc[p->offsets[0] - s->out_start].d;
        const char *x = (const char *)handles[1] + p->offsets[1] * (int64_t)s->vsz;
        if (s->value_dtype == CLB_FLOAT32)
            column_sum_f32(acc, (const float *)x, p->shape[0], p->strides[1][0], p->shape[1]);
        else
            column_sum_f64(acc, (const double *)x, p->shape[0], p->strides[1][0], p->shape[1]);
    } else {
        st = clb__expr_host_blocks(e, p, handles, fold_sink, s);
    }
    free(p);
    return st;
}

/* count zeroed accumulators of `size` bytes each for the reduction `what`:
   CLB_ERR_OUT_OF_MEMORY, naming it, when they cannot be addressed or allocated. */
static clb_status alloc_accumulators(int64_t count, size_t size, const char *what, void **out)
{
    *out = NULL;
    if ((uint64_t)count > SIZE_MAX / size)
        return clb__fail(CLB_ERR_OUT_OF_MEMORY,
                         "host backend: %s of %lld output elements needs more accumulator "
                         "memory than can be addressed",
                         what, (long long)count);
    size_t n = (size_t)count;
    *out = calloc(n ? n : 1, size);
    if (!*out)
        return clb__fail(CLB_ERR_OUT_OF_MEMORY,
                         "host backend: allocation of %zu bytes of %s accumulators failed",
                         n * size, what);
    return CLB_OK;
}

/* The fold of e's values (dtype op->in) into operand 0. */
static clb_status fold_expr(const clb__expr *e, const clb__reduce_op *op, const clb__plan *plan,
                            void *const *handles)
{
    size_t n = (size_t)op->out_numel;
    fold_state s = {fold_op(op->op), accumulator_dtype(op->op, op->in), op->in, NULL,
                    plan->offsets[0], clb_dtype_size(op->in), clb__loader(op->in), false, NULL};
    s.typed_sum = clb__host_loops_enabled && s.fold == CLB_ADD && s.acc_dtype == CLB_FLOAT64 &&
                  (op->in == CLB_FLOAT32 || op->in == CLB_FLOAT64);
    s.half_fold = half_fold(s.fold, op->in, s.acc_dtype);
    clb_status st = alloc_accumulators(op->out_numel, sizeof *s.acc, clb_reduce_op_name(op->op),
                                       (void **)&s.acc);
    if (st != CLB_OK) return st;
    for (size_t j = 0; j < n; j++) s.acc[j] = fold_identity(op->op, s.acc_dtype);
    /* sum_walk's column loop reads operand 1 itself: only for an expression that is
       just the first input (not a constant, not another input). */
    const bool first_input = e->count == 1 && e->nodes[0].kind == CLB__EXPR_INPUT && e->nodes[0].op == 0;
    st = first_input && s.typed_sum ? sum_walk(e, plan, handles, &s)
                                      : fold_walk(e, plan, handles, fold_sink, &s);
    if (st == CLB_OK) {
        clb__operand out = clb__operand_of(handles[0], op->out);
        for (size_t j = 0; j < n; j++) {
            if (op->op == CLB_MEAN) /* an empty mean is 0/0: NaN, as NumPy */
                s.acc[j].d = op->count > 0 ? s.acc[j].d / (double)op->count : NAN;
            clb__operand_write(&out, s.out_start + (int64_t)j, s.acc[j], s.acc_dtype);
        }
    }
    free(s.acc);
    return st;
}

clb_status clb__host_reduce(clb_context *ctx, const clb__reduce_op *op, const clb__plan *plan,
                            void *const *handles)
{
    (void)ctx;
    /* The values are the input itself: an expression of one INPUT node. */
    clb__expr *e = calloc(1, sizeof *e);
    if (!e) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "host backend: out of host memory for a reduction");
    e->count = 1;
    e->nodes[0] = (clb__expr_node){.kind = CLB__EXPR_INPUT, .op = 0, .dtype = op->in,
                                   .compute = op->in};
    clb_status st = fold_expr(e, op, plan, handles);
    free(e);
    return st;
}

clb_status clb__host_eval_reduce(clb_context *ctx, const clb__expr *e, const clb__reduce_op *op,
                                 const clb__plan *plan, void *const *handles, const clb_dtype *in)
{
    (void)ctx;
    (void)in;
    return fold_expr(e, op, plan, handles);
}

/* ---- eval_moments: Welford in float64 per output ----------------------------------- */

typedef struct moments_acc {
    double n, mean, m2;
} moments_acc;

typedef struct stat_state {
    void *acc; /* moments_acc, or the (max, sum of exp) pairs */
    int64_t out_start;
    clb_dtype value_dtype;
    size_t vsz;
    clb__load_fn load;
} stat_state;

static double value_at(const stat_state *s, const char *v, int64_t j, int64_t vs)
{
    return clb__convert(s->load(v + j * vs * (int64_t)s->vsz), s->value_dtype, CLB_FLOAT64).d;
}

static void moments_sink(void *user, int64_t off, int64_t so, int64_t n, const char *v, int64_t vs)
{
    const stat_state *s = user;
    moments_acc *acc = (moments_acc *)s->acc + (off - s->out_start);
    for (int64_t j = 0; j < n; j++) {
        moments_acc *a = &acc[j * so];
        double x = value_at(s, v, j, vs);
        a->n += 1;
        double d = x - a->mean;
        a->mean += d / a->n;
        a->m2 += d * (x - a->mean);
    }
}

clb_status clb__host_eval_moments(clb_context *ctx, const clb__expr *e, const clb__moments_op *op,
                                  const clb__plan *plan, void *const *handles, const clb_dtype *in)
{
    (void)ctx;
    (void)in;
    size_t n = (size_t)op->out_numel;
    stat_state s = {NULL, plan->offsets[0], op->in, clb_dtype_size(op->in), clb__loader(op->in)};
    clb_status st = alloc_accumulators(op->out_numel, sizeof(moments_acc), "var", &s.acc);
    if (st != CLB_OK) return st;
    st = fold_walk(e, plan, handles, moments_sink, &s);
    if (st == CLB_OK) {
        const moments_acc *acc = s.acc;
        clb__operand out = clb__operand_of(handles[0], op->out);
        /* NumPy divides by max(count - ddof, 0): 0 gives inf, or nan for 0 / 0. */
        int64_t div = op->count - op->correction > 0 ? op->count - op->correction : 0;
        for (size_t j = 0; j < n; j++) {
            clb__value r;
            r.d = acc[j].m2 / (double)div;
            if (op->root) r.d = sqrt(r.d);
            clb__operand_write(&out, s.out_start + (int64_t)j, r, CLB_FLOAT64);
        }
    }
    free(s.acc);
    return st;
}

/* ---- eval_online: softmax's (max, sum of exp) pairs in float64 -------------------- */

/* exp(a - b) for a <= b, 1 where they are equal (infinities included). */
static double ratio(double a, double b)
{
    return a == b ? 1.0 : exp(a - b);
}

static void online_sink(void *user, int64_t off, int64_t so, int64_t n, const char *v, int64_t vs)
{
    const stat_state *s = user;
    double *pair = (double *)s->acc + 2 * (off - s->out_start);
    for (int64_t j = 0; j < n; j++) {
        double *p = &pair[2 * j * so];
        double x = value_at(s, v, j, vs);
        if (x > p[0]) {
            p[1] = p[1] * ratio(p[0], x) + 1.0;
            p[0] = x;
        } else {
            p[1] += ratio(x, p[0]);
        }
    }
}

clb_status clb__host_eval_online(clb_context *ctx, const clb__expr *e, const clb__reduce_op *op,
                                 const clb__plan *plan, void *const *handles, const clb_dtype *in)
{
    (void)ctx;
    (void)in;
    size_t n = (size_t)op->out_numel;
    stat_state s = {NULL, plan->offsets[0], op->in, clb_dtype_size(op->in), clb__loader(op->in)};
    clb_status st = alloc_accumulators(op->out_numel, 2 * sizeof(double), "softmax", &s.acc);
    if (st != CLB_OK) return st;
    double *pair = s.acc;
    for (size_t j = 0; j < n; j++) {
        pair[2 * j] = -INFINITY;
        pair[2 * j + 1] = 0;
    }
    st = fold_walk(e, plan, handles, online_sink, &s);
    if (st == CLB_OK) {
        clb__operand out = clb__operand_of(handles[0], op->out);
        for (size_t j = 0; j < 2 * n; j++) {
            clb__value r;
            r.d = pair[j];
            clb__operand_write(&out, s.out_start + (int64_t)j, r, CLB_FLOAT64);
        }
    }
    free(s.acc);
    return st;
}
